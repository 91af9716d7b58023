//! `slarm.sim`: SWF traces (slarm-workload), the trace-driven batch simulator under a
//! built-in or a Python-defined policy, and a step-wise simulation whose decisions are made
//! by the caller (slarm-sim).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::{Arc, Mutex};

use numpy::PyArray1;
use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};
use slarm_sim::batch::{
    parallel_parts, simulate_in_parts, simulate_with, QueueOrder, Schedule as RustSchedule,
};
use slarm_sim::batsim::{assign_processors, write_batsim_jobs, IntervalSet};
use slarm_sim::metrics::{Metrics, DEFAULT_TAU_S};
use slarm_sim::policy::{
    BuiltinPolicy, Candidate, MachineState as RustMachine, PassOutcome, SchedulingPolicy,
};
use slarm_sim::SimError;
use slarm_workload::reader::{read_trace, ReadOptions};
use slarm_workload::sacct::{read_sacct as read_sacct_trace, SacctOptions};
use slarm_workload::{Job, Workload, WorkloadError};

use crate::error::value_error;

/// A cleaned SWF trace (the drop rules applied, jobs in queue order).
#[pyclass(module = "slarm.sim", frozen)]
pub(crate) struct Trace {
    pub(crate) w: Arc<Workload>,
    /// A Slurm log's jobs that never ran to an end, by state (empty for other traces).
    not_run: BTreeMap<String, u64>,
}

fn workload_error(e: WorkloadError) -> PyErr {
    match e {
        WorkloadError::Io { .. } => pyo3::exceptions::PyOSError::new_err(e.to_string()),
        other => value_error(other),
    }
}

fn col<'py, T: numpy::Element>(
    py: Python<'py>,
    jobs: &slarm_workload::JobTable,
    f: impl Fn(&Job) -> T,
) -> Bound<'py, PyArray1<T>> {
    PyArray1::from_vec(py, jobs.iter().map(|j| f(&j)).collect())
}

#[pymethods]
impl Trace {
    /// A trace from columns: job numbers, submit times, run times, processors and
    /// estimates (requested times; 0 or negative means none), cleaned for a machine of
    /// `machine_procs` processors by the same drop rules as `read_swf`.
    #[staticmethod]
    #[pyo3(signature = (job_id, submit, runtime, procs, estimate, machine_procs, name = "arrays".to_string()))]
    #[allow(clippy::too_many_arguments)]
    fn from_jobs(
        job_id: Vec<u64>,
        submit: Vec<f64>,
        runtime: Vec<f64>,
        procs: Vec<i64>,
        estimate: Vec<f64>,
        machine_procs: u32,
        name: String,
    ) -> PyResult<Self> {
        let n = job_id.len();
        if [submit.len(), runtime.len(), procs.len(), estimate.len()]
            .iter()
            .any(|&l| l != n)
        {
            return Err(value_error(
                "job_id, submit, runtime, procs and estimate need one value per job",
            ));
        }
        let jobs = (0..n)
            .map(|i| Job::new(job_id[i], submit[i], runtime[i], procs[i], estimate[i]))
            .collect();
        let w = Workload::from_jobs(&name, jobs, machine_procs).map_err(workload_error)?;
        Ok(Self {
            w: Arc::new(w),
            not_run: BTreeMap::new(),
        })
    }

