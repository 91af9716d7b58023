//! A [`Replay`] fed its jobs in any chunks gives the schedule of one [`simulate_with`] run
//! over the whole table, under every built-in policy, FCFS and shortest-estimate queue order
//! and expiring jobs (proptest over random workloads with many equal submit times); one
//! that drops the jobs that cannot run, fed a log before cleaning, gives the schedule of the
//! cleaned log; and a replay refuses a table out of queue order or one that lost jobs fed
//! before (its end at an error of the simulation is tested with the machine-breaking policy
//! of `invariants.rs`).

#![allow(clippy::unwrap_used)]

use proptest::prelude::*;
use slarm_sim::batch::{simulate_with, QueueOrder, Replay, Schedule};
use slarm_sim::policy::{Backfill, PolicyKind, SchedulingPolicy};
use slarm_workload::{Job, JobTable, Workload};

const CAPACITY: u32 = 8;

fn policies() -> Vec<Box<dyn SchedulingPolicy>> {
    vec![
        PolicyKind::Fcfs.build(),
        PolicyKind::Easy.build(),
        PolicyKind::Conservative.build(),
        Box::new(Backfill::new(Some(2))),
    ]
}

/// Jobs in queue order: submit times on a coarse grid (many ties), estimates above, equal
/// to and below the run time.
fn jobs() -> impl Strategy<Value = Vec<Job>> {
    jobs_of(1..40, 1..=8)
}

/// [`jobs`] with run times from `runs` and processors from `procs`.
fn jobs_of(
    runs: std::ops::Range<u32>,
    procs: std::ops::RangeInclusive<i64>,
) -> impl Strategy<Value = Vec<Job>> {
    proptest::collection::vec((0u32..60, runs, procs, 0u32..3), 0..80).prop_map(|v| {
        let mut jobs: Vec<Job> = v
            .into_iter()
            .enumerate()
            .map(|(k, (submit, run, procs, kind))| {
                let run = f64::from(run);
                let estimate = [run, 2.0 * run, (run / 2.0).ceil()][kind as usize];
                Job::new(k as u64 + 1, f64::from(submit * 5), run, procs, estimate)
            })
            .collect();
        jobs.sort_by(|a, b| a.submit.total_cmp(&b.submit).then(a.id.cmp(&b.id)));
        jobs
    })
}

/// The replay of `jobs` fed in chunks ending at `cuts` (positions, any order).
fn replayed(
    jobs: &[Job],
    cuts: &[usize],
    policy: &mut dyn SchedulingPolicy,
    order: &QueueOrder,
    expiry: Option<&[f64]>,
) -> Schedule {
    let mut replay = Replay::new(CAPACITY, policy, order, expiry).unwrap();
    let table = fed(&mut replay, jobs, cuts);
    replay.finish(&table).unwrap()
}

/// Feeds `jobs` to `replay` in chunks ending at `cuts` (positions, any order); returns the
/// table of them all (its last jobs not fed yet).
fn fed<P: SchedulingPolicy + ?Sized>(
    replay: &mut Replay<'_, P>,
    jobs: &[Job],
    cuts: &[usize],
) -> JobTable {
    let mut ends: Vec<usize> = cuts.iter().map(|&c| c % (jobs.len() + 1)).collect();
    ends.sort_unstable();
    let mut table = JobTable::new();
    for end in ends {
        table
            .try_extend(jobs[table.len()..end.max(table.len())].iter().copied())
            .unwrap();
        replay.advance(&table).unwrap();
        assert_eq!(replay.known(), table.len());
    }
    table
        .try_extend(jobs[table.len()..].iter().copied())
        .unwrap();
    table
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn a_replay_in_chunks_is_one_run(
        jobs in jobs(),
        cuts in proptest::collection::vec(any::<usize>(), 0..12),
        sjf in any::<bool>(),
        expire in any::<bool>(),
    ) {
        let table = JobTable::try_from_jobs(jobs.iter().copied()).unwrap();
        let order = if sjf { QueueOrder::ShortestEstimate } else { QueueOrder::Fcfs };
        let expiry: Option<Vec<f64>> =
            expire.then(|| jobs.iter().map(|j| j.submit + 3.0 * j.runtime).collect());
        for (mut a, mut b) in policies().into_iter().zip(policies()) {
            let whole = simulate_with(&table, CAPACITY, &mut a, &order, expiry.as_deref());
            let streamed = replayed(&jobs, &cuts, b.as_mut(), &order, expiry.as_deref());
            prop_assert_eq!(&streamed, &whole.unwrap(), "{}", a.name());
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn a_replay_that_drops_jobs_gives_the_schedule_of_the_cleaned_log(
        jobs in jobs_of(0..30, 0..=10),
        cuts in proptest::collection::vec(any::<usize>(), 0..12),
        expire in any::<bool>(),
    ) {
        let raw = JobTable::try_from_jobs(jobs.iter().copied()).unwrap();
        let cleaned = Workload::from_table("log", raw.clone(), CAPACITY).unwrap().jobs;
        let kept = |j: &Job| j.runtime > 0.0 && (1..=i64::from(CAPACITY)).contains(&j.procs());
        let expiry: Vec<f64> = jobs.iter().map(|j| j.submit + 2.0 * j.runtime).collect();
        let cleaned_expiry: Vec<f64> =
            jobs.iter().zip(&expiry).filter(|(j, _)| kept(j)).map(|(_, &e)| e).collect();
        let (expiry, cleaned_expiry) = if expire {
            (Some(&expiry[..]), Some(&cleaned_expiry[..]))
        } else {
            (None, None)
        };
        let order = QueueOrder::Fcfs;
        for (mut a, mut b) in policies().into_iter().zip(policies()) {
            let whole = simulate_with(&cleaned, CAPACITY, &mut a, &order, cleaned_expiry);
            let mut replay = Replay::dropping(CAPACITY, b.as_mut(), &order, expiry).unwrap();
            let table = fed(&mut replay, &jobs, &cuts);
            replay.run_out(&table).unwrap();
            let streamed = replay.schedule(&cleaned).unwrap();
            prop_assert_eq!(&streamed, &whole.unwrap(), "{}", a.name());
        }
    }
}

#[test]
fn a_replay_refuses_jobs_out_of_order_and_a_shrunk_table() {
    let mut easy = PolicyKind::Easy.build();
    let order = QueueOrder::Fcfs;
    let mut replay = Replay::new(CAPACITY, easy.as_mut(), &order, None).unwrap();
    let mut table = JobTable::new();
    table.push(Job::new(1, 10.0, 5.0, 2, 5.0)).unwrap();
    table.push(Job::new(2, 20.0, 5.0, 2, 5.0)).unwrap();
    replay.advance(&table).unwrap();
    let mut late = table.clone();
    late.push(Job::new(3, 15.0, 5.0, 2, 5.0)).unwrap();
    let e = replay.advance(&late).unwrap_err().to_string();
    assert!(e.contains("queue order"), "{e}");
    let mut shrunk = table.clone();
    shrunk.truncate(1);
    let e = replay.advance(&shrunk).unwrap_err().to_string();
    assert!(e.contains("only grow"), "{e}");
    let too_wide = JobTable::try_from_jobs([
        Job::new(1, 10.0, 5.0, 2, 5.0),
        Job::new(2, 20.0, 5.0, 2, 5.0),
        Job::new(3, 30.0, 5.0, 9, 5.0),
    ])
    .unwrap();
    assert!(replay.advance(&too_wide).is_err());
    // The jobs fed so far still replay to their schedule.
    let s = replay.finish(&table).unwrap();
    assert_eq!(s.records.len(), 2);
}
