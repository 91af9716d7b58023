//! Developer automation for slarm (`cargo xtask <task>`).
//!
//! - `ci`: the same steps as `.ci/run` (fmt, clippy `-D warnings`, tests, names, circles,
//!   docs, bench build).
//! - `report-check [DIR]`: renders the reproduction report in headless Chromium and checks it.
//! - `simulate-report-check DIR`: the page of `slarm simulate --report DIR` in headless
//!   Chromium: summary table, every figure loaded and drawn with one series per policy.
//! - `repro-doc DIR`: regenerates the summary in docs/reproduction.md from a run's summary.md.
//! - `repro-identity [--shards N] [--whole DIR] [PAPER...]`: sharded + merged equals one run,
//!   byte for byte, on the real experiments (quick scale, release build).
//! - `repro-timings DIR`: a run's timings (per paper and cell) as Markdown for the docs.
//! - `slurm-smoke [PAPER...]`: a one-node Slurm cluster runs docs/scale-out.md's job array.
//! - `deps`: the model crates' dependency budget (at most 35 packages and no serde/rayon
//!   without default features, no application crate ever), as a Markdown table.
//! - `names`: no public type name defined in two model crates (deprecated aliases and `Result`
//!   aliases exempt); every clash is listed.
//! - `circles`: no circle between two or more files of any crate, from the module paths each
//!   file names; every circle is listed with its files.
//! - `downstream`: a project outside the workspace uses the model crates without default
//!   features (a sizing query and an EASY simulation).
//! - `hostile`: every subcommand x every numeric option x hostile values (and hostile input
//!   files) against the release binary, each with a time limit: exit code 0 or 2 only.
//! - `anchors [--reps N] [--before OLD_SLARM] [--paper]`: the performance anchors (the Python
//!   reference EASY, scipy's `fftconvolve`, numpy-vectorised sizing, our EASY for
//!   conservative backfilling on HPC2N prefixes) and the goals of the Sung tables and the
//!   paper-scale run, our commands in one run, with the ratios.
//! - `big-trace [--copies N] [--trace FILE] --out FILE`: N time-shifted copies of a PWA log
//!   (default HPC2N, ten copies: 2,028,710 jobs) as one SWF log, for the scale benchmarks.
//! - `scale-bench --trace FILE [--reps N] [--bin SLARM]`: EASY, conservative and both in one
//!   command on a large log, in turn: wall, CPU, peak RSS, bytes a job, paired ratios.
//! - `oracle`: cross-checks against independent tools (scipy, pyworkforce, Ciw, a reference EASY).

mod anchors;
mod api_checks;
mod big_trace;
mod deps;
mod downstream;
mod hostile;
mod oracle;
mod report_check;
mod repro_diff;
mod repro_doc;
mod repro_identity;
mod repro_timings;
mod scale_bench;
mod simulate_check;
mod slurm;
mod webdriver;

use std::process::{Command, ExitCode};

/// One CI step: name, cargo arguments, extra environment.
type CiStep = (
    &'static str,
    &'static [&'static str],
    &'static [(&'static str, &'static str)],
);

/// The CI steps, shared by `cargo xtask ci` and documented in `.ci/run`.
const CI_STEPS: &[CiStep] = &[
    ("format", &["fmt", "--all", "--check"], &[]),
    (
        "lint",
        &[
            "clippy",
            "--workspace",
            "--all-targets",
            "--",
            "-D",
            "warnings",
        ],
        &[],
    ),
    ("test", &["test", "--workspace"], &[]),
    (
        "names",
        &["run", "--quiet", "--package", "xtask", "--", "names"],
        &[],
    ),
    (
        "circles",
        &["run", "--quiet", "--package", "xtask", "--", "circles"],
        &[],
    ),
    (
        "oracle",
        &["run", "--quiet", "--package", "xtask", "--", "oracle"],
        &[],
    ),
    (
        "docs",
        &["doc", "--workspace", "--no-deps"],
        &[("RUSTDOCFLAGS", "-D warnings")],
    ),
    ("benches build", &["bench", "--workspace", "--no-run"], &[]),
];

