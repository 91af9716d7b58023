//! The analytic M/M/m FCFS core (Hu 2009, §4.1): Erlang B and C by the stable
//! recursion, the empty probability, the waiting-time tail, the response-time CDF in the
//! unified stable form, and the thesis formula (4.1) verbatim for cross-checking.
//!
//! No factorial is ever formed. Erlang B follows the stable recursion
//! `B_k = rho B_{k-1} / (k + rho B_{k-1})` upward from a starting point; for large loads the
//! starting point `B(m0, rho)` at `m0 = floor(rho) + 1` (or at `m <= rho + 1`) comes directly
//! from the finite series `1/B(m, rho) = sum_j m!/((m-j)! rho^j)`, whose positive terms
//! decay like `exp(-j^2 / (2 rho))` there, so it needs O(sqrt(rho)) terms instead of the
//! O(m) steps of the recursion from `B(0) = 1` ([`erlang_b_direct`]). Accurate from `m = 1`
//! to `m = 10^6` and beyond.

use slarm_stats::summary::ln_gamma;

use crate::error::{QueueError, Result};
use slarm_stats::check;

/// Incremental Erlang-B recursion: holds `B(m, rho)` and steps to `B(m+1, rho)` in O(1).
///
/// With [`ErlangB::at`] as the start, this is what makes Algorithm 1 cost
/// O(sqrt(rho) + answer - rho) rather than O(answer^2).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ErlangB {
    rho: f64,
    m: u64,
    b: f64,
}

impl ErlangB {
    /// `B(0, rho) = 1`. `rho` must be finite and `>= 0`.
    pub fn new(rho: f64) -> Result<Self> {
        check::non_negative("rho", rho)?;
        Ok(Self { rho, m: 0, b: 1.0 })
    }

    /// Starts at `B(m, rho)` computed by [`erlang_b`] (O(sqrt(rho)) for large loads rather
    /// than O(m) steps from `B(0)`).
    pub fn at(m: u64, rho: f64) -> Result<Self> {
        let b = erlang_b(m, rho)?;
        Ok(Self { rho, m, b })
    }

    /// Advances to `B(m + 1, rho)`.
    #[inline]
    pub fn step(&mut self) {
        self.m += 1;
        let rb = self.rho * self.b;
        self.b = rb / (self.m as f64 + rb);
    }

    /// Advances until the current server count is `m` (no-op if already past it).
    ///
    /// Once `B` has underflowed to 0 the recursion stays at 0, so the rest is skipped: a
    /// huge `m` (up to `u64::MAX`) costs only the steps until the underflow.
    pub fn advance_to(&mut self, m: u64) {
        while self.m < m {
            if self.b == 0.0 {
                self.m = m;
                return;
            }
            self.step();
        }
    }

    /// Current number of servers.
    pub fn servers(&self) -> u64 {
        self.m
    }

    /// Current blocking probability `B(m, rho)`.
    pub fn value(&self) -> f64 {
        self.b
    }

    /// Erlang C at the current `m`, or [`QueueError::Unstable`] unless `m > rho`.
    pub fn erlang_c(&self) -> Result<f64> {
        let m = self.m as f64;
        if m <= self.rho {
            return Err(QueueError::Unstable {
                lambda: self.rho,
                mu: 1.0,
                m: self.m,
            });
        }
        Ok(c_from_b(self.m, self.rho, self.b))
    }
}

/// Erlang B held as its reciprocal `1/B(m, rho)` and stepped by
/// `1/B_{m+1} = 1 + ((m + 1) / rho) (1/B_m)` with `1/rho` computed once, so no division sits
/// on the critical path (an [`ErlangB`] step waits for one). Its values differ from
/// [`ErlangB`]'s in the last bits: every term is positive and each step adds at most three
/// roundings, so after `s` steps from a value with relative error `e` the relative error is
/// below `e + 3 s u` (`u = 2^-53`). For searches that check each decision against a margin
/// wider than that ([`crate::sizing::min_nodes_batch`]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct ReciprocalB {
    rho: f64,
    inv_rho: f64,
    m: u64,
    /// `1/B(m, rho)`; infinite once `B` is below the smallest normal number.
    inv: f64,
}

impl ReciprocalB {
    /// Starts at `m` with `inv = 1/B(m, rho)`; `rho` finite and positive.
    pub(crate) fn new(m: u64, rho: f64, inv: f64) -> Self {
        Self {
            rho,
            inv_rho: 1.0 / rho,
            m,
            inv,
        }
    }

    pub(crate) fn servers(&self) -> u64 {
        self.m
    }

    #[inline]
    pub(crate) fn step(&mut self) {
        self.m += 1;
        self.inv = 1.0 + (self.m as f64 * self.inv_rho) * self.inv;
    }

    /// Advances until the server count is `m`; an infinite `1/B` stays infinite, so the
    /// steps after it are skipped.
    pub(crate) fn advance_to(&mut self, m: u64) {
        while self.m < m {
            if self.inv == f64::INFINITY {
                self.m = m;
                return;
            }
            self.step();
        }
    }

    /// Erlang C at the current `m` (`m > rho`, which the searches guarantee).
    pub(crate) fn erlang_c(&self) -> f64 {
        c_from_b(self.m, self.rho, 1.0 / self.inv)
    }
}

