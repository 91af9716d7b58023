//! Sensitivity of the baselines to the load compression : comprehensive
//! backfilling and heuristic planning on the first `BATTERIES` batteries of each trace, with the
//! printed occurrence factor (the experiment's choice) and with the factor recomputed as
//! Input Util. / 2 from the test window (thesis §5.1.1, i.e. a true 200 % estimated load).
//!
//! `cargo run --release -p slarm-repro --example overbook_load -- [BATTERIES]` (default 3)
#![allow(clippy::unwrap_used, missing_docs)]
use slarm_overbook::{
    acceptance::TestSpec,
    classes::StatsSource,
    sim::BatteryConfig,
    strategy::Strategy,
    workload::{prepare, read_usable},
};
use slarm_repro::papers::birkenheuer2012::{harness::*, traces::PWA_TRACES};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let Some(dir) = slarm_workload::traces::dir_or_skip() else {
        return Ok(());
    };
    let batteries: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(3);
    println!("| trace | factor | load (est.) | backfilling gain | successful | heur. planning gain | successful |");
    println!("|---|---|---|---|---|---|---|");
    for spec in PWA_TRACES.iter() {
        let (jobs, dropped, _) = read_usable(&dir.join(spec.file), Some(spec.machine))?;
        for factor in [Some(spec.factor), None] {
            let p = prepare(
                spec.name,
                jobs.clone(),
                spec.machine,
                TEST_JOBS,
                factor,
                dropped,
                false,
            )?;
            let load = p.input_util / p.factor;
            let setup = TraceSetup::from_prepared(p)?;
            let mut row = Vec::new();
            for s in [Strategy::CompBackfill, Strategy::HeurPlan] {
                let cfg = BatteryConfig::new(s, TestSpec::Pof { max: 1.0 });
                let rs: Vec<_> = (0..batteries)
                    .map(|k| {
                        setup.run_battery(
                            k,
                            BATTERY_SIZE,
                            StatsSource::Runtime,
                            &cfg,
                            FailureMode::Synthetic,
                            1,
                        )
                    })
                    .collect::<Result<_, _>>()?;
                let sm = summarize(&rs, None);
                row.push(format!("{:.0} | {:.0}", sm.gain.mean, sm.successful.mean));
            }
            println!(
                "| {} | {:.4} | {:.0} % | {} | {} |",
                spec.name,
                setup.prepared.factor,
                100.0 * load,
                row[0],
                row[1]
            );
        }
    }
    Ok(())
}
