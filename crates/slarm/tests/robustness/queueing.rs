//! slarm-queueing: M/M/m, SLAs and sizing, SLA differences, partitions, Hu's heuristics and
//! the multiclass simulator.

use slarm::queueing::difference::{
    f_d, g_average, g_exact_integral, g_thesis, sla_difference, DaSaGrid, LambdaGrid,
};
use slarm::queueing::erlang::{p0, response_cdf_thesis, ErlangB};
use slarm::queueing::heuristics::{algorithm2, algorithm3, g_of, HeuristicConfig, Structure3Fix};
use slarm::queueing::partition::{all_strategies, m_da, m_sa, pool_nodes};
use slarm::queueing::sampling::{draw_classes, LambdaDist, Setting};
use slarm::queueing::sim::{min_nodes_sim, run_replication, simulate, Discipline, QueueSimConfig};
use slarm::queueing::sizing::{min_nodes_capped, min_nodes_from, min_nodes_sweep};
use slarm::queueing::{
    erlang_b, erlang_c, min_nodes, nodes_for_partition, optimal_partition, JobClass, Mmm,
    Partition, Sla,
};
use slarm::stats::RngStreams;

use crate::{property, Gen, Tally, CASES};

fn probability(v: f64) -> bool {
    (-1e-12..=1.0 + 1e-12).contains(&v)
}

#[test]
fn mmm_and_erlang() {
    property("queueing/Mmm and Erlang", CASES, true, |g, t| {
        let (lambda, mu, x) = (g.mostly(0.0, 50.0), g.mostly(0.1, 5.0), g.nasty());
        let m = g.count(2000);
        let rho = g.nasty();
        let at = t.at();
        if let Some(q) = t.call(Mmm::new(lambda, mu, m)) {
            assert!((m as f64) > q.rho(), "{at}");
            assert!(probability(q.erlang_c()), "{at}");
            assert!(probability(q.p0()), "{at}: p0 {}", q.p0());
            let f = q.response_cdf(x);
            assert!(
                x.is_nan() || probability(f),
                "{at}: Mmm({lambda}, {mu}, {m}).response_cdf({x}) = {f}"
            );
            let w = q.waiting_ccdf(x);
            assert!(x.is_nan() || probability(w), "{at}: P(W > {x}) = {w}");
            for v in [q.mean_response(), q.mean_waiting(), q.mean_in_system()] {
                assert!(v >= 0.0, "{at}: {v}");
            }
        }
        let small = m.min(5000);
        if let Some(b) = t.call(erlang_b(small, rho)) {
            assert!(probability(b), "{at}: B {b}");
        }
        if let Some(c) = t.call(erlang_c(small, rho)) {
            assert!(probability(c), "{at}: C {c}");
        }
        if let Some(p) = t.call(p0(small, rho)) {
            assert!(probability(p), "{at}: P0 {p}");
        }
        if let Some(mut e) = t.call(ErlangB::new(rho)) {
            e.advance_to(small);
            assert!(probability(e.value()), "{at}");
            t.call(e.erlang_c());
        }
        if let Some(f) = t.call(response_cdf_thesis(x, lambda, mu, m.min(500))) {
            assert!(f.is_nan() || f.is_finite(), "{at}");
        }
    });
}

fn sla(g: &mut Gen, t: &mut Tally) -> Option<Sla> {
    t.call(Sla::new(g.mostly(0.5, 10.0), g.mostly(0.5, 0.99)))
}

