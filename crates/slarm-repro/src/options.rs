//! What to run and where.

use std::path::PathBuf;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use slarm_report::Scale;

use crate::ReproError;

/// Run every `count`-th cell starting at `index` (1-based `index` of `count`): `K/N` on the
/// command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    /// 1-based shard number K.
    pub index: usize,
    /// Number of shards N.
    pub count: usize,
}

impl Shard {
    /// Whether the `i`-th cell (0-based, over all selected papers in order) belongs here.
    pub fn owns(&self, i: usize) -> bool {
        i % self.count == self.index - 1
    }
}

impl FromStr for Shard {
    type Err = ReproError;

    /// Parses `K/N` with `1 <= K <= N`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad =
            || ReproError::BadRequest(format!("--shard '{s}': expected K/N with 1 <= K <= N"));
        let (k, n) = s.split_once('/').ok_or_else(bad)?;
        let index: usize = k.trim().parse().map_err(|_| bad())?;
        let count: usize = n.trim().parse().map_err(|_| bad())?;
        if index == 0 || count == 0 || index > count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }
}

/// Options of one reproduction run.
#[derive(Debug, Clone)]
pub struct Options {
    /// Quick or paper scale.
    pub scale: Scale,
    /// Root seed.
    pub seed: u64,
    /// Folder of PWA traces, if any.
    pub traces: Option<PathBuf>,
    /// Background-load trace file for the experiments that use one
    /// ([`slarm_report::RunConfig::background`]), if any.
    pub background: Option<PathBuf>,
    /// Output folder.
    pub out: PathBuf,
    /// Run only this shard's cells (and assemble nothing).
    pub shard: Option<Shard>,
    /// Skip cells whose results are already on disk.
    pub resume: bool,
    /// Worker threads (`None`: rayon's default, one per core).
    pub jobs: Option<usize>,
    /// Draw progress bars on stderr.
    pub progress: bool,
    /// Revision of the code, recorded in `run.json`.
    pub revision: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shard_parsing_and_ownership() {
        let s: Shard = "2/3".parse().unwrap();
        assert_eq!(s, Shard { index: 2, count: 3 });
        assert!(s.owns(1) && s.owns(4) && !s.owns(0) && !s.owns(2));
        for bad in ["0/3", "4/3", "3", "a/b", "1/0", ""] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
    }
}
