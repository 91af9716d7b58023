//! Prints JQS, CP and the diagnostics of every policy on the SDSC-SP2 subset (last 5000 jobs,
//! seed 1) for delay factors 0.1 / 0.25 / 0.5 / 1.0 and β 0 / 0.1 / 0.5 / 1.0 (the baselines
//! also under the strict queue-lapse rule), with the CPU time of each run: a quick look at
//! the model.
//!
//! `cargo run --release -p slarm-pricing --example pricing_probe`; `SLARM_TRACES` (default: the
//! shared trace folder) locates SDSC-SP2; skips when it is absent.

use std::time::Instant;

use slarm_pricing::backfill::LapseRule;
use slarm_pricing::scenario::{run, BaseWorkload, ClusterPolicy, Settings};
use slarm_stats::rng::RngStreams;

mod common;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let Some(path) = common::sdsc_sp2() else {
        return Ok(());
    };
    let streams = RngStreams::new(1);
    let base = BaseWorkload::from_swf(&path, 5000, 128)?;
    println!("{} {:?}", base.label, base.stats);
    for factor in [0.1, 0.25, 0.5, 1.0] {
        for p in ClusterPolicy::ALL {
            let variants: &[(f64, LapseRule)] = match p {
                ClusterPolicy::LibraPlus => &[
                    (0.0, LapseRule::DeadlinePassed),
                    (0.1, LapseRule::DeadlinePassed),
                    (0.5, LapseRule::DeadlinePassed),
                    (1.0, LapseRule::DeadlinePassed),
                ],
                ClusterPolicy::Libra => &[(0.1, LapseRule::DeadlinePassed)],
                _ => &[
                    (0.1, LapseRule::DeadlinePassed),
                    (0.1, LapseRule::CannotFinish),
                ],
            };
            for &(beta, lapse) in variants {
                let mut s = Settings::table_i();
                s.qos = s.qos.with_delay_factor(factor)?;
                s.beta = beta;
                s.lapse = lapse;
                let (t, cpu) = (Instant::now(), common::thread_cpu());
                let m = run(&base.jobs, p, &s, &streams)?;
                println!(
                    "factor {factor:4} {:8} beta {beta:3} {lapse:?}: JQS {:.3} CP {:.3} acc {:.3} util {:.3} price {:.3} rej {:?} misses {} ({:.0} ms CPU, {:.0} ms wall)",
                    p.label(), m.qos_satisfaction, m.profitability, m.acceptance_ratio, m.utilisation,
                    m.mean_price, m.rejected, m.deadline_misses,
                    (common::thread_cpu() - cpu) * 1e3, t.elapsed().as_secs_f64() * 1e3
                );
            }
        }
    }
    Ok(())
}
