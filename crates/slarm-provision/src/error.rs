//! The error type of `slarm-provision`.

use thiserror::Error;

/// Everything that can go wrong when configuring or running Sung's provisioning model.
#[derive(Debug, Clone, PartialEq, Error)]
#[non_exhaustive]
pub enum ProvisionError {
    /// A parameter lies outside its admissible range.
    #[error("invalid parameter {name} = {value}: {reason}")]
    InvalidParameter {
        /// Parameter name.
        name: &'static str,
        /// The offending value (as text, so integers and floats both fit).
        value: String,
        /// Why it is not admissible.
        reason: &'static str,
    },
    /// A cost value or cost sample was negative.
    #[error("cost must be non-negative, got {value} at t = {at}")]
    NegativeCost {
        /// The offending cost.
        value: f64,
        /// Where it occurred (time in decision intervals).
        at: f64,
    },
    /// A number that must be finite was NaN or infinite.
    #[error("{what} must be finite, got {value}")]
    NonFinite {
        /// Which quantity was bad.
        what: &'static str,
        /// The offending value.
        value: f64,
    },
    /// A tabulated cost series could not be parsed.
    #[error("cost series line {line}: {reason}")]
    MalformedCostSeries {
        /// 1-based line number.
        line: usize,
        /// What was wrong.
        reason: String,
    },
    /// A table was queried outside its domain or built with inconsistent inputs.
    #[error("table mismatch: {0}")]
    TableMismatch(String),
}

/// Shorthand result type of this crate.
pub type Result<T> = std::result::Result<T, ProvisionError>;

impl ProvisionError {
    /// An [`ProvisionError::InvalidParameter`] from any displayable value.
    pub fn invalid(
        name: &'static str,
        value: impl std::fmt::Display,
        reason: &'static str,
    ) -> Self {
        ProvisionError::InvalidParameter {
            name,
            value: value.to_string(),
            reason,
        }
    }
}
