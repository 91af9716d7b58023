//! Negotiation latency (median, p99) per strategy per trace, battery 0, runtime PDFs, PoF 0.1.
#![allow(clippy::unwrap_used, missing_docs)]
use slarm_overbook::{
    acceptance::TestSpec, classes::StatsSource, harness::*, sim::SimConfig, strategy::Strategy,
    workload::PWA_TRACES,
};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let Some(dir) = trace_dir(env!("CARGO_MANIFEST_DIR")) else {
        eprintln!("skipping: no trace folder (set SLARM_TRACES)");
        return Ok(());
    };
    println!("| trace | nodes | strategy | median ms | p99 ms | battery wall s |");
    println!("|---|---|---|---|---|---|");
    for spec in PWA_TRACES.iter() {
        let path = dir.join(spec.file);
        let setup = TraceSetup::load(spec, Some(&path), TEST_JOBS, 1)?;
        for s in Strategy::ALL {
            let mut cfg = SimConfig::new(s, TestSpec::Pof { max: 0.1 });
            cfg.measure_latency = true;
            let t0 = std::time::Instant::now();
            let r = setup.run_battery(
                0,
                BATTERY_SIZE,
                StatsSource::Runtime,
                &cfg,
                FailureMode::Synthetic,
                1,
            )?;
            let (m, p99) = latency_quantiles_ms(&r.latencies_ns);
            println!(
                "| {} | {} | {} | {m:.3} | {p99:.3} | {:.2} |",
                spec.name,
                spec.machine,
                s.name(),
                t0.elapsed().as_secs_f64()
            );
            use std::io::Write;
            std::io::stdout().flush()?;
        }
    }
    Ok(())
}
