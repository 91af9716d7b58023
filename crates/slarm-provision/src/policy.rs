//! The provisioning heuristics behind one trait (Sung 2006, §4.2.1-§4.2.2 and §4.3.3-§4.3.6): H1,
//! H2 (stateful), H3, H4, H5 and a static allocation, all returning a change clamped so `p + Δ ∈
//! [p_min, p_max]`.
//!
//! [`Policy`] decides provisioning, how many servers run after a decision epoch, not which
//! queued job starts on a fixed machine (the question of `slarm-sim`'s scheduling policy
//! trait, which FCFS and the backfilling policies answer); Sung's servers serve one FCFS
//! queue, so the two traits stay apart.

use std::sync::Arc;

use crate::dp::{Plan, Variant};
use crate::error::{ProvisionError, Result};
use crate::gtable::GTable;
use crate::params::Params;

/// A provisioning policy called at every decision point `s = 1..=d-1`.
pub trait Policy: Send {
    /// Short name (e.g. `"H1"`).
    fn name(&self) -> String;
    /// Number of servers to add (> 0) or remove (< 0) given `n_s` jobs and `p_s` servers;
    /// `p_s + Δ` lies in `[p_min, p_max]`.
    fn decide(&mut self, s: usize, n: usize, p: usize) -> Result<i64>;
    /// Forgets any state (called before each evaluation run).
    fn reset(&mut self);
}

/// Which policy, as named on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
#[non_exhaustive]
pub enum Heuristic {
    /// Threshold-responding (Algorithm 1).
    H1,
    /// Delayed threshold-responding (Algorithm 2).
    H2,
    /// Cost-aware (Algorithm 3).
    H3,
    /// Cost-aware with `β` (Algorithm 5).
    H4,
    /// Cost-aware without removal cost (Algorithm 6).
    H5,
    /// A fixed number of servers.
    Static(usize),
}

impl std::str::FromStr for Heuristic {
    type Err = ProvisionError;
    /// Parses `h1..h5` or `static:K` (case-insensitive).
    fn from_str(s: &str) -> Result<Self> {
        let low = s.trim().to_ascii_lowercase();
        Ok(match low.as_str() {
            "h1" => Heuristic::H1,
            "h2" => Heuristic::H2,
            "h3" => Heuristic::H3,
            "h4" => Heuristic::H4,
            "h5" => Heuristic::H5,
            _ => match low.strip_prefix("static:").map(str::parse::<usize>) {
                Some(Ok(k)) if k >= 1 => Heuristic::Static(k),
                _ => {
                    return Err(ProvisionError::invalid(
                        "heuristic",
                        s,
                        "expected h1, h2, h3, h4, h5 or static:K with K >= 1",
                    ))
                }
            },
        })
    }
}

/// The former name of [`Heuristic`].
#[deprecated(since = "0.1.0", note = "renamed to Heuristic")]
pub type PolicyKind = Heuristic;

impl Heuristic {
    /// Parses `h1..h5` or `static:K`.
    #[deprecated(since = "0.1.0", note = "use str::parse (FromStr)")]
    pub fn parse(s: &str) -> Result<Self> {
        s.parse()
    }

    /// Display label.
    pub fn label(self) -> String {
        match self {
            Heuristic::Static(k) => format!("static-{k}"),
            other => format!("{other:?}"),
        }
    }

    /// Whether the policy needs the cost tables.
    pub fn is_cost_aware(self) -> bool {
        matches!(self, Heuristic::H3 | Heuristic::H4 | Heuristic::H5)
    }

    /// Instantiates the policy. `plan` is required for H3-H5, `g` for H1/H2.
    pub fn build(
        self,
        params: &Params,
        g: &Arc<GTable>,
        plan: Option<&Arc<Plan>>,
    ) -> Result<Box<dyn Policy>> {
        let need_plan = || {
            plan.cloned().ok_or_else(|| {
                ProvisionError::TableMismatch("cost-aware policy needs a plan".into())
            })
        };
        Ok(match self {
            Heuristic::H1 => Box::new(H1 {
                params: params.clone(),
                g: g.clone(),
            }),
            Heuristic::H2 => Box::new(H2::new(params.clone(), g.clone())),
            Heuristic::H3 => Box::new(CostAware {
                plan: need_plan()?,
                variant: Variant::H3,
            }),
            Heuristic::H4 => Box::new(CostAware {
                plan: need_plan()?,
                variant: Variant::H4,
            }),
            Heuristic::H5 => Box::new(CostAware {
                plan: need_plan()?,
                variant: Variant::H5,
            }),
            Heuristic::Static(k) => Box::new(Static {
                params: params.clone(),
                k,
            }),
        })
    }
}

/// H1: use `v_s`, the fewest servers with `n_s <= g_s(p)` (Eq. 4.5).
#[derive(Debug, Clone)]
pub struct H1 {
    params: Params,
    g: Arc<GTable>,
}

impl H1 {
    /// H1 on a g table.
    pub fn new(params: Params, g: Arc<GTable>) -> Self {
        Self { params, g }
    }
}

