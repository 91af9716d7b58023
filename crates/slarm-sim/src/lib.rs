//! # slarm-sim
//!
//! The simulation base of slarm (design.md §1, §3; issue 4).
//!
//! - [`kernel`]: a discrete-event kernel — [`kernel::EventQueue`] ordered by (time, priority
//!   class, insertion sequence), [`kernel::Simulation`] (clock + queue) and the
//!   [`kernel::Handler`] trait. The kernel knows no scheduling policy.
//! - [`replication`]: independent seeded replications over `slarm_stats::RngStreams`.
//! - [`machine`]: the space-shared machine (processors, optionally nodes).
//! - [`profile`]: the availability profile (free processors over time, earliest-fit
//!   queries) shared by EASY, conservative backfilling and planning schedulers.
//! - [`policy`]: reusable FCFS / EASY / conservative scheduling passes.
//! - [`batch`]: the trace-driven simulator ([`batch::simulate`]) with configurable queue
//!   order (FCFS, SJF, caller key such as EDF) and optional expiry of waiting jobs.
//! - [`metrics`]: wait, response, bounded slowdown, utilisation, makespan; schedule CSV.
//! - [`failures`]: exponential node failure/repair processes and failure-trace replay.
//!
//! Every failure is a [`SimError`].
//!
//! ```
//! use slarm_sim::{batch::{simulate, BatchConfig}, metrics::Metrics, policy::PolicyKind};
//! use slarm_workload::Job;
//!
//! let jobs: Vec<Job> = (0..20)
//!     .map(|i| Job::new(i, i as f64 * 10.0, 100.0 + i as f64, 1 + (i % 4) as i64, 150.0))
//!     .collect();
//! for policy in [PolicyKind::Fcfs, PolicyKind::Easy, PolicyKind::Conservative] {
//!     let s = simulate(&jobs, 6, &BatchConfig::new(policy))?;
//!     assert_eq!(s.records.len(), 20);
//!     assert!(Metrics::of(&s, 10.0).utilization <= 1.0);
//! }
//! # Ok::<(), slarm_sim::SimError>(())
//! ```

pub mod batch;
pub mod error;
pub mod failures;
pub mod kernel;
pub mod machine;
pub mod metrics;
pub mod policy;
pub mod profile;
pub mod replication;

pub use error::{Result, SimError};
pub use kernel::{EventId, EventQueue, Handler, Simulation};
