//! Discrete distributions on a uniform time grid (Birkenheuer 2012, §3.2.2-§3.2.3).
//!
//! A [`GridDist`] is a lattice distribution: mass `m_i` sits on the point
//! `x_i = origin + i * step`, `i = 0..len`. It is the representation of runtime, start-time
//! and end-time distributions of the overbooking papers (Birkenheuer 2012, §3.2.2: "the
//! basic PDFs of the jobs are firstly transformed into a PDF format that is based
//! on fixed time step intervals").
//!
//! * Construction is validated: finite origin, finite positive step, at least one bin, every
//!   mass finite and non-negative, and total mass within [`MASS_TOLERANCE`] of 1
//!   ([`GridDist::new`]) or at most 1 for an explicitly **defective** distribution
//!   ([`GridDist::defective`]) whose missing mass lies beyond the grid (at `+inf`, e.g. a job
//!   that has not ended).
//! * `cdf(x) = sum_{x_i <= x} m_i`, right-continuous, reaching the total mass at the last
//!   point; `survival(x) = 1 - cdf(x)`.
//! * Mean and variance are those of the normalised distribution (conditional on ending on the
//!   grid), so they are defined for defective distributions too.
//! * **Quantile convention**: `quantile(p)` is the smallest grid point `x` with
//!   `F(x) >= p`; `p = 0` gives the smallest point carrying mass and `p = 1` (or any `p`
//!   equal to the total mass within tolerance) gives the largest point carrying mass
//!   (`p100 = max`).
//! * [`GridDist::regrid`] / [`GridDist::rebin`] move every point's mass to a point of another
//!   grid with an explicit [`Rounding`]; [`GridDist::truncate_at`] kills at a time
//!   (`min(X, k)`); [`max_of_independent`] multiplies CDFs (joint start of a job after its
//!   predecessors, Birkenheuer 2012 §3.2.2); [`GridDist::given_exceeds`] conditions on not
//!   having ended yet (an option the thesis does not use).
//!
//! Positions are compared with a tolerance of `1e-9` steps, so `0.3 / 0.1` lands on bin 3.
//!
//! ```
//! use slarm_stats::grid::{max_of_independent, GridDist};
//!
//! // Predecessor end-time CDFs at t = 1..4 h on a 1 h grid (toy example, Birkenheuer 2012 §3.2.2).
//! let a = GridDist::from_cdf(1.0, 1.0, &[0.4, 0.6, 0.8, 1.0]).unwrap();
//! let b = GridDist::from_cdf(1.0, 1.0, &[0.4, 0.6, 1.0]).unwrap();
//! let joint = max_of_independent(&[&a, &b]).unwrap();
//! assert!((joint.cdf(2.0) - 0.36).abs() < 1e-12);
//! assert!((joint.cdf(3.0) - 0.8).abs() < 1e-12);
//! assert_eq!(joint.quantile(1.0).unwrap(), 4.0);
//! ```

use crate::check;
use crate::error::{Result, StatsError};

/// How far the total mass of a distribution may deviate from 1 and still count as proper.
pub const MASS_TOLERANCE: f64 = 1e-9;

/// Most bins an operation may create (2^26, 512 MiB of masses): [`GridDist::regrid`] onto a
/// far finer step or [`GridDist::truncate_at`] far beyond a defective grid would otherwise
/// overflow the bin index or try to allocate that many bins; they return an error instead.
pub const MAX_BINS: usize = 1 << 26;

/// The bin index `k` (a whole number of steps, `>= 0`) as a `usize`, or an error when the
/// grid would need more than [`MAX_BINS`] bins to reach it.
fn bin_index(name: &'static str, value: f64, k: f64) -> Result<usize> {
    if k < MAX_BINS as f64 {
        Ok(k as usize)
    } else {
        Err(StatsError::InvalidParameter {
            name,
            value,
            reason: "would need more than MAX_BINS (2^26) grid bins",
        })
    }
}

/// Relative tolerance (in steps) for deciding that a position lies on a grid point.
const POSITION_EPS: f64 = 1e-9;

/// How a position between two grid points is mapped to a grid point.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Rounding {
    /// To the next grid point at or above (conservative for end times, Birkenheuer 2012 §3.2.2).
    #[default]
    Up,
    /// To the grid point at or below.
    Down,
    /// To the nearest grid point (halves away from zero).
    Nearest,
}

impl Rounding {
    /// Rounds a position expressed in steps to an integer step index; positions within
    /// `1e-9` steps of an integer count as that integer.
    pub fn apply(self, steps: f64) -> f64 {
        match self {
            Rounding::Up => (steps - POSITION_EPS).ceil(),
            Rounding::Down => (steps + POSITION_EPS).floor(),
            Rounding::Nearest => steps.round(),
        }
    }
}

/// Unvalidated wire form of [`GridDist`]; deserialisation goes through [`GridDist::defective`].
#[cfg(feature = "serde")]
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
struct GridDistRaw {
    origin: f64,
    step: f64,
    masses: Vec<f64>,
}

