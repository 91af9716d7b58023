//! Class-based selection of runtime-ratio distributions (spec 002 part 1 §3.2, §8 B11/B12;
//! part 2 G7): runtime-estimate classes, resource classes, user and application classes, with
//! an all-jobs fallback when a class has too few samples.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::error::{OverbookError, Result};
use crate::job::Job;
use crate::ratio::{BinRounding, RatioDistribution};

/// Lower borders (seconds) of the 8 runtime classes of Table 4.2: <10 min, 10 min-1 h, 1-2 h,
/// 2-3 h, 3-4 h, 4-5 h, 5-12 h, >12 h. Intervals are half-open `[lo, hi)`.
pub const RUNTIME_BORDERS_8: [i64; 7] = [600, 3600, 7200, 10_800, 14_400, 18_000, 43_200];
/// Borders of the 7 runtime classes of the Chapter 6 text (3-5 h merged).
pub const RUNTIME_BORDERS_7: [i64; 6] = [600, 3600, 7200, 10_800, 18_000, 43_200];
/// Upper bounds (inclusive) of the 8 resource classes: 1, 2, 3-4, 5-8, 9-16, 17-32, 33-64, >64.
pub const RESOURCE_UPPER: [usize; 7] = [1, 2, 4, 8, 16, 32, 64];

/// Which runtime-class scheme to use (part 2 G7).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum RuntimeScheme {
    /// Eight classes of Table 4.2 (default, part 1 §8 B11).
    #[default]
    Eight,
    /// Seven classes of the Chapter 6 text.
    Seven,
}

impl RuntimeScheme {
    /// Class index of an estimate in seconds.
    pub fn class_of(self, estimate: i64) -> usize {
        let borders: &[i64] = match self {
            RuntimeScheme::Eight => &RUNTIME_BORDERS_8,
            RuntimeScheme::Seven => &RUNTIME_BORDERS_7,
        };
        borders.iter().take_while(|&&b| estimate >= b).count()
    }
}

/// Resource class index (0..8) of a node count.
pub fn resource_class(nodes: usize) -> usize {
    RESOURCE_UPPER.iter().take_while(|&&u| nodes > u).count()
}

/// The attribute that selects a job's distribution.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StatsSource {
    /// Runtime-estimate classes ("runt. est." in Ch. 6).
    Runtime,
    /// Requested-resource classes ("resources").
    Resources,
    /// Per-user distributions.
    User,
    /// Per-application distributions.
    Application,
    /// One distribution over all jobs.
    All,
}

impl StatsSource {
    /// Short name used in cell ids and the CLI.
    pub fn name(self) -> &'static str {
        match self {
            StatsSource::Runtime => "runtime",
            StatsSource::Resources => "resources",
            StatsSource::User => "user",
            StatsSource::Application => "application",
            StatsSource::All => "all",
        }
    }

    /// Parses the CLI spelling.
    pub fn parse(s: &str) -> Result<Self> {
        Ok(match s {
            "runtime" => StatsSource::Runtime,
            "resources" => StatsSource::Resources,
            "user" => StatsSource::User,
            "application" | "app" => StatsSource::Application,
            "all" => StatsSource::All,
            _ => {
                return Err(OverbookError::Parse {
                    what: "statistics source",
                    input: s.to_string(),
                    reason: "expected runtime, resources, user, application or all".into(),
                })
            }
        })
    }
}

/// Key of one class.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum JobClassKey {
    /// Runtime-estimate class index.
    Runtime(usize),
    /// Resource class index.
    Resources(usize),
    /// User id.
    User(i64),
    /// Application id.
    Application(i64),
}

/// Configuration of the registry.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct RegistryConfig {
    /// Selecting attribute.
    pub source: StatsSource,
    /// Runtime-class scheme.
    pub scheme: RuntimeScheme,
    /// Percent-bin rounding.
    pub rounding: BinRounding,
    /// A class with fewer samples falls back to the all-jobs distribution (part 1 §8 B12).
    pub min_samples: usize,
}

