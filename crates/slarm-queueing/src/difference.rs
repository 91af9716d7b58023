//! The SLA difference metric (Hu 2009, §4.4, Eqs. 4.4-4.5) and the DA/SA grid behind `f_D`
//! (Tables 4.3-4.4, Figures 4.2-4.6).
//!
//! `G_thesis(SLA) = (1/K) sum_{k=1}^{K/step} m(k step, SLA)` with K = 40 and step 0.1: the
//! Riemann sum without the step factor, i.e. 10x the average of Eq. 4.4. The published D values
//! of Tables 4.3-4.4 are exactly 10x the true average difference, so this is what the thesis
//! computed, and its angle table (Table 4.5) is in these units. `g_average` and
//! `g_exact_integral` give the true average. `D = |G_1 - G_2|`: Tables 4.3-4.4 list the
//! lenient SLA first and still report D > 0, so Eq. 4.5's sign is dropped.

use std::sync::{Arc, Mutex, OnceLock};

use crate::erlang::{first_stable_servers, CdfAt, ErlangB, Mmm};
use crate::error::{QueueError, Result};
use crate::sizing::{min_nodes, min_nodes_from};
use crate::sla::Sla;
use slarm_stats::check;

/// A lambda grid `step, 2 step, ..., K` (`K/step` must be an integer).
///
/// Only [`LambdaGrid::new`] builds one (deserializing goes through it too), so its fields are
/// read through methods.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(try_from = "LambdaGridParts"))]
pub struct LambdaGrid {
    k: f64,
    step: f64,
}

/// The fields of a [`LambdaGrid`] as serialized: deserializing checks them with
/// [`LambdaGrid::new`].
#[cfg(feature = "serde")]
#[derive(serde::Deserialize)]
struct LambdaGridParts {
    k: f64,
    step: f64,
}

#[cfg(feature = "serde")]
impl TryFrom<LambdaGridParts> for LambdaGrid {
    type Error = QueueError;

    fn try_from(p: LambdaGridParts) -> Result<Self> {
        LambdaGrid::new(p.k, p.step)
    }
}

impl LambdaGrid {
    /// The grid of `G` (step 0.1, Table 4.1; reproduces the D values of Tables 4.3-4.4).
    pub const G: LambdaGrid = LambdaGrid { k: 40.0, step: 0.1 };
    /// The grid of `f_D` and Figures 4.2-4.8 (step 0.2; the thesis does not state it, and this
    /// is the step that reproduces its f_D values).
    pub const FD: LambdaGrid = LambdaGrid { k: 40.0, step: 0.2 };

    /// Validated grid.
    pub fn new(k: f64, step: f64) -> Result<Self> {
        check::positive("K", k)?;
        check::positive("step", step)?;
        let g = Self { k, step };
        g.points()?;
        Ok(g)
    }

    /// Upper limit K of the lambda range (thesis: 40).
    pub fn k(&self) -> f64 {
        self.k
    }

    /// Grid step.
    pub fn step(&self) -> f64 {
        self.step
    }

    /// Number of grid points `K / step`.
    pub fn points(&self) -> Result<usize> {
        let n = (self.k / self.step).round();
        if (n * self.step - self.k).abs() > 1e-9 * self.k || !(1.0..=1e7).contains(&n) {
            return Err(QueueError::InvalidConfig(format!(
                "K = {} is not a whole number of steps {}",
                self.k, self.step
            )));
        }
        Ok(n as usize)
    }
    /// The grid values `k * step`, `k = 1..=K/step`.
    pub fn lambdas(&self) -> Result<Vec<f64>> {
        Ok((1..=self.points()?).map(|k| k as f64 * self.step).collect())
    }
}

/// Stable server counts per grid load whose Erlang C is tabulated (a grid SLA of the thesis
/// needs at most 12 above `floor(rho)` at `lambda = 40`; larger answers fall back to
/// Algorithm 1).
const TABULATED: usize = 48;

