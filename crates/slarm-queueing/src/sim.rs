//! Event-driven multiclass M/M/m simulation with FCFS, HOL and PDP (Hu 2009, chapter 5).
//!
//! One pool of `m` identical nodes; class-`i` jobs arrive as Poisson(`lambda_i`) and need
//! Exp(`mu`) service; all disciplines are non-preemptive and FCFS within a class. An arrival
//! takes any free node at once; priorities are consulted only when a node frees up.
//!
//! **Common random numbers.** Replication `r` draws its arrival epochs and classes from
//! stream `[r, 0]` and the service times (attached to jobs in arrival order) from `[r, 1]`;
//! PDP tie-breaks use `[r, 2]`. So the same seed gives the same jobs for every `m` and every
//! discipline, which is what makes `min_nodes_sim` comparisons sharp. (The thesis, §5.3, fixes
//! only the run length and the replication count; seeds, warm-up and the search are ours.)
//!
//! **Measurement.** Jobs arriving in `[warmup, horizon)` are measured; arrivals stop at the
//! horizon and the system drains. The mean number in system is the time average over
//! `[warmup, horizon]`. PDP counters (Eq. 5.1) count every completion from t = 0, warm-up
//! included, and `P_i = 0` before the first class-`i` completion; the thesis leaves both open.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

use rand::{Rng, RngExt};
use rand_distr::{Distribution, Exp};
use slarm_stats::rng::RngStreams;
use slarm_stats::summary::Welford;

use crate::error::{QueueError, Result};
use crate::sla::JobClass;
use slarm_stats::check;

/// Service discipline of a shared pool.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub enum Discipline {
    /// First come, first served across all classes.
    Fcfs,
    /// Head-of-the-line (non-preemptive) priority; `order[0]` is the highest priority class.
    Hol {
        /// Class indices from highest to lowest priority (a permutation of `0..n`).
        order: Vec<usize>,
    },
    /// Probability dependent priority: serve the class with the largest `P_i = y_i - tau_i`.
    Pdp,
}

impl Discipline {
    /// Short lower-case name.
    pub fn name(&self) -> &'static str {
        match self {
            Discipline::Fcfs => "fcfs",
            Discipline::Hol { .. } => "hol",
            Discipline::Pdp => "pdp",
        }
    }
}

/// Run-length settings of a simulation.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct QueueSimConfig {
    /// Arrivals stop at this time (thesis: 20,000 with mu = 1).
    pub horizon: f64,
    /// Jobs arriving before this time are not measured (default 1,000; the thesis states none).
    pub warmup: f64,
    /// Independent replications (default 10, as in the thesis's run-length calibration).
    pub replications: u32,
    /// Root seed of the replications.
    pub seed: u64,
}

/// The former name of [`QueueSimConfig`].
#[deprecated(since = "0.1.0", note = "renamed to `QueueSimConfig`")]
pub type SimConfig = QueueSimConfig;

impl Default for QueueSimConfig {
    fn default() -> Self {
        Self {
            horizon: 20_000.0,
            warmup: 1_000.0,
            replications: 10,
            seed: 1,
        }
    }
}

impl QueueSimConfig {
    fn validate(&self) -> Result<()> {
        check::positive("horizon", self.horizon)?;
        check::non_negative("warmup", self.warmup)?;
        if self.warmup >= self.horizon {
            return Err(QueueError::InvalidConfig(
                "warmup must be below the horizon".into(),
            ));
        }
        if self.replications == 0 {
            return Err(QueueError::InvalidConfig("at least one replication".into()));
        }
        Ok(())
    }
}

/// Per-class results over all replications.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ClassResult {
    /// Pooled mean response time.
    pub mean_response: f64,
    /// Student-t 95% half-width over replication means (`None` with one replication).
    pub mean_response_ci95: Option<f64>,
    /// Pooled fraction of measured jobs with response `<= x_i`.
    pub sla_fraction: f64,
    /// Student-t 95% half-width over replication fractions.
    pub sla_fraction_ci95: Option<f64>,
    /// Measured jobs.
    pub completed: u64,
    /// Whether `sla_fraction >= y_i`.
    pub sla_met: bool,
}

/// Results of a simulation.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct SimResult {
    /// Per class, in input order.
    pub classes: Vec<ClassResult>,
    /// Time-average number in system (mean over replications).
    pub mean_in_system: f64,
    /// Student-t 95% half-width over replications.
    pub mean_in_system_ci95: Option<f64>,
}

impl SimResult {
    /// Every class meets its SLA: its on-time fraction pooled over replications is at least y.
    pub fn all_met(&self) -> bool {
        self.classes.iter().all(|c| c.sla_met)
    }
}

/// Output of one replication.
#[derive(Debug, Clone, PartialEq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Replication {
    /// Per class: sum of measured response times.
    pub sum_response: Vec<f64>,
    /// Per class: measured jobs.
    pub count: Vec<u64>,
    /// Per class: measured jobs with response `<= x_i`.
    pub met: Vec<u64>,
    /// Time-average number in system over `[warmup, horizon]`.
    pub mean_in_system: f64,
    /// Every `sample_every`-th measured response per class (empty unless asked for).
    pub samples: Vec<Vec<f64>>,
}

