//! slarm's side of the in-process anchors of `cargo xtask anchors` (the Python side is
//! `xtask/anchors/anchors.py`): the same work, timed the same way (median of REPS runs after
//! one warm-up).
//!
//! `anchor_probe fft LOG2N REPS`: FFT convolution of two 2^LOG2N-bin PMFs;
//! `anchor_probe sizing N REPS`: `min_nodes_batch` for N loads 1..1000 erlangs, mu = 1,
//! P(T <= 3) >= 0.9 (also prints the checksum of the answers).
#![allow(missing_docs)]

use std::hint::black_box;
use std::time::Instant;

use rand::{Rng, RngExt, SeedableRng};
use slarm::queueing::sizing::{min_nodes_batch, SizingQuery};
use slarm::queueing::Sla;
use slarm::stats::convolution::convolve_masses_fft;

fn median_seconds(mut f: impl FnMut(), reps: usize) -> f64 {
    f();
    let mut t: Vec<f64> = (0..reps.max(1))
        .map(|_| {
            let s = Instant::now();
            f();
            s.elapsed().as_secs_f64()
        })
        .collect();
    t.sort_by(f64::total_cmp);
    t[t.len() / 2]
}

fn pmf(n: usize, rng: &mut impl Rng) -> Vec<f64> {
    let v: Vec<f64> = (0..n).map(|_| rng.random::<f64>()).collect();
    let s: f64 = v.iter().sum();
    v.into_iter().map(|x| x / s).collect()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (mode, size, reps) = match args.as_slice() {
        [m, s, r] => (m.as_str(), s.parse::<usize>()?, r.parse::<usize>()?),
        _ => return Err("usage: anchor_probe fft|sizing SIZE REPS".into()),
    };
    match mode {
        "fft" => {
            let mut rng = rand::rngs::StdRng::seed_from_u64(1);
            let (a, b) = (pmf(1 << size, &mut rng), pmf(1 << size, &mut rng));
            let s = median_seconds(
                || {
                    black_box(convolve_masses_fft(black_box(&a), &b).ok());
                },
                reps,
            );
            println!("seconds {s:.6}");
        }
        "sizing" => {
            let sla = Sla::new(3.0, 0.9)?;
            let last = size.saturating_sub(1).max(1) as f64;
            let queries = (0..size)
                .map(|k| SizingQuery::new(1.0 + 999.0 * k as f64 / last, 1.0, sla))
                .collect::<Result<Vec<_>, _>>()?;
            let s = median_seconds(
                || {
                    black_box(min_nodes_batch(black_box(&queries)));
                },
                reps,
            );
            let sum: u64 = min_nodes_batch(&queries).into_iter().flatten().sum();
            println!("seconds {s:.6}");
            println!("checksum {sum}");
        }
        _ => return Err(format!("unknown mode {mode}").into()),
    }
    Ok(())
}
