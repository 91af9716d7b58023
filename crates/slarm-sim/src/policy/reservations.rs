//! The reservation book of the planning policies ([`Conservative`](super::Conservative) and
//! [`Backfill`](super::Backfill)): the plan ([`ConservativePlanner`]), each queued job's
//! reservation, and the compression an early completion or a withdrawal asks for.

use crate::error::{Result, SimError};
use crate::policy::{Candidate, ConservativePlanner};

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Reservations {
    /// The policy's name in the error of a call before `begin`.
    policy: &'static str,
    planner: Option<ConservativePlanner>,
    /// Reservation per job key from `first_key` on (NaN: none): a run of a log's part
    /// (keys from its first row on) holds no slots for the rows before.
    reserved: Vec<f64>,
    first_key: usize,
    /// Processors were freed early (or a reservation dropped) since the last compression.
    compress: bool,
    /// (start, processors, estimate) of the reservations a compression moves, reused.
    items: Vec<(f64, u32, f64)>,
}

impl Reservations {
    pub(crate) fn new(policy: &'static str) -> Self {
        Self {
            policy,
            planner: None,
            reserved: Vec::new(),
            first_key: 0,
            compress: false,
            items: Vec::new(),
        }
    }

    /// An empty plan for `capacity` processors from `origin` on, and no reservations.
    pub(crate) fn begin(&mut self, capacity: u32, origin: f64) -> Result<()> {
        self.planner = Some(ConservativePlanner::new(capacity, origin)?);
        self.reserved.clear();
        self.first_key = 0;
        self.compress = false;
        Ok(())
    }

    pub(crate) fn planner(&mut self) -> Result<&mut ConservativePlanner> {
        self.planner.as_mut().ok_or(SimError::InvalidParameter {
            name: self.policy,
            value: "not started".into(),
            reason: "call begin() before the first event",
        })
    }

    /// Job `key`'s index in `reserved`, if it has a slot.
    fn index(&self, key: usize) -> Option<usize> {
        key.checked_sub(self.first_key)
            .filter(|&k| k < self.reserved.len())
    }

    /// Job `key`'s reservation (NaN: none).
    pub(crate) fn get(&self, key: usize) -> f64 {
        self.index(key).map_or(f64::NAN, |k| self.reserved[k])
    }

    pub(crate) fn set(&mut self, key: usize, t: f64) {
        if self.reserved.is_empty() {
            self.first_key = key;
        } else if key < self.first_key {
            let before = self.first_key - key;
            self.reserved
                .splice(0..0, std::iter::repeat_n(f64::NAN, before));
            self.first_key = key;
        }
        let k = key - self.first_key;
        if k >= self.reserved.len() {
            self.reserved.resize(k + 1, f64::NAN);
        }
        self.reserved[k] = t;
    }

    /// A running job ended at `now`, before its predicted end: its slot's rest is given back
    /// and the next pass compresses.
    pub(crate) fn finished(&mut self, now: f64, job: &Candidate, predicted_end: f64) -> Result<()> {
        if predicted_end > now {
            self.planner()?.cancel(now, predicted_end, job.procs)?;
            self.compress = true;
        }
        Ok(())
    }

    /// A waiting job left the queue: its reservation (if it holds one) is given back and the
    /// next pass compresses. Returns whether it held one.
    pub(crate) fn withdraw(&mut self, job: &Candidate) -> Result<bool> {
        let r = self.get(job.key);
        if !r.is_finite() {
            return Ok(false);
        }
        self.planner()?.cancel(r, r + job.estimate, job.procs)?;
        self.set(job.key, f64::NAN);
        self.compress = true;
        Ok(true)
    }

    /// Forgets the plan before `now` and, if processors were given back since the last
    /// compression, compresses the reservations of the jobs of `queue` that hold one, in
    /// queue order (Mu'alem & Feitelson 2001). Returns whether it compressed.
    pub(crate) fn advance(&mut self, now: f64, queue: &[Candidate]) -> Result<bool> {
        self.planner()?.advance(now);
        if !std::mem::take(&mut self.compress) {
            return Ok(false);
        }
        let mut items = std::mem::take(&mut self.items);
        items.clear();
        items.extend(queue.iter().filter_map(|c| {
            let r = self.get(c.key);
            r.is_finite().then_some((r, c.procs, c.estimate))
        }));
        let compressed = self.planner()?.compress(now, &mut items);
        // The items are the holders in queue order; on an error each stays where it was.
        let mut moved = items.iter();
        for c in queue {
            let Some(k) = self.index(c.key) else { continue };
            if self.reserved[k].is_finite() {
                if let Some(&(t, ..)) = moved.next() {
                    self.reserved[k] = t;
                }
            }
        }
        self.items = items;
        compressed.map(|()| true)
    }
}
