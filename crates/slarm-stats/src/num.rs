//! Checked conversions of `f64` values to integers: a float-to-integer `as` saturates (and
//! maps NaN to 0) silently, so a value out of range would become a wrong count or time.

/// The largest magnitude below which every whole `f64` is exact: 2^53.
pub const MAX_EXACT_INT: f64 = 9_007_199_254_740_992.0;

/// `x` as an `i64` when it is a whole number of magnitude at most 2^53 (so that it and every
/// integer near it are exact in both types); `None` for NaN, infinities, fractions and larger
/// magnitudes.
///
/// ```
/// use slarm_stats::num::exact_i64;
/// assert_eq!(exact_i64(-42.0), Some(-42));
/// assert_eq!(exact_i64(9_007_199_254_740_992.0), Some(1 << 53));
/// assert_eq!(exact_i64(1e300), None); // `1e300 as i64` would be i64::MAX
/// assert_eq!(exact_i64(0.5), None);
/// assert_eq!(exact_i64(f64::NAN), None); // `NAN as i64` would be 0
/// ```
pub fn exact_i64(x: f64) -> Option<i64> {
    if x.fract() == 0.0 && x.abs() <= MAX_EXACT_INT {
        // Whole and within +-2^53: exact.
        Some(x as i64)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        #[test]
        fn exact_i64_round_trips_or_refuses(x in proptest::num::f64::ANY) {
            match exact_i64(x) {
                Some(i) => proptest::prop_assert_eq!(i as f64, x),
                None => proptest::prop_assert!(!x.is_finite() || x.fract() != 0.0 || x.abs() > MAX_EXACT_INT),
            }
        }
    }

    #[test]
    fn extremes() {
        for x in [
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::MAX,
            f64::MIN,
            1e19,
            -1e19,
            2f64.powi(53) + 2.0,
        ] {
            assert_eq!(exact_i64(x), None, "{x}");
        }
        assert_eq!(exact_i64(-0.0), Some(0));
        assert_eq!(exact_i64(-MAX_EXACT_INT), Some(-(1 << 53)));
    }
}
