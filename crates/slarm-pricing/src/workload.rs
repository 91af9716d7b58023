//! The evaluation workload of Yeo & Buyya, §VII.B: the last 5000 jobs of SDSC-SP2 (or a calibrated
//! synthetic stand-in), arrival-delay scaling, urgency-class QoS synthesis and runtime
//! under-estimates.

use rand::RngExt;
use rand_distr::{Distribution, Exp, LogNormal};
use slarm_stats::rng::{label, RngStreams};
use slarm_workload::sla::{self, UrgencyConfig};

use crate::error::{PricingError, Result};
use crate::spec::{JobSpec, QosJob, UrgencyClass};
use slarm_stats::check;

/// File name of the trace in the shared trace folder.
pub const SDSC_SP2: &str = "SDSC-SP2-1998-4.2-cln.swf.gz";

/// One job of a trace as the evaluation needs it.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct TraceJob {
    /// Job number.
    pub id: u64,
    /// Submit time (seconds, trace clock).
    pub submit: f64,
    /// Real runtime R (seconds).
    pub runtime: f64,
    /// Processors.
    pub procs: u32,
}

impl TryFrom<&slarm_workload::Job> for TraceJob {
    type Error = PricingError;

    /// A trace job from the canonical SWF job (`slarm_workload::Job`): its number, submit time,
    /// run time and processors (requested, else allocated). Fails when the processor count is
    /// missing or does not fit a `u32`.
    fn try_from(j: &slarm_workload::Job) -> Result<Self> {
        let procs = u32::try_from(j.procs())
            .ok()
            .filter(|&p| p > 0)
            .ok_or_else(|| {
                PricingError::Workload(format!("job {}: {} processors", j.id, j.procs()))
            })?;
        Ok(Self {
            id: j.id,
            submit: j.submit,
            runtime: j.runtime,
            procs,
        })
    }
}

/// Summary statistics of a job subset, to compare with the paper's (§VII.B: mean 17
/// processors, 1969 s between arrivals, 8671 s runtime).
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct SubsetStats {
    /// Number of jobs.
    pub jobs: usize,
    /// Mean processors per job (paper: 17).
    pub mean_procs: f64,
    /// Mean inter-arrival time in seconds (paper: 1969).
    pub mean_interarrival: f64,
    /// Mean runtime in seconds (paper: 8671).
    pub mean_runtime: f64,
    /// Offered load Σ p·r / (machine × span) at delay factor 1.
    pub offered_load: f64,
}

impl SubsetStats {
    /// Statistics of `jobs` (sorted by submit time) on a machine of `nodes` processors.
    pub fn of(jobs: &[TraceJob], nodes: usize) -> Result<Self> {
        let n = jobs.len();
        if n < 2 || nodes == 0 {
            return Err(PricingError::Workload(
                "need at least two jobs and one node".into(),
            ));
        }
        let span = jobs[n - 1].submit - jobs[0].submit;
        let work: f64 = jobs.iter().map(|j| j.runtime * f64::from(j.procs)).sum();
        Ok(Self {
            jobs: n,
            mean_procs: jobs.iter().map(|j| f64::from(j.procs)).sum::<f64>() / n as f64,
            mean_interarrival: span / (n - 1) as f64,
            mean_runtime: jobs.iter().map(|j| j.runtime).sum::<f64>() / n as f64,
            offered_load: if span > 0.0 {
                work / (nodes as f64 * span)
            } else {
                f64::INFINITY
            },
        })
    }
}

/// The last `n` jobs of `jobs` after sorting by (submit, id).
pub fn last_n(mut jobs: Vec<TraceJob>, n: usize) -> Vec<TraceJob> {
    jobs.sort_by(|a, b| a.submit.total_cmp(&b.submit).then(a.id.cmp(&b.id)));
    let skip = jobs.len().saturating_sub(n);
    jobs.split_off(skip)
}

