//! One-interval transition probabilities `k_s(q, n, m)` and the domain bound `K_s`
//! (spec §3.2, §10.4-10.5).
//!
//! Two regimes, as in the thesis: for `n >= R_s = q + D_s` the change `n_{s+1} - n_s` is taken
//! from a saturated simulation (2γ jobs at time 0, so all `q` servers stay busy) and does not
//! depend on `n`; below `R_s` every `(s, q, n)` cell has its own "special" simulation of one
//! interval. For `s >= u` (no arrivals) both regimes can be computed exactly from the
//! pure-death chain, which is the default (spec §8 A13).

use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use slarm_stats::RngStreams;

use crate::arrival::ArrivalProfile;
use crate::error::{ProvisionError, Result};
use crate::exact::{poisson_weights, pure_death_transition};
use crate::params::Params;
use crate::queue::{completion_times, remaining_at, RunSample};

const TAG_SAT: u64 = 0x6b01;
const TAG_SPECIAL: u64 = 0x6b02;
const CHUNKS: usize = 32;

/// A distribution on the integers `offset, offset + 1, ...`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Dist {
    /// Value of the first entry.
    pub offset: i64,
    /// Probabilities, summing to 1.
    pub probs: Vec<f64>,
}

impl Dist {
    /// From counts indexed by `value - offset`; trims zeros at both ends and normalises.
    pub fn from_counts(offset: i64, counts: &[u64]) -> Self {
        let first = counts.iter().position(|&c| c > 0).unwrap_or(0);
        let last = counts.iter().rposition(|&c| c > 0).unwrap_or(0);
        let total: u64 = counts.iter().sum();
        let probs = if total == 0 {
            vec![1.0]
        } else {
            counts[first..=last]
                .iter()
                .map(|&c| c as f64 / total as f64)
                .collect()
        };
        Self {
            offset: offset + first as i64,
            probs,
        }
    }

    /// From probabilities indexed by `value - offset`; drops entries below `1e-18` at the ends.
    /// Without any entry above `1e-18` (or with none at all) it is the point mass at `offset`,
    /// as [`Dist::from_counts`] is for all-zero counts.
    pub fn from_probs(offset: i64, probs: &[f64]) -> Self {
        let Some(first) = probs.iter().position(|&c| c > 1e-18) else {
            return Self {
                offset,
                probs: vec![1.0],
            };
        };
        let last = probs.iter().rposition(|&c| c > 1e-18).unwrap_or(first);
        let slice = &probs[first..=last.max(first)];
        let total: f64 = slice.iter().sum();
        Self {
            offset: offset + first as i64,
            probs: slice.iter().map(|p| p / total).collect(),
        }
    }

    /// Mean value.
    pub fn mean(&self) -> f64 {
        self.probs
            .iter()
            .enumerate()
            .map(|(i, p)| p * (self.offset + i as i64) as f64)
            .sum()
    }

    /// Largest value with positive probability.
    pub fn max_value(&self) -> i64 {
        self.offset + self.probs.len() as i64 - 1
    }
}

/// `k` for one `(s, q)`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KCell {
    /// `R_s = q + D_s`: rows below it are special, at and above it the shift applies.
    pub r: usize,
    /// `D_s`: the largest one-interval decrease in the saturated regime.
    pub d_max_decrease: usize,
    /// Distribution of `n_{s+1}` for `n = 0..r`.
    pub rows: Vec<Dist>,
    /// Distribution of `δ = n_{s+1} - n_s` in the saturated regime.
    pub shift: Dist,
    /// Largest observed increase `n_{s+1} - n_s` over rows and shift (0 if none).
    pub max_increase: usize,
}

/// `k_s(q, n, m)` for `s = 0..d-1`, `q = p_min..=p_max`, plus `K_s` for `s = 0..=d`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KTable {
    /// Smallest server count.
    pub p_min: usize,
    /// Largest server count.
    pub p_max: usize,
    /// `cells[s][q - p_min]`.
    pub cells: Vec<Vec<KCell>>,
    /// `K_s`: cumulative maximum increase from time 0 (spec §3.2).
    pub bound: Vec<usize>,
}

/// Distribution of `n_{s+1}` given `n_s = n` under `q` servers, as `(offset, probs)`.
#[derive(Debug, Clone, Copy)]
pub struct DistRef<'a> {
    /// Value of `probs[0]` (never negative).
    pub offset: usize,
    /// Probabilities.
    pub probs: &'a [f64],
}

impl DistRef<'_> {
    /// `Σ_m k(m) · m`.
    pub fn mean(&self) -> f64 {
        self.probs
            .iter()
            .enumerate()
            .map(|(i, p)| p * (self.offset + i) as f64)
            .sum()
    }
}

