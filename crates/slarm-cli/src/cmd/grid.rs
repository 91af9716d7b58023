//! `slarm grid`: one overprovisioning scenario of Yigitbasi & Epema 2010
//! on DAS-3 (Table I) with the Iosup BoT model: consistency (C_d, C_s), CPU-hours and BoTs.

use std::path::PathBuf;

use serde_json::json;
use slarm::grid::metrics::bots_meeting;
use slarm::grid::platform::parse_platform;
use slarm::grid::platform::Das3Unit;
use slarm::grid::prelude::*;
use slarm::grid::run::BackgroundSpec;
use slarm::grid::workload::{
    read_background_file, BackgroundSkip, RuntimeSharing, RuntimeSpread, SiteMapping,
    MAX_MEAN_IAT_S, TABLE2_MEAN_IAT_S, TABLE2_MEAN_RUNTIME_S, TABLE2_MEAN_SIZE, WITHIN_BOT_SD_LOG2,
};
use slarm::stats::RngStreams;

use crate::error::{shown, CliError, CliResult};
use crate::limits;
use crate::output::{format_num, Output};

/// Arguments of `slarm grid`.
#[derive(Debug, clap::Args)]
pub struct GridArgs {
    /// User-defined platform instead of DAS-3 (Table I): a text file with one site per line,
    /// `name processors speed_ghz` (e.g. `VU 170 2.4`); `#` starts a comment, blank lines are
    /// ignored; site ids (--site-map, trace sites) are the line order from 0.
    #[arg(long, value_name = "FILE", allow_hyphen_values = true)]
    platform: Option<PathBuf>,
    /// Overprovisioning strategy: none, all, largest, number, dynamic or feedback.
    #[arg(long, default_value = "none", allow_hyphen_values = true)]
    strategy: String,
    /// Overprovisioning factor kappa >= 1 (target of static and dynamic strategies).
    #[arg(long, allow_hyphen_values = true, default_value_t = 2.0)]
    kappa: f64,
    /// BoT load of the initial system as a fraction (0.8) or a percentage ("80%"), read as
    /// --load-definition says (not used by "arrivals", which measures the load).
    /// Default 0.8.
    #[arg(long, allow_hyphen_values = true)]
    load: Option<String>,
    /// arrivals (the default): BoTs arrive at --mean-iat on average and the load is measured;
    /// realised: the arrival scale is searched so that the initial system's processors are
    /// busy with BoT tasks --load of the time from the first to the last arrival;
    /// offered: --load is work over the arrival span (runtimes on 2.2 GHz / reference
    /// capacity).
    #[arg(long, default_value = "arrivals", allow_hyphen_values = true)]
    load_definition: String,
    /// Mean BoT inter-arrival time under --load-definition arrivals, seconds (Table II's
    /// 124.6 s).
    #[arg(long, allow_hyphen_values = true, default_value_t = 124.6)]
    mean_iat: f64,
    /// DAS-3 scheduling unit: processor (544, the default) or node (272, a task takes a node).
    #[arg(long, default_value = "processor", allow_hyphen_values = true)]
    das3_unit: String,
    /// Root seed (the workload depends only on seed, load, bots and background).
    #[arg(long, default_value_t = 1, allow_hyphen_values = true)]
    seed: u64,
    /// Number of BoTs.
    #[arg(long, default_value_t = 1650, allow_hyphen_values = true)]
    bots: usize,
    /// GRM policy: static, dyn-per-task, dyn-per-bot or ect.
    #[arg(long, default_value = "dyn-per-task", allow_hyphen_values = true)]
    policy: String,
    /// Background load: "synthetic", "none", or a GWF/SWF trace file (plain or gzip).
    #[arg(long, default_value = "synthetic", allow_hyphen_values = true)]
    background: String,
    /// Utilisation of every site by the synthetic background.
    #[arg(long, allow_hyphen_values = true, default_value_t = 0.15)]
    background_util: f64,
    /// Processors per synthetic background job (1 = the paper's setting; more = rigid parallel jobs).
    #[arg(long, default_value_t = 1, allow_hyphen_values = true)]
    background_procs: u64,
    /// Mapping of trace site ids or names to clusters (site ids of the platform), e.g.
    /// "fs0:0,fs1:4" (default: numeric ids or trailing numbers modulo the number of sites).
    #[arg(long, allow_hyphen_values = true)]
    site_map: Option<String>,
    /// Local resource managers: fcfs (the paper's setting) or easy (EASY backfilling).
    #[arg(long, default_value = "fcfs", allow_hyphen_values = true)]
    lrm: String,
    /// Dynamic strategy: monitoring period, seconds.
    #[arg(long, allow_hyphen_values = true, default_value_t = 60.0)]
    period: f64,
    /// Dynamic strategy: high load threshold (acquire above).
    #[arg(long, allow_hyphen_values = true, default_value_t = 0.70)]
    high: f64,
    /// Dynamic strategy: low load threshold (release below).
    #[arg(long, allow_hyphen_values = true, default_value_t = 0.60)]
    low: f64,
    /// Dynamic strategy: cloud pool at t = 0: target, lower-bound or one (kappa(0) = 1).
    #[arg(long, default_value = "target", allow_hyphen_values = true)]
    dynamic_start: String,
    /// Table II runtime spread: stddev (6.1 is the standard deviation, the default) or variance.
    #[arg(long, default_value = "stddev", allow_hyphen_values = true)]
    runtime_spread: String,
    /// Runtimes within a BoT: per-task (independent draws, the default), bot-average (Table
    /// II's runtime is the BoT's average task runtime, tasks spread around it by
    /// --within-bot-sd) or per-bot (one shared runtime).
    #[arg(long, default_value = "per-task", allow_hyphen_values = true)]
    runtime_sharing: String,
    /// Spread of task runtimes around their BoT's average (bot-average), standard deviation
    /// in log2 seconds.
    #[arg(long, allow_hyphen_values = true, default_value_t = WITHIN_BOT_SD_LOG2)]
    within_bot_sd: f64,
    /// Trace time (s) that becomes t = 0 (e.g. 2008-06-01 00:00 for the DAS-3 June trace).
    #[arg(long, allow_hyphen_values = true, default_value_t = 0.0)]
    trace_origin: f64,
    /// Feedback controller target makespan (p90), minutes.
    #[arg(long, allow_hyphen_values = true, default_value_t = 300.0)]
    target_min: f64,
    /// Feedback controller release threshold, minutes.
    #[arg(long, allow_hyphen_values = true, default_value_t = 250.0)]
    release_min: f64,
    /// Cost model: busy-grid-plus-cloud-leases, provisioned-all or busy-only.
    #[arg(
        long,
        default_value = "busy-grid-plus-cloud-leases",
        allow_hyphen_values = true
    )]
    cost_model: String,
    /// Cap of task runtimes (of BoT average runtimes under bot-average): "table2" (the
    /// default) for the cap at which the expected runtime is Table II's average 7859.7 s,
    /// seconds, or "none" (the paper states no cap).
    #[arg(long, default_value = "table2", allow_hyphen_values = true)]
    max_runtime: String,
}

