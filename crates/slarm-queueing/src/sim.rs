//! Event-driven multiclass M/M/m simulation with FCFS, HOL and PDP (spec 003 §4).
//!
//! One pool of `m` identical nodes; class-`i` jobs arrive as Poisson(`lambda_i`) and need
//! Exp(`mu`) service; all disciplines are non-preemptive and FCFS within a class. An arrival
//! takes any free node at once; priorities are consulted only when a node frees up.
//!
//! **Common random numbers.** Replication `r` draws its arrival epochs and classes from
//! stream `[r, 0]` and the service times (attached to jobs in arrival order) from `[r, 1]`;
//! PDP tie-breaks use `[r, 2]`. So the same seed gives the same jobs for every `m` and every
//! discipline, which is what makes `min_nodes_sim` comparisons sharp (decision 17).
//!
//! **Measurement.** Jobs arriving in `[warmup, horizon)` are measured; arrivals stop at the
//! horizon and the system drains. The mean number in system is the time average over
//! `[warmup, horizon]`. PDP counters count every completion from t = 0 (decision 18).

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

use rand::Rng;
use rand_distr::{Distribution, Exp};
use serde::{Deserialize, Serialize};
use slarm_stats::rng::RngStreams;
use slarm_stats::summary::Welford;

use crate::error::{non_negative, positive, QueueError, Result};
use crate::sla::JobClass;

/// Service discipline of a shared pool.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
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
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SimConfig {
    /// Arrivals stop at this time (thesis: 20,000 with mu = 1).
    pub horizon: f64,
    /// Jobs arriving before this time are not measured (decision 17: 1,000).
    pub warmup: f64,
    /// Independent replications (decision 17: 10).
    pub replications: u32,
    /// Root seed of the replications.
    pub seed: u64,
}

impl Default for SimConfig {
    fn default() -> Self {
        Self {
            horizon: 20_000.0,
            warmup: 1_000.0,
            replications: 10,
            seed: 1,
        }
    }
}

