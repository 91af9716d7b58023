//! [`JobTable`]: the compact storage of a list of [`Job`]s, 88 bytes a job instead of the
//! 144 of the 18-field record, without losing a bit of any field.
//!
//! The four fields the simulators read at full precision (job number, submit time, run
//! time, requested time) are kept as they are. The other 14 SWF fields are packed into
//! 32-bit slots: a value that is a whole number in `[-2^30, 2^31)` (nearly every value of the
//! archive's logs, `-1` for "missing" included) is its own slot; any other value (a fraction,
//! a large number, `-0.0`) is kept at full width in a side list that its slot points to.
//! Every job reads back exactly as it was stored ([`JobTable::get`]), and the table is cheap
//! to share: clones share the storage (copy on write), so a schedule can keep the jobs it
//! was computed from without a copy.
//!
//! ```
//! use slarm_workload::{Job, JobTable};
//!
//! let mut j = Job::new(7, 0.5, 10.0, 4, 20.0);
//! j.avg_cpu = 9.75; // a fraction: kept at full width
//! j.user = i64::MAX;
//! let t = JobTable::try_from_jobs([j, Job::new(8, 1.0, 5.0, 2, -1.0)])?;
//! assert_eq!(t.len(), 2);
//! assert_eq!(t.get(0), Some(j));
//! assert_eq!((t.procs(1), t.estimate(1)), (2, 5.0));
//! assert_eq!(t.iter().map(|j| j.id).collect::<Vec<_>>(), vec![7, 8]);
//! # Ok::<(), slarm_workload::WorkloadError>(())
//! ```

use std::sync::Arc;

use crate::error::{invalid, Result};
use crate::job::Job;

/// Smallest value kept in a slot itself; slots below it point into the wide list.
const DIRECT_MIN: i32 = -(1 << 30);

/// Most values a table keeps at full width (a slot below -2^30 points to one of them).
pub const MAX_WIDE_VALUES: usize = 1 << 30;

/// Slot positions of the packed fields.
const WAIT: usize = 0;
const ALLOC_PROCS: usize = 1;
const AVG_CPU: usize = 2;
const USED_MEM: usize = 3;
const REQ_PROCS: usize = 4;
const REQ_MEM: usize = 5;
const STATUS: usize = 6;
const USER: usize = 7;
const GROUP: usize = 8;
const APP: usize = 9;
const QUEUE: usize = 10;
const PARTITION: usize = 11;
const PRECEDING: usize = 12;
const THINK_TIME: usize = 13;
const PACKED: usize = 14;

/// One job as stored: 32 bytes of full-precision fields and 14 slots of 4 bytes.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Row {
    id: u64,
    submit: f64,
    runtime: f64,
    req_time: f64,
    slots: [i32; PACKED],
}

#[derive(Debug, Clone, Default)]
struct Storage {
    rows: Vec<Row>,
    /// Values that do not fit a slot, as bits (`f64::to_bits` or `i64 as u64`).
    wide: Vec<u64>,
    /// What holds of every row, kept as rows are appended.
    summary: TableSummary,
}

/// What holds of every job of a [`JobTable`], kept up to date as jobs are appended
/// ([`JobTable::summary`]), so that the checks before a simulation (queue order, finite
/// times, processors and run times in range) read a few numbers instead of the whole table.
///
/// The bounds are bounds, not always the extremes: after jobs are removed
/// ([`JobTable::retain`], [`JobTable::truncate`], ...) they still hold of the jobs kept.
///
/// ```
/// use slarm_workload::{Job, JobTable};
///
/// let t = JobTable::try_from_jobs([Job::new(1, 0.0, 60.0, 4, 120.0), Job::new(2, 5.0, 30.0, 8, -1.0)])?;
/// let s = t.summary();
/// assert!(s.queue_ordered && s.finite_times);
/// assert_eq!((s.min_procs, s.max_procs, s.min_runtime), (4, 8, 30.0));
/// # Ok::<(), slarm_workload::WorkloadError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct TableSummary {
    /// True: the jobs are in queue order, submit time then job number never decreasing
    /// (submit times compared by [`f64::total_cmp`]). False: they may not be.
    pub queue_ordered: bool,
    /// True: every submit, run and requested time is finite. False: some may not be.
    pub finite_times: bool,
    /// No job has fewer processors ([`Job::procs`]); `i64::MAX` for an empty table.
    pub min_procs: i64,
    /// No job has more processors; `i64::MIN` for an empty table.
    pub max_procs: i64,
    /// No job has a shorter run time (field 4); infinity for an empty table. (A NaN run
    /// time leaves it as it is and makes `finite_times` false.)
    pub min_runtime: f64,
}

