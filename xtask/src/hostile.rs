//! `cargo xtask hostile [--bin PATH] [--timeout S] [--threads N]`: the hostile-input suite.
//!
//! Every subcommand of the `slarm` binary (default `target/release/slarm`) x every numeric
//! option x the values 0, -1, NaN, inf, -inf, 1e308, 1e-308, 2^32, 2^64, empty and text, each
//! on a small valid command line (so a value that is accepted runs quickly), plus hostile input
//! files (empty, 10 MB of NUL bytes, random bytes, times of 1e11 s, 1e308 and -1, a job number
//! of 2^63 - 1, malformed platform, cost, GWF and CSV files, `--gantt-window` bounds of every such value, sacct files with times of year 1
//! and 9999, 2^64 CPUs, a 1 MB line, 10 000 columns and NUL bytes). Every case runs with a time limit
//! and must end with exit code 0 or 2, with a one-line message on stderr for exit code 2, and
//! never a signal, a panic ("internal error"), exit code 1 or a timeout. Prints one line per
//! failure and the counts; exit code 1 on any failure.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use rand::{RngExt, SeedableRng};

/// The hostile values every numeric option gets.
const VALUES: [&str; 11] = [
    "0",
    "-1",
    "NaN",
    "inf",
    "-inf",
    "1e308",
    "1e-308",
    "4294967296",
    "18446744073709551616",
    "",
    "text",
];

/// One command line of the suite.
struct Case {
    label: String,
    args: Vec<String>,
}

/// How a case ended.
enum Outcome {
    Exit(i32, String),
    Signal(String),
    Timeout,
    NoStart(String),
}

