//! Errors of the reproduction engine.

use std::path::PathBuf;

use thiserror::Error;

/// Why a reproduction or merge failed.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum ReproError {
    /// The user's request was inconsistent (bad shard, unknown paper, mixed configurations).
    #[error("{0}")]
    BadRequest(String),
    /// An experiment failed (bad trace, model error...).
    #[error(transparent)]
    Experiment(#[from] slarm_report::ExperimentError),
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// A stored file did not parse.
    #[error("{path}: malformed: {message}")]
    Malformed {
        /// The file.
        path: PathBuf,
        /// The parse error.
        message: String,
    },
    /// A figure could not be drawn.
    #[error("figure {id}: {message}")]
    Figure {
        /// Figure id.
        id: String,
        /// What went wrong.
        message: String,
    },
}

impl ReproError {
    /// Whether the failure is the user's input (CLI exit code 2) rather than internal.
    pub fn is_bad_input(&self) -> bool {
        matches!(
            self,
            ReproError::BadRequest(_) | ReproError::Experiment(_) | ReproError::Malformed { .. }
        )
    }
}