    /// Number of jobs after cleaning.
    fn __len__(&self) -> usize {
        self.w.jobs.len()
    }
    fn __repr__(&self) -> String {
        format!(
            "Trace(name={:?}, jobs={}, machine_procs={}, dropped={})",
            self.w.name,
            self.w.jobs.len(),
            self.w.machine_procs,
            self.w.dropped.total()
        )
    }
    /// File name (or the label given to `from_jobs`).
    #[getter]
    fn name(&self) -> String {
        self.w.name.clone()
    }
    /// Machine size in processors.
    #[getter]
    fn machine_procs(&self) -> u32 {
        self.w.machine_procs
    }
    /// Jobs removed by the drop rules, by reason (and their total).
    #[getter]
    fn dropped<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        let c = self.w.dropped;
        d.set_item("runtime_nonpositive", c.runtime_nonpositive)?;
        d.set_item("procs_nonpositive", c.procs_nonpositive)?;
        d.set_item("procs_exceed_machine", c.procs_exceed_machine)?;
        d.set_item("total", c.total())?;
        Ok(d)
    }
    /// A Slurm log's jobs that never ran to an end, by state in lower case (`cancelled`,
    /// `pending`, `running`, ...): kept by the reader with no run time, then dropped by the
    /// drop rules (counted in `dropped` as `runtime_nonpositive`). Empty for other traces.
    #[getter]
    fn not_run<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for (state, n) in &self.not_run {
            d.set_item(state, n)?;
        }
        Ok(d)
    }
    /// Malformed lines skipped in lenient mode.
    #[getter]
    fn skipped_lines(&self) -> u64 {
        self.w.skipped_lines
    }
    /// True for a generated (synthetic) workload.
    #[getter]
    fn synthetic(&self) -> bool {
        self.w.synthetic
    }
    /// Job numbers (SWF field 1).
    #[getter]
    fn job_id<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<u64>> {
        col(py, &self.w.jobs, |j| j.id)
    }
    /// Submit times in seconds.
    #[getter]
    fn submit<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        col(py, &self.w.jobs, |j| j.submit)
    }
    /// Run times in seconds.
    #[getter]
    fn runtime<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        col(py, &self.w.jobs, |j| j.runtime)
    }
    /// Processors (requested, else allocated).
    #[getter]
    fn procs<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<i64>> {
        col(py, &self.w.jobs, Job::procs)
    }
    /// Runtime estimates (requested time, else the run time).
    #[getter]
    fn estimate<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        col(py, &self.w.jobs, Job::estimate)
    }
    /// Wait times recorded in the log (-1 when missing).
    #[getter]
    fn wait<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        col(py, &self.w.jobs, |j| j.wait)
    }
    /// User numbers (-1 when missing).
    #[getter]
    fn user<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<i64>> {
        col(py, &self.w.jobs, |j| j.user)
    }
    /// Job status (SWF field 11).
    #[getter]
    fn status<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<i64>> {
        col(py, &self.w.jobs, |j| j.status)
    }
    /// The columns as a dict of arrays (`pandas.DataFrame(trace.to_dict())`).
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("job_id", self.job_id(py))?;
        d.set_item("submit", self.submit(py))?;
        d.set_item("runtime", self.runtime(py))?;
        d.set_item("procs", self.procs(py))?;
        d.set_item("estimate", self.estimate(py))?;
        d.set_item("wait", self.wait(py))?;
        d.set_item("user", self.user(py))?;
        d.set_item("status", self.status(py))?;
        Ok(d)
    }
}

/// Reads an SWF trace (plain or gzip) and cleans it.
#[pyfunction]
#[pyo3(signature = (path, lenient = false, procs = None))]
fn read_swf(py: Python<'_>, path: PathBuf, lenient: bool, procs: Option<u32>) -> PyResult<Trace> {
    if procs == Some(0) {
        return Err(value_error("procs must be at least 1"));
    }
    let w = py.detach(|| {
        let t = read_trace(&path, ReadOptions { lenient })?;
        Workload::from_trace(t, procs)
    });
    Ok(Trace {
        w: Arc::new(w.map_err(workload_error)?),
        not_run: BTreeMap::new(),
    })
}

/// Reads Slurm accounting records (`sacct -P` output, plain or gzip) and cleans them, as the
/// command line's `--format sacct` does.
#[pyfunction]
#[pyo3(signature = (path, tz = "UTC", lenient = false, procs = None))]
fn read_sacct(
    py: Python<'_>,
    path: PathBuf,
    tz: &str,
    lenient: bool,
    procs: Option<u32>,
) -> PyResult<Trace> {
    if procs == Some(0) {
        return Err(value_error("procs must be at least 1"));
    }
    let options = SacctOptions {
        read: ReadOptions { lenient },
        time_zone: tz.to_string(),
        procs,
    };
    let (w, not_run) = py
        .detach(|| {
            let s = read_sacct_trace(&path, &options)?;
            Ok((Workload::from_trace(s.trace, procs)?, s.not_run))
        })
        .map_err(workload_error)?;
    Ok(Trace {
        w: Arc::new(w),
        not_run,
    })
}

/// The result of a simulation: one row per started job, in trace order.
#[pyclass(module = "slarm.sim", frozen)]
pub(crate) struct Schedule {
    pub(crate) s: RustSchedule,
    /// The simulated jobs, which the schedule's records index (Batsim's `final_state` asks
    /// whether a job was killed at its estimate).
    w: Arc<Workload>,
}

impl Schedule {
    /// Every record's processors (Batsim's `allocated_resources`).
    fn processors(&self) -> PyResult<Vec<IntervalSet>> {
        assign_processors(&self.s.records, self.s.capacity).map_err(value_error)
    }
}

