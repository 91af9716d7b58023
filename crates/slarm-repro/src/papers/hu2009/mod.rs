//! The `hu2009` reproduction for `slarm reproduce` (thesis Chapters 4-6): Tables 4.2-4.7, 5.1-5.2,
//! 6.1-6.4 and the data of Figures 4.6/4.8, each number beside the thesis's.
//!
//! Cells: `analytic` (Tables 4.2-4.5, the G table, Figures 4.6/4.8), `table4.7-<setting>`,
//! `table5-<setting>`, `table6.1`, `table6.2-<setting>`, `table6.3-<setting>` for the six
//! settings of Table 4.6. Scale `quick` uses small L and short simulations; `paper` uses
//! L = 10,000 for the analytic procedures and the reduced simulation budget of decision
//! "[slarm-queueing] Paper-scale simulation budget".

use serde_json::{json, Value};
use slarm_report::{
    Cell, CellOutput, CellSpec, Check, Experiment, ExperimentError, Figure, FigureKind,
    PaperReport, RunConfig, Scale, Series, Table,
};

use slarm_queueing::difference::{g_thesis, DaSaGrid, LambdaGrid};
use slarm_queueing::heuristics::{
    calibrate_alpha, calibrate_angle_table, AngleTable, CalibrationCriterion, HeuristicConfig,
};
use slarm_queueing::partition::{m_da, m_sa};
use slarm_queueing::procedures::{procedure1, procedure2, procedure3, procedure4, procedure5};
use slarm_queueing::sampling::Setting;
use slarm_queueing::sim::SimConfig;
use slarm_queueing::sla::{JobClass, Sla};

const PAPER: &str = "hu2009";

/// The Hu 2009 experiment.
#[derive(Debug, Clone, Copy, Default)]
pub struct Hu2009;

/// A ready instance for registries.
pub static HU2009: Hu2009 = Hu2009;

/// Sample sizes and simulation settings per scale.
#[derive(Debug, Clone, Copy)]
struct Budget {
    l1: usize,
    l3: usize,
    l4: usize,
    l2_sim: usize,
    l5_sim: usize,
    sim: SimConfig,
}

fn budget(scale: Scale) -> Budget {
    match scale {
        Scale::Quick => Budget {
            l1: 400,
            l3: 40,
            l4: 300,
            l2_sim: 6,
            l5_sim: 3,
            sim: SimConfig {
                horizon: 1_500.0,
                warmup: 100.0,
                replications: 2,
                seed: 0,
            },
        },
        Scale::Paper => Budget {
            l1: 10_000,
            l3: 10_000,
            l4: 10_000,
            l2_sim: 1_000,
            l5_sim: 1_000,
            sim: SimConfig {
                horizon: 4_000.0,
                warmup: 400.0,
                replications: 2,
                seed: 0,
            },
        },
    }
}

// Published values (thesis Tables 4.7, 5.1, 5.2 and 6.1-6.4).
const T47: [f64; 6] = [0.973, 0.979, 0.961, 0.966, 0.982, 0.984];
const T51: [[f64; 3]; 6] = [
    [0.016, 0.255, 0.983],
    [0.009, 0.294, 0.971],
    [0.013, 0.248, 0.985],
    [0.011, 0.231, 0.988],
    [0.014, 0.275, 0.984],
    [0.015, 0.246, 0.980],
];
const T52: [[f64; 2]; 6] = [
    [1.41, 1.29],
    [1.36, 1.16],
    [1.49, 1.29],
    [1.43, 1.26],
    [1.33, 1.12],
    [1.36, 1.17],
];
const T61: [f64; 4] = [39.01, 38.20, 38.09, 38.46];
const T62: [f64; 6] = [0.961, 0.978, 0.931, 0.936, 0.973, 0.962];
const T63: [[f64; 2]; 6] = [
    [0.011, 0.997],
    [0.004, 1.0],
    [0.009, 0.997],
    [0.007, 0.998],
    [0.003, 0.999],
    [0.009, 0.999],
];
const T64: [f64; 6] = [1.82, 1.67, 1.88, 1.85, 1.90, 1.86];

