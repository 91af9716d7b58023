//! `Q_s(p, n)` and the confidence table `g_s(p)` (Sung 2006, §4.2.3, Eqs. 4.3-4.6), with an
//! explicit NONE (`None`) where even an empty system misses the SLA (the thesis assumes g exists).
//!
//! Monte Carlo design (§4.2.3 leaves it open; docs/decisions.md): common random numbers across `n`,
//! `s` and `p`; per run `N_r = max{n : all jobs finish by d}` (monotone in `n` by FCFS
//! monotonicity), `Q(n) = #{r : N_r >= n} / R` and `g = max{n : Q(n) >= y}`, i.e. the `(f+1)`-th smallest `N_r`
//! with `f = floor((1 - y) R)` allowed failures. Only the `f + 1` smallest `N_r` per cell are
//! needed, so a run that is feasible at the current `(f+1)`-th smallest costs one check.

use std::collections::BinaryHeap;

use ndarray::Array2;

use slarm_stats::RngStreams;

use crate::arrival::ArrivalProfile;
use crate::error::{ProvisionError, Result};
use crate::exact::{g_from_row, kolmogorov_q, pure_death_absorb};
use crate::par::{map_range, map_vec};
use crate::params::Params;
use crate::queue::{all_done_by, chunked, FreeTimes, RunSample};

/// Stream tag of the g simulations.
const TAG_G: u64 = 0x6701;
/// The pilot chunk that sets the per-cell ceilings holds `1 / PILOT_SHARE` of the runs.
const PILOT_SHARE: usize = 32;

/// `g_s(p)` for `s = 0..=d`, `p = p_min..=p_max`; `None` is the thesis's NONE (-1).
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct GTable {
    /// Smallest server count.
    pub p_min: usize,
    /// Largest server count.
    pub p_max: usize,
    /// `values[[s, p - p_min]]`: one row per decision point `s = 0..=d`, one column per
    /// server count (serialised as a list of rows).
    #[cfg_attr(feature = "serde", serde(with = "crate::nd_serde::array2"))]
    pub values: Array2<Option<u32>>,
    /// Jobs replayed by the Monte Carlo kernel to build it (machine-independent work, for timing
    /// comparisons as in Fig. 5.17).
    #[cfg_attr(feature = "serde", serde(default))]
    pub replays: u64,
}

impl GTable {
    /// A table without decision points (all NONE), for policies that never read it.
    pub fn empty(p_min: usize, p_max: usize) -> Self {
        Self {
            p_min,
            p_max,
            values: Array2::from_elem((0, (p_max + 1).saturating_sub(p_min)), None),
            replays: 0,
        }
    }

    /// `g_s(p)`, `None` for NONE or out of range.
    pub fn get(&self, s: usize, p: usize) -> Option<u32> {
        if p < self.p_min || p > self.p_max {
            return None;
        }
        self.values.get((s, p - self.p_min)).copied().flatten()
    }

    /// `g_s(p)` as the thesis prints it (-1 for NONE).
    pub fn get_i64(&self, s: usize, p: usize) -> i64 {
        self.get(s, p).map_or(-1, i64::from)
    }

    /// `v(s, n) = min{p : g_s(p) >= n}`, or `p_max + 1` if none (§4.2.1, Eq. 4.5).
    pub fn v(&self, s: usize, n: usize) -> usize {
        (self.p_min..=self.p_max)
            .find(|&p| self.get(s, p).is_some_and(|g| g as usize >= n))
            .unwrap_or(self.p_max + 1)
    }

    /// Number of decision points covered minus one (`d`).
    pub fn d(&self) -> usize {
        self.values.nrows().saturating_sub(1)
    }

    /// Enforces `g_s(p)` non-decreasing in `p` (cumulative max: Monte Carlo noise can break it).
    pub fn monotonise(&mut self) {
        for mut row in self.values.rows_mut() {
            for i in 1..row.len() {
                if row[i] < row[i - 1] {
                    row[i] = row[i - 1];
                }
            }
        }
    }
}

/// How `g` is computed.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct GConfig {
    /// Monte Carlo runs per cell (100,000 or more; see docs/decisions.md).
    pub runs: usize,
    /// Use the exact pure-death chain for `s >= u` instead of Monte Carlo (it is exact there).
    pub exact_after_u: bool,
    /// Simulate only `p = p_max` below `u`, leaving NONE for smaller `p` there: what the
    /// thesis times in Fig. 5.17 and all that H3-H5 read (the forced branch; the base case
    /// uses `g_{d-1}`, exact). H1/H2 need the full table.
    #[cfg_attr(feature = "serde", serde(default))]
    pub p_max_only: bool,
}

