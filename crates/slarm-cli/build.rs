//! Records the source revision the binary is built from (`git describe --always --dirty`), so
//! that `slarm reproduce` writes the revision of its own code into `run.json`, however the
//! checkout moves on after the build. Outside a git checkout of the workspace (a packaged
//! crate, a tarball) nothing is recorded and the binary reports its version instead.

use std::path::{Path, PathBuf};
use std::process::Command;

fn git(dir: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    String::from_utf8(out.stdout)
        .ok()
        .map(|s| s.trim().to_string())
}

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default());
    // The workspace root is two levels up; a packaged copy (target/package/...) is not it.
    let root = manifest.join("../..");
    let top = git(&manifest, &["rev-parse", "--show-toplevel"]).map(PathBuf::from);
    let same = match (top.as_deref().map(Path::canonicalize), root.canonicalize()) {
        (Some(Ok(t)), Ok(r)) => t == r,
        _ => false,
    };
    if !same {
        println!("cargo:rerun-if-changed=build.rs");
        return;
    }
    // Re-run when HEAD moves, a branch is updated or the index changes (staging, commits).
    for what in ["HEAD", "index"] {
        if let Some(p) = git(&manifest, &["rev-parse", "--git-path", what]) {
            println!("cargo:rerun-if-changed={}", manifest.join(p).display());
        }
    }
    if let Some(r) = git(&manifest, &["symbolic-ref", "-q", "HEAD"]) {
        if let Some(p) = git(&manifest, &["rev-parse", "--git-path", &r]) {
            println!("cargo:rerun-if-changed={}", manifest.join(p).display());
        }
    }
    if let Some(p) = git(&manifest, &["rev-parse", "--git-path", "packed-refs"]) {
        println!("cargo:rerun-if-changed={}", manifest.join(p).display());
    }
    // ... and when a source file of the workspace changes, so `-dirty` is current.
    for entry in std::fs::read_dir(root.join("crates"))
        .into_iter()
        .flatten()
        .flatten()
    {
        for part in ["src", "Cargo.toml"] {
            let p = entry.path().join(part);
            if p.exists() {
                println!("cargo:rerun-if-changed={}", p.display());
            }
        }
    }
    println!(
        "cargo:rerun-if-changed={}",
        root.join("Cargo.lock").display()
    );
    println!("cargo:rerun-if-changed=build.rs");
    if let Some(rev) = git(
        &manifest,
        &[
            "describe",
            "--always",
            "--dirty",
            "--abbrev=12",
            "--exclude=*",
        ],
    ) {
        println!("cargo:rustc-env=SLARM_BUILD_REVISION={rev}");
    }
}