impl Default for TableSummary {
    fn default() -> Self {
        Self {
            queue_ordered: true,
            finite_times: true,
            min_procs: i64::MAX,
            max_procs: i64::MIN,
            min_runtime: f64::INFINITY,
        }
    }
}

/// Queue order of rows: submit time, then job number.
fn queue_order(a: &Row, b: &Row) -> std::cmp::Ordering {
    a.submit.total_cmp(&b.submit).then(a.id.cmp(&b.id))
}

impl TableSummary {
    /// The summary of the times of `rows`, processor bounds left as they are.
    fn with_times_of(mut self, rows: &[Row]) -> Self {
        self.queue_ordered = rows.is_sorted_by(|a, b| queue_order(a, b).is_le());
        self.finite_times = true;
        self.min_runtime = f64::INFINITY;
        rows.iter().for_each(|r| self.add_times(r));
        self
    }

    fn add_times(&mut self, r: &Row) {
        self.finite_times &=
            r.submit.is_finite() && r.runtime.is_finite() && r.req_time.is_finite();
        self.min_runtime = self.min_runtime.min(r.runtime);
    }

    /// Takes in `row`, appended after `last`, with `procs` processors.
    fn add(&mut self, last: Option<&Row>, row: &Row, procs: i64) {
        self.queue_ordered &= last.is_none_or(|l| queue_order(l, row).is_le());
        self.add_times(row);
        self.min_procs = self.min_procs.min(procs);
        self.max_procs = self.max_procs.max(procs);
    }
}

/// A list of [`Job`]s stored compactly (see the [module docs](self)). Jobs are built on
/// demand ([`JobTable::get`], [`JobTable::iter`]); the fields the simulators read have
/// accessors of their own that build nothing ([`JobTable::submit`], [`JobTable::procs`],
/// ...). Clones share the storage.
#[derive(Clone, Default)]
pub struct JobTable {
    inner: Arc<Storage>,
}

impl Storage {
    fn int(&self, slot: i32) -> i64 {
        if slot >= DIRECT_MIN {
            i64::from(slot)
        } else {
            self.wide[wide_index(slot)] as i64
        }
    }

    fn real(&self, slot: i32) -> f64 {
        if slot >= DIRECT_MIN {
            f64::from(slot)
        } else {
            f64::from_bits(self.wide[wide_index(slot)])
        }
    }

    fn wide_slot(&mut self, bits: u64) -> Result<i32> {
        let k = self.wide.len();
        if k >= MAX_WIDE_VALUES {
            return Err(invalid(
                "job table",
                k,
                "holds at most 2^30 values outside the 32-bit range",
            ));
        }
        self.wide.push(bits);
        // k < 2^30, so the slot lies in [i32::MIN, DIRECT_MIN).
        Ok(DIRECT_MIN - 1 - k as i32)
    }

    fn pack_int(&mut self, v: i64) -> Result<i32> {
        match i32::try_from(v) {
            Ok(s) if s >= DIRECT_MIN => Ok(s),
            _ => self.wide_slot(v as u64),
        }
    }

    fn pack_real(&mut self, v: f64) -> Result<i32> {
        // `as` saturates; the round trip through the bits keeps -0.0 and NaN out.
        let s = v as i32;
        if s >= DIRECT_MIN && f64::from(s).to_bits() == v.to_bits() {
            Ok(s)
        } else {
            self.wide_slot(v.to_bits())
        }
    }

