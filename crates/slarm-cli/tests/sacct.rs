//! CLI tests of Slurm accounting input: a sacct file written here is imported into an SWF
//! equal to one computed by hand, simulated under every policy from the sacct file itself and
//! from the imported SWF (same figures), and its schedules checked; bad lines are refused with
//! file, line and column (exit 2, one line), or skipped and counted with `--lenient`.

#![allow(clippy::unwrap_used)]

mod common;

use common::{json_of, one_line, slarm, slarm_json, stderr_of};

/// Columns in an order of their own, with two sacct does not need here (`AveRSS`,
/// `Account`) that the reader must ignore.
const SACCT: &str = "\
JobIDRaw|Account|Submit|Eligible|Start|End|Elapsed|TimelimitRaw|NCPUS|NNodes|ReqCPUS|State|Partition|User|Group|AveRSS
500|a1|2024-05-01T08:00:00|2024-05-01T08:00:00|2024-05-01T08:00:00|2024-05-01T09:00:00|01:00:00|90|8|1|8|COMPLETED|batch|alice|phys|1K
501_1|a1|2024-05-01T08:00:30|2024-05-01T08:00:30|2024-05-01T08:01:00|2024-05-01T08:11:00|00:10:00|20|4|1|4|COMPLETED|batch|bob|chem|1K
501_2|a1|2024-05-01T08:00:30|2024-05-01T08:00:30|2024-05-01T08:01:00|2024-05-01T08:03:00|00:02:00|20|4|1|4|FAILED|batch|bob|chem|1K
502+0|a2|2024-05-01T08:01:00|2024-05-01T08:01:00|2024-05-01T08:11:00|2024-05-01T09:11:00|01:00:00|60|8|2|6|TIMEOUT|long|carol|phys|1K
503|a2|2024-05-01T08:02:00|2024-05-01T08:30:00|2024-05-01T08:30:00|2024-05-01T08:35:00|00:05:00|UNLIMITED|2|1|2|CANCELLED by 1001|batch|alice|phys|1K
504|a1|2024-05-01T08:03:00|Unknown|None|2024-05-01T08:04:00|00:00:00|30|0|0|16|CANCELLED by 1002|batch|dave|bio|
505_[3-9%2]|a1|2024-05-01T08:04:00|2024-05-01T08:04:00|Unknown|Unknown|00:00:00|15|0|1|4|PENDING|debug|bob|chem|
";

/// The SWF computed by hand from the mapping in docs/cli.md: arrival = max(Submit,
/// Eligible) - 08:00:00 (503 arrives at 1800 s, last), wait = Start - arrival, run time =
/// Elapsed, processors = NCPUS (ReqCPUS for the jobs that never started), requested time =
/// TimelimitRaw * 60, status 1/0/5, users alice 1, bob 2, carol 3, dave 4; groups phys 1,
/// chem 2, bio 3; partitions batch 1, long 2, debug 3. MaxProcs: the most in use at once, 8 +
/// 8 + 2 from 1800 s to 2100 s = 18 (8 + 4 + 4 = 16 from 60 s to 180 s).
const SWF: &str = "\
; Version: 2.2
; Note: converted by slarm from Slurm accounting records (sacct)
; UnixStartTime: 1714550400
; TimeZoneString: UTC
; MaxJobs: 7
; MaxRecords: 7
; MaxProcs: 18
1 0 0 3600 8 -1 -1 8 5400 -1 1 1 1 -1 -1 1 -1 -1
2 30 30 600 4 -1 -1 4 1200 -1 1 2 2 -1 -1 1 -1 -1
3 30 30 120 4 -1 -1 4 1200 -1 0 2 2 -1 -1 1 -1 -1
4 60 600 3600 8 -1 -1 8 3600 -1 0 3 1 -1 -1 2 -1 -1
5 180 -1 -1 -1 -1 -1 16 1800 -1 5 4 3 -1 -1 1 -1 -1
6 240 -1 -1 -1 -1 -1 4 900 -1 -1 2 2 -1 -1 3 -1 -1
7 1800 0 300 2 -1 -1 2 -1 -1 5 1 1 -1 -1 1 -1 -1
";

