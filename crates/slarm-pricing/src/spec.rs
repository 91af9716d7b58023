//! The user-level job submission specification (Yeo & Buyya, §IV, eqs. 1-2) and urgency
//! classes.
//!
//! `job_i([JobDetails][ResourceRequirements][QoSConstraints][QoSOptimization])`, extensible by
//! further named segments. The mechanisms use the simplified form {RE, MEM, DISK, PROC, D, B};
//! the QoS-optimisation segment is kept but ignored by the allocator, as in the paper (§VI.A).

use std::collections::BTreeMap;

use crate::error::{PricingError, Result};
use slarm_stats::check;
use slarm_workload::sla;

/// How long the job runs on a node with full processing power (§IV, JobDetails).
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum JobLength {
    /// Runtime estimate RE in seconds on a node of the reference rating.
    RuntimeEstimate(f64),
    /// Job length in million instructions (MI); seconds on a node = MI / rating.
    LengthMi(f64),
}

/// The JobDetails segment.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct JobDetails {
    /// The job's length.
    pub length: JobLength,
}

/// The ResourceRequirements segment: memory, disk (in any consistent units) and processors.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ResourceRequirements {
    /// Local physical memory needed on each allocated node.
    pub mem: f64,
    /// Local disk space needed on each allocated node.
    pub disk: f64,
    /// Number of processors (= compute nodes in the evaluation).
    pub procs: u32,
}

/// The QoSConstraints segment.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct QosConstraints {
    /// Relative deadline D (seconds after arrival; DT = AT + D).
    pub deadline: f64,
    /// Budget B: what the user pays at most for the deadline to be met.
    pub budget: f64,
}

/// The QoSOptimization segment (specified in §IV but not used by the mechanisms, §VI.A).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum QosOptimization {
    /// No optimisation requested (the simplified specification of the evaluation).
    None,
    /// Finish as early as possible within the budget.
    MinFinishTime,
    /// Pay the lowest cost provided the QoS is satisfied.
    MinCost,
}

/// A further segment of the extensible specification (eq. 1), e.g. data dependencies.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ExtraSegment {
    /// Segment name.
    pub name: String,
    /// Named numeric parameters.
    pub params: BTreeMap<String, f64>,
}

/// A validated job submission specification (eq. 2 plus optional extra segments).
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct JobSpec {
    /// Job id.
    pub id: u64,
    /// JobDetails.
    pub details: JobDetails,
    /// ResourceRequirements.
    pub resources: ResourceRequirements,
    /// QoSConstraints.
    pub qos: QosConstraints,
    /// QoSOptimization.
    pub optimization: QosOptimization,
    /// Extra segments (eq. 1 is extensible).
    pub extra: Vec<ExtraSegment>,
}

impl JobSpec {
    /// A job with a runtime estimate (seconds on the reference node), `procs` processors, a
    /// relative deadline and a budget; no memory/disk needs and no optimisation goal.
    ///
    /// ```
    /// use slarm_pricing::spec::JobSpec;
    /// let j = JobSpec::simple(1, 100.0, 4, 800.0, 200.0).unwrap();
    /// assert_eq!(j.resources.procs, 4);
    /// assert!(JobSpec::simple(1, 100.0, 4, 50.0, 200.0).is_err()); // D < RE
    /// ```
    pub fn simple(id: u64, estimate: f64, procs: u32, deadline: f64, budget: f64) -> Result<Self> {
        Self::new(
            id,
            JobDetails {
                length: JobLength::RuntimeEstimate(estimate),
            },
            ResourceRequirements {
                mem: 0.0,
                disk: 0.0,
                procs,
            },
            QosConstraints { deadline, budget },
            QosOptimization::None,
        )
    }

    /// A validated specification: lengths, deadline and budget finite and > 0, memory and
    /// disk finite and >= 0, at least one processor. A deadline shorter than the estimate is
    /// rejected here only for `RuntimeEstimate` lengths (the job could never meet it on a
    /// reference node).
    pub fn new(
        id: u64,
        details: JobDetails,
        resources: ResourceRequirements,
        qos: QosConstraints,
        optimization: QosOptimization,
    ) -> Result<Self> {
        let spec = Self {
            id,
            details,
            resources,
            qos,
            optimization,
            extra: Vec::new(),
        };
        spec.validate()?;
        Ok(spec)
    }

