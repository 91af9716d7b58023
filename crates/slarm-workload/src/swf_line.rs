//! One job line of the Standard Workload Format (Chapin et al. 1999): tokenizing and number
//! parsing without allocation, and the checks a job line must pass.
//!
//! A line is split at ASCII whitespace into exactly [`SWF_FIELDS`] tokens, read in place
//! (no per-field allocation). The integer fields (job number, processors, status, user,
//! group, executable, queue, partition, preceding job) are parsed as 64-bit integers,
//! exactly, over their whole range; the other fields as the correctly rounded `f64` of their
//! text. Plain decimal tokens of up to 19 digits, nearly every field of the archive's logs,
//! take a fast exact path (for a real field also a decimal fraction such as `759.38`, while
//! its digits are exact in `f64`: one correctly rounded division by a power of ten); any
//! other token (longer fractions, exponents, a leading `+`) goes through the standard
//! library's parsers, which give the same values.
//!
//! Checks beyond the syntax: the job number is non-negative; the submit time is `-1` (the
//! format's "unknown") or non-negative; no time field (submit, wait, run time, requested
//! time, think time) exceeds [`MAX_TIME`] in magnitude. A failure names the field (1-based,
//! 0 for the line as a whole) and shows the offending text escaped and cut to
//! [`SHOWN_CHARS`] characters.
//!
//! ```
//! use slarm_workload::swf_line::parse_job_line;
//!
//! let job = parse_job_line(b"9223372036854775807 0 -1 10 2 -1 -1 2 20 -1 1 -1 -1 -1 -1 -1 -1 -1")
//!     .unwrap();
//! assert_eq!(job.id, 9_223_372_036_854_775_807);
//! let (field, reason) =
//!     parse_job_line(b"1 -5 -1 10 2 -1 -1 2 20 -1 1 -1 -1 -1 -1 -1 -1 -1").unwrap_err();
//! assert_eq!(field, 2);
//! assert_eq!(reason, "submit time must be -1 (unknown) or at least 0, got \"-5\"");
//! ```

use crate::job::Job;

/// Number of fields of an SWF job line.
pub const SWF_FIELDS: usize = 18;

/// Largest magnitude of a time field, in seconds: 2^53 s (about 285 million years), the
/// largest span in which every whole second is exact in `f64`. Larger times are no log's
/// and would make event arithmetic inexact.
pub const MAX_TIME: f64 = 9_007_199_254_740_992.0;

/// Bad text in a message is cut to this many characters (then `...` follows).
pub const SHOWN_CHARS: usize = 80;

/// A line that is not a job: the 1-based field (0 = the line as a whole) and the reason.
pub type LineError = (usize, String);

/// Bit `k` set: field `k + 1` is an integer field (job number, allocated and requested
/// processors, status, user, group, executable, queue, partition, preceding job).
const INT_FIELDS: u32 = 1 << 0 | 1 << 4 | 1 << 7 | 0x1fc00;

/// Bit `k` set: field `k + 1` is a time (submit, wait, run time, requested time, think time).
const TIME_FIELDS: u32 = 1 << 1 | 1 << 2 | 1 << 3 | 1 << 8 | 1 << 17;

/// The separators of SWF fields (the ASCII whitespace of [`u8::is_ascii_whitespace`]).
#[inline]
pub(crate) fn is_space(b: u8) -> bool {
    // Bit b of the mask is set for the five separators (all below 64).
    const MASK: u64 = 1 << b' ' | 1 << b'\t' | 1 << b'\n' | 1 << b'\r' | 1 << 0x0c;
    b < 64 && (MASK >> b) & 1 == 1
}

/// `text` for a message: escaped (Rust string syntax, quoted) and cut to [`SHOWN_CHARS`].
pub fn shown(text: &[u8]) -> String {
    let lossy = String::from_utf8_lossy(text);
    let mut chars = lossy.chars();
    let head: String = chars.by_ref().take(SHOWN_CHARS).collect();
    if chars.next().is_some() {
        format!("{head:?}...")
    } else {
        format!("{head:?}")
    }
}

