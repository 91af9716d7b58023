//! Conservative backfilling (Mu'alem & Feitelson 2001): every queued job holds a reservation
//! in an availability profile indexed by time; a job starts when its reservation begins, and
//! an early completion (or a job leaving the queue) compresses the plan: each reservation in
//! queue order moves to its earliest feasible start, never later than before.
//!
//! [`ConservativePlanner`] is the plan; [`Conservative`] is the [`SchedulingPolicy`] that
//! drives it from the simulator's events.

use crate::error::{check_time, Result};
use crate::policy::reservations::Reservations;
use crate::policy::{Candidate, MachineState, PassOutcome, SchedulingPolicy};
use crate::timeline::Timeline;

/// How many shapes' floors a compression keeps (the most recent): a deep queue is mostly
/// runs of one shape, and a lookup over many shapes would cost every queued job more than
/// the searches it spares.
const FLOORS: usize = 8;

/// Conservative backfilling state: an availability profile holding running jobs (until
/// their predicted end) and one reservation per queued job.
///
/// The profile is indexed by time (sorted blocks of breakpoints, each with the minimum and
/// maximum free count of its steps), so a reservation, a release and an earliest-fit query
/// skip whole blocks instead of walking every breakpoint of a deep queue's plan.
///
/// ```
/// use slarm_sim::policy::ConservativePlanner;
///
/// let mut cp = ConservativePlanner::new(10, 0.0)?;
/// cp.start_running(0.0, 100.0, 6)?;            // running job
/// let r1 = cp.reserve(0.0, 8, 50.0)?;          // must wait for the running job
/// let r2 = cp.reserve(0.0, 4, 100.0)?;         // fits now beside it
/// assert_eq!((r1, r2), (100.0, 0.0));
/// cp.cancel(20.0, 100.0, 6)?;                  // the running job ends early, at t = 20
/// let mut queue = [(r1, 8, 50.0)];
/// cp.compress(20.0, &mut queue)?;              // 8 processors are not free before 100
/// assert_eq!(queue[0].0, 100.0);
/// assert_eq!(cp.free_at(20.0), 6);
/// # Ok::<(), slarm_sim::SimError>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct ConservativePlanner {
    timeline: Timeline,
    /// During a compression: (processors, first time with that many free), remembered
    /// until a reservation moves to that time or earlier (the plan before the new start is
    /// unchanged by the move).
    first_fit: Vec<(u32, Option<f64>)>,
    /// During a compression: (processors, estimate, t) after a reservation of that shape
    /// found no start before `t` (moved to `t` or stayed there). No reservation of that
    /// shape starting at or after `t` fits before `t` either: every window before `t` is
    /// short of processors at some instant before `t` (the reservation at `t` fits from `t`
    /// on, so the instant that ruled a window out lies before `t`), and that stays so until
    /// a move gives processors back before `t`. The floor also holds for every shape at
    /// least as wide and as long: a window of `p' >= procs` processors for `e' >= estimate`
    /// starting at `t0 < t`, for a reservation at `s' >= t`, must have `p'` free over
    /// `[t0, min(t0 + e', s'))`, which contains `[t0, min(t0 + estimate, t))` and so the
    /// instant where fewer than `procs` were free.
    floors: Vec<(u32, f64, f64)>,
}

impl ConservativePlanner {
    /// An empty plan for `capacity` processors from `origin` on.
    pub fn new(capacity: u32, origin: f64) -> Result<Self> {
        Ok(Self {
            timeline: Timeline::new(capacity, origin)?,
            first_fit: Vec::new(),
            floors: Vec::new(),
        })
    }

    /// Free processors at time `t` in the plan.
    pub fn free_at(&self, t: f64) -> i64 {
        self.timeline.free_at(t)
    }

    /// Records a job that runs from `start` until its predicted end.
    pub fn start_running(&mut self, start: f64, predicted_end: f64, procs: u32) -> Result<()> {
        self.timeline.reserve(start, predicted_end, procs)
    }