/// A synthetic stand-in calibrated to the paper's subset statistics (§VII.B), for use without
/// the trace; its results are not numerically comparable with the paper's:
/// exponential inter-arrivals of mean 1969 s, log-normal runtimes of mean 8671 s (log-sd
/// 1.5, capped at 5 days), power-of-two processor counts of mean ≈ 17 (max `max_procs`).
pub fn synthetic_trace(n: usize, max_procs: u32, streams: &RngStreams) -> Result<Vec<TraceJob>> {
    if n == 0 || max_procs == 0 {
        return Err(PricingError::Workload(
            "synthetic trace needs jobs and processors".into(),
        ));
    }
    let mut rng = streams.stream(&[label("synthetic-sdsc")]);
    let gap = Exp::new(1.0 / 1969.0).map_err(|e| PricingError::Workload(e.to_string()))?;
    let sigma: f64 = 1.5;
    let mu = 8671.0f64.ln() - sigma * sigma / 2.0;
    let run = LogNormal::new(mu, sigma).map_err(|e| PricingError::Workload(e.to_string()))?;
    // P(2^k) for k = 0..7: mean 17.4 processors on 128 nodes.
    const WEIGHTS: [f64; 8] = [0.24, 0.12, 0.13, 0.15, 0.15, 0.10, 0.07, 0.04];
    let mut t = 0.0;
    let mut out = Vec::with_capacity(n);
    for id in 0..n {
        if id > 0 {
            let g: f64 = gap.sample(&mut rng);
            t += g.round();
        }
        let u: f64 = rng.random();
        let mut acc = 0.0;
        let mut k = WEIGHTS.len() - 1;
        for (i, w) in WEIGHTS.iter().enumerate() {
            acc += w;
            if u < acc {
                k = i;
                break;
            }
        }
        let procs = (1u32 << k).min(max_procs);
        let r: f64 = run.sample(&mut rng);
        let runtime = r.round().clamp(1.0, 5.0 * 86_400.0);
        out.push(TraceJob {
            id: id as u64 + 1,
            submit: t,
            runtime,
            procs,
        });
    }
    Ok(out)
}

/// How urgency classes are assigned (the paper gives only the share of high-urgency jobs and
/// says classes arrive in random order).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum UrgencyAssignment {
    /// Exactly round(p·n) high-urgency jobs placed by a seeded random permutation (default).
    Exact,
    /// Each job independently high with probability p.
    Bernoulli,
}

/// The former name of [`UrgencyAssignment`].
#[deprecated(since = "0.1.0", note = "renamed to `UrgencyAssignment`")]
pub type ClassAssignment = UrgencyAssignment;

/// The QoS-synthesis and workload parameters of Table I (§VII.B), built by [`Default`] (Table I)
/// and changed with the validating `with_*` methods (also validated when deserialized).
///
/// ```
/// use slarm_pricing::workload::QosSynthesis;
///
/// let q = QosSynthesis::default().with_delay_factor(0.25)?;
/// assert_eq!((q.delay_factor(), q.high_urgency_pct()), (0.25, 20.0));
/// assert!(q.with_high_urgency_pct(120.0).is_err());
/// assert!(q.with_sigma_frac(f64::NAN).is_err());
/// # Ok::<(), slarm_pricing::PricingError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(try_from = "QosSynthesisRaw"))]
pub struct QosSynthesis {
    pub(crate) high_urgency_pct: f64,
    pub(crate) deadline_ratio: f64,
    pub(crate) deadline_low_mean: f64,
    pub(crate) budget_ratio: f64,
    pub(crate) budget_low_mean: f64,
    pub(crate) sigma_frac: f64,
    pub(crate) delay_factor: f64,
    pub(crate) inaccuracy_pct: f64,
    pub(crate) pbase: f64,
    pub(crate) assignment: UrgencyAssignment,
}

/// The unvalidated fields of [`QosSynthesis`], for deserialization.
#[cfg(feature = "serde")]
#[derive(serde::Deserialize)]
struct QosSynthesisRaw {
    high_urgency_pct: f64,
    deadline_ratio: f64,
    deadline_low_mean: f64,
    budget_ratio: f64,
    budget_low_mean: f64,
    sigma_frac: f64,
    delay_factor: f64,
    inaccuracy_pct: f64,
    pbase: f64,
    assignment: UrgencyAssignment,
}

#[cfg(feature = "serde")]
impl TryFrom<QosSynthesisRaw> for QosSynthesis {
    type Error = PricingError;
    fn try_from(r: QosSynthesisRaw) -> Result<Self> {
        let q = Self {
            high_urgency_pct: r.high_urgency_pct,
            deadline_ratio: r.deadline_ratio,
            deadline_low_mean: r.deadline_low_mean,
            budget_ratio: r.budget_ratio,
            budget_low_mean: r.budget_low_mean,
            sigma_frac: r.sigma_frac,
            delay_factor: r.delay_factor,
            inaccuracy_pct: r.inaccuracy_pct,
            pbase: r.pbase,
            assignment: r.assignment,
        };
        q.validate()?;
        Ok(q)
    }
}

impl Default for QosSynthesis {
    fn default() -> Self {
        Self {
            high_urgency_pct: 20.0,
            deadline_ratio: 4.0,
            deadline_low_mean: 2.0,
            budget_ratio: 4.0,
            budget_low_mean: 2.0,
            sigma_frac: 0.25,
            delay_factor: 0.5,
            inaccuracy_pct: 0.0,
            pbase: 1.0,
            assignment: UrgencyAssignment::Exact,
        }
    }
}

