//! Random settings of the thesis's evaluation (Hu 2009, §4.5, Table 4.6).
//!
//! Where the thesis is silent: a load of exactly 0 is redrawn and an infeasible `(x, y)` is
//! redrawn. The second parameter of N(20, 5) and N(20, 10) is a variance, as the legend of
//! Table 4.6 says ([`Setting::thesis`]); reading it as a standard deviation is a labelled
//! variant ([`NormalSpread::StandardDeviation`]). Under the variance reading three classes with
//! a sum <= 40 have a probability of about 1e-7, so normal loads are drawn from their exact
//! conditional law instead of by rejection (see [`draw_classes`]).

use rand::{Rng, RngExt};
use rand_distr::{Distribution, Exp, Exp1, Normal, StandardNormal};

use crate::error::{QueueError, Result};
use crate::sla::{JobClass, Sla};

/// Upper limit of each lambda and of their sum (thesis K = 40).
pub const K: f64 = 40.0;

/// Distribution of one class's arrival rate, truncated to `(0, K]` by resampling.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum LambdaDist {
    /// U(a, b); a draw of exactly 0 is redrawn.
    Uniform {
        /// Lower end.
        a: f64,
        /// Upper end.
        b: f64,
    },
    /// N(mean, sd^2) truncated to (0, K]; `spread` is the variance if `spread_is_variance`
    /// (Table 4.6's legend), else the standard deviation.
    Normal {
        /// Mean.
        mean: f64,
        /// Standard deviation (or variance).
        spread: f64,
        /// Read `spread` as the variance (the thesis legend's literal reading).
        spread_is_variance: bool,
    },
    /// Exponential with the given mean, truncated to (0, K].
    Exponential {
        /// Mean.
        mean: f64,
    },
}

impl LambdaDist {
    /// One draw in (0, K].
    pub fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> Result<f64> {
        for _ in 0..1_000_000 {
            let v = match *self {
                LambdaDist::Uniform { a, b } => a + (b - a) * rng.random::<f64>(),
                LambdaDist::Normal {
                    mean,
                    spread,
                    spread_is_variance,
                } => {
                    let sd = normal_sd(spread, spread_is_variance);
                    Normal::new(mean, sd)
                        .map_err(|e| QueueError::InvalidConfig(e.to_string()))?
                        .sample(rng)
                }
                LambdaDist::Exponential { mean } => Exp::new(1.0 / mean)
                    .map_err(|e| QueueError::InvalidConfig(e.to_string()))?
                    .sample(rng),
            };
            if v > 0.0 && v <= K {
                return Ok(v);
            }
        }
        Err(QueueError::InvalidConfig(format!(
            "{self:?} almost never falls in (0, {K}]"
        )))
    }
    /// Short label such as `U(0,40)`, `N(20,5)` (variance 5), `N(20,sd 5)`, `E(10)`.
    pub fn label(&self) -> String {
        match *self {
            LambdaDist::Uniform { a, b } => format!("U({a},{b})"),
            LambdaDist::Normal {
                mean,
                spread,
                spread_is_variance: true,
            } => format!("N({mean},{spread})"),
            LambdaDist::Normal { mean, spread, .. } => format!("N({mean},sd {spread})"),
            LambdaDist::Exponential { mean } => format!("E({mean})"),
        }
    }
}

/// One evaluation setting: lambda distribution, x ~ U(x_lo, x_hi), y ~ U(y_lo, y_hi).
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Setting {
    /// Arrival-rate distribution of every class.
    pub lambda: LambdaDist,
    /// x ~ U(x_lo, x_hi).
    pub x_lo: f64,
    /// Upper end of x.
    pub x_hi: f64,
    /// y ~ U(y_lo, y_hi) (thesis: 0.80-0.95).
    pub y_lo: f64,
    /// Upper end of y.
    pub y_hi: f64,
}

/// How the second parameter of Table 4.6's N(20, s) is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum NormalSpread {
    /// s is the variance sigma^2 (the legend of Hu 2009, Table 4.6; the default).
    Variance,
    /// s is the standard deviation (a variant: it makes three-class samples with a load sum
    /// <= 40 common instead of about 1e-7 likely).
    StandardDeviation,
}

