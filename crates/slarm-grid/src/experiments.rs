//! Experiments E2–E8 of spec §3 for `slarm reproduce yigitbasi2010`: Fig. 3/4 policy
//! comparisons, Table III (C_d, C_s), Table IV (CPU-hours), Table VI (feedback controller)
//! and the load sweep, with the published values beside ours and the §4 orderings as claims.
//!
//! Every strategy of one seed runs on the same workload (the paper reruns "the same
//! workload"): the workload streams are keyed by seed, load, size and background only.

use serde::{Deserialize, Serialize};
use slarm_report::{
    Cell, CellOutput, CellSpec, Check, Experiment, ExperimentError, Figure, FigureKind,
    PaperReport, RunConfig, Scale, Series, Table,
};

use crate::metrics::{
    bots_meeting, ecdf, improvement_pct_truncated, reduction_pct_truncated, BoxStats,
};
use crate::provision::StrategyKind;
use crate::run::{run_scenario_with, BackgroundSpec, Scenario, ScenarioResult};
use crate::sched::PolicyKind;
use crate::workload::SyntheticBackground;

const PAPER: &str = "yigitbasi2010";

/// The κ values of Tables III and IV (beyond NO).
pub const KAPPAS: [f64; 4] = [1.5, 2.0, 2.5, 3.0];

/// Strategies of Table III in the paper's row order.
pub const TABLE3_STRATEGIES: [StrategyKind; 4] = [
    StrategyKind::All,
    StrategyKind::Largest,
    StrategyKind::Number,
    StrategyKind::Dynamic,
];

/// Table III as published: (C_d, C_s) per strategy row and κ = 1, 1.5, 2, 2.5, 3.
pub const TABLE3_PUBLISHED: [[(f64, f64); 5]; 4] = [
    [
        (29.59, 12.05),
        (15.13, 10.54),
        (4.72, 9.33),
        (2.64, 7.36),
        (2.62, 5.38),
    ],
    [
        (29.59, 12.05),
        (16.88, 11.57),
        (3.67, 9.27),
        (2.63, 7.38),
        (2.63, 5.58),
    ],
    [
        (29.59, 12.05),
        (17.71, 10.61),
        (3.75, 9.12),
        (2.70, 6.90),
        (2.42, 5.67),
    ],
    [
        (29.59, 12.05),
        (14.65, 10.27),
        (3.50, 8.64),
        (2.42, 6.36),
        (2.10, 4.60),
    ],
];

/// Table IV as published: (κ, All, Dynamic, reduction %).
pub const TABLE4_PUBLISHED: [(f64, f64, f64, f64); 4] = [
    (1.5, 56655.0, 32446.0, 42.7),
    (2.0, 75540.0, 49427.0, 34.5),
    (2.5, 94425.0, 69572.0, 26.3),
    (3.0, 113310.0, 85484.0, 24.5),
];

/// Table VI as published: (release min, target min, without, with, improvement %).
pub const TABLE6_PUBLISHED: [(f64, f64, usize, usize, i64); 3] = [
    (250.0, 300.0, 4732, 26849, 67),
    (700.0, 750.0, 5900, 21870, 48),
    (1000.0, 1250.0, 6959, 20219, 40),
];

/// Total BoTs of the §VII workload.
pub const TABLE6_BOTS: usize = 32_860;

/// Runtime cap of the experiments' BoT tasks, seconds (spec A9 option, reported).
pub const EXPERIMENT_RUNTIME_CAP_S: f64 = 1.0e5;

/// The synthetic background of the experiments: 30 % per cluster, 8-processor jobs, 1 h mean.
pub fn experiment_background() -> SyntheticBackground {
    SyntheticBackground {
        utilisation: 0.30,
        mean_runtime_s: 3600.0,
        procs: 8,
    }
}

/// Offered load of the §VII controller workload (no background): 80 % as the spec
/// recommends (A22). Our initial system then meets the targets far more often than the
/// paper's (mean makespan ≈3120 min), so Table VI differs; see docs/decisions.md
/// [slarm-grid] experiment calibration.
pub const CONTROLLER_LOAD: f64 = 0.8;

/// The experiment of `slarm reproduce yigitbasi2010`.
#[derive(Debug, Clone, Copy, Default)]
pub struct Yigitbasi2010;

/// Sizes of one run of the experiment.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Plan {
    /// Seeds of Tables III/IV and VI.
    pub seeds: usize,
    /// BoTs of the §VI workloads.
    pub bots: usize,
    /// BoTs of the §VII controller workload.
    pub controller_bots: usize,
    /// Load levels of the E8 sweep.
    pub sweep_loads: &'static [f64],
}

impl Plan {
    /// The plan of a scale.
    pub fn of(scale: Scale) -> Self {
        match scale {
            Scale::Quick => Self {
                seeds: 1,
                bots: 1650,
                controller_bots: 6000,
                sweep_loads: &[0.4, 0.8],
            },
            Scale::Paper => Self {
                seeds: 5,
                bots: 1650,
                controller_bots: TABLE6_BOTS,
                sweep_loads: &[0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0],
            },
        }
    }
}

