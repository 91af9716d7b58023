//! Is the predicted probability of failure of overbooked jobs right? Runs every battery of one
//! trace under one overbooking strategy at one PoF_max and compares, for the jobs overbooked at
//! acceptance, the PoF the planner predicted with what happened, and splits the gap into its
//! parts (Birkenheuer 2012, §3.3.1 comprehensive PoS, §3.3.2 heuristic PoS, §5.2.2 kill rule):
//!
//! - `P_exec` predicted: `PoS / (P_available · P_success)` of the accepted placement, i.e. the
//!   probability the model gave the job to complete within its slot, early starts included;
//! - the job's own class CDF at the offered allotment (start as planned) and at the allotment it
//!   finally had (actual start; the slot end of a comprehensive job never moves), each with the
//!   training statistics the planner used and with the same classes learned from the test window
//!   (a distribution shift between the two windows shows here);
//! - what happened: completed, killed at its slot end, lost to a node failure.
//!
//! `cargo run --release -p slarm-repro --example overbook_pof -- [TRACE_INDEX] [POF_MAX]
//! [runtime|resources] [comp-overbook|heur-overbook] [unconditioned|conditioned]`
//! (`conditioned`: running predecessors' end distributions given their elapsed time); traces come from `$SLARM_TRACES` or the
//! default trace directory.
#![allow(clippy::unwrap_used, missing_docs)]

use std::collections::BTreeMap;

use rayon::prelude::*;
use slarm_overbook::{
    acceptance::TestSpec,
    classes::{resource_class, ClassRegistry, RuntimeScheme, StatsSource},
    failure::{outage_pos_homogeneous, FailureModel},
    job::{JobState, SlaJob},
    planner::PlanEntry,
    pos::fits_within,
    sim::{simulate_battery_plan, BatteryConfig, BatteryRun},
    strategy::Strategy,
};
use slarm_repro::papers::birkenheuer2012::{harness::*, traces::PWA_TRACES};
use slarm_stats::{RatioDist, Rounding};

/// Sums over the overbooked jobs of one or more batteries.
#[derive(Default, Clone, Copy)]
struct Sums {
    jobs: f64,
    predicted_pof: f64,
    predicted_exec: f64,
    /// Own class CDF (training) at the offered / final allotment.
    train_offered: f64,
    train_final: f64,
    /// The same with the classes learned from the test window.
    test_offered: f64,
    test_final: f64,
    /// The same with finer test-window classes: resource class x runtime-estimate class.
    fine_final: f64,
    /// Observed: runtime fits the offered / final allotment.
    fits_offered: f64,
    fits_final: f64,
    started_early: f64,
    /// Jobs before whose actual start a later accepted job started on one of their nodes
    /// (inserted into the gap after their predecessors), and how many of those were killed.
    filled: f64,
    filled_killed: f64,
    /// Jobs whose final allotment is shorter than the offered one (killed before their slot end).
    cut_below_offer: f64,
    killed_short: f64,
    lost: f64,
    succeeded: f64,
    /// Gain (fees - penalties) of the whole battery.
    gain: f64,
}

