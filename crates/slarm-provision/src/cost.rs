//! Time-varying server cost `c_t` (Sung 2006, §4.1, Eq. 4.1): the five presets of the thesis's Fig.
//! 5.4 (§5.3) as a **reconstruction** (the thesis draws them but gives no formulas) and
//! user-supplied tabulated series (piecewise constant or piecewise linear), each with an exact
//! integral. Time is in decision intervals.

use crate::error::{ProvisionError, Result};

/// A cost per server per unit time, `c(t) >= 0`, with an exact integral.
pub trait CostFunction {
    /// Instantaneous cost at time `t` (units).
    fn c(&self, t: f64) -> f64;
    /// Exact `∫_a^b c(t) dt` (0 if `b <= a`).
    fn integral(&self, a: f64, b: f64) -> f64;
    /// `c_max = max_{t = 0, 1, ..., d} c(t)` over integer t (Eq. 4.10).
    fn c_max(&self, d: usize) -> f64 {
        (0..=d).map(|t| self.c(t as f64)).fold(0.0, f64::max)
    }
}

/// The five shapes of Fig. 5.4 (§5.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum CostShape {
    /// CF1: `c = lo`.
    Uniform,
    /// CF2: `c = lo + (hi - lo) τ`.
    Increasing,
    /// CF3: `c = hi - (hi - lo) τ`.
    Decreasing,
    /// CF4 (Quadratic-1): `c = lo + (hi - lo) 4 (τ - ½)²`, cheap in the middle.
    Quadratic1,
    /// CF5 (Quadratic-2): `c = hi - (hi - lo) 4 (τ - ½)²`, expensive in the middle.
    Quadratic2,
}

impl CostShape {
    /// The shape numbered 1..=5 as in the thesis.
    pub fn from_index(i: usize) -> Result<Self> {
        Ok(match i {
            1 => CostShape::Uniform,
            2 => CostShape::Increasing,
            3 => CostShape::Decreasing,
            4 => CostShape::Quadratic1,
            5 => CostShape::Quadratic2,
            _ => return Err(ProvisionError::invalid("cost_function", i, "must be 1..=5")),
        })
    }

    /// All five, in thesis order.
    pub fn all() -> [CostShape; 5] {
        [
            CostShape::Uniform,
            CostShape::Increasing,
            CostShape::Decreasing,
            CostShape::Quadratic1,
            CostShape::Quadratic2,
        ]
    }

    /// Thesis label.
    pub fn label(self) -> &'static str {
        match self {
            CostShape::Uniform => "CF1 uniform",
            CostShape::Increasing => "CF2 increasing",
            CostShape::Decreasing => "CF3 decreasing",
            CostShape::Quadratic1 => "CF4 quadratic-1",
            CostShape::Quadratic2 => "CF5 quadratic-2",
        }
    }
}

/// A cost function: a reconstructed preset, or a user series.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(tag = "kind", rename_all = "snake_case"))]
pub enum Cost {
    /// `c(t) = c0 + c1 t + c2 t²` (the presets reduce to this).
    Quadratic {
        /// Constant term.
        c0: f64,
        /// Linear term.
        c1: f64,
        /// Quadratic term.
        c2: f64,
    },
    /// Piecewise constant: `values[i]` on `[times[i], times[i+1])`, the last value after the
    /// last knot and the first value before the first knot.
    Step {
        /// Increasing knot times (units).
        times: Vec<f64>,
        /// One value per knot.
        values: Vec<f64>,
    },
    /// Piecewise linear interpolation of `(times[i], values[i])`, constant outside.
    Linear {
        /// Increasing knot times (units).
        times: Vec<f64>,
        /// One value per knot.
        values: Vec<f64>,
    },
}

