//! Calibrates the synthetic model on every trace in the trace folder and prints the
//! table of presets that `slarm_workload::synth::PRESETS` holds (so the synthetic
//! stand-ins can be regenerated when the traces or the model change).
//!
//! `cargo run --release -p slarm-workload --example calibrate`

use slarm_workload::reader::{read_trace, ReadOptions};
use slarm_workload::synth::SyntheticModel;
use slarm_workload::{traces, Workload};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let Some(dir) = traces::dir_or_skip() else {
        return Ok(());
    };
    let mut files: Vec<_> = std::fs::read_dir(&dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "gz"))
        .collect();
    files.sort();
    for path in files {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let w = Workload::from_trace(read_trace(&path, ReadOptions::default())?, None)?;
        let m = SyntheticModel::calibrate(&w)?;
        println!(
            "    preset({name:?}, {}, {}, {:?}, {:?}, {:?}, {:?}, {:?}, {:?}, {:?}, {:?}, {:?}, {:?}, {:?}),",
            m.jobs,
            m.machine_procs,
            m.mean_interarrival_s,
            m.ln_runtime_mean,
            m.ln_runtime_sd,
            m.log2_procs_mean,
            m.log2_procs_sd,
            m.ln_estimate_mean,
            m.ln_estimate_sd,
            m.runtime_estimate_correlation,
            m.underestimate_share,
            m.max_runtime_s,
            m.max_estimate_s,
        );
    }
    Ok(())
}
