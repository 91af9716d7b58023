//! The error type of the crate: every way a model input can have no answer.

use thiserror::Error;

/// Why a queueing computation could not produce an answer.
#[derive(Debug, Clone, PartialEq, Error)]
#[non_exhaustive]
pub enum QueueError {
    /// An input that must be a finite number was NaN or infinite.
    #[error("{name} must be finite, got {value}")]
    NonFinite {
        /// Parameter name.
        name: &'static str,
        /// Offending value.
        value: f64,
    },
    /// An input that must be strictly positive (or non-negative) was not.
    #[error("{name} must be {requirement}, got {value}")]
    OutOfRange {
        /// Parameter name.
        name: &'static str,
        /// What was required, e.g. "> 0".
        requirement: &'static str,
        /// Offending value.
        value: f64,
    },
    /// The pool is unstable: the offered load is not below the number of servers.
    #[error("unstable queue: lambda = {lambda} >= m * mu = {m} * {mu}")]
    Unstable {
        /// Arrival rate.
        lambda: f64,
        /// Service rate.
        mu: f64,
        /// Number of servers.
        m: u64,
    },
    /// The SLA can never be met: `y >= 1 - exp(-mu x)` (Hu 2009, §4.2).
    #[error(
        "infeasible SLA P(T <= {x}) >= {y}: the bound 1 - exp(-mu x) = {bound} is not above y"
    )]
    InfeasibleSla {
        /// Response-time threshold.
        x: f64,
        /// Target probability.
        y: f64,
        /// The supremum `1 - exp(-mu x)` of F(x) over m.
        bound: f64,
    },
    /// A node search exceeded its cap ([`crate::sizing::SEARCH_CAP`] for Algorithm 1, `max_extra`
    /// for [`crate::sim::min_nodes_sim`]).
    #[error("node search exceeded the cap of {cap} servers")]
    IterationCap {
        /// The cap.
        cap: u64,
    },
    /// A malformed class partition (missing, repeated or out-of-range class index).
    #[error("invalid partition: {0}")]
    InvalidPartition(String),
    /// A malformed configuration (empty class list, too many classes, bad grid, ...).
    #[error("invalid configuration: {0}")]
    InvalidConfig(String),
}

/// Result alias of the crate.
pub type Result<T> = std::result::Result<T, QueueError>;

/// `Ok(v)` if `v` is finite and `> 0`.
pub(crate) fn positive(name: &'static str, v: f64) -> Result<f64> {
    finite(name, v)?;
    if v > 0.0 {
        Ok(v)
    } else {
        Err(QueueError::OutOfRange {
            name,
            requirement: "> 0",
            value: v,
        })
    }
}

/// `Ok(v)` if `0 < v < 1` (a target probability).
pub(crate) fn probability(name: &'static str, v: f64) -> Result<f64> {
    positive(name, v)?;
    if v < 1.0 {
        Ok(v)
    } else {
        Err(QueueError::OutOfRange {
            name,
            requirement: "< 1",
            value: v,
        })
    }
}

/// `Ok(v)` if `v` is finite and `>= 0`.
pub(crate) fn non_negative(name: &'static str, v: f64) -> Result<f64> {
    finite(name, v)?;
    if v >= 0.0 {
        Ok(v)
    } else {
        Err(QueueError::OutOfRange {
            name,
            requirement: ">= 0",
            value: v,
        })
    }
}

/// `Ok(v)` if `v` is finite.
pub(crate) fn finite(name: &'static str, v: f64) -> Result<f64> {
    if v.is_finite() {
        Ok(v)
    } else {
        Err(QueueError::NonFinite { name, value: v })
    }
}