impl SimConfig {
    fn validate(&self) -> Result<()> {
        positive("horizon", self.horizon)?;
        non_negative("warmup", self.warmup)?;
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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SimResult {
    /// Per class, in input order.
    pub classes: Vec<ClassResult>,
    /// Time-average number in system (mean over replications).
    pub mean_in_system: f64,
    /// Student-t 95% half-width over replications.
    pub mean_in_system_ci95: Option<f64>,
}

impl SimResult {
    /// Every class meets its SLA (pooled fraction, decision 17).
    pub fn all_met(&self) -> bool {
        self.classes.iter().all(|c| c.sla_met)
    }
}

/// Output of one replication.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
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

struct Waiting {
    arrival: f64,
    service: f64,
}

/// Runs replication `rep` and returns its raw counts; `sample_every > 0` also keeps every
/// `sample_every`-th measured response per class (thinned, for distribution tests).
#[allow(clippy::too_many_arguments)]
pub fn run_replication(
    classes: &[JobClass],
    mu: f64,
    m: u64,
    discipline: &Discipline,
    cfg: &SimConfig,
    rep: u32,
    sample_every: u64,
) -> Result<Replication> {
    validate(classes, mu, m, discipline)?;
    cfg.validate()?;
    let n = classes.len();
    let total_rate: f64 = classes.iter().map(|c| c.lambda()).sum();
    let streams = RngStreams::new(cfg.seed);
    let mut arr_rng = streams.stream(&[u64::from(rep), 0]);
    let mut svc_rng = streams.stream(&[u64::from(rep), 1]);
    let mut tie_rng = streams.stream(&[u64::from(rep), 2]);
    let svc = Exp::new(mu).map_err(|_| QueueError::OutOfRange {
        name: "mu",
        requirement: "> 0",
        value: mu,
    })?;
    let inter = if total_rate > 0.0 {
        Some(Exp::new(total_rate).map_err(|_| QueueError::OutOfRange {
            name: "lambda",
            requirement: "> 0",
            value: total_rate,
        })?)
    } else {
        None
    };
    let cum: Vec<f64> = classes
        .iter()
        .scan(0.0, |acc, c| {
            *acc += c.lambda() / total_rate;
            Some(*acc)
        })
        .collect();
    let draw_class = |u: f64| cum.iter().position(|&c| u < c).unwrap_or(n - 1);

    let mut out = Replication {
        sum_response: vec![0.0; n],
        count: vec![0; n],
        met: vec![0; n],
        mean_in_system: 0.0,
        samples: vec![Vec::new(); n],
    };
    let mut seen = vec![0u64; n];
    let mut queues: Vec<VecDeque<Waiting>> = (0..n).map(|_| VecDeque::new()).collect();
    // completions: (time bits, seq, class, arrival)
    let mut running: BinaryHeap<Reverse<(u64, u64, usize, u64)>> = BinaryHeap::new();
    let mut seq = 0u64;
    let mut busy = 0u64;
    let mut in_system = 0u64;
    let mut area = 0.0;
    let mut now = 0.0_f64;
    let mut pdp_total = vec![0u64; n];
    let mut pdp_met = vec![0u64; n];
    let mut next_arrival = inter.map_or(f64::INFINITY, |d| d.sample(&mut arr_rng));
    if next_arrival >= cfg.horizon {
        next_arrival = f64::INFINITY;
    }
    let (w0, h) = (cfg.warmup, cfg.horizon);

    loop {
        let next_completion = running
            .peek()
            .map_or(f64::INFINITY, |Reverse((t, ..))| f64::from_bits(*t));
        let t = next_arrival.min(next_completion);
        if !t.is_finite() {
            break;
        }
        // area of N(t) over [warmup, horizon]
        let (a, b) = (now.max(w0), t.min(h));
        if b > a {
            area += in_system as f64 * (b - a);
        }
        now = t;
        if next_arrival <= next_completion {
            let class = draw_class(arr_rng.gen::<f64>());
            let service = svc.sample(&mut svc_rng);
            in_system += 1;
            if busy < m {
                busy += 1;
                seq += 1;
                running.push(Reverse((
                    (now + service).to_bits(),
                    seq,
                    class,
                    now.to_bits(),
                )));
            } else {
                queues[class].push_back(Waiting {
                    arrival: now,
                    service,
                });
            }
            next_arrival = inter.map_or(f64::INFINITY, |d| now + d.sample(&mut arr_rng));
            if next_arrival >= h {
                next_arrival = f64::INFINITY;
            }
        } else if let Some(Reverse((_, _, class, arr_bits))) = running.pop() {
            let arrival = f64::from_bits(arr_bits);
            let response = now - arrival;
            let ok = response <= classes[class].sla().x();
            pdp_total[class] += 1;
            if ok {
                pdp_met[class] += 1;
            }
            if arrival >= w0 {
                out.sum_response[class] += response;
                out.count[class] += 1;
                if ok {
                    out.met[class] += 1;
                }
                if sample_every > 0 {
                    seen[class] += 1;
                    if seen[class] % sample_every == 0 {
                        out.samples[class].push(response);
                    }
                }
            }
            in_system -= 1;
            busy -= 1;
            let pick = match discipline {
                Discipline::Fcfs => queues
                    .iter()
                    .enumerate()
                    .filter_map(|(i, q)| q.front().map(|w| (i, w.arrival)))
                    .min_by(|a, b| a.1.total_cmp(&b.1))
                    .map(|(i, _)| i),
                Discipline::Hol { order } => order.iter().copied().find(|&i| !queues[i].is_empty()),
                Discipline::Pdp => pick_pdp(classes, &queues, &pdp_total, &pdp_met, &mut tie_rng),
            };
            if let Some(i) = pick {
                if let Some(w) = queues[i].pop_front() {
                    busy += 1;
                    seq += 1;
                    running.push(Reverse((
                        (now + w.service).to_bits(),
                        seq,
                        i,
                        w.arrival.to_bits(),
                    )));
                }
            }
        }
    }
    out.mean_in_system = area / (h - w0);
    Ok(out)
}

/// PDP choice: the waiting class with the largest `P_i = y_i - met_i/total_i` (`P_i = 0`
/// before the first completion), ties uniformly at random.
fn pick_pdp<R: Rng>(
    classes: &[JobClass],
    queues: &[VecDeque<Waiting>],
    total: &[u64],
    met: &[u64],
    rng: &mut R,
) -> Option<usize> {
    let mut best: Option<f64> = None;
    let mut ties: [usize; 8] = [0; 8];
    let mut n_ties = 0usize;
    let mut overflow: Vec<usize> = Vec::new();
    for (i, q) in queues.iter().enumerate() {
        if q.is_empty() {
            continue;
        }
        let p = if total[i] == 0 {
            0.0
        } else {
            classes[i].sla().y() - met[i] as f64 / total[i] as f64
        };
        match best {
            Some(b) if p < b => {}
            #[allow(clippy::float_cmp)]
            Some(b) if p == b => {
                if n_ties < ties.len() {
                    ties[n_ties] = i;
                } else {
                    overflow.push(i);
                }
                n_ties += 1;
            }
            _ => {
                best = Some(p);
                ties[0] = i;
                n_ties = 1;
                overflow.clear();
            }
        }
    }
    match n_ties {
        0 => None,
        1 => Some(ties[0]),
        k => {
            let j = rng.gen_range(0..k);
            if j < ties.len() {
                Some(ties[j])
            } else {
                overflow.get(j - ties.len()).copied()
            }
        }
    }
}

fn validate(classes: &[JobClass], mu: f64, m: u64, discipline: &Discipline) -> Result<()> {
    positive("mu", mu)?;
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
/// use slarm_queueing::{sim::{simulate, Discipline, SimConfig}, JobClass, Mmm, Sla};
/// let c = [JobClass::new(3.0, Sla::new(3.0, 0.9).unwrap()).unwrap()];
/// let cfg = SimConfig { horizon: 3_000.0, warmup: 100.0, replications: 4, seed: 7 };
/// let r = simulate(&c, 1.0, 5, &Discipline::Fcfs, &cfg).unwrap();
/// let exact = Mmm::new(3.0, 1.0, 5).unwrap().mean_in_system();
/// assert!((r.mean_in_system - exact).abs() < 0.15);
/// ```
pub fn simulate(
    classes: &[JobClass],
    mu: f64,
    m: u64,
    discipline: &Discipline,
    cfg: &SimConfig,
) -> Result<SimResult> {
    let reps: Vec<Replication> = (0..cfg.replications)
        .map(|r| run_replication(classes, mu, m, discipline, cfg, r, 0))
        .collect::<Result<_>>()?;
    Ok(pool(classes, &reps))
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
/// monotone in m, at a fraction of the cost (decision 17). `max_extra` caps the upward walk.
pub fn min_nodes_sim(
    classes: &[JobClass],
    mu: f64,
    discipline: &Discipline,
    cfg: &SimConfig,
    start: u64,
    max_extra: u64,
) -> Result<u64> {
    positive("mu", mu)?;
    for c in classes {
        c.sla().check_feasible(mu)?;
    }
    let lambda: f64 = classes.iter().map(|c| c.lambda()).sum();
    let lowest = (lambda / mu).floor() as u64 + 1;
    let mut m = start.max(lowest);
    let passes = |m: u64| simulate(classes, mu, m, discipline, cfg).map(|r| r.all_met());
    if passes(m)? {
        while m > lowest && passes(m - 1)? {
            m -= 1;
        }
        Ok(m)
    } else {
        let cap = m + max_extra;
        loop {
            m += 1;
            if m > cap {
                return Err(QueueError::IterationCap { cap: max_extra });
            }
            if passes(m)? {
                return Ok(m);
            }
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::sla::Sla;

    fn class(l: f64, x: f64, y: f64) -> JobClass {
        JobClass::new(l, Sla::new(x, y).unwrap()).unwrap()
    }

    #[test]
    fn rejects_bad_input() {
        let c = [class(3.0, 3.0, 0.9)];
        let cfg = SimConfig::default();
        assert!(matches!(
            simulate(&c, 1.0, 3, &Discipline::Fcfs, &cfg),
            Err(QueueError::Unstable { .. })
        ));
        let bad = SimConfig {
            warmup: 10.0,
            horizon: 5.0,
            ..cfg
        };
        assert!(simulate(&c, 1.0, 5, &Discipline::Fcfs, &bad).is_err());
        let two = [class(1.0, 3.0, 0.9), class(1.0, 3.0, 0.9)];
        let hol = Discipline::Hol { order: vec![0, 0] };
        assert!(simulate(&two, 1.0, 5, &hol, &cfg).is_err());
    }

    #[test]
    fn same_seed_same_result() {
        let c = [class(2.0, 3.0, 0.9), class(1.0, 4.0, 0.8)];
        let cfg = SimConfig {
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
