//! Running cells (in parallel, sharded, resumable) and merging shard folders.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::Instant;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use slarm_report::{CellOutput, CellSpec, Experiment, RunConfig, Scale};

use crate::fsutil::{ensure_dir, list_dir, read, sha256_file, to_json_bytes, write_atomic};
use crate::options::{Options, Shard};
use crate::write::{write_index, write_paper};
use crate::ReproError;

/// What one paper's part of a run did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PaperSummary {
    /// Paper key.
    pub paper: String,
    /// Number of cells of the paper.
    pub cells: usize,
    /// Cells computed by this run.
    pub ran: usize,
    /// Cells found complete on disk (resume) or copied from shards (merge).
    pub reused: usize,
    /// Whether the paper's tables and figures were written (all cells present, not a shard).
    pub assembled: bool,
    /// Number of checks per verdict label, when assembled.
    pub verdicts: BTreeMap<String, usize>,
    /// Seconds spent computing this paper's cells in this run (summed over threads).
    pub cell_seconds: f64,
}

/// What a run or merge did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunSummary {
    /// Output folder.
    pub out: PathBuf,
    /// Shard of this run, if sharded.
    pub shard: Option<Shard>,
    /// Per-paper summaries in run order.
    pub papers: Vec<PaperSummary>,
    /// Wall-clock seconds of the whole run.
    pub wall_seconds: f64,
}

/// The configuration a paper's cells were computed under, stored as `config.json` beside them;
/// shards and resumed runs must agree on it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct PaperConfig {
    pub paper: String,
    pub scale: Scale,
    pub seed: u64,
    pub traces: Option<PathBuf>,
    pub trace_sha256: BTreeMap<String, String>,
    pub revision: String,
    pub cells: Vec<String>,
}

impl PaperConfig {
    pub(crate) fn run_config(&self) -> RunConfig {
        RunConfig {
            scale: self.scale,
            seed: self.seed,
            traces: self.traces.clone(),
        }
    }
}

fn is_safe_id(id: &str) -> bool {
    !id.is_empty()
        && !id.starts_with('.')
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "._-".contains(c))
}

fn cell_path(out: &Path, paper: &str, id: &str) -> PathBuf {
    out.join(paper).join("cells").join(format!("{id}.json"))
}

fn parse_json<T: for<'de> Deserialize<'de>>(path: &Path) -> Result<T, ReproError> {
    let bytes = read(path)?;
    serde_json::from_slice(&bytes).map_err(|e| ReproError::Malformed {
        path: path.to_path_buf(),
        message: e.to_string(),
    })
}

/// Checksums of the trace files (`*.swf`, `*.gz`) in the trace folder, by file name.
fn trace_checksums(traces: Option<&Path>) -> Result<BTreeMap<String, String>, ReproError> {
    let mut m = BTreeMap::new();
    if let Some(dir) = traces {
        for p in list_dir(dir)? {
            let name = p
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            if p.is_file() && (name.ends_with(".swf") || name.ends_with(".gz")) {
                m.insert(name, sha256_file(&p)?);
            }
        }
    }
    Ok(m)
}

struct Planned<'a> {
    exp: &'a dyn Experiment,
    config: PaperConfig,
    cells: Vec<CellSpec>,
}

fn plan<'a>(
    experiments: &[&'a dyn Experiment],
    opts: &Options,
) -> Result<Vec<Planned<'a>>, ReproError> {
    let cfg = RunConfig {
        scale: opts.scale,
        seed: opts.seed,
        traces: opts.traces.clone(),
    };
    let checksums = trace_checksums(opts.traces.as_deref())?;
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for &exp in experiments {
        if !seen.insert(exp.paper()) {
            return Err(ReproError::BadRequest(format!(
                "paper '{}' requested twice",
                exp.paper()
            )));
        }
        let cells = exp.cells(&cfg)?;
        let mut ids = BTreeSet::new();
        for c in &cells {
            if !is_safe_id(&c.id) || !ids.insert(c.id.clone()) {
                return Err(ReproError::BadRequest(format!(
                    "paper '{}': cell id '{}' is duplicated or not file-name safe",
                    exp.paper(),
                    c.id
                )));
            }
        }
        let config = PaperConfig {
            paper: exp.paper().to_string(),
            scale: opts.scale,
            seed: opts.seed,
            traces: opts.traces.clone(),
            trace_sha256: checksums.clone(),
            revision: opts.revision.clone(),
            cells: cells.iter().map(|c| c.id.clone()).collect(),
        };
        out.push(Planned { exp, config, cells });
    }
    Ok(out)
}