/// A job waiting in its class queue.
#[derive(Clone, Copy)]
struct Waiting {
    arrival: f64,
    service: f64,
}

/// Pools up to this size keep their jobs in service in flat arrays (see [`InService`]).
const FLAT_MAX: u64 = 128;

/// The jobs in service with their completion times. Up to [`FLAT_MAX`] servers they sit in
/// flat arrays sorted by completion time, latest first: the next completion is the last
/// element, removed in O(1), and a new job is placed by a branch-free count of the later
/// completions and a short move of the earlier ones (their times and one-byte slots), which
/// at the pool sizes of the thesis is cheaper than rescanning an unsorted array or a heap's
/// unpredictable comparisons.
/// Larger pools use a binary heap ordered by completion time (the bits of a positive `f64`
/// order like the numbers), then slot. Equal completion times (a measure-zero event with
/// continuous service times) leave in the order their jobs started in the flat arrays.
enum InService {
    Flat {
        /// Completion times, latest first.
        done: Vec<f64>,
        /// Beside each completion time, the slot of its job (below [`FLAT_MAX`]).
        slot: Vec<u8>,
        jobs: Slots,
    },
    Heap {
        /// Completion time and slot of each job.
        heap: BinaryHeap<Reverse<(u64, u32)>>,
        jobs: Slots,
    },
}

/// `(arrival, class)` of the jobs in service by slot; a freed slot is reused, so there are
/// never more slots than jobs in service at once.
#[derive(Default)]
struct Slots {
    jobs: Vec<(f64, usize)>,
    free: Vec<usize>,
}

impl Slots {
    /// Stores a job in a free slot and returns the slot.
    fn put(&mut self, job: (f64, usize)) -> usize {
        match self.free.pop() {
            Some(s) => {
                self.jobs[s] = job;
                s
            }
            None => {
                self.jobs.push(job);
                self.jobs.len() - 1
            }
        }
    }

    /// The job in slot `s`, which becomes free.
    fn take(&mut self, s: usize) -> Option<(f64, usize)> {
        self.free.push(s);
        self.jobs.get(s).copied()
    }
}

impl InService {
    fn new(m: u64) -> Self {
        if m <= FLAT_MAX {
            let m = m as usize;
            InService::Flat {
                done: Vec::with_capacity(m),
                slot: Vec::with_capacity(m),
                jobs: Slots::default(),
            }
        } else {
            InService::Heap {
                heap: BinaryHeap::new(),
                jobs: Slots::default(),
            }
        }
    }

    fn len(&self) -> usize {
        match self {
            InService::Flat { done, .. } => done.len(),
            InService::Heap { heap, .. } => heap.len(),
        }
    }

    /// Time of the next completion (infinite when idle).
    fn next_time(&self) -> f64 {
        match self {
            InService::Flat { done, .. } => done.last().copied().unwrap_or(f64::INFINITY),
            InService::Heap { heap, .. } => heap
                .peek()
                .map_or(f64::INFINITY, |Reverse((t, _))| f64::from_bits(*t)),
        }
    }

    fn push(&mut self, completion: f64, arrival: f64, class: usize) {
        match self {
            InService::Flat { done, slot, jobs } => {
                // At most FLAT_MAX (128) jobs are in service at once: slots fit in a byte.
                let s = jobs.put((arrival, class)) as u8;
                let at = later_count(done, completion);
                done.insert(at, completion);
                slot.insert(at, s);
            }
            InService::Heap { heap, jobs } => {
                let s = jobs.put((arrival, class)) as u32;
                heap.push(Reverse((completion.to_bits(), s)));
            }
        }
    }

    /// Removes the earliest completion and returns its `(arrival, class)`.
    fn pop(&mut self) -> Option<(f64, usize)> {
        match self {
            InService::Flat { done, slot, jobs } => {
                done.pop()?;
                jobs.take(usize::from(slot.pop()?))
            }
            InService::Heap { heap, jobs } => {
                let Reverse((_, s)) = heap.pop()?;
                jobs.take(s as usize)
            }
        }
    }
}

/// How many of `times` (sorted latest first) are after `t`: the index at which a job
/// completing at `t` goes so that it leaves after every job already there with the same time.
/// A count of comparisons rather than a search: no data-dependent branch, and the compiler
/// vectorises it.
fn later_count(times: &[f64], t: f64) -> usize {
    times.iter().map(|&d| usize::from(d > t)).sum()
}

/// The pool's state during one replication.
struct Pool<'a> {
    classes: &'a [JobClass],
    discipline: &'a Discipline,
    m: u64,
    queues: Vec<VecDeque<Waiting>>,
    /// Jobs in all queues.
    waiting: usize,
    running: InService,
    /// PDP: completions and on-time completions per class since t = 0 (other disciplines
    /// leave them at zero).
    done: Vec<u64>,
    on_time: Vec<u64>,
}