/// Largest spread of task runtimes around their BoT's average, log2 seconds (2^20: a factor
/// of a million; Table II's whole spread is 6.1).
const MAX_WITHIN_BOT_SD: f64 = 20.0;
/// Most BoTs a run simulates (the paper's runs have 1,650; memory grows with the BoTs).
const MAX_BOTS: u64 = 100_000;
/// Shortest monitoring period of the dynamic strategy, seconds (the paper's is 60 s; every
/// period is one event, so a vanishing one never ends).
const MIN_PERIOD_S: f64 = 1.0;
/// Largest time an option takes, seconds (about 31,700 years; trace clocks are far below).
const MAX_SECONDS: f64 = 1e12;
/// Most processors of a synthetic background job.
const MAX_BACKGROUND_PROCS: u64 = 1 << 20;

/// The ranges of `slarm grid`'s numeric options that its model leaves open (docs/cli.md).
fn check_ranges(args: &GridArgs) -> CliResult<()> {
    limits::count("--bots", args.bots, 1, MAX_BOTS)?;
    limits::within("--period", args.period, MIN_PERIOD_S, MAX_SECONDS)?;
    limits::within("--trace-origin", args.trace_origin, 0.0, MAX_SECONDS)?;
    limits::above("--target-min", args.target_min, 0.0, MAX_SECONDS / 60.0)?;
    limits::above("--release-min", args.release_min, 0.0, MAX_SECONDS / 60.0)?;
    limits::count(
        "--background-procs",
        args.background_procs,
        1,
        MAX_BACKGROUND_PROCS,
    )?;
    Ok(())
}

/// One of `choices` (`(name, value)` pairs) or exit 2 naming the option.
fn choose<T: Copy>(option: &str, given: &str, choices: &[(&str, T)]) -> CliResult<T> {
    choices
        .iter()
        .find(|(name, _)| *name == given)
        .map(|&(_, v)| v)
        .ok_or_else(|| {
            let names: Vec<&str> = choices.iter().map(|c| c.0).collect();
            CliError::bad_input(format!(
                "--{option} {}: expected {}",
                shown(given),
                names.join("|")
            ))
        })
}

