//! Probability of success (PoS) and failure (PoF = 1 - PoS), heuristic and comprehensive
//! (Birkenheuer 2012, §3.3.1 comprehensive and §3.3.2 heuristic approach).

use crate::error::Result;
use crate::failure::{outage_pos_homogeneous, FailureModel, NodeFailures};
use crate::grid::TimeGrid;
use crate::job::Time;
use slarm_stats::joint::SumTable;
use slarm_stats::ratio::RatioDist;
use slarm_stats::GridDist;
use slarm_stats::Rounding;

/// The three factors of PoS and their product.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Pos {
    /// `P_available`: all nodes up at start.
    pub available: f64,
    /// `P_executable`: the job finishes within its slot.
    pub executable: f64,
    /// `P_success`: the nodes survive the booked time `min(x, l)`.
    pub survival: f64,
}

impl Pos {
    /// `PoS = P_available · P_executable · P_success`.
    pub fn pos(&self) -> f64 {
        (self.available * self.executable * self.survival).clamp(0.0, 1.0)
    }

    /// `PoF = 1 - PoS`.
    pub fn pof(&self) -> f64 {
        1.0 - self.pos()
    }
}

/// Heuristic PoS (thesis §3.3.2): `(A)^n · CDF_j(floor(100·l/x)) · S(min(x,l))^n` with cluster-wide
/// failure parameters.
///
/// ```
/// use slarm_overbook::{failure::FailureModel, pos::heuristic_pos};
/// use slarm_stats::RatioDist;
/// let mut pdf = vec![0.0; 101];
/// pdf[50] = 0.7;
/// pdf[100] = 0.3;
/// let d = RatioDist::from_pmf(&pdf).unwrap();
/// let p = heuristic_pos(&d, 4 * 3600, 2 * 3600, 16, &FailureModel::default());
/// assert!((p.pos() - 0.693802).abs() < 5e-7);
/// ```
pub fn heuristic_pos(
    dist: &RatioDist,
    estimate: Time,
    slot: Time,
    nodes: usize,
    model: &FailureModel,
) -> Pos {
    let booked = slot.min(estimate).max(0) as f64;
    let a = crate::failure::per_node_power(model.availability(), nodes);
    let both = outage_pos_homogeneous(model, nodes, booked);
    Pos {
        available: a,
        executable: fits_within(dist, slot, estimate),
        survival: if a > 0.0 { both / a } else { 0.0 },
    }
}

/// The heuristic `P_executable` of a job with estimate `x` in a slot of length `l`:
/// `CDF(floor(100·l/x))` of its ratio distribution, 1 when `l >= x` (or `x <= 0`), 0 for a
/// negative slot.
///
/// ```
/// use slarm_overbook::pos::fits_within;
/// use slarm_stats::RatioDist;
/// let mut pdf = vec![0.0; 101];
/// pdf[50] = 0.7;
/// pdf[100] = 0.3;
/// let d = RatioDist::from_pmf(&pdf).unwrap();
/// assert!((fits_within(&d, 2 * 3600, 4 * 3600) - 0.7).abs() < 1e-12);
/// assert_eq!(fits_within(&d, 4 * 3600, 4 * 3600), 1.0);
/// ```
pub fn fits_within(dist: &RatioDist, slot: Time, estimate: Time) -> f64 {
    if estimate <= 0 || slot >= estimate {
        return 1.0;
    }
    if slot < 0 {
        return 0.0;
    }
    // Both arguments are finite and non-negative here, so the lookup cannot fail.
    dist.prob_within(slot as f64, estimate as f64, Rounding::Down)
        .unwrap_or(0.0)
}

/// Inputs of the comprehensive `P_executable` of one placement.
#[derive(Debug, Clone, Copy)]
pub struct ComprehensiveSlot<'a> {
    /// End-time CDFs of the predecessors on the assigned nodes (absolute grid).
    pub predecessors: &'a [&'a GridDist],
    /// Earliest possible start `max(e, now)`.
    pub earliest: Time,
    /// Planned start `t_s`.
    pub start: Time,
    /// Slot end `t_e`.
    pub slot_end: Time,
    /// The job's estimate `x`.
    pub estimate: Time,
}

/// Result of a comprehensive evaluation: the PoS factors and the job's end-time distribution
/// (the "calculated PDF" used by successors), truncated at the slot end.
#[derive(Debug, Clone, PartialEq)]
pub struct ComprehensiveResult {
    /// PoS factors.
    pub pos: Pos,
    /// End-time distribution on the grid.
    pub end: GridDist,
}

