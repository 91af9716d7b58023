//! CLI tests of `slarm trace stats` and `slarm simulate`: JSON fields, the
//! schedule CSV, and exit code 2 with a message naming the line for bad input.

#![allow(clippy::unwrap_used)]

mod common;

use std::io::Write;
use std::path::{Path, PathBuf};

use common::{slarm, slarm_json, stderr_of};
use predicates::prelude::*;

const GOOD: &str = "; MaxProcs: 8\n\
1 0 -1 100 4 -1 -1 4 100 -1 1 -1 -1 -1 -1 -1 -1 -1\n\
2 1 -1 50 6 -1 -1 6 50 -1 1 -1 -1 -1 -1 -1 -1 -1\n\
3 2 -1 90 4 -1 -1 4 90 -1 1 -1 -1 -1 -1 -1 -1 -1\n\
4 3 -1 0 4 -1 -1 4 90 -1 5 -1 -1 -1 -1 -1 -1 -1\n";

/// The schedule CSV of GOOD under EASY.
const EASY_CSV: &str = "job_id,submit,start,end,procs\n1,0,0,100,4\n2,1,100,150,6\n3,2,2,92,4\n";

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let p = dir.join(name);
    std::fs::File::create(&p).unwrap().write_all(bytes).unwrap();
    p
}

#[test]
fn trace_stats_reports_counts() {
    let dir = tempfile::tempdir().unwrap();
    let f = write(dir.path(), "t.swf", GOOD.as_bytes());
    let v = slarm_json(["trace", "stats", f.to_str().unwrap(), "--json"]);
    assert_eq!(v["jobs"], 3);
    assert_eq!(v["dropped"], 1);
    assert_eq!(v["skipped_lines"], 0);
    assert_eq!(v["max_procs"], 8);
    assert_eq!(v["span_s"], 2.0);
    // Lenient mode skips a malformed line and counts it.
    let bad = format!("{GOOD}5 6 7\n");
    let f = write(dir.path(), "b.swf", bad.as_bytes());
    let v = slarm_json(["--json", "trace", "stats", f.to_str().unwrap(), "--lenient"]);
    assert_eq!(v["skipped_lines"], 1);
}

