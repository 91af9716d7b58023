//! A live time-shared cluster under Libra or Libra+$ (Yeo & Buyya, §VI): the object a
//! cluster manager holds between arrivals.
//!
//! [`Cluster`] owns the time-shared nodes, the pricing policy and the options of
//! Algorithms 1 and 2. [`Cluster::quote`] tells a user, without changing anything, what
//! admission control (Algorithm 1, §VI.A) would decide for a job and at what price;
//! [`Cluster::submit`] runs the same admission and, on acceptance, starts the job at once on
//! its nodes (there is no wait queue); [`Cluster::advance_to`] runs the nodes' own events
//! (completions, estimates running out, deadlines passing, control ticks), each followed by
//! Algorithm 2 (§VI.B). [`simulate_time_shared`](crate::timeshare::simulate_time_shared) is
//! this object driven by a whole workload, so both give the same outcomes bit for bit.
//!
//! Event order at equal times: node events before a submission at that time; node events by
//! node id. A node whose demands sum to at most 1 under capped rates keeps constant
//! partitions, so its control ticks are skipped (by Algorithm 2 they would change nothing).

use crate::admission::{admit, min_budget, place, AdmissionConfig, Decision, RejectReason};
use crate::config::TimeSharedConfig;
use crate::error::{PricingError, Result};
use crate::metrics::Outcome;
use crate::node::{JobControl, TimeSharedNode};
use crate::pricing::PricingPolicy;
use crate::spec::QosJob;

/// What admission control would decide for a job now, and its price (see
/// [`Cluster::quote`]).
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Quote {
    /// The decision [`Cluster::submit`] would return for the same job at the same time.
    pub decision: Decision,
    /// The least budget with which the job would be accepted (and the cost C_i it would
    /// then be charged); `None` when no budget helps, because too few nodes have the memory
    /// and disk (Algorithm 1 line 6) or can meet the deadline (line 14).
    pub min_budget: Option<f64>,
}

impl Quote {
    /// Whether the job would be accepted with its own budget.
    pub fn accepted(&self) -> bool {
        matches!(self.decision, Decision::Accept { .. })
    }

    /// Why the job would be rejected, if it would.
    pub fn reason(&self) -> Option<RejectReason> {
        match self.decision {
            Decision::Reject(r) => Some(r),
            Decision::Accept { .. } => None,
        }
    }

    /// The price: the cost C_i (the maximum per-node cost, Algorithm 1) the job would pay
    /// if accepted; for a job turned away by its budget, the least budget that would be
    /// accepted (what it would then pay); `None` when no budget helps.
    pub fn price(&self) -> Option<f64> {
        match self.decision {
            Decision::Accept { cost, .. } => Some(cost),
            Decision::Reject(RejectReason::CannotMeetBudget) => self.min_budget,
            Decision::Reject(_) => None,
        }
    }
}

/// A time-shared cluster run by Algorithms 1 and 2 with a pricing policy `P`, advanced
/// with time by its owner.
///
/// Jobs are numbered in submission order from 0; [`outcome`](Self::outcome) reports each
/// one once known (at once for a rejection, when its last process finishes for an accepted
/// job).
#[derive(Debug, Clone, PartialEq)]
pub struct Cluster<P> {
    pricing: P,
    admission: AdmissionConfig,
    control: JobControl,
    nodes: Vec<TimeSharedNode>,
    clock: f64,
    ledger: Ledger,
}

impl<P: PricingPolicy> Cluster<P> {
    /// An idle cluster at time 0 of `cfg`'s nodes, options validated by
    /// [`TimeSharedConfig::validate`], pricing with `pricing`.
    pub fn new(cfg: &TimeSharedConfig, pricing: P) -> Result<Self> {
        cfg.validate()?;
        Ok(Self {
            pricing,
            admission: cfg.admission,
            control: cfg.control,
            nodes: cfg.nodes.iter().copied().map(TimeSharedNode::new).collect(),
            clock: 0.0,
            ledger: Ledger::default(),
        })
    }

    /// The time the cluster has been advanced to.
    pub fn clock(&self) -> f64 {
        self.clock
    }

    /// The nodes with their running processes (each job's processes carry its index).
    pub fn nodes(&self) -> &[TimeSharedNode] {
        &self.nodes
    }

    /// The pricing policy.
    pub fn pricing(&self) -> &P {
        &self.pricing
    }

