//! Time-shared compute nodes and deadline-based proportional-share job control
//! (Algorithm 2 of Yeo & Buyya, §VI.B; the node model around it is ours, as the paper gives
//! only the partition formula).
//!
//! Every process of an accepted job runs on its node with a processor-time partition
//! `Partition_ij = (RE_ij - clockCPU_ij) / (D_i - clockWall_i)` (capped at 1). When the sum of
//! demands S exceeds 1 all rates are squeezed proportionally (`rate = d / S`); otherwise the
//! node is non-work-conserving (`rate = d`, the default: jobs finish at their deadline, as in
//! Libra) or shares its slack in
//! proportion to the partitions ([`RateMode::WorkConserving`]). A process whose estimate is
//! exhausted or whose deadline has passed follows the [`OverrunPolicy`].

use crate::error::Result;
use slarm_stats::check;

/// Tolerance of the share test `Σ partitions + RE/D <= 1 + EPS` of admission (Algorithm 1;
/// see [`crate::admission::DeadlineTest`]) and of the capped-rate test of job control.
pub const SHARE_EPS: f64 = 1e-9;

/// How a node turns partitions into processor rates (the paper does not say whether unused
/// capacity is redistributed).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum RateMode {
    /// rate = partition (squeezed when over-subscribed): jobs finish exactly at their deadline.
    Capped,
    /// Slack is shared in proportion to the partitions: rate = partition / S.
    WorkConserving,
}

/// Demand of a process that has exhausted its estimate or passed its deadline (Algorithm 2's
/// numerator or denominator is then <= 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
#[non_exhaustive]
pub enum OverrunPolicy {
    /// Best effort: demand 1.0 (default).
    FullDemand,
    /// Keep the last partition computed while on schedule.
    KeepLastShare,
    /// Only the capacity the on-schedule processes leave, split equally among overrunners.
    LeftoverOnly,
}

/// Job-control settings of every node, built by [`JobControl::new`] or [`Default`] and
/// changed with the `with_*` methods (also validated when deserialized).
///
/// ```
/// use slarm_pricing::node::{JobControl, OverrunPolicy, RateMode};
///
/// let jc = JobControl::default().with_rate_mode(RateMode::WorkConserving);
/// assert_eq!(jc.control_interval(), 60.0);
/// assert!(jc.with_control_interval(0.0).is_err());
/// assert!(JobControl::new(RateMode::Capped, OverrunPolicy::FullDemand, f64::NAN).is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(try_from = "JobControlRaw"))]
pub struct JobControl {
    pub(crate) rate_mode: RateMode,
    pub(crate) overrun: OverrunPolicy,
    pub(crate) control_interval: f64,
}

/// The unvalidated fields of [`JobControl`], for deserialization.
#[cfg(feature = "serde")]
#[derive(serde::Deserialize)]
struct JobControlRaw {
    rate_mode: RateMode,
    overrun: OverrunPolicy,
    control_interval: f64,
}

#[cfg(feature = "serde")]
impl TryFrom<JobControlRaw> for JobControl {
    type Error = crate::error::PricingError;
    fn try_from(r: JobControlRaw) -> Result<Self> {
        Self::new(r.rate_mode, r.overrun, r.control_interval)
    }
}

impl Default for JobControl {
    fn default() -> Self {
        Self {
            rate_mode: RateMode::Capped,
            overrun: OverrunPolicy::FullDemand,
            control_interval: 60.0,
        }
    }
}

impl JobControl {
    /// Validated settings: the control interval must be finite and > 0.
    pub fn new(rate_mode: RateMode, overrun: OverrunPolicy, control_interval: f64) -> Result<Self> {
        check::positive("control interval", control_interval)?;
        Ok(Self {
            rate_mode,
            overrun,
            control_interval,
        })
    }

    /// The rate model.
    pub fn rate_mode(&self) -> RateMode {
        self.rate_mode
    }

    /// The overrun policy.
    pub fn overrun(&self) -> OverrunPolicy {
        self.overrun
    }

    /// CONTROL_INTERVAL in seconds (default 60 s; the paper says only "periodically").
    pub fn control_interval(&self) -> f64 {
        self.control_interval
    }

    /// The same settings with another rate model.
    pub fn with_rate_mode(self, rate_mode: RateMode) -> Self {
        Self { rate_mode, ..self }
    }

