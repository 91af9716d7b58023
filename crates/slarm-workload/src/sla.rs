//! SLA attribute synthesis for traces that have none: deadlines d = submit + k x estimate
//! (Birkenheuer 2012, §5.1.1, k = 2), fee and penalty in node-hours (Birkenheuer 2012,
//! §5.1.1), and urgency classes with normally distributed deadline and budget factors (Yeo &
//! Buyya, §VII.B and Table I).
//!
//! ```
//! use slarm_stats::RngStreams;
//! use slarm_workload::sla::{deadlines, UrgencyConfig};
//! use slarm_workload::Job;
//!
//! let jobs = vec![Job::new(1, 100.0, 50.0, 4, 3600.0)];
//! assert_eq!(deadlines(&jobs, 2.0).unwrap(), vec![100.0 + 7200.0]);
//! let attrs = UrgencyConfig::default().synthesize(&jobs, &mut RngStreams::new(1).stream(&[0]))?;
//! assert!(attrs[0].deadline > jobs[0].submit + jobs[0].runtime);
//! # Ok::<(), slarm_workload::WorkloadError>(())
//! ```

use rand::seq::SliceRandom;
use rand::{Rng, RngExt};
use rand_distr::{Distribution, Normal};

use crate::error::{invalid, Result};
use crate::job::Job;

/// Deadlines d = submit + k x estimate (Birkenheuer 2012 §5.1.1: k = 2).
pub fn deadlines(jobs: &[Job], k: f64) -> Result<Vec<f64>> {
    if !(k.is_finite() && k > 0.0) {
        return Err(invalid("deadline factor k", k, "must be finite and > 0"));
    }
    Ok(jobs.iter().map(|j| j.submit + k * j.estimate()).collect())
}

/// Fee in node-hours (processors x estimate / 3600, Birkenheuer 2012 §5.1.1: 1 VC per booked
/// CPU-hour) and penalty = `penalty_ratio` x fee.
pub fn fee_and_penalty(job: &Job, penalty_ratio: f64) -> Result<(f64, f64)> {
    if !(penalty_ratio.is_finite() && penalty_ratio >= 0.0) {
        return Err(invalid(
            "penalty ratio",
            penalty_ratio,
            "must be finite and >= 0",
        ));
    }
    let fee = job.procs().max(0) as f64 * job.estimate() / 3600.0;
    let penalty = fee * penalty_ratio;
    if !(fee.is_finite() && penalty.is_finite()) {
        return Err(invalid(
            "penalty ratio",
            penalty_ratio,
            "makes the penalty overflow",
        ));
    }
    Ok((fee, penalty))
}

/// Urgency class of a job (Yeo & Buyya §VII.B).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Urgency {
    /// Short deadline, large budget.
    High,
    /// Long deadline, small budget.
    Low,
}

/// Synthesised SLA attributes of one job.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct SlaAttributes {
    /// Urgency class.
    pub urgency: Urgency,
    /// Absolute deadline DT = submit + factor x run time.
    pub deadline: f64,
    /// Budget B = factor x run time (f(R) = R: Yeo & Buyya §VII.B call f "the minimum budget
    /// the user will quote" and state the high:low ratio on B/R).
    pub budget: f64,
}

/// How jobs are assigned to the urgency classes (Yeo & Buyya §VII.B: "random order").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum ClassAssignment {
    /// Exactly round(share x n) high-urgency jobs, placed by a seeded random permutation
    /// (our default; e.g. 1000 of 5000).
    ExactCount,
    /// Each job is high urgency with probability `share`, independently.
    Bernoulli,
}

/// Parameters of Yeo & Buyya's Table I (defaults) for urgency-class synthesis.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct UrgencyConfig {
    /// Share of high-urgency jobs (0.2).
    pub high_share: f64,
    /// The low deadline mean D/R (2.0): high urgency uses it, low urgency uses it x
    /// `deadline_ratio`.
    pub deadline_low_mean: f64,
    /// Deadline high:low ratio (4.0).
    pub deadline_ratio: f64,
    /// Mean B/f(R) of low-urgency jobs (2.0); high urgency uses it x `budget_ratio`.
    pub budget_low_mean: f64,
    /// Budget high:low ratio (4.0).
    pub budget_ratio: f64,
    /// Standard deviation as a fraction of each class mean (0.25; Yeo & Buyya §VII.B do
    /// not give it).
    pub cv: f64,
    /// Class assignment (default [`ClassAssignment::ExactCount`]).
    pub assignment: ClassAssignment,
}