#[test]
fn sla_class_and_sizing() {
    property("queueing/Sla, JobClass and sizing", CASES, true, |g, t| {
        let (lambda, mu) = (g.mostly(0.0, 40.0), g.mostly(0.2, 4.0));
        let at = t.at();
        let Some(s) = sla(g, t) else { return };
        assert!(s.x() > 0.0 && s.x().is_finite(), "{at}");
        assert!(s.y() > 0.0 && s.y() < 1.0, "{at}");
        t.call(s.check_feasible(mu));
        if let Some(c) = t.call(JobClass::new(lambda, s)) {
            assert!(c.lambda() >= 0.0 && c.lambda().is_finite(), "{at}");
        }
        // Sizing is linear in the load: huge loads are valid but slow, so only moderate
        // loads get sized (hostile mu and SLAs still reach the validation).
        if lambda.abs() < 1e4 && (mu.is_nan() || mu.abs() >= 1e-2) {
            for m in [
                t.call(min_nodes(lambda, mu, s)),
                t.call(min_nodes_from(lambda, mu, s, g.count(50))),
                t.call(min_nodes_capped(lambda, mu, s, g.count(50), g.count(200))),
            ]
            .into_iter()
            .flatten()
            {
                if m > 0 && lambda > 0.0 {
                    let q = Mmm::new(lambda, mu, m).unwrap();
                    assert!(q.response_cdf(s.x()) >= s.y() - 1e-12, "{at}: m = {m}");
                }
            }
            let lambdas: Vec<f64> = (0..g.below(4)).map(|_| g.mostly(0.0, 40.0)).collect();
            if lambdas.iter().all(|l| l.abs() < 1e4) {
                t.call(min_nodes_sweep(&lambdas, mu, s));
            }
        }
    });
}

#[test]
fn sla_differences() {
    property("queueing/SLA differences", CASES / 4, true, |g, t| {
        let mu = g.mostly(0.5, 2.0);
        let (Some(a), Some(b)) = (sla(g, t), sla(g, t)) else {
            return;
        };
        let at = t.at();
        // Grids are small so that a case stays cheap: K <= 10 with at least a 0.5 step.
        let grid = t.call(LambdaGrid::new(g.mostly(1.0, 10.0), g.mostly(0.5, 2.0)));
        if let Some(grid) = grid.filter(|gr| gr.k() <= 10.0 && gr.step() >= 0.5) {
            if let Some(n) = t.call(grid.points()) {
                assert!(n >= 1, "{at}");
            }
            t.call(grid.lambdas());
            t.call(g_thesis(a, mu, grid));
            t.call(g_average(a, mu, grid));
            if let Some(d) = t.call(DaSaGrid::new(a, b, mu, grid)) {
                assert!(probability(d.f_d()), "{at}: f_D {}", d.f_d());
            }
        }
        t.call(g_exact_integral(a, mu, g.mostly(1.0, 10.0).min(10.0)));
        t.call(sla_difference(a, b, mu));
        if g.below(4) == 0 {
            if let Some(f) = t.call(f_d(a, b, mu)) {
                assert!(probability(f), "{at}: f_D {f}");
            }
        }
    });
}

fn classes(g: &mut Gen, t: &mut Tally, n: usize) -> Vec<JobClass> {
    (0..n)
        .filter_map(|_| {
            let s = sla(g, t)?;
            t.call(JobClass::new(g.mostly(0.0, 20.0).min(1e3), s))
        })
        .collect()
}

#[test]
fn partitions_and_heuristics() {
    property(
        "queueing/partitions and heuristics",
        CASES / 2,
        true,
        |g, t| {
            let n = g.below(5) as usize;
            let blocks: Vec<Vec<usize>> = (0..g.below(4))
                .map(|_| (0..g.below(4)).map(|_| g.below(6) as usize).collect())
                .collect();
            let at = t.at();
            let p = t.call(Partition::new(n, blocks));
            t.call(Partition::mixed(
                n,
                g.below(6) as usize,
                g.below(6) as usize,
            ));
            t.call(Partition::all(g.below(10) as usize));
            let cs = classes(g, t, n.max(1));
            let mu = g.mostly(0.5, 2.0);
            if let Some(p) = &p {
                if let Some(nodes) = t.call(nodes_for_partition(&cs, p, mu)) {
                    assert!(nodes > 0 || cs.iter().all(|c| c.lambda() == 0.0), "{at}");
                }
            }
            let members: Vec<usize> = (0..g.below(4)).map(|_| g.below(6) as usize).collect();
            t.call(pool_nodes(&cs, &members, mu));
            let da = t.call(m_da(&cs, mu));
            t.call(m_sa(&cs, mu));
            t.call(all_strategies(&cs, mu));
            if let Some(best) = t.call(optimal_partition(&cs, mu)) {
                if let Some(da) = da {
                    assert!(best.nodes <= da, "{at}: best {} > DA {da}", best.nodes);
                }
            }
            let cfg = HeuristicConfig {
                mu,
                ..HeuristicConfig::default()
            };
            if let Some(s) = sla(g, t) {
                t.call(g_of(s, &cfg));
            }
            if cs.len() >= 2 {
                t.call(algorithm2(&cs[0], &cs[1], &cfg));
            }
            let fix = *g.pick(&[
                Structure3Fix::AddEdge,
                Structure3Fix::RemoveSmallD,
                Structure3Fix::RemoveLargeD,
                Structure3Fix::Random,
            ]);
            let mut rng = RngStreams::new(t.case).stream(&[0]);
            t.call(algorithm3(&cs, &cfg, fix, &mut rng));
        },
    );
}

