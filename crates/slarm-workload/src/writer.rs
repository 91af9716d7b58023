//! SWF writer: header comments plus the 18 fields per job, values preserved (integral
//! values are written without a fractional part; others in Rust's shortest round-trip form).
//!
//! ```
//! use slarm_workload::reader::{read_trace_from, ReadOptions};
//! use slarm_workload::writer::write_swf;
//! use slarm_workload::{Job, SwfHeader};
//!
//! let mut header = SwfHeader::default();
//! header.absorb(" MaxProcs: 16");
//! let jobs = vec![Job::new(1, 0.0, 12.5, 4, 60.0)];
//! let mut out = Vec::new();
//! write_swf(&header, &jobs, &mut out).unwrap();
//! let back = read_trace_from(std::io::Cursor::new(out), "rt", ReadOptions::default())?;
//! assert_eq!(back.jobs.to_vec(), jobs);
//! assert_eq!(back.header.max_procs, Some(16));
//! # Ok::<(), slarm_workload::WorkloadError>(())
//! ```

use std::borrow::Borrow;
use std::io::Write;

use crate::header::SwfHeader;
use crate::job::Job;

fn number(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 9.0e15 {
        format!("{}", v as i64)
    } else {
        format!("{v}")
    }
}

/// Writes `header` entries as `; Key: value` lines and then one line per job. `jobs` is any
/// sequence of jobs: a slice or vector (by reference) or a [`crate::JobTable`].
pub fn write_swf<W, I>(header: &SwfHeader, jobs: I, mut out: W) -> std::io::Result<()>
where
    W: Write,
    I: IntoIterator,
    I::Item: std::borrow::Borrow<Job>,
{
    for (k, v) in &header.entries {
        if k.is_empty() {
            writeln!(out, "; {v}")?;
        } else {
            writeln!(out, "; {k}: {v}")?;
        }
    }
    for j in jobs {
        let j: &Job = j.borrow();
        let line: Vec<String> = j.to_fields().iter().map(|&v| number(v)).collect();
        writeln!(out, "{}", line.join(" "))?;
    }
    out.flush()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reader::{read_trace_from, ReadOptions};
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn write_then_read_preserves_values(
            rows in proptest::collection::vec((0u64..1_000_000, 0.0f64..1e8, -1i64..5000, -1.0f64..1e6), 1..30)
        ) {
            let jobs: Vec<Job> = rows.iter().map(|&(id, s, p, r)| Job::new(id, s, r, p, r * 1.5)).collect();
            let mut out = Vec::new();
            write_swf(&SwfHeader::default(), &jobs, &mut out).unwrap();
            let back = read_trace_from(std::io::Cursor::new(out), "rt", ReadOptions::default()).unwrap();
            prop_assert_eq!(back.jobs.to_vec(), jobs);
        }
    }
}
