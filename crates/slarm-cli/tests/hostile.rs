//! Hostile values and surroundings that once panicked, hung, ran out of memory or gave a wrong
//! answer with exit code 0: each now ends with exit code 2 and one line naming the option (or
//! the file and job), before any work starts; output errors end quietly or with one line.
//! The whole option x value matrix runs against the release binary in `cargo xtask hostile`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Stdio;

use common::{one_line, slarm, stderr_of};
use predicates::prelude::*;

/// Runs `slarm ARGS`, which must exit with code 2 and one line on stderr holding every `want`.
fn refused(args: &[&str], want: &[&str]) {
    let a = slarm(args)
        .timeout(std::time::Duration::from_secs(60))
        .assert()
        .code(2);
    let err = stderr_of(&a);
    assert!(one_line().eval(&err), "not one line: {err}");
    for w in want {
        assert!(err.contains(w), "{args:?}: stderr lacks {w:?}: {err}");
    }
}

/// A small valid SWF trace of `n` jobs on 8 processors, the last submitted at `last_submit`.
fn swf(dir: &Path, n: usize, last_submit: &str) -> PathBuf {
    let mut text = String::from("; MaxProcs: 8\n; MaxNodes: 8\n");
    for i in 1..=n {
        let submit = if i == n {
            last_submit.to_string()
        } else {
            (i * 60).to_string()
        };
        text.push_str(&format!(
            "{i} {submit} 0 100 2 -1 -1 2 200 -1 1 1 1 -1 1 -1 -1 -1\n"
        ));
    }
    let path = dir.join("t.swf");
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn provision_refuses_tables_it_cannot_build_before_building_them() {
    refused(
        &["provision", "--heuristic", "h1", "--delta", "1e308"],
        &["--delta 1e308"],
    );
    refused(
        &["provision", "--heuristic", "h3", "--mean-service", "1e-308"],
        &["--mean-service 1e-308"],
    );
    // Validation allows p_max up to 1000, but p_max = 50 asks for 7.9e8 table evaluations.
    refused(
        &["provision", "--heuristic", "h3", "--p-max", "50"],
        &[
            "cost-table evaluations",
            "--p-max",
            "above the bound of 250000000",
        ],
    );
    refused(
        &["provision", "--heuristic", "h1", "--runs", "0"],
        &["--runs 0"],
    );
}

#[test]
fn sizes_that_would_exhaust_memory_are_refused_naming_the_option() {
    refused(
        &["grid", "--bots", "1000000000"],
        &["--bots 1000000000", "[1, 100000]"],
    );
    refused(
        &[
            "libra",
            "--trace",
            "absent.swf",
            "--policy",
            "libra",
            "--nodes",
            "4294967296",
        ],
        &["--nodes 4294967296"],
    );
    refused(
        &["overbook", "--trace", "absent.swf", "--procs", "1000000000"],
        &["--procs 1000000000"],
    );
}

#[test]
fn runs_that_would_never_end_are_refused() {
    refused(
        &[
            "grid",
            "--strategy",
            "dynamic",
            "--period",
            "1e-308",
            "--bots",
            "5",
        ],
        &["--period 1e-308"],
    );
    // A submit time of 1e11 s is a valid SWF integer; libra refuses it naming the job.
    let dir = tempfile::tempdir().unwrap();
    let t = swf(dir.path(), 20, "100000000000");
    refused(
        &[
            "libra",
            "--trace",
            t.to_str().unwrap(),
            "--policy",
            "libra",
            "--nodes",
            "8",
        ],
        &["job 20", "submit time 100000000000 s"],
    );
    refused(
        &[
            "queue",
            "simulate",
            "--servers",
            "200",
            "--class",
            "100:3:0.9",
            "--horizon",
            "100000000",
        ],
        &["simulated arrivals"],
    );
}

#[test]
fn sizing_by_simulation_bounds_its_number_of_simulations() {
    // Each simulation holds 1e9 arrivals, within the bound of one simulation; the sizing may
    // walk down from the FCFS size 22 (an SLA near its bound 1 - e^-0.5) to the stability
    // floor 11: 12 simulations.
    refused(
        &[
            "queue",
            "size",
            "--mu",
            "1",
            "--class",
            "10:0.5:0.3934",
            "--discipline",
            "hol",
            "--horizon",
            "100000000",
            "--replications",
            "1",
        ],
        &[
            "about 12000000000 simulated arrivals of the sizing",
            "12 sizes from 22 down to the stability floor 11",
            "above the bound of 10000000000",
        ],
    );
}

#[test]
fn zero_replications_are_an_error_not_a_met_sla() {
    refused(
        &[
            "queue",
            "simulate",
            "--servers",
            "3",
            "--class",
            "1:3:0.9",
            "--replications",
            "0",
        ],
        &["--replications 0"],
    );
}

#[test]
fn non_finite_and_out_of_range_real_values_are_refused() {
    refused(
        &["grid", "--trace-origin", "NaN", "--bots", "5"],
        &["--trace-origin NaN"],
    );
    refused(
        &["grid", "--trace-origin=-5", "--bots", "5"],
        &["--trace-origin -5"],
    );
}

/// A negative number as a separate word reaches slarm's own check, which names the
/// parameter, instead of clap's "unexpected argument".
#[test]
fn negative_values_as_separate_words_reach_slarm_checks() {
    for (args, want) in [
        (&["grid", "--load", "-1", "--bots", "5"][..], "load"),
        (
            &["grid", "--trace-origin", "-5", "--bots", "5"][..],
            "--trace-origin -5",
        ),
        (
            &[
                "queue",
                "cdf",
                "--lambda",
                "-inf",
                "--servers",
                "2",
                "--x",
                "1",
            ][..],
            "lambda",
        ),
        (
            &[
                "queue",
                "cdf",
                "--lambda",
                "1",
                "--servers",
                "2",
                "--x",
                "-inf",
            ][..],
            "--x -inf",
        ),
    ] {
        let a = slarm(args).assert().code(2);
        let err = stderr_of(&a);
        assert!(err.contains(want), "{args:?}: {err}");
        assert!(!err.contains("unexpected argument"), "{args:?}: {err}");
    }
}

/// Parser errors are one line too (no usage block), with exit code 2.
#[test]
fn parser_errors_are_one_line() {
    refused(&["grid", "--bots", "1e9"], &["--bots"]);
    refused(&["queue", "cdf", "--lambda", "1"], &["--servers"]);
    slarm(["--help"])
        .assert()
        .success()
        .stdout(predicate::str::contains("Usage"));
}

/// A 1 MB file of NUL bytes makes a short, escaped message, not a megabyte of stderr.
#[test]
fn binary_junk_makes_a_short_message() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("nul.swf");
    std::fs::write(&path, vec![0u8; 1 << 20]).unwrap();
    let a = slarm(["trace", "stats", path.to_str().unwrap()])
        .assert()
        .code(2);
    let err = stderr_of(&a);
    assert!(err.len() < 600, "{} bytes: {}", err.len(), &err[..600]);
    assert!(!err.contains('\0'));
}