#[test]
fn simulate_easy_backfills_and_writes_csv() {
    let dir = tempfile::tempdir().unwrap();
    let f = write(dir.path(), "t.swf", GOOD.as_bytes());
    let csv = dir.path().join("s.csv");
    let v = slarm_json([
        "simulate",
        "--trace",
        f.to_str().unwrap(),
        "--policy",
        "easy",
        "--schedule-out",
        csv.to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(v["jobs"], 3);
    // Job 2 waits for job 1 (starts 100); job 3 backfills at 2 and ends at 92 <= 100.
    assert_eq!(v["mean_wait_s"], (0.0 + 99.0 + 0.0) / 3.0);
    assert_eq!(v["makespan_s"], 150.0);
    let text = std::fs::read_to_string(&csv).unwrap();
    assert_eq!(text, EASY_CSV);
    for policy in ["fcfs", "conservative"] {
        let v = slarm_json([
            "simulate",
            "--trace",
            f.to_str().unwrap(),
            "--policy",
            policy,
            "--json",
        ]);
        assert_eq!(v["jobs"], 3);
        assert!(v["utilization"].as_f64().unwrap() <= 1.0);
        assert!(v["mean_bounded_slowdown"].as_f64().unwrap() >= 1.0);
    }
}

/// The schedule CSV and the progress lines of `slarm simulate --policy POLICY` on `trace`,
/// on `threads` threads.
fn schedule_and_progress(
    dir: &Path,
    trace: &Path,
    policy: &str,
    extra: &[&str],
    threads: &str,
) -> (String, String) {
    let out = dir.join(format!("{policy}.csv").replace(':', "-"));
    let mut cmd = slarm(["simulate", "--progress", "--policy", policy, "--trace"]);
    cmd.arg(trace).arg("--schedule-out").arg(&out).args(extra);
    cmd.env("RAYON_NUM_THREADS", threads);
    let progress = stderr_of(&cmd.assert().success());
    (std::fs::read_to_string(&out).unwrap(), progress)
}

#[test]
fn a_log_simulated_while_read_has_the_schedule_of_a_run_after_reading() {
    let dir = tempfile::tempdir().unwrap();
    let lines: Vec<&str> = GOOD.lines().collect();
    // In queue order, with a job the drop rules drop (job 4, run time 0): simulated while
    // read, job 4 left out.
    let in_order = write(dir.path(), "in-order.swf", GOOD.as_bytes());
    // Jobs 2 and 3 out of submit order: simulated after reading. No header, the machine
    // size given by --procs: simulated while read.
    let swapped = [lines[0], lines[1], lines[3], lines[2], lines[4]].join("\n");
    let swapped = write(dir.path(), "swapped.swf", swapped.as_bytes());
    let sizeless = write(dir.path(), "sizeless.swf", lines[1..].join("\n").as_bytes());
    // On one thread every policy is simulated while read; on two, the policies that plan
    // every waiting job are simulated after reading, split at idle instants.
    for policy in ["easy", "conservative", "fcfs", "backfill:1", "backfill:4"] {
        let (streamed, progress) = schedule_and_progress(dir.path(), &in_order, policy, &[], "1");
        assert!(
            progress.contains("simulated while the log was read (3 jobs)"),
            "{progress}"
        );
        let (schedule, progress) = schedule_and_progress(dir.path(), &in_order, policy, &[], "2");
        let plans = policy == "conservative" || policy == "backfill:4";
        let expected = if plans {
            "started (3 jobs)"
        } else {
            "simulated while"
        };
        assert!(progress.contains(expected), "{policy}: {progress}");
        assert_eq!(schedule, streamed, "{policy}");
        for (after, procs) in [(&swapped, None), (&sizeless, Some("8"))] {
            let extra: Vec<&str> = procs.into_iter().flat_map(|p| ["--procs", p]).collect();
            let (schedule, progress) =
                schedule_and_progress(dir.path(), after, policy, &extra, "1");
            let expected = if procs.is_some() {
                "simulated while"
            } else {
                "started (3 jobs)"
            };
            assert!(progress.contains(expected), "{progress}");
            assert_eq!(schedule, streamed, "{policy}");
        }
        if policy == "easy" {
            assert_eq!(streamed, EASY_CSV);
        }
    }
}

/// A log of `days` busy days, 2,000 jobs each 30 s apart on 64 processors (more work than
/// the machine does while they arrive, hours of waiting), each drained in a quiet night, as
/// SWF lines.
fn busy_days(days: u32) -> String {
    let mut swf = String::from("; MaxProcs: 64\n");
    for k in 0..days * 2000 {
        let submit = (k / 2000) * 86_400 + (k % 2000) * 30;
        let (run, procs) = (60 + (k * 37) % 600, 1 + (k * 13) % 12);
        let req = run + (k * 7) % 300;
        swf.push_str(&format!(
            "{} {submit} -1 {run} {procs} -1 -1 {procs} {req} -1 1 -1 -1 -1 -1 -1 -1 -1\n",
            k + 1
        ));
    }
    swf
}

#[test]
fn a_log_simulated_in_parts_has_the_schedule_of_one_run() {
    // 30,000 jobs: three parts of 10,000 on two threads, cut where the machine is idle
    // (EASY is simulated while read, the others in parts).
    let dir = tempfile::tempdir().unwrap();
    let log = write(dir.path(), "busy.swf", busy_days(15).as_bytes());
    for policy in ["conservative", "backfill:4", "easy"] {
        let (one, _) = schedule_and_progress(dir.path(), &log, policy, &[], "1");
        let (parts, progress) = schedule_and_progress(dir.path(), &log, policy, &[], "2");
        assert_eq!(one.lines().count(), 30_001, "{policy}");
        assert_eq!(parts, one, "{policy}: {progress}");
    }
}

fn expect_bad(args: &[&str], needle: &str) {
    slarm(args)
        .assert()
        .code(2)
        .stderr(predicate::str::contains(needle).and(predicate::str::contains("panicked").not()));
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

/// `slarm simulate` on GOOD under EASY with `--schedule-out OUT`.
fn simulate_to(trace: &Path, out: &Path) -> assert_cmd::Command {
    let mut cmd = slarm(["simulate", "--policy", "easy", "--json", "--trace"]);
    cmd.arg(trace).arg("--schedule-out").arg(out);
    cmd
}

/// The names in `dir` that look like a writer's temporary file.
fn temporaries(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".tmp"))
        .collect()
}

#[cfg(unix)]
#[test]
fn schedule_out_through_a_symlink_updates_the_target_and_keeps_the_link() {
    let dir = tempfile::tempdir().unwrap();
    let f = write(dir.path(), "t.swf", GOOD.as_bytes());
    let target = write(dir.path(), "target.csv", b"old\n");
    let link = dir.path().join("link.csv");
    std::os::unix::fs::symlink("target.csv", &link).unwrap();
    simulate_to(&f, &link).assert().success();
    let meta = std::fs::symlink_metadata(&link).unwrap();
    assert!(meta.file_type().is_symlink(), "the link was replaced");
    assert_eq!(std::fs::read_link(&link).unwrap(), Path::new("target.csv"));
    assert_eq!(std::fs::read_to_string(&target).unwrap(), EASY_CSV);
    assert!(temporaries(dir.path()).is_empty());
}

#[cfg(unix)]
#[test]
fn schedule_out_to_dev_null_leaves_a_character_device() {
    use std::os::unix::fs::FileTypeExt;
    let dir = tempfile::tempdir().unwrap();
    let f = write(dir.path(), "t.swf", GOOD.as_bytes());
    simulate_to(&f, Path::new("/dev/null")).assert().success();
    let meta = std::fs::metadata("/dev/null").unwrap();
    assert!(meta.file_type().is_char_device());
    // `-` is stdout: the CSV, then the JSON object.
    slarm([
        "simulate",
        "--trace",
        f.to_str().unwrap(),
        "--policy",
        "easy",
        "--schedule-out",
        "-",
    ])
    .assert()
    .success()
    .stdout(predicate::str::starts_with(EASY_CSV));
}

#[cfg(unix)]
#[test]
fn schedule_out_to_a_fifo_delivers_the_bytes() {
    use std::io::Read;
    use std::os::unix::fs::FileTypeExt;
    let dir = tempfile::tempdir().unwrap();
    let f = write(dir.path(), "t.swf", GOOD.as_bytes());
    let fifo = dir.path().join("schedule.fifo");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || {
            let mut text = String::new();
            std::fs::File::open(&fifo)
                .unwrap()
                .read_to_string(&mut text)
                .unwrap();
            text
        })
    };
    simulate_to(&f, &fifo)
        .timeout(std::time::Duration::from_secs(60))
        .assert()
        .success();
    // Checked before joining: a writer that replaced the FIFO would leave the reader blocked.
    assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo());
    assert_eq!(reader.join().unwrap(), EASY_CSV);
    assert!(temporaries(dir.path()).is_empty());
}