#[cfg(feature = "serde")]
impl TryFrom<GridDistRaw> for GridDist {
    type Error = StatsError;
    fn try_from(raw: GridDistRaw) -> Result<Self> {
        GridDist::defective(raw.origin, raw.step, raw.masses)
    }
}

#[cfg(feature = "serde")]
impl From<GridDist> for GridDistRaw {
    fn from(g: GridDist) -> Self {
        GridDistRaw {
            origin: g.origin,
            step: g.step,
            masses: g.masses,
        }
    }
}

/// A probability distribution on the points `origin + i * step` (see the module docs).
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(
    feature = "serde",
    serde(try_from = "GridDistRaw", into = "GridDistRaw")
)]
pub struct GridDist {
    origin: f64,
    step: f64,
    masses: Vec<f64>,
}

impl GridDist {
    /// A proper distribution: total mass must be 1 within [`MASS_TOLERANCE`].
    ///
    /// ```
    /// use slarm_stats::grid::GridDist;
    /// let d = GridDist::new(0.0, 60.0, vec![0.25, 0.5, 0.25]).unwrap();
    /// assert_eq!(d.mean().unwrap(), 60.0);
    /// assert!(GridDist::new(0.0, 0.0, vec![1.0]).is_err()); // zero step
    /// assert!(GridDist::new(0.0, 1.0, vec![0.5, f64::NAN]).is_err());
    /// ```
    pub fn new(origin: f64, step: f64, masses: Vec<f64>) -> Result<Self> {
        let d = Self::defective(origin, step, masses)?;
        let total = d.total_mass();
        if (total - 1.0).abs() > MASS_TOLERANCE {
            return Err(StatsError::Mass {
                total,
                reason: "a proper distribution needs mass 1; use GridDist::defective otherwise",
            });
        }
        Ok(d)
    }

    /// A possibly defective distribution: total mass in `[0, 1 + MASS_TOLERANCE]`, the
    /// remainder lying beyond the grid.
    pub fn defective(origin: f64, step: f64, masses: Vec<f64>) -> Result<Self> {
        check::finite("grid origin", origin)?;
        check::finite("grid step", step)?;
        if step <= 0.0 {
            return Err(StatsError::InvalidParameter {
                name: "grid step",
                value: step,
                reason: "must be positive",
            });
        }
        if masses.is_empty() {
            return Err(StatsError::Empty { what: "grid" });
        }
        for &m in &masses {
            check::finite("probability mass", m)?;
            if m < 0.0 {
                return Err(StatsError::Negative {
                    what: "probability mass",
                    value: m,
                });
            }
        }
        let total: f64 = masses.iter().sum();
        if total > 1.0 + MASS_TOLERANCE {
            return Err(StatsError::Mass {
                total,
                reason: "exceeds 1",
            });
        }
        Ok(Self {
            origin,
            step,
            masses,
        })
    }

    /// The distribution putting all mass on `x`, on a grid of the given step starting at `x`.
    pub fn dirac(x: f64, step: f64) -> Result<Self> {
        Self::new(x, step, vec![1.0])
    }

    /// Builds a (possibly defective) distribution from CDF values at the grid points
    /// `origin + i * step`. The values must be probabilities and non-decreasing; decreases
    /// of at most [`MASS_TOLERANCE`] (rounding noise) are treated as flat.
    pub fn from_cdf(origin: f64, step: f64, cdf: &[f64]) -> Result<Self> {
        let mut masses = Vec::with_capacity(cdf.len());
        let mut prev = 0.0f64;
        for &c in cdf {
            let c = check::probability("CDF value", c)?;
            let m = c - prev;
            if m < -MASS_TOLERANCE {
                return Err(StatsError::Negative {
                    what: "CDF increment (the CDF must be non-decreasing)",
                    value: m,
                });
            }
            masses.push(m.max(0.0));
            prev = prev.max(c);
        }
        Self::defective(origin, step, masses)
    }

    /// Internal constructor for results of operations on already validated inputs.
    pub(crate) fn from_valid_parts(origin: f64, step: f64, masses: Vec<f64>) -> Self {
        debug_assert!(!masses.is_empty());
        Self {
            origin,
            step,
            masses,
        }
    }

    /// The first grid point.
    pub fn origin(&self) -> f64 {
        self.origin
    }

    /// The grid spacing.
    pub fn step(&self) -> f64 {
        self.step
    }

    /// The masses, bin `i` at `origin + i * step`.
    pub fn masses(&self) -> &[f64] {
        &self.masses
    }

    /// Number of bins.
    pub fn len(&self) -> usize {
        self.masses.len()
    }

    /// Always false: a grid has at least one bin.
    pub fn is_empty(&self) -> bool {
        self.masses.is_empty()
    }

    /// The position of bin `i`.
    pub fn point(&self, i: usize) -> f64 {
        self.origin + i as f64 * self.step
    }

