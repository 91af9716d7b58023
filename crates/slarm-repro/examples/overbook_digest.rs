//! Prints a digest of every job outcome (state, overbooked flag, PoF to 1e-9) of battery 0 per
//! trace for the four strategies and several acceptance tests, to verify that a speed-up does
//! not change results: run before and after, `diff` the outputs.
//!
//! `cargo run --release -p slarm-repro --example overbook_digest -- [TRACE_INDEX...]`
#![allow(clippy::unwrap_used, missing_docs)]
use rayon::prelude::*;
use slarm_overbook::{
    acceptance::TestSpec, classes::StatsSource, sim::BatteryConfig, strategy::Strategy,
};
use slarm_repro::papers::birkenheuer2012::{harness::*, traces::PWA_TRACES};

fn fnv(h: &mut u64, x: u64) {
    for b in x.to_le_bytes() {
        *h ^= b as u64;
        *h = h.wrapping_mul(0x100_0000_01b3);
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let Some(dir) = slarm_workload::traces::dir_or_skip() else {
        return Ok(());
    };
    let only: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|s| s.parse().ok())
        .collect();
    let tests = [
        TestSpec::Pof { max: 0.05 },
        TestSpec::Pof { max: 0.3 },
        TestSpec::Pof { max: 1.0 },
        TestSpec::Risk { ratio: 2.0 },
    ];
    for (ti, spec) in PWA_TRACES.iter().enumerate() {
        if !only.is_empty() && !only.contains(&ti) {
            continue;
        }
        let setup = TraceSetup::load(spec, Some(&dir.join(spec.file)), TEST_JOBS, 1)?;
        let mut runs = Vec::new();
        for s in Strategy::ALL {
            for src in [StatsSource::Runtime, StatsSource::Resources] {
                for t in tests {
                    if !s.overbooks() && (src == StatsSource::Resources || t != tests[2]) {
                        continue;
                    }
                    runs.push((s, src, t));
                }
            }
        }
        let lines: Vec<String> = runs
            .par_iter()
            .map(|&(s, src, t)| {
                let cfg = BatteryConfig::new(s, t);
                let r = setup
                    .run_battery(0, BATTERY_SIZE, src, &cfg, FailureMode::Synthetic, 1)
                    .unwrap();
                let mut h = 0xcbf2_9ce4_8422_2325u64;
                for o in &r.outcomes {
                    fnv(&mut h, o.id);
                    fnv(&mut h, o.state as u64);
                    fnv(&mut h, o.overbooked as u64);
                    fnv(&mut h, (o.pof * 1e9).round() as u64);
                }
                format!(
                    "{} {} {} {} succ {} fail {} drop {} ob {} gain {:.3} digest {h:016x}",
                    spec.name,
                    s.name(),
                    src.name(),
                    t.label(),
                    r.successful,
                    r.failed,
                    r.dropped,
                    r.overbooked,
                    r.gain()
                )
            })
            .collect();
        for l in lines {
            println!("{l}");
        }
    }
    Ok(())
}
