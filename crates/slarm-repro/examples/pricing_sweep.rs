//! Runs the whole yeo-buyya experiment (Figures 2-6 and the σ sensitivity run) at the scale
//! given as first argument (`quick` or `paper`, default `paper`), cells in parallel with
//! rayon, and prints the wall time, every check and every table: the measurement behind
//! docs/performance.md (run it under `/usr/bin/time` for the CPU time).
//!
//! `SLARM_TRACES` (default: the shared trace folder) locates SDSC-SP2; skips when it is
//! absent (`slarm reproduce yeo-buyya` runs the synthetic stand-in instead).

use std::time::Instant;

use rayon::prelude::*;
use slarm_pricing::workload::SDSC_SP2;
use slarm_report::{CellOutput, Experiment, ExperimentError, RunConfig, Scale};
use slarm_repro::papers::yeo_buyya::YeoBuyya;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let scale = match std::env::args().nth(1).as_deref() {
        Some("quick") => Scale::Quick,
        _ => Scale::Paper,
    };
    let Some(trace) = slarm_workload::traces::or_skip(SDSC_SP2) else {
        return Ok(());
    };
    let cfg = RunConfig {
        scale,
        seed: 1,
        traces: trace.parent().map(std::path::Path::to_path_buf),
        background: None,
    };
    let e = YeoBuyya;
    let t = Instant::now();
    let cells = e.cells(&cfg)?;
    let outputs: Vec<CellOutput> = cells
        .into_par_iter()
        .map(|cell| {
            Ok::<_, ExperimentError>(CellOutput {
                result: e.run_cell(&cfg, &cell)?,
                cell,
            })
        })
        .collect::<Result<_, _>>()?;
    let rep = e.assemble(&cfg, &outputs)?;
    println!(
        "scale {} cells {} threads {} wall {:.1} s workload: {}",
        scale.name(),
        outputs.len(),
        rayon::current_num_threads(),
        t.elapsed().as_secs_f64(),
        rep.workload
    );
    for c in &rep.checks {
        println!(
            "{:40} {:10} ours {:?} published {:?}",
            c.id,
            c.verdict.label(),
            c.ours,
            c.published
        );
    }
    for tb in rep.tables.iter().skip(1) {
        print!("{}", tb.to_csv());
    }
    Ok(())
}
