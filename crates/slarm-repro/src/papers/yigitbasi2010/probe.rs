//! The paper's Fig. 1 (§II): the same 128-task BoT submitted every 15 minutes to the
//! initial DAS-3 (DynPerTask, κ = 1) on top of a background load and nothing else; the
//! makespan of each submission and its min, max, max/min ratio and CoV. The paper measured the
//! real DAS-3 and reports a max/min ratio of "roughly 70", with a stable makespan for the first
//! 130 submissions. Ours is a simulated analogue: the probe task runtime is not in
//! the paper (docs/decisions.md, Yigitbasi & Epema 2010: probe BoTs), the background is the
//! experiments' synthetic one (labelled synthetic) plus the heaviest variant of the
//! background-sensitivity table.

use serde::{Deserialize, Serialize};
use slarm_report::{
    Cell, CellSpec, Check, ExperimentError, Figure, FigureKind, PaperReport, RunConfig, Series,
    Table,
};
use slarm_stats::rng::label;

use super::{cell_spec, experiment_background, Plan, PAPER};
use slarm_grid::metrics::{box_stats, mean_cov, StdKind};
use slarm_grid::platform::Platform;
use slarm_grid::provision::NoOverprovisioning;
use slarm_grid::sched::DynamicPerTask;
use slarm_grid::sim::{simulate, GridConfig};
use slarm_grid::workload::{BackgroundSource, Bot, GridWorkload, SyntheticBackground, Task};

/// Experiment id of the probe cells.
pub const EXP: &str = "e0";
/// Tasks of the probe BoT (paper §I).
pub const PROBE_TASKS: usize = 128;
/// Time between two submissions, seconds (paper: every 15 minutes).
pub const PROBE_INTERVAL_S: f64 = 900.0;
/// Runtime of every probe task on the reference processor, seconds (not in the paper; see
/// docs/decisions.md, Yigitbasi & Epema 2010: probe BoTs).
pub const PROBE_RUNTIME_S: f64 = 300.0;
/// The paper's max/min makespan ratio ("roughly 70", §II).
pub const PUBLISHED_MAX_MIN: f64 = 70.0;
/// What "large" variation means in the claim check: an order of magnitude.
pub const LARGE_MAX_MIN: f64 = 10.0;
/// Most a median makespan may exceed the minimum for the makespan to count as "stable".
pub const STABLE_MEDIAN_OVER_MIN: f64 = 1.1;
/// Synthetic backgrounds `(utilisation, processors per job)` of the probes: the experiments'
/// own (the synthetic background's defaults) and the heaviest variant of the background
/// sensitivity.
pub const PROBE_BACKGROUNDS: [(f64, u64); 2] = [(0.15, 1), (0.60, 8)];

/// Parameters of one probe cell.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProbeParams {
    /// Always [`EXP`].
    pub exp: String,
    /// Utilisation of every cluster by the synthetic background.
    pub utilisation: f64,
    /// Processors per background job.
    pub procs: u64,
    /// Seed index.
    pub seed: usize,
    /// Number of probe submissions.
    pub submissions: usize,
}

/// What a probe cell returns.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProbeResult {
    /// Makespan of each submission in submission order, seconds.
    pub makespans_s: Vec<f64>,
    /// Smallest makespan, seconds.
    pub min_s: f64,
    /// Median makespan, seconds.
    pub median_s: f64,
    /// Largest makespan, seconds.
    pub max_s: f64,
    /// max / min.
    pub max_over_min: f64,
    /// Coefficient of variation of the makespans (population standard deviation).
    pub cov: f64,
    /// Submissions of which at least one task waited in a local queue.
    pub waited: usize,
    /// Background jobs over the probe window.
    pub background_jobs: usize,
}

/// The probe cells of a plan: every background of [`PROBE_BACKGROUNDS`] for every seed.
pub fn cells(plan: &Plan) -> Vec<CellSpec> {
    let mut cells = Vec::new();
    for (utilisation, procs) in PROBE_BACKGROUNDS {
        for seed in 0..plan.seeds {
            let p = ProbeParams {
                exp: EXP.into(),
                utilisation,
                procs,
                seed,
                submissions: plan.probe_submissions,
            };
            let u_tag = (utilisation * 100.0).round() as u32;
            cells.push(cell_spec(format!("e0-probe-u{u_tag}-p{procs}-s{seed}"), &p));
        }
    }
    cells
}