/// The standard deviation of N(mean, spread) under either reading.
fn normal_sd(spread: f64, spread_is_variance: bool) -> f64 {
    if spread_is_variance {
        spread.sqrt()
    } else {
        spread
    }
}

impl Setting {
    /// The six settings of Tables 4.7, 5.1, 5.2, 6.2-6.4 in table order, N(20, s) read as
    /// variance s (Hu 2009, Table 4.6).
    ///
    /// ```
    /// use slarm_queueing::sampling::Setting;
    /// let labels: Vec<String> = Setting::thesis().iter().map(|s| s.label()).collect();
    /// assert_eq!(labels[2], "N(20,5)/U(2,5)");
    /// ```
    pub fn thesis() -> Vec<Setting> {
        Self::thesis_with(NormalSpread::Variance)
    }

    /// The six settings with N(20, s) read as `spread`; the uniform and exponential settings
    /// are the same under both readings.
    ///
    /// ```
    /// use slarm_queueing::sampling::{NormalSpread, Setting};
    /// let sd = Setting::thesis_with(NormalSpread::StandardDeviation);
    /// assert_eq!(sd[3].label(), "N(20,sd 10)/U(2,5)");
    /// assert_eq!(sd[0], Setting::thesis()[0]);
    /// ```
    pub fn thesis_with(reading: NormalSpread) -> Vec<Setting> {
        let s = |lambda, x_hi| Setting {
            lambda,
            x_lo: 2.0,
            x_hi,
            y_lo: 0.80,
            y_hi: 0.95,
        };
        let n = |spread| LambdaDist::Normal {
            mean: 20.0,
            spread,
            spread_is_variance: reading == NormalSpread::Variance,
        };
        vec![
            s(LambdaDist::Uniform { a: 0.0, b: 40.0 }, 5.0),
            s(LambdaDist::Uniform { a: 0.0, b: 40.0 }, 10.0),
            s(n(5.0), 5.0),
            s(n(10.0), 5.0),
            s(LambdaDist::Exponential { mean: 10.0 }, 5.0),
            s(LambdaDist::Exponential { mean: 20.0 }, 5.0),
        ]
    }
    /// `U(0,40)/U(2,5)`-style label.
    pub fn label(&self) -> String {
        format!("{}/U({},{})", self.lambda.label(), self.x_lo, self.x_hi)
    }
    /// A file-name-safe id.
    pub fn id(&self) -> String {
        self.label()
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '.' {
                    c
                } else {
                    '_'
                }
            })
            .collect()
    }
}

/// One draw of `n` classes: loads drawn independently from the setting's distribution on
/// (0, K] and conditioned on their sum being `<= K`, then each class's `(x, y)` redrawn jointly
/// until feasible (the thesis does not say how it treats them). Returns the classes and the
/// number of infeasible `(x, y)` draws rejected.
///
/// Uniform and exponential loads are redrawn until the sum fits. Normal loads are drawn from
/// the same conditional law directly, since under the variance reading of N(20, 5) a rejection
/// loop would need about 10^7 tries per three-class sample: the sum is drawn from its normal law
/// truncated to `<= K` (the tail sampler of Robert, 1995), the deviations from the mean
/// independently of it, redrawn until every load is positive.
pub fn draw_classes<R: Rng + ?Sized>(
    n: usize,
    setting: &Setting,
    mu: f64,
    rng: &mut R,
) -> Result<(Vec<JobClass>, u64)> {
    let lambdas = match setting.lambda {
        LambdaDist::Normal {
            mean,
            spread,
            spread_is_variance,
        } => normal_loads(n, mean, normal_sd(spread, spread_is_variance), rng)?,
        _ => rejected_loads(n, setting, rng)?,
    };
    let mut rejected = 0;
    let mut classes = Vec::with_capacity(n);
    for l in lambdas {
        let sla = loop {
            let x = setting.x_lo + (setting.x_hi - setting.x_lo) * rng.random::<f64>();
            let y = setting.y_lo + (setting.y_hi - setting.y_lo) * rng.random::<f64>();
            let s = Sla::new(x, y)?;
            if s.is_feasible(mu) {
                break s;
            }
            rejected += 1;
            if rejected > 1_000_000 {
                return Err(QueueError::InvalidConfig(
                    "no feasible SLA in the setting".into(),
                ));
            }
        };
        classes.push(JobClass::new(l, sla)?);
    }
    Ok((classes, rejected))
}

