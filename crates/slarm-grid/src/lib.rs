#![doc = include_str!("../README.md")]
//!
//! ## The model, module by module
//! - A [`platform::Platform`] of homogeneous sites (DAS-3 of Table I: 544 processors);
//!   task runtimes scale with 2.2 GHz / site speed.
//! - A global resource manager dispatches every arriving BoT immediately with one of four
//!   [`sched::BotScheduler`] policies (static proportional, dynamic per task, dynamic per BoT,
//!   ECT with the last-two-average predictor); each site runs an FCFS local manager without
//!   preemption (EASY backfilling as an option, [`sim::LrmPolicy`]); background jobs go
//!   straight to their own site.
//! - Overprovisioning strategies implement [`provision::Provisioner`]: none, static All /
//!   Largest / Number (pure functions of the platform and an exact rational [`kappa::Kappa`]),
//!   Dynamic auto-scaling with a cloud pool (acquisition U(69,126) s, release U(18,23) s, ±10 %
//!   κ band) and the §VII feedback controller (window 10, p90 makespan).
//! - The workload is the Iosup et al. BoT model of Table II ([`workload::IosupBotModel`]),
//!   by default with arrivals at Table II's mean inter-arrival time of 124.6 s and Table
//!   II's "task average runtime" drawn per BoT with a per-task spread ([`run::paper_model`],
//!   its average capped at Table II's 7859.7 s); the realised and the offered load of the
//!   initial system are arrival-scaling variants ([`run::LoadDefinition`]). Background jobs
//!   come from a GWF/SWF trace (time shift, site mapping) or a labelled synthetic generator.
//! - [`sim::simulate`] runs one configuration on the shared `slarm-sim` event kernel;
//!   [`metrics`] computes makespan, NSL, C_d, C_s, box statistics, p90 and CPU-hours.
//! - [`utilisation`] measures the utilisation a background load demands per site and overall
//!   (the paper's Fig. 2).

pub mod config;
pub mod error;
pub mod kappa;
pub mod metrics;
pub mod platform;
pub mod provision;
pub mod result;
pub mod run;
pub mod sched;
pub mod sim;
pub mod site;
pub mod utilisation;
pub mod workload;

pub use error::{GridError, GridNameError, Result};

/// The main types in one import.
pub mod prelude {
    pub use crate::error::{GridError, Result};
    pub use crate::kappa::Kappa;
    pub use crate::metrics::{consistency, BotRecord, Consistency, Grouping};
    pub use crate::platform::{Platform, Site, SiteKind};
    pub use crate::provision::{
        DynamicAutoScale, DynamicSettings, DynamicStart, FeedbackController, NoOverprovisioning,
        Provisioner, StaticAll, StaticLargest, StaticNumber, StrategyKind,
    };
    pub use crate::run::{
        load_level, paper_model, run_at_level, run_scenario, BackgroundSpec, LoadDefinition,
        LoadLevel, Scenario, ScenarioResult,
    };
    #[allow(deprecated)]
    pub use crate::sched::PolicyKind;
    pub use crate::sched::{BotPolicy, BotScheduler, DynamicPerBot, DynamicPerTask, Ect};
    #[allow(deprecated)]
    pub use crate::sim::SimConfig;
    pub use crate::sim::{simulate, BusyShare, CostModel, GridConfig, LrmPolicy, RunResult};
    #[allow(deprecated)]
    pub use crate::workload::Workload;
    pub use crate::workload::{
        ArrivalScale, BackgroundSource, GridWorkload, IosupBotModel, SyntheticBackground,
    };
}
