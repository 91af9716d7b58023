//! Slurm accounting records (`sacct`) read into slarm's job model, the same [`Trace`] the SWF
//! reader gives, so that every trace-driven model takes a site's own Slurm log.
//!
//! # The input
//!
//! The output of
//!
//! ```text
//! SLURM_TIME_FORMAT=standard sacct -a -X -P -S 2024-01-01 -E 2025-01-01 \
//!   --format=JobIDRaw,Submit,Eligible,Start,End,Elapsed,TimelimitRaw,NCPUS,NNodes,ReqCPUS,State,Partition,User,Group
//! ```
//!
//! (`-X`: one line per job allocation, no steps; `-P`: `|`-separated, no padding;
//! `SLURM_TIME_FORMAT=standard`: times as `2024-03-01T12:34:56`, in the cluster's local time
//! without a zone). The first line names the columns; columns are found by name (case does not
//! matter), in any order, and columns not listed below are ignored. A trailing `|` on every
//! line (`-p` instead of `-P`) is accepted. Plain or gzip input.
//!
//! | column | required | use |
//! |---|---|---|
//! | `JobIDRaw` (or `JobID`) | yes | checked: `123`, array task `123_4`, pending array `123_[1-9%2]`, heterogeneous component `123+1` |
//! | `Submit` | yes | submit time |
//! | `Eligible` | no | when later than `Submit` (a `--begin` time or a dependency), the job's arrival |
//! | `Start` | yes | start time; `Unknown`/`None` for a job that never started |
//! | `End` | no | checked to be a time or `Unknown`/`None` |
//! | `Elapsed` | yes | run time, `[D-]HH:MM:SS` |
//! | `TimelimitRaw` (or `Timelimit`) | no | requested time: minutes (`Timelimit`: `[D-]HH:MM:SS`); `UNLIMITED`, `Partition_Limit` and blank are missing |
//! | `NCPUS` (or `AllocCPUS`) | yes | processors of a started job |
//! | `ReqCPUS` | no | processors of a job that never started |
//! | `NNodes` | no | checked to be a whole number |
//! | `State` | yes | status (below); `CANCELLED by 1234` is `CANCELLED` |
//! | `Partition`, `User`, `Group` | no | numbered 1, 2, ... by first appearance; names are not kept |
//!
//! # The mapping onto the SWF fields (Chapin et al. 1999)
//!
//! - Job number (1): 1, 2, ... in the order of arrival (ties in file order), as the SWF defines
//!   it; Slurm's job ids (array tasks and heterogeneous components among them) are checked, not
//!   kept.
//! - Submit time (2): the arrival, `max(Submit, Eligible)`, in seconds after the earliest
//!   `Submit` of the file, which the header records as `UnixStartTime`.
//! - Wait time (3): `Start` minus the arrival; `-1` for a job that never started.
//! - Run time (4): `Elapsed` for a job that started and ended; `-1` for one that never started
//!   (`Start` unknown, or `PENDING`) or had not ended when sacct ran (`RUNNING`, `SUSPENDED`,
//!   `REQUEUED`, `RESIZING`). Such jobs are kept in the trace, with `-1`, and the drop rules of
//!   [`crate::clean`] remove them; [`SacctTrace::not_run`] counts them by state.
//! - Allocated processors (5): `NCPUS` of a started job, else `-1`. Requested processors (8):
//!   `NCPUS` of a started job (the processors it occupied: Slurm may allocate whole nodes beyond
//!   `ReqCPUS`), `ReqCPUS` of one that never started.
//! - Requested time (9): `TimelimitRaw` minutes times 60; missing (`-1`) when unlimited.
//! - Status (11): 1 `COMPLETED`; 0 `FAILED`, `TIMEOUT`, `NODE_FAIL`, `PREEMPTED`,
//!   `OUT_OF_MEMORY`, `BOOT_FAIL`, `DEADLINE`; 5 `CANCELLED`; -1 for the states of jobs that
//!   have not ended (`PENDING`, `RUNNING`, `SUSPENDED`, `REQUEUED`, `RESIZING`, `REVOKED`).
//!   Any other state is an error.
//! - User (12), group (13), partition (16): numbers by first appearance in the file (blank is
//!   `-1`). Every other field is `-1`.
//!
//! The header gets `UnixStartTime`, `TimeZoneString` and `MaxProcs`: the machine size given
//! in [`SacctOptions::procs`], else the largest number of processors the log shows in use at
//! once (a lower bound on the cluster's size: pass the real size when it is known).
//!
//! # Time zones
//!
//! sacct writes local times without a zone; [`SacctOptions::time_zone`] names it: `UTC` (the
//! default), a fixed offset such as `+01:00`, or, with the `time-zones` feature (on by default),
//! an IANA name such as `Europe/Berlin`, from the database bundled with jiff, so the answer is
//! the same on every machine. A local time that occurs twice (when clocks go back) is read as
//! the earlier instant, one that does not exist (when they go forward) as if the clocks had not
//! yet changed (jiff's "compatible" rule, as RFC 5545).
//!
//! # Errors
//!
//! Strict by default: the first bad line ends the reading with a
//! [`WorkloadError::MalformedColumn`] naming the file, the line and the column. With
//! [`ReadOptions::lenient`] bad lines are skipped and counted in [`Trace::skipped_lines`]; a bad
//! header line is an error either way.
//!
//! ```
//! use slarm_workload::sacct::{read_sacct_from, SacctOptions};
//!
//! let text = "JobIDRaw|Submit|Start|End|Elapsed|TimelimitRaw|NCPUS|ReqCPUS|State|User\n\
//!             7|2024-03-01T10:00:00|2024-03-01T10:00:30|2024-03-01T10:10:30|00:10:00|15|8|4|COMPLETED|alice\n\
//!             8_1|2024-03-01T10:01:00|Unknown|2024-03-01T10:02:00|00:00:00|UNLIMITED|0|2|CANCELLED by 1000|bob\n";
//! let s = read_sacct_from(text.as_bytes(), "site.sacct", &SacctOptions::default())?;
//! let (a, b) = (s.trace.jobs.get(0).unwrap(), s.trace.jobs.get(1).unwrap());
//! assert_eq!((a.id, a.submit, a.wait, a.runtime, a.procs(), a.req_time, a.status, a.user),
//!            (1, 0.0, 30.0, 600.0, 8, 900.0, 1, 1));
//! assert_eq!((b.id, b.submit, b.runtime, b.procs(), b.req_time, b.status, b.user),
//!            (2, 60.0, -1.0, 2, -1.0, 5, 2));
//! assert_eq!(s.not_run.get("cancelled"), Some(&1));
//! assert_eq!(s.trace.header.unix_start_time, Some(1_709_287_200));
//! assert_eq!(s.trace.header.machine_size(), Some(8)); // the peak in use
//!
//! let bad = text.replace("00:10:00", "ten minutes");
//! let e = read_sacct_from(std::io::Cursor::new(bad), "site.sacct", &SacctOptions::default())
//!     .unwrap_err();
//! assert_eq!(e.to_string(),
//!            "site.sacct: line 2: column Elapsed: not a duration [D-]HH:MM:SS: \"ten minutes\"");
//! # Ok::<(), slarm_workload::WorkloadError>(())
//! ```

