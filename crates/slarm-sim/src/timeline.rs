//! The availability profile of conservative backfilling, indexed by time: free processors
//! over `[origin, inf)` as a step function whose breakpoints live in a two-level tree of
//! sorted blocks (at most `2 * BLOCK` breakpoints each), every block carrying a pending
//! addition and the minimum and maximum free count of its steps.
//!
//! It answers the same questions as [`Profile`](crate::profile::Profile) with the same
//! results (a property test runs both on random operations), but a range update adds to
//! whole blocks at once, and the searches behind earliest fit ("first step with at least
//! `need` free", "first step with fewer than `need` free") skip whole blocks on their
//! minimum or maximum. Conservative backfilling (Mu'alem & Feitelson 2001) keeps one
//! reservation per queued job, so its profile holds thousands of breakpoints when the queue
//! is deep; the flat vector of [`Profile`](crate::profile::Profile) (still the right shape
//! for the planning profile of overbooking, which needs every boundary kept and a slice of
//! its steps) made each reservation and each compression step linear in the queue depth.

use std::cell::Cell;

use crate::error::{check_capacity, check_time, Result, SimError};

/// Target block length; a block is split in two when it grows past twice this.
#[cfg(not(test))]
const BLOCK: usize = 48;
/// Tiny blocks in unit tests, so that the random operations split and fold blocks all the
/// time.
#[cfg(test)]
const BLOCK: usize = 8;

#[derive(Debug, Clone)]
struct Block {
    /// Breakpoint times, strictly increasing (and increasing across blocks).
    times: Vec<f64>,
    /// Free processors of each step, without `lazy`.
    free: Vec<i64>,
    /// Added to every step of the block.
    lazy: i64,
    /// Minimum and maximum of `free` (without `lazy`), computed when a search first needs
    /// them after a change: a search scans the block it starts in without them, so the
    /// plan of a short queue (one block) never pays for them.
    extremes: Cell<Option<(i64, i64)>>,
}

impl PartialEq for Block {
    fn eq(&self, other: &Self) -> bool {
        (&self.times, &self.free, self.lazy) == (&other.times, &other.free, other.lazy)
    }
}

impl Block {
    fn new(times: Vec<f64>, free: Vec<i64>, lazy: i64) -> Self {
        Self {
            times,
            free,
            lazy,
            extremes: Cell::new(None),
        }
    }

    fn refresh(&mut self) {
        self.extremes.set(None);
    }

    /// (min, max) of the free counts, `lazy` included.
    fn min_max(&self) -> (i64, i64) {
        let (min, max) = self.extremes.get().unwrap_or_else(|| {
            let m = (
                self.free.iter().copied().min().unwrap_or(i64::MAX),
                self.free.iter().copied().max().unwrap_or(i64::MIN),
            );
            self.extremes.set(Some(m));
            m
        });
        (min + self.lazy, max + self.lazy)
    }
}

/// How many of the sorted `times` are at or before `t` (their partition point): a
/// branch-free count over a block runs as independent vector compares, where a binary search
/// is a chain of dependent loads (the count measured faster on blocks of up to 96 times).
fn at_or_before(times: &[f64], t: f64) -> usize {
    times.iter().fold(0, |n, &x| n + usize::from(x <= t))
}

/// A step: block and index inside it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Pos {
    b: usize,
    i: usize,
}

/// The step where the next search by time is likely to start: the one the last search by
/// time found, the first step with enough processors free that a compression's lookup
/// found, or the start of the last range update (a run of reservations of one shape, or of
/// one processor count, searches from one place). A search checks it first. Any step is
/// checked before use, so an outdated one costs a few loads, never a wrong answer. Not part
/// of the plan: every memo compares equal.
#[derive(Debug, Clone, Default)]
struct LastFound(Cell<Pos>);

impl PartialEq for LastFound {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

/// A step function of free processors over `[origin, inf)`, indexed by time.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Timeline {
    capacity: u32,
    blocks: Vec<Block>,
    last_found: LastFound,
}

impl Timeline {
    /// An empty profile (all `capacity` processors free) from `origin` on.
    pub(crate) fn new(capacity: u32, origin: f64) -> Result<Self> {
        check_time("profile origin", origin)?;
        check_capacity(capacity)?;
        Ok(Self {
            capacity,
            blocks: vec![Block::new(vec![origin], vec![i64::from(capacity)], 0)],
            last_found: LastFound::default(),
        })
    }

