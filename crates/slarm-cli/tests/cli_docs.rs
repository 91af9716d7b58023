//! Every `console` block of README.md, docs/cli.md and docs/guide.md runs as written (trycmd): each `$ slarm
//! ...` line is run and its output compared with the lines below it (`...` skips lines, `[..]`
//! the rest of a line, `? N` is the exit code).
//!
//! The commands run in a scratch folder that stands for the repository root, with
//! the folder `shared` beside it linked to the real one next to this checkout and a folder
//! `traces` in it linked to the trace folder, so the examples' trace paths read the traces and their output files (`kth-easy.csv`,
//! `shard1`, `report`) land in the scratch folder. Input files the examples name by their
//! repository path (the `queue size --batch` CSV, the `check-schedule` schedule) are copied
//! there to the same path; the synthetic trace that docs/cli.md writes first is written
//! there from that block, and so is its sacct log `site.sacct`. Without that trace folder the test says so and checks nothing.
//!
//! Not checked here: the README's ```sh blocks, `cargo run --release -p slarm-cli -- reproduce
//! ...` and `cargo test --workspace` (whole reproductions take minutes to hours): `.ci/run` runs
//! the quick-scale reproduction and the tests itself; the paper-scale line with `--traces` is
//! the one documented command no automatic check runs.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::{Path, PathBuf};

use common::docs_file;

#[cfg(unix)]
#[test]
fn readme_and_cli_md_examples_run_as_written() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap();
    let shared = repo.join("../shared");
    if !shared.join("data/traces").is_dir() {
        let msg = format!(
            "the documented examples read traces in {}, which is absent",
            shared.join("data/traces").display()
        );
        // In CI (SLARM_REQUIRE_TRACES set) a missing trace folder fails instead of skipping.
        assert!(!slarm::workload::traces::required(), "{msg}");
        eprintln!("skipped: {msg}");
        return;
    }
    let scratch = tempfile::tempdir().unwrap();
    let root = scratch.path().join("slarm");
    std::fs::create_dir(&root).unwrap();
    std::os::unix::fs::symlink(
        shared.canonicalize().unwrap(),
        scratch.path().join("shared"),
    )
    .unwrap();
    // docs/guide.md reads the traces from a folder `traces` in the repository root.
    std::os::unix::fs::symlink(
        shared.join("data/traces").canonicalize().unwrap(),
        root.join("traces"),
    )
    .unwrap();
    // Input files the examples name by their path in the repository, and the synthetic
    // trace docs/cli.md has the reader write first (its `sh` block, which trycmd skips).
    let inputs: &[&str] = &[
        "crates/slarm-cli/tests/data/queue-batch.csv",
        "crates/slarm-cli/tests/data/check-broken.csv",
    ];
    std::fs::write(root.join("three-jobs.swf"), docs_file("three-jobs.swf")).unwrap();
    std::fs::write(root.join("site.sacct"), docs_file("site.sacct")).unwrap();
    for file in inputs {
        let to = root.join(file);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(repo.join(file), to).unwrap();
    }
    // trycmd runs a Markdown case in the current folder; this test binary has no other test.
    std::env::set_current_dir(&root).unwrap();
    let cases = trycmd::TestCases::new();
    cases
        .register_bin("slarm", PathBuf::from(env!("CARGO_BIN_EXE_slarm")))
        .env(
            "SLARM_TRACES",
            shared.join("data/traces").display().to_string(),
        )
        .case(repo.join("README.md"))
        .case(repo.join("docs/cli.md"))
        .case(repo.join("docs/guide.md"));
    cases.run();
}
