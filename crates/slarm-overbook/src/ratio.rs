//! Empirical distribution of the real/estimated runtime ratio on 101 percent bins
//! (spec 002 part 1 §3.1, §8 B1/B2; part 2 G6).

use serde::{Deserialize, Serialize};

use crate::error::{OverbookError, Result};

/// Number of percent bins (0 %, 1 %, ..., 100 %).
pub const BINS: usize = 101;

/// How a ratio `100·omega/x` is mapped to an integer percent bin.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum BinRounding {
    /// `ceil` (part 1 §8 B1, conservative: a job looks at least as long as it was). Default.
    #[default]
    Ceil,
    /// `floor` (part 2 G6).
    Floor,
    /// Round to nearest.
    Nearest,
}

impl BinRounding {
    /// Bin of a ratio given in percent, clamped to `0..=100` (ratios above 100 % go to bin 100).
    pub fn bin(self, percent: f64) -> usize {
        let b = match self {
            BinRounding::Ceil => percent.ceil(),
            BinRounding::Floor => percent.floor(),
            BinRounding::Nearest => percent.round(),
        };
        if b.is_nan() || b <= 0.0 {
            0
        } else if b >= 100.0 {
            100
        } else {
            b as usize
        }
    }
}

/// A discrete distribution over the 101 percent bins of `omega/x`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RatioDistribution {
    pdf: Vec<f64>,
    cdf: Vec<f64>,
    samples: usize,
}

impl RatioDistribution {
    /// Learns the distribution from `(runtime, estimate)` samples. Samples with a non-positive
    /// estimate or a negative runtime are skipped (part 1 §8 B1).
    ///
    /// ```
    /// use slarm_overbook::ratio::{BinRounding, RatioDistribution};
    /// let d = RatioDistribution::learn([(50, 100), (100, 100)], BinRounding::Ceil).unwrap();
    /// assert!((d.cdf(50) - 0.5).abs() < 1e-12);
    /// assert!((d.cdf(100) - 1.0).abs() < 1e-12);
    /// ```
    pub fn learn(
        samples: impl IntoIterator<Item = (i64, i64)>,
        rounding: BinRounding,
    ) -> Result<Self> {
        let mut counts = vec![0usize; BINS];
        let mut n = 0usize;
        for (omega, x) in samples {
            if x <= 0 || omega < 0 {
                continue;
            }
            let pct = 100.0 * omega as f64 / x as f64;
            counts[rounding.bin(pct)] += 1;
            n += 1;
        }
        if n == 0 {
            return Err(OverbookError::EmptyStatistics(
                "no sample with a positive estimate".into(),
            ));
        }
        let pdf = counts.iter().map(|&c| c as f64 / n as f64).collect();
        Ok(Self::build(pdf, n))
    }

    /// Builds a distribution from 101 bin probabilities (normalised to sum 1).
    pub fn from_pdf(pdf: &[f64]) -> Result<Self> {
        if pdf.len() != BINS {
            return Err(OverbookError::InvalidParameter {
                name: "pdf length",
                value: pdf.len() as f64,
                reason: "must have 101 bins",
            });
        }
        let mut total = 0.0;
        for &p in pdf {
            crate::error::non_negative("pdf bin", p)?;
            total += p;
        }
        if total <= 0.0 {
            return Err(OverbookError::EmptyStatistics("pdf has no mass".into()));
        }
        Ok(Self::build(pdf.iter().map(|p| p / total).collect(), 0))
    }

    fn build(pdf: Vec<f64>, samples: usize) -> Self {
        let mut cdf = Vec::with_capacity(BINS);
        let mut acc = 0.0;
        for &p in &pdf {
            acc += p;
            cdf.push(acc.min(1.0));
        }
        if let Some(last) = cdf.last_mut() {
            *last = 1.0;
        }
        Self { pdf, cdf, samples }
    }

    /// Probability of bin `k` (0 outside `0..=100`).
    pub fn pdf(&self, k: usize) -> f64 {
        self.pdf.get(k).copied().unwrap_or(0.0)
    }

    /// `P(ratio <= k %)`; 1 for `k >= 100`.
    pub fn cdf(&self, k: usize) -> f64 {
        self.cdf.get(k.min(100)).copied().unwrap_or(1.0)
    }

    /// All 101 bin probabilities.
    pub fn pdf_bins(&self) -> &[f64] {
        &self.pdf
    }

    /// Number of samples learned from (0 when built from a pdf).
    pub fn samples(&self) -> usize {
        self.samples
    }

    /// Heuristic lookup `P(omega <= l)` for a job with estimate `x` placed in a slot of length
    /// `l`: `CDF(floor(100·l/x))` (part 1 §8 B1), and 1 when `l >= x`.
    pub fn fits_within(&self, slot: i64, estimate: i64) -> f64 {
        if estimate <= 0 || slot >= estimate {
            return 1.0;
        }
        if slot < 0 {
            return 0.0;
        }
        let k = (100.0 * slot as f64 / estimate as f64).floor();
        self.cdf(k.max(0.0) as usize)
    }

    /// Mean ratio (0..1).
    pub fn mean(&self) -> f64 {
        self.pdf
            .iter()
            .enumerate()
            .map(|(k, p)| k as f64 / 100.0 * p)
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn rounding_and_clamping() {
        assert_eq!(BinRounding::Ceil.bin(0.2), 1);
        assert_eq!(BinRounding::Floor.bin(0.2), 0);
        assert_eq!(BinRounding::Nearest.bin(49.5), 50);
        assert_eq!(BinRounding::Ceil.bin(250.0), 100);
        assert_eq!(BinRounding::Ceil.bin(-3.0), 0);
        assert_eq!(BinRounding::Ceil.bin(0.0), 0);
    }

    #[test]
    fn empty_statistics_are_an_error() {
        assert!(RatioDistribution::learn([(5, 0), (-1, 10)], BinRounding::Ceil).is_err());
        assert!(RatioDistribution::from_pdf(&[0.0; BINS]).is_err());
        assert!(RatioDistribution::from_pdf(&[1.0; 3]).is_err());
    }

    #[test]
    fn overestimates_clamp_to_bin_100() {
        let d = RatioDistribution::learn([(300, 100)], BinRounding::Ceil).unwrap();
        assert_eq!(d.pdf(100), 1.0);
        assert_eq!(d.fits_within(99, 100), 0.0);
        assert_eq!(d.fits_within(100, 100), 1.0);
    }

    proptest! {
        #[test]
        fn cdf_is_monotone_and_ends_at_one(samples in prop::collection::vec((0i64..10_000, 1i64..5_000), 1..200)) {
            let d = RatioDistribution::learn(samples.clone(), BinRounding::Ceil).unwrap();
            prop_assert_eq!(d.samples(), samples.len());
            let mut prev = 0.0;
            for k in 0..BINS {
                prop_assert!(d.cdf(k) + 1e-12 >= prev);
                prev = d.cdf(k);
            }
            prop_assert!((d.cdf(100) - 1.0).abs() < 1e-12);
            let s: f64 = d.pdf_bins().iter().sum();
            prop_assert!((s - 1.0).abs() < 1e-9);
        }
    }
}
