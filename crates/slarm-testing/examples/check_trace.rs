//! Simulates an SWF trace under FCFS, EASY and conservative backfilling and checks each
//! schedule against its contract with the schedule checker.
//!
//! `cargo run -p slarm-testing --example check_trace -- [TRACE.swf[.gz]] [JOBS]`; without a
//! path it reads the KTH-SP2 trace from the trace folder (`$SLARM_TRACES`), or skips.

use slarm_sim::batch::{simulate, BatchConfig};
use slarm_sim::policy::PolicyKind;
use slarm_testing::{check, Contract, ScheduledJob};
use slarm_workload::reader::{read_trace, ReadOptions};
use slarm_workload::{traces, Workload};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let path = match args.next() {
        Some(p) => p.into(),
        None => match traces::or_skip("KTH-SP2-1996-2.1-cln.swf.gz") {
            Some(p) => p,
            None => return Ok(()),
        },
    };
    let jobs: usize = args.next().map_or(Ok(2_000), |s| s.parse())?;
    let mut w = Workload::from_trace(read_trace(&path, ReadOptions::default())?, None)?;
    w.jobs.truncate(jobs);
    println!(
        "{} ({} jobs, {} processors)",
        w.name,
        w.jobs.len(),
        w.machine_procs
    );
    for (policy, contract) in [
        (PolicyKind::Fcfs, Contract::Fcfs),
        (PolicyKind::Easy, Contract::Easy),
        (PolicyKind::Conservative, Contract::Conservative),
    ] {
        let s = simulate(&w.jobs, w.machine_procs, &BatchConfig::new(policy))?;
        let rows: Vec<ScheduledJob> = s.records.iter().map(|r| ScheduledJob::from(&r)).collect();
        let jobs = w.jobs.to_vec();
        let own = check(&jobs, w.machine_procs, &rows, contract)?;
        // EASY and conservative schedules backfill, so they break the FCFS contract.
        let fcfs = check(&jobs, w.machine_procs, &rows, Contract::Fcfs)?;
        println!(
            "{policy:?}: {} violations of {contract:?}, {} of Fcfs",
            own.len(),
            fcfs.len()
        );
    }
    Ok(())
}
