//! # slarm-sim
//!
//! The simulation base of slarm (design.md §1, §3; issue 4).
//!
//! - [`kernel`]: a discrete-event kernel — [`kernel::EventQueue`] ordered by (time, priority
//!   class, insertion sequence), [`kernel::Simulation`] (clock + queue) and the
//!   [`kernel::Handler`] trait. The kernel knows no scheduling policy.
//! - [`replication`]: independent seeded replications over `slarm_stats::RngStreams`.
//!
//! Every failure is a [`SimError`].

pub mod error;
pub mod kernel;
pub mod replication;

pub use error::{Result, SimError};
pub use kernel::{EventId, EventQueue, Handler, Simulation};
