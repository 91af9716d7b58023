//! The overprovisioning factor κ as an exact rational (Yigitbasi & Epema 2010, §III).
//!
//! κ = (size of the overprovisioned system) / (size of the initial system). The band bounds of
//! the Dynamic strategy, e.g. `0.9 · 2.5 · 544 = 1224`, must come out exactly, so κ is kept
//! as `num / den` and every derived processor count uses integer arithmetic.

use crate::error::{GridError, Result};

/// Overprovisioning factor κ ≥ 1, stored exactly as a reduced fraction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Kappa {
    num: u64,
    den: u64,
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        let t = a % b;
        a = b;
        b = t;
    }
    a
}

/// `floor(a / b)` for `b > 0` in 128-bit arithmetic.
fn floor_div(a: u128, b: u128) -> u128 {
    a / b
}

/// `ceil(a / b)` for `b > 0`.
fn ceil_div(a: u128, b: u128) -> u128 {
    a.div_ceil(b)
}

impl Kappa {
    /// κ = `num / den`; rejects `den = 0`, κ < 1 and κ > 10^6 (as [`Kappa::from_f64`] does;
    /// the exact `u128` scalings of platform sizes stay far from overflow).
    pub fn new(num: u64, den: u64) -> Result<Self> {
        if den == 0 || num < den || u128::from(num) > 1_000_000 * u128::from(den) {
            return Err(GridError::InvalidParameter {
                name: "kappa",
                value: if den == 0 {
                    f64::NAN
                } else {
                    num as f64 / den as f64
                },
                reason: "kappa must be a fraction in [1, 1e6]",
            });
        }
        let g = gcd(num, den);
        Ok(Self {
            num: num / g,
            den: den / g,
        })
    }

    /// κ from a decimal value, rounded to the nearest thousandth (2.5 becomes 5/2 exactly).
    pub fn from_f64(k: f64) -> Result<Self> {
        if !k.is_finite() || !(1.0..=1.0e6).contains(&k) {
            return Err(GridError::InvalidParameter {
                name: "kappa",
                value: k,
                reason: "must be finite and in [1, 1e6]",
            });
        }
        Self::new((k * 1000.0).round() as u64, 1000)
    }

    /// κ = 1: the initial system ("NO").
    pub fn one() -> Self {
        Self { num: 1, den: 1 }
    }

    /// Numerator of the reduced fraction.
    pub fn numer(&self) -> u64 {
        self.num
    }

    /// Denominator of the reduced fraction.
    pub fn denom(&self) -> u64 {
        self.den
    }

    /// κ as a float.
    pub fn value(&self) -> f64 {
        self.num as f64 / self.den as f64
    }

    /// `round(f · κ · n)` (half up) with `f = fnum / fden`, computed exactly.
    pub fn round_scaled(&self, n: u64, fnum: u64, fden: u64) -> u64 {
        let a = u128::from(self.num) * u128::from(n) * u128::from(fnum);
        let b = u128::from(self.den) * u128::from(fden);
        floor_div(2 * a + b, 2 * b) as u64
    }

    /// `floor(f · κ · n)` with `f = fnum / fden`, computed exactly.
    pub fn floor_scaled(&self, n: u64, fnum: u64, fden: u64) -> u64 {
        let a = u128::from(self.num) * u128::from(n) * u128::from(fnum);
        floor_div(a, u128::from(self.den) * u128::from(fden)) as u64
    }

    /// `ceil(f · κ · n)` with `f = fnum / fden`, computed exactly.
    pub fn ceil_scaled(&self, n: u64, fnum: u64, fden: u64) -> u64 {
        let a = u128::from(self.num) * u128::from(n) * u128::from(fnum);
        ceil_div(a, u128::from(self.den) * u128::from(fden)) as u64
    }

    /// Processors added to a system of `s` processors: `round((κ − 1) · s)`.
    pub fn extra_procs(&self, s: u64) -> u64 {
        self.round_scaled(s, 1, 1).saturating_sub(s)
    }

    /// Cloud-pool bounds of the Dynamic strategy with a relative band `band_num / band_den`
    /// (0.10 = 1/10) on a grid of `s` processors (§III):
    /// `lo = max(0, ceil((1 − b) κ s) − s)`, `hi = floor((1 + b) κ s) − s`.
    pub fn band_bounds(&self, s: u64, band_num: u64, band_den: u64) -> (u64, u64) {
        let lo_f = band_den.saturating_sub(band_num);
        let lo = self.ceil_scaled(s, lo_f, band_den).saturating_sub(s);
        let hi = self
            .floor_scaled(s, band_den + band_num, band_den)
            .saturating_sub(s);
        (lo, hi.max(lo))
    }
}

impl std::fmt::Display for Kappa {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.value())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Found by crates/slarm/tests/robustness: κ = u64::MAX / 1 overflowed the u128
    /// scalings of a platform size.
    #[test]
    fn kappa_above_a_million_is_rejected() {
        assert!(Kappa::new(u64::MAX, 1).is_err());
        assert!(Kappa::new(1_000_001, 1).is_err());
        assert!(Kappa::new(1_000_000, 1).is_ok());
        let k = Kappa::new(1_000_000, 1).unwrap();
        assert!(k.band_bounds(MAX_PROCS_FOR_TEST, 1, 10).0 > 0);
    }

    const MAX_PROCS_FOR_TEST: u64 = crate::platform::MAX_PROCESSORS;

    #[test]
    fn exact_band_bounds_for_every_kappa() {
        // §III with S = 544 (Table I), band ±10 %.
        let cases = [
            (1.5, (191, 353)),
            (2.0, (436, 652)),
            (2.5, (680, 952)),
            (3.0, (925, 1251)),
        ];
        for (k, want) in cases {
            let kappa = Kappa::from_f64(k).unwrap();
            assert_eq!(kappa.band_bounds(544, 1, 10), want, "kappa {k}");
        }
        // 0.9 * 2.5 * 544 is exactly 1224 (a float product gives 1223.9999...).
        let k = Kappa::from_f64(2.5).unwrap();
        assert_eq!(k.ceil_scaled(544, 9, 10), 1224);
        assert_eq!(k.floor_scaled(544, 9, 10), 1224);
        // kappa = 1: lo = 0 (ceil(489.6) - 544 < 0 saturates), hi = floor(598.4) - 544.
        assert_eq!(Kappa::one().band_bounds(544, 1, 10), (0, 54));
    }

    #[test]
    fn reduction_and_validation() {
        let k = Kappa::from_f64(2.5).unwrap();
        assert_eq!((k.numer(), k.denom()), (5, 2));
        assert_eq!(k.extra_procs(544), 816);
        assert!(Kappa::from_f64(0.99).is_err());
        assert!(Kappa::from_f64(f64::NAN).is_err());
        assert!(Kappa::new(1, 0).is_err());
    }
}