/// One token parsed as an integer field: any `i64` in decimal (a leading `+` or zeros
/// allowed), or a number in another notation whose value is a whole number of magnitude at
/// most 2^53 (`1e3`, `7.0`).
fn parse_int_slow(tok: &[u8]) -> Result<i64, String> {
    let text = std::str::from_utf8(tok).map_err(|_| format!("not valid text: {}", shown(tok)))?;
    match text.parse::<i64>() {
        Ok(v) => return Ok(v),
        Err(e)
            if matches!(
                e.kind(),
                std::num::IntErrorKind::PosOverflow | std::num::IntErrorKind::NegOverflow
            ) =>
        {
            return Err(format!("integer out of the 64-bit range: {}", shown(tok)));
        }
        Err(_) => {}
    }
    let v = parse_float_slow(tok)?;
    if v.fract() != 0.0 || v.abs() > MAX_TIME {
        return Err(format!("expected an integer, got {}", shown(tok)));
    }
    // Exact: a whole number of magnitude at most 2^53.
    Ok(v as i64)
}

/// One token parsed as a real field: the standard library's correctly rounded parser
/// (fractions, exponents, a leading `+`, any number of digits). Non-finite values are
/// rejected.
fn parse_float_slow(tok: &[u8]) -> Result<f64, String> {
    let text = std::str::from_utf8(tok).map_err(|_| format!("not valid text: {}", shown(tok)))?;
    text.parse::<f64>()
        .ok()
        .filter(|v| v.is_finite())
        .ok_or_else(|| format!("not a number: {}", shown(tok)))
}

/// Field values as parsed: `ints[k]` for integer fields, `reals[k]` for the others, and the
/// byte range of every token (for messages).
#[derive(Debug, Clone, Copy)]
struct Fields {
    ints: [i64; SWF_FIELDS],
    reals: [f64; SWF_FIELDS],
    spans: [(usize, usize); SWF_FIELDS],
}

impl Default for Fields {
    fn default() -> Self {
        Self {
            ints: [0; SWF_FIELDS],
            reals: [0.0; SWF_FIELDS],
            spans: [(0, 0); SWF_FIELDS],
        }
    }
}

/// Parses field `k`'s token `tok` into `f`.
fn parse_token(f: &mut Fields, k: usize, tok: &[u8]) -> Result<(), LineError> {
    if INT_FIELDS >> k & 1 == 1 {
        f.ints[k] = parse_int_slow(tok).map_err(|r| (k + 1, r))?;
    } else {
        f.reals[k] = parse_float_slow(tok).map_err(|r| (k + 1, r))?;
    }
    Ok(())
}

/// 2^53: every integer up to it is exact in `f64`.
const MAX_EXACT: u64 = 1 << 53;

/// 10^k for k = 0..=19, each exact in `f64` (powers of ten are exact up to 10^22).
const POW10: [f64; 20] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19,
];

/// Reads ASCII digits from `bytes[i..]` into `v` (wrapping: the caller counts the digits)
/// and returns the position after them.
#[inline]
fn scan_digits(bytes: &[u8], mut i: usize, v: &mut u64) -> usize {
    while let Some(&b) = bytes.get(i) {
        let d = b.wrapping_sub(b'0');
        if d > 9 {
            break;
        }
        *v = v.wrapping_mul(10).wrapping_add(u64::from(d));
        i += 1;
    }
    i
}

