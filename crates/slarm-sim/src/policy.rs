//! Scheduling passes of FCFS, EASY and conservative backfilling (Mu'alem & Feitelson 2001;
//! EASY after Lifka 1995), written as
//! reusable building blocks that know nothing about the event loop:
//!
//! - [`fcfs_pass`]: start queued jobs in order while they fit; stop at the first that does not.
//! - [`easy_pass`]: FCFS start, then a reservation for the blocked head at the shadow time and
//!   backfilling of later jobs that end by the shadow time or use only `extra` processors.
//! - [`ConservativePlanner`]: every queued job holds a reservation in an availability
//!   [`Profile`]; early completions compress the plan without delaying any reservation.
//!
//! The queue is a slice of [`Candidate`]s already in the caller's priority order (FCFS, SJF,
//! EDF, ...), so other crates reuse EASY with their own orders.
//!
//! ```
//! use slarm_sim::policy::{easy_pass, Candidate, RunningSet};
//!
//! let mut running = RunningSet::new();
//! running.insert(0, 100.0, 6); // job 0 uses 6 of 10 processors until t = 100
//! let queue = [
//!     Candidate { key: 1, procs: 8, estimate: 50.0 }, // blocked head: shadow = 100
//!     Candidate { key: 2, procs: 4, estimate: 200.0 }, // would delay the head: stays
//!     Candidate { key: 3, procs: 3, estimate: 90.0 },  // ends by the shadow: backfills
//! ];
//! let pass = easy_pass(0.0, 4, &running, &queue);
//! assert_eq!(pass.start, vec![2]);      // positions in `queue`
//! assert_eq!(pass.shadow, Some(100.0));
//! ```

use std::collections::BTreeSet;

use crate::error::Result;
use crate::profile::Profile;

/// The three space-sharing policies (Mu'alem & Feitelson 2001).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "lowercase"))]
pub enum PolicyKind {
    /// First come, first served without backfilling.
    Fcfs,
    /// EASY backfilling (one reservation, for the queue head).
    Easy,
    /// Conservative backfilling (a reservation for every queued job).
    Conservative,
}

impl std::str::FromStr for PolicyKind {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        match s.to_ascii_lowercase().as_str() {
            "fcfs" => Ok(Self::Fcfs),
            "easy" => Ok(Self::Easy),
            "conservative" => Ok(Self::Conservative),
            _ => Err(format!(
                "unknown policy {s:?} (expected fcfs, easy or conservative)"
            )),
        }
    }
}

/// A queued job as a pass sees it.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Candidate {
    /// Caller's identifier (e.g. an index into its job table).
    pub key: usize,
    /// Processors needed.
    pub procs: u32,
    /// Runtime estimate (the scheduler's prediction of its duration).
    pub estimate: f64,
}

/// A total order on `f64` (via `total_cmp`) for use in ordered sets.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct OrdF64(pub f64);
impl Eq for OrdF64 {}
impl PartialOrd for OrdF64 {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for OrdF64 {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&other.0)
    }
}

/// Running jobs ordered by predicted end time (for EASY's shadow computation).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RunningSet {
    set: BTreeSet<(OrdF64, usize, u32)>,
}

impl RunningSet {
    /// An empty set.
    pub fn new() -> Self {
        Self::default()
    }
    /// Adds job `key` using `procs` processors until the predicted end.
    pub fn insert(&mut self, key: usize, predicted_end: f64, procs: u32) {
        self.set.insert((OrdF64(predicted_end), key, procs));
    }
    /// Removes job `key` (given the same predicted end and processors it was inserted with).
    pub fn remove(&mut self, key: usize, predicted_end: f64, procs: u32) -> bool {
        self.set.remove(&(OrdF64(predicted_end), key, procs))
    }
    /// Number of running jobs.
    pub fn len(&self) -> usize {
        self.set.len()
    }
    /// True if nothing runs.
    pub fn is_empty(&self) -> bool {
        self.set.is_empty()
    }
    /// (predicted end, key, procs) in order of predicted end.
    pub fn iter(&self) -> impl Iterator<Item = (f64, usize, u32)> + '_ {
        self.set.iter().map(|&(e, k, p)| (e.0, k, p))
    }
}