/// The multiclass simulator: hostile rates, servers, disciplines and configurations (the
/// horizon is at most 200 mean service times so that a case stays cheap).
#[test]
fn multiclass_simulator() {
    property("queueing/multiclass simulator", CASES / 10, true, |g, t| {
        let n = 1 + g.below(3) as usize;
        let cs = classes(g, t, n);
        let mu = g.mostly(0.5, 2.0);
        let m = g.count(30).min(200);
        let horizon = g.mostly(10.0, 200.0).min(200.0);
        let cfg = QueueSimConfig {
            horizon,
            warmup: g.mostly(0.0, 20.0),
            replications: g.count(3).min(3) as u32,
            seed: g.u64(),
        };
        let mut order: Vec<usize> = (0..cs.len()).collect();
        if g.coin() {
            order.reverse();
        }
        if g.below(4) == 0 {
            order.push(g.below(5) as usize);
        }
        let discipline = g
            .pick(&[Discipline::Fcfs, Discipline::Hol { order }, Discipline::Pdp])
            .clone();
        let at = t.at();
        if let Some(r) = t.call(run_replication(
            &cs,
            mu,
            m,
            &discipline,
            &cfg,
            0,
            g.below(3),
        )) {
            assert_eq!(r.count.len(), cs.len(), "{at}");
            for (k, (&met, &count)) in r.met.iter().zip(&r.count).enumerate() {
                assert!(met <= count, "{at}: class {k}");
                assert!(r.sum_response[k] >= 0.0, "{at}");
            }
            assert!(r.mean_in_system >= 0.0, "{at}");
        }
        if let Some(s) = t.call(simulate(&cs, mu, m, &discipline, &cfg)) {
            for c in &s.classes {
                assert!(probability(c.sla_fraction) || c.completed == 0, "{at}");
            }
        }
        if g.below(4) == 0 {
            t.call(min_nodes_sim(
                &cs,
                mu,
                &discipline,
                &cfg,
                g.count(10).min(50),
                5,
            ));
        }
    });
}

/// Class sampling of the thesis's evaluation settings with hostile distributions and ranges
/// (its rejection loops are capped: an unreachable setting is an error, not a hang).
#[test]
fn class_sampling() {
    property("queueing/class sampling", CASES / 20, true, |g, t| {
        let lambda = match g.below(3) {
            0 => LambdaDist::Uniform {
                a: g.mostly(0.0, 20.0),
                b: g.mostly(0.0, 40.0),
            },
            1 => LambdaDist::Normal {
                mean: g.mostly(0.0, 20.0),
                spread: g.mostly(0.1, 10.0),
                spread_is_variance: g.coin(),
            },
            _ => LambdaDist::Exponential {
                mean: g.mostly(0.1, 20.0),
            },
        };
        let setting = Setting {
            lambda,
            x_lo: g.mostly(0.5, 5.0),
            x_hi: g.mostly(0.5, 10.0),
            y_lo: g.mostly(0.5, 0.9),
            y_hi: g.mostly(0.5, 0.99),
        };
        let mut rng = RngStreams::new(t.case).stream(&[5]);
        let at = t.at();
        if let Some(v) = t.call(lambda.sample(&mut rng)) {
            assert!(v > 0.0 && v <= 40.0, "{at}: {v}");
        }
        let n = g.range(1, 3) as usize;
        if let Some((cs, _rejected)) =
            t.call(draw_classes(n, &setting, g.mostly(0.5, 2.0), &mut rng))
        {
            assert_eq!(cs.len(), n, "{at}");
            assert!(
                cs.iter().map(|c| c.lambda()).sum::<f64>() <= 40.0 + 1e-9,
                "{at}"
            );
        }
    });
}
