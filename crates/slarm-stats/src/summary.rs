//! Streaming summaries and Student-t confidence intervals over replications.
//!
//! [`Welford`] accumulates mean and variance in one numerically stable pass and merges
//! (Chan et al.) so partial results from parallel cells combine exactly as a single pass
//! would up to rounding. [`ConfidenceInterval`] is the usual `mean +- t_{1-a/2, n-1} s/sqrt(n)`.
//!
//! ```
//! use slarm_stats::summary::{student_t_quantile, Welford};
//!
//! let mut w = Welford::new();
//! for x in [2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0] { w.push(x); }
//! assert_eq!(w.mean(), 5.0);
//! assert!((w.sample_variance() - 32.0 / 7.0).abs() < 1e-12);
//! let ci = w.ci95().unwrap();
//! assert!((ci.half_width - student_t_quantile(0.975, 7.0).unwrap() * (32.0f64 / 7.0 / 8.0).sqrt()).abs() < 1e-12);
//! ```

use statrs::distribution::{ContinuousCDF, StudentsT};

use crate::check;
use crate::error::{Result, StatsError};

/// One-pass mean/variance/min/max accumulator (Welford's algorithm).
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Welford {
    n: u64,
    mean: f64,
    m2: f64,
    min: f64,
    max: f64,
}

impl Default for Welford {
    fn default() -> Self {
        Self::new()
    }
}

impl Welford {
    /// An empty accumulator.
    pub fn new() -> Self {
        Self {
            n: 0,
            mean: 0.0,
            m2: 0.0,
            min: f64::INFINITY,
            max: f64::NEG_INFINITY,
        }
    }

    /// Adds one observation.
    pub fn push(&mut self, x: f64) {
        self.n += 1;
        let d = x - self.mean;
        self.mean += d / self.n as f64;
        self.m2 += d * (x - self.mean);
        self.min = self.min.min(x);
        self.max = self.max.max(x);
    }

    /// Merges another accumulator into this one (Chan, Golub & LeVeque).
    pub fn merge(&mut self, other: &Welford) {
        if other.n == 0 {
            return;
        }
        if self.n == 0 {
            *self = *other;
            return;
        }
        let n = self.n + other.n;
        let d = other.mean - self.mean;
        self.mean += d * other.n as f64 / n as f64;
        self.m2 += other.m2 + d * d * (self.n as f64) * (other.n as f64) / n as f64;
        self.n = n;
        self.min = self.min.min(other.min);
        self.max = self.max.max(other.max);
    }

    /// Number of observations.
    pub fn count(&self) -> u64 {
        self.n
    }

    /// Sample mean (0 when empty).
    pub fn mean(&self) -> f64 {
        self.mean
    }

    /// Unbiased sample variance (`n - 1` denominator; 0 for fewer than two values).
    pub fn sample_variance(&self) -> f64 {
        if self.n < 2 {
            0.0
        } else {
            self.m2 / (self.n - 1) as f64
        }
    }

    /// Population variance (`n` denominator).
    pub fn population_variance(&self) -> f64 {
        if self.n == 0 {
            0.0
        } else {
            self.m2 / self.n as f64
        }
    }

    /// Sample standard deviation.
    pub fn std_dev(&self) -> f64 {
        self.sample_variance().sqrt()
    }

    /// Smallest observation (`+inf` when empty).
    pub fn min(&self) -> f64 {
        self.min
    }

    /// Largest observation (`-inf` when empty).
    pub fn max(&self) -> f64 {
        self.max
    }

    /// Student-t confidence interval of the mean at `level` (e.g. 0.95).
    pub fn ci(&self, level: f64) -> Result<ConfidenceInterval> {
        ConfidenceInterval::from_summary(self.mean, self.sample_variance(), self.n, level)
    }

    /// The 95 % Student-t confidence interval of the mean.
    pub fn ci95(&self) -> Result<ConfidenceInterval> {
        self.ci(0.95)
    }
}

impl FromIterator<f64> for Welford {
    fn from_iter<I: IntoIterator<Item = f64>>(iter: I) -> Self {
        let mut w = Welford::new();
        for x in iter {
            w.push(x);
        }
        w
    }
}

/// A two-sided confidence interval `mean +- half_width`.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ConfidenceInterval {
    /// Point estimate.
    pub mean: f64,
    /// Half width of the interval.
    pub half_width: f64,
    /// Confidence level in (0, 1).
    pub level: f64,
    /// Number of observations behind it.
    pub n: u64,
}

impl ConfidenceInterval {
    /// Interval from a mean, an unbiased sample variance and a count.
    ///
    /// Needs `n >= 2`; `level` must lie in (0, 1).
    pub fn from_summary(mean: f64, sample_variance: f64, n: u64, level: f64) -> Result<Self> {
        check::finite("mean", mean)?;
        check::finite("sample variance", sample_variance)?;
        if level.is_nan() || level <= 0.0 || level >= 1.0 {
            return Err(StatsError::InvalidParameter {
                name: "confidence level",
                value: level,
                reason: "must lie in (0, 1)",
            });
        }
        if n < 2 {
            return Err(StatsError::TooFew {
                what: "a confidence interval",
                needed: 2,
                got: n as usize,
            });
        }
        let t = student_t_quantile(0.5 + level / 2.0, (n - 1) as f64)?;
        Ok(Self {
            mean,
            half_width: t * (sample_variance.max(0.0) / n as f64).sqrt(),
            level,
            n,
        })
    }

    /// Interval of the mean of `samples`.
    pub fn of_samples(samples: &[f64], level: f64) -> Result<Self> {
        for &x in samples {
            check::finite("sample", x)?;
        }
        samples.iter().copied().collect::<Welford>().ci(level)
    }

