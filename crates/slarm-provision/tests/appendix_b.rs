//! A hand-checkable toy of the backward recursion (§4.3.4, Eqs. 4.9-4.26), every L value and argmin
//! to 1e-6.
#![allow(clippy::unwrap_used, clippy::needless_range_loop)]

use std::sync::Arc;

use slarm_provision::dp::{Plan, Variant};
use slarm_provision::gtable::{g_table, GConfig};
use slarm_provision::ktable::k_table_no_arrivals;
use slarm_provision::{ArrivalProfile, Cost, NextTable, Params};
use slarm_stats::RngStreams;

fn toy(params: Params) -> Plan {
    let g = g_table(
        &params,
        &ArrivalProfile::thesis(),
        &RngStreams::new(0),
        &GConfig {
            runs: 1,
            exact_after_u: true,
            p_max_only: false,
        },
    )
    .unwrap();
    let k = k_table_no_arrivals(&params, 6);
    let cost = Cost::series(vec![0.0, 4.0], vec![5.0, 1.0], true).unwrap();
    Plan::build(&params, Arc::new(g), Arc::new(k), &cost).unwrap()
}

fn toy_params() -> Params {
    Params {
        delta_secs: 1.0,
        u: 0,
        d: 4,
        p_min: 1,
        p_max: 3,
        y: 0.90,
        mean_service_secs: 0.5,
        r1_secs: 0.0,
        r2_secs: 0.1,
        ..Params::thesis()
    }
    .validated()
    .unwrap()
}

const L: [[[f64; 7]; 3]; 3] = [
    // s = 1
    [
        [
            7.500000, 7.506197, 7.564655, 7.782581, 8.724880, 10.288070, 11.844623,
        ],
        [
            7.895000, 7.901197, 7.959655, 8.177581, 9.119880, 10.683070, 12.239623,
        ],
        [
            8.290000, 8.296197, 8.354655, 8.572581, 9.514880, 11.078070, 12.634623,
        ],
    ],
    // s = 2
    [
        [
            4.000000, 4.045789, 4.386159, 5.224114, 9.769108, 10.069353, 10.523935,
        ],
        [
            4.295000, 4.340789, 4.681159, 5.519114, 9.769108, 10.069353, 10.523935,
        ],
        [
            4.590000, 4.635789, 4.976159, 5.814114, 9.769108, 10.069353, 10.523935,
        ],
    ],
    // s = 3
    [
        [
            1.500000, 1.838338, 3.676676, 5.515015, 6.019423, 6.754348, 7.779273,
        ],
        [
            1.695000, 2.033338, 3.676676, 5.515015, 6.019423, 6.754348, 7.779273,
        ],
        [
            1.890000, 2.228338, 3.871676, 5.515015, 6.019423, 6.754348, 7.779273,
        ],
    ],
];
const CHOICE: [[u32; 7]; 3] = [
    [1, 1, 1, 1, 1, 1, 1],
    [1, 1, 1, 1, 3, 3, 3],
    [1, 1, 2, 3, 3, 3, 3],
];

#[test]
fn g_table_of_the_toy() {
    // the toy's g_s(1..3)
    let plan = toy(toy_params());
    let want = [[5, 10, 15], [3, 6, 9], [2, 3, 4], [0, 0, 0], [0, 0, 0]];
    for (s, row) in want.iter().enumerate() {
        for (pi, &g) in row.iter().enumerate() {
            assert_eq!(plan.g.get_i64(s, pi + 1), g, "g_{s}({})", pi + 1);
        }
    }
}

#[test]
fn h3_every_value_and_argmin() {
    let plan = toy(toy_params());
    for s in 1..=3 {
        for p in 1..=3 {
            for n in 0..=6 {
                let v = plan.h3.value(s, p, n);
                let want = L[s - 1][p - 1][n];
                assert!((v - want).abs() < 1e-6, "L_{s}({p},{n}) = {v}, want {want}");
                assert_eq!(
                    plan.h3.choice[s][[p - 1, n]],
                    CHOICE[s - 1][n],
                    "l_{s}({p},{n})"
                );
                assert_eq!(
                    plan.decide(Variant::H3, s, p, n).unwrap() as u32,
                    CHOICE[s - 1][n]
                );
            }
        }
    }
}

#[test]
fn h4_equals_h3_and_h5_equals_p1_row() {
    // H4 identical; H5 for s <= 2 equals H3's p = 1 row; s = 3 shared base
    let plan = toy(toy_params());
    for s in 1..=3 {
        for p in 1..=3 {
            for n in 0..=6 {
                assert!((plan.h4.value(s, p, n) - L[s - 1][p - 1][n]).abs() < 1e-6);
                let want5 = if s == 3 {
                    L[2][p - 1][n]
                } else {
                    L[s - 1][0][n]
                };
                assert!(
                    (plan.h5.value(s, p, n) - want5).abs() < 1e-6,
                    "L''_{s}({p},{n})"
                );
            }
        }
    }
    // literal reading gives the same numbers on this toy (checked by hand)
    let lit = toy(Params {
        h45_next_table: NextTable::LiteralL,
        ..toy_params()
    });
    assert!((lit.h4.value(1, 2, 5) - L[0][1][5]).abs() < 1e-6);
}

#[test]
fn strict_forcing_changes_the_toy() {
    // forcing only when n > g gives L_2(p,4) = 6.348598 / 6.643598 / 6.938598
    let plan = toy(Params {
        forced_uses_ge: false,
        ..toy_params()
    });
    for (p, want) in [(1, 6.348598), (2, 6.643598), (3, 6.938598)] {
        assert!((plan.h3.value(2, p, 4) - want).abs() < 1e-6);
    }
    for (n, want) in [(4, 8.261964), (5, 9.362238), (6, 10.918791)] {
        assert!((plan.h3.value(1, 1, n) - want).abs() < 1e-6);
    }
}

#[cfg(feature = "serde")]
#[test]
fn tables_round_trip_through_json() {
    // the tables are serialisable
    let plan = toy(toy_params());
    let back: slarm_provision::dp::CostTable =
        serde_json::from_str(&serde_json::to_string(&plan.h4).unwrap()).unwrap();
    // serde_json parses floats to within an ulp (no `float_roundtrip` feature)
    assert_eq!(
        (back.choice, back.n_max),
        (plan.h4.choice.clone(), plan.h4.n_max.clone())
    );
    for (a, b) in back
        .values
        .iter()
        .flatten()
        .zip(plan.h4.values.iter().flatten())
    {
        assert!((a - b).abs() <= 1e-14 * b.abs(), "{a} vs {b}");
    }
    let g: slarm_provision::GTable =
        serde_json::from_str(&serde_json::to_string(plan.g.as_ref()).unwrap()).unwrap();
    assert_eq!(&g, plan.g.as_ref());
    let k: slarm_provision::ktable::KTable =
        serde_json::from_str(&serde_json::to_string(plan.k.as_ref()).unwrap()).unwrap();
    assert_eq!(k.bound, plan.k.bound);
    let d = |t: &slarm_provision::ktable::KTable| t.dist(2, 2, 3).unwrap().mean();
    assert!((d(&k) - d(&plan.k)).abs() < 1e-14);
}
