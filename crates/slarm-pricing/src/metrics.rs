//! Job QoS Satisfaction (eq. 7), Cluster Profitability (eq. 8) (Yeo & Buyya, §VII.A) and
//! diagnostics: acceptance ratio, rejections by reason, deadline misses among accepted jobs,
//! utilisation and mean price per processor-second.

use std::collections::BTreeMap;

use crate::admission::RejectReason;
use crate::error::{PricingError, Result};
use crate::spec::QosJob;

/// Relative tolerance of the deadline test `FT <= DT`: `1e-6 · max(1, D)` seconds (processor
/// clocks accumulate rounding over 10^5 s).
pub const DEADLINE_TOL: f64 = 1e-6;

/// What happened to one submitted job.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum Outcome {
    /// Rejected at submission (or, for the baselines, dropped from the queue).
    Rejected(RejectReason),
    /// Accepted and run to completion.
    Completed {
        /// Start time (arrival for Libra / Libra+$).
        start: f64,
        /// Finish time FT_i (max over its processes).
        finish: f64,
        /// Cost C_i.
        cost: f64,
    },
    /// Started but killed when its (under-)estimate ran out (space-shared baselines only,
    /// whose simulator kills a job at its estimate): never meets its QoS.
    Killed {
        /// Start time.
        start: f64,
        /// Time it was killed.
        end: f64,
    },
}

/// Whether a completed job met its QoS: FT <= DT (with tolerance) and C <= B (eq. 7).
pub fn qos_met(job: &QosJob, finish: f64, cost: f64) -> bool {
    let d = job.spec.qos.deadline;
    finish <= job.absolute_deadline() + DEADLINE_TOL * d.max(1.0)
        && cost <= job.spec.qos.budget * (1.0 + 1e-12)
}

/// The metrics of one simulation run.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct QosMetrics {
    /// n: jobs submitted.
    pub submitted: usize,
    /// Jobs accepted (started).
    pub accepted: usize,
    /// Rejections by reason (snake_case names; every reason present, possibly 0).
    pub rejected: BTreeMap<String, usize>,
    /// n_QoS: accepted jobs with FT <= DT and C <= B.
    pub qos_met: usize,
    /// Job QoS Satisfaction n_QoS / n (eq. 7).
    pub qos_satisfaction: f64,
    /// Cluster Profitability Σ_{QoS met} C_i / Σ_all B_i (eq. 8).
    pub profitability: f64,
    /// accepted / submitted.
    pub acceptance_ratio: f64,
    /// Accepted jobs that finished after their deadline (or were killed).
    pub deadline_misses: usize,
    /// Accepted jobs killed at their estimate (baselines with under-estimates).
    pub killed: usize,
    /// Processor-seconds of real work delivered / (nodes × (last finish - first arrival)).
    pub utilisation: f64,
    /// Σ C_i / Σ RE_i over accepted jobs (price per processor-second of the charged node).
    pub mean_price: f64,
}

/// The former name of [`QosMetrics`].
#[deprecated(since = "0.1.0", note = "renamed to `QosMetrics`")]
pub type Metrics = QosMetrics;

