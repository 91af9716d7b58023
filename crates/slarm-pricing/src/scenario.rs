//! One evaluation run (Yeo & Buyya, §VII.B): the Table I preset, the five policies, the base workload
//! (last 5000 jobs of SDSC-SP2 or the synthetic stand-in) and a runner that returns metrics.

use std::path::Path;

use slarm_stats::rng::RngStreams;

use crate::admission::AdmissionConfig;
use crate::backfill::{simulate_backfill, LapseRule, Priority};
use crate::error::{PricingError, Result};
use crate::metrics::{evaluate, Outcome, QosMetrics};
use crate::node::JobControl;
use crate::pricing::{FixedRate, LibraPlusDollar, LibraStatic};
use crate::spec::QosJob;
use crate::timeshare::{simulate_time_shared, TimeSharedConfig};
use crate::workload::{last_n, synthesize, synthetic_trace, QosSynthesis, SubsetStats, TraceJob};

/// The five policies compared in the paper (§VII.B).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "kebab-case"))]
#[non_exhaustive]
pub enum ClusterPolicy {
    /// Libra+$: Algorithm 1 with dynamic pricing, Algorithm 2 job control.
    LibraPlus,
    /// Libra: same skeleton with static pricing γ·RE + δ·RE/D.
    Libra,
    /// EASY backfilling, arrival order.
    FcfsBf,
    /// EASY backfilling, shortest estimate first.
    SjfBf,
    /// EASY backfilling, earliest deadline first.
    EdfBf,
}

/// The former name of [`ClusterPolicy`].
#[deprecated(since = "0.1.0", note = "renamed to `ClusterPolicy`")]
pub type Policy = ClusterPolicy;

impl ClusterPolicy {
    /// All policies in the order of Fig. 2's legend.
    pub const ALL: [ClusterPolicy; 5] = [
        ClusterPolicy::FcfsBf,
        ClusterPolicy::SjfBf,
        ClusterPolicy::EdfBf,
        ClusterPolicy::Libra,
        ClusterPolicy::LibraPlus,
    ];

    /// CLI name (`libra-plus`, `libra`, `fcfs-bf`, `sjf-bf`, `edf-bf`).
    pub fn name(self) -> &'static str {
        match self {
            ClusterPolicy::LibraPlus => "libra-plus",
            ClusterPolicy::Libra => "libra",
            ClusterPolicy::FcfsBf => "fcfs-bf",
            ClusterPolicy::SjfBf => "sjf-bf",
            ClusterPolicy::EdfBf => "edf-bf",
        }
    }

    /// Label as in the paper's legends.
    pub fn label(self) -> &'static str {
        match self {
            ClusterPolicy::LibraPlus => "Libra+$",
            ClusterPolicy::Libra => "Libra",
            ClusterPolicy::FcfsBf => "FCFS-BF",
            ClusterPolicy::SjfBf => "SJF-BF",
            ClusterPolicy::EdfBf => "EDF-BF",
        }
    }
}

impl std::str::FromStr for ClusterPolicy {
    type Err = PricingError;
    /// Parses the command-line spelling ([`ClusterPolicy::name`]).
    fn from_str(s: &str) -> Result<Self> {
        ClusterPolicy::ALL
            .into_iter()
            .find(|p| p.name() == s)
            .ok_or_else(|| PricingError::UnknownName {
                what: "policy",
                input: s.to_string(),
                expected: "libra, libra-plus, fcfs-bf, sjf-bf or edf-bf",
            })
    }
}

