//! `slarm trace stats FILE [--format swf|sacct] [--tz ZONE] [--lenient] [--procs N]`: reads a
//! trace (SWF plain or gzip, or Slurm `sacct -P` output), applies slarm-workload's cleaning
//! rules (jobs with a non-positive runtime or processor count, or more processors than the
//! machine, are dropped) and reports counts. `slarm trace import --from sacct FILE --out
//! TRACE.swf [--tz ZONE] [--procs N] [--lenient]` converts Slurm accounting records into an
//! SWF file (written atomically).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::json;
use slarm::workload::clean::{drop_reason, DropReason};
use slarm::workload::reader::{read_trace_with, ReadOptions, Trace};
use slarm::workload::sacct::{read_sacct, SacctOptions};
use slarm::workload::writer::write_swf;
use slarm::workload::{JobTable, SwfHeader, Workload, WorkloadError};

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
    /// Counts jobs, dropped jobs and skipped lines of a trace (SWF .swf/.swf.gz, or sacct).
    Stats(StatsArgs),
    /// Converts Slurm accounting records (`sacct -a -X -P`) into an SWF trace.
    Import(ImportArgs),
}

/// The formats a trace is read in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum TraceFormat {
    /// The Standard Workload Format, plain or gzip.
    #[default]
    Swf,
    /// `SLURM_TIME_FORMAT=standard sacct -a -X -P --format=...` output, plain or gzip.
    Sacct,
}

/// How a command reads its trace: format, the zone of sacct's times, strictness.
#[derive(Debug, Clone, clap::Args)]
pub struct TraceInput {
    /// Trace format: swf (default) or sacct (Slurm accounting records, see docs/cli.md).
    #[arg(long, value_enum, default_value_t = TraceFormat::Swf)]
    pub format: TraceFormat,
    /// Zone of sacct's local times: UTC (default), an offset such as +01:00, or an IANA
    /// name such as Europe/Berlin.
    #[arg(long, default_value = "UTC", allow_hyphen_values = true)]
    pub tz: String,
    /// Skip malformed trace lines (and count them) instead of failing.
    #[arg(long)]
    pub lenient: bool,
}

/// Arguments of `slarm trace stats`.
#[derive(Debug, clap::Args)]
struct StatsArgs {
    /// Trace file: SWF (plain or gzip-compressed) or, with --format sacct, sacct output.
    file: PathBuf,
    #[command(flatten)]
    input: TraceInput,
    /// Machine size in processors (default: the header's MaxProcs, else MaxNodes; for sacct,
    /// the most processors the log shows in use at once).
    #[arg(long, allow_hyphen_values = true)]
    procs: Option<u32>,
}

/// Arguments of `slarm trace import`.
#[derive(Debug, clap::Args)]
struct ImportArgs {
    /// Format of the input (sacct).
    #[arg(long, value_enum)]
    from: ImportFormat,
    /// The sacct file, plain or gzip-compressed.
    file: PathBuf,
    /// The SWF file to write (replaced atomically).
    #[arg(long, allow_hyphen_values = true)]
    out: PathBuf,
    /// Zone of sacct's local times: UTC (default), an offset such as +01:00, or an IANA
    /// name such as Europe/Berlin.
    #[arg(long, default_value = "UTC", allow_hyphen_values = true)]
    tz: String,
    /// Machine size written as MaxProcs (default: the most processors in use at once).
    #[arg(long, allow_hyphen_values = true)]
    procs: Option<u32>,
    /// Skip malformed lines (and count them) instead of failing.
    #[arg(long)]
    lenient: bool,
}

/// Formats `trace import` reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum ImportFormat {
    /// Slurm accounting records.
    Sacct,
}

/// Maps a workload error to the CLI's exit codes: every workload error is bad input (2).
pub fn workload_error(e: WorkloadError) -> CliError {
    CliError::bad_input(e)
}

fn check_procs(procs: Option<u32>) -> CliResult<()> {
    if procs == Some(0) {
        return Err(CliError::bad_input("--procs must be at least 1"));
    }
    Ok(())
}

