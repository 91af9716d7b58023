//! A processor assignment for a schedule and Batsim's `jobs.csv` (Dutot et al., "Batsim: a
//! Realistic Language-Independent Resources and Jobs Management Systems Simulator", JSSPP
//! 2016), the file evalys (the Batsim project's analysis library) reads to draw Gantt charts.
//!
//! [`assign_processors`] gives every started job concrete processors `0..capacity`: at each
//! instant the jobs that end release theirs first, then the jobs that start take the
//! lowest-numbered free ones, in record order. No processor serves two jobs at once; it exists
//! whenever the schedule never uses more processors than the machine has, and is an error
//! otherwise.
//!
//! [`write_batsim_jobs`] writes one row per started job with the columns `job_id`,
//! `workload_name`, `profile`, `submission_time`, `requested_number_of_resources`,
//! `requested_time`, `success`, `final_state`, `starting_time`, `execution_time`,
//! `finish_time`, `waiting_time`, `turnaround_time`, `stretch`, `consumed_energy`,
//! `allocated_resources`, `metadata`: `final_state` is `COMPLETED_WALLTIME_REACHED` (and
//! `success` 0) for a job killed at its estimate, else `COMPLETED_SUCCESSFULLY` (1);
//! `consumed_energy` is `-1` (not simulated), `profile` is `delay`, `metadata` empty, and
//! `allocated_resources` the interval set of its processors (`0-3 8`).
//!
//! ```
//! use slarm_sim::batch::{simulate, BatchConfig};
//! use slarm_sim::batsim::{assign_processors, write_batsim_jobs, IntervalSet};
//! use slarm_sim::policy::PolicyKind;
//! use slarm_workload::Job;
//!
//! let jobs = vec![Job::new(1, 0.0, 100.0, 6, 100.0), Job::new(2, 1.0, 50.0, 4, 40.0)];
//! let s = simulate(&jobs, 10, &BatchConfig::new(PolicyKind::Easy))?;
//! // The schedule's records are read one at a time, never copied out together.
//! let sets = assign_processors(&s.records, 10)?;
//! assert_eq!(sets[0].to_string(), "0-5");
//! assert_eq!(sets[1].to_string(), "6-9");
//! let mut csv = Vec::new();
//! write_batsim_jobs(&s.records, &jobs, &sets, "w0", &mut csv).unwrap();
//! let csv = String::from_utf8(csv).unwrap();
//! assert_eq!(csv.lines().nth(2), Some(
//!     "2,w0,delay,1,4,40,0,COMPLETED_WALLTIME_REACHED,1,40,41,0,40,1,-1,6-9,"));
//! # Ok::<(), slarm_sim::SimError>(())
//! ```

use std::borrow::Borrow;
use std::collections::BTreeMap;
use std::fmt;
use std::io::Write;

use crate::batch::{JobRecord, JobSource};
use crate::error::{check_capacity, Result, SimError};
use crate::metrics::push_time;

/// A set of processors as disjoint, sorted, non-adjacent closed intervals `(first, last)`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct IntervalSet(pub Vec<(u32, u32)>);

impl IntervalSet {
    /// Number of processors in the set.
    pub fn len(&self) -> u64 {
        self.0
            .iter()
            .map(|&(a, b)| u64::from(b) - u64::from(a) + 1)
            .sum()
    }

    /// True when the set is empty.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Appends the text form (see `Display`) to `out`.
    fn push_to(&self, out: &mut Vec<u8>, digits: &mut itoa::Buffer) {
        for (i, &(a, b)) in self.0.iter().enumerate() {
            if i > 0 {
                out.push(b' ');
            }
            out.extend_from_slice(digits.format(a).as_bytes());
            if a != b {
                out.push(b'-');
                out.extend_from_slice(digits.format(b).as_bytes());
            }
        }
    }
}

impl AsRef<[(u32, u32)]> for IntervalSet {
    /// The intervals `(first, last)`.
    fn as_ref(&self) -> &[(u32, u32)] {
        &self.0
    }
}

impl fmt::Display for IntervalSet {
    /// Batsim's and evalys's text form: intervals `a-b` (or `a` alone) separated by spaces.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut text = Vec::new();
        self.push_to(&mut text, &mut itoa::Buffer::new());
        // Digits, '-' and ' ' only.
        f.write_str(&String::from_utf8_lossy(&text))
    }
}

/// Free processors as disjoint intervals `first -> last`.
struct FreeSet(BTreeMap<u32, u32>);

impl FreeSet {
    /// The `n` lowest-numbered free processors, or `None` if fewer are free.
    fn take(&mut self, n: u32) -> Option<IntervalSet> {
        let mut left = n;
        let mut out = Vec::new();
        while left > 0 {
            let (&a, &b) = self.0.iter().next()?;
            self.0.remove(&a);
            let size = b - a + 1;
            if size <= left {
                out.push((a, b));
                left -= size;
            } else {
                out.push((a, a + left - 1));
                self.0.insert(a + left, b);
                left = 0;
            }
        }
        Some(IntervalSet(out))
    }

