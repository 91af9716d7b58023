//! The error type of `slarm-stats`.

use thiserror::Error;

/// Everything that can go wrong when building or querying a statistical object.
#[derive(Debug, Clone, PartialEq, Error)]
#[non_exhaustive]
pub enum StatsError {
    /// A value that must be finite was NaN or infinite.
    #[error("{what} must be finite, got {value}")]
    NonFinite {
        /// Which quantity was bad.
        what: &'static str,
        /// The offending value.
        value: f64,
    },
    /// A value that must be non-negative was negative.
    #[error("{what} must be non-negative, got {value}")]
    Negative {
        /// Which quantity was bad.
        what: &'static str,
        /// The offending value.
        value: f64,
    },
    /// A parameter lies outside its admissible range.
    #[error("invalid {name} = {value}: {reason}")]
    InvalidParameter {
        /// Parameter name.
        name: &'static str,
        /// The offending value.
        value: f64,
        /// Why it is not admissible.
        reason: &'static str,
    },
    /// An operation needs at least `needed` observations or bins but got `got`.
    #[error("{what} needs at least {needed} values, got {got}")]
    TooFew {
        /// What was being computed.
        what: &'static str,
        /// How many are needed.
        needed: usize,
        /// How many were given.
        got: usize,
    },
    /// A grid or sample that must hold at least one value was empty.
    #[error("{what} is empty")]
    Empty {
        /// What was empty.
        what: &'static str,
    },
    /// A distribution that must carry probability mass 1 (within tolerance) does not, or a
    /// defective one carries more than 1.
    #[error("total probability mass {total} is not admissible: {reason}")]
    Mass {
        /// The total mass found.
        total: f64,
        /// Why it is not admissible.
        reason: &'static str,
    },
    /// Two grid distributions cannot be combined (different steps, misaligned origins).
    #[error("grids do not match: {reason}")]
    GridMismatch {
        /// What differs.
        reason: &'static str,
    },
    /// The FFT backend rejected a buffer (an internal invariant; reported, never panicked).
    #[error("FFT failed: {0}")]
    Fft(String),
}

/// Result alias of this crate.
pub type Result<T> = std::result::Result<T, StatsError>;

impl From<crate::check::CheckError> for StatsError {
    /// A failed [`crate::check`] validator as this crate has always reported it: a non-finite
    /// value is [`StatsError::NonFinite`], a negative one [`StatsError::Negative`], any other
    /// range [`StatsError::InvalidParameter`].
    fn from(e: crate::check::CheckError) -> Self {
        use crate::check::Requirement;
        let (what, value) = (e.name(), e.value());
        match e.requirement() {
            Requirement::Finite => StatsError::NonFinite { what, value },
            Requirement::NonNegative => StatsError::Negative { what, value },
            r => StatsError::InvalidParameter {
                name: what,
                value,
                reason: r.reason(),
            },
        }
    }
}

/// Checks that `value` is finite.
#[deprecated(
    since = "0.1.0",
    note = "use slarm_stats::check::finite (its CheckError converts into StatsError)"
)]
pub fn check_finite(what: &'static str, value: f64) -> Result<f64> {
    Ok(crate::check::finite(what, value)?)
}

/// Checks that `value` is finite and non-negative.
#[deprecated(
    since = "0.1.0",
    note = "use slarm_stats::check::non_negative (its CheckError converts into StatsError)"
)]
pub fn check_non_negative(what: &'static str, value: f64) -> Result<f64> {
    Ok(crate::check::non_negative(what, value)?)
}

/// Checks that `value` is a probability in `[0, 1]`.
#[deprecated(
    since = "0.1.0",
    note = "use slarm_stats::check::probability (its CheckError converts into StatsError)"
)]
pub fn check_probability(what: &'static str, value: f64) -> Result<f64> {
    Ok(crate::check::probability(what, value)?)
}
