//! Where overbooking's extra gain comes from (or why it is missing): runs every battery of one
//! trace under an overbooking strategy at one PoF_max and under its baseline (heuristic
//! planning, resp. comprehensive backfilling) and prints battery means of what overbooking changes — jobs accepted, overbooked jobs, the
//! allotment they were offered and finally got, their outcomes, fees and penalties by cause,
//! and the jobs accepted by one strategy but not the other.
//!
//! `cargo run --release -p slarm-repro --example overbook_gap -- [TRACE_INDEX] [POF_MAX]
//! [runtime|resources] [heur-overbook|comp-overbook]`; traces come from `$SLARM_TRACES` or the default trace directory.
#![allow(clippy::unwrap_used, missing_docs)]
use std::collections::HashSet;

use rayon::prelude::*;
use slarm_overbook::{
    acceptance::TestSpec,
    classes::StatsSource,
    failure::FailureModel,
    job::{JobState, SlaJob},
    pos::heuristic_pos,
    sim::{BatteryConfig, BatteryResult, OverbookingEffect},
    strategy::Strategy,
};
use slarm_repro::papers::birkenheuer2012::{harness::*, traces::PWA_TRACES};

/// Per-battery figures of one run.
#[derive(Default, Clone, Copy)]
struct Figures {
    accepted: f64,
    successful: f64,
    failed: f64,
    fees: f64,
    penalties: f64,
    effect: OverbookingEffect,
    /// Fees of the overbooked jobs that succeeded.
    ob_fees: f64,
    /// Jobs accepted here but dropped by the other strategy, their booked node-hours, and the
    /// fees and penalties they brought.
    only_here: f64,
    only_here_nh: f64,
    only_here_fees: f64,
    only_here_penalty: f64,
    /// Dropped jobs, and those of them whose best overbooked slot (`l = x - 1 s`) could pass
    /// the heuristic PoF test at all, with their booked node-hours.
    dropped: f64,
    dropped_passable: f64,
    dropped_passable_nh: f64,
}

