//! `P(max(X_1, ..., X_k) + B <= t)` in one pass, without building the joint distribution
//! (Birkenheuer 2012, §3.2.2-§3.3.1: the probability that a job starting after all its
//! predecessors ends by its slot end).
//!
//! [`prob_max_plus_at_most`] gives bit for bit what
//! [`prob_sum_at_most`](crate::convolution::prob_sum_at_most) of
//! [`max_of_independent`](crate::grid::max_of_independent) gives: the same additions and
//! multiplications in the same order, but the predecessors' CDFs are running sums advanced
//! one grid point at a time, and the pass stops at the last point that can still fit `B`
//! before `t` instead of running to the joint's last point. No vector of the joint's length is
//! allocated.
//!
//! ```
//! use slarm_stats::convolution::prob_sum_at_most;
//! use slarm_stats::joint::prob_max_plus_at_most;
//! use slarm_stats::{max_of_independent, GridDist};
//!
//! let a = GridDist::from_cdf(1.0, 1.0, &[0.4, 0.6, 0.8, 1.0]).unwrap();
//! let b = GridDist::from_cdf(1.0, 1.0, &[0.4, 0.6, 1.0]).unwrap();
//! let runtime = GridDist::new(1.0, 1.0, vec![0.4, 0.2, 0.2, 0.2]).unwrap();
//! let p = prob_max_plus_at_most(&[&a, &b], &runtime, 6.0).unwrap();
//! assert!((p - 0.832).abs() < 1e-12);
//! let joint = max_of_independent(&[&a, &b]).unwrap();
//! assert_eq!(p, prob_sum_at_most(&joint, &runtime, 6.0).unwrap());
//! ```

use std::cell::{Ref, RefCell};

use crate::error::{Result, StatsError};
use crate::grid::{check_same_step, GridDist, MaxSpan, Rounding, RunningCdf};

/// `P(max(X_1, ..., X_k) + B <= t)` of independent grid variables `X_i` (`dists`) and `B`
/// (`b`): exactly `prob_sum_at_most(&max_of_independent(dists)?, b, t)`, with the same
/// errors (an empty list, different steps, misaligned origins, a non-finite `t`), in
/// `O(k · min(L, room))` for a joint of `L` points of which `room` lie early enough for `B`.
/// For many sums with the same `B`, [`SumTable::prob_max_plus_at_most`] builds `B`'s running
/// sums once.
pub fn prob_max_plus_at_most(dists: &[&GridDist], b: &GridDist, t: f64) -> Result<f64> {
    SumTable::new(b).prob_max_plus_at_most(dists, t)
}

/// A distribution `B` and the running sums of its masses, for many `P(X + B <= t)` of the same
/// `B` (a job's runtime against the start distributions of its candidate slots); each sum
/// gives bit for bit what [`prob_sum_at_most`](crate::convolution::prob_sum_at_most) gives.
/// The sums are built on demand, only as far as the sums asked need them.
#[derive(Debug, Clone)]
pub struct SumTable<'a> {
    b: &'a GridDist,
    /// `prefix[k]`: the first `k` masses of `b` added in order (`prefix[0] = 0`), built up to
    /// the largest `k` asked so far.
    prefix: RefCell<Vec<f64>>,
}

impl<'a> SumTable<'a> {
    /// The table of `b` (its sums are built by the sums asked, `O(len)` in all).
    pub fn new(b: &'a GridDist) -> Self {
        Self {
            b,
            prefix: RefCell::new(Vec::new()),
        }
    }

    /// The table of `b` starting from running sums an earlier table of the same `b` built
    /// ([`Self::into_sums`]), so that many tables of one distribution build its sums once.
    /// The sums are extended exactly as a new table would build them, so every sum is the
    /// same bit for bit. Sums of another distribution give wrong answers; sums longer than
    /// `b` or not starting at 0 are dropped and built anew.
    pub fn with_sums(b: &'a GridDist, sums: Vec<f64>) -> Self {
        let fits = sums.len() <= b.len() + 1 && sums.first().is_none_or(|&s| s == 0.0);
        Self {
            b,
            prefix: RefCell::new(if fits { sums } else { Vec::new() }),
        }
    }

    /// The running sums built so far, for [`Self::with_sums`].
    pub fn into_sums(self) -> Vec<f64> {
        self.prefix.into_inner()
    }

