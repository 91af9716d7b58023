//! Hu's heuristics: the angle table (Table 4.5), Algorithm 2 (two classes, SA vs DA, with the
//! orientation fix described at [`Orientation`]; Hu 2009, §4.4), Algorithm 3 (three classes,
//! §6.2) and angle-table calibration (§4.4, Figure 4.8).

use rand::{Rng, RngExt};

use crate::difference::{g_thesis, DaSaGrid, LambdaGrid, Winner};
use crate::error::{QueueError, Result};
use crate::partition::Partition;
use crate::sla::{JobClass, Sla};

/// Intervals of D (lower edges, ascending) mapped to angles alpha in degrees.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct AngleTable {
    /// `(lower edge of D, alpha)`; the first lower edge is 0.
    pub rows: Vec<(f64, f64)>,
    /// Upper edge of the last interval (Table 4.5: 86.1); larger D clamps to the last alpha.
    pub upper: f64,
}

impl AngleTable {
    /// Table 4.5 verbatim: [0,30) 0, [30,62) 22, [62,78) 52, [78,82) 69, [82,86.1) 77.
    pub fn thesis() -> Self {
        Self {
            rows: vec![
                (0.0, 0.0),
                (30.0, 22.0),
                (62.0, 52.0),
                (78.0, 69.0),
                (82.0, 77.0),
            ],
            upper: 86.1,
        }
    }
    /// alpha for D: `D < 0` gives 0 (only reachable in literal mode), `D >= upper` clamps to
    /// the last row (alpha = 77 in Table 4.5).
    pub fn lookup(&self, d: f64) -> f64 {
        if d.is_nan() || d < 0.0 {
            return 0.0;
        }
        self.rows
            .iter()
            .rev()
            .find(|(lo, _)| d >= *lo)
            .map_or(0.0, |(_, a)| *a)
    }
}

/// How Algorithm 2 reads its steps 2 and 4.
///
/// Read literally (D = G_1 - G_2, DA iff atan(lambda_2 / lambda_1) <= alpha) the algorithm
/// is only sensible when class 2 is the strict class, as in Tables 4.3-4.4; DA wins when the
/// strict class carries little load. [`Orientation::Canonical`] relabels the classes so that
/// it always measures the angle of the strict load from the lenient-load axis.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Orientation {
    /// `D = G_strict - G_lenient >= 0`, DA iff `atan2(lambda_strict, lambda_lenient) <= alpha`.
    Canonical,
    /// The thesis text: `D = G_1 - G_2`, DA iff `atan(lambda_2 / lambda_1) <= alpha`.
    Literal,
}

/// A two-pool decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Choice {
    /// Dedicated allocation.
    Da,
    /// Shared allocation.
    Sa,
}

/// Settings of the heuristics.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct HeuristicConfig {
    /// Service rate (thesis: 1).
    pub mu: f64,
    /// The angle table.
    pub table: AngleTable,
    /// Orientation of Algorithm 2.
    pub orientation: Orientation,
}

impl Default for HeuristicConfig {
    fn default() -> Self {
        Self {
            mu: 1.0,
            table: AngleTable::thesis(),
            orientation: Orientation::Canonical,
        }
    }
}

/// `G_thesis` of an SLA under `cfg` (grid K = 40, step 0.1).
pub fn g_of(sla: Sla, cfg: &HeuristicConfig) -> Result<f64> {
    g_thesis(sla, cfg.mu, LambdaGrid::G)
}

/// Algorithm 2 given precomputed G values: returns the choice.
pub fn algorithm2_with_g(l1: f64, g1: f64, l2: f64, g2: f64, cfg: &HeuristicConfig) -> Choice {
    let (d, theta) = match cfg.orientation {
        Orientation::Canonical => {
            let (ls, ll, d) = if g1 >= g2 {
                (l1, l2, g1 - g2)
            } else {
                (l2, l1, g2 - g1)
            };
            (d, ls.atan2(ll).to_degrees())
        }
        Orientation::Literal => (g1 - g2, l2.atan2(l1).to_degrees()),
    };
    if theta <= cfg.table.lookup(d) {
        Choice::Da
    } else {
        Choice::Sa
    }
}

