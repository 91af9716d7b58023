#![doc = include_str!("../README.md")]
//!
//! ## Modules
//!
//! - [`job::SlaJob`], [`job::JobState`], [`job::Reservation`]: the SLA job model;
//! - [`slarm_stats::RatioDist`] (learned by [`classes::ClassRegistry`]): empirical 101-bin
//!   distributions of `omega/x` per runtime / resource / user / application class;
//! - [`failure::FailureModel`] (exponential, Weibull, hyper-exponential with the corrected
//!   survival forms), [`failure::FailureSource`] (trace replay, synthetic Poisson);
//! - [`grid`] and [`pos`]: heuristic and comprehensive PoS (joint start CDF of the
//!   predecessors convolved with the job's runtime PDF);
//! - [`acceptance::AcceptanceTest`]: PoF threshold, risk/opportunity, risk with security factor;
//! - [`plan::NodePlan`] (per-node timelines) and [`plan::Profile`] (free-node counts);
//! - [`strategy::Strategy`] and [`sim::simulate_battery`]: the four strategies and the
//!   discrete-event simulator of a battery of jobs ([`sim::failure_horizon`]: how far its node
//!   events must reach); [`workload`]: preparing a job log into training jobs and batteries;
//! - [`planner::OnlinePlanner`]: the online planner a live scheduler holds (offer, accept,
//!   reject, machine events, a view of the plan); the battery simulation drives it;
//! - [`clock`]: thread CPU time, the clock of negotiation latencies.
//!
//! From `slarm-sim` (the shared simulation layer) the crate uses the availability profile:
//! [`plan::Profile`] is [`slarm_sim::profile::Profile`] built with
//! [`Profile::planning`](slarm_sim::profile::Profile::planning) (free counts may go negative
//! in an overbooked plan; every reservation boundary is a candidate start) and queried with `gaps`, `earliest_fit_until`, `free_until` and `first_negative`. The node
//! failure sources, the event loop, the node-level plan, PoS, tests and strategies stay here:
//! they are specific to this model (docs/architecture.md says why for each). `slarm-pricing` is
//! not used: fees and penalties are plain VC numbers of the SLA.
//!
//! ```
//! use slarm_overbook::{failure::FailureModel, pos::heuristic_pos};
//! use slarm_stats::{RatioDist, Rounding};
//! let d = RatioDist::learn([(1800.0, 3600.0), (3600.0, 3600.0)], Rounding::Up).unwrap();
//! let p = heuristic_pos(&d, 3600, 1800, 4, &FailureModel::default());
//! assert!(p.pof() > 0.5 && p.pof() < 0.51);
//! ```

pub mod acceptance;
pub mod classes;
pub mod clock;
pub mod error;
pub mod failure;
pub mod grid;
pub mod job;
mod memo;
pub mod pos;

pub use error::{OverbookError, Result};
pub mod plan;
pub mod planner;
pub mod sim;
pub mod strategy;
pub mod workload;
