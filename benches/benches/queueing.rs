//! Hot paths of slarm-queueing (Hu 2009): F(x) given Erlang C, Erlang C, Algorithm 1
//! sizing (response-time SLA) and waiting-time-SLA sizing (pyworkforce's query) at m ~ 10,
//! 10^3, 10^5.
#![allow(missing_docs, clippy::unwrap_used)]

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use slarm::queueing::erlang::{erlang_c, response_cdf_given_c, Mmm};
use slarm::queueing::sizing::{min_nodes_batch, min_nodes_waiting, SizingQuery};
use slarm::queueing::{min_nodes, Sla};

/// (lambda, m) with m near the SLA(3, 0.9) size: m ~ 10, 10^3, 10^5.
const LOADS: [(f64, u64); 3] = [(8.0, 11), (990.0, 1_010), (100_000.0, 100_300)];

fn cdf(c: &mut Criterion) {
    let mut g = c.benchmark_group("queueing/cdf_given_c");
    let xs: Vec<f64> = (0..1_000).map(|k| 0.01 * k as f64).collect();
    g.throughput(Throughput::Elements(xs.len() as u64));
    for &(l, m) in &LOADS {
        let q = Mmm::new(l, 1.0, m).unwrap();
        let cc = q.erlang_c();
        g.bench_with_input(BenchmarkId::from_parameter(m), &m, |b, &m| {
            b.iter(|| {
                let mut s = 0.0;
                for &x in &xs {
                    s += response_cdf_given_c(black_box(x), 1.0, m, l, cc);
                }
                s
            })
        });
    }
    g.finish();
}

fn erlang(c: &mut Criterion) {
    let mut g = c.benchmark_group("queueing/erlang_c");
    for &(l, m) in &LOADS {
        g.bench_with_input(BenchmarkId::from_parameter(m), &m, |b, &m| {
            b.iter(|| erlang_c(black_box(m), black_box(l)).unwrap())
        });
    }
    g.finish();
}

fn sizing(c: &mut Criterion) {
    let mut g = c.benchmark_group("queueing/min_nodes");
    let sla = Sla::new(3.0, 0.9).unwrap();
    for &(l, _) in &LOADS {
        g.bench_with_input(BenchmarkId::new("lambda", l), &l, |b, &l| {
            b.iter(|| min_nodes(black_box(l), 1.0, sla).unwrap())
        });
    }
    g.finish();
}

fn sizing_waiting(c: &mut Criterion) {
    let mut g = c.benchmark_group("queueing/min_nodes_waiting");
    for &(l, _) in &LOADS {
        g.bench_with_input(BenchmarkId::new("lambda", l), &l, |b, &l| {
            b.iter(|| min_nodes_waiting(black_box(l), 1.0, 0.1, 0.9).unwrap())
        });
    }
    g.finish();
}

/// 10,000 queries, loads 1 to 1000 erlangs evenly spaced, SLA P(T <= 3) >= 0.9: the batch
/// against the same queries one by one (the anchor is numpy's vectorised search,
/// `cargo xtask anchors`).
fn sizing_batch(c: &mut Criterion) {
    let mut g = c.benchmark_group("queueing/sizing_10k");
    let sla = Sla::new(3.0, 0.9).unwrap();
    let queries: Vec<SizingQuery> = (0..10_000)
        .map(|k| SizingQuery::new(1.0 + 999.0 * k as f64 / 9_999.0, 1.0, sla).unwrap())
        .collect();
    g.throughput(Throughput::Elements(queries.len() as u64));
    g.bench_function("batch", |b| b.iter(|| min_nodes_batch(black_box(&queries))));
    g.bench_function("one_by_one", |b| {
        b.iter(|| {
            queries
                .iter()
                .map(|q| min_nodes(black_box(q.lambda()), q.mu(), q.sla()).unwrap())
                .sum::<u64>()
        })
    });
    g.finish();
}

criterion_group!(benches, cdf, erlang, sizing, sizing_waiting, sizing_batch);
criterion_main!(benches);