    /// Gives a new job the earliest reservation at or after `now`; returns its start.
    pub fn reserve(&mut self, now: f64, procs: u32, estimate: f64) -> Result<f64> {
        self.timeline.reserve_earliest(now, procs, estimate)
    }

    /// The earliest start at or after `now` where `procs` processors are free for
    /// `estimate`, without reserving it.
    pub fn earliest(&self, now: f64, procs: u32, estimate: f64) -> Result<f64> {
        self.timeline.earliest_fit(now, procs, estimate)
    }

    /// Removes a reservation (or the rest of a running job's slot) `[start, end)`.
    pub fn cancel(&mut self, start: f64, end: f64, procs: u32) -> Result<()> {
        self.timeline.release(start, end, procs)
    }

    /// Moves one reservation to its earliest feasible start at or after `now` (never later
    /// than `old_start`, since its own old slot counts as free); returns the new start.
    pub fn compress_one(
        &mut self,
        now: f64,
        old_start: f64,
        procs: u32,
        estimate: f64,
    ) -> Result<f64> {
        check_time("query time", now)?;
        check_time("reservation start", old_start)?;
        check_time("estimate", estimate)?;
        if old_start <= now || old_start <= self.timeline.origin() {
            return Ok(old_start);
        }
        self.timeline.refit(now, old_start, procs, estimate)
    }

    /// Compresses a whole queue after processors were freed early (Mu'alem & Feitelson):
    /// each reservation in turn moves to its earliest feasible start, never later than
    /// before. `items` are (start, procs, estimate) in queue order; starts are updated in
    /// place. Errors (typed, leaving that item where it was) on an item that is not a
    /// reservation of this plan.
    ///
    /// A job can only move if some instant before its reservation has as many free
    /// processors as it needs; the first such instant per processor count is remembered
    /// until a reservation moves to it or earlier, so the jobs that cannot move cost one
    /// lookup each and only the ones that move touch the profile. After a reservation of a
    /// shape (processors, estimate) finds its place, the later ones of that shape search
    /// from there on (see `floors`): a deep queue of one user's identical jobs, queued in
    /// layers, then searches a few steps per job instead of the plan from `now` on.
    pub fn compress(&mut self, now: f64, items: &mut [(f64, u32, f64)]) -> Result<()> {
        check_time("compression time", now)?;
        self.timeline.advance(now);
        self.first_fit.clear();
        self.floors.clear();
        for item in items.iter_mut() {
            let (start, procs, est) = *item;
            if start <= now {
                continue;
            }
            let Some(first) = self.first_time_with(now, procs) else {
                continue;
            };
            if first >= start {
                continue;
            }
            let floor = self.floor(procs, est, start);
            let after = floor.map_or(first, |lo| lo.max(first));
            if after >= start {
                continue;
            }
            let t = self.timeline.refit(after, start, procs, est)?;
            if t < start {
                item.0 = t;
                self.moved(start, t, est);
            }
            self.set_floor(procs, est, t);
        }
        Ok(())
    }

    /// Updates what a compression remembers after a reservation moved from `start` to `t`:
    /// the move took processors from `t` on and gave back only the tail of its old slot
    /// (from `max(start, t + est)` on), so what was known about the plan before those times
    /// still holds.
    fn moved(&mut self, start: f64, t: f64, est: f64) {
        self.first_fit
            .retain(|&(_, first)| first.is_some_and(|f| f < t));
        let tail = start.max(t + est);
        self.floors.retain(|&(.., lo)| lo <= tail);
    }

    /// Remembers that a reservation of `procs` and `est` found no start before `t` (where it
    /// is now): the windows before `t` are short of processors at an instant before `t`.
    fn set_floor(&mut self, procs: u32, est: f64, t: f64) {
        match self.floors.iter_mut().find(|e| (e.0, e.1) == (procs, est)) {
            Some(e) => e.2 = e.2.max(t),
            None => {
                if self.floors.len() == FLOORS {
                    self.floors.remove(0);
                }
                self.floors.push((procs, est, t));
            }
        }
    }

