//! Locating the real PWA traces for tests, examples and benches.
//!
//! The traces are never copied into the repository. They are looked up in `$SLARM_TRACES`
//! if set, else in a default folder beside the workspace ([`configured_dir`]). Code that
//! needs a trace asks [`locate`] (a typed answer) or [`or_skip`] (prints one "skipping" line
//! on stderr and returns `None`, so a test can `return` early and still pass on a machine
//! without the traces). Where the traces must be there, as in continuous integration, set
//! [`REQUIRE_VAR`] (`SLARM_REQUIRE_TRACES=1`): the `*_or_skip` helpers then panic with the
//! same message, so a test that would have skipped fails instead.
//!
//! ```
//! use slarm_workload::traces;
//!
//! match traces::locate("HPC2N-2002-2.2-cln.swf.gz") {
//!     Ok(path) => assert!(path.is_file()),
//!     Err(missing) => assert!(missing.to_string().starts_with("skipping:")),
//! }
//! ```

use std::path::{Path, PathBuf};

/// The environment variable naming the trace folder.
pub const ENV_VAR: &str = "SLARM_TRACES";

/// The environment variable that turns a skip into a failure: when it is set to anything but
/// empty or `0`, [`or_skip`], [`dir_or_skip`] and [`files_or_skip`] panic instead of skipping.
pub const REQUIRE_VAR: &str = "SLARM_REQUIRE_TRACES";

/// The default folder, beside the workspace root.
const DEFAULT_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/data/traces");

/// A trace (or the trace folder) that is not there, with the reason as its message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MissingTrace {
    /// What was looked for.
    pub path: PathBuf,
    /// True when the folder itself is missing, false when only the file is.
    pub folder_missing: bool,
}

impl std::fmt::Display for MissingTrace {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let what = if self.folder_missing {
            "trace folder"
        } else {
            "trace"
        };
        write!(
            f,
            "skipping: {what} {} not found (set {ENV_VAR} to the folder of PWA logs)",
            self.path.display()
        )
    }
}

impl std::error::Error for MissingTrace {}

/// The trace folder: `$SLARM_TRACES` if set, else the default folder beside the workspace.
/// The folder may not exist; [`dir`] checks.
pub fn configured_dir() -> PathBuf {
    match std::env::var_os(ENV_VAR) {
        Some(d) if !d.is_empty() => PathBuf::from(d),
        _ => clean(Path::new(DEFAULT_DIR)),
    }
}

/// Resolves `a/b/../c` textually (without touching the file system) for readable messages.
fn clean(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            std::path::Component::ParentDir if out.file_name().is_some() => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// The trace folder if it exists.
pub fn dir() -> Result<PathBuf, MissingTrace> {
    let d = configured_dir();
    if d.is_dir() {
        Ok(d)
    } else {
        Err(MissingTrace {
            path: d,
            folder_missing: true,
        })
    }
}

/// The path of trace `name` (an archive file name such as `HPC2N-2002-2.2-cln.swf.gz`) if
/// the file exists.
pub fn locate(name: &str) -> Result<PathBuf, MissingTrace> {
    let path = dir()?.join(name);
    if path.is_file() {
        Ok(path)
    } else {
        Err(MissingTrace {
            path,
            folder_missing: false,
        })
    }
}

/// Every gzip trace (`*.gz`) in the trace folder, sorted by file name.
pub fn files() -> Result<Vec<PathBuf>, MissingTrace> {
    let d = dir()?;
    let entries = std::fs::read_dir(&d).map_err(|_| MissingTrace {
        path: d.clone(),
        folder_missing: true,
    })?;
    let mut out: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "gz"))
        .collect();
    out.sort();
    Ok(out)
}

/// Whether [`REQUIRE_VAR`] asks for the traces to be present.
pub fn required() -> bool {
    requires(std::env::var_os(REQUIRE_VAR).as_deref())
}

/// [`required`] for a given value of the variable: set, not empty and not `0`.
fn requires(value: Option<&std::ffi::OsStr>) -> bool {
    value.is_some_and(|v| !v.is_empty() && v != "0")
}

/// The skip of the `*_or_skip` helpers.
fn skip<T>(m: MissingTrace) -> Option<T> {
    skip_or_fail(m, required())
}

/// Print the message and give `None`, or, when `required`, fail the calling test with it.
#[allow(clippy::panic)] // a test helper: failing the test is the point when traces are required
fn skip_or_fail<T>(m: MissingTrace, required: bool) -> Option<T> {
    if required {
        panic!("{m} ({REQUIRE_VAR} is set: the traces must be present)");
    }
    eprintln!("{m}");
    None
}

/// For tests and examples: [`locate`], printing the "skipping" message on stderr and
/// returning `None` when the trace is absent (a panic instead when [`required`]).
pub fn or_skip(name: &str) -> Option<PathBuf> {
    locate(name).map_or_else(skip, Some)
}

/// For tests and examples: the trace folder, or `None` after printing the "skipping"
/// message on stderr (a panic instead when [`required`]).
pub fn dir_or_skip() -> Option<PathBuf> {
    dir().map_or_else(skip, Some)
}

/// For tests and examples: [`files`], or `None` after printing the "skipping" message (a
/// panic instead when [`required`]).
pub fn files_or_skip() -> Option<Vec<PathBuf>> {
    files().map_or_else(skip, Some)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_name_the_path_and_the_variable() {
        let m = MissingTrace {
            path: PathBuf::from("/nowhere/x.swf.gz"),
            folder_missing: false,
        };
        assert_eq!(
            m.to_string(),
            "skipping: trace /nowhere/x.swf.gz not found (set SLARM_TRACES to the folder of PWA logs)"
        );
        assert_eq!(clean(Path::new("/a/b/../c")), PathBuf::from("/a/c"));
        assert!(locate("no-such-trace.swf.gz").is_err());
    }

    #[test]
    fn a_required_trace_fails_instead_of_skipping() {
        let missing = || MissingTrace {
            path: PathBuf::from("/nowhere/x.swf.gz"),
            folder_missing: true,
        };
        assert_eq!(skip_or_fail::<()>(missing(), false), None);
        let failed = std::panic::catch_unwind(|| skip_or_fail::<()>(missing(), true));
        let msg = failed
            .err()
            .and_then(|e| e.downcast_ref::<String>().cloned())
            .unwrap_or_default();
        assert!(msg.contains("/nowhere/x.swf.gz"), "{msg}");
        assert!(msg.contains("SLARM_REQUIRE_TRACES is set"), "{msg}");
        use std::ffi::OsStr;
        assert!(!requires(None));
        assert!(!requires(Some(OsStr::new(""))));
        assert!(!requires(Some(OsStr::new("0"))));
        assert!(requires(Some(OsStr::new("1"))));
    }
}
