//! Economy-based admission control and resource allocation (Algorithm 1 of Yeo & Buyya,
//! §VI.A).
//!
//! Nodes that have the memory and disk (line 2) and can still finish the job by its
//! deadline under proportional share (line 10) are sorted by RESFree ascending (best fit,
//! ties by node id); the first PROC_i of them whose per-node cost `RE_i·P_ij` fits the
//! budget are allocated, and the job is charged the maximum of those per-node costs.

use crate::error::Result;
use crate::node::{CommitMode, Process, TimeSharedNode};
use crate::pricing::{PriceQuote, PricingPolicy, ResourceWindow};
use crate::spec::QosJob;

pub use crate::node::SHARE_EPS;

/// Why a job was rejected.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
#[non_exhaustive]
pub enum RejectReason {
    /// Fewer than PROC_i nodes have the memory/disk (Algorithm 1 line 6).
    CannotMeetResources,
    /// Fewer than PROC_i nodes can finish it by its deadline (line 14).
    CannotMeetDeadline,
    /// Fewer than PROC_i deadline-feasible nodes are within budget (line 30).
    CannotMeetBudget,
    /// Its deadline lapsed while it waited in a backfilling queue (§VII.B).
    DeadlineLapsedInQueue,
}

impl RejectReason {
    /// All reasons, in a stable order.
    pub const ALL: [RejectReason; 4] = [
        RejectReason::CannotMeetResources,
        RejectReason::CannotMeetDeadline,
        RejectReason::CannotMeetBudget,
        RejectReason::DeadlineLapsedInQueue,
    ];

    /// snake_case name, as in JSON.
    pub fn name(self) -> &'static str {
        match self {
            RejectReason::CannotMeetResources => "cannot_meet_resources",
            RejectReason::CannotMeetDeadline => "cannot_meet_deadline",
            RejectReason::CannotMeetBudget => "cannot_meet_budget",
            RejectReason::DeadlineLapsedInQueue => "deadline_lapsed_in_queue",
        }
    }
}

/// The deadline test of Algorithm 1 line 10 ("node j can finish job i with RE_i before
/// DT_i"), which the paper does not spell out. The default is Libra's proportional-share test.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum DeadlineTest {
    /// Σ current partitions + RE/D <= 1 (+EPS) and RESFree > 0 (default).
    ShareAndResFree,
    /// Only RESFree > 0.
    ResFreeOnly,
}

/// Options of Algorithm 1, built by [`AdmissionConfig::new`] or [`Default`] and changed with
/// the `with_*` methods (also validated when deserialized).
///
/// ```
/// use slarm_pricing::admission::{AdmissionConfig, DeadlineTest};
/// use slarm_pricing::node::CommitMode;
///
/// let cfg = AdmissionConfig::default().with_commit(CommitMode::RemainingEstimate);
/// assert_eq!(cfg.reference_rating(), 168.0);
/// assert!(cfg.with_reference_rating(f64::NAN).is_err());
/// assert!(AdmissionConfig::new(CommitMode::Windowed, DeadlineTest::ResFreeOnly, -1.0).is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(try_from = "AdmissionConfigRaw"))]
pub struct AdmissionConfig {
    pub(crate) commit: CommitMode,
    pub(crate) deadline_test: DeadlineTest,
    pub(crate) reference_rating: f64,
}

/// The unvalidated fields of [`AdmissionConfig`], for deserialization.
#[cfg(feature = "serde")]
#[derive(serde::Deserialize)]
struct AdmissionConfigRaw {
    commit: CommitMode,
    deadline_test: DeadlineTest,
    reference_rating: f64,
}

#[cfg(feature = "serde")]
impl TryFrom<AdmissionConfigRaw> for AdmissionConfig {
    type Error = crate::error::PricingError;
    fn try_from(r: AdmissionConfigRaw) -> Result<Self> {
        Self::new(r.commit, r.deadline_test, r.reference_rating)
    }
}

