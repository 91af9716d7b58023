//! The schedule checker: every way a schedule breaks a scheduling contract, found from the
//! trace and the schedule alone.
//!
//! A *schedule* says when each job ran ([`ScheduledJob`]); the *trace* says when each job
//! was submitted, how many processors it asked for and its run-time estimate
//! ([`Job::estimate`]). The checker knows nothing of the scheduler that produced the
//! schedule: it does not replay a policy, it tests properties that every schedule of the
//! contract must have. Times compare with a relative tolerance of [`TIME_TOLERANCE`].
//!
//! Every contract includes the **basic checks**: each row names a job of the trace, once;
//! each job of the trace has a row; the row's submit time and processors are the trace's;
//! `end >= start`; no start before submit; no run longer than the estimate allows
//! (`end - start <= estimate`: a job is killed when its estimate runs out); and the machine
//! is never over-committed (at every instant, the processors of the jobs with
//! `start <= t < end` sum to at most the capacity). On top of them:
//!
//! - [`Contract::Fcfs`]: jobs start in queue order, submit time then job number (no job
//!   starts before a job queued ahead of it).
//! - [`Contract::Easy`] (EASY backfilling, Lifka 1995; Mu'alem & Feitelson 2001): the queue
//!   head's reservation is never delayed. At the first instant `t` at which a job `h` is the
//!   head (the first waiting job in queue order, a waiting job being one with
//!   `submit <= t < start`), EASY gives it a reservation at its *shadow time*: the earliest
//!   `T >= t` at which, by the estimates of the jobs then running (each predicted to end at
//!   `start + estimate`), at least `h`'s processors are free. The jobs then running are those
//!   with `start <= t < end`, except jobs that start at `t` itself behind `h` in queue order
//!   (those are backfilled, and a backfill must not delay the head). The check: `h` starts
//!   no later than that shadow time. Jobs end at or before their predicted end, and a
//!   backfill either ends by the shadow time or uses processors spare at it, so the shadow
//!   time never moves later. Not checked: that the head starts as soon as it fits, and that a
//!   backfill was allowed when it happened (EASY backfills greedily in queue order; a
//!   schedule that backfills less is still EASY-safe for the head).
//! - [`Contract::Conservative`] (conservative backfilling, Mu'alem & Feitelson 2001): every
//!   job receives a reservation on arrival, in the plan of the running jobs (until their
//!   predicted ends) and of the reservations of the jobs queued ahead of it, and no
//!   reservation is ever delayed. The exact reservations depend on how the scheduler
//!   compresses its plan after early completions, which a schedule does not show, so the
//!   check uses a bound that holds whatever the compression: a job arriving at `t` is given
//!   a reservation no later than `U = max(t, the predicted ends of the jobs running at t,
//!   U_k + estimate_k of every job k queued ahead of it at t)`, when the plan is certainly
//!   empty; the check is `start <= U`. At one instant the jobs arrive in queue order after
//!   the jobs ending then have left and before any job starts then.
//! - [`Contract::Capacity`]: the basic checks only.
//!
//! ```
//! use slarm_testing::{check, Contract, ScheduledJob, Violation};
//! use slarm_workload::Job;
//!
//! let trace = vec![Job::new(1, 0.0, 100.0, 6, 100.0), Job::new(2, 1.0, 50.0, 8, 50.0),
//!                  Job::new(3, 2.0, 300.0, 4, 300.0)];
//! // Job 3 backfilled at t = 2 for 300 s on the 4 free processors: job 2 (the head since
//! // t = 1, reservation at t = 100) can then only start at t = 302.
//! let row = |id, submit, start, end, procs| ScheduledJob { id, submit, start, end, procs };
//! let schedule = vec![row(1, 0.0, 0.0, 100.0, 6), row(2, 1.0, 302.0, 352.0, 8),
//!                     row(3, 2.0, 2.0, 302.0, 4)];
//! let v = check(&trace, 10, &schedule, Contract::Easy)?;
//! assert_eq!(v, vec![Violation::HeadDelayed { job: 2, head_at: 1.0, reservation: 100.0, start: 302.0 }]);
//! # Ok::<(), slarm_testing::TestingError>(())
//! ```

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt;