impl Cost {
    /// Preset `shape` on `[0, d]` with range `[lo, hi]` (our reconstruction of Fig. 5.4, default
    /// [1, 2]).
    ///
    /// ```
    /// use slarm_provision::{Cost, CostFunction, CostShape};
    /// let c = Cost::preset(CostShape::Quadratic1, 92, 1.0, 2.0).unwrap();
    /// assert!((c.c(46.0) - 1.0).abs() < 1e-12 && (c.c(0.0) - 2.0).abs() < 1e-12);
    /// assert!((c.integral(0.0, 92.0) - 92.0 * 4.0 / 3.0).abs() < 1e-9);
    /// ```
    pub fn preset(shape: CostShape, d: usize, lo: f64, hi: f64) -> Result<Self> {
        for (w, v) in [("cost lo", lo), ("cost hi", hi)] {
            if !v.is_finite() {
                return Err(ProvisionError::NonFinite { what: w, value: v });
            }
        }
        if lo < 0.0 {
            return Err(ProvisionError::NegativeCost { value: lo, at: 0.0 });
        }
        if hi < lo {
            return Err(ProvisionError::invalid("cost hi", hi, "must be >= lo"));
        }
        if d == 0 {
            return Err(ProvisionError::invalid("d", d, "must be >= 1"));
        }
        let dd = d as f64;
        if !(8.0 * hi * dd).is_finite() {
            // The polynomial's terms (up to 4/3 hi d) would overflow in the integral.
            return Err(ProvisionError::invalid(
                "cost hi",
                hi,
                "too large: the cost over [0, d] overflows",
            ));
        }
        let r = hi - lo;
        // 4(τ-½)² with τ = t/d  =  1 - 4t/d + 4t²/d²
        let (c0, c1, c2) = match shape {
            CostShape::Uniform => (lo, 0.0, 0.0),
            CostShape::Increasing => (lo, r / dd, 0.0),
            CostShape::Decreasing => (hi, -r / dd, 0.0),
            CostShape::Quadratic1 => (lo + r, -4.0 * r / dd, 4.0 * r / (dd * dd)),
            CostShape::Quadratic2 => (hi - r, 4.0 * r / dd, -4.0 * r / (dd * dd)),
        };
        Ok(Cost::Quadratic { c0, c1, c2 })
    }

    /// A tabulated series; `linear` selects interpolation, else piecewise constant.
    /// Rejects empty, unsorted, non-finite and negative input.
    pub fn series(times: Vec<f64>, values: Vec<f64>, linear: bool) -> Result<Self> {
        if times.is_empty() || times.len() != values.len() {
            return Err(ProvisionError::MalformedCostSeries {
                line: 0,
                reason: format!(
                    "need equally many (>= 1) times and values, got {} and {}",
                    times.len(),
                    values.len()
                ),
            });
        }
        for (i, (&t, &v)) in times.iter().zip(&values).enumerate() {
            check_sample(t, v, (i > 0).then(|| (times[i - 1], values[i - 1])))?;
        }
        Ok(if linear {
            Cost::Linear { times, values }
        } else {
            Cost::Step { times, values }
        })
    }

    /// Parses `time cost` pairs, one per line (whitespace or comma separated; `#` comments).
    /// Every error names its 1-based line.
    ///
    /// ```
    /// use slarm_provision::{Cost, CostFunction};
    /// let c = Cost::parse_series("# t c\n0 1\n46 3\n92 1\n", true).unwrap();
    /// assert!((c.integral(0.0, 92.0) - 184.0).abs() < 1e-9);
    /// assert!(Cost::parse_series("0 -1\n", true).is_err());
    /// ```
    pub fn parse_series(text: &str, linear: bool) -> Result<Self> {
        let mut times: Vec<f64> = Vec::new();
        let mut values = Vec::new();
        for (i, raw) in text.lines().enumerate() {
            let line = raw.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let bad = |reason: String| ProvisionError::MalformedCostSeries {
                line: i + 1,
                reason,
            };
            let fields: Vec<&str> = line
                .split(|c: char| c == ',' || c.is_whitespace())
                .filter(|f| !f.is_empty())
                .collect();
            if fields.len() != 2 {
                return Err(bad(format!(
                    "expected 2 fields (time cost), got {}",
                    fields.len()
                )));
            }
            let parse = |f: &str| f.parse::<f64>().map_err(|e| bad(format!("{f:?}: {e}")));
            let (t, v) = (parse(fields[0])?, parse(fields[1])?);
            check_sample(t, v, times.last().copied().zip(values.last().copied()))
                .map_err(|e| bad(e.to_string()))?;
            times.push(t);
            values.push(v);
        }
        if times.is_empty() {
            return Err(ProvisionError::MalformedCostSeries {
                line: 0,
                reason: "no data lines".into(),
            });
        }
        Cost::series(times, values, linear)
    }
}

/// One sample `(t, c)` of a series: finite, `c >= 0`, `t` after the previous knot.
/// Largest magnitude of a time or cost of a cost series.
const MAX_SERIES_MAGNITUDE: f64 = 1e150;

