//! Overprovisioning strategies behind one trait (Yigitbasi & Epema 2010, §III): None, the three static layouts
//! (pure functions of the platform and κ), Dynamic auto-scaling and the feedback controller.

use crate::error::{GridError, GridNameError, Result};
use crate::kappa::Kappa;
use crate::metrics::percentile_nearest_rank;
use crate::platform::{largest_remainder, Platform, SiteKind};
use slarm_stats::check;

/// What the provisioner sees of the running system.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct PoolView {
    /// Simulation time, seconds.
    pub now_s: f64,
    /// Busy processors over grid and ready cloud (BoT and background jobs).
    pub used: u64,
    /// Ready processors over grid and cloud.
    pub ready_total: u64,
    /// Processors of the initial grid, S.
    pub base_procs: u64,
    /// Ready cloud processors.
    pub cloud_ready: u64,
    /// Requested cloud processors not yet ready.
    pub cloud_pending: u64,
    /// Idle ready cloud processors.
    pub cloud_idle: u64,
}

/// One decision of an elastic provisioner.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum CloudAction {
    /// Do nothing.
    Hold,
    /// Request one cloud processor.
    Acquire,
    /// Release one idle cloud processor.
    Release,
}

/// An overprovisioning strategy.
///
/// Static strategies change the platform before the workload arrives ([`Provisioner::layout`]);
/// elastic ones manage a cloud pool through [`Provisioner::on_monitor`] (periodic) and
/// [`Provisioner::on_bot_completed`] (feedback).
pub trait Provisioner {
    /// Short name (`none`, `all`, `largest`, `number`, `dynamic`, `feedback`).
    fn name(&self) -> &'static str;
    /// Target κ, if the strategy has one.
    fn kappa(&self) -> Option<Kappa> {
        None
    }
    /// The platform deployed before the workload arrives.
    fn layout(&self, base: &Platform) -> Result<Platform> {
        Ok(base.clone())
    }
    /// Whether the strategy uses a cloud pool.
    fn uses_cloud(&self) -> bool {
        false
    }
    /// Cloud processors ready at t = 0 on a grid of `base_procs` processors.
    fn initial_cloud(&self, _base_procs: u64) -> u64 {
        0
    }
    /// Monitoring period in seconds for [`Provisioner::on_monitor`], if any.
    fn monitor_period_s(&self) -> Option<f64> {
        None
    }
    /// Periodic decision.
    fn on_monitor(&mut self, _view: &PoolView) -> CloudAction {
        CloudAction::Hold
    }
    /// Decision after a BoT completes with makespan `makespan_s`.
    fn on_bot_completed(&mut self, _makespan_s: f64, _view: &PoolView) -> CloudAction {
        CloudAction::Hold
    }
}

/// The initial system ("NO", κ = 1).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct NoOverprovisioning;

impl Provisioner for NoOverprovisioning {
    fn name(&self) -> &'static str {
        "none"
    }
    fn kappa(&self) -> Option<Kappa> {
        Some(Kappa::one())
    }
}

/// All: every site scaled by κ, largest-remainder rounding to round(κS) (§III).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct StaticAll(pub Kappa);

impl Provisioner for StaticAll {
    fn name(&self) -> &'static str {
        "all"
    }
    fn kappa(&self) -> Option<Kappa> {
        Some(self.0)
    }
    fn layout(&self, base: &Platform) -> Result<Platform> {
        let sizes: Vec<u64> = base.sites().iter().map(|s| s.processors).collect();
        let total = self.0.round_scaled(base.total_processors(), 1, 1);
        Ok(base.with_sizes(&largest_remainder(total, &sizes)))
    }
}

/// Largest: only the largest site grows, by round((κ − 1)S) (§III).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct StaticLargest(pub Kappa);

impl Provisioner for StaticLargest {
    fn name(&self) -> &'static str {
        "largest"
    }
    fn kappa(&self) -> Option<Kappa> {
        Some(self.0)
    }
    fn layout(&self, base: &Platform) -> Result<Platform> {
        let mut sizes: Vec<u64> = base.sites().iter().map(|s| s.processors).collect();
        sizes[base.largest_site()] += self.0.extra_procs(base.total_processors());
        Ok(base.with_sizes(&sizes))
    }
}

