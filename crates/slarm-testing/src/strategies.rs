//! [proptest](https://docs.rs/proptest) strategies for the inputs of slarm's models, with
//! realistic ranges.
//!
//! - [`job`] / [`jobs`] / [`trace`]: [`Job`]s as parallel-machine logs record them
//!   (Feitelson's Standard Workload Format): whole-second submit times with bursty gaps, run
//!   times log-uniform from 1 s to two days, widths mostly powers of two, estimates that
//!   over-estimate by up to 10x and sometimes under-estimate (the job is then killed when its
//!   estimate runs out).
//! - [`grid_pmf`]: proper probability mass functions on a time grid
//!   ([`GridDist`]), with some zero masses.
//! - [`stable_queue`]: stable M/M/m queues ([`Mmm`]) with traffic from light to heavy.
//!
//! ```
//! use proptest::prelude::*;
//! use slarm_sim::batch::{simulate, BatchConfig};
//! use slarm_sim::policy::PolicyKind;
//! use slarm_testing::{check, strategies, Contract, ScheduledJob};
//!
//! proptest!(ProptestConfig::with_cases(16), |((jobs, procs) in strategies::trace(1..64, 1..30))| {
//!     let s = simulate(&jobs, procs, &BatchConfig::new(PolicyKind::Fcfs)).unwrap();
//!     let rows: Vec<ScheduledJob> = s.records.iter().map(ScheduledJob::from).collect();
//!     prop_assert_eq!(check(&jobs, procs, &rows, Contract::Fcfs).unwrap(), vec![]);
//! });
//! ```

use std::ops::Range;

use proptest::prelude::*;
use slarm_queueing::erlang::Mmm;
use slarm_stats::grid::GridDist;
use slarm_workload::Job;

/// Longest run time drawn: two days, in seconds.
pub const MAX_RUN_S: f64 = 2.0 * 86_400.0;

/// A run time in whole seconds, log-uniform in `[1, MAX_RUN_S]`.
pub fn run_time() -> impl Strategy<Value = f64> {
    (0.0..MAX_RUN_S.ln()).prop_map(|l: f64| l.exp().round().max(1.0))
}

/// A width in `1..=max_procs`: a power of two three times in four, else any width.
pub fn width(max_procs: u32) -> impl Strategy<Value = u32> {
    let max = max_procs.max(1);
    let max_log2 = 31 - max.leading_zeros();
    prop_oneof![
        3 => (0..=max_log2).prop_map(|k| 1u32 << k),
        1 => 1..=max,
    ]
}

/// How an estimate relates to the run time: a factor in `[1, 10)` nine times in ten (the
/// estimate is then rounded up to whole minutes), else `0.5` (under-estimated, killed).
pub fn estimate_factor() -> impl Strategy<Value = f64> {
    prop_oneof![9 => 1.0..10.0f64, 1 => Just(0.5)]
}

/// The estimate of a job running `run` seconds with an [`estimate_factor`]: `run * factor`
/// rounded up to whole minutes when the factor is at least 1, else rounded up to whole
/// seconds (at least 1 s).
pub fn estimate_of(run: f64, factor: f64) -> f64 {
    if factor < 1.0 {
        (run * factor).ceil().max(1.0)
    } else {
        ((run * factor) / 60.0).ceil() * 60.0
    }
}

/// An estimate for a job running `run` seconds (see [`estimate_of`]).
pub fn estimate(run: f64) -> impl Strategy<Value = f64> {
    estimate_factor().prop_map(move |f| estimate_of(run, f))
}

/// One job numbered `id`, submitted at `submit`, on at most `max_procs` processors.
pub fn job(id: u64, submit: f64, max_procs: u32) -> impl Strategy<Value = Job> {
    (run_time(), width(max_procs)).prop_flat_map(move |(run, procs)| {
        estimate(run).prop_map(move |est| Job::new(id, submit, run, i64::from(procs), est))
    })
}

/// A gap between submissions in whole seconds: a burst (0 s) one time in four, else
/// log-uniform up to 2 hours.
pub fn interarrival() -> impl Strategy<Value = f64> {
    prop_oneof![
        1 => Just(0.0),
        3 => (0.0..7200f64.ln()).prop_map(|l: f64| l.exp().round()),
    ]
}