    /// The running sums of `B`'s masses up to `prefix[need]` (`need <= len`).
    fn prefix(&self, need: usize) -> Ref<'_, [f64]> {
        {
            let mut prefix = self.prefix.borrow_mut();
            if prefix.is_empty() {
                prefix.push(0.0);
            }
            let have = prefix.len() - 1;
            if have < need {
                let masses = self.b.masses();
                let mut acc = prefix[have];
                for &m in &masses[have..need.min(masses.len())] {
                    acc += m;
                    prefix.push(acc);
                }
            }
        }
        Ref::map(self.prefix.borrow(), |p| p.as_slice())
    }

    /// The distribution `B`.
    pub fn dist(&self) -> &'a GridDist {
        self.b
    }

    /// `P(x + B <= t)` for a point `x` on `B`'s step: exactly `prob_sum_at_most` of
    /// `GridDist::dirac(x, step)` and `B` (errors for a non-finite `x` or `t`), in `O(1)`.
    pub fn prob_point_plus_at_most(&self, x: f64, t: f64) -> Result<f64> {
        if !x.is_finite() {
            return Err(StatsError::NonFinite {
                what: "point",
                value: x,
            });
        }
        if !t.is_finite() {
            return Err(StatsError::NonFinite {
                what: "sum bound",
                value: t,
            });
        }
        let room0 = Rounding::Down.apply((t - x - self.b.origin()) / self.b.step());
        if room0 < 0.0 {
            return Ok(0.0);
        }
        // The point's mass is 1, so the sum is the masses of `B` that fit.
        let need = self.need(room0);
        Ok(self.prefix(need)[need].clamp(0.0, 1.0))
    }

    /// How many masses of `B` can fit within `room0 >= 0` steps.
    fn need(&self, room0: f64) -> usize {
        (room0.min(self.b.len() as f64 - 1.0) as usize) + 1
    }

    /// [`prob_max_plus_at_most`] with this table's `B`.
    pub fn prob_max_plus_at_most(&self, dists: &[&GridDist], t: f64) -> Result<f64> {
        let b = self.b;
        let span = MaxSpan::of(dists)?;
        let step = span.first.step();
        check_same_step(step, b.step())?;
        if !t.is_finite() {
            return Err(StatsError::NonFinite {
                what: "sum bound",
                value: t,
            });
        }
        // Steps from the sum grid's origin to `t`, rounded down (as `prob_sum_at_most`).
        let room0 = Rounding::Down.apply((t - span.origin() - b.origin()) / step);
        if room0 < 0.0 {
            return Ok(0.0);
        }
        let need = self.need(room0);
        let mut cdfs: Vec<RunningCdf<'_>> = dists
            .iter()
            .zip(&span.offsets)
            .map(|(d, &o)| RunningCdf::at(d.masses(), (span.lo - o) as usize))
            .collect();
        let joint_at = |cdfs: &[RunningCdf<'_>]| cdfs.iter().fold(1.0, |f, c| f * c.value);
        if span.hi == span.lo {
            // A point mass (as `prob_sum_at_most`, whose sum of the fitting masses is
            // `prefix[need]`).
            let pa = joint_at(&cdfs).max(0.0);
            return Ok((pa * self.prefix(need)[need]).clamp(0.0, 1.0));
        }
        let prefix = self.prefix(need);
        let prefix = &prefix[..=need];
        let points = (span.hi - span.lo + 1) as usize;
        // Room left for `B` after the joint's point i is `room0 - i` steps: once negative, no
        // later point fits. In whole numbers (exact below 2^53; a room beyond every point
        // and every mass of `B` fits all of `B` everywhere), so the pass runs over the points
        // that fit and looks the sum up without converting back from floating point.
        let room = if room0 >= (points + need) as f64 {
            points + need
        } else {
            room0 as usize
        };
        let upto = points.min(room.saturating_add(1));
        let fitting = |i: usize| (room - i).saturating_add(1).min(need);
        // The joint's CDF at point i is the product of the predecessors' running CDFs (in
        // list order, from 1.0, and 1.0 · x is x exactly); one and two predecessors, the
        // common cases, keep theirs in locals instead of a vector.
        Ok(match cdfs.as_mut_slice() {
            [a] => sum_joint(upto, prefix, fitting, |i| {
                if i > 0 {
                    a.advance();
                }
                a.value
            }),
            [a, b] => sum_joint(upto, prefix, fitting, |i| {
                if i > 0 {
                    a.advance();
                    b.advance();
                }
                a.value * b.value
            }),
            all => sum_joint(upto, prefix, fitting, |i| {
                if i > 0 {
                    all.iter_mut().for_each(RunningCdf::advance);
                }
                joint_at(all)
            }),
        })
    }
}

