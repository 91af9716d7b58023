//! The configuration a paper's cells were computed under (`config.json`) and the rule for
//! cell ids that become file names; shared by the runner and the writers.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use slarm_report::{RunConfig, Scale};

/// The configuration a paper's cells were computed under, stored as `config.json` beside them;
/// shards and resumed runs must agree on it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct PaperConfig {
    pub paper: String,
    pub scale: Scale,
    pub seed: u64,
    pub traces: Option<PathBuf>,
    pub trace_sha256: BTreeMap<String, String>,
    /// The background trace file and its SHA-256: part of the configuration like the traces,
    /// so a resume or merge with another file (or other contents) is refused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub background: Option<PathBuf>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub background_sha256: Option<String>,
    pub revision: String,
    pub cells: Vec<String>,
}

impl PaperConfig {
    pub(crate) fn run_config(&self) -> RunConfig {
        RunConfig {
            scale: self.scale,
            seed: self.seed,
            traces: self.traces.clone(),
            background: self.background.clone(),
        }
    }
}

/// Whether `id` is a safe file-name stem: `[A-Za-z0-9._-]`, not empty, no leading dot.
pub(crate) fn is_safe_id(id: &str) -> bool {
    !id.is_empty()
        && !id.starts_with('.')
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "._-".contains(c))
}
