//! Schedule metrics: wait, response, bounded slowdown (tau = 10 s by default), utilisation
//! and makespan, plus a CSV writer for per-job records.
//!
//! Definitions: bounded slowdown of a job = max(1, (wait + run) / max(run, tau)) with run the
//! time it actually occupied processors; makespan = last end - first submit; utilisation =
//! sum of procs x run over (machine size x makespan).
//!
//! ```
//! use slarm_sim::batch::{simulate, BatchConfig};
//! use slarm_sim::metrics::Metrics;
//! use slarm_sim::policy::PolicyKind;
//! use slarm_workload::Job;
//!
//! let jobs = vec![Job::new(1, 0.0, 100.0, 2, 100.0), Job::new(2, 0.0, 5.0, 2, 5.0)];
//! let s = simulate(&jobs, 2, &BatchConfig::new(PolicyKind::Fcfs))?;
//! let m = Metrics::of(&s, 10.0);
//! assert_eq!(m.makespan_s, 105.0);
//! assert_eq!(m.mean_wait_s, 50.0);                 // (0 + 100) / 2
//! assert_eq!(m.mean_bounded_slowdown, (1.0 + 10.5) / 2.0); // job 2: 105 / max(5, 10)
//! assert!((m.utilization - 1.0).abs() < 1e-12);
//! # Ok::<(), slarm_sim::SimError>(())
//! ```

use std::io::Write;

use crate::batch::{JobRecord, Schedule};

/// Default bounded-slowdown threshold in seconds (the customary 10 s of Feitelson et al.,
/// "Theory and practice in parallel job scheduling", JSSPP 1997).
pub const DEFAULT_TAU_S: f64 = 10.0;

/// Aggregate metrics of a schedule.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Metrics {
    /// Jobs that ran.
    pub jobs: usize,
    /// Mean wait time.
    pub mean_wait_s: f64,
    /// Maximum wait time.
    pub max_wait_s: f64,
    /// Mean response time.
    pub mean_response_s: f64,
    /// Mean bounded slowdown.
    pub mean_bounded_slowdown: f64,
    /// Threshold used for the bounded slowdown.
    pub tau_s: f64,
    /// Busy processor-seconds over capacity x makespan.
    pub utilization: f64,
    /// Last end minus first submit.
    pub makespan_s: f64,
}

impl Metrics {
    /// Metrics of `schedule` with bounded-slowdown threshold `tau` seconds. An empty
    /// schedule gives zeros.
    pub fn of(schedule: &Schedule, tau: f64) -> Self {
        let r = &schedule.records;
        let n = r.len();
        if n == 0 {
            return Self {
                jobs: 0,
                mean_wait_s: 0.0,
                max_wait_s: 0.0,
                mean_response_s: 0.0,
                mean_bounded_slowdown: 0.0,
                tau_s: tau,
                utilization: 0.0,
                makespan_s: 0.0,
            };
        }
        let nf = n as f64;
        let first = r.iter().map(|x| x.submit).fold(f64::INFINITY, f64::min);
        let last = r.iter().map(|x| x.end).fold(f64::NEG_INFINITY, f64::max);
        let makespan = last - first;
        let work: f64 = r
            .iter()
            .map(|x| f64::from(x.procs) * (x.end - x.start))
            .sum();
        Self {
            jobs: n,
            mean_wait_s: r.iter().map(JobRecord::wait).sum::<f64>() / nf,
            max_wait_s: r.iter().map(JobRecord::wait).fold(0.0, f64::max),
            mean_response_s: r.iter().map(JobRecord::response).sum::<f64>() / nf,
            mean_bounded_slowdown: r.iter().map(|x| x.bounded_slowdown(tau)).sum::<f64>() / nf,
            tau_s: tau,
            utilization: if makespan > 0.0 {
                work / (f64::from(schedule.capacity) * makespan)
            } else {
                0.0
            },
            makespan_s: makespan,
        }
    }
}

/// Formats a time without a trailing `.0` when it is integral.
fn fmt_time(t: f64) -> String {
    if t.fract() == 0.0 && t.abs() < 9.0e15 {
        format!("{}", t as i64)
    } else {
        format!("{t}")
    }
}

/// Writes the schedule CSV that `slarm check-schedule` reads: header
/// `job_id,submit,start,end,procs`, one row per started job in record order.
pub fn write_schedule_csv<W: Write>(records: &[JobRecord], mut out: W) -> std::io::Result<()> {
    writeln!(out, "job_id,submit,start,end,procs")?;
    for r in records {
        writeln!(
            out,
            "{},{},{},{},{}",
            r.id,
            fmt_time(r.submit),
            fmt_time(r.start),
            fmt_time(r.end),
            r.procs
        )?;
    }
    out.flush()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::batch::{simulate, BatchConfig};
    use crate::policy::PolicyKind;
    use slarm_workload::Job;

    #[test]
    fn csv_has_fixed_header_and_rows() {
        let jobs = vec![Job::new(7, 0.0, 1.5, 1, 2.0)];
        let s = simulate(&jobs, 1, &BatchConfig::new(PolicyKind::Easy)).unwrap();
        let mut buf = Vec::new();
        write_schedule_csv(&s.records, &mut buf).unwrap();
        assert_eq!(
            String::from_utf8(buf).unwrap(),
            "job_id,submit,start,end,procs\n7,0,0,1.5,1\n"
        );
        let empty = Metrics::of(
            &Schedule {
                capacity: 1,
                policy: PolicyKind::Easy.to_string(),
                records: vec![],
                expired: vec![],
                events: 0,
            },
            10.0,
        );
        assert_eq!(empty.jobs, 0);
    }
}
