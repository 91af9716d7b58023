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

impl From<slarm_stats::check::CheckError> for QueueError {
    /// A failed [`slarm_stats::check`] validator: a non-finite value is
    /// [`QueueError::NonFinite`], any other broken requirement [`QueueError::OutOfRange`].
    fn from(e: slarm_stats::check::CheckError) -> Self {
        use slarm_stats::check::Requirement;
        match e.requirement() {
            Requirement::Finite => QueueError::NonFinite {
                name: e.name(),
                value: e.value(),
            },
            r => QueueError::OutOfRange {
                name: e.name(),
                requirement: r.term(),
                value: e.value(),
            },
        }
    }
}