/// One cell's parameters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CellParams {
    /// Experiment id: `e2`, `e3`, `t3`, `t6`, `e8`.
    pub exp: String,
    /// Strategy.
    pub strategy: StrategyKind,
    /// κ.
    pub kappa: f64,
    /// Policy.
    pub policy: PolicyKind,
    /// Load.
    pub load: f64,
    /// Seed index.
    pub seed: usize,
    /// BoTs.
    pub bots: usize,
    /// Background on.
    pub background: bool,
    /// Controller (target, release) in minutes, if any.
    pub controller_min: Option<(f64, f64)>,
}

/// What a cell returns.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CellResult {
    /// C_d (all size groups).
    pub c_d: f64,
    /// C_s (all size groups).
    pub c_s: f64,
    /// C_d over groups of ≥ 5 BoTs.
    pub c_d_min5: Option<f64>,
    /// C_s over groups of ≥ 5 BoTs.
    pub c_s_min5: Option<f64>,
    /// CPU-hours (default cost model).
    pub cpu_hours: f64,
    /// NSL box statistics.
    pub nsl: BoxStats,
    /// Mean makespan, seconds.
    pub mean_makespan_s: f64,
    /// p90 makespan, seconds.
    pub p90_makespan_s: f64,
    /// Time-averaged κ.
    pub kappa_time_avg: f64,
    /// Predictor accuracy (meaningful for ECT).
    pub predictor_accuracy: f64,
    /// BoTs.
    pub bots: usize,
    /// Tasks.
    pub tasks: usize,
    /// Largest task runtime.
    pub max_runtime_s: f64,
    /// NSL CDF points (E2 only).
    pub nsl_cdf: Vec<(f64, f64)>,
    /// κ(t) points in days (E7 only).
    pub kappa_series: Vec<(f64, f64)>,
    /// BoTs under each Table VI target (E7 only), in Table VI order.
    pub meeting: Vec<usize>,
}

fn scenario(p: &CellParams) -> Scenario {
    let mut sc = Scenario::paper(p.strategy, p.kappa);
    // Calibration of the experiments (docs/decisions.md: [slarm-grid] experiment calibration):
    // uncapped σ = 6.1 runtimes leave the grid uncongested (one task can hold half of the
    // work), so the spec A9 cap is switched on, and the synthetic background is bursty
    // (8-processor jobs, 30 % per cluster) to stand in for the DAS-3 June 2008 trace.
    sc.model.max_runtime_s = Some(EXPERIMENT_RUNTIME_CAP_S);
    sc.background = BackgroundSpec::Synthetic(experiment_background());
    sc.policy = p.policy;
    sc.load = p.load;
    sc.n_bots = p.bots;
    if !p.background {
        sc.background = BackgroundSpec::None;
    }
    if let Some((t, r)) = p.controller_min {
        sc.feedback_s = (t * 60.0, r * 60.0);
    }
    sc
}

fn kappa_tag(k: f64) -> String {
    format!("k{:02}", (k * 10.0).round() as u32)
}

fn cell(id: String, p: CellParams) -> CellSpec {
    CellSpec::new(
        id,
        serde_json::to_value(&p).unwrap_or(serde_json::Value::Null),
    )
}

fn policy_tag(p: PolicyKind) -> &'static str {
    match p {
        PolicyKind::Static => "static",
        PolicyKind::DynPerTask => "dyn-per-task",
        PolicyKind::DynPerBot => "dyn-per-bot",
        PolicyKind::Ect => "ect",
    }
}

fn strategy_tag(s: StrategyKind) -> &'static str {
    match s {
        StrategyKind::None => "none",
        StrategyKind::All => "all",
        StrategyKind::Largest => "largest",
        StrategyKind::Number => "number",
        StrategyKind::Dynamic => "dynamic",
        StrategyKind::Feedback => "feedback",
    }
}

/// The cells of a plan, in a stable order.
pub fn plan_cells(plan: &Plan) -> Vec<CellSpec> {
    let base = |exp: &str, strategy, kappa, seed| CellParams {
        exp: exp.into(),
        strategy,
        kappa,
        policy: PolicyKind::DynPerTask,
        load: 0.8,
        seed,
        bots: plan.bots,
        background: true,
        controller_min: None,
    };
    let mut cells = Vec::new();
    for policy in PolicyKind::ALL {
        let mut p = base("e2", StrategyKind::None, 1.0, 0);
        p.policy = policy;
        cells.push(cell(format!("e2-{}", policy_tag(policy)), p));
    }
    for policy in PolicyKind::ALL {
        let mut p = base("e3", StrategyKind::All, 2.0, 0);
        p.policy = policy;
        cells.push(cell(format!("e3-{}", policy_tag(policy)), p));
    }
    for seed in 0..plan.seeds {
        cells.push(cell(
            format!("t3-none-k10-s{seed}"),
            base("t3", StrategyKind::None, 1.0, seed),
        ));
        for k in KAPPAS {
            for s in TABLE3_STRATEGIES {
                cells.push(cell(
                    format!("t3-{}-{}-s{seed}", strategy_tag(s), kappa_tag(k)),
                    base("t3", s, k, seed),
                ));
            }
        }
    }
    for seed in 0..plan.seeds {
        let mut p = base("t6", StrategyKind::None, 1.0, seed);
        p.bots = plan.controller_bots;
        p.background = false;
        p.load = CONTROLLER_LOAD;
        cells.push(cell(format!("t6-none-s{seed}"), p.clone()));
        for (i, &(rel, target, ..)) in TABLE6_PUBLISHED.iter().enumerate() {
            let mut q = p.clone();
            q.strategy = StrategyKind::Feedback;
            q.controller_min = Some((target, rel));
            cells.push(cell(format!("t6-feedback{i}-s{seed}"), q));
        }
    }
    for &load in plan.sweep_loads {
        let strategies = [
            StrategyKind::None,
            StrategyKind::All,
            StrategyKind::Largest,
            StrategyKind::Number,
            StrategyKind::Dynamic,
        ];
        for s in strategies {
            let k = if s == StrategyKind::None { 1.0 } else { 2.0 };
            let mut p = base("e8", s, k, 0);
            p.load = load;
            cells.push(cell(
                format!(
                    "e8-{}-l{:03}",
                    strategy_tag(s),
                    (load * 100.0).round() as u32
                ),
                p,
            ));
        }
    }
    cells
}

