//! Running cells (in parallel, sharded, resumable) and merging shard folders.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Instant;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use slarm_report::{CellOutput, CellSpec, Experiment, RunConfig};

use crate::config::{is_safe_id, PaperConfig};
use crate::fsutil::{
    clear_outputs, ensure_dir, process_cpu_seconds, read, sha256_file, to_json_bytes, write_atomic,
};
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
    /// Ids of the checks that differ without a reason ([`slarm_report::Check::is_unexplained`]).
    /// Every "differs" verdict must say why, so a non-empty list is a defect of
    /// the experiment: the files are still written, and `slarm reproduce` / `slarm merge`
    /// exit non-zero naming these checks.
    #[serde(default)]
    pub unexplained: Vec<String>,
    /// Wall-clock seconds spent computing this paper's cells, summed over cells: in this run
    /// for `reproduce`, as recorded by the shards for `merge`.
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
    /// CPU seconds (user + system, all threads) of this process, where the OS tells
    /// (Linux `/proc/self/stat`).
    pub cpu_seconds: Option<f64>,
}

/// Wall-clock seconds of each cell of a paper, by cell id, as measured by the run that computed
/// it: `DIR/<paper>/timings.json`, rewritten after every cell so an interrupted run keeps the
/// timings of the cells it finished. Like `DIR/timings.json`, the only kind of file that differs
/// between two runs of the same configuration.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct PaperTimings {
    /// Seconds per cell id.
    pub cell_seconds: BTreeMap<String, f64>,
}

impl PaperTimings {
    fn path(out: &Path, paper: &str) -> PathBuf {
        out.join(paper).join(TIMINGS)
    }

    /// The stored timings of a paper, or none (a missing or unreadable file loses only timings).
    fn load(out: &Path, paper: &str) -> Self {
        parse_json(&Self::path(out, paper)).unwrap_or_default()
    }

    fn save(&self, out: &Path, paper: &str) -> Result<(), ReproError> {
        write_atomic(&Self::path(out, paper), &to_json_bytes(self))
    }

    fn total(&self, ids: &[String]) -> f64 {
        ids.iter().filter_map(|id| self.cell_seconds.get(id)).sum()
    }
}

/// Name of the files that hold wall-clock timings (`DIR/timings.json`,
/// `DIR/<paper>/timings.json`): the only files allowed to differ between two runs.
pub const TIMINGS: &str = "timings.json";

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

