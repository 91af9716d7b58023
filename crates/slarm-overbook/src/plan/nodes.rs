//! Per-node reservation timelines with gap finder and node selection (comprehensive plan,
//! thesis §3.3.1, Listing 3.1; node choice and candidate starts are our reading, docs/decisions.md).

use std::cmp::Reverse;
use std::collections::{BTreeSet, BinaryHeap};

use crate::job::Time;
use crate::plan::Slot;

/// One reservation on one node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NodeReservation {
    /// Index of the job in the battery.
    pub job: usize,
    /// Start.
    pub start: Time,
    /// End (exclusive): the job's kill time / slot end.
    pub end: Time,
}

/// Reservations of every node, each timeline sorted by start and non-overlapping.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodePlan {
    timelines: Vec<Vec<NodeReservation>>,
}

impl NodePlan {
    /// An empty plan of `nodes` nodes.
    pub fn new(nodes: usize) -> Self {
        Self {
            timelines: vec![Vec::new(); nodes],
        }
    }

    /// Number of nodes.
    pub fn nodes(&self) -> usize {
        self.timelines.len()
    }

    /// Timeline of one node.
    pub fn timeline(&self, node: usize) -> &[NodeReservation] {
        self.timelines
            .get(node)
            .map(|v| v.as_slice())
            .unwrap_or(&[])
    }

    /// Reserves `nodes` for `job` on `[start, end)`.
    pub fn reserve(&mut self, job: usize, nodes: &[usize], start: Time, end: Time) {
        for &n in nodes {
            if let Some(tl) = self.timelines.get_mut(n) {
                let pos = tl.partition_point(|r| r.start < start);
                tl.insert(pos, NodeReservation { job, start, end });
            }
        }
    }

    /// Removes every reservation of `job` on `nodes`.
    pub fn remove(&mut self, job: usize, nodes: &[usize]) {
        for &n in nodes {
            if let Some(tl) = self.timelines.get_mut(n) {
                tl.retain(|r| r.job != job);
            }
        }
    }

    /// Changes the start and end of `job`'s reservations on `nodes` (moving earlier keeps order
    /// because the job was the first reservation on each node).
    pub fn update(&mut self, job: usize, nodes: &[usize], start: Time, end: Time) {
        for &n in nodes {
            if let Some(tl) = self.timelines.get_mut(n) {
                for r in tl.iter_mut().filter(|r| r.job == job) {
                    r.start = start;
                    r.end = end;
                }
                tl.sort_by_key(|r| r.start);
            }
        }
    }

    /// Drops reservations that ended at or before `now`.
    pub fn prune(&mut self, now: Time) {
        for tl in &mut self.timelines {
            let k = tl.iter().take_while(|r| r.end <= now).count();
            if k > 0 {
                tl.drain(..k);
            }
        }
    }

    /// True if `job` holds the first reservation on `node`.
    pub fn is_first(&self, node: usize, job: usize) -> bool {
        self.timeline(node).first().map(|r| r.job) == Some(job)
    }

    /// Candidate starts in `[from, deadline)`: `from` and every reservation end after it.
    pub fn candidate_starts(&self, from: Time, deadline: Time) -> Vec<Time> {
        let mut c: Vec<Time> = self
            .timelines
            .iter()
            .flat_map(|tl| tl.iter().map(|r| r.end))
            .filter(|&e| e > from && e < deadline)
            .collect();
        c.push(from);
        c.sort_unstable();
        c.dedup();
        c
    }

    /// The reservation on `node` that ends last at or before `t` (the predecessor).
    pub fn predecessor(&self, node: usize, t: Time) -> Option<NodeReservation> {
        let tl = self.timeline(node);
        let k = tl.partition_point(|r| r.start < t);
        tl[..k].iter().rev().find(|r| r.end <= t).copied()
    }

