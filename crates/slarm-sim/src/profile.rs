//! Availability profile: free processors over time as a step function, with earliest-fit
//! queries. Shared by EASY (shadow time), conservative backfilling (one reservation per
//! queued job) and the heuristic planning schedulers of `slarm-overbook` (Birkenheuer 2012),
//! which use a *planning* profile ([`Profile::planning`]): free counts may go negative (an
//! overbooked plan), every reservation boundary stays a breakpoint (the planner's candidate
//! starts, the planned start and end times of Birkenheuer 2012 §3.1, Listing 3.1), and
//! [`Profile::gaps`], [`Profile::earliest_fit_until`], [`Profile::free_until`] and
//! [`Profile::first_negative`] answer its queries.
//!
//! The profile starts at an origin time and extends to infinity; every reservation is a
//! rectangle `[start, end) x procs`. Breakpoints live in a sorted vector, so queries are a
//! linear scan over the (few) breakpoints after the query time. Integer seconds below 2^53
//! are exact in `f64`, so a caller on an integer clock gets exact answers.
//!
//! ```
//! use slarm_sim::profile::Profile;
//!
//! let mut p = Profile::new(10, 0.0)?;
//! p.reserve(0.0, 100.0, 6)?;            // a running job until t = 100
//! assert_eq!(p.free_at(50.0), 4);
//! assert_eq!(p.earliest_fit(0.0, 4, 500.0)?, 0.0);
//! assert_eq!(p.earliest_fit(0.0, 5, 10.0)?, 100.0);
//! p.reserve(100.0, 200.0, 10)?;
//! assert_eq!(p.earliest_fit(0.0, 5, 150.0)?, 200.0); // the 4-wide gap is too narrow
//! # Ok::<(), slarm_sim::SimError>(())
//! ```

use crate::error::{check_capacity, check_time, Result, SimError};

/// Free processors from `time` until the next breakpoint.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Step {
    /// Start of the step.
    pub time: f64,
    /// Free processors during the step.
    pub free: i64,
}

/// A step function of free processors over `[origin, inf)`.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Profile {
    capacity: u32,
    steps: Vec<Step>,
    /// Planning profile: unchecked bookings, every reservation boundary kept.
    #[cfg_attr(feature = "serde", serde(default))]
    planning: bool,
}

impl Profile {
    /// An empty profile (all `capacity` processors free) from `origin` on.
    pub fn new(capacity: u32, origin: f64) -> Result<Self> {
        check_time("profile origin", origin)?;
        check_capacity(capacity)?;
        Ok(Self {
            capacity,
            steps: vec![Step {
                time: origin,
                free: i64::from(capacity),
            }],
            planning: false,
        })
    }

    /// A planning profile with `capacity` free nodes from `origin` on (`capacity` may be 0,
    /// e.g. every node is down). Unlike [`Profile::new`], [`Profile::book`] may drive free
    /// counts negative (an overbooked plan, Birkenheuer 2012) and every reservation boundary stays
    /// a breakpoint even where the free count does not change, because the planner's candidate
    /// starts are the start and end times of reservations (Birkenheuer 2012 §3.1, Listing 3.1): see
    /// [`Profile::gaps`].
    ///
    /// ```
    /// use slarm_sim::profile::Profile;
    ///
    /// let mut p = Profile::planning(4, 0.0)?;
    /// p.book(0.0, 10.0, 2)?;
    /// p.book(10.0, 20.0, 2)?; // same free count on both sides of t = 10: kept as a start
    /// assert_eq!(p.gaps(0.0, 50.0, 2), vec![(0.0, 50.0), (10.0, 50.0), (20.0, 50.0)]);
    /// p.book(5.0, 15.0, 3)?;  // overbooked: -1 free on [5, 10)
    /// assert_eq!(p.first_negative(), Some(5.0));
    /// assert_eq!(p.free_until(0.0, 2), 5.0);
    /// assert_eq!(p.earliest_fit_until(0.0, 2, 10.0, 100.0), Some(15.0));
    /// # Ok::<(), slarm_sim::SimError>(())
    /// ```
    pub fn planning(capacity: u32, origin: f64) -> Result<Self> {
        check_time("profile origin", origin)?;
        Ok(Self {
            capacity,
            steps: vec![Step {
                time: origin,
                free: i64::from(capacity),
            }],
            planning: true,
        })
    }

