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

use std::collections::{BTreeMap, HashMap};
use std::fs::File;
use std::io::{BufRead, Read};
use std::path::Path;

use crate::error::{Result, WorkloadError};
use crate::header::SwfHeader;
use crate::job::Job;
use crate::reader::{decompressing, ReadOptions, Trace};

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

/// Bound on the columns of the header line (sacct has about 120 fields).
const MAX_COLUMNS: usize = 1024;

/// The columns slarm reads, by role.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Col {
    JobId,
    Submit,
    Eligible,
    Start,
    End,
    Elapsed,
    TimelimitRaw,
    Timelimit,
    Ncpus,
    ReqCpus,
    NNodes,
    State,
    Partition,
    User,
    Group,
}

impl Col {
    /// The role of header name `name` (`JobID` is taken only when `JobIDRaw` is absent, and
    /// likewise `Timelimit` and `AllocCPUS`: see [`Columns::find`]).
    fn of(name: &str) -> Option<Self> {
        Some(match name.to_ascii_lowercase().as_str() {
            "jobidraw" | "jobid" => Self::JobId,
            "submit" => Self::Submit,
            "eligible" => Self::Eligible,
            "start" => Self::Start,
            "end" => Self::End,
            "elapsed" => Self::Elapsed,
            "timelimitraw" => Self::TimelimitRaw,
            "timelimit" => Self::Timelimit,
            "ncpus" | "alloccpus" => Self::Ncpus,
            "reqcpus" => Self::ReqCpus,
            "nnodes" => Self::NNodes,
            "state" => Self::State,
            "partition" => Self::Partition,
            "user" => Self::User,
            "group" => Self::Group,
            _ => return None,
        })
    }
}

/// Where each column is, with the name the header gave it (for messages).
#[derive(Debug, Default)]
struct Columns {
    at: HashMap<&'static str, (usize, String)>,
    count: usize,
    trailing_bar: bool,
}

fn key(c: Col) -> &'static str {
    match c {
        Col::JobId => "JobIDRaw",
        Col::Submit => "Submit",
        Col::Eligible => "Eligible",
        Col::Start => "Start",
        Col::End => "End",
        Col::Elapsed => "Elapsed",
        Col::TimelimitRaw => "TimelimitRaw",
        Col::Timelimit => "Timelimit",
        Col::Ncpus => "NCPUS",
        Col::ReqCpus => "ReqCPUS",
        Col::NNodes => "NNodes",
        Col::State => "State",
        Col::Partition => "Partition",
        Col::User => "User",
        Col::Group => "Group",
    }
}

impl Columns {
    fn parse(line: &str, file: &str) -> Result<Self> {
        let bad = |column: &str, reason: String| WorkloadError::MalformedColumn {
            file: file.to_string(),
            line: 1,
            column: column.to_string(),
            reason,
        };
        let trailing_bar = line.ends_with('|');
        let body = if trailing_bar {
            &line[..line.len() - 1]
        } else {
            line
        };
        let names: Vec<&str> = body.split('|').map(str::trim).collect();
        if names.len() > MAX_COLUMNS {
            return Err(bad(
                "(header)",
                format!("{} columns, at most {MAX_COLUMNS}", names.len()),
            ));
        }
        let mut cols = Columns {
            count: names.len(),
            trailing_bar,
            ..Columns::default()
        };
        // Prefer JobIDRaw over JobID and NCPUS over AllocCPUS when both are there.
        let preferred = |n: &str| matches!(n.to_ascii_lowercase().as_str(), "jobidraw" | "ncpus");
        for (i, n) in names.iter().enumerate() {
            let Some(c) = Col::of(n) else { continue };
            let k = key(c);
            match cols.at.get(k) {
                Some((_, prev)) if prev.eq_ignore_ascii_case(n) => {
                    return Err(bad(n, "column named twice in the header".into()));
                }
                Some((_, prev)) if preferred(prev) => {}
                _ => {
                    cols.at.insert(k, (i, n.to_string()));
                }
            }
        }
        for c in [
            Col::JobId,
            Col::Submit,
            Col::Start,
            Col::Elapsed,
            Col::Ncpus,
            Col::State,
        ] {
            if !cols.at.contains_key(key(c)) {
                return Err(bad(
                    key(c),
                    "required column missing from the header line (is this `sacct -P` output?)"
                        .into(),
                ));
            }
        }
        Ok(cols)
    }