/// The outcome of one pass: positions in the queue slice to start now, in start order.
#[derive(Debug, Clone, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct PassOutcome {
    /// Positions (indices into the candidate slice) of the jobs to start now.
    pub start: Vec<usize>,
    /// EASY only: the head's reservation (shadow time), if the head stayed blocked.
    pub shadow: Option<f64>,
    /// EASY only: position of the blocked head that holds the reservation.
    pub head: Option<usize>,
}

/// FCFS pass: start jobs in queue order while they fit in `free` processors.
pub fn fcfs_pass(free: u32, queue: &[Candidate]) -> PassOutcome {
    let mut out = PassOutcome::default();
    fcfs_pass_into(free, queue, &mut out);
    out
}

/// [`fcfs_pass`] writing into a reused outcome (no allocation once it has grown).
pub(crate) fn fcfs_pass_into(free: u32, queue: &[Candidate], out: &mut PassOutcome) {
    out.start.clear();
    out.shadow = None;
    out.head = None;
    let mut free = free;
    for (pos, c) in queue.iter().enumerate() {
        if c.procs > free {
            break;
        }
        free -= c.procs;
        out.start.push(pos);
    }
}

/// EASY pass at time `now` with `free` processors free and `running` jobs (Mu'alem & Feitelson
/// 2001).
///
/// Jobs are started in order while they fit. The first job that does not fit (the head)
/// gets a reservation at the shadow time: the earliest predicted end at which enough
/// processors are free. `extra` = processors free at the shadow time beyond the head's
/// need, counting every running job predicted to end at or before the shadow time (also
/// the other jobs that end exactly then, not only the one that first covers the head).
/// A later job starts now iff it fits and either ends by the shadow time
/// (`now + estimate <= shadow`) or uses no more than `extra` processors (then `extra`
/// shrinks by its size).
pub fn easy_pass(now: f64, free: u32, running: &RunningSet, queue: &[Candidate]) -> PassOutcome {
    let mut out = PassOutcome::default();
    easy_pass_into(now, free, running, queue, &mut out, &mut Vec::new());
    out
}

/// [`easy_pass`] writing into a reused outcome, with a reused scratch buffer for the
/// predicted ends of the jobs started in this pass.
pub(crate) fn easy_pass_into(
    now: f64,
    free: u32,
    running: &RunningSet,
    queue: &[Candidate],
    out: &mut PassOutcome,
    just_started: &mut Vec<(f64, u32)>,
) {
    fcfs_pass_into(free, queue, out);
    let head_pos = out.start.len();
    let Some(head) = queue.get(head_pos) else {
        return;
    };
    let mut free = free - out.start.iter().map(|&p| queue[p].procs).sum::<u32>();
    // Shadow time: walk running jobs (including those just started) by predicted end.
    just_started.clear();
    just_started.extend(
        out.start
            .iter()
            .map(|&p| (now + queue[p].estimate, queue[p].procs)),
    );
    just_started.sort_by(|a, b| a.0.total_cmp(&b.0));
    let (shadow, extra) = shadow_and_extra(free, head.procs, running, just_started);
    let mut extra = extra;
    out.shadow = Some(shadow);
    out.head = Some(head_pos);
    for (pos, c) in queue.iter().enumerate().skip(head_pos + 1) {
        if free == 0 {
            break;
        }
        if c.procs > free {
            continue;
        }
        if now + c.estimate <= shadow {
            free -= c.procs;
            out.start.push(pos);
        } else if i64::from(c.procs) <= extra {
            free -= c.procs;
            extra -= i64::from(c.procs);
            out.start.push(pos);
        }
    }
}

/// The head's shadow time and `extra` (Mu'alem & Feitelson 2001): releases of the running jobs and
/// of the jobs just started (both sorted by predicted end) are merged until `need` processors
/// are free; every release at that same instant still counts towards `extra`. Infinite
/// shadow and no extra when the head can never fit (not reachable for a job that fits the
/// machine).
fn shadow_and_extra(
    free: u32,
    need: u32,
    running: &RunningSet,
    just_started: &[(f64, u32)],
) -> (f64, i64) {
    let need = i64::from(need);
    let mut avail = i64::from(free);
    let mut shadow = f64::INFINITY;
    let mut js = just_started.iter().peekable();
    let mut rs = running.iter().peekable();
    loop {
        let (end, procs) = match (rs.peek(), js.peek()) {
            (Some(&(re, _, rp)), Some(&&(je, jp))) => {
                if re <= je {
                    rs.next();
                    (re, rp)
                } else {
                    js.next();
                    (je, jp)
                }
            }
            (Some(&(re, _, rp)), None) => {
                rs.next();
                (re, rp)
            }
            (None, Some(&&(je, jp))) => {
                js.next();
                (je, jp)
            }
            (None, None) => break,
        };
        if end > shadow {
            break;
        }
        avail += i64::from(procs);
        if avail >= need && shadow.is_infinite() {
            shadow = end;
        }
    }
    if shadow.is_finite() {
        (shadow, avail - need)
    } else {
        (shadow, 0)
    }
}

