//! A calibrated synthetic workload generator, used when a real trace is absent. Every
//! generated [`Workload`] has `synthetic = true`, a name `synthetic(<source>)` and a header
//! entry `; SlarmSynthetic: calibrated to <source>` (plus a `; Note:`), so every output can
//! label it, also after the workload was written to SWF and read back.
//!
//! Model (deliberately simple, matching first and second moments on log scales):
//! Poisson arrivals with the trace's mean inter-arrival time; log-normal run times fitted to
//! the mean and standard deviation of ln(run time); processors = round(2^X) with X normal,
//! fitted to log2(procs), clamped to 1..=machine; estimate = run time x exp(Y) with Y normal
//! fitted to ln(estimate / run time).
//!
//! ```
//! use slarm_stats::RngStreams;
//! use slarm_workload::synth::SyntheticModel;
//!
//! let model = SyntheticModel { jobs: 500, machine_procs: 128, mean_interarrival_s: 600.0,
//!     ln_runtime_mean: 7.0, ln_runtime_sd: 1.5, log2_procs_mean: 3.0, log2_procs_sd: 1.5,
//!     ln_estimate_ratio_mean: 1.0, ln_estimate_ratio_sd: 0.8, source: "demo".into() };
//! let w = model.generate(&mut RngStreams::new(1).stream(&[0]))?;
//! assert!(w.synthetic && w.jobs.len() == 500 && w.name == "synthetic(demo)");
//! # Ok::<(), slarm_workload::WorkloadError>(())
//! ```

use rand::Rng;
use rand_distr::{Distribution, Normal};
use serde::{Deserialize, Serialize};

use crate::error::{invalid, Result};
use crate::header::{SwfHeader, SYNTHETIC_KEY};
use crate::{Job, Workload};

/// Parameters of the synthetic model (see the module documentation).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SyntheticModel {
    /// Number of jobs to generate.
    pub jobs: usize,
    /// Machine size.
    pub machine_procs: u32,
    /// Mean inter-arrival time (s).
    pub mean_interarrival_s: f64,
    /// Mean of ln(run time).
    pub ln_runtime_mean: f64,
    /// Standard deviation of ln(run time).
    pub ln_runtime_sd: f64,
    /// Mean of log2(processors).
    pub log2_procs_mean: f64,
    /// Standard deviation of log2(processors).
    pub log2_procs_sd: f64,
    /// Mean of ln(estimate / run time).
    pub ln_estimate_ratio_mean: f64,
    /// Standard deviation of ln(estimate / run time).
    pub ln_estimate_ratio_sd: f64,
    /// Name of the trace the model was calibrated on.
    pub source: String,
}

fn mean_sd(xs: impl Iterator<Item = f64>) -> (f64, f64) {
    let mut w = slarm_stats::Welford::new();
    xs.for_each(|x| w.push(x));
    let sd = if w.count() > 1 { w.std_dev() } else { 0.0 };
    (w.mean(), sd)
}

impl SyntheticModel {
    /// Fits the model to a cleaned workload (needs at least two jobs with distinct
    /// submit times).
    pub fn calibrate(w: &Workload) -> Result<Self> {
        let n = w.jobs.len();
        let span = w.span_s();
        if n < 2 || span <= 0.0 {
            return Err(invalid(
                "workload",
                &w.name,
                "needs two jobs with distinct submit times",
            ));
        }
        let (lr, lrs) = mean_sd(w.jobs.iter().map(|j| j.runtime.ln()));
        let (lp, lps) = mean_sd(w.jobs.iter().map(|j| (j.procs() as f64).log2()));
        let (le, les) = mean_sd(w.jobs.iter().map(|j| (j.estimate() / j.runtime).ln()));
        Ok(Self {
            jobs: n,
            machine_procs: w.machine_procs,
            mean_interarrival_s: span / (n - 1) as f64,
            ln_runtime_mean: lr,
            ln_runtime_sd: lrs,
            log2_procs_mean: lp,
            log2_procs_sd: lps,
            ln_estimate_ratio_mean: le,
            ln_estimate_ratio_sd: les,
            source: w.name.clone(),
        })
    }

