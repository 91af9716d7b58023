//! The trace-driven batch simulator: replays a cleaned workload on a space-shared machine
//! under any [`SchedulingPolicy`] ([`simulate_with`]) or one of the built-in FCFS, EASY and
//! conservative backfilling (Mu'alem & Feitelson 2001; [`simulate`]), on top of the
//! [`kernel`](crate::kernel), which knows no policy.
//!
//! Event order at one instant: completions (class 0) release processors, then arrivals
//! (class 1) join the queue, then one scheduling pass (class 2) runs. A job runs for
//! min(run time, estimate). The queue order is configurable ([`QueueOrder`]) so that other
//! crates get FCFS-, SJF- or EDF-ordered EASY from the same code, and an optional expiry
//! per job removes waiting jobs whose latest start has passed.
//!
//! ```
//! use slarm_sim::batch::{simulate, BatchConfig};
//! use slarm_sim::policy::PolicyKind;
//! use slarm_workload::Job;
//!
//! let jobs = vec![
//!     Job::new(1, 0.0, 100.0, 6, 100.0),
//!     Job::new(2, 1.0, 50.0, 8, 50.0),  // must wait for job 1
//!     Job::new(3, 2.0, 90.0, 4, 90.0),  // backfills: ends by the head's shadow time
//! ];
//! let s = simulate(&jobs, 10, &BatchConfig::new(PolicyKind::Easy))?;
//! let starts: Vec<f64> = s.records.iter().map(|r| r.start).collect();
//! assert_eq!(starts, vec![0.0, 100.0, 2.0]);
//! assert_eq!(s.records.get(1).map(|r| (r.id, r.end)), Some((2, 150.0)));
//! # Ok::<(), slarm_sim::SimError>(())
//! ```

use std::borrow::Cow;

use slarm_workload::{Job, JobTable};

use crate::error::{check_capacity, check_time, Result, SimError};
use crate::kernel::Simulation;
use crate::policy::{
    Candidate, MachineState, PassOutcome, PolicyKind, RunningSet, SchedulingPolicy,
};
use crate::wait_queue::WaitQueue;

mod parts;
mod replay;
pub use parts::{parallel_parts, simulate_in_parts};
pub use replay::Replay;

/// Priority order of the waiting queue; ties always break by submit time, then job number.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub enum QueueOrder {
    /// Submit time, then job number.
    Fcfs,
    /// Shortest estimate first.
    ShortestEstimate,
    /// A caller-given key per job (same length and order as the job slice), smallest first,
    /// e.g. absolute deadlines for EDF.
    Key(Vec<f64>),
}

/// Configuration of one batch simulation.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct BatchConfig {
    /// The scheduling policy.
    pub policy: PolicyKind,
    /// The queue order.
    pub order: QueueOrder,
    /// Optional latest start time per job (same order as the job slice): a job still
    /// waiting when the clock passes it is removed and reported as expired.
    pub expiry: Option<Vec<f64>>,
}

impl BatchConfig {
    /// The policy with FCFS queue order and no expiry.
    pub fn new(policy: PolicyKind) -> Self {
        Self {
            policy,
            order: QueueOrder::Fcfs,
            expiry: None,
        }
    }
}

/// What happened to one job.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct JobRecord {
    /// Job number.
    pub id: u64,
    /// Index in the simulated job slice.
    pub index: usize,
    /// Submit time.
    pub submit: f64,
    /// Start time.
    pub start: f64,
    /// End time (start + min(run time, estimate)).
    pub end: f64,
    /// Processors used.
    pub procs: u32,
    /// The runtime estimate the scheduler used.
    pub estimate: f64,
    /// First reservation the job received (EASY: shadow time when it was first the blocked
    /// head; conservative: its reservation on arrival), if any.
    pub reservation: Option<f64>,
}

impl JobRecord {
    /// Wait time.
    pub fn wait(&self) -> f64 {
        self.start - self.submit
    }
    /// Response time (wait + run).
    pub fn response(&self) -> f64 {
        self.end - self.submit
    }
    /// Bounded slowdown with threshold `tau`: max(1, response / max(run, tau)).
    pub fn bounded_slowdown(&self, tau: f64) -> f64 {
        (self.response() / (self.end - self.start).max(tau)).max(1.0)
    }
}

