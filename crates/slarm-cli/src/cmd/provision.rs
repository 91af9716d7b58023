//! `slarm provision` (design.md §4). Not yet available in this build: its model crate is in progress.

use crate::error::{CliError, CliResult};
use crate::output::Output;

/// Arguments of `slarm provision`.
#[derive(Debug, clap::Args)]
pub struct ProvisionArgs {
    /// Arguments (this command is not yet available).
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    rest: Vec<String>,
}

/// Runs `slarm provision`.
pub fn run(args: &ProvisionArgs) -> CliResult<Output> {
    Err(CliError::internal(format!(
        "'slarm provision' is not available in this build yet (arguments {:?})",
        args.rest
    )))
}
