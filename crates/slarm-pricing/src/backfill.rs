//! The space-shared EASY-backfilling baselines FCFS-BF, SJF-BF and EDF-BF (Yeo & Buyya,
//! §VII.B).
//!
//! These run `slarm-sim`'s trace simulator with its EASY policy (the
//! [`SchedulingPolicy`](slarm_sim::policy::SchedulingPolicy) implementation
//! [`Easy`]: one reservation, for the queue head), the same
//! mechanism as any other policy, with the queue order set to arrival time, runtime
//! estimate or absolute deadline,
//! and with the paper's rule "not to run any waiting jobs that have exceeded their
//! deadlines": a waiting job is removed (and counted as
//! rejected, [`RejectReason::DeadlineLapsedInQueue`]) once `now > DT_i`. A started job runs
//! for min(run time, estimate), as batch schedulers enforce requested run times (a job that
//! under-estimates is killed at its estimate, [`Outcome::Killed`]), and earns `RE_i · PBase`
//! only if it completes by its deadline (§VII.B).

use slarm_sim::batch::{simulate_with, QueueOrder};
use slarm_sim::policy::Easy;

use crate::admission::RejectReason;
use crate::error::{PricingError, Result};
use crate::metrics::Outcome;
use crate::node::reached;
use crate::pricing::{FixedRate, PriceQuote, PricingPolicy, ResourceWindow};
use crate::spec::QosJob;
use crate::timeshare::collect_outcomes;

/// Queue priority of an EASY baseline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
#[non_exhaustive]
pub enum Priority {
    /// FCFS-BF: arrival time.
    Fcfs,
    /// SJF-BF: runtime estimate.
    Sjf,
    /// EDF-BF: absolute deadline.
    Edf,
}

/// When a waiting job is dropped from the queue.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
#[non_exhaustive]
pub enum LapseRule {
    /// The paper's rule: dropped once its deadline has passed (`now > DT_i`); a job that
    /// starts too late to finish in time still runs and earns nothing (default).
    #[default]
    DeadlinePassed,
    /// Strict variant: dropped once it can no longer finish in time (`now + RE_i > DT_i`).
    CannotFinish,
}

impl std::str::FromStr for LapseRule {
    type Err = PricingError;
    /// Parses `deadline-passed` or `cannot-finish`.
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "deadline-passed" => Ok(LapseRule::DeadlinePassed),
            "cannot-finish" => Ok(LapseRule::CannotFinish),
            _ => Err(PricingError::UnknownName {
                what: "lapse rule",
                input: s.to_string(),
                expected: "deadline-passed or cannot-finish",
            }),
        }
    }
}

impl LapseRule {
    /// The time after which a waiting `job` is dropped.
    pub fn expiry(self, job: &QosJob) -> f64 {
        match self {
            LapseRule::DeadlinePassed => job.absolute_deadline(),
            LapseRule::CannotFinish => job.absolute_deadline() - job.estimate(),
        }
    }
}

