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
use crate::sched::BotPolicy;
use crate::sim::{simulate, BusyShare, GridConfig, RunResult};
use crate::workload::{
    ArrivalScale, BackgroundJob, BackgroundSource, GridWorkload, IosupBotModel, RuntimeSharing,
    SyntheticBackground, WorkloadSummary, TABLE2_MEAN_IAT_S, TABLE2_MEAN_RUNTIME_S,
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
    /// Load level of the initial system (0.8 = 80 %), read as [`Scenario::load_definition`]
    /// says (unused by [`LoadDefinition::Arrivals`], which measures the load).
    pub load: f64,
    /// How the arrivals are scaled: at Table II's mean inter-arrival time (the default), or
    /// to a realised or offered [`Scenario::load`].
    #[cfg_attr(feature = "serde", serde(default))]
    pub load_definition: LoadDefinition,
    /// Mean inter-arrival time of the BoTs under [`LoadDefinition::Arrivals`], seconds.
    #[cfg_attr(feature = "serde", serde(default = "default_mean_iat"))]
    pub mean_iat_s: f64,
    /// Number of BoTs.
    pub n_bots: usize,
    /// GRM policy.
    pub policy: BotPolicy,
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
    pub sim: GridConfig,
}

fn default_mean_iat() -> f64 {
    TABLE2_MEAN_IAT_S
}

/// The BoT model of the paper's stated inputs (Yigitbasi & Epema 2010, Table II): our
/// readings of Table II with runtimes drawn per task, capped so that the expected task
/// runtime is Table II's average 7859.7 s. Per-task draws hold Table II's average task
/// runtime and the ECT predictor accuracy of §VI-A ("around 40 %") better than the per-BoT
/// readings ([`RuntimeSharing::BotAverage`], [`RuntimeSharing::SharedPerBot`]), though none
/// of them reaches 40 % with Table II's runtime spread.
pub fn paper_model() -> IosupBotModel {
    let m = IosupBotModel {
        sharing: RuntimeSharing::PerTask,
        ..IosupBotModel::default()
    };
    // The uncapped mean (≈ 50 570 s) exceeds the target, so a cap exists; keep the uncapped
    // model should that ever stop being true.
    m.clone()
        .with_mean_runtime(TABLE2_MEAN_RUNTIME_S)
        .unwrap_or(m)
}

impl Scenario {
    /// The paper's §VI setup as its inputs state it: DAS-3, 1650 BoTs arriving at Table II's
    /// mean inter-arrival time of 124.6 s ([`LoadDefinition::Arrivals`]; the realised load is
    /// measured), [`paper_model`], Dynamic Per Task, synthetic background, feedback
    /// thresholds [250 m – 300 m].
    pub fn paper(strategy: StrategyKind, kappa: f64) -> Self {
        Self {
            platform: Platform::das3(),
            strategy,
            kappa,
            load: 0.8,
            load_definition: LoadDefinition::Arrivals,
            mean_iat_s: TABLE2_MEAN_IAT_S,
            n_bots: 1650,
            policy: BotPolicy::DynPerTask,
            background: BackgroundSpec::Synthetic(SyntheticBackground::default()),
            model: paper_model(),
            feedback_s: (300.0 * 60.0, 250.0 * 60.0),
            dynamic: DynamicSettings::default(),
            sim: GridConfig::default(),
        }
    }
}

/// How a scenario's load level is defined (Yigitbasi & Epema 2010, §V-A: workloads at
/// "10 %, 20 %, …, 100 % … of the initial system").
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum LoadDefinition {
    /// Arrivals at the scenario's mean inter-arrival time ([`Scenario::mean_iat_s`], Table
    /// II's 124.6 s by default): the load is not targeted but measured, by one simulation of
    /// the initial system.
    #[default]
    Arrivals,
    /// The time-average fraction of the initial system's processors busy with BoT tasks from
    /// the first to the last BoT arrival, measured by simulating the initial system (no
    /// overprovisioning, the scenario's policy, background and local queues). The arrival
    /// scale that realises it is searched by [`load_level`].
    Realised,
    /// Offered work Σ runtime_ref / (C_ref · D) over the arrival span D: with heavy-tailed
    /// runtimes most of this work runs after the last arrival, so the initial system is far
    /// less busy than the level says.
    Offered,
}

impl LoadDefinition {
    /// Short name (`arrivals`, `realised`, `offered`).
    pub fn name(self) -> &'static str {
        match self {
            Self::Arrivals => "arrivals",
            Self::Realised => "realised",
            Self::Offered => "offered",
        }
    }
}

