//! `cargo xtask simulate-report-check DIR`: renders the page of `slarm simulate --report DIR`
//! in headless Chromium (as `report-check` does) and checks that the summary table, the
//! command line and every figure are on the page, that every figure loaded, and that each
//! SVG is drawn: one series per policy (each colour of the palette used by a legend sample
//! and at least one data element), a Gantt chart with at least one job. Also checks that
//! the page needs neither JavaScript nor the network and that the browser logged no error.
//! Saves screenshots to `target/simulate-report-check/`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use serde_json::Value;

use crate::report_check::{ensure_browser, strs, Tally};
use crate::webdriver::Browser;
use crate::workspace_root;

/// The figures every page has, before one Gantt chart per policy (`gantt-1`, ...); bars for
/// the two slowdown figures, lines for the others.
const FIGURES: [(&str, bool); 6] = [
    ("utilisation", false),
    ("waiting-jobs", false),
    ("waiting-procs", false),
    ("wait-cdf", false),
    ("slowdown-width", true),
    ("slowdown-runtime", true),
];

/// The series colours of the SVG writer, in series order (plotters writes them in upper case).
const PALETTE: [&str; 8] = [
    "#1F77B4", "#D62728", "#2CA02C", "#FF7F0E", "#9467BD", "#8C564B", "#E377C2", "#7F7F7F",
];

