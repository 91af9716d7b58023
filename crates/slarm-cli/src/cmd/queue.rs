//! `slarm queue` (design.md §4). Not yet available in this build: its model crate is in progress.

use crate::error::{CliError, CliResult};
use crate::output::Output;

/// Arguments of `slarm queue`.
#[derive(Debug, clap::Args)]
pub struct QueueArgs {
    /// Arguments (this command is not yet available).
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    rest: Vec<String>,
}

/// Runs `slarm queue`.
pub fn run(args: &QueueArgs) -> CliResult<Output> {
    Err(CliError::internal(format!(
        "'slarm queue' is not available in this build yet (arguments {:?})",
        args.rest
    )))
}