    /// The same settings with another overrun policy.
    pub fn with_overrun(self, overrun: OverrunPolicy) -> Self {
        Self { overrun, ..self }
    }

    /// The same settings with another control interval (validated).
    pub fn with_control_interval(self, control_interval: f64) -> Result<Self> {
        Self::new(self.rate_mode, self.overrun, control_interval)
    }

    /// Validates the control interval (> 0, finite); always true of a value built by this
    /// crate's constructors.
    pub fn validate(&self) -> Result<()> {
        check::positive("control interval", self.control_interval)?;
        Ok(())
    }
}

/// What counts as "committed" processor time in RESFree (eq. 6). The default is the windowed
/// reading, as in the paper's worked example for eq. 5 (§V.B), which subtracts the usage
/// inside the job's window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum CommitMode {
    /// Processor time each running job uses inside the window under its current partition:
    /// `min(remaining_k, s_k · (DT_i - now))` (default).
    Windowed,
    /// Σ remaining estimate `max(0, RE_k - clockCPU_k)`.
    RemainingEstimate,
    /// Σ RE_k (the literal reading).
    FullEstimate,
}

/// A compute node's static description, built by [`Node::new`] and
/// [`with_capacity`](Node::with_capacity) (also validated when deserialized).
///
/// ```
/// use slarm_pricing::node::Node;
///
/// let n = Node::new(0, 168.0)?.with_capacity(64.0, f64::INFINITY)?;
/// assert_eq!((n.id(), n.rating(), n.mem()), (0, 168.0, 64.0));
/// assert!(Node::new(1, f64::NAN).is_err());
/// assert!(n.with_capacity(-1.0, 1.0).is_err());
/// # Ok::<(), slarm_pricing::PricingError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(try_from = "NodeRaw"))]
pub struct Node {
    pub(crate) id: usize,
    pub(crate) rating: f64,
    pub(crate) mem: f64,
    pub(crate) disk: f64,
}

/// The unvalidated fields of [`Node`], for deserialization.
#[cfg(feature = "serde")]
#[derive(serde::Deserialize)]
struct NodeRaw {
    id: usize,
    rating: f64,
    mem: f64,
    disk: f64,
}

#[cfg(feature = "serde")]
impl TryFrom<NodeRaw> for Node {
    type Error = crate::error::PricingError;
    fn try_from(r: NodeRaw) -> Result<Self> {
        Self::new(r.id, r.rating)?.with_capacity(r.mem, r.disk)
    }
}

impl Node {
    /// A node with the given rating and unlimited memory and disk (the evaluation models
    /// neither).
    pub fn new(id: usize, rating: f64) -> Result<Self> {
        check::positive("node rating", rating)?;
        Ok(Self {
            id,
            rating,
            mem: f64::INFINITY,
            disk: f64::INFINITY,
        })
    }

    /// Node id (0-based).
    pub fn id(&self) -> usize {
        self.id
    }

    /// Speed rating (SPEC 168 for the SDSC SP2 nodes).
    pub fn rating(&self) -> f64 {
        self.rating
    }

    /// Memory capacity (`f64::INFINITY` = not modelled).
    pub fn mem(&self) -> f64 {
        self.mem
    }

    /// Disk capacity (`f64::INFINITY` = not modelled).
    pub fn disk(&self) -> f64 {
        self.disk
    }

    /// Checks the rating (finite, > 0) and the capacities (>= 0, infinity allowed); always
    /// true of a node built by this crate's constructors.
    pub fn validate(&self) -> Result<()> {
        check::positive("node rating", self.rating)?;
        self.with_capacity(self.mem, self.disk).map(|_| ())
    }

    /// Sets memory and disk capacities (>= 0; infinity allowed).
    pub fn with_capacity(mut self, mem: f64, disk: f64) -> Result<Self> {
        if mem.is_nan() || mem < 0.0 {
            check::non_negative("memory capacity", mem)?;
            return Ok(self);
        }
        if disk.is_nan() || disk < 0.0 {
            check::non_negative("disk capacity", disk)?;
            return Ok(self);
        }
        self.mem = mem;
        self.disk = disk;
        Ok(self)
    }
}