/// Exact `g_s(p)` for `s >= u` (no arrivals): the pure-death absorption probability.
pub fn g_exact_row(params: &Params, s: usize, p: usize) -> Option<u32> {
    let t_over_x = (params.d - s) as f64 / params.x_units();
    let gamma = params.gamma();
    let h = pure_death_absorb(p, t_over_x, gamma);
    g_from_row(&h, params.y)
}

/// `g` from the backward Kolmogorov approximation (Poisson-rate approximation of the generator:
/// RK2, dt = 5 s, `n_states` states).
pub fn g_kolmogorov(params: &Params, profile: &ArrivalProfile, n_states: usize) -> GTable {
    let cols: Vec<Vec<Vec<f64>>> = map_range(params.p_min..params.p_max + 1, |p| {
        kolmogorov_q(params, profile, p, n_states, 5.0)
    });
    let values = Array2::from_shape_fn((params.d + 1, cols.len()), |(s, pi)| {
        g_from_row(&cols[pi][s], params.y)
    });
    GTable {
        p_min: params.p_min,
        p_max: params.p_max,
        values,
        replays: 0,
    }
}

/// Monte Carlo estimate of `Q_s(p, n)` (§4.2.3) with `runs` runs.
///
/// ```
/// use slarm_provision::{gtable::q_monte_carlo, ArrivalProfile, Params};
/// let p = Params::thesis();
/// // a static cluster of 2 servers misses the deadline in most runs (about 0.84)
/// let q = q_monte_carlo(&p, &ArrivalProfile::thesis(), &slarm_stats::RngStreams::new(1), 0, 2, 0, 400);
/// assert!(q < 0.3);
/// ```
pub fn q_monte_carlo(
    params: &Params,
    profile: &ArrivalProfile,
    streams: &RngStreams,
    s: usize,
    p: usize,
    n: usize,
    runs: usize,
) -> f64 {
    let t0 = s as f64 * params.delta_secs;
    let deadline = params.d_secs();
    let ok: usize = map_range(0..runs, |r| {
        let smp = RunSample::draw(
            streams,
            TAG_G,
            r as u64,
            profile,
            params.mean_service_secs,
            n,
        );
        let w = smp.window(t0, f64::INFINITY);
        usize::from(all_done_by(
            p,
            t0,
            &smp.initial_service,
            &smp.arrivals[w.clone()],
            &smp.arrival_service[w],
            deadline,
        ))
    })
    .into_iter()
    .sum();
    ok as f64 / runs.max(1) as f64
}

/// One run's feasibility oracle for one server count `p` (the fast g kernel of §4.2.3).
///
/// The initial jobs all start at `t0`, so the workload vector after dispatching the first `n`
/// of them is `t0 + V_n` with `V_n` independent of `s`: it is computed once per run and `p`
/// for every `n` up to the largest one needed, and a feasibility check at `(s, n)` then only
/// replays the arrivals after `t0` (`O(A_s log p)` instead of `O((n + A_s) p)`).
///
/// The checks of one run and `p` (every decision point, every step of a binary search) replay
/// the same arrivals from different starting loads, and mostly end in the same tail: once
/// every server is free when arrival `k` comes, the rest of the replay no longer depends on
/// how the system got there (see [`InitialSweep::feasible`]). The latest completion of such a
/// tail is kept per arrival index (`tails`) and a later check that empties before the same
/// arrival reads it instead of replaying the tail again.
#[derive(Debug, Default)]
struct InitialSweep {
    p: usize,
    /// Free times after `n` initial jobs (relative to `t0 = 0`, ascending), `n = 0..=upto`,
    /// `p` values each; the last one is the latest completion of those jobs.
    snaps: Vec<f64>,
    scratch: Option<FreeTimes>,
    /// Per arrival index `k` of the current run: the latest completion of arrivals `k..`
    /// served FCFS on `p` servers that are all free by arrival `k`'s time (NaN: not known yet).
    tails: Vec<f64>,
    /// Arrival indices at which the current replay found every server free (their tail is
    /// this replay's latest completion).
    empties: Vec<usize>,
    /// Jobs replayed so far: the counted work of the kernel (every arrival of a checked
    /// window, whether its tail was replayed or read), the Fig. 5.17 work column.
    replays: u64,
}

