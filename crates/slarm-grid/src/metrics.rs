//! Metrics of Yigitbasi & Epema 2010, §V-C: makespan, NSL, C_d and C_s with grouping options, NSL
//! distribution summaries, p90, BoTs meeting a target, CPU-hour cost arithmetic and the
//! truncations used in Tables IV and VI.

use std::collections::BTreeMap;

use crate::error::{GridError, Result};

/// Outcome of one BoT.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct BotRecord {
    /// Number of tasks.
    pub size: usize,
    /// Submission time, seconds.
    pub arrival_s: f64,
    /// Latest task completion − earliest submission, seconds.
    pub makespan_s: f64,
    /// Makespan / Σ task runtimes on the reference processor.
    pub nsl: f64,
    /// Longest time one of its tasks waited in a local queue, seconds (0: no task waited).
    #[cfg_attr(feature = "serde", serde(default))]
    pub max_wait_s: f64,
}

/// Standard deviation used for the CoV in C_s (§V-C does not say which).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum StdKind {
    /// Population standard deviation (default): CoV ≤ √(n − 1).
    Population,
    /// Sample standard deviation (n − 1 denominator).
    Sample,
}

/// Grouping options for C_d and C_s.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Grouping {
    /// Size groups with fewer BoTs are ignored (default 1: the literal max over all sizes).
    pub min_group_count: usize,
    /// Population or sample standard deviation.
    pub std: StdKind,
}

impl Default for Grouping {
    fn default() -> Self {
        Self {
            min_group_count: 1,
            std: StdKind::Population,
        }
    }
}

/// C_d, C_s and the groups they were computed on.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Consistency {
    /// max over sizes of mean NSL / min over sizes of mean NSL (≥ 1, closer to 1 is better).
    pub c_d: f64,
    /// max over sizes of the CoV of NSL (≥ 0, closer to 0 is better).
    pub c_s: f64,
    /// Number of size groups used.
    pub groups: usize,
    /// Size whose group gave C_s.
    pub c_s_size: usize,
}

/// Mean and coefficient of variation (standard deviation / mean; 0 if the mean is not
/// positive) of a non-empty sample.
///
/// ```
/// use slarm_grid::metrics::{mean_cov, StdKind};
/// assert_eq!(mean_cov(&[1.0, 3.0], StdKind::Population), (2.0, 0.5));
/// ```
pub fn mean_cov(xs: &[f64], std: StdKind) -> (f64, f64) {
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    let ss: f64 = xs.iter().map(|x| (x - mean) * (x - mean)).sum();
    let var = match std {
        StdKind::Population => ss / n,
        StdKind::Sample if xs.len() > 1 => ss / (n - 1.0),
        StdKind::Sample => 0.0,
    };
    let cov = if mean > 0.0 { var.sqrt() / mean } else { 0.0 };
    (mean, cov)
}

/// C_d and C_s over BoTs grouped by exact size (§V-C). A group of one BoT has CoV 0.
///
/// ```
/// use slarm_grid::metrics::{consistency, BotRecord, Grouping};
/// let rec = |size, nsl| BotRecord { size, arrival_s: 0.0, makespan_s: 1.0, nsl, max_wait_s: 0.0 };
/// let bots = [rec(1, 1.0), rec(1, 3.0), rec(4, 0.5)];
/// let c = consistency(&bots, Grouping::default()).unwrap();
/// assert_eq!(c.c_d, 4.0); // mean 2.0 / mean 0.5
/// assert_eq!(c.c_s, 0.5); // population std 1.0 / mean 2.0
/// ```
pub fn consistency(bots: &[BotRecord], grouping: Grouping) -> Result<Consistency> {
    let mut groups: BTreeMap<usize, Vec<f64>> = BTreeMap::new();
    for b in bots {
        if !b.nsl.is_finite() || b.nsl < 0.0 {
            return Err(GridError::UndefinedMetric(format!(
                "NSL {} of a BoT",
                b.nsl
            )));
        }
        groups.entry(b.size).or_default().push(b.nsl);
    }
    let mut max_mean = f64::NEG_INFINITY;
    let mut min_mean = f64::INFINITY;
    let mut c_s = 0.0;
    let mut c_s_size = 0;
    let mut used = 0;
    for (&size, xs) in &groups {
        if xs.len() < grouping.min_group_count.max(1) {
            continue;
        }
        used += 1;
        let (mean, cov) = mean_cov(xs, grouping.std);
        max_mean = max_mean.max(mean);
        min_mean = min_mean.min(mean);
        if cov > c_s || used == 1 {
            c_s = cov;
            c_s_size = size;
        }
    }
    if used == 0 {
        return Err(GridError::UndefinedMetric(format!(
            "no size group with at least {} BoTs",
            grouping.min_group_count
        )));
    }
    if min_mean <= 0.0 {
        return Err(GridError::UndefinedMetric(
            "a size group has mean NSL 0".into(),
        ));
    }
    Ok(Consistency {
        c_d: max_mean / min_mean,
        c_s,
        groups: used,
        c_s_size,
    })
}

