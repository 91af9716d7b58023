//! Discrete-event simulation of one battery under one strategy (Birkenheuer 2012, §3.6,
//! §5.2; rules the thesis leaves open are listed in docs/decisions.md). The simulation is a
//! client of [`crate::planner::OnlinePlanner`]: it offers each arriving job, accepts every
//! offer, and reports the ends it knows from the real runtimes and the node events.
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

use crate::classes::ClassRegistry;
use crate::error::{OverbookError, Result};
use crate::failure::{NodeEvent, NodeEventKind};
use crate::job::{JobState, SlaJob, Time};
use crate::planner::{JobKey, OnlinePlanner, PlanEntry, PlanEvent};

pub use crate::planner::BatteryConfig;

/// The former name of [`BatteryConfig`].
#[deprecated(since = "0.1.0", note = "renamed to `BatteryConfig`")]
pub type SimConfig = BatteryConfig;

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
    /// Runtime the job was offered when it was accepted at its occurrence, `min(x, l)` in
    /// seconds (0 for a dropped job).
    pub offered: Time,
    /// Runtime its (last) placement finally allowed, `min(x, slot end - start)` in seconds:
    /// above `offered` when an overbooked job regained time from free capacity (thesis
    /// §3.3.2.1), 0 for a dropped job.
    pub allotted: Time,
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
    /// Jobs not dropped whose last placement was still shorter than their estimate at the end
    /// of the battery (a job that regained its full estimate from free capacity is not
    /// counted; [`OverbookingEffect::overbooked`] counts at acceptance).
    pub overbooked: usize,
    /// Fees of successful jobs (VC).
    pub fees: f64,
    /// Penalties of failed jobs (VC).
    pub penalties: f64,
    /// Fees of the failed jobs (re-pricing with another penalty ratio).
    pub failed_fees: f64,
    /// What overbooking did: allotments cut and regained, failures by cause.
    pub effect: OverbookingEffect,
    /// Per-job outcomes in battery order.
    pub outcomes: Vec<JobOutcome>,
    /// Negotiation latencies in nanoseconds of thread CPU time (empty unless measured).
    pub latencies_ns: Vec<u64>,
}

/// What overbooking did in one battery, measured from its job outcomes (battery totals).
///
/// Overbooked jobs are those offered less than their estimate at acceptance (thesis §3.3.2:
/// the slot is shorter than `x`); they may regain time later from free capacity (§3.3.2.1),
/// and are killed at their slot end if they have not completed by then (§5.2.2).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct OverbookingEffect {
    /// Accepted jobs offered an allotment shorter than their estimate.
    pub overbooked: usize,
    /// Mean offered allotment / estimate of those jobs (0 when there are none).
    pub offered_fraction: f64,
    /// Booked node-hours `n·(x - offered)` cut from their estimates at acceptance.
    pub cut_node_hours: f64,
    /// Node-hours `n·(allotted - offered)` of that they regained from free capacity.
    pub regained_node_hours: f64,
    /// Failed jobs whose final allotment was shorter than both their estimate and their
    /// runtime: killed at their slot end before completing.
    pub killed_short: usize,
    /// Penalties of those jobs (VC).
    pub killed_short_penalties: f64,
    /// The other failed jobs: they lost a node and found no acceptable slot on renegotiation.
    pub lost_to_failures: usize,
    /// Penalties of those jobs (VC).
    pub lost_to_failures_penalties: f64,
}

impl OverbookingEffect {
    fn add(&mut self, job: &SlaJob, o: &JobOutcome) {
        let node_hours = |t: Time| job.nodes as f64 * t as f64 / crate::job::SECONDS_PER_HOUR;
        if o.state == JobState::Dropped {
            return;
        }
        if o.offered < job.estimate {
            self.overbooked += 1;
            // Summed here, divided by the count in `finish`.
            self.offered_fraction += o.offered as f64 / job.estimate as f64;
            self.cut_node_hours += node_hours(job.estimate - o.offered);
            self.regained_node_hours += node_hours((o.allotted - o.offered).max(0));
        }
        if o.state == JobState::Failed {
            if o.allotted < job.estimate && o.allotted < job.runtime {
                self.killed_short += 1;
                self.killed_short_penalties += job.penalty;
            } else {
                self.lost_to_failures += 1;
                self.lost_to_failures_penalties += job.penalty;
            }
        }
    }