/// The result of a batch simulation.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Schedule {
    /// Machine size.
    pub capacity: u32,
    /// Name of the policy used ([`SchedulingPolicy::name`]; `fcfs`, `easy` or
    /// `conservative` for the built-in ones).
    pub policy: String,
    /// One record per started job, in job-slice order, each built on demand from the
    /// start times and the jobs ([`Records`]).
    pub records: Records,
    /// Indices of jobs removed because their expiry passed while waiting.
    pub expired: Vec<usize>,
    /// Events the kernel delivered.
    pub events: u64,
}

/// The records of a [`Schedule`]: one [`JobRecord`] per started job, in job-slice order.
///
/// A simulation stores only what the jobs do not say (a start time and a first reservation
/// per job, 16 bytes) next to the [`JobTable`] it ran (shared, not copied); each record is
/// built on demand ([`Records::get`], [`Records::iter`]). Records made from a vector
/// ([`Records::from`]) are kept as they are.
#[derive(Clone)]
pub struct Records {
    inner: Stored,
}

#[derive(Clone)]
enum Stored {
    Vec(Vec<JobRecord>),
    Compact {
        jobs: JobTable,
        /// Start time per job (NaN: never started).
        start: Vec<f64>,
        /// First reservation per job (NaN: none).
        reservation: Vec<f64>,
        /// The started jobs, when some job did not start.
        started: Option<Vec<usize>>,
    },
}

impl Records {
    /// Number of records (started jobs).
    pub fn len(&self) -> usize {
        match &self.inner {
            Stored::Vec(v) => v.len(),
            Stored::Compact { start, started, .. } => {
                started.as_ref().map_or(start.len(), Vec::len)
            }
        }
    }

    /// True when no job started.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The `k`-th record, built on demand; `None` past the end.
    pub fn get(&self, k: usize) -> Option<JobRecord> {
        match &self.inner {
            Stored::Vec(v) => v.get(k).copied(),
            Stored::Compact {
                jobs,
                start,
                reservation,
                started,
            } => {
                let i = match started {
                    Some(s) => *s.get(k)?,
                    None => k,
                };
                let t = *start.get(i)?;
                let r = reservation[i];
                Some(JobRecord {
                    id: jobs.id(i),
                    index: i,
                    submit: jobs.submit(i),
                    start: t,
                    end: t + jobs.effective_runtime(i),
                    // The simulation checked that the processors lie in 1..=capacity.
                    procs: jobs.procs(i) as u32,
                    estimate: jobs.estimate(i),
                    reservation: (!r.is_nan()).then_some(r),
                })
            }
        }
    }

    /// The first record.
    pub fn first(&self) -> Option<JobRecord> {
        self.get(0)
    }

    /// The last record.
    pub fn last(&self) -> Option<JobRecord> {
        self.len().checked_sub(1).and_then(|k| self.get(k))
    }

    /// The records in order, each built on demand.
    pub fn iter(&self) -> RecordIter<'_> {
        RecordIter {
            records: self,
            range: 0..self.len(),
        }
    }

    /// All records as a vector (72 bytes a record).
    pub fn to_vec(&self) -> Vec<JobRecord> {
        match &self.inner {
            Stored::Vec(v) => v.clone(),
            Stored::Compact { .. } => self.iter().collect(),
        }
    }
}

impl From<Vec<JobRecord>> for Records {
    fn from(v: Vec<JobRecord>) -> Self {
        Self {
            inner: Stored::Vec(v),
        }
    }
}

impl std::fmt::Debug for Records {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl PartialEq for Records {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

#[cfg(feature = "serde")]
impl serde::Serialize for Records {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.collect_seq(self.iter())
    }
}

#[cfg(feature = "serde")]
impl<'de> serde::Deserialize<'de> for Records {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        Vec::<JobRecord>::deserialize(d).map(Self::from)
    }
}

/// Iterator over the [`Records`] of a schedule.
#[derive(Debug, Clone)]
pub struct RecordIter<'a> {
    records: &'a Records,
    range: std::ops::Range<usize>,
}

impl Iterator for RecordIter<'_> {
    type Item = JobRecord;

    fn next(&mut self) -> Option<JobRecord> {
        self.range.next().and_then(|k| self.records.get(k))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.range.size_hint()
    }

    fn nth(&mut self, n: usize) -> Option<JobRecord> {
        self.range.nth(n).and_then(|k| self.records.get(k))
    }
}