impl QosSynthesis {
    /// `self` if every parameter is in range (see [`validate`](Self::validate)).
    fn checked(self) -> Result<Self> {
        self.validate()?;
        Ok(self)
    }

    /// % of high-urgency jobs (Table I: 20).
    pub fn high_urgency_pct(&self) -> f64 {
        self.high_urgency_pct
    }

    /// The same parameters with another `high_urgency_pct` (validated).
    pub fn with_high_urgency_pct(self, high_urgency_pct: f64) -> Result<Self> {
        Self {
            high_urgency_pct,
            ..self
        }
        .checked()
    }

    /// Deadline high:low ratio (4).
    pub fn deadline_ratio(&self) -> f64 {
        self.deadline_ratio
    }

    /// The same parameters with another `deadline_ratio` (validated).
    pub fn with_deadline_ratio(self, deadline_ratio: f64) -> Result<Self> {
        Self {
            deadline_ratio,
            ..self
        }
        .checked()
    }

    /// Deadline low mean D/R (2; the high-urgency class's mean).
    pub fn deadline_low_mean(&self) -> f64 {
        self.deadline_low_mean
    }

    /// The same parameters with another `deadline_low_mean` (validated).
    pub fn with_deadline_low_mean(self, deadline_low_mean: f64) -> Result<Self> {
        Self {
            deadline_low_mean,
            ..self
        }
        .checked()
    }

    /// Budget high:low ratio (4).
    pub fn budget_ratio(&self) -> f64 {
        self.budget_ratio
    }

    /// The same parameters with another `budget_ratio` (validated).
    pub fn with_budget_ratio(self, budget_ratio: f64) -> Result<Self> {
        Self {
            budget_ratio,
            ..self
        }
        .checked()
    }

    /// Budget low mean B/f(R) (2; the low-urgency class's mean).
    pub fn budget_low_mean(&self) -> f64 {
        self.budget_low_mean
    }

    /// The same parameters with another `budget_low_mean` (validated).
    pub fn with_budget_low_mean(self, budget_low_mean: f64) -> Result<Self> {
        Self {
            budget_low_mean,
            ..self
        }
        .checked()
    }

    /// σ as a fraction of each class mean (0.25; the paper does not state σ).
    pub fn sigma_frac(&self) -> f64 {
        self.sigma_frac
    }

    /// The same parameters with another `sigma_frac` (validated).
    pub fn with_sigma_frac(self, sigma_frac: f64) -> Result<Self> {
        Self { sigma_frac, ..self }.checked()
    }

    /// Arrival delay factor (0.5).
    pub fn delay_factor(&self) -> f64 {
        self.delay_factor
    }

    /// The same parameters with another `delay_factor` (validated).
    pub fn with_delay_factor(self, delay_factor: f64) -> Result<Self> {
        Self {
            delay_factor,
            ..self
        }
        .checked()
    }

    /// % inaccuracy of runtime estimates (0; negative = under-estimate).
    pub fn inaccuracy_pct(&self) -> f64 {
        self.inaccuracy_pct
    }

    /// The same parameters with another `inaccuracy_pct` (validated).
    pub fn with_inaccuracy_pct(self, inaccuracy_pct: f64) -> Result<Self> {
        Self {
            inaccuracy_pct,
            ..self
        }
        .checked()
    }

    /// PBase: f(R) = PBase · R.
    pub fn pbase(&self) -> f64 {
        self.pbase
    }

    /// The same parameters with another `pbase` (validated).
    pub fn with_pbase(self, pbase: f64) -> Result<Self> {
        Self { pbase, ..self }.checked()
    }

    /// Class assignment.
    pub fn assignment(&self) -> UrgencyAssignment {
        self.assignment
    }

    /// The same parameters with another class assignment.
    pub fn with_assignment(self, assignment: UrgencyAssignment) -> Self {
        Self { assignment, ..self }
    }

