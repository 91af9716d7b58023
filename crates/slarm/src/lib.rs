//! # slarm
//!
//! SLA-aware resource management for clusters and grids, as one library. This facade
//! re-exports each focused crate under a module; every model crate is behind a cargo
//! feature of the same name (all on by default), so a downstream scheduler can depend on
//! just the queueing mathematics, say, with `default-features = false, features = ["queueing"]`.
//!
//! | module | crate | source |
//! |---|---|---|
//! | [`stats`] | `slarm-stats` | grid distributions, FFT convolution, summaries, random streams |
//! | [`report`] | `slarm-report` | experiment cells, tables with published values, figures |
//! | `queueing` | `slarm-queueing` | Hu 2009: multiclass M/M/m SLAs |
//! | `workload` | `slarm-workload` | SWF traces, SLA attributes, generators |
//! | `sim` | `slarm-sim` | event kernel, availability profile, backfilling |
//! | `pricing` | `slarm-pricing` | Yeo & Buyya: Libra, Libra+$ |
//! | `overbook` | `slarm-overbook` | Birkenheuer 2012: risk-aware overbooking |
//! | `provision` | `slarm-provision` | Sung 2006: cost-aware provisioning |
//! | `grid` | `slarm-grid` | Yigitbasi & Epema 2010: overprovisioning in grids |
//!
//! ```
//! use slarm::stats::RngStreams;
//! let streams = RngStreams::new(7);
//! assert_eq!(streams.root(), 7);
//! ```

pub use slarm_report as report;
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