/// Number: m = ceil((κ − 1)N) new sites cycling through the original sites as templates,
/// sizes apportioned to total round((κ − 1)S) (§III; the paper does not give
/// the new sites' sizes and speeds).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct StaticNumber(pub Kappa);

impl Provisioner for StaticNumber {
    fn name(&self) -> &'static str {
        "number"
    }
    fn kappa(&self) -> Option<Kappa> {
        Some(self.0)
    }
    fn layout(&self, base: &Platform) -> Result<Platform> {
        let n = base.sites().len() as u64;
        let k = self.0;
        // m = ceil((kappa - 1) n) = ceil(kappa n) - n.
        let m = k.ceil_scaled(n, 1, 1).saturating_sub(n) as usize;
        let templates: Vec<_> = base.sites().iter().cycle().take(m).cloned().collect();
        let weights: Vec<u64> = templates.iter().map(|s| s.processors).collect();
        let sizes = largest_remainder(k.extra_procs(base.total_processors()), &weights);
        let mut out = base.clone();
        for (i, (t, size)) in templates.iter().zip(sizes).enumerate() {
            if size > 0 {
                out.push(
                    format!("{}-copy{}", t.name, i / base.sites().len() + 1),
                    size,
                    t.speed_ghz,
                    SiteKind::Grid,
                );
            }
        }
        Ok(out)
    }
}

/// How the Dynamic strategy starts (§III leaves the initial cloud pool open).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum DynamicStart {
    /// round((κ − 1)S) cloud processors ready at t = 0 (default).
    Target,
    /// The lower band bound ready at t = 0.
    LowerBound,
    /// No cloud processors at t = 0 (κ(0) = 1).
    One,
}

/// The administrator's settings of the Dynamic strategy (§III).
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct DynamicSettings {
    /// Acquire when the system load exceeds this fraction (0.70).
    pub high: f64,
    /// Release when the system load falls below this fraction (0.60).
    pub low: f64,
    /// Monitoring period, seconds (60; §III does not give it).
    pub period_s: f64,
    /// κ band in integer percent (10 = ±10 %).
    pub band_percent: u64,
    /// Cloud pool at t = 0.
    pub start: DynamicStart,
}

impl Default for DynamicSettings {
    /// The paper's setting: high 70 %, low 60 %, period 60 s, band ±10 %, start at target.
    fn default() -> Self {
        Self {
            high: 0.70,
            low: 0.60,
            period_s: 60.0,
            band_percent: 10,
            start: DynamicStart::Target,
        }
    }
}

/// Dynamic: load-threshold auto-scaling with a cloud, one processor at a time, κ kept in a
/// ±band around the target (§III). Pending acquisitions count toward the band.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct DynamicAutoScale {
    kappa: Kappa,
    high: f64,
    low: f64,
    period_s: f64,
    band: (u64, u64),
    start: DynamicStart,
}

impl DynamicAutoScale {
    /// The paper's setting: high 70 %, low 60 %, period 60 s, band ±10 %, start at target.
    pub fn paper(kappa: Kappa) -> Self {
        Self {
            kappa,
            high: 0.70,
            low: 0.60,
            period_s: 60.0,
            band: (1, 10),
            start: DynamicStart::Target,
        }
    }

    /// The strategy with validated [`DynamicSettings`].
    pub fn with_settings(kappa: Kappa, d: &DynamicSettings) -> Result<Self> {
        Self::new(kappa, d.high, d.low, d.period_s, d.band_percent, d.start)
    }

    /// Custom thresholds (`low ≤ high` in [0, 1]), monitoring period (> 0 s), band
    /// `band_percent` (integer percent) and start condition.
    pub fn new(
        kappa: Kappa,
        high: f64,
        low: f64,
        period_s: f64,
        band_percent: u64,
        start: DynamicStart,
    ) -> Result<Self> {
        check::probability("high threshold", high)?;
        check::probability("low threshold", low)?;
        check::positive("monitoring period", period_s)?;
        if low > high {
            return Err(GridError::InvalidParameter {
                name: "low threshold",
                value: low,
                reason: "must not exceed the high threshold",
            });
        }
        if band_percent > 100 {
            return Err(GridError::InvalidParameter {
                name: "band",
                value: band_percent as f64,
                reason: "must be at most 100 %",
            });
        }
        Ok(Self {
            kappa,
            high,
            low,
            period_s,
            band: (band_percent, 100),
            start,
        })
    }

