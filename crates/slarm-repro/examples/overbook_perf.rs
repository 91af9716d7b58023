//! Negotiation latency per strategy per trace: median, p99 and maximum of the thread CPU time to
//! decide one arriving job (runtime PDFs, PoF test `POF_MAX`, synthetic failures), pooled over
//! the first `BATTERIES` batteries, plus the thread CPU time of one battery simulation.
//!
//! `cargo run --release -p slarm-repro --example overbook_perf -- [BATTERIES] [POF_MAX]` (default 3 0.1)
#![allow(clippy::unwrap_used, missing_docs)]
use slarm_overbook::{
    acceptance::TestSpec, classes::StatsSource, clock::thread_cpu_ns, sim::BatteryConfig,
    strategy::Strategy,
};
use slarm_repro::papers::birkenheuer2012::{harness::*, traces::PWA_TRACES};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let Some(dir) = slarm_workload::traces::dir_or_skip() else {
        return Ok(());
    };
    let args: Vec<String> = std::env::args().skip(1).collect();
    let batteries: usize = args.first().and_then(|s| s.parse().ok()).unwrap_or(3);
    let pof: f64 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(0.1);
    println!("| trace | nodes | strategy | median ms | p99 ms | max ms | CPU s per battery |");
    println!("|---|---|---|---|---|---|---|");
    for spec in PWA_TRACES.iter() {
        let setup = TraceSetup::load(spec, Some(&dir.join(spec.file)), TEST_JOBS, 1)?;
        for s in Strategy::ALL {
            let mut cfg = BatteryConfig::new(s, TestSpec::Pof { max: pof });
            cfg.measure_latency = true;
            let mut lat = Vec::new();
            let t0 = thread_cpu_ns();
            for k in 0..batteries {
                let r = setup.run_battery(
                    k,
                    BATTERY_SIZE,
                    StatsSource::Runtime,
                    &cfg,
                    FailureMode::Synthetic,
                    1,
                )?;
                lat.extend(r.latencies_ns);
            }
            let cpu = (thread_cpu_ns() - t0) as f64 / 1e9 / batteries as f64;
            let (m, p99) = latency_quantiles_ms(&lat);
            let max = lat.iter().copied().max().unwrap_or(0) as f64 / 1e6;
            println!(
                "| {} | {} | {} | {m:.3} | {p99:.3} | {max:.3} | {cpu:.2} |",
                spec.name,
                spec.machine,
                s.name()
            );
            use std::io::Write;
            std::io::stdout().flush()?;
        }
    }
    Ok(())
}
