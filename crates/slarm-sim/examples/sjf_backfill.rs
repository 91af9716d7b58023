//! A scheduling policy written outside `slarm-sim`: EASY with shortest-job-backfilled-first
//! (SJBF, Tsafrir, Etsion & Feitelson 2007): the queue head keeps EASY's reservation, and the
//! jobs behind it are tried for backfilling shortest estimate first instead of in queue
//! order. It implements [`SchedulingPolicy`] on top of the public [`fcfs_pass`] and
//! [`easy_pass`] and runs on an SWF trace beside the built-in EASY.
//!
//! `cargo run --release -p slarm-sim --example sjf_backfill -- [TRACE.swf[.gz]]`
//!
//! Without an argument it replays `KTH-SP2-1996-2.1-cln.swf.gz` (28,476 jobs) from the trace
//! folder (`$SLARM_TRACES`, else the workspace's default trace folder), and skips
//! with a message when that folder is absent.

use slarm_sim::batch::{simulate_with, QueueOrder, Schedule};
use slarm_sim::metrics::{Metrics, DEFAULT_TAU_S};
use slarm_sim::policy::{
    easy_pass, fcfs_pass, Candidate, Easy, MachineState, PassOutcome, SchedulingPolicy,
};
use slarm_workload::reader::{read_trace, ReadOptions};
use slarm_workload::{traces, Workload};

/// EASY backfilling whose backfill candidates are tried shortest estimate first.
#[derive(Default)]
struct ShortestJobBackfill {
    /// The queue as EASY sees it: prefix and head in queue order, then the rest by estimate.
    reordered: Vec<Candidate>,
    /// Position in the real queue of each entry of `reordered`.
    position: Vec<usize>,
}

impl SchedulingPolicy for ShortestJobBackfill {
    fn name(&self) -> &str {
        "sjf-backfill"
    }

    fn schedule(
        &mut self,
        machine: &MachineState<'_>,
        queue: &[Candidate],
        out: &mut PassOutcome,
    ) -> slarm_sim::Result<()> {
        // The jobs that start in queue order, then the blocked head.
        let head = fcfs_pass(machine.free, queue).start.len();
        let split = (head + 1).min(queue.len());
        self.position.clear();
        self.position.extend(0..split);
        let mut tail: Vec<usize> = (split..queue.len()).collect();
        tail.sort_by(|&a, &b| {
            queue[a]
                .estimate
                .total_cmp(&queue[b].estimate)
                .then(a.cmp(&b))
        });
        self.position.extend(tail);
        self.reordered.clear();
        self.reordered
            .extend(self.position.iter().map(|&p| queue[p]));
        let pass = easy_pass(machine.now, machine.free, machine.running, &self.reordered);
        out.clear();
        out.start
            .extend(pass.start.iter().map(|&k| self.position[k]));
        out.start.sort_unstable();
        out.shadow = pass.shadow;
        out.head = pass.head.map(|k| self.position[k]);
        Ok(())
    }
}

fn report(s: &Schedule) {
    let m = Metrics::of(s, DEFAULT_TAU_S);
    println!(
        "{:>13}: jobs {} mean wait {:.1} s, mean bounded slowdown {:.3}, utilisation {:.4}",
        s.policy, m.jobs, m.mean_wait_s, m.mean_bounded_slowdown, m.utilization
    );
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = match std::env::args_os().nth(1) {
        Some(p) => p.into(),
        None => match traces::or_skip("KTH-SP2-1996-2.1-cln.swf.gz") {
            Some(p) => p,
            None => return Ok(()),
        },
    };
    let w = Workload::from_trace(read_trace(&path, ReadOptions::default())?, None)?;
    println!("{} on {} processors", w.name, w.machine_procs);
    let easy = simulate_with(
        &w.jobs,
        w.machine_procs,
        &mut Easy::default(),
        &QueueOrder::Fcfs,
        None,
    )?;
    report(&easy);
    let sjbf = simulate_with(
        &w.jobs,
        w.machine_procs,
        &mut ShortestJobBackfill::default(),
        &QueueOrder::Fcfs,
        None,
    )?;
    report(&sjbf);
    Ok(())
}
