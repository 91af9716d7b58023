//! Batsim's `jobs.csv` (what `slarm simulate --schedule-format batsim` and
//! `slarm_sim::batsim::write_batsim_jobs` write, and what Batsim itself writes) read as a
//! schedule with its processor assignment, and the assignment's own checks.
//!
//! Columns are found by name in the header line (any order, others ignored): `job_id`,
//! `submission_time`, `starting_time`, `finish_time`, `requested_number_of_resources`
//! (the processors) and `allocated_resources` (an interval set, `0-3 8`). Fields are not
//! quoted (Batsim quotes none of these).
//!
//! ```
//! use slarm_testing::batsim::{check_assignment, read_batsim_jobs_csv};
//!
//! let csv = "job_id,submission_time,starting_time,finish_time,requested_number_of_resources,allocated_resources\n\
//!            1,0,0,10,2,0-1\n2,0,5,8,2,1-2\n";
//! let rows = read_batsim_jobs_csv(csv.as_bytes())?;
//! assert_eq!((rows[1].job.id, rows[1].job.start, rows[1].processors.clone()), (2, 5.0, vec![(1, 2)]));
//! let v = check_assignment(&rows, 4);
//! assert_eq!(v[0].to_string(), "processor 1 serves jobs 1 and 2 at once, from 5 to 8");
//! # Ok::<(), slarm_testing::TestingError>(())
//! ```

use std::collections::BTreeMap;
use std::io::BufRead;

use crate::check::Violation;
use crate::error::{Result, TestingError};
use crate::schedule::ScheduledJob;

/// One row of a Batsim `jobs.csv`: the schedule row and its processors as closed intervals.
#[derive(Debug, Clone, PartialEq)]
pub struct AssignedJob {
    /// The job as a schedule row (`procs` from `requested_number_of_resources`).
    pub job: ScheduledJob,
    /// The processors, as written (intervals `(first, last)`).
    pub processors: Vec<(u64, u64)>,
}

fn csv_error(line: usize, reason: String) -> TestingError {
    TestingError::Csv { line, reason }
}

/// An interval set `a-b c d-e`, or `None`.
pub fn parse_interval_set(s: &str) -> Option<Vec<(u64, u64)>> {
    let mut out = Vec::new();
    for part in s.split_whitespace() {
        let (a, b) = match part.split_once('-') {
            Some((a, b)) => (a.parse().ok()?, b.parse().ok()?),
            None => {
                let a: u64 = part.parse().ok()?;
                (a, a)
            }
        };
        if a > b {
            return None;
        }
        out.push((a, b));
    }
    Some(out)
}

/// Reads a Batsim `jobs.csv`. Errors name the 1-based line.
pub fn read_batsim_jobs_csv<R: BufRead>(input: R) -> Result<Vec<AssignedJob>> {
    const NAMES: [&str; 6] = [
        "job_id",
        "submission_time",
        "starting_time",
        "finish_time",
        "requested_number_of_resources",
        "allocated_resources",
    ];
    let mut cols: Option<([usize; 6], usize)> = None;
    let mut rows = Vec::new();
    for (i, line) in input.lines().enumerate() {
        let line_no = i + 1;
        let line = line?;
        let line = line.trim_end_matches('\r');
        if line.trim().is_empty() {
            continue;
        }
        let fields: Vec<&str> = line.split(',').map(str::trim).collect();
        let Some((at, width)) = cols else {
            let mut at = [0usize; 6];
            for (k, name) in NAMES.iter().enumerate() {
                at[k] = fields.iter().position(|f| f == name).ok_or_else(|| {
                    csv_error(line_no, format!("the header has no column {name:?}"))
                })?;
            }
            cols = Some((at, fields.len()));
            continue;
        };
        if fields.len() != width {
            return Err(csv_error(
                line_no,
                format!("{} fields, the header has {width}", fields.len()),
            ));
        }
        let get = |k: usize| fields[at[k]];
        let time = |k: usize| match get(k).parse::<f64>() {
            Ok(t) if t.is_finite() => Ok(t),
            _ => Err(csv_error(
                line_no,
                format!("{} {:?} is not a finite number", NAMES[k], get(k)),
            )),
        };
        let id = get(0).parse::<u64>().map_err(|_| {
            csv_error(
                line_no,
                format!("job_id {:?} is not an unsigned integer", get(0)),
            )
        })?;
        let procs = get(4).parse::<u32>().map_err(|_| {
            csv_error(
                line_no,
                format!(
                    "requested_number_of_resources {:?} is not a processor count",
                    get(4)
                ),
            )
        })?;
        let processors = parse_interval_set(get(5)).ok_or_else(|| {
            csv_error(
                line_no,
                format!(
                    "allocated_resources {:?} is not an interval set (0-3 8)",
                    get(5)
                ),
            )
        })?;
        rows.push(AssignedJob {
            job: ScheduledJob {
                id,
                submit: time(1)?,
                start: time(2)?,
                end: time(3)?,
                procs,
            },
            processors,
        });
    }
    if cols.is_none() {
        return Err(csv_error(
            1,
            "empty file: expected a jobs.csv header".into(),
        ));
    }
    Ok(rows)
}