/// A sacct file read with the command's options.
fn read_sacct_input(
    file: &Path,
    tz: &str,
    lenient: bool,
    procs: Option<u32>,
) -> CliResult<slarm::workload::sacct::SacctTrace> {
    let options = SacctOptions {
        read: ReadOptions { lenient },
        time_zone: tz.to_string(),
        procs,
    };
    read_sacct(file, &options).map_err(|e| match e {
        WorkloadError::InvalidParameter {
            name: "time zone",
            value,
            reason,
        } => CliError::bad_input(format!("--tz {}: {reason}", crate::error::shown(&value))),
        other => workload_error(other),
    })
}

/// Reads a trace in the given format (not yet cleaned).
pub fn read(file: &Path, input: &TraceInput, procs: Option<u32>) -> CliResult<Trace> {
    read_with(file, input, procs, &mut |_, _| {})
}

/// [`read`], showing `on_block` the header and the jobs read so far after each block of an
/// SWF file (sacct output is read whole first).
pub fn read_with(
    file: &Path,
    input: &TraceInput,
    procs: Option<u32>,
    on_block: &mut dyn FnMut(&SwfHeader, &JobTable),
) -> CliResult<Trace> {
    check_procs(procs)?;
    match input.format {
        TraceFormat::Swf => read_trace_with(
            file,
            ReadOptions {
                lenient: input.lenient,
            },
            on_block,
        )
        .map_err(workload_error),
        TraceFormat::Sacct => Ok(read_sacct_input(file, &input.tz, input.lenient, procs)?.trace),
    }
}

/// Reads and cleans a trace for the CLI commands.
pub fn load(file: &Path, input: &TraceInput, procs: Option<u32>) -> CliResult<Workload> {
    let trace = read(file, input, procs)?;
    Workload::from_trace(trace, procs).map_err(workload_error)
}

/// Runs `slarm trace`.
pub fn run(args: &TraceArgs) -> CliResult<Output> {
    match &args.command {
        TraceCommand::Stats(a) => stats(a),
        TraceCommand::Import(a) => import(a),
    }
}

fn stats(a: &StatsArgs) -> CliResult<Output> {
    let w = load(&a.file, &a.input, a.procs)?;
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

/// The key under which a job the simulators drop is counted by `trace import`.
fn drop_key(r: DropReason) -> &'static str {
    match r {
        DropReason::RuntimeNonPositive => "runtime_nonpositive",
        DropReason::ProcsNonPositive => "procs_nonpositive",
        DropReason::ProcsExceedMachine => "procs_exceed_machine",
    }
}

fn import(a: &ImportArgs) -> CliResult<Output> {
    check_procs(a.procs)?;
    if a.out.as_os_str() == "-" {
        return Err(CliError::bad_input(
            "--out -: give a file (standard output carries the summary)",
        ));
    }
    let s = read_sacct_input(&a.file, &a.tz, a.lenient, a.procs)?;
    let machine = s
        .trace
        .header
        .machine_size()
        .and_then(|p| u32::try_from(p).ok())
        .unwrap_or(u32::MAX);
    // Jobs that never ran to an end count under their state; the rest that the simulators
    // drop, under the drop rule.
    let mut dropped: BTreeMap<String, u64> = s
        .not_run
        .iter()
        .map(|(k, v)| (format!("not_run_{k}"), *v))
        .collect();
    let not_run_total: u64 = s.not_run.values().sum();
    let mut rule_drops = 0u64;
    for j in &s.trace.jobs {
        if j.runtime < 0.0 {
            continue; // counted under its state
        }
        if let Some(r) = drop_reason(&j, machine) {
            *dropped.entry(drop_key(r).to_string()).or_default() += 1;
            rule_drops += 1;
        }
    }
    let out = &a.out;
    slarm_repro::write_output(out, |w| write_swf(&s.trace.header, &s.trace.jobs, w))
        .map_err(|e| CliError::output(format_args!("--out {}", out.display()), &e))?;
    let lines = s.trace.jobs.len() as u64;
    let json = json!({
        "file": s.trace.name,
        "out": out.display().to_string(),
        "lines": lines,
        "jobs": lines - not_run_total - rule_drops,
        "dropped": dropped,
        "skipped_lines": s.trace.skipped_lines,
        "max_procs": s.trace.header.machine_size(),
        "peak_procs": s.peak_procs,
        "unix_start_time": s.trace.header.unix_start_time,
        "time_zone": a.tz,
    });
    Ok(Output::from_json(json))
}
