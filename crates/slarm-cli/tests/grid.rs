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
fn gwf_background_with_site_map_easy_lrm_and_table2_cap() {
    // A GWF trace with text columns and named sites; fs0 -> VU (0), fs4 -> Leiden (4).
    let dir = std::env::temp_dir().join(format!("slarm-grid-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let trace = dir.join("das3-june.gwf");
    let tail = "UNITARY -1 -1 -1 -1 linux -1 -1 -1 vo1 -1";
    let lines: String = (0..40)
        .map(|i| {
            let site = if i % 2 == 0 { "fs0" } else { "fs4" };
            format!(
                "{i} {} 0 3600 16 -1 -1 16 7200 -1 1 3 1 1 1 -1 {site} {site} {tail}\n",
                100 * i
            )
        })
        .collect();
    std::fs::write(&trace, lines).unwrap();
    let out = slarm(&[
        "grid",
        "--strategy",
        "dynamic",
        "--kappa",
        "1.5",
        "--bots",
        "60",
        "--background",
        trace.to_str().unwrap(),
        "--site-map",
        "fs0:0,fs4:4",
        "--lrm",
        "easy",
        "--max-runtime",
        "table2",
        "--period",
        "300",
        "--json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["background"]["trace"], "das3-june.gwf");
    assert_eq!(v["workload"]["background_jobs"].as_u64(), Some(40));
    assert_eq!(v["lrm"], "easy");
    let cap = v["runtime_cap_s"].as_f64().unwrap();
    assert!((cap / 1.7452e6 - 1.0).abs() < 1e-3, "{cap}");
    assert!(v["workload"]["max_runtime_s"].as_f64().unwrap() <= cap);
    std::fs::remove_dir_all(&dir).ok();
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
        vec!["grid", "--lrm", "sjf"],
        vec!["grid", "--max-runtime", "forever"],
        vec!["grid", "--runtime-spread", "wide"],
        vec!["grid", "--dynamic-start", "later"],
        vec!["grid", "--strategy", "dynamic", "--period", "0"],
        vec![
            "grid",
            "--strategy",
            "dynamic",
            "--high",
            "0.5",
            "--low",
            "0.6",
        ],
        vec!["grid", "--background-procs", "0"],
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
