//! `cargo xtask repro-diff BEFORE AFTER`: compares two reproduction runs paper by paper: the
//! verdict counts of each, then every check whose verdict moved (or that exists in only one
//! run), with both values, the published value, the tolerance and the stated reason (where a
//! report gives a confidence interval or seed spread, it is in the reason). Markdown on
//! standard output; exit 0 whether or not verdicts moved (it is a listing, not a gate).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::ExitCode;

use serde_json::Value;

const VERDICTS: [&str; 4] = ["match", "within tolerance", "differs", "not published"];

fn checks(run: &Path, paper: &str) -> Result<BTreeMap<String, Value>, String> {
    let path = run.join(paper).join("checks.json");
    let bytes = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let v: Value =
        serde_json::from_slice(&bytes).map_err(|e| format!("{}: {e}", path.display()))?;
    let list = v
        .as_array()
        .ok_or_else(|| format!("{}: not a list of checks", path.display()))?;
    Ok(list
        .iter()
        .filter_map(|c| Some((c.get("id")?.as_str()?.to_string(), c.clone())))
        .collect())
}

fn papers(run: &Path) -> Result<BTreeSet<String>, String> {
    let rd = std::fs::read_dir(run).map_err(|e| format!("{}: {e}", run.display()))?;
    Ok(rd
        .filter_map(|e| e.ok())
        .filter(|e| e.path().join("checks.json").is_file())
        .filter_map(|e| e.file_name().to_str().map(str::to_string))
        .collect())
}

fn field(c: Option<&Value>, key: &str) -> String {
    match c.and_then(|c| c.get(key)) {
        None | Some(Value::Null) => "-".into(),
        Some(Value::String(s)) => s.replace('|', "/"),
        Some(Value::Number(n)) => match n.as_f64() {
            Some(x) => format!("{}", (x * 1e6).round() / 1e6),
            None => n.to_string(),
        },
        Some(v) => v.to_string(),
    }
}

fn counts(cs: &BTreeMap<String, Value>) -> String {
    VERDICTS
        .iter()
        .map(|v| {
            cs.values()
                .filter(|c| {
                    c.get("verdict")
                        .and_then(Value::as_str)
                        .map(|s| s.replace('_', " "))
                        .as_deref()
                        == Some(*v)
                })
                .count()
                .to_string()
        })
        .collect::<Vec<_>>()
        .join("/")
}

fn diff(before: &Path, after: &Path) -> Result<String, String> {
    let mut out = String::new();
    let all: BTreeSet<String> = papers(before)?.union(&papers(after)?).cloned().collect();
    out.push_str("| paper | checks before | checks after | match/within/differs/not published before | after | verdicts moved |\n|---|---:|---:|---|---|---:|\n");
    let mut details = String::new();
    for paper in &all {
        let b = checks(before, paper).unwrap_or_default();
        let a = checks(after, paper).unwrap_or_default();
        let ids: BTreeSet<&String> = b.keys().chain(a.keys()).collect();
        let mut moved = Vec::new();
        for id in ids {
            let (cb, ca) = (b.get(id), a.get(id));
            if field(cb, "verdict") != field(ca, "verdict") {
                moved.push(format!(
                    "| {id} | {} -> {} | {} | {} | {} | {} | {} |\n",
                    field(cb, "verdict"),
                    field(ca, "verdict"),
                    field(cb, "ours"),
                    field(ca, "ours"),
                    field(ca.or(cb), "published"),
                    field(ca.or(cb), "tolerance"),
                    field(ca.or(cb), "reason"),
                ));
            }
        }
        out.push_str(&format!(
            "| {paper} | {} | {} | {} | {} | {} |\n",
            b.len(),
            a.len(),
            counts(&b),
            counts(&a),
            moved.len()
        ));
        if !moved.is_empty() {
            details.push_str(&format!(
                "\n### {paper}\n\n| id | verdict | ours before | ours after | published | tolerance | reason (after) |\n|---|---|---:|---:|---:|---:|---|\n"
            ));
            details.extend(moved);
        }
    }
    out.push_str(&details);
    Ok(out)
}

/// Runs the comparison of `args[0]` (before) and `args[1]` (after).
pub fn run(args: &[String]) -> ExitCode {
    let [before, after] = args else {
        eprintln!("usage: cargo xtask repro-diff BEFORE_DIR AFTER_DIR");
        return ExitCode::from(2);
    };
    match diff(Path::new(before), Path::new(after)) {
        Ok(text) => {
            print!("{text}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("repro-diff: {e}");
            ExitCode::from(2)
        }
    }
}
