//! slarm-sim's FCFS, EASY and conservative backfilling checked with the schedule checker on
//! random traces (zero violations expected), on a real trace when the trace folder is
//! present, and the checker itself on schedules broken on purpose (each kind detected).

// Test helpers outside #[test] functions panic on purpose.
#![allow(clippy::unwrap_used, clippy::panic)]

use proptest::prelude::*;
use slarm_sim::batch::{simulate, BatchConfig};
use slarm_sim::policy::PolicyKind;
use slarm_testing::{check, strategies, Contract, ScheduledJob, Violation};
use slarm_workload::reader::{read_trace, ReadOptions};
use slarm_workload::{traces, Job, Workload};

/// Each policy with the contract it must keep.
const CASES: [(PolicyKind, Contract); 3] = [
    (PolicyKind::Fcfs, Contract::Fcfs),
    (PolicyKind::Easy, Contract::Easy),
    (PolicyKind::Conservative, Contract::Conservative),
];

fn schedule_of(jobs: &[Job], procs: u32, policy: PolicyKind) -> Vec<ScheduledJob> {
    let s = simulate(jobs, procs, &BatchConfig::new(policy)).unwrap();
    s.records.iter().map(|r| ScheduledJob::from(&r)).collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]
    #[test]
    fn simulators_keep_their_contracts((jobs, procs) in strategies::trace(1..48, 1..60)) {
        for (policy, contract) in CASES {
            let rows = schedule_of(&jobs, procs, policy);
            let v = check(&jobs, procs, &rows, contract).unwrap();
            prop_assert!(v.is_empty(), "{policy:?}: {}", v[0]);
            // Every schedule keeps the capacity-only contract.
            prop_assert!(check(&jobs, procs, &rows, Contract::Capacity).unwrap().is_empty());
        }
    }

    /// FCFS keeps the EASY head guarantee too (it never backfills).
    #[test]
    fn fcfs_schedules_are_easy_safe((jobs, procs) in strategies::trace(1..48, 1..60)) {
        let rows = schedule_of(&jobs, procs, PolicyKind::Fcfs);
        prop_assert!(check(&jobs, procs, &rows, Contract::Easy).unwrap().is_empty());
    }
}

#[test]
fn simulators_keep_their_contracts_on_a_real_trace() {
    let Some(path) = traces::or_skip("KTH-SP2-1996-2.1-cln.swf.gz") else {
        return;
    };
    let mut w =
        Workload::from_trace(read_trace(&path, ReadOptions::default()).unwrap(), None).unwrap();
    w.jobs.truncate(5_000);
    let jobs = w.jobs.to_vec();
    for (policy, contract) in CASES {
        let rows = schedule_of(&jobs, w.machine_procs, policy);
        let v = check(&jobs, w.machine_procs, &rows, contract).unwrap();
        assert!(
            v.is_empty(),
            "{policy:?}: {} violations, first {}",
            v.len(),
            v[0]
        );
    }
}

// ---- schedules broken on purpose ----

fn row(id: u64, submit: f64, start: f64, end: f64, procs: u32) -> ScheduledJob {
    ScheduledJob {
        id,
        submit,
        start,
        end,
        procs,
    }
}

/// Three jobs on 10 processors, with the EASY schedule of the crate docs.
fn three() -> (Vec<Job>, Vec<ScheduledJob>) {
    let jobs = vec![
        Job::new(1, 0.0, 100.0, 6, 100.0),
        Job::new(2, 1.0, 50.0, 8, 50.0),
        Job::new(3, 2.0, 90.0, 4, 90.0),
    ];
    let rows = schedule_of(&jobs, 10, PolicyKind::Easy);
    assert_eq!(
        rows,
        vec![
            row(1, 0.0, 0.0, 100.0, 6),
            row(2, 1.0, 100.0, 150.0, 8),
            row(3, 2.0, 2.0, 92.0, 4),
        ]
    );
    (jobs, rows)
}

fn kinds(v: &[Violation]) -> Vec<&'static str> {
    v.iter().map(Violation::kind).collect()
}