/// `--site-map "fs0:0,fs1:4"` as explicit (trace site, cluster) pairs.
fn parse_site_map(s: &str, n_sites: usize) -> CliResult<SiteMapping> {
    let mut pairs = Vec::new();
    for item in s.split(',').filter(|i| !i.trim().is_empty()) {
        let (id, idx) = item.split_once(':').ok_or_else(|| {
            CliError::bad_input(format!("--site-map {}: expected ID:INDEX", shown(item)))
        })?;
        let idx: usize = idx
            .trim()
            .parse()
            .ok()
            .filter(|&i| i < n_sites)
            .ok_or_else(|| {
                CliError::bad_input(format!(
                    "--site-map {}: the cluster index must be 0..{}",
                    shown(item),
                    n_sites - 1
                ))
            })?;
        pairs.push((id.trim().to_string(), idx));
    }
    Ok(SiteMapping::Explicit(pairs))
}

fn model(args: &GridArgs) -> CliResult<IosupBotModel> {
    let mut m = IosupBotModel {
        spread: choose(
            "runtime-spread",
            &args.runtime_spread,
            &[
                ("stddev", RuntimeSpread::StdDev),
                ("variance", RuntimeSpread::LiteralVariance),
            ],
        )?,
        sharing: choose(
            "runtime-sharing",
            &args.runtime_sharing,
            &[
                ("bot-average", RuntimeSharing::BotAverage),
                ("per-task", RuntimeSharing::PerTask),
                ("per-bot", RuntimeSharing::SharedPerBot),
            ],
        )?,
        within_bot_sd_log2: limits::within(
            "--within-bot-sd",
            args.within_bot_sd,
            0.0,
            MAX_WITHIN_BOT_SD,
        )?,
        ..IosupBotModel::default()
    };
    match args.max_runtime.trim() {
        "none" => {}
        "table2" => {
            m = m
                .with_mean_runtime(TABLE2_MEAN_RUNTIME_S)
                .map_err(CliError::bad_input)?
        }
        x => {
            let cap = x.parse::<f64>().map_err(|_| {
                CliError::bad_input(format!(
                    "--max-runtime {}: not a number, table2 or none",
                    shown(x)
                ))
            })?;
            m.max_runtime_s = Some(limits::above("--max-runtime", cap, 0.0, MAX_SECONDS)?);
        }
    }
    Ok(m)
}

fn parse_load(s: &str) -> CliResult<f64> {
    let (num, scale) = match s.strip_suffix('%') {
        Some(p) => (p, 0.01),
        None => (s, 1.0),
    };
    num.trim()
        .parse::<f64>()
        .map(|x| x * scale)
        .map_err(|_| CliError::bad_input(format!("--load {}: not a number", shown(s))))
}

/// The platform of `--platform FILE` (or DAS-3) and its label; exit 2 naming the file and
/// line of a malformed site.
fn platform(args: &GridArgs, unit: Das3Unit) -> CliResult<(Platform, String)> {
    let Some(path) = &args.platform else {
        let label = match unit {
            Das3Unit::Processor => "das3",
            Das3Unit::Node => "das3-nodes",
        };
        return Ok((Platform::das3_in(unit), label.into()));
    };
    let shown = path.display();
    let text = std::fs::read_to_string(path)
        .map_err(|e| CliError::bad_input(format!("--platform {shown}: {e}")))?;
    let platform = parse_platform(&text).map_err(|e| match e {
        GridError::MalformedPlatform { line, message } => {
            CliError::bad_input(format!("{shown}:{line}: {message}"))
        }
        other => CliError::bad_input(format!("{shown}: {other}")),
    })?;
    let label = path
        .file_name()
        .map_or(shown.to_string(), |n| n.to_string_lossy().into_owned());
    Ok((platform, label))
}