impl Default for AdmissionConfig {
    fn default() -> Self {
        Self {
            commit: CommitMode::Windowed,
            deadline_test: DeadlineTest::ShareAndResFree,
            reference_rating: 168.0,
        }
    }
}

impl AdmissionConfig {
    /// Validated options: the reference rating must be finite and > 0.
    pub fn new(
        commit: CommitMode,
        deadline_test: DeadlineTest,
        reference_rating: f64,
    ) -> Result<Self> {
        slarm_stats::check::positive("reference rating", reference_rating)?;
        Ok(Self {
            commit,
            deadline_test,
            reference_rating,
        })
    }

    /// What counts as committed in RESFree.
    pub fn commit(&self) -> CommitMode {
        self.commit
    }

    /// The line-10 test.
    pub fn deadline_test(&self) -> DeadlineTest {
        self.deadline_test
    }

    /// The rating RE refers to (168 in the evaluation).
    pub fn reference_rating(&self) -> f64 {
        self.reference_rating
    }

    /// The same options with another commit mode.
    pub fn with_commit(self, commit: CommitMode) -> Self {
        Self { commit, ..self }
    }

    /// The same options with another line-10 test.
    pub fn with_deadline_test(self, deadline_test: DeadlineTest) -> Self {
        Self {
            deadline_test,
            ..self
        }
    }

    /// The same options with another reference rating (validated).
    pub fn with_reference_rating(self, reference_rating: f64) -> Result<Self> {
        Self::new(self.commit, self.deadline_test, reference_rating)
    }

    /// Checks the reference rating (finite, > 0); always true of a value built by this
    /// crate's constructors.
    pub fn validate(&self) -> Result<()> {
        slarm_stats::check::positive("reference rating", self.reference_rating)?;
        Ok(())
    }
}

/// The outcome of Algorithm 1 for one job.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum Decision {
    /// Accepted on `nodes` (indices into the node slice) at cost C_i.
    Accept {
        /// Allocated nodes, in allocation (best-fit) order.
        nodes: Vec<usize>,
        /// C_i: the maximum per-node cost.
        cost: f64,
    },
    /// Rejected.
    Reject(RejectReason),
}

/// Runs Algorithm 1 for `job` at time `now` over `nodes` (already advanced to `now` and
/// controlled). Pure: places nothing; see [`place`].
///
/// ```
/// use slarm_pricing::admission::{admit, AdmissionConfig, Decision};
/// use slarm_pricing::node::{Node, TimeSharedNode};
/// use slarm_pricing::pricing::LibraPlusDollar;
/// use slarm_pricing::spec::{QosJob, JobSpec, UrgencyClass};
///
/// let nodes: Vec<_> = (0..2).map(|i| TimeSharedNode::new(Node::new(i, 168.0).unwrap())).collect();
/// let job = QosJob::new(JobSpec::simple(0, 100.0, 2, 800.0, 400.0).unwrap(), 0.0, 100.0, UrgencyClass::Low).unwrap();
/// let p = LibraPlusDollar::new(1.0, 0.1, 1.0).unwrap();
/// match admit(&job, 0.0, &nodes, &p, &AdmissionConfig::default()).unwrap() {
///     Decision::Accept { nodes, cost } => {
///         assert_eq!(nodes, vec![0, 1]);
///         assert!((cost - 100.0 * (1.0 + 0.1 * 800.0 / 700.0)).abs() < 1e-9);
///     }
///     Decision::Reject(r) => unreachable!("{r:?}"),
/// }
/// ```
pub fn admit<P: PricingPolicy + ?Sized>(
    job: &QosJob,
    now: f64,
    nodes: &[TimeSharedNode],
    pricing: &P,
    cfg: &AdmissionConfig,
) -> Result<Decision> {
    let procs = job.procs() as usize;
    let l_dl = match feasible_nodes(job, now, nodes, cfg) {
        Ok(l) => l,
        Err(reason) => return Ok(Decision::Reject(reason)),
    };
    // Lines 17-32: the per-node budget test in best-fit order.
    let mut alloc = Vec::with_capacity(procs);
    let mut cost = 0.0f64;
    for cand in &l_dl {
        let c = cand.cost(job, pricing)?;
        if c <= job.spec.qos.budget {
            alloc.push(cand.idx);
            if alloc.len() == 1 || c > cost {
                cost = c;
            }
        }
        if alloc.len() == procs {
            break;
        }
    }
    if alloc.len() < procs {
        return Ok(Decision::Reject(RejectReason::CannotMeetBudget));
    }
    Ok(Decision::Accept { nodes: alloc, cost })
}