    fn index(&self, c: Col) -> Option<&(usize, String)> {
        self.at.get(key(c))
    }
}

/// A bad value: the column (as the header names it) and why.
type Bad = (String, String);

/// One sacct line, parsed but with absolute times.
#[derive(Debug, Clone)]
struct Record {
    arrival: i64,
    submit: i64,
    start: Option<i64>,
    elapsed: i64,
    limit_s: Option<i64>,
    ncpus: i64,
    req_cpus: i64,
    state: State,
    user: i64,
    group: i64,
    partition: i64,
}

/// Slurm job states (slurm.schedmd.com, sacct, "JOB STATE CODES").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Completed,
    Failed(&'static str),
    Cancelled,
    NotEnded(&'static str),
}

impl State {
    fn parse(s: &str) -> Option<Self> {
        let word = s.split_whitespace().next().unwrap_or("");
        let word = word.trim_end_matches('+').to_ascii_uppercase();
        Some(match word.as_str() {
            "COMPLETED" | "CD" => Self::Completed,
            "CANCELLED" | "CA" => Self::Cancelled,
            "FAILED" | "F" => Self::Failed("failed"),
            "TIMEOUT" | "TO" => Self::Failed("timeout"),
            "NODE_FAIL" | "NF" => Self::Failed("node_fail"),
            "PREEMPTED" | "PR" => Self::Failed("preempted"),
            "OUT_OF_MEMORY" | "OOM" => Self::Failed("out_of_memory"),
            "BOOT_FAIL" | "BF" => Self::Failed("boot_fail"),
            "DEADLINE" | "DL" => Self::Failed("deadline"),
            "PENDING" | "PD" => Self::NotEnded("pending"),
            "RUNNING" | "R" => Self::NotEnded("running"),
            "SUSPENDED" | "S" => Self::NotEnded("suspended"),
            "REQUEUED" | "RQ" => Self::NotEnded("requeued"),
            "RESIZING" | "RS" => Self::NotEnded("resizing"),
            "REVOKED" | "RV" => Self::NotEnded("revoked"),
            _ => return None,
        })
    }

    /// SWF status (field 11).
    fn swf_status(self) -> i64 {
        match self {
            Self::Completed => 1,
            Self::Failed(_) => 0,
            Self::Cancelled => 5,
            Self::NotEnded(_) => -1,
        }
    }

    /// Lower-case name for the counts of jobs that did not run to an end.
    fn name(self) -> &'static str {
        match self {
            Self::Completed => "completed",
            Self::Cancelled => "cancelled",
            Self::Failed(n) | Self::NotEnded(n) => n,
        }
    }
}

/// Days from 1970-01-01 to the civil date (proleptic Gregorian; Hinnant's algorithm).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// A civil date and time as sacct writes it in the standard format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Civil {
    y: i16,
    mo: i8,
    d: i8,
    h: i8,
    mi: i8,
    s: i8,
}

