//! slarm-provision: parameters, arrival profiles, cost functions, policy names, and Sung's
//! policies (H1-H5 and static) on random arrival streams.

use std::sync::Arc;

use slarm::provision::evaluate::simulate_run;
use slarm::provision::gtable::GConfig;
use slarm::provision::ktable::{Dist, KConfig};
use slarm::provision::{
    ArrivalProfile, Cost, CostFunction, CostShape, Heuristic, McSizes, Params, Tables,
};
use slarm::stats::RngStreams;

use crate::{property, CASES, SCHEDULER_CASES};

#[test]
fn parameters_profiles_and_costs() {
    const WORDS: [&str; 9] = ["h1", "H5", "static:", "3", "0", "-1", " ", "h9", "static:4"];
    property(
        "provision/parameters, profiles, costs",
        CASES,
        true,
        |g, t| {
            let at = t.at();
            let mut p = Params::thesis();
            p.delta_secs = g.mostly(60.0, 1800.0);
            p.y = g.mostly(0.5, 0.9999);
            p.mean_service_secs = g.mostly(60.0, 3600.0);
            p.penalty_factor = g.mostly(0.5, 2.0);
            p.r1_secs = g.mostly(0.0, 60.0);
            p.r2_secs = g.mostly(0.0, 60.0);
            p.u = g.count(100) as usize;
            p.d = g.count(120) as usize;
            p.p_min = g.count(5) as usize;
            p.p_max = g.count(20) as usize;
            if let Some(v) = t.call(p.validated()) {
                assert!(v.u < v.d && v.p_min <= v.p_max, "{at}");
                assert!(v.y > 0.0 && v.y < 1.0, "{at}");
                assert!(v.r1_secs < v.delta_secs && v.r2_secs < v.delta_secs, "{at}");
            }
            let profile = ArrivalProfile {
                base_mean_secs: g.mostly(60.0, 900.0),
                u_secs: g.mostly(3600.0, 57_600.0),
                coefficients: [g.mostly(0.0, 3.0), g.nasty() * 1e-4, g.nasty() * 1e-9],
            };
            if let Some(pr) = t.call(profile.validated()) {
                let r = pr.rate(g.mostly(0.0, 57_600.0));
                assert!(r.is_nan() || r >= 0.0, "{at}: rate {r}");
            }
            t.call(ArrivalProfile::scaled_for(g.count(10) as usize));
            t.call(CostShape::from_index(g.count(8) as usize));
            let shape = *g.pick(&CostShape::all());
            let d = g.count(120).min(10_000) as usize;
            if let Some(c) = t.call(Cost::preset(shape, d, g.nasty(), g.nasty())) {
                let v = c.integral(0.0, d as f64);
                assert!(v.is_finite() && v >= 0.0, "{at}: integral {v}");
            }
            let n = g.below(6) as usize;
            let times: Vec<f64> = (0..n).map(|_| g.mostly(0.0, 92.0)).collect();
            let values: Vec<f64> = (0..n + g.below(2) as usize)
                .map(|_| g.mostly(0.0, 5.0))
                .collect();
            let text: String = times
                .iter()
                .zip(&values)
                .map(|(a, b)| format!("{a},{b}\n"))
                .collect();
            if let Some(c) = t.call(Cost::series(times, values, g.coin())) {
                assert!(c.c(g.mostly(0.0, 92.0)) >= 0.0, "{at}");
            }
            t.call(Cost::parse_series(&text, g.coin()));
            let name: String = (0..g.below(3)).map(|_| *g.pick(&WORDS)).collect();
            t.call(name.parse::<Heuristic>());
            let counts: Vec<u64> = (0..g.below(6)).map(|_| g.below(10)).collect();
            let probs: Vec<f64> = (0..g.below(6)).map(|_| g.nasty()).collect();
            let _ = (
                Dist::from_counts(g.below(100) as i64, &counts),
                Dist::from_probs(0, &probs),
            );
            t.infallible();
        },
    );
}

