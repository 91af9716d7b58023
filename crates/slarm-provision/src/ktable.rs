//! One-interval transition probabilities `k_s(q, n, m)` and the domain bound `K_s`
//! (Sung 2006, §4.3.4).
//!
//! Two regimes, as in the thesis: for `n >= R_s = q + D_s` the change `n_{s+1} - n_s` is taken
//! from a saturated simulation (2γ jobs at time 0, so all `q` servers stay busy) and does not
//! depend on `n`; below `R_s` every `(s, q, n)` cell has its own "special" simulation of one
//! interval. For `s >= u` (no arrivals) both regimes can be computed exactly from the
//! pure-death chain, which is the default (the thesis simulates them; the chain is exact there).

use ndarray::Array2;
use slarm_stats::RngStreams;

use crate::arrival::ArrivalProfile;
use crate::error::{ProvisionError, Result};
use crate::exact::{poisson_weights, pure_death_transition};
use crate::par::map_range;
use crate::params::Params;
use crate::queue::{chunked_fold, completions_per_interval, remaining_rows, RunSample};

const TAG_SAT: u64 = 0x6b01;
const TAG_SPECIAL: u64 = 0x6b02;

/// A distribution on the integers `offset, offset + 1, ...`.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Dist {
    /// Value of the first entry.
    pub offset: i64,
    /// Probabilities, summing to 1.
    pub probs: Vec<f64>,
}

impl Dist {
    /// From counts indexed by `value - offset`; trims zeros at both ends and normalises.
    pub fn from_counts<C: Copy + Into<u64>>(offset: i64, counts: &[C]) -> Self {
        let counts: Vec<u64> = counts.iter().map(|&c| c.into()).collect();
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

/// Counts of integer outcomes (growable at both ends), merged across run chunks.
///
/// Counts are `u32` (saturating at 4.29e9 per outcome, far beyond the runs per cell of any
/// table): the special k simulation keeps one histogram per `(s, q, n)` cell and worker
/// thread, and half-size counts halve that peak memory.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Histogram {
    offset: i64,
    counts: Vec<u32>,
}

impl Histogram {
    /// An empty histogram with room for the outcomes `lo..lo + len` (it grows as needed).
    pub fn with_range(lo: i64, len: usize) -> Self {
        Self {
            offset: lo,
            counts: vec![0; len],
        }
    }

    /// Records one outcome `v`.
    #[inline]
    pub fn add(&mut self, v: i64) {
        match usize::try_from(v - self.offset) {
            Ok(i) if i < self.counts.len() => self.counts[i] = self.counts[i].saturating_add(1),
            _ => self.add_n(v, 1),
        }
    }

    fn add_n(&mut self, v: i64, c: u32) {
        if self.counts.is_empty() {
            self.offset = v;
        }
        if v < self.offset {
            let grow = (self.offset - v) as usize;
            self.counts.splice(0..0, std::iter::repeat_n(0, grow));
            self.offset = v;
        }
        let i = (v - self.offset) as usize;
        if i >= self.counts.len() {
            self.counts.resize(i + 1, 0);
        }
        self.counts[i] = self.counts[i].saturating_add(c);
    }

    /// Adds every count of `other`.
    pub fn merge(&mut self, other: &Histogram) {
        for (i, &c) in other.counts.iter().enumerate() {
            if c > 0 {
                self.add_n(other.offset + i as i64, c);
            }
        }
    }

    /// Smallest recorded outcome (0 if none).
    pub fn min(&self) -> i64 {
        self.counts
            .iter()
            .position(|&c| c > 0)
            .map_or(0, |i| self.offset + i as i64)
    }

