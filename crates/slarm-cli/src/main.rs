//! # slarm (command-line tool)
//!
//! The `slarm` binary (its contract: docs/cli.md): every command prints a readable table by default and
//! exactly one JSON object on stdout with the global `--json` flag. Exit code 0 on success,
//! 2 on bad input or a model without an answer, 1 on an internal error, 3 when
//! `check-schedule` finds violations; the one-line reason goes to stderr. A panic is turned into exit code 1 with a one-line message, never a
//! backtrace dump.

mod cmd;
mod error;
mod output;
mod papers;

use clap::{Parser, Subcommand};

use crate::error::CliResult;
use crate::output::Output;

/// SLA-aware resource management for clusters and grids.
#[derive(Debug, Parser)]
#[command(name = "slarm", version, about, long_about = None, propagate_version = true)]
struct Cli {
    /// Print exactly one JSON object on stdout instead of a table.
    #[arg(long, global = true)]
    json: bool,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Multiclass M/M/m response-time SLAs (Hu 2009): CDF, sizing, simulation.
    Queue(cmd::queue::QueueArgs),
    /// Standard Workload Format traces: statistics.
    Trace(cmd::trace::TraceArgs),
    /// Simulate a trace under FCFS, EASY or conservative backfilling.
    Simulate(cmd::simulate::SimulateArgs),
    /// Check a schedule CSV against a trace under a FCFS, EASY, conservative or capacity contract.
    CheckSchedule(cmd::check_schedule::CheckScheduleArgs),
    /// Libra / Libra+$ admission control and pricing (Yeo & Buyya).
    Libra(cmd::libra::LibraArgs),
    /// Risk-aware overbooking in an SLA planning scheduler (Birkenheuer 2012).
    Overbook(cmd::overbook::OverbookArgs),
    /// Cost-aware dynamic provisioning with backward-recursion cost tables (Sung 2006).
    Provision(cmd::provision::ProvisionArgs),
    /// Overprovisioning for consistent BoT performance in a multicluster grid (Yigitbasi & Epema 2010).
    Grid(cmd::grid::GridArgs),
    /// Reproduce the papers' tables and figures into a static report.
    Reproduce(cmd::reproduce::ReproduceArgs),
    /// Join the outputs of sharded `reproduce` runs into one report.
    Merge(cmd::reproduce::MergeArgs),
}

fn run(cli: &Cli) -> CliResult<Output> {
    match &cli.command {
        Command::Queue(a) => cmd::queue::run(a, cli.json),
        Command::Trace(a) => cmd::trace::run(a),
        Command::Simulate(a) => cmd::simulate::run(a),
        Command::CheckSchedule(a) => cmd::check_schedule::run(a),
        Command::Libra(a) => cmd::libra::run(a),
        Command::Overbook(a) => cmd::overbook::run(a),
        Command::Provision(a) => cmd::provision::run(a),
        Command::Grid(a) => cmd::grid::run(a),
        Command::Reproduce(a) => cmd::reproduce::run(a),
        Command::Merge(a) => cmd::reproduce::merge(a),
    }
}

fn main() {
    std::panic::set_hook(Box::new(|info| {
        let msg = info
            .to_string()
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        eprintln!("slarm: internal error: {msg}");
        std::process::exit(1);
    }));
    let cli = Cli::parse();
    match run(&cli) {
        Ok(out) => {
            out.print(cli.json);
            if out.exit_code != 0 {
                if let Some(m) = &out.failure {
                    eprintln!("slarm: error: {m}");
                }
                std::process::exit(out.exit_code);
            }
        }
        Err(e) => {
            eprintln!("slarm: error: {e}");
            std::process::exit(e.exit_code());
        }
    }
}
