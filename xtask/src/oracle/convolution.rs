//! Comparison 2: our FFT and direct convolutions (`slarm::stats::convolution`) against
//! `scipy.signal.fftconvolve` on random distributions of 2^4 to 2^18 bins.
//!
//! For each size `n = 2^k` two random distributions of `n` bins are drawn from a fixed
//! seed (dense skewed masses `u^3`, every fourth size sparse with 90% empty bins). The FFT
//! method convolves the two full operands; the direct `O(n m)` method convolves the first
//! with a partner of `min(n, 2^22 / n)` bins so its cost stays below `2^22` multiply-adds.
//! The figure is the largest `|ours - scipy|` divided by the peak of scipy's result; the
//! tolerance is `1e-12` of the peak, the agreement slarm-stats documents for its FFT
//! (its noise floor is `2^-45` of the peak).

use std::path::Path;

use rand::{Rng, RngExt};
use serde_json::{json, Value};
use slarm::stats::convolution::{convolve_direct, convolve_fft};
use slarm::stats::{GridDist, RngStreams};

use super::{Context, Outcome};

const SEED: u64 = 20_261_122;
const MIN_LOG2: u32 = 4;
const MAX_LOG2: u32 = 18;
const DIRECT_BUDGET_LOG2: u32 = 22;
const TOL_PEAK: f64 = 1e-12;

fn random_masses(rng: &mut impl Rng, n: usize, sparse: bool) -> Vec<f64> {
    let mut m: Vec<f64> = (0..n)
        .map(|_| {
            if sparse && rng.random::<f64>() < 0.9 {
                0.0
            } else {
                rng.random::<f64>().powi(3)
            }
        })
        .collect();
    if m.iter().all(|&x| x == 0.0) {
        m[0] = 1.0;
    }
    let total: f64 = m.iter().sum();
    m.iter_mut().for_each(|x| *x /= total);
    m
}

fn write_f64(path: &Path, values: &[f64]) -> Result<(), String> {
    let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    std::fs::write(path, bytes).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

fn read_f64(path: &Path) -> Result<Vec<f64>, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    if bytes.len() % 8 != 0 {
        return Err(format!("{}: not a whole number of f64", path.display()));
    }
    Ok(bytes
        .chunks_exact(8)
        .map(|c| {
            let mut b = [0u8; 8];
            b.copy_from_slice(c);
            f64::from_le_bytes(b)
        })
        .collect())
}

fn dist(masses: Vec<f64>) -> Result<GridDist, String> {
    GridDist::new(0.0, 1.0, masses).map_err(|e| e.to_string())
}

/// `max |ours - reference| / max(reference)`; infinite when the lengths differ.
fn peak_relative_diff(ours: &[f64], reference: &[f64]) -> f64 {
    if ours.len() != reference.len() {
        return f64::INFINITY;
    }
    let peak = reference.iter().fold(0.0_f64, |a, &b| a.max(b.abs()));
    let diff = ours
        .iter()
        .zip(reference)
        .fold(0.0_f64, |a, (x, y)| a.max((x - y).abs()));
    if peak > 0.0 {
        diff / peak
    } else {
        diff
    }
}

struct Pair {
    name: String,
    a: Vec<f64>,
    b: Vec<f64>,
    direct: bool,
}

fn pairs() -> Vec<Pair> {
    let streams = RngStreams::new(SEED);
    let mut out = Vec::new();
    for k in MIN_LOG2..=MAX_LOG2 {
        let n = 1usize << k;
        let sparse = k % 4 == 3;
        let mut rng = streams.stream(&[u64::from(k)]);
        let a = random_masses(&mut rng, n, sparse);
        let b = random_masses(&mut rng, n, sparse);
        let short = n.min(1usize << DIRECT_BUDGET_LOG2.saturating_sub(k));
        let bs = random_masses(&mut rng, short, sparse);
        out.push(Pair {
            name: format!("fft-2^{k}"),
            a: a.clone(),
            b,
            direct: false,
        });
        out.push(Pair {
            name: format!("direct-2^{k}x{short}"),
            a,
            b: bs,
            direct: true,
        });
    }
    out
}

/// Runs the comparison.
pub fn compare(ctx: &Context) -> Vec<Outcome> {
    match compare_inner(ctx) {
        Ok(v) => v,
        Err(e) => vec![Outcome::error("convolution", &e)],
    }
}

fn compare_inner(ctx: &Context) -> Result<Vec<Outcome>, String> {
    let pairs = pairs();
    let mut cases = Vec::new();
    for p in &pairs {
        write_f64(&ctx.scratch.join(format!("{}-a.f64", p.name)), &p.a)?;
        write_f64(&ctx.scratch.join(format!("{}-b.f64", p.name)), &p.b)?;
        cases.push(json!({
            "name": p.name,
            "a": format!("{}-a.f64", p.name),
            "b": format!("{}-b.f64", p.name),
            "out": format!("{}-scipy.f64", p.name),
        }));
    }
    let output = ctx.run_script("convolution.py", &json!({ "cases": cases }))?;
    let version = output
        .get("scipy")
        .and_then(Value::as_str)
        .unwrap_or("?")
        .to_string();
    let mut outcomes = Vec::new();
    for direct in [false, true] {
        let (mut worst, mut worst_at, mut mass_err, mut count) =
            (0.0_f64, String::new(), 0.0_f64, 0usize);
        for p in pairs.iter().filter(|p| p.direct == direct) {
            let reference = read_f64(&ctx.scratch.join(format!("{}-scipy.f64", p.name)))?;
            let (a, b) = (dist(p.a.clone())?, dist(p.b.clone())?);
            let ours = if direct {
                convolve_direct(&a, &b)
            } else {
                convolve_fft(&a, &b)
            }
            .map_err(|e| format!("{}: {e}", p.name))?;
            let d = peak_relative_diff(ours.masses(), &reference);
            if super::worse(d, worst) {
                worst = d;
                worst_at = p.name.clone();
            }
            mass_err = mass_err.max((ours.total_mass() - 1.0).abs());
            count += 1;
        }
        let label = if direct { "direct" } else { "fft" };
        outcomes.push(Outcome::within(
            &format!("convolution/{label} vs scipy fftconvolve"),
            worst.max(mass_err),
            TOL_PEAK,
            format!(
                "max |diff|/peak {worst:.2e} (worst {worst_at}), max |mass-1| {mass_err:.1e}, {count} sizes 2^{MIN_LOG2}..2^{MAX_LOG2}, scipy {version}"
            ),
            format!("{TOL_PEAK:.0e} of peak"),
        ));
    }
    Ok(outcomes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_f64_round_trips() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("x.f64");
        let v = vec![0.5, -1.25, f64::MIN_POSITIVE, 1e300];
        write_f64(&p, &v).unwrap();
        assert_eq!(read_f64(&p).unwrap(), v);
    }

    #[test]
    fn peak_relative_diff_measures_against_the_peak() {
        assert_eq!(peak_relative_diff(&[1.0, 2.0], &[1.0, 4.0]), 0.5);
        assert!(peak_relative_diff(&[1.0], &[1.0, 2.0]).is_infinite());
    }

    #[test]
    fn random_masses_are_distributions() {
        let mut rng = RngStreams::new(1).stream(&[0]);
        for sparse in [false, true] {
            let m = random_masses(&mut rng, 64, sparse);
            assert!((m.iter().sum::<f64>() - 1.0).abs() < 1e-12);
            assert!(m.iter().all(|&x| x >= 0.0));
        }
    }
}
