//! Calibrates the synthetic model on every trace in the trace folder and prints the
//! table of presets that `slarm_workload::synth::PRESETS` holds (so the synthetic
//! stand-ins can be regenerated when the traces or the model change).
//!
//! `cargo run --release -p slarm-workload --example calibrate`

use slarm_workload::reader::{read_trace, ReadOptions};
use slarm_workload::synth::SyntheticModel;
use slarm_workload::{traces, Workload};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let Some(files) = traces::files_or_skip() else {
        return Ok(());
    };
    for path in files {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let w = Workload::from_trace(read_trace(&path, ReadOptions::default())?, None)?;
        let m = SyntheticModel::calibrate(&w)?;
        let numbers: Vec<String> = m.parameters().iter().map(|v| format!("{v:?}")).collect();
        println!(
            "    preset({name:?}, {}, {}, {}),",
            m.jobs,
            m.machine_procs,
            numbers.join(", ")
        );
    }
    Ok(())
}
