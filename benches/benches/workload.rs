//! Hot paths of slarm-workload: SWF job-line parsing, whole-trace reading (plain and gzip,
//! in memory) and cleaning, on a calibrated synthetic workload of 20,000 jobs; and the real
//! SDSC-SP2 log from its file when the PWA traces are present (`$SLARM_TRACES`).
//!
//! `cargo bench -p slarm-benches --bench workload -- --warm-up-time 1 --measurement-time 3`
#![allow(missing_docs, clippy::unwrap_used)]

use std::hint::black_box;
use std::io::Write;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use slarm::workload::reader::{parse_job_line, read_trace, read_trace_from, ReadOptions};
use slarm::workload::writer::write_swf;
use slarm::workload::{traces, Workload};
use slarm_benches::synthetic_workload;

fn swf_text(jobs: usize) -> Vec<u8> {
    let w = synthetic_workload(jobs);
    let mut swf = Vec::new();
    write_swf(&w.header, &w.jobs, &mut swf).unwrap();
    swf
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(bytes).unwrap();
    e.finish().unwrap()
}

fn reading(c: &mut Criterion) {
    let swf = swf_text(20_000);
    let lines: Vec<&[u8]> = swf
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty() && l[0] != b';')
        .collect();
    let mut g = c.benchmark_group("workload");
    g.throughput(Throughput::Elements(lines.len() as u64));
    g.bench_function("parse_job_line 20k", |b| {
        b.iter(|| {
            lines
                .iter()
                .map(|l| parse_job_line(black_box(l)).unwrap().id)
                .sum::<u64>()
        })
    });
    g.bench_function("read plain 20k", |b| {
        b.iter(|| {
            read_trace_from(
                std::io::Cursor::new(swf.clone()),
                "b",
                ReadOptions::default(),
            )
            .unwrap()
        })
    });
    let z = gzip(&swf);
    g.bench_function("read gzip 20k", |b| {
        b.iter(|| {
            read_trace_from(std::io::Cursor::new(z.clone()), "b", ReadOptions::default()).unwrap()
        })
    });
    let trace = read_trace_from(
        std::io::Cursor::new(swf.clone()),
        "b",
        ReadOptions::default(),
    )
    .unwrap();
    g.bench_function("clean 20k", |b| {
        b.iter(|| Workload::from_trace(black_box(trace.clone()), None).unwrap())
    });
    if let Ok(path) = traces::locate("SDSC-SP2-1998-4.2-cln.swf.gz") {
        g.throughput(Throughput::Elements(59_715));
        g.bench_function("read SDSC-SP2 file", |b| {
            b.iter(|| read_trace(black_box(&path), ReadOptions::default()).unwrap())
        });
    }
    g.finish();
}

criterion_group!(benches, reading);
criterion_main!(benches);
