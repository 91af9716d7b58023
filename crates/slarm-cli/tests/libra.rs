//! CLI tests of `slarm libra` (Yeo & Buyya): the JSON fields, every policy on a
//! small hand-written trace, and exit code 2 for bad input.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::io::Write;
use std::path::{Path, PathBuf};

use common::{one_line, slarm, slarm_json};
use predicates::prelude::*;

/// 40 jobs on an 8-processor machine: 1-4 processors, 100-900 s, 60 s apart.
fn trace(dir: &Path) -> PathBuf {
    let mut s = String::from("; MaxProcs: 8\n");
    for i in 0..40u32 {
        let procs = 1 + i % 4;
        let run = 100 + (i * 37) % 800;
        s.push_str(&format!(
            "{} {} -1 {run} {procs} -1 -1 {procs} {run} -1 1 -1 -1 -1 -1 -1 -1 -1\n",
            i + 1,
            i * 60
        ));
    }
    let p = dir.join("small.swf");
    std::fs::File::create(&p)
        .unwrap()
        .write_all(s.as_bytes())
        .unwrap();
    p
}

#[test]
fn every_policy_reports_the_contract_fields() {
    let dir = tempfile::tempdir().unwrap();
    let t = trace(dir.path());
    let t = t.to_str().unwrap();
    for policy in ["libra", "libra-plus", "fcfs-bf", "sjf-bf", "edf-bf"] {
        let v = slarm_json([
            "libra", "--trace", t, "--policy", policy, "--nodes", "8", "--json",
        ]);
        let q = v["qos_satisfaction"].as_f64().unwrap();
        let p = v["profitability"].as_f64().unwrap();
        assert!((0.0..=1.0).contains(&q) && (0.0..=1.0).contains(&p), "{v}");
        let accepted = v["accepted"].as_u64().unwrap();
        let rejected: u64 = v["rejected"]
            .as_object()
            .unwrap()
            .values()
            .map(|x| x.as_u64().unwrap())
            .sum();
        assert_eq!(accepted + rejected, 40, "{v}");
        assert!(v["rejected"]["cannot_meet_budget"].is_u64());
        assert!(v["rejected"]["deadline_lapsed_in_queue"].is_u64());
        if policy.starts_with("libra") {
            // Exact runtime estimates: Libra admits a job only if its proportional share meets
            // the deadline, so every admitted job meets it.
            assert_eq!(v["deadline_misses"].as_u64(), Some(0), "{v}");
        }
    }
    // Table I options are accepted and change the result deterministically.
    let args = [
        "libra",
        "--trace",
        t,
        "--policy",
        "libra-plus",
        "--nodes",
        "8",
        "--beta",
        "1.0",
        "--alpha",
        "1",
        "--delay-factor",
        "0.25",
        "--high-urgency",
        "40",
        "--underestimate",
        "-20",
        "--seed",
        "9",
        "--json",
    ];
    let a = slarm_json(args);
    let b = slarm_json(args);
    assert_eq!(a, b);
    assert_eq!(a["settings"]["inaccuracy_pct"].as_f64(), Some(-20.0));
    // The strict lapse rule drops, rather than starts, jobs that can no longer finish in
    // time: no more deadline misses among started baseline jobs than the paper's rule.
    let edf = |lapse: &str| {
        slarm_json([
            "libra",
            "--trace",
            t,
            "--policy",
            "edf-bf",
            "--nodes",
            "4",
            "--delay-factor",
            "0.1",
            "--lapse",
            lapse,
            "--json",
        ])
    };
    let (paper, strict) = (edf("deadline-passed"), edf("cannot-finish"));
    assert_eq!(strict["settings"]["lapse"], "cannot_finish");
    assert_eq!(strict["deadline_misses"].as_u64(), Some(0), "{strict}");
    assert!(
        paper["deadline_misses"].as_u64() >= strict["deadline_misses"].as_u64(),
        "{paper}"
    );
}

#[test]
fn bad_input_exits_with_2() {
    let dir = tempfile::tempdir().unwrap();
    let t = trace(dir.path());
    let t = t.to_str().unwrap();
    for args in [
        vec!["libra", "--trace", t, "--policy", "nope"],
        vec![
            "libra",
            "--trace",
            t,
            "--policy",
            "libra",
            "--beta=-1",
            "--nodes",
            "8",
        ],
        vec![
            "libra",
            "--trace",
            t,
            "--policy",
            "libra",
            "--delay-factor",
            "0",
            "--nodes",
            "8",
        ],
        vec!["libra", "--trace", "/nonexistent.swf", "--policy", "libra"],
        vec![
            "libra", "--trace", t, "--policy", "edf-bf", "--lapse", "never", "--nodes", "8",
        ],
    ] {
        slarm(&args).assert().code(2);
    }
}

/// A negative number given as a separate word (`--beta -1`) reaches slarm's own validation,
/// which names the parameter and the value, instead of clap's "unexpected argument".
#[test]
fn negative_values_are_validated_by_slarm_not_rejected_by_the_parser() {
    let dir = tempfile::tempdir().unwrap();
    let t = trace(dir.path());
    let t = t.to_str().unwrap();
    for (flag, want) in [
        ("--beta", "beta must be >= 0, got -1"),
        ("--delay-factor", "delay factor must be > 0, got -1"),
        ("--high-urgency", "high_urgency_pct = -1"),
    ] {
        slarm([
            "libra", "--trace", t, "--policy", "libra", flag, "-1", "--nodes", "8",
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(want).and(one_line()));
    }
}