/// Checks one sample `(t, v)` of a series after the sample `prev` (time, cost): finite, a
/// non-negative cost, increasing times; magnitudes of at most 1e150 and a finite slope from
/// `prev`, which keep every interpolated value and integral finite (a cost of 1e308 was once
/// interpolated to minus infinity).
fn check_sample(t: f64, v: f64, prev: Option<(f64, f64)>) -> Result<()> {
    if !t.is_finite() {
        return Err(ProvisionError::NonFinite {
            what: "cost time",
            value: t,
        });
    }
    if !v.is_finite() {
        return Err(ProvisionError::NonFinite {
            what: "cost sample",
            value: v,
        });
    }
    if v < 0.0 {
        return Err(ProvisionError::NegativeCost { value: v, at: t });
    }
    if prev.is_some_and(|(p, _)| t <= p) {
        return Err(ProvisionError::invalid(
            "cost time",
            t,
            "times must be strictly increasing",
        ));
    }
    if t.abs() > MAX_SERIES_MAGNITUDE || v > MAX_SERIES_MAGNITUDE {
        return Err(ProvisionError::invalid(
            "cost sample",
            if v > MAX_SERIES_MAGNITUDE { v } else { t },
            "times and costs must not exceed 1e150 in magnitude",
        ));
    }
    if prev.is_some_and(|(pt, pv)| !((v - pv) / (t - pt)).is_finite()) {
        return Err(ProvisionError::invalid(
            "cost time",
            t,
            "too close to the previous time for the change of cost",
        ));
    }
    Ok(())
}

/// Antiderivative of a linear segment from `(t0, v0)` with slope `m`, evaluated from t0 to t.
fn lin_area(t0: f64, v0: f64, m: f64, a: f64, b: f64) -> f64 {
    let va = v0 + m * (a - t0);
    let vb = v0 + m * (b - t0);
    0.5 * (va + vb) * (b - a)
}

impl CostFunction for Cost {
    fn c(&self, t: f64) -> f64 {
        match self {
            Cost::Quadratic { c0, c1, c2 } => c0 + t * (c1 + t * c2),
            Cost::Step { times, values } => {
                let i = times.partition_point(|&k| k <= t);
                values[i.saturating_sub(1)]
            }
            Cost::Linear { times, values } => {
                let i = times.partition_point(|&k| k <= t);
                if i == 0 {
                    values[0]
                } else if i == times.len() {
                    values[times.len() - 1]
                } else {
                    let (t0, t1, v0, v1) = (times[i - 1], times[i], values[i - 1], values[i]);
                    v0 + (v1 - v0) * (t - t0) / (t1 - t0)
                }
            }
        }
    }

