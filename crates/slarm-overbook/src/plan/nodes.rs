//! Per-node reservation timelines with gap finder and node selection (comprehensive plan,
//! thesis §3.3.1, Listing 3.1; node choice and candidate starts are our reading, docs/decisions.md).

use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::ops::Bound::Excluded;

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
    /// How many reservations (over all nodes) end at each time: the candidate starts of
    /// [`NodePlan::candidate_starts`] without collecting and sorting every node's ends.
    ends: BTreeMap<Time, usize>,
}

/// One more reservation ending at `end`.
fn count_end(ends: &mut BTreeMap<Time, usize>, end: Time) {
    *ends.entry(end).or_insert(0) += 1;
}

/// One reservation ending at `end` fewer (a time no reservation ends at is dropped).
fn uncount_end(ends: &mut BTreeMap<Time, usize>, end: Time) {
    if let Some(c) = ends.get_mut(&end) {
        *c = c.saturating_sub(1);
        if *c == 0 {
            ends.remove(&end);
        }
    }
}

impl NodePlan {
    /// An empty plan of `nodes` nodes.
    pub fn new(nodes: usize) -> Self {
        Self {
            timelines: vec![Vec::new(); nodes],
            ends: BTreeMap::new(),
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
                count_end(&mut self.ends, end);
            }
        }
    }

    /// Removes every reservation of `job` on `nodes`.
    pub fn remove(&mut self, job: usize, nodes: &[usize]) {
        for &n in nodes {
            if let Some(tl) = self.timelines.get_mut(n) {
                let ends = &mut self.ends;
                tl.retain(|r| {
                    if r.job == job {
                        uncount_end(ends, r.end);
                    }
                    r.job != job
                });
            }
        }
    }

    /// Changes the start and end of `job`'s reservations on `nodes` (moving earlier keeps order
    /// because the job was the first reservation on each node).
    pub fn update(&mut self, job: usize, nodes: &[usize], start: Time, end: Time) {
        for &n in nodes {
            if let Some(tl) = self.timelines.get_mut(n) {
                for r in tl.iter_mut().filter(|r| r.job == job) {
                    uncount_end(&mut self.ends, r.end);
                    count_end(&mut self.ends, end);
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
                for r in tl.drain(..k) {
                    uncount_end(&mut self.ends, r.end);
                }
            }
        }
    }

    /// True if `job` holds the first reservation on `node`.
    pub fn is_first(&self, node: usize, job: usize) -> bool {
        self.timeline(node).first().map(|r| r.job) == Some(job)
    }

    /// Candidate starts in `[from, deadline)`: `from` and every reservation end after it,
    /// in increasing order.
    pub fn candidate_starts(&self, from: Time, deadline: Time) -> Vec<Time> {
        let mut c = vec![from];
        if from < deadline {
            c.extend(
                self.ends
                    .range((Excluded(from), Excluded(deadline)))
                    .map(|(&e, _)| e),
            );
        }
        c
    }

    /// The reservation on `node` that ends last at or before `t` (the predecessor).
    pub fn predecessor(&self, node: usize, t: Time) -> Option<NodeReservation> {
        let tl = self.timeline(node);
        let k = tl.partition_point(|r| r.start < t);
        tl[..k].iter().rev().find(|r| r.end <= t).copied()
    }

    /// True if at least `count > 0` of the `usable` nodes are free from `t` to `until`
    /// (free at `t` and next reserved at or after `until`): exactly when [`Self::choose`]
    /// finds a slot at `t` whose end, before the deadline cap, is at or after `until`. Stops
    /// as soon as the answer is known, and builds nothing.
    pub fn fits(&self, t: Time, count: usize, until: Time, usable: &[bool]) -> bool {
        if count == 0 {
            return false;
        }
        let mut found = 0;
        let mut left = self.timelines.len();
        for (node, tl) in self.timelines.iter().enumerate() {
            left -= 1;
            if usable.get(node).copied().unwrap_or(false) {
                let k = tl.partition_point(|r| r.end <= t);
                let free_until = match tl.get(k) {
                    Some(r) if r.start <= t => None,
                    Some(r) => Some(r.start),
                    None => Some(Time::MAX),
                };
                if free_until.is_some_and(|next| next >= until) {
                    found += 1;
                    if found >= count {
                        return true;
                    }
                }
            }
            if found + left < count {
                return false;
            }
        }
        false
    }

    /// Chooses `count` nodes free at `t` among the `usable` ones: latest next reservation first,
    /// then earliest end of the previous reservation, then lowest index. The slot ends at
    /// the earliest next reservation among them, capped at `deadline`.
    pub fn choose(&self, t: Time, count: usize, deadline: Time, usable: &[bool]) -> Option<Slot> {
        let mut cand: Vec<(Time, Time, usize)> = Vec::new();
        for (node, tl) in self.timelines.iter().enumerate() {
            if !usable.get(node).copied().unwrap_or(false) {
                continue;
            }
            let k = tl.partition_point(|r| r.end <= t);
            let next = match tl.get(k) {
                Some(r) if r.start <= t => continue,
                Some(r) => r.start,
                None => Time::MAX,
            };
            let prev_end = if k > 0 { tl[k - 1].end } else { Time::MIN };
            cand.push((next, prev_end, node));
        }
        best_slot(&mut cand, t, count, deadline)
    }
}

