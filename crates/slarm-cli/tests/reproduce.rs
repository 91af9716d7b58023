//! `slarm reproduce` and `slarm merge` on the real experiments: a sharded (N = 3) and merged
//! run equals one unsharded run byte for byte (all files but `timings.json`); the report's
//! files and `run.json`; resume; the bad-input contract (exit code 2, one line).
//!
//! The default test runs the two papers that are quick in a debug build (hu2009,
//! yigitbasi2010, a few seconds of CPU); the same check for all five papers is
//! `cargo test -p slarm-cli --test reproduce -- --ignored` (minutes in debug) and, in release,
//! `cargo xtask repro-identity` (a step of `.ci/run`).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::Path;

use common::{json_of, one_line, slarm};
use predicates::prelude::*;
use slarm_repro::compare_outputs;

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Runs `papers` once and as three shards (one thread each), merges, and compares.
fn sharded_equals_unsharded(papers: &[&str]) {
    let tmp = tempfile::tempdir().unwrap();
    let whole = tmp.path().join("whole");
    let mut args = vec!["reproduce"];
    args.extend_from_slice(papers);
    let run = |out: &Path, extra: &[&str]| {
        let mut a = args.clone();
        a.extend_from_slice(&["--scale", "quick", "--seed", "3", "--out", path(out)]);
        a.extend_from_slice(extra);
        slarm(&a).assert().success()
    };
    // Progress bars only on a terminal: nothing on a piped stderr.
    run(&whole, &["--jobs", "2"]).stderr(predicate::str::is_empty());
    let mut shards = Vec::new();
    for k in 1..=3 {
        let d = tmp.path().join(format!("shard{k}"));
        run(&d, &["--jobs", "1", "--shard", &format!("{k}/3")]);
        assert!(!d.join("index.html").exists(), "a shard assembles nothing");
        shards.push(d);
    }
    let merged = tmp.path().join("merged");
    let mut m = vec!["merge", "--out", path(&merged)];
    m.extend(shards.iter().map(|d| path(d)));
    slarm(&m).assert().success();
    let c = compare_outputs(&whole, &merged).unwrap();
    assert!(c.identical(), "{c}");
    // Every paper's report files are there.
    assert!(whole.join("index.html").is_file() && whole.join("summary.md").is_file());
    for p in papers {
        let run: serde_json::Value =
            serde_json::from_slice(&std::fs::read(whole.join(p).join("run.json")).unwrap())
                .unwrap();
        assert_eq!(run["seed"], 3);
        assert_eq!(run["scale"], "quick");
        assert!(run["revision"].as_str().is_some_and(|r| !r.is_empty()));
        assert!(run["trace_sha256"].is_object());
        assert_eq!(run["timings"]["cells"], "timings.json");
        for t in run["tables"].as_array().unwrap() {
            let t = t.as_str().unwrap();
            for ext in ["csv", "json"] {
                assert!(
                    whole.join(p).join(format!("{t}.{ext}")).is_file(),
                    "{p}/{t}.{ext}"
                );
            }
        }
        for f in run["figures"].as_array().unwrap() {
            let svg =
                std::fs::read_to_string(whole.join(p).join(format!("{}.svg", f.as_str().unwrap())))
                    .unwrap();
            assert!(svg.starts_with("<svg"), "{p}/{f}");
        }
        let timings: serde_json::Value =
            serde_json::from_slice(&std::fs::read(merged.join(p).join("timings.json")).unwrap())
                .unwrap();
        assert_eq!(
            timings["cell_seconds"].as_object().unwrap().len(),
            std::fs::read_dir(whole.join(p).join("cells"))
                .unwrap()
                .count(),
            "{p}: merged timings cover every cell"
        );
    }
}

#[test]
fn sharded_and_merged_equals_one_run_on_quick_papers() {
    sharded_equals_unsharded(&["hu2009", "yigitbasi2010"]);
}

#[test]
#[ignore = "all five papers: minutes in a debug build; .ci/run checks the same on the release binary (cargo xtask repro-identity, all five papers)"]
fn sharded_and_merged_equals_one_run_on_all_papers() {
    sharded_equals_unsharded(&[]);
}

#[test]
fn resume_reuses_complete_cells_and_refuses_another_configuration() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("r");
    let base = [
        "reproduce",
        "yigitbasi2010",
        "--scale",
        "quick",
        "--out",
        path(&out),
    ];
    slarm(base).assert().success();
    let first = std::fs::read(out.join("yigitbasi2010/report.json")).unwrap();
    // Lose two cells, as an interrupted run would.
    let cells: Vec<_> = std::fs::read_dir(out.join("yigitbasi2010/cells"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    for c in &cells[..2] {
        std::fs::remove_file(c).unwrap();
    }
    let mut resume = base.to_vec();
    resume.extend_from_slice(&["--resume", "--json"]);
    let v = json_of(&slarm(&resume).assert().success());
    assert_eq!(v["papers"][0]["ran"], 2);
    assert_eq!(v["papers"][0]["reused"], cells.len() - 2);
    assert_eq!(
        std::fs::read(out.join("yigitbasi2010/report.json")).unwrap(),
        first
    );
    let mut other = resume.clone();
    other.extend_from_slice(&["--seed", "9"]);
    slarm(&other)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("another configuration"));
}