/// The least budget with which Algorithm 1 would accept `job` at `now` on `nodes`: the
/// PROC_i-th smallest per-node cost `RE_ij·P_ij` over the deadline-feasible nodes (line 14).
/// A job offering exactly this budget is accepted and charged exactly this amount (C_i is
/// the maximum of PROC_i per-node costs, each within budget, lines 17-32); with less it is
/// rejected for its budget (line 30). A job offering more may pay more, since best fit
/// prefers fuller, dearer nodes. `Ok(Err(reason))` when no budget helps (line 6 or 14).
pub fn min_budget<P: PricingPolicy + ?Sized>(
    job: &QosJob,
    now: f64,
    nodes: &[TimeSharedNode],
    pricing: &P,
    cfg: &AdmissionConfig,
) -> Result<std::result::Result<f64, RejectReason>> {
    let procs = job.procs() as usize;
    let l_dl = match feasible_nodes(job, now, nodes, cfg) {
        Ok(l) => l,
        Err(reason) => return Ok(Err(reason)),
    };
    let mut costs = l_dl
        .iter()
        .map(|cand| cand.cost(job, pricing))
        .collect::<Result<Vec<f64>>>()?;
    costs.sort_by(f64::total_cmp);
    match procs.checked_sub(1).and_then(|k| costs.get(k)) {
        Some(&c) => Ok(Ok(c)),
        None => Ok(Err(RejectReason::CannotMeetDeadline)),
    }
}

/// A node that passed lines 1-14 of Algorithm 1, with what its price needs.
struct Candidate {
    idx: usize,
    free: f64,
    re: f64,
    committed: f64,
}

impl Candidate {
    /// `RE_ij · P_ij` on this node (eq. 6 for Libra+$).
    fn cost<P: PricingPolicy + ?Sized>(&self, job: &QosJob, pricing: &P) -> Result<f64> {
        let d = job.spec.qos.deadline;
        let quote = PriceQuote {
            estimate: self.re,
            deadline: d,
            cpu: ResourceWindow::new(d, self.committed, self.re)?,
        };
        pricing.cost(&quote)
    }
}

/// Lines 1-14 of Algorithm 1, then the best-fit order of lines 17-18: the nodes with the
/// memory and disk that can finish `job` by its deadline, by RESFree ascending (ties by node
/// id); or why fewer than PROC_i nodes qualify.
fn feasible_nodes(
    job: &QosJob,
    now: f64,
    nodes: &[TimeSharedNode],
    cfg: &AdmissionConfig,
) -> std::result::Result<Vec<Candidate>, RejectReason> {
    let procs = job.procs() as usize;
    let spec = &job.spec;
    let d = spec.qos.deadline;
    let window_end = now + d;
    let has_room = |n: &TimeSharedNode| {
        n.mem_free() >= spec.resources.mem && n.disk_free() >= spec.resources.disk
    };
    // Lines 1-6: static resource feasibility.
    let l_res = nodes.iter().filter(|n| has_room(n)).count();
    if l_res < procs {
        return Err(RejectReason::CannotMeetResources);
    }
    // Lines 9-14: deadline feasibility.
    let mut l_dl: Vec<Candidate> = Vec::with_capacity(l_res);
    for (idx, n) in nodes.iter().enumerate() {
        if !has_room(n) {
            continue;
        }
        let re = spec.estimate_on(n.node.rating, cfg.reference_rating);
        let committed = n.committed(window_end, cfg.commit);
        let free = d - committed - re;
        let share_ok = match cfg.deadline_test {
            DeadlineTest::ShareAndResFree => re <= d && n.demand_sum() + re / d <= 1.0 + SHARE_EPS,
            DeadlineTest::ResFreeOnly => true,
        };
        if share_ok && free > 0.0 {
            l_dl.push(Candidate {
                idx,
                free,
                re,
                committed,
            });
        }
    }
    if l_dl.len() < procs {
        return Err(RejectReason::CannotMeetDeadline);
    }
    // Lines 17-18: best fit by RESFree ascending, ties by node id.
    l_dl.sort_by(|a, b| a.free.total_cmp(&b.free).then(a.idx.cmp(&b.idx)));
    Ok(l_dl)
}