#[test]
fn each_broken_job_row_is_found() {
    let (jobs, mut rows) = three();
    rows.push(row(9, 0.0, 0.0, 1.0, 1)); // not in the trace
    rows.push(rows[0]); // job 1 twice
    rows[2].procs = 3; // job 3 asked for 4
    rows[1].submit = 0.5; // job 2 was submitted at 1
    let v = check(&jobs, 10, &rows, Contract::Capacity).unwrap();
    assert_eq!(
        v,
        vec![
            Violation::Mismatch {
                job: 2,
                field: "submit",
                trace: 1.0,
                schedule: 0.5
            },
            Violation::Mismatch {
                job: 3,
                field: "procs",
                trace: 4.0,
                schedule: 3.0
            },
            Violation::UnknownJob { job: 9 },
            Violation::DuplicateJob { job: 1 },
        ]
    );
    let v = check(&jobs, 10, &rows[..2], Contract::Capacity).unwrap();
    assert_eq!(kinds(&v), ["mismatch", "missing-job"]);
    assert_eq!(v[1], Violation::MissingJob { job: 3 });
}

#[test]
fn times_out_of_order_are_found() {
    let (jobs, mut rows) = three();
    rows[2] = row(3, 2.0, 1.0, 91.0, 4); // starts before its submission at 2
    rows[1].end = 151.0; // runs 51 s on an estimate of 50 s
    let v = check(&jobs, 10, &rows, Contract::Capacity).unwrap();
    assert_eq!(
        v,
        vec![
            Violation::OverEstimate {
                job: 2,
                ran: 51.0,
                estimate: 50.0
            },
            Violation::StartBeforeSubmit {
                job: 3,
                submit: 2.0,
                start: 1.0
            },
        ]
    );
    let (_, mut rows) = three();
    rows[0].end = -1.0;
    let v = check(&jobs, 10, &rows, Contract::Capacity).unwrap();
    assert_eq!(
        v,
        vec![Violation::EndBeforeStart {
            job: 1,
            start: 0.0,
            end: -1.0
        }]
    );
}

#[test]
fn over_commits_are_found_as_intervals() {
    let (jobs, mut rows) = three();
    // Job 2 starts at 80 beside jobs 1 (6 procs, to 100) and 3 (4 procs, to 92): 18 of 10
    // from 80 to 92, then 14 to 100.
    rows[1] = row(2, 1.0, 80.0, 130.0, 8);
    let v = check(&jobs, 10, &rows, Contract::Capacity).unwrap();
    assert_eq!(
        v,
        vec![Violation::OverCommit {
            from: 80.0,
            to: 100.0,
            used: 18,
            capacity: 10
        }]
    );
    // Two separate intervals, each reported.
    let jobs = vec![
        Job::new(1, 0.0, 10.0, 2, 10.0),
        Job::new(2, 0.0, 10.0, 2, 10.0),
    ];
    let rows = vec![row(1, 0.0, 0.0, 10.0, 2), row(2, 0.0, 5.0, 15.0, 2)];
    let v = check(&jobs, 3, &rows, Contract::Capacity).unwrap();
    assert_eq!(
        v,
        vec![Violation::OverCommit {
            from: 5.0,
            to: 10.0,
            used: 4,
            capacity: 3
        }]
    );
    let rows = vec![row(1, 0.0, 0.0, 2.0, 2), row(2, 0.0, 1.0, 3.0, 2)];
    let jobs2 = [jobs.clone(), vec![Job::new(3, 0.0, 2.0, 2, 2.0)]].concat();
    let rows2 = [rows, vec![row(3, 0.0, 2.5, 4.5, 2)]].concat();
    let v = check(&jobs2, 3, &rows2, Contract::Capacity).unwrap();
    assert_eq!(
        v,
        vec![
            Violation::OverCommit {
                from: 1.0,
                to: 2.0,
                used: 4,
                capacity: 3
            },
            Violation::OverCommit {
                from: 2.5,
                to: 3.0,
                used: 4,
                capacity: 3
            },
        ]
    );
}

#[test]
fn fcfs_order_broken_is_found() {
    let (jobs, rows) = three();
    let v = check(&jobs, 10, &rows, Contract::Fcfs).unwrap();
    assert_eq!(
        v,
        vec![Violation::FcfsOrder {
            job: 3,
            start: 2.0,
            overtaken: 2,
            overtaken_start: 100.0
        }]
    );
    // The FCFS schedule itself is clean, and equal starts are no violation.
    let fcfs = schedule_of(&jobs, 10, PolicyKind::Fcfs);
    assert!(check(&jobs, 10, &fcfs, Contract::Fcfs).unwrap().is_empty());
}