    fn pack(&mut self, j: &Job) -> Result<Row> {
        let mut slots = [0i32; PACKED];
        slots[WAIT] = self.pack_real(j.wait)?;
        slots[ALLOC_PROCS] = self.pack_int(j.alloc_procs)?;
        slots[AVG_CPU] = self.pack_real(j.avg_cpu)?;
        slots[USED_MEM] = self.pack_real(j.used_mem)?;
        slots[REQ_PROCS] = self.pack_int(j.req_procs)?;
        slots[REQ_MEM] = self.pack_real(j.req_mem)?;
        slots[STATUS] = self.pack_int(j.status)?;
        slots[USER] = self.pack_int(j.user)?;
        slots[GROUP] = self.pack_int(j.group)?;
        slots[APP] = self.pack_int(j.app)?;
        slots[QUEUE] = self.pack_int(j.queue)?;
        slots[PARTITION] = self.pack_int(j.partition)?;
        slots[PRECEDING] = self.pack_int(j.preceding)?;
        slots[THINK_TIME] = self.pack_real(j.think_time)?;
        Ok(Row {
            id: j.id,
            submit: j.submit,
            runtime: j.runtime,
            req_time: j.req_time,
            slots,
        })
    }

    fn unpack(&self, r: &Row) -> Job {
        let s = &r.slots;
        Job {
            id: r.id,
            submit: r.submit,
            wait: self.real(s[WAIT]),
            runtime: r.runtime,
            alloc_procs: self.int(s[ALLOC_PROCS]),
            avg_cpu: self.real(s[AVG_CPU]),
            used_mem: self.real(s[USED_MEM]),
            req_procs: self.int(s[REQ_PROCS]),
            req_time: r.req_time,
            req_mem: self.real(s[REQ_MEM]),
            status: self.int(s[STATUS]),
            user: self.int(s[USER]),
            group: self.int(s[GROUP]),
            app: self.int(s[APP]),
            queue: self.int(s[QUEUE]),
            partition: self.int(s[PARTITION]),
            preceding: self.int(s[PRECEDING]),
            think_time: self.real(s[THINK_TIME]),
        }
    }

    /// [`Job::procs`] of a row.
    #[inline]
    fn procs(&self, r: &Row) -> i64 {
        // A positive slot is its own value; a negative one may point to a positive value.
        let req = r.slots[REQ_PROCS];
        if req > 0 {
            return i64::from(req);
        }
        let req = self.int(req);
        if req > 0 {
            req
        } else {
            self.int(r.slots[ALLOC_PROCS])
        }
    }
}

/// The wide-list position a slot below [`DIRECT_MIN`] points to.
#[inline]
fn wide_index(slot: i32) -> usize {
    // slot in [i32::MIN, DIRECT_MIN): DIRECT_MIN - 1 - slot in [0, 2^30).
    (i64::from(DIRECT_MIN) - 1 - i64::from(slot)) as usize
}

impl JobTable {
    /// An empty table.
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty table with room for `n` jobs.
    pub fn with_capacity(n: usize) -> Self {
        Self {
            inner: Arc::new(Storage {
                rows: Vec::with_capacity(n),
                ..Storage::default()
            }),
        }
    }

    /// The table of `jobs`, in their order. Errors only when more than
    /// [`MAX_WIDE_VALUES`] values lie outside the 32-bit range.
    pub fn try_from_jobs<I: IntoIterator<Item = Job>>(jobs: I) -> Result<Self> {
        let mut t = Self::default();
        t.try_extend(jobs)?;
        Ok(t)
    }

    /// Appends `job`. Errors only when the table already keeps [`MAX_WIDE_VALUES`] values
    /// at full width and `job` has one more.
    pub fn push(&mut self, job: Job) -> Result<()> {
        self.try_extend([job])
    }