impl InitialSweep {
    /// Workload vectors for `n = 0..=upto` initial jobs with works `init` on `p` servers;
    /// forgets the tails of the previous run or `p` (`arrivals` of the run to come).
    fn fill(&mut self, p: usize, init: &[f64], upto: usize, arrivals: usize) {
        self.p = p.max(1);
        self.tails.clear();
        self.tails.resize(arrivals, f64::NAN);
        self.snaps.clear();
        let mut ft = FreeTimes::new(self.p, 0.0);
        self.snaps.extend_from_slice(ft.as_slice());
        self.replays += upto as u64;
        for &w in &init[..upto] {
            ft.serve(0.0, w);
            self.snaps.extend_from_slice(ft.as_slice());
        }
    }

    /// Whether `n` initial jobs at `t0` and the arrivals `arr.0[first..]`/`arr.1[first..]`
    /// (all after `t0`) all finish by `deadline`.
    ///
    /// The replay stops at the first arrival `k` that finds every server free (the latest
    /// free time, the last entry of the ascending [`FreeTimes`], is at most its time) if the
    /// tail from `k` is known. From there on it is the replay of arrivals `k..` on servers
    /// that are all free by `a_k`, whatever the earlier history: each of those jobs starts at
    /// its own arrival time until the old free times (all `<= a_k`) have been replaced, so
    /// every later completion is the same `f64`, and the latest completion of all jobs is
    /// the tail's (every old free time is `<= a_k <` the tail's completions). The answer is
    /// therefore bit for bit the full replay's, and so is the counted work.
    fn feasible(
        &mut self,
        n: usize,
        t0: f64,
        first: usize,
        (arr_t, arr_s): (&[f64], &[f64]),
        deadline: f64,
    ) -> bool {
        let snap = &self.snaps[n * self.p..(n + 1) * self.p];
        if t0 + snap[self.p - 1] > deadline {
            return false; // an initial job ends late
        }
        self.replays += (arr_t.len() - first) as u64;
        let ft = self.scratch.get_or_insert_with(|| FreeTimes::new(1, 0.0));
        ft.load_shifted(snap, t0);
        self.empties.clear();
        let mut latest = f64::NAN;
        for (k, (&a, &w)) in arr_t.iter().zip(arr_s).enumerate().skip(first) {
            if ft.latest() <= a {
                let tail = self.tails[k];
                if !tail.is_nan() {
                    latest = tail;
                    break;
                }
                self.empties.push(k);
            }
            ft.serve(a, w);
        }
        if latest.is_nan() {
            // free times only grow, so the latest one is the last completion of all jobs
            latest = ft.latest();
        }
        for &k in &self.empties {
            self.tails[k] = latest;
        }
        latest <= deadline
    }

    /// `N_r = max{n in [-1, hi] : feasible(n)}` by binary search (feasibility is monotone in
    /// `n` by FCFS monotonicity); `-1` if not even an empty system finishes.
    fn max_feasible(
        &mut self,
        hi: i64,
        t0: f64,
        first: usize,
        arr: (&[f64], &[f64]),
        d: f64,
    ) -> i64 {
        if hi >= 0 && self.feasible(hi as usize, t0, first, arr, d) {
            return hi;
        }
        // invariant: feasible(lo) (lo = -1 trivially), !feasible(top)
        let (mut lo, mut top) = (-1i64, hi);
        while top - lo > 1 {
            let mid = lo + (top - lo) / 2;
            if self.feasible(mid as usize, t0, first, arr, d) {
                lo = mid;
            } else {
                top = mid;
            }
        }
        lo
    }
}

/// The Monte Carlo cells of one `g` computation: decision points × server counts.
struct GCells<'a> {
    params: &'a Params,
    profile: &'a ArrivalProfile,
    streams: &'a RngStreams,
    starts: Vec<f64>,
    p_lo: usize,
    np: usize,
    /// `f + 1`: how many of the smallest `N_r` decide `g`.
    keep: usize,
}

/// Per cell, the smallest `N_r` seen (a max-heap of at most `keep`), and the jobs replayed.
type ChunkResult = (Vec<BinaryHeap<i64>>, u64);

