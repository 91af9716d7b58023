//! Benches of the trace simulator's hot paths: EASY and conservative backfilling on a
//! calibrated synthetic workload (5,000 jobs, 128 processors), SWF parsing, and the
//! availability profile's earliest-fit query.
//!
//! `cargo bench -p slarm-benches --bench sim -- --warm-up-time 1 --measurement-time 3`

#![allow(missing_docs, clippy::unwrap_used)]

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use slarm::sim::batch::{simulate_workload, BatchConfig};
use slarm::sim::policy::PolicyKind;
use slarm::sim::profile::Profile;
use slarm::workload::reader::{read_trace_from, ReadOptions};
use slarm::workload::writer::write_swf;
use slarm_benches::synthetic_workload;

fn bench(c: &mut Criterion) {
    let w = synthetic_workload(5_000);
    for policy in [PolicyKind::Easy, PolicyKind::Conservative] {
        c.bench_function(&format!("simulate {policy:?} 5k jobs"), |b| {
            b.iter(|| simulate_workload(black_box(&w), &BatchConfig::new(policy)).unwrap())
        });
    }
    let mut swf = Vec::new();
    write_swf(&w.header, &w.jobs, &mut swf).unwrap();
    c.bench_function("parse 5k SWF lines", |b| {
        b.iter(|| {
            read_trace_from(
                std::io::Cursor::new(swf.clone()),
                "bench",
                ReadOptions::default(),
            )
            .unwrap()
        })
    });
    let mut p = Profile::new(128, 0.0).unwrap();
    for i in 0..500 {
        let s = f64::from(i) * 10.0;
        let _ = p.reserve(s, s + 95.0, 1 + (i % 13) as u32);
    }
    c.bench_function("profile earliest_fit 500 reservations", |b| {
        b.iter(|| p.earliest_fit(black_box(0.0), 100, 300.0).unwrap())
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