    /// Machine size.
    pub fn capacity(&self) -> u32 {
        self.capacity
    }

    /// Start of the profile.
    pub fn origin(&self) -> f64 {
        self.steps[0].time
    }

    /// The breakpoints (sorted; adjacent steps have different free counts, except in a
    /// planning profile, which keeps every reservation boundary).
    pub fn steps(&self) -> &[Step] {
        &self.steps
    }

    /// Index of the step containing `t` (the first step if `t` is before the origin).
    fn step_index(&self, t: f64) -> usize {
        // partition_point: number of steps with time <= t.
        self.steps
            .partition_point(|s| s.time <= t)
            .saturating_sub(1)
    }

    /// Free processors at time `t`.
    pub fn free_at(&self, t: f64) -> i64 {
        self.steps[self.step_index(t)].free
    }

    /// Minimum free processors over `[start, end)`.
    pub fn min_free(&self, start: f64, end: f64) -> i64 {
        let mut i = self.step_index(start);
        let mut m = self.steps[i].free;
        i += 1;
        while i < self.steps.len() && self.steps[i].time < end {
            m = m.min(self.steps[i].free);
            i += 1;
        }
        m
    }

    /// Maximum free processors over `[start, end)`.
    fn max_free(&self, start: f64, end: f64) -> i64 {
        let mut i = self.step_index(start);
        let mut m = self.steps[i].free;
        i += 1;
        while i < self.steps.len() && self.steps[i].time < end {
            m = m.max(self.steps[i].free);
            i += 1;
        }
        m
    }

    /// Ensures a breakpoint exists exactly at `t` (t >= origin) and returns its index.
    fn split_at(&mut self, t: f64) -> usize {
        let i = self.step_index(t);
        if self.steps[i].time == t {
            return i;
        }
        let free = self.steps[i].free;
        self.steps.insert(i + 1, Step { time: t, free });
        i + 1
    }

    fn add(&mut self, start: f64, end: f64, delta: i64) -> Result<()> {
        check_time("interval start", start)?;
        check_time("interval end", end)?;
        let start = start.max(self.origin());
        if end <= start {
            return Ok(());
        }
        let a = self.split_at(start);
        let b = self.split_at(end);
        for s in &mut self.steps[a..b] {
            s.free += delta;
        }
        if self.planning {
            return Ok(());
        }
        // Merge equal neighbours around the touched range, in place.
        let lo = a.saturating_sub(1);
        let hi = (b + 1).min(self.steps.len());
        let mut write = lo + 1;
        for read in lo + 1..hi {
            if self.steps[read].free != self.steps[write - 1].free {
                self.steps[write] = self.steps[read];
                write += 1;
            }
        }
        self.steps.drain(write..hi);
        Ok(())
    }

    /// Takes `procs` processors over `[start, end)`. Errors (leaving the profile unchanged)
    /// if that would over-allocate at any instant.
    pub fn reserve(&mut self, start: f64, end: f64, procs: u32) -> Result<()> {
        check_time("interval start", start)?;
        check_time("interval end", end)?;
        let free = self.min_free(start.max(self.origin()), end);
        if free < i64::from(procs) {
            return Err(SimError::OverAllocation {
                start,
                end,
                procs,
                free,
            });
        }
        self.add(start, end, -i64::from(procs))
    }