    /// Generates a workload (jobs numbered from 1, first submit at 0).
    pub fn generate<R: Rng>(&self, rng: &mut R) -> Result<Workload> {
        if self.machine_procs == 0 {
            return Err(invalid("machine size", 0, "must be at least one processor"));
        }
        if !(self.mean_interarrival_s.is_finite() && self.mean_interarrival_s > 0.0) {
            return Err(invalid(
                "mean inter-arrival",
                self.mean_interarrival_s,
                "must be finite and > 0",
            ));
        }
        let normal = |m: f64, s: f64, name: &'static str| {
            Normal::new(m, s).map_err(|_| {
                invalid(
                    name,
                    format!("N({m}, {s})"),
                    "needs finite mean and sd >= 0",
                )
            })
        };
        let rt = normal(self.ln_runtime_mean, self.ln_runtime_sd, "ln run time")?;
        let pr = normal(self.log2_procs_mean, self.log2_procs_sd, "log2 procs")?;
        let er = normal(
            self.ln_estimate_ratio_mean,
            self.ln_estimate_ratio_sd,
            "ln estimate ratio",
        )?;
        let mut t = 0.0;
        let mut jobs = Vec::with_capacity(self.jobs);
        for i in 0..self.jobs {
            if i > 0 {
                t += -(-rng.gen::<f64>()).ln_1p() * self.mean_interarrival_s;
            }
            let run = rt.sample(rng).exp().round().max(1.0);
            let procs = pr
                .sample(rng)
                .exp2()
                .round()
                .clamp(1.0, f64::from(self.machine_procs)) as i64;
            let est = (run * er.sample(rng).exp()).round().max(1.0);
            jobs.push(Job::new(i as u64 + 1, t.round(), run, procs, est));
        }
        let mut w = Workload::from_jobs(
            &format!("synthetic({})", self.source),
            jobs,
            self.machine_procs,
        )?;
        w.synthetic = true;
        w.header = self.header();
        Ok(w)
    }

    /// The header of a generated workload: machine size, a note, and the
    /// [`SYNTHETIC_KEY`] entry that keeps it labelled synthetic when written to SWF and
    /// read back.
    fn header(&self) -> SwfHeader {
        let mut h = SwfHeader::default();
        h.absorb(&format!(
            " Note: synthetic workload of {} jobs from slarm-workload's calibrated generator; not a real log",
            self.jobs
        ));
        h.absorb(&format!(" {SYNTHETIC_KEY}: calibrated to {}", self.source));
        h.absorb(&format!(" MaxProcs: {}", self.machine_procs));
        h
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use slarm_stats::RngStreams;

    #[test]
    fn calibrating_a_generated_workload_recovers_its_parameters() {
        let m = SyntheticModel {
            jobs: 20_000,
            machine_procs: 1024,
            mean_interarrival_s: 300.0,
            ln_runtime_mean: 7.0,
            ln_runtime_sd: 1.2,
            log2_procs_mean: 3.0,
            log2_procs_sd: 1.0,
            ln_estimate_ratio_mean: 0.7,
            ln_estimate_ratio_sd: 0.5,
            source: "t".into(),
        };
        let w = m.generate(&mut RngStreams::new(9).stream(&[2])).unwrap();
        let c = SyntheticModel::calibrate(&w).unwrap();
        // Sampling error of a mean over 20,000 draws is < 1 %; rounding of procs to integers
        // biases log2 moments slightly, hence the looser tolerance there.
        assert!((c.mean_interarrival_s / 300.0 - 1.0).abs() < 0.03);
        assert!((c.ln_runtime_mean - 7.0).abs() < 0.05);
        assert!((c.ln_runtime_sd - 1.2).abs() < 0.05);
        assert!((c.log2_procs_mean - 3.0).abs() < 0.1);
        assert!((c.ln_estimate_ratio_mean - 0.7).abs() < 0.05);
        assert!(w.synthetic);
        // The label survives a round trip through an SWF file.
        let mut swf = Vec::new();
        crate::writer::write_swf(&w.header, &w.jobs[..10], &mut swf).unwrap();
        let back = crate::reader::read_trace_from(
            std::io::Cursor::new(swf),
            "synthetic.swf",
            crate::ReadOptions::default(),
        )
        .unwrap();
        assert!(back.synthetic);
        let back = Workload::from_trace(back, None).unwrap();
        assert!(back.synthetic && back.machine_procs == 1024);
        assert!(SyntheticModel {
            mean_interarrival_s: 0.0,
            ..m
        }
        .generate(&mut RngStreams::new(1).stream(&[0]))
        .is_err());
    }
}
