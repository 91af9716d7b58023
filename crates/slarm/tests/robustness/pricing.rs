//! slarm-pricing: pricing policies, job specifications, nodes, QoS synthesis, and Libra,
//! Libra+$ and the three EASY baselines on random small workloads.

use slarm::pricing::admission::admit;
use slarm::pricing::metrics::{evaluate, Outcome};
use slarm::pricing::node::{JobControl, Node, TimeSharedNode};
use slarm::pricing::pricing::{
    utilization_rate, FixedRate, LibraPlusDollar, LibraStatic, PriceQuote, PricingPolicy,
    ResourceCharge, ResourceWindow,
};
use slarm::pricing::scenario::{run_jobs, BaseWorkload, ClusterPolicy, Settings};
use slarm::pricing::spec::{
    JobDetails, JobLength, JobSpec, QosConstraints, QosJob, QosOptimization, ResourceRequirements,
    UrgencyClass,
};
use slarm::pricing::timeshare::TimeSharedConfig;
use slarm::pricing::workload::{synthesize, synthetic_trace, QosSynthesis, SubsetStats, TraceJob};
use slarm::stats::RngStreams;

use crate::{assert_within_capacity, property, Gen, CASES, SCHEDULER_CASES};

#[test]
fn pricing_policies() {
    property("pricing/pricing policies", CASES, true, |g, t| {
        let (a, b, c) = (g.mostly(0.0, 2.0), g.mostly(0.0, 2.0), g.mostly(0.1, 2.0));
        let at = t.at();
        let window = t.call(ResourceWindow::new(
            g.mostly(1.0, 500.0),
            g.nasty(),
            g.nasty(),
        ));
        if let Some(w) = window {
            assert!(w.free().is_finite(), "{at}: free {}", w.free());
            if let Some(rate) = t.call(utilization_rate(c, &w)) {
                assert!(rate > 0.0, "{at}: rate {rate}");
            }
        }
        let plus = t.call(LibraPlusDollar::new(a, b, c));
        let libra = t.call(LibraStatic::new(a, b));
        let fixed = t.call(FixedRate::new(c));
        let quote = window.map(|cpu| PriceQuote {
            estimate: g.nasty(),
            deadline: g.nasty(),
            cpu,
        });
        let policies: [Option<&dyn PricingPolicy>; 3] = [
            plus.as_ref().map(|p| p as &dyn PricingPolicy),
            libra.as_ref().map(|p| p as &dyn PricingPolicy),
            fixed.as_ref().map(|p| p as &dyn PricingPolicy),
        ];
        if let Some(q) = &quote {
            for p in policies.into_iter().flatten() {
                t.call(p.cost(q));
            }
        }
        if let (Some(p), Some(w)) = (&plus, window) {
            let charge = ResourceCharge {
                amount: g.nasty(),
                pbase: g.nasty(),
                window: w,
            };
            t.call(p.multi_resource_cost(&[charge]));
        }
    });
}

#[test]
fn jobs_nodes_and_configurations() {
    property(
        "pricing/jobs, nodes, configurations",
        CASES,
        true,
        |g, t| {
            let (est, deadline, budget) = (g.mostly(1.0, 100.0), g.mostly(1.0, 400.0), g.nasty());
            let procs = g.count(64).min(u64::from(u32::MAX)) as u32;
            let at = t.at();
            if let Some(spec) = t.call(JobSpec::simple(1, est, procs, deadline, budget)) {
                assert!(procs > 0 && spec.qos.deadline >= est, "{at}");
                t.call(QosJob::new(spec, g.nasty(), g.nasty(), UrgencyClass::High));
            }
            let length = if g.coin() {
                JobLength::LengthMi(g.nasty())
            } else {
                JobLength::RuntimeEstimate(g.nasty())
            };
            t.call(JobSpec::new(
                2,
                JobDetails { length },
                ResourceRequirements {
                    mem: g.nasty(),
                    disk: g.nasty(),
                    procs,
                },
                QosConstraints {
                    deadline: g.nasty(),
                    budget: g.nasty(),
                },
                QosOptimization::MinCost,
            ));
            if let Some(node) = t.call(Node::new(3, g.nasty())) {
                if let Some(n) = t.call(node.with_capacity(g.nasty(), g.nasty())) {
                    let ts = TimeSharedNode::new(n);
                    assert!(ts.mem_free() >= 0.0 && ts.disk_free() >= 0.0, "{at}");
                }
            }
            t.call(JobControl::default().with_control_interval(g.nasty()));
            t.call(TimeSharedConfig::homogeneous(
                g.count(8).min(256) as usize,
                g.nasty(),
            ));
            let q = QosSynthesis::default()
                .with_high_urgency_pct(g.mostly(0.0, 100.0))
                .and_then(|q| q.with_deadline_ratio(g.mostly(1.0, 8.0)))
                .and_then(|q| q.with_deadline_low_mean(g.mostly(1.0, 4.0)))
                .and_then(|q| q.with_budget_ratio(g.mostly(1.0, 8.0)))
                .and_then(|q| q.with_budget_low_mean(g.mostly(1.0, 4.0)))
                .and_then(|q| q.with_sigma_frac(g.mostly(0.0, 1.0)))
                .and_then(|q| q.with_delay_factor(g.mostly(0.1, 2.0)))
                .and_then(|q| q.with_inaccuracy_pct(g.mostly(-99.0, 0.0)))
                .and_then(|q| q.with_pbase(g.mostly(0.1, 2.0)));
            if let Some(q) = t.call(q) {
                let streams = RngStreams::new(t.case);
                let n = g.range(2, 12) as usize;
                if let Some(trace) = t.call(synthetic_trace(n, g.range(1, 16) as u32, &streams)) {
                    assert_eq!(trace.len(), n, "{at}");
                    if let Some(jobs) = t.call(synthesize(&trace, &q, &streams)) {
                        assert_eq!(jobs.len(), n, "{at}");
                    }
                }
            }
            let trace: Vec<TraceJob> = (0..g.below(5))
                .map(|i| TraceJob {
                    id: i,
                    submit: g.nasty(),
                    runtime: g.nasty(),
                    procs: g.below(8) as u32,
                })
                .collect();
            t.call(SubsetStats::of(&trace, g.count(8) as usize));
            let n = g.count(20).min(200) as usize;
            let nodes = g.count(16).min(512) as usize;
            if let Some(base) = t.call(BaseWorkload::synthetic(n, nodes, &RngStreams::new(t.case)))
            {
                assert_eq!(base.jobs.len(), n, "{at}");
            }
            t.call(BaseWorkload::from_swf(
                std::path::Path::new("/nonexistent.swf"),
                10,
                8,
            ));
        },
    );
}

