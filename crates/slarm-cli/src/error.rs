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
    /// An output named `-` (standard output) was closed by its reader: exit code 141, as the
    /// table and JSON output, with no message.
    BrokenPipe,
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

    /// A failure to write an output file given by the user (`option` names it, e.g.
    /// `--schedule-out F`): a closed standard output ends quietly ([`Kind::BrokenPipe`]),
    /// anything else is bad input naming the option.
    pub fn output(option: impl fmt::Display, e: &std::io::Error) -> Self {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            Self {
                kind: Kind::BrokenPipe,
                message: String::new(),
            }
        } else {
            Self::bad_input(format!("{option}: {e}"))
        }
    }

    /// The process exit code for this error.
    pub fn exit_code(&self) -> i32 {
        match self.kind {
            Kind::BadInput => 2,
            Kind::Internal => 1,
            Kind::BrokenPipe => 141,
        }
    }
}

/// Longest run of non-blank characters a message shows (a bad value, a quoted line), in
/// characters, after escaping; a word naming a path (it holds a `/`) may be longer.
pub const MAX_WORD: usize = 80;
/// Longest path-like word a message shows.
const MAX_PATH_WORD: usize = 240;

/// The message on one line: blanks (line breaks included) collapsed to single spaces, control
/// characters escaped (`\0`, `\u{1b}`), and every word longer than [`MAX_WORD`] characters
/// cut, saying how much was left out, so that a 10 MB line of NUL bytes makes a short message.
pub fn one_line(m: impl fmt::Display) -> String {
    m.to_string()
        .split_whitespace()
        .map(|w| {
            let limit = if w.contains('/') {
                MAX_PATH_WORD
            } else {
                MAX_WORD
            };
            cut(&escape(w), limit)
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Control characters escaped as Rust writes them (`\0`, `\t`, `\u{7f}`); others unchanged.
fn escape(s: &str) -> String {
    if !s.chars().any(char::is_control) {
        return s.to_string();
    }
    s.chars()
        .map(|c| {
            if c.is_control() {
                c.escape_debug().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// The first `limit` characters of `s`, then `...(N more)` when it is longer.
fn cut(s: &str, limit: usize) -> String {
    let n = s.chars().count();
    if n <= limit {
        return s.to_string();
    }
    let head: String = s.chars().take(limit).collect();
    format!("{head}...({} more)", n - limit)
}

/// A value given by the user as it is shown in a message: escaped and cut to [`MAX_WORD`]
/// characters, in backquotes when it is empty or holds blanks or control characters.
pub fn shown(value: &str) -> String {
    let v = cut(&escape(value), MAX_WORD);
    if value.is_empty() || value.chars().any(|c| c.is_whitespace() || c.is_control()) {
        format!("`{v}`")
    } else {
        v
    }
}

/// A number as a message shows it: an integral value as an integer (`4294967296`, not
/// `4.294967296e9`), a moderate one in shortest decimal form (`0.25`), anything else in
/// scientific notation (`1e308`, `1e-308`), and `NaN`, `inf`, `-inf`.
pub fn num(x: f64) -> String {
    const EXACT_INTEGERS: f64 = 9_007_199_254_740_992.0; // 2^53
    if x.is_nan() {
        "NaN".into()
    } else if x.is_infinite() {
        if x > 0.0 { "inf" } else { "-inf" }.into()
    } else if x.fract() == 0.0 && x.abs() <= EXACT_INTEGERS {
        format!("{}", x as i64)
    } else if x == 0.0 || (1e-4..1e15).contains(&x.abs()) {
        format!("{x}")
    } else {
        format!("{x:e}")
    }
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

    #[test]
    fn long_and_binary_values_are_escaped_and_cut() {
        let nul = "\0".repeat(10_000_000);
        let e = CliError::bad_input(format!("trace.swf:1: bad line {nul}"));
        assert!(e.message.len() < 200, "{}", e.message.len());
        assert!(e.message.starts_with("trace.swf:1: bad line \\0\\0"));
        assert!(e.message.ends_with("more)"));
        assert_eq!(shown("a\u{1b}b"), "`a\\u{1b}b`");
        assert_eq!(
            shown(&"x".repeat(81)),
            format!("{}...(1 more)", "x".repeat(80))
        );
        assert_eq!(shown("fs1:2"), "fs1:2");
        assert_eq!(shown(""), "``");
    }

    #[test]
    fn numbers_are_shown_as_written_by_people() {
        assert_eq!(num(4_294_967_296.0), "4294967296");
        assert_eq!(num(9_223_372_036_854_775_807.0), "9.223372036854776e18");
        assert_eq!(num(-5.0), "-5");
        assert_eq!(num(0.25), "0.25");
        assert_eq!(num(1e308), "1e308");
        assert_eq!(num(1e-308), "1e-308");
        assert_eq!(num(f64::NAN), "NaN");
        assert_eq!(num(f64::NEG_INFINITY), "-inf");
    }
}