/// Box-plot statistics of a sample (quantiles by linear interpolation, type 7).
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct BoxStats {
    /// Minimum.
    pub min: f64,
    /// First quartile.
    pub q1: f64,
    /// Median.
    pub median: f64,
    /// Mean.
    pub mean: f64,
    /// Third quartile.
    pub q3: f64,
    /// Maximum.
    pub max: f64,
}

/// Quantile `q ∈ [0, 1]` of a sorted non-empty sample (linear interpolation).
fn quantile_sorted(xs: &[f64], q: f64) -> f64 {
    let h = (xs.len() - 1) as f64 * q;
    let lo = h.floor() as usize;
    let hi = h.ceil() as usize;
    xs[lo] + (h - lo as f64) * (xs[hi] - xs[lo])
}

/// Min, quartiles, mean and max; `None` for an empty sample or one with NaN.
pub fn box_stats(xs: &[f64]) -> Option<BoxStats> {
    if xs.is_empty() || xs.iter().any(|x| x.is_nan()) {
        return None;
    }
    let mut s = xs.to_vec();
    s.sort_by(f64::total_cmp);
    Some(BoxStats {
        min: s[0],
        q1: quantile_sorted(&s, 0.25),
        median: quantile_sorted(&s, 0.5),
        mean: s.iter().sum::<f64>() / s.len() as f64,
        q3: quantile_sorted(&s, 0.75),
        max: s[s.len() - 1],
    })
}

/// Nearest-rank percentile: the ⌈p·n⌉-th smallest (p90 of 10 values = 9th smallest).
pub fn percentile_nearest_rank(xs: &[f64], p: f64) -> Option<f64> {
    if xs.is_empty() || !(0.0..=1.0).contains(&p) || xs.iter().any(|x| x.is_nan()) {
        return None;
    }
    let mut s = xs.to_vec();
    s.sort_by(f64::total_cmp);
    let rank = ((p * s.len() as f64).ceil() as usize).clamp(1, s.len());
    Some(s[rank - 1])
}

/// Empirical CDF of a sample as at most `max_points` `(x, F(x))` steps.
pub fn ecdf(xs: &[f64], max_points: usize) -> Vec<(f64, f64)> {
    let mut s: Vec<f64> = xs.iter().copied().filter(|x| !x.is_nan()).collect();
    s.sort_by(f64::total_cmp);
    let n = s.len();
    if n == 0 || max_points == 0 {
        return vec![];
    }
    let step = n.div_ceil(max_points).max(1);
    let mut out: Vec<(f64, f64)> = (step - 1..n)
        .step_by(step)
        .map(|i| (s[i], (i + 1) as f64 / n as f64))
        .collect();
    if out.last().map(|p| p.1) != Some(1.0) {
        out.push((s[n - 1], 1.0));
    }
    out
}

/// BoTs whose makespan is strictly below `target_s` (§VII, Table VI).
pub fn bots_meeting(bots: &[BotRecord], target_s: f64) -> usize {
    bots.iter().filter(|b| b.makespan_s < target_s).count()
}

/// Cloud instance-hours of a lease of `seconds`: partial hours round up (§V-C);
/// a zero-length lease costs nothing.
pub fn lease_hours(seconds: f64) -> u64 {
    if seconds <= 0.0 || !seconds.is_finite() {
        0
    } else {
        (seconds / 3600.0).ceil() as u64
    }
}

/// Cost reduction of Table IV: `100 (all − dynamic) / all`, truncated to one decimal.
pub fn reduction_pct_truncated(all: f64, dynamic: f64) -> f64 {
    (1000.0 * (all - dynamic) / all).trunc() / 10.0
}