    /// Checks every segment (eq. 2): JobDetails (length > 0), ResourceRequirements (memory
    /// and disk >= 0, processors >= 1), QoSConstraints (deadline and budget > 0, deadline
    /// not shorter than a runtime estimate), QoSOptimization (any goal) and the extra
    /// segments (non-empty names, finite parameters). For specifications built by hand or
    /// deserialised.
    ///
    /// ```
    /// use slarm_pricing::spec::JobSpec;
    /// let mut j = JobSpec::simple(1, 100.0, 4, 800.0, 200.0).unwrap();
    /// j.qos.budget = -1.0;
    /// assert!(j.validate().is_err());
    /// ```
    pub fn validate(&self) -> Result<()> {
        match self.details.length {
            JobLength::RuntimeEstimate(re) => check::positive("runtime estimate", re)?,
            JobLength::LengthMi(mi) => check::positive("job length (MI)", mi)?,
        };
        check::non_negative("memory requirement", self.resources.mem)?;
        check::non_negative("disk requirement", self.resources.disk)?;
        let invalid = |reason: String| PricingError::InvalidJob {
            job: self.id,
            reason,
        };
        if self.resources.procs == 0 {
            return Err(invalid("needs at least one processor".into()));
        }
        check::positive("deadline", self.qos.deadline)?;
        check::positive("budget", self.qos.budget)?;
        if let JobLength::RuntimeEstimate(re) = self.details.length {
            if self.qos.deadline < re {
                return Err(invalid(format!(
                    "deadline {} s is shorter than its estimate {re} s",
                    self.qos.deadline
                )));
            }
        }
        for seg in &self.extra {
            if seg.name.trim().is_empty() {
                return Err(invalid("an extra segment has an empty name".into()));
            }
            if let Some((k, v)) = seg.params.iter().find(|(_, v)| !v.is_finite()) {
                return Err(invalid(format!(
                    "segment {}: parameter {k} = {v} is not finite",
                    seg.name
                )));
            }
        }
        Ok(())
    }

    /// Adds an extra segment (eq. 1), validated like [`validate`](Self::validate).
    pub fn with_segment(mut self, segment: ExtraSegment) -> Result<Self> {
        self.extra.push(segment);
        self.validate()?;
        Ok(self)
    }

    /// The runtime estimate RE_ij on a node of `rating`, given the reference rating the
    /// estimate refers to (heterogeneous translation, §VI.A assumption 5).
    pub fn estimate_on(&self, rating: f64, reference_rating: f64) -> f64 {
        match self.details.length {
            JobLength::RuntimeEstimate(re) => re * reference_rating / rating,
            JobLength::LengthMi(mi) => mi / rating,
        }
    }
}

/// Urgency class of a job (§VII.B).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum UrgencyClass {
    /// Short deadline, large budget.
    High,
    /// Long deadline, small budget.
    Low,
}

impl From<UrgencyClass> for sla::Urgency {
    /// The workload crate's urgency of a pricing class.
    fn from(u: UrgencyClass) -> Self {
        match u {
            UrgencyClass::High => sla::Urgency::High,
            UrgencyClass::Low => sla::Urgency::Low,
        }
    }
}

impl From<sla::Urgency> for UrgencyClass {
    /// The pricing class of the workload crate's urgency.
    fn from(u: sla::Urgency) -> Self {
        match u {
            sla::Urgency::High => UrgencyClass::High,
            sla::Urgency::Low => UrgencyClass::Low,
        }
    }
}

impl std::str::FromStr for UrgencyClass {
    type Err = PricingError;
    /// Parses `high` or `low`.
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "high" => Ok(UrgencyClass::High),
            "low" => Ok(UrgencyClass::Low),
            _ => Err(PricingError::UnknownName {
                what: "urgency class",
                input: s.to_string(),
                expected: "high or low",
            }),
        }
    }
}

/// The former name of [`UrgencyClass`].
#[deprecated(since = "0.1.0", note = "renamed to `UrgencyClass`")]
pub type Urgency = UrgencyClass;

/// A submitted job of a simulation: its specification, arrival time, real runtime and class.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct QosJob {
    /// The submission specification (RE, procs, D, B, ...).
    pub spec: JobSpec,
    /// Arrival time AT (seconds).
    pub arrival: f64,
    /// Real runtime R on a reference node (seconds); RE may under-estimate it.
    pub runtime: f64,
    /// Urgency class.
    pub urgency: UrgencyClass,
}

/// The former name of [`QosJob`].
#[deprecated(since = "0.1.0", note = "renamed to `QosJob`")]
pub type Job = QosJob;

impl QosJob {
    /// A validated job: arrival finite and >= 0, runtime finite and > 0.
    pub fn new(spec: JobSpec, arrival: f64, runtime: f64, urgency: UrgencyClass) -> Result<Self> {
        check::non_negative("arrival time", arrival)?;
        check::positive("runtime", runtime)?;
        Ok(Self {
            spec,
            arrival,
            runtime,
            urgency,
        })
    }

    /// Absolute deadline DT = AT + D.
    pub fn absolute_deadline(&self) -> f64 {
        self.arrival + self.spec.qos.deadline
    }

    /// Runtime estimate on a reference node.
    pub fn estimate(&self) -> f64 {
        self.spec.estimate_on(1.0, 1.0)
    }

