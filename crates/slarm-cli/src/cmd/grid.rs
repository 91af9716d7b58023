//! `slarm grid` (design.md §4). Not yet available in this build: its model crate is in progress.

use crate::error::{CliError, CliResult};
use crate::output::Output;

/// Arguments of `slarm grid`.
#[derive(Debug, clap::Args)]
pub struct GridArgs {
    /// Arguments (this command is not yet available).
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    rest: Vec<String>,
}

/// Runs `slarm grid`.
pub fn run(args: &GridArgs) -> CliResult<Output> {
    Err(CliError::internal(format!(
        "'slarm grid' is not available in this build yet (arguments {:?})",
        args.rest
    )))
}
