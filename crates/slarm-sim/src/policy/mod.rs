//! Scheduling policies of the trace simulator: the [`SchedulingPolicy`] trait and its
//! built-in implementations, FCFS, EASY backfilling (Lifka 1995), conservative
//! backfilling (Mu'alem & Feitelson 2001) and [`Backfill`], backfilling with a reservation
//! depth between the two.
//!
//! The simulator ([`crate::batch::simulate_with`]) owns the clock, the queue (in the
//! caller's priority order: FCFS, SJF, EDF, ...) and the running jobs; a policy sees the
//! queue as a slice of [`Candidate`]s at each scheduling pass and answers with the positions
//! to start now ([`PassOutcome`]). Policies that plan ahead also hear of arrivals, early
//! completions and jobs leaving the queue. A new policy is a type implementing the trait,
//! outside this crate too:
//!
//! ```
//! use slarm_sim::batch::{simulate_with, QueueOrder};
//! use slarm_sim::policy::{Candidate, MachineState, PassOutcome, SchedulingPolicy};
//! use slarm_workload::Job;
//!
//! /// Starts any queued job that fits, in queue order, skipping those that do not
//! /// (greedy list scheduling: no reservation, so big jobs may starve).
//! struct FirstFit;
//!
//! impl SchedulingPolicy for FirstFit {
//!     fn name(&self) -> &str {
//!         "first-fit"
//!     }
//!     fn schedule(
//!         &mut self,
//!         machine: &MachineState<'_>,
//!         queue: &[Candidate],
//!         out: &mut PassOutcome,
//!     ) -> slarm_sim::Result<()> {
//!         out.clear();
//!         let mut free = machine.free;
//!         for (pos, c) in queue.iter().enumerate() {
//!             if c.procs <= free {
//!                 free -= c.procs;
//!                 out.start.push(pos);
//!             }
//!         }
//!         Ok(())
//!     }
//! }
//!
//! let jobs = vec![
//!     Job::new(1, 0.0, 100.0, 6, 100.0),
//!     Job::new(2, 1.0, 50.0, 8, 50.0), // does not fit beside job 1
//!     Job::new(3, 2.0, 500.0, 4, 500.0), // fits: starts at once, delaying job 2
//! ];
//! let s = simulate_with(&jobs, 10, &mut FirstFit, &QueueOrder::Fcfs, None)?;
//! let starts: Vec<f64> = s.records.iter().map(|r| r.start).collect();
//! assert_eq!(starts, vec![0.0, 502.0, 2.0]);
//! assert_eq!(s.policy, "first-fit");
//! # Ok::<(), slarm_sim::SimError>(())
//! ```
//!
//! The building blocks stay public for schedulers with their own event loop: [`fcfs_pass`]
//! and [`easy_pass`] (one pass over a queue slice, given the running jobs) and
//! [`ConservativePlanner`] (the reservation plan). EASY with a queue order:
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

mod backfill;
mod conservative;
mod easy;
mod reservations;

use crate::error::Result;
use crate::kernel::{key_time, time_key};

pub use backfill::Backfill;
pub use conservative::{Conservative, ConservativePlanner};
pub use easy::{easy_pass, fcfs_pass, Easy, Fcfs};

/// What a policy sees of the machine at a scheduling pass.
#[derive(Debug, Clone, Copy)]
pub struct MachineState<'a> {
    /// The current time.
    pub now: f64,
    /// Processors free now.
    pub free: u32,
    /// Machine size.
    pub capacity: u32,
    /// Running jobs by predicted end (start + estimate).
    pub running: &'a RunningSet,
}

/// A space-sharing scheduling policy driven by the trace simulator
/// ([`crate::batch::simulate_with`]).
///
/// At one instant the simulator delivers completions (each to [`Self::on_finish`]), then
/// arrivals ([`Self::on_arrival`]), then one pass: waiting jobs whose expiry has passed
/// leave the queue ([`Self::on_withdraw`]), and [`Self::schedule`] says which of the rest
/// start. A job keeps its [`Candidate::key`] (its index in the simulated job slice) from
/// arrival to completion. Only [`Self::name`] and [`Self::schedule`] are required; the
/// hooks default to doing nothing. The module documentation shows a policy written outside
/// the crate.
pub trait SchedulingPolicy {
    /// Short name, recorded in the [`crate::batch::Schedule`].
    fn name(&self) -> &str;

    /// Called once before the first event of a simulation: the machine size and the
    /// first submit time. Resets any state of a previous run.
    fn begin(&mut self, capacity: u32, origin: f64) -> Result<()> {
        let _ = (capacity, origin);
        Ok(())
    }

