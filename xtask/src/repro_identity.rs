//! `cargo xtask repro-identity [--shards N] [--whole DIR] [PAPER...]`: merged shards equal
//! one run, on the real experiments. Builds the release `slarm`, runs the papers (default: all
//! five) once unsharded (or takes the unsharded run in `--whole DIR`, e.g. the CI's main job)
//! and as N shards (default 3, one thread each), merges the shards and compares the merged
//! folder with the unsharded one byte for byte (every file but `timings.json`). Prints one
//! line per difference; fails on any.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use crate::{run_cmd, workspace_root};

/// Parsed arguments.
struct Args {
    shards: usize,
    whole: Option<PathBuf>,
    papers: Vec<String>,
}

fn parse(args: &[String]) -> Result<Args, String> {
    let mut a = Args {
        shards: 3,
        whole: None,
        papers: Vec::new(),
    };
    let mut it = args.iter();
    while let Some(x) = it.next() {
        match x.as_str() {
            "--shards" => {
                a.shards = it
                    .next()
                    .and_then(|v| v.parse().ok())
                    .filter(|n| *n >= 2)
                    .ok_or("--shards needs a number >= 2")?;
            }
            "--whole" => a.whole = Some(it.next().ok_or("--whole needs a folder")?.into()),
            p if !p.starts_with('-') => a.papers.push(p.to_string()),
            other => return Err(format!("unknown option {other}")),
        }
    }
    Ok(a)
}

/// Runs `slarm reproduce` for `papers` at quick scale, seed 1, with extra arguments.
fn reproduce(slarm: &Path, papers: &[String], out: &Path, extra: &[String]) -> Result<(), String> {
    run_cmd(
        Command::new(slarm)
            .arg("reproduce")
            .args(papers)
            .args(["--scale", "quick", "--seed", "1", "--out"])
            .arg(out)
            .args(extra)
            .stdout(std::process::Stdio::null()),
    )
}

/// Builds the release CLI and returns its path.
pub fn release_slarm(root: &Path) -> Result<PathBuf, String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    run_cmd(
        Command::new(cargo)
            .args(["build", "--release", "-p", "slarm-cli"])
            .current_dir(root),
    )?;
    Ok(root.join("target/release/slarm"))
}

/// Compares two output folders, printing one line per difference; true when identical.
pub fn report_comparison(whole: &Path, merged: &Path) -> Result<bool, String> {
    let c = slarm_repro::compare_outputs(whole, merged).map_err(|e| e.to_string())?;
    print!("{c}");
    if c.compared == 0 {
        println!("nothing to compare in {}", whole.display());
        return Ok(false);
    }
    Ok(c.identical())
}

fn identity(a: &Args) -> Result<bool, String> {
    let root = workspace_root();
    let slarm = release_slarm(&root)?;
    let work = root.join("target/repro-identity");
    let _ = std::fs::remove_dir_all(&work);
    let whole = match &a.whole {
        Some(w) => w.clone(),
        None => {
            let w = work.join("whole");
            eprintln!("repro-identity: unsharded run into {}", w.display());
            reproduce(&slarm, &a.papers, &w, &[])?;
            w
        }
    };
    let mut shard_dirs = Vec::new();
    for k in 1..=a.shards {
        let d = work.join(format!("shard{k}"));
        eprintln!(
            "repro-identity: shard {k}/{} into {}",
            a.shards,
            d.display()
        );
        reproduce(
            &slarm,
            &a.papers,
            &d,
            &[
                "--jobs".into(),
                "1".into(),
                "--shard".into(),
                format!("{k}/{}", a.shards),
            ],
        )?;
        shard_dirs.push(d);
    }
    let merged = work.join("merged");
    run_cmd(
        Command::new(&slarm)
            .args(["merge", "--out"])
            .arg(&merged)
            .args(&shard_dirs)
            .stdout(std::process::Stdio::null()),
    )?;
    report_comparison(&whole, &merged)
}

/// Runs the task.
pub fn run(args: &[String]) -> ExitCode {
    let parsed = match parse(args) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("usage: cargo xtask repro-identity [--shards N] [--whole DIR] [PAPER...]\nrepro-identity: {e}");
            return ExitCode::from(2);
        }
    };
    match identity(&parsed) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => {
            eprintln!("repro-identity: the merged shards differ from the unsharded run");
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("repro-identity: {e}");
            ExitCode::FAILURE
        }
    }
}
