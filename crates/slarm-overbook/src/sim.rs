//! Discrete-event simulation of one battery under one strategy (Birkenheuer 2012, §3.6,
//! §5.2; rules the thesis leaves open are listed in docs/decisions.md).
//!
//! Events at one time stamp are handled in the order job end -> node repair -> node failure ->
//! (replanning / early starts) -> job start -> job occurrence, ties by job index.
//! A job runs for at most `min(x, kill - start)`: it succeeds if its real runtime fits, or if it
//! received its full estimate; otherwise it is killed at its slot end (the start of the next
//! planned job on its nodes, §5.2.2) and fails. Heuristic replanning never delays an accepted job
//! for another's overrun; overbooked jobs regain runtime only from free capacity (§3.3.2.1, see
//! `replan`). A job that loses
//! a node is disabled and renegotiated at once (heuristic: any nodes; comprehensive: a new node
//! set); if no slot before its deadline is acceptable it fails.

use crate::acceptance::{AcceptanceTest, TestSpec};
use crate::classes::ClassRegistry;
use crate::error::{OverbookError, Result};
use crate::failure::{
    outage_pos_homogeneous, FailureModel, NodeEvent, NodeEventKind, NodeFailures,
};
use crate::grid::TimeGrid;
use crate::job::{Job, JobState, Time};
use crate::plan::{secs, time, NodePlan, Profile, Slot};
use crate::pos::{
    comprehensive_end, comprehensive_pos_bound, comprehensive_pos_factors, heuristic_pos,
    ComprehensiveSlot,
};
use crate::strategy::{Evaluated, Family, PlacementPolicy, Strategy};
use slarm_stats::GridDist;

/// Configuration of one simulation.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct SimConfig {
    /// Strategy.
    pub strategy: Strategy,
    /// Acceptance test.
    pub test: TestSpec,
    /// SecurityFactor of the risk test (default per strategy: 4 comprehensive, 2 heuristic).
    pub security_factor: Option<f64>,
    /// Placement policy (default near best fit, the evaluated one).
    pub policy: PlacementPolicy,
    /// Failure model used in PoS (the events come from the caller).
    pub failure_model: FailureModel,
    /// Grid step of the comprehensive convolution in seconds (the thesis gives none).
    pub grid_step: f64,
    /// Also apply the acceptance test to full-length slots (default false: Listing 3.1 tests only overbooked ones).
    pub test_full_slots: bool,
    /// Comprehensive family only: free a job's nodes at its real end and move planned jobs
    /// earlier on freed nodes (`None` = the strategy's own rule: comprehensive overbooking yes,
    /// comprehensive backfilling no, thesis §3.6.1). `Some(true)` on backfilling gives the
    /// counterpart that comprehensive overbooking degenerates to at PoF_max = 0.
    #[cfg_attr(feature = "serde", serde(default))]
    pub early_release: Option<bool>,
    /// Check the plan and node invariants after every event time (tests; costs `O(jobs +
    /// reservations)` per event).
    #[cfg_attr(feature = "serde", serde(default))]
    pub check_invariants: bool,
    /// Record the time to decide every arriving job (thread CPU time, [`crate::clock`]).
    pub measure_latency: bool,
}

impl SimConfig {
    /// The evaluation's configuration for a strategy and test.
    pub fn new(strategy: Strategy, test: TestSpec) -> Self {
        Self {
            strategy,
            test,
            security_factor: None,
            policy: PlacementPolicy::NearBestFitSim,
            failure_model: FailureModel::default(),
            grid_step: 60.0,
            test_full_slots: false,
            early_release: None,
            check_invariants: false,
            measure_latency: false,
        }
    }
}

/// Final record of one job.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct JobOutcome {
    /// Job id.
    pub id: u64,
    /// Final state.
    pub state: JobState,
    /// Whether the (last) accepted placement was overbooked.
    pub overbooked: bool,
    /// PoF of the (last) accepted placement.
    pub pof: f64,
}

/// Result of one battery.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct BatteryResult {
    /// Successful jobs.
    pub successful: usize,
    /// Failed jobs.
    pub failed: usize,
    /// Dropped jobs.
    pub dropped: usize,
    /// Jobs accepted into a slot shorter than their estimate.
    pub overbooked: usize,
    /// Fees of successful jobs (VC).
    pub fees: f64,
    /// Penalties of failed jobs (VC).
    pub penalties: f64,
    /// Fees of the failed jobs (re-pricing with another penalty ratio).
    pub failed_fees: f64,
    /// Per-job outcomes in battery order.
    pub outcomes: Vec<JobOutcome>,
    /// Negotiation latencies in nanoseconds of thread CPU time (empty unless measured).
    pub latencies_ns: Vec<u64>,
}

