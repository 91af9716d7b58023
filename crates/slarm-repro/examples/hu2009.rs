//! Runs the whole `hu2009` reproduction without the CLI and prints timings and checks:
//! `cargo run --release -p slarm-repro --example hu2009 -- quick|paper [seed] [cell-id-prefix]`
//! (with a prefix, only the cells whose id starts with it run, and no report is assembled).

use std::time::Instant;

use rayon::prelude::*;
use slarm_report::{CellOutput, Experiment, RunConfig, Scale};
use slarm_repro::papers::hu2009::Hu2009;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let scale = match args.get(1).map(String::as_str) {
        Some("paper") => Scale::Paper,
        _ => Scale::Quick,
    };
    let seed = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(1);
    let cfg = RunConfig {
        scale,
        seed,
        traces: None,
        background: None,
    };
    let e = Hu2009;
    let start = Instant::now();
    let only = args.get(3);
    let mut cells = e.cells(&cfg)?;
    if let Some(prefix) = only {
        cells.retain(|c| c.id.starts_with(prefix.as_str()));
    }
    let outputs: Vec<(CellOutput, f64)> = cells
        .into_par_iter()
        .map(|cell| {
            let t = Instant::now();
            let result = e.run_cell(&cfg, &cell)?;
            Ok((CellOutput { cell, result }, t.elapsed().as_secs_f64()))
        })
        .collect::<Result<_, slarm_report::ExperimentError>>()?;
    for (o, t) in &outputs {
        eprintln!("{:<40} {:>8.2} s", o.cell.id, t);
    }
    if only.is_some() {
        return Ok(());
    }
    let outs: Vec<CellOutput> = outputs.into_iter().map(|(o, _)| o).collect();
    let report = e.assemble(&cfg, &outs)?;
    let total = start.elapsed().as_secs_f64();
    for t in &report.tables {
        println!("{}", t.title);
        println!("{}", t.to_csv());
    }
    for c in &report.checks {
        println!(
            "{:<45} {:<18} ours={:?} published={:?}",
            c.id,
            c.verdict.label(),
            c.ours,
            c.published
        );
    }
    println!(
        "scale {} total {:.1} s on {} threads",
        scale.name(),
        total,
        rayon::current_num_threads()
    );
    Ok(())
}
