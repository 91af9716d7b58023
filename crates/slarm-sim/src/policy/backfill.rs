//! [`Backfill`]: backfilling with a reservation depth between EASY and conservative.

use crate::error::{Result, SimError};
use crate::policy::{Candidate, ConservativePlanner, MachineState, PassOutcome, SchedulingPolicy};

/// Backfilling with a reservation depth: the first `K` queued jobs that cannot start hold
/// reservations, the rest start only where they delay none of them. Depth 0 is backfilling
/// without reservations (any job that fits starts), depth 1 is EASY backfilling (Lifka 1995),
/// and a depth at least the queue's length is conservative backfilling (Mu'alem & Feitelson
/// 2001); Flux's scheduler calls `K` the reservation depth.
///
/// The plan is conservative backfilling's ([`ConservativePlanner`]): running jobs until their
/// predicted end and the reservations. A job that arrives while every waiting job holds a
/// reservation, and fewer than `K` do, gets its own at once. At each pass, in queue order, a job holding a
/// reservation starts when it begins; a job without one starts now if it fits the plan from now
/// for its whole estimate, else it gets a reservation at its earliest fit if fewer than `K` jobs
/// hold one, else it waits. An early completion or a job leaving the queue compresses the
/// reservations at the next pass (each, in queue order, moves to its earliest start, never
/// later), as conservative backfilling does.
///
/// The tests of slarm-sim show on real traces that depth 1 gives [`crate::policy::Easy`]'s
/// schedule and an unbounded depth [`crate::policy::Conservative`]'s, job for job.
///
/// ```
/// use slarm_sim::batch::{simulate_with, QueueOrder};
/// use slarm_sim::policy::Backfill;
/// use slarm_workload::Job;
///
/// let jobs = vec![
///     Job::new(1, 0.0, 100.0, 6, 100.0),
///     Job::new(2, 1.0, 50.0, 8, 50.0),   // waits for job 1
///     Job::new(3, 2.0, 500.0, 4, 500.0), // fits now, but would delay job 2's reservation
/// ];
/// let easy = simulate_with(&jobs, 10, &mut Backfill::new(Some(1)), &QueueOrder::Fcfs, None)?;
/// let none = simulate_with(&jobs, 10, &mut Backfill::new(Some(0)), &QueueOrder::Fcfs, None)?;
/// let starts = |s: &slarm_sim::batch::Schedule| s.records.iter().map(|r| r.start).collect::<Vec<_>>();
/// assert_eq!(starts(&easy), vec![0.0, 100.0, 150.0]);
/// assert_eq!(starts(&none), vec![0.0, 502.0, 2.0]);
/// assert_eq!((easy.policy.as_str(), none.policy.as_str()), ("backfill:1", "backfill:0"));
/// # Ok::<(), slarm_sim::SimError>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Backfill {
    depth: usize,
    name: String,
    planner: Option<ConservativePlanner>,
    /// Reservation per job key (NaN: none).
    reserved: Vec<f64>,
    /// Waiting jobs holding a reservation.
    holding: usize,
    /// Waiting jobs without one.
    unreserved: usize,
    /// Processors were freed early (or a reservation dropped) since the last compression.
    compress: bool,
    items: Vec<(f64, u32, f64)>,
    positions: Vec<usize>,
}

impl Backfill {
    /// Backfilling with `depth` reservations (`None`: every queued job holds one, which is
    /// conservative backfilling).
    pub fn new(depth: Option<u32>) -> Self {
        let (depth, name) = match depth {
            Some(k) => (
                usize::try_from(k).unwrap_or(usize::MAX),
                format!("backfill:{k}"),
            ),
            None => (usize::MAX, "backfill:all".to_string()),
        };
        Self {
            depth,
            name,
            planner: None,
            reserved: Vec::new(),
            holding: 0,
            unreserved: 0,
            compress: false,
            items: Vec::new(),
            positions: Vec::new(),
        }
    }

    /// The reservation depth (`None`: unbounded).
    pub fn depth(&self) -> Option<usize> {
        (self.depth != usize::MAX).then_some(self.depth)
    }

    fn planner(&mut self) -> Result<&mut ConservativePlanner> {
        self.planner.as_mut().ok_or(SimError::InvalidParameter {
            name: "backfill policy",
            value: "not started".into(),
            reason: "call begin() before the first event",
        })
    }

    fn reservation(&self, key: usize) -> f64 {
        self.reserved.get(key).copied().unwrap_or(f64::NAN)
    }