impl DoubleEndedIterator for RecordIter<'_> {
    fn next_back(&mut self) -> Option<JobRecord> {
        self.range.next_back().and_then(|k| self.records.get(k))
    }
}

impl ExactSizeIterator for RecordIter<'_> {}

impl std::iter::FusedIterator for RecordIter<'_> {}

impl<'a> IntoIterator for &'a Records {
    type Item = JobRecord;
    type IntoIter = RecordIter<'a>;

    fn into_iter(self) -> RecordIter<'a> {
        self.iter()
    }
}

/// Jobs a simulation can run: a slice or vector of [`Job`]s (stored compactly for the
/// run) or a [`JobTable`] (shared with the schedule, no copy).
pub trait JobSource {
    /// The jobs as a table.
    fn job_table(&self) -> Result<Cow<'_, JobTable>>;
}

fn table_of(jobs: &[Job]) -> Result<Cow<'static, JobTable>> {
    JobTable::try_from(jobs)
        .map(Cow::Owned)
        .map_err(|e| SimError::InvalidParameter {
            name: "jobs",
            value: e.to_string(),
            reason: "the jobs must fit a job table",
        })
}

impl JobSource for [Job] {
    fn job_table(&self) -> Result<Cow<'_, JobTable>> {
        table_of(self)
    }
}

impl JobSource for Vec<Job> {
    fn job_table(&self) -> Result<Cow<'_, JobTable>> {
        table_of(self)
    }
}

impl<const N: usize> JobSource for [Job; N] {
    fn job_table(&self) -> Result<Cow<'_, JobTable>> {
        table_of(self)
    }
}

impl JobSource for JobTable {
    fn job_table(&self) -> Result<Cow<'_, JobTable>> {
        Ok(Cow::Borrowed(self))
    }
}

/// The events the kernel's queue holds: completions, and passes at a later instant (a
/// policy's wake-up). Arrivals (a stream in time order) and the pass requested at the
/// current instant stay out of the queue; [`State::next`] merges them in its tie order.
#[derive(Debug, Clone, Copy)]
enum Ev {
    Finish(usize),
    Pass,
}

const CLASS_FINISH: u32 = 0;
const CLASS_ARRIVE: u32 = 1;
const CLASS_PASS: u32 = 2;

/// The order in which jobs arrive (submit time, then job number, then index).
enum ArrivalOrder {
    /// The job slice is already in arrival order (a cleaned workload is): no index table;
    /// the rows `from..to` arrive (all of them but in a part of a run split at idle
    /// instants, [`simulate_in_parts`]).
    Slice { from: usize, to: usize },
    /// Job indices in arrival order.
    Sorted(Vec<usize>),
}

impl ArrivalOrder {
    /// How job `a` compares with job `b` in arrival order: submit time, then job number, then
    /// row.
    fn arrival_cmp(jobs: &JobTable, a: usize, b: usize) -> std::cmp::Ordering {
        jobs.submit(a)
            .total_cmp(&jobs.submit(b))
            .then(jobs.id(a).cmp(&jobs.id(b)))
            .then(a.cmp(&b))
    }

    /// Whether the rows are in arrival order: in queue order (submit time, then job
    /// number), the index breaking the ties.
    fn in_order(jobs: &JobTable) -> bool {
        jobs.summary().queue_ordered
            || (1..jobs.len()).all(|i| Self::arrival_cmp(jobs, i - 1, i).is_lt())
    }

    fn of(jobs: &JobTable) -> Self {
        let n = jobs.len();
        if Self::in_order(jobs) {
            return Self::Slice { from: 0, to: n };
        }
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by(|&a, &b| Self::arrival_cmp(jobs, a, b));
        Self::Sorted(order)
    }

    /// The index of the `k`-th job to arrive.
    fn get(&self, k: usize) -> Option<usize> {
        match self {
            Self::Slice { from, to } => (k < to - from).then_some(from + k),
            Self::Sorted(order) => order.get(k).copied(),
        }
    }
}

/// Job `i` as the policies see it.
fn candidate(jobs: &JobTable, i: usize) -> Candidate {
    Candidate {
        key: i,
        // `prepare` (or a replay's drop rules) checked that the processors lie in
        // 1..=capacity.
        procs: jobs.procs(i) as u32,
        estimate: jobs.estimate(i),
    }
}