/// One process of a job on a node.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Process {
    /// Index of the job in the simulation.
    pub job: usize,
    /// Arrival time AT_i (the wall clock of Algorithm 2 starts here).
    pub arrival: f64,
    /// Relative deadline D_i.
    pub deadline: f64,
    /// RE_ij: estimate on this node (processor-seconds).
    pub estimate: f64,
    /// Real work on this node (processor-seconds, R_ij).
    pub work: f64,
    /// clockCPU_ij: processor time received so far.
    pub cpu: f64,
    /// Current demand (Algorithm-2 partition, or the overrun demand).
    pub demand: f64,
    /// Current processor rate.
    pub rate: f64,
    /// Memory held.
    pub mem: f64,
    /// Disk held.
    pub disk: f64,
    /// Whether the process has exhausted its estimate or passed its deadline.
    pub overrun: bool,
}

impl Process {
    /// A new process at its arrival: partition RE/D, nothing done yet.
    pub fn start(job: usize, arrival: f64, deadline: f64, estimate: f64, work: f64) -> Self {
        let d = (estimate / deadline).min(1.0);
        Self {
            job,
            arrival,
            deadline,
            estimate,
            work,
            cpu: 0.0,
            demand: d,
            rate: d,
            mem: 0.0,
            disk: 0.0,
            overrun: false,
        }
    }

    /// This process's next event at its current rate, seen at `now`: its real work done,
    /// its estimate running out or its deadline passing (the last two only while on
    /// schedule). A candidate certainly later than `horizon` is skipped (without its
    /// division); callers take the minimum with `horizon`, so the result is unchanged.
    fn next_event(&self, now: f64, horizon: f64) -> f64 {
        self.next_event_due(now, horizon, self.arrival + self.deadline)
    }

    /// [`next_event`](Self::next_event) with the absolute deadline `due` already formed.
    #[inline]
    fn next_event_due(&self, now: f64, horizon: f64, due: f64) -> f64 {
        let mut t = f64::INFINITY;
        if self.rate > 0.0 {
            // x / rate > horizon - now for sure once x >= 4·rate·(horizon - now) > 0.
            let reach = 4.0 * self.rate * (horizon - now);
            let at = |x: f64| {
                if reach > 0.0 && x >= reach {
                    f64::INFINITY
                } else {
                    now + x / self.rate
                }
            };
            t = t.min(at((self.work - self.cpu).max(0.0)));
            if !self.overrun {
                t = t.min(at((self.estimate - self.cpu).max(0.0)));
            }
        }
        if !self.overrun {
            t = t.min(due);
        }
        t
    }

    /// Remaining estimate `max(0, RE - clockCPU)`.
    pub fn remaining_estimate(&self) -> f64 {
        (self.estimate - self.cpu).max(0.0)
    }
}

/// Capped rates with demands summing to at most 1: partitions stay constant.
fn steady(jc: &JobControl, demand_sum: f64) -> bool {
    jc.rate_mode == RateMode::Capped && demand_sum <= 1.0 + SHARE_EPS
}

/// `x` has reached `target` up to rounding.
pub(crate) fn reached(x: f64, target: f64) -> bool {
    x >= reach_threshold(target)
}

/// The value from which [`reached`] counts `x` as having reached `target`.
fn reach_threshold(target: f64) -> f64 {
    target - 1e-9 * target.abs().max(1.0)
}

/// `x.floor()` for `x >= 0` without the library call (the default x86-64 target has no
/// rounding instruction): truncation is the floor of a non-negative number, exact below
/// 2^52, and every `f64` from 2^52 on is an integer already.
fn floor_non_negative(x: f64) -> f64 {
    if (0.0..4_503_599_627_370_496.0).contains(&x) {
        (x as i64) as f64
    } else {
        x.floor()
    }
}

/// The sums over a node's processes, in process order, that Algorithm 2 divides by.
#[derive(Debug, Clone, Copy)]
struct DemandSums {
    /// Demand of the processes still on schedule.
    on_schedule: f64,
    /// Processes past their estimate or deadline.
    overrunners: usize,
    /// Demand of all processes (from -0.0, as an iterator's `sum` starts).
    all: f64,
}

impl Default for DemandSums {
    fn default() -> Self {
        Self {
            on_schedule: 0.0,
            overrunners: 0,
            all: -0.0,
        }
    }
}

impl DemandSums {
    fn add(&mut self, p: &Process) {
        if p.overrun {
            self.overrunners += 1;
        } else {
            self.on_schedule += p.demand;
        }
        self.all += p.demand;
    }
}

