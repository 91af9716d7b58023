//! A calibrated synthetic workload generator, used when a real trace is absent. Every
//! generated [`Workload`] has `synthetic = true`, a name `synthetic(<source>)` and a header
//! entry `; SlarmSynthetic: calibrated to <source>` (plus a `; Note:`), so every output can
//! label it, also after the workload was written to SWF and read back.
//!
//! Model (deliberately simple: moments on log scales, fitted by [`SyntheticModel::calibrate`]):
//! - arrivals: Poisson with the trace's mean inter-arrival time;
//! - processors: round(2^X) with X normal, fitted to log2(procs), clamped to 1..=machine;
//! - run time and estimate: (ln run, ln estimate) bivariate normal with the trace's means,
//!   standard deviations and correlation; run times above the trace's longest are redrawn
//!   (queue limits cut real run times; without the cut the log-normal tail would inflate
//!   the mean run time and the load) and estimates are capped at the trace's longest;
//! - under-estimates (estimate < run time, the job is killed at its estimate): a drawn
//!   under-estimate is kept with the probability that makes their share the trace's,
//!   else the estimate is raised to the run time.
//!
//! Sizes are drawn independently of run times (that correlation is not modelled).
//!
//! ```
//! use slarm_stats::RngStreams;
//! use slarm_workload::synth::SyntheticModel;
//!
//! let model = SyntheticModel { jobs: 500, machine_procs: 128, mean_interarrival_s: 600.0,
//!     ln_runtime_mean: 7.0, ln_runtime_sd: 1.5, log2_procs_mean: 3.0, log2_procs_sd: 1.5,
//!     ln_estimate_mean: 8.0, ln_estimate_sd: 1.2, runtime_estimate_correlation: 0.7,
//!     underestimate_share: 0.05, max_runtime_s: 86_400.0, max_estimate_s: 172_800.0,
//!     source: "demo".into() };
//! let w = model.generate(&mut RngStreams::new(1).stream(&[0]))?;
//! assert!(w.synthetic && w.jobs.len() == 500 && w.name == "synthetic(demo)");
//! # Ok::<(), slarm_workload::WorkloadError>(())
//! ```

use rand::{Rng, RngExt};
use rand_distr::Distribution;

use crate::error::{invalid, Result};
use crate::header::{SwfHeader, SYNTHETIC_KEY};
use crate::{Job, Workload};
use slarm_stats::check;

/// Parameters of the synthetic model (see the module documentation).
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
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
    /// Mean of ln(estimate).
    pub ln_estimate_mean: f64,
    /// Standard deviation of ln(estimate).
    pub ln_estimate_sd: f64,
    /// Correlation of ln(run time) and ln(estimate), in [-1, 1].
    pub runtime_estimate_correlation: f64,
    /// Share of jobs whose estimate is below their run time, in [0, 1].
    pub underestimate_share: f64,
    /// Longest run time (s): run times above it are redrawn (`f64::INFINITY`: no limit).
    pub max_runtime_s: f64,
    /// Longest estimate (s): estimates are capped at it (`f64::INFINITY`: no limit).
    pub max_estimate_s: f64,
    /// Name of the trace the model was calibrated on.
    pub source: String,
}

fn mean_sd(xs: impl Iterator<Item = f64>) -> (f64, f64) {
    let mut w = slarm_stats::Welford::new();
    xs.for_each(|x| w.push(x));
    let sd = if w.count() > 1 { w.std_dev() } else { 0.0 };
    (w.mean(), sd)
}

/// Sample correlation of the pairs (0 when either side has no spread).
fn correlation(pairs: &[(f64, f64)], (ma, sa): (f64, f64), (mb, sb): (f64, f64)) -> f64 {
    if pairs.len() < 2 || sa <= 0.0 || sb <= 0.0 {
        return 0.0;
    }
    let cov =
        pairs.iter().map(|(a, b)| (a - ma) * (b - mb)).sum::<f64>() / (pairs.len() - 1) as f64;
    (cov / (sa * sb)).clamp(-1.0, 1.0)
}

