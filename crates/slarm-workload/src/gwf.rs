//! Records of the Grid Workloads Format (GWF) of the Grid Workloads Archive (Iosup et al.,
//! "The Grid Workloads Archive", Future Generation Computer Systems 24(7), 2008), read
//! leniently so that SWF lines (the Parallel Workloads Archive's format) pass too.
//!
//! A GWF line has 29 whitespace-separated columns. The first 16 are the SWF columns (job
//! number, submit time, wait time, run time, allocated processors, …, queue, partition);
//! from column 17 on the two formats differ: GWF has the originating and the last-run site
//! (17, 18), the job structure (19, 20, text such as `UNITARY`), network, disk and resource
//! usage (21–23), requested platform, network, disk and resources (24–27, text), the virtual
//! organisation (28) and the project (29), where SWF has the preceding job and think time
//! (17, 18). Site, platform and VO columns may be names (`fs3`, `linux`, `vo1`), not numbers.
//!
//! Unlike the strict SWF reader ([`crate::reader`]), [`records`] only splits lines: it keeps
//! every column as text, accepts any number of columns from [`MIN_COLUMNS`] on, and treats
//! `;` and `#` lines as comments. The caller converts the columns it needs with
//! [`GwfRecord::number`] and decides how to treat a column that is not a number.
//!
//! ```
//! use slarm_workload::gwf::{records, column, GwfRecord};
//!
//! let text = "# GWF\n\
//!             1 100 5 50 4 -1 -1 4 60 -1 1 7 1 1 1 -1 fs0 fs3 UNITARY -1 -1 -1 -1 linux -1 -1 -1 vo1 -1\n";
//! let recs: Vec<GwfRecord> = records(text).collect::<Result<_, _>>()?;
//! assert_eq!(recs[0].line, 2);
//! assert_eq!(recs[0].number(column::SUBMIT_TIME), Some(100.0));
//! assert_eq!(recs[0].site(), "fs3"); // the last-run site, else the originating site
//! assert_eq!(recs[0].text(column::VIRTUAL_ORGANISATION), Some("vo1"));
//! # Ok::<(), slarm_workload::WorkloadError>(())
//! ```

use crate::error::{Result, WorkloadError};

/// Columns every record must have: the 18 of SWF (GWF lines have 29).
pub const MIN_COLUMNS: usize = 18;

/// 0-based column indices (the formats' documentation numbers them from 1).
pub mod column {
    /// Job number (1).
    pub const JOB_ID: usize = 0;
    /// Submit time, seconds (2).
    pub const SUBMIT_TIME: usize = 1;
    /// Wait time, seconds (3).
    pub const WAIT_TIME: usize = 2;
    /// Run time, seconds (4).
    pub const RUN_TIME: usize = 3;
    /// Allocated processors (5).
    pub const ALLOCATED_PROCS: usize = 4;
    /// Requested processors (8).
    pub const REQUESTED_PROCS: usize = 7;
    /// Requested time, seconds (9).
    pub const REQUESTED_TIME: usize = 8;
    /// Status (11).
    pub const STATUS: usize = 10;
    /// User (12).
    pub const USER: usize = 11;
    /// Partition (16); SWF traces of multi-site systems use it for the site.
    pub const PARTITION: usize = 15;
    /// GWF: the site the job was submitted to (17, `OrigSiteID`).
    pub const ORIG_SITE: usize = 16;
    /// GWF: the site the job last ran on (18, `LastRunSiteID`).
    pub const LAST_RUN_SITE: usize = 17;
    /// GWF: the virtual organisation (28, `VOID`).
    pub const VIRTUAL_ORGANISATION: usize = 27;
    /// GWF: the project (29, `ProjectID`).
    pub const PROJECT: usize = 28;
}

/// One job line split into its columns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GwfRecord<'a> {
    /// Line number in the input (1-based, comment lines counted).
    pub line: usize,
    fields: Vec<&'a str>,
}

impl<'a> GwfRecord<'a> {
    /// All columns, as text.
    pub fn fields(&self) -> &[&'a str] {
        &self.fields
    }

    /// Column `col` (0-based) as text, `None` past the end of the line.
    pub fn text(&self, col: usize) -> Option<&'a str> {
        self.fields.get(col).copied()
    }

    /// Column `col` (0-based) as a finite number; `None` if it is missing, not a number, or
    /// infinite/NaN.
    pub fn number(&self, col: usize) -> Option<f64> {
        self.text(col)?
            .parse::<f64>()
            .ok()
            .filter(|x| x.is_finite())
    }

    /// The GWF site of the job: the last-run site (column 18) unless it is `-1` (unknown),
    /// else the originating site (column 17).
    pub fn site(&self) -> &'a str {
        match self.text(column::LAST_RUN_SITE) {
            Some("-1") | None => self.text(column::ORIG_SITE).unwrap_or("-1"),
            Some(s) => s,
        }
    }
}

