//! Hot paths of slarm-overbook: heuristic PoS, the comprehensive predecessor convolution and
//! one synthetic battery per strategy.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use slarm::overbook::{
    acceptance::TestSpec,
    failure::FailureModel,
    grid::{GridCdf, TimeGrid},
    harness::{FailureMode, TraceSetup},
    pos::heuristic_pos,
    ratio::{BinRounding, RatioDistribution},
    sim::SimConfig,
    strategy::Strategy,
    workload::{prepare, synthetic_jobs},
};
use slarm::stats::rng::RngStreams;

fn dist() -> RatioDistribution {
    let samples: Vec<(i64, i64)> = (0..1000).map(|i| ((i * 37) % 1000, 1000)).collect();
    RatioDistribution::learn(samples, BinRounding::Ceil).unwrap()
}

fn bench_pos(c: &mut Criterion) {
    let d = dist();
    let m = FailureModel::default();
    c.bench_function("overbook/heuristic_pos", |b| {
        b.iter(|| heuristic_pos(black_box(&d), 4 * 3600, 2 * 3600, 16, &m).pos())
    });
    let g = TimeGrid::new(60.0).unwrap();
    let a = GridCdf::step_at(0).convolve(&g.runtime_pmf(&d, 8 * 3600), 480);
    let bb = GridCdf::step_at(10).convolve(&g.runtime_pmf(&d, 6 * 3600), 370);
    let rt = g.runtime_pmf(&d, 8 * 3600);
    c.bench_function("overbook/comprehensive_joint_convolve_8h", |b| {
        b.iter(|| {
            let j = GridCdf::joint(&[&a, &bb], 0);
            j.convolve(black_box(&rt), 700)
        })
    });
}

fn bench_battery(c: &mut Criterion) {
    let mut rng = RngStreams::new(5).stream(&[1]);
    let jobs = synthetic_jobs(128, 3000, &mut rng);
    let p = prepare("synthetic", jobs, 128, 1000, None, 0, true).unwrap();
    let setup = TraceSetup::from_prepared(p).unwrap();
    let mut group = c.benchmark_group("overbook/battery1000");
    group.sample_size(10);
    for s in Strategy::ALL {
        let cfg = SimConfig::new(s, TestSpec::Pof { max: 0.3 });
        group.bench_function(s.name(), |b| {
            b.iter(|| {
                setup
                    .run_battery(
                        0,
                        1000,
                        slarm::overbook::classes::StatsSource::Runtime,
                        &cfg,
                        FailureMode::Synthetic,
                        1,
                    )
                    .unwrap()
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench_pos, bench_battery);
criterion_main!(benches);