/// Standard normal CDF (Abramowitz & Stegun 7.1.26 for erfc, absolute error < 1.5e-7:
/// plenty for a keep probability).
fn normal_cdf(z: f64) -> f64 {
    let x = z.abs() / std::f64::consts::SQRT_2;
    let t = 1.0 / (1.0 + 0.327_591_1 * x);
    let poly = t
        * (0.254_829_592
            + t * (-0.284_496_736
                + t * (1.421_413_741 + t * (-1.453_152_027 + t * 1.061_405_429))));
    let erfc = poly * (-x * x).exp();
    if z >= 0.0 {
        1.0 - 0.5 * erfc
    } else {
        0.5 * erfc
    }
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
        let logs: Vec<(f64, f64)> = w
            .jobs
            .iter()
            .map(|j| (j.runtime.ln(), j.estimate().ln()))
            .collect();
        let run = mean_sd(logs.iter().map(|p| p.0));
        let est = mean_sd(logs.iter().map(|p| p.1));
        let (lp, lps) = mean_sd(w.jobs.iter().map(|j| (j.procs() as f64).log2()));
        let under = w.jobs.iter().filter(|j| j.estimate() < j.runtime).count();
        Ok(Self {
            jobs: n,
            machine_procs: w.machine_procs,
            mean_interarrival_s: span / (n - 1) as f64,
            ln_runtime_mean: run.0,
            ln_runtime_sd: run.1,
            log2_procs_mean: lp,
            log2_procs_sd: lps,
            ln_estimate_mean: est.0,
            ln_estimate_sd: est.1,
            runtime_estimate_correlation: correlation(&logs, run, est),
            underestimate_share: under as f64 / n as f64,
            max_runtime_s: w.jobs.iter().map(|j| j.runtime).fold(1.0, f64::max),
            max_estimate_s: w.jobs.iter().map(|j| j.estimate()).fold(1.0, f64::max),
            source: w.name.clone(),
        })
    }

    /// The fitted numbers in a fixed order: mean inter-arrival, ln run time mean and sd,
    /// log2 processors mean and sd, ln estimate mean and sd, run time / estimate
    /// correlation, under-estimate share, longest run time, longest estimate (the order of
    /// the [`PRESETS`] rows after jobs and machine size).
    pub fn parameters(&self) -> [f64; 11] {
        [
            self.mean_interarrival_s,
            self.ln_runtime_mean,
            self.ln_runtime_sd,
            self.log2_procs_mean,
            self.log2_procs_sd,
            self.ln_estimate_mean,
            self.ln_estimate_sd,
            self.runtime_estimate_correlation,
            self.underestimate_share,
            self.max_runtime_s,
            self.max_estimate_s,
        ]
    }

    /// Probability of keeping a drawn under-estimate: the target share over the share the
    /// bivariate normal gives, P(ln est < ln run) = Phi((mu_r - mu_e) / sd(ln est - ln run)).
    fn keep_underestimate(&self) -> f64 {
        let (sr, se, rho) = (
            self.ln_runtime_sd,
            self.ln_estimate_sd,
            self.runtime_estimate_correlation,
        );
        let var = sr * sr + se * se - 2.0 * rho * sr * se;
        let gap = self.ln_runtime_mean - self.ln_estimate_mean;
        let p = if var > 1e-24 {
            normal_cdf(gap / var.sqrt())
        } else if gap > 0.0 {
            1.0
        } else {
            0.0
        };
        if p <= 0.0 {
            1.0
        } else {
            (self.underestimate_share / p).min(1.0)
        }
    }

    fn validate(&self) -> Result<()> {
        if self.machine_procs == 0 {
            return Err(invalid("machine size", 0, "must be at least one processor"));
        }
        check::positive("mean inter-arrival", self.mean_interarrival_s)?;
        for (name, v) in [
            ("ln run time mean", self.ln_runtime_mean),
            ("ln estimate mean", self.ln_estimate_mean),
            ("log2 procs mean", self.log2_procs_mean),
        ] {
            check::finite(name, v)?;
        }
        for (name, v) in [
            ("ln run time sd", self.ln_runtime_sd),
            ("ln estimate sd", self.ln_estimate_sd),
            ("log2 procs sd", self.log2_procs_sd),
        ] {
            check::non_negative(name, v)?;
        }
        if !(-1.0..=1.0).contains(&self.runtime_estimate_correlation) {
            return Err(invalid(
                "run time / estimate correlation",
                self.runtime_estimate_correlation,
                "must lie in [-1, 1]",
            ));
        }
        check::probability("under-estimate share", self.underestimate_share)?;
        for (name, v) in [
            ("max run time", self.max_runtime_s),
            ("max estimate", self.max_estimate_s),
        ] {
            if v.is_nan() || v < 1.0 {
                return Err(invalid(name, v, "must be at least 1 s"));
            }
        }
        Ok(())
    }

    /// Generates a workload (jobs numbered from 1, first submit at 0).
    pub fn generate<R: Rng + ?Sized>(&self, rng: &mut R) -> Result<Workload> {
        self.validate()?;
        let keep_under = self.keep_underestimate();
        let rho = self.runtime_estimate_correlation;
        let rho_c = (1.0 - rho * rho).max(0.0).sqrt();
        let std = rand_distr::StandardNormal;
        let mut t = 0.0;
        let mut jobs = Vec::with_capacity(self.jobs);
        for i in 0..self.jobs {
            if i > 0 {
                t += -(-rng.random::<f64>()).ln_1p() * self.mean_interarrival_s;
            }
            let (run, z_run) = self.draw_runtime(rng)?;
            let z2: f64 = std.sample(rng);
            let z_est = rho * z_run + rho_c * z2;
            let mut est = (self.ln_estimate_mean + self.ln_estimate_sd * z_est)
                .exp()
                .round()
                .max(1.0)
                .min(self.max_estimate_s);
            if est < run && rng.random::<f64>() >= keep_under {
                est = run;
            }
            let x: f64 = std.sample(rng);
            let procs = (self.log2_procs_mean + self.log2_procs_sd * x)
                .exp2()
                .round()
                .clamp(1.0, f64::from(self.machine_procs)) as i64;
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

    /// One run time and its standard normal draw: exp(mean + sd z), rounded to whole
    /// seconds (at least 1 s), redrawn while above `max_runtime_s`; an error if that almost
    /// never succeeds.
    fn draw_runtime<R: Rng + ?Sized>(&self, rng: &mut R) -> Result<(f64, f64)> {
        const MAX_DRAWS: usize = 10_000;
        for _ in 0..MAX_DRAWS {
            let z: f64 = rand_distr::StandardNormal.sample(rng);
            let run = (self.ln_runtime_mean + self.ln_runtime_sd * z)
                .exp()
                .round()
                .max(1.0);
            if run <= self.max_runtime_s {
                return Ok((run, z));
            }
        }
        Err(invalid(
            "max run time",
            self.max_runtime_s,
            "lies too far below the run-time distribution",
        ))
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

/// A calibration of [`SyntheticModel`] on one trace of the shared folder, so that a
/// stand-in with the trace's statistics can be generated where the trace is absent.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Preset {
    /// Archive file name of the trace.
    pub trace: &'static str,
    /// Jobs after the drop rules.
    pub jobs: usize,
    /// Machine size (header MaxProcs, else MaxNodes).
    pub machine_procs: u32,
    /// Mean inter-arrival time (s).
    pub mean_interarrival_s: f64,
    /// Mean and standard deviation of ln(run time).
    pub ln_runtime: (f64, f64),
    /// Mean and standard deviation of log2(processors).
    pub log2_procs: (f64, f64),
    /// Mean and standard deviation of ln(estimate).
    pub ln_estimate: (f64, f64),
    /// Correlation of ln(run time) and ln(estimate), and the share of under-estimates.
    pub correlation_and_underestimates: (f64, f64),
    /// Longest run time and longest estimate (s).
    pub max_runtime_and_estimate: (f64, f64),
}

#[allow(clippy::too_many_arguments)]
const fn preset(
    trace: &'static str,
    jobs: usize,
    machine_procs: u32,
    mean_interarrival_s: f64,
    lr: f64,
    lrs: f64,
    lp: f64,
    lps: f64,
    le: f64,
    les: f64,
    rho: f64,
    under: f64,
    max_run: f64,
    max_est: f64,
) -> Preset {
    Preset {
        trace,
        jobs,
        machine_procs,
        mean_interarrival_s,
        ln_runtime: (lr, lrs),
        log2_procs: (lp, lps),
        ln_estimate: (le, les),
        correlation_and_underestimates: (rho, under),
        max_runtime_and_estimate: (max_run, max_est),
    }
}

/// [`SyntheticModel::calibrate`] on each of the 17 Parallel Workloads Archive traces of the
/// trace folder ([`crate::traces`]; strict read, drop rules of [`crate::clean`]), as printed by
/// `cargo run --release -p slarm-workload --example calibrate`; a test checks them against
/// the traces whenever the folder is present.
pub const PRESETS: &[Preset] = &[
    preset(
        "CEA-Curie-2011-2.1-cln.swf.gz",
        295540,
        93312,
        74.18080862424249,
        5.203308417257962,
        3.101330521535135,
        4.8730494384581915,
        3.6697294882612264,
        9.446765440581663,
        1.98574000184887,
        0.3017164317898429,
        0.01832577654463017,
        124615.0,
        172800.0,
    ),
    preset(
        "CTC-SP2-1996-3.1-cln.swf.gz",
        77205,
        338,
        379.5018651883322,
        7.17467257182853,
        2.515162046649904,
        1.8857707574507732,
        1.9887116064965105,
        8.922806281296262,
        1.9038947625775071,
        0.7005600605617208,
        0.09292144291172852,
        71998.0,
        64800.0,
    ),
    preset(
        "HPC2N-2002-2.2-cln.swf.gz",
        202871,
        240,
        538.480312515404,
        6.900936194110089,
        3.341015432829844,
        1.4751695311028636,
        1.6749690155272507,
        9.098070835924387,
        2.197012130272179,
        0.5174752165693868,
        0.07303656017863569,
        508620.0,
        8639999.0,
    ),
    preset(
        "KTH-SP2-1996-2.1-cln.swf.gz",
        28467,
        100,
        1010.4604791681304,
        6.456311129489692,
        2.9470160165633286,
        1.8128435100216183,
        1.6904158843056152,
        8.066040368929471,
        2.0350782594372947,
        0.7448155963306741,
        0.016685987283521272,
        226709.0,
        216000.0,
    ),
    preset(
        "LANL-CM5-1994-4.1-cln.swf.gz",
        122055,
        1024,
        510.3382765005653,
        6.06062202090506,
        2.225039552731214,
        5.975773216992335,
        1.2263304970396982,
        6.857863761864917,
        1.6675455386006497,
        0.6326326882767481,
        0.3291958543279669,
        239892.0,
        66164.0,
    ),
    preset(
        "LLNL-Atlas-2006-2.1-cln.swf.gz",
        36600,
        9216,
        455.5191125440586,
        5.109937290863886,
        3.2207869611088698,
        6.077810800101173,
        2.6986281333360824,
        8.064246682640084,
        2.4467996381770667,
        0.5234042806349224,
        0.09155737704918032,
        849066.0,
        738738720.0,
    ),
    preset(
        "LLNL-Thunder-2007-1.1-cln.swf.gz",
        113613,
        4008,
        114.22197479139527,
        4.631729261208987,
        2.6374086291798045,
        3.5489603567029824,
        1.9227413357789576,
        6.18307620006585,
        2.266447972249226,
        0.3709985753716546,
        0.009690792426922975,
        360004.0,
        360004.0,
    ),
    preset(
        "NASA-iPSC-1993-3.1-cln.swf.gz",
        18066,
        128,
        440.01859950179903,
        4.682062470985219,
        1.8222739998635131,
        2.6260932137717115,
        2.1629604685064154,
        4.682062470985219,
        1.8222739998635131,
        1.0,
        0.0,
        62643.0,
        62643.0,
    ),
    preset(
        "OSC-Clust-2000-3.1-cln.swf.gz",
        35592,
        178,
        1643.7667387822764,
        6.344439236135542,
        3.7188384162564128,
        0.5992937690142028,
        1.1387444995731781,
        6.344439236135542,
        3.7188384162564128,
        1.0,
        0.0,
        1152126.0,
        1152126.0,
    ),
    preset(
        "SDSC-BLUE-2000-4.2-cln.swf.gz",
        232536,
        1152,
        361.9246393016105,
        5.975261932481186,
        2.0700144901345063,
        4.226899756373784,
        1.5490758505518305,
        8.16923925072324,
        1.349479086279489,
        0.5180821095911518,
        0.10077579385557506,
        616793.0,
        604800.0,
    ),
    preset(
        "SDSC-DS-2004-2.1-cln.swf.gz",
        84893,
        1664,
        372.8804834377798,
        6.552278604716903,
        2.473279665579165,
        4.671224374802259,
        1.6756694841360888,
        8.609995712575328,
        1.7993737723826653,
        0.6182789710600279,
        0.12554627590025091,
        6589808.0,
        604800.0,
    ),
    preset(
        "SDSC-Par-1996-3.1-cln.swf.gz",
        32128,
        400,
        996.4845457092165,
        6.043955670737162,
        3.354710502055507,
        3.17915461465871,
        1.7554242845202432,
        6.043955670737162,
        3.354710502055507,
        0.9999999999999958,
        0.0,
        448070.0,
        448070.0,
    ),
    preset(
        "SDSC-SP2-1998-4.2-cln.swf.gz",
        54034,
        128,
        1166.2532896563212,
        6.4239588646188235,
        2.4735445926527233,
        2.412680227755127,
        1.8937144077313983,
        8.520935091514373,
        1.7988478944609483,
        0.6831025959829853,
        0.07650738423955288,
        510209.0,
        172800.0,
    ),
    preset(
        "Sandia-Ross-2001-1.1-cln.swf.gz",
        55595,
        1524,
        1767.9274022376514,
        7.323274827022628,
        3.469592645163936,
        3.8786762589580404,
        2.1948582658403013,
        10.453008444181412,
        2.3460544340194525,
        0.5302085499891861,
        0.06630092634229696,
        1440123.0,
        15998400.0,
    ),
    preset(
        "lublin-aaroh.swf.gz",
        10000,
        256,
        21753.79317931793,
        7.059269149929362,
        3.0022459504425707,
        2.3657503298817164,
        2.0023530005236356,
        7.059269149929362,
        3.0022459504425707,
        1.0,
        0.0,
        158738.0,
        158738.0,
    ),
    preset(
        "lublin_256.swf.gz",
        10000,
        256,
        770.7377737773777,
        5.683355002199522,
        3.0206878279268445,
        2.7205242375514223,
        2.2243311988932533,
        5.683355002199522,
        3.0206878279268445,
        1.0,
        0.0,
        124707.0,
        124707.0,
    ),
    preset(
        "lublin_256_new2.gz",
        10000,
        256,
        460.26342634263426,
        3.9137216304793845,
        2.4196357257423946,
        3.5714163014546325,
        2.422398637098885,
        3.9137216304793845,
        2.4196357257423946,
        1.0,
        0.0,
        116359.0,
        116359.0,
    ),
];

impl Preset {
    /// The model of this preset with `jobs` jobs.
    pub fn model(&self, jobs: usize) -> SyntheticModel {
        SyntheticModel {
            jobs,
            machine_procs: self.machine_procs,
            mean_interarrival_s: self.mean_interarrival_s,
            ln_runtime_mean: self.ln_runtime.0,
            ln_runtime_sd: self.ln_runtime.1,
            log2_procs_mean: self.log2_procs.0,
            log2_procs_sd: self.log2_procs.1,
            ln_estimate_mean: self.ln_estimate.0,
            ln_estimate_sd: self.ln_estimate.1,
            runtime_estimate_correlation: self.correlation_and_underestimates.0,
            underestimate_share: self.correlation_and_underestimates.1,
            max_runtime_s: self.max_runtime_and_estimate.0,
            max_estimate_s: self.max_runtime_and_estimate.1,
            source: self.trace.to_string(),
        }
    }
}

/// The preset of trace `name` (archive file name), if there is one.
pub fn preset_for(name: &str) -> Option<&'static Preset> {
    PRESETS.iter().find(|p| p.trace == name)
}

/// The cleaned real trace `name` from the trace folder ([`crate::traces`]) when it is
/// there; otherwise a synthetic stand-in with the same number of jobs drawn from the
/// trace's [`Preset`] (labelled synthetic: `synthetic = true`, name `synthetic(<name>)`).
/// Errors when the trace is absent and has no preset, or cannot be read.
pub fn real_or_synthetic<R: Rng + ?Sized>(name: &str, rng: &mut R) -> Result<Workload> {
    match crate::traces::locate(name) {
        Ok(path) => Workload::from_trace(
            crate::reader::read_trace(&path, crate::ReadOptions::default())?,
            None,
        ),
        Err(missing) => match preset_for(name) {
            Some(p) => p.model(p.jobs).generate(rng),
            None => Err(crate::WorkloadError::Io {
                file: missing.path.display().to_string(),
                message: "not found, and there is no synthetic preset for it".into(),
            }),
        },
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
            ln_estimate_mean: 7.7,
            ln_estimate_sd: 1.0,
            runtime_estimate_correlation: 0.8,
            underestimate_share: 0.04,
            max_runtime_s: f64::INFINITY,
            max_estimate_s: f64::INFINITY,
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
        // Under-estimates: binomial standard error sqrt(0.04 x 0.96 / 20000) = 0.0014.
        assert!((c.underestimate_share - 0.04).abs() < 0.006);
        // Raising the dropped under-estimates to the run time biases ln(estimate) upwards;
        // with every under-estimate kept (share above P(est < run) = 0.17) the bivariate
        // normal is drawn as is and its moments come back (standard errors 0.007 for the
        // mean, 0.003 for the correlation; tolerances about 5 of them).
        let pure = SyntheticModel {
            underestimate_share: 1.0,
            ..m.clone()
        }
        .generate(&mut RngStreams::new(9).stream(&[3]))
        .unwrap();
        let c = SyntheticModel::calibrate(&pure).unwrap();
        assert!((c.ln_estimate_mean - 7.7).abs() < 0.04, "{c:?}");
        assert!((c.ln_estimate_sd - 1.0).abs() < 0.03, "{c:?}");
        assert!(
            (c.runtime_estimate_correlation - 0.8).abs() < 0.015,
            "{c:?}"
        );
        assert!((c.underestimate_share - 0.166).abs() < 0.015, "{c:?}");
        assert!(w.synthetic);
        // The label survives a round trip through an SWF file.
        let mut swf = Vec::new();
        crate::writer::write_swf(&w.header, &w.jobs.slice(0..10), &mut swf).unwrap();
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
