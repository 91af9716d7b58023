//! The pinned Python environment of the oracle (a venv under the target directory).

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Exact versions installed into the environment: the four tools and every package they
/// pull in, as resolved by pip on Python 3.11 (x86_64 Linux) in November 2026.
pub const PINS: &[&str] = &[
    "numpy==1.26.4",
    "scipy==1.13.1",
    "Ciw==3.2.7",
    "pyworkforce==0.5.1",
    "absl-py==2.5.1",
    "cloudpickle==3.1.2",
    "immutabledict==4.3.1",
    "joblib==1.6.0",
    "networkx==3.6.1",
    "ortools==9.14.6206",
    "pandas==3.0.6",
    "protobuf==6.31.1",
    "python-dateutil==4.0.0",
    "tqdm==4.70.1",
    "typing_extensions==4.16.0",
    "tzdata==2026.6",
];

/// The modules every comparison imports; checked once after installation.
const IMPORT_CHECK: &str = "import numpy, scipy.signal, ciw, pyworkforce.queuing";

/// Why the environment could not be prepared.
#[derive(Debug)]
pub enum SetupError {
    /// No interpreter or no package index: the oracle is skipped, not failed.
    Unavailable(String),
    /// The environment exists but does not work: a failure.
    Broken(String),
}

/// A ready Python environment with the pinned packages.
#[derive(Debug, Clone)]
pub struct PythonEnv {
    dir: PathBuf,
    python: PathBuf,
}

fn tail(bytes: &[u8], lines: usize) -> String {
    let text = String::from_utf8_lossy(bytes);
    let all: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    all[all.len().saturating_sub(lines)..].join(" | ")
}

fn run_quiet(cmd: &mut Command) -> Result<Output, String> {
    cmd.output()
        .map_err(|e| format!("cannot run {:?}: {e}", cmd.get_program()))
}

fn venv_dir(root: &Path) -> PathBuf {
    if let Some(dir) = std::env::var_os("SLARM_ORACLE_VENV") {
        return PathBuf::from(dir);
    }
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target"));
    target.join("oracle-venv")
}

impl PythonEnv {
    /// Creates (first run) or reuses the environment; installs the pins when they changed.
    pub fn prepare(root: &Path) -> Result<Self, SetupError> {
        let dir = venv_dir(root);
        let python = dir.join("bin").join("python");
        let marker = dir.join("slarm-oracle-pins.txt");
        let wanted = PINS.join("\n");
        let env = Self { dir, python };
        if std::fs::read_to_string(&marker).ok().as_deref() == Some(wanted.as_str())
            && env.python.is_file()
        {
            return Ok(env);
        }
        let base = std::env::var_os("SLARM_ORACLE_PYTHON").unwrap_or_else(|| "python3".into());
        let out = run_quiet(Command::new(&base).arg("-m").arg("venv").arg(&env.dir))
            .map_err(SetupError::Unavailable)?;
        if !out.status.success() {
            return Err(SetupError::Unavailable(format!(
                "'{} -m venv' failed: {}",
                base.to_string_lossy(),
                tail(&out.stderr, 3)
            )));
        }
        eprintln!(
            "oracle: installing {} pinned packages into {} (first run only)",
            PINS.len(),
            env.dir.display()
        );
        let out = run_quiet(
            Command::new(&env.python)
                .args([
                    "-m",
                    "pip",
                    "install",
                    "--quiet",
                    "--disable-pip-version-check",
                    "--retries",
                    "2",
                    "--timeout",
                    "20",
                ])
                .args(PINS),
        )
        .map_err(SetupError::Unavailable)?;
        if !out.status.success() {
            return Err(SetupError::Unavailable(format!(
                "pip install failed: {}",
                tail(&out.stderr, 3)
            )));
        }
        let out = run_quiet(Command::new(&env.python).args(["-c", IMPORT_CHECK]))
            .map_err(SetupError::Broken)?;
        if !out.status.success() {
            return Err(SetupError::Broken(format!(
                "installed packages do not import: {}",
                tail(&out.stderr, 3)
            )));
        }
        std::fs::write(&marker, wanted)
            .map_err(|e| SetupError::Broken(format!("cannot write {}: {e}", marker.display())))?;
        Ok(env)
    }

    /// The environment folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The environment's interpreter.
    pub fn python(&self) -> &Path {
        &self.python
    }

    /// Runs a script with arguments; an error carries the end of its stderr.
    pub fn run(&self, script: &Path, args: &[&OsStr]) -> Result<(), String> {
        let out = run_quiet(Command::new(&self.python).arg(script).args(args))?;
        if out.status.success() {
            Ok(())
        } else {
            Err(format!(
                "{} failed ({}): {}",
                script
                    .file_name()
                    .map(|s| s.to_string_lossy())
                    .unwrap_or_default(),
                out.status,
                tail(&out.stderr, 4)
            ))
        }
    }
}
