//! Pricing policies behind one trait (Yeo & Buyya, §V.B and §VII.B).
//!
//! * [`LibraPlusDollar`]: `P_ij = α·PBase_j + β·PUtil_ij`, `PUtil_ij = RESMax_j/RESFree_ij ·
//!   PBase_j` (eqs. 3-5), cost `RE_i · P_ij` for processor time (eq. 6), and the
//!   multi-resource sum of per-resource rates.
//! * [`LibraStatic`]: `C_i = γ·RE_i + δ·RE_i/D_i`, independent of load and node.
//! * [`FixedRate`]: `C_i = RE_i · PBase` (the EASY-backfilling baselines).

use crate::error::{PricingError, Result};
use slarm_stats::check;

/// One resource of one node over the pricing window [AT_i, DT_i] (eq. 5): its maximum units,
/// the units committed to accepted jobs during the window, and the job's own request.
///
/// Only [`ResourceWindow::new`] builds one (deserializing goes through it too), so its fields are
/// read through methods.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(try_from = "ResourceWindowParts"))]
pub struct ResourceWindow {
    max: f64,
    committed: f64,
    request: f64,
}

/// The fields of a [`ResourceWindow`] as serialized: deserializing checks them with
/// [`ResourceWindow::new`].
#[cfg(feature = "serde")]
#[derive(serde::Deserialize)]
struct ResourceWindowParts {
    max: f64,
    committed: f64,
    request: f64,
}

#[cfg(feature = "serde")]
impl TryFrom<ResourceWindowParts> for ResourceWindow {
    type Error = PricingError;

    fn try_from(p: ResourceWindowParts) -> Result<Self> {
        ResourceWindow::new(p.max, p.committed, p.request)
    }
}

impl ResourceWindow {
    /// A validated window (all amounts finite and >= 0, `max` > 0, and RESFree finite:
    /// amounts near `f64::MAX` whose difference overflows are rejected).
    pub fn new(max: f64, committed: f64, request: f64) -> Result<Self> {
        check::positive("RESMax", max)?;
        check::non_negative("committed resource", committed)?;
        check::non_negative("requested resource", request)?;
        let w = Self {
            max,
            committed,
            request,
        };
        if !w.free().is_finite() {
            return Err(PricingError::NonFinite {
                what: "RESFree",
                value: w.free(),
            });
        }
        Ok(w)
    }

    /// RESMax_j: units available on the node over the window.
    pub fn max(&self) -> f64 {
        self.max
    }

    /// Σ RES_k of the accepted jobs executing on the node during the window.
    pub fn committed(&self) -> f64 {
        self.committed
    }

    /// RES_i: the job's own requirement.
    pub fn request(&self) -> f64 {
        self.request
    }

    /// RESFree_ij = RESMax_j - Σ RES_k - RES_i (eq. 5 / 6).
    pub fn free(&self) -> f64 {
        self.max - self.committed - self.request
    }
}

/// The utilisation pricing rate `PUtil_ij = RESMax_j / RESFree_ij · PBase_j` (eq. 4).
///
/// Errors on a PBase that is not finite and positive, and with
/// [`PricingError::NoFreeResource`] when RESFree <= 0 (admission control must
/// check sufficiency before pricing, §V.B).
///
/// ```
/// use slarm_pricing::pricing::{utilization_rate, ResourceWindow};
/// // The worked example of §V.B, deadline 2 h: 200 / (200 - 90 - 10) * $1 = $2 per unit.
/// let w = ResourceWindow::new(200.0, 90.0, 10.0).unwrap();
/// assert!((utilization_rate(1.0, &w).unwrap() - 2.0).abs() < 1e-12);
/// ```
pub fn utilization_rate(pbase: f64, window: &ResourceWindow) -> Result<f64> {
    check::positive("PBase", pbase)?;
    let free = window.free();
    if free.is_nan() || free <= 0.0 {
        return Err(PricingError::NoFreeResource {
            resource: "resource",
            free,
        });
    }
    Ok(window.max / free * pbase)
}

/// What a policy needs to price one process of job i on node j (processor time only).
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct PriceQuote {
    /// RE_ij: the runtime estimate on node j (processor-seconds).
    pub estimate: f64,
    /// D_i: the relative deadline (seconds).
    pub deadline: f64,
    /// Processor time of node j over [AT_i, DT_i] (RESMax = D_i on a unit-speed node).
    pub cpu: ResourceWindow,
}

/// A pricing policy: the cost of running one process of a job on one node.
///
/// Algorithm 1 charges a job the **maximum** of its per-node costs, never the sum.
pub trait PricingPolicy: std::fmt::Debug + Send + Sync {
    /// Short name (`libra-plus`, `libra`, `fixed`).
    fn name(&self) -> &'static str;
    /// Cost of running job i's process on node j as described by `quote`.
    fn cost(&self, quote: &PriceQuote) -> Result<f64>;
}

