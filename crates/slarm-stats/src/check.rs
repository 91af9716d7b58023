//! Input validators shared by every model crate: one function per requirement, one error type
//! ([`CheckError`]) that names the parameter, the rejected value and the requirement it broke.
//!
//! Every validator first requires a finite value: NaN and ±∞ fail with
//! [`Requirement::Finite`] whatever else was asked for (an infinite rate is not "> 0" in any
//! useful sense), so a caller can tell a non-number from a number out of range. A value that
//! passes is returned unchanged, so a check reads as an assignment:
//!
//! ```
//! use slarm_stats::check::{self, Requirement};
//!
//! let rate = check::positive("arrival rate", 0.5)?;
//! assert_eq!(rate, 0.5);
//!
//! let e = check::probability("target", 1.5).unwrap_err();
//! assert_eq!(e.requirement(), Requirement::Probability);
//! assert_eq!(e.to_string(), "target must be in [0, 1], got 1.5");
//!
//! let e = check::positive("arrival rate", f64::NAN).unwrap_err();
//! assert_eq!(e.requirement(), Requirement::Finite);
//! # Ok::<(), check::CheckError>(())
//! ```
//!
//! Each model crate converts a [`CheckError`] into its own error type (`From`), so `?` works
//! in all of them and each keeps its error variants.

use std::fmt;

use thiserror::Error;

/// What a checked value must satisfy (besides being finite, which every check requires).
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub enum Requirement {
    /// A finite number (not NaN, not ±∞).
    Finite,
    /// `> 0`.
    Positive,
    /// `>= 0`.
    NonNegative,
    /// A probability or fraction in the closed interval `[0, 1]`.
    Probability,
    /// A probability in the open interval `(0, 1)` (a target that 0 and 1 make degenerate).
    OpenProbability,
    /// `>= min` (inclusive).
    AtLeast(f64),
}

impl Requirement {
    /// The requirement as a fixed phrase ("must be > 0", ...), for error types whose reason
    /// field is a `&'static str`; [`Requirement::AtLeast`] cannot name its minimum there (its
    /// `Display` does).
    pub fn reason(&self) -> &'static str {
        match self {
            Requirement::Finite => "must be finite",
            Requirement::Positive => "must be > 0",
            Requirement::NonNegative => "must be >= 0",
            Requirement::Probability => "must lie in [0, 1]",
            Requirement::OpenProbability => "must lie in (0, 1)",
            Requirement::AtLeast(_) => "must be >= its minimum",
        }
    }

    /// The requirement as a fixed term ("> 0", "in [0, 1]", ...) to follow "must be", for error
    /// types whose requirement field is a `&'static str`; [`Requirement::AtLeast`] says
    /// ">= its minimum" there (its `Display` names the minimum).
    pub fn term(&self) -> &'static str {
        match self {
            Requirement::Finite => "finite",
            Requirement::Positive => "> 0",
            Requirement::NonNegative => ">= 0",
            Requirement::Probability => "in [0, 1]",
            Requirement::OpenProbability => "in (0, 1)",
            Requirement::AtLeast(_) => ">= its minimum",
        }
    }

    /// Whether `value` meets the requirement (every requirement includes finiteness).
    pub fn holds(&self, value: f64) -> bool {
        value.is_finite()
            && match *self {
                Requirement::Finite => true,
                Requirement::Positive => value > 0.0,
                Requirement::NonNegative => value >= 0.0,
                Requirement::Probability => (0.0..=1.0).contains(&value),
                Requirement::OpenProbability => value > 0.0 && value < 1.0,
                Requirement::AtLeast(min) => value >= min,
            }
    }
}

impl fmt::Display for Requirement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Requirement::Finite => f.write_str("finite"),
            Requirement::Positive => f.write_str("> 0"),
            Requirement::NonNegative => f.write_str(">= 0"),
            Requirement::Probability => f.write_str("in [0, 1]"),
            Requirement::OpenProbability => f.write_str("in (0, 1)"),
            Requirement::AtLeast(min) => write!(f, ">= {min}"),
        }
    }
}

