//! The crate's error type.

use thiserror::Error;

/// Everything that can go wrong when building or running a grid model.
#[derive(Debug, Clone, PartialEq, Error)]
#[non_exhaustive]
pub enum GridError {
    /// A numeric parameter is NaN, infinite or outside its valid range.
    #[error("invalid parameter {name} = {value}: {reason}")]
    InvalidParameter {
        /// Parameter name.
        name: &'static str,
        /// The rejected value.
        value: f64,
        /// What the valid range is.
        reason: &'static str,
    },
    /// A platform description is unusable (no sites, a site without processors, ...).
    #[error("invalid platform: {0}")]
    InvalidPlatform(String),
    /// A line of a platform file could not be parsed (see [`crate::platform::parse_platform`]).
    #[error("platform line {line}: {message}")]
    MalformedPlatform {
        /// 1-based line number.
        line: usize,
        /// What was wrong, naming the bad value.
        message: String,
    },
    /// A workload is unusable (no BoTs, an empty BoT, a negative runtime, ...).
    #[error("invalid workload: {0}")]
    InvalidWorkload(String),
    /// A background trace line could not be parsed.
    #[error("background trace line {line}: {message}")]
    MalformedTrace {
        /// 1-based line number.
        line: usize,
        /// What was wrong.
        message: String,
    },
    /// A background trace file could not be opened, decompressed or read.
    #[error("background trace {path}: {message}")]
    TraceFile {
        /// The file as given.
        path: String,
        /// What went wrong.
        message: String,
    },
    /// A metric has no value for the given data (e.g. no size group, a zero mean).
    #[error("metric undefined: {0}")]
    UndefinedMetric(String),
    /// The discrete-event kernel rejected an event (a time in the past, NaN, ...).
    #[error("simulation kernel: {0}")]
    Kernel(#[from] slarm_sim::SimError),
    /// The event queue ran empty while BoTs were still unfinished (a bug in the model, never
    /// an input error).
    #[error("simulation kernel: event queue drained before every BoT completed")]
    QueueDrained,
}

/// A name read from text (a scheduling policy, an overprovisioning strategy) is not one
/// this crate knows.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("unknown {what} {given:?} (expected {expected})")]
#[non_exhaustive]
pub struct GridNameError {
    /// What was being read (`"policy"`, `"strategy"`).
    pub what: &'static str,
    /// The text as given.
    pub given: String,
    /// The accepted names.
    pub expected: &'static str,
}

/// Result alias of this crate.
pub type Result<T> = std::result::Result<T, GridError>;

impl From<slarm_stats::check::CheckError> for GridError {
    /// A failed [`slarm_stats::check`] validator is a [`GridError::InvalidParameter`] whose
    /// reason states the broken requirement.
    fn from(e: slarm_stats::check::CheckError) -> Self {
        GridError::InvalidParameter {
            name: e.name(),
            value: e.value(),
            reason: e.requirement().reason(),
        }
    }
}
