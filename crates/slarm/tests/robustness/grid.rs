//! slarm-grid: κ, platforms, provisioners, workloads and their generators, background traces,
//! metrics, and every overprovisioning strategy under every scheduling policy on random small
//! grids.

use slarm::grid::kappa::Kappa;
use slarm::grid::metrics::{
    box_stats, consistency, ecdf, percentile_nearest_rank, BotRecord, Grouping,
};
use slarm::grid::platform::{largest_remainder, Platform};
use slarm::grid::provision::{
    DynamicAutoScale, DynamicSettings, DynamicStart, FeedbackController, StrategyKind,
};
use slarm::grid::run::{run_scenario, BackgroundSpec, Scenario};
use slarm::grid::sched::BotPolicy;
use slarm::grid::sim::{simulate, GridConfig};
use slarm::grid::workload::{
    parse_background_trace, BackgroundJob, BackgroundSource, Bot, GridWorkload, IosupBotModel,
    SiteMapping, SyntheticBackground, Task, TraceFormat,
};
use slarm::stats::RngStreams;

use crate::{property, Gen, Tally, CASES, SCHEDULER_CASES};

const STRATEGIES: [&str; 6] = ["none", "all", "largest", "number", "dynamic", "feedback"];

fn platform(g: &mut Gen, t: &mut Tally) -> Option<Platform> {
    let sites: Vec<(String, u64, f64)> = (0..g.below(4))
        .map(|i| (format!("s{i}"), g.count(16), g.mostly(1.0, 3.0)))
        .collect();
    t.call(Platform::new(sites))
}

#[test]
fn kappa_platforms_and_provisioners() {
    property(
        "grid/kappa, platforms, provisioners",
        CASES,
        true,
        |g, t| {
            let (num, den) = (g.count(50), g.count(50));
            let at = t.at();
            if let Some(k) = t.call(Kappa::new(num, den)) {
                assert!(k.denom() > 0 && k.numer() >= k.denom(), "{at}");
            }
            let k = t.call(Kappa::from_f64(g.nasty()));
            if let Some(p) = platform(g, t) {
                assert!(p.total_processors() > 0, "{at}");
                let weights: Vec<u64> = p.sites().iter().map(|s| s.processors).collect();
                let total = g.below(1000);
                let split = largest_remainder(total, &weights);
                assert_eq!(split.iter().sum::<u64>(), total, "{at}: {split:?}");
            }
            let k = k.unwrap_or(Kappa::one());
            let start = *g.pick(&[
                DynamicStart::Target,
                DynamicStart::LowerBound,
                DynamicStart::One,
            ]);
            t.call(DynamicAutoScale::new(
                k,
                g.nasty(),
                g.nasty(),
                g.nasty(),
                g.count(150),
                start,
            ));
            t.call(FeedbackController::new(
                g.count(20) as usize,
                g.nasty(),
                g.nasty(),
            ));
            let name = if g.coin() {
                *g.pick(&STRATEGIES)
            } else {
                "bogus"
            };
            if let Ok(kind) = name.parse::<StrategyKind>() {
                t.call(kind.build(k, (g.nasty(), g.nasty()), &DynamicSettings::default()));
            }
            let _ = (if g.coin() { "ect" } else { "x" }).parse::<BotPolicy>();
            t.infallible();
        },
    );
}

