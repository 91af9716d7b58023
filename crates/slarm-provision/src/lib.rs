#![doc = include_str!("../README.md")]
//!
//! ## Modules
//!
//! Monte Carlo (common random numbers, one stream per purpose and run, fixed chunks of runs,
//! the same bits for any thread count) builds the confidence table `g_s(p)` ([`gtable`],
//! NONE = `None`; §4.2.3) and the one-interval transitions `k_s(q, n, m)` with the bound
//! `K_s` ([`ktable`]; §4.3.4), both on the FCFS kernels of [`queue`]; [`tables`] bundles them
//! with their Monte Carlo sizes; [`exact`] holds the validators (pure-death chain, saturated
//! convolution, backward Kolmogorov equation). [`dp`] runs the backward recursion for `L`,
//! `L'`, `L''` with argmin tables ([`dp::Plan`]; §4.3.4-§4.3.6). [`arrival`] is the thesis's
//! arrival generator (Eq. 5.1), [`cost`] the cost functions `c_t` (Eq. 4.1, Fig. 5.4),
//! [`params`] the model parameters. [`policy`] implements H1-H5 and static allocations behind
//! [`Policy`]; [`evaluate`] simulates the controlled cluster and aggregates the per-run
//! metrics (§5.4). The tables are `ndarray` arrays, re-exported as [`ndarray`].
//!
//! ```
//! use slarm_provision::{ArrivalProfile, Params};
//! let p = Params::thesis().validated().unwrap();
//! assert_eq!(p.gamma(), 345); // Eq. 4.6
//! assert!((ArrivalProfile::thesis().a(28_800.0) - 0.5).abs() < 1e-4); // Eq. 5.1
//! ```

pub mod arrival;
pub mod cost;
pub mod dp;
pub mod error;
pub mod evaluate;
pub mod exact;
pub mod gtable;
pub mod ktable;
#[cfg(feature = "serde")]
mod nd_serde;
mod par;
pub mod params;
pub mod policy;
pub mod queue;
pub mod tables;

pub use ndarray;

pub use arrival::ArrivalProfile;
pub use cost::{Cost, CostFunction, CostShape};
pub use error::{ProvisionError, Result};
pub use gtable::GTable;
pub use params::{NextTable, Params, TieBreak, MAX_GAMMA};
#[allow(deprecated)]
pub use policy::PolicyKind;
pub use policy::{Heuristic, Policy};
pub use tables::{McSizes, Tables};
