//! The discrete-event kernel: an event queue with a deterministic tie order and a clock. The
//! kernel knows no policy; it only orders and delivers events (the shape of dslab-core). The
//! simulator owns the loop: it takes the next event with [`Simulation::step`], merges streams
//! already in time order (a trace's arrivals) with [`Simulation::peek_key`] and
//! [`Simulation::deliver_at`], and decides itself when to stop. slarm-sim's trace simulator
//! and slarm-grid's multi-site simulator both drive the kernel this way.
//!
//! Tie order: events are delivered by time, then by a caller-given priority
//! class (smaller first), then by insertion sequence. A trace simulator therefore uses class 0
//! for completions, class 1 for arrivals and class 2 for the scheduling pass, which yields
//! "completions release processors, then arrivals join the queue, then one pass runs".
//!
//! ```
//! use slarm_sim::kernel::Simulation;
//! use slarm_sim::SimError;
//!
//! let mut sim = Simulation::new();
//! sim.schedule_at(1.0, 1, "arrive")?;
//! sim.schedule_at(1.0, 0, "tick")?; // same time, smaller class: delivered first
//! let mut seen = Vec::new();
//! while let Some(ev) = sim.step() {
//!     seen.push((sim.now(), ev.event));
//!     if ev.event == "arrive" {
//!         sim.schedule_in(5.0, 0, "leave")?;
//!     }
//! }
//! assert_eq!(seen, vec![(1.0, "tick"), (1.0, "arrive"), (6.0, "leave")]);
//! assert_eq!(sim.delivered(), 3);
//! # Ok::<(), SimError>(())
//! ```

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use crate::error::{check_time, Result, SimError};

/// Identifier of a scheduled event (its insertion sequence number), used to cancel it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct EventId(pub u64);

/// An event taken out of the queue, with its delivery key.
#[derive(Debug, Clone, PartialEq)]
pub struct Scheduled<E> {
    /// Delivery time.
    pub time: f64,
    /// Priority class (smaller is delivered first among equal times).
    pub class: u32,
    /// Identifier (insertion sequence).
    pub id: EventId,
    /// The payload.
    pub event: E,
}

struct Entry<E> {
    /// The time mapped to an integer with the order of `f64::total_cmp`, so the heap
    /// compares integers only (and holds no second copy of the time: [`key_time`]).
    time_key: i64,
    class: u32,
    seq: u64,
    event: E,
}

/// The integer whose order is `f64::total_cmp`'s (the same mapping the standard library
/// uses inside `total_cmp`).
pub(crate) fn time_key(t: f64) -> i64 {
    let bits = t.to_bits() as i64;
    bits ^ ((((bits >> 63) as u64) >> 1) as i64)
}

/// The time of a [`time_key`], bit for bit (the mapping is its own inverse: it flips the
/// low 63 bits of negative numbers and keeps the sign bit).
pub(crate) fn key_time(key: i64) -> f64 {
    f64::from_bits((key ^ ((((key >> 63) as u64) >> 1) as i64)) as u64)
}

impl<E> Entry<E> {
    fn key_cmp(&self, other: &Self) -> Ordering {
        (self.time_key, self.class, self.seq).cmp(&(other.time_key, other.class, other.seq))
    }
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, other: &Self) -> bool {
        self.key_cmp(other) == Ordering::Equal
    }
}
impl<E> Eq for Entry<E> {}
impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<E> Ord for Entry<E> {
    fn cmp(&self, other: &Self) -> Ordering {
        // BinaryHeap is a max-heap: reverse so the smallest key pops first.
        other.key_cmp(self)
    }
}

/// A priority queue of events ordered by (time, class, insertion sequence).
///
/// Cancellation is lazy: a cancelled event stays in the heap and is skipped when it surfaces.
/// Which events are still pending is one bit per issued sequence number (events are numbered
/// densely from 0), so push, pop and cancel need no hashing.
pub struct EventQueue<E> {
    heap: BinaryHeap<Entry<E>>,
    /// Bit `seq` is set while event `seq` is pending (issued, neither delivered nor cancelled).
    pending: Vec<u64>,
    /// Cancelled events still sitting in the heap.
    cancelled_in_heap: usize,
    next_seq: u64,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E> std::fmt::Debug for EventQueue<E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EventQueue")
            .field("len", &self.len())
            .field("next_seq", &self.next_seq)
            .finish()
    }
}

/// Word index and bit mask of sequence number `seq` in the pending bitset.
fn bit(seq: u64) -> (usize, u64) {
    ((seq / 64) as usize, 1u64 << (seq % 64))
}

impl<E> EventQueue<E> {
    /// An empty queue.
    pub fn new() -> Self {
        Self::with_capacity(0)
    }