/// Why a record is not a usable job (e.g. for a background load).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Skip {
    /// Run time missing (`-1`) or zero.
    NoRunTime,
    /// Neither requested nor allocated processors are given (both `-1` or zero).
    NoProcessors,
    /// The processor count is not a whole number.
    FractionalProcessors,
    /// The site is unknown (`-1` in both site columns).
    UnknownSite,
}

impl Skip {
    /// Short description.
    pub fn describe(self) -> &'static str {
        match self {
            Self::NoRunTime => "no run time",
            Self::NoProcessors => "no processors",
            Self::FractionalProcessors => "fractional processor count",
            Self::UnknownSite => "unknown site (-1)",
        }
    }
}

/// A job record read for replay: exact submit and run times (seconds, as written), the
/// processors it requested (else those it was allocated) and its site as written.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GwfJob<'a> {
    /// Line of the record.
    pub line: usize,
    /// Submit time, seconds.
    pub submit_s: f64,
    /// Run time, seconds (> 0).
    pub runtime_s: f64,
    /// Processors: requested (column 8) if given, else allocated (column 5).
    pub procs: u64,
    /// The site token (never `-1`).
    pub site: &'a str,
}

impl<'a> GwfRecord<'a> {
    /// Column `col` as a number, or a [`WorkloadError::Malformed`] naming the line and the
    /// 1-based field.
    fn required(&self, col: usize, name: &str) -> Result<f64> {
        self.number(col).ok_or_else(|| WorkloadError::Malformed {
            file: "<input>".into(),
            line: self.line as u64,
            field: col + 1,
            reason: format!(
                "{name} {:?} is not a number",
                self.text(col).unwrap_or_default()
            ),
        })
    }

    /// The record as a job with its site in column `site_col` (e.g. [`column::PARTITION`]
    /// for SWF traces), or [`GwfRecord::site`] when `None`. A record that is not a usable job
    /// is `Ok(Err(skip))`; a column that is not a number is an error.
    ///
    /// ```
    /// use slarm_workload::gwf::{records, Skip};
    /// let line = "1 100.5 5 50.25 4 -1 -1 6 60 -1 1 7 1 1 1 -1 fs0 -1";
    /// let rec = records(line).next().unwrap()?;
    /// let job = rec.job(None)?.unwrap();
    /// assert_eq!((job.submit_s, job.runtime_s, job.procs, job.site), (100.5, 50.25, 6, "fs0"));
    /// let unknown = "1 100 5 50 4 -1 -1 4 60 -1 1 7 1 1 1 -1 -1 -1";
    /// assert_eq!(records(unknown).next().unwrap()?.job(None)?, Err(Skip::UnknownSite));
    /// # Ok::<(), slarm_workload::WorkloadError>(())
    /// ```
    pub fn job(&self, site_col: Option<usize>) -> Result<std::result::Result<GwfJob<'a>, Skip>> {
        let submit_s = self.required(column::SUBMIT_TIME, "submit time")?;
        let runtime_s = self.required(column::RUN_TIME, "run time")?;
        let requested = self.required(column::REQUESTED_PROCS, "requested processors")?;
        let allocated = self.required(column::ALLOCATED_PROCS, "allocated processors")?;
        let site = match site_col {
            Some(c) => self.text(c).unwrap_or("-1"),
            None => self.site(),
        };
        let procs = if requested > 0.0 {
            requested
        } else {
            allocated
        };
        let skip = if runtime_s <= 0.0 {
            Some(Skip::NoRunTime)
        } else if procs < 1.0 {
            Some(Skip::NoProcessors)
        } else if procs.fract() != 0.0 || procs >= u64::MAX as f64 {
            Some(Skip::FractionalProcessors)
        } else if site == "-1" {
            Some(Skip::UnknownSite)
        } else {
            None
        };
        Ok(match skip {
            Some(s) => Err(s),
            None => Ok(GwfJob {
                line: self.line,
                submit_s,
                runtime_s,
                // Whole and in [1, 2^64): exact.
                procs: procs as u64,
                site,
            }),
        })
    }
}