impl<'a> Pool<'a> {
    fn new(classes: &'a [JobClass], m: u64, discipline: &'a Discipline) -> Self {
        let n = classes.len();
        Self {
            classes,
            discipline,
            m,
            queues: (0..n).map(|_| VecDeque::new()).collect(),
            waiting: 0,
            running: InService::new(m),
            done: vec![0; n],
            on_time: vec![0; n],
        }
    }

    fn next_completion(&self) -> f64 {
        self.running.next_time()
    }

    fn start(&mut self, now: f64, arrival: f64, class: usize, service: f64) {
        self.running.push(now + service, arrival, class);
    }

    /// An arrival at `now`: straight into service if a node is free, else into its queue.
    fn arrive(&mut self, now: f64, class: usize, service: f64) {
        if (self.running.len() as u64) < self.m {
            self.start(now, now, class, service);
        } else {
            self.queues[class].push_back(Waiting {
                arrival: now,
                service,
            });
            self.waiting += 1;
        }
    }

    /// The next completion: returns `(class, arrival)` of the finished job, updates the PDP
    /// counters and starts the job the discipline picks.
    fn complete<R: Rng>(&mut self, now: f64, tie_rng: &mut R) -> Option<(usize, f64)> {
        let (arrival, class) = self.running.pop()?;
        if matches!(self.discipline, Discipline::Pdp) {
            self.done[class] += 1;
            if now - arrival <= self.classes[class].sla().x() {
                self.on_time[class] += 1;
            }
        }
        if self.waiting > 0 {
            if let Some(i) = self.pick(tie_rng) {
                if let Some(w) = self.queues[i].pop_front() {
                    self.waiting -= 1;
                    self.start(now, w.arrival, i, w.service);
                }
            }
        }
        Some((class, arrival))
    }

    /// PDP's `P_i = y_i - tau_i` of class `i` (Hu 2009, Eq. 5.1), 0 before its first
    /// completion; computed when a choice needs it rather than at every completion.
    fn priority(&self, i: usize) -> f64 {
        match self.done[i] {
            0 => 0.0,
            done => self.classes[i].sla().y() - self.on_time[i] as f64 / done as f64,
        }
    }

    /// The class whose head job takes the freed node, or `None` if every queue is empty.
    fn pick<R: Rng>(&self, tie_rng: &mut R) -> Option<usize> {
        let heads = self
            .queues
            .iter()
            .enumerate()
            .filter_map(|(i, q)| q.front().map(|w| (i, w.arrival)));
        match self.discipline {
            Discipline::Fcfs => heads.min_by(|a, b| a.1.total_cmp(&b.1)).map(|(i, _)| i),
            Discipline::Hol { order } => {
                order.iter().copied().find(|&i| !self.queues[i].is_empty())
            }
            Discipline::Pdp => pick_pdp(heads.map(|(i, _)| (i, self.priority(i))), tie_rng),
        }
    }
}

/// One job of a replication: arrival epoch, class and service time.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Arrival {
    at: f64,
    class: usize,
    service: f64,
}

/// The jobs of replication `rep` in arrival order, up to the horizon: epochs and classes from
/// stream `[rep, 0]`, service times from `[rep, 1]`. They depend on neither the pool size nor
/// the discipline (common random numbers), so a search over pool sizes draws them once.
fn draw_arrivals(
    classes: &[JobClass],
    mu: f64,
    cfg: &QueueSimConfig,
    rep: u32,
) -> Result<Vec<Arrival>> {
    let n = classes.len();
    let total_rate: f64 = classes.iter().map(|c| c.lambda()).sum();
    let streams = RngStreams::new(cfg.seed);
    let mut arr_rng = streams.stream(&[u64::from(rep), 0]);
    let mut svc_rng = streams.stream(&[u64::from(rep), 1]);
    let svc = Exp::new(mu).map_err(|_| QueueError::OutOfRange {
        name: "mu",
        requirement: "> 0",
        value: mu,
    })?;
    // No arrivals at all: an empty system throughout.
    let Ok(inter) = Exp::new(total_rate) else {
        return Ok(Vec::new());
    };
    if total_rate <= 0.0 {
        return Ok(Vec::new());
    }
    let cum: Vec<f64> = classes
        .iter()
        .scan(0.0, |acc, c| {
            *acc += c.lambda() / total_rate;
            Some(*acc)
        })
        .collect();
    let draw_class = |u: f64| cum.iter().position(|&c| u < c).unwrap_or(n - 1);
    let expected = (total_rate * cfg.horizon).min(1e8) as usize;
    let mut jobs = Vec::with_capacity(expected + expected / 16 + 16);
    // Epochs and classes first, then the service times in a second pass: the two streams
    // are independent, so the values are those of one interleaved pass, and each pass keeps
    // one generator's state and buffer hot.
    let mut at = inter.sample(&mut arr_rng);
    while at < cfg.horizon {
        let class = draw_class(arr_rng.random::<f64>());
        jobs.push(Arrival {
            at,
            class,
            service: 0.0,
        });
        at += inter.sample(&mut arr_rng);
    }
    for job in &mut jobs {
        job.service = svc.sample(&mut svc_rng);
    }
    Ok(jobs)
}