    /// Appends `jobs` in order, as [`JobTable::push`] does one by one (the table is made
    /// its own once, not per job). Errors as `push` does; the jobs before the one that
    /// failed stay appended.
    ///
    /// ```
    /// use slarm_workload::{Job, JobTable};
    ///
    /// let mut t = JobTable::default();
    /// t.try_extend((1..=3).map(|id| Job::new(id, 0.0, 60.0, 4, 120.0)))?;
    /// assert_eq!(t.procs(2), 4);
    /// assert_eq!(t.len(), 3);
    /// # Ok::<(), slarm_workload::WorkloadError>(())
    /// ```
    pub fn try_extend(&mut self, jobs: impl IntoIterator<Item = Job>) -> Result<()> {
        let s = Arc::make_mut(&mut self.inner);
        let jobs = jobs.into_iter();
        s.rows.reserve(jobs.size_hint().0);
        for job in jobs {
            let row = s.pack(&job)?;
            let procs = s.procs(&row);
            s.summary.add(s.rows.last(), &row, procs);
            s.rows.push(row);
        }
        Ok(())
    }

    /// What holds of every job (queue order, finite times, bounds of processors and run
    /// times), without reading the jobs.
    pub fn summary(&self) -> TableSummary {
        self.inner.summary
    }

    /// Number of jobs.
    pub fn len(&self) -> usize {
        self.inner.rows.len()
    }

    /// True when the table holds no job.
    pub fn is_empty(&self) -> bool {
        self.inner.rows.is_empty()
    }

    /// Job `i`, built from its stored fields; `None` past the end.
    pub fn get(&self, i: usize) -> Option<Job> {
        self.inner.rows.get(i).map(|r| self.inner.unpack(r))
    }

    /// The first job.
    pub fn first(&self) -> Option<Job> {
        self.get(0)
    }

    /// The last job.
    pub fn last(&self) -> Option<Job> {
        self.len().checked_sub(1).and_then(|i| self.get(i))
    }