    pub(crate) fn origin(&self) -> f64 {
        self.blocks[0].times[0]
    }

    fn time(&self, p: Pos) -> f64 {
        self.blocks[p.b].times[p.i]
    }

    fn free(&self, p: Pos) -> i64 {
        let blk = &self.blocks[p.b];
        blk.free[p.i] + blk.lazy
    }

    fn next(&self, p: Pos) -> Option<Pos> {
        if p.i + 1 < self.blocks[p.b].times.len() {
            Some(Pos { b: p.b, i: p.i + 1 })
        } else if p.b + 1 < self.blocks.len() {
            Some(Pos { b: p.b + 1, i: 0 })
        } else {
            None
        }
    }

    fn prev(&self, p: Pos) -> Option<Pos> {
        if p.i > 0 {
            Some(Pos { b: p.b, i: p.i - 1 })
        } else if p.b > 0 {
            Some(Pos {
                b: p.b - 1,
                i: self.blocks[p.b - 1].times.len() - 1,
            })
        } else {
            None
        }
    }

    /// The step containing `t` (the first step if `t` is before the origin).
    fn locate(&self, t: f64) -> Pos {
        // Compression searches from the origin over and over: no search for the first step.
        let second = match self.blocks[0].times.get(1) {
            Some(&x) => x,
            None => self.blocks.get(1).map_or(f64::INFINITY, |blk| blk.times[0]),
        };
        if t < second {
            return Pos { b: 0, i: 0 };
        }
        let last = self.last_found.0.get();
        if self.holds(last, t) {
            return last;
        }
        let b = self
            .blocks
            .partition_point(|blk| blk.times[0] <= t)
            .saturating_sub(1);
        let i = at_or_before(&self.blocks[b].times, t).saturating_sub(1);
        self.last_found.0.set(Pos { b, i });
        Pos { b, i }
    }

    /// Whether `p` is a step of the plan and `t` lies in it.
    fn holds(&self, p: Pos, t: f64) -> bool {
        let Some(blk) = self.blocks.get(p.b) else {
            return false;
        };
        let (Some(&from), next) = (blk.times.get(p.i), blk.times.get(p.i + 1)) else {
            return false;
        };
        let until = next
            .or_else(|| self.blocks.get(p.b + 1).map(|n| &n.times[0]))
            .copied()
            .unwrap_or(f64::INFINITY);
        from <= t && t < until
    }

    /// Free processors at time `t`.
    pub(crate) fn free_at(&self, t: f64) -> i64 {
        self.free(self.locate(t))
    }

    /// The first step at or after `from` whose free count satisfies `hit`, skipping every
    /// block whose (min, max) range `may_hit` rules out.
    fn find(
        &self,
        from: Pos,
        may_hit: impl Fn(i64, i64) -> bool,
        hit: impl Fn(i64) -> bool,
    ) -> Option<Pos> {
        let mut i = from.i;
        for (b, blk) in self.blocks.iter().enumerate().skip(from.b) {
            let (min, max) = if b == from.b {
                (i64::MIN, i64::MAX)
            } else {
                blk.min_max()
            };
            if may_hit(min, max) {
                if let Some(k) = blk.free[i..].iter().position(|&f| hit(f + blk.lazy)) {
                    return Some(Pos { b, i: i + k });
                }
            }
            i = 0;
        }
        None
    }

    /// [`Self::find`] among the steps that begin before `limit`: a scan that ends where the
    /// interval it checks ends, however far the steps would go on matching. (A loop of its
    /// own: the time compare of each step would cost the unbounded scans 3 % more
    /// instructions on a conservative run.)
    fn find_before(
        &self,
        from: Pos,
        limit: f64,
        may_hit: impl Fn(i64, i64) -> bool,
        hit: impl Fn(i64) -> bool,
    ) -> Option<Pos> {
        let mut i = from.i;
        for (b, blk) in self.blocks.iter().enumerate().skip(from.b) {
            if blk.times[i] >= limit {
                return None;
            }
            let (min, max) = if b == from.b {
                (i64::MIN, i64::MAX)
            } else {
                blk.min_max()
            };
            if may_hit(min, max) {
                let steps = blk.times[i..].iter().zip(&blk.free[i..]);
                let found = steps
                    .take_while(|&(&t, _)| t < limit)
                    .position(|(_, &f)| hit(f + blk.lazy));
                if let Some(k) = found {
                    return Some(Pos { b, i: i + k });
                }
            }
            i = 0;
        }
        None
    }