use slarm_workload::Job;

use crate::error::{Result, TestingError};
use crate::schedule::ScheduledJob;

/// Relative tolerance of time comparisons: `a` is later than `b` when
/// `a - b > TIME_TOLERANCE * max(1, |a|, |b|)` (a start plus a run time rounds).
pub const TIME_TOLERANCE: f64 = 1e-9;

/// Which scheduling contract a schedule must keep (see the [module docs](self)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "lowercase"))]
pub enum Contract {
    /// The basic checks only: the machine is never over-committed, no job starts before
    /// its submission or runs longer than its estimate, every job runs once.
    Capacity,
    /// The basic checks, and jobs start in queue order (FCFS without backfilling).
    Fcfs,
    /// The basic checks, and the queue head's EASY reservation is never delayed.
    Easy,
    /// The basic checks, and no job starts after the latest reservation conservative
    /// backfilling can have given it on arrival.
    Conservative,
}

impl std::str::FromStr for Contract {
    type Err = TestingError;
    fn from_str(s: &str) -> Result<Self> {
        match s.to_ascii_lowercase().as_str() {
            "capacity" | "capacity-only" => Ok(Self::Capacity),
            "fcfs" => Ok(Self::Fcfs),
            "easy" => Ok(Self::Easy),
            "conservative" => Ok(Self::Conservative),
            _ => Err(TestingError::InvalidParameter {
                name: "contract",
                value: s.to_string(),
                reason: "expected capacity, fcfs, easy or conservative",
            }),
        }
    }
}

/// One way in which a schedule breaks its contract. Times in seconds, jobs by number.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(tag = "kind", rename_all = "kebab-case"))]
pub enum Violation {
    /// A row names a job that is not in the trace.
    UnknownJob {
        /// Job number.
        job: u64,
    },
    /// A job has more than one row (every row after the first is ignored).
    DuplicateJob {
        /// Job number.
        job: u64,
    },
    /// A job of the trace has no row.
    MissingJob {
        /// Job number.
        job: u64,
    },
    /// A row's submit time or processor count differs from the trace.
    Mismatch {
        /// Job number.
        job: u64,
        /// `submit` or `procs`.
        field: &'static str,
        /// The trace's value.
        trace: f64,
        /// The schedule's value.
        schedule: f64,
    },
    /// A job ends before it starts.
    EndBeforeStart {
        /// Job number.
        job: u64,
        /// Start time.
        start: f64,
        /// End time.
        end: f64,
    },
    /// More processors are in use than the machine has, from `from` to `to`.
    OverCommit {
        /// Start of the over-committed interval.
        from: f64,
        /// End of the interval.
        to: f64,
        /// Most processors in use during the interval.
        used: u64,
        /// Machine size.
        capacity: u32,
    },
    /// A job starts before it is submitted.
    StartBeforeSubmit {
        /// Job number.
        job: u64,
        /// Submit time (from the trace).
        submit: f64,
        /// Start time.
        start: f64,
    },
    /// A job runs longer than its estimate allows.
    OverEstimate {
        /// Job number.
        job: u64,
        /// `end - start`.
        ran: f64,
        /// The estimate (requested time, else the run time).
        estimate: f64,
    },
    /// FCFS: a job starts before a job queued ahead of it.
    FcfsOrder {
        /// The job that started too early.
        job: u64,
        /// Its start.
        start: f64,
        /// The job queued ahead of it with the latest start.
        overtaken: u64,
        /// That job's start.
        overtaken_start: f64,
    },
    /// EASY: the queue head starts after the reservation it got when it became the head.
    HeadDelayed {
        /// The head.
        job: u64,
        /// When it first became the head.
        head_at: f64,
        /// Its shadow time then.
        reservation: f64,
        /// Its start.
        start: f64,
    },
    /// Conservative: a job starts after the latest reservation it can have got on arrival.
    ReservationDelayed {
        /// Job number.
        job: u64,
        /// The latest reservation possible.
        bound: f64,
        /// Its start.
        start: f64,
    },
    /// Assignment: a job's processor set does not hold its processor count.
    AllocationSize {
        /// Job number.
        job: u64,
        /// Processors in its set.
        allocated: u64,
        /// Its processor count.
        procs: u32,
    },
    /// Assignment: a job uses a processor the machine does not have.
    ProcessorOutOfRange {
        /// Job number.
        job: u64,
        /// The highest processor it uses.
        processor: u64,
        /// Machine size (processors `0..capacity`).
        capacity: u32,
    },
    /// Assignment: one processor serves two jobs at once.
    ProcessorShared {
        /// The first processor they share.
        processor: u64,
        /// The job that holds it.
        job: u64,
        /// The job that starts on it meanwhile.
        other: u64,
        /// Start of the overlap.
        from: f64,
        /// End of the overlap.
        to: f64,
    },
}