/// What Algorithm 2 compares a process against at every update, fixed when the process
/// starts: the three [`reached`] thresholds and the absolute deadline. A work-conserving
/// node updates every process at every control tick, and these were most of the arithmetic
/// of an update that the process's own state does not change.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Limits {
    /// `reached(cpu, work)` is `cpu >= work`.
    work: f64,
    /// `reached(cpu, estimate)` is `cpu >= estimate`.
    estimate: f64,
    /// `reached(wall, deadline)` is `wall >= deadline`.
    deadline: f64,
    /// `arrival + deadline`.
    due: f64,
}

impl Limits {
    fn of(p: &Process) -> Self {
        Self {
            work: reach_threshold(p.work),
            estimate: reach_threshold(p.estimate),
            deadline: reach_threshold(p.deadline),
            due: p.arrival + p.deadline,
        }
    }
}

/// A time-shared node with its running processes and a local clock.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct TimeSharedNode {
    /// The node.
    pub node: Node,
    clock: f64,
    procs: Vec<Process>,
    mem_used: f64,
    disk_used: f64,
    busy: f64,
    /// Whether `sum` and `next` describe the current processes (set by Algorithm 2).
    #[cfg_attr(feature = "serde", serde(skip))]
    fresh: bool,
    #[cfg_attr(feature = "serde", serde(skip))]
    sum: f64,
    #[cfg_attr(feature = "serde", serde(skip))]
    next: f64,
    /// `limits[i]` belongs to `procs[i]` (rebuilt by an update if the lengths differ, as
    /// after deserialisation).
    #[cfg_attr(feature = "serde", serde(skip))]
    limits: Vec<Limits>,
}

impl TimeSharedNode {
    /// An idle node at time 0.
    pub fn new(node: Node) -> Self {
        Self {
            node,
            clock: 0.0,
            procs: Vec::new(),
            mem_used: 0.0,
            disk_used: 0.0,
            busy: 0.0,
            fresh: false,
            sum: 0.0,
            next: f64::INFINITY,
            limits: Vec::new(),
        }
    }

    /// The node's clock.
    pub fn clock(&self) -> f64 {
        self.clock
    }

    /// The running processes.
    pub fn processes(&self) -> &[Process] {
        &self.procs
    }

    /// Processor-seconds delivered so far.
    pub fn busy_time(&self) -> f64 {
        self.busy
    }

    /// Free memory.
    pub fn mem_free(&self) -> f64 {
        self.node.mem - self.mem_used
    }

    /// Free disk.
    pub fn disk_free(&self) -> f64 {
        self.node.disk - self.disk_used
    }

    /// Σ of the current demands (Algorithm-2 partitions).
    pub fn demand_sum(&self) -> f64 {
        if self.fresh {
            self.sum
        } else {
            self.procs.iter().map(|p| p.demand).sum()
        }
    }

    /// Advances the clock to `t` at the current rates (no event may lie in between).
    pub fn advance(&mut self, t: f64) {
        let dt = t - self.clock;
        if dt > 0.0 {
            for p in &mut self.procs {
                let step = p.rate * dt;
                p.cpu += step;
                self.busy += step;
            }
            self.clock = t;
            self.fresh = false;
        }
    }

    /// Algorithm 2 at the current clock: recomputes every partition and rate.
    pub fn control(&mut self, jc: &JobControl) {
        self.update(self.clock, jc, None);
    }

    /// [`advance`](Self::advance) to `t` then [`control`](Self::control) (what every node
    /// does at an arrival), in one pass; returns [`next_event`](Self::next_event).
    pub fn advance_and_control(&mut self, t: f64, jc: &JobControl) -> f64 {
        self.update(t, jc, None)
    }

    /// One event of this node at time `t` (its [`next_event`](Self::next_event)): advances,
    /// removes the processes that have done their work (passing their job indices to
    /// `finished`) and runs Algorithm 2; returns the node's next event time, always later
    /// than the clock.
    ///
    /// At large clock values an event can lie closer than the spacing of `f64` times (a
    /// completion `now + remaining / rate` rounds to `now`, e.g. 1e-6 s of work left at
    /// 5e10 s, where times are 7.6e-6 s apart). A step at the clock's own time changes
    /// nothing, so that event would be stepped forever; it happens instead at the next
    /// representable time, at most one unit in the last place late.
    ///
    /// ```
    /// use slarm_pricing::node::{JobControl, Node, Process, TimeSharedNode};
    /// let jc = JobControl::default();
    /// let mut n = TimeSharedNode::new(Node::new(0, 168.0).unwrap());
    /// n.add(Process::start(0, 5e10, 1000.0, 100.0, 100.0));
    /// n.advance_and_control(5e10, &jc);
    /// let t = n.next_event(&jc);
    /// assert!(n.step(t, &jc, |_| {}) > n.clock());
    /// ```
    pub fn step(&mut self, t: f64, jc: &JobControl, mut finished: impl FnMut(usize)) -> f64 {
        let next = self.update(t, jc, Some(&mut finished));
        if next <= self.clock {
            self.clock.next_up()
        } else {
            next
        }
    }