impl Civil {
    /// `YYYY-MM-DDTHH:MM:SS` (a space for the `T` is accepted), a valid date and time.
    fn parse(s: &str) -> Option<Self> {
        let b = s.as_bytes();
        if b.len() != 19
            || b[4] != b'-'
            || b[7] != b'-'
            || !(b[10] == b'T' || b[10] == b' ')
            || b[13] != b':'
            || b[16] != b':'
        {
            return None;
        }
        let num = |r: std::ops::Range<usize>| -> Option<i64> {
            let part = &s[r];
            if part.bytes().all(|c| c.is_ascii_digit()) {
                part.parse().ok()
            } else {
                None
            }
        };
        let (y, mo, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
        let (h, mi, sec) = (num(11..13)?, num(14..16)?, num(17..19)?);
        let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
        let month_days = match mo {
            1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
            4 | 6 | 9 | 11 => 30,
            2 if leap => 29,
            2 => 28,
            _ => return None,
        };
        if y < 1 || d < 1 || d > month_days || h > 23 || mi > 59 || sec > 59 {
            return None;
        }
        // All in range: the narrowing casts are exact.
        Some(Self {
            y: y as i16,
            mo: mo as i8,
            d: d as i8,
            h: h as i8,
            mi: mi as i8,
            s: sec as i8,
        })
    }

    /// Seconds since the epoch of this time read as UTC.
    fn utc_seconds(self) -> i64 {
        days_from_civil(self.y.into(), self.mo.into(), self.d.into()) * 86_400
            + i64::from(self.h) * 3600
            + i64::from(self.mi) * 60
            + i64::from(self.s)
    }
}

/// The zone of sacct's local times.
#[derive(Debug, Clone)]
enum Zone {
    /// A fixed offset from UTC, in seconds east.
    Fixed(i64),
    /// An IANA zone.
    #[cfg(feature = "time-zones")]
    Named(jiff::tz::TimeZone),
}

impl Zone {
    fn parse(name: &str) -> Result<Self> {
        let invalid = |reason: &'static str| WorkloadError::InvalidParameter {
            name: "time zone",
            value: name.to_string(),
            reason,
        };
        let n = name.trim();
        if n.eq_ignore_ascii_case("utc") || n == "Z" || n.eq_ignore_ascii_case("gmt") {
            return Ok(Self::Fixed(0));
        }
        if let Some(rest) = n
            .strip_prefix('+')
            .map(|r| (1, r))
            .or_else(|| n.strip_prefix('-').map(|r| (-1, r)))
        {
            let (sign, digits) = rest;
            let hm: String = digits.chars().filter(|&c| c != ':').collect();
            let ok_shape = (digits.len() == 5 && digits.as_bytes()[2] == b':')
                || digits.len() == 4
                || digits.len() == 2;
            if ok_shape
                && hm.bytes().all(|c| c.is_ascii_digit())
                && (hm.len() == 4 || hm.len() == 2)
            {
                let h: i64 = hm[..2].parse().map_err(|_| invalid("not an offset"))?;
                let m: i64 = if hm.len() == 4 {
                    hm[2..].parse().map_err(|_| invalid("not an offset"))?
                } else {
                    0
                };
                if h <= 14 && m <= 59 {
                    return Ok(Self::Fixed(sign * (h * 3600 + m * 60)));
                }
            }
            return Err(invalid("an offset is +HH:MM or -HH:MM, at most 14 hours"));
        }
        Self::named(n).ok_or_else(|| {
            invalid(if cfg!(feature = "time-zones") {
                "not UTC, an offset such as +01:00, or an IANA zone name such as Europe/Berlin"
            } else {
                "not UTC or an offset such as +01:00 (IANA names need the time-zones feature)"
            })
        })
    }

    #[cfg(feature = "time-zones")]
    fn named(n: &str) -> Option<Self> {
        if n.is_empty() || n.len() > 64 {
            return None;
        }
        jiff::tz::TimeZone::get(n).ok().map(Self::Named)
    }

    #[cfg(not(feature = "time-zones"))]
    fn named(_: &str) -> Option<Self> {
        None
    }

    /// Seconds since the epoch of local time `c` in this zone.
    fn seconds(&self, c: Civil) -> Option<i64> {
        match self {
            Self::Fixed(off) => Some(c.utc_seconds() - off),
            #[cfg(feature = "time-zones")]
            Self::Named(tz) => {
                let dt = jiff::civil::DateTime::new(c.y, c.mo, c.d, c.h, c.mi, c.s, 0).ok()?;
                tz.to_ambiguous_timestamp(dt)
                    .compatible()
                    .ok()
                    .map(|t| t.as_second())
            }
        }
    }
}

/// `[D-][[HH:]MM:]SS[.fff]` in seconds (fractions dropped), or `None`.
fn duration(s: &str) -> Option<i64> {
    let (days, rest) = match s.split_once('-') {
        Some((d, r)) => (whole(d)?, r),
        None => (0, s),
    };
    let rest = rest.split_once('.').map_or(rest, |(a, frac)| {
        if frac.bytes().all(|c| c.is_ascii_digit()) {
            a
        } else {
            "x"
        }
    });
    let parts: Vec<&str> = rest.split(':').collect();
    if parts.is_empty() || parts.len() > 3 {
        return None;
    }
    let mut secs = 0i64;
    for (i, p) in parts.iter().enumerate() {
        let v = whole(p)?;
        if i > 0 && v > 59 {
            return None;
        }
        secs = secs.checked_mul(60)?.checked_add(v)?;
    }
    if days > 1_000_000 {
        return None;
    }
    days.checked_mul(86_400)?.checked_add(secs)
}

