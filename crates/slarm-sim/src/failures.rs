//! Node failure and repair processes: an alternating renewal process per node with
//! exponential up times (rate `lambda`) and repair times (rate `mu`), or the replay of a
//! recorded failure trace. Rates are per unit of the caller's clock (Birkenheuer 2012, §5.1.1,
//! estimates lambda = 1.2904e-4 and mu = 0.4333 for the LANL nodes, per hour).
//!
//! ```
//! use slarm_sim::failures::{ExponentialFailures, FailureTrace};
//! use slarm_stats::RngStreams;
//!
//! let model = ExponentialFailures::new(0.01, 0.5)?;
//! let events = model.generate(4, 1000.0, &mut RngStreams::new(3).stream(&[0]));
//! let trace = FailureTrace::new(4, events)?;
//! assert!(trace.up_nodes_at(0.0) == 4);
//! # Ok::<(), slarm_sim::SimError>(())
//! ```

use rand::{Rng, RngExt};
use rand_distr::Exp1;

use crate::error::{check_time, Result, SimError};

/// Whether a node goes down or comes back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub enum FailureKind {
    /// The node fails.
    Fail,
    /// The node is repaired.
    Repair,
}

/// One failure or repair of one node.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct FailureEvent {
    /// Time of the event.
    pub time: f64,
    /// Node index (0-based).
    pub node: u32,
    /// Failure or repair.
    pub kind: FailureKind,
}

/// Exponential failure (rate `lambda`) and repair (rate `mu`) per node.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ExponentialFailures {
    lambda: f64,
    mu: f64,
}

impl ExponentialFailures {
    /// Validates both rates (finite and > 0).
    pub fn new(lambda: f64, mu: f64) -> Result<Self> {
        let bad = |name: &'static str, v: f64| SimError::InvalidParameter {
            name,
            value: v.to_string(),
            reason: "rate must be finite and > 0",
        };
        if !(lambda.is_finite() && lambda > 0.0) {
            return Err(bad("failure rate lambda", lambda));
        }
        if !(mu.is_finite() && mu > 0.0) {
            return Err(bad("repair rate mu", mu));
        }
        Ok(Self { lambda, mu })
    }

    /// Long-run fraction of time a node is up: mu / (lambda + mu).
    pub fn availability(&self) -> f64 {
        self.mu / (self.lambda + self.mu)
    }

    /// All events in `[0, horizon)` for `nodes` nodes that start up, sorted by (time, node).
    pub fn generate<R: Rng + ?Sized>(
        &self,
        nodes: u32,
        horizon: f64,
        rng: &mut R,
    ) -> Vec<FailureEvent> {
        let mut out = Vec::new();
        for node in 0..nodes {
            let mut t = 0.0;
            loop {
                t += exp_sample(self.lambda, rng);
                if t >= horizon {
                    break;
                }
                out.push(FailureEvent {
                    time: t,
                    node,
                    kind: FailureKind::Fail,
                });
                t += exp_sample(self.mu, rng);
                if t >= horizon {
                    break;
                }
                out.push(FailureEvent {
                    time: t,
                    node,
                    kind: FailureKind::Repair,
                });
            }
        }
        out.sort_by(|a, b| a.time.total_cmp(&b.time).then(a.node.cmp(&b.node)));
        out
    }
}

/// Exponential draw with the given rate: a standard exponential from `rand_distr` (`Exp1`,
/// ziggurat method) divided by `rate` (validated by [`ExponentialFailures::new`]).
fn exp_sample<R: Rng + ?Sized>(rate: f64, rng: &mut R) -> f64 {
    let e: f64 = rng.sample(Exp1);
    e / rate
}

/// A validated failure trace for replay: per node, events alternate Fail, Repair, ...
/// starting from "up" at time 0.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct FailureTrace {
    nodes: u32,
    events: Vec<FailureEvent>,
}