/// Computes the metrics of `outcomes` (one per job of `jobs`, same order) on `nodes` nodes.
///
/// ```
/// use slarm_pricing::metrics::{evaluate, Outcome};
/// use slarm_pricing::spec::{QosJob, JobSpec, UrgencyClass};
/// let j = |id, b| QosJob::new(JobSpec::simple(id, 10.0, 1, 20.0, b).unwrap(), 0.0, 10.0, UrgencyClass::Low).unwrap();
/// let jobs = vec![j(0, 30.0), j(1, 10.0)];
/// let out = vec![Outcome::Completed { start: 0.0, finish: 20.0, cost: 12.0 },
///                Outcome::Completed { start: 0.0, finish: 25.0, cost: 10.0 }];
/// let m = evaluate(&jobs, &out, 1).unwrap();
/// assert_eq!(m.qos_satisfaction, 0.5);          // job 1 is late
/// assert!((m.profitability - 12.0 / 40.0).abs() < 1e-12);
/// ```
pub fn evaluate(jobs: &[QosJob], outcomes: &[Outcome], nodes: usize) -> Result<QosMetrics> {
    if jobs.is_empty() || jobs.len() != outcomes.len() {
        return Err(PricingError::Workload(format!(
            "{} jobs but {} outcomes",
            jobs.len(),
            outcomes.len()
        )));
    }
    let mut rejected: BTreeMap<String, usize> = RejectReason::ALL
        .iter()
        .map(|r| (r.name().to_string(), 0))
        .collect();
    let (mut accepted, mut met, mut misses, mut killed) = (0usize, 0usize, 0usize, 0usize);
    let (mut profit, mut budget, mut work, mut charged, mut estimated) = (0.0, 0.0, 0.0, 0.0, 0.0);
    let first = jobs.iter().map(|j| j.arrival).fold(f64::INFINITY, f64::min);
    let mut last = first;
    for (job, out) in jobs.iter().zip(outcomes) {
        budget += job.spec.qos.budget;
        match *out {
            Outcome::Rejected(r) => *rejected.entry(r.name().to_string()).or_insert(0) += 1,
            Outcome::Killed { start, end } => {
                accepted += 1;
                killed += 1;
                misses += 1;
                last = last.max(end);
                work += (end - start).max(0.0) * f64::from(job.procs());
            }
            Outcome::Completed { finish, cost, .. } => {
                accepted += 1;
                last = last.max(finish);
                work += job.runtime * f64::from(job.procs());
                charged += cost;
                estimated += job.estimate();
                if qos_met(job, finish, cost) {
                    met += 1;
                    profit += cost;
                }
                if finish > job.absolute_deadline() + DEADLINE_TOL * job.spec.qos.deadline.max(1.0)
                {
                    misses += 1;
                }
            }
        }
    }
    let n = jobs.len() as f64;
    let span = last - first;
    Ok(QosMetrics {
        submitted: jobs.len(),
        accepted,
        rejected,
        qos_met: met,
        qos_satisfaction: met as f64 / n,
        profitability: if budget > 0.0 { profit / budget } else { 0.0 },
        acceptance_ratio: accepted as f64 / n,
        deadline_misses: misses,
        killed,
        utilisation: if span > 0.0 && nodes > 0 {
            work / (nodes as f64 * span)
        } else {
            0.0
        },
        mean_price: if estimated > 0.0 {
            charged / estimated
        } else {
            0.0
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::{JobSpec, UrgencyClass};

    fn j(id: u64, re: f64, d: f64, b: f64, at: f64) -> QosJob {
        QosJob::new(
            JobSpec::simple(id, re, 2, d, b).unwrap(),
            at,
            re,
            UrgencyClass::Low,
        )
        .unwrap()
    }

    #[test]
    fn micro_trace_metrics() {
        // Hand-built micro trace (eqs. 7-8): 4 jobs, budgets 40 + 20 + 30 + 10 = 100.
        let jobs = vec![
            j(0, 10.0, 20.0, 40.0, 0.0),
            j(1, 10.0, 20.0, 20.0, 0.0),
            j(2, 10.0, 20.0, 30.0, 5.0),
            j(3, 10.0, 20.0, 10.0, 5.0),
        ];
        let out = vec![
            Outcome::Completed {
                start: 0.0,
                finish: 20.0,
                cost: 15.0,
            }, // met
            Outcome::Completed {
                start: 0.0,
                finish: 21.0,
                cost: 10.0,
            }, // late
            Outcome::Rejected(RejectReason::CannotMeetBudget),
            Outcome::Completed {
                start: 5.0,
                finish: 15.0,
                cost: 11.0,
            }, // over budget
        ];
        let mut killed = out.clone();
        killed[2] = Outcome::Killed {
            start: 5.0,
            end: 10.0,
        };
        let k = evaluate(&jobs, &killed, 4).unwrap();
        assert_eq!(
            (k.accepted, k.killed, k.deadline_misses, k.qos_met),
            (4, 1, 2, 1)
        );
        let m = evaluate(&jobs, &out, 4).unwrap();
        assert_eq!(m.submitted, 4);
        assert_eq!(m.accepted, 3);
        assert_eq!(m.qos_met, 1);
        assert_eq!(m.deadline_misses, 1);
        assert_eq!(m.rejected["cannot_meet_budget"], 1);
        assert_eq!(m.rejected["cannot_meet_deadline"], 0);
        assert!((m.qos_satisfaction - 0.25).abs() < 1e-15);
        assert!((m.profitability - 0.15).abs() < 1e-15);
        assert!((m.acceptance_ratio - 0.75).abs() < 1e-15);
        assert!((m.mean_price - 36.0 / 30.0).abs() < 1e-12);
        // work: 3 accepted × 10 s × 2 procs over 4 nodes × 21 s
        assert!((m.utilisation - 60.0 / 84.0).abs() < 1e-12);
    }

    #[test]
    fn mismatched_lengths_are_errors() {
        assert!(evaluate(&[], &[], 1).is_err());
        let jobs = vec![j(0, 10.0, 20.0, 40.0, 0.0)];
        assert!(evaluate(&jobs, &[], 1).is_err());
    }
}
