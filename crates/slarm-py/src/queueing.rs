//! `slarm.queueing`: M/M/m FCFS formulas and sizing (Hu 2009, §4.1-4.2) over arrays.
//!
//! Every function takes 1-D arrays of one length (the Python layer broadcasts) and a
//! `stop` flag: with `stop` the loop ends at the first row without an answer, otherwise
//! that row gets the fill value (NaN or -1) and the loop goes on. The answer is the values
//! and the first failing row with the model's error message.

use numpy::{PyArray1, PyReadonlyArray1};
use pyo3::prelude::*;
use slarm_queueing::heuristics::{heuristic_partition, HeuristicConfig};
use slarm_queueing::partition::all_strategies;
use slarm_queueing::sizing::{min_nodes_batch, SizingQuery};
use slarm_queueing::{min_nodes, nodes_for_partition, JobClass, Mmm, QueueError, Sla};

use crate::error::value_error;

/// The values of every row and the first row without an answer (index, message).
type Rows<T> = (Vec<T>, Option<(usize, String)>);

/// Applies `f` to rows `0..n`; rows without an answer get `fill`.
fn rows<T: Copy>(n: usize, stop: bool, fill: T, f: impl Fn(usize) -> Result<T, String>) -> Rows<T> {
    let mut out = Vec::with_capacity(n);
    let mut first = None;
    for i in 0..n {
        match f(i) {
            Ok(v) => out.push(v),
            Err(e) => {
                out.push(fill);
                if first.is_none() {
                    first = Some((i, e));
                }
                if stop {
                    break;
                }
            }
        }
    }
    (out, first)
}

/// The M/M/m pool of row `i` (`servers` is a signed integer array: negatives are refused
/// here, everything else by [`Mmm::new`]).
fn pool(lam: &[f64], servers: &[i64], mu: &[f64], i: usize) -> Result<Mmm, String> {
    let m = u64::try_from(servers[i])
        .map_err(|_| format!("servers must be a non-negative integer, got {}", servers[i]))?;
    Mmm::new(lam[i], mu[i], m).map_err(|e| e.to_string())
}

fn same_len(lens: &[usize]) -> PyResult<usize> {
    let n = lens.first().copied().unwrap_or(0);
    if lens.iter().any(|&l| l != n) {
        return Err(value_error(format!("arrays of different lengths {lens:?}")));
    }
    Ok(n)
}

fn slice<'a, T: numpy::Element>(a: &'a PyReadonlyArray1<'_, T>) -> PyResult<&'a [T]> {
    a.as_slice().map_err(value_error)
}

type Answer<'py, T> = (Bound<'py, PyArray1<T>>, Option<(usize, String)>);

fn answer<T: numpy::Element>(py: Python<'_>, r: Rows<T>) -> Answer<'_, T> {
    (PyArray1::from_vec(py, r.0), r.1)
}

/// Erlang C of each row `(lam, servers, mu)`.
#[pyfunction]
fn erlang_c<'py>(
    py: Python<'py>,
    lam: PyReadonlyArray1<'py, f64>,
    servers: PyReadonlyArray1<'py, i64>,
    mu: PyReadonlyArray1<'py, f64>,
    stop: bool,
) -> PyResult<Answer<'py, f64>> {
    let (l, s, m) = (slice(&lam)?, slice(&servers)?, slice(&mu)?);
    let n = same_len(&[l.len(), s.len(), m.len()])?;
    let r = py.detach(|| rows(n, stop, f64::NAN, |i| Ok(pool(l, s, m, i)?.erlang_c())));
    Ok(answer(py, r))
}

/// Mean response time of each row.
#[pyfunction]
fn mean_response<'py>(
    py: Python<'py>,
    lam: PyReadonlyArray1<'py, f64>,
    servers: PyReadonlyArray1<'py, i64>,
    mu: PyReadonlyArray1<'py, f64>,
    stop: bool,
) -> PyResult<Answer<'py, f64>> {
    let (l, s, m) = (slice(&lam)?, slice(&servers)?, slice(&mu)?);
    let n = same_len(&[l.len(), s.len(), m.len()])?;
    let r = py.detach(|| rows(n, stop, f64::NAN, |i| Ok(pool(l, s, m, i)?.mean_response())));
    Ok(answer(py, r))
}

/// `F(x) = P(T <= x)` of each row.
#[pyfunction]
fn response_cdf<'py>(
    py: Python<'py>,
    lam: PyReadonlyArray1<'py, f64>,
    servers: PyReadonlyArray1<'py, i64>,
    x: PyReadonlyArray1<'py, f64>,
    mu: PyReadonlyArray1<'py, f64>,
    stop: bool,
) -> PyResult<Answer<'py, f64>> {
    let (l, s, xs, m) = (slice(&lam)?, slice(&servers)?, slice(&x)?, slice(&mu)?);
    let n = same_len(&[l.len(), s.len(), xs.len(), m.len()])?;
    let r = py.detach(|| {
        rows(n, stop, f64::NAN, |i| {
            let q = pool(l, s, m, i)?;
            if !xs[i].is_finite() {
                return Err(QueueError::NonFinite {
                    name: "x",
                    value: xs[i],
                }
                .to_string());
            }
            Ok(q.response_cdf(xs[i]))
        })
    });
    Ok(answer(py, r))
}