    fn finish(mut self) -> Self {
        if self.overbooked > 0 {
            self.offered_fraction /= self.overbooked as f64;
        }
        self
    }
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

/// The end of a battery's failure events: one second after the latest deadline (1 with no
/// jobs). Every job of the battery has ended by its deadline, so node events after it change
/// nothing; a [`FailureSource`](crate::failure::FailureSource) asked for events up to this
/// horizon gives all that matter. Saturating: a deadline of `Time::MAX` (the saturated deadline
/// [`SlaJob::with_sla`] gives a huge estimate) keeps it, so a caller must bound the work of
/// generating events over such a span itself.
///
/// ```
/// use slarm_overbook::failure::{FailureSource, NodeEventKind, SyntheticPoisson};
/// use slarm_overbook::job::SlaJob;
/// use slarm_overbook::sim::failure_horizon;
/// let jobs = [SlaJob::with_sla(1, 0, 3600, 1800, 2, 1.0)?, SlaJob::with_sla(2, 600, 3600, 900, 2, 1.0)?];
/// let end = failure_horizon(&jobs);
/// assert_eq!(end, 600 + 2 * 3600 + 1);
/// let events = SyntheticPoisson::new(1.0, 2.0, 7)?.events(8, end);
/// // Every failure falls inside the horizon (a repair may follow it later).
/// let failures = events.iter().filter(|e| e.kind == NodeEventKind::Failure);
/// assert!(failures.clone().count() > 0 && failures.clone().all(|e| e.time <= end));
/// # Ok::<(), slarm_overbook::OverbookError>(())
/// ```
pub fn failure_horizon(jobs: &[SlaJob]) -> Time {
    jobs.iter()
        .map(|j| j.deadline)
        .max()
        .unwrap_or(0)
        .saturating_add(1)
}

/// Simulates one battery of jobs (sorted by occurrence) on `cluster` nodes with the given node
/// failure/repair `events` (sorted), learning nothing online.
///
/// ```
/// use slarm_overbook::{acceptance::TestSpec, classes::{ClassRegistry, RegistryConfig},
///     job::SlaJob, sim::{simulate_battery, BatteryConfig}, strategy::Strategy};
/// let jobs: Vec<SlaJob> = (0..20)
///     .map(|i| SlaJob::with_sla(i, i as i64 * 100, 3600, 1200, 2, 1.0).unwrap())
///     .collect();
/// let reg = ClassRegistry::learn(&jobs, RegistryConfig::default()).unwrap();
/// let cfg = BatteryConfig::new(Strategy::HeurOverbook, TestSpec::Pof { max: 0.5 });
/// let r = simulate_battery(&jobs, 8, &reg, &[], &cfg).unwrap();
/// assert_eq!(r.successful + r.failed + r.dropped, 20);
/// ```
pub fn simulate_battery(
    jobs: &[SlaJob],
    cluster: usize,
    registry: &ClassRegistry,
    events: &[NodeEvent],
    cfg: &BatteryConfig,
) -> Result<BatteryResult> {
    Ok(simulate_battery_plan(jobs, cluster, registry, events, cfg)?.into_result(jobs))
}

/// A battery simulated to its end, kept for inspection: the planner with every job's final
/// placement (start, nodes, slot end, state) and each job's key in battery order.
pub struct BatteryRun<'r> {
    /// The planner after the last event; [`OnlinePlanner::entry`] gives a job's placement.
    pub planner: OnlinePlanner<'r>,
    /// Each job's key in battery order (`None`: dropped).
    pub keys: Vec<Option<JobKey>>,
    offered: Vec<Time>,
    latencies_ns: Vec<u64>,
}

impl BatteryRun<'_> {
    /// The battery's totals and per-job outcomes, as [`simulate_battery`] returns them; `jobs`
    /// are the jobs the battery was simulated with.
    pub fn into_result(self, jobs: &[SlaJob]) -> BatteryResult {
        result(
            jobs,
            &self.planner,
            &self.keys,
            &self.offered,
            self.latencies_ns,
        )
    }
}