/// Random small workloads: 1-14 jobs on 1-6 nodes, estimates exact or not, deadlines 1-6x
/// the estimate, budgets 0.5-6x.
fn workload(g: &mut Gen, nodes: u32, exact: bool) -> Vec<QosJob> {
    let mut at = 0.0;
    (0..g.range(1, 14))
        .map(|id| {
            at += g.below(400) as f64;
            let est = 10.0 * g.range(1, 60) as f64;
            let run = if exact {
                est
            } else {
                est * g.uniform(0.5, 1.5)
            };
            let spec = JobSpec::simple(
                id,
                est,
                g.range(1, u64::from(nodes)) as u32,
                est * g.uniform(1.0, 6.0),
                est * g.uniform(0.5, 6.0),
            )
            .unwrap();
            let urgency = if g.coin() {
                UrgencyClass::High
            } else {
                UrgencyClass::Low
            };
            QosJob::new(spec, at, run, urgency).unwrap()
        })
        .collect()
}

/// Outcome invariants of every policy; the space-shared baselines also never use more nodes
/// than the cluster has; Libra and Libra+$ with exact estimates meet every accepted
/// deadline.
fn check(
    jobs: &[QosJob],
    out: &[Outcome],
    policy: ClusterPolicy,
    nodes: u32,
    exact: bool,
    at: &str,
) {
    assert_eq!(out.len(), jobs.len(), "{at}: one outcome per job");
    let mut events: Vec<(f64, i64)> = Vec::new();
    for (j, o) in jobs.iter().zip(out) {
        match *o {
            Outcome::Rejected(_) => {}
            Outcome::Completed {
                start,
                finish,
                cost,
            } => {
                assert!(
                    start >= j.arrival - 1e-9,
                    "{at}: job {} starts early",
                    j.spec.id
                );
                assert!(
                    finish >= start,
                    "{at}: job {} ends before it starts",
                    j.spec.id
                );
                assert!(cost.is_finite() && cost >= 0.0, "{at}: cost {cost}");
                if exact && matches!(policy, ClusterPolicy::Libra | ClusterPolicy::LibraPlus) {
                    let slack = 1e-6 * j.spec.qos.deadline.max(1.0);
                    assert!(
                        finish <= j.absolute_deadline() + slack,
                        "{at}: accepted job {} misses its deadline",
                        j.spec.id
                    );
                }
                events.push((start, i64::from(j.procs())));
                events.push((finish, -i64::from(j.procs())));
            }
            Outcome::Killed { start, end } => {
                assert!(start >= j.arrival - 1e-9 && end >= start, "{at}");
                events.push((start, i64::from(j.procs())));
                events.push((end, -i64::from(j.procs())));
            }
        }
    }
    if !matches!(policy, ClusterPolicy::Libra | ClusterPolicy::LibraPlus) {
        assert_within_capacity(events, i64::from(nodes), at);
    }
}

#[test]
fn libra_and_baselines_on_random_workloads() {
    property(
        "pricing/Libra, Libra+$, EASY baselines",
        SCHEDULER_CASES,
        false,
        |g, t| {
            let nodes = g.range(1, 6) as u32;
            let exact = g.coin();
            let jobs = workload(g, nodes, exact);
            let s = Settings {
                nodes: nodes as usize,
                ..Settings::table_i()
            };
            for policy in ClusterPolicy::ALL {
                let at = format!("{} {}", t.at(), policy.name());
                // Valid workloads: an error would be a defect.
                let out = run_jobs(&jobs, policy, &s).unwrap_or_else(|e| panic!("{at}: {e}"));
                t.infallible();
                {
                    check(&jobs, &out, policy, nodes, exact, &at);
                    let m = evaluate(&jobs, &out, nodes as usize).unwrap();
                    let rejected: usize = m.rejected.values().sum();
                    assert_eq!(m.accepted + rejected, m.submitted, "{at}");
                    assert!((0.0..=1.0).contains(&m.qos_satisfaction), "{at}");
                    assert!((0.0..=1.0 + 1e-9).contains(&m.profitability), "{at}");
                }
            }
            // Algorithm 1 alone, at a hostile time on fresh nodes.
            let cfg = TimeSharedConfig::homogeneous(nodes as usize, 168.0).unwrap();
            let fresh: Vec<TimeSharedNode> = cfg
                .nodes()
                .iter()
                .copied()
                .map(TimeSharedNode::new)
                .collect();
            let plus = LibraPlusDollar::new(1.0, 0.1, 1.0).unwrap();
            t.call(admit(&jobs[0], g.nasty(), &fresh, &plus, cfg.admission()));
        },
    );
}