impl Default for RegistryConfig {
    fn default() -> Self {
        Self {
            source: StatsSource::Runtime,
            scheme: RuntimeScheme::Eight,
            rounding: BinRounding::Ceil,
            min_samples: 30,
        }
    }
}

/// Learned class distributions plus the all-jobs fallback.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClassRegistry {
    config: RegistryConfig,
    all: RatioDistribution,
    classes: BTreeMap<JobClassKey, RatioDistribution>,
}

impl ClassRegistry {
    /// Learns the registry from training jobs (their `runtime` and `estimate`).
    pub fn learn(training: &[Job], config: RegistryConfig) -> Result<Self> {
        let all = RatioDistribution::learn(
            training.iter().map(|j| (j.runtime, j.estimate)),
            config.rounding,
        )?;
        let mut groups: BTreeMap<JobClassKey, Vec<(i64, i64)>> = BTreeMap::new();
        for j in training {
            if let Some(key) = Self::key_of(&config, j) {
                groups.entry(key).or_default().push((j.runtime, j.estimate));
            }
        }
        let mut classes = BTreeMap::new();
        for (key, samples) in groups {
            if samples.len() >= config.min_samples.max(1) {
                classes.insert(key, RatioDistribution::learn(samples, config.rounding)?);
            }
        }
        Ok(Self {
            config,
            all,
            classes,
        })
    }

    fn key_of(config: &RegistryConfig, job: &Job) -> Option<JobClassKey> {
        match config.source {
            StatsSource::Runtime => {
                Some(JobClassKey::Runtime(config.scheme.class_of(job.estimate)))
            }
            StatsSource::Resources => Some(JobClassKey::Resources(resource_class(job.nodes))),
            StatsSource::User => job.user.map(JobClassKey::User),
            StatsSource::Application => job.app.map(JobClassKey::Application),
            StatsSource::All => None,
        }
    }

    /// The distribution for a new job: its class, or the all-jobs fallback.
    pub fn for_job(&self, job: &Job) -> &RatioDistribution {
        Self::key_of(&self.config, job)
            .and_then(|k| self.classes.get(&k))
            .unwrap_or(&self.all)
    }

    /// The all-jobs distribution.
    pub fn all_jobs(&self) -> &RatioDistribution {
        &self.all
    }

    /// The learned classes (those with enough samples).
    pub fn classes(&self) -> &BTreeMap<JobClassKey, RatioDistribution> {
        &self.classes
    }

    /// The configuration.
    pub fn config(&self) -> &RegistryConfig {
        &self.config
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn class_borders_are_half_open() {
        // part 1 §8 B11: [lo, hi) borders.
        assert_eq!(RuntimeScheme::Eight.class_of(599), 0);
        assert_eq!(RuntimeScheme::Eight.class_of(600), 1);
        assert_eq!(RuntimeScheme::Eight.class_of(14_400), 5);
        assert_eq!(RuntimeScheme::Seven.class_of(14_400), 4);
        assert_eq!(RuntimeScheme::Eight.class_of(100_000), 7);
        assert_eq!(RuntimeScheme::Seven.class_of(100_000), 6);
        assert_eq!(resource_class(1), 0);
        assert_eq!(resource_class(2), 1);
        assert_eq!(resource_class(4), 2);
        assert_eq!(resource_class(5), 3);
        assert_eq!(resource_class(64), 6);
        assert_eq!(resource_class(65), 7);
    }

    #[test]
    fn sparse_classes_fall_back_to_all_jobs() {
        let mut jobs = Vec::new();
        for i in 0..40 {
            jobs.push(Job::with_sla(i, 0, 100, 10, 1, 1.0).unwrap());
        }
        jobs.push(Job::with_sla(99, 0, 100_000, 100_000, 1, 1.0).unwrap());
        let reg = ClassRegistry::learn(&jobs, RegistryConfig::default()).unwrap();
        assert_eq!(reg.classes().len(), 1);
        let long = &jobs[40];
        assert_eq!(reg.for_job(long), reg.all_jobs());
        assert!((reg.for_job(&jobs[0]).cdf(10) - 1.0).abs() < 1e-12);
        assert!(StatsSource::parse("bogus").is_err());
    }
}
