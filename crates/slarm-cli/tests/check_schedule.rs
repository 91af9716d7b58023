//! CLI tests of `slarm check-schedule`: a clean schedule (exit 0), one broken on purpose
//! (exit 3, every violation listed), and bad input (exit 2, one line naming file and line).

#![allow(clippy::unwrap_used)]

mod common;

use std::path::{Path, PathBuf};

use common::{docs_file, json_of, one_line, slarm, slarm_json, stderr_of};
use predicates::prelude::*;

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

/// The three-job trace of docs/cli.md's examples, written once into a folder that lives as
/// long as the test binary.
fn trace() -> String {
    static TRACE: std::sync::OnceLock<(tempfile::TempDir, String)> = std::sync::OnceLock::new();
    TRACE
        .get_or_init(|| {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("three-jobs.swf");
            std::fs::write(&path, docs_file("three-jobs.swf")).unwrap();
            let shown = path.display().to_string();
            (dir, shown)
        })
        .1
        .clone()
}

#[test]
fn simulated_schedules_keep_their_contracts() {
    let dir = tempfile::tempdir().unwrap();
    for policy in ["fcfs", "easy", "conservative"] {
        let csv = dir.path().join(format!("{policy}.csv"));
        let csv = csv.to_str().unwrap();
        slarm([
            "simulate",
            "--trace",
            &trace(),
            "--policy",
            policy,
            "--schedule-out",
            csv,
        ])
        .assert()
        .success();
        let v = slarm_json([
            "check-schedule",
            "--trace",
            &trace(),
            "--schedule",
            csv,
            "--contract",
            policy,
            "--json",
        ]);
        assert_eq!(v["violations"], 0, "{policy}");
        assert_eq!(v["rows"], 3);
        assert_eq!(v["contract"], policy);
        assert_eq!(v["list"], serde_json::json!([]));
    }
}

#[test]
fn broken_schedule_lists_every_violation_and_exits_3() {
    let broken = data("check-broken.csv").display().to_string();
    let a = slarm([
        "check-schedule",
        "--trace",
        &trace(),
        "--schedule",
        &broken,
        "--contract",
        "easy",
        "--json",
    ])
    .assert()
    .code(3)
    .stderr(one_line());
    let v = json_of(&a);
    assert_eq!(v["violations"], 2);
    assert_eq!(
        v["list"],
        serde_json::json!([
            {"kind": "over-estimate", "job": 3, "ran": 100.0, "estimate": 90.0},
            {"kind": "head-delayed", "job": 2, "head_at": 1.0, "reservation": 100.0, "start": 102.0},
        ])
    );
    assert_eq!(
        stderr_of(&a).trim_end(),
        "slarm: error: 2 violation(s) of the easy contract"
    );
    // The capacity-only contract finds only the over-run.
    slarm([
        "check-schedule",
        "--trace",
        &trace(),
        "--schedule",
        &broken,
        "--contract",
        "capacity",
    ])
    .assert()
    .code(3)
    .stdout(
        predicate::str::contains("over-estimate")
            .and(predicate::str::contains("head-delayed").not()),
    );
}

#[test]
fn bad_input_names_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.csv");
    std::fs::write(
        &bad,
        "job_id,submit,start,end,procs\n1,0,0,100,6\n2,1,x,152,8\n",
    )
    .unwrap();
    let bad = bad.to_str().unwrap();
    let a = slarm([
        "check-schedule",
        "--trace",
        &trace(),
        "--schedule",
        bad,
        "--contract",
        "easy",
    ])
    .assert()
    .code(2)
    .stderr(one_line());
    assert_eq!(
        stderr_of(&a).trim_end(),
        format!("slarm: error: {bad} line 3: start \"x\" is not a finite number")
    );
    slarm([
        "check-schedule",
        "--trace",
        &trace(),
        "--schedule",
        "/nonexistent.csv",
        "--contract",
        "easy",
    ])
    .assert()
    .code(2)
    .stderr(predicate::str::contains("/nonexistent.csv").and(one_line()));
    slarm([
        "check-schedule",
        "--trace",
        &trace(),
        "--schedule",
        bad,
        "--contract",
        "lifo",
    ])
    .assert()
    .code(2);
}
