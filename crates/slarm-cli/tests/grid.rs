//! `slarm grid`: the JSON contract (docs/cli.md) and exit codes.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{one_line, slarm, slarm_json};
use predicates::prelude::*;

/// The contract fields of `slarm grid` and their ranges, for a run of `bots` BoTs.
fn assert_contract(v: &serde_json::Value, bots: u64) {
    assert!(v["c_d"].as_f64().unwrap() >= 1.0);
    assert!(v["c_s"].as_f64().unwrap() >= 0.0);
    assert!(v["cpu_hours"].as_f64().unwrap() > 0.0);
    assert_eq!(v["bots"].as_u64(), Some(bots));
}

#[test]
fn json_has_the_contract_fields() {
    let v = slarm_json([
        "grid",
        "--strategy",
        "all",
        "--kappa",
        "2",
        "--seed",
        "3",
        "--bots",
        "80",
        "--json",
    ]);
    assert_contract(&v, 80);
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
        "--load-definition",
        "realised",
        "--load",
        "80%",
        "--seed",
        "5",
        "--bots",
        "60",
        "--json",
    ];
    let a = slarm(args).assert().success();
    slarm(args)
        .assert()
        .success()
        .stdout(a.get_output().stdout.clone());
    slarm(&args[..args.len() - 1])
        .assert()
        .success()
        .stdout(predicate::str::contains("C_d"));
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
        .collect::<String>()
        // An unknown site and a job without run time: skipped, counted per reason.
        + &format!("40 4100 0 3600 16 -1 -1 16 7200 -1 1 3 1 1 1 -1 -1 -1 {tail}\n")
        + &format!("41 4200 0 -1 16 -1 -1 16 7200 -1 1 3 1 1 1 -1 fs0 fs0 {tail}\n");
    std::fs::write(&trace, lines).unwrap();
    let v = slarm_json([
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
    assert_eq!(v["background"]["trace"], "das3-june.gwf");
    assert_eq!(v["workload"]["background_jobs"].as_u64(), Some(40));
    assert_eq!(
        v["background_skipped"],
        serde_json::json!([
            {"reason": "no_run_time", "lines": 1},
            {"reason": "unknown_site", "lines": 1}
        ])
    );
    assert_eq!(v["lrm"], "easy");
    let cap = v["runtime_cap_s"].as_f64().unwrap();
    assert!((cap / 1.7452e6 - 1.0).abs() < 1e-3, "{cap}");
    assert!(v["workload"]["max_runtime_s"].as_f64().unwrap() <= cap);
    std::fs::remove_dir_all(&dir).ok();
}

/// The default reading (Yigitbasi & Epema 2010, Table II): BoTs arrive at a mean
/// inter-arrival time of 124.6 s, so 1650 BoTs span 1649 × 124.6 s = 2.38 days; the load is
/// measured (one simulation of the initial system), the runtimes capped at Table II's mean.
#[test]
fn default_arrivals_follow_table2_and_the_load_is_measured() {
    let v = slarm_json(["grid", "--strategy", "none", "--kappa", "1", "--json"]);
    assert_eq!(v["load_definition"], "arrivals");
    assert_eq!(v["bots"], 1650);
    let span = v["workload"]["span_s"].as_f64().unwrap();
    assert!((span - 1649.0 * 124.6).abs() < 1e-6, "{span}");
    assert!((v["workload"]["mean_iat_s"].as_f64().unwrap() - 124.6).abs() < 1e-9);
    assert_eq!(v["calibration_runs"], 1);
    assert_eq!(v["load"], v["realised_load"]);
    assert_eq!(v["busy_share"]["bot"], v["realised_load"]);
    let cap = v["runtime_cap_s"].as_f64().unwrap();
    assert!((cap / 1.7452e6 - 1.0).abs() < 1e-3, "{cap}");
    assert_eq!(v["arrivals"]["table2_average"]["mean_iat_s"], 124.6);
    for bad in ["0", "-3", "nan"] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_slarm"))
            .args(["grid", "--mean-iat", bad])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "--mean-iat {bad}");
    }
}

#[test]
fn realised_load_is_reached_and_reported() {
    let v = slarm_json([
        "grid",
        "--strategy",
        "none",
        "--kappa",
        "1",
        "--load",
        "0.5",
        "--load-definition",
        "realised",
        "--bots",
        "300",
        "--json",
    ]);
    assert_eq!(v["load_definition"], "realised");
    assert!(
        (v["realised_load"].as_f64().unwrap() - 0.5).abs() <= 0.002,
        "{v}"
    );
    assert_eq!(v["load_converged"], true);
    assert_eq!(v["busy_share"]["bot"], v["realised_load"]);
    assert!(v["offered_load"].as_f64().unwrap() > 0.5);
    let n = slarm_json([
        "grid",
        "--strategy",
        "none",
        "--kappa",
        "1",
        "--bots",
        "80",
        "--das3-unit",
        "node",
        "--load-definition",
        "offered",
        "--json",
    ]);
    assert_eq!(n["platform"]["processors"].as_u64(), Some(272));
    assert_eq!(n["offered_load"].as_f64(), Some(0.8));
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
        vec!["grid", "--load-definition", "busy"],
        vec!["grid", "--das3-unit", "core"],
        vec!["grid", "--load-definition", "realised", "--load", "1.5"],
        vec!["grid", "--load", "0.5"],
        vec!["grid", "--within-bot-sd", "-1"],
        vec!["grid", "--mean-iat", "0"],
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
        slarm(&args).assert().code(2);
    }
}

