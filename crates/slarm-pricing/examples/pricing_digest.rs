//! Fingerprints of the time-shared simulator: runs a fixed set of Libra / Libra+$
//! configurations on the SDSC-SP2 subset (seed 1) and prints, per run, an FNV-1a digest of
//! every outcome's bits, JQS and CP. Two builds whose digests agree produce bit-identical
//! results (used to check that performance work changes no result).
//!
//! `cargo run --release -p slarm-pricing --example pricing_digest [JOBS]` (default 5000 jobs).
//! `SLARM_TRACES` (default: the shared trace folder) locates SDSC-SP2; skips when absent.

use std::time::Instant;

use slarm_pricing::admission::DeadlineTest;
use slarm_pricing::metrics::{evaluate, Outcome};
use slarm_pricing::node::{CommitMode, OverrunPolicy, RateMode};
use slarm_pricing::scenario::{run_jobs, BaseWorkload, ClusterPolicy, Settings};
use slarm_pricing::workload::synthesize;
use slarm_pricing::Result as PricingResult;
use slarm_stats::rng::RngStreams;

mod common;
use common::thread_cpu;

/// FNV-1a over 64-bit words.
fn fnv(words: impl IntoIterator<Item = u64>) -> u64 {
    words.into_iter().fold(0xcbf2_9ce4_8422_2325, |h, w| {
        w.to_le_bytes()
            .iter()
            .fold(h, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
    })
}

fn words(o: &Outcome) -> Vec<u64> {
    match *o {
        Outcome::Rejected(r) => vec![1, r as u64],
        Outcome::Completed {
            start,
            finish,
            cost,
        } => vec![2, start.to_bits(), finish.to_bits(), cost.to_bits()],
        Outcome::Killed { start, end } => vec![3, start.to_bits(), end.to_bits()],
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let jobs: usize = std::env::args().nth(1).map_or(Ok(5000), |a| a.parse())?;
    let Some(path) = common::sdsc_sp2() else {
        return Ok(());
    };
    let base = BaseWorkload::from_swf(&path, jobs, 128)?;
    println!("{}", base.label);
    let streams = RngStreams::new(1);
    type Tweak = fn(&mut Settings) -> PricingResult<()>;
    let runs: [(&str, ClusterPolicy, Tweak); 9] = [
        ("libra-plus b0.1 f0.5", ClusterPolicy::LibraPlus, |_| Ok(())),
        ("libra-plus b1.0 f0.25", ClusterPolicy::LibraPlus, |s| {
            s.beta = 1.0;
            s.qos = s.qos.with_delay_factor(0.25)?;
            Ok(())
        }),
        ("libra f1.0", ClusterPolicy::Libra, |s| {
            s.qos = s.qos.with_delay_factor(1.0)?;
            Ok(())
        }),
        ("libra-plus b0.5 wc -40%", ClusterPolicy::LibraPlus, |s| {
            s.beta = 0.5;
            s.qos = s.qos.with_inaccuracy_pct(-40.0)?;
            s.control = s.control.with_rate_mode(RateMode::WorkConserving);
            Ok(())
        }),
        ("libra wc -80%", ClusterPolicy::Libra, |s| {
            s.qos = s.qos.with_inaccuracy_pct(-80.0)?;
            s.control = s.control.with_rate_mode(RateMode::WorkConserving);
            Ok(())
        }),
        (
            "libra-plus capped -40% full",
            ClusterPolicy::LibraPlus,
            |s| {
                s.qos = s.qos.with_inaccuracy_pct(-40.0)?;
                Ok(())
            },
        ),
        (
            "libra-plus capped -40% keep",
            ClusterPolicy::LibraPlus,
            |s| {
                s.qos = s.qos.with_inaccuracy_pct(-40.0)?;
                s.control = s.control.with_overrun(OverrunPolicy::KeepLastShare);
                Ok(())
            },
        ),
        (
            "libra-plus capped -40% leftover",
            ClusterPolicy::LibraPlus,
            |s| {
                s.qos = s.qos.with_inaccuracy_pct(-40.0)?;
                s.control = s.control.with_overrun(OverrunPolicy::LeftoverOnly);
                Ok(())
            },
        ),
        (
            "libra-plus resfree-only remaining",
            ClusterPolicy::LibraPlus,
            |s| {
                s.admission = s
                    .admission
                    .with_deadline_test(DeadlineTest::ResFreeOnly)
                    .with_commit(CommitMode::RemainingEstimate);
                Ok(())
            },
        ),
    ];
    let mut all = Vec::new();
    for (name, policy, tweak) in runs {
        let mut s = Settings::table_i();
        tweak(&mut s)?;
        let jobs = synthesize(&base.jobs, &s.qos, &streams)?;
        let (t, cpu) = (Instant::now(), thread_cpu());
        let out = run_jobs(&jobs, policy, &s)?;
        let ms = t.elapsed().as_secs_f64() * 1e3;
        let cpu_ms = (thread_cpu() - cpu) * 1e3;

        let m = evaluate(&jobs, &out, s.nodes)?;
        let d = fnv(out.iter().flat_map(words));
        all.push(d);
        println!(
            "{name:34} digest {d:016x} JQS {:.4} CP {:.4} ({cpu_ms:.0} ms CPU, {ms:.0} ms wall)",
            m.qos_satisfaction, m.profitability
        );
    }
    println!("all {:016x}", fnv(all));
    Ok(())
}
