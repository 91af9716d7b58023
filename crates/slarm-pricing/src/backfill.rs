//! The space-shared EASY-backfilling baselines FCFS-BF, SJF-BF and EDF-BF (spec §3.6).
//!
//! These reuse `slarm-sim`'s batch simulator and EASY pass (one reservation for the queue
//! head) with the queue order set to arrival time, runtime estimate or absolute deadline,
//! and with the deadline-lapse rule of spec §5.11: a waiting job is removed (and counted as
//! rejected, [`RejectReason::DeadlineLapsedInQueue`]) once `now > DT_i`. A started job runs
//! to completion and earns `RE_i · PBase` only if it meets its deadline (spec §2.4).

use serde::{Deserialize, Serialize};
use slarm_sim::batch::{simulate, BatchConfig, QueueOrder};
use slarm_sim::policy::PolicyKind;

use crate::admission::RejectReason;
use crate::error::{PricingError, Result};
use crate::metrics::Outcome;
use crate::node::reached;
use crate::pricing::{FixedRate, PriceQuote, PricingPolicy, ResourceWindow};
use crate::spec::Job;

/// Queue priority of an EASY baseline.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Priority {
    /// FCFS-BF: arrival time.
    Fcfs,
    /// SJF-BF: runtime estimate.
    Sjf,
    /// EDF-BF: absolute deadline.
    Edf,
}

