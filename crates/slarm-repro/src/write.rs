//! Writing a paper's report files and the index page.

use std::path::Path;

use serde_json::json;
use slarm_report::{Experiment, PaperReport, Table};

use crate::fsutil::{read, to_json_bytes, write_atomic};
use crate::html::{index_html, summary_markdown};
use crate::run::PaperConfig;
use crate::svg::render_svg;
use crate::ReproError;

/// Writes `DIR/<paper>/`: report.json, tables (CSV, JSON), checks, figures (SVG), run.json.
pub(crate) fn write_paper(
    report: &PaperReport,
    config: &PaperConfig,
    out: &Path,
) -> Result<(), ReproError> {
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
    let run = json!({
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
    });
    write_atomic(&dir.join("run.json"), &to_json_bytes(&run))
}

/// Writes `DIR/index.html` and `DIR/summary.md` listing every paper (in registry order) with a
/// report in `out`.
pub(crate) fn write_index(experiments: &[&dyn Experiment], out: &Path) -> Result<(), ReproError> {
    let mut reports = Vec::new();
    let mut configs = Vec::new();
    for exp in experiments {
        let path = out.join(exp.paper()).join("report.json");
        if !path.exists() {
            continue;
        }
        let bytes = read(&path)?;
        let r: PaperReport = serde_json::from_slice(&bytes).map_err(|e| ReproError::Malformed {
            path: path.clone(),
            message: e.to_string(),
        })?;
        let cpath = out.join(exp.paper()).join("config.json");
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
