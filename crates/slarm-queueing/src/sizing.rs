//! Algorithm 1 (Hu 2009, §4.2): the minimum number of nodes of one FCFS pool.
//!
//! The search starts at `floor(rho) + 1`, the smallest stable m (the pseudocode's start; the
//! prose's `ceil(rho) + 1` skips it and does not reproduce Tables 4.3-4.4), rejects an
//! infeasible SLA before searching, caps the search, computes Erlang B at the start directly
//! (O(sqrt(rho)) terms, [`crate::erlang::erlang_b_direct`]) and then updates it incrementally, so a
//! query costs O(sqrt(rho) + answer - rho) rather than O(answer).

use std::cell::Cell;

use crate::erlang::{reciprocal_b_first_stable, CdfAt, ErlangB, ReciprocalB};
use crate::error::{QueueError, Result};
use crate::sla::Sla;
use slarm_stats::check;

/// Extra servers above `floor(rho)` before a search gives up.
pub const SEARCH_CAP: u64 = 10_000;

/// Loads at or above 2^53 erlangs are rejected: beyond it `m as f64` is no longer exact.
const MAX_RHO: f64 = 9_007_199_254_740_992.0;

/// `m(lambda, SLA)`: the smallest `m` with `F(x) >= y` for an M/M/m FCFS pool.
/// `m(0, SLA) = 0` (an idle class needs no node).
///
/// ```
/// use slarm_queueing::{min_nodes, Sla};
/// let sla = Sla::new(3.0, 0.95).unwrap();
/// assert_eq!(min_nodes(40.0, 1.0, sla).unwrap(), 52);
/// assert!(min_nodes(1.0, 1.0, Sla::new(2.0, 0.9).unwrap()).is_err()); // infeasible
/// ```
pub fn min_nodes(lambda: f64, mu: f64, sla: Sla) -> Result<u64> {
    min_nodes_from(lambda, mu, sla, 0)
}

/// Algorithm 1 warm-started at `start` (useful when sweeping increasing lambda, because
/// `m(lambda, SLA)` never decreases in lambda). The start is raised to `floor(rho) + 1`.
pub fn min_nodes_from(lambda: f64, mu: f64, sla: Sla, start: u64) -> Result<u64> {
    min_nodes_capped(lambda, mu, sla, start, SEARCH_CAP)
}

/// Algorithm 1 with an explicit cap: at most `floor(rho) + cap` servers are tried before
/// [`QueueError::IterationCap`].
pub fn min_nodes_capped(lambda: f64, mu: f64, sla: Sla, start: u64, cap: u64) -> Result<u64> {
    check::positive("mu", mu)?;
    sla.check_feasible(mu)?;
    let (at, y) = (CdfAt::new(sla.x(), mu), sla.y());
    search(lambda, mu, (start, 0), cap, |m, rho, c| {
        at.given_c(m, rho, c) >= y
    })
}

/// The smallest `m` with `P(W <= t) = 1 - C e^{-(m mu - lambda) t} >= y`: sizing for a
/// waiting-time SLA (the query of call-centre Erlang-C tools such as pyworkforce's
/// `required_positions`), by the same search as Algorithm 1. Always feasible for `y < 1`.
///
/// ```
/// use slarm_queueing::sizing::min_nodes_waiting;
/// // M/M/m with rho = 8: m = 10 gives C = 0.409, P(W <= 0.5) = 1 - 0.409 e^{-1} = 0.849.
/// assert_eq!(min_nodes_waiting(8.0, 1.0, 0.5, 0.8).unwrap(), 10);
/// ```
pub fn min_nodes_waiting(lambda: f64, mu: f64, t: f64, y: f64) -> Result<u64> {
    check::positive("mu", mu)?;
    check::non_negative("t", t)?;
    check::open_probability("y", y)?;
    search(lambda, mu, (0, 0), SEARCH_CAP, |m, _, c| {
        1.0 - c * (-(m as f64 * mu - lambda) * t).exp() >= y
    })
}

