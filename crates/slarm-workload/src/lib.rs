//! # slarm-workload
//!
//! Job workloads for the slarm simulators (design.md §1, §3; issue 4): the Standard
//! Workload Format (SWF) of the Parallel Workloads Archive, read streaming from `.swf` or
//! `.swf.gz`, cleaned by the drop rules of design.md §3 into a time-ordered [`Workload`].
//!
//! Main types: [`Job`] (the 18 SWF fields plus derived processors, estimate and effective
//! run time), [`SwfHeader`], [`reader::SwfReader`] / [`reader::read_trace`] (strict or
//! lenient parsing), [`Workload`] with [`DropCounts`], [`writer`] (SWF out), [`transform`]
//! (first/last N, windows, load scaling, under-estimates), [`sla`] (deadlines, fees,
//! urgency classes), [`synth`] (calibrated synthetic workloads), [`traces`] (where the real
//! PWA logs are: `$SLARM_TRACES` or `../shared/data/traces`), and [`WorkloadError`] for every
//! failure.
//!
//! ```
//! use slarm_workload::{reader::{read_trace_from, ReadOptions}, Workload};
//!
//! let swf = "; MaxProcs: 4\n\
//!            1 0 -1 100 2 -1 -1 2 200 -1 1 -1 -1 -1 -1 -1 -1 -1\n\
//!            2 10 -1 -1 2 -1 -1 2 200 -1 5 -1 -1 -1 -1 -1 -1 -1\n";
//! let trace = read_trace_from(swf.as_bytes(), "demo.swf", ReadOptions::default())?;
//! let w = Workload::from_trace(trace, None)?;
//! assert_eq!((w.jobs.len(), w.dropped.total(), w.machine_procs), (1, 1, 4));
//! # Ok::<(), slarm_workload::WorkloadError>(())
//! ```

pub mod clean;
pub mod error;
pub mod gwf;
pub mod header;
pub mod job;
pub mod reader;
pub mod sla;
pub mod synth;
pub mod traces;
pub mod transform;
pub mod writer;

pub use clean::{DropCounts, Workload};
pub use error::{Result, WorkloadError};
pub use header::SwfHeader;
pub use job::Job;
pub use reader::{ReadOptions, Trace};
