//! A simulation split at idle instants ([`simulate_in_parts`]) gives the schedule of one
//! [`simulate_with`] run, bit for bit, under every built-in policy, FCFS and
//! shortest-estimate queue order and expiring jobs, whatever the number of parts: proptest
//! over random logs of bursts, some of which overrun the next (a part that must be run
//! again by the one before) and some of which leave the machine idle (a part kept).

#![allow(clippy::unwrap_used)]

use proptest::prelude::*;
use slarm_sim::batch::{simulate_in_parts, simulate_with, QueueOrder};
use slarm_sim::policy::{Backfill, PolicyKind, SchedulingPolicy};
use slarm_workload::{Job, JobTable};

const CAPACITY: u32 = 8;

type Make = fn() -> Box<dyn SchedulingPolicy + Send>;

fn policies() -> [Make; 5] {
    [
        || PolicyKind::Fcfs.build(),
        || PolicyKind::Easy.build(),
        || PolicyKind::Conservative.build(),
        || Box::new(Backfill::new(Some(2))),
        || Box::new(Backfill::new(None)),
    ]
}

/// Jobs in queue order, in bursts 400 s apart: submit times on a coarse grid within a
/// burst (many ties), estimates above, equal to and below the run time.
fn bursts() -> impl Strategy<Value = Vec<Job>> {
    proptest::collection::vec((0u32..8, 0u32..30, 1u32..60, 1i64..=8, 0u32..3), 0..120).prop_map(
        |v| {
            let mut jobs: Vec<Job> = v
                .into_iter()
                .enumerate()
                .map(|(k, (burst, at, run, procs, kind))| {
                    let run = f64::from(run);
                    let estimate = [run, 2.0 * run, (run / 2.0).ceil()][kind as usize];
                    let submit = f64::from(burst * 400 + at * 5);
                    Job::new(k as u64 + 1, submit, run, procs, estimate)
                })
                .collect();
            jobs.sort_by(|a, b| a.submit.total_cmp(&b.submit).then(a.id.cmp(&b.id)));
            jobs
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn a_run_in_parts_is_one_run(
        jobs in bursts(),
        parts in 1usize..9,
        sjf in any::<bool>(),
        expire in any::<bool>(),
    ) {
        let table = JobTable::try_from_jobs(jobs.iter().copied()).unwrap();
        let order = if sjf { QueueOrder::ShortestEstimate } else { QueueOrder::Fcfs };
        let expiry: Option<Vec<f64>> =
            expire.then(|| jobs.iter().map(|j| j.submit + 3.0 * j.runtime).collect());
        for make in policies() {
            let whole = simulate_with(&table, CAPACITY, &mut make(), &order, expiry.as_deref());
            let split =
                simulate_in_parts(&table, CAPACITY, make, &order, expiry.as_deref(), parts);
            prop_assert_eq!(&split.unwrap(), &whole.unwrap(), "{}", make().name());
        }
    }
}

#[test]
fn jobs_out_of_arrival_order_run_as_one_part() {
    // The table is not in arrival order: no split, the schedule of one run.
    let jobs = [
        Job::new(2, 500.0, 10.0, 4, 10.0),
        Job::new(1, 0.0, 10.0, 4, 10.0),
        Job::new(3, 1000.0, 10.0, 4, 10.0),
    ];
    let order = QueueOrder::Fcfs;
    for make in policies() {
        let whole = simulate_with(&jobs, CAPACITY, &mut make(), &order, None).unwrap();
        let split = simulate_in_parts(&jobs, CAPACITY, make, &order, None, 3).unwrap();
        assert_eq!(split, whole);
    }
}
