//! `slarm provision`: evaluate one of Sung's provisioning heuristics (Sung 2006, Ch. 4)
//! over Monte Carlo runs of the thesis's 23-hour day.

use std::path::PathBuf;
use std::sync::Arc;

use serde_json::json;
use slarm::provision::{
    dp::Plan, evaluate::evaluate, gtable::g_table, ArrivalProfile, Cost, CostShape, GTable,
    McSizes, NextTable, Params, PolicyKind, ProvisionError, Tables, TieBreak,
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
    /// Cost function 1..5 (reconstructed from Sung 2006, Fig. 5.4); ignored with --cost-file.
    #[arg(long, default_value_t = 1)]
    cost_function: usize,
    /// Lowest cost of the presets (per server and decision interval).
    #[arg(long, allow_negative_numbers = true, default_value_t = 1.0)]
    cost_lo: f64,
    /// Highest cost of the presets.
    #[arg(long, allow_negative_numbers = true, default_value_t = 2.0)]
    cost_hi: f64,
    /// A user cost series: lines `time cost` (time in decision intervals, `#` comments),
    /// integrated exactly.
    #[arg(long)]
    cost_file: Option<PathBuf>,
    /// How to read --cost-file: linear (interpolation) or step (piecewise constant).
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
    #[arg(long, allow_negative_numbers = true, default_value_t = 0.9999)]
    y: f64,
    /// Submission deadline in decision intervals.
    #[arg(long, default_value_t = 64)]
    u: usize,
    /// Completion deadline in decision intervals.
    #[arg(long, default_value_t = 92)]
    d: usize,
    /// Length of a decision interval in seconds.
    #[arg(long, allow_negative_numbers = true, default_value_t = 900.0)]
    delta: f64,
    /// Mean service time in seconds.
    #[arg(long, allow_negative_numbers = true, default_value_t = 1200.0)]
    mean_service: f64,
    /// Deployment period r1 in seconds.
    #[arg(long, allow_negative_numbers = true, default_value_t = 25.0)]
    r1: f64,
    /// Removal period r2 in seconds.
    #[arg(long, allow_negative_numbers = true, default_value_t = 30.0)]
    r2: f64,
    /// Penalty per late job as a multiple of x * c_max (Eq. 4.10).
    #[arg(long, allow_negative_numbers = true, default_value_t = 1.0)]
    penalty_factor: f64,
    /// Argmin ties: smallest (q) or prefer-current (p).
    #[arg(long, default_value = "smallest")]
    tie_break: String,
    /// Forced branch of H3-H5 when n >= g_s(p_max) (ge, as written) or n > g_s(p_max) (gt).
    #[arg(long, default_value = "ge")]
    forced: String,
    /// Next-stage table of H4/H5: same (their own) or literal (H3's L, Eqs. 4.13/4.22).
    #[arg(long, default_value = "same")]
    next_table: String,
    /// Scale the arrival rate with p_max (base mean 2400/p_max s, Table 5.1).
    #[arg(long)]
    scale_arrivals: bool,
    /// Monte Carlo sizes of the tables: standard, paper or quick (docs/decisions.md).
    #[arg(long, default_value = "standard")]
    tables: String,
    /// Write the tables used (g, and for H3-H5 also k and L, L', L'' with their argmins) as
    /// JSON to this file.
    #[arg(long)]
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
    kind: PolicyKind,
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
        PolicyKind::Static(_) => GTable::empty(params.p_min, params.p_max),
        _ => g_table(params, profile, &streams.child(&[1]), &sizes.g).map_err(model_err)?,
    };
    Ok((Arc::new(g), None))
}

/// Runs `slarm provision`.
pub fn run(args: &ProvisionArgs) -> CliResult<Output> {
    let params = params(args)?;
    let kind = PolicyKind::parse(&args.heuristic).map_err(model_err)?;
    if args.runs == 0 {
        return Err(CliError::bad_input("--runs must be >= 1"));
    }
    let sizes = choice(
        "--tables",
        &args.tables,
        &[
            ("standard", McSizes::standard()),
            ("paper", McSizes::paper()),
            ("quick", McSizes::quick()),
        ],
    )?;
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
            .map_err(|e| CliError::bad_input(format!("--tables-out {}: {e}", path.display())))?;
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