/// Erlang C of every load of a [`LambdaGrid`] at its first [`TABULATED`] stable server
/// counts `floor(rho_k) + 1 + j`. The table does not depend on the SLA, so `m(lambda_k, SLA)`
/// over the whole grid costs about `points + m(K)` CDF evaluations once it is built; the values
/// are bit-identical to those Algorithm 1 computes ([`ErlangB::at`] then single steps).
#[derive(Debug)]
struct ErlangGrid {
    grid: LambdaGrid,
    mu: f64,
    /// `(lambda_k, rho_k, floor(rho_k) + 1)`.
    loads: Vec<(f64, f64, u64)>,
    /// `C(floor(rho_k) + 1 + j, rho_k)` at `k * TABULATED + j`.
    c: Vec<f64>,
}

impl ErlangGrid {
    fn new(grid: LambdaGrid, mu: f64) -> Result<Self> {
        check::positive("mu", mu)?;
        let lambdas = grid.lambdas()?;
        let mut loads = Vec::with_capacity(lambdas.len());
        let mut c = Vec::with_capacity(lambdas.len() * TABULATED);
        for lambda in lambdas {
            let rho = lambda / mu;
            let m0 = first_stable_servers(rho)?;
            let mut b = ErlangB::at(m0, rho)?;
            for _ in 0..TABULATED {
                c.push(b.erlang_c()?);
                b.step();
            }
            loads.push((lambda, rho, m0));
        }
        Ok(Self { grid, mu, loads, c })
    }

    #[allow(clippy::float_cmp)]
    fn is_for(&self, grid: LambdaGrid, mu: f64) -> bool {
        self.grid == grid && self.mu == mu
    }

    /// `m(lambda_k, SLA)` for every grid load, equal to [`crate::sizing::min_nodes_sweep`].
    fn min_nodes(&self, sla: Sla) -> Result<Vec<u64>> {
        sla.check_feasible(self.mu)?;
        let (at, y) = (CdfAt::new(sla.x(), self.mu), sla.y());
        let mut out = Vec::with_capacity(self.loads.len());
        let mut prev = 0;
        for (k, &(lambda, rho, m0)) in self.loads.iter().enumerate() {
            let row = &self.c[k * TABULATED..(k + 1) * TABULATED];
            let first = prev.max(m0);
            let found = (first..m0 + TABULATED as u64)
                .find(|&m| at.given_c(m, rho, row[(m - m0) as usize]) >= y);
            let m = match found {
                Some(m) => m,
                None => min_nodes_from(lambda, self.mu, sla, first.max(m0 + TABULATED as u64))?,
            };
            out.push(m);
            prev = m;
        }
        Ok(out)
    }
}

/// The process-wide tables, most recent last (a handful of grids and service rates at most).
fn erlang_grid(grid: LambdaGrid, mu: f64) -> Result<Arc<ErlangGrid>> {
    static CACHE: OnceLock<Mutex<Vec<Arc<ErlangGrid>>>> = OnceLock::new();
    const KEPT: usize = 8;
    let cache = CACHE.get_or_init(|| Mutex::new(Vec::new()));
    let lookup = || {
        let held = cache
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        held.iter().find(|t| t.is_for(grid, mu)).cloned()
    };
    if let Some(table) = lookup() {
        return Ok(table);
    }
    let table = Arc::new(ErlangGrid::new(grid, mu)?);
    let mut held = cache
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if held.len() >= KEPT {
        held.remove(0);
    }
    held.push(Arc::clone(&table));
    Ok(table)
}

/// `m(lambda_k, SLA)` at every load `k step` of `grid`, from a process-wide table of Erlang C
/// values on the grid (built once per grid and service rate). Equal to
/// [`crate::sizing::min_nodes_sweep`] on `grid.lambdas()`, several times faster.
pub fn grid_min_nodes(sla: Sla, mu: f64, grid: LambdaGrid) -> Result<Vec<u64>> {
    erlang_grid(grid, mu)?.min_nodes(sla)
}