fn downsample(points: &[(f64, f64)], max: usize) -> Vec<(f64, f64)> {
    if points.len() <= max || max == 0 {
        return points.to_vec();
    }
    let step = points.len().div_ceil(max);
    let mut out: Vec<(f64, f64)> = points.iter().step_by(step).copied().collect();
    if let Some(&last) = points.last() {
        if out.last() != Some(&last) {
            out.push(last);
        }
    }
    out
}

/// Runs one cell's scenario (pure function of the run config and the parameters).
pub fn run_params(
    cfg: &RunConfig,
    id: &str,
    p: &CellParams,
) -> Result<CellResult, ExperimentError> {
    let sc = scenario(p);
    let wkey = format!(
        "workload-s{}-l{}-n{}-bg{}",
        p.seed, p.load, p.bots, p.background
    );
    let r: ScenarioResult =
        run_scenario_with(&sc, &cfg.streams(PAPER, &wkey), &cfg.streams(PAPER, id))
            .map_err(|e| ExperimentError::model(id, e))?;
    let min5 = r
        .consistency_min_group
        .iter()
        .find(|(m, _)| *m == 5)
        .and_then(|(_, c)| c.clone());
    let nsls: Vec<f64> = r.run.bots.iter().map(|b| b.nsl).collect();
    let is_t6 = p.exp == "t6";
    Ok(CellResult {
        c_d: r.consistency.c_d,
        c_s: r.consistency.c_s,
        c_d_min5: min5.as_ref().map(|c| c.c_d),
        c_s_min5: min5.as_ref().map(|c| c.c_s),
        cpu_hours: r.run.cpu_hours,
        nsl: r.nsl,
        mean_makespan_s: r.mean_makespan_s,
        p90_makespan_s: r.p90_makespan_s,
        kappa_time_avg: r.run.kappa_time_avg,
        predictor_accuracy: r.run.predictor_accuracy,
        bots: r.run.bots.len(),
        tasks: r.workload.tasks,
        max_runtime_s: r.workload.max_runtime_s,
        nsl_cdf: if p.exp == "e2" {
            ecdf(&nsls, 200)
        } else {
            vec![]
        },
        kappa_series: if is_t6 {
            let days: Vec<(f64, f64)> = r
                .run
                .kappa_series
                .iter()
                .map(|&(t, k)| (t / 86400.0, k))
                .collect();
            downsample(&days, 300)
        } else {
            vec![]
        },
        meeting: if is_t6 {
            TABLE6_PUBLISHED
                .iter()
                .map(|&(_, target, ..)| bots_meeting(&r.run.bots, target * 60.0))
                .collect()
        } else {
            vec![]
        },
    })
}

impl Experiment for Yigitbasi2010 {
    fn paper(&self) -> &'static str {
        PAPER
    }

    fn title(&self) -> &'static str {
        "Yigitbasi & Epema 2010: static and dynamic overprovisioning for performance consistency in grids"
    }

    fn cells(&self, cfg: &RunConfig) -> Result<Vec<CellSpec>, ExperimentError> {
        Ok(plan_cells(&Plan::of(cfg.scale)))
    }

    fn run_cell(
        &self,
        cfg: &RunConfig,
        cell: &CellSpec,
    ) -> Result<serde_json::Value, ExperimentError> {
        let p: CellParams = serde_json::from_value(cell.params.clone())
            .map_err(|e| ExperimentError::malformed(&cell.id, e))?;
        let r = run_params(cfg, &cell.id, &p)?;
        serde_json::to_value(r).map_err(|e| ExperimentError::malformed(&cell.id, e))
    }

    fn assemble(
        &self,
        cfg: &RunConfig,
        outputs: &[CellOutput],
    ) -> Result<PaperReport, ExperimentError> {
        let mut rows = Vec::with_capacity(outputs.len());
        for o in outputs {
            let p: CellParams = serde_json::from_value(o.cell.params.clone())
                .map_err(|e| ExperimentError::malformed(&o.cell.id, e))?;
            let r: CellResult = serde_json::from_value(o.result.clone())
                .map_err(|e| ExperimentError::malformed(&o.cell.id, e))?;
            rows.push((p, r));
        }
        Ok(assemble_rows(cfg, &rows))
    }
}

type Row = (CellParams, CellResult);

