//! `cargo xtask big-trace [--copies N] [--trace FILE] --out FILE`: a large SWF log made of
//! time-shifted copies of a real one, for the scale benchmarks of docs/performance.md.
//!
//! Copy `k` (0-based) is the input's job lines with every submit time shifted by `k * S`,
//! where `S` is the input's submit span (last submit - first submit) plus one second,
//! rounded up to whole seconds, so the copies follow each other without overlapping in
//! submissions. Jobs are renumbered 1, 2, ... in output order and a preceding-job field
//! (field 17) that names a job of the same copy is renumbered with it (else it becomes -1).
//! Every other field is copied as written. The header is kept, with `MaxJobs` and
//! `MaxRecords` set to the output's count, `EndTime` dropped and a note saying how the file
//! was made. The output is plain SWF and the same bytes for the same input and `--copies`;
//! it is meant for a scratch folder and is never committed (the input log is not ours).
//!
//! With `--format sacct` the same jobs are written as the output of
//! `SLURM_TIME_FORMAT=standard sacct -a -X -P --format=JobIDRaw,Submit,Eligible,Start,End,Elapsed,TimelimitRaw,NCPUS,NNodes,ReqCPUS,State,Partition,User,Group`
//! (see [`sacct_line`]), for the scale benchmark of the sacct reader: a site's Slurm log of a
//! busy year.

use std::collections::HashMap;
use std::io::{BufRead, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use slarm::workload::reader::decompressing;

const DEFAULT_COPIES: u64 = 10;
const MAX_COPIES: u64 = 1000;
/// At most this many output jobs (the benchmarks need 2M; bounds the disk a typo can take).
const MAX_JOBS: u64 = 50_000_000;
const DEFAULT_TRACE: &str = "HPC2N-2002-2.2-cln.swf.gz";

/// What the first pass learns about the input.
struct Scan {
    jobs: u64,
    first_submit: f64,
    last_submit: f64,
    /// Job number -> 1-based position among the job lines.
    position: HashMap<String, u64>,
}

fn open_lines(path: &Path) -> Result<Box<dyn BufRead + Send>, String> {
    let file = std::fs::File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
    decompressing(file, &path.display().to_string()).map_err(|e| e.to_string())
}

fn is_job_line(line: &str) -> bool {
    let t = line.trim_start();
    !t.is_empty() && !t.starts_with(';')
}

fn scan(path: &Path) -> Result<Scan, String> {
    let mut s = Scan {
        jobs: 0,
        first_submit: f64::INFINITY,
        last_submit: f64::NEG_INFINITY,
        position: HashMap::new(),
    };
    for (no, line) in open_lines(path)?.lines().enumerate() {
        let line = line.map_err(|e| format!("{}: {e}", path.display()))?;
        if !is_job_line(&line) {
            continue;
        }
        let mut fields = line.split_whitespace();
        let (Some(id), Some(submit)) = (fields.next(), fields.next()) else {
            return Err(format!(
                "{}: line {}: fewer than 2 fields",
                path.display(),
                no + 1
            ));
        };
        let submit: f64 = submit.parse().map_err(|_| {
            format!(
                "{}: line {}: field 2: submit time {submit:?} is not a number",
                path.display(),
                no + 1
            )
        })?;
        if !submit.is_finite() {
            return Err(format!(
                "{}: line {}: field 2: submit time is not finite",
                path.display(),
                no + 1
            ));
        }
        s.jobs += 1;
        s.first_submit = s.first_submit.min(submit);
        s.last_submit = s.last_submit.max(submit);
        s.position.entry(id.to_string()).or_insert(s.jobs);
    }
    if s.jobs == 0 {
        return Err(format!("{}: no job lines", path.display()));
    }
    Ok(s)
}

/// A number as SWF writes it: an integer without a fraction, else the shortest exact form.
fn number(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{}", x as i64)
    } else {
        format!("{x}")
    }
}

/// The output's format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Format {
    Swf,
    Sacct,
}

/// The header line of the sacct output.
const SACCT_HEADER: &str =
    "JobIDRaw|Submit|Eligible|Start|End|Elapsed|TimelimitRaw|NCPUS|NNodes|ReqCPUS|State|Partition|User|Group";

