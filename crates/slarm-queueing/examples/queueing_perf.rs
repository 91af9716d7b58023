//! CPU-time figures of the hot paths (the criterion bench `benches/benches/queueing.rs`
//! measures the same through the facade):
//! `cargo run --release -p slarm-queueing --example queueing_perf`.
//!
//! Times are CPU time of this thread (`/proc/thread-self/schedstat`, wall clock where that is
//! unavailable), so they hold on a loaded machine. The sizing queries are the ones of
//! `examples/pyworkforce_sizing.py`, which times pyworkforce 0.5.1 on the same queries.

use std::hint::black_box;
use std::time::Instant;

use slarm_queueing::difference::{g_thesis, LambdaGrid};
use slarm_queueing::erlang::{erlang_c, response_cdf_given_c, Mmm};
use slarm_queueing::sim::{simulate, Discipline, QueueSimConfig};
use slarm_queueing::sizing::min_nodes_waiting;
use slarm_queueing::{min_nodes, JobClass, Sla};

/// Loads of the sizing comparison with pyworkforce (same list in the Python script).
const SIZING_LOADS: [f64; 5] = [8.0, 90.0, 990.0, 10_000.0, 100_000.0];
/// Response-time SLA P(T <= 3) >= 0.9 and waiting-time SLA P(W <= 0.1) >= 0.9.
const RESPONSE_SLA: (f64, f64) = (3.0, 0.9);
const WAITING_SLA: (f64, f64) = (0.1, 0.9);

/// CPU seconds of this thread so far.
fn cpu_now(wall: &Instant) -> f64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse::<f64>().ok())
        .map_or_else(|| wall.elapsed().as_secs_f64(), |ns| ns * 1e-9)
}

/// CPU seconds per call of `f`: batches of doubling size until one batch takes at least
/// 0.3 s of CPU time (so reading the clock costs nothing per call).
fn per_call<F: FnMut() -> f64>(mut f: F) -> f64 {
    let wall = Instant::now();
    let mut batch = 16u64;
    let mut sink = 0.0;
    loop {
        let start = cpu_now(&wall);
        for _ in 0..batch {
            sink += f();
        }
        let spent = cpu_now(&wall) - start;
        if spent >= 0.3 {
            black_box(sink);
            return spent / batch as f64;
        }
        batch *= 2;
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("# F(x) given a precomputed Erlang C, and Erlang C itself");
    for (l, m) in [
        (8.0, 11u64),
        (90.0, 100),
        (990.0, 1_010),
        (100_000.0, 100_300),
    ] {
        let c = Mmm::new(l, 1.0, m)?.erlang_c();
        let xs: Vec<f64> = (0..1_000).map(|k| 0.01 * k as f64).collect();
        let per_cdf = per_call(|| {
            xs.iter()
                .map(|&x| response_cdf_given_c(black_box(x), 1.0, m, l, c))
                .sum()
        }) / xs.len() as f64;
        let per_c = per_call(|| erlang_c(black_box(m), black_box(l)).unwrap_or(0.0));
        println!(
            "lambda={l} m={m}: F(x) given C {:.1} ns ({:.2e}/s); erlang_c {:.3} us",
            per_cdf * 1e9,
            1.0 / per_cdf,
            per_c * 1e6
        );
    }
    println!("# sizing queries (same as examples/pyworkforce_sizing.py)");
    let sla = Sla::new(RESPONSE_SLA.0, RESPONSE_SLA.1)?;
    let (t, y) = WAITING_SLA;
    for l in SIZING_LOADS {
        let m_resp = min_nodes(l, 1.0, sla)?;
        let m_wait = min_nodes_waiting(l, 1.0, t, y)?;
        let per_resp = per_call(|| min_nodes(black_box(l), 1.0, sla).map_or(0.0, |v| v as f64));
        let per_wait =
            per_call(|| min_nodes_waiting(black_box(l), 1.0, t, y).map_or(0.0, |v| v as f64));
        println!(
            "lambda={l}: response SLA(3, 0.9) m = {m_resp} in {:.3} us; waiting SLA P(W<=0.1)>=0.9 m = {m_wait} in {:.3} us",
            per_resp * 1e6,
            per_wait * 1e6
        );
    }
    let per_g = per_call(|| g_thesis(black_box(sla), 1.0, LambdaGrid::G).unwrap_or(0.0));
    println!(
        "# G_thesis(SLA(3, 0.9)) on the 0.1 grid: {:.2} us",
        per_g * 1e6
    );
    // The simulator at the thesis's run length: lambda = 15 + 5, m = 22, T = 20,000, 10 reps.
    let classes = [
        JobClass::new(15.0, Sla::new(4.5, 0.8)?)?,
        JobClass::new(5.0, Sla::new(2.5, 0.9)?)?,
    ];
    let cfg = QueueSimConfig::default();
    for d in [
        Discipline::Fcfs,
        Discipline::Hol { order: vec![1, 0] },
        Discipline::Pdp,
    ] {
        let wall = Instant::now();
        let start = cpu_now(&wall);
        let r = simulate(&classes, 1.0, 22, &d, &cfg)?;
        let spent = cpu_now(&wall) - start;
        let jobs: u64 = r.classes.iter().map(|c| c.completed).sum();
        println!(
            "# simulate {} (2 classes, lambda 20, m 22, T 20000, 10 reps): {:.3} s CPU, {:.1} ns per measured job",
            d.name(),
            spent,
            spent / jobs as f64 * 1e9
        );
    }
    Ok(())
}
