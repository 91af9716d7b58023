//! Developer automation for slarm (`cargo xtask <task>`).
//!
//! - `ci`: the same steps as `.ci/run` (fmt, clippy `-D warnings`, tests, docs, bench build).
//! - `oracle`: cross-checks against independent tools (scipy, pyworkforce, Ciw, a reference EASY).

mod oracle;

use std::process::{Command, ExitCode};

/// One CI step: name, cargo arguments, extra environment.
type CiStep = (
    &'static str,
    &'static [&'static str],
    &'static [(&'static str, &'static str)],
);

/// The CI steps, shared by `cargo xtask ci` and documented in `.ci/run`.
const CI_STEPS: &[CiStep] = &[
    ("format", &["fmt", "--all", "--check"], &[]),
    (
        "lint",
        &[
            "clippy",
            "--workspace",
            "--all-targets",
            "--",
            "-D",
            "warnings",
        ],
        &[],
    ),
    ("test", &["test", "--workspace"], &[]),
    (
        "docs",
        &["doc", "--workspace", "--no-deps"],
        &[("RUSTDOCFLAGS", "-D warnings")],
    ),
    ("benches build", &["bench", "--workspace", "--no-run"], &[]),
];

fn ci() -> ExitCode {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    for (name, args, envs) in CI_STEPS {
        eprintln!("== xtask ci: {name}: cargo {}", args.join(" "));
        let status = Command::new(&cargo)
            .args(*args)
            .envs(envs.iter().copied())
            .status();
        match status {
            Ok(s) if s.success() => {}
            Ok(s) => {
                eprintln!("xtask ci: step '{name}' failed ({s})");
                return ExitCode::FAILURE;
            }
            Err(e) => {
                eprintln!("xtask ci: cannot run cargo: {e}");
                return ExitCode::FAILURE;
            }
        }
    }
    ExitCode::SUCCESS
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("ci") => ci(),
        Some("oracle") => oracle::run(&args[1..]),
        _ => {
            eprintln!("usage: cargo xtask <task>\n\ntasks:\n  ci    fmt, clippy -D warnings, tests, docs, bench build (as .ci/run)\n  oracle   cross-check against scipy, pyworkforce, Ciw and a reference EASY");
            ExitCode::from(2)
        }
    }
}