    /// The last grid point.
    pub fn end(&self) -> f64 {
        self.point(self.masses.len() - 1)
    }

    /// Total probability mass on the grid.
    pub fn total_mass(&self) -> f64 {
        self.masses.iter().sum()
    }

    /// True when the total mass is below 1 by more than [`MASS_TOLERANCE`].
    pub fn is_defective(&self) -> bool {
        self.total_mass() < 1.0 - MASS_TOLERANCE
    }

    /// Position `x` in steps from the origin.
    fn steps_from_origin(&self, x: f64) -> f64 {
        (x - self.origin) / self.step
    }

    /// Index of the last grid point `<= x` (tolerant), or `None` when `x` lies before the grid.
    /// Indices beyond the grid are clamped to the last bin.
    fn floor_index(&self, x: f64) -> Option<usize> {
        let k = Rounding::Down.apply(self.steps_from_origin(x));
        if k.is_nan() || k < 0.0 {
            None
        } else {
            Some((k.min((self.masses.len() - 1) as f64)) as usize)
        }
    }

    /// The mass at `x` when `x` is (within `1e-9` steps) a grid point, else 0.
    pub fn pmf(&self, x: f64) -> f64 {
        let r = self.steps_from_origin(x);
        let k = r.round();
        if (r - k).abs() <= POSITION_EPS && k >= 0.0 && (k as usize) < self.masses.len() {
            self.masses[k as usize]
        } else {
            0.0
        }
    }

    /// `F(x) = P(X <= x)`.
    pub fn cdf(&self, x: f64) -> f64 {
        match self.floor_index(x) {
            None => 0.0,
            Some(k) => self.masses[..=k].iter().sum(),
        }
    }

    /// `P(X > x) = 1 - F(x)` (the missing mass of a defective distribution counts as `> x`).
    pub fn survival(&self, x: f64) -> f64 {
        (1.0 - self.cdf(x)).max(0.0)
    }

    /// The CDF at every grid point (running sums of the masses).
    pub fn cdf_values(&self) -> Vec<f64> {
        let mut acc = 0.0;
        self.masses
            .iter()
            .map(|m| {
                acc += m;
                acc
            })
            .collect()
    }

    fn require_mass(&self) -> Result<f64> {
        let total = self.total_mass();
        if total <= 0.0 {
            return Err(StatsError::Mass {
                total,
                reason: "the distribution carries no mass on the grid",
            });
        }
        Ok(total)
    }

    /// Mean of the normalised distribution.
    pub fn mean(&self) -> Result<f64> {
        let total = self.require_mass()?;
        let s: f64 = self
            .masses
            .iter()
            .enumerate()
            .map(|(i, m)| i as f64 * m)
            .sum();
        Ok(self.origin + self.step * s / total)
    }

    /// Variance of the normalised distribution.
    pub fn variance(&self) -> Result<f64> {
        let total = self.require_mass()?;
        let mu = (self.mean()? - self.origin) / self.step;
        let s: f64 = self
            .masses
            .iter()
            .enumerate()
            .map(|(i, m)| (i as f64 - mu).powi(2) * m)
            .sum();
        Ok(self.step * self.step * s / total)
    }

    /// The smallest grid point `x` with `F(x) >= p` (module docs: `p = 0` is the smallest
    /// point with mass, `p = 1` the largest). Errors when `p` exceeds the total mass by more
    /// than [`MASS_TOLERANCE`] or the distribution has no mass.
    pub fn quantile(&self, p: f64) -> Result<f64> {
        check::probability("p", p)?;
        let total = self.require_mass()?;
        if p > total + MASS_TOLERANCE {
            return Err(StatsError::InvalidParameter {
                name: "p",
                value: p,
                reason: "exceeds the total mass of the (defective) distribution",
            });
        }
        let first = self.masses.iter().position(|&m| m > 0.0).unwrap_or(0);
        let last = self.masses.iter().rposition(|&m| m > 0.0).unwrap_or(0);
        if p >= total - MASS_TOLERANCE {
            return Ok(self.point(last));
        }
        let mut acc = 0.0;
        for (i, &m) in self.masses.iter().enumerate().skip(first) {
            acc += m;
            if acc >= p {
                return Ok(self.point(i));
            }
        }
        Ok(self.point(last))
    }

    /// The same distribution moved by `dt` (the distribution of `X + dt`).
    pub fn shift(&self, dt: f64) -> Result<Self> {
        let origin = check::finite("shifted origin", self.origin + check::finite("shift", dt)?)?;
        Ok(Self::from_valid_parts(
            origin,
            self.step,
            self.masses.clone(),
        ))
    }

    /// The same distribution moved by `k` whole steps.
    pub fn shift_steps(&self, k: i64) -> Result<Self> {
        self.shift(k as f64 * self.step)
    }

