//! The error type of `slarm-workload`.

use thiserror::Error;

/// Everything that can go wrong when reading, writing or transforming a workload.
#[derive(Debug, Clone, PartialEq, Error)]
#[non_exhaustive]
pub enum WorkloadError {
    /// The file could not be opened, read or written.
    #[error("{file}: {message}")]
    Io {
        /// File name (or `<input>` for an anonymous reader).
        file: String,
        /// The operating-system message.
        message: String,
    },
    /// The gzip stream is corrupt or truncated.
    #[error("{file}: line {line}: corrupt or truncated compressed data: {message}")]
    Decompress {
        /// File name.
        file: String,
        /// Line being read when decompression failed (1-based).
        line: u64,
        /// Decoder message.
        message: String,
    },
    /// A job line is malformed (strict mode).
    #[error("{file}: line {line}: field {field}: {reason}")]
    Malformed {
        /// File name.
        file: String,
        /// Line number (1-based).
        line: u64,
        /// Field number (1..=18; 0 means the line as a whole).
        field: usize,
        /// What is wrong.
        reason: String,
    },
    /// A line of a file with named columns (sacct output) is malformed (strict mode).
    #[error("{file}: line {line}: column {column}: {reason}")]
    MalformedColumn {
        /// File name.
        file: String,
        /// Line number (1-based; 1 is the header line).
        line: u64,
        /// The column as the header names it (`(line)` for the line as a whole).
        column: String,
        /// What is wrong.
        reason: String,
    },
    /// The input holds no job line at all.
    #[error("{file}: no job lines (empty or header-only trace)")]
    NoJobs {
        /// File name.
        file: String,
    },
    /// The machine size is unknown (no MaxProcs/MaxNodes in the header and none given).
    #[error("{file}: machine size unknown: the header has neither MaxProcs nor MaxNodes; pass it explicitly")]
    UnknownMachineSize {
        /// File name.
        file: String,
    },
    /// A parameter lies outside its admissible range.
    #[error("invalid {name} = {value}: {reason}")]
    InvalidParameter {
        /// Parameter name.
        name: &'static str,
        /// The offending value, as text.
        value: String,
        /// Why it is not admissible.
        reason: &'static str,
    },
}

/// Result alias of this crate.
pub type Result<T> = std::result::Result<T, WorkloadError>;

impl From<slarm_stats::check::CheckError> for WorkloadError {
    /// A failed [`slarm_stats::check`] validator is a [`WorkloadError::InvalidParameter`]
    /// whose reason states the broken requirement.
    fn from(e: slarm_stats::check::CheckError) -> Self {
        invalid(e.name(), e.value(), e.requirement().reason())
    }
}

/// Builds an [`WorkloadError::InvalidParameter`].
pub(crate) fn invalid(
    name: &'static str,
    value: impl std::fmt::Display,
    reason: &'static str,
) -> WorkloadError {
    WorkloadError::InvalidParameter {
        name,
        value: value.to_string(),
        reason,
    }
}
