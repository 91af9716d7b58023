//! Times the pre-computation phases: `cargo run --release -p slarm-provision --example phase_times -- P_MAX [quick]`.
#![allow(missing_docs, clippy::unwrap_used)]
use slarm_provision::*;
use std::time::Instant;
fn main() {
    let params = Params {
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
    };
    let t = Instant::now();
    let g = gtable::g_table(
        &params,
        &ArrivalProfile::thesis(),
        &slarm_stats::RngStreams::new(0),
        &gtable::GConfig {
            runs: 1,
            exact_after_u: true,
        },
    )
    .unwrap();
    eprintln!("g {:?}", t.elapsed());
    let t = Instant::now();
    let k = ktable::k_table_no_arrivals(&params, 6);
    eprintln!("k {:?}", t.elapsed());
    let _ = (g, k);
    let args: Vec<String> = std::env::args().collect();
    if args.len() > 1 {
        let pm: usize = args[1].parse().unwrap();
        let params = Params {
            p_max: pm,
            ..Params::thesis()
        };
        let prof = ArrivalProfile::scaled_for(pm).unwrap();
        let sizes = if args.len() > 2 {
            McSizes::quick()
        } else {
            McSizes::standard()
        };
        let t = Instant::now();
        let tables =
            Tables::build(&params, &prof, &slarm_stats::RngStreams::new(1), &sizes).unwrap();
        eprintln!(
            "tables {:?} g {} k {}",
            t.elapsed(),
            tables.g_secs,
            tables.k_secs
        );
        let cost = Cost::preset(CostShape::Uniform, 92, 1.0, 2.0).unwrap();
        let (_plan, times) = tables.timed_plan(&cost).unwrap();
        eprintln!("{times:?} K_d {}", tables.k.k_bound(92));
        for s in [0usize, 10, 20, 30, 40, 50, 60, 63, 64, 70, 79] {
            let row: Vec<i64> = (1..=pm).map(|p| tables.g.get_i64(s, p)).collect();
            eprintln!("g_{s}: {row:?}");
        }
    }
}
