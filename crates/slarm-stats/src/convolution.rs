//! Convolution of grid distributions: the distribution of the sum of two independent
//! lattice variables (Birkenheuer 2012, §3.2.3: `PDF_combined = PDF_joint * PDF_new`).
//!
//! * [`convolve_direct`]: the exact `O(n m)` sum `c_k = sum_i a_i b_{k-i}`.
//! * [`convolve_fft`]: real FFTs (`realfft` on `rustfft`) of zero-padded inputs, pointwise
//!   product, inverse real FFT, `O(L log L)` with `L >= n + m - 1` the next 5-smooth even
//!   length. Round-off then leaves tiny negative (and tiny positive) values where the exact
//!   result is 0: values below `2^-45` of the peak are set to 0 and the result is rescaled to
//!   the exact total mass `mass(a) * mass(b)`. The result agrees with the
//!   direct method to `1e-12` of the peak (proptest).
//! * [`convolve`]: picks the cheaper of the two with the cost model of [`prefers_fft`],
//!   whose constants are the crossover measured by `benches/benches/stats.rs`
//!   (docs/performance.md).
//!
//! Both operands must have the same step; the result's origin is the sum of the origins
//! and it has `n + m - 1` bins.
//!
//! ```
//! use slarm_stats::convolution::{convolve, convolve_direct, convolve_fft};
//! use slarm_stats::grid::GridDist;
//!
//! let a = GridDist::new(1.0, 1.0, vec![0.5, 0.5]).unwrap();
//! let b = GridDist::new(0.0, 1.0, vec![0.25, 0.75]).unwrap();
//! let c = convolve(&a, &b).unwrap();
//! assert_eq!(c.origin(), 1.0);
//! assert_eq!(c.masses(), &[0.125, 0.5, 0.375]);
//! let f = convolve_fft(&a, &b).unwrap();
//! for (x, y) in f.masses().iter().zip(convolve_direct(&a, &b).unwrap().masses()) {
//!     assert!((x - y).abs() < 1e-12);
//! }
//! ```

use std::cell::RefCell;

use realfft::num_complex::Complex;
use realfft::RealFftPlanner;

use crate::error::{Result, StatsError};
use crate::grid::{check_same_step, GridDist, Rounding};

/// FFT results below this fraction of the peak are round-off and set to zero.
pub const FFT_NOISE_FLOOR: f64 = 1.0 / 35_184_372_088_832.0; // 2^-45

/// Up to this length of the shorter operand the direct method always wins (measured: a
/// 32-bin operand against 65536 bins convolves faster directly, a 64-bin one by FFT).
pub const DIRECT_MAX_SHORT_LEN: usize = 32;

/// Cost ratio of one FFT "butterfly unit" (`L log2 L` of the padded length) to one
/// multiply-add of the direct method, measured by the `convolution/*` criterion benches on
/// the 2-core reference machine (docs/performance.md): the FFT wins when
/// `n * m > FFT_COST_RATIO * L * log2(L)`.
pub const FFT_COST_RATIO: f64 = 3.0;

/// Which algorithm a convolution uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Method {
    /// The exact `O(n m)` sum.
    Direct,
    /// Real FFT, `O(L log L)`.
    Fft,
}

/// The padded FFT length for a linear convolution of `n` and `m` values: the smallest even
/// 5-smooth number (`2^a 3^b 5^c`, `a >= 1`) that is at least `n + m - 1`.
pub fn fft_len(n: usize, m: usize) -> usize {
    let need = (n + m).saturating_sub(1).max(2);
    let mut best = need.next_power_of_two();
    let mut p5 = 1usize;
    while p5 < best {
        let mut p35 = p5;
        while p35 < best {
            // Smallest power of two times p35 that reaches `need`, at least 2 * p35.
            let mut v = p35 * 2;
            while v < need {
                v *= 2;
            }
            best = best.min(v);
            p35 *= 3;
        }
        p5 *= 5;
    }
    best
}

/// True when the FFT is expected to be faster than the direct sum for operands of `n` and
/// `m` bins (cost model with the measured [`FFT_COST_RATIO`]).
pub fn prefers_fft(n: usize, m: usize) -> bool {
    if n.min(m) <= DIRECT_MAX_SHORT_LEN {
        return false;
    }
    let l = fft_len(n, m) as f64;
    (n as f64) * (m as f64) > FFT_COST_RATIO * l * l.log2()
}