    /// Gives back `procs` processors over `[start, end)` (the inverse of [`Profile::reserve`]).
    /// Errors (leaving the profile unchanged) if that would free more processors than the
    /// machine has at any instant, i.e. give back what was never reserved.
    pub fn release(&mut self, start: f64, end: f64, procs: u32) -> Result<()> {
        check_time("interval start", start)?;
        check_time("interval end", end)?;
        let from = start.max(self.origin());
        if end > from && self.max_free(from, end) + i64::from(procs) > i64::from(self.capacity) {
            return Err(SimError::InvalidParameter {
                name: "released processors",
                value: procs.to_string(),
                reason: "more than are reserved over the interval",
            });
        }
        self.add(start, end, i64::from(procs))
    }

    /// The earliest `t >= after` with at least `procs` free processors throughout
    /// `[t, t + duration)`. Errors if `procs` exceeds the machine.
    pub fn earliest_fit(&self, after: f64, procs: u32, duration: f64) -> Result<f64> {
        check_time("query time", after)?;
        check_time("duration", duration)?;
        if procs > self.capacity {
            return Err(SimError::OverAllocation {
                start: after,
                end: after + duration,
                procs,
                free: i64::from(self.capacity),
            });
        }
        self.earliest_fit_until(after, i64::from(procs), duration, f64::INFINITY)
            // Unreachable when every reservation is finite (the last step is the whole
            // machine); kept as a typed error rather than a panic.
            .ok_or(SimError::OverAllocation {
                start: after,
                end: after + duration,
                procs,
                free: self.steps[self.steps.len() - 1].free,
            })
    }

    /// The earliest `t` in `[after, latest]` with at least `need` free processors throughout
    /// `[t, t + duration)`, or `None` (one sweep over the steps; no capacity check, so it
    /// also answers on a planning profile).
    pub fn earliest_fit_until(
        &self,
        after: f64,
        need: i64,
        duration: f64,
        latest: f64,
    ) -> Option<f64> {
        let n = self.steps.len();
        let mut k = self.step_index(after);
        let mut cand = after.max(self.steps[k].time);
        loop {
            if cand > latest {
                return None;
            }
            let seg_end = self.steps.get(k + 1).map_or(f64::INFINITY, |s| s.time);
            if self.steps[k].free < need {
                cand = seg_end;
            } else if cand + duration <= seg_end {
                return Some(cand);
            }
            k += 1;
            if k >= n {
                return None;
            }
        }
    }

    /// The first time at or after `t` at which fewer than `need` processors are free
    /// (infinity if never).
    pub fn free_until(&self, t: f64, need: i64) -> f64 {
        self.steps[self.step_index(t)..]
            .iter()
            .find(|s| s.free < need)
            .map_or(f64::INFINITY, |s| s.time.max(t))
    }

    /// Candidate gaps for `need` processors starting in `[from, until)`, in time order: the
    /// starts are `from` and every later breakpoint with at least `need` free; each gap ends
    /// at the first later time with fewer free, capped at `until` (Birkenheuer 2012 §3.1, Listing
    /// 3.1; with a planning profile every reservation boundary is a breakpoint).
    pub fn gaps(&self, from: f64, until: f64, need: i64) -> Vec<(f64, f64)> {
        let n = self.steps.len();
        let k0 = self.step_index(from);
        let mut out = Vec::new();
        // Index of the first step at or after the current one with too few free (n if none).
        let mut block = k0;
        for k in k0..n {
            let step = self.steps[k];
            let start = step.time.max(from);
            if start >= until {
                break;
            }
            if step.free < need {
                continue;
            }
            if block <= k {
                block = k + 1;
                while block < n && self.steps[block].free >= need {
                    block += 1;
                }
            }
            let end = self
                .steps
                .get(block)
                .map_or(f64::INFINITY, |s| s.time)
                .min(until);
            if end > start {
                out.push((start, end));
            }
        }
        out
    }

    /// The first breakpoint with a negative free count (an over-committed plan), if any.
    pub fn first_negative(&self) -> Option<f64> {
        self.steps.iter().find(|s| s.free < 0).map(|s| s.time)
    }

    /// Takes `procs` processors over `[start, end)` (gives them back if `procs` is negative)
    /// without any capacity check: a planning profile may be overbooked.
    pub fn book(&mut self, start: f64, end: f64, procs: i64) -> Result<()> {
        self.add(start, end, -procs)
    }