    /// Whether a step from `from` on that begins before `end` has more than `room` free.
    fn any_above(&self, from: Pos, end: f64, room: i64) -> bool {
        self.find_before(from, end, |_, max| max > room, |f| f > room)
            .is_some()
    }

    fn first_at_least(&self, from: Pos, need: i64) -> Option<Pos> {
        self.find(from, |_, max| max >= need, |f| f >= need)
    }

    fn first_below(&self, from: Pos, need: i64) -> Option<Pos> {
        self.find(from, |min, _| min < need, |f| f < need)
    }

    /// The first step at or after `from` that begins before `limit` and has at least `need`
    /// free (none: no window of `need` processors starts before `limit`).
    fn first_at_least_before(&self, from: Pos, need: i64, limit: f64) -> Option<Pos> {
        self.find_before(from, limit, |_, max| max >= need, |f| f >= need)
    }

    /// The first step at or after `from` that begins before `limit` and has fewer than
    /// `need` free (none: `need` are free from `from` until `limit`): a window's check ends
    /// at the window's end, however long the run of free processors goes on.
    fn first_below_before(&self, from: Pos, need: i64, limit: f64) -> Option<Pos> {
        self.find_before(from, limit, |min, _| min < need, |f| f < need)
    }

    /// The first time at or after `from` (clamped to the origin) with at least `need` free
    /// processors, if any.
    pub(crate) fn first_time_with(&self, from: f64, need: i64) -> Option<f64> {
        let p = self.first_at_least(self.locate(from), need)?;
        // A compression searches for a fit from this time next.
        self.last_found.0.set(p);
        Some(self.time(p).max(from))
    }

    /// The step containing `t`, searched from the step at `from` on (`t` is not before it):
    /// inside that block when `t` is, which spares the search over the blocks, walking from
    /// `from` (the ends of a move's updates mostly lie a few steps after their starts, where
    /// counting the rest of the block read all of it).
    fn locate_after(&self, from: Pos, t: f64) -> Pos {
        let in_block = self
            .blocks
            .get(from.b + 1)
            .is_none_or(|next| next.times[0] > t);
        if !in_block {
            return self.locate(t);
        }
        let rest = &self.blocks[from.b].times[from.i..];
        let later = rest[1..]
            .iter()
            .position(|&x| x > t)
            .unwrap_or(rest.len() - 1);
        Pos {
            b: from.b,
            i: from.i + later,
        }
    }

    /// Ensures a breakpoint exactly at `t`, in the step at `p`; returns its position.
    fn split(&mut self, p: Pos, t: f64) -> Pos {
        let blk = &mut self.blocks[p.b];
        if blk.times[p.i] == t {
            return p;
        }
        let v = blk.free[p.i];
        blk.times.insert(p.i + 1, t);
        blk.free.insert(p.i + 1, v);
        if blk.times.len() > 2 * BLOCK {
            let half = blk.times.len() / 2;
            let right = Block::new(
                blk.times.split_off(half),
                blk.free.split_off(half),
                blk.lazy,
            );
            blk.refresh();
            self.blocks.insert(p.b + 1, right);
            return self.locate(t);
        }
        Pos { b: p.b, i: p.i + 1 }
    }

    /// Removes the step at `p` (never the origin step), folding a block that became small
    /// into its left neighbour; returns whether blocks were removed or rebuilt (positions
    /// after `p` are stale then).
    fn remove(&mut self, p: Pos) -> bool {
        let blk = &mut self.blocks[p.b];
        blk.times.remove(p.i);
        blk.free.remove(p.i);
        if blk.times.is_empty() {
            self.blocks.remove(p.b);
            return true;
        }
        blk.refresh();
        if blk.times.len() < BLOCK / 4 && p.b > 0 {
            let mut small = self.blocks.remove(p.b);
            let left = &mut self.blocks[p.b - 1];
            let shift = small.lazy - left.lazy;
            left.times.append(&mut small.times);
            left.free.extend(small.free.iter().map(|f| f + shift));
            left.refresh();
            if left.times.len() > 2 * BLOCK {
                let half = left.times.len() / 2;
                let right = Block::new(
                    left.times.split_off(half),
                    left.free.split_off(half),
                    left.lazy,
                );
                left.refresh();
                self.blocks.insert(p.b, right);
            }
            return true;
        }
        false
    }

