//! `slarm simulate --trace FILE [--format swf|sacct] [--tz ZONE] [--procs N] --policy P[,P...]
//! [--schedule-out CSV] [--lenient]`: replays a cleaned trace under one or several
//! space-sharing policies and reports wait, bounded slowdown (tau = 10 s), utilisation and
//! makespan; optionally writes the per-job schedule of one policy as CSV (atomically).
//!
//! With one policy the output is one object of its figures; with several, the trace's
//! fields once and `policies`, one row (object) per policy in the order given.
//!
//! `--report DIR` also writes an HTML page with SVG figures of the schedules
//! ([`slarm_repro::sim_report`]); `--progress` (or a terminal on stderr) reports each
//! policy's start and end on stderr.

use std::io::IsTerminal as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

use rayon::prelude::*;
use serde_json::{json, Value};
use slarm::sim::batch::{parallel_parts, simulate_in_parts, QueueOrder, Replay, Schedule};
use slarm::sim::batsim::{assign_processors, write_batsim_jobs, IntervalSet};
use slarm::sim::metrics::{write_schedule_csv, Metrics, DEFAULT_TAU_S};
use slarm::sim::policy::{BuiltinPolicy, PolicyKind, SchedulingPolicy};
use slarm::workload::{JobTable, SwfHeader, Workload};
use slarm_repro::sim_report::{
    busiest_window, write_sim_report, PolicySeries, SimJob, SimReport, WindowChoice, DAY_S,
};

use crate::cmd::trace::{read_with, workload_error, TraceInput};
use crate::error::{shown, CliError, CliResult};
use crate::output::{format_num, text_table, Output};

/// Arguments of `slarm simulate`.
#[derive(Debug, clap::Args)]
pub struct SimulateArgs {
    /// Trace: SWF (plain or gzip-compressed) or, with --format sacct, sacct output.
    #[arg(long, allow_hyphen_values = true)]
    trace: PathBuf,
    #[command(flatten)]
    input: TraceInput,
    /// Machine size in processors (default: the header's MaxProcs, else MaxNodes; for sacct,
    /// the most processors the log shows in use at once).
    #[arg(long, allow_hyphen_values = true)]
    procs: Option<u32>,
    /// Scheduling policies, comma-separated: fcfs, easy, conservative, backfill:K
    /// (K reservations, 0 to 1000000, or all).
    #[arg(long, allow_hyphen_values = true)]
    policy: String,
    /// Write the schedule (one policy only): CSV `job_id,submit,start,end,procs`, or with
    /// --schedule-format batsim Batsim's jobs.csv with a processor assignment.
    #[arg(long, allow_hyphen_values = true)]
    schedule_out: Option<PathBuf>,
    /// Format of --schedule-out: csv (default) or batsim.
    #[arg(long, value_enum, default_value_t = ScheduleFormat::Csv)]
    schedule_format: ScheduleFormat,
    /// Write an HTML report with SVG figures into this folder (created when missing; its
    /// other files are kept).
    #[arg(long, allow_hyphen_values = true)]
    report: Option<PathBuf>,
    /// Window of the report's Gantt chart, START:END in seconds of the schedule (default:
    /// the busiest day).
    #[arg(long, allow_hyphen_values = true, requires = "report")]
    gantt_window: Option<String>,
    /// Report each policy's start and end on stderr (also on when stderr is a terminal).
    #[arg(long)]
    progress: bool,
}

/// Formats of a written schedule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ScheduleFormat {
    /// `job_id,submit,start,end,procs`.
    Csv,
    /// Batsim's jobs.csv, `allocated_resources` an interval set of processors.
    Batsim,
}

/// At most this many policies in one run.
const MAX_POLICIES: usize = 16;

/// Whether the policy plans every waiting job (conservative, backfilling with reservations):
/// its simulation costs more than reading the log, so it runs after the reading, split at
/// idle instants over all threads, rather than while the log is read.
fn plans(p: BuiltinPolicy) -> bool {
    match p {
        BuiltinPolicy::Kind(k) => k == PolicyKind::Conservative,
        BuiltinPolicy::Backfill(depth) => depth.is_none_or(|k| k > 1),
        _ => false,
    }
}

/// The schedule of the cleaned workload under `p`, simulated in parts split at idle instants
/// (the same schedule as one run) when the machine has several threads.
fn simulate_policy(p: BuiltinPolicy, w: &Workload) -> slarm::sim::Result<Schedule> {
    simulate_in_parts(
        &w.jobs,
        w.machine_procs,
        || p.build(),
        &QueueOrder::Fcfs,
        None,
        parallel_parts(w.jobs.len()),
    )
}