    /// The slots of a `count`-node job in `[from, deadline)`: at every candidate start
    /// ([`NodePlan::candidate_starts`]) in increasing order, the slot [`NodePlan::choose`] finds
    /// there, if any, handed to `visit`, which returns `false` to stop. The slots are exactly
    /// those of calling `choose` at each candidate start; one sweep over the reservations
    /// finds them, so the cost grows with the reservations the sweep passes rather than with
    /// nodes times candidate starts.
    ///
    /// ```
    /// use slarm_overbook::plan::NodePlan;
    /// let mut p = NodePlan::new(3);
    /// p.reserve(0, &[0, 1], 0, 100);
    /// let mut slots = Vec::new();
    /// p.for_each_slot(0, 1_000, 2, &[true; 3], |s| {
    ///     slots.push((s.start, s.end, s.nodes));
    ///     true
    /// });
    /// // At 100 all three are free; node 2, never used, ranks before nodes 0 and 1.
    /// assert_eq!(slots, vec![(100, 1_000, vec![0, 2])]);
    /// ```
    pub fn for_each_slot(
        &self,
        from: Time,
        deadline: Time,
        count: usize,
        usable: &[bool],
        mut visit: impl FnMut(Slot) -> bool,
    ) {
        let starts = self.candidate_starts(from, deadline);
        if count == 0 {
            return;
        }
        // The first few starts are examined one by one: a lazy search often stops at the first
        // full slot, before the sweep would have paid for its set-up over every node.
        let (direct, rest) = starts.split_at(starts.len().min(DIRECT_STARTS));
        // The sweep steps from one reservation boundary to the next, which needs every
        // timeline's ends in order as well as its starts (true of a plan without overlaps);
        // otherwise each start is examined on its own.
        let sweepable = !rest.is_empty()
            && self
                .timelines
                .iter()
                .all(|tl| tl.windows(2).all(|w| w[0].end <= w[1].end));
        let one_by_one = if sweepable { direct } else { &starts[..] };
        for &t in one_by_one {
            if let Some(s) = self.choose(t, count, deadline, usable) {
                if !visit(s) {
                    return;
                }
            }
        }
        let Some(&first) = rest.first().filter(|_| sweepable) else {
            return;
        };
        let mut sweep = Sweep::new(self, first, usable);
        for &t in rest {
            while let Some(&Reverse((at, node))) = sweep.events.peek() {
                if at > t {
                    break;
                }
                sweep.events.pop();
                sweep.refresh(node, t);
            }
            if sweep.free.len() < count {
                continue;
            }
            let chosen = sweep.free.iter().take(count);
            let end = chosen
                .clone()
                .map(|k| k.0 .0)
                .min()
                .unwrap_or(Time::MAX)
                .min(deadline);
            let mut nodes: Vec<usize> = chosen.map(|k| k.2).collect();
            nodes.sort_unstable();
            if !visit(Slot {
                start: t,
                end,
                nodes,
            }) {
                return;
            }
        }
    }

    /// Whether `node` is free at `t` and, if so, its rank key for [`NodePlan::choose`]:
    /// (latest next reservation, earliest previous end, lowest index) sorts first.
    fn free_key(&self, node: usize, t: Time) -> Option<FreeKey> {
        let tl = self.timeline(node);
        let k = tl.partition_point(|r| r.end <= t);
        let next = match tl.get(k) {
            Some(r) if r.start <= t => return None,
            Some(r) => r.start,
            None => Time::MAX,
        };
        let prev_end = if k > 0 { tl[k - 1].end } else { Time::MIN };
        Some((Reverse(next), prev_end, node))
    }

    /// [`NodePlan::free_key`] of `node` at `t` and the next time after `t` it may change (the
    /// first start or end after `t`; the node's ends must be in order).
    fn state_at(&self, node: usize, t: Time) -> (Option<FreeKey>, Option<Time>) {
        let tl = self.timeline(node);
        let next_start = tl
            .get(tl.partition_point(|r| r.start <= t))
            .map(|r| r.start);
        let next_end = tl.get(tl.partition_point(|r| r.end <= t)).map(|r| r.end);
        let change = match (next_start, next_end) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        (self.free_key(node, t), change)
    }

    /// Chooses `count` nodes free at `t` among the `usable` ones: latest next reservation first,
    /// then earliest end of the previous reservation, then lowest index. The slot ends at
    /// the earliest next reservation among them, capped at `deadline`.
    pub fn choose(&self, t: Time, count: usize, deadline: Time, usable: &[bool]) -> Option<Slot> {
        let mut cand: Vec<FreeKey> = (0..self.timelines.len())
            .filter(|&node| usable.get(node).copied().unwrap_or(false))
            .filter_map(|node| self.free_key(node, t))
            .collect();
        if count == 0 || cand.len() < count {
            return None;
        }
        if cand.len() > count {
            cand.select_nth_unstable(count - 1);
            cand.truncate(count);
        }
        let end = cand
            .iter()
            .map(|c| c.0 .0)
            .min()
            .unwrap_or(Time::MAX)
            .min(deadline);
        let mut nodes: Vec<usize> = cand.iter().map(|c| c.2).collect();
        nodes.sort_unstable();
        Some(Slot {
            start: t,
            end,
            nodes,
        })
    }
}

/// Candidate starts [`NodePlan::for_each_slot`] examines one by one before it sweeps.
const DIRECT_STARTS: usize = 4;

/// A free node's rank for [`NodePlan::choose`]; the smallest keys are chosen.
type FreeKey = (Reverse<Time>, Time, usize);

/// State of [`NodePlan::for_each_slot`]: the free usable nodes ranked, each node's key while
/// free, and the next time each node's state may change (a start or end of one of its
/// reservations after the sweep's time).
struct Sweep<'a> {
    plan: &'a NodePlan,
    free: BTreeSet<FreeKey>,
    key: Vec<Option<FreeKey>>,
    events: BinaryHeap<Reverse<(Time, usize)>>,
}

