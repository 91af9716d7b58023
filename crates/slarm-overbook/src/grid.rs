//! Distributions on a fixed absolute time grid for the comprehensive PoS (Birkenheuer 2012,
//! §3.2.2-§3.2.3): percent bins to grid steps, the joint start-time CDF as a product of
//! predecessor end-time CDFs, differencing, and the convolution with the job's runtime PDF.
//!
//! A job's runtime PDF on the grid has at most 101 point masses (one per percent bin), so the
//! convolution is computed directly in `O(101·L)` for a joint distribution of `L` steps; this
//! beats a dense FFT convolution of two `L`-step vectors at every size that occurs here.

use crate::error::{positive, OverbookError, Result};
use crate::job::Time;
use slarm_stats::ratio::RatioDist;

/// The grid: step length in seconds, anchored at time 0 (the thesis gives no step; default 60 s).
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct TimeGrid {
    step: f64,
}

impl TimeGrid {
    /// A validated grid with a finite step of at least one second (times are whole seconds;
    /// a finer step would only push grid indices towards overflow).
    pub fn new(seconds: f64) -> Result<Self> {
        positive("grid step", seconds)?;
        if seconds < 1.0 {
            return Err(OverbookError::InvalidParameter {
                name: "grid step",
                value: seconds,
                reason: "must be at least one second (the clock's resolution)",
            });
        }
        Ok(Self { step: seconds })
    }

    /// Step length in seconds.
    pub fn step(&self) -> f64 {
        self.step
    }

    /// Grid index of a time rounded up (end times, conservative).
    pub fn up(&self, t: Time) -> i64 {
        (t as f64 / self.step).ceil() as i64
    }

    /// Grid index of a time rounded down (slot ends).
    pub fn down(&self, t: Time) -> i64 {
        (t as f64 / self.step).floor() as i64
    }

    /// The runtime PDF of a job with estimate `x` as sparse `(step, mass)` pairs, bin `k` mapped
    /// to `ceil((k/100)·x/step)` (thesis §3.2.2, end times rounded up), masses of equal steps merged, sorted by step.
    pub fn runtime_pmf(&self, dist: &RatioDist, estimate: Time) -> Vec<(i64, f64)> {
        let mut out: Vec<(i64, f64)> = Vec::with_capacity(101);
        for (k, &p) in dist.masses().iter().enumerate() {
            if p <= 0.0 {
                continue;
            }
            let s = (k as f64 / 100.0 * estimate as f64 / self.step).ceil() as i64;
            match out.last_mut() {
                Some((ls, lp)) if *ls == s => *lp += p,
                _ => out.push((s, p)),
            }
        }
        out
    }
}

/// A CDF on the absolute grid: 0 before `offset`, `values[i]` at index `offset + i`, 1 after.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct GridCdf {
    offset: i64,
    values: Vec<f64>,
}

impl GridCdf {
    /// A point mass (deterministic time) at grid index `at`.
    pub fn step_at(at: i64) -> Self {
        Self {
            offset: at,
            values: vec![1.0],
        }
    }

    /// Builds a CDF from a pmf starting at `offset`; clamps negatives, renormalises.
    pub fn from_pmf(offset: i64, pmf: &[f64]) -> Self {
        let total: f64 = pmf.iter().map(|p| p.max(0.0)).sum();
        let mut values = Vec::with_capacity(pmf.len().max(1));
        let mut acc = 0.0;
        for p in pmf {
            acc += p.max(0.0);
            values.push(if total > 0.0 {
                (acc / total).min(1.0)
            } else {
                1.0
            });
        }
        if let Some(l) = values.last_mut() {
            *l = 1.0;
        } else {
            values.push(1.0);
        }
        Self { offset, values }
    }

    /// First index with possibly positive mass.
    pub fn first(&self) -> i64 {
        self.offset
    }

    /// Index where the CDF reaches 1.
    pub fn last(&self) -> i64 {
        self.offset + self.values.len() as i64 - 1
    }

    /// `P(T <= index)`.
    pub fn at(&self, index: i64) -> f64 {
        if index < self.offset {
            0.0
        } else {
            let i = (index - self.offset) as usize;
            self.values.get(i).copied().unwrap_or(1.0)
        }
    }

