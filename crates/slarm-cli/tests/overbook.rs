//! `slarm overbook` end to end on a small generated SWF file.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::io::Write;

use common::{slarm, slarm_json};

fn swf() -> tempfile::NamedTempFile {
    let mut f = tempfile::Builder::new().suffix(".swf").tempfile().unwrap();
    writeln!(f, "; MaxProcs: 32").unwrap();
    for i in 0..400u64 {
        let submit = i * 300;
        let est = 600 + (i * 7919 % 20) * 600;
        let run = est * (i * 31 % 10) / 10;
        let procs = 1 << (i % 5);
        writeln!(
            f,
            "{} {submit} -1 {run} {procs} -1 -1 {procs} {est} -1 1 {} -1 -1 -1 -1 -1 -1",
            i + 1,
            i % 7
        )
        .unwrap();
    }
    f
}

#[test]
fn json_fields_of_the_contract() {
    let f = swf();
    let path = f.path().to_str().unwrap();
    let v = slarm_json([
        "--json",
        "overbook",
        "--trace",
        path,
        "--strategy",
        "heur-overbook",
        "--stats",
        "runtime",
        "--test",
        "pof:0.3",
        "--battery-size",
        "100",
        "--test-jobs",
        "200",
    ]);
    for k in [
        "fees",
        "penalties",
        "gain",
        "successful",
        "failed",
        "dropped",
    ] {
        assert!(v[k].is_number(), "{k}");
        assert!(v[format!("{k}_ci95")].is_number(), "{k}_ci95");
    }
    let total = v["successful"].as_f64().unwrap()
        + v["failed"].as_f64().unwrap()
        + v["dropped"].as_f64().unwrap();
    assert!((total - 100.0).abs() < 1e-9);
    assert_eq!(v["batteries"], 2);
}

#[test]
fn bad_input_exits_2() {
    let f = swf();
    let path = f.path().to_str().unwrap();
    for args in [
        vec!["overbook", "--trace", path, "--strategy", "nope"],
        vec!["overbook", "--trace", path, "--test", "pof:2"],
        vec!["overbook", "--trace", "/nonexistent.swf"],
    ] {
        slarm(&args).assert().code(2);
    }
}

#[test]
fn failure_log_replay_and_its_bad_lines() {
    let f = swf();
    let path = f.path().to_str().unwrap();
    let mut log = tempfile::Builder::new().suffix(".csv").tempfile().unwrap();
    writeln!(log, "time_s,node,duration_s\n600,3,3600\n1200,40,7200").unwrap();
    let log_path = log.path().to_str().unwrap();
    let args = |failures: &str| {
        vec![
            "--json".to_string(),
            "overbook".into(),
            "--trace".into(),
            path.into(),
            "--battery-size".into(),
            "100".into(),
            "--test-jobs".into(),
            "200".into(),
            "--failures".into(),
            failures.into(),
        ]
    };
    let replay = slarm_json(args(log_path));
    assert_eq!(replay["failures"], log_path);
    let share = replay["penalty_share_of_fees"].as_f64().unwrap();
    let (fees, penalties) = (
        replay["fees"].as_f64().unwrap(),
        replay["penalties"].as_f64().unwrap(),
    );
    assert!((share - penalties / fees).abs() < 1e-9, "{share}");
    let mut bad = tempfile::Builder::new().suffix(".csv").tempfile().unwrap();
    writeln!(bad, "time_s,node,duration_s\n600,3,3600\n700,three,60").unwrap();
    let bad_path = bad.path().to_str().unwrap().to_string();
    let out = slarm(args(&bad_path)).assert().code(2);
    let err = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert!(err.contains(&bad_path) && err.contains("line 3"), "{err}");
    slarm(args("/nonexistent-failures.csv")).assert().code(2);
}