/// `count` jobs (numbered from 1 in submit order, first submitted at 0) for a machine of
/// `max_procs` processors.
pub fn jobs(max_procs: u32, count: Range<usize>) -> impl Strategy<Value = Vec<Job>> {
    let draw = (
        run_time(),
        width(max_procs),
        interarrival(),
        estimate_factor(),
    );
    proptest::collection::vec(draw, count).prop_map(|v| {
        let mut submit = 0.0;
        v.into_iter()
            .enumerate()
            .map(|(i, (run, procs, gap, factor))| {
                if i > 0 {
                    submit += gap;
                }
                let est = estimate_of(run, factor);
                Job::new(i as u64 + 1, submit, run, i64::from(procs), est)
            })
            .collect()
    })
}

/// A machine size in `procs` and jobs for it: `(jobs, machine size)`.
pub fn trace(procs: Range<u32>, count: Range<usize>) -> impl Strategy<Value = (Vec<Job>, u32)> {
    procs.prop_flat_map(move |p| (jobs(p, count.clone()), Just(p)))
}

/// A proper PMF on the grid `origin + i * step` with `origin` in `[0, 3600)` s, `step` in
/// `[1, 600)` s and `1..max_points` points (at least 2 allowed), some masses zero.
pub fn grid_pmf(max_points: usize) -> impl Strategy<Value = GridDist> {
    let weights = proptest::collection::vec(
        prop_oneof![1 => Just(0.0), 3 => 0.001..1.0f64],
        1..max_points.max(2),
    );
    (0.0..3600.0f64, 1.0..600.0f64, weights).prop_filter_map(
        "a grid needs some mass",
        |(origin, step, w)| {
            let total: f64 = w.iter().sum();
            if total <= 0.0 {
                return None;
            }
            GridDist::new(origin, step, w.iter().map(|x| x / total).collect()).ok()
        },
    )
}

/// A stable M/M/m queue: `m` in `1..=max_servers`, service rate `mu` in `[0.01, 100)` per
/// second, utilisation `lambda / (m mu)` in `[0.05, 0.98)`.
pub fn stable_queue(max_servers: u64) -> impl Strategy<Value = Mmm> {
    (1..=max_servers.max(1), 0.01..100.0f64, 0.05..0.98f64)
        .prop_filter_map("a stable queue", |(m, mu, util)| {
            Mmm::new(util * m as f64 * mu, mu, m).ok()
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;

    proptest! {
        #[test]
        fn jobs_are_in_range((jobs, procs) in trace(1..512, 1..50)) {
            let mut last = 0.0;
            for (i, j) in jobs.iter().enumerate() {
                prop_assert_eq!(j.id, i as u64 + 1);
                prop_assert!(j.submit >= last && j.submit.fract() == 0.0);
                last = j.submit;
                prop_assert!((1.0..=MAX_RUN_S).contains(&j.runtime));
                prop_assert!(j.procs() >= 1 && j.procs() <= i64::from(procs));
                prop_assert!(j.estimate() >= 1.0);
            }
        }

        #[test]
        fn pmfs_are_proper(d in grid_pmf(64)) {
            prop_assert!((d.total_mass() - 1.0).abs() < 1e-9);
        }

        #[test]
        fn queues_are_stable(q in stable_queue(64)) {
            prop_assert!(q.rho() < q.servers() as f64);
        }
    }

    #[test]
    fn ranges_are_realistic() {
        // Over 2000 draws, short and long jobs, wide and narrow jobs, bursts and
        // under-estimates all occur.
        let mut runner = TestRunner::deterministic();
        let (jobs, _) = trace(128..129, 2000..2001)
            .new_tree(&mut runner)
            .unwrap()
            .current();
        let share = |f: &dyn Fn(&Job) -> bool| {
            jobs.iter().filter(|j| f(j)).count() as f64 / jobs.len() as f64
        };
        assert!(share(&|j| j.runtime < 60.0) > 0.1);
        assert!(share(&|j| j.runtime > 86_400.0) > 0.01);
        assert!(share(&|j| j.procs() == 1) > 0.05);
        assert!(share(&|j| j.procs() >= 64) > 0.05);
        assert!(share(&|j| j.estimate() < j.runtime) > 0.05);
        let bursts = jobs
            .windows(2)
            .filter(|w| w[0].submit == w[1].submit)
            .count();
        assert!(bursts > 200);
    }
}
