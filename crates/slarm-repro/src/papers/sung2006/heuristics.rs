//! The heuristics experiment: H1-H5 and static 4 under the five cost functions (thesis §5.4, Figs 5.5-5.16) and the
//! directional criteria we draw from the claims of thesis §5.4.1-§5.4.3.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use slarm_report::{Check, ExperimentError, Figure, FigureKind, RunConfig, Series, Table};

use super::reference::CF2_N85;
use super::{by_scale, err, field, shared_g, sizes, Report, PAPER};
use slarm_provision::arrival::ArrivalProfile;
use slarm_provision::cost::{Cost, CostShape};
use slarm_provision::evaluate::{evaluate, Evaluation};
use slarm_provision::params::Params;
use slarm_provision::policy::Heuristic;
use slarm_provision::tables::{build_k, Tables};

/// The policies of Figs 5.5-5.16, in report order.
const KINDS: [Heuristic; 6] = [
    Heuristic::H1,
    Heuristic::H2,
    Heuristic::H3,
    Heuristic::H4,
    Heuristic::H5,
    Heuristic::Static(4),
];

/// The cost-aware heuristics.
const COST_AWARE: [&str; 3] = ["H3", "H4", "H5"];

/// "About" in the thesis's ranges: the criteria allow this many percentage points.
const ABOUT_PP: f64 = 2.5;

/// One heuristic under one cost function (1-based `cf`).
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Row {
    cf: usize,
    eval: Evaluation,
}

/// Runs the heuristics experiment: tables (the streams of the confidence-table experiment), then every policy under every cost function with
/// common random numbers.
pub(super) fn run(cfg: &RunConfig, id: &str) -> Result<Value, ExperimentError> {
    let params = Params::thesis();
    let prof = ArrivalProfile::thesis();
    // g first (as `Tables::build` does): built by the confidence-table cell, which starts earlier in a run of every
    // cell (see `cell_cost`), and found here; built here otherwise.
    let g = shared_g(cfg, id)?;
    let k = build_k(
        &params,
        &prof,
        &cfg.streams(PAPER, "tables"),
        &sizes(cfg.scale),
    )
    .map_err(|e| err(id, e))?;
    let tables = Tables {
        params: params.clone(),
        g,
        k: Arc::new(k),
    };
    let runs = by_scale(cfg.scale, 200, 1000);
    let eval_streams = cfg.streams(PAPER, "evaluation");
    let mut rows = Vec::new();
    for (ci, shape) in CostShape::all().into_iter().enumerate() {
        let cost = Cost::preset(shape, params.d, 1.0, 2.0).map_err(|e| err(id, e))?;
        let plan = Arc::new(tables.plan(&cost).map_err(|e| err(id, e))?);
        for kind in KINDS {
            let make = || kind.build(&params, &tables.g, Some(&plan));
            let eval = evaluate(&params, &prof, &cost, &make, &eval_streams, runs)
                .map_err(|e| err(id, e))?;
            rows.push(Row { cf: ci + 1, eval });
        }
    }
    let g_pmax: Vec<i64> = (0..=params.d)
        .map(|s| tables.g.get_i64(s, params.p_max))
        .collect();
    Ok(json!({"runs": runs, "rows": rows, "g_pmax": g_pmax}))
}

/// Lookups into the heuristics' rows.
struct Rows(Vec<Row>);

impl Rows {
    fn get(&self, cf: usize, name: &str) -> Option<&Evaluation> {
        self.0
            .iter()
            .find(|x| x.cf == cf && x.eval.policy == name)
            .map(|x| &x.eval)
    }

    fn stat(&self, cf: usize, name: &str, f: impl Fn(&Evaluation) -> f64) -> f64 {
        self.get(cf, name).map_or(f64::NAN, f)
    }

    fn cost(&self, cf: usize, name: &str) -> f64 {
        self.stat(cf, name, |e| e.mean_cost)
    }

    fn deployments(&self, cf: usize, name: &str) -> f64 {
        self.stat(cf, name, |e| e.mean_deployments)
    }

    fn late(&self, cf: usize, name: &str) -> f64 {
        self.stat(cf, name, |e| e.deadline_miss_rate)
    }

    /// Mean servers after the decision at `s`, averaged over the cost-aware heuristics.
    fn cost_aware_servers(&self, cf: usize, s: usize) -> f64 {
        COST_AWARE
            .iter()
            .map(|n| {
                self.stat(cf, n, |e| {
                    e.servers_mean.get(s - 1).copied().unwrap_or(f64::NAN)
                })
            })
            .sum::<f64>()
            / COST_AWARE.len() as f64
    }