impl KTable {
    /// `k_s(q, n, ·)`.
    pub fn dist(&self, s: usize, q: usize, n: usize) -> Result<DistRef<'_>> {
        let cell = self
            .cells
            .get(s)
            .and_then(|row| row.get(q.wrapping_sub(self.p_min)))
            .ok_or_else(|| ProvisionError::TableMismatch(format!("k has no cell s={s}, q={q}")))?;
        if n < cell.r {
            let d = &cell.rows[n];
            Ok(DistRef {
                offset: d.offset.max(0) as usize,
                probs: &d.probs,
            })
        } else {
            let off = n as i64 + cell.shift.offset;
            if off < 0 {
                return Err(ProvisionError::TableMismatch(format!(
                    "saturated shift below zero at s={s}, q={q}, n={n}"
                )));
            }
            Ok(DistRef {
                offset: off as usize,
                probs: &cell.shift.probs,
            })
        }
    }

    /// `K_s`.
    pub fn k_bound(&self, s: usize) -> usize {
        self.bound.get(s).copied().unwrap_or(0)
    }
}

/// Monte Carlo sizes of the k phase.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct KConfig {
    /// Runs of the saturated simulation per `q` (1,000 in the thesis).
    pub saturated_runs: usize,
    /// Runs per special cell (unspecified in the thesis; spec recommends >= 1e4).
    pub special_runs: usize,
    /// Exact pure-death transitions for `s >= u`.
    pub exact_after_u: bool,
}

/// Exact cell for `s >= u`: pure death over one interval.
fn exact_cell(params: &Params, q: usize) -> KCell {
    let lam = q as f64 / params.x_units();
    let w = poisson_weights(lam);
    // D: deaths beyond it have probability < 1e-15 (the truncation of `poisson_weights`)
    let dmax = w.len() - 1;
    let r = q + dmax;
    let rows = (0..r)
        .map(|n| Dist::from_probs(0, &pure_death_transition(q, n, 1.0 / params.x_units())))
        .collect();
    let rev: Vec<f64> = w.iter().rev().copied().collect();
    KCell {
        r,
        d_max_decrease: dmax,
        rows,
        shift: Dist::from_probs(-(dmax as i64), &rev),
        max_increase: 0,
    }
}

/// The saturated simulation for one `q`: per `s < n_mc`, counts of `δ` (offset by `-off`).
fn saturated(
    params: &Params,
    profile: &ArrivalProfile,
    streams: &RngStreams,
    q: usize,
    runs: usize,
    n_mc: usize,
) -> Vec<(i64, Vec<u64>)> {
    let n0 = 2 * params.gamma();
    let delta = params.delta_secs;
    let mut hist: Vec<std::collections::BTreeMap<i64, u64>> = vec![Default::default(); n_mc];
    for r in 0..runs {
        let smp = RunSample::draw(
            streams,
            TAG_SAT,
            r as u64,
            profile,
            params.mean_service_secs,
            n0,
        );
        let mut done = completion_times(
            q,
            0.0,
            &smp.initial_service,
            &smp.arrivals,
            &smp.arrival_service,
        );
        done.sort_unstable_by(f64::total_cmp);
        let count_at = |t: f64| -> i64 {
            let arr = smp.arrivals.partition_point(|&a| a <= t) as i64;
            let fin = done.partition_point(|&c| c <= t) as i64;
            n0 as i64 + arr - fin
        };
        let mut prev = count_at(0.0);
        for (s, h) in hist.iter_mut().enumerate() {
            let next = count_at((s + 1) as f64 * delta);
            *h.entry(next - prev).or_insert(0) += 1;
            prev = next;
        }
    }
    hist.into_iter()
        .map(|h| {
            let lo = h.keys().next().copied().unwrap_or(0);
            let hi = h.keys().next_back().copied().unwrap_or(0);
            let mut v = vec![0u64; (hi - lo + 1) as usize];
            for (k, c) in h {
                v[(k - lo) as usize] += c;
            }
            (lo, v)
        })
        .collect()
}

