#![doc = include_str!("../README.md")]
//!
//! ## Modules
//!
//! - [`erlang`]: Erlang B/C by the stable recursion, `P(0)`, the response-time CDF in the
//!   unified stable form ([`Mmm`]) and the thesis's Eq. 4.1 verbatim.
//! - [`sizing`]: Algorithm 1 ([`min_nodes`]): a direct Erlang-B start at `floor(rho) + 1`,
//!   then incremental updates, O(sqrt(rho) + answer - rho) per query;
//!   [`sizing::min_nodes_batch`] answers many queries, skipping the servers below the
//!   previous answer of the same SLA, on a division-free Erlang B whose decisions are kept
//!   only where they are clear of rounding (the answers are always [`min_nodes`]'s).
//! - [`partition`]: set partitions, node counts per strategy, exhaustive optimum.
//! - [`difference`]: `G`, the SLA difference `D`, the DA/SA grid and `f_D`.
//! - [`heuristics`]: the angle table, Algorithms 2 and 3, angle calibration.
//! - [`sim`]: event-driven multiclass simulator (FCFS, HOL, PDP), replications with
//!   Student-t intervals and common random numbers, [`sim::min_nodes_sim`] (each size's
//!   run stops at the completion that settles its SLA verdict).
//! - [`sampling`] and [`procedures`]: the thesis's random settings and Procedures 1-5.

pub mod difference;
pub mod erlang;
pub mod error;
pub mod heuristics;
pub mod partition;
pub mod procedures;
pub mod sampling;
pub mod sim;
pub mod sizing;
pub mod sla;

pub use erlang::{erlang_b, erlang_c, Mmm};
pub use error::{QueueError, Result};
pub use partition::{m_da, m_sa, nodes_for_partition, optimal_partition, Partition, StrategyNodes};
pub use sizing::min_nodes;
pub use sla::{JobClass, Sla};
