//! `slarm overbook`: one strategy of Birkenheuer 2012 on a trace, summarised
//! per 1000-job battery (means with 95 % confidence half-widths).

use std::path::PathBuf;

use rayon::prelude::*;
use serde_json::{json, Map, Value};
use slarm::overbook::{
    acceptance::TestSpec,
    classes::StatsSource,
    failure::TraceReplay,
    sim::BatteryConfig,
    strategy::Strategy,
    workload::{prepare, read_usable},
    OverbookError,
};
use slarm_repro::papers::birkenheuer2012::{
    harness::{
        latency_quantiles_ms, summarize, FailureMode, Metric, TraceSetup, BATTERY_SIZE, TEST_JOBS,
    },
    traces::PWA_TRACES,
};

use crate::error::{shown, CliError, CliResult};
use crate::limits;
use crate::output::{format_num, Output};

/// Arguments of `slarm overbook`.
#[derive(Debug, clap::Args)]
pub struct OverbookArgs {
    /// SWF trace (.swf or .swf.gz).
    #[arg(long, allow_hyphen_values = true)]
    trace: PathBuf,
    /// comp-backfill | heur-plan | comp-overbook | heur-overbook.
    #[arg(long, default_value = "heur-overbook", allow_hyphen_values = true)]
    strategy: String,
    /// Runtime-ratio statistics: runtime | resources.
    #[arg(long, default_value = "runtime", allow_hyphen_values = true)]
    stats: String,
    /// Acceptance test: pof:P (PoF < P, penalty = fee) or risk:R (penalty = R·fee, security
    /// factor 4 comprehensive / 2 heuristic).
    #[arg(long, default_value = "pof:0.1", allow_hyphen_values = true)]
    test: String,
    /// Machine size (default: the thesis' size for the six PWA traces, else the header).
    #[arg(long, allow_hyphen_values = true)]
    procs: Option<usize>,
    /// Occurrence factor (default: the printed one for the six PWA traces, else input util / 2).
    #[arg(long, allow_hyphen_values = true)]
    factor: Option<f64>,
    /// Number of batteries to run (default: all in the test window).
    #[arg(long, allow_hyphen_values = true)]
    batteries: Option<usize>,
    /// Jobs per battery.
    #[arg(long, default_value_t = BATTERY_SIZE, allow_hyphen_values = true)]
    battery_size: usize,
    /// Size of the test window (the last usable jobs; earlier jobs train the statistics).
    #[arg(long, default_value_t = TEST_JOBS, allow_hyphen_values = true)]
    test_jobs: usize,
    /// Node failures: synthetic (Poisson, lambda 1.2904e-4/h, mu 0.4333/h), none, or a failure
    /// log to replay from every battery's start: a CSV file with lines time_s,node,duration_s.
    #[arg(long, default_value = "synthetic", allow_hyphen_values = true)]
    failures: String,
    /// Seed of the synthetic failure streams.
    #[arg(long, default_value_t = 1, allow_hyphen_values = true)]
    seed: u64,
    /// Comprehensive strategies: condition each predecessor's end distribution on its not
    /// having ended yet, F(t | not ended by now) (default: the unconditional distribution of
    /// planning, which the thesis leaves open).
    #[arg(long)]
    condition_on_elapsed: bool,
}

/// Where the node failures of the batteries come from.
enum Failures {
    /// The synthetic Poisson model (default) or none.
    Model(FailureMode),
    /// A failure log replayed from every battery's start.
    Replay(TraceReplay),
}

fn bad(e: OverbookError) -> CliError {
    CliError::bad_input(e)
}

/// Most nodes of the machine (the PWA machines have at most a few thousand; each node has
/// its own failure stream and place in every plan).
const MAX_PROCS: u64 = 65_536;
/// Largest occurrence factor (the printed ones are 0.1-0.31; it stretches submit gaps, and
/// the failure streams grow with the stretched span).
const MAX_FACTOR: f64 = 100.0;
/// Most jobs per battery and in the test window.
const MAX_JOBS: u64 = 10_000_000;

/// The ranges of `slarm overbook`'s counts (docs/cli.md).
fn check_ranges(args: &OverbookArgs) -> CliResult<()> {
    if let Some(p) = args.procs {
        limits::count("--procs", p, 1, MAX_PROCS)?;
    }
    if let Some(b) = args.batteries {
        limits::count("--batteries", b, 1, MAX_JOBS)?;
    }
    if let Some(f) = args.factor {
        limits::above("--factor", f, 0.0, MAX_FACTOR)?;
    }
    limits::count("--battery-size", args.battery_size, 1, MAX_JOBS)?;
    limits::count("--test-jobs", args.test_jobs, 1, MAX_JOBS)?;
    Ok(())
}

