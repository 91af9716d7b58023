//! Statistical tests of the simulator against M/M/m theory, fixed seeds.
#![allow(clippy::unwrap_used)]

use slarm_queueing::sim::{run_replication, simulate, Discipline, QueueSimConfig};
use slarm_queueing::{JobClass, Mmm, Sla};
use slarm_stats::gof::ks_test;

fn class(l: f64, x: f64, y: f64) -> JobClass {
    JobClass::new(l, Sla::new(x, y).unwrap()).unwrap()
}

fn cfg(seed: u64, reps: u32, horizon: f64) -> QueueSimConfig {
    QueueSimConfig {
        horizon,
        warmup: 200.0,
        replications: reps,
        seed,
    }
}

/// FCFS-SA: every class's response-time ECDF matches F(x) of M/M/m with lambda = sum lambda_i
/// (Hu 2009, §4.2). KS at the 1% level on thinned samples (every 25th job per class, to
/// weaken serial correlation), several independent replications.
#[test]
fn fcfs_response_times_follow_f() {
    let classes = [class(4.0, 3.0, 0.9), class(2.0, 5.0, 0.8)];
    let q = Mmm::new(6.0, 1.0, 8).unwrap();
    let c = cfg(11, 1, 30_000.0);
    let mut rejections = 0;
    for rep in 0..4 {
        let r = run_replication(&classes, 1.0, 8, &Discipline::Fcfs, &c, rep, 25).unwrap();
        for samples in &r.samples {
            assert!(samples.len() > 1_500);
            let ks = ks_test(samples, |x| q.response_cdf(x)).unwrap();
            if ks.rejects(0.01).unwrap() {
                rejections += 1;
            }
            assert!(ks.d < 0.05, "D = {}", ks.d);
        }
    }
    // 8 tests at level 1%: allowing one rejection keeps the false-alarm rate tiny.
    assert!(rejections <= 1, "{rejections} KS rejections");
}

/// FCFS mean response and SLA fraction against the formulas (tolerance: 4 CI half-widths).
#[test]
fn fcfs_means_match_theory() {
    let classes = [class(15.0, 4.5, 0.8), class(5.0, 2.5, 0.9)];
    let q = Mmm::new(20.0, 1.0, 23).unwrap();
    let r = simulate(&classes, 1.0, 23, &Discipline::Fcfs, &cfg(5, 8, 6_000.0)).unwrap();
    for (i, c) in r.classes.iter().enumerate() {
        let hw = c.mean_response_ci95.unwrap();
        assert!(
            (c.mean_response - q.mean_response()).abs() < 4.0 * hw + 1e-3,
            "class {i}"
        );
        let f = q.response_cdf(classes[i].sla().x());
        let hwf = c.sla_fraction_ci95.unwrap();
        assert!(
            (c.sla_fraction - f).abs() < 4.0 * hwf + 2e-3,
            "class {i}: {} vs {f}",
            c.sla_fraction
        );
    }
}

/// HOL means against the exact non-preemptive priority formula for M/M/m with equal service
/// rates: W_k = C / (m mu (1 - s_{k-1})(1 - s_k)), s_k = sum_{j<=k} lambda_j / (m mu).
#[test]
fn hol_matches_priority_formula() {
    let classes = [
        class(3.0, 3.0, 0.9),
        class(2.0, 4.0, 0.8),
        class(1.5, 5.0, 0.8),
    ];
    let m = 8u64;
    let order = vec![1, 0, 2];
    let c = Mmm::new(6.5, 1.0, m).unwrap().erlang_c();
    let r = simulate(
        &classes,
        1.0,
        m,
        &Discipline::Hol {
            order: order.clone(),
        },
        &cfg(9, 8, 8_000.0),
    )
    .unwrap();
    let mut sigma_prev = 0.0;
    for &k in &order {
        let sigma = sigma_prev + classes[k].lambda() / m as f64;
        let w = c / (m as f64 * (1.0 - sigma_prev) * (1.0 - sigma));
        let want = 1.0 + w;
        let got = &r.classes[k];
        let hw = got.mean_response_ci95.unwrap();
        assert!(
            (got.mean_response - want).abs() < 4.0 * hw + 2e-3,
            "class {k}: {} vs {want}",
            got.mean_response
        );
        sigma_prev = sigma;
    }
}

