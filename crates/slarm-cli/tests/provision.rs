//! `slarm provision`: the JSON contract, determinism and bad input (exit 2).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{one_line, slarm, slarm_json};
use predicates::prelude::*;

#[test]
fn static_four_contract_fields() {
    let j = slarm_json([
        "provision",
        "--heuristic",
        "static:4",
        "--cost-function",
        "1",
        "--runs",
        "200",
        "--seed",
        "3",
        "--json",
    ]);
    for f in [
        "mean_cost",
        "mean_cost_ci95",
        "deadline_miss_rate",
        "mean_deployments",
    ] {
        assert!(j[f].is_number(), "{f} missing in {j}");
    }
    // 4 static servers never miss (Sung 2006, Sec. 5: the minimum for 99.99 %); the cost is near 4 * 92 (1 server on [0, 1))
    assert_eq!(j["deadline_miss_rate"].as_f64().unwrap(), 0.0);
    let c = j["mean_cost"].as_f64().unwrap();
    assert!(c > 360.0 && c < 368.0, "{c}");
    assert_eq!(j["mean_deployments"].as_f64().unwrap(), 1.0);
}

#[test]
fn h1_is_deterministic_and_meets_the_deadline() {
    let args = [
        "provision",
        "--heuristic",
        "h1",
        "--runs",
        "100",
        "--seed",
        "9",
        "--tables",
        "quick",
        "--json",
    ];
    let a = slarm_json(args);
    let b = slarm_json(args);
    assert_eq!(a, b);
    // Sung 2006, Ch. 5: no job misses its deadline under H1; cost well below static (368 at c = 1)
    assert_eq!(a["deadline_miss_rate"].as_f64().unwrap(), 0.0);
    assert!(a["mean_cost"].as_f64().unwrap() < 330.0);
}

#[test]
fn cost_file_and_text_output() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("cost.txt");
    std::fs::write(&f, "# time cost\n0 1\n92 1\n").unwrap();
    slarm([
        "provision",
        "--heuristic",
        "static:2",
        "--runs",
        "20",
        "--cost-file",
        f.to_str().unwrap(),
    ])
    .assert()
    .success()
    .stdout(predicate::str::contains("mean_cost"));
}

#[test]
fn bad_input_exits_2() {
    let dir = tempfile::tempdir().unwrap();
    let neg = dir.path().join("neg.txt");
    std::fs::write(&neg, "0 1\n10 -2\n").unwrap();
    let nan = dir.path().join("nan.txt");
    std::fs::write(&nan, "0 1\n10 NaN\n").unwrap();
    let cases: Vec<Vec<String>> = vec![
        vec!["--u".into(), "92".into()],
        vec!["--p-min".into(), "6".into()],
        vec!["--y".into(), "1.5".into()],
        vec!["--y".into(), "0".into()],
        vec!["--cost-function".into(), "7".into()],
        vec!["--cost-lo=-1".into()],
        vec!["--cost-file".into(), neg.display().to_string()],
        vec!["--cost-file".into(), nan.display().to_string()],
        vec!["--runs".into(), "0".into()],
        vec!["--p-min".into(), "0".into()],
        vec!["--r2=-1".into()],
        vec!["--r1".into(), "900".into()],
        vec!["--mean-service".into(), "0".into()],
        vec!["--penalty-factor".into(), "nan".into()],
        vec!["--tie-break".into(), "largest".into()],
        vec!["--forced".into(), "ne".into()],
        vec!["--next-table".into(), "l3".into()],
        vec!["--tables".into(), "huge".into()],
        vec![
            "--cost-interp".into(),
            "cubic".into(),
            "--cost-file".into(),
            neg.display().to_string(),
        ],
        vec![
            "--cost-file".into(),
            dir.path().join("missing.txt").display().to_string(),
        ],
    ];
    for extra in cases {
        let mut args = vec!["provision", "--heuristic", "static:4"];
        args.extend(extra.iter().map(String::as_str));
        if !extra.iter().any(|a| a == "--runs") {
            args.extend(["--runs", "5"]);
        }
        // exit code 2 and one line naming the bad value
        slarm(&args).assert().code(2).stderr(one_line());
    }
    // the cost file's error names the file and the line
    slarm([
        "provision",
        "--heuristic",
        "static:4",
        "--runs",
        "5",
        "--cost-file",
        neg.to_str().unwrap(),
    ])
    .assert()
    .stderr(predicate::str::contains("neg.txt").and(predicate::str::contains("line 2")));
    slarm(["provision", "--heuristic", "h9"]).assert().code(2);
}

#[test]
fn h3_tables_are_written_and_switches_apply() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("tables.json");
    let base = [
        "provision",
        "--heuristic",
        "h3",
        "--runs",
        "40",
        "--seed",
        "2",
        "--tables",
        "quick",
        "--cost-function",
        "2",
        "--json",
    ];
    let mut args: Vec<&str> = base.to_vec();
    args.extend(["--tables-out", out.to_str().unwrap()]);
    let a = slarm_json(&args);
    let t: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    // g_s(p) for s >= u is exact (Sung 2006, Sec. 4.2.3; no Monte Carlo): g_64 = 6 18 29 40 50; g_85 = 0
    assert_eq!(t["g"]["values"][64], serde_json::json!([6, 18, 29, 40, 50]));
    assert_eq!(t["g"]["values"][85][4], 0);
    // L tables with argmins for s = 1..d-1 and K_s
    assert_eq!(t["l"]["choice"].as_array().unwrap().len(), 92);
    assert!(t["k"]["bound"][92].as_u64().unwrap() > 0);
    assert!(a["mean_cost"].as_f64().unwrap() > 0.0);
    // a different tie rule and the literal next table run too (same tables, same seed)
    let mut args2 = base.to_vec();
    args2.extend([
        "--tie-break",
        "prefer-current",
        "--next-table",
        "literal",
        "--forced",
        "gt",
    ]);
    let b = slarm_json(&args2);
    assert!(b["mean_cost"].as_f64().unwrap() > 0.0);
}