/// The method [`convolve`] uses for operands of `n` and `m` bins.
pub fn method_for(n: usize, m: usize) -> Method {
    if prefers_fft(n, m) {
        Method::Fft
    } else {
        Method::Direct
    }
}

/// Exact linear convolution of two mass vectors (`n + m - 1` values; empty if either is).
pub fn convolve_masses_direct(a: &[f64], b: &[f64]) -> Vec<f64> {
    if a.is_empty() || b.is_empty() {
        return Vec::new();
    }
    // Loop over the shorter operand; the inner axpy over the longer one vectorises.
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    let mut out = vec![0.0; a.len() + b.len() - 1];
    for (i, &s) in short.iter().enumerate() {
        if s == 0.0 {
            continue;
        }
        for (o, &l) in out[i..i + long.len()].iter_mut().zip(long) {
            *o += s * l;
        }
    }
    out
}

/// A reusable FFT convolution engine: the planner's cached plans (one per padded length) and
/// the work buffers, kept between calls so that a run of convolutions of similar sizes
/// allocates and zeroes only its results. [`convolve_masses_fft`] uses one per thread;
/// keep one yourself to convolve on a thread of your own without the thread-local lookup.
///
/// ```
/// use slarm_stats::convolution::FftConvolver;
/// let mut fft = FftConvolver::new();
/// let c = fft.convolve(&[0.5, 0.5], &[0.25, 0.75]).unwrap();
/// assert!((c[1] - 0.5).abs() < 1e-15);
/// ```
pub struct FftConvolver {
    planner: RealFftPlanner<f64>,
    /// Real signal of the padded length (input of the forward, output of the inverse FFT).
    signal: Vec<f64>,
    /// Spectra of the two operands.
    spectrum_a: Vec<Complex<f64>>,
    spectrum_b: Vec<Complex<f64>>,
    scratch: Vec<Complex<f64>>,
}

impl std::fmt::Debug for FftConvolver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FftConvolver")
            .field("buffer_len", &self.signal.len())
            .finish()
    }
}

impl Default for FftConvolver {
    fn default() -> Self {
        Self::new()
    }
}

/// `v` with exactly `len` elements (existing ones kept, new ones `fill`), reusing its memory.
fn sized<T: Copy>(v: &mut Vec<T>, len: usize, fill: T) -> &mut [T] {
    v.resize(len, fill);
    v
}

impl FftConvolver {
    /// An engine with no plan and no buffer yet.
    pub fn new() -> Self {
        Self {
            planner: RealFftPlanner::new(),
            signal: Vec::new(),
            spectrum_a: Vec::new(),
            spectrum_b: Vec::new(),
            scratch: Vec::new(),
        }
    }

    /// Linear convolution of two non-negative mass vectors by real FFT, cleaned as
    /// [`convolve_masses_fft`] describes (same values, bit for bit).
    pub fn convolve(&mut self, a: &[f64], b: &[f64]) -> Result<Vec<f64>> {
        if a.is_empty() || b.is_empty() {
            return Ok(Vec::new());
        }
        let out_len = a.len() + b.len() - 1;
        let len = fft_len(a.len(), b.len());
        let r2c = self.planner.plan_fft_forward(len);
        let c2r = self.planner.plan_fft_inverse(len);
        let fft_err = |e: realfft::FftError| StatsError::Fft(e.to_string());
        let zero = Complex::new(0.0, 0.0);
        let scratch_len = r2c.get_scratch_len().max(c2r.get_scratch_len());
        let scratch = sized(&mut self.scratch, scratch_len, zero);
        let spectrum_len = len / 2 + 1;
        let fa = sized(&mut self.spectrum_a, spectrum_len, zero);
        let fb = sized(&mut self.spectrum_b, spectrum_len, zero);
        let signal = sized(&mut self.signal, len, 0.0);

        // The forward transform uses its input as scratch: the padding is written anew.
        for (x, spectrum) in [(a, &mut *fa), (b, &mut *fb)] {
            signal[..x.len()].copy_from_slice(x);
            signal[x.len()..].fill(0.0);
            r2c.process_with_scratch(signal, spectrum, scratch)
                .map_err(fft_err)?;
        }

        let scale = 1.0 / len as f64;
        for (x, y) in fa.iter_mut().zip(fb.iter()) {
            *x = *x * *y * scale;
        }
        // The DC and Nyquist bins of a real signal's spectrum are real; drop round-off there.
        if let Some(first) = fa.first_mut() {
            first.im = 0.0;
        }
        if let Some(last) = fa.last_mut() {
            last.im = 0.0;
        }
        c2r.process_with_scratch(fa, signal, scratch)
            .map_err(fft_err)?;
        let mut out = signal[..out_len].to_vec();

        let peak = out.iter().copied().fold(0.0f64, f64::max);
        let floor = peak * FFT_NOISE_FLOOR;
        let mut total = 0.0;
        for x in out.iter_mut() {
            if *x < floor {
                *x = 0.0;
            }
            total += *x;
        }
        let want = a.iter().sum::<f64>() * b.iter().sum::<f64>();
        if total > 0.0 {
            let k = want / total;
            out.iter_mut().for_each(|x| *x *= k);
        }
        Ok(out)
    }
}