/// The smallest `m >= max(start, floor(rho) + 1)` for which `meets(m, rho, C(m, rho))`
/// holds, with Erlang B started directly and stepped once per server; 0 for an idle pool.
///
/// With `skip` above the first server count, Erlang B is still stepped through every server
/// (the same values as without it), but `meets` is first asked at `skip - 1` only: if that
/// fails, the search goes on from `skip`; if it passes, `skip` may be above the answer and
/// the search starts over from the first server count.
fn search(
    lambda: f64,
    mu: f64,
    (start, skip): (u64, u64),
    cap: u64,
    meets: impl Fn(u64, f64, f64) -> bool,
) -> Result<u64> {
    let Some((rho, base)) = offered_load(lambda, mu)? else {
        return Ok(0);
    };
    let m0 = base.saturating_add(1).max(start);
    scan(
        ErlangB::at(m0, rho)?,
        rho,
        skip,
        (base.saturating_add(cap), cap),
        meets,
    )
}

/// `Some((rho, floor(rho)))` of a pool, `None` for an idle one (`lambda = 0`), or the error
/// for a negative `lambda`, a non-finite `rho` or one of 2^53 and more.
fn offered_load(lambda: f64, mu: f64) -> Result<Option<(f64, u64)>> {
    check::non_negative("lambda", lambda)?;
    if lambda == 0.0 {
        return Ok(None);
    }
    let rho = lambda / mu;
    if !rho.is_finite() {
        return Err(QueueError::NonFinite {
            name: "rho",
            value: rho,
        });
    }
    if rho >= MAX_RHO {
        // Server counts would no longer be exact in f64 (and the linear search endless).
        return Err(QueueError::OutOfRange {
            name: "rho = lambda / mu",
            requirement: "below 2^53",
            value: rho,
        });
    }
    Ok(Some((rho, rho.floor() as u64)))
}

/// Erlang B and C of one server count, stepped upward: what [`scan`] needs of [`ErlangB`]
/// and of the division-free [`ReciprocalB`].
trait Blocking: Copy {
    fn servers(&self) -> u64;
    fn step(&mut self);
    fn advance_to(&mut self, m: u64);
    fn erlang_c(&self) -> Result<f64>;
}

impl Blocking for ErlangB {
    fn servers(&self) -> u64 {
        ErlangB::servers(self)
    }
    fn step(&mut self) {
        ErlangB::step(self);
    }
    fn advance_to(&mut self, m: u64) {
        ErlangB::advance_to(self, m);
    }
    fn erlang_c(&self) -> Result<f64> {
        ErlangB::erlang_c(self)
    }
}

impl Blocking for ReciprocalB {
    fn servers(&self) -> u64 {
        ReciprocalB::servers(self)
    }
    fn step(&mut self) {
        ReciprocalB::step(self);
    }
    fn advance_to(&mut self, m: u64) {
        ReciprocalB::advance_to(self, m);
    }
    fn erlang_c(&self) -> Result<f64> {
        Ok(ReciprocalB::erlang_c(self))
    }
}

/// The search of [`search`] from Erlang B at its first server count `b` (above `rho`), up to
/// `cap_m` servers (`cap` extra ones, for the error).
fn scan<B: Blocking>(
    mut b: B,
    rho: f64,
    skip: u64,
    (cap_m, cap): (u64, u64),
    meets: impl Fn(u64, f64, f64) -> bool,
) -> Result<u64> {
    let m0 = b.servers();
    let s = skip.min(cap_m);
    if s > m0 {
        let first = b;
        b.advance_to(s - 1);
        if meets(b.servers(), rho, b.erlang_c()?) {
            b = first;
        } else {
            b.step();
        }
    }
    loop {
        let m = b.servers();
        if meets(m, rho, b.erlang_c()?) {
            return Ok(m);
        }
        if m >= cap_m {
            return Err(QueueError::IterationCap { cap });
        }
        b.step();
    }
}

