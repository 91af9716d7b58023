//! The values of a sacct line: times in the standard format and their zone, durations, time
//! limits, whole numbers, Slurm job ids and job states.

use crate::error::{Result, WorkloadError};

/// A bad value: the column (as the header names it) and why.
pub(super) type Bad = (String, String);

/// Slurm job states (slurm.schedmd.com, sacct, "JOB STATE CODES").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum State {
    Completed,
    Failed(&'static str),
    Cancelled,
    NotEnded(&'static str),
}

impl State {
    /// The states by their names and codes (`CANCELLED by 1234` and a trailing `+` allowed).
    const NAMES: [(&'static str, &'static str, State); 15] = [
        ("COMPLETED", "CD", Self::Completed),
        ("CANCELLED", "CA", Self::Cancelled),
        ("FAILED", "F", Self::Failed("failed")),
        ("TIMEOUT", "TO", Self::Failed("timeout")),
        ("NODE_FAIL", "NF", Self::Failed("node_fail")),
        ("PREEMPTED", "PR", Self::Failed("preempted")),
        ("OUT_OF_MEMORY", "OOM", Self::Failed("out_of_memory")),
        ("BOOT_FAIL", "BF", Self::Failed("boot_fail")),
        ("DEADLINE", "DL", Self::Failed("deadline")),
        ("PENDING", "PD", Self::NotEnded("pending")),
        ("RUNNING", "R", Self::NotEnded("running")),
        ("SUSPENDED", "S", Self::NotEnded("suspended")),
        ("REQUEUED", "RQ", Self::NotEnded("requeued")),
        ("RESIZING", "RS", Self::NotEnded("resizing")),
        ("REVOKED", "RV", Self::NotEnded("revoked")),
    ];

    pub(super) fn parse(s: &str) -> Option<Self> {
        let word = s.split_whitespace().next().unwrap_or("");
        let word = word.trim_end_matches('+');
        Self::NAMES
            .iter()
            .find(|(name, code, _)| {
                word.eq_ignore_ascii_case(name) || word.eq_ignore_ascii_case(code)
            })
            .map(|&(.., state)| state)
    }

    /// SWF status (field 11).
    pub(super) fn swf_status(self) -> i64 {
        match self {
            Self::Completed => 1,
            Self::Failed(_) => 0,
            Self::Cancelled => 5,
            Self::NotEnded(_) => -1,
        }
    }

    /// Lower-case name for the counts of jobs that did not run to an end.
    pub(super) fn name(self) -> &'static str {
        match self {
            Self::Completed => "completed",
            Self::Cancelled => "cancelled",
            Self::Failed(n) | Self::NotEnded(n) => n,
        }
    }
}

/// Days from 1970-01-01 to the civil date (proleptic Gregorian; Hinnant's algorithm).
pub(super) fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
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
pub(super) struct Civil {
    y: i16,
    mo: i8,
    d: i8,
    h: i8,
    mi: i8,
    s: i8,
}

impl Civil {
    /// `YYYY-MM-DDTHH:MM:SS` (a space for the `T` is accepted), a valid date and time.
    pub(super) fn parse(s: &str) -> Option<Self> {
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
        let num = |r: std::ops::Range<usize>| -> Option<i64> { digits(&b[r]) };
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
    pub(super) fn utc_seconds(self) -> i64 {
        days_from_civil(self.y.into(), self.mo.into(), self.d.into()) * 86_400
            + i64::from(self.h) * 3600
            + i64::from(self.mi) * 60
            + i64::from(self.s)
    }
}

/// The zone of sacct's local times.
#[derive(Debug, Clone)]
pub(super) enum Zone {
    /// A fixed offset from UTC, in seconds east.
    Fixed(i64),
    /// An IANA zone.
    #[cfg(feature = "time-zones")]
    Named(jiff::tz::TimeZone),
}

impl Zone {
    pub(super) fn parse(name: &str) -> Result<Self> {
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
    pub(super) fn seconds(&self, c: Civil) -> Option<i64> {
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
pub(super) fn duration(s: &str) -> Option<i64> {
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
pub(super) fn whole(s: &str) -> Option<i64> {
    if s.is_empty() || s.len() > 12 {
        return None;
    }
    digits(s.as_bytes())
}

/// The number that ASCII digits `b` write (`None` if any byte is not a digit); at most 18
/// digits, so that it cannot overflow.
fn digits(b: &[u8]) -> Option<i64> {
    debug_assert!(b.len() <= 18);
    b.iter().try_fold(0i64, |n, &c| {
        c.is_ascii_digit().then(|| n * 10 + i64::from(c - b'0'))
    })
}

/// A Slurm job id: `123`, `123_4`, `123_[1-9%2]`, `123+1`.
pub(super) fn job_id_ok(s: &str) -> bool {
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

/// A time limit: `TimelimitRaw` minutes (`raw`) or `Timelimit` `[D-]HH:MM:SS`, in seconds;
/// `None` when unlimited.
pub(super) fn limit(v: &str, name: &str, raw: bool) -> std::result::Result<Option<i64>, Bad> {
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
