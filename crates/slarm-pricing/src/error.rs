//! The error type of `slarm-pricing`.

use thiserror::Error;

/// Everything that can go wrong when building or running a pricing / admission model.
#[derive(Debug, Clone, PartialEq, Error)]
#[non_exhaustive]
pub enum PricingError {
    /// A value that must be finite was NaN or infinite.
    #[error("{what} must be finite, got {value}")]
    NonFinite {
        /// Which quantity was bad.
        what: &'static str,
        /// The offending value.
        value: f64,
    },
    /// A value that must be strictly positive was zero or negative.
    #[error("{what} must be > 0, got {value}")]
    NotPositive {
        /// Which quantity was bad.
        what: &'static str,
        /// The offending value.
        value: f64,
    },
    /// A value that must be non-negative was negative.
    #[error("{what} must be >= 0, got {value}")]
    Negative {
        /// Which quantity was bad.
        what: &'static str,
        /// The offending value.
        value: f64,
    },
    /// A parameter lies outside its admissible range.
    #[error("invalid {name} = {value}: {reason}")]
    InvalidParameter {
        /// Parameter name.
        name: &'static str,
        /// The offending value.
        value: f64,
        /// Why it is not admissible.
        reason: &'static str,
    },
    /// The free amount of a resource over the pricing window is not positive, so the
    /// utilisation rate of eq. (4) is unbounded (admission must check sufficiency first).
    #[error("no free {resource} in the pricing window (free = {free}); eq. (4) is unbounded")]
    NoFreeResource {
        /// Which resource.
        resource: &'static str,
        /// The free amount RESFree (<= 0).
        free: f64,
    },
    /// A job specification is inconsistent (e.g. its deadline is shorter than its estimate).
    #[error("job {job}: {reason}")]
    InvalidJob {
        /// Job id.
        job: u64,
        /// What is wrong.
        reason: String,
    },
    /// A workload is empty or unusable.
    #[error("workload: {0}")]
    Workload(String),
    /// `slarm-workload` refused a trace (reading, cleaning); the source is kept.
    #[error("workload: {0}")]
    Trace(#[from] slarm_workload::WorkloadError),
    /// A simulation lost track of a job (an internal invariant, reported rather than panicking).
    #[error("space-shared simulation: {0}")]
    Simulation(String),
    /// A name read from text (a policy, a lapse rule, an urgency class) is not one of the
    /// accepted spellings.
    #[error("unknown {what} {input:?} (expected {expected})")]
    UnknownName {
        /// What was being parsed.
        what: &'static str,
        /// The input.
        input: String,
        /// The accepted spellings.
        expected: &'static str,
    },
    /// The space-shared simulator (`slarm-sim`) refused its input; the source is kept.
    #[error("space-shared simulation: {0}")]
    Sim(#[from] slarm_sim::SimError),
}

/// Result alias of this crate.
pub type Result<T> = std::result::Result<T, PricingError>;

impl From<slarm_stats::check::CheckError> for PricingError {
    /// A failed [`slarm_stats::check`] validator: [`PricingError::NonFinite`],
    /// [`PricingError::NotPositive`] or [`PricingError::Negative`] by the broken requirement,
    /// [`PricingError::InvalidParameter`] for any other range.
    fn from(e: slarm_stats::check::CheckError) -> Self {
        use slarm_stats::check::Requirement;
        let (what, value) = (e.name(), e.value());
        match e.requirement() {
            Requirement::Finite => PricingError::NonFinite { what, value },
            Requirement::Positive => PricingError::NotPositive { what, value },
            Requirement::NonNegative => PricingError::Negative { what, value },
            r => PricingError::InvalidParameter {
                name: what,
                value,
                reason: r.reason(),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use slarm_stats::check;

    fn positive(what: &'static str, value: f64) -> Result<f64> {
        Ok(check::positive(what, value)?)
    }

    fn non_negative(what: &'static str, value: f64) -> Result<f64> {
        Ok(check::non_negative(what, value)?)
    }

    /// The shared validators keep this crate's error variants.
    #[test]
    fn validators() {
        assert!(positive("x", 1.0).is_ok());
        assert!(matches!(
            positive("x", 0.0),
            Err(PricingError::NotPositive { .. })
        ));
        assert!(matches!(
            positive("x", f64::NAN),
            Err(PricingError::NonFinite { .. })
        ));
        assert!(non_negative("x", 0.0).is_ok());
        assert!(matches!(
            non_negative("x", -1.0),
            Err(PricingError::Negative { .. })
        ));
        assert!(matches!(
            non_negative("x", f64::INFINITY),
            Err(PricingError::NonFinite { .. })
        ));
    }
}