fn rec_col<'py, T: numpy::Element>(
    py: Python<'py>,
    s: &RustSchedule,
    f: impl Fn(&slarm_sim::batch::JobRecord) -> T,
) -> Bound<'py, PyArray1<T>> {
    PyArray1::from_vec(py, s.records.iter().map(|r| f(&r)).collect())
}

#[pymethods]
impl Schedule {
    fn __len__(&self) -> usize {
        self.s.records.len()
    }
    fn __repr__(&self) -> String {
        format!(
            "Schedule(policy={:?}, jobs={}, capacity={})",
            self.s.policy,
            self.s.records.len(),
            self.s.capacity
        )
    }
    /// Name of the policy that made the schedule.
    #[getter]
    fn policy(&self) -> String {
        self.s.policy.clone()
    }
    /// Machine size in processors.
    #[getter]
    fn capacity(&self) -> u32 {
        self.s.capacity
    }
    /// Job numbers.
    #[getter]
    fn job_id<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<u64>> {
        rec_col(py, &self.s, |r| r.id)
    }
    /// Submit times.
    #[getter]
    fn submit<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        rec_col(py, &self.s, |r| r.submit)
    }
    /// Start times.
    #[getter]
    fn start<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        rec_col(py, &self.s, |r| r.start)
    }
    /// End times (start + min(run time, estimate)).
    #[getter]
    fn end<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        rec_col(py, &self.s, |r| r.end)
    }
    /// Processors used.
    #[getter]
    fn procs<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<i64>> {
        rec_col(py, &self.s, |r| i64::from(r.procs))
    }
    /// The runtime estimates the scheduler used.
    #[getter]
    fn estimate<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        rec_col(py, &self.s, |r| r.estimate)
    }
    /// First reservation each job got (NaN if none).
    #[getter]
    fn reservation<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        rec_col(py, &self.s, |r| r.reservation.unwrap_or(f64::NAN))
    }
    /// The columns `job_id, submit, start, end, procs` as a dict of arrays
    /// (`pandas.DataFrame(schedule.to_dict())`; the columns of `slarm simulate
    /// --schedule-out`).
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("job_id", self.job_id(py))?;
        d.set_item("submit", self.submit(py))?;
        d.set_item("start", self.start(py))?;
        d.set_item("end", self.end(py))?;
        d.set_item("procs", self.procs(py))?;
        Ok(d)
    }
    /// Each job's processors `0..capacity` as Batsim's interval sets (`"0-3 8"`): at each
    /// instant the ending jobs release theirs first, then the starting jobs take the
    /// lowest-numbered free ones, in row order. No processor serves two jobs at once.
    #[getter]
    fn allocated_resources(&self, py: Python<'_>) -> PyResult<Vec<String>> {
        let sets = py.detach(|| self.processors())?;
        Ok(sets.iter().map(IntervalSet::to_string).collect())
    }
    /// Writes Batsim's `jobs.csv` (the file evalys reads: `JobSet.from_csv(path)`), byte for
    /// byte the file of `slarm simulate --schedule-format batsim --schedule-out`, the
    /// workload named `workload`. The file is written beside `path` and renamed over it at
    /// the end, so an error leaves an existing file as it was.
    #[pyo3(signature = (path, workload = "w0"))]
    fn write_batsim(&self, py: Python<'_>, path: PathBuf, workload: &str) -> PyResult<()> {
        py.detach(|| {
            let sets = self.processors()?;
            let os_error = |e: std::io::Error| {
                pyo3::exceptions::PyOSError::new_err(format!("{}: {e}", path.display()))
            };
            let dir = match path.parent() {
                Some(d) if !d.as_os_str().is_empty() => d,
                _ => std::path::Path::new("."),
            };
            let mut builder = tempfile::Builder::new();
            // The mode of a file Python's `open` creates (0666 less the umask), not 0600.
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                builder.permissions(std::fs::Permissions::from_mode(0o666));
            }
            let mut tmp = builder.tempfile_in(dir).map_err(os_error)?;
            write_batsim_jobs(
                &self.s.records,
                &self.w.jobs,
                &sets,
                workload,
                tmp.as_file_mut(),
            )
            .map_err(os_error)?;
            tmp.as_file().sync_all().map_err(os_error)?;
            tmp.persist(&path).map_err(|e| os_error(e.error))?;
            Ok(())
        })
    }
    /// Wait, response, bounded slowdown (threshold `tau` seconds), utilisation and makespan,
    /// with the keys of `slarm simulate --json`.
    #[pyo3(signature = (tau = DEFAULT_TAU_S))]
    fn metrics<'py>(&self, py: Python<'py>, tau: f64) -> PyResult<Bound<'py, PyDict>> {
        if !(tau.is_finite() && tau > 0.0) {
            return Err(value_error(format!(
                "tau must be a positive finite number of seconds, got {tau}"
            )));
        }
        let m = Metrics::of(&self.s, tau);
        let d = PyDict::new(py);
        d.set_item("jobs", m.jobs)?;
        d.set_item("mean_wait_s", m.mean_wait_s)?;
        d.set_item("max_wait_s", m.max_wait_s)?;
        d.set_item("mean_response_s", m.mean_response_s)?;
        d.set_item("mean_bounded_slowdown", m.mean_bounded_slowdown)?;
        d.set_item("tau_s", m.tau_s)?;
        d.set_item("utilization", m.utilization)?;
        d.set_item("makespan_s", m.makespan_s)?;
        Ok(d)
    }
}

