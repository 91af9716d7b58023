//! Utilisation of a platform's sites by background jobs (Yigitbasi & Epema 2010, §V-A, the paper's
//! Fig. 2): the processor-time each job demands from its submission for its recorded runtime,
//! per site and overall, in fixed time bins. It describes the background *input*, as the
//! paper's Fig. 2 describes the DAS-3 June 2008 trace; [`UtilisationProfile::site_peak`]
//! tells whether that input alone ever asks a site for more processors than it has (if not,
//! a background-only simulation runs every job at its submission and realises exactly this
//! profile).

use crate::error::{GridError, Result};
use crate::platform::Platform;
use crate::workload::BackgroundJob;
use slarm_stats::check;

/// Utilisation of every site and of the whole platform over `[0, horizon_s)`.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct UtilisationProfile {
    /// Bin width, seconds (the last bin may be shorter).
    pub bin_s: f64,
    /// End of the observed window, seconds.
    pub horizon_s: f64,
    /// Per site (platform order): busy processor-time of each bin / (processors × bin length).
    pub per_site: Vec<Vec<f64>>,
    /// Per bin: busy processor-time of all sites / (all processors × bin length).
    pub overall: Vec<f64>,
    /// Per site: mean utilisation over the whole window.
    pub site_mean: Vec<f64>,
    /// Mean utilisation of the platform over the whole window.
    pub overall_mean: f64,
    /// Per site: the most processors the jobs demand at one instant, as a fraction of the
    /// site (above 1: some background job would have to wait for another).
    pub site_peak: Vec<f64>,
}

/// Most bins of a utilisation profile per site (2^24, 128 MiB of `f64` per site).
pub const MAX_BINS: usize = 1 << 24;

/// The utilisation that `jobs` demand from the sites of `platform` over `[0, horizon_s)` in
/// bins of `bin_s` seconds: a job occupies `procs` processors of its site from `submit_s` for
/// `runtime_s`, and only the part inside the window counts.
///
/// ```
/// use slarm_grid::platform::Platform;
/// use slarm_grid::utilisation::background_utilisation;
/// use slarm_grid::workload::BackgroundJob;
/// let p = Platform::new(vec![("a".into(), 4, 2.2), ("b".into(), 2, 2.2)]).unwrap();
/// let job = |submit_s, runtime_s, procs, site| BackgroundJob { submit_s, runtime_s, procs, site };
/// let u = background_utilisation(&p, &[job(0.0, 50.0, 2, 0), job(50.0, 100.0, 2, 1)], 100.0, 50.0)
///     .unwrap();
/// assert_eq!(u.per_site[0], vec![0.5, 0.0]); // 2 of 4 processors for the first bin
/// assert_eq!(u.per_site[1], vec![0.0, 1.0]); // 2 of 2 for the second
/// assert_eq!(u.site_mean, vec![0.25, 0.5]);
/// assert_eq!(u.overall_mean, 200.0 / 600.0);
/// ```
pub fn background_utilisation(
    platform: &Platform,
    jobs: &[BackgroundJob],
    horizon_s: f64,
    bin_s: f64,
) -> Result<UtilisationProfile> {
    check::positive("utilisation horizon", horizon_s)?;
    check::positive("utilisation bin", bin_s)?;
    let sites = platform.sites();
    let bins = (horizon_s / bin_s).ceil().max(1.0);
    if bins > MAX_BINS as f64 {
        return Err(GridError::InvalidParameter {
            name: "utilisation bin",
            value: bin_s,
            reason: "the horizon would need more than 2^24 bins per site",
        });
    }
    // Whole, in [1, 2^24]: exact.
    let n_bins = bins as usize;
    let bin_len = |b: usize| (horizon_s.min((b + 1) as f64 * bin_s) - b as f64 * bin_s).max(0.0);
    let mut busy = vec![vec![0.0f64; n_bins]; sites.len()];
    let mut events: Vec<Vec<(f64, i128)>> = vec![Vec::new(); sites.len()];
    for j in jobs {
        if j.site >= sites.len() {
            return Err(GridError::InvalidWorkload(format!(
                "background job for site {} on a platform of {} sites",
                j.site,
                sites.len()
            )));
        }
        let (start, end) = (j.submit_s, j.submit_s + j.runtime_s);
        if !(start.is_finite() && end.is_finite()) || end < start {
            return Err(GridError::InvalidWorkload(
                "background job with a bad submit time or runtime".into(),
            ));
        }
        events[j.site].push((start, i128::from(j.procs)));
        events[j.site].push((end, -i128::from(j.procs)));
        let (lo, hi) = (start.max(0.0), end.min(horizon_s));
        if hi <= lo {
            continue;
        }
        let first = (lo / bin_s).floor() as usize;
        let last = ((hi / bin_s).ceil() as usize).min(n_bins);
        for (b, slot) in busy[j.site].iter_mut().enumerate().take(last).skip(first) {
            let overlap = hi.min((b + 1) as f64 * bin_s) - lo.max(b as f64 * bin_s);
            *slot += j.procs as f64 * overlap.max(0.0);
        }
    }
    let total_procs = platform.total_processors() as f64;
    let per_site: Vec<Vec<f64>> = busy
        .iter()
        .zip(sites)
        .map(|(bins, s)| {
            bins.iter()
                .enumerate()
                .map(|(b, x)| x / (s.processors as f64 * bin_len(b)))
                .collect()
        })
        .collect();
    let overall = (0..n_bins)
        .map(|b| busy.iter().map(|bins| bins[b]).sum::<f64>() / (total_procs * bin_len(b)))
        .collect();
    let site_mean = busy
        .iter()
        .zip(sites)
        .map(|(bins, s)| bins.iter().sum::<f64>() / (s.processors as f64 * horizon_s))
        .collect();
    let overall_mean = busy.iter().flatten().sum::<f64>() / (total_procs * horizon_s);
    let site_peak = events
        .iter_mut()
        .zip(sites)
        .map(|(ev, s)| peak_demand(ev) as f64 / s.processors as f64)
        .collect();
    Ok(UtilisationProfile {
        bin_s,
        horizon_s,
        per_site,
        overall,
        site_mean,
        overall_mean,
        site_peak,
    })
}