/// The simulation's state. The jobs (submit time, job number, processors, estimate and run
/// time) are read from the table each call is given: a [`Replay`]'s table grows between
/// calls.
struct State<'a, P: ?Sized> {
    /// Submit time and job number of the last known job (a replay checks that they stay).
    last_known: Option<(f64, u64)>,
    /// A replay of a log before cleaning: the rows of the jobs that cannot run, left out
    /// (ascending). None: such a job is an error.
    left_out: Option<Vec<usize>>,
    /// The first row this state simulates (0 but in a part of a run split at idle
    /// instants): `start` and `reservation` hold the rows from `base` on.
    base: usize,
    /// Start time per job, in job-slice order (NaN until it starts): with `reservation`
    /// the simulation's whole per-job state, 16 bytes.
    start: Vec<f64>,
    /// First reservation per job (NaN: none yet).
    reservation: Vec<f64>,
    /// Jobs started so far.
    started: usize,
    arrival_order: ArrivalOrder,
    next_arrival: usize,
    order: &'a QueueOrder,
    expiry: Option<&'a [f64]>,
    policy: &'a mut P,
    capacity: u32,
    /// Waiting jobs in queue order (`key` = index into the job slice).
    queue: WaitQueue,
    free: u32,
    running: RunningSet,
    expired: Vec<usize>,
    /// The instant of the last pass requested by an event (not by a wake-up).
    pass_at: Option<f64>,
    /// A pass is requested at `pass_at` and has not run yet.
    pass_due: bool,
    wake_at: Option<f64>,
    out: PassOutcome,
}

impl<P: ?Sized> State<'_, P> {
    /// Jobs known so far: the first `known()` rows of the table (all of them in one run).
    fn known(&self) -> usize {
        self.base + self.start.len()
    }
}

/// The next event to deliver.
enum Next {
    /// The kernel queue's next event.
    Queued,
    /// The arrival of job `i` at its submit time.
    Arrival(usize, f64),
    /// The pass requested at `pass_at`.
    Pass(f64),
}