mod line;
mod values;

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufRead, Read};
use std::path::Path;

use crate::blocks;
use crate::error::{Result, WorkloadError};
use crate::header::SwfHeader;
use crate::reader::{decompressing, ReadOptions, Trace};
use crate::table::JobTable;
use line::{parse_block, renumbered, Columns, Numbering, Parsed, MAX_LINE};
use values::Zone;

/// How to read a sacct file.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct SacctOptions {
    /// Strict or lenient (skip and count bad lines).
    pub read: ReadOptions,
    /// The zone of sacct's local times: `UTC`, a fixed offset (`+01:00`, `-0530`), or with
    /// the `time-zones` feature an IANA name (`Europe/Berlin`).
    pub time_zone: String,
    /// The machine size in processors written as `MaxProcs`; `None`: the peak in use.
    pub procs: Option<u32>,
}

impl Default for SacctOptions {
    fn default() -> Self {
        Self {
            read: ReadOptions::default(),
            time_zone: "UTC".into(),
            procs: None,
        }
    }
}

/// A sacct file read as a trace.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct SacctTrace {
    /// The jobs in SWF form, in arrival order, numbered from 1, with the header described in
    /// the [module documentation](self).
    pub trace: Trace,
    /// Jobs kept with run time `-1` because they never ran to an end, by state in lower case
    /// (`cancelled`, `pending`, `running`, ...).
    pub not_run: BTreeMap<String, u64>,
    /// The largest number of processors in use at once in the log.
    pub peak_procs: u64,
}

