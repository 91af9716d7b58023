//! `cargo xtask oracle`: cross-checks of slarm against independent tools.
//!
//! A pinned Python environment (scipy, numpy, Ciw, pyworkforce) is created once under the
//! target directory; each comparison writes its inputs to a temporary folder (JSON, raw
//! little-endian `f64` files, SWF/CSV), runs one script of `xtask/oracle/`, reads the
//! reference answers back from files and compares them with our values through the `slarm`
//! facade. Every comparison prints one `PASS`/`FAIL` line with the figure and the tolerance;
//! the run ends with `N passed, N failed` and exits non-zero on any failure. When the
//! Python packages cannot be installed (no PyPI), it says so and exits 0.
//!
//! Comparisons: [`erlang`] (pyworkforce), [`convolution`] (scipy), [`ciw`] (Ciw M/M/c
//! simulations), [`easy`] (a reference EASY in Python written from design.md §3),
//! [`conservative`] (a reference conservative backfilling in Python written from Mu'alem &
//! Feitelson 2001).

mod ciw;
mod conservative;
mod convolution;
mod easy;
mod erlang;
pub(crate) mod pyenv;

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

/// Set (not empty, not `0`) in CI: Python packages that cannot be installed fail the oracle
/// instead of skipping it.
const REQUIRE_VAR: &str = "SLARM_REQUIRE_ORACLE";

fn required() -> bool {
    std::env::var_os(REQUIRE_VAR).is_some_and(|v| !v.is_empty() && v != "0")
}

use crate::workspace_root;

pub use pyenv::PythonEnv;

/// The result of one comparison: one printed line.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// Short stable name, e.g. `erlang/erlang-c`.
    pub name: String,
    /// Whether the figure is within the tolerance.
    pub passed: bool,
    /// What was measured (the figure and how many cases).
    pub figure: String,
    /// The tolerance the figure is held to.
    pub tolerance: String,
}

impl Outcome {
    /// An outcome whose verdict is `figure <= tolerance`.
    pub fn within(name: &str, value: f64, tol: f64, figure: String, tolerance: String) -> Self {
        Self {
            name: name.to_string(),
            passed: value.is_finite() && value <= tol,
            figure,
            tolerance,
        }
    }

    /// A failed comparison because the harness itself could not produce a figure.
    pub fn error(name: &str, message: &str) -> Self {
        Self {
            name: name.to_string(),
            passed: false,
            figure: format!("error: {message}"),
            tolerance: "-".to_string(),
        }
    }

    fn line(&self) -> String {
        format!(
            "{} {:<34} {}  [tolerance: {}]",
            if self.passed { "PASS" } else { "FAIL" },
            self.name,
            self.figure,
            self.tolerance
        )
    }
}

/// Everything a comparison needs: the Python environment, the scripts and a scratch folder.
pub struct Context {
    /// The pinned Python environment.
    pub python: PythonEnv,
    /// `xtask/oracle`, where the Python scripts live.
    pub scripts: PathBuf,
    /// A fresh scratch folder for this comparison's files.
    pub scratch: PathBuf,
    /// The folder of real traces, when present.
    pub traces: Option<PathBuf>,
    /// Jobs taken from the head of each real trace for the EASY comparison (`None`: all).
    pub easy_first: Option<usize>,
    /// Jobs taken from the head of CTC-SP2 for the conservative comparison (`None`: all).
    pub conservative_ctc_first: Option<usize>,
}

impl Context {
    /// Runs `script` with the given input document; returns the parsed output document.
    pub fn run_script(
        &self,
        script: &str,
        input: &serde_json::Value,
    ) -> Result<serde_json::Value, String> {
        let stem = script.trim_end_matches(".py");
        let inp = self.scratch.join(format!("{stem}-input.json"));
        let out = self.scratch.join(format!("{stem}-output.json"));
        write_json(&inp, input)?;
        self.python.run(
            &self.scripts.join(script),
            &[inp.as_os_str(), out.as_os_str()],
        )?;
        read_json(&out)
    }
}