    /// Cloud-pool bounds `(lo, hi)` on a grid of `s` processors.
    pub fn bounds(&self, s: u64) -> (u64, u64) {
        self.kappa.band_bounds(s, self.band.0, self.band.1)
    }
}

impl Provisioner for DynamicAutoScale {
    fn name(&self) -> &'static str {
        "dynamic"
    }
    fn kappa(&self) -> Option<Kappa> {
        Some(self.kappa)
    }
    fn uses_cloud(&self) -> bool {
        true
    }
    fn initial_cloud(&self, s: u64) -> u64 {
        let (lo, hi) = self.bounds(s);
        match self.start {
            DynamicStart::Target => self.kappa.extra_procs(s).clamp(lo, hi),
            DynamicStart::LowerBound => lo,
            DynamicStart::One => 0,
        }
    }
    fn monitor_period_s(&self) -> Option<f64> {
        Some(self.period_s)
    }
    fn on_monitor(&mut self, v: &PoolView) -> CloudAction {
        let (lo, hi) = self.bounds(v.base_procs);
        let load = if v.ready_total == 0 {
            0.0
        } else {
            v.used as f64 / v.ready_total as f64
        };
        let n = v.cloud_ready + v.cloud_pending;
        if load > self.high && n < hi {
            CloudAction::Acquire
        } else if n < lo {
            // Ramp-up, one processor per period, from a start below the band (DynamicStart::One).
            CloudAction::Acquire
        } else if load < self.low && n > lo && v.cloud_idle > 0 {
            CloudAction::Release
        } else {
            CloudAction::Hold
        }
    }
}

/// The SEDA-inspired feedback controller of §VII: every `window` completed BoTs, compare the
/// nearest-rank p90 of their makespans with the target and the release threshold (§VII).
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct FeedbackController {
    window: usize,
    target_s: f64,
    release_s: f64,
    percentile: f64,
    recent: Vec<f64>,
}

impl FeedbackController {
    /// Controller with `window` BoTs (≥ 1), target and release thresholds in seconds
    /// (`release ≤ target`), p90.
    pub fn new(window: usize, target_s: f64, release_s: f64) -> Result<Self> {
        check::positive("target makespan", target_s)?;
        check::positive("release threshold", release_s)?;
        if window == 0 {
            return Err(GridError::InvalidParameter {
                name: "window",
                value: 0.0,
                reason: "must be >= 1",
            });
        }
        if release_s > target_s {
            return Err(GridError::InvalidParameter {
                name: "release threshold",
                value: release_s,
                reason: "must not exceed the target makespan",
            });
        }
        Ok(Self {
            window,
            target_s,
            release_s,
            percentile: 0.9,
            recent: Vec::with_capacity(window.min(1024)),
        })
    }

    /// Target makespan, seconds.
    pub fn target_s(&self) -> f64 {
        self.target_s
    }
}

impl Provisioner for FeedbackController {
    fn name(&self) -> &'static str {
        "feedback"
    }
    fn uses_cloud(&self) -> bool {
        true
    }
    fn on_bot_completed(&mut self, makespan_s: f64, v: &PoolView) -> CloudAction {
        self.recent.push(makespan_s);
        if self.recent.len() < self.window {
            return CloudAction::Hold;
        }
        // Non-overlapping windows: one activation per `window` completions (§VII: every 10 completed BoTs).
        let p = percentile_nearest_rank(&self.recent, self.percentile);
        self.recent.clear();
        match p {
            Some(p) if p > self.target_s => CloudAction::Acquire,
            Some(p) if p < self.release_s && v.cloud_ready + v.cloud_pending > 0 => {
                if v.cloud_idle > 0 {
                    CloudAction::Release
                } else {
                    CloudAction::Hold
                }
            }
            _ => CloudAction::Hold,
        }
    }
}

impl std::str::FromStr for StrategyKind {
    type Err = GridNameError;
    /// Parses `none` (or `no`), `all`, `largest`, `number`, `dynamic` and `feedback`.
    fn from_str(s: &str) -> std::result::Result<Self, GridNameError> {
        Ok(match s {
            "none" | "no" => Self::None,
            "all" => Self::All,
            "largest" => Self::Largest,
            "number" => Self::Number,
            "dynamic" => Self::Dynamic,
            "feedback" => Self::Feedback,
            _ => {
                return Err(GridNameError {
                    what: "strategy",
                    given: s.to_owned(),
                    expected: "none, all, largest, number, dynamic or feedback",
                })
            }
        })
    }
}

