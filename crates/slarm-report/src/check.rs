//! Checks: one reproduced quantity beside its published value.

use serde::{Deserialize, Serialize};

/// A reported value: a number, a text, or a truth value (for directional claims).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Value {
    /// A number.
    Num(f64),
    /// A truth value.
    Bool(bool),
    /// Free text.
    Text(String),
}

/// How our value compares with the published one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Equal to the published value (to 1e-9 relative) or the claim holds exactly.
    Match,
    /// Within the stated tolerance.
    WithinTolerance,
    /// Outside the tolerance, or the claim does not hold; `reason` should say why.
    Differs,
    /// The source gives no value to compare with; ours is reported for the record.
    NotPublished,
}

impl Verdict {
    /// Short lower-case label used in tables and HTML.
    pub fn label(self) -> &'static str {
        match self {
            Verdict::Match => "match",
            Verdict::WithinTolerance => "within tolerance",
            Verdict::Differs => "differs",
            Verdict::NotPublished => "not published",
        }
    }
}

/// One reproduced quantity with its published counterpart and verdict.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Check {
    /// Stable identifier within the paper, e.g. `"table4.3/row2/D"`.
    pub id: String,
    /// What is compared, in words.
    pub description: String,
    /// Our value.
    pub ours: Value,
    /// The published value, if the source gives one.
    pub published: Option<Value>,
    /// `ours - published` for numbers.
    pub deviation: Option<f64>,
    /// The tolerance applied (absolute for numbers), if any.
    pub tolerance: Option<f64>,
    /// The verdict.
    pub verdict: Verdict,
    /// Why ours differs (or any other remark), ideally naming the docs/decisions.md entry.
    pub reason: Option<String>,
}

impl Check {
    /// A numeric comparison with an absolute tolerance.
    pub fn numeric(
        id: impl Into<String>,
        description: impl Into<String>,
        ours: f64,
        published: Option<f64>,
        abs_tolerance: f64,
    ) -> Self {
        let (deviation, verdict) = match published {
            None => (None, Verdict::NotPublished),
            Some(p) => {
                let d = ours - p;
                let v = if d.abs() <= 1e-9 * p.abs().max(1.0) {
                    Verdict::Match
                } else if d.abs() <= abs_tolerance {
                    Verdict::WithinTolerance
                } else {
                    Verdict::Differs
                };
                (Some(d), v)
            }
        };
        Self {
            id: id.into(),
            description: description.into(),
            ours: Value::Num(ours),
            published: published.map(Value::Num),
            deviation,
            tolerance: Some(abs_tolerance),
            verdict,
            reason: None,
        }
    }

    /// A numeric comparison with a relative tolerance (`|ours - pub| <= rel * |pub|`).
    pub fn relative(
        id: impl Into<String>,
        description: impl Into<String>,
        ours: f64,
        published: f64,
        rel_tolerance: f64,
    ) -> Self {
        Self::numeric(
            id,
            description,
            ours,
            Some(published),
            rel_tolerance * published.abs(),
        )
    }

    /// A directional claim of the source (an ordering, a trend) and whether it holds for us.
    pub fn claim(
        id: impl Into<String>,
        description: impl Into<String>,
        holds: bool,
        detail: impl Into<String>,
    ) -> Self {
        Self {
            id: id.into(),
            description: description.into(),
            ours: Value::Text(detail.into()),
            published: Some(Value::Bool(true)),
            deviation: None,
            tolerance: None,
            verdict: if holds {
                Verdict::Match
            } else {
                Verdict::Differs
            },
            reason: None,
        }
    }

    /// Attaches the explanation of a difference (or any remark).
    pub fn with_reason(mut self, reason: impl Into<String>) -> Self {
        self.reason = Some(reason.into());
        self
    }

    /// Attaches `reason` only if the verdict is [`Verdict::Differs`]: the explanation of why
    /// ours differs, citing the paper's section, for a check that holds at one scale or seed
    /// and not at another. [`Check::explain`] also covers "within tolerance" and builds the
    /// reason from the check's own numbers.
    ///
    /// ```
    /// use slarm_report::Check;
    /// let held = Check::claim("a", "x rises", true, "yes").with_reason_if_differs("noise");
    /// assert_eq!(held.reason, None);
    /// let failed = Check::claim("a", "x rises", false, "no").with_reason_if_differs("noise");
    /// assert_eq!(failed.reason.as_deref(), Some("noise"));
    /// ```
    pub fn with_reason_if_differs(self, reason: impl Into<String>) -> Self {
        if self.verdict == Verdict::Differs {
            self.with_reason(reason)
        } else {
            self
        }
    }

    /// Attaches `why(&self)` when the check does not match (it differs or is only within
    /// tolerance); a check that matches, or whose source publishes no value, is returned
    /// unchanged. The closure runs only then, so it can read the check's own numbers.
    ///
    /// ```
    /// use slarm_report::Check;
    /// let why = |c: &Check| format!("off by {:.2}", c.deviation.unwrap_or(0.0));
    /// assert_eq!(Check::numeric("a", "", 1.0, Some(1.0), 0.1).explain(why).reason, None);
    /// let close = Check::numeric("a", "", 1.05, Some(1.0), 0.1).explain(why);
    /// assert_eq!(close.reason.as_deref(), Some("off by 0.05"));
    /// ```
    pub fn explain(self, why: impl FnOnce(&Check) -> String) -> Self {
        match self.verdict {
            Verdict::Differs | Verdict::WithinTolerance => {
                let reason = why(&self);
                self.with_reason(reason)
            }
            Verdict::Match | Verdict::NotPublished => self,
        }
    }

    /// Whether this check differs without saying why (no reason, or a blank one). Every
    /// "differs" verdict must carry its reason; the reproduction engine and
    /// `cargo xtask report-check` reject reports that hold such a check.
    pub fn is_unexplained(&self) -> bool {
        self.verdict == Verdict::Differs
            && match self.reason.as_deref() {
                Some(r) => r.trim().is_empty(),
                None => true,
            }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdicts() {
        assert_eq!(
            Check::numeric("a", "", 1.0, Some(1.0), 0.0).verdict,
            Verdict::Match
        );
        assert_eq!(
            Check::numeric("a", "", 1.04, Some(1.0), 0.05).verdict,
            Verdict::WithinTolerance
        );
        assert_eq!(
            Check::numeric("a", "", 1.06, Some(1.0), 0.05).verdict,
            Verdict::Differs
        );
        assert_eq!(
            Check::numeric("a", "", 1.06, None, 0.05).verdict,
            Verdict::NotPublished
        );
        assert_eq!(
            Check::relative("a", "", 105.0, 100.0, 0.1).verdict,
            Verdict::WithinTolerance
        );
        assert_eq!(Check::claim("a", "", false, "no").verdict, Verdict::Differs);
    }

    #[test]
    fn unexplained_means_differs_without_a_reason() {
        let differs = Check::numeric("a", "", 2.0, Some(1.0), 0.1);
        assert!(differs.is_unexplained());
        assert!(differs.clone().with_reason("  ").is_unexplained());
        assert!(!differs.clone().with_reason("why").is_unexplained());
        assert!(!differs.with_reason_if_differs("why").is_unexplained());
        let holds = Check::numeric("a", "", 1.0, Some(1.0), 0.1).with_reason_if_differs("why");
        assert!(!holds.is_unexplained());
        assert_eq!(holds.reason, None);
    }
}