    /// Mean of [`Rows::cost_aware_servers`] over `lo..=hi`.
    fn window(&self, cf: usize, lo: usize, hi: usize) -> f64 {
        (lo..=hi)
            .map(|s| self.cost_aware_servers(cf, s))
            .sum::<f64>()
            / (hi + 1 - lo) as f64
    }

    /// Savings `1 - C(h) / C(base)` in % of each cost-aware heuristic: (smallest, largest).
    fn savings(&self, cf: usize, base: &str) -> (f64, f64) {
        let b = self.cost(cf, base);
        let s: Vec<f64> = COST_AWARE
            .iter()
            .map(|n| 100.0 * (1.0 - self.cost(cf, n) / b))
            .collect();
        (
            s.iter().copied().fold(f64::INFINITY, f64::min),
            s.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        )
    }
}

/// A directional claim that carries `why` as its reason when it does not hold.
fn claim(id: &str, what: &str, holds: bool, detail: String, why: &str) -> Check {
    Check::claim(id, what, holds, detail).with_reason_if_differs(why)
}

/// `"CF1: a; CF2: b; ..."`.
fn per_cf(f: impl Fn(usize) -> String) -> String {
    (1..=5)
        .map(|cf| format!("CF{cf}: {}", f(cf)))
        .collect::<Vec<_>>()
        .join("; ")
}

/// Adds the heuristics' tables, figures and checks.
pub(super) fn assemble(r: &Value, rep: &mut Report) -> Result<(), ExperimentError> {
    let rows = Rows(field(r, "rows", "e4-heuristics")?);
    let g_pmax: Vec<i64> = field(r, "g_pmax", "e4-heuristics")?;
    summary_tables(&rows, rep);
    figures(&rows, &g_pmax, rep);
    cost_checks(&rows, rep);
    deployment_and_late_checks(&rows, rep);
    shape_checks(&rows, rep);
    Ok(())
}

fn summary_tables(rows: &Rows, rep: &mut Report) {
    let mut t = Table::new(
        "fig-5-15-16",
        "Figs 5.5, 5.15, 5.16: late-run %, mean total cost (95 % CI), deployments (95 % CI)",
        &[
            "CF",
            "policy",
            "mean cost",
            "cost CI95",
            "late runs %",
            "single-miss share",
            "deployments",
            "deployments CI95",
            "servers added",
        ],
    );
    for x in &rows.0 {
        let e = &x.eval;
        t.push(vec![
            CostShape::all()[x.cf - 1].label().into(),
            e.policy.clone().into(),
            e.mean_cost.into(),
            e.mean_cost_ci95.into(),
            (100.0 * e.deadline_miss_rate).into(),
            e.single_miss_fraction.into(),
            e.mean_deployments.into(),
            e.mean_deployments_ci95.into(),
            e.mean_servers_added.into(),
        ]);
    }
    rep.tables.push(t);
    let mut t = Table::new(
        "savings",
        "Savings of H3-H5 (%): thesis about 15-40 % against H1/H2, 40-60 % against static 4, about 20 % against H1/H2 at uniform cost",
        &["CF", "C(H3)", "C(H4)", "C(H5)", "spread H3-H5 %", "vs H1 %", "vs H2 %", "vs static-4 %"],
    );
    for cf in 1..=5 {
        let c: Vec<f64> = COST_AWARE.iter().map(|n| rows.cost(cf, n)).collect();
        let lo = c.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = c.iter().copied().fold(0.0, f64::max);
        let range = |b: &str| {
            let (a, z) = rows.savings(cf, b);
            format!("{a:.1}-{z:.1}")
        };
        t.push(vec![
            CostShape::all()[cf - 1].label().into(),
            c[0].into(),
            c[1].into(),
            c[2].into(),
            (100.0 * (hi / lo - 1.0)).into(),
            range("H1").into(),
            range("H2").into(),
            range("static-4").into(),
        ]);
    }
    rep.tables.push(t);
    // thesis §5.4.1: mean n_85 under CF2 (driven by g_84 = 9 -> g_85 = 3, which the stated
    // model cannot produce: by our computation g_s(p_max) = 0 from s = 80)
    let mut t = Table::new(
        "cf2-n85",
        "CF2: mean n_85 (sd), thesis beside ours, and our late peak of servers (under the model of Sung 2006, Sec. 4.2.3, g_s(p_max) = 0 from s = 80, so the thesis's s = 85 peak of Sec. 5.4.1 moves to s = 77-80)",
        &["policy", "n_85 ours", "sd ours", "n_85 thesis", "sd thesis", "late server peak s (ours)", "its mean servers"],
    );
    for (name, m, sd) in CF2_N85 {
        if let Some(e) = rows.get(2, name) {
            let late = (71..84)
                .max_by(|&a, &b| e.servers_mean[a].total_cmp(&e.servers_mean[b]))
                .unwrap_or(0);
            t.push(vec![
                name.into(),
                e.jobs_mean.get(84).copied().unwrap_or(f64::NAN).into(),
                e.jobs_sd.get(84).copied().unwrap_or(f64::NAN).into(),
                m.into(),
                sd.into(),
                (late + 1).into(),
                e.servers_mean.get(late).copied().unwrap_or(f64::NAN).into(),
            ]);
        }
    }
    rep.tables.push(t);
}