impl Violation {
    /// A short kebab-case name of the kind of violation (as in the JSON `kind` field).
    pub fn kind(&self) -> &'static str {
        match self {
            Self::UnknownJob { .. } => "unknown-job",
            Self::DuplicateJob { .. } => "duplicate-job",
            Self::MissingJob { .. } => "missing-job",
            Self::Mismatch { .. } => "mismatch",
            Self::EndBeforeStart { .. } => "end-before-start",
            Self::OverCommit { .. } => "over-commit",
            Self::StartBeforeSubmit { .. } => "start-before-submit",
            Self::OverEstimate { .. } => "over-estimate",
            Self::FcfsOrder { .. } => "fcfs-order",
            Self::HeadDelayed { .. } => "head-delayed",
            Self::ReservationDelayed { .. } => "reservation-delayed",
            Self::AllocationSize { .. } => "allocation-size",
            Self::ProcessorOutOfRange { .. } => "processor-out-of-range",
            Self::ProcessorShared { .. } => "processor-shared",
        }
    }

    /// The job the violation is about (`None` for an over-commit).
    pub fn job(&self) -> Option<u64> {
        match *self {
            Self::UnknownJob { job }
            | Self::DuplicateJob { job }
            | Self::MissingJob { job }
            | Self::Mismatch { job, .. }
            | Self::EndBeforeStart { job, .. }
            | Self::StartBeforeSubmit { job, .. }
            | Self::OverEstimate { job, .. }
            | Self::FcfsOrder { job, .. }
            | Self::HeadDelayed { job, .. }
            | Self::ReservationDelayed { job, .. }
            | Self::AllocationSize { job, .. }
            | Self::ProcessorOutOfRange { job, .. }
            | Self::ProcessorShared { job, .. } => Some(job),
            Self::OverCommit { .. } => None,
        }
    }
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::UnknownJob { job } => write!(f, "job {job} is not in the trace"),
            Self::DuplicateJob { job } => write!(f, "job {job} has more than one row"),
            Self::MissingJob { job } => write!(f, "job {job} of the trace has no row"),
            Self::Mismatch { job, field, trace, schedule } => {
                write!(f, "job {job}: {field} {schedule} differs from the trace's {trace}")
            }
            Self::EndBeforeStart { job, start, end } => {
                write!(f, "job {job} ends at {end} before it starts at {start}")
            }
            Self::OverCommit { from, to, used, capacity } => {
                write!(f, "{used} processors in use on a machine of {capacity} from {from} to {to}")
            }
            Self::StartBeforeSubmit { job, submit, start } => {
                write!(f, "job {job} starts at {start} before its submission at {submit}")
            }
            Self::OverEstimate { job, ran, estimate } => {
                write!(f, "job {job} runs {ran} s, longer than its estimate {estimate} s")
            }
            Self::FcfsOrder { job, start, overtaken, overtaken_start } => write!(
                f,
                "job {job} starts at {start} before job {overtaken} (queued ahead of it) at {overtaken_start}"
            ),
            Self::HeadDelayed { job, head_at, reservation, start } => write!(
                f,
                "job {job}, queue head since {head_at}, starts at {start} after its reservation at {reservation}"
            ),
            Self::ReservationDelayed { job, bound, start } => write!(
                f,
                "job {job} starts at {start}, after the latest reservation it can have got on arrival ({bound})"
            ),
            Self::AllocationSize { job, allocated, procs } => {
                write!(f, "job {job} is given {allocated} processors for {procs}")
            }
            Self::ProcessorOutOfRange { job, processor, capacity } => write!(
                f,
                "job {job} uses processor {processor} on a machine of {capacity} (0 to {})",
                u64::from(*capacity).saturating_sub(1)
            ),
            Self::ProcessorShared { processor, job, other, from, to } => write!(
                f,
                "processor {processor} serves jobs {job} and {other} at once, from {from} to {to}"
            ),
        }
    }
}

