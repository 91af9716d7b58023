//! slarm-overbook: failure models and sources, acceptance tests, the time grid, ratio
//! distributions, job classes, jobs and workloads, probabilities of success, and the four
//! overbooking strategies on random small batteries.

use slarm::overbook::acceptance::{PofThreshold, RiskTest, TestSpec};
use slarm::overbook::classes::{ClassRegistry, RegistryConfig, StatsSource};
use slarm::overbook::failure::{
    outage_pos_homogeneous, FailureModel, FailureSource, NodeEventKind, NodeFailures, Outage,
    SyntheticPoisson, TraceReplay,
};
use slarm::overbook::grid::TimeGrid;
use slarm::overbook::job::SlaJob;
use slarm::overbook::pos::{comprehensive_pos, fits_within, heuristic_pos, ComprehensiveSlot};
use slarm::overbook::sim::{simulate_battery, BatteryConfig};
use slarm::overbook::strategy::Strategy;
use slarm::overbook::workload::{prepare, read_usable, RawJob};
use slarm::stats::{GridDist, RatioDist, Rounding};

use crate::{property, Gen, Tally, CASES, SCHEDULER_CASES};

fn probability(v: f64) -> bool {
    (0.0..=1.0 + 1e-12).contains(&v)
}

fn failure_model(g: &mut Gen, t: &mut Tally) -> Option<FailureModel> {
    let m = match g.below(3) {
        0 => FailureModel::Exponential {
            lambda: g.mostly(1e-4, 0.1),
            mu: g.mostly(0.01, 1.0),
        },
        1 => FailureModel::Weibull {
            shape: g.mostly(0.3, 3.0),
            scale: g.mostly(10.0, 1e4),
            mu: g.mostly(0.01, 1.0),
        },
        _ => {
            let k = g.below(4) as usize;
            FailureModel::HyperExponential {
                weights: (0..k).map(|_| g.mostly(0.0, 1.0)).collect(),
                rates: (0..k + g.below(2) as usize)
                    .map(|_| g.mostly(1e-4, 0.1))
                    .collect(),
                mu: g.mostly(0.01, 1.0),
            }
        }
    };
    t.call(m.validate()).map(|()| m)
}

#[test]
fn failure_models_and_sources() {
    property(
        "overbook/failure models and sources",
        CASES,
        true,
        |g, t| {
            let at = t.at();
            let secs = g.nasty();
            t.call(FailureModel::exponential(g.nasty(), g.nasty()));
            if let Some(m) = failure_model(g, t) {
                assert!(probability(m.availability()), "{at}: {m:?}");
                let s = m.survival(secs.abs());
                assert!(s.is_nan() || probability(s), "{at}: survival {s}");
                let p = outage_pos_homogeneous(&m, g.below(64) as usize, secs.abs());
                assert!(p.is_nan() || probability(p), "{at}: outage PoS {p}");
                let nodes: Vec<usize> = (0..g.below(4)).map(|_| g.below(6) as usize).collect();
                let per = NodeFailures::PerNode(vec![m.clone(); 3]);
                if let Some(p) = t.call(per.outage_pos_nodes(&nodes, g.nasty())) {
                    assert!(p.is_nan() || probability(p), "{at}: {p}");
                }
            }
            let outages: Vec<Outage> = (0..g.below(5))
                .map(|_| Outage {
                    node: g.below(10) as usize,
                    start: g.u64() as i64 % 10_000,
                    end: g.u64() as i64 % 10_000,
                })
                .collect();
            if let Some(tr) = t.call(TraceReplay::new(
                outages,
                g.below(8) as usize,
                g.u64() as i64 % 1000,
            )) {
                let ev = tr.events(g.below(8) as usize, g.below(20_000) as i64);
                assert!(
                    ev.windows(2).all(|w| w[0].time <= w[1].time),
                    "{at}: unsorted"
                );
            }
            let (lambda, mu) = (g.mostly(0.0, 0.1), g.mostly(0.05, 1.0));
            if let Some(sp) = t.call(SyntheticPoisson::new(lambda, mu, g.u64())) {
                // Linear in rate x horizon (rates per hour): at most ~1,000 events per node.
                let horizon = g.below(100 * 3600) as i64;
                if (lambda + mu) * horizon as f64 / 3600.0 <= 1e3 {
                    let ev = sp.events(g.below(8) as usize, horizon);
                    // Failures happen by the horizon; their repairs may come after it.
                    assert!(
                        ev.windows(2).all(|w| w[0].time <= w[1].time),
                        "{at}: unsorted"
                    );
                    assert!(
                        ev.iter().all(|e| e.time >= 0
                            && (e.kind == NodeEventKind::Repair || e.time <= horizon)),
                        "{at}"
                    );
                }
            }
        },
    );
}

