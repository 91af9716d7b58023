//! The empirical ratio distribution of real to estimated runtime (Birkenheuer 2012, §3.2,
//! §3.2.2).
//!
//! Birkenheuer (2012) assigns the ratio `omega / x` (real runtime over user estimate) of every
//! historical job to one of **101 integer percent bins** `0, 1, ..., 100`:
//! `PDF(k) = #{jobs in bin k} / n`, `CDF(k) = sum_{i <= k} PDF(i)` = P(the job ends within
//! `k`% of its estimate). No parametric fit is used.
//!
//! The thesis does not say how a ratio is rounded to a bin ("integrated percent values",
//! §3.2). We round conservatively by default, and make it configurable ([`Rounding`]):
//! * learning: `bin = clamp(ceil(100 omega / x), 0, 100)` ([`Rounding::Up`]; `omega = 0` is
//!   bin 0, ratios above 100% (jobs killed at their estimate) are clamped to bin 100, jobs
//!   with `x = 0` are dropped and counted);
//! * heuristic lookup (§3.3.2): `P(job ends within an allotted l < x) = CDF(floor(100 l / x))`
//!   ([`Rounding::Down`]), and 1 for `l >= x`;
//! * time grid (§3.2.2): bin `k` of a job with estimate `x` ends at `tau_k = k x / 100` after its
//!   start, mapped to the grid point `ceil(tau_k / step)` ([`Rounding::Up`]).
//!
//! ```
//! use slarm_stats::ratio::RatioDist;
//! use slarm_stats::grid::Rounding;
//!
//! // Three jobs with a 100 s estimate ending after 0 s, 40 s and 250 s (killed at 100 s).
//! let d = RatioDist::learn([(0.0, 100.0), (40.0, 100.0), (250.0, 100.0)], Rounding::Up).unwrap();
//! assert_eq!(d.samples(), 3);
//! assert!((d.cdf(40) - 2.0 / 3.0).abs() < 1e-12);
//! assert!((d.prob_within(50.0, 100.0, Rounding::Down).unwrap() - 2.0 / 3.0).abs() < 1e-12);
//! // On a 30 s grid: ends at 0 s, 40 s -> 60 s, 100 s -> 120 s.
//! let g = d.to_time_grid(100.0, 30.0, Rounding::Up).unwrap();
//! assert!((g.cdf(60.0) - 2.0 / 3.0).abs() < 1e-12 && g.end() == 120.0);
//! ```

use crate::check;
use crate::error::{Result, StatsError};
use crate::grid::{GridDist, Rounding, MASS_TOLERANCE};

/// Number of percent bins (0% ..= 100%).
pub const PERCENT_BINS: usize = 101;

/// The percent bin of a job with real runtime `runtime` and estimate `estimate` (both in the
/// same unit, finite, non-negative): `clamp(rounding(100 runtime / estimate), 0, 100)`.
/// Returns `None` for `estimate == 0` (such jobs are dropped from learning).
pub fn percent_bin(runtime: f64, estimate: f64, rounding: Rounding) -> Result<Option<usize>> {
    check::non_negative("runtime", runtime)?;
    check::non_negative("runtime estimate", estimate)?;
    if estimate == 0.0 {
        return Ok(None);
    }
    let k = rounding.apply(100.0 * runtime / estimate);
    Ok(Some(k.clamp(0.0, 100.0) as usize))
}

/// Incremental learner of a [`RatioDist`] from `(runtime, estimate)` samples.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct RatioLearner {
    rounding: Rounding,
    counts: Vec<u64>,
    dropped: u64,
}

impl RatioLearner {
    /// An empty learner with the given ratio-to-bin rounding.
    pub fn new(rounding: Rounding) -> Self {
        Self {
            rounding,
            counts: vec![0; PERCENT_BINS],
            dropped: 0,
        }
    }

    /// Adds one job; returns false when it was dropped (zero estimate).
    pub fn push(&mut self, runtime: f64, estimate: f64) -> Result<bool> {
        match percent_bin(runtime, estimate, self.rounding)? {
            Some(k) => {
                self.counts[k] += 1;
                Ok(true)
            }
            None => {
                self.dropped += 1;
                Ok(false)
            }
        }
    }