    /// The jobs in order, each built on demand.
    pub fn iter(&self) -> Iter<'_> {
        Iter {
            storage: &self.inner,
            range: 0..self.len(),
        }
    }

    /// The jobs as a vector of 18-field records (144 bytes a job).
    pub fn to_vec(&self) -> Vec<Job> {
        self.iter().collect()
    }

    /// Job number of job `i`. Panics when `i >= len()`, as slice indexing does.
    #[inline]
    pub fn id(&self, i: usize) -> u64 {
        self.inner.rows[i].id
    }

    /// Submit time of job `i`. Panics when `i >= len()`.
    #[inline]
    pub fn submit(&self, i: usize) -> f64 {
        self.inner.rows[i].submit
    }

    /// Run time (field 4) of job `i`. Panics when `i >= len()`.
    #[inline]
    pub fn runtime(&self, i: usize) -> f64 {
        self.inner.rows[i].runtime
    }

    /// Requested time (field 9) of job `i`. Panics when `i >= len()`.
    #[inline]
    pub fn req_time(&self, i: usize) -> f64 {
        self.inner.rows[i].req_time
    }

    /// [`Job::procs`] of job `i`. Panics when `i >= len()`.
    #[inline]
    pub fn procs(&self, i: usize) -> i64 {
        self.inner.procs(&self.inner.rows[i])
    }

    /// [`Job::estimate`] of job `i`. Panics when `i >= len()`.
    #[inline]
    pub fn estimate(&self, i: usize) -> f64 {
        let r = &self.inner.rows[i];
        if r.req_time > 0.0 {
            r.req_time
        } else {
            r.runtime
        }
    }

    /// [`Job::effective_runtime`] of job `i`. Panics when `i >= len()`.
    #[inline]
    pub fn effective_runtime(&self, i: usize) -> f64 {
        self.inner.rows[i].runtime.min(self.estimate(i))
    }

    /// Keeps the jobs for which `keep` is true, in order.
    pub fn retain(&mut self, mut keep: impl FnMut(&Job) -> bool) {
        let s = Arc::make_mut(&mut self.inner);
        let Storage { rows, wide, .. } = s;
        let view = Storage {
            rows: Vec::new(),
            wide: std::mem::take(wide),
            summary: TableSummary::default(),
        };
        rows.retain(|r| keep(&view.unpack(r)));
        *wide = view.wide;
    }

    /// Keeps job `i` where `keep[i]` is true (and the jobs past the end of `keep`).
    pub(crate) fn retain_mask(&mut self, keep: &[bool]) {
        let mut i = 0;
        Arc::make_mut(&mut self.inner).rows.retain(|_| {
            i += 1;
            keep.get(i - 1).copied().unwrap_or(true)
        });
    }

    /// Keeps the first `n` jobs.
    pub fn truncate(&mut self, n: usize) {
        if n < self.len() {
            Arc::make_mut(&mut self.inner).rows.truncate(n);
        }
    }

    /// The jobs of positions `range` (clamped to the table) as a table of their own.
    pub fn slice(&self, range: std::ops::Range<usize>) -> Self {
        let end = range.end.min(self.len());
        let start = range.start.min(end);
        Self {
            inner: Arc::new(Storage {
                rows: self.inner.rows[start..end].to_vec(),
                wide: self.inner.wide.clone(),
                summary: self.inner.summary,
            }),
        }
    }

    /// The jobs for which `keep` is true, as a table of their own.
    pub fn filtered(&self, keep: impl FnMut(&Job) -> bool) -> Self {
        let mut t = self.clone();
        t.retain(keep);
        t
    }

    /// Sets the submit, run and requested times of every job to what `f` returns for
    /// the job (`(submit, runtime, req_time)`); the other fields are kept.
    pub fn map_times(&mut self, mut f: impl FnMut(&Job) -> (f64, f64, f64)) {
        let s = Arc::make_mut(&mut self.inner);
        let Storage {
            rows,
            wide,
            summary,
        } = s;
        let view = Storage {
            rows: Vec::new(),
            wide: std::mem::take(wide),
            summary: TableSummary::default(),
        };
        for r in rows.iter_mut() {
            (r.submit, r.runtime, r.req_time) = f(&view.unpack(r));
        }
        *wide = view.wide;
        *summary = summary.with_times_of(rows);
    }

    /// Sorts the jobs into queue order (submit time, then job number; stable). A table
    /// already in that order (the archive's logs are) is left as it is, without the scratch
    /// buffer of a stable sort.
    pub fn sort_queue_order(&mut self) {
        if !self.inner.summary.queue_ordered {
            let s = Arc::make_mut(&mut self.inner);
            s.rows.sort_by(queue_order);
            s.summary.queue_ordered = true;
        }
    }

    /// Numbers the jobs 1, 2, ... in table order (a table in queue order stays in it).
    pub(crate) fn renumber(&mut self) {
        let s = Arc::make_mut(&mut self.inner);
        for (i, r) in s.rows.iter_mut().enumerate() {
            r.id = i as u64 + 1;
        }
        s.summary.queue_ordered = s.rows.is_sorted_by(|a, b| queue_order(a, b).is_le());
    }

    /// Bytes of job storage in use (rows and full-width values), not counting spare
    /// capacity.
    pub fn storage_bytes(&self) -> usize {
        self.len() * std::mem::size_of::<Row>() + self.inner.wide.len() * 8
    }
}

/// Iterator over the jobs of a [`JobTable`], each built on demand.
#[derive(Debug, Clone)]
pub struct Iter<'a> {
    storage: &'a Storage,
    range: std::ops::Range<usize>,
}

impl Iterator for Iter<'_> {
    type Item = Job;

    fn next(&mut self) -> Option<Job> {
        let i = self.range.next()?;
        Some(self.storage.unpack(&self.storage.rows[i]))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.range.size_hint()
    }

    fn nth(&mut self, n: usize) -> Option<Job> {
        let i = self.range.nth(n)?;
        Some(self.storage.unpack(&self.storage.rows[i]))
    }
}

impl DoubleEndedIterator for Iter<'_> {
    fn next_back(&mut self) -> Option<Job> {
        let i = self.range.next_back()?;
        Some(self.storage.unpack(&self.storage.rows[i]))
    }
}

impl ExactSizeIterator for Iter<'_> {}

impl std::iter::FusedIterator for Iter<'_> {}

impl<'a> IntoIterator for &'a JobTable {
    type Item = Job;
    type IntoIter = Iter<'a>;

    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}

impl std::fmt::Debug for JobTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl PartialEq for JobTable {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl TryFrom<Vec<Job>> for JobTable {
    type Error = crate::error::WorkloadError;