/// Reads a sacct file (plain or gzip) into a trace.
pub fn read_sacct(path: &Path, options: &SacctOptions) -> Result<SacctTrace> {
    let name = path.display().to_string();
    let file = File::open(path).map_err(|e| WorkloadError::Io {
        file: name.clone(),
        message: e.to_string(),
    })?;
    read_sacct_from(file, &name, options)
}

/// Reads sacct output from `input` (plain or gzip bytes), naming `file` in errors. The
/// lines after the header are parsed on the machine's processors (at most 4), with the
/// result, and the first bad line, of reading them one by one.
pub fn read_sacct_from<R: Read + Send + 'static>(
    input: R,
    file: &str,
    options: &SacctOptions,
) -> Result<SacctTrace> {
    read_sacct_in_blocks(
        input,
        file,
        options,
        (blocks::default_workers(), blocks::BLOCK),
    )
}

/// [`read_sacct_from`] with the lines after the header cut into blocks of `size` bytes
/// parsed on `workers` threads.
fn read_sacct_in_blocks<R: Read + Send + 'static>(
    input: R,
    file: &str,
    options: &SacctOptions,
    workers_and_size: (usize, usize),
) -> Result<SacctTrace> {
    let zone = Zone::parse(&options.time_zone)?;
    if options.procs == Some(0) {
        return Err(WorkloadError::InvalidParameter {
            name: "machine size",
            value: "0".into(),
            reason: "must be at least one processor",
        });
    }
    let mut input = decompressing(input, file)?;
    let (cols, header_lines) = read_header(&mut input, file)?;
    let lenient = options.read.lenient;
    let mut jobs = JobTable::new();
    let mut first_submit = i64::MAX;
    let mut not_run: BTreeMap<String, u64> = BTreeMap::new();
    let mut skipped = 0u64;
    let mut names: [Numbering; 3] = Default::default();
    let mut take = |mut parsed: Parsed, lines: u64| -> Result<bool> {
        if let Some((line, column, reason)) = parsed.error.take() {
            return Err(WorkloadError::MalformedColumn {
                file: file.to_string(),
                line: lines + line,
                column,
                reason,
            });
        }
        skipped += parsed.skipped;
        let [users, groups, partitions] = [0, 1, 2].map(|k| names[k].renumber(&parsed.names[k]));
        for mut r in parsed.records {
            r.user = renumbered(r.user, &users);
            r.group = renumbered(r.group, &groups);
            r.partition = renumbered(r.partition, &partitions);
            first_submit = first_submit.min(r.submit);
            if !r.ran() {
                *not_run.entry(r.state.name().to_string()).or_default() += 1;
            }
            // Numbered in file order for now: the number breaks ties of arrival below.
            jobs.push(r.job(jobs.len() as u64 + 1))?;
        }
        Ok(true)
    };
    blocks::parse_in_blocks(
        input,
        file,
        header_lines,
        workers_and_size,
        MAX_LINE,
        &|block| parse_block(block, &cols, &zone, lenient),
        &mut take,
    )?;
    if jobs.is_empty() {
        return Err(WorkloadError::NoJobs {
            file: file.to_string(),
        });
    }
    // Arrival order, ties in file order; times from the first submission; numbered 1, 2, ...
    // in that order, as the SWF numbers its jobs.
    let origin = first_submit as f64;
    jobs.map_times(|j| (j.submit - origin, j.runtime, j.req_time));
    jobs.sort_queue_order();
    jobs.renumber();
    let peak = peak_in_use(&jobs);
    let mut header = SwfHeader::default();
    header.absorb(" Version: 2.2");
    header.absorb(" Note: converted by slarm from Slurm accounting records (sacct)");
    header.absorb(&format!(" UnixStartTime: {first_submit}"));
    header.absorb(&format!(" TimeZoneString: {}", options.time_zone));
    header.absorb(&format!(" MaxJobs: {}", jobs.len()));
    header.absorb(&format!(" MaxRecords: {}", jobs.len()));
    let size = options.procs.map_or(peak.max(1), u64::from);
    header.absorb(&format!(" MaxProcs: {size}"));
    Ok(SacctTrace {
        trace: Trace {
            name: file.to_string(),
            header,
            jobs,
            skipped_lines: skipped,
            synthetic: false,
        },
        not_run,
        peak_procs: peak,
    })
}