/// `1/B(floor(rho) + 1, rho)` of each lane by the series `sum_{j=0}^{m} t_j` of
/// [`erlang_b_direct`], its ratios multiplied by `1/rho` and a fixed count of
/// `J = ceil(8 sqrt(rho)) + 3` terms per lane (beyond `j = m` the terms are 0), so the lanes
/// run in step without a test per term. At `m = floor(rho) + 1` every ratio after the first is
/// at most `1 - (i - 1) / rho`, so `t_J <= (1 + 1/rho) e^{-32}` and the rest of the series
/// adds at most `t_J sqrt(rho) / 8`: relative truncation below `4e-15 sqrt(rho)`, rounding
/// below `3 J u`. `rho` must be finite and positive.
pub(crate) fn reciprocal_b_first_stable<const LANES: usize>(rho: [f64; LANES]) -> [f64; LANES] {
    let m: [f64; LANES] = std::array::from_fn(|k| rho[k].floor() + 1.0);
    let inv_rho = rho.map(|r| 1.0 / r);
    let terms = rho
        .iter()
        .zip(&m)
        .map(|(&r, &m)| ((8.0 * r.sqrt()).ceil() + 3.0).min(m))
        .fold(0.0, f64::max) as u64;
    let mut t = [1.0_f64; LANES];
    let mut sum = [1.0_f64; LANES];
    for j in 0..terms {
        let jf = j as f64;
        for k in 0..LANES {
            t[k] = (t[k] * ((m[k] - jf) * inv_rho[k])).max(0.0);
            sum[k] += t[k];
        }
    }
    sum
}

/// `C = m B / (m - rho (1 - B))`.
#[inline]
fn c_from_b(m: u64, rho: f64, b: f64) -> f64 {
    let m = m as f64;
    (m * b / (m - rho * (1.0 - b))).clamp(0.0, 1.0)
}

/// Largest offered load `rho` the Erlang functions accept (beyond it a query would take
/// minutes; the thesis needs at most 40, the performance goals 10^5).
pub const MAX_LOAD: f64 = 1e12;

/// The smallest stable server count `floor(rho) + 1` of an offered load `rho`, the start of
/// Algorithm 1 (its pseudocode's `floor(lambda/mu) + 1`), after checking `0 <= rho <= MAX_LOAD`.
///
/// ```
/// use slarm_queueing::erlang::first_stable_servers;
/// assert_eq!(first_stable_servers(7.5).unwrap(), 8);
/// assert!(first_stable_servers(f64::NAN).is_err());
/// assert!(first_stable_servers(1e300).is_err());
/// ```
pub fn first_stable_servers(rho: f64) -> Result<u64> {
    check::non_negative("rho", rho)?;
    if rho > MAX_LOAD {
        return Err(QueueError::OutOfRange {
            name: "rho",
            requirement: "<= 1e12 (offered load)",
            value: rho,
        });
    }
    Ok(rho.floor() as u64 + 1)
}

/// Erlang B (blocking probability of M/M/m/m) by whichever is cheaper: the recursion from
/// `B(0) = 1` ([`erlang_b_recursive`], m pipelined steps), or [`erlang_b_direct`] at
/// `m0 = min(m, floor(rho) + 1)` (about `10 sqrt(rho)` terms) followed by `m - m0` steps of
/// the incremental update (each about four times a recursion step, its division being on the
/// critical path). So O(min(m, sqrt(rho) + max(0, m - rho))) rather than O(m).
///
/// ```
/// use slarm_queueing::erlang::erlang_b;
/// assert!((erlang_b(2, 1.0).unwrap() - 0.2).abs() < 1e-15);
/// assert!(erlang_b(2, 1e300).is_err()); // beyond MAX_LOAD
/// ```
pub fn erlang_b(m: u64, rho: f64) -> Result<f64> {
    erlang_b_lanes([m], [rho]).map(|[b]| b)
}

/// [`erlang_b`] of `LANES` independent `(m, rho)` pairs at once, each value bit for bit the
/// one [`erlang_b`] gives: when every lane takes the same route (all by the recursion, or
/// all by the series at `m <= floor(rho) + 1`), the lanes' recurrences run interleaved, one
/// term of each per iteration, so the processor overlaps their latency chains (the series
/// is a chain of dependent multiplications and additions); otherwise lane by lane.
///
/// ```
/// use slarm_queueing::erlang::{erlang_b, erlang_b_lanes};
/// let (m, rho) = ([301, 402, 503, 604], [300.5, 401.5, 502.5, 603.5]);
/// let b = erlang_b_lanes(m, rho).unwrap();
/// for k in 0..4 {
///     assert_eq!(b[k].to_bits(), erlang_b(m[k], rho[k]).unwrap().to_bits());
/// }
/// ```
pub fn erlang_b_lanes<const LANES: usize>(
    m: [u64; LANES],
    rho: [f64; LANES],
) -> Result<[f64; LANES]> {
    let mut m0 = [0u64; LANES];
    let mut by_series = [false; LANES];
    for k in 0..LANES {
        m0[k] = m[k].min(first_stable_servers(rho[k])?);
        let series_cost = 10.0 * rho[k].sqrt() + 4.0 * (m[k] - m0[k]) as f64 + 16.0;
        by_series[k] = !(rho[k] == 0.0 || (m[k] as f64) <= series_cost);
    }
    if by_series.iter().all(|&d| !d) {
        return Ok(recursive_lanes(m, rho));
    }
    if by_series.iter().all(|&d| d) {
        let b = direct_lanes(m0, rho);
        return Ok(std::array::from_fn(|k| {
            let mut e = ErlangB {
                rho: rho[k],
                m: m0[k],
                b: b[k],
            };
            e.advance_to(m[k]);
            e.value()
        }));
    }
    let mut out = [0.0; LANES];
    for k in 0..LANES {
        out[k] = erlang_b(m[k], rho[k])?;
    }
    Ok(out)
}

