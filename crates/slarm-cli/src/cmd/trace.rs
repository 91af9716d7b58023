//! `slarm trace stats FILE [--lenient] [--procs N]`: reads an SWF trace
//! (plain or gzip), applies slarm-workload's cleaning rules (jobs with a non-positive runtime or
//! processor count, or more processors than the machine, are dropped) and reports counts.

use std::path::PathBuf;

use serde_json::json;
use slarm::workload::reader::{read_trace, ReadOptions};
use slarm::workload::{Workload, WorkloadError};

use crate::error::{CliError, CliResult};
use crate::output::Output;

/// Arguments of `slarm trace`.
#[derive(Debug, clap::Args)]
pub struct TraceArgs {
    /// What to do with the trace.
    #[command(subcommand)]
    command: TraceCommand,
}

#[derive(Debug, clap::Subcommand)]
enum TraceCommand {
    /// Counts jobs, dropped jobs and skipped lines of an SWF trace (.swf or .swf.gz).
    Stats(StatsArgs),
}

/// Arguments of `slarm trace stats`.
#[derive(Debug, clap::Args)]
struct StatsArgs {
    /// SWF file, plain or gzip-compressed.
    file: PathBuf,
    /// Skip malformed lines (and count them) instead of failing.
    #[arg(long)]
    lenient: bool,
    /// Machine size in processors (default: the header's MaxProcs, else MaxNodes).
    #[arg(long, allow_hyphen_values = true)]
    procs: Option<u32>,
}

/// Maps a workload error to the CLI's exit codes: every workload error is bad input (2).
pub fn workload_error(e: WorkloadError) -> CliError {
    CliError::bad_input(e)
}

/// Reads and cleans a trace for the CLI commands.
pub fn load(file: &std::path::Path, lenient: bool, procs: Option<u32>) -> CliResult<Workload> {
    if procs == Some(0) {
        return Err(CliError::bad_input("--procs must be at least 1"));
    }
    let trace = read_trace(file, ReadOptions { lenient }).map_err(workload_error)?;
    Workload::from_trace(trace, procs).map_err(workload_error)
}

/// Runs `slarm trace`.
pub fn run(args: &TraceArgs) -> CliResult<Output> {
    match &args.command {
        TraceCommand::Stats(a) => stats(a),
    }
}

fn stats(a: &StatsArgs) -> CliResult<Output> {
    let w = load(&a.file, a.lenient, a.procs)?;
    let with_estimate = w.jobs.iter().filter(|j| j.req_time > 0.0).count();
    let json = json!({
        "file": w.name,
        "jobs": w.jobs.len(),
        "dropped": w.dropped.total(),
        "dropped_by_reason": {
            "runtime_nonpositive": w.dropped.runtime_nonpositive,
            "procs_nonpositive": w.dropped.procs_nonpositive,
            "procs_exceed_machine": w.dropped.procs_exceed_machine,
        },
        "skipped_lines": w.skipped_lines,
        "max_procs": w.machine_procs,
        "span_s": w.span_s(),
        "share_with_estimate": if w.jobs.is_empty() { 0.0 } else { with_estimate as f64 / w.jobs.len() as f64 },
        "offered_load": w.offered_load(),
        "offered_load_by_estimate": w.offered_load_by_estimate(),
        "unix_start_time": w.header.unix_start_time,
        "time_zone": w.header.time_zone,
        "synthetic": w.synthetic,
    });
    Ok(Output::from_json(json))
}