/// Runs replication `rep` and returns its raw counts; `sample_every > 0` also keeps every
/// `sample_every`-th measured response per class (thinned, for distribution tests).
#[allow(clippy::too_many_arguments)]
pub fn run_replication(
    classes: &[JobClass],
    mu: f64,
    m: u64,
    discipline: &Discipline,
    cfg: &QueueSimConfig,
    rep: u32,
    sample_every: u64,
) -> Result<Replication> {
    validate(classes, mu, m, discipline)?;
    cfg.validate()?;
    let jobs = draw_arrivals(classes, mu, cfg, rep)?;
    let mut record = Record::new(classes.len(), sample_every);
    let area = replay(classes, m, discipline, cfg, rep, &jobs, &mut record);
    let mut out = record.out;
    out.mean_in_system = area / (cfg.horizon - cfg.warmup);
    Ok(out)
}

/// What a replay does with each measured job (one arriving in `[warmup, horizon)`).
trait Observer {
    /// Whether the replay integrates the number in system over `[warmup, horizon]`.
    const AREA: bool;
    /// A measured class-`class` job completed with this response time; `true` stops the
    /// replay.
    fn measured(&mut self, class: usize, response: f64, on_time: bool) -> bool;
}

/// The counts of a [`Replication`], with every `sample_every`-th response per class.
struct Record {
    out: Replication,
    sample_every: u64,
}

impl Record {
    fn new(n: usize, sample_every: u64) -> Self {
        Self {
            out: Replication {
                sum_response: vec![0.0; n],
                count: vec![0; n],
                met: vec![0; n],
                mean_in_system: 0.0,
                samples: vec![Vec::new(); n],
            },
            sample_every,
        }
    }
}

impl Observer for Record {
    const AREA: bool = true;

    fn measured(&mut self, class: usize, response: f64, on_time: bool) -> bool {
        let out = &mut self.out;
        out.sum_response[class] += response;
        out.count[class] += 1;
        if on_time {
            out.met[class] += 1;
        }
        // The count so far is the job's place among its class's measured jobs.
        if self.sample_every > 0 && out.count[class].is_multiple_of(self.sample_every) {
            out.samples[class].push(response);
        }
        false
    }
}

/// A size search needs only the verdict: no area, no sums, and a stop once it is settled.
impl Observer for SlaVerdict {
    const AREA: bool = false;

    fn measured(&mut self, class: usize, _response: f64, on_time: bool) -> bool {
        self.record(class, on_time).is_some()
    }
}

/// Replication `rep` of a validated pool on its drawn jobs, each measured job handed to
/// `observer`; returns the area under the number in system over `[warmup, horizon]` (0 when
/// the observer does not ask for it). PDP tie-breaks use stream `[rep, 2]`.
fn replay<O: Observer>(
    classes: &[JobClass],
    m: u64,
    discipline: &Discipline,
    cfg: &QueueSimConfig,
    rep: u32,
    jobs: &[Arrival],
    observer: &mut O,
) -> f64 {
    if jobs.is_empty() {
        return 0.0;
    }
    let mut tie_rng = RngStreams::new(cfg.seed).stream(&[u64::from(rep), 2]);
    let (w0, h) = (cfg.warmup, cfg.horizon);
    let mut pool = Pool::new(classes, m, discipline);
    let mut in_system = 0u64;
    let mut area = 0.0;
    let mut now = 0.0_f64;
    let mut arrivals = jobs.iter().peekable();
    loop {
        let next_arrival = arrivals.peek().map_or(f64::INFINITY, |a| a.at);
        let next_completion = pool.next_completion();
        let t = next_arrival.min(next_completion);
        if !t.is_finite() {
            break;
        }
        if O::AREA {
            // area of N(t) over [warmup, horizon]
            let (a, b) = (now.max(w0), t.min(h));
            if b > a {
                area += in_system as f64 * (b - a);
            }
        }
        now = t;
        if next_arrival <= next_completion {
            if let Some(job) = arrivals.next() {
                in_system += 1;
                pool.arrive(now, job.class, job.service);
            }
        } else if let Some((class, arrival)) = pool.complete(now, &mut tie_rng) {
            in_system -= 1;
            if arrival >= w0 {
                let response = now - arrival;
                let on_time = response <= classes[class].sla().x();
                if observer.measured(class, response, on_time) {
                    break;
                }
            }
        }
    }
    area
}