/// The `p`-quantile of the response time of each row.
#[pyfunction]
fn response_quantile<'py>(
    py: Python<'py>,
    lam: PyReadonlyArray1<'py, f64>,
    servers: PyReadonlyArray1<'py, i64>,
    p: PyReadonlyArray1<'py, f64>,
    mu: PyReadonlyArray1<'py, f64>,
    stop: bool,
) -> PyResult<Answer<'py, f64>> {
    let (l, s, ps, m) = (slice(&lam)?, slice(&servers)?, slice(&p)?, slice(&mu)?);
    let n = same_len(&[l.len(), s.len(), ps.len(), m.len()])?;
    let r = py.detach(|| {
        rows(n, stop, f64::NAN, |i| {
            pool(l, s, m, i)?
                .response_time_quantile(ps[i])
                .map_err(|e| e.to_string())
        })
    });
    Ok(answer(py, r))
}

/// Minimum nodes (Algorithm 1) of each row `(lam, x, y, mu)`, answered together by
/// [`min_nodes_batch`] (each answer is [`min_nodes`]'s); -1 where there is none.
#[pyfunction]
fn min_nodes_rows<'py>(
    py: Python<'py>,
    lam: PyReadonlyArray1<'py, f64>,
    x: PyReadonlyArray1<'py, f64>,
    y: PyReadonlyArray1<'py, f64>,
    mu: PyReadonlyArray1<'py, f64>,
    stop: bool,
) -> PyResult<Answer<'py, i64>> {
    let (l, xs, ys, m) = (slice(&lam)?, slice(&x)?, slice(&y)?, slice(&mu)?);
    let n = same_len(&[l.len(), xs.len(), ys.len(), m.len()])?;
    let r = py.detach(|| {
        // Rows whose query is valid go to the batch; the others keep their own error.
        let mut queries = Vec::with_capacity(n);
        let mut slot: Vec<Result<usize, String>> = Vec::with_capacity(n);
        for i in 0..n {
            match Sla::new(xs[i], ys[i]).and_then(|sla| SizingQuery::new(l[i], m[i], sla)) {
                Ok(q) => {
                    slot.push(Ok(queries.len()));
                    queries.push(q);
                }
                Err(e) => {
                    slot.push(Err(e.to_string()));
                    if stop {
                        break;
                    }
                }
            }
        }
        let answers = min_nodes_batch(&queries);
        let answers: Vec<Result<i64, String>> = answers
            .into_iter()
            .map(|a| match a {
                Ok(v) => i64::try_from(v).map_err(|_| format!("{v} nodes overflow an int64")),
                Err(e) => Err(e.to_string()),
            })
            .collect();
        rows(slot.len(), stop, -1, |i| match &slot[i] {
            Ok(k) => answers[*k].clone(),
            Err(e) => Err(e.clone()),
        })
    });
    Ok(answer(py, r))
}

/// The classes `(lambda, x, y)` as model classes; errors name the 0-based class.
fn job_classes(classes: &[(f64, f64, f64)]) -> PyResult<Vec<JobClass>> {
    classes
        .iter()
        .enumerate()
        .map(|(i, &(l, x, y))| {
            Sla::new(x, y)
                .and_then(|sla| JobClass::new(l, sla))
                .map_err(|e| value_error(format!("class {i} ({l}, {x}, {y}): {e}")))
        })
        .collect()
}

/// Multiclass sizing as `slarm queue size` reports it: nodes per class (dedicated), per set
/// partition, the best partition and Hu's heuristic (two or three classes). Returns
/// `(dedicated, [(partition, nodes)], best index, heuristic (partition, nodes) or None)`.
#[pyfunction]
#[allow(clippy::type_complexity)]
fn size_classes(
    py: Python<'_>,
    classes: Vec<(f64, f64, f64)>,
    mu: f64,
) -> PyResult<(Vec<u64>, Vec<(String, u64)>, usize, Option<(String, u64)>)> {
    let classes = job_classes(&classes)?;
    py.detach(|| {
        let dedicated = classes
            .iter()
            .enumerate()
            .map(|(i, c)| {
                min_nodes(c.lambda(), mu, c.sla())
                    .map_err(|e| value_error(format!("class {i}: {e}")))
            })
            .collect::<PyResult<Vec<u64>>>()?;
        let all = all_strategies(&classes, mu).map_err(value_error)?;
        let best = all
            .iter()
            .enumerate()
            .min_by_key(|(_, s)| s.nodes)
            .map(|(i, _)| i)
            .ok_or_else(|| value_error("no classes"))?;
        let cfg = HeuristicConfig {
            mu,
            ..HeuristicConfig::default()
        };
        let heuristic = match heuristic_partition(&classes, &cfg).map_err(value_error)? {
            Some(p) => {
                let n = nodes_for_partition(&classes, &p, mu).map_err(value_error)?;
                Some((p.name(), n))
            }
            None => None,
        };
        let strategies = all.iter().map(|s| (s.partition.name(), s.nodes)).collect();
        Ok((dedicated, strategies, best, heuristic))
    })
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(erlang_c, m)?)?;
    m.add_function(wrap_pyfunction!(mean_response, m)?)?;
    m.add_function(wrap_pyfunction!(response_cdf, m)?)?;
    m.add_function(wrap_pyfunction!(response_quantile, m)?)?;
    m.add_function(wrap_pyfunction!(min_nodes_rows, m)?)?;
    m.add_function(wrap_pyfunction!(size_classes, m)?)?;
    Ok(())
}
