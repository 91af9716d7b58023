//! `slarm libra --trace FILE --policy libra|libra-plus|fcfs-bf|sjf-bf|edf-bf [options]`
//! (Yeo & Buyya): runs the Yeo & Buyya evaluation on the last `--jobs` jobs of an
//! SWF trace with the Table I defaults, overridable by `--alpha`, `--beta`, `--delay-factor`,
//! `--high-urgency`, `--underestimate` and `--seed` (and `--lapse` for the baselines), and reports Job QoS Satisfaction,
//! Cluster Profitability, accepted jobs and rejections by reason.

use std::path::PathBuf;

use serde_json::json;
use slarm::pricing::backfill::LapseRule;
use slarm::pricing::scenario::{run as run_scenario, BaseWorkload, Policy, Settings};
use slarm::stats::RngStreams;

use crate::error::{CliError, CliResult};
use crate::output::Output;

fn parse_policy(s: &str) -> Result<Policy, String> {
    s.parse::<Policy>().map_err(|e| e.to_string())
}

fn parse_lapse(s: &str) -> Result<LapseRule, String> {
    match s {
        "deadline-passed" => Ok(LapseRule::DeadlinePassed),
        "cannot-finish" => Ok(LapseRule::CannotFinish),
        _ => Err(format!(
            "unknown lapse rule {s:?} (expected deadline-passed or cannot-finish)"
        )),
    }
}

/// Arguments of `slarm libra`.
#[derive(Debug, clap::Args)]
pub struct LibraArgs {
    /// SWF trace, plain or gzip-compressed (e.g. SDSC-SP2-1998-4.2-cln.swf.gz).
    #[arg(long)]
    trace: PathBuf,
    /// Policy: libra, libra-plus, fcfs-bf, sjf-bf or edf-bf.
    #[arg(long, value_parser = parse_policy)]
    policy: Policy,
    /// Libra+$ static pricing factor alpha (Table I: 1.0).
    #[arg(long, allow_negative_numbers = true, default_value_t = 1.0)]
    alpha: f64,
    /// Libra+$ dynamic pricing factor beta (Table I: 0.1).
    #[arg(long, allow_negative_numbers = true, default_value_t = 0.1)]
    beta: f64,
    /// Libra gamma (1).
    #[arg(long, allow_negative_numbers = true, default_value_t = 1.0)]
    gamma: f64,
    /// Libra delta (1).
    #[arg(long, allow_negative_numbers = true, default_value_t = 1.0)]
    delta: f64,
    /// Arrival delay factor: simulated gap = factor x trace gap (Table I: 0.5).
    #[arg(long, allow_negative_numbers = true, default_value_t = 0.5)]
    delay_factor: f64,
    /// Percentage of high-urgency jobs (Table I: 20).
    #[arg(long, allow_negative_numbers = true, default_value_t = 20.0)]
    high_urgency: f64,
    /// Runtime under-estimation in percent: RE = R x (1 - PCT/100); 20 and -20 both mean
    /// "20 % under" (Table I: 0).
    #[arg(long, default_value_t = 0.0, allow_hyphen_values = true)]
    underestimate: f64,
    /// Root seed of the QoS synthesis.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Jobs taken from the end of the trace (5000).
    #[arg(long, default_value_t = 5000)]
    jobs: usize,
    /// Compute nodes (128).
    #[arg(long, default_value_t = 128)]
    nodes: usize,
    /// When the backfilling baselines drop a waiting job: deadline-passed (the paper's
    /// now > DT) or cannot-finish (the strict now + RE > DT).
    #[arg(long, value_parser = parse_lapse, default_value = "deadline-passed")]
    lapse: LapseRule,
}

/// Runs `slarm libra`.
pub fn run(args: &LibraArgs) -> CliResult<Output> {
    let bad = |e: slarm::pricing::PricingError| CliError::bad_input(e.to_string());
    let mut s = Settings::table_i();
    s.alpha = args.alpha;
    s.beta = args.beta;
    s.gamma = args.gamma;
    s.delta = args.delta;
    s.qos.delay_factor = args.delay_factor;
    s.qos.high_urgency_pct = args.high_urgency;
    s.qos.inaccuracy_pct = -args.underestimate.abs();
    s.jobs = args.jobs;
    s.nodes = args.nodes;
    s.lapse = args.lapse;
    if args.jobs < 2 {
        return Err(CliError::bad_input("--jobs must be at least 2"));
    }
    let base = BaseWorkload::from_swf(&args.trace, s.jobs, s.nodes)
        .map_err(|e| CliError::bad_input(format!("{}: {e}", args.trace.display())))?;
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
            "delay_factor": s.qos.delay_factor, "high_urgency_pct": s.qos.high_urgency_pct,
            "inaccuracy_pct": s.qos.inaccuracy_pct, "nodes": s.nodes, "seed": args.seed,
            "lapse": s.lapse,
        },
        "subset": base.stats,
    });
    Ok(Output::from_json(json))
}