impl<T: PricingPolicy + ?Sized> PricingPolicy for &T {
    fn name(&self) -> &'static str {
        (**self).name()
    }

    fn cost(&self, quote: &PriceQuote) -> Result<f64> {
        (**self).cost(quote)
    }
}

impl<T: PricingPolicy + ?Sized> PricingPolicy for Box<T> {
    fn name(&self) -> &'static str {
        (**self).name()
    }

    fn cost(&self, quote: &PriceQuote) -> Result<f64> {
        (**self).cost(quote)
    }
}

/// Libra+$ dynamic pricing (eqs. 3-6). Built only by [`LibraPlusDollar::new`] (also when
/// deserialized), so α, β and PBase are always valid.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(try_from = "LibraPlusDollarRaw"))]
pub struct LibraPlusDollar {
    alpha: f64,
    beta: f64,
    pbase: f64,
}

/// The unvalidated fields of [`LibraPlusDollar`], for deserialization.
#[cfg(feature = "serde")]
#[derive(serde::Deserialize)]
struct LibraPlusDollarRaw {
    alpha: f64,
    beta: f64,
    pbase: f64,
}

#[cfg(feature = "serde")]
impl TryFrom<LibraPlusDollarRaw> for LibraPlusDollar {
    type Error = PricingError;
    fn try_from(r: LibraPlusDollarRaw) -> Result<Self> {
        Self::new(r.alpha, r.beta, r.pbase)
    }
}

/// One priced resource of the multi-resource form: how many units the job uses, the base
/// rate of the resource and its window on the node.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ResourceCharge {
    /// Units charged (processor-seconds for CPU; units, optionally × duration, otherwise).
    pub amount: f64,
    /// PBase of this resource on the node.
    pub pbase: f64,
    /// The resource's window on the node.
    pub window: ResourceWindow,
}

impl LibraPlusDollar {
    /// Validated parameters: α, β >= 0, PBase > 0.
    ///
    /// ```
    /// use slarm_pricing::pricing::{LibraPlusDollar, PriceQuote, PricingPolicy, ResourceWindow};
    /// let p = LibraPlusDollar::new(1.0, 0.1, 1.0).unwrap();
    /// // Empty node, RE = 100 s, D = 800 s: P = 1 + 0.1 * 800/700.
    /// let q = PriceQuote { estimate: 100.0, deadline: 800.0,
    ///                      cpu: ResourceWindow::new(800.0, 0.0, 100.0).unwrap() };
    /// assert!((p.cost(&q).unwrap() - 100.0 * (1.0 + 0.1 * 800.0 / 700.0)).abs() < 1e-9);
    /// ```
    pub fn new(alpha: f64, beta: f64, pbase: f64) -> Result<Self> {
        check::non_negative("alpha", alpha)?;
        check::non_negative("beta", beta)?;
        check::positive("PBase", pbase)?;
        Ok(Self { alpha, beta, pbase })
    }

    /// α: weight of the static component.
    pub fn alpha(&self) -> f64 {
        self.alpha
    }

    /// β: weight of the dynamic (utilisation) component.
    pub fn beta(&self) -> f64 {
        self.beta
    }

    /// PBase: base rate per processor-second.
    pub fn pbase(&self) -> f64 {
        self.pbase
    }

    /// The pricing rate P_ij per unit of a resource with base rate `pbase` (eq. 3).
    pub fn rate(&self, pbase: f64, window: &ResourceWindow) -> Result<f64> {
        Ok(self.alpha * pbase + self.beta * utilization_rate(pbase, window)?)
    }

    /// The multi-resource cost `Σ_r amount_r · P_ij^r`: the paper (§V.B) sums the per-resource
    /// pricing rates of a job on a node.
    pub fn multi_resource_cost(&self, charges: &[ResourceCharge]) -> Result<f64> {
        charges.iter().try_fold(0.0, |acc, c| {
            check::non_negative("charged amount", c.amount)?;
            Ok(acc + c.amount * self.rate(c.pbase, &c.window)?)
        })
    }
}

impl PricingPolicy for LibraPlusDollar {
    fn name(&self) -> &'static str {
        "libra-plus"
    }

    fn cost(&self, quote: &PriceQuote) -> Result<f64> {
        Ok(quote.estimate * self.rate(self.pbase, &quote.cpu)?)
    }
}

/// Libra's static pricing `γ·RE + δ·RE/D` (the Libra baseline of §VII.B). Built only by
/// [`LibraStatic::new`] (also when deserialized).
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(try_from = "LibraStaticRaw"))]
pub struct LibraStatic {
    gamma: f64,
    delta: f64,
}