/// A non-negative whole number of at most 12 digits.
fn whole(s: &str) -> Option<i64> {
    if s.is_empty() || s.len() > 12 || !s.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// A Slurm job id: `123`, `123_4`, `123_[1-9%2]`, `123+1`.
fn job_id_ok(s: &str) -> bool {
    let (base, tail) = match s.find(['_', '+']) {
        Some(i) => (&s[..i], Some((&s[i..i + 1], &s[i + 1..]))),
        None => (s, None),
    };
    if whole(base).is_none() {
        return false;
    }
    match tail {
        None => true,
        Some(("+", t)) => whole(t).is_some(),
        Some((_, t)) => {
            if let Some(inner) = t.strip_prefix('[').and_then(|t| t.strip_suffix(']')) {
                !inner.is_empty()
                    && inner
                        .bytes()
                        .all(|c| c.is_ascii_digit() || matches!(c, b'-' | b',' | b'%' | b':'))
            } else {
                whole(t).is_some()
            }
        }
    }
}

/// Numbers names by first appearance (1, 2, ...); blank is -1.
#[derive(Debug, Default)]
struct Numbering(HashMap<String, i64>);

impl Numbering {
    fn number(&mut self, name: &str) -> i64 {
        if name.is_empty() {
            return -1;
        }
        let next = self.0.len() as i64 + 1;
        *self.0.entry(name.to_string()).or_insert(next)
    }
}

/// The parsing state over the lines of one file.
struct Parser<'a> {
    cols: &'a Columns,
    zone: &'a Zone,
    users: Numbering,
    groups: Numbering,
    partitions: Numbering,
}

impl Parser<'_> {
    fn parse(&mut self, line: &str) -> std::result::Result<Record, Bad> {
        let body = if self.cols.trailing_bar {
            line.strip_suffix('|').unwrap_or(line)
        } else {
            line
        };
        let fields: Vec<&str> = body.split('|').collect();
        if fields.len() != self.cols.count {
            return Err((
                "(line)".into(),
                format!(
                    "{} columns, the header has {}",
                    fields.len(),
                    self.cols.count
                ),
            ));
        }
        let get = |c: Col| -> Option<(&str, &str)> {
            self.cols
                .index(c)
                .map(|(i, name)| (fields[*i].trim(), name.as_str()))
        };
        let bad = |name: &str, what: &str, v: &str| -> Bad {
            (name.to_string(), format!("{what}: {v:?}"))
        };
        let time = |c: Col| -> std::result::Result<Option<i64>, Bad> {
            let Some((v, name)) = get(c) else {
                return Ok(None);
            };
            if v.is_empty() || v.eq_ignore_ascii_case("unknown") || v.eq_ignore_ascii_case("none") {
                return Ok(None);
            }
            let civil =
                Civil::parse(v).ok_or_else(|| bad(name, "not a time YYYY-MM-DDTHH:MM:SS", v))?;
            self.zone
                .seconds(civil)
                .map(Some)
                .ok_or_else(|| bad(name, "not a time in the zone", v))
        };
        let count = |c: Col| -> std::result::Result<Option<i64>, Bad> {
            match get(c) {
                None => Ok(None),
                Some(("", _)) => Ok(None),
                Some((v, name)) => whole(v)
                    .map(Some)
                    .ok_or_else(|| bad(name, "not a whole number", v)),
            }
        };
        let required = |c: Col| -> (&str, &str) { get(c).unwrap_or(("", key(c))) };

        let (id, id_name) = required(Col::JobId);
        if !job_id_ok(id) {
            return Err(bad(id_name, "not a Slurm job id (123, 123_4, 123+1)", id));
        }
        let (state_text, state_name) = required(Col::State);
        let state = State::parse(state_text)
            .ok_or_else(|| bad(state_name, "not a job state", state_text))?;
        let submit = time(Col::Submit)?.ok_or_else(|| {
            let (v, n) = required(Col::Submit);
            bad(n, "the submit time is missing", v)
        })?;
        let eligible = time(Col::Eligible)?;
        let start = time(Col::Start)?;
        let end = time(Col::End)?;
        let (el, el_name) = required(Col::Elapsed);
        let elapsed =
            duration(el).ok_or_else(|| bad(el_name, "not a duration [D-]HH:MM:SS", el))?;
        let limit_s = match (get(Col::TimelimitRaw), get(Col::Timelimit)) {
            (Some((v, name)), _) => limit(v, name, true)?,
            (None, Some((v, name))) => limit(v, name, false)?,
            (None, None) => None,
        };
        let ncpus = count(Col::Ncpus)?.unwrap_or(0);
        let req_cpus = count(Col::ReqCpus)?.unwrap_or(-1);
        count(Col::NNodes)?;
        if let (Some(s), Some(e)) = (start, end) {
            if e < s {
                let (v, n) = required(Col::End);
                return Err(bad(n, "ends before it starts", v));
            }
        }
        if let Some(s) = start {
            if s < submit && state != State::NotEnded("pending") {
                let (v, n) = required(Col::Start);
                return Err(bad(n, "starts before it was submitted", v));
            }
        }
        let arrival = eligible.map_or(submit, |e| e.max(submit));
        Ok(Record {
            arrival,
            submit,
            start,
            elapsed,
            limit_s,
            ncpus,
            req_cpus,
            state,
            user: get(Col::User).map_or(-1, |(v, _)| self.users.number(v)),
            group: get(Col::Group).map_or(-1, |(v, _)| self.groups.number(v)),
            partition: get(Col::Partition).map_or(-1, |(v, _)| self.partitions.number(v)),
        })
    }
}