/// What a policy sees of the machine at a scheduling pass.
#[pyclass(module = "slarm.sim", frozen)]
pub(crate) struct MachineState {
    /// The current time.
    #[pyo3(get)]
    now: f64,
    /// Processors free now.
    #[pyo3(get)]
    free: u32,
    /// Machine size.
    #[pyo3(get)]
    capacity: u32,
    running: Vec<(f64, usize, u32)>,
}

impl MachineState {
    fn of(m: &RustMachine<'_>) -> Self {
        Self {
            now: m.now,
            free: m.free,
            capacity: m.capacity,
            running: m.running.iter().collect(),
        }
    }
}

#[pymethods]
impl MachineState {
    /// Predicted ends (start + estimate) of the running jobs, ascending.
    #[getter]
    fn running_end<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        PyArray1::from_vec(py, self.running.iter().map(|r| r.0).collect())
    }
    /// Keys (indices into the trace's jobs) of the running jobs, in the same order.
    #[getter]
    fn running_key<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<i64>> {
        PyArray1::from_vec(py, self.running.iter().map(|r| r.1 as i64).collect())
    }
    /// Processors of the running jobs, in the same order.
    #[getter]
    fn running_procs<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<i64>> {
        PyArray1::from_vec(py, self.running.iter().map(|r| i64::from(r.2)).collect())
    }
    fn __repr__(&self) -> String {
        format!(
            "MachineState(now={}, free={}, capacity={}, running={})",
            self.now,
            self.free,
            self.capacity,
            self.running.len()
        )
    }
}

/// The waiting queue at a pass, in priority (FCFS) order; positions index it.
#[pyclass(module = "slarm.sim", frozen)]
pub(crate) struct Queue {
    jobs: Vec<Candidate>,
}

#[pymethods]
impl Queue {
    fn __len__(&self) -> usize {
        self.jobs.len()
    }
    /// Keys of the queued jobs (indices into the trace's jobs: `trace.submit[key]`).
    #[getter]
    fn key<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<i64>> {
        PyArray1::from_vec(py, self.jobs.iter().map(|c| c.key as i64).collect())
    }
    /// Processors of the queued jobs.
    #[getter]
    fn procs<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<i64>> {
        PyArray1::from_vec(py, self.jobs.iter().map(|c| i64::from(c.procs)).collect())
    }
    /// Runtime estimates of the queued jobs.
    #[getter]
    fn estimate<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        PyArray1::from_vec(py, self.jobs.iter().map(|c| c.estimate).collect())
    }
    /// The job at `pos` as a `(key, procs, estimate)` tuple (negative positions count from
    /// the end).
    fn __getitem__(&self, pos: isize) -> PyResult<(usize, u32, f64)> {
        let n = self.jobs.len() as isize;
        let i = if pos < 0 { pos + n } else { pos };
        if !(0..n).contains(&i) {
            return Err(pyo3::exceptions::PyIndexError::new_err(format!(
                "queue position {pos} out of range for a queue of {n}"
            )));
        }
        let c = self.jobs[i as usize];
        Ok((c.key, c.procs, c.estimate))
    }
    /// Iterates over `(key, procs, estimate)` tuples, built one at a time (a policy that
    /// stops early pays only for what it reads).
    fn __iter__(slf: Bound<'_, Self>) -> QueueIter {
        QueueIter {
            queue: slf.unbind(),
            next: std::sync::atomic::AtomicUsize::new(0),
        }
    }
    /// The queue as a list of `(key, procs, estimate)` tuples.
    fn tolist(&self) -> Vec<(usize, u32, f64)> {
        self.jobs
            .iter()
            .map(|c| (c.key, c.procs, c.estimate))
            .collect()
    }
    fn __repr__(&self) -> String {
        format!("Queue(len={})", self.jobs.len())
    }
}

