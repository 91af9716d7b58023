//! Goodness of fit: the empirical CDF and the one-sample Kolmogorov-Smirnov test.
//!
//! [`Ecdf`] is the right-continuous step function `F_n(x) = #{i : x_i <= x} / n`.
//! [`ks_test`] computes `D_n = sup_x |F_n(x) - F(x)|` against a continuous hypothesised CDF
//! `F`, exactly, from the order statistics:
//! `D+ = max_i (i/n - F(x_(i)))`, `D- = max_i (F(x_(i)) - (i-1)/n)`, `D = max(D+, D-)`.
//!
//! Critical values and p-values use the asymptotic Kolmogorov distribution
//! `Q(t) = P(sqrt(n) D > t) -> 2 sum_{k>=1} (-1)^{k-1} exp(-2 k^2 t^2)` with **Stephens' (1970)
//! small-sample correction**: the statistic is scaled by `sqrt(n) + 0.12 + 0.11/sqrt(n)`
//! instead of `sqrt(n)`. So the critical value at level `alpha` is
//! `c(alpha) / (sqrt(n) + 0.12 + 0.11/sqrt(n))` with `Q(c(alpha)) = alpha`
//! (`c(0.05) = 1.3581`, `c(0.01) = 1.6276`). Stephens reports this accurate to about two
//! significant digits of the level for `n >= 5`, which is what a unit test needs.
//!
//! ```
//! use slarm_stats::gof::{ks_test, Ecdf};
//!
//! let xs = [0.1, 0.4, 0.45, 0.8];
//! let ecdf = Ecdf::new(&xs).unwrap();
//! assert_eq!(ecdf.eval(0.45), 0.75);
//! // Against U(0,1): D+ = max(1/4-0.1, 2/4-0.4, 3/4-0.45, 1-0.8) = 0.3.
//! let ks = ks_test(&xs, |x| x.clamp(0.0, 1.0)).unwrap();
//! assert!((ks.d - 0.3).abs() < 1e-12);
//! assert!(!ks.rejects(0.05).unwrap());
//! ```

use crate::check;
use crate::error::{Result, StatsError};

/// The empirical distribution function of a finite sample.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Ecdf {
    sorted: Vec<f64>,
}

impl Ecdf {
    /// Builds the ECDF of `samples`; every sample must be finite and there must be at least one.
    pub fn new(samples: &[f64]) -> Result<Self> {
        if samples.is_empty() {
            return Err(StatsError::TooFew {
                what: "empirical CDF",
                needed: 1,
                got: 0,
            });
        }
        for &x in samples {
            check::finite("sample", x)?;
        }
        let mut sorted = samples.to_vec();
        sorted.sort_by(f64::total_cmp);
        Ok(Self { sorted })
    }

    /// Number of samples.
    pub fn len(&self) -> usize {
        self.sorted.len()
    }

    /// Always false: an ECDF holds at least one sample.
    pub fn is_empty(&self) -> bool {
        self.sorted.is_empty()
    }

    /// The samples in ascending order.
    pub fn sorted(&self) -> &[f64] {
        &self.sorted
    }

    /// `F_n(x)`: the fraction of samples `<= x`.
    pub fn eval(&self, x: f64) -> f64 {
        let k = self.sorted.partition_point(|&s| s <= x);
        k as f64 / self.sorted.len() as f64
    }

    /// The empirical quantile: the smallest sample `s` with `F_n(s) >= p` (`p` in `[0, 1]`;
    /// `p = 0` gives the minimum).
    pub fn quantile(&self, p: f64) -> Result<f64> {
        check::probability("p", p)?;
        let n = self.sorted.len();
        let k = ((p * n as f64).ceil() as usize).clamp(1, n);
        Ok(self.sorted[k - 1])
    }

    /// The KS statistic of this sample against `cdf` (see [`ks_test`]).
    pub fn ks_against<F: Fn(f64) -> f64>(&self, cdf: F) -> Result<KsResult> {
        let n = self.sorted.len();
        let nf = n as f64;
        let (mut d_plus, mut d_minus) = (0.0f64, 0.0f64);
        for (i, &x) in self.sorted.iter().enumerate() {
            let f = check::probability("hypothesised CDF value", cdf(x))?;
            d_plus = d_plus.max((i + 1) as f64 / nf - f);
            d_minus = d_minus.max(f - i as f64 / nf);
        }
        Ok(KsResult {
            n,
            d_plus,
            d_minus,
            d: d_plus.max(d_minus),
        })
    }
}

/// The outcome of a one-sample Kolmogorov-Smirnov comparison.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct KsResult {
    /// Sample size.
    pub n: usize,
    /// `sup (F_n - F)`.
    pub d_plus: f64,
    /// `sup (F - F_n)`.
    pub d_minus: f64,
    /// `D_n = max(D+, D-)`.
    pub d: f64,
}

