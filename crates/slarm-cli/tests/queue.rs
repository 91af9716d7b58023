//! `slarm queue` end to end: the JSON fields of docs/cli.md and exit code 2 on bad input.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{one_line, slarm, slarm_json};
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

/// The answers of `queue size --batch`, checked against Algorithm 1 one query at a time.
fn batch_nodes(lambda: f64, mu: f64, x: f64, y: f64) -> u64 {
    slarm::queueing::min_nodes(lambda, mu, slarm::queueing::Sla::new(x, y).unwrap()).unwrap()
}

/// A good file: one CSV row per query, in input order, with the one-by-one answers.
#[test]
fn size_batch_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("q.csv");
    std::fs::write(
        &path,
        "lambda,mu,x,y\n40,1,3,0.95\n1,1,3,0.9\n20, 2, 1.5, 0.8\n",
    )
    .unwrap();
    let out = slarm(["queue", "size", "--batch", path.to_str().unwrap()])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).unwrap();
    let want = format!(
        "line,lambda,mu,x,y,nodes,error\n2,40,1,3,0.95,{},\n3,1,1,3,0.9,{},\n4,20,2,1.5,0.8,{},\n",
        batch_nodes(40.0, 1.0, 3.0, 0.95),
        batch_nodes(1.0, 1.0, 3.0, 0.9),
        batch_nodes(20.0, 2.0, 1.5, 0.8),
    );
    assert_eq!(text, want);
    assert!(text.contains(",52,"), "Hu 2009: m(40, SLA(3, 0.95)) = 52");
}

/// Bad rows (unparsable, infeasible, wrong field count, y = 1) are reported in their row with
/// their line number, the others still computed, exit code 2; the same with `--json`.
#[test]
fn size_batch_bad_rows_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("q.csv");
    std::fs::write(
        &path,
        "lambda,mu,x,y\n40,1,3,0.95\nabc,1,3,0.9\n\n1,1,2,0.9\n7,1\n20,1,3,1\n30,1,3,0.9\n",
    )
    .unwrap();
    let a = slarm(["queue", "size", "--batch", path.to_str().unwrap()])
        .assert()
        .code(2)
        .stderr(one_line())
        .stderr(predicate::str::contains("4 of 6 rows"));
    let text = String::from_utf8(a.get_output().stdout.clone()).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 7, "{text}");
    assert_eq!(lines[1], "2,40,1,3,0.95,52,");
    assert!(lines[2].starts_with("3,abc,1,3,0.9,,") && lines[2].contains("not a number"));
    assert!(
        lines[3].starts_with("5,1,1,2,0.9,,infeasible SLA"),
        "{}",
        lines[3]
    );
    assert!(lines[4].starts_with("6,7,1,,,,") && lines[4].contains("expected 4 fields"));
    assert!(lines[5].starts_with("7,20,1,3,1,,"), "{}", lines[5]);
    assert_eq!(
        lines[6],
        format!("8,30,1,3,0.9,{},", batch_nodes(30.0, 1.0, 3.0, 0.9))
    );

    let a = slarm(["--json", "queue", "size", "--batch", path.to_str().unwrap()])
        .assert()
        .code(2);
    let j = common::json_of(&a);
    let r = j["results"].as_array().unwrap();
    assert_eq!(r.len(), 6);
    assert_eq!(r[0]["line"], 2);
    assert_eq!(r[0]["nodes"], 52);
    assert!(r[0]["error"].is_null());
    assert_eq!(r[1]["line"], 3);
    assert!(r[1]["nodes"].is_null());
    assert!(r[1]["lambda"].is_null());
    assert!(r[2]["error"].as_str().unwrap().contains("infeasible"));
    assert_eq!(r[5]["lambda"], 30.0);
    assert_eq!(r[5]["nodes"], batch_nodes(30.0, 1.0, 3.0, 0.9));
}

/// `--batch -` reads stdin; a bad header, a missing file and `--class` with `--batch` exit 2.
#[test]
fn size_batch_stdin_and_refusals() {
    let a = slarm(["--json", "queue", "size", "--batch", "-"])
        .write_stdin("lambda,mu,x,y\n5,1,3,0.9\n")
        .assert()
        .success();
    let j = common::json_of(&a);
    assert_eq!(j["results"][0]["nodes"], batch_nodes(5.0, 1.0, 3.0, 0.9));
    slarm(["queue", "size", "--batch", "-"])
        .write_stdin("l,m,x,y\n5,1,3,0.9\n")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("header"));
    slarm(["queue", "size", "--batch", "no-such-file.csv"])
        .assert()
        .code(2);
    slarm(["queue", "size", "--batch", "-", "--class", "1:3:0.9"])
        .write_stdin("lambda,mu,x,y\n")
        .assert()
        .code(2);
}

/// More rows than the bound: refused with exit code 2 and a message naming the bound.
#[test]
fn size_batch_is_bounded() {
    let mut input = String::from("lambda,mu,x,y\n");
    for _ in 0..1_000_001 {
        input.push_str("1,1,3,0.9\n");
    }
    slarm(["queue", "size", "--batch", "-"])
        .write_stdin(input)
        .assert()
        .code(2)
        .stderr(one_line())
        .stderr(predicate::str::contains("1000000 rows"));
}
