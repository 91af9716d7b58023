//! Node failure models with the corrected survival forms (thesis §3.3.1 prints `1 - e^{-lambda T}`
//! where the survival `e^{-lambda T}` is meant; rates per hour) and failure-event sources (trace
//! replay with wrap-around as in thesis §5.1.1, and a synthetic Poisson process standing in for
//! the unavailable LANL failure logs; docs/decisions.md).

use rand_distr::{Distribution, Exp};
use slarm_stats::rng::SimRng;

use crate::error::{OverbookError, Result};
use crate::job::{Time, SECONDS_PER_HOUR};
use slarm_stats::check;

/// Default node failure rate of the evaluation, per hour (Table 5.1, read as per hour: the thesis gives no unit).
pub const DEFAULT_LAMBDA_PER_HOUR: f64 = 1.2904e-4;
/// Default node repair rate of the evaluation, per hour.
pub const DEFAULT_MU_PER_HOUR: f64 = 0.4333;

/// A time-to-failure model of one node plus its repair rate. Rates are per hour.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(tag = "kind", rename_all = "snake_case"))]
#[non_exhaustive]
pub enum FailureModel {
    /// Poisson process / exponential lifetimes: survival `e^{-lambda T}` (the simulated model).
    Exponential {
        /// Failure rate per hour.
        lambda: f64,
        /// Repair rate per hour.
        mu: f64,
    },
    /// Weibull lifetimes: survival `e^{-(T/beta)^alpha}`.
    Weibull {
        /// Shape alpha.
        shape: f64,
        /// Scale beta in hours.
        scale: f64,
        /// Repair rate per hour.
        mu: f64,
    },
    /// Hyper-exponential lifetimes (k failure reasons): survival `sum_j p_j e^{-lambda_j T}`.
    HyperExponential {
        /// Branch weights (sum 1).
        weights: Vec<f64>,
        /// Branch failure rates per hour.
        rates: Vec<f64>,
        /// Repair rate per hour.
        mu: f64,
    },
}

impl Default for FailureModel {
    fn default() -> Self {
        FailureModel::Exponential {
            lambda: DEFAULT_LAMBDA_PER_HOUR,
            mu: DEFAULT_MU_PER_HOUR,
        }
    }
}

impl FailureModel {
    /// Validated exponential model.
    ///
    /// ```
    /// use slarm_overbook::failure::FailureModel;
    /// let m = FailureModel::exponential(1.2904e-4, 0.4333).unwrap();
    /// assert!((m.availability() - 0.99970228).abs() < 1e-8);
    /// assert!(FailureModel::exponential(-1.0, 0.4).is_err());
    /// ```
    pub fn exponential(lambda: f64, mu: f64) -> Result<Self> {
        let m = FailureModel::Exponential { lambda, mu };
        m.validate()?;
        Ok(m)
    }

    /// Checks all parameters.
    pub fn validate(&self) -> Result<()> {
        match self {
            FailureModel::Exponential { lambda, mu } => {
                check::non_negative("lambda", *lambda)?;
                check::positive("mu", *mu)?;
            }
            FailureModel::Weibull { shape, scale, mu } => {
                check::positive("weibull shape", *shape)?;
                check::positive("weibull scale", *scale)?;
                check::positive("mu", *mu)?;
            }
            FailureModel::HyperExponential { weights, rates, mu } => {
                check::positive("mu", *mu)?;
                if weights.is_empty() || weights.len() != rates.len() {
                    return Err(OverbookError::InvalidParameter {
                        name: "hyper-exponential branches",
                        value: weights.len() as f64,
                        reason: "weights and rates must be non-empty and of equal length",
                    });
                }
                let mut s = 0.0;
                for (&p, &r) in weights.iter().zip(rates) {
                    check::probability("branch weight", p)?;
                    check::non_negative("branch rate", r)?;
                    s += p;
                }
                if (s - 1.0).abs() > 1e-9 {
                    return Err(OverbookError::InvalidParameter {
                        name: "branch weights sum",
                        value: s,
                        reason: "must sum to 1",
                    });
                }
            }
        }
        Ok(())
    }

    /// Repair rate per hour.
    pub fn mu(&self) -> f64 {
        match self {
            FailureModel::Exponential { mu, .. }
            | FailureModel::Weibull { mu, .. }
            | FailureModel::HyperExponential { mu, .. } => *mu,
        }
    }