/// The strategy names of the CLI and the experiments.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
#[non_exhaustive]
pub enum StrategyKind {
    /// Initial system.
    None,
    /// Static All.
    All,
    /// Static Largest.
    Largest,
    /// Static Number.
    Number,
    /// Dynamic auto-scaling.
    Dynamic,
    /// Feedback controller.
    Feedback,
}

impl StrategyKind {
    /// Parses `none|all|largest|number|dynamic|feedback`.
    #[deprecated(
        since = "0.2.0",
        note = "use str::parse (FromStr), whose error names the value"
    )]
    pub fn parse(s: &str) -> Option<Self> {
        s.parse().ok()
    }

    /// The name [`str::parse`] reads (`none`, `all`, `largest`, `number`, `dynamic`,
    /// `feedback`).
    pub fn name(self) -> &'static str {
        match self {
            Self::None => "none",
            Self::All => "all",
            Self::Largest => "largest",
            Self::Number => "number",
            Self::Dynamic => "dynamic",
            Self::Feedback => "feedback",
        }
    }

    /// The name used in tables.
    pub fn label(self) -> &'static str {
        match self {
            Self::None => "NO",
            Self::All => "All",
            Self::Largest => "Largest",
            Self::Number => "Number",
            Self::Dynamic => "Dynamic",
            Self::Feedback => "Feedback",
        }
    }

    /// Builds the provisioner for κ (`Dynamic` takes `dynamic`; `Feedback` takes
    /// `(target_s, release_s)` and window 10).
    pub fn build(
        self,
        kappa: Kappa,
        feedback: (f64, f64),
        dynamic: &DynamicSettings,
    ) -> Result<Box<dyn Provisioner + Send>> {
        Ok(match self {
            Self::None => Box::new(NoOverprovisioning),
            Self::All => Box::new(StaticAll(kappa)),
            Self::Largest => Box::new(StaticLargest(kappa)),
            Self::Number => Box::new(StaticNumber(kappa)),
            Self::Dynamic => Box::new(DynamicAutoScale::with_settings(kappa, dynamic)?),
            Self::Feedback => Box::new(FeedbackController::new(10, feedback.0, feedback.1)?),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sizes(p: &Platform) -> Vec<u64> {
        p.sites().iter().map(|s| s.processors).collect()
    }

    fn k(x: f64) -> Kappa {
        Kappa::from_f64(x).unwrap()
    }

    /// Found by crates/slarm/tests/robustness: a window of u64::MAX reserved that much
    /// memory up front (capacity overflow).
    #[test]
    fn huge_feedback_window_allocates_nothing_up_front() {
        assert!(FeedbackController::new(usize::MAX, 100.0, 50.0).is_ok());
    }

    #[test]
    fn static_all_sizes_every_kappa() {
        // §III on DAS-3 (Table I).
        let base = Platform::das3();
        let want = [
            (1.0, vec![170, 82, 136, 92, 64]),
            (1.5, vec![255, 123, 204, 138, 96]),
            (2.0, vec![340, 164, 272, 184, 128]),
            (2.5, vec![425, 205, 340, 230, 160]),
            (3.0, vec![510, 246, 408, 276, 192]),
        ];
        for (kv, w) in want {
            let p = StaticAll(k(kv)).layout(&base).unwrap();
            assert_eq!(sizes(&p), w, "kappa {kv}");
            assert_eq!(p.total_processors(), (kv * 544.0) as u64);
        }
    }

    #[test]
    fn static_largest_sizes_every_kappa() {
        // §III on DAS-3 (Table I): VU = 442 / 714 / 986 / 1258.
        let base = Platform::das3();
        for (kv, vu) in [(1.0, 170), (1.5, 442), (2.0, 714), (2.5, 986), (3.0, 1258)] {
            let p = StaticLargest(k(kv)).layout(&base).unwrap();
            assert_eq!(sizes(&p), vec![vu, 82, 136, 92, 64], "kappa {kv}");
        }
    }

    #[test]
    fn static_number_sizes_every_kappa() {
        // §III on DAS-3 (Table I).
        let base = Platform::das3();
        let orig = vec![170, 82, 136, 92, 64];
        let cases: [(f64, Vec<u64>); 5] = [
            (1.0, vec![]),
            (1.5, vec![119, 58, 95]),
            (2.0, orig.clone()),
            (2.5, vec![149, 72, 119, 80, 56, 149, 72, 119]),
            (3.0, [orig.clone(), orig.clone()].concat()),
        ];
        for (kv, added) in cases {
            let p = StaticNumber(k(kv)).layout(&base).unwrap();
            assert_eq!(sizes(&p), [orig.clone(), added].concat(), "kappa {kv}");
            assert_eq!(p.total_processors(), (kv * 544.0) as u64);
            // New sites copy the template speeds in cyclic order.
            for (i, s) in p.sites().iter().enumerate().skip(5) {
                assert_eq!(s.speed_ghz, base.sites()[i % 5].speed_ghz);
            }
        }
    }

    fn view(used: u64, ready_total: u64, cloud_ready: u64, pending: u64, idle: u64) -> PoolView {
        PoolView {
            now_s: 0.0,
            used,
            ready_total,
            base_procs: 544,
            cloud_ready,
            cloud_pending: pending,
            cloud_idle: idle,
        }
    }

    #[test]
    fn dynamic_respects_thresholds_and_band() {
        let mut d = DynamicAutoScale::paper(k(2.0));
        assert_eq!(d.initial_cloud(544), 544);
        assert_eq!(d.bounds(544), (436, 652));
        // Load 0.8 > 0.7 with room: acquire; at the upper bound (pending counts): hold.
        assert_eq!(
            d.on_monitor(&view(870, 1088, 544, 0, 10)),
            CloudAction::Acquire
        );
        assert_eq!(
            d.on_monitor(&view(1000, 1100, 600, 52, 0)),
            CloudAction::Hold
        );
        // Load 0.5 < 0.6 above the lower bound with an idle processor: release.
        assert_eq!(
            d.on_monitor(&view(544, 1088, 544, 0, 5)),
            CloudAction::Release
        );
        // At the lower bound, or nothing idle: hold.
        assert_eq!(d.on_monitor(&view(400, 980, 436, 0, 5)), CloudAction::Hold);
        assert_eq!(d.on_monitor(&view(544, 1088, 544, 0, 0)), CloudAction::Hold);
        // Between the thresholds: hold.
        assert_eq!(d.on_monitor(&view(707, 1088, 544, 0, 5)), CloudAction::Hold);
        assert!(DynamicAutoScale::new(k(2.0), 0.5, 0.6, 60.0, 10, DynamicStart::One).is_err());
        assert!(DynamicAutoScale::new(k(2.0), 0.7, 0.6, 0.0, 10, DynamicStart::One).is_err());
    }

    #[test]
    fn controller_step_logic_with_scripted_makespans() {
        // §VII: nearest-rank p90 of 10 = 9th smallest; one action per 10 completions.
        let mut c = FeedbackController::new(10, 300.0, 250.0).unwrap();
        let v = view(0, 544, 0, 0, 0);
        // 9 completions: no activation.
        for _ in 0..9 {
            assert_eq!(c.on_bot_completed(1000.0, &v), CloudAction::Hold);
        }
        assert_eq!(c.on_bot_completed(1000.0, &v), CloudAction::Acquire);
        // Window of 1..=10 (p90 = 9, below release) but no cloud procs: hold.
        for i in 1..10 {
            assert_eq!(c.on_bot_completed(f64::from(i), &v), CloudAction::Hold);
        }
        assert_eq!(c.on_bot_completed(10.0, &v), CloudAction::Hold);
        // With an idle cloud processor: release.
        let v2 = view(0, 545, 1, 0, 1);
        for _ in 0..9 {
            c.on_bot_completed(100.0, &v2);
        }
        assert_eq!(c.on_bot_completed(100.0, &v2), CloudAction::Release);
        // p90 between release and target: hold. Nine at 260 and one at 5000: p90 = 260.
        for _ in 0..9 {
            c.on_bot_completed(260.0, &v2);
        }
        assert_eq!(c.on_bot_completed(5000.0, &v2), CloudAction::Hold);
        assert!(FeedbackController::new(10, 250.0, 300.0).is_err());
        assert!(FeedbackController::new(0, 300.0, 250.0).is_err());
    }
}
