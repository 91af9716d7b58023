//! What the CLI tests share beyond `assert_cmd`: the `slarm` command, its one JSON object,
//! and the one-line error contract (exit code 2, one line on stderr).
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use assert_cmd::assert::Assert;
use assert_cmd::Command;
use predicates::prelude::*;

/// `slarm ARGS`, with no trace folder inherited from the environment (`SLARM_TRACES`).
pub fn slarm<I, S>(args: I) -> Command
where
    I: IntoIterator<Item = S>,
    S: AsRef<std::ffi::OsStr>,
{
    let mut cmd = assert_cmd::cargo::cargo_bin_cmd!("slarm");
    cmd.env_remove("SLARM_TRACES").args(args);
    cmd
}

/// The one JSON object a run printed on stdout.
pub fn json_of(assert: &Assert) -> serde_json::Value {
    let out = assert.get_output();
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is not one JSON object ({e}): {}",
            String::from_utf8_lossy(&out.stdout)
        )
    })
}

/// Runs `slarm ARGS`, which must succeed, and parses its one JSON object.
pub fn slarm_json<I, S>(args: I) -> serde_json::Value
where
    I: IntoIterator<Item = S>,
    S: AsRef<std::ffi::OsStr>,
{
    json_of(&slarm(args).assert().success())
}

/// What a run wrote on stderr.
pub fn stderr_of(assert: &Assert) -> String {
    String::from_utf8_lossy(&assert.get_output().stderr).into_owned()
}

/// Stderr holds exactly one line (after trailing whitespace).
pub fn one_line() -> impl Predicate<str> {
    predicate::function(|s: &str| s.trim_end().lines().count() == 1)
}

/// The text docs/cli.md writes to `name` with `cat > NAME <<'EOF'` (the synthetic inputs of
/// its examples live in the docs only, so the tests and the examples read the same text).
pub fn docs_file(name: &str) -> String {
    let docs = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/cli.md");
    let text = std::fs::read_to_string(&docs).unwrap();
    let open = format!("cat > {name} <<'EOF'\n");
    let from = text
        .find(&open)
        .unwrap_or_else(|| panic!("docs/cli.md writes no {name}"))
        + open.len();
    let len = text[from..].find("\nEOF\n").unwrap();
    format!("{}\n", &text[from..from + len])
}