    /// Mean time to failure in hours.
    pub fn mttf_hours(&self) -> f64 {
        match self {
            FailureModel::Exponential { lambda, .. } => {
                if *lambda > 0.0 {
                    1.0 / lambda
                } else {
                    f64::INFINITY
                }
            }
            FailureModel::Weibull { shape, scale, .. } => {
                scale * slarm_stats::summary::ln_gamma(1.0 + 1.0 / shape).exp()
            }
            FailureModel::HyperExponential { weights, rates, .. } => weights
                .iter()
                .zip(rates)
                .map(|(p, r)| if *r > 0.0 { p / r } else { f64::INFINITY })
                .sum(),
        }
    }

    /// Steady-state availability `MTTF/(MTTF+MTTR)`; for the exponential model `mu/(lambda+mu)`
    /// = `1/(1 + lambda/mu)` (thesis §3.3.1).
    pub fn availability(&self) -> f64 {
        if let FailureModel::Exponential { lambda, mu } = self {
            return 1.0 / (1.0 + lambda / mu);
        }
        let mttf = self.mttf_hours();
        if mttf.is_infinite() {
            return 1.0;
        }
        mttf / (mttf + 1.0 / self.mu())
    }

    /// Probability that one node survives `seconds` of execution (corrected survival form).
    pub fn survival(&self, seconds: f64) -> f64 {
        let t = seconds.max(0.0) / SECONDS_PER_HOUR;
        match self {
            FailureModel::Exponential { lambda, .. } => (-lambda * t).exp(),
            FailureModel::Weibull { shape, scale, .. } => (-(t / scale).powf(*shape)).exp(),
            FailureModel::HyperExponential { weights, rates, .. } => weights
                .iter()
                .zip(rates)
                .map(|(p, r)| p * (-r * t).exp())
                .sum(),
        }
    }
}

/// Failure models of the nodes of a cluster: homogeneous (heuristic) or per node (comprehensive).
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(tag = "kind", rename_all = "snake_case"))]
pub enum NodeFailures {
    /// Every node follows the same model (`P^n` powers, thesis §3.3.2).
    Homogeneous(FailureModel),
    /// One model per node (products over the assigned set, thesis §3.3.1).
    PerNode(Vec<FailureModel>),
}

impl NodeFailures {
    fn model(&self, node: usize) -> Option<&FailureModel> {
        match self {
            NodeFailures::Homogeneous(m) => Some(m),
            NodeFailures::PerNode(v) => v.get(node),
        }
    }

    /// Cluster-wide model (the first node's for per-node data) used by the heuristic.
    pub fn representative(&self) -> Option<&FailureModel> {
        self.model(0)
    }

    /// `P_available(R) * P_success(T, R)` over concrete nodes (thesis §3.3.1). Unknown nodes
    /// are an error.
    pub fn outage_pos_nodes(&self, nodes: &[usize], seconds: f64) -> Result<f64> {
        let mut p = 1.0;
        for &r in nodes {
            let m = self.model(r).ok_or(OverbookError::InvalidParameter {
                name: "node index",
                value: r as f64,
                reason: "no failure model for this node",
            })?;
            p *= m.availability() * m.survival(seconds);
        }
        Ok(p)
    }
}

/// Homogeneous `P_available(n) * P_success(T, n) = (A · S(T))^n` (thesis §3.3.2).
pub fn outage_pos_homogeneous(model: &FailureModel, nodes: usize, seconds: f64) -> f64 {
    per_node_power(model.availability() * model.survival(seconds), nodes)
}

/// `p^n`, the probability that all of `n` independent nodes with probability `p` each do
/// something. `powi` takes an `i32`: beyond `i32::MAX` nodes the exponent would wrap (2^32
/// nodes to `p^0` = 1), so there `powf` computes it.
pub(crate) fn per_node_power(p: f64, n: usize) -> f64 {
    match i32::try_from(n) {
        Ok(k) => p.powi(k),
        Err(_) => p.powf(n as f64),
    }
}

/// A node going down or coming back.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum NodeEventKind {
    /// The node is repaired (ordered before failures at equal times; the thesis leaves the order open).
    Repair,
    /// The node crashes.
    Failure,
}

/// One failure-trace event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct NodeEvent {
    /// Event time (simulation seconds).
    pub time: Time,
    /// Kind.
    pub kind: NodeEventKind,
    /// Node index.
    pub node: usize,
}

/// Where node failure and repair events come from (pluggable: the thesis' LANL failure logs are not public).
pub trait FailureSource {
    /// Sorted events for `nodes` nodes over `[0, horizon]`.
    fn events(&self, nodes: usize, horizon: Time) -> Vec<NodeEvent>;
}