/// A policy of the command line.
type DynPolicy = dyn SchedulingPolicy + Send;

/// The first policy, simulated while the log is read (a [`Replay`] fed each block, leaving
/// out the jobs the drop rules drop) as long as the log is in queue order with finite times
/// and its machine size is known (`--procs` or the header). Otherwise, or on any error, it
/// runs after the reading as the other policies do; the schedule is the same either way. A
/// policy that plans every waiting job ([`plans`]) on a machine of several threads
/// is given up before the reading: split at idle instants after it, it runs sooner.
struct WhileReading<'a> {
    /// The policy, until the replay takes it (none either: given up).
    policy: Option<&'a mut DynPolicy>,
    order: &'a QueueOrder,
    /// `--procs`.
    procs: Option<u32>,
    /// The replay and the machine size it runs on.
    replay: Option<(u32, Replay<'a, DynPolicy>)>,
}

impl<'a> WhileReading<'a> {
    fn new(policy: &'a mut DynPolicy, order: &'a QueueOrder, procs: Option<u32>) -> Self {
        Self {
            policy: Some(policy),
            order,
            procs,
            replay: None,
        }
    }

    /// Feeds the jobs read so far, or gives up for good (once given up, neither a policy
    /// nor a replay is left to feed).
    fn feed(&mut self, header: &SwfHeader, jobs: &JobTable) {
        if self.try_feed(header, jobs).is_none() {
            self.give_up();
        }
    }

    fn give_up(&mut self) {
        self.policy = None;
        self.replay = None;
    }

    fn try_feed(&mut self, header: &SwfHeader, jobs: &JobTable) -> Option<()> {
        let size = self
            .procs
            .or_else(|| header.machine_size().and_then(|s| u32::try_from(s).ok()))?;
        // Cleaning keeps the jobs in this order, without those the replay leaves out.
        let s = jobs.summary();
        if !(s.queue_ordered && s.finite_times) {
            return None;
        }
        if self.replay.is_none() {
            let replay = Replay::dropping(size, self.policy.take()?, self.order, None).ok()?;
            self.replay = Some((size, replay));
        }
        let (fed_size, replay) = self.replay.as_mut()?;
        (*fed_size == size).then_some(())?;
        replay.advance(jobs).ok()
    }

    /// Simulates the whole log as read to the end.
    fn run_out(&mut self, jobs: &JobTable) {
        let replay = self.replay.as_mut();
        if replay.is_none_or(|(_, replay)| replay.run_out(jobs).is_err()) {
            self.give_up();
        }
    }

    /// The schedule of the cleaned workload, if the replay ran out on its machine size.
    fn schedule(self, w: &Workload) -> Option<Schedule> {
        let (size, replay) = self.replay?;
        (size == w.machine_procs).then_some(())?;
        replay.schedule(&w.jobs).ok()
    }
}

/// The policies of `--policy`, in the order given, each once.
fn parse_policies(list: &str) -> CliResult<Vec<BuiltinPolicy>> {
    let mut out: Vec<BuiltinPolicy> = Vec::new();
    for item in list.split(',') {
        let p: BuiltinPolicy = item.trim().parse().map_err(|_| {
            CliError::bad_input(format!(
                "--policy {}: unknown policy {} (expected fcfs, easy, conservative or backfill:K with K in [0, {}] or all, comma-separated)",
                shown(list),
                shown(item.trim()),
                BuiltinPolicy::MAX_DEPTH
            ))
        })?;
        if out.contains(&p) {
            return Err(CliError::bad_input(format!(
                "--policy {}: {p} is named twice",
                shown(list)
            )));
        }
        out.push(p);
    }
    if out.len() > MAX_POLICIES {
        return Err(CliError::bad_input(format!(
            "--policy: {} policies, at most {MAX_POLICIES}",
            out.len()
        )));
    }
    Ok(out)
}

