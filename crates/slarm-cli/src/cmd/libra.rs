//! `slarm libra --trace FILE --policy libra|libra-plus|fcfs-bf|sjf-bf|edf-bf [options]`
//! (Yeo & Buyya): runs the Yeo & Buyya evaluation on the last `--jobs` jobs of an
//! SWF trace with the Table I defaults, overridable by `--alpha`, `--beta`, `--delay-factor`,
//! `--high-urgency`, `--underestimate` and `--seed` (and `--lapse` for the baselines), and reports Job QoS Satisfaction,
//! Cluster Profitability, accepted jobs and rejections by reason.

use std::path::PathBuf;

use serde_json::json;
use slarm::pricing::backfill::LapseRule;
use slarm::pricing::scenario::{run as run_scenario, BaseWorkload, ClusterPolicy, Settings};
use slarm::stats::RngStreams;

use crate::error::{num, CliError, CliResult};
use crate::limits;
use crate::output::Output;

fn parse_policy(s: &str) -> Result<ClusterPolicy, String> {
    s.parse::<ClusterPolicy>().map_err(|e| e.to_string())
}

fn parse_lapse(s: &str) -> Result<LapseRule, String> {
    s.parse::<LapseRule>().map_err(|e| e.to_string())
}

/// Arguments of `slarm libra`.
#[derive(Debug, clap::Args)]
pub struct LibraArgs {
    /// SWF trace, plain or gzip-compressed (e.g. SDSC-SP2-1998-4.2-cln.swf.gz).
    #[arg(long, allow_hyphen_values = true)]
    trace: PathBuf,
    /// Policy: libra, libra-plus, fcfs-bf, sjf-bf or edf-bf.
    #[arg(long, value_parser = parse_policy, allow_hyphen_values = true)]
    policy: ClusterPolicy,
    /// Libra+$ static pricing factor alpha (Table I: 1.0).
    #[arg(long, allow_hyphen_values = true, default_value_t = 1.0)]
    alpha: f64,
    /// Libra+$ dynamic pricing factor beta (Table I: 0.1).
    #[arg(long, allow_hyphen_values = true, default_value_t = 0.1)]
    beta: f64,
    /// Libra gamma (1).
    #[arg(long, allow_hyphen_values = true, default_value_t = 1.0)]
    gamma: f64,
    /// Libra delta (1).
    #[arg(long, allow_hyphen_values = true, default_value_t = 1.0)]
    delta: f64,
    /// Arrival delay factor: simulated gap = factor x trace gap (Table I: 0.5).
    #[arg(long, allow_hyphen_values = true, default_value_t = 0.5)]
    delay_factor: f64,
    /// Percentage of high-urgency jobs (Table I: 20).
    #[arg(long, allow_hyphen_values = true, default_value_t = 20.0)]
    high_urgency: f64,
    /// Runtime under-estimation in percent: RE = R x (1 - PCT/100); 20 and -20 both mean
    /// "20 % under" (Table I: 0).
    #[arg(long, default_value_t = 0.0, allow_hyphen_values = true)]
    underestimate: f64,
    /// Root seed of the QoS synthesis.
    #[arg(long, default_value_t = 1, allow_hyphen_values = true)]
    seed: u64,
    /// Jobs taken from the end of the trace (5000).
    #[arg(long, default_value_t = 5000, allow_hyphen_values = true)]
    jobs: usize,
    /// Compute nodes (128).
    #[arg(long, default_value_t = 128, allow_hyphen_values = true)]
    nodes: usize,
    /// When the backfilling baselines drop a waiting job: deadline-passed (the paper's
    /// now > DT) or cannot-finish (the strict now + RE > DT).
    #[arg(long, value_parser = parse_lapse, default_value = "deadline-passed", allow_hyphen_values = true)]
    lapse: LapseRule,
}

/// Most compute nodes (the paper's cluster has 128; every admission test visits each node).
const MAX_NODES: u64 = 65_536;
/// Most jobs taken from the trace.
const MAX_JOBS: u64 = 1_000_000;
/// Most node visits of the admission tests, `--jobs` x `--nodes` (the defaults need 640,000).
const MAX_NODE_VISITS: f64 = 1e9;
/// Latest submit time and longest run time of a job, seconds (about 31.7 years; the PWA logs
/// span at most a few years): a bound on the simulated span. Beyond it `f64` times are
/// coarser (7.6e-6 s apart at 5e10 s), which the simulator survives but which no trace needs.
const MAX_TRACE_SECONDS: f64 = 1e9;