    fn set_reservation(&mut self, key: usize, t: f64) {
        if key >= self.reserved.len() {
            self.reserved.resize(key + 1, f64::NAN);
        }
        self.reserved[key] = t;
    }
}

impl SchedulingPolicy for Backfill {
    fn name(&self) -> &str {
        &self.name
    }

    fn begin(&mut self, capacity: u32, origin: f64) -> Result<()> {
        self.planner = Some(ConservativePlanner::new(capacity, origin)?);
        self.reserved.clear();
        self.holding = 0;
        self.unreserved = 0;
        self.compress = false;
        Ok(())
    }

    /// A job that arrives while every waiting job holds a reservation and fewer than the
    /// depth do gets its reservation at once, in the plan as it stands (conservative
    /// backfilling's reservation on arrival); any other waits for a pass.
    fn on_arrival(&mut self, now: f64, job: &Candidate) -> Result<Option<f64>> {
        if self.holding < self.depth && self.unreserved == 0 {
            let t = self.planner()?.reserve(now, job.procs, job.estimate)?;
            self.set_reservation(job.key, t);
            self.holding += 1;
            Ok(Some(t))
        } else {
            self.unreserved += 1;
            Ok(None)
        }
    }

    fn on_finish(&mut self, now: f64, job: &Candidate, predicted_end: f64) -> Result<()> {
        if predicted_end > now {
            self.planner()?.cancel(now, predicted_end, job.procs)?;
            self.compress = true;
        }
        Ok(())
    }

    fn on_withdraw(&mut self, _now: f64, job: &Candidate) -> Result<()> {
        let r = self.reservation(job.key);
        if r.is_finite() {
            self.planner()?.cancel(r, r + job.estimate, job.procs)?;
            self.set_reservation(job.key, f64::NAN);
            self.holding = self.holding.saturating_sub(1);
            self.compress = true;
        } else {
            self.unreserved = self.unreserved.saturating_sub(1);
        }
        Ok(())
    }

    fn schedule(
        &mut self,
        machine: &MachineState<'_>,
        queue: &[Candidate],
        out: &mut PassOutcome,
    ) -> Result<()> {
        let now = machine.now;
        out.clear();
        self.planner()?.advance(now);
        if std::mem::take(&mut self.compress) && self.holding > 0 {
            let mut items = std::mem::take(&mut self.items);
            let mut positions = std::mem::take(&mut self.positions);
            items.clear();
            positions.clear();
            for (pos, c) in queue.iter().enumerate() {
                let r = self.reservation(c.key);
                if r.is_finite() {
                    items.push((r, c.procs, c.estimate));
                    positions.push(pos);
                }
            }
            self.planner()?.compress(now, &mut items)?;
            for (&pos, it) in positions.iter().zip(&items) {
                self.set_reservation(queue[pos].key, it.0);
            }
            self.items = items;
            self.positions = positions;
        }
        let mut free = i64::from(machine.free);
        let mut wake = f64::INFINITY;
        for (pos, c) in queue.iter().enumerate() {
            let r = self.reservation(c.key);
            if r.is_finite() {
                if r <= now {
                    // Its slot in the plan becomes its run.
                    out.start.push(pos);
                    free -= i64::from(c.procs);
                    self.set_reservation(c.key, f64::NAN);
                    self.holding -= 1;
                } else {
                    wake = wake.min(r);
                }
                continue;
            }
            let may_reserve = self.holding < self.depth;
            if !may_reserve && i64::from(c.procs) > free {
                continue; // cannot start now, and no reservation is left for it
            }
            if may_reserve {
                let t = self.planner()?.reserve(now, c.procs, c.estimate)?;
                self.unreserved = self.unreserved.saturating_sub(1);
                if t <= now {
                    out.start.push(pos);
                    free -= i64::from(c.procs);
                } else {
                    if out.head.is_none() {
                        out.head = Some(pos);
                        out.shadow = Some(t);
                    }
                    self.set_reservation(c.key, t);
                    self.holding += 1;
                    wake = wake.min(t);
                }
            } else if self.planner()?.earliest(now, c.procs, c.estimate)? <= now {
                self.planner()?
                    .start_running(now, now + c.estimate, c.procs)?;
                out.start.push(pos);
                free -= i64::from(c.procs);
            }
        }
        out.wake = wake.is_finite().then_some(wake);
        Ok(())
    }
}
