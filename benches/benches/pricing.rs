//! Hot paths of slarm-pricing: Algorithm 1 over a loaded 128-node cluster, and whole
//! time-shared Libra+$ runs (capped Table I nodes; work-conserving nodes with under-estimates
//! as in Fig. 6) and one EASY baseline run on a synthetic 1000-job workload.
#![allow(missing_docs)] // criterion_group! generates undocumented items
#![allow(clippy::unwrap_used)] // fixed, valid bench inputs

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use slarm::pricing::admission::{admit, place, AdmissionConfig};
use slarm::pricing::node::{JobControl, Node, RateMode, TimeSharedNode};
use slarm::pricing::pricing::LibraPlusDollar;
use slarm::pricing::scenario::{run, BaseWorkload, ClusterPolicy, Settings};
use slarm::pricing::spec::{JobSpec, QosJob, UrgencyClass};
use slarm::stats::RngStreams;

fn loaded_cluster() -> Vec<TimeSharedNode> {
    let mut nodes: Vec<TimeSharedNode> = (0..128)
        .map(|i| TimeSharedNode::new(Node::new(i, 168.0).unwrap()))
        .collect();
    for k in 0..512usize {
        let re = 100.0 + (k % 17) as f64 * 30.0;
        let job = QosJob::new(
            JobSpec::simple(k as u64, re, 1, re * 8.0, re * 2.0).unwrap(),
            0.0,
            re,
            UrgencyClass::Low,
        )
        .unwrap();
        place(k, &job, &[k % 128], &mut nodes, 168.0);
    }
    for n in &mut nodes {
        n.control(&JobControl::default());
    }
    nodes
}

fn bench(c: &mut Criterion) {
    let nodes = loaded_cluster();
    let pricing = LibraPlusDollar::new(1.0, 0.1, 1.0).unwrap();
    let cfg = AdmissionConfig::default();
    let job = QosJob::new(
        JobSpec::simple(9999, 600.0, 16, 2400.0, 3000.0).unwrap(),
        0.0,
        600.0,
        UrgencyClass::High,
    )
    .unwrap();
    c.bench_function("pricing/admit_16procs_128nodes", |b| {
        b.iter(|| admit(black_box(&job), 0.0, black_box(&nodes), &pricing, &cfg).unwrap())
    });
    let streams = RngStreams::new(1);
    let base = BaseWorkload::synthetic(1000, 128, &streams).unwrap();
    let s = Settings::table_i();
    c.bench_function("pricing/libra_plus_1000_jobs", |b| {
        b.iter(|| {
            run(
                black_box(&base.jobs),
                ClusterPolicy::LibraPlus,
                &s,
                &streams,
            )
            .unwrap()
        })
    });
    // Fig. 6 set-up: work-conserving nodes and 40 % under-estimates, where every busy node
    // runs Algorithm 2 at each 60 s control tick (the sweep's dominant cost).
    let mut wc = Settings::table_i();
    wc.qos = wc.qos.with_inaccuracy_pct(-40.0).unwrap();
    wc.control = wc.control.with_rate_mode(RateMode::WorkConserving);
    c.bench_function("pricing/libra_plus_work_conserving_1000_jobs", |b| {
        b.iter(|| {
            run(
                black_box(&base.jobs),
                ClusterPolicy::LibraPlus,
                &wc,
                &streams,
            )
            .unwrap()
        })
    });
    c.bench_function("pricing/edf_bf_1000_jobs", |b| {
        b.iter(|| run(black_box(&base.jobs), ClusterPolicy::EdfBf, &s, &streams).unwrap())
    });
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10);
    targets = bench
}
criterion_main!(benches);