/// Whether `a` is later than `b` beyond [`TIME_TOLERANCE`].
fn later(a: f64, b: f64) -> bool {
    a - b > TIME_TOLERANCE * a.abs().max(b.abs()).max(1.0)
}

/// A row matched to its trace job: the trace's submit time and estimate, the schedule's
/// start, end and processors, and the job's position in queue order.
#[derive(Debug, Clone, Copy)]
struct Row {
    id: u64,
    rank: usize,
    submit: f64,
    estimate: f64,
    start: f64,
    end: f64,
    procs: u32,
}

impl Row {
    fn predicted_end(&self) -> f64 {
        self.start + self.estimate
    }
}

/// Checks `schedule` against `trace` (the cleaned jobs, any order) on a machine of
/// `capacity` processors under `contract`, returning every violation found (empty when the
/// schedule keeps the contract): first the basic checks row by row in schedule order, then
/// the jobs without a row in trace order, then over-commits by time, then the contract's
/// own checks in queue order.
///
/// Errors (not violations) when the capacity is 0 or the trace repeats a job number or has
/// a non-finite submit time or estimate.
pub fn check(
    trace: &[Job],
    capacity: u32,
    schedule: &[ScheduledJob],
    contract: Contract,
) -> Result<Vec<Violation>> {
    if capacity == 0 {
        return Err(TestingError::InvalidParameter {
            name: "capacity",
            value: "0".into(),
            reason: "a machine needs at least one processor",
        });
    }
    let rank = queue_ranks(trace)?;
    let mut violations = Vec::new();
    let rows = match_rows(trace, &rank, schedule, &mut violations);
    for r in &rows {
        basic_checks(r, &mut violations);
    }
    over_commits(&rows, capacity, &mut violations);
    let mut in_queue_order = rows;
    in_queue_order.sort_by_key(|r| r.rank);
    match contract {
        Contract::Capacity => {}
        Contract::Fcfs => fcfs_order(&in_queue_order, &mut violations),
        Contract::Easy => easy_heads(&in_queue_order, capacity, &mut violations),
        Contract::Conservative => conservative_bounds(&in_queue_order, &mut violations),
    }
    Ok(violations)
}

