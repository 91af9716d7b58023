//! # slarm-overbook
//!
//! Risk-aware overbooking for SLA planning schedulers, after Birkenheuer, *Risk Aware
//! Overbooking for SLA Based Scheduling Systems* (dissertation, Paderborn 2012); extraction in
//! `shared/specs/002_b4572db5accfb309_part1.md` (model) and `..._part2.md` (evaluation).
//!
//! A provider plans jobs (not queues them) under SLAs `[o, e, x, omega, d, n, fee, penalty]`
//! and kills each job at the end of its reserved slot. Users overestimate their runtimes, so a
//! job may be placed in a gap shorter than its estimate ("overbooked") when its probability
//! of success (PoS) passes an acceptance test. PoS = P(nodes up at start) · P(job finishes in
//! the slot) · P(nodes survive the booked time).
//!
//! Main types:
//! - [`job::Job`], [`job::JobState`], [`job::Reservation`]: the SLA job model;
//! - [`ratio::RatioDistribution`] and [`classes::ClassRegistry`]: empirical 101-bin
//!   distributions of `omega/x` per runtime / resource / user / application class;
//! - [`failure::FailureModel`] (exponential, Weibull, hyper-exponential with the corrected
//!   survival forms), [`failure::FailureSource`] (trace replay, synthetic Poisson);
//! - [`grid`] and [`pos`]: heuristic and comprehensive PoS (joint start CDF of the
//!   predecessors convolved with the job's runtime PDF);
//! - [`acceptance::AcceptanceTest`]: PoF threshold, risk/opportunity, risk with security factor;
//! - [`plan::NodePlan`] (per-node timelines) and [`plan::Profile`] (free-node counts);
//! - [`strategy::Strategy`] and [`sim::simulate_battery`]: the four strategies and the
//!   discrete-event simulator; [`workload`] and [`harness`]: trace preparation and batteries;
//! - [`experiments::Birkenheuer2012`]: the `slarm reproduce birkenheuer2012` experiment;
//! - [`clock`]: thread CPU time, the clock of negotiation latencies.
//!
//! From `slarm-sim` (the shared simulation layer, design.md §1) the crate uses the availability
//! profile: [`plan::Profile`] is [`slarm_sim::profile::Profile`] built with
//! [`Profile::planning`](slarm_sim::profile::Profile::planning) (free counts may go negative
//! in an overbooked plan; every reservation boundary is a candidate start, part 1 §8 A3) and
//! queried with `gaps`, `earliest_fit_until`, `free_until` and `first_negative`. The node
//! failure sources, the event loop, the node-level plan, PoS, tests and strategies stay here:
//! they are specific to spec 002 (docs/architecture.md says why for each). `slarm-pricing` is
//! not used: fees and penalties are plain VC numbers of the SLA.
//!
//! ```
//! use slarm_overbook::{failure::FailureModel, pos::heuristic_pos, ratio::RatioDistribution};
//! let d = RatioDistribution::learn([(1800, 3600), (3600, 3600)], Default::default()).unwrap();
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
pub mod pos;
pub mod ratio;

pub use error::{OverbookError, Result};
pub mod experiments;
pub mod harness;
pub mod plan;
pub mod sim;
pub mod strategy;
pub mod workload;