    /// Checks every parameter's range; always true of a value built by this crate's
    /// constructors.
    pub fn validate(&self) -> Result<()> {
        let bad = |name, value, reason| {
            Err(PricingError::InvalidParameter {
                name,
                value,
                reason,
            })
        };
        if !(0.0..=100.0).contains(&self.high_urgency_pct) {
            return bad(
                "high_urgency_pct",
                self.high_urgency_pct,
                "must lie in [0, 100]",
            );
        }
        check::positive("deadline ratio", self.deadline_ratio)?;
        check::positive("budget ratio", self.budget_ratio)?;
        check::positive("sigma fraction", self.sigma_frac + f64::MIN_POSITIVE)?;
        check::positive("delay factor", self.delay_factor)?;
        check::positive("PBase", self.pbase)?;
        for (name, mean) in [
            ("deadline mean", self.deadline_mean(UrgencyClass::High)),
            ("deadline mean", self.deadline_mean(UrgencyClass::Low)),
        ] {
            if mean.is_nan() || mean <= 1.0 || !mean.is_finite() {
                return bad(name, mean, "deadline factors must exceed 1 (D > R)");
            }
        }
        for (name, mean) in [
            ("budget mean", self.budget_mean(UrgencyClass::High)),
            ("budget mean", self.budget_mean(UrgencyClass::Low)),
        ] {
            if mean.is_nan() || mean < 1.0 || !mean.is_finite() {
                return bad(
                    name,
                    mean,
                    "budget factors must be >= 1 (f(R) is the minimum budget)",
                );
            }
        }
        if !(self.inaccuracy_pct > -100.0 && self.inaccuracy_pct <= 0.0) {
            return bad(
                "inaccuracy_pct",
                self.inaccuracy_pct,
                "only under-estimates in (-100, 0] are modelled",
            );
        }
        Ok(())
    }

    /// Mean D/R of a class.
    pub fn deadline_mean(&self, u: UrgencyClass) -> f64 {
        self.urgency().deadline_mean(u.into())
    }

    /// Mean B/f(R) of a class.
    pub fn budget_mean(&self, u: UrgencyClass) -> f64 {
        self.urgency().budget_mean(u.into())
    }

    /// The class and factor parameters as the workload crate's synthesis takes them
    /// (shares as fractions).
    pub fn urgency(&self) -> UrgencyConfig {
        UrgencyConfig {
            high_share: self.high_urgency_pct / 100.0,
            deadline_low_mean: self.deadline_low_mean,
            deadline_ratio: self.deadline_ratio,
            budget_low_mean: self.budget_low_mean,
            budget_ratio: self.budget_ratio,
            cv: self.sigma_frac,
            assignment: match self.assignment {
                UrgencyAssignment::Exact => sla::ClassAssignment::ExactCount,
                UrgencyAssignment::Bernoulli => sla::ClassAssignment::Bernoulli,
            },
        }
    }
}

