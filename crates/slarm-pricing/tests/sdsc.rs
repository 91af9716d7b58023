//! Invariants of spec §4.3 over the SDSC-SP2 subset (last 5000 jobs): Libra+$ with β = 0
//! accepts exactly Libra's jobs; at 0 % inaccuracy every admitted Libra / Libra+$ job meets
//! its deadline and pays at most its budget. Skips (with a message) when the trace is absent.

use std::path::PathBuf;

use slarm_pricing::admission::RejectReason;
use slarm_pricing::metrics::{evaluate, qos_met, Outcome};
use slarm_pricing::scenario::{run_jobs, BaseWorkload, Policy, Settings};
use slarm_pricing::workload::{synthesize, SDSC_SP2};
use slarm_stats::RngStreams;

fn trace() -> Option<PathBuf> {
    let dir = std::env::var_os("SLARM_TRACES").map_or_else(
        || {
            PathBuf::from(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../../../shared/data/traces"
            ))
        },
        PathBuf::from,
    );
    let p = dir.join(SDSC_SP2);
    if p.is_file() {
        Some(p)
    } else {
        eprintln!("skipping: {} not found (set SLARM_TRACES)", p.display());
        None
    }
}

#[test]
fn subset_statistics_match_spec_3_1() {
    let Some(p) = trace() else { return };
    let base = BaseWorkload::from_swf(&p, 5000, 128).unwrap();
    assert_eq!(base.jobs.len(), 5000);
    assert!(!base.synthetic);
    // Spec §3.1: mean procs 17 (4.2-cln: 16.92); the runtime and gap shift is logged in
    // docs/decisions.md ([slarm-pricing] trace version).
    assert!(
        (base.stats.mean_procs - 17.0).abs() < 0.5,
        "{:?}",
        base.stats
    );
    assert!(
        (base.stats.mean_runtime - 9556.65).abs() < 1.0,
        "{:?}",
        base.stats
    );
}

#[test]
fn beta_zero_accepts_exactly_libras_jobs_and_admitted_jobs_meet_qos() {
    let Some(p) = trace() else { return };
    let base = BaseWorkload::from_swf(&p, 5000, 128).unwrap();
    let mut s = Settings::table_i();
    let jobs = synthesize(&base.jobs, &s.qos, &RngStreams::new(7)).unwrap();
    s.beta = 0.0;
    let plus = run_jobs(&jobs, Policy::LibraPlus, &s).unwrap();
    let libra = run_jobs(&jobs, Policy::Libra, &s).unwrap();
    let accepted = |o: &[Outcome]| -> Vec<bool> {
        o.iter()
            .map(|x| matches!(x, Outcome::Completed { .. }))
            .collect()
    };
    // Spec §4.3: the two accept the same jobs as long as Libra's δ·RE/D term does not push a
    // job over its budget. Up to the first job where it does, the decisions are identical, and
    // that job is a budget rejection by Libra explained by the δ term alone.
    let (a, b) = (accepted(&plus), accepted(&libra));
    if let Some(first) = (0..jobs.len()).find(|&i| a[i] != b[i]) {
        let j = &jobs[first];
        let (re, d) = (j.estimate(), j.spec.qos.deadline);
        assert!(
            a[first] && !b[first],
            "job {first}: Libra+$ rejected, Libra accepted"
        );
        assert_eq!(
            libra[first],
            Outcome::Rejected(RejectReason::CannotMeetBudget)
        );
        assert!(
            re <= j.spec.qos.budget && re + re / d > j.spec.qos.budget,
            "job {first}"
        );
    }
    // With δ = 0 Libra's cost equals Libra+$(α = 1, β = 0)'s: identical accepted job sets.
    let mut s0 = s.clone();
    s0.delta = 0.0;
    let libra0 = run_jobs(&jobs, Policy::Libra, &s0).unwrap();
    assert!(
        accepted(&plus) == accepted(&libra0),
        "spec §4.3: same accepted job set"
    );
    let n_acc = accepted(&plus).iter().filter(|a| **a).count();
    assert!(n_acc > 1000 && n_acc < 5000, "{n_acc}");
    s.beta = 0.5;
    let plus5 = run_jobs(&jobs, Policy::LibraPlus, &s).unwrap();
    for out in [&plus, &libra, &plus5] {
        for (j, o) in jobs.iter().zip(out.iter()) {
            if let Outcome::Completed { finish, cost, .. } = *o {
                assert!(cost <= j.spec.qos.budget, "job {}", j.spec.id);
                assert!(
                    qos_met(j, finish, cost),
                    "job {} finish {finish} DT {}",
                    j.spec.id,
                    j.absolute_deadline()
                );
            }
        }
        let m = evaluate(&jobs, out, 128).unwrap();
        assert_eq!(m.deadline_misses, 0);
        assert_eq!(m.qos_met, m.accepted);
    }
}