/// Algorithm 2 (Hu 2009, §4.4): SA or DA for two classes.
///
/// ```
/// use slarm_queueing::{heuristics::{algorithm2, Choice, HeuristicConfig}, JobClass, Sla};
/// let cfg = HeuristicConfig::default();
/// let lenient = JobClass::new(30.0, Sla::new(5.0, 0.85).unwrap()).unwrap();
/// let strict = JobClass::new(3.0, Sla::new(3.0, 0.95).unwrap()).unwrap();
/// // D = 83.45 -> alpha = 77 deg (Table 4.5); the strict class carries little load -> DA.
/// assert_eq!(algorithm2(&lenient, &strict, &cfg).unwrap(), Choice::Da);
/// ```
pub fn algorithm2(c1: &JobClass, c2: &JobClass, cfg: &HeuristicConfig) -> Result<Choice> {
    let g1 = g_of(c1.sla(), cfg)?;
    let g2 = g_of(c2.sla(), cfg)?;
    Ok(algorithm2_with_g(c1.lambda(), g1, c2.lambda(), g2, cfg))
}

/// How Algorithm 3 resolves structure 3 (a two-edge path; Hu 2009, §6.2, Figures 6.1-6.2,
/// Table 6.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Structure3Fix {
    /// (1) Add the missing edge: SA.
    AddEdge,
    /// (2) Remove the edge with the smaller D.
    RemoveSmallD,
    /// (3) Remove the edge with the larger D (the thesis's choice).
    RemoveLargeD,
    /// (4) One of (1)-(3) uniformly at random.
    Random,
}

/// Algorithm 3's graph and decision.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Algorithm3Outcome {
    /// Structure 1-4 of Fig. 6.1 (number of SA edges + 1).
    pub structure: u8,
    /// The SA edges (pairs of class indices).
    pub edges: Vec<(usize, usize)>,
    /// The chosen partition.
    pub partition: Partition,
}

/// The three pairs in index order.
const PAIRS: [(usize, usize); 3] = [(0, 1), (0, 2), (1, 2)];

/// The partition of a graph with 0, 1 or 3 SA edges.
fn partition_of_edges(edges: &[(usize, usize)]) -> Result<Partition> {
    match edges {
        [] => Ok(Partition::dedicated(3)),
        [(j, k)] => Partition::mixed(3, *j, *k),
        [_, _, _] => Ok(Partition::shared(3)),
        _ => Err(QueueError::InvalidConfig("structure 3 needs a fix".into())),
    }
}

/// Algorithm 3 (Hu 2009, §6.2) with the given structure-3 fix; `rng` is used only by
/// [`Structure3Fix::Random`]. Ties in D (left open by the thesis) go to the lower pair index.
pub fn algorithm3<R: Rng + ?Sized>(
    classes: &[JobClass],
    cfg: &HeuristicConfig,
    fix: Structure3Fix,
    rng: &mut R,
) -> Result<Algorithm3Outcome> {
    three_classes(classes.len())?;
    let g: Vec<f64> = classes
        .iter()
        .map(|c| g_of(c.sla(), cfg))
        .collect::<Result<_>>()?;
    algorithm3_with_g(classes, &g, cfg, fix, rng)
}

/// Algorithm 3 is for exactly three classes.
fn three_classes(classes: usize) -> Result<()> {
    if classes != 3 {
        return Err(QueueError::InvalidConfig(format!(
            "Algorithm 3 needs 3 classes, got {classes}"
        )));
    }
    Ok(())
}

