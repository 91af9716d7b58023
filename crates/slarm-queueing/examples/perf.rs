//! Plain timing of the hot paths (the criterion bench `benches/benches/queueing.rs` measures
//! the same through the facade): `cargo run --release -p slarm-queueing --example perf`.

use std::hint::black_box;
use std::time::Instant;

use slarm_queueing::erlang::{erlang_c, response_cdf_given_c, Mmm};
use slarm_queueing::{min_nodes, Sla};

fn time<F: FnMut() -> f64>(reps: u64, mut f: F) -> f64 {
    let mut s = 0.0;
    let t = Instant::now();
    for _ in 0..reps {
        s += f();
    }
    black_box(s);
    t.elapsed().as_secs_f64() / reps as f64
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let sla = Sla::new(3.0, 0.9)?;
    for (l, m) in [
        (8.0, 11u64),
        (90.0, 100),
        (990.0, 1_010),
        (100_000.0, 100_300),
    ] {
        let q = Mmm::new(l, 1.0, m)?;
        let c = q.erlang_c();
        let xs: Vec<f64> = (0..1_000).map(|k| 0.01 * k as f64).collect();
        let per_cdf = time(2_000, || {
            xs.iter()
                .map(|&x| response_cdf_given_c(black_box(x), 1.0, m, l, c))
                .sum()
        }) / xs.len() as f64;
        let reps = (2_000_000 / m).max(20);
        let per_c = time(reps, || erlang_c(black_box(m), black_box(l)).unwrap_or(0.0));
        let per_size = time(reps, || {
            min_nodes(black_box(l), 1.0, sla).map_or(0.0, |v| v as f64)
        });
        println!(
            "lambda={l} m={m}: F(x) given C {:.1} ns ({:.2e}/s); erlang_c {:.2} us; min_nodes(SLA(3,0.9)) = {} in {:.2} us",
            per_cdf * 1e9,
            1.0 / per_cdf,
            per_c * 1e6,
            min_nodes(l, 1.0, sla)?,
            per_size * 1e6
        );
    }
    Ok(())
}
