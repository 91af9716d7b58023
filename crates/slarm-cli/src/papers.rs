//! The registry of paper reproductions: `slarm-repro`'s `papers` modules.

pub use slarm_repro::papers::{registry, PAPERS};