/// The job records of GWF (or SWF) `text`, in input order. Blank lines and lines starting
/// with `;` or `#` (after leading whitespace) are skipped. A line with fewer than
/// [`MIN_COLUMNS`] columns is a [`WorkloadError::Malformed`] (field 0, the line as a whole)
/// naming the line; reading may go on past it.
pub fn records(text: &str) -> impl Iterator<Item = Result<GwfRecord<'_>>> + '_ {
    text.lines().enumerate().filter_map(|(i, line)| {
        let line = line.trim();
        if line.is_empty() || line.starts_with(';') || line.starts_with('#') {
            return None;
        }
        let fields: Vec<&str> = line.split_whitespace().collect();
        if fields.len() < MIN_COLUMNS {
            return Some(Err(WorkloadError::Malformed {
                file: "<input>".into(),
                line: (i + 1) as u64,
                field: 0,
                reason: format!("{} fields, expected at least {MIN_COLUMNS}", fields.len()),
            }));
        }
        Some(Ok(GwfRecord {
            line: i + 1,
            fields,
        }))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn swf_and_gwf_lines_split_and_short_lines_are_errors() {
        let text = "; swf header\n\n  # gwf header\n\
                    1 100 0 50 2 -1 -1 2 60 -1 1 x 1 1 1 3 -1 -1\n\
                    1 2 3\n";
        let recs: Vec<_> = records(text).collect();
        assert_eq!(recs.len(), 2);
        let r = recs[0].as_ref().unwrap();
        assert_eq!(r.line, 4);
        assert_eq!(r.fields().len(), 18);
        assert_eq!(r.number(column::RUN_TIME), Some(50.0));
        assert_eq!(r.number(column::USER), None); // text
        assert_eq!(r.number(40), None);
        assert_eq!(r.text(column::PARTITION), Some("3"));
        match &recs[1] {
            Err(WorkloadError::Malformed {
                line: 5,
                field: 0,
                reason,
                ..
            }) => assert_eq!(reason, "3 fields, expected at least 18"),
            other => panic!("expected a malformed line, got {other:?}"),
        }
    }

    #[test]
    fn jobs_take_requested_processors_exact_times_and_skip_with_reasons() {
        fn job(l: &str) -> Result<std::result::Result<GwfJob<'_>, Skip>> {
            records(l).next().unwrap().unwrap().job(None)
        }
        // Requested (8) before allocated (5); times as written.
        let j = job("1 0.75 0 3600.5 16 -1 -1 8 60 -1 1 1 1 1 1 -1 fs2 -1")
            .unwrap()
            .unwrap();
        assert_eq!(
            (j.submit_s, j.runtime_s, j.procs, j.site),
            (0.75, 3600.5, 8, "fs2")
        );
        // Allocated when nothing was requested.
        let j = job("1 1 0 2 16 -1 -1 -1 60 -1 1 1 1 1 1 -1 fs2 -1")
            .unwrap()
            .unwrap();
        assert_eq!(j.procs, 16);
        for (line, skip) in [
            (
                "1 1 0 0 16 -1 -1 8 60 -1 1 1 1 1 1 -1 fs2 -1",
                Skip::NoRunTime,
            ),
            (
                "1 1 0 5 -1 -1 -1 -1 60 -1 1 1 1 1 1 -1 fs2 -1",
                Skip::NoProcessors,
            ),
            (
                "1 1 0 5 -1 -1 -1 2.5 60 -1 1 1 1 1 1 -1 fs2 -1",
                Skip::FractionalProcessors,
            ),
            (
                "1 1 0 5 -1 -1 -1 2 60 -1 1 1 1 1 1 -1 -1 -1",
                Skip::UnknownSite,
            ),
        ] {
            assert_eq!(job(line).unwrap(), Err(skip), "{line}");
        }
        // SWF: the site is the partition column.
        let rec = records("1 1 0 5 1 -1 -1 1 60 -1 1 1 1 1 1 3 -1 -1")
            .next()
            .unwrap()
            .unwrap();
        assert_eq!(rec.job(Some(column::PARTITION)).unwrap().unwrap().site, "3");
        match job("1 x 0 5 1 -1 -1 1 60 -1 1 1 1 1 1 3 -1 -1") {
            Err(WorkloadError::Malformed {
                line: 1, field: 2, ..
            }) => {}
            other => panic!("expected a malformed submit time, got {other:?}"),
        }
    }

    #[test]
    fn site_falls_back_to_the_originating_site() {
        let line = "1 100 5 50 4 -1 -1 4 60 -1 1 7 1 1 1 -1 delft -1 UNITARY";
        let r = records(line).next().unwrap().unwrap();
        assert_eq!(r.site(), "delft");
        assert_eq!(r.number(column::SUBMIT_TIME), Some(100.0));
        assert_eq!(
            records("1 inf 0 1 1 -1 -1 1 1 -1 1 1 1 1 1 1 1 1")
                .next()
                .unwrap()
                .unwrap()
                .number(1),
            None
        );
    }
}
