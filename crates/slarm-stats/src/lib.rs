//! # slarm-stats
//!
//! The statistical foundation of slarm: probability distributions on uniform time grids
//! (runtime-estimate PDFs, Birkenheuer 2012, spec 002), their convolution (direct and FFT),
//! empirical ratio distributions of real to estimated runtime, streaming summaries with
//! Student-t confidence intervals, goodness-of-fit statistics, and the seeded random
//! streams (design.md §2) that make every experiment reproducible bit for bit.
//!
//! Source: Birkenheuer (2012), spec `002_b4572db5accfb309_part1.md` §3 (percent-bin ratio
//! distributions, time grids, joint start = product of CDFs, end time = convolution) and
//! design.md §2 (streams, summaries).
//!
//! Main types and entry points:
//! * [`grid::GridDist`] (lattice distribution: PMF/CDF/survival, mean, variance, quantile,
//!   shift, regrid/rebin, truncation at a kill time) and [`grid::max_of_independent`];
//! * [`convolution::convolve`] (automatic choice), [`convolution::convolve_direct`],
//!   [`convolution::convolve_fft`] (real FFT with noise clamping);
//! * [`ratio::RatioDist`] / [`ratio::RatioLearner`] (101 percent bins of runtime / estimate,
//!   configurable rounding, conversion to a time grid);
//! * [`gof::Ecdf`], [`gof::ks_test`], [`gof::ks_critical_value`] (one-sample KS with
//!   Stephens' small-n correction);
//! * [`rng::RngStreams`] and [`rng::SimRng`] (random streams), [`summary::Welford`] and
//!   [`summary::ConfidenceInterval`] (replication statistics), [`StatsError`] (every failure).
//!
//! ```
//! use slarm_stats::{convolve, max_of_independent, GridDist, RatioDist, Rounding};
//!
//! // Spec 002 part 1 §3.8: two predecessors and a new job, all with the same quarter-binned
//! // ratio PDF, on a 1 h grid. P(new job ends by 6 h) = 0.832.
//! let mut pmf = vec![0.0; 101];
//! pmf[25] = 0.4; pmf[50] = 0.2; pmf[75] = 0.2; pmf[100] = 0.2;
//! let ratio = RatioDist::from_pmf(&pmf).unwrap();
//! let a = ratio.to_time_grid(4.0, 1.0, Rounding::Up).unwrap();
//! let b = ratio.to_time_grid(3.0, 1.0, Rounding::Up).unwrap();
//! let start = max_of_independent(&[&a, &b]).unwrap();
//! let end = convolve(&start, &a).unwrap();
//! assert!((end.cdf(6.0) - 0.832).abs() < 1e-12);
//! ```
//!
//! This crate does no I/O.

pub mod convolution;
pub mod error;
pub mod gof;
pub mod grid;
pub mod ratio;
pub mod rng;
pub mod summary;

pub use convolution::{convolve, convolve_direct, convolve_fft};
pub use error::{Result, StatsError};
pub use gof::{ks_critical_value, ks_test, Ecdf, KsResult};
pub use grid::{max_of_independent, GridDist, Rounding};
pub use ratio::{RatioDist, RatioLearner};
pub use rng::{RngStreams, SimRng};
pub use summary::{ConfidenceInterval, Welford};
