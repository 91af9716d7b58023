#![doc = include_str!("../README.md")]
//!
//! ## Modules
//!
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

pub mod check;
pub mod convolution;
pub mod error;
pub mod gof;
pub mod grid;
pub mod joint;
pub mod num;
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
