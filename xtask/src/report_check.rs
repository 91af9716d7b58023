//! `cargo xtask report-check [DIR]`: renders `DIR/index.html` in headless Chromium (Debian's
//! `chromium` and `chromium-driver`, installed with apt-get when missing, driven over
//! WebDriver) and checks that every paper, table (with all its rows), check table and figure
//! of the run is on the page, that every figure loaded, every link resolves, the browser
//! logged no error, and the page needs neither JavaScript nor the network. Saves screenshots
//! to `target/report-check/` (not into DIR, which stays byte-comparable).
//!
//! Runs the README's main command first when `DIR/index.html` is missing.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use serde_json::Value;

use crate::webdriver::Browser;
use crate::{run_cmd, workspace_root};

/// What the page shows, read in the browser.
const PROBE: &str = r##"
const q = s => Array.from(document.querySelectorAll(s));
return {
  papers: q('h2').map(h => h.id),
  tables: q('section.table').map(s => ({ id: s.id, rows: s.querySelectorAll('tbody tr').length })),
  checks: q('section.checks').map(s => ({ id: s.id, rows: s.querySelectorAll('tbody tr').length })),
  figures: q('figure img').map(i => ({ src: i.getAttribute('src'), ok: i.complete && i.naturalWidth > 0 })),
  links: q('a[href]').map(a => a.getAttribute('href')),
  missing_anchors: q('a[href^="#"]').map(a => a.getAttribute('href')).filter(h => !document.getElementById(h.slice(1))),
  scripts: q('script').length,
  external: q('[src],[href]').map(e => e.getAttribute('src') || e.getAttribute('href')).filter(u => /^([a-z]+:)?\/\//i.test(u)),
};
"##;

fn have_browser() -> bool {
    Path::new("/usr/bin/chromium").exists() && Path::new("/usr/bin/chromedriver").exists()
}

pub(crate) fn ensure_browser() -> Result<(), String> {
    if have_browser() {
        return Ok(());
    }
    eprintln!("report-check: installing Debian's chromium and chromium-driver");
    run_cmd(Command::new("apt-get").args(["update", "-qq"]))?;
    run_cmd(
        Command::new("apt-get")
            .args(["install", "-y", "-qq", "chromium", "chromium-driver"])
            .env("DEBIAN_FRONTEND", "noninteractive"),
    )
}

/// Tallies PASS/FAIL lines.
#[derive(Default)]
pub(crate) struct Tally {
    pub(crate) pass: usize,
    pub(crate) fail: usize,
}

impl Tally {
    pub(crate) fn line(&mut self, ok: bool, what: impl std::fmt::Display) {
        println!("{} {what}", if ok { "PASS" } else { "FAIL" });
        if ok {
            self.pass += 1;
        } else {
            self.fail += 1;
        }
    }
}

fn read_json(path: &Path) -> Result<Value, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    serde_json::from_slice(&bytes).map_err(|e| format!("{}: {e}", path.display()))
}