    /// An empty queue with room for `n` events.
    pub fn with_capacity(n: usize) -> Self {
        Self {
            heap: BinaryHeap::with_capacity(n),
            pending: Vec::new(),
            cancelled_in_heap: 0,
            next_seq: 0,
        }
    }

    fn is_pending(&self, seq: u64) -> bool {
        let (w, m) = bit(seq);
        self.pending.get(w).is_some_and(|x| x & m != 0)
    }

    fn clear_pending(&mut self, seq: u64) {
        let (w, m) = bit(seq);
        if let Some(x) = self.pending.get_mut(w) {
            *x &= !m;
        }
    }

    /// Inserts `event` at `time` with priority `class`. Errors on a non-finite time.
    pub fn push(&mut self, time: f64, class: u32, event: E) -> Result<EventId> {
        check_time("event time", time)?;
        let seq = self.next_seq;
        self.next_seq += 1;
        let (w, m) = bit(seq);
        if w == self.pending.len() {
            self.pending.push(0);
        }
        self.pending[w] |= m;
        self.heap.push(Entry {
            time_key: time_key(time),
            class,
            seq,
            event,
        });
        Ok(EventId(seq))
    }

    /// Marks a pending event as cancelled; returns false if it was already cancelled,
    /// delivered or never issued by this queue.
    pub fn cancel(&mut self, id: EventId) -> bool {
        if !self.is_pending(id.0) {
            return false;
        }
        self.clear_pending(id.0);
        self.cancelled_in_heap += 1;
        true
    }

    fn skip_cancelled(&mut self) {
        while self.cancelled_in_heap > 0 {
            match self.heap.peek() {
                Some(top) if !self.is_pending(top.seq) => {
                    self.heap.pop();
                    self.cancelled_in_heap -= 1;
                }
                _ => break,
            }
        }
    }

    /// Removes and returns the next live event.
    pub fn pop(&mut self) -> Option<Scheduled<E>> {
        self.skip_cancelled();
        let e = self.heap.pop()?;
        self.clear_pending(e.seq);
        Some(Scheduled {
            time: key_time(e.time_key),
            class: e.class,
            id: EventId(e.seq),
            event: e.event,
        })
    }

    /// Time of the next live event.
    pub fn peek_time(&mut self) -> Option<f64> {
        self.peek_key().map(|(t, _)| t)
    }

    /// Time and priority class of the next live event.
    pub fn peek_key(&mut self) -> Option<(f64, u32)> {
        self.skip_cancelled();
        self.heap.peek().map(|e| (key_time(e.time_key), e.class))
    }

    /// Number of live events.
    pub fn len(&self) -> usize {
        self.heap.len() - self.cancelled_in_heap
    }

    /// True when no live event is pending.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Receives the events of a [`Simulation`]; all model state lives in the handler.
#[deprecated(
    since = "0.1.0",
    note = "no simulator delivers through a handler: drive the queue with `Simulation::step`, `peek_key` and `deliver_at` (see the kernel module docs)"
)]
pub trait Handler<E> {
    /// The handler's error type; kernel errors convert into it.
    type Error: From<SimError>;
    /// Processes one event at time `sim.now()`; may schedule or cancel further events.
    fn handle(&mut self, event: E, sim: &mut Simulation<E>)
        -> std::result::Result<(), Self::Error>;
}

/// What a [`Simulation::run`] call did.
#[deprecated(
    since = "0.1.0",
    note = "no simulator delivers through a handler: drive the queue with `Simulation::step`, `peek_key` and `deliver_at` (see the kernel module docs)"
)]
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct RunStats {
    /// Events delivered in this call.
    pub delivered: u64,
    /// Clock when the call returned.
    pub end_time: f64,
    /// True if the run stopped at the horizon with events still pending.
    pub stopped_at_horizon: bool,
}

/// A simulation: a clock plus an event queue.
#[derive(Debug)]
pub struct Simulation<E> {
    queue: EventQueue<E>,
    now: f64,
    delivered: u64,
}

impl<E> Default for Simulation<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E> Simulation<E> {
    /// A simulation at time 0 with no events.
    pub fn new() -> Self {
        Self::starting_at(0.0)
    }

    /// A simulation whose clock starts at `t0` (clamped to 0 if not finite).
    pub fn starting_at(t0: f64) -> Self {
        Self {
            queue: EventQueue::new(),
            now: if t0.is_finite() { t0 } else { 0.0 },
            delivered: 0,
        }
    }

    /// The current simulation time.
    pub fn now(&self) -> f64 {
        self.now
    }

    /// Total events delivered so far.
    pub fn delivered(&self) -> u64 {
        self.delivered
    }

    /// Number of pending events.
    pub fn pending(&self) -> usize {
        self.queue.len()
    }

