//! Runs one battery of every strategy (or of those named) on one trace and prints counts,
//! gains, CPU-independent latency quantiles and the battery's wall time.
//!
//! `cargo run --release -p slarm-repro --example overbook_probe -- [TRACE_INDEX] [POF_MAX] [BATTERY]
//! [STRATEGY...]`; traces come from `$SLARM_TRACES` or the default trace directory.
#![allow(clippy::unwrap_used, missing_docs)]
use slarm_overbook::{
    acceptance::TestSpec, classes::StatsSource, sim::BatteryConfig, strategy::Strategy,
};
use slarm_repro::papers::birkenheuer2012::{harness::*, traces::PWA_TRACES};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let Some(dir) = slarm_workload::traces::dir_or_skip() else {
        return Ok(());
    };
    let args: Vec<String> = std::env::args().collect();
    let idx: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    let pof: f64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(0.1);
    let battery: usize = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(0);
    let only: Vec<Strategy> = args
        .iter()
        .skip(4)
        .map(|s| s.parse::<Strategy>())
        .collect::<Result<_, _>>()?;
    let spec = PWA_TRACES.get(idx).ok_or("trace index 0..5")?;
    let t0 = std::time::Instant::now();
    let setup = TraceSetup::load(spec, Some(&dir.join(spec.file)), TEST_JOBS, 1)?;
    println!(
        "{} loaded in {:?}: training {} test {} util {:.3} dropped {}",
        spec.name,
        t0.elapsed(),
        setup.prepared.training.len(),
        setup.prepared.test.len(),
        setup.prepared.input_util,
        setup.prepared.dropped
    );
    for s in Strategy::ALL {
        if !only.is_empty() && !only.contains(&s) {
            continue;
        }
        let mut cfg = BatteryConfig::new(s, TestSpec::Pof { max: pof });
        cfg.measure_latency = true;
        let t0 = std::time::Instant::now();
        let r = setup.run_battery(
            battery,
            BATTERY_SIZE,
            StatsSource::Runtime,
            &cfg,
            FailureMode::Synthetic,
            1,
        )?;
        let (m, p99) = latency_quantiles_ms(&r.latencies_ns);
        println!(
            "{:14} succ {:4} fail {:4} drop {:4} ob {:4} gain {:9.0} fees {:9.0} time {:?} lat med {:.3} p99 {:.3}",
            s.name(),
            r.successful,
            r.failed,
            r.dropped,
            r.overbooked,
            r.gain(),
            r.fees,
            t0.elapsed(),
            m,
            p99
        );
    }
    Ok(())
}