/// Writes the schedule CSV to `path` through [`slarm_repro::write_output`]: `-` is stdout,
/// a symbolic link is followed, a FIFO or device is written in place, and a regular file is
/// replaced atomically (temporary file in the same folder, then a rename).
/// `sets`: the schedule's processor assignment, which the Batsim format needs.
fn write_schedule(
    path: &Path,
    format: ScheduleFormat,
    w: &Workload,
    schedule: &Schedule,
    sets: Option<&[IntervalSet]>,
) -> CliResult<()> {
    let result = match format {
        ScheduleFormat::Csv => {
            slarm_repro::write_output(path, |out| write_schedule_csv(&schedule.records, out))
        }
        ScheduleFormat::Batsim => {
            let sets = sets.ok_or_else(|| CliError::internal("no processor assignment"))?;
            slarm_repro::write_output(path, |out| {
                write_batsim_jobs(&schedule.records, &w.jobs, sets, "w0", out)
            })
        }
    };
    result.map_err(|e| CliError::output(format_args!("--schedule-out {}", path.display()), &e))
}

/// The per-policy figures.
fn figures(m: &Metrics) -> [(&'static str, Value); 7] {
    [
        ("mean_wait_s", json!(m.mean_wait_s)),
        ("max_wait_s", json!(m.max_wait_s)),
        ("mean_response_s", json!(m.mean_response_s)),
        ("mean_bounded_slowdown", json!(m.mean_bounded_slowdown)),
        ("tau_s", json!(m.tau_s)),
        ("utilization", json!(m.utilization)),
        ("makespan_s", json!(m.makespan_s)),
    ]
}

/// Runs `slarm simulate`.
pub fn run(args: &SimulateArgs) -> CliResult<Output> {
    let policies = parse_policies(&args.policy)?;
    if policies.len() > 1 && args.schedule_out.is_some() {
        return Err(CliError::bad_input(
            "--schedule-out takes the schedule of one policy: give one --policy",
        ));
    }
    let given_window = args.gantt_window.as_deref().map(parse_window).transpose()?;
    if let Some(dir) = &args.report {
        if dir.exists() && !dir.is_dir() {
            return Err(CliError::bad_input(format!(
                "--report {}: exists and is not a folder",
                dir.display()
            )));
        }
    }
    let progress = args.progress || std::io::stderr().is_terminal();
    let Some((&first, rest)) = policies.split_first() else {
        return Err(CliError::internal("no policy to simulate"));
    };
    let mut first_policy = first.build();
    let fcfs = QueueOrder::Fcfs;
    let mut while_reading = WhileReading::new(first_policy.as_mut(), &fcfs, args.procs);
    if plans(first) && parallel_parts(usize::MAX) > 1 {
        while_reading.give_up();
    }
    let trace = read_with(&args.trace, &args.input, args.procs, &mut |header, jobs| {
        while_reading.feed(header, jobs);
    })?;
    while_reading.run_out(&trace.jobs);
    let w = Workload::from_trace(trace, args.procs).map_err(workload_error)?;
    let streamed = while_reading.schedule(&w);
    let needs_processors = args.report.is_some()
        || (args.schedule_out.is_some() && args.schedule_format == ScheduleFormat::Batsim);
    let run = PolicyRun {
        args,
        w: &w,
        needs_processors,
        progress,
    };
    // The first policy's schedule sets the report's window (its busiest day); the others
    // then run at once, each on a thread of its own while processors are free.
    let started = Instant::now();
    let first_schedule = match streamed {
        Some(schedule) => {
            run.say(first, "simulated while the log was read");
            schedule
        }
        None => run.simulate(first)?,
    };
    let mut window = given_window;
    let mut results = vec![run.finish(first, first_schedule, &mut window, true, started)?];
    results.extend(in_parallel(rest, |&p| {
        let started = Instant::now();
        let schedule = run.simulate(p)?;
        run.finish(p, schedule, &mut { window }, false, started)
    })?);
    let mut rows = Vec::with_capacity(policies.len());
    let mut series = Vec::new();
    for (&p, (m, s)) in policies.iter().zip(results) {
        rows.push((p, m));
        series.extend(s);
    }
    let mut json = json!({
        "trace": w.name,
        "procs": w.machine_procs,
        "jobs": w.jobs.len(),
        "dropped": w.dropped.total(),
        "skipped_lines": w.skipped_lines,
        "synthetic": w.synthetic,
    });
    let Some(obj) = json.as_object_mut() else {
        return Err(CliError::internal("the summary is not a JSON object"));
    };
    if let Some(dir) = &args.report {
        let started = Instant::now();
        let report = SimReport {
            trace: w.name.clone(),
            command: command_line(),
            capacity: w.machine_procs,
            tau_s: DEFAULT_TAU_S,
            summary: table(&rows),
            fields: obj
                .iter()
                .map(|(k, v)| {
                    (
                        k.clone(),
                        crate::output::render_value(v, 0).trim().to_string(),
                    )
                })
                .collect(),
            window: window.unwrap_or((0.0, DAY_S)),
            window_choice: if given_window.is_some() {
                WindowChoice::Given
            } else {
                WindowChoice::BusiestDay
            },
            policies: series,
        };
        write_sim_report(dir, &report).map_err(|e| {
            let m = format!("--report {}: {e}", dir.display());
            if e.is_bad_input() {
                CliError::bad_input(m)
            } else {
                CliError::internal(m)
            }
        })?;
        if progress {
            eprintln!(
                "slarm: report written to {} in {:.2} s",
                dir.display(),
                started.elapsed().as_secs_f64()
            );
        }
    }
    if let [(p, m)] = rows.as_slice() {
        // One policy: the single-policy object (its fields in the documented order).
        let mut one = serde_json::Map::new();
        one.insert("trace".into(), json!(w.name));
        one.insert("policy".into(), json!(p.to_string()));
        one.insert("procs".into(), json!(w.machine_procs));
        one.insert("jobs".into(), json!(m.jobs));
        one.insert("dropped".into(), json!(w.dropped.total()));
        one.insert("skipped_lines".into(), json!(w.skipped_lines));
        for (k, v) in figures(m) {
            one.insert(k.into(), v);
        }
        one.insert("synthetic".into(), json!(w.synthetic));
        return Ok(Output::from_json(Value::Object(one)));
    }
    let list: Vec<Value> = rows
        .iter()
        .map(|(p, m)| {
            let mut row = serde_json::Map::new();
            row.insert("policy".into(), json!(p.to_string()));
            row.insert("jobs".into(), json!(m.jobs));
            for (k, v) in figures(m) {
                row.insert(k.into(), v);
            }
            Value::Object(row)
        })
        .collect();
    obj.insert("policies".into(), Value::Array(list));
    let text = render(&json, &rows);
    Ok(Output::new(json, text))
}

/// The trace's fields, then one table row per policy.
/// What every policy's run of one `simulate` shares.
struct PolicyRun<'a> {
    args: &'a SimulateArgs,
    w: &'a Workload,
    needs_processors: bool,
    progress: bool,
}