/// Hu's heuristic strategy for the class counts the thesis covers: Algorithm 2 (§4.4) for two
/// classes and Algorithm 3 (§6.2, structure 3 resolved by removing the edge with the larger D,
/// the thesis's choice) for three; `None` for any other count. This is the `heuristic`
/// strategy `slarm queue size` reports.
///
/// ```
/// use slarm_queueing::heuristics::{heuristic_partition, HeuristicConfig};
/// use slarm_queueing::{JobClass, Partition, Sla};
/// let c = |l: f64, x: f64, y: f64| JobClass::new(l, Sla::new(x, y).unwrap()).unwrap();
/// let cfg = HeuristicConfig::default();
/// let two = [c(10.0, 3.0, 0.95), c(10.0, 3.0, 0.95)]; // equal SLAs: D = 0, share
/// assert_eq!(heuristic_partition(&two, &cfg).unwrap(), Some(Partition::shared(2)));
/// assert_eq!(heuristic_partition(&two[..1], &cfg).unwrap(), None);
/// ```
pub fn heuristic_partition(
    classes: &[JobClass],
    cfg: &HeuristicConfig,
) -> Result<Option<Partition>> {
    match classes {
        [a, b] => Ok(Some(match algorithm2(a, b, cfg)? {
            Choice::Da => Partition::dedicated(2),
            Choice::Sa => Partition::shared(2),
        })),
        [_, _, _] => {
            // Structure3Fix::RemoveLargeD draws nothing: any generator gives the same answer.
            let mut rng = <rand::rngs::SmallRng as rand::SeedableRng>::seed_from_u64(0);
            Ok(Some(
                algorithm3(classes, cfg, Structure3Fix::RemoveLargeD, &mut rng)?.partition,
            ))
        }
        _ => Ok(None),
    }
}

/// [`algorithm3`] given the classes' `G_thesis` values `g` (as [`g_of`] computes them), so
/// that several fixes of one draw share them: `G` is the costly part of the algorithm.
///
/// ```
/// use rand::SeedableRng;
/// use slarm_queueing::heuristics::{algorithm3, algorithm3_with_g, g_of, HeuristicConfig, Structure3Fix};
/// use slarm_queueing::{JobClass, Sla};
/// let cfg = HeuristicConfig::default();
/// let c = [
///     JobClass::new(12.0, Sla::new(5.0, 0.85).unwrap()).unwrap(),
///     JobClass::new(3.0, Sla::new(3.0, 0.95).unwrap()).unwrap(),
///     JobClass::new(20.0, Sla::new(4.0, 0.9).unwrap()).unwrap(),
/// ];
/// let g: Vec<f64> = c.iter().map(|k| g_of(k.sla(), &cfg).unwrap()).collect();
/// let mut rng = rand::rngs::StdRng::seed_from_u64(1);
/// let fix = Structure3Fix::RemoveSmallD;
/// assert_eq!(
///     algorithm3_with_g(&c, &g, &cfg, fix, &mut rng).unwrap(),
///     algorithm3(&c, &cfg, fix, &mut rng).unwrap()
/// );
/// ```
pub fn algorithm3_with_g<R: Rng + ?Sized>(
    classes: &[JobClass],
    g: &[f64],
    cfg: &HeuristicConfig,
    fix: Structure3Fix,
    rng: &mut R,
) -> Result<Algorithm3Outcome> {
    three_classes(classes.len())?;
    if g.len() != 3 {
        return Err(QueueError::InvalidConfig(format!(
            "Algorithm 3 needs the 3 classes' G values, got {}",
            g.len()
        )));
    }
    let edges: Vec<(usize, usize)> = PAIRS
        .iter()
        .copied()
        .filter(|&(a, b)| {
            algorithm2_with_g(classes[a].lambda(), g[a], classes[b].lambda(), g[b], cfg)
                == Choice::Sa
        })
        .collect();
    let structure = edges.len() as u8 + 1;
    if edges.len() != 2 {
        let partition = partition_of_edges(&edges)?;
        return Ok(Algorithm3Outcome {
            structure,
            edges,
            partition,
        });
    }
    let fix = match fix {
        Structure3Fix::Random => match rng.random_range(0..3) {
            0 => Structure3Fix::AddEdge,
            1 => Structure3Fix::RemoveSmallD,
            _ => Structure3Fix::RemoveLargeD,
        },
        f => f,
    };
    let d = |e: (usize, usize)| (g[e.0] - g[e.1]).abs();
    let (e0, e1) = (edges[0], edges[1]);
    let partition = match fix {
        Structure3Fix::AddEdge => Partition::shared(3),
        Structure3Fix::RemoveSmallD => {
            // remove the smaller D; on a tie remove the lower-index edge (keep e1)
            let keep = if d(e0) <= d(e1) { e1 } else { e0 };
            Partition::mixed(3, keep.0, keep.1)?
        }
        Structure3Fix::RemoveLargeD | Structure3Fix::Random => {
            // remove the larger D; on a tie remove the lower-index edge (keep e1)
            let keep = if d(e0) >= d(e1) { e1 } else { e0 };
            Partition::mixed(3, keep.0, keep.1)?
        }
    };
    Ok(Algorithm3Outcome {
        structure,
        edges,
        partition,
    })
}

