//! Prints JQS and CP of every policy on the SDSC-SP2 subset (or the synthetic stand-in)
//! for a few delay factors and β values, with wall time: a quick look at the model.

use std::time::Instant;

use slarm_pricing::scenario::{run, BaseWorkload, Policy, Settings};
use slarm_stats::rng::RngStreams;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::path::Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/data/traces/SDSC-SP2-1998-4.2-cln.swf.gz"
    ));
    let streams = RngStreams::new(1);
    let base = if path.is_file() {
        BaseWorkload::from_swf(path, 5000, 128)?
    } else {
        BaseWorkload::synthetic(5000, 128, &streams)?
    };
    println!("{} {:?}", base.label, base.stats);
    for factor in [0.25, 0.5, 1.0] {
        for p in Policy::ALL {
            let betas: &[f64] = if p == Policy::LibraPlus {
                &[0.0, 0.1, 0.5, 1.0]
            } else {
                &[0.1]
            };
            for &beta in betas {
                let mut s = Settings::table_i();
                s.qos.delay_factor = factor;
                s.beta = beta;
                let t = Instant::now();
                let m = run(&base.jobs, p, &s, &streams)?;
                println!(
                    "factor {factor:4} {:8} beta {beta:3}: JQS {:.3} CP {:.3} acc {:.3} util {:.3} rej {:?} misses {} ({:.0} ms)",
                    p.label(), m.qos_satisfaction, m.profitability, m.acceptance_ratio, m.utilisation,
                    m.rejected, m.deadline_misses, t.elapsed().as_secs_f64() * 1e3
                );
            }
        }
    }
    Ok(())
}
