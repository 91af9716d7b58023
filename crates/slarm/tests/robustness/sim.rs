//! slarm-sim: machines, availability profiles, the event kernel, failure processes, and
//! FCFS / EASY / conservative backfilling on random small workloads.

use slarm::sim::batch::{simulate, BatchConfig, QueueOrder, Schedule};
use slarm::sim::failures::{ExponentialFailures, FailureEvent, FailureKind, FailureTrace};
use slarm::sim::kernel::{EventQueue, Simulation};
use slarm::sim::machine::Machine;
use slarm::sim::metrics::Metrics;
use slarm::sim::policy::{ConservativePlanner, PolicyKind};
use slarm::sim::profile::Profile;
use slarm::sim::replication::summarize;
use slarm::stats::RngStreams;
use slarm::workload::Job;

use crate::{assert_within_capacity, property, Gen, CASES, SCHEDULER_CASES};

#[test]
fn machines_profiles_and_planner() {
    property(
        "sim/Machine, Profile, ConservativePlanner",
        CASES,
        true,
        |g, t| {
            let procs = g.count(5000).min(u64::from(u32::MAX)) as u32;
            let at = t.at();
            if let Some(m) = t.call(Machine::processors(procs)) {
                assert!(m.total_procs() > 0, "{at}");
            }
            t.call(Machine::nodes(g.count(100) as u32, procs));
            if let Some(mut p) = t.call(Profile::new(procs.min(64), g.mostly(0.0, 100.0))) {
                for _ in 0..4 {
                    let (a, b, k) = (
                        g.mostly(0.0, 200.0),
                        g.mostly(0.0, 400.0),
                        g.below(80) as u32,
                    );
                    t.call(p.reserve(a, b, k));
                    t.call(p.release(g.nasty(), g.nasty(), g.below(80) as u32));
                    if let Some(s) = t.call(p.earliest_fit(g.mostly(0.0, 200.0), k, g.nasty())) {
                        assert!(!s.is_nan(), "{at}");
                    }
                    let free = p.free_at(a);
                    assert!(
                        free >= 0 && free <= i64::from(p.capacity()),
                        "{at}: free {free}"
                    );
                }
            }
            if let Some(mut c) =
                t.call(ConservativePlanner::new(procs.min(64), g.mostly(0.0, 10.0)))
            {
                for _ in 0..4 {
                    t.call(c.start_running(
                        g.mostly(0.0, 50.0),
                        g.mostly(0.0, 100.0),
                        g.below(80) as u32,
                    ));
                    t.call(c.reserve(g.mostly(0.0, 50.0), g.below(80) as u32, g.nasty()));
                }
            }
        },
    );
}

#[test]
fn kernel_and_failures() {
    property("sim/kernel and failures", CASES, true, |g, t| {
        let at = t.at();
        let mut q = EventQueue::new();
        let mut sim = Simulation::starting_at(g.mostly(0.0, 10.0));
        for k in 0..6u32 {
            t.call(q.push(g.nasty(), k, k));
            t.call(sim.schedule_at(g.nasty(), k, k));
            t.call(sim.schedule_in(g.nasty(), k, k));
        }
        let mut last = f64::NEG_INFINITY;
        while let Some(e) = q.pop() {
            assert!(
                e.time.is_finite() && e.time >= last,
                "{at}: {} after {last}",
                e.time
            );
            last = e.time;
        }
        while let Some(e) = sim.step() {
            assert!(e.time.is_finite(), "{at}");
        }
        let (lambda, mu) = (g.mostly(1e-3, 0.1), g.mostly(1e-2, 1.0));
        if let Some(f) = t.call(ExponentialFailures::new(lambda, mu)) {
            let a = f.availability();
            assert!((0.0..=1.0).contains(&a), "{at}: availability {a}");
            // Generating is linear in rate x horizon: only for at most ~1,000 events.
            let horizon = g.mostly(0.0, 1e3).min(1e3);
            if (lambda + mu) * horizon <= 1e3 {
                let mut rng = RngStreams::new(t.case).stream(&[3]);
                let ev = f.generate(g.below(5) as u32, horizon, &mut rng);
                if let Some(tr) = t.call(FailureTrace::new(5, ev)) {
                    assert!(tr.up_nodes_at(g.nasty()) <= 5, "{at}");
                }
            }
        }
        let events: Vec<FailureEvent> = (0..g.below(6))
            .map(|_| FailureEvent {
                time: g.nasty(),
                node: g.below(6) as u32,
                kind: if g.coin() {
                    FailureKind::Fail
                } else {
                    FailureKind::Repair
                },
            })
            .collect();
        if let Some(tr) = t.call(FailureTrace::new(g.below(6) as u32, events)) {
            let d = tr.downtime(g.mostly(0.0, 100.0));
            assert!(d.is_nan() || d >= 0.0, "{at}: downtime {d}");
        }
        let values: Vec<f64> = (0..g.below(5)).map(|_| g.nasty()).collect();
        t.call(summarize(&values, g.nasty()));
    });
}

