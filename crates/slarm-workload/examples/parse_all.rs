//! Reads every trace of the trace folder strictly (gunzip + parse + drop rules), one after
//! the other, and prints jobs, dropped jobs, skipped lines and the time per trace: the
//! "parse all traces" figure of docs/performance.md. Run it under `/usr/bin/time -v` for
//! CPU time and peak memory.
//!
//! `cargo run --release -p slarm-workload --example parse_all`

use std::time::Instant;

use slarm_workload::reader::{read_trace, ReadOptions};
use slarm_workload::{traces, Workload};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let Some(files) = traces::files_or_skip() else {
        return Ok(());
    };
    let all = Instant::now();
    let mut total_jobs = 0;
    for path in &files {
        let t = Instant::now();
        let w = Workload::from_trace(read_trace(path, ReadOptions::default())?, None)?;
        total_jobs += w.jobs.len();
        println!(
            "{:<36} {:>8} jobs {:>6} dropped {:>2} skipped {:>7.1} ms",
            path.file_name()
                .map(|n| n.to_string_lossy())
                .unwrap_or_default(),
            w.jobs.len(),
            w.dropped.total(),
            w.skipped_lines,
            t.elapsed().as_secs_f64() * 1e3
        );
    }
    println!(
        "{} traces, {total_jobs} jobs in {:.3} s",
        files.len(),
        all.elapsed().as_secs_f64()
    );
    Ok(())
}