/// PDP choice among `(class, P_i)` of the non-empty queues: the largest `P_i = y_i - tau_i`
/// (`P_i = 0` before the first completion), ties uniformly at random.
fn pick_pdp<R: Rng>(candidates: impl Iterator<Item = (usize, f64)>, rng: &mut R) -> Option<usize> {
    let mut best = f64::NEG_INFINITY;
    let mut ties: Vec<usize> = Vec::new();
    let mut first = None;
    for (i, p) in candidates {
        if first.is_none() || p > best {
            best = p;
            first = Some(i);
            ties.clear();
        } else if p.total_cmp(&best).is_eq() {
            if ties.is_empty() {
                ties.extend(first);
            }
            ties.push(i);
        }
    }
    if ties.len() > 1 {
        let j = rng.random_range(0..ties.len());
        return ties.get(j).copied();
    }
    first
}

fn validate(classes: &[JobClass], mu: f64, m: u64, discipline: &Discipline) -> Result<()> {
    check::positive("mu", mu)?;
    if classes.is_empty() {
        return Err(QueueError::InvalidConfig("no classes".into()));
    }
    let lambda: f64 = classes.iter().map(|c| c.lambda()).sum();
    if m == 0 || lambda >= m as f64 * mu {
        return Err(QueueError::Unstable { lambda, mu, m });
    }
    if let Discipline::Hol { order } = discipline {
        let mut seen = vec![false; classes.len()];
        for &i in order {
            match seen.get_mut(i) {
                Some(s) if !*s => *s = true,
                _ => {
                    return Err(QueueError::InvalidConfig(format!(
                        "HOL order must be a permutation of the classes, got {order:?}"
                    )))
                }
            }
        }
        if seen.iter().any(|s| !s) {
            return Err(QueueError::InvalidConfig(format!(
                "HOL order must be a permutation of the classes, got {order:?}"
            )));
        }
    }
    Ok(())
}

fn half_width(w: &Welford) -> Option<f64> {
    w.ci95()
        .ok()
        .map(|c| c.half_width)
        .filter(|h| h.is_finite())
}

/// Simulates `cfg.replications` replications and pools them (SLA fractions pooled over
/// jobs; intervals over replication values).
///
/// ```
/// use slarm_queueing::{sim::{simulate, Discipline, QueueSimConfig}, JobClass, Mmm, Sla};
/// let c = [JobClass::new(3.0, Sla::new(3.0, 0.9).unwrap()).unwrap()];
/// let cfg = QueueSimConfig { horizon: 3_000.0, warmup: 100.0, replications: 4, seed: 7 };
/// let r = simulate(&c, 1.0, 5, &Discipline::Fcfs, &cfg).unwrap();
/// let exact = Mmm::new(3.0, 1.0, 5).unwrap().mean_in_system();
/// assert!((r.mean_in_system - exact).abs() < 0.15);
/// ```
pub fn simulate(
    classes: &[JobClass],
    mu: f64,
    m: u64,
    discipline: &Discipline,
    cfg: &QueueSimConfig,
) -> Result<SimResult> {
    // Zero replications would pool nothing and report every SLA as met.
    cfg.validate()?;
    let reps: Vec<Replication> = (0..cfg.replications)
        .map(|r| run_replication(classes, mu, m, discipline, cfg, r, 0))
        .collect::<Result<_>>()?;
    Ok(pool(classes, &reps))
}

/// Whether a pool of `m` nodes meets every class's SLA on the jobs drawn beforehand: the
/// verdict of [`simulate`]'s [`SimResult::all_met`],
/// reached without simulating past the job that settles it (see [`SlaVerdict`]).
fn meets_all(drawn: &DrawnJobs, m: u64, discipline: &Discipline) -> Result<bool> {
    let (classes, cfg) = (&drawn.classes[..], &drawn.cfg);
    validate(classes, drawn.mu, m, discipline)?;
    let mut verdict = drawn.verdict.clone();
    for (r, jobs) in (0..cfg.replications).zip(&drawn.reps) {
        if let Some(met) = verdict.decided() {
            return Ok(met);
        }
        replay(classes, m, discipline, cfg, r, jobs, &mut verdict);
    }
    // Every measured job has completed by now (the system drains), so a verdict was reached.
    Ok(verdict.decided().unwrap_or(false))
}

/// The pooled SLA verdict of a simulation, settled as soon as the completions so far decide
/// it. Every job arriving in `[warmup, horizon)` is measured and completes (the system
/// drains), so each class's measured count `n` is known from the drawn jobs before the run;
/// its pooled fraction `met / n` meets `y` exactly when `met` reaches `need`, the smallest
/// count whose quotient (computed as [`pool`] computes it) is at least `y`. A class is then
/// settled as met once `met >= need`, and the pool as failed once some class can no longer
/// reach `need` even if every job still to complete were on time. Common random numbers make
/// the verdict the one of the full simulation: the jobs completing before the verdict are the
/// same jobs with the same responses.
#[derive(Debug, Clone, PartialEq)]
struct SlaVerdict {
    /// Per class: on-time completions still needed.
    need: Vec<u64>,
    /// Per class: measured jobs not yet completed.
    left: Vec<u64>,
    /// Classes whose `need` is not yet met.
    short: usize,
    /// Set once a class can no longer meet its SLA.
    failed: bool,
}

