//! Comparison 3: multiclass M/M/c against Ciw simulations, two and three classes, FCFS and
//! non-preemptive priority.
//!
//! Ciw runs `REPLICATIONS` independent replications per scenario (fixed seeds); customers
//! arriving after the warm-up and finished by the horizon count. Checks:
//! * analytic: under FCFS every class sees the M/M/c response time of the pooled stream,
//!   so our `Mmm::response_cdf` is held against each class's Ciw sample by the one-sample
//!   KS distance (samples thinned to every `THIN`-th customer of a replication to weaken
//!   serial correlation; tolerance the KS critical value at alpha = 0.001 for that many
//!   samples), and our `Mmm::mean_response` must lie in Ciw's 99% Student-t interval over
//!   the replication means.

use serde_json::{json, Value};
use slarm::queueing::Mmm;
use slarm::stats::{ks_critical_value, ks_test, ConfidenceInterval};

use super::{Context, Outcome};

const SEED: u64 = 4242;
const REPLICATIONS: usize = 10;
const HORIZON: f64 = 4000.0;
const WARMUP: f64 = 400.0;
const THIN: usize = 10;
const KS_ALPHA: f64 = 0.001;
const CI_LEVEL: f64 = 0.99;

/// Queue discipline of a scenario.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Discipline {
    /// One FCFS queue for all classes.
    Fcfs,
    /// Non-preemptive priority, class 0 highest (HOL).
    Priority,
}

impl Discipline {
    fn key(self) -> &'static str {
        match self {
            Discipline::Fcfs => "fcfs",
            Discipline::Priority => "priority",
        }
    }
}

/// One M/M/c scenario.
#[derive(Debug, Clone)]
pub struct Scenario {
    /// Stable name.
    pub name: &'static str,
    /// Servers.
    pub servers: u64,
    /// Service rate of every class.
    pub mu: f64,
    /// Arrival rate per class.
    pub lambdas: Vec<f64>,
    /// Discipline.
    pub discipline: Discipline,
}

/// The scenarios (utilisation 0.75 throughout).
pub fn scenarios() -> Vec<Scenario> {
    let mut out = Vec::new();
    for discipline in [Discipline::Fcfs, Discipline::Priority] {
        out.push(Scenario {
            name: if discipline == Discipline::Fcfs {
                "2class-fcfs"
            } else {
                "2class-priority"
            },
            servers: 4,
            mu: 1.0,
            lambdas: vec![1.2, 1.8],
            discipline,
        });
        out.push(Scenario {
            name: if discipline == Discipline::Fcfs {
                "3class-fcfs"
            } else {
                "3class-priority"
            },
            servers: 6,
            mu: 1.0,
            lambdas: vec![1.0, 1.5, 2.0],
            discipline,
        });
    }
    out
}

/// Ciw's answer for one class.
#[derive(Debug, Clone)]
pub struct CiwClass {
    /// Mean response time per replication.
    pub replication_means: Vec<f64>,
    /// Thinned response-time samples of all replications.
    pub samples: Vec<f64>,
}

fn f64_array(v: &Value, key: &str) -> Result<Vec<f64>, String> {
    v.get(key)
        .and_then(Value::as_array)
        .ok_or_else(|| format!("Ciw output lacks '{key}'"))?
        .iter()
        .map(|x| x.as_f64().ok_or_else(|| format!("non-number in '{key}'")))
        .collect()
}

fn run_ciw(ctx: &Context, scenarios: &[Scenario]) -> Result<(String, Vec<Vec<CiwClass>>), String> {
    let input = json!({
        "scenarios": scenarios.iter().map(|s| json!({
            "name": s.name, "servers": s.servers, "mu": s.mu, "lambdas": s.lambdas,
            "discipline": s.discipline.key(), "horizon": HORIZON, "warmup": WARMUP,
            "replications": REPLICATIONS, "seed": SEED, "thin": THIN,
        })).collect::<Vec<_>>()
    });
    let output = ctx.run_script("ciw_mmc.py", &input)?;
    let version = output
        .get("ciw")
        .and_then(Value::as_str)
        .unwrap_or("?")
        .to_string();
    let results = output
        .get("scenarios")
        .and_then(Value::as_array)
        .ok_or("Ciw output lacks 'scenarios'")?;
    let mut all = Vec::new();
    for (s, r) in scenarios.iter().zip(results) {
        let classes = r
            .get("classes")
            .and_then(Value::as_array)
            .ok_or("Ciw output lacks 'classes'")?;
        if classes.len() != s.lambdas.len() {
            return Err(format!(
                "{}: Ciw returned {} classes",
                s.name,
                classes.len()
            ));
        }
        all.push(
            classes
                .iter()
                .map(|c| {
                    Ok(CiwClass {
                        replication_means: f64_array(c, "replication_means")?,
                        samples: f64_array(c, "samples")?,
                    })
                })
                .collect::<Result<Vec<_>, String>>()?,
        );
    }
    if all.len() != scenarios.len() {
        return Err(format!("Ciw returned {} scenarios", all.len()));
    }
    Ok((version, all))
}

/// Runs the comparison.
pub fn compare(ctx: &Context) -> Vec<Outcome> {
    match compare_inner(ctx) {
        Ok(v) => v,
        Err(e) => vec![Outcome::error("ciw", &e)],
    }
}

fn analytic_fcfs(
    s: &Scenario,
    classes: &[CiwClass],
    version: &str,
) -> Result<Vec<Outcome>, String> {
    let lambda: f64 = s.lambdas.iter().sum();
    let q = Mmm::new(lambda, s.mu, s.servers).map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    for (i, c) in classes.iter().enumerate() {
        let ks = ks_test(&c.samples, |x| q.response_cdf(x)).map_err(|e| e.to_string())?;
        let crit = ks_critical_value(c.samples.len(), KS_ALPHA).map_err(|e| e.to_string())?;
        out.push(Outcome::within(
            &format!("ciw/{}/class{i} analytic CDF KS", s.name),
            ks.d,
            crit,
            format!(
                "KS D {:.4} of {} Ciw {version} samples vs Mmm::response_cdf",
                ks.d,
                c.samples.len()
            ),
            format!("D <= {crit:.4} (alpha {KS_ALPHA})"),
        ));
        let ci = ConfidenceInterval::of_samples(&c.replication_means, CI_LEVEL)
            .map_err(|e| e.to_string())?;
        let mean = q.mean_response();
        let passed = ci.contains(mean);
        out.push(Outcome {
            name: format!("ciw/{}/class{i} analytic mean in CI", s.name),
            passed,
            figure: format!(
                "Mmm mean {mean:.4}, Ciw {:.4} [{:.4}, {:.4}] over {} replications",
                ci.mean,
                ci.lower(),
                ci.upper(),
                c.replication_means.len()
            ),
            tolerance: format!("inside the {:.0}% CI", CI_LEVEL * 100.0),
        });
    }
    Ok(out)
}

fn compare_inner(ctx: &Context) -> Result<Vec<Outcome>, String> {
    let scenarios = scenarios();
    let (version, ciw) = run_ciw(ctx, &scenarios)?;
    let mut out = Vec::new();
    for (s, classes) in scenarios.iter().zip(&ciw) {
        if s.discipline == Discipline::Fcfs {
            out.extend(analytic_fcfs(s, classes, &version)?);
        }
    }
    Ok(out)
}