/// True when `new` is a worse (larger) discrepancy than `old`; NaN is the worst of all.
pub fn worse(new: f64, old: f64) -> bool {
    new.is_nan() || new > old
}

/// Writes a JSON document to a file.
pub fn write_json(path: &Path, value: &serde_json::Value) -> Result<(), String> {
    let text = serde_json::to_string(value).map_err(|e| e.to_string())?;
    std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// Reads a JSON document from a file.
pub fn read_json(path: &Path) -> Result<serde_json::Value, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))
}

/// A comparison: its name and the function that runs it.
type Comparison = (&'static str, fn(&Context) -> Vec<Outcome>);

const COMPARISONS: &[Comparison] = &[
    ("erlang", erlang::compare),
    ("convolution", convolution::compare),
    ("ciw", ciw::compare),
    ("easy", easy::compare),
    ("conservative", conservative::compare),
];

const USAGE: &str = "usage: cargo xtask oracle [--only NAME]... [--keep] [--easy-first N|all]
                          [--conservative-ctc-first N|all]

  --only NAME     run only this comparison (erlang, convolution, ciw, easy, conservative);
                  repeatable
  --keep          keep the scratch folder with the exchanged files and print its path
  --easy-first N  jobs from the head of each real trace for the EASY check (default: all)
  --conservative-ctc-first N
                  job lines from the head of CTC-SP2 for the conservative check (default:
                  20000; KTH-SP2 and SDSC-SP2 are always compared whole)

environment: SLARM_ORACLE_PYTHON (base interpreter, default python3),
             SLARM_ORACLE_VENV (environment folder, default <target>/oracle-venv),
             SLARM_TRACES (trace folder, default ../shared/data/traces)";

struct Options {
    only: Vec<String>,
    keep: bool,
    easy_first: Option<usize>,
    conservative_ctc_first: Option<usize>,
}

/// `N` (a positive number) or `all` (`None`).
fn count_or_all(flag: &str, v: &str) -> Result<Option<usize>, String> {
    if v == "all" {
        return Ok(None);
    }
    v.parse::<usize>()
        .ok()
        .filter(|&n| n > 0)
        .map(Some)
        .ok_or(format!("{flag}: '{v}' is not a positive number or 'all'"))
}

fn parse_args(args: &[String]) -> Result<Options, String> {
    let mut opts = Options {
        only: Vec::new(),
        keep: false,
        easy_first: None,
        conservative_ctc_first: Some(conservative::CTC_DEFAULT_FIRST),
    };
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--only" => {
                let name = it.next().ok_or("--only needs a comparison name")?;
                if !COMPARISONS.iter().any(|(n, _)| n == name) {
                    return Err(format!("unknown comparison '{name}'"));
                }
                opts.only.push(name.clone());
            }
            "--keep" => opts.keep = true,
            "--easy-first" => {
                let v = it.next().ok_or("--easy-first needs a number or 'all'")?;
                opts.easy_first = count_or_all("--easy-first", v)?;
            }
            "--conservative-ctc-first" => {
                let v = it
                    .next()
                    .ok_or("--conservative-ctc-first needs a number or 'all'")?;
                opts.conservative_ctc_first = count_or_all("--conservative-ctc-first", v)?;
            }
            "-h" | "--help" => return Err(String::new()),
            other => return Err(format!("unknown argument '{other}'")),
        }
    }
    Ok(opts)
}

