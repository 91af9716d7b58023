//! `P_executable` of the slots of one negotiation, remembered by what it depends on.
//!
//! Within one negotiation the plan and the job are fixed, so an overbooked slot's
//! `P_executable` (thesis §3.3.1) depends only on the ordered list of its predecessors (their
//! end-time CDFs), the earliest start and the grid step its slot ends at. Consecutive
//! candidate starts often choose the same nodes with the same predecessors and end (a start
//! where a reservation on another node ends), and each evaluation is a pass over the joint
//! start distribution, thousands of steps long on the larger traces; such a slot differs only
//! in its start, which enters the outage factors but not `P_executable`.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

use crate::error::Result;

/// A hasher for the small integer keys of one negotiation (job indices, grid steps): one
/// multiply per word. The keys come from the plan, not from outside, so the standard
/// library's DoS-resistant hasher buys nothing here, and it was about 5 % of a 1,664-node
/// cell (every overbooked slot looks up its predecessors and its memo entry). Only
/// membership and lookups are used, never iteration order, so results do not depend on it.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct WordHasher(u64);

impl WordHasher {
    #[inline]
    fn add(&mut self, word: u64) {
        // The multiplier and rotation of the Fx hash (odd, with well-mixed bits).
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
}

impl Hasher for WordHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        let mut words = bytes.chunks_exact(8);
        for w in &mut words {
            let mut b = [0u8; 8];
            b.copy_from_slice(w);
            self.add(u64::from_le_bytes(b));
        }
        let rest = words.remainder();
        if !rest.is_empty() {
            let mut b = [0u8; 8];
            b[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(b));
        }
    }

    fn write_u64(&mut self, x: u64) {
        self.add(x);
    }

    fn write_usize(&mut self, x: usize) {
        self.add(x as u64);
    }

    fn write_i64(&mut self, x: i64) {
        self.add(x as u64);
    }
}

/// A set of job indices with [`WordHasher`].
pub(crate) type JobSet = HashSet<usize, BuildHasherDefault<WordHasher>>;

/// What a slot's `P_executable` depends on within one negotiation: its predecessors (job
/// indices, in the order their CDFs are multiplied), the earliest start and the slot end, both
/// as grid steps.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct ExecutableKey {
    /// Predecessor jobs in order of first appearance on the slot's nodes.
    pub(crate) predecessors: Vec<usize>,
    /// Grid step of the earliest start `max(e, now)`, rounded up.
    pub(crate) earliest: i64,
    /// Grid step of the slot end, rounded down.
    pub(crate) end: i64,
}

/// The `P_executable` values of one negotiation's slots (dropped with the negotiation, since a
/// plan change changes the predecessors' CDFs).
#[derive(Debug, Default)]
pub(crate) struct ExecutableMemo {
    values: HashMap<ExecutableKey, f64, BuildHasherDefault<WordHasher>>,
}

impl ExecutableMemo {
    /// The value of `key`: remembered, or computed by `compute` and remembered (an error is
    /// returned and not remembered).
    pub(crate) fn get_or_compute(
        &mut self,
        key: ExecutableKey,
        compute: impl FnOnce() -> Result<f64>,
    ) -> Result<f64> {
        if let Some(&v) = self.values.get(&key) {
            return Ok(v);
        }
        let v = compute()?;
        self.values.insert(key, v);
        Ok(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::OverbookError;
    use proptest::prelude::*;

    fn key(predecessors: Vec<usize>, end: i64) -> ExecutableKey {
        ExecutableKey {
            predecessors,
            earliest: 0,
            end,
        }
    }

    #[test]
    fn errors_are_not_remembered() {
        let mut m = ExecutableMemo::default();
        let r = m.get_or_compute(key(vec![1], 5), || {
            Err(OverbookError::EmptyStatistics("x".into()))
        });
        assert!(r.is_err());
        assert_eq!(
            m.get_or_compute(key(vec![1], 5), || Ok(0.25)).ok(),
            Some(0.25)
        );
    }

    proptest! {
        // Against the plain definition: every lookup gives the function's value at its key,
        // and the function runs once per distinct key.
        #[test]
        fn gives_the_function_value_and_computes_each_key_once(
            lookups in prop::collection::vec((prop::collection::vec(0usize..4, 0..3), 0i64..4), 1..60),
        ) {
            let f = |k: &ExecutableKey| {
                k.predecessors.iter().fold(k.end as f64 * 0.1, |a, &p| a * 0.5 + p as f64)
            };
            let mut m = ExecutableMemo::default();
            let mut calls = 0usize;
            let mut distinct = std::collections::HashSet::new();
            for (preds, end) in lookups {
                let k = key(preds, end);
                distinct.insert(k.clone());
                let want = f(&k);
                let got = m.get_or_compute(k.clone(), || {
                    calls += 1;
                    Ok(f(&k))
                });
                prop_assert_eq!(got.ok().map(f64::to_bits), Some(want.to_bits()));
            }
            prop_assert_eq!(calls, distinct.len());
        }
    }
}
