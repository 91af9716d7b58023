//! FCFS multi-server queue kernels used by the table simulations of §4.2.3 and §4.3.4: one queue,
//! `p` identical servers fixed over the simulated span, initial jobs queued in index order
//! ahead of all later arrivals, service times given (common random numbers).
//!
//! All kernels keep the servers' next free times in [`FreeTimes`], an ascending array: FCFS
//! hands each job to the server that frees first, so one job costs at most `p` moves (fewer
//! than a heap's branches for the few dozen servers of the model).

use rand::Rng;
use rand_distr::{Distribution, Exp1};
use slarm_stats::RngStreams;

use crate::arrival::ArrivalProfile;

/// Next free times of `p` servers in ascending order (the Kiefer-Wolfowitz workload vector
/// of an FCFS queue): FCFS hands each job to the server that frees first.
#[derive(Debug, Clone, PartialEq)]
pub struct FreeTimes {
    sorted: Vec<f64>,
}

impl FreeTimes {
    /// `p` servers (at least one), all free at `t0`.
    pub fn new(p: usize, t0: f64) -> Self {
        Self {
            sorted: vec![t0; p.max(1)],
        }
    }

    /// Copies `times` (ascending, e.g. [`FreeTimes::as_slice`] of another one) shifted by
    /// `shift`.
    pub fn load_shifted(&mut self, times: &[f64], shift: f64) {
        self.sorted.clear();
        self.sorted.extend(times.iter().map(|t| t + shift));
    }

    /// The free times, ascending.
    pub fn as_slice(&self) -> &[f64] {
        &self.sorted
    }

    /// The earliest free time.
    #[inline]
    pub fn earliest(&self) -> f64 {
        self.sorted[0]
    }

    /// The latest free time: the last completion of every job served so far.
    #[inline]
    pub fn latest(&self) -> f64 {
        self.sorted[self.sorted.len() - 1]
    }

    /// Starts a job released at `release` with work `work` on the earliest free server and
    /// returns its completion time.
    #[inline]
    pub fn serve(&mut self, release: f64, work: f64) -> f64 {
        let end = self.sorted[0].max(release) + work;
        replace_earliest(&mut self.sorted, end);
        end
    }
}

/// Up to this many servers [`replace_earliest`] merges without branches.
const BRANCH_FREE_MAX: usize = 32;

/// Replaces `v[0]`, the smallest of the ascending `v`, by `x >= v[0]`, keeping `v` ascending.
///
/// Where `x` lands is close to random, so a search loop mispredicts once per job; for the few
/// dozen servers of the thesis' clusters every slot is instead set branch-free to
/// `min(v[i + 1], max(v[i], x))`, which is the same ascending array (the sorted merge of
/// `v[1..]` and `x`). Each slot reads only the old `v[i]` and `v[i + 1]`, so the loop also
/// runs on vector lanes.
#[inline]
fn replace_earliest(v: &mut [f64], x: f64) {
    if v.len() <= BRANCH_FREE_MAX {
        let Some(&last) = v.last() else {
            return;
        };
        for i in 0..v.len() - 1 {
            let hi = if v[i] < x { x } else { v[i] };
            let next = v[i + 1];
            v[i] = if next < hi { next } else { hi };
        }
        let end = v.len() - 1;
        v[end] = if last < x { x } else { last };
        return;
    }
    let mut i = 1;
    while i < v.len() && v[i] < x {
        v[i - 1] = v[i];
        i += 1;
    }
    v[i - 1] = x;
}

/// Replays the arrivals `arr` of one interval ending at `t1` on the servers whose ascending
/// free times `free` are all `<= t1`, and returns how many finish by `t1`. A server that
/// becomes busy past `t1` can start nothing more in the interval and is dropped.
fn completions_in_interval(free: &mut [f64], t1: f64, arr: (&[f64], &[f64])) -> usize {
    let mut head = 0;
    let mut done = 0;
    for (&a, &w) in arr.0.iter().zip(arr.1) {
        if head == free.len() {
            break;
        }
        let end = free[head].max(a) + w;
        if end <= t1 {
            done += 1;
            replace_earliest(&mut free[head..], end);
        } else {
            head += 1;
        }
    }
    done
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
    let mut pool = FreeTimes::new(p, t0);
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
    let mut pool = FreeTimes::new(q, t0);
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
    let mut pool = FreeTimes::new(q, t0);
    let mut out = Vec::with_capacity(init.len() + arr_t.len());
    for &s in init {
        out.push(pool.serve(t0, s));
    }
    for (&a, &s) in arr_t.iter().zip(arr_s) {
        out.push(pool.serve(a, s));
    }
    out
}

