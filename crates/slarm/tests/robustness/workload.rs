//! slarm-workload: hostile job fields, cleaning, transforms, SLA synthesis, the synthetic
//! model and the SWF writer.

use slarm::stats::RngStreams;
use slarm::workload::reader::{read_trace_from, ReadOptions};
use slarm::workload::sla::{deadlines, fee_and_penalty, ClassAssignment, UrgencyConfig};
use slarm::workload::synth::SyntheticModel;
use slarm::workload::transform::{
    compress_arrivals, first_n, inject_underestimates, last_n, scale_to_load, time_window,
};
use slarm::workload::writer::write_swf;
use slarm::workload::{Job, SwfHeader, Workload};

use crate::{property, Gen, CASES};

/// A job whose every field is hostile or ordinary.
fn job(g: &mut Gen, id: u64) -> Job {
    let mut j = Job::new(
        id,
        g.mostly(0.0, 1e5),
        g.mostly(1.0, 1e4),
        if g.below(4) == 0 {
            g.u64() as i64
        } else {
            g.range(0, 70) as i64 - 2
        },
        g.mostly(1.0, 2e4),
    );
    if g.below(4) == 0 {
        j.alloc_procs = g.u64() as i64;
        j.wait = g.nasty();
        j.think_time = g.nasty();
    }
    j
}

#[test]
fn cleaning_and_transforms() {
    property("workload/cleaning and transforms", CASES, true, |g, t| {
        let jobs: Vec<Job> = (0..g.below(12)).map(|i| job(g, i)).collect();
        let procs = g.count(64).min(u64::from(u32::MAX)) as u32;
        let at = t.at();
        let Some(w) = t.call(Workload::from_jobs("fuzz", jobs.clone(), procs)) else {
            return;
        };
        for j in &w.jobs {
            assert!(j.procs() > 0 && j.procs() <= i64::from(procs), "{at}");
            assert!(j.runtime > 0.0, "{at}");
        }
        for load in [w.offered_load(), w.offered_load_by_estimate()]
            .into_iter()
            .flatten()
        {
            assert!(load >= 0.0, "{at}: load {load}");
        }
        let _ = (
            w.span_s(),
            first_n(&w, g.below(5) as usize),
            last_n(&w, g.below(5) as usize),
        );
        t.infallible();
        let (a, b) = (g.nasty(), g.nasty());
        t.call(time_window(&w, a, b));
        t.call(compress_arrivals(&w, g.nasty()));
        if let Some((scaled, _factor)) = t.call(scale_to_load(&w, g.mostly(0.1, 2.0))) {
            assert_eq!(scaled.jobs.len(), w.jobs.len(), "{at}");
        }
        if let Some(u) = t.call(inject_underestimates(&w, g.mostly(0.0, 100.0))) {
            assert_eq!(u.jobs.len(), w.jobs.len(), "{at}");
        }
        // The writer then the reader: what we write reads back (strictly) as the same jobs.
        let mut out = Vec::new();
        let header = SwfHeader {
            max_procs: Some(u64::from(procs)),
            ..SwfHeader::default()
        };
        write_swf(&header, &w.jobs, &mut out).unwrap();
        let back = read_trace_from(std::io::Cursor::new(out), "w.swf", ReadOptions::default());
        if let Some(back) = t.call(back) {
            assert_eq!(back.jobs.len(), w.jobs.len(), "{at}");
        }
    });
}

#[test]
fn sla_synthesis() {
    property("workload/SLA synthesis", CASES, true, |g, t| {
        let jobs: Vec<Job> = (0..g.below(8)).map(|i| job(g, i)).collect();
        let at = t.at();
        if let Some(d) = t.call(deadlines(&jobs, g.nasty())) {
            assert_eq!(d.len(), jobs.len(), "{at}");
        }
        if let Some(j) = jobs.first() {
            if let Some((fee, penalty)) = t.call(fee_and_penalty(j, g.nasty())) {
                assert!(
                    fee.is_finite() && penalty.is_finite(),
                    "{at}: {fee} {penalty}"
                );
            }
        }
        let cfg = UrgencyConfig {
            high_share: g.mostly(0.0, 1.0),
            deadline_low_mean: g.mostly(1.0, 4.0),
            deadline_ratio: g.mostly(1.0, 4.0),
            budget_low_mean: g.mostly(1.0, 4.0),
            budget_ratio: g.mostly(1.0, 4.0),
            cv: g.mostly(0.0, 1.0),
            assignment: if g.coin() {
                ClassAssignment::ExactCount
            } else {
                ClassAssignment::Bernoulli
            },
        };
        if let Some(attrs) = t.call(cfg.synthesize(&jobs, &RngStreams::new(t.case))) {
            assert_eq!(attrs.len(), jobs.len(), "{at}");
        }
    });
}

#[test]
fn synthetic_model() {
    property("workload/synthetic model", CASES / 4, true, |g, t| {
        let model = SyntheticModel {
            jobs: g.count(50).min(200) as usize,
            machine_procs: g.count(128).min(1 << 20) as u32,
            mean_interarrival_s: g.mostly(1.0, 600.0),
            ln_runtime_mean: g.mostly(0.0, 8.0),
            ln_runtime_sd: g.mostly(0.0, 2.0),
            log2_procs_mean: g.mostly(0.0, 5.0),
            log2_procs_sd: g.mostly(0.0, 2.0),
            ln_estimate_mean: g.mostly(0.0, 9.0),
            ln_estimate_sd: g.mostly(0.0, 2.0),
            runtime_estimate_correlation: g.mostly(-1.0, 1.0),
            underestimate_share: g.mostly(0.0, 1.0),
            max_runtime_s: if g.coin() {
                f64::INFINITY
            } else {
                g.mostly(1.0, 1e6)
            },
            max_estimate_s: if g.coin() {
                f64::INFINITY
            } else {
                g.mostly(1.0, 1e6)
            },
            source: "fuzz".into(),
        };
        let at = t.at();
        let mut rng = RngStreams::new(t.case).stream(&[2]);
        if let Some(w) = t.call(model.generate(&mut rng)) {
            assert!(w.jobs.len() <= model.jobs, "{at}");
            assert!(w.jobs.iter().all(|j| j.procs() > 0), "{at}");
            if let Some(m) = t.call(SyntheticModel::calibrate(&w)) {
                assert!(m.mean_interarrival_s >= 0.0, "{at}");
            }
        }
    });
}
