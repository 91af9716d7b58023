//! `cargo xtask anchors [--reps N] [--before OLD_SLARM_BINARY] [--paper]`: the performance figures of
//! docs/performance.md against their Python anchors, measured in one run so that the
//! ratios hold on a shared machine (`--before` adds an older `slarm` binary to the EASY row's
//! alternation, for before/after figures from the same run).
//!
//! Rows:
//! - EASY on SDSC-SP2, whole process: `slarm simulate --policy easy --schedule-out` against
//!   the oracle's reference EASY (`xtask/oracle/easy.py`, same output), run alternately;
//! - FFT linear convolution of two 2^20-bin PMFs, in process: slarm's `convolve_masses_fft`
//!   (release example `anchor_probe`) against `scipy.signal.fftconvolve`;
//! - 10,000 sizing queries (1..1000 erlangs, P(T <= 3) >= 0.9), in process: `min_nodes_batch`
//!   against a numpy-vectorised Algorithm 1 (`xtask/anchors/anchors.py`; the answers'
//!   checksums must agree), both in turn over `reps` rounds, the median of the per-round
//!   ratios reported with their range;
//! - `slarm queue size --batch` of the same 10,000 rows, whole process (goal: under 100 ms);
//! - conservative backfilling against our EASY on the first 25, 50 and 100 % of the jobs of
//!   HPC2N-2002 (decompressed prefixes written to a scratch folder), whole process, in turn
//!   (`--before` joins with its conservative runs), and the scaling of conservative's CPU per
//!   job from the 25 % prefix to the whole log (goals: at most 2.5x EASY, near-linear);
//! - the Sung tables at p_max = 30 (`phase_times scalability 30` of slarm-provision), one
//!   run: wall, CPU and peak resident set (goal: under 300 MB);
//! - with `--paper`, the paper-scale reproduction of all five papers on the traces, one run:
//!   wall and CPU (goal: under 8 minutes wall); its report stays in `target/anchors-paper`.
//!
//! Whole-process rows give the median wall time and the mean CPU time (user + system of the
//! waited-for child, from `/proc/self/stat`, summed over the runs, so its 10 ms tick averages
//! out). The Python side is the oracle's pinned environment (`target/oracle-venv`).

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::Instant;

use crate::oracle::pyenv::{PythonEnv, SetupError};
use crate::{run_cmd, workspace_root};

const SDSC_SP2: &str = "SDSC-SP2-1998-4.2-cln.swf.gz";

/// CPU seconds (user + system) of this process's waited-for children so far, from
/// `getrusage` (microseconds; the `cutime`/`cstime` of `/proc/self/stat` count 10 ms ticks,
/// too coarse for runs of 20 ms).
fn children_cpu() -> f64 {
    use nix::sys::resource::{getrusage, UsageWho};
    use nix::sys::time::TimeValLike;
    getrusage(UsageWho::RUSAGE_CHILDREN).map_or(0.0, |u| {
        (u.user_time().num_microseconds() + u.system_time().num_microseconds()) as f64 / 1e6
    })
}

/// Wall seconds of each run and the mean CPU seconds per run of one command.
#[derive(Debug, Default)]
struct Runs {
    wall: Vec<f64>,
    cpu: f64,
}

impl Runs {
    fn once(&mut self, argv: &[String]) -> Result<(), String> {
        let (c0, t0) = (children_cpu(), Instant::now());
        let status = Command::new(&argv[0])
            .args(&argv[1..])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .map_err(|e| format!("{}: {e}", argv[0]))?;
        self.wall.push(t0.elapsed().as_secs_f64());
        self.cpu += children_cpu() - c0;
        if status.success() {
            Ok(())
        } else {
            Err(format!("{argv:?} failed ({status})"))
        }
    }

    fn median_wall(&self) -> f64 {
        median(&self.wall)
    }

    fn mean_cpu(&self) -> f64 {
        self.cpu / self.wall.len().max(1) as f64
    }
}

