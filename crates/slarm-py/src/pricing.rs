//! `slarm.pricing`: a live time-shared cluster under Libra or Libra+$ (Yeo & Buyya, §VI):
//! quotes, submissions (Algorithm 1), advancing time (Algorithm 2) and job outcomes.

use pyo3::prelude::*;
use pyo3::types::PyDict;
use slarm_pricing::admission::Decision;
use slarm_pricing::metrics::Outcome;
use slarm_pricing::online::Cluster as RustCluster;
use slarm_pricing::pricing::{FixedRate, LibraPlusDollar, LibraStatic, PricingPolicy};
use slarm_pricing::scenario::Settings;
use slarm_pricing::spec::{JobSpec, QosJob, UrgencyClass};
use slarm_pricing::timeshare::TimeSharedConfig;

use crate::error::value_error;

/// A time-shared cluster run by Libra's admission control (Algorithm 1) and job control
/// (Algorithm 2) with a pricing policy.
#[pyclass(module = "slarm.pricing")]
pub(crate) struct Cluster {
    c: RustCluster<Box<dyn PricingPolicy>>,
}

#[allow(clippy::too_many_arguments)]
fn job(
    job_id: u64,
    now: f64,
    estimate: f64,
    procs: u32,
    deadline: f64,
    budget: f64,
    runtime: Option<f64>,
    urgency: &str,
) -> PyResult<QosJob> {
    let urgency = match urgency {
        "high" => UrgencyClass::High,
        "low" => UrgencyClass::Low,
        other => {
            return Err(value_error(format!(
                "urgency must be \"high\" or \"low\", got {other:?}"
            )))
        }
    };
    let spec = JobSpec::simple(job_id, estimate, procs, deadline, budget).map_err(value_error)?;
    QosJob::new(spec, now, runtime.unwrap_or(estimate), urgency).map_err(value_error)
}

fn decision<'py>(py: Python<'py>, d: &Decision) -> PyResult<Bound<'py, PyDict>> {
    let out = PyDict::new(py);
    match d {
        Decision::Accept { nodes, cost } => {
            out.set_item("accepted", true)?;
            out.set_item("nodes", nodes.clone())?;
            out.set_item("cost", *cost)?;
            out.set_item("reason", py.None())?;
        }
        Decision::Reject(r) => {
            out.set_item("accepted", false)?;
            out.set_item("nodes", Vec::<usize>::new())?;
            out.set_item("cost", py.None())?;
            out.set_item("reason", r.name())?;
        }
    }
    Ok(out)
}

