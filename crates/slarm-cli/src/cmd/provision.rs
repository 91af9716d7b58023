//! `slarm provision`: evaluate one of Sung's provisioning heuristics (Sung 2006, Ch. 4)
//! over Monte Carlo runs of the thesis's 23-hour day.

use std::path::PathBuf;
use std::sync::Arc;

use serde_json::json;
use slarm::provision::{
    dp::Plan, evaluate::evaluate, gtable::g_table, ArrivalProfile, Cost, CostShape, GTable,
    Heuristic, McSizes, NextTable, Params, ProvisionError, Tables, TieBreak,
};
use slarm::stats::RngStreams;

use crate::error::{num, CliError, CliResult};
use crate::limits;
use crate::output::Output;

/// Arguments of `slarm provision`.
#[derive(Debug, clap::Args)]
pub struct ProvisionArgs {
    /// Heuristic: h1, h2, h3, h4, h5 or static:K.
    #[arg(long, allow_hyphen_values = true)]
    heuristic: String,
    /// Cost function 1..5 (reconstructed from Sung 2006, Fig. 5.4); ignored with --cost-file.
    #[arg(long, default_value_t = 1, allow_hyphen_values = true)]
    cost_function: usize,
    /// Lowest cost of the presets (per server and decision interval).
    #[arg(long, allow_hyphen_values = true, default_value_t = 1.0)]
    cost_lo: f64,
    /// Highest cost of the presets.
    #[arg(long, allow_hyphen_values = true, default_value_t = 2.0)]
    cost_hi: f64,
    /// A user cost series: lines `time cost` (time in decision intervals, `#` comments),
    /// integrated exactly.
    #[arg(long, allow_hyphen_values = true)]
    cost_file: Option<PathBuf>,
    /// How to read --cost-file: linear (interpolation) or step (piecewise constant).
    #[arg(long, default_value = "linear", allow_hyphen_values = true)]
    cost_interp: String,
    /// Evaluation runs.
    #[arg(long, default_value_t = 1000, allow_hyphen_values = true)]
    runs: usize,
    /// Root seed.
    #[arg(long, default_value_t = 1, allow_hyphen_values = true)]
    seed: u64,
    /// Most servers.
    #[arg(long, default_value_t = 5, allow_hyphen_values = true)]
    p_max: usize,
    /// Fewest servers.
    #[arg(long, default_value_t = 1, allow_hyphen_values = true)]
    p_min: usize,
    /// SLA confidence as a fraction in (0, 1).
    #[arg(long, allow_hyphen_values = true, default_value_t = 0.9999)]
    y: f64,
    /// Submission deadline in decision intervals.
    #[arg(long, default_value_t = 64, allow_hyphen_values = true)]
    u: usize,
    /// Completion deadline in decision intervals.
    #[arg(long, default_value_t = 92, allow_hyphen_values = true)]
    d: usize,
    /// Length of a decision interval in seconds.
    #[arg(long, allow_hyphen_values = true, default_value_t = 900.0)]
    delta: f64,
    /// Mean service time in seconds.
    #[arg(long, allow_hyphen_values = true, default_value_t = 1200.0)]
    mean_service: f64,
    /// Deployment period r1 in seconds.
    #[arg(long, allow_hyphen_values = true, default_value_t = 25.0)]
    r1: f64,
    /// Removal period r2 in seconds.
    #[arg(long, allow_hyphen_values = true, default_value_t = 30.0)]
    r2: f64,
    /// Penalty per late job as a multiple of x * c_max (Eq. 4.10).
    #[arg(long, allow_hyphen_values = true, default_value_t = 1.0)]
    penalty_factor: f64,
    /// Argmin ties: smallest (q) or prefer-current (p).
    #[arg(long, default_value = "smallest", allow_hyphen_values = true)]
    tie_break: String,
    /// Forced branch of H3-H5 when n >= g_s(p_max) (ge, as written) or n > g_s(p_max) (gt).
    #[arg(long, default_value = "ge", allow_hyphen_values = true)]
    forced: String,
    /// Next-stage table of H4/H5: same (their own) or literal (H3's L, Eqs. 4.13/4.22).
    #[arg(long, default_value = "same", allow_hyphen_values = true)]
    next_table: String,
    /// Scale the arrival rate with p_max (base mean 2400/p_max s, Table 5.1).
    #[arg(long)]
    scale_arrivals: bool,
    /// Monte Carlo sizes of the tables: standard, paper or quick (docs/decisions.md).
    #[arg(long, default_value = "standard", allow_hyphen_values = true)]
    tables: String,
    /// Write the tables used (g, and for H3-H5 also k and L, L', L'' with their argmins) as
    /// JSON to this file.
    #[arg(long, allow_hyphen_values = true)]
    tables_out: Option<PathBuf>,
}

fn model_err(e: ProvisionError) -> CliError {
    match e {
        ProvisionError::TableMismatch(_) => CliError::internal(e),
        other => CliError::bad_input(other),
    }
}

