//! All pre-computed tables of one configuration, with the time spent per phase
//! (spec §10.5, Fig. 5.17).

use std::sync::Arc;
use std::time::Instant;

use serde::{Deserialize, Serialize};
use slarm_stats::RngStreams;

use crate::arrival::ArrivalProfile;
use crate::cost::CostFunction;
use crate::dp::{build_table, CostInputs, Plan, Variant};
use crate::error::Result;
use crate::gtable::{g_table, GConfig, GTable};
use crate::ktable::{k_table, KConfig, KTable};
use crate::params::Params;

/// Monte Carlo sizes of the pre-computation.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct McSizes {
    /// g phase.
    pub g: GConfig,
    /// k phase.
    pub k: KConfig,
}

impl McSizes {
    /// The sizes used for the reproduction (justified in docs/decisions.md): 20,000 runs per
    /// g cell below `u`, 1,000 saturated runs per q (the thesis), 4,000 runs per special k
    /// cell; exact pure-death chains after `u`.
    pub fn standard() -> Self {
        Self {
            g: GConfig {
                runs: 20_000,
                exact_after_u: true,
            },
            k: KConfig {
                saturated_runs: 1000,
                special_runs: 4000,
                exact_after_u: true,
            },
        }
    }

    /// Small sizes for tests and quick runs.
    pub fn quick() -> Self {
        Self {
            g: GConfig {
                runs: 4000,
                exact_after_u: true,
            },
            k: KConfig {
                saturated_runs: 300,
                special_runs: 1000,
                exact_after_u: true,
            },
        }
    }
}

/// Cost-independent tables `g` and `k`.
/// (`g` and `k` are serialisable one by one.)
#[derive(Debug, Clone)]
pub struct Tables {
    /// Parameters they were built for.
    pub params: Params,
    /// `g_s(p)`.
    pub g: Arc<GTable>,
    /// `k_s(q, n, m)` and `K_s`.
    pub k: Arc<KTable>,
    /// Seconds spent on g.
    pub g_secs: f64,
    /// Seconds spent on k.
    pub k_secs: f64,
}

/// Wall-clock seconds per phase of one full pre-computation.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PhaseTimes {
    /// g.
    pub g: f64,
    /// k (saturated and special).
    pub k: f64,
    /// L (H3).
    pub l: f64,
    /// L' (H4).
    pub l1: f64,
    /// L'' (H5).
    pub l2: f64,
}

impl Tables {
    /// Builds g and k.
    pub fn build(
        params: &Params,
        profile: &ArrivalProfile,
        streams: &RngStreams,
        sizes: &McSizes,
    ) -> Result<Self> {
        let t = Instant::now();
        let g = g_table(params, profile, &streams.child(&[1]), &sizes.g)?;
        let g_secs = t.elapsed().as_secs_f64();
        let t = Instant::now();
        let k = k_table(params, profile, &streams.child(&[2]), &sizes.k)?;
        let k_secs = t.elapsed().as_secs_f64();
        Ok(Self {
            params: params.clone(),
            g: Arc::new(g),
            k: Arc::new(k),
            g_secs,
            k_secs,
        })
    }

    /// The cost tables for `cost`.
    pub fn plan(&self, cost: &dyn CostFunction) -> Result<Plan> {
        Plan::build(&self.params, self.g.clone(), self.k.clone(), cost)
    }

    /// Builds the three cost tables one at a time and reports the time of every phase.
    pub fn timed_plan(&self, cost: &dyn CostFunction) -> Result<(Plan, PhaseTimes)> {
        let p = &self.params;
        let inputs = CostInputs::new(p, cost)?;
        let t = Instant::now();
        let h3 = build_table(p, &self.g, &self.k, &inputs, Variant::H3, None)?;
        let l = t.elapsed().as_secs_f64();
        let t = Instant::now();
        let h4 = build_table(p, &self.g, &self.k, &inputs, Variant::H4, Some(&h3))?;
        let l1 = t.elapsed().as_secs_f64();
        let t = Instant::now();
        let h5 = build_table(p, &self.g, &self.k, &inputs, Variant::H5, Some(&h3))?;
        let l2 = t.elapsed().as_secs_f64();
        let plan = Plan {
            params: p.clone(),
            g: self.g.clone(),
            k: self.k.clone(),
            inputs,
            h3,
            h4,
            h5,
        };
        Ok((
            plan,
            PhaseTimes {
                g: self.g_secs,
                k: self.k_secs,
                l,
                l1,
                l2,
            },
        ))
    }
}
