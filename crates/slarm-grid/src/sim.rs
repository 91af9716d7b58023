//! The grid simulation: global resource manager, FCFS local resource managers per site,
//! cloud pool with acquisition/release overheads, driven by the shared `slarm-sim` kernel.
//!
//! Event order at equal times (kernel classes): task/job completions, cloud releases, cloud
//! processors becoming ready, background arrivals, BoT arrivals, monitoring ticks.

use rand::RngExt;
use slarm_sim::policy::{easy_pass, Candidate, RunningSet};
use slarm_sim::Simulation;
use slarm_stats::{RngStreams, SimRng};

use crate::config::validate_cfg;
use crate::error::{GridError, Result};
use crate::metrics::{lease_hours, BotRecord};
use crate::platform::{Platform, SiteKind};
use crate::provision::{CloudAction, PoolView, Provisioner};
use crate::sched::BotScheduler;
use crate::workload::GridWorkload;

#[allow(deprecated)]
pub use crate::config::SimConfig;
pub use crate::config::{CostModel, GridConfig, LrmPolicy};
pub use crate::result::{BusyShare, CostBreakdown, Lease, RunResult};
pub use crate::site::{Dispatch, QueuedJob, RunningJob, SiteState};

#[derive(Debug, Clone, Copy, PartialEq)]
enum Ev {
    JobEnd(usize),
    CloudReleased(usize),
    CloudReady(usize),
    BgArrival(usize),
    BotArrival(usize),
    Monitor,
}

impl Ev {
    fn class(self) -> u32 {
        match self {
            Ev::JobEnd(_) => 0,
            Ev::CloudReleased(_) => 1,
            Ev::CloudReady(_) => 2,
            Ev::BgArrival(_) => 3,
            Ev::BotArrival(_) => 4,
            Ev::Monitor => 5,
        }
    }
}

#[derive(Debug, Clone, Copy)]
enum JobKind {
    Task { bot: usize, task: usize },
    Background,
}

#[derive(Debug, Clone, Copy)]
struct Job {
    kind: JobKind,
    site: usize,
    procs: u64,
    runtime_s: f64,
    start_s: f64,
    predicted_s: f64,
}

#[derive(Debug, Clone, Copy, Default)]
struct BotProgress {
    done: usize,
    last_end: f64,
    max_wait: f64,
    work_ref: f64,
}

struct State<'a> {
    sim: Simulation<Ev>,
    workload: &'a GridWorkload,
    cfg: &'a GridConfig,
    sites: Vec<SiteState>,
    cloud: Option<usize>,
    jobs: Vec<Job>,
    placing: usize,
    bots: Vec<BotProgress>,
    records: Vec<Option<BotRecord>>,
    completed: usize,
    last_two: [f64; 2],
    seen: usize,
    acc_sum: f64,
    acc_n: u64,
    leases: Vec<Lease>,
    ready_leases: Vec<usize>,
    pending: u64,
    acquisitions: u64,
    releases: u64,
    kappa_series: Vec<(f64, f64)>,
    base_procs: u64,
    horizon: (f64, f64),
    grid_busy_s: f64,
    cloud_busy_s: f64,
    arrivals: (f64, f64),
    bot_busy_s: f64,
    bg_busy_s: f64,
    clamped: usize,
    /// Background jobs and BoTs still to arrive.
    arrivals_left: usize,
    rng: SimRng,
}

