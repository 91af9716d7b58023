//! The two plan representations: a free-node-count profile for the
//! heuristic strategies (the shared [`slarm_sim::profile::Profile`], built with
//! [`Profile::planning`] so that it may go negative and keeps every reservation boundary as a
//! candidate start) and per-node reservation timelines for the comprehensive ones.

mod nodes;
mod sweep;

pub use nodes::{NodePlan, NodeReservation};
pub use slarm_sim::profile::Profile;
pub use sweep::NodeSweep;

use crate::job::Time;

/// A plan time on the shared profile's clock (integer seconds below 2^53 are exact in `f64`).
pub(crate) fn secs(t: Time) -> f64 {
    t as f64
}

/// A profile time back in integer seconds (the profile's infinity saturates to `Time::MAX`).
pub(crate) fn time(t: f64) -> Time {
    t as Time
}

/// A candidate time slot: start, end (exclusive) and, for node plans, the chosen nodes.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Slot {
    /// Slot start.
    pub start: Time,
    /// Slot end (capped at the deadline).
    pub end: Time,
    /// Concrete nodes (node plans only).
    pub nodes: Vec<usize>,
}

impl Slot {
    /// Slot length `l`.
    pub fn len(&self) -> Time {
        self.end - self.start
    }

    /// True for an empty slot.
    pub fn is_empty(&self) -> bool {
        self.end <= self.start
    }
}
