//! Shared by the examples: where the SDSC-SP2 trace is, and the CPU time of a thread.
#![allow(dead_code)] // each example uses part of it

use std::path::PathBuf;

use slarm_pricing::workload::SDSC_SP2;

/// The SDSC-SP2 trace (`$SLARM_TRACES`, else the shared trace folder); `None`, after saying
/// why on stderr, when it is absent: the example then skips.
pub fn sdsc_sp2() -> Option<PathBuf> {
    slarm_workload::traces::or_skip(SDSC_SP2)
}

/// CPU time of the calling thread in seconds (Linux `/proc/thread-self/stat`, 10 ms
/// resolution; NaN elsewhere): unlike wall time, not inflated by other processes' load.
pub fn thread_cpu() -> f64 {
    std::fs::read_to_string("/proc/thread-self/stat")
        .ok()
        .and_then(|s| {
            let fields: Vec<&str> = s.rsplit(')').next()?.split_whitespace().collect();
            let user: f64 = fields.get(11)?.parse().ok()?;
            let sys: f64 = fields.get(12)?.parse().ok()?;
            Some((user + sys) / 100.0)
        })
        .unwrap_or(f64::NAN)
}
