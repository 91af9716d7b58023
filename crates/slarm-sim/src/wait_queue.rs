//! The simulator's waiting queue: the queued [`Candidate`]s in queue order, one contiguous
//! slice (what a [`SchedulingPolicy`](crate::policy::SchedulingPolicy) pass reads), with
//! room kept in front of it.
//!
//! The jobs a pass starts leave the queue from any positions. Closing the gaps moves
//! either the jobs after the first start one way or the jobs before the last start the
//! other way, whichever are fewer: in a deep queue the head starting (the common start)
//! moves nothing, where a vector shifted the whole queue.

use crate::policy::Candidate;

#[derive(Debug, Clone, Default)]
pub(crate) struct WaitQueue {
    /// `slots[front..]` is the queue; the slots before `front` are free.
    slots: Vec<Candidate>,
    front: usize,
}

impl WaitQueue {
    /// The queued jobs in queue order.
    pub(crate) fn as_slice(&self) -> &[Candidate] {
        &self.slots[self.front..]
    }

    pub(crate) fn len(&self) -> usize {
        self.slots.len() - self.front
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The last job in queue order.
    pub(crate) fn last(&self) -> Option<&Candidate> {
        self.as_slice().last()
    }

    /// Inserts `c` at position `pos` (at most the length) of the queue.
    pub(crate) fn insert(&mut self, pos: usize, c: Candidate) {
        // Free slots in front are given back once they outnumber the queue, so they cost
        // at most as much memory as the queue and each job is moved back O(1) times.
        if self.front > 0 && self.front >= self.len() {
            self.slots.drain(..self.front);
            self.front = 0;
        }
        self.slots.insert(self.front + pos, c);
    }

    /// Removes and returns the job at position `pos` (inside the queue).
    pub(crate) fn remove(&mut self, pos: usize) -> Candidate {
        let c = self.as_slice()[pos];
        self.remove_positions(&[pos]);
        c
    }

    /// Removes the jobs at `positions` (strictly ascending, inside the queue), keeping the
    /// order of the rest.
    pub(crate) fn remove_positions(&mut self, positions: &[usize]) {
        let (Some(&first), Some(&last)) = (positions.first(), positions.last()) else {
            return;
        };
        let k = positions.len();
        let after = self.len() - first - k;
        let before = last + 1 - k;
        let q = &mut self.slots[self.front..];
        if before < after {
            // Close the gaps from the back: the jobs before `last` move towards the end.
            let mut next = positions.iter().rev().copied().peekable();
            let mut write = last;
            for read in (0..=last).rev() {
                if next.peek() == Some(&read) {
                    next.next();
                } else {
                    q[write] = q[read];
                    write = write.wrapping_sub(1);
                }
            }
            self.front += k;
        } else {
            let mut next = positions.iter().copied().peekable();
            let mut write = first;
            for read in first..q.len() {
                if next.peek() == Some(&read) {
                    next.next();
                } else {
                    q[write] = q[read];
                    write += 1;
                }
            }
            self.slots.truncate(self.front + write);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn job(key: usize) -> Candidate {
        Candidate {
            key,
            procs: 1,
            estimate: 1.0,
        }
    }

    fn keys(q: &WaitQueue) -> Vec<usize> {
        q.as_slice().iter().map(|c| c.key).collect()
    }

    #[test]
    fn the_head_leaves_without_moving_the_rest() {
        let mut q = WaitQueue::default();
        for k in 0..5 {
            q.insert(k, job(k));
        }
        q.remove_positions(&[0, 1]);
        assert_eq!(keys(&q), [2, 3, 4]);
        assert_eq!(q.front, 2);
        q.remove_positions(&[2]);
        assert_eq!(keys(&q), [2, 3]);
        assert_eq!(q.remove(0).key, 2);
        assert_eq!(q.remove(0).key, 3);
        assert!(q.is_empty());
    }

    /// An operation on the queue: insert a new job at a position (modulo length + 1), or
    /// remove the positions picked by a bit mask.
    #[derive(Debug, Clone)]
    enum Op {
        Insert(usize),
        RemoveMask(u64),
        RemoveOne(usize),
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            3 => (0usize..100).prop_map(Op::Insert),
            1 => any::<u64>().prop_map(Op::RemoveMask),
            1 => (0usize..100).prop_map(Op::RemoveOne),
        ]
    }

    proptest! {
        /// The queue behaves as a vector with `insert`, `remove` and removal of ascending
        /// positions, whichever side closes the gaps.
        #[test]
        fn behaves_as_a_vector(ops in proptest::collection::vec(op(), 0..200)) {
            let mut q = WaitQueue::default();
            let mut model: Vec<usize> = Vec::new();
            for (n, op) in ops.into_iter().enumerate() {
                let inserted = matches!(op, Op::Insert(_));
                match op {
                    Op::Insert(p) => {
                        let p = p % (model.len() + 1);
                        q.insert(p, job(n));
                        model.insert(p, n);
                    }
                    Op::RemoveMask(mask) => {
                        let positions: Vec<usize> =
                            (0..model.len().min(64)).filter(|&i| mask >> i & 1 == 1).collect();
                        q.remove_positions(&positions);
                        for &p in positions.iter().rev() {
                            model.remove(p);
                        }
                    }
                    Op::RemoveOne(p) if !model.is_empty() => {
                        let p = p % model.len();
                        prop_assert_eq!(q.remove(p).key, model.remove(p));
                    }
                    Op::RemoveOne(_) => {}
                }
                prop_assert_eq!(keys(&q), model.clone());
                prop_assert_eq!(q.last().map(|c| c.key), model.last().copied());
                // Free slots never outnumber the queue right after an insertion.
                if inserted {
                    prop_assert!(q.front < q.len());
                }
            }
        }
    }
}