    /// Schedules `event` at absolute time `at` (must not be before `now`).
    pub fn schedule_at(&mut self, at: f64, class: u32, event: E) -> Result<EventId> {
        check_time("event time", at)?;
        if at < self.now {
            return Err(SimError::InThePast { at, now: self.now });
        }
        self.queue.push(at, class, event)
    }

    /// Schedules `event` after a non-negative `delay`.
    pub fn schedule_in(&mut self, delay: f64, class: u32, event: E) -> Result<EventId> {
        check_time("event delay", delay)?;
        if delay < 0.0 {
            return Err(SimError::InThePast {
                at: self.now + delay,
                now: self.now,
            });
        }
        self.queue.push(self.now + delay, class, event)
    }

    /// Cancels a pending event.
    pub fn cancel(&mut self, id: EventId) -> bool {
        self.queue.cancel(id)
    }

    /// Time of the next pending event.
    pub fn peek_time(&mut self) -> Option<f64> {
        self.queue.peek_time()
    }

    /// Time and priority class of the next pending event.
    pub fn peek_key(&mut self) -> Option<(f64, u32)> {
        self.queue.peek_key()
    }

    /// Advances the clock to `at` and counts one delivered event, for an event the caller
    /// keeps outside the queue: a stream already in time order (a trace's arrivals) or an
    /// event due at the current instant, which the caller merges with [`Self::peek_key`] in
    /// the queue's tie order. Errors on a time that is not finite or before `now`.
    ///
    /// ```
    /// use slarm_sim::kernel::Simulation;
    ///
    /// let mut sim: Simulation<()> = Simulation::new();
    /// sim.schedule_at(2.0, 0, ())?;
    /// let arrivals = [1.0, 2.0];
    /// // The queued event at 2.0 (class 0) comes before the arrival at 2.0 (class 1).
    /// sim.deliver_at(arrivals[0])?;
    /// assert_eq!(sim.peek_key(), Some((2.0, 0)));
    /// sim.step();
    /// sim.deliver_at(arrivals[1])?;
    /// assert_eq!((sim.now(), sim.delivered()), (2.0, 3));
    /// assert!(sim.deliver_at(1.5).is_err());
    /// # Ok::<(), slarm_sim::SimError>(())
    /// ```
    pub fn deliver_at(&mut self, at: f64) -> Result<()> {
        check_time("event time", at)?;
        if at < self.now {
            return Err(SimError::InThePast { at, now: self.now });
        }
        self.now = at;
        self.delivered += 1;
        Ok(())
    }

    /// Takes the next event and advances the clock to it.
    pub fn step(&mut self) -> Option<Scheduled<E>> {
        let ev = self.queue.pop()?;
        self.now = ev.time;
        self.delivered += 1;
        Some(ev)
    }

