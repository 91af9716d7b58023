//! slarm-stats: grid distributions, convolutions, intervals, goodness of fit, ratio
//! distributions.

use slarm::stats::check;
use slarm::stats::convolution::{
    convolve_direct, convolve_fft, convolve_masses_direct, convolve_masses_fft,
};
use slarm::stats::gof::{kolmogorov_critical, kolmogorov_survival, ks_critical_value};
use slarm::stats::ratio::{percent_bin, RatioDist, RatioLearner};
use slarm::stats::summary::student_t_quantile;
use slarm::stats::summary::{ln_gamma, regularized_incomplete_beta, student_t_cdf};
use slarm::stats::{
    ks_test, max_of_independent, ConfidenceInterval, Ecdf, GridDist, Rounding, Welford,
};

use crate::{property, Gen, CASES};

fn rounding(g: &mut Gen) -> Rounding {
    *g.pick(&[Rounding::Up, Rounding::Down, Rounding::Nearest])
}

/// 0-7 masses: hostile values or a proper distribution.
fn masses(g: &mut Gen) -> Vec<f64> {
    let n = g.below(8) as usize;
    if g.coin() {
        (0..n).map(|_| g.nasty()).collect()
    } else {
        let raw: Vec<f64> = (0..n).map(|_| g.unit()).collect();
        let s: f64 = raw.iter().sum();
        raw.iter().map(|m| m / s).collect()
    }
}

fn check_dist(d: &GridDist, at: &str) {
    assert!(
        d.step() > 0.0 && d.step().is_finite(),
        "{at}: step {}",
        d.step()
    );
    assert!(d.origin().is_finite(), "{at}: origin {}", d.origin());
    assert!(
        d.masses().iter().all(|m| m.is_finite() && *m >= 0.0),
        "{at}: masses {:?}",
        d.masses()
    );
    assert!(
        d.total_mass() <= 1.0 + 1e-9,
        "{at}: mass {}",
        d.total_mass()
    );
}

#[test]
fn grid_dist_constructors() {
    property("stats/GridDist constructors", CASES, true, |g, t| {
        let (origin, step) = (g.mostly(-100.0, 100.0), g.mostly(0.1, 60.0));
        let m = masses(g);
        let at = t.at();
        for d in [
            t.call(GridDist::new(origin, step, m.clone())),
            t.call(GridDist::defective(origin, step, m.clone())),
            t.call(GridDist::dirac(origin, step)),
            t.call(GridDist::from_cdf(origin, step, &m)),
        ]
        .into_iter()
        .flatten()
        {
            check_dist(&d, &at);
            assert!(
                d.cdf_values()
                    .iter()
                    .all(|c| (0.0..=1.0 + 1e-9).contains(c)),
                "{at}"
            );
        }
    });
}

#[test]
fn grid_dist_operations() {
    let defective = GridDist::defective(0.0, 60.0, vec![0.25, 0.5]).unwrap();
    let proper = GridDist::new(10.0, 2.0, vec![0.25, 0.0, 0.5, 0.25]).unwrap();
    property("stats/GridDist operations", CASES, true, |g, t| {
        let d = if g.coin() { &defective } else { &proper };
        let (a, b) = (g.nasty(), g.nasty());
        let at = t.at();
        let results = [
            t.call(d.shift(a)),
            t.call(d.shift_steps(g.u64() as i64)),
            t.call(d.rebin(b, rounding(g))),
            t.call(d.regrid(a, b, rounding(g))),
            t.call(d.truncate_at(a)),
            t.call(d.given_exceeds(b)),
        ];
        for r in results.into_iter().flatten() {
            check_dist(&r, &at);
        }
        if let Some(q) = t.call(d.quantile(a)) {
            assert!(q.is_finite(), "{at}");
        }
        for v in [t.call(d.mean()), t.call(d.variance())]
            .into_iter()
            .flatten()
        {
            assert!(v.is_finite(), "{at}");
        }
        let (c, s, p) = (d.cdf(b), d.survival(b), d.pmf(a));
        for v in [c, s, p] {
            assert!(v.is_nan() || (0.0..=1.0).contains(&v), "{at}: {v}");
        }
        check_dist(&d.trimmed(), &at);
        t.infallible();
    });
}