thread_local! {
    static CONVOLVER: RefCell<FftConvolver> = RefCell::new(FftConvolver::new());
}

/// Linear convolution of two non-negative mass vectors by real FFT, cleaned: values below
/// [`FFT_NOISE_FLOOR`] of the peak (including all negative round-off) are set to 0 and the
/// result is rescaled to the exact total `sum(a) * sum(b)`. Plans and work buffers are kept
/// per thread ([`FftConvolver`]), so repeated calls allocate only their result.
pub fn convolve_masses_fft(a: &[f64], b: &[f64]) -> Result<Vec<f64>> {
    CONVOLVER.with(|c| match c.try_borrow_mut() {
        Ok(mut c) => c.convolve(a, b),
        // Only reachable by re-entry from within a convolution; a fresh engine is correct.
        Err(_) => FftConvolver::new().convolve(a, b),
    })
}

fn assemble(a: &GridDist, b: &GridDist, masses: Vec<f64>) -> Result<GridDist> {
    let origin = a.origin() + b.origin();
    if !origin.is_finite() {
        return Err(StatsError::NonFinite {
            what: "convolution origin",
            value: origin,
        });
    }
    // Products of masses <= 1 stay <= 1 up to rounding; clamp that rounding away.
    let total: f64 = masses.iter().sum();
    if total <= 1.0 && !masses.is_empty() && masses.iter().all(|&m| m >= 0.0) {
        // What `GridDist::defective` would accept without another pass: no mass is negative
        // or NaN, and a total of at most 1 (the same sum) leaves none infinite.
        return Ok(GridDist::from_valid_parts(origin, a.step(), masses));
    }
    let masses = if total > 1.0 {
        masses.into_iter().map(|m| m / total).collect()
    } else {
        masses
    };
    GridDist::defective(origin, a.step(), masses)
}

/// Exact convolution of two grid distributions with the same step.
pub fn convolve_direct(a: &GridDist, b: &GridDist) -> Result<GridDist> {
    check_same_step(a.step(), b.step())?;
    assemble(a, b, convolve_masses_direct(a.masses(), b.masses()))
}

/// FFT convolution of two grid distributions with the same step (cleaned, see module docs).
pub fn convolve_fft(a: &GridDist, b: &GridDist) -> Result<GridDist> {
    check_same_step(a.step(), b.step())?;
    assemble(a, b, convolve_masses_fft(a.masses(), b.masses())?)
}

