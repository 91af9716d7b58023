//! All pre-computed tables of one configuration (Sung 2006, §5.2) and the Monte Carlo sizes that
//! build them.

use std::sync::Arc;

use slarm_stats::RngStreams;

use crate::arrival::ArrivalProfile;
use crate::cost::CostFunction;
use crate::dp::Plan;
use crate::error::Result;
use crate::gtable::{g_table, GConfig, GTable};
use crate::ktable::{k_table, KConfig, KTable};
use crate::params::Params;

/// Monte Carlo sizes of the pre-computation.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct McSizes {
    /// g phase.
    pub g: GConfig,
    /// k phase.
    pub k: KConfig,
}

impl McSizes {
    fn sizes(g_runs: usize, p_max_only: bool, saturated_runs: usize, special_runs: usize) -> Self {
        Self {
            g: GConfig {
                runs: g_runs,
                exact_after_u: true,
                p_max_only,
            },
            k: KConfig {
                saturated_runs,
                special_runs,
                exact_after_u: true,
            },
        }
    }

    /// The reproduction's sizes (`reproduce --scale paper`): 400,000 runs per g cell below `u` (g
    /// within about ±2 jobs at 95 %), 1,000 saturated runs per `q` (the thesis) and 10,000 runs per
    /// special k cell (sizes the thesis leaves open); exact pure-death chains after `u`. Standard
    /// errors in docs/decisions.md.
    pub fn paper() -> Self {
        Self::sizes(400_000, false, 1000, 10_000)
    }

    /// The default of `slarm provision`: as [`McSizes::paper`] with 100,000 runs per g
    /// cell (about ±4 jobs at 95 %).
    pub fn standard() -> Self {
        Self::sizes(100_000, false, 1000, 10_000)
    }

    /// The scalability test of §5.4.4 (Fig. 5.17): g only for `p = p_max` below `u` (what the
    /// thesis times) with 20,000 runs, 1,000 saturated and 4,000 special k runs.
    pub fn scalability() -> Self {
        Self::sizes(20_000, true, 1000, 4000)
    }

    /// Small sizes for tests and quick runs: 10,000 g runs, 300 saturated and 1,000 special.
    pub fn quick() -> Self {
        Self::sizes(10_000, false, 300, 1000)
    }
}

/// Cost-independent tables `g` and `k` (each serialisable on its own).
#[derive(Debug, Clone)]
pub struct Tables {
    /// Parameters they were built for.
    pub params: Params,
    /// `g_s(p)`.
    pub g: Arc<GTable>,
    /// `k_s(q, n, m)` and `K_s`.
    pub k: Arc<KTable>,
}

impl Tables {
    /// Builds g and k (streams `child(&[1])` and `child(&[2])` of `streams`).
    pub fn build(
        params: &Params,
        profile: &ArrivalProfile,
        streams: &RngStreams,
        sizes: &McSizes,
    ) -> Result<Self> {
        let g = build_g(params, profile, streams, sizes)?;
        let k = build_k(params, profile, streams, sizes)?;
        Ok(Self {
            params: params.clone(),
            g: Arc::new(g),
            k: Arc::new(k),
        })
    }

    /// The cost tables for `cost`.
    pub fn plan(&self, cost: &dyn CostFunction) -> Result<Plan> {
        Plan::build(&self.params, self.g.clone(), self.k.clone(), cost)
    }
}

/// The g phase of [`Tables::build`] on its own (for timing it, Fig. 5.17).
pub fn build_g(
    params: &Params,
    profile: &ArrivalProfile,
    streams: &RngStreams,
    sizes: &McSizes,
) -> Result<GTable> {
    g_table(params, profile, &streams.child(&[1]), &sizes.g)
}

/// The k phase of [`Tables::build`] on its own (for timing it, Fig. 5.17).
pub fn build_k(
    params: &Params,
    profile: &ArrivalProfile,
    streams: &RngStreams,
    sizes: &McSizes,
) -> Result<KTable> {
    k_table(params, profile, &streams.child(&[2]), &sizes.k)
}
