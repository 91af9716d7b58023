//! The online planner as a live scheduler uses it: offers change nothing, a fresh offer is
//! placed exactly as offered, stale offers are refused, and the plan invariants hold after
//! random sequences of offers, acceptances, rejections and machine events, for all four
//! strategies (fixed proptest seeds via the default config).
#![allow(clippy::unwrap_used)]

use proptest::prelude::*;
use slarm_overbook::acceptance::TestSpec;
use slarm_overbook::classes::{ClassRegistry, RegistryConfig};
use slarm_overbook::job::{JobState, SlaJob, Time};
use slarm_overbook::planner::{JobKey, OnlinePlanner, PlanEvent};
use slarm_overbook::sim::BatteryConfig;
use slarm_overbook::strategy::Strategy as Kind;
use slarm_overbook::OverbookError;

const NODES: usize = 8;

/// Statistics learned from a history where jobs use 20-100 % of their estimate.
fn registry() -> ClassRegistry {
    let history: Vec<SlaJob> = (0..200)
        .map(|i| {
            let x = 600 + 300 * (i % 12);
            let frac = 0.2 + 0.8 * f64::from((i * 37 % 100) as u32) / 100.0;
            SlaJob::with_sla(
                i as u64,
                0,
                x,
                (frac * x as f64) as Time,
                1 + (i as usize % 4),
                1.0,
            )
            .unwrap()
        })
        .collect();
    ClassRegistry::learn(&history, RegistryConfig::default()).unwrap()
}

/// An owned snapshot of everything the plan view shows.
type Snapshot = (Time, Vec<(JobState, Time, Time, Vec<usize>, bool, u64)>);

fn snapshot(p: &OnlinePlanner<'_>) -> Snapshot {
    let jobs = p
        .jobs()
        .map(|e| {
            (
                e.state,
                e.start,
                e.slot_end,
                e.nodes.to_vec(),
                e.overbooked,
                e.pof.to_bits(),
            )
        })
        .collect();
    (p.now(), jobs)
}

#[derive(Debug, Clone)]
enum Op {
    /// A job arrives: nodes, estimate (minutes), real runtime as a fraction of the estimate,
    /// and whether the scheduler accepts the offer.
    Arrive(usize, i64, f64, bool),
    /// Time passes (seconds); jobs that reach their real end or slot end end on the way.
    Wait(i64),
    /// A node fails.
    Fail(usize),
    /// A node is repaired.
    Repair(usize),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        8 => (1usize..=NODES, 5i64..120, 0.0f64..1.5, any::<bool>())
            .prop_map(|(n, m, f, a)| Op::Arrive(n, m, f, a)),
        3 => (1i64..1200).prop_map(Op::Wait),
        1 => (0..NODES).prop_map(Op::Fail),
        1 => (0..NODES).prop_map(Op::Repair),
    ]
}

fn any_kind() -> impl Strategy<Value = Kind> {
    (0usize..4).prop_map(|k| Kind::ALL[k])
}