/// Random arrival streams (0-120 jobs over the submission window, exponential work) under
/// H1-H5 and static sizes, on small tables: servers stay within [p_min, p_max], counts add
/// up, the cost is finite and at least what p_min servers cost; hostile streams are errors.
#[test]
fn sung_policies_on_random_streams() {
    let params = Params {
        p_max: 3,
        ..Params::thesis()
    };
    let profile = ArrivalProfile::scaled_for(params.p_max).unwrap();
    let sizes = McSizes {
        g: GConfig {
            runs: 200,
            exact_after_u: true,
            p_max_only: false,
        },
        k: KConfig {
            saturated_runs: 60,
            special_runs: 60,
            exact_after_u: true,
        },
    };
    let tables = Tables::build(&params, &profile, &RngStreams::new(5), &sizes).unwrap();
    let costs: Vec<Cost> = CostShape::all()
        .iter()
        .map(|&s| Cost::preset(s, params.d, 1.0, 3.0).unwrap())
        .collect();
    let plans: Vec<_> = costs
        .iter()
        .map(|c| Arc::new(tables.plan(c).unwrap()))
        .collect();
    let kinds = [
        Heuristic::H1,
        Heuristic::H2,
        Heuristic::H3,
        Heuristic::H4,
        Heuristic::H5,
        Heuristic::Static(1),
        Heuristic::Static(params.p_max),
        Heuristic::Static(params.p_max + 2),
    ];
    property(
        "provision/H1-H5 and static on random streams",
        SCHEDULER_CASES,
        true,
        |g, t| {
            let c = g.below(costs.len() as u64) as usize;
            let n = g.below(121) as usize;
            let u = params.u_secs();
            let mut arrivals: Vec<f64> = (0..n).map(|_| g.uniform(0.0, u)).collect();
            arrivals.sort_by(f64::total_cmp);
            let mut services: Vec<f64> = (0..n)
                .map(|_| -params.mean_service_secs * (1.0 - g.unit()).ln())
                .collect();
            let hostile = g.below(5) == 0 && n > 0;
            if hostile {
                match g.below(3) {
                    0 => services[g.below(n as u64) as usize] = g.nasty().min(-1.0),
                    1 => arrivals.reverse(),
                    _ => {
                        services.pop();
                    }
                }
            }
            let min_cost = params.p_min as f64 * costs[c].integral(0.0, params.d as f64);
            for kind in kinds {
                let at = format!("{} {}", t.at(), kind.label());
                let mut policy = kind.build(&params, &tables.g, Some(&plans[c])).unwrap();
                let r = simulate_run(&params, &costs[c], policy.as_mut(), &arrivals, &services);
                if hostile {
                    // Reversing a stream of one job, or of equal times, keeps it valid.
                    let valid = arrivals.windows(2).all(|w| w[0] <= w[1])
                        && services.len() == n
                        && services.iter().all(|w| w.is_finite() && *w >= 0.0);
                    assert_eq!(r.is_ok(), valid, "{at}: {r:?}");
                    t.call(r);
                    continue;
                }
                let r = r.unwrap_or_else(|e| panic!("{at}: {e}"));
                t.infallible();
                assert_eq!(r.arrivals as usize, n, "{at}");
                assert!(r.late_jobs as usize <= n, "{at}");
                assert_eq!(
                    r.servers.len(),
                    params.d - 1,
                    "{at}: one decision per epoch"
                );
                assert!(
                    r.servers
                        .iter()
                        .all(|&p| (params.p_min..=params.p_max).contains(&(p as usize))),
                    "{at}: servers {:?}",
                    r.servers
                );
                assert!(r.servers_added >= r.deployments, "{at}");
                assert!(
                    r.cost.is_finite() && r.cost >= min_cost - 1e-9,
                    "{at}: cost {}",
                    r.cost
                );
                if let Heuristic::Static(k) = kind {
                    let k = k.clamp(params.p_min, params.p_max) as u32;
                    assert!(r.servers.iter().all(|&p| p == k), "{at}: {:?}", r.servers);
                }
            }
        },
    );
}
