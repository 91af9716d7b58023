//! Estimates the CPU time of the complete paper-scale evaluation (six traces, 20 batteries,
//! the four strategies, PoF_max 0.05..1.00, the four penalty ratios, runtime and resource
//! statistics: 98 battery simulations per trace and battery) from the thread CPU time of every
//! simulation of a sample of batteries, and prints the extrapolation to all 20 batteries.
//!
//! `cargo run --release -p slarm-repro --example overbook_papercost -- [BATTERY...]` (default 0 10 19)
#![allow(clippy::unwrap_used, missing_docs)]
use rayon::prelude::*;
use slarm_overbook::{
    acceptance::TestSpec, classes::StatsSource, clock::thread_cpu_ns, sim::BatteryConfig,
    strategy::Strategy,
};
use slarm_repro::papers::birkenheuer2012::{harness::*, traces::PWA_TRACES, RATIOS};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let Some(dir) = slarm_workload::traces::dir_or_skip() else {
        return Ok(());
    };
    let mut batteries: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|s| s.parse().ok())
        .collect();
    if batteries.is_empty() {
        batteries = vec![0, 10, 19];
    }
    let mut runs: Vec<(Strategy, StatsSource, TestSpec)> = vec![
        (
            Strategy::CompBackfill,
            StatsSource::Runtime,
            TestSpec::Pof { max: 1.0 },
        ),
        (
            Strategy::HeurPlan,
            StatsSource::Runtime,
            TestSpec::Pof { max: 1.0 },
        ),
    ];
    for s in [Strategy::CompOverbook, Strategy::HeurOverbook] {
        for src in [StatsSource::Runtime, StatsSource::Resources] {
            for k in 1..=20 {
                runs.push((
                    s,
                    src,
                    TestSpec::Pof {
                        max: k as f64 * 0.05,
                    },
                ));
            }
            for ratio in RATIOS {
                runs.push((s, src, TestSpec::Risk { ratio }));
            }
        }
    }
    println!("| trace | nodes | CPU s per battery (mean of {:?}) | comp-overbook share | max battery CPU s | 20 batteries CPU s |", batteries);
    println!("|---|---|---|---|---|---|");
    let mut total = 0.0;
    for spec in PWA_TRACES.iter() {
        let setup = TraceSetup::load(spec, Some(&dir.join(spec.file)), TEST_JOBS, 1)?;
        let mut per_battery = Vec::new();
        let mut comp_share = 0.0;
        for &k in &batteries {
            let cpu: Vec<(Strategy, f64)> = runs
                .par_iter()
                .map(|&(s, src, t)| {
                    let t0 = thread_cpu_ns();
                    setup
                        .run_battery(
                            k,
                            BATTERY_SIZE,
                            src,
                            &BatteryConfig::new(s, t),
                            FailureMode::Synthetic,
                            1,
                        )
                        .unwrap();
                    (s, (thread_cpu_ns() - t0) as f64 / 1e9)
                })
                .collect();
            let sum: f64 = cpu.iter().map(|c| c.1).sum();
            comp_share += cpu
                .iter()
                .filter(|c| c.0 == Strategy::CompOverbook)
                .map(|c| c.1)
                .sum::<f64>()
                / sum;
            per_battery.push(sum);
        }
        let mean = per_battery.iter().sum::<f64>() / per_battery.len() as f64;
        let max = per_battery.iter().cloned().fold(0.0, f64::max);
        total += 20.0 * mean;
        println!(
            "| {} | {} | {mean:.1} | {:.0} % | {max:.1} | {:.0} |",
            spec.name,
            spec.machine,
            100.0 * comp_share / batteries.len() as f64,
            20.0 * mean
        );
        use std::io::Write;
        std::io::stdout().flush()?;
    }
    println!(
        "\nTotal CPU for the paper-scale evaluation: {total:.0} s = {:.1} min; on 2 cores ≈ {:.1} min wall (cells are independent).",
        total / 60.0,
        total / 120.0
    );
    Ok(())
}