    /// The options of Algorithm 1.
    pub fn admission(&self) -> &AdmissionConfig {
        &self.admission
    }

    /// The options of Algorithm 2.
    pub fn control(&self) -> &JobControl {
        &self.control
    }

    /// How many jobs have been submitted (the next job's index).
    pub fn submitted(&self) -> usize {
        self.ledger.outcomes.len()
    }

    /// The outcome of job `index` if known: `None` while it runs (or for an unknown index).
    pub fn outcome(&self, index: usize) -> Option<&Outcome> {
        self.ledger.outcomes.get(index).and_then(Option::as_ref)
    }

    /// Every submitted job's outcome so far, by index (`None` while running).
    pub fn outcomes(&self) -> &[Option<Outcome>] {
        &self.ledger.outcomes
    }

    /// How many accepted jobs are still running.
    pub fn running(&self) -> usize {
        self.ledger.outcomes.iter().filter(|o| o.is_none()).count()
    }

    /// Runs every node event up to and including `t`, then brings every node to `t` and
    /// runs Algorithm 2 there. Errors if `t` is not finite or lies before [`clock`](Self::clock).
    pub fn advance_to(&mut self, t: f64) -> Result<()> {
        self.check_time(t)?;
        let jc = self.control;
        let ledger = &mut self.ledger;
        for n in &mut self.nodes {
            run_node_until(n, t, &jc, |j, at| ledger.process_finished(j, at));
            n.advance_and_control(t, &jc);
        }
        self.clock = t;
        Ok(())
    }

    /// Runs the nodes until every accepted job has finished (no new submissions in
    /// between); the clock moves to the last event. Afterwards every outcome is known.
    pub fn run_to_completion(&mut self) {
        let jc = self.control;
        let ledger = &mut self.ledger;
        for n in &mut self.nodes {
            run_node_until(n, f64::INFINITY, &jc, |j, at| {
                ledger.process_finished(j, at)
            });
            self.clock = self.clock.max(n.clock());
        }
    }

    /// What [`submit`](Self::submit) would decide for `job` at `now`, and its price,
    /// **without changing the cluster**: Algorithm 1 runs on a copy of the nodes advanced to
    /// `now`, exactly as `submit` would advance them. The price of Libra+$ (eqs. 3-6) depends
    /// on the load of each node inside the job's window, so it is only known at `now`.
    ///
    /// Errors as `submit` does: `now` not finite, before [`clock`](Self::clock), or not the
    /// job's arrival time.
    ///
    /// ```
    /// use slarm_pricing::online::Cluster;
    /// use slarm_pricing::pricing::LibraPlusDollar;
    /// use slarm_pricing::spec::{QosJob, JobSpec, UrgencyClass};
    /// use slarm_pricing::timeshare::TimeSharedConfig;
    ///
    /// # fn main() -> Result<(), slarm_pricing::PricingError> {
    /// let cfg = TimeSharedConfig::homogeneous(1, 168.0)?;
    /// let mut cluster = Cluster::new(&cfg, LibraPlusDollar::new(1.0, 0.1, 1.0)?)?;
    /// // RE = 100 s, D = 800 s on an idle node: P = 1 + 0.1 · 800/700 per second (eq. 6).
    /// let spec = JobSpec::simple(0, 100.0, 1, 800.0, 200.0)?;
    /// let job = QosJob::new(spec, 0.0, 100.0, UrgencyClass::Low)?;
    /// let q = cluster.quote(&job, 0.0)?;
    /// let price = 100.0 * (1.0 + 0.1 * 800.0 / 700.0);
    /// assert!(q.accepted());
    /// assert!((q.price().unwrap_or(f64::NAN) - price).abs() < 1e-9);
    /// assert_eq!(cluster.submitted(), 0); // nothing placed
    /// assert_eq!(cluster.submit(&job, 0.0)?, q.decision);
    ///
    /// // The node is now half busy inside a second job's window: its price rises above
    /// // what a $110 budget covers, and the quote says what would be enough.
    /// let spec = JobSpec::simple(1, 100.0, 1, 400.0, 110.0)?;
    /// let late = QosJob::new(spec, 10.0, 100.0, UrgencyClass::Low)?;
    /// let q = cluster.quote(&late, 10.0)?;
    /// assert!(!q.accepted());
    /// assert!(q.price().unwrap_or(0.0) > 110.0);
    /// # Ok(())
    /// # }
    /// ```
    pub fn quote(&self, job: &QosJob, now: f64) -> Result<Quote> {
        self.check_submission(job, now)?;
        let jc = self.control;
        let mut nodes = self.nodes.clone();
        for n in &mut nodes {
            run_node_until(n, now, &jc, |_, _| {});
            n.advance_and_control(now, &jc);
        }
        let decision = admit(job, now, &nodes, &self.pricing, &self.admission)?;
        let min_budget = min_budget(job, now, &nodes, &self.pricing, &self.admission)?.ok();
        Ok(Quote {
            decision,
            min_budget,
        })
    }

