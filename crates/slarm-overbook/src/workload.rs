//! Preparing a job log for battery simulations (Birkenheuer 2012, §5.1.1-§5.1.2, Table 5.1):
//! the usable-job filter of a `slarm_workload` trace ([`read_usable`], [`RawJob`]), the split
//! into training jobs (for the class registries) and a test window of the last jobs
//! ([`prepare`]), occurrence compression by a factor (by default to a 200 % estimated load),
//! and batteries of [`SlaJob`]s with `e = o`, `d = o + 2x`, `fee = n·x` node-hours and
//! `penalty = ratio · fee` ([`Prepared::battery`]). [`synthetic_jobs`] is a synthetic workload
//! of the same shape for tests and for when no log is at hand.
//!
//! ```
//! use slarm_overbook::workload::{prepare, synthetic_jobs};
//! use slarm_stats::rng::RngStreams;
//! let mut rng = RngStreams::new(1).stream(&[1]);
//! let jobs = synthetic_jobs(64, 300, &mut rng);
//! // The last 200 jobs are the test window (two batteries of 100), the rest trains.
//! let p = prepare("synthetic", jobs, 64, 200, None, 0, true)?;
//! assert_eq!((p.training.len(), p.battery_count(100)), (100, 2));
//! let battery = p.battery(1, 100, 2.0)?;
//! assert_eq!(battery[0].occurrence, 0);
//! assert_eq!(battery[0].penalty, 2.0 * battery[0].fee);
//! # Ok::<(), slarm_overbook::OverbookError>(())
//! ```

use std::path::Path;

use rand::RngExt;
use rand_distr::{Distribution, Exp};
use slarm_stats::rng::SimRng;

use crate::error::{OverbookError, Result};
use crate::job::SlaJob;

/// A trace job reduced to what the battery preparation uses.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct RawJob {
    /// SWF job number.
    pub id: u64,
    /// Submit time (s).
    pub submit: i64,
    /// Real runtime `omega` (s).
    pub runtime: i64,
    /// Requested time `x` (s).
    pub estimate: i64,
    /// Processors `n`.
    pub procs: usize,
    /// User id.
    pub user: Option<i64>,
    /// Application id.
    pub app: Option<i64>,
}

impl TryFrom<&slarm_workload::Job> for RawJob {
    type Error = OverbookError;

    /// The battery preparation's view of the canonical SWF job (`slarm_workload::Job`): times rounded to
    /// whole seconds, the estimate at least 1 s, processors requested (else allocated), user
    /// and application when recorded. A job it cannot use is an
    /// [`OverbookError::InvalidJob`]: negative submit or run time, no requested time (the
    /// estimate `x` is the booked length), no processors.
    fn try_from(j: &slarm_workload::Job) -> Result<Self> {
        let invalid = |reason: &str| OverbookError::InvalidJob {
            id: j.id,
            reason: reason.into(),
        };
        // Written as "not at least zero" so that NaN fails too.
        let non_negative = |x: f64| x >= 0.0;
        if !non_negative(j.submit) {
            return Err(invalid("negative or missing submit time"));
        }
        if !non_negative(j.runtime) {
            return Err(invalid("negative or missing run time"));
        }
        if !non_negative(j.req_time) || j.req_time == 0.0 {
            return Err(invalid("no requested time"));
        }
        let procs = usize::try_from(j.procs())
            .ok()
            .filter(|&p| p > 0)
            .ok_or_else(|| invalid("no processors"))?;
        // Whole seconds; beyond 2^53 s (2.9e8 years) `as` would saturate silently.
        let seconds = |x: f64, what: &str| {
            slarm_stats::num::exact_i64(x.round())
                .ok_or_else(|| invalid(&format!("{what} {x} s is beyond 2^53 s")))
        };
        Ok(Self {
            id: j.id,
            submit: seconds(j.submit, "submit time")?,
            runtime: seconds(j.runtime, "run time")?,
            estimate: seconds(j.req_time.round().max(1.0), "requested time")?,
            procs,
            user: (j.user >= 0).then_some(j.user),
            app: (j.app >= 0).then_some(j.app),
        })
    }
}

/// Reads an SWF(.gz) file with slarm-workload and keeps the usable jobs (the thesis does not state its filter): submit >= 0,
/// run time >= 0, requested time > 0, processors (field 8, else 5) in `1..=machine`.
/// `machine = None` takes the header's MaxProcs (else MaxNodes). Returns the usable jobs in
/// submit order, the number dropped and the machine size.
pub fn read_usable(path: &Path, machine: Option<usize>) -> Result<(Vec<RawJob>, usize, usize)> {
    let trace = slarm_workload::reader::read_trace(path, Default::default()).map_err(|e| {
        OverbookError::Io {
            path: path.display().to_string(),
            reason: e.to_string(),
        }
    })?;
    let total = trace.jobs.len();
    let machine = match machine.or_else(|| {
        trace
            .header
            .max_procs
            .or(trace.header.max_nodes)
            .map(|m| m as usize)
    }) {
        Some(m) if m > 0 => m,
        _ => {
            return Err(OverbookError::Malformed {
                source_name: path.display().to_string(),
                line: 0,
                reason: "no MaxProcs/MaxNodes header: give the machine size".into(),
            })
        }
    };
    let mut jobs: Vec<RawJob> = trace
        .jobs
        .iter()
        .filter_map(|j| RawJob::try_from(&j).ok())
        .filter(|j| j.procs <= machine)
        .collect();
    jobs.sort_by_key(|j| (j.submit, j.id));
    let dropped = total - jobs.len();
    Ok((jobs, dropped, machine))
}

