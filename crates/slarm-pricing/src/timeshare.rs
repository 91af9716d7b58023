//! The time-shared cluster simulation of Libra and Libra+$ (Yeo & Buyya, §VI): every arrival runs
//! Algorithm 1 (no wait queue: an accepted job starts at once on all its nodes), and every
//! event plus every control interval on an over-subscribed node runs Algorithm 2.
//!
//! Event order at equal times: node events (completions, estimate exhaustion, deadlines,
//! control ticks) before arrivals; arrivals in (arrival, id) order; node events by node id.
//! A node whose demands sum to at most 1 under capped rates keeps constant partitions, so
//! its control ticks are skipped (by Algorithm 2 they would change nothing).

use crate::error::{PricingError, Result};
use crate::metrics::Outcome;

use crate::online::Cluster;
use crate::pricing::PricingPolicy;
use crate::spec::QosJob;

pub use crate::config::TimeSharedConfig;

/// Order of arrivals: by arrival time, then job id, then index.
pub(crate) fn arrival_order(jobs: &[QosJob]) -> Vec<usize> {
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
/// use slarm_pricing::spec::{QosJob, JobSpec, UrgencyClass};
/// use slarm_pricing::timeshare::{simulate_time_shared, TimeSharedConfig};
/// use slarm_pricing::metrics::Outcome;
///
/// let cfg = TimeSharedConfig::homogeneous(2, 168.0).unwrap();
/// let jobs = vec![QosJob::new(JobSpec::simple(0, 100.0, 2, 400.0, 500.0).unwrap(), 0.0, 100.0, UrgencyClass::Low).unwrap()];
/// let out = simulate_time_shared(&jobs, &LibraPlusDollar::new(1.0, 0.1, 1.0).unwrap(), &cfg).unwrap();
/// match out[0] { Outcome::Completed { finish, .. } => assert!((finish - 400.0).abs() < 1e-6),
///                _ => unreachable!() }
/// ```
pub fn simulate_time_shared<P: PricingPolicy + ?Sized>(
    jobs: &[QosJob],
    pricing: &P,
    cfg: &TimeSharedConfig,
) -> Result<Vec<Outcome>> {
    let mut cluster = Cluster::new(cfg, pricing)?;
    // Nodes interact only through admission, so between two arrivals each node can run its
    // own events on its own; the per-node sequence of operations (hence every bit) is that of
    // a global time-ordered event loop with node events before arrivals at equal times.
    let order = arrival_order(jobs);
    for &i in &order {
        cluster.submit(&jobs[i], jobs[i].arrival)?;
    }
    cluster.run_to_completion();
    // Job k of the cluster is jobs[order[k]].
    let mut outcomes = vec![None; jobs.len()];
    for (&i, o) in order.iter().zip(cluster.outcomes()) {
        if let Some(slot) = outcomes.get_mut(i) {
            *slot = *o;
        }
    }
    collect_outcomes(jobs, outcomes, "never finished")
}

/// Every job's outcome, or a [`PricingError::Simulation`] naming the first job without one.
pub(crate) fn collect_outcomes(
    jobs: &[QosJob],
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::admission::RejectReason;
    use crate::metrics::{evaluate, qos_met};
    use crate::pricing::{LibraPlusDollar, LibraStatic};
    use crate::spec::{JobSpec, UrgencyClass};
    use proptest::prelude::*;

    fn job(id: u64, at: f64, re: f64, procs: u32, d: f64, b: f64) -> QosJob {
        QosJob::new(
            JobSpec::simple(id, re, procs, d, b).unwrap(),
            at,
            re,
            UrgencyClass::Low,
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

    /// The simulator as it was before [`Cluster`] existed: one event loop with its own
    /// ledger, kept to check that the refactored simulator is bit-identical.
    fn reference_simulation<P: PricingPolicy + ?Sized>(
        jobs: &[QosJob],
        pricing: &P,
        cfg: &TimeSharedConfig,
    ) -> Vec<Outcome> {
        use crate::admission::{admit, place, Decision};
        use crate::node::TimeSharedNode;
        let jc = cfg.control;
        let mut nodes: Vec<TimeSharedNode> =
            cfg.nodes.iter().copied().map(TimeSharedNode::new).collect();
        let n = jobs.len();
        let (mut outcomes, mut left, mut finish, mut cost) = (
            vec![None; n],
            vec![0u32; n],
            vec![0.0f64; n],
            vec![0.0f64; n],
        );
        let mut run = |node: &mut TimeSharedNode,
                       until: f64,
                       outcomes: &mut Vec<Option<Outcome>>,
                       left: &mut Vec<u32>,
                       cost: &Vec<f64>| {
            let mut t = node.pending_event(&jc);
            while t.is_finite() && t <= until {
                let now = t;
                t = node.step(now, &jc, |j| {
                    left[j] = left[j].saturating_sub(1);
                    finish[j] = finish[j].max(now);
                    if left[j] == 0 {
                        outcomes[j] = Some(Outcome::Completed {
                            start: jobs[j].arrival,
                            finish: finish[j],
                            cost: cost[j],
                        });
                    }
                });
            }
        };
        for i in arrival_order(jobs) {
            let job = &jobs[i];
            let now = job.arrival;
            for node in &mut nodes {
                run(node, now, &mut outcomes, &mut left, &cost);
                node.advance_and_control(now, &jc);
            }
            match admit(job, now, &nodes, pricing, &cfg.admission).unwrap() {
                Decision::Reject(r) => outcomes[i] = Some(Outcome::Rejected(r)),
                Decision::Accept {
                    nodes: alloc,
                    cost: c,
                } => {
                    cost[i] = c;
                    left[i] = job.procs();
                    place(i, job, &alloc, &mut nodes, cfg.admission.reference_rating);
                    for &j in &alloc {
                        nodes[j].control(&jc);
                    }
                }
            }
        }
        for node in &mut nodes {
            run(node, f64::INFINITY, &mut outcomes, &mut left, &cost);
        }
        outcomes.into_iter().map(Option::unwrap).collect()
    }

    fn random_jobs(seeds: &[(f64, f64, u32, f64, f64)]) -> Vec<QosJob> {
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

        // The simulator built on the online cluster gives the outcomes of the original event
        // loop, bit for bit, also with shuffled input and other control intervals.
        #[test]
        fn same_outcomes_as_the_reference_loop(
            spec in prop::collection::vec((0.0f64..100.0, 1.0f64..500.0, 1u32..5, 1.05f64..10.0, 1.0f64..10.0, Just(1.0)), 1..30),
            beta in 0.0f64..1.5,
            interval in 30.0f64..300.0,
            rotate in 0usize..60,
        ) {
            let mut jobs = random_jobs(&spec.iter().map(|s| (s.0, s.1, s.2, s.3, s.4)).collect::<Vec<_>>());
            for (j, s) in jobs.iter_mut().zip(&spec) {
                j.runtime *= s.5;
            }
            let len = jobs.len();
            jobs.rotate_left(rotate % len);
            let mut cfg = TimeSharedConfig::homogeneous(5, 168.0).unwrap();
            cfg.control.control_interval = interval;
            let p = LibraPlusDollar::new(1.0, beta, 1.0).unwrap();
            let new = simulate_time_shared(&jobs, &p, &cfg).unwrap();
            let old = reference_simulation(&jobs, &p, &cfg);
            prop_assert_eq!(format!("{new:?}"), format!("{old:?}"));
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

    #[test]
    fn invalid_config_rejected() {
        let p = LibraPlusDollar::new(1.0, 0.1, 1.0).unwrap();
        let mut bad = TimeSharedConfig::homogeneous(2, 168.0).unwrap();
        bad.control.control_interval = -60.0;
        assert!(simulate_time_shared(&[], &p, &bad).is_err());
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]

        // simulate_time_shared is the cluster driven by hand: same outcomes, bit for bit.
        #[test]
        fn simulator_is_the_cluster_driven_by_hand(spec in crate::online::tests::seeds(), beta in 0.0f64..1.5) {
            let jobs = crate::online::tests::stream(&spec);
            let cfg = TimeSharedConfig::homogeneous(4, 168.0).unwrap();
            let p = LibraPlusDollar::new(1.0, beta, 1.0).unwrap();
            let sim = simulate_time_shared(&jobs, &p, &cfg).unwrap();
            let mut c = Cluster::new(&cfg, p).unwrap();
            for j in &jobs {
                c.submit(j, j.arrival).unwrap();
            }
            c.run_to_completion();
            prop_assert_eq!(c.running(), 0);
            let by_hand: Vec<Outcome> = c.outcomes().iter().map(|o| (*o).unwrap()).collect();
            prop_assert_eq!(format!("{sim:?}"), format!("{by_hand:?}"));
        }
    }
}