    fn integral(&self, a: f64, b: f64) -> f64 {
        if b <= a {
            return 0.0;
        }
        match self {
            Cost::Quadratic { c0, c1, c2 } => {
                let f = |t: f64| t * (c0 + t * (c1 / 2.0 + t * c2 / 3.0));
                f(b) - f(a)
            }
            Cost::Step { times, values } | Cost::Linear { times, values } => {
                let linear = matches!(self, Cost::Linear { .. });
                // Pieces: (-inf, t0), [t_i, t_{i+1}), [t_last, inf).
                let mut acc = 0.0;
                let n = times.len();
                let mut edges = Vec::with_capacity(n + 2);
                edges.push(f64::NEG_INFINITY);
                edges.extend_from_slice(times);
                edges.push(f64::INFINITY);
                for j in 0..edges.len() - 1 {
                    let lo = edges[j].max(a);
                    let hi = edges[j + 1].min(b);
                    if hi <= lo {
                        continue;
                    }
                    acc += if j == 0 {
                        values[0] * (hi - lo)
                    } else if j == n {
                        values[n - 1] * (hi - lo)
                    } else if linear {
                        let (t0, t1, v0, v1) = (times[j - 1], times[j], values[j - 1], values[j]);
                        lin_area(t0, v0, (v1 - v0) / (t1 - t0), lo, hi)
                    } else {
                        values[j - 1] * (hi - lo)
                    };
                }
                acc
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn simpson(c: &Cost, a: f64, b: f64) -> f64 {
        let n = 20_000;
        let h = (b - a) / n as f64;
        let mut s = c.c(a) + c.c(b);
        for i in 1..n {
            s += if i % 2 == 1 { 4.0 } else { 2.0 } * c.c(a + i as f64 * h);
        }
        s * h / 3.0
    }

    #[test]
    fn presets_match_reconstruction() {
        // the reconstruction: CF2 = 1 + τ, CF3 = 2 - τ, CF5 peaks at d/2 = 46 with 2.
        let d = 92;
        let c2 = Cost::preset(CostShape::Increasing, d, 1.0, 2.0).unwrap();
        assert!((c2.c(46.0) - 1.5).abs() < 1e-12);
        let c3 = Cost::preset(CostShape::Decreasing, d, 1.0, 2.0).unwrap();
        assert!((c3.c(92.0) - 1.0).abs() < 1e-12);
        let c5 = Cost::preset(CostShape::Quadratic2, d, 1.0, 2.0).unwrap();
        assert!((c5.c(46.0) - 2.0).abs() < 1e-12 && (c5.c(0.0) - 1.0).abs() < 1e-12);
        assert!((c5.c_max(d) - 2.0).abs() < 1e-12);
        for s in CostShape::all() {
            let c = Cost::preset(s, d, 1.0, 2.0).unwrap();
            for (a, b) in [(0.0, 92.0), (3.2, 7.9), (45.0, 45.0333)] {
                assert!((c.integral(a, b) - simpson(&c, a, b)).abs() < 1e-9);
            }
        }
    }

    #[test]
    fn series_integrals_exact() {
        let st = Cost::series(vec![0.0, 10.0, 20.0], vec![1.0, 3.0, 2.0], false).unwrap();
        assert!((st.integral(-5.0, 25.0) - (5.0 + 10.0 + 30.0 + 10.0)).abs() < 1e-12);
        assert!((st.integral(9.0, 11.0) - 4.0).abs() < 1e-12);
        let li = Cost::series(vec![0.0, 10.0], vec![0.0, 10.0], true).unwrap();
        assert!((li.integral(0.0, 10.0) - 50.0).abs() < 1e-12);
        assert!((li.integral(5.0, 12.0) - (37.5 + 20.0)).abs() < 1e-12);
        assert!((li.c(2.5) - 2.5).abs() < 1e-12);
    }

    #[test]
    fn bad_series_are_errors() {
        // Found by crates/slarm/tests/robustness: a finite but huge range gave a NaN integral.
        assert!(Cost::preset(CostShape::Quadratic1, 92, 0.0, f64::MAX).is_err());
        assert!(Cost::preset(CostShape::Quadratic1, 92, 0.0, 1e300).is_ok());
        assert!(matches!(
            Cost::series(vec![0.0], vec![-1.0], true),
            Err(ProvisionError::NegativeCost { .. })
        ));
        assert!(matches!(
            Cost::series(vec![0.0], vec![f64::NAN], true),
            Err(ProvisionError::NonFinite { .. })
        ));
        assert!(Cost::series(vec![1.0, 0.0], vec![1.0, 1.0], true).is_err());
        assert!(Cost::parse_series("0 1 2\n", true).is_err());
        assert!(Cost::parse_series("x 1\n", true).is_err());
        assert!(Cost::parse_series("# nothing\n", true).is_err());
        assert!(Cost::parse_series("0 inf\n", true).is_err());
        // parse errors name the line
        match Cost::parse_series("0 1\n\n# c\n5 -2\n", true) {
            Err(ProvisionError::MalformedCostSeries { line, reason }) => {
                assert_eq!(line, 4);
                assert!(reason.contains("-2"), "{reason}");
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            Cost::parse_series("0 1\n0 2\n", false),
            Err(ProvisionError::MalformedCostSeries { line: 2, .. })
        ));
        assert!(Cost::preset(CostShape::Uniform, 92, -1.0, 2.0).is_err());
        assert!(CostShape::from_index(6).is_err());
    }

    proptest::proptest! {
        #[test]
        fn series_integrals_are_additive_and_non_negative(
            knots in proptest::collection::vec((0.1f64..5.0, 0.0f64..10.0), 1..8),
            linear in proptest::bool::ANY,
            a in -3.0f64..40.0,
            w1 in 0.0f64..20.0,
            w2 in 0.0f64..20.0,
        ) {
            let mut t = 0.0;
            let times: Vec<f64> = knots.iter().map(|(dt, _)| { t += dt; t }).collect();
            let values: Vec<f64> = knots.iter().map(|(_, v)| *v).collect();
            let c = Cost::series(times, values, linear).unwrap();
            let (b, e) = (a + w1, a + w1 + w2);
            let whole = c.integral(a, e);
            proptest::prop_assert!((c.integral(a, b) + c.integral(b, e) - whole).abs() < 1e-9);
            proptest::prop_assert!(whole >= -1e-12);
            // Simpson (20,000 panels) errs by at most 4/3 of a panel per jump (<= 7 jumps of <= 10)
            proptest::prop_assert!((whole - simpson(&c, a, e)).abs() <= 1e-2 * (e - a) + 1e-9);
        }

        #[test]
        fn parsing_never_panics(text in "[0-9a-z ,.#\\-\n]{0,60}") {
            let _ = Cost::parse_series(&text, true);
        }
    }
}