#[test]
fn schedule_out_into_a_missing_folder_fails_in_one_line_and_leaves_no_temporary() {
    let dir = tempfile::tempdir().unwrap();
    let f = write(dir.path(), "t.swf", GOOD.as_bytes());
    let out = dir.path().join("missing").join("s.csv");
    let a = simulate_to(&f, &out)
        .assert()
        .code(predicate::in_iter([1, 2]))
        .stderr(predicate::str::contains("s.csv").and(common::one_line()));
    assert!(stderr_of(&a).contains("--schedule-out"));
    assert!(!out.exists());
    assert!(
        temporaries(dir.path()).is_empty(),
        "{:?}",
        temporaries(dir.path())
    );
    // A folder given as the output is refused the same way, and stays a folder.
    let sub = dir.path().join("sub");
    std::fs::create_dir(&sub).unwrap();
    simulate_to(&f, &sub)
        .assert()
        .code(predicate::in_iter([1, 2]))
        .stderr(common::one_line());
    assert!(sub.is_dir());
    assert!(temporaries(dir.path()).is_empty());
}

/// `--report DIR` writes the page and its figures; the page shows the summary, the command
/// and one Gantt chart per policy, in the window given.
#[test]
fn simulate_report_writes_the_page_and_its_figures() {
    let dir = tempfile::tempdir().unwrap();
    let trace = write(dir.path(), "good.swf", GOOD.as_bytes());
    let out = dir.path().join("rep");
    slarm::<[&str; 0], &str>([])
        .args(["simulate", "--trace"])
        .arg(&trace)
        .args([
            "--policy",
            "easy,fcfs",
            "--gantt-window",
            "0:200",
            "--report",
        ])
        .arg(&out)
        .assert()
        .success()
        // Not a terminal and no --progress: stderr stays quiet.
        .stderr("");
    let mut files: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    assert_eq!(
        files,
        [
            "gantt-1.svg",
            "gantt-2.svg",
            "index.html",
            "slowdown-runtime.svg",
            "slowdown-width.svg",
            "utilisation.svg",
            "wait-cdf.svg",
            "waiting-jobs.svg",
            "waiting-procs.svg"
        ]
    );
    let html = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(html.contains("<td>easy</td>") && html.contains("<td>fcfs</td>"));
    assert!(html.contains("--gantt-window 0:200"), "the command line");
    assert!(html.contains("Window 0 s (0.00 h) to 200 s (0.06 h): the window given"));
    // EASY: jobs 1 (0-100, 4 procs), 3 (2-92) and 2 (100-150) run in the window.
    assert!(html.contains("easy: 3 jobs running in the window"));
    for f in &files {
        assert!(std::fs::metadata(out.join(f)).unwrap().len() > 1000, "{f}");
    }
    // --progress: one start and one end line per policy, stdout as without it.
    let plain = slarm::<[&str; 0], &str>([])
        .args(["simulate", "--trace"])
        .arg(&trace)
        .args(["--policy", "easy,fcfs"])
        .output()
        .unwrap();
    let with = slarm::<[&str; 0], &str>([])
        .args(["simulate", "--progress", "--trace"])
        .arg(&trace)
        .args(["--policy", "easy,fcfs", "--report"])
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(plain.stdout, with.stdout);
    let err = String::from_utf8(with.stderr).unwrap();
    // The first policy was simulated while the log was read, the second after it.
    assert_eq!(
        err.matches("simulated while the log was read").count(),
        1,
        "{err}"
    );
    assert_eq!(err.matches("started").count(), 1, "{err}");
    assert_eq!(err.matches(": done in ").count(), 2, "{err}");
    // Default window: the busiest day, said so on the page.
    let html = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(html.contains("the busiest day"));
}