/// The instant that submit time 0 of the sacct output stands for (2024-01-01T00:00:00 UTC),
/// unless the header gives `UnixStartTime`.
const SACCT_EPOCH: i64 = 1_704_067_200;

/// SWF job fields (0-based: id, submit, wait, run time, allocated processors, requested
/// processors 7, requested time 8, status 10, user 11, group 12, partition 15) as a sacct
/// line in UTC from `epoch`. A job that ran (wait and run time known, processors known)
/// starts at submit + wait and ends a run time later, its state from the SWF status
/// (1 `COMPLETED`, 0 `FAILED`, 5 `CANCELLED by 0`, else `COMPLETED`); any other job never
/// started (`Unknown` start and end, `CANCELLED by 0`). The requested time becomes whole
/// minutes, rounded up (`UNLIMITED` when missing); names are `u`/`g`/`p` and the SWF number.
fn sacct_line(f: &[&str], epoch: i64) -> Result<String, String> {
    let num = |i: usize| -> f64 { f.get(i).and_then(|v| v.parse().ok()).unwrap_or(-1.0) };
    let time = |s: f64| -> Result<String, String> {
        let t = jiff::Timestamp::from_second(epoch + s.floor() as i64)
            .map_err(|e| format!("time {s}: {e}"))?;
        Ok(t.strftime("%Y-%m-%dT%H:%M:%S").to_string())
    };
    let (submit, wait, run) = (num(1), num(2), num(3));
    let procs = if num(4) > 0.0 { num(4) } else { num(7) };
    let req = if num(7) > 0.0 { num(7) } else { procs };
    let ran = wait >= 0.0 && run >= 0.0 && procs > 0.0;
    let elapsed = |s: i64| {
        let (d, h, m, sec) = (s / 86_400, s / 3600 % 24, s / 60 % 60, s % 60);
        if d > 0 {
            format!("{d}-{h:02}:{m:02}:{sec:02}")
        } else {
            format!("{h:02}:{m:02}:{sec:02}")
        }
    };
    let (start, end, el, ncpus) = if ran {
        let st = submit + wait;
        (
            time(st)?,
            time(st + run)?,
            elapsed(run.floor() as i64),
            procs as i64,
        )
    } else {
        ("Unknown".into(), "Unknown".into(), elapsed(0), 0)
    };
    let state = match (ran, num(10) as i64) {
        (true, 0) => "FAILED",
        (false, _) | (true, 5) => "CANCELLED by 0",
        _ => "COMPLETED",
    };
    let limit = if num(8) > 0.0 {
        ((num(8) / 60.0).ceil() as i64).to_string()
    } else {
        "UNLIMITED".into()
    };
    let name = |prefix: &str, i: usize| match num(i) as i64 {
        n if n >= 0 => format!("{prefix}{n}"),
        _ => String::new(),
    };
    let submitted = time(submit)?;
    Ok(format!(
        "{}|{submitted}|{submitted}|{start}|{end}|{el}|{limit}|{ncpus}|1|{}|{state}|{}|{}|{}",
        f[0],
        req.max(1.0) as i64,
        name("p", 15),
        name("u", 11),
        name("g", 12),
    ))
}