/// One of the accepted words of a switch, or a bad-input error naming the flag.
fn choice<T: Copy>(flag: &str, value: &str, options: &[(&str, T)]) -> CliResult<T> {
    options
        .iter()
        .find(|(name, _)| *name == value)
        .map(|(_, v)| *v)
        .ok_or_else(|| {
            let names: Vec<&str> = options.iter().map(|(n, _)| *n).collect();
            CliError::bad_input(format!("{flag} {value:?}: expected {}", names.join(" or ")))
        })
}

fn params(args: &ProvisionArgs) -> CliResult<Params> {
    Params {
        delta_secs: args.delta,
        u: args.u,
        d: args.d,
        p_min: args.p_min,
        p_max: args.p_max,
        y: args.y,
        mean_service_secs: args.mean_service,
        r1_secs: args.r1,
        r2_secs: args.r2,
        penalty_factor: args.penalty_factor,
        tie_break: choice(
            "--tie-break",
            &args.tie_break,
            &[
                ("smallest", TieBreak::Smallest),
                ("prefer-current", TieBreak::PreferCurrent),
            ],
        )?,
        forced_uses_ge: choice("--forced", &args.forced, &[("ge", true), ("gt", false)])?,
        h45_next_table: choice(
            "--next-table",
            &args.next_table,
            &[
                ("same", NextTable::SameVariant),
                ("literal", NextTable::LiteralL),
            ],
        )?,
    }
    .validated()
    .map_err(model_err)
}

fn cost(args: &ProvisionArgs, d: usize) -> CliResult<(Cost, String)> {
    match &args.cost_file {
        Some(path) => {
            let linear = choice(
                "--cost-interp",
                &args.cost_interp,
                &[("linear", true), ("step", false)],
            )?;
            let text = std::fs::read_to_string(path)
                .map_err(|e| CliError::bad_input(format!("{}: {e}", path.display())))?;
            let c = Cost::parse_series(&text, linear)
                .map_err(|e| CliError::bad_input(format!("{}: {e}", path.display())))?;
            Ok((c, path.display().to_string()))
        }
        None => {
            let shape = CostShape::from_index(args.cost_function).map_err(model_err)?;
            let c = Cost::preset(shape, d, args.cost_lo, args.cost_hi).map_err(model_err)?;
            Ok((c, shape.label().to_string()))
        }
    }
}

/// The tables a policy needs: `g` (H1-H5) and the plan (H3-H5).
fn tables(
    kind: Heuristic,
    params: &Params,
    profile: &ArrivalProfile,
    cost: &Cost,
    sizes: &McSizes,
    streams: &RngStreams,
) -> CliResult<(Arc<GTable>, Option<Arc<Plan>>)> {
    if kind.is_cost_aware() {
        let t = Tables::build(params, profile, streams, sizes).map_err(model_err)?;
        let plan = Arc::new(t.plan(cost).map_err(model_err)?);
        return Ok((t.g.clone(), Some(plan)));
    }
    let g = match kind {
        Heuristic::Static(_) => GTable::empty(params.p_min, params.p_max),
        _ => g_table(params, profile, &streams.child(&[1]), &sizes.g).map_err(model_err)?,
    };
    Ok((Arc::new(g), None))
}

/// Longest decision interval and mean service time, seconds (a week; the thesis: 900 and 1200).
const MAX_SECONDS: f64 = 604_800.0;
/// Shortest decision interval and mean service time, seconds.
const MIN_SECONDS: f64 = 1e-3;
/// Most decision points `d` (the thesis: 92).
const MAX_DECISIONS: u64 = 10_000;
/// Most evaluation runs.
const MAX_RUNS: u64 = 10_000_000;
/// Most simulated decision epochs of the evaluation (`--runs` x `--d`).
const MAX_EPOCHS: f64 = 1e9;
/// Most job counts a table covers: the binary-search limit `gamma = p_max d / x` (Eq. 4.6).
const MAX_GAMMA: f64 = 1e6;
/// Most (decision point, servers, jobs, choice) evaluations of the cost tables, `d (J + 1)^2
/// (gamma + 1)`: the thesis's largest case (p_max = 30, scalability test) needs 1.7e8.
const MAX_TABLE_WORK: f64 = 2.5e8;

/// The ranges of `slarm provision`'s time and count options, checked before the model's own
/// validation so that a bad value is named as the option the user typed.
fn check_ranges(args: &ProvisionArgs) -> CliResult<()> {
    limits::within("--delta", args.delta, MIN_SECONDS, MAX_SECONDS)?;
    limits::within(
        "--mean-service",
        args.mean_service,
        MIN_SECONDS,
        MAX_SECONDS,
    )?;
    limits::count("--d", args.d, 2, MAX_DECISIONS)?;
    limits::count("--runs", args.runs, 1, MAX_RUNS)?;
    Ok(())
}

