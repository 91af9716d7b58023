//! Model parameters and switches (Sung 2006, §4.1 and §5.1-§5.3, with switches for
//! what the thesis leaves open).

use crate::error::{ProvisionError, Result};

/// How ties in the argmin over `q` are broken (unspecified in the thesis).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum TieBreak {
    /// The smallest minimising `q` (the default).
    #[default]
    Smallest,
    /// Keep the current server count `p` when it is among the minimisers, else the smallest.
    PreferCurrent,
}

/// Which next-stage table H4 and H5 read inside `M` (Eqs. 4.13/4.22 read `L_{s+1}`, H3's table).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum NextTable {
    /// `L'_{s+1}` for H4 and `L''_{s+1}` for H5 (recommended).
    #[default]
    SameVariant,
    /// The literal reading of Eqs. 4.13/4.22: H3's `L_{s+1}`.
    LiteralL,
}

/// Parameters of Sung's model. Time is measured in decision intervals ("units") unless a
/// field name ends in `_secs`.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Params {
    /// Length of one decision interval in seconds (900 in the thesis).
    pub delta_secs: f64,
    /// Submission deadline `u` in units (64).
    pub u: usize,
    /// Common completion deadline `d` in units (92).
    pub d: usize,
    /// Fewest servers in the cluster (1).
    pub p_min: usize,
    /// Most servers in the cluster (5).
    pub p_max: usize,
    /// SLA confidence as a fraction in (0, 1) (0.9999).
    pub y: f64,
    /// Mean exponential service time in seconds (1200).
    pub mean_service_secs: f64,
    /// Deployment period `r_1` in seconds (25; measured in Ch. 3, §3.3).
    pub r1_secs: f64,
    /// Removal period `r_2` in seconds (30; measured in Ch. 3, §3.3).
    pub r2_secs: f64,
    /// Multiplier of the penalty `P = factor * x * c_max` (1 = Eq. 4.10 with x in units).
    pub penalty_factor: f64,
    /// Argmin tie rule.
    pub tie_break: TieBreak,
    /// Forced branch on `n >= g_s(p_max)` (true, as written) or `n > g_s(p_max)`.
    pub forced_uses_ge: bool,
    /// Next-stage table read by H4/H5.
    pub h45_next_table: NextTable,
}

impl Default for Params {
    fn default() -> Self {
        Self::thesis()
    }
}

/// Largest binary-search limit `γ = p_max · d / x` (Eq. 4.6) that [`Params::validated`]
/// accepts: `2^31 - 1` job counts, so that `2 γ` and `γ` as `i64` are exact on every target
/// (the thesis' largest case, p_max = 30, has γ = 2070).
pub const MAX_GAMMA: usize = (1 << 31) - 1;

impl Params {
    /// The experimental set-up of the thesis (Ch. 5): 15-min intervals, u = 64, d = 92,
    /// 1..5 servers, y = 99.99 %, exp(1200 s) service, r1 = 25 s, r2 = 30 s.
    pub fn thesis() -> Self {
        Self {
            delta_secs: 900.0,
            u: 64,
            d: 92,
            p_min: 1,
            p_max: 5,
            y: 0.9999,
            mean_service_secs: 1200.0,
            r1_secs: 25.0,
            r2_secs: 30.0,
            penalty_factor: 1.0,
            tie_break: TieBreak::Smallest,
            forced_uses_ge: true,
            h45_next_table: NextTable::SameVariant,
        }
    }

