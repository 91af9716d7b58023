//! Class-based selection of runtime-ratio distributions (Birkenheuer 2012, §3.2.1,
//! Chapter 4, Tables 4.2-4.5): runtime-estimate classes, resource classes, user and application classes, with
//! an all-jobs fallback when a class has too few samples.

use std::collections::BTreeMap;

use crate::error::{OverbookError, Result};
use crate::job::SlaJob;
use slarm_stats::ratio::RatioDist;
use slarm_stats::Rounding;

/// Lower borders (seconds) of the 8 runtime classes of Table 4.2: <10 min, 10 min-1 h, 1-2 h,
/// 2-3 h, 3-4 h, 4-5 h, 5-12 h, >12 h. Intervals are half-open `[lo, hi)`.
pub const RUNTIME_BORDERS_8: [i64; 7] = [600, 3600, 7200, 10_800, 14_400, 18_000, 43_200];
/// Borders of the 7 runtime classes of the Chapter 6 text (3-5 h merged).
pub const RUNTIME_BORDERS_7: [i64; 6] = [600, 3600, 7200, 10_800, 18_000, 43_200];
/// Upper bounds (inclusive) of the 8 resource classes: 1, 2, 3-4, 5-8, 9-16, 17-32, 33-64, >64.
pub const RESOURCE_UPPER: [usize; 7] = [1, 2, 4, 8, 16, 32, 64];

/// Which runtime-class scheme to use (Table 4.2 has eight, the Chapter 6 text seven).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum RuntimeScheme {
    /// Eight classes of Table 4.2 (default).
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
#[non_exhaustive]
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

impl std::str::FromStr for StatsSource {
    type Err = OverbookError;
    /// Parses the command-line spelling (`runtime`, `resources`, `user`, `application` or `app`, `all`).
    fn from_str(s: &str) -> Result<Self> {
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

    /// Parses the command-line spelling (`runtime`, `resources`, `user`, `application` or `app`, `all`).
    #[deprecated(since = "0.1.0", note = "use `str::parse` (`FromStr`)")]
    pub fn parse(s: &str) -> Result<Self> {
        s.parse()
    }
}

/// Key of one class.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
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
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct RegistryConfig {
    /// Selecting attribute.
    pub source: StatsSource,
    /// Runtime-class scheme.
    pub scheme: RuntimeScheme,
    /// Percent-bin rounding of `100·omega/x` (default up: a job looks at least as long as it
    /// was).
    pub rounding: Rounding,
    /// A class with fewer samples falls back to the all-jobs distribution (the thesis does so for users outside the top ten).
    pub min_samples: usize,
}

impl Default for RegistryConfig {
    fn default() -> Self {
        Self {
            source: StatsSource::Runtime,
            scheme: RuntimeScheme::Eight,
            rounding: Rounding::Up,
            min_samples: 30,
        }
    }
}

/// Learned class distributions plus the all-jobs fallback.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ClassRegistry {
    config: RegistryConfig,
    all: RatioDist,
    classes: BTreeMap<JobClassKey, RatioDist>,
}

impl ClassRegistry {
    /// Learns the registry from training jobs (their `runtime` and `estimate`).
    pub fn learn(training: &[SlaJob], config: RegistryConfig) -> Result<Self> {
        let all = learn(
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
                classes.insert(key, learn(samples, config.rounding)?);
            }
        }
        Ok(Self {
            config,
            all,
            classes,
        })
    }

    fn key_of(config: &RegistryConfig, job: &SlaJob) -> Option<JobClassKey> {
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

    /// The class whose distribution [`Self::for_job`] gives (`None`: the all-jobs fallback).
    pub fn class_for_job(&self, job: &SlaJob) -> Option<JobClassKey> {
        Self::key_of(&self.config, job).filter(|k| self.classes.contains_key(k))
    }

    /// The distribution for a new job: its class, or the all-jobs fallback.
    pub fn for_job(&self, job: &SlaJob) -> &RatioDist {
        Self::key_of(&self.config, job)
            .and_then(|k| self.classes.get(&k))
            .unwrap_or(&self.all)
    }

    /// The all-jobs distribution.
    pub fn all_jobs(&self) -> &RatioDist {
        &self.all
    }

    /// The learned classes (those with enough samples).
    pub fn classes(&self) -> &BTreeMap<JobClassKey, RatioDist> {
        &self.classes
    }

    /// The configuration.
    pub fn config(&self) -> &RegistryConfig {
        &self.config
    }
}

