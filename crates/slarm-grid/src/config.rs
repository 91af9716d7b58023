//! Configuration of a grid run besides platform, workload and policies: the local queue
//! discipline, the cost model and the overheads of the cloud pool (Yigitbasi & Epema 2010,
//! §IV-A and §V-C).

use crate::error::Result;
use crate::platform::REFERENCE_SPEED_GHZ;
use slarm_stats::check;

/// Which cost figure [`RunResult::cpu_hours`](crate::result::RunResult::cpu_hours) reports (Yigitbasi & Epema 2010, §V-C and Table IV).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum CostModel {
    /// Every processor charged while provisioned: grid × T plus ceiled cloud leases.
    ProvisionedAll,
    /// Default for Table IV: static = provisioned × T; elastic = busy grid time plus ceiled
    /// cloud leases.
    BusyGridPlusCloudLeases,
    /// Busy processor time only (sensitivity).
    BusyOnly,
}

/// Queue discipline of every local resource manager (§IV-A; FCFS unless stated).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum LrmPolicy {
    /// First come, first served without backfilling (the default).
    #[default]
    Fcfs,
    /// EASY backfilling: a later job may start now if it fits in the free processors and
    /// does not delay the head job's reservation. Runtime estimates are the actual runtimes
    /// (the model has no user estimates); ECT's what-if still assumes FCFS. The pass is
    /// `slarm_sim`'s ([`slarm_sim::policy::easy_pass`]), for sites of up to `u32::MAX`
    /// processors.
    EasyBackfill,
}

/// Simulation parameters besides platform, workload and policies.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct GridConfig {
    /// Reference processor speed for runtimes and NSL (2.2 GHz).
    pub reference_speed_ghz: f64,
    /// Cloud acquisition overhead, uniform bounds in seconds (69, 126).
    pub acquisition_s: (f64, f64),
    /// Cloud release overhead, uniform bounds in seconds (18, 23).
    pub release_s: (f64, f64),
    /// Cost horizon T in seconds; `None` = first to last BoT arrival.
    pub horizon_s: Option<f64>,
    /// Cost model of [`RunResult::cpu_hours`](crate::result::RunResult::cpu_hours).
    pub cost_model: CostModel,
    /// Cold-start prediction of the ECT predictor (2^2.73 s).
    pub cold_prediction_s: f64,
    /// Local queue discipline (FCFS by default).
    #[cfg_attr(feature = "serde", serde(default))]
    pub lrm: LrmPolicy,
}

impl Default for GridConfig {
    fn default() -> Self {
        Self {
            reference_speed_ghz: REFERENCE_SPEED_GHZ,
            acquisition_s: (69.0, 126.0),
            release_s: (18.0, 23.0),
            horizon_s: None,
            cost_model: CostModel::BusyGridPlusCloudLeases,
            cold_prediction_s: 2f64.powf(2.73),
            lrm: LrmPolicy::Fcfs,
        }
    }
}

pub(crate) fn validate_cfg(cfg: &GridConfig) -> Result<()> {
    check::positive("reference speed", cfg.reference_speed_ghz)?;
    for (name, (lo, hi)) in [
        ("acquisition overhead", cfg.acquisition_s),
        ("release overhead", cfg.release_s),
    ] {
        check::non_negative(name, lo)?;
        check::at_least(name, hi, lo)?;
    }
    if let Some(h) = cfg.horizon_s {
        check::positive("cost horizon", h)?;
    }
    check::positive("cold prediction", cfg.cold_prediction_s)?;
    Ok(())
}

/// The former name of [`GridConfig`].
#[deprecated(since = "0.1.0", note = "renamed to GridConfig")]
pub type SimConfig = GridConfig;
