//! A downstream user of slarm's model crates, through public API only: an SLA sizing query, a
//! response-time quantile and a batch of sizings (Hu 2009); a scheduling policy of its own and
//! EASY on a small synthetic trace, both schedules checked by slarm-testing; an offer of the
//! online overbooking planner (Birkenheuer 2012) that is accepted; a Libra+$ quote that the
//! submission then confirms (Yeo & Buyya).

use slarm_overbook::acceptance::TestSpec;
use slarm_overbook::classes::{ClassRegistry, RegistryConfig};
use slarm_overbook::planner::OnlinePlanner;
use slarm_overbook::planner::BatteryConfig;
use slarm_overbook::strategy::Strategy;
use slarm_pricing::online::Cluster;
use slarm_pricing::pricing::LibraPlusDollar;
use slarm_pricing::spec::{QosJob, JobSpec, UrgencyClass};
use slarm_pricing::timeshare::TimeSharedConfig;
use slarm_queueing::sizing::{min_nodes_batch, SizingQuery};
use slarm_queueing::{min_nodes, Mmm, Sla};
use slarm_sim::batch::{simulate, simulate_with, BatchConfig, QueueOrder};
use slarm_sim::policy::{Candidate, MachineState, PassOutcome, PolicyKind, SchedulingPolicy};
use slarm_testing::{check, Contract, ScheduledJob};
use slarm_workload::Job;

/// A policy the crate does not know: start every waiting job that fits now, in queue order, with
/// no reservation (greedy first fit; it may starve wide jobs, so only the capacity contract holds).
struct GreedyFirstFit;

impl SchedulingPolicy for GreedyFirstFit {
    fn name(&self) -> &str {
        "greedy-first-fit"
    }

    fn schedule(
        &mut self,
        machine: &MachineState<'_>,
        queue: &[Candidate],
        out: &mut PassOutcome,
    ) -> slarm_sim::Result<()> {
        out.clear();
        let mut free = machine.free;
        for (position, job) in queue.iter().enumerate() {
            if job.procs <= free {
                free -= job.procs;
                out.start.push(position);
            }
        }
        Ok(())
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // Sizing: 39.9 Erlangs of exponential service at rate 1, SLA P(T <= 3) >= 0.95.
    let sla = Sla::new(3.0, 0.95)?;
    let m = min_nodes(39.9, 1.0, sla)?;
    let met = Mmm::new(39.9, 1.0, m)?.response_cdf(3.0);
    let below = Mmm::new(39.9, 1.0, m - 1)?.response_cdf(3.0);
    if m != 52 || met < 0.95 || below >= 0.95 {
        return Err(format!("sizing: m = {m}, P(T<=3) = {met} at m, {below} at m-1").into());
    }

    // The 95 % response-time quantile is the SLA's bound seen from the other side.
    let q = Mmm::new(39.9, 1.0, m)?.response_time_quantile(0.95)?;
    let q_below = Mmm::new(39.9, 1.0, m - 1)?.response_time_quantile(0.95)?;
    if q > 3.0 || q_below <= 3.0 {
        return Err(format!("quantile: {q} at m, {q_below} at m - 1").into());
    }
    // A batch of sizings gives what one query at a time gives.
    let queries: Vec<SizingQuery> = (1..=100)
        .map(|l| SizingQuery::new(l as f64 * 0.7, 1.0, sla))
        .collect::<Result<_, _>>()?;
    for (q, batch) in queries.iter().zip(min_nodes_batch(&queries)) {
        let one = min_nodes(q.lambda(), 1.0, sla)?;
        if batch? != one {
            return Err(format!("batch sizing differs at lambda = {}", q.lambda()).into());
        }
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
    let rows: Vec<ScheduledJob> = s.records.iter().map(|r| ScheduledJob::from(&r)).collect();
    let violations = check(&jobs, 32, &rows, Contract::Easy)?;
    if let Some(v) = violations.first() {
        return Err(format!("{} EASY violations, first: {v:?}", violations.len()).into());
    }
    // A policy of our own through the same simulator, checked against the capacity contract.
    let own = simulate_with(&jobs, 32, &mut GreedyFirstFit, &QueueOrder::Fcfs, None)?;
    let rows: Vec<ScheduledJob> = own.records.iter().map(|r| ScheduledJob::from(&r)).collect();
    let violations = check(&jobs, 32, &rows, Contract::Capacity)?;
    if own.records.len() != jobs.len() || !violations.is_empty() {
        return Err(format!("greedy first fit: {} jobs, {violations:?}", own.records.len()).into());
    }
    // Libra+$: a quote changes nothing, and the submission decides what the quote said.
    let mut cluster = Cluster::new(&TimeSharedConfig::homogeneous(2, 168.0)?, LibraPlusDollar::new(1.0, 0.1, 1.0)?)?;
    let priced = QosJob::new(JobSpec::simple(0, 100.0, 1, 400.0, 125.0)?, 0.0, 100.0, UrgencyClass::Low)?;
    let quote = cluster.quote(&priced, 0.0)?;
    let price = quote.price().ok_or("the quote has no price")?;
    if cluster.submit(&priced, 0.0)? != quote.decision {
        return Err("Libra+$: the submission decided otherwise than its quote".into());
    }
    // Online overbooking: a job on a busy 8-node cluster is offered a later start, accepted,
    // and placed exactly as offered.
    let history: Vec<slarm_overbook::job::SlaJob> = (0..40)
        .map(|i| slarm_overbook::job::SlaJob::with_sla(i, 0, 3600, 1800, 2, 1.0))
        .collect::<Result<_, _>>()?;
    let registry = ClassRegistry::learn(&history, RegistryConfig::default())?;
    let cfg = BatteryConfig::new(Strategy::HeurOverbook, TestSpec::Pof { max: 0.2 });
    let mut planner = OnlinePlanner::owning(8, registry, cfg)?;
    let first = slarm_overbook::job::SlaJob::with_sla(1, 0, 3600, 3000, 8, 1.0)?;
    let offer = planner.offer(&first, 0)?;
    planner.accept(offer)?;
    let second = slarm_overbook::job::SlaJob::with_sla(2, 0, 3600, 3000, 8, 1.0)?;
    let offer = planner.offer(&second, 0)?;
    let (start, allotted) = (offer.start(), offer.allotted());
    let key = planner.accept(offer)?;
    let placed = planner.entry(key)?;
    if placed.start != start || placed.slot_end - placed.start != allotted || start != 3600 {
        return Err(format!("overbooking offer: start {start}, placed at {}", placed.start).into());
    }
    let makespan = s.records.iter().map(|r| r.end).fold(0.0, f64::max);
    println!("downstream ok: {m} nodes meet P(T<=3) = {met:.6} (95 % quantile {q:.4}); 100 batch sizings agree; EASY ran {} jobs, makespan {makespan} s; greedy first fit kept capacity; overbooking offer accepted at {start} s; Libra+$ quote {price:.2} confirmed", s.records.len());
    Ok(())
}