    /// Number of samples learned so far.
    pub fn count(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// Number of dropped jobs (zero estimate).
    pub fn dropped(&self) -> u64 {
        self.dropped
    }

    /// The per-bin sample counts.
    pub fn counts(&self) -> &[u64] {
        &self.counts
    }

    /// The learned distribution; errors when no sample was kept.
    pub fn finish(&self) -> Result<RatioDist> {
        let n = self.count();
        if n == 0 {
            return Err(StatsError::TooFew {
                what: "ratio distribution",
                needed: 1,
                got: 0,
            });
        }
        let masses = self.counts.iter().map(|&c| c as f64 / n as f64).collect();
        Ok(RatioDist { masses, samples: n })
    }
}

/// A distribution over the 101 percent bins of runtime / estimate.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(
    feature = "serde",
    serde(try_from = "RatioDistRaw", into = "RatioDistRaw")
)]
pub struct RatioDist {
    masses: Vec<f64>,
    samples: u64,
}

/// Unvalidated wire form of [`RatioDist`].
#[cfg(feature = "serde")]
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
struct RatioDistRaw {
    masses: Vec<f64>,
    samples: u64,
}

#[cfg(feature = "serde")]
impl TryFrom<RatioDistRaw> for RatioDist {
    type Error = StatsError;
    fn try_from(raw: RatioDistRaw) -> Result<Self> {
        let mut d = RatioDist::from_pmf(&raw.masses)?;
        d.samples = raw.samples;
        Ok(d)
    }
}

#[cfg(feature = "serde")]
impl From<RatioDist> for RatioDistRaw {
    fn from(d: RatioDist) -> Self {
        RatioDistRaw {
            masses: d.masses,
            samples: d.samples,
        }
    }
}

impl RatioDist {
    /// Learns the distribution from `(runtime, estimate)` pairs (see [`RatioLearner`]).
    pub fn learn<I>(samples: I, rounding: Rounding) -> Result<Self>
    where
        I: IntoIterator<Item = (f64, f64)>,
    {
        let mut l = RatioLearner::new(rounding);
        for (runtime, estimate) in samples {
            l.push(runtime, estimate)?;
        }
        l.finish()
    }

    /// A distribution given directly by its 101 bin masses (proper: total 1 within
    /// [`MASS_TOLERANCE`]); `samples()` is then 0.
    pub fn from_pmf(masses: &[f64]) -> Result<Self> {
        if masses.len() != PERCENT_BINS {
            return Err(StatsError::InvalidParameter {
                name: "number of percent bins",
                value: masses.len() as f64,
                reason: "must be 101 (0% ..= 100%)",
            });
        }
        // Reuse the grid validation (finite, non-negative, mass 1).
        GridDist::new(0.0, 1.0, masses.to_vec())?;
        Ok(Self {
            masses: masses.to_vec(),
            samples: 0,
        })
    }

    /// Number of jobs it was learned from (0 when built from a PMF).
    pub fn samples(&self) -> u64 {
        self.samples
    }

    /// The 101 bin masses.
    pub fn masses(&self) -> &[f64] {
        &self.masses
    }

    /// `PDF(k)`: the fraction of jobs ending at `k`% of their estimate (0 for `k > 100`).
    pub fn pdf(&self, k: usize) -> f64 {
        self.masses.get(k).copied().unwrap_or(0.0)
    }

    /// `CDF(k)`: the fraction ending within `k`% of their estimate (1 for `k >= 100`).
    pub fn cdf(&self, k: usize) -> f64 {
        if k >= PERCENT_BINS - 1 {
            return 1.0;
        }
        self.masses[..=k].iter().sum::<f64>().min(1.0)
    }

    /// Probability that a job with estimate `estimate` ends within `allotted` time
    /// (heuristic `P_executable`, Birkenheuer 2012 §3.3.2): 1 if `allotted >= estimate`, else
    /// `CDF(lookup(100 allotted / estimate))` (default lookup [`Rounding::Down`]; the thesis leaves
    /// the rounding open).
    pub fn prob_within(&self, allotted: f64, estimate: f64, lookup: Rounding) -> Result<f64> {
        check::non_negative("allotted time", allotted)?;
        check::non_negative("runtime estimate", estimate)?;
        if allotted >= estimate {
            return Ok(1.0);
        }
        let k = lookup.apply(100.0 * allotted / estimate).clamp(0.0, 100.0) as usize;
        Ok(self.cdf(k))
    }