    /// The floor of a reservation of `procs` and `est` at `start` in this compression: the
    /// latest floor, not after `start`, of a shape no wider and no longer (see `floors`); it
    /// cannot move before it.
    fn floor(&self, procs: u32, est: f64, start: f64) -> Option<f64> {
        self.floors
            .iter()
            .filter(|&&(p, e, lo)| p <= procs && e <= est && lo <= start)
            .map(|&(.., lo)| lo)
            .max_by(f64::total_cmp)
    }

    /// The first time at or after `now` with `procs` free processors, remembered during a
    /// compression.
    fn first_time_with(&mut self, now: f64, procs: u32) -> Option<f64> {
        if let Some(&(_, first)) = self.first_fit.iter().find(|e| e.0 == procs) {
            return first;
        }
        let first = self.timeline.first_time_with(now, i64::from(procs));
        self.first_fit.push((procs, first));
        first
    }

    /// Forgets the plan before `now`.
    pub fn advance(&mut self, now: f64) {
        self.timeline.advance(now);
    }
}

/// Conservative backfilling as a [`SchedulingPolicy`]: a job gets its reservation when it
/// arrives (the simulator records it as the job's first reservation), starts when the
/// reservation begins, and an early completion or a job leaving the queue compresses the
/// plan at the next pass. The outcome asks for a pass at the next reservation's start, which
/// after a compression can be an instant when nothing arrives or ends.
#[derive(Debug, Clone, PartialEq)]
pub struct Conservative {
    book: Reservations,
    /// The earliest reservation in the queue, known since the last pass that read every
    /// reservation (none: read them again). Until a compression moves reservations, only
    /// an arrival can bring a job earlier, so a pass before this time starts nothing and
    /// answers without reading the queue.
    next_start: Option<f64>,
}

impl Default for Conservative {
    fn default() -> Self {
        Self {
            book: Reservations::new("conservative policy"),
            next_start: None,
        }
    }
}

impl SchedulingPolicy for Conservative {
    fn name(&self) -> &str {
        "conservative"
    }

    /// Its decisions depend on the machine, the queue and the plan only, which are empty
    /// at an idle instant.
    fn fresh_when_idle(&self) -> bool {
        true
    }

    fn begin(&mut self, capacity: u32, origin: f64) -> Result<()> {
        self.book.begin(capacity, origin)?;
        self.next_start = None;
        Ok(())
    }

    fn on_arrival(&mut self, now: f64, job: &Candidate) -> Result<Option<f64>> {
        let t = self.book.planner()?.reserve(now, job.procs, job.estimate)?;
        self.book.set(job.key, t);
        self.next_start = self.next_start.map(|n| n.min(t));
        Ok(Some(t))
    }

    fn on_finish(&mut self, now: f64, job: &Candidate, predicted_end: f64) -> Result<()> {
        self.book.finished(now, job, predicted_end)
    }

    fn on_withdraw(&mut self, _now: f64, job: &Candidate) -> Result<()> {
        self.book.withdraw(job).map(drop)
    }