/// Position of each trace job in queue order (submit time, then job number); errors on a
/// repeated job number or a non-finite time.
fn queue_ranks(trace: &[Job]) -> Result<Vec<usize>> {
    for j in trace {
        for (name, v) in [("submit time", j.submit), ("estimate", j.estimate())] {
            if !v.is_finite() {
                return Err(TestingError::InvalidParameter {
                    name,
                    value: format!("job {}: {v}", j.id),
                    reason: "trace times must be finite",
                });
            }
        }
    }
    let mut order: Vec<usize> = (0..trace.len()).collect();
    order.sort_by(|&a, &b| {
        trace[a]
            .submit
            .total_cmp(&trace[b].submit)
            .then(trace[a].id.cmp(&trace[b].id))
    });
    let mut rank = vec![0; trace.len()];
    for (k, w) in order.iter().enumerate() {
        rank[*w] = k;
        if k > 0 && trace[order[k - 1]].id == trace[*w].id {
            return Err(TestingError::InvalidParameter {
                name: "trace job number",
                value: trace[*w].id.to_string(),
                reason: "job numbers must be unique",
            });
        }
    }
    Ok(rank)
}

/// Matches rows to trace jobs; reports unknown, duplicate and missing jobs and mismatched
/// submit times and processors.
fn match_rows(
    trace: &[Job],
    rank: &[usize],
    schedule: &[ScheduledJob],
    violations: &mut Vec<Violation>,
) -> Vec<Row> {
    let index: HashMap<u64, usize> = trace.iter().enumerate().map(|(i, j)| (j.id, i)).collect();
    let mut seen = vec![false; trace.len()];
    let mut rows = Vec::with_capacity(schedule.len());
    for s in schedule {
        let Some(&i) = index.get(&s.id) else {
            violations.push(Violation::UnknownJob { job: s.id });
            continue;
        };
        if std::mem::replace(&mut seen[i], true) {
            violations.push(Violation::DuplicateJob { job: s.id });
            continue;
        }
        let j = &trace[i];
        if later(s.submit, j.submit) || later(j.submit, s.submit) {
            violations.push(Violation::Mismatch {
                job: s.id,
                field: "submit",
                trace: j.submit,
                schedule: s.submit,
            });
        }
        if i64::from(s.procs) != j.procs() {
            violations.push(Violation::Mismatch {
                job: s.id,
                field: "procs",
                trace: j.procs() as f64,
                schedule: f64::from(s.procs),
            });
        }
        rows.push(Row {
            id: s.id,
            rank: rank[i],
            submit: j.submit,
            estimate: j.estimate(),
            start: s.start,
            end: s.end,
            procs: s.procs,
        });
    }
    violations.extend(
        trace
            .iter()
            .zip(&seen)
            .filter(|(_, &s)| !s)
            .map(|(j, _)| Violation::MissingJob { job: j.id }),
    );
    rows
}

fn basic_checks(r: &Row, violations: &mut Vec<Violation>) {
    if r.end < r.start {
        violations.push(Violation::EndBeforeStart {
            job: r.id,
            start: r.start,
            end: r.end,
        });
    }
    if later(r.submit, r.start) {
        violations.push(Violation::StartBeforeSubmit {
            job: r.id,
            submit: r.submit,
            start: r.start,
        });
    }
    if later(r.end, r.start + r.estimate) {
        violations.push(Violation::OverEstimate {
            job: r.id,
            ran: r.end - r.start,
            estimate: r.estimate,
        });
    }
}

/// Intervals during which the jobs with `start <= t < end` use more than `capacity`.
fn over_commits(rows: &[Row], capacity: u32, violations: &mut Vec<Violation>) {
    let mut events: Vec<(f64, i64)> = rows
        .iter()
        .filter(|r| r.end > r.start)
        .flat_map(|r| [(r.start, i64::from(r.procs)), (r.end, -i64::from(r.procs))])
        .collect();
    events.sort_by(|a, b| a.0.total_cmp(&b.0));
    let cap = i64::from(capacity);
    let mut used = 0i64;
    let mut open: Option<(f64, i64)> = None;
    let mut k = 0;
    while k < events.len() {
        let t = events[k].0;
        while k < events.len() && events[k].0 == t {
            used += events[k].1;
            k += 1;
        }
        match (&mut open, used > cap) {
            (None, true) => open = Some((t, used)),
            (Some((_, most)), true) => *most = (*most).max(used),
            (Some((from, most)), false) => {
                violations.push(Violation::OverCommit {
                    from: *from,
                    to: t,
                    used: u64::try_from(*most).unwrap_or(0),
                    capacity,
                });
                open = None;
            }
            (None, false) => {}
        }
    }
}

