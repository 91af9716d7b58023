//! `slarm reproduce` and `slarm merge` (design.md §4-§5).

use std::path::PathBuf;

use serde_json::json;

use crate::error::{CliError, CliResult};
use crate::output::Output;

/// All paper keys, in report order.
pub const PAPERS: [&str; 5] = [
    "hu2009",
    "birkenheuer2012",
    "yeo-buyya",
    "sung2006",
    "yigitbasi2010",
];

/// Arguments of `slarm reproduce`.
#[derive(Debug, clap::Args)]
pub struct ReproduceArgs {
    /// Papers to reproduce (default: all): hu2009, birkenheuer2012, yeo-buyya, sung2006, yigitbasi2010.
    papers: Vec<String>,
    /// quick (seconds, synthetic workloads) or paper (the full experiments).
    #[arg(long, default_value = "quick")]
    scale: String,
    /// Output folder.
    #[arg(long, default_value = "report")]
    out: PathBuf,
    /// Folder of PWA logs by archive file name (else $SLARM_TRACES, else synthetic workloads).
    #[arg(long)]
    traces: Option<PathBuf>,
    /// Root seed.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

/// Arguments of `slarm merge`.
#[derive(Debug, clap::Args)]
pub struct MergeArgs {
    /// Output folder.
    #[arg(long)]
    out: PathBuf,
    /// Shard output folders.
    shards: Vec<PathBuf>,
}

/// Runs `slarm reproduce`.
pub fn run(args: &ReproduceArgs) -> CliResult<Output> {
    for p in &args.papers {
        if !PAPERS.contains(&p.as_str()) {
            return Err(CliError::bad_input(format!(
                "unknown paper '{p}' (expected one of {})",
                PAPERS.join(", ")
            )));
        }
    }
    if args.scale != "quick" && args.scale != "paper" {
        return Err(CliError::bad_input(format!(
            "--scale '{}' (expected quick or paper)",
            args.scale
        )));
    }
    let wanted: Vec<&str> = if args.papers.is_empty() {
        PAPERS.to_vec()
    } else {
        args.papers.iter().map(String::as_str).collect()
    };
    let missing: Vec<&str> = wanted.clone();
    let text = format!(
        "slarm reproduce ({} scale, seed {}, out {}): not yet available: {}\n",
        args.scale,
        args.seed,
        args.out.display(),
        missing.join(", ")
    );
    Ok(Output::new(
        json!({"scale": args.scale, "seed": args.seed, "reproduced": [], "not_available": missing, "traces": args.traces}),
        text,
    ))
}

/// Runs `slarm merge`.
pub fn merge(args: &MergeArgs) -> CliResult<Output> {
    Err(CliError::internal(format!(
        "'slarm merge' is not available in this build yet ({} shards into {})",
        args.shards.len(),
        args.out.display()
    )))
}
