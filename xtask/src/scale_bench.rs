//! `cargo xtask scale-bench --trace FILE [--reps N] [--bin SLARM]`: the scale goals of
//! docs/performance.md on a large log (made by `cargo xtask big-trace`), whole process, the
//! release binary.
//!
//! Each round runs, in turn, `slarm simulate --trace FILE --policy easy`, `--policy
//! conservative` and `--policy easy,conservative --report DIR` (the HTML page with its
//! figures, into a scratch folder) under `/usr/bin/time` (wall, user and system seconds,
//! peak resident set). Conservative's cost is reported as the median of the
//! per-round ratios to the EASY run of the same round, so a load that changes between rounds
//! cancels out; the load average is printed at the start and the end. The goals: EASY at
//! most 1.2 s wall and 120 bytes a job at peak, conservative at most 3x EASY, both policies
//! in one command with the report under 30 s.

use std::path::PathBuf;
use std::process::{Command, ExitCode, Stdio};

use crate::{run_cmd, workspace_root};

const MAX_REPS: usize = 100;

/// One run: wall, user + system CPU seconds, peak RSS in bytes.
#[derive(Debug, Clone, Copy)]
struct Run {
    wall: f64,
    cpu: f64,
    rss: f64,
}

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|s| {
            let f: Vec<&str> = s.split_whitespace().take(3).collect();
            (f.len() == 3).then(|| f.join(" "))
        })
        .unwrap_or_else(|| "unknown".into())
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n == 0 {
        f64::NAN
    } else if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// Runs `slarm simulate` once; returns the run and the job count of its summary.
fn once(
    bin: &str,
    trace: &str,
    policy: &str,
    report: bool,
    scratch: &std::path::Path,
) -> Result<(Run, u64), String> {
    let times = scratch.join("time.txt");
    let out = Command::new("/usr/bin/time")
        .args(["-f", "%e %U %S %M", "-o"])
        .arg(&times)
        .args([
            bin, "simulate", "--trace", trace, "--policy", policy, "--json",
        ])
        .args(if report {
            vec![
                "--report".to_string(),
                scratch.join("report").display().to_string(),
            ]
        } else {
            Vec::new()
        })
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| format!("/usr/bin/time: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "slarm simulate --policy {policy} failed ({})",
            out.status
        ));
    }
    let text = std::fs::read_to_string(&times).map_err(|e| format!("{}: {e}", times.display()))?;
    let v: Vec<f64> = text
        .lines()
        .last()
        .unwrap_or("")
        .split_whitespace()
        .filter_map(|x| x.parse().ok())
        .collect();
    let [wall, user, sys, kb] = v[..] else {
        return Err(format!("/usr/bin/time wrote {text:?}"));
    };
    let json: serde_json::Value =
        serde_json::from_slice(&out.stdout).map_err(|e| format!("slarm simulate --json: {e}"))?;
    let jobs = json["jobs"].as_u64().unwrap_or(0);
    Ok((
        Run {
            wall,
            cpu: user + sys,
            rss: kb * 1024.0,
        },
        jobs,
    ))
}

fn usage() -> ExitCode {
    eprintln!("usage: cargo xtask scale-bench --trace FILE [--reps N] [--bin SLARM]");
    ExitCode::from(2)
}

/// Entry point.
pub fn run(args: &[String]) -> ExitCode {
    let mut reps = 3usize;
    let mut trace = None;
    let mut bin = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match (a.as_str(), it.next()) {
            ("--reps", Some(v)) => match v.parse::<usize>() {
                Ok(n) if (1..=MAX_REPS).contains(&n) => reps = n,
                _ => {
                    eprintln!("scale-bench: --reps {v}: not an integer in 1..={MAX_REPS}");
                    return ExitCode::from(2);
                }
            },
            ("--trace", Some(v)) => trace = Some(v.clone()),
            ("--bin", Some(v)) => bin = Some(v.clone()),
            _ => return usage(),
        }
    }
    let Some(trace) = trace else { return usage() };
    let bin = match bin {
        Some(b) => b,
        None => {
            let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
            if let Err(e) = run_cmd(Command::new(cargo).current_dir(workspace_root()).args([
                "build",
                "--release",
                "--quiet",
                "-p",
                "slarm-cli",
            ])) {
                eprintln!("scale-bench: {e}");
                return ExitCode::FAILURE;
            }
            let p: PathBuf = workspace_root().join("target/release/slarm");
            p.display().to_string()
        }
    };
    let scratch = match tempfile::tempdir() {
        Ok(d) => d,
        Err(e) => {
            eprintln!("scale-bench: scratch folder: {e}");
            return ExitCode::FAILURE;
        }
    };
    // The third run also writes the report page: the whole command of the goal.
    let policies = ["easy", "conservative", "easy,conservative"];
    let labels = ["easy", "conservative", "easy,conservative --report"];
    let load_start = load_average();
    let mut runs: Vec<Vec<Run>> = vec![Vec::new(); policies.len()];
    let mut jobs = 0;
    for round in 0..reps {
        for (i, p) in policies.iter().enumerate() {
            match once(&bin, &trace, p, i == 2, scratch.path()) {
                Ok((r, n)) => {
                    eprintln!(
                        "round {}: {}: {:.2} s wall, {:.2} s CPU, {:.0} MB peak",
                        round + 1,
                        labels[i],
                        r.wall,
                        r.cpu,
                        r.rss / 1e6
                    );
                    runs[i].push(r);
                    if i == 0 {
                        jobs = n;
                    }
                }
                Err(e) => {
                    eprintln!("scale-bench: {e}");
                    return ExitCode::FAILURE;
                }
            }
        }
    }
    let load_end = load_average();
    let ratio = |f: fn(&Run) -> f64| {
        median(
            runs[0]
                .iter()
                .zip(&runs[1])
                .map(|(e, c)| f(c) / f(e))
                .collect(),
        )
    };
    let med = |i: usize, f: fn(&Run) -> f64| median(runs[i].iter().map(f).collect());
    let per_job = |i: usize| med(i, |r| r.rss) / jobs.max(1) as f64;
    println!("trace {trace}: {jobs} jobs simulated; {reps} rounds; load average {load_start} at the start, {load_end} at the end");
    println!("| policy | wall (median) | CPU (median) | peak RSS | bytes a job |");
    println!("|---|---|---|---|---|");
    for (i, p) in labels.iter().enumerate() {
        println!(
            "| {p} | {:.2} s | {:.2} s | {:.0} MB | {:.0} |",
            med(i, |r| r.wall),
            med(i, |r| r.cpu),
            med(i, |r| r.rss) / 1e6,
            per_job(i)
        );
    }
    let (rw, rc) = (ratio(|r| r.wall), ratio(|r| r.cpu));
    println!("conservative / EASY, median of the per-round ratios: {rw:.2}x wall, {rc:.2}x CPU");
    let goals = [
        ("EASY <= 1.2 s wall", med(0, |r| r.wall) <= 1.2),
        ("EASY <= 120 bytes a job at peak", per_job(0) <= 120.0),
        ("conservative <= 3x EASY (CPU)", rc <= 3.0),
        (
            "easy,conservative --report < 30 s wall",
            med(2, |r| r.wall) < 30.0,
        ),
    ];
    for (goal, met) in goals {
        println!("{goal}: {}", if met { "met" } else { "NOT met" });
    }
    ExitCode::SUCCESS
}
