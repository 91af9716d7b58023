//! `cargo xtask downstream`: builds and runs a Cargo project *outside* the workspace that
//! depends on slarm-queueing, slarm-sim, slarm-testing, slarm-workload, slarm-overbook and
//! slarm-pricing by path with `default-features = false`, as a downstream scheduler developer
//! would. It fails when a model crate needs the application layer, a default feature, or a
//! private item to do a sizing query, a quantile and a batch of sizings, its own scheduling
//! policy and EASY checked by the schedule checker, an accepted overbooking offer and a Libra+$
//! quote. A second project, `xtask/downstream-rand/`, depends on rand 0.10 itself and hands its
//! own `StdRng` to slarm-workload's synthetic model, slarm-grid's bag-of-tasks model and
//! slarm-provision's arrival profile, so the public signatures must take the current rand
//! traits. The project sources are `xtask/downstream/` and `xtask/downstream-rand/`.

use std::path::Path;
use std::process::{Command, ExitCode};

/// Runs the check; exit 0 when the downstream project builds and its checks pass.
pub fn run(_args: &[String]) -> ExitCode {
    let mut status = ExitCode::SUCCESS;
    for project in ["downstream", "downstream-rand"] {
        match check(project) {
            Ok(line) => println!("{project}: {line}"),
            Err(e) => {
                eprintln!("{project}: {e}");
                status = ExitCode::FAILURE;
            }
        }
    }
    status
}

fn check(project: &str) -> Result<String, String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .ok_or("xtask has no parent folder")?;
    let src = root.join("xtask").join(project);
    let dir = tempfile::Builder::new()
        .prefix("slarm-downstream-")
        .tempdir()
        .map_err(|e| format!("temporary folder: {e}"))?;
    let manifest = std::fs::read_to_string(src.join("Cargo.toml.in"))
        .map_err(|e| format!("{}: {e}", src.join("Cargo.toml.in").display()))?
        .replace("@ROOT@", &root.display().to_string());
    let write = |rel: &str, text: &str| -> Result<(), String> {
        let path = dir.path().join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
        }
        std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))
    };
    write("Cargo.toml", &manifest)?;
    let main = std::fs::read_to_string(src.join("src/main.rs"))
        .map_err(|e| format!("{}: {e}", src.join("src/main.rs").display()))?;
    write("src/main.rs", &main)?;
    // The workspace's lock file pins the same dependency versions the workspace is tested with.
    let lock =
        std::fs::read_to_string(root.join("Cargo.lock")).map_err(|e| format!("Cargo.lock: {e}"))?;
    write("Cargo.lock", &lock)?;
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args(["run", "--quiet", "--manifest-path"])
        .arg(dir.path().join("Cargo.toml"))
        .env("CARGO_TARGET_DIR", root.join("target/downstream"))
        .output()
        .map_err(|e| format!("cargo: {e}"))?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        return Err(format!(
            "the downstream project failed ({}):\n{}{}",
            out.status,
            stdout,
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    stdout
        .lines()
        .find(|l| l.starts_with("downstream ok"))
        .map(str::to_string)
        .ok_or_else(|| format!("no 'downstream ok' line in:\n{stdout}"))
}
