//! # slarm (command-line tool)
//!
//! The `slarm` binary (its contract: docs/cli.md): every command prints a readable table by default and
//! exactly one JSON object on stdout with the global `--json` flag. Exit code 0 on success,
//! 2 on bad input or a model without an answer, 1 on an internal error or an output that
//! cannot be written, 3 when `check-schedule` finds violations, 141 when stdout is a closed
//! pipe; the one-line reason goes to stderr. A panic is turned into exit code 1 with a
//! one-line message, never a backtrace dump.

mod cmd;
mod error;
mod limits;
mod output;
mod papers;

use std::io::Write;

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

/// Exit code when standard output is a closed pipe (`slarm ... | head -1`): the status a shell
/// reports for a process ended by SIGPIPE, 128 + 13, as `yes | head -1` gives.
const EXIT_BROKEN_PIPE: i32 = 141;

/// One line on stderr; a failing stderr is ignored (there is nowhere left to report it).
fn report(line: &str) {
    let _ = writeln!(std::io::stderr(), "slarm: {line}");
}

/// Parses the command line; help and version go to stdout (exit 0), an error becomes one line
/// on stderr with exit code 2 (clap's own message without its usage block).
fn parse() -> Cli {
    match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            use clap::error::ErrorKind;
            if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
                let _ = e.print();
                std::process::exit(0);
            }
            if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
                let _ = e.print();
                std::process::exit(2);
            }
            // clap's message without its usage block and tips, on one line.
            let rendered = e.render().to_string();
            let message: Vec<&str> = rendered
                .lines()
                .map(str::trim)
                .take_while(|l| !l.starts_with("Usage:") && !l.starts_with("For more information"))
                .filter(|l| !l.is_empty() && !l.starts_with("tip:"))
                .collect();
            let message = message.join(" ");
            let message = message.strip_prefix("error: ").unwrap_or(&message);
            report(&format!("error: {}", error::one_line(message)));
            std::process::exit(2);
        }
    }
}

fn main() {
    std::panic::set_hook(Box::new(|info| {
        report(&format!("internal error: {}", error::one_line(info)));
        std::process::exit(1);
    }));
    let cli = parse();
    match run(&cli) {
        Ok(out) => {
            let mut stdout = std::io::stdout().lock();
            if let Err(e) = out.write_to(cli.json, &mut stdout) {
                if e.kind() == std::io::ErrorKind::BrokenPipe {
                    std::process::exit(EXIT_BROKEN_PIPE);
                }
                report(&format!("error: cannot write to standard output: {e}"));
                std::process::exit(1);
            }
            if out.exit_code != 0 {
                if let Some(m) = &out.failure {
                    report(&format!("error: {m}"));
                }
                std::process::exit(out.exit_code);
            }
        }
        Err(e) => {
            if e.kind != error::Kind::BrokenPipe {
                report(&format!("error: {e}"));
            }
            std::process::exit(e.exit_code());
        }
    }
}
