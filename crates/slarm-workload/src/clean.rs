//! Drop rules and the cleaned, time-ordered [`Workload`] that simulators consume.
//!
//! A job is dropped when its run time is <= 0, its processors are <= 0, or it needs more
//! processors than the machine has (counted under the first reason that applies, in that
//! order). The rest are ordered by submit time, then job number: the queue order of the
//! simulators.
//!
//! ```
//! use slarm_workload::{Job, Workload};
//!
//! let jobs = vec![
//!     Job::new(2, 5.0, 10.0, 2, 20.0),
//!     Job::new(1, 5.0, 0.0, 2, 20.0),   // run time <= 0: dropped
//!     Job::new(3, 1.0, 10.0, 64, 20.0), // larger than the machine: dropped
//!     Job::new(4, 0.0, 10.0, 4, -1.0),
//! ];
//! let w = Workload::from_jobs("demo", jobs, 8)?;
//! assert_eq!(w.jobs.iter().map(|j| j.id).collect::<Vec<_>>(), vec![4, 2]);
//! assert_eq!(w.jobs.get(1).map(|j| j.submit), Some(5.0));
//! assert_eq!(w.dropped.runtime_nonpositive, 1);
//! assert_eq!(w.dropped.procs_exceed_machine, 1);
//! # Ok::<(), slarm_workload::WorkloadError>(())
//! ```

use crate::error::{invalid, Result, WorkloadError};
use crate::header::SwfHeader;
use crate::job::Job;
use crate::reader::Trace;
use crate::table::JobTable;

/// Jobs removed by the drop rules, counted under the first reason that applies.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct DropCounts {
    /// Run time <= 0 (or missing).
    pub runtime_nonpositive: u64,
    /// Processors <= 0 (neither requested nor allocated known).
    pub procs_nonpositive: u64,
    /// More processors than the machine has.
    pub procs_exceed_machine: u64,
}

impl DropCounts {
    /// Total number of dropped jobs.
    pub fn total(&self) -> u64 {
        self.runtime_nonpositive + self.procs_nonpositive + self.procs_exceed_machine
    }
}

/// Why a job is dropped, if it is (reasons checked in this order).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum DropReason {
    /// Run time <= 0.
    RuntimeNonPositive,
    /// Processors <= 0.
    ProcsNonPositive,
    /// Processors > machine size.
    ProcsExceedMachine,
}

/// The drop reason of `job` on a machine of `machine_procs` processors.
pub fn drop_reason(job: &Job, machine_procs: u32) -> Option<DropReason> {
    if job.runtime <= 0.0 {
        Some(DropReason::RuntimeNonPositive)
    } else if job.procs() <= 0 {
        Some(DropReason::ProcsNonPositive)
    } else if job.procs() > i64::from(machine_procs) {
        Some(DropReason::ProcsExceedMachine)
    } else {
        None
    }
}

/// A cleaned workload: jobs that pass the drop rules, sorted by submit time then job
/// number (the simulators' queue order), plus the machine size and provenance.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Workload {
    /// Trace name or generator label.
    pub name: String,
    /// Header of the source file (empty for generated workloads).
    pub header: SwfHeader,
    /// Machine size in processors.
    pub machine_procs: u32,
    /// Kept jobs in queue order, stored compactly (88 bytes a job; [`JobTable::iter`]
    /// builds each [`Job`] on demand, [`JobTable::to_vec`] all of them).
    pub jobs: JobTable,
    /// Dropped jobs per reason.
    pub dropped: DropCounts,
    /// Malformed lines skipped while reading (lenient mode).
    pub skipped_lines: u64,
    /// True when the workload was generated rather than read from a real log.
    pub synthetic: bool,
}

/// Sorts jobs into queue order: submit time, then job number.
///
/// A log already in that order (the archive's logs are) is left as it is without the
/// scratch buffer of a stable sort.
pub fn sort_queue_order(jobs: &mut [Job]) {
    let order = |a: &Job, b: &Job| a.submit.total_cmp(&b.submit).then(a.id.cmp(&b.id));
    if !jobs.is_sorted_by(|a, b| order(a, b).is_le()) {
        jobs.sort_by(order);
    }
}

/// Errors on the first job (in table order) with a submit, run or requested time that is
/// not finite.
fn check_finite_times(jobs: &JobTable) -> Result<()> {
    for i in 0..jobs.len() {
        for (field, v) in [
            ("submit time", jobs.submit(i)),
            ("run time", jobs.runtime(i)),
            ("requested time", jobs.req_time(i)),
        ] {
            if !v.is_finite() {
                return Err(invalid(
                    field,
                    format!("{v} (job {})", jobs.id(i)),
                    "must be finite",
                ));
            }
        }
    }
    Ok(())
}

impl Workload {
    /// Cleans `trace`: machine size from `procs_override` or else the header (MaxProcs,
    /// then MaxNodes); applies the drop rules and sorts into queue order.
    pub fn from_trace(trace: Trace, procs_override: Option<u32>) -> Result<Self> {
        let machine = match procs_override {
            Some(p) => p,
            None => {
                let size = trace.header.machine_size().ok_or_else(|| {
                    WorkloadError::UnknownMachineSize {
                        file: trace.name.clone(),
                    }
                })?;
                u32::try_from(size).map_err(|_| invalid("machine size", size, "too large"))?
            }
        };
        let mut w = Self::from_table(&trace.name, trace.jobs, machine)?;
        w.header = trace.header;
        w.skipped_lines = trace.skipped_lines;
        w.synthetic = trace.synthetic;
        Ok(w)
    }

