//! The crate's error type.

/// Why a schedule could not be read or checked (as opposed to a [`Violation`](crate::Violation),
/// which is a finding about a well-formed schedule).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TestingError {
    /// A line of a schedule CSV is malformed.
    #[error("line {line}: {reason}")]
    Csv {
        /// 1-based line number.
        line: usize,
        /// What is wrong with it.
        reason: String,
    },
    /// Reading the schedule failed.
    #[error("read failed: {0}")]
    Io(#[from] std::io::Error),
    /// A parameter of the checker is out of range.
    #[error("{name} = {value}: {reason}")]
    InvalidParameter {
        /// Parameter name.
        name: &'static str,
        /// The bad value.
        value: String,
        /// Why it is bad.
        reason: &'static str,
    },
}

/// Result alias of the crate.
pub type Result<T> = std::result::Result<T, TestingError>;
