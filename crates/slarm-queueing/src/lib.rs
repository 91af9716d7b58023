//! # slarm-queueing
//!
//! Multiclass M/M/m response-time SLAs after Ye Hu, *Resource Allocation Strategies for
//! Multiple Job Classes* (M.Math thesis, Waterloo 2009); technical extraction in
//! `shared/specs/003_bb9b0d440845fcf0.md` ("spec 003").
//!
//! **Model.** Job classes arrive as independent Poisson streams with rate `lambda_i`, all
//! served at exponential rate `mu` by identical nodes; class `i` has the SLA
//! `P(T <= x_i) >= y_i` on its response time. A *strategy* partitions the classes into
//! FCFS pools (DA: one pool per class, SA: one shared pool, mixed otherwise); a pool serving
//! classes `B` is an M/M/m queue with `lambda = sum_B lambda_i` and needs
//! `max_{i in B} m(lambda, SLA_i)` nodes.
//!
//! **Contents.**
//! - [`erlang`]: Erlang B/C by the stable recursion, `P(0)`, the response-time CDF in the
//!   unified stable form ([`Mmm`]) and the thesis's Eq. (4.1) verbatim.
//! - [`sizing`]: Algorithm 1 ([`min_nodes`]): a direct Erlang-B start at `floor(rho) + 1`,
//!   then incremental updates, O(sqrt(rho) + answer - rho) per query.
//! - [`partition`]: set partitions, node counts per strategy, exhaustive optimum.
//! - [`difference`]: `G`, the SLA difference `D`, the DA/SA grid and `f_D`.
//! - [`heuristics`]: the angle table, Algorithms 2 and 3, angle calibration.
//! - [`sim`]: event-driven multiclass simulator (FCFS, HOL, PDP), replications with
//!   Student-t intervals and common random numbers, [`sim::min_nodes_sim`].
//! - [`sampling`] and [`procedures`]: the thesis's random settings and Procedures 1-5.
//!
//! ```
//! use slarm_queueing::{min_nodes, m_da, m_sa, JobClass, Mmm, Sla};
//! let q = Mmm::new(39.9, 1.0, 52).unwrap();
//! assert!((q.response_cdf(3.0) - 0.950014551289).abs() < 1e-12);
//! let strict = Sla::new(3.0, 0.95).unwrap();
//! assert_eq!(min_nodes(39.9, 1.0, strict).unwrap(), 52);
//! let classes = [JobClass::new(0.6, Sla::new(3.0, 0.8).unwrap()).unwrap(),
//!                JobClass::new(3.0, Sla::new(5.0, 0.95).unwrap()).unwrap()];
//! assert_eq!((m_da(&classes, 1.0).unwrap(), m_sa(&classes, 1.0).unwrap()), (6, 5));
//! ```

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
