//! One module per command; each exposes its clap arguments and `run`.

pub mod check_schedule;
pub mod grid;
pub mod libra;
pub mod overbook;
pub mod provision;
pub mod queue;
pub mod reproduce;
pub mod simulate;
pub mod trace;