    /// The empirical distribution.
    pub fn to_dist(&self) -> Dist {
        Dist::from_counts(self.offset, &self.counts)
    }
}

/// `k` for one `(s, q)`.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
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
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct KTable {
    /// Smallest server count.
    pub p_min: usize,
    /// Largest server count.
    pub p_max: usize,
    /// `cells[[s, q - p_min]]` for `s = 0..d` (serialised as a list of rows).
    #[cfg_attr(feature = "serde", serde(with = "crate::nd_serde::array2"))]
    pub cells: Array2<KCell>,
    /// `K_s`: cumulative maximum increase from time 0 (§4.3.4).
    pub bound: Vec<usize>,
    /// Jobs replayed by the Monte Carlo kernels to build it (machine-independent work, for timing
    /// comparisons as in Fig. 5.17).
    #[cfg_attr(feature = "serde", serde(default))]
    pub replays: u64,
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
            .get((s, q.wrapping_sub(self.p_min)))
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
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct KConfig {
    /// Runs of the saturated simulation per `q` (1,000 in the thesis).
    pub saturated_runs: usize,
    /// Runs per special cell (unspecified in the thesis; 10,000 or more keep the noise small,
    /// docs/decisions.md).
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

/// The saturated simulation (§4.3.4): `runs` runs from 0 with 2γ jobs, common random
/// numbers across `q`; per `s < n_mc` and `q` the histogram of `δ = n_{s+1} - n_s`.
fn saturated(
    params: &Params,
    profile: &ArrivalProfile,
    streams: &RngStreams,
    runs: usize,
    n_mc: usize,
) -> (Vec<Vec<Histogram>>, u64) {
    let n0 = 2 * params.gamma();
    let delta = params.delta_secs;
    let np = params.n_counts();
    chunked_fold(
        runs,
        || (vec![vec![Histogram::default(); np]; n_mc], 0u64),
        |(hist, replays), range| {
            for r in range {
                let smp = RunSample::draw(
                    streams,
                    TAG_SAT,
                    r as u64,
                    profile,
                    params.mean_service_secs,
                    n0,
                );
                let arrivals: Vec<i64> = (0..n_mc)
                    .map(|s| smp.window(s as f64 * delta, (s + 1) as f64 * delta).len() as i64)
                    .collect();
                for (qi, q) in (params.p_min..=params.p_max).enumerate() {
                    let (done, work) = completions_per_interval(
                        q,
                        &smp.initial_service,
                        (&smp.arrivals, &smp.arrival_service),
                        delta,
                        n_mc,
                    );
                    *replays += work;
                    for (s, h) in hist.iter_mut().enumerate() {
                        h[qi].add(arrivals[s] - i64::from(done[s]));
                    }
                }
            }
        },
        merge_parts,
    )
}

/// Adds the histograms of `b` to those of `a` cell by cell, and its work.
/// Counts are integers, so the result does not depend on the merge order.
fn merge_parts(
    (mut acc, work_a): (Vec<Vec<Histogram>>, u64),
    (part, work_b): (Vec<Vec<Histogram>>, u64),
) -> (Vec<Vec<Histogram>>, u64) {
    for (ra, rb) in acc.iter_mut().zip(&part) {
        for (ha, hb) in ra.iter_mut().zip(rb) {
            ha.merge(hb);
        }
    }
    (acc, work_a + work_b)
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
    let (sat, sat_work) = saturated(params, profile, streams, cfg.saturated_runs, n_mc);
    // R_s = q + D_s per (s, q)
    let r_of = |s: usize, qi: usize| params.p_min + qi + (-sat[s][qi].min()).max(0) as usize;
    let max_r = (0..n_mc)
        .flat_map(|s| (0..np).map(move |qi| r_of(s, qi)))
        .max()
        .unwrap_or(0);
    // special cells (§4.3.4): per (s, q, n < R_s) the histogram of n_{s+1}
    let delta = params.delta_secs;
    let special_init = || {
        let hist: Vec<Vec<Histogram>> = (0..n_mc)
            .flat_map(|s| (0..np).map(move |qi| (s, qi)))
            .map(|(s, qi)| {
                (0..r_of(s, qi))
                    .map(|n| Histogram::with_range(0, n + 2 * (params.p_min + qi) + 16))
                    .collect()
            })
            .collect();
        (hist, 0u64)
    };
    let special_chunk = |(hist, replays): &mut (Vec<Vec<Histogram>>, u64),
                         range: std::ops::Range<usize>| {
        let mut rows = vec![0usize; max_r];
        for r in range {
            let smp = RunSample::draw(
                streams,
                TAG_SPECIAL,
                r as u64,
                profile,
                params.mean_service_secs,
                max_r,
            );
            for s in 0..n_mc {
                let t0 = s as f64 * delta;
                let w = smp.window(t0, t0 + delta);
                let arr = (&smp.arrivals[w.clone()], &smp.arrival_service[w]);
                for qi in 0..np {
                    let cell = &mut hist[s * np + qi];
                    let out = &mut rows[..cell.len()];
                    *replays += remaining_rows(
                        params.p_min + qi,
                        t0,
                        t0 + delta,
                        &smp.initial_service,
                        arr,
                        out,
                    );
                    for (h, &m) in cell.iter_mut().zip(out.iter()) {
                        h.add(m as i64);
                    }
                }
            }
        }
    };
    let (special, special_work) =
        chunked_fold(cfg.special_runs, special_init, special_chunk, merge_parts);
    let exact: Vec<KCell> = if n_mc < d {
        map_range(params.p_min..params.p_max + 1, |q| exact_cell(params, q))
    } else {
        Vec::new()
    };
    let cells = Array2::from_shape_fn((d, np), |(s, qi)| {
        if s >= n_mc {
            return exact[qi].clone();
        }
        let shift = sat[s][qi].to_dist();
        let rows: Vec<Dist> = special[s * np + qi]
            .iter()
            .map(Histogram::to_dist)
            .collect();
        let mut inc = shift.max_value().max(0);
        for (n, dr) in rows.iter().enumerate() {
            inc = inc.max(dr.max_value() - n as i64);
        }
        KCell {
            r: rows.len(),
            d_max_decrease: (-sat[s][qi].min()).max(0) as usize,
            rows,
            shift,
            max_increase: inc.max(0) as usize,
        }
    });
    let mut bound = vec![0usize; d + 1];
    for s in 0..d {
        let inc = cells
            .row(s)
            .iter()
            .map(|c| c.max_increase)
            .max()
            .unwrap_or(0);
        bound[s + 1] = bound[s] + inc;
    }
    Ok(KTable {
        p_min: params.p_min,
        p_max: params.p_max,
        cells,
        bound,
        replays: sat_work + special_work,
    })
}

/// Exact `k` for a model without arrivals (`u = 0`), e.g. a hand-checkable toy recursion.
pub fn k_table_no_arrivals(params: &Params, n_max: usize) -> KTable {
    let np = params.n_counts();
    let t = 1.0 / params.x_units();
    let cells = Array2::from_shape_fn((params.d, np), |(_, qi)| {
        let q = params.p_min + qi;
        let mut c = exact_cell(params, q);
        // make rows cover 0..=n_max exactly (no shift approximation)
        let r = c.r.max(n_max + 1);
        c.rows = (0..r)
            .map(|n| Dist::from_probs(0, &pure_death_transition(q, n, t)))
            .collect();
        c.r = r;
        c
    });
    KTable {
        p_min: params.p_min,
        p_max: params.p_max,
        bound: vec![n_max; params.d + 1],
        cells,
        replays: 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histogram_grows_both_ways_and_merges() {
        let mut a = Histogram::default();
        for v in [3, 1, -2, 3] {
            a.add(v);
        }
        let mut b = Histogram::with_range(0, 10);
        b.add(5);
        a.merge(&b);
        assert_eq!(a.min(), -2);
        let d = a.to_dist();
        assert_eq!(d.offset, -2);
        assert_eq!(d.max_value(), 5);
        // counts -2: 1, 1: 1, 3: 2, 5: 1 of 5
        assert!((d.probs[5] - 0.4).abs() < 1e-12 && (d.mean() - 2.0).abs() < 1e-12);
        assert_eq!(Histogram::with_range(4, 3).min(), 0); // empty
    }

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