/// [`simulate_battery`], keeping the final plan ([`BatteryRun`]) for a caller that needs more
/// than the totals, e.g. where each job actually ran.
pub fn simulate_battery_plan<'r>(
    jobs: &[SlaJob],
    cluster: usize,
    registry: &'r ClassRegistry,
    events: &[NodeEvent],
    cfg: &BatteryConfig,
) -> Result<BatteryRun<'r>> {
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
    let mut planner = OnlinePlanner::new(cluster, registry, cfg.clone())?;
    if let Some(e) = events.iter().find(|e| e.node >= cluster) {
        return Err(OverbookError::UnknownNode {
            node: e.node,
            cluster,
        });
    }
    let n = jobs.len();
    let mut keys: Vec<Option<JobKey>> = vec![None; n];
    let mut offered: Vec<Time> = vec![0; n];
    let mut latencies = Vec::new();
    let (mut arrived, mut ev) = (0usize, 0usize);
    loop {
        let mut t = jobs.get(arrived).map_or(Time::MAX, |j| j.occurrence);
        let mut any_active = false;
        for e in planner.jobs() {
            match e.state {
                JobState::Running => {
                    any_active = true;
                    t = t.min(real_end(&e));
                }
                JobState::Planned => {
                    any_active = true;
                    t = t.min(e.start);
                }
                _ => {}
            }
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
        // Job ends first, then repairs and failures (sorted: repairs first at equal times).
        let mut batch: Vec<PlanEvent> = planner
            .running()
            .filter(|e| real_end(e) <= now)
            .map(|e| {
                if completes(&e) {
                    PlanEvent::Finished(e.key)
                } else {
                    PlanEvent::Killed(e.key)
                }
            })
            .collect();
        while let Some(e) = events.get(ev).filter(|e| e.time <= now) {
            ev += 1;
            batch.push(match e.kind {
                NodeEventKind::Repair => PlanEvent::NodeRepaired(e.node),
                NodeEventKind::Failure => PlanEvent::NodeFailed(e.node),
            });
        }
        planner.update(now, &batch)?;
        while let Some(job) = jobs.get(arrived).filter(|j| j.occurrence <= now) {
            let t0 = cfg.measure_latency.then(crate::clock::thread_cpu_ns);
            let offer = planner.offer(job, now);
            if let Some(t0) = t0 {
                latencies.push(crate::clock::thread_cpu_ns().saturating_sub(t0));
            }
            match offer {
                Ok(o) => {
                    offered[arrived] = o.allotted();
                    keys[arrived] = Some(planner.accept(o)?);
                }
                Err(OverbookError::Declined { .. } | OverbookError::Infeasible { .. }) => {}
                Err(e) => return Err(e),
            }
            arrived += 1;
        }
    }
    Ok(BatteryRun {
        planner,
        keys,
        offered,
        latencies_ns: latencies,
    })
}

/// The simulator knows the real runtime: a running job ends when it completes or at its slot end.
fn real_end(e: &PlanEntry<'_>) -> Time {
    let run = e.job.runtime.min(e.job.estimate).min(e.slot_end - e.start);
    e.start + run.max(0)
}

/// True when the running job completes within its allotment (else it is killed at its slot end).
fn completes(e: &PlanEntry<'_>) -> bool {
    e.job.runtime <= e.job.estimate.min(e.slot_end - e.start)
}