/// Erlang B by the recursion from `B(0, rho) = 1` alone, in its reciprocal form
/// `1/B_k = 1 + (k / rho) / B_{k-1}`: every term is positive (relative error at most a few
/// ulps per step, no cancellation) and the divisions `k / rho` are off the critical path.
/// An infinite `1/B` (B below the smallest normal number) gives 0. `rho` is assumed finite
/// and non-negative.
pub fn erlang_b_recursive(m: u64, rho: f64) -> f64 {
    let [b] = recursive_lanes([m], [rho]);
    b
}

/// [`erlang_b_recursive`] of each lane, the lanes' recursions interleaved. A lane stops
/// once its `1/B` is infinite (it would stay so: every factor `k / rho` is positive) and
/// gives 0 then, so a huge `m` costs only the steps until the overflow.
fn recursive_lanes<const LANES: usize>(m: [u64; LANES], rho: [f64; LANES]) -> [f64; LANES] {
    let mut inv = [1.0_f64; LANES];
    // A NaN load runs its steps (to a NaN value), as the one-lane recursion always did.
    let mut live: [bool; LANES] =
        std::array::from_fn(|l| m[l] > 0 && (rho[l] > 0.0 || rho[l].is_nan()));
    let mut k = 0u64;
    while live.iter().any(|&l| l) {
        k += 1;
        for l in 0..LANES {
            if !live[l] {
                continue;
            }
            inv[l] = 1.0 + inv[l] * (k as f64 / rho[l]);
            live[l] = k < m[l] && inv[l] != f64::INFINITY;
        }
    }
    std::array::from_fn(|l| {
        if m[l] == 0 {
            1.0
        } else if rho[l] <= 0.0 || inv[l] == f64::INFINITY {
            0.0
        } else {
            1.0 / inv[l]
        }
    })
}

/// `B(m, rho)` from the finite series `1/B = sum_{j=0}^{m} t_j`, `t_0 = 1`,
/// `t_j = t_{j-1} (m - j + 1) / rho` (all terms positive: no cancellation), for
/// `1 <= m <= rho + 1` and `rho > 0`. There `t_j` stops growing after `j = 1` and decays like
/// `exp(-j^2 / (2 rho))`, so the sum stops after O(sqrt(rho)) terms once the geometric bound
/// `t_j rho / (rho - m + j)` on the remaining tail falls below `1e-17` of the sum.
/// Outside that range it falls back to [`erlang_b_recursive`].
pub fn erlang_b_direct(m: u64, rho: f64) -> f64 {
    let [b] = direct_lanes([m], [rho]);
    b
}

/// [`erlang_b_direct`] of each lane, the lanes' series summed interleaved (a lane stops
/// adding terms when its own tail bound is met).
fn direct_lanes<const LANES: usize>(m: [u64; LANES], rho: [f64; LANES]) -> [f64; LANES] {
    let mf = m.map(|m| m as f64);
    let mut out = [0.0; LANES];
    // Lanes outside the series' range take the recursion.
    let mut live: [bool; LANES] = std::array::from_fn(|k| {
        let series = !(m[k] == 0
            || rho[k].is_nan()
            || rho[k] <= 0.0
            || mf[k] > rho[k] + 1.0
            || !rho[k].is_finite());
        if !series {
            out[k] = erlang_b_recursive(m[k], rho[k].max(0.0));
        }
        series
    });
    let series = live;
    let mut sum = [1.0_f64; LANES];
    let mut comp = [0.0_f64; LANES]; // Neumaier compensation
    let mut t = [1.0_f64; LANES];
    let mut j = 0u64;
    while live.iter().any(|&l| l) {
        j += 1;
        let jf = j as f64;
        for k in 0..LANES {
            if !live[k] {
                continue;
            }
            if j > m[k] {
                live[k] = false;
                continue;
            }
            // The ratio does not depend on t: its division is off the critical path.
            t[k] *= (mf[k] - (j - 1) as f64) / rho[k];
            let s = sum[k] + t[k];
            comp[k] += (sum[k] - s) + t[k];
            sum[k] = s;
            let gap = rho[k] - mf[k] + jf;
            if j >= 2 && gap > 0.0 && t[k] * rho[k] < 1e-17 * sum[k] * gap {
                live[k] = false;
            }
        }
    }
    for k in 0..LANES {
        if series[k] {
            out[k] = 1.0 / (sum[k] + comp[k]);
        }
    }
    out
}

/// Erlang C: probability that an arriving job waits in M/M/m (the `P(0) m rho^m / (m! (m - rho))`
/// term of Hu 2009, Eq. 4.1). Needs `m > rho`.
///
/// ```
/// use slarm_queueing::erlang::erlang_c;
/// assert!((erlang_c(2, 1.0).unwrap() - 1.0 / 3.0).abs() < 1e-15);
/// assert!(erlang_c(2, 2.0).is_err()); // unstable
/// ```
pub fn erlang_c(m: u64, rho: f64) -> Result<f64> {
    ErlangB::at(m, rho)?.erlang_c()
}