/// Runs `slarm overbook`.
pub fn run(args: &OverbookArgs) -> CliResult<Output> {
    check_ranges(args)?;
    let strategy = args.strategy.parse::<Strategy>().map_err(bad)?;
    let source = args.stats.parse::<StatsSource>().map_err(bad)?;
    if !matches!(source, StatsSource::Runtime | StatsSource::Resources) {
        return Err(CliError::bad_input("--stats must be runtime or resources"));
    }
    let test = args.test.parse::<TestSpec>().map_err(bad)?;
    let failures = match args.failures.as_str() {
        "synthetic" => Failures::Model(FailureMode::Synthetic),
        "none" => Failures::Model(FailureMode::None),
        path => {
            let text = std::fs::read_to_string(path).map_err(|e| {
                CliError::bad_input(format!(
                    "--failures: cannot read failure log {}: {e} (expected synthetic, none or a CSV file)",
                    shown(path)
                ))
            })?;
            Failures::Replay(TraceReplay::parse_csv(&text, path).map_err(bad)?)
        }
    };
    let file = args
        .trace
        .file_name()
        .map(|f| f.to_string_lossy().to_string())
        .unwrap_or_default();
    let known = PWA_TRACES.iter().find(|t| t.file == file);
    let machine = args.procs.or(known.map(|t| t.machine));
    let (jobs, dropped, machine) = read_usable(&args.trace, machine).map_err(bad)?;
    let test_jobs = args.test_jobs.min(jobs.len().saturating_sub(1));
    let factor = args.factor.or(known.map(|t| t.factor));
    let name = known.map(|t| t.name).unwrap_or(file.as_str());
    let prepared = prepare(name, jobs, machine, test_jobs, factor, dropped, false).map_err(bad)?;
    let setup = TraceSetup::from_prepared(prepared).map_err(bad)?;
    let available = setup.prepared.battery_count(args.battery_size);
    let count = args.batteries.unwrap_or(available).min(available);
    if count == 0 {
        return Err(CliError::bad_input(
            "the trace has too few usable jobs for one battery",
        ));
    }
    let mut cfg = BatteryConfig::new(strategy, test);
    cfg.measure_latency = true;
    cfg.condition_on_elapsed = args.condition_on_elapsed;
    let results = (0..count)
        .into_par_iter()
        .map(|k| match &failures {
            Failures::Model(mode) => {
                setup.run_battery(k, args.battery_size, source, &cfg, *mode, args.seed)
            }
            Failures::Replay(log) => {
                setup.run_battery_replaying(k, args.battery_size, source, &cfg, log)
            }
        })
        .collect::<Result<Vec<_>, _>>()
        .map_err(bad)?;
    let summary = summarize(&results, None);
    let lat: Vec<u64> = results
        .iter()
        .flat_map(|r| r.latencies_ns.iter().copied())
        .collect();
    let (median, p99) = latency_quantiles_ms(&lat);
    let mut obj = Map::new();
    let metrics: [(&str, Metric); 6] = [
        ("fees", summary.fees),
        ("penalties", summary.penalties),
        ("gain", summary.gain),
        ("successful", summary.successful),
        ("failed", summary.failed),
        ("dropped", summary.dropped),
    ];
    let fees: f64 = results.iter().map(|r| r.fees).sum();
    let penalties: f64 = results.iter().map(|r| r.penalties).sum();
    let penalty_share = if fees > 0.0 { penalties / fees } else { 0.0 };
    for (k, m) in metrics {
        obj.insert(k.into(), json!(m.mean));
        obj.insert(format!("{k}_ci95"), json!(m.ci95));
    }
    let p = &setup.prepared;
    let extra = json!({
        "trace": name,
        "strategy": strategy.name(),
        "stats": source.name(),
        "test": args.test,
        "batteries": count,
        "battery_size": args.battery_size,
        "machine": machine,
        "occurrence_factor": p.factor,
        "input_util": p.input_util,
        "training_jobs": p.training.len(),
        "dropped_lines": p.dropped,
        "failures": args.failures,
        "penalty_share_of_fees": penalty_share,
        "latency_median_ms": median,
        "latency_p99_ms": p99,
    });
    if let Value::Object(m) = extra {
        obj.extend(m);
    }
    let mut text = format!(
        "{} on {name} ({machine} nodes, {count} batteries of {}; stats {}, test {}):\n",
        strategy.name(),
        args.battery_size,
        source.name(),
        args.test
    );
    for (k, m) in metrics {
        text.push_str(&format!(
            "  {k:<11} {:>12} ± {}\n",
            format_num(m.mean),
            format_num(m.ci95)
        ));
    }
    text.push_str(&format!(
        "  penalties / fees {:.1} %\n",
        100.0 * penalty_share
    ));
    text.push_str(&format!(
        "  negotiation latency: median {median:.3} ms, p99 {p99:.3} ms\n"
    ));
    Ok(Output::new(Value::Object(obj), text))
}