/// Conservative backfilling state: an availability profile holding running jobs (until
/// their predicted end) and one reservation per queued job.
///
/// ```
/// use slarm_sim::policy::ConservativePlanner;
///
/// let mut cp = ConservativePlanner::new(10, 0.0)?;
/// cp.start_running(0.0, 100.0, 6)?;            // running job
/// let r1 = cp.reserve(0.0, 8, 50.0)?;          // must wait for the running job
/// let r2 = cp.reserve(0.0, 4, 100.0)?;         // fits now beside it
/// assert_eq!((r1, r2), (100.0, 0.0));
/// # Ok::<(), slarm_sim::SimError>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct ConservativePlanner {
    profile: Profile,
}

impl ConservativePlanner {
    /// An empty plan for `capacity` processors from `origin` on.
    pub fn new(capacity: u32, origin: f64) -> Result<Self> {
        Ok(Self {
            profile: Profile::new(capacity, origin)?,
        })
    }

    /// The underlying availability profile.
    pub fn profile(&self) -> &Profile {
        &self.profile
    }

    /// Records a job that runs from `start` until its predicted end.
    pub fn start_running(&mut self, start: f64, predicted_end: f64, procs: u32) -> Result<()> {
        self.profile.reserve(start, predicted_end, procs)
    }

    /// Gives a new job the earliest reservation at or after `now`; returns its start.
    pub fn reserve(&mut self, now: f64, procs: u32, estimate: f64) -> Result<f64> {
        let t = self.profile.earliest_fit(now, procs, estimate)?;
        self.profile.reserve(t, t + estimate, procs)?;
        Ok(t)
    }

    /// Removes a reservation (or the rest of a running job's slot) `[start, end)`.
    pub fn cancel(&mut self, start: f64, end: f64, procs: u32) -> Result<()> {
        self.profile.release(start, end, procs)
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
        if old_start <= now {
            return Ok(old_start);
        }
        Ok(self
            .move_earlier(now, old_start, procs, estimate)?
            .unwrap_or(old_start))
    }

    /// Moves the reservation `[old_start, old_start + estimate)` to the earliest feasible
    /// start in `[after, old_start)`, if there is one; returns the new start.
    fn move_earlier(
        &mut self,
        after: f64,
        old_start: f64,
        procs: u32,
        estimate: f64,
    ) -> Result<Option<f64>> {
        let Some(t) = self
            .profile
            .earlier_fit_than(after, old_start, procs, estimate)
        else {
            return Ok(None);
        };
        self.profile
            .release(old_start, old_start + estimate, procs)?;
        self.profile.reserve(t, t + estimate, procs)?;
        Ok(Some(t))
    }

    /// Compresses a whole queue after processors were freed early (Mu'alem & Feitelson):
    /// each reservation in turn moves to its earliest feasible start, never later than
    /// before. `items` are (start, procs, estimate) in queue order; starts are updated in
    /// place. A running maximum of free processors prunes jobs that cannot move.
    pub fn compress(&mut self, now: f64, items: &mut [(f64, u32, f64)]) -> Result<()> {
        self.profile.advance(now);
        let mut prefix_max = Vec::new();
        self.prefix_max_into(&mut prefix_max);
        for item in items.iter_mut() {
            let (start, procs, est) = *item;
            if start <= now {
                continue;
            }
            // Free processors strictly before the job's start never include its own
            // reservation; if they never reach its size, it cannot move earlier. Nor can it
            // start before the first step whose free count reaches its size (the running
            // maximum is monotone, so a binary search finds that step).
            let steps = self.profile.steps();
            let k = steps.partition_point(|s| s.time < start);
            let need = i64::from(procs);
            if k == 0 || prefix_max[k - 1] < need {
                continue;
            }
            let first = prefix_max[..k].partition_point(|&m| m < need);
            let after = now.max(steps[first].time);
            if let Some(t) = self.move_earlier(after, start, procs, est)? {
                item.0 = t;
                self.prefix_max_into(&mut prefix_max);
            }
        }
        Ok(())
    }

