//! The node plan seen from a time that only moves forward: the candidate starts of one
//! negotiation, in increasing order.
//!
//! [`NodePlan::choose`] binary-searches every node's timeline at every candidate start. A
//! [`NodeSweep`] keeps, per node and in flat arrays, the reservation that is current or next at
//! its time `t` (the first one ending after `t`): its start and end, and the end of the one
//! before. Moving to a later start only advances the nodes whose current reservation has
//! ended, in the same single pass over the arrays that counts or chooses nodes. The choice is
//! [`NodePlan::choose`]'s at every start (proptest), given the plan's invariant that a node's
//! reservations do not overlap.

use crate::job::Time;
use crate::plan::nodes::best_slot;
use crate::plan::{NodePlan, NodeReservation, Slot};

/// Per-node state of a node plan at a time `t` that only increases.
#[derive(Debug, Clone)]
pub struct NodeSweep<'a> {
    timelines: Vec<&'a [NodeReservation]>,
    /// The sweep's time.
    t: Time,
    /// Per node: index of the first reservation ending after `t`.
    cursor: Vec<usize>,
    /// Per node: start of that reservation (`Time::MAX` if none; `Time::MIN` for a node that
    /// is not usable, so that it is never free).
    next_start: Vec<Time>,
    /// Per node: end of that reservation (`Time::MAX` if none or not usable: never advanced).
    next_end: Vec<Time>,
    /// Per node: end of the reservation before it (`Time::MIN` if none).
    prev_end: Vec<Time>,
    /// Free nodes at `t` as (next start, previous end, node), reused between choices.
    free: Vec<(Time, Time, usize)>,
}

impl<'a> NodeSweep<'a> {
    /// The sweep of `plan` at time `t`, with the nodes marked `true` in `usable` (the others
    /// are never free).
    pub fn new(plan: &'a NodePlan, usable: &[bool], t: Time) -> Self {
        let nodes = plan.nodes();
        let mut s = Self {
            timelines: (0..nodes).map(|n| plan.timeline(n)).collect(),
            t,
            cursor: vec![0; nodes],
            next_start: vec![Time::MIN; nodes],
            next_end: vec![Time::MAX; nodes],
            prev_end: vec![Time::MIN; nodes],
            free: Vec::new(),
        };
        for n in 0..nodes {
            if usable.get(n).copied().unwrap_or(false) {
                let k = s.timelines[n].partition_point(|r| r.end <= t);
                s.set(n, k);
            }
        }
        s
    }

    /// The sweep's time.
    pub fn time(&self) -> Time {
        self.t
    }

    /// Points node `n` at reservation `k` of its timeline.
    fn set(&mut self, n: usize, k: usize) {
        let tl = self.timelines[n];
        self.cursor[n] = k;
        (self.next_start[n], self.next_end[n]) = match tl.get(k) {
            Some(r) => (r.start, r.end),
            None => (Time::MAX, Time::MAX),
        };
        self.prev_end[n] = match k.checked_sub(1).and_then(|j| tl.get(j)) {
            Some(r) => r.end,
            None => Time::MIN,
        };
    }

    /// Moves the sweep to `t`; an earlier `t` leaves it where it is. The nodes catch up in
    /// the next [`Self::fits`] or [`Self::choose`], in the same pass over the arrays.
    pub fn advance_to(&mut self, t: Time) {
        self.t = self.t.max(t);
    }

    /// Brings node `n` to the sweep's time if its current reservation has ended.
    #[inline]
    fn catch_up(&mut self, n: usize) {
        if self.next_end[n] <= self.t {
            let t = self.t;
            let tl = self.timelines[n];
            let mut k = self.cursor[n];
            while tl.get(k).is_some_and(|r| r.end <= t) {
                k += 1;
            }
            self.set(n, k);
        }
    }

    /// [`NodePlan::fits`] at the sweep's time: at least `count > 0` usable nodes free from
    /// now to `until`.
    pub fn fits(&mut self, count: usize, until: Time) -> bool {
        if count == 0 {
            return false;
        }
        // Free now and next reserved at or after `until`; a node that is not usable has
        // `Time::MIN` and never counts.
        // Stops as soon as the answer is known; the nodes not reached catch up later.
        let t = self.t;
        let nodes = self.next_start.len();
        let mut free_long = 0;
        for n in 0..nodes {
            self.catch_up(n);
            let next = self.next_start[n];
            if next > t && next >= until {
                free_long += 1;
                if free_long >= count {
                    return true;
                }
            }
            if free_long + (nodes - 1 - n) < count {
                return false;
            }
        }
        false
    }

    /// [`NodePlan::choose`] at the sweep's time.
    pub fn choose(&mut self, count: usize, deadline: Time) -> Option<Slot> {
        let t = self.t;
        self.free.clear();
        for n in 0..self.next_start.len() {
            self.catch_up(n);
            let next = self.next_start[n];
            if next > t {
                self.free.push((next, self.prev_end[n], n));
            }
        }
        best_slot(&mut self.free, t, count, deadline)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A plan of up to 12 nodes with non-overlapping reservations, and which nodes are usable.
    pub(crate) fn arb_plan() -> impl Strategy<Value = (NodePlan, Vec<bool>)> {
        prop::collection::vec(
            (
                prop::collection::vec((0i64..30, 1i64..40), 0..5),
                prop::bool::weighted(0.85),
            ),
            1..12,
        )
        .prop_map(|nodes| {
            let mut p = NodePlan::new(nodes.len());
            let mut usable = Vec::new();
            for (n, (gaps, up)) in nodes.iter().enumerate() {
                let mut t = 0;
                for (j, &(gap, len)) in gaps.iter().enumerate() {
                    p.reserve(n * 10 + j, &[n], t + gap, t + gap + len);
                    t += gap + len;
                }
                usable.push(*up);
            }
            (p, usable)
        })
    }

    proptest! {
        // Against the plain definition: at every time of an increasing sequence, the sweep
        // chooses what `NodePlan::choose` chooses and `fits` answers what `NodePlan::fits`
        // answers.
        #[test]
        fn sweep_chooses_what_choose_chooses(
            (plan, usable) in arb_plan(),
            from in 0i64..40,
            steps in prop::collection::vec(0i64..25, 1..20),
            count in 0usize..13,
            len in 0i64..60,
            deadline in 0i64..250,
        ) {
            let mut sweep = NodeSweep::new(&plan, &usable, from);
            let mut t = from;
            for dt in steps {
                t += dt;
                sweep.advance_to(t);
                prop_assert_eq!(sweep.time(), t);
                prop_assert_eq!(
                    sweep.choose(count, deadline),
                    plan.choose(t, count, deadline, &usable)
                );
                prop_assert_eq!(sweep.fits(count, t + len), plan.fits(t, count, t + len, &usable));
            }
        }
    }
}