/// Iterator over a [`Queue`].
#[pyclass(module = "slarm.sim", frozen)]
pub(crate) struct QueueIter {
    queue: Py<Queue>,
    next: std::sync::atomic::AtomicUsize,
}

#[pymethods]
impl QueueIter {
    fn __iter__(slf: Bound<'_, Self>) -> Bound<'_, Self> {
        slf
    }
    fn __next__(&self, py: Python<'_>) -> Option<(usize, u32, f64)> {
        let i = self.next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let c = self.queue.bind(py).get().jobs.get(i).copied()?;
        Some((c.key, c.procs, c.estimate))
    }
}

/// Most passes a Python policy may ask for per job (plus a fixed allowance) before the run
/// is stopped: a policy that keeps asking for wake-ups without starting anything cannot hang
/// the interpreter.
const PASSES_PER_JOB: u64 = 1_000;
const PASSES_EXTRA: u64 = 100_000;

/// A Python object as a [`SchedulingPolicy`]: `schedule(machine, queue)` is required;
/// `begin(capacity, origin)`, `on_arrival(now, job)` and `on_finish(now, job,
/// predicted_end)` are called when present. Its Python exception is kept and re-raised.
struct PyPolicy<'py> {
    obj: Bound<'py, PyAny>,
    name: String,
    begin: bool,
    on_arrival: bool,
    on_finish: bool,
    error: Option<PyErr>,
    passes: u64,
    max_passes: u64,
}

/// The simulator's error for a failure on the Python side (the Python exception is kept).
fn python_failed(what: &'static str) -> SimError {
    SimError::InvalidParameter {
        name: "Python policy",
        value: what.to_string(),
        reason: "the policy failed",
    }
}

impl PyPolicy<'_> {
    fn fail<T>(&mut self, e: PyErr, what: &'static str) -> slarm_sim::Result<T> {
        self.error = Some(e);
        Err(python_failed(what))
    }

    /// Reads a policy's answer: None, a sequence of positions, or a mapping/object with
    /// `start` and optionally `wake`, `head` and `shadow`.
    fn read_outcome(ans: &Bound<'_, PyAny>, out: &mut PassOutcome) -> PyResult<()> {
        if ans.is_none() {
            return Ok(());
        }
        let field = |k: &str| -> PyResult<Option<Bound<'_, PyAny>>> {
            if let Ok(d) = ans.cast::<PyDict>() {
                d.get_item(k)
            } else {
                Ok(None)
            }
        };
        let start = if ans.cast::<PyDict>().is_ok() {
            field("start")?
        } else {
            Some(ans.clone())
        };
        if let Some(s) = start.filter(|s| !s.is_none()) {
            for item in s.try_iter().map_err(|_| {
                PyTypeError::new_err(format!(
                    "a policy's schedule() returns positions (a sequence of ints), a dict with \"start\", or None; got {}",
                    type_name(&s)
                ))
            })? {
                let item = item?;
                let pos: i64 = item.call_method0("__index__").and_then(|v| v.extract()).map_err(|_| {
                    PyTypeError::new_err(format!("a start position must be an int, got {}", type_name(&item)))
                })?;
                let pos = usize::try_from(pos).map_err(|_| {
                    PyValueError::new_err(format!("start position {pos} is negative"))
                })?;
                out.start.push(pos);
            }
        }
        let time = |k: &str| -> PyResult<Option<f64>> {
            match field(k)? {
                Some(v) if !v.is_none() => Ok(Some(v.extract::<f64>()?)),
                _ => Ok(None),
            }
        };
        out.wake = time("wake")?.filter(|w| w.is_finite());
        out.shadow = time("shadow")?.filter(|w| w.is_finite());
        if let Some(h) = field("head")?.filter(|h| !h.is_none()) {
            let h: i64 = h.extract()?;
            out.head = usize::try_from(h).ok();
        }
        Ok(())
    }
}

fn type_name(o: &Bound<'_, PyAny>) -> String {
    o.get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "?".into())
}

fn job_tuple<'py>(py: Python<'py>, c: &Candidate) -> PyResult<Bound<'py, PyTuple>> {
    (c.key, c.procs, c.estimate).into_pyobject(py)
}