impl KsResult {
    /// Asymptotic p-value `P(D_n >= d)` with Stephens' correction.
    pub fn p_value(&self) -> f64 {
        kolmogorov_survival(stephens_factor(self.n) * self.d)
    }

    /// The critical value of `D_n` at significance `alpha` (see [`ks_critical_value`]).
    pub fn critical_value(&self, alpha: f64) -> Result<f64> {
        ks_critical_value(self.n, alpha)
    }

    /// True when the hypothesis is rejected at level `alpha`, i.e. `D_n > critical value`.
    pub fn rejects(&self, alpha: f64) -> Result<bool> {
        Ok(self.d > self.critical_value(alpha)?)
    }
}

/// One-sample KS statistic of `samples` against the continuous CDF `cdf`.
///
/// Errors on an empty sample, non-finite samples, or a `cdf` value outside `[0, 1]`.
pub fn ks_test<F: Fn(f64) -> f64>(samples: &[f64], cdf: F) -> Result<KsResult> {
    Ecdf::new(samples)?.ks_against(cdf)
}

/// Stephens' effective sample-size factor `sqrt(n) + 0.12 + 0.11 / sqrt(n)`.
pub fn stephens_factor(n: usize) -> f64 {
    let s = (n as f64).sqrt();
    s + 0.12 + 0.11 / s
}

/// The Kolmogorov survival function `Q(t) = 2 sum_{k>=1} (-1)^{k-1} exp(-2 k^2 t^2)`,
/// i.e. the limit of `P(sqrt(n) D_n > t)`. Uses the Jacobi-theta form
/// `1 - sqrt(2 pi)/t sum_k exp(-(2k-1)^2 pi^2 / (8 t^2))` for small `t`, where the
/// alternating series converges slowly.
pub fn kolmogorov_survival(t: f64) -> f64 {
    if t.is_nan() {
        return f64::NAN;
    }
    if t <= 0.0 {
        return 1.0;
    }
    if t < 1.0 {
        let pi2 = std::f64::consts::PI * std::f64::consts::PI;
        let mut sum = 0.0;
        for k in 1..=20 {
            let m = (2 * k - 1) as f64;
            sum += (-m * m * pi2 / (8.0 * t * t)).exp();
        }
        return (1.0 - (2.0 * std::f64::consts::PI).sqrt() / t * sum).clamp(0.0, 1.0);
    }
    let mut sum = 0.0;
    for k in 1..=100 {
        let kf = k as f64;
        let term = (-2.0 * kf * kf * t * t).exp();
        sum += if k % 2 == 1 { term } else { -term };
        if term < 1e-300 {
            break;
        }
    }
    (2.0 * sum).clamp(0.0, 1.0)
}

/// The asymptotic Kolmogorov quantile `c(alpha)`: the `t` with `Q(t) = alpha`
/// (`alpha` in `(0, 1)`), by bisection to machine precision.
pub fn kolmogorov_critical(alpha: f64) -> Result<f64> {
    check::probability("alpha", alpha)?;
    if alpha <= 0.0 || alpha >= 1.0 {
        return Err(StatsError::InvalidParameter {
            name: "alpha",
            value: alpha,
            reason: "must lie strictly between 0 and 1",
        });
    }
    let (mut lo, mut hi) = (0.0f64, 10.0f64);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if kolmogorov_survival(mid) > alpha {
            lo = mid;
        } else {
            hi = mid;
        }
        if hi - lo < 1e-15 {
            break;
        }
    }
    Ok(0.5 * (lo + hi))
}