    /// A job joined the queue at `now`. A policy that reserves on arrival returns the
    /// reservation (recorded as the job's first reservation).
    fn on_arrival(&mut self, now: f64, job: &Candidate) -> Result<Option<f64>> {
        let _ = (now, job);
        Ok(None)
    }

    /// A running job ended at `now`; it was predicted to end at `predicted_end` (start +
    /// estimate), which is later when the job ended early.
    fn on_finish(&mut self, now: f64, job: &Candidate, predicted_end: f64) -> Result<()> {
        let _ = (now, job, predicted_end);
        Ok(())
    }

    /// A waiting job left the queue without starting (its expiry passed).
    fn on_withdraw(&mut self, now: f64, job: &Candidate) -> Result<()> {
        let _ = (now, job);
        Ok(())
    }

    /// Whether a fresh instance of this policy, begun at an instant when no job runs, none
    /// waits and no event is pending, decides from then on as this one would: the policy
    /// keeps nothing of earlier jobs that changes later decisions (no usage history, no
    /// learned estimates). [`crate::batch::simulate_in_parts`] splits a run at such
    /// instants only for a policy that says so. False unless a policy says otherwise.
    fn fresh_when_idle(&self) -> bool {
        false
    }

    /// One scheduling pass over the non-empty `queue` (in priority order): writes into
    /// `out` (cleared by the policy) the positions to start now, in ascending order and
    /// fitting in `machine.free` together, and optionally a reservation to record
    /// (`head`, `shadow`) and a time for another pass (`wake`).
    fn schedule(
        &mut self,
        machine: &MachineState<'_>,
        queue: &[Candidate],
        out: &mut PassOutcome,
    ) -> Result<()>;
}

impl<P: SchedulingPolicy + ?Sized> SchedulingPolicy for Box<P> {
    fn name(&self) -> &str {
        (**self).name()
    }
    fn begin(&mut self, capacity: u32, origin: f64) -> Result<()> {
        (**self).begin(capacity, origin)
    }
    fn on_arrival(&mut self, now: f64, job: &Candidate) -> Result<Option<f64>> {
        (**self).on_arrival(now, job)
    }
    fn on_finish(&mut self, now: f64, job: &Candidate, predicted_end: f64) -> Result<()> {
        (**self).on_finish(now, job, predicted_end)
    }
    fn on_withdraw(&mut self, now: f64, job: &Candidate) -> Result<()> {
        (**self).on_withdraw(now, job)
    }
    fn fresh_when_idle(&self) -> bool {
        (**self).fresh_when_idle()
    }
    fn schedule(
        &mut self,
        machine: &MachineState<'_>,
        queue: &[Candidate],
        out: &mut PassOutcome,
    ) -> Result<()> {
        (**self).schedule(machine, queue, out)
    }
}

/// The three built-in space-sharing policies (Mu'alem & Feitelson 2001), a convenience
/// constructor of their [`SchedulingPolicy`] implementations ([`PolicyKind::build`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "lowercase"))]
#[non_exhaustive]
pub enum PolicyKind {
    /// First come, first served without backfilling.
    Fcfs,
    /// EASY backfilling (one reservation, for the queue head).
    Easy,
    /// Conservative backfilling (a reservation for every queued job).
    Conservative,
}

impl PolicyKind {
    /// The three built-in policies.
    pub const ALL: [PolicyKind; 3] = [PolicyKind::Fcfs, PolicyKind::Easy, PolicyKind::Conservative];

    /// The policy's name as parsed and as [`SchedulingPolicy::name`] reports it.
    pub fn name(self) -> &'static str {
        match self {
            Self::Fcfs => "fcfs",
            Self::Easy => "easy",
            Self::Conservative => "conservative",
        }
    }

    /// A fresh instance of the policy.
    pub fn build(self) -> Box<dyn SchedulingPolicy + Send> {
        match self {
            Self::Fcfs => Box::new(Fcfs),
            Self::Easy => Box::new(Easy::default()),
            Self::Conservative => Box::new(Conservative::default()),
        }
    }
}

impl std::fmt::Display for PolicyKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for PolicyKind {
    type Err = crate::error::PolicyNameError;
    /// Parses `fcfs`, `easy` or `conservative` (case-insensitive).
    fn from_str(s: &str) -> std::result::Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "fcfs" => Ok(Self::Fcfs),
            "easy" => Ok(Self::Easy),
            "conservative" => Ok(Self::Conservative),
            _ => Err(crate::error::PolicyNameError {
                given: s.to_owned(),
                expected: "fcfs, easy or conservative",
            }),
        }
    }
}