impl PolicyRun<'_> {
    /// A progress line about policy `p`.
    fn say(&self, p: BuiltinPolicy, what: &str) {
        if self.progress {
            eprintln!("slarm: simulate {p}: {what} ({} jobs)", self.w.jobs.len());
        }
    }

    /// Simulates the cleaned workload under `p`.
    fn simulate(&self, p: BuiltinPolicy) -> CliResult<Schedule> {
        self.say(p, "started");
        simulate_policy(p, self.w).map_err(|e| CliError::bad_input(format!("{}: {e}", self.w.name)))
    }

    /// The figures of `p`'s schedule, its schedule file and its report series (in the Gantt
    /// `window`, set to the busiest day of this schedule when none is set yet). A window
    /// given on the command line is checked against the `first` policy's schedule;
    /// `started` is when the policy's simulation began (for the progress line).
    fn finish(
        &self,
        p: BuiltinPolicy,
        schedule: Schedule,
        window: &mut Option<(f64, f64)>,
        first: bool,
        started: Instant,
    ) -> CliResult<(Metrics, Option<PolicySeries>)> {
        let (args, w) = (self.args, self.w);
        let m = Metrics::of(&schedule, DEFAULT_TAU_S);
        // One assignment serves both the Batsim file and the page's Gantt chart.
        let sets = self
            .needs_processors
            .then(|| assign_processors(&schedule.records, w.machine_procs))
            .transpose()
            .map_err(|e| CliError::internal(format!("processor assignment: {e}")))?;
        if let Some(path) = &args.schedule_out {
            write_schedule(path, args.schedule_format, w, &schedule, sets.as_deref())?;
        }
        let mut series = None;
        if args.report.is_some() {
            let jobs = sim_jobs(&schedule);
            let win =
                *window.get_or_insert_with(|| busiest_window(&jobs, DAY_S).unwrap_or((0.0, DAY_S)));
            if let Some(text) = args.gantt_window.as_deref().filter(|_| first) {
                check_window_in_trace(text, win, &jobs)?;
            }
            series = Some(PolicySeries::of(
                p.to_string(),
                &jobs,
                sets.as_deref().unwrap_or_default(),
                w.machine_procs,
                win,
            ));
        }
        if self.progress {
            eprintln!(
                "slarm: simulate {p}: done in {:.2} s",
                started.elapsed().as_secs_f64()
            );
        }
        Ok((m, series))
    }
}

