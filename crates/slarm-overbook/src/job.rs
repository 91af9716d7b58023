//! Jobs with SLA terms, their outcome states and reservations (Birkenheuer 2012, §2.1.1, Table 3.1, Table 5.1).

use crate::error::{OverbookError, Result};

/// Simulation time in integer seconds (the trace's own clock after load compression).
pub type Time = i64;

/// Seconds per hour: one virtual coin (VC) is one booked node-hour (Table 5.1: `fee = n·x` in node-hours).
pub const SECONDS_PER_HOUR: f64 = 3600.0;

/// A job under an SLA: `[o, e, x, omega, d, n]` plus the class attributes and the money terms
/// (the trace-level job is `slarm_workload::Job`; this one adds the release time, deadline,
/// fee and penalty of Birkenheuer 2012, Table 5.1).
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct SlaJob {
    /// Identifier (unique within a battery).
    pub id: u64,
    /// Occurrence (negotiation) time `o`.
    pub occurrence: Time,
    /// Release time `e` (earliest start).
    pub release: Time,
    /// User-estimated runtime `x` in seconds (the booked length).
    pub estimate: Time,
    /// Real runtime `omega` in seconds: known to the simulator only.
    pub runtime: Time,
    /// Deadline `d` (latest end).
    pub deadline: Time,
    /// Number of requested nodes `n`.
    pub nodes: usize,
    /// Submitting user (SWF field 12), if known.
    pub user: Option<i64>,
    /// Application / executable (SWF field 14), if known.
    pub app: Option<i64>,
    /// Fee earned on success, in VC.
    pub fee: f64,
    /// Penalty paid on failure, in VC.
    pub penalty: f64,
}

/// The former name of [`SlaJob`].
#[deprecated(since = "0.1.0", note = "renamed to `SlaJob`")]
pub type Job = SlaJob;

impl SlaJob {
    /// Creates a job with the evaluation's SLA synthesis (Table 5.1): `e = o`, `d = o + 2x`,
    /// `fee = n·x` node-hours and `penalty = ratio · fee`.
    ///
    /// ```
    /// use slarm_overbook::job::SlaJob;
    /// let j = SlaJob::with_sla(1, 0, 7200, 3600, 4, 2.0).unwrap();
    /// assert_eq!(j.deadline, 14_400);
    /// assert!((j.fee - 8.0).abs() < 1e-12 && (j.penalty - 16.0).abs() < 1e-12);
    /// ```
    pub fn with_sla(
        id: u64,
        occurrence: Time,
        estimate: Time,
        runtime: Time,
        nodes: usize,
        penalty_ratio: f64,
    ) -> Result<Self> {
        slarm_stats::check::non_negative("penalty_ratio", penalty_ratio)?;
        let fee = nodes as f64 * estimate as f64 / SECONDS_PER_HOUR;
        let job = SlaJob {
            id,
            occurrence,
            release: occurrence,
            estimate,
            runtime,
            deadline: occurrence.saturating_add(estimate.saturating_mul(2)),
            nodes,
            user: None,
            app: None,
            fee,
            penalty: fee * penalty_ratio,
        };
        job.validate()?;
        Ok(job)
    }

    /// Checks the job's internal consistency.
    pub fn validate(&self) -> Result<()> {
        let bad = |reason: &str| {
            Err(OverbookError::InvalidJob {
                id: self.id,
                reason: reason.to_string(),
            })
        };
        if self.nodes == 0 {
            return bad("needs at least one node");
        }
        if self.estimate <= 0 {
            return bad("estimate must be positive");
        }
        if self.runtime < 0 {
            return bad("runtime must be non-negative");
        }
        if self.release < self.occurrence {
            return bad("release before occurrence");
        }
        if self.deadline < self.release.saturating_add(1) {
            return bad("deadline not after release");
        }
        if !self.fee.is_finite()
            || self.fee < 0.0
            || !self.penalty.is_finite()
            || self.penalty < 0.0
        {
            return bad("fee and penalty must be finite and non-negative");
        }
        Ok(())
    }

    /// Booked node-hours `n·x/3600` (the fee basis).
    pub fn node_hours(&self) -> f64 {
        self.nodes as f64 * self.estimate as f64 / SECONDS_PER_HOUR
    }
}

/// The life-cycle state of a job (thesis §5.2.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum JobState {
    /// Accepted and waiting in the plan.
    Planned,
    /// Running on its nodes.
    Running,
    /// Lost its nodes to a crash; waiting to be restarted.
    Disabled,
    /// Completed, or received its full estimate.
    Succeeded,
    /// Killed at its slot end before completing, or lost to a crash.
    Failed,
    /// Rejected at negotiation: no fee, no penalty.
    Dropped,
}

impl JobState {
    /// True for the three final states.
    pub fn is_final(self) -> bool {
        matches!(
            self,
            JobState::Succeeded | JobState::Failed | JobState::Dropped
        )
    }
}

/// A reservation in the plan: where and how long a job may run (thesis §3.1).
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Reservation {
    /// Planned start.
    pub start: Time,
    /// Slot end: the job is killed here (start of the next planned job, or the deadline).
    pub slot_end: Time,
    /// Allotted runtime `min(x, l)`.
    pub allotted: Time,
    /// Concrete nodes (comprehensive plans only).
    pub nodes: Option<Vec<usize>>,
    /// Probability of failure computed at negotiation.
    pub pof: f64,
    /// True when the slot is shorter than the estimate.
    pub overbooked: bool,
}
