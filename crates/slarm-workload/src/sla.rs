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
//! let attrs = UrgencyConfig::default().synthesize(&jobs, &RngStreams::new(1))?;
//! assert!(attrs[0].deadline > jobs[0].submit + jobs[0].runtime);
//! # Ok::<(), slarm_workload::WorkloadError>(())
//! ```

use rand::seq::SliceRandom;
use rand::{Rng, RngExt};
use rand_distr::{Distribution, StandardNormal};
use slarm_stats::check;
use slarm_stats::rng::{label, RngStreams};

use crate::error::{invalid, Result};
use crate::job::Job;

/// Deadlines d = submit + k x estimate (Birkenheuer 2012 §5.1.1: k = 2).
pub fn deadlines(jobs: &[Job], k: f64) -> Result<Vec<f64>> {
    check::positive("deadline factor k", k)?;
    Ok(jobs.iter().map(|j| j.submit + k * j.estimate()).collect())
}

/// Fee in node-hours (processors x estimate / 3600, Birkenheuer 2012 §5.1.1: 1 VC per booked
/// CPU-hour) and penalty = `penalty_ratio` x fee.
pub fn fee_and_penalty(job: &Job, penalty_ratio: f64) -> Result<(f64, f64)> {
    check::non_negative("penalty ratio", penalty_ratio)?;
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

/// Most draws of one factor before the synthesis gives up with an error (a mean far
/// outside the accepted range is reported instead of looping forever).
const MAX_DRAWS: usize = 10_000;

/// Most jobs [`UrgencyConfig::draw`] takes (it holds about 34 bytes a job), so that a
/// count asking for more is an error before any memory is taken.
const MAX_JOBS: usize = 1 << 30;

/// One job's draw (Yeo & Buyya §VII.B): its class, deadline factor D/R and budget factor
/// B/f(R).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct UrgencyDraw {
    /// Urgency class.
    pub urgency: Urgency,
    /// Deadline factor D/R (> 1).
    pub deadline_factor: f64,
    /// Budget factor B/f(R) (>= 1).
    pub budget_factor: f64,
}

impl UrgencyConfig {
    fn validate(&self) -> Result<()> {
        check::probability("high-urgency share", self.high_share)?;
        for (name, v) in [
            ("deadline low mean", self.deadline_low_mean),
            ("deadline ratio", self.deadline_ratio),
            ("budget low mean", self.budget_low_mean),
            ("budget ratio", self.budget_ratio),
        ] {
            check::positive(name, v)?;
        }
        check::non_negative("cv", self.cv)?;
        Ok(())
    }

    /// Mean deadline factor D/R of a class: the low mean for high urgency, times the ratio
    /// for low urgency.
    pub fn deadline_mean(&self, u: Urgency) -> f64 {
        match u {
            Urgency::High => self.deadline_low_mean,
            Urgency::Low => self.deadline_low_mean * self.deadline_ratio,
        }
    }

    /// Mean budget factor B/f(R) of a class: the low mean for low urgency, times the ratio
    /// for high urgency.
    pub fn budget_mean(&self, u: Urgency) -> f64 {
        match u {
            Urgency::High => self.budget_low_mean * self.budget_ratio,
            Urgency::Low => self.budget_low_mean,
        }
    }

    /// The urgency of each of `n` jobs: with [`ClassAssignment::ExactCount`], round(share x
    /// n) high-urgency jobs at the first positions of a random permutation; with
    /// [`ClassAssignment::Bernoulli`], independent draws.
    fn classes<R: Rng + ?Sized>(&self, n: usize, rng: &mut R) -> Vec<Urgency> {
        let mut classes = vec![Urgency::Low; n];
        match self.assignment {
            ClassAssignment::ExactCount => {
                let k = (self.high_share * n as f64).round() as usize;
                let mut positions: Vec<usize> = (0..n).collect();
                positions.shuffle(rng);
                for &i in positions.iter().take(k) {
                    classes[i] = Urgency::High;
                }
            }
            ClassAssignment::Bernoulli => {
                for c in &mut classes {
                    if rng.random::<f64>() < self.high_share {
                        *c = Urgency::High;
                    }
                }
            }
        }
        classes
    }

    /// A factor of mean `mean`: `mean x (1 + cv x z)` with `z` standard normal, drawn
    /// again until it exceeds 1 (or reaches it, if `inclusive`): Yeo & Buyya draw normal
    /// factors but state that "deadlines are always set as larger factors of runtimes", and
    /// f(R) is the minimum budget quoted. An error after [`MAX_DRAWS`] rejections.
    fn factor<R: Rng + ?Sized>(
        &self,
        mean: f64,
        inclusive: bool,
        name: &'static str,
        rng: &mut R,
    ) -> Result<f64> {
        for _ in 0..MAX_DRAWS {
            let z: f64 = StandardNormal.sample(rng);
            let x = mean * (1.0 + self.cv * z);
            if x > 1.0 || (inclusive && x >= 1.0) {
                return Ok(x);
            }
        }
        Err(invalid(
            name,
            format!("N({mean}, {})", mean * self.cv),
            "almost never lands in the admissible range (deadline factor > 1, budget factor >= 1)",
        ))
    }

