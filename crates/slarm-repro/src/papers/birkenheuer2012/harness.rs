//! The experiment harness of the evaluation (Birkenheuer 2012, §5.1 and Chapter 6): batteries
//! of 1000 jobs from a 20,000-job test window, loading a trace of [`PWA_TRACES`] (or the
//! labelled synthetic fallback), learning the class registries with the seven runtime classes
//! of Chapter 6, failure events per battery, running batteries and summarising them as means
//! with 95 % Student-t confidence intervals (the thesis prints none). Built on the public API
//! of `slarm-overbook`: [`prepare`] and [`Prepared`] for the trace, [`ClassRegistry`] for the
//! statistics, [`simulate_battery`] for each battery.
//!
//! [`PWA_TRACES`]: super::traces::PWA_TRACES

use std::path::Path;

use slarm_overbook::classes::{ClassRegistry, RegistryConfig, RuntimeScheme, StatsSource};
use slarm_overbook::failure::{
    FailureSource, NodeEvent, SyntheticPoisson, TraceReplay, DEFAULT_LAMBDA_PER_HOUR,
    DEFAULT_MU_PER_HOUR,
};
use slarm_overbook::job::{SlaJob, SECONDS_PER_HOUR};
use slarm_overbook::sim::{failure_horizon, simulate_battery, BatteryConfig, BatteryResult};
use slarm_overbook::workload::{prepare, read_usable, synthetic_jobs, Prepared};
use slarm_overbook::{OverbookError, Result};
use slarm_stats::rng::RngStreams;
use slarm_stats::summary::ConfidenceInterval;

use super::traces::TraceSpec;

/// Jobs per battery in the evaluation.
pub const BATTERY_SIZE: usize = 1000;
/// Test-window size (20 batteries).
pub const TEST_JOBS: usize = 20_000;

/// Mean and 95 % confidence half-width over batteries.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Metric {
    /// Mean over batteries.
    pub mean: f64,
    /// Half-width of the 95 % CI (0 with fewer than two batteries).
    pub ci95: f64,
}

impl Metric {
    /// Summarises samples.
    pub fn of(samples: &[f64]) -> Self {
        let mean = if samples.is_empty() {
            0.0
        } else {
            samples.iter().sum::<f64>() / samples.len() as f64
        };
        let ci95 = ConfidenceInterval::of_samples(samples, 0.95)
            .map(|c| c.half_width)
            .unwrap_or(0.0);
        Self { mean, ci95 }
    }
}

/// Battery means: the figures `slarm overbook` prints.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Summary {
    /// Batteries summarised.
    pub batteries: usize,
    /// Fees of successful jobs.
    pub fees: Metric,
    /// Penalties of failed jobs.
    pub penalties: Metric,
    /// Gain = fees - penalties.
    pub gain: Metric,
    /// Successful jobs.
    pub successful: Metric,
    /// Failed jobs.
    pub failed: Metric,
    /// Dropped jobs.
    pub dropped: Metric,
}

/// Summarises battery results; penalties re-priced at `ratio` if given.
pub fn summarize(results: &[BatteryResult], ratio: Option<f64>) -> Summary {
    let col = |f: &dyn Fn(&BatteryResult) -> f64| -> Metric {
        Metric::of(&results.iter().map(f).collect::<Vec<_>>())
    };
    let pen = |r: &BatteryResult| match ratio {
        Some(q) => q * r.failed_fees,
        None => r.penalties,
    };
    Summary {
        batteries: results.len(),
        fees: col(&|r| r.fees),
        penalties: col(&|r| pen(r)),
        gain: col(&|r| r.fees - pen(r)),
        successful: col(&|r| r.successful as f64),
        failed: col(&|r| r.failed as f64),
        dropped: col(&|r| r.dropped as f64),
    }
}

/// Where failure events come from in the harness.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FailureMode {
    /// Synthetic Poisson failures with the default lambda, mu (the LANL failure log is not
    /// available).
    Synthetic,
    /// No node failures.
    None,
}

/// A trace ready for batteries, with its registries.
#[derive(Debug, Clone)]
pub struct TraceSetup {
    /// Prepared trace.
    pub prepared: Prepared,
    /// Registry of runtime classes.
    pub runtime: ClassRegistry,
    /// Registry of resource classes.
    pub resources: ClassRegistry,
}

impl TraceSetup {
    /// Loads `spec` from `path` (or the labelled synthetic fallback when there is no path) keeping the
    /// last `test_jobs` usable jobs for batteries.
    pub fn load(
        spec: &TraceSpec,
        path: Option<&Path>,
        test_jobs: usize,
        seed: u64,
    ) -> Result<Self> {
        let prepared = match path {
            Some(p) => {
                let (jobs, dropped, _) = read_usable(p, Some(spec.machine))?;
                prepare(
                    spec.name,
                    jobs,
                    spec.machine,
                    test_jobs,
                    Some(spec.factor),
                    dropped,
                    false,
                )?
            }
            None => {
                let mut rng = RngStreams::new(seed).stream(&[slarm_stats::rng::label(spec.name)]);
                let jobs = synthetic_jobs(spec.machine, test_jobs * 2, &mut rng);
                prepare(spec.name, jobs, spec.machine, test_jobs, None, 0, true)?
            }
        };
        Self::from_prepared(prepared)
    }