/// A time limit: `TimelimitRaw` minutes (`raw`) or `Timelimit` `[D-]HH:MM:SS`, in seconds;
/// `None` when unlimited.
fn limit(v: &str, name: &str, raw: bool) -> std::result::Result<Option<i64>, Bad> {
    if v.is_empty()
        || v.eq_ignore_ascii_case("unlimited")
        || v.eq_ignore_ascii_case("partition_limit")
        || v.eq_ignore_ascii_case("infinite")
    {
        return Ok(None);
    }
    let secs = if raw {
        whole(v).map(|m| m * 60)
    } else {
        duration(v)
    };
    secs.map(Some).ok_or_else(|| {
        (
            name.to_string(),
            format!(
                "not a time limit ({}, UNLIMITED or Partition_Limit): {v:?}",
                if raw { "minutes" } else { "[D-]HH:MM:SS" }
            ),
        )
    })
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

/// Longest line read (a sacct line with every field is well under 4 KiB).
const MAX_LINE: usize = 1 << 16;

/// Reads sacct output from `input` (plain or gzip bytes), naming `file` in errors.
pub fn read_sacct_from<R: Read + Send + 'static>(
    input: R,
    file: &str,
    options: &SacctOptions,
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
    let mut buf = Vec::with_capacity(512);
    let mut line_no = 0u64;
    let mut cols: Option<Columns> = None;
    let mut records: Vec<Record> = Vec::new();
    let mut skipped = 0u64;
    let mut users = Numbering::default();
    let mut groups = Numbering::default();
    let mut partitions = Numbering::default();
    loop {
        buf.clear();
        let n = (&mut input)
            .take(MAX_LINE as u64 + 1)
            .read_until(b'\n', &mut buf)
            .map_err(|e| WorkloadError::Decompress {
                file: file.to_string(),
                line: line_no + 1,
                message: e.to_string(),
            })?;
        if n == 0 {
            break;
        }
        line_no += 1;
        let malformed = |column: &str, reason: String| WorkloadError::MalformedColumn {
            file: file.to_string(),
            line: line_no,
            column: column.to_string(),
            reason,
        };
        if buf.len() > MAX_LINE {
            let e = malformed("(line)", format!("longer than {MAX_LINE} bytes"));
            if cols.is_none() || !options.read.lenient {
                return Err(e);
            }
            // Skip the rest of the long line.
            skipped += 1;
            buf.clear();
            input
                .read_until(b'\n', &mut buf)
                .map_err(|e| WorkloadError::Decompress {
                    file: file.to_string(),
                    line: line_no,
                    message: e.to_string(),
                })?;
            continue;
        }
        let text = match std::str::from_utf8(&buf) {
            Ok(t) => t.trim_end_matches(['\n', '\r']),
            Err(_) => {
                let e = malformed("(line)", "not UTF-8 text".into());
                if cols.is_none() || !options.read.lenient {
                    return Err(e);
                }
                skipped += 1;
                continue;
            }
        };
        if text.trim().is_empty() {
            continue;
        }
        let Some(c) = &cols else {
            cols = Some(Columns::parse(text, file)?);
            continue;
        };
        let mut parser = Parser {
            cols: c,
            zone: &zone,
            users: std::mem::take(&mut users),
            groups: std::mem::take(&mut groups),
            partitions: std::mem::take(&mut partitions),
        };
        let parsed = parser.parse(text);
        users = parser.users;
        groups = parser.groups;
        partitions = parser.partitions;
        match parsed {
            Ok(r) => records.push(r),
            Err((column, reason)) => {
                if options.read.lenient {
                    skipped += 1;
                } else {
                    return Err(malformed(&column, reason));
                }
            }
        }
    }
    if records.is_empty() {
        return Err(WorkloadError::NoJobs {
            file: file.to_string(),
        });
    }
    build(records, file, &options.time_zone, options.procs, skipped)
}