#[test]
fn convolutions_and_maxima() {
    property("stats/convolutions", CASES / 4, true, |g, t| {
        let (a, b) = (masses(g), masses(g));
        let at = t.at();
        let direct = convolve_masses_direct(&a, &b);
        t.infallible();
        if let Some(fft) = t.call(convolve_masses_fft(&a, &b)) {
            assert_eq!(fft.len(), direct.len(), "{at}");
        }
        let step = g.mostly(0.5, 2.0);
        let da = t.call(GridDist::defective(g.mostly(-5.0, 5.0), step, a));
        let db = t.call(GridDist::defective(
            g.mostly(-5.0, 5.0),
            g.mostly(0.5, 2.0),
            b,
        ));
        if let (Some(da), Some(db)) = (da, db) {
            for r in [
                t.call(convolve_direct(&da, &db)),
                t.call(convolve_fft(&da, &db)),
                t.call(da.convolve(&db)),
                t.call(max_of_independent(&[&da, &db])),
            ]
            .into_iter()
            .flatten()
            {
                check_dist(&r, &at);
            }
        }
    });
}

#[test]
fn intervals_and_summaries() {
    property("stats/intervals and summaries", CASES, true, |g, t| {
        let n = g.below(6);
        let samples: Vec<f64> = (0..n).map(|_| g.nasty()).collect();
        let (level, mean, var, p, df) = (g.nasty(), g.nasty(), g.nasty(), g.nasty(), g.nasty());
        let at = t.at();
        if let Some(ci) = t.call(ConfidenceInterval::of_samples(&samples, level)) {
            assert!(ci.level > 0.0 && ci.level < 1.0, "{at}");
            assert!(ci.half_width >= 0.0 || ci.half_width.is_nan(), "{at}");
        }
        t.call(ConfidenceInterval::from_summary(
            mean,
            var,
            g.count(5),
            level,
        ));
        let w: Welford = samples.iter().copied().collect();
        t.call(w.ci(level));
        t.call(w.ci95());
        if let Some(q) = t.call(student_t_quantile(p, df)) {
            assert!(!q.is_nan(), "{at}: t quantile({p}, {df})");
        }
        let c = student_t_cdf(mean, df);
        assert!(c.is_nan() || (0.0..=1.0).contains(&c), "{at}: t cdf {c}");
        let _ = (ln_gamma(mean), regularized_incomplete_beta(p, df, var));
        t.infallible();
        t.call(check::finite("x", mean));
        t.call(check::positive("x", mean));
        t.call(check::non_negative("x", mean));
        t.call(check::probability("x", p));
        t.call(check::open_probability("x", p));
        t.call(check::at_least("x", mean, var));
    });
}

#[test]
fn goodness_of_fit() {
    property("stats/Ecdf and KS", CASES, true, |g, t| {
        let n = g.below(6);
        let samples: Vec<f64> = (0..n).map(|_| g.nasty()).collect();
        let (x, alpha) = (g.nasty(), g.nasty());
        let at = t.at();
        if let Some(e) = t.call(Ecdf::new(&samples)) {
            assert!((0.0..=1.0).contains(&e.eval(x)), "{at}");
            t.call(e.quantile(alpha));
            t.call(e.ks_against(|v: f64| v.clamp(0.0, 1.0)));
        }
        if let Some(ks) = t.call(ks_test(&samples, |v: f64| v.clamp(0.0, 1.0))) {
            assert!((0.0..=1.0).contains(&ks.d), "{at}");
            let p = ks.p_value();
            assert!(p.is_nan() || (0.0..=1.0).contains(&p), "{at}: p {p}");
            t.call(ks.critical_value(alpha));
            t.call(ks.rejects(alpha));
        }
        t.call(kolmogorov_critical(alpha));
        t.call(ks_critical_value(g.count(100) as usize, alpha));
        let s = kolmogorov_survival(x);
        assert!(s.is_nan() || (0.0..=1.0).contains(&s), "{at}: survival {s}");
    });
}

#[test]
fn ratio_distributions() {
    property("stats/ratio distributions", CASES, true, |g, t| {
        let (run, est, allotted) = (g.nasty(), g.nasty(), g.nasty());
        let at = t.at();
        t.call(percent_bin(run, est, rounding(g)));
        let mut learner = RatioLearner::new(rounding(g));
        for _ in 0..g.below(6) {
            t.call(learner.push(g.mostly(0.0, 100.0), g.mostly(1.0, 100.0)));
        }
        let learned = t.call(learner.finish());
        let pmf = masses(g);
        let from_pmf = t.call(RatioDist::from_pmf(&pmf));
        for d in [learned, from_pmf].into_iter().flatten() {
            if let Some(p) = t.call(d.prob_within(allotted, est, rounding(g))) {
                assert!((0.0..=1.0 + 1e-9).contains(&p), "{at}: {p}");
            }
            if let Some(gd) = t.call(d.to_percent_grid(est)) {
                check_dist(&gd, &at);
            }
            if let Some(gd) = t.call(d.to_time_grid(est, g.nasty(), rounding(g))) {
                check_dist(&gd, &at);
            }
        }
    });
}