impl SlaVerdict {
    /// The verdict before any completion, of the jobs `drawn[r]` of replication `r`.
    fn new(classes: &[JobClass], cfg: &QueueSimConfig, drawn: &[Vec<Arrival>]) -> Self {
        let n = classes.len();
        let mut left = vec![0u64; n];
        for jobs in drawn.iter().take(cfg.replications as usize) {
            for a in jobs.iter().filter(|a| a.at >= cfg.warmup) {
                left[a.class] += 1;
            }
        }
        let need: Vec<u64> = classes
            .iter()
            .zip(&left)
            .map(|(c, &total)| needed_on_time(total, c.sla().y()))
            .collect();
        let short = need.iter().filter(|&&k| k > 0).count();
        Self {
            need,
            left,
            short,
            failed: false,
        }
    }

    /// The verdict once settled: `Some(true)` every class meets its SLA, `Some(false)` one
    /// cannot.
    fn decided(&self) -> Option<bool> {
        if self.failed {
            Some(false)
        } else if self.short == 0 {
            Some(true)
        } else {
            None
        }
    }

    /// A measured class-`class` job completed, on time or not; returns the verdict once
    /// settled.
    fn record(&mut self, class: usize, on_time: bool) -> Option<bool> {
        self.left[class] = self.left[class].saturating_sub(1);
        let need = &mut self.need[class];
        if *need > 0 {
            if on_time {
                *need -= 1;
                if *need == 0 {
                    self.short -= 1;
                }
            } else if self.left[class] < *need {
                self.failed = true;
            }
        }
        self.decided()
    }
}

/// The smallest `k` with `k / total >= y` in `f64` (the pooled fraction's test in [`pool`]),
/// 0 for a class without measured jobs (its fraction is 1). Division by a fixed `total` is
/// monotone in `k`, so the test holds from `k` on.
fn needed_on_time(total: u64, y: f64) -> u64 {
    if total == 0 {
        return 0;
    }
    let meets = |k: u64| k as f64 / total as f64 >= y;
    // `ceil(y * total)` is within one or two of the answer; step to it exactly.
    let mut k = ((y * total as f64).ceil().max(0.0) as u64).min(total);
    while k > 0 && meets(k - 1) {
        k -= 1;
    }
    while k < total && !meets(k) {
        k += 1;
    }
    k
}

/// Pools replications into a [`SimResult`].
pub fn pool(classes: &[JobClass], reps: &[Replication]) -> SimResult {
    let mut out = Vec::with_capacity(classes.len());
    for (i, class) in classes.iter().enumerate() {
        let mut wm = Welford::new();
        let mut wf = Welford::new();
        let (mut sum, mut cnt, mut met) = (0.0, 0u64, 0u64);
        for r in reps {
            sum += r.sum_response[i];
            cnt += r.count[i];
            met += r.met[i];
            if r.count[i] > 0 {
                wm.push(r.sum_response[i] / r.count[i] as f64);
                wf.push(r.met[i] as f64 / r.count[i] as f64);
            }
        }
        let frac = if cnt > 0 {
            met as f64 / cnt as f64
        } else {
            1.0
        };
        out.push(ClassResult {
            mean_response: if cnt > 0 { sum / cnt as f64 } else { 0.0 },
            mean_response_ci95: half_width(&wm),
            sla_fraction: frac,
            sla_fraction_ci95: half_width(&wf),
            completed: cnt,
            sla_met: frac >= class.sla().y(),
        });
    }
    let wn: Welford = reps.iter().map(|r| r.mean_in_system).collect();
    SimResult {
        classes: out,
        mean_in_system: wn.mean(),
        mean_in_system_ci95: half_width(&wn),
    }
}

/// The smallest `m` whose simulated pool meets every class's SLA (pooled fraction >= y).
///
/// The scan is linear with common random numbers: it starts at `start` (clamped to the
/// smallest stable size), walks down while the next smaller stable size still passes, and
/// otherwise walks up — the same answer as a scan from `floor(rho) + 1` whenever pass/fail is
/// monotone in m, at a fraction of the cost. `max_extra` caps the upward walk. Each size's
/// simulation stops at the completion that settles its verdict (every class already has
/// enough on-time jobs, or one can no longer get them), which gives the verdict of the whole
/// run at a fraction of its cost.
pub fn min_nodes_sim(
    classes: &[JobClass],
    mu: f64,
    discipline: &Discipline,
    cfg: &QueueSimConfig,
    start: u64,
    max_extra: u64,
) -> Result<u64> {
    check::positive("mu", mu)?;
    for c in classes {
        c.sla().check_feasible(mu)?;
    }
    let drawn = DrawnJobs::draw(classes, mu, cfg)?;
    min_nodes_drawn(&drawn, discipline, start, max_extra)
}