/// The trace of parsed records: arrival order, times from the first submission.
fn build(
    mut records: Vec<Record>,
    file: &str,
    zone: &str,
    procs: Option<u32>,
    skipped: u64,
) -> Result<SacctTrace> {
    // Stable: ties keep file order.
    records.sort_by_key(|r| r.arrival);
    let origin = records.iter().map(|r| r.submit).min().unwrap_or(0);
    let mut not_run: BTreeMap<String, u64> = BTreeMap::new();
    let mut events: Vec<(i64, i64)> = Vec::new();
    let mut jobs = crate::table::JobTable::with_capacity(records.len());
    for (i, r) in records.iter().enumerate() {
        let ran = r.start.is_some() && !matches!(r.state, State::NotEnded(_)) && r.ncpus > 0;
        let mut job = Job::new(i as u64 + 1, (r.arrival - origin) as f64, -1.0, -1, -1.0);
        job.status = r.state.swf_status();
        job.user = r.user;
        job.group = r.group;
        job.partition = r.partition;
        job.req_time = r.limit_s.map_or(-1.0, |s| s as f64);
        if ran {
            // `ran` implies a start.
            let start = r.start.unwrap_or(r.arrival);
            job.wait = (start - r.arrival).max(0) as f64;
            job.runtime = r.elapsed as f64;
            job.alloc_procs = r.ncpus;
            job.req_procs = r.ncpus;
            if r.elapsed > 0 {
                events.push((start, r.ncpus));
                events.push((start + r.elapsed, -r.ncpus));
            }
        } else {
            job.req_procs = if r.req_cpus > 0 {
                r.req_cpus
            } else {
                r.ncpus.max(-1)
            };
            *not_run.entry(r.state.name().to_string()).or_default() += 1;
        }
        jobs.push(job)?;
    }
    // Peak processors in use: ends before starts at the same second.
    events.sort_unstable();
    let (mut now, mut peak) = (0i64, 0i64);
    for (_, d) in &events {
        now += d;
        peak = peak.max(now);
    }
    let peak = peak.max(0) as u64;
    let mut header = SwfHeader::default();
    header.absorb(" Version: 2.2");
    header.absorb(" Note: converted by slarm from Slurm accounting records (sacct)");
    header.absorb(&format!(" UnixStartTime: {origin}"));
    header.absorb(&format!(" TimeZoneString: {zone}"));
    header.absorb(&format!(" MaxJobs: {}", jobs.len()));
    header.absorb(&format!(" MaxRecords: {}", jobs.len()));
    let size = procs.map_or(peak.max(1), u64::from);
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

    #[test]
    fn durations_and_ids() {
        assert_eq!(duration("00:00:00"), Some(0));
        assert_eq!(duration("1-02:03:04"), Some(93_784));
        assert_eq!(duration("05:07"), Some(307));
        assert_eq!(duration("12:34.567"), Some(754));
        for bad in [
            "",
            "1-",
            "-1:00",
            "00:60",
            "a:00",
            "1:2:3:4",
            "99999999999999:00",
        ] {
            assert_eq!(duration(bad), None, "{bad}");
        }
        for ok in ["1", "12_3", "12_[1-3,7%2]", "12+0"] {
            assert!(job_id_ok(ok), "{ok}");
        }
        for bad in ["", "x", "12_", "12+", "12_[]", "12_x", "-1"] {
            assert!(!job_id_ok(bad), "{bad}");
        }
        assert_eq!(days_from_civil(1970, 1, 1), 0);
        assert_eq!(days_from_civil(2000, 3, 1), 11_017);
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
    }
}
