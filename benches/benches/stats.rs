//! Benchmarks of `slarm-stats`: random streams and summaries (convolution benches join here).
#![allow(missing_docs)]

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use rand::Rng;
use slarm::stats::{RngStreams, Welford};

fn streams(c: &mut Criterion) {
    let s = RngStreams::new(1);
    c.bench_function("rng/derive_stream", |b| {
        b.iter(|| s.stream(black_box(&[1, 2, 3])))
    });
    let mut r = s.stream(&[0]);
    c.bench_function("rng/next_f64", |b| b.iter(|| r.gen::<f64>()));
    c.bench_function("summary/welford_1e4", |b| {
        b.iter(|| (0..10_000).map(|i| i as f64).collect::<Welford>().std_dev())
    });
}

criterion_group!(benches, streams);
criterion_main!(benches);
