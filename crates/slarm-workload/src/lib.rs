#![doc = include_str!("../README.md")]
//!
//! ## Modules
//!
//! [`Job`] (the 18 SWF fields plus derived processors, estimate and effective run time),
//! [`JobTable`] (jobs stored compactly, 88 bytes a job, each built on demand, with a
//! [`TableSummary`] of queue order and bounds kept as jobs are appended),
//! [`SwfHeader`], [`reader::SwfReader`] / [`reader::read_trace`] (strict or lenient
//! parsing; [`reader::read_all`] parses a whole log in blocks on several threads,
//! [`reader::read_trace_with`] shows the jobs read so far after each block, and
//! [`inflate`] inflates gzip logs on a thread of its own), [`sacct`] (Slurm accounting
//! records read into the same [`Trace`]), [`Workload`] with
//! [`DropCounts`] ([`clean`]), [`writer`] (SWF out), [`transform`] (first/last N, windows,
//! load scaling, under-estimates), [`sla`] (deadlines, fees, urgency classes), [`synth`]
//! (calibrated synthetic workloads), [`traces`] (where the real PWA logs are), and
//! [`WorkloadError`] for every failure.

mod blocks;
pub mod clean;
pub mod error;
pub mod gwf;
pub mod header;
pub mod inflate;
pub mod job;
pub mod reader;
pub mod sacct;
pub mod sla;
pub mod swf_line;
pub mod synth;
pub mod table;
pub mod traces;
pub mod transform;
pub mod writer;

pub use clean::{DropCounts, Workload};
pub use error::{Result, WorkloadError};
pub use header::SwfHeader;
pub use job::Job;
pub use reader::{ReadOptions, Trace};
pub use table::{JobTable, TableSummary};