    /// Cleans a list of jobs for a machine of `machine_procs` processors. Errors on a job
    /// whose submit time, run time or requested time is not finite (the reader never
    /// produces one; jobs built in code can).
    pub fn from_jobs(name: &str, jobs: Vec<Job>, machine_procs: u32) -> Result<Self> {
        Self::from_table(name, JobTable::try_from_jobs(jobs)?, machine_procs)
    }

    /// [`Workload::from_jobs`] for jobs already in a [`JobTable`]: cleans it in place (no
    /// copy when the table is not shared).
    pub fn from_table(name: &str, mut jobs: JobTable, machine_procs: u32) -> Result<Self> {
        if machine_procs == 0 {
            return Err(invalid("machine size", 0, "must be at least one processor"));
        }
        let summary = jobs.summary();
        if !summary.finite_times {
            check_finite_times(&jobs)?;
        }
        // The drop rules of `drop_reason`, read from the table's columns; none applies
        // when the table's bounds rule them all out.
        let mut dropped = DropCounts::default();
        let none_dropped = summary.min_runtime > 0.0
            && summary.min_procs > 0
            && summary.max_procs <= i64::from(machine_procs);
        if !none_dropped {
            let keep: Vec<bool> = (0..jobs.len())
                .map(|i| {
                    let procs = jobs.procs(i);
                    let counter = if jobs.runtime(i) <= 0.0 {
                        &mut dropped.runtime_nonpositive
                    } else if procs <= 0 {
                        &mut dropped.procs_nonpositive
                    } else if procs > i64::from(machine_procs) {
                        &mut dropped.procs_exceed_machine
                    } else {
                        return true;
                    };
                    *counter += 1;
                    false
                })
                .collect();
            if dropped.total() > 0 {
                jobs.retain_mask(&keep);
            }
        }
        jobs.sort_queue_order();
        Ok(Self {
            name: name.to_string(),
            header: SwfHeader::default(),
            machine_procs,
            jobs,
            dropped,
            skipped_lines: 0,
            synthetic: false,
        })
    }

    /// Number of kept jobs.
    pub fn len(&self) -> usize {
        self.jobs.len()
    }

    /// True when no job was kept.
    pub fn is_empty(&self) -> bool {
        self.jobs.is_empty()
    }

    /// Seconds between the first and last submit time (0 for fewer than two jobs).
    pub fn span_s(&self) -> f64 {
        match self.jobs.len() {
            0 => 0.0,
            n => self.jobs.submit(n - 1) - self.jobs.submit(0),
        }
    }

    /// Offered load by estimates: sum of procs x estimate over (machine x submit span),
    /// the "InputUtil" of Birkenheuer (2012) §5.1.1. `None` when the span is zero (or the times
    /// are so large that the load overflows).
    pub fn offered_load_by_estimate(&self) -> Option<f64> {
        self.offered_load_with(Job::estimate)
    }

    /// Offered load by actual run times: sum of procs x min(runtime, estimate) over
    /// (machine x submit span). `None` when the span is zero (or the load overflows).
    pub fn offered_load(&self) -> Option<f64> {
        self.offered_load_with(Job::effective_runtime)
    }

    fn offered_load_with(&self, dur: fn(&Job) -> f64) -> Option<f64> {
        let span = self.span_s();
        if span <= 0.0 {
            return None;
        }
        let work: f64 = self.jobs.iter().map(|j| j.procs() as f64 * dur(&j)).sum();
        Some(work / (f64::from(self.machine_procs) * span)).filter(|load| load.is_finite())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drop_reasons_apply_in_order() {
        let mut j = Job::new(1, 0.0, 0.0, 0, 1.0);
        assert_eq!(drop_reason(&j, 4), Some(DropReason::RuntimeNonPositive));
        j.runtime = 5.0;
        j.alloc_procs = -1;
        assert_eq!(drop_reason(&j, 4), Some(DropReason::ProcsNonPositive));
        j.alloc_procs = 5;
        assert_eq!(drop_reason(&j, 4), Some(DropReason::ProcsExceedMachine));
        assert_eq!(drop_reason(&j, 5), None);
        assert!(Workload::from_jobs("x", vec![], 0).is_err());
        // Found by crates/slarm/tests/robustness: a NaN run time passed the drop rules.
        for bad in [f64::NAN, f64::INFINITY] {
            let mut j = Job::new(1, 0.0, 5.0, 1, 10.0);
            j.runtime = bad;
            assert!(Workload::from_jobs("x", vec![j], 4).is_err());
            j.runtime = 5.0;
            j.submit = bad;
            assert!(Workload::from_jobs("x", vec![j], 4).is_err());
            j.submit = 0.0;
            j.req_time = bad;
            assert!(Workload::from_jobs("x", vec![j], 4).is_err());
        }
        // Finite but absurd times: the span and the work overflow (inf / inf).
        let w = Workload::from_jobs(
            "x",
            vec![
                Job::new(1, -1e308, 1e308, 1, 1e308),
                Job::new(2, 1e308, 1e308, 4, 1e308),
            ],
            4,
        )
        .unwrap();
        assert_eq!(w.offered_load(), None);
    }

    #[test]
    fn offered_load_matches_hand_computation() {
        let jobs = vec![
            Job::new(1, 0.0, 10.0, 2, 20.0),
            Job::new(2, 100.0, 30.0, 4, 50.0),
        ];
        let w = Workload::from_jobs("x", jobs, 10).unwrap();
        // (2*20 + 4*50) / (10 * 100) = 0.24
        assert!((w.offered_load_by_estimate().unwrap() - 0.24).abs() < 1e-12);
        // (2*10 + 4*30) / 1000 = 0.14
        assert!((w.offered_load().unwrap() - 0.14).abs() < 1e-12);
    }
}