pub use crate::workload::MAX_OFFERED_LOAD;

/// Absolute tolerance of the realised-load search: it stops once the realised load is this
/// close to the target.
pub const REALISED_LOAD_TOLERANCE: f64 = 0.002;

/// Simulations the realised-load search may run at most.
pub const MAX_CALIBRATION_RUNS: usize = 40;

/// The load level a scenario runs at: the target, the offered load that generates its
/// arrivals, and the load the initial system realises at that offered load.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct LoadLevel {
    /// Definition of [`LoadLevel::target`].
    pub definition: LoadDefinition,
    /// The scenario's load level (for [`LoadDefinition::Arrivals`] the realised one).
    pub target: f64,
    /// Offered load the workload is generated at (the target itself for
    /// [`LoadDefinition::Offered`]).
    pub offered: f64,
    /// Fraction of the initial system's processors busy with BoT tasks over the arrival span
    /// at that offered load.
    pub realised: f64,
    /// Simulations of the initial system run to find it.
    pub runs: usize,
    /// Whether the realised load is within [`REALISED_LOAD_TOLERANCE`] of the target
    /// (always true for [`LoadDefinition::Offered`]). False when the target cannot be
    /// reached with offered loads up to [`MAX_OFFERED_LOAD`] or the search ran out of runs.
    pub converged: bool,
}