#[test]
fn easy_head_delayed_is_found() {
    let (jobs, _) = three();
    // Job 3 backfilled at 2 but (wrongly) runs past the head's shadow time on processors
    // the head needs: job 2 (head since 1, shadow time 100) can only start at 102.
    let mut jobs = jobs;
    jobs[2] = Job::new(3, 2.0, 100.0, 4, 100.0);
    let rows = vec![
        row(1, 0.0, 0.0, 100.0, 6),
        row(2, 1.0, 102.0, 152.0, 8),
        row(3, 2.0, 2.0, 102.0, 4),
    ];
    let v = check(&jobs, 10, &rows, Contract::Easy).unwrap();
    assert_eq!(
        v,
        vec![Violation::HeadDelayed {
            job: 2,
            head_at: 1.0,
            reservation: 100.0,
            start: 102.0
        }]
    );
    // A head that fits but is not started is delayed too (its shadow time is now).
    let jobs = vec![Job::new(1, 0.0, 10.0, 2, 10.0)];
    let v = check(&jobs, 4, &[row(1, 0.0, 5.0, 15.0, 2)], Contract::Easy).unwrap();
    assert_eq!(
        v,
        vec![Violation::HeadDelayed {
            job: 1,
            head_at: 0.0,
            reservation: 0.0,
            start: 5.0
        }]
    );
    // A backfill started at the head's instant that takes its processors does not count
    // towards the head's shadow time.
    let jobs = vec![
        Job::new(1, 0.0, 10.0, 4, 10.0),
        Job::new(2, 0.0, 50.0, 2, 50.0),
    ];
    let rows = vec![row(1, 0.0, 50.0, 60.0, 4), row(2, 0.0, 0.0, 50.0, 2)];
    let v = check(&jobs, 4, &rows, Contract::Easy).unwrap();
    assert_eq!(
        v,
        vec![Violation::HeadDelayed {
            job: 1,
            head_at: 0.0,
            reservation: 0.0,
            start: 50.0
        }]
    );
    // The EASY schedule is clean.
    let (jobs, rows) = three();
    assert!(check(&jobs, 10, &rows, Contract::Easy).unwrap().is_empty());
}

#[test]
fn conservative_reservation_delayed_is_found() {
    // Job 1 runs to 100 (predicted 100); job 2 arrives at 1 and must be planned by 100;
    // starting it at 150 (after an idle gap) delays it.
    let jobs = vec![
        Job::new(1, 0.0, 100.0, 6, 100.0),
        Job::new(2, 1.0, 50.0, 8, 50.0),
    ];
    let rows = vec![row(1, 0.0, 0.0, 100.0, 6), row(2, 1.0, 150.0, 200.0, 8)];
    let v = check(&jobs, 10, &rows, Contract::Conservative).unwrap();
    assert_eq!(
        v,
        vec![Violation::ReservationDelayed {
            job: 2,
            bound: 100.0,
            start: 150.0
        }]
    );
    // A job queued behind job 2 is bounded by job 2's bound plus its estimate.
    let jobs = [jobs, vec![Job::new(3, 2.0, 10.0, 10, 10.0)]].concat();
    let rows = vec![
        row(1, 0.0, 0.0, 100.0, 6),
        row(2, 1.0, 100.0, 150.0, 8),
        row(3, 2.0, 151.0, 161.0, 10),
    ];
    let v = check(&jobs, 10, &rows, Contract::Conservative).unwrap();
    assert_eq!(
        v,
        vec![Violation::ReservationDelayed {
            job: 3,
            bound: 150.0,
            start: 151.0
        }]
    );
    let cons = schedule_of(&jobs, 10, PolicyKind::Conservative);
    assert!(check(&jobs, 10, &cons, Contract::Conservative)
        .unwrap()
        .is_empty());
}

#[test]
fn bad_checker_input_is_an_error() {
    let (jobs, rows) = three();
    assert!(check(&jobs, 0, &rows, Contract::Easy).is_err());
    let twice = vec![jobs[0], jobs[0]];
    assert!(check(&twice, 10, &rows, Contract::Easy).is_err());
    assert!("easy".parse::<Contract>().is_ok());
    assert_eq!(
        "capacity-only".parse::<Contract>().unwrap(),
        Contract::Capacity
    );
    assert_eq!(
        "lifo".parse::<Contract>().unwrap_err().to_string(),
        "contract = lifo: expected capacity, fcfs, easy or conservative"
    );
}