fn figures(rows: &Rows, g_pmax: &[i64], rep: &mut Report) {
    let categories: Vec<String> = CostShape::all()
        .iter()
        .map(|s| s.label().to_string())
        .collect();
    let bars = |id: &str, title: &str, y: &str, names: &[&str], f: &dyn Fn(&Evaluation) -> f64| {
        let mut fig = Figure::new(id, title, "cost function", y, FigureKind::Bar);
        fig.categories = categories.clone();
        for name in names {
            let pts = (1..=5)
                .filter_map(|cf| rows.get(cf, name).map(|e| ((cf - 1) as f64, f(e))))
                .collect();
            fig.series.push(Series::ours(*name, pts));
        }
        fig
    };
    let all = ["H1", "H2", "H3", "H4", "H5", "static-4"];
    rep.figures.push(bars(
        "fig-5-5",
        "Fig. 5.5: runs with a late job (%)",
        "%",
        &all[..5],
        &|e| 100.0 * e.deadline_miss_rate,
    ));
    rep.figures.push(bars(
        "fig-5-15",
        "Fig. 5.15: mean total cost",
        "cost",
        &all,
        &|e| e.mean_cost,
    ));
    rep.figures.push(bars(
        "fig-5-16",
        "Fig. 5.16: mean deployments",
        "deployments",
        &all[..5],
        &|e| e.mean_deployments,
    ));
    let trajectory = |v: &[f64]| -> Vec<(f64, f64)> {
        v.iter()
            .enumerate()
            .map(|(i, &x)| ((i + 1) as f64, x))
            .collect()
    };
    for (cf, shape) in CostShape::all()
        .into_iter()
        .enumerate()
        .map(|(i, s)| (i + 1, s))
    {
        let mut fs = Figure::new(
            format!("fig-servers-cf{cf}"),
            format!(
                "Figs 5.6-5.11: mean servers after the decision, {}",
                shape.label()
            ),
            "decision point s",
            "servers",
            FigureKind::Line,
        );
        let mut fj = Figure::new(
            format!("fig-jobs-cf{cf}"),
            format!(
                "Figs 5.12-5.14: mean jobs n_s with g_s(p_max), {}",
                shape.label()
            ),
            "decision point s",
            "jobs",
            FigureKind::Line,
        );
        for name in &all[..5] {
            if let Some(e) = rows.get(cf, name) {
                fs.series
                    .push(Series::ours(*name, trajectory(&e.servers_mean)));
                fj.series
                    .push(Series::ours(*name, trajectory(&e.jobs_mean)));
            }
        }
        let g: Vec<(f64, f64)> = g_pmax
            .iter()
            .enumerate()
            .map(|(s, &v)| (s as f64, v as f64))
            .collect();
        fj.series.push(Series::ours("g_s(p_max)", g));
        rep.figures.push(fs);
        rep.figures.push(fj);
    }
}

