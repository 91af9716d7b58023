//! CLI tests of `slarm trace stats` and `slarm simulate` (design.md §4): JSON fields, the
//! schedule CSV, and exit code 2 with a message naming the line for bad input.

#![allow(clippy::unwrap_used)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const GOOD: &str = "; MaxProcs: 8\n\
1 0 -1 100 4 -1 -1 4 100 -1 1 -1 -1 -1 -1 -1 -1 -1\n\
2 1 -1 50 6 -1 -1 6 50 -1 1 -1 -1 -1 -1 -1 -1 -1\n\
3 2 -1 90 4 -1 -1 4 90 -1 1 -1 -1 -1 -1 -1 -1 -1\n\
4 3 -1 0 4 -1 -1 4 90 -1 5 -1 -1 -1 -1 -1 -1 -1\n";

fn slarm(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_slarm"))
        .args(args)
        .output()
        .unwrap()
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let p = dir.join(name);
    std::fs::File::create(&p).unwrap().write_all(bytes).unwrap();
    p
}

fn json(out: &Output) -> serde_json::Value {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn trace_stats_reports_counts() {
    let dir = tempfile::tempdir().unwrap();
    let f = write(dir.path(), "t.swf", GOOD.as_bytes());
    let v = json(&slarm(&["trace", "stats", f.to_str().unwrap(), "--json"]));
    assert_eq!(v["jobs"], 3);
    assert_eq!(v["dropped"], 1);
    assert_eq!(v["skipped_lines"], 0);
    assert_eq!(v["max_procs"], 8);
    assert_eq!(v["span_s"], 2.0);
    // Lenient mode skips a malformed line and counts it.
    let bad = format!("{GOOD}5 6 7\n");
    let f = write(dir.path(), "b.swf", bad.as_bytes());
    let v = json(&slarm(&[
        "--json",
        "trace",
        "stats",
        f.to_str().unwrap(),
        "--lenient",
    ]));
    assert_eq!(v["skipped_lines"], 1);
}

#[test]
fn simulate_easy_backfills_and_writes_csv() {
    let dir = tempfile::tempdir().unwrap();
    let f = write(dir.path(), "t.swf", GOOD.as_bytes());
    let csv = dir.path().join("s.csv");
    let v = json(&slarm(&[
        "simulate",
        "--trace",
        f.to_str().unwrap(),
        "--policy",
        "easy",
        "--schedule-out",
        csv.to_str().unwrap(),
        "--json",
    ]));
    assert_eq!(v["jobs"], 3);
    // Job 2 waits for job 1 (starts 100); job 3 backfills at 2 and ends at 92 <= 100.
    assert_eq!(v["mean_wait_s"], (0.0 + 99.0 + 0.0) / 3.0);
    assert_eq!(v["makespan_s"], 150.0);
    let text = std::fs::read_to_string(&csv).unwrap();
    assert_eq!(
        text,
        "job_id,submit,start,end,procs\n1,0,0,100,4\n2,1,100,150,6\n3,2,2,92,4\n"
    );
    for policy in ["fcfs", "conservative"] {
        let v = json(&slarm(&[
            "simulate",
            "--trace",
            f.to_str().unwrap(),
            "--policy",
            policy,
            "--json",
        ]));
        assert_eq!(v["jobs"], 3);
        assert!(v["utilization"].as_f64().unwrap() <= 1.0);
        assert!(v["mean_bounded_slowdown"].as_f64().unwrap() >= 1.0);
    }
}

fn expect_bad(args: &[&str], needle: &str) {
    let out = slarm(args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert!(err.contains(needle), "{args:?}: {err:?} lacks {needle:?}");
    assert!(!err.contains("panicked"));
}

#[test]
fn bad_input_exits_2_naming_the_line() {
    let dir = tempfile::tempdir().unwrap();
    let trunc = write(dir.path(), "trunc.swf", format!("{GOOD}5 6 7").as_bytes());
    let nonnum = write(
        dir.path(),
        "nn.swf",
        GOOD.replace("2 1 -1 50", "2 1 -1 5x0").as_bytes(),
    );
    let empty = write(dir.path(), "empty.swf", b"");
    let junk = write(dir.path(), "junk.swf", &[0u8, 159, 146, 150, 10, 255, 254]);
    let mut gz = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3];
    gz.extend_from_slice(&[0xde, 0xad, 0xbe, 0xef, 1, 2, 3]);
    let corrupt = write(dir.path(), "c.swf.gz", &gz);
    // A gzip member holding GOOD in one stored (uncompressed) deflate block, cut in the
    // middle of line 3: the decoder fails after two complete lines.
    let mut stored = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff, 0x01];
    let len = GOOD.len() as u16;
    stored.extend_from_slice(&len.to_le_bytes());
    stored.extend_from_slice(&(!len).to_le_bytes());
    let cut = GOOD.match_indices('\n').nth(2).unwrap().0 + 5;
    stored.extend_from_slice(&GOOD.as_bytes()[..cut]);
    let truncated_gz = write(dir.path(), "t.swf.gz", &stored);
    let header_only = write(dir.path(), "h.swf", b"; MaxProcs: 8\n; Note: no jobs\n");
    for cmd in [
        &["trace", "stats"][..],
        &["simulate", "--policy", "easy", "--trace"][..],
    ] {
        let run = |f: &Path, needle: &str| {
            let mut a: Vec<&str> = cmd.to_vec();
            a.push(f.to_str().unwrap());
            expect_bad(&a, needle);
        };
        run(&trunc, "line 6: field 4");
        run(&nonnum, "line 3: field 4");
        run(&empty, "no job lines");
        run(&junk, "line 1");
        run(&corrupt, "corrupt");
        run(&truncated_gz, "line 4: corrupt or truncated");
        run(&header_only, "no job lines");
        run(dir.path(), dir.path().to_str().unwrap());
        run(&dir.path().join("missing.swf"), "missing.swf");
    }
    expect_bad(
        &[
            "simulate",
            "--trace",
            trunc.to_str().unwrap(),
            "--policy",
            "easy",
            "--procs",
            "0",
        ],
        "--procs",
    );
}