/// A value that broke its [`Requirement`]: `"{name} must be {requirement}, got {value}"`.
///
/// Only the validators of this module build one, so an error always describes a real failure
/// (its value does not meet its requirement).
#[derive(Debug, Clone, Copy, PartialEq, Error)]
#[error("{name} must be {requirement}, got {value}")]
pub struct CheckError {
    name: &'static str,
    value: f64,
    requirement: Requirement,
}

impl CheckError {
    /// The parameter's name as the caller gave it.
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// The rejected value.
    pub fn value(&self) -> f64 {
        self.value
    }

    /// The requirement the value broke: [`Requirement::Finite`] for NaN and ±∞, else the
    /// range that was asked for.
    pub fn requirement(&self) -> Requirement {
        self.requirement
    }
}

/// Checks `value` against `requirement`: `Ok(value)`, or the error naming the requirement it
/// broke (finiteness first).
pub fn require(
    name: &'static str,
    value: f64,
    requirement: Requirement,
) -> Result<f64, CheckError> {
    if !value.is_finite() {
        return Err(CheckError {
            name,
            value,
            requirement: Requirement::Finite,
        });
    }
    if requirement.holds(value) {
        Ok(value)
    } else {
        Err(CheckError {
            name,
            value,
            requirement,
        })
    }
}

/// `Ok(value)` if `value` is finite.
pub fn finite(name: &'static str, value: f64) -> Result<f64, CheckError> {
    require(name, value, Requirement::Finite)
}

/// `Ok(value)` if `value` is finite and `> 0`.
pub fn positive(name: &'static str, value: f64) -> Result<f64, CheckError> {
    require(name, value, Requirement::Positive)
}

/// `Ok(value)` if `value` is finite and `>= 0`.
pub fn non_negative(name: &'static str, value: f64) -> Result<f64, CheckError> {
    require(name, value, Requirement::NonNegative)
}

/// `Ok(value)` if `value` lies in `[0, 1]`.
pub fn probability(name: &'static str, value: f64) -> Result<f64, CheckError> {
    require(name, value, Requirement::Probability)
}

/// `Ok(value)` if `value` lies in `(0, 1)`.
pub fn open_probability(name: &'static str, value: f64) -> Result<f64, CheckError> {
    require(name, value, Requirement::OpenProbability)
}

/// `Ok(value)` if `value` is finite and `>= min`. A NaN `min` accepts nothing (every value
/// fails with [`Requirement::AtLeast`]).
pub fn at_least(name: &'static str, value: f64, min: f64) -> Result<f64, CheckError> {
    require(name, value, Requirement::AtLeast(min))
}

#[cfg(test)]
mod tests {
    use super::*;

    const NON_FINITE: [f64; 3] = [f64::NAN, f64::INFINITY, f64::NEG_INFINITY];

    fn broke(r: Result<f64, CheckError>) -> Requirement {
        match r {
            Ok(v) => panic!("accepted {v}"),
            Err(e) => e.requirement(),
        }
    }

    #[test]
    fn non_finite_fails_every_check_as_finite() {
        for v in NON_FINITE {
            assert_eq!(broke(finite("x", v)), Requirement::Finite);
            assert_eq!(broke(positive("x", v)), Requirement::Finite);
            assert_eq!(broke(non_negative("x", v)), Requirement::Finite);
            assert_eq!(broke(probability("x", v)), Requirement::Finite);
            assert_eq!(broke(open_probability("x", v)), Requirement::Finite);
            assert_eq!(broke(at_least("x", v, 0.0)), Requirement::Finite);
            assert_eq!(
                broke(at_least("x", v, f64::NEG_INFINITY)),
                Requirement::Finite
            );
        }
    }

    #[test]
    fn finite_accepts_extremes() {
        for v in [f64::MAX, f64::MIN, f64::MIN_POSITIVE, -0.0, 0.0, 5e-324] {
            assert_eq!(finite("x", v), Ok(v));
        }
    }