fn cost_checks(rows: &Rows, rep: &mut Report) {
    let spread: Vec<f64> = (1..=5)
        .map(|cf| {
            let c: Vec<f64> = COST_AWARE.iter().map(|n| rows.cost(cf, n)).collect();
            let lo = c.iter().copied().fold(f64::INFINITY, f64::min);
            100.0 * (c.iter().copied().fold(0.0, f64::max) / lo - 1.0)
        })
        .collect();
    rep.checks.push(Check::claim(
        "e4-h345-equal",
        "C(H3) ≈ C(H4) ≈ C(H5): spread within 5 % on every CF",
        spread.iter().all(|&x| x <= 5.0),
        per_cf(|cf| format!("{:.1} %", spread[cf - 1])),
    ));
    let in_range = |(a, z): (f64, f64), lo: f64, hi: f64| a >= lo - ABOUT_PP && z <= hi + ABOUT_PP;
    let fmt = |(a, z): (f64, f64)| format!("{a:.1}-{z:.1} %");
    for (id, base, lo, hi) in [
        ("e4-save-h1", "H1", 15.0, 40.0),
        ("e4-save-h2", "H2", 15.0, 40.0),
        ("e4-save-static", "static-4", 40.0, 60.0),
    ] {
        rep.checks.push(Check::claim(
            id,
            format!("H3-H5 save about {lo}-{hi} % against {base} on every CF (±{ABOUT_PP} pp)"),
            (1..=5).all(|cf| in_range(rows.savings(cf, base), lo, hi)),
            per_cf(|cf| fmt(rows.savings(cf, base))),
        ));
    }
    let uni = [rows.savings(1, "H1"), rows.savings(1, "H2")];
    rep.checks.push(Check::claim(
        "e4-save-uniform",
        "about 20 % saving against H1/H2 at uniform cost (15-25 %)",
        uni.iter().all(|&(a, z)| a >= 15.0 && z <= 25.0),
        format!("vs H1 {}, vs H2 {}", fmt(uni[0]), fmt(uni[1])),
    ));
}