/// Why the simulated tables (5.1, 5.2, 6.3, 6.4) are checked with wide tolerances.
/// Why the Table 6.1 ordering (thesis §6.2) can differ; the thesis does not state the
/// distributions Procedure 3 samples, so U(0,40)/U(2,5) is our assumption.
const TABLE61_REASON: &str = "spec 003 §5.9 [R]: the sampling of Table 6.1 is unstated (U(0,40)/U(2,5) assumed, §6 #15) and the thesis's M_2, M_4 differ by 0.26 node; ours has solution 4 (the random mix, whose mean is that of 1-3) below solution 2 at L = 10,000 too (3 < 4 < 2 < 1), and small L cannot separate 2 and 4; solution 3, Algorithm 3's choice, is checked separately (decision '[slarm-queueing] 24. Sampled claims of Tables 6.1 and 6.3')";
/// Why "SA+PDP is always the best PDP strategy" (thesis §6.4) can differ.
const SA_PDP_REASON: &str = "spec 003 §4.3 / §5.13 #6 say 'always'; ours is the fraction of samples where SA+PDP needs no more nodes than the best mixed PDP strategy, decided by simulated sizing on a reduced budget: a mixed strategy wins in under 1 % of samples at paper scale (0.990-0.997), and at quick scale one of L = 3 samples moves the fraction by 0.33 (decisions '[slarm-queueing] Paper-scale simulation budget' and '24. Sampled claims of Tables 6.1 and 6.3')";
const SIM_BUDGET_REASON: &str = "simulated sizing on a reduced budget: fewer samples and shorter runs than the thesis (decision 'Paper-scale simulation budget')";

fn err(cell: &str) -> impl Fn(slarm_queueing::error::QueueError) -> ExperimentError + '_ {
    move |e| ExperimentError::model(cell, e)
}

fn sla(x: f64, y: f64, cell: &str) -> Result<Sla, ExperimentError> {
    Sla::new(x, y).map_err(err(cell))
}

fn grid_slas() -> Vec<(f64, f64)> {
    let mut v = Vec::new();
    for x in [2.0_f64, 2.5, 3.0, 3.5, 4.0, 4.5, 5.0] {
        for y in [0.80, 0.85, 0.90, 0.95] {
            if -(-x).exp_m1() > y {
                v.push((x, y));
            }
        }
    }
    v
}

fn run_analytic(cell: &str) -> Result<Value, ExperimentError> {
    let e = err(cell);
    // Table 4.2 (recomputed).
    let cases = [
        ((0.6, 3.0, 0.80), (3.0, 5.0, 0.95)),
        ((0.6, 3.0, 0.95), (3.6, 5.0, 0.80)),
    ];
    let mut t42 = Vec::new();
    for (a, b) in cases {
        let c = [
            JobClass::new(a.0, sla(a.1, a.2, cell)?).map_err(&e)?,
            JobClass::new(b.0, sla(b.1, b.2, cell)?).map_err(&e)?,
        ];
        t42.push(json!([
            m_da(&c, 1.0).map_err(&e)?,
            m_sa(&c, 1.0).map_err(&e)?
        ]));
    }
    // G of the 25 usable grid SLAs.
    let slas = grid_slas();
    let mut g = Vec::new();
    for &(x, y) in &slas {
        g.push(g_thesis(sla(x, y, cell)?, 1.0, LambdaGrid::G).map_err(&e)?);
    }
    // Every unordered pair with D > 0: D, f_D, calibrated alphas.
    let mut pairs = Vec::new();
    for i in 0..slas.len() {
        for j in (i + 1)..slas.len() {
            let d = (g[i] - g[j]).abs();
            if d <= 0.0 {
                continue;
            }
            let (l, s) = if g[i] < g[j] { (i, j) } else { (j, i) };
            let grid = DaSaGrid::new(
                sla(slas[l].0, slas[l].1, cell)?,
                sla(slas[s].0, slas[s].1, cell)?,
                1.0,
                LambdaGrid::FD,
            )
            .map_err(&e)?;
            pairs.push(json!({
                "lenient": slas[l], "strict": slas[s], "d": d, "f_d": grid.f_d(),
                "alpha_acc": calibrate_alpha(&grid, CalibrationCriterion::MaxAccuracy),
                "alpha_q90": calibrate_alpha(&grid, CalibrationCriterion::LiteralQ { q: 0.9 }),
            }));
        }
    }
    // Tables 4.3/4.4 scenarios.
    let scen = [
        ((4.5, 0.85), (2.5, 0.90)),
        ((4.0, 0.80), (2.5, 0.90)),
        ((5.0, 0.85), (3.0, 0.95)),
        ((4.5, 0.80), (3.0, 0.95)),
    ];
    let mut t43 = Vec::new();
    for (a, b) in scen {
        let (sa_, sb) = (sla(a.0, a.1, cell)?, sla(b.0, b.1, cell)?);
        let d = (g_thesis(sa_, 1.0, LambdaGrid::G).map_err(&e)?
            - g_thesis(sb, 1.0, LambdaGrid::G).map_err(&e)?)
        .abs();
        let f = DaSaGrid::new(sa_, sb, 1.0, LambdaGrid::FD)
            .map_err(&e)?
            .f_d();
        t43.push(json!([d, f]));
    }
    Ok(json!({ "table4_2": t42, "slas": slas, "g": g, "pairs": pairs, "table4_3": t43 }))
}