/// Criteria for recalibrating the angle per SLA pair (Hu 2009, §4.4, Figure 4.8). The
/// thesis's q = 90% criterion is under-specified and does not reproduce Table 4.5, so
/// Algorithms 2 and 3 use Table 4.5 itself and calibration is offered beside it.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum CalibrationCriterion {
    /// Largest alpha whose wedge `[0, alpha]` has at least `q` (fraction) strictly-DA points.
    LiteralQ {
        /// Required fraction, thesis 0.90.
        q: f64,
    },
    /// The alpha that maximises classification accuracy (DA <= SA inside, SA <= DA outside).
    MaxAccuracy,
}

/// The calibrated angle of one SLA pair on its DA/SA grid.
pub fn calibrate_alpha(grid: &DaSaGrid, criterion: CalibrationCriterion) -> f64 {
    let mut pts: Vec<(f64, Winner)> = grid
        .points
        .iter()
        .map(|p| (p.theta_deg, p.winner))
        .collect();
    pts.sort_by(|a, b| a.0.total_cmp(&b.0));
    match criterion {
        CalibrationCriterion::LiteralQ { q } => {
            let mut da = 0usize;
            let mut best = 0.0;
            let mut i = 0;
            while i < pts.len() {
                let theta = pts[i].0;
                while i < pts.len() && pts[i].0 == theta {
                    if pts[i].1 == Winner::Da {
                        da += 1;
                    }
                    i += 1;
                }
                if da as f64 >= q * i as f64 {
                    best = theta;
                }
            }
            best
        }
        CalibrationCriterion::MaxAccuracy => {
            // correct(alpha) = #inside with DA<=SA + #outside with SA<=DA
            let outside_ok: usize = pts.iter().filter(|p| p.1 != Winner::Da).count();
            let mut score = outside_ok as i64; // alpha below every point (alpha = 0 wedge empty)
            let mut best = (score, 0.0);
            let mut i = 0;
            while i < pts.len() {
                let theta = pts[i].0;
                while i < pts.len() && pts[i].0 == theta {
                    // moves from outside to inside
                    match pts[i].1 {
                        Winner::Da => score += 1,
                        Winner::Sa => score -= 1,
                        Winner::Tie => {}
                    }
                    i += 1;
                }
                if score > best.0 {
                    best = (score, theta);
                }
            }
            best.1
        }
    }
}

