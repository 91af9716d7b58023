//! FCFS multi-server queue kernels used by the table simulations (spec §10.4): one queue,
//! `p` identical servers fixed over the simulated span, initial jobs queued in index order
//! ahead of all later arrivals, service times given (common random numbers).

use rand::Rng;
use rand_distr::{Distribution, Exp1};
use slarm_stats::RngStreams;

use crate::arrival::ArrivalProfile;

/// Free times of `p` servers (linear scan: `p` is at most a few dozen).
struct Pool {
    free: Vec<f64>,
}

impl Pool {
    fn new(p: usize, t0: f64) -> Self {
        Self {
            free: vec![t0; p.max(1)],
        }
    }

    /// Starts a job arriving at `arrival` with work `svc` on the earliest free server;
    /// returns its completion time.
    #[inline]
    fn serve(&mut self, arrival: f64, svc: f64) -> f64 {
        let mut k = 0;
        let mut m = self.free[0];
        for (i, &f) in self.free.iter().enumerate().skip(1) {
            if f < m {
                m = f;
                k = i;
            }
        }
        let end = m.max(arrival) + svc;
        self.free[k] = end;
        end
    }
}

/// Whether all jobs finish by `deadline`: `init.len()` jobs present at `t0` (queued first),
/// then arrivals at `arr_t` (sorted, all `>= t0`) with work `arr_s`, on `p` servers.
pub fn all_done_by(
    p: usize,
    t0: f64,
    init: &[f64],
    arr_t: &[f64],
    arr_s: &[f64],
    deadline: f64,
) -> bool {
    let mut pool = Pool::new(p, t0);
    for &s in init {
        if pool.serve(t0, s) > deadline {
            return false;
        }
    }
    for (&a, &s) in arr_t.iter().zip(arr_s) {
        if pool.serve(a, s) > deadline {
            return false;
        }
    }
    true
}

/// Jobs still in the system at `t1` when `init.len()` jobs are present at `t0` and the given
/// arrivals (all in `[t0, t1)`) join; `q` servers throughout.
pub fn remaining_at(
    q: usize,
    t0: f64,
    t1: f64,
    init: &[f64],
    arr_t: &[f64],
    arr_s: &[f64],
) -> usize {
    let mut pool = Pool::new(q, t0);
    let mut done = 0;
    for &s in init {
        if pool.serve(t0, s) <= t1 {
            done += 1;
        }
    }
    for (&a, &s) in arr_t.iter().zip(arr_s) {
        if pool.serve(a, s) <= t1 {
            done += 1;
        }
    }
    init.len() + arr_t.len() - done
}

/// Completion times of all jobs (initial first, then arrivals) on `q` servers from `t0`.
pub fn completion_times(q: usize, t0: f64, init: &[f64], arr_t: &[f64], arr_s: &[f64]) -> Vec<f64> {
    let mut pool = Pool::new(q, t0);
    let mut out = Vec::with_capacity(init.len() + arr_t.len());
    for &s in init {
        out.push(pool.serve(t0, s));
    }
    for (&a, &s) in arr_t.iter().zip(arr_s) {
        out.push(pool.serve(a, s));
    }
    out
}

/// Random inputs of one Monte Carlo run (common random numbers across cells): a full arrival
/// stream from time 0 (spec §8 A14), one service time per arrival, and a separate service
/// sequence for initial jobs.
#[derive(Debug, Clone)]
pub struct RunSample {
    /// Arrival times in seconds.
    pub arrivals: Vec<f64>,
    /// Service time of each arrival in seconds.
    pub arrival_service: Vec<f64>,
    /// Service times of the initial jobs, in queue order.
    pub initial_service: Vec<f64>,
}

impl RunSample {
    /// Draws run `run` of family `tag` under `streams`, with `n_initial` initial services.
    pub fn draw(
        streams: &RngStreams,
        tag: u64,
        run: u64,
        profile: &ArrivalProfile,
        mean_service: f64,
        n_initial: usize,
    ) -> Self {
        let mut ra = streams.stream(&[tag, run, 0]);
        let arrivals = profile.generate(&mut ra);
        let mut rs = streams.stream(&[tag, run, 1]);
        let arrival_service = exp_vec(&mut rs, arrivals.len(), mean_service);
        let mut ri = streams.stream(&[tag, run, 2]);
        let initial_service = exp_vec(&mut ri, n_initial, mean_service);
        Self {
            arrivals,
            arrival_service,
            initial_service,
        }
    }

    /// Index range of arrivals in `(lo, hi]` seconds.
    pub fn window(&self, lo: f64, hi: f64) -> std::ops::Range<usize> {
        let a = self.arrivals.partition_point(|&t| t <= lo);
        let b = self.arrivals.partition_point(|&t| t <= hi);
        a..b.max(a)
    }
}

/// `n` exponential samples with the given mean.
pub fn exp_vec<R: Rng + ?Sized>(rng: &mut R, n: usize, mean: f64) -> Vec<f64> {
    (0..n)
        .map(|_| {
            let z: f64 = Exp1.sample(rng);
            z * mean
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fcfs_by_hand() {
        // two servers, jobs of 3, 1, 1 at t0 = 0: ends 3, 1, 2
        let c = completion_times(2, 0.0, &[3.0, 1.0, 1.0], &[], &[]);
        assert_eq!(c, vec![3.0, 1.0, 2.0]);
        assert!(all_done_by(2, 0.0, &[3.0, 1.0, 1.0], &[], &[], 3.0));
        assert!(!all_done_by(2, 0.0, &[3.0, 1.0, 1.0], &[5.0], &[1.0], 5.5));
        assert_eq!(
            remaining_at(2, 0.0, 2.5, &[3.0, 1.0, 1.0], &[2.0], &[1.0]),
            2
        );
    }
}