    /// Moves every point's mass to a point of the grid `(origin, step)` using `rounding`.
    /// Total mass is preserved. Errors when mass would land before `origin`.
    pub fn regrid(&self, origin: f64, step: f64, rounding: Rounding) -> Result<Self> {
        // Validate the target grid through the constructor's checks.
        Self::defective(origin, step, vec![0.0])?;
        let mut indexed = Vec::with_capacity(self.masses.len());
        let mut max_k = 0usize;
        for (i, &m) in self.masses.iter().enumerate() {
            if m == 0.0 {
                continue;
            }
            let k = rounding.apply((self.point(i) - origin) / step);
            if k < 0.0 {
                return Err(StatsError::InvalidParameter {
                    name: "target grid origin",
                    value: origin,
                    reason: "lies after points carrying mass",
                });
            }
            let k = bin_index("target grid step", step, k)?;
            max_k = max_k.max(k);
            indexed.push((k, m));
        }
        let mut masses = vec![0.0; max_k + 1];
        for (k, m) in indexed {
            masses[k] += m;
        }
        Ok(Self::from_valid_parts(origin, step, masses))
    }

    /// [`GridDist::regrid`] onto a grid with the same origin and a new step.
    pub fn rebin(&self, step: f64, rounding: Rounding) -> Result<Self> {
        self.regrid(self.origin, step, rounding)
    }

    /// The distribution of `min(X, kill_time)`: a job killed at `kill_time` ends there.
    /// Mass beyond the kill time moves to the first grid point `>= kill_time` (end times are
    /// rounded up to the grid, Birkenheuer 2012 §3.2.2); a defective distribution's missing mass is
    /// killed too, so the result is proper when the input carried any missing mass.
    pub fn truncate_at(&self, kill_time: f64) -> Result<Self> {
        check::finite("kill time", kill_time)?;
        let k = Rounding::Up.apply(self.steps_from_origin(kill_time));
        let missing = (1.0 - self.total_mass()).max(0.0);
        if k < 0.0 {
            let origin = check::finite("kill time grid point", self.origin + k * self.step)?;
            return Ok(Self::from_valid_parts(origin, self.step, vec![1.0]));
        }
        let mut masses: Vec<f64> = self.masses.clone();
        if k + 1.0 < masses.len() as f64 {
            let k = k as usize;
            let beyond: f64 = masses[k + 1..].iter().sum();
            masses.truncate(k + 1);
            masses[k] += beyond;
        } else if missing > 0.0 {
            let k = bin_index("kill time", kill_time, k)?;
            masses.resize(k + 1, 0.0);
        } else {
            // Nothing ends after the kill time: the distribution is unchanged.
            return Ok(self.clone());
        }
        let last = masses.len() - 1;
        masses[last] += missing;
        Ok(Self::from_valid_parts(self.origin, self.step, masses))
    }

    /// The conditional distribution given `X > now`:
    /// `P(X <= t | X > now) = (F(t) - F(now)) / (1 - F(now))`: a running predecessor's end
    /// conditioned on its elapsed time (an option; Birkenheuer 2012 §3.2.2 does not condition).
    /// Errors when `P(X > now)` is zero.
    pub fn given_exceeds(&self, now: f64) -> Result<Self> {
        check::finite("conditioning time", now)?;
        let f_now = self.cdf(now);
        let tail = 1.0 - f_now;
        if tail <= MASS_TOLERANCE {
            return Err(StatsError::Mass {
                total: tail,
                reason: "conditioning on an event of probability zero",
            });
        }
        let start = self.floor_index(now).map_or(0, |k| k + 1);
        if start >= self.masses.len() {
            // All remaining mass lies beyond the grid.
            return Ok(Self::from_valid_parts(self.end(), self.step, vec![0.0]));
        }
        let masses = self.masses[start..].iter().map(|m| m / tail).collect();
        Ok(Self::from_valid_parts(self.point(start), self.step, masses))
    }

    /// Drops leading and trailing zero bins (keeps one bin if all are zero).
    pub fn trimmed(&self) -> Self {
        let first = self.masses.iter().position(|&m| m > 0.0);
        let last = self.masses.iter().rposition(|&m| m > 0.0);
        match (first, last) {
            (Some(f), Some(l)) => {
                Self::from_valid_parts(self.point(f), self.step, self.masses[f..=l].to_vec())
            }
            _ => Self::from_valid_parts(self.origin, self.step, vec![0.0]),
        }
    }
}

/// Checks that two steps are equal within a relative `1e-9`.
pub(crate) fn check_same_step(a: f64, b: f64) -> Result<()> {
    if (a - b).abs() <= 1e-9 * a.abs().max(b.abs()) {
        Ok(())
    } else {
        Err(StatsError::GridMismatch {
            reason: "different steps",
        })
    }
}

