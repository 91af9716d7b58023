//! Free-node-count step profile with a gap finder (heuristic plan, part 1 §4.2).

use crate::job::Time;
use crate::plan::Slot;

/// Free nodes over time as a step function: `free(t) = steps[k].1` on `[steps[k].0,
/// steps[k+1].0)`, the last step extending to infinity. Before the first step the capacity
/// of the first step applies.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Profile {
    steps: Vec<(Time, i64)>,
}

impl Profile {
    /// A profile with `capacity` free nodes from `origin` on.
    pub fn new(origin: Time, capacity: i64) -> Self {
        Self {
            steps: vec![(origin, capacity)],
        }
    }

    fn split(&mut self, t: Time) -> usize {
        match self.steps.binary_search_by_key(&t, |s| s.0) {
            Ok(i) => i,
            Err(0) => {
                let f = self.steps[0].1;
                self.steps.insert(0, (t, f));
                0
            }
            Err(i) => {
                let f = self.steps[i - 1].1;
                self.steps.insert(i, (t, f));
                i
            }
        }
    }

    /// Occupies `nodes` on `[start, end)` (negative `nodes` releases).
    pub fn reserve(&mut self, start: Time, end: Time, nodes: i64) {
        if end <= start {
            return;
        }
        let i = self.split(start);
        let j = self.split(end);
        for s in &mut self.steps[i..j] {
            s.1 -= nodes;
        }
    }

    /// Free nodes at `t`.
    pub fn free_at(&self, t: Time) -> i64 {
        match self.steps.binary_search_by_key(&t, |s| s.0) {
            Ok(i) => self.steps[i].1,
            Err(0) => self.steps[0].1,
            Err(i) => self.steps[i - 1].1,
        }
    }

    /// Candidate slots for `nodes` nodes starting in `[from, deadline)`, in time order: starts
    /// are `from` and every later step time with enough free nodes (part 1 §8 A3); the end is
    /// the first later time with fewer free nodes, capped at `deadline` (A4).
    pub fn slots(&self, from: Time, deadline: Time, nodes: i64) -> Vec<Slot> {
        let k0 = match self.steps.binary_search_by_key(&from, |s| s.0) {
            Ok(i) => i,
            Err(0) => 0,
            Err(i) => i - 1,
        };
        // next_block[k]: start time of the first step >= k with free < nodes (or None).
        let m = self.steps.len();
        let mut next_block: Vec<Option<Time>> = vec![None; m + 1];
        for k in (k0..m).rev() {
            next_block[k] = if self.steps[k].1 < nodes {
                Some(self.steps[k].0.max(from))
            } else {
                next_block[k + 1]
            };
        }
        let mut out = Vec::new();
        for (step, block) in self.steps[k0..].iter().zip(&next_block[k0..m]) {
            let start = step.0.max(from);
            if start >= deadline {
                break;
            }
            if step.1 < nodes {
                continue;
            }
            let end = block.unwrap_or(Time::MAX).min(deadline);
            if end > start {
                out.push(Slot {
                    start,
                    end,
                    nodes: Vec::new(),
                });
            }
        }
        out
    }

    /// Earliest start `s` in `[from, latest]` such that `nodes` nodes are free on `[s, s+len)`
    /// (one linear sweep over the steps).
    pub fn earliest_fit(&self, from: Time, len: Time, nodes: i64, latest: Time) -> Option<Time> {
        let mut k = match self.steps.binary_search_by_key(&from, |s| s.0) {
            Ok(i) => i,
            Err(0) => 0,
            Err(i) => i - 1,
        };
        let m = self.steps.len();
        let mut c = from;
        while k < m {
            let seg_end = self.steps.get(k + 1).map(|s| s.0).unwrap_or(Time::MAX);
            if self.steps[k].1 < nodes {
                c = seg_end;
            } else if seg_end.saturating_sub(c) >= len {
                return (c <= latest).then_some(c);
            }
            if c > latest {
                return None;
            }
            k += 1;
        }
        None
    }

    /// First time after `t` at which fewer than `nodes` nodes are free (`Time::MAX` if never).
    pub fn free_until(&self, t: Time, nodes: i64) -> Time {
        let k0 = match self.steps.binary_search_by_key(&t, |s| s.0) {
            Ok(i) => i,
            Err(0) => 0,
            Err(i) => i - 1,
        };
        for s in &self.steps[k0..] {
            if s.1 < nodes {
                return s.0.max(t);
            }
        }
        Time::MAX
    }

    /// The first step time with a negative free count (an over-committed plan), if any.
    pub fn first_negative(&self) -> Option<Time> {
        self.steps.iter().find(|s| s.1 < 0).map(|s| s.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gaps_and_fits() {
        let mut p = Profile::new(0, 10);
        p.reserve(0, 100, 6); // 4 free on [0,100)
        p.reserve(50, 200, 4); // 0 free on [50,100), 6 free on [100,200)
        assert_eq!(p.free_at(0), 4);
        assert_eq!(p.free_at(60), 0);
        assert_eq!(p.free_at(150), 6);
        assert_eq!(p.free_at(300), 10);
        let s = p.slots(0, 1000, 4);
        assert_eq!(s[0].start, 0);
        assert_eq!(s[0].end, 50);
        assert_eq!(s[1].start, 100);
        assert_eq!(s[1].end, 1000);
        assert_eq!(p.earliest_fit(0, 40, 4, 1000), Some(0));
        assert_eq!(p.earliest_fit(0, 60, 4, 1000), Some(100));
        assert_eq!(p.earliest_fit(0, 60, 8, 1000), Some(200));
        assert_eq!(p.earliest_fit(0, 60, 8, 150), None);
        p.reserve(50, 200, -4);
        assert_eq!(p.free_at(60), 4);
        assert_eq!(p.free_until(0, 5), 0);
        assert_eq!(p.free_until(100, 5), Time::MAX);
    }
}
