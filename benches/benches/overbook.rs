//! Hot paths of slarm-overbook: heuristic PoS, the comprehensive predecessor convolution, one
//! synthetic battery per strategy and the online planner's offer on a 1000-job plan.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use slarm::overbook::{
    acceptance::TestSpec,
    classes::{ClassRegistry, RegistryConfig},
    clock::thread_cpu_ns,
    failure::FailureModel,
    grid::TimeGrid,
    job::SlaJob,
    planner::OnlinePlanner,
    pos::heuristic_pos,
    sim::BatteryConfig,
    strategy::Strategy,
    workload::{prepare, synthetic_jobs},
};
use slarm::stats::{rng::RngStreams, RatioDist, Rounding};
use slarm_repro::papers::birkenheuer2012::harness::{FailureMode, TraceSetup};

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
        let cfg = BatteryConfig::new(s, TestSpec::Pof { max: 0.3 });
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

/// A job of the offer bench: every job is known at time 0 and may end late (deadline far
/// away), so that all 1000 are accepted into one plan.
fn plan_job(id: u64, rng: &mut impl rand::RngExt) -> SlaJob {
    let estimate = rng.random_range(10..240) * 60;
    let runtime = (estimate as f64 * rng.random_range(0.1..1.0)) as i64;
    let nodes = 1usize << rng.random_range(0..6u32);
    let fee = nodes as f64 * estimate as f64 / 3600.0;
    SlaJob {
        id,
        occurrence: 0,
        release: 0,
        estimate,
        runtime,
        deadline: 1_000_000_000,
        nodes,
        user: None,
        app: None,
        fee,
        penalty: fee,
    }
}

/// Offer latency on a plan of 1000 accepted jobs (128 nodes), per strategy: criterion's
/// estimate of the mean, and the median and p99 of 20,000 single offers (thread CPU time,
/// 100 rotating probe jobs), printed after the group.
fn bench_offer(c: &mut Criterion) {
    let mut rng = RngStreams::new(7).stream(&[3]);
    let jobs: Vec<SlaJob> = (0..1000).map(|i| plan_job(i, &mut rng)).collect();
    let probes: Vec<SlaJob> = (0..100).map(|i| plan_job(10_000 + i, &mut rng)).collect();
    let reg = ClassRegistry::learn(&jobs, RegistryConfig::default()).unwrap();
    let mut group = c.benchmark_group("overbook/offer_plan1000");
    let mut quantiles = Vec::new();
    for s in Strategy::ALL {
        let cfg = BatteryConfig::new(s, TestSpec::Pof { max: 0.3 });
        let mut planner = OnlinePlanner::new(128, &reg, cfg).unwrap();
        for j in &jobs {
            let offer = planner.offer(j, 0).unwrap();
            planner.accept(offer).unwrap();
        }
        assert_eq!(planner.jobs().count(), 1000);
        let mut k = 0usize;
        group.bench_function(s.name(), |b| {
            b.iter(|| {
                k = (k + 1) % probes.len();
                planner.offer(black_box(&probes[k]), 0).unwrap()
            })
        });
        let mut ns: Vec<u64> = (0..20_000)
            .map(|i| {
                let t0 = thread_cpu_ns();
                black_box(planner.offer(&probes[i % probes.len()], 0).unwrap());
                thread_cpu_ns().saturating_sub(t0)
            })
            .collect();
        ns.sort_unstable();
        quantiles.push((s, ns[ns.len() / 2], ns[ns.len() * 99 / 100]));
    }
    group.finish();
    for (s, median, p99) in quantiles {
        println!(
            "offer latency, 1000-job plan, {}: median {:.1} us, p99 {:.1} us (thread CPU, 20000 offers)",
            s.name(),
            median as f64 / 1e3,
            p99 as f64 / 1e3
        );
    }
}

criterion_group!(benches, bench_pos, bench_battery, bench_offer);
criterion_main!(benches);