/// The most processors in use at once by the jobs that ran (a job of run time 0 uses none;
/// at one second, the jobs that end leave before the ones that start come).
fn peak_in_use(jobs: &JobTable) -> u64 {
    let mut events: Vec<(f64, i64)> = Vec::new();
    for j in jobs.iter().filter(|j| j.runtime > 0.0) {
        let start = j.submit + j.wait;
        events.push((start, j.alloc_procs));
        events.push((start + j.runtime, -j.alloc_procs));
    }
    events.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    let (mut now, mut peak) = (0i64, 0i64);
    for (_, d) in &events {
        now += d;
        peak = peak.max(now);
    }
    peak.max(0) as u64
}

/// Reads up to and including the header line (the first line that is not blank); returns
/// its columns and the number of lines read.
fn read_header(input: &mut impl BufRead, file: &str) -> Result<(Columns, u64)> {
    let mut buf = Vec::with_capacity(512);
    let mut line_no = 0u64;
    loop {
        buf.clear();
        let n = input
            .take(MAX_LINE as u64 + 1)
            .read_until(b'\n', &mut buf)
            .map_err(|e| WorkloadError::Decompress {
                file: file.to_string(),
                line: line_no + 1,
                message: e.to_string(),
            })?;
        if n == 0 {
            return Err(WorkloadError::NoJobs {
                file: file.to_string(),
            });
        }
        line_no += 1;
        let malformed = |reason: String| WorkloadError::MalformedColumn {
            file: file.to_string(),
            line: line_no,
            column: "(line)".to_string(),
            reason,
        };
        if buf.len() > MAX_LINE {
            return Err(malformed(format!("longer than {MAX_LINE} bytes")));
        }
        let text = std::str::from_utf8(&buf)
            .map_err(|_| malformed("not UTF-8 text".into()))?
            .trim_end_matches(['\n', '\r']);
        if !text.trim().is_empty() {
            return Ok((Columns::parse(text, file)?, line_no));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const HEAD: &str = "JobIDRaw|Submit|Eligible|Start|End|Elapsed|TimelimitRaw|NCPUS|NNodes|ReqCPUS|State|Partition|User|Group";

    fn read(text: &str, tz: &str, lenient: bool) -> Result<SacctTrace> {
        read_sacct_from(
            std::io::Cursor::new(text.as_bytes().to_vec()),
            "t.sacct",
            &SacctOptions {
                read: ReadOptions { lenient },
                time_zone: tz.into(),
                procs: None,
            },
        )
    }

    /// Every column of the mapping, by hand.
    #[test]
    fn fields_map_as_documented() {
        let text = format!(
            "{HEAD}\n\
             100|2024-01-01T00:00:00|2024-01-01T00:00:00|2024-01-01T00:01:00|2024-01-01T01:01:00|01:00:00|120|16|1|16|COMPLETED|batch|u1|g1\n\
             101_3|2024-01-01T00:00:10|2024-01-01T00:05:00|2024-01-01T00:06:00|2024-01-01T00:07:00|00:01:00|UNLIMITED|4|1|2|TIMEOUT|debug|u2|g1\n\
             102+1|2024-01-01T00:00:20|Unknown|None|2024-01-01T00:00:50|00:00:00|Partition_Limit|0|0|8|CANCELLED by 501|batch|u1|g2\n\
             103_[1-4%2]|2024-01-01T00:00:30|2024-01-01T00:00:30|Unknown|Unknown|00:00:00|30|0|1|2|PENDING|batch|u3|g2\n\
             104|2024-01-01T00:00:40|2024-01-01T00:00:40|2024-01-01T00:02:00|Unknown|1-00:00:05|60|8|1|8|RUNNING|batch|u3|g2\n\
             105|2024-01-01T00:00:50|2024-01-01T00:00:50|2024-01-01T00:01:00|2024-01-01T00:01:30|00:00:30|5|2|1|2|OUT_OF_MEMORY|gpu|u1|g1\n"
        );
        let s = read(&text, "UTC", false).unwrap();
        let f: Vec<[f64; 18]> = s.trace.jobs.iter().map(|j| j.to_fields()).collect();
        // Arrival order: 100 (0), 102 (20), 103 (30), 104 (40), 105 (50), 101 (eligible 290).
        let m = -1.0;
        assert_eq!(
            f[0],
            [1.0, 0.0, 60.0, 3600.0, 16.0, m, m, 16.0, 7200.0, m, 1.0, 1.0, 1.0, m, m, 1.0, m, m]
        );
        assert_eq!(
            f[1],
            [2.0, 20.0, m, m, m, m, m, 8.0, m, m, 5.0, 1.0, 2.0, m, m, 1.0, m, m]
        );
        assert_eq!(
            f[2],
            [3.0, 30.0, m, m, m, m, m, 2.0, 1800.0, m, m, 3.0, 2.0, m, m, 1.0, m, m]
        );
        assert_eq!(
            f[3],
            [4.0, 40.0, m, m, m, m, m, 8.0, 3600.0, m, m, 3.0, 2.0, m, m, 1.0, m, m]
        );
        assert_eq!(
            f[4],
            [5.0, 50.0, 10.0, 30.0, 2.0, m, m, 2.0, 300.0, m, 0.0, 1.0, 1.0, m, m, 3.0, m, m]
        );
        assert_eq!(
            f[5],
            [6.0, 300.0, 60.0, 60.0, 4.0, m, m, 4.0, m, m, 0.0, 2.0, 1.0, m, m, 2.0, m, m]
        );
        let not_run: Vec<(&str, u64)> = s.not_run.iter().map(|(k, v)| (k.as_str(), *v)).collect();
        assert_eq!(
            not_run,
            vec![("cancelled", 1), ("pending", 1), ("running", 1)]
        );
        // 16 from 60 s to 3660 s, 2 from 60 s to 90 s, 4 from 360 s to 420 s: peak 20.
        assert_eq!(s.peak_procs, 20);
        assert_eq!(s.trace.header.machine_size(), Some(20));
        assert_eq!(s.trace.header.unix_start_time, Some(1_704_067_200));
        assert_eq!(s.trace.header.time_zone.as_deref(), Some("UTC"));
    }

    #[test]
    fn columns_are_found_by_name_in_any_order_and_extras_ignored() {
        let text = "state|ncpus|Extra|elapsed|start|submit|jobid|AveRSS|\n\
                    COMPLETED|4|x|00:00:10|2024-01-01T00:00:05|2024-01-01T00:00:00|9|1K|\n";
        let s = read(text, "UTC", false).unwrap();
        let j = s.trace.jobs.get(0).unwrap();
        assert_eq!(
            (j.submit, j.wait, j.runtime, j.procs(), j.req_time),
            (0.0, 5.0, 10.0, 4, -1.0)
        );
        let missing =
            "JobIDRaw|Submit|Start|Elapsed|State\n1|2024-01-01T00:00:00|Unknown|00:00:00|PENDING\n";
        let e = read(missing, "UTC", false).unwrap_err();
        assert_eq!(
            e.to_string(),
            "t.sacct: line 1: column NCPUS: required column missing from the header line (is this `sacct -P` output?)"
        );
        let twice = "JobIDRaw|Submit|Start|Elapsed|State|NCPUS|State\n";
        assert!(
            matches!(read(twice, "UTC", false), Err(WorkloadError::MalformedColumn { line: 1, column, .. }) if column == "State")
        );
    }

    #[test]
    fn bad_lines_name_file_line_and_column_or_are_skipped() {
        let good = "1|2024-01-01T00:00:00|2024-01-01T00:00:00|2024-01-01T00:00:01|2024-01-01T00:00:11|00:00:10|1|1|1|1|COMPLETED|p|u|g";
        for (bad, column) in [
            (good.replace("COMPLETED", "EXPLODED"), "State"),
            (
                good.replacen("2024-01-01T00:00:00", "2024-02-30T00:00:00", 1),
                "Submit",
            ),
            (good.replace("00:00:10", "00:61:00"), "Elapsed"),
            (good.replace("00:00:10|1|", "00:00:10|x|"), "TimelimitRaw"),
            (good.replace("00:00:10|1|1|", "00:00:10|1|-4|"), "NCPUS"),
            (good.replacen("1|", "abc|", 1), "JobIDRaw"),
            (good.replace("|p|u|g", "|p|u"), "(line)"),
            (
                good.replace("2024-01-01T00:00:11", "2023-01-01T00:00:11"),
                "End",
            ),
        ] {
            let text = format!("{HEAD}\n{good}\n{bad}\n{good}\n");
            match read(&text, "UTC", false) {
                Err(WorkloadError::MalformedColumn {
                    file,
                    line,
                    column: c,
                    ..
                }) => {
                    assert_eq!(
                        (file.as_str(), line, c.as_str()),
                        ("t.sacct", 3, column),
                        "{bad}"
                    );
                }
                other => panic!("{bad}: {other:?}"),
            }
            let s = read(&text, "UTC", true).unwrap();
            assert_eq!((s.trace.jobs.len(), s.trace.skipped_lines), (2, 1), "{bad}");
        }
        assert!(matches!(
            read(HEAD, "UTC", false),
            Err(WorkloadError::NoJobs { .. })
        ));
        assert!(matches!(
            read("", "UTC", true),
            Err(WorkloadError::NoJobs { .. })
        ));
    }

    #[test]
    fn zones_shift_local_times() {
        let text = "JobIDRaw|Submit|Start|Elapsed|NCPUS|State\n\
                    1|2024-07-01T12:00:00|2024-07-01T12:00:00|00:00:10|1|COMPLETED\n";
        let utc = read(text, "UTC", false)
            .unwrap()
            .trace
            .header
            .unix_start_time
            .unwrap();
        let plus = read(text, "+02:00", false)
            .unwrap()
            .trace
            .header
            .unix_start_time
            .unwrap();
        let minus = read(text, "-0530", false)
            .unwrap()
            .trace
            .header
            .unix_start_time
            .unwrap();
        assert_eq!(utc, 1_719_835_200);
        assert_eq!(utc - plus, 7200);
        assert_eq!(minus - utc, 5 * 3600 + 1800);
        for bad in ["+25:00", "Mars/Olympus", "+1", ""] {
            assert!(
                matches!(
                    read(text, bad, false),
                    Err(WorkloadError::InvalidParameter {
                        name: "time zone",
                        ..
                    })
                ),
                "{bad}"
            );
        }
    }

    #[cfg(feature = "time-zones")]
    #[test]
    fn iana_zones_follow_daylight_saving_time() {
        // Berlin: UTC+2 in July, UTC+1 in January; on 2024-10-27 02:30 occurs twice (the
        // earlier, +2, is taken) and on 2024-03-31 02:30 does not exist (read as +1).
        let t = |when: &str| {
            let text = format!(
                "JobIDRaw|Submit|Start|Elapsed|NCPUS|State\n1|{when}|{when}|00:00:10|1|COMPLETED\n"
            );
            read(&text, "Europe/Berlin", false)
                .unwrap()
                .trace
                .header
                .unix_start_time
                .unwrap()
        };
        assert_eq!(t("2024-07-01T12:00:00"), 1_719_835_200 - 7200);
        assert_eq!(t("2024-01-01T12:00:00"), 1_704_110_400 - 3600);
        assert_eq!(t("2024-10-27T02:30:00"), 1_729_996_200 - 7200);
        assert_eq!(t("2024-03-31T02:30:00"), 1_711_852_200 - 3600);
    }

    proptest! {
        /// Any bytes after a valid header: an answer or a typed error, never a panic; in
        /// lenient mode only a missing job is an error.
        #[test]
        fn random_lines_never_panic(lines in proptest::collection::vec("[-0-9A-Za-z:|_+ T\\[\\]%]{0,60}", 0..8), lenient in any::<bool>()) {
            let text = format!("{HEAD}\n{}\n", lines.join("\n"));
            match read(&text, "UTC", lenient) {
                Ok(s) => prop_assert!(!s.trace.jobs.is_empty()),
                Err(WorkloadError::MalformedColumn { line, .. }) => prop_assert!(!lenient && line >= 2),
                Err(WorkloadError::NoJobs { .. }) => {}
                Err(e) => prop_assert!(false, "unexpected {e}"),
            }
        }

        /// Lines cut into blocks and parsed on several threads give the trace of one block
        /// read on one thread: the order of arrival, the names numbered by first appearance
        /// over the whole file, the bad line that ends a strict reading and the count a
        /// lenient one skips.
        #[test]
        fn blocks_read_as_one(
            lines in proptest::collection::vec((0u8..10, 0u32..5_000, 0u8..4, 0u8..3), 1..60),
            lenient in any::<bool>(),
            workers in 1usize..4,
            size in 1usize..400,
        ) {
            let mut text = format!("\n{HEAD}\n");
            for (k, &(kind, submit, user, part)) in lines.iter().enumerate() {
                let t = |s: u32| {
                    format!("2024-01-{:02}T{:02}:{:02}:{:02}", 1 + s / 86_400, s / 3600 % 24, s / 60 % 60, s % 60)
                };
                let line = format!(
                    "{k}|{}|{}|{}|{}|00:00:{:02}|{}|{}|1|{}|{}|p{part}|u{user}|g{}",
                    t(submit), t(submit + u32::from(kind) * 7), t(submit + 60), t(submit + 60 + u32::from(kind)),
                    kind, 1 + kind % 3, 1 + kind % 4, 2, if kind == 3 { "CANCELLED by 9" } else { "COMPLETED" }, user % 2,
                );
                match kind {
                    0 => text.push('\n'),
                    1 => text.push_str(&line.replace("COMPLETED", "EXPLODED")),
                    2 => text.push_str(&"x".repeat(300)),
                    _ => {}
                }
                text.push_str(&line);
                text.push('\n');
            }
            let options = SacctOptions {
                read: ReadOptions { lenient },
                ..SacctOptions::default()
            };
            let read = |(workers, size)| {
                // Reads of at most `size` bytes, so that blocks are cut every `size` bytes.
                let input = Trickle(std::io::Cursor::new(text.clone().into_bytes()), size);
                read_sacct_in_blocks(input, "t.sacct", &options, (workers, size))
                    .map_err(|e| e.to_string())
            };
            prop_assert_eq!(read((workers, size)), read((1, 1 << 20)));
        }
    }

    /// A reader that gives at most `.1` bytes a read.
    struct Trickle<R>(R, usize);

    impl<R: Read> Read for Trickle<R> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = buf.len().min(self.1);
            self.0.read(&mut buf[..n])
        }
    }

    /// A reader that fails once `.1` bytes were read.
    struct Failing(std::io::Cursor<Vec<u8>>, u64);

    impl Read for Failing {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            if self.0.position() >= self.1 {
                return Err(std::io::Error::other("disk gone"));
            }
            let n = buf.len().min((self.1 - self.0.position()) as usize);
            self.0.read(&mut buf[..n])
        }
    }

    /// A read error after the header and two whole lines names the third line, also when
    /// the lines are read in blocks on several threads.
    #[test]
    fn a_read_error_names_the_line_it_interrupted() {
        let good = "1|2024-01-01T00:00:00|2024-01-01T00:00:00|2024-01-01T00:00:01|2024-01-01T00:00:11|00:00:10|1|1|1|1|COMPLETED|p|u|g";
        let text = format!("{HEAD}\n{good}\n{good}\n{good}\n");
        let cut = (HEAD.len() + 2 * good.len() + 3 + 5) as u64;
        for workers_and_size in [(1, 1 << 20), (3, 10)] {
            let input = Failing(std::io::Cursor::new(text.clone().into_bytes()), cut);
            let e =
                read_sacct_in_blocks(input, "t.sacct", &SacctOptions::default(), workers_and_size)
                    .unwrap_err();
            assert!(
                matches!(e, WorkloadError::Decompress { line: 4, .. }),
                "{workers_and_size:?}: {e}"
            );
        }
    }

    /// A line longer than the longest allowed is refused (or skipped), also when the block
    /// reader cuts it before its end.
    #[test]
    fn overlong_lines_are_refused_or_skipped() {
        let good = "1|2024-01-01T00:00:00|2024-01-01T00:00:00|2024-01-01T00:00:01|2024-01-01T00:00:11|00:00:10|1|1|1|1|COMPLETED|p|u|g";
        let text = format!("{HEAD}\n{good}\n{}\n{good}\n", "y".repeat(3 * MAX_LINE));
        for workers_and_size in [(1, 1 << 20), (2, 1000)] {
            let strict = SacctOptions::default();
            let read = |options: &SacctOptions| {
                let input = Trickle(std::io::Cursor::new(text.clone().into_bytes()), 4096);
                read_sacct_in_blocks(input, "t.sacct", options, workers_and_size)
            };
            assert_eq!(
                read(&strict).unwrap_err().to_string(),
                format!("t.sacct: line 3: column (line): longer than {MAX_LINE} bytes")
            );
            let lenient = SacctOptions {
                read: ReadOptions { lenient: true },
                ..strict
            };
            let s = read(&lenient).unwrap();
            assert_eq!((s.trace.jobs.len(), s.trace.skipped_lines), (2, 1));
        }
    }
}
