#![doc = include_str!("../README.md")]

/// The Rust examples of the task guide (docs/guide.md), run as doctests of this crate.
#[cfg(doctest)]
#[doc = include_str!("../../../docs/guide.md")]
pub struct GuideExamples;

/// `slarm-stats`: distributions on time grids, convolution, ratio statistics, random streams.
pub use slarm_stats as stats;

#[cfg(feature = "grid")]
pub use slarm_grid as grid;
#[cfg(feature = "overbook")]
pub use slarm_overbook as overbook;
#[cfg(feature = "pricing")]
pub use slarm_pricing as pricing;
#[cfg(feature = "provision")]
pub use slarm_provision as provision;
#[cfg(feature = "queueing")]
pub use slarm_queueing as queueing;
#[cfg(feature = "sim")]
pub use slarm_sim as sim;
#[cfg(feature = "workload")]
pub use slarm_workload as workload;