fn median(v: &[f64]) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    s.get(s.len() / 2).copied().unwrap_or(f64::NAN)
}

/// The commands in turn (A B C A B C ...), `reps` times each after one warm-up of each.
fn alternate(commands: &[&[String]], reps: usize) -> Result<Vec<Runs>, String> {
    let mut runs: Vec<Runs> = commands.iter().map(|_| Runs::default()).collect();
    for c in commands {
        Runs::default().once(c)?;
    }
    for _ in 0..reps {
        for (c, r) in commands.iter().zip(&mut runs) {
            r.once(c)?;
        }
    }
    Ok(runs)
}

/// The `key value` lines a probe prints.
fn probe(argv: &[String]) -> Result<Vec<(String, String)>, String> {
    let out = Command::new(&argv[0])
        .args(&argv[1..])
        .output()
        .map_err(|e| format!("{}: {e}", argv[0]))?;
    if !out.status.success() {
        return Err(format!(
            "{argv:?} failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.split_once(' '))
        .map(|(k, v)| (k.to_string(), v.trim().to_string()))
        .collect())
}

fn value(lines: &[(String, String)], key: &str) -> Result<String, String> {
    lines
        .iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.clone())
        .ok_or_else(|| format!("no '{key}' in the probe's output"))
}

fn seconds(lines: &[(String, String)]) -> Result<f64, String> {
    value(lines, "seconds")?
        .parse()
        .map_err(|e| format!("seconds: {e}"))
}

fn argv(parts: &[&dyn AsRef<std::ffi::OsStr>]) -> Vec<String> {
    parts
        .iter()
        .map(|p| p.as_ref().to_string_lossy().into_owned())
        .collect()
}

fn ms(s: f64) -> String {
    format!("{:.1} ms", s * 1e3)
}

/// Builds the release binaries the rows run.
fn build(root: &Path) -> Result<PathBuf, String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let manifest = root.join("Cargo.toml");
    run_cmd(
        Command::new(&cargo)
            .args(["build", "--quiet", "--release", "-p", "slarm-cli"])
            .arg("--manifest-path")
            .arg(&manifest),
    )?;
    run_cmd(
        Command::new(&cargo)
            .args(["build", "--quiet", "--release", "-p", "slarm-benches"])
            .args(["--example", "anchor_probe", "--manifest-path"])
            .arg(&manifest),
    )?;
    run_cmd(
        Command::new(&cargo)
            .args(["build", "--quiet", "--release", "-p", "slarm-provision"])
            .args(["--example", "phase_times", "--manifest-path"])
            .arg(&manifest),
    )?;
    Ok(std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target"))
        .join("release"))
}