/// A built-in policy by the name `slarm simulate --policy` and Python's `slarm.sim.simulate`
/// take: `fcfs`, `easy` or `conservative` (a [`PolicyKind`]), or `backfill:K` /
/// `backfill:all`, [`Backfill`] with `K` reservations (0 none, 1 EASY, all conservative) up
/// to [`BuiltinPolicy::MAX_DEPTH`]. Names are case-insensitive.
///
/// ```
/// use slarm_sim::policy::{BuiltinPolicy, PolicyKind};
///
/// let p: BuiltinPolicy = "backfill:4".parse()?;
/// assert_eq!(p, BuiltinPolicy::Backfill(Some(4)));
/// assert_eq!(p.build().name(), "backfill:4");
/// assert_eq!("Easy".parse::<BuiltinPolicy>()?, BuiltinPolicy::Kind(PolicyKind::Easy));
/// assert_eq!("backfill:all".parse::<BuiltinPolicy>()?.to_string(), "backfill:all");
/// assert!("backfill:-1".parse::<BuiltinPolicy>().is_err());
/// # Ok::<(), slarm_sim::PolicyNameError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum BuiltinPolicy {
    /// FCFS, EASY or conservative backfilling.
    Kind(PolicyKind),
    /// Backfilling with this many reservations (`None`: every queued job holds one).
    Backfill(Option<u32>),
}

impl BuiltinPolicy {
    /// The largest `K` of `backfill:K`: deeper than any queue of the Parallel Workloads
    /// Archive's logs (`backfill:all` is unbounded).
    pub const MAX_DEPTH: u32 = 1_000_000;

    /// A fresh instance of the policy.
    pub fn build(self) -> Box<dyn SchedulingPolicy + Send> {
        match self {
            Self::Kind(k) => k.build(),
            Self::Backfill(depth) => Box::new(Backfill::new(depth)),
        }
    }
}

impl From<PolicyKind> for BuiltinPolicy {
    fn from(kind: PolicyKind) -> Self {
        Self::Kind(kind)
    }
}

impl std::fmt::Display for BuiltinPolicy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Kind(k) => write!(f, "{k}"),
            Self::Backfill(Some(k)) => write!(f, "backfill:{k}"),
            Self::Backfill(None) => f.write_str("backfill:all"),
        }
    }
}

impl std::str::FromStr for BuiltinPolicy {
    type Err = crate::error::PolicyNameError;
    fn from_str(s: &str) -> std::result::Result<Self, Self::Err> {
        let unknown = || crate::error::PolicyNameError {
            given: s.to_owned(),
            expected: "fcfs, easy, conservative, or backfill:K with K in [0, 1000000] or all",
        };
        let lower = s.to_ascii_lowercase();
        let Some(depth) = lower.strip_prefix("backfill:") else {
            return s.parse().map(Self::Kind).map_err(|_| unknown());
        };
        if depth == "all" {
            return Ok(Self::Backfill(None));
        }
        depth
            .parse::<u32>()
            .ok()
            .filter(|&k| k <= Self::MAX_DEPTH && !depth.starts_with('+'))
            .map(|k| Self::Backfill(Some(k)))
            .ok_or_else(unknown)
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
///
/// A sorted vector of `(predicted end, key, procs)`: at most one entry per running job,
/// so a few hundred on the archive's machines, where shifting a contiguous slice on insert
/// and removal costs less than a B-tree's node walks, and the shadow scan reads it in order
/// from one block of memory. The end is stored as the integer whose order is
/// [`f64::total_cmp`]'s (the event queue's time key), so a search compares integers.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RunningSet {
    /// Strictly ascending in `(end, key, procs)` order (no duplicates, as in a set), the
    /// end as `time_key` gives it.
    sorted: Vec<(i64, usize, u32)>,
}

impl RunningSet {
    /// An empty set.
    pub fn new() -> Self {
        Self::default()
    }

    /// Where `(end, key, procs)` is or would be in the sorted entries.
    fn position(&self, entry: (i64, usize, u32)) -> usize {
        let mut pos = self.sorted.partition_point(|e| e.0 < entry.0);
        // Entries ending at the same time (few) in key order.
        while self
            .sorted
            .get(pos)
            .is_some_and(|e| e.0 == entry.0 && *e < entry)
        {
            pos += 1;
        }
        pos
    }

    /// Adds job `key` using `procs` processors until the predicted end (no effect if the
    /// same entry is already present).
    pub fn insert(&mut self, key: usize, predicted_end: f64, procs: u32) {
        let entry = (time_key(predicted_end), key, procs);
        let pos = self.position(entry);
        if self.sorted.get(pos) != Some(&entry) {
            self.sorted.insert(pos, entry);
        }
    }

