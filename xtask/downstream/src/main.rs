//! A downstream user of slarm's model crates: one SLA sizing query (Hu 2009), an EASY
//! simulation of a small synthetic trace, checked against EASY's contract by slarm-testing, and an
//! offer of the online overbooking planner (Birkenheuer 2012) that is accepted.

use slarm_overbook::acceptance::TestSpec;
use slarm_overbook::classes::{ClassRegistry, RegistryConfig};
use slarm_overbook::planner::OnlinePlanner;
use slarm_overbook::sim::SimConfig;
use slarm_overbook::strategy::Strategy;
use slarm_queueing::{min_nodes, Mmm, Sla};
use slarm_sim::batch::{simulate, BatchConfig};
use slarm_sim::policy::PolicyKind;
use slarm_testing::{check, Contract, ScheduledJob};
use slarm_workload::Job;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // Sizing: 39.9 Erlangs of exponential service at rate 1, SLA P(T <= 3) >= 0.95.
    let sla = Sla::new(3.0, 0.95)?;
    let m = min_nodes(39.9, 1.0, sla)?;
    let met = Mmm::new(39.9, 1.0, m)?.response_cdf(3.0);
    let below = Mmm::new(39.9, 1.0, m - 1)?.response_cdf(3.0);
    if m != 52 || met < 0.95 || below >= 0.95 {
        return Err(format!("sizing: m = {m}, P(T<=3) = {met} at m, {below} at m-1").into());
    }

    // EASY backfilling of 300 jobs on 32 processors.
    let jobs: Vec<Job> = (0..300u64)
        .map(|i| {
            let runtime = 20.0 + ((i * 37) % 400) as f64;
            Job::new(i, i as f64 * 9.0, runtime, 1 + (i % 16) as i64, runtime * 1.5)
        })
        .collect();
    let s = simulate(&jobs, 32, &BatchConfig::new(PolicyKind::Easy))?;
    if s.records.len() != jobs.len() {
        return Err(format!("{} of {} jobs ran", s.records.len(), jobs.len()).into());
    }
    // The schedule keeps EASY's contract, checked by slarm-testing's checker: no over-commit,
    // no start before submission, the queue head's reservation never delayed.
    let rows: Vec<ScheduledJob> = s.records.iter().map(ScheduledJob::from).collect();
    let violations = check(&jobs, 32, &rows, Contract::Easy)?;
    if let Some(v) = violations.first() {
        return Err(format!("{} EASY violations, first: {v:?}", violations.len()).into());
    }
    // Online overbooking: a job on a busy 8-node cluster is offered a later start, accepted,
    // and placed exactly as offered.
    let history: Vec<slarm_overbook::job::Job> = (0..40)
        .map(|i| slarm_overbook::job::Job::with_sla(i, 0, 3600, 1800, 2, 1.0))
        .collect::<Result<_, _>>()?;
    let registry = ClassRegistry::learn(&history, RegistryConfig::default())?;
    let cfg = SimConfig::new(Strategy::HeurOverbook, TestSpec::Pof { max: 0.2 });
    let mut planner = OnlinePlanner::owning(8, registry, cfg)?;
    let first = slarm_overbook::job::Job::with_sla(1, 0, 3600, 3000, 8, 1.0)?;
    let offer = planner.offer(&first, 0)?;
    planner.accept(offer)?;
    let second = slarm_overbook::job::Job::with_sla(2, 0, 3600, 3000, 8, 1.0)?;
    let offer = planner.offer(&second, 0)?;
    let (start, allotted) = (offer.start(), offer.allotted());
    let key = planner.accept(offer)?;
    let placed = planner.entry(key)?;
    if placed.start != start || placed.slot_end - placed.start != allotted || start != 3600 {
        return Err(format!("overbooking offer: start {start}, placed at {}", placed.start).into());
    }
    let makespan = s.records.iter().map(|r| r.end).fold(0.0, f64::max);
    println!("downstream ok: {m} nodes meet P(T<=3) = {met:.6}; EASY ran {} jobs, makespan {makespan} s; overbooking offer accepted at {start} s", s.records.len());
    Ok(())
}
