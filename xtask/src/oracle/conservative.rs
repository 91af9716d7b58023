//! Comparison 5: our conservative backfilling schedules (`slarm::sim::batch::simulate_workload`
//! with `PolicyKind::Conservative`) against `xtask/oracle/conservative.py`, a reference
//! conservative backfilling written in Python from Mu'alem & Feitelson (2001) and
//! the trace conventions of the reference EASY, independently of slarm-sim.
//!
//! Mu'alem & Feitelson do not order the events of one second. slarm reserves the jobs that
//! arrive in the second of an early end before the pass compresses the plan; the reference
//! runs in that order (`--order reserve-first`) for the job-for-job comparison, and reports
//! for the other order (compress first, then reserve the arrivals) how many of the seconds in
//! which an early end and an arrival coincide get a different plan, and the mean wait of a
//! whole run in that order.
//!
//! Inputs: KTH-SP2, SDSC-SP2 and CTC-SP2 from the trace folder when present (CTC-SP2 only its
//! first `--conservative-ctc-first` job lines, 20,000 by default, to keep the Python run
//! short; `all` runs the whole log), else the two synthetic SWF traces of the EASY
//! comparison. The figure is the number of jobs whose (submit, start, end, procs) differ
//! (tolerance 0: identical), plus the jobs only one side scheduled.

use std::path::{Path, PathBuf};

use slarm::sim::policy::PolicyKind;

use super::easy::{differences, file_name, ours, read_schedule, synthetic, write_csv, Starts};
use super::{read_json, Context, Outcome};

/// The logs compared in full, and CTC-SP2, compared on a prefix unless told otherwise.
const FULL_TRACES: [&str; 2] = [
    "KTH-SP2-1996-2.1-cln.swf.gz",
    "SDSC-SP2-1998-4.2-cln.swf.gz",
];
const CTC_TRACE: &str = "CTC-SP2-1996-3.1-cln.swf.gz";
/// Job lines of CTC-SP2 compared by default (the Python reference needs minutes for all).
pub const CTC_DEFAULT_FIRST: usize = 20_000;

/// What the reference reports about the compress-first order.
struct Summary {
    coincident: u64,
    differing: u64,
    mean_wait: f64,
    other_mean_wait: f64,
}

fn reference(
    ctx: &Context,
    path: &Path,
    first: Option<usize>,
    label: &str,
) -> Result<(Starts, Summary), String> {
    let csv = ctx
        .scratch
        .join(format!("{label}-conservative-reference.csv"));
    let json = ctx
        .scratch
        .join(format!("{label}-conservative-summary.json"));
    let mut args = vec![
        path.as_os_str().to_owned(),
        csv.as_os_str().to_owned(),
        "--order".into(),
        "reserve-first".into(),
        "--summary".into(),
        json.as_os_str().to_owned(),
    ];
    if let Some(n) = first {
        args.push("--first".into());
        args.push(n.to_string().into());
    }
    let refs: Vec<&std::ffi::OsStr> = args.iter().map(|a| a.as_os_str()).collect();
    ctx.python
        .run(&ctx.scripts.join("conservative.py"), &refs)?;
    let starts = read_schedule(&csv)?;
    let doc = read_json(&json)?;
    let int = |key: &str| {
        doc[key]
            .as_u64()
            .ok_or(format!("{}: no whole number `{key}`", json.display()))
    };
    let real = |key: &str| {
        doc[key]
            .as_f64()
            .ok_or(format!("{}: no number `{key}`", json.display()))
    };
    let summary = Summary {
        coincident: int("coincident")?,
        differing: int("differing")?,
        mean_wait: real("mean_wait")?,
        other_mean_wait: real("other_mean_wait")?,
    };
    Ok((starts, summary))
}

fn inputs(ctx: &Context) -> Result<Vec<(String, PathBuf, Option<usize>)>, String> {
    if let Some(dir) = &ctx.traces {
        let names: Vec<(&str, Option<usize>)> = FULL_TRACES
            .iter()
            .map(|n| (*n, None))
            .chain(std::iter::once((CTC_TRACE, ctx.conservative_ctc_first)))
            .collect();
        if names.iter().all(|(n, _)| dir.join(n).is_file()) {
            return Ok(names
                .into_iter()
                .map(|(name, first)| {
                    let label = name.split('-').next().unwrap_or(name).to_string();
                    (label, dir.join(name), first)
                })
                .collect());
        }
    }
    let mut out = Vec::new();
    for (i, procs) in [(0u64, 64u32), (1, 100)] {
        let p = ctx.scratch.join(format!("synthetic-{i}.swf"));
        synthetic(&p, i, procs)?;
        out.push((format!("synthetic{i}-{procs}p"), p, None));
    }
    Ok(out)
}

/// Runs the comparison.
pub fn compare(ctx: &Context) -> Vec<Outcome> {
    let inputs = match inputs(ctx) {
        Ok(i) => i,
        Err(e) => return vec![Outcome::error("conservative", &e)],
    };
    let mut out = Vec::new();
    for (label, path, first) in inputs {
        let name = format!("conservative/{label} vs conservative.py");
        let t0 = std::time::Instant::now();
        match compare_one(ctx, &label, &path, first) {
            Ok(o) => out.push(Outcome { name, ..o }),
            Err(e) => out.push(Outcome::error(&name, &e)),
        }
        eprintln!(
            "oracle: conservative/{label} took {:.1} s",
            t0.elapsed().as_secs_f64()
        );
    }
    out
}

fn compare_one(
    ctx: &Context,
    label: &str,
    path: &Path,
    first: Option<usize>,
) -> Result<Outcome, String> {
    let (ours, jobs) = ours(path, first, PolicyKind::Conservative)?;
    let (theirs, summary) = reference(ctx, path, first, label)?;
    write_csv(
        &ctx.scratch.join(format!("{label}-conservative-ours.csv")),
        &ours,
    )?;
    let (differ, only_theirs, example) = differences(&ours, &theirs);
    let bad = differ + only_theirs;
    let scope = match first {
        Some(n) => format!("first {n} job lines of {}", file_name(path)),
        None => file_name(path),
    };
    let change = if summary.other_mean_wait > 0.0 {
        format!(
            "{:+.2} %",
            100.0 * (summary.mean_wait - summary.other_mean_wait) / summary.other_mean_wait
        )
    } else {
        "n/a (no wait)".to_string()
    };
    Ok(Outcome::within(
        "conservative",
        bad as f64,
        0.0,
        format!(
            "{differ} of {} jobs differ in (submit, start, end, procs), {only_theirs} only in the reference{example} ({jobs} jobs after drops, {scope}); \
             compress-first order: plan differs at {} of {} seconds where an early end and an arrival coincide, \
             mean wait {:.1} s reserve-first vs {:.1} s compress-first ({change})",
            ours.len(),
            summary.differing,
            summary.coincident,
            summary.mean_wait,
            summary.other_mean_wait,
        ),
        "identical".to_string(),
    ))
}