/// The jobs of every replication of a simulation, drawn once: replication `r`'s arrival
/// epochs and classes from stream `[r, 0]`, its service times from `[r, 1]` (as [`simulate`]
/// draws them). They depend on neither the pool size nor the discipline, so size searches
/// under several disciplines can share them ([`min_nodes_drawn`]): common random numbers
/// without drawing the jobs again.
///
/// ```
/// use slarm_queueing::sim::{min_nodes_drawn, min_nodes_sim, Discipline, DrawnJobs, QueueSimConfig};
/// use slarm_queueing::{JobClass, Sla};
/// let c = [
///     JobClass::new(3.0, Sla::new(2.0, 0.8).unwrap()).unwrap(),
///     JobClass::new(2.0, Sla::new(4.0, 0.9).unwrap()).unwrap(),
/// ];
/// let cfg = QueueSimConfig { horizon: 2_000.0, warmup: 200.0, replications: 2, seed: 5 };
/// let jobs = DrawnJobs::draw(&c, 1.0, &cfg).unwrap();
/// for d in [Discipline::Fcfs, Discipline::Pdp] {
///     let m = min_nodes_drawn(&jobs, &d, 6, 20).unwrap();
///     assert_eq!(m, min_nodes_sim(&c, 1.0, &d, &cfg, 6, 20).unwrap());
/// }
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct DrawnJobs {
    classes: Vec<JobClass>,
    mu: f64,
    cfg: QueueSimConfig,
    /// Per replication, its jobs in arrival order.
    reps: Vec<Vec<Arrival>>,
    /// The SLA verdict before any completion (measured counts per class), the same for every
    /// size and discipline: counted once here rather than at every size tried.
    verdict: SlaVerdict,
}

impl DrawnJobs {
    /// Draws the jobs of `cfg.replications` replications of `classes` at service rate `mu`.
    pub fn draw(classes: &[JobClass], mu: f64, cfg: &QueueSimConfig) -> Result<Self> {
        check::positive("mu", mu)?;
        cfg.validate()?;
        let reps: Vec<Vec<Arrival>> = (0..cfg.replications)
            .map(|r| draw_arrivals(classes, mu, cfg, r))
            .collect::<Result<_>>()?;
        Ok(Self {
            classes: classes.to_vec(),
            mu,
            cfg: *cfg,
            verdict: SlaVerdict::new(classes, cfg, &reps),
            reps,
        })
    }

    /// Jobs drawn over all replications (warm-up included).
    pub fn len(&self) -> usize {
        self.reps.iter().map(Vec::len).sum()
    }