impl FailureTrace {
    /// Sorts and validates `events` (finite times, nodes < `nodes`, alternating kinds).
    pub fn new(nodes: u32, mut events: Vec<FailureEvent>) -> Result<Self> {
        for e in &events {
            check_time("failure time", e.time)?;
            if e.node >= nodes {
                return Err(SimError::InvalidParameter {
                    name: "failure node",
                    value: e.node.to_string(),
                    reason: "node index beyond the machine",
                });
            }
        }
        events.sort_by(|a, b| a.time.total_cmp(&b.time).then(a.node.cmp(&b.node)));
        let mut down = vec![false; nodes as usize];
        for e in &events {
            let d = &mut down[e.node as usize];
            match (e.kind, *d) {
                (FailureKind::Fail, false) => *d = true,
                (FailureKind::Repair, true) => *d = false,
                _ => {
                    return Err(SimError::InvalidParameter {
                        name: "failure trace",
                        value: format!("node {} at {}", e.node, e.time),
                        reason: "failures and repairs of a node must alternate",
                    })
                }
            }
        }
        Ok(Self { nodes, events })
    }

    /// The events in replay order.
    pub fn events(&self) -> &[FailureEvent] {
        &self.events
    }

    /// Number of nodes up at time `t` (events at exactly `t` applied).
    pub fn up_nodes_at(&self, t: f64) -> u32 {
        let mut up = i64::from(self.nodes);
        for e in self.events.iter().take_while(|e| e.time <= t) {
            up += if e.kind == FailureKind::Fail { -1 } else { 1 };
        }
        u32::try_from(up.max(0)).unwrap_or(0)
    }

    /// Total node-time down in `[0, horizon)`.
    pub fn downtime(&self, horizon: f64) -> f64 {
        let mut since = vec![None; self.nodes as usize];
        let mut total = 0.0;
        for e in self.events.iter().take_while(|e| e.time < horizon) {
            match e.kind {
                FailureKind::Fail => since[e.node as usize] = Some(e.time),
                FailureKind::Repair => {
                    if let Some(s) = since[e.node as usize].take() {
                        total += e.time - s;
                    }
                }
            }
        }
        total + since.iter().flatten().map(|s| horizon - s).sum::<f64>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use slarm_stats::RngStreams;

    #[test]
    fn long_run_availability_matches_mu_over_lambda_plus_mu() {
        // Alternating renewal process: P(up) = mu / (lambda + mu) = 0.8 here. With 200 nodes
        // over 5000 time units (~ 8000 cycles) the estimate's standard error is ~0.003;
        // tolerance 0.015 (5 sigma).
        let m = ExponentialFailures::new(0.05, 0.2).unwrap();
        let h = 5000.0;
        let ev = m.generate(200, h, &mut RngStreams::new(11).stream(&[7]));
        let tr = FailureTrace::new(200, ev).unwrap();
        let up = 1.0 - tr.downtime(h) / (200.0 * h);
        assert!((up - m.availability()).abs() < 0.015, "{up}");
    }

    #[test]
    fn replay_validation() {
        let f = |t, node, kind| FailureEvent {
            time: t,
            node,
            kind,
        };
        let tr = FailureTrace::new(
            2,
            vec![f(5.0, 1, FailureKind::Repair), f(1.0, 1, FailureKind::Fail)],
        )
        .unwrap();
        assert_eq!(
            (
                tr.up_nodes_at(0.0),
                tr.up_nodes_at(1.0),
                tr.up_nodes_at(5.0)
            ),
            (2, 1, 2)
        );
        assert_eq!(tr.downtime(10.0), 4.0);
        assert!(FailureTrace::new(2, vec![f(1.0, 0, FailureKind::Repair)]).is_err());
        assert!(FailureTrace::new(2, vec![f(1.0, 3, FailureKind::Fail)]).is_err());
        assert!(FailureTrace::new(2, vec![f(f64::NAN, 0, FailureKind::Fail)]).is_err());
        assert!(ExponentialFailures::new(0.0, 1.0).is_err());
        assert!(ExponentialFailures::new(1.0, f64::INFINITY).is_err());
    }
}