fn mean_of<'a>(rows: impl Iterator<Item = &'a Row>, f: impl Fn(&CellResult) -> f64) -> Option<f64> {
    let v: Vec<f64> = rows.map(|(_, r)| f(r)).collect();
    (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
}

fn t3(rows: &[Row], s: StrategyKind, k: f64) -> impl Iterator<Item = &Row> {
    rows.iter().filter(move |(p, _)| {
        p.exp == "t3"
            && ((k == 1.0 && p.strategy == StrategyKind::None)
                || (p.strategy == s && (p.kappa - k).abs() < 1e-9))
    })
}

const BG_REASON: &str = "absolute values depend on the background load: the DAS-3 June 2008 GWA trace is not available, so a labelled synthetic background is used (docs/decisions.md: [slarm-grid] synthetic background), and on the heavy-tailed runtime draw (spec A5, A9)";

/// Builds the report from typed rows (used by [`Experiment::assemble`]).
pub fn assemble_rows(cfg: &RunConfig, rows: &[Row]) -> PaperReport {
    let mut tables = Vec::new();
    let mut checks = Vec::new();
    let mut figures = Vec::new();
    let mut notes = Vec::new();
    let seeds = rows
        .iter()
        .filter(|(p, _)| p.exp == "t3")
        .map(|(p, _)| p.seed + 1)
        .max()
        .unwrap_or(0);
    let ks = [1.0, 1.5, 2.0, 2.5, 3.0];

    // ---- Table III ----
    let mut cols = vec!["Strategy".to_string()];
    for k in ks {
        cols.push(format!("k={k:.1} C_d"));
        cols.push(format!("k={k:.1} C_s"));
    }
    let colrefs: Vec<&str> = cols.iter().map(String::as_str).collect();
    let mut ours3 = Table::new(
        "table3",
        format!("Table III: consistency at 80 % load, DynPerTask (ours, mean of {seeds} seeds)"),
        &colrefs,
    );
    let mut pub3 = Table::new("table3-published", "Table III as published", &colrefs);
    // our values: [strategy][kappa] = (cd, cs)
    let mut grid3 = [[(f64::NAN, f64::NAN); 5]; 4];
    for (si, s) in TABLE3_STRATEGIES.iter().enumerate() {
        let mut row = vec![Cell::Text(s.label().into())];
        let mut prow = vec![Cell::Text(s.label().into())];
        for (ki, &k) in ks.iter().enumerate() {
            let cd = mean_of(t3(rows, *s, k), |r| r.c_d).unwrap_or(f64::NAN);
            let cs = mean_of(t3(rows, *s, k), |r| r.c_s).unwrap_or(f64::NAN);
            grid3[si][ki] = (cd, cs);
            row.push(Cell::Num(cd));
            row.push(Cell::Num(cs));
            let (pd, ps) = TABLE3_PUBLISHED[si][ki];
            prow.push(Cell::Num(pd));
            prow.push(Cell::Num(ps));
            if cd.is_finite() && (ki > 0 || si == 0) {
                checks.push(
                    Check::relative(
                        format!("table3/{}/k{k:.1}/C_d", strategy_tag(*s)),
                        format!("C_d of {} at kappa {k:.1}", s.label()),
                        cd,
                        pd,
                        0.5,
                    )
                    .with_reason(BG_REASON),
                );
                checks.push(
                    Check::relative(
                        format!("table3/{}/k{k:.1}/C_s", strategy_tag(*s)),
                        format!("C_s of {} at kappa {k:.1}", s.label()),
                        cs,
                        ps,
                        0.5,
                    )
                    .with_reason(BG_REASON),
                );
            }
        }
        ours3.push(row);
        pub3.push(prow);
    }
    // C_d / C_s over size groups with at least 5 BoTs (spec A20 sensitivity).
    let mut t3m5 = Table::new(
        "table3-min5",
        "Table III with size groups of at least 5 BoTs (ours; spec A20)",
        &colrefs,
    );
    for s in TABLE3_STRATEGIES {
        let mut row = vec![Cell::Text(s.label().into())];
        for k in ks {
            row.push(Cell::Num(
                mean_of(t3(rows, s, k), |r| r.c_d_min5.unwrap_or(f64::NAN)).unwrap_or(f64::NAN),
            ));
            row.push(Cell::Num(
                mean_of(t3(rows, s, k), |r| r.c_s_min5.unwrap_or(f64::NAN)).unwrap_or(f64::NAN),
            ));
        }
        t3m5.push(row);
    }
    tables.push(ours3);
    tables.push(pub3);
    tables.push(t3m5);
    if seeds > 0 {
        claims_table3(&grid3, &mut checks);
    }

    // ---- Table IV ----
    let mut t4 = Table::new(
        "table4",
        "Table IV: cost in CPU-hours, All vs Dynamic (ours beside published)",
        &[
            "kappa",
            "All (ours)",
            "Dynamic (ours)",
            "Reduction % (ours)",
            "All (paper)",
            "Dynamic (paper)",
            "Reduction % (paper)",
        ],
    );
    let mut reds = Vec::new();
    let mut all_costs = Vec::new();
    for &(k, pa, pd, pr) in &TABLE4_PUBLISHED {
        let a = mean_of(t3(rows, StrategyKind::All, k), |r| r.cpu_hours).unwrap_or(f64::NAN);
        let d = mean_of(t3(rows, StrategyKind::Dynamic, k), |r| r.cpu_hours).unwrap_or(f64::NAN);
        let red = reduction_pct_truncated(a, d);
        reds.push(red);
        all_costs.push((k, a, d));
        t4.push(vec![
            Cell::Num(k),
            Cell::Num(a.round()),
            Cell::Num(d.round()),
            Cell::Num(red),
            Cell::Num(pa),
            Cell::Num(pd),
            Cell::Num(pr),
        ]);
        if red.is_finite() {
            checks.push(
                Check::numeric(
                    format!("table4/k{k:.1}/reduction"),
                    format!("cost reduction of Dynamic vs All at kappa {k:.1} (%)"),
                    red,
                    Some(pr),
                    10.0,
                )
                .with_reason("the horizon T and the busy time depend on our workload span and background; the relative facts are checked as claims (spec §4.2)"),
            );
        }
    }
    tables.push(t4);
    if all_costs.iter().all(|c| c.1.is_finite() && c.2.is_finite()) && !all_costs.is_empty() {
        claims_table4(&all_costs, &reds, &mut checks);
    }
    // Static cost equality across static strategies at equal kappa (spec §4.2).
    for k in KAPPAS {
        let costs: Vec<f64> = [
            StrategyKind::All,
            StrategyKind::Largest,
            StrategyKind::Number,
        ]
        .iter()
        .filter_map(|&s| mean_of(t3(rows, s, k), |r| r.cpu_hours))
        .collect();
        if costs.len() == 3 {
            let same = costs
                .iter()
                .all(|c| (c - costs[0]).abs() <= 1e-6 * costs[0].abs());
            checks.push(Check::claim(
                format!("table4/k{k:.1}/static-equal"),
                format!("static strategies cost the same at kappa {k:.1}"),
                same,
                format!(
                    "All {:.0}, Largest {:.0}, Number {:.0}",
                    costs[0], costs[1], costs[2]
                ),
            ));
        }
    }

    // ---- Table VI ----
    table6(rows, &mut tables, &mut checks, &mut figures, &mut notes);

    // ---- Figs. 3 and 4 (E2, E3) ----
    policies(rows, &mut tables, &mut checks, &mut figures);

    // ---- Figs. 6/7: NSL box statistics per strategy and kappa ----
    let mut boxes = Table::new(
        "fig5-7-nsl-boxes",
        "Figs. 5-7: NSL box statistics per strategy and kappa (ours, seed 0)",
        &[
            "Strategy", "kappa", "min", "Q1", "median", "mean", "Q3", "max",
        ],
    );
    for (p, r) in rows.iter().filter(|(p, _)| p.exp == "t3" && p.seed == 0) {
        boxes.push(box_row(p.strategy.label(), p.kappa, &r.nsl));
    }
    tables.push(boxes);

    // ---- E8 load sweep ----
    let mut e8 = Table::new(
        "e8-load-sweep",
        "E8: load sweep at kappa 2 (NO at kappa 1), DynPerTask, synthetic background",
        &[
            "load",
            "Strategy",
            "C_d",
            "C_s",
            "CPU-hours",
            "NSL median",
            "time-avg kappa",
        ],
    );
    for (p, r) in rows.iter().filter(|(p, _)| p.exp == "e8") {
        e8.push(vec![
            Cell::Num(p.load),
            Cell::Text(p.strategy.label().into()),
            Cell::Num(r.c_d),
            Cell::Num(r.c_s),
            Cell::Num(r.cpu_hours.round()),
            Cell::Num(r.nsl.median),
            Cell::Num(r.kappa_time_avg),
        ]);
    }
    tables.push(e8);

    // Dynamic's time-averaged kappa lies in its band (spec §2.2).
    let mut in_band = true;
    let mut detail = Vec::new();
    for k in KAPPAS {
        if let Some(avg) = mean_of(t3(rows, StrategyKind::Dynamic, k), |r| r.kappa_time_avg) {
            in_band &= avg >= 0.9 * k - 1e-9 && avg <= 1.1 * k + 1e-9;
            detail.push(format!("k={k}: {avg:.3}"));
        }
    }
    if !detail.is_empty() {
        checks.push(Check::claim(
            "dynamic/kappa-band",
            "Dynamic keeps the time-averaged kappa within ±10 % of the target",
            in_band,
            detail.join(", "),
        ));
    }

    let workload_max = rows
        .iter()
        .filter(|(p, _)| p.exp == "t3")
        .map(|(_, r)| r.max_runtime_s)
        .fold(0.0, f64::max);
    notes.push(format!(
        "Workload: Iosup et al. BoT model (Table II; shape-first Weibulls, log2 runtime std dev 6.1, per-task runtimes, size max(1, round(2^X))), load-targeted to 80 % of DAS-3's 591.8 reference processors; runtimes capped at 1e5 s (spec A9 option; largest task {workload_max:.3e} s). Background: synthetic, 30 % per cluster, 8-processor jobs with exponential 1 h runtimes (the DAS-3 June 2008 GWA trace is not available). See docs/decisions.md [slarm-grid] experiment calibration. {} scale, seed {}, {seeds} seed(s) per Table III/IV/VI cell.",
        cfg.scale.name(),
        cfg.seed
    ));
    notes.push("Costs use the BusyGridPlusCloudLeases model (spec §2.4, A19): static = provisioned processors × T with T = first to last BoT arrival; Dynamic = busy grid processor-hours + ceiled cloud lease hours within T.".into());
    PaperReport {
        paper: PAPER.into(),
        title: Yigitbasi2010.title().into(),
        workload: "Iosup BoT model at 80 % load (runtimes capped at 1e5 s) on simulated DAS-3 with a synthetic background load (labelled synthetic; no GWA trace)".into(),
        tables,
        checks,
        figures,
        notes,
    }
}

fn box_row(label: &str, kappa: f64, b: &BoxStats) -> Vec<Cell> {
    vec![
        Cell::Text(label.into()),
        Cell::Num(kappa),
        Cell::Num(b.min),
        Cell::Num(b.q1),
        Cell::Num(b.median),
        Cell::Num(b.mean),
        Cell::Num(b.q3),
        Cell::Num(b.max),
    ]
}

fn claims_table3(g: &[[(f64, f64); 5]; 4], checks: &mut Vec<Check>) {
    // Dynamic lowest C_d and C_s in every column kappa >= 1.5.
    let mut lowest = true;
    let mut detail = Vec::new();
    let mut dyn_le_all = 0;
    for ki in 1..5 {
        let (dd, ds) = g[3][ki];
        let min_d = (0..3).map(|s| g[s][ki].0).fold(f64::INFINITY, f64::min);
        let min_s = (0..3).map(|s| g[s][ki].1).fold(f64::INFINITY, f64::min);
        lowest &= dd <= min_d && ds <= min_s;
        detail.push(format!(
            "k={}: Dyn {dd:.2}/{ds:.2} vs best static {min_d:.2}/{min_s:.2}",
            [1.0, 1.5, 2.0, 2.5, 3.0][ki]
        ));
        dyn_le_all += usize::from(dd <= g[0][ki].0) + usize::from(ds <= g[0][ki].1);
    }
    checks.push(Check::claim(
        "table3/dynamic-lowest",
        "Dynamic has the lowest C_d and C_s in every column (kappa 1.5-3)",
        lowest,
        detail.join("; "),
    ));
    checks.push(Check::claim(
        "table3/dynamic-le-all",
        "Dynamic <= All for at least 6 of the 8 (C_d, C_s) pairs (paper: 8 of 8)",
        dyn_le_all >= 6,
        format!("{dyn_le_all} of 8"),
    ));
    // Both metrics fall or stay flat as kappa rises (5 % slack for "flat").
    let mut mono = true;
    let mut bad = Vec::new();
    for (si, s) in TABLE3_STRATEGIES.iter().enumerate() {
        for ki in 1..5 {
            let (d0, s0) = g[si][ki - 1];
            let (d1, s1) = g[si][ki];
            if d1 > 1.05 * d0 || s1 > 1.05 * s0 {
                mono = false;
                bad.push(format!("{} {}->{}", s.label(), ki - 1, ki));
            }
        }
    }
    checks.push(Check::claim(
        "table3/monotone",
        "C_d and C_s fall or stay flat (within 5 %) as kappa rises, for every strategy",
        mono,
        if bad.is_empty() {
            "holds for all 16 steps".to_string()
        } else {
            format!("rises at {}", bad.join(", "))
        },
    ));
    // Knee near 2.5.
    let big_gain = g[0][0].0 / g[0][3].0;
    checks.push(Check::claim(
        "table3/knee-gain",
        "C_d(NO) / C_d(All, kappa 2.5) >= 5 (paper 11.2)",
        big_gain >= 5.0,
        format!("{big_gain:.2}"),
    ));
    let flat = g[0][3].0 / g[0][4].0;
    checks.push(Check::claim(
        "table3/knee-flat",
        "C_d(All, 2.5) / C_d(All, 3.0) <= 1.15: little gain beyond the critical value (paper 1.008)",
        flat <= 1.15,
        format!("{flat:.3}"),
    ));
}

fn claims_table4(costs: &[(f64, f64, f64)], reds: &[f64], checks: &mut Vec<Check>) {
    let per_k: Vec<f64> = costs.iter().map(|c| c.1 / c.0).collect();
    let linear = per_k
        .iter()
        .all(|x| (x - per_k[0]).abs() <= 1e-9 * per_k[0].abs());
    checks.push(Check::claim(
        "table4/static-linear",
        "static (All) cost is exactly linear in kappa (paper: 37 770 kappa)",
        linear,
        format!("All/kappa = {:.1}", per_k[0]),
    ));
    let cheaper = costs.iter().all(|c| c.2 < c.1);
    checks.push(Check::claim(
        "table4/dynamic-cheaper",
        "Dynamic costs less than All at every kappa",
        cheaper,
        reds.iter()
            .map(|r| format!("{r:.1} %"))
            .collect::<Vec<_>>()
            .join(", "),
    ));
    let in_paper_range = reds.iter().all(|&r| (24.0..=43.0).contains(&r));
    let in_accept_range = reds.iter().all(|&r| (15.0..=55.0).contains(&r));
    checks.push(
        Check::claim(
            "table4/reduction-range",
            "Dynamic is 24-43 % cheaper than All (acceptance: within 15-55 %, spec §4.2)",
            in_accept_range,
            format!(
                "reductions {:?}; inside the paper's 24-43 %: {in_paper_range}",
                reds
            ),
        )
        .with_reason("the absolute reduction depends on the horizon T and on how much BoT and background work the grid carries; see [slarm-grid] cost model in docs/decisions.md"),
    );
    let falls = reds.windows(2).all(|w| w[1] <= w[0]);
    checks.push(Check::claim(
        "table4/reduction-falls",
        "the cost reduction falls as kappa rises",
        falls,
        format!("{reds:?}"),
    ));
}

fn table6(
    rows: &[Row],
    tables: &mut Vec<Table>,
    checks: &mut Vec<Check>,
    figures: &mut Vec<Figure>,
    notes: &mut Vec<String>,
) {
    let t6: Vec<&Row> = rows.iter().filter(|(p, _)| p.exp == "t6").collect();
    if t6.is_empty() {
        return;
    }
    let total = t6
        .iter()
        .find(|(p, _)| p.strategy == StrategyKind::None)
        .map_or(0, |(_, r)| r.bots);
    let mut t = Table::new(
        "table6",
        format!("Table VI: BoTs with makespan < TargetMakespan out of {total} (ours, mean over seeds) beside 32 860 (paper)"),
        &[
            "[Release-Target]",
            "w/o Controller (ours)",
            "w Controller (ours)",
            "Improvement % (ours)",
            "time-avg kappa (ours)",
            "w/o (paper)",
            "w (paper)",
            "Improvement % (paper)",
        ],
    );
    let mut wo_list = Vec::new();
    let mut w_list = Vec::new();
    let mut imp_list = Vec::new();
    for (i, &(rel, target, pwo, pw, pimp)) in TABLE6_PUBLISHED.iter().enumerate() {
        let wo = mean_of(
            t6.iter()
                .copied()
                .filter(|(p, _)| p.strategy == StrategyKind::None),
            |r| r.meeting.get(i).copied().unwrap_or(0) as f64,
        )
        .unwrap_or(0.0);
        let ctl = |p: &CellParams| p.controller_min == Some((target, rel));
        let w = mean_of(t6.iter().copied().filter(|(p, _)| ctl(p)), |r| {
            r.meeting.get(i).copied().unwrap_or(0) as f64
        })
        .unwrap_or(0.0);
        let kavg = mean_of(t6.iter().copied().filter(|(p, _)| ctl(p)), |r| {
            r.kappa_time_avg
        })
        .unwrap_or(f64::NAN);
        let imp = improvement_pct_truncated(w.round() as usize, wo.round() as usize, total);
        wo_list.push(wo);
        w_list.push(w);
        imp_list.push(imp);
        t.push(vec![
            Cell::Text(format!("[{rel:.0}m-{target:.0}m]")),
            Cell::Num(wo.round()),
            Cell::Num(w.round()),
            Cell::Int(imp),
            Cell::Num(kavg),
            Cell::Int(pwo as i64),
            Cell::Int(pw as i64),
            Cell::Int(pimp),
        ]);
        checks.push(
            Check::numeric(
                format!("table6/{i}/improvement"),
                format!("improvement in BoTs meeting {target:.0} min (% of all BoTs)"),
                imp as f64,
                Some(pimp as f64),
                15.0,
            )
            .with_reason("our no-controller makespans differ from the paper's 3120-min mean (spec A22); see docs/decisions.md [slarm-grid] controller workload"),
        );
        if let Some((_, r)) = t6.iter().find(|(p, _)| ctl(p) && p.seed == 0) {
            figures.push(
                Figure::new(
                    format!("fig8-kappa-{i}"),
                    format!("Fig. 8: kappa(t) with the controller [{rel:.0}m-{target:.0}m]"),
                    "time (days)",
                    "kappa",
                    FigureKind::Step,
                )
                .with_series(Series::ours(
                    format!("[{rel:.0}m-{target:.0}m]"),
                    r.kappa_series.clone(),
                )),
            );
        }
    }
    tables.push(t);
    checks.push(Check::claim(
        "table6/without-rises",
        "without the controller, the count meeting the target rises as the target loosens",
        wo_list.windows(2).all(|w| w[1] >= w[0]),
        format!("{wo_list:?}"),
    ));
    checks.push(Check::claim(
        "table6/with-falls",
        "with the controller, the count meeting the target falls as the target loosens",
        w_list.windows(2).all(|w| w[1] <= w[0]),
        format!("{w_list:?}"),
    ));
    checks.push(Check::claim(
        "table6/improvement-large",
        "the controller raises the share of BoTs meeting the target by tens of points (> 25 for the tight pair) and the gain falls from tight to loose",
        imp_list.first().is_some_and(|&i| i > 25) && imp_list.windows(2).all(|w| w[1] <= w[0]),
        format!("{imp_list:?} points"),
    ));
    if let Some((_, r)) = t6.iter().find(|(p, _)| p.strategy == StrategyKind::None) {
        notes.push(format!(
            "Table VI workload: {} BoTs, no background, mean makespan without controller {:.0} min (paper ≈3120 min).",
            r.bots,
            r.mean_makespan_s / 60.0
        ));
    }
}

fn policies(
    rows: &[Row],
    tables: &mut Vec<Table>,
    checks: &mut Vec<Check>,
    figures: &mut Vec<Figure>,
) {
    for (exp, title, fig) in [
        (
            "e2",
            "Fig. 3: policies on the initial system (kappa 1), NSL statistics",
            "fig3-nsl-cdf",
        ),
        (
            "e3",
            "Fig. 4: policies under All, kappa 2, NSL statistics",
            "",
        ),
    ] {
        let sel: Vec<&Row> = rows.iter().filter(|(p, _)| p.exp == exp).collect();
        if sel.is_empty() {
            continue;
        }
        let mut t = Table::new(
            format!("{exp}-policies"),
            title,
            &[
                "Policy",
                "C_d",
                "C_s",
                "min",
                "Q1",
                "median",
                "mean",
                "Q3",
                "max",
                "prediction accuracy",
            ],
        );
        for (p, r) in &sel {
            let mut row = box_row(p.policy.label(), p.kappa, &r.nsl);
            row.remove(1);
            row.insert(1, Cell::Num(r.c_d));
            row.insert(2, Cell::Num(r.c_s));
            row.push(if p.policy == PolicyKind::Ect {
                Cell::Num(r.predictor_accuracy)
            } else {
                Cell::Empty
            });
            t.push(row);
        }
        tables.push(t);
        if !fig.is_empty() {
            let mut f = Figure::new(
                fig,
                "Fig. 3: NSL CDF per policy (kappa 1)",
                "NSL",
                "CDF",
                FigureKind::Step,
            );
            f.x_log = true;
            for (p, r) in &sel {
                f = f.with_series(Series::ours(p.policy.label(), r.nsl_cdf.clone()));
            }
            figures.push(f);
        }
        let get = |k: PolicyKind| sel.iter().find(|(p, _)| p.policy == k).map(|(_, r)| r);
        if let (Some(ect), Some(pt), Some(pb), Some(st)) = (
            get(PolicyKind::Ect),
            get(PolicyKind::DynPerTask),
            get(PolicyKind::DynPerBot),
            get(PolicyKind::Static),
        ) {
            if exp == "e2" {
                checks.push(Check::claim(
                    "fig3/ect-worst",
                    "ECT has the worst NSL on the initial system (highest mean NSL)",
                    ect.nsl.mean >= pt.nsl.mean.max(pb.nsl.mean).max(st.nsl.mean),
                    format!(
                        "mean NSL: ECT {:.3}, DynPerTask {:.3}, DynPerBoT {:.3}, Static {:.3}",
                        ect.nsl.mean, pt.nsl.mean, pb.nsl.mean, st.nsl.mean
                    ),
                ));
                checks.push(
                    Check::numeric(
                        "fig3/ect-accuracy",
                        "ECT prediction accuracy (mean min/max)",
                        ect.predictor_accuracy,
                        Some(0.40),
                        0.15,
                    )
                    .with_reason("with i.i.d. per-task runtimes the previous-two predictor reaches ≈14 % (spec §1.6.1 side note): a soft check"),
                );
            } else {
                let iqr = |r: &CellResult| r.nsl.q3 - r.nsl.q1;
                checks.push(Check::claim(
                    "fig4/dynamic-better",
                    "under All kappa 2, DynPerTask and DynPerBoT have a smaller NSL interquartile range than Static and ECT",
                    iqr(pt).max(iqr(pb)) <= iqr(st).min(iqr(ect)),
                    format!(
                        "IQR: DynPerTask {:.3}, DynPerBoT {:.3}, Static {:.3}, ECT {:.3}",
                        iqr(pt), iqr(pb), iqr(st), iqr(ect)
                    ),
                ));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quick_plan_runs_and_assembles_on_a_reduced_config() {
        // A reduced plan (few BoTs) so the full cells -> run_cell -> assemble path is covered.
        let cfg = RunConfig {
            scale: Scale::Quick,
            seed: 7,
            traces: None,
        };
        let plan = Plan {
            seeds: 1,
            bots: 120,
            controller_bots: 200,
            sweep_loads: &[0.8],
        };
        let cells = plan_cells(&plan);
        let ids: std::collections::BTreeSet<&str> = cells.iter().map(|c| c.id.as_str()).collect();
        assert_eq!(ids.len(), cells.len(), "cell ids are unique");
        assert!(cells.iter().all(|c| c
            .id
            .chars()
            .all(|ch| ch.is_ascii_alphanumeric() || "._-".contains(ch))));
        let exp = Yigitbasi2010;
        let outputs: Vec<CellOutput> = cells
            .iter()
            .map(|c| CellOutput {
                cell: c.clone(),
                result: exp.run_cell(&cfg, c).unwrap(),
            })
            .collect();
        // Determinism: a cell is a pure function of (cfg, cell).
        assert_eq!(exp.run_cell(&cfg, &cells[9]).unwrap(), outputs[9].result);
        let report = exp.assemble(&cfg, &outputs).unwrap();
        let ids: Vec<&str> = report.tables.iter().map(|t| t.id.as_str()).collect();
        for want in [
            "table3",
            "table3-published",
            "table4",
            "table6",
            "e2-policies",
        ] {
            assert!(ids.contains(&want), "{want} missing from {ids:?}");
        }
        assert!(report
            .checks
            .iter()
            .any(|c| c.id == "table3/dynamic-lowest"));
        assert!(report.checks.iter().any(|c| c.id == "table4/static-linear"));
        // Static cost is exactly linear in kappa by construction.
        let lin = report
            .checks
            .iter()
            .find(|c| c.id == "table4/static-linear")
            .unwrap();
        assert_eq!(lin.verdict, slarm_report::Verdict::Match);
        // The same workload is shared by all strategies of a seed: NO and All see equal task counts.
        let tasks: Vec<u64> = outputs
            .iter()
            .filter(|o| o.cell.id.starts_with("t3-"))
            .map(|o| o.result["tasks"].as_u64().unwrap())
            .collect();
        assert!(tasks.windows(2).all(|w| w[0] == w[1]));
    }
}