    /// The running maximum of free processors over the profile's steps, into `out`.
    fn prefix_max_into(&self, out: &mut Vec<i64>) {
        out.clear();
        let mut m = i64::MIN;
        out.extend(self.profile.steps().iter().map(|s| {
            m = m.max(s.free);
            m
        }));
    }

    /// Forgets the plan before `now`.
    pub fn advance(&mut self, now: f64) {
        self.profile.advance(now);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(key: usize, procs: u32, estimate: f64) -> Candidate {
        Candidate {
            key,
            procs,
            estimate,
        }
    }

    #[test]
    fn fcfs_stops_at_first_blocked_job() {
        let q = [c(0, 3, 1.0), c(1, 5, 1.0), c(2, 1, 1.0)];
        assert_eq!(fcfs_pass(4, &q).start, vec![0]);
    }

    #[test]
    fn easy_uses_extra_processors() {
        // 10 procs; running: 4 until 100, 4 until 200; free 2. Head needs 8: shadow 200
        // (2 + 4 + 4 = 10, extra = 2).
        let mut r = RunningSet::new();
        r.insert(10, 100.0, 4);
        r.insert(11, 200.0, 4);
        let q = [c(0, 8, 10.0), c(1, 2, 1000.0), c(2, 1, 1000.0)];
        let p = easy_pass(0.0, 2, &r, &q);
        assert_eq!(p.shadow, Some(200.0));
        assert_eq!(p.start, vec![1]); // uses the 2 extra; job 2 no longer fits (free 0)
                                      // Extra exhausted: a long job that does not fit in extra must
                                      // wait.
        let q = [c(0, 10, 10.0), c(1, 2, 1000.0)];
        let p = easy_pass(0.0, 2, &r, &q);
        assert_eq!((p.shadow, p.start.len()), (Some(200.0), 0));
    }

    #[test]
    fn extra_counts_three_tied_ends_and_ignores_later_ones() {
        // 14 procs, 4 free; jobs of 3, 4 and 3 processors all predicted to end at t = 100.
        // The head needs 5: covered once the first ends (4 + 3 = 7), but all three free
        // their processors at the shadow time, so extra = 14 - 5 = 9 (not 7 - 5 = 2) and a
        // long 4-processor job backfills.
        let mut r = RunningSet::new();
        r.insert(10, 100.0, 3);
        r.insert(11, 100.0, 4);
        r.insert(12, 100.0, 3);
        let q = [c(0, 5, 10.0), c(1, 4, 1000.0)];
        let p = easy_pass(0.0, 4, &r, &q);
        assert_eq!((p.shadow, p.start), (Some(100.0), vec![1]));
        // A job ending after the shadow time does not count: extra = 1 + 5 - 6 = 0.
        let mut r = RunningSet::new();
        r.insert(10, 100.0, 5);
        r.insert(11, 101.0, 5);
        let q = [c(0, 6, 10.0), c(1, 1, 1000.0)];
        let p = easy_pass(0.0, 1, &r, &q);
        assert_eq!((p.shadow, p.start), (Some(100.0), Vec::<usize>::new()));
    }

    #[test]
    fn extra_counts_every_job_ending_at_the_shadow_time() {
        // 10 procs; two running jobs of 4 both predicted to end at 100; free 2. The head
        // needs 6: shadow 100, where 2 + 4 + 4 = 10 are free, so extra = 4 (not the 0 left
        // after the first of the two jobs alone covers the head).
        let mut r = RunningSet::new();
        r.insert(10, 100.0, 4);
        r.insert(11, 100.0, 4);
        let q = [c(0, 6, 10.0), c(1, 2, 1000.0)];
        let p = easy_pass(0.0, 2, &r, &q);
        assert_eq!(p.shadow, Some(100.0));
        assert_eq!(p.start, vec![1]);
    }

    #[test]
    fn policy_names_parse() {
        assert_eq!("EASY".parse::<PolicyKind>(), Ok(PolicyKind::Easy));
        assert!("sjf".parse::<PolicyKind>().is_err());
    }
}