/// Simulates `jobs` on `nodes` single-processor nodes under EASY backfilling with
/// `priority`; returns one [`Outcome`] per job, in the order of `jobs`.
///
/// `slarm-sim` ends a job at min(run time, estimate) (design.md §3), so with under-estimates a
/// baseline job is killed at its estimate ([`Outcome::Killed`], QoS not met).
///
/// ```
/// use slarm_pricing::backfill::{simulate_backfill, Priority};
/// use slarm_pricing::metrics::Outcome;
/// use slarm_pricing::pricing::FixedRate;
/// use slarm_pricing::spec::{Job, JobSpec, Urgency};
///
/// let j = |id, at: f64, d| Job::new(JobSpec::simple(id, 100.0, 2, d, 500.0).unwrap(), at, 100.0, Urgency::Low).unwrap();
/// // Job 1 must wait for job 0 (both need 2 nodes); it starts at 100, before DT = 102 lapses.
/// let jobs = vec![j(0, 0.0, 200.0), j(1, 1.0, 101.0)];
/// let out = simulate_backfill(&jobs, Priority::Fcfs, 2, &FixedRate::new(1.0).unwrap()).unwrap();
/// assert!(matches!(out[0], Outcome::Completed { finish, .. } if finish == 100.0));
/// assert!(matches!(out[1], Outcome::Completed { start, .. } if start == 100.0));
/// ```
pub fn simulate_backfill(
    jobs: &[Job],
    priority: Priority,
    nodes: u32,
    pricing: &FixedRate,
) -> Result<Vec<Outcome>> {
    let sim_jobs: Vec<slarm_workload::Job> = jobs
        .iter()
        .map(|j| {
            slarm_workload::Job::new(
                j.spec.id,
                j.arrival,
                j.runtime,
                i64::from(j.procs()),
                j.estimate(),
            )
        })
        .collect();
    let deadlines: Vec<f64> = jobs.iter().map(Job::absolute_deadline).collect();
    let cfg = BatchConfig {
        policy: PolicyKind::Easy,
        order: match priority {
            Priority::Fcfs => QueueOrder::Fcfs,
            Priority::Sjf => QueueOrder::ShortestEstimate,
            Priority::Edf => QueueOrder::Key(deadlines.clone()),
        },
        expiry: Some(deadlines),
    };
    let schedule =
        simulate(&sim_jobs, nodes, &cfg).map_err(|e| PricingError::Simulation(e.to_string()))?;
    let mut out: Vec<Option<Outcome>> = vec![None; jobs.len()];
    for &i in &schedule.expired {
        if let Some(o) = out.get_mut(i) {
            *o = Some(Outcome::Rejected(RejectReason::DeadlineLapsedInQueue));
        }
    }
    for r in &schedule.records {
        let job = jobs.get(r.index).ok_or_else(|| {
            PricingError::Simulation(format!("record for unknown job index {}", r.index))
        })?;
        let quote = PriceQuote {
            estimate: job.estimate(),
            deadline: job.spec.qos.deadline,
            cpu: ResourceWindow::new(job.spec.qos.deadline, 0.0, job.estimate())?,
        };
        out[r.index] = Some(if reached(r.end - r.start, job.runtime) {
            Outcome::Completed {
                start: r.start,
                finish: r.end,
                cost: pricing.cost(&quote)?,
            }
        } else {
            Outcome::Killed {
                start: r.start,
                end: r.end,
            }
        });
    }
    out.into_iter()
        .enumerate()
        .map(|(i, o)| {
            o.ok_or_else(|| {
                PricingError::Simulation(format!("job {} neither ran nor expired", jobs[i].spec.id))
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::evaluate;
    use crate::spec::{JobSpec, Urgency};

    fn job(id: u64, at: f64, re: f64, r: f64, procs: u32, d: f64) -> Job {
        Job::new(
            JobSpec::simple(id, re, procs, d, 10.0 * r).unwrap(),
            at,
            r,
            Urgency::Low,
        )
        .unwrap()
    }

    #[test]
    fn lapsed_jobs_are_rejected_and_priorities_reorder() {
        // 2 nodes. Job 0 occupies both until 100. Jobs 1 (long, late deadline) and 2 (short,
        // early deadline) wait; job 3 lapses (DT = 52 + 40 < 100).
        let jobs = vec![
            job(0, 0.0, 100.0, 100.0, 2, 1000.0),
            job(1, 1.0, 300.0, 300.0, 2, 2000.0),
            job(2, 2.0, 50.0, 50.0, 2, 400.0),
            job(3, 52.0, 10.0, 10.0, 2, 40.0),
        ];
        let fixed = FixedRate::new(1.0).unwrap();
        let fcfs = simulate_backfill(&jobs, Priority::Fcfs, 2, &fixed).unwrap();
        let sjf = simulate_backfill(&jobs, Priority::Sjf, 2, &fixed).unwrap();
        let edf = simulate_backfill(&jobs, Priority::Edf, 2, &fixed).unwrap();
        for out in [&fcfs, &sjf, &edf] {
            assert_eq!(
                out[3],
                Outcome::Rejected(RejectReason::DeadlineLapsedInQueue)
            );
        }
        let start = |o: &Outcome| match *o {
            Outcome::Completed { start, .. } => start,
            _ => f64::NAN,
        };
        assert_eq!((start(&fcfs[1]), start(&fcfs[2])), (100.0, 400.0));
        assert_eq!((start(&sjf[1]), start(&sjf[2])), (150.0, 100.0));
        assert_eq!((start(&edf[1]), start(&edf[2])), (150.0, 100.0));
        // FCFS: job 2 finishes at 450 > DT 402 -> no profit for it.
        let m = evaluate(&jobs, &fcfs, 2).unwrap();
        assert_eq!(m.qos_met, 2);
        assert_eq!(m.rejected["deadline_lapsed_in_queue"], 1);
        // cost = RE · PBase
        assert!(matches!(fcfs[0], Outcome::Completed { cost, .. } if cost == 100.0));
    }

    #[test]
    fn underestimated_jobs_are_killed() {
        let jobs = vec![job(0, 0.0, 50.0, 100.0, 1, 1000.0)];
        let out =
            simulate_backfill(&jobs, Priority::Fcfs, 1, &FixedRate::new(1.0).unwrap()).unwrap();
        assert_eq!(
            out[0],
            Outcome::Killed {
                start: 0.0,
                end: 50.0
            }
        );
    }
}