    fn try_from(jobs: Vec<Job>) -> Result<Self> {
        Self::try_from_jobs(jobs)
    }
}

impl TryFrom<&[Job]> for JobTable {
    type Error = crate::error::WorkloadError;

    fn try_from(jobs: &[Job]) -> Result<Self> {
        Self::try_from_jobs(jobs.iter().copied())
    }
}

#[cfg(feature = "serde")]
impl serde::Serialize for JobTable {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.collect_seq(self.iter())
    }
}

#[cfg(feature = "serde")]
impl<'de> serde::Deserialize<'de> for JobTable {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let jobs = Vec::<Job>::deserialize(d)?;
        Self::try_from_jobs(jobs).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn a_row_is_88_bytes() {
        assert_eq!(std::mem::size_of::<Row>(), 88);
    }

    #[test]
    fn slot_edges_round_trip() {
        let mut j = Job::new(u64::MAX, 1e15, 0.25, 3, f64::MAX);
        let ints = [
            i64::MIN,
            i64::MAX,
            i64::from(DIRECT_MIN),
            i64::from(DIRECT_MIN) - 1,
            i64::from(i32::MAX),
            i64::from(i32::MAX) + 1,
            0,
            -1,
        ];
        let reals = [
            -0.0,
            0.0,
            f64::from(DIRECT_MIN),
            f64::from(DIRECT_MIN) - 1.0,
            2147483647.0,
            2147483648.0,
            0.5,
            -1.0,
            f64::NAN,
            f64::NEG_INFINITY,
        ];
        let mut t = JobTable::new();
        for (k, &v) in ints.iter().enumerate() {
            j.user = v;
            j.req_procs = v;
            j.wait = reals[k];
            j.think_time = reals[k + 2];
            t.push(j).unwrap();
            let back = t.last().unwrap();
            assert_eq!((back.user, back.req_procs), (v, v));
            assert_eq!(back.wait.to_bits(), reals[k].to_bits());
            assert_eq!(back.think_time.to_bits(), reals[k + 2].to_bits());
            assert_eq!(t.procs(t.len() - 1), back.procs());
        }
    }

    #[test]
    fn edits_keep_the_other_fields() {
        let mut jobs: Vec<Job> = (0..6u64)
            .map(|i| {
                let mut j = Job::new(10 - i, (i % 3) as f64, 5.0 + i as f64, 2, 9.0);
                j.avg_cpu = 0.5 + i as f64;
                j.user = i64::MAX - i as i64;
                j
            })
            .collect();
        let mut t = JobTable::try_from_jobs(jobs.clone()).unwrap();
        t.retain(|j| j.id != 8);
        jobs.retain(|j| j.id != 8);
        assert_eq!(t.to_vec(), jobs);
        t.sort_queue_order();
        jobs.sort_by(|a, b| a.submit.total_cmp(&b.submit).then(a.id.cmp(&b.id)));
        assert_eq!(t.to_vec(), jobs);
        let shared = t.clone();
        t.map_times(|j| (j.submit * 2.0, j.runtime, 1.0));
        assert_eq!(shared.to_vec(), jobs, "a clone keeps its jobs");
        for (a, b) in t.iter().zip(&jobs) {
            assert_eq!(
                a,
                Job {
                    submit: b.submit * 2.0,
                    req_time: 1.0,
                    ..*b
                }
            );
        }
        assert_eq!(t.slice(1..3).to_vec(), t.to_vec()[1..3].to_vec());
        assert_eq!(t.slice(4..99).len(), 1);
        t.truncate(2);
        assert_eq!(t.len(), 2);
        assert_eq!(t.iter().next_back(), t.get(1));
    }

    fn any_job() -> impl Strategy<Value = Job> {
        let int = prop_oneof![-3i64..3, any::<i64>()];
        let real = prop_oneof![
            (-3i32..3).prop_map(f64::from),
            any::<f64>(),
            Just(-0.0),
            (0u32..1000).prop_map(|v| f64::from(v) / 4.0)
        ];
        (
            any::<u64>(),
            proptest::collection::vec(real, 8),
            proptest::collection::vec(int, 10),
        )
            .prop_map(|(id, r, i)| Job {
                id,
                submit: r[0],
                wait: r[1],
                runtime: r[2],
                alloc_procs: i[0],
                avg_cpu: r[3],
                used_mem: r[4],
                req_procs: i[1],
                req_time: r[5],
                req_mem: r[6],
                status: i[2],
                user: i[3],
                group: i[4],
                app: i[5],
                queue: i[6],
                partition: i[7],
                preceding: i[8],
                think_time: r[7],
            })
    }

