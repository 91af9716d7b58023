//! # slarm-testing
//!
//! A testing kit for anyone writing a batch scheduler or a model on top of slarm:
//!
//! - [`strategies`]: [proptest](https://docs.rs/proptest) strategies for trace jobs and
//!   whole traces with realistic ranges (run times from seconds to days, power-of-two
//!   widths, over- and under-estimated run times), probability mass functions on time grids
//!   and stable M/M/m queues.
//! - [`schedule`]: the schedule CSV `job_id,submit,start,end,procs` (what
//!   `slarm simulate --schedule-out` writes), read with typed errors that name the line.
//! - [`check`](mod@check): a schedule checker that takes a trace, a schedule and a [`Contract`]
//!   (capacity only, FCFS, EASY or conservative backfilling after Mu'alem & Feitelson 2001)
//!   and returns *every* [`Violation`], not only the first.
//!
//! ```
//! use slarm_sim::batch::{simulate, BatchConfig};
//! use slarm_sim::policy::PolicyKind;
//! use slarm_testing::{check, Contract, ScheduledJob};
//! use slarm_workload::Job;
//!
//! let jobs = vec![
//!     Job::new(1, 0.0, 100.0, 6, 100.0),
//!     Job::new(2, 1.0, 50.0, 8, 50.0),
//!     Job::new(3, 2.0, 90.0, 4, 90.0),
//! ];
//! let s = simulate(&jobs, 10, &BatchConfig::new(PolicyKind::Easy))?;
//! let schedule: Vec<ScheduledJob> = s.records.iter().map(ScheduledJob::from).collect();
//! assert!(check(&jobs, 10, &schedule, Contract::Easy)?.is_empty());
//! // Job 3 backfilled: not a FCFS schedule.
//! assert_eq!(check(&jobs, 10, &schedule, Contract::Fcfs)?.len(), 1);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod batsim;
pub mod check;
pub mod error;
pub mod schedule;
pub mod strategies;

pub use check::{check, Contract, Violation};
pub use error::TestingError;
pub use schedule::{read_schedule_csv, ScheduledJob};
