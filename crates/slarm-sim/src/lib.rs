#![doc = include_str!("../README.md")]
//!
//! ## Modules
//!
//! - [`kernel`]: a discrete-event kernel — [`kernel::EventQueue`] ordered by (time, priority
//!   class, insertion sequence) and [`kernel::Simulation`] (clock + queue), which
//!   the simulator's own loop drives (the trace simulator here and slarm-grid's). The kernel
//!   knows no scheduling policy.
//! - [`replication`]: independent seeded replications over `slarm_stats::RngStreams`.
//! - [`machine`]: the space-shared machine (processors, optionally nodes).
//! - [`profile`]: the availability profile (free processors over time, earliest-fit
//!   queries) as a flat step function, with the planning mode of overbooking schedulers;
//!   conservative backfilling keeps its plan in a time-indexed variant of it (sorted blocks
//!   with their minimum and maximum free counts) inside [`policy::ConservativePlanner`].
//! - [`policy`]: the [`policy::SchedulingPolicy`] trait and its FCFS, EASY,
//!   conservative-backfilling and reservation-depth ([`policy::Backfill`]) implementations,
//!   plus their reusable passes and planner.
//! - [`batch`]: the trace-driven simulator ([`batch::simulate_with`] for any policy,
//!   [`batch::simulate`] for the built-in ones) with configurable queue order (FCFS, SJF,
//!   caller key such as EDF) and optional expiry of waiting jobs; [`batch::Replay`] runs the
//!   same simulation fed its jobs as a log is read, and [`batch::simulate_in_parts`] runs
//!   it split at the instants where the machine is idle, on several threads, with the same
//!   schedule.
//! - [`metrics`]: wait, response, bounded slowdown, utilisation, makespan; schedule CSV.
//! - [`batsim`]: a processor assignment for a schedule and Batsim's `jobs.csv`.
//! - [`failures`]: exponential node failure/repair processes and failure-trace replay.
//!
//! Every failure is a [`SimError`].

pub mod batch;
pub mod batsim;
pub mod error;
pub mod failures;
pub mod kernel;
pub mod machine;
pub mod metrics;
pub mod policy;
pub mod profile;
pub mod replication;
mod timeline;
mod wait_queue;

pub use error::{PolicyNameError, Result, SimError};
#[allow(deprecated)]
pub use kernel::Handler;
pub use kernel::{EventId, EventQueue, Simulation};