    proptest! {
        /// Every field of every job reads back bit for bit, and the simulators' accessors
        /// agree with the record's methods.
        #[test]
        fn jobs_read_back_bit_for_bit(jobs in proptest::collection::vec(any_job(), 0..40)) {
            let t = JobTable::try_from_jobs(jobs.clone()).unwrap();
            prop_assert_eq!(t.len(), jobs.len());
            for (i, (a, b)) in t.iter().zip(&jobs).enumerate() {
                prop_assert_eq!(a.to_fields().map(f64::to_bits), b.to_fields().map(f64::to_bits));
                // The integers in full (`to_fields` rounds them to f64).
                prop_assert_eq!(format!("{a:?}"), format!("{b:?}"));
                prop_assert_eq!(t.procs(i), b.procs());
                prop_assert_eq!(t.estimate(i).to_bits(), b.estimate().to_bits());
                prop_assert_eq!(t.effective_runtime(i).to_bits(), b.effective_runtime().to_bits());
                prop_assert_eq!((t.id(i), t.submit(i).to_bits()), (b.id, b.submit.to_bits()));
            }
        }

        /// The summary holds of every job after appends, removals, time edits and sorting:
        /// its bounds bound, its flags are true only when what they say is true, and a
        /// table built by appends alone has exact flags and extremes.
        #[test]
        fn the_summary_holds_of_every_job(
            jobs in proptest::collection::vec(any_job(), 0..40),
            keep in any::<u64>(),
            shift in prop_oneof![Just(None), (-5i32..5).prop_map(|d| Some(f64::from(d)))],
        ) {
            fn holds(t: &JobTable, exact: bool) -> std::result::Result<(), TestCaseError> {
                let s = t.summary();
                let jobs = t.to_vec();
                let ordered = jobs.is_sorted_by(|a, b| {
                    a.submit.total_cmp(&b.submit).then(a.id.cmp(&b.id)).is_le()
                });
                let finite = jobs
                    .iter()
                    .all(|j| j.submit.is_finite() && j.runtime.is_finite() && j.req_time.is_finite());
                prop_assert!(ordered || !s.queue_ordered);
                prop_assert!(finite || !s.finite_times);
                for j in &jobs {
                    prop_assert!((s.min_procs..=s.max_procs).contains(&j.procs()));
                    prop_assert!(j.runtime.is_nan() || j.runtime >= s.min_runtime);
                }
                if exact {
                    prop_assert_eq!(s.queue_ordered, ordered);
                    prop_assert_eq!(s.finite_times, finite);
                    let procs = jobs.iter().map(Job::procs);
                    prop_assert_eq!(s.min_procs, procs.clone().min().unwrap_or(i64::MAX));
                    prop_assert_eq!(s.max_procs, procs.max().unwrap_or(i64::MIN));
                    let least = jobs.iter().map(|j| j.runtime).fold(f64::INFINITY, f64::min);
                    prop_assert_eq!(s.min_runtime.to_bits(), least.to_bits());
                }
                Ok(())
            }
            let mut t = JobTable::try_from_jobs(jobs).unwrap();
            holds(&t, true)?;
            let mut k = 0;
            t.retain(|_| {
                k += 1;
                keep >> (k % 64) & 1 == 1
            });
            holds(&t, false)?;
            if let Some(d) = shift {
                t.map_times(|j| (j.submit * d, j.runtime + d, j.req_time));
                holds(&t, false)?;
            }
            t.sort_queue_order();
            prop_assert!(t.summary().queue_ordered);
            holds(&t, false)?;
            t.truncate(t.len() / 2);
            holds(&t, false)?;
            holds(&t.slice(1..t.len()), false)?;
        }
    }
}
