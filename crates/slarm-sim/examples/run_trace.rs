//! Replays an SWF trace under a policy and prints the metrics and phase timings; optionally
//! writes the schedule CSV (`job_id,submit,start,end,procs`), e.g. to compare schedules
//! before and after a change or against `xtask/oracle/easy.py`. `--parts N` runs the
//! simulation split at idle instants into up to N parts at once (`simulate_in_parts`; the
//! same schedule).
//!
//! `cargo run --release -p slarm-sim --example run_trace -- TRACE.swf.gz easy [SCHEDULE.csv] [--parts N]`

use std::time::Instant;

use slarm_sim::batch::{simulate_in_parts, QueueOrder};
use slarm_sim::metrics::{write_schedule_csv, Metrics, DEFAULT_TAU_S};
use slarm_sim::policy::PolicyKind;
use slarm_workload::reader::{read_trace, ReadOptions};
use slarm_workload::Workload;

const USAGE: &str = "usage: run_trace TRACE [POLICY] [SCHEDULE.csv] [--parts N]";

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut parts = 1;
    if let Some(k) = args.iter().position(|a| a == "--parts") {
        parts = args.get(k + 1).ok_or(USAGE)?.parse()?;
        args.drain(k..k + 2);
    }
    let mut args = args.into_iter();
    let path = args.next().ok_or(USAGE)?;
    let policy: PolicyKind = args.next().unwrap_or_else(|| "easy".into()).parse()?;
    let csv = args.next();
    let t0 = Instant::now();
    let w = Workload::from_trace(read_trace(path.as_ref(), ReadOptions::default())?, None)?;
    let t1 = Instant::now();
    let make = || policy.build();
    let s = simulate_in_parts(
        &w.jobs,
        w.machine_procs,
        make,
        &QueueOrder::Fcfs,
        None,
        parts,
    )?;
    let t2 = Instant::now();
    let m = Metrics::of(&s, DEFAULT_TAU_S);
    println!(
        "jobs {} mean_wait_s {:.3} mean_bsld {:.4} utilization {:.5} makespan_s {}",
        m.jobs, m.mean_wait_s, m.mean_bounded_slowdown, m.utilization, m.makespan_s
    );
    println!(
        "read {:.3} s, simulate {:.3} s, {} events",
        (t1 - t0).as_secs_f64(),
        (t2 - t1).as_secs_f64(),
        s.events
    );
    if let Some(csv) = csv {
        let out = std::io::BufWriter::new(std::fs::File::create(&csv)?);
        write_schedule_csv(&s.records, out)?;
    }
    Ok(())
}
