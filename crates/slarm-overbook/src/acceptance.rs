//! Acceptance tests (Birkenheuer 2012, §3.1.3 and §5.1.4: Alg. 3.1, 3.2, 5.1).

use crate::error::{OverbookError, Result};
use slarm_stats::check;

/// Decides whether a placement with success probability `pos` is acceptable.
///
/// Implementations must be monotone: if `pos` is accepted, every larger PoS is accepted too
/// (true of all three tests of the thesis). The comprehensive negotiation relies on it to skip
/// the convolution of a slot whose PoS upper bound is already rejected.
pub trait AcceptanceTest {
    /// True if the placement is accepted.
    fn accepts(&self, pos: f64, fee: f64, penalty: f64) -> bool;
}

/// Alg. 3.2: accept iff `PoF < PoF_max` (strict, so `PoF_max = 1` accepts every PoF below 1).
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct PofThreshold {
    max: f64,
}

impl PofThreshold {
    /// Validated threshold in `[0, 1]`.
    pub fn new(max: f64) -> Result<Self> {
        Ok(Self {
            max: check::probability("PoF_max", max)?,
        })
    }

    /// The threshold.
    pub fn max(&self) -> f64 {
        self.max
    }
}

impl AcceptanceTest for PofThreshold {
    fn accepts(&self, pos: f64, _fee: f64, _penalty: f64) -> bool {
        1.0 - pos < self.max
    }
}

/// Alg. 3.1 (factor 1) and Alg. 5.1: accept iff `PoS·fee > PoF·penalty·factor` (strict).
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct RiskTest {
    security_factor: f64,
}

impl RiskTest {
    /// Alg. 3.1: risk/opportunity without margin.
    pub fn plain() -> Self {
        Self {
            security_factor: 1.0,
        }
    }

    /// Alg. 5.1 with a security factor `>= 0`.
    pub fn with_security(factor: f64) -> Result<Self> {
        slarm_stats::check::non_negative("security factor", factor)?;
        Ok(Self {
            security_factor: factor,
        })
    }

    /// The equivalent PoF threshold `1/(1 + ratio·SF)` when `penalty = ratio·fee` (thesis §3.1.3).
    pub fn equivalent_pof_max(&self, ratio: f64) -> f64 {
        1.0 / (1.0 + ratio * self.security_factor)
    }
}

impl AcceptanceTest for RiskTest {
    fn accepts(&self, pos: f64, fee: f64, penalty: f64) -> bool {
        pos * fee > (1.0 - pos) * penalty * self.security_factor
    }
}

/// The test selected on the command line / in an experiment cell.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(tag = "kind", rename_all = "snake_case"))]
#[non_exhaustive]
pub enum TestSpec {
    /// PoF threshold with fee = penalty (ratio 1).
    Pof {
        /// PoF_max.
        max: f64,
    },
    /// Risk test with `penalty = ratio · fee` and the strategy's security factor.
    Risk {
        /// Penalty/fee ratio.
        ratio: f64,
    },
}

impl std::str::FromStr for TestSpec {
    type Err = OverbookError;
    /// Parses `pof:P` or `risk:R`.
    fn from_str(s: &str) -> Result<Self> {
        let err = |reason: &str| OverbookError::Parse {
            what: "acceptance test",
            input: s.to_string(),
            reason: reason.to_string(),
        };
        let (kind, val) = s
            .split_once(':')
            .ok_or_else(|| err("expected pof:P or risk:R"))?;
        let v: f64 = val.parse().map_err(|_| err("value is not a number"))?;
        match kind {
            "pof" => {
                PofThreshold::new(v)?;
                Ok(TestSpec::Pof { max: v })
            }
            "risk" => {
                slarm_stats::check::non_negative("penalty ratio", v)?;
                Ok(TestSpec::Risk { ratio: v })
            }
            _ => Err(err("expected pof:P or risk:R")),
        }
    }
}

impl TestSpec {
    /// Parses `pof:P` or `risk:R`.
    #[deprecated(since = "0.1.0", note = "use `str::parse` (`FromStr`)")]
    pub fn parse(s: &str) -> Result<Self> {
        s.parse()
    }

    /// Penalty/fee ratio of the accounting.
    pub fn penalty_ratio(&self) -> f64 {
        match self {
            TestSpec::Pof { .. } => 1.0,
            TestSpec::Risk { ratio } => *ratio,
        }
    }

    /// The concrete test for a strategy with `security_factor`.
    pub fn build(&self, security_factor: f64) -> Result<Box<dyn AcceptanceTest + Send + Sync>> {
        Ok(match self {
            TestSpec::Pof { max } => Box::new(PofThreshold::new(*max)?),
            TestSpec::Risk { .. } => Box::new(RiskTest::with_security(security_factor)?),
        })
    }

    /// A short, file-name safe label.
    pub fn label(&self) -> String {
        match self {
            TestSpec::Pof { max } => format!("pof{:03}", (max * 100.0).round() as i64),
            TestSpec::Risk { ratio } => format!("risk{:03}", (ratio * 10.0).round() as i64),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn worked_risk_decisions() {
        // Worked example after thesis §3.3.2: PoS 0.693802, F = P = 64 VC: accept for SF 1 and 2, reject for SF 4.
        let pos = 0.693802;
        assert!(RiskTest::plain().accepts(pos, 64.0, 64.0));
        assert!(RiskTest::with_security(2.0)
            .unwrap()
            .accepts(pos, 64.0, 64.0));
        assert!(!RiskTest::with_security(4.0)
            .unwrap()
            .accepts(pos, 64.0, 64.0));
        assert!(PofThreshold::new(0.31).unwrap().accepts(pos, 0.0, 0.0));
        assert!(!PofThreshold::new(0.30).unwrap().accepts(pos, 0.0, 0.0));
        assert!(PofThreshold::new(1.5).is_err());
        assert!("pof:0.1".parse::<TestSpec>().is_ok());
        assert!("risk:-1".parse::<TestSpec>().is_err());
        assert!("x:1".parse::<TestSpec>().is_err());
        assert!("pof".parse::<TestSpec>().is_err());
    }

    proptest! {
        // Equivalence derived from thesis §3.1.3: risk test == PoF < 1/(1 + r·SF) for P = r·F.
        #[test]
        fn risk_equals_threshold(pos in 0.0f64..1.0, fee in 0.1f64..1000.0, r in 0.1f64..8.0, sf in 0.5f64..8.0) {
            let t = RiskTest::with_security(sf).unwrap();
            let thr = t.equivalent_pof_max(r);
            let a = t.accepts(pos, fee, r * fee);
            let b = 1.0 - pos < thr;
            // Away from the boundary the two decisions coincide.
            if ((1.0 - pos) - thr).abs() > 1e-9 {
                prop_assert_eq!(a, b);
            }
        }
    }
}