/// The distribution of `max(X_1, ..., X_k)` of independent grid variables:
/// `F_max(t) = prod_i F_i(t)` (Birkenheuer 2012, §3.2.2: joint start after all predecessors).
///
/// All inputs must share the step and have origins an integer number of steps apart. The
/// result lives on `[max origin, max end]`; its total mass is the product of the inputs'.
pub fn max_of_independent(dists: &[&GridDist]) -> Result<GridDist> {
    let span = MaxSpan::of(dists)?;
    let (first, offsets, lo, hi) = (span.first, &span.offsets, span.lo, span.hi);
    let step = first.step;
    // Each CDF as a running sum from `lo` on (t >= lo >= o, so the start index is
    // non-negative; beyond its end a CDF stays at the total mass): the values of
    // `cdf_values`, without building them.
    let mut cdfs: Vec<RunningCdf<'_>> = dists
        .iter()
        .zip(offsets)
        .map(|(d, &o)| RunningCdf::at(&d.masses, (lo - o) as usize))
        .collect();
    let mut masses = Vec::with_capacity((hi - lo + 1) as usize);
    let mut prev = 0.0f64;
    for t in lo..=hi {
        if t > lo {
            cdfs.iter_mut().for_each(RunningCdf::advance);
        }
        let mut f = 1.0;
        for c in &cdfs {
            f *= c.value;
        }
        masses.push((f - prev).max(0.0));
        prev = prev.max(f);
    }
    Ok(GridDist::from_valid_parts(span.origin(), step, masses))
}

/// A distribution's CDF as a running sum of its masses, at one grid point at a time.
pub(crate) struct RunningCdf<'a> {
    masses: &'a [f64],
    /// Index of the next mass to add.
    next: usize,
    /// The CDF at the current point (the total mass beyond the last one).
    pub(crate) value: f64,
}

impl<'a> RunningCdf<'a> {
    /// The CDF at point `index` of `masses` (clamped to the last point): the masses up to it
    /// added in order, as [`GridDist::cdf_values`] adds them.
    pub(crate) fn at(masses: &'a [f64], index: usize) -> Self {
        let upto = index.saturating_add(1).min(masses.len());
        let mut value = 0.0;
        for m in &masses[..upto] {
            value += m;
        }
        Self {
            masses,
            next: upto,
            value,
        }
    }

    /// Moves to the next grid point.
    pub(crate) fn advance(&mut self) {
        if let Some(m) = self.masses.get(self.next) {
            self.value += m;
            self.next += 1;
        }
    }
}

/// Where [`max_of_independent`] of some distributions lives: each one's origin in steps from
/// the first one's, and the first (`lo`) and last (`hi`) of those step offsets of the result.
pub(crate) struct MaxSpan<'a> {
    /// The first distribution (its origin is offset 0, its step the result's).
    pub(crate) first: &'a GridDist,
    /// Each distribution's origin in steps from the first one's.
    pub(crate) offsets: Vec<i64>,
    /// The latest origin: the result's first point.
    pub(crate) lo: i64,
    /// The latest last point: the result's last point.
    pub(crate) hi: i64,
}

