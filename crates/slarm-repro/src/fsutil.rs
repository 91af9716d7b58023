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
