//! `slarm libra` (design.md §4). Not yet available in this build: its model crate is in progress.

use crate::error::{CliError, CliResult};
use crate::output::Output;

/// Arguments of `slarm libra`.
#[derive(Debug, clap::Args)]
pub struct LibraArgs {
    /// Arguments (this command is not yet available).
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    rest: Vec<String>,
}

/// Runs `slarm libra`.
pub fn run(args: &LibraArgs) -> CliResult<Output> {
    Err(CliError::internal(format!(
        "'slarm libra' is not available in this build yet (arguments {:?})",
        args.rest
    )))
}