impl BatteryResult {
    /// `gain = fees - penalties`.
    pub fn gain(&self) -> f64 {
        self.fees - self.penalties
    }

    /// Gain when every penalty is `ratio · fee` (`G(r) = F - r·P`).
    pub fn gain_at_ratio(&self, ratio: f64) -> f64 {
        self.fees - ratio * self.failed_fees
    }
}

#[derive(Debug, Clone)]
struct Rec {
    state: JobState,
    start: Time,
    kill: Time,
    end_time: Time,
    nodes: Vec<usize>,
    overbooked: bool,
    pof: f64,
    order: usize,
    end_cdf: Option<GridDist>,
}

struct Placement {
    slot: Slot,
    kill: Time,
    overbooked: bool,
    pof: f64,
    end_cdf: Option<GridDist>,
}

struct Sim<'a> {
    jobs: &'a [Job],
    cfg: &'a SimConfig,
    registry: &'a ClassRegistry,
    test: Box<dyn AcceptanceTest + Send + Sync>,
    failures: NodeFailures,
    grid: TimeGrid,
    recs: Vec<Rec>,
    up: Vec<bool>,
    owner: Vec<Option<usize>>,
    plan: NodePlan,
    accepted: usize,
    /// Jobs `0..arrived` have occurred; later ones have no SLA yet and are invisible to the
    /// plan (their `Rec` holds placeholder values).
    arrived: usize,
    /// Invariant checks only: the latest planned start each job has been given (a job may
    /// move earlier, never later, except by a renegotiation after a node failure).
    promised: Vec<Time>,
    /// Invariant checks only: a node has failed at some time so far.
    failure_seen: bool,
}

/// Simulates one battery of jobs (sorted by occurrence) on `cluster` nodes with the given node
/// failure/repair `events` (sorted), learning nothing online.
///
/// ```
/// use slarm_overbook::{acceptance::TestSpec, classes::{ClassRegistry, RegistryConfig},
///     job::Job, sim::{simulate_battery, SimConfig}, strategy::Strategy};
/// let jobs: Vec<Job> = (0..20)
///     .map(|i| Job::with_sla(i, i as i64 * 100, 3600, 1200, 2, 1.0).unwrap())
///     .collect();
/// let reg = ClassRegistry::learn(&jobs, RegistryConfig::default()).unwrap();
/// let cfg = SimConfig::new(Strategy::HeurOverbook, TestSpec::Pof { max: 0.5 });
/// let r = simulate_battery(&jobs, 8, &reg, &[], &cfg).unwrap();
/// assert_eq!(r.successful + r.failed + r.dropped, 20);
/// ```
pub fn simulate_battery(
    jobs: &[Job],
    cluster: usize,
    registry: &ClassRegistry,
    events: &[NodeEvent],
    cfg: &SimConfig,
) -> Result<BatteryResult> {
    if cluster == 0 {
        return Err(OverbookError::InvalidParameter {
            name: "cluster size",
            value: 0.0,
            reason: "must be positive",
        });
    }
    for w in jobs.windows(2) {
        if w[1].occurrence < w[0].occurrence {
            return Err(OverbookError::InvalidJob {
                id: w[1].id,
                reason: "jobs must be sorted by occurrence".into(),
            });
        }
    }
    for j in jobs {
        j.validate()?;
    }
    cfg.failure_model.validate()?;
    let sf = cfg
        .security_factor
        .unwrap_or_else(|| cfg.strategy.default_security_factor());
    let mut sim = Sim {
        jobs,
        cfg,
        registry,
        test: cfg.test.build(sf)?,
        failures: NodeFailures::Homogeneous(cfg.failure_model.clone()),
        grid: TimeGrid::new(cfg.grid_step)?,
        recs: vec![
            Rec {
                state: JobState::Planned,
                start: 0,
                kill: 0,
                end_time: 0,
                nodes: Vec::new(),
                overbooked: false,
                pof: 0.0,
                order: 0,
                end_cdf: None,
            };
            jobs.len()
        ],
        up: vec![true; cluster],
        owner: vec![None; cluster],
        plan: NodePlan::new(cluster),
        accepted: 0,
        arrived: 0,
        promised: vec![Time::MAX; jobs.len()],
        failure_seen: false,
    };
    let mut latencies = Vec::new();
    sim.run(events, &mut latencies)?;
    Ok(sim.result(latencies))
}