#[test]
fn workloads_generators_and_traces() {
    const WORDS: [&str; 8] = ["1", "0", "-1", "3600", "x", " ", "\n", "1e999"];
    property(
        "grid/workloads, generators, traces",
        CASES / 2,
        true,
        |g, t| {
            let at = t.at();
            let bots: Vec<Bot> = (0..g.below(4))
                .map(|id| Bot {
                    id: id as usize,
                    arrival_s: g.mostly(0.0, 1e4),
                    tasks: (0..g.below(4))
                        .map(|_| Task {
                            runtime_ref_s: g.mostly(1.0, 1e3),
                        })
                        .collect(),
                })
                .collect();
            let background: Vec<BackgroundJob> = (0..g.below(3))
                .map(|_| BackgroundJob {
                    submit_s: g.nasty(),
                    runtime_s: g.nasty(),
                    procs: g.count(8),
                    site: g.below(4) as usize,
                })
                .collect();
            t.call(GridWorkload::new(
                bots,
                background,
                BackgroundSource::Synthetic,
            ));
            let Some(p) = platform(g, t) else { return };
            let model = IosupBotModel {
                iat_params: (g.mostly(1.0, 5.0), g.mostly(1.0, 8.0)),
                size_params: (g.mostly(1.0, 2.0), g.mostly(1.0, 3.0)),
                runtime_params: (g.mostly(1.0, 3.0), g.mostly(1.0, 7.0)),
                max_runtime_s: if g.coin() { Some(g.nasty()) } else { None },
                ..IosupBotModel::default()
            };
            let mut rng = RngStreams::new(t.case).stream(&[4]);
            let n_bots = g.count(20).min(40) as usize;
            if let Some(bots) = t.call(model.generate(n_bots, g.mostly(0.1, 2.0), &p, &mut rng)) {
                assert_eq!(bots.len(), n_bots, "{at}");
                assert!(bots.iter().all(|b| !b.tasks.is_empty()), "{at}");
            }
            let bg = SyntheticBackground {
                utilisation: g.mostly(0.0, 1.0),
                mean_runtime_s: g.mostly(60.0, 3600.0),
                procs: g.count(4),
            };
            // Generating is linear in the horizon: at most a day of background.
            let horizon = g.mostly(0.0, 86_400.0).min(86_400.0);
            if bg.utilisation.is_finite() && bg.mean_runtime_s >= 60.0 {
                t.call(bg.generate(&p, horizon, &mut rng));
            }
            let text: String = (0..g.below(60))
                .map(|k| if k % 19 == 18 { "\n" } else { g.pick(&WORDS) })
                .collect::<Vec<_>>()
                .join(" ");
            let format = if g.coin() {
                TraceFormat::Swf
            } else {
                TraceFormat::Gwf
            };
            let mapping = if g.coin() {
                SiteMapping::Modulo
            } else {
                SiteMapping::Explicit(vec![("1".to_string(), g.below(5) as usize)])
            };
            t.call(parse_background_trace(
                &text,
                format,
                &mapping,
                g.below(4) as usize,
                g.nasty(),
            ));
        },
    );
}

#[test]
fn metrics() {
    property("grid/metrics", CASES, true, |g, t| {
        let at = t.at();
        let records: Vec<BotRecord> = (0..g.below(8))
            .map(|_| BotRecord {
                size: g.below(5) as usize,
                arrival_s: g.nasty(),
                makespan_s: g.mostly(1.0, 1e4),
                nsl: g.mostly(0.5, 10.0),
                max_wait_s: g.mostly(0.0, 1e4),
            })
            .collect();
        let grouping = Grouping {
            min_group_count: g.count(5) as usize,
            ..Grouping::default()
        };
        t.call(consistency(&records, grouping));
        let xs: Vec<f64> = records.iter().map(|r| r.makespan_s).collect();
        if let Some(b) = box_stats(&xs) {
            assert!(b.min <= b.max || xs.iter().any(|x| x.is_nan()), "{at}");
        }
        let _ = (
            percentile_nearest_rank(&xs, g.nasty()),
            ecdf(&xs, g.count(10) as usize),
        );
        t.infallible();
    });
}

