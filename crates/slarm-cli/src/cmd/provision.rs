//! `slarm provision` (design.md §4): evaluate one of Sung's provisioning heuristics (spec 000)
//! over Monte Carlo runs of the thesis's 23-hour day.

use std::sync::Arc;

use serde_json::json;
use slarm::provision::{
    evaluate::evaluate, gtable::g_table, ArrivalProfile, Cost, CostShape, McSizes, Params,
    PolicyKind, ProvisionError, Tables,
};
use slarm::stats::RngStreams;

use crate::error::{CliError, CliResult};
use crate::output::Output;

/// Arguments of `slarm provision`.
#[derive(Debug, clap::Args)]
pub struct ProvisionArgs {
    /// Heuristic: h1, h2, h3, h4, h5 or static:K.
    #[arg(long)]
    heuristic: String,
    /// Cost function 1..5 (the spec's reconstruction of Fig. 5.4); ignored with --cost-file.
    #[arg(long, default_value_t = 1)]
    cost_function: usize,
    /// Lowest and highest cost of the presets.
    #[arg(long, default_value_t = 1.0)]
    cost_lo: f64,
    /// Highest cost of the presets.
    #[arg(long, default_value_t = 2.0)]
    cost_hi: f64,
    /// A user cost series: lines `time cost` (time in decision intervals, `#` comments).
    #[arg(long)]
    cost_file: Option<std::path::PathBuf>,
    /// How to read --cost-file: linear interpolation or step (piecewise constant).
    #[arg(long, default_value = "linear")]
    cost_interp: String,
    /// Evaluation runs.
    #[arg(long, default_value_t = 1000)]
    runs: usize,
    /// Root seed.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Most servers.
    #[arg(long, default_value_t = 5)]
    p_max: usize,
    /// Fewest servers.
    #[arg(long, default_value_t = 1)]
    p_min: usize,
    /// SLA confidence as a fraction in (0, 1).
    #[arg(long, default_value_t = 0.9999)]
    y: f64,
    /// Submission deadline in intervals.
    #[arg(long, default_value_t = 64)]
    u: usize,
    /// Completion deadline in intervals.
    #[arg(long, default_value_t = 92)]
    d: usize,
    /// Scale the arrival rate with p_max (base mean 2400/p_max s, Table 5.1).
    #[arg(long)]
    scale_arrivals: bool,
    /// Monte Carlo sizes of the tables: standard or quick.
    #[arg(long, default_value = "standard")]
    tables: String,
}

fn model_err(e: ProvisionError) -> CliError {
    match e {
        ProvisionError::TableMismatch(_) => CliError::internal(e),
        other => CliError::bad_input(other),
    }
}

/// Runs `slarm provision`.
pub fn run(args: &ProvisionArgs) -> CliResult<Output> {
    let params = Params {
        p_min: args.p_min,
        p_max: args.p_max,
        y: args.y,
        u: args.u,
        d: args.d,
        ..Params::thesis()
    }
    .validated()
    .map_err(model_err)?;
    let kind = PolicyKind::parse(&args.heuristic).map_err(model_err)?;
    if args.runs == 0 {
        return Err(CliError::bad_input("--runs must be >= 1"));
    }
    let sizes = match args.tables.as_str() {
        "standard" => McSizes::standard(),
        "quick" => McSizes::quick(),
        other => {
            return Err(CliError::bad_input(format!(
                "--tables {other:?}: expected standard or quick"
            )))
        }
    };
    let (cost, cost_label) = match &args.cost_file {
        Some(path) => {
            let linear = match args.cost_interp.as_str() {
                "linear" => true,
                "step" => false,
                other => {
                    return Err(CliError::bad_input(format!(
                        "--cost-interp {other:?}: expected linear or step"
                    )))
                }
            };
            let text = std::fs::read_to_string(path)
                .map_err(|e| CliError::bad_input(format!("{}: {e}", path.display())))?;
            let c = Cost::parse_series(&text, linear)
                .map_err(|e| CliError::bad_input(format!("{}: {e}", path.display())))?;
            (c, path.display().to_string())
        }
        None => {
            let shape = CostShape::from_index(args.cost_function).map_err(model_err)?;
            let c = Cost::preset(shape, params.d, args.cost_lo, args.cost_hi).map_err(model_err)?;
            (c, shape.label().to_string())
        }
    };
    let profile = if args.scale_arrivals {
        ArrivalProfile::scaled_for(params.p_max).map_err(model_err)?
    } else {
        ArrivalProfile::thesis()
    };
    let streams = RngStreams::new(args.seed);
    let table_streams = streams.child(&[1]);
    let (g, plan) = if kind.is_cost_aware() {
        let tables = Tables::build(&params, &profile, &table_streams, &sizes).map_err(model_err)?;
        let plan = Arc::new(tables.plan(&cost).map_err(model_err)?);
        (tables.g.clone(), Some(plan))
    } else if matches!(kind, PolicyKind::Static(_)) {
        (
            Arc::new(slarm::provision::GTable {
                p_min: params.p_min,
                p_max: params.p_max,
                values: Vec::new(),
                replays: 0,
            }),
            None,
        )
    } else {
        let g =
            g_table(&params, &profile, &table_streams.child(&[1]), &sizes.g).map_err(model_err)?;
        (Arc::new(g), None)
    };
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
        "mean_deployments": ev.mean_deployments,
        "mean_deployments_ci95": ev.mean_deployments_ci95,
        "mean_servers_added": ev.mean_servers_added,
        "mean_late_jobs": ev.mean_late_jobs,
        "mean_arrivals": ev.mean_arrivals,
        "servers_mean": ev.servers_mean,
    });
    Ok(Output::from_json(json))
}
