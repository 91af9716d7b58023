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
//! * simulator: our `slarm::queueing::sim` (FCFS, and HOL with class 0 highest) runs the
//!   same scenario with the same horizon, warm-up, replications and thinning (its own
//!   seeded streams); per class the two-sample KS distance between our and Ciw's samples
//!   must stay below the two-sample critical value at alpha = 0.001, and the difference of
//!   the two means must lie within the 99% interval of the difference,
//!   `|m_ours - m_ciw| <= sqrt(h_ours^2 + h_ciw^2)` with `h` the 99% Student-t half-widths.
//!
//! Measurement: customers arriving in `[WARMUP, HORIZON)`; our simulator stops arrivals at
//! the horizon and drains, Ciw keeps arrivals on for `DRAIN` more time units so that those
//! customers finish (a late high-priority arrival can then still delay a low-priority
//! customer in Ciw; over 3,600 measured time units the effect is far below the tolerances).

use serde_json::{json, Value};
use slarm::queueing::sim::{run_replication, Discipline as SimDiscipline, QueueSimConfig};
use slarm::queueing::{JobClass, Mmm, Sla};
use slarm::stats::gof::kolmogorov_critical;
use slarm::stats::{ks_critical_value, ks_test, ConfidenceInterval};

use super::{Context, Outcome};

const SEED: u64 = 4242;
const REPLICATIONS: usize = 10;
const HORIZON: f64 = 4000.0;
const WARMUP: f64 = 400.0;
const THIN: usize = 10;
const DRAIN: f64 = 300.0;
/// Seed of our simulator's replications.
const OUR_SEED: u64 = 99;
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
            "replications": REPLICATIONS, "seed": SEED, "thin": THIN, "drain": DRAIN,
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

/// Our simulator on a scenario: per class (replication means, thinned samples).
fn ours(s: &Scenario) -> Result<Vec<CiwClass>, String> {
    let err = |e: slarm::queueing::QueueError| format!("{}: {e}", s.name);
    // The SLA does not influence FCFS or HOL; the simulator's classes need one.
    let sla = Sla::new(3.0, 0.9).map_err(err)?;
    let classes: Vec<JobClass> = s
        .lambdas
        .iter()
        .map(|&l| JobClass::new(l, sla))
        .collect::<Result<_, _>>()
        .map_err(err)?;
    let discipline = match s.discipline {
        Discipline::Fcfs => SimDiscipline::Fcfs,
        Discipline::Priority => SimDiscipline::Hol {
            order: (0..classes.len()).collect(),
        },
    };
    let cfg = QueueSimConfig {
        horizon: HORIZON,
        warmup: WARMUP,
        replications: REPLICATIONS as u32,
        seed: OUR_SEED,
    };
    let mut out: Vec<CiwClass> = (0..classes.len())
        .map(|_| CiwClass {
            replication_means: Vec::new(),
            samples: Vec::new(),
        })
        .collect();
    for rep in 0..cfg.replications {
        let r = run_replication(
            &classes,
            s.mu,
            s.servers,
            &discipline,
            &cfg,
            rep,
            THIN as u64,
        )
        .map_err(err)?;
        for (i, c) in out.iter_mut().enumerate() {
            let n = r.count.get(i).copied().unwrap_or(0);
            c.replication_means
                .push(r.sum_response.get(i).copied().unwrap_or(f64::NAN) / n as f64);
            c.samples
                .extend(r.samples.get(i).map(Vec::as_slice).unwrap_or(&[]));
        }
    }
    Ok(out)
}

/// Two-sample KS distance `sup |F_a - F_b|`.
fn ks_two_sample(a: &[f64], b: &[f64]) -> f64 {
    let mut a = a.to_vec();
    let mut b = b.to_vec();
    a.sort_by(f64::total_cmp);
    b.sort_by(f64::total_cmp);
    let (mut i, mut j, mut d) = (0usize, 0usize, 0.0_f64);
    while i < a.len() && j < b.len() {
        let x = a[i].min(b[j]);
        while i < a.len() && a[i] <= x {
            i += 1;
        }
        while j < b.len() && b[j] <= x {
            j += 1;
        }
        d = d.max((i as f64 / a.len() as f64 - j as f64 / b.len() as f64).abs());
    }
    d
}

fn simulator(s: &Scenario, ciw: &[CiwClass], version: &str) -> Result<Vec<Outcome>, String> {
    let ours = ours(s)?;
    let c_alpha = kolmogorov_critical(KS_ALPHA).map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    for (i, (o, c)) in ours.iter().zip(ciw).enumerate() {
        let (n, m) = (o.samples.len() as f64, c.samples.len() as f64);
        let d = ks_two_sample(&o.samples, &c.samples);
        let crit = c_alpha * ((n + m) / (n * m)).sqrt();
        out.push(Outcome::within(
            &format!("ciw/{}/class{i} simulator KS", s.name),
            d,
            crit,
            format!("two-sample KS D {d:.4}: {n} of our samples vs {m} Ciw {version} samples"),
            format!("D <= {crit:.4} (alpha {KS_ALPHA})"),
        ));
        let co = ConfidenceInterval::of_samples(&o.replication_means, CI_LEVEL)
            .map_err(|e| e.to_string())?;
        let cc = ConfidenceInterval::of_samples(&c.replication_means, CI_LEVEL)
            .map_err(|e| e.to_string())?;
        let gap = (co.mean - cc.mean).abs();
        let allowed = co.half_width.hypot(cc.half_width);
        out.push(Outcome::within(
            &format!("ciw/{}/class{i} simulator mean", s.name),
            gap,
            allowed,
            format!(
                "ours {:.4} +- {:.4}, Ciw {:.4} +- {:.4} ({} replications each)",
                co.mean, co.half_width, cc.mean, cc.half_width, REPLICATIONS
            ),
            format!("|diff| <= {allowed:.4} (99% CI of the difference)"),
        ));
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
        out.extend(simulator(s, classes, &version)?);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_sample_ks_known_values() {
        assert_eq!(ks_two_sample(&[1.0, 2.0], &[1.0, 2.0]), 0.0);
        assert_eq!(ks_two_sample(&[1.0, 2.0], &[3.0, 4.0]), 1.0);
        // F_a jumps to 1/2 at 1 while F_b is still 0; at 2 both are ... 1 and 1/2.
        assert_eq!(ks_two_sample(&[1.0, 2.0], &[2.0, 3.0]), 0.5);
    }
}