/// A prepared trace: training jobs (PDF learning) and test jobs (batteries).
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Prepared {
    /// Trace name.
    pub name: String,
    /// Machine size.
    pub machine: usize,
    /// Usable jobs before the test window.
    pub training: Vec<RawJob>,
    /// The last `test_jobs` usable jobs.
    pub test: Vec<RawJob>,
    /// Input utilisation of the test window by estimates, `sum n·x / (N · span)`.
    pub input_util: f64,
    /// Occurrence factor applied to the test window.
    pub factor: f64,
    /// Jobs dropped by the usable filter.
    pub dropped: usize,
    /// True for the synthetic fallback.
    pub synthetic: bool,
}

/// `sum n·x / (N · (last submit - first submit))` (thesis §5.1.1).
pub fn input_utilization(jobs: &[RawJob], machine: usize) -> f64 {
    let (Some(first), Some(last)) = (jobs.first(), jobs.last()) else {
        return 0.0;
    };
    let span = last.submit.saturating_sub(first.submit).max(1) as f64;
    let work: f64 = jobs
        .iter()
        .map(|j| j.procs as f64 * j.estimate as f64)
        .sum();
    work / (machine as f64 * span)
}

/// Splits usable jobs into training and the last `test_jobs` test jobs; `factor` = the given
/// occurrence factor, or `input_util / 2` when `None` (a 200 % estimated load, thesis §5.1.1).
pub fn prepare(
    name: &str,
    jobs: Vec<RawJob>,
    machine: usize,
    test_jobs: usize,
    factor: Option<f64>,
    dropped: usize,
    synthetic: bool,
) -> Result<Prepared> {
    if machine == 0 || test_jobs == 0 || jobs.len() <= test_jobs {
        return Err(OverbookError::InvalidParameter {
            name: "usable jobs",
            value: jobs.len() as f64,
            reason: "need more usable jobs than the test window and a positive machine size",
        });
    }
    let mut jobs = jobs;
    let test = jobs.split_off(jobs.len() - test_jobs);
    let input_util = input_utilization(&test, machine);
    let factor = match factor {
        Some(f) => slarm_stats::check::positive("occurrence factor", f)?,
        None => (input_util / 2.0).max(1e-6),
    };
    Ok(Prepared {
        name: name.to_string(),
        machine,
        training: jobs,
        test,
        input_util,
        factor,
        dropped,
        synthetic,
    })
}

impl Prepared {
    /// Training jobs as [`SlaJob`]s (for the class registry).
    pub fn training_jobs(&self) -> Result<Vec<SlaJob>> {
        self.training
            .iter()
            .map(|r| to_job(r, r.submit, 1.0))
            .collect()
    }

    /// Number of batteries of `size` jobs in the test window.
    pub fn battery_count(&self, size: usize) -> usize {
        self.test.len().checked_div(size).unwrap_or(0)
    }

    /// Battery `k` of `size` jobs: occurrence offsets from the battery's first job, multiplied by
    /// the factor (thesis §5.1.1), with the SLA synthesis of Table 5.1 and `penalty = ratio · fee`.
    pub fn battery(&self, k: usize, size: usize, penalty_ratio: f64) -> Result<Vec<SlaJob>> {
        let lo = k.saturating_mul(size);
        let hi = lo.saturating_add(size).min(self.test.len());
        let slice = self.test.get(lo..hi).unwrap_or(&[]);
        let Some(first) = slice.first() else {
            return Ok(Vec::new());
        };
        slice
            .iter()
            .map(|r| {
                let o = (r.submit.saturating_sub(first.submit) as f64 * self.factor).round() as i64;
                to_job(r, o, penalty_ratio)
            })
            .collect()
    }
}

fn to_job(r: &RawJob, occurrence: i64, ratio: f64) -> Result<SlaJob> {
    let mut j = SlaJob::with_sla(r.id, occurrence, r.estimate, r.runtime, r.procs, ratio)?;
    j.user = r.user;
    j.app = r.app;
    Ok(j)
}

