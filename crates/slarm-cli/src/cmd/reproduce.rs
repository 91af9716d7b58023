//! `slarm reproduce` and `slarm merge`: argument mapping only; the engine is
//! `slarm-repro` and the experiments live in the model crates.

use std::io::IsTerminal;
use std::path::PathBuf;

use serde_json::json;
use slarm_repro::report::{Experiment, Scale};
use slarm_repro::{Options, ReproError, RunSummary, Shard};

use crate::error::{CliError, CliResult};
use crate::output::{text_table, Output};
use crate::papers::{registry, PAPERS};

/// Arguments of `slarm reproduce`.
#[derive(Debug, clap::Args)]
pub struct ReproduceArgs {
    /// Papers to reproduce (default: all): hu2009, birkenheuer2012, yeo-buyya, sung2006, yigitbasi2010.
    papers: Vec<String>,
    /// quick (minutes, built-in synthetic workloads) or paper (the full experiments).
    #[arg(long, default_value = "quick", allow_hyphen_values = true)]
    scale: String,
    /// Output folder.
    #[arg(long, allow_hyphen_values = true)]
    out: PathBuf,
    /// Folder of PWA logs by archive file name (else $SLARM_TRACES, else synthetic workloads).
    #[arg(long, allow_hyphen_values = true)]
    traces: Option<PathBuf>,
    /// Background-load trace (GWF or SWF, plain or gzip) under yigitbasi2010's section VI
    /// experiments, e.g. the DAS-3 June 2008 trace (default: the synthetic background).
    #[arg(long, allow_hyphen_values = true)]
    background: Option<PathBuf>,
    /// Root seed of every random stream.
    #[arg(long, default_value_t = 1, allow_hyphen_values = true)]
    seed: u64,
    /// Worker threads (default: one per core).
    #[arg(long, allow_hyphen_values = true)]
    jobs: Option<usize>,
    /// Run only every N-th cell, starting at the K-th (K/N); join shards with `slarm merge`.
    #[arg(long, allow_hyphen_values = true)]
    shard: Option<String>,
    /// Skip cells whose results are already complete in --out.
    #[arg(long)]
    resume: bool,
}

/// Arguments of `slarm merge`.
#[derive(Debug, clap::Args)]
pub struct MergeArgs {
    /// Output folder.
    #[arg(long, allow_hyphen_values = true)]
    out: PathBuf,
    /// Shard output folders.
    #[arg(required = true)]
    shards: Vec<PathBuf>,
}

fn repro_error(e: ReproError) -> CliError {
    if e.is_bad_input() {
        CliError::bad_input(e)
    } else {
        CliError::internal(e)
    }
}

/// The code revision recorded in `run.json` and checked by `--resume` and `merge`: the git
/// commit of the source tree this binary was built from, as the build script read it at build
/// time (`-dirty` when the tree had uncommitted changes then); the crate version when the
/// binary was not built from a git checkout of the workspace.
fn revision() -> String {
    option_env!("SLARM_BUILD_REVISION")
        .map_or_else(|| format!("v{}", env!("CARGO_PKG_VERSION")), str::to_string)
}