/// Empty probability `P(0)` of M/M/m (Hu 2009, §4.1), computed in log space from Erlang B
/// (it underflows to 0 honestly for very large loads). Needs `m > rho`.
pub fn p0(m: u64, rho: f64) -> Result<f64> {
    let e = ErlangB::at(m, rho)?;
    e.erlang_c()?;
    if rho == 0.0 {
        return Ok(1.0);
    }
    let mf = m as f64;
    // sum_{n<m} rho^n/n! + rho^m/m! * m/(m-rho) = rho^m/m! * (1/B - 1 + m/(m-rho)).
    let ln_term = mf * rho.ln() - ln_gamma(mf + 1.0);
    let factor = 1.0 / e.value() - 1.0 + mf / (mf - rho);
    Ok((-(ln_term + factor.ln())).exp())
}

/// `phi(z) = (1 - e^{-z}) / z`, `phi(0) = 1`, evaluated without cancellation.
#[inline]
fn phi(z: f64) -> f64 {
    if z.abs() < 1e-300 {
        1.0
    } else {
        -(-z).exp_m1() / z
    }
}

/// Response-time CDF of Hu 2009, Eq. 4.1, in a unified stable form, given a precomputed Erlang C:
/// `F(x) = 1 - e^{-mu x} [1 + C mu x phi((m - rho - 1) mu x)]`.
///
/// This is the hot path (no validation); see [`CdfAt`] for many pools at one `x`.
/// `x <= 0` gives 0, an infinite `mu x` gives 1.
#[inline]
pub fn response_cdf_given_c(x: f64, mu: f64, m: u64, rho: f64, c: f64) -> f64 {
    CdfAt::new(x, mu).given_c(m, rho, c)
}

/// `F(x)` at one threshold `x` for many pools: `e^{-mu x}` and `1 - e^{-mu x}` are computed once,
/// leaving one `expm1` per evaluation. Gives exactly the values of [`response_cdf_given_c`].
///
/// When `m - rho < 1` and `z = (m - rho - 1) mu x < -1`, the product `e^{-mu x} phi(z)` is
/// evaluated as `(e^{-(m - rho) mu x} - e^{-mu x}) / (-z)`, which cannot form `0 * inf` far
/// in the tail (at most a factor `e/(e-1)` of cancellation there).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CdfAt {
    /// `mu x`.
    mx: f64,
    /// `e^{-mu x}`.
    emx: f64,
    /// `1 - e^{-mu x}` by `expm1`: accurate for small `mu x`, where `1 - e^{-mu x}` would
    /// keep only the absolute accuracy of a double (so quantiles of small `p` stay relative).
    one_minus_emx: f64,
}

impl CdfAt {
    /// Prepares the threshold `x` at service rate `mu`.
    pub fn new(x: f64, mu: f64) -> Self {
        let mx = mu * x;
        Self {
            mx,
            emx: (-mx).exp(),
            one_minus_emx: -(-mx).exp_m1(),
        }
    }

    /// `F(x)` of an M/M/m pool with offered load `rho` and Erlang C `c`.
    #[inline]
    pub fn given_c(&self, m: u64, rho: f64, c: f64) -> f64 {
        let (mx, e) = (self.mx, self.emx);
        if mx <= 0.0 {
            return 0.0;
        }
        if !mx.is_finite() {
            return 1.0;
        }
        let r = m as f64 - rho;
        let z = (r - 1.0) * mx;
        let waited = if z < -1.0 {
            ((-r * mx).exp() - e) / -z
        } else {
            e * phi(z)
        };
        (self.one_minus_emx - c * mx * waited).clamp(0.0, 1.0)
    }
}

/// A validated M/M/m FCFS pool: arrival rate, service rate, servers, with Erlang C cached.
///
/// ```
/// use slarm_queueing::erlang::Mmm;
/// let q = Mmm::new(0.6, 1.0, 2).unwrap();
/// // x = 3, lambda = 0.6, m = 2: F = 0.938169723020
/// assert!((q.response_cdf(3.0) - 0.938169723020).abs() < 1e-11);
/// assert!(Mmm::new(2.0, 1.0, 2).is_err()); // rho = m is unstable
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Mmm {
    lambda: f64,
    mu: f64,
    m: u64,
    rho: f64,
    c: f64,
}

impl Mmm {
    /// Validates `lambda >= 0`, `mu > 0`, `m >= 1` and stability `lambda < m mu`.
    pub fn new(lambda: f64, mu: f64, m: u64) -> Result<Self> {
        check::non_negative("lambda", lambda)?;
        check::positive("mu", mu)?;
        let rho = lambda / mu;
        check::finite("rho", rho)?;
        if m == 0 || (m as f64) <= rho {
            return Err(QueueError::Unstable { lambda, mu, m });
        }
        let c = erlang_c(m, rho)?;
        Ok(Self {
            lambda,
            mu,
            m,
            rho,
            c,
        })
    }

