//! The experiment contract: cells, configuration and the assembled paper report.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use slarm_stats::rng::{label, RngStreams};
use thiserror::Error;

use crate::{Check, Figure, Table};

/// How much of a paper's evaluation to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Scale {
    /// Seconds per paper: small replications, short horizons, one battery. All five papers
    /// together must finish in under 3 minutes on 2 cores.
    Quick,
    /// The full experiment of the source (every sweep, every replication).
    Paper,
}

impl Scale {
    /// `"quick"` or `"paper"`.
    pub fn name(self) -> &'static str {
        match self {
            Scale::Quick => "quick",
            Scale::Paper => "paper",
        }
    }
}

/// Everything a cell may depend on besides its own parameters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunConfig {
    /// Quick or paper scale.
    pub scale: Scale,
    /// Root seed of the run.
    pub seed: u64,
    /// Folder of PWA logs by their archive file names; `None` means synthetic workloads.
    pub traces: Option<PathBuf>,
    /// A background-load trace (GWF or SWF, plain or gzip) for the experiments that run
    /// their workload on top of one (Yigitbasi & Epema 2010, §V-A: the DAS-3 June 2008
    /// trace); `None` means their synthetic stand-in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub background: Option<PathBuf>,
}

impl RunConfig {
    /// The random streams of one cell: keyed by (seed, paper, cell id), so independent of
    /// which machine, shard or thread runs the cell.
    pub fn streams(&self, paper: &str, cell_id: &str) -> RngStreams {
        RngStreams::new(self.seed).child(&[label(paper), label(cell_id)])
    }

    /// Path of the trace `file_name` (e.g. `"SDSC-SP2-1998-4.2-cln.swf.gz"`) if a trace
    /// folder was given and the file is in it; `None` means: use the synthetic stand-in.
    pub fn trace(&self, file_name: &str) -> Option<PathBuf> {
        let p = self.traces.as_ref()?.join(file_name);
        p.is_file().then_some(p)
    }
}

/// One independent unit of work of an experiment.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CellSpec {
    /// Unique within the paper, stable across runs and file-name safe (`[A-Za-z0-9._-]`).
    pub id: String,
    /// Parameters of the cell, as the experiment wants them.
    pub params: serde_json::Value,
}

impl CellSpec {
    /// A cell with the given id and parameters.
    pub fn new(id: impl Into<String>, params: serde_json::Value) -> Self {
        Self {
            id: id.into(),
            params,
        }
    }
}

/// A cell together with its result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CellOutput {
    /// The cell that ran.
    pub cell: CellSpec,
    /// What `run_cell` returned.
    pub result: serde_json::Value,
}

/// Why an experiment could not run or assemble.
#[derive(Debug, Error)]
pub enum ExperimentError {
    /// The model rejected its input (message from the model crate's error).
    #[error("model error in cell {cell}: {message}")]
    Model {
        /// Cell id.
        cell: String,
        /// What the model said.
        message: String,
    },
    /// A cell's parameters or stored result did not have the expected shape.
    #[error("malformed data for cell {cell}: {message}")]
    Malformed {
        /// Cell id.
        cell: String,
        /// What was wrong.
        message: String,
    },
    /// A trace could not be read.
    #[error("trace {path}: {message}")]
    Trace {
        /// The file.
        path: String,
        /// What went wrong.
        message: String,
    },
}

impl ExperimentError {
    /// Wraps any model error for cell `cell`.
    pub fn model(cell: &str, e: impl std::fmt::Display) -> Self {
        Self::Model {
            cell: cell.to_string(),
            message: e.to_string(),
        }
    }

    /// A malformed-parameter or malformed-result error for cell `cell`.
    pub fn malformed(cell: &str, e: impl std::fmt::Display) -> Self {
        Self::Malformed {
            cell: cell.to_string(),
            message: e.to_string(),
        }
    }
}

/// Everything reproduced for one paper.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PaperReport {
    /// Paper key (`hu2009`, `birkenheuer2012`, `yeo-buyya`, `sung2006`, `yigitbasi2010`).
    pub paper: String,
    /// Human title, e.g. "Hu 2009: multiclass M/M/m response-time SLAs".
    pub title: String,
    /// Which workloads were used, e.g. "synthetic stand-in for SDSC-SP2 (trace absent)".
    pub workload: String,
    /// Tables in the order of the paper.
    pub tables: Vec<Table>,
    /// Every reproduced number beside its published value.
    pub checks: Vec<Check>,
    /// Figures in the order of the paper.
    pub figures: Vec<Figure>,
    /// Free remarks (gaps and their reasons, pointers to docs/decisions.md).
    pub notes: Vec<String>,
}

impl PaperReport {
    /// The checks that differ without a reason (see [`Check::is_unexplained`]): must be empty.
    pub fn unexplained_checks(&self) -> Vec<&Check> {
        self.checks.iter().filter(|c| c.is_unexplained()).collect()
    }
}

/// A paper's reproduction, split into independent cells.
///
/// Implementations live in each model crate's `experiments` module; `slarm reproduce` runs
/// the cells (in parallel, sharded, resumable) and calls [`Experiment::assemble`] once all
/// cells of the paper are done. `run_cell` must be a pure function of `(cfg, cell)`: take
/// randomness only from `cfg.streams(self.paper(), &cell.id)`.
pub trait Experiment: Send + Sync {
    /// Paper key, e.g. `"hu2009"`.
    fn paper(&self) -> &'static str;
    /// Human title.
    fn title(&self) -> &'static str;
    /// File names, in the trace folder (`RunConfig::traces`), of the traces this experiment
    /// reads when they are present, e.g. `["SDSC-SP2-1998-4.2-cln.swf.gz"]`. The engine records
    /// the SHA-256 of exactly these files in the paper's `run.json`. Default: none (synthetic
    /// workloads only).
    fn trace_files(&self) -> Vec<&'static str> {
        Vec::new()
    }
    /// The cells of this run, in a stable order.
    fn cells(&self, cfg: &RunConfig) -> Result<Vec<CellSpec>, ExperimentError>;
    /// Expected cost of a cell relative to the paper's other cells and to other papers' cells
    /// (roughly CPU seconds on one core at paper scale). Only the order in which the engine
    /// hands out cells uses it, costliest first, so the workers finish together; results never
    /// depend on it. Default: 1 for every cell.
    fn cell_cost(&self, _cfg: &RunConfig, _cell: &CellSpec) -> f64 {
        1.0
    }
    /// Runs one cell.
    fn run_cell(
        &self,
        cfg: &RunConfig,
        cell: &CellSpec,
    ) -> Result<serde_json::Value, ExperimentError>;
    /// Builds the report from all cell outputs (in the order of [`Experiment::cells`]).
    fn assemble(
        &self,
        cfg: &RunConfig,
        outputs: &[CellOutput],
    ) -> Result<PaperReport, ExperimentError>;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cell_streams_depend_on_seed_paper_and_cell_only() {
        use rand::RngExt;
        let a = RunConfig {
            scale: Scale::Quick,
            seed: 1,
            traces: None,
            background: None,
        };
        let b = RunConfig {
            scale: Scale::Paper,
            seed: 1,
            traces: Some("/nonexistent".into()),
            background: None,
        };
        let x: u64 = a.streams("hu2009", "c1").stream(&[0]).random();
        let y: u64 = b.streams("hu2009", "c1").stream(&[0]).random();
        let z: u64 = a.streams("hu2009", "c2").stream(&[0]).random();
        assert_eq!(x, y);
        assert_ne!(x, z);
        assert!(b.trace("x.swf").is_none());
    }
}
