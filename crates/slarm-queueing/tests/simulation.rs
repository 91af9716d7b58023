//! Statistical tests of the simulator against M/M/m theory (spec 003 §4.4), fixed seeds.
#![allow(clippy::unwrap_used)]

use slarm_queueing::sim::{run_replication, simulate, Discipline, SimConfig};
use slarm_queueing::{JobClass, Mmm, Sla};
use slarm_stats::gof::ks_test;

fn class(l: f64, x: f64, y: f64) -> JobClass {
    JobClass::new(l, Sla::new(x, y).unwrap()).unwrap()
}

fn cfg(seed: u64, reps: u32, horizon: f64) -> SimConfig {
    SimConfig {
        horizon,
        warmup: 200.0,
        replications: reps,
        seed,
    }
}

/// FCFS-SA: every class's response-time ECDF matches F(x) of M/M/m with lambda = sum lambda_i
/// (spec 003 §1.2, §4.4). KS at the 1% level on thinned samples (every 25th job per class, to
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
/// equals rho + C rho / (m - rho) under FCFS, HOL and PDP alike (spec 003 §4.4).
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
