//! The valid range of every numeric option (docs/cli.md, "Ranges of the options"), checked
//! before any work starts, and the bounds on the work a combination of options asks for.
//!
//! A value outside its range, or a combination whose estimated work (events, table cells,
//! allocations) exceeds its bound, ends the command with exit code 2 and one line naming the
//! option, the value and the range or bound. The model crates keep their own checks (positive
//! rates, `u < d`, ...); these ranges add what only a command line needs: a ceiling on work.

use crate::error::{num, CliError, CliResult};

/// `value` of `option` must be a finite number in `[lo, hi]`.
pub fn within(option: &str, value: f64, lo: f64, hi: f64) -> CliResult<f64> {
    if value.is_finite() && (lo..=hi).contains(&value) {
        Ok(value)
    } else {
        Err(CliError::bad_input(format!(
            "{option} {}: must be a finite number in [{}, {}]",
            num(value),
            num(lo),
            num(hi)
        )))
    }
}

/// `value` of `option` must be a finite number in `(lo, hi]`.
pub fn above(option: &str, value: f64, lo: f64, hi: f64) -> CliResult<f64> {
    if value.is_finite() && value > lo && value <= hi {
        Ok(value)
    } else {
        Err(CliError::bad_input(format!(
            "{option} {}: must be a finite number in ({}, {}]",
            num(value),
            num(lo),
            num(hi)
        )))
    }
}

/// The whole number `value` of `option` must lie in `[lo, hi]`.
pub fn count<T>(option: &str, value: T, lo: u64, hi: u64) -> CliResult<T>
where
    T: Copy + TryInto<u64> + std::fmt::Display,
{
    match value.try_into() {
        Ok(v) if (lo..=hi).contains(&v) => Ok(value),
        _ => Err(CliError::bad_input(format!(
            "{option} {value}: must be a whole number in [{lo}, {hi}]"
        ))),
    }
}

/// Refuses a run whose estimated amount of `what` is above `bound`; `detail` says how the
/// estimate was made and which options lower it.
pub fn work(what: &str, estimate: f64, bound: f64, detail: &str) -> CliResult<()> {
    if estimate.is_finite() && estimate <= bound {
        Ok(())
    } else {
        Err(CliError::bad_input(format!(
            "refused before starting: about {} {what} ({detail}), above the bound of {}",
            num(estimate.round()),
            num(bound)
        )))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn ranges_name_option_value_and_range() {
        assert_eq!(within("--x", 0.5, 0.0, 1.0), Ok(0.5));
        let e = within("--trace-origin", f64::NAN, 0.0, 1e12).unwrap_err();
        assert_eq!(
            e.message,
            "--trace-origin NaN: must be a finite number in [0, 1000000000000]"
        );
        assert_eq!(e.exit_code(), 2);
        assert!(above("--period", 0.0, 0.0, 1.0).is_err());
        assert!(above("--period", 1e-308, 0.5, 1.0).is_err());
        assert_eq!(count("--bots", 5usize, 1, 10), Ok(5));
        let e = count("--nodes", 4_294_967_296usize, 1, 65_536).unwrap_err();
        assert_eq!(
            e.message,
            "--nodes 4294967296: must be a whole number in [1, 65536]"
        );
        let e = work("events", 1e12, 1e9, "x").unwrap_err();
        assert!(e
            .message
            .contains("1000000000000 events (x), above the bound of 1000000000"));
        assert!(work("events", f64::INFINITY, 1e9, "x").is_err());
    }
}
