//! One sacct line into a [`Record`]: the columns found by the header line, the values read
//! by [`values`](super::values), and the names (users, groups, partitions) numbered by first
//! appearance.

use std::collections::HashMap;

use super::values::{duration, job_id_ok, limit, whole, Bad, Civil, State, Zone};
use crate::error::{Result, WorkloadError};
use crate::job::Job;

/// Longest line read (a sacct line with every field is well under 4 KiB).
pub(super) const MAX_LINE: usize = 1 << 16;

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
    /// Every role, in the order of their discriminants.
    const ALL: [Col; ROLES] = [
        Self::JobId,
        Self::Submit,
        Self::Eligible,
        Self::Start,
        Self::End,
        Self::Elapsed,
        Self::TimelimitRaw,
        Self::Timelimit,
        Self::Ncpus,
        Self::ReqCpus,
        Self::NNodes,
        Self::State,
        Self::Partition,
        Self::User,
        Self::Group,
    ];

    /// The role of header name `name` (`JobID` is taken only when `JobIDRaw` is absent, and
    /// likewise `Timelimit` and `AllocCPUS`: see [`Columns::parse`]).
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

/// How many roles [`Col`] has.
const ROLES: usize = 15;

/// Where each column is, with the name the header gave it (for messages).
#[derive(Debug, Default)]
pub(super) struct Columns {
    /// Per role (`Col as usize`): its column and the header's name for it.
    at: [Option<(usize, String)>; ROLES],
    /// Per column of the line: the role it has, if slarm reads it.
    role: Vec<Option<Col>>,
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
    /// The header line.
    pub(super) fn parse(line: &str, file: &str) -> Result<Self> {
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
            match &cols.at[c as usize] {
                Some((_, prev)) if prev.eq_ignore_ascii_case(n) => {
                    return Err(bad(n, "column named twice in the header".into()));
                }
                Some((_, prev)) if preferred(prev) => {}
                _ => cols.at[c as usize] = Some((i, n.to_string())),
            }
        }
        cols.role = vec![None; cols.count];
        for (c, at) in Col::ALL.into_iter().zip(&cols.at) {
            if let Some((i, _)) = at {
                cols.role[*i] = Some(c);
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
            if cols.at[c as usize].is_none() {
                return Err(bad(
                    key(c),
                    "required column missing from the header line (is this `sacct -P` output?)"
                        .into(),
                ));
            }
        }
        Ok(cols)
    }

    /// The header's name for the column of role `c`, if the header has one.
    fn name(&self, c: Col) -> Option<&str> {
        self.at[c as usize].as_ref().map(|(_, name)| name.as_str())
    }
}

/// One sacct line, parsed but with absolute times (seconds since the epoch).
#[derive(Debug, Clone)]
pub(super) struct Record {
    pub arrival: i64,
    pub submit: i64,
    pub start: Option<i64>,
    pub elapsed: i64,
    pub limit_s: Option<i64>,
    pub ncpus: i64,
    pub req_cpus: i64,
    pub state: State,
    /// User, group and partition: numbers by first appearance (1, 2, ...; -1 blank) in the
    /// block of lines the record was read in, until the reading renumbers them over the file.
    pub user: i64,
    pub group: i64,
    pub partition: i64,
}

impl Record {
    /// Whether the job started and ended (and so has a run time and processors).
    pub(super) fn ran(&self) -> bool {
        self.start.is_some() && !matches!(self.state, State::NotEnded(_)) && self.ncpus > 0
    }

    /// The job in SWF form, numbered `id`, its submit time the arrival in seconds since the
    /// epoch (see the mapping of the [module documentation](super)).
    pub(super) fn job(&self, id: u64) -> Job {
        let mut job = Job::new(id, self.arrival as f64, -1.0, -1, -1.0);
        job.status = self.state.swf_status();
        job.user = self.user;
        job.group = self.group;
        job.partition = self.partition;
        job.req_time = self.limit_s.map_or(-1.0, |s| s as f64);
        if self.ran() {
            let start = self.start.unwrap_or(self.arrival);
            job.wait = (start - self.arrival).max(0) as f64;
            job.runtime = self.elapsed as f64;
            job.alloc_procs = self.ncpus;
            job.req_procs = self.ncpus;
        } else {
            job.req_procs = if self.req_cpus > 0 {
                self.req_cpus
            } else {
                self.ncpus.max(-1)
            };
        }
        job
    }
}

/// Numbers names by first appearance (1, 2, ...); blank is -1.
#[derive(Debug, Default)]
pub(super) struct Numbering {
    ids: HashMap<String, i64>,
    /// The names in the order numbered.
    names: Vec<String>,
}