/// A down interval of one node in a failure log (LANL style).
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Outage {
    /// Node index in the log.
    pub node: usize,
    /// Failure time (seconds since the log origin).
    pub start: Time,
    /// Repair time.
    pub end: Time,
}

/// Replay of a failure log: cluster node `i` follows log node `i mod log_nodes` (wrap-around of
/// thesis §5.1.1), times shifted by `offset` (aligned to the battery start by default).
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct TraceReplay {
    outages: Vec<Outage>,
    log_nodes: usize,
    offset: Time,
}

impl TraceReplay {
    /// Validated replay source.
    pub fn new(outages: Vec<Outage>, log_nodes: usize, offset: Time) -> Result<Self> {
        if log_nodes == 0 {
            return Err(OverbookError::InvalidParameter {
                name: "log_nodes",
                value: 0.0,
                reason: "a failure log needs at least one node",
            });
        }
        for o in &outages {
            if o.end < o.start || o.node >= log_nodes {
                return Err(OverbookError::Malformed {
                    source_name: "failure log".into(),
                    line: 0,
                    reason: format!("bad outage {o:?}"),
                });
            }
        }
        Ok(Self {
            outages,
            log_nodes,
            offset,
        })
    }
}

impl TraceReplay {
    /// Parses a failure log in CSV form, one outage per line: `time_s,node,duration_s` (failure
    /// time in seconds since the log origin, node index, down time in seconds). An optional
    /// first line naming the columns, blank lines and lines starting with `#` are skipped. The
    /// log has `max node + 1` nodes and is replayed from its origin at every battery start
    /// (offset 0). `source_name` names the input in errors, which give the 1-based line.
    ///
    /// ```
    /// use slarm_overbook::failure::{FailureSource, TraceReplay};
    /// let log = "time_s,node,duration_s\n3600,1,600\n";
    /// let replay = TraceReplay::parse_csv(log, "failures.csv").unwrap();
    /// let events = replay.events(4, 10_000);
    /// assert_eq!(events.len(), 4); // nodes 1 and 3 (wrap-around): a failure and a repair each
    /// assert!(TraceReplay::parse_csv("10,x,5", "f.csv").unwrap_err().to_string().contains("line 1"));
    /// ```
    pub fn parse_csv(text: &str, source_name: &str) -> Result<Self> {
        let mut outages = Vec::new();
        for (k, raw) in text.lines().enumerate() {
            let line = raw.trim();
            if line.is_empty() || line.starts_with('#') || (k == 0 && line.starts_with("time")) {
                continue;
            }
            let bad = |reason: String| OverbookError::Malformed {
                source_name: source_name.to_string(),
                line: k + 1,
                reason,
            };
            let fields: Vec<&str> = line.split(',').map(str::trim).collect();
            let [time, node, duration] = fields[..] else {
                return Err(bad(format!(
                    "expected 3 fields time_s,node,duration_s, found {}",
                    fields.len()
                )));
            };
            let seconds = |name: &str, v: &str| -> Result<Time> {
                let x: f64 = v
                    .parse()
                    .map_err(|_| bad(format!("{name} '{v}' is not a number")))?;
                if !(0.0..=1e15).contains(&x) {
                    return Err(bad(format!("{name} {v} must be finite and non-negative")));
                }
                Ok(x.round() as Time)
            };
            let start = seconds("time_s", time)?;
            let down = seconds("duration_s", duration)?;
            let node: usize = node
                .parse()
                .map_err(|_| bad(format!("node '{node}' is not a node index")))?;
            outages.push(Outage {
                node,
                start,
                end: start + down,
            });
        }
        let log_nodes = outages.iter().map(|o| o.node + 1).max().unwrap_or(1);
        Self::new(outages, log_nodes, 0)
    }
}

impl FailureSource for TraceReplay {
    fn events(&self, nodes: usize, horizon: Time) -> Vec<NodeEvent> {
        let mut ev = Vec::new();
        for node in 0..nodes {
            let src = node % self.log_nodes;
            for o in self.outages.iter().filter(|o| o.node == src) {
                let s = o.start - self.offset;
                let e = o.end - self.offset;
                if e < 0 || s > horizon {
                    continue;
                }
                ev.push(NodeEvent {
                    time: s.max(0),
                    kind: NodeEventKind::Failure,
                    node,
                });
                ev.push(NodeEvent {
                    time: e,
                    kind: NodeEventKind::Repair,
                    node,
                });
            }
        }
        ev.sort();
        ev
    }
}