/// Starts one process of accepted job `job_index` on each of `alloc` (partition RE_ij/D_i).
pub fn place(
    job_index: usize,
    job: &QosJob,
    alloc: &[usize],
    nodes: &mut [TimeSharedNode],
    reference_rating: f64,
) {
    for &j in alloc {
        if let Some(n) = nodes.get_mut(j) {
            let scale = reference_rating / n.node.rating;
            let re = job.spec.estimate_on(n.node.rating, reference_rating);
            let mut p = Process::start(
                job_index,
                job.arrival,
                job.spec.qos.deadline,
                re,
                job.runtime * scale,
            );
            p.mem = job.spec.resources.mem;
            p.disk = job.spec.resources.disk;
            n.add(p);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::node::{JobControl, Node};
    use crate::pricing::{LibraPlusDollar, LibraStatic};
    use crate::spec::{
        JobDetails, JobLength, JobSpec, QosConstraints, QosOptimization, ResourceRequirements,
        UrgencyClass,
    };

    fn nodes(n: usize) -> Vec<TimeSharedNode> {
        (0..n)
            .map(|i| TimeSharedNode::new(Node::new(i, 168.0).unwrap()))
            .collect()
    }

    fn job(id: u64, re: f64, procs: u32, d: f64, b: f64) -> QosJob {
        QosJob::new(
            JobSpec::simple(id, re, procs, d, b).unwrap(),
            0.0,
            re,
            UrgencyClass::Low,
        )
        .unwrap()
    }

    fn libra_plus(beta: f64) -> LibraPlusDollar {
        LibraPlusDollar::new(1.0, beta, 1.0).unwrap()
    }

    #[test]
    fn reject_cannot_meet_resources() {
        // Algorithm 1 line 6: only one node has enough memory for a 2-processor job.
        let mut ns = nodes(2);
        ns[0] = TimeSharedNode::new(
            Node::new(0, 168.0)
                .unwrap()
                .with_capacity(10.0, 10.0)
                .unwrap(),
        );
        ns[1] = TimeSharedNode::new(
            Node::new(1, 168.0)
                .unwrap()
                .with_capacity(1.0, 10.0)
                .unwrap(),
        );
        let spec = JobSpec::new(
            0,
            JobDetails {
                length: JobLength::RuntimeEstimate(10.0),
            },
            ResourceRequirements {
                mem: 5.0,
                disk: 1.0,
                procs: 2,
            },
            QosConstraints {
                deadline: 100.0,
                budget: 1e6,
            },
            QosOptimization::None,
        )
        .unwrap();
        let j = QosJob::new(spec, 0.0, 10.0, UrgencyClass::Low).unwrap();
        let d = admit(&j, 0.0, &ns, &libra_plus(0.1), &AdmissionConfig::default()).unwrap();
        assert_eq!(d, Decision::Reject(RejectReason::CannotMeetResources));
        // More processors than nodes is the same path.
        let d = admit(
            &job(1, 10.0, 3, 100.0, 1e6),
            0.0,
            &nodes(2),
            &libra_plus(0.1),
            &AdmissionConfig::default(),
        )
        .unwrap();
        assert_eq!(d, Decision::Reject(RejectReason::CannotMeetResources));
    }

    #[test]
    fn reject_cannot_meet_deadline() {
        // Line 14: node 0 already runs a job with partition 0.8; a new job needing 0.5 fits
        // only on node 1, but it asks for 2 processors.
        let mut ns = nodes(2);
        let first = job(0, 80.0, 1, 100.0, 1e6);
        place(0, &first, &[0], &mut ns, 168.0);
        for n in &mut ns {
            n.control(&JobControl::default());
        }
        let j = job(1, 50.0, 2, 100.0, 1e6);
        let d = admit(&j, 0.0, &ns, &libra_plus(0.1), &AdmissionConfig::default()).unwrap();
        assert_eq!(d, Decision::Reject(RejectReason::CannotMeetDeadline));
        // A single-processor job goes to the free node.
        let j1 = job(2, 50.0, 1, 100.0, 1e6);
        match admit(&j1, 0.0, &ns, &libra_plus(0.1), &AdmissionConfig::default()).unwrap() {
            Decision::Accept { nodes, .. } => assert_eq!(nodes, vec![1]),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn reject_cannot_meet_deadline_when_resfree_would_be_zero() {
        // Share test passes with equality (0.5 + 0.5 = 1), but RESFree = 100 - 50 - 50 = 0
        // would make eq. (4) infinite: line 10 rejects.
        let mut ns = nodes(1);
        place(0, &job(0, 50.0, 1, 100.0, 1e6), &[0], &mut ns, 168.0);
        ns[0].control(&JobControl::default());
        let cfg = AdmissionConfig::default();
        let j = job(1, 50.0, 1, 100.0, 1e6);
        assert_eq!(
            admit(&j, 0.0, &ns, &libra_plus(0.1), &cfg).unwrap(),
            Decision::Reject(RejectReason::CannotMeetDeadline)
        );
        // Slightly less work leaves RESFree > 0: accepted at P = 1 + 0.1·100/1.
        match admit(
            &job(2, 49.0, 1, 100.0, 1e6),
            0.0,
            &ns,
            &libra_plus(0.1),
            &cfg,
        )
        .unwrap()
        {
            Decision::Accept { cost, .. } => {
                assert!((cost - 49.0 * (1.0 + 0.1 * 100.0)).abs() < 1e-9)
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn reject_cannot_meet_deadline_on_a_slower_node() {
        // Heterogeneous nodes (§VI.A assumption 5): RE = 60 s on the reference rating 168 is
        // 120 s on a node of rating 84, longer than D = 100 s.
        let mut ns = nodes(2);
        ns[1] = TimeSharedNode::new(Node::new(1, 84.0).unwrap());
        let cfg = AdmissionConfig::default();
        let p = libra_plus(0.0);
        assert_eq!(
            admit(&job(0, 60.0, 2, 100.0, 1e6), 0.0, &ns, &p, &cfg).unwrap(),
            Decision::Reject(RejectReason::CannotMeetDeadline)
        );
        match admit(&job(1, 60.0, 1, 100.0, 1e6), 0.0, &ns, &p, &cfg).unwrap() {
            Decision::Accept { nodes, cost } => {
                assert_eq!(nodes, vec![0]);
                assert!((cost - 60.0).abs() < 1e-12);
            }
            other => panic!("{other:?}"),
        }
        // A 40 s job fits both; on the slow node it is priced on its translated 80 s.
        match admit(&job(2, 40.0, 2, 100.0, 1e6), 0.0, &ns, &p, &cfg).unwrap() {
            Decision::Accept { nodes, cost } => {
                assert_eq!(nodes, vec![1, 0]); // RESFree 20 on the slow node, 60 on the fast
                assert!((cost - 80.0).abs() < 1e-12);
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn reject_cannot_meet_budget_and_cost_is_max_not_sum() {
        // Node 0 is loaded (RESFree small -> expensive), node 1 empty.
        let mut ns = nodes(2);
        place(0, &job(0, 50.0, 1, 100.0, 1e6), &[0], &mut ns, 168.0);
        for n in &mut ns {
            n.control(&JobControl::default());
        }
        let p = libra_plus(1.0);
        // RE = 20, D = 100: node 0 free = 100 - 50 - 20 = 30 -> P = 1 + 100/30; node 1 free = 80.
        let c0 = 20.0 * (1.0 + 100.0 / 30.0);
        let c1 = 20.0 * (1.0 + 100.0 / 80.0);
        let cfg = AdmissionConfig::default();
        match admit(&job(1, 20.0, 2, 100.0, c0), 0.0, &ns, &p, &cfg).unwrap() {
            Decision::Accept { nodes, cost } => {
                assert_eq!(nodes, vec![0, 1]); // best fit: fullest node first
                assert!((cost - c0).abs() < 1e-9); // max, not the sum c0 + c1
            }
            other => panic!("{other:?}"),
        }
        // Budget between c1 and c0: node 0 skipped, only one node -> budget rejection.
        let j = job(2, 20.0, 2, 100.0, (c0 + c1) / 2.0);
        assert_eq!(
            admit(&j, 0.0, &ns, &p, &cfg).unwrap(),
            Decision::Reject(RejectReason::CannotMeetBudget)
        );
        // ... but a 1-processor job with that budget is accepted on node 1 at c1 <= budget.
        match admit(&job(3, 20.0, 1, 100.0, (c0 + c1) / 2.0), 0.0, &ns, &p, &cfg).unwrap() {
            Decision::Accept { nodes, cost } => {
                assert_eq!(nodes, vec![1]);
                assert!((cost - c1).abs() < 1e-9);
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn libra_cost_is_node_independent() {
        let ns = nodes(3);
        let l = LibraStatic::new(1.0, 1.0).unwrap();
        match admit(
            &job(0, 100.0, 3, 400.0, 1e6),
            0.0,
            &ns,
            &l,
            &AdmissionConfig::default(),
        )
        .unwrap()
        {
            Decision::Accept { cost, .. } => assert!((cost - 100.25).abs() < 1e-12),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn resfree_only_test_admits_oversubscription() {
        // Existing job: RE 100, D 200 (share 0.5); at t = 190 only 5 s of its estimate remain.
        let jc = JobControl::default();
        let mut ns = nodes(1);
        place(0, &job(0, 100.0, 1, 200.0, 1e6), &[0], &mut ns, 168.0);
        ns[0].control(&jc);
        ns[0].advance(190.0);
        ns[0].control(&jc);
        // New job RE 90, D 100: share 0.5 + 0.9 > 1 -> the default test rejects, while
        // RESFree = 100 - min(5, 0.5*100) - 90 = 5 > 0 -> ResFreeOnly accepts.
        let spec = JobSpec::simple(1, 90.0, 1, 100.0, 1e6).unwrap();
        let j = QosJob::new(spec, 190.0, 90.0, UrgencyClass::Low).unwrap();
        let share = AdmissionConfig::default();
        assert_eq!(
            admit(&j, 190.0, &ns, &libra_plus(0.1), &share).unwrap(),
            Decision::Reject(RejectReason::CannotMeetDeadline)
        );
        let only = AdmissionConfig {
            deadline_test: DeadlineTest::ResFreeOnly,
            ..share
        };
        assert!(matches!(
            admit(&j, 190.0, &ns, &libra_plus(0.1), &only).unwrap(),
            Decision::Accept { .. }
        ));
        // The literal FullEstimate reading leaves 100 - 100 - 90 < 0 -> reject.
        let full = AdmissionConfig {
            commit: CommitMode::FullEstimate,
            ..only
        };
        assert_eq!(
            admit(&j, 190.0, &ns, &libra_plus(0.1), &full).unwrap(),
            Decision::Reject(RejectReason::CannotMeetDeadline)
        );
    }

    #[test]
    fn reason_names() {
        let names: Vec<_> = RejectReason::ALL.iter().map(|r| r.name()).collect();
        assert_eq!(
            names,
            [
                "cannot_meet_resources",
                "cannot_meet_deadline",
                "cannot_meet_budget",
                "deadline_lapsed_in_queue"
            ]
        );
    }
}
