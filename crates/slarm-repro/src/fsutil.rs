//! Atomic file writes and checksums.

use std::io::Write;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::ReproError;

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> ReproError + '_ {
    move |source| ReproError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Creates `dir` and its parents.
pub fn ensure_dir(dir: &Path) -> Result<(), ReproError> {
    std::fs::create_dir_all(dir).map_err(io(dir))
}

/// Writes `bytes` to `path` atomically: a temporary file in the same folder, then a rename.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), ReproError> {
    let dir = path.parent().unwrap_or_else(|| Path::new("."));
    ensure_dir(dir)?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp: PathBuf = dir.join(format!(".{name}.tmp{}", std::process::id()));
    {
        let mut f = std::fs::File::create(&tmp).map_err(io(&tmp))?;
        f.write_all(bytes).map_err(io(&tmp))?;
        f.sync_all().map_err(io(&tmp))?;
    }
    std::fs::rename(&tmp, path).map_err(io(path))
}

/// Reads a whole file.
pub fn read(path: &Path) -> Result<Vec<u8>, ReproError> {
    std::fs::read(path).map_err(io(path))
}

/// Lists the entries of `dir` (sorted by name); a missing folder lists nothing.
pub fn list_dir(dir: &Path) -> Result<Vec<PathBuf>, ReproError> {
    if !dir.exists() {
        return Ok(Vec::new());
    }
    let mut v = Vec::new();
    for e in std::fs::read_dir(dir).map_err(io(dir))? {
        v.push(e.map_err(io(dir))?.path());
    }
    v.sort();
    Ok(v)
}

/// Whether `name` is a temporary file of [`write_atomic`].
fn is_temporary(name: &str) -> bool {
    name.starts_with('.') && name.contains(".tmp")
}

/// Clears a paper folder `dir` and its `cells/`: with `results`, every result file (`*.json`,
/// `*.csv`, `*.svg`), so that no file of an earlier configuration stays behind; with
/// `temporaries`, the temporaries an interrupted [`write_atomic`] left. Other files (a user's
/// notes, say) stay.
pub fn clear_outputs(dir: &Path, results: bool, temporaries: bool) -> Result<(), ReproError> {
    for sub in [dir.join("cells"), dir.to_path_buf()] {
        for p in list_dir(&sub)? {
            let name = p
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            let result = [".json", ".csv", ".svg"].iter().any(|e| name.ends_with(e));
            let tmp = is_temporary(&name);
            if p.is_file() && ((temporaries && tmp) || (results && result && !tmp)) {
                std::fs::remove_file(&p).map_err(io(&p))?;
            }
        }
    }
    Ok(())
}

/// CPU seconds (user + system, all threads, children excluded) used so far by this process,
/// read from Linux's `/proc/self/stat` (clock ticks of 1/100 s); `None` elsewhere.
pub fn process_cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the parenthesised command name; utime and stime are fields 14 and 15.
    let rest = stat.get(stat.rfind(')')? + 2..)?;
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks: u64 = f.get(11)?.parse::<u64>().ok()? + f.get(12)?.parse::<u64>().ok()?;
    Some(ticks as f64 / 100.0)
}

/// Lower-case hex SHA-256 of a file.
pub fn sha256_file(path: &Path) -> Result<String, ReproError> {
    let bytes = read(path)?;
    let digest = Sha256::digest(&bytes);
    Ok(digest.iter().map(|b| format!("{b:02x}")).collect())
}

/// Pretty JSON with a trailing newline (stable: serde_json maps are sorted).
pub fn to_json_bytes<T: serde::Serialize>(value: &T) -> Vec<u8> {
    let mut v = serde_json::to_vec_pretty(value)
        .unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}").into_bytes());
    v.push(b'\n');
    v
}