/// A random small workload: 1-16 jobs on up to 12 processors, with exact estimates or not;
/// in a quarter of the workloads one job is hostile (non-finite, negative or oversized).
fn workload(g: &mut Gen, cap: u32, exact: bool) -> (Vec<Job>, bool) {
    let n = g.range(1, 16);
    let hostile = (g.below(4) == 0).then(|| g.below(n));
    let mut t = 0.0;
    let jobs = (0..n)
        .map(|id| {
            t += g.below(50) as f64;
            let run = 1.0 + g.below(100) as f64;
            let est = if exact {
                run
            } else {
                (run * g.uniform(0.3, 3.0)).round().max(1.0)
            };
            let procs = 1 + g.below(u64::from(cap)) as i64;
            if hostile == Some(id) {
                Job::new(id, g.nasty(), g.nasty(), g.u64() as i64 % 40, g.nasty())
            } else {
                Job::new(id, t, run, procs, est)
            }
        })
        .collect();
    (jobs, hostile.is_some())
}

/// The invariants of every policy: each valid job runs once, for min(run, estimate), not
/// before its submission, with its processors; never more processors busy than the machine
/// has; conservative never starts a job after its first reservation, nor EASY the head
/// with exact estimates; FCFS starts jobs in queue order.
fn check(jobs: &[Job], cap: u32, s: &Schedule, order: &QueueOrder, exact: bool, at: &str) {
    let mut seen = vec![false; jobs.len()];
    let mut events: Vec<(f64, i64)> = Vec::new();
    for r in &s.records {
        let j = &jobs[r.index];
        assert!(
            !std::mem::replace(&mut seen[r.index], true),
            "{at}: job {} twice",
            j.id
        );
        assert!(
            r.start >= j.submit,
            "{at}: job {} starts before submit",
            j.id
        );
        // Within the resolution of the clock (hostile jobs may start near 1e300).
        let d = r.end - r.start;
        let resolution = 1e-9 + 4.0 * f64::EPSILON * r.end.abs();
        assert!(
            (d - j.effective_runtime()).abs() <= resolution,
            "{at}: job {} ran {d}",
            j.id
        );
        assert_eq!(i64::from(r.procs), j.procs(), "{at}");
        if let Some(res) = r.reservation {
            let bound = s.policy == "conservative" || (exact && s.policy == "easy");
            assert!(
                !bound || r.start <= res + 1e-9,
                "{at}: job {} after its reservation",
                j.id
            );
        }
        events.push((r.start, i64::from(r.procs)));
        events.push((r.end, -i64::from(r.procs)));
    }
    assert_eq!(
        s.records.len() + s.expired.len(),
        jobs.len(),
        "{at}: jobs lost"
    );
    assert_within_capacity(events, i64::from(cap), at);
    if s.policy == "fcfs" && s.expired.is_empty() && *order == QueueOrder::Fcfs {
        let mut order: Vec<_> = s.records.iter().collect();
        order.sort_by(|a, b| a.submit.total_cmp(&b.submit).then(a.id.cmp(&b.id)));
        assert!(
            order.windows(2).all(|w| w[0].start <= w[1].start),
            "{at}: FCFS order"
        );
    }
}

#[test]
fn fcfs_easy_conservative_on_random_workloads() {
    property(
        "sim/FCFS, EASY, conservative schedules",
        SCHEDULER_CASES * 5,
        true,
        |g, t| {
            let cap = g.range(1, 12) as u32;
            let exact = g.coin();
            let (jobs, hostile) = workload(g, cap, exact);
            let order = match g.below(4) {
                0 => QueueOrder::ShortestEstimate,
                1 => QueueOrder::Key((0..jobs.len()).map(|_| g.mostly(0.0, 100.0)).collect()),
                _ => QueueOrder::Fcfs,
            };
            let expiry = (g.below(4) == 0).then(|| {
                jobs.iter()
                    .map(|j| j.submit + g.mostly(0.0, 200.0))
                    .collect()
            });
            for policy in [PolicyKind::Fcfs, PolicyKind::Easy, PolicyKind::Conservative] {
                let cfg = BatchConfig {
                    policy,
                    order: order.clone(),
                    expiry: expiry.clone(),
                };
                let at = format!("{} {policy:?}", t.at());
                let result = simulate(&jobs, cap, &cfg);
                if !hostile {
                    // Valid workloads: an error would be a defect.
                    assert!(result.is_ok(), "{at}: {:?}", result.err());
                }
                if let Some(s) = t.call(result) {
                    // The EASY head bound holds for arrival order only.
                    let exact = exact && matches!(cfg.order, QueueOrder::Fcfs);
                    check(&jobs, cap, &s, &cfg.order, exact, &at);
                    let m = Metrics::of(&s, 10.0);
                    assert!(
                        m.utilization.is_nan() || (0.0..=1.0 + 1e-9).contains(&m.utilization),
                        "{at}"
                    );
                }
            }
        },
    );
}