impl<'a> Sweep<'a> {
    /// The state of the usable nodes at `t`, built in bulk.
    fn new(plan: &'a NodePlan, t: Time, usable: &[bool]) -> Self {
        let n = plan.timelines.len();
        let mut key = vec![None; n];
        let mut free = Vec::new();
        let mut events = Vec::new();
        for node in (0..n).filter(|&i| usable.get(i).copied().unwrap_or(false)) {
            let (k, change) = plan.state_at(node, t);
            if let Some(k) = k {
                free.push(k);
                key[node] = Some(k);
            }
            if let Some(at) = change {
                events.push(Reverse((at, node)));
            }
        }
        free.sort_unstable();
        Self {
            plan,
            free: free.into_iter().collect(),
            key,
            events: BinaryHeap::from(events),
        }
    }

    /// Re-evaluates `node` at `t` and schedules its next change.
    fn refresh(&mut self, node: usize, t: Time) {
        let (k, change) = self.plan.state_at(node, t);
        if self.key[node] != k {
            if let Some(old) = self.key[node] {
                self.free.remove(&old);
            }
            if let Some(new) = k {
                self.free.insert(new);
            }
            self.key[node] = k;
        }
        if let Some(at) = change {
            self.events.push(Reverse((at, node)));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A plan of `nodes` nodes whose timelines hold back-to-back reservations with gaps, as
    /// the planner builds them (sorted, non-overlapping); `overlap` adds one reservation
    /// inside another on node 0 so the ends are out of order.
    fn plan_of(nodes: usize, spans: &[(usize, i64, i64)], overlap: bool) -> NodePlan {
        let mut p = NodePlan::new(nodes);
        let mut at = vec![0i64; nodes];
        for (job, &(node, gap, len)) in spans.iter().enumerate() {
            let n = node % nodes;
            let start = at[n] + gap;
            p.reserve(job, &[n], start, start + len);
            at[n] = start + len;
        }
        if overlap {
            p.reserve(spans.len(), &[0], 1, 1_000_000);
            p.reserve(spans.len() + 1, &[0], 2, 3);
        }
        p
    }

    proptest! {
        /// The sweep finds the very slots of `choose` at every candidate start.
        #[test]
        fn sweep_matches_choose_at_every_start(
            nodes in 1usize..12,
            spans in prop::collection::vec((0usize..12, 0i64..50, 1i64..80), 0..60),
            from in 0i64..300,
            len in 1i64..600,
            count in 0usize..8,
            down in prop::collection::vec(any::<bool>(), 12),
            overlap in any::<bool>(),
        ) {
            let p = plan_of(nodes, &spans, overlap);
            let usable: Vec<bool> = down.iter().map(|d| !d).collect();
            let deadline = from + len;
            let want: Vec<Slot> = p
                .candidate_starts(from, deadline)
                .into_iter()
                .filter_map(|t| p.choose(t, count, deadline, &usable))
                .collect();
            let mut got = Vec::new();
            p.for_each_slot(from, deadline, count, &usable, |s| {
                got.push(s);
                true
            });
            prop_assert_eq!(&got, &want);
            // Stopping early hands over a prefix.
            let mut first = Vec::new();
            p.for_each_slot(from, deadline, count, &usable, |s| {
                first.push(s);
                false
            });
            prop_assert_eq!(&first[..], &want[..want.len().min(1)]);
        }
    }

    #[test]
    fn choose_prefers_longest_gaps() {
        let mut p = NodePlan::new(4);
        p.reserve(0, &[0, 1], 0, 100);
        p.reserve(1, &[2], 50, 80);
        p.reserve(2, &[3], 200, 300);
        let usable = vec![true; 4];
        // At t = 0 nodes 2 (next at 50) and 3 (next at 200) are free.
        let s = p.choose(0, 2, 1000, &usable).unwrap();
        assert_eq!(s.nodes, vec![2, 3]);
        assert_eq!(s.end, 50);
        let s = p.choose(0, 1, 1000, &usable).unwrap();
        assert_eq!(s.nodes, vec![3]);
        assert_eq!(s.end, 200);
        assert!(p.choose(0, 3, 1000, &usable).is_none());
        let s = p.choose(100, 3, 150, &usable).unwrap();
        assert_eq!(s.nodes, vec![0, 1, 2]);
        assert_eq!(s.end, 150);
        assert_eq!(p.candidate_starts(0, 250), vec![0, 80, 100]);
        assert_eq!(p.predecessor(0, 100).map(|r| r.job), Some(0));
        assert_eq!(p.predecessor(3, 100), None);
        p.prune(100);
        assert!(p.timeline(0).is_empty());
        assert!(p.is_first(3, 2));
    }
}