impl<P: SchedulingPolicy + ?Sized> State<'_, P> {
    fn order_cmp(&self, j: &JobTable, a: usize, b: usize) -> std::cmp::Ordering {
        let primary = match self.order {
            QueueOrder::Fcfs => std::cmp::Ordering::Equal,
            QueueOrder::ShortestEstimate => j.estimate(a).total_cmp(&j.estimate(b)),
            QueueOrder::Key(k) => k[a].total_cmp(&k[b]),
        };
        primary
            .then(j.submit(a).total_cmp(&j.submit(b)))
            .then(j.id(a).cmp(&j.id(b)))
            .then(a.cmp(&b))
    }

    fn enqueue(&mut self, jobs: &JobTable, i: usize) {
        let pos = match self.queue.last() {
            Some(last) if self.order_cmp(jobs, last.key, i).is_gt() => self
                .queue
                .as_slice()
                .partition_point(|q| self.order_cmp(jobs, q.key, i).is_lt()),
            _ => self.queue.len(),
        };
        self.queue.insert(pos, candidate(jobs, i));
    }

    /// Asks for one pass at the current instant (after its completions and arrivals).
    fn request_pass(&mut self, now: f64) {
        if self.pass_at != Some(now) {
            self.pass_at = Some(now);
            self.pass_due = true;
        }
    }

    /// The next event in the kernel's tie order: by time, then class (completions,
    /// arrivals, passes), then issue order. The next arrival was issued after every queued
    /// event of its time and class (it would have been queued when the arrival before it was
    /// delivered), and the requested pass after every queued pass of its instant (a wake-up
    /// is queued for a later instant only), so each goes after the queued events of its
    /// time and class. None at or after `horizon`.
    fn next(&self, jobs: &JobTable, sim: &mut Simulation<Ev>, horizon: f64) -> Option<Next> {
        let before =
            |(t, c): (f64, u32), (u, d): (f64, u32)| t.total_cmp(&u).then(c.cmp(&d)).is_lt();
        let mut next = sim.peek_key().map(|key| (key, Next::Queued));
        if let Some(i) = self.arrival_order.get(self.next_arrival) {
            let key = (jobs.submit(i), CLASS_ARRIVE);
            if next.as_ref().is_none_or(|&(k, _)| before(key, k)) {
                next = Some((key, Next::Arrival(i, key.0)));
            }
        }
        if let Some(t) = self.pass_at.filter(|_| self.pass_due) {
            let key = (t, CLASS_PASS);
            if next.as_ref().is_none_or(|&(k, _)| before(key, k)) {
                next = Some((key, Next::Pass(t)));
            }
        }
        next.filter(|&((t, _), _)| t < horizon).map(|(_, n)| n)
    }

    /// Delivers every event before `horizon` in order.
    fn run(&mut self, jobs: &JobTable, sim: &mut Simulation<Ev>, horizon: f64) -> Result<()> {
        while let Some(next) = self.next(jobs, sim, horizon) {
            match next {
                Next::Queued => {
                    let Some(ev) = sim.step() else { break };
                    match ev.event {
                        Ev::Finish(i) => self.finish(jobs, i, sim.now())?,
                        Ev::Pass => self.pass(jobs, sim)?,
                    }
                }
                Next::Arrival(i, t) => {
                    sim.deliver_at(t)?;
                    self.arrive(jobs, i, t)?;
                }
                Next::Pass(t) => {
                    sim.deliver_at(t)?;
                    self.pass_due = false;
                    self.pass(jobs, sim)?;
                }
            }
        }
        Ok(())
    }

    fn finish(&mut self, jobs: &JobTable, i: usize, now: f64) -> Result<()> {
        let c = candidate(jobs, i);
        let predicted = self.start[i - self.base] + c.estimate;
        self.free += c.procs;
        self.running.remove(i, predicted, c.procs);
        self.policy.on_finish(now, &c, predicted)?;
        self.request_pass(now);
        Ok(())
    }

    fn arrive(&mut self, jobs: &JobTable, i: usize, now: f64) -> Result<()> {
        self.next_arrival += 1;
        self.pass_over_left_out(jobs);
        let c = candidate(jobs, i);
        if let Some(t) = self.policy.on_arrival(now, &c)? {
            self.reservation[i - self.base] = t;
        }
        self.enqueue(jobs, i);
        self.request_pass(now);
        Ok(())
    }

    fn start_job(&mut self, jobs: &JobTable, i: usize, sim: &mut Simulation<Ev>) -> Result<()> {
        let now = sim.now();
        let run = jobs.effective_runtime(i);
        let c = candidate(jobs, i);
        self.free -= c.procs;
        self.start[i - self.base] = now;
        self.started += 1;
        self.running.insert(i, now + c.estimate, c.procs);
        sim.schedule_at(now + run, CLASS_FINISH, Ev::Finish(i))?;
        Ok(())
    }

    fn expire(&mut self, now: f64) -> Result<()> {
        let Some(exp) = self.expiry else {
            return Ok(());
        };
        let mut k = 0;
        while k < self.queue.len() {
            let c = self.queue.as_slice()[k];
            if now > exp[c.key] {
                self.queue.remove(k);
                self.expired.push(c.key);
                self.policy.on_withdraw(now, &c)?;
            } else {
                k += 1;
            }
        }
        Ok(())
    }

    fn pass(&mut self, jobs: &JobTable, sim: &mut Simulation<Ev>) -> Result<()> {
        let now = sim.now();
        self.expire(now)?;
        if self.queue.is_empty() {
            return Ok(());
        }
        let machine = MachineState {
            now,
            free: self.free,
            capacity: self.capacity,
            running: &self.running,
        };
        self.policy
            .schedule(&machine, self.queue.as_slice(), &mut self.out)?;
        let out = &self.out;
        if let (Some(h), Some(s)) = (out.head, out.shadow) {
            let hi = self.queue.as_slice().get(h).map(|c| c.key);
            if let Some(hi) = hi {
                let r = &mut self.reservation[hi - self.base];
                if r.is_nan() && s.is_finite() {
                    *r = s;
                }
            }
        }
        if let Some(w) = out.wake {
            if w > now && self.wake_at != Some(w) {
                self.wake_at = Some(w);
                sim.schedule_at(w, CLASS_PASS, Ev::Pass)?;
            }
        }
        self.check_starts()?;
        for k in 0..self.out.start.len() {
            let i = self.queue.as_slice()[self.out.start[k]].key;
            self.start_job(jobs, i, sim)?;
        }
        self.queue.remove_positions(&self.out.start);
        Ok(())
    }

    /// A policy's starts must be ascending queue positions that fit in the free processors.
    fn check_starts(&self) -> Result<()> {
        let mut need = 0u64;
        let mut last = None;
        for &pos in &self.out.start {
            let Some(c) = self
                .queue
                .as_slice()
                .get(pos)
                .filter(|_| last.is_none_or(|l| l < pos))
            else {
                return Err(SimError::InvalidParameter {
                    name: "policy outcome",
                    value: format!("start position {pos} of a queue of {}", self.queue.len()),
                    reason: "positions must be ascending and inside the queue",
                });
            };
            last = Some(pos);
            need += u64::from(c.procs);
        }
        if need > u64::from(self.free) {
            return Err(SimError::InvalidParameter {
                name: "policy outcome",
                value: format!("{need} processors started with {} free", self.free),
                reason: "the jobs started in one pass must fit in the free processors",
            });
        }
        Ok(())
    }
}

