//! Batch sizing against one query at a time:
//! `cargo run --release -p slarm-queueing --example queueing_batch`.
//!
//! 10,000 queries of Algorithm 1 (Hu 2009, §4.2), offered loads 1 to 1000 erlangs evenly
//! spaced, mu = 1, SLA P(T <= 3) >= 0.9, answered by `min_nodes_batch` and by `min_nodes`
//! one by one. Both are timed (CPU time of this thread) over several repetitions; the median is printed,
//! and the two answer lists are checked to be equal. A second run uses the SLA
//! P(T <= 3) >= 0.95, whose answers lie further above the load.

use std::hint::black_box;
use std::time::Instant;

use slarm_queueing::sizing::{min_nodes_batch, SizingQuery};
use slarm_queueing::{min_nodes, QueueError, Sla};

const QUERIES: usize = 10_000;
const REPETITIONS: usize = 9;
/// Each repetition times this many passes over the queries (a few tenths of a second), since
/// the thread's CPU time advances in scheduler ticks of a few milliseconds.
const ROUNDS: usize = 60;

/// CPU seconds of this thread so far (`/proc/thread-self/schedstat`, wall clock where that
/// is unavailable), so the figures hold on a loaded machine.
fn cpu_now(wall: &Instant) -> f64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse::<f64>().ok())
        .map_or_else(|| wall.elapsed().as_secs_f64(), |ns| ns * 1e-9)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Times both ways on the loads 1..1000 with SLA `(x, y)`; prints the medians.
fn compare(x: f64, y: f64) -> Result<(), QueueError> {
    let sla = Sla::new(x, y)?;
    let queries: Vec<SizingQuery> = (0..QUERIES)
        .map(|k| {
            let load = 1.0 + 999.0 * k as f64 / (QUERIES - 1) as f64;
            SizingQuery::new(load, 1.0, sla)
        })
        .collect::<Result<_, _>>()?;
    let (mut batch_s, mut single_s) = (Vec::new(), Vec::new());
    let mut evaluations = 0.0;
    let wall = Instant::now();
    for _ in 0..REPETITIONS {
        let t = cpu_now(&wall);
        let mut batch = Vec::new();
        for _ in 0..ROUNDS {
            batch = black_box(min_nodes_batch(black_box(&queries)));
        }
        batch_s.push((cpu_now(&wall) - t) / ROUNDS as f64);
        let t = cpu_now(&wall);
        let mut single = Vec::new();
        for _ in 0..ROUNDS {
            single = black_box(&queries)
                .iter()
                .map(|q| min_nodes(q.lambda(), q.mu(), q.sla()))
                .collect();
        }
        single_s.push((cpu_now(&wall) - t) / ROUNDS as f64);
        if batch != black_box(single) {
            return Err(QueueError::InvalidConfig(
                "batch and one-by-one differ".into(),
            ));
        }
        // CDF evaluations of the one-by-one search: answer - floor(rho).
        evaluations = queries
            .iter()
            .zip(&batch)
            .map(|(q, m)| m.as_ref().map_or(0.0, |&m| m as f64 - q.lambda().floor()))
            .sum::<f64>()
            / QUERIES as f64;
    }
    let (b, s) = (median(batch_s), median(single_s));
    println!(
        "{QUERIES} queries, loads 1..1000 erlangs, mu = 1, SLA P(T <= {x}) >= {y}, \
         median of {REPETITIONS} repetitions of {ROUNDS} passes ({evaluations:.1} CDF evaluations per query one by one)"
    );
    println!(
        "  min_nodes_batch       {:8.3} ms  ({:.3} us/query)",
        b * 1e3,
        b * 1e6 / QUERIES as f64
    );
    println!(
        "  min_nodes one by one  {:8.3} ms  ({:.3} us/query)",
        s * 1e3,
        s * 1e6 / QUERIES as f64
    );
    println!("  speed-up              {:8.2}x", s / b);
    Ok(())
}

fn main() -> Result<(), QueueError> {
    compare(3.0, 0.9)?;
    // A target close to the bound 1 - e^{-3} = 0.9502: more servers above the load.
    compare(3.0, 0.95)
}
