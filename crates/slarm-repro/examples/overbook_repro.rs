//! Runs the reproduction trace by trace (quick scale, or paper scale with `--paper`) and prints
//! tables and checks as markdown: `repro [--paper] [TRACE...]`.
#![allow(clippy::unwrap_used, missing_docs)]
use rayon::prelude::*;
use slarm_report::{CellOutput, Experiment, RunConfig, Scale};
use slarm_repro::papers::birkenheuer2012::Birkenheuer2012;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let Some(dir) = slarm_workload::traces::dir_or_skip() else {
        return Ok(());
    };
    let args: Vec<String> = std::env::args().skip(1).collect();
    let paper = args.iter().any(|a| a == "--paper");
    let only: Vec<String> = args.into_iter().filter(|a| a != "--paper").collect();
    let exp = Birkenheuer2012;
    let cfg = RunConfig {
        scale: if paper { Scale::Paper } else { Scale::Quick },
        seed: 1,
        traces: Some(dir),
        background: None,
    };
    let cells = exp.cells(&cfg)?;
    for trace in [
        "SDSC-SP2",
        "CTC",
        "HPC2n",
        "LANL",
        "SDSC-BLUE",
        "SDSC-DataStar",
    ] {
        if !only.is_empty() && !only.iter().any(|o| o == trace) {
            continue;
        }
        let t0 = std::time::Instant::now();
        let mine: Vec<_> = cells
            .iter()
            .filter(|c| c.id.starts_with(&format!("{trace}-b")))
            .cloned()
            .collect();
        let outs: Vec<CellOutput> = mine
            .into_par_iter()
            .map(|c| {
                let result = exp.run_cell(&cfg, &c).unwrap();
                CellOutput { cell: c, result }
            })
            .collect();
        let rep = exp.assemble(&cfg, &outs)?;
        println!("## {trace} ({:?})", t0.elapsed());
        for t in &rep.tables {
            if t.rows.is_empty() {
                continue;
            }
            println!("### {}\n{}", t.title, t.to_markdown());
        }
        let checks = slarm_report::Table::of_checks("checks", "checks", &rep.checks);
        println!("### checks\n{}", checks.to_markdown());
        use std::io::Write;
        std::io::stdout().flush()?;
    }
    Ok(())
}