/// `m(lambda_k, SLA)` for an increasing list of loads, warm-starting each search.
pub fn min_nodes_sweep(lambdas: &[f64], mu: f64, sla: Sla) -> Result<Vec<u64>> {
    let mut out = Vec::with_capacity(lambdas.len());
    let mut prev = 0;
    let mut prev_l = f64::NEG_INFINITY;
    for &l in lambdas {
        let start = if l >= prev_l { prev } else { 0 };
        let m = min_nodes_from(l, mu, sla, start)?;
        out.push(m);
        prev = m;
        prev_l = l;
    }
    Ok(out)
}

/// One sizing question for [`min_nodes_batch`]: arrival rate, service rate and SLA.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct SizingQuery {
    lambda: f64,
    mu: f64,
    sla: Sla,
}

impl SizingQuery {
    /// Validates `lambda >= 0` and `mu > 0`, both finite (the SLA is validated by
    /// [`Sla::new`]; whether it is feasible at `mu` is the answer's business).
    ///
    /// ```
    /// use slarm_queueing::sizing::SizingQuery;
    /// use slarm_queueing::Sla;
    /// let sla = Sla::new(3.0, 0.9).unwrap();
    /// assert!(SizingQuery::new(40.0, 1.0, sla).is_ok());
    /// assert!(SizingQuery::new(-1.0, 1.0, sla).is_err());
    /// assert!(SizingQuery::new(1.0, 0.0, sla).is_err());
    /// ```
    pub fn new(lambda: f64, mu: f64, sla: Sla) -> Result<Self> {
        check::non_negative("lambda", lambda)?;
        check::positive("mu", mu)?;
        Ok(Self { lambda, mu, sla })
    }
    /// Arrival rate.
    pub fn lambda(&self) -> f64 {
        self.lambda
    }
    /// Service rate.
    pub fn mu(&self) -> f64 {
        self.mu
    }
    /// SLA.
    pub fn sla(&self) -> Sla {
        self.sla
    }
}

/// Safety factor of the square-root-staffing guess `ceil(rho + BETA sqrt(rho))` that starts
/// the first search of each run in [`min_nodes_batch`]. Deliberately small, so the guess is
/// usually below the answer; a guess above it is detected and costs one extra evaluation.
const BETA: f64 = 0.5;