/// Little's law (L = sum lambda_i E[T_i]) and work conservation: the mean number in system
/// equals rho + C rho / (m - rho) under FCFS, HOL and PDP alike (all three are non-preemptive
/// and work-conserving with identical exponential service, so the number in system is the same
/// birth-death chain).
#[test]
fn littles_law_and_work_conservation() {
    let classes = [class(12.0, 3.0, 0.95), class(6.0, 5.0, 0.8)];
    let m = 21;
    let exact = Mmm::new(18.0, 1.0, m).unwrap().mean_in_system();
    let c = cfg(21, 8, 5_000.0);
    let mut means = Vec::new();
    for d in [
        Discipline::Fcfs,
        Discipline::Hol { order: vec![0, 1] },
        Discipline::Pdp,
    ] {
        let r = simulate(&classes, 1.0, m, &d, &c).unwrap();
        let hw = r.mean_in_system_ci95.unwrap();
        assert!(
            (r.mean_in_system - exact).abs() < 4.0 * hw + 0.02,
            "{}: {} vs {exact}",
            d.name(),
            r.mean_in_system
        );
        let little: f64 = classes
            .iter()
            .zip(&r.classes)
            .map(|(k, s)| k.lambda() * s.mean_response)
            .sum();
        assert!(
            (little - r.mean_in_system).abs() / exact < 0.02,
            "{}: {little} vs {}",
            d.name(),
            r.mean_in_system
        );
        means.push(r.mean_in_system);
    }
    // Same birth-death chain in distribution: the three estimates agree to a few percent.
    for w in means.windows(2) {
        assert!((w[0] - w[1]).abs() / exact < 0.03, "{means:?}");
    }
}

/// PDP pushes the class that is furthest below its target: the strict class does better
/// under PDP than under FCFS, and PDP meets both SLAs where FCFS-SA needs more nodes.
#[test]
fn pdp_helps_the_strict_class() {
    let classes = [class(15.0, 4.5, 0.8), class(5.0, 2.5, 0.9)];
    let c = cfg(4, 4, 4_000.0);
    let f = simulate(&classes, 1.0, 22, &Discipline::Fcfs, &c).unwrap();
    let p = simulate(&classes, 1.0, 22, &Discipline::Pdp, &c).unwrap();
    assert!(p.classes[1].sla_fraction > f.classes[1].sla_fraction);
    assert!(p.all_met());
}

/// Two-class cases with SLAs of the Table 4.1 grid (two of them are Table 4.2's): the
/// simulated sizes keep the direction PDP <= HOL <= FCFS-SA of Hu 2009, §5.3 (one node of
/// slack for simulation noise),
/// and stay within one node of m_H and m_P from an independent re-implementation (one seed,
/// T = 20,000). HOL gives priority to the larger G (ties to the lower class index), PDP starts
/// at P_i = 0. Fixed seed, T = 5,000, warm-up 500, 2 replications.
///
/// The cases with SLA(3, 0.95) (the second and fourth) are left out: that SLA lies 2e-4 below
/// its bound 1 - e^{-3}, less than the sampling error of its on-time fraction (1e-3 to 4e-3
/// here), so whether and where it passes is decided by noise in any finite simulation (the
/// re-implementation's single seed gave 29 and 7; this seed passes case 2 at 24 nodes and never
/// passes case 4, which the procedures handle by falling back to the FCFS size).
#[test]
fn pdp_hol_fcfs_ordering_on_the_spec_cases() {
    use slarm_queueing::heuristics::HeuristicConfig;
    use slarm_queueing::procedures::hol_order;
    use slarm_queueing::sim::min_nodes_sim;
    // (classes, m_S analytic, m_H and m_P of the independent re-implementation)
    let cases = [
        ([(15.0, 4.5, 0.80), (5.0, 2.5, 0.90)], 23, 21, 21),
        ([(10.0, 5.0, 0.85), (10.0, 3.0, 0.95)], 30, 29, 29),
        ([(0.6, 3.0, 0.80), (3.0, 5.0, 0.95)], 5, 5, 5),
        ([(0.6, 3.0, 0.95), (3.6, 5.0, 0.80)], 10, 7, 7),
        ([(30.0, 3.0, 0.80), (5.0, 4.0, 0.90)], 36, 36, 36),
    ];
    let sim = QueueSimConfig {
        horizon: 5_000.0,
        warmup: 500.0,
        replications: 2,
        seed: 17,
    };
    let h = HeuristicConfig::default();
    let mut compared = 0;
    for (spec, m_s, m_h_spec, m_p_spec) in cases {
        let c: Vec<JobClass> = spec.iter().map(|&(l, x, y)| class(l, x, y)).collect();
        let margin = c
            .iter()
            .map(|k| k.sla().bound(1.0) - k.sla().y())
            .fold(f64::INFINITY, f64::min);
        if margin < 0.01 {
            continue;
        }
        compared += 1;
        assert_eq!(slarm_queueing::m_sa(&c, 1.0).unwrap(), m_s);
        let hol = Discipline::Hol {
            order: hol_order(&c, &h).unwrap(),
        };
        let m_h = min_nodes_sim(&c, 1.0, &hol, &sim, m_s, 20).unwrap();
        let m_p = min_nodes_sim(&c, 1.0, &Discipline::Pdp, &sim, m_h, 20).unwrap();
        assert!(
            m_h <= m_s + 1 && m_p <= m_h + 1,
            "{spec:?}: S {m_s} H {m_h} P {m_p}"
        );
        assert!(
            m_h.abs_diff(m_h_spec) <= 1,
            "{spec:?}: m_H {m_h} vs {m_h_spec}"
        );
        assert!(
            m_p.abs_diff(m_p_spec) <= 1,
            "{spec:?}: m_P {m_p} vs {m_p_spec}"
        );
    }
    assert_eq!(compared, 3);
}