/// `G_thesis(SLA)`, Eq. 4.4 as the thesis evaluated it (see the module docs), on `grid`
/// (normally [`LambdaGrid::G`]).
///
/// ```
/// use slarm_queueing::{difference::{g_thesis, LambdaGrid}, Sla};
/// let g = g_thesis(Sla::new(3.0, 0.95).unwrap(), 1.0, LambdaGrid::G).unwrap();
/// assert!((g - 293.425).abs() < 1e-9); // the largest G of the Table 4.1 SLAs
/// ```
pub fn g_thesis(sla: Sla, mu: f64, grid: LambdaGrid) -> Result<f64> {
    let ms = grid_min_nodes(sla, mu, grid)?;
    Ok(ms.iter().map(|&m| m as f64).sum::<f64>() / grid.k)
}

/// The true grid average `(1/n) sum m(k step)` = `G_thesis * step`.
pub fn g_average(sla: Sla, mu: f64, grid: LambdaGrid) -> Result<f64> {
    Ok(g_thesis(sla, mu, grid)? * grid.step)
}

/// Eq. (4.4) exactly: `(1/K) int_0^K m(lambda, SLA) d lambda`, from the breakpoints of the
/// step function `m(., SLA)` (each found by bisection on lambda).
pub fn g_exact_integral(sla: Sla, mu: f64, k: f64) -> Result<f64> {
    check::positive("K", k)?;
    sla.check_feasible(mu)?;
    let m_max = min_nodes(k, mu, sla)?;
    let mut integral = 0.0;
    let mut prev = 0.0_f64;
    for m in 1..=m_max {
        // Lambda_m = sup{lambda : F(x; lambda, m) >= y}, F decreasing in lambda.
        let feasible = |l: f64| -> bool {
            Mmm::new(l, mu, m)
                .map(|q| q.response_cdf(sla.x()) >= sla.y())
                .unwrap_or(false)
        };
        let hi_bound = (m as f64 * mu).min(k);
        let upper = if feasible(hi_bound) && hi_bound >= k {
            k
        } else if !feasible(0.0) {
            0.0
        } else {
            let (mut lo, mut hi) = (0.0, hi_bound);
            for _ in 0..100 {
                let mid = 0.5 * (lo + hi);
                if feasible(mid) {
                    lo = mid;
                } else {
                    hi = mid;
                }
            }
            lo
        };
        let upper = upper.max(prev).min(k);
        integral += m as f64 * (upper - prev);
        prev = upper;
    }
    integral += m_max as f64 * (k - prev).max(0.0);
    Ok(integral / k)
}

/// `D = |G(SLA_1) - G(SLA_2)|` in `G_thesis` units (Eq. 4.5 without its sign; module docs).
pub fn sla_difference(a: Sla, b: Sla, mu: f64) -> Result<f64> {
    Ok((g_thesis(a, mu, LambdaGrid::G)? - g_thesis(b, mu, LambdaGrid::G)?).abs())
}

/// Which strategy wins at one grid point.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Winner {
    /// `m_D < m_S`.
    Da,
    /// `m_D = m_S`.
    Tie,
    /// `m_S < m_D`.
    Sa,
}

/// One grid point of the (lenient load, strict load) plane.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct GridPoint {
    /// Load of the lenient class (smaller G).
    pub lambda_lenient: f64,
    /// Load of the strict class (larger G).
    pub lambda_strict: f64,
    /// Angle `atan2(lambda_strict, lambda_lenient)` in degrees.
    pub theta_deg: f64,
    /// Winner.
    pub winner: Winner,
}

/// The DA/SA comparison over a 2-D lambda grid with `lambda_1 + lambda_2 <= K` (Hu 2009,
/// Figures 4.2-4.5).
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct DaSaGrid {
    /// Every point, lenient/strict oriented.
    pub points: Vec<GridPoint>,
}

