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

use std::cmp::Reverse;
use std::collections::BinaryHeap;

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
    /// The best free nodes found so far by [`Self::choose`], worst on top, reused between
    /// choices.
    best: BinaryHeap<(Reverse<Time>, Time, usize)>,
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
            best: BinaryHeap::new(),
        };
        // Every usable node starts at its first reservation and catches up in the first
        // count or choice (pruned plans keep few reservations that ended before `t`, so the
        // linear catch-up costs less than a binary search per node here).
        for n in 0..nodes {
            if usable.get(n).copied().unwrap_or(false) {
                s.set(n, 0);
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

    /// Brings the nodes of `range` to the sweep's time. The test for a node to catch up is a
    /// branch-free pass over the block (most nodes have nothing to do at a given start), so
    /// only blocks with such a node pay for the per-node loop.
    #[inline]
    fn catch_up_block(&mut self, range: std::ops::Range<usize>) {
        let t = self.t;
        let behind = self.next_end[range.clone()]
            .iter()
            .fold(false, |any, &e| any | (e <= t));
        if behind {
            for n in range {
                self.catch_up(n);
            }
        }
    }

    /// [`NodePlan::fits`] at the sweep's time: at least `count > 0` usable nodes free from
    /// now to `until`.
    pub fn fits(&mut self, count: usize, until: Time) -> bool {
        if count == 0 {
            return false;
        }
        // Free now and next reserved at or after `until`, i.e. next start at or after
        // `max(until, t + 1)`; a node that is not usable has `Time::MIN` and never counts.
        // Counted block by block without a branch per node (the count vectorises), stopping
        // after the block where the answer is known; the nodes not reached catch up later.
        let bound = until.max(self.t.saturating_add(1));
        let nodes = self.next_start.len();
        let mut free_long = 0;
        let mut lo = 0;
        while lo < nodes {
            let hi = (lo + BLOCK).min(nodes);
            self.catch_up_block(lo..hi);
            free_long += self.next_start[lo..hi]
                .iter()
                .map(|&next| usize::from(next >= bound))
                .sum::<usize>();
            if free_long >= count {
                return true;
            }
            if free_long + (nodes - hi) < count {
                return false;
            }
            lo = hi;
        }
        false
    }

    /// [`NodePlan::choose`] at the sweep's time.
    ///
    /// The order in which [`NodePlan::choose`] ranks free nodes is total (the node index
    /// breaks ties), so the `count` best free nodes are one set however they are found. A job
    /// asking for few of many nodes keeps them in a bounded heap during the pass instead of
    /// collecting every free node and selecting among them (the selection was 17 % of a
    /// 1,664-node cell); a job asking for many takes the selection `NodePlan::choose` makes,
    /// which a heap of its size would not beat.
    pub fn choose(&mut self, count: usize, deadline: Time) -> Option<Slot> {
        let nodes = self.next_start.len();
        if count == 0 || count > nodes {
            return None;
        }
        if count.saturating_mul(HEAP_SHARE) > nodes {
            return self.choose_by_selection(count, deadline);
        }
        let t = self.t;
        let mut free = 0usize;
        self.best.clear();
        let mut lo = 0;
        while lo < nodes {
            let hi = (lo + BLOCK).min(nodes);
            self.catch_up_block(lo..hi);
            for n in lo..hi {
                let next = self.next_start[n];
                if next <= t {
                    continue;
                }
                free += 1;
                // Smaller is better: latest next reservation, earliest previous end, lowest
                // index (the order of `best_slot`).
                let rank = (Reverse(next), self.prev_end[n], n);
                if self.best.len() < count {
                    self.best.push(rank);
                } else if let Some(mut worst) = self.best.peek_mut() {
                    if rank < *worst {
                        *worst = rank;
                    }
                }
            }
            lo = hi;
        }
        if free < count {
            return None;
        }
        // The worst kept node has the earliest next reservation of the chosen ones.
        let end = self
            .best
            .peek()
            .map_or(Time::MAX, |&(Reverse(next), _, _)| next)
            .min(deadline);
        let mut chosen: Vec<usize> = self.best.iter().map(|&(_, _, n)| n).collect();
        chosen.sort_unstable();
        Some(Slot {
            start: t,
            end,
            nodes: chosen,
        })
    }

    /// [`Self::choose`] by collecting every free node and selecting with [`best_slot`].
    fn choose_by_selection(&mut self, count: usize, deadline: Time) -> Option<Slot> {
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

/// Nodes per block of the branch-free catch-up test and count.
const BLOCK: usize = 64;

/// [`NodeSweep::choose`] keeps the best nodes in a heap when they are at most one in
/// `HEAP_SHARE` of the plan's nodes.
const HEAP_SHARE: usize = 4;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::nodes::tests::{arb_plan, arb_plan_of};
    use proptest::prelude::*;

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

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]

        // The same over plans of several blocks of nodes, with counts on both sides of the
        // heap's share, choices and counts interleaved in any order.
        #[test]
        fn sweep_over_several_blocks_chooses_what_choose_chooses(
            (plan, usable) in arb_plan_of(200),
            from in 0i64..40,
            steps in prop::collection::vec((0i64..25, any::<bool>()), 1..20),
            count in 0usize..120,
            len in 0i64..60,
            deadline in 0i64..250,
        ) {
            let mut sweep = NodeSweep::new(&plan, &usable, from);
            let mut t = from;
            for (dt, fits_first) in steps {
                t += dt;
                sweep.advance_to(t);
                if fits_first {
                    prop_assert_eq!(sweep.fits(count, t + len), plan.fits(t, count, t + len, &usable));
                }
                prop_assert_eq!(
                    sweep.choose(count, deadline),
                    plan.choose(t, count, deadline, &usable)
                );
            }
        }
    }
}