/// The rows; `before`, when given, is an older `slarm` binary whose EASY whole-process
/// run joins the alternation (its figures and the after/before CPU ratio go into the slarm
/// cell).
fn rows(
    root: &Path,
    python: &Path,
    reps: usize,
    before: Option<&Path>,
    paper: bool,
) -> Result<Vec<[String; 5]>, String> {
    let bin = build(root)?;
    let slarm = bin.join("slarm");
    let probe_bin = bin.join("examples").join("anchor_probe");
    let anchors_py = root.join("xtask").join("anchors").join("anchors.py");
    let scratch = tempfile::tempdir().map_err(|e| format!("scratch folder: {e}"))?;
    let mut out = Vec::new();

    match slarm::workload::traces::locate(SDSC_SP2) {
        Ok(trace) => {
            let easy = |bin: &Path, csv: &str| {
                argv(&[
                    &bin,
                    &"simulate",
                    &"--trace",
                    &trace,
                    &"--policy",
                    &"easy",
                    &"--schedule-out",
                    &scratch.path().join(csv),
                ])
            };
            let ours = easy(&slarm, "slarm.csv");
            let theirs = argv(&[
                &python,
                &root.join("xtask").join("oracle").join("easy.py"),
                &trace,
                &scratch.path().join("python.csv"),
            ]);
            let old = before.map(|b| easy(b, "before.csv"));
            let mut commands = vec![ours.as_slice(), theirs.as_slice()];
            commands.extend(old.as_deref());
            let runs = alternate(&commands, reps)?;
            let (a, b) = (&runs[0], &runs[1]);
            let mut slarm_cell = format!("{} wall, {} CPU", ms(a.median_wall()), ms(a.mean_cpu()));
            if let Some(c) = runs.get(2) {
                slarm_cell += &format!(
                    " (before: {} wall, {} CPU; after / before CPU {:.2})",
                    ms(c.median_wall()),
                    ms(c.mean_cpu()),
                    a.mean_cpu() / c.mean_cpu()
                );
            }
            out.push([
                "EASY on SDSC-SP2, whole process".into(),
                slarm_cell,
                format!(
                    "reference EASY (Python) {} wall, {} CPU",
                    ms(b.median_wall()),
                    ms(b.mean_cpu())
                ),
                format!(
                    "{:.1}x wall, {:.1}x CPU",
                    b.median_wall() / a.median_wall(),
                    b.mean_cpu() / a.mean_cpu()
                ),
                ">= 50x".into(),
            ]);
        }
        Err(missing) => eprintln!("anchors: EASY row left out: {missing}"),
    }

    let fft_reps = reps.to_string();
    let ours = probe(&argv(&[&probe_bin, &"fft", &"20", &fft_reps]))?;
    let theirs = probe(&argv(&[&python, &anchors_py, &"fft", &"20", &fft_reps]))?;
    let (a, b) = (seconds(&ours)?, seconds(&theirs)?);
    out.push([
        "linear convolution of two 2^20-bin PMFs, in process".into(),
        ms(a),
        format!("scipy fftconvolve {}", ms(b)),
        format!("{:.2}x", b / a),
        ">= 3.5x".into(),
    ]);

    // Both sides in turn, `reps` rounds of a median of 4 * reps each: the machine's speed
    // drifts between rounds, so the ratio is taken round by round and its median reported.
    let sizing_reps = (reps * 4).to_string();
    let (mut a_s, mut b_s, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..reps {
        let ours = probe(&argv(&[&probe_bin, &"sizing", &"10000", &sizing_reps]))?;
        let theirs = probe(&argv(&[
            &python,
            &anchors_py,
            &"sizing",
            &"10000",
            &sizing_reps,
        ]))?;
        let (sum_a, sum_b) = (value(&ours, "checksum")?, value(&theirs, "checksum")?);
        if sum_a != sum_b {
            return Err(format!(
                "sizing answers differ: checksum {sum_a} (slarm) vs {sum_b} (numpy)"
            ));
        }
        let (a, b) = (seconds(&ours)?, seconds(&theirs)?);
        a_s.push(a);
        b_s.push(b);
        ratios.push(b / a);
    }
    let spread = |v: &[f64]| {
        let lo = v.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        (lo, hi)
    };
    let (lo, hi) = spread(&ratios);
    out.push([
        "min-node sizing, 10,000 queries, library".into(),
        ms(median(&a_s)),
        format!("numpy vectorised {}", ms(median(&b_s))),
        format!("{:.1}x (rounds {lo:.1}-{hi:.1}x)", median(&ratios)),
        ">= 10x".into(),
    ]);

    let csv = scratch.path().join("batch10k.csv");
    let mut text = String::from("lambda,mu,x,y\n");
    for k in 0..10_000 {
        text.push_str(&format!(
            "{:.6},1,3,0.9\n",
            1.0 + 999.0 * f64::from(k) / 9_999.0
        ));
    }
    std::fs::write(&csv, text).map_err(|e| format!("{}: {e}", csv.display()))?;
    let cli = argv(&[&slarm, &"queue", &"size", &"--batch", &csv]);
    let mut r = Runs::default();
    Runs::default().once(&cli)?;
    for _ in 0..reps {
        r.once(&cli)?;
    }
    out.push([
        "`slarm queue size --batch`, 10,000 rows, whole process".into(),
        format!("{} wall, {} CPU", ms(r.median_wall()), ms(r.mean_cpu())),
        "-".into(),
        "-".into(),
        "< 100 ms".into(),
    ]);

    match slarm::workload::traces::locate(HPC2N) {
        Ok(trace) => out.extend(conservative_rows(
            &slarm,
            before,
            &trace,
            scratch.path(),
            reps,
        )?),
        Err(missing) => eprintln!("anchors: conservative rows left out: {missing}"),
    }

    let phase_times = bin.join("examples").join("phase_times");
    let sung = argv(&[&phase_times, &"scalability", &"30"]);
    let (c0, t0) = (children_cpu(), Instant::now());
    let lines = probe(&sung)?;
    let (wall, cpu) = (t0.elapsed().as_secs_f64(), children_cpu() - c0);
    out.push([
        "Sung tables, p_max = 30 (g, k, L, L', L''), one run".into(),
        format!(
            "{wall:.1} s wall, {cpu:.1} s CPU, peak {} MB",
            value(&lines, "peak_rss_mb")?
        ),
        "thesis: minutes to hours".into(),
        "-".into(),
        "same time or less, < 300 MB".into(),
    ]);

    if paper {
        let traces = slarm::workload::traces::dir().map_err(|m| format!("--paper: {m}"))?;
        // Kept after the run, for `cargo xtask repro-timings` and `report-check`.
        let dir = root.join("target").join("anchors-paper");
        if dir.exists() {
            std::fs::remove_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        }
        let mut r = Runs::default();
        r.once(&argv(&[
            &slarm,
            &"reproduce",
            &"--scale",
            &"paper",
            &"--traces",
            &traces,
            &"--out",
            &dir,
        ]))?;
        out.push([
            format!(
                "paper-scale reproduction, all five papers, one run (report in {})",
                dir.display()
            ),
            format!("{:.1} s wall, {:.1} s CPU", r.median_wall(), r.mean_cpu()),
            "-".into(),
            "-".into(),
            "< 8 min wall".into(),
        ]);
    }
    Ok(out)
}

const HPC2N: &str = "HPC2N-2002-2.2-cln.swf.gz";

/// The first `percent` % of the job lines of `trace` (header comments kept), decompressed
/// into `dir`, for each of `percents`; returns their paths and job counts.
fn prefixes(trace: &Path, dir: &Path, percents: &[u32]) -> Result<Vec<(PathBuf, usize)>, String> {
    use std::io::BufRead;
    let file = std::fs::File::open(trace).map_err(|e| format!("{}: {e}", trace.display()))?;
    let input = slarm::workload::reader::decompressing(file, &trace.display().to_string())
        .map_err(|e| e.to_string())?;
    let (mut header, mut jobs) = (String::new(), Vec::new());
    for line in input.lines() {
        let line = line.map_err(|e| format!("{}: {e}", trace.display()))?;
        if line.trim_start().starts_with(';') {
            header.push_str(&line);
            header.push('\n');
        } else if !line.trim().is_empty() {
            jobs.push(line);
        }
    }
    percents
        .iter()
        .map(|&p| {
            let n = (jobs.len() * p as usize).div_ceil(100);
            let path = dir.join(format!("hpc2n-{p}.swf"));
            let mut text = header.clone();
            for j in &jobs[..n] {
                text.push_str(j);
                text.push('\n');
            }
            std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
            Ok((path, n))
        })
        .collect()
}

/// Conservative backfilling against our EASY on prefixes of HPC2N, and its scaling.
fn conservative_rows(
    slarm: &Path,
    before: Option<&Path>,
    trace: &Path,
    scratch: &Path,
    reps: usize,
) -> Result<Vec<[String; 5]>, String> {
    let sim = |bin: &Path, file: &Path, policy: &str| {
        argv(&[&bin, &"simulate", &"--trace", &file, &"--policy", &policy])
    };
    let mut out = Vec::new();
    let mut per_job = Vec::new();
    for (file, jobs) in prefixes(trace, scratch, &[25, 50, 100])? {
        let cons = sim(slarm, &file, "conservative");
        let easy = sim(slarm, &file, "easy");
        let old = before.map(|b| sim(b, &file, "conservative"));
        let mut commands = vec![cons.as_slice(), easy.as_slice()];
        commands.extend(old.as_deref());
        let runs = alternate(&commands, reps)?;
        let (c, e) = (&runs[0], &runs[1]);
        let mut cell = format!("{} CPU, {} wall", ms(c.mean_cpu()), ms(c.median_wall()));
        if let Some(b) = runs.get(2) {
            cell += &format!(
                " (before: {} CPU; after / before {:.2})",
                ms(b.mean_cpu()),
                c.mean_cpu() / b.mean_cpu()
            );
        }
        let name = file.file_name().map(|n| n.to_string_lossy().into_owned());
        out.push([
            format!(
                "conservative backfilling, {} ({jobs} jobs), whole process",
                name.unwrap_or_default()
            ),
            cell,
            format!("our EASY {} CPU", ms(e.mean_cpu())),
            format!(
                "conservative = {:.2}x EASY (CPU)",
                c.mean_cpu() / e.mean_cpu()
            ),
            "<= 2.5x EASY".into(),
        ]);
        per_job.push(c.mean_cpu() / jobs as f64);
    }
    if let (Some(first), Some(last)) = (per_job.first(), per_job.last()) {
        out.push([
            "conservative backfilling, HPC2N 25 / 50 / 100 %: CPU per 1,000 jobs".into(),
            per_job
                .iter()
                .map(|s| ms(s * 1e3))
                .collect::<Vec<_>>()
                .join(" / "),
            "-".into(),
            format!("100 % / 25 % per job: {:.2}", last / first),
            "near-linear (about 1)".into(),
        ]);
    }
    Ok(out)
}

/// Runs `cargo xtask anchors [--reps N]`.
pub fn run(args: &[String]) -> ExitCode {
    let (mut reps, mut before, mut paper) = (5, None, false);
    let mut rest = args.iter().filter(|a| {
        let flag = a.as_str() == "--paper";
        paper |= flag;
        !flag
    });
    while let Some(flag) = rest.next() {
        match (flag.as_str(), rest.next()) {
            ("--reps", Some(n)) => match n.parse::<usize>() {
                Ok(n) if (1..=100).contains(&n) => reps = n,
                _ => {
                    eprintln!("xtask anchors: --reps must be 1 to 100, got {n:?}");
                    return ExitCode::from(2);
                }
            },
            ("--before", Some(bin)) if Path::new(bin).is_file() => {
                before = Some(PathBuf::from(bin));
            }
            ("--before", Some(bin)) => {
                eprintln!("xtask anchors: --before: no such file {bin:?}");
                return ExitCode::from(2);
            }
            _ => {
                eprintln!(
                    "usage: cargo xtask anchors [--reps N] [--before OLD_SLARM_BINARY] [--paper]"
                );
                return ExitCode::from(2);
            }
        }
    }
    let root = workspace_root();
    let python = match PythonEnv::prepare(&root) {
        Ok(p) => p,
        Err(SetupError::Unavailable(why) | SetupError::Broken(why)) => {
            eprintln!("xtask anchors: Python environment: {why}");
            return ExitCode::FAILURE;
        }
    };
    let load = || {
        std::fs::read_to_string("/proc/loadavg")
            .unwrap_or_default()
            .split_whitespace()
            .next()
            .unwrap_or("?")
            .to_string()
    };
    let load_before = load();
    match rows(&root, python.python(), reps, before.as_deref(), paper) {
        Ok(rows) => {
            println!(
                "load average (1 min) {load_before} before, {} after; {reps} runs each",
                load()
            );
            println!("| work | slarm | anchor | anchor / slarm | goal |");
            println!("|---|---|---|---|---|");
            for r in rows {
                println!("| {} |", r.join(" | "));
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("xtask anchors: {e}");
            ExitCode::FAILURE
        }
    }
}
