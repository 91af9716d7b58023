//! The four evaluated strategies and the placement policies (Birkenheuer 2012, §3.1.2, §3.6,
//! §5.2.3).

use crate::error::{OverbookError, Result};

/// Plan representation of a strategy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum Family {
    /// Per-node plan, nodes bound at negotiation.
    Comprehensive,
    /// Free-node counts, nodes bound at start, full replanning.
    Heuristic,
}

/// One of the four strategies of the evaluation (thesis §3.6).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "kebab-case"))]
#[non_exhaustive]
pub enum Strategy {
    /// Comprehensive (conservative) backfilling: full x only, nodes held until start + x.
    CompBackfill,
    /// Heuristic planning: full x only, replanning on every job end.
    HeurPlan,
    /// Comprehensive overbooking (predecessor convolution).
    CompOverbook,
    /// Heuristic overbooking (own class CDF).
    HeurOverbook,
}

impl std::str::FromStr for Strategy {
    type Err = OverbookError;
    /// Parses the command-line spelling ([`Strategy::name`]).
    fn from_str(s: &str) -> Result<Self> {
        Strategy::ALL
            .into_iter()
            .find(|k| k.name() == s)
            .ok_or_else(|| OverbookError::Parse {
                what: "strategy",
                input: s.to_string(),
                reason: "expected comp-backfill, heur-plan, comp-overbook or heur-overbook".into(),
            })
    }
}

impl Strategy {
    /// All four, in table order.
    pub const ALL: [Strategy; 4] = [
        Strategy::CompBackfill,
        Strategy::HeurPlan,
        Strategy::CompOverbook,
        Strategy::HeurOverbook,
    ];

    /// CLI spelling.
    pub fn name(self) -> &'static str {
        match self {
            Strategy::CompBackfill => "comp-backfill",
            Strategy::HeurPlan => "heur-plan",
            Strategy::CompOverbook => "comp-overbook",
            Strategy::HeurOverbook => "heur-overbook",
        }
    }

    /// Row label of the paper's tables.
    pub fn label(self) -> &'static str {
        match self {
            Strategy::CompBackfill => "Comp. backfilling",
            Strategy::HeurPlan => "Heuristic planning",
            Strategy::CompOverbook => "Comp. overbooking",
            Strategy::HeurOverbook => "Heur. overbooking",
        }
    }

    /// Parses the command-line spelling ([`Strategy::name`]).
    #[deprecated(since = "0.1.0", note = "use `str::parse` (`FromStr`)")]
    pub fn parse(s: &str) -> Result<Self> {
        s.parse()
    }

    /// Plan family.
    pub fn family(self) -> Family {
        match self {
            Strategy::CompBackfill | Strategy::CompOverbook => Family::Comprehensive,
            Strategy::HeurPlan | Strategy::HeurOverbook => Family::Heuristic,
        }
    }

    /// True for the overbooking strategies.
    pub fn overbooks(self) -> bool {
        matches!(self, Strategy::CompOverbook | Strategy::HeurOverbook)
    }

    /// The non-overbooking counterpart (the base of "additional gain").
    pub fn baseline(self) -> Strategy {
        match self.family() {
            Family::Comprehensive => Strategy::CompBackfill,
            Family::Heuristic => Strategy::HeurPlan,
        }
    }

    /// Default SecurityFactor of the risk test: 4 comprehensive, 2 heuristic (thesis §5.1.4).
    pub fn default_security_factor(self) -> f64 {
        match self.family() {
            Family::Comprehensive => 4.0,
            Family::Heuristic => 2.0,
        }
    }
}

/// How one slot is chosen among the acceptable candidates (thesis §3.1.2, §5.2.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
#[non_exhaustive]
pub enum PlacementPolicy {
    /// Highest PoS.
    Conservative,
    /// Highest expected profit `PoS·fee - PoF·penalty`.
    BestFit,
    /// Earliest acceptable slot.
    FirstFit,
    /// Latest acceptable start.
    LastFit,
    /// The simulator's first fit ("bottom left first"): earliest acceptable slot in time order
    /// (identical to `FirstFit` on our candidate enumeration).
    FirstFitSim,
    /// The simulator's near best fit: earliest full-length slot, else first-fit overbooking.
    #[default]
    NearBestFitSim,
}

/// A candidate after evaluation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Evaluated {
    /// Index into the candidate list.
    pub index: usize,
    /// Start time.
    pub start: i64,
    /// True when the slot holds the full estimate.
    pub full: bool,
    /// PoS of the placement.
    pub pos: f64,
    /// Whether the acceptance rule admits it.
    pub acceptable: bool,
}

impl PlacementPolicy {
    /// Picks one acceptable candidate (candidates must be in time order).
    pub fn select(self, cands: &[Evaluated], fee: f64, penalty: f64) -> Option<Evaluated> {
        let ok = cands.iter().filter(|c| c.acceptable);
        let profit = |c: &&Evaluated| c.pos * fee - (1.0 - c.pos) * penalty;
        let cmp = |a: f64, b: f64| a.partial_cmp(&b).unwrap_or(std::cmp::Ordering::Equal);
        match self {
            PlacementPolicy::FirstFit | PlacementPolicy::FirstFitSim => ok.copied().next(),
            PlacementPolicy::LastFit => ok.copied().last(),
            PlacementPolicy::NearBestFitSim => cands
                .iter()
                .find(|c| c.acceptable && c.full)
                .or_else(|| cands.iter().find(|c| c.acceptable))
                .copied(),
            // max_by keeps the last maximum; reverse so that the earliest wins ties.
            PlacementPolicy::Conservative => ok.rev().max_by(|a, b| cmp(a.pos, b.pos)).copied(),
            PlacementPolicy::BestFit => ok.rev().max_by(|a, b| cmp(profit(a), profit(b))).copied(),
        }
    }

    /// True when the policy can stop at the first full slot (no need to evaluate the rest).
    pub fn lazy(self) -> bool {
        matches!(
            self,
            PlacementPolicy::NearBestFitSim
                | PlacementPolicy::FirstFit
                | PlacementPolicy::FirstFitSim
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn policies_pick_as_defined() {
        let c = |index, start, full, pos, acceptable| Evaluated {
            index,
            start,
            full,
            pos,
            acceptable,
        };
        let cands = [
            c(0, 0, false, 0.7, true),
            c(1, 10, false, 0.9, true),
            c(2, 20, true, 0.99, true),
            c(3, 30, false, 0.5, false),
        ];
        let f = |p: PlacementPolicy| p.select(&cands, 1.0, 1.0).map(|e| e.index);
        assert_eq!(f(PlacementPolicy::FirstFit), Some(0));
        assert_eq!(f(PlacementPolicy::FirstFitSim), Some(0));
        assert_eq!(f(PlacementPolicy::NearBestFitSim), Some(2));
        assert_eq!(f(PlacementPolicy::LastFit), Some(2));
        assert_eq!(f(PlacementPolicy::Conservative), Some(2));
        assert_eq!(f(PlacementPolicy::BestFit), Some(2));
        assert!("nope".parse::<Strategy>().is_err());
        for s in Strategy::ALL {
            assert_eq!(s.name().parse::<Strategy>().unwrap(), s);
            assert!(!s.baseline().overbooks());
        }
    }
}
