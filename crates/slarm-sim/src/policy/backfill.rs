//! [`Backfill`]: backfilling with a reservation depth between EASY and conservative.

use crate::error::Result;
use crate::policy::reservations::Reservations;
use crate::policy::{Candidate, MachineState, PassOutcome, SchedulingPolicy};

/// Backfilling with a reservation depth: the first `K` queued jobs that cannot start hold
/// reservations, the rest start only where they delay none of them. Depth 0 is backfilling
/// without reservations (any job that fits starts), depth 1 is EASY backfilling (Lifka 1995),
/// and a depth at least the queue's length is conservative backfilling (Mu'alem & Feitelson
/// 2001); Flux's scheduler calls `K` the reservation depth.
///
/// The plan is conservative backfilling's
/// ([`ConservativePlanner`](crate::policy::ConservativePlanner)): running jobs until their
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
    book: Reservations,
    /// Waiting jobs holding a reservation.
    holding: usize,
    /// Waiting jobs without one.
    unreserved: usize,
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
            book: Reservations::new("backfill policy"),
            holding: 0,
            unreserved: 0,
        }
    }

    /// The reservation depth (`None`: unbounded).
    pub fn depth(&self) -> Option<usize> {
        (self.depth != usize::MAX).then_some(self.depth)
    }
}

impl SchedulingPolicy for Backfill {
    fn name(&self) -> &str {
        &self.name
    }

    /// Its decisions depend on the machine, the queue and the plan only, which are empty
    /// at an idle instant.
    fn fresh_when_idle(&self) -> bool {
        true
    }

    fn begin(&mut self, capacity: u32, origin: f64) -> Result<()> {
        self.book.begin(capacity, origin)?;
        self.holding = 0;
        self.unreserved = 0;
        Ok(())
    }

    /// A job that arrives while every waiting job holds a reservation and fewer than the
    /// depth do gets its reservation at once, in the plan as it stands (conservative
    /// backfilling's reservation on arrival); any other waits for a pass.
    fn on_arrival(&mut self, now: f64, job: &Candidate) -> Result<Option<f64>> {
        if self.holding < self.depth && self.unreserved == 0 {
            let t = self.book.planner()?.reserve(now, job.procs, job.estimate)?;
            self.book.set(job.key, t);
            self.holding += 1;
            Ok(Some(t))
        } else {
            self.unreserved += 1;
            Ok(None)
        }
    }

    fn on_finish(&mut self, now: f64, job: &Candidate, predicted_end: f64) -> Result<()> {
        self.book.finished(now, job, predicted_end)
    }

    fn on_withdraw(&mut self, _now: f64, job: &Candidate) -> Result<()> {
        if self.book.withdraw(job)? {
            self.holding = self.holding.saturating_sub(1);
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
        self.book.advance(now, queue)?;
        let mut free = i64::from(machine.free);
        let mut wake = f64::INFINITY;
        for (pos, c) in queue.iter().enumerate() {
            let r = self.book.get(c.key);
            if r.is_finite() {
                if r <= now {
                    // Its slot in the plan becomes its run.
                    out.start.push(pos);
                    free -= i64::from(c.procs);
                    self.book.set(c.key, f64::NAN);
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
                let t = self.book.planner()?.reserve(now, c.procs, c.estimate)?;
                self.unreserved = self.unreserved.saturating_sub(1);
                if t <= now {
                    out.start.push(pos);
                    free -= i64::from(c.procs);
                } else {
                    if out.head.is_none() {
                        out.head = Some(pos);
                        out.shadow = Some(t);
                    }
                    self.book.set(c.key, t);
                    self.holding += 1;
                    wake = wake.min(t);
                }
            } else if self.book.planner()?.earliest(now, c.procs, c.estimate)? <= now {
                self.book
                    .planner()?
                    .start_running(now, now + c.estimate, c.procs)?;
                out.start.push(pos);
                free -= i64::from(c.procs);
                // It leaves the waiting jobs without a reservation.
                self.unreserved = self.unreserved.saturating_sub(1);
            }
        }
        out.wake = wake.is_finite().then_some(wake);
        Ok(())
    }
}
