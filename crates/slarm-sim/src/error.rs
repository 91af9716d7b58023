//! The error type of `slarm-sim`.

use thiserror::Error;

/// Everything that can go wrong when building or running a simulation.
#[derive(Debug, Clone, PartialEq, Error)]
#[non_exhaustive]
pub enum SimError {
    /// A time that must be finite was NaN or infinite.
    #[error("{what} must be a finite time, got {value}")]
    NonFiniteTime {
        /// Which time was bad.
        what: &'static str,
        /// The offending value.
        value: f64,
    },
    /// An event was scheduled before the current simulation time.
    #[error("event scheduled in the past: at {at} while the clock is at {now}")]
    InThePast {
        /// Requested time.
        at: f64,
        /// Current clock.
        now: f64,
    },
    /// A parameter lies outside its admissible range.
    #[error("invalid {name} = {value}: {reason}")]
    InvalidParameter {
        /// Parameter name.
        name: &'static str,
        /// The offending value (as text, so integers and floats both fit).
        value: String,
        /// Why it is not admissible.
        reason: &'static str,
    },
    /// A job cannot run on the machine (for example it needs more processors than exist).
    #[error("job {job_id} needs {procs} processors but the machine has {capacity}")]
    JobTooLarge {
        /// Job number.
        job_id: u64,
        /// Processors requested.
        procs: u32,
        /// Machine size.
        capacity: u32,
    },
    /// A reservation or allocation would exceed the machine at some instant.
    #[error(
        "over-allocation: {procs} processors requested in [{start}, {end}) but only {free} free"
    )]
    OverAllocation {
        /// Interval start.
        start: f64,
        /// Interval end.
        end: f64,
        /// Processors requested.
        procs: u32,
        /// Processors free at the tightest point.
        free: i64,
    },
    /// A statistics helper failed (for example too few replications for an interval).
    #[error(transparent)]
    Stats(#[from] slarm_stats::StatsError),
}

/// Result alias of this crate.
pub type Result<T> = std::result::Result<T, SimError>;

/// Checks that `value` is a finite time.
pub(crate) fn check_time(what: &'static str, value: f64) -> Result<f64> {
    if value.is_finite() {
        Ok(value)
    } else {
        Err(SimError::NonFiniteTime { what, value })
    }
}

/// Checks that a machine has at least one processor.
pub(crate) fn check_capacity(capacity: u32) -> Result<u32> {
    if capacity == 0 {
        return Err(SimError::InvalidParameter {
            name: "capacity",
            value: "0".into(),
            reason: "a machine needs at least one processor",
        });
    }
    Ok(capacity)
}

/// A scheduling policy name read from text is not one of the names expected.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("unknown policy {given:?} (expected {expected})")]
#[non_exhaustive]
pub struct PolicyNameError {
    /// The text as given.
    pub given: String,
    /// The names that would have been read (`fcfs, easy or conservative`).
    pub expected: &'static str,
}