impl Policy for H1 {
    fn name(&self) -> String {
        "H1".into()
    }
    fn decide(&mut self, s: usize, n: usize, p: usize) -> Result<i64> {
        let v = self.params.clamp(self.g.v(s, n) as i64);
        Ok(v as i64 - p as i64)
    }
    fn reset(&mut self) {}
}

/// H2: H1, but removals need the removal condition at two consecutive decision points.
#[derive(Debug, Clone)]
pub struct H2 {
    params: Params,
    g: Arc<GTable>,
    prev: Option<(usize, usize)>,
}

impl H2 {
    /// H2 on a g table, with no previous decision point.
    pub fn new(params: Params, g: Arc<GTable>) -> Self {
        Self {
            params,
            g,
            prev: None,
        }
    }
}

impl Policy for H2 {
    fn name(&self) -> String {
        "H2".into()
    }
    fn decide(&mut self, s: usize, n: usize, p: usize) -> Result<i64> {
        let v = self.params.clamp(self.g.v(s, n) as i64);
        let prev_removal = self.prev.is_some_and(|(vp, pp)| vp < pp);
        let ret = if v >= p || prev_removal {
            v as i64 - p as i64
        } else {
            0
        };
        self.prev = Some((v, p));
        Ok(ret)
    }
    fn reset(&mut self) {
        self.prev = None;
    }
}

/// H3, H4 or H5: look up the argmin table of the plan.
#[derive(Debug, Clone)]
pub struct CostAware {
    plan: Arc<Plan>,
    variant: Variant,
}

impl CostAware {
    /// The cost-aware heuristic `variant` on `plan`.
    pub fn new(plan: Arc<Plan>, variant: Variant) -> Self {
        Self { plan, variant }
    }
}

impl Policy for CostAware {
    fn name(&self) -> String {
        format!("{:?}", self.variant)
    }
    fn decide(&mut self, s: usize, n: usize, p: usize) -> Result<i64> {
        let l = self.plan.decide(self.variant, s, p, n)?;
        Ok(self.plan.params.clamp(l as i64) as i64 - p as i64)
    }
    fn reset(&mut self) {}
}

/// A fixed allocation of `k` servers (clamped to the bounds).
#[derive(Debug, Clone)]
pub struct Static {
    params: Params,
    k: usize,
}

impl Static {
    /// Static `k`.
    pub fn new(params: Params, k: usize) -> Self {
        Self { params, k }
    }
}

impl Policy for Static {
    fn name(&self) -> String {
        format!("static-{}", self.k)
    }
    fn decide(&mut self, _s: usize, _n: usize, p: usize) -> Result<i64> {
        Ok(self.params.clamp(self.k as i64) as i64 - p as i64)
    }
    fn reset(&mut self) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toy_g() -> Arc<GTable> {
        // s = 0..2, p = 1..3
        Arc::new(GTable {
            p_min: 1,
            p_max: 3,
            values: ndarray::array![
                [Some(2), Some(5), Some(9)],
                [None, Some(1), Some(4)],
                [Some(0), Some(0), Some(0)],
            ],
            replays: 0,
        })
    }

    fn params() -> Params {
        Params {
            u: 1,
            d: 2,
            p_min: 1,
            p_max: 3,
            ..Params::thesis()
        }
    }

    #[test]
    fn h1_uses_v_and_clamps() {
        let mut h = H1::new(params(), toy_g());
        assert_eq!(h.decide(0, 3, 1).unwrap(), 1); // v = 2
        assert_eq!(h.decide(0, 20, 1).unwrap(), 2); // v = p_max + 1 -> 3
        assert_eq!(h.decide(1, 0, 3).unwrap(), -1); // g_1(1) NONE -> v = 2
    }

    #[test]
    fn h2_delays_removal_by_one_point() {
        let mut h = H2::new(params(), toy_g());
        assert_eq!(h.decide(0, 0, 3).unwrap(), 0); // first removal condition: wait
        assert_eq!(h.decide(0, 0, 3).unwrap(), -2); // second consecutive: remove
        h.reset();
        assert_eq!(h.decide(0, 6, 1).unwrap(), 2); // adds happen at once
        assert_eq!(h.decide(0, 0, 3).unwrap(), 0);
        assert_eq!(h.decide(0, 9, 3).unwrap(), 0); // condition broken
        assert_eq!(h.decide(0, 0, 3).unwrap(), 0);
    }

    #[test]
    fn parse_kinds() {
        assert_eq!(str::parse::<Heuristic>("H3").unwrap(), Heuristic::H3);
        assert_eq!(
            str::parse::<Heuristic>("static:4").unwrap(),
            Heuristic::Static(4)
        );
        assert!(str::parse::<Heuristic>("static:0").is_err());
        assert!(str::parse::<Heuristic>("h6").is_err());
        let mut st = Static::new(params(), 9);
        assert_eq!(st.decide(1, 0, 1).unwrap(), 2);
    }
}