/// Whether job `i` can run on `capacity` processors: the jobs [`slarm_workload::Workload`]'s
/// drop rules keep (a positive run time, processors in 1..=capacity).
fn can_run(jobs: &JobTable, i: usize, capacity: u32) -> bool {
    let procs = jobs.procs(i);
    jobs.runtime(i) > 0.0 && procs > 0 && procs <= i64::from(capacity)
}

/// Errors on the first of the jobs `rows` with a time that is not finite.
fn check_finite(jobs: &JobTable, rows: std::ops::Range<usize>) -> Result<()> {
    if jobs.summary().finite_times {
        return Ok(());
    }
    for i in rows {
        check_time("submit time", jobs.submit(i))?;
        check_time("run time", jobs.runtime(i))?;
        check_time("requested time", jobs.req_time(i))?;
    }
    Ok(())
}

/// Checks that the jobs `rows` can run; errors on the first that cannot.
fn prepare(jobs: &JobTable, rows: std::ops::Range<usize>, capacity: u32) -> Result<()> {
    // Finite times and a positive run time (so a positive estimate: the requested time if
    // positive, else the run time) for every job, and processors in range, let all run.
    let s = jobs.summary();
    if s.finite_times
        && s.min_runtime > 0.0
        && s.min_procs > 0
        && s.max_procs <= i64::from(capacity)
    {
        return Ok(());
    }
    for i in rows {
        let procs = jobs.procs(i);
        if procs <= 0 || procs > i64::from(capacity) {
            return Err(SimError::JobTooLarge {
                job_id: jobs.id(i),
                procs: u32::try_from(procs.max(0)).unwrap_or(u32::MAX),
                capacity,
            });
        }
        check_time("submit time", jobs.submit(i))?;
        let estimate = check_time("estimate", jobs.estimate(i))?;
        let run = check_time("run time", jobs.effective_runtime(i))?;
        if !(run > 0.0 && estimate > 0.0) {
            return Err(SimError::InvalidParameter {
                name: "run time",
                value: format!(
                    "job {}: run {} estimate {}",
                    jobs.id(i),
                    jobs.runtime(i),
                    estimate
                ),
                reason: "run time and estimate must be positive (apply the drop rules)",
            });
        }
    }
    Ok(())
}

/// Simulates a cleaned [`slarm_workload::Workload`] on its own machine size (its jobs are
/// shared with the schedule, not copied).
pub fn simulate_workload(w: &slarm_workload::Workload, cfg: &BatchConfig) -> Result<Schedule> {
    simulate(&w.jobs, w.machine_procs, cfg)
}

/// Simulates `jobs` (any order; they arrive by submit time) on `capacity` processors under
/// one of the built-in policies ([`PolicyKind::build`]); see [`simulate_with`].
pub fn simulate<J: JobSource + ?Sized>(
    jobs: &J,
    capacity: u32,
    cfg: &BatchConfig,
) -> Result<Schedule> {
    let mut policy = cfg.policy.build();
    simulate_with(
        jobs,
        capacity,
        &mut policy,
        &cfg.order,
        cfg.expiry.as_deref(),
    )
}

