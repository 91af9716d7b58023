//! `cargo xtask deps`: the dependency budget of the model crates. For each model crate it counts
//! the distinct packages (`name version`, the crate itself included) of its normal dependency
//! tree with default features and with `--no-default-features`, prints a Markdown table, and
//! fails when a crate without default features holds more than [`MAX_NO_DEFAULT`] packages or
//! serde or rayon, or when with default features it depends on an application crate.

use std::collections::BTreeSet;
use std::process::{Command, ExitCode};

/// The model crates, bottom-up.
const MODEL_CRATES: [&str; 8] = [
    "slarm-stats",
    "slarm-workload",
    "slarm-sim",
    "slarm-queueing",
    "slarm-pricing",
    "slarm-overbook",
    "slarm-provision",
    "slarm-grid",
];

/// At most this many packages in a model crate's tree without default features.
const MAX_NO_DEFAULT: usize = 35;

/// Never in a model crate's tree without default features.
const OPTIONAL_ONLY: [&str; 2] = ["serde", "rayon"];

/// Never in a model crate's tree, whatever its features.
const APPLICATION: [&str; 6] = [
    "slarm-report",
    "slarm-repro",
    "serde_json",
    "plotters",
    "clap",
    "indicatif",
];

/// Runs the check; prints the table; exit 1 on a violation.
pub fn run(_args: &[String]) -> ExitCode {
    match check() {
        Ok(violations) if violations.is_empty() => ExitCode::SUCCESS,
        Ok(violations) => {
            for v in violations {
                eprintln!("deps: {v}");
            }
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("deps: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Distinct `name version` packages of `krate`'s normal dependency tree.
fn tree(krate: &str, no_default: bool) -> Result<BTreeSet<(String, String)>, String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut cmd = Command::new(cargo);
    cmd.args(["tree", "-p", krate, "-e", "normal", "--prefix", "none"]);
    if no_default {
        cmd.arg("--no-default-features");
    }
    let out = cmd.output().map_err(|e| format!("cargo tree: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "cargo tree -p {krate}: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| {
            let mut w = l.split_whitespace();
            Some((w.next()?.to_string(), w.next()?.to_string()))
        })
        .collect())
}

fn check() -> Result<Vec<String>, String> {
    let mut violations = Vec::new();
    println!("| crate | default features | `--no-default-features` | serde / rayon without defaults | application crates |");
    println!("|---|---|---|---|---|");
    for krate in MODEL_CRATES {
        let full = tree(krate, false)?;
        let lean = tree(krate, true)?;
        let has = |set: &BTreeSet<(String, String)>, name: &str| set.iter().any(|(n, _)| n == name);
        let optional: Vec<&str> = OPTIONAL_ONLY
            .into_iter()
            .filter(|n| has(&lean, n))
            .collect();
        let app: Vec<&str> = APPLICATION.into_iter().filter(|n| has(&full, n)).collect();
        println!(
            "| `{krate}` | {} | {} | {} | {} |",
            full.len(),
            lean.len(),
            if optional.is_empty() {
                "none".to_string()
            } else {
                optional.join(", ")
            },
            if app.is_empty() {
                "none".to_string()
            } else {
                app.join(", ")
            },
        );
        if lean.len() > MAX_NO_DEFAULT {
            violations.push(format!(
                "{krate} without default features has {} packages (at most {MAX_NO_DEFAULT})",
                lean.len()
            ));
        }
        if !optional.is_empty() {
            violations.push(format!(
                "{krate} without default features depends on {}",
                optional.join(", ")
            ));
        }
        if !app.is_empty() {
            violations.push(format!(
                "{krate} depends on application crates {}",
                app.join(", ")
            ));
        }
    }
    Ok(violations)
}
