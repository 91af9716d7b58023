//! CLI tests of `slarm libra` (design.md §4, spec 001): the JSON fields, every policy on a
//! small hand-written trace, and exit code 2 for bad input.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn slarm(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_slarm"))
        .args(args)
        .output()
        .unwrap()
}

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

fn json(out: &Output) -> serde_json::Value {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn every_policy_reports_the_contract_fields() {
    let dir = tempfile::tempdir().unwrap();
    let t = trace(dir.path());
    let t = t.to_str().unwrap();
    for policy in ["libra", "libra-plus", "fcfs-bf", "sjf-bf", "edf-bf"] {
        let v = json(&slarm(&[
            "libra", "--trace", t, "--policy", policy, "--nodes", "8", "--json",
        ]));
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
            // Spec §4.3: exact estimates, so every admitted job meets its deadline.
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
    let a = json(&slarm(&args));
    let b = json(&slarm(&args));
    assert_eq!(a, b);
    assert_eq!(a["settings"]["inaccuracy_pct"].as_f64(), Some(-20.0));
    // The strict lapse rule drops, rather than starts, jobs that can no longer finish in
    // time: no more deadline misses among started baseline jobs than the paper's rule.
    let edf = |lapse: &str| {
        json(&slarm(&[
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
        ]))
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
        let out = slarm(&args);
        assert_eq!(
            out.status.code(),
            Some(2),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
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
        let out = slarm(&[
            "libra", "--trace", t, "--policy", "libra", flag, "-1", "--nodes", "8",
        ]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{flag}: {err}");
        assert!(err.contains(want), "{flag}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{flag}: {err}");
    }
}