/// The special-cell kernel of §4.3.4 for every `n` at once: `out[n]` = jobs in the system at `t1`
/// when `n` initial jobs with works `init[..n]` are present at `t0` and the arrivals `arr`
/// (times in `(t0, t1]`, works) join, on `q` servers throughout (common random numbers across
/// `n`). Returns the number of jobs replayed (the kernel's work).
///
/// Only servers that free before `t1` matter for the interval, so the kernel keeps just their
/// free times: the first `n` initial jobs are dispatched incrementally, and for each `n` the
/// arrivals are replayed on a copy of that short list. Once no server frees before `t1`,
/// neither arrivals nor later initial jobs can finish, and the remaining rows are shifts.
///
/// The copy holds only the `a` earliest of those free times (`a` arrivals): the `k`-th arrival
/// takes the earliest free time, which is one of the `k` earliest initial ones or a later
/// completion, so a free time beyond the `a`-th earliest is never read, and leaving it out
/// changes no completion (it only saved shifting it along).
pub fn remaining_rows(
    q: usize,
    t0: f64,
    t1: f64,
    init: &[f64],
    arr: (&[f64], &[f64]),
    out: &mut [usize],
) -> u64 {
    let a = arr.0.len();
    let mut free = vec![t0; q.max(1)];
    let mut head = 0;
    let mut scratch = Vec::with_capacity(free.len());
    let mut init_done = 0usize;
    let mut replays = 0u64;
    for n in 0..out.len() {
        if head == free.len() {
            for (k, m) in out.iter_mut().enumerate().skip(n) {
                *m = k + a - init_done;
            }
            break;
        }
        scratch.clear();
        scratch.extend_from_slice(&free[head..free.len().min(head + a)]);
        out[n] = n + a - init_done - completions_in_interval(&mut scratch, t1, arr);
        replays += a as u64 + 1;
        // initial job n starts on the server that frees first
        let end = free[head] + init.get(n).copied().unwrap_or(f64::INFINITY);
        if end <= t1 {
            init_done += 1;
            replace_earliest(&mut free[head..], end);
        } else {
            head += 1;
        }
    }
    replays
}

/// The saturated kernel of §4.3.4: completions per interval `[kΔ, (k+1)Δ)`, `k < intervals`, when
/// `init.len()` jobs are present at time 0 (queued first) and the arrivals `arr_t` with works
/// `arr_s` follow, on `q` servers. FCFS start times are non-decreasing, so the replay stops at
/// the first start after `intervals · Δ`. Also returns the number of jobs replayed.
pub fn completions_per_interval(
    q: usize,
    init: &[f64],
    arr: (&[f64], &[f64]),
    delta: f64,
    intervals: usize,
) -> (Vec<u32>, u64) {
    let (arr_t, arr_s) = arr;
    let end = intervals as f64 * delta;
    let mut counts = vec![0u32; intervals];
    let mut replays = 0u64;
    let mut ft = FreeTimes::new(q, 0.0);
    let jobs = init
        .iter()
        .map(|&w| (0.0, w))
        .chain(arr_t.iter().copied().zip(arr_s.iter().copied()));
    for (release, w) in jobs {
        if ft.earliest().max(release) >= end {
            break;
        }
        let c = ft.serve(release, w);
        replays += 1;
        if c < end {
            counts[(c / delta) as usize] += 1;
        }
    }
    (counts, replays)
}

/// Number of run chunks (parallel units) of [`chunked`] and [`chunked_fold`].
const CHUNKS: usize = 32;

/// The `c`-th of the [`CHUNKS`] fixed chunks of `0..runs`.
fn chunk(c: usize, runs: usize) -> std::ops::Range<usize> {
    let len = runs.div_ceil(CHUNKS).max(1);
    (c * len).min(runs)..((c + 1) * len).min(runs)
}

/// Runs `body` on a fixed split of `0..runs` into chunks (in parallel with the `parallel`
/// feature) and returns the chunk results in order: results depend on the inputs only, never
/// on the thread count.
pub fn chunked<T: Send>(
    runs: usize,
    body: impl Fn(std::ops::Range<usize>) -> T + Sync + Send,
) -> Vec<T> {
    crate::par::map_range(0..CHUNKS, |c| body(chunk(c, runs)))
}

