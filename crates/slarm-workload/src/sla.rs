//! SLA attribute synthesis for traces that have none: deadlines d = submit + k x estimate
//! (spec 002 part 1 §7.3, k = 2), fee and penalty in node-hours (spec 002 §7.3), and
//! urgency classes with normally distributed deadline and budget factors (spec 001 §3.3).
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

use rand::Rng;
use rand_distr::{Distribution, Normal};
use serde::{Deserialize, Serialize};

use crate::error::{invalid, Result};
use crate::job::Job;

/// Deadlines d = submit + k x estimate (spec 002: k = 2).
pub fn deadlines(jobs: &[Job], k: f64) -> Result<Vec<f64>> {
    if !(k.is_finite() && k > 0.0) {
        return Err(invalid("deadline factor k", k, "must be finite and > 0"));
    }
    Ok(jobs.iter().map(|j| j.submit + k * j.estimate()).collect())
}

/// Fee in node-hours (processors x estimate / 3600, spec 002 §7.3: 1 VC per booked
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

/// Urgency class of a job (spec 001 §3.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Urgency {
    /// Short deadline, large budget.
    High,
    /// Long deadline, small budget.
    Low,
}

/// Synthesised SLA attributes of one job.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SlaAttributes {
    /// Urgency class.
    pub urgency: Urgency,
    /// Absolute deadline DT = submit + factor x run time.
    pub deadline: f64,
    /// Budget B = factor x run time (f(R) = R, spec 001 §3.3 decision).
    pub budget: f64,
}

/// Parameters of spec 001 Table I (defaults) for urgency-class synthesis.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
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
    /// Standard deviation as a fraction of each mean (not given in the paper; see
    /// docs/decisions.md).
    pub cv: f64,
}

impl Default for UrgencyConfig {
    fn default() -> Self {
        Self {
            high_share: 0.2,
            deadline_low_mean: 2.0,
            deadline_ratio: 4.0,
            budget_low_mean: 2.0,
            budget_ratio: 4.0,
            cv: 0.1,
        }
    }
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

    /// Draws class, deadline and budget per job (classes in random order). Deadline
    /// factors are truncated below at 1 + 1e-6 so that D > R ("deadlines are always set
    /// as larger factors of runtimes"); budget factors at 0.
    pub fn synthesize<R: Rng>(&self, jobs: &[Job], rng: &mut R) -> Result<Vec<SlaAttributes>> {
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
        Ok(jobs
            .iter()
            .map(|j| {
                let high = rng.gen::<f64>() < self.high_share;
                let (d, b) = if high { (&dh, &bh) } else { (&dl, &bl) };
                let df = d.sample(rng).max(1.0 + 1e-6);
                let bf = b.sample(rng).max(0.0);
                SlaAttributes {
                    urgency: if high { Urgency::High } else { Urgency::Low },
                    deadline: j.submit + df * j.runtime,
                    budget: bf * j.runtime,
                }
            })
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use slarm_stats::RngStreams;

    #[test]
    fn class_shares_and_means_match_table_i() {
        // Spec 001 §3.3 / Table I: 20 % high urgency, D/R means 2 (high) and 8 (low).
        let jobs: Vec<Job> = (0..20_000)
            .map(|i| Job::new(i, 0.0, 100.0, 1, 100.0))
            .collect();
        let a = UrgencyConfig::default()
            .synthesize(&jobs, &mut RngStreams::new(5).stream(&[1]))
            .unwrap();
        let high: Vec<_> = a.iter().filter(|x| x.urgency == Urgency::High).collect();
        let share = high.len() as f64 / a.len() as f64;
        assert!((share - 0.2).abs() < 0.01, "{share}");
        let mean_d_high = high.iter().map(|x| x.deadline / 100.0).sum::<f64>() / high.len() as f64;
        assert!((mean_d_high - 2.0).abs() < 0.02, "{mean_d_high}");
        let mean_b_high = high.iter().map(|x| x.budget / 100.0).sum::<f64>() / high.len() as f64;
        assert!((mean_b_high - 8.0).abs() < 0.05, "{mean_b_high}");
        assert!(a.iter().all(|x| x.deadline > 100.0));
        let bad = UrgencyConfig {
            high_share: 1.5,
            ..UrgencyConfig::default()
        };
        assert!(bad
            .synthesize(&jobs, &mut RngStreams::new(5).stream(&[1]))
            .is_err());
        assert!(deadlines(&jobs, -1.0).is_err());
        let (fee, pen) = fee_and_penalty(&Job::new(1, 0.0, 10.0, 4, 7200.0), 2.0).unwrap();
        assert_eq!((fee, pen), (8.0, 16.0));
        // Found by crates/slarm/tests/robustness: a huge finite ratio overflowed to inf.
        assert!(fee_and_penalty(&Job::new(1, 0.0, 10.0, 4, 7200.0), f64::MAX).is_err());
    }
}
