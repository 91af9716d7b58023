//! Runs every cell of `yigitbasi2010` at a scale (rayon over cells, ordered collection),
//! assembles the report and prints the wall time and the checks as a Markdown table:
//! `cargo run --release -p slarm-repro --example grid_repro -- quick|paper [SEED]`.

use std::time::Instant;

use rayon::prelude::*;
use slarm_report::{CellOutput, Experiment, ExperimentError, RunConfig, Scale};
use slarm_repro::papers::yigitbasi2010::Yigitbasi2010;

fn main() -> Result<(), ExperimentError> {
    let scale = match std::env::args().nth(1).as_deref() {
        Some("paper") => Scale::Paper,
        _ => Scale::Quick,
    };
    let seed = std::env::args()
        .nth(2)
        .and_then(|s| s.parse().ok())
        .unwrap_or(2010);
    let cfg = RunConfig {
        scale,
        seed,
        traces: None,
        background: None,
    };
    let exp = Yigitbasi2010;
    let t0 = Instant::now();
    let cells = exp.cells(&cfg)?;
    let outputs: Vec<CellOutput> = cells
        .par_iter()
        .map(|c| {
            exp.run_cell(&cfg, c).map(|result| CellOutput {
                cell: c.clone(),
                result,
            })
        })
        .collect::<Result<_, _>>()?;
    let report = exp.assemble(&cfg, &outputs)?;
    let secs = t0.elapsed().as_secs_f64();
    println!(
        "{} cells at {} scale, seed {seed}, {} threads: {secs:.1} s\n",
        cells.len(),
        scale.name(),
        rayon::current_num_threads()
    );
    for t in &report.tables {
        println!("### {}\n\n{}", t.title, t.to_csv());
    }
    let checks = slarm_report::Table::of_checks("checks", "checks", &report.checks);
    println!("### checks\n\n{}", checks.to_markdown());
    for n in &report.notes {
        println!("\nNote: {n}");
    }
    Ok(())
}