impl GCells<'_> {
    /// Runs `range` and keeps, per cell, the `keep` smallest `N_r` below the cell's `ceiling`
    /// (`N_r >= ceiling` costs one check and is not recorded).
    fn run_chunk(&self, range: std::ops::Range<usize>, ceiling: &[i64]) -> ChunkResult {
        let gamma = self.params.gamma();
        let deadline = self.params.d_secs();
        let (keep, np) = (self.keep, self.np);
        let mut heaps = vec![BinaryHeap::with_capacity(keep + 1); ceiling.len()];
        let mut sweep = InitialSweep::default();
        let mut cut = vec![0i64; ceiling.len()];
        for r in range {
            let smp = RunSample::draw(
                self.streams,
                TAG_G,
                r as u64,
                self.profile,
                self.params.mean_service_secs,
                gamma,
            );
            // the current cut per cell: N_r >= cut cannot change the result
            for (i, c) in cut.iter_mut().enumerate() {
                let h: &BinaryHeap<i64> = &heaps[i];
                *c = if h.len() < keep {
                    ceiling[i]
                } else {
                    h.peek().copied().unwrap_or(-1).min(ceiling[i])
                };
            }
            for pi in 0..np {
                let upto = (0..self.starts.len())
                    .map(|si| cut[si * np + pi])
                    .max()
                    .unwrap_or(-1);
                if upto < 0 {
                    continue; // every cell of this p is NONE
                }
                let arr = (&smp.arrivals[..], &smp.arrival_service[..]);
                sweep.fill(
                    self.p_lo + pi,
                    &smp.initial_service,
                    upto as usize,
                    arr.0.len(),
                );
                for (si, &t0) in self.starts.iter().enumerate() {
                    let i = si * np + pi;
                    if cut[i] < 0 {
                        continue;
                    }
                    let first = smp.window(t0, f64::INFINITY).start;
                    if sweep.feasible(cut[i] as usize, t0, first, arr, deadline) {
                        continue; // N_r >= cut
                    }
                    heaps[i].push(sweep.max_feasible(cut[i] - 1, t0, first, arr, deadline));
                    if heaps[i].len() > keep {
                        heaps[i].pop();
                    }
                }
            }
        }
        (heaps, sweep.replays)
    }
}

/// Monte Carlo `g_s(p)` for the decision points `s_list` and the server counts `servers`
/// (`values[s index][p - servers.start()]`), with the number of jobs replayed.
///
/// Per cell `g` is the `(f+1)`-th smallest `N_r` (the `Q >= y` cut of Eq. 4.4). A pilot chunk of
/// runs gives a ceiling per cell (its own `(f+1)`-th smallest `N_r`, which bounds `g` from above);
/// the remaining runs are split into fixed chunks (rayon), where a run costs one feasibility check
/// at the chunk's current cut and a binary search only when `N_r` lies below it. The result is the
/// exact order statistic, so it depends on the inputs only, not on the chunking or the thread
/// count.
pub fn g_monte_carlo(
    params: &Params,
    profile: &ArrivalProfile,
    streams: &RngStreams,
    runs: usize,
    s_list: &[usize],
    servers: std::ops::RangeInclusive<usize>,
) -> (Vec<Vec<Option<u32>>>, u64) {
    let cells = GCells {
        params,
        profile,
        streams,
        starts: s_list
            .iter()
            .map(|&s| s as f64 * params.delta_secs)
            .collect(),
        p_lo: *servers.start(),
        np: servers.count(),
        keep: params.allowed_failures(runs) + 1,
    };
    let n_cells = s_list.len() * cells.np;
    let pilot_runs = runs.div_ceil(PILOT_SHARE).max(cells.keep).min(runs);
    let (pilot, pilot_work) = cells.run_chunk(0..pilot_runs, &vec![params.gamma() as i64; n_cells]);
    let ceiling: Vec<i64> = pilot
        .iter()
        .map(|h| {
            if h.len() < cells.keep {
                params.gamma() as i64
            } else {
                h.peek().copied().unwrap_or(-1)
            }
        })
        .collect();
    let rest = chunked(runs - pilot_runs, |range| {
        cells.run_chunk(range.start + pilot_runs..range.end + pilot_runs, &ceiling)
    });
    let mut values = vec![vec![None; cells.np]; s_list.len()];
    for (i, &ceil) in ceiling.iter().enumerate() {
        let mut all: Vec<i64> = std::iter::once(&pilot)
            .chain(rest.iter().map(|(h, _)| h))
            .flat_map(|h| h[i].iter().copied())
            .collect();
        all.sort_unstable();
        // fewer than keep values below the ceiling: g is the ceiling itself (N_r is capped
        // at γ, the top of the binary search)
        let g = all.get(cells.keep - 1).copied().unwrap_or(ceil);
        values[i / cells.np][i % cells.np] = u32::try_from(g).ok();
    }
    let work = pilot_work + rest.iter().map(|(_, w)| w).sum::<u64>();
    (values, work)
}