/// Errors unless a `QueueOrder::Key` and an expiry vector hold one value for each of the
/// first `n` jobs: at least `n` (`exact`: exactly `n`).
fn check_lengths(order: &QueueOrder, expiry: Option<&[f64]>, n: usize, exact: bool) -> Result<()> {
    let key = match order {
        QueueOrder::Key(k) => Some(k.len()),
        _ => None,
    };
    for (name, len) in [
        ("queue order key", key),
        ("expiry", expiry.map(<[f64]>::len)),
    ] {
        if let Some(len) = len.filter(|&len| len < n || (exact && len != n)) {
            return Err(SimError::InvalidParameter {
                name,
                value: len.to_string(),
                reason: "needs one value per job",
            });
        }
    }
    Ok(())
}

impl<'a, P: SchedulingPolicy + ?Sized> State<'a, P> {
    fn new(
        capacity: u32,
        policy: &'a mut P,
        order: &'a QueueOrder,
        expiry: Option<&'a [f64]>,
    ) -> Result<Self> {
        check_capacity(capacity)?;
        Ok(Self {
            last_known: None,
            left_out: None,
            base: 0,
            start: Vec::new(),
            reservation: Vec::new(),
            started: 0,
            arrival_order: ArrivalOrder::Slice { from: 0, to: 0 },
            next_arrival: 0,
            order,
            expiry,
            policy,
            capacity,
            queue: WaitQueue::default(),
            free: capacity,
            running: RunningSet::new(),
            expired: Vec::new(),
            pass_at: None,
            pass_due: false,
            wake_at: None,
            out: PassOutcome::default(),
        })
    }

    /// Takes the first `n` jobs of `jobs` as known (none have started).
    fn know(&mut self, jobs: &JobTable, n: usize) {
        self.start.resize(n - self.base, f64::NAN);
        self.reservation.resize(n - self.base, f64::NAN);
        self.last_known = n.checked_sub(1).map(|i| (jobs.submit(i), jobs.id(i)));
        self.pass_over_left_out(jobs);
    }

    /// In a replay that leaves out the jobs that cannot run, moves the next arrival past
    /// them.
    fn pass_over_left_out(&mut self, jobs: &JobTable) {
        let Some(left_out) = &mut self.left_out else {
            return;
        };
        while let Some(i) = self
            .arrival_order
            .get(self.next_arrival)
            .filter(|&i| !can_run(jobs, i, self.capacity))
        {
            left_out.push(i);
            self.next_arrival += 1;
        }
    }

    /// The schedule of a finished run whose jobs, the ones left out removed, are `jobs`.
    fn schedule(mut self, jobs: &JobTable, sim: &Simulation<Ev>) -> Schedule {
        if let Some(rows) = self.left_out.take() {
            for v in [&mut self.start, &mut self.reservation] {
                let mut row = 0;
                let mut next_out = rows.iter().peekable();
                v.retain(|_| {
                    let out = next_out.next_if_eq(&&row).is_some();
                    row += 1;
                    !out
                });
            }
            for i in &mut self.expired {
                *i -= rows.partition_point(|&r| r < *i);
            }
        }
        let policy = self.policy.name().to_string();
        let ran = Ran {
            start: self.start,
            reservation: self.reservation,
            started: self.started,
            expired: self.expired,
            events: sim.delivered(),
        };
        ran.schedule(jobs, self.capacity, policy)
    }
}

/// What a finished run decided, per job of its table: the parts of a [`Schedule`] that a
/// run split at idle instants puts together.
struct Ran {
    start: Vec<f64>,
    reservation: Vec<f64>,
    started: usize,
    expired: Vec<usize>,
    events: u64,
}

impl Ran {
    /// The schedule of `jobs` (one start and reservation per row) under `policy`.
    fn schedule(self, jobs: &JobTable, capacity: u32, policy: String) -> Schedule {
        let n = jobs.len();
        let started =
            (self.started < n).then(|| (0..n).filter(|&i| !self.start[i].is_nan()).collect());
        let records = Records {
            inner: Stored::Compact {
                // A clone of a table shares its storage.
                jobs: jobs.clone(),
                start: self.start,
                reservation: self.reservation,
                started,
            },
        };
        Schedule {
            capacity,
            policy,
            records,
            expired: self.expired,
            events: self.events,
        }
    }
}