fn figures(
    jobs: &[SlaJob],
    r: &BatteryResult,
    other: &BatteryResult,
    passable: &dyn Fn(&SlaJob) -> bool,
) -> Figures {
    let accepted_other: HashSet<u64> = other
        .outcomes
        .iter()
        .filter(|o| o.state != JobState::Dropped)
        .map(|o| o.id)
        .collect();
    let mut f = Figures {
        successful: r.successful as f64,
        failed: r.failed as f64,
        accepted: (r.successful + r.failed) as f64,
        fees: r.fees,
        penalties: r.penalties,
        effect: r.effect,
        ..Figures::default()
    };
    for (job, o) in jobs.iter().zip(&r.outcomes) {
        if o.state == JobState::Dropped {
            f.dropped += 1.0;
            if passable(job) {
                f.dropped_passable += 1.0;
                f.dropped_passable_nh += job.node_hours();
            }
            continue;
        }
        let ok = o.state == JobState::Succeeded;
        if ok && o.offered < job.estimate {
            f.ob_fees += job.fee;
        }
        if !accepted_other.contains(&job.id) {
            f.only_here += 1.0;
            f.only_here_nh += job.node_hours();
            if ok {
                f.only_here_fees += job.fee;
            } else {
                f.only_here_penalty += job.penalty;
            }
        }
    }
    f
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let Some(dir) = slarm_workload::traces::dir_or_skip() else {
        return Ok(());
    };
    let args: Vec<String> = std::env::args().collect();
    let idx: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    let pof: f64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(0.15);
    let source = match args.get(3).map(String::as_str) {
        Some("resources") => StatsSource::Resources,
        _ => StatsSource::Runtime,
    };
    let strategy = match args.get(4) {
        Some(s) => s.parse::<Strategy>()?,
        None => Strategy::HeurOverbook,
    };
    let baseline = strategy.baseline();
    let spec = PWA_TRACES.get(idx).ok_or("trace index 0..5")?;
    let setup = TraceSetup::load(spec, Some(&dir.join(spec.file)), TEST_JOBS, 1)?;
    let batteries = setup.prepared.battery_count(BATTERY_SIZE);
    let run = |k: usize, s: Strategy, stats: StatsSource, max: f64| {
        let cfg = BatteryConfig::new(s, TestSpec::Pof { max });
        setup
            .run_battery(k, BATTERY_SIZE, stats, &cfg, FailureMode::Synthetic, 1)
            .unwrap()
    };
    let registry = setup.registry(source);
    let model = FailureModel::default();
    let passable = |j: &SlaJob| {
        heuristic_pos(
            registry.for_job(j),
            j.estimate,
            j.estimate - 1,
            j.nodes,
            &model,
        )
        .pos()
            > 1.0 - pof
    };
    println!(
        "ratio statistics ({}), {} training jobs:",
        source.name(),
        registry.all_jobs().samples()
    );
    println!(
        "{:>16} {:>8} {:>7} {:>7} {:>8} {:>9} {:>8}",
        "class", "samples", "CDF(1)", "CDF(7)", "CDF(50)", "CDF>=1-P", "bin 100"
    );
    let classes = registry
        .classes()
        .iter()
        .map(|(k, d)| (format!("{k:?}"), d))
        .chain([("all".to_string(), registry.all_jobs())]);
    for (k, d) in classes {
        let first = (0..=100).find(|&b| d.cdf(b) >= 1.0 - pof).unwrap_or(100);
        println!(
            "{k:>16} {:>8} {:7.3} {:7.3} {:8.3} {:9} {:8.3}",
            d.samples(),
            d.cdf(1),
            d.cdf(7),
            d.cdf(50),
            first,
            d.pdf(100)
        );
    }
    let per: Vec<(Figures, Figures)> = (0..batteries)
        .into_par_iter()
        .map(|k| {
            let jobs = setup.prepared.battery(k, BATTERY_SIZE, 1.0).unwrap();
            let plan = run(k, baseline, StatsSource::Runtime, 1.0);
            let ob = run(k, strategy, source, pof);
            (
                figures(&jobs, &plan, &ob, &passable),
                figures(&jobs, &ob, &plan, &passable),
            )
        })
        .collect();
    let n = per.len().max(1) as f64;
    let mean = |pick: &dyn Fn(&(Figures, Figures)) -> f64| per.iter().map(pick).sum::<f64>() / n;
    println!(
        "{} batteries {batteries}, {} PoF_max {pof} ({} statistics), synthetic failures; battery means",
        spec.name,
        strategy.name(),
        source.name()
    );
    println!("{:34} {:>14} {:>14}", "", baseline.name(), strategy.name());
    macro_rules! row {
        ($label:expr, $($field:tt)+) => {
            println!(
                "{:34} {:14.2} {:14.2}",
                $label,
                mean(&|p| p.0.$($field)+),
                mean(&|p| p.1.$($field)+)
            );
        };
    }
    row!("accepted jobs", accepted);
    row!("successful", successful);
    row!("failed", failed);
    row!("fees (VC)", fees);
    row!("penalties (VC)", penalties);
    row!("killed short (failed)", effect.killed_short as f64);
    row!("  their penalties", effect.killed_short_penalties);
    row!(
        "lost to node failures (failed)",
        effect.lost_to_failures as f64
    );
    row!("  their penalties", effect.lost_to_failures_penalties);
    row!("overbooked at acceptance", effect.overbooked as f64);
    row!("  offered allotment / x (mean)", effect.offered_fraction);
    row!("  node-hours cut at acceptance", effect.cut_node_hours);
    row!("  node-hours regained later", effect.regained_node_hours);
    row!("  fees of those that succeeded", ob_fees);
    row!("accepted only by this strategy", only_here);
    row!("  their node-hours (booked)", only_here_nh);
    row!("  fees of those that succeeded", only_here_fees);
    row!("  penalties of those that failed", only_here_penalty);
    row!("dropped jobs", dropped);
    if strategy == Strategy::HeurOverbook {
        row!("  of them passable when overbooked", dropped_passable);
        row!("  their node-hours (booked)", dropped_passable_nh);
    }
    println!(
        "gain: {} {:.1}, {} {:.1}",
        baseline.name(),
        mean(&|p| p.0.fees - p.0.penalties),
        strategy.name(),
        mean(&|p| p.1.fees - p.1.penalties)
    );
    Ok(())
}