    /// Lower end.
    pub fn lower(&self) -> f64 {
        self.mean - self.half_width
    }

    /// Upper end.
    pub fn upper(&self) -> f64 {
        self.mean + self.half_width
    }

    /// Whether `x` lies inside the closed interval.
    pub fn contains(&self, x: f64) -> bool {
        x >= self.lower() && x <= self.upper()
    }
}

/// Natural log of the gamma function, `ln Γ(x)` (statrs' Lanczos approximation, relative
/// error around 1e-15 for `x > 0`).
pub fn ln_gamma(x: f64) -> f64 {
    statrs::function::gamma::ln_gamma(x)
}

/// Regularised incomplete beta function `I_x(a, b)` for `a, b > 0`, `x` in `[0, 1]`
/// (statrs' continued fraction). `x` below 0 gives 0 and above 1 gives 1; `a` or `b` not
/// positive (or NaN) gives NaN.
pub fn regularized_incomplete_beta(a: f64, b: f64, x: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    if x >= 1.0 {
        return 1.0;
    }
    statrs::function::beta::checked_beta_reg(a, b, x).unwrap_or(f64::NAN)
}

/// The standard Student's t distribution with `df` degrees of freedom, or `None` when `df`
/// is not positive and finite.
fn standard_t(df: f64) -> Option<StudentsT> {
    if df.is_finite() && df > 0.0 {
        StudentsT::new(0.0, 1.0, df).ok()
    } else {
        None
    }
}

/// CDF of Student's t distribution with `df > 0` degrees of freedom (NaN when `t` is NaN or
/// `df` is not positive and finite).
pub fn student_t_cdf(t: f64, df: f64) -> f64 {
    match standard_t(df) {
        Some(d) if !t.is_nan() => d.cdf(t),
        _ => f64::NAN,
    }
}

/// Quantile of Student's t distribution: the `t` with `student_t_cdf(t, df) = p`, for `p` in
/// (0, 1) and finite `df > 0`.
///
/// Bisection on statrs' exact CDF to full double precision. statrs' own `inverse_cdf`
/// (AS 64 inverse incomplete beta) is not used: in statrs 0.19 it panics for extreme
/// arguments (e.g. `p = 1e-300` with `df = 1e-300`), and this function must not.
pub fn student_t_quantile(p: f64, df: f64) -> Result<f64> {
    if p.is_nan() || p <= 0.0 || p >= 1.0 {
        return Err(StatsError::InvalidParameter {
            name: "p",
            value: p,
            reason: "must lie in (0, 1)",
        });
    }
    let d = standard_t(df).ok_or(StatsError::InvalidParameter {
        name: "degrees of freedom",
        value: df,
        reason: "must be positive and finite",
    })?;
    if p == 0.5 {
        return Ok(0.0);
    }
    if p < 0.5 {
        return student_t_quantile(1.0 - p, df).map(|t| -t);
    }
    let (mut lo, mut hi) = (0.0_f64, 1.0_f64);
    while d.cdf(hi) < p {
        hi *= 2.0;
        if hi > 1e300 {
            break;
        }
    }
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if d.cdf(mid) < p {
            lo = mid;
        } else {
            hi = mid;
        }
        if hi - lo <= 4.0 * f64::EPSILON * hi {
            break;
        }
    }
    Ok(0.5 * (lo + hi))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn t_quantiles_match_tables() {
        // Two-sided 95 % critical values, computed to 30 digits with mpmath (betainc + findroot).
        let table = [
            (1.0, 12.706_204_736_174_693),
            (2.0, 4.302_652_729_749_462),
            (9.0, 2.262_157_162_798_205),
            (29.0, 2.045_229_642_132_704),
            (1000.0, 1.962_339_080_826_408),
        ];
        for (df, t) in table {
            let q = student_t_quantile(0.975, df).unwrap();
            assert!((q - t).abs() < 1e-11 * t, "df {df}: {q} vs {t}");
        }
        assert!((student_t_cdf(0.0, 5.0) - 0.5).abs() < 1e-15);
        assert!((student_t_quantile(0.025, 9.0).unwrap() + 2.262_157_163).abs() < 1e-8);
    }

    #[test]
    fn ln_gamma_reference() {
        assert!((ln_gamma(1.0)).abs() < 1e-14);
        assert!((ln_gamma(0.5) - std::f64::consts::PI.sqrt().ln()).abs() < 1e-14);
        assert!((ln_gamma(10.0) - 362_880f64.ln()).abs() < 1e-12);
    }

    #[test]
    fn merge_equals_single_pass() {
        let xs: Vec<f64> = (0..100).map(|i| ((i * 37) % 101) as f64 * 0.5).collect();
        let all: Welford = xs.iter().copied().collect();
        let mut a: Welford = xs[..30].iter().copied().collect();
        let b: Welford = xs[30..].iter().copied().collect();
        a.merge(&b);
        assert_eq!(a.count(), all.count());
        assert!((a.mean() - all.mean()).abs() < 1e-12);
        assert!((a.sample_variance() - all.sample_variance()).abs() < 1e-9);
        assert_eq!((a.min(), a.max()), (all.min(), all.max()));
    }

    #[test]
    fn bad_input_is_a_typed_error() {
        assert!(matches!(
            Welford::new().ci95(),
            Err(StatsError::TooFew { .. })
        ));
        assert!(ConfidenceInterval::of_samples(&[1.0, f64::NAN], 0.95).is_err());
        assert!(ConfidenceInterval::of_samples(&[1.0, 2.0], 1.5).is_err());
        assert!(student_t_quantile(1.0, 3.0).is_err());
        assert!(student_t_quantile(0.9, f64::NAN).is_err());
    }
}
