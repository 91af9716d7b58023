//! What the BoT schedulers see of the grid: the state of every site's local resource manager
//! and the [`Dispatch`] interface through which they submit tasks (Yigitbasi & Epema 2010,
//! §IV-A and §IV-B).

use std::collections::{BTreeMap, VecDeque};

use crate::error::Result;
use crate::platform::SiteKind;

/// A running job as the schedulers see it.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct RunningJob {
    /// Start time.
    pub start_s: f64,
    /// Processors held.
    pub procs: u64,
    /// BoT task (true) or background job.
    pub is_task: bool,
}

/// A queued job as the schedulers see it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct QueuedJob {
    pub(crate) id: usize,
    /// Processors needed.
    pub procs: u64,
    /// BoT task (true) or background job.
    pub is_task: bool,
}

/// State of one site's local resource manager (FCFS, no backfilling, no preemption).
#[derive(Debug, Clone, PartialEq)]
pub struct SiteState {
    pub(crate) speed_ghz: f64,
    pub(crate) kind: SiteKind,
    pub(crate) size: u64,
    pub(crate) used: u64,
    pub(crate) queued_demand: u64,
    pub(crate) queue: VecDeque<QueuedJob>,
    pub(crate) running: BTreeMap<usize, RunningJob>,
}

impl SiteState {
    pub(crate) fn new(size: u64, speed_ghz: f64, kind: SiteKind) -> Self {
        Self {
            speed_ghz,
            kind,
            size,
            used: 0,
            queued_demand: 0,
            queue: VecDeque::new(),
            running: BTreeMap::new(),
        }
    }
    /// Ready processors.
    pub fn size(&self) -> u64 {
        self.size
    }
    /// Busy processors.
    pub fn used(&self) -> u64 {
        self.used
    }
    /// Processors requested by queued jobs.
    pub fn queued_demand(&self) -> u64 {
        self.queued_demand
    }
    /// Processor speed, GHz.
    pub fn speed_ghz(&self) -> f64 {
        self.speed_ghz
    }
    /// Grid or cloud.
    pub fn kind(&self) -> SiteKind {
        self.kind
    }
    /// Running jobs.
    pub fn running(&self) -> impl Iterator<Item = &RunningJob> {
        self.running.values()
    }
    /// Queued jobs in FCFS order.
    pub fn queued(&self) -> impl Iterator<Item = &QueuedJob> {
        self.queue.iter()
    }
}

/// What a scheduler may read and do while placing a BoT.
pub trait Dispatch {
    /// Current time.
    fn now(&self) -> f64;
    /// Sites in index order (the cloud pool, if any, is last).
    fn sites(&self) -> &[SiteState];
    /// Current runtime prediction (reference processor) of the last-two-average predictor.
    fn predicted_runtime_s(&self) -> f64;
    /// Reference speed, GHz.
    fn reference_speed_ghz(&self) -> f64;
    /// Submits task `task` of the BoT being placed to `site`'s LRM.
    fn submit(&mut self, site: usize, task: usize) -> Result<()>;
}
