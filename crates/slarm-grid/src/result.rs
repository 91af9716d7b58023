//! What one grid run reports: per-BoT records, costs under every cost model (Yigitbasi &
//! Epema 2010, §V-C), κ over time and the busy shares of the arrival span.

use crate::metrics::BotRecord;
use crate::workload::BackgroundSource;

/// A cloud lease: from the acquisition request to the end of the release.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Lease {
    /// Time the processor was requested.
    pub requested_s: f64,
    /// Time it became ready.
    pub ready_s: Option<f64>,
    /// Time its release completed (`None`: still leased at the end).
    pub ended_s: Option<f64>,
}

/// CPU-hours of one run under every cost model (§V-C).
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct CostBreakdown {
    /// [`crate::config::CostModel::ProvisionedAll`].
    pub provisioned_all: f64,
    /// [`crate::config::CostModel::BusyGridPlusCloudLeases`].
    pub busy_grid_plus_cloud_leases: f64,
    /// [`crate::config::CostModel::BusyOnly`].
    pub busy_only: f64,
    /// Busy grid processor-hours within the horizon.
    pub grid_busy_hours: f64,
    /// Busy cloud processor-hours within the horizon.
    pub cloud_busy_hours: f64,
    /// Σ ⌈lease hours⌉ within the horizon.
    pub cloud_lease_hours: u64,
    /// Number of leases.
    pub leases: usize,
}

/// Everything one simulation run reports.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct RunResult {
    /// Provisioning strategy name.
    pub strategy: String,
    /// Scheduling policy name.
    pub policy: String,
    /// Target κ, if any.
    pub kappa_target: Option<f64>,
    /// One record per BoT, in arrival order.
    pub bots: Vec<BotRecord>,
    /// Processors of the initial grid S.
    pub base_procs: u64,
    /// Processors of the deployed (static) grid.
    pub grid_procs: u64,
    /// Cost horizon T, seconds.
    pub horizon_s: f64,
    /// Time the last BoT completed.
    pub end_s: f64,
    /// CPU-hours under the configured cost model.
    pub cpu_hours: f64,
    /// CPU-hours under every cost model.
    pub cost: CostBreakdown,
    /// κ(t) steps `(t, κ)`.
    pub kappa_series: Vec<(f64, f64)>,
    /// Time average of κ over the horizon.
    pub kappa_time_avg: f64,
    /// Largest κ reached (while monitoring ran; see [`simulate`](crate::sim::simulate)).
    pub kappa_max: f64,
    /// Mean min/max accuracy of the last-two-average runtime prediction over BoT tasks.
    pub predictor_accuracy: f64,
    /// Background jobs wider than their site, clamped to the site size.
    pub clamped_background: usize,
    /// Cloud acquisitions requested.
    pub cloud_acquisitions: u64,
    /// Cloud releases done.
    pub cloud_releases: u64,
    /// Where the background load came from.
    pub background: BackgroundSource,
    /// First to last BoT arrival, seconds (the span over which load is measured).
    pub arrival_span_s: f64,
    /// Processor-seconds busy with BoT tasks within the arrival span (grid and cloud).
    pub bot_busy_s: f64,
    /// Processor-seconds busy with background jobs within the arrival span.
    pub background_busy_s: f64,
}

/// Busy processor-time of one run within its arrival span (first to last BoT arrival), as
/// fractions of the initial system's processors × span, split by the work that kept them busy.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct BusyShare {
    /// BoT tasks. On the initial system this is the realised load of Yigitbasi & Epema 2010,
    /// §V-A ("load … in the initial system"); on an overprovisioned system it may exceed 1.
    pub bot: f64,
    /// Background jobs.
    pub background: f64,
}

impl RunResult {
    /// The run's [`BusyShare`] (zero for a workload whose BoTs all arrive at one instant).
    pub fn busy_share(&self) -> BusyShare {
        let capacity = self.base_procs as f64 * self.arrival_span_s;
        if capacity > 0.0 {
            BusyShare {
                bot: self.bot_busy_s / capacity,
                background: self.background_busy_s / capacity,
            }
        } else {
            BusyShare {
                bot: 0.0,
                background: 0.0,
            }
        }
    }
}