/// Simulates `jobs` (any order; they arrive by submit time) on `capacity` processors under
/// any [`SchedulingPolicy`], with the waiting queue kept in `order` and, optionally, a
/// latest start per job (same order as `jobs`) after which a waiting job leaves the queue.
///
/// `jobs` is a slice or vector of [`Job`]s or a [`JobTable`] (see [`JobSource`]); the
/// schedule keeps the table (a slice is stored compactly first) and builds its records
/// from it.
///
/// Errors on a job that cannot run (processors outside 1..=capacity, non-positive or
/// non-finite times: apply [`slarm_workload::Workload`]'s drop rules first), on a
/// `QueueOrder::Key` or expiry vector whose length differs from the job count, on a
/// policy's own error and on a pass outcome that starts jobs outside the queue or beyond
/// the free processors.
pub fn simulate_with<J: JobSource + ?Sized, P: SchedulingPolicy + ?Sized>(
    jobs: &J,
    capacity: u32,
    policy: &mut P,
    order: &QueueOrder,
    expiry: Option<&[f64]>,
) -> Result<Schedule> {
    let mut state = State::new(capacity, policy, order, expiry)?;
    let table = jobs.job_table()?;
    let jobs: &JobTable = &table;
    prepare(jobs, 0..jobs.len(), capacity)?;
    check_lengths(order, expiry, jobs.len(), true)?;
    state.arrival_order = ArrivalOrder::of(jobs);
    state.know(jobs, jobs.len());
    let origin = state.arrival_order.get(0).map_or(0.0, |i| jobs.submit(i));
    state.policy.begin(capacity, origin)?;
    let mut sim = Simulation::starting_at(origin);
    state.run(jobs, &mut sim, f64::INFINITY)?;
    Ok(state.schedule(jobs, &sim))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn starts(s: &Schedule) -> Vec<(u64, f64)> {
        s.records.iter().map(|r| (r.id, r.start)).collect()
    }

    #[test]
    fn one_instant_is_completions_then_arrivals_then_one_pass() {
        // 4 processors. Job 1 holds all of them until t = 10; jobs 2 (long, 2 procs) and
        // 3 (short, 4 procs) arrive at t = 10 exactly. Completion first: the processors are
        // free for the arrivals. One pass after both arrivals: under shortest-estimate-first
        // job 3 goes first and takes the machine; a pass per arrival would have started
        // job 2 on its own arrival.
        let jobs = vec![
            Job::new(1, 0.0, 10.0, 4, 10.0),
            Job::new(2, 10.0, 100.0, 2, 100.0),
            Job::new(3, 10.0, 5.0, 4, 5.0),
        ];
        let cfg = BatchConfig {
            order: QueueOrder::ShortestEstimate,
            ..BatchConfig::new(PolicyKind::Easy)
        };
        let s = simulate(&jobs, 4, &cfg).unwrap();
        assert_eq!(starts(&s), vec![(1, 0.0), (2, 15.0), (3, 10.0)]);
        // FCFS order: job 2 first (submit tie broken by job number), job 3 waits for it.
        let s = simulate(&jobs, 4, &BatchConfig::new(PolicyKind::Fcfs)).unwrap();
        assert_eq!(starts(&s), vec![(1, 0.0), (2, 10.0), (3, 110.0)]);
    }

    #[test]
    fn expired_jobs_leave_the_queue_and_free_their_reservation() {
        // Job 2 cannot start before t = 100 but must start by t = 50: it expires, and job 3
        // behind it then runs as soon as job 1 ends, under every policy.
        let jobs = vec![
            Job::new(1, 0.0, 100.0, 4, 100.0),
            Job::new(2, 1.0, 10.0, 4, 10.0),
            Job::new(3, 2.0, 10.0, 4, 10.0),
        ];
        for policy in [PolicyKind::Fcfs, PolicyKind::Easy, PolicyKind::Conservative] {
            let cfg = BatchConfig {
                expiry: Some(vec![f64::INFINITY, 50.0, f64::INFINITY]),
                ..BatchConfig::new(policy)
            };
            let s = simulate(&jobs, 4, &cfg).unwrap();
            assert_eq!(s.expired, vec![1], "{policy:?}");
            assert_eq!(starts(&s), vec![(1, 0.0), (3, 100.0)], "{policy:?}");
        }
        let bad = BatchConfig {
            expiry: Some(vec![1.0]),
            ..BatchConfig::new(PolicyKind::Easy)
        };
        assert!(simulate(&jobs, 4, &bad).is_err());
    }
}
