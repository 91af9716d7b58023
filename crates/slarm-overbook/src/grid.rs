//! The time grid of the comprehensive PoS (Birkenheuer 2012, §3.2.2-§3.2.3): whole-second plan
//! times to grid steps, a job's runtime distribution on the grid, and the three operations on
//! slarm-stats' grid distributions ([`GridDist`]) the comprehensive approach needs: the joint
//! start distribution of a job after its predecessors ([`max_of_independent`]), its end
//! distribution truncated at the kill time ([`convolve`]) and `P(start + runtime <= slot end)`
//! ([`prob_sum_at_most`]).
//!
//! Every distribution lies on the absolute grid `k · step` (`k` an integer, time 0 = the
//! battery start), so grid indices and times convert exactly.

use slarm_stats::convolution::{convolve, prob_sum_at_most};
use slarm_stats::joint::SumTable;
use slarm_stats::ratio::RatioDist;
use slarm_stats::{max_of_independent, GridDist};

use crate::error::{OverbookError, Result};
use crate::job::Time;
use slarm_stats::check;

/// The grid: step length in seconds, anchored at time 0 (the thesis gives no step; default
/// 60 s).
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct TimeGrid {
    step: f64,
}

impl TimeGrid {
    /// A validated grid with a finite step of at least one second (times are whole seconds;
    /// a finer step would only push grid indices towards overflow).
    pub fn new(seconds: f64) -> Result<Self> {
        check::positive("grid step", seconds)?;
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

    /// The time of grid index `k`, `k · step`.
    pub fn at(&self, k: i64) -> f64 {
        k as f64 * self.step
    }

    /// The grid index of a distribution's first point.
    pub fn first(&self, d: &GridDist) -> i64 {
        (d.origin() / self.step).round() as i64
    }

    /// The grid index of a distribution's last point. Indices saturate at `i64::MAX` (a
    /// distribution's origin beyond 9.2e18 steps; `as` saturates [`first`](Self::first) too).
    pub fn last(&self, d: &GridDist) -> i64 {
        let len = i64::try_from(d.len()).unwrap_or(i64::MAX);
        self.first(d).saturating_add(len - 1)
    }

    /// A deterministic time (point mass) at grid index `k`.
    pub fn point(&self, k: i64) -> Result<GridDist> {
        Ok(GridDist::dirac(self.at(k), self.step)?)
    }

    /// The runtime distribution of a job with estimate `x` in steps: percent bin `k` goes to
    /// step `ceil((k/100)·x/step)` (thesis §3.2.2, end times rounded up), masses of equal steps
    /// merged; the grid starts at the first step with mass.
    ///
    /// The step is computed as `(k / 100) · x / step`, not with slarm-stats'
    /// [`RatioDist::to_time_grid`], which rounds `k · (x/100) / step` with a `1e-9`-step
    /// tolerance: the two differ where the product is an exact integer in theory but not in
    /// floating point (e.g. `x` = 7200 s, `k` = 55: `0.55 · 7200 / 60` = 66.00000000000001,
    /// step 67 here, 66 there), and that changes reproduction results (docs/decisions.md,
    /// "Birkenheuer 2012, Sec. 3.2.2: percent bins to the time grid, end times rounded up").
    pub fn runtime(&self, dist: &RatioDist, estimate: Time) -> Result<GridDist> {
        let mut steps: Vec<(i64, f64)> = Vec::with_capacity(101);
        for (k, &p) in dist.masses().iter().enumerate() {
            if p <= 0.0 {
                continue;
            }
            let s = (k as f64 / 100.0 * estimate as f64 / self.step).ceil() as i64;
            match steps.last_mut() {
                Some((ls, lp)) if *ls == s => *lp += p,
                _ => steps.push((s, p)),
            }
        }
        let (Some(&(first, _)), Some(&(last, _))) = (steps.first(), steps.last()) else {
            return Err(OverbookError::EmptyStatistics(
                "a ratio distribution without mass".into(),
            ));
        };
        let mut masses = vec![0.0; (last - first + 1) as usize];
        for (s, p) in steps {
            masses[(s - first) as usize] = p;
        }
        Ok(GridDist::defective(self.at(first), self.step, masses)?)
    }

    /// The joint start distribution `1[t >= lo] · prod_i CDF_i(t)` of a job whose start waits for
    /// all `preds` (their end distributions) and for grid index `lo` (thesis §3.2.2).
    pub fn joint(&self, preds: &[&GridDist], lo: i64) -> Result<GridDist> {
        // A floor at or before some predecessor's first point cannot bind (that predecessor's
        // CDF is 0 before it), so it is left out of the product: same values, less work.
        if preds.iter().any(|p| self.first(p) >= lo) {
            return Ok(max_of_independent(preds)?);
        }
        let floor = self.point(lo)?;
        let mut all: Vec<&GridDist> = preds.to_vec();
        all.push(&floor);
        Ok(max_of_independent(&all)?)
    }

    /// End distribution of a job starting at `start` and running for `runtime`, truncated at
    /// grid index `kill` (all mass beyond moves to `kill`: the job is killed there; a kill
    /// before the earliest possible end moves everything to that end).
    pub fn end(&self, start: &GridDist, runtime: &GridDist, kill: i64) -> Result<GridDist> {
        let end = convolve(start, runtime)?;
        let kill = kill.max(self.first(&end));
        if kill < self.last(&end) {
            Ok(end.truncate_at(self.at(kill))?)
        } else {
            Ok(end)
        }
    }

    /// `P(start + runtime <= end)` for grid index `end`, in one pass (`O(L + R)`).
    pub fn p_end_by(&self, start: &GridDist, runtime: &GridDist, end: i64) -> Result<f64> {
        Ok(prob_sum_at_most(start, runtime, self.at(end))?)
    }

    /// `P(S + runtime <= end)` for the joint start `S` of [`TimeGrid::joint`]`(preds, lo)`,
    /// bit for bit [`TimeGrid::p_end_by`] of it, without building the joint (one pass up to
    /// `end`; slarm-stats' [`SumTable::prob_max_plus_at_most`]). `runtime` is the job's
    /// runtime with its running sums.
    pub fn p_end_by_joint(
        &self,
        preds: &[&GridDist],
        lo: i64,
        runtime: &SumTable<'_>,
        end: i64,
    ) -> Result<f64> {
        let end = self.at(end);
        if preds.iter().any(|p| self.first(p) >= lo) {
            return Ok(runtime.prob_max_plus_at_most(preds, end)?);
        }
        let floor = self.point(lo)?;
        let mut all: Vec<&GridDist> = preds.to_vec();
        all.push(&floor);
        Ok(runtime.prob_max_plus_at_most(&all, end)?)
    }

    /// `P(start + runtime <= end)` for a start at grid index `start`, in `O(1)` from the
    /// runtime's running sums: bit for bit [`TimeGrid::p_end_by`] of [`TimeGrid::point`].
    pub fn p_end_by_from(&self, start: i64, runtime: &SumTable<'_>, end: i64) -> Result<f64> {
        Ok(runtime.prob_point_plus_at_most(self.at(start), self.at(end))?)
    }

    /// An upper bound of [`TimeGrid::p_end_by`] in `O(1)`: the job starting at grid index
    /// `first`, the earliest possible start.
    pub fn p_end_by_bound(&self, first: i64, runtime: &SumTable<'_>, end: i64) -> Result<f64> {
        self.p_end_by_from(first, runtime, end)
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
        let at = |d: &GridDist, k: i64| d.cdf(g.at(k));
        let zero = g.point(0).unwrap();
        let a = g.end(&zero, &g.runtime(&d, 4 * 3600).unwrap(), 4).unwrap();
        let b = g.end(&zero, &g.runtime(&d, 3 * 3600).unwrap(), 3).unwrap();
        let expect_a = [0.4, 0.6, 0.8, 1.0];
        for (t, e) in (1..=4).zip(expect_a) {
            assert!((at(&a, t) - e).abs() < 1e-12, "A at {t}");
        }
        let expect_b = [0.4, 0.6, 1.0];
        for (t, e) in (1..=3).zip(expect_b) {
            assert!((at(&b, t) - e).abs() < 1e-12, "B at {t}");
        }
        let joint = g.joint(&[&a, &b], 0).unwrap();
        let expect_joint = [0.0, 0.16, 0.36, 0.8, 1.0];
        for (t, e) in (0..=4).zip(expect_joint) {
            assert!((at(&joint, t) - e).abs() < 1e-12, "joint at {t}");
        }
        let rt = g.runtime(&d, 4 * 3600).unwrap();
        let p = g.p_end_by(&joint, &rt, 6).unwrap();
        assert!((p - 0.832).abs() < 1e-12, "p = {p}");
        let end = g.end(&joint, &rt, 6).unwrap();
        // P(end <= 5) = .16·1 + .20·.8 + .44·.6 + .20·.4 = 0.664.
        assert!((at(&end, 5) - 0.664).abs() < 1e-12);
        assert!((at(&end, 6) - 1.0).abs() < 1e-12);
        assert_eq!(g.last(&end), 6);
    }

    #[test]
    fn step_and_bounds() {
        let g = TimeGrid::new(60.0).unwrap();
        let s = g.point(5).unwrap();
        assert_eq!(s.cdf(g.at(4)), 0.0);
        assert_eq!(s.cdf(g.at(5)), 1.0);
        assert_eq!(s.masses(), &[1.0]);
        assert_eq!((g.first(&s), g.last(&s)), (5, 5));
        assert!(TimeGrid::new(0.0).is_err());
        // Found by crates/slarm/tests/robustness: a subnormal step saturated the indices.
        assert!(TimeGrid::new(1e-300).is_err());
        assert!(TimeGrid::new(1.0).is_ok());
        assert_eq!(g.up(61), 2);
        assert_eq!(g.down(119), 1);
        // Joint with no predecessors is a step at lo.
        let j = g.joint(&[], 7).unwrap();
        assert_eq!(j.cdf(g.at(6)), 0.0);
        assert_eq!(j.cdf(g.at(7)), 1.0);
        // A kill before the earliest end moves everything to that end.
        let rt = GridDist::new(g.at(3), 60.0, vec![0.5, 0.5]).unwrap();
        let e = g.end(&s, &rt, 2).unwrap();
        assert_eq!((g.first(&e), g.last(&e)), (8, 8));
    }

    fn naive_p_end_by(g: &TimeGrid, start: &GridDist, runtime: &GridDist, end: i64) -> f64 {
        let mut p = 0.0;
        for (i, ps) in start.masses().iter().enumerate() {
            let room = end - (g.first(start) + i as i64);
            let fit: f64 = runtime
                .masses()
                .iter()
                .enumerate()
                .filter(|(r, _)| g.first(runtime) + *r as i64 <= room)
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
            rt in proptest::collection::vec(0.0f64..1.0, 1..30),
            rt_offset in 0i64..5,
            end in 0i64..150,
        ) {
            let g = TimeGrid::new(60.0).unwrap();
            let norm = |v: &[f64]| {
                let t: f64 = v.iter().sum();
                v.iter().map(|p| if t > 0.0 { p / t } else { 0.0 }).collect::<Vec<_>>()
            };
            let start = GridDist::defective(g.at(offset), 60.0, norm(&start)).unwrap();
            let rt = GridDist::defective(g.at(rt_offset), 60.0, norm(&rt)).unwrap();
            let fast = g.p_end_by(&start, &rt, end).unwrap();
            let slow = naive_p_end_by(&g, &start, &rt, end);
            proptest::prop_assert!((fast - slow).abs() < 1e-12);
            let bound = g.p_end_by_bound(g.first(&start), &SumTable::new(&rt), end).unwrap();
            proptest::prop_assert!(fast <= bound + 1e-12);
            let point = g.p_end_by(&g.point(offset).unwrap(), &rt, end).unwrap();
            let from = g.p_end_by_from(offset, &SumTable::new(&rt), end).unwrap();
            proptest::prop_assert_eq!(point.to_bits(), from.to_bits());
        }

        // The joint start's P(S + runtime <= end) without building the joint is bit for bit
        // that of the built joint, with the floor `lo` binding or not.
        #[test]
        fn p_end_by_joint_equals_p_end_by_of_the_joint(
            preds in proptest::collection::vec(
                (proptest::collection::vec(0.0f64..1.0, 1..40), 0i64..60, 0.5f64..=1.0),
                1..4,
            ),
            lo in 0i64..80,
            rt in proptest::collection::vec(0.0f64..1.0, 1..30),
            rt_offset in 0i64..5,
            end in 0i64..200,
        ) {
            let g = TimeGrid::new(60.0).unwrap();
            let norm = |v: &[f64], mass: f64| {
                let t: f64 = v.iter().sum();
                v.iter().map(|p| if t > 0.0 { mass * p / t } else { 0.0 }).collect::<Vec<_>>()
            };
            let preds: Vec<GridDist> = preds
                .iter()
                .map(|(m, o, mass)| GridDist::defective(g.at(*o), 60.0, norm(m, *mass)).unwrap())
                .collect();
            let refs: Vec<&GridDist> = preds.iter().collect();
            let rt = GridDist::defective(g.at(rt_offset), 60.0, norm(&rt, 1.0)).unwrap();
            let fast = g.p_end_by_joint(&refs, lo, &SumTable::new(&rt), end).unwrap();
            let slow = g.p_end_by(&g.joint(&refs, lo).unwrap(), &rt, end).unwrap();
            proptest::prop_assert_eq!(fast.to_bits(), slow.to_bits());
        }
    }
}