/// The size of the work `slarm provision`'s options ask for, checked before any table is
/// built.
fn check_work(args: &ProvisionArgs, params: &Params, kind: Heuristic) -> CliResult<()> {
    let epochs = args.runs as f64 * args.d as f64;
    limits::work(
        "simulated decision epochs",
        epochs,
        MAX_EPOCHS,
        &format!("--runs {} x --d {}", args.runs, args.d),
    )?;
    let gamma = params.p_max as f64 * params.d as f64 / params.x_units();
    limits::work(
        "job counts per table row",
        gamma,
        MAX_GAMMA,
        &format!(
            "gamma = p_max d / x of Sung 2006, Eq. 4.6, with --p-max {}, --d {} and x = --mean-service / --delta = {}",
            params.p_max,
            params.d,
            num(params.x_units())
        ),
    )?;
    if !matches!(kind, Heuristic::Static(_)) {
        let counts = params.n_counts() as f64;
        let table = params.d as f64 * counts * counts * (gamma.floor() + 1.0);
        limits::work(
            "cost-table evaluations",
            table,
            MAX_TABLE_WORK,
            &format!(
                "d x (p_max - p_min + 1)^2 x (gamma + 1) = {} x {}^2 x {}; lower --p-max or --d",
                params.d,
                params.n_counts(),
                gamma.floor() + 1.0
            ),
        )?;
    }
    Ok(())
}

/// Refuses an SLA confidence `y` so low that every Monte Carlo run of a table may miss the
/// deadline (`floor((1 - y) runs) = runs`): the SLA then bounds nothing, and the tables'
/// search runs to its ceiling (minutes where y = 0.9999 takes seconds).
fn check_confidence(params: &Params, sizes: &McSizes) -> CliResult<()> {
    let runs = sizes
        .g
        .runs
        .min(sizes.k.saturated_runs)
        .min(sizes.k.special_runs);
    if params.allowed_failures(runs) >= runs {
        return Err(CliError::bad_input(format!(
            "--y {}: with {runs} Monte Carlo runs per table cell every run may miss the deadline; y must be above 1/{runs}",
            num(params.y)
        )));
    }
    Ok(())
}

/// Runs `slarm provision`.
pub fn run(args: &ProvisionArgs) -> CliResult<Output> {
    check_ranges(args)?;
    let params = params(args)?;
    let kind = args.heuristic.parse::<Heuristic>().map_err(model_err)?;
    check_work(args, &params, kind)?;
    let sizes = choice(
        "--tables",
        &args.tables,
        &[
            ("standard", McSizes::standard()),
            ("paper", McSizes::paper()),
            ("quick", McSizes::quick()),
        ],
    )?;
    check_confidence(&params, &sizes)?;
    let (cost, cost_label) = cost(args, params.d)?;
    let profile = if args.scale_arrivals {
        ArrivalProfile::scaled_for(params.p_max).map_err(model_err)?
    } else {
        ArrivalProfile::thesis()
    };
    let streams = RngStreams::new(args.seed);
    let (g, plan) = tables(kind, &params, &profile, &cost, &sizes, &streams.child(&[1]))?;
    if let Some(path) = &args.tables_out {
        let doc = json!({
            "params": params,
            "g": g.as_ref(),
            "k": plan.as_ref().map(|p| p.k.as_ref()),
            "cost_inputs": plan.as_ref().map(|p| &p.inputs),
            "l": plan.as_ref().map(|p| &p.h3),
            "l1": plan.as_ref().map(|p| &p.h4),
            "l2": plan.as_ref().map(|p| &p.h5),
        });
        let text = serde_json::to_string(&doc).map_err(CliError::internal)?;
        slarm_repro::write_output(path, |w| w.write_all(text.as_bytes()))
            .map_err(|e| CliError::output(format_args!("--tables-out {}", path.display()), &e))?;
    }
    let make = || kind.build(&params, &g, plan.as_ref());
    let ev = evaluate(
        &params,
        &profile,
        &cost,
        &make,
        &streams.child(&[2]),
        args.runs,
    )
    .map_err(model_err)?;
    let json = json!({
        "heuristic": kind.label(),
        "cost_function": cost_label,
        "runs": ev.runs,
        "seed": args.seed,
        "p_min": params.p_min,
        "p_max": params.p_max,
        "y": params.y,
        "mean_cost": ev.mean_cost,
        "mean_cost_ci95": ev.mean_cost_ci95,
        "deadline_miss_rate": ev.deadline_miss_rate,
        "single_miss_fraction": ev.single_miss_fraction,
        "mean_deployments": ev.mean_deployments,
        "mean_deployments_ci95": ev.mean_deployments_ci95,
        "mean_servers_added": ev.mean_servers_added,
        "mean_late_jobs": ev.mean_late_jobs,
        "mean_arrivals": ev.mean_arrivals,
        "servers_mean": ev.servers_mean,
        "servers_ci95": ev.servers_ci95,
        "jobs_mean": ev.jobs_mean,
    });
    Ok(Output::from_json(json))
}