    /// Advances to `now` and runs Algorithm 1 for `job`; an accepted job starts at once on
    /// its nodes (one process each, partition RE/D, Algorithm 2). The job's index is the
    /// number of jobs submitted before it. Errors if `now` is not finite, lies before
    /// [`clock`](Self::clock), or is not the job's arrival time (its wall clock of
    /// Algorithm 2 starts there); nothing changes then.
    pub fn submit(&mut self, job: &QosJob, now: f64) -> Result<Decision> {
        self.check_submission(job, now)?;
        self.advance_to(now)?;
        let decision = admit(job, now, &self.nodes, &self.pricing, &self.admission)?;
        let k = self.ledger.push(job.arrival);
        match &decision {
            Decision::Reject(r) => self.ledger.set(k, Some(Outcome::Rejected(*r)), 0, 0.0),
            Decision::Accept { nodes: alloc, cost } => {
                self.ledger.set(k, None, job.procs(), *cost);
                let reference = self.admission.reference_rating;
                place(k, job, alloc, &mut self.nodes, reference);
                for &j in alloc {
                    if let Some(n) = self.nodes.get_mut(j) {
                        n.control(&self.control);
                    }
                }
            }
        }
        Ok(decision)
    }

    fn check_time(&self, t: f64) -> Result<()> {
        if !t.is_finite() {
            return Err(PricingError::NonFinite {
                what: "time",
                value: t,
            });
        }
        if t < self.clock {
            return Err(PricingError::InvalidParameter {
                name: "time",
                value: t,
                reason: "before the cluster's clock",
            });
        }
        Ok(())
    }

    fn check_submission(&self, job: &QosJob, now: f64) -> Result<()> {
        self.check_time(now)?;
        if job.arrival.to_bits() != now.to_bits() {
            return Err(PricingError::InvalidJob {
                job: job.spec.id,
                reason: format!("arrival {} is not the submission time {now}", job.arrival),
            });
        }
        Ok(())
    }
}

/// Per-job bookkeeping: processes still running, latest process finish, cost C_i and the
/// outcome once known.
#[derive(Debug, Clone, Default, PartialEq)]
struct Ledger {
    arrival: Vec<f64>,
    outcomes: Vec<Option<Outcome>>,
    left: Vec<u32>,
    finish: Vec<f64>,
    cost: Vec<f64>,
}

impl Ledger {
    /// A new job arriving at `arrival`; returns its index.
    fn push(&mut self, arrival: f64) -> usize {
        self.arrival.push(arrival);
        self.outcomes.push(None);
        self.left.push(0);
        self.finish.push(0.0);
        self.cost.push(0.0);
        self.outcomes.len() - 1
    }

    /// Job `k`'s decision: its outcome if already known, its processes and cost C_i.
    fn set(&mut self, k: usize, outcome: Option<Outcome>, procs: u32, cost: f64) {
        if let (Some(o), Some(l), Some(c)) = (
            self.outcomes.get_mut(k),
            self.left.get_mut(k),
            self.cost.get_mut(k),
        ) {
            (*o, *l, *c) = (outcome, procs, cost);
        }
    }

    /// One process of job `j` finished at `t`; the job completes with its last process.
    fn process_finished(&mut self, j: usize, t: f64) {
        let (Some(left), Some(finish), Some(outcome), Some(&start), Some(&cost)) = (
            self.left.get_mut(j),
            self.finish.get_mut(j),
            self.outcomes.get_mut(j),
            self.arrival.get(j),
            self.cost.get(j),
        ) else {
            return;
        };
        *left = left.saturating_sub(1);
        *finish = finish.max(t);
        if *left == 0 {
            *outcome = Some(Outcome::Completed {
                start,
                finish: *finish,
                cost,
            });
        }
    }
}