/// Critical value of the one-sample KS statistic `D_n` at level `alpha`:
/// `c(alpha) / (sqrt(n) + 0.12 + 0.11/sqrt(n))` (asymptotic with Stephens' correction).
pub fn ks_critical_value(n: usize, alpha: f64) -> Result<f64> {
    if n == 0 {
        return Err(StatsError::TooFew {
            what: "KS critical value",
            needed: 1,
            got: 0,
        });
    }
    Ok(kolmogorov_critical(alpha)? / stephens_factor(n))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::RngStreams;
    use proptest::prelude::*;
    use rand::RngExt;

    #[test]
    fn kolmogorov_quantiles_match_tables() {
        // Classical asymptotic table (Smirnov 1948): c(0.10)=1.2238, c(0.05)=1.3581, c(0.01)=1.6276.
        for (alpha, c) in [(0.10, 1.22385), (0.05, 1.35810), (0.01, 1.62762)] {
            let got = kolmogorov_critical(alpha).unwrap();
            assert!((got - c).abs() < 1e-4, "alpha {alpha}: {got} vs {c}");
        }
        // Both series agree where they meet.
        let a = kolmogorov_survival(1.0 - 1e-12);
        let b = kolmogorov_survival(1.0);
        assert!((a - b).abs() < 1e-10, "{a} vs {b}");
        assert!((kolmogorov_survival(1.0) - 0.26999967).abs() < 1e-7);
    }

    #[test]
    fn stephens_critical_values_match_exact_small_n_tables() {
        // Exact two-sided 5% critical values (Massey 1951 / Miller 1956): n=10 -> 0.409,
        // n=20 -> 0.294, n=50 -> 0.188. Stephens' form is accurate to ~0.003 here.
        for (n, exact) in [(10usize, 0.409), (20, 0.294), (50, 0.188)] {
            let got = ks_critical_value(n, 0.05).unwrap();
            assert!((got - exact).abs() < 0.004, "n {n}: {got} vs {exact}");
        }
    }

    #[test]
    fn uniform_samples_pass_at_nominal_rate() {
        // 400 fixed-seed replications of n = 50 uniforms: the rejection count at 5% must be
        // within a binomial 4-sigma band around 20 (sigma = 4.36).
        let streams = RngStreams::new(2024);
        let mut rejections = 0;
        for rep in 0..400u64 {
            let mut rng = streams.stream(&[7, rep]);
            let xs: Vec<f64> = (0..50).map(|_| rng.random::<f64>()).collect();
            if ks_test(&xs, |x| x.clamp(0.0, 1.0))
                .unwrap()
                .rejects(0.05)
                .unwrap()
            {
                rejections += 1;
            }
        }
        assert!((3..=38).contains(&rejections), "rejections {rejections}");
    }

    #[test]
    fn wrong_distribution_is_rejected() {
        let mut rng = RngStreams::new(5).stream(&[1]);
        // Squares of uniforms are Beta(1/2, 1), far from U(0,1).
        let xs: Vec<f64> = (0..200).map(|_| rng.random::<f64>().powi(2)).collect();
        let ks = ks_test(&xs, |x| x.clamp(0.0, 1.0)).unwrap();
        assert!(ks.rejects(0.01).unwrap());
        assert!(ks.p_value() < 1e-6);
    }

    #[test]
    fn bad_input_is_typed() {
        assert!(matches!(Ecdf::new(&[]), Err(StatsError::TooFew { .. })));
        assert!(matches!(
            Ecdf::new(&[1.0, f64::NAN]),
            Err(StatsError::NonFinite { .. })
        ));
        assert!(ks_test(&[0.5], |_| 1.5).is_err());
        assert!(ks_critical_value(0, 0.05).is_err());
        assert!(ks_critical_value(10, 0.0).is_err());
        assert!(ks_critical_value(10, f64::NAN).is_err());
    }

    #[test]
    fn ecdf_quantile_convention() {
        let e = Ecdf::new(&[3.0, 1.0, 2.0, 2.0]).unwrap();
        assert_eq!(e.eval(0.5), 0.0);
        assert_eq!(e.eval(2.0), 0.75);
        assert_eq!(e.quantile(0.0).unwrap(), 1.0);
        assert_eq!(e.quantile(0.5).unwrap(), 2.0);
        assert_eq!(e.quantile(0.76).unwrap(), 3.0);
        assert_eq!(e.quantile(1.0).unwrap(), 3.0);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(1000))]
        #[test]
        fn ks_statistic_equals_brute_force_sup(xs in prop::collection::vec(0.0f64..1.0, 1..40)) {
            let ks = ks_test(&xs, |x| x).unwrap();
            let e = Ecdf::new(&xs).unwrap();
            // The sup is attained at a sample point, from the left or right.
            let mut brute = 0.0f64;
            for &x in e.sorted() {
                let left = e.sorted().iter().filter(|&&s| s < x).count() as f64 / xs.len() as f64;
                brute = brute.max((e.eval(x) - x).abs()).max((x - left).abs());
            }
            prop_assert!((ks.d - brute).abs() < 1e-12);
            prop_assert!(ks.d <= 1.0 && ks.d >= 0.5 / xs.len() as f64 - 1e-12);
        }

        #[test]
        fn ecdf_quantile_is_generalised_inverse(xs in prop::collection::vec(-5.0f64..5.0, 1..30), p in 0.0f64..=1.0) {
            let e = Ecdf::new(&xs).unwrap();
            let q = e.quantile(p).unwrap();
            prop_assert!(e.eval(q) >= p - 1e-12);
            for &s in e.sorted() {
                if s < q { prop_assert!(e.eval(s) < p); }
            }
        }
    }
}