impl DaSaGrid {
    /// Builds the grid for a lenient and a strict SLA (orientation only affects the angle).
    pub fn new(lenient: Sla, strict: Sla, mu: f64, grid: LambdaGrid) -> Result<Self> {
        let ls = grid.lambdas()?;
        let ml = grid_min_nodes(lenient, mu, grid)?;
        let ms = grid_min_nodes(strict, mu, grid)?;
        let n = ls.len();
        let mut points = Vec::with_capacity(n * n / 2);
        for i in 1..=n {
            for j in 1..=(n - i) {
                let s = i + j;
                let m_d = ml[i - 1] + ms[j - 1];
                let m_s = ml[s - 1].max(ms[s - 1]);
                let winner = match m_d.cmp(&m_s) {
                    std::cmp::Ordering::Less => Winner::Da,
                    std::cmp::Ordering::Equal => Winner::Tie,
                    std::cmp::Ordering::Greater => Winner::Sa,
                };
                let (a, b) = (ls[i - 1], ls[j - 1]);
                points.push(GridPoint {
                    lambda_lenient: a,
                    lambda_strict: b,
                    theta_deg: b.atan2(a).to_degrees(),
                    winner,
                });
            }
        }
        Ok(Self { points })
    }
    /// `f_D`: fraction of points where DA is strictly better.
    pub fn f_d(&self) -> f64 {
        let da = self
            .points
            .iter()
            .filter(|p| p.winner == Winner::Da)
            .count();
        da as f64 / self.points.len().max(1) as f64
    }
}