    /// The joint start-time CDF `1[t >= lo] · prod_i CDF_i(t)` of a job whose start waits for
    /// all `preds` and for `lo` (thesis §3.2.2).
    pub fn joint(preds: &[&GridCdf], lo: i64) -> GridCdf {
        let first = preds.iter().map(|p| p.first()).max().unwrap_or(lo).max(lo);
        let last = preds
            .iter()
            .map(|p| p.last())
            .max()
            .unwrap_or(lo)
            .max(first);
        let values = (first..=last)
            .map(|t| preds.iter().map(|p| p.at(t)).product::<f64>())
            .collect::<Vec<_>>();
        let mut g = GridCdf {
            offset: first,
            values,
        };
        if let Some(l) = g.values.last_mut() {
            *l = 1.0;
        }
        g
    }

    /// The pmf `CDF(t) - CDF(t-1)` from `first()` to `last()`.
    pub fn pmf(&self) -> Vec<f64> {
        let mut prev = 0.0;
        self.values
            .iter()
            .map(|&v| {
                let d = (v - prev).max(0.0);
                prev = v;
                d
            })
            .collect()
    }

    /// End-time CDF of a job starting at this distribution and running for the sparse `runtime`
    /// pmf, truncated at `kill` (all mass beyond moves to `kill`: the job is killed there).
    pub fn convolve(&self, runtime: &[(i64, f64)], kill: i64) -> GridCdf {
        let start_pmf = self.pmf();
        let max_rt = runtime.last().map(|r| r.0).unwrap_or(0);
        let lo = self.offset + runtime.first().map(|r| r.0).unwrap_or(0);
        let hi = (self.last() + max_rt).min(kill.max(lo));
        let len = (hi - lo + 1).max(1) as usize;
        let mut pmf = vec![0.0; len];
        for (i, &ps) in start_pmf.iter().enumerate() {
            if ps <= 0.0 {
                continue;
            }
            let s = self.offset + i as i64;
            for &(r, pr) in runtime {
                let idx = (s + r).min(hi) - lo;
                if idx >= 0 {
                    pmf[idx as usize] += ps * pr;
                }
            }
        }
        GridCdf::from_pmf(lo, &pmf)
    }

    /// `P(start + runtime <= end)` without building the end distribution, in one pass over the
    /// start steps (`O(L + R)` for `L` start steps and `R` runtime masses): as the start grows the
    /// room before `end` shrinks, so a pointer into the runtime prefix sums only moves back.
    pub fn p_end_by(&self, runtime: &[(i64, f64)], end: i64) -> f64 {
        let mut prefix = Vec::with_capacity(runtime.len() + 1);
        let mut acc = 0.0;
        prefix.push(0.0);
        for &(_, pr) in runtime {
            acc += pr;
            prefix.push(acc);
        }
        // fits = number of runtime masses with step <= room.
        let mut fits = runtime.len();
        let mut p = 0.0;
        let mut prev = 0.0;
        for (i, &v) in self.values.iter().enumerate() {
            let ps = (v - prev).max(0.0);
            prev = v;
            if ps <= 0.0 {
                continue;
            }
            let room = end - (self.offset + i as i64);
            while fits > 0 && runtime[fits - 1].0 > room {
                fits -= 1;
            }
            if fits == 0 {
                break;
            }
            p += ps * prefix[fits];
        }
        p.clamp(0.0, 1.0)
    }