    /// Delivers events to `handler` until the queue is empty or the next event lies beyond
    /// `horizon` (then the clock is set to the horizon).
    #[deprecated(
        since = "0.1.0",
        note = "no simulator delivers through a handler: drive the queue with `Simulation::step`, `peek_key` and `deliver_at` (see the kernel module docs)"
    )]
    #[allow(deprecated)]
    pub fn run<H: Handler<E>>(
        &mut self,
        handler: &mut H,
        horizon: Option<f64>,
    ) -> std::result::Result<RunStats, H::Error> {
        let start = self.delivered;
        let mut stopped = false;
        while let Some(t) = self.queue.peek_time() {
            if let Some(h) = horizon {
                if t > h {
                    self.now = self.now.max(h);
                    stopped = true;
                    break;
                }
            }
            let Some(ev) = self.step() else { break };
            handler.handle(ev.event, self)?;
        }
        Ok(RunStats {
            delivered: self.delivered - start,
            end_time: self.now,
            stopped_at_horizon: stopped,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn ties_break_by_class_then_insertion() {
        let mut q = EventQueue::new();
        q.push(2.0, 1, "b1").unwrap();
        q.push(2.0, 0, "a").unwrap();
        q.push(1.0, 5, "first").unwrap();
        q.push(2.0, 1, "b2").unwrap();
        let order: Vec<_> = std::iter::from_fn(|| q.pop().map(|s| s.event)).collect();
        assert_eq!(order, vec!["first", "a", "b1", "b2"]);
    }

    #[test]
    fn cancel_skips_event_and_rejects_bad_times() {
        let mut q = EventQueue::new();
        let a = q.push(1.0, 0, 1).unwrap();
        q.push(2.0, 0, 2).unwrap();
        assert!(q.cancel(a));
        assert!(!q.cancel(a));
        assert!(!q.cancel(EventId(99)));
        let b = q.push(0.5, 0, 9).unwrap();
        assert_eq!(q.pop().map(|s| s.event), Some(9));
        assert!(!q.cancel(b), "a delivered event cannot be cancelled");
        assert_eq!(q.len(), 1);
        assert_eq!(q.pop().map(|s| s.event), Some(2));
        assert!(q.is_empty());
        assert!(matches!(
            q.push(f64::NAN, 0, 3),
            Err(SimError::NonFiniteTime { .. })
        ));
        let mut sim: Simulation<u8> = Simulation::new();
        sim.schedule_at(5.0, 0, 1).unwrap();
        sim.step();
        assert!(matches!(
            sim.schedule_at(4.0, 0, 2),
            Err(SimError::InThePast { .. })
        ));
        assert!(sim.schedule_in(-1.0, 0, 2).is_err());
    }

    #[allow(deprecated)]
    struct Chain {
        seen: Vec<f64>,
    }
    #[allow(deprecated)]
    impl Handler<u32> for Chain {
        type Error = SimError;
        fn handle(&mut self, ev: u32, sim: &mut Simulation<u32>) -> Result<()> {
            self.seen.push(sim.now());
            if ev > 0 {
                sim.schedule_in(1.5, 0, ev - 1)?;
            }
            Ok(())
        }
    }

    #[test]
    #[allow(deprecated)]
    fn run_respects_horizon() {
        let mut sim = Simulation::new();
        sim.schedule_at(0.0, 0, 10u32).unwrap();
        let mut h = Chain { seen: vec![] };
        let st = sim.run(&mut h, Some(4.0)).unwrap();
        assert_eq!(h.seen, vec![0.0, 1.5, 3.0]);
        assert!(st.stopped_at_horizon);
        assert_eq!(st.end_time, 4.0);
        let st = sim.run(&mut h, None).unwrap();
        assert_eq!(st.delivered, 8);
        assert_eq!(sim.now(), 15.0);
    }

    proptest! {
        /// The heap keeps only the key; the time it gives back is the pushed one, bit for
        /// bit (also -0.0, subnormals and NaN payloads), and keys order as `total_cmp`.
        #[test]
        fn key_time_inverts_time_key(a in any::<u64>(), b in any::<u64>()) {
            let (x, y) = (f64::from_bits(a), f64::from_bits(b));
            prop_assert_eq!(key_time(time_key(x)).to_bits(), a);
            prop_assert_eq!(time_key(x).cmp(&time_key(y)), x.total_cmp(&y));
        }

        #[test]
        fn time_key_orders_like_total_cmp(a in any::<f64>(), b in any::<f64>()) {
            prop_assert_eq!(time_key(a).cmp(&time_key(b)), a.total_cmp(&b));
        }

        /// Pushes, cancels and pops in random order agree with a plain sorted list.
        #[test]
        fn cancellation_matches_a_reference_list(
            ops in proptest::collection::vec((0u8..3, 0u8..10, 0u32..3, any::<usize>()), 0..300),
        ) {
            let mut q = EventQueue::new();
            let mut model: Vec<(f64, u32, u64)> = Vec::new();
            let mut issued: Vec<EventId> = Vec::new();
            for (op, t, c, pick) in ops {
                match op {
                    0 => {
                        let id = q.push(f64::from(t), c, ()).unwrap();
                        model.push((f64::from(t), c, id.0));
                        issued.push(id);
                    }
                    1 if !issued.is_empty() => {
                        let id = issued[pick % issued.len()];
                        let live = model.iter().position(|e| e.2 == id.0);
                        prop_assert_eq!(q.cancel(id), live.is_some());
                        if let Some(k) = live {
                            model.remove(k);
                        }
                    }
                    _ => {
                        model.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
                        let want = (!model.is_empty()).then(|| model.remove(0));
                        let got = q.pop().map(|e| (e.time, e.class, e.id.0));
                        prop_assert_eq!(got, want);
                    }
                }
                prop_assert_eq!(q.len(), model.len());
            }
        }

        #[test]
        fn pops_are_sorted_by_key(items in proptest::collection::vec((0u8..20, 0u32..3), 0..200)) {
            let mut q = EventQueue::new();
            for (i, (t, c)) in items.iter().enumerate() {
                q.push(f64::from(*t), *c, i).unwrap();
            }
            let mut last: Option<(f64, u32, u64)> = None;
            let mut n = 0;
            while let Some(s) = q.pop() {
                let key = (s.time, s.class, s.id.0);
                if let Some(l) = last {
                    prop_assert!(l.0 < key.0 || (l.0 == key.0 && (l.1 < key.1 || (l.1 == key.1 && l.2 < key.2))));
                }
                last = Some(key);
                n += 1;
            }
            prop_assert_eq!(n, items.len());
        }
    }
}
