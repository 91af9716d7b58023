//! The model side: response-time SLAs and job classes (Hu 2009, chapter 3).

use crate::error::{QueueError, Result};
use slarm_stats::check;

/// A response-time SLA `P(T <= x) >= y`.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Sla {
    x: f64,
    y: f64,
}

impl Sla {
    /// Validates `x > 0` finite and `0 < y < 1`.
    ///
    /// ```
    /// use slarm_queueing::Sla;
    /// let s = Sla::new(3.0, 0.95).unwrap();
    /// assert!(s.is_feasible(1.0));                  // 0.95 < 1 - e^-3 = 0.9502
    /// assert!(!Sla::new(2.0, 0.95).unwrap().is_feasible(1.0));
    /// assert!(Sla::new(2.0, 1.0).is_err());
    /// ```
    pub fn new(x: f64, y: f64) -> Result<Self> {
        check::positive("x", x)?;
        check::open_probability("y", y)?;
        Ok(Self { x, y })
    }
    /// Response-time threshold.
    pub fn x(&self) -> f64 {
        self.x
    }
    /// Target probability.
    pub fn y(&self) -> f64 {
        self.y
    }
    /// The supremum of `F(x)` over m: `1 - e^{-mu x}` (Hu 2009, §4.2).
    pub fn bound(&self, mu: f64) -> f64 {
        -(-mu * self.x).exp_m1()
    }
    /// `y < 1 - e^{-mu x}` strictly (Hu 2009, §4.2: the response time is never below the
    /// service time).
    pub fn is_feasible(&self, mu: f64) -> bool {
        self.y < self.bound(mu)
    }
    /// `Ok(())` if feasible, else [`QueueError::InfeasibleSla`].
    pub fn check_feasible(&self, mu: f64) -> Result<()> {
        if self.is_feasible(mu) {
            Ok(())
        } else {
            Err(QueueError::InfeasibleSla {
                x: self.x,
                y: self.y,
                bound: self.bound(mu),
            })
        }
    }
}

/// One job class: Poisson arrival rate and its SLA (service rate is common to all classes).
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct JobClass {
    lambda: f64,
    sla: Sla,
}

impl JobClass {
    /// Validates `lambda >= 0` finite.
    pub fn new(lambda: f64, sla: Sla) -> Result<Self> {
        check::non_negative("lambda", lambda)?;
        Ok(Self { lambda, sla })
    }
    /// Arrival rate.
    pub fn lambda(&self) -> f64 {
        self.lambda
    }
    /// SLA.
    pub fn sla(&self) -> Sla {
        self.sla
    }
}

/// Constructors for unit tests (panic on invalid input, which tests never pass).
#[cfg(test)]
#[allow(clippy::unwrap_used)]
pub(crate) mod fixtures {
    use super::{JobClass, Sla};

    /// `Sla::new(x, y)`.
    pub fn sla(x: f64, y: f64) -> Sla {
        Sla::new(x, y).unwrap()
    }

    /// A class with load `l` and SLA `(x, y)`.
    pub fn class(l: f64, x: f64, y: f64) -> JobClass {
        JobClass::new(l, sla(x, y)).unwrap()
    }
}