impl<'a> Sim<'a> {
    fn comprehensive(&self) -> bool {
        self.cfg.strategy.family() == Family::Comprehensive
    }

    /// Comprehensive family: free nodes at the real end and move planned jobs earlier (thesis
    /// §3.6: overbooking does, backfilling does not, unless configured otherwise).
    fn early_release(&self) -> bool {
        self.cfg
            .early_release
            .unwrap_or(self.cfg.strategy == Strategy::CompOverbook)
    }

    fn active(&self, i: usize) -> bool {
        matches!(
            self.recs[i].state,
            JobState::Planned | JobState::Running | JobState::Disabled
        )
    }

    fn run(&mut self, events: &[NodeEvent], latencies: &mut Vec<u64>) -> Result<()> {
        let n = self.jobs.len();
        let mut ev = 0usize;
        loop {
            let mut t = Time::MAX;
            let arrived = self.arrived;
            if arrived < n {
                t = self.jobs[arrived].occurrence;
            }
            let mut any_active = false;
            for (i, r) in self.recs[..arrived].iter().enumerate() {
                match r.state {
                    JobState::Running => {
                        any_active = true;
                        t = t.min(r.end_time);
                    }
                    JobState::Planned => {
                        any_active = true;
                        t = t.min(r.start);
                    }
                    _ => {}
                }
                let _ = i;
            }
            if arrived >= n && !any_active {
                break;
            }
            if let Some(e) = events.get(ev) {
                t = t.min(e.time);
            }
            if t == Time::MAX {
                break;
            }
            let now = t;
            // 1. job ends
            let mut changed = false;
            for i in 0..arrived {
                if self.recs[i].state == JobState::Running && self.recs[i].end_time <= now {
                    self.finish(i, now);
                    changed = true;
                }
            }
            // 2./3. repairs then failures (sorted order puts repairs first at equal times)
            let mut disabled = Vec::new();
            while let Some(e) = events.get(ev) {
                if e.time > now {
                    break;
                }
                ev += 1;
                changed = true;
                match e.kind {
                    NodeEventKind::Repair => {
                        if let Some(u) = self.up.get_mut(e.node) {
                            *u = true;
                        }
                    }
                    NodeEventKind::Failure => {
                        if e.node >= self.up.len() {
                            continue;
                        }
                        self.up[e.node] = false;
                        self.failure_seen = true;
                        if let Some(j) = self.owner[e.node] {
                            self.disable(j);
                            disabled.push(j);
                        }
                    }
                }
            }
            if changed {
                self.on_change(now, &mut disabled)?;
            }
            for j in disabled {
                self.renegotiate(j, now)?;
            }
            // 4. starts
            for i in 0..arrived {
                if self.recs[i].state == JobState::Planned && self.recs[i].start <= now {
                    self.try_start(i, now)?;
                }
            }
            // 5. occurrences
            while self.arrived < n && self.jobs[self.arrived].occurrence <= now {
                let i = self.arrived;
                self.arrived += 1;
                let t0 = self.cfg.measure_latency.then(crate::clock::thread_cpu_ns);
                let placed = self.negotiate(i, now)?;
                if let Some(t0) = t0 {
                    latencies.push(crate::clock::thread_cpu_ns().saturating_sub(t0));
                }
                match placed {
                    Some(p) => {
                        self.accept(i, p);
                        if self.recs[i].start <= now {
                            self.try_start(i, now)?;
                        }
                    }
                    None => self.recs[i].state = JobState::Dropped,
                }
            }
            if self.cfg.check_invariants {
                self.check(now)?;
            }
        }
        // Anything still open (cannot happen with finite deadlines) counts as failed.
        for r in &mut self.recs {
            if !r.state.is_final() {
                r.state = JobState::Failed;
            }
        }
        Ok(())
    }

    fn finish(&mut self, i: usize, now: Time) {
        let release = self.comprehensive() && self.early_release();
        let job = &self.jobs[i];
        let r = &mut self.recs[i];
        let got = (r.kill - r.start).min(job.estimate);
        r.state = if job.runtime <= got || got >= job.estimate {
            JobState::Succeeded
        } else {
            JobState::Failed
        };
        for &nd in &r.nodes {
            if self.owner[nd] == Some(i) {
                self.owner[nd] = None;
            }
        }
        if release {
            // Resources are freed at the real end (thesis §3.6.2); backfilling keeps them to x.
            let nodes = r.nodes.clone();
            self.plan.remove(i, &nodes);
        }
        let _ = now;
    }

