//! A live scheduler's loop around the online overbooking planner (Birkenheuer 2012): every
//! arriving job gets an offer (start, nodes, allotted time, PoF, fee, penalty); the scheduler
//! accepts it when the expected profit is positive, reports job ends and kills as they happen,
//! and prints the decisions.
//!
//! `cargo run -p slarm-overbook --example online_planner`

use slarm_overbook::acceptance::TestSpec;
use slarm_overbook::classes::{ClassRegistry, RegistryConfig};
use slarm_overbook::job::{SlaJob, Time};
use slarm_overbook::planner::{OnlinePlanner, PlanEvent};
use slarm_overbook::sim::BatteryConfig;
use slarm_overbook::strategy::Strategy;
use slarm_overbook::Result;

/// A small synthetic workload: (arrival s, estimate s, real runtime s, nodes).
const WORKLOAD: [(Time, Time, Time, usize); 10] = [
    (0, 3600, 1500, 8),
    (60, 7200, 3000, 4),
    (120, 3600, 3600, 8),
    (300, 1800, 400, 2),
    (600, 5400, 2000, 6),
    (900, 3600, 3500, 4),
    (1200, 1800, 1700, 8),
    (1500, 7200, 1000, 2),
    (1800, 3600, 900, 4),
    (2400, 3600, 3000, 8),
];

fn main() -> Result<()> {
    // Statistics from history: jobs use 20-100 % of their estimate.
    let history: Vec<SlaJob> = (0..200)
        .map(|i| {
            let x = 1800 + 600 * (i % 6);
            let used = x * (20 + (i * 37) % 81) / 100;
            SlaJob::with_sla(i as u64, 0, x, used, 1 + (i as usize % 8), 1.0)
        })
        .collect::<Result<_>>()?;
    let registry = ClassRegistry::learn(&history, RegistryConfig::default())?;
    for strategy in [Strategy::HeurOverbook, Strategy::CompOverbook] {
        println!("== {} (16 nodes, PoF_max 0.3)", strategy.label());
        let cfg = BatteryConfig::new(strategy, TestSpec::Pof { max: 0.3 });
        let mut planner = OnlinePlanner::new(16, &registry, cfg)?;
        for (id, &(at, estimate, runtime, nodes)) in WORKLOAD.iter().enumerate() {
            run_until(&mut planner, at)?;
            let job = SlaJob::with_sla(id as u64, at, estimate, runtime, nodes, 1.0)?;
            match planner.offer(&job, at) {
                Ok(offer) => {
                    let profit = (1.0 - offer.pof()) * offer.fee() - offer.pof() * offer.penalty();
                    println!(
                        "t={at:>5} job {id}: start {:>5}, nodes {}, allotted {:>4}/{estimate} s, PoF {:.3}, fee {:.2}, penalty {:.2} -> {}",
                        offer.start(),
                        offer.nodes().map_or(nodes.to_string(), |n| format!("{n:?}")),
                        offer.allotted(),
                        offer.pof(),
                        offer.fee(),
                        offer.penalty(),
                        if profit > 0.0 { "accept" } else { "reject" },
                    );
                    if profit > 0.0 {
                        planner.accept(offer)?;
                    } else {
                        planner.reject(offer)?;
                    }
                }
                Err(e) => println!("t={at:>5} job {id}: no offer ({e})"),
            }
        }
        run_until(&mut planner, Time::MAX)?;
        for e in planner.jobs() {
            println!(
                "  job {}: {:?}, started {}, slot end {}, x = {}",
                e.job.id, e.state, e.start, e.slot_end, e.job.estimate
            );
        }
    }
    Ok(())
}

/// Lets time pass up to `until` (or until the plan is empty): jobs complete after their real
/// runtime or are killed at their slot end, whichever is first.
fn run_until(planner: &mut OnlinePlanner<'_>, until: Time) -> Result<()> {
    let end = |start: Time, slot_end: Time, job: &SlaJob| {
        let real = start + job.runtime.min(job.estimate);
        (real.min(slot_end), real <= slot_end)
    };
    loop {
        let next = planner
            .running()
            .map(|e| end(e.start, e.slot_end, e.job).0)
            .chain(planner.planned().map(|e| e.start))
            .filter(|&t| t <= until)
            .min();
        let Some(t) = next else {
            return if until == Time::MAX {
                Ok(())
            } else {
                planner.advance(until)
            };
        };
        let events: Vec<PlanEvent> = planner
            .running()
            .filter(|e| end(e.start, e.slot_end, e.job).0 <= t)
            .map(|e| {
                if end(e.start, e.slot_end, e.job).1 {
                    PlanEvent::Finished(e.key)
                } else {
                    PlanEvent::Killed(e.key)
                }
            })
            .collect();
        planner.update(t, &events)?;
    }
}