impl Default for UrgencyConfig {
    fn default() -> Self {
        Self {
            high_share: 0.2,
            deadline_low_mean: 2.0,
            deadline_ratio: 4.0,
            budget_low_mean: 2.0,
            budget_ratio: 4.0,
            cv: 0.25,
            assignment: ClassAssignment::ExactCount,
        }
    }
}

/// Draws from `dist` until `accept` holds (truncation by resampling: Yeo & Buyya
/// draw normal factors but state that "deadlines are always set as larger factors of runtimes").
/// Gives up with an error after `MAX_DRAWS` rejections, so a mean far outside the accepted
/// range is reported instead of looping forever.
fn draw_truncated<R: Rng + ?Sized>(
    dist: &Normal<f64>,
    accept: impl Fn(f64) -> bool,
    name: &'static str,
    rng: &mut R,
) -> Result<f64> {
    const MAX_DRAWS: usize = 10_000;
    for _ in 0..MAX_DRAWS {
        let x = dist.sample(rng);
        if accept(x) {
            return Ok(x);
        }
    }
    Err(invalid(
        name,
        format!("N({}, {})", dist.mean(), dist.std_dev()),
        "almost never lands in the admissible range (deadline factor > 1, budget factor >= 1)",
    ))
}

impl UrgencyConfig {
    fn validate(&self) -> Result<()> {
        if !(0.0..=1.0).contains(&self.high_share) {
            return Err(invalid(
                "high-urgency share",
                self.high_share,
                "must lie in [0, 1]",
            ));
        }
        for (name, v) in [
            ("deadline low mean", self.deadline_low_mean),
            ("deadline ratio", self.deadline_ratio),
            ("budget low mean", self.budget_low_mean),
            ("budget ratio", self.budget_ratio),
        ] {
            if !(v.is_finite() && v > 0.0) {
                return Err(invalid(name, v, "must be finite and > 0"));
            }
        }
        if !(self.cv.is_finite() && self.cv >= 0.0) {
            return Err(invalid("cv", self.cv, "must be finite and >= 0"));
        }
        Ok(())
    }

    /// The urgency of each job: exactly round(share x n) high-urgency jobs in a random
    /// order, or independent Bernoulli draws.
    fn classes<R: Rng + ?Sized>(&self, n: usize, rng: &mut R) -> Vec<bool> {
        match self.assignment {
            ClassAssignment::ExactCount => {
                let k = ((self.high_share * n as f64).round() as usize).min(n);
                let mut high = vec![false; n];
                high[..k].fill(true);
                high.shuffle(rng);
                high
            }
            ClassAssignment::Bernoulli => (0..n)
                .map(|_| rng.random::<f64>() < self.high_share)
                .collect(),
        }
    }