    fn disable(&mut self, i: usize) {
        let r = &mut self.recs[i];
        r.state = JobState::Disabled;
        for &nd in &r.nodes {
            if self.owner[nd] == Some(i) {
                self.owner[nd] = None;
            }
        }
        let nodes = std::mem::take(&mut r.nodes);
        self.plan.remove(i, &nodes);
        r.end_cdf = None;
    }

    fn renegotiate(&mut self, i: usize, now: Time) -> Result<()> {
        if self.cfg.check_invariants && !self.failure_seen {
            return Err(OverbookError::Invariant {
                time: now,
                reason: format!("job {i} lost its slot although no node has failed"),
            });
        }
        if self.recs[i].state == JobState::Planned {
            let nodes = std::mem::take(&mut self.recs[i].nodes);
            self.plan.remove(i, &nodes);
        }
        self.recs[i].state = JobState::Disabled;
        match self.negotiate(i, now)? {
            Some(p) => {
                self.accept(i, p);
                if self.recs[i].start <= now && !self.start_now(i, now) {
                    // The plan offered a slot at `now` on nodes that are not free: a plan/node
                    // inconsistency (never observed with the invariant checks on). Renegotiating
                    // again would loop, so the job fails.
                    return Err(OverbookError::Invariant {
                        time: now,
                        reason: format!("job {i} renegotiated onto busy or crashed nodes"),
                    });
                }
            }
            None => self.recs[i].state = JobState::Failed,
        }
        Ok(())
    }

    fn accept(&mut self, i: usize, p: Placement) {
        let comprehensive = self.comprehensive();
        let r = &mut self.recs[i];
        if r.state != JobState::Disabled {
            self.accepted += 1;
            r.order = self.accepted;
        }
        r.state = JobState::Planned;
        self.promised[i] = p.slot.start;
        r.start = p.slot.start;
        r.kill = p.kill;
        r.overbooked = p.overbooked;
        r.pof = p.pof;
        r.end_cdf = p.end_cdf;
        if comprehensive {
            self.plan.reserve(i, &p.slot.nodes, p.slot.start, p.kill);
            r.nodes = p.slot.nodes;
        } else {
            r.nodes = Vec::new();
        }
    }

    /// Starts planned job `i` now, or renegotiates it when its nodes (comprehensive) or enough
    /// nodes (heuristic) are not free, e.g. after a crash (thesis §5.2.2, job start).
    fn try_start(&mut self, i: usize, now: Time) -> Result<()> {
        if self.start_now(i, now) {
            Ok(())
        } else {
            self.renegotiate(i, now)
        }
    }

    /// Starts job `i` now if its nodes are free; false (and nothing changed) otherwise.
    fn start_now(&mut self, i: usize, now: Time) -> bool {
        let need = self.jobs[i].nodes;
        let nodes: Vec<usize> = if self.comprehensive() {
            let ok = self.recs[i]
                .nodes
                .iter()
                .all(|&nd| self.up[nd] && self.owner[nd].is_none());
            if !ok {
                return false;
            }
            self.recs[i].nodes.clone()
        } else {
            let free: Vec<usize> = (0..self.up.len())
                .filter(|&nd| self.up[nd] && self.owner[nd].is_none())
                .take(need)
                .collect();
            if free.len() < need {
                return false;
            }
            free
        };
        let comprehensive = self.comprehensive();
        let job = &self.jobs[i];
        let r = &mut self.recs[i];
        if !comprehensive {
            // Heuristic: the allotment is kept relative to the actual start.
            let allotted = r.kill - r.start;
            r.kill = now + allotted;
        }
        r.start = now;
        let run = job.runtime.min(job.estimate).min(r.kill - now).max(0);
        r.end_time = now + run;
        r.state = JobState::Running;
        for &nd in &nodes {
            self.owner[nd] = Some(i);
        }
        r.nodes = nodes;
        true
    }

    /// Replanning (heuristic; our reading of an open rule, docs/decisions.md) or moving jobs earlier on their nodes (comprehensive
    /// overbooking, thesis §3.6.2) after ends, failures and repairs.
    fn on_change(&mut self, now: Time, renegotiate: &mut Vec<usize>) -> Result<()> {
        match self.cfg.strategy {
            Strategy::CompBackfill | Strategy::CompOverbook if !self.early_release() => Ok(()),
            Strategy::CompBackfill | Strategy::CompOverbook => {
                let mut planned: Vec<usize> = (0..self.arrived)
                    .filter(|&i| {
                        self.recs[i].state == JobState::Planned && self.recs[i].start > now
                    })
                    .collect();
                planned.sort_by_key(|&i| (self.recs[i].start, i));
                for i in planned {
                    if self.jobs[i].release > now {
                        continue;
                    }
                    let ok = self.recs[i].nodes.iter().all(|&nd| {
                        self.up[nd] && self.owner[nd].is_none() && self.plan.is_first(nd, i)
                    });
                    if ok {
                        let nodes = self.recs[i].nodes.clone();
                        let kill = self.recs[i].kill;
                        self.plan.update(i, &nodes, now, kill);
                        self.try_start(i, now)?;
                    }
                }
                Ok(())
            }
            Strategy::HeurPlan | Strategy::HeurOverbook => self.replan(now, renegotiate),
        }
    }