impl State<'_> {
    fn schedule(&mut self, at: f64, ev: Ev) -> Result<()> {
        self.sim.schedule_at(at, ev.class(), ev)?;
        Ok(())
    }

    fn cloud_ready(&self) -> u64 {
        self.cloud.map_or(0, |c| self.sites[c].size)
    }

    fn push_kappa(&mut self) {
        let grid: u64 = self
            .sites
            .iter()
            .filter(|s| s.kind == SiteKind::Grid)
            .map(|s| s.size)
            .sum();
        let k = (grid + self.cloud_ready()) as f64 / self.base_procs as f64;
        let now = self.sim.now();
        match self.kappa_series.last_mut() {
            Some(last) if last.0 == now => last.1 = k,
            _ => self.kappa_series.push((now, k)),
        }
    }

    fn view(&self) -> PoolView {
        let (used, ready) = self
            .sites
            .iter()
            .fold((0, 0), |(u, r), s| (u + s.used, r + s.size));
        let idle = self
            .cloud
            .map_or(0, |c| self.sites[c].size - self.sites[c].used);
        PoolView {
            now_s: self.sim.now(),
            used,
            ready_total: ready,
            base_procs: self.base_procs,
            cloud_ready: self.cloud_ready(),
            cloud_pending: self.pending,
            cloud_idle: idle,
        }
    }

    fn predicted(&self) -> f64 {
        match self.seen {
            0 | 1 => self.cfg.cold_prediction_s,
            _ => 0.5 * (self.last_two[0] + self.last_two[1]),
        }
    }

    fn enqueue(&mut self, site: usize, job: Job) -> Result<()> {
        let id = self.jobs.len();
        let is_task = matches!(job.kind, JobKind::Task { .. });
        self.jobs.push(job);
        let s = &mut self.sites[site];
        s.queue.push_back(QueuedJob {
            id,
            procs: job.procs,
            is_task,
        });
        s.queued_demand += job.procs;
        self.try_start(site)
    }

    /// Starts the queued job `q` on `site` now (its processors must be free).
    fn start(&mut self, site: usize, q: QueuedJob) -> Result<()> {
        let now = self.sim.now();
        let s = &mut self.sites[site];
        s.queued_demand -= q.procs;
        s.used += q.procs;
        s.running.insert(
            q.id,
            RunningJob {
                start_s: now,
                procs: q.procs,
                is_task: q.is_task,
            },
        );
        let job = &mut self.jobs[q.id];
        job.start_s = now;
        let end = now + job.runtime_s;
        if let JobKind::Task { bot, .. } = job.kind {
            let arrival = self.workload.bots()[bot].arrival_s;
            let prog = &mut self.bots[bot];
            prog.max_wait = prog.max_wait.max(now - arrival);
        }
        self.schedule(end, Ev::JobEnd(q.id))
    }

    /// Starts queued jobs of `site` in FCFS order while the head fits, then backfills if the
    /// LRM policy says so.
    fn try_start(&mut self, site: usize) -> Result<()> {
        while let Some(&head) = self.sites[site].queue.front() {
            let s = &self.sites[site];
            if s.size - s.used < head.procs {
                break;
            }
            self.sites[site].queue.pop_front();
            self.start(site, head)?;
        }
        if self.cfg.lrm == LrmPolicy::EasyBackfill {
            self.backfill(site)?;
        }
        Ok(())
    }

    /// EASY backfilling behind a blocked head job with `slarm_sim`'s pass
    /// ([`slarm_sim::policy::easy_pass`]): the head's reservation (shadow time) is the
    /// earliest running-job end at which enough processors are free; a later job starts now
    /// if it fits and either ends by the shadow time or uses only processors the head will
    /// not need then (every job ending by the shadow time counts towards those). The model
    /// has no user estimates, so the estimate is the actual runtime. EASY handles sites of
    /// up to `u32::MAX` processors.
    fn backfill(&mut self, site: usize) -> Result<()> {
        let now = self.sim.now();
        let s = &self.sites[site];
        if s.size == s.used || s.queue.len() < 2 {
            return Ok(());
        }
        let procs = |p: u64| {
            u32::try_from(p).map_err(|_| {
                GridError::InvalidPlatform(format!(
                    "EASY backfilling handles sites of up to {} processors, site {site} has {}",
                    u32::MAX,
                    s.size
                ))
            })
        };
        let free = procs(s.size - s.used)?;
        let mut running = RunningSet::new();
        for (&id, r) in &s.running {
            running.insert(id, r.start_s + self.jobs[id].runtime_s, procs(r.procs)?);
        }
        let queue = s
            .queue
            .iter()
            .map(|q| {
                Ok(Candidate {
                    key: q.id,
                    procs: procs(q.procs)?,
                    estimate: self.jobs[q.id].runtime_s,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let pass = easy_pass(now, free, &running, &queue);
        // Start in queue order (the head is blocked, so every start is a backfill), then drop
        // the started jobs from the queue.
        let started: Vec<QueuedJob> = pass
            .start
            .iter()
            .filter_map(|&pos| self.sites[site].queue.get(pos).copied())
            .collect();
        if started.is_empty() {
            return Ok(());
        }
        let mut pos = pass.start.clone();
        pos.sort_unstable();
        for &p in pos.iter().rev() {
            self.sites[site].queue.remove(p);
        }
        for q in started {
            self.start(site, q)?;
        }
        Ok(())
    }

    fn account_busy(&mut self, job: Job, end: f64) {
        let overlap =
            |(a, b): (f64, f64)| (end.min(b) - job.start_s.max(a)).max(0.0) * job.procs as f64;
        let busy = overlap(self.horizon);
        if Some(job.site) == self.cloud {
            self.cloud_busy_s += busy;
        } else {
            self.grid_busy_s += busy;
        }
        let in_span = overlap(self.arrivals);
        match job.kind {
            JobKind::Task { .. } => self.bot_busy_s += in_span,
            JobKind::Background => self.bg_busy_s += in_span,
        }
    }

    fn apply(&mut self, action: CloudAction) -> Result<()> {
        let Some(c) = self.cloud else {
            return Ok(());
        };
        let now = self.sim.now();
        match action {
            CloudAction::Hold => {}
            CloudAction::Acquire => {
                let (lo, hi) = self.cfg.acquisition_s;
                let delay = lo + (hi - lo) * self.rng.random::<f64>();
                self.leases.push(Lease {
                    requested_s: now,
                    ready_s: None,
                    ended_s: None,
                });
                self.pending += 1;
                self.acquisitions += 1;
                self.schedule(now + delay, Ev::CloudReady(self.leases.len() - 1))?;
            }
            CloudAction::Release => {
                let s = &mut self.sites[c];
                if s.size > s.used {
                    if let Some(lease) = self.ready_leases.pop() {
                        s.size -= 1;
                        self.releases += 1;
                        let (lo, hi) = self.cfg.release_s;
                        let delay = lo + (hi - lo) * self.rng.random::<f64>();
                        self.schedule(now + delay, Ev::CloudReleased(lease))?;
                        self.push_kappa();
                    }
                }
            }
        }
        Ok(())
    }

    /// A cloud lease became ready: its processor joins the cloud site, which may start work.
    fn on_cloud_ready(&mut self, lease: usize) -> Result<()> {
        self.pending -= 1;
        self.leases[lease].ready_s = Some(self.sim.now());
        self.ready_leases.push(lease);
        if let Some(c) = self.cloud {
            self.sites[c].size += 1;
            self.push_kappa();
            self.try_start(c)?;
        }
        Ok(())
    }

    /// Background job `i` joins its site's queue (clamped to the site's size, counted), and the
    /// next background arrival is scheduled.
    fn on_background_arrival(&mut self, i: usize) -> Result<()> {
        let now = self.sim.now();
        self.arrivals_left -= 1;
        let j = self.workload.background()[i];
        let size = self.sites[j.site].size;
        if j.procs > size {
            self.clamped += 1;
        }
        let job = Job {
            kind: JobKind::Background,
            site: j.site,
            procs: j.procs.min(size).max(1),
            runtime_s: j.runtime_s,
            start_s: 0.0,
            predicted_s: 0.0,
        };
        self.enqueue(j.site, job)?;
        if let Some(next) = self.workload.background().get(i + 1) {
            self.schedule(next.submit_s.max(now), Ev::BgArrival(i + 1))?;
        }
        Ok(())
    }

    /// BoT `i` arrives: the scheduler places its tasks, and the next BoT arrival is scheduled.
    fn on_bot_arrival(&mut self, i: usize, scheduler: &mut dyn BotScheduler) -> Result<()> {
        let now = self.sim.now();
        self.arrivals_left -= 1;
        self.placing = i;
        let workload = self.workload;
        scheduler.place(&workload.bots()[i], self)?;
        if let Some(next) = workload.bots().get(i + 1) {
            self.schedule(next.arrival_s.max(now), Ev::BotArrival(i + 1))?;
        }
        Ok(())
    }

    /// A monitoring tick: the provisioner sees the pool and acts; the next tick is scheduled
    /// unless the run has settled.
    fn on_monitor(&mut self, provisioner: &mut dyn Provisioner) -> Result<()> {
        let now = self.sim.now();
        let view = self.view();
        let action = provisioner.on_monitor(&view);
        self.apply(action)?;
        // Past the cost horizon, with every local queue empty and nothing left to arrive, no
        // later decision can change a BoT, a cost or the time-averaged κ (only idle
        // processors are released, leases are clipped to the horizon): monitoring stops, so
        // runs with year-long tasks stay cheap.
        let settled = now >= self.horizon.1
            && self.arrivals_left == 0
            && self.sites.iter().all(|s| s.queue.is_empty());
        if let (Some(p), false) = (provisioner.monitor_period_s(), settled) {
            self.schedule(now + p, Ev::Monitor)?;
        }
        Ok(())
    }

    fn job_end(&mut self, id: usize, prov: &mut dyn Provisioner) -> Result<()> {
        let now = self.sim.now();
        let job = self.jobs[id];
        let s = &mut self.sites[job.site];
        s.used -= job.procs;
        s.running.remove(&id);
        self.account_busy(job, now);
        if let JobKind::Task { bot, task } = job.kind {
            let actual = self.workload.bots()[bot].tasks[task].runtime_ref_s;
            let (p, a) = (job.predicted_s, actual);
            if p > 0.0 && a > 0.0 {
                self.acc_sum += p.min(a) / p.max(a);
                self.acc_n += 1;
            }
            self.last_two = [self.last_two[1], actual];
            self.seen += 1;
            let prog = &mut self.bots[bot];
            prog.done += 1;
            prog.last_end = prog.last_end.max(now);
            if prog.done == self.workload.bots()[bot].tasks.len() {
                let arrival = self.workload.bots()[bot].arrival_s;
                let makespan = prog.last_end - arrival;
                self.records[bot] = Some(BotRecord {
                    size: prog.done,
                    arrival_s: arrival,
                    makespan_s: makespan,
                    nsl: makespan / prog.work_ref,
                    max_wait_s: prog.max_wait,
                });
                self.completed += 1;
                let view = self.view();
                let action = prov.on_bot_completed(makespan, &view);
                self.apply(action)?;
            }
        }
        self.try_start(job.site)
    }
}

impl Dispatch for State<'_> {
    fn now(&self) -> f64 {
        self.sim.now()
    }
    fn sites(&self) -> &[SiteState] {
        &self.sites
    }
    fn predicted_runtime_s(&self) -> f64 {
        self.predicted()
    }
    fn reference_speed_ghz(&self) -> f64 {
        self.cfg.reference_speed_ghz
    }
    fn submit(&mut self, site: usize, task: usize) -> Result<()> {
        let bot = self.placing;
        let b = &self.workload.bots()[bot];
        let Some(t) = b.tasks.get(task) else {
            return Err(GridError::InvalidWorkload(format!(
                "task {task} of BoT {bot} does not exist"
            )));
        };
        let Some(s) = self.sites.get(site) else {
            return Err(GridError::InvalidPlatform(format!("no site {site}")));
        };
        let job = Job {
            kind: JobKind::Task { bot, task },
            site,
            procs: 1,
            runtime_s: t.runtime_ref_s * self.cfg.reference_speed_ghz / s.speed_ghz,
            start_s: 0.0,
            predicted_s: self.predicted(),
        };
        self.enqueue(site, job)
    }
}

/// Simulates `workload` on `platform` overprovisioned by `provisioner` and scheduled by
/// `scheduler` until every BoT has completed. Randomness (cloud overheads) comes from
/// `streams`. Periodic monitoring (Dynamic) stops once the cost horizon has passed, every
/// local queue is empty and nothing is left to arrive: no later decision could change a BoT
/// record, a cost or the time-averaged κ.
///
/// ```
/// use slarm_grid::prelude::*;
/// use slarm_stats::RngStreams;
/// let platform = Platform::das3();
/// let streams = RngStreams::new(1);
/// let bots = IosupBotModel::default()
///     .generate(40, 0.8, &platform, &mut streams.stream(&[0]))
///     .unwrap();
/// let workload = GridWorkload::new(bots, vec![], BackgroundSource::None).unwrap();
/// let mut prov = StaticAll(Kappa::from_f64(2.0).unwrap());
/// let mut sched = DynamicPerTask;
/// let r = simulate(&platform, &workload, &mut prov, &mut sched, &GridConfig::default(), &streams)
///     .unwrap();
/// assert_eq!(r.bots.len(), 40);
/// assert_eq!(r.grid_procs, 1088);
/// ```
pub fn simulate(
    platform: &Platform,
    workload: &GridWorkload,
    provisioner: &mut dyn Provisioner,
    scheduler: &mut dyn BotScheduler,
    cfg: &GridConfig,
    streams: &RngStreams,
) -> Result<RunResult> {
    validate_cfg(cfg)?;
    let deployed = provisioner.layout(platform)?;
    let n_orig = platform.sites().len();
    if let Some(j) = workload.background().iter().find(|j| j.site >= n_orig) {
        return Err(GridError::InvalidWorkload(format!(
            "background job for site {} on a platform of {n_orig} sites",
            j.site
        )));
    }
    let base_procs = platform.total_processors();
    let mut sites: Vec<SiteState> = deployed
        .sites()
        .iter()
        .map(|s| SiteState::new(s.processors, s.speed_ghz, s.kind))
        .collect();
    let cloud = if provisioner.uses_cloud() {
        let n0 = provisioner.initial_cloud(base_procs);
        sites.push(SiteState::new(
            n0,
            platform.slowest_speed(),
            SiteKind::Cloud,
        ));
        Some(sites.len() - 1)
    } else {
        None
    };
    let first = workload.bots().first().map_or(0.0, |b| b.arrival_s);
    let last = workload.bots().last().map_or(0.0, |b| b.arrival_s);
    let horizon = match cfg.horizon_s {
        Some(h) => (first, first + h),
        None => (first, last),
    };
    let n_bots = workload.bots().len();
    let mut st = State {
        sim: Simulation::new(),
        workload,
        cfg,
        sites,
        cloud,
        jobs: Vec::with_capacity(workload.task_count() + workload.background().len()),
        placing: 0,
        bots: workload
            .bots()
            .iter()
            .map(|b| BotProgress {
                done: 0,
                last_end: b.arrival_s,
                max_wait: 0.0,
                work_ref: b.tasks.iter().map(|t| t.runtime_ref_s).sum(),
            })
            .collect(),
        records: vec![None; n_bots],
        completed: 0,
        last_two: [0.0; 2],
        seen: 0,
        acc_sum: 0.0,
        acc_n: 0,
        leases: Vec::new(),
        ready_leases: Vec::new(),
        pending: 0,
        acquisitions: 0,
        releases: 0,
        kappa_series: Vec::new(),
        base_procs,
        horizon,
        grid_busy_s: 0.0,
        cloud_busy_s: 0.0,
        arrivals: (first, last),
        bot_busy_s: 0.0,
        bg_busy_s: 0.0,
        clamped: 0,
        arrivals_left: n_bots + workload.background().len(),
        rng: streams.stream(&[slarm_stats::rng::label("cloud-overheads")]),
    };
    if let Some(c) = cloud {
        for _ in 0..st.sites[c].size {
            st.leases.push(Lease {
                requested_s: 0.0,
                ready_s: Some(0.0),
                ended_s: None,
            });
            st.ready_leases.push(st.leases.len() - 1);
        }
    }
    st.push_kappa();
    st.schedule(first, Ev::BotArrival(0))?;
    if let Some(j) = workload.background().first() {
        st.schedule(j.submit_s.max(0.0), Ev::BgArrival(0))?;
    }
    if provisioner.monitor_period_s().is_some() {
        st.schedule(0.0, Ev::Monitor)?;
    }
    while st.completed < n_bots {
        let Some(ev) = st.sim.step() else {
            return Err(GridError::QueueDrained);
        };
        match ev.event {
            Ev::JobEnd(id) => st.job_end(id, provisioner)?,
            Ev::CloudReleased(lease) => st.leases[lease].ended_s = Some(ev.time),
            Ev::CloudReady(lease) => st.on_cloud_ready(lease)?,
            Ev::BgArrival(i) => st.on_background_arrival(i)?,
            Ev::BotArrival(i) => st.on_bot_arrival(i, scheduler)?,
            Ev::Monitor => st.on_monitor(provisioner)?,
        }
    }
    finish(st, &deployed, provisioner, scheduler)
}

fn finish(
    mut st: State<'_>,
    deployed: &Platform,
    provisioner: &dyn Provisioner,
    scheduler: &dyn BotScheduler,
) -> Result<RunResult> {
    let end = st.sim.now();
    // Busy time of jobs still running (background, or cloud jobs) up to the end.
    let running: Vec<Job> = st
        .sites
        .iter()
        .flat_map(|s| s.running.keys())
        .map(|&id| st.jobs[id])
        .collect();
    for job in running {
        st.account_busy(job, end);
    }
    let (a, b) = st.horizon;
    let horizon_s = b - a;
    let lease_h: u64 = st
        .leases
        .iter()
        .map(|l| {
            let stop = l.ended_s.unwrap_or(f64::INFINITY).min(end.max(b));
            lease_hours(stop.min(b) - l.requested_s.max(a))
        })
        .sum();
    let grid_procs = deployed.total_processors();
    let static_h = grid_procs as f64 * horizon_s / 3600.0;
    let grid_busy_h = st.grid_busy_s / 3600.0;
    let cloud_busy_h = st.cloud_busy_s / 3600.0;
    let elastic = st.cloud.is_some();
    let cost = CostBreakdown {
        provisioned_all: static_h + lease_h as f64,
        busy_grid_plus_cloud_leases: if elastic {
            grid_busy_h + lease_h as f64
        } else {
            static_h
        },
        busy_only: grid_busy_h + cloud_busy_h,
        grid_busy_hours: grid_busy_h,
        cloud_busy_hours: cloud_busy_h,
        cloud_lease_hours: lease_h,
        leases: st.leases.len(),
    };
    let cpu_hours = match st.cfg.cost_model {
        CostModel::ProvisionedAll => cost.provisioned_all,
        CostModel::BusyGridPlusCloudLeases => cost.busy_grid_plus_cloud_leases,
        CostModel::BusyOnly => cost.busy_only,
    };
    let (kappa_time_avg, kappa_max) = kappa_stats(&st.kappa_series, a, b);
    let bots: Vec<BotRecord> = st.records.iter().flatten().copied().collect();
    Ok(RunResult {
        strategy: provisioner.name().to_string(),
        policy: scheduler.name().to_string(),
        kappa_target: provisioner.kappa().map(|k| k.value()),
        bots,
        base_procs: st.base_procs,
        grid_procs,
        horizon_s,
        end_s: end,
        cpu_hours,
        cost,
        kappa_series: st.kappa_series,
        kappa_time_avg,
        kappa_max,
        predictor_accuracy: if st.acc_n > 0 {
            st.acc_sum / st.acc_n as f64
        } else {
            0.0
        },
        clamped_background: st.clamped,
        cloud_acquisitions: st.acquisitions,
        cloud_releases: st.releases,
        background: st.workload.background_source().clone(),
        arrival_span_s: st.arrivals.1 - st.arrivals.0,
        bot_busy_s: st.bot_busy_s,
        background_busy_s: st.bg_busy_s,
    })
}

/// Time average of a step function over `[a, b]` (the value at `a` if `b ≤ a`) and its max.
pub fn kappa_stats(series: &[(f64, f64)], a: f64, b: f64) -> (f64, f64) {
    let max = series.iter().map(|p| p.1).fold(f64::NEG_INFINITY, f64::max);
    let value_at = |t: f64| {
        series
            .iter()
            .take_while(|p| p.0 <= t)
            .last()
            .or(series.first())
            .map_or(0.0, |p| p.1)
    };
    if b <= a {
        return (value_at(a), max);
    }
    let mut area = 0.0;
    let mut t = a;
    let mut v = value_at(a);
    for &(ti, vi) in series.iter().filter(|p| p.0 > a && p.0 < b) {
        area += v * (ti - t);
        t = ti;
        v = vi;
    }
    area += v * (b - t);
    (area / (b - a), max)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kappa::Kappa;
    use crate::provision::{DynamicAutoScale, NoOverprovisioning, StaticAll};
    use crate::sched::{DynamicPerBot, DynamicPerTask, StaticProportional};
    use crate::workload::{BackgroundJob, BackgroundSource, Bot, Task};

    fn bot(id: usize, at: f64, rts: &[f64]) -> Bot {
        Bot {
            id,
            arrival_s: at,
            tasks: rts.iter().map(|&r| Task { runtime_ref_s: r }).collect(),
        }
    }

    /// One run with the default configuration and seed 1.
    fn run(
        platform: &Platform,
        w: &GridWorkload,
        prov: &mut dyn Provisioner,
        sched: &mut dyn BotScheduler,
    ) -> RunResult {
        let cfg = GridConfig::default();
        simulate(platform, w, prov, sched, &cfg, &RngStreams::new(1)).unwrap()
    }

    fn tiny() -> Platform {
        Platform::new(vec![("a".into(), 2, 2.2), ("b".into(), 1, 4.4)]).unwrap()
    }

    #[test]
    fn hand_computed_fcfs_run() {
        // Site a: 2 procs at 2.2 GHz; site b: 1 proc at 4.4 GHz (tasks run twice as fast).
        // BoT 0 at t=0 with 3 tasks of 100 s, dynamic per task: a, b, a (ties: larger site).
        // a: two tasks 0..100; b: one task 0..50. Makespan 100, NSL 100/300.
        // BoT 1 at t=10 with 1 task of 40 s: loads a=1.0, b=1.0; queued equal (0); larger
        // site a wins; it queues behind and starts at 100, ends 140: makespan 130.
        let w = GridWorkload::new(
            vec![bot(0, 0.0, &[100.0; 3]), bot(1, 10.0, &[40.0])],
            vec![],
            BackgroundSource::None,
        )
        .unwrap();
        let r = run(&tiny(), &w, &mut NoOverprovisioning, &mut DynamicPerTask);
        assert_eq!(r.bots[0].makespan_s, 100.0);
        assert!((r.bots[0].nsl - 100.0 / 300.0).abs() < 1e-12);
        assert_eq!(r.bots[1].makespan_s, 130.0);
        assert_eq!((r.bots[0].max_wait_s, r.bots[1].max_wait_s), (0.0, 90.0));
        assert_eq!(r.end_s, 140.0);
        // Per BoT: BoT 0 entirely on a (3 tasks, 2 procs): 0..100, 100..200.
        let r = run(&tiny(), &w, &mut NoOverprovisioning, &mut DynamicPerBot);
        assert_eq!(r.bots[0].makespan_s, 200.0);
        // BoT 1 goes to b (load 0): 40 s at double speed = 20 s.
        assert_eq!(r.bots[1].makespan_s, 20.0);
    }

    #[test]
    fn static_policy_and_background_fcfs() {
        // Background job of 2 procs on a at t=0 for 50 s; BoT of 3 tasks at t=1 split 2/1
        // by size: a's tasks wait until 50 and end at 150; b's ends at 1+50.
        let w = GridWorkload::new(
            vec![bot(0, 1.0, &[100.0; 3]), bot(1, 2.0, &[10.0])],
            vec![BackgroundJob {
                submit_s: 0.0,
                runtime_s: 50.0,
                procs: 2,
                site: 0,
            }],
            BackgroundSource::Synthetic,
        )
        .unwrap();
        let r = run(
            &tiny(),
            &w,
            &mut NoOverprovisioning,
            &mut StaticProportional,
        );
        assert_eq!(r.bots[0].makespan_s, 149.0);
        // Cost horizon [1, 2]: static = 3 procs × 1 s.
        assert!((r.cpu_hours - 3.0 / 3600.0).abs() < 1e-12);
        assert_eq!(r.background, BackgroundSource::Synthetic);
    }

    #[test]
    fn easy_backfilling_starts_short_jobs_behind_a_blocked_head() {
        // One 4-processor site. Background A (3 procs, 0..100), B (4 procs, submitted at 1,
        // blocked until 100, runs 100..110). BoT 0 at t=2: one 50 s task fits the free
        // processor and ends by B's reservation (100): EASY starts it at 2 (makespan 50);
        // FCFS queues it behind B (110..160, makespan 158). BoT 1 at t=3: one 500 s task
        // would delay B, so it waits under both policies and runs after B: 110..610.
        // (Each policy sends every task to the only site.)
        let one = Platform::new(vec![("a".into(), 4, 2.2)]).unwrap();
        let bg = |at: f64, rt: f64, procs: u64| BackgroundJob {
            submit_s: at,
            runtime_s: rt,
            procs,
            site: 0,
        };
        let w = GridWorkload::new(
            vec![bot(0, 2.0, &[50.0]), bot(1, 3.0, &[500.0])],
            vec![bg(0.0, 100.0, 3), bg(1.0, 10.0, 4)],
            BackgroundSource::Synthetic,
        )
        .unwrap();
        let run = |lrm| {
            let cfg = GridConfig {
                lrm,
                ..GridConfig::default()
            };
            simulate(
                &one,
                &w,
                &mut NoOverprovisioning,
                &mut DynamicPerTask,
                &cfg,
                &RngStreams::new(1),
            )
            .unwrap()
        };
        let easy = run(LrmPolicy::EasyBackfill);
        assert_eq!(easy.bots[0].makespan_s, 50.0);
        assert_eq!(easy.bots[1].makespan_s, 607.0);
        let fcfs = run(LrmPolicy::Fcfs);
        assert_eq!(fcfs.bots[0].makespan_s, 158.0);
        // FCFS: both tasks start when B ends (110), BoT 1's ends at 610.
        assert_eq!(fcfs.bots[1].makespan_s, 607.0);
    }

    #[test]
    fn easy_counts_every_job_ending_at_the_shadow_time() {
        // One 5-processor site. Background A and B (2 procs each, 0..100) end together;
        // C (3 procs, submitted at 1) is blocked until 100. BoT 0 at t=2: one 500 s task.
        // At the shadow time 100 both A and B have ended: 5 free, C needs 3, so 2 are spare
        // and the task may start at 2 even though it runs past 100 (makespan 500). Counting
        // only A (the first release that covers C) would leave 0 spare and make it wait.
        let one = Platform::new(vec![("a".into(), 5, 2.2)]).unwrap();
        let bg = |at: f64, rt: f64, procs: u64| BackgroundJob {
            submit_s: at,
            runtime_s: rt,
            procs,
            site: 0,
        };
        let w = GridWorkload::new(
            vec![bot(0, 2.0, &[500.0])],
            vec![bg(0.0, 100.0, 2), bg(0.0, 100.0, 2), bg(1.0, 10.0, 3)],
            BackgroundSource::Synthetic,
        )
        .unwrap();
        let cfg = GridConfig {
            lrm: LrmPolicy::EasyBackfill,
            ..GridConfig::default()
        };
        let r = simulate(
            &one,
            &w,
            &mut NoOverprovisioning,
            &mut DynamicPerTask,
            &cfg,
            &RngStreams::new(1),
        )
        .unwrap();
        assert!((r.bots[0].makespan_s - 500.0).abs() < 1e-9);
        assert_eq!(r.bots[0].max_wait_s, 0.0);
    }

    #[test]
    fn static_kappa_and_cost() {
        let w = GridWorkload::new(
            vec![bot(0, 0.0, &[10.0]), bot(1, 7200.0, &[10.0])],
            vec![],
            BackgroundSource::None,
        )
        .unwrap();
        let mut all = StaticAll(Kappa::from_f64(2.0).unwrap());
        let r = run(&Platform::das3(), &w, &mut all, &mut DynamicPerTask);
        // provisioned × T = 1088 × 2 h.
        assert_eq!(r.cpu_hours, 2176.0);
        assert_eq!(r.kappa_time_avg, 2.0);
    }

    #[test]
    fn dynamic_stays_in_band_and_charges_leases() {
        // Light load: the pool shrinks from round((k-1)S) = 544 towards lo = 436 by one per
        // period (60 s), never below; each lease costs whole hours.
        let bots: Vec<Bot> = (0..50)
            .map(|i| bot(i, i as f64 * 600.0, &[100.0, 200.0]))
            .collect();
        let w = GridWorkload::new(bots, vec![], BackgroundSource::None).unwrap();
        let mut d = DynamicAutoScale::paper(Kappa::from_f64(2.0).unwrap());
        let r = run(&Platform::das3(), &w, &mut d, &mut DynamicPerTask);
        assert!(r
            .kappa_series
            .iter()
            .all(|p| p.1 >= (544.0 + 436.0) / 544.0 - 1e-12));
        assert!(r.kappa_max <= 2.2 + 1e-12);
        assert_eq!(r.kappa_series.last().map(|p| p.1), Some(980.0 / 544.0));
        assert!(r.cloud_releases >= 108);
        assert_eq!(r.cloud_acquisitions, 0);
        // 544 leases, each ceil'd: total ≥ number of leases.
        assert!(r.cost.cloud_lease_hours >= 544);
        assert!(r.cost.busy_grid_plus_cloud_leases < r.cost.provisioned_all);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
        /// With single-processor jobs only, a blocked queue head means no free processor, so
        /// EASY backfilling can never start anything and must reproduce FCFS exactly; every
        /// BoT completes, no sooner than its longest task on the fastest site.
        #[test]
        fn easy_equals_fcfs_for_single_processor_jobs(
            bots in proptest::collection::vec(
                (0.0f64..500.0, proptest::collection::vec(1.0f64..300.0, 1..6)), 1..25),
            bg in proptest::collection::vec((0.0f64..500.0, 1.0f64..400.0, 0usize..2), 0..25),
        ) {
            let bots: Vec<Bot> = bots
                .iter()
                .enumerate()
                .map(|(i, (at, rts))| bot(i, *at, rts))
                .collect();
            let background = bg
                .iter()
                .map(|&(at, rt, site)| BackgroundJob { submit_s: at, runtime_s: rt, procs: 1, site })
                .collect();
            let w = GridWorkload::new(bots, background, BackgroundSource::Synthetic).unwrap();
            let run_with = |lrm| {
                let cfg = GridConfig { lrm, ..GridConfig::default() };
                simulate(&tiny(), &w, &mut NoOverprovisioning, &mut DynamicPerTask, &cfg, &RngStreams::new(1))
                    .unwrap()
            };
            let fcfs = run_with(LrmPolicy::Fcfs);
            let easy = run_with(LrmPolicy::EasyBackfill);
            proptest::prop_assert_eq!(&fcfs.bots, &easy.bots);
            proptest::prop_assert_eq!(fcfs.bots.len(), w.bots().len());
            for (rec, b) in fcfs.bots.iter().zip(w.bots()) {
                let longest = b.tasks.iter().map(|t| t.runtime_ref_s).fold(0.0, f64::max);
                proptest::prop_assert!(rec.makespan_s >= longest / 2.0 - 1e-9);
            }
        }
    }

    #[test]
    fn monitoring_stops_once_nothing_can_change() {
        // A 1e10-s task (≈ 317 years) would need 1.7e8 monitoring ticks; past the horizon with
        // empty queues and no arrivals left the Dynamic strategy stops ticking, so the run
        // ends at once. The long task runs on the cloud (the largest idle site, 2.2 GHz).
        let w = GridWorkload::new(
            vec![bot(0, 0.0, &[1e10, 5.0]), bot(1, 600.0, &[50.0])],
            vec![],
            BackgroundSource::None,
        )
        .unwrap();
        let k = Kappa::from_f64(2.0).unwrap();
        let dynamic = run(
            &Platform::das3(),
            &w,
            &mut DynamicAutoScale::paper(k),
            &mut DynamicPerTask,
        );
        assert_eq!(dynamic.end_s, 1e10);
        // 600 s of horizon = 11 ticks of 60 s: at most one release each.
        assert!(dynamic.cloud_releases <= 11);
        assert_eq!(dynamic.bots[0].makespan_s, 1e10);
        assert!(dynamic.bots.iter().all(|b| b.max_wait_s == 0.0));
    }

    #[test]
    fn kappa_time_average() {
        let s = [(0.0, 1.0), (10.0, 2.0), (30.0, 1.5)];
        let (avg, max) = kappa_stats(&s, 0.0, 40.0);
        assert!((avg - (10.0 + 40.0 + 15.0) / 40.0).abs() < 1e-12);
        assert_eq!(max, 2.0);
    }

    #[test]
    fn bad_inputs_are_typed_errors() {
        let w = GridWorkload::new(
            vec![bot(0, 0.0, &[1.0])],
            vec![BackgroundJob {
                submit_s: 0.0,
                runtime_s: 1.0,
                procs: 1,
                site: 9,
            }],
            BackgroundSource::Synthetic,
        )
        .unwrap();
        assert!(simulate(
            &tiny(),
            &w,
            &mut NoOverprovisioning,
            &mut DynamicPerTask,
            &GridConfig::default(),
            &RngStreams::new(1)
        )
        .is_err());
        let cfg = GridConfig {
            acquisition_s: (10.0, 5.0),
            ..GridConfig::default()
        };
        let w =
            GridWorkload::new(vec![bot(0, 0.0, &[1.0])], vec![], BackgroundSource::None).unwrap();
        assert!(simulate(
            &tiny(),
            &w,
            &mut NoOverprovisioning,
            &mut DynamicPerTask,
            &cfg,
            &RngStreams::new(1)
        )
        .is_err());
    }
}
