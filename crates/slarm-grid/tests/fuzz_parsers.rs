//! Random-byte and mutated-line fuzzing of the two text parsers of slarm-grid: the platform
//! file (`parse_platform`) and background traces in GWF and SWF (`parse_background_trace`).
//! Every input gets `Ok` with a valid result or a typed error naming a line of the input;
//! never a panic, a non-finite time or a site out of range.
#![allow(clippy::unwrap_used)]

use proptest::prelude::*;
use slarm_grid::platform::parse_platform;
use slarm_grid::workload::{parse_background_trace, SiteMapping, TraceFormat};
use slarm_grid::GridError;

const PLATFORM: &str =
    "# name processors speed\nVU 170 2.4\nUvA 82 2.2 # a comment\n\nLeiden 64 2.6\n";

/// GWF lines: 29 fields, the site (OrigSiteID) in field 17.
const GWF: &str = "# GWF\n\
1 0 5 100 4 -1 -1 4 200 -1 1 u1 g1 app q1 -1 fs0 fs0 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1\n\
2 60 0 300 1 -1 -1 1 400 -1 1 u2 g1 app q1 -1 fs1 fs1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1\n\
3 120 10 50 8 -1 -1 8 60 -1 1 u1 g2 app q2 -1 fs3 fs3 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1\n";

const SWF: &str = "; MaxProcs: 16\n\
1 0 5 100 4 -1 -1 4 200 -1 1 1 1 -1 1 0 -1 -1\n\
2 60 0 300 1 -1 -1 1 400 -1 1 1 1 -1 1 1 -1 -1\n";

/// Tokens a careless or hostile file holds in place of a field.
const TOKENS: [&str; 16] = [
    "",
    "x",
    "-",
    "-1",
    "0",
    "NaN",
    "inf",
    "-inf",
    "1e308",
    "-1e308",
    "1e-308",
    "\u{0}",
    "18446744073709551616",
    "9223372036854775807",
    "#",
    "\u{fffd}",
];

/// `text` with 1-3 of its lines mutated: a field replaced by a token, dropped or duplicated,
/// junk spliced in, or the line cut short.
fn mutate(text: &str, picks: &[(usize, usize, usize, usize)]) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    for &(line, op, field, token) in picks {
        let n = lines.len();
        let l = &mut lines[line % n];
        let mut fields: Vec<String> = l.split_whitespace().map(str::to_string).collect();
        let t = TOKENS[token % TOKENS.len()].to_string();
        match op % 5 {
            0 if !fields.is_empty() => {
                let k = field % fields.len();
                fields[k] = t;
            }
            1 if !fields.is_empty() => {
                fields.remove(field % fields.len());
            }
            2 => fields.insert(field % (fields.len() + 1), t),
            3 => fields.push(format!("{t}{t}junk")),
            _ => fields.truncate(field % (fields.len() + 1)),
        }
        *l = fields.join(" ");
    }
    lines.join("\n")
}

fn picks() -> impl Strategy<Value = Vec<(usize, usize, usize, usize)>> {
    proptest::collection::vec((0usize..64, 0usize..5, 0usize..32, 0usize..64), 1..=3)
}

fn check_platform(text: &str) {
    match parse_platform(text) {
        Ok(p) => {
            assert!(!p.sites().is_empty());
            assert!(p.total_processors() >= 1);
        }
        Err(GridError::MalformedPlatform { line, message }) => {
            assert!(
                line >= 1 && line <= text.lines().count().max(1),
                "line {line}"
            );
            assert!(!message.is_empty());
        }
        Err(e) => assert!(!e.to_string().is_empty()),
    }
}

fn check_trace(text: &str, format: TraceFormat) {
    for mapping in [
        SiteMapping::Modulo,
        SiteMapping::Explicit(vec![("fs0".into(), 0), ("fs1".into(), 2), ("1".into(), 1)]),
    ] {
        match parse_background_trace(text, format, &mapping, 3, 10.0) {
            Ok(trace) => {
                for j in &trace.jobs {
                    assert!(j.submit_s.is_finite() && j.submit_s >= 0.0, "{j:?}");
                    assert!(j.runtime_s.is_finite() && j.runtime_s > 0.0, "{j:?}");
                    assert!(j.procs >= 1 && j.site < 3, "{j:?}");
                }
            }
            Err(e) => assert!(!e.to_string().is_empty()),
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    #[test]
    fn platform_random_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
        check_platform(&String::from_utf8_lossy(&bytes));
    }

    #[test]
    fn platform_mutated_lines(p in picks()) {
        check_platform(&mutate(PLATFORM, &p));
    }

    #[test]
    fn background_random_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..600)) {
        let text = String::from_utf8_lossy(&bytes);
        check_trace(&text, TraceFormat::Gwf);
        check_trace(&text, TraceFormat::Swf);
    }

    #[test]
    fn background_mutated_lines(p in picks()) {
        check_trace(&mutate(GWF, &p), TraceFormat::Gwf);
        check_trace(&mutate(SWF, &p), TraceFormat::Swf);
    }
}

#[test]
fn the_unmutated_files_parse() {
    assert_eq!(parse_platform(PLATFORM).unwrap().sites().len(), 3);
    let gwf = parse_background_trace(GWF, TraceFormat::Gwf, &SiteMapping::Modulo, 3, 0.0).unwrap();
    assert_eq!(gwf.jobs.len(), 3);
    let swf = parse_background_trace(SWF, TraceFormat::Swf, &SiteMapping::Modulo, 3, 0.0).unwrap();
    assert_eq!(swf.jobs.len(), 2);
    // Non-finite times never become jobs.
    for token in ["inf", "NaN", "1e308"] {
        let text = GWF.replacen(" 60 0 300 ", &format!(" {token} 0 {token} "), 1);
        check_trace(&text, TraceFormat::Gwf);
    }
}