fn write(dir: &std::path::Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

#[test]
fn a_sacct_file_imports_to_the_hand_computed_swf() {
    let dir = tempfile::tempdir().unwrap();
    let sacct = write(dir.path(), "site.sacct", SACCT);
    let swf = dir.path().join("site.swf").display().to_string();
    let j = slarm_json([
        "--json", "trace", "import", "--from", "sacct", &sacct, "--out", &swf,
    ]);
    assert_eq!(std::fs::read_to_string(&swf).unwrap(), SWF);
    assert_eq!(j["lines"], 7);
    assert_eq!(j["jobs"], 5);
    assert_eq!(j["dropped"]["not_run_cancelled"], 1);
    assert_eq!(j["dropped"]["not_run_pending"], 1);
    assert_eq!(j["skipped_lines"], 0);
    assert_eq!(j["max_procs"], 18);
    // A zone shifts the origin only (every time is in the same zone).
    let j = slarm_json([
        "--json",
        "trace",
        "import",
        "--from",
        "sacct",
        &sacct,
        "--out",
        &swf,
        "--tz",
        "America/New_York",
        "--procs",
        "32",
    ]);
    assert_eq!(j["unix_start_time"], 1_714_550_400 + 4 * 3600);
    let text = std::fs::read_to_string(&swf).unwrap();
    assert!(text.contains("; MaxProcs: 32\n"), "{text}");
    let jobs_of = |t: &str| {
        t.lines()
            .filter(|l| !l.starts_with(';'))
            .map(str::to_owned)
            .collect::<Vec<_>>()
    };
    assert_eq!(jobs_of(&text), jobs_of(SWF));
}

#[test]
fn a_sacct_file_is_simulated_and_checked_like_its_swf() {
    let dir = tempfile::tempdir().unwrap();
    let sacct = write(dir.path(), "site.sacct", SACCT);
    let swf = write(dir.path(), "site.swf", SWF);
    for policy in ["fcfs", "easy", "conservative"] {
        let csv = dir
            .path()
            .join(format!("{policy}.csv"))
            .display()
            .to_string();
        let from_sacct = slarm_json([
            "--json",
            "simulate",
            "--trace",
            &sacct,
            "--format",
            "sacct",
            "--policy",
            policy,
            "--schedule-out",
            &csv,
        ]);
        let from_swf = slarm_json(["--json", "simulate", "--trace", &swf, "--policy", policy]);
        assert_eq!(from_sacct["jobs"], 5, "{policy}");
        assert_eq!(from_sacct["dropped"], 2, "{policy}");
        for k in [
            "mean_wait_s",
            "max_wait_s",
            "mean_bounded_slowdown",
            "utilization",
            "makespan_s",
        ] {
            assert_eq!(from_sacct[k], from_swf[k], "{policy} {k}");
        }
        let check = slarm_json([
            "--json",
            "check-schedule",
            "--trace",
            &sacct,
            "--format",
            "sacct",
            "--schedule",
            &csv,
            "--contract",
            policy,
        ]);
        assert_eq!(check["violations"], 0, "{policy}: {check}");
        assert_eq!(check["rows"], 5);
    }
    let stats = slarm_json(["--json", "trace", "stats", &sacct, "--format", "sacct"]);
    assert_eq!(stats["jobs"], 5);
    assert_eq!(stats["dropped_by_reason"]["runtime_nonpositive"], 2);
    assert_eq!(stats["max_procs"], 18);
    assert_eq!(stats["time_zone"], "UTC");
}

#[test]
fn bad_lines_name_file_line_and_column() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.swf").display().to_string();
    for (from, to, column) in [
        ("|01:00:00|90|", "|an hour|90|", "Elapsed"),
        ("|COMPLETED|batch|alice", "|DONE|batch|alice", "State"),
        (
            "2024-05-01T08:00:00|2024-05-01T08:00:00|2024-05-01T08:00:00|",
            "2024-05-01 8h|2024-05-01T08:00:00|2024-05-01T08:00:00|",
            "Submit",
        ),
        ("|90|8|1|8|", "|ninety|8|1|8|", "TimelimitRaw"),
        ("|90|8|1|8|", "|90|eight|1|8|", "NCPUS"),
        ("500|a1", "5x0|a1", "JobIDRaw"),
    ] {
        let text = SACCT.replacen(from, to, 1);
        assert_ne!(text, SACCT, "{from}");
        let sacct = write(dir.path(), "bad.sacct", &text);
        let a = slarm(["trace", "import", "--from", "sacct", &sacct, "--out", &out])
            .assert()
            .code(2)
            .stderr(one_line());
        let err = stderr_of(&a);
        assert!(
            err.starts_with(&format!("slarm: error: {sacct}: line 2: column {column}: ")),
            "{err}"
        );
        for cmd in [
            vec![
                "simulate", "--trace", &sacct, "--format", "sacct", "--policy", "easy",
            ],
            vec!["trace", "stats", &sacct, "--format", "sacct"],
        ] {
            let a = slarm(&cmd).assert().code(2).stderr(one_line());
            assert!(
                stderr_of(&a).contains(&format!("line 2: column {column}")),
                "{cmd:?}"
            );
        }
        let a = slarm([
            "--json",
            "trace",
            "import",
            "--from",
            "sacct",
            &sacct,
            "--out",
            &out,
            "--lenient",
        ])
        .assert()
        .success();
        let j = json_of(&a);
        assert_eq!(
            (j["lines"].as_u64(), j["skipped_lines"].as_u64()),
            (Some(6), Some(1))
        );
    }
    let sacct = write(dir.path(), "site.sacct", SACCT);
    for (args, says) in [
        (vec!["--tz", "Mars/Base"], "--tz Mars/Base: "),
        (vec!["--tz", "+99:00"], "--tz +99:00: "),
        (vec!["--procs", "0"], "--procs must be at least 1"),
    ] {
        let mut cmd = vec!["trace", "import", "--from", "sacct", &sacct, "--out", &out];
        cmd.extend(args);
        let a = slarm(&cmd).assert().code(2).stderr(one_line());
        assert!(stderr_of(&a).contains(says), "{}", stderr_of(&a));
    }
    let header_only = write(
        dir.path(),
        "empty.sacct",
        "JobIDRaw|Submit|Start|Elapsed|NCPUS|State\n",
    );
    slarm([
        "trace",
        "import",
        "--from",
        "sacct",
        &header_only,
        "--out",
        &out,
    ])
    .assert()
    .code(2)
    .stderr(predicates::str::contains("no job lines"));
    let swf_as_sacct = write(dir.path(), "x.swf", SWF);
    let a = slarm(["trace", "stats", &swf_as_sacct, "--format", "sacct"])
        .assert()
        .code(2)
        .stderr(one_line());
    assert!(
        stderr_of(&a).contains("line 1: column"),
        "{}",
        stderr_of(&a)
    );
}