    /// The up nodes minus the running jobs, from `now` on (a planning profile: every
    /// reservation boundary is a candidate start).
    fn base_profile(&self, now: Time, exclude: usize) -> Result<Profile> {
        let up = self.up.iter().filter(|&&u| u).count();
        let mut p = Profile::planning(u32::try_from(up).unwrap_or(u32::MAX), secs(now))?;
        for (i, r) in self.recs[..self.arrived].iter().enumerate() {
            if r.state == JobState::Running && i != exclude {
                p.book(secs(now), secs(r.kill.max(now)), self.jobs[i].nodes as i64)?;
            }
        }
        Ok(p)
    }

    /// Heuristic replanning after a job end, failure or repair (thesis §3.3.2.1, §5.2.2).
    ///
    /// 1. The free-node profile is rebuilt from the running jobs (booked up to their kill times).
    /// 2. Waiting jobs are re-placed in order of (planned start, acceptance order), each with its
    ///    own allotment at the earliest start not later than its previous one. No job is placed
    ///    with more than its allotment here, so no job can take capacity that a later accepted
    ///    job holds: "an SLA violation of one job has no influence on other jobs". Without a
    ///    node failure every job fits again (moving a job earlier with the same length frees
    ///    capacity at every time after its old start); a job that no longer fits (capacity lost
    ///    to a crash) is renegotiated like a disabled job.
    /// 3. Overbooked jobs, running or waiting, regain runtime toward x only from the capacity
    ///    that is then free ("even overbooked jobs can get their full runtime if previous jobs
    ///    finish earlier"); each is killed where the capacity is next needed by a planned job,
    ///    at x or at its deadline.
    fn replan(&mut self, now: Time, renegotiate: &mut Vec<usize>) -> Result<()> {
        let mut profile = self.base_profile(now, usize::MAX)?;
        let mut waiting: Vec<usize> = (0..self.arrived)
            .filter(|&i| self.recs[i].state == JobState::Planned)
            .collect();
        waiting.sort_by_key(|&i| (self.recs[i].start, self.recs[i].order));
        for i in waiting {
            let job = &self.jobs[i];
            let n = job.nodes as i64;
            let from = job.release.max(now);
            let old = self.recs[i].start.max(from);
            let allotted = self.recs[i].kill - self.recs[i].start;
            match profile.earliest_fit_until(secs(from), n, secs(allotted), secs(old)) {
                Some(s) => {
                    let s = time(s);
                    profile.book(secs(s), secs(s + allotted), n)?;
                    let r = &mut self.recs[i];
                    r.start = s;
                    r.kill = s + allotted;
                }
                None => {
                    self.recs[i].state = JobState::Disabled;
                    renegotiate.push(i);
                }
            }
        }
        let mut short: Vec<usize> = (0..self.arrived)
            .filter(|&i| {
                let r = &self.recs[i];
                matches!(r.state, JobState::Planned | JobState::Running)
                    && r.kill - r.start < self.jobs[i].estimate
            })
            .collect();
        short.sort_by_key(|&i| (self.recs[i].start, self.recs[i].order));
        for i in short {
            let job = &self.jobs[i];
            let n = job.nodes as i64;
            let r = &self.recs[i];
            let running = r.state == JobState::Running;
            // A running job is booked from `now` in the base profile.
            let from = if running { now } else { r.start };
            let (start, kill) = (r.start, r.kill);
            profile.book(secs(from), secs(kill), -n)?;
            let until = time(profile.free_until(secs(from), n));
            let new_kill = until.min(job.deadline).min(start + job.estimate).max(kill);
            profile.book(secs(from), secs(new_kill), n)?;
            let r = &mut self.recs[i];
            r.kill = new_kill;
            r.overbooked = new_kill - start < job.estimate;
            if running {
                r.end_time = start + job.runtime.min(job.estimate).min(new_kill - start);
            }
        }
        Ok(())
    }