/// Algorithm 1 (Hu 2009, §4.2) for many queries at once, each answer equal to
/// [`min_nodes`] of the same query, returned in input order.
///
/// The queries are sorted by `(mu, x, y, lambda)`. Within a run of equal `(mu, x, y)` the
/// answer never decreases in `lambda` (the response time grows stochastically with the
/// load), so each search skips the servers below the previous answer; the first search of a
/// run skips those below the square-root-staffing guess `ceil(rho + 0.5 sqrt(rho))`.
/// Skipping is exact, not a heuristic: Erlang B is still stepped through the skipped servers
/// (the same values as [`min_nodes`] computes, only the CDF is not evaluated there), and the
/// CDF one server below the start is checked to fail the SLA, which proves the start is not
/// above the answer since `F(x)` increases in `m` (Hu 2009, §4.2); when the check passes the
/// search starts again at `floor(rho) + 1`.
///
/// Each search first runs on a division-free Erlang B (its reciprocal, stepped with `1/rho`
/// computed once, from a fixed-length series at `floor(rho) + 1` computed for eight queries
/// at once), whose `F(x)` differs from [`min_nodes`]'s by less than 2e-11. Its answer is
/// kept when every `F(x)` it compared with `y` lay at least 1e-9 from `y`, so that each
/// comparison came out as it does in [`min_nodes`]; otherwise (and for loads above 10^6
/// erlangs) the query is answered by [`min_nodes`]'s own arithmetic. Answers are therefore
/// always [`min_nodes`]'s.
///
/// ```
/// use slarm_queueing::sizing::{min_nodes_batch, SizingQuery};
/// use slarm_queueing::{min_nodes, Sla};
/// let sla = Sla::new(3.0, 0.95).unwrap();
/// let queries: Vec<SizingQuery> = [40.0, 1.0, 20.0]
///     .iter()
///     .map(|&l| SizingQuery::new(l, 1.0, sla).unwrap())
///     .collect();
/// let m = min_nodes_batch(&queries);
/// assert_eq!(m[0], Ok(52));
/// for (q, m) in queries.iter().zip(&m) {
///     assert_eq!(*m, min_nodes(q.lambda(), q.mu(), q.sla()));
/// }
/// ```
pub fn min_nodes_batch(queries: &[SizingQuery]) -> Vec<Result<u64>> {
    let mut order: Vec<usize> = (0..queries.len()).collect();
    let key = |q: &SizingQuery| [q.mu, q.sla.x(), q.sla.y(), q.lambda];
    order.sort_unstable_by(|&a, &b| {
        let (ka, kb) = (key(&queries[a]), key(&queries[b]));
        ka.iter()
            .zip(&kb)
            .map(|(u, v)| u.total_cmp(v))
            .find(|o| o.is_ne())
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    let mut out: Vec<Result<u64>> = vec![Ok(0); queries.len()];
    let same_run = |a: &SizingQuery, b: &SizingQuery| {
        a.mu.to_bits() == b.mu.to_bits()
            && a.sla.x().to_bits() == b.sla.x().to_bits()
            && a.sla.y().to_bits() == b.sla.y().to_bits()
    };
    let first_inv = first_reciprocal_b(queries, &order);
    let mut prev: Option<(SizingQuery, Option<u64>)> = None;
    for (&i, &first_inv) in order.iter().zip(&first_inv) {
        let q = queries[i];
        let start = match prev {
            Some((p, answer)) if same_run(&p, &q) => answer,
            _ => None,
        };
        let start = start.unwrap_or_else(|| {
            let rho = q.lambda / q.mu;
            let guess = (rho + BETA * rho.sqrt()).ceil();
            if (0.0..MAX_RHO).contains(&guess) {
                guess as u64
            } else {
                0
            }
        });
        let r = first_inv
            .and_then(|inv| min_nodes_filtered(q, start, inv))
            .unwrap_or_else(|| min_nodes_skipping(q, start));
        let kept = match (&r, prev) {
            (Ok(m), _) => Some(*m),
            (Err(_), Some((p, answer))) if same_run(&p, &q) => answer,
            _ => None,
        };
        prev = Some((q, kept));
        out[i] = r;
    }
    out
}

/// Queries whose Erlang B at the first stable server count is computed together.
const LANES: usize = 8;

/// Loads up to which [`min_nodes_filtered`] answers; above, the series behind it grows past
/// 8,000 terms and its error bound towards [`DECISION_MARGIN`].
const FILTERED_MAX_RHO: f64 = 1e6;

/// A decision of [`min_nodes_filtered`] counts only when `|F(x) - y|` is at least this.
/// Its `F` differs from the one [`min_nodes`] computes by at most the relative error of its
/// Erlang B (`F` moves by less than `C`, and `C` by less than `B`, relatively: Hu 2009, Eq.
/// 4.1 with `m > rho`), which for `rho <= FILTERED_MAX_RHO` and the at most `2 SEARCH_CAP`
/// steps of a search is below `3 (8,003 + 20,000) u + 4e-12 < 2e-11`; 1e-9 leaves a margin
/// of fifty.
const DECISION_MARGIN: f64 = 1e-9;

/// `1/B(floor(rho) + 1, rho)` of each query in `order` that [`min_nodes_filtered`] can
/// answer (`None` for the others), [`LANES`] queries at a time.
fn first_reciprocal_b(queries: &[SizingQuery], order: &[usize]) -> Vec<Option<f64>> {
    let mut out = vec![None; order.len()];
    // Positions in `order` of the queries that need one, with their load.
    let wanted: Vec<(usize, f64)> = order
        .iter()
        .enumerate()
        .filter_map(|(pos, &i)| {
            let q = &queries[i];
            let rho = q.lambda / q.mu;
            (q.lambda > 0.0 && rho.is_finite() && rho <= FILTERED_MAX_RHO).then_some((pos, rho))
        })
        .collect();
    let mut chunks = wanted.chunks_exact(LANES);
    for chunk in chunks.by_ref() {
        let inv = reciprocal_b_first_stable::<LANES>(std::array::from_fn(|k| chunk[k].1));
        for (&(pos, _), inv) in chunk.iter().zip(inv) {
            out[pos] = Some(inv);
        }
    }
    for &(pos, rho) in chunks.remainder() {
        let [inv] = reciprocal_b_first_stable([rho]);
        out[pos] = Some(inv);
    }
    out
}

/// [`min_nodes`] of `q` by the division-free Erlang B ([`ReciprocalB`]) from
/// `inv = 1/B(floor(rho) + 1, rho)`, skipping to `start` as [`min_nodes_skipping`] does: the
/// same answer wherever every `F(x)` it compares with `y` is at least [`DECISION_MARGIN`]
/// away from it, `None` (answer with [`min_nodes_skipping`]) otherwise and on any error.
fn min_nodes_filtered(q: SizingQuery, start: u64, inv: f64) -> Option<Result<u64>> {
    if q.sla.check_feasible(q.mu).is_err() {
        return None;
    }
    let (rho, base) = offered_load(q.lambda, q.mu).ok()??;
    let (at, y) = (CdfAt::new(q.sla.x(), q.mu), q.sla.y());
    let close = Cell::new(false);
    let m = scan(
        ReciprocalB::new(base + 1, rho, inv),
        rho,
        start,
        (base.saturating_add(SEARCH_CAP), SEARCH_CAP),
        |m, rho, c| {
            let f = at.given_c(m, rho, c);
            close.set(close.get() || (f - y).abs() < DECISION_MARGIN);
            f >= y
        },
    )
    .ok()?;
    (!close.get()).then_some(Ok(m))
}

/// [`min_nodes`] of `q`, evaluating the CDF only from `start` on when the CDF at `start - 1`
/// fails the SLA (the same Erlang B values and the same comparisons as [`min_nodes`]).
fn min_nodes_skipping(q: SizingQuery, start: u64) -> Result<u64> {
    check::positive("mu", q.mu)?;
    q.sla.check_feasible(q.mu)?;
    let (at, y) = (CdfAt::new(q.sla.x(), q.mu), q.sla.y());
    search(q.lambda, q.mu, (0, start), SEARCH_CAP, |m, rho, c| {
        at.given_c(m, rho, c) >= y
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::erlang::Mmm;
    use crate::sla::fixtures::sla;

    /// Selected m(lambda, SLA) values, recomputed independently of this crate.
    #[test]
    fn selected_values() {
        let rows: [((f64, f64), [u64; 6]); 6] = [
            ((2.0, 0.80), [3, 7, 12, 23, 33, 43]),
            ((2.0, 0.85), [3, 8, 14, 24, 35, 45]),
            ((2.5, 0.90), [3, 8, 13, 23, 34, 44]),
            ((3.0, 0.95), [5, 11, 18, 30, 41, 52]),
            ((5.0, 0.80), [2, 6, 11, 21, 31, 41]),
            ((4.0, 0.90), [2, 6, 11, 21, 31, 41]),
        ];
        let lambdas = [1.0, 5.0, 10.0, 20.0, 30.0, 40.0];
        for ((x, y), want) in rows {
            for (l, w) in lambdas.iter().zip(want) {
                assert_eq!(
                    min_nodes(*l, 1.0, sla(x, y)).unwrap(),
                    w,
                    "SLA({x},{y}) l={l}"
                );
            }
        }
    }

    /// The floor start finds m = 1 for lambda = 0.1, SLA(2, 0.80) (M/M/1: F = 0.835).
    #[test]
    fn floor_start_allows_one_server() {
        assert_eq!(min_nodes(0.1, 1.0, sla(2.0, 0.80)).unwrap(), 1);
        assert_eq!(min_nodes(0.0, 1.0, sla(2.0, 0.80)).unwrap(), 0);
    }

    #[test]
    fn answer_is_minimal() {
        for &(l, x, y) in &[(4.2, 3.0, 0.95), (32.8, 2.5, 0.9), (17.3, 4.0, 0.85)] {
            let m = min_nodes(l, 1.0, sla(x, y)).unwrap();
            assert!(Mmm::new(l, 1.0, m).unwrap().response_cdf(x) >= y);
            if (m - 1) as f64 > l {
                assert!(Mmm::new(l, 1.0, m - 1).unwrap().response_cdf(x) < y);
            }
        }
    }

    /// Found by crates/slarm/tests/robustness.rs: `floor(rho) + 1` overflowed for loads
    /// beyond u64 (debug panic); huge server counts now cost only the steps until Erlang B
    /// underflows.
    #[test]
    fn astronomical_loads_and_server_counts() {
        assert!(matches!(
            min_nodes(1e300, 1.0, sla(3.0, 0.9)),
            Err(QueueError::OutOfRange { .. })
        ));
        assert!(min_nodes(1e20, 1e-3, sla(3e4, 0.9)).is_err());
        let q = Mmm::new(5.0, 1.0, u64::MAX).unwrap();
        assert_eq!(q.erlang_c(), 0.0);
        assert!((q.mean_response() - 1.0).abs() < 1e-15);
        assert_eq!(crate::erlang::erlang_b(u64::MAX, 5.0).unwrap(), 0.0);
    }

    #[test]
    fn errors_are_typed() {
        assert!(matches!(
            min_nodes(5.0, 1.0, sla(2.0, 0.95)),
            Err(QueueError::InfeasibleSla { .. })
        ));
        assert!(matches!(
            min_nodes(f64::NAN, 1.0, sla(3.0, 0.9)),
            Err(QueueError::NonFinite { .. })
        ));
        assert!(matches!(
            min_nodes(-1.0, 1.0, sla(3.0, 0.9)),
            Err(QueueError::OutOfRange { .. })
        ));
        // SLA(3, 0.95) at lambda = 40 needs 52 nodes: a cap of 5 above floor(rho) trips.
        assert!(matches!(
            min_nodes_capped(40.0, 1.0, sla(3.0, 0.95), 0, 5),
            Err(QueueError::IterationCap { cap: 5 })
        ));
        assert_eq!(
            min_nodes_capped(40.0, 1.0, sla(3.0, 0.95), 0, 12).unwrap(),
            52
        );
    }

    #[test]
    fn sweep_equals_individual_queries() {
        let ls: Vec<f64> = (1..=100).map(|k| 0.4 * k as f64).collect();
        let s = sla(3.0, 0.95);
        let sw = min_nodes_sweep(&ls, 1.0, s).unwrap();
        for (l, m) in ls.iter().zip(sw) {
            assert_eq!(m, min_nodes(*l, 1.0, s).unwrap());
        }
    }

    /// The waiting-time sizing is the smallest stable m with 1 - C e^{-(m mu - lambda) t} >= y.
    #[test]
    fn waiting_time_sizing() {
        for &(l, mu, t, y) in &[
            (8.0, 1.0, 0.5, 0.8),
            (90.0, 1.0, 0.2, 0.9),
            (990.0, 2.0, 0.05, 0.95),
            (0.3, 1.0, 0.0, 0.5),
            (100_000.0, 1.0, 0.01, 0.9),
        ] {
            let m = min_nodes_waiting(l, mu, t, y).unwrap();
            let level = |m: u64| {
                let q = Mmm::new(l, mu, m).unwrap();
                1.0 - q.waiting_ccdf(t)
            };
            assert!(level(m) >= y, "{l} {m}");
            if (m - 1) as f64 > l / mu {
                assert!(level(m - 1) < y, "{l} {m}");
            }
        }
        assert_eq!(min_nodes_waiting(0.0, 1.0, 1.0, 0.9).unwrap(), 0);
        assert!(min_nodes_waiting(5.0, 1.0, 1.0, 1.0).is_err());
        assert!(min_nodes_waiting(5.0, 1.0, -1.0, 0.5).is_err());
        assert!(min_nodes_waiting(5.0, 0.0, 1.0, 0.5).is_err());
    }

    /// Every kind of run: repeated and unsorted loads, several SLAs and service rates, an
    /// infeasible SLA, a zero load, a cap hit, a guess above the answer (low y).
    #[test]
    fn batch_equals_one_by_one() {
        let mut qs = Vec::new();
        for &(mu, x, y) in &[
            (1.0, 3.0, 0.9),
            (1.0, 3.0, 0.95),
            (2.0, 1.5, 0.8),
            (1.0, 2.0, 0.95),  // infeasible
            (1.0, 20.0, 0.05), // answer floor(rho) + 1, below the guess
        ] {
            for &l in &[40.0, 0.0, 1.0, 20.0, 40.0, 0.3, 1000.0, 12_345.6] {
                qs.push(SizingQuery::new(l * mu, mu, sla(x, y)).unwrap());
            }
        }
        let got = min_nodes_batch(&qs);
        assert_eq!(got.len(), qs.len());
        for (q, g) in qs.iter().zip(&got) {
            assert_eq!(*g, min_nodes(q.lambda(), q.mu(), q.sla()), "{q:?}");
        }
        assert!(got.iter().any(|g| g.is_err()));
        assert!(min_nodes_batch(&[]).is_empty());
    }

    /// SLAs whose `y` is `F(x)` at the answer to the last bit, or one ulp above it: the
    /// division-free search cannot tell these apart and must leave them to `min_nodes`'s
    /// arithmetic, which the batch then matches; nearby loads take the fast path.
    #[test]
    fn batch_answers_ties_at_the_last_bit_as_min_nodes() {
        let mut qs = Vec::new();
        for &(lambda, extra) in &[(7.3_f64, 2u64), (40.0, 3), (333.3, 5), (5_000.5, 9)] {
            let m = lambda.floor() as u64 + extra;
            let f = Mmm::new(lambda, 1.0, m).unwrap().response_cdf(3.0);
            for y in [
                f,
                f64::from_bits(f.to_bits() + 1),
                f64::from_bits(f.to_bits() - 1),
            ] {
                let s = sla(3.0, y);
                let [inv] = reciprocal_b_first_stable([lambda]);
                let q = SizingQuery::new(lambda, 1.0, s).unwrap();
                assert_eq!(min_nodes_filtered(q, 0, inv), None, "{q:?}");
                for l in [lambda, lambda - 0.05, lambda + 0.05] {
                    qs.push(SizingQuery::new(l, 1.0, s).unwrap());
                }
            }
        }
        let got = min_nodes_batch(&qs);
        for (q, g) in qs.iter().zip(&got) {
            assert_eq!(*g, min_nodes(q.lambda(), q.mu(), q.sla()), "{q:?}");
        }
        // At y = F(m) exactly the answer is m; one ulp above it, m + 1.
        assert_eq!(got[0], Ok(9));
        assert_eq!(got[3], Ok(10));
    }

    /// The division-free Erlang B stays within its stated error of the exact one.
    #[test]
    fn reciprocal_b_is_within_its_error_bound() {
        for &rho in &[0.01, 0.7, 1.0, 9.99, 10.0, 123.4, 4_096.0, 77_777.7, 1e6] {
            let [inv] = reciprocal_b_first_stable([rho]);
            let mut fast = ReciprocalB::new(rho.floor() as u64 + 1, rho, inv);
            let mut exact = ErlangB::at(rho.floor() as u64 + 1, rho).unwrap();
            for _ in 0..60 {
                let rel = (fast.erlang_c() / exact.erlang_c().unwrap() - 1.0).abs();
                assert!(rel < 2e-11 || exact.value() == 0.0, "rho {rho}: {rel:e}");
                fast.step();
                exact.step();
            }
        }
    }

    #[test]
    fn large_load() {
        let m = min_nodes(100_000.0, 1.0, sla(3.0, 0.9)).unwrap();
        assert!(m > 100_000 && m < 101_000, "{m}");
    }
}
