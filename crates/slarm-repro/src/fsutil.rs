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

/// Writes `bytes` to `path` atomically (see [`write_output`]), creating its folder first.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), ReproError> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        ensure_dir(dir)?;
    }
    write_output(path, |w| w.write_all(bytes)).map_err(io(path))
}

/// The temporary-file prefix for `name`: `.NAME.`; with the suffix `.tmp`, a temporary of
/// [`write_output`] is `.NAME.XXXXXX.tmp` in the target's folder ([`is_temporary`]).
fn temporary_affixes(name: &str) -> (String, &'static str) {
    (format!(".{name}."), ".tmp")
}

/// Writes the output file `path` with `write`, so that no reader ever sees it half written.
///
/// - `-` is standard output.
/// - A symbolic link is followed: its target is written and the link stays.
/// - An existing file that is not a regular file (a FIFO, a character device such as
///   `/dev/null` or `/dev/stdout`) is opened and written in place, never replaced.
/// - A regular file, or a new path, is written to a temporary file in the same folder
///   (`.NAME.XXXXXX.tmp`, from [`tempfile`]), flushed to disk and renamed over `path`; on every
///   error the temporary is removed. The folder must exist.
pub fn write_output<F>(path: &Path, write: F) -> std::io::Result<()>
where
    F: FnOnce(&mut dyn Write) -> std::io::Result<()>,
{
    if path.as_os_str() == "-" {
        let stdout = std::io::stdout();
        let mut lock = stdout.lock();
        write(&mut lock)?;
        return lock.flush();
    }
    let target = resolve_links(path)?;
    if let Ok(meta) = std::fs::metadata(&target) {
        if !meta.is_file() {
            let mut f = std::fs::OpenOptions::new().write(true).open(&target)?;
            write(&mut f)?;
            return f.flush();
        }
    }
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .ok_or_else(|| std::io::Error::new(std::io::ErrorKind::InvalidInput, "not a file name"))?;
    let (prefix, suffix) = temporary_affixes(&name);
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).suffix(suffix);
    // The mode `File::create` asks for (0666, narrowed by the umask), not tempfile's 0600:
    // the file outlives this process and is meant to be read by others.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(0o666));
    }
    let tmp = builder.tempfile_in(dir)?;
    let mut out = std::io::BufWriter::new(tmp);
    write(&mut out)?;
    let tmp = out
        .into_inner()
        .map_err(std::io::IntoInnerError::into_error)?;
    tmp.as_file().sync_all()?;
    tmp.persist(&target).map_err(|e| e.error)?;
    Ok(())
}

/// The path a chain of symbolic links at `path` ends in (relative targets resolved against the
/// link's folder); `path` itself when it is not a link or does not exist.
fn resolve_links(path: &Path) -> std::io::Result<PathBuf> {
    let mut p = path.to_path_buf();
    for _ in 0..40 {
        match std::fs::symlink_metadata(&p) {
            Ok(m) if m.file_type().is_symlink() => {
                let link = std::fs::read_link(&p)?;
                let next = match p.parent() {
                    Some(dir) if link.is_relative() => dir.join(link),
                    _ => link,
                };
                // A link the kernel resolves but whose target is no path (`/dev/stdout` ->
                // `/proc/self/fd/1` -> `pipe:[N]`): write through the link itself.
                if std::fs::symlink_metadata(&next).is_err() && std::fs::metadata(&p).is_ok() {
                    return Ok(p);
                }
                p = next;
            }
            _ => return Ok(p),
        }
    }
    Err(std::io::Error::other(format!(
        "{}: too many levels of symbolic links",
        path.display()
    )))
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

/// Whether `name` is a temporary file of [`write_output`] (`.NAME.XXXXXX.tmp`) or of the
/// hand-written writer of earlier versions (`.NAME.tmpPID`).
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

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn temporaries_are_recognised_and_removed_on_error() {
        let dir = tempfile::tempdir().unwrap();
        let (prefix, suffix) = temporary_affixes("report.json");
        let t = tempfile::Builder::new()
            .prefix(&prefix)
            .suffix(suffix)
            .tempfile_in(dir.path())
            .unwrap();
        let name = t.path().file_name().unwrap().to_string_lossy().into_owned();
        assert!(is_temporary(&name), "{name}");
        assert!(is_temporary(".report.json.tmp1234"));
        assert!(!is_temporary("report.json"));
        drop(t);
        // A failing writer leaves neither the file nor a temporary.
        let path = dir.path().join("a.csv");
        let err = write_output(&path, |_| Err(std::io::Error::other("boom")));
        assert!(err.is_err());
        assert!(list_dir(dir.path()).unwrap().is_empty());
        // A successful one leaves just the file, readable by others as with `File::create`.
        write_atomic(&path, b"x\n").unwrap();
        assert_eq!(list_dir(dir.path()).unwrap(), vec![path.clone()]);
        assert_eq!(read(&path).unwrap(), b"x\n");
    }

    /// Pins the `trace_sha256` format of `run.json` (lower-case hex, two digits a byte, no
    /// prefix) across `sha2` upgrades: FIPS 180-2's "abc" vector (its `01` byte checks the
    /// zero padding) and the empty input.
    #[test]
    fn sha256_is_lower_case_hex_of_the_file_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let abc = dir.path().join("abc");
        std::fs::write(&abc, b"abc").unwrap();
        assert_eq!(
            sha256_file(&abc).unwrap(),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        let empty = dir.path().join("empty");
        std::fs::write(&empty, b"").unwrap();
        assert_eq!(
            sha256_file(&empty).unwrap(),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
    }

    #[cfg(unix)]
    #[test]
    fn links_are_followed_and_devices_written_in_place() {
        use std::os::unix::fs::FileTypeExt;
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("target.csv");
        std::fs::write(&target, "old").unwrap();
        let link = dir.path().join("link.csv");
        std::os::unix::fs::symlink("target.csv", &link).unwrap();
        write_atomic(&link, b"new").unwrap();
        assert!(std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(read(&target).unwrap(), b"new");
        write_atomic(Path::new("/dev/null"), b"gone").unwrap();
        assert!(std::fs::metadata("/dev/null")
            .unwrap()
            .file_type()
            .is_char_device());
    }
}