/// `f` of each item, on rayon's threads (as many as the machine has processors), in the
/// items' order; the first error in that order. A single item runs on this thread: on a
/// thread of its own it would allocate from a heap arena of its own, beside the memory this
/// thread has freed.
fn in_parallel<T: Sync, R: Send>(
    items: &[T],
    f: impl Fn(&T) -> CliResult<R> + Sync + Send,
) -> CliResult<Vec<R>> {
    if items.len() <= 1 {
        return items.iter().map(f).collect();
    }
    let done: Vec<CliResult<R>> = items.par_iter().map(f).collect();
    done.into_iter().collect()
}

fn render(json: &Value, rows: &[(BuiltinPolicy, Metrics)]) -> String {
    let summary: serde_json::Map<_, _> = json
        .as_object()
        .into_iter()
        .flatten()
        .filter(|(k, _)| k.as_str() != "policies")
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let mut text = crate::output::render_value(&Value::Object(summary), 0);
    let (header, body) = table(rows);
    text.push_str(&text_table(&header, &body, 0));
    text
}

/// The policies' table as printed: header and one row per policy.
fn table(rows: &[(BuiltinPolicy, Metrics)]) -> (Vec<String>, Vec<Vec<String>>) {
    let header: Vec<String> = [
        "policy",
        "mean_wait_s",
        "max_wait_s",
        "mean_bounded_slowdown",
        "utilization",
        "makespan_s",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let body: Vec<Vec<String>> = rows
        .iter()
        .map(|(p, m)| {
            vec![
                p.to_string(),
                format_num(m.mean_wait_s),
                format_num(m.max_wait_s),
                format_num(m.mean_bounded_slowdown),
                format_num(m.utilization),
                format_num(m.makespan_s),
            ]
        })
        .collect();
    (header, body)
}

/// The jobs of a schedule as the report reads them.
fn sim_jobs(schedule: &Schedule) -> Vec<SimJob> {
    schedule
        .records
        .iter()
        .map(|r| SimJob {
            submit: r.submit,
            start: r.start,
            end: r.end,
            procs: r.procs,
            bounded_slowdown: r.bounded_slowdown(DEFAULT_TAU_S),
        })
        .collect()
}

/// Parses `--gantt-window START:END`: seconds, `0 <= START < END`, finite.
fn parse_window(text: &str) -> CliResult<(f64, f64)> {
    let bad = |why: &str| {
        CliError::bad_input(format!(
            "--gantt-window {}: {why} (expected START:END in seconds, 0 <= START < END)",
            shown(text)
        ))
    };
    let (a, b) = text.split_once(':').ok_or_else(|| bad("no ':'"))?;
    let num = |s: &str| s.trim().parse::<f64>().ok().filter(|v| v.is_finite());
    let (Some(a), Some(b)) = (num(a), num(b)) else {
        return Err(bad("not two numbers"));
    };
    if a < 0.0 {
        return Err(bad("START is negative"));
    }
    if b <= a {
        return Err(bad("END is not after START"));
    }
    Ok((a, b))
}

/// Refuses a window that starts after the schedule's last end.
fn check_window_in_trace(text: &str, win: (f64, f64), jobs: &[SimJob]) -> CliResult<()> {
    let last = jobs.iter().map(|j| j.end).fold(0.0, f64::max);
    if win.0 >= last {
        return Err(CliError::bad_input(format!(
            "--gantt-window {}: starts after the schedule ends ({} s)",
            shown(text),
            format_num(last)
        )));
    }
    Ok(())
}

/// This process's command line, each word quoted for a POSIX shell when it needs it.
fn command_line() -> String {
    std::env::args_os()
        .enumerate()
        .map(|(i, a)| {
            let a = a.to_string_lossy().into_owned();
            let a = if i == 0 {
                Path::new(&a)
                    .file_name()
                    .map_or(a.clone(), |n| n.to_string_lossy().into_owned())
            } else {
                a
            };
            let plain = !a.is_empty()
                && a.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-_./:,=+@%".contains(c));
            if plain {
                a
            } else {
                format!("'{}'", a.replace('\'', "'\\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}