    fn schedule(
        &mut self,
        machine: &MachineState<'_>,
        queue: &[Candidate],
        out: &mut PassOutcome,
    ) -> Result<()> {
        let now = machine.now;
        out.clear();
        if self.book.advance(now, queue)? {
            self.next_start = None;
        }
        if let Some(next) = self.next_start.filter(|&next| now < next) {
            out.wake = next.is_finite().then_some(next);
            return Ok(());
        }
        let mut next_wake = f64::INFINITY;
        for (pos, c) in queue.iter().enumerate() {
            let r = self.book.get(c.key);
            if r <= now {
                out.start.push(pos);
            } else {
                next_wake = next_wake.min(r);
            }
        }
        out.wake = next_wake.is_finite().then_some(next_wake);
        // The jobs starting now leave the queue: the rest begin at `next_wake` or later.
        self.next_start = Some(next_wake);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::Profile;
    use proptest::prelude::*;

    /// Running jobs as (predicted end, processors) started at 0, queued jobs as
    /// (processors, estimate) in queue order, and early completions as (running job,
    /// instant), each followed by a compression.
    type Plan = (Vec<(u32, u32)>, Vec<(u32, u32)>, Vec<(usize, u32)>);

    fn plan() -> impl Strategy<Value = Plan> {
        (
            proptest::collection::vec((1u32..300, 1u32..5), 0..6),
            proptest::collection::vec((1u32..9, 1u32..120), 0..40),
            proptest::collection::vec((0usize..6, 0u32..300), 0..6),
        )
    }

    /// Like [`plan`], but queued jobs of three sizes and three estimates, so that a
    /// compression meets many reservations of one shape (the remembered floors).
    fn plan_of_few_shapes() -> impl Strategy<Value = Plan> {
        (
            proptest::collection::vec((1u32..300, 1u32..5), 0..6),
            proptest::collection::vec((1u32..4, (1u32..4).prop_map(|k| 40 * k)), 0..60),
            proptest::collection::vec((0usize..6, 0u32..300), 0..6),
        )
    }

    /// Compression (the remembered first fits and floors, a move as one update per end)
    /// gives the reservations of the plain definition on the flat profile: each queued job
    /// in turn moves to its earliest start, its own slot counted as free.
    fn check_compression(
        (running, queue, finishes): Plan,
    ) -> std::result::Result<(), TestCaseError> {
        const CAPACITY: u32 = 8;
        let mut cp = ConservativePlanner::new(CAPACITY, 0.0).unwrap();
        let mut flat = Profile::new(CAPACITY, 0.0).unwrap();
        let mut ends = Vec::new();
        for &(end, procs) in &running {
            if flat.reserve(0.0, f64::from(end), procs).is_ok() {
                cp.start_running(0.0, f64::from(end), procs).unwrap();
                ends.push((f64::from(end), procs));
            }
        }
        let mut items = Vec::new();
        for &(procs, est) in &queue {
            let est = f64::from(est);
            let t = cp.reserve(0.0, procs, est).unwrap();
            let want = flat.earliest_fit(0.0, procs, est).unwrap();
            prop_assert_eq!(t, want);
            flat.reserve(t, t + est, procs).unwrap();
            items.push((t, procs, est));
        }
        let mut now = 0.0;
        for &(job, at) in &finishes {
            let Some(&(end, procs)) = ends.get(job) else {
                continue;
            };
            let at = f64::from(at).max(now);
            if at >= end {
                continue;
            }
            now = at;
            ends[job].0 = now;
            cp.cancel(now, end, procs).unwrap();
            flat.release(now, end, procs).unwrap();
            let before = items.clone();
            cp.compress(now, &mut items).unwrap();
            flat.advance(now);
            for (&(start, procs, est), &(moved, ..)) in before.iter().zip(&items) {
                let mut want = start;
                if start > now {
                    if let Some(t) = flat.earlier_fit_than(now, start, procs, est) {
                        flat.release(start, start + est, procs).unwrap();
                        flat.reserve(t, t + est, procs).unwrap();
                        want = t;
                    }
                }
                prop_assert_eq!(moved, want);
            }
            prop_assert_eq!(cp.free_at(now), flat.free_at(now));
        }
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]
        #[test]
        fn compression_matches_the_plain_definition(p in plan()) {
            check_compression(p)?;
        }

        #[test]
        fn compression_of_one_shaped_queues_matches_the_plain_definition(
            p in plan_of_few_shapes()
        ) {
            check_compression(p)?;
        }
    }
}
