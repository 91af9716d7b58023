//! `cargo xtask report-check [DIR]`: renders `DIR/index.html` in headless Chromium and checks
//! that every table and figure is present and nothing failed to load; saves a screenshot.
//!
//! Installs what it needs: Debian's `chromium` (apt) and `playwright-core` (npm) into
//! `target/report-check/`. Runs the README's main command first when `DIR/index.html` is missing.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use crate::{run_cmd, workspace_root};

const CHECK_JS: &str = r#"
const { chromium } = require('playwright-core');
const fs = require('fs');
const path = require('path');
(async () => {
  const dir = path.resolve(process.argv[2]);
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: [
    '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'] });
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const failures = [];
  page.on('requestfailed', r => failures.push('request failed: ' + r.url()));
  page.on('console', m => { if (m.type() === 'error') failures.push('console error: ' + m.text()); });
  page.on('pageerror', e => failures.push('page error: ' + e.message));
  await page.goto('file://' + path.join(dir, 'index.html'), { waitUntil: 'load' });
  const got = await page.evaluate(() => ({
    figures: Array.from(document.querySelectorAll('figure img')).map(i => ({ src: i.getAttribute('src'), ok: i.complete && i.naturalWidth > 0 })),
    tables: Array.from(document.querySelectorAll('section.table')).map(s => s.id),
    checks: document.querySelectorAll('section.checks').length,
    papers: Array.from(document.querySelectorAll('h2')).map(h => h.id),
  }));
  let pass = 0, fail = 0;
  const line = (ok, what) => { console.log((ok ? 'PASS ' : 'FAIL ') + what); ok ? pass++ : fail++; };
  for (const p of got.papers) {
    const run = JSON.parse(fs.readFileSync(path.join(dir, p, 'run.json'), 'utf8'));
    const tables = got.tables.filter(t => t.startsWith(p + '-')).length;
    line(tables === run.tables.length, `${p}: ${tables} of ${run.tables.length} tables shown`);
    const figs = got.figures.filter(f => f.src.startsWith(p + '/'));
    line(figs.length === run.figures.length, `${p}: ${figs.length} of ${run.figures.length} figures shown`);
    for (const f of figs) line(f.ok, `${p}: figure ${f.src} loaded`);
  }
  line(got.papers.length > 0, `${got.papers.length} papers in the report`);
  for (const f of failures) line(false, f);
  await page.screenshot({ path: path.join(dir, 'screenshot.png'), fullPage: false });
  console.log(`${pass} passed, ${fail} failed`);
  await browser.close();
  process.exit(fail === 0 ? 0 : 1);
})().catch(e => { console.log('FAIL ' + e); console.log('0 passed, 1 failed'); process.exit(1); });
"#;

fn have(cmd: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {cmd} >/dev/null 2>&1")])
        .status()
        .is_ok_and(|s| s.success())
}

fn ensure_tools(work: &Path) -> Result<(), String> {
    if !Path::new("/usr/bin/chromium").exists() {
        eprintln!("report-check: installing Debian's chromium");
        run_cmd(Command::new("apt-get").arg("update").arg("-qq"))?;
        run_cmd(
            Command::new("apt-get")
                .args(["install", "-y", "-qq", "chromium"])
                .env("DEBIAN_FRONTEND", "noninteractive"),
        )?;
    }
    if !have("node") || !have("npm") {
        return Err("node and npm are needed (apt-get install nodejs npm)".into());
    }
    if !work.join("node_modules/playwright-core").exists() {
        eprintln!(
            "report-check: installing playwright-core into {}",
            work.display()
        );
        std::fs::create_dir_all(work).map_err(|e| e.to_string())?;
        run_cmd(
            Command::new("npm")
                .args(["install", "--silent", "--no-audit", "--no-fund", "--prefix"])
                .arg(work)
                .arg("playwright-core@1"),
        )?;
    }
    Ok(())
}

/// Runs the task.
pub fn run(args: &[String]) -> ExitCode {
    let root = workspace_root();
    let dir: PathBuf = args
        .first()
        .map_or_else(|| root.join("report"), PathBuf::from);
    let work = root.join("target/report-check");
    let result = (|| -> Result<bool, String> {
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
        ensure_tools(&work)?;
        std::fs::write(work.join("check.js"), CHECK_JS).map_err(|e| e.to_string())?;
        let status = Command::new("node")
            .arg(work.join("check.js"))
            .arg(&dir)
            .current_dir(&work)
            .status()
            .map_err(|e| e.to_string())?;
        eprintln!(
            "report-check: screenshot at {}",
            dir.join("screenshot.png").display()
        );
        Ok(status.success())
    })();
    match result {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("report-check: {e}");
            ExitCode::FAILURE
        }
    }
}