/// The probe workload: `submissions` identical BoTs of [`PROBE_TASKS`] tasks of
/// [`PROBE_RUNTIME_S`], one every [`PROBE_INTERVAL_S`] from t = 0.
pub fn probe_bots(submissions: usize) -> Vec<Bot> {
    (0..submissions)
        .map(|id| Bot {
            id,
            arrival_s: id as f64 * PROBE_INTERVAL_S,
            tasks: vec![
                Task {
                    runtime_ref_s: PROBE_RUNTIME_S,
                };
                PROBE_TASKS
            ],
        })
        .collect()
}

/// Runs one probe cell (a pure function of the run config, the cell id and the parameters).
pub fn run(cfg: &RunConfig, id: &str, p: &ProbeParams) -> Result<ProbeResult, ExperimentError> {
    let model = |e| ExperimentError::model(id, e);
    let platform = Platform::das3();
    let background = SyntheticBackground {
        utilisation: p.utilisation,
        procs: p.procs,
        ..experiment_background()
    };
    let streams = cfg.streams(PAPER, id);
    let window_s = p.submissions as f64 * PROBE_INTERVAL_S;
    let jobs = background
        .generate(
            &platform,
            window_s,
            &mut streams.stream(&[label("background")]),
        )
        .map_err(model)?;
    let background_jobs = jobs.len();
    let workload = GridWorkload::new(probe_bots(p.submissions), jobs, BackgroundSource::Synthetic)
        .map_err(model)?;
    let run = simulate(
        &platform,
        &workload,
        &mut NoOverprovisioning,
        &mut DynamicPerTask,
        &GridConfig::default(),
        &streams.child(&[label("sim")]),
    )
    .map_err(model)?;
    let mut bots = run.bots;
    bots.sort_by(|a, b| a.arrival_s.total_cmp(&b.arrival_s));
    let makespans_s: Vec<f64> = bots.iter().map(|b| b.makespan_s).collect();
    let stats =
        box_stats(&makespans_s).ok_or_else(|| ExperimentError::model(id, "no probe completed"))?;
    let (_, cov) = mean_cov(&makespans_s, StdKind::Population);
    Ok(ProbeResult {
        min_s: stats.min,
        median_s: stats.median,
        max_s: stats.max,
        max_over_min: stats.max / stats.min,
        cov,
        waited: bots.iter().filter(|b| b.max_wait_s > 0.0).count(),
        background_jobs,
        makespans_s,
    })
}

/// One probe cell's parameters and result.
pub type ProbeRow = (ProbeParams, ProbeResult);

fn background_name(p: &ProbeParams) -> String {
    let role = if (p.utilisation, p.procs) == PROBE_BACKGROUNDS[0] {
        "the experiments'"
    } else {
        "sensitivity"
    };
    format!(
        "synthetic {:.0} %, {}-processor jobs ({role})",
        p.utilisation * 100.0,
        p.procs
    )
}