const PROBE: &str = r##"
const q = s => Array.from(document.querySelectorAll(s));
return {
  figures: q('figure').map(f => {
    const i = f.querySelector('img');
    return { id: f.id, series: Number(f.dataset.series), src: i ? i.getAttribute('src') : null,
             ok: !!i && i.complete && i.naturalWidth > 0 };
  }),
  policies: q('table.policies tbody tr').length,
  columns: q('table.policies thead th').length,
  command: (document.getElementById('command') || {}).textContent || '',
  scripts: q('script').length,
  external: q('[src],[href]').map(e => e.getAttribute('src') || e.getAttribute('href')).filter(u => /^([a-z]+:)?\/\//i.test(u)),
};
"##;

/// How many elements of `tag` in `svg` carry `attr="colour"`.
fn count(svg: &str, tag: &str, attr: &str, colour: &str) -> usize {
    let needle = format!("{attr}=\"{colour}\"");
    svg.split(&format!("<{tag} "))
        .skip(1)
        .filter(|e| {
            e.split('>')
                .next()
                .is_some_and(|head| head.contains(&needle))
        })
        .count()
}

/// The number of series drawn in `svg`: palette colours (in order) with a legend sample and
/// at least one data element (polyline for lines, rectangle for bars).
fn series_drawn(svg: &str, bars: bool) -> usize {
    let (tag, attr) = if bars {
        ("rect", "fill")
    } else {
        ("polyline", "stroke")
    };
    PALETTE
        .iter()
        .take_while(|c| count(svg, tag, attr, c) >= 2)
        .count()
}

fn check(dir: &Path, work: &Path) -> Result<Tally, String> {
    let dir = dir
        .canonicalize()
        .map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut t = Tally::default();
    let profile = work.join("profile");
    let _ = std::fs::remove_dir_all(&profile);
    let browser = Browser::start(&profile, 1280, 900)?;
    let url = format!("file://{}", dir.join("index.html").display())
        .replace('%', "%25")
        .replace(' ', "%20")
        .replace('#', "%23");
    browser.goto(&url)?;
    let page = browser.execute(PROBE)?;
    let policies = page["policies"].as_u64().unwrap_or(0) as usize;
    t.line(
        policies > 0 && page["columns"].as_u64() == Some(6),
        format!("summary table: {policies} policies, 6 columns"),
    );
    t.line(
        page["command"]
            .as_str()
            .is_some_and(|c| c.contains("simulate") && c.contains("--report")),
        format!("command line shown: {}", page["command"]),
    );
    let figures = page["figures"].as_array().cloned().unwrap_or_default();
    let find = |id: &str| {
        figures
            .iter()
            .find(|f| f["id"] == format!("fig-{id}").as_str())
    };
    let mut expected: Vec<(String, Option<bool>)> = FIGURES
        .iter()
        .map(|&(id, bars)| (id.to_string(), Some(bars)))
        .collect();
    expected.extend((1..=policies).map(|i| (format!("gantt-{i}"), None)));
    t.line(
        figures.len() == expected.len(),
        format!(
            "{} figures on the page, {} expected",
            figures.len(),
            expected.len()
        ),
    );
    for (id, bars) in &expected {
        let Some(f) = find(id) else {
            t.line(false, format!("figure {id} is not on the page"));
            continue;
        };
        let src = format!("{id}.svg");
        t.line(
            f["src"] == src.as_str() && f["ok"] == Value::Bool(true),
            format!("figure {id}: {src} loaded"),
        );
        let svg = std::fs::read_to_string(dir.join(&src))
            .map_err(|e| format!("{}: {e}", dir.join(&src).display()))?;
        match bars {
            Some(bars) => {
                let drawn = series_drawn(&svg, *bars);
                let want = f["series"].as_u64().unwrap_or(0) as usize;
                t.line(
                    want == policies && drawn == want,
                    format!(
                        "figure {id}: {drawn} series drawn, {want} announced, {policies} policies"
                    ),
                );
            }
            None => {
                // The background and, per job interval, a fill and an outline.
                let rects = svg.matches("<rect ").count();
                t.line(
                    rects >= 3,
                    format!("figure {id}: {} job rectangles", (rects.max(1) - 1) / 2),
                );
            }
        }
    }
    t.line(page["scripts"] == 0, "no JavaScript on the page");
    let external = strs(&page["external"]);
    t.line(
        external.is_empty(),
        format!("no network resources (external: {external:?})"),
    );
    let errors: Vec<String> = browser
        .console()?
        .into_iter()
        .filter(|(level, _)| level == "SEVERE")
        .map(|(_, m)| m)
        .collect();
    t.line(
        errors.is_empty(),
        format!("browser logged no error {errors:?}"),
    );
    std::fs::create_dir_all(work).map_err(|e| e.to_string())?;
    let mut shots: Vec<PathBuf> = Vec::new();
    for anchor in ["summary", "over-time", "waits", "gantt"] {
        browser.execute(&format!(
            "const e = document.getElementById({anchor:?}); if (e) e.scrollIntoView(); return true;"
        ))?;
        let p = work.join(format!("screenshot-{anchor}.png"));
        std::fs::write(&p, browser.screenshot()?).map_err(|e| format!("{}: {e}", p.display()))?;
        shots.push(p);
    }
    eprintln!(
        "simulate-report-check: {} screenshots in {} (look at them)",
        shots.len(),
        work.display()
    );
    Ok(t)
}

/// Runs the task.
pub fn run(args: &[String]) -> ExitCode {
    let Some(dir) = args.first().map(PathBuf::from) else {
        eprintln!(
            "usage: cargo xtask simulate-report-check DIR (written by slarm simulate --report DIR)"
        );
        return ExitCode::from(2);
    };
    let work = workspace_root().join("target/simulate-report-check");
    let result = (|| -> Result<Tally, String> {
        if !dir.join("index.html").is_file() {
            return Err(format!("{} has no index.html", dir.display()));
        }
        ensure_browser()?;
        check(&dir, &work)
    })();
    match result {
        Ok(t) => {
            println!("{} passed, {} failed", t.pass, t.fail);
            if t.fail == 0 {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            }
        }
        Err(e) => {
            eprintln!("simulate-report-check: {e}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn series_are_counted_by_colour_with_legend_and_data() {
        let svg = r##"<svg><polyline stroke="#1F77B4" points="1,2"/><polyline stroke="#1F77B4" points="1,2 3,4"/><polyline stroke="#D62728" points="1,2"/><polyline stroke="#000000"/></svg>"##;
        // The second colour has its legend sample only: one series drawn.
        assert_eq!(series_drawn(svg, false), 1);
        let bars = r##"<rect fill="#1F77B4"/><rect fill="#1F77B4"/><rect fill="#D62728"/><rect fill="#D62728"/>"##;
        assert_eq!(series_drawn(bars, true), 2);
        assert_eq!(series_drawn(bars, false), 0);
    }
}
