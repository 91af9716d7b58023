//! Hot paths of slarm-provision (Sung 2006, §5.2): the Monte Carlo g and k tables and the
//! backward recursion of one cost table, at p_max = 5 and 10 with small run counts (the
//! timings of the thesis's scalability test, Fig. 5.17, come from the `phase_times` example).
//!
//! `cargo bench -p slarm-benches --bench provision -- --warm-up-time 1 --measurement-time 3`
#![allow(missing_docs, clippy::unwrap_used)]

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use slarm::provision::dp::{build_table, CostInputs, Variant};
use slarm::provision::tables::{build_g, build_k};
use slarm::provision::{ArrivalProfile, Cost, CostShape, McSizes, Params};
use slarm::stats::RngStreams;

/// Small Monte Carlo sizes: 2,000 g runs, 100 saturated and 400 special k runs.
fn sizes() -> McSizes {
    let mut s = McSizes::quick();
    s.g.runs = 2_000;
    s.k.saturated_runs = 100;
    s.k.special_runs = 400;
    s
}

fn setup(p_max: usize) -> (Params, ArrivalProfile) {
    let params = Params {
        p_max,
        ..Params::thesis()
    }
    .validated()
    .unwrap();
    (params, ArrivalProfile::scaled_for(p_max).unwrap())
}

fn tables(c: &mut Criterion) {
    let mut g = c.benchmark_group("provision");
    g.sample_size(10);
    let streams = RngStreams::new(1);
    let sz = sizes();
    for p_max in [5usize, 10] {
        let (params, prof) = setup(p_max);
        g.bench_with_input(BenchmarkId::new("g_table", p_max), &p_max, |b, _| {
            b.iter(|| build_g(black_box(&params), &prof, &streams, &sz).unwrap())
        });
        g.bench_with_input(BenchmarkId::new("k_table", p_max), &p_max, |b, _| {
            b.iter(|| build_k(black_box(&params), &prof, &streams, &sz).unwrap())
        });
        let gt = build_g(&params, &prof, &streams, &sz).unwrap();
        let kt = build_k(&params, &prof, &streams, &sz).unwrap();
        let cost = Cost::preset(CostShape::Uniform, params.d, 1.0, 2.0).unwrap();
        let inputs = CostInputs::new(&params, &cost).unwrap();
        g.bench_with_input(BenchmarkId::new("cost_table_h3", p_max), &p_max, |b, _| {
            b.iter(|| {
                build_table(black_box(&params), &gt, &kt, &inputs, Variant::H3, None).unwrap()
            })
        });
    }
    g.finish();
}

criterion_group!(benches, tables);
criterion_main!(benches);
