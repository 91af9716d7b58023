//! `slarm.overbook`: the online overbooking planner of slarm-overbook (Birkenheuer 2012,
//! §3.1 negotiation, §3.3 planning, §3.6 strategies).

use std::sync::Mutex;

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use slarm_overbook::acceptance::TestSpec;
use slarm_overbook::classes::{ClassRegistry, RegistryConfig, StatsSource};
use slarm_overbook::job::SlaJob;
use slarm_overbook::planner::{
    JobKey, Offer as RustOffer, OnlinePlanner as RustPlanner, PlanEvent,
};
use slarm_overbook::sim::BatteryConfig;
use slarm_overbook::strategy::Strategy;

use crate::error::value_error;

/// A placement the planner could give a job; committed only by `OnlinePlanner.accept`.
#[pyclass(module = "slarm.overbook", frozen)]
pub(crate) struct Offer {
    offer: Mutex<Option<RustOffer>>,
    /// Job number.
    #[pyo3(get)]
    job_id: u64,
    /// Planned start (s).
    #[pyo3(get)]
    start: i64,
    /// Slot end: the job is killed here (s).
    #[pyo3(get)]
    slot_end: i64,
    /// Allotted runtime `min(estimate, slot length)` (s).
    #[pyo3(get)]
    allotted: i64,
    /// Concrete nodes (comprehensive strategies only).
    #[pyo3(get)]
    nodes: Option<Vec<usize>>,
    /// Probability of failure of the placement.
    #[pyo3(get)]
    pof: f64,
    /// True when the slot is shorter than the estimate.
    #[pyo3(get)]
    overbooked: bool,
    /// Fee earned on success.
    #[pyo3(get)]
    fee: f64,
    /// Penalty paid on failure.
    #[pyo3(get)]
    penalty: f64,
}

#[pymethods]
impl Offer {
    /// The offer's fields as a dict.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("job_id", self.job_id)?;
        d.set_item("start", self.start)?;
        d.set_item("slot_end", self.slot_end)?;
        d.set_item("allotted", self.allotted)?;
        d.set_item("nodes", self.nodes.clone())?;
        d.set_item("pof", self.pof)?;
        d.set_item("overbooked", self.overbooked)?;
        d.set_item("fee", self.fee)?;
        d.set_item("penalty", self.penalty)?;
        Ok(d)
    }
    fn __repr__(&self) -> String {
        format!(
            "Offer(job_id={}, start={}, allotted={}, pof={}, overbooked={})",
            self.job_id, self.start, self.allotted, self.pof, self.overbooked
        )
    }
}

impl Offer {
    fn take(&self) -> PyResult<RustOffer> {
        self.offer
            .lock()
            .ok()
            .and_then(|mut o| o.take())
            .ok_or_else(|| PyRuntimeError::new_err("this offer was already accepted or rejected"))
    }
}

/// The online planner of one cluster: learn runtime statistics from history, then offer,
/// accept or reject jobs and report what happens on the machine.
#[pyclass(module = "slarm.overbook")]
pub(crate) struct OnlinePlanner {
    planner: RustPlanner<'static>,
}

#[allow(clippy::too_many_arguments)]
fn job(
    id: u64,
    now: i64,
    estimate: i64,
    runtime: i64,
    nodes: usize,
    penalty_ratio: f64,
    user: Option<i64>,
    app: Option<i64>,
) -> PyResult<SlaJob> {
    let mut j =
        SlaJob::with_sla(id, now, estimate, runtime, nodes, penalty_ratio).map_err(value_error)?;
    j.user = user;
    j.app = app;
    Ok(j)
}

