//! The engine on a fake experiment: sharded + merged output is byte-identical to one run
//! (also with shards sharing a folder or a folder holding an older configuration), resume
//! skips finished cells and keeps their timings, inconsistent requests and bad ids are refused.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

use rand::RngExt;
use serde_json::json;
use slarm_report::{
    CellOutput, CellSpec, Check, Experiment, ExperimentError, Figure, FigureKind, PaperReport,
    RunConfig, Scale, Series, Table,
};
use slarm_repro::{compare_outputs, merge, reproduce, Options, Shard};

/// Estimates pi by Monte Carlo in independent cells.
struct Pi {
    runs: AtomicUsize,
    /// Id of the report's table (to test id validation).
    table_id: &'static str,
}

impl Pi {
    fn new() -> Self {
        Self {
            runs: AtomicUsize::new(0),
            table_id: "table1",
        }
    }
}

impl Experiment for Pi {
    fn paper(&self) -> &'static str {
        "hu2009"
    }
    fn title(&self) -> &'static str {
        "Fake: pi by Monte Carlo"
    }
    fn trace_files(&self) -> Vec<&'static str> {
        vec!["READ.swf", "ABSENT.swf.gz"]
    }
    fn cells(&self, cfg: &RunConfig) -> Result<Vec<CellSpec>, ExperimentError> {
        let n = if cfg.scale == Scale::Quick { 7 } else { 20 };
        Ok((0..n)
            .map(|i| CellSpec::new(format!("rep-{i:02}"), json!({"samples": 1000 + i})))
            .collect())
    }
    fn run_cell(
        &self,
        cfg: &RunConfig,
        cell: &CellSpec,
    ) -> Result<serde_json::Value, ExperimentError> {
        self.runs.fetch_add(1, Ordering::SeqCst);
        let n = cell.params["samples"]
            .as_u64()
            .ok_or_else(|| ExperimentError::malformed(&cell.id, "samples"))?;
        let mut r = cfg.streams(self.paper(), &cell.id).stream(&[0]);
        let hits = (0..n).filter(|_| {
            let (x, y): (f64, f64) = (r.random(), r.random());
            x * x + y * y <= 1.0
        });
        Ok(json!({"pi": 4.0 * hits.count() as f64 / n as f64}))
    }
    fn assemble(
        &self,
        _cfg: &RunConfig,
        outputs: &[CellOutput],
    ) -> Result<PaperReport, ExperimentError> {
        let vals: Vec<f64> = outputs
            .iter()
            .filter_map(|o| o.result["pi"].as_f64())
            .collect();
        let mean = vals.iter().sum::<f64>() / vals.len() as f64;
        let mut t = Table::new(self.table_id, "Estimates", &["cell", "pi"]);
        for (o, v) in outputs.iter().zip(&vals) {
            t.push(vec![o.cell.id.clone().into(), (*v).into()]);
        }
        let fig = Figure::new("fig1", "Estimates by cell", "cell", "pi", FigureKind::Line)
            .with_series(Series::ours(
                "ours",
                vals.iter()
                    .enumerate()
                    .map(|(i, v)| (i as f64, *v))
                    .collect(),
            ))
            .with_series(Series::published(
                "exact",
                vec![
                    (0.0, std::f64::consts::PI),
                    (vals.len() as f64, std::f64::consts::PI),
                ],
            ));
        Ok(PaperReport {
            paper: self.paper().into(),
            title: self.title().into(),
            workload: "none".into(),
            tables: vec![t],
            checks: vec![
                Check::numeric("pi", "mean estimate", mean, Some(std::f64::consts::PI), 0.1),
                // A claim that always differs, explained only when `explain` is set.
                {
                    let c = Check::claim("always-differs", "a failing claim", false, "no");
                    if self.table_id == "unexplained" {
                        c
                    } else {
                        c.with_reason("by construction")
                    }
                },
            ],
            figures: vec![fig],
            notes: vec!["a note".into()],
        })
    }
}

fn opts(out: &Path, shard: Option<Shard>, resume: bool) -> Options {
    Options {
        scale: Scale::Quick,
        seed: 5,
        traces: None,
        background: None,
        out: out.to_path_buf(),
        shard,
        resume,
        jobs: Some(2),
        progress: false,
        revision: "test".into(),
    }
}

fn assert_identical(a: &Path, b: &Path) {
    let c = compare_outputs(a, b).unwrap();
    assert!(c.identical(), "{} vs {}:\n{c}", a.display(), b.display());
}

fn shard(k: usize) -> Option<Shard> {
    Some(Shard { index: k, count: 3 })
}