    fn heuristic_profile(&self, now: Time, exclude: usize) -> Result<Profile> {
        let mut p = self.base_profile(now, exclude)?;
        for (i, r) in self.recs[..self.arrived].iter().enumerate() {
            if r.state == JobState::Planned && i != exclude {
                p.book(secs(r.start), secs(r.kill), self.jobs[i].nodes as i64)?;
            }
        }
        Ok(p)
    }

    fn acceptable(&self, full: bool, pos: f64, job: &Job) -> bool {
        if full {
            !self.cfg.test_full_slots || self.test.accepts(pos, job.fee, job.penalty)
        } else {
            self.cfg.strategy.overbooks() && self.test.accepts(pos, job.fee, job.penalty)
        }
    }

    fn negotiate(&mut self, i: usize, now: Time) -> Result<Option<Placement>> {
        let job = &self.jobs[i];
        if job.nodes > self.up.len() {
            return Ok(None);
        }
        let from = job.release.max(now);
        if from >= job.deadline {
            return Ok(None);
        }
        let lazy = self.lazy();
        if self.comprehensive() {
            self.plan.prune(now);
            let mut slots = Vec::new();
            for c in self.plan.candidate_starts(from, job.deadline) {
                if let Some(s) = self.plan.choose(c, job.nodes, job.deadline, &self.up) {
                    let full = s.len() >= job.estimate;
                    slots.push(s);
                    if full && lazy {
                        break;
                    }
                }
            }
            let runtime = self
                .grid
                .runtime(self.registry.for_job(job), job.estimate)?;
            let chosen = self.select(i, &slots, |sim, s| {
                sim.eval_comprehensive(i, now, s, &runtime)
            })?;
            let Some((k, full, pos)) = chosen else {
                return Ok(None);
            };
            let end_cdf = if self.cfg.strategy == Strategy::CompOverbook {
                Some(self.end_cdf(i, now, &slots[k], full, &runtime)?)
            } else {
                None
            };
            Ok(Some(self.placement(
                i,
                slots.swap_remove(k),
                full,
                pos,
                end_cdf,
            )))
        } else {
            let profile = self.heuristic_profile(now, i)?;
            let mut slots: Vec<Slot> = profile
                .gaps(secs(from), secs(job.deadline), job.nodes as i64)
                .into_iter()
                .map(|(start, end)| Slot {
                    start: time(start),
                    end: time(end),
                    nodes: Vec::new(),
                })
                .collect();
            let chosen = self.select(i, &slots, |sim, s| Ok(sim.eval_heuristic(i, s)))?;
            Ok(chosen
                .map(|(k, full, pos)| self.placement(i, slots.swap_remove(k), full, pos, None)))
        }
    }

    /// True when the policy may stop at the first full slot (near best fit, first fit).
    fn lazy(&self) -> bool {
        self.cfg.policy.lazy() && !self.cfg.test_full_slots
    }

    fn placement(
        &self,
        i: usize,
        slot: Slot,
        full: bool,
        pos: f64,
        end_cdf: Option<GridDist>,
    ) -> Placement {
        let kill = if full {
            slot.start + self.jobs[i].estimate
        } else {
            slot.end
        };
        Placement {
            overbooked: !full,
            pof: 1.0 - pos,
            end_cdf,
            slot,
            kill,
        }
    }

    /// Picks a slot per the placement policy; `eval` gives a slot's PoS (or, for a slot that
    /// cannot pass the test, any upper bound of it). Returns (index, full, PoS).
    fn select(
        &self,
        i: usize,
        slots: &[Slot],
        mut eval: impl FnMut(&Self, &Slot) -> Result<f64>,
    ) -> Result<Option<(usize, bool, f64)>> {
        let job = &self.jobs[i];
        if self.lazy() {
            if let Some((k, s)) = slots
                .iter()
                .enumerate()
                .find(|(_, s)| s.len() >= job.estimate)
            {
                return Ok(Some((k, true, eval(self, s)?)));
            }
            if self.cfg.strategy.overbooks() {
                for (k, s) in slots.iter().enumerate() {
                    let pos = eval(self, s)?;
                    if self.acceptable(false, pos, job) {
                        return Ok(Some((k, false, pos)));
                    }
                }
            }
            return Ok(None);
        }
        let mut evals: Vec<Evaluated> = Vec::with_capacity(slots.len());
        for (k, s) in slots.iter().enumerate() {
            let full = s.len() >= job.estimate;
            let pos = eval(self, s)?;
            evals.push(Evaluated {
                index: k,
                start: s.start,
                full,
                pos,
                acceptable: self.acceptable(full, pos, job),
            });
        }
        Ok(self
            .cfg
            .policy
            .select(&evals, job.fee, job.penalty)
            .map(|c| (c.index, c.full, c.pos)))
    }

