//! Benchmarks of `slarm-grid`: one Table III simulation (1650 BoTs, DAS-3, 80 % load,
//! background on) per strategy, and the ECT placement of the Fig. 3 run. Short run:
//! `cargo bench -p slarm-benches --bench grid -- --warm-up-time 1 --measurement-time 3`.
#![allow(missing_docs)]

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use slarm::grid::prelude::*;
use slarm::grid::run::BackgroundSpec;
use slarm::stats::RngStreams;
use slarm_repro::papers::yigitbasi2010::{experiment_background, experiment_model};

fn scenario(s: StrategyKind, k: f64, policy: BotPolicy) -> Scenario {
    let mut sc = Scenario::paper(s, k);
    sc.model = experiment_model();
    sc.background = BackgroundSpec::Synthetic(experiment_background());
    sc.policy = policy;
    sc
}

fn simulations(c: &mut Criterion) {
    let streams = RngStreams::new(2010);
    let mut g = c.benchmark_group("grid/table3_run_1650_bots");
    g.sample_size(10);
    for (name, s, k) in [
        ("none", StrategyKind::None, 1.0),
        ("all_k2", StrategyKind::All, 2.0),
        ("dynamic_k2", StrategyKind::Dynamic, 2.0),
    ] {
        let sc = scenario(s, k, BotPolicy::DynPerTask);
        g.bench_function(name, |b| {
            b.iter(|| run_scenario(black_box(&sc), &streams).map(|r| r.consistency.c_d))
        });
    }
    let ect = scenario(StrategyKind::None, 1.0, BotPolicy::Ect);
    g.bench_function("ect_k1", |b| {
        b.iter(|| run_scenario(black_box(&ect), &streams).map(|r| r.consistency.c_d))
    });
    g.finish();
}

criterion_group!(benches, simulations);
criterion_main!(benches);