fn setting_of(params: &Value, cell: &str) -> Result<(usize, Setting), ExperimentError> {
    let i = params["setting"]
        .as_u64()
        .ok_or_else(|| ExperimentError::malformed(cell, "missing setting"))? as usize;
    let s = *Setting::thesis()
        .get(i)
        .ok_or_else(|| ExperimentError::malformed(cell, "setting out of range"))?;
    Ok((i, s))
}

impl Experiment for Hu2009 {
    fn paper(&self) -> &'static str {
        PAPER
    }

    fn title(&self) -> &'static str {
        "Hu 2009: resource allocation strategies for multiple job classes (M/M/m response-time SLAs)"
    }

    fn cells(&self, _cfg: &RunConfig) -> Result<Vec<CellSpec>, ExperimentError> {
        let mut cells = vec![CellSpec::new("analytic", json!({"kind": "analytic"}))];
        let settings = Setting::thesis();
        for (kind, prefix) in [
            ("p1", "table4.7"),
            ("p2", "table5"),
            ("p4", "table6.2"),
            ("p5", "table6.3"),
        ] {
            for (i, s) in settings.iter().enumerate() {
                cells.push(CellSpec::new(
                    format!("{prefix}-{}", s.id()),
                    json!({"kind": kind, "setting": i}),
                ));
            }
        }
        cells.push(CellSpec::new(
            "table6.1",
            json!({"kind": "p3", "setting": 0}),
        ));
        Ok(cells)
    }

    fn run_cell(&self, cfg: &RunConfig, cell: &CellSpec) -> Result<Value, ExperimentError> {
        let id = cell.id.as_str();
        let b = budget(cfg.scale);
        let h = HeuristicConfig::default();
        let streams = cfg.streams(PAPER, id);
        let e = err(id);
        let kind = cell.params["kind"].as_str().unwrap_or("");
        let to_json =
            |v: Result<Value, serde_json::Error>| v.map_err(|x| ExperimentError::malformed(id, x));
        match kind {
            "analytic" => run_analytic(id),
            "p1" => {
                let (_, s) = setting_of(&cell.params, id)?;
                to_json(serde_json::to_value(
                    procedure1(&s, b.l1, &h, &streams).map_err(&e)?,
                ))
            }
            "p2" => {
                let (_, s) = setting_of(&cell.params, id)?;
                let mut p = procedure2(&s, b.l2_sim, &h, &b.sim, &streams).map_err(&e)?;
                p.rows.clear();
                to_json(serde_json::to_value(p))
            }
            "p3" => {
                let (_, s) = setting_of(&cell.params, id)?;
                to_json(serde_json::to_value(
                    procedure3(&s, b.l3, &h, &streams).map_err(&e)?,
                ))
            }
            "p4" => {
                let (_, s) = setting_of(&cell.params, id)?;
                to_json(serde_json::to_value(
                    procedure4(&s, b.l4, &h, &streams).map_err(&e)?,
                ))
            }
            "p5" => {
                let (_, s) = setting_of(&cell.params, id)?;
                let mut p = procedure5(&s, b.l5_sim, &h, &b.sim, &streams).map_err(&e)?;
                p.rows.clear();
                to_json(serde_json::to_value(p))
            }
            other => Err(ExperimentError::malformed(
                id,
                format!("unknown kind {other:?}"),
            )),
        }
    }

    fn assemble(
        &self,
        cfg: &RunConfig,
        outputs: &[CellOutput],
    ) -> Result<PaperReport, ExperimentError> {
        assemble(cfg, outputs)
    }
}

/// The checks of one accuracy row: S beside the published value (`(ours, published,
/// tolerance)`), and the thesis's claim that S is at least `floor`.
fn accuracy_checks(
    (table, algorithm): (&str, &str),
    s: &Setting,
    (acc, published, tol): (f64, f64, f64),
    floor: f64,
    reason: &str,
) -> [Check; 2] {
    [
        Check::numeric(
            format!("{table}/{}/S", s.id()),
            format!("{algorithm} accuracy, {}", s.label()),
            acc,
            Some(published),
            tol,
        )
        .with_reason(reason),
        Check::claim(
            format!("{table}/{}/S>={floor}", s.id()),
            format!("{algorithm} accuracy at least {:.0}%", 100.0 * floor),
            acc >= floor,
            format!("S = {acc:.4}"),
        )
        .with_reason_if_differs(format!(
            "S is a sample mean over L sampled settings (spec 003 §5.5/§5.10); {reason}"
        )),
    ]
}