/// Splits `bytes` into exactly [`SWF_FIELDS`] tokens and parses each by its field's type,
/// into the caller's `f` (written in place: returning the 576-byte record by value cost a
/// copy per line).
fn tokenize(bytes: &[u8], f: &mut Fields) -> Result<(), LineError> {
    let mut n = 0usize;
    let mut i = 0usize;
    let len = bytes.len();
    while i < len {
        if is_space(bytes[i]) {
            i += 1;
            continue;
        }
        if n == SWF_FIELDS {
            return Err((0, format!("more than {SWF_FIELDS} fields")));
        }
        // A token starts at i: read `-?[0-9]*` greedily, and for a real field also a
        // fraction `.[0-9]*`; if the token ends there with 1 to 19 digits in all, their
        // value `v` fits a u64 exactly.
        let start = i;
        let neg = bytes[i] == b'-';
        i += usize::from(neg);
        let digits_from = i;
        let mut v = 0u64;
        i = scan_digits(bytes, i, &mut v);
        let mut digits = i - digits_from;
        let mut scale = 0usize;
        if INT_FIELDS >> n & 1 == 0 && bytes.get(i) == Some(&b'.') {
            let fraction_from = i + 1;
            i = scan_digits(bytes, fraction_from, &mut v);
            scale = i - fraction_from;
            digits += scale;
        }
        // A fraction takes the fast path only while `v` is exact in f64 (Clinger 1990).
        let plain = (1..=19).contains(&digits)
            && (scale == 0 || v <= MAX_EXACT)
            && bytes.get(i).is_none_or(|&b| is_space(b));
        if !plain {
            while i < len && !is_space(bytes[i]) {
                i += 1;
            }
        }
        f.spans[n] = (start, i);
        let tok = &bytes[start..i];
        if !plain {
            parse_token(f, n, tok)?;
        } else if INT_FIELDS >> n & 1 == 1 {
            // -2^63 has a magnitude one above i64::MAX.
            let exact = if neg {
                0i64.checked_sub_unsigned(v)
            } else {
                i64::try_from(v).ok()
            };
            f.ints[n] = exact.ok_or_else(|| {
                (
                    n + 1,
                    format!("integer out of the 64-bit range: {}", shown(tok)),
                )
            })?;
        } else {
            // `u64 as f64` rounds to nearest, ties to even: the value `str::parse` gives.
            // With a fraction both `v` and 10^scale are exact, so the one correctly
            // rounded division is the correctly rounded value of the text.
            let x = if scale == 0 {
                v as f64
            } else {
                v as f64 / POW10[scale]
            };
            f.reals[n] = if neg { -x } else { x };
        }
        n += 1;
    }
    if n < SWF_FIELDS {
        return Err((
            n + 1,
            format!("missing: line has {n} of {SWF_FIELDS} fields"),
        ));
    }
    Ok(())
}

/// The job of parsed fields, after the checks of the module docs.
fn assemble(f: &Fields, bytes: &[u8]) -> Result<Job, LineError> {
    let text = |k: usize| shown(&bytes[f.spans[k].0..f.spans[k].1]);
    let id = f.ints[0];
    let id =
        u64::try_from(id).map_err(|_| (1, format!("job number must be non-negative, got {id}")))?;
    let submit = f.reals[1];
    if submit < 0.0 && submit != -1.0 {
        return Err((
            2,
            format!(
                "submit time must be -1 (unknown) or at least 0, got {}",
                text(1)
            ),
        ));
    }
    for k in 0..SWF_FIELDS {
        if TIME_FIELDS >> k & 1 == 1 && f.reals[k].abs() > MAX_TIME {
            return Err((
                k + 1,
                format!("time beyond 2^53 s (285 million years): {}", text(k)),
            ));
        }
    }
    Ok(Job {
        id,
        submit,
        wait: f.reals[2],
        runtime: f.reals[3],
        alloc_procs: f.ints[4],
        avg_cpu: f.reals[5],
        used_mem: f.reals[6],
        req_procs: f.ints[7],
        req_time: f.reals[8],
        req_mem: f.reals[9],
        status: f.ints[10],
        user: f.ints[11],
        group: f.ints[12],
        app: f.ints[13],
        queue: f.ints[14],
        partition: f.ints[15],
        preceding: f.ints[16],
        think_time: f.reals[17],
    })
}

