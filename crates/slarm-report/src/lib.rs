#![doc = include_str!("../README.md")]

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