fn strings(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

/// Writes the input files of the suite into `dir`; returns (valid SWF, hostile files by name).
fn write_inputs(dir: &Path) -> Result<(PathBuf, Vec<(String, PathBuf)>), String> {
    let write = |name: &str, bytes: &[u8]| -> Result<PathBuf, String> {
        let p = dir.join(name);
        std::fs::write(&p, bytes).map_err(|e| format!("{}: {e}", p.display()))?;
        Ok(p)
    };
    // A valid trace: 400 jobs on 16 processors, one a minute.
    let swf_line = |i: u64, submit: &str| {
        format!(
            "{i} {submit} 0 {} {} -1 -1 {} {} -1 1 1 1 -1 1 -1 -1 -1\n",
            300 + i.wrapping_mul(37) % 3000,
            1 + i % 8,
            1 + i % 8,
            600 + i.wrapping_mul(37) % 3000
        )
    };
    let mut valid = String::from("; MaxProcs: 16\n; MaxNodes: 16\n");
    for i in 1..=400u64 {
        valid.push_str(&swf_line(i, &(i * 60).to_string()));
    }
    let swf = write("valid.swf", valid.as_bytes())?;
    let with_last = |submit: &str| {
        let mut t = valid.clone();
        t.push_str(&swf_line(401, submit));
        t
    };
    let mut rng = rand::rngs::StdRng::seed_from_u64(19);
    let random: Vec<u8> = (0..4096).map(|_| rng.random()).collect();
    let mut hostile = Vec::new();
    for (name, bytes) in [
        ("empty.swf", Vec::new()),
        ("nul.swf", vec![0u8; 10 << 20]),
        ("random.swf", random.clone()),
        ("submit-1e11.swf", with_last("100000000000").into_bytes()),
        ("submit-1e308.swf", with_last("1e308").into_bytes()),
        ("submit-negative.swf", with_last("-1").into_bytes()),
        (
            "job-2p63.swf",
            format!(
                "; MaxProcs: 16\n{}",
                swf_line(9_223_372_036_854_775_807, "60")
            )
            .into_bytes(),
        ),
        ("gzip-junk.swf.gz", [&[0x1f, 0x8b][..], &random].concat()),
    ] {
        hostile.push((name.to_string(), write(name, &bytes)?));
    }
    Ok((swf, hostile))
}

/// Writes the sacct inputs of the suite into `dir`: a valid file (300 jobs, one a minute, of
/// every state) and hostile ones (times of year 1 and 9999, 2^64 CPUs, a 1e12-minute time
/// limit beside a million-day run, a 1 MB line, 10 000 columns, a header only, NUL bytes, CRLF lines).
fn write_sacct_inputs(dir: &Path) -> Result<(PathBuf, Vec<(String, PathBuf)>), String> {
    let write = |name: &str, bytes: &[u8]| -> Result<PathBuf, String> {
        let p = dir.join(name);
        std::fs::write(&p, bytes).map_err(|e| format!("{}: {e}", p.display()))?;
        Ok(p)
    };
    const HEAD: &str = "JobIDRaw|Submit|Eligible|Start|End|Elapsed|TimelimitRaw|NCPUS|NNodes|ReqCPUS|State|Partition|User|Group\n";
    const STATES: [&str; 6] = [
        "COMPLETED",
        "FAILED",
        "TIMEOUT",
        "CANCELLED by 7",
        "NODE_FAIL",
        "OUT_OF_MEMORY",
    ];
    let line = |i: u64, submit: &str, cpus: &str| {
        let m = i % 60;
        let h = i / 60;
        format!(
            "{i}|{submit}|{submit}|2024-01-01T{h:02}:{m:02}:30|2024-01-01T{:02}:{m:02}:30|00:{:02}:00|{}|{cpus}|1|{cpus}|{}|p{}|u{}|g{}\n",
            h + 1,
            (i * 7) % 60,
            10 + i % 50,
            STATES[(i % 6) as usize],
            i % 3,
            i % 11,
            i % 4
        )
    };
    let stamp = |i: u64| format!("2024-01-01T{:02}:{:02}:00", i / 60, i % 60);
    let mut valid = String::from(HEAD);
    for i in 0..300u64 {
        valid.push_str(&line(i, &stamp(i), &(1 + i % 8).to_string()));
    }
    let sacct = write("valid.sacct", valid.as_bytes())?;
    let with_last = |l: String| {
        let mut t = valid.clone();
        t.push_str(&l);
        t
    };
    let mut hostile = Vec::new();
    for (name, bytes) in [
        (
            "year-1.sacct",
            with_last(line(300, "0001-01-01T00:00:00", "2")).into_bytes(),
        ),
        (
            "year-9999.sacct",
            with_last(line(300, "9999-12-31T23:59:59", "2")).into_bytes(),
        ),
        (
            "cpus-2p64.sacct",
            with_last(line(300, &stamp(300), "18446744073709551616")).into_bytes(),
        ),
        (
            "cpus-1e12.sacct",
            with_last(line(300, &stamp(300), "999999999999")).into_bytes(),
        ),
        (
            "limit-huge.sacct",
            with_last(
                line(300, &stamp(300), "2")
                    .replace("|10|2|1|2|", "|999999999999|2|1|2|")
                    .replacen("|00:", "|999999-00:", 1),
            )
            .into_bytes(),
        ),
        (
            "long-line.sacct",
            with_last("7|".repeat(1 << 19)).into_bytes(),
        ),
        (
            "wide-header.sacct",
            format!("{}{}", "X|".repeat(10_000), valid).into_bytes(),
        ),
        ("header-only.sacct", HEAD.as_bytes().to_vec()),
        ("nul.sacct", with_last("\0".repeat(1 << 20)).into_bytes()),
        ("crlf.sacct", valid.replace('\n', "\r\n").into_bytes()),
    ] {
        hostile.push((name.to_string(), write(name, &bytes)?));
    }
    Ok((sacct, hostile))
}

/// A subcommand's label, its small valid command line, and its numeric options as (label,
/// `--flag` or `--flag=PATTERN` with `V` standing for the value).
type Plan<'a> = (&'a str, Vec<String>, Vec<(String, String)>);