/// The background of `--background` and the trace's skipped lines per reason (empty unless a
/// trace is read).
fn background(
    args: &GridArgs,
    platform: &Platform,
    unit: Das3Unit,
) -> CliResult<(BackgroundSpec, Vec<(BackgroundSkip, usize)>)> {
    Ok(match args.background.as_str() {
        "none" => (BackgroundSpec::None, vec![]),
        "synthetic" => (
            BackgroundSpec::Synthetic(SyntheticBackground {
                utilisation: args.background_util,
                procs: args.background_procs,
                ..SyntheticBackground::default()
            }),
            vec![],
        ),
        path => {
            let p = PathBuf::from(path);
            let name = p
                .file_name()
                .map_or(path.to_string(), |n| n.to_string_lossy().into_owned());
            let n_sites = platform.sites().len();
            let mapping = match &args.site_map {
                Some(m) => parse_site_map(m, n_sites)?,
                None => SiteMapping::Modulo,
            };
            let mut trace = read_background_file(&p, &mapping, n_sites, args.trace_origin)
                .map_err(|e| match e {
                    GridError::TraceFile { .. } => CliError::bad_input(e),
                    other => CliError::bad_input(format!("{path}: {other}")),
                })?;
            for j in &mut trace.jobs {
                j.procs = unit.units_for(j.procs);
            }
            let skips = trace.skip_counts();
            (
                BackgroundSpec::Trace {
                    label: name,
                    jobs: trace.jobs,
                },
                skips,
            )
        }
    })
}