impl LoadLevel {
    /// How the arrivals of `sc`'s workload are scaled at this level: Table II's (or the
    /// scenario's) mean inter-arrival time for [`LoadDefinition::Arrivals`], else the offered
    /// load.
    pub fn arrival_scale(&self, sc: &Scenario) -> ArrivalScale {
        match self.definition {
            LoadDefinition::Arrivals => ArrivalScale::MeanInterArrival(sc.mean_iat_s),
            _ => ArrivalScale::OfferedLoad(self.offered),
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
    /// The load level the workload was generated at.
    pub load: LoadLevel,
    /// This run's busy processor-time over the arrival span, as fractions of the initial
    /// system's processors × span.
    pub busy_share: BusyShare,
}

/// The workload of a scenario with its arrivals scaled by `scale`: depends only on the
/// scenario's model, BoT count, background, `scale` and `streams` (so every strategy sees the
/// same workload for one seed, and the draws are the same at every scale: only the arrival
/// times change).
pub fn build_workload(
    sc: &Scenario,
    scale: ArrivalScale,
    streams: &RngStreams,
) -> Result<GridWorkload> {
    let bots = sc.model.generate_scaled(
        sc.n_bots,
        scale,
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
    GridWorkload::new(bots, jobs, source)
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
    let level = load_level(sc, workload_streams, sim_streams)?;
    run_at_level(sc, &level, workload_streams, sim_streams)
}

/// Runs a scenario at a load level found before (e.g. by [`load_level`] once for all the
/// strategies of one seed): the workload's arrivals are scaled by
/// [`LoadLevel::arrival_scale`].
pub fn run_at_level(
    sc: &Scenario,
    level: &LoadLevel,
    workload_streams: &RngStreams,
    sim_streams: &RngStreams,
) -> Result<ScenarioResult> {
    let workload = build_workload(sc, level.arrival_scale(sc), workload_streams)?;
    let run = simulate_workload(sc, sc.strategy, &workload, sim_streams)?;
    summarise(run, workload.summary(&sc.platform), *level)
}

fn simulate_workload(
    sc: &Scenario,
    strategy: StrategyKind,
    workload: &GridWorkload,
    sim_streams: &RngStreams,
) -> Result<RunResult> {
    let kappa = Kappa::from_f64(sc.kappa)?;
    let mut prov = strategy.build(kappa, sc.feedback_s, &sc.dynamic)?;
    let mut sched = sc.policy.build();
    simulate(
        &sc.platform,
        workload,
        prov.as_mut(),
        sched.as_mut(),
        &sc.sim,
        sim_streams,
    )
}

/// BoT busy share of the initial system (no overprovisioning) with arrivals scaled by
/// `scale`, and the workload's offered load.
fn realised_at(
    sc: &Scenario,
    scale: ArrivalScale,
    workload_streams: &RngStreams,
    sim_streams: &RngStreams,
) -> Result<(f64, f64)> {
    let workload = build_workload(sc, scale, workload_streams)?;
    let run = simulate_workload(sc, StrategyKind::None, &workload, sim_streams)?;
    Ok((run.busy_share().bot, workload.offered_load(&sc.platform)))
}

/// The load level of a scenario. For [`LoadDefinition::Arrivals`] and
/// [`LoadDefinition::Offered`] one simulation of the initial system measures the realised
/// load (and, for the former, the offered load of the workload). For [`LoadDefinition::Realised`] a deterministic search
/// over the offered load (the arrival scale; the draws stay fixed) finds the offered load at
/// which the initial system's BoT busy share over the arrival span is `sc.load`: start at the
/// offered load equal to the target, double or halve until the target is bracketed (offered
/// loads in `(0, MAX_OFFERED_LOAD]`), then regula falsi (Illinois variant) on log(offered)
/// against log(realised / target) until the realised load is within
/// [`REALISED_LOAD_TOLERANCE`] or [`MAX_CALIBRATION_RUNS`] simulations have run. The level
/// returned is the run closest to the target; `converged` says whether it is within
/// tolerance. A small workload may not reach a high target at all: when every BoT arrives
/// almost at once, the initial system can be busy only while its few tasks last.
///
/// ```
/// use slarm_grid::prelude::*;
/// use slarm_grid::run::load_level;
/// use slarm_stats::RngStreams;
/// let mut sc = Scenario::paper(StrategyKind::None, 1.0);
/// sc.load_definition = LoadDefinition::Realised;
/// sc.n_bots = 200;
/// sc.load = 0.5;
/// let s = RngStreams::new(3);
/// let level = load_level(&sc, &s, &s.child(&[7])).unwrap();
/// assert!(level.converged);
/// assert!((level.realised - 0.5).abs() <= 0.002);
/// assert!(level.offered > level.realised); // heavy-tailed work runs past the last arrival
/// ```
pub fn load_level(
    sc: &Scenario,
    workload_streams: &RngStreams,
    sim_streams: &RngStreams,
) -> Result<LoadLevel> {
    if sc.load_definition == LoadDefinition::Arrivals {
        let (realised, offered) = realised_at(
            sc,
            ArrivalScale::MeanInterArrival(sc.mean_iat_s),
            workload_streams,
            sim_streams,
        )?;
        return Ok(LoadLevel {
            definition: LoadDefinition::Arrivals,
            target: realised,
            offered,
            realised,
            runs: 1,
            converged: true,
        });
    }
    slarm_stats::check::positive("load", sc.load)?;
    let mut runs = 0;
    let mut measure = |offered: f64| -> Result<f64> {
        runs += 1;
        realised_at(
            sc,
            ArrivalScale::OfferedLoad(offered),
            workload_streams,
            sim_streams,
        )
        .map(|r| r.0)
    };
    if sc.load_definition == LoadDefinition::Offered {
        let realised = measure(sc.load)?;
        return Ok(LoadLevel {
            definition: LoadDefinition::Offered,
            target: sc.load,
            offered: sc.load,
            realised,
            runs: 1,
            converged: true,
        });
    }
    if sc.load > 1.0 {
        return Err(crate::error::GridError::InvalidParameter {
            name: "load",
            value: sc.load,
            reason: "a realised load is a fraction of the initial system's processors: at most 1",
        });
    }
    let target = sc.load;
    let err = |realised: f64| (realised.max(1e-12) / target).ln();
    // (offered, realised) of every run; the best is the one closest to the target.
    let mut seen: Vec<(f64, f64)> = Vec::new();
    let mut offered = target.min(MAX_OFFERED_LOAD);
    let mut realised = measure(offered)?;
    seen.push((offered, realised));
    let within = |r: f64| (r - target).abs() <= REALISED_LOAD_TOLERANCE;
    // Bracket: the realised load grows with the offered load.
    let step = if realised < target { 2.0 } else { 0.5 };
    let mut bracket = None;
    while !within(realised) && seen.len() < MAX_CALIBRATION_RUNS {
        let next = (offered * step).min(MAX_OFFERED_LOAD);
        if next == offered {
            break;
        }
        let r = measure(next)?;
        seen.push((next, r));
        if (r < target) != (realised < target) {
            bracket = Some(((offered.ln(), err(realised)), (next.ln(), err(r))));
            realised = r;
            break;
        }
        offered = next;
        realised = r;
    }
    if let Some(((mut xa, mut fa), (mut xb, mut fb))) = bracket {
        if !within(realised) {
            let mut side = 0i8;
            while seen.len() < MAX_CALIBRATION_RUNS {
                let x = if fb != fa {
                    (xb - fb * (xb - xa) / (fb - fa)).clamp(xa.min(xb), xa.max(xb))
                } else {
                    0.5 * (xa + xb)
                };
                let o = x.exp();
                let r = measure(o)?;
                seen.push((o, r));
                if within(r) || (xa - xb).abs() < 1e-12 {
                    break;
                }
                let f = err(r);
                if (f < 0.0) == (fb < 0.0) {
                    xb = x;
                    fb = f;
                    if side == -1 {
                        fa *= 0.5;
                    }
                    side = -1;
                } else {
                    xa = x;
                    fa = f;
                    if side == 1 {
                        fb *= 0.5;
                    }
                    side = 1;
                }
            }
        }
    }
    let (offered, realised) = seen
        .iter()
        .copied()
        .min_by(|a, b| (a.1 - target).abs().total_cmp(&(b.1 - target).abs()))
        .unwrap_or((target, f64::NAN));
    Ok(LoadLevel {
        definition: LoadDefinition::Realised,
        target,
        offered,
        realised,
        runs,
        converged: within(realised),
    })
}

fn summarise(run: RunResult, workload: WorkloadSummary, load: LoadLevel) -> Result<ScenarioResult> {
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
    let busy_share = run.busy_share();
    Ok(ScenarioResult {
        run,
        workload,
        consistency: consistency_all,
        consistency_min_group: by_group,
        nsl,
        mean_makespan_s,
        p90_makespan_s,
        load,
        busy_share,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// At 80 % realised load the initial system queues BoT tasks and All at κ = 2 makes the
    /// makespans more consistent; the offered-load reading of the same workload leaves the
    /// initial system far less busy. (600 BoTs, seed 1, synthetic background; the tolerance
    /// is the search's own.)
    #[test]
    fn realised_load_is_hit_and_overprovisioning_then_matters() {
        let streams = RngStreams::new(1);
        let mut none = Scenario::paper(StrategyKind::None, 1.0);
        none.load_definition = LoadDefinition::Realised;
        none.model = IosupBotModel::default();
        none.n_bots = 600;
        let level = load_level(&none, &streams, &streams.child(&[label("sim")])).unwrap();
        assert!(level.converged, "{level:?}");
        assert!((level.realised - 0.8).abs() <= REALISED_LOAD_TOLERANCE);
        let r_none =
            run_at_level(&none, &level, &streams, &streams.child(&[label("sim")])).unwrap();
        assert_eq!(r_none.busy_share.bot, level.realised);
        assert!(r_none.run.bots.iter().any(|b| b.max_wait_s > 0.0));
        let mut all = none.clone();
        all.strategy = StrategyKind::All;
        all.kappa = 2.0;
        let r_all = run_at_level(&all, &level, &streams, &streams.child(&[label("sim")])).unwrap();
        assert!(r_all.consistency.c_d < r_none.consistency.c_d);
        let mut offered = none.clone();
        offered.load_definition = LoadDefinition::Offered;
        let o = load_level(&offered, &streams, &streams.child(&[label("sim")])).unwrap();
        assert_eq!((o.offered, o.runs), (0.8, 1));
        assert!(o.realised < 0.5 * level.realised, "{o:?}");
    }

    /// The default reading: arrivals at Table II's 124.6 s, one simulation measures the load,
    /// and the run's own busy share is that load.
    #[test]
    fn default_arrivals_measure_the_load() {
        let streams = RngStreams::new(4);
        let mut sc = Scenario::paper(StrategyKind::None, 1.0);
        sc.n_bots = 300;
        let sim = streams.child(&[label("sim")]);
        let level = load_level(&sc, &streams, &sim).unwrap();
        assert_eq!(level.definition, LoadDefinition::Arrivals);
        assert_eq!((level.runs, level.converged), (1, true));
        assert_eq!(level.target, level.realised);
        let r = run_at_level(&sc, &level, &streams, &sim).unwrap();
        assert_eq!(r.busy_share.bot, level.realised);
        assert!((r.workload.mean_iat_s - TABLE2_MEAN_IAT_S).abs() < 1e-9);
        assert!((r.workload.offered_load - level.offered).abs() < 1e-12);
        assert!(level.realised > 0.0 && level.realised < level.offered);
    }

    #[test]
    fn realised_loads_above_one_are_errors() {
        let mut sc = Scenario::paper(StrategyKind::None, 1.0);
        sc.load_definition = LoadDefinition::Realised;
        sc.load = 1.2;
        let s = RngStreams::new(1);
        assert!(load_level(&sc, &s, &s).is_err());
    }
}
