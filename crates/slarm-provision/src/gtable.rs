//! `Q_s(p, n)` and the confidence table `g_s(p)` (spec §3.1, Eqs. 4.3-4.6), with an explicit
//! NONE (`None`) where even an empty system misses the SLA (spec §8 A8).
//!
//! Monte Carlo design (spec §3.1 \[R\]): common random numbers across `n`, `s` and `p`; per run
//! `N_r = max{n : all jobs finish by d}` (monotone in `n` by FCFS monotonicity), `Q(n) =
//! #{r : N_r >= n} / R` and `g = max{n : Q(n) >= y}`, i.e. the `(f+1)`-th smallest `N_r`
//! with `f = floor((1 - y) R)` allowed failures. Only the `f + 1` smallest `N_r` per cell are
//! needed, so a run that is feasible at the current `(f+1)`-th smallest costs one check.

use std::collections::BinaryHeap;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use slarm_stats::RngStreams;

use crate::arrival::ArrivalProfile;
use crate::error::{ProvisionError, Result};
use crate::exact::{g_from_row, kolmogorov_q, pure_death_absorb};
use crate::params::Params;
use crate::queue::{all_done_by, RunSample};

/// Stream tag of the g simulations.
const TAG_G: u64 = 0x6701;
/// Fixed number of run chunks (parallel units), so results do not depend on thread count.
const CHUNKS: usize = 32;

/// `g_s(p)` for `s = 0..=d`, `p = p_min..=p_max`; `None` is the thesis's NONE (-1).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GTable {
    /// Smallest server count.
    pub p_min: usize,
    /// Largest server count.
    pub p_max: usize,
    /// `values[s][p - p_min]`.
    pub values: Vec<Vec<Option<u32>>>,
}

impl GTable {
    /// `g_s(p)`, `None` for NONE or out of range.
    pub fn get(&self, s: usize, p: usize) -> Option<u32> {
        if p < self.p_min || p > self.p_max {
            return None;
        }
        self.values.get(s).and_then(|r| r[p - self.p_min])
    }

    /// `g_s(p)` as the thesis prints it (-1 for NONE).
    pub fn get_i64(&self, s: usize, p: usize) -> i64 {
        self.get(s, p).map_or(-1, i64::from)
    }

    /// `v(s, n) = min{p : g_s(p) >= n}`, or `p_max + 1` if none (spec §4, Eq. 4.5).
    pub fn v(&self, s: usize, n: usize) -> usize {
        (self.p_min..=self.p_max)
            .find(|&p| self.get(s, p).is_some_and(|g| g as usize >= n))
            .unwrap_or(self.p_max + 1)
    }

    /// Number of decision points covered minus one (`d`).
    pub fn d(&self) -> usize {
        self.values.len().saturating_sub(1)
    }

    /// Enforces `g_s(p)` non-decreasing in `p` (cumulative max, spec §3.1 \[R\]).
    pub fn monotonise(&mut self) {
        for row in &mut self.values {
            for i in 1..row.len() {
                if row[i] < row[i - 1] {
                    row[i] = row[i - 1];
                }
            }
        }
    }
}

/// How `g` is computed.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct GConfig {
    /// Monte Carlo runs per cell (spec recommends >= 1e5; see docs/decisions.md).
    pub runs: usize,
    /// Use the exact pure-death chain for `s >= u` instead of Monte Carlo (it is exact there).
    pub exact_after_u: bool,
}

/// Exact `g_s(p)` for `s >= u` (no arrivals): the pure-death absorption probability.
pub fn g_exact_row(params: &Params, s: usize, p: usize) -> Option<u32> {
    let t_over_x = (params.d - s) as f64 / params.x_units();
    let gamma = params.gamma();
    let h = pure_death_absorb(p, t_over_x, gamma);
    g_from_row(&h, params.y)
}

/// `g` from the backward Kolmogorov approximation (spec Appendix A: dt = 5 s, `n_states`).
pub fn g_kolmogorov(params: &Params, profile: &ArrivalProfile, n_states: usize) -> GTable {
    let cols: Vec<Vec<Vec<f64>>> = (params.p_min..=params.p_max)
        .into_par_iter()
        .map(|p| kolmogorov_q(params, profile, p, n_states, 5.0))
        .collect();
    let values = (0..=params.d)
        .map(|s| cols.iter().map(|c| g_from_row(&c[s], params.y)).collect())
        .collect();
    GTable {
        p_min: params.p_min,
        p_max: params.p_max,
        values,
    }
}