/// Simulates `jobs` on `nodes` single-processor nodes under EASY backfilling with
/// `priority`, dropping waiting jobs by `lapse`; returns one [`Outcome`] per job, in the
/// order of `jobs`.
///
/// `slarm-sim` ends a job at min(run time, estimate), as batch schedulers enforce requested
/// run times, so with under-estimates a baseline job is killed at its estimate ([`Outcome::Killed`], QoS not met).
///
/// ```
/// use slarm_pricing::backfill::{simulate_backfill, LapseRule, Priority};
/// use slarm_pricing::metrics::Outcome;
/// use slarm_pricing::pricing::FixedRate;
/// use slarm_pricing::spec::{QosJob, JobSpec, UrgencyClass};
///
/// let j = |id, at: f64, d| QosJob::new(JobSpec::simple(id, 100.0, 2, d, 500.0).unwrap(), at, 100.0, UrgencyClass::Low).unwrap();
/// // QosJob 1 must wait for job 0 (both need 2 nodes); it starts at 100, before DT = 102 lapses.
/// let jobs = vec![j(0, 0.0, 200.0), j(1, 1.0, 101.0)];
/// let fixed = FixedRate::new(1.0).unwrap();
/// let out = simulate_backfill(&jobs, Priority::Fcfs, LapseRule::DeadlinePassed, 2, &fixed).unwrap();
/// assert!(matches!(out[0], Outcome::Completed { finish, .. } if finish == 100.0));
/// assert!(matches!(out[1], Outcome::Completed { start, .. } if start == 100.0));
/// // The strict rule drops it at t = 2, when 100 s of work no longer fit before DT = 102.
/// let out = simulate_backfill(&jobs, Priority::Fcfs, LapseRule::CannotFinish, 2, &fixed).unwrap();
/// assert!(matches!(out[1], Outcome::Rejected(_)));
/// ```
pub fn simulate_backfill(
    jobs: &[QosJob],
    priority: Priority,
    lapse: LapseRule,
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
    let deadlines: Vec<f64> = jobs.iter().map(QosJob::absolute_deadline).collect();
    let order = match priority {
        Priority::Fcfs => QueueOrder::Fcfs,
        Priority::Sjf => QueueOrder::ShortestEstimate,
        Priority::Edf => QueueOrder::Key(deadlines),
    };
    let expiry: Vec<f64> = jobs.iter().map(|j| lapse.expiry(j)).collect();
    let schedule = simulate_with(
        &sim_jobs,
        nodes,
        &mut Easy::default(),
        &order,
        Some(&expiry),
    )?;
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
    collect_outcomes(jobs, out, "neither ran nor expired")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::evaluate;
    use crate::spec::{JobSpec, UrgencyClass};

    fn job(id: u64, at: f64, re: f64, r: f64, procs: u32, d: f64) -> QosJob {
        QosJob::new(
            JobSpec::simple(id, re, procs, d, 10.0 * r).unwrap(),
            at,
            r,
            UrgencyClass::Low,
        )
        .unwrap()
    }

    /// 2 nodes. Job 0 occupies both until 100. Jobs 1 (long, late deadline) and 2 (short,
    /// early deadline) wait; job 3 lapses (DT = 52 + 40 < 100).
    fn queue() -> Vec<QosJob> {
        vec![
            job(0, 0.0, 100.0, 100.0, 2, 1000.0),
            job(1, 1.0, 300.0, 300.0, 2, 2000.0),
            job(2, 2.0, 50.0, 50.0, 2, 400.0),
            job(3, 52.0, 10.0, 10.0, 2, 40.0),
        ]
    }

    #[test]
    fn lapsed_jobs_are_rejected_and_priorities_reorder() {
        let jobs = queue();
        let fixed = FixedRate::new(1.0).unwrap();
        let fcfs =
            simulate_backfill(&jobs, Priority::Fcfs, LapseRule::DeadlinePassed, 2, &fixed).unwrap();
        let sjf =
            simulate_backfill(&jobs, Priority::Sjf, LapseRule::DeadlinePassed, 2, &fixed).unwrap();
        let edf =
            simulate_backfill(&jobs, Priority::Edf, LapseRule::DeadlinePassed, 2, &fixed).unwrap();
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
    fn strict_lapse_drops_jobs_that_cannot_finish() {
        // FCFS: job 2 (RE 50, DT 402) would start at 400 and finish late; the strict rule
        // drops it as soon as now + 50 > 402 (at the completion at 400).
        let jobs = queue();
        let fixed = FixedRate::new(1.0).unwrap();
        let strict =
            simulate_backfill(&jobs, Priority::Fcfs, LapseRule::CannotFinish, 2, &fixed).unwrap();
        let lapsed = Outcome::Rejected(RejectReason::DeadlineLapsedInQueue);
        assert_eq!(strict[2], lapsed);
        assert_eq!(strict[3], lapsed);
        let m = evaluate(&jobs, &strict, 2).unwrap();
        assert_eq!((m.qos_met, m.deadline_misses), (2, 0));
        assert_eq!(LapseRule::default(), LapseRule::DeadlinePassed);
        assert_eq!(LapseRule::CannotFinish.expiry(&jobs[2]), 352.0);
    }

    #[test]
    fn underestimated_jobs_are_killed() {
        let jobs = vec![job(0, 0.0, 50.0, 100.0, 1, 1000.0)];
        let out = simulate_backfill(
            &jobs,
            Priority::Fcfs,
            LapseRule::DeadlinePassed,
            1,
            &FixedRate::new(1.0).unwrap(),
        )
        .unwrap();
        assert_eq!(
            out[0],
            Outcome::Killed {
                start: 0.0,
                end: 50.0
            }
        );
    }
}