    fn eval_heuristic(&self, i: usize, s: &Slot) -> f64 {
        let job = &self.jobs[i];
        if !self.cfg.strategy.overbooks() && s.len() < job.estimate {
            return 0.0;
        }
        heuristic_pos(
            self.registry.for_job(job),
            job.estimate,
            s.len(),
            job.nodes,
            &self.cfg.failure_model,
        )
        .pos()
    }

    /// End-time CDFs of the distinct active predecessors on the slot's nodes, in order of first
    /// appearance.
    fn predecessors(&self, s: &Slot) -> Vec<&GridDist> {
        let mut seen = std::collections::HashSet::new();
        let mut v = Vec::new();
        for &nd in &s.nodes {
            if let Some(p) = self.plan.predecessor(nd, s.start) {
                if !self.active(p.job) || !seen.insert(p.job) {
                    continue;
                }
                if let Some(c) = self.recs[p.job].end_cdf.as_ref() {
                    v.push(c);
                }
            }
        }
        v
    }

    fn comprehensive_slot<'p>(
        &self,
        i: usize,
        now: Time,
        s: &Slot,
        full: bool,
        predecessors: &'p [&'p GridDist],
    ) -> ComprehensiveSlot<'p> {
        let job = &self.jobs[i];
        ComprehensiveSlot {
            predecessors,
            earliest: job.release.max(now),
            start: s.start,
            slot_end: if full { s.start + job.estimate } else { s.end },
            estimate: job.estimate,
        }
    }

    /// PoS of a comprehensive slot. Full slots need no convolution (`P_executable = 1`); an
    /// overbooked slot is convolved only if the cheap upper bound of its PoS passes the test.
    fn eval_comprehensive(&self, i: usize, now: Time, s: &Slot, runtime: &GridDist) -> Result<f64> {
        let job = &self.jobs[i];
        let full = s.len() >= job.estimate;
        if self.cfg.strategy == Strategy::CompBackfill {
            // Outage-only PoF, stored but not tested (Listing 3.1).
            let booked = s.len().min(job.estimate) as f64;
            return Ok(outage_pos_homogeneous(
                &self.cfg.failure_model,
                job.nodes,
                booked,
            ));
        }
        if full {
            let slot = self.comprehensive_slot(i, now, s, true, &[]);
            return Ok(comprehensive_pos_factors(
                runtime,
                &self.grid,
                &self.failures,
                &s.nodes,
                slot,
            )?
            .pos());
        }
        let preds = self.predecessors(s);
        let slot = self.comprehensive_slot(i, now, s, false, &preds);
        let bound = comprehensive_pos_bound(runtime, &self.grid, &self.failures, &s.nodes, slot)?;
        // Margin against round-off: the exact PoS can never exceed the bound by more.
        if !self.acceptable(false, (bound * (1.0 + 1e-9)).min(1.0), job) {
            return Ok(bound);
        }
        Ok(comprehensive_pos_factors(runtime, &self.grid, &self.failures, &s.nodes, slot)?.pos())
    }

    /// The chosen placement's end-time CDF (for its successors).
    fn end_cdf(
        &self,
        i: usize,
        now: Time,
        s: &Slot,
        full: bool,
        runtime: &GridDist,
    ) -> Result<GridDist> {
        let preds = self.predecessors(s);
        comprehensive_end(
            runtime,
            &self.grid,
            self.comprehensive_slot(i, now, s, full, &preds),
        )
    }

    /// The invariants of the plan and the nodes after all events at `now` (see
    /// [`SimConfig::check_invariants`]): exclusive, up nodes for running jobs; every running or
    /// planned job inside `[e, d]` with a positive allotment, full-length unless overbooked;
    /// non-overlapping node timelines (comprehensive) or a free-node profile that never goes
    /// negative (heuristic).
    fn check(&mut self, now: Time) -> Result<()> {
        let arrived = self.arrived;
        let fail = |reason: String| Err(OverbookError::Invariant { time: now, reason });
        let mut owned = vec![None; self.up.len()];
        for (i, r) in self.recs[..arrived].iter().enumerate() {
            let job = &self.jobs[i];
            let running = r.state == JobState::Running;
            if !(running || r.state == JobState::Planned) {
                continue;
            }
            if r.start < job.release || r.kill > job.deadline || r.kill <= r.start {
                return fail(format!(
                    "job {i} slot [{}, {}) outside [{}, {}]",
                    r.start, r.kill, job.release, job.deadline
                ));
            }
            if !r.overbooked && r.kill - r.start < job.estimate {
                return fail(format!("job {i} is not overbooked but gets less than x"));
            }
            if r.start > self.promised[i] {
                return fail(format!(
                    "job {i} moved from its planned start {} to {}",
                    self.promised[i], r.start
                ));
            }
            let cut = r.kill < (r.start + job.estimate).min(job.deadline);
            if running && cut && !self.failure_seen && !self.kill_needed(i, now)? {
                return fail(format!(
                    "running job {i} is to be killed at {} although no planned job needs its nodes then",
                    r.kill
                ));
            }
            if running {
                if r.end_time > r.kill || r.start > now || r.nodes.len() != job.nodes {
                    return fail(format!("running job {i} inconsistent"));
                }
                for &nd in &r.nodes {
                    if !self.up[nd] || self.owner[nd] != Some(i) || owned[nd].is_some() {
                        return fail(format!("node {nd} of running job {i} not exclusive/up"));
                    }
                    owned[nd] = Some(i);
                }
            } else if r.start < now {
                return fail(format!(
                    "planned job {i} should have started at {}",
                    r.start
                ));
            }
        }
        if let Some((i, _)) = self.recs[arrived..]
            .iter()
            .enumerate()
            .find(|(_, r)| r.start != 0 || r.kill != 0 || !r.nodes.is_empty() || r.order != 0)
        {
            return fail(format!(
                "job {} was planned before it occurred",
                arrived + i
            ));
        }
        if let Some(nd) = (0..owned.len()).find(|&nd| owned[nd] != self.owner[nd]) {
            return fail(format!(
                "node {nd} is owned by {:?} (state {:?}) but the running jobs give {:?}",
                self.owner[nd],
                self.owner[nd].map(|j| self.recs[j].state),
                owned[nd]
            ));
        }
        for i in 0..arrived {
            if matches!(self.recs[i].state, JobState::Planned | JobState::Running) {
                self.promised[i] = self.recs[i].start;
            }
        }
        if self.comprehensive() {
            for nd in 0..self.plan.nodes() {
                for w in self.plan.timeline(nd).windows(2) {
                    if w[0].end > w[1].start {
                        return fail(format!("overlapping reservations on node {nd}: {w:?}"));
                    }
                }
            }
        } else {
            let p = self.heuristic_profile(now, usize::MAX)?;
            if let Some(t) = p.first_negative() {
                return fail(format!("free-node profile negative at {t}"));
            }
        }
        Ok(())
    }

    /// Invariant checks: true when running job `i`'s kill time (short of x and of its deadline)
    /// is the start of another planned job on its nodes (comprehensive) or a time from which
    /// the other accepted jobs leave fewer than its `n` nodes free (heuristic).
    fn kill_needed(&self, i: usize, now: Time) -> Result<bool> {
        let r = &self.recs[i];
        if self.comprehensive() {
            return Ok(r.nodes.iter().any(|&nd| {
                self.plan
                    .timeline(nd)
                    .iter()
                    .any(|o| o.job != i && o.start == r.kill)
            }));
        }
        let p = self.heuristic_profile(now, i)?;
        let n = self.jobs[i].nodes as i64;
        Ok(time(p.free_until(secs(r.kill), n)) == r.kill)
    }

    fn result(&self, latencies_ns: Vec<u64>) -> BatteryResult {
        let mut r = BatteryResult {
            successful: 0,
            failed: 0,
            dropped: 0,
            overbooked: 0,
            fees: 0.0,
            penalties: 0.0,
            failed_fees: 0.0,
            outcomes: Vec::with_capacity(self.jobs.len()),
            latencies_ns,
        };
        for (job, rec) in self.jobs.iter().zip(&self.recs) {
            match rec.state {
                JobState::Succeeded => {
                    r.successful += 1;
                    r.fees += job.fee;
                }
                JobState::Dropped => r.dropped += 1,
                _ => {
                    r.failed += 1;
                    r.penalties += job.penalty;
                    r.failed_fees += job.fee;
                }
            }
            if rec.overbooked && rec.state != JobState::Dropped {
                r.overbooked += 1;
            }
            r.outcomes.push(JobOutcome {
                id: job.id,
                state: if rec.state.is_final() {
                    rec.state
                } else {
                    JobState::Failed
                },
                overbooked: rec.overbooked,
                pof: rec.pof,
            });
        }
        r
    }
}