    /// Advance to `t`, then (with `finished`) remove the finished processes, then
    /// Algorithm 2. The advance and the per-process part of Algorithm 2 share one pass; a
    /// removal re-sums in the new process order. Every floating-point operation is the one
    /// of `advance`, `take_finished` and `control` called in turn, in the same order.
    fn update(&mut self, t: f64, jc: &JobControl, finished: Option<&mut dyn FnMut(usize)>) -> f64 {
        self.sync_limits();
        let dt = t - self.clock;
        if dt > 0.0 {
            self.clock = t;
        }
        let now = self.clock;
        let (mut done, mut busy) = (false, self.busy);
        // Sums in process order, as `control` and `demand_sum` form them; formed in the same
        // pass unless a removal changes the order.
        let mut sums = DemandSums::default();
        for (p, l) in self.procs.iter_mut().zip(&self.limits) {
            if dt > 0.0 {
                let step = p.rate * dt;
                p.cpu += step;
                busy += step;
            }
            done |= p.cpu >= l.work;
            let wall = now - p.arrival;
            p.overrun = p.overrun || p.cpu >= l.estimate || wall >= l.deadline;
            p.demand = if p.overrun {
                match jc.overrun {
                    OverrunPolicy::FullDemand => 1.0,
                    OverrunPolicy::KeepLastShare => p.demand,
                    OverrunPolicy::LeftoverOnly => 0.0,
                }
            } else {
                ((p.estimate - p.cpu) / (p.deadline - wall)).min(1.0)
            };
            sums.add(p);
        }
        self.busy = busy;
        if done {
            if let Some(f) = finished {
                for j in self.take_finished() {
                    f(j);
                }
                sums = DemandSums::default();
                for p in &self.procs {
                    sums.add(p);
                }
            }
        }
        let DemandSums {
            on_schedule,
            overrunners,
            all: mut s,
        } = sums;
        if jc.overrun == OverrunPolicy::LeftoverOnly && overrunners > 0 {
            let share = (1.0 - on_schedule).max(0.0) / overrunners as f64;
            s = -0.0;
            for p in &mut self.procs {
                if p.overrun {
                    p.demand = share;
                }
                s += p.demand;
            }
        }
        let div = match jc.rate_mode {
            RateMode::Capped => s.max(1.0),
            RateMode::WorkConserving => s,
        };
        let tick = self.tick(jc, s);
        let mut next = tick;
        for (p, l) in self.procs.iter_mut().zip(&self.limits) {
            p.rate = if div > 0.0 { p.demand / div } else { 0.0 };
            next = next.min(p.next_event_due(now, tick, l.due));
        }
        self.sum = s;
        self.next = next;
        self.fresh = true;
        next
    }

    /// The next control tick if the node (with demand sum `s`) is busy and not steady, else
    /// `INFINITY`.
    fn tick(&self, jc: &JobControl, s: f64) -> f64 {
        if self.procs.is_empty() || steady(jc, s) {
            f64::INFINITY
        } else {
            let k = floor_non_negative(self.clock / jc.control_interval) + 1.0;
            k * jc.control_interval
        }
    }

    /// Whether partitions stay constant until the next process event (no squeeze, capped).
    pub fn is_steady(&self, jc: &JobControl) -> bool {
        steady(jc, self.demand_sum())
    }

    /// Time of the next event of this node: a completion, an estimate running out, a
    /// deadline passing, or (when not steady) the next control tick. `INFINITY` if idle.
    pub fn next_event(&self, jc: &JobControl) -> f64 {
        let now = self.clock;
        let tick = self.tick(jc, self.demand_sum());
        self.procs
            .iter()
            .fold(tick, |t, p| t.min(p.next_event(now, tick)))
    }

    /// [`next_event`](Self::next_event) as computed by the last Algorithm-2 pass if nothing
    /// changed since (the simulator always uses one [`JobControl`]).
    pub(crate) fn pending_event(&self, jc: &JobControl) -> f64 {
        if self.fresh {
            self.next
        } else {
            self.next_event(jc)
        }
    }