    /// Processors requested.
    pub fn procs(&self) -> u32 {
        self.spec.resources.procs
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn validation_rejects_bad_specs() {
        assert!(JobSpec::simple(1, 10.0, 1, 20.0, 5.0).is_ok());
        assert!(JobSpec::simple(1, f64::NAN, 1, 20.0, 5.0).is_err());
        assert!(JobSpec::simple(1, -1.0, 1, 20.0, 5.0).is_err());
        assert!(JobSpec::simple(1, 10.0, 0, 20.0, 5.0).is_err());
        assert!(JobSpec::simple(1, 10.0, 1, 20.0, 0.0).is_err());
        assert!(JobSpec::simple(1, 10.0, 1, 5.0, 5.0).is_err());
        let j = JobSpec::simple(1, 10.0, 1, 20.0, 5.0).unwrap();
        assert!(QosJob::new(j.clone(), -1.0, 10.0, UrgencyClass::Low).is_err());
        assert!(QosJob::new(j.clone(), 0.0, 0.0, UrgencyClass::Low).is_err());
        let job = QosJob::new(j, 5.0, 10.0, UrgencyClass::High).unwrap();
        assert_eq!(job.absolute_deadline(), 25.0);
    }

    #[test]
    fn every_segment_is_validated() {
        let ok = JobSpec::simple(7, 10.0, 2, 20.0, 5.0).unwrap();
        let broken = |f: &dyn Fn(&mut JobSpec)| {
            let mut j = ok.clone();
            f(&mut j);
            j.validate()
        };
        // JobDetails
        assert!(matches!(
            broken(&|j| j.details.length = JobLength::LengthMi(0.0)),
            Err(PricingError::NotPositive {
                what: "job length (MI)",
                ..
            })
        ));
        assert!(matches!(
            broken(&|j| j.details.length = JobLength::RuntimeEstimate(f64::INFINITY)),
            Err(PricingError::NonFinite { .. })
        ));
        // ResourceRequirements
        assert!(matches!(
            broken(&|j| j.resources.mem = -1.0),
            Err(PricingError::Negative {
                what: "memory requirement",
                ..
            })
        ));
        assert!(matches!(
            broken(&|j| j.resources.disk = f64::NAN),
            Err(PricingError::NonFinite {
                what: "disk requirement",
                ..
            })
        ));
        assert!(matches!(
            broken(&|j| j.resources.procs = 0),
            Err(PricingError::InvalidJob { job: 7, .. })
        ));
        // QoSConstraints
        assert!(matches!(
            broken(&|j| j.qos.deadline = 0.0),
            Err(PricingError::NotPositive {
                what: "deadline",
                ..
            })
        ));
        assert!(matches!(
            broken(&|j| j.qos.budget = f64::NEG_INFINITY),
            Err(PricingError::NonFinite { what: "budget", .. })
        ));
        assert!(matches!(
            broken(&|j| j.qos.deadline = 9.0),
            Err(PricingError::InvalidJob { job: 7, .. })
        ));
        // A length in MI cannot be compared with the deadline before a node is chosen.
        assert!(broken(&|j| {
            j.details.length = JobLength::LengthMi(1e9);
            j.qos.deadline = 1.0;
        })
        .is_ok());
        // QoSOptimization: every goal is admissible.
        for goal in [
            QosOptimization::None,
            QosOptimization::MinFinishTime,
            QosOptimization::MinCost,
        ] {
            assert!(broken(&|j| j.optimization = goal).is_ok());
        }
        // Extra segments.
        let seg = |name: &str, v: f64| ExtraSegment {
            name: name.into(),
            params: BTreeMap::from([("size".to_string(), v)]),
        };
        assert!(ok.clone().with_segment(seg("data", 3.0)).is_ok());
        assert!(ok.clone().with_segment(seg(" ", 3.0)).is_err());
        assert!(ok.clone().with_segment(seg("data", f64::NAN)).is_err());
    }

    /// A deserialised specification is checked by `validate`.
    #[cfg(feature = "serde")]
    #[test]
    fn deserialised_spec_is_validated() {
        let ok = JobSpec::simple(1, 100.0, 2, 300.0, 5.0).unwrap();
        let json = serde_json::to_string(&ok)
            .unwrap()
            .replace("\"budget\":5.0", "\"budget\":-5.0");
        assert!(json.contains("\"budget\":-5.0"), "{json}");
        let back: JobSpec = serde_json::from_str(&json).unwrap();
        assert!(back.validate().is_err());
    }

    #[test]
    fn heterogeneous_translation_and_mi() {
        let j = JobSpec::simple(1, 168.0, 1, 400.0, 5.0).unwrap();
        assert!((j.estimate_on(336.0, 168.0) - 84.0).abs() < 1e-12);
        let mi = JobSpec::new(
            2,
            JobDetails {
                length: JobLength::LengthMi(168.0 * 10.0),
            },
            ResourceRequirements {
                mem: 1.0,
                disk: 2.0,
                procs: 1,
            },
            QosConstraints {
                deadline: 20.0,
                budget: 1.0,
            },
            QosOptimization::MinCost,
        )
        .unwrap()
        .with_segment(ExtraSegment {
            name: "data".into(),
            params: BTreeMap::new(),
        })
        .unwrap();
        assert!((mi.estimate_on(168.0, 168.0) - 10.0).abs() < 1e-12);
        assert_eq!(mi.extra.len(), 1);
    }
}