/// Several policies in one run: one JSON object with the trace's fields once and a row per
/// policy in the order given; `backfill:1` is EASY's row and `backfill:all` conservative's;
/// one policy keeps the single-policy object; bad lists are refused naming the value.
#[test]
fn several_policies_make_one_table() {
    let dir = tempfile::tempdir().unwrap();
    let swf = write(dir.path(), "site.swf", SWF);
    let j = slarm_json([
        "--json",
        "simulate",
        "--trace",
        &swf,
        "--procs",
        "12",
        "--policy",
        "easy,backfill:1,conservative,backfill:all,backfill:0,fcfs",
    ]);
    let rows = j["policies"].as_array().unwrap();
    let names: Vec<&str> = rows.iter().map(|r| r["policy"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        [
            "easy",
            "backfill:1",
            "conservative",
            "backfill:all",
            "backfill:0",
            "fcfs"
        ]
    );
    let figures = |r: &serde_json::Value| {
        let mut r = r.clone();
        r.as_object_mut().unwrap().remove("policy");
        r
    };
    assert_eq!(figures(&rows[0]), figures(&rows[1]));
    assert_eq!(figures(&rows[2]), figures(&rows[3]));
    assert_eq!(
        (j["jobs"].as_u64(), j["procs"].as_u64()),
        (Some(5), Some(12))
    );
    assert!(j.get("policy").is_none());
    let one = slarm_json([
        "--json",
        "simulate",
        "--trace",
        &swf,
        "--policy",
        "backfill:4",
    ]);
    assert_eq!(one["policy"], "backfill:4");
    assert!(one.get("policies").is_none() && one["mean_wait_s"].is_number());
    for (list, says) in [
        ("easy,sjf", "unknown policy sjf"),
        ("backfill:-1", "unknown policy backfill:-1"),
        ("backfill:1000001", "unknown policy backfill:1000001"),
        ("easy,EASY", "easy is named twice"),
        ("", "unknown policy ``"),
    ] {
        let a = slarm(["simulate", "--trace", &swf, "--policy", list])
            .assert()
            .code(2)
            .stderr(one_line());
        assert!(stderr_of(&a).contains(says), "{list}: {}", stderr_of(&a));
    }
    let csv = dir.path().join("s.csv").display().to_string();
    let a = slarm([
        "simulate",
        "--trace",
        &swf,
        "--policy",
        "easy,fcfs",
        "--schedule-out",
        &csv,
    ])
    .assert()
    .code(2);
    assert!(stderr_of(&a).contains("one policy"));
}

/// `--schedule-format batsim`: Batsim's jobs.csv with a processor assignment that
/// `check-schedule --schedule-format batsim` accepts for every policy; a broken assignment
/// (two jobs on one processor at once, a set of the wrong size, a processor past the machine)
/// is reported by kind with exit code 3; a malformed row is exit code 2 naming the line.
#[test]
fn batsim_jobs_csv_carries_a_valid_assignment() {
    let dir = tempfile::tempdir().unwrap();
    let sacct = write(dir.path(), "site.sacct", SACCT);
    for policy in ["fcfs", "easy", "conservative", "backfill:2"] {
        let out = dir
            .path()
            .join(format!("{policy}.csv"))
            .display()
            .to_string();
        slarm([
            "simulate",
            "--trace",
            &sacct,
            "--format",
            "sacct",
            "--policy",
            policy,
            "--schedule-out",
            &out,
            "--schedule-format",
            "batsim",
        ])
        .assert()
        .success();
        let text = std::fs::read_to_string(&out).unwrap();
        assert!(text.starts_with("job_id,workload_name,profile,submission_time,requested_number_of_resources,requested_time,success,final_state,starting_time,execution_time,finish_time,waiting_time,turnaround_time,stretch,consumed_energy,allocated_resources,metadata\n"));
        assert_eq!(text.lines().count(), 6, "{text}");
        let contract = if policy.starts_with("backfill") {
            "capacity"
        } else {
            policy
        };
        let j = slarm_json([
            "--json",
            "check-schedule",
            "--trace",
            &sacct,
            "--format",
            "sacct",
            "--schedule",
            &out,
            "--schedule-format",
            "batsim",
            "--contract",
            contract,
        ]);
        assert_eq!(j["violations"], 0, "{policy}: {j}");
    }
    // EASY's assignment broken by hand: the second job also gets the first's processors and
    // processor 99 of a 18-processor machine.
    let easy = std::fs::read_to_string(dir.path().join("easy.csv")).unwrap();
    let mut lines: Vec<String> = easy.lines().map(str::to_owned).collect();
    let set_of = |l: &str| l.split(',').nth(15).unwrap().to_owned();
    let first = set_of(&lines[1]);
    let mut f: Vec<String> = lines[2].split(',').map(str::to_owned).collect();
    f[15] = format!("{first} 99");
    lines[2] = f.join(",");
    let bad = write(dir.path(), "bad.csv", &(lines.join("\n") + "\n"));
    let a = slarm([
        "--json",
        "check-schedule",
        "--trace",
        &sacct,
        "--format",
        "sacct",
        "--schedule",
        &bad,
        "--schedule-format",
        "batsim",
        "--contract",
        "capacity",
    ])
    .assert()
    .code(3);
    let j = json_of(&a);
    let kinds: Vec<&str> = j["list"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["kind"].as_str().unwrap())
        .collect();
    assert!(kinds.contains(&"allocation-size"), "{kinds:?}");
    assert!(kinds.contains(&"processor-out-of-range"), "{kinds:?}");
    assert!(kinds.contains(&"processor-shared"), "{kinds:?}");
    let broken = write(
        dir.path(),
        "broken.csv",
        &easy.replacen(",0-7,", ",0-x,", 1).replacen(",0-", ",a-", 1),
    );
    let a = slarm([
        "check-schedule",
        "--trace",
        &sacct,
        "--format",
        "sacct",
        "--schedule",
        &broken,
        "--schedule-format",
        "batsim",
        "--contract",
        "easy",
    ])
    .assert()
    .code(2)
    .stderr(one_line());
    assert!(
        stderr_of(&a).contains("broken.csv line 2: allocated_resources"),
        "{}",
        stderr_of(&a)
    );
}