/// Bad `--gantt-window` values and a file as DIR: exit 2, one line naming the value, and
/// nothing written or destroyed.
#[test]
fn simulate_report_refuses_bad_input() {
    let dir = tempfile::tempdir().unwrap();
    let trace = write(dir.path(), "good.swf", GOOD.as_bytes());
    let out = dir.path().join("rep");
    for (window, why) in [
        ("5:3", "--gantt-window 5:3: END is not after START"),
        ("-1:2", "--gantt-window -1:2: START is negative"),
        ("text", "--gantt-window text: no ':'"),
        ("a:b", "--gantt-window a:b: not two numbers"),
        (
            "1e9:2e9",
            "--gantt-window 1e9:2e9: starts after the schedule ends (150 s)",
        ),
    ] {
        let o = slarm::<[&str; 0], &str>([])
            .args(["simulate", "--trace"])
            .arg(&trace)
            .args(["--policy", "easy", "--gantt-window", window, "--report"])
            .arg(&out)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2), "{window}");
        let err = String::from_utf8_lossy(&o.stderr).into_owned();
        assert!(err.contains(why), "{window}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        assert!(!out.exists(), "{window}: nothing written");
    }
    // --gantt-window needs --report.
    slarm::<[&str; 0], &str>([])
        .args(["simulate", "--trace"])
        .arg(&trace)
        .args(["--policy", "easy", "--gantt-window", "0:10"])
        .assert()
        .code(2);
    // A file where the folder should be is refused and kept.
    let file = write(dir.path(), "taken", b"keep");
    let o = slarm::<[&str; 0], &str>([])
        .args(["simulate", "--trace"])
        .arg(&trace)
        .args(["--policy", "easy", "--report"])
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("exists and is not a folder"));
    assert_eq!(std::fs::read(&file).unwrap(), b"keep");
}