/// Every case: subcommand x numeric option x value, and hostile files.
fn cases(
    tmp: &Path,
    swf: &Path,
    files: &[(String, PathBuf)],
    sacct: &Path,
    sacct_files: &[(String, PathBuf)],
) -> Vec<Case> {
    let swf = swf.display().to_string();
    let sacct = sacct.display().to_string();
    let out_swf = tmp.join("out.swf").display().to_string();
    let out = tmp.join("out").display().to_string();
    let report = tmp.join("sim-report").display().to_string();
    let numeric = |opt: &str| (opt.to_string(), format!("--{opt}"));
    let mut plans: Vec<Plan<'_>> = vec![
        (
            "queue cdf",
            strings(&[
                "queue",
                "cdf",
                "--lambda",
                "1",
                "--mu",
                "1",
                "--servers",
                "2",
                "--x",
                "1",
            ]),
            ["lambda", "mu", "servers", "x"].map(numeric).to_vec(),
        ),
        (
            "queue size",
            strings(&[
                "queue",
                "size",
                "--mu",
                "1",
                "--class",
                "1:3:0.9",
                "--class",
                "2:4:0.8",
                "--discipline",
                "hol",
                "--horizon",
                "200",
                "--warmup",
                "20",
                "--replications",
                "2",
            ]),
            [
                "mu",
                "horizon",
                "warmup",
                "replications",
                "seed",
                "hol-order",
            ]
            .map(numeric)
            .to_vec(),
        ),
        (
            "queue simulate",
            strings(&[
                "queue",
                "simulate",
                "--servers",
                "3",
                "--mu",
                "1",
                "--class",
                "1:3:0.9",
                "--horizon",
                "200",
                "--warmup",
                "20",
                "--replications",
                "2",
            ]),
            [
                "servers",
                "mu",
                "horizon",
                "warmup",
                "replications",
                "seed",
                "hol-order",
            ]
            .map(numeric)
            .to_vec(),
        ),
        (
            "trace stats",
            strings(&["trace", "stats", &swf]),
            vec![numeric("procs")],
        ),
        (
            "simulate",
            strings(&["simulate", "--trace", &swf, "--policy", "easy"]),
            vec![numeric("procs")],
        ),
        (
            "simulate --report",
            strings(&[
                "simulate",
                "--trace",
                &swf,
                "--policy",
                "easy,conservative",
                "--report",
                &report,
                "--gantt-window",
                "0:100",
            ]),
            vec![
                numeric("procs"),
                ("gantt-window V:100".into(), "--gantt-window=V:100".into()),
                ("gantt-window 0:V".into(), "--gantt-window=0:V".into()),
                ("gantt-window V:V".into(), "--gantt-window=V:V".into()),
                numeric("gantt-window"),
            ],
        ),
        (
            "trace import",
            strings(&[
                "trace", "import", "--from", "sacct", &sacct, "--out", &out_swf,
            ]),
            vec![numeric("procs"), numeric("tz")],
        ),
        (
            "simulate --format sacct",
            strings(&[
                "simulate",
                "--trace",
                &sacct,
                "--format",
                "sacct",
                "--policy",
                "easy,fcfs",
            ]),
            vec![numeric("procs"), numeric("tz")],
        ),
        (
            "simulate --schedule-format batsim",
            strings(&[
                "simulate",
                "--trace",
                &swf,
                "--policy",
                "backfill:2",
                "--schedule-format",
                "batsim",
                "--schedule-out",
                &out_swf,
            ]),
            vec![
                numeric("procs"),
                ("policy backfill:V".into(), "--policy=backfill:V".into()),
            ],
        ),
        (
            "libra",
            strings(&[
                "libra",
                "--trace",
                &swf,
                "--policy",
                "libra-plus",
                "--nodes",
                "16",
            ]),
            [
                "alpha",
                "beta",
                "gamma",
                "delta",
                "delay-factor",
                "high-urgency",
                "underestimate",
                "seed",
                "jobs",
                "nodes",
            ]
            .map(numeric)
            .to_vec(),
        ),
        (
            "overbook",
            strings(&[
                "overbook",
                "--trace",
                &swf,
                "--procs",
                "16",
                "--battery-size",
                "50",
                "--test-jobs",
                "100",
                "--strategy",
                "heur-overbook",
            ]),
            [
                "procs",
                "factor",
                "batteries",
                "battery-size",
                "test-jobs",
                "seed",
            ]
            .map(numeric)
            .to_vec(),
        ),
        (
            "provision",
            strings(&[
                "provision",
                "--heuristic",
                "h3",
                "--tables",
                "quick",
                "--runs",
                "20",
            ]),
            [
                "cost-function",
                "cost-lo",
                "cost-hi",
                "runs",
                "seed",
                "p-max",
                "p-min",
                "y",
                "u",
                "d",
                "delta",
                "mean-service",
                "r1",
                "r2",
                "penalty-factor",
            ]
            .map(numeric)
            .to_vec(),
        ),
        (
            "grid",
            strings(&["grid", "--strategy", "dynamic", "--bots", "20"]),
            [
                "kappa",
                "load",
                "seed",
                "bots",
                "background-util",
                "background-procs",
                "period",
                "high",
                "low",
                "trace-origin",
                "target-min",
                "release-min",
                "max-runtime",
            ]
            .map(numeric)
            .to_vec(),
        ),
        (
            "reproduce",
            strings(&["reproduce", "hu2009", "--out", &out, "--shard", "1/1000"]),
            ["seed", "jobs"].map(numeric).to_vec(),
        ),
    ];
    // Numbers inside option values: a class's lambda, x and y, a shard, a static size, a test.
    let mut add = |cmd: &str, label: String, flag: String| {
        if let Some(p) = plans.iter_mut().find(|p| p.0 == cmd) {
            p.2.push((label, flag));
        }
    };
    for slot in ["V:3:0.9", "1:V:0.9", "1:3:V"] {
        add(
            "queue simulate",
            format!("class {slot}"),
            format!("--class={slot}"),
        );
    }
    add("overbook", "test pof:V".into(), "--test=pof:V".into());
    add("overbook", "test risk:V".into(), "--test=risk:V".into());
    add(
        "provision",
        "heuristic static:V".into(),
        "--heuristic=static:V".into(),
    );
    add("reproduce", "shard V/3".into(), "--shard=V/3".into());
    add("reproduce", "shard 1/V".into(), "--shard=1/V".into());
    let mut all = Vec::new();
    for (cmd, base, options) in &plans {
        for (label, flag) in options {
            for v in VALUES {
                let mut args = base.clone();
                let (name, given) = match flag.split_once('=') {
                    Some((name, pattern)) => (name.to_string(), pattern.replace('V', v)),
                    None => (flag.clone(), v.to_string()),
                };
                // Replace the option where the base line sets it (the first time), else add it.
                match args.iter().position(|a| *a == name) {
                    Some(i) => args[i + 1] = given,
                    None => {
                        args.push(name);
                        args.push(given);
                    }
                }
                // `reproduce` clears the results of another configuration from its folder
                // (temporaries included), so two cases running at once must not share one.
                if *cmd == "reproduce" {
                    if let Some(i) = args.iter().position(|a| a == "--out") {
                        args[i + 1] = tmp.join(format!("out-{}", all.len())).display().to_string();
                    }
                }
                all.push(Case {
                    label: format!("{cmd} {label} {v:?}"),
                    args,
                });
            }
        }
    }
    // Hostile files wherever a command reads one.
    for (name, path) in files {
        let p = path.display().to_string();
        for (cmd, args) in [
            ("trace stats", strings(&["trace", "stats", &p])),
            (
                "trace stats --lenient",
                strings(&["trace", "stats", &p, "--lenient"]),
            ),
            (
                "simulate",
                strings(&["simulate", "--trace", &p, "--policy", "fcfs"]),
            ),
            (
                "libra",
                strings(&["libra", "--trace", &p, "--policy", "libra", "--nodes", "16"]),
            ),
            (
                "overbook",
                strings(&["overbook", "--trace", &p, "--procs", "16"]),
            ),
            (
                "check-schedule",
                strings(&[
                    "check-schedule",
                    "--trace",
                    &p,
                    "--schedule",
                    &p,
                    "--contract",
                    "easy",
                ]),
            ),
            (
                "grid --background",
                strings(&["grid", "--bots", "5", "--background", &p]),
            ),
            (
                "grid --platform",
                strings(&["grid", "--bots", "5", "--platform", &p]),
            ),
            (
                "provision --cost-file",
                strings(&[
                    "provision",
                    "--heuristic",
                    "h1",
                    "--tables",
                    "quick",
                    "--runs",
                    "5",
                    "--cost-file",
                    &p,
                ]),
            ),
            (
                "queue size --batch",
                strings(&["queue", "size", "--batch", &p]),
            ),
        ] {
            all.push(Case {
                label: format!("{cmd} {name}"),
                args,
            });
        }
    }
    // Sacct input wherever a command reads a trace: the hostile sacct files and the hostile
    // SWF files read as sacct.
    for (name, path) in sacct_files.iter().chain(files) {
        let p = path.display().to_string();
        for (cmd, args) in [
            (
                "trace import",
                strings(&["trace", "import", "--from", "sacct", &p, "--out", &out_swf]),
            ),
            (
                "trace import --lenient",
                strings(&[
                    "trace",
                    "import",
                    "--from",
                    "sacct",
                    &p,
                    "--out",
                    &out_swf,
                    "--lenient",
                ]),
            ),
            (
                "trace stats --format sacct",
                strings(&[
                    "trace",
                    "stats",
                    &p,
                    "--format",
                    "sacct",
                    "--tz",
                    "Europe/Berlin",
                ]),
            ),
            (
                "simulate --format sacct --lenient",
                strings(&[
                    "simulate",
                    "--trace",
                    &p,
                    "--format",
                    "sacct",
                    "--policy",
                    "fcfs,easy,conservative",
                    "--lenient",
                ]),
            ),
            (
                "check-schedule --schedule-format batsim",
                strings(&[
                    "check-schedule",
                    "--trace",
                    &sacct,
                    "--format",
                    "sacct",
                    "--schedule",
                    &p,
                    "--schedule-format",
                    "batsim",
                    "--contract",
                    "capacity",
                ]),
            ),
            (
                "check-schedule --format sacct",
                strings(&[
                    "check-schedule",
                    "--trace",
                    &p,
                    "--format",
                    "sacct",
                    "--schedule",
                    &p,
                    "--contract",
                    "easy",
                ]),
            ),
        ] {
            all.push(Case {
                label: format!("{cmd} {name}"),
                args,
            });
        }
    }
    all
}