/// Synthetic alternating up/down process: exponential up times (rate lambda) and repair times
/// (rate mu), one independent stream per node derived from `seed`; every node is up at time 0
/// (a battery starts on an all-up cluster).
///
/// Only [`SyntheticPoisson::new`] builds one (deserializing goes through it too), so its fields are
/// read through methods.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(try_from = "SyntheticPoissonParts"))]
pub struct SyntheticPoisson {
    lambda: f64,
    mu: f64,
    seed: u64,
}

/// The fields of a [`SyntheticPoisson`] as serialized: deserializing checks them with
/// [`SyntheticPoisson::new`].
#[cfg(feature = "serde")]
#[derive(serde::Deserialize)]
struct SyntheticPoissonParts {
    lambda: f64,
    mu: f64,
    seed: u64,
}

#[cfg(feature = "serde")]
impl TryFrom<SyntheticPoissonParts> for SyntheticPoisson {
    type Error = OverbookError;

    fn try_from(p: SyntheticPoissonParts) -> Result<Self> {
        SyntheticPoisson::new(p.lambda, p.mu, p.seed)
    }
}

impl SyntheticPoisson {
    /// Validated generator.
    pub fn new(lambda: f64, mu: f64, seed: u64) -> Result<Self> {
        check::non_negative("lambda", lambda)?;
        check::positive("mu", mu)?;
        Ok(Self { lambda, mu, seed })
    }

    /// Failure rate per hour.
    pub fn lambda(&self) -> f64 {
        self.lambda
    }

    /// Repair rate per hour.
    pub fn mu(&self) -> f64 {
        self.mu
    }

    /// Root seed of the per-node streams.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    fn node_events(&self, node: usize, horizon: Time, rng: &mut SimRng, out: &mut Vec<NodeEvent>) {
        if self.lambda <= 0.0 {
            return;
        }
        let (Ok(up), Ok(down)) = (
            Exp::new(self.lambda / SECONDS_PER_HOUR),
            Exp::new(self.mu / SECONDS_PER_HOUR),
        ) else {
            return;
        };
        // Every battery starts on an all-up cluster.
        let mut t = 0.0f64;
        loop {
            t += up.sample(rng);
            if t > horizon as f64 {
                break;
            }
            out.push(NodeEvent {
                time: t.ceil() as Time,
                kind: NodeEventKind::Failure,
                node,
            });
            t += down.sample(rng).max(1.0);
            out.push(NodeEvent {
                time: t.ceil() as Time,
                kind: NodeEventKind::Repair,
                node,
            });
        }
    }
}

impl FailureSource for SyntheticPoisson {
    fn events(&self, nodes: usize, horizon: Time) -> Vec<NodeEvent> {
        let streams = slarm_stats::rng::RngStreams::new(self.seed);
        let mut ev = Vec::new();
        for node in 0..nodes {
            let mut rng = streams.stream(&[node as u64]);
            self.node_events(node, horizon, &mut rng, &mut ev);
        }
        ev.sort();
        ev
    }
}

/// No failures at all.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct NoFailures;