fn write(input: &Path, out: &Path, copies: u64, scan: &Scan, format: Format) -> Result<(), String> {
    let shift = (scan.last_submit - scan.first_submit + 1.0).ceil();
    let total = scan.jobs * copies;
    let file = std::fs::File::create(out).map_err(|e| format!("{}: {e}", out.display()))?;
    let mut w = BufWriter::with_capacity(1 << 20, file);
    let err = |e: std::io::Error| format!("{}: {e}", out.display());
    let mut epoch = SACCT_EPOCH;
    if format == Format::Sacct {
        writeln!(w, "{SACCT_HEADER}").map_err(err)?;
    }
    // The header, adjusted (SWF), or its start time (sacct).
    for line in open_lines(input)?.lines() {
        let line = line.map_err(|e| format!("{}: {e}", input.display()))?;
        if is_job_line(&line) {
            continue;
        }
        let key = line
            .trim_start_matches(';')
            .split(':')
            .next()
            .unwrap_or("")
            .trim();
        if format == Format::Sacct {
            if key == "UnixStartTime" {
                let value = line.split_once(':').map_or("", |(_, v)| v.trim());
                epoch = value.parse().unwrap_or(SACCT_EPOCH);
            }
            continue;
        }
        match key {
            "MaxJobs" | "MaxRecords" => writeln!(w, "; {key}: {total}").map_err(err)?,
            "EndTime" => {}
            _ => writeln!(w, "{line}").map_err(err)?,
        }
    }
    if format == Format::Swf {
        writeln!(
            w,
            "; Note: {copies} time-shifted copies of {} made by `cargo xtask big-trace`: copy k \
         (from 0) has its submit times shifted by k x {} s, jobs renumbered 1..{total}",
            input.file_name().map_or_else(
                || input.display().to_string(),
                |n| n.to_string_lossy().into()
            ),
            number(shift)
        )
        .map_err(err)?;
    }
    for k in 0..copies {
        let base = k * scan.jobs;
        let mut n = 0u64;
        for line in open_lines(input)?.lines() {
            let line = line.map_err(|e| format!("{}: {e}", input.display()))?;
            if !is_job_line(&line) {
                continue;
            }
            n += 1;
            let fields: Vec<&str> = line.split_whitespace().collect();
            let submit: f64 = fields[1].parse().unwrap_or(f64::NAN);
            let id = (base + n).to_string();
            let sub = number(submit + k as f64 * shift);
            let pre = fields.get(16).map(|p| match scan.position.get(*p) {
                Some(pos) if *p != "-1" => (base + pos).to_string(),
                _ => "-1".to_string(),
            });
            let copied: Vec<&str> = fields
                .iter()
                .enumerate()
                .map(|(i, f)| match i {
                    0 => id.as_str(),
                    1 => sub.as_str(),
                    16 => pre.as_deref().unwrap_or(f),
                    _ => f,
                })
                .collect();
            let line = match format {
                Format::Swf => copied.join(" "),
                Format::Sacct => sacct_line(&copied, epoch)
                    .map_err(|e| format!("{}: job {n}: {e}", input.display()))?,
            };
            writeln!(w, "{line}").map_err(err)?;
        }
        if n != scan.jobs {
            return Err(format!(
                "{}: changed while it was being copied",
                input.display()
            ));
        }
    }
    w.flush().map_err(err)
}

fn usage() -> ExitCode {
    eprintln!(
        "usage: cargo xtask big-trace [--copies N] [--trace FILE] [--format swf|sacct] --out FILE\n  \
         N time-shifted copies (default {DEFAULT_COPIES}, 1..={MAX_COPIES}) of FILE (default \
         $SLARM_TRACES/{DEFAULT_TRACE}) as one plain SWF log, or as sacct output"
    );
    ExitCode::from(2)
}