/// `n` loads of `setting`, each in (0, K], redrawn together until their sum is `<= K`.
fn rejected_loads<R: Rng + ?Sized>(n: usize, setting: &Setting, rng: &mut R) -> Result<Vec<f64>> {
    let mut lambdas = vec![0.0; n];
    let mut ok = false;
    for _ in 0..10_000_000 {
        for l in lambdas.iter_mut() {
            *l = setting.lambda.sample(rng)?;
        }
        if lambdas.iter().sum::<f64>() <= K {
            ok = true;
            break;
        }
    }
    if !ok {
        return Err(QueueError::InvalidConfig(format!(
            "{}: loads almost never sum to at most {K}",
            setting.label()
        )));
    }
    Ok(lambdas)
}

/// `n` independent N(mean, sd^2) loads conditioned on every load being in (0, K] and on their
/// sum being `<= K`, drawn exactly: the sum S ~ N(n mean, n sd^2) and the deviations from the
/// sample mean are independent, so S is drawn from its normal law truncated to `S <= K`
/// (one-sided tail sampler of Robert, 1995, "Simulation of truncated normal variables"), the
/// deviations from fresh draws, and the pair is redrawn until every load is positive (each is
/// then below S <= K).
fn normal_loads<R: Rng + ?Sized>(n: usize, mean: f64, sd: f64, rng: &mut R) -> Result<Vec<f64>> {
    if !(mean.is_finite() && sd.is_finite() && sd >= 0.0) || n == 0 {
        return Err(QueueError::InvalidConfig(format!(
            "N({mean}, sd {sd}) loads for {n} classes"
        )));
    }
    let k = n as f64;
    let (sum_mean, sum_sd) = (k * mean, sd * k.sqrt());
    let bound = (K - sum_mean) / sum_sd;
    if sum_sd > 0.0 && !bound.is_finite() {
        return Err(QueueError::InvalidConfig(format!(
            "N({mean}, sd {sd}) loads for {n} classes: the bound of their sum is not finite"
        )));
    }
    let mut lambdas = vec![0.0; n];
    for _ in 0..1_000_000 {
        let sum = if sum_sd > 0.0 {
            sum_mean + sum_sd * standard_normal_at_most(bound, rng)
        } else {
            sum_mean
        };
        if !(sum > 0.0 && sum <= K) {
            continue;
        }
        for l in lambdas.iter_mut() {
            *l = sd * rng.sample::<f64, _>(StandardNormal);
        }
        let dev_mean = lambdas.iter().sum::<f64>() / k;
        for l in lambdas.iter_mut() {
            *l += sum / k - dev_mean;
        }
        if lambdas.iter().all(|&l| l > 0.0) {
            return Ok(lambdas);
        }
    }
    Err(QueueError::InvalidConfig(format!(
        "N({mean}, sd {sd}) loads of {n} classes almost never lie in (0, {K}] with sum <= {K}"
    )))
}