    /// Learns the registries of a prepared trace.
    pub fn from_prepared(prepared: Prepared) -> Result<Self> {
        let training = prepared.training_jobs()?;
        let cfg = |source| RegistryConfig {
            source,
            // The PWA evaluation uses the seven runtime classes of the Chapter 6 text
            // (thesis Chapter 6); the library default stays the eight of Table 4.2.
            scheme: RuntimeScheme::Seven,
            ..RegistryConfig::default()
        };
        Ok(Self {
            runtime: ClassRegistry::learn(&training, cfg(StatsSource::Runtime))?,
            resources: ClassRegistry::learn(&training, cfg(StatsSource::Resources))?,
            prepared,
        })
    }

    /// The registry for a statistics source (runtime or resources; others fall back to runtime).
    pub fn registry(&self, source: StatsSource) -> &ClassRegistry {
        match source {
            StatsSource::Resources => &self.resources,
            _ => &self.runtime,
        }
    }

    /// Runs battery `k` of `size` jobs.
    pub fn run_battery(
        &self,
        k: usize,
        size: usize,
        source: StatsSource,
        cfg: &BatteryConfig,
        failures: FailureMode,
        seed: u64,
    ) -> Result<BatteryResult> {
        let jobs = self.prepared.battery(k, size, cfg.test.penalty_ratio())?;
        let events = battery_failures(
            &jobs,
            self.prepared.machine,
            failures,
            seed,
            &self.prepared.name,
            k,
        )?;
        simulate_battery(
            &jobs,
            self.prepared.machine,
            self.registry(source),
            &events,
            cfg,
        )
    }

    /// Runs battery `k` of `size` jobs with the node failures of a replayed failure log
    /// (the same log from every battery's start, as the thesis replays the LANL log, §5.1.1).
    pub fn run_battery_replaying(
        &self,
        k: usize,
        size: usize,
        source: StatsSource,
        cfg: &BatteryConfig,
        log: &TraceReplay,
    ) -> Result<BatteryResult> {
        let jobs = self.prepared.battery(k, size, cfg.test.penalty_ratio())?;
        let events = log.events(self.prepared.machine, failure_horizon(&jobs));
        simulate_battery(
            &jobs,
            self.prepared.machine,
            self.registry(source),
            &events,
            cfg,
        )
    }
}

/// Most expected events of one battery's synthetic failure stream, a bound on its work: at
/// the default failure rate, 1e8 events take about 3.9e11 node-hours.
const MAX_FAILURE_EVENTS: f64 = 1e8;

/// Failure events of one battery: the same for every strategy and test (the thesis replays the
/// same failure traces in every run), keyed by (trace, battery).
pub fn battery_failures(
    jobs: &[SlaJob],
    machine: usize,
    mode: FailureMode,
    seed: u64,
    trace: &str,
    battery: usize,
) -> Result<Vec<NodeEvent>> {
    match mode {
        FailureMode::None => Ok(Vec::new()),
        FailureMode::Synthetic => {
            let key = RngStreams::new(seed).key(&[slarm_stats::rng::label(trace), battery as u64]);
            let src = SyntheticPoisson::new(DEFAULT_LAMBDA_PER_HOUR, DEFAULT_MU_PER_HOUR, key)?;
            let end = failure_horizon(jobs);
            // Two events (failure, repair) per expected failure of each node up to the end.
            let expected =
                2.0 * machine as f64 * DEFAULT_LAMBDA_PER_HOUR * end as f64 / SECONDS_PER_HOUR;
            if expected > MAX_FAILURE_EVENTS {
                return Err(OverbookError::InvalidParameter {
                    name: "battery span",
                    value: end as f64,
                    reason: "its synthetic failure stream would hold more than 1e8 events \
                             (deadlines too far or too many nodes)",
                });
            }
            Ok(src.events(machine, end))
        }
    }
}

/// Median and 99th percentile of latencies in milliseconds.
pub fn latency_quantiles_ms(ns: &[u64]) -> (f64, f64) {
    if ns.is_empty() {
        return (0.0, 0.0);
    }
    let mut v = ns.to_vec();
    v.sort_unstable();
    let q = |p: f64| {
        let idx = ((v.len() as f64 - 1.0) * p).round() as usize;
        v[idx.min(v.len() - 1)] as f64 / 1e6
    };
    (q(0.5), q(0.99))
}

#[cfg(test)]
mod tests {
    use super::*;
    use slarm_overbook::job::Time;

    /// A deadline of `Time::MAX` (the saturated deadline of a huge estimate) overflowed
    /// `deadline + 1`; its failure stream would never end: a typed error now.
    #[test]
    fn a_saturated_deadline_is_an_error_not_an_overflow() {
        let job = SlaJob::with_sla(1, 0, Time::MAX / 2 + 1, 60, 1, 1.0).unwrap();
        assert_eq!(job.deadline, Time::MAX);
        assert_eq!(failure_horizon(std::slice::from_ref(&job)), Time::MAX);
        let e = battery_failures(
            std::slice::from_ref(&job),
            4,
            FailureMode::Synthetic,
            1,
            "t",
            0,
        );
        assert!(
            matches!(
                e,
                Err(OverbookError::InvalidParameter {
                    name: "battery span",
                    ..
                })
            ),
            "{e:?}"
        );
        assert_eq!(
            battery_failures(&[job], 4, FailureMode::None, 1, "t", 0),
            Ok(Vec::new())
        );
    }
}
