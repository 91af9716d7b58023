//! Filters and transforms of a cleaned [`Workload`]: first/last N jobs, time windows,
//! load scaling by compressing inter-arrival times (Birkenheuer 2012, §5.1.1) and runtime
//! under-estimate injection (Yeo & Buyya, §VII.B and §VII.E).
//!
//! ```
//! use slarm_workload::{transform, Job, Workload};
//!
//! let jobs = (0..10).map(|i| Job::new(i, 100.0 * i as f64, 50.0, 2, 100.0)).collect();
//! let w = Workload::from_jobs("demo", jobs, 4)?;
//! // Offered load by estimates: 10 * 2 * 100 / (4 * 900) = 0.556; target 2.0.
//! let (scaled, factor) = transform::scale_to_load(&w, 2.0)?;
//! assert!((scaled.offered_load_by_estimate().unwrap() - 2.0).abs() < 1e-9);
//! assert!((factor - 0.5556 / 2.0).abs() < 1e-3);
//! assert_eq!(transform::last_n(&w, 3).jobs.id(0), 7);
//! # Ok::<(), slarm_workload::WorkloadError>(())
//! ```

use crate::error::{invalid, Result};
use crate::Workload;
use slarm_stats::check;

fn with_jobs(w: &Workload, jobs: crate::JobTable) -> Workload {
    Workload {
        jobs,
        ..w.clone_without_jobs()
    }
}

impl Workload {
    fn clone_without_jobs(&self) -> Workload {
        Workload {
            name: self.name.clone(),
            header: self.header.clone(),
            machine_procs: self.machine_procs,
            jobs: crate::JobTable::new(),
            dropped: self.dropped,
            skipped_lines: self.skipped_lines,
            synthetic: self.synthetic,
        }
    }
}

/// The first `n` jobs in queue order.
pub fn first_n(w: &Workload, n: usize) -> Workload {
    with_jobs(w, w.jobs.slice(0..n))
}

/// The last `n` jobs in queue order.
pub fn last_n(w: &Workload, n: usize) -> Workload {
    let skip = w.jobs.len().saturating_sub(n);
    with_jobs(w, w.jobs.slice(skip..w.jobs.len()))
}

/// Jobs submitted in `[start, end)`.
pub fn time_window(w: &Workload, start: f64, end: f64) -> Result<Workload> {
    if !(start.is_finite() && end.is_finite() && start <= end) {
        return Err(invalid(
            "time window",
            format!("[{start}, {end})"),
            "needs finite start <= end",
        ));
    }
    Ok(with_jobs(
        w,
        w.jobs.filtered(|j| j.submit >= start && j.submit < end),
    ))
}

/// Multiplies submit times (taken relative to the first job, which moves to 0) by
/// `factor` > 0; a factor below 1 compresses arrivals and raises the load.
pub fn compress_arrivals(w: &Workload, factor: f64) -> Result<Workload> {
    check::positive("arrival factor", factor)?;
    let t0 = w.jobs.first().map_or(0.0, |j| j.submit);
    let mut jobs = w.jobs.clone();
    jobs.map_times(|j| ((j.submit - t0) * factor, j.runtime, j.req_time));
    Ok(with_jobs(w, jobs))
}

/// Compresses arrivals so that the offered load by estimates (Birkenheuer 2012, §5.1.1:
/// InputUtil = sum n_j x_j / (N x submit span)) equals `target`; returns the workload and
/// the factor used (= InputUtil / target, e.g. 0.1 for HPC2N at 200%).
pub fn scale_to_load(w: &Workload, target: f64) -> Result<(Workload, f64)> {
    check::positive("target load", target)?;
    let load = w.offered_load_by_estimate().ok_or_else(|| {
        invalid(
            "workload",
            &w.name,
            "needs two distinct submit times to scale",
        )
    })?;
    let factor = load / target;
    Ok((compress_arrivals(w, factor)?, factor))
}

/// Sets every estimate to run time x (1 + inaccuracy/100) with `inaccuracy_pct` in
/// (-100, 0] (Yeo & Buyya §VII.B: only under-estimates; 0 % means estimate = run time).
pub fn inject_underestimates(w: &Workload, inaccuracy_pct: f64) -> Result<Workload> {
    if !(inaccuracy_pct.is_finite() && inaccuracy_pct <= 0.0 && inaccuracy_pct > -100.0) {
        return Err(invalid(
            "inaccuracy %",
            inaccuracy_pct,
            "must lie in (-100, 0]",
        ));
    }
    let f = 1.0 + inaccuracy_pct / 100.0;
    let mut jobs = w.jobs.clone();
    jobs.map_times(|j| (j.submit, j.runtime, j.runtime * f));
    Ok(with_jobs(w, jobs))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Job;

    fn w() -> Workload {
        let jobs = (0..5)
            .map(|i| Job::new(i, 10.0 + 10.0 * i as f64, 100.0, 1, 200.0))
            .collect();
        Workload::from_jobs("t", jobs, 2).unwrap()
    }

    #[test]
    fn filters_and_errors() {
        let w = w();
        assert_eq!(first_n(&w, 2).jobs.len(), 2);
        assert_eq!(last_n(&w, 10).jobs.len(), 5);
        assert_eq!(time_window(&w, 20.0, 40.0).unwrap().jobs.len(), 2);
        assert!(time_window(&w, 5.0, 1.0).is_err());
        let c = compress_arrivals(&w, 0.5).unwrap();
        assert_eq!(
            c.jobs.iter().map(|j| j.submit).collect::<Vec<_>>(),
            vec![0.0, 5.0, 10.0, 15.0, 20.0]
        );
        assert!(compress_arrivals(&w, 0.0).is_err());
        assert!(scale_to_load(&w, f64::NAN).is_err());
        let u = inject_underestimates(&w, -20.0).unwrap();
        assert!(u.jobs.iter().all(|j| (j.estimate() - 80.0).abs() < 1e-12));
        assert!(inject_underestimates(&w, 10.0).is_err());
        let single = first_n(&w, 1);
        assert!(scale_to_load(&single, 1.0).is_err());
    }
}
