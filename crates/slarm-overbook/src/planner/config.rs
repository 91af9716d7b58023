//! The configuration of the planner and of a battery run (Birkenheuer 2012, §3.6 strategies,
//! §3.2 acceptance tests, §5.2 evaluation set-up).

use crate::acceptance::TestSpec;
use crate::failure::FailureModel;
use crate::strategy::{PlacementPolicy, Strategy};

/// Configuration of the planner and of one battery simulation.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct BatteryConfig {
    /// Strategy.
    pub strategy: Strategy,
    /// Acceptance test.
    pub test: TestSpec,
    /// SecurityFactor of the risk test (default per strategy: 4 comprehensive, 2 heuristic).
    pub security_factor: Option<f64>,
    /// Placement policy (default near best fit, the evaluated one).
    pub policy: PlacementPolicy,
    /// Failure model used in PoS (the events come from the caller).
    pub failure_model: FailureModel,
    /// Grid step of the comprehensive convolution in seconds (the thesis gives none).
    pub grid_step: f64,
    /// Also apply the acceptance test to full-length slots (default false: Listing 3.1 tests only overbooked ones).
    pub test_full_slots: bool,
    /// Comprehensive family only: free a job's nodes at its real end and move planned jobs
    /// earlier on freed nodes (`None` = the strategy's own rule: comprehensive overbooking yes,
    /// comprehensive backfilling no, thesis §3.6.1). `Some(true)` on backfilling gives the
    /// counterpart that comprehensive overbooking degenerates to at PoF_max = 0.
    #[cfg_attr(feature = "serde", serde(default))]
    pub early_release: Option<bool>,
    /// Comprehensive overbooking only: condition the end distribution of every predecessor
    /// that is still running or waiting on not having ended by now, `F(t | X > now)` (default
    /// false: the thesis uses the unconditional end distribution from planning, §3.2.2).
    #[cfg_attr(feature = "serde", serde(default))]
    pub condition_on_elapsed: bool,
    /// Check the plan and node invariants after every event time (tests; costs `O(jobs +
    /// reservations)` per event).
    #[cfg_attr(feature = "serde", serde(default))]
    pub check_invariants: bool,
    /// Record the time to decide every arriving job (thread CPU time, [`crate::clock`]).
    pub measure_latency: bool,
}

impl BatteryConfig {
    /// The evaluation's configuration for a strategy and test.
    pub fn new(strategy: Strategy, test: TestSpec) -> Self {
        Self {
            strategy,
            test,
            security_factor: None,
            policy: PlacementPolicy::NearBestFitSim,
            failure_model: FailureModel::default(),
            grid_step: 60.0,
            test_full_slots: false,
            early_release: None,
            condition_on_elapsed: false,
            check_invariants: false,
            measure_latency: false,
        }
    }
}