    /// An upper bound of [`GridCdf::p_end_by`] in `O(R)`: the job starting at the earliest
    /// possible step, `P(first() + runtime <= end)`.
    pub fn p_end_by_bound(&self, runtime: &[(i64, f64)], end: i64) -> f64 {
        let room = end - self.offset;
        runtime
            .iter()
            .take_while(|(r, _)| *r <= room)
            .map(|(_, pr)| pr)
            .sum::<f64>()
            .clamp(0.0, 1.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn quarters() -> RatioDist {
        let mut pdf = vec![0.0; 101];
        pdf[25] = 0.4;
        pdf[50] = 0.2;
        pdf[75] = 0.2;
        pdf[100] = 0.2;
        RatioDist::from_pmf(&pdf).unwrap()
    }

    #[test]
    fn worked_convolution_example_gives_0_832() {
        // Toy example of thesis §3.2.2-§3.2.3: grid 1 h, quarters PDF, preds A (x=4 h) and
        // B (x=3 h) started at 0, new job x = 4 h, slot end at 6 h -> P(end <= 6) = 0.832.
        let g = TimeGrid::new(3600.0).unwrap();
        let d = quarters();
        let a = GridCdf::step_at(0).convolve(&g.runtime_pmf(&d, 4 * 3600), 4);
        let b = GridCdf::step_at(0).convolve(&g.runtime_pmf(&d, 3 * 3600), 3);
        let expect_a = [0.4, 0.6, 0.8, 1.0];
        for (t, e) in (1..=4).zip(expect_a) {
            assert!((a.at(t) - e).abs() < 1e-12, "A at {t}");
        }
        let expect_b = [0.4, 0.6, 1.0];
        for (t, e) in (1..=3).zip(expect_b) {
            assert!((b.at(t) - e).abs() < 1e-12, "B at {t}");
        }
        let joint = GridCdf::joint(&[&a, &b], 0);
        let expect_joint = [0.0, 0.16, 0.36, 0.8, 1.0];
        for (t, e) in (0..=4).zip(expect_joint) {
            assert!((joint.at(t) - e).abs() < 1e-12, "joint at {t}");
        }
        let rt = g.runtime_pmf(&d, 4 * 3600);
        let p = joint.p_end_by(&rt, 6);
        assert!((p - 0.832).abs() < 1e-12, "p = {p}");
        let end = joint.convolve(&rt, 6);
        // P(end <= 5) = .16·1 + .20·.8 + .44·.6 + .20·.4 = 0.664.
        assert!((end.at(5) - 0.664).abs() < 1e-12);
        assert_eq!(end.at(6), 1.0);
        // The heuristic's own CDF at 50 % is 0.6 <= 0.832 (same example).
        assert!((crate::pos::fits_within(&d, 2 * 3600, 4 * 3600) - 0.6).abs() < 1e-12);
    }

    #[test]
    fn step_and_bounds() {
        let s = GridCdf::step_at(5);
        assert_eq!(s.at(4), 0.0);
        assert_eq!(s.at(5), 1.0);
        assert_eq!(s.pmf(), vec![1.0]);
        assert!(TimeGrid::new(0.0).is_err());
        // Found by crates/slarm/tests/robustness: a subnormal step saturated the indices.
        assert!(TimeGrid::new(1e-300).is_err());
        assert!(TimeGrid::new(1.0).is_ok());
        let g = TimeGrid::new(60.0).unwrap();
        assert_eq!(g.up(61), 2);
        assert_eq!(g.down(119), 1);
        // Joint with no predecessors is a step at lo.
        let j = GridCdf::joint(&[], 7);
        assert_eq!(j.at(6), 0.0);
        assert_eq!(j.at(7), 1.0);
    }

    fn naive_p_end_by(start: &GridCdf, runtime: &[(i64, f64)], end: i64) -> f64 {
        let mut p = 0.0;
        for (i, ps) in start.pmf().into_iter().enumerate() {
            let room = end - (start.first() + i as i64);
            let fit: f64 = runtime
                .iter()
                .filter(|(r, _)| *r <= room)
                .map(|(_, pr)| pr)
                .sum();
            p += ps * fit;
        }
        p.clamp(0.0, 1.0)
    }

    proptest::proptest! {
        // The one-pass P(S + runtime <= end) equals the quadratic definition and never exceeds
        // the earliest-start bound.
        #[test]
        fn p_end_by_matches_definition_and_bound(
            start in proptest::collection::vec(0.0f64..1.0, 1..40),
            offset in 0i64..50,
            rt in proptest::collection::vec((0i64..30, 0.0f64..1.0), 1..20),
            end in 0i64..150,
        ) {
            let start = GridCdf::from_pmf(offset, &start);
            let mut rt = rt;
            rt.sort_by_key(|r| r.0);
            rt.dedup_by_key(|r| r.0);
            let total: f64 = rt.iter().map(|r| r.1).sum();
            let rt: Vec<(i64, f64)> = rt.iter().map(|&(s, p)| (s, if total > 0.0 { p / total } else { 0.0 })).collect();
            let fast = start.p_end_by(&rt, end);
            let slow = naive_p_end_by(&start, &rt, end);
            proptest::prop_assert!((fast - slow).abs() < 1e-12);
            proptest::prop_assert!(fast <= start.p_end_by_bound(&rt, end) + 1e-12);
        }
    }
}
