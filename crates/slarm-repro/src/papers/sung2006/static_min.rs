//! The static minimum (thesis §5.4.2: "four is the minimum"), with the miss probabilities
//! of `reference::STATIC_MISS` (our own 1M-run Monte Carlo; the thesis prints none).

use serde_json::{json, Value};
use slarm_report::{Check, RunConfig};

use super::reference::STATIC_MISS;
use super::{by_scale, num, Report, PAPER};
use slarm_provision::arrival::ArrivalProfile;
use slarm_provision::gtable::q_monte_carlo;
use slarm_provision::params::Params;

/// Runs the static-minimum experiment: Pr[some job late] with 2, 3, 4 static servers from an empty start at time 0.
pub(super) fn run(cfg: &RunConfig, id: &str) -> Value {
    let params = Params::thesis();
    let prof = ArrivalProfile::thesis();
    let st = cfg.streams(PAPER, id);
    let runs = by_scale(cfg.scale, 20_000, 200_000);
    let miss: Vec<f64> = STATIC_MISS
        .iter()
        .map(|&(p, _, _)| 1.0 - q_monte_carlo(&params, &prof, &st, 0, p, 0, runs))
        .collect();
    json!({"runs": runs, "miss": miss})
}

/// Adds the static-minimum checks.
pub(super) fn assemble(r: &Value, rep: &mut Report) {
    let runs = num(&r["runs"]);
    let miss: Vec<f64> = r["miss"]
        .as_array()
        .into_iter()
        .flatten()
        .map(num)
        .collect();
    for (&(p, published, half), &ours) in STATIC_MISS.iter().zip(&miss) {
        // three binomial standard errors of ours plus the published 95 % half-width
        let tol = 3.0 * (published * (1.0 - published) / runs).sqrt() + half;
        rep.checks.push(
            Check::numeric(
                format!("e3-miss-{p}"),
                format!("Pr[some job late], {p} static servers ({runs} runs)"),
                ours,
                Some(published),
                tol,
            )
            .explain(|c| {
                let gap = c.deviation.unwrap_or(0.0);
                let side = if gap.abs() <= tol { "within" } else { "beyond" };
                format!("the reference value is a 1,000,000-run recomputation (Sung 2006, §5.4.2 states only that 4 is the minimum); ours over {runs} runs is {gap:+.5} from it, {side} three binomial standard errors plus its half-width ({tol:.5})")
            }),
        );
    }
    let (m3, m4) = (
        miss.get(1).copied().unwrap_or(f64::NAN),
        miss.get(2).copied().unwrap_or(f64::NAN),
    );
    rep.checks.push(Check::claim(
        "e3-min-4",
        "4 is the minimum static allocation for y = 99.99 % (thesis §5.4.2)",
        m3 > 1e-4 && m4 <= 1e-4,
        format!("miss(3) = {m3:.5}, miss(4) = {m4:.5}"),
    ));
}