/// Runs node `n`'s own events (completions, estimates running out, deadlines passing,
/// control ticks) up to and including time `until`, each followed by Algorithm 2;
/// `finished(job, t)` hears of every process that finished.
fn run_node_until(
    n: &mut TimeSharedNode,
    until: f64,
    jc: &JobControl,
    mut finished: impl FnMut(usize, f64),
) {
    let mut t = n.pending_event(jc);
    while t.is_finite() && t <= until {
        let now = t;
        t = n.step(now, jc, |j| finished(j, now));
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::pricing::{LibraPlusDollar, LibraStatic};
    use crate::spec::{JobSpec, UrgencyClass};
    use proptest::prelude::*;

    fn job(id: u64, at: f64, re: f64, procs: u32, d: f64, b: f64, runtime: f64) -> QosJob {
        QosJob::new(
            JobSpec::simple(id, re, procs, d, b).unwrap(),
            at,
            runtime,
            UrgencyClass::Low,
        )
        .unwrap()
    }

    /// (gap, RE, procs, D/RE, B/RE, R/RE): a random job stream, arrivals in order.
    pub(crate) fn stream(seeds: &[(f64, f64, u32, f64, f64, f64)]) -> Vec<QosJob> {
        let mut at = 0.0;
        seeds
            .iter()
            .enumerate()
            .map(|(k, &(gap, re, procs, dr, br, rr))| {
                at += gap;
                job(k as u64, at, re, procs, re * dr, re * br, re * rr)
            })
            .collect()
    }

    pub(crate) fn seeds() -> impl Strategy<Value = Vec<(f64, f64, u32, f64, f64, f64)>> {
        prop::collection::vec(
            (
                prop_oneof![Just(0.0), 0.0f64..150.0],
                1.0f64..400.0,
                1u32..4,
                1.05f64..6.0,
                0.8f64..4.0,
                prop_oneof![Just(1.0), 0.3f64..2.0],
            ),
            1..40,
        )
    }

    #[test]
    fn libra_quote_is_static_and_changes_nothing() {
        // Libra: C = gamma RE + delta RE / D = 20 + 20/100, whatever the load.
        let cfg = TimeSharedConfig::homogeneous(1, 168.0).unwrap();
        let c = Cluster::new(&cfg, LibraStatic::new(1.0, 1.0).unwrap()).unwrap();
        let before = c.clone();
        let q = c
            .quote(&job(0, 0.0, 20.0, 1, 100.0, 20.0, 20.0), 0.0)
            .unwrap();
        assert_eq!(q.reason(), Some(RejectReason::CannotMeetBudget));
        assert!((q.price().unwrap() - 20.2).abs() < 1e-12);
        let q = c
            .quote(&job(0, 0.0, 20.0, 1, 100.0, 21.0, 20.0), 0.0)
            .unwrap();
        assert!(q.accepted());
        assert!((q.price().unwrap() - 20.2).abs() < 1e-12);
        assert_eq!(c, before, "a quote changes no state");
    }

    #[test]
    fn quote_prices_a_budget_rejection() {
        let cfg = TimeSharedConfig::homogeneous(1, 168.0).unwrap();
        let mut c = Cluster::new(&cfg, LibraPlusDollar::new(1.0, 1.0, 1.0).unwrap()).unwrap();
        c.submit(&job(0, 0.0, 50.0, 1, 100.0, 1e6, 50.0), 0.0)
            .unwrap();
        // RE 20, D 100 on a node half committed: P = 1 + 100/30 (eq. 6).
        let price = 20.0 * (1.0 + 100.0 / 30.0);
        let poor = job(1, 0.0, 20.0, 1, 100.0, price - 1.0, 20.0);
        let q = c.quote(&poor, 0.0).unwrap();
        assert_eq!(q.reason(), Some(RejectReason::CannotMeetBudget));
        assert!((q.price().unwrap() - price).abs() < 1e-9);
        // Offering exactly the quoted price is accepted at that price.
        let exact = job(2, 0.0, 20.0, 1, 100.0, q.price().unwrap(), 20.0);
        assert_eq!(
            c.submit(&exact, 0.0).unwrap(),
            Decision::Accept {
                nodes: vec![0],
                cost: q.price().unwrap()
            }
        );
        // No budget buys a share the node no longer has.
        let q = c
            .quote(&job(3, 0.0, 40.0, 1, 100.0, 1e9, 40.0), 0.0)
            .unwrap();
        assert_eq!(q.reason(), Some(RejectReason::CannotMeetDeadline));
        assert_eq!((q.price(), q.min_budget), (None, None));
    }

    #[test]
    fn times_are_checked() {
        let cfg = TimeSharedConfig::homogeneous(1, 168.0).unwrap();
        let mut c = Cluster::new(&cfg, LibraStatic::new(1.0, 0.0).unwrap()).unwrap();
        let j = job(0, 50.0, 10.0, 1, 100.0, 1e6, 10.0);
        assert!(c.quote(&j, 40.0).is_err()); // not the job's arrival
        assert!(c.submit(&j, f64::NAN).is_err());
        c.advance_to(60.0).unwrap();
        assert!(c.submit(&j, 50.0).is_err()); // before the clock
        assert!(c.advance_to(f64::INFINITY).is_err());
        assert_eq!(c.submitted(), 0);
        assert_eq!(c.clock(), 60.0);
    }

    #[test]
    fn invalid_configs_rejected() {
        let p = LibraPlusDollar::new(1.0, 0.1, 1.0).unwrap();
        let good = TimeSharedConfig::homogeneous(2, 168.0).unwrap();
        assert!(Cluster::new(&good, p).is_ok());
        let mut bad = good.clone();
        bad.nodes[1].rating = f64::NAN;
        assert!(Cluster::new(&bad, p).is_err());
        let mut bad = good.clone();
        bad.nodes[0].mem = -1.0;
        assert!(Cluster::new(&bad, p).is_err());
        let mut bad = good.clone();
        bad.admission.reference_rating = f64::NAN;
        assert!(Cluster::new(&bad, p).is_err());
        let mut bad = good.clone();
        bad.control.control_interval = -60.0;
        assert!(Cluster::new(&bad, p).is_err());
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]
        // For every job of a random stream: the quote is the decision submit then makes
        // (same acceptance, reason, nodes and price, bit for bit), and quoting changes
        // nothing.
        #[test]
        fn quote_is_what_submit_decides(spec in seeds(), beta in 0.0f64..1.5, nodes in 1usize..5) {
            let jobs = stream(&spec);
            let cfg = TimeSharedConfig::homogeneous(nodes, 168.0).unwrap();
            let mut c = Cluster::new(&cfg, LibraPlusDollar::new(1.0, beta, 1.0).unwrap()).unwrap();
            for j in &jobs {
                let before = c.clone();
                let q = c.quote(j, j.arrival).unwrap();
                prop_assert_eq!(&c, &before);
                prop_assert_eq!(format!("{c:?}"), format!("{before:?}"));
                let d = c.submit(j, j.arrival).unwrap();
                prop_assert_eq!(&q.decision, &d);
                match (&d, q.price()) {
                    (Decision::Accept { cost, .. }, Some(p)) => {
                        prop_assert_eq!(cost.to_bits(), p.to_bits());
                        // The least budget never exceeds the price actually charged.
                        prop_assert!(q.min_budget.unwrap() <= *cost);
                    }
                    (Decision::Reject(RejectReason::CannotMeetBudget), Some(p)) => {
                        prop_assert!(p > j.spec.qos.budget);
                    }
                    (Decision::Reject(_), None) => {}
                    (d, p) => prop_assert!(false, "decision {:?} with price {:?}", d, p),
                }
            }
        }

        // A budget-rejected job resubmitted with exactly its quoted price is accepted at it.
        #[test]
        fn quoted_price_buys_admission(spec in seeds(), beta in 0.0f64..1.5) {
            let jobs = stream(&spec);
            let cfg = TimeSharedConfig::homogeneous(3, 168.0).unwrap();
            let c = {
                let mut c = Cluster::new(&cfg, LibraPlusDollar::new(1.0, beta, 1.0).unwrap()).unwrap();
                for j in &jobs[..jobs.len() - 1] {
                    c.submit(j, j.arrival).unwrap();
                }
                c
            };
            let last = &jobs[jobs.len() - 1];
            let q = c.quote(last, last.arrival).unwrap();
            if let Some(b) = q.min_budget {
                let mut rich = last.clone();
                rich.spec.qos.budget = b;
                let mut c2 = c.clone();
                match c2.submit(&rich, rich.arrival).unwrap() {
                    Decision::Accept { cost, .. } => prop_assert_eq!(cost.to_bits(), b.to_bits()),
                    d => prop_assert!(false, "{:?}", d),
                }
            }
        }

    }
}