/// Appends the Fig. 1 table, figure and checks to `report`.
pub fn report(rows: &[ProbeRow], report: &mut PaperReport) {
    if rows.is_empty() {
        return;
    }
    let mut t = Table::new(
        "fig1-probe",
        format!(
            "Fig. 1 analogue: a {PROBE_TASKS}-task BoT ({PROBE_RUNTIME_S:.0}-s tasks) every 15 min on the initial DAS-3 (DynPerTask) over the background load only; makespans in minutes"
        ),
        &[
            "background",
            "seed",
            "submissions",
            "min",
            "median",
            "max",
            "max/min",
            "CoV",
            "submissions that waited",
        ],
    );
    for (p, r) in rows {
        t.push(vec![
            Cell::Text(background_name(p)),
            Cell::Int(p.seed as i64),
            Cell::Int(p.submissions as i64),
            Cell::Num(r.min_s / 60.0),
            Cell::Num(r.median_s / 60.0),
            Cell::Num(r.max_s / 60.0),
            Cell::Num(r.max_over_min),
            Cell::Num(r.cov),
            Cell::Int(r.waited as i64),
        ]);
    }
    t.push(vec![
        Cell::Text("real DAS-3 (paper, Fig. 1)".into()),
        Cell::Empty,
        Cell::Text("about 140 shown".into()),
        Cell::Empty,
        Cell::Empty,
        Cell::Empty,
        Cell::Num(PUBLISHED_MAX_MIN),
        Cell::Empty,
        Cell::Empty,
    ]);
    report.tables.push(t);
    let mut f = Figure::new(
        "fig1-probe-makespan",
        format!(
            "Fig. 1 analogue: makespan of the {PROBE_TASKS}-task probe BoT per submission (one every 15 min), seed 0"
        ),
        "submission",
        "makespan (min)",
        FigureKind::Line,
    );
    f.y_log = true;
    // The sensitivity series first, so that the experiments' (flat) one is drawn on top.
    for (p, r) in rows.iter().rev().filter(|(p, _)| p.seed == 0) {
        let points = r
            .makespans_s
            .iter()
            .enumerate()
            .map(|(i, m)| ((i + 1) as f64, m / 60.0))
            .collect();
        f = f.with_series(Series::ours(background_name(p), points));
    }
    report.figures.push(f);
    checks(rows, &mut report.checks);
}