#[test]
fn acceptance_tests_grids_and_ratios() {
    const WORDS: [&str; 8] = ["pof:", "risk:", "pof", ":", "0.1", "NaN", "-2", "1e400"];
    property("overbook/acceptance, grids, ratios", CASES, true, |g, t| {
        let at = t.at();
        if let Some(p) = t.call(PofThreshold::new(g.nasty())) {
            assert!(probability(p.max()), "{at}");
        }
        if let Some(r) = t.call(RiskTest::with_security(g.nasty())) {
            let e = r.equivalent_pof_max(g.nasty());
            assert!(e.is_nan() || e.is_finite() || e.is_infinite(), "{at}");
        }
        let text: String = (0..g.below(4)).map(|_| *g.pick(&WORDS)).collect();
        if let Some(spec) = t.call(text.parse::<TestSpec>()) {
            t.call(spec.build(g.nasty()));
        }
        t.call(text.parse::<Strategy>());
        t.call(text.parse::<StatsSource>());
        if let Some(grid) = t.call(TimeGrid::new(g.nasty())) {
            assert!(grid.step() > 0.0 && grid.step().is_finite(), "{at}");
            let v = g.below(1 << 20) as i64;
            assert!(grid.up(v) >= grid.down(v), "{at}");
        }
        let samples: Vec<(i64, i64)> = (0..g.below(40))
            .map(|_| (g.u64() as i64 % 100_000, g.u64() as i64 % 100_000))
            .collect();
        let rounding = *g.pick(&[Rounding::Up, Rounding::Down, Rounding::Nearest]);
        let learned = t.call(RatioDist::learn(
            samples.iter().map(|&(omega, x)| (omega as f64, x as f64)),
            rounding,
        ));
        let pdf: Vec<f64> = (0..g.below(110)).map(|_| g.mostly(0.0, 1.0)).collect();
        let total: f64 = pdf.iter().sum();
        let given = t.call(RatioDist::from_pmf(
            &pdf.iter().map(|p| p / total).collect::<Vec<_>>(),
        ));
        for d in [learned, given].into_iter().flatten() {
            let f = fits_within(&d, g.u64() as i64 % 100_000, g.u64() as i64 % 100_000);
            assert!(probability(f), "{at}: fits {f}");
            assert!(d.masses().iter().all(|m| m.is_finite()), "{at}");
        }
        if let Some(grid) = t.call(TimeGrid::new(60.0)) {
            let at_k = grid.at(g.below(1000) as i64);
            if let Some(d) = t.call(GridDist::defective(at_k, 60.0, pdf.clone())) {
                assert!(d.len() == pdf.len(), "{at}");
                let rt = GridDist::dirac(0.0, 60.0).unwrap();
                let end = g.below(2000) as i64;
                if let Some(p) = t.call(grid.p_end_by(&d, &rt, end)) {
                    assert!(probability(p), "{at}: {p}");
                }
            }
        }
    });
}

