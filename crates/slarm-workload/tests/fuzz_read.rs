//! Mutated-line fuzzing of the SWF reader through its public API (`read_trace_from`, strict
//! and lenient): 1-3 lines of a valid trace get a field replaced by a hostile token, dropped
//! or duplicated, junk spliced in, or are cut short. Never a panic; a strict read that succeeds
//! reads the same jobs as a lenient one, with finite times; errors say something.
#![allow(clippy::unwrap_used)]

use proptest::prelude::*;
use slarm_workload::reader::{read_trace_from, ReadOptions};

const TRACE: &str = "; MaxProcs: 16\n; MaxNodes: 16\n\
1 0 5 100 4 -1 -1 4 200 -1 1 1 1 -1 1 -1 -1 -1\n\
2 60 0 300 1 -1 -1 1 400 -1 1 2 1 -1 1 -1 -1 -1\n\
3 120 10 50 8 -1 -1 8 60 -1 1 1 2 -1 2 -1 -1 -1\n\
4 180 0 700 16 -1 -1 16 900 -1 1 3 1 -1 1 -1 -1 -1\n";

const TOKENS: [&str; 15] = [
    "",
    "x",
    "-",
    "-1",
    "0",
    "NaN",
    "inf",
    "-inf",
    "1e999",
    "1e-308",
    "\u{0}",
    "18446744073709551616",
    ";",
    "\u{fffd}",
    "-0",
];

fn mutate(picks: &[(usize, usize, usize, usize)]) -> String {
    let mut lines: Vec<String> = TRACE.lines().map(str::to_string).collect();
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
    lines.join("\n") + "\n"
}

fn read(text: &str, lenient: bool) -> slarm_workload::Result<slarm_workload::reader::Trace> {
    read_trace_from(
        std::io::Cursor::new(text.as_bytes().to_vec()),
        "fuzz.swf",
        ReadOptions { lenient },
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    #[test]
    fn mutated_lines(p in proptest::collection::vec((0usize..64, 0usize..5, 0usize..24, 0usize..64), 1..=3)) {
        let text = mutate(&p);
        let strict = read(&text, false);
        let lenient = read(&text, true);
        match (&strict, &lenient) {
            (Ok(s), Ok(l)) => {
                prop_assert_eq!(&s.jobs, &l.jobs);
                for j in &s.jobs {
                    prop_assert!(j.submit.is_finite() && j.runtime.is_finite(), "{:?}", j);
                }
            }
            (Ok(_), Err(e)) => prop_assert!(false, "strict read but lenient error {}", e),
            (Err(e), _) => prop_assert!(!e.to_string().is_empty()),
        }
        if let Err(e) = &lenient {
            prop_assert!(!e.to_string().is_empty());
        }
    }
}

#[test]
fn the_unmutated_trace_reads() {
    assert_eq!(read(TRACE, false).unwrap().jobs.len(), 4);
}