/// Improvement of Table VI: `(with − without) / total` in %, truncated to an integer.
pub fn improvement_pct_truncated(with: usize, without: usize, total: usize) -> i64 {
    if total == 0 {
        return 0;
    }
    ((with as f64 - without as f64) * 100.0 / total as f64).trunc() as i64
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn rec(size: usize, nsl: f64) -> BotRecord {
        BotRecord {
            size,
            arrival_s: 0.0,
            makespan_s: nsl,
            nsl,
            max_wait_s: 0.0,
        }
    }

    #[test]
    fn consistency_hand_made() {
        // §V-C: C_d = max mean / min mean over exact sizes; C_s = max CoV (population).
        let bots = [
            rec(1, 2.0),
            rec(1, 4.0), // mean 3, std 1, CoV 1/3
            rec(2, 1.0),
            rec(2, 1.0), // mean 1, CoV 0
            rec(5, 6.0), // singleton: CoV 0, mean 6
        ];
        let c = consistency(&bots, Grouping::default()).unwrap();
        assert!((c.c_d - 6.0).abs() < 1e-12);
        assert!((c.c_s - 1.0 / 3.0).abs() < 1e-12);
        assert_eq!(c.c_s_size, 1);
        assert_eq!(c.groups, 3);
        // min_group_count = 2 drops the singleton: C_d = 3.
        let g2 = Grouping {
            min_group_count: 2,
            ..Grouping::default()
        };
        assert!((consistency(&bots, g2).unwrap().c_d - 3.0).abs() < 1e-12);
        // Sample std: sqrt(2)/3.
        let gs = Grouping {
            std: StdKind::Sample,
            ..Grouping::default()
        };
        assert!((consistency(&bots, gs).unwrap().c_s - 2f64.sqrt() / 3.0).abs() < 1e-12);
        // No group large enough, zero means, NaN: typed errors.
        let g9 = Grouping {
            min_group_count: 9,
            ..Grouping::default()
        };
        assert!(consistency(&bots, g9).is_err());
        assert!(consistency(&[rec(1, 0.0)], Grouping::default()).is_err());
        assert!(consistency(&[rec(1, f64::NAN)], Grouping::default()).is_err());
    }

    #[test]
    fn cov_bound_is_attained() {
        // §V-C: population CoV ≤ √(n − 1), with equality for one non-zero value.
        let mut bots = vec![rec(3, 10.0)];
        bots.extend((0..145).map(|_| rec(3, 0.0)));
        let c = consistency(&bots, Grouping::default()).unwrap();
        assert!((c.c_s - 145f64.sqrt()).abs() < 1e-9);
        // So C_s = 12.05 needs at least 146 BoTs in one group: 12.05^2 + 1 = 146.2.
        assert!(12.05f64.powi(2) + 1.0 > 146.0);
    }

    proptest! {
        #[test]
        fn cov_never_exceeds_bound(xs in proptest::collection::vec(0.0f64..1e6, 1..60)) {
            let bots: Vec<BotRecord> = xs.iter().map(|&x| rec(2, x + 1e-9)).collect();
            let c = consistency(&bots, Grouping::default()).unwrap();
            prop_assert!(c.c_s <= ((xs.len() - 1) as f64).sqrt() + 1e-9);
            prop_assert!(c.c_d >= 1.0);
        }

        #[test]
        fn box_stats_ordered(xs in proptest::collection::vec(-1e6f64..1e6, 1..80)) {
            let b = box_stats(&xs).unwrap();
            prop_assert!(b.min <= b.q1 && b.q1 <= b.median && b.median <= b.q3 && b.q3 <= b.max);
            prop_assert!(b.min <= b.mean + 1e-6 && b.mean <= b.max + 1e-6);
        }
    }

    #[test]
    fn percentile_and_ecdf() {
        let xs: Vec<f64> = (1..=10).map(f64::from).collect();
        assert_eq!(percentile_nearest_rank(&xs, 0.9), Some(9.0));
        assert_eq!(percentile_nearest_rank(&xs, 1.0), Some(10.0));
        assert_eq!(percentile_nearest_rank(&[], 0.9), None);
        let b = box_stats(&xs).unwrap();
        assert_eq!((b.min, b.median, b.max), (1.0, 5.5, 10.0));
        assert_eq!((b.q1, b.q3), (3.25, 7.75));
        let c = ecdf(&xs, 5);
        assert_eq!(c.len(), 5);
        assert_eq!(c[4], (10.0, 1.0));
    }

    #[test]
    fn cost_rounding() {
        // §V-C: partial instance-hours round up to one hour.
        assert_eq!(lease_hours(0.0), 0);
        assert_eq!(lease_hours(1.0), 1);
        assert_eq!(lease_hours(3600.0), 1);
        assert_eq!(lease_hours(3600.5), 2);
        assert_eq!(lease_hours(69.0 + 18.0), 1);
        assert_eq!(lease_hours(f64::NAN), 0);
    }

    #[test]
    fn table4_arithmetic() {
        // Table IV: All = 37 770 κ; reductions truncated to 42.7, 34.5, 26.3, 24.5.
        let rows = [
            (1.5, 56655.0, 32446.0, 42.7),
            (2.0, 75540.0, 49427.0, 34.5),
            (2.5, 94425.0, 69572.0, 26.3),
            (3.0, 113310.0, 85484.0, 24.5),
        ];
        for (k, all, dynamic, red) in rows {
            assert_eq!(37770.0 * k, all);
            assert!((reduction_pct_truncated(all, dynamic) - red).abs() < 1e-9);
        }
    }

    #[test]
    fn table6_arithmetic() {
        // Table VI: improvement = (w − w/o)/32 860 truncated: 67, 48, 40.
        assert_eq!(improvement_pct_truncated(26849, 4732, 32860), 67);
        assert_eq!(improvement_pct_truncated(21870, 5900, 32860), 48);
        assert_eq!(improvement_pct_truncated(20219, 6959, 32860), 40);
        assert_eq!(improvement_pct_truncated(1, 0, 0), 0);
        let bots = [rec(1, 5.0), rec(1, 10.0)];
        assert_eq!(bots_meeting(&bots, 10.0), 1); // strict
    }
}
