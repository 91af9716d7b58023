//! Backfilling with a reservation depth ([`Backfill`]) against the policies it generalises:
//! depth 1 gives EASY's schedule and an unbounded (or a larger than any queue) depth
//! conservative backfilling's, job for job (start and end of every job), on real traces of
//! the Parallel Workloads Archive and on random workloads; depth 0 never leaves a job waiting
//! that fits. A missing trace is skipped (a failure under `SLARM_REQUIRE_TRACES=1`).

#![allow(clippy::unwrap_used, clippy::panic)]

use proptest::prelude::*;
use slarm_sim::batch::{simulate, simulate_with, BatchConfig, QueueOrder, Schedule};
use slarm_sim::policy::{Backfill, PolicyKind};
use slarm_workload::reader::{read_trace, ReadOptions};
use slarm_workload::{traces, Job, Workload};

fn times(s: &Schedule) -> Vec<(u64, u64, u64)> {
    s.records
        .iter()
        .map(|r| (r.id, r.start.to_bits(), r.end.to_bits()))
        .collect()
}

fn same(jobs: &[Job], procs: u32, depth: Option<u32>, kind: PolicyKind) -> Result<(), String> {
    let a = simulate_with(
        jobs,
        procs,
        &mut Backfill::new(depth),
        &QueueOrder::Fcfs,
        None,
    )
    .map_err(|e| e.to_string())?;
    let b = simulate(jobs, procs, &BatchConfig::new(kind)).map_err(|e| e.to_string())?;
    let (ta, tb) = (times(&a), times(&b));
    if ta == tb {
        return Ok(());
    }
    let first = ta.iter().zip(&tb).position(|(x, y)| x != y).unwrap_or(0);
    let (ra, rb) = (a.records.get(first), b.records.get(first));
    Err(format!(
        "{} differs from {kind} at job {:?}: start/end {:?} vs {:?}",
        a.policy,
        ra.map(|r| r.id),
        ra.map(|r| (r.start, r.end)),
        rb.map(|r| (r.start, r.end)),
    ))
}

#[test]
fn depth_one_is_easy_and_unbounded_depth_is_conservative_on_real_traces() {
    let mut checked = 0;
    for name in [
        "KTH-SP2-1996-2.1-cln.swf.gz",
        "SDSC-SP2-1998-4.2-cln.swf.gz",
        "CTC-SP2-1996-3.1-cln.swf.gz",
    ] {
        let Some(path) = traces::or_skip(name) else {
            continue;
        };
        let w =
            Workload::from_trace(read_trace(&path, ReadOptions::default()).unwrap(), None).unwrap();
        for (depth, kind) in [
            (Some(1), PolicyKind::Easy),
            (None, PolicyKind::Conservative),
            (Some(1_000_000), PolicyKind::Conservative),
        ] {
            if let Err(e) = same(&w.jobs.to_vec(), w.machine_procs, depth, kind) {
                panic!("{name}: {e}");
            }
            checked += 1;
        }
    }
    eprintln!("{checked} schedules identical");
}

fn workload() -> impl Strategy<Value = (Vec<Job>, u32)> {
    (
        4u32..24,
        proptest::collection::vec((0u32..50, 1u32..200, 1u32..24, 1u32..4), 1..80),
    )
        .prop_map(|(procs, rows)| {
            let mut t = 0.0;
            let jobs = rows
                .iter()
                .enumerate()
                .map(|(i, &(gap, run, p, over))| {
                    t += f64::from(gap);
                    // Estimates at or above the run time, some equal (ties at the shadow time).
                    let est = f64::from(run * over);
                    Job::new(
                        i as u64 + 1,
                        t,
                        f64::from(run),
                        i64::from(p.min(procs)),
                        est,
                    )
                })
                .collect();
            (jobs, procs)
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn depth_one_is_easy_on_random_workloads((jobs, procs) in workload()) {
        prop_assert_eq!(same(&jobs, procs, Some(1), PolicyKind::Easy), Ok(()));
    }

    #[test]
    fn unbounded_depth_is_conservative_on_random_workloads((jobs, procs) in workload()) {
        prop_assert_eq!(same(&jobs, procs, None, PolicyKind::Conservative), Ok(()));
        prop_assert_eq!(same(&jobs, procs, Some(80), PolicyKind::Conservative), Ok(()));
    }

    /// Depth 0 keeps no reservation: whenever a job waits, it did not fit the free
    /// processors at any instant of its wait when the machine's state changed; checked at
    /// its submission: it starts at once if it fits beside the jobs running then.
    #[test]
    fn depth_zero_starts_what_fits((jobs, procs) in workload()) {
        let s = simulate_with(&jobs, procs, &mut Backfill::new(Some(0)), &QueueOrder::Fcfs, None).unwrap();
        for r in &s.records {
            let busy: u32 = s.records.iter()
                .filter(|o| o.id != r.id && o.start <= r.submit && o.end > r.submit)
                .map(|o| o.procs).sum();
            if busy + r.procs <= procs {
                prop_assert!(r.start == r.submit || s.records.iter().any(|o| o.id != r.id && o.start == r.submit),
                    "job {} fits at its submission {} but starts at {}", r.id, r.submit, r.start);
            }
        }
    }
}
