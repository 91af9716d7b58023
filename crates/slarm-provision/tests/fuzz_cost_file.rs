//! Random-byte and mutated-line fuzzing of the cost-file parser (`Cost::parse_series`,
//! `slarm provision --cost-file`): every input gets `Ok` with a cost whose values and
//! integrals are finite and non-negative, or a typed error; never a panic.
#![allow(clippy::unwrap_used)]

use proptest::prelude::*;
use slarm_provision::{Cost, CostFunction};

const FILE: &str = "# time cost\n0 1\n20 1.5 # morning\n46 3\n\n70 2\n92 1\n";

const TOKENS: [&str; 14] = [
    "",
    "x",
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
    "#",
    "\u{fffd}",
];

fn mutate(picks: &[(usize, usize, usize, usize)]) -> String {
    let mut lines: Vec<String> = FILE.lines().map(str::to_string).collect();
    for &(line, op, field, token) in picks {
        let n = lines.len();
        let l = &mut lines[line % n];
        let mut fields: Vec<String> = l.split_whitespace().map(str::to_string).collect();
        let t = TOKENS[token % TOKENS.len()].to_string();
        match op % 4 {
            0 if !fields.is_empty() => {
                let k = field % fields.len();
                fields[k] = t;
            }
            1 if !fields.is_empty() => {
                fields.remove(field % fields.len());
            }
            2 => fields.insert(field % (fields.len() + 1), t),
            _ => fields.truncate(field % (fields.len() + 1)),
        }
        *l = fields.join(" ");
    }
    lines.join("\n")
}

fn check(text: &str) {
    for linear in [true, false] {
        match Cost::parse_series(text, linear) {
            Ok(c) => {
                for t in [0.0, 0.5, 10.0, 46.0, 91.9, 92.0] {
                    let v = c.c(t);
                    assert!(v.is_finite() && v >= 0.0, "c({t}) = {v} of {text:?}");
                }
                let i = c.integral(0.0, 92.0);
                assert!(i.is_finite() && i >= 0.0, "integral {i} of {text:?}");
            }
            Err(e) => assert!(!e.to_string().is_empty()),
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    #[test]
    fn random_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..300)) {
        check(&String::from_utf8_lossy(&bytes));
    }

    #[test]
    fn random_number_lines(lines in proptest::collection::vec((-1e3f64..1e3, -10f64..10.0), 0..12)) {
        let text: String = lines.iter().map(|(t, c)| format!("{t} {c}\n")).collect();
        check(&text);
    }

    #[test]
    fn mutated_lines(p in proptest::collection::vec((0usize..64, 0usize..4, 0usize..4, 0usize..64), 1..=3)) {
        check(&mutate(&p));
    }
}

#[test]
fn the_unmutated_file_parses() {
    let c = Cost::parse_series(FILE, true).unwrap();
    assert!(c.integral(0.0, 92.0) > 0.0);
}