/// The assignment's violations: a job whose set does not hold exactly its processor count
/// (`allocation-size`), a processor outside `0..capacity` (`processor-out-of-range`), and a
/// processor serving two jobs whose runs `[start, end)` overlap (`processor-shared`, once
/// per pair of jobs, with the overlap).
pub fn check_assignment(rows: &[AssignedJob], capacity: u32) -> Vec<Violation> {
    let mut out = Vec::new();
    for r in rows {
        let size: u64 = r
            .processors
            .iter()
            .map(|&(a, b)| b.saturating_sub(a).saturating_add(1))
            .fold(0u64, u64::saturating_add);
        if size != u64::from(r.job.procs) {
            out.push(Violation::AllocationSize {
                job: r.job.id,
                allocated: size,
                procs: r.job.procs,
            });
        }
        if let Some(&(_, last)) = r.processors.iter().max_by_key(|p| p.1) {
            if last >= u64::from(capacity) {
                out.push(Violation::ProcessorOutOfRange {
                    job: r.job.id,
                    processor: last,
                    capacity,
                });
            }
        }
    }
    // Sweep in time: ends before starts at an instant; the busy intervals of processors in a
    // map from first processor to (last, job row).
    let mut events: Vec<(f64, u8, usize)> = Vec::with_capacity(rows.len() * 2);
    for (i, r) in rows.iter().enumerate() {
        if r.job.end > r.job.start {
            events.push((r.job.start, 1, i));
            events.push((r.job.end, 0, i));
        }
    }
    events.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
    let mut busy: BTreeMap<u64, (u64, usize)> = BTreeMap::new();
    let mut reported = std::collections::BTreeSet::new();
    for (_, kind, i) in events {
        let r = &rows[i];
        if kind == 0 {
            for &(a, _) in &r.processors {
                if busy.get(&a).is_some_and(|&(_, j)| j == i) {
                    busy.remove(&a);
                }
            }
            continue;
        }
        for &(a, b) in &r.processors {
            // Busy intervals are disjoint: only the last one starting at or before `b` can
            // reach `a`.
            let clash = busy
                .range(..=b)
                .next_back()
                .filter(|(_, &(last, _))| last >= a)
                .map(|(&first, &(_, j))| (first.max(a), j));
            if let Some((p, j)) = clash {
                if reported.insert((j.min(i), j.max(i))) {
                    let o = &rows[j];
                    out.push(Violation::ProcessorShared {
                        processor: p,
                        job: o.job.id,
                        other: r.job.id,
                        from: r.job.start,
                        to: r.job.end.min(o.job.end),
                    });
                }
            } else {
                busy.insert(a, (b, i));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(id: u64, start: f64, end: f64, procs: u32, set: &str) -> AssignedJob {
        AssignedJob {
            job: ScheduledJob {
                id,
                submit: 0.0,
                start,
                end,
                procs,
            },
            processors: parse_interval_set(set).unwrap(),
        }
    }

    #[test]
    fn finds_every_kind_of_bad_assignment() {
        let rows = [
            row(1, 0.0, 10.0, 4, "0-3"),
            row(2, 10.0, 20.0, 4, "0-3"), // back to back: fine
            row(3, 5.0, 15.0, 2, "4 9"),  // 9 is beyond a machine of 8
            row(4, 12.0, 14.0, 3, "2-3"), // 2 of 3, and shares 2-3 with job 2
        ];
        let v: Vec<String> = check_assignment(&rows, 8)
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(
            v,
            [
                "job 3 uses processor 9 on a machine of 8 (0 to 7)",
                "job 4 is given 2 processors for 3",
                "processor 2 serves jobs 2 and 4 at once, from 12 to 14",
            ]
        );
        assert!(check_assignment(&rows[..2], 8).is_empty());
        assert_eq!(parse_interval_set("0-3 8"), Some(vec![(0, 3), (8, 8)]));
        for bad in ["3-1", "x", "1-", "-1"] {
            assert_eq!(parse_interval_set(bad), None, "{bad}");
        }
    }

    #[test]
    fn bad_lines_are_named() {
        let head = "job_id,submission_time,starting_time,finish_time,requested_number_of_resources,allocated_resources\n";
        for (line, says) in [
            ("1,0,0,1,2,0-x", "allocated_resources"),
            ("1,0,zero,1,2,0-1", "starting_time"),
            ("1,0,0,1,2", "5 fields"),
        ] {
            let e = read_batsim_jobs_csv(format!("{head}{line}\n").as_bytes()).unwrap_err();
            assert!(
                e.to_string().starts_with("line 2: ") && e.to_string().contains(says),
                "{e}"
            );
        }
        let e = read_batsim_jobs_csv("job_id,x\n".as_bytes()).unwrap_err();
        assert!(e.to_string().contains("submission_time"));
    }
}
