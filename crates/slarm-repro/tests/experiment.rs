//! The reproduction experiment on a couple of cells at quick scale (synthetic workload: no
//! trace directory is given), assembled into tables and checks.
#![allow(clippy::unwrap_used)]

use slarm_report::{CellOutput, Experiment, RunConfig, Scale};
use slarm_repro::papers::birkenheuer2012::Birkenheuer2012;

#[test]
fn quick_cells_assemble_into_tables() {
    let exp = Birkenheuer2012;
    let cfg = RunConfig {
        scale: Scale::Quick,
        seed: 3,
        traces: None,
        background: None,
    };
    let cells = exp.cells(&cfg).unwrap();
    assert_eq!(cells.len(), 6 * 5);
    let ids: std::collections::BTreeSet<_> = cells.iter().map(|c| c.id.clone()).collect();
    assert_eq!(ids.len(), cells.len());
    let chosen: Vec<_> = cells
        .iter()
        .filter(|c| c.id == "SDSC-SP2-b00-base" || c.id == "SDSC-SP2-b00-heur-runtime")
        .cloned()
        .collect();
    assert_eq!(chosen.len(), 2);
    let outputs: Vec<CellOutput> = chosen
        .into_iter()
        .map(|c| {
            let result = exp.run_cell(&cfg, &c).unwrap();
            CellOutput { cell: c, result }
        })
        .collect();
    assert_eq!(outputs[0].result["synthetic"], true);
    // Deterministic: the same cell gives the same JSON.
    let again = exp.run_cell(&cfg, &outputs[0].cell).unwrap();
    assert_eq!(again, outputs[0].result);
    let report = exp.assemble(&cfg, &outputs).unwrap();
    assert!(report.tables.iter().any(|t| t.id == "table6.11"));
    assert!(report.tables.iter().any(|t| t.id == "table6.12"));
    assert!(report
        .checks
        .iter()
        .any(|c| c.id == "baseline-gain/SDSC-SP2/plan"));
    assert!(report.notes.iter().any(|n| n.contains("synthetic")));
}