/// The unvalidated fields of [`LibraStatic`], for deserialization.
#[cfg(feature = "serde")]
#[derive(serde::Deserialize)]
struct LibraStaticRaw {
    gamma: f64,
    delta: f64,
}

#[cfg(feature = "serde")]
impl TryFrom<LibraStaticRaw> for LibraStatic {
    type Error = PricingError;
    fn try_from(r: LibraStaticRaw) -> Result<Self> {
        Self::new(r.gamma, r.delta)
    }
}

impl LibraStatic {
    /// Validated parameters (γ, δ >= 0).
    pub fn new(gamma: f64, delta: f64) -> Result<Self> {
        check::non_negative("gamma", gamma)?;
        check::non_negative("delta", delta)?;
        Ok(Self { gamma, delta })
    }

    /// γ: price per second of estimate.
    pub fn gamma(&self) -> f64 {
        self.gamma
    }

    /// δ: weight of the deadline term.
    pub fn delta(&self) -> f64 {
        self.delta
    }
}

impl PricingPolicy for LibraStatic {
    fn name(&self) -> &'static str {
        "libra"
    }

    fn cost(&self, quote: &PriceQuote) -> Result<f64> {
        check::positive("deadline", quote.deadline)?;
        Ok(self.gamma * quote.estimate + self.delta * quote.estimate / quote.deadline)
    }
}

/// Fixed rate `RE · PBase` (the backfilling baselines of §VII.B). Built only by
/// [`FixedRate::new`] (also when deserialized).
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(try_from = "FixedRateRaw"))]
pub struct FixedRate {
    pbase: f64,
}

/// The unvalidated field of [`FixedRate`], for deserialization.
#[cfg(feature = "serde")]
#[derive(serde::Deserialize)]
struct FixedRateRaw {
    pbase: f64,
}

#[cfg(feature = "serde")]
impl TryFrom<FixedRateRaw> for FixedRate {
    type Error = PricingError;
    fn try_from(r: FixedRateRaw) -> Result<Self> {
        Self::new(r.pbase)
    }
}

impl FixedRate {
    /// Validated rate (> 0).
    pub fn new(pbase: f64) -> Result<Self> {
        check::positive("PBase", pbase)?;
        Ok(Self { pbase })
    }

    /// PBase per processor-second.
    pub fn pbase(&self) -> f64 {
        self.pbase
    }
}