impl ComprehensiveSlot<'_> {
    /// The joint start-time CDF on the grid: a step at the planned start without predecessors,
    /// else the product of the predecessors' end CDFs from `max(e, now)` on (thesis §3.2.2).
    pub fn start_cdf(&self, grid: &TimeGrid) -> Result<GridDist> {
        if self.predecessors.is_empty() {
            grid.point(grid.up(self.start))
        } else {
            grid.joint(self.predecessors, grid.up(self.earliest.max(0)))
        }
    }

    /// Earliest grid step with possible start mass (the first index of [`Self::start_cdf`]),
    /// in `O(predecessors)`.
    fn earliest_step(&self, grid: &TimeGrid) -> i64 {
        if self.predecessors.is_empty() {
            grid.up(self.start)
        } else {
            let lo = grid.up(self.earliest.max(0));
            self.predecessors
                .iter()
                .map(|p| grid.first(p))
                .max()
                .unwrap_or(lo)
                .max(lo)
        }
    }

    fn booked(&self) -> f64 {
        (self.slot_end - self.start).min(self.estimate).max(0) as f64
    }
}

/// `P_available · P_success` of a node set over the booked time (the outage factors of PoS).
fn outage_factors(failures: &NodeFailures, nodes: &[usize], booked: f64) -> Result<(f64, f64)> {
    let outage = failures.outage_pos_nodes(nodes, booked)?;
    let avail: f64 = match failures {
        NodeFailures::Homogeneous(m) => {
            crate::failure::per_node_power(m.availability(), nodes.len())
        }
        NodeFailures::PerNode(v) => nodes
            .iter()
            .map(|&r| v.get(r).map(|m| m.availability()).unwrap_or(0.0))
            .product(),
    };
    Ok((avail, if avail > 0.0 { outage / avail } else { 0.0 }))
}

/// Comprehensive PoS (thesis §3.3.1): per-node availability and survival over `min(x, l)`, and
/// `P_executable = P(S + omega' <= t_e)` from the joint start CDF of the predecessors convolved
/// with the job's runtime PMF (from [`TimeGrid::runtime`], given with its running sums as
/// `runtime`, built once for all slots of a job). A full-length slot without predecessors has
/// `P_executable = 1`.
pub fn comprehensive_pos_factors(
    runtime: &SumTable<'_>,
    grid: &TimeGrid,
    failures: &NodeFailures,
    nodes: &[usize],
    slot: ComprehensiveSlot<'_>,
) -> Result<Pos> {
    comprehensive_pos_with(failures, nodes, slot, || {
        comprehensive_executable(runtime, grid, slot)
    })
}

/// [`comprehensive_pos_factors`] with `P_executable` from `executable` (called after the
/// outage factors, so errors come in the same order), e.g. one remembered from an earlier
/// slot with the same predecessors and end.
pub fn comprehensive_pos_with(
    failures: &NodeFailures,
    nodes: &[usize],
    slot: ComprehensiveSlot<'_>,
    executable: impl FnOnce() -> Result<f64>,
) -> Result<Pos> {
    let (available, survival) = outage_factors(failures, nodes, slot.booked())?;
    Ok(Pos {
        available,
        executable: executable()?,
        survival,
    })
}

/// The comprehensive `P_executable` of a placement: 1 for a full-length slot without
/// predecessors, else `P(S + omega' <= t_e)` for the joint start `S` (thesis §3.3.1). It
/// depends on the predecessors, the earliest start and the slot end, and on the slot start
/// only when there are no predecessors.
pub fn comprehensive_executable(
    runtime: &SumTable<'_>,
    grid: &TimeGrid,
    slot: ComprehensiveSlot<'_>,
) -> Result<f64> {
    let end = grid.down(slot.slot_end);
    if slot.predecessors.is_empty() {
        if slot.slot_end - slot.start >= slot.estimate {
            Ok(1.0)
        } else {
            grid.p_end_by_from(grid.up(slot.start), runtime, end)
        }
    } else {
        // The joint start CDF is not built: only its probability of ending by `end` is needed.
        let lo = grid.up(slot.earliest.max(0));
        grid.p_end_by_joint(slot.predecessors, lo, runtime, end)
    }
}

