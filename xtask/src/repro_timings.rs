//! `cargo xtask repro-timings DIR`: the timings of a reproduction run as a Markdown table for
//! docs/performance.md: per paper the number of cells, the wall-clock seconds summed over its
//! cells (as measured where each cell ran, so shards and resumed pieces add up) and its
//! slowest cell; then the last `reproduce`/`merge` process's wall and CPU seconds and the
//! machine's load now. Reads only; run it after `slarm reproduce` (or `merge`).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use serde_json::Value;

fn json(path: &Path) -> Result<Value, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    serde_json::from_slice(&bytes).map_err(|e| format!("{}: {e}", path.display()))
}

/// Per-paper rows: paper, cells, summed seconds, slowest cell and its seconds.
fn table(dir: &Path) -> Result<String, String> {
    let run = json(&dir.join("timings.json"))?;
    let mut o = String::from(
        "| paper | scale | cells | cell seconds (sum) | slowest cell | its seconds |\n|---|---|---:|---:|---|---:|\n",
    );
    let (mut cells, mut total) = (0usize, 0f64);
    for p in run["papers"].as_array().ok_or("timings.json: no papers")? {
        let paper = p["paper"]
            .as_str()
            .ok_or("timings.json: paper without a name")?;
        let scale = json(&dir.join(paper).join("config.json"))?["scale"]
            .as_str()
            .unwrap_or("?")
            .to_string();
        let t = json(&dir.join(paper).join("timings.json"))?;
        let secs: Vec<(String, f64)> = t["cell_seconds"]
            .as_object()
            .map(|m| {
                m.iter()
                    .filter_map(|(k, v)| Some((k.clone(), v.as_f64()?)))
                    .collect()
            })
            .unwrap_or_default();
        let sum: f64 = secs.iter().map(|s| s.1).sum();
        let slowest = secs
            .iter()
            .max_by(|a, b| a.1.total_cmp(&b.1))
            .cloned()
            .unwrap_or_default();
        cells += secs.len();
        total += sum;
        o.push_str(&format!(
            "| {paper} | {scale} | {} | {sum:.1} | `{}` | {:.1} |\n",
            secs.len(),
            slowest.0,
            slowest.1
        ));
    }
    o.push_str(&format!("| all | | {cells} | {total:.1} | | |\n"));
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    o.push_str(&format!(
        "\nLast process on DIR: {:.1} s wall, {} s CPU (user + system). Load average now: {}.\n",
        run["wall_seconds"].as_f64().unwrap_or(f64::NAN),
        run["cpu_seconds"]
            .as_f64()
            .map_or_else(|| "?".into(), |c| format!("{c:.1}")),
        load.split_whitespace()
            .take(3)
            .collect::<Vec<_>>()
            .join(" ")
    ));
    Ok(o)
}

/// Runs the task.
pub fn run(args: &[String]) -> ExitCode {
    let Some(dir) = args.first().map(PathBuf::from) else {
        eprintln!("usage: cargo xtask repro-timings DIR   (DIR: the --out folder of a run)");
        return ExitCode::from(2);
    };
    match table(&dir) {
        Ok(t) => {
            print!("{t}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("repro-timings: {e}");
            ExitCode::FAILURE
        }
    }
}