fn deployment_and_late_checks(rows: &Rows, rep: &mut Report) {
    let dep = |cf: usize, n: &str| rows.deployments(cf, n);
    rep.checks.push(Check::claim(
        "e4-dep-h5",
        "H5 deploys more often than H3 and H4 (no removal cost M*) on every CF",
        (1..=5).all(|cf| dep(cf, "H5") > dep(cf, "H3").max(dep(cf, "H4"))),
        per_cf(|cf| {
            format!(
                "H3 {:.2} H4 {:.2} H5 {:.2}",
                dep(cf, "H3"),
                dep(cf, "H4"),
                dep(cf, "H5")
            )
        }),
    ));
    rep.checks.push(claim(
        "e4-dep-h34-rare",
        "H3 and H4 change the number of servers rarely: no more deployments than H1 on every CF",
        (1..=5).all(|cf| dep(cf, "H3").max(dep(cf, "H4")) <= dep(cf, "H1")),
        per_cf(|cf| {
            format!(
                "H1 {:.2} H3 {:.2} H4 {:.2}",
                dep(cf, "H1"),
                dep(cf, "H3"),
                dep(cf, "H4")
            )
        }),
        "with r2 = 30 s the removal cost M* = (p - q) ∫_s^{s+r2} c is 1/30 of an interval's cost per server, too small to outweigh keeping a server one more interval, so the recursion follows the load every few intervals (Sung 2006, §4.3.2); this mechanism is argued from the parameters, not measured",
    ));
    rep.checks.push(Check::claim(
        "e4-dep-h2",
        "H2 deploys less often than H1",
        dep(1, "H2") < dep(1, "H1"),
        format!(
            "H1 {:.2}, H2 {:.2} (cost-independent)",
            dep(1, "H1"),
            dep(1, "H2")
        ),
    ));
    rep.checks.push(claim(
        "e4-dep-cf5",
        "CF5 has the most deployments for each cost-aware heuristic",
        COST_AWARE
            .iter()
            .all(|n| (1..=4).all(|cf| dep(5, n) >= dep(cf, n))),
        COST_AWARE
            .iter()
            .map(|n| {
                format!(
                    "{n}: {}",
                    (1..=5)
                        .map(|cf| format!("{:.2}", dep(cf, n)))
                        .collect::<Vec<_>>()
                        .join(" ")
                )
            })
            .collect::<Vec<_>>()
            .join("; "),
        "under uniform cost (CF1) the recursion is nearly indifferent between server counts (only M* and the penalty separate them) and switches as often as under CF5 (Sung 2006, §4.3.2; argued from the model, not measured)",
    ));
    let h12 = (1..=5)
        .map(|cf| rows.late(cf, "H1").max(rows.late(cf, "H2")))
        .fold(0.0, f64::max);
    rep.checks.push(Check::claim(
        "e4-h12-no-miss",
        "no job misses the deadline under H1 or H2 (thesis §5.4.1)",
        h12 == 0.0,
        format!("largest late-run rate {h12:.4}"),
    ));
    let late: Vec<f64> = (1..=5)
        .map(|cf| COST_AWARE.iter().map(|n| rows.late(cf, n)).sum::<f64>() / 3.0)
        .collect();
    let mut order: Vec<usize> = (0..5).collect();
    order.sort_by(|&a, &b| late[b].total_cmp(&late[a]));
    let top2 = [order[0] + 1, order[1] + 1];
    let runs: usize = rows
        .0
        .iter()
        .filter(|x| COST_AWARE.contains(&x.eval.policy.as_str()))
        .map(|x| x.eval.runs)
        .sum();
    let no_late = if late.iter().all(|&x| x == 0.0) {
        format!("none of the {runs} runs of H3-H5 has a late job, so neither the ranking of CFs nor the share of single misses (Sung 2006, §5.4.1) can be measured; why the thesis's runs miss and ours do not is not measured (our g_s(p_max) is 0 near the deadline, the thesis's is not, see e2-g84)")
    } else {
        format!(
            "late-run rates of H3-H5 per CF: {}; over {runs} runs; cause not known",
            per_cf(|cf| format!("{:.2} %", 100.0 * late[cf - 1]))
        )
    };
    rep.checks.push(claim(
        "e4-late-cf35",
        "the late-run rate of H3-H5 is highest under CF3 and CF5 (cost falling at the end)",
        top2.contains(&3) && top2.contains(&5) && late[top2[1] - 1] > 0.0,
        per_cf(|cf| format!("{:.2} %", 100.0 * late[cf - 1])),
        &no_late,
    ));
    rep.checks.push(Check::claim(
        "e4-late-small",
        "the late-run rate of H3-H5 is small (< 5 % on every CF)",
        late.iter().all(|&x| x < 0.05),
        per_cf(|cf| format!("{:.2} %", 100.0 * late[cf - 1])),
    ));
    // pooled over the cost-aware cells: late runs with exactly one late job
    let (mut single, mut failing) = (0.0, 0.0);
    for x in rows
        .0
        .iter()
        .filter(|x| COST_AWARE.contains(&x.eval.policy.as_str()))
    {
        let f = x.eval.deadline_miss_rate * x.eval.runs as f64;
        failing += f;
        single += f * x.eval.single_miss_fraction;
    }
    rep.checks.push(claim(
        "e4-single-miss",
        "most failing runs of H3-H5 miss only one job",
        failing > 0.0 && single / failing > 0.5,
        format!("{single:.0} of {failing:.0} failing runs miss one job"),
        &no_late,
    ));
    for (id, names) in [
        ("e4-ci-h12", &["H1", "H2"][..]),
        ("e4-ci-h345", &COST_AWARE[..]),
    ] {
        let cells: Vec<_> = rows
            .0
            .iter()
            .filter(|x| names.contains(&x.eval.policy.as_str()))
            .collect();
        let ci = cells
            .iter()
            .flat_map(|x| x.eval.servers_ci95.iter().copied())
            .fold(0.0, f64::max);
        let runs = cells.iter().map(|x| x.eval.runs).min().unwrap_or(0);
        let why = format!(
            "the half-width is 1.96 sd / sqrt(runs) over {runs} runs per cell (the thesis's runs are not stated, Sung 2006, §5.4.1): the largest {ci:.3} implies a server-count sd of {:.2} at that decision point",
            ci * (runs as f64).sqrt() / 1.96
        );
        let c = Check::numeric(
            id,
            format!(
                "largest 95 % CI half-width of mean servers per decision point, {} (thesis: < 0.1)",
                names.join("/")
            ),
            ci,
            Some(0.0),
            0.1,
        );
        rep.checks.push(c.with_reason_if_differs(why));
    }
}

