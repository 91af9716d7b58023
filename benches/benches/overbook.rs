//! Hot paths of slarm-overbook: heuristic PoS, the comprehensive predecessor convolution and
//! one synthetic battery per strategy.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use slarm::overbook::{
    acceptance::TestSpec,
    failure::FailureModel,
    grid::TimeGrid,
    harness::{FailureMode, TraceSetup},
    pos::heuristic_pos,
    sim::SimConfig,
    strategy::Strategy,
    workload::{prepare, synthetic_jobs},
};
use slarm::stats::{rng::RngStreams, RatioDist, Rounding};

fn dist() -> RatioDist {
    let samples = (0..1000).map(|i| (f64::from((i * 37) % 1000), 1000.0));
    RatioDist::learn(samples, Rounding::Up).unwrap()
}

fn bench_pos(c: &mut Criterion) {
    let d = dist();
    let m = FailureModel::default();
    c.bench_function("overbook/heuristic_pos", |b| {
        b.iter(|| heuristic_pos(black_box(&d), 4 * 3600, 2 * 3600, 16, &m).pos())
    });
    let g = TimeGrid::new(60.0).unwrap();
    let a = g
        .end(&g.point(0).unwrap(), &g.runtime(&d, 8 * 3600).unwrap(), 480)
        .unwrap();
    let bb = g
        .end(
            &g.point(10).unwrap(),
            &g.runtime(&d, 6 * 3600).unwrap(),
            370,
        )
        .unwrap();
    let rt = g.runtime(&d, 8 * 3600).unwrap();
    c.bench_function("overbook/comprehensive_joint_convolve_8h", |b| {
        b.iter(|| {
            let j = g.joint(&[&a, &bb], 0).unwrap();
            g.end(&j, black_box(&rt), 700).unwrap()
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