fn ci() -> ExitCode {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    for (name, args, envs) in CI_STEPS {
        eprintln!("== xtask ci: {name}: cargo {}", args.join(" "));
        let status = Command::new(&cargo)
            .args(*args)
            .envs(envs.iter().copied())
            .status();
        match status {
            Ok(s) if s.success() => {}
            Ok(s) => {
                eprintln!("xtask ci: step '{name}' failed ({s})");
                return ExitCode::FAILURE;
            }
            Err(e) => {
                eprintln!("xtask ci: cannot run cargo: {e}");
                return ExitCode::FAILURE;
            }
        }
    }
    ExitCode::SUCCESS
}

/// The workspace root (the folder above `xtask/`).
pub fn workspace_root() -> std::path::PathBuf {
    let here = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    here.parent()
        .map(std::path::Path::to_path_buf)
        .unwrap_or(here)
}

/// Runs a command to completion; an error names the command when it fails.
pub fn run_cmd(cmd: &mut Command) -> Result<(), String> {
    let shown = format!("{cmd:?}");
    match cmd.status() {
        Ok(s) if s.success() => Ok(()),
        Ok(s) => Err(format!("{shown} failed ({s})")),
        Err(e) => Err(format!("{shown}: {e}")),
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("ci") => ci(),
        Some("oracle") => oracle::run(&args[1..]),
        Some("downstream") => downstream::run(&args[1..]),
        Some("deps") => deps::run(&args[1..]),
        Some("names") => api_checks::run_names(&args[1..]),
        Some("circles") => api_checks::run_circles(&args[1..]),
        Some("hostile") => hostile::run(&args[1..]),
        Some("anchors") => anchors::run(&args[1..]),
        Some("big-trace") => big_trace::run(&args[1..]),
        Some("scale-bench") => scale_bench::run(&args[1..]),
        Some("report-check") => report_check::run(&args[1..]),
        Some("simulate-report-check") => simulate_check::run(&args[1..]),
        Some("slurm-smoke") => slurm::run(&args[1..]),
        Some("repro-doc") => repro_doc::run(&args[1..]),
        Some("repro-diff") => repro_diff::run(&args[1..]),
        Some("repro-identity") => repro_identity::run(&args[1..]),
        Some("repro-timings") => repro_timings::run(&args[1..]),
        _ => {
            eprintln!("usage: cargo xtask <task>\n\ntasks:\n  ci       fmt, clippy -D warnings, tests, docs, bench build (as .ci/run)\n  oracle   cross-check against scipy, pyworkforce, Ciw and a reference EASY\n  deps     the model crates' dependency budget, as a table; fails when exceeded\n  names    no public type name defined in two model crates (deprecated aliases and Result exempt)\n  circles  no circle between two or more files of any crate (module graph from crate::/super::/self:: paths)\n  hostile [--bin PATH] [--timeout S] [--threads N]  every subcommand x numeric option x hostile value, and hostile files, against the release binary: exit 0 or 2 only\n  anchors [--reps N] [--before OLD_SLARM] [--paper]  our commands against the Python anchors and goals of docs/performance.md (EASY, FFT, sizing, conservative on HPC2N prefixes, Sung p_max = 30; --paper: the paper-scale run), one run, ratios\n  big-trace [--copies N] [--trace FILE] --out FILE  N time-shifted copies of a log (default $SLARM_TRACES/HPC2N, 10) as one SWF log\n  scale-bench --trace FILE [--reps N] [--bin SLARM]  EASY / conservative / both on a large log: wall, CPU, peak RSS a job, paired ratios, goals\n  downstream  a project outside the workspace builds on the model crates without default features\n  report-check [DIR]  render DIR/index.html in headless Chromium, check tables and figures\n  simulate-report-check DIR  the same for the page of `slarm simulate --report DIR`: every figure drawn with its series\n  repro-doc DIR  regenerate the summary of docs/reproduction.md from DIR/summary.md\n  repro-diff BEFORE AFTER  verdict counts per paper of two runs and every check whose verdict moved, as Markdown\n  repro-identity [--shards N] [--whole DIR] [PAPER...]  merged shards == one run, byte for byte\n  repro-timings DIR  a run's timings per paper and cell, as Markdown\n  slurm-smoke [PAPER...]  sharded reproduction as a Slurm job array on a one-node localhost cluster");
            ExitCode::from(2)
        }
    }
}
