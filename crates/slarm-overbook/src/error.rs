//! The crate's error type.

use thiserror::Error;

/// Everything that can go wrong in the overbooking model, its simulator and its trace
/// preparation.
#[derive(Debug, Error, Clone, PartialEq)]
#[non_exhaustive]
pub enum OverbookError {
    /// A parameter was NaN, infinite, negative or otherwise out of its domain.
    #[error("invalid parameter {name}: {value} ({reason})")]
    InvalidParameter {
        /// Parameter name.
        name: &'static str,
        /// The offending value.
        value: f64,
        /// Why it is invalid.
        reason: &'static str,
    },
    /// A job description is inconsistent (deadline before release, zero nodes, ...).
    #[error("invalid job {id}: {reason}")]
    InvalidJob {
        /// Job identifier.
        id: u64,
        /// Why it is invalid.
        reason: String,
    },
    /// A job asks for more nodes than the cluster has: no SLA can be offered.
    #[error("job {id} needs {nodes} nodes but the cluster has {cluster}")]
    Infeasible {
        /// Job identifier.
        id: u64,
        /// Requested nodes.
        nodes: usize,
        /// Cluster size.
        cluster: usize,
    },
    /// A runtime-ratio distribution could not be learned (no usable sample).
    #[error("empty statistics: {0}")]
    EmptyStatistics(String),
    /// Input data (a trace or a failure log) is malformed.
    #[error("malformed input {source_name} line {line}: {reason}")]
    Malformed {
        /// File or source name.
        source_name: String,
        /// 1-based line number (0 if not line oriented).
        line: usize,
        /// What is wrong.
        reason: String,
    },
    /// Reading an input file failed.
    #[error("cannot read {path}: {reason}")]
    Io {
        /// Path of the file.
        path: String,
        /// Operating-system message.
        reason: String,
    },
    /// A simulation invariant was violated (only checked with `BatteryConfig::check_invariants`).
    #[error("simulation invariant violated at t = {time}: {reason}")]
    Invariant {
        /// Simulation time.
        time: i64,
        /// What went wrong.
        reason: String,
    },
    /// No slot before the job's deadline passes the acceptance test: no SLA can be offered now.
    #[error("job {id}: no acceptable slot before its deadline")]
    Declined {
        /// Job identifier.
        id: u64,
    },
    /// An offer was made by another planner, or the plan changed since it was made (ask again).
    #[error("offer for job {id} is stale: the plan changed since it was made")]
    StaleOffer {
        /// Job identifier.
        id: u64,
    },
    /// A planner call at a time other than its clock allows.
    #[error("time {now} does not fit the planner's clock {clock} (offers are made at the clock; updates never go back)")]
    Clock {
        /// The time given.
        now: i64,
        /// The planner's clock.
        clock: i64,
    },
    /// A job key that names no job of this planner in the state the call needs (an end or a
    /// kill needs a running job, reported once per update).
    #[error("job key {key} names no running job of this planner (or ends twice in one update)")]
    UnknownJob {
        /// The key's index.
        key: usize,
    },
    /// A node outside the cluster.
    #[error("node {node} is outside the cluster of {cluster} nodes")]
    UnknownNode {
        /// The node.
        node: usize,
        /// Cluster size.
        cluster: usize,
    },
    /// The shared simulation layer refused an input (a non-finite time in the plan profile).
    #[error(transparent)]
    Sim(#[from] slarm_sim::SimError),
    /// The statistics layer (`slarm-stats`) refused an input.
    #[error(transparent)]
    Stats(#[from] slarm_stats::StatsError),
    /// An option string (strategy, test, statistics) could not be parsed.
    #[error("cannot parse {what} from '{input}': {reason}")]
    Parse {
        /// What was being parsed.
        what: &'static str,
        /// The input.
        input: String,
        /// Why it failed.
        reason: String,
    },
}

/// Result alias of this crate.
pub type Result<T> = std::result::Result<T, OverbookError>;

impl From<slarm_stats::check::CheckError> for OverbookError {
    /// A failed [`slarm_stats::check`] validator is an [`OverbookError::InvalidParameter`]
    /// whose reason states the broken requirement.
    fn from(e: slarm_stats::check::CheckError) -> Self {
        OverbookError::InvalidParameter {
            name: e.name(),
            value: e.value(),
            reason: e.requirement().reason(),
        }
    }
}
