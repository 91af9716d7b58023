//! `slarm check-schedule --trace T --schedule S --contract capacity|fcfs|easy|conservative
//! [--procs N] [--lenient]`: checks a schedule CSV `job_id,submit,start,end,procs` (what
//! `simulate --schedule-out` writes) against the cleaned trace under a scheduling contract
//! (slarm-testing) and lists every violation. Exit code 3 when there is any, 0 when none,
//! 2 on bad input.

use std::fs::File;
use std::io::BufReader;
use std::path::PathBuf;

use serde_json::json;
use slarm_testing::batsim::{check_assignment, read_batsim_jobs_csv};
use slarm_testing::{check, read_schedule_csv, Contract, ScheduledJob, TestingError, Violation};

use crate::cmd::simulate::ScheduleFormat;
use crate::cmd::trace::{load, TraceInput};
use crate::error::{CliError, CliResult};
use crate::output::{render_value, Output};

/// Exit code of a well-formed schedule that breaks its contract.
pub const EXIT_VIOLATIONS: i32 = 3;

/// Arguments of `slarm check-schedule`.
#[derive(Debug, clap::Args)]
pub struct CheckScheduleArgs {
    /// Trace the schedule was made from: SWF (plain or gzip-compressed) or sacct output.
    #[arg(long)]
    trace: PathBuf,
    /// Schedule CSV `job_id,submit,start,end,procs` (as `simulate --schedule-out` writes).
    #[arg(long)]
    schedule: PathBuf,
    /// Format of the schedule: csv (default) or batsim (Batsim's jobs.csv; its processor
    /// assignment is checked too).
    #[arg(long, value_enum, default_value_t = ScheduleFormat::Csv)]
    schedule_format: ScheduleFormat,
    /// Contract to check: capacity (basic checks only), fcfs, easy or conservative.
    #[arg(long)]
    contract: Contract,
    /// Machine size in processors (default: the header's MaxProcs, else MaxNodes).
    #[arg(long, allow_hyphen_values = true)]
    procs: Option<u32>,
    #[command(flatten)]
    input: TraceInput,
}

/// Runs `slarm check-schedule`.
pub fn run(args: &CheckScheduleArgs) -> CliResult<Output> {
    let w = load(&args.trace, &args.input, args.procs)?;
    let name = args.schedule.display();
    let file = File::open(&args.schedule)
        .map_err(|e| CliError::bad_input(format!("--schedule {name}: {e}")))?;
    let csv_error = |e: TestingError| match e {
        TestingError::Csv { line, reason } => {
            CliError::bad_input(format!("{name} line {line}: {reason}"))
        }
        other => CliError::bad_input(format!("{name}: {other}")),
    };
    let (rows, assigned): (Vec<ScheduledJob>, _) = match args.schedule_format {
        ScheduleFormat::Csv => (
            read_schedule_csv(BufReader::new(file)).map_err(csv_error)?,
            None,
        ),
        ScheduleFormat::Batsim => {
            let a = read_batsim_jobs_csv(BufReader::new(file)).map_err(csv_error)?;
            (a.iter().map(|r| r.job).collect(), Some(a))
        }
    };
    let mut violations = check(&w.jobs.to_vec(), w.machine_procs, &rows, args.contract)
        .map_err(|e| CliError::bad_input(format!("{}: {e}", w.name)))?;
    if let Some(a) = &assigned {
        violations.extend(check_assignment(a, w.machine_procs));
    }
    let contract = json!(args.contract);
    let json = json!({
        "trace": w.name,
        "schedule": name.to_string(),
        "contract": contract,
        "procs": w.machine_procs,
        "jobs": w.jobs.len(),
        "rows": rows.len(),
        "violations": violations.len(),
        "list": violations,
    });
    let text = render(&json, &violations);
    let mut out = Output::new(json, text);
    if !violations.is_empty() {
        out.exit_code = EXIT_VIOLATIONS;
        out.failure = Some(format!(
            "{} violation(s) of the {} contract",
            violations.len(),
            contract.as_str().unwrap_or_default()
        ));
    }
    Ok(out)
}

/// The summary, then one line per violation: its kind and what happened.
fn render(json: &serde_json::Value, violations: &[Violation]) -> String {
    let summary: serde_json::Map<_, _> = json
        .as_object()
        .into_iter()
        .flatten()
        .filter(|(k, _)| k.as_str() != "list")
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let mut text = render_value(&serde_json::Value::Object(summary), 0);
    let width = violations.iter().map(|v| v.kind().len()).max().unwrap_or(0);
    for v in violations {
        text.push_str(&format!("  {:<width$}  {v}\n", v.kind()));
    }
    text
}