    /// Draws class, deadline and budget per job (Yeo & Buyya §VII.B, Table I): classes in
    /// random order; D/R and B/f(R) factors normal with standard deviation `cv` x the class
    /// mean, truncated by resampling to D/R > 1 ("deadlines are always set as larger factors
    /// of runtimes") and B/f(R) >= 1 (f is the minimum budget quoted).
    pub fn synthesize<R: Rng + ?Sized>(
        &self,
        jobs: &[Job],
        rng: &mut R,
    ) -> Result<Vec<SlaAttributes>> {
        self.validate()?;
        let normal =
            |m: f64| Normal::new(m, m * self.cv).map_err(|_| invalid("normal mean", m, "bad"));
        let (dh, dl) = (
            normal(self.deadline_low_mean)?,
            normal(self.deadline_low_mean * self.deadline_ratio)?,
        );
        let (bh, bl) = (
            normal(self.budget_low_mean * self.budget_ratio)?,
            normal(self.budget_low_mean)?,
        );
        let classes = self.classes(jobs.len(), rng);
        jobs.iter()
            .zip(classes)
            .map(|(j, high)| {
                let (d, b) = if high { (&dh, &bh) } else { (&dl, &bl) };
                let df = draw_truncated(d, |x| x > 1.0, "deadline factor", rng)?;
                let bf = draw_truncated(b, |x| x >= 1.0, "budget factor", rng)?;
                Ok(SlaAttributes {
                    urgency: if high { Urgency::High } else { Urgency::Low },
                    deadline: j.submit + df * j.runtime,
                    budget: bf * j.runtime,
                })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use slarm_stats::RngStreams;

    /// Mean of N(m, s) truncated below at `lo`: m + s phi(a) / (1 - Phi(a)), a = (lo - m) / s,
    /// with the upper tail 1 - Phi(a) integrated by Simpson's rule over [a, a + 12].
    fn truncated_mean(m: f64, s: f64, lo: f64) -> f64 {
        let phi = |z: f64| (-0.5 * z * z).exp() / (2.0 * std::f64::consts::PI).sqrt();
        let a = (lo - m) / s;
        let (n, h) = (2000, 12.0 / 2000.0);
        let tail = (0..=n)
            .map(|k| {
                let w = if k == 0 || k == n {
                    1.0
                } else if k % 2 == 1 {
                    4.0
                } else {
                    2.0
                };
                w * phi(a + h * f64::from(k))
            })
            .sum::<f64>()
            * h
            / 3.0;
        m + s * phi(a) / tail
    }

    #[test]
    fn class_shares_and_means_match_table_i() {
        // Yeo & Buyya §VII.B / Table I: 20 % high urgency (exactly 4000 of 20000), D/R
        // means 2 (high) and 8 (low), B/f means 8 (high) and 2 (low); sd = 0.25 x mean,
        // truncated by resampling to D/R > 1 and B/f >= 1.
        let jobs: Vec<Job> = (0..20_000)
            .map(|i| Job::new(i, 0.0, 100.0, 1, 100.0))
            .collect();
        let a = UrgencyConfig::default()
            .synthesize(&jobs, &mut RngStreams::new(5).stream(&[1]))
            .unwrap();
        let high: Vec<_> = a.iter().filter(|x| x.urgency == Urgency::High).collect();
        assert_eq!(high.len(), 4000);
        // Standard error of a mean of 4000 draws with sd 0.5 (D/R) or 2 (B/f): 0.008 and
        // 0.032; tolerances are 4 standard errors.
        let mean_d_high = high.iter().map(|x| x.deadline / 100.0).sum::<f64>() / high.len() as f64;
        let want_d = truncated_mean(2.0, 0.5, 1.0); // 2.0276
        assert!(
            (mean_d_high - want_d).abs() < 0.032,
            "{mean_d_high} vs {want_d}"
        );
        let mean_b_high = high.iter().map(|x| x.budget / 100.0).sum::<f64>() / high.len() as f64;
        let want_b = truncated_mean(8.0, 2.0, 1.0);
        assert!(
            (mean_b_high - want_b).abs() < 0.13,
            "{mean_b_high} vs {want_b}"
        );
        assert!(a.iter().all(|x| x.deadline > 100.0 && x.budget >= 100.0));
        // Bernoulli assignment: share within 4 standard errors (0.0028 x 4).
        let b = UrgencyConfig {
            assignment: ClassAssignment::Bernoulli,
            ..UrgencyConfig::default()
        }
        .synthesize(&jobs, &mut RngStreams::new(5).stream(&[2]))
        .unwrap();
        let share = b.iter().filter(|x| x.urgency == Urgency::High).count() as f64 / 20_000.0;
        assert!((share - 0.2).abs() < 0.0114, "{share}");
        let bad = UrgencyConfig {
            high_share: 1.5,
            ..UrgencyConfig::default()
        };
        assert!(bad
            .synthesize(&jobs, &mut RngStreams::new(5).stream(&[1]))
            .is_err());
        // A deadline mean of 0.5 with no spread can never exceed 1: an error, not a hang.
        let impossible = UrgencyConfig {
            deadline_low_mean: 0.5,
            cv: 0.0,
            ..UrgencyConfig::default()
        };
        assert!(impossible
            .synthesize(&jobs[..3], &mut RngStreams::new(5).stream(&[1]))
            .is_err());
        assert!(deadlines(&jobs, -1.0).is_err());
        let (fee, pen) = fee_and_penalty(&Job::new(1, 0.0, 10.0, 4, 7200.0), 2.0).unwrap();
        assert_eq!((fee, pen), (8.0, 16.0));
        // Found by crates/slarm/tests/robustness: a huge finite ratio overflowed to inf.
        assert!(fee_and_penalty(&Job::new(1, 0.0, 10.0, 4, 7200.0), f64::MAX).is_err());
    }
}