    /// Gives `set` back, merging with its neighbours.
    fn give(&mut self, set: &IntervalSet) {
        for &(a, b) in &set.0 {
            let (mut lo, mut hi) = (a, b);
            if let Some((&pa, &pb)) = self.0.range(..a).next_back() {
                if pb.checked_add(1) == Some(a) {
                    self.0.remove(&pa);
                    lo = pa;
                }
            }
            if let Some(nb) = b.checked_add(1).and_then(|n| self.0.remove(&n)) {
                hi = nb;
            }
            self.0.insert(lo, hi);
        }
    }
}

/// What the assignment keeps of a record: its job number (for messages), processors, and
/// whether it runs for no time.
struct Slot {
    id: u64,
    procs: u32,
    instant: bool,
}

/// Processors for every record (same order): see the [module documentation](self). Errors
/// when at some instant the records use more than `capacity` processors, or on a record with
/// no processors or non-finite times.
///
/// `records` is anything that yields records: a slice or vector of [`JobRecord`]s, or a
/// schedule's [`Records`](crate::batch::Records) (`&schedule.records`), whose records are
/// built one at a time and never held together.
pub fn assign_processors<I>(records: I, capacity: u32) -> Result<Vec<IntervalSet>>
where
    I: IntoIterator,
    I::Item: Borrow<JobRecord>,
{
    check_capacity(capacity)?;
    let records = records.into_iter();
    let mut slots: Vec<Slot> = Vec::with_capacity(records.size_hint().0);
    // Events: (time, kind and record index), the kind in the top bit (0 = end, 1 = start):
    // ends first at an instant, then record order.
    const START: u64 = 1 << 63;
    let mut events: Vec<(f64, u64)> = Vec::with_capacity(slots.capacity() * 2);
    for (i, r) in records.enumerate() {
        let r = r.borrow();
        if !(r.start.is_finite() && r.end.is_finite()) || r.procs == 0 || r.end < r.start {
            return Err(SimError::InvalidParameter {
                name: "schedule record",
                value: format!("job {}", r.id),
                reason: "needs processors and finite times with end >= start",
            });
        }
        slots.push(Slot {
            id: r.id,
            procs: r.procs,
            instant: r.end == r.start,
        });
        events.push((r.start, START | i as u64));
        events.push((r.end, i as u64));
    }
    // The record index makes every key distinct: an unstable sort gives the one order.
    events.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    let mut free = FreeSet(BTreeMap::from([(0, capacity - 1)]));
    let mut sets: Vec<Option<IntervalSet>> = vec![None; slots.len()];
    for (t, key) in events {
        let i = (key & !START) as usize;
        if key & START == 0 {
            // A zero-length job ends before it starts in this order: nothing to give yet.
            if let Some(set) = &sets[i] {
                free.give(set);
            }
        } else {
            let r = &slots[i];
            if r.instant {
                // Occupies nothing; give it the lowest processors for the chart.
                sets[i] = Some(IntervalSet(vec![(0, r.procs.min(capacity) - 1)]));
                continue;
            }
            let set = free
                .take(r.procs)
                .ok_or_else(|| SimError::InvalidParameter {
                    name: "schedule",
                    value: format!("job {} at {t}", r.id),
                    reason: "more processors in use than the machine has",
                })?;
            sets[i] = Some(set);
        }
    }
    Ok(sets.into_iter().map(Option::unwrap_or_default).collect())
}

/// The header of Batsim's `jobs.csv` as written by [`write_batsim_jobs`].
pub const BATSIM_HEADER: &str = "job_id,workload_name,profile,submission_time,requested_number_of_resources,requested_time,success,final_state,starting_time,execution_time,finish_time,waiting_time,turnaround_time,stretch,consumed_energy,allocated_resources,metadata";

