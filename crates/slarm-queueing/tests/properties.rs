//! Invariants of the analytic model (Hu 2009, §4.2 and §4.3).
#![allow(clippy::unwrap_used)]

use proptest::prelude::*;
use slarm_queueing::difference::LambdaGrid;
use slarm_queueing::sizing::{min_nodes_batch, min_nodes_sweep, SizingQuery};
use slarm_queueing::{min_nodes, Mmm, Sla};

proptest! {
    /// m(lambda, SLA) of Algorithm 1 never decreases in lambda.
    #[test]
    fn min_nodes_monotone_in_lambda(l in 0.01f64..200.0, dl in 0.0f64..50.0,
                                    x in 2.0f64..10.0, y in 0.5f64..0.95) {
        let sla = Sla::new(x, y).unwrap();
        prop_assume!(sla.is_feasible(1.0) && y < sla.bound(1.0) - 1e-4);
        let a = min_nodes(l, 1.0, sla).unwrap();
        let b = min_nodes(l + dl, 1.0, sla).unwrap();
        prop_assert!(a <= b, "m({l}) = {a} > m({}) = {b}", l + dl);
    }

    /// F(x) increases in m and never exceeds the bound 1 - e^{-mu x} (Hu 2009, §4.2).
    #[test]
    fn cdf_monotone_in_m(l in 0.01f64..500.0, extra in 0u64..50, x in 0.01f64..20.0,
                         mu in 0.2f64..5.0) {
        let m = (l / mu).floor() as u64 + 1 + extra;
        let f1 = Mmm::new(l, mu, m).unwrap().response_cdf(x);
        let f2 = Mmm::new(l, mu, m + 1).unwrap().response_cdf(x);
        prop_assert!(f2 >= f1 - 1e-14, "F(m={m}) = {f1} > F(m+1) = {f2}");
        prop_assert!(f2 <= -(-mu * x).exp_m1() + 1e-14);
        prop_assert!((0.0..=1.0).contains(&f1));
    }

    /// The response-time quantile inverts the CDF (to 1e-9) and never decreases in p.
    #[test]
    fn quantile_inverts_cdf(l in 0.001f64..300.0, extra in 0u64..20, mu in 0.2f64..5.0,
                            load in 0.05f64..0.999, p1 in 0.0f64..0.999, p2 in 0.0f64..0.999) {
        // lambda = load * m * mu with m above the offered load l / mu.
        let m = (l / mu).floor() as u64 + 1 + extra;
        let lambda = load * m as f64 * mu;
        let q = Mmm::new(lambda, mu, m).unwrap();
        let (a, b) = (p1.min(p2), p1.max(p2));
        let xa = q.response_time_quantile(a).unwrap();
        let xb = q.response_time_quantile(b).unwrap();
        prop_assert!((q.response_cdf(xa) - a).abs() <= 1e-9, "F({xa}) vs {a}");
        prop_assert!((q.response_cdf(xb) - b).abs() <= 1e-9, "F({xb}) vs {b}");
        prop_assert!(xa <= xb * (1.0 + 1e-11), "q({a}) = {xa} > q({b}) = {xb}");
    }

    /// Batch sizing gives exactly the one-by-one answers (errors included), in input order,
    /// on random batches mixing a few SLAs and service rates with repeated loads.
    #[test]
    fn batch_equals_one_by_one(
        rows in prop::collection::vec(
            (0.0f64..500.0, 0usize..3, 0usize..4, 0usize..4, prop::bool::ANY), 0..60)
    ) {
        let mus = [1.0, 0.5, 2.0];
        let xs = [2.0, 3.0, 4.5, 10.0];
        let ys = [0.5, 0.8, 0.9, 0.95];
        let queries: Vec<SizingQuery> = rows
            .iter()
            .map(|&(l, mi, xi, yi, round)| {
                let l = if round { l.round() } else { l };
                SizingQuery::new(l, mus[mi], Sla::new(xs[xi], ys[yi]).unwrap()).unwrap()
            })
            .collect();
        let got = min_nodes_batch(&queries);
        prop_assert_eq!(got.len(), queries.len());
        for (q, g) in queries.iter().zip(&got) {
            prop_assert_eq!(g, &min_nodes(q.lambda(), q.mu(), q.sla()), "{:?}", q);
        }
    }

    /// F is a CDF in x: non-decreasing.
    #[test]
    fn cdf_monotone_in_x(l in 0.01f64..100.0, extra in 0u64..10, x in 0.0f64..10.0,
                         dx in 0.0f64..5.0) {
        let m = l.floor() as u64 + 1 + extra;
        let q = Mmm::new(l, 1.0, m).unwrap();
        prop_assert!(q.response_cdf(x + dx) >= q.response_cdf(x) - 1e-15);
    }
}

/// Same-SLA subadditivity: m(l1 + l2) <= m(l1) + m(l2) for every usable grid SLA on the full
/// 0.1 grid with l1 + l2 <= 40: zero violations (Hu 2009, §4.3: with the same SLA, SA is
/// never worse).
#[test]
fn same_sla_subadditivity_has_zero_violations() {
    let ls = LambdaGrid::G.lambdas().unwrap();
    let n = ls.len();
    let mut checked = 0u64;
    let mut usable = 0;
    for x in [2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5.0] {
        for y in [0.80, 0.85, 0.90, 0.95] {
            let sla = Sla::new(x, y).unwrap();
            if !sla.is_feasible(1.0) {
                continue;
            }
            usable += 1;
            let m = min_nodes_sweep(&ls, 1.0, sla).unwrap();
            for i in 1..=n {
                for j in 1..=(n - i) {
                    assert!(
                        m[i + j - 1] <= m[i - 1] + m[j - 1],
                        "SLA({x},{y}) at {i},{j}"
                    );
                    checked += 1;
                }
            }
        }
    }
    assert_eq!(usable, 25); // 28 SLAs of Table 4.1, 3 infeasible
    assert_eq!(checked, 25 * 79_800);
}