/// What one input line holds.
pub(crate) enum Line {
    /// Blank.
    Skip,
    /// A header comment: the text after `;`.
    Comment(String),
    /// A job line, parsed or not.
    Job(std::result::Result<Job, (usize, String)>),
}

/// Classifies and parses one line (without its newline).
pub(crate) fn classify(raw: &[u8]) -> Line {
    let content = raw.trim_ascii();
    match content.first() {
        None => Line::Skip,
        Some(b';') => Line::Comment(String::from_utf8_lossy(&content[1..]).into_owned()),
        Some(_) => Line::Job(parse_job_line(content)),
    }
}

/// Parses one job line (without comments) into a [`Job`]; on failure returns the 1-based
/// field number (0 = the line as a whole) and the reason. See the module docs for the
/// number syntax and the checks.
pub fn parse_job_line(bytes: &[u8]) -> Result<Job, LineError> {
    let mut f = Fields::default();
    tokenize(bytes, &mut f)?;
    assemble(&f, bytes)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const GOOD: &str = "1 0 -1 10 2 -1 -1 2 20 -1 1 -1 -1 -1 -1 -1 -1 -1";

    fn with_field(k: usize, tok: &str) -> String {
        let mut t: Vec<&str> = GOOD.split(' ').collect();
        t[k - 1] = tok;
        t.join(" ")
    }

    /// Issue "hostile input": each of these was accepted or misreported before.
    #[test]
    fn regressions_of_hostile_input() {
        let big = parse_job_line(with_field(1, "9223372036854775807").as_bytes()).unwrap();
        assert_eq!(big.id, i64::MAX as u64);
        let e = parse_job_line(with_field(1, "9223372036854775808").as_bytes()).unwrap_err();
        assert_eq!(
            e,
            (
                1,
                "integer out of the 64-bit range: \"9223372036854775808\"".into()
            )
        );
        let e = parse_job_line(with_field(2, "-5").as_bytes()).unwrap_err();
        assert_eq!(e.0, 2);
        let e = parse_job_line(with_field(2, "1e308").as_bytes()).unwrap_err();
        assert_eq!(
            e,
            (
                2,
                "time beyond 2^53 s (285 million years): \"1e308\"".into()
            )
        );
        let e = parse_job_line(with_field(4, "-1e300").as_bytes()).unwrap_err();
        assert_eq!(e.0, 4);
        assert_eq!(
            parse_job_line(with_field(2, "-1").as_bytes())
                .unwrap()
                .submit,
            -1.0
        );
        assert_eq!(
            parse_job_line(with_field(8, "-9223372036854775808").as_bytes())
                .unwrap()
                .req_procs,
            i64::MIN
        );
        // A 10 MB token is shown cut to 80 characters.
        let huge = vec![0u8; 10_000_000];
        let (field, reason) = parse_job_line(&huge).unwrap_err();
        assert_eq!(field, 1);
        assert!(reason.len() < 600, "{}", reason.len());
        assert!(reason.ends_with("..."));
    }

    #[test]
    fn integer_fields_accept_other_notations_of_whole_numbers() {
        for tok in ["+7", "0007", "7.0", "7e0", "0.7e1"] {
            let j = parse_job_line(with_field(5, tok).as_bytes()).unwrap();
            assert_eq!(j.alloc_procs, 7, "{tok}");
        }
        let e = parse_job_line(with_field(5, "2.5").as_bytes()).unwrap_err();
        assert_eq!(e, (5, "expected an integer, got \"2.5\"".into()));
    }

    /// Reference for the fast tokenizer: split on whitespace, and parse every token with
    /// `str::parse` (`i64` for integer fields, falling back to `f64` for other notations;
    /// `f64` for the rest), then the same checks.
    fn reference_parse(bytes: &[u8]) -> Result<Job, LineError> {
        let mut f = Fields::default();
        let mut n = 0usize;
        let mut at = 0usize;
        for tok in bytes.split(|b| b.is_ascii_whitespace()) {
            let start = at;
            at += tok.len() + 1;
            if tok.is_empty() {
                continue;
            }
            if n == SWF_FIELDS {
                return Err((0, format!("more than {SWF_FIELDS} fields")));
            }
            f.spans[n] = (start, start + tok.len());
            parse_token(&mut f, n, tok)?;
            n += 1;
        }
        if n < SWF_FIELDS {
            return Err((
                n + 1,
                format!("missing: line has {n} of {SWF_FIELDS} fields"),
            ));
        }
        assemble(&f, bytes)
    }

    fn token() -> impl Strategy<Value = String> {
        // Weighted so that about one line in five has 18 valid numbers.
        prop_oneof![
            30 => (-1i64..2_000_000).prop_map(|v| v.to_string()),
            3 => (0u64..u64::MAX).prop_map(|v| v.to_string()),
            3 => any::<i64>().prop_map(|v| v.to_string()),
            5 => (-1.0e7f64..1.0e7).prop_map(|v| v.to_string()),
            1 => Just("-0".to_string()),
            1 => Just("+7".to_string()),
            1 => Just("1e3".to_string()),
            1 => Just("0012".to_string()),
            1 => Just("9999999999999999".to_string()),
            1 => Just("99999999999999999999".to_string()),
            1 => Just("-9223372036854775808".to_string()),
            1 => Just("12abc".to_string()),
            1 => Just("-".to_string()),
            1 => Just("1.5e400".to_string()),
            1 => Just("1e308".to_string()),
            1 => Just("inf".to_string()),
            // Decimal fractions as the archive's logs write them, and the edges of the
            // fraction fast path (no digits on one side, 2^53, 19 and 20 digits).
            6 => (-1_000_000i64..1_000_000_000, 0u32..4).prop_map(|(m, k)| {
                let s = format!("{:0w$}", m.unsigned_abs(), w = k as usize + 1);
                let (a, b) = s.split_at(s.len() - k as usize);
                format!("{}{a}.{b}", if m < 0 { "-" } else { "" })
            }),
            1 => Just("759.38".to_string()),
            1 => Just("-0.00".to_string()),
            1 => Just("5.".to_string()),
            1 => Just(".5".to_string()),
            1 => Just("-.5".to_string()),
            1 => Just(".".to_string()),
            1 => Just("-.".to_string()),
            1 => Just("1.2.3".to_string()),
            1 => Just("9007199254.740992".to_string()),
            1 => Just("9007199254.740993".to_string()),
            1 => Just("0.9999999999999999999".to_string()),
            1 => Just("1234567890.1234567891".to_string()),
            1 => Just("0.1e2".to_string()),
        ]
    }

    proptest! {
        #[test]
        fn fast_parser_equals_the_reference(
            toks in proptest::collection::vec(token(), 15..20),
            sep in prop_oneof![Just(" "), Just("\t"), Just("  ")],
        ) {
            let line = toks.join(sep);
            prop_assert_eq!(parse_job_line(line.as_bytes()), reference_parse(line.as_bytes()));
        }

        /// Random bytes and mutated good lines: never a panic; an error names a field in
        /// 0..=18 and its message stays short.
        #[test]
        fn mutated_lines_give_typed_errors(
            flips in proptest::collection::vec((any::<usize>(), any::<u8>()), 0..6),
            extra in proptest::collection::vec(any::<u8>(), 0..300),
        ) {
            let mut line = GOOD.as_bytes().to_vec();
            let n = line.len();
            for (pos, b) in flips {
                line[pos % n] = b;
            }
            line.extend_from_slice(&extra);
            prop_assert_eq!(parse_job_line(&line), reference_parse(&line));
            if let Err((field, reason)) = parse_job_line(&line) {
                prop_assert!(field <= SWF_FIELDS);
                prop_assert!(reason.len() <= 1200);
            }
        }
    }
}
