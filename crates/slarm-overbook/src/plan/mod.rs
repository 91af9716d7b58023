//! The two plan representations (spec 002 part 1 §9.8): a free-node-count profile for the
//! heuristic strategies and per-node reservation timelines for the comprehensive ones.

mod nodes;
mod profile;

pub use nodes::{NodePlan, NodeReservation};
pub use profile::Profile;

use serde::{Deserialize, Serialize};

use crate::job::Time;

/// A candidate time slot: start, end (exclusive) and, for node plans, the chosen nodes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
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
