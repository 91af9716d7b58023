//! `slarm queue` end to end: the JSON fields of docs/cli.md and exit code 2 on bad input.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{slarm, slarm_json};
use predicates::prelude::*;

/// Erlang C and the response-time CDF, Hu 2009 Eq. (4.1): m = 52, lambda = 39.9, x = 3.
#[test]
fn cdf_fields_and_values() {
    let j = slarm_json([
        "queue",
        "cdf",
        "--lambda",
        "39.9",
        "--mu",
        "1",
        "--servers",
        "52",
        "--x",
        "3",
        "--json",
    ]);
    assert!((j["erlang_c"].as_f64().unwrap() - 0.044228790368).abs() < 1e-11);
    assert!((j["cdf"].as_f64().unwrap() - 0.950014551289).abs() < 1e-11);
    let mr = j["mean_response"].as_f64().unwrap();
    assert!((mr - (1.0 + 0.044228790368 / 12.1)).abs() < 1e-9);
}

#[test]
fn cdf_unstable_exits_2() {
    slarm([
        "queue",
        "cdf",
        "--lambda",
        "5",
        "--servers",
        "5",
        "--x",
        "3",
        "--json",
    ])
    .assert()
    .code(2)
    .stderr(predicate::str::contains("unstable"));
}

/// Hu 2009, Table 4.2 case 2 (recomputed): DA 8, SA 10.
#[test]
fn size_two_classes() {
    let j = slarm_json([
        "--json",
        "queue",
        "size",
        "--mu",
        "1",
        "--class",
        "0.6:3:0.95",
        "--class",
        "3.6:5:0.8",
    ]);
    assert_eq!(j["classes"][0]["dedicated_nodes"], 4);
    assert_eq!(j["classes"][1]["dedicated_nodes"], 4);
    let strategies = j["strategies"].as_array().unwrap();
    assert_eq!(strategies.len(), 2);
    assert!(strategies
        .iter()
        .any(|s| s["partition"] == "SA" && s["nodes"] == 10));
    assert_eq!(j["best"]["partition"], "DA");
    assert_eq!(j["best"]["nodes"], 8);
    assert!(j["heuristic"]["nodes"].as_u64().is_some());
}

#[test]
fn size_three_classes_and_pdp() {
    let j = slarm_json([
        "queue",
        "size",
        "--class",
        "15:4.5:0.8",
        "--class",
        "5:2.5:0.9",
        "--class",
        "2:3:0.85",
        "--discipline",
        "pdp",
        "--seed",
        "3",
        "--horizon",
        "1500",
        "--warmup",
        "100",
        "--replications",
        "2",
        "--json",
    ]);
    assert_eq!(j["strategies"].as_array().unwrap().len(), 5);
    assert!(j["heuristic"]["partition"].as_str().is_some());
    let sa = j["strategies"][0]["nodes"].as_u64().unwrap();
    let pdp = j["shared_simulated"]["nodes"].as_u64().unwrap();
    assert!(pdp <= sa + 1, "PDP {pdp} vs FCFS-SA {sa}");
}

#[test]
fn size_infeasible_and_malformed_exit_2() {
    slarm(["queue", "size", "--class", "10:2:0.95", "--json"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("infeasible"));
    for bad in ["10:3", "a:3:0.9", "10:3:1.5", "-1:3:0.9", "nan:3:0.9"] {
        slarm(["queue", "size", "--class", bad, "--json"])
            .assert()
            .code(2);
    }
}

#[test]
fn simulate_fields() {
    let j = slarm_json([
        "queue",
        "simulate",
        "--servers",
        "23",
        "--mu",
        "1",
        "--class",
        "15:4.5:0.8",
        "--class",
        "5:2.5:0.9",
        "--discipline",
        "hol",
        "--horizon",
        "2000",
        "--warmup",
        "200",
        "--replications",
        "3",
        "--seed",
        "5",
        "--json",
    ]);
    let classes = j["classes"].as_array().unwrap();
    assert_eq!(classes.len(), 2);
    for c in classes {
        assert!(c["mean_response"].as_f64().unwrap() >= 1.0 * 0.8);
        assert!(c["mean_response_ci95"].as_f64().unwrap() > 0.0);
        let f = c["sla_fraction"].as_f64().unwrap();
        assert!((0.0..=1.0).contains(&f));
        assert!(c["sla_fraction_ci95"].as_f64().is_some());
    }
    let l = j["mean_in_system"].as_f64().unwrap();
    assert!((l - j["mean_in_system_exact"].as_f64().unwrap()).abs() < 1.0);
}

#[test]
fn simulate_unstable_exits_2() {
    slarm([
        "queue",
        "simulate",
        "--servers",
        "3",
        "--class",
        "2:3:0.9",
        "--class",
        "1.5:3:0.9",
        "--discipline",
        "pdp",
        "--json",
    ])
    .assert()
    .code(2);
}