#[pymethods]
impl OnlinePlanner {
    /// A planner for `nodes` nodes whose runtime statistics are learned from history given as
    /// columns (estimates and real run times in seconds, optionally nodes, users and
    /// applications); `strategy` is comp-backfill, heur-plan, comp-overbook or heur-overbook,
    /// `test` is `pof:P` or `risk:R`, `stats` the class attribute (runtime, resources, user,
    /// application or all).
    #[new]
    #[pyo3(signature = (nodes, history_estimate, history_runtime, history_nodes = None, history_user = None, history_app = None, strategy = "heur-overbook", test = "pof:0.5", stats = "runtime", min_samples = None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        nodes: usize,
        history_estimate: Vec<i64>,
        history_runtime: Vec<i64>,
        history_nodes: Option<Vec<usize>>,
        history_user: Option<Vec<i64>>,
        history_app: Option<Vec<i64>>,
        strategy: &str,
        test: &str,
        stats: &str,
        min_samples: Option<usize>,
    ) -> PyResult<Self> {
        let n = history_estimate.len();
        let same = |l: Option<usize>| l.is_none_or(|l| l == n);
        if history_runtime.len() != n
            || !same(history_nodes.as_ref().map(Vec::len))
            || !same(history_user.as_ref().map(Vec::len))
            || !same(history_app.as_ref().map(Vec::len))
        {
            return Err(value_error("the history columns need one value per job"));
        }
        let strategy = strategy.parse::<Strategy>().map_err(value_error)?;
        let test = test.parse::<TestSpec>().map_err(value_error)?;
        let mut config = RegistryConfig {
            source: stats.parse::<StatsSource>().map_err(value_error)?,
            ..RegistryConfig::default()
        };
        if let Some(m) = min_samples {
            config.min_samples = m;
        }
        let training = (0..n)
            .map(|i| {
                job(
                    i as u64,
                    0,
                    history_estimate[i],
                    history_runtime[i],
                    history_nodes.as_ref().map_or(1, |v| v[i]),
                    1.0,
                    history_user.as_ref().map(|v| v[i]),
                    history_app.as_ref().map(|v| v[i]),
                )
                .map_err(|e| value_error(format!("history job {i}: {e}")))
            })
            .collect::<PyResult<Vec<SlaJob>>>()?;
        let planner = py.detach(|| {
            let registry = ClassRegistry::learn(&training, config)?;
            RustPlanner::owning(nodes, registry, BatteryConfig::new(strategy, test))
        });
        Ok(Self {
            planner: planner.map_err(value_error)?,
        })
    }

    /// The planner's clock (the time of the last update or acceptance).
    #[getter]
    fn now(&self) -> i64 {
        self.planner.now()
    }

    /// Number of nodes.
    #[getter]
    fn nodes(&self) -> usize {
        self.planner.cluster()
    }

    /// The strategy's name.
    #[getter]
    fn strategy(&self) -> &'static str {
        self.planner.strategy().name()
    }

    /// What the planner could promise a job arriving at `now` (deadline `now + 2 estimate`,
    /// fee `nodes x estimate` node-hours, penalty `penalty_ratio x fee`), without committing.
    #[pyo3(signature = (job_id, now, estimate, nodes, penalty_ratio = 1.0, user = None, app = None))]
    #[allow(clippy::too_many_arguments)]
    fn offer(
        &self,
        py: Python<'_>,
        job_id: u64,
        now: i64,
        estimate: i64,
        nodes: usize,
        penalty_ratio: f64,
        user: Option<i64>,
        app: Option<i64>,
    ) -> PyResult<Offer> {
        let j = job(job_id, now, estimate, 0, nodes, penalty_ratio, user, app)?;
        let o = py
            .detach(|| self.planner.offer(&j, now))
            .map_err(value_error)?;
        let r = o.reservation();
        Ok(Offer {
            job_id,
            start: r.start,
            slot_end: r.slot_end,
            allotted: r.allotted,
            nodes: r.nodes.clone(),
            pof: r.pof,
            overbooked: r.overbooked,
            fee: o.fee(),
            penalty: o.penalty(),
            offer: Mutex::new(Some(o)),
        })
    }

    /// Commits an offer; returns the job's key (acceptance order from 0). Fails when the plan
    /// changed since the offer was made.
    fn accept(&mut self, offer: &Bound<'_, Offer>) -> PyResult<usize> {
        let o = offer.get().take()?;
        self.planner
            .accept(o)
            .map(JobKey::index)
            .map_err(value_error)
    }

    /// Declines an offer (nothing changes in the plan).
    fn reject(&self, offer: &Bound<'_, Offer>) -> PyResult<()> {
        let o = offer.get().take()?;
        self.planner.reject(o).map_err(value_error)
    }

    /// Advances to `now` and applies machine events, each a pair `(kind, value)`:
    /// `("finished", key)`, `("killed", key)`, `("node-failed", node)` or
    /// `("node-repaired", node)`.
    #[pyo3(signature = (now, events = Vec::new()))]
    fn update(&mut self, now: i64, events: Vec<(String, usize)>) -> PyResult<()> {
        let keys: Vec<JobKey> = self.planner.jobs().map(|e| e.key).collect();
        let key = |k: usize| {
            keys.get(k)
                .copied()
                .ok_or_else(|| value_error(format!("no accepted job has key {k}")))
        };
        let events = events
            .iter()
            .map(|(kind, v)| {
                Ok(match kind.as_str() {
                    "finished" => PlanEvent::Finished(key(*v)?),
                    "killed" => PlanEvent::Killed(key(*v)?),
                    "node-failed" => PlanEvent::NodeFailed(*v),
                    "node-repaired" => PlanEvent::NodeRepaired(*v),
                    other => {
                        return Err(value_error(format!(
                            "unknown event {other:?} (expected finished, killed, node-failed or node-repaired)"
                        )))
                    }
                })
            })
            .collect::<PyResult<Vec<PlanEvent>>>()?;
        self.planner.update(now, &events).map_err(value_error)
    }

    /// The accepted jobs: key, job number, state, start, slot end, nodes, overbooked, PoF.
    fn jobs<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyDict>>> {
        self.planner
            .jobs()
            .map(|e| {
                let d = PyDict::new(py);
                d.set_item("key", e.key.index())?;
                d.set_item("job_id", e.job.id)?;
                d.set_item("state", format!("{:?}", e.state).to_lowercase())?;
                d.set_item("start", e.start)?;
                d.set_item("slot_end", e.slot_end)?;
                d.set_item("nodes", e.nodes.to_vec())?;
                d.set_item("overbooked", e.overbooked)?;
                d.set_item("pof", e.pof)?;
                Ok(d)
            })
            .collect()
    }
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Offer>()?;
    m.add_class::<OnlinePlanner>()?;
    Ok(())
}
