//! Model errors as Python exceptions: one line, the model's own message.

use pyo3::exceptions::PyValueError;
use pyo3::PyErr;

/// A `ValueError` carrying the error's one-line message.
pub(crate) fn value_error(e: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(e.to_string())
}