/// Runs `cargo xtask oracle [args]`.
pub fn run(args: &[String]) -> ExitCode {
    let opts = match parse_args(args) {
        Ok(o) => o,
        Err(msg) => {
            if !msg.is_empty() {
                eprintln!("xtask oracle: {msg}");
            }
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    let root = workspace_root();
    let started = Instant::now();
    let python = match PythonEnv::prepare(&root) {
        Ok(p) => p,
        Err(pyenv::SetupError::Unavailable(why)) if required() => {
            println!("FAIL oracle: the pinned Python packages cannot be installed ({why}) and {REQUIRE_VAR} is set: no comparison was run.");
            println!("0 passed, 1 failed");
            return ExitCode::FAILURE;
        }
        Err(pyenv::SetupError::Unavailable(why)) => {
            println!("SKIP oracle: the pinned Python packages cannot be installed ({why}); is PyPI reachable? No comparison was run.");
            println!("0 passed, 0 failed");
            return ExitCode::SUCCESS;
        }
        Err(pyenv::SetupError::Broken(why)) => {
            println!("FAIL oracle: Python environment: {why}");
            println!("0 passed, 1 failed");
            return ExitCode::FAILURE;
        }
    };
    println!(
        "oracle: Python environment {} ({})",
        python.dir().display(),
        pyenv::PINS.join(" ")
    );
    let scratch_root = match tempfile::Builder::new().prefix("slarm-oracle-").tempdir() {
        Ok(d) => d,
        Err(e) => {
            println!("FAIL oracle: cannot create a scratch folder: {e}");
            println!("0 passed, 1 failed");
            return ExitCode::FAILURE;
        }
    };
    let traces = match slarm::workload::traces::dir() {
        Ok(d) => Some(d),
        Err(missing) if slarm::workload::traces::required() => {
            println!("FAIL oracle: {missing} and the traces are required");
            println!("0 passed, 1 failed");
            return ExitCode::FAILURE;
        }
        Err(_) => None,
    };
    let (mut passed, mut failed) = (0usize, 0usize);
    for (name, compare) in COMPARISONS {
        if !opts.only.is_empty() && !opts.only.iter().any(|o| o == name) {
            continue;
        }
        let scratch = scratch_root.path().join(name);
        let outcomes = match std::fs::create_dir_all(&scratch) {
            Ok(()) => {
                let ctx = Context {
                    python: python.clone(),
                    scripts: root.join("xtask/oracle"),
                    scratch,
                    traces: traces.clone(),
                    easy_first: opts.easy_first,
                    conservative_ctc_first: opts.conservative_ctc_first,
                };
                let t0 = Instant::now();
                let out = compare(&ctx);
                eprintln!("oracle: {name} took {:.1} s", t0.elapsed().as_secs_f64());
                out
            }
            Err(e) => vec![Outcome::error(name, &format!("scratch folder: {e}"))],
        };
        for o in outcomes {
            println!("{}", o.line());
            if o.passed {
                passed += 1;
            } else {
                failed += 1;
            }
        }
    }
    if opts.keep {
        let kept = scratch_root.keep();
        println!("oracle: exchanged files kept in {}", kept.display());
    }
    println!(
        "oracle: total time {:.1} s",
        started.elapsed().as_secs_f64()
    );
    println!("{passed} passed, {failed} failed");
    if failed > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn conservative_ctc_prefix_defaults_to_20000_and_takes_all_or_a_count() {
        let o = parse_args(&[]).unwrap();
        assert_eq!(o.conservative_ctc_first, Some(20_000));
        let o = parse_args(&args(&["--conservative-ctc-first", "all"])).unwrap();
        assert_eq!(o.conservative_ctc_first, None);
        let o = parse_args(&args(&["--conservative-ctc-first", "500"])).unwrap();
        assert_eq!(o.conservative_ctc_first, Some(500));
        let o = parse_args(&args(&["--only", "conservative"])).unwrap();
        assert_eq!(o.only, vec!["conservative".to_string()]);
    }

    #[test]
    fn bad_prefixes_are_refused_naming_the_value() {
        for bad in ["0", "-3", "many"] {
            let e = parse_args(&args(&["--conservative-ctc-first", bad]))
                .err()
                .unwrap();
            assert!(e.contains(&format!("'{bad}'")), "{e}");
        }
        assert!(parse_args(&args(&["--conservative-ctc-first"])).is_err());
    }
}