/// A stored cell output, if present, well formed and computed for this very cell spec.
fn stored_cell(path: &Path, spec: &CellSpec) -> Option<CellOutput> {
    let out: CellOutput = parse_json(path).ok()?;
    (out.cell == *spec).then_some(out)
}

fn progress_bars(
    planned: &[Planned<'_>],
    todo: &[(usize, usize)],
    on: bool,
) -> Vec<indicatif::ProgressBar> {
    let multi = indicatif::MultiProgress::new();
    planned
        .iter()
        .enumerate()
        .map(|(p, pl)| {
            if !on {
                return indicatif::ProgressBar::hidden();
            }
            let n = todo.iter().filter(|(q, _)| *q == p).count() as u64;
            let bar = multi.add(indicatif::ProgressBar::new(n));
            if let Ok(style) = indicatif::ProgressStyle::with_template(
                "{prefix:>16} [{bar:30}] {pos}/{len} cells {elapsed}",
            ) {
                bar.set_style(style.progress_chars("=> "));
            }
            bar.set_prefix(pl.config.paper.clone());
            bar
        })
        .collect()
}

/// Runs the cells of `experiments` as `opts` says, then (unless sharded) assembles each paper
/// and writes `index.html`.
pub fn reproduce(
    experiments: &[&dyn Experiment],
    opts: &Options,
) -> Result<RunSummary, ReproError> {
    let start = Instant::now();
    let planned = plan(experiments, opts)?;
    // Check resumability and record each paper's configuration before any work.
    for pl in &planned {
        let path = opts.out.join(&pl.config.paper).join("config.json");
        if opts.resume && path.exists() {
            let old: PaperConfig = parse_json(&path)?;
            if old != pl.config {
                return Err(ReproError::BadRequest(format!(
                    "--resume: {} was written with another configuration (scale, seed, traces, revision or cells differ); use a new --out",
                    path.display()
                )));
            }
        }
        write_atomic(&path, &to_json_bytes(&pl.config))?;
    }
    // Global cell order: papers in order, cells in order; a shard takes every N-th.
    let mut todo = Vec::new();
    let mut reused = vec![0usize; planned.len()];
    let mut global = 0usize;
    for (p, pl) in planned.iter().enumerate() {
        for (c, spec) in pl.cells.iter().enumerate() {
            let mine = opts.shard.map_or(true, |s| s.owns(global));
            global += 1;
            if !mine {
                continue;
            }
            if opts.resume
                && stored_cell(&cell_path(&opts.out, &pl.config.paper, &spec.id), spec).is_some()
            {
                reused[p] += 1;
            } else {
                todo.push((p, c));
            }
        }
    }
    let bars = progress_bars(&planned, &todo, opts.progress);
    let run_all = || -> Vec<Result<(usize, f64), ReproError>> {
        todo.par_iter()
            .map(|&(p, c)| {
                let pl = &planned[p];
                let spec = &pl.cells[c];
                let t0 = Instant::now();
                let cfg = pl.config.run_config();
                let result = pl.exp.run_cell(&cfg, spec)?;
                let output = CellOutput {
                    cell: spec.clone(),
                    result,
                };
                write_atomic(
                    &cell_path(&opts.out, &pl.config.paper, &spec.id),
                    &to_json_bytes(&output),
                )?;
                bars[p].inc(1);
                Ok((p, t0.elapsed().as_secs_f64()))
            })
            .collect()
    };
    let results = match opts.jobs {
        Some(n) => rayon::ThreadPoolBuilder::new()
            .num_threads(n.max(1))
            .build()
            .map_err(|e| ReproError::BadRequest(format!("--jobs {n}: {e}")))?
            .install(run_all),
        None => run_all(),
    };
    for b in &bars {
        b.finish_and_clear();
    }
    let mut ran = vec![0usize; planned.len()];
    let mut secs = vec![0f64; planned.len()];
    for r in results {
        let (p, s) = r?;
        ran[p] += 1;
        secs[p] += s;
    }
    let mut papers = Vec::new();
    for (p, pl) in planned.iter().enumerate() {
        let mut summary = PaperSummary {
            paper: pl.config.paper.clone(),
            cells: pl.cells.len(),
            ran: ran[p],
            reused: reused[p],
            assembled: false,
            verdicts: BTreeMap::new(),
            cell_seconds: secs[p],
        };
        if opts.shard.is_none() {
            summary.verdicts = assemble(pl.exp, &pl.config, &opts.out)?;
            summary.assembled = true;
        }
        papers.push(summary);
    }
    if opts.shard.is_none() {
        write_index(experiments, &opts.out)?;
    }
    let summary = RunSummary {
        out: opts.out.clone(),
        shard: opts.shard,
        papers,
        wall_seconds: start.elapsed().as_secs_f64(),
    };
    write_atomic(&opts.out.join("timings.json"), &to_json_bytes(&summary))?;
    Ok(summary)
}

/// Loads every cell of a paper from `out` and writes its report files.
fn assemble(
    exp: &dyn Experiment,
    config: &PaperConfig,
    out: &Path,
) -> Result<BTreeMap<String, usize>, ReproError> {
    let cfg = config.run_config();
    let mut outputs = Vec::with_capacity(config.cells.len());
    for id in &config.cells {
        let path = cell_path(out, &config.paper, id);
        if !path.exists() {
            return Err(ReproError::BadRequest(format!(
                "paper {}: cell {id} has no result in {}",
                config.paper,
                out.display()
            )));
        }
        outputs.push(parse_json::<CellOutput>(&path)?);
    }
    let report = exp.assemble(&cfg, &outputs)?;
    write_paper(&report, config, out)?;
    let mut verdicts = BTreeMap::new();
    for c in &report.checks {
        *verdicts.entry(c.verdict.label().to_string()).or_insert(0) += 1;
    }
    Ok(verdicts)
}

/// Joins shard folders into `out`: copies every cell, checks the shards agree and cover every
/// cell, then writes exactly the files one unsharded run would.
pub fn merge(
    experiments: &[&dyn Experiment],
    out: &Path,
    shard_dirs: &[PathBuf],
) -> Result<RunSummary, ReproError> {
    let start = Instant::now();
    if shard_dirs.is_empty() {
        return Err(ReproError::BadRequest(
            "merge needs at least one shard folder".into(),
        ));
    }
    ensure_dir(out)?;
    let mut papers = Vec::new();
    for &exp in experiments {
        let mut config: Option<PaperConfig> = None;
        for dir in shard_dirs {
            let path = dir.join(exp.paper()).join("config.json");
            if !path.exists() {
                continue;
            }
            let c: PaperConfig = parse_json(&path)?;
            match &config {
                None => config = Some(c),
                Some(first) if *first != c => {
                    return Err(ReproError::BadRequest(format!(
                        "{}: shards disagree on the configuration of {} (scale, seed, traces, revision or cells)",
                        path.display(),
                        exp.paper()
                    )))
                }
                Some(_) => {}
            }
        }
        let Some(config) = config else { continue };
        let mut copied = 0;
        for id in &config.cells {
            let mut found = false;
            for dir in shard_dirs {
                let src = cell_path(dir, exp.paper(), id);
                if src.exists() {
                    let bytes = read(&src)?;
                    let _: CellOutput =
                        serde_json::from_slice(&bytes).map_err(|e| ReproError::Malformed {
                            path: src.clone(),
                            message: e.to_string(),
                        })?;
                    write_atomic(&cell_path(out, exp.paper(), id), &bytes)?;
                    found = true;
                    copied += 1;
                    break;
                }
            }
            if !found {
                return Err(ReproError::BadRequest(format!(
                    "paper {}: no shard holds cell {id}; run the missing shard first",
                    exp.paper()
                )));
            }
        }
        write_atomic(
            &out.join(exp.paper()).join("config.json"),
            &to_json_bytes(&config),
        )?;
        let verdicts = assemble(exp, &config, out)?;
        papers.push(PaperSummary {
            paper: exp.paper().to_string(),
            cells: config.cells.len(),
            ran: 0,
            reused: copied,
            assembled: true,
            verdicts,
            cell_seconds: 0.0,
        });
    }
    if papers.is_empty() {
        return Err(ReproError::BadRequest(
            "no shard folder holds any paper's results".into(),
        ));
    }
    write_index(experiments, out)?;
    let summary = RunSummary {
        out: out.to_path_buf(),
        shard: None,
        papers,
        wall_seconds: start.elapsed().as_secs_f64(),
    };
    write_atomic(&out.join("timings.json"), &to_json_bytes(&summary))?;
    Ok(summary)
}