/// Learns the 101-bin distribution of `omega/x` from `(runtime, estimate)` pairs in seconds;
/// pairs with a non-positive estimate or a negative runtime carry no ratio and are skipped.
fn learn(samples: impl IntoIterator<Item = (i64, i64)>, rounding: Rounding) -> Result<RatioDist> {
    let usable = samples
        .into_iter()
        .filter(|&(omega, x)| x > 0 && omega >= 0)
        .map(|(omega, x)| (omega as f64, x as f64));
    RatioDist::learn(usable, rounding).map_err(|e| match e {
        slarm_stats::StatsError::TooFew { .. } => {
            OverbookError::EmptyStatistics("no sample with a positive estimate".into())
        }
        e => e.into(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn class_borders_are_half_open() {
        // Table 4.2 borders, read as [lo, hi).
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
            jobs.push(SlaJob::with_sla(i, 0, 100, 10, 1, 1.0).unwrap());
        }
        jobs.push(SlaJob::with_sla(99, 0, 100_000, 100_000, 1, 1.0).unwrap());
        let reg = ClassRegistry::learn(&jobs, RegistryConfig::default()).unwrap();
        assert_eq!(reg.classes().len(), 1);
        let long = &jobs[40];
        assert_eq!(reg.for_job(long), reg.all_jobs());
        assert!((reg.for_job(&jobs[0]).cdf(10) - 1.0).abs() < 1e-12);
        assert!("bogus".parse::<StatsSource>().is_err());
    }

    // Learning the ratio statistics (moved from the former private ratio module; the model
    // is now slarm-stats' `RatioDist`).
    use crate::pos::fits_within;
    use proptest::prelude::*;
    use slarm_stats::ratio::{percent_bin, PERCENT_BINS};

    #[test]
    fn rounding_and_clamping() {
        let bin = |r, pct: f64| percent_bin(pct, 100.0, r).unwrap().unwrap();
        assert_eq!(bin(Rounding::Up, 0.2), 1);
        assert_eq!(bin(Rounding::Down, 0.2), 0);
        assert_eq!(bin(Rounding::Nearest, 49.5), 50);
        assert_eq!(bin(Rounding::Up, 250.0), 100);
        assert_eq!(bin(Rounding::Up, 0.0), 0);
    }

    #[test]
    fn empty_statistics_are_an_error() {
        assert!(matches!(
            learn([(5, 0), (-1, 10)], Rounding::Up),
            Err(OverbookError::EmptyStatistics(_))
        ));
        assert!(RatioDist::from_pmf(&[0.0; PERCENT_BINS]).is_err());
        assert!(RatioDist::from_pmf(&[1.0; 3]).is_err());
    }

    #[test]
    fn overestimates_clamp_to_bin_100() {
        let d = learn([(300, 100)], Rounding::Up).unwrap();
        assert_eq!(d.pdf(100), 1.0);
        assert_eq!(fits_within(&d, 99, 100), 0.0);
        assert_eq!(fits_within(&d, 100, 100), 1.0);
        assert_eq!(fits_within(&d, -1, 100), 0.0);
        assert_eq!(fits_within(&d, 5, 0), 1.0);
    }

    proptest! {
        #[test]
        fn cdf_is_monotone_and_ends_at_one(samples in prop::collection::vec((0i64..10_000, 1i64..5_000), 1..200)) {
            let d = learn(samples.clone(), Rounding::Up).unwrap();
            prop_assert_eq!(d.samples() as usize, samples.len());
            let mut prev = 0.0;
            for k in 0..PERCENT_BINS {
                prop_assert!(d.cdf(k) + 1e-12 >= prev);
                prev = d.cdf(k);
            }
            prop_assert!((d.cdf(100) - 1.0).abs() < 1e-12);
            let s: f64 = d.masses().iter().sum();
            prop_assert!((s - 1.0).abs() < 1e-9);
        }
    }
}