    /// Arrival rate.
    pub fn lambda(&self) -> f64 {
        self.lambda
    }
    /// Service rate.
    pub fn mu(&self) -> f64 {
        self.mu
    }
    /// Servers.
    pub fn servers(&self) -> u64 {
        self.m
    }
    /// Offered load `rho = lambda / mu` (not divided by m).
    pub fn rho(&self) -> f64 {
        self.rho
    }
    /// Erlang C (probability of waiting).
    pub fn erlang_c(&self) -> f64 {
        self.c
    }
    /// Empty probability P(0).
    pub fn p0(&self) -> f64 {
        p0(self.m, self.rho).unwrap_or(0.0)
    }
    /// `P(W > t) = C e^{-(m mu - lambda) t}`, the standard M/M/m waiting-time tail behind Eq. 4.1.
    pub fn waiting_ccdf(&self, t: f64) -> f64 {
        if t < 0.0 {
            1.0
        } else if t == 0.0 {
            // P(W > 0) = C, also when m mu overflows to inf (inf * 0 would be NaN).
            self.c
        } else {
            self.c * (-(self.m as f64 * self.mu - self.lambda) * t).exp()
        }
    }
    /// Response-time CDF `F(x) = P(T <= x)` (Hu 2009, Eq. 4.1) in the unified stable form.
    pub fn response_cdf(&self, x: f64) -> f64 {
        response_cdf_given_c(x, self.mu, self.m, self.rho, self.c)
    }
    /// The `p`-quantile of the response time: the smallest `x >= 0` with
    /// `P(T <= x) >= p`, the inverse of [`Mmm::response_cdf`] (Hu 2009, Eq. 4.1), for `p` in
    /// `[0, 1)`; `p = 0` gives 0.
    ///
    /// Since `T = W + S` with the service time `S ~ Exp(mu)`, `F(x) <= 1 - e^{-mu x}`, so the
    /// service-time quantile `-ln(1 - p) / mu` is a lower bound (and the answer when the CDF
    /// already reaches `p` there). The upper end is doubled until the CDF passes `p`, then
    /// the bracket is bisected until it is within `1e-12` relative; the upper end is returned.
    /// The density of `T` is at most `mu`, so the CDF there is within `mu x 1e-12` of `p`.
    ///
    /// ```
    /// use slarm_queueing::erlang::Mmm;
    /// // M/M/1: T ~ Exp(mu - lambda), so the median is ln 2 / (1 - 0.5).
    /// let q = Mmm::new(0.5, 1.0, 1).unwrap();
    /// let x = q.response_time_quantile(0.5).unwrap();
    /// assert!((x - 2.0 * std::f64::consts::LN_2).abs() < 1e-12);
    /// // The inverse of the CDF: 95 % of jobs of this 52-server pool finish within x.
    /// let q = Mmm::new(39.9, 1.0, 52).unwrap();
    /// let x = q.response_time_quantile(0.95).unwrap();
    /// assert!((q.response_cdf(x) - 0.95).abs() < 1e-9);
    /// assert!(q.response_time_quantile(1.0).is_err());
    /// ```
    pub fn response_time_quantile(&self, p: f64) -> Result<f64> {
        check::finite("p", p)?;
        if !(0.0..1.0).contains(&p) {
            return Err(QueueError::OutOfRange {
                name: "p",
                requirement: "in [0, 1)",
                value: p,
            });
        }
        if p == 0.0 {
            return Ok(0.0);
        }
        // F(x) <= 1 - e^{-mu x} < p for every x below the service-time quantile.
        let mut lo = -(-p).ln_1p() / self.mu;
        if lo.is_nan() || lo <= 0.0 || !lo.is_finite() {
            lo = 0.0;
        } else if self.response_cdf(lo) >= p {
            return Ok(lo);
        }
        let mut hi = if lo > 0.0 {
            2.0 * lo
        } else {
            f64::MIN_POSITIVE
        };
        // F(inf) = 1 > p, so at most ~2100 doublings (from MIN_POSITIVE to inf).
        while self.response_cdf(hi) < p {
            lo = hi;
            hi *= 2.0;
        }
        // Invariant: F(lo) < p <= F(hi) (or lo = 0 < answer).
        for _ in 0..2200 {
            if hi - lo <= 1e-12 * hi {
                break;
            }
            let mid = lo + 0.5 * (hi - lo);
            if mid <= lo || mid >= hi {
                break;
            }
            if self.response_cdf(mid) >= p {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        Ok(hi)
    }
    /// Mean response time `1/mu + C / (m mu - lambda)`.
    pub fn mean_response(&self) -> f64 {
        1.0 / self.mu + self.c / (self.m as f64 * self.mu - self.lambda)
    }
    /// Mean waiting time `C / (m mu - lambda)`.
    pub fn mean_waiting(&self) -> f64 {
        self.c / (self.m as f64 * self.mu - self.lambda)
    }
    /// Mean number in system `rho + C rho / (m - rho)`.
    pub fn mean_in_system(&self) -> f64 {
        self.rho + self.c * self.rho / (self.m as f64 - self.rho)
    }
}

/// The thesis's Eq. (4.1) verbatim (including its exact-equality branch on `rho = m - 1`),
/// for cross-checking only: it forms `rho^n / n!` terms, so it is limited to loads whose
/// terms stay finite (roughly `rho < 700`), and its general branch loses accuracy near
/// `rho = m - 1`. Use [`Mmm::response_cdf`] for real work.
pub fn response_cdf_thesis(x: f64, lambda: f64, mu: f64, m: u64) -> Result<f64> {
    let q = Mmm::new(lambda, mu, m)?;
    let rho = q.rho;
    let mf = m as f64;
    // sum_{n<m} rho^n/n! and rho^m/m!
    let mut term = 1.0_f64;
    let mut sum = 0.0_f64;
    for n in 0..m {
        sum += term;
        term *= rho / (n as f64 + 1.0);
    }
    let rho_m_over_fact = term;
    let tail = mf * rho_m_over_fact / (mf - rho);
    let p0 = 1.0 / (sum + tail);
    if !p0.is_finite() || !tail.is_finite() || !sum.is_finite() {
        return Err(QueueError::NonFinite {
            name: "thesis formula term",
            value: sum + tail,
        });
    }
    let emx = (-mu * x).exp();
    #[allow(clippy::float_cmp)]
    let f = if rho == mf - 1.0 {
        1.0 - emx - p0 * mf * rho_m_over_fact * mu * emx * x / (mf - rho)
    } else {
        sum * p0 * (1.0 - emx)
            + p0 * mf * rho_m_over_fact / (1.0 - mf + rho)
                * ((1.0 - (-(mf - rho) * mu * x).exp()) / (mf - rho) - 1.0 + emx)
    };
    Ok(f)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn load() -> impl proptest::strategy::Strategy<Value = (u64, f64)> {
        use proptest::prelude::*;
        prop_oneof![
            // the batch's case: the first stable server count, by either route
            (0.0f64..5000.0).prop_map(|r| (r.floor() as u64 + 1, r)),
            // anywhere around the load, and the edges
            (0u64..3000, 0.0f64..2000.0),
            Just((0, 5.0)),
            Just((7, 0.0)),
        ]
    }

    proptest::proptest! {
        /// Interleaved lanes give every lane's value bit for bit as computed alone.
        #[test]
        fn lanes_equal_one_by_one(a in load(), b in load(), c in load(), d in load()) {
            let (m, rho) = ([a.0, b.0, c.0, d.0], [a.1, b.1, c.1, d.1]);
            let lanes = erlang_b_lanes(m, rho).unwrap();
            let direct = direct_lanes(m, rho);
            let recursive = recursive_lanes(m, rho);
            for k in 0..4 {
                proptest::prop_assert_eq!(lanes[k].to_bits(), erlang_b(m[k], rho[k]).unwrap().to_bits());
                proptest::prop_assert_eq!(direct[k].to_bits(), erlang_b_direct(m[k], rho[k]).to_bits());
                proptest::prop_assert_eq!(recursive[k].to_bits(), erlang_b_recursive(m[k], rho[k]).to_bits());
            }
        }
    }

    /// Erlang C reference values (exact fractions and independent double-precision values).
    #[test]
    fn erlang_c_reference_values() {
        let cases = [
            (2, 1.0, 1.0 / 3.0),
            (3, 2.0, 4.0 / 9.0),
            (1, 0.5, 0.5),
            (2, 0.6, 0.138461538462),
            (10, 8.0, 0.409180150796),
            (24, 19.7, 0.265781865462),
            (52, 39.9, 0.044228790368),
            (41, 40.0, 0.822890966174),
        ];
        for (m, rho, want) in cases {
            let got = erlang_c(m, rho).unwrap();
            assert!(
                (got - want).abs() < 1e-12,
                "C({m},{rho}) = {got}, want {want}"
            );
        }
    }

    /// Heavy load (rho > m - 1) far in the tail, where `e^{-mu x}` underflows while
    /// `phi(z)` overflows: F must stay the convolution of service and waiting time,
    /// `int_0^x mu e^{-mu s} P(W <= x - s) ds` (Simpson, independent of the closed form).
    #[test]
    fn response_cdf_far_in_the_tail_under_heavy_load() {
        let q = Mmm::new(1.999, 1.0, 2).unwrap();
        let x = 5000.0;
        let (h, n) = (1e-3, 50_000); // e^{-50} of the service mass lies beyond s = 50
        let g = |s: f64| (-s).exp() * (1.0 - q.waiting_ccdf(x - s));
        let simpson = (0..=n)
            .map(|i| {
                let w = if i == 0 || i == n {
                    1.0
                } else if i % 2 == 1 {
                    4.0
                } else {
                    2.0
                };
                w * g(i as f64 * h)
            })
            .sum::<f64>()
            * h
            / 3.0;
        let f = q.response_cdf(x);
        assert!((f - simpson).abs() < 1e-9, "F = {f}, quadrature {simpson}");
        assert!(f > 0.99 && f < 1.0);
        // Found by crates/slarm/tests/robustness: these were NaN.
        let huge_mu = Mmm::new(1.0, f64::MAX, 3).unwrap();
        assert_eq!(huge_mu.waiting_ccdf(0.0), huge_mu.erlang_c());
        assert_eq!(Mmm::new(1.5, 1.0, 2).unwrap().response_cdf(1500.0), 1.0);
        assert_eq!(
            Mmm::new(20.83, f64::MAX, 73)
                .unwrap()
                .response_cdf(52_252.3),
            1.0
        );
    }

    /// Reference values of F (mu = 1), computed independently, to 1e-12 (the 5-digit rows to
    /// 1e-5).
    #[test]
    fn response_cdf_reference_values() {
        let exact = [
            (2.0, 0.5, 1, 0.632120558829),
            (3.0, 0.6, 2, 0.938169723020),
            (2.0, 2.0, 3, 0.744366687220),
            (4.0, 9.0, 10, 0.932691380675),
            (2.5, 19.7, 24, 0.911305606146),
            (3.0, 39.9, 52, 0.950014551289),
            (5.0, 40.0, 41, 0.965539074420),
        ];
        for (x, l, m, want) in exact {
            let got = Mmm::new(l, 1.0, m).unwrap().response_cdf(x);
            assert!(
                (got - want).abs() < 1e-12,
                "F({x};{l},{m}) = {got}, want {want}"
            );
        }
        let rounded = [(7, 0.94567), (9, 0.94980), (10, 0.95009)];
        for (m, want) in rounded {
            let got = Mmm::new(4.2, 1.0, m).unwrap().response_cdf(3.0);
            assert!((got - want).abs() < 5e-6, "m={m}: {got} vs {want}");
        }
    }

    /// Eq. 4.1 as printed equals the stable form away from rho = m - 1.
    #[test]
    fn thesis_formula_agrees_with_stable_form() {
        for &(l, m) in &[
            (0.6, 2u64),
            (2.0, 3),
            (9.0, 10),
            (19.7, 24),
            (39.9, 52),
            (4.2, 7),
        ] {
            for k in 1..40 {
                let x = 0.25 * k as f64;
                let a = Mmm::new(l, 1.0, m).unwrap().response_cdf(x);
                let b = response_cdf_thesis(x, l, 1.0, m).unwrap();
                assert!((a - b).abs() < 1e-12, "l={l} m={m} x={x}: {a} vs {b}");
            }
        }
    }

    /// The general branch of Eq. 4.1 cancels near rho = m - 1; the unified form
    /// is continuous there.
    #[test]
    fn continuity_across_rho_equal_m_minus_one() {
        let at = Mmm::new(2.0, 1.0, 3).unwrap().response_cdf(3.0);
        for eps in [1e-12, 1e-9, 1e-6] {
            let up = Mmm::new(2.0 + eps, 1.0, 3).unwrap().response_cdf(3.0);
            let down = Mmm::new(2.0 - eps, 1.0, 3).unwrap().response_cdf(3.0);
            assert!((up - at).abs() < 10.0 * eps + 1e-15);
            assert!((down - at).abs() < 10.0 * eps + 1e-15);
        }
        let thesis = response_cdf_thesis(3.0, 2.0 + 1e-12, 1.0, 3).unwrap();
        assert!(
            (thesis - at).abs() > 1e-7,
            "the thesis branch should show cancellation"
        );
    }

    #[test]
    fn large_m_is_finite_and_accurate() {
        // m = 10^6 at 99.9% utilisation: C in (0,1), F close to the M/M/inf limit for large x.
        let q = Mmm::new(999_000.0, 1.0, 1_000_000).unwrap();
        assert!(q.erlang_c() > 0.0 && q.erlang_c() < 1.0);
        let f = q.response_cdf(3.0);
        assert!(f.is_finite() && f <= 1.0 - (-3.0_f64).exp() + 1e-12 && f > 0.9);
        // Check B recursion against the asymptotic: B(m, 0) = 0, B(1, rho) = rho/(1+rho).
        assert!((erlang_b(1, 3.0).unwrap() - 0.75).abs() < 1e-15);
        assert_eq!(erlang_b(5, 0.0).unwrap(), 0.0);
    }

    /// The direct start (series at `floor(rho) + 1` or at `m <= rho + 1`, then the recursion
    /// upward) agrees with the plain recursion from `B(0) = 1` to 1e-12 relative, from light
    /// loads to `rho = 10^6`, below, at and above the load.
    #[test]
    fn direct_start_matches_recursion() {
        let mut rho = 0.7_f64;
        let mut worst = 0.0_f64;
        let mut compared = 0;
        while rho < 1.3e6 {
            let mut ms: Vec<u64> = [0.3, 0.5, 0.9, 0.99, 1.0, 1.001, 1.01, 1.05, 1.2]
                .iter()
                .map(|f| (rho * f).floor() as u64 + 1)
                .chain([rho.floor() as u64 + 1, rho as u64 + 100, 65, 200])
                .collect();
            ms.sort_unstable();
            ms.dedup();
            let mut reference = ErlangB::new(rho).unwrap();
            for m in ms {
                reference.advance_to(m);
                let want = reference.value();
                let got = erlang_b(m, rho).unwrap();
                let rel = (got - want).abs() / want.max(1e-290);
                assert!(rel < 1e-12, "B({m}, {rho}) = {got}, recursion {want}");
                worst = worst.max(rel);
                compared += 1;
                let at = ErlangB::at(m, rho).unwrap();
                assert_eq!((at.servers(), at.value()), (m, got));
            }
            rho *= 1.37;
        }
        assert!(compared > 300, "{compared}");
        assert!(worst < 1e-12, "{worst}");
        // Outside the series' range the direct form falls back to the recursion.
        assert_eq!(erlang_b_direct(50, 10.0), erlang_b_recursive(50, 10.0));
        assert_eq!(erlang_b_direct(0, 10.0), 1.0);
    }

    /// Far in the tail with `m - rho < 1` the CDF is 1, not NaN (`e^{-mu x}` underflows while
    /// `phi(z)` would overflow), including an infinite `mu x`.
    #[test]
    fn far_tail_is_a_probability() {
        for (lambda, mu, m, x) in [
            (1.5, 1.0, 2, 1500.0),
            (20.83, f64::MAX, 73, 52_252.3),
            (72.5, 1.0, 73, 1e300),
        ] {
            let f = Mmm::new(lambda, mu, m).unwrap().response_cdf(x);
            assert!((f - 1.0).abs() < 1e-12, "F = {f}");
        }
        // Both sides of the switch z = -1 agree (rho = m - 0.5, mu x = 2 and 2 +- 1e-9).
        let q = Mmm::new(2.5, 1.0, 3).unwrap();
        let (a, b) = (q.response_cdf(2.0 - 1e-9), q.response_cdf(2.0 + 1e-9));
        assert!((a - b).abs() < 1e-8, "{a} {b}");
        let thesis = response_cdf_thesis(2.0 + 1e-9, 2.5, 1.0, 3).unwrap();
        assert!((b - thesis).abs() < 1e-13, "{b} {thesis}");
    }

    #[test]
    fn p0_matches_definition() {
        // m=2, rho=1: P0 = 1/(1 + 1 + 2*1/(2*1)) = 1/3.
        assert!((p0(2, 1.0).unwrap() - 1.0 / 3.0).abs() < 1e-14);
        // m=1: P0 = 1 - rho.
        assert!((p0(1, 0.3).unwrap() - 0.7).abs() < 1e-14);
        let q = Mmm::new(8.0, 1.0, 10).unwrap();
        // 1 - C = P0 sum_{n<m} rho^n/n!
        let mut s = 0.0;
        let mut t = 1.0;
        for n in 0..10 {
            s += t;
            t *= 8.0 / (n as f64 + 1.0);
        }
        assert!((1.0 - q.erlang_c() - q.p0() * s).abs() < 1e-13);
    }

    #[test]
    fn typed_errors() {
        assert!(matches!(
            Mmm::new(f64::NAN, 1.0, 2),
            Err(QueueError::NonFinite { .. })
        ));
        assert!(matches!(
            Mmm::new(-1.0, 1.0, 2),
            Err(QueueError::OutOfRange { .. })
        ));
        assert!(matches!(
            Mmm::new(1.0, 0.0, 2),
            Err(QueueError::OutOfRange { .. })
        ));
        assert!(matches!(
            Mmm::new(3.0, 1.0, 3),
            Err(QueueError::Unstable { .. })
        ));
        assert!(matches!(
            Mmm::new(1.0, 1.0, 0),
            Err(QueueError::Unstable { .. })
        ));
        assert!(erlang_c(3, 3.0).is_err());
        // Beyond MAX_LOAD: a typed error, not an endless recursion or an overflow.
        assert!(matches!(
            Mmm::new(1e13, 1.0, 20_000_000_000_000),
            Err(QueueError::OutOfRange { name: "rho", .. })
        ));
        assert!(erlang_b(u64::MAX, 1e300).is_err());
        assert_eq!(erlang_b(u64::MAX, 3.0).unwrap(), 0.0);
    }

    /// M/M/1: T ~ Exp(mu - lambda), so the quantile is -ln(1 - p) / (mu - lambda) exactly.
    #[test]
    fn quantile_mm1_is_exponential() {
        for (lambda, mu) in [(0.5, 1.0), (0.9, 1.0), (3.0, 4.0), (1e-6, 2.0)] {
            let q = Mmm::new(lambda, mu, 1).unwrap();
            for p in [1e-9_f64, 0.01, 0.5, 0.9, 0.95, 0.999, 0.999_999] {
                let want = -(-p).ln_1p() / (mu - lambda);
                let got = q.response_time_quantile(p).unwrap();
                assert!(
                    (got - want).abs() <= 1e-9 * want,
                    "lambda {lambda} mu {mu} p {p}: {got} vs {want}"
                );
            }
        }
    }

    /// Multi-server quantiles computed independently with mpmath (50 digits): the CDF as
    /// `1 - P(S > x) - C int_0^x mu e^{-mu s} e^{-(m mu - lambda)(x - s)} ds` by quadrature,
    /// Erlang C from its factorial definition, the root by `mpmath.findroot`.
    #[test]
    fn quantile_multi_server_reference_values() {
        for (lambda, mu, m, p, want) in [
            (4.0, 1.0, 5, 0.9, 3.352_610_432_173_921),
            (39.9, 1.0, 52, 0.95, 2.999_708_931_865_666),
            (2.5, 1.0, 3, 0.99, 9.885_581_314_935_07),
        ] {
            let got = Mmm::new(lambda, mu, m)
                .unwrap()
                .response_time_quantile(p)
                .unwrap();
            assert!(
                (got - want).abs() <= 1e-9 * want,
                "{lambda} {mu} {m} {p}: {got} vs {want}"
            );
        }
    }

    #[test]
    fn quantile_edges_and_errors() {
        let q = Mmm::new(4.0, 1.0, 5).unwrap();
        assert_eq!(q.response_time_quantile(0.0).unwrap(), 0.0);
        for p in [1.0, -0.1, 1.5, f64::NAN, f64::INFINITY] {
            assert!(q.response_time_quantile(p).is_err(), "{p}");
        }
        assert!(matches!(
            q.response_time_quantile(f64::NAN),
            Err(QueueError::NonFinite { name: "p", .. })
        ));
        assert!(matches!(
            q.response_time_quantile(1.0),
            Err(QueueError::OutOfRange { name: "p", .. })
        ));
        // Light load: C is tiny, the quantile is (nearly) the service-time quantile.
        let light = Mmm::new(1e-3, 1.0, 10).unwrap();
        let x = light.response_time_quantile(0.9).unwrap();
        assert!((x - 10f64.ln()).abs() < 1e-9, "{x}");
        // Heavy load near rho = m: the tail is long but the search still ends.
        let heavy = Mmm::new(99.999, 1.0, 100).unwrap();
        let x = heavy.response_time_quantile(0.999).unwrap();
        assert!((heavy.response_cdf(x) - 0.999).abs() < 1e-9, "{x}");
    }

    #[test]
    fn means_and_waiting_tail() {
        let q = Mmm::new(0.5, 1.0, 1).unwrap();
        // M/M/1: E[T] = 1/(mu - lambda) = 2, L = rho/(1-rho) = 1.
        assert!((q.mean_response() - 2.0).abs() < 1e-14);
        assert!((q.mean_in_system() - 1.0).abs() < 1e-14);
        assert!((q.waiting_ccdf(0.0) - 0.5).abs() < 1e-15);
        assert!((q.lambda() * q.mean_response() - q.mean_in_system()).abs() < 1e-14);
    }
}