impl Numbering {
    pub(super) fn number(&mut self, name: &str) -> i64 {
        if name.is_empty() {
            return -1;
        }
        if let Some(&id) = self.ids.get(name) {
            return id;
        }
        self.names.push(name.to_string());
        let id = self.names.len() as i64;
        self.ids.insert(name.to_string(), id);
        id
    }

    /// The numbers over `self` of the names `other` numbered, in `other`'s order: entry
    /// `k` renumbers `other`'s `k + 1`.
    pub(super) fn renumber(&mut self, other: &Numbering) -> Vec<i64> {
        other.names.iter().map(|n| self.number(n)).collect()
    }
}

/// `id` (a number of [`Numbering::renumber`]'s `other`, or -1) renumbered by `map`.
pub(super) fn renumbered(id: i64, map: &[i64]) -> i64 {
    usize::try_from(id - 1)
        .ok()
        .and_then(|k| map.get(k))
        .copied()
        .unwrap_or(-1)
}

/// The parsing state over the lines of one block.
pub(super) struct Parser<'a> {
    cols: &'a Columns,
    zone: &'a Zone,
    /// Users, groups and partitions, numbered over the lines parsed.
    names: [Numbering; 3],
}

impl<'a> Parser<'a> {
    pub(super) fn new(cols: &'a Columns, zone: &'a Zone) -> Self {
        Self {
            cols,
            zone,
            names: Default::default(),
        }
    }

    /// One line (without its end) after the header.
    pub(super) fn parse(&mut self, line: &str) -> std::result::Result<Record, Bad> {
        let body = if self.cols.trailing_bar {
            line.strip_suffix('|').unwrap_or(line)
        } else {
            line
        };
        let mut values: [Option<&str>; ROLES] = [None; ROLES];
        let mut count = 0;
        let mut from = 0;
        // The bars' positions are char boundaries: `|` is ASCII.
        let ends = memchr::memchr_iter(b'|', body.as_bytes()).chain([body.len()]);
        for (i, end) in ends.enumerate() {
            if let Some(&Some(c)) = self.cols.role.get(i) {
                values[c as usize] = Some(body[from..end].trim());
            }
            (count, from) = (i + 1, end + 1);
        }
        if count != self.cols.count {
            return Err((
                "(line)".into(),
                format!("{count} columns, the header has {}", self.cols.count),
            ));
        }
        let get = |c: Col| -> Option<(&str, &str)> { values[c as usize].zip(self.cols.name(c)) };
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
            user: get(Col::User).map_or(-1, |(v, _)| self.names[0].number(v)),
            group: get(Col::Group).map_or(-1, |(v, _)| self.names[1].number(v)),
            partition: get(Col::Partition).map_or(-1, |(v, _)| self.names[2].number(v)),
        })
    }
}

/// What a worker made of one block of lines after the header.
#[derive(Debug, Default)]
pub(super) struct Parsed {
    /// The records in file order, their names numbered over the block.
    pub records: Vec<Record>,
    /// Users, groups and partitions, numbered over the block.
    pub names: [Numbering; 3],
    /// Bad lines skipped (lenient mode).
    pub skipped: u64,
    /// The first bad line (strict mode): its 1-based line within the block, the column and
    /// the reason.
    pub error: Option<(u64, String, String)>,
}

/// Parses the lines of `block` (the last one may lack its newline) after the header.
pub(super) fn parse_block(block: &[u8], cols: &Columns, zone: &Zone, lenient: bool) -> Parsed {
    let mut out = Parsed {
        records: Vec::with_capacity(block.len() / 128),
        ..Parsed::default()
    };
    let mut parser = Parser::new(cols, zone);
    let mut rest = block;
    let mut line_no = 0;
    while !rest.is_empty() {
        let (line, ended, next) = match memchr::memchr(b'\n', rest) {
            Some(p) => (&rest[..p], true, &rest[p + 1..]),
            None => (rest, false, &rest[rest.len()..]),
        };
        rest = next;
        line_no += 1;
        let parsed = if line.len() + usize::from(ended) > MAX_LINE {
            Err((
                "(line)".to_string(),
                format!("longer than {MAX_LINE} bytes"),
            ))
        } else {
            match std::str::from_utf8(line) {
                Ok(text) => {
                    let text = text.trim_end_matches('\r');
                    if text.trim().is_empty() {
                        continue;
                    }
                    parser.parse(text)
                }
                Err(_) => Err(("(line)".to_string(), "not UTF-8 text".to_string())),
            }
        };
        match parsed {
            Ok(r) => out.records.push(r),
            Err(_) if lenient => out.skipped += 1,
            Err((column, reason)) => {
                out.error = Some((line_no, column, reason));
                break;
            }
        }
    }
    out.names = parser.names;
    out
}