/// Rebuilds an angle table with the same D intervals as `template`: each alpha is the mean of
/// the calibrated alphas of the SLA pairs whose D falls in the interval (thesis procedure).
/// `pairs` are `(D, alpha)`; intervals without pairs keep the template's alpha.
pub fn calibrate_angle_table(template: &AngleTable, pairs: &[(f64, f64)]) -> AngleTable {
    let mut rows = template.rows.clone();
    for (idx, row) in rows.iter_mut().enumerate() {
        let lo = row.0;
        let hi = template.rows.get(idx + 1).map_or(template.upper, |r| r.0);
        let inside: Vec<f64> = pairs
            .iter()
            .filter(|(d, _)| *d >= lo && *d < hi)
            .map(|(_, a)| *a)
            .collect();
        if !inside.is_empty() {
            row.1 = inside.iter().sum::<f64>() / inside.len() as f64;
        }
    }
    AngleTable {
        rows,
        upper: template.upper,
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::sla::fixtures::class;
    use rand::SeedableRng;

    #[test]
    fn heuristic_partition_is_algorithm_2_or_3_by_class_count() {
        let c = |l: f64, x: f64, y: f64| JobClass::new(l, Sla::new(x, y).unwrap()).unwrap();
        let cfg = HeuristicConfig::default();
        let classes = [c(12.0, 5.0, 0.85), c(3.0, 3.0, 0.95), c(20.0, 4.0, 0.9)];
        let two = match algorithm2(&classes[0], &classes[1], &cfg).unwrap() {
            Choice::Da => Partition::dedicated(2),
            Choice::Sa => Partition::shared(2),
        };
        assert_eq!(heuristic_partition(&classes[..2], &cfg).unwrap(), Some(two));
        let mut rng = slarm_stats::SimRng::seed_from_u64(7);
        let three = algorithm3(&classes, &cfg, Structure3Fix::RemoveLargeD, &mut rng).unwrap();
        assert_eq!(
            heuristic_partition(&classes, &cfg).unwrap(),
            Some(three.partition)
        );
        assert_eq!(heuristic_partition(&classes[..1], &cfg).unwrap(), None);
        assert_eq!(heuristic_partition(&[], &cfg).unwrap(), None);
        let bad = [c(1.0, 0.5, 0.99), c(1.0, 3.0, 0.9)]; // infeasible SLA at mu = 1
        assert!(heuristic_partition(&bad, &cfg).is_err());
    }

    /// Both entry points reject anything but three classes with three G values, before any
    /// G is computed (a class count error is not hidden behind a class's own).
    #[test]
    fn algorithm3_needs_three_classes_and_their_g() {
        let cfg = HeuristicConfig::default();
        let mut rng = rand::rngs::StdRng::seed_from_u64(1);
        let fix = Structure3Fix::AddEdge;
        let two = [class(3.0, 3.0, 0.9), class(2.0, 4.0, 0.8)];
        assert!(matches!(
            algorithm3(&two, &cfg, fix, &mut rng),
            Err(QueueError::InvalidConfig(m)) if m.contains("3 classes, got 2")
        ));
        let three = [two[0], two[1], class(1.0, 5.0, 0.85)];
        assert!(matches!(
            algorithm3_with_g(&three, &[1.0, 2.0], &cfg, fix, &mut rng),
            Err(QueueError::InvalidConfig(m)) if m.contains("G values, got 2")
        ));
        assert!(algorithm3(&three, &cfg, fix, &mut rng).is_ok());
    }

    #[test]
    fn angle_table_lookup() {
        let t = AngleTable::thesis();
        assert_eq!(t.lookup(0.0), 0.0);
        assert_eq!(t.lookup(29.99), 0.0);
        assert_eq!(t.lookup(30.0), 22.0);
        assert_eq!(t.lookup(83.45), 77.0);
        assert_eq!(t.lookup(80.0), 69.0);
        assert_eq!(t.lookup(100.0), 77.0); // clamped to the last row
        assert_eq!(t.lookup(-5.0), 0.0);
        assert_eq!(t.lookup(f64::NAN), 0.0);
    }

    /// The canonical orientation is symmetric under class relabelling.
    #[test]
    fn canonical_orientation_is_label_free() {
        let cfg = HeuristicConfig::default();
        let a = class(30.0, 5.0, 0.85);
        let b = class(3.0, 3.0, 0.95);
        assert_eq!(algorithm2(&a, &b, &cfg).unwrap(), Choice::Da);
        assert_eq!(algorithm2(&b, &a, &cfg).unwrap(), Choice::Da);
        // Strict class carrying most of the load: SA.
        let b2 = class(30.0, 3.0, 0.95);
        let a2 = class(3.0, 5.0, 0.85);
        assert_eq!(algorithm2(&a2, &b2, &cfg).unwrap(), Choice::Sa);
        // Literal mode reads it the other way round when the strict class comes first.
        let lit = HeuristicConfig {
            orientation: Orientation::Literal,
            ..HeuristicConfig::default()
        };
        assert_eq!(algorithm2(&b2, &a2, &lit).unwrap(), Choice::Da);
        // D < 30 -> always SA
        assert_eq!(
            algorithm2(&class(30.0, 4.5, 0.85), &class(1.0, 2.5, 0.9), &cfg).unwrap(),
            Choice::Sa
        );
    }

    #[test]
    fn algorithm3_structures() {
        let cfg = HeuristicConfig::default();
        let mut rng = slarm_stats::SimRng::seed_from_u64(1);
        // identical SLAs: all pairs SA -> structure 4
        let same = [
            class(5.0, 4.0, 0.9),
            class(6.0, 4.0, 0.9),
            class(7.0, 4.0, 0.9),
        ];
        let o = algorithm3(&same, &cfg, Structure3Fix::RemoveLargeD, &mut rng).unwrap();
        assert_eq!((o.structure, o.partition.name().as_str()), (4, "SA"));
        // strict class 3 with tiny load next to two heavy lenient classes: the pairs (1,3) and
        // (2,3) are DA, (1,2) SA -> structure 2, S12D3
        let c = [
            class(20.0, 5.0, 0.85),
            class(15.0, 5.0, 0.85),
            class(1.0, 3.0, 0.95),
        ];
        let o = algorithm3(&c, &cfg, Structure3Fix::RemoveLargeD, &mut rng).unwrap();
        assert_eq!((o.structure, o.partition.name().as_str()), (2, "S12D3"));
        assert!(algorithm3(&c[..2], &cfg, Structure3Fix::AddEdge, &mut rng).is_err());
    }

    #[test]
    fn structure3_fixes() {
        let cfg = HeuristicConfig::default();
        let mut rng = slarm_stats::SimRng::seed_from_u64(2);
        // Candidates for a two-edge graph (structure 3). The first is one by construction:
        // (1,2) has D = 11.4 < 30 (SA); (2,3) has D = 72.5, alpha = 52 and
        // atan2(5, 1) = 78.7 > 52 (SA); (1,3) has D = 83.95, alpha = 77 and
        // atan2(5, 10) = 26.6 <= 77 (DA).
        let mut found = 0;
        let cands = [
            [
                class(10.0, 5.0, 0.8),
                class(1.0, 2.5, 0.85),
                class(5.0, 3.0, 0.95),
            ],
            [
                class(30.0, 5.0, 0.8),
                class(2.0, 3.5, 0.95),
                class(0.5, 3.0, 0.95),
            ],
            [
                class(20.0, 5.0, 0.8),
                class(6.0, 4.0, 0.9),
                class(1.0, 3.0, 0.95),
            ],
            [
                class(25.0, 5.0, 0.85),
                class(8.0, 2.5, 0.9),
                class(1.5, 3.0, 0.95),
            ],
        ];
        for c in cands {
            let o = algorithm3(&c, &cfg, Structure3Fix::AddEdge, &mut rng).unwrap();
            if o.structure == 3 {
                found += 1;
                assert_eq!(o.partition.name(), "SA");
                let small = algorithm3(&c, &cfg, Structure3Fix::RemoveSmallD, &mut rng).unwrap();
                let large = algorithm3(&c, &cfg, Structure3Fix::RemoveLargeD, &mut rng).unwrap();
                assert_ne!(small.partition, large.partition);
                assert_eq!(small.partition.blocks().len(), 2);
                // The kept pair under fix (3) is the one with the smaller SLA difference.
                let g: Vec<f64> = c.iter().map(|k| g_of(k.sla(), &cfg).unwrap()).collect();
                let kept = large
                    .partition
                    .blocks()
                    .iter()
                    .find(|b| b.len() == 2)
                    .unwrap();
                let d_kept = (g[kept[0]] - g[kept[1]]).abs();
                for &(a, b) in &o.edges {
                    assert!(d_kept <= (g[a] - g[b]).abs() + 1e-12);
                }
            }
        }
        assert!(found >= 1, "no structure-3 candidate");
    }

    #[test]
    fn max_accuracy_alpha_grows_with_d() {
        let g = |l: (f64, f64), s: (f64, f64)| {
            DaSaGrid::new(
                Sla::new(l.0, l.1).unwrap(),
                Sla::new(s.0, s.1).unwrap(),
                1.0,
                LambdaGrid::FD,
            )
            .unwrap()
        };
        let small = calibrate_alpha(
            &g((4.0, 0.8), (2.5, 0.9)),
            CalibrationCriterion::MaxAccuracy,
        );
        let large = calibrate_alpha(
            &g((5.0, 0.85), (3.0, 0.95)),
            CalibrationCriterion::MaxAccuracy,
        );
        assert!(large > small + 20.0, "{small} {large}");
        let lit = calibrate_alpha(
            &g((5.0, 0.85), (3.0, 0.95)),
            CalibrationCriterion::LiteralQ { q: 0.9 },
        );
        assert!(lit > 0.0 && lit < 90.0);
        let t = calibrate_angle_table(
            &AngleTable::thesis(),
            &[(10.0, 1.0), (20.0, 3.0), (83.0, 70.0)],
        );
        assert_eq!(t.rows[0].1, 2.0);
        assert_eq!(t.rows[1].1, 22.0);
        assert_eq!(t.rows[4].1, 70.0);
    }
}