/// `f_D` of Hu 2009 Tables 4.3-4.4 (share of grid points where DA is strictly better) on the
/// 0.2 grid.
///
/// ```
/// use slarm_queueing::{difference::f_d, Sla};
/// let f = f_d(Sla::new(5.0, 0.85).unwrap(), Sla::new(3.0, 0.95).unwrap(), 1.0).unwrap();
/// assert!((100.0 * f - 63.98).abs() < 0.02); // Table 4.4, scenario 3
/// ```
pub fn f_d(a: Sla, b: Sla, mu: f64) -> Result<f64> {
    Ok(DaSaGrid::new(a, b, mu, LambdaGrid::FD)?.f_d())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::sla::fixtures::sla;

    #[test]
    fn lambda_grid_is_built_only_checked() {
        let g = LambdaGrid::new(40.0, 0.2).unwrap();
        assert_eq!(
            (g.k(), g.step()),
            (LambdaGrid::FD.k(), LambdaGrid::FD.step())
        );
        assert_eq!(LambdaGrid::G.points().unwrap(), 400);
        for (k, step) in [
            (0.0, 0.1),
            (40.0, -0.1),
            (f64::NAN, 0.1),
            (40.0, 0.3),
            (1e300, 1e-300),
        ] {
            assert!(LambdaGrid::new(k, step).is_err(), "{k} {step}");
        }
    }

    /// G of all 25 feasible SLAs of Table 4.1, exact to the grid (values recomputed
    /// independently; the thesis prints only the differences).
    #[test]
    fn g_table() {
        let rows = [
            (5.0, 0.80, 209.475),
            (4.5, 0.80, 209.95),
            (5.0, 0.85, 209.975),
            (4.0, 0.80, 210.875),
            (4.5, 0.85, 210.925),
            (5.0, 0.90, 211.325),
            (3.5, 0.80, 211.85),
            (4.0, 0.85, 211.85),
            (4.5, 0.90, 212.35),
            (3.5, 0.85, 213.5),
            (3.0, 0.80, 213.65),
            (5.0, 0.95, 213.65),
            (4.0, 0.90, 213.7),
            (4.5, 0.95, 215.225),
            (3.0, 0.85, 215.9),
            (3.5, 0.90, 215.9),
            (2.5, 0.80, 217.0),
            (4.0, 0.95, 217.85),
            (3.0, 0.90, 220.0),
            (2.5, 0.85, 220.9),
            (3.5, 0.95, 223.375),
            (2.0, 0.80, 224.9),
            (2.5, 0.90, 233.475),
            (2.0, 0.85, 242.25),
            (3.0, 0.95, 293.425),
        ];
        for (x, y, want) in rows {
            let g = g_thesis(sla(x, y), 1.0, LambdaGrid::G).unwrap();
            assert!((g - want).abs() < 1e-9, "G({x},{y}) = {g}, want {want}");
        }
    }

    /// Hu 2009 Tables 4.3/4.4: D within 0.05 (scenario 1 gives 22.55 against the printed
    /// 22.58, one grid point), f_D within 0.02 percentage points of the recomputed values
    /// 5.21, 5.21, 63.98, 64.05 (printed 64.04).
    #[test]
    fn tables_4_3_and_4_4() {
        let cases = [
            ((4.5, 0.85), (2.5, 0.90), 22.58, 5.21),
            ((4.0, 0.80), (2.5, 0.90), 22.60, 5.21),
            ((5.0, 0.85), (3.0, 0.95), 83.45, 63.98),
            ((4.5, 0.80), (3.0, 0.95), 83.48, 64.05),
        ];
        for ((x1, y1), (x2, y2), d_pub, fd) in cases {
            let d = sla_difference(sla(x1, y1), sla(x2, y2), 1.0).unwrap();
            assert!((d - d_pub).abs() <= 0.05, "D = {d} vs {d_pub}");
            let f = 100.0 * f_d(sla(x1, y1), sla(x2, y2), 1.0).unwrap();
            assert!((f - fd).abs() <= 0.02, "f_D = {f} vs {fd}");
        }
        let grid = DaSaGrid::new(sla(4.5, 0.85), sla(2.5, 0.9), 1.0, LambdaGrid::FD).unwrap();
        assert_eq!(grid.points.len(), 19_900);
    }

    #[test]
    fn exact_integral_is_close_to_grid_average() {
        for (x, y) in [(3.0, 0.95), (5.0, 0.8), (2.5, 0.9)] {
            let exact = g_exact_integral(sla(x, y), 1.0, 40.0).unwrap();
            let avg = g_average(sla(x, y), 1.0, LambdaGrid::G).unwrap();
            // The right Riemann sum of a non-decreasing step function over-estimates by at
            // most (m(K) - m(0)) * step / K.
            assert!(
                avg >= exact - 1e-9 && avg - exact <= 60.0 * 0.1 / 40.0,
                "{avg} {exact}"
            );
        }
    }

    /// The tabulated grid search equals Algorithm 1 swept over the grid, including SLAs close
    /// to the feasibility bound whose answers lie beyond the table, and other service rates.
    #[test]
    fn grid_table_equals_sweep() {
        use crate::sizing::min_nodes_sweep;
        for (mu, grid) in [
            (1.0, LambdaGrid::G),
            (1.0, LambdaGrid::FD),
            (2.5, LambdaGrid::new(30.0, 0.25).unwrap()),
        ] {
            let ls = grid.lambdas().unwrap();
            for k in 0..40 {
                let x = 0.4 + 0.23 * k as f64;
                let bound = sla(x, 0.5).bound(mu);
                for y in [0.3, 0.8, 0.95, bound - 1e-3, bound - 1e-6] {
                    if y <= 0.0 || y >= bound {
                        continue;
                    }
                    let s = sla(x, y);
                    assert_eq!(
                        grid_min_nodes(s, mu, grid).unwrap(),
                        min_nodes_sweep(&ls, mu, s).unwrap(),
                        "SLA({x}, {y}), mu {mu}"
                    );
                }
            }
        }
        assert!(grid_min_nodes(sla(2.0, 0.95), 1.0, LambdaGrid::G).is_err());
        assert!(grid_min_nodes(sla(3.0, 0.9), -1.0, LambdaGrid::G).is_err());
    }

    #[test]
    fn bad_grid_is_rejected() {
        assert!(LambdaGrid::new(40.0, 0.3).is_err());
        assert!(LambdaGrid::new(-1.0, 0.1).is_err());
    }
}