/// A batch file whose output (about 150 KB) outgrows a pipe's buffer.
fn big_batch(dir: &Path) -> PathBuf {
    let mut text = String::from("lambda,mu,x,y\n");
    for i in 0..5000 {
        text.push_str(&format!("{},1,3,0.95\n", 1 + i % 50));
    }
    let path = dir.join("batch.csv");
    std::fs::write(&path, text).unwrap();
    path
}

/// Runs `slarm ARGS` with stdout on a pipe whose reader goes away after one byte.
fn after_the_reader_left(args: &[&str]) -> std::process::Output {
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_slarm"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let mut first = [0u8; 1];
    stdout.read_exact(&mut first).unwrap();
    drop(stdout);
    child.wait_with_output().unwrap()
}

/// `slarm ... | head -c 1`: the reader goes away; slarm ends quietly with status 141
/// (128 + SIGPIPE, what a shell reports for `yes | head -1`), nothing on stderr; the same for
/// a schedule written to standard output as `-` or `/dev/stdout`.
#[test]
fn a_closed_stdout_pipe_ends_quietly() {
    let dir = tempfile::tempdir().unwrap();
    let batch = big_batch(dir.path());
    let trace = swf(dir.path(), 5000, "300000");
    let trace = trace.to_str().unwrap();
    let schedule_to = |path| {
        vec![
            "simulate",
            "--trace",
            trace,
            "--policy",
            "easy",
            "--schedule-out",
            path,
        ]
    };
    for args in [
        vec!["queue", "size", "--batch", batch.to_str().unwrap()],
        schedule_to("-"),
        schedule_to("/dev/stdout"),
    ] {
        let out = after_the_reader_left(&args);
        assert_eq!(out.status.code(), Some(141), "{args:?}: {out:?}");
        assert!(
            out.stderr.is_empty(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// `--schedule-out /dev/stdout` into a pipe writes through the pipe (no temporary file beside
/// `/proc/self/fd/pipe:[N]`).
#[cfg(target_os = "linux")]
#[test]
fn a_schedule_to_dev_stdout_goes_through_a_pipe() {
    let dir = tempfile::tempdir().unwrap();
    let trace = swf(dir.path(), 50, "3000");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_slarm"))
        .args([
            "simulate",
            "--trace",
            trace.to_str().unwrap(),
            "--policy",
            "easy",
        ])
        .args(["--schedule-out", "/dev/stdout"])
        .stdout(Stdio::piped())
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    // The header and one row per job come first, then the summary table.
    assert!(text.lines().nth(50).is_some(), "{text}");
    assert!(text.starts_with("job_id,"), "{text}");
}

/// Writing to a full device is exit code 1 with one line, not a panic of `print!`.
#[cfg(target_os = "linux")]
#[test]
fn a_full_device_is_one_line_and_exit_code_1() {
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_slarm"))
        .args([
            "queue",
            "cdf",
            "--lambda",
            "1",
            "--servers",
            "2",
            "--x",
            "1",
        ])
        .stdout(full)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.starts_with("slarm: error: cannot write to standard output"),
        "{err}"
    );
    assert!(one_line().eval(&err), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}

/// `--schedule-out` on a FIFO writes into it (a reader gets the CSV) and leaves it a FIFO.
#[cfg(unix)]
#[test]
fn an_output_fifo_is_written_in_place() {
    use std::os::unix::fs::FileTypeExt;
    let dir = tempfile::tempdir().unwrap();
    let t = swf(dir.path(), 5, "400");
    let fifo = dir.path().join("schedule.csv");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read_to_string(fifo).unwrap())
    };
    slarm([
        "simulate",
        "--trace",
        t.to_str().unwrap(),
        "--policy",
        "fcfs",
        "--schedule-out",
        fifo.to_str().unwrap(),
    ])
    .timeout(std::time::Duration::from_secs(60))
    .assert()
    .success();
    let csv = reader.join().unwrap();
    assert!(csv.starts_with("job_id,submit,start,end,procs"), "{csv}");
    assert_eq!(csv.lines().count(), 6);
    assert!(std::fs::symlink_metadata(&fifo)
        .unwrap()
        .file_type()
        .is_fifo());
    let mut names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    names.sort();
    assert_eq!(names, ["schedule.csv", "t.swf"], "no temporary left");
}