impl FailureSource for NoFailures {
    fn events(&self, _nodes: usize, _horizon: Time) -> Vec<NodeEvent> {
        Vec::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn synthetic_poisson_is_built_only_checked() {
        let g = SyntheticPoisson::new(0.05, 0.5, 7).unwrap();
        assert_eq!((g.lambda(), g.mu(), g.seed()), (0.05, 0.5, 7));
        assert!(SyntheticPoisson::new(0.0, 0.5, 7).is_ok());
        for (lambda, mu) in [
            (-0.1, 0.5),
            (f64::NAN, 0.5),
            (0.05, 0.0),
            (0.05, f64::INFINITY),
        ] {
            assert!(matches!(
                SyntheticPoisson::new(lambda, mu, 7),
                Err(OverbookError::InvalidParameter { .. })
            ));
        }
    }

    /// 2^32 nodes wrapped to an exponent of 0: a probability of 1 for any model.
    #[test]
    fn per_node_power_does_not_wrap_the_node_count() {
        let m = FailureModel::exponential(10.0, 1.0).unwrap();
        assert!(outage_pos_homogeneous(&m, 1 << 32, 3600.0) < 1e-300);
        assert_eq!(per_node_power(0.5, 1 << 32), 0.0);
        assert_eq!(per_node_power(1.0, usize::MAX), 1.0);
        assert_eq!(per_node_power(0.5, 3), 0.125);
    }

    #[test]
    fn failure_log_csv_replays_outages_and_names_bad_lines() {
        let log = "time_s,node,duration_s\n# comment\n\n100,0,50\n300.4,1,0.6\n";
        let r = TraceReplay::parse_csv(log, "f.csv").unwrap();
        let ev = r.events(2, 1000);
        let at = |k: usize| (ev[k].time, ev[k].node, ev[k].kind);
        assert_eq!(ev.len(), 4);
        assert_eq!(at(0), (100, 0, NodeEventKind::Failure));
        assert_eq!(at(1), (150, 0, NodeEventKind::Repair));
        assert_eq!(at(3), (301, 1, NodeEventKind::Repair));
        for (bad, line) in [
            ("1,2", 1),
            ("time_s,node,duration_s\n1,2,3\n-5,0,1", 3),
            ("1,0,NaN", 1),
            ("1,-1,5", 1),
            ("1,0,5,6", 1),
        ] {
            match TraceReplay::parse_csv(bad, "f.csv") {
                Err(OverbookError::Malformed {
                    source_name,
                    line: l,
                    ..
                }) => {
                    assert_eq!((source_name.as_str(), l), ("f.csv", line), "{bad}");
                }
                other => panic!("{bad}: {other:?}"),
            }
        }
    }

    #[test]
    fn survival_is_the_corrected_form() {
        // Thesis §3.3.1 erratum: survival e^{-lambda T}, not 1 - e^{-lambda T}.
        let m = FailureModel::default();
        let s = m.survival(2.0 * 3600.0);
        assert!((s - (-1.2904e-4f64 * 2.0).exp()).abs() < 1e-15);
        assert!(s > 0.99);
        let w = FailureModel::Weibull {
            shape: 1.0,
            scale: 1.0 / 1.2904e-4,
            mu: 0.4333,
        };
        assert!((w.survival(7200.0) - s).abs() < 1e-12);
        let h = FailureModel::HyperExponential {
            weights: vec![0.5, 0.5],
            rates: vec![1.2904e-4, 1.2904e-4],
            mu: 0.4333,
        };
        h.validate().unwrap();
        assert!((h.survival(7200.0) - s).abs() < 1e-12);
        assert!((h.availability() - m.availability()).abs() < 1e-12);
        assert!((w.availability() - m.availability()).abs() < 1e-9);
    }

    #[test]
    fn invalid_models_are_rejected() {
        assert!(FailureModel::exponential(f64::NAN, 1.0).is_err());
        assert!(FailureModel::exponential(1.0, 0.0).is_err());
        let h = FailureModel::HyperExponential {
            weights: vec![0.3],
            rates: vec![1.0],
            mu: 1.0,
        };
        assert!(h.validate().is_err());
        assert!(TraceReplay::new(vec![], 0, 0).is_err());
        assert!(SyntheticPoisson::new(-1.0, 1.0, 0).is_err());
    }

    #[test]
    fn per_node_and_homogeneous_agree_for_equal_nodes() {
        let m = FailureModel::default();
        let per = NodeFailures::PerNode(vec![m.clone(); 16]);
        let a = per
            .outage_pos_nodes(&(0..16).collect::<Vec<_>>(), 7200.0)
            .unwrap();
        let b = outage_pos_homogeneous(&m, 16, 7200.0);
        assert!((a - b).abs() < 1e-12);
        assert!(per.outage_pos_nodes(&[99], 1.0).is_err());
    }

    #[test]
    fn replay_wraps_nodes() {
        let r = TraceReplay::new(
            vec![Outage {
                node: 1,
                start: 100,
                end: 200,
            }],
            2,
            0,
        )
        .unwrap();
        let ev = r.events(5, 1000);
        // nodes 1 and 3 follow log node 1.
        assert_eq!(ev.len(), 4);
        assert!(ev.iter().all(|e| e.node % 2 == 1));
    }

    #[test]
    fn synthetic_rate_matches_lambda() {
        // Statistical test, fixed seed: expected failures = nodes * horizon_h * lambda / (1 + lambda/mu).
        let g = SyntheticPoisson::new(0.01, 0.5, 7).unwrap();
        let horizon = 1000 * 3600;
        let ev = g.events(200, horizon);
        let fails = ev
            .iter()
            .filter(|e| e.kind == NodeEventKind::Failure)
            .count() as f64;
        let expect = 200.0 * 1000.0 * 0.01 / (1.0 + 0.01 / 0.5);
        // sd ~ sqrt(2000) ~ 45; 4 sd tolerance.
        assert!(
            (fails - expect).abs() < 180.0,
            "fails {fails} expect {expect}"
        );
        assert_eq!(ev, g.events(200, horizon));
    }
}