    /// Drops the breakpoint at `p` if the step before it has the same free count; returns
    /// whether the block layout changed (positions after a removal are stale then).
    fn merge_at(&mut self, p: Pos) -> bool {
        match self.prev(p) {
            Some(q) if self.free(q) == self.free(p) => self.remove(p),
            _ => false,
        }
    }

    /// Adds `delta` free processors over `[start, end)` (clamped to the origin), unchecked.
    fn add(&mut self, start: f64, end: f64, delta: i64) {
        let start = start.max(self.origin());
        self.add_at(self.locate(start), start, end, delta);
    }

    /// [`Self::add`] for a `start` not before the origin, in the step at `p`; returns whether
    /// the blocks were rebuilt (every position taken before is stale then, otherwise only
    /// those after `start`).
    fn add_at(&mut self, p: Pos, start: f64, end: f64, delta: i64) -> bool {
        if end <= start || self.slide(p, start, end, delta) {
            return false;
        }
        let blocks = self.blocks.len();
        let mut a = self.split(p, start);
        let mut rebuilt = blocks != self.blocks.len();
        let z = self.split(self.locate_after(a, end), end);
        if blocks != self.blocks.len() {
            rebuilt = true;
            a = self.locate(start);
        }
        if a.b == z.b {
            let blk = &mut self.blocks[a.b];
            blk.free[a.i..z.i].iter_mut().for_each(|f| *f += delta);
            blk.refresh();
        } else {
            let first = &mut self.blocks[a.b];
            first.free[a.i..].iter_mut().for_each(|f| *f += delta);
            first.refresh();
            for blk in &mut self.blocks[a.b + 1..z.b] {
                blk.lazy += delta;
            }
            let last = &mut self.blocks[z.b];
            last.free[..z.i].iter_mut().for_each(|f| *f += delta);
            last.refresh();
        }
        // Inside [start, end) neighbours kept their difference: only the two ends can
        // have become equal to the step before them. The end goes first, so the start's
        // position stays valid unless a block was folded away.
        if self.merge_at(z) {
            rebuilt = true;
            a = self.locate(start);
        }
        // The next search (a compression's next reservation of this shape) starts here.
        self.last_found.0.set(a);
        self.merge_at(a) || rebuilt
    }

    /// [`Self::add_at`] when the update, inside the block of `p`, creates a breakpoint at
    /// one end and makes the one at the other end redundant (the common case of a move,
    /// whose slot slides): the steps between shift by one place, instead of an insertion
    /// and a removal that each shift the rest of the block. Returns whether it applied
    /// (otherwise nothing changed).
    fn slide(&mut self, p: Pos, start: f64, end: f64, delta: i64) -> bool {
        if self
            .blocks
            .get(p.b + 1)
            .is_some_and(|next| next.times[0] <= end)
        {
            return false;
        }
        let blk = &mut self.blocks[p.b];
        let rest = &blk.times[p.i..];
        // The step holding `end`.
        let z = p.i
            + rest[1..]
                .iter()
                .position(|&x| x > end)
                .unwrap_or(rest.len() - 1);
        if blk.times[p.i] != start {
            // A new breakpoint at `start`; the one at `end` goes if the step before it
            // (updated) then has its count.
            if z == p.i || blk.times[z] != end || blk.free[z - 1] + delta != blk.free[z] {
                return false;
            }
            blk.times.copy_within(p.i + 1..z, p.i + 2);
            blk.free.copy_within(p.i + 1..z, p.i + 2);
            blk.times[p.i + 1] = start;
            blk.free[p.i + 1] = blk.free[p.i];
            blk.free[p.i + 1..=z].iter_mut().for_each(|f| *f += delta);
        } else {
            // The breakpoint at `start` goes if the updated step has the count of the step
            // before it; a new one at `end`.
            if p.i == 0 || blk.times[z] == end || blk.free[p.i - 1] != blk.free[p.i] + delta {
                return false;
            }
            let after_end = blk.free[z];
            blk.times.copy_within(p.i + 1..=z, p.i);
            blk.free.copy_within(p.i + 1..=z, p.i);
            blk.times[z] = end;
            blk.free[z] = after_end;
            blk.free[p.i..z].iter_mut().for_each(|f| *f += delta);
        }
        blk.refresh();
        true
    }

