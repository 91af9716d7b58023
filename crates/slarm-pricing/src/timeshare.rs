//! The time-shared cluster simulation of Libra and Libra+$ (Yeo & Buyya, §VI): every arrival runs
//! Algorithm 1 (no wait queue: an accepted job starts at once on all its nodes), and every
//! event plus every control interval on an over-subscribed node runs Algorithm 2.
//!
//! Event order at equal times: node events (completions, estimate exhaustion, deadlines,
//! control ticks) before arrivals; arrivals in (arrival, id) order; node events by node id.
//! A node whose demands sum to at most 1 under capped rates keeps constant partitions, so
//! its control ticks are skipped (by Algorithm 2 they would change nothing).

use crate::admission::{admit, place, AdmissionConfig, Decision};
use crate::error::{PricingError, Result};
use crate::metrics::Outcome;
use crate::node::{JobControl, Node, TimeSharedNode};
use crate::pricing::PricingPolicy;
use crate::spec::Job;

/// The cluster and the options of the time-shared simulation.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct TimeSharedConfig {
    /// The compute nodes.
    pub nodes: Vec<Node>,
    /// Algorithm 1 options.
    pub admission: AdmissionConfig,
    /// Algorithm 2 / node-model options.
    pub control: JobControl,
}

impl TimeSharedConfig {
    /// `count` homogeneous nodes of `rating` with the default options (rating = reference).
    pub fn homogeneous(count: usize, rating: f64) -> Result<Self> {
        if count == 0 {
            return Err(PricingError::InvalidParameter {
                name: "nodes",
                value: 0.0,
                reason: "need at least one node",
            });
        }
        Ok(Self {
            nodes: (0..count)
                .map(|i| Node::new(i, rating))
                .collect::<Result<_>>()?,
            admission: AdmissionConfig {
                reference_rating: rating,
                ..AdmissionConfig::default()
            },
            control: JobControl::default(),
        })
    }
}

/// Order of arrivals: by arrival time, then job id, then index.
pub(crate) fn arrival_order(jobs: &[Job]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..jobs.len()).collect();
    order.sort_by(|&a, &b| {
        jobs[a]
            .arrival
            .total_cmp(&jobs[b].arrival)
            .then(jobs[a].spec.id.cmp(&jobs[b].spec.id))
            .then(a.cmp(&b))
    });
    order
}

/// Simulates `jobs` (any order) under Algorithms 1 and 2 with `pricing`; returns one
/// [`Outcome`] per job, in the order of `jobs`.
///
/// ```
/// use slarm_pricing::pricing::LibraPlusDollar;
/// use slarm_pricing::spec::{Job, JobSpec, Urgency};
/// use slarm_pricing::timeshare::{simulate_time_shared, TimeSharedConfig};
/// use slarm_pricing::metrics::Outcome;
///
/// let cfg = TimeSharedConfig::homogeneous(2, 168.0).unwrap();
/// let jobs = vec![Job::new(JobSpec::simple(0, 100.0, 2, 400.0, 500.0).unwrap(), 0.0, 100.0, Urgency::Low).unwrap()];
/// let out = simulate_time_shared(&jobs, &LibraPlusDollar::new(1.0, 0.1, 1.0).unwrap(), &cfg).unwrap();
/// match out[0] { Outcome::Completed { finish, .. } => assert!((finish - 400.0).abs() < 1e-6),
///                _ => unreachable!() }
/// ```
pub fn simulate_time_shared<P: PricingPolicy + ?Sized>(
    jobs: &[Job],
    pricing: &P,
    cfg: &TimeSharedConfig,
) -> Result<Vec<Outcome>> {
    cfg.control.validate()?;
    let jc = cfg.control;
    let mut nodes: Vec<TimeSharedNode> =
        cfg.nodes.iter().copied().map(TimeSharedNode::new).collect();
    let mut ledger = Ledger::new(jobs);
    // Nodes interact only through admission, so between two arrivals each node can run its
    // own events on its own; the per-node sequence of operations (hence every bit) is that of
    // a global time-ordered event loop with node events before arrivals at equal times.
    for i in arrival_order(jobs) {
        let job = &jobs[i];
        let now = job.arrival;
        for n in &mut nodes {
            run_node_until(n, now, &jc, &mut ledger);
            n.advance_and_control(now, &jc);
        }
        match admit(job, now, &nodes, pricing, &cfg.admission)? {
            Decision::Reject(r) => ledger.outcomes[i] = Some(Outcome::Rejected(r)),
            Decision::Accept { nodes: alloc, cost } => {
                ledger.cost[i] = cost;
                ledger.left[i] = job.procs();
                place(i, job, &alloc, &mut nodes, cfg.admission.reference_rating);
                for &j in &alloc {
                    nodes[j].control(&jc);
                }
            }
        }
    }
    for n in &mut nodes {
        run_node_until(n, f64::INFINITY, &jc, &mut ledger);
    }
    ledger.into_outcomes()
}

/// Per-job bookkeeping of a run: processes still running, latest process finish, cost C_i
/// and the outcome once known.
struct Ledger<'a> {
    jobs: &'a [Job],
    outcomes: Vec<Option<Outcome>>,
    left: Vec<u32>,
    finish: Vec<f64>,
    cost: Vec<f64>,
}

impl<'a> Ledger<'a> {
    fn new(jobs: &'a [Job]) -> Self {
        Self {
            jobs,
            outcomes: vec![None; jobs.len()],
            left: vec![0; jobs.len()],
            finish: vec![0.0; jobs.len()],
            cost: vec![0.0; jobs.len()],
        }
    }

