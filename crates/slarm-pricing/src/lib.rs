//! # slarm-pricing
//!
//! Utility-driven cluster resource management after C. S. Yeo and R. Buyya, "Pricing for
//! Utility-driven Resource Management and Allocation in Clusters" (spec
//! `shared/specs/001_151553a604b2d5c2.md`).
//!
//! The model: users submit jobs with a four-segment specification ([`spec::JobSpec`]:
//! runtime estimate, resources, deadline and budget, optimisation goal). Economy-based
//! admission control ([`admission::admit`], Algorithm 1) accepts a job only if PROC_i
//! nodes can finish it by its deadline under proportional share and each charges no more
//! than its budget; the job pays the maximum per-node cost of a [`pricing::PricingPolicy`]
//! ([`pricing::LibraPlusDollar`] `α·PBase + β·PUtil`, [`pricing::LibraStatic`] `γ·RE +
//! δ·RE/D`, [`pricing::FixedRate`]). Accepted jobs run at once on time-shared nodes
//! ([`node::TimeSharedNode`]) whose job control gives each process the partition
//! `(RE - clockCPU)/(D - clockWall)` (Algorithm 2). [`timeshare::simulate_time_shared`] runs
//! a whole workload; [`backfill`] runs the space-shared EASY baselines (FCFS, SJF, EDF
//! priority) on `slarm-sim`; [`metrics::evaluate`] computes Job QoS Satisfaction and Cluster
//! Profitability (eqs. 7, 8) and the diagnostics. [`workload`] builds the evaluation set-up
//! of spec §3 (SDSC-SP2 subset or a calibrated synthetic stand-in, QoS synthesis, Table I
//! preset).
//!
//! ```
//! use slarm_pricing::pricing::{LibraPlusDollar, PricingPolicy};
//! use slarm_pricing::spec::{Job, JobSpec, Urgency};
//! use slarm_pricing::timeshare::{simulate_time_shared, TimeSharedConfig};
//! use slarm_pricing::metrics::evaluate;
//!
//! let jobs: Vec<Job> = (0..4)
//!     .map(|i| Job::new(JobSpec::simple(i, 100.0, 1, 200.0, 300.0).unwrap(),
//!                       i as f64 * 10.0, 100.0, Urgency::High).unwrap())
//!     .collect();
//! let cfg = TimeSharedConfig::homogeneous(2, 168.0).unwrap();
//! let out = simulate_time_shared(&jobs, &LibraPlusDollar::new(1.0, 0.1, 1.0).unwrap(), &cfg).unwrap();
//! let m = evaluate(&jobs, &out, 2).unwrap();
//! assert_eq!(m.accepted, 4); // two half-shares per node
//! assert_eq!(m.deadline_misses, 0);
//! ```

pub mod admission;
pub mod backfill;
pub mod error;
pub mod metrics;
pub mod node;
pub mod pricing;
pub mod scenario;
pub mod spec;
pub mod timeshare;
pub mod workload;

pub use error::{PricingError, Result};