    /// Committed processor time inside the window ending at `window_end` (eq. 6).
    pub fn committed(&self, window_end: f64, mode: CommitMode) -> f64 {
        let span = (window_end - self.clock).max(0.0);
        self.procs
            .iter()
            .map(|p| match mode {
                CommitMode::Windowed => p.remaining_estimate().min(p.demand * span),
                CommitMode::RemainingEstimate => p.remaining_estimate(),
                CommitMode::FullEstimate => p.estimate,
            })
            .sum()
    }

    /// Rebuilds `limits` if it does not describe `procs` (a deserialised node).
    #[inline]
    fn sync_limits(&mut self) {
        if self.limits.len() != self.procs.len() {
            self.rebuild_limits();
        }
    }

    #[cold]
    fn rebuild_limits(&mut self) {
        self.limits = self.procs.iter().map(Limits::of).collect();
    }

    /// Adds a process (its memory and disk are held until it finishes).
    pub fn add(&mut self, p: Process) {
        self.mem_used += p.mem;
        self.disk_used += p.disk;
        self.sync_limits();
        self.limits.push(Limits::of(&p));
        self.procs.push(p);
        self.fresh = false;
    }

    /// Removes the processes that have done their real work; returns their job indices
    /// (they finished at the current clock).
    pub fn take_finished(&mut self) -> Vec<usize> {
        self.sync_limits();
        let mut done = Vec::new();
        let mut i = 0;
        while i < self.procs.len() {
            if reached(self.procs[i].cpu, self.procs[i].work) {
                let p = self.procs.swap_remove(i);
                self.limits.swap_remove(i);
                self.mem_used -= p.mem;
                self.disk_used -= p.disk;
                done.push(p.job);
                self.fresh = false;
            } else {
                i += 1;
            }
        }
        done.sort_unstable();
        done
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node() -> TimeSharedNode {
        TimeSharedNode::new(Node::new(0, 168.0).unwrap())
    }

    fn run_to_idle(n: &mut TimeSharedNode, jc: &JobControl) -> Vec<(usize, f64)> {
        let mut out = Vec::new();
        n.control(jc);
        for _ in 0..100_000 {
            let t = n.next_event(jc);
            if !t.is_finite() {
                break;
            }
            n.advance(t);
            for j in n.take_finished() {
                out.push((j, t));
            }
            n.control(jc);
        }
        out
    }

    #[test]
    fn share_is_re_over_d_at_start_and_constant_on_schedule() {
        // Algorithm 2: initial partition RE/D; constant when the job receives exactly it.
        let jc = JobControl::default();
        let mut n = node();
        n.add(Process::start(0, 0.0, 400.0, 100.0, 100.0));
        n.add(Process::start(1, 0.0, 1000.0, 300.0, 300.0));
        n.control(&jc);
        assert!((n.processes()[0].demand - 0.25).abs() < 1e-15);
        assert!((n.processes()[1].demand - 0.3).abs() < 1e-15);
        for t in [10.0, 77.7, 250.0, 399.0] {
            n.advance(t);
            n.control(&jc);
            assert!((n.processes()[0].demand - 0.25).abs() < 1e-12, "t={t}");
            assert!((n.processes()[1].demand - 0.3).abs() < 1e-12, "t={t}");
        }
    }

    /// The state of a Libra run on a trace with a submit time of 1e11 s: 1.3e-7 s of work
    /// left at rate 0.135 is 9.6e-7 s, under half the 7.6e-6 s between `f64` times at 5e10 s.
    /// Each step returned the clock itself as the next event, forever.
    #[test]
    fn an_event_closer_than_the_clock_resolution_still_happens() {
        let jc = JobControl::default();
        let mut n = node();
        let now = 5.000_000_071_222_867_6e10;
        n.add(Process {
            cpu: 99.999_999_871_230_22,
            rate: 0.0,
            ..Process::start(19, 49_999_999_970.0, 742.228_676_798_051_4, 100.0, 100.0)
        });
        n.advance(now); // rate 0 until the first control: only the clock moves
        let mut finished = Vec::new();
        let mut t = n.step(now, &jc, |j| finished.push(j));
        for _ in 0..10 {
            if !t.is_finite() {
                break;
            }
            assert!(
                t > n.clock(),
                "next event {t:e} at the clock {:e}",
                n.clock()
            );
            t = n.step(t, &jc, |j| finished.push(j));
        }
        assert_eq!(finished, vec![19]);
        assert_eq!(t, f64::INFINITY);
        assert!(n.clock() - now <= 2.0 * (now.next_up() - now));
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
        // At clocks of 1e9-1e16 s (f64 times 1.2e-7 to 2 s apart) every step moves the clock
        // and every process finishes, within a bounded number of steps.
        #[test]
        fn steps_advance_and_finish_at_large_times(
            at in 1e9f64..1e16,
            jobs in proptest::collection::vec((1.0f64..1e4, 1.0f64..8.0, 0.1f64..=1.0), 1..6),
        ) {
            let jc = JobControl::default();
            let mut n = node();
            n.advance(at);
            for (k, &(re, dr, rr)) in jobs.iter().enumerate() {
                n.add(Process::start(k, at, re * dr, re, re * rr));
            }
            n.control(&jc);
            let mut finished = Vec::new();
            let mut t = n.next_event(&jc);
            let mut steps = 0;
            while t.is_finite() {
                proptest::prop_assert!(steps < 100_000, "no end after {steps} steps");
                t = n.step(t, &jc, |j| finished.push(j));
                proptest::prop_assert!(t > n.clock(), "next {t:e} at the clock {:e}", n.clock());
                steps += 1;
            }
            proptest::prop_assert_eq!(finished.len(), jobs.len());
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
        // Follows from Algorithm 2: with exact estimates and shares summing to <= 1, every
        // process's partition is RE/D when it starts and stays RE/D at every later control,
        // and it finishes exactly at its absolute deadline.
        #[test]
        fn partitions_stay_re_over_d_on_schedule(
            jobs in proptest::collection::vec((0.0f64..500.0, 1.0f64..400.0, 1.01f64..12.0), 1..12),
            ticks in proptest::collection::vec(0.0f64..3000.0, 0..20),
        ) {
            let jc = JobControl::default();
            let mut n = node();
            let mut arrivals: Vec<(f64, f64, f64)> = jobs.iter().map(|&(at, re, dr)| (at, re, re * dr)).collect();
            arrivals.sort_by(|a, b| a.0.total_cmp(&b.0));
            let mut ticks = ticks;
            ticks.sort_by(f64::total_cmp);
            let mut share = 0.0;
            let mut started = Vec::new();
            let mut finished = Vec::new();
            // Interleave arrivals (admitted while the share sum stays <= 1) and extra
            // control points, running the node's own events in between.
            let mut points: Vec<(f64, Option<usize>)> = arrivals.iter().enumerate().map(|(k, a)| (a.0, Some(k))).collect();
            points.extend(ticks.iter().map(|&t| (t, None)));
            points.sort_by(|a, b| a.0.total_cmp(&b.0));
            points.push((f64::INFINITY, None));
            for (t, arrival) in points {
                let mut next = n.next_event(&jc);
                while next.is_finite() && next <= t {
                    let now = next;
                    next = n.step(now, &jc, |j| finished.push((j, now)));
                    for p in n.processes() {
                        proptest::prop_assert!((p.demand - p.estimate / p.deadline).abs() <= 1e-9 * p.demand);
                    }
                }
                if !t.is_finite() {
                    break;
                }
                n.advance(t);
                n.control(&jc);
                if let Some(k) = arrival {
                    let (at, re, d) = arrivals[k];
                    share = n.demand_sum();
                    if share + re / d <= 1.0 {
                        n.add(Process::start(k, at, d, re, re));
                        started.push(k);
                        proptest::prop_assert_eq!(n.processes().last().map(|p| p.demand), Some(re / d));
                        n.control(&jc);
                    }
                }
                proptest::prop_assert!(n.demand_sum() <= 1.0 + 1e-9, "share {}", share);
                for p in n.processes() {
                    proptest::prop_assert!((p.demand - p.estimate / p.deadline).abs() <= 1e-9 * p.demand);
                    proptest::prop_assert_eq!(p.rate, p.demand);
                }
            }
            proptest::prop_assert_eq!(finished.len(), started.len());
            for (k, ft) in finished {
                let (at, _, d) = arrivals[k];
                proptest::prop_assert!((ft - (at + d)).abs() <= 1e-6 * d.max(1.0), "job {} finished {} DT {}", k, ft, at + d);
            }
        }
    }

    #[test]
    fn exact_estimates_finish_exactly_at_deadline() {
        let jc = JobControl::default();
        let mut n = node();
        n.add(Process::start(0, 0.0, 400.0, 100.0, 100.0));
        n.add(Process::start(1, 0.0, 1000.0, 300.0, 300.0));
        let done = run_to_idle(&mut n, &jc);
        assert_eq!(done.len(), 2);
        assert_eq!(done[0].0, 0);
        assert!((done[0].1 - 400.0).abs() < 1e-6);
        assert!((done[1].1 - 1000.0).abs() < 1e-6);
        assert!((n.busy_time() - 400.0).abs() < 1e-6);
    }

    #[test]
    fn work_conserving_finishes_early() {
        let jc = JobControl {
            rate_mode: RateMode::WorkConserving,
            ..JobControl::default()
        };
        let mut n = node();
        n.add(Process::start(0, 0.0, 400.0, 100.0, 100.0));
        let done = run_to_idle(&mut n, &jc);
        assert!((done[0].1 - 100.0).abs() < 1e-6);
    }

    #[test]
    fn underestimate_overruns_and_squeezes_others() {
        // Job 0 needs 600 s but claims 100 s with D = 200: at t = 200 it overruns with demand 1,
        // squeezing job 1 (RE = R = 400, D = 800, share 0.5). 1000 s of work on one processor
        // cannot all be done by 800, and job 1 misses its deadline.
        let jc = JobControl::default();
        let mut n = node();
        n.add(Process::start(0, 0.0, 200.0, 100.0, 600.0));
        n.add(Process::start(1, 0.0, 800.0, 400.0, 400.0));
        let done = run_to_idle(&mut n, &jc);
        let f0 = done.iter().find(|d| d.0 == 0).unwrap().1;
        let f1 = done.iter().find(|d| d.0 == 1).unwrap().1;
        assert!(
            (f0.max(f1) - 1000.0).abs() < 1e-6,
            "node never idles: {f0} {f1}"
        );
        assert!(f1 > 800.0, "squeezed job must be late, finished {f1}");
        // all real work delivered
        assert!((n.busy_time() - 1000.0).abs() < 1e-6);
    }

    #[test]
    fn overrun_policies_differ() {
        let mk = |o| JobControl {
            overrun: o,
            ..JobControl::default()
        };
        let mut finish = Vec::new();
        for o in [
            OverrunPolicy::FullDemand,
            OverrunPolicy::KeepLastShare,
            OverrunPolicy::LeftoverOnly,
        ] {
            let mut n = node();
            n.add(Process::start(0, 0.0, 200.0, 100.0, 600.0));
            n.add(Process::start(1, 0.0, 800.0, 400.0, 400.0));
            let done = run_to_idle(&mut n, &mk(o));
            assert_eq!(done.len(), 2);
            finish.push(done.iter().find(|d| d.0 == 1).unwrap().1);
        }
        // LeftoverOnly never hurts the on-schedule job.
        assert!((finish[2] - 800.0).abs() < 1e-6);
        assert!(finish[0] > 800.0);
        // KeepLastShare keeps job 0 at 0.5 as well: job 1 on time.
        assert!((finish[1] - 800.0).abs() < 1e-6);
    }

    #[test]
    fn committed_modes() {
        let jc = JobControl::default();
        let mut n = node();
        n.add(Process::start(0, 0.0, 1000.0, 500.0, 500.0));
        n.control(&jc);
        n.advance(100.0);
        // remaining 450, share 0.5
        assert!((n.committed(300.0, CommitMode::Windowed) - 100.0).abs() < 1e-9);
        assert!((n.committed(5000.0, CommitMode::Windowed) - 450.0).abs() < 1e-9);
        assert!((n.committed(300.0, CommitMode::RemainingEstimate) - 450.0).abs() < 1e-9);
        assert!((n.committed(300.0, CommitMode::FullEstimate) - 500.0).abs() < 1e-9);
    }

    #[test]
    fn capacities_validated() {
        let n = Node::new(0, 1.0).unwrap();
        assert!(n.with_capacity(-1.0, 1.0).is_err());
        assert!(n.with_capacity(1.0, f64::NAN).is_err());
        assert!(Node::new(0, 0.0).is_err());
        assert!(JobControl {
            control_interval: 0.0,
            ..JobControl::default()
        }
        .validate()
        .is_err());
    }
}