/// `P(A + B <= t)` for independent `A` and `B` on grids with the same step, without building
/// the convolution: one pass over `A`'s points with a pointer into the prefix sums of `B`'s
/// masses (`O(len(A) + len(B))` instead of the `O(len(A) · len(B))` of [`convolve`] followed by
/// a CDF lookup). `t` is rounded down to the sum grid (within `1e-9` steps, like
/// [`GridDist::cdf`]); masses of defective inputs count as they are. The result is clamped to
/// `[0, 1]` against round-off.
///
/// This is the comprehensive probability that a job starting at `A` and running for `B` ends by
/// its slot end `t` (Birkenheuer 2012, §3.2.3-§3.3.1).
///
/// ```
/// use slarm_stats::convolution::{convolve_direct, prob_sum_at_most};
/// use slarm_stats::GridDist;
/// let start = GridDist::new(0.0, 1.0, vec![0.0, 0.16, 0.20, 0.44, 0.20]).unwrap();
/// let runtime = GridDist::new(1.0, 1.0, vec![0.4, 0.2, 0.2, 0.2]).unwrap();
/// let p = prob_sum_at_most(&start, &runtime, 6.0).unwrap();
/// assert!((p - 0.832).abs() < 1e-12);
/// let end = convolve_direct(&start, &runtime).unwrap();
/// assert!((p - end.cdf(6.0)).abs() < 1e-12);
/// ```
pub fn prob_sum_at_most(a: &GridDist, b: &GridDist, t: f64) -> Result<f64> {
    check_same_step(a.step(), b.step())?;
    if !t.is_finite() {
        return Err(StatsError::NonFinite {
            what: "sum bound",
            value: t,
        });
    }
    // Steps from the sum grid's origin to `t`, rounded down.
    let room0 = Rounding::Down.apply((t - a.origin() - b.origin()) / a.step());
    if room0 < 0.0 {
        return Ok(0.0);
    }
    // Prefix sums of `B` up to the largest room needed (that of `A`'s first point); a point
    // mass `A` needs no table at all.
    let need = (room0.min(b.len() as f64 - 1.0) as usize) + 1;
    if let [pa] = a.masses() {
        let fit: f64 = b.masses()[..need].iter().fold(0.0, |acc, &m| acc + m);
        return Ok((pa * fit).clamp(0.0, 1.0));
    }
    let mut prefix = Vec::with_capacity(need + 1);
    let mut acc = 0.0;
    prefix.push(0.0);
    for &m in &b.masses()[..need] {
        acc += m;
        prefix.push(acc);
    }
    let mut p = 0.0;
    for (i, &pa) in a.masses().iter().enumerate() {
        if pa <= 0.0 {
            continue;
        }
        // Room left for `B` after `A`'s point i, in steps; it shrinks as i grows.
        let room = room0 - i as f64;
        if room < 0.0 {
            break;
        }
        let fits = (room as usize).saturating_add(1).min(need);
        p += pa * prefix[fits];
    }
    Ok(p.clamp(0.0, 1.0))
}

/// Convolution with the automatic choice of [`method_for`].
pub fn convolve(a: &GridDist, b: &GridDist) -> Result<GridDist> {
    match method_for(a.len(), b.len()) {
        Method::Direct => convolve_direct(a, b),
        Method::Fft => convolve_fft(a, b),
    }
}