/// A synthetic workload standing in for a missing trace (labelled `synthetic`): Poisson
/// arrivals, log-uniform estimates from 5 min to 24 h, power-of-two sizes up to a quarter of the
/// machine, and ratios `omega/x` with 25 % near-zero mass and the rest uniform (the shape of
/// the thesis' Chapter 4 observations).
pub fn synthetic_jobs(machine: usize, count: usize, rng: &mut SimRng) -> Vec<RawJob> {
    let mut jobs = Vec::with_capacity(count);
    let mut t = 0.0f64;
    let max_pow = ((machine.max(4) / 4) as f64).log2().floor().max(0.0) as u32;
    let Ok(gap) = Exp::new(1.0 / 600.0) else {
        return jobs;
    };
    for id in 0..count {
        t += gap.sample(rng);
        let est = (300.0f64.ln() + rng.random::<f64>() * (86_400.0f64.ln() - 300.0f64.ln())).exp();
        let procs = 1usize << rng.random_range(0..=max_pow);
        let ratio = if rng.random::<f64>() < 0.25 {
            rng.random::<f64>() * 0.05
        } else {
            rng.random::<f64>()
        };
        jobs.push(RawJob {
            id: id as u64 + 1,
            submit: t.round() as i64,
            runtime: (est * ratio).round() as i64,
            estimate: est.round().max(1.0) as i64,
            procs: procs.min(machine),
            user: Some((id % 37) as i64),
            app: None,
        });
    }
    jobs
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A submit time of 1e300 s saturated to `i64::MAX` seconds and ran on.
    #[test]
    fn times_beyond_2_pow_53_s_are_an_error_not_saturated() {
        for (submit, run, req) in [(1e300, 10.0, 10.0), (0.0, 1e19, 10.0), (0.0, 10.0, 1e19)] {
            let j = slarm_workload::Job::new(4, submit, run, 1, req);
            let e = RawJob::try_from(&j).unwrap_err();
            assert!(e.to_string().contains("beyond 2^53 s"), "{e}");
        }
        let edge = 2f64.powi(53);
        let r = RawJob::try_from(&slarm_workload::Job::new(5, edge, 1.0, 1, 1.0)).unwrap();
        assert_eq!(r.submit, 1 << 53);
    }

    #[test]
    fn raw_job_from_the_canonical_swf_job() {
        let mut j = slarm_workload::Job::new(3, 99.6, 1800.4, 8, 3600.2);
        j.user = 12;
        let r = RawJob::try_from(&j).unwrap();
        assert_eq!(
            r,
            RawJob {
                id: 3,
                submit: 100,
                runtime: 1800,
                estimate: 3600,
                procs: 8,
                user: Some(12),
                app: None,
            }
        );
        j.req_time = 0.2; // rounds to 0: booked for at least one second
        assert_eq!(RawJob::try_from(&j).unwrap().estimate, 1);
        for broken in [
            slarm_workload::Job { submit: -1.0, ..j },
            slarm_workload::Job {
                runtime: f64::NAN,
                ..j
            },
            slarm_workload::Job { req_time: 0.0, ..j },
            slarm_workload::Job {
                req_procs: -1,
                alloc_procs: 0,
                ..j
            },
        ] {
            assert!(matches!(
                RawJob::try_from(&broken),
                Err(OverbookError::InvalidJob { id: 3, .. })
            ));
        }
    }

    #[test]
    fn split_factor_and_sla_synthesis() {
        let jobs: Vec<RawJob> = (0..30)
            .map(|i| RawJob {
                id: i,
                submit: i as i64 * 100,
                runtime: 50,
                estimate: 3600,
                procs: 2,
                user: None,
                app: None,
            })
            .collect();
        let p = prepare("t", jobs, 10, 20, Some(0.5), 0, false).unwrap();
        assert_eq!(p.training.len(), 10);
        assert_eq!(p.battery_count(10), 2);
        let b = p.battery(1, 10, 2.0).unwrap();
        assert_eq!(b[0].occurrence, 0);
        assert_eq!(b[1].occurrence, 50);
        assert_eq!(b[1].deadline, 50 + 7200);
        assert!((b[0].fee - 2.0).abs() < 1e-12 && (b[0].penalty - 4.0).abs() < 1e-12);
        // input util = 20 * 2 * 3600 / (10 * 1900)
        assert!((p.input_util - 20.0 * 7200.0 / 19_000.0).abs() < 1e-12);
        assert!(prepare("t", Vec::new(), 10, 20, None, 0, false).is_err());
        // Found by crates/slarm/tests/robustness: test_jobs + 1 overflowed.
        assert!(prepare("t", Vec::new(), 10, usize::MAX, None, 0, false).is_err());
        assert!(p.battery(usize::MAX, usize::MAX, 1.0).unwrap().is_empty());
        let at = |submit| RawJob {
            id: 1,
            submit,
            runtime: 50,
            estimate: 3600,
            procs: 2,
            user: None,
            app: None,
        };
        assert!(input_utilization(&[at(i64::MIN), at(i64::MAX)], 4).is_finite());
    }
}