/// Monte Carlo estimate of `Q_s(p, n)` (kernel (a) of spec §10.4) with `runs` runs.
///
/// ```
/// use slarm_provision::{gtable::q_monte_carlo, ArrivalProfile, Params};
/// let p = Params::thesis();
/// // a static cluster of 2 servers misses the deadline in most runs (spec §7.2: 0.837)
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
    let ok: usize = (0..runs)
        .into_par_iter()
        .map(|r| {
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
        .sum();
    ok as f64 / runs.max(1) as f64
}

/// The largest feasible `n` in `[-1, hi]` for one run, given `feasible(lo_known)`.
fn max_feasible(hi: i64, feasible: &dyn Fn(usize) -> bool) -> i64 {
    if hi >= 0 && feasible(hi as usize) {
        return hi;
    }
    // invariant: feasible(lo) (lo = -1 is trivially feasible), !feasible(top)
    let (mut lo, mut top) = (-1i64, hi);
    while top - lo > 1 {
        let mid = lo + (top - lo) / 2;
        if feasible(mid as usize) {
            lo = mid;
        } else {
            top = mid;
        }
    }
    lo
}

/// Monte Carlo `g_s(p)` for the decision points `s_list` (all `p`), rows in `s_list` order.
pub fn g_monte_carlo(
    params: &Params,
    profile: &ArrivalProfile,
    streams: &RngStreams,
    runs: usize,
    s_list: &[usize],
) -> Vec<Vec<Option<u32>>> {
    let np = params.n_counts();
    let gamma = params.gamma() as i64;
    let keep = params.allowed_failures(runs) + 1;
    let mc_s = s_list;
    let deadline = params.d_secs();
    let chunk_len = runs.div_ceil(CHUNKS);
    // per chunk: for each (s index, p index) the `keep` smallest N_r (max-heap)
    let chunk_heaps: Vec<Vec<BinaryHeap<i64>>> = (0..CHUNKS)
        .into_par_iter()
        .map(|c| {
            let mut heaps = vec![BinaryHeap::with_capacity(keep + 1); mc_s.len() * np];
            let lo = c * chunk_len;
            let hi = ((c + 1) * chunk_len).min(runs);
            for r in lo..hi {
                let smp = RunSample::draw(
                    streams,
                    TAG_G,
                    r as u64,
                    profile,
                    params.mean_service_secs,
                    gamma as usize,
                );
                for (si, &s) in mc_s.iter().enumerate() {
                    let t0 = s as f64 * params.delta_secs;
                    let w = smp.window(t0, f64::INFINITY);
                    let at = &smp.arrivals[w.clone()];
                    let asv = &smp.arrival_service[w];
                    for pi in 0..np {
                        let p = params.p_min + pi;
                        let heap = &mut heaps[si * np + pi];
                        let feasible = |n: usize| {
                            all_done_by(p, t0, &smp.initial_service[..n], at, asv, deadline)
                        };
                        let full = heap.len() >= keep;
                        let top = if full {
                            heap.peek().copied().unwrap_or(gamma)
                        } else {
                            gamma
                        };
                        if full {
                            if top < 0 || feasible(top as usize) {
                                continue; // N_r >= current keep-th smallest: no change
                            }
                            let nr = max_feasible(top - 1, &feasible);
                            heap.push(nr);
                            heap.pop();
                        } else {
                            heap.push(max_feasible(gamma, &feasible));
                        }
                    }
                }
            }
            heaps
        })
        .collect();
    let mut values = vec![vec![None; np]; mc_s.len()];
    for si in 0..mc_s.len() {
        for pi in 0..np {
            let mut all: Vec<i64> = chunk_heaps
                .iter()
                .flat_map(|h| h[si * np + pi].iter().copied())
                .collect();
            all.sort_unstable();
            let g = all.get(keep - 1).copied().unwrap_or(-1);
            values[si][pi] = if g < 0 { None } else { Some(g as u32) };
        }
    }
    values
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
    let rows = g_monte_carlo(params, profile, streams, cfg.runs, &mc_s);
    let mut values = vec![vec![None; np]; params.d + 1];
    for (row, &s) in rows.into_iter().zip(&mc_s) {
        values[s] = row;
    }
    if cfg.exact_after_u {
        let exact: Vec<(usize, usize, Option<u32>)> = (params.u..params.d)
            .flat_map(|s| (0..np).map(move |pi| (s, pi)))
            .collect::<Vec<_>>()
            .into_par_iter()
            .map(|(s, pi)| (s, pi, g_exact_row(params, s, params.p_min + pi)))
            .collect();
        for (s, pi, g) in exact {
            values[s][pi] = g;
        }
    }
    // g_d(p) = 0: at d only an empty system has n_d = 0.
    values[params.d] = vec![Some(0); np];
    let mut t = GTable {
        p_min: params.p_min,
        p_max: params.p_max,
        values,
    };
    t.monotonise();
    Ok(t)
}