impl GridDist {
    /// Distribution of the sum with an independent `other` ([`convolve`]).
    pub fn convolve(&self, other: &GridDist) -> Result<GridDist> {
        convolve(self, other)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grid::{max_of_independent, tests::arb_dist};
    use proptest::prelude::*;

    #[test]
    fn comprehensive_toy_example() {
        // Toy example in the setting of Birkenheuer (2012) §3.2.2-§3.2.3: PDF_joint = (0, .16, .20,
        // .44, .20) at t = 0..4 h, runtime PDF (1 h: .4, 2 h: .2, 3 h: .2, 4 h: .2); P(end <= 6 h)
        // = 0.832.
        let a = GridDist::from_cdf(1.0, 1.0, &[0.4, 0.6, 0.8, 1.0]).unwrap();
        let b = GridDist::from_cdf(1.0, 1.0, &[0.4, 0.6, 1.0]).unwrap();
        let joint = max_of_independent(&[&a, &b]).unwrap();
        let runtime = GridDist::new(1.0, 1.0, vec![0.4, 0.2, 0.2, 0.2]).unwrap();
        for end in [
            convolve_direct(&joint, &runtime).unwrap(),
            convolve_fft(&joint, &runtime).unwrap(),
            convolve(&joint, &runtime).unwrap(),
        ] {
            assert!((end.cdf(6.0) - 0.832).abs() < 1e-12, "{}", end.cdf(6.0));
        }
    }

    #[test]
    fn fft_len_is_smooth_and_sufficient() {
        assert_eq!(fft_len(1, 1), 2);
        assert_eq!(fft_len(3, 3), 6);
        assert_eq!(fft_len(1 << 20, 1 << 20), 1 << 21);
        assert_eq!(fft_len(700, 700), 1440);
        for n in 1..300 {
            let l = fft_len(n, 17);
            assert!(l >= n + 16 && l.is_multiple_of(2));
            let mut r = l;
            for p in [2, 3, 5] {
                while r.is_multiple_of(p) {
                    r /= p;
                }
            }
            assert_eq!(r, 1);
        }
    }

    #[test]
    fn large_fft_matches_direct_and_clamps_noise() {
        // Sparse inputs: the exact result is 0 at most points; no negative or noise bins remain.
        let mut a = vec![0.0; 3000];
        let mut b = vec![0.0; 2000];
        a[0] = 0.5;
        a[2999] = 0.5;
        b[10] = 0.25;
        b[1999] = 0.75;
        let fa = GridDist::new(0.0, 1.0, a).unwrap();
        let fb = GridDist::new(0.0, 1.0, b).unwrap();
        assert_eq!(method_for(3000, 2000), Method::Fft);
        let f = convolve(&fa, &fb).unwrap();
        let d = convolve_direct(&fa, &fb).unwrap();
        assert_eq!(f.len(), 4999);
        assert_eq!(f.masses().iter().filter(|&&m| m != 0.0).count(), 4);
        for (x, y) in f.masses().iter().zip(d.masses()) {
            assert!((x - y).abs() < 1e-12 * 0.375);
        }
        assert!((f.total_mass() - 1.0).abs() < 1e-14);
    }

    #[test]
    fn mismatched_steps_are_typed_errors() {
        let a = GridDist::new(0.0, 1.0, vec![1.0]).unwrap();
        let b = GridDist::new(0.0, 2.0, vec![1.0]).unwrap();
        assert!(matches!(
            convolve(&a, &b),
            Err(StatsError::GridMismatch { .. })
        ));
        assert!(convolve_fft(&a, &b).is_err());
        assert!(convolve_masses_direct(&[], &[1.0]).is_empty());
        assert!(convolve_masses_fft(&[1.0], &[]).unwrap().is_empty());
    }

    #[test]
    fn crossover_policy_is_monotone_in_size() {
        assert_eq!(method_for(10, 100_000), Method::Direct);
        assert_eq!(method_for(1 << 16, 1 << 16), Method::Fft);
        assert!(!prefers_fft(DIRECT_MAX_SHORT_LEN, 1 << 20));
        assert!(prefers_fft(1 << 12, 1 << 12));
    }

    /// A reused engine (buffers of earlier, larger and smaller, convolutions) gives exactly
    /// the values of a fresh one: nothing of an earlier call leaks into a later one.
    #[test]
    fn reused_buffers_give_the_values_of_fresh_ones() {
        let mut reused = FftConvolver::new();
        for &(n, m) in &[
            (700usize, 900usize),
            (40, 50),
            (3000, 10),
            (65, 65),
            (700, 900),
        ] {
            let a: Vec<f64> = (0..n)
                .map(|i| ((i * 7 + 3) % 11) as f64 / (11.0 * n as f64))
                .collect();
            let b: Vec<f64> = (0..m)
                .map(|i| ((i * 5 + 1) % 13) as f64 / (13.0 * m as f64))
                .collect();
            let fresh = FftConvolver::new().convolve(&a, &b).unwrap();
            assert_eq!(reused.convolve(&a, &b).unwrap(), fresh, "{n} x {m}");
            assert_eq!(convolve_masses_fft(&a, &b).unwrap(), fresh, "{n} x {m}");
        }
    }

    fn defective(d: &GridDist, scale: f64) -> GridDist {
        GridDist::defective(
            d.origin(),
            d.step(),
            d.masses().iter().map(|m| m * scale).collect(),
        )
        .unwrap()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(1000))]

        #[test]
        fn convolution_preserves_mass_and_adds_means(
            a in arb_dist(80), b in arb_dist(80), sa in 0.2f64..=1.0, sb in 0.2f64..=1.0
        ) {
            let (da, db) = (defective(&a, sa), defective(&b, sb));
            let c = convolve(&da, &db).unwrap();
            prop_assert!((c.total_mass() - sa * sb).abs() < 1e-12);
            let mean = a.mean().unwrap() + b.mean().unwrap();
            prop_assert!((c.mean().unwrap() - mean).abs() < 1e-9 * (1.0 + mean.abs()));
            let var = a.variance().unwrap() + b.variance().unwrap();
            prop_assert!((c.variance().unwrap() - var).abs() < 1e-8 * (1.0 + var));
            prop_assert_eq!(c.origin(), a.origin() + b.origin());
        }

        #[test]
        fn fft_equals_direct(a in arb_dist(300), b in arb_dist(300)) {
            let d = convolve_direct(&a, &b).unwrap();
            let f = convolve_fft(&a, &b).unwrap();
            prop_assert_eq!(d.len(), f.len());
            let peak = d.masses().iter().copied().fold(0.0, f64::max);
            for (x, y) in d.masses().iter().zip(f.masses()) {
                prop_assert!((x - y).abs() <= 1e-12 * peak, "{} vs {}", x, y);
                prop_assert!(*y >= 0.0);
            }
            prop_assert!((f.total_mass() - d.total_mass()).abs() < 1e-13);
        }
    }
}