/// An upper bound of [`comprehensive_pos_factors`]' PoS computed without the joint CDF: the job
/// starting at its earliest possible step (`O(predecessors)` with the runtime's running sums).
/// A placement whose bound fails a test that is monotone in PoS fails it exactly too, so it
/// need not be convolved.
pub fn comprehensive_pos_bound(
    runtime: &SumTable<'_>,
    grid: &TimeGrid,
    failures: &NodeFailures,
    nodes: &[usize],
    slot: ComprehensiveSlot<'_>,
) -> Result<f64> {
    let (available, survival) = outage_factors(failures, nodes, slot.booked())?;
    let first = slot.earliest_step(grid);
    let executable = grid.p_end_by_bound(first, runtime, grid.down(slot.slot_end))?;
    Ok((available * executable * survival).clamp(0.0, 1.0))
}

/// The job's end-time CDF on the grid (the "calculated PDF" its successors use): the joint start
/// CDF convolved with the runtime PMF, truncated at the slot end (the job is killed there, thesis §3.3.1).
pub fn comprehensive_end(
    runtime: &GridDist,
    grid: &TimeGrid,
    slot: ComprehensiveSlot<'_>,
) -> Result<GridDist> {
    grid.end(&slot.start_cdf(grid)?, runtime, grid.down(slot.slot_end))
}

/// [`comprehensive_pos_factors`] and [`comprehensive_end`] of one placement, with the runtime
/// PMF of `dist` on `grid`.
pub fn comprehensive_pos(
    dist: &RatioDist,
    grid: &TimeGrid,
    failures: &NodeFailures,
    nodes: &[usize],
    slot: ComprehensiveSlot<'_>,
) -> Result<ComprehensiveResult> {
    let runtime = grid.runtime(dist, slot.estimate)?;
    Ok(ComprehensiveResult {
        pos: comprehensive_pos_factors(&SumTable::new(&runtime), grid, failures, nodes, slot)?,
        end: comprehensive_end(&runtime, grid, slot)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The convolution example of `grid`'s tests (thesis §3.2.2-§3.2.3): 40 % of the jobs end
    /// at a quarter of their estimate, 20 % each at a half, three quarters and the full estimate.
    #[test]
    fn heuristic_cdf_of_the_convolution_example() {
        let mut pdf = vec![0.0; 101];
        pdf[25] = 0.4;
        pdf[50] = 0.2;
        pdf[75] = 0.2;
        pdf[100] = 0.2;
        let d = RatioDist::from_pmf(&pdf).unwrap();
        // The heuristic's own CDF at 50 % is 0.6 <= the comprehensive 0.832.
        assert!((fits_within(&d, 2 * 3600, 4 * 3600) - 0.6).abs() < 1e-12);
    }

    fn seventy_at_half() -> RatioDist {
        let mut pdf = vec![0.0; 101];
        pdf[50] = 0.7;
        pdf[100] = 0.3;
        RatioDist::from_pmf(&pdf).unwrap()
    }

    #[test]
    fn heuristic_worked_numbers() {
        // Worked example after thesis §3.3.2: n = 16, x = 4 h, l = 2 h, CDF(50) = 0.7 -> PoS 0.693802.
        let m = FailureModel::default();
        let p = heuristic_pos(&seventy_at_half(), 4 * 3600, 2 * 3600, 16, &m);
        assert!((m.availability() - 0.99970228).abs() < 5e-9);
        assert!((p.available - 0.995247).abs() < 5e-7);
        assert!((p.survival - 0.995879).abs() < 5e-7);
        assert!((p.executable - 0.7).abs() < 1e-12);
        assert!((p.pos() - 0.693802).abs() < 5e-7);
        assert!((p.pof() - 0.306198).abs() < 5e-7);
        // Same job not overbooked: 0.987062.
        let full = heuristic_pos(&seventy_at_half(), 4 * 3600, 5 * 3600, 16, &m);
        assert!((full.pos() - 0.987062).abs() < 5e-7);
    }

    #[test]
    fn comprehensive_without_predecessors_reduces_to_own_cdf() {
        let m = FailureModel::default();
        let nf = NodeFailures::Homogeneous(m.clone());
        let g = TimeGrid::new(60.0).unwrap();
        let nodes: Vec<usize> = (0..16).collect();
        let r = comprehensive_pos(
            &seventy_at_half(),
            &g,
            &nf,
            &nodes,
            ComprehensiveSlot {
                predecessors: &[],
                earliest: 0,
                start: 0,
                slot_end: 2 * 3600,
                estimate: 4 * 3600,
            },
        )
        .unwrap();
        let h = heuristic_pos(&seventy_at_half(), 4 * 3600, 2 * 3600, 16, &m);
        assert!((r.pos.pos() - h.pos()).abs() < 1e-9);
    }
}
