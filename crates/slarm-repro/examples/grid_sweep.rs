//! Runs the Table III/IV sweep (five kappas, four strategies) for a few seeds and prints the
//! metrics and the wall time:
//! `cargo run --release -p slarm-repro --example grid_sweep -- SEEDS [BG_UTIL BG_PROCS BG_MEAN_S RUNTIME_CAP_S BOTS STRATEGIES]`.
//! Defaults: the experiments' workload (15 % single-processor background, the Table II
//! runtime cap, 1650 BoTs, all 17 Table III cells); `RUNTIME_CAP_S` = 0 means uncapped, a
//! negative value keeps the default cap; `STRATEGIES` = `no` runs the initial system only
//! (e.g. `sweep 2 0 1 3600 0 32860 no` shows the uncapped §VII workloads).

use std::time::Instant;

use slarm_grid::prelude::*;
use slarm_stats::RngStreams;

fn main() -> Result<()> {
    let seeds: u64 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(1);
    let arg = |i: usize, d: f64| {
        std::env::args()
            .nth(i)
            .and_then(|s| s.parse::<f64>().ok())
            .unwrap_or(d)
    };
    let bg = SyntheticBackground {
        utilisation: arg(2, 0.15),
        procs: arg(3, 1.0) as u64,
        mean_runtime_s: arg(4, 3600.0),
    };
    let cap = arg(5, -1.0);
    let bots = arg(6, 1650.0) as usize;
    let only_no = std::env::args().nth(7).as_deref() == Some("no");
    let t0 = Instant::now();
    for seed in 0..seeds {
        let streams = RngStreams::new(seed);
        let mut cells = vec![(StrategyKind::None, 1.0)];
        for k in [1.5, 2.0, 2.5, 3.0].into_iter().filter(|_| !only_no) {
            for s in [
                StrategyKind::All,
                StrategyKind::Largest,
                StrategyKind::Number,
                StrategyKind::Dynamic,
            ] {
                cells.push((s, k));
            }
        }
        for (s, k) in cells {
            let t = Instant::now();
            let mut sc = Scenario::paper(s, k);
            sc.n_bots = bots;
            sc.background = slarm_grid::run::BackgroundSpec::Synthetic(bg.clone());
            sc.model = slarm_repro::papers::yigitbasi2010::experiment_model();
            if cap == 0.0 {
                sc.model.max_runtime_s = None;
            } else if cap > 0.0 {
                sc.model.max_runtime_s = Some(cap);
            }
            let r = run_scenario(&sc, &streams)?;
            println!(
                "seed {seed} {:8} k={k:.1} C_d={:8.2} C_s={:6.2} cpu_h={:9.0} kavg={:.3} end/T={:.1} mean_ms_min={:.0} tasks={} load={:.2} mean_rt={:.0} maxrt={:.2e} span_d={:.2} busy={:.3} waited={} {:.2}s",
                s.label(),
                r.consistency.c_d,
                r.consistency.c_s,
                r.run.cpu_hours,
                r.run.kappa_time_avg,
                r.run.end_s / r.run.horizon_s,
                r.mean_makespan_s / 60.0,
                r.workload.tasks,
                r.workload.offered_load,
                r.workload.mean_runtime_s,
                r.workload.max_runtime_s,
                r.workload.span_s / 86_400.0,
                r.run.cost.busy_only * 3600.0 / (r.run.base_procs as f64 * r.run.horizon_s),
                r.run.bots.iter().filter(|b| b.max_wait_s > 0.0).count(),
                t.elapsed().as_secs_f64()
            );
        }
    }
    println!("total {:.2}s", t0.elapsed().as_secs_f64());
    Ok(())
}