fn checks(rows: &[ProbeRow], checks: &mut Vec<Check>) {
    let own: Vec<&ProbeResult> = rows
        .iter()
        .filter(|(p, _)| (p.utilisation, p.procs) == PROBE_BACKGROUNDS[0])
        .map(|(_, r)| r)
        .collect();
    if own.is_empty() {
        return;
    }
    let n = own.len() as f64;
    let ratio = own.iter().map(|r| r.max_over_min).sum::<f64>() / n;
    let stable = own.iter().map(|r| r.median_s / r.min_s).sum::<f64>() / n;
    let seeds = format!("mean of {} seed(s), the experiments' background", own.len());
    let waited: usize = own.iter().map(|r| r.waited).sum();
    let submissions: usize = own.iter().map(|r| r.makespans_s.len()).sum();
    let reason = format!(
        "over our synthetic background (the DAS-3 June 2008 trace of §V-A is not available) {waited} of {submissions} probe submissions had a task that waited; makespans {:.1}-{:.1} min (median {:.1}), so max/min is {ratio:.2}, against the paper's measured bursts on the real DAS-3 (§II, Fig. 1)",
        own.iter().map(|r| r.min_s).fold(f64::INFINITY, f64::min) / 60.0,
        own.iter().map(|r| r.max_s).fold(0.0, f64::max) / 60.0,
        own.iter().map(|r| r.median_s).sum::<f64>() / n / 60.0,
    );
    checks.push(
        Check::relative(
            "fig1/max-min-ratio",
            format!("Fig. 1: max/min makespan of the probe BoT ({seeds})"),
            ratio,
            PUBLISHED_MAX_MIN,
            0.5,
        )
        .with_reason_if_differs(reason.clone()),
    );
    checks.push(
        Check::claim(
            "fig1/large-variation",
            format!("Fig. 1: large max/min variation of the probe makespan (at least {LARGE_MAX_MIN:.0}x; the paper: 'roughly 70', 'very strong performance inconsistencies')"),
            ratio >= LARGE_MAX_MIN,
            format!("max/min {ratio:.2} ({seeds})"),
        )
        .with_reason_if_differs(reason.clone()),
    );
    checks.push(
        Check::claim(
            "fig1/mostly-stable",
            format!("Fig. 1: the makespan is stable for most submissions (median/min <= {STABLE_MEDIAN_OVER_MIN}; the paper: no high variability for the first 130 submissions)"),
            stable <= STABLE_MEDIAN_OVER_MIN,
            format!("median/min {stable:.3} ({seeds})"),
        )
        .with_reason_if_differs(reason.clone()),
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use slarm_report::{Scale, Verdict};

    /// A quick run config and probe parameters.
    fn setup(
        seed: u64,
        utilisation: f64,
        procs: u64,
        submissions: usize,
    ) -> (RunConfig, ProbeParams) {
        let cfg = RunConfig {
            scale: Scale::Quick,
            seed,
            traces: None,
            background: None,
        };
        let p = ProbeParams {
            exp: EXP.into(),
            utilisation,
            procs,
            seed: 0,
            submissions,
        };
        (cfg, p)
    }

    #[test]
    fn probes_on_an_idle_grid_take_the_runtime_on_the_slowest_site_used() {
        // No background: every probe fits at once, DynPerTask spreads the 128 tasks over all
        // five clusters, so the makespan is the 300-s runtime on UvA (2.2 GHz = reference).
        let (cfg, p) = setup(3, 0.0, 1, 12);
        let r = run(&cfg, "probe-test", &p).unwrap();
        assert_eq!(r.makespans_s, vec![PROBE_RUNTIME_S; 12]);
        assert_eq!((r.max_over_min, r.cov, r.waited), (1.0, 0.0, 0));
        assert_eq!(r.background_jobs, 0);
        assert_eq!(run(&cfg, "probe-test", &p).unwrap(), r, "deterministic");
    }

    #[test]
    fn a_congested_background_makes_probes_wait_and_vary() {
        let (cfg, p) = setup(1, 0.95, 8, 40);
        let r = run(&cfg, "probe-congested", &p).unwrap();
        assert!(r.waited > 0 && r.max_over_min > 1.0, "{r:?}");
        assert!(r.min_s >= PROBE_RUNTIME_S * 2.2 / 2.6 - 1e-9);
    }

    #[test]
    fn report_checks_the_experiments_background_only() {
        let result = |min_s: f64, median_s: f64, max_s: f64| ProbeResult {
            makespans_s: vec![min_s, median_s, max_s],
            min_s,
            median_s,
            max_s,
            max_over_min: max_s / min_s,
            cov: 0.0,
            waited: 0,
            background_jobs: 0,
        };
        let (_, own) = setup(1, PROBE_BACKGROUNDS[0].0, PROBE_BACKGROUNDS[0].1, 3);
        let heavy = ProbeParams {
            utilisation: PROBE_BACKGROUNDS[1].0,
            procs: PROBE_BACKGROUNDS[1].1,
            ..own.clone()
        };
        let verdicts = |rows: &[ProbeRow]| {
            let mut rep = PaperReport {
                paper: PAPER.into(),
                title: String::new(),
                workload: String::new(),
                tables: vec![],
                checks: vec![],
                figures: vec![],
                notes: vec![],
            };
            report(rows, &mut rep);
            assert_eq!(
                rep.tables[0].rows.len(),
                rows.len() + 1,
                "plus the paper's row"
            );
            assert_eq!(rep.figures[0].series.len(), rows.len());
            assert!(rep.unexplained_checks().is_empty());
            rep.checks
                .iter()
                .map(|c| (c.id.clone(), c.verdict))
                .collect::<Vec<_>>()
        };
        // A flat makespan under the experiments' background: no large variation, whatever
        // the heavier background shows.
        let flat = verdicts(&[
            (own.clone(), result(300.0, 300.0, 300.0)),
            (heavy, result(275.0, 300.0, 21_000.0)),
        ]);
        assert_eq!(
            flat,
            vec![
                ("fig1/max-min-ratio".to_string(), Verdict::Differs),
                ("fig1/large-variation".to_string(), Verdict::Differs),
                ("fig1/mostly-stable".to_string(), Verdict::Match),
            ]
        );
        // Max/min 60 with a stable median: within 50 % of 70, large, stable.
        let wide = verdicts(&[(own, result(300.0, 310.0, 18_000.0))]);
        assert_eq!(wide[0].1, Verdict::WithinTolerance);
        assert_eq!(wide[1].1, Verdict::Match);
        assert_eq!(wide[2].1, Verdict::Match);
    }
}
