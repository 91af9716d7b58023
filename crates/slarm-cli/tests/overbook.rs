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
