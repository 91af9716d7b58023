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

fn write(input: &Path, out: &Path, copies: u64, scan: &Scan) -> Result<(), String> {
    let shift = (scan.last_submit - scan.first_submit + 1.0).ceil();
    let total = scan.jobs * copies;
    let file = std::fs::File::create(out).map_err(|e| format!("{}: {e}", out.display()))?;
    let mut w = BufWriter::with_capacity(1 << 20, file);
    let err = |e: std::io::Error| format!("{}: {e}", out.display());
    // The header, adjusted.
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
        match key {
            "MaxJobs" | "MaxRecords" => writeln!(w, "; {key}: {total}").map_err(err)?,
            "EndTime" => {}
            _ => writeln!(w, "{line}").map_err(err)?,
        }
    }
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
            for (i, f) in fields.iter().enumerate() {
                if i > 0 {
                    w.write_all(b" ").map_err(err)?;
                }
                let text: &str = match i {
                    0 => &id,
                    1 => &sub,
                    16 => pre.as_deref().unwrap_or(f),
                    _ => f,
                };
                w.write_all(text.as_bytes()).map_err(err)?;
            }
            w.write_all(b"\n").map_err(err)?;
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
        "usage: cargo xtask big-trace [--copies N] [--trace FILE] --out FILE\n  \
         N time-shifted copies (default {DEFAULT_COPIES}, 1..={MAX_COPIES}) of FILE (default \
         $SLARM_TRACES/{DEFAULT_TRACE}) as one plain SWF log"
    );
    ExitCode::from(2)
}

/// Entry point.
pub fn run(args: &[String]) -> ExitCode {
    let mut copies = DEFAULT_COPIES;
    let mut trace: Option<PathBuf> = None;
    let mut out: Option<PathBuf> = None;
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
        write(&trace, &out, copies, &s).map(|()| s.jobs * copies)
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
        write(&input, &out, 2, &s).unwrap();
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
}
