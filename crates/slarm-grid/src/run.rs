//! One scenario end to end: generate the workload (seeded), deploy a strategy, simulate,
//! and summarise the metrics (what `slarm grid` and each experiment cell run).

use slarm_stats::rng::label;
use slarm_stats::RngStreams;

use crate::error::Result;
use crate::kappa::Kappa;
use crate::metrics::{
    box_stats, consistency, percentile_nearest_rank, BoxStats, Consistency, Grouping,
};
use crate::platform::Platform;
use crate::provision::{DynamicSettings, StrategyKind};
use crate::sched::PolicyKind;
use crate::sim::{simulate, RunResult, SimConfig};
use crate::workload::{
    BackgroundJob, BackgroundSource, IosupBotModel, SyntheticBackground, Workload, WorkloadSummary,
};

/// Background load of a scenario.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum BackgroundSpec {
    /// None (the §VII setup).
    None,
    /// The synthetic generator over the BoT span.
    Synthetic(SyntheticBackground),
    /// Jobs from a trace (already parsed, shifted and mapped), with the trace's label.
    Trace {
        /// Trace file name.
        label: String,
        /// The jobs.
        jobs: Vec<BackgroundJob>,
    },
}

/// A complete, reproducible simulation setup.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Scenario {
    /// The initial platform.
    pub platform: Platform,
    /// Overprovisioning strategy.
    pub strategy: StrategyKind,
    /// Target κ (ignored by None and Feedback).
    pub kappa: f64,
    /// Offered BoT load of the initial system (0.8 = 80 %).
    pub load: f64,
    /// Number of BoTs.
    pub n_bots: usize,
    /// GRM policy.
    pub policy: PolicyKind,
    /// Background load.
    pub background: BackgroundSpec,
    /// BoT model and its interpretation switches.
    pub model: IosupBotModel,
    /// Feedback controller (target, release) in seconds.
    pub feedback_s: (f64, f64),
    /// Dynamic strategy settings (thresholds, period, band, start).
    #[cfg_attr(feature = "serde", serde(default))]
    pub dynamic: DynamicSettings,
    /// Simulation parameters.
    pub sim: SimConfig,
}

impl Scenario {
    /// The paper's §VI setup: DAS-3, 80 % load, ≈1650 BoTs, Dynamic Per Task, synthetic
    /// background, feedback thresholds [250 m – 300 m].
    pub fn paper(strategy: StrategyKind, kappa: f64) -> Self {
        Self {
            platform: Platform::das3(),
            strategy,
            kappa,
            load: 0.8,
            n_bots: 1650,
            policy: PolicyKind::DynPerTask,
            background: BackgroundSpec::Synthetic(SyntheticBackground::default()),
            model: IosupBotModel::default(),
            feedback_s: (300.0 * 60.0, 250.0 * 60.0),
            dynamic: DynamicSettings::default(),
            sim: SimConfig::default(),
        }
    }
}

/// Metrics of one scenario run.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ScenarioResult {
    /// The raw run.
    pub run: RunResult,
    /// Workload statistics.
    pub workload: WorkloadSummary,
    /// C_d and C_s with the default grouping (all sizes, population std).
    pub consistency: Consistency,
    /// C_d and C_s with `min_group_count` 2, 5 and 10 (`None` where undefined).
    pub consistency_min_group: Vec<(usize, Option<Consistency>)>,
    /// NSL box statistics.
    pub nsl: BoxStats,
    /// Mean makespan, seconds.
    pub mean_makespan_s: f64,
    /// Nearest-rank p90 of the makespans, seconds.
    pub p90_makespan_s: f64,
}

/// The workload of a scenario: depends only on the scenario's model, load, BoT count,
/// background and `streams` (so every strategy sees the same workload for one seed).
pub fn build_workload(sc: &Scenario, streams: &RngStreams) -> Result<Workload> {
    let bots = sc.model.generate(
        sc.n_bots,
        sc.load,
        &sc.platform,
        &mut streams.stream(&[label("bots")]),
    )?;
    let span = bots.last().map_or(0.0, |b| b.arrival_s);
    let (jobs, source) = match &sc.background {
        BackgroundSpec::None => (vec![], BackgroundSource::None),
        BackgroundSpec::Synthetic(g) => (
            g.generate(
                &sc.platform,
                span,
                &mut streams.stream(&[label("background")]),
            )?,
            BackgroundSource::Synthetic,
        ),
        BackgroundSpec::Trace { label, jobs } => {
            (jobs.clone(), BackgroundSource::Trace(label.clone()))
        }
    };
    Workload::new(bots, jobs, source)
}

/// Runs a scenario: the workload from `streams` (see [`build_workload`]), the simulation's own
/// randomness (cloud overheads) from a separate stream.
///
/// ```
/// use slarm_grid::prelude::*;
/// use slarm_stats::RngStreams;
/// let mut sc = Scenario::paper(StrategyKind::All, 2.0);
/// sc.n_bots = 60;
/// let r = run_scenario(&sc, &RngStreams::new(42)).unwrap();
/// assert_eq!(r.workload.bots, 60);
/// assert!(r.consistency.c_d >= 1.0);
/// ```
pub fn run_scenario(sc: &Scenario, streams: &RngStreams) -> Result<ScenarioResult> {
    run_scenario_with(sc, streams, &streams.child(&[label("sim")]))
}

/// As [`run_scenario`] with separate streams for the workload and for the simulation (the
/// experiments share one workload between all strategies of a seed).
pub fn run_scenario_with(
    sc: &Scenario,
    workload_streams: &RngStreams,
    sim_streams: &RngStreams,
) -> Result<ScenarioResult> {
    let workload = build_workload(sc, workload_streams)?;
    let kappa = Kappa::from_f64(sc.kappa)?;
    let mut prov = sc.strategy.build(kappa, sc.feedback_s, &sc.dynamic)?;
    let mut sched = sc.policy.build();
    let run = simulate(
        &sc.platform,
        &workload,
        prov.as_mut(),
        sched.as_mut(),
        &sc.sim,
        sim_streams,
    )?;
    summarise(run, workload.summary(&sc.platform))
}

fn summarise(run: RunResult, workload: WorkloadSummary) -> Result<ScenarioResult> {
    let nsls: Vec<f64> = run.bots.iter().map(|b| b.nsl).collect();
    let makespans: Vec<f64> = run.bots.iter().map(|b| b.makespan_s).collect();
    let consistency_all = consistency(&run.bots, Grouping::default())?;
    let by_group = [2usize, 5, 10]
        .iter()
        .map(|&m| {
            let g = Grouping {
                min_group_count: m,
                ..Grouping::default()
            };
            (m, consistency(&run.bots, g).ok())
        })
        .collect();
    let nsl = box_stats(&nsls)
        .ok_or_else(|| crate::error::GridError::UndefinedMetric("no BoT completed".into()))?;
    let mean_makespan_s = makespans.iter().sum::<f64>() / makespans.len().max(1) as f64;
    let p90_makespan_s = percentile_nearest_rank(&makespans, 0.9).unwrap_or(0.0);
    Ok(ScenarioResult {
        run,
        workload,
        consistency: consistency_all,
        consistency_min_group: by_group,
        nsl,
        mean_makespan_s,
        p90_makespan_s,
    })
}