#[test]
fn jobs_classes_and_workloads() {
    property(
        "overbook/jobs, classes, workloads",
        CASES / 2,
        true,
        |g, t| {
            let at = t.at();
            let mut jobs = Vec::new();
            for id in 0..g.below(40) {
                let j = SlaJob::with_sla(
                    id,
                    g.u64() as i64 % 1_000_000,
                    g.u64() as i64 % 100_000,
                    g.u64() as i64 % 100_000,
                    g.count(16) as usize,
                    g.nasty(),
                );
                if let Some(j) = t.call(j) {
                    assert!(j.fee.is_finite() && j.penalty.is_finite(), "{at}");
                    jobs.push(j);
                }
            }
            let cfg = RegistryConfig {
                min_samples: g.count(30) as usize,
                ..RegistryConfig::default()
            };
            if let Some(reg) = t.call(ClassRegistry::learn(&jobs, cfg)) {
                for j in &jobs {
                    let f = fits_within(reg.for_job(j), j.estimate, j.estimate);
                    assert!(probability(f), "{at}");
                }
            }
            // Three jobs in four ordinary, the others hostile.
            let raw: Vec<RawJob> = (0..g.below(30))
                .map(|i| {
                    let hostile = g.below(4) == 0;
                    let mut time = |ordinary: u64| {
                        if hostile {
                            g.u64() as i64
                        } else {
                            1 + g.below(ordinary) as i64
                        }
                    };
                    RawJob {
                        id: i,
                        submit: time(1_000_000),
                        runtime: time(100_000),
                        estimate: time(100_000),
                        procs: if hostile {
                            g.count(20) as usize
                        } else {
                            g.range(1, 8) as usize
                        },
                        user: None,
                        app: None,
                    }
                })
                .collect();
            let ordered = {
                let mut r = raw;
                r.sort_by_key(|j| j.submit);
                r
            };
            let factor = if g.coin() { Some(g.nasty()) } else { None };
            let machine = g.count(16) as usize;
            let test_jobs = g.count(10) as usize;
            if let Some(p) = t.call(prepare(
                "fuzz", ordered, machine, test_jobs, factor, 0, true,
            )) {
                if let Some(train) = t.call(p.training_jobs()) {
                    assert!(train.iter().all(|j| j.validate().is_ok()), "{at}");
                }
                t.call(p.battery(g.below(3) as usize, g.count(8) as usize, g.nasty()));
            }
            let missing = std::path::Path::new("/nonexistent/trace.swf");
            t.call(read_usable(missing, Some(machine)));
        },
    );
}

#[test]
fn probabilities_of_success() {
    property(
        "overbook/probabilities of success",
        CASES / 2,
        true,
        |g, t| {
            let at = t.at();
            let Some(model) = failure_model(g, t) else {
                return;
            };
            let pdf: Vec<f64> = (0..101).map(|_| g.unit()).collect();
            let total: f64 = pdf.iter().sum();
            let dist =
                RatioDist::from_pmf(&pdf.iter().map(|p| p / total).collect::<Vec<_>>()).unwrap();
            let estimate = g.range(1, 20_000) as i64;
            let slot = g.u64() as i64 % 40_000;
            let p = heuristic_pos(&dist, estimate, slot, g.below(16) as usize, &model);
            assert!(p.pos().is_nan() || probability(p.pos()), "{at}: {p:?}");
            let Some(grid) = t.call(TimeGrid::new(g.mostly(60.0, 900.0))) else {
                return;
            };
            let start = g.below(10_000) as i64;
            let pred = GridDist::new(grid.at(grid.up(start)), grid.step(), vec![0.5, 0.5]).unwrap();
            let preds = [&pred];
            let r = comprehensive_pos(
                &dist,
                &grid,
                &NodeFailures::Homogeneous(model),
                &[0, 1],
                ComprehensiveSlot {
                    predecessors: if g.coin() { &preds[..] } else { &[] },
                    earliest: start,
                    start,
                    slot_end: start + g.below(40_000) as i64,
                    estimate,
                },
            );
            if let Some(r) = t.call(r) {
                let p = r.pos.pos();
                assert!(p.is_nan() || probability(p), "{at}: {p}");
            }
        },
    );
}

