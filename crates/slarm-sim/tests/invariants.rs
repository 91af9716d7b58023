//! Invariants of every policy, on random small workloads (proptest) and on real traces when
//! the trace folder is present:
//! no over-allocation at any instant, no start before submit, every job runs exactly once
//! for min(run time, estimate); conservative never starts a job after its first
//! reservation; with exact estimates EASY never starts the head after its reservation;
//! FCFS starts jobs in queue order. The same invariants hold under SJF and caller-keyed
//! queue orders with expiring jobs (every job either runs once or expires, never both),
//! and a policy whose pass outcome breaks the machine is refused with a typed error (a
//! replay then ends: every later call errors).

// Test helpers outside #[test] functions panic on purpose.
#![allow(clippy::unwrap_used, clippy::panic)]

use proptest::prelude::*;
use slarm_sim::batch::{simulate, simulate_with, BatchConfig, QueueOrder, Replay, Schedule};
use slarm_sim::policy::{Candidate, MachineState, PassOutcome, PolicyKind, SchedulingPolicy};
use slarm_workload::reader::{read_trace, ReadOptions};
use slarm_workload::{traces, Job, Workload};

const POLICIES: [PolicyKind; 3] = [PolicyKind::Fcfs, PolicyKind::Easy, PolicyKind::Conservative];

/// Checks the invariants; `exact` says estimates equal run times.
/// `submit_order` says the queue was in submit order: the FCFS policy then starts jobs in
/// that order, and EASY's head keeps its reservation (under another order a later, more
/// urgent job can take the head's place and its reservation).
fn check(
    jobs: &[Job],
    cap: u32,
    s: &Schedule,
    exact: bool,
    submit_order: bool,
) -> Result<(), String> {
    if s.records.len() + s.expired.len() != jobs.len() {
        return Err(format!(
            "{} of {} jobs ran, {} expired",
            s.records.len(),
            jobs.len(),
            s.expired.len()
        ));
    }
    let mut seen = vec![false; jobs.len()];
    for &i in &s.expired {
        if std::mem::replace(&mut seen[i], true) {
            return Err(format!("job {} expired twice", jobs[i].id));
        }
    }
    let mut events: Vec<(f64, i64)> = Vec::with_capacity(2 * jobs.len());
    for r in &s.records {
        let j = &jobs[r.index];
        if std::mem::replace(&mut seen[r.index], true) {
            return Err(format!("job {} ran twice", j.id));
        }
        if r.start < j.submit {
            return Err(format!(
                "job {} starts {} before submit {}",
                j.id, r.start, j.submit
            ));
        }
        let d = r.end - r.start;
        if (d - j.effective_runtime()).abs() > 1e-9 * j.effective_runtime().max(1.0) {
            return Err(format!(
                "job {} ran {d}, expected {}",
                j.id,
                j.effective_runtime()
            ));
        }
        if i64::from(r.procs) != j.procs() {
            return Err(format!("job {} got {} procs", j.id, r.procs));
        }
        if let Some(res) = r.reservation {
            let bound = s.policy == "conservative" || (exact && submit_order && s.policy == "easy");
            if bound && r.start > res + 1e-9 {
                return Err(format!(
                    "job {} starts {} after its reservation {res}",
                    j.id, r.start
                ));
            }
        }
        events.push((r.start, i64::from(r.procs)));
        events.push((r.end, -i64::from(r.procs)));
    }
    // Ends before starts at the same instant.
    events.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    let mut used = 0i64;
    for (t, d) in events {
        used += d;
        if used > i64::from(cap) {
            return Err(format!("over-allocation at {t}: {used} > {cap}"));
        }
    }
    if s.policy == "fcfs" && s.expired.is_empty() && submit_order {
        let mut order: Vec<slarm_sim::batch::JobRecord> = s.records.to_vec();
        order.sort_by(|a, b| a.submit.total_cmp(&b.submit).then(a.id.cmp(&b.id)));
        if order.windows(2).any(|w| w[1].start < w[0].start) {
            return Err("FCFS started a later job before an earlier one".into());
        }
    }
    Ok(())
}