impl Sums {
    fn add(&mut self, o: Sums) {
        macro_rules! add { ($($f:ident),*) => { $(self.$f += o.$f;)* } }
        add!(
            jobs,
            predicted_pof,
            predicted_exec,
            train_offered,
            train_final,
            test_offered,
            test_final,
            fine_final,
            fits_offered,
            fits_final,
            started_early,
            filled,
            filled_killed,
            cut_below_offer,
            killed_short,
            lost,
            succeeded,
            gain
        );
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let Some(dir) = slarm_workload::traces::dir_or_skip() else {
        return Ok(());
    };
    let args: Vec<String> = std::env::args().collect();
    let idx: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(5);
    let pof: f64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(0.05);
    let source = match args.get(3).map(String::as_str) {
        Some("runtime") => StatsSource::Runtime,
        _ => StatsSource::Resources,
    };
    let strategy = match args.get(4) {
        Some(s) => s.parse::<Strategy>()?,
        None => Strategy::CompOverbook,
    };
    let spec = PWA_TRACES.get(idx).ok_or("trace index 0..5")?;
    let setup = TraceSetup::load(spec, Some(&dir.join(spec.file)), TEST_JOBS, 1)?;
    let batteries = setup.prepared.battery_count(BATTERY_SIZE);
    let mut cfg = BatteryConfig::new(strategy, TestSpec::Pof { max: pof });
    cfg.condition_on_elapsed = args.get(5).map(String::as_str) == Some("conditioned");
    let ratio = cfg.test.penalty_ratio();
    let train = setup.registry(source);
    let test_jobs: Vec<SlaJob> = (0..batteries)
        .map(|k| setup.prepared.battery(k, BATTERY_SIZE, ratio))
        .collect::<Result<Vec<_>, _>>()?
        .concat();
    let test = ClassRegistry::learn(&test_jobs, *train.config())?;
    let model = FailureModel::default();
    let fine_key = |j: &SlaJob| {
        (
            resource_class(j.nodes),
            RuntimeScheme::Seven.class_of(j.estimate),
        )
    };
    let mut fine_samples: BTreeMap<(usize, usize), Vec<(f64, f64)>> = BTreeMap::new();
    for j in &test_jobs {
        fine_samples
            .entry(fine_key(j))
            .or_default()
            .push((j.runtime as f64, j.estimate as f64));
    }
    let fine: BTreeMap<(usize, usize), RatioDist> = fine_samples
        .into_iter()
        .map(|(k, v)| (k, RatioDist::learn(v, Rounding::Up).unwrap()))
        .collect();

    println!(
        "{} {} PoF_max {pof}, {} statistics, {batteries} batteries, synthetic failures, \
         predecessors conditioned on elapsed time: {}",
        spec.name,
        strategy.name(),
        source.name(),
        cfg.condition_on_elapsed
    );
    println!("classes: training vs test window, P(omega/x > b) at b = 10, 25, 50, 75, 99 %");
    for (key, d) in train.classes() {
        let t = test.classes().get(key).unwrap_or(test.all_jobs());
        let tail = |d: &RatioDist| {
            [10, 25, 50, 75, 99]
                .map(|b| format!("{:.3}", 1.0 - d.cdf(b)))
                .join(" ")
        };
        println!(
            "  {key:?}: train n={} [{}]  test n={} [{}]",
            d.samples(),
            tail(d),
            t.samples(),
            tail(t)
        );
    }

    let per: Vec<Sums> = (0..batteries)
        .into_par_iter()
        .map(|k| {
            let jobs = setup.prepared.battery(k, BATTERY_SIZE, ratio).unwrap();
            let events = battery_failures(
                &jobs,
                setup.prepared.machine,
                FailureMode::Synthetic,
                1,
                &setup.prepared.name,
                k,
            )
            .unwrap();
            let run = simulate_battery_plan(
                &jobs,
                setup.prepared.machine,
                setup.registry(source),
                &events,
                &cfg,
            )
            .unwrap();
            let filled = gap_filled(&run);
            let r = run.into_result(&jobs);
            let mut s = Sums {
                gain: r.gain(),
                ..Sums::default()
            };
            for (i, (job, o)) in jobs.iter().zip(&r.outcomes).enumerate() {
                if o.state == JobState::Dropped || o.offered >= job.estimate {
                    continue;
                }
                let outage = outage_pos_homogeneous(&model, job.nodes, o.offered as f64);
                let cdf = |reg: &ClassRegistry, l| fits_within(reg.for_job(job), l, job.estimate);
                let fits = |l: i64| f64::from(u8::from(job.runtime <= l || l >= job.estimate));
                let killed = o.state == JobState::Failed
                    && o.allotted < job.estimate
                    && o.allotted < job.runtime;
                s.add(Sums {
                    jobs: 1.0,
                    predicted_pof: o.pof,
                    predicted_exec: (1.0 - o.pof) / outage,
                    train_offered: cdf(train, o.offered),
                    train_final: cdf(train, o.allotted),
                    test_offered: cdf(&test, o.offered),
                    test_final: cdf(&test, o.allotted),
                    fine_final: fits_within(&fine[&fine_key(job)], o.allotted, job.estimate),
                    fits_offered: fits(o.offered),
                    fits_final: fits(o.allotted),
                    started_early: f64::from(u8::from(o.allotted > o.offered)),
                    filled: f64::from(u8::from(filled[i])),
                    filled_killed: f64::from(u8::from(filled[i] && killed)),
                    cut_below_offer: f64::from(u8::from(o.allotted < o.offered)),
                    killed_short: f64::from(u8::from(killed)),
                    lost: f64::from(u8::from(o.state == JobState::Failed && !killed)),
                    succeeded: f64::from(u8::from(o.state == JobState::Succeeded)),
                    gain: 0.0,
                });
            }
            s
        })
        .collect();
    let mut all = Sums::default();
    for s in &per {
        all.add(*s);
    }
    let n = all.jobs.max(1.0);
    let line = |label: &str, v: f64| println!("  {label:58} {:8.4}", v / n);
    println!(
        "overbooked at acceptance: {} jobs ({:.1} per battery)",
        all.jobs,
        all.jobs / batteries.max(1) as f64
    );
    println!(
        "  gain per battery (all jobs)                                {:10.1}",
        all.gain / batteries.max(1) as f64
    );
    line("predicted PoF (mean)", all.predicted_pof);
    line(
        "observed failed (killed short + lost)",
        all.killed_short + all.lost,
    );
    line("  killed at slot end", all.killed_short);
    line("  lost to node failures", all.lost);
    line("succeeded", all.succeeded);
    line(
        "predicted P_exec (mean, early starts included)",
        all.predicted_exec,
    );
    line("P(fit) start as planned, training CDF", all.train_offered);
    line("P(fit) start as planned, test-window CDF", all.test_offered);
    line(
        "observed fit, start as planned (omega <= offered)",
        all.fits_offered,
    );
    line(
        "share that started before the planned start",
        all.started_early,
    );
    line(
        "  of all: a later accepted job started before it on its nodes",
        all.filled,
    );
    line("  of all: such and killed at slot end", all.filled_killed);
    line(
        "  of all: final allotment below the offered one",
        all.cut_below_offer,
    );
    line("P(fit) actual start, training CDF", all.train_final);
    line("P(fit) actual start, test-window CDF", all.test_final);
    line(
        "P(fit) actual start, test-window resource x runtime CDF",
        all.fine_final,
    );
    line(
        "observed fit, actual start (omega <= final allotment)",
        all.fits_final,
    );
    Ok(())
}

/// For each job of a battery: true when a job accepted after it started on one of its nodes
/// before it did (a later job placed into the gap between it and its predecessors, which its
/// start distribution at acceptance did not contain).
fn gap_filled(run: &BatteryRun<'_>) -> Vec<bool> {
    let entries: Vec<Option<PlanEntry<'_>>> = run
        .keys
        .iter()
        .map(|k| k.map(|k| run.planner.entry(k).unwrap()))
        .collect();
    entries
        .iter()
        .enumerate()
        .map(|(i, a)| {
            a.as_ref().is_some_and(|a| {
                entries[i + 1..]
                    .iter()
                    .flatten()
                    .any(|b| b.start < a.start && b.nodes.iter().any(|n| a.nodes.contains(n)))
            })
        })
        .collect()
}
