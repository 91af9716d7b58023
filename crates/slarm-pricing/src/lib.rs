#![doc = include_str!("../README.md")]
//!
//! ## Modules
//!
//! - [`spec`]: the four-segment job specification ([`spec::JobSpec`]) and a submitted job
//!   with its arrival, real runtime and urgency class ([`spec::QosJob`]).
//! - [`pricing`]: the [`pricing::PricingPolicy`] trait with [`pricing::LibraPlusDollar`]
//!   (`α·PBase + β·PUtil`, also over several resources), [`pricing::LibraStatic`]
//!   (`γ·RE + δ·RE/D`) and [`pricing::FixedRate`] (`RE·PBase`).
//! - [`admission`]: Algorithm 1 ([`admission::admit`]) and the placement of an accepted job.
//! - [`node`]: time-shared nodes ([`node::TimeSharedNode`]) with Algorithm 2's job control.
//! - [`online`]: a live cluster ([`online::Cluster`]) a manager advances with time, with
//!   side-effect-free price quotes ([`online::Cluster::quote`]) and submissions.
//! - [`timeshare`]: a whole workload under Libra or Libra+$
//!   ([`timeshare::simulate_time_shared`]).
//! - [`backfill`]: the space-shared EASY baselines (FCFS, SJF and EDF priority) on
//!   `slarm-sim`.
//! - [`metrics`]: Job QoS Satisfaction and Cluster Profitability (eqs. 7-8) with diagnostics
//!   ([`metrics::evaluate`]).
//! - [`workload`] and [`scenario`]: the evaluation set-up (SDSC-SP2 subset or a calibrated
//!   synthetic stand-in, QoS synthesis, the Table I preset) and one run of a policy.

pub mod admission;
pub mod backfill;
pub mod config;
pub mod error;
pub mod metrics;
pub mod node;
pub mod online;
pub mod pricing;
pub mod scenario;
pub mod spec;
pub mod timeshare;
pub mod workload;

pub use error::{PricingError, Result};