/// Builds `g` by Monte Carlo (exact for `s >= u` if configured), monotonised in `p`.
///
/// The result depends only on `(params, profile, streams, cfg)`, not on the thread count.
pub fn g_table(
    params: &Params,
    profile: &ArrivalProfile,
    streams: &RngStreams,
    cfg: &GConfig,
) -> Result<GTable> {
    if cfg.runs == 0 {
        return Err(ProvisionError::invalid("g runs", cfg.runs, "must be >= 1"));
    }
    let np = params.n_counts();
    let mc_s: Vec<usize> = (0..params.d)
        .filter(|&s| !(cfg.exact_after_u && s >= params.u))
        .collect();
    let servers = if cfg.p_max_only {
        params.p_max..=params.p_max
    } else {
        params.p_min..=params.p_max
    };
    let first = servers.start() - params.p_min;
    let (rows, replays) = g_monte_carlo(params, profile, streams, cfg.runs, &mc_s, servers);
    let mut values = Array2::from_elem((params.d + 1, np), None);
    for (row, &s) in rows.into_iter().zip(&mc_s) {
        for (j, g) in row.into_iter().enumerate() {
            values[[s, first + j]] = g;
        }
    }
    if cfg.exact_after_u {
        let cells: Vec<(usize, usize)> = (params.u..params.d)
            .flat_map(|s| (0..np).map(move |pi| (s, pi)))
            .collect::<Vec<_>>();
        let exact = map_vec(cells, |(s, pi)| {
            (s, pi, g_exact_row(params, s, params.p_min + pi))
        });
        for (s, pi, g) in exact {
            values[[s, pi]] = g;
        }
    }
    // g_d(p) = 0: at d only an empty system has n_d = 0.
    values.row_mut(params.d).fill(Some(0));
    let mut t = GTable {
        p_min: params.p_min,
        p_max: params.p_max,
        values,
        replays,
    };
    t.monotonise();
    Ok(t)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `N_r` by brute force: the largest `n` for which a plain FCFS replay of all jobs finishes
    /// by `d`.
    fn brute_n_r(params: &Params, smp: &RunSample, s: usize, p: usize) -> i64 {
        let t0 = s as f64 * params.delta_secs;
        let w = smp.window(t0, f64::INFINITY);
        let ok = |n: usize| {
            all_done_by(
                p,
                t0,
                &smp.initial_service[..n],
                &smp.arrivals[w.clone()],
                &smp.arrival_service[w.clone()],
                params.d_secs(),
            )
        };
        // feasibility is monotone in n, so the count of feasible n is a partition point
        let ns: Vec<usize> = (0..=params.gamma()).collect();
        ns.partition_point(|&n| ok(n)) as i64 - 1
    }

    #[test]
    fn fast_kernel_equals_brute_force() {
        // y = 0.99 with 300 runs keeps the 4th smallest N_r: every chunk fills, checks and
        // binary-searches; the result must equal the order statistic of brute-force N_r.
        let params = Params {
            y: 0.99,
            ..Params::thesis()
        };
        let prof = ArrivalProfile::thesis();
        let st = RngStreams::new(21);
        let runs = 300;
        let s_list = [0usize, 17, 40, 63, 70];
        let (fast, _) = g_monte_carlo(&params, &prof, &st, runs, &s_list, 1..=5);
        let keep = params.allowed_failures(runs) + 1;
        assert_eq!(keep, 4);
        let samples: Vec<RunSample> = (0..runs as u64)
            .map(|r| {
                RunSample::draw(
                    &st,
                    TAG_G,
                    r,
                    &prof,
                    params.mean_service_secs,
                    params.gamma(),
                )
            })
            .collect();
        for (si, &s) in s_list.iter().enumerate() {
            for p in 1..=5 {
                let mut nr: Vec<i64> = samples
                    .iter()
                    .map(|m| brute_n_r(&params, m, s, p))
                    .collect();
                nr.sort_unstable();
                let want = u32::try_from(nr[keep - 1]).ok();
                assert_eq!(fast[si][p - 1], want, "s = {s}, p = {p}");
            }
        }
    }
}