    /// Removes job `key` (given the same predicted end and processors it was inserted with).
    pub fn remove(&mut self, key: usize, predicted_end: f64, procs: u32) -> bool {
        let entry = (time_key(predicted_end), key, procs);
        let pos = self.position(entry);
        let found = self.sorted.get(pos) == Some(&entry);
        if found {
            self.sorted.remove(pos);
        }
        found
    }
    /// Number of running jobs.
    pub fn len(&self) -> usize {
        self.sorted.len()
    }
    /// True if nothing runs.
    pub fn is_empty(&self) -> bool {
        self.sorted.is_empty()
    }
    /// (predicted end, key, procs) in order of predicted end.
    pub fn iter(&self) -> impl Iterator<Item = (f64, usize, u32)> + '_ {
        self.sorted.iter().map(|&(e, k, p)| (key_time(e), k, p))
    }
}

/// The outcome of one pass: positions in the queue slice to start now, in start order.
#[derive(Debug, Clone, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct PassOutcome {
    /// Positions (indices into the candidate slice, strictly ascending) of the jobs to
    /// start now.
    pub start: Vec<usize>,
    /// EASY: the head's reservation (shadow time), if the head stayed blocked.
    pub shadow: Option<f64>,
    /// EASY: position of the blocked head that holds the reservation.
    pub head: Option<usize>,
    /// A time at which the policy wants another pass even if no job arrives or ends then
    /// (conservative backfilling: the next reservation's start).
    #[cfg_attr(feature = "serde", serde(default))]
    pub wake: Option<f64>,
}

impl PassOutcome {
    /// Empties the outcome for reuse (keeps the allocation).
    pub fn clear(&mut self) {
        self.start.clear();
        self.shadow = None;
        self.head = None;
        self.wake = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// The sorted vector behaves as the ordered set it replaced: same membership
        /// answers, same length, same iteration order, for any sequence of inserts and
        /// removes (few distinct values, so duplicates, ties and misses are frequent; the
        /// times include -0.0, 0.0, infinities and NaN, which `total_cmp` orders).
        #[test]
        fn running_set_matches_an_ordered_set(
            ops in proptest::collection::vec(
                (proptest::bool::ANY, 0usize..6, 0usize..7, 1u32..4), 0..200),
        ) {
            const ENDS: [f64; 7] = [-0.0, 0.0, 1.5, 100.0, f64::INFINITY, f64::NAN, -3.0];
            let mut set = RunningSet::new();
            let mut model = std::collections::BTreeSet::new();
            for (insert, key, end, procs) in ops {
                let t = ENDS[end];
                if insert {
                    set.insert(key, t, procs);
                    model.insert((OrdF64(t), key, procs));
                } else {
                    let removed = set.remove(key, t, procs);
                    proptest::prop_assert_eq!(removed, model.remove(&(OrdF64(t), key, procs)));
                }
                proptest::prop_assert_eq!(set.len(), model.len());
                let got: Vec<(u64, usize, u32)> =
                    set.iter().map(|(e, k, p)| (e.to_bits(), k, p)).collect();
                let want: Vec<(u64, usize, u32)> =
                    model.iter().map(|&(e, k, p)| (e.0.to_bits(), k, p)).collect();
                proptest::prop_assert_eq!(got, want);
            }
        }
    }

    #[test]
    fn policy_names_parse() {
        assert_eq!("EASY".parse::<PolicyKind>(), Ok(PolicyKind::Easy));
        assert!("sjf".parse::<PolicyKind>().is_err());
        for k in PolicyKind::ALL {
            assert_eq!(k.name().parse::<PolicyKind>(), Ok(k));
            assert_eq!(k.build().name(), k.name());
            assert_eq!(k.to_string(), k.name());
        }
    }

    #[test]
    fn builtin_policy_names_parse_and_print_back() {
        let max = BuiltinPolicy::MAX_DEPTH;
        for p in [
            BuiltinPolicy::Kind(PolicyKind::Fcfs),
            BuiltinPolicy::Kind(PolicyKind::Conservative),
            BuiltinPolicy::Backfill(Some(0)),
            BuiltinPolicy::Backfill(Some(4)),
            BuiltinPolicy::Backfill(Some(max)),
            BuiltinPolicy::Backfill(None),
        ] {
            assert_eq!(p.to_string().parse::<BuiltinPolicy>(), Ok(p));
            assert_eq!(p.build().name(), p.to_string());
        }
        assert_eq!(
            "BackFill:ALL".parse::<BuiltinPolicy>(),
            Ok(BuiltinPolicy::Backfill(None))
        );
        let over = format!("backfill:{}", max + 1);
        for bad in [
            "sjf",
            "backfill:",
            "backfill:-1",
            "backfill:+4",
            "backfill:1e3",
            &over,
        ] {
            let e = bad.parse::<BuiltinPolicy>().unwrap_err();
            assert_eq!(e.given, bad);
            // The message names the largest depth that parses.
            assert!(e.to_string().contains(&format!("[0, {max}]")), "{e}");
        }
    }
}