impl<'a> MaxSpan<'a> {
    /// The span of `dists`: an error for an empty list, different steps or origins that are
    /// not an integer number of steps (at most 2^53) apart.
    pub(crate) fn of(dists: &[&'a GridDist]) -> Result<Self> {
        let first = *dists.first().ok_or(StatsError::Empty {
            what: "list of distributions",
        })?;
        let step = first.step;
        let mut offsets = Vec::with_capacity(dists.len());
        for d in dists {
            check_same_step(step, d.step)?;
            let r = (d.origin - first.origin) / step;
            let k = r.round();
            if (r - k).abs() > 1e-6 {
                return Err(StatsError::GridMismatch {
                    reason: "origins are not an integer number of steps apart",
                });
            }
            // Beyond 2^53 steps the offset is not exact (and saturated `i64` arithmetic below).
            let k = crate::num::exact_i64(k).ok_or(StatsError::GridMismatch {
                reason: "origins more than 2^53 steps apart",
            })?;
            offsets.push(k);
        }
        let lo = offsets.iter().copied().max().unwrap_or(0);
        let hi = dists
            .iter()
            .zip(&offsets)
            .map(|(d, &o)| o + d.len() as i64 - 1)
            .max()
            .unwrap_or(0);
        Ok(Self {
            first,
            offsets,
            lo,
            hi,
        })
    }

    /// The result's origin, `first origin + lo · step`.
    pub(crate) fn origin(&self) -> f64 {
        self.first.origin + self.lo as f64 * self.first.step
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use proptest::prelude::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    /// Origins 1e300 steps apart: the offset saturated at `i64::MAX`, then `offset + len`
    /// overflowed (a panic, or a wrapped allocation size without overflow checks).
    #[test]
    fn max_of_far_apart_origins_is_an_error() {
        let a = GridDist::dirac(0.0, 1.0).unwrap();
        let far = GridDist::new(1e300, 1.0, vec![0.5, 0.5]).unwrap();
        for pair in [[&a, &far], [&far, &a]] {
            assert!(matches!(
                max_of_independent(&pair),
                Err(StatsError::GridMismatch { .. })
            ));
        }
        // 2^53 steps apart is still exact.
        let edge = GridDist::dirac(2f64.powi(53), 1.0).unwrap();
        let m = max_of_independent(&[&a, &edge]).unwrap();
        assert_eq!(m.quantile(0.5).unwrap(), 2f64.powi(53));
    }

    #[test]
    fn toy_example_joint_start_cdf() {
        // Toy example (Birkenheuer 2012 §3.2.2): A = (0.4, 0.6, 0.8, 1) at t = 1..4, B (x = 3 h,
        // quarters rounded up) = (0.4, 0.6, 1) at t = 1..3; CDF_joint = (0, .16, .36, .8, 1) at t =
        // 0..4
        // and PDF_joint = (0, .16, .20, .44, .20).
        let a = GridDist::from_cdf(1.0, 1.0, &[0.4, 0.6, 0.8, 1.0]).unwrap();
        let b = GridDist::from_cdf(1.0, 1.0, &[0.4, 0.6, 1.0]).unwrap();
        let j = max_of_independent(&[&a, &b]).unwrap();
        let want_cdf = [0.0, 0.16, 0.36, 0.8, 1.0];
        for (t, w) in want_cdf.iter().enumerate() {
            assert!(close(j.cdf(t as f64), *w, 1e-12), "t {t}");
        }
        let want_pdf = [0.0, 0.16, 0.20, 0.44, 0.20];
        for (t, w) in want_pdf.iter().enumerate() {
            assert!(close(j.pmf(t as f64), *w, 1e-12), "t {t}");
        }
    }

    #[test]
    fn bad_input_is_typed() {
        assert!(matches!(
            GridDist::new(0.0, 0.0, vec![1.0]),
            Err(StatsError::InvalidParameter { .. })
        ));
        assert!(matches!(
            GridDist::new(0.0, -1.0, vec![1.0]),
            Err(StatsError::InvalidParameter { .. })
        ));
        assert!(matches!(
            GridDist::new(0.0, f64::INFINITY, vec![1.0]),
            Err(StatsError::NonFinite { .. })
        ));
        assert!(matches!(
            GridDist::new(f64::NAN, 1.0, vec![1.0]),
            Err(StatsError::NonFinite { .. })
        ));
        assert!(matches!(
            GridDist::new(0.0, 1.0, vec![]),
            Err(StatsError::Empty { .. })
        ));
        assert!(matches!(
            GridDist::new(0.0, 1.0, vec![0.5, f64::NAN, 0.5]),
            Err(StatsError::NonFinite { .. })
        ));
        assert!(matches!(
            GridDist::new(0.0, 1.0, vec![1.5, -0.5]),
            Err(StatsError::Negative { .. })
        ));
        assert!(matches!(
            GridDist::new(0.0, 1.0, vec![0.5, f64::INFINITY]),
            Err(StatsError::NonFinite { .. })
        ));
        assert!(matches!(
            GridDist::new(0.0, 1.0, vec![0.5, 0.4]),
            Err(StatsError::Mass { .. })
        ));
        assert!(matches!(
            GridDist::defective(0.0, 1.0, vec![0.7, 0.4]),
            Err(StatsError::Mass { .. })
        ));
        assert!(GridDist::defective(0.0, 1.0, vec![0.5, 0.4]).is_ok());
        assert!(GridDist::from_cdf(0.0, 1.0, &[0.5, 0.4]).is_err());
        assert!(GridDist::from_cdf(0.0, 1.0, &[0.5, 1.2]).is_err());
        let d = GridDist::defective(0.0, 1.0, vec![0.0, 0.0]).unwrap();
        assert!(matches!(d.mean(), Err(StatsError::Mass { .. })));
        assert!(d.quantile(0.5).is_err());
        let e = GridDist::defective(0.0, 1.0, vec![0.2, 0.3]).unwrap();
        assert!(e.quantile(0.9).is_err());
        assert!(e.shift(f64::NAN).is_err());
        assert!(e.truncate_at(f64::INFINITY).is_err());
        assert!(e.rebin(0.0, Rounding::Up).is_err());
        assert!(max_of_independent(&[]).is_err());
        let f = GridDist::new(0.5, 1.0, vec![1.0]).unwrap();
        let g = GridDist::new(0.0, 1.0, vec![1.0]).unwrap();
        assert!(matches!(
            max_of_independent(&[&f, &g]),
            Err(StatsError::GridMismatch { .. })
        ));
        let h = GridDist::new(0.0, 2.0, vec![1.0]).unwrap();
        assert!(max_of_independent(&[&g, &h]).is_err());
        // Deserialisation validates too.
        #[cfg(feature = "serde")]
        {
            let bad = r#"{"origin":0.0,"step":0.0,"masses":[1.0]}"#;
            assert!(serde_json::from_str::<GridDist>(bad).is_err());
        }
    }

    #[test]
    fn moments_quantiles_and_transforms() {
        let d = GridDist::new(10.0, 2.0, vec![0.25, 0.0, 0.5, 0.25]).unwrap();
        assert!(close(d.mean().unwrap(), 10.0 + 2.0 * 1.75, 1e-12));
        // E[i^2] = 0 + 2 + 2.25 = 4.25 + ... : i in {0,2,3}: 0.5*4 + 0.25*9 = 4.25; var = 4.25 -
        // 1.75^2.
        assert!(close(
            d.variance().unwrap(),
            4.0 * (4.25 - 1.75 * 1.75),
            1e-12
        ));
        assert_eq!(d.quantile(0.0).unwrap(), 10.0);
        assert_eq!(d.quantile(0.25).unwrap(), 10.0);
        assert_eq!(d.quantile(0.26).unwrap(), 14.0);
        assert_eq!(d.quantile(1.0).unwrap(), 16.0);
        assert_eq!(d.cdf(9.9), 0.0);
        assert_eq!(d.cdf(13.9), 0.25);
        assert_eq!(d.cdf(100.0), 1.0);
        assert_eq!(d.survival(14.0), 0.25);
        assert_eq!(d.pmf(14.0), 0.5);
        assert_eq!(d.pmf(13.0), 0.0);
        let t = d.truncate_at(13.0).unwrap();
        assert_eq!(t.masses(), &[0.25, 0.0, 0.75]);
        let t = d.truncate_at(100.0).unwrap();
        assert_eq!(t.masses(), d.masses());
        let t = d.truncate_at(0.0).unwrap();
        assert_eq!((t.origin(), t.masses()), (0.0, &[1.0][..]));
        let r = d.rebin(4.0, Rounding::Up).unwrap();
        assert_eq!(r.masses(), &[0.25, 0.5, 0.25]);
        let r = d.rebin(4.0, Rounding::Down).unwrap();
        assert_eq!(r.masses(), &[0.25, 0.75]);
        let c = d.given_exceeds(12.0).unwrap();
        assert_eq!(c.origin(), 14.0);
        assert!(close(c.total_mass(), 1.0, 1e-12));
        assert!(close(c.masses()[0], 2.0 / 3.0, 1e-12));
        let s = d.shift(-10.0).unwrap();
        assert_eq!(s.origin(), 0.0);
        let tr = GridDist::new(0.0, 1.0, vec![0.0, 0.5, 0.5, 0.0])
            .unwrap()
            .trimmed();
        assert_eq!((tr.origin(), tr.len()), (1.0, 2));
        // A defective distribution: missing mass is killed at the kill time.
        let e = GridDist::defective(0.0, 1.0, vec![0.2, 0.3]).unwrap();
        assert!(e.is_defective());
        assert_eq!(e.survival(5.0), 0.5);
        let k = e.truncate_at(3.0).unwrap();
        assert!(close(k.total_mass(), 1.0, 1e-15) && k.pmf(3.0) == 0.5);
        // Found by crates/slarm/tests/robustness.rs: far beyond the grid or onto a far finer
        // step, the bin index overflowed (debug panic) or asked for that many bins.
        assert_eq!(d.truncate_at(1e300).unwrap(), d); // proper: nothing ends later
        let far = GridDist::new(1e308, 1e308, vec![1.0]).unwrap();
        assert!(far.truncate_at(f64::MIN).is_err()); // the grid point would be -inf
        assert!(matches!(
            e.truncate_at(1e300),
            Err(StatsError::InvalidParameter {
                name: "kill time",
                ..
            })
        ));
        assert!(e.truncate_at(60.0 * MAX_BINS as f64).is_err());
        assert!(matches!(
            d.rebin(f64::MIN_POSITIVE, Rounding::Up),
            Err(StatsError::InvalidParameter {
                name: "target grid step",
                ..
            })
        ));
        assert_eq!(d.rebin(2e-6, Rounding::Up).unwrap().len(), 3_000_001); // (16 - 10) / 2e-6 + 1
                                                                           // Floating positions:
                                                                           // 0.3 / 0.1 is bin 3.
        let f = GridDist::new(0.0, 0.1, vec![0.25; 4]).unwrap();
        assert_eq!(f.cdf(0.3), 1.0);
        #[cfg(feature = "serde")]
        {
            let json = serde_json::to_string(&d).unwrap();
            assert_eq!(serde_json::from_str::<GridDist>(&json).unwrap(), d);
        }
    }

    /// A random proper distribution on up to `max_len` bins with an integer origin.
    pub(crate) fn arb_dist(max_len: usize) -> impl Strategy<Value = GridDist> {
        (
            -50i32..50,
            prop::collection::vec(prop_oneof![3 => 0.0f64..1.0, 1 => Just(0.0)], 1..max_len),
        )
            .prop_filter_map("needs mass", |(o, w)| {
                let s: f64 = w.iter().sum();
                (s > 1e-3)
                    .then(|| GridDist::new(o as f64, 1.0, w.iter().map(|x| x / s).collect()).ok())?
            })
    }

    /// One to four distributions on up to 30 bins, each scaled by 0.3-1 (so some defective),
    /// as the predecessors of a maximum.
    pub(crate) fn arb_predecessors() -> impl Strategy<Value = Vec<GridDist>> {
        prop::collection::vec((arb_dist(30), 0.3f64..=1.0), 1..5).prop_map(|dists| {
            dists
                .iter()
                .map(|(d, s)| {
                    let m = d.masses().iter().map(|m| m * s).collect();
                    GridDist::defective(d.origin(), d.step(), m).unwrap()
                })
                .collect()
        })
    }

    /// The plain definition of [`max_of_independent`]'s masses: every CDF built with
    /// `cdf_values`, then their product at each point and its increments.
    fn plain_max_masses(dists: &[&GridDist]) -> Vec<f64> {
        let span = MaxSpan::of(dists).unwrap();
        let cdfs: Vec<Vec<f64>> = dists.iter().map(|d| d.cdf_values()).collect();
        let mut masses = Vec::new();
        let mut prev = 0.0f64;
        for t in span.lo..=span.hi {
            let mut f = 1.0;
            for (c, &o) in cdfs.iter().zip(&span.offsets) {
                f *= c[((t - o) as usize).min(c.len() - 1)];
            }
            masses.push((f - prev).max(0.0));
            prev = prev.max(f);
        }
        masses
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(1000))]

        // The running CDFs give bit for bit the masses of the built ones.
        #[test]
        fn max_of_independent_is_the_plain_definition_bit_for_bit(scaled in arb_predecessors()) {
            let refs: Vec<&GridDist> = scaled.iter().collect();
            let fast = max_of_independent(&refs).unwrap();
            let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            prop_assert_eq!(bits(fast.masses()), bits(&plain_max_masses(&refs)));
        }

        #[test]
        fn cdf_monotone_and_reaches_mass(d in arb_dist(40), scale in 0.1f64..=1.0) {
            let e = GridDist::defective(d.origin(), d.step(), d.masses().iter().map(|m| m * scale).collect()).unwrap();
            let mut prev = 0.0;
            for i in 0..e.len() + 2 {
                let f = e.cdf(e.origin() + i as f64 * 0.5 * e.step() - 0.5);
                prop_assert!(f + 1e-15 >= prev);
                prev = f;
            }
            prop_assert!((e.cdf(e.end()) - e.total_mass()).abs() < 1e-15);
            prop_assert!((e.total_mass() - scale).abs() < 1e-12);
        }

        #[test]
        fn quantile_cdf_consistency(d in arb_dist(40), p in 0.0f64..=1.0) {
            let q = d.quantile(p).unwrap();
            prop_assert!(d.cdf(q) >= p - MASS_TOLERANCE);
            // Nothing smaller reaches p (except via the p = 1 tolerance).
            if p < 1.0 - MASS_TOLERANCE {
                prop_assert!(d.cdf(q - d.step()) < p);
            }
            prop_assert!(d.pmf(q) > 0.0);
        }

        #[test]
        fn max_of_independent_is_product_of_cdfs(
            a in arb_dist(20), b in arb_dist(20), c in arb_dist(20), t in -60.0f64..80.0
        ) {
            let m = max_of_independent(&[&a, &b, &c]).unwrap();
            let want = a.cdf(t) * b.cdf(t) * c.cdf(t);
            prop_assert!((m.cdf(t) - want).abs() < 1e-12);
            prop_assert!((m.total_mass() - 1.0).abs() < 1e-12);
        }

        #[test]
        fn rebinning_preserves_mass(d in arb_dist(60), k in 1u32..7, r in 0usize..3) {
            let rounding = [Rounding::Up, Rounding::Down, Rounding::Nearest][r];
            let step = d.step() * k as f64 * 0.75;
            let g = d.regrid(d.origin() - 3.0, step, rounding).unwrap();
            prop_assert!((g.total_mass() - d.total_mass()).abs() < 1e-12);
            // Rounding up never moves mass earlier: F_new(t) <= F_old(t).
            if rounding == Rounding::Up {
                for i in 0..g.len() {
                    prop_assert!(g.cdf(g.point(i)) <= d.cdf(g.point(i)) + 1e-12);
                }
            }
        }

        #[test]
        fn truncation_is_min_with_kill_time(d in arb_dist(40), k in -60i32..60) {
            let kill = k as f64;
            let t = d.truncate_at(kill).unwrap();
            prop_assert!((t.total_mass() - 1.0).abs() < 1e-12);
            prop_assert!(t.quantile(1.0).unwrap() <= kill + 1e-9);
            for x in [kill - 1.0, kill - 0.5] {
                prop_assert!((t.cdf(x) - d.cdf(x)).abs() < 1e-12);
            }
            prop_assert!((t.cdf(kill) - 1.0).abs() < 1e-12);
        }
    }
}