/// Random small batteries (4-24 jobs, estimates 1-120 min, real runtimes from a tenth of to
/// past the estimate, up to cluster + 1 nodes) under all four strategies: every job ends in
/// exactly one final state, the counts add up, money is finite and >= 0.
#[test]
fn every_strategy_accounts_for_every_job() {
    let mut overbooked = 0usize;
    let t = property(
        "overbook/four strategies on random batteries",
        SCHEDULER_CASES,
        false,
        |g, t| {
            let cluster = 1 + g.below(8) as usize;
            let n = 4 + g.below(21);
            let mut time = 0i64;
            let jobs: Vec<SlaJob> = (0..n)
                .map(|i| {
                    time += g.below(1800) as i64;
                    let est = 60 * (1 + g.below(120) as i64);
                    let run = (est as f64 * (0.1 + 1.1 * g.unit())).max(1.0) as i64;
                    let nodes = 1 + g.below(cluster as u64 + 1) as usize;
                    SlaJob::with_sla(i, time, est, run, nodes, 2.0 * g.unit()).unwrap()
                })
                .collect();
            let reg = ClassRegistry::learn(&jobs, RegistryConfig::default()).unwrap();
            for strategy in [
                Strategy::CompBackfill,
                Strategy::HeurPlan,
                Strategy::CompOverbook,
                Strategy::HeurOverbook,
            ] {
                for test in [
                    TestSpec::Pof { max: g.unit() },
                    TestSpec::Pof { max: 0.0 },
                    TestSpec::Risk {
                        ratio: 2.0 * g.unit(),
                    },
                ] {
                    let cfg = BatteryConfig::new(strategy, test);
                    let what = format!("{} {strategy:?} {test:?} cluster {cluster}", t.at());
                    let r = simulate_battery(&jobs, cluster, &reg, &[], &cfg)
                        .unwrap_or_else(|e| panic!("{what}: {e}"));
                    t.infallible();
                    overbooked += r.overbooked;
                    assert_eq!(r.successful + r.failed + r.dropped, jobs.len(), "{what}");
                    assert_eq!(r.outcomes.len(), jobs.len(), "{what}");
                    let mut ids: Vec<u64> = r.outcomes.iter().map(|o| o.id).collect();
                    ids.sort_unstable();
                    ids.dedup();
                    assert_eq!(ids.len(), jobs.len(), "{what}: a job reported twice");
                    assert!(r.outcomes.iter().all(|o| o.state.is_final()), "{what}");
                    assert!(r.overbooked <= r.successful + r.failed, "{what}");
                    for v in [r.fees, r.penalties, r.failed_fees] {
                        assert!(v.is_finite() && v >= 0.0, "{what}: money {v}");
                    }
                    if !strategy.overbooks() {
                        assert_eq!(
                            r.overbooked, 0,
                            "{what}: a planner without overbooking overbooked"
                        );
                    }
                }
            }
            // The same battery under a hostile configuration: a typed error or a result.
            let mut cfg =
                BatteryConfig::new(Strategy::CompOverbook, TestSpec::Risk { ratio: g.nasty() });
            cfg.security_factor = Some(g.nasty());
            cfg.grid_step = g.nasty();
            cfg.failure_model = FailureModel::Exponential {
                lambda: g.nasty(),
                mu: g.nasty(),
            };
            if let Ok(r) = simulate_battery(&jobs, cluster, &reg, &[], &cfg) {
                assert_eq!(
                    r.outcomes.len(),
                    jobs.len(),
                    "{} hostile configuration",
                    t.at()
                );
            }
            t.infallible();
        },
    );
    eprintln!(
        "robustness: overbook batteries: {} simulated, {overbooked} overbooked jobs",
        t.oks()
    );
    assert!(overbooked > 0, "the batteries never exercised overbooking");
}