    /// Minimum free processors over `[start, end)` (for error messages).
    fn min_free(&self, start: f64, end: f64) -> i64 {
        let mut p = self.locate(start);
        let mut m = self.free(p);
        while let Some(q) = self.next(p) {
            if self.time(q) >= end {
                break;
            }
            m = m.min(self.free(q));
            p = q;
        }
        m
    }

    /// Takes `procs` processors over `[start, end)`. Errors (leaving the profile unchanged)
    /// if that would over-allocate at any instant.
    pub(crate) fn reserve(&mut self, start: f64, end: f64, procs: u32) -> Result<()> {
        check_time("interval start", start)?;
        check_time("interval end", end)?;
        let from = start.max(self.origin());
        let need = i64::from(procs);
        // Like the flat profile, the step containing the start counts even for an interval
        // that ends before it.
        let at = self.locate(from);
        let short = self
            .first_below(at, need)
            .is_some_and(|p| p == at || self.time(p) < end);
        if short {
            return Err(SimError::OverAllocation {
                start,
                end,
                procs,
                free: self.min_free(from, end),
            });
        }
        self.add(start, end, -need);
        Ok(())
    }

    /// Gives back `procs` processors over `[start, end)`. Errors (leaving the profile
    /// unchanged) if that would free more processors than the machine has at any instant.
    pub(crate) fn release(&mut self, start: f64, end: f64, procs: u32) -> Result<()> {
        check_time("interval start", start)?;
        check_time("interval end", end)?;
        self.check_held(start, end, procs)?;
        self.add(start, end, i64::from(procs));
        Ok(())
    }

    /// Errors unless `procs` processors can be given back over `[start, end)` without
    /// freeing more than the machine has at any instant.
    fn check_held(&self, start: f64, end: f64, procs: u32) -> Result<()> {
        let from = start.max(self.origin());
        self.check_held_at(self.locate(from), from, end, procs)
    }

    /// [`Self::check_held`] for a `from` not before the origin, in the step at `p`.
    fn check_held_at(&self, p: Pos, from: f64, end: f64, procs: u32) -> Result<()> {
        let room = i64::from(self.capacity) - i64::from(procs);
        if end > from && self.any_above(p, end, room) {
            return Err(SimError::InvalidParameter {
                name: "released processors",
                value: procs.to_string(),
                reason: "more than are reserved over the interval",
            });
        }
        Ok(())
    }

    /// The earliest `t >= after` with at least `procs` free processors throughout
    /// `[t, t + duration)`. Errors if `procs` exceeds the machine.
    pub(crate) fn earliest_fit(&self, after: f64, procs: u32, duration: f64) -> Result<f64> {
        self.checked_fit(after, procs, duration).map(|(t, _)| t)
    }

    /// Takes `procs` processors over `[t, t + duration)` at the earliest such `t >= after`
    /// ([`Self::earliest_fit`] then [`Self::reserve`], without searching the plan again:
    /// the fit holds the processors); returns `t`.
    pub(crate) fn reserve_earliest(
        &mut self,
        after: f64,
        procs: u32,
        duration: f64,
    ) -> Result<f64> {
        let (t, at) = self.checked_fit(after, procs, duration)?;
        // `t` is not before the origin: it is the start of a step or `after` inside one.
        self.add_at(at, t, t + duration, -i64::from(procs));
        Ok(t)
    }

    /// [`Self::earliest_fit`] with the step holding the start.
    fn checked_fit(&self, after: f64, procs: u32, duration: f64) -> Result<(f64, Pos)> {
        check_time("query time", after)?;
        check_time("duration", duration)?;
        let unfit = SimError::OverAllocation {
            start: after,
            end: after + duration,
            procs,
            free: i64::from(self.capacity),
        };
        if procs > self.capacity {
            return Err(unfit);
        }
        self.fit(after, i64::from(procs), duration).ok_or(unfit)
    }

    /// Earliest fit without checks: alternately the first step with enough free processors
    /// and the end of that run of steps, until the run is long enough. Returns the start
    /// with the step holding it.
    fn fit(&self, after: f64, need: i64, duration: f64) -> Option<(f64, Pos)> {
        let mut from = self.locate(after);
        loop {
            let s = self.first_at_least(from, need)?;
            let cand = after.max(self.time(s));
            match self.first_below_before(s, need, cand + duration) {
                None => return Some((cand, s)),
                Some(z) => from = z,
            }
        }
    }

