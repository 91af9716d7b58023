//! The schedule CSV: header `job_id,submit,start,end,procs`, one row per started job, times
//! in seconds (what `slarm simulate --schedule-out` and
//! `slarm_sim::metrics::write_schedule_csv` write).
//!
//! ```
//! use slarm_testing::read_schedule_csv;
//!
//! let rows = read_schedule_csv("job_id,submit,start,end,procs\n7,0,5,12.5,4\n".as_bytes())?;
//! assert_eq!((rows[0].id, rows[0].start, rows[0].end, rows[0].procs), (7, 5.0, 12.5, 4));
//! let bad = read_schedule_csv("job_id,submit,start,end,procs\n7,0,five,12,4\n".as_bytes());
//! assert_eq!(bad.unwrap_err().to_string(), "line 2: start \"five\" is not a finite number");
//! # Ok::<(), slarm_testing::TestingError>(())
//! ```

use std::io::BufRead;

use slarm_sim::batch::JobRecord;

use crate::error::{Result, TestingError};

/// The header line of the schedule CSV.
pub const HEADER: &str = "job_id,submit,start,end,procs";

/// One row of a schedule: job `id`, submitted at `submit`, ran on `procs` processors from
/// `start` to `end`.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ScheduledJob {
    /// Job number (SWF field 1).
    pub id: u64,
    /// Submit time as the schedule states it.
    pub submit: f64,
    /// Start time.
    pub start: f64,
    /// End time.
    pub end: f64,
    /// Processors allocated.
    pub procs: u32,
}

/// A record as [`slarm_sim::batch::Records::iter`] yields it (by value).
impl From<JobRecord> for ScheduledJob {
    fn from(r: JobRecord) -> Self {
        Self::from(&r)
    }
}

impl From<&JobRecord> for ScheduledJob {
    fn from(r: &JobRecord) -> Self {
        Self {
            id: r.id,
            submit: r.submit,
            start: r.start,
            end: r.end,
            procs: r.procs,
        }
    }
}

/// Reads a schedule CSV. The first non-empty line must be [`HEADER`]; blank lines are
/// skipped; every other line needs five fields: an unsigned job number, three finite times
/// and an unsigned processor count. Errors name the 1-based line.
pub fn read_schedule_csv<R: BufRead>(input: R) -> Result<Vec<ScheduledJob>> {
    let mut rows = Vec::new();
    let mut header_seen = false;
    for (i, line) in input.lines().enumerate() {
        let line_no = i + 1;
        let line = line?;
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        if !header_seen {
            if line != HEADER {
                return Err(csv_error(
                    line_no,
                    format!("expected the header {HEADER:?}, found {line:?}"),
                ));
            }
            header_seen = true;
            continue;
        }
        rows.push(parse_row(line_no, line)?);
    }
    if !header_seen {
        return Err(csv_error(
            1,
            format!("empty schedule: expected the header {HEADER:?}"),
        ));
    }
    Ok(rows)
}

fn csv_error(line: usize, reason: String) -> TestingError {
    TestingError::Csv { line, reason }
}

fn parse_row(line_no: usize, line: &str) -> Result<ScheduledJob> {
    let fields: Vec<&str> = line.split(',').map(str::trim).collect();
    let [id, submit, start, end, procs] = fields[..] else {
        return Err(csv_error(
            line_no,
            format!("expected 5 fields ({HEADER}), found {}", fields.len()),
        ));
    };
    let int = |name: &str, s: &str| {
        s.parse::<u64>()
            .map_err(|_| csv_error(line_no, format!("{name} {s:?} is not an unsigned integer")))
    };
    let time = |name: &str, s: &str| match s.parse::<f64>() {
        Ok(t) if t.is_finite() => Ok(t),
        _ => Err(csv_error(
            line_no,
            format!("{name} {s:?} is not a finite number"),
        )),
    };
    let procs = int("procs", procs)?;
    Ok(ScheduledJob {
        id: int("job_id", id)?,
        submit: time("submit", submit)?,
        start: time("start", start)?,
        end: time("end", end)?,
        procs: u32::try_from(procs)
            .map_err(|_| csv_error(line_no, format!("procs {procs} exceeds {}", u32::MAX)))?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_rows_and_names_bad_lines() {
        let ok =
            read_schedule_csv(&b"\njob_id,submit,start,end,procs\n1,0,0,1.5,2\n\n2,1,2,3,1\n"[..])
                .unwrap();
        assert_eq!(ok.len(), 2);
        assert_eq!(
            ok[1],
            ScheduledJob {
                id: 2,
                submit: 1.0,
                start: 2.0,
                end: 3.0,
                procs: 1
            }
        );
        let err = |s: &str| read_schedule_csv(s.as_bytes()).unwrap_err().to_string();
        assert_eq!(
            err(""),
            "line 1: empty schedule: expected the header \"job_id,submit,start,end,procs\""
        );
        assert!(err("id,a\n").starts_with("line 1: expected the header"));
        assert_eq!(
            err("job_id,submit,start,end,procs\n1,0,0,1\n"),
            "line 2: expected 5 fields (job_id,submit,start,end,procs), found 4"
        );
        assert_eq!(
            err("job_id,submit,start,end,procs\n-1,0,0,1,1\n"),
            "line 2: job_id \"-1\" is not an unsigned integer"
        );
        assert_eq!(
            err("job_id,submit,start,end,procs\n1,0,NaN,1,1\n"),
            "line 2: start \"NaN\" is not a finite number"
        );
        assert_eq!(
            err("job_id,submit,start,end,procs\n1,0,0,1,9999999999\n"),
            "line 2: procs 9999999999 exceeds 4294967295"
        );
    }
}