    /// Draws class, deadline factor and budget factor for each of `n` jobs (Yeo & Buyya
    /// §VII.B, Table I): classes in random order from the stream `["classes"]` of `streams`;
    /// job `i`'s D/R and B/f(R), normal with standard deviation `cv` x the class mean and
    /// truncated by resampling to D/R > 1 and B/f(R) >= 1 (f is the minimum budget
    /// quoted), from its own stream `["qos", i]`, so a job's factors do not depend on how
    /// many draws the others took.
    ///
    /// ```
    /// use slarm_stats::RngStreams;
    /// use slarm_workload::sla::{Urgency, UrgencyConfig};
    ///
    /// let draws = UrgencyConfig::default().draw(5000, &RngStreams::new(1))?;
    /// let high = draws.iter().filter(|d| d.urgency == Urgency::High).count();
    /// assert_eq!(high, 1000); // exactly 20 %
    /// assert!(draws.iter().all(|d| d.deadline_factor > 1.0 && d.budget_factor >= 1.0));
    /// # Ok::<(), slarm_workload::WorkloadError>(())
    /// ```
    pub fn draw(&self, n: usize, streams: &RngStreams) -> Result<Vec<UrgencyDraw>> {
        self.validate()?;
        if n > MAX_JOBS {
            return Err(invalid(
                "job count",
                n,
                "at most 2^30 jobs are drawn at once",
            ));
        }
        let classes = self.classes(n, &mut streams.stream(&[label("classes")]));
        classes
            .into_iter()
            .enumerate()
            .map(|(i, urgency)| {
                let mut rng = streams.stream(&[label("qos"), i as u64]);
                let deadline_factor = self.factor(
                    self.deadline_mean(urgency),
                    false,
                    "deadline factor",
                    &mut rng,
                )?;
                let budget_factor =
                    self.factor(self.budget_mean(urgency), true, "budget factor", &mut rng)?;
                Ok(UrgencyDraw {
                    urgency,
                    deadline_factor,
                    budget_factor,
                })
            })
            .collect()
    }

    /// The SLA attributes of `jobs` from [`UrgencyConfig::draw`]: deadline = submit + D/R x
    /// run time, budget = B/f(R) x run time.
    pub fn synthesize(&self, jobs: &[Job], streams: &RngStreams) -> Result<Vec<SlaAttributes>> {
        let draws = self.draw(jobs.len(), streams)?;
        Ok(jobs
            .iter()
            .zip(draws)
            .map(|(j, d)| SlaAttributes {
                urgency: d.urgency,
                deadline: j.submit + d.deadline_factor * j.runtime,
                budget: d.budget_factor * j.runtime,
            })
            .collect())
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
            .synthesize(&jobs, &RngStreams::new(5))
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
        .synthesize(&jobs, &RngStreams::new(6))
        .unwrap();
        let share = b.iter().filter(|x| x.urgency == Urgency::High).count() as f64 / 20_000.0;
        assert!((share - 0.2).abs() < 0.0114, "{share}");
        let bad = UrgencyConfig {
            high_share: 1.5,
            ..UrgencyConfig::default()
        };
        assert!(bad.synthesize(&jobs, &RngStreams::new(5)).is_err());
        // A deadline mean of 0.5 with no spread can never exceed 1: an error, not a hang.
        let impossible = UrgencyConfig {
            deadline_low_mean: 0.5,
            cv: 0.0,
            ..UrgencyConfig::default()
        };
        assert!(impossible
            .synthesize(&jobs[..3], &RngStreams::new(5))
            .is_err());
        // A count far beyond any log is refused before anything is allocated.
        assert!(UrgencyConfig::default()
            .draw(usize::MAX, &RngStreams::new(5))
            .is_err());
        assert!(deadlines(&jobs, -1.0).is_err());
        let (fee, pen) = fee_and_penalty(&Job::new(1, 0.0, 10.0, 4, 7200.0), 2.0).unwrap();
        assert_eq!((fee, pen), (8.0, 16.0));
        // Found by crates/slarm/tests/robustness: a huge finite ratio overflowed to inf.
        assert!(fee_and_penalty(&Job::new(1, 0.0, 10.0, 4, 7200.0), f64::MAX).is_err());
    }
}
