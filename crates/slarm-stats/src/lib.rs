//! # slarm-stats
//!
//! The statistical foundation of slarm: probability distributions on uniform time grids
//! (runtime-estimate PDFs, Birkenheuer 2012, spec 002), their convolution (direct and FFT),
//! empirical ratio distributions of real to estimated runtime, streaming summaries with
//! Student-t confidence intervals, goodness-of-fit statistics, and the seeded random
//! streams (design.md §2) that make every experiment reproducible bit for bit.
//!
//! Main types: [`rng::RngStreams`] and [`rng::SimRng`] (random streams), [`summary::Welford`]
//! and [`summary::ConfidenceInterval`] (replication statistics), [`StatsError`] (every failure).
//!
//! This crate does no I/O.

pub mod convolution;
pub mod error;
pub mod gof;
pub mod grid;
pub mod rng;
pub mod summary;

pub use convolution::{convolve, convolve_direct, convolve_fft};
pub use error::{Result, StatsError};
pub use gof::{ks_critical_value, ks_test, Ecdf, KsResult};
pub use grid::{max_of_independent, GridDist, Rounding};
pub use rng::{RngStreams, SimRng};
pub use summary::{ConfidenceInterval, Welford};