/// Entry point.
pub fn run(args: &[String]) -> ExitCode {
    let mut copies = DEFAULT_COPIES;
    let mut trace: Option<PathBuf> = None;
    let mut out: Option<PathBuf> = None;
    let mut format = Format::Swf;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match (a.as_str(), it.next()) {
            ("--copies", Some(v)) => match v.parse::<u64>() {
                Ok(n) if (1..=MAX_COPIES).contains(&n) => copies = n,
                _ => {
                    eprintln!("big-trace: --copies {v}: not an integer in 1..={MAX_COPIES}");
                    return ExitCode::from(2);
                }
            },
            ("--trace", Some(v)) => trace = Some(PathBuf::from(v)),
            ("--out", Some(v)) => out = Some(PathBuf::from(v)),
            ("--format", Some(v)) => match v.as_str() {
                "swf" => format = Format::Swf,
                "sacct" => format = Format::Sacct,
                _ => {
                    eprintln!("big-trace: --format {v}: not swf or sacct");
                    return ExitCode::from(2);
                }
            },
            _ => return usage(),
        }
    }
    let Some(out) = out else { return usage() };
    let Some(trace) = trace
        .or_else(|| std::env::var_os("SLARM_TRACES").map(|d| PathBuf::from(d).join(DEFAULT_TRACE)))
    else {
        eprintln!("big-trace: give --trace FILE or set SLARM_TRACES to the folder of the PWA logs");
        return ExitCode::from(2);
    };
    let result = scan(&trace).and_then(|s| {
        if s.jobs.saturating_mul(copies) > MAX_JOBS {
            return Err(format!(
                "--copies {copies}: {} jobs x {copies} is more than {MAX_JOBS}",
                s.jobs
            ));
        }
        write(&trace, &out, copies, &s, format).map(|()| s.jobs * copies)
    });
    match result {
        Ok(n) => {
            eprintln!("big-trace: {n} jobs written to {}", out.display());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("big-trace: {e}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copies_are_shifted_renumbered_and_the_header_adjusted() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("in.swf");
        std::fs::write(
            &input,
            "; MaxJobs: 2\n; MaxRecords: 2\n; EndTime: x\n; MaxProcs: 8\n\
             7 100 1 10 2 -1 -1 2 20 -1 1 3 1 -1 -1 1 -1 -1\n\
             9 150.5 1 10 2 -1 -1 2 20 -1 1 3 1 -1 -1 1 7 5\n",
        )
        .unwrap();
        let out = dir.path().join("out.swf");
        let s = scan(&input).unwrap();
        write(&input, &out, 2, &s, Format::Swf).unwrap();
        // Span 50.5 s + 1 s, rounded up: copy 1 is 52 s later.
        let want = "; MaxJobs: 4\n; MaxRecords: 4\n; MaxProcs: 8\n\
             ; Note: 2 time-shifted copies of in.swf made by `cargo xtask big-trace`: copy k \
             (from 0) has its submit times shifted by k x 52 s, jobs renumbered 1..4\n\
             1 100 1 10 2 -1 -1 2 20 -1 1 3 1 -1 -1 1 -1 -1\n\
             2 150.5 1 10 2 -1 -1 2 20 -1 1 3 1 -1 -1 1 1 5\n\
             3 152 1 10 2 -1 -1 2 20 -1 1 3 1 -1 -1 1 -1 -1\n\
             4 202.5 1 10 2 -1 -1 2 20 -1 1 3 1 -1 -1 1 3 5\n";
        assert_eq!(std::fs::read_to_string(&out).unwrap(), want);
    }

    #[test]
    fn the_sacct_copies_read_back_as_the_jobs_of_the_swf_copies() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("in.swf");
        std::fs::write(
            &input,
            "; UnixStartTime: 1000000000\n\
             7 100 5 90061 2 -1 -1 2 130 -1 1 3 1 -1 -1 1 -1 -1\n\
             8 120 -1 -1 -1 -1 -1 4 60 -1 5 4 2 -1 -1 -1 -1 -1\n\
             9 150 0 10 3 -1 -1 2 -1 -1 0 3 1 -1 -1 2 7 5\n",
        )
        .unwrap();
        let s = scan(&input).unwrap();
        let out = dir.path().join("out.sacct");
        write(&input, &out, 2, &s, Format::Sacct).unwrap();
        let text = std::fs::read_to_string(&out).unwrap();
        let want = format!(
            "{SACCT_HEADER}\n\
             1|2001-09-09T01:48:20|2001-09-09T01:48:20|2001-09-09T01:48:25|2001-09-10T02:49:26|1-01:01:01|3|2|1|2|COMPLETED|p1|u3|g1\n\
             2|2001-09-09T01:48:40|2001-09-09T01:48:40|Unknown|Unknown|00:00:00|1|0|1|4|CANCELLED by 0||u4|g2\n\
             3|2001-09-09T01:49:10|2001-09-09T01:49:10|2001-09-09T01:49:10|2001-09-09T01:49:20|00:00:10|UNLIMITED|3|1|2|FAILED|p2|u3|g1\n"
        );
        assert!(text.starts_with(&want), "{text}");
        let read = slarm::workload::sacct::read_sacct(&out, &Default::default()).unwrap();
        let jobs = &read.trace.jobs;
        assert_eq!(jobs.len(), 6);
        // Copy 1 is 51 s later (span 50 s + 1 s); times from the first submission.
        let submits: Vec<f64> = jobs.iter().map(|j| j.submit).collect();
        assert_eq!(submits, [0.0, 20.0, 50.0, 51.0, 71.0, 101.0]);
        let first = jobs.get(0).unwrap();
        assert_eq!(
            (first.wait, first.runtime, first.procs(), first.req_time),
            (5.0, 90061.0, 2, 180.0)
        );
        assert_eq!(
            (jobs.get(1).unwrap().runtime, jobs.get(2).unwrap().status),
            (-1.0, 0)
        );
    }
}
