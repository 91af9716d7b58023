//! The user-level job submission specification (spec §1.3, eqs. 1-2) and urgency classes.
//!
//! `job_i([JobDetails][ResourceRequirements][QoSConstraints][QoSOptimization])`, extensible by
//! further named segments. The mechanisms use the simplified form {RE, MEM, DISK, PROC, D, B};
//! the QoS-optimisation segment is kept but ignored by the allocator (spec §5.18).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::error::{non_negative, positive, PricingError, Result};

/// How long the job runs on a node with full processing power (spec §1.3, JobDetails).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum JobLength {
    /// Runtime estimate RE in seconds on a node of the reference rating.
    RuntimeEstimate(f64),
    /// Job length in million instructions (MI); seconds on a node = MI / rating.
    LengthMi(f64),
}

/// The JobDetails segment.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct JobDetails {
    /// The job's length.
    pub length: JobLength,
}

/// The ResourceRequirements segment: memory, disk (in any consistent units) and processors.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ResourceRequirements {
    /// Local physical memory needed on each allocated node.
    pub mem: f64,
    /// Local disk space needed on each allocated node.
    pub disk: f64,
    /// Number of processors (= compute nodes in the evaluation).
    pub procs: u32,
}

/// The QoSConstraints segment.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct QosConstraints {
    /// Relative deadline D (seconds after arrival; DT = AT + D).
    pub deadline: f64,
    /// Budget B: what the user pays at most for the deadline to be met.
    pub budget: f64,
}

/// The QoSOptimization segment (specified but not used by the mechanisms, spec §5.18).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum QosOptimization {
    /// No optimisation requested (the simplified specification of the evaluation).
    None,
    /// Finish as early as possible within the budget.
    MinFinishTime,
    /// Pay the lowest cost provided the QoS is satisfied.
    MinCost,
}

/// A further segment of the extensible specification (eq. 1), e.g. data dependencies.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExtraSegment {
    /// Segment name.
    pub name: String,
    /// Named numeric parameters.
    pub params: BTreeMap<String, f64>,
}

/// A validated job submission specification (eq. 2 plus optional extra segments).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
    /// disk >= 0, at least one processor. A deadline shorter than the estimate is rejected
    /// here only for `RuntimeEstimate` lengths (the job could never meet it on a reference node).
    pub fn new(
        id: u64,
        details: JobDetails,
        resources: ResourceRequirements,
        qos: QosConstraints,
        optimization: QosOptimization,
    ) -> Result<Self> {
        match details.length {
            JobLength::RuntimeEstimate(re) => positive("runtime estimate", re)?,
            JobLength::LengthMi(mi) => positive("job length (MI)", mi)?,
        };
        non_negative("memory requirement", resources.mem)?;
        non_negative("disk requirement", resources.disk)?;
        if resources.procs == 0 {
            return Err(PricingError::InvalidJob {
                job: id,
                reason: "needs at least one processor".into(),
            });
        }
        positive("deadline", qos.deadline)?;
        positive("budget", qos.budget)?;
        if let JobLength::RuntimeEstimate(re) = details.length {
            if qos.deadline < re {
                return Err(PricingError::InvalidJob {
                    job: id,
                    reason: format!(
                        "deadline {} s is shorter than its estimate {re} s",
                        qos.deadline
                    ),
                });
            }
        }
        Ok(Self {
            id,
            details,
            resources,
            qos,
            optimization,
            extra: Vec::new(),
        })
    }

    /// Adds an extra segment (eq. 1).
    pub fn with_segment(mut self, segment: ExtraSegment) -> Self {
        self.extra.push(segment);
        self
    }

    /// The runtime estimate RE_ij on a node of `rating`, given the reference rating the
    /// estimate refers to (heterogeneous translation, spec §1.4 item 5).
    pub fn estimate_on(&self, rating: f64, reference_rating: f64) -> f64 {
        match self.details.length {
            JobLength::RuntimeEstimate(re) => re * reference_rating / rating,
            JobLength::LengthMi(mi) => mi / rating,
        }
    }
}

/// Urgency class of a job (spec §3.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Urgency {
    /// Short deadline, large budget.
    High,
    /// Long deadline, small budget.
    Low,
}

/// A submitted job of a simulation: its specification, arrival time, real runtime and class.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Job {
    /// The submission specification (RE, procs, D, B, ...).
    pub spec: JobSpec,
    /// Arrival time AT (seconds).
    pub arrival: f64,
    /// Real runtime R on a reference node (seconds); RE may under-estimate it.
    pub runtime: f64,
    /// Urgency class.
    pub urgency: Urgency,
}

impl Job {
    /// A validated job: arrival finite and >= 0, runtime finite and > 0.
    pub fn new(spec: JobSpec, arrival: f64, runtime: f64, urgency: Urgency) -> Result<Self> {
        non_negative("arrival time", arrival)?;
        positive("runtime", runtime)?;
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
        assert!(Job::new(j.clone(), -1.0, 10.0, Urgency::Low).is_err());
        assert!(Job::new(j.clone(), 0.0, 0.0, Urgency::Low).is_err());
        let job = Job::new(j, 5.0, 10.0, Urgency::High).unwrap();
        assert_eq!(job.absolute_deadline(), 25.0);
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
        });
        assert!((mi.estimate_on(168.0, 168.0) - 10.0).abs() < 1e-12);
        assert_eq!(mi.extra.len(), 1);
    }
}