/// Random small grids (1-3 sites of 1-8 processors), 1-8 BoTs of 1-6 tasks and a little
/// background, under every strategy and policy: each BoT gets one record, its makespan is at
/// least its longest task on the fastest processor, completions come after arrivals, the grid
/// never shrinks below the initial one (exactly the initial one without overprovisioning),
/// and costs and κ are finite.
#[test]
fn every_strategy_and_policy_on_random_grids() {
    property(
        "grid/strategies x policies on random grids",
        SCHEDULER_CASES / 2,
        false,
        |g, t| {
            let sites: Vec<(String, u64, f64)> = (0..g.range(1, 3))
                .map(|i| (format!("s{i}"), g.range(1, 8), g.uniform(1.0, 3.0)))
                .collect();
            let fastest = sites.iter().map(|s| s.2).fold(0.0, f64::max);
            let p = Platform::new(sites).unwrap();
            let mut at_s = 0.0;
            let bots: Vec<Bot> = (0..g.range(1, 8))
                .map(|id| {
                    at_s += g.uniform(0.0, 600.0);
                    Bot {
                        id: id as usize,
                        arrival_s: at_s,
                        tasks: (0..g.range(1, 6))
                            .map(|_| Task {
                                runtime_ref_s: g.uniform(10.0, 1000.0),
                            })
                            .collect(),
                    }
                })
                .collect();
            let background: Vec<BackgroundJob> = (0..g.below(3))
                .map(|_| BackgroundJob {
                    submit_s: g.uniform(0.0, 2000.0),
                    runtime_s: g.uniform(10.0, 2000.0),
                    procs: g.range(1, 4),
                    site: g.below(p.sites().len() as u64) as usize,
                })
                .collect();
            let w = GridWorkload::new(bots, background, BackgroundSource::Synthetic).unwrap();
            let kappa = Kappa::from_f64(1.0 + g.below(5) as f64 * 0.5).unwrap();
            let cfg = GridConfig::default();
            for name in STRATEGIES {
                for policy in BotPolicy::ALL {
                    let at = format!("{} {name} {}", t.at(), policy.label());
                    let kind = name.parse::<StrategyKind>().unwrap();
                    let mut prov = kind
                        .build(kappa, (3000.0, 2500.0), &DynamicSettings::default())
                        .unwrap();
                    let mut sched = policy.build();
                    let streams = RngStreams::new(t.case);
                    let r = simulate(&p, &w, prov.as_mut(), sched.as_mut(), &cfg, &streams)
                        .unwrap_or_else(|e| panic!("{at}: {e}"));
                    t.infallible();
                    assert_eq!(r.bots.len(), w.bots().len(), "{at}");
                    for (rec, bot) in r.bots.iter().zip(w.bots()) {
                        let longest = bot
                            .tasks
                            .iter()
                            .map(|k| k.runtime_ref_s)
                            .fold(0.0, f64::max);
                        let bound = longest * cfg.reference_speed_ghz / fastest;
                        assert!(
                            rec.makespan_s >= bound * (1.0 - 1e-9),
                            "{at}: {rec:?} < {bound}"
                        );
                        assert!(rec.nsl.is_finite() && rec.nsl > 0.0, "{at}");
                        assert!(r.end_s >= rec.arrival_s + rec.makespan_s - 1e-6, "{at}");
                    }
                    assert!(r.grid_procs >= r.base_procs, "{at}");
                    if name == "none" {
                        assert_eq!(r.grid_procs, r.base_procs, "{at}");
                        assert_eq!(r.cloud_acquisitions, 0, "{at}");
                    }
                    assert!(r.cpu_hours.is_finite() && r.cpu_hours >= 0.0, "{at}");
                    assert!(
                        r.kappa_max.is_finite() && r.kappa_max >= 1.0 - 1e-12,
                        "{at}"
                    );
                }
            }
            // A hostile simulation configuration: a typed error or a result.
            let bad = GridConfig {
                reference_speed_ghz: g.nasty(),
                acquisition_s: (g.nasty(), g.nasty()),
                release_s: (g.nasty(), g.nasty()),
                horizon_s: if g.coin() { Some(g.nasty()) } else { None },
                cold_prediction_s: g.nasty(),
                ..GridConfig::default()
            };
            let mut prov = StrategyKind::Dynamic
                .build(kappa, (3000.0, 2500.0), &DynamicSettings::default())
                .unwrap();
            let mut sched = BotPolicy::Ect.build();
            let _ = simulate(
                &p,
                &w,
                prov.as_mut(),
                sched.as_mut(),
                &bad,
                &RngStreams::new(1),
            );
            // A whole scenario with hostile knobs.
            let name = STRATEGIES[g.below(STRATEGIES.len() as u64) as usize];
            let kind = name.parse::<StrategyKind>().unwrap();
            let mut sc = Scenario::paper(kind, g.nasty());
            sc.platform = p.clone();
            sc.load = g.nasty();
            sc.n_bots = g.count(12).min(12) as usize;
            sc.feedback_s = (g.nasty(), g.nasty());
            sc.background = BackgroundSpec::None;
            let _ = run_scenario(&sc, &RngStreams::new(t.case));
            t.infallible();
        },
    );
}