/// Every parameter of one run; [`Settings::table_i`] is the paper's default (Table I).
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Settings {
    /// Workload and QoS synthesis.
    pub qos: QosSynthesis,
    /// Libra+$ α.
    pub alpha: f64,
    /// Libra+$ β.
    pub beta: f64,
    /// Libra γ.
    pub gamma: f64,
    /// Libra δ.
    pub delta: f64,
    /// Number of compute nodes (128).
    pub nodes: usize,
    /// SPEC rating of every node (168).
    pub rating: f64,
    /// Jobs taken from the end of the trace (5000).
    pub jobs: usize,
    /// Algorithm 1 options.
    pub admission: AdmissionConfig,
    /// Algorithm 2 options.
    pub control: JobControl,
    /// Queue-lapse rule of the backfilling baselines.
    #[cfg_attr(feature = "serde", serde(default))]
    pub lapse: LapseRule,
}

impl Settings {
    /// Table I defaults: 20 % high urgency, deadline and budget high:low ratio 4 with low
    /// mean 2, delay factor 0.5, 0 % inaccuracy, α = 1, β = 0.1, γ = δ = 1; 128 nodes of
    /// SPEC 168; the last 5000 jobs.
    pub fn table_i() -> Self {
        Self {
            qos: QosSynthesis::default(),
            alpha: 1.0,
            beta: 0.1,
            gamma: 1.0,
            delta: 1.0,
            nodes: 128,
            rating: 168.0,
            jobs: 5000,
            admission: AdmissionConfig::default(),
            control: JobControl::default(),
            lapse: LapseRule::DeadlinePassed,
        }
    }
}

/// The jobs a run draws its QoS for: trace subset or synthetic stand-in, with provenance.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct BaseWorkload {
    /// Human description (which file / generator).
    pub label: String,
    /// True for the synthetic stand-in (results not numerically comparable).
    pub synthetic: bool,
    /// The jobs, in submit order.
    pub jobs: Vec<TraceJob>,
    /// Subset statistics, to compare with the paper's (§VII.B).
    pub stats: SubsetStats,
}

impl BaseWorkload {
    /// The last `n` jobs of an SWF trace (cleaned by slarm-workload's drop rules on the
    /// header's machine size, and jobs without a submit time dropped), on `nodes` nodes.
    pub fn from_swf(path: &Path, n: usize, nodes: usize) -> Result<Self> {
        let trace =
            slarm_workload::reader::read_trace(path, slarm_workload::ReadOptions::default())?;
        let w = slarm_workload::Workload::from_trace(trace, None)?;
        let all: Vec<TraceJob> = w
            .jobs
            .iter()
            .filter(|j| j.submit >= 0.0)
            .filter_map(|j| TraceJob::try_from(&j).ok())
            .filter(|j| j.procs as usize <= nodes)
            .collect();
        let jobs = last_n(all, n);
        let stats = SubsetStats::of(&jobs, nodes)?;
        let name = path.file_name().map_or_else(
            || path.display().to_string(),
            |f| f.to_string_lossy().into_owned(),
        );
        Ok(Self {
            label: format!("last {} jobs of {name}", jobs.len()),
            synthetic: false,
            jobs,
            stats,
        })
    }

    /// The calibrated synthetic stand-in, labelled as such.
    pub fn synthetic(n: usize, nodes: usize, streams: &RngStreams) -> Result<Self> {
        let max = u32::try_from(nodes).unwrap_or(u32::MAX);
        let jobs = synthetic_trace(n, max, streams)?;
        let stats = SubsetStats::of(&jobs, nodes)?;
        Ok(Self {
            label: format!(
                "synthetic stand-in for SDSC-SP2 ({n} jobs; trace absent, not numerically comparable)"
            ),
            synthetic: true,
            jobs,
            stats,
        })
    }
}