/// Runs `slarm grid`.
pub fn run(args: &GridArgs) -> CliResult<Output> {
    check_ranges(args)?;
    let strategy = args.strategy.parse::<StrategyKind>().map_err(|_| {
        CliError::bad_input(format!(
            "--strategy {}: expected none|all|largest|number|dynamic|feedback",
            args.strategy
        ))
    })?;
    let policy = args.policy.parse::<BotPolicy>().map_err(|_| {
        CliError::bad_input(format!(
            "--policy {}: expected static|dyn-per-task|dyn-per-bot|ect",
            args.policy
        ))
    })?;
    let cost_model = choose(
        "cost-model",
        &args.cost_model,
        &[
            (
                "busy-grid-plus-cloud-leases",
                CostModel::BusyGridPlusCloudLeases,
            ),
            ("provisioned-all", CostModel::ProvisionedAll),
            ("busy-only", CostModel::BusyOnly),
        ],
    )?;
    let lrm = choose(
        "lrm",
        &args.lrm,
        &[("fcfs", LrmPolicy::Fcfs), ("easy", LrmPolicy::EasyBackfill)],
    )?;
    let start = choose(
        "dynamic-start",
        &args.dynamic_start,
        &[
            ("target", DynamicStart::Target),
            ("lower-bound", DynamicStart::LowerBound),
            ("one", DynamicStart::One),
        ],
    )?;
    let load = parse_load(args.load.as_deref().unwrap_or("0.8"))?;
    let load_definition = choose(
        "load-definition",
        &args.load_definition,
        &[
            ("arrivals", LoadDefinition::Arrivals),
            ("realised", LoadDefinition::Realised),
            ("offered", LoadDefinition::Offered),
        ],
    )?;
    let mean_iat = limits::above("--mean-iat", args.mean_iat, 0.0, MAX_MEAN_IAT_S)?;
    if load_definition == LoadDefinition::Arrivals {
        if let Some(l) = &args.load {
            return Err(CliError::bad_input(format!(
                "--load {}: the default --load-definition arrivals measures the load; give --load-definition realised or offered to target it",
                shown(l)
            )));
        }
    }
    let unit = choose(
        "das3-unit",
        &args.das3_unit,
        &[("processor", Das3Unit::Processor), ("node", Das3Unit::Node)],
    )?;
    if unit == Das3Unit::Node && args.platform.is_some() {
        return Err(CliError::bad_input(
            "--das3-unit node: only for DAS-3, not with --platform",
        ));
    }
    let (platform, platform_label) = platform(args, unit)?;
    let mut sc = Scenario::paper(strategy, args.kappa);
    let (background, skips) = background(args, &platform, unit)?;
    sc.background = background;
    sc.platform = platform;
    sc.load = load;
    sc.load_definition = load_definition;
    sc.mean_iat_s = mean_iat;
    sc.n_bots = args.bots;
    sc.policy = policy;
    sc.feedback_s = (args.target_min * 60.0, args.release_min * 60.0);
    sc.sim.cost_model = cost_model;
    sc.sim.lrm = lrm;
    sc.model = model(args)?;
    sc.dynamic = DynamicSettings {
        high: args.high,
        low: args.low,
        period_s: args.period,
        start,
        ..DynamicSettings::default()
    };
    let r = run_scenario(&sc, &RngStreams::new(args.seed)).map_err(CliError::bad_input)?;
    let met = bots_meeting(&r.run.bots, sc.feedback_s.0);
    let by_group: Vec<_> = r
        .consistency_min_group
        .iter()
        .map(|(m, c)| {
            json!({
                "min_group_count": m,
                "c_d": c.as_ref().map(|c| c.c_d),
                "c_s": c.as_ref().map(|c| c.c_s),
            })
        })
        .collect();
    let json = json!({
        "platform": {
            "source": platform_label,
            "processors": sc.platform.total_processors(),
            "sites": sc.platform.sites(),
        },
        "strategy": strategy.label(),
        "policy": policy.label(),
        "kappa": if matches!(strategy, StrategyKind::None | StrategyKind::Feedback) { 1.0 } else { args.kappa },
        "load": r.load.target,
        "load_definition": load_definition.name(),
        "offered_load": r.load.offered,
        "realised_load": r.load.realised,
        "load_converged": r.load.converged,
        "calibration_runs": r.load.runs,
        "busy_share": r.busy_share,
        "seed": args.seed,
        "background": r.run.background,
        "background_skipped": skips
            .iter()
            .map(|(reason, n)| json!({ "reason": reason, "lines": n }))
            .collect::<Vec<_>>(),
        "c_d": r.consistency.c_d,
        "c_s": r.consistency.c_s,
        "cpu_hours": r.run.cpu_hours,
        "bots": r.run.bots.len(),
        "tasks": r.workload.tasks,
        "size_groups": r.consistency.groups,
        "consistency_min_group": by_group,
        "nsl": r.nsl,
        "mean_makespan_s": r.mean_makespan_s,
        "p90_makespan_s": r.p90_makespan_s,
        "bots_meeting_target": met,
        "target_makespan_s": sc.feedback_s.0,
        "kappa_time_avg": r.run.kappa_time_avg,
        "kappa_max": r.run.kappa_max,
        "cost": r.run.cost,
        "cloud_acquisitions": r.run.cloud_acquisitions,
        "cloud_releases": r.run.cloud_releases,
        "predictor_accuracy": r.run.predictor_accuracy,
        "horizon_s": r.run.horizon_s,
        "workload": r.workload,
        "runtime_cap_s": sc.model.max_runtime_s,
        "lrm": args.lrm,
        "waited_bots": r.run.bots.iter().filter(|b| b.max_wait_s > 0.0).count(),
    });
    let mut json = json;
    if let Some(obj) = json.as_object_mut() {
        obj.insert(
            "arrivals".into(),
            json!({
                "mean_iat_s": sc.mean_iat_s,
                "within_bot_sd_log2": sc.model.within_bot_sd_log2,
                "runtime_sharing": args.runtime_sharing,
                "table2_average": {
                    "mean_iat_s": TABLE2_MEAN_IAT_S,
                    "mean_size": TABLE2_MEAN_SIZE,
                    "mean_runtime_s": TABLE2_MEAN_RUNTIME_S,
                },
            }),
        );
    }
    let text = format!(
        "platform {} ({} sites, {} processors)\n\
         strategy {} (kappa {}), policy {}, load {} ({}; offered {}, realised {}{}), seed {}, background {:?}{}\n\
         BoTs {}  tasks {}  span {} days  mean inter-arrival {} s  mean size {}  mean task runtime {} s  (Table II averages: 124.6 s, 6.1, 7859.7 s)\n\
         C_d {}  C_s {}  (over {} size groups)\n\
         CPU-hours {}  time-averaged kappa {}\n\
         NSL median {}  mean {}  max {}\n\
         makespan mean {} s  p90 {} s  BoTs under {} min: {}\n",
        platform_label,
        sc.platform.sites().len(),
        sc.platform.total_processors(),
        strategy.label(),
        format_num(args.kappa),
        policy.label(),
        format_num(r.load.target),
        load_definition.name(),
        format_num(r.load.offered),
        format_num(r.load.realised),
        if r.load.converged {
            ""
        } else {
            ", not reached: too few BoTs or offered load limit"
        },
        args.seed,
        r.run.background,
        if skips.is_empty() {
            String::new()
        } else {
            let parts: Vec<String> = skips.iter().map(|(s, n)| format!("{n} {s:?}")).collect();
            format!(" (skipped lines: {})", parts.join(", "))
        },
        r.run.bots.len(),
        r.workload.tasks,
        format_num(r.workload.span_s / 86_400.0),
        format_num(r.workload.mean_iat_s),
        format_num(r.workload.mean_size),
        format_num(r.workload.mean_runtime_s),
        format_num(r.consistency.c_d),
        format_num(r.consistency.c_s),
        r.consistency.groups,
        format_num(r.run.cpu_hours),
        format_num(r.run.kappa_time_avg),
        format_num(r.nsl.median),
        format_num(r.nsl.mean),
        format_num(r.nsl.max),
        format_num(r.mean_makespan_s),
        format_num(r.p90_makespan_s),
        format_num(args.target_min),
        met,
    );
    Ok(Output::new(json, text))
}
