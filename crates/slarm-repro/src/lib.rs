#![doc = include_str!("../README.md")]
//!
//! ## What a run does
//!
//! - runs the cells of the selected papers in parallel (rayon; `jobs` threads), writing each
//!   cell's output atomically to `DIR/<paper>/cells/<cell>.json`, so an interrupted run loses
//!   nothing and `resume` skips cells already on disk;
//! - runs only every N-th cell with a [`Shard`] `K/N`, and [`merge`]s shard folders into
//!   exactly the files (byte for byte) that one unsharded run writes;
//! - assembles each complete paper into `DIR/<paper>/`: `report.json`, one CSV and one JSON per
//!   table, `checks.csv`/`checks.json`, one SVG per figure (plotters), and `run.json` (seed,
//!   scale, git revision, trace checksums, the files written); `DIR/index.html`, a static page
//!   with every table, check and figure; and `DIR/summary.md`, every check as Markdown for
//!   docs/reproduction.md;
//! - keeps wall-clock timings apart, in `DIR/timings.json` (the run: wall and CPU seconds) and
//!   `DIR/<paper>/timings.json` (seconds per cell): the only files ([`TIMINGS`]) that differ
//!   between two runs, as [`compare_outputs`] checks.
//!
//! ## Entry points
//!
//! [`reproduce`], [`merge`], [`compare_outputs`], [`Options`], [`Shard`], [`RunSummary`]; the
//! paper registry in [`papers`]; [`write_output`], the atomic writer every output file goes
//! through (the `slarm` command line uses it for its own output files too).

mod compare;
mod config;
mod error;
mod fsutil;
mod html;
mod options;
pub mod papers;
mod reason;
mod run;
pub mod sim_report;
mod svg;
mod write;

/// The experiment contract the papers implement (the `slarm-report` crate).
pub use slarm_report as report;

pub use compare::{compare_outputs, Comparison};
pub use error::ReproError;
pub use fsutil::write_output;
pub use html::tables_markdown;
pub use options::{Options, Shard};
pub use run::{merge, reproduce, PaperSummary, RunSummary, TIMINGS};
pub use svg::render_svg;
