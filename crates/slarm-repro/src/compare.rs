//! Byte-for-byte comparison of two output folders (a merged sharded run must
//! equal one unsharded run).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::fsutil::{list_dir, read};
use crate::run::TIMINGS;
use crate::ReproError;

/// How two output folders differ.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Comparison {
    /// Number of files compared (present in both folders).
    pub compared: usize,
    /// Files (relative paths) only in the first folder.
    pub only_in_first: Vec<PathBuf>,
    /// Files only in the second folder.
    pub only_in_second: Vec<PathBuf>,
    /// Files in both whose bytes differ.
    pub differing: Vec<PathBuf>,
}

impl Comparison {
    /// Whether both folders hold the same files with the same bytes.
    pub fn identical(&self) -> bool {
        self.only_in_first.is_empty() && self.only_in_second.is_empty() && self.differing.is_empty()
    }
}

impl std::fmt::Display for Comparison {
    /// One line per difference, or a line saying the folders are identical.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.identical() {
            return writeln!(f, "identical: {} files", self.compared);
        }
        for (what, list) in [
            ("only in the first", &self.only_in_first),
            ("only in the second", &self.only_in_second),
            ("bytes differ", &self.differing),
        ] {
            for p in list {
                writeln!(f, "{what}: {}", p.display())?;
            }
        }
        Ok(())
    }
}

fn collect(
    base: &Path,
    dir: &Path,
    into: &mut BTreeMap<PathBuf, PathBuf>,
) -> Result<(), ReproError> {
    for p in list_dir(dir)? {
        if p.is_dir() {
            collect(base, &p, into)?;
        } else if p.file_name().is_some_and(|n| n != TIMINGS) {
            let rel = p.strip_prefix(base).unwrap_or(&p).to_path_buf();
            into.insert(rel, p);
        }
    }
    Ok(())
}

/// Compares every file under `first` and `second` (recursively) byte for byte, except the
/// wall-clock timings (`timings.json`), which legitimately differ between runs.
pub fn compare_outputs(first: &Path, second: &Path) -> Result<Comparison, ReproError> {
    let (mut a, mut b) = (BTreeMap::new(), BTreeMap::new());
    collect(first, first, &mut a)?;
    collect(second, second, &mut b)?;
    let mut c = Comparison::default();
    for (rel, pa) in &a {
        match b.get(rel) {
            None => c.only_in_first.push(rel.clone()),
            Some(pb) => {
                c.compared += 1;
                if read(pa)? != read(pb)? {
                    c.differing.push(rel.clone());
                }
            }
        }
    }
    c.only_in_second = b.keys().filter(|k| !a.contains_key(*k)).cloned().collect();
    Ok(c)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn finds_every_kind_of_difference_and_ignores_timings() {
        let t = tempfile::tempdir().unwrap();
        let (a, b) = (t.path().join("a"), t.path().join("b"));
        for (d, x) in [(&a, "1"), (&b, "2")] {
            std::fs::create_dir_all(d.join("p/cells")).unwrap();
            std::fs::write(d.join("p/cells/c.json"), "same").unwrap();
            std::fs::write(d.join("p/t.csv"), x).unwrap();
            std::fs::write(d.join(TIMINGS), x).unwrap();
            std::fs::write(d.join("p").join(TIMINGS), x).unwrap();
        }
        std::fs::write(a.join("only-a"), "").unwrap();
        std::fs::write(b.join("p/only-b"), "").unwrap();
        let c = compare_outputs(&a, &b).unwrap();
        assert_eq!(c.compared, 2);
        assert_eq!(c.differing, vec![PathBuf::from("p/t.csv")]);
        assert_eq!(c.only_in_first, vec![PathBuf::from("only-a")]);
        assert_eq!(c.only_in_second, vec![PathBuf::from("p/only-b")]);
        assert!(!c.identical());
        assert!(c.to_string().contains("bytes differ: p/t.csv"));
        std::fs::remove_file(a.join("only-a")).unwrap();
        std::fs::remove_file(b.join("p/only-b")).unwrap();
        std::fs::write(b.join("p/t.csv"), "1").unwrap();
        let c = compare_outputs(&a, &b).unwrap();
        assert!(c.identical(), "{c}");
        assert_eq!(c.to_string(), "identical: 2 files\n");
    }
}