fn num(v: &Value, cell: &str) -> Result<f64, ExperimentError> {
    v.as_f64()
        .ok_or_else(|| ExperimentError::malformed(cell, format!("expected a number, got {v}")))
}

fn find<'a>(outputs: &'a [CellOutput], id: &str) -> Option<&'a Value> {
    outputs.iter().find(|o| o.cell.id == id).map(|o| &o.result)
}

#[allow(clippy::too_many_lines)]
fn assemble(cfg: &RunConfig, outputs: &[CellOutput]) -> Result<PaperReport, ExperimentError> {
    let b = budget(cfg.scale);
    let settings = Setting::thesis();
    let mut tables = Vec::new();
    let mut checks = Vec::new();
    let mut figures = Vec::new();
    let mut notes = vec![
        "All departures from the thesis are logged in docs/decisions.md under [slarm-queueing].".to_string(),
        format!(
            "Scale {}: L = {} (Table 4.7), {} (Table 6.1), {} (Table 6.2); simulated tables L = {} (5.x), {} (6.3/6.4) with horizon {}, warm-up {}, {} replications.",
            cfg.scale.name(), b.l1, b.l3, b.l4, b.l2_sim, b.l5_sim, b.sim.horizon, b.sim.warmup, b.sim.replications
        ),
    ];

    if let Some(a) = find(outputs, "analytic") {
        let c = "analytic";
        // Table 4.2
        let mut t = Table::new(
            "table4.2",
            "Table 4.2: two example cases (m_D, m_S)",
            &[
                "case",
                "m_D published",
                "m_S published",
                "m_D ours",
                "m_S ours",
            ],
        );
        let published = [(5.0, 6.0), (8.0, 7.0)];
        for (k, (pd, ps)) in published.iter().enumerate() {
            let md = num(&a["table4_2"][k][0], c)?;
            let ms = num(&a["table4_2"][k][1], c)?;
            t.push(vec![
                Cell::Int(k as i64 + 1),
                Cell::Num(*pd),
                Cell::Num(*ps),
                Cell::Num(md),
                Cell::Num(ms),
            ]);
            for (name, ours, p) in [("m_D", md, *pd), ("m_S", ms, *ps)] {
                checks.push(
                    Check::numeric(format!("table4.2/case{}/{name}", k + 1), format!("Table 4.2 case {} {name}", k + 1), ours, Some(p), 0.0)
                        .with_reason("the thesis's Table 4.2 cannot be reproduced from its own formulas (spec 003 §5.2); decision 'Table 4.2 recomputed'"),
                );
            }
        }
        tables.push(t.with_note("Recomputed with Eq. (4.1)-(4.3): SA wins case 1 and DA wins case 2, the opposite of the thesis; the claim 'neither strategy dominates' holds."));
        // Tables 4.3/4.4
        let mut t = Table::new(
            "table4.3-4.4",
            "Tables 4.3/4.4: SLA difference D and f_D (DA strictly better, 0.2 grid)",
            &[
                "scenario",
                "SLA_1",
                "SLA_2",
                "D published",
                "D ours",
                "f_D published %",
                "f_D ours %",
            ],
        );
        let scen = [
            ("(4.5, 0.85)", "(2.5, 0.90)", 22.58, 5.21),
            ("(4.0, 0.80)", "(2.5, 0.90)", 22.60, 5.21),
            ("(5.0, 0.85)", "(3.0, 0.95)", 83.45, 63.98),
            ("(4.5, 0.80)", "(3.0, 0.95)", 83.48, 64.04),
        ];
        for (k, (s1, s2, dp, fp)) in scen.iter().enumerate() {
            let d = num(&a["table4_3"][k][0], c)?;
            let f = 100.0 * num(&a["table4_3"][k][1], c)?;
            t.push(vec![
                Cell::Int(k as i64 + 1),
                Cell::Text((*s1).into()),
                Cell::Text((*s2).into()),
                Cell::Num(*dp),
                Cell::Num(d),
                Cell::Num(*fp),
                Cell::Num(f),
            ]);
            checks.push(Check::numeric(format!("table4.3/scenario{}/D", k + 1), format!("D, scenario {}", k + 1), d, Some(*dp), 0.05).with_reason("G on the 0.1 grid without the step factor (decision 'G scale'); scenario 1 is one grid point off (22.55)"));
            checks.push(
                Check::numeric(
                    format!("table4.4/scenario{}/f_D", k + 1),
                    format!("f_D %, scenario {}", k + 1),
                    f,
                    Some(*fp),
                    0.02,
                )
                .with_reason(
                    "0.2 lambda grid, DA strictly better (decision '[slarm-queueing] 13. Grids')",
                ),
            );
        }
        tables.push(t);
        // G table
        let mut t = Table::new(
            "g-table",
            "G_thesis of the 25 usable grid SLAs (not published; spec 003 §2.7)",
            &["x", "y", "G"],
        );
        let slas = a["slas"].as_array().cloned().unwrap_or_default();
        let gs = a["g"].as_array().cloned().unwrap_or_default();
        for (s, g) in slas.iter().zip(gs.iter()) {
            t.push(vec![
                Cell::Num(num(&s[0], c)?),
                Cell::Num(num(&s[1], c)?),
                Cell::Num(num(g, c)?),
            ]);
        }
        tables.push(t);
        checks.push(Check::numeric(
            "table4.1/usable-slas",
            "usable SLAs of the Table 4.1 grid",
            slas.len() as f64,
            Some(25.0),
            0.0,
        ));
        // Pairs -> Figures 4.6 / 4.8, angle-table calibration.
        let pairs = a["pairs"].as_array().cloned().unwrap_or_default();
        let mut fd_pts = Vec::new();
        let mut acc_pts = Vec::new();
        let mut q_pts = Vec::new();
        for p in &pairs {
            let d = num(&p["d"], c)?;
            fd_pts.push((d, 100.0 * num(&p["f_d"], c)?));
            acc_pts.push((d, num(&p["alpha_acc"], c)?));
            q_pts.push((d, num(&p["alpha_q90"], c)?));
        }
        let sorted = |mut v: Vec<(f64, f64)>| {
            v.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)));
            v
        };
        checks.push(
            Check::numeric(
                "fig4.6/pairs",
                "grid SLA pairs with D > 0",
                pairs.len() as f64,
                None,
                0.0,
            )
            .with_reason("spec 003 §2.7 reproduction: 297"),
        );
        let trend = |pts: &[(f64, f64)]| {
            let lo: Vec<f64> = pts.iter().filter(|p| p.0 < 30.0).map(|p| p.1).collect();
            let hi: Vec<f64> = pts.iter().filter(|p| p.0 >= 62.0).map(|p| p.1).collect();
            let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64;
            (mean(&lo), mean(&hi))
        };
        let (flo, fhi) = trend(&fd_pts);
        checks.push(Check::claim(
            "fig4.6/trend",
            "f_D tends to increase with D",
            fhi > flo,
            format!("mean f_D {flo:.2}% for D < 30, {fhi:.2}% for D >= 62"),
        ));
        let (alo, ahi) = trend(&acc_pts);
        checks.push(Check::claim(
            "fig4.8/trend",
            "alpha tends to increase with D",
            ahi > alo,
            format!(
                "mean accuracy-maximising alpha {alo:.1} deg for D < 30, {ahi:.1} deg for D >= 62"
            ),
        ));
        let thesis = AngleTable::thesis();
        let steps: Vec<(f64, f64)> = thesis
            .rows
            .iter()
            .map(|r| (r.0, r.1))
            .chain(std::iter::once((
                thesis.upper,
                thesis.rows.last().map_or(0.0, |r| r.1),
            )))
            .collect();
        figures.push(
            Figure::new(
                "fig4.6",
                "Figure 4.6: percentage of DA-better grid points vs SLA difference",
                "SLA difference D (G_thesis units)",
                "f_D (%)",
                FigureKind::Scatter,
            )
            .with_series(Series::ours("grid SLA pairs", sorted(fd_pts))),
        );
        figures.push(
            Figure::new(
                "fig4.8",
                "Figure 4.8: angle alpha vs SLA difference",
                "SLA difference D (G_thesis units)",
                "alpha (degrees)",
                FigureKind::Scatter,
            )
            .with_series(Series::ours(
                "accuracy-maximising alpha",
                sorted(acc_pts.clone()),
            ))
            .with_series(Series::ours("literal q = 90% alpha", sorted(q_pts.clone())))
            .with_series(Series::published("Table 4.5 (interval lower edges)", steps)),
        );
        let acc_table = calibrate_angle_table(&thesis, &acc_pts);
        let q_table = calibrate_angle_table(&thesis, &q_pts);
        let mut t = Table::new(
            "table4.5",
            "Table 4.5: angle table, published vs recalibrated (interval means)",
            &[
                "D from",
                "D to",
                "alpha published",
                "alpha accuracy-max",
                "alpha literal q=90%",
            ],
        );
        for (k, row) in thesis.rows.iter().enumerate() {
            let hi = thesis.rows.get(k + 1).map_or(thesis.upper, |r| r.0);
            let (a1, a2) = (acc_table.rows[k].1, q_table.rows[k].1);
            t.push(vec![
                Cell::Num(row.0),
                Cell::Num(hi),
                Cell::Num(row.1),
                Cell::Num(a1),
                Cell::Num(a2),
            ]);
            checks.push(Check::numeric(format!("table4.5/row{}/alpha", k + 1), format!("alpha for D in [{}, {hi})", row.0), a1, Some(row.1), 8.0).with_reason("the q = 90% construction is under-specified; the accuracy-maximising recalibration is the closest reading (decision 'angle table')"));
        }
        tables.push(t.with_note("Algorithms 2/3 use the published table (faithful mode)."));
    } else {
        notes.push("analytic cell missing".into());
    }

    // Table 4.7
    let mut t = Table::new(
        "table4.7",
        "Table 4.7: Algorithm 2 accuracy S (y ~ U(0.8, 0.95))",
        &[
            "setting",
            "S published",
            "S ours",
            "always-SA",
            "DA strictly better",
            "infeasible (x,y) draws",
        ],
    );
    for (i, s) in settings.iter().enumerate() {
        let id = format!("table4.7-{}", s.id());
        if let Some(r) = find(outputs, &id) {
            let acc = num(&r["accuracy"], &id)?;
            t.push(vec![
                Cell::Text(s.label()),
                Cell::Num(T47[i]),
                Cell::Num(acc),
                Cell::Num(num(&r["always_sa"], &id)?),
                Cell::Num(num(&r["da_strictly_better"], &id)?),
                Cell::Num(num(&r["infeasible_rate"], &id)?),
            ]);
            checks.extend(accuracy_checks(
                ("table4.7", "Algorithm 2"),
                s,
                (acc, T47[i], 0.03),
                0.96,
                "the thesis's S is not reproducible exactly; DA is rarely optimal in its own settings, see the always-SA column (decision '[slarm-queueing] 23. Always-SA baseline and exact optimiser')",
            ));
        }
    }
    tables.push(t);

    // Tables 5.1 / 5.2
    let mut t51 = Table::new(
        "table5.1",
        "Table 5.1: two classes, fraction of samples where each discipline is top",
        &[
            "setting",
            "q_F pub",
            "q_F ours",
            "q_F ours, m_F = min(m_D, m_S)",
            "q_H pub",
            "q_H ours",
            "q_P pub",
            "q_P ours",
        ],
    );
    let mut t52 = Table::new(
        "table5.2",
        "Table 5.2: mean node saving of PDP where PDP is strictly best",
        &[
            "setting",
            "Delta_F pub",
            "Delta_F ours",
            "Delta_H pub",
            "Delta_H ours",
            "samples PDP strictly best",
            "both classes bind at the FCFS-SA size",
            "PDP saves when both bind",
        ],
    );
    for (i, s) in settings.iter().enumerate() {
        let id = format!("table5-{}", s.id());
        if let Some(r) = find(outputs, &id) {
            let q = [
                num(&r["q_f"], &id)?,
                num(&r["q_h"], &id)?,
                num(&r["q_p"], &id)?,
            ];
            let d = [num(&r["delta_f"], &id)?, num(&r["delta_h"], &id)?];
            t51.push(vec![
                Cell::Text(s.label()),
                Cell::Num(T51[i][0]),
                Cell::Num(q[0]),
                Cell::Num(num(&r["q_f_opt"], &id)?),
                Cell::Num(T51[i][1]),
                Cell::Num(q[1]),
                Cell::Num(T51[i][2]),
                Cell::Num(q[2]),
            ]);
            t52.push(vec![
                Cell::Text(s.label()),
                Cell::Num(T52[i][0]),
                Cell::Num(d[0]),
                Cell::Num(T52[i][1]),
                Cell::Num(d[1]),
                Cell::Int(r["pdp_strictly_best"].as_i64().unwrap_or(0)),
                Cell::Num(num(&r["both_binding"], &id)?),
                Cell::Num(num(&r["pdp_saves_when_both_binding"], &id)?),
            ]);
            for (k, name) in ["q_F", "q_H", "q_P"].iter().enumerate() {
                checks.push(
                    Check::numeric(
                        format!("table5.1/{}/{name}", s.id()),
                        format!("{name}, {}", s.label()),
                        q[k],
                        Some(T51[i][k]),
                        0.10,
                    )
                    .with_reason(SIM_BUDGET_REASON),
                );
            }
            for (k, name) in ["Delta_F", "Delta_H"].iter().enumerate() {
                checks.push(Check::numeric(format!("table5.2/{}/{name}", s.id()), format!("{name}, {}", s.label()), d[k], Some(T52[i][k]), 0.5).with_reason("small L; Table 5.2 trusted over the text's 0.45 (decision 'Delta_H conflict')"));
            }
            checks.push(
                Check::claim(
                    format!("table5.1/{}/pdp-top", s.id()),
                    "PDP is the top discipline most often",
                    q[2] >= q[1] && q[2] >= q[0],
                    format!("q_F {:.3}, q_H {:.3}, q_P {:.3}", q[0], q[1], q[2]),
                )
                .with_reason_if_differs(SIM_BUDGET_REASON),
            );
        }
    }
    tables.push(t51.with_note("q_F counts ties: FCFS is top wherever PDP and HOL need as many nodes as Algorithm 2's FCFS strategy. See Table 5.2 for the share of samples where both classes bind at the same FCFS-SA size, where a priority discipline has no slack to move."));
    tables.push(t52.with_note("Where both classes need the same FCFS-SA size, one node fewer fails both SLAs under FCFS and PDP rarely recovers them; those samples are about half of all, which bounds how often PDP can beat FCFS and is the main reason q_F here is far above the thesis's 1-2% (decision 'Paper-scale simulation budget' for the noise)."));

    // Table 6.1
    if let Some(r) = find(outputs, "table6.1") {
        let id = "table6.1";
        let mut t = Table::new(
            "table6.1",
            "Table 6.1: structure-3 resolutions, mean nodes M_avg (U(0,40)/U(2,5))",
            &["solution", "M_avg published", "M_avg ours"],
        );
        let names = [
            "1. add an edge",
            "2. remove the edge with small D",
            "3. remove the edge with large D",
            "4. random of 1-3",
        ];
        let mut m = [0.0; 4];
        for k in 0..4 {
            m[k] = num(&r["m_avg"][k], id)?;
            t.push(vec![
                Cell::Text(names[k].into()),
                Cell::Num(T61[k]),
                Cell::Num(m[k]),
            ]);
            checks.push(Check::numeric(format!("table6.1/solution{}", k + 1), format!("M_avg {}", names[k]), m[k], Some(T61[k]), 1.0).with_reason("sampling distribution unstated, U(0,40)/U(2,5) assumed (decision 'Procedure 3')"));
        }
        checks.push(
            Check::claim(
                "table6.1/ordering",
                "removing the large-D edge is best: M3 < M2 < M4 < M1",
                m[2] < m[1] && m[1] < m[3] && m[3] < m[0],
                format!("M = {m:?}"),
            )
            .with_reason_if_differs(TABLE61_REASON),
        );
        checks.push(
            Check::claim(
                "table6.1/solution3-best",
                "solution 3 gives the fewest nodes",
                m[2] <= m[0] && m[2] <= m[1] && m[2] <= m[3],
                format!("M = {m:?}"),
            )
            .with_reason_if_differs(TABLE61_REASON),
        );
        tables.push(t.with_note(format!(
            "{} structure-3 samples out of {} draws.",
            r["samples"], r["draws"]
        )));
    }

    // Table 6.2
    let mut t = Table::new(
        "table6.2",
        "Table 6.2: Algorithm 3 accuracy S",
        &[
            "setting",
            "S published",
            "S ours",
            "always-SA",
            "structure 1",
            "structure 2",
            "structure 3",
            "structure 4",
        ],
    );
    for (i, s) in settings.iter().enumerate() {
        let id = format!("table6.2-{}", s.id());
        if let Some(r) = find(outputs, &id) {
            let acc = num(&r["accuracy"], &id)?;
            let mut row = vec![
                Cell::Text(s.label()),
                Cell::Num(T62[i]),
                Cell::Num(acc),
                Cell::Num(num(&r["always_sa"], &id)?),
            ];
            for k in 0..4 {
                row.push(Cell::Num(num(&r["structures"][k], &id)?));
            }
            t.push(row);
            checks.extend(accuracy_checks(
                ("table6.2", "Algorithm 3"),
                s,
                (acc, T62[i], 0.05),
                0.93,
                "normal spread read as a standard deviation; SA optimal in most samples (decisions '[slarm-queueing] 9. N(20,5) and N(20,10) read as standard deviations' and '23. Always-SA baseline and exact optimiser')",
            ));
        }
    }
    tables.push(t);

    // Tables 6.3 / 6.4
    let mut t63 = Table::new(
        "table6.3",
        "Table 6.3: three classes, FCFS (Algorithm 3) vs PDP, fraction top",
        &[
            "setting",
            "q_F pub",
            "q_F ours",
            "q_P pub",
            "q_P ours",
            "SA+PDP best",
        ],
    );
    let mut t64 = Table::new(
        "table6.4",
        "Table 6.4: mean saving of PDP over FCFS where PDP is strictly better",
        &["setting", "Delta_F pub", "Delta_F ours"],
    );
    for (i, s) in settings.iter().enumerate() {
        let id = format!("table6.3-{}", s.id());
        if let Some(r) = find(outputs, &id) {
            let (qf, qp, df) = (
                num(&r["q_f"], &id)?,
                num(&r["q_p"], &id)?,
                num(&r["delta_f"], &id)?,
            );
            let sab = num(&r["sa_pdp_best"], &id)?;
            t63.push(vec![
                Cell::Text(s.label()),
                Cell::Num(T63[i][0]),
                Cell::Num(qf),
                Cell::Num(T63[i][1]),
                Cell::Num(qp),
                Cell::Num(sab),
            ]);
            t64.push(vec![
                Cell::Text(s.label()),
                Cell::Num(T64[i]),
                Cell::Num(df),
            ]);
            for (table, name, ours, published, tol) in [
                ("table6.3", "q_F", qf, T63[i][0], 0.10),
                ("table6.3", "q_P", qp, T63[i][1], 0.10),
                ("table6.4", "Delta_F", df, T64[i], 0.6),
            ] {
                checks.push(
                    Check::numeric(
                        format!("{table}/{}/{name}", s.id()),
                        format!("{name}, {}", s.label()),
                        ours,
                        Some(published),
                        tol,
                    )
                    .with_reason(SIM_BUDGET_REASON),
                );
            }
            checks.push(
                Check::claim(
                    format!("table6.3/{}/sa-pdp-best", s.id()),
                    "SA with PDP is always the best PDP strategy",
                    sab >= 1.0,
                    format!("fraction {sab:.3}"),
                )
                .with_reason_if_differs(SA_PDP_REASON),
            );
        }
    }
    tables.push(t63);
    tables.push(t64);

    Ok(PaperReport {
        paper: PAPER.into(),
        title: Hu2009.title().into(),
        workload: "synthetic: Poisson classes drawn from the six settings of Table 4.6 (no traces)"
            .into(),
        tables,
        checks,
        figures,
        notes,
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use slarm_report::Verdict;

    /// Runs a reduced quick reproduction: the analytic cell and one cell of each procedure.
    #[test]
    fn quick_reduced_run_assembles() {
        let cfg = RunConfig {
            scale: Scale::Quick,
            seed: 1,
            traces: None,
        };
        let e = Hu2009;
        let cells = e.cells(&cfg).unwrap();
        assert_eq!(cells.len(), 1 + 4 * 6 + 1);
        let mut ids = std::collections::HashSet::new();
        for c in &cells {
            assert!(
                c.id.chars()
                    .all(|ch| ch.is_ascii_alphanumeric() || "._-".contains(ch)),
                "{}",
                c.id
            );
            assert!(ids.insert(c.id.clone()));
        }
        let wanted = [
            "analytic",
            "table4.7-U_0_40__U_2_5_",
            "table6.1",
            "table6.2-E_10__U_2_5_",
        ];
        let outputs: Vec<CellOutput> = cells
            .into_iter()
            .filter(|c| wanted.contains(&c.id.as_str()))
            .map(|cell| {
                let result = e.run_cell(&cfg, &cell).unwrap();
                CellOutput { cell, result }
            })
            .collect();
        assert_eq!(outputs.len(), wanted.len());
        let r = e.assemble(&cfg, &outputs).unwrap();
        let get = |id: &str| r.checks.iter().find(|c| c.id == id).unwrap();
        assert!(matches!(
            get("table4.3/scenario3/D").verdict,
            Verdict::Match | Verdict::WithinTolerance
        ));
        assert!(matches!(
            get("table4.4/scenario1/f_D").verdict,
            Verdict::Match | Verdict::WithinTolerance
        ));
        assert_eq!(get("table4.1/usable-slas").verdict, Verdict::Match);
        assert!(r.figures.len() == 2 && r.figures[0].series[0].points.len() == 297);
        assert!(r
            .tables
            .iter()
            .any(|t| t.id == "table6.1" && t.rows.len() == 4));
    }
}