/// Moves the clock to `target` as a scheduler would: every running job ends at its real end
/// (completed) or is killed at its slot end, whichever comes first.
fn wait_until(p: &mut OnlinePlanner<'_>, target: Time) -> Result<(), OverbookError> {
    loop {
        let end = |e: &slarm_overbook::planner::PlanEntry<'_>| {
            let real = e.start + e.job.runtime.min(e.job.estimate);
            (real.min(e.slot_end), real <= e.slot_end)
        };
        let next = p
            .running()
            .map(|e| end(&e).0)
            .chain(p.planned().map(|e| e.start))
            .filter(|&t| t <= target)
            .min();
        let Some(t) = next else {
            return p.advance(target);
        };
        let events: Vec<PlanEvent> = p
            .running()
            .filter(|e| end(e).0 <= t)
            .map(|e| {
                if end(&e).1 {
                    PlanEvent::Finished(e.key)
                } else {
                    PlanEvent::Killed(e.key)
                }
            })
            .collect();
        p.update(t, &events)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn offers_change_nothing_and_acceptance_places_as_offered(
        s in any_kind(),
        pof in 0.05f64..0.9,
        ops in prop::collection::vec(op(), 1..100),
    ) {
        let reg = registry();
        let mut cfg = BatteryConfig::new(s, TestSpec::Pof { max: pof });
        cfg.check_invariants = true;
        let mut p = OnlinePlanner::new(NODES, &reg, cfg).unwrap();
        let mut id = 0u64;
        for op in ops {
            match op {
                Op::Arrive(n, minutes, frac, take) => {
                    id += 1;
                    let x = minutes * 60;
                    let job = SlaJob::with_sla(id, p.now(), x, (frac * x as f64) as Time, n, 1.0).unwrap();
                    let before = snapshot(&p);
                    let offer = match p.offer(&job, p.now()) {
                        Ok(o) => o,
                        Err(OverbookError::Declined { .. }) => continue,
                        Err(e) => return Err(TestCaseError::fail(format!("{s:?}: {e}"))),
                    };
                    // Offering changes nothing, and asking twice gives the same offer.
                    prop_assert_eq!(&snapshot(&p), &before);
                    prop_assert_eq!(&p.offer(&job, p.now()).unwrap(), &offer);
                    prop_assert!(offer.allotted() <= job.estimate && offer.allotted() > 0);
                    prop_assert_eq!(offer.overbooked(), offer.allotted() < job.estimate);
                    if !take {
                        p.reject(offer).unwrap();
                        prop_assert_eq!(&snapshot(&p), &before);
                        continue;
                    }
                    let accepted = p.accept(offer.clone());
                    prop_assert!(accepted.is_ok(), "{s:?}: {:?}", accepted.err());
                    let e = p.entry(accepted.unwrap()).unwrap();
                    prop_assert_eq!(e.start, offer.start());
                    prop_assert_eq!(e.slot_end, offer.slot_end());
                    prop_assert_eq!(e.overbooked, offer.overbooked());
                    prop_assert_eq!(e.pof.to_bits(), offer.pof().to_bits());
                    if let Some(nodes) = offer.nodes() {
                        prop_assert_eq!(e.nodes, nodes);
                    }
                    let want = if offer.start() <= p.now() { JobState::Running } else { JobState::Planned };
                    prop_assert_eq!(e.state, want);
                    // The same offer cannot be accepted twice: the plan changed.
                    let again = matches!(p.accept(offer), Err(OverbookError::StaleOffer { .. }));
                    prop_assert!(again, "a second acceptance must be stale");
                }
                Op::Wait(dt) => {
                    let target = p.now() + dt;
                    let r = wait_until(&mut p, target);
                    prop_assert!(r.is_ok(), "{s:?}: {:?}", r.err());
                }
                Op::Fail(node) => {
                    let r = p.fail_node(node, p.now());
                    prop_assert!(r.is_ok(), "{s:?}: {:?}", r.err());
                }
                Op::Repair(node) => {
                    let r = p.repair_node(node, p.now());
                    prop_assert!(r.is_ok(), "{s:?}: {:?}", r.err());
                }
            }
            prop_assert!(p.check_invariants().is_ok());
        }
    }
}

#[test]
fn stale_and_bad_calls_are_typed_errors() {
    let reg = registry();
    let cfg = BatteryConfig::new(Kind::CompOverbook, TestSpec::Pof { max: 0.3 });
    let mut p = OnlinePlanner::new(4, &reg, cfg.clone()).unwrap();
    let mut other = OnlinePlanner::new(4, &reg, cfg).unwrap();
    let job = SlaJob::with_sla(1, 0, 3600, 1800, 2, 1.0).unwrap();
    let offer = p.offer(&job, 0).unwrap();
    assert_eq!(offer.nodes().map(<[usize]>::len), Some(2));
    // Another planner refuses it; after a change of the plan it is stale.
    assert!(matches!(
        other.accept(offer.clone()),
        Err(OverbookError::StaleOffer { .. })
    ));
    assert!(matches!(
        other.reject(offer.clone()),
        Err(OverbookError::StaleOffer { .. })
    ));
    p.advance(10).unwrap();
    assert!(matches!(
        p.accept(offer),
        Err(OverbookError::StaleOffer { .. })
    ));
    assert!(matches!(p.offer(&job, 5), Err(OverbookError::Clock { .. })));
    assert!(matches!(p.advance(5), Err(OverbookError::Clock { .. })));
    assert!(matches!(
        p.fail_node(4, 10),
        Err(OverbookError::UnknownNode { .. })
    ));
    let key: JobKey = p.accept(p.offer(&job, 10).unwrap()).unwrap();
    assert_eq!(p.running().count(), 1);
    assert!(matches!(
        p.update(20, &[PlanEvent::Finished(key), PlanEvent::Killed(key)]),
        Err(OverbookError::UnknownJob { .. })
    ));
    assert_eq!(p.now(), 10, "a refused update changes nothing");
    p.finish(key, 20).unwrap();
    assert_eq!(p.entry(key).unwrap().state, JobState::Succeeded);
    assert!(matches!(
        p.finish(key, 20),
        Err(OverbookError::UnknownJob { .. })
    ));
    let big = SlaJob::with_sla(2, 10, 3600, 1800, 5, 1.0).unwrap();
    assert!(matches!(
        p.offer(&big, 20),
        Err(OverbookError::Infeasible { .. })
    ));
}
