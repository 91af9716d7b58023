//! Makespan consistency of bags of tasks on the DAS-3 multicluster under no
//! overprovisioning, static All and dynamic auto-scaling at κ = 2 (Yigitbasi & Epema 2010),
//! on a shortened version of the paper's setup.
//!
//! `cargo run --release -p slarm-grid --example overprovisioning [BOTS]`

use slarm_grid::prelude::*;
use slarm_stats::RngStreams;

fn main() -> std::result::Result<(), Box<dyn std::error::Error>> {
    let bots: usize = std::env::args().nth(1).map_or(Ok(40), |s| s.parse())?;
    println!("strategy   C_d      C_s      CPU-hours");
    for strategy in [StrategyKind::None, StrategyKind::All, StrategyKind::Dynamic] {
        let mut sc = Scenario::paper(strategy, 2.0);
        sc.n_bots = bots;
        let r = run_scenario(&sc, &RngStreams::new(42))?;
        println!(
            "{:<10} {:<8.3} {:<8.3} {:.1}",
            format!("{strategy:?}"),
            r.consistency.c_d,
            r.consistency.c_s,
            r.run.cpu_hours
        );
    }
    Ok(())
}