    /// Whether no job was drawn (no arrivals before the horizon).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// [`min_nodes_sim`] on jobs drawn beforehand: the same search and the same answer as
/// [`min_nodes_sim`] with the classes, service rate and settings of `drawn`.
pub fn min_nodes_drawn(
    drawn: &DrawnJobs,
    discipline: &Discipline,
    start: u64,
    max_extra: u64,
) -> Result<u64> {
    let (classes, mu) = (&drawn.classes[..], drawn.mu);
    for c in classes {
        c.sla().check_feasible(mu)?;
    }
    let lowest = stability_floor(classes, mu);
    let mut m = start.max(lowest);
    let passes = |m: u64| meets_all(drawn, m, discipline);
    if passes(m)? {
        while m > lowest && passes(m - 1)? {
            m -= 1;
        }
        Ok(m)
    } else {
        let cap = m.saturating_add(max_extra);
        while m < cap {
            m += 1;
            if passes(m)? {
                return Ok(m);
            }
        }
        Err(QueueError::IterationCap { cap: max_extra })
    }
}

/// The stability floor `floor(rho) + 1` of one pool holding every class: the fewest nodes any
/// discipline and any strategy can use (a dedicated split needs at least as many), and the
/// lowest size [`min_nodes_sim`] tries. A load of 2^64 or more saturates at `u64::MAX`
/// (float-to-integer `as` saturates; no pool that large can be simulated).
///
/// ```
/// use slarm_queueing::sim::stability_floor;
/// use slarm_queueing::{JobClass, Sla};
/// let c = JobClass::new(2.5, Sla::new(3.0, 0.9).unwrap()).unwrap();
/// assert_eq!(stability_floor(&[c], 1.0), 3);
/// ```
pub fn stability_floor(classes: &[JobClass], mu: f64) -> u64 {
    let lambda: f64 = classes.iter().map(|c| c.lambda()).sum();
    ((lambda / mu).floor() as u64).saturating_add(1)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::sla::fixtures::class;

    #[test]
    fn rejects_bad_input() {
        let c = [class(3.0, 3.0, 0.9)];
        let cfg = QueueSimConfig::default();
        assert!(matches!(
            simulate(&c, 1.0, 3, &Discipline::Fcfs, &cfg),
            Err(QueueError::Unstable { .. })
        ));
        let bad = QueueSimConfig {
            warmup: 10.0,
            horizon: 5.0,
            ..cfg
        };
        assert!(simulate(&c, 1.0, 5, &Discipline::Fcfs, &bad).is_err());
        let two = [class(1.0, 3.0, 0.9), class(1.0, 3.0, 0.9)];
        let hol = Discipline::Hol { order: vec![0, 0] };
        assert!(simulate(&two, 1.0, 5, &hol, &cfg).is_err());
        // Zero replications pool nothing: an error, not an SLA reported as met.
        let none = QueueSimConfig {
            replications: 0,
            ..cfg
        };
        assert!(matches!(
            simulate(&c, 1.0, 5, &Discipline::Fcfs, &none),
            Err(QueueError::InvalidConfig(_))
        ));
    }

    /// The early verdict of a size search is the verdict of the whole simulation, for every
    /// discipline, at sizes that pass and fail, with classes that meet and miss by little.
    #[test]
    fn early_verdict_is_the_full_runs_verdict() {
        let sets = [
            vec![class(2.0, 3.0, 0.9), class(1.0, 4.0, 0.8)],
            vec![
                class(3.0, 2.0, 0.95),
                class(0.5, 1.5, 0.7),
                class(1.5, 5.0, 0.9),
            ],
            vec![class(6.0, 2.5, 0.85)],
        ];
        let mut verdicts = [0usize; 2];
        for (k, c) in sets.iter().enumerate() {
            let cfg = QueueSimConfig {
                horizon: 800.0,
                warmup: 80.0,
                replications: 3,
                seed: k as u64 + 11,
            };
            let drawn = DrawnJobs::draw(c, 1.0, &cfg).unwrap();
            let order: Vec<usize> = (0..c.len()).rev().collect();
            for d in [Discipline::Fcfs, Discipline::Hol { order }, Discipline::Pdp] {
                let floor = stability_floor(c, 1.0);
                for m in floor..floor + 6 {
                    let full = simulate(c, 1.0, m, &d, &cfg).unwrap().all_met();
                    assert_eq!(meets_all(&drawn, m, &d).unwrap(), full);
                    verdicts[usize::from(full)] += 1;
                }
            }
        }
        // Both verdicts occur, so both early exits are exercised.
        assert!(verdicts[0] > 5 && verdicts[1] > 5, "{verdicts:?}");
    }

    proptest::proptest! {
        /// The flat set and the heap release the same jobs in the same order (the earliest
        /// completion first) when completion times differ, and the flat set releases equal
        /// completion times in the order their jobs started.
        #[test]
        fn flat_and_heap_in_service_agree(
            ops in proptest::collection::vec((0u8..4, 0u32..40), 1..400),
        ) {
            let mut flat = InService::new(FLAT_MAX);
            let mut heap = InService::new(FLAT_MAX + 1);
            let mut ties = InService::new(FLAT_MAX);
            let mut started = 0u32;
            for (op, t) in ops {
                if op > 0 && flat.len() < FLAT_MAX as usize {
                    // Distinct times for the comparison, a coarse grid (many ties) for `ties`.
                    let distinct = f64::from(t) + f64::from(started) * 1e-3;
                    flat.push(distinct, f64::from(started), 1);
                    heap.push(distinct, f64::from(started), 1);
                    if ties.len() < FLAT_MAX as usize {
                        ties.push(f64::from(t), f64::from(started), 2);
                    }
                    started += 1;
                } else {
                    proptest::prop_assert_eq!(flat.next_time(), heap.next_time());
                    proptest::prop_assert_eq!(flat.pop(), heap.pop());
                }
                proptest::prop_assert_eq!(flat.len(), heap.len());
            }
            let mut last = (f64::NEG_INFINITY, f64::NEG_INFINITY);
            while let Some(t) = Some(ties.next_time()).filter(|t| t.is_finite()) {
                let (start, _) = ties.pop().unwrap();
                proptest::prop_assert!(t > last.0 || (t == last.0 && start > last.1));
                last = (t, start);
            }
        }
    }

    #[test]
    fn needed_on_time_is_the_smallest_passing_count() {
        for total in [1u64, 2, 3, 7, 10, 99, 1000, 12_345] {
            for y in [0.01, 0.5, 0.7, 0.8, 0.9, 0.95, 0.97, 0.99, 0.999, 1.0] {
                let k = needed_on_time(total, y);
                assert!(k as f64 / total as f64 >= y);
                assert!(k == 0 || (k - 1) as f64 / (total as f64) < y);
            }
        }
        assert_eq!(needed_on_time(0, 0.9), 0);
        assert_eq!(needed_on_time(10, 0.9), 9);
    }

    #[test]
    fn same_seed_same_result() {
        let c = [class(2.0, 3.0, 0.9), class(1.0, 4.0, 0.8)];
        let cfg = QueueSimConfig {
            horizon: 500.0,
            warmup: 50.0,
            replications: 2,
            seed: 3,
        };
        let a = simulate(&c, 1.0, 4, &Discipline::Pdp, &cfg).unwrap();
        let b = simulate(&c, 1.0, 4, &Discipline::Pdp, &cfg).unwrap();
        assert_eq!(a, b);
    }
}