#[test]
fn sharded_and_merged_equals_one_run_byte_for_byte() {
    let tmp = tempfile::tempdir().unwrap();
    let exp = Pi::new();
    let whole = tmp.path().join("whole");
    let s = reproduce(&[&exp], &opts(&whole, None, false)).unwrap();
    assert!(s.papers[0].assembled);
    assert_eq!(
        s.papers[0]
            .verdicts
            .get("within tolerance")
            .copied()
            .unwrap_or(0)
            + s.papers[0].verdicts.get("differs").copied().unwrap_or(0),
        2,
        "pi within tolerance or differs, plus the claim that always differs"
    );
    let mut shard_dirs = Vec::new();
    for k in 1..=3 {
        let d = tmp.path().join(format!("shard{k}"));
        let s = reproduce(&[&exp], &opts(&d, shard(k), false)).unwrap();
        assert!(!s.papers[0].assembled);
        assert_eq!(s.papers[0].ran, (0..7).filter(|i| i % 3 == k - 1).count());
        shard_dirs.push(d);
    }
    let merged = tmp.path().join("merged");
    let m = merge(&[&exp], &merged, &shard_dirs).unwrap();
    assert_identical(&whole, &merged);
    // The merged per-cell timings are the union of the shards'.
    let t: serde_json::Value =
        serde_json::from_slice(&std::fs::read(merged.join("hu2009/timings.json")).unwrap())
            .unwrap();
    assert_eq!(t["cell_seconds"].as_object().unwrap().len(), 7);
    assert_eq!(m.papers[0].reused, 7);
    for f in [
        "index.html",
        "summary.md",
        "timings.json",
        "hu2009/table1.csv",
        "hu2009/table1.json",
        "hu2009/fig1.svg",
        "hu2009/run.json",
        "hu2009/report.json",
        "hu2009/checks.csv",
        "hu2009/checks.json",
        "hu2009/timings.json",
    ] {
        assert!(whole.join(f).is_file(), "{f} missing");
    }
    // A missing shard is an error naming the cell.
    let e = merge(&[&exp], &tmp.path().join("m2"), &shard_dirs[..2]).unwrap_err();
    assert!(e.to_string().contains("no shard holds cell"), "{e}");
}

/// Names of the entries of `dir`, sorted.
fn entries(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// A merge is built beside its output folder and renamed into place only when complete: a
/// failing merge leaves neither a partial folder nor a temporary, and an existing output
/// folder exactly as it was; a successful one keeps the folder's other files.
#[test]
fn a_failed_merge_leaves_no_partial_folder_and_the_old_one_intact() {
    let tmp = tempfile::tempdir().unwrap();
    let exp = Pi::new();
    let shards: Vec<_> = (1..=3)
        .map(|k| {
            let d = tmp.path().join(format!("shard{k}"));
            reproduce(&[&exp], &opts(&d, shard(k), false)).unwrap();
            d
        })
        .collect();
    let before = entries(tmp.path());
    let fresh = tmp.path().join("fresh");
    assert!(merge(&[&exp], &fresh, &shards[..2]).is_err());
    assert!(!fresh.exists(), "a failed merge left a partial folder");
    assert_eq!(entries(tmp.path()), before, "a temporary folder was left");
    let kept = tmp.path().join("kept");
    std::fs::create_dir(&kept).unwrap();
    std::fs::write(kept.join("notes.txt"), "mine").unwrap();
    assert!(merge(&[&exp], &kept, &shards[..2]).is_err());
    assert_eq!(entries(&kept), vec!["notes.txt"]);
    merge(&[&exp], &kept, &shards).unwrap();
    assert_eq!(std::fs::read(kept.join("notes.txt")).unwrap(), b"mine");
    assert!(kept.join("index.html").is_file());
    let mut after = before.clone();
    after.push("kept".into());
    after.sort();
    assert_eq!(entries(tmp.path()), after, "a temporary folder was left");
}

/// The fake experiment under another paper's name and title.
struct Renamed(Pi, &'static str, &'static str);

impl Experiment for Renamed {
    fn paper(&self) -> &'static str {
        self.1
    }
    fn title(&self) -> &'static str {
        self.2
    }
    fn cells(&self, cfg: &RunConfig) -> Result<Vec<CellSpec>, ExperimentError> {
        self.0.cells(cfg)
    }
    fn run_cell(
        &self,
        cfg: &RunConfig,
        cell: &CellSpec,
    ) -> Result<serde_json::Value, ExperimentError> {
        self.0.run_cell(cfg, cell)
    }
    fn assemble(
        &self,
        cfg: &RunConfig,
        outputs: &[CellOutput],
    ) -> Result<PaperReport, ExperimentError> {
        let mut r = self.0.assemble(cfg, outputs)?;
        r.paper = self.1.into();
        r.title = self.2.into();
        Ok(r)
    }
}