    /// Checks every field; returns the parameters unchanged when admissible.
    ///
    /// ```
    /// use slarm_provision::Params;
    /// assert!(Params::thesis().validated().is_ok());
    /// let bad = Params { u: 92, ..Params::thesis() };
    /// assert!(bad.validated().is_err()); // u >= d
    /// ```
    pub fn validated(self) -> Result<Self> {
        let pos = |name: &'static str, v: f64| -> Result<()> {
            if !v.is_finite() {
                return Err(ProvisionError::NonFinite {
                    what: name,
                    value: v,
                });
            }
            if v <= 0.0 {
                return Err(ProvisionError::invalid(name, v, "must be positive"));
            }
            Ok(())
        };
        pos("delta_secs", self.delta_secs)?;
        pos("mean_service_secs", self.mean_service_secs)?;
        pos("penalty_factor", self.penalty_factor)?;
        for (name, v) in [("r1_secs", self.r1_secs), ("r2_secs", self.r2_secs)] {
            if !v.is_finite() {
                return Err(ProvisionError::NonFinite {
                    what: name,
                    value: v,
                });
            }
            if v < 0.0 || v >= self.delta_secs {
                return Err(ProvisionError::invalid(
                    name,
                    v,
                    "must lie in [0, delta_secs) (shorter than a decision interval)",
                ));
            }
        }
        if self.d < 2 {
            return Err(ProvisionError::invalid(
                "d",
                self.d,
                "needs at least 2 intervals",
            ));
        }
        if self.u >= self.d {
            return Err(ProvisionError::invalid(
                "u",
                self.u,
                "submission deadline u must be < d",
            ));
        }
        if self.p_min == 0 {
            return Err(ProvisionError::invalid("p_min", self.p_min, "must be >= 1"));
        }
        if self.p_min > self.p_max {
            return Err(ProvisionError::invalid(
                "p_min",
                self.p_min,
                "must be <= p_max",
            ));
        }
        if self.p_max > 1000 {
            return Err(ProvisionError::invalid(
                "p_max",
                self.p_max,
                "must be <= 1000",
            ));
        }
        // gamma sizes every table row and is doubled and cast to i64 by the table builders:
        // beyond MAX_GAMMA the cast in `gamma()` would saturate and `2 * gamma` wrap.
        let gamma = self.p_max as f64 * self.d as f64 / self.x_units();
        if gamma.is_nan() || gamma > MAX_GAMMA as f64 {
            return Err(ProvisionError::invalid(
                "x = mean_service_secs / delta_secs",
                self.x_units(),
                "too small: gamma = p_max d / x (Eq. 4.6) exceeds 2^31 - 1 job counts",
            ));
        }
        if !self.y.is_finite() {
            return Err(ProvisionError::NonFinite {
                what: "y",
                value: self.y,
            });
        }
        if self.y <= 0.0 || self.y >= 1.0 {
            return Err(ProvisionError::invalid(
                "y",
                self.y,
                "must lie strictly in (0, 1)",
            ));
        }
        Ok(self)
    }

    /// Mean service time `x` in units.
    pub fn x_units(&self) -> f64 {
        self.mean_service_secs / self.delta_secs
    }

    /// Binary-search limit `γ = p_max · d / x` (Eq. 4.6), rounded down (345 in the thesis);
    /// at most [`MAX_GAMMA`] for validated parameters.
    pub fn gamma(&self) -> usize {
        ((self.p_max as f64) * (self.d as f64) / self.x_units() + 1e-9).floor() as usize
    }

    /// Submission deadline in seconds.
    pub fn u_secs(&self) -> f64 {
        self.u as f64 * self.delta_secs
    }

    /// Completion deadline in seconds.
    pub fn d_secs(&self) -> f64 {
        self.d as f64 * self.delta_secs
    }

    /// Number of server counts `J + 1 = p_max - p_min + 1`.
    pub fn n_counts(&self) -> usize {
        self.p_max - self.p_min + 1
    }

    /// Upper limit of `q` at decision point `s` with `n` jobs: `p_max` before `u`, else
    /// `w_s = min(p_max, max(p_min, n))` (Eq. 4.7).
    pub fn w(&self, s: usize, n: usize) -> usize {
        if s >= self.u {
            self.p_max.min(self.p_min.max(n))
        } else {
            self.p_max
        }
    }

    /// Clamps a server count to `[p_min, p_max]`.
    pub fn clamp(&self, p: i64) -> usize {
        p.clamp(self.p_min as i64, self.p_max as i64) as usize
    }

    /// Number of failures allowed among `runs` Monte Carlo runs at confidence `y`:
    /// `floor((1 - y) runs)` with a guard against rounding (0.0001 * 1e5 = 10, not 9.99..).
    pub fn allowed_failures(&self, runs: usize) -> usize {
        ((1.0 - self.y) * runs as f64 + 1e-7).floor() as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thesis_gamma_is_345() {
        // Eq. 4.6: 5 * 92 / (4/3) = 345
        assert_eq!(Params::thesis().gamma(), 345);
        assert_eq!(
            Params {
                p_max: 30,
                ..Params::thesis()
            }
            .gamma(),
            2070
        );
    }

    #[test]
    fn a_gamma_beyond_its_bound_is_an_error_not_a_saturated_cast() {
        // x = 1e-300 / 900 gave gamma = inf, cast to usize::MAX, and `2 * gamma` wrapped.
        let tiny = Params {
            mean_service_secs: 1e-300,
            ..Params::thesis()
        };
        assert!(matches!(
            tiny.validated(),
            Err(ProvisionError::InvalidParameter {
                name: "x = mean_service_secs / delta_secs",
                ..
            })
        ));
        // Well inside the bound: p_max d / x = 5 * 92 * 900 / mean = 2^30.
        let edge = Params {
            mean_service_secs: 5.0 * 92.0 * 900.0 / f64::from(1u32 << 30),
            ..Params::thesis()
        };
        let edge = edge.validated().expect("gamma of 2^30 is admissible");
        assert!(edge.gamma() <= MAX_GAMMA);
    }

    #[test]
    fn bad_inputs_are_typed_errors() {
        let t = Params::thesis;
        assert!(Params { u: 92, ..t() }.validated().is_err());
        assert!(Params { p_min: 6, ..t() }.validated().is_err());
        assert!(Params { p_min: 0, ..t() }.validated().is_err());
        assert!(Params { y: 1.0, ..t() }.validated().is_err());
        assert!(Params { y: 0.0, ..t() }.validated().is_err());
        assert!(matches!(
            Params { y: f64::NAN, ..t() }.validated(),
            Err(ProvisionError::NonFinite { .. })
        ));
        assert!(Params {
            mean_service_secs: -1.0,
            ..t()
        }
        .validated()
        .is_err());
        assert!(Params {
            r2_secs: 900.0,
            ..t()
        }
        .validated()
        .is_err());
    }

    #[test]
    fn w_and_failures() {
        let p = Params::thesis();
        assert_eq!(p.w(10, 0), 5);
        assert_eq!(p.w(70, 0), 1);
        assert_eq!(p.w(70, 3), 3);
        assert_eq!(p.w(70, 9), 5);
        assert_eq!(p.allowed_failures(100_000), 10);
        assert_eq!(p.allowed_failures(1000), 0);
    }
}
