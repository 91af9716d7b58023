//! Random settings of the thesis's evaluation (Hu 2009, §4.5, Table 4.6).
//!
//! Where the thesis is silent: a load of exactly 0 is redrawn, the second parameter of
//! N(20, 5) and N(20, 10) is read as a standard deviation (as a variance, three classes with
//! a sum <= 40 are practically never drawn), and an infeasible `(x, y)` is redrawn.

use rand::Rng;
use rand_distr::{Distribution, Exp, Normal};

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
    /// N(mean, sd^2) truncated to (0, K]; `spread` is the standard deviation unless
    /// `spread_is_variance` (Table 4.6's legend says variance; see the module docs).
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
                LambdaDist::Uniform { a, b } => a + (b - a) * rng.gen::<f64>(),
                LambdaDist::Normal {
                    mean,
                    spread,
                    spread_is_variance,
                } => {
                    let sd = if spread_is_variance {
                        spread.sqrt()
                    } else {
                        spread
                    };
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
    /// Short label such as `U(0,40)`, `N(20,5)`, `E(10)`.
    pub fn label(&self) -> String {
        match *self {
            LambdaDist::Uniform { a, b } => format!("U({a},{b})"),
            LambdaDist::Normal { mean, spread, .. } => format!("N({mean},{spread})"),
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

impl Setting {
    /// The six settings of Tables 4.7, 5.1, 5.2, 6.2-6.4 in table order (normal spread read
    /// as a standard deviation).
    pub fn thesis() -> Vec<Setting> {
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
            spread_is_variance: false,
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

/// One draw of `n` classes: loads redrawn until their sum is `<= K`, then each class's
/// `(x, y)` redrawn jointly until feasible (the thesis does not say how it treats them). Returns the classes and the number
/// of infeasible `(x, y)` draws rejected.
pub fn draw_classes<R: Rng + ?Sized>(
    n: usize,
    setting: &Setting,
    mu: f64,
    rng: &mut R,
) -> Result<(Vec<JobClass>, u64)> {
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
    let mut rejected = 0;
    let mut classes = Vec::with_capacity(n);
    for l in lambdas {
        let sla = loop {
            let x = setting.x_lo + (setting.x_hi - setting.x_lo) * rng.gen::<f64>();
            let y = setting.y_lo + (setting.y_hi - setting.y_lo) * rng.gen::<f64>();
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
}