/// Checksums of the trace files `exp` reads ([`Experiment::trace_files`]) that are present in
/// the trace folder, by file name; absent files are read as synthetic stand-ins and listed
/// nowhere. Each file is hashed once per process (`cache`), however many papers read it.
fn trace_checksums(
    exp: &dyn Experiment,
    traces: Option<&Path>,
    cache: &mut BTreeMap<String, String>,
) -> Result<BTreeMap<String, String>, ReproError> {
    let mut m = BTreeMap::new();
    if let Some(dir) = traces {
        for name in exp.trace_files() {
            let p = dir.join(name);
            if !p.is_file() {
                continue;
            }
            let sum = match cache.get(name) {
                Some(s) => s.clone(),
                None => {
                    let s = sha256_file(&p)?;
                    cache.insert(name.to_string(), s.clone());
                    s
                }
            };
            m.insert(name.to_string(), sum);
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
        background: opts.background.clone(),
    };
    let background_sha256 = opts.background.as_deref().map(sha256_file).transpose()?;
    let mut hashed = BTreeMap::new();
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
            trace_sha256: trace_checksums(exp, opts.traces.as_deref(), &mut hashed)?,
            background: opts.background.clone(),
            background_sha256: background_sha256.clone(),
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
                "{prefix:>16} [{bar:30}] {pos}/{len} cells, {elapsed} elapsed, about {eta} to go",
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
///
/// Every cell file in a paper folder is computed under the folder's `config.json`: without
/// `resume`, results of another configuration are cleared first (those of the same one are
/// valid and stay, so shards may share a folder); with `resume`, a folder written under
/// another configuration is refused and complete cells are reused.
pub fn reproduce(
    experiments: &[&dyn Experiment],
    opts: &Options,
) -> Result<RunSummary, ReproError> {
    let start = Instant::now();
    let planned = plan(experiments, opts)?;
    // Check resumability and record each paper's configuration before any work.
    let mut timings = Vec::with_capacity(planned.len());
    for pl in &planned {
        let paper = &pl.config.paper;
        let path = opts.out.join(paper).join("config.json");
        let same = if opts.resume && path.exists() {
            let old: PaperConfig = parse_json(&path)?;
            if old != pl.config {
                return Err(ReproError::BadRequest(format!(
                    "--resume: {} was written with another configuration (scale, seed, traces, background, revision or cells differ); use a new --out",
                    path.display()
                )));
            }
            true
        } else {
            parse_json::<PaperConfig>(&path).is_ok_and(|old| old == pl.config)
        };
        // Results of another configuration go; with the same one they are valid (deterministic
        // cells), which lets shards share one folder. Temporaries of an interrupted run go when
        // resuming (two processes must not resume one folder at once).
        clear_outputs(&opts.out.join(paper), !same, opts.resume || !same)?;
        write_atomic(&path, &to_json_bytes(&pl.config))?;
        timings.push(Mutex::new(if opts.resume {
            PaperTimings::load(&opts.out, paper)
        } else {
            PaperTimings::default()
        }));
    }
    // Global cell order: papers in order, cells in order; a shard takes every N-th.
    let mut todo = Vec::new();
    let mut reused = vec![0usize; planned.len()];
    let mut global = 0usize;
    for (p, pl) in planned.iter().enumerate() {
        for (c, spec) in pl.cells.iter().enumerate() {
            let mine = opts.shard.is_none_or(|s| s.owns(global));
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
    costliest_first(&planned, &mut todo);
    let bars = progress_bars(&planned, &todo, opts.progress);
    // Workers take the cells one at a time in this order (`par_bridge`), so the costliest start
    // first and the cheap ones fill the end. Each cell's result is its own file: the order
    // changes nothing but the wall time.
    let run_all = || -> Vec<((usize, usize), Result<f64, ReproError>)> {
        todo.iter()
            .par_bridge()
            .map(|&(p, c)| {
                let done = || -> Result<f64, ReproError> {
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
                    let secs = t0.elapsed().as_secs_f64();
                    {
                        let mut t = timings[p].lock().unwrap_or_else(|e| e.into_inner());
                        t.cell_seconds.insert(spec.id.clone(), secs);
                        t.save(&opts.out, &pl.config.paper)?;
                    }
                    bars[p].inc(1);
                    Ok(secs)
                };
                ((p, c), done())
            })
            .collect()
    };
    let mut results = match opts.jobs {
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
    // In cell order, so that a failing run names the same first error whatever the timing.
    results.sort_by_key(|r| r.0);
    for ((p, _), r) in results {
        let s = r?;
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
            unexplained: Vec::new(),
            cell_seconds: secs[p],
        };
        if opts.shard.is_none() {
            (summary.verdicts, summary.unexplained) = assemble(pl.exp, &pl.config, &opts.out)?;
            summary.assembled = true;
        }
        papers.push(summary);
    }
    if opts.shard.is_none() {
        write_index(experiments, &opts.out)?;
    }
    finish(&opts.out, &opts.out, opts.shard, papers, start)
}

/// Orders `(paper, cell)` pairs by [`Experiment::cell_cost`], costliest first; equal costs keep
/// their order.
fn costliest_first(planned: &[Planned<'_>], todo: &mut [(usize, usize)]) {
    let cost = |&(p, c): &(usize, usize)| {
        let pl = &planned[p];
        pl.exp.cell_cost(&pl.config.run_config(), &pl.cells[c])
    };
    let mut keyed: Vec<(f64, (usize, usize))> = todo.iter().map(|x| (cost(x), *x)).collect();
    keyed.sort_by(|a, b| b.0.total_cmp(&a.0));
    for (slot, (_, x)) in todo.iter_mut().zip(keyed) {
        *slot = x;
    }
}

/// Writes `timings.json` into `dir` and returns the summary of a run or merge into `out`
/// (`dir` is `out`, or the folder a merge builds before it becomes `out`).
fn finish(
    dir: &Path,
    out: &Path,
    shard: Option<Shard>,
    papers: Vec<PaperSummary>,
    start: Instant,
) -> Result<RunSummary, ReproError> {
    let summary = RunSummary {
        out: out.to_path_buf(),
        shard,
        papers,
        wall_seconds: start.elapsed().as_secs_f64(),
        cpu_seconds: process_cpu_seconds(),
    };
    write_atomic(&dir.join(TIMINGS), &to_json_bytes(&summary))?;
    Ok(summary)
}

/// Loads every cell of a paper from `out` and writes its report files; returns the number of
/// checks per verdict and the ids of the checks that differ without a reason.
fn assemble(
    exp: &dyn Experiment,
    config: &PaperConfig,
    out: &Path,
) -> Result<(BTreeMap<String, usize>, Vec<String>), ReproError> {
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
    let unexplained = report
        .unexplained_checks()
        .into_iter()
        .map(|c| c.id.clone())
        .collect();
    Ok((verdicts, unexplained))
}

/// Joins shard folders into `out`: copies every cell, checks the shards agree and cover every
/// cell, then writes exactly the files one unsharded run would (and the union of the shards'
/// cell timings). Earlier results of the merged papers in `out` are cleared first; other
/// files of `out` stay.
///
/// The merged folder is built beside `out` (a copy of `out`, its files hard-linked where the
/// file system allows) and renamed to `out` only when complete: a merge that fails leaves
/// `out` as it was and no partial folder.
pub fn merge(
    experiments: &[&dyn Experiment],
    out: &Path,
    shard_dirs: &[PathBuf],
) -> Result<RunSummary, ReproError> {
    if shard_dirs.is_empty() {
        return Err(ReproError::BadRequest(
            "merge needs at least one shard folder".into(),
        ));
    }
    let parent = match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    ensure_dir(parent)?;
    let staging = tempfile::Builder::new()
        .prefix(".merge-")
        .tempdir_in(parent)
        .map_err(|source| ReproError::Io {
            path: parent.to_path_buf(),
            source,
        })?;
    if out.exists() {
        copy_tree(out, staging.path())?;
    }
    let summary = merge_into(experiments, staging.path(), out, shard_dirs)?;
    replace_dir(staging, out)?;
    Ok(summary)
}

/// Copies the folder tree `from` into the existing folder `to`, hard-linking files where
/// possible (the writers replace files by renaming, so a link never changes `from`).
fn copy_tree(from: &Path, to: &Path) -> Result<(), ReproError> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| ReproError::Io { path, source }
    };
    for entry in std::fs::read_dir(from).map_err(io(from))? {
        let entry = entry.map_err(io(from))?;
        let src = entry.path();
        let dst = to.join(entry.file_name());
        if src.is_dir() {
            std::fs::create_dir(&dst).map_err(io(&dst))?;
            copy_tree(&src, &dst)?;
        } else if std::fs::hard_link(&src, &dst).is_err() {
            std::fs::copy(&src, &dst).map_err(io(&src))?;
        }
    }
    Ok(())
}

/// Puts the complete folder `staging` in the place of `out`: the old `out` is moved aside
/// (and removed once the new one is in place, or moved back when the rename fails).
fn replace_dir(staging: tempfile::TempDir, out: &Path) -> Result<(), ReproError> {
    let io = |source| ReproError::Io {
        path: out.to_path_buf(),
        source,
    };
    let parent = staging
        .path()
        .parent()
        .map_or_else(|| PathBuf::from("."), Path::to_path_buf);
    let aside = if out.exists() {
        let trash = tempfile::Builder::new()
            .prefix(".merge-old-")
            .tempdir_in(&parent)
            .map_err(io)?;
        std::fs::rename(out, trash.path().join("old")).map_err(io)?;
        Some(trash)
    } else {
        None
    };
    let staged = staging.keep();
    if let Err(e) = std::fs::rename(&staged, out) {
        let _ = std::fs::remove_dir_all(&staged);
        if let Some(trash) = &aside {
            let _ = std::fs::rename(trash.path().join("old"), out);
        }
        return Err(io(e));
    }
    Ok(())
}

/// The body of [`merge`]: writes the merged files into `dir`, the folder that becomes `out`.
fn merge_into(
    experiments: &[&dyn Experiment],
    dir: &Path,
    out: &Path,
    shard_dirs: &[PathBuf],
) -> Result<RunSummary, ReproError> {
    let start = Instant::now();
    let mut papers = Vec::new();
    for &exp in experiments {
        let paper = exp.paper();
        let mut config: Option<PaperConfig> = None;
        for dir in shard_dirs {
            let path = dir.join(paper).join("config.json");
            if !path.exists() {
                continue;
            }
            let c: PaperConfig = parse_json(&path)?;
            match &config {
                None => config = Some(c),
                Some(first) if *first != c => {
                    return Err(ReproError::BadRequest(format!(
                        "{}: shards disagree on the configuration of {paper} (scale, seed, traces, background, revision or cells)",
                        path.display(),
                    )))
                }
                Some(_) => {}
            }
        }
        let Some(config) = config else { continue };
        // `out` may itself be one of the shards: it is only read until the final rename.
        let mut cells = Vec::with_capacity(config.cells.len());
        let mut timings = PaperTimings::default();
        let shard_timings: Vec<PaperTimings> = shard_dirs
            .iter()
            .map(|d| PaperTimings::load(d, paper))
            .collect();
        for id in &config.cells {
            let Some(k) = shard_dirs
                .iter()
                .position(|d| cell_path(d, paper, id).exists())
            else {
                return Err(ReproError::BadRequest(format!(
                    "paper {paper}: no shard holds cell {id}; run the missing shard first",
                )));
            };
            let src = cell_path(&shard_dirs[k], paper, id);
            let bytes = read(&src)?;
            let _: CellOutput =
                serde_json::from_slice(&bytes).map_err(|e| ReproError::Malformed {
                    path: src.clone(),
                    message: e.to_string(),
                })?;
            if let Some(s) = shard_timings[k].cell_seconds.get(id) {
                timings.cell_seconds.insert(id.clone(), *s);
            }
            cells.push((id, bytes));
        }
        clear_outputs(&dir.join(paper), true, true)?;
        for (id, bytes) in &cells {
            write_atomic(&cell_path(dir, paper, id), bytes)?;
        }
        write_atomic(
            &dir.join(paper).join("config.json"),
            &to_json_bytes(&config),
        )?;
        timings.save(dir, paper)?;
        let (verdicts, unexplained) = assemble(exp, &config, dir)?;
        papers.push(PaperSummary {
            paper: paper.to_string(),
            cells: config.cells.len(),
            ran: 0,
            reused: cells.len(),
            assembled: true,
            verdicts,
            unexplained,
            cell_seconds: timings.total(&config.cells),
        });
    }
    if papers.is_empty() {
        return Err(ReproError::BadRequest(
            "no shard folder holds any paper's results".into(),
        ));
    }
    write_index(experiments, dir)?;
    finish(dir, out, None, papers, start)
}
