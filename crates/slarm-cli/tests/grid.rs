//! `slarm grid`: JSON contract of design.md §4 and exit codes.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::Command;

fn slarm(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_slarm"))
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn json_has_the_contract_fields() {
    let out = slarm(&[
        "grid",
        "--strategy",
        "all",
        "--kappa",
        "2",
        "--load",
        "0.8",
        "--seed",
        "3",
        "--bots",
        "80",
        "--json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v["c_d"].as_f64().unwrap() >= 1.0);
    assert!(v["c_s"].as_f64().unwrap() >= 0.0);
    assert!(v["cpu_hours"].as_f64().unwrap() > 0.0);
    assert_eq!(v["bots"].as_u64(), Some(80));
    assert_eq!(v["background"], "synthetic");
}

#[test]
fn same_seed_same_answer_and_text_output() {
    let args = [
        "grid",
        "--strategy",
        "dynamic",
        "--kappa",
        "1.5",
        "--load",
        "80%",
        "--seed",
        "5",
        "--bots",
        "60",
        "--json",
    ];
    let a = slarm(&args);
    let b = slarm(&args);
    assert!(a.status.success());
    assert_eq!(a.stdout, b.stdout);
    let t = slarm(&args[..args.len() - 1]);
    assert!(t.status.success());
    assert!(String::from_utf8_lossy(&t.stdout).contains("C_d"));
}

#[test]
fn bad_input_exits_2() {
    for args in [
        vec!["grid", "--strategy", "bogus"],
        vec!["grid", "--kappa", "0.5", "--strategy", "all"],
        vec!["grid", "--load", "abc"],
        vec!["grid", "--load", "-0.3"],
        vec!["grid", "--policy", "x"],
        vec!["grid", "--background", "/nonexistent/trace.gwf"],
        vec![
            "grid",
            "--strategy",
            "feedback",
            "--target-min",
            "100",
            "--release-min",
            "200",
        ],
    ] {
        let out = slarm(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
    }
}
