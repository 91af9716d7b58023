//! # slarm-provision
//!
//! Cost-aware dynamic provisioning of a batch cluster with a common completion deadline:
//! L. G. A. Sung, *Autonomic Resource Management for a Cluster that Executes Batch Jobs*
//! (MMath thesis, Waterloo 2006), as extracted in `shared/specs/000_3ce2c9c407c4e766.md`.
//!
//! **Model.** One FCFS queue, `p_min..=p_max` identical servers, exponential service, jobs
//! arriving during `[0, u]` from the thesis's profile generator ([`ArrivalProfile`]), one
//! common deadline `d`, decisions every interval. Servers cost `c_t` per unit time
//! ([`CostFunction`]; the five presets are the spec's *reconstruction* of Fig. 5.4) from the
//! start of deployment (`r_1`) to the end of removal (`r_2`). The SLA is
//! `Pr[all jobs done by d] >= y`.
//!
//! **Pipeline.** Monte Carlo (common random numbers, one stream per purpose and run, rayon
//! over fixed chunks, the same bits for any thread count) builds the confidence table
//! `g_s(p)` ([`gtable`], NONE = `None`) and the one-interval transitions `k_s(q, n, m)` with
//! the bound `K_s` ([`ktable`]), both on the FCFS kernels of [`queue`]; [`tables`] holds their
//! Monte Carlo sizes; [`exact`] holds the validators (pure-death chain, saturated convolution,
//! Appendix A's Kolmogorov ODE) and [`reference`](mod@reference) the spec's published and derived values.
//! [`dp`] runs the backward recursion for `L`, `L'`, `L''` with argmin tables ([`dp::Plan`]).
//! [`policy`] implements H1-H5 and static allocations behind [`Policy`]; [`evaluate`]
//! simulates the controlled cluster and aggregates the per-run metrics; [`experiments`]
//! reproduces the thesis's Chapter 5 (paper key `sung2006`).
//!
//! ```
//! use slarm_provision::{ArrivalProfile, Params};
//! let p = Params::thesis().validated().unwrap();
//! assert_eq!(p.gamma(), 345);
//! assert!((ArrivalProfile::thesis().a(28_800.0) - 0.5).abs() < 1e-4);
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
pub use params::{NextTable, Params, TieBreak};
pub use policy::{Policy, PolicyKind};
pub use tables::{McSizes, Tables};