    /// One process of job `j` finished at `t`; the job completes with its last process.
    fn process_finished(&mut self, j: usize, t: f64) {
        self.left[j] = self.left[j].saturating_sub(1);
        self.finish[j] = self.finish[j].max(t);
        if self.left[j] == 0 {
            self.outcomes[j] = Some(Outcome::Completed {
                start: self.jobs[j].arrival,
                finish: self.finish[j],
                cost: self.cost[j],
            });
        }
    }

    fn into_outcomes(self) -> Result<Vec<Outcome>> {
        collect_outcomes(self.jobs, self.outcomes, "never finished")
    }
}

/// Every job's outcome, or a [`PricingError::Simulation`] naming the first job without one.
pub(crate) fn collect_outcomes(
    jobs: &[Job],
    outcomes: Vec<Option<Outcome>>,
    missing: &str,
) -> Result<Vec<Outcome>> {
    outcomes
        .into_iter()
        .zip(jobs)
        .map(|(o, j)| {
            o.ok_or_else(|| PricingError::Simulation(format!("job {} {missing}", j.spec.id)))
        })
        .collect()
}

/// Runs node `n`'s own events (completions, estimates running out, deadlines passing,
/// control ticks) up to and including time `until`, each followed by Algorithm 2.
fn run_node_until(n: &mut TimeSharedNode, until: f64, jc: &JobControl, ledger: &mut Ledger<'_>) {
    let mut t = n.pending_event(jc);
    while t.is_finite() && t <= until {
        let now = t;
        t = n.step(now, jc, |j| ledger.process_finished(j, now));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::admission::RejectReason;
    use crate::metrics::{evaluate, qos_met};
    use crate::pricing::{LibraPlusDollar, LibraStatic};
    use crate::spec::{JobSpec, Urgency};
    use proptest::prelude::*;

    fn job(id: u64, at: f64, re: f64, procs: u32, d: f64, b: f64) -> Job {
        Job::new(
            JobSpec::simple(id, re, procs, d, b).unwrap(),
            at,
            re,
            Urgency::Low,
        )
        .unwrap()
    }

    #[test]
    fn second_job_rejected_when_shares_full() {
        let cfg = TimeSharedConfig::homogeneous(1, 168.0).unwrap();
        let jobs = vec![
            job(0, 0.0, 60.0, 1, 100.0, 1e6),
            job(1, 10.0, 50.0, 1, 100.0, 1e6),
            job(2, 100.0, 50.0, 1, 100.0, 1e6),
        ];
        let p = LibraPlusDollar::new(1.0, 0.1, 1.0).unwrap();
        let out = simulate_time_shared(&jobs, &p, &cfg).unwrap();
        assert!(
            matches!(out[0], Outcome::Completed { finish, .. } if (finish - 100.0).abs() < 1e-6)
        );
        assert_eq!(out[1], Outcome::Rejected(RejectReason::CannotMeetDeadline));
        // at t = 100 job 0 completes before job 2 arrives (completions first).
        assert!(
            matches!(out[2], Outcome::Completed { finish, .. } if (finish - 200.0).abs() < 1e-6)
        );
    }

    fn random_jobs(seeds: &[(f64, f64, u32, f64, f64)]) -> Vec<Job> {
        let mut at = 0.0;
        seeds
            .iter()
            .enumerate()
            .map(|(k, &(gap, re, procs, dr, br))| {
                at += gap;
                job(k as u64, at, re, procs, re * dr, re * br)
            })
            .collect()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]
        // At 0 % inaccuracy every admitted job meets its deadline and C <= B.
        #[test]
        fn admitted_jobs_meet_deadline_and_budget(
            spec in prop::collection::vec((0.0f64..200.0, 1.0f64..500.0, 1u32..5, 1.05f64..10.0, 1.0f64..10.0), 1..60),
            beta in 0.0f64..1.5,
        ) {
            let jobs = random_jobs(&spec);
            let cfg = TimeSharedConfig::homogeneous(6, 168.0).unwrap();
            let p = LibraPlusDollar::new(1.0, beta, 1.0).unwrap();
            let out = simulate_time_shared(&jobs, &p, &cfg).unwrap();
            for (j, o) in jobs.iter().zip(&out) {
                if let Outcome::Completed { finish, cost, .. } = *o {
                    prop_assert!(cost <= j.spec.qos.budget);
                    prop_assert!(qos_met(j, finish, cost), "job {} finish {} DT {}", j.spec.id, finish, j.absolute_deadline());
                }
            }
            let m = evaluate(&jobs, &out, 6).unwrap();
            prop_assert_eq!(m.deadline_misses, 0);
            prop_assert!((m.qos_satisfaction - m.acceptance_ratio).abs() < 1e-12);
            prop_assert!(m.utilisation <= 1.0 + 1e-9);
        }

        // Libra+$ with α = 1, β = 0 prices RE·PBase like Libra with γ = 1,
        // δ = 0, and both order nodes by RESFree: identical outcomes, bit for bit.
        #[test]
        fn beta_zero_accepts_libras_jobs(
            spec in prop::collection::vec((0.0f64..100.0, 1.0f64..500.0, 1u32..5, 1.05f64..10.0, 1.0f64..10.0), 1..60),
        ) {
            let jobs = random_jobs(&spec);
            let cfg = TimeSharedConfig::homogeneous(6, 168.0).unwrap();
            let a = simulate_time_shared(&jobs, &LibraPlusDollar::new(1.0, 0.0, 1.0).unwrap(), &cfg).unwrap();
            let b = simulate_time_shared(&jobs, &LibraStatic::new(1.0, 0.0).unwrap(), &cfg).unwrap();
            prop_assert_eq!(a, b);
        }
    }
}
