//! Writing a paper's report files and the index page.

use std::path::Path;

use serde_json::json;
use slarm_report::{Experiment, PaperReport, Table};

use crate::config::{is_safe_id, PaperConfig};
use crate::fsutil::{list_dir, read, to_json_bytes, write_atomic};
use crate::html::{index_html, summary_markdown};
use crate::svg::render_svg;
use crate::ReproError;

/// File names a paper folder uses for itself; no table or figure may take them.
const RESERVED: [&str; 6] = ["report", "checks", "run", "config", "timings", "cells"];

/// Refuses table and figure ids that are not file-name safe, reserved, or used twice (a table
/// and a figure may share an id: their files differ by extension, `.csv`/`.json` vs `.svg`).
fn check_ids(report: &PaperReport) -> Result<(), ReproError> {
    let bad = |kind: &str, id: &str, why: &str| {
        Err(ReproError::BadRequest(format!(
            "paper {}: {kind} id '{id}' {why}",
            report.paper
        )))
    };
    for (kind, ids) in [
        (
            "table",
            report
                .tables
                .iter()
                .map(|t| t.id.as_str())
                .collect::<Vec<_>>(),
        ),
        (
            "figure",
            report.figures.iter().map(|f| f.id.as_str()).collect(),
        ),
    ] {
        let mut seen = std::collections::BTreeSet::new();
        for id in ids {
            if !is_safe_id(id) {
                return bad(
                    kind,
                    id,
                    "is not file-name safe ([A-Za-z0-9._-], no leading dot)",
                );
            }
            if RESERVED.contains(&id) {
                return bad(kind, id, "is reserved for the report's own files");
            }
            if !seen.insert(id) {
                return bad(kind, id, "is used twice");
            }
        }
    }
    Ok(())
}

/// Writes `DIR/<paper>/`: report.json, tables (CSV, JSON), checks, figures (SVG), run.json.
pub(crate) fn write_paper(
    report: &PaperReport,
    config: &PaperConfig,
    out: &Path,
) -> Result<(), ReproError> {
    check_ids(report)?;
    let dir = out.join(&report.paper);
    write_atomic(&dir.join("report.json"), &to_json_bytes(report))?;
    for t in &report.tables {
        write_atomic(&dir.join(format!("{}.csv", t.id)), t.to_csv().as_bytes())?;
        write_atomic(&dir.join(format!("{}.json", t.id)), &to_json_bytes(t))?;
    }
    let checks = Table::of_checks(
        "checks",
        "Reproduced values beside published ones",
        &report.checks,
    );
    write_atomic(&dir.join("checks.csv"), checks.to_csv().as_bytes())?;
    write_atomic(&dir.join("checks.json"), &to_json_bytes(&report.checks))?;
    for f in &report.figures {
        write_atomic(
            &dir.join(format!("{}.svg", f.id)),
            render_svg(f)?.as_bytes(),
        )?;
    }
    let mut run = json!({
        "paper": report.paper,
        "title": report.title,
        "scale": config.scale,
        "seed": config.seed,
        "revision": config.revision,
        "slarm_version": env!("CARGO_PKG_VERSION"),
        "traces": config.traces,
        "trace_sha256": config.trace_sha256,
        "workload": report.workload,
        "cells": config.cells.len(),
        "tables": report.tables.iter().map(|t| &t.id).collect::<Vec<_>>(),
        "figures": report.figures.iter().map(|f| &f.id).collect::<Vec<_>>(),
        "checks": report.checks.len(),
        // Wall-clock timings live beside, in the only files that differ between two runs.
        "timings": {"cells": "timings.json", "run": "../timings.json"},
    });
    // The background trace, only when one was given (runs without one keep their bytes).
    if let (Some(path), Some(map)) = (&config.background, run.as_object_mut()) {
        map.insert("background".into(), json!(path));
        map.insert("background_sha256".into(), json!(config.background_sha256));
    }
    write_atomic(&dir.join("run.json"), &to_json_bytes(&run))
}

/// Writes `DIR/index.html` and `DIR/summary.md` listing every paper with a report in `out`,
/// not only those of `experiments`: a run of one paper into an existing report keeps the
/// others. Order: the papers of [`crate::papers::PAPERS`] in report order, then the other
/// experiments in their order, then any other paper folder by name.
pub(crate) fn write_index(experiments: &[&dyn Experiment], out: &Path) -> Result<(), ReproError> {
    let mut papers: Vec<String> = crate::papers::PAPERS
        .iter()
        .map(|p| p.to_string())
        .collect();
    for exp in experiments {
        if !papers.iter().any(|p| p == exp.paper()) {
            papers.push(exp.paper().to_string());
        }
    }
    for dir in list_dir(out)? {
        let name = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if dir.join("config.json").is_file() && !papers.contains(&name) {
            papers.push(name);
        }
    }
    let mut reports = Vec::new();
    let mut configs = Vec::new();
    for paper in &papers {
        let path = out.join(paper).join("report.json");
        if !path.exists() {
            continue;
        }
        let bytes = read(&path)?;
        let r: PaperReport = serde_json::from_slice(&bytes).map_err(|e| ReproError::Malformed {
            path: path.clone(),
            message: e.to_string(),
        })?;
        let cpath = out.join(paper).join("config.json");
        let c: PaperConfig =
            serde_json::from_slice(&read(&cpath)?).map_err(|e| ReproError::Malformed {
                path: cpath.clone(),
                message: e.to_string(),
            })?;
        reports.push(r);
        configs.push(c);
    }
    write_atomic(
        &out.join("index.html"),
        index_html(&reports, &configs).as_bytes(),
    )?;
    write_atomic(
        &out.join("summary.md"),
        summary_markdown(&reports, &configs).as_bytes(),
    )
}
