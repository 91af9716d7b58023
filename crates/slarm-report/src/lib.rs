//! # slarm-report
//!
//! The contract between the model crates and `slarm reproduce` (design.md §4-§5). A paper's
//! reproduction is an [`Experiment`]: a list of independent [`CellSpec`]s (one simulation
//! sweep point, one table row, one trace...), a pure function that runs one cell to a JSON
//! value, and an assembly step that turns all cell results into a [`PaperReport`] of
//! [`Table`]s, [`Check`]s (our value beside the published one, the deviation and a
//! [`Verdict`]) and [`Figure`]s. Because cells are independent and each draws its random
//! numbers from a stream keyed by (seed, paper, cell id), running every N-th cell on N
//! machines and merging gives the same bytes as one run.
//!
//! This crate holds types and pure renderers (CSV); it does no I/O beyond checking that a
//! trace file exists.
//!
//! ```
//! use slarm_report::{Check, Verdict};
//! let c = Check::numeric("t4.3/d", "SLA difference D, row 1", 0.512, Some(0.50), 0.05);
//! assert_eq!(c.verdict, Verdict::WithinTolerance);
//! assert!((c.deviation.unwrap() - 0.012).abs() < 1e-12);
//! ```

mod check;
mod experiment;
mod figure;
mod table;

pub use check::{Check, Value, Verdict};
pub use experiment::{
    CellOutput, CellSpec, Experiment, ExperimentError, PaperReport, RunConfig, Scale,
};
pub use figure::{Figure, FigureKind, Series};
pub use table::{Cell, Table};