impl SchedulingPolicy for PyPolicy<'_> {
    fn name(&self) -> &str {
        &self.name
    }
    fn begin(&mut self, capacity: u32, origin: f64) -> slarm_sim::Result<()> {
        if self.begin {
            if let Err(e) = self.obj.call_method1("begin", (capacity, origin)) {
                return self.fail(e, "begin() raised");
            }
        }
        Ok(())
    }
    fn on_arrival(&mut self, now: f64, job: &Candidate) -> slarm_sim::Result<Option<f64>> {
        if !self.on_arrival {
            return Ok(None);
        }
        let py = self.obj.py();
        let r = job_tuple(py, job)
            .and_then(|t| self.obj.call_method1("on_arrival", (now, t)))
            .and_then(|v| v.extract::<Option<f64>>());
        match r {
            Ok(v) => Ok(v.filter(|t| t.is_finite())),
            Err(e) => self.fail(
                e,
                "on_arrival() raised or returned something else than a float or None",
            ),
        }
    }
    fn on_finish(
        &mut self,
        now: f64,
        job: &Candidate,
        predicted_end: f64,
    ) -> slarm_sim::Result<()> {
        if !self.on_finish {
            return Ok(());
        }
        let py = self.obj.py();
        let r = job_tuple(py, job)
            .and_then(|t| self.obj.call_method1("on_finish", (now, t, predicted_end)));
        match r {
            Ok(_) => Ok(()),
            Err(e) => self.fail(e, "on_finish() raised"),
        }
    }
    fn schedule(
        &mut self,
        machine: &RustMachine<'_>,
        queue: &[Candidate],
        out: &mut PassOutcome,
    ) -> slarm_sim::Result<()> {
        out.clear();
        self.passes += 1;
        if self.passes > self.max_passes {
            let e = PyRuntimeError::new_err(format!(
                "the policy asked for more than {} scheduling passes (wake-ups without progress?)",
                self.max_passes
            ));
            return self.fail(e, "too many passes");
        }
        let py = self.obj.py();
        let r = (|| -> PyResult<()> {
            py.check_signals()?;
            let m = Bound::new(py, MachineState::of(machine))?;
            let q = Bound::new(
                py,
                Queue {
                    jobs: queue.to_vec(),
                },
            )?;
            let ans = self.obj.call_method1("schedule", (m, q))?;
            Self::read_outcome(&ans, out)
        })();
        match r {
            Ok(()) => Ok(()),
            Err(e) => {
                out.clear();
                self.fail(
                    e,
                    "schedule() raised or returned something else than positions",
                )
            }
        }
    }
}

/// Checks a machine size override (`procs`) and returns the size to simulate on.
fn machine_size(w: &Workload, procs: Option<u32>) -> PyResult<u32> {
    match procs {
        Some(0) => Err(value_error("procs must be at least 1")),
        Some(p) => Ok(p),
        None => Ok(w.machine_procs),
    }
}

/// Simulates a trace under a built-in policy (`"fcfs"`, `"easy"`, `"conservative"`,
/// `"backfill:K"`) or a Python object with a `schedule(machine, queue)` method.
#[pyfunction]
#[pyo3(signature = (trace, policy, procs = None))]
fn simulate(
    py: Python<'_>,
    trace: &Bound<'_, Trace>,
    policy: &Bound<'_, PyAny>,
    procs: Option<u32>,
) -> PyResult<Schedule> {
    let w = Arc::clone(&trace.get().w);
    let capacity = machine_size(&w, procs)?;
    if let Ok(name) = policy.extract::<String>() {
        let kind: BuiltinPolicy = name.parse().map_err(value_error)?;
        // Split at idle instants over rayon's threads: the schedule of one run.
        let s = py.detach(|| {
            let parts = parallel_parts(w.jobs.len());
            simulate_in_parts(
                &w.jobs,
                capacity,
                || kind.build(),
                &QueueOrder::Fcfs,
                None,
                parts,
            )
        });
        return Ok(Schedule {
            s: s.map_err(|e| value_error(format!("{}: {e}", w.name)))?,
            w,
        });
    }
    if !policy.hasattr("schedule")? {
        return Err(PyTypeError::new_err(format!(
            "policy must be \"fcfs\", \"easy\", \"conservative\", \"backfill:K\" or an object with a schedule(machine, queue) method; got {}",
            type_name(policy)
        )));
    }
    let name = match policy.getattr("name") {
        Ok(n) if n.is_instance_of::<pyo3::types::PyString>() => n.extract::<String>()?,
        _ => type_name(policy),
    };
    let mut p = PyPolicy {
        obj: policy.clone(),
        name,
        begin: policy.hasattr("begin")?,
        on_arrival: policy.hasattr("on_arrival")?,
        on_finish: policy.hasattr("on_finish")?,
        error: None,
        passes: 0,
        max_passes: PASSES_PER_JOB
            .saturating_mul(w.jobs.len() as u64)
            .saturating_add(PASSES_EXTRA),
    };
    let r = simulate_with(&w.jobs, capacity, &mut p, &QueueOrder::Fcfs, None);
    if let Some(e) = p.error.take() {
        return Err(e);
    }
    Ok(Schedule {
        s: r.map_err(|e| value_error(format!("{}: {e}", w.name)))?,
        w,
    })
}

