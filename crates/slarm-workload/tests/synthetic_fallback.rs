//! Without the trace folder, `real_or_synthetic` draws a labelled stand-in from the trace's
//! preset. A separate test binary, because it points `SLARM_TRACES` at an empty folder for
//! the whole process.

use slarm_stats::RngStreams;
use slarm_workload::synth::{preset_for, real_or_synthetic};

#[test]
fn absent_trace_gives_a_labelled_calibrated_stand_in() {
    let empty = std::env::temp_dir().join(format!("slarm-no-traces-{}", std::process::id()));
    std::fs::create_dir_all(&empty).unwrap();
    std::env::set_var("SLARM_TRACES", &empty);
    let name = "KTH-SP2-1996-2.1-cln.swf.gz";
    let w = real_or_synthetic(name, &mut RngStreams::new(1).stream(&[0])).unwrap();
    let p = preset_for(name).unwrap();
    assert!(w.synthetic);
    assert_eq!(w.name, format!("synthetic({name})"));
    assert_eq!((w.jobs.len(), w.machine_procs), (p.jobs, p.machine_procs));
    assert!(w.header.is_synthetic());
    // Mean inter-arrival of 28,467 exponential gaps: relative standard error 0.6 %;
    // tolerance 3 %.
    let gap = w.span_s() / (w.jobs.len() - 1) as f64;
    assert!((gap / p.mean_interarrival_s - 1.0).abs() < 0.03, "{gap}");
    assert!(
        real_or_synthetic("no-such-trace.swf.gz", &mut RngStreams::new(1).stream(&[0])).is_err()
    );
    std::fs::remove_dir(&empty).unwrap();
}