    /// The earliest start in `[after, before)` for a job of `need` processors and
    /// `duration` that holds the reservation `[before, before + duration)`, whose own slot
    /// counts as free; `None` if no start earlier than `before` fits. A window starting
    /// before `before` ends before the own slot does, so it fits iff it has `need` free
    /// processors up to `before` or up to its end, whichever comes first. Returns the start
    /// with the step holding it.
    fn earlier_fit(&self, after: f64, before: f64, need: i64, duration: f64) -> Option<(f64, Pos)> {
        if before <= self.origin() {
            return None;
        }
        let mut from = self.locate(after);
        loop {
            let s = self.first_at_least_before(from, need, before)?;
            let cand = after.max(self.time(s));
            if cand >= before {
                return None;
            }
            // `cand` is the step's start, or `after` inside the step that holds it; the
            // window needs `need` free until its end or the own slot, whichever is first.
            match self.first_below_before(s, need, (cand + duration).min(before)) {
                None => return Some((cand, s)),
                Some(z) => from = z,
            }
        }
    }

    /// Moves the reservation `[start, start + duration)` of `procs` processors to its
    /// earliest fit at or after `after`, counting its own slot as free; returns the new
    /// start, never later than `start`. The profile changes only when the reservation
    /// moves; errors (profile unchanged) if it would move and the part of the old slot it
    /// gives back (the part the new slot does not cover) is not held.
    pub(crate) fn refit(
        &mut self,
        after: f64,
        start: f64,
        procs: u32,
        duration: f64,
    ) -> Result<f64> {
        let need = i64::from(procs);
        let Some((t, at)) = self.earlier_fit(after, start, need, duration) else {
            return Ok(start);
        };
        let (end, new_end) = (start + duration, t + duration);
        check_time("interval start", start)?;
        check_time("interval end", end)?;
        // One update per end of the move: the old and the new slot overlap over
        // [start, new_end) (when the move is shorter than the job), where nothing changes.
        // Only the tail of the old slot that the new one does not cover is given back, so
        // only it is checked; it lies after `t` (the new start is before the old one), so
        // giving it back first leaves the position of `t` valid unless blocks were rebuilt.
        let tail = new_end.max(start);
        let from = self.locate_after(at, tail);
        self.check_held_at(from, tail, end, procs)?;
        let at = if self.add_at(from, tail, end, need) {
            self.locate(t)
        } else {
            at
        };
        self.add_at(at, t, new_end.min(start), -need);
        Ok(t)
    }

    /// Forgets everything before `now` (moves the origin forward).
    pub(crate) fn advance(&mut self, now: f64) {
        if now <= self.origin() {
            return;
        }
        let p = self.locate(now);
        self.blocks.drain(..p.b);
        let blk = &mut self.blocks[0];
        if p.i > 0 {
            blk.times.drain(..p.i);
            blk.free.drain(..p.i);
            blk.refresh();
        }
        blk.times[0] = now;
    }