/// One decision of a step-wise simulation: the state at a scheduling pass.
#[pyclass(module = "slarm.sim", frozen)]
pub(crate) struct Decision {
    machine: Py<MachineState>,
    queue: Py<Queue>,
}

#[pymethods]
impl Decision {
    /// The current time.
    #[getter]
    fn time(&self, py: Python<'_>) -> f64 {
        self.machine.bind(py).get().now
    }
    /// Processors free now.
    #[getter]
    fn free(&self, py: Python<'_>) -> u32 {
        self.machine.bind(py).get().free
    }
    /// The machine (time, free processors, running jobs as arrays).
    #[getter]
    fn machine(&self, py: Python<'_>) -> Py<MachineState> {
        self.machine.clone_ref(py)
    }
    /// The waiting queue (keys, processors, estimates as arrays).
    #[getter]
    fn queue(&self, py: Python<'_>) -> Py<Queue> {
        self.queue.clone_ref(py)
    }
    fn __repr__(&self, py: Python<'_>) -> String {
        let m = self.machine.bind(py).get();
        format!(
            "Decision(time={}, free={}, running={}, queue={})",
            m.now,
            m.free,
            m.running.len(),
            self.queue.bind(py).get().jobs.len()
        )
    }
}

/// What the simulation thread sends: a pass to decide, or the end of the run.
enum Message {
    Pass(MachineState, Vec<Candidate>),
    Done(slarm_sim::Result<RustSchedule>),
}

/// The policy of the simulation thread: each pass goes to the caller, whose answer comes back.
struct RemotePolicy {
    to_caller: Sender<Message>,
    from_caller: Receiver<Vec<usize>>,
}

impl SchedulingPolicy for RemotePolicy {
    fn name(&self) -> &str {
        "step-wise"
    }
    fn schedule(
        &mut self,
        machine: &RustMachine<'_>,
        queue: &[Candidate],
        out: &mut PassOutcome,
    ) -> slarm_sim::Result<()> {
        out.clear();
        let closed = || SimError::InvalidParameter {
            name: "step-wise simulation",
            value: "closed".into(),
            reason: "the caller went away",
        };
        self.to_caller
            .send(Message::Pass(MachineState::of(machine), queue.to_vec()))
            .map_err(|_| closed())?;
        out.start = self.from_caller.recv().map_err(|_| closed())?;
        Ok(())
    }
}

enum StepState {
    /// Waiting for the caller's answer to this pass.
    Pending(Py<Decision>),
    Finished(Py<Schedule>),
    Failed,
}

struct StepInner {
    /// The simulated trace's jobs, for the schedule.
    w: Arc<Workload>,
    to_sim: Sender<Vec<usize>>,
    /// Taken out while the caller waits for the thread (a receiver is not `Sync`).
    from_sim: Option<Receiver<Message>>,
    state: StepState,
    name: String,
}

/// A simulation whose scheduling decisions are made by the caller (a gym-style environment
/// owns the loop): `next_decision()` gives the state at the next pass, `start(positions)`
/// answers it, until `done`. The same simulator as `simulate` runs in a helper thread, so the
/// schedule equals `simulate`'s under a policy making the same choices.
#[pyclass(module = "slarm.sim", frozen)]
pub(crate) struct Simulation {
    inner: Mutex<StepInner>,
}

fn receive(py: Python<'_>, inner: &mut StepInner) -> PyResult<()> {
    let Some(rx) = inner.from_sim.take() else {
        return Err(PyRuntimeError::new_err(
            "the simulation is unusable after an earlier failure",
        ));
    };
    let (rx, msg) = py.detach(move || {
        let msg = rx.recv();
        (rx, msg)
    });
    inner.from_sim = Some(rx);
    inner.state = match msg {
        Ok(Message::Pass(m, q)) => StepState::Pending(Py::new(
            py,
            Decision {
                machine: Py::new(py, m)?,
                queue: Py::new(py, Queue { jobs: q })?,
            },
        )?),
        Ok(Message::Done(Ok(s))) => StepState::Finished(Py::new(
            py,
            Schedule {
                s,
                w: Arc::clone(&inner.w),
            },
        )?),
        Ok(Message::Done(Err(e))) => {
            inner.state = StepState::Failed;
            return Err(value_error(format!("{}: {e}", inner.name)));
        }
        Err(_) => {
            inner.state = StepState::Failed;
            return Err(PyRuntimeError::new_err(
                "the simulation thread ended unexpectedly",
            ));
        }
    };
    Ok(())
}

