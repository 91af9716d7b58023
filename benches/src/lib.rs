//! Criterion benchmarks of slarm's hot paths live in `benches/benches/`, one file per crate
//! area; run them with `cargo bench -p slarm-benches`. Figures go to `docs/performance.md`.

use slarm::stats::RngStreams;
use slarm::workload::synth::SyntheticModel;
use slarm::workload::Workload;

/// The benches' synthetic workload of `jobs` jobs on a 128-processor machine (log-normal
/// runtimes and estimates, seed 1): the same jobs in every bench that reads or simulates one.
#[allow(clippy::expect_used)] // fixed, valid parameters: a failure is a bug in the generator
pub fn synthetic_workload(jobs: usize) -> Workload {
    SyntheticModel {
        jobs,
        machine_procs: 128,
        mean_interarrival_s: 900.0,
        ln_runtime_mean: 8.0,
        ln_runtime_sd: 1.5,
        log2_procs_mean: 3.0,
        log2_procs_sd: 1.5,
        ln_estimate_mean: 9.0,
        ln_estimate_sd: 1.2,
        runtime_estimate_correlation: 0.7,
        underestimate_share: 0.05,
        max_runtime_s: 86_400.0,
        max_estimate_s: 172_800.0,
        source: "bench".into(),
    }
    .generate(&mut RngStreams::new(1).stream(&[0]))
    .expect("the bench workload's parameters are valid")
}