    /// The steps as (time, free), in time order.
    #[cfg(test)]
    fn steps(&self) -> Vec<(f64, i64)> {
        self.blocks
            .iter()
            .flat_map(|b| b.times.iter().zip(&b.free).map(|(&t, &f)| (t, f + b.lazy)))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::Profile;
    use proptest::prelude::*;

    /// Random operations on a [`Timeline`] and on the flat [`Profile`]: same answers, same
    /// step function (both merge equal neighbours).
    #[derive(Debug, Clone)]
    enum Op {
        Reserve(u32, u32, u32),
        Release(u32, u32, u32),
        Fit(u32, u32, u32),
        ReserveEarliest(u32, u32, u32),
        Refit(u32, u32, u32, u32),
        Advance(u32),
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            4 => (0u32..400, 1u32..60, 1u32..9).prop_map(|(s, d, k)| Op::Reserve(s, d, k)),
            2 => (0u32..400, 1u32..60, 1u32..9).prop_map(|(s, d, k)| Op::Release(s, d, k)),
            3 => (0u32..400, 1u32..9, 1u32..80).prop_map(|(a, k, d)| Op::Fit(a, k, d)),
            2 => (0u32..400, 1u32..10, 0u32..80).prop_map(|(a, k, d)| Op::ReserveEarliest(a, k, d)),
            2 => (0u32..400, 0u32..400, 1u32..9, 1u32..60).prop_map(|(a, s, k, d)| Op::Refit(a, s, k, d)),
            1 => (0u32..400).prop_map(Op::Advance),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]
        #[test]
        fn agrees_with_the_flat_profile(ops in proptest::collection::vec(op(), 0..400)) {
            let mut t = Timeline::new(8, 0.0).unwrap();
            let mut p = Profile::new(8, 0.0).unwrap();
            for o in ops {
                match o {
                    Op::Reserve(s, d, k) => {
                        let (s, e) = (f64::from(s), f64::from(s + d));
                        prop_assert_eq!(t.reserve(s, e, k).is_ok(), p.reserve(s, e, k).is_ok());
                    }
                    Op::Release(s, d, k) => {
                        let (s, e) = (f64::from(s), f64::from(s + d));
                        prop_assert_eq!(t.release(s, e, k).is_ok(), p.release(s, e, k).is_ok());
                    }
                    Op::Fit(a, k, d) => {
                        let (a, d) = (f64::from(a), f64::from(d));
                        prop_assert_eq!(t.earliest_fit(a, k, d).ok(), p.earliest_fit(a, k, d).ok());
                        prop_assert_eq!(t.free_at(a), p.free_at(a));
                        let steps = p.steps();
                        let k0 = steps.partition_point(|s| s.time <= a).saturating_sub(1);
                        let want = steps[k0..]
                            .iter()
                            .find(|s| s.free >= i64::from(k))
                            .map(|s| s.time.max(a));
                        prop_assert_eq!(t.first_time_with(a, i64::from(k)), want);
                    }
                    Op::ReserveEarliest(a, k, d) => {
                        let (a, d) = (f64::from(a), f64::from(d));
                        let want = p.earliest_fit(a, k, d);
                        if let Ok(w) = want {
                            p.reserve(w, w + d, k).unwrap();
                        }
                        prop_assert_eq!(t.reserve_earliest(a, k, d).ok(), want.ok());
                    }
                    Op::Refit(a, s, k, d) => {
                        // A reservation placed by earliest fit, then moved as compression does.
                        let (a, s, d) = (f64::from(a), f64::from(s), f64::from(d));
                        let Ok(at) = p.earliest_fit(s, k, d) else { continue };
                        p.reserve(at, at + d, k).unwrap();
                        t.reserve(at, at + d, k).unwrap();
                        let moved = t.refit(a, at, k, d).unwrap();
                        let want = p.earlier_fit_than(a, at, k, d).unwrap_or(at);
                        if want < at {
                            p.release(at, at + d, k).unwrap();
                            p.reserve(want, want + d, k).unwrap();
                        }
                        prop_assert_eq!(moved, want);
                    }
                    Op::Advance(n) => {
                        t.advance(f64::from(n));
                        p.advance(f64::from(n));
                    }
                }
                let flat: Vec<(f64, i64)> = p.steps().iter().map(|s| (s.time, s.free)).collect();
                prop_assert_eq!(t.steps(), flat);
                prop_assert_eq!(t.origin(), p.origin());
            }
        }
    }

    #[test]
    fn blocks_split_and_fold_back() {
        let mut t = Timeline::new(1000, 0.0).unwrap();
        for k in 0..400u32 {
            t.reserve(f64::from(2 * k), f64::from(2 * k + 1), 1 + k % 7)
                .unwrap();
        }
        assert!(t.blocks.len() > 4, "{} blocks", t.blocks.len());
        let mut flat = Profile::new(1000, 0.0).unwrap();
        for k in 0..400u32 {
            flat.reserve(f64::from(2 * k), f64::from(2 * k + 1), 1 + k % 7)
                .unwrap();
        }
        for (need, dur) in [(994, 1.0), (994, 2.0), (995, 1.0), (999, 3.0), (1000, 1.0)] {
            assert_eq!(
                t.earliest_fit(0.0, need, dur).unwrap(),
                flat.earliest_fit(0.0, need, dur).unwrap()
            );
        }
        assert_eq!(t.earliest_fit(0.0, 1000, 1.5).unwrap(), 799.0);
        for k in 0..400u32 {
            t.release(f64::from(2 * k), f64::from(2 * k + 1), 1 + k % 7)
                .unwrap();
        }
        assert_eq!(t.steps(), vec![(0.0, 1000)]);
        assert!(t.release(0.0, 1.0, 1).is_err());
        assert!(t.reserve(0.0, 1.0, 1001).is_err());
        assert!(Timeline::new(0, 0.0).is_err());
    }
}