#[pymethods]
impl Simulation {
    /// Starts a step-wise simulation of `trace` on `procs` processors (default: the trace's
    /// machine size) and runs it to its first scheduling pass.
    #[new]
    #[pyo3(signature = (trace, procs = None))]
    fn new(py: Python<'_>, trace: &Bound<'_, Trace>, procs: Option<u32>) -> PyResult<Self> {
        let w = Arc::clone(&trace.get().w);
        let capacity = machine_size(&w, procs)?;
        let (to_caller, from_sim) = channel();
        let (to_sim, from_caller) = channel();
        let name = w.name.clone();
        let jobs = Arc::clone(&w);
        std::thread::Builder::new()
            .name("slarm-step".into())
            .spawn(move || {
                let mut p = RemotePolicy {
                    to_caller: to_caller.clone(),
                    from_caller,
                };
                let r = simulate_with(&w.jobs, capacity, &mut p, &QueueOrder::Fcfs, None);
                // The caller may be gone already; then nobody wants the result.
                let _ = to_caller.send(Message::Done(r));
            })
            .map_err(|e| {
                PyRuntimeError::new_err(format!("cannot start the simulation thread: {e}"))
            })?;
        let mut inner = StepInner {
            w: jobs,
            to_sim,
            from_sim: Some(from_sim),
            state: StepState::Failed,
            name,
        };
        receive(py, &mut inner)?;
        Ok(Self {
            inner: Mutex::new(inner),
        })
    }

    /// True when every job has been scheduled (or the run failed).
    #[getter]
    fn done(&self) -> PyResult<bool> {
        let g = self.lock()?;
        Ok(!matches!(g.state, StepState::Pending(_)))
    }

    /// The state at the pending scheduling pass, or None when the simulation is done.
    fn next_decision(&self, py: Python<'_>) -> PyResult<Option<Py<Decision>>> {
        let g = self.lock()?;
        Ok(match &g.state {
            StepState::Pending(d) => Some(d.clone_ref(py)),
            _ => None,
        })
    }

    /// Starts the jobs at `positions` of the pending decision's queue (ascending, fitting in
    /// the free processors; an empty list starts nothing) and runs to the next pass. A bad
    /// answer raises ValueError and ends the simulation.
    fn start(&self, py: Python<'_>, positions: &Bound<'_, PyAny>) -> PyResult<()> {
        let mut out = PassOutcome::default();
        PyPolicy::read_outcome(positions, &mut out)?;
        let mut g = self.lock()?;
        if !matches!(g.state, StepState::Pending(_)) {
            return Err(PyRuntimeError::new_err(
                "the simulation is done: no decision is pending",
            ));
        }
        if g.to_sim.send(out.start).is_err() {
            g.state = StepState::Failed;
            return Err(PyRuntimeError::new_err(
                "the simulation thread ended unexpectedly",
            ));
        }
        receive(py, &mut g)
    }

    /// The schedule once `done` (None before, or when the run failed).
    fn schedule(&self, py: Python<'_>) -> PyResult<Option<Py<Schedule>>> {
        let g = self.lock()?;
        Ok(match &g.state {
            StepState::Finished(s) => Some(s.clone_ref(py)),
            _ => None,
        })
    }
}

impl Simulation {
    fn lock(&self) -> PyResult<std::sync::MutexGuard<'_, StepInner>> {
        // Never block: another thread holding the lock may be waiting for the simulation
        // with the GIL released, and blocking here with the GIL held would deadlock.
        self.inner.try_lock().map_err(|e| match e {
            std::sync::TryLockError::WouldBlock => {
                PyRuntimeError::new_err("the simulation is in use by another thread")
            }
            std::sync::TryLockError::Poisoned(_) => {
                PyRuntimeError::new_err("the simulation is unusable after an earlier failure")
            }
        })
    }
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Trace>()?;
    m.add_class::<Schedule>()?;
    m.add_class::<MachineState>()?;
    m.add_class::<Queue>()?;
    m.add_class::<QueueIter>()?;
    m.add_class::<Decision>()?;
    m.add_class::<Simulation>()?;
    m.add_function(wrap_pyfunction!(read_swf, m)?)?;
    m.add_function(wrap_pyfunction!(read_sacct, m)?)?;
    m.add_function(wrap_pyfunction!(simulate, m)?)?;
    Ok(())
}