    /// The earliest start `t` in `[after, before)` for a job of `procs` processors and
    /// `duration` that currently holds the reservation `[before, before + duration)` of the
    /// same size: the job's own reservation counts as free. `None` when no start earlier
    /// than `before` is feasible. Used by conservative backfilling's compression, which
    /// only moves a reservation when this finds an earlier slot.
    ///
    /// A sweep over the segments between consecutive breakpoints, with `before` and the
    /// reservation's end as extra (virtual) breakpoints; the profile is not changed.
    pub fn earlier_fit_than(
        &self,
        after: f64,
        before: f64,
        procs: u32,
        duration: f64,
    ) -> Option<f64> {
        let need = i64::from(procs);
        let own_end = before + duration;
        if before <= self.origin() || !before.is_finite() || !own_end.is_finite() {
            return None;
        }
        let own = |x: f64| if before <= x && x < own_end { need } else { 0 };
        let n = self.steps.len();
        let mut k = self.step_index(after);
        let mut x = after.max(self.origin());
        if x >= before {
            return None;
        }
        let mut cand = x;
        loop {
            // The segment [x, next): inside step k, split at `before` and `own_end`.
            let mut next = self.steps.get(k + 1).map_or(f64::INFINITY, |s| s.time);
            for virt in [before, own_end] {
                if x < virt && virt < next {
                    next = virt;
                }
            }
            if self.steps[k].free + own(x) < need {
                cand = next;
                if cand >= before {
                    return None;
                }
            } else if cand + duration <= next {
                return Some(cand);
            }
            if !next.is_finite() {
                return None;
            }
            x = next;
            if k + 1 < n && self.steps[k + 1].time <= x {
                k += 1;
            }
        }
    }

