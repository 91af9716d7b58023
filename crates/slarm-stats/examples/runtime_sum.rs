//! Two job run-time distributions on a one-minute grid: the distribution of their total
//! (convolution, direct or FFT by size), its mean, median and the chance that both jobs fit
//! a two-hour slot, checked against a seeded Monte Carlo estimate.
//!
//! `cargo run -p slarm-stats --example runtime_sum`

use rand::RngExt;
use slarm_stats::{convolve, GridDist, RngStreams, Welford};

fn main() -> Result<(), slarm_stats::StatsError> {
    // Job A: 10 to 40 minutes, uniform; job B: 30 min (60 %), 60 min (30 %), 90 min (10 %).
    let a = GridDist::new(600.0, 60.0, vec![1.0 / 31.0; 31])?;
    let mut b_masses = vec![0.0; 61];
    b_masses[0] = 0.6;
    b_masses[30] = 0.3;
    b_masses[60] = 0.1;
    let b = GridDist::new(1800.0, 60.0, b_masses)?;
    let total = convolve(&a, &b)?;
    let slot = 7200.0;
    println!(
        "total: mean {:.0} s, median {:.0} s, P(total <= {slot} s) = {:.4}",
        total.mean()?,
        total.quantile(0.5)?,
        total.cdf(slot)
    );

    // The same probability by sampling both jobs (seeded, so the same every run).
    let mut rng = RngStreams::new(7).stream(&[0]);
    let draw = |d: &GridDist, rng: &mut slarm_stats::SimRng| {
        let u: f64 = rng.random();
        d.quantile(u.max(f64::MIN_POSITIVE))
    };
    let mut fits = Welford::new();
    for _ in 0..20_000 {
        let t = draw(&a, &mut rng)? + draw(&b, &mut rng)?;
        fits.push(if t <= slot { 1.0 } else { 0.0 });
    }
    println!(
        "Monte Carlo: {:.4} +- {:.4} (20000 draws, two standard errors)",
        fits.mean(),
        2.0 * fits.std_dev() / (fits.count() as f64).sqrt()
    );
    Ok(())
}