/// The slot at `t` on the best `count` of the free nodes `cand` (`(next reservation start,
/// previous reservation end, node)` each): latest next reservation first, then earliest end of
/// the previous one, then lowest index. It ends at the earliest next reservation among them,
/// capped at `deadline`; `None` when fewer than `count` (or no node at all) are asked for or
/// free. Shared by [`NodePlan::choose`] and the sweep's `choose`, so both pick the same nodes.
pub(crate) fn best_slot(
    cand: &mut Vec<(Time, Time, usize)>,
    t: Time,
    count: usize,
    deadline: Time,
) -> Option<Slot> {
    if count == 0 || cand.len() < count {
        return None;
    }
    let order = |a: &(Time, Time, usize), b: &(Time, Time, usize)| -> Ordering {
        b.0.cmp(&a.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2))
    };
    if cand.len() > count {
        cand.select_nth_unstable_by(count - 1, order);
        cand.truncate(count);
    }
    let end = cand
        .iter()
        .map(|c| c.0)
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

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The plain definition of the candidate starts: every node's ends, sorted and deduplicated.
    fn plain_candidate_starts(p: &NodePlan, from: Time, deadline: Time) -> Vec<Time> {
        let mut c: Vec<Time> = (0..p.nodes())
            .flat_map(|n| p.timeline(n).iter().map(|r| r.end))
            .filter(|&e| e > from && e < deadline)
            .collect();
        c.push(from);
        c.sort_unstable();
        c.dedup();
        c
    }

    /// A plan of up to 12 nodes with non-overlapping reservations, and which nodes are usable.
    pub(crate) fn arb_plan() -> impl Strategy<Value = (NodePlan, Vec<bool>)> {
        arb_plan_of(12)
    }

    /// [`arb_plan`] with up to `max_nodes` nodes.
    pub(crate) fn arb_plan_of(max_nodes: usize) -> impl Strategy<Value = (NodePlan, Vec<bool>)> {
        prop::collection::vec(
            (
                prop::collection::vec((0i64..30, 1i64..40), 0..5),
                prop::bool::weighted(0.85),
            ),
            1..max_nodes,
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
        // The kept ends give the candidate starts of the plain definition after any sequence
        // of reservations, removals, moves and prunes.
        #[test]
        fn candidate_starts_follow_every_change(
            ops in prop::collection::vec((0u8..4, 0usize..6, 0i64..100, 1i64..50, 0usize..4), 1..40),
            from in 0i64..150,
            deadline in 0i64..200,
        ) {
            let mut p = NodePlan::new(4);
            let mut placed: Vec<Option<(Vec<usize>, Time)>> = vec![None; 6];
            for (op, job, start, len, width) in ops {
                let nodes: Vec<usize> = (0..=width.min(3)).collect();
                match (op, &placed[job]) {
                    (0, None) => {
                        p.reserve(job, &nodes, start, start + len);
                        placed[job] = Some((nodes, start));
                    }
                    (1, Some((n, _))) => {
                        p.remove(job, &n.clone());
                        placed[job] = None;
                    }
                    (2, Some((n, _))) => p.update(job, &n.clone(), start, start + len),
                    (3, _) => p.prune(start),
                    _ => {}
                }
                for from in [from, start] {
                    prop_assert_eq!(
                        p.candidate_starts(from, deadline),
                        plain_candidate_starts(&p, from, deadline)
                    );
                }
            }
        }

        // `fits` against its definition through `choose`: a slot at `t` of at least `len`
        // exists exactly when `count` usable nodes are free from `t` to `t + len`.
        #[test]
        fn fits_is_choose_finding_a_slot_that_long(
            (plan, usable) in arb_plan(),
            t in 0i64..150,
            count in 0usize..9,
            len in 0i64..60,
        ) {
            let by_choose = plan
                .choose(t, count, Time::MAX, &usable)
                .is_some_and(|s| s.len() >= len);
            prop_assert_eq!(plan.fits(t, count, t + len, &usable), by_choose);
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