/// Runs `bin ARGS` with a time limit; stdout is discarded.
fn run_case(bin: &Path, case: &Case, limit: Duration, cwd: &Path) -> Outcome {
    let mut child = match Command::new(bin)
        .args(&case.args)
        .current_dir(cwd)
        .env_remove("SLARM_TRACES")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
    {
        Ok(c) => c,
        Err(e) => return Outcome::NoStart(e.to_string()),
    };
    let mut stderr = child.stderr.take();
    let reader = std::thread::spawn(move || {
        let mut s = Vec::new();
        if let Some(e) = stderr.as_mut() {
            let _ = std::io::Read::read_to_end(e, &mut s);
        }
        String::from_utf8_lossy(&s).into_owned()
    });
    let start = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(s)) => break Some(s),
            Ok(None) if start.elapsed() > limit => {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(5)),
            Err(e) => return Outcome::NoStart(e.to_string()),
        }
    };
    let err = reader.join().unwrap_or_default();
    match status {
        None => Outcome::Timeout,
        Some(s) => match s.code() {
            Some(c) => Outcome::Exit(c, err),
            None => Outcome::Signal(format!("{s} {err}")),
        },
    }
}

/// Why an outcome fails the suite, if it does.
fn failure(o: &Outcome) -> Option<String> {
    match o {
        Outcome::Exit(0, _) => None,
        Outcome::Exit(2, err) => {
            let lines = err.trim_end().lines().count();
            if lines != 1 {
                Some(format!("exit 2 with {lines} lines on stderr: {err:?}"))
            } else if err.len() > 1000 {
                Some(format!("exit 2 with a {} byte message", err.len()))
            } else {
                None
            }
        }
        Outcome::Exit(c, err) => Some(format!("exit {c}: {}", err.trim_end())),
        Outcome::Signal(s) => Some(format!("killed by a signal: {s}")),
        Outcome::Timeout => Some("timed out".into()),
        Outcome::NoStart(e) => Some(format!("did not start: {e}")),
    }
}