/// FCFS: in queue order, no job starts before the latest start of the jobs ahead of it.
fn fcfs_order(rows: &[Row], violations: &mut Vec<Violation>) {
    let mut latest: Option<&Row> = None;
    for r in rows {
        match latest {
            Some(l) if later(l.start, r.start) => violations.push(Violation::FcfsOrder {
                job: r.id,
                start: r.start,
                overtaken: l.id,
                overtaken_start: l.start,
            }),
            Some(l) if l.start >= r.start => {}
            _ => latest = Some(r),
        }
    }
}

/// The distinct submit, start and end times of the rows, ascending.
fn instants(rows: &[Row]) -> Vec<f64> {
    let mut t: Vec<f64> = rows
        .iter()
        .flat_map(|r| [r.submit, r.start, r.end])
        .collect();
    t.sort_by(f64::total_cmp);
    t.dedup();
    t
}

/// Indices of `rows` sorted by `key`.
fn sorted_by(rows: &[Row], key: impl Fn(&Row) -> f64) -> Vec<usize> {
    let mut v: Vec<usize> = (0..rows.len()).collect();
    v.sort_by(|&a, &b| key(&rows[a]).total_cmp(&key(&rows[b])));
    v
}

/// EASY: each job, when it first becomes the queue head, starts no later than its shadow
/// time then. `rows` in queue order.
fn easy_heads(rows: &[Row], capacity: u32, violations: &mut Vec<Violation>) {
    let by_start = sorted_by(rows, |r| r.start);
    let by_end = sorted_by(rows, |r| r.end);
    let (mut next_submit, mut next_start, mut next_end) = (0, 0, 0);
    // Running jobs (position in `rows` = queue order) and waiting jobs, at the current instant.
    let mut running: BTreeSet<usize> = BTreeSet::new();
    let mut waiting: BTreeSet<usize> = BTreeSet::new();
    let mut was_head = vec![false; rows.len()];
    for t in instants(rows) {
        while let Some(&i) = by_end.get(next_end).filter(|&&i| rows[i].end <= t) {
            running.remove(&i);
            next_end += 1;
        }
        while let Some(&i) = by_start.get(next_start).filter(|&&i| rows[i].start <= t) {
            waiting.remove(&i);
            if rows[i].end > t {
                running.insert(i);
            }
            next_start += 1;
        }
        while let Some(r) = rows.get(next_submit).filter(|r| r.submit <= t) {
            if r.start > t {
                waiting.insert(next_submit);
            }
            next_submit += 1;
        }
        let Some(&h) = waiting.first() else { continue };
        if std::mem::replace(&mut was_head[h], true) {
            continue;
        }
        // Jobs starting now behind the head are backfills: they must not count.
        let ahead = running
            .iter()
            .map(|&i| &rows[i])
            .filter(|r| r.start < t || r.rank < rows[h].rank);
        if let Some(shadow) = shadow_time(t, capacity, rows[h].procs, ahead) {
            if later(rows[h].start, shadow) {
                violations.push(Violation::HeadDelayed {
                    job: rows[h].id,
                    head_at: t,
                    reservation: shadow,
                    start: rows[h].start,
                });
            }
        }
    }
}

