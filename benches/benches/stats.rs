//! Benchmarks of `slarm-stats`: random streams, summaries, and grid convolution.
//!
//! The `convolution/*` groups measure direct and FFT convolution of two equal-length
//! distributions from 2^6 to 2^20 bins (direct up to 2^14: beyond that one call takes
//! seconds) and the automatic choice; the crossover they show calibrates
//! `slarm_stats::convolution::FFT_COST_RATIO` (docs/performance.md). Short run:
//! `cargo bench -p slarm-benches --bench stats -- --warm-up-time 1 --measurement-time 3`.
#![allow(missing_docs)]

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use rand::RngExt;
use slarm::stats::convolution::{convolve, convolve_direct, convolve_fft};
use slarm::stats::{GridDist, RngStreams, Welford};

fn streams(c: &mut Criterion) {
    let s = RngStreams::new(1);
    c.bench_function("rng/derive_stream", |b| {
        b.iter(|| s.stream(black_box(&[1, 2, 3])))
    });
    let mut r = s.stream(&[0]);
    c.bench_function("rng/next_f64", |b| b.iter(|| r.random::<f64>()));
    c.bench_function("summary/welford_1e4", |b| {
        b.iter(|| (0..10_000).map(|i| i as f64).collect::<Welford>().std_dev())
    });
}

/// A dense random distribution of `n` bins (fixed seed per size).
fn random_dist(n: usize, salt: u64) -> GridDist {
    let mut rng = RngStreams::new(7).stream(&[n as u64, salt]);
    let w: Vec<f64> = (0..n).map(|_| rng.random::<f64>()).collect();
    let s: f64 = w.iter().sum();
    match GridDist::new(0.0, 1.0, w.iter().map(|x| x / s).collect()) {
        Ok(d) => d,
        Err(e) => unreachable!("normalised weights are a valid distribution: {e}"),
    }
}

fn convolution(c: &mut Criterion) {
    let mut g = c.benchmark_group("convolution");
    g.sample_size(10);
    for k in 6..=20u32 {
        let n = 1usize << k;
        let (a, b) = (random_dist(n, 1), random_dist(n, 2));
        if k <= 14 {
            g.bench_with_input(BenchmarkId::new("direct", n), &n, |bch, _| {
                bch.iter(|| convolve_direct(black_box(&a), black_box(&b)))
            });
        }
        g.bench_with_input(BenchmarkId::new("fft", n), &n, |bch, _| {
            bch.iter(|| convolve_fft(black_box(&a), black_box(&b)))
        });
        if k <= 14 {
            g.bench_with_input(BenchmarkId::new("auto", n), &n, |bch, _| {
                bch.iter(|| convolve(black_box(&a), black_box(&b)))
            });
        }
    }
    g.finish();
    // Unequal operands (a short runtime PDF against a long start-time PDF).
    let mut g = c.benchmark_group("convolution_skewed_65536");
    g.sample_size(10);
    let long = random_dist(1 << 16, 3);
    for k in 5..=11u32 {
        let n = 1usize << k;
        let short = random_dist(n, 4);
        g.bench_with_input(BenchmarkId::new("direct", n), &n, |bch, _| {
            bch.iter(|| convolve_direct(black_box(&short), black_box(&long)))
        });
        g.bench_with_input(BenchmarkId::new("fft", n), &n, |bch, _| {
            bch.iter(|| convolve_fft(black_box(&short), black_box(&long)))
        });
    }
    g.finish();
}

criterion_group!(benches, streams, convolution);
criterion_main!(benches);