/// Writes Batsim's `jobs.csv` for `records` (simulated from `jobs`, which their `index`
/// points into) with the processor sets `sets` (same order), naming the workload `workload`.
/// See the [module documentation](self) for the columns.
///
/// `records` is anything that yields records, as for [`assign_processors`]; `jobs` a slice or
/// vector of [`Job`](slarm_workload::Job)s or a [`JobTable`](slarm_workload::JobTable) (read in
/// place). Jobs that do not fit a job table are an error of kind
/// [`InvalidInput`](std::io::ErrorKind::InvalidInput).
pub fn write_batsim_jobs<I, J, W>(
    records: I,
    jobs: &J,
    sets: &[IntervalSet],
    workload: &str,
    mut out: W,
) -> std::io::Result<()>
where
    I: IntoIterator,
    I::Item: Borrow<JobRecord>,
    J: JobSource + ?Sized,
    W: Write,
{
    let jobs = jobs
        .job_table()
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e.to_string()))?;
    let mut buf = Vec::with_capacity((1 << 16) + 256);
    writeln!(buf, "{BATSIM_HEADER}")?;
    let workload: String = workload
        .chars()
        .filter(|c| !matches!(c, ',' | '"' | '\n' | '\r'))
        .collect();
    // Fields are formatted into `buf` without the formatting machinery: integers (and
    // whole-number times) by `itoa`, other times by `f64`'s `Display`.
    let mut digits = itoa::Buffer::new();
    for (r, set) in records.into_iter().zip(sets) {
        let r = r.borrow();
        let killed = r.index < jobs.len() && jobs.runtime(r.index) > jobs.estimate(r.index);
        let state: &[u8] = if killed {
            b"0,COMPLETED_WALLTIME_REACHED,"
        } else {
            b"1,COMPLETED_SUCCESSFULLY,"
        };
        let exec = r.end - r.start;
        let wait = r.start - r.submit;
        let turnaround = r.end - r.submit;
        let stretch = if exec > 0.0 { turnaround / exec } else { 1.0 };
        buf.extend_from_slice(digits.format(r.id).as_bytes());
        buf.push(b',');
        buf.extend_from_slice(workload.as_bytes());
        buf.extend_from_slice(b",delay,");
        push_time(&mut buf, r.submit, &mut digits);
        buf.push(b',');
        buf.extend_from_slice(digits.format(r.procs).as_bytes());
        buf.push(b',');
        push_time(&mut buf, r.estimate, &mut digits);
        buf.push(b',');
        buf.extend_from_slice(state);
        for x in [r.start, exec, r.end, wait, turnaround, stretch] {
            push_time(&mut buf, x, &mut digits);
            buf.push(b',');
        }
        buf.extend_from_slice(b"-1,");
        set.push_to(&mut buf, &mut digits);
        buf.extend_from_slice(b",\n");
        if buf.len() >= 1 << 16 {
            out.write_all(&buf)?;
            buf.clear();
        }
    }
    out.write_all(&buf)?;
    out.flush()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::batch::{simulate, BatchConfig};
    use crate::policy::PolicyKind;
    use proptest::prelude::*;
    use slarm_workload::Job;

    fn rec(id: u64, start: f64, end: f64, procs: u32) -> JobRecord {
        JobRecord {
            id,
            index: id as usize,
            submit: 0.0,
            start,
            end,
            procs,
            estimate: end - start,
            reservation: None,
        }
    }

    #[test]
    fn lowest_free_processors_and_fragments() {
        let r = [
            rec(0, 0.0, 10.0, 3),
            rec(1, 0.0, 5.0, 2),
            rec(2, 0.0, 20.0, 3),
            rec(3, 5.0, 30.0, 1),  // takes 3 (job 1's first)
            rec(4, 10.0, 30.0, 5), // 0-2, 4, 8
        ];
        let s = assign_processors(r, 9).unwrap();
        let text: Vec<String> = s.iter().map(ToString::to_string).collect();
        assert_eq!(text, ["0-2", "3-4", "5-7", "3", "0-2 4 8"]);
        let over = [rec(0, 0.0, 10.0, 5), rec(1, 9.0, 12.0, 5)];
        assert!(assign_processors(over, 9).is_err());
        // Ends release before starts at the same instant.
        let back_to_back = [rec(0, 0.0, 10.0, 9), rec(1, 10.0, 12.0, 9)];
        assert_eq!(
            assign_processors(back_to_back, 9).unwrap()[1].to_string(),
            "0-8"
        );
    }

    proptest! {
        /// On simulated schedules: every job gets exactly its processors, all below the
        /// machine size, and no processor serves two jobs whose runs overlap.
        #[test]
        fn assignments_are_valid(
            rows in proptest::collection::vec((0u32..40, 1u32..100, 1u32..12, 1u32..3), 1..60),
            cap in 12u32..20,
            policy in 0usize..3,
        ) {
            let mut t = 0.0;
            let jobs: Vec<Job> = rows.iter().enumerate().map(|(i, &(g, run, p, o))| {
                t += f64::from(g);
                Job::new(i as u64 + 1, t, f64::from(run), i64::from(p), f64::from(run * o))
            }).collect();
            let s = simulate(&jobs, cap, &BatchConfig::new(PolicyKind::ALL[policy])).unwrap();
            let sets = assign_processors(&s.records, cap).unwrap();
            // Records read one by one give what a slice of them gives.
            prop_assert_eq!(&assign_processors(s.records.to_vec(), cap).unwrap(), &sets);
            let (mut from_records, mut from_slice) = (Vec::new(), Vec::new());
            write_batsim_jobs(&s.records, &jobs, &sets, "w", &mut from_records).unwrap();
            write_batsim_jobs(s.records.to_vec(), &jobs[..], &sets, "w", &mut from_slice).unwrap();
            prop_assert_eq!(from_records, from_slice);
            for (r, set) in s.records.iter().zip(&sets) {
                prop_assert_eq!(set.len(), u64::from(r.procs));
                prop_assert!(set.0.iter().all(|&(a, b)| a <= b && b < cap));
            }
            for (i, (a, sa)) in s.records.iter().zip(&sets).enumerate() {
                for (b, sb) in s.records.iter().zip(&sets).skip(i + 1) {
                    if a.start < b.end && b.start < a.end {
                        let shared = sa.0.iter().any(|&(x, y)| sb.0.iter().any(|&(u, v)| x <= v && u <= y));
                        prop_assert!(!shared, "jobs {} and {} share a processor", a.id, b.id);
                    }
                }
            }
        }
    }
}
