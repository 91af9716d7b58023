//! The exit-code policy of the command line, implemented once for every command.
//!
//! `0` success; `2` bad input or a model without an answer (unstable queue, infeasible SLA,
//! malformed trace); `1` internal error. The message is one line on stderr.

use std::fmt;

/// What kind of failure ended a command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// The user's input (or the model it describes) has no answer: exit code 2.
    BadInput,
    /// Something went wrong inside slarm: exit code 1.
    Internal,
}

/// A command failure: its kind and a one-line message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CliError {
    /// Exit-code class.
    pub kind: Kind,
    /// One line naming the bad value (and file and line where there is one).
    pub message: String,
}

impl CliError {
    /// Bad input (exit code 2).
    pub fn bad_input(message: impl fmt::Display) -> Self {
        Self {
            kind: Kind::BadInput,
            message: one_line(message),
        }
    }

    /// Internal error (exit code 1).
    pub fn internal(message: impl fmt::Display) -> Self {
        Self {
            kind: Kind::Internal,
            message: one_line(message),
        }
    }

    /// The process exit code for this error.
    pub fn exit_code(&self) -> i32 {
        match self.kind {
            Kind::BadInput => 2,
            Kind::Internal => 1,
        }
    }
}

fn one_line(m: impl fmt::Display) -> String {
    m.to_string()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// Result of a command.
pub type CliResult<T> = Result<T, CliError>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_and_one_line_messages() {
        let e = CliError::bad_input("unstable queue:\n  lambda >= m mu");
        assert_eq!(e.exit_code(), 2);
        assert_eq!(e.message, "unstable queue: lambda >= m mu");
        assert_eq!(CliError::internal("x").exit_code(), 1);
    }
}