#[pymethods]
impl Cluster {
    /// `nodes` homogeneous nodes of `rating` (the reference rating) priced by `policy`:
    /// `"libra+$"` (dynamic pricing with `alpha`, `beta`, `pbase`), `"libra"` (static
    /// `gamma`, `delta`) or `"fixed"` (`pbase` per second of estimate). Unset parameters take
    /// the evaluation's defaults (Yeo & Buyya, Table I).
    #[new]
    #[pyo3(signature = (nodes, rating = None, policy = "libra+$", alpha = None, beta = None, gamma = None, delta = None, pbase = None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        nodes: usize,
        rating: Option<f64>,
        policy: &str,
        alpha: Option<f64>,
        beta: Option<f64>,
        gamma: Option<f64>,
        delta: Option<f64>,
        pbase: Option<f64>,
    ) -> PyResult<Self> {
        let s = Settings::table_i();
        let pbase = pbase.unwrap_or(s.qos.pbase());
        let pricing: Box<dyn PricingPolicy> = match policy {
            "libra+$" | "libra-plus" => Box::new(
                LibraPlusDollar::new(alpha.unwrap_or(s.alpha), beta.unwrap_or(s.beta), pbase)
                    .map_err(value_error)?,
            ),
            "libra" => Box::new(
                LibraStatic::new(gamma.unwrap_or(s.gamma), delta.unwrap_or(s.delta))
                    .map_err(value_error)?,
            ),
            "fixed" => Box::new(FixedRate::new(pbase).map_err(value_error)?),
            other => {
                return Err(value_error(format!(
                    "unknown pricing policy {other:?} (expected libra+$, libra or fixed)"
                )))
            }
        };
        let cfg = TimeSharedConfig::homogeneous(nodes, rating.unwrap_or(s.rating))
            .map_err(value_error)?;
        Ok(Self {
            c: RustCluster::new(&cfg, pricing).map_err(value_error)?,
        })
    }

    /// The time the cluster has been advanced to.
    #[getter]
    fn clock(&self) -> f64 {
        self.c.clock()
    }
    /// Jobs submitted so far (their indices are 0..submitted).
    #[getter]
    fn submitted(&self) -> usize {
        self.c.submitted()
    }
    /// Accepted jobs still running.
    #[getter]
    fn running(&self) -> usize {
        self.c.running()
    }
    /// The pricing policy's name.
    #[getter]
    fn policy(&self) -> &'static str {
        self.c.pricing().name()
    }

    /// What `submit` would decide for the job at `now`, and its price, without changing
    /// the cluster: a dict with `accepted`, `nodes`, `cost`, `reason`, `price` (the cost if
    /// accepted; for a job turned away by its budget the least budget that would be
    /// accepted; else None) and `min_budget`.
    #[pyo3(signature = (job_id, now, estimate, procs, deadline, budget, runtime = None, urgency = "low"))]
    #[allow(clippy::too_many_arguments)]
    fn quote<'py>(
        &self,
        py: Python<'py>,
        job_id: u64,
        now: f64,
        estimate: f64,
        procs: u32,
        deadline: f64,
        budget: f64,
        runtime: Option<f64>,
        urgency: &str,
    ) -> PyResult<Bound<'py, PyDict>> {
        let j = job(
            job_id, now, estimate, procs, deadline, budget, runtime, urgency,
        )?;
        let q = py.detach(|| self.c.quote(&j, now)).map_err(value_error)?;
        let d = decision(py, &q.decision)?;
        d.set_item("price", q.price())?;
        d.set_item("min_budget", q.min_budget)?;
        Ok(d)
    }

    /// Advances to `now` (the job's arrival) and runs admission control; an accepted job
    /// starts at once. Returns the decision (`accepted`, `nodes`, `cost`, `reason`) and the
    /// job's `index` (submission order).
    #[pyo3(signature = (job_id, now, estimate, procs, deadline, budget, runtime = None, urgency = "low"))]
    #[allow(clippy::too_many_arguments)]
    fn submit<'py>(
        &mut self,
        py: Python<'py>,
        job_id: u64,
        now: f64,
        estimate: f64,
        procs: u32,
        deadline: f64,
        budget: f64,
        runtime: Option<f64>,
        urgency: &str,
    ) -> PyResult<Bound<'py, PyDict>> {
        let j = job(
            job_id, now, estimate, procs, deadline, budget, runtime, urgency,
        )?;
        let index = self.c.submitted();
        let dec = self.c.submit(&j, now).map_err(value_error)?;
        let d = decision(py, &dec)?;
        d.set_item("index", index)?;
        Ok(d)
    }

    /// Runs the nodes' own events up to time `t` (completions, deadlines, control ticks).
    fn advance_to(&mut self, py: Python<'_>, t: f64) -> PyResult<()> {
        let c = &mut self.c;
        py.detach(|| c.advance_to(t)).map_err(value_error)
    }

    /// Runs every accepted job to its end (no submissions in between).
    fn run_to_completion(&mut self, py: Python<'_>) {
        let c = &mut self.c;
        py.detach(|| c.run_to_completion());
    }

    /// The outcome of job `index` once known (None before): a dict with `kind`
    /// (`rejected`, `completed` or `killed`) and its fields.
    fn outcome<'py>(&self, py: Python<'py>, index: usize) -> PyResult<Option<Bound<'py, PyDict>>> {
        if index >= self.c.submitted() {
            return Err(value_error(format!(
                "no job {index}: {} submitted",
                self.c.submitted()
            )));
        }
        let Some(o) = self.c.outcome(index) else {
            return Ok(None);
        };
        let d = PyDict::new(py);
        match *o {
            Outcome::Rejected(r) => {
                d.set_item("kind", "rejected")?;
                d.set_item("reason", r.name())?;
            }
            Outcome::Completed {
                start,
                finish,
                cost,
            } => {
                d.set_item("kind", "completed")?;
                d.set_item("start", start)?;
                d.set_item("finish", finish)?;
                d.set_item("cost", cost)?;
            }
            Outcome::Killed { start, end } => {
                d.set_item("kind", "killed")?;
                d.set_item("start", start)?;
                d.set_item("end", end)?;
            }
        }
        Ok(Some(d))
    }
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Cluster>()?;
    Ok(())
}
