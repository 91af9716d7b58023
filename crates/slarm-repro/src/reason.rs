//! Reasons of checks that do not match, built from the run that produced them.
//!
//! A paper attaches a reason with [`slarm_report::Check::explain`], which calls its closure only when the
//! check is "within tolerance" or "differs", so a matching check never carries one, and the
//! closure can read the check's own numbers. [`sampling_noise`] turns a gap and a sample size
//! into the measured verdict of whether the gap can be sampling noise.

#[cfg(test)]
use slarm_report::Check;

/// 95 % half-width (normal approximation) of a proportion `p` measured over `n` samples.
pub fn proportion_half_width(p: f64, n: usize) -> f64 {
    1.96 * (p * (1.0 - p) / n.max(1) as f64).sqrt()
}

/// Whether a gap `ours - published` can be sampling noise, given the 95 % half-width of ours
/// over `n` samples: one clause with the numbers.
pub fn sampling_noise(gap: f64, half_width: f64, n: usize) -> String {
    if gap.abs() <= half_width {
        format!(
            "the gap {gap:+.3} lies within the 95 % half-width {half_width:.3} of L = {n} samples, so it can be sampling noise"
        )
    } else if half_width > 0.0 {
        format!(
            "the gap {gap:+.3} is {:.1}x the 95 % half-width {half_width:.3} of L = {n} samples, so it is not sampling noise",
            gap.abs() / half_width
        )
    } else {
        format!(
            "ours has no spread over L = {n} samples, so whether the gap {gap:+.3} is sampling noise cannot be judged from this run"
        )
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn reasons_only_where_a_check_does_not_match() {
        let why = |c: &Check| format!("off by {:.2}", c.deviation.unwrap_or(0.0));
        let matched = Check::numeric("a", "", 1.0, Some(1.0), 0.1).explain(why);
        assert_eq!(matched.reason, None);
        let close = Check::numeric("a", "", 1.05, Some(1.0), 0.1).explain(why);
        assert_eq!(close.reason.as_deref(), Some("off by 0.05"));
        let far = Check::numeric("a", "", 2.0, Some(1.0), 0.1).explain(why);
        assert_eq!(far.reason.as_deref(), Some("off by 1.00"));
        let unpublished = Check::numeric("a", "", 2.0, None, 0.1).explain(why);
        assert_eq!(unpublished.reason, None);
    }

    #[test]
    fn noise_verdict_from_the_numbers() {
        let hw = proportion_half_width(0.5, 100);
        assert!((hw - 0.098).abs() < 1e-12);
        assert!(sampling_noise(0.05, hw, 100).contains("can be sampling noise"));
        assert!(sampling_noise(-0.5, hw, 100).contains("5.1x the 95 % half-width 0.098"));
        assert!(sampling_noise(0.5, 0.0, 3).contains("cannot be judged"));
    }
}