/// The ranges of `slarm libra`'s counts and the work they ask for (docs/cli.md).
fn check_ranges(args: &LibraArgs) -> CliResult<()> {
    limits::count("--nodes", args.nodes, 1, MAX_NODES)?;
    limits::count("--jobs", args.jobs, 2, MAX_JOBS)?;
    limits::work(
        "admission-test node visits",
        args.jobs as f64 * args.nodes as f64,
        MAX_NODE_VISITS,
        &format!("--jobs {} x --nodes {}", args.jobs, args.nodes),
    )?;
    limits::within("--underestimate", args.underestimate, -100.0, 100.0)?;
    Ok(())
}

/// Refuses a trace whose times the simulation cannot step through: a submit time or run time
/// above [`MAX_TRACE_SECONDS`] (naming the job), or a simulated span (`--delay-factor` x the
/// span of the submit times) above it.
fn check_times(
    trace: &std::path::Path,
    jobs: &[slarm::pricing::workload::TraceJob],
    delay_factor: f64,
) -> CliResult<()> {
    if let Some(j) = jobs
        .iter()
        .find(|j| !(j.submit.abs() <= MAX_TRACE_SECONDS && j.runtime <= MAX_TRACE_SECONDS))
    {
        return Err(CliError::bad_input(format!(
            "{}: job {}: submit time {} s, run time {} s: libra simulates times up to {} s",
            trace.display(),
            j.id,
            num(j.submit),
            num(j.runtime),
            num(MAX_TRACE_SECONDS)
        )));
    }
    let first = jobs.iter().map(|j| j.submit).fold(f64::INFINITY, f64::min);
    let last = jobs
        .iter()
        .map(|j| j.submit)
        .fold(f64::NEG_INFINITY, f64::max);
    if last > first && delay_factor > 0.0 {
        limits::work(
            "simulated seconds",
            delay_factor * (last - first),
            MAX_TRACE_SECONDS,
            &format!(
                "--delay-factor {} x the {} s between the first and the last submit of the jobs taken",
                num(delay_factor),
                num(last - first)
            ),
        )?;
    }
    Ok(())
}

/// Runs `slarm libra`.
pub fn run(args: &LibraArgs) -> CliResult<Output> {
    check_ranges(args)?;
    let bad = |e: slarm::pricing::PricingError| CliError::bad_input(e.to_string());
    let mut s = Settings::table_i();
    s.alpha = args.alpha;
    s.beta = args.beta;
    s.gamma = args.gamma;
    s.delta = args.delta;
    s.qos = s
        .qos
        .with_delay_factor(args.delay_factor)
        .and_then(|q| q.with_high_urgency_pct(args.high_urgency))
        .and_then(|q| q.with_inaccuracy_pct(-args.underestimate.abs()))
        .map_err(bad)?;
    s.jobs = args.jobs;
    s.nodes = args.nodes;
    s.lapse = args.lapse;
    let base = BaseWorkload::from_swf(&args.trace, s.jobs, s.nodes)
        .map_err(|e| CliError::bad_input(format!("{}: {e}", args.trace.display())))?;
    check_times(&args.trace, &base.jobs, args.delay_factor)?;
    let m = run_scenario(&base.jobs, args.policy, &s, &RngStreams::new(args.seed)).map_err(bad)?;
    let json = json!({
        "trace": args.trace.display().to_string(),
        "workload": base.label,
        "policy": args.policy.name(),
        "jobs": m.submitted,
        "qos_satisfaction": m.qos_satisfaction,
        "profitability": m.profitability,
        "accepted": m.accepted,
        "rejected": m.rejected,
        "acceptance_ratio": m.acceptance_ratio,
        "qos_met": m.qos_met,
        "deadline_misses": m.deadline_misses,
        "killed": m.killed,
        "utilisation": m.utilisation,
        "mean_price": m.mean_price,
        "settings": {
            "alpha": s.alpha, "beta": s.beta, "gamma": s.gamma, "delta": s.delta,
            "delay_factor": s.qos.delay_factor(), "high_urgency_pct": s.qos.high_urgency_pct(),
            "inaccuracy_pct": s.qos.inaccuracy_pct(), "nodes": s.nodes, "seed": args.seed,
            "lapse": s.lapse,
        },
        "subset": base.stats,
    });
    Ok(Output::from_json(json))
}
