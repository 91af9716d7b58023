//! The scalability of the pre-computation (thesis §5.4.4, Fig. 5.17).
//!
//! The report holds machine-independent work per phase (jobs replayed by the g and k
//! kernels, multiply-adds of the L recursions), so it is identical between runs; the seconds
//! per phase come from the `phase_times` example (docs/performance.md).

use serde_json::{json, Value};
use slarm_report::{CellOutput, ExperimentError, Figure, FigureKind, RunConfig, Series, Table};

use super::{by_scale, err, field, num, Report, PAPER};
use slarm_provision::arrival::ArrivalProfile;
use slarm_provision::cost::{Cost, CostShape};
use slarm_provision::params::Params;
use slarm_provision::tables::{McSizes, Tables};

/// Phase names of Fig. 5.17.
const PHASES: [&str; 5] = ["g", "k", "L", "L'", "L''"];

/// Runs the scalability experiment for one `p_max` (arrivals scaled as Table 5.1, uniform cost).
pub(super) fn run(cfg: &RunConfig, id: &str, p_max: usize) -> Result<Value, ExperimentError> {
    let params = Params {
        p_max,
        ..Params::thesis()
    }
    .validated()
    .map_err(|e| err(id, e))?;
    let prof = ArrivalProfile::scaled_for(p_max).map_err(|e| err(id, e))?;
    let sz = by_scale(cfg.scale, McSizes::quick(), McSizes::scalability());
    let sz = McSizes {
        g: slarm_provision::gtable::GConfig {
            p_max_only: true,
            ..sz.g
        },
        ..sz
    };
    let tables =
        Tables::build(&params, &prof, &cfg.streams(PAPER, id), &sz).map_err(|e| err(id, e))?;
    let cost = Cost::preset(CostShape::Uniform, params.d, 1.0, 2.0).map_err(|e| err(id, e))?;
    let plan = tables.plan(&cost).map_err(|e| err(id, e))?;
    let work = [
        tables.g.replays,
        tables.k.replays,
        plan.h3.work,
        plan.h4.work,
        plan.h5.work,
    ];
    Ok(json!({
        "p_max": p_max,
        "work": work,
        "sizes": sz,
        "k_bound_d": tables.k.k_bound(params.d),
        "g0_pmax": tables.g.get_i64(0, p_max),
    }))
}

/// Adds the Fig. 5.17 table and figure.
pub(super) fn assemble(outputs: &[&CellOutput], rep: &mut Report) -> Result<(), ExperimentError> {
    if outputs.is_empty() {
        return Ok(());
    }
    let mut t = Table::new(
        "fig-5-17",
        "Fig. 5.17 analogue: work per phase (jobs replayed for g and k, multiply-adds for L, L', L''); seconds in docs/performance.md",
        &["p_max", "g", "k", "L", "L'", "L''", "K_d", "g_0(p_max)"],
    );
    let mut fig = Figure::new(
        "fig-5-17",
        "Fig. 5.17 analogue: work per pre-computation phase",
        "p_max",
        "operations",
        FigureKind::Line,
    );
    fig.y_log = true;
    let mut by_phase: Vec<Vec<(f64, f64)>> = vec![Vec::new(); PHASES.len()];
    for o in outputs {
        let r = &o.result;
        let work: Vec<u64> = field(r, "work", &o.cell.id)?;
        let pm = num(&r["p_max"]);
        let mut row: Vec<slarm_report::Cell> = vec![pm.into()];
        for (i, &w) in work.iter().enumerate() {
            row.push((w as f64).into());
            if let Some(ph) = by_phase.get_mut(i) {
                ph.push((pm, w as f64));
            }
        }
        row.push(num(&r["k_bound_d"]).into());
        row.push(num(&r["g0_pmax"]).into());
        t.push(row);
    }
    for (name, pts) in PHASES.iter().zip(by_phase) {
        fig.series.push(Series::ours(*name, pts));
    }
    rep.tables.push(t);
    rep.figures.push(fig);
    rep.notes.push("The scalability experiment reports deterministic work counts so that the report is identical between runs; wall-clock and CPU seconds per phase come from `cargo run --release -p slarm-provision --example phase_times` (docs/performance.md).".into());
    Ok(())
}
