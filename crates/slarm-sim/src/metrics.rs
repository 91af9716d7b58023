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

use std::borrow::Borrow;
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
        // One pass over the records (each is built on demand), every figure folded in
        // record order from the start value of `Iterator::sum`, so the sums are those of
        // a sum over each figure alone, bit for bit.
        let zero = std::iter::empty::<f64>().sum::<f64>();
        let (mut first, mut last, mut work) = (f64::INFINITY, f64::NEG_INFINITY, zero);
        let (mut wait, mut max_wait, mut response, mut slowdown) = (zero, 0.0, zero, zero);
        for x in r {
            first = first.min(x.submit);
            last = last.max(x.end);
            work += f64::from(x.procs) * (x.end - x.start);
            wait += x.wait();
            max_wait = f64::max(max_wait, x.wait());
            response += x.response();
            slowdown += x.bounded_slowdown(tau);
        }
        let makespan = last - first;
        Self {
            jobs: n,
            mean_wait_s: wait / nf,
            max_wait_s: max_wait,
            mean_response_s: response / nf,
            mean_bounded_slowdown: slowdown / nf,
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

/// Appends a time to `line`, without a trailing `.0` when it is integral (as an integer of
/// at most 16 digits), else as `f64`'s `Display` (the shortest text that reads back as it).
pub(crate) fn push_time(line: &mut Vec<u8>, t: f64, digits: &mut itoa::Buffer) {
    if t.fract() == 0.0 && t.abs() < 9.0e15 {
        line.extend_from_slice(digits.format(t as i64).as_bytes());
    } else {
        // Writing into a Vec<u8> cannot fail.
        let _ = write!(line, "{t}");
    }
}

/// Rows are gathered into a buffer of about this many bytes before each write.
const CSV_CHUNK: usize = 1 << 16;

/// Writes the schedule CSV that `slarm check-schedule` reads: header
/// `job_id,submit,start,end,procs`, one row per started job in record order.
///
/// `records` is any sequence of records: a schedule's [`crate::batch::Records`] (each built
/// on demand) or a slice or vector of them (by reference). Rows are formatted without
/// allocation into a reused buffer handed to `out` in chunks of about 64 KiB, so an
/// unbuffered writer is fine too.
pub fn write_schedule_csv<W, I>(records: I, mut out: W) -> std::io::Result<()>
where
    W: Write,
    I: IntoIterator,
    I::Item: std::borrow::Borrow<JobRecord>,
{
    let mut digits = itoa::Buffer::new();
    let mut line = Vec::with_capacity(CSV_CHUNK + 128);
    line.extend_from_slice(b"job_id,submit,start,end,procs\n");
    for r in records {
        let r: &JobRecord = r.borrow();
        line.extend_from_slice(digits.format(r.id).as_bytes());
        for t in [r.submit, r.start, r.end] {
            line.push(b',');
            push_time(&mut line, t, &mut digits);
        }
        line.push(b',');
        line.extend_from_slice(digits.format(r.procs).as_bytes());
        line.push(b'\n');
        if line.len() >= CSV_CHUNK {
            out.write_all(&line)?;
            line.clear();
        }
    }
    out.write_all(&line)?;
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
                records: Vec::new().into(),
                expired: vec![],
                events: 0,
            },
            10.0,
        );
        assert_eq!(empty.jobs, 0);
    }

    /// The writer before rows were formatted by hand: `format!` per time, `writeln!` per row.
    fn csv_by_format(records: &[JobRecord]) -> String {
        let time = |t: f64| {
            if t.fract() == 0.0 && t.abs() < 9.0e15 {
                format!("{}", t as i64)
            } else {
                format!("{t}")
            }
        };
        let mut s = String::from("job_id,submit,start,end,procs\n");
        for r in records {
            s += &format!(
                "{},{},{},{},{}\n",
                r.id,
                time(r.submit),
                time(r.start),
                time(r.end),
                r.procs
            );
        }
        s
    }

    #[test]
    fn csv_rows_match_formatted_text_across_chunks() {
        let times = [
            0.0,
            -0.0,
            1.5,
            0.1,
            -3.0,
            8.9e15,
            9.0e15,
            1e300,
            2.5e-7,
            123456789.25,
        ];
        let records: Vec<JobRecord> = (0..20_000u64)
            .map(|k| {
                let t = |s: u64| times[((k + s) % times.len() as u64) as usize];
                JobRecord {
                    id: k * 7919 + u64::MAX / 2 * (k % 2),
                    index: k as usize,
                    submit: t(0),
                    start: t(3),
                    end: t(7) + k as f64,
                    procs: (k as u32).wrapping_mul(2_654_435_761),
                    estimate: 1.0,
                    reservation: None,
                }
            })
            .collect();
        let mut buf = Vec::new();
        write_schedule_csv(&records, &mut buf).unwrap();
        assert!(buf.len() > 2 * CSV_CHUNK);
        assert_eq!(String::from_utf8(buf).unwrap(), csv_by_format(&records));
    }
}