fn summary_output(s: &RunSummary, unavailable: &[&str]) -> Output {
    let header: Vec<String> = [
        "paper",
        "cells",
        "ran",
        "reused",
        "assembled",
        "match",
        "within tol.",
        "differs",
        "not publ.",
        "cell s",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let v = |p: &slarm_repro::PaperSummary, k: &str| {
        p.verdicts.get(k).copied().unwrap_or(0).to_string()
    };
    let rows: Vec<Vec<String>> = s
        .papers
        .iter()
        .map(|p| {
            vec![
                p.paper.clone(),
                p.cells.to_string(),
                p.ran.to_string(),
                p.reused.to_string(),
                p.assembled.to_string(),
                v(p, "match"),
                v(p, "within tolerance"),
                v(p, "differs"),
                v(p, "not published"),
                format!("{:.1}", p.cell_seconds),
            ]
        })
        .collect();
    let mut text = text_table(&header, &rows, 0);
    if !unavailable.is_empty() {
        text.push_str(&format!(
            "not yet available in this build: {}\n",
            unavailable.join(", ")
        ));
    }
    if s.papers.iter().any(|p| p.assembled) {
        text.push_str(&format!("report: {}\n", s.out.join("index.html").display()));
    }
    text.push_str(&format!("wall time {:.1} s\n", s.wall_seconds));
    let json = json!({
        "out": s.out,
        "shard": s.shard.map(|k| format!("{}/{}", k.index, k.count)),
        "papers": s.papers,
        "not_available": unavailable,
        "wall_seconds": s.wall_seconds,
    });
    Output::new(json, text)
}

/// Issue 9: every "differs" verdict carries its reason. A check that differs without one is a
/// defect of the paper's experiment module: the report is written, but the command fails
/// (exit 1) naming the checks.
fn require_explained(s: &slarm_repro::RunSummary) -> CliResult<()> {
    let missing: Vec<String> = s
        .papers
        .iter()
        .flat_map(|p| {
            p.unexplained
                .iter()
                .map(move |id| format!("{}/{id}", p.paper))
        })
        .collect();
    if missing.is_empty() {
        Ok(())
    } else {
        Err(CliError::internal(format!(
            "checks differ without a reason (report written to {}): {}",
            s.out.display(),
            missing.join(", ")
        )))
    }
}

/// Most worker threads of `--jobs`.
const MAX_THREADS: u64 = 1024;

/// Runs `slarm reproduce`.
pub fn run(args: &ReproduceArgs) -> CliResult<Output> {
    for p in &args.papers {
        if !PAPERS.contains(&p.as_str()) {
            return Err(CliError::bad_input(format!(
                "unknown paper {} (expected one of {})",
                crate::error::shown(p),
                PAPERS.join(", ")
            )));
        }
    }
    let scale = match args.scale.as_str() {
        "quick" => Scale::Quick,
        "paper" => Scale::Paper,
        other => {
            return Err(CliError::bad_input(format!(
                "--scale {} (expected quick or paper)",
                crate::error::shown(other)
            )))
        }
    };
    let shard = args
        .shard
        .as_deref()
        .map(str::parse::<Shard>)
        .transpose()
        .map_err(repro_error)?;
    if let Some(n) = args.jobs {
        crate::limits::count("--jobs", n, 1, MAX_THREADS)?;
    }
    let traces = args
        .traces
        .clone()
        .or_else(|| std::env::var_os("SLARM_TRACES").map(PathBuf::from));
    if let Some(t) = &traces {
        if !t.is_dir() {
            return Err(CliError::bad_input(format!(
                "--traces {}: not a folder",
                t.display()
            )));
        }
    }
    if let Some(b) = &args.background {
        if !b.is_file() {
            return Err(CliError::bad_input(format!(
                "--background {}: not a file",
                b.display()
            )));
        }
    }
    let all = registry();
    let wanted: Vec<&str> = if args.papers.is_empty() {
        PAPERS.to_vec()
    } else {
        args.papers.iter().map(String::as_str).collect()
    };
    let selected: Vec<&dyn Experiment> = all
        .iter()
        .copied()
        .filter(|e| wanted.contains(&e.paper()))
        .collect();
    let unavailable: Vec<&str> = wanted
        .iter()
        .copied()
        .filter(|p| !all.iter().any(|e| e.paper() == *p))
        .collect();
    let opts = Options {
        scale,
        seed: args.seed,
        traces,
        background: args.background.clone(),
        out: args.out.clone(),
        shard,
        resume: args.resume,
        jobs: args.jobs,
        progress: std::io::stderr().is_terminal(),
        revision: revision(),
    };
    let summary = slarm_repro::reproduce(&selected, &opts).map_err(repro_error)?;
    require_explained(&summary)?;
    Ok(summary_output(&summary, &unavailable))
}

/// Runs `slarm merge`.
pub fn merge(args: &MergeArgs) -> CliResult<Output> {
    for d in &args.shards {
        if !d.is_dir() {
            return Err(CliError::bad_input(format!(
                "shard folder {} does not exist",
                d.display()
            )));
        }
    }
    let summary = slarm_repro::merge(&registry(), &args.out, &args.shards).map_err(repro_error)?;
    require_explained(&summary)?;
    Ok(summary_output(&summary, &[]))
}