fn result(
    jobs: &[SlaJob],
    planner: &OnlinePlanner<'_>,
    keys: &[Option<JobKey>],
    offered: &[Time],
    latencies_ns: Vec<u64>,
) -> BatteryResult {
    let mut r = BatteryResult {
        successful: 0,
        failed: 0,
        dropped: 0,
        overbooked: 0,
        fees: 0.0,
        penalties: 0.0,
        failed_fees: 0.0,
        effect: OverbookingEffect::default(),
        outcomes: Vec::with_capacity(jobs.len()),
        latencies_ns,
    };
    for ((job, key), &offered) in jobs.iter().zip(keys).zip(offered) {
        let entry = key.and_then(|k| planner.entry(k).ok());
        let allotted = entry.map_or(0, |e| (e.slot_end - e.start).min(job.estimate).max(0));
        // Anything still open (cannot happen with finite deadlines) counts as failed.
        let (state, overbooked, pof) = match entry {
            Some(e) if e.state.is_final() => (e.state, e.overbooked, e.pof),
            Some(e) => (JobState::Failed, e.overbooked, e.pof),
            None => (JobState::Dropped, false, 0.0),
        };
        match state {
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
        if overbooked && state != JobState::Dropped {
            r.overbooked += 1;
        }
        let outcome = JobOutcome {
            id: job.id,
            state,
            overbooked,
            pof,
            offered,
            allotted,
        };
        r.effect.add(job, &outcome);
        r.outcomes.push(outcome);
    }
    r.effect = r.effect.finish();
    r
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::acceptance::TestSpec;
    use crate::classes::RegistryConfig;
    use crate::strategy::Strategy;

    /// A deadline of `Time::MAX` (the saturated deadline of a huge estimate) overflowed
    /// `deadline + 1` when the harness computed its failure horizon: it saturates.
    #[test]
    fn a_saturated_deadline_keeps_the_failure_horizon() -> Result<()> {
        let job = SlaJob::with_sla(1, 0, Time::MAX / 2 + 1, 60, 1, 1.0)?;
        assert_eq!(job.deadline, Time::MAX);
        assert_eq!(failure_horizon(std::slice::from_ref(&job)), Time::MAX);
        assert_eq!(failure_horizon(&[]), 1);
        Ok(())
    }

    /// Statistics in which every job of the class ends at 10 % of its estimate.
    fn registry() -> Result<ClassRegistry> {
        let history: Vec<SlaJob> = (0..50)
            .map(|i| SlaJob::with_sla(i, 0, 2000, 200, 4, 1.0))
            .collect::<Result<_>>()?;
        ClassRegistry::learn(&history, RegistryConfig::default())
    }

    /// Job A holds all four nodes for up to 1 h; job B (x = 2000 s, d = 4000 s) only fits into
    /// the 400 s before its deadline, so heuristic overbooking offers it 20 % of its estimate.
    fn battery(a_runtime: Time, b_runtime: Time) -> Result<BatteryResult> {
        let jobs = vec![
            SlaJob::with_sla(1, 0, 3600, a_runtime, 4, 1.0)?,
            SlaJob::with_sla(2, 0, 2000, b_runtime, 4, 1.0)?,
        ];
        let mut cfg = BatteryConfig::new(Strategy::HeurOverbook, TestSpec::Pof { max: 0.5 });
        cfg.check_invariants = true;
        simulate_battery(&jobs, 4, &registry()?, &[], &cfg)
    }

    #[test]
    fn overbooked_job_regains_its_estimate_when_the_predecessor_ends_early() -> Result<()> {
        let r = battery(1200, 1500)?;
        let b = &r.outcomes[1];
        assert_eq!(
            (b.offered, b.allotted, b.state),
            (400, 2000, JobState::Succeeded)
        );
        let e = r.effect;
        assert_eq!(
            (e.overbooked, e.killed_short, e.lost_to_failures),
            (1, 0, 0)
        );
        assert!((e.offered_fraction - 0.2).abs() < 1e-12);
        assert!((e.cut_node_hours - 4.0 * 1600.0 / 3600.0).abs() < 1e-12);
        assert!((e.regained_node_hours - e.cut_node_hours).abs() < 1e-12);
        Ok(())
    }

    #[test]
    fn overbooked_job_that_overruns_its_slot_is_killed_short() -> Result<()> {
        let r = battery(3600, 1000)?;
        let b = &r.outcomes[1];
        assert_eq!(
            (b.offered, b.allotted, b.state),
            (400, 400, JobState::Failed)
        );
        let e = r.effect;
        assert_eq!(
            (e.overbooked, e.killed_short, e.lost_to_failures),
            (1, 1, 0)
        );
        assert!((e.killed_short_penalties - r.penalties).abs() < 1e-12);
        assert_eq!(e.regained_node_hours, 0.0);
        Ok(())
    }
}
