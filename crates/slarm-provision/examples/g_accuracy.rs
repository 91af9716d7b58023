//! Accuracy of the Monte Carlo `g_s(p)` below `u` against the backward Kolmogorov approximation
//! (Poisson arrivals at the profile's rate), and the local slope that turns Monte Carlo noise into
//! jobs (docs/decisions.md, Sung 2006, "Monte Carlo sizes of the g and k tables").
//!
//! `cargo run --release -p slarm-provision --example g_accuracy -- RUNS [SEED]`
#![allow(missing_docs)]

use std::collections::BTreeMap;

use slarm_provision::exact::{g_from_row, kolmogorov_q};
use slarm_provision::gtable::{g_kolmogorov, g_table, GConfig};
use slarm_provision::{ArrivalProfile, Params};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let runs: usize = args.next().unwrap_or_else(|| "100000".into()).parse()?;
    let seed: u64 = args.next().unwrap_or_else(|| "1".into()).parse()?;
    let params = Params::thesis();
    let prof = ArrivalProfile::thesis();
    let cfg = GConfig {
        runs,
        exact_after_u: true,
        p_max_only: false,
    };
    let g = g_table(&params, &prof, &slarm_stats::RngStreams::new(seed), &cfg)?;
    let ode = g_kolmogorov(&params, &prof, 260);
    let mut hist = BTreeMap::new();
    for s in 0..params.u {
        let mc: Vec<i64> = (1..=5).map(|p| g.get_i64(s, p)).collect();
        let od: Vec<i64> = (1..=5).map(|p| ode.get_i64(s, p)).collect();
        for (a, b) in mc.iter().zip(&od) {
            *hist.entry(a - b).or_insert(0usize) += 1;
        }
        println!("s = {s:2}: Monte Carlo {mc:?}  ODE {od:?}");
    }
    println!("runs {runs}, seed {seed}: g_MC - g_ODE over the 320 cells s < u: {hist:?}");
    // jobs per e-fold of Pr[late | n] around g (ODE): Monte Carlo noise in jobs is this
    // times the relative standard error of the tail probability, 1 / sqrt(R (1 - y))
    for p in 3..=5usize {
        let q = kolmogorov_q(&params, &prof, p, 260, 5.0);
        for s in [0usize, 25, 40, 50, 63] {
            if let Some(g) = g_from_row(&q[s], params.y).map(|g| g as usize) {
                if g >= 4 {
                    let miss = |n: usize| (1.0 - q[s][n]).ln();
                    let per_efold = 8.0 / (miss(g + 4) - miss(g - 4));
                    println!("p = {p}, s = {s:2}: g_ODE = {g:3}, {per_efold:.2} jobs per e-fold");
                }
            }
        }
    }
    Ok(())
}