/// The earliest `T >= now` at which `need` processors are free on a machine of `capacity`
/// when each of `running` holds its processors until its predicted end (at least `now`);
/// `None` when `need` exceeds the machine.
fn shadow_time<'a>(
    now: f64,
    capacity: u32,
    need: u32,
    running: impl Iterator<Item = &'a Row>,
) -> Option<f64> {
    if need > capacity {
        return None;
    }
    let mut releases: Vec<(f64, u32)> = running
        .map(|r| (r.predicted_end().max(now), r.procs))
        .collect();
    let used: u64 = releases.iter().map(|&(_, p)| u64::from(p)).sum();
    let mut free = i64::from(capacity) - i64::try_from(used).unwrap_or(i64::MAX);
    if free >= i64::from(need) {
        return Some(now);
    }
    releases.sort_by(|a, b| a.0.total_cmp(&b.0));
    for (end, procs) in releases {
        free += i64::from(procs);
        if free >= i64::from(need) {
            return Some(end);
        }
    }
    None
}

/// A multiset of times with its maximum.
#[derive(Default)]
struct Times(BTreeMap<u64, usize>);

impl Times {
    /// Order-preserving key of a time (total order of f64).
    fn key(t: f64) -> u64 {
        let b = t.to_bits();
        if b >> 63 == 1 {
            !b
        } else {
            b | (1 << 63)
        }
    }
    fn time(k: u64) -> f64 {
        f64::from_bits(if k >> 63 == 1 { k & !(1 << 63) } else { !k })
    }
    fn insert(&mut self, t: f64) {
        *self.0.entry(Self::key(t)).or_insert(0) += 1;
    }
    fn remove(&mut self, t: f64) {
        let k = Self::key(t);
        if let Some(n) = self.0.get_mut(&k) {
            *n -= 1;
            if *n == 0 {
                self.0.remove(&k);
            }
        }
    }
    fn max(&self) -> Option<f64> {
        self.0.keys().next_back().map(|&k| Self::time(k))
    }
}

/// Conservative: each job starts no later than `U`, the time by which every job running at
/// its arrival and every job queued ahead of it has certainly left the plan. `rows` in
/// queue order.
fn conservative_bounds(rows: &[Row], violations: &mut Vec<Violation>) {
    let by_start = sorted_by(rows, |r| r.start);
    let by_end = sorted_by(rows, |r| r.end);
    let (mut next_submit, mut next_start, mut next_end) = (0, 0, 0);
    // Predicted ends of running jobs; latest reservation ends of queued jobs.
    let mut running = Times::default();
    let mut queued = Times::default();
    let mut queued_end = vec![None; rows.len()];
    for t in instants(rows) {
        while let Some(&i) = by_end.get(next_end).filter(|&&i| rows[i].end <= t) {
            if rows[i].end > rows[i].start {
                running.remove(rows[i].predicted_end());
            }
            next_end += 1;
        }
        while let Some(r) = rows.get(next_submit).filter(|r| r.submit <= t) {
            if r.start >= t {
                let bound = [running.max(), queued.max()]
                    .into_iter()
                    .flatten()
                    .fold(t, f64::max);
                if later(r.start, bound) {
                    violations.push(Violation::ReservationDelayed {
                        job: r.id,
                        bound,
                        start: r.start,
                    });
                }
                let end = bound + r.estimate;
                queued.insert(end);
                queued_end[next_submit] = Some(end);
            }
            next_submit += 1;
        }
        while let Some(&i) = by_start.get(next_start).filter(|&&i| rows[i].start <= t) {
            if let Some(end) = queued_end[i].take() {
                queued.remove(end);
            }
            if rows[i].end > rows[i].start {
                running.insert(rows[i].predicted_end());
            }
            next_start += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_keys_keep_the_order() {
        let ts = [-5.5, -0.0, 0.0, 1e-300, 3.0, 1e300];
        for w in ts.windows(2) {
            assert!(Times::key(w[0]) <= Times::key(w[1]));
            assert_eq!(Times::time(Times::key(w[0])).to_bits(), w[0].to_bits());
        }
    }
}