#[test]
fn trace_folder_from_the_environment_is_recorded_with_only_the_traces_read() {
    let tmp = tempfile::tempdir().unwrap();
    let traces = tmp.path().join("pwa");
    std::fs::create_dir_all(&traces).unwrap();
    std::fs::write(traces.join("X-1.swf"), "; empty log\n").unwrap();
    let out = tmp.path().join("o");
    slarm([
        "reproduce",
        "yigitbasi2010",
        "--scale",
        "quick",
        "--out",
        path(&out),
    ])
    .env("SLARM_TRACES", &traces)
    .assert()
    .success();
    let run: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("yigitbasi2010/run.json")).unwrap())
            .unwrap();
    // yigitbasi2010 reads no PWA trace (its background is synthetic), so X-1.swf, although in
    // the folder, is not listed; the engine test `run_json_lists_only_the_traces_the_paper_reads`
    // checks the SHA-256 of a trace that a paper does read.
    assert_eq!(run["trace_sha256"], serde_json::json!({}), "{run}");
    assert_eq!(run["traces"], path(&traces));
}

#[test]
fn a_background_trace_runs_section_six_on_it_and_is_part_of_the_configuration() {
    let tmp = tempfile::tempdir().unwrap();
    // A small GWF file written here (no real data): 400 jobs of 2 processors and 1 h, one every
    // 30 s from 2008-06-01 (Unix time), over the clusters fs0-fs4.
    let tail = "UNITARY -1 -1 -1 -1 linux -1 -1 -1 vo1 -1";
    let text: String = (0..400)
        .map(|i| {
            format!(
                "{} {} 0 3600 2 -1 -1 2 3600 -1 1 1 1 1 1 -1 fs{} -1 {tail}\n",
                i + 1,
                1_212_278_400 + 30 * i,
                i % 5
            )
        })
        .collect();
    let gwf = tmp.path().join("small.gwf");
    std::fs::write(&gwf, text).unwrap();
    let out = tmp.path().join("o");
    let base = [
        "reproduce",
        "yigitbasi2010",
        "--scale",
        "quick",
        "--out",
        path(&out),
    ];
    let mut with = base.to_vec();
    with.extend_from_slice(&["--background", path(&gwf)]);
    slarm(&with).assert().success();
    let read = |f: &str| std::fs::read_to_string(out.join("yigitbasi2010").join(f)).unwrap();
    let run: serde_json::Value = serde_json::from_str(&read("run.json")).unwrap();
    assert_eq!(run["background"], path(&gwf));
    assert_eq!(run["background_sha256"].as_str().map(str::len), Some(64));
    let table3: serde_json::Value = serde_json::from_str(&read("table3.json")).unwrap();
    assert!(
        table3["title"]
            .as_str()
            .is_some_and(|t| t.ends_with("[background: trace small.gwf]")),
        "{}",
        table3["title"]
    );
    assert!(read("table6-variants.csv").contains("trace small.gwf"));
    assert!(read("table6.json").contains("[background: none (§VII)]"));
    // Resuming without the file, or with other contents, is another configuration.
    let mut resume = base.to_vec();
    resume.push("--resume");
    slarm(&resume)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("another configuration"));
    std::fs::write(&gwf, "# emptied\n").unwrap();
    with.push("--resume");
    slarm(&with)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("another configuration"));
}

#[test]
fn bad_input_exits_2_with_one_line() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("o");
    let o = path(&out);
    let missing = tmp.path().join("nope");
    for (args, names) in [
        (vec!["reproduce", "nosuchpaper", "--out", o], "nosuchpaper"),
        (vec!["reproduce", "--scale", "huge", "--out", o], "huge"),
        (vec!["reproduce", "--shard", "4/3", "--out", o], "4/3"),
        (vec!["reproduce", "--shard", "x", "--out", o], "--shard"),
        (vec!["reproduce", "--jobs", "0", "--out", o], "--jobs"),
        (
            vec!["reproduce", "--traces", path(&missing), "--out", o],
            "nope",
        ),
        (vec!["merge", "--out", o, path(&missing)], "nope"),
        (
            vec!["reproduce", "--background", path(&missing), "--out", o],
            "--background",
        ),
    ] {
        slarm(&args)
            .assert()
            .code(2)
            .stderr(one_line().and(predicate::str::contains(names)));
    }
    // A merge that misses a shard names the missing cell.
    let shard = tmp.path().join("s1");
    slarm([
        "reproduce",
        "yigitbasi2010",
        "--scale",
        "quick",
        "--shard",
        "1/2",
        "--out",
        path(&shard),
    ])
    .assert()
    .success();
    slarm(["merge", "--out", o, path(&shard)])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no shard holds cell"));
}
