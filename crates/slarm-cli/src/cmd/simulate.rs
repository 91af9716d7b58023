//! `slarm simulate --trace FILE [--procs N] --policy fcfs|easy|conservative
//! [--schedule-out CSV] [--lenient]`: replays a cleaned SWF trace under a
//! space-sharing policy and reports wait, bounded slowdown (tau = 10 s), utilisation and
//! makespan; optionally writes the per-job schedule as CSV (atomically).

use std::path::{Path, PathBuf};

use serde_json::json;
use slarm::sim::batch::{simulate_workload, BatchConfig};
use slarm::sim::metrics::{write_schedule_csv, Metrics, DEFAULT_TAU_S};
use slarm::sim::policy::PolicyKind;

use crate::cmd::trace::load;
use crate::error::{CliError, CliResult};
use crate::output::Output;

/// Arguments of `slarm simulate`.
#[derive(Debug, clap::Args)]
pub struct SimulateArgs {
    /// SWF trace, plain or gzip-compressed.
    #[arg(long, allow_hyphen_values = true)]
    trace: PathBuf,
    /// Machine size in processors (default: the header's MaxProcs, else MaxNodes).
    #[arg(long, allow_hyphen_values = true)]
    procs: Option<u32>,
    /// Scheduling policy: fcfs, easy or conservative.
    #[arg(long, allow_hyphen_values = true)]
    policy: PolicyKind,
    /// Write the schedule as CSV `job_id,submit,start,end,procs`.
    #[arg(long, allow_hyphen_values = true)]
    schedule_out: Option<PathBuf>,
    /// Skip malformed trace lines (and count them) instead of failing.
    #[arg(long)]
    lenient: bool,
}

/// Writes the schedule CSV to `path` through [`slarm_repro::write_output`]: `-` is stdout,
/// a symbolic link is followed, a FIFO or device is written in place, and a regular file is
/// replaced atomically (temporary file in the same folder, then a rename).
fn write_schedule(path: &Path, records: &[slarm::sim::batch::JobRecord]) -> CliResult<()> {
    slarm_repro::write_output(path, |w| write_schedule_csv(records, w))
        .map_err(|e| CliError::bad_input(format!("--schedule-out {}: {e}", path.display())))
}

/// Runs `slarm simulate`.
pub fn run(args: &SimulateArgs) -> CliResult<Output> {
    let w = load(&args.trace, args.lenient, args.procs)?;
    let schedule = simulate_workload(&w, &BatchConfig::new(args.policy))
        .map_err(|e| CliError::bad_input(format!("{}: {e}", w.name)))?;
    let m = Metrics::of(&schedule, DEFAULT_TAU_S);
    if let Some(path) = &args.schedule_out {
        write_schedule(path, &schedule.records)?;
    }
    let json = json!({
        "trace": w.name,
        "policy": args.policy,
        "procs": w.machine_procs,
        "jobs": m.jobs,
        "dropped": w.dropped.total(),
        "skipped_lines": w.skipped_lines,
        "mean_wait_s": m.mean_wait_s,
        "max_wait_s": m.max_wait_s,
        "mean_response_s": m.mean_response_s,
        "mean_bounded_slowdown": m.mean_bounded_slowdown,
        "tau_s": m.tau_s,
        "utilization": m.utilization,
        "makespan_s": m.makespan_s,
        "synthetic": w.synthetic,
    });
    Ok(Output::from_json(json))
}