impl PricingPolicy for FixedRate {
    fn name(&self) -> &'static str {
        "fixed"
    }

    fn cost(&self, quote: &PriceQuote) -> Result<f64> {
        Ok(quote.estimate * self.pbase)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A window is built only checked, deserializing included.
    #[test]
    fn resource_window_cannot_be_built_invalid() {
        let w = ResourceWindow::new(200.0, 90.0, 10.0).unwrap();
        assert_eq!(
            (w.max(), w.committed(), w.request(), w.free()),
            (200.0, 90.0, 10.0, 100.0)
        );
        for (max, committed, request) in [
            (0.0, 0.0, 0.0),
            (f64::NAN, 0.0, 0.0),
            (1.0, -1.0, 0.0),
            (1.0, 0.0, f64::INFINITY),
            (f64::MAX, -f64::MAX, 0.0),
        ] {
            assert!(ResourceWindow::new(max, committed, request).is_err());
        }
        let text = serde_json::to_string(&w).unwrap();
        assert_eq!(serde_json::from_str::<ResourceWindow>(&text).unwrap(), w);
        let bad = r#"{"max":0.0,"committed":0.0,"request":0.0}"#;
        assert!(serde_json::from_str::<ResourceWindow>(bad).is_err());
    }

    #[test]
    fn worked_example_2h_5h() {
        // §V.B worked example: 10 units requested, $1/unit, 100 free units per hour of deadline,
        // 90 units used by accepted jobs in both windows.
        let two_h = ResourceWindow::new(200.0, 90.0, 10.0).unwrap();
        let five_h = ResourceWindow::new(500.0, 90.0, 10.0).unwrap();
        assert!((utilization_rate(1.0, &two_h).unwrap() - 2.0).abs() < 1e-12);
        assert!((utilization_rate(1.0, &five_h).unwrap() - 1.25).abs() < 1e-12);
        // P_ij = α·1 + β·PUtil.
        let p = LibraPlusDollar::new(1.0, 0.5, 1.0).unwrap();
        assert!((p.rate(1.0, &two_h).unwrap() - 2.0).abs() < 1e-12);
        assert!((p.rate(1.0, &five_h).unwrap() - 1.625).abs() < 1e-12);
    }

    #[test]
    fn no_free_resource_is_an_error() {
        let full = ResourceWindow::new(100.0, 90.0, 10.0).unwrap();
        assert!(matches!(
            utilization_rate(1.0, &full),
            Err(PricingError::NoFreeResource { .. })
        ));
        assert!(ResourceWindow::new(0.0, 0.0, 0.0).is_err());
        assert!(ResourceWindow::new(1.0, -1.0, 0.0).is_err());
        // Found by crates/slarm/tests/robustness.rs: finite amounts whose sum overflows.
        assert!(ResourceWindow::new(1.0, f64::MAX, f64::MAX).is_err());
        // Found by crates/slarm/tests/robustness: a negative PBase gave a negative rate.
        assert!(utilization_rate(-1.0, &ResourceWindow::new(200.0, 90.0, 10.0).unwrap()).is_err());
        assert!(LibraPlusDollar::new(-1.0, 0.0, 1.0).is_err());
        assert!(LibraPlusDollar::new(1.0, f64::NAN, 1.0).is_err());
        assert!(LibraStatic::new(-1.0, 0.0).is_err());
        assert!(FixedRate::new(0.0).is_err());
    }

    #[test]
    fn deserialization_validates() {
        let p = LibraPlusDollar::new(1.0, 0.1, 2.0).unwrap();
        let text = serde_json::to_string(&p).unwrap();
        assert_eq!(text, r#"{"alpha":1.0,"beta":0.1,"pbase":2.0}"#);
        assert_eq!(serde_json::from_str::<LibraPlusDollar>(&text).unwrap(), p);
        assert!(serde_json::from_str::<LibraPlusDollar>(
            r#"{"alpha":-1.0,"beta":0.1,"pbase":2.0}"#
        )
        .is_err());
        assert!(serde_json::from_str::<LibraStatic>(r#"{"gamma":1.0,"delta":-2.0}"#).is_err());
        assert!(serde_json::from_str::<FixedRate>(r#"{"pbase":0.0}"#).is_err());
    }

    #[test]
    fn empty_node_price_with_beta_one() {
        // On an empty node P = α + β·D/(D - RE): β = 1, D/R = 8 gives 1 + 8/7 = 2.14 × PBase.
        let p = LibraPlusDollar::new(1.0, 1.0, 1.0).unwrap();
        let q = PriceQuote {
            estimate: 1.0,
            deadline: 8.0,
            cpu: ResourceWindow::new(8.0, 0.0, 1.0).unwrap(),
        };
        assert!((p.cost(&q).unwrap() - (1.0 + 8.0 / 7.0)).abs() < 1e-12);
    }

    #[test]
    fn libra_static_and_fixed() {
        let q = PriceQuote {
            estimate: 100.0,
            deadline: 400.0,
            cpu: ResourceWindow::new(400.0, 0.0, 100.0).unwrap(),
        };
        let l = LibraStatic::new(1.0, 1.0).unwrap();
        assert!((l.cost(&q).unwrap() - 100.25).abs() < 1e-12);
        assert!((FixedRate::new(2.0).unwrap().cost(&q).unwrap() - 200.0).abs() < 1e-12);
        assert_eq!(l.name(), "libra");
    }

    #[test]
    fn multi_resource_cost_is_a_sum() {
        let p = LibraPlusDollar::new(1.0, 1.0, 1.0).unwrap();
        let cpu = ResourceCharge {
            amount: 10.0,
            pbase: 1.0,
            window: ResourceWindow::new(100.0, 40.0, 10.0).unwrap(),
        };
        let mem = ResourceCharge {
            amount: 10.0,
            pbase: 2.0,
            window: ResourceWindow::new(200.0, 90.0, 10.0).unwrap(),
        };
        let total = p.multi_resource_cost(&[cpu, mem]).unwrap();
        let expect = 10.0 * (1.0 + 100.0 / 50.0) + 10.0 * (2.0 + 2.0 * 2.0);
        assert!((total - expect).abs() < 1e-9);
        assert_eq!(p.multi_resource_cost(&[]).unwrap(), 0.0);
    }

    proptest! {
        // P_ij strictly increases as RESFree decreases and is >= (α+β)·PBase (eqs. 3-4).
        #[test]
        fn price_monotone_in_free(max in 1.0f64..1e6, c1 in 0.0f64..1.0, c2 in 0.0f64..1.0,
                                  alpha in 0.0f64..2.0, beta in 0.01f64..2.0) {
            let p = LibraPlusDollar::new(alpha, beta, 1.0).unwrap();
            let (lo, hi) = if c1 < c2 { (c1, c2) } else { (c2, c1) };
            prop_assume!(hi - lo > 1e-6 && hi < 0.999);
            let a = p.rate(1.0, &ResourceWindow::new(max, lo * max, 0.0).unwrap()).unwrap();
            let b = p.rate(1.0, &ResourceWindow::new(max, hi * max, 0.0).unwrap()).unwrap();
            prop_assert!(b > a);
            prop_assert!(a >= alpha + beta - 1e-12);
        }
    }
}