    /// Forgets everything before `now` (moves the origin forward), keeping queries fast.
    pub fn advance(&mut self, now: f64) {
        if now <= self.origin() {
            return;
        }
        let i = self.step_index(now);
        if i > 0 {
            self.steps.drain(..i);
        }
        self.steps[0].time = now;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn reserve_release_round_trip_and_over_allocation() {
        let mut p = Profile::new(8, 0.0).unwrap();
        p.reserve(10.0, 20.0, 5).unwrap();
        assert!(matches!(
            p.reserve(15.0, 30.0, 4),
            Err(SimError::OverAllocation { free: 3, .. })
        ));
        // Found by crates/slarm/tests/robustness: giving back what was never reserved
        // made free exceed the capacity.
        assert!(p.release(0.0, 30.0, 5).is_err());
        assert!(p.release(12.0, 18.0, 6).is_err());
        p.release(10.0, 20.0, 5).unwrap();
        assert_eq!(p.steps().len(), 1);
        assert!(p.earliest_fit(0.0, 9, 1.0).is_err());
        assert!(Profile::new(0, 0.0).is_err());
        p.reserve(0.0, 5.0, 8).unwrap();
        p.advance(3.0);
        assert_eq!(p.origin(), 3.0);
        assert_eq!(p.free_at(3.0), 0);
        assert_eq!(p.earliest_fit(0.0, 1, 1.0).unwrap(), 5.0);
    }

    /// The heuristic planner's queries (Birkenheuer 2012 §3.3.2; moved from `slarm-overbook`).
    #[test]
    fn planning_profile_gaps_and_fits() {
        let mut p = Profile::planning(10, 0.0).unwrap();
        p.book(0.0, 100.0, 6).unwrap(); // 4 free on [0,100)
        p.book(50.0, 200.0, 4).unwrap(); // 0 free on [50,100), 6 free on [100,200)
        assert_eq!(p.free_at(0.0), 4);
        assert_eq!(p.free_at(60.0), 0);
        assert_eq!(p.free_at(150.0), 6);
        assert_eq!(p.free_at(300.0), 10);
        let g = p.gaps(0.0, 1000.0, 4);
        assert_eq!(&g[..2], &[(0.0, 50.0), (100.0, 1000.0)]);
        assert_eq!(p.earliest_fit_until(0.0, 4, 40.0, 1000.0), Some(0.0));
        assert_eq!(p.earliest_fit_until(0.0, 4, 60.0, 1000.0), Some(100.0));
        assert_eq!(p.earliest_fit_until(0.0, 8, 60.0, 1000.0), Some(200.0));
        assert_eq!(p.earliest_fit_until(0.0, 8, 60.0, 150.0), None);
        assert_eq!(p.earliest_fit_until(0.0, 11, 1.0, f64::INFINITY), None);
        p.book(50.0, 200.0, -4).unwrap();
        assert_eq!(p.free_at(60.0), 4);
        assert_eq!(p.free_until(0.0, 5), 0.0);
        assert_eq!(p.free_until(100.0, 5), f64::INFINITY);
        // The released booking's boundaries stay candidate starts (Birkenheuer 2012, Listing 3.1).
        assert_eq!(
            p.gaps(0.0, 1000.0, 4),
            vec![
                (0.0, 1000.0),
                (50.0, 1000.0),
                (100.0, 1000.0),
                (200.0, 1000.0)
            ]
        );
        assert_eq!(p.first_negative(), None);
        p.book(10.0, 20.0, 5).unwrap();
        assert_eq!(p.first_negative(), Some(10.0));
        assert!(Profile::planning(0, 0.0).is_ok());
        assert!(Profile::planning(1, f64::NAN).is_err());
    }

    proptest! {
        /// `earlier_fit_than` equals the earliest fit in the profile with the job's own
        /// reservation released, whenever that is earlier than the reservation.
        #[test]
        fn earlier_fit_than_matches_release_and_refit(
            rects in proptest::collection::vec((0u32..50, 1u32..30, 1u32..6), 0..25),
            after in 0u32..60, procs in 1u32..8, dur in 1u32..40, at in 0u32..80,
        ) {
            let mut p = Profile::new(8, 0.0).unwrap();
            for (s, d, k) in rects {
                let _ = p.reserve(f64::from(s), f64::from(s + d), k);
            }
            let (after, dur) = (f64::from(after), f64::from(dur));
            let Ok(before) = p.earliest_fit(f64::from(at), procs, dur) else { return Ok(()) };
            p.reserve(before, before + dur, procs).unwrap();
            let got = p.earlier_fit_than(after, before, procs, dur);
            let mut freed = p.clone();
            freed.release(before, before + dur, procs).unwrap();
            let refit = freed.earliest_fit(after, procs, dur).unwrap();
            let want = (refit < before && before > 0.0).then_some(refit);
            prop_assert_eq!(got, want);
        }

        /// Earliest fit returns a feasible slot, and no earlier breakpoint (or the query
        /// time) is feasible: the defining property of the query.
        #[test]
        fn earliest_fit_is_feasible_and_earliest(
            rects in proptest::collection::vec((0u32..50, 1u32..30, 1u32..6), 0..25),
            after in 0u32..60, procs in 1u32..8, dur in 1u32..40,
        ) {
            let mut p = Profile::new(8, 0.0).unwrap();
            for (s, d, k) in rects {
                let (s, e) = (f64::from(s), f64::from(s + d));
                let _ = p.reserve(s, e, k); // infeasible ones are refused, profile unchanged
            }
            prop_assert!(p.steps().iter().all(|s| s.free >= 0 && s.free <= 8));
            let (after, dur) = (f64::from(after), f64::from(dur));
            let t = p.earliest_fit(after, procs, dur).unwrap();
            prop_assert!(t >= after);
            prop_assert!(p.min_free(t, t + dur) >= i64::from(procs));
            let mut cands: Vec<f64> = p.steps().iter().map(|s| s.time).filter(|&x| x >= after && x < t).collect();
            cands.push(after);
            for c in cands {
                if c < t {
                    prop_assert!(p.min_free(c, c + dur) < i64::from(procs));
                }
            }
        }
    }
}