/// A standard normal draw conditioned on being `<= b`: plain rejection when `b >= 0`
/// (acceptance >= 1/2), else the exponential-proposal sampler of Robert (1995) for the tail
/// `Z >= -b` (acceptance above 0.76 for every bound).
fn standard_normal_at_most<R: Rng + ?Sized>(b: f64, rng: &mut R) -> f64 {
    if b >= 0.0 {
        loop {
            let z: f64 = rng.sample(StandardNormal);
            if z <= b {
                return z;
            }
        }
    }
    let a = -b;
    if a > 1e6 {
        // The tail beyond a is exponential with rate a to a relative error below 1e-12, and
        // Robert's rate would overflow for larger a.
        return -(a + rng.sample::<f64, _>(Exp1) / a);
    }
    let rate = 0.5 * (a + (a * a + 4.0).sqrt());
    loop {
        let z = a + rng.sample::<f64, _>(Exp1) / rate;
        if rng.random::<f64>() <= (-0.5 * (z - rate) * (z - rate)).exp() {
            return -z;
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn draws_respect_constraints_and_reject_rate() {
        let mut rng = slarm_stats::SimRng::seed_from_u64(5);
        let mut rejected = 0;
        let n = 4_000;
        for s in Setting::thesis() {
            for _ in 0..200 {
                let (c, _) = draw_classes(3, &s, 1.0, &mut rng).unwrap();
                assert!(c.iter().map(|c| c.lambda()).sum::<f64>() <= K);
                assert!(c
                    .iter()
                    .all(|c| c.lambda() > 0.0 && c.sla().is_feasible(1.0)));
            }
        }
        let s = Setting::thesis()[0];
        for _ in 0..n {
            rejected += draw_classes(1, &s, 1.0, &mut rng).unwrap().1;
        }
        // About 7.9% of (x, y) draws are infeasible for x ~ U(2,5), y ~ U(0.8, 0.95).
        let rate = rejected as f64 / (n as f64 + rejected as f64);
        assert!((rate - 0.079).abs() < 0.015, "{rate}");
    }

    /// Mean and standard error of `f` over `n` draws.
    fn mean_se(n: usize, mut f: impl FnMut() -> f64) -> (f64, f64) {
        let v: Vec<f64> = (0..n).map(|_| f()).collect();
        let m = v.iter().sum::<f64>() / n as f64;
        let var = v.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (n as f64 - 1.0);
        (m, (var / n as f64).sqrt())
    }

    /// The exact conditional sampler draws the law of the rejection loop: under the sd reading
    /// (acceptance about 1 % for three classes) the sum and the smallest load agree within
    /// four standard errors.
    #[test]
    fn normal_loads_match_rejection() {
        let setting = Setting::thesis_with(NormalSpread::StandardDeviation)[2];
        let mut rng = slarm_stats::SimRng::seed_from_u64(7);
        let n = 3_000;
        for stat in [
            |v: &[f64]| v.iter().sum::<f64>(),
            |v: &[f64]| v.iter().copied().fold(f64::INFINITY, f64::min),
        ] {
            let (a, sa) = mean_se(n, || stat(&rejected_loads(3, &setting, &mut rng).unwrap()));
            let (b, sb) = mean_se(n, || stat(&normal_loads(3, 20.0, 5.0, &mut rng).unwrap()));
            assert!(
                (a - b).abs() < 4.0 * (sa * sa + sb * sb).sqrt(),
                "{a} vs {b}"
            );
        }
    }

    /// Extreme spreads neither hang nor break the constraints: a bound far in the tail is
    /// sampled from its exponential limit, an infinite bound is an error.
    #[test]
    fn normal_loads_at_extreme_spreads() {
        let mut rng = slarm_stats::SimRng::seed_from_u64(9);
        for sd in [1e-12, 1e-200] {
            let v = normal_loads(3, 20.0, sd, &mut rng).unwrap();
            assert!(
                v.iter().sum::<f64>() <= K && v.iter().all(|&l| l > 0.0),
                "{v:?}"
            );
        }
        assert!(normal_loads(3, 1e308, 1e-300, &mut rng).is_err());
        assert!(normal_loads(3, 20.0, f64::NAN, &mut rng).is_err());
    }

    /// Under the variance reading three N(20, 5) loads conditioned on a sum <= 40 have the
    /// truncated-normal mean sum 60 - sqrt(15) phi(b) / Phi(b) = 39.2979 (b = -20 / sqrt(15));
    /// every draw keeps its loads in (0, 40] and its sum <= 40.
    #[test]
    fn variance_reading_draws_three_classes_near_the_bound() {
        let setting = Setting::thesis()[2];
        let mut rng = slarm_stats::SimRng::seed_from_u64(8);
        let (m, se) = mean_se(4_000, || {
            let (c, _) = draw_classes(3, &setting, 1.0, &mut rng).unwrap();
            let sum = c.iter().map(|c| c.lambda()).sum::<f64>();
            assert!(sum <= K && c.iter().all(|c| c.lambda() > 0.0));
            sum
        });
        assert!((m - 39.2979).abs() < 4.0 * se, "{m} +- {se}");
    }
}