/// A scratch folder for one test's files.
fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("slarm-grid-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn custom_platform_gives_the_contract_fields() {
    let dir = scratch("platform-ok");
    let file = dir.join("two-sites.txt");
    std::fs::write(
        &file,
        "# name processors speed_ghz\nbig 100 2.4\n\nsmall\t20 2.2   # the slowest\n",
    )
    .unwrap();
    for strategy in ["none", "all", "largest", "number", "dynamic"] {
        let v = slarm_json([
            "grid",
            "--platform",
            file.to_str().unwrap(),
            "--strategy",
            strategy,
            "--kappa",
            "1.5",
            "--bots",
            "60",
            "--json",
        ]);
        assert_contract(&v, 60);
        assert_eq!(v["platform"]["source"], "two-sites.txt");
        assert_eq!(v["platform"]["processors"].as_u64(), Some(120));
        let sites = v["platform"]["sites"].as_array().unwrap();
        assert_eq!(sites.len(), 2);
        assert_eq!(sites[1]["name"], "small");
        assert_eq!(sites[1]["speed_ghz"].as_f64(), Some(2.2));
        if ["all", "largest", "number"].contains(&strategy) {
            // Static strategies at kappa 1.5 on 120 processors: 180 processors x horizon.
            let hours = v["horizon_s"].as_f64().unwrap() / 3600.0;
            let cost = v["cpu_hours"].as_f64().unwrap();
            assert!(
                (cost / (180.0 * hours) - 1.0).abs() < 1e-9,
                "{strategy}: {cost}"
            );
        }
    }
    let v = slarm_json(["grid", "--bots", "60", "--json"]);
    assert_eq!(v["platform"]["source"], "das3");
    assert_eq!(v["platform"]["processors"].as_u64(), Some(544));
    // --site-map indices must name a site of the given platform (0 or 1 here).
    let trace = dir.join("bg.gwf");
    std::fs::write(
        &trace,
        "1 0 0 600 2 -1 -1 2 1200 -1 1 3 1 1 1 -1 fs1 fs1 UNITARY -1 -1 -1 -1 linux -1 -1 -1 vo1 -1\n",
    )
    .unwrap();
    let with_map = |map: &str| {
        slarm([
            "grid",
            "--platform",
            file.to_str().unwrap(),
            "--background",
            trace.to_str().unwrap(),
            "--site-map",
            map,
            "--bots",
            "20",
            "--json",
        ])
    };
    with_map("fs1:1").assert().success();
    with_map("fs1:2")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--site-map fs1:2"));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn malformed_platform_files_exit_2_naming_the_line() {
    let dir = scratch("platform-bad");
    for (name, text, needle) in [
        (
            "bad-number.txt",
            "a 10 2.2\nb x 2.0\n",
            "bad-number.txt:2: processors `x`",
        ),
        (
            "missing.txt",
            "a 10 2.2\n# c\nb 10\n",
            "missing.txt:3: expected `name processors speed_ghz`",
        ),
        ("zero.txt", "a 0 2.2\n", "zero.txt:1: processors 0"),
        (
            "nan.txt",
            "a 10 2.2\n\nb 10 NaN\n",
            "nan.txt:3: speed `NaN`",
        ),
        (
            "negative.txt",
            "a 10 -2.2\n",
            "negative.txt:1: speed `-2.2`",
        ),
        (
            "repeat.txt",
            "a 1 2\nb 1 2\na 1 2\n",
            "repeat.txt:3: site name a repeats line 1",
        ),
        ("empty.txt", "", "empty.txt: invalid platform: no site"),
        (
            "comments.txt",
            "# nothing\n\n",
            "comments.txt: invalid platform: no site",
        ),
    ] {
        let file = dir.join(name);
        std::fs::write(&file, text).unwrap();
        slarm(["grid", "--platform", file.to_str().unwrap(), "--bots", "10"])
            .assert()
            .code(2)
            .stderr(predicate::str::contains(needle).and(one_line()));
    }
    let missing = dir.join("nonexistent.txt");
    slarm(["grid", "--platform", missing.to_str().unwrap()])
        .assert()
        .code(2)
        .stderr(
            predicate::str::contains("--platform").and(predicate::str::contains("nonexistent.txt")),
        );
    std::fs::remove_dir_all(&dir).ok();
}