/// Builds the submitted jobs of one run from a trace subset: arrivals scaled by the delay
/// factor from AT = 0, classes, deadlines D = (D/R)·R, budgets B = (B/f)·PBase·R and
/// estimates RE = R·(1 + inaccuracy/100). Classes and factors are drawn by
/// [`UrgencyConfig::draw`] with [`QosSynthesis::urgency`]; randomness from `streams` only.
pub fn synthesize(
    trace: &[TraceJob],
    q: &QosSynthesis,
    streams: &RngStreams,
) -> Result<Vec<QosJob>> {
    q.validate()?;
    let first = trace.iter().map(|t| t.submit).fold(f64::INFINITY, f64::min);
    if !first.is_finite() {
        return Err(PricingError::Workload("empty trace".into()));
    }
    let draws = q.urgency().draw(trace.len(), streams)?;
    trace
        .iter()
        .zip(draws)
        .map(|(t, d)| {
            let re = t.runtime * (1.0 + q.inaccuracy_pct / 100.0);
            let spec = JobSpec::simple(
                t.id,
                re,
                t.procs,
                d.deadline_factor * t.runtime,
                d.budget_factor * q.pbase * t.runtime,
            )?;
            QosJob::new(
                spec,
                q.delay_factor * (t.submit - first),
                t.runtime,
                d.urgency.into(),
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trace_job_from_the_canonical_swf_job() {
        let mut j = slarm_workload::Job::new(7, 120.0, 3600.0, 16, 7200.0);
        let t = TraceJob::try_from(&j).unwrap();
        assert_eq!(
            t,
            TraceJob {
                id: 7,
                submit: 120.0,
                runtime: 3600.0,
                procs: 16
            }
        );
        j.req_procs = -1;
        j.alloc_procs = 8; // requested missing: allocated processors count
        assert_eq!(TraceJob::try_from(&j).unwrap().procs, 8);
        j.alloc_procs = -1;
        assert!(TraceJob::try_from(&j).is_err());
        j.req_procs = i64::from(u32::MAX) + 1;
        assert!(TraceJob::try_from(&j).is_err());
    }

    #[test]
    fn synthetic_trace_is_calibrated() {
        let t = synthetic_trace(5000, 128, &RngStreams::new(3)).unwrap();
        let s = SubsetStats::of(&t, 128).unwrap();
        assert_eq!(s.jobs, 5000);
        // The paper's subset (§VII.B) has 17 procs, 1969 s gaps, 8671 s runtime: within
        // sampling error.
        assert!((s.mean_procs - 17.4).abs() < 1.5, "{s:?}");
        assert!((s.mean_interarrival / 1969.0 - 1.0).abs() < 0.05, "{s:?}");
        assert!((s.mean_runtime / 8671.0 - 1.0).abs() < 0.2, "{s:?}");
        assert!(t.iter().all(|j| j.procs <= 128 && j.runtime >= 1.0));
    }

    #[test]
    fn synthesis_follows_table_i() {
        let t = synthetic_trace(5000, 128, &RngStreams::new(4)).unwrap();
        let q = QosSynthesis::default();
        let jobs = synthesize(&t, &q, &RngStreams::new(5)).unwrap();
        let high: Vec<&QosJob> = jobs
            .iter()
            .filter(|j| j.urgency == UrgencyClass::High)
            .collect();
        assert_eq!(high.len(), 1000); // exactly 20 % (Table I)
        let mean = |it: &mut dyn Iterator<Item = f64>| {
            let v: Vec<f64> = it.collect();
            v.iter().sum::<f64>() / v.len() as f64
        };
        let dh = mean(&mut high.iter().map(|j| j.spec.qos.deadline / j.runtime));
        let bh = mean(&mut high.iter().map(|j| j.spec.qos.budget / j.runtime));
        let dl = mean(
            &mut jobs
                .iter()
                .filter(|j| j.urgency == UrgencyClass::Low)
                .map(|j| j.spec.qos.deadline / j.runtime),
        );
        let bl = mean(
            &mut jobs
                .iter()
                .filter(|j| j.urgency == UrgencyClass::Low)
                .map(|j| j.spec.qos.budget / j.runtime),
        );
        // Table I: high (2, 8), low (8, 2); truncation shifts the 2.0 means up slightly.
        assert!((dh - 2.0).abs() < 0.05, "{dh}");
        assert!((bh - 8.0).abs() < 0.15, "{bh}");
        assert!((dl - 8.0).abs() < 0.1, "{dl}");
        assert!((bl - 2.0).abs() < 0.05, "{bl}");
        assert!(jobs
            .iter()
            .all(|j| j.spec.qos.deadline > j.runtime && j.spec.qos.budget >= j.runtime));
        assert_eq!(jobs[0].arrival, 0.0);
        // Delay factor 0.5 halves every gap.
        assert!((jobs[10].arrival - 0.5 * (t[10].submit - t[0].submit)).abs() < 1e-9);
    }

    #[test]
    fn underestimates_and_validation() {
        let t = synthetic_trace(10, 128, &RngStreams::new(4)).unwrap();
        let q = QosSynthesis {
            inaccuracy_pct: -40.0,
            ..QosSynthesis::default()
        };
        let jobs = synthesize(&t, &q, &RngStreams::new(5)).unwrap();
        assert!(jobs
            .iter()
            .all(|j| (j.estimate() - 0.6 * j.runtime).abs() < 1e-9));
        for bad in [
            QosSynthesis {
                inaccuracy_pct: 10.0,
                ..QosSynthesis::default()
            },
            QosSynthesis {
                high_urgency_pct: 101.0,
                ..QosSynthesis::default()
            },
            QosSynthesis {
                delay_factor: 0.0,
                ..QosSynthesis::default()
            },
            QosSynthesis {
                deadline_low_mean: 0.5,
                ..QosSynthesis::default()
            },
            QosSynthesis {
                budget_low_mean: f64::NAN,
                ..QosSynthesis::default()
            },
        ] {
            assert!(
                synthesize(&t, &bad, &RngStreams::new(5)).is_err(),
                "{bad:?}"
            );
        }
        let b = QosSynthesis {
            assignment: UrgencyAssignment::Bernoulli,
            high_urgency_pct: 100.0,
            ..QosSynthesis::default()
        };
        assert!(synthesize(&t, &b, &RngStreams::new(5))
            .unwrap()
            .iter()
            .all(|j| j.urgency == UrgencyClass::High));
    }

    #[test]
    fn last_n_keeps_the_tail_in_order() {
        let jobs: Vec<TraceJob> = (0..10)
            .rev()
            .map(|i| TraceJob {
                id: i,
                submit: i as f64,
                runtime: 1.0,
                procs: 1,
            })
            .collect();
        let tail = last_n(jobs, 3);
        assert_eq!(tail.iter().map(|j| j.id).collect::<Vec<_>>(), vec![7, 8, 9]);
    }
}