pub(crate) fn strs(v: &Value) -> Vec<String> {
    v.as_array()
        .map(|a| {
            a.iter()
                .filter_map(|x| x.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// Ids of the checks of a `checks.json` whose verdict is "differs" and whose reason is missing
/// or blank (every "differs" verdict carries its reason).
fn unexplained_differs(checks: &Value) -> Vec<String> {
    checks
        .as_array()
        .into_iter()
        .flatten()
        .filter(|c| {
            c["verdict"] == "differs" && c["reason"].as_str().is_none_or(|r| r.trim().is_empty())
        })
        .map(|c| c["id"].as_str().unwrap_or("?").to_string())
        .collect()
}

/// Compares one paper's part of the page with the files of the run.
fn check_paper(dir: &Path, paper: &str, page: &Value, t: &mut Tally) -> Result<(), String> {
    let run = read_json(&dir.join(paper).join("run.json"))?;
    let shown = |kind: &str, id: &str| -> Option<u64> {
        page[kind]
            .as_array()?
            .iter()
            .find(|s| s["id"] == format!("{paper}-{id}").as_str())
            .and_then(|s| s["rows"].as_u64())
    };
    let tables = strs(&run["tables"]);
    let mut complete = 0;
    for id in &tables {
        let want = read_json(&dir.join(paper).join(format!("{id}.json")))?["rows"]
            .as_array()
            .map_or(0, Vec::len) as u64;
        match shown("tables", id) {
            Some(rows) if rows == want => complete += 1,
            Some(rows) => t.line(
                false,
                format!("{paper}: table {id} shows {rows} of {want} rows"),
            ),
            None => t.line(false, format!("{paper}: table {id} is not on the page")),
        }
    }
    t.line(
        complete == tables.len(),
        format!(
            "{paper}: {complete} of {} tables shown with all their rows",
            tables.len()
        ),
    );
    let checks = run["checks"].as_u64().unwrap_or(0);
    if checks > 0 {
        let rows = shown("checks", "checks").unwrap_or(0);
        t.line(
            rows == checks,
            format!(
                "{paper}: {rows} of {checks} checks shown (ours, published, deviation, verdict)"
            ),
        );
    }
    let unexplained = unexplained_differs(&read_json(&dir.join(paper).join("checks.json"))?);
    t.line(
        unexplained.is_empty(),
        if unexplained.is_empty() {
            format!("{paper}: every 'differs' check carries its reason")
        } else {
            format!(
                "{paper}: checks differ without a reason: {}",
                unexplained.join(", ")
            )
        },
    );
    let figures = strs(&run["figures"]);
    let imgs: Vec<&Value> = page["figures"]
        .as_array()
        .map(|a| a.iter().collect())
        .unwrap_or_default();
    let mut loaded = 0;
    for id in &figures {
        let src = format!("{paper}/{id}.svg");
        match imgs.iter().find(|i| i["src"] == src.as_str()) {
            Some(i) if i["ok"] == Value::Bool(true) => loaded += 1,
            Some(_) => t.line(false, format!("{paper}: figure {src} failed to load")),
            None => t.line(false, format!("{paper}: figure {src} is not on the page")),
        }
    }
    t.line(
        loaded == figures.len(),
        format!(
            "{paper}: {loaded} of {} figures shown and loaded (SVG)",
            figures.len()
        ),
    );
    Ok(())
}

/// Screenshots of the top of the page and of each paper's heading and figures.
fn screenshots(b: &Browser, papers: &[String], shots: &Path) -> Result<Vec<PathBuf>, String> {
    std::fs::create_dir_all(shots).map_err(|e| e.to_string())?;
    let mut written = Vec::new();
    let mut take = |name: String| -> Result<(), String> {
        let p = shots.join(name);
        std::fs::write(&p, b.screenshot()?).map_err(|e| format!("{}: {e}", p.display()))?;
        written.push(p);
        Ok(())
    };
    take("screenshot.png".into())?;
    for p in papers {
        for (anchor, name) in [
            (p.clone(), format!("screenshot-{p}.png")),
            (
                format!("{p}-figures"),
                format!("screenshot-{p}-figures.png"),
            ),
        ] {
            let found = b.execute(&format!(
                "const e = document.getElementById({anchor:?}); if (!e) return false; e.scrollIntoView(); return true;"
            ))?;
            if found == Value::Bool(true) {
                take(name)?;
            }
        }
    }
    Ok(written)
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
    let papers = strs(&page["papers"]);
    let mut on_disk: Vec<String> = std::fs::read_dir(&dir)
        .map_err(|e| e.to_string())?
        .filter_map(|e| e.ok())
        .filter(|e| e.path().join("report.json").exists())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    on_disk.sort();
    let mut shown = papers.clone();
    shown.sort();
    t.line(
        !papers.is_empty() && shown == on_disk,
        format!(
            "{} papers on the page, {} reports in {}",
            papers.len(),
            on_disk.len(),
            dir.display()
        ),
    );
    for p in &papers {
        check_paper(&dir, p, &page, &mut t)?;
    }
    let links = strs(&page["links"]);
    let broken: Vec<&String> = links
        .iter()
        .filter(|l| !l.starts_with('#') && !dir.join(l.as_str()).is_file())
        .collect();
    t.line(
        broken.is_empty(),
        format!("{} links, broken: {broken:?}", links.len()),
    );
    let anchors = strs(&page["missing_anchors"]);
    t.line(
        anchors.is_empty(),
        format!("in-page anchors resolve (missing: {anchors:?})"),
    );
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
    let shots = screenshots(&browser, &papers, work)?;
    eprintln!(
        "report-check: {} screenshots in {} (look at them)",
        shots.len(),
        work.display()
    );
    Ok(t)
}

/// Runs the task.
pub fn run(args: &[String]) -> ExitCode {
    let root = workspace_root();
    let dir: PathBuf = args
        .first()
        .map_or_else(|| root.join("report"), PathBuf::from);
    let work = root.join("target/report-check");
    let result = (|| -> Result<Tally, String> {
        if !dir.join("index.html").exists() {
            eprintln!(
                "report-check: {} has no index.html; running the README's main command",
                dir.display()
            );
            run_cmd(
                Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
                    .args([
                        "run",
                        "--release",
                        "-p",
                        "slarm-cli",
                        "--",
                        "reproduce",
                        "--scale",
                        "quick",
                        "--out",
                    ])
                    .arg(&dir)
                    .current_dir(&root),
            )?;
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
            eprintln!("report-check: {e}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn differs_rows_without_a_reason_are_named() {
        let checks = serde_json::json!([
            {"id": "a", "verdict": "differs", "reason": "spec §1"},
            {"id": "b", "verdict": "differs", "reason": null},
            {"id": "c", "verdict": "differs", "reason": "  "},
            {"id": "d", "verdict": "match", "reason": null},
            {"id": "e", "verdict": "differs"}
        ]);
        assert_eq!(unexplained_differs(&checks), ["b", "c", "e"]);
    }
}