/// Builds `k` and `K_s` (Monte Carlo below `u`, exact after it if configured).
pub fn k_table(
    params: &Params,
    profile: &ArrivalProfile,
    streams: &RngStreams,
    cfg: &KConfig,
) -> Result<KTable> {
    if cfg.saturated_runs == 0 || cfg.special_runs == 0 {
        return Err(ProvisionError::invalid(
            "k runs",
            format!("{}/{}", cfg.saturated_runs, cfg.special_runs),
            "must be >= 1",
        ));
    }
    let np = params.n_counts();
    let d = params.d;
    let n_mc = if cfg.exact_after_u { params.u } else { d };
    // saturated regime per q
    let sat: Vec<Vec<(i64, Vec<u64>)>> = (params.p_min..=params.p_max)
        .into_par_iter()
        .map(|q| saturated(params, profile, streams, q, cfg.saturated_runs, n_mc))
        .collect();
    // R_s per (s, q)
    let r_of = |s: usize, qi: usize| -> usize {
        let (lo, _) = &sat[qi][s];
        params.p_min + qi + (-lo).max(0) as usize
    };
    let max_r = (0..n_mc)
        .flat_map(|s| (0..np).map(move |qi| (s, qi)))
        .map(|(s, qi)| r_of(s, qi))
        .max()
        .unwrap_or(0);
    // special cells: counts[s][qi][n] -> histogram over m
    let chunk_len = cfg.special_runs.div_ceil(CHUNKS);
    let delta = params.delta_secs;
    type Counts = Vec<Vec<Vec<Vec<u64>>>>;
    let empty: Counts = (0..n_mc)
        .map(|s| (0..np).map(|qi| vec![Vec::new(); r_of(s, qi)]).collect())
        .collect();
    let merged = (0..CHUNKS)
        .into_par_iter()
        .map(|c| {
            let mut counts = empty.clone();
            let lo = c * chunk_len;
            let hi = ((c + 1) * chunk_len).min(cfg.special_runs);
            for r in lo..hi {
                let smp = RunSample::draw(
                    streams,
                    TAG_SPECIAL,
                    r as u64,
                    profile,
                    params.mean_service_secs,
                    max_r,
                );
                for (s, per_q) in counts.iter_mut().enumerate() {
                    let t0 = s as f64 * delta;
                    let t1 = t0 + delta;
                    let w = smp.window(t0, t1);
                    let at = &smp.arrivals[w.clone()];
                    let asv = &smp.arrival_service[w];
                    for (qi, per_n) in per_q.iter_mut().enumerate() {
                        let q = params.p_min + qi;
                        for (n, h) in per_n.iter_mut().enumerate() {
                            let m = remaining_at(q, t0, t1, &smp.initial_service[..n], at, asv);
                            if h.len() <= m {
                                h.resize(m + 1, 0);
                            }
                            h[m] += 1;
                        }
                    }
                }
            }
            counts
        })
        .reduce(
            || empty.clone(),
            |mut a, b| {
                for (sa, sb) in a.iter_mut().zip(b) {
                    for (qa, qb) in sa.iter_mut().zip(sb) {
                        for (ha, hb) in qa.iter_mut().zip(qb) {
                            if ha.len() < hb.len() {
                                ha.resize(hb.len(), 0);
                            }
                            for (x, y) in ha.iter_mut().zip(hb) {
                                *x += y;
                            }
                        }
                    }
                }
                a
            },
        );
    let exact: Vec<KCell> = if n_mc < d {
        (params.p_min..=params.p_max)
            .into_par_iter()
            .map(|q| exact_cell(params, q))
            .collect()
    } else {
        Vec::new()
    };
    let mut cells = Vec::with_capacity(d);
    for s in 0..d {
        if s >= n_mc {
            cells.push(exact.clone());
            continue;
        }
        let mut row = Vec::with_capacity(np);
        for qi in 0..np {
            let (lo, counts) = &sat[qi][s];
            let shift = Dist::from_counts(*lo, counts);
            let rows: Vec<Dist> = merged[s][qi]
                .iter()
                .map(|h| Dist::from_counts(0, h))
                .collect();
            let mut inc = shift.max_value().max(0);
            for (n, dr) in rows.iter().enumerate() {
                inc = inc.max(dr.max_value() - n as i64);
            }
            row.push(KCell {
                r: rows.len(),
                d_max_decrease: (-lo).max(0) as usize,
                rows,
                shift,
                max_increase: inc.max(0) as usize,
            });
        }
        cells.push(row);
    }
    let mut bound = vec![0usize; d + 1];
    for s in 0..d {
        let inc = cells[s].iter().map(|c| c.max_increase).max().unwrap_or(0);
        bound[s + 1] = bound[s] + inc;
    }
    Ok(KTable {
        p_min: params.p_min,
        p_max: params.p_max,
        cells,
        bound,
    })
}

/// Exact `k` for a model without arrivals (`u = 0`), e.g. spec Appendix B.
pub fn k_table_no_arrivals(params: &Params, n_max: usize) -> KTable {
    let np = params.n_counts();
    let t = 1.0 / params.x_units();
    let cells: Vec<Vec<KCell>> = (0..params.d)
        .map(|_| {
            (params.p_min..=params.p_max)
                .map(|q| {
                    let mut c = exact_cell(params, q);
                    // make rows cover 0..=n_max exactly (no shift approximation)
                    let r = c.r.max(n_max + 1);
                    c.rows = (0..r)
                        .map(|n| Dist::from_probs(0, &pure_death_transition(q, n, t)))
                        .collect();
                    c.r = r;
                    c
                })
                .collect()
        })
        .collect();
    debug_assert_eq!(cells.first().map_or(np, Vec::len), np);
    KTable {
        p_min: params.p_min,
        p_max: params.p_max,
        bound: vec![n_max; params.d + 1],
        cells,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Found by crates/slarm/tests/robustness: an empty slice panicked (range out of bounds)
    /// and an all-zero one gave NaN probabilities; both are the point mass at the offset.
    #[test]
    fn dist_from_empty_or_zero_probabilities() {
        for probs in [&[][..], &[0.0, 0.0][..]] {
            let d = Dist::from_probs(3, probs);
            assert_eq!((d.offset, d.probs), (3, vec![1.0]));
        }
        let d = Dist::from_probs(0, &[0.0, 0.25, 0.75, 0.0]);
        assert_eq!((d.offset, d.probs), (1, vec![0.25, 0.75]));
    }
}