/// Reproducing one paper into a folder that holds another paper's report keeps that paper
/// in index.html and summary.md.
#[test]
fn a_run_of_one_paper_keeps_the_other_papers_in_the_index() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("report");
    let sung = Renamed(Pi::new(), "sung2006", "Fake renamed");
    reproduce(&[&sung], &opts(&out, None, false)).unwrap();
    reproduce(&[&Pi::new()], &opts(&out, None, false)).unwrap();
    let index = std::fs::read_to_string(out.join("index.html")).unwrap();
    let summary = std::fs::read_to_string(out.join("summary.md")).unwrap();
    for text in [&index, &summary] {
        let hu = text.find("Fake: pi").expect("hu2009 listed");
        let sung = text.find("Fake renamed").expect("sung2006 kept");
        assert!(hu < sung, "report order: hu2009 before sung2006");
    }
}

#[test]
fn resume_skips_complete_cells_and_refuses_other_configs() {
    let tmp = tempfile::tempdir().unwrap();
    let exp = Pi::new();
    let out = tmp.path().join("r");
    reproduce(&[&exp], &opts(&out, None, false)).unwrap();
    assert_eq!(exp.runs.load(Ordering::SeqCst), 7);
    // Lose one cell, as an interrupted run would.
    std::fs::remove_file(out.join("hu2009/cells/rep-03.json")).unwrap();
    let s = reproduce(&[&exp], &opts(&out, None, true)).unwrap();
    assert_eq!((s.papers[0].ran, s.papers[0].reused), (1, 6));
    assert_eq!(exp.runs.load(Ordering::SeqCst), 8);
    let mut other = opts(&out, None, true);
    other.seed = 6;
    let e = reproduce(&[&exp], &other).unwrap_err();
    assert!(
        e.is_bad_input() && e.to_string().contains("another configuration"),
        "{e}"
    );
}

#[test]
fn the_background_file_is_part_of_the_configuration() {
    let tmp = tempfile::tempdir().unwrap();
    let exp = Pi::new();
    let (a, b) = (tmp.path().join("a.gwf"), tmp.path().join("b.gwf"));
    std::fs::write(&a, "; trace a\n").unwrap();
    std::fs::write(&b, "; trace b\n").unwrap();
    let on = |out: &Path, file: &Path, shard: Option<Shard>, resume: bool| Options {
        background: Some(file.to_path_buf()),
        ..opts(out, shard, resume)
    };
    let out = tmp.path().join("r");
    reproduce(&[&exp], &on(&out, &a, None, false)).unwrap();
    let run: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("hu2009/run.json")).unwrap()).unwrap();
    // sha256 of "; trace a\n" (sha256sum).
    assert_eq!(
        run["background_sha256"],
        json!("4063677b7a31c930348bc8ac9e8156a35f30a01d9f201cc5a044edbc48f18c23"),
        "{run}"
    );
    // Another file, the same file with other contents, or none: a resume is refused.
    let refused = |o: Options| {
        let e = reproduce(&[&exp], &o).unwrap_err();
        assert!(
            e.is_bad_input() && e.to_string().contains("another configuration"),
            "{e}"
        );
    };
    refused(on(&out, &b, None, true));
    refused(opts(&out, None, true));
    std::fs::write(&a, "; trace a, edited\n").unwrap();
    refused(on(&out, &a, None, true));
    // Shards of different files do not merge.
    let s1 = tmp.path().join("s1");
    let s2 = tmp.path().join("s2");
    reproduce(&[&exp], &on(&s1, &a, shard(1), false)).unwrap();
    reproduce(&[&exp], &on(&s2, &b, shard(2), false)).unwrap();
    let e = merge(&[&exp], &tmp.path().join("m"), &[s1, s2]).unwrap_err();
    assert!(e.to_string().contains("shards disagree"), "{e}");
}

#[test]
fn resume_keeps_the_timings_of_earlier_cells() {
    let tmp = tempfile::tempdir().unwrap();
    let exp = Pi::new();
    let out = tmp.path().join("r");
    // An interrupted run: only shard 1 of 3 finished, into the final folder.
    reproduce(&[&exp], &opts(&out, shard(1), false)).unwrap();
    let s = reproduce(&[&exp], &opts(&out, None, true)).unwrap();
    assert_eq!((s.papers[0].ran, s.papers[0].reused), (4, 3));
    let t: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("hu2009/timings.json")).unwrap()).unwrap();
    assert_eq!(t["cell_seconds"].as_object().unwrap().len(), 7);
    let whole = tmp.path().join("whole");
    reproduce(&[&exp], &opts(&whole, None, false)).unwrap();
    assert_identical(&whole, &out);
}