/// `cargo xtask hostile`.
pub fn run(args: &[String]) -> ExitCode {
    let mut bin = crate::workspace_root().join("target/release/slarm");
    let mut limit = Duration::from_secs(60);
    let mut threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let value = it.next();
        match (a.as_str(), value) {
            ("--bin", Some(v)) => bin = PathBuf::from(v),
            ("--timeout", Some(v)) if v.parse::<u64>().is_ok() => {
                limit = Duration::from_secs(v.parse().unwrap_or(60))
            }
            ("--threads", Some(v)) if v.parse::<usize>().is_ok_and(|n| n > 0) => {
                threads = v.parse().unwrap_or(2)
            }
            _ => {
                eprintln!(
                    "usage: cargo xtask hostile [--bin PATH] [--timeout SECONDS] [--threads N]"
                );
                return ExitCode::from(2);
            }
        }
    }
    if !bin.is_file() {
        eprintln!(
            "hostile: no binary at {} (build it: cargo build --release -p slarm-cli)",
            bin.display()
        );
        return ExitCode::FAILURE;
    }
    // The cases run in a scratch folder: a relative path must not change meaning.
    let bin = std::fs::canonicalize(&bin).unwrap_or(bin);
    let tmp = match tempfile::tempdir() {
        Ok(t) => t,
        Err(e) => {
            eprintln!("hostile: temporary folder: {e}");
            return ExitCode::FAILURE;
        }
    };
    let (swf, files) = match write_inputs(tmp.path()) {
        Ok(x) => x,
        Err(e) => {
            eprintln!("hostile: {e}");
            return ExitCode::FAILURE;
        }
    };
    let mut files = files;
    for (name, text) in [
        ("platform-bad.txt", "a 0 2.2\nb NaN x\n"),
        ("cost-bad.txt", "0 1\n1 -inf\n1e308 NaN\n"),
        (
            "background.gwf",
            "1 0 0 100 4 -1 -1 4 200 -1 1 1 1 -1 1 -1 -1 -1 fs0 x\n1e308 x\n",
        ),
        (
            "batch.csv",
            "lambda,mu,x,y\nNaN,1,3,0.9\n1e308,1,3,0.9\n1,0,3,0.9\n1,1,inf,0.9\n1,1,3,1\n",
        ),
    ] {
        let p = tmp.path().join(name);
        if let Err(e) = std::fs::write(&p, text) {
            eprintln!("hostile: {}: {e}", p.display());
            return ExitCode::FAILURE;
        }
        files.push((name.to_string(), p));
    }
    let (sacct, sacct_files) = match write_sacct_inputs(tmp.path()) {
        Ok(x) => x,
        Err(e) => {
            eprintln!("hostile: {e}");
            return ExitCode::FAILURE;
        }
    };
    let all = cases(tmp.path(), &swf, &files, &sacct, &sacct_files);
    let start = Instant::now();
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<(usize, Outcome, f64)>> = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::SeqCst);
                let Some(case) = all.get(i) else { break };
                let t0 = Instant::now();
                let o = run_case(&bin, case, limit, tmp.path());
                let secs = t0.elapsed().as_secs_f64();
                results
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .push((i, o, secs));
            });
        }
    });
    let mut results = results.into_inner().unwrap_or_else(|e| e.into_inner());
    results.sort_by_key(|r| r.0);
    let (mut ok, mut bad_input, mut failed) = (0, 0, 0);
    let mut slowest = (0.0f64, String::new());
    for (i, o, secs) in &results {
        if *secs > slowest.0 {
            slowest = (*secs, all[*i].label.clone());
        }
        match failure(o) {
            Some(why) => {
                failed += 1;
                println!(
                    "FAIL {}: slarm {}: {why}",
                    all[*i].label,
                    all[*i].args.join(" ")
                );
            }
            None if matches!(o, Outcome::Exit(0, _)) => ok += 1,
            None => bad_input += 1,
        }
    }
    println!(
        "hostile: {} cases, {ok} exit 0, {bad_input} exit 2, {failed} failures; {:.1} s wall on {threads} threads, slowest case {:.1} s ({}); limit {} s per case",
        results.len(),
        start.elapsed().as_secs_f64(),
        slowest.0,
        slowest.1,
        limit.as_secs()
    );
    if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