    #[test]
    fn positive_boundaries() {
        assert_eq!(positive("x", 5e-324), Ok(5e-324));
        assert_eq!(positive("x", f64::MAX), Ok(f64::MAX));
        assert_eq!(broke(positive("x", 0.0)), Requirement::Positive);
        assert_eq!(broke(positive("x", -0.0)), Requirement::Positive);
        assert_eq!(broke(positive("x", -5e-324)), Requirement::Positive);
    }

    #[test]
    fn non_negative_boundaries() {
        assert_eq!(non_negative("x", 0.0), Ok(0.0));
        // -0.0 == 0.0: accepted, returned as given.
        assert!(non_negative("x", -0.0).is_ok_and(|v| v == 0.0 && v.is_sign_negative()));
        assert_eq!(non_negative("x", f64::MAX), Ok(f64::MAX));
        assert_eq!(broke(non_negative("x", -5e-324)), Requirement::NonNegative);
        assert_eq!(broke(non_negative("x", f64::MIN)), Requirement::NonNegative);
    }

    #[test]
    fn probability_boundaries() {
        for v in [0.0, 1.0, 0.5, 5e-324, 1.0 - f64::EPSILON / 2.0] {
            assert_eq!(probability("p", v), Ok(v));
        }
        for v in [-5e-324, 1.0 + f64::EPSILON, 2.0, -1.0] {
            assert_eq!(broke(probability("p", v)), Requirement::Probability);
        }
    }

    #[test]
    fn open_probability_boundaries() {
        for v in [5e-324, 0.5, 1.0 - f64::EPSILON / 2.0] {
            assert_eq!(open_probability("p", v), Ok(v));
        }
        for v in [0.0, -0.0, 1.0, -1.0, 1.0 + f64::EPSILON] {
            assert_eq!(
                broke(open_probability("p", v)),
                Requirement::OpenProbability
            );
        }
    }

    #[test]
    fn at_least_boundaries() {
        assert_eq!(at_least("x", 2.0, 2.0), Ok(2.0));
        assert_eq!(at_least("x", 3.0, 2.0), Ok(3.0));
        assert_eq!(broke(at_least("x", 1.999, 2.0)), Requirement::AtLeast(2.0));
        // An infinite minimum: -inf accepts every finite value, +inf none.
        assert_eq!(at_least("x", f64::MIN, f64::NEG_INFINITY), Ok(f64::MIN));
        assert_eq!(
            broke(at_least("x", f64::MAX, f64::INFINITY)),
            Requirement::AtLeast(f64::INFINITY)
        );
        // A NaN minimum accepts nothing.
        assert!(matches!(
            broke(at_least("x", 0.0, f64::NAN)),
            Requirement::AtLeast(m) if m.is_nan()
        ));
    }

    #[test]
    fn error_carries_name_value_requirement_and_says_them() {
        let e = at_least("high threshold", 0.25, 0.5).unwrap_err();
        assert_eq!(
            (e.name(), e.value(), e.requirement()),
            ("high threshold", 0.25, Requirement::AtLeast(0.5))
        );
        assert_eq!(e.to_string(), "high threshold must be >= 0.5, got 0.25");
        let cases = [
            (finite("x", f64::NAN), "x must be finite, got NaN"),
            (positive("x", f64::INFINITY), "x must be finite, got inf"),
            (positive("x", 0.0), "x must be > 0, got 0"),
            (non_negative("x", -1.0), "x must be >= 0, got -1"),
            (probability("x", 2.0), "x must be in [0, 1], got 2"),
            (open_probability("x", 1.0), "x must be in (0, 1), got 1"),
        ];
        for (r, text) in cases {
            assert_eq!(r.unwrap_err().to_string(), text);
        }
    }

    #[test]
    fn holds_agrees_with_the_validators() {
        let reqs = [
            Requirement::Finite,
            Requirement::Positive,
            Requirement::NonNegative,
            Requirement::Probability,
            Requirement::OpenProbability,
            Requirement::AtLeast(-2.5),
        ];
        let values = [
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            -3.0,
            -2.5,
            -0.0,
            0.0,
            0.5,
            1.0,
            7.0,
        ];
        for r in reqs {
            for v in values {
                assert_eq!(require("x", v, r).is_ok(), r.holds(v), "{r:?} {v}");
            }
        }
    }
}