#[test]
fn shards_may_share_a_folder_and_stale_results_never_leak() {
    let tmp = tempfile::tempdir().unwrap();
    let exp = Pi::new();
    let whole = tmp.path().join("whole");
    reproduce(&[&exp], &opts(&whole, None, false)).unwrap();
    // Three shards into one folder, then a resumed run assembles without computing.
    let shared = tmp.path().join("shared");
    for k in 1..=3 {
        reproduce(&[&exp], &opts(&shared, shard(k), false)).unwrap();
    }
    let s = reproduce(&[&exp], &opts(&shared, None, true)).unwrap();
    assert_eq!((s.papers[0].ran, s.papers[0].reused), (0, 7));
    assert_identical(&whole, &shared);
    // Shard folders that hold a complete run of another seed: a fresh shard run clears it,
    // so the merge cannot pick up a cell of the old configuration.
    let mut dirs = Vec::new();
    for k in 1..=3 {
        let d = tmp.path().join(format!("s{k}"));
        let mut old = opts(&d, None, false);
        old.seed = 99;
        reproduce(&[&exp], &old).unwrap();
        std::fs::write(d.join("hu2009/notes.txt"), "mine").unwrap();
        reproduce(&[&exp], &opts(&d, shard(k), false)).unwrap();
        assert!(d.join("hu2009/notes.txt").exists(), "foreign files stay");
        dirs.push(d);
    }
    let merged = tmp.path().join("merged");
    merge(&[&exp], &merged, &dirs).unwrap();
    assert_identical(&whole, &merged);
    // Merging into one of the shard folders works too.
    merge(&[&exp], &dirs[0], &dirs).unwrap();
    std::fs::remove_file(dirs[0].join("hu2009/notes.txt")).unwrap();
    assert_identical(&whole, &dirs[0]);
}

#[test]
fn bad_table_ids_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    for (id, why) in [
        ("checks", "reserved"),
        ("../x", "not file-name safe"),
        ("", "not file-name safe"),
    ] {
        let exp = Pi {
            runs: AtomicUsize::new(0),
            table_id: id,
        };
        let e = reproduce(&[&exp], &opts(&tmp.path().join("b"), None, false)).unwrap_err();
        assert!(e.to_string().contains(why), "{id}: {e}");
    }
}

#[test]
fn run_json_lists_only_the_traces_the_paper_reads() {
    let tmp = tempfile::tempdir().unwrap();
    let traces = tmp.path().join("pwa");
    std::fs::create_dir_all(&traces).unwrap();
    std::fs::write(traces.join("READ.swf"), "; empty log\n").unwrap();
    std::fs::write(traces.join("OTHER.swf"), "; another log\n").unwrap();
    let exp = Pi::new();
    let with_traces = |out: &Path, shard: Option<Shard>| Options {
        traces: Some(traces.clone()),
        ..opts(out, shard, false)
    };
    let whole = tmp.path().join("whole");
    reproduce(&[&exp], &with_traces(&whole, None)).unwrap();
    let run: serde_json::Value =
        serde_json::from_slice(&std::fs::read(whole.join("hu2009/run.json")).unwrap()).unwrap();
    // sha256 of "; empty log\n" (python3 hashlib); OTHER.swf is not read, ABSENT.swf.gz absent.
    assert_eq!(
        run["trace_sha256"],
        json!({"READ.swf": "f42663e779e3267d15ad53369e81e8181c17cdb19ecfcd1cd5c04725494aebcb"}),
        "{run}"
    );
    let mut shard_dirs = Vec::new();
    for k in 1..=3 {
        let d = tmp.path().join(format!("shard{k}"));
        reproduce(&[&exp], &with_traces(&d, shard(k))).unwrap();
        shard_dirs.push(d);
    }
    let merged = tmp.path().join("merged");
    merge(&[&exp], &merged, &shard_dirs).unwrap();
    assert_identical(&whole, &merged);
}

#[test]
fn checks_that_differ_without_a_reason_are_reported() {
    let tmp = tempfile::tempdir().unwrap();
    let explained = reproduce(&[&Pi::new()], &opts(&tmp.path().join("a"), None, false)).unwrap();
    assert!(explained.papers[0].unexplained.is_empty());
    let exp = Pi {
        table_id: "unexplained",
        ..Pi::new()
    };
    let s = reproduce(&[&exp], &opts(&tmp.path().join("b"), None, false)).unwrap();
    assert_eq!(s.papers[0].unexplained, ["always-differs"]);
    assert!(
        tmp.path().join("b/hu2009/checks.json").is_file(),
        "the report is still written"
    );
}
