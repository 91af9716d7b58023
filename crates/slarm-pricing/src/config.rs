//! The cluster and the options of a time-shared run (Yeo & Buyya, §VI): the nodes, the
//! admission options of Algorithm 1 and the job control of Algorithm 2. Both the live cluster
//! ([`crate::online::Cluster`]) and the whole-workload simulation
//! ([`crate::timeshare::simulate_time_shared`]) start from it.

use crate::admission::AdmissionConfig;
use crate::error::{PricingError, Result};
use crate::node::{JobControl, Node};

/// The cluster and the options of the time-shared simulation, built by
/// [`TimeSharedConfig::new`] or [`homogeneous`](TimeSharedConfig::homogeneous) and changed with
/// the `with_*` methods (also validated when deserialized).
///
/// ```
/// use slarm_pricing::node::{JobControl, RateMode};
/// use slarm_pricing::timeshare::TimeSharedConfig;
///
/// let cfg = TimeSharedConfig::homogeneous(4, 168.0)?
///     .with_control(JobControl::default().with_rate_mode(RateMode::WorkConserving));
/// assert_eq!(cfg.nodes().len(), 4);
/// assert!(TimeSharedConfig::new(vec![], *cfg.admission(), *cfg.control()).is_err());
/// # Ok::<(), slarm_pricing::PricingError>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(try_from = "TimeSharedConfigRaw"))]
pub struct TimeSharedConfig {
    pub(crate) nodes: Vec<Node>,
    pub(crate) admission: AdmissionConfig,
    pub(crate) control: JobControl,
}

/// The fields of [`TimeSharedConfig`], for deserialization (each one is validated by its own
/// type; the node list is checked here).
#[cfg(feature = "serde")]
#[derive(serde::Deserialize)]
struct TimeSharedConfigRaw {
    nodes: Vec<Node>,
    admission: AdmissionConfig,
    control: JobControl,
}

#[cfg(feature = "serde")]
impl TryFrom<TimeSharedConfigRaw> for TimeSharedConfig {
    type Error = PricingError;
    fn try_from(r: TimeSharedConfigRaw) -> Result<Self> {
        Self::new(r.nodes, r.admission, r.control)
    }
}

impl TimeSharedConfig {
    /// A validated configuration: at least one node, and every part as in
    /// [`validate`](Self::validate).
    pub fn new(nodes: Vec<Node>, admission: AdmissionConfig, control: JobControl) -> Result<Self> {
        if nodes.is_empty() {
            return Err(PricingError::InvalidParameter {
                name: "nodes",
                value: 0.0,
                reason: "need at least one node",
            });
        }
        let cfg = Self {
            nodes,
            admission,
            control,
        };
        cfg.validate()?;
        Ok(cfg)
    }

    /// The compute nodes.
    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }

    /// Algorithm 1 options.
    pub fn admission(&self) -> &AdmissionConfig {
        &self.admission
    }

    /// Algorithm 2 / node-model options.
    pub fn control(&self) -> &JobControl {
        &self.control
    }

    /// The same cluster with other admission options.
    pub fn with_admission(self, admission: AdmissionConfig) -> Self {
        Self { admission, ..self }
    }

    /// The same cluster with other job-control options.
    pub fn with_control(self, control: JobControl) -> Self {
        Self { control, ..self }
    }

    /// `count` homogeneous nodes of `rating` with the default options (rating = reference).
    pub fn homogeneous(count: usize, rating: f64) -> Result<Self> {
        if count == 0 {
            return Err(PricingError::InvalidParameter {
                name: "nodes",
                value: 0.0,
                reason: "need at least one node",
            });
        }
        Ok(Self {
            nodes: (0..count)
                .map(|i| Node::new(i, rating))
                .collect::<Result<_>>()?,
            admission: AdmissionConfig {
                reference_rating: rating,
                ..AdmissionConfig::default()
            },
            control: JobControl::default(),
        })
    }

    /// Checks every option: the node ratings (finite, > 0) and capacities (>= 0, infinity
    /// allowed), [`AdmissionConfig::validate`] and [`JobControl::validate`]; always true of a
    /// config built by this crate's constructors. [`Cluster::new`](crate::online::Cluster::new) and
    /// [`simulate_time_shared`](crate::timeshare::simulate_time_shared) call it.
    pub fn validate(&self) -> Result<()> {
        for n in &self.nodes {
            n.validate()?;
        }
        self.admission.validate()?;
        self.control.validate()
    }
}