/// Largest sum of `+procs` / `-procs` events at one instant (ends before starts at a tie:
/// a job ending when another starts frees its processors for it).
fn peak_demand(events: &mut [(f64, i128)]) -> i128 {
    events.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    let mut level = 0i128;
    let mut peak = 0i128;
    for &(_, d) in events.iter() {
        level += d;
        peak = peak.max(level);
    }
    peak
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(submit_s: f64, runtime_s: f64, procs: u64, site: usize) -> BackgroundJob {
        BackgroundJob {
            submit_s,
            runtime_s,
            procs,
            site,
        }
    }

    fn two_sites() -> Platform {
        Platform::new(vec![("a".into(), 10, 2.2), ("b".into(), 30, 2.4)]).unwrap()
    }

    /// A horizon of 1e308 s in bins of 1e-308 s asked for `usize::MAX` bins (a capacity
    /// overflow panic); beyond 2^24 bins it is a typed error.
    #[test]
    fn more_bins_than_the_bound_is_an_error_not_an_allocation() {
        let e = background_utilisation(&two_sites(), &[], 1e308, 1e-308);
        assert!(matches!(
            e,
            Err(GridError::InvalidParameter {
                name: "utilisation bin",
                ..
            })
        ));
        let just_over = MAX_BINS as f64 + 1.0;
        assert!(background_utilisation(&two_sites(), &[], just_over, 1.0).is_err());
    }

    #[test]
    fn bins_split_jobs_exactly_and_clip_to_the_window() {
        // Site a: 5 procs over [30, 130) and 10 procs over [-50, 40) (clipped to [0, 40)).
        // Site b: 3 procs over [250, 400) (clipped to [250, 300)); last bin is [200, 300).
        let jobs = [
            job(30.0, 100.0, 5, 0),
            job(-50.0, 90.0, 10, 0),
            job(250.0, 150.0, 3, 1),
        ];
        let u = background_utilisation(&two_sites(), &jobs, 300.0, 100.0).unwrap();
        assert_eq!(
            u.per_site[0],
            vec![(5.0 * 70.0 + 10.0 * 40.0) / 1000.0, 0.15, 0.0]
        );
        assert_eq!(u.per_site[1], vec![0.0, 0.0, 3.0 * 50.0 / 3000.0]);
        assert_eq!(u.site_mean[0], (500.0 + 400.0) / 3000.0);
        assert_eq!(u.site_mean[1], 150.0 / 9000.0);
        assert_eq!(u.overall_mean, 1050.0 / 12_000.0);
        assert_eq!(u.overall[2], 150.0 / 4000.0);
        // Peak: over [30, 40) site a holds 10 + 5 = 15 of 10 processors (over-demanded).
        assert_eq!(u.site_peak, vec![1.5, 0.1]);
    }

    #[test]
    fn partial_last_bin_is_normalised_by_its_length() {
        let u =
            background_utilisation(&two_sites(), &[job(100.0, 50.0, 10, 0)], 150.0, 100.0).unwrap();
        assert_eq!(u.per_site[0], vec![0.0, 1.0]);
        assert_eq!(u.site_mean[0], 500.0 / 1500.0);
    }

    #[test]
    fn back_to_back_jobs_do_not_add_up_in_the_peak() {
        let u = background_utilisation(
            &two_sites(),
            &[job(0.0, 10.0, 10, 0), job(10.0, 10.0, 10, 0)],
            20.0,
            10.0,
        )
        .unwrap();
        assert_eq!(u.site_peak[0], 1.0);
    }

    #[test]
    fn bad_input_is_a_typed_error() {
        let p = two_sites();
        assert!(background_utilisation(&p, &[], 0.0, 10.0).is_err());
        assert!(background_utilisation(&p, &[], 10.0, f64::NAN).is_err());
        assert!(background_utilisation(&p, &[job(0.0, 1.0, 1, 2)], 10.0, 1.0).is_err());
        assert!(background_utilisation(&p, &[job(0.0, f64::INFINITY, 1, 0)], 10.0, 1.0).is_err());
        let empty = background_utilisation(&p, &[], 10.0, 3.0).unwrap();
        assert_eq!(empty.overall, vec![0.0; 4]);
    }
}