/// The server-trajectory shapes that thesis §5.4.1 describes for Figs 5.6-5.11 (items 9-14 of
/// the check texts), on mean servers after the decision.
fn shape_checks(rows: &Rows, rep: &mut Report) {
    let h1 = |cf: usize| {
        rows.get(cf, "H1")
            .map(|e| e.servers_mean.clone())
            .unwrap_or_default()
    };
    let same = (2..=5).all(|cf| h1(cf) == h1(1));
    let t = h1(1);
    let at = |s: usize| t.get(s - 1).copied().unwrap_or(f64::NAN);
    // up to s = 79: from s = 80 every g is 0 (our computation from the stated model; the
    // thesis's g_85(p_max) = 3 of §5.4.1 is not reproducible) and one job left means p_max
    let declining = (30..79).all(|s| at(s + 1) <= at(s) + 0.05);
    rep.checks.push(Check::claim(
        "e4-shape-h12",
        "H1/H2 deploy enough servers at the start, then reduce gradually, whatever the CF (item 9, Fig. 5.6)",
        same && at(1) >= 3.9 && declining && at(85) < 1.5,
        format!("H1 identical across CFs: {same}; mean servers s = 1: {:.2}, 30: {:.2}, 60: {:.2}, 79: {:.2}, 80: {:.2} (g = 0 from s = 80), 85: {:.2}", at(1), at(30), at(60), at(79), at(80), at(85)),
    ).explain(|_| {
        let bumps: Vec<String> = (30..79)
            .filter(|&s| at(s + 1) > at(s) + 0.05)
            .map(|s| format!("s = {s} -> {}: {:.2} -> {:.2}", s + 1, at(s), at(s + 1)))
            .collect();
        format!("mean servers of H1/H2 rise by more than the 0.05 slack at {} steps ({}); H1/H2 size from the Monte Carlo g_s(p) below u (Sung 2006, §4.2), whose noise at this scale's run count is not separated from the trend here", bumps.len(), bumps.join(", "))
    }));
    let curve = |cf: usize| {
        (1..=91)
            .map(|s| rows.cost_aware_servers(cf, s))
            .collect::<Vec<_>>()
    };
    let peak = |cf: usize, lo: usize, hi: usize| {
        let c = curve(cf);
        (lo..=hi)
            .max_by(|&a, &b| c[a - 1].total_cmp(&c[b - 1]))
            .unwrap_or(lo)
    };
    let w = |cf, lo, hi| rows.window(cf, lo, hi);
    let p2 = peak(2, 1, 91);
    rep.checks.push(Check::claim(
        "e4-shape-cf2",
        "CF2 (increasing): H3-H5 peak near s = 35, then decline towards p_min (item 11)",
        (25..=45).contains(&p2) && w(2, 70, 76) < 0.6 * w(2, p2, p2),
        format!("peak at s = {p2} ({:.2} servers); mean s = 70..76: {:.2}; late peak of n_s: table cf2-n85", w(2, p2, p2), w(2, 70, 76)),
    ));
    let late_peak = peak(2, 72, 84);
    rep.checks.push(Check::claim(
        "e4-shape-cf2-late",
        "CF2: a small late peak of servers where g_s(p_max) drops (thesis: s = 85, from its g_84 = 9 -> g_85 = 3; the stated model of Sung 2006, Sec. 4.2.3 gives s = 77-80)",
        (76..=81).contains(&late_peak) && w(2, late_peak, late_peak) > w(2, 70, 72) && w(2, late_peak, late_peak) > w(2, 84, 84),
        format!("late peak at s = {late_peak} ({:.2} servers; s = 70..72: {:.2}, s = 84: {:.2})", w(2, late_peak, late_peak), w(2, 70, 72), w(2, 84, 84)),
    ));
    rep.checks.push(Check::claim(
        "e4-shape-cf3",
        "CF3 (decreasing): few servers until about s = 34, then rising to p_max by about s = 68 (item 12)",
        w(3, 1, 30) < w(3, 55, 70) && w(3, 64, 72) >= 4.0,
        format!("mean servers s = 1..30: {:.2}, 55..70: {:.2}, 64..72: {:.2}", w(3, 1, 30), w(3, 55, 70), w(3, 64, 72)),
    ));
    rep.checks.push(Check::claim(
        "e4-shape-cf4",
        "CF4 (cheap middle): more servers in the middle than at the start and near the deadline (item 13)",
        w(4, 30, 60) > w(4, 1, 15) && w(4, 30, 60) > w(4, 75, 91),
        format!("mean servers s = 1..15: {:.2}, 30..60: {:.2}, 75..91: {:.2}", w(4, 1, 15), w(4, 30, 60), w(4, 75, 91)),
    ));
    rep.checks.push(Check::claim(
        "e4-shape-cf5",
        "CF5 (expensive middle): many servers until about s = 36, fewer in the middle, a sharp rise after s = 61 (item 14)",
        w(5, 1, 30) > w(5, 40, 55) && w(5, 62, 75) > w(5, 45, 58),
        format!("mean servers s = 1..30: {:.2}, 40..55: {:.2}, 45..58: {:.2}, 62..75: {:.2}", w(5, 1, 30), w(5, 40, 55), w(5, 45, 58), w(5, 62, 75)),
    ));
}
