//! `slarm.testing`: the schedule checker of slarm-testing.

use numpy::PyReadonlyArray1;
use pyo3::prelude::*;
use slarm_testing::{check as check_schedule, Contract, ScheduledJob};

use crate::error::value_error;
use crate::sim::Trace;

/// Every violation of `contract` (`"capacity"`, `"fcfs"`, `"easy"`, `"conservative"`) by the
/// schedule given as columns, as the JSON text of `slarm check-schedule --json`'s list.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
fn check_columns(
    py: Python<'_>,
    trace: &Bound<'_, Trace>,
    job_id: PyReadonlyArray1<'_, u64>,
    submit: PyReadonlyArray1<'_, f64>,
    start: PyReadonlyArray1<'_, f64>,
    end: PyReadonlyArray1<'_, f64>,
    procs: PyReadonlyArray1<'_, u32>,
    contract: &str,
) -> PyResult<String> {
    let contract: Contract = contract.parse().map_err(value_error)?;
    let (id, sub, st, en, pr) = (
        job_id.as_slice().map_err(value_error)?,
        submit.as_slice().map_err(value_error)?,
        start.as_slice().map_err(value_error)?,
        end.as_slice().map_err(value_error)?,
        procs.as_slice().map_err(value_error)?,
    );
    let n = id.len();
    if [sub.len(), st.len(), en.len(), pr.len()]
        .iter()
        .any(|&l| l != n)
    {
        return Err(value_error(
            "job_id, submit, start, end and procs need one value per row",
        ));
    }
    let w = std::sync::Arc::clone(&trace.get().w);
    py.detach(|| {
        let rows: Vec<ScheduledJob> = (0..n)
            .map(|i| ScheduledJob {
                id: id[i],
                submit: sub[i],
                start: st[i],
                end: en[i],
                procs: pr[i],
            })
            .collect();
        let v = check_schedule(&w.jobs.to_vec(), w.machine_procs, &rows, contract)
            .map_err(|e| value_error(format!("{}: {e}", w.name)))?;
        serde_json::to_string(&v).map_err(value_error)
    })
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(check_columns, m)?)?;
    Ok(())
}