/// As [`chunked`] for results that add up (counts): `body` adds the chunk's runs into an
/// accumulator made by `init`, and `merge` adds two accumulators. Each worker thread keeps
/// one accumulator for all its chunks (one in total without the `parallel` feature), so peak
/// memory grows with the thread count, not with the number of chunks. The sum must not
/// depend on how the chunks are grouped (integer counts), so neither does the result.
pub fn chunked_fold<T: Send>(
    runs: usize,
    init: impl Fn() -> T + Sync + Send,
    body: impl Fn(&mut T, std::ops::Range<usize>) + Sync + Send,
    merge: impl Fn(T, T) -> T + Sync + Send,
) -> T {
    #[cfg(feature = "parallel")]
    {
        use rayon::prelude::*;
        (0..CHUNKS)
            .into_par_iter()
            .fold(&init, |mut acc, c| {
                body(&mut acc, chunk(c, runs));
                acc
            })
            .reduce_with(merge)
            .unwrap_or_else(init)
    }
    #[cfg(not(feature = "parallel"))]
    {
        let _ = merge;
        let mut acc = init();
        for c in 0..CHUNKS {
            body(&mut acc, chunk(c, runs));
        }
        acc
    }
}

/// Random inputs of one Monte Carlo run (common random numbers across cells): a full arrival stream
/// from time 0 (the generator is Markov in the last arrival time, so a simulation starting at
/// `s > 0` keeps the arrivals after `sΔ` of a stream from 0), one service time per arrival, and a
/// separate service sequence for initial jobs.
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

    /// Draws `k` exponential works (mean 1) from a fixed stream.
    fn works(tag: u64, k: usize) -> Vec<f64> {
        exp_vec(&mut RngStreams::new(tag).stream(&[0]), k, 1.0)
    }

    /// Both paths of `replace_earliest` (branch-free up to `BRANCH_FREE_MAX` servers, the
    /// search loop above) give the sorted array, ties and equal values included.
    #[test]
    fn replace_earliest_keeps_the_sorted_array() {
        let draws = works(7, 4000);
        let mut k = 0;
        for len in 1..=BRANCH_FREE_MAX + 3 {
            for round in 0..40 {
                let mut v: Vec<f64> = draws[k..k + len].iter().map(|w| w.floor()).collect();
                k = (k + len) % (draws.len() - 2 * BRANCH_FREE_MAX);
                v.sort_by(f64::total_cmp);
                let x = v[0] + [0.0, draws[k].floor(), draws[k]][round % 3];
                let mut want = v.clone();
                want[0] = x;
                want.sort_by(f64::total_cmp);
                replace_earliest(&mut v, x);
                assert_eq!(v, want, "len {len} round {round}");
            }
        }
    }

    #[test]
    fn remaining_rows_equal_one_replay_per_n() {
        for (q, na, seed) in [(1, 0, 1u64), (2, 3, 2), (3, 6, 3), (5, 2, 4), (8, 9, 5)] {
            let init = works(seed, 40);
            let arr_s = works(seed + 100, na);
            let mut arr_t: Vec<f64> = works(seed + 200, na).iter().map(|x| 2.0 + x).collect();
            arr_t.sort_by(f64::total_cmp);
            let (t0, t1) = (2.0, 3.5);
            let arr_t: Vec<f64> = arr_t.into_iter().map(|t| t.min(t1)).collect();
            let mut out = vec![0usize; 30];
            remaining_rows(q, t0, t1, &init, (&arr_t, &arr_s), &mut out);
            for (n, &m) in out.iter().enumerate() {
                assert_eq!(
                    m,
                    remaining_at(q, t0, t1, &init[..n], &arr_t, &arr_s),
                    "q {q} n {n}"
                );
            }
        }
    }

    #[test]
    fn interval_completions_equal_sorted_completion_times() {
        for q in [1usize, 3, 7] {
            let init = works(q as u64, 25);
            let arr_s = works(50 + q as u64, 12);
            let arr_t: Vec<f64> = (0..12).map(|i| 0.7 * i as f64).collect();
            let (got, _) = completions_per_interval(q, &init, (&arr_t, &arr_s), 1.0, 6);
            let all = completion_times(q, 0.0, &init, &arr_t, &arr_s);
            for (k, &c) in got.iter().enumerate() {
                let want = all
                    .iter()
                    .filter(|&&t| t >= k as f64 && t < k as f64 + 1.0)
                    .count();
                assert_eq!(c as usize, want, "q {q} interval {k}");
            }
        }
    }
}