/// Simulates already-synthesised `jobs` under `policy`.
pub fn run_jobs(jobs: &[QosJob], policy: ClusterPolicy, s: &Settings) -> Result<Vec<Outcome>> {
    let mut cfg = TimeSharedConfig::homogeneous(s.nodes, s.rating)?;
    cfg.admission = s.admission.with_reference_rating(s.rating)?;
    cfg.control = s.control;
    // Validate every pricing parameter whichever policy runs.
    let plus = LibraPlusDollar::new(s.alpha, s.beta, s.qos.pbase)?;
    let libra = LibraStatic::new(s.gamma, s.delta)?;
    match policy {
        ClusterPolicy::LibraPlus => simulate_time_shared(jobs, &plus, &cfg),
        ClusterPolicy::Libra => simulate_time_shared(jobs, &libra, &cfg),
        ClusterPolicy::FcfsBf | ClusterPolicy::SjfBf | ClusterPolicy::EdfBf => {
            let prio = match policy {
                ClusterPolicy::FcfsBf => Priority::Fcfs,
                ClusterPolicy::SjfBf => Priority::Sjf,
                _ => Priority::Edf,
            };
            let nodes = u32::try_from(s.nodes).map_err(|_| PricingError::InvalidParameter {
                name: "nodes",
                value: s.nodes as f64,
                reason: "too many nodes",
            })?;
            simulate_backfill(jobs, prio, s.lapse, nodes, &FixedRate::new(s.qos.pbase)?)
        }
    }
}

/// Synthesises the QoS of `base` with `streams` and runs `policy`; returns the metrics.
///
/// ```
/// use slarm_pricing::scenario::{run, BaseWorkload, ClusterPolicy, Settings};
/// use slarm_stats::rng::RngStreams;
/// let s = RngStreams::new(1);
/// let base = BaseWorkload::synthetic(200, 128, &s).unwrap();
/// let m = run(&base.jobs, ClusterPolicy::LibraPlus, &Settings::table_i(), &s).unwrap();
/// assert_eq!(m.submitted, 200);
/// assert_eq!(m.deadline_misses, 0); // exact estimates: admitted jobs meet deadlines
/// ```
pub fn run(
    base: &[TraceJob],
    policy: ClusterPolicy,
    s: &Settings,
    streams: &RngStreams,
) -> Result<QosMetrics> {
    let jobs = synthesize(base, &s.qos, streams)?;
    let out = run_jobs(&jobs, policy, s)?;
    evaluate(&jobs, &out, s.nodes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn policies_parse_and_run_on_a_small_synthetic_workload() {
        let st = RngStreams::new(11);
        let base = BaseWorkload::synthetic(400, 128, &st).unwrap();
        assert!(base.synthetic);
        let s = Settings::table_i();
        for p in ClusterPolicy::ALL {
            assert_eq!(p.name().parse::<ClusterPolicy>().unwrap(), p);
            let m = run(&base.jobs, p, &s, &st).unwrap();
            assert_eq!(m.submitted, 400);
            assert!(m.qos_satisfaction >= 0.0 && m.qos_satisfaction <= 1.0);
            assert!(m.profitability >= 0.0 && m.profitability <= 1.0);
            assert_eq!(m.accepted + m.rejected.values().sum::<usize>(), 400);
        }
        assert!("nope".parse::<ClusterPolicy>().is_err());
    }

    /// A submit time of 1e11 s (a valid SWF integer): a completion 1e-6 s away rounded to the
    /// node's clock of 5e10 s, and Libra and Libra+$ stepped that event forever.
    #[test]
    fn a_submit_time_of_1e11_s_runs_to_the_end() {
        let mut jobs: Vec<TraceJob> = (1..20u32)
            .map(|i| TraceJob {
                id: u64::from(i),
                submit: f64::from(i) * 60.0,
                runtime: 100.0,
                procs: 2,
            })
            .collect();
        jobs.push(TraceJob {
            id: 20,
            submit: 1e11,
            runtime: 100.0,
            procs: 2,
        });
        let s = Settings {
            nodes: 8,
            ..Settings::table_i()
        };
        for p in [ClusterPolicy::Libra, ClusterPolicy::LibraPlus] {
            let m = run(&jobs, p, &s, &RngStreams::new(1)).unwrap();
            assert_eq!(m.submitted, 20);
            assert_eq!(m.deadline_misses, 0, "{p:?}");
        }
    }
}