fn workload() -> impl Strategy<Value = (Vec<Job>, u32, bool)> {
    (1u32..12, any::<bool>()).prop_flat_map(|(cap, exact)| {
        let job = (0u32..200, 1u32..100, 1..=cap, 1u32..4, 0u32..3);
        proptest::collection::vec(job, 1..40).prop_map(move |v| {
            let jobs = v
                .into_iter()
                .enumerate()
                .map(|(i, (submit, run, procs, over, under))| {
                    let run = f64::from(run);
                    // Inexact estimates: over-estimates, sometimes under-estimates (killed).
                    let est = if exact {
                        run
                    } else if under == 0 {
                        (run / 2.0).ceil()
                    } else {
                        run * f64::from(over)
                    };
                    Job::new(i as u64 + 1, f64::from(submit), run, i64::from(procs), est)
                })
                .collect();
            (jobs, cap, exact)
        })
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]
    #[test]
    fn every_policy_keeps_its_invariants((jobs, cap, exact) in workload()) {
        for policy in POLICIES {
            let s = simulate(&jobs, cap, &BatchConfig::new(policy)).unwrap();
            if let Err(e) = check(&jobs, cap, &s, exact, true) {
                prop_assert!(false, "{policy:?}: {e}");
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]
    /// Every built-in policy through the trait, under a random queue order and with random
    /// latest starts: no over-commitment, no start before submit, reservations honoured
    /// (conservative always, EASY's head with exact estimates in submit order), each job
    /// runs or expires.
    #[test]
    fn every_policy_keeps_its_invariants_under_any_order_and_expiry(
        (jobs, cap, exact) in workload(),
        order_kind in 0u8..3,
        keys in proptest::collection::vec(0u32..1000, 40),
        patience in proptest::collection::vec(proptest::option::of(0u32..300), 40),
    ) {
        let order = match order_kind {
            0 => QueueOrder::Fcfs,
            1 => QueueOrder::ShortestEstimate,
            _ => QueueOrder::Key(jobs.iter().enumerate().map(|(i, _)| f64::from(keys[i])).collect()),
        };
        let expiry: Vec<f64> = jobs
            .iter()
            .enumerate()
            .map(|(i, j)| patience[i].map_or(f64::INFINITY, |p| j.submit + f64::from(p)))
            .collect();
        for kind in PolicyKind::ALL {
            let mut policy = kind.build();
            let s = simulate_with(&jobs, cap, &mut policy, &order, Some(&expiry)).unwrap();
            for &i in &s.expired {
                prop_assert!(s.records.iter().all(|r| r.index != i), "{kind}: expired job ran");
            }
            if let Err(e) = check(&jobs, cap, &s, exact, order == QueueOrder::Fcfs) {
                prop_assert!(false, "{kind} {order:?}: {e}");
            }
        }
    }
}

/// Starts the whole queue at every pass, whatever is free (positions listed backwards if
/// the flag is set).
struct Greedy(bool);
impl SchedulingPolicy for Greedy {
    fn name(&self) -> &str {
        "greedy"
    }
    fn schedule(
        &mut self,
        _machine: &MachineState<'_>,
        queue: &[Candidate],
        out: &mut PassOutcome,
    ) -> slarm_sim::Result<()> {
        out.clear();
        out.start.extend(0..queue.len());
        if self.0 {
            out.start.reverse();
        }
        Ok(())
    }
}

#[test]
fn a_policy_that_breaks_the_machine_is_refused() {
    let jobs = vec![
        Job::new(1, 0.0, 10.0, 3, 10.0),
        Job::new(2, 0.0, 10.0, 3, 10.0),
    ];
    let e = simulate_with(&jobs, 8, &mut Greedy(true), &QueueOrder::Fcfs, None).unwrap_err();
    assert!(e.to_string().contains("ascending"), "{e}");
    let e = simulate_with(&jobs, 4, &mut Greedy(false), &QueueOrder::Fcfs, None).unwrap_err();
    assert!(
        e.to_string().contains("6 processors started with 4 free"),
        "{e}"
    );
    // Within the machine it runs.
    let s = simulate_with(&jobs, 8, &mut Greedy(false), &QueueOrder::Fcfs, None).unwrap();
    assert_eq!(
        s.records.iter().map(|r| r.start).collect::<Vec<_>>(),
        vec![0.0, 0.0]
    );
}

#[test]
fn bad_jobs_are_typed_errors() {
    let big = vec![Job::new(1, 0.0, 10.0, 9, 10.0)];
    assert!(matches!(
        simulate(&big, 8, &BatchConfig::new(PolicyKind::Easy)),
        Err(slarm_sim::SimError::JobTooLarge { job_id: 1, .. })
    ));
    let zero = vec![Job::new(1, 0.0, 0.0, 1, -1.0)];
    assert!(simulate(&zero, 8, &BatchConfig::new(PolicyKind::Easy)).is_err());
    let nan = vec![Job::new(1, f64::NAN, 1.0, 1, 1.0)];
    assert!(simulate(&nan, 8, &BatchConfig::new(PolicyKind::Easy)).is_err());
    assert!(simulate(&[], 0, &BatchConfig::new(PolicyKind::Easy)).is_err());
}

/// Checks every policy on `w` (as read) and EASY/conservative with exact estimates.
fn check_trace(name: &str, w: &Workload) {
    for policy in POLICIES {
        let s = simulate(&w.jobs, w.machine_procs, &BatchConfig::new(policy)).unwrap();
        check(&w.jobs.to_vec(), w.machine_procs, &s, false, true)
            .unwrap_or_else(|e| panic!("{name} {policy:?}: {e}"));
    }
    // Exact estimates (estimate := run time) for EASY's head-reservation guarantee.
    let exact: Vec<Job> = w
        .jobs
        .iter()
        .map(|j| Job {
            req_time: j.runtime,
            ..j
        })
        .collect();
    for policy in [PolicyKind::Easy, PolicyKind::Conservative] {
        let s = simulate(&exact, w.machine_procs, &BatchConfig::new(policy)).unwrap();
        check(&exact, w.machine_procs, &s, true, true)
            .unwrap_or_else(|e| panic!("{name} exact {policy:?}: {e}"));
    }
}

/// The cleaned trace, or `None` (after a "skipping" line) when it is absent.
fn load(name: &str) -> Option<Result<Workload, slarm_workload::WorkloadError>> {
    let path = traces::or_skip(name)?;
    Some(read_trace(&path, ReadOptions::default()).and_then(|t| Workload::from_trace(t, None)))
}

#[test]
fn invariants_hold_on_real_traces() {
    for name in [
        "KTH-SP2-1996-2.1-cln.swf.gz",
        "SDSC-SP2-1998-4.2-cln.swf.gz",
    ] {
        let Some(w) = load(name) else { continue };
        let mut w = w.unwrap();
        w.jobs.truncate(10_000);
        check_trace(name, &w);
    }
}

/// The same on whole traces, including LLNL-Thunder (out-of-order submit times), the two
/// largest machines and the longest logs. Release build advised:
/// `cargo test --release -p slarm-sim --test invariants -- --ignored`.
#[test]
#[ignore = "whole traces: about a minute in release, run with --ignored"]
fn invariants_hold_on_whole_traces() {
    for name in [
        "KTH-SP2-1996-2.1-cln.swf.gz",
        "SDSC-SP2-1998-4.2-cln.swf.gz",
        "CTC-SP2-1996-3.1-cln.swf.gz",
        "HPC2N-2002-2.2-cln.swf.gz",
        "LLNL-Thunder-2007-1.1-cln.swf.gz",
        "SDSC-BLUE-2000-4.2-cln.swf.gz",
        "Sandia-Ross-2001-1.1-cln.swf.gz",
        "LANL-CM5-1994-4.1-cln.swf.gz",
    ] {
        let Some(w) = load(name) else { continue };
        check_trace(name, &w.unwrap());
    }
}

#[test]
fn an_error_of_the_simulation_ends_the_replay() {
    let order = QueueOrder::Fcfs;
    let mut policy = Greedy(false);
    let mut replay = Replay::new(8, &mut policy, &order, None).unwrap();
    // Two jobs of 6 processors at t = 0: the pass at 0 starts both on 8 processors.
    let table = slarm_workload::JobTable::try_from_jobs([
        Job::new(1, 0.0, 5.0, 6, 5.0),
        Job::new(2, 0.0, 5.0, 6, 5.0),
        Job::new(3, 1.0, 5.0, 1, 5.0),
    ])
    .unwrap();
    let e = replay.advance(&table).unwrap_err().to_string();
    assert!(e.contains("fit in the free processors"), "{e}");
    let e = replay.run_out(&table).unwrap_err().to_string();
    assert!(e.contains("ended at an error"), "{e}");
    assert!(replay.schedule(&table).is_err());
}