    /// This distribution as a percent grid for a job with the given estimate: origin 0, step
    /// `estimate / 100`, bin `k` at `k estimate / 100`.
    pub fn to_percent_grid(&self, estimate: f64) -> Result<GridDist> {
        check::non_negative("runtime estimate", estimate)?;
        GridDist::new(0.0, estimate / 100.0, self.masses.clone())
    }

    /// The runtime distribution of a job with estimate `estimate` on the time grid
    /// `0, step, 2 step, ...` counted from the job's start: bin `k` (ending at
    /// `tau_k = k estimate / 100`) goes to grid point `rounding(tau_k / step)` (Birkenheuer 2012
    /// §3.2.2; [`Rounding::Up`] is the conservative default). Shift the result by the start time to
    /// get an end-time distribution on an absolute grid.
    pub fn to_time_grid(&self, estimate: f64, step: f64, rounding: Rounding) -> Result<GridDist> {
        let g = self
            .to_percent_grid(estimate)?
            .regrid(0.0, step, rounding)?;
        let total = g.total_mass();
        if (total - 1.0).abs() > MASS_TOLERANCE {
            return Err(StatsError::Mass {
                total,
                reason: "time-grid conversion lost mass",
            });
        }
        Ok(g)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::convolution::convolve;
    use crate::grid::max_of_independent;
    use proptest::prelude::*;

    /// The comprehensive toy example (setting of Birkenheuer 2012 §3.2.2-§3.2.3): the
    /// percent PDF coarsened to quarters.
    fn quarters() -> RatioDist {
        let mut m = vec![0.0; PERCENT_BINS];
        m[25] = 0.4;
        m[50] = 0.2;
        m[75] = 0.2;
        m[100] = 0.2;
        RatioDist::from_pmf(&m).unwrap()
    }

    #[test]
    fn toy_example_heuristic_cdf_at_half_estimate() {
        // Toy example: the heuristic lookup (Birkenheuer 2012 §3.3.2) gives CDF(50%) = 0.6 for the
        // same situation (x = 4 h, l = 2 h).
        let d = quarters();
        let p = d
            .prob_within(2.0 * 3600.0, 4.0 * 3600.0, Rounding::Down)
            .unwrap();
        assert!((p - 0.6).abs() < 1e-12);
        assert_eq!(d.prob_within(4.0, 4.0, Rounding::Down).unwrap(), 1.0);
    }

    #[test]
    fn toy_example_end_to_end_from_percent_bins() {
        // Toy example (Birkenheuer 2012 §3.2.2-§3.2.3) from the percent PDF: A (x = 4 h) and B (x =
        // 3 h, ends 0.75/1.5/2.25/3 h rounded up to 1, 2, 3, 3) started at 0 on a 1 h grid; joint
        // start convolved with the new job's runtime (x = 4 h) gives P(end <= 6 h) = 0.832.
        let h = 3600.0;
        let d = quarters();
        let a = d.to_time_grid(4.0 * h, h, Rounding::Up).unwrap();
        let b = d.to_time_grid(3.0 * h, h, Rounding::Up).unwrap();
        let b_cdf: Vec<f64> = (1..=3).map(|t| b.cdf(t as f64 * h)).collect();
        for (got, want) in b_cdf.iter().zip([0.4, 0.6, 1.0]) {
            assert!((got - want).abs() < 1e-12);
        }
        let joint = max_of_independent(&[&a, &b]).unwrap();
        let end = convolve(&joint, &a).unwrap();
        assert!((end.cdf(6.0 * h) - 0.832).abs() < 1e-12);
    }

    #[test]
    fn binning_policy() {
        assert_eq!(percent_bin(0.0, 10.0, Rounding::Up).unwrap(), Some(0));
        assert_eq!(percent_bin(1.0, 3.0, Rounding::Up).unwrap(), Some(34));
        assert_eq!(percent_bin(1.0, 3.0, Rounding::Nearest).unwrap(), Some(33));
        assert_eq!(percent_bin(1.0, 3.0, Rounding::Down).unwrap(), Some(33));
        assert_eq!(percent_bin(0.3, 1.0, Rounding::Up).unwrap(), Some(30));
        assert_eq!(percent_bin(5.0, 1.0, Rounding::Up).unwrap(), Some(100));
        assert_eq!(percent_bin(5.0, 0.0, Rounding::Up).unwrap(), None);
        let mut l = RatioLearner::new(Rounding::Up);
        assert!(!l.push(3.0, 0.0).unwrap());
        assert!(l.push(3.0, 6.0).unwrap());
        assert_eq!((l.count(), l.dropped(), l.counts()[50]), (1, 1, 1));
    }

    #[test]
    fn bad_input_is_typed() {
        assert!(matches!(
            percent_bin(f64::NAN, 1.0, Rounding::Up),
            Err(StatsError::NonFinite { .. })
        ));
        assert!(matches!(
            percent_bin(1.0, -1.0, Rounding::Up),
            Err(StatsError::Negative { .. })
        ));
        assert!(percent_bin(1.0, f64::INFINITY, Rounding::Up).is_err());
        assert!(matches!(
            RatioDist::learn([(1.0, 0.0)], Rounding::Up),
            Err(StatsError::TooFew { .. })
        ));
        assert!(RatioDist::from_pmf(&[1.0]).is_err());
        let mut m = vec![0.0; PERCENT_BINS];
        m[3] = 0.5;
        assert!(matches!(
            RatioDist::from_pmf(&m),
            Err(StatsError::Mass { .. })
        ));
        m[4] = -0.5;
        m[5] = 1.0;
        assert!(RatioDist::from_pmf(&m).is_err());
        let d = quarters();
        assert!(d.to_time_grid(0.0, 1.0, Rounding::Up).is_err());
        assert!(d.to_time_grid(10.0, 0.0, Rounding::Up).is_err());
        assert!(d.prob_within(f64::NAN, 1.0, Rounding::Down).is_err());
        #[cfg(feature = "serde")]
        {
            let json = serde_json::to_string(&d).unwrap();
            assert_eq!(serde_json::from_str::<RatioDist>(&json).unwrap(), d);
            assert!(serde_json::from_str::<RatioDist>(r#"{"masses":[1.0],"samples":1}"#).is_err());
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(1000))]

        #[test]
        fn learned_distribution_is_proper_and_monotone(
            jobs in prop::collection::vec((0.0f64..5e4, 0.0f64..4e4), 1..60), r in 0usize..3
        ) {
            let rounding = [Rounding::Up, Rounding::Down, Rounding::Nearest][r];
            let kept = jobs.iter().filter(|(_, x)| *x > 0.0).count();
            prop_assume!(kept > 0);
            let d = RatioDist::learn(jobs.iter().copied(), rounding).unwrap();
            prop_assert_eq!(d.samples() as usize, kept);
            prop_assert!((d.cdf(100) - 1.0).abs() < 1e-12);
            for k in 1..PERCENT_BINS {
                prop_assert!(d.cdf(k) + 1e-15 >= d.cdf(k - 1));
            }
        }

        #[test]
        fn time_grid_is_conservative(
            w in prop::collection::vec(0.0f64..1.0, PERCENT_BINS), x in 1.0f64..1e5, step in 1.0f64..5e3
        ) {
            let s: f64 = w.iter().sum();
            prop_assume!(s > 0.0);
            let d = RatioDist::from_pmf(&w.iter().map(|v| v / s).collect::<Vec<_>>()).unwrap();
            let g = d.to_time_grid(x, step, Rounding::Up).unwrap();
            prop_assert!((g.total_mass() - 1.0).abs() < 1e-12);
            // Rounding end times up never claims a job ended earlier than it did.
            for k in 0..PERCENT_BINS {
                let t = k as f64 * x / 100.0;
                prop_assert!(g.cdf(t) <= d.cdf(k) + 1e-12);
            }
            prop_assert!(g.end() < x + step + 1e-6 * step);
        }
    }
}