/// `sum_i P(joint = i) · prefix[fitting(i)]` over the joint's points `0..upto`, clamped to
/// `[0, 1]`, where `joint(i)` is the joint CDF at point `i` (called once per point, in
/// order): the point masses are the CDF's increments, clamped at 0 against round-off.
#[inline(always)]
fn sum_joint(
    upto: usize,
    prefix: &[f64],
    fitting: impl Fn(usize) -> usize,
    mut joint: impl FnMut(usize) -> f64,
) -> f64 {
    let mut p = 0.0;
    let mut prev = 0.0f64;
    for i in 0..upto {
        let f = joint(i);
        let pa = (f - prev).max(0.0);
        prev = prev.max(f);
        // A point without mass adds a zero (`pa` is +0 or -0, the prefix sums are finite and
        // non-negative), which leaves `p >= +0` as it is: bit for bit the sum that skips
        // those points, without a branch that the points' pattern makes hard to predict.
        p += pa * prefix[fitting(i)];
    }
    p.clamp(0.0, 1.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::convolution::prob_sum_at_most;
    use crate::grid::max_of_independent;
    use crate::grid::tests::{arb_dist, arb_predecessors};
    use proptest::prelude::*;

    /// The plain definition: build the joint, then the one-pass sum.
    fn plain(dists: &[&GridDist], b: &GridDist, t: f64) -> Result<f64> {
        prob_sum_at_most(&max_of_independent(dists)?, b, t)
    }

    #[test]
    fn same_errors_as_the_plain_definition() {
        let a = GridDist::dirac(0.0, 1.0).unwrap();
        let half = GridDist::dirac(0.5, 1.0).unwrap();
        let coarse = GridDist::dirac(0.0, 2.0).unwrap();
        assert!(matches!(
            prob_max_plus_at_most(&[], &a, 1.0),
            Err(StatsError::Empty { .. })
        ));
        assert!(prob_max_plus_at_most(&[&a, &half], &a, 1.0).is_err());
        assert!(prob_max_plus_at_most(&[&a], &coarse, 1.0).is_err());
        assert!(prob_max_plus_at_most(&[&a], &a, f64::NAN).is_err());
        assert!(plain(&[&a, &half], &a, 1.0).is_err());
        assert!(plain(&[&a], &coarse, 1.0).is_err());
        assert!(plain(&[&a], &a, f64::NAN).is_err());
        let table = SumTable::new(&a);
        assert!(table.prob_point_plus_at_most(f64::INFINITY, 1.0).is_err());
        assert!(table.prob_point_plus_at_most(0.0, f64::NAN).is_err());
        // A bound before every sum: probability 0 on both sides.
        assert_eq!(prob_max_plus_at_most(&[&a], &a, -1.0).unwrap(), 0.0);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        // Bit for bit the plain definition, for one to four predecessors (defective ones
        // included), any bound from before the first sum to beyond the last.
        #[test]
        fn equals_prob_sum_at_most_of_the_joint_bit_for_bit(
            scaled in arb_predecessors(),
            b in arb_dist(20),
            t in -120.0f64..160.0,
        ) {
            let refs: Vec<&GridDist> = scaled.iter().collect();
            let t = t.floor();
            let fast = prob_max_plus_at_most(&refs, &b, t).unwrap();
            let slow = plain(&refs, &b, t).unwrap();
            prop_assert_eq!(fast.to_bits(), slow.to_bits());
            let table = SumTable::new(&b);
            let tabled = table.prob_max_plus_at_most(&refs, t).unwrap();
            prop_assert_eq!(tabled.to_bits(), slow.to_bits());
            // A table continuing the sums another one built (to any length) sums the same.
            let partial = SumTable::new(&b);
            let _ = partial.prob_point_plus_at_most(0.0, t / 2.0);
            let reused = SumTable::with_sums(&b, partial.into_sums());
            let again = reused.prob_max_plus_at_most(&refs, t).unwrap();
            prop_assert_eq!(again.to_bits(), slow.to_bits());
        }

        // A point plus `B` from the table is bit for bit `prob_sum_at_most` of the point.
        #[test]
        fn point_plus_equals_prob_sum_at_most_bit_for_bit(
            b in arb_dist(40),
            x in -60i32..60,
            t in -120.0f64..160.0,
        ) {
            let t = t.floor();
            let point = GridDist::dirac(x as f64, b.step()).unwrap();
            let slow = prob_sum_at_most(&point, &b, t).unwrap();
            let fast = SumTable::new(&b).prob_point_plus_at_most(x as f64, t).unwrap();
            prop_assert_eq!(fast.to_bits(), slow.to_bits());
        }
    }
}
