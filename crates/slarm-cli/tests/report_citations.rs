//! The report a user opens cites the papers (author, year, section), never a reference the
//! reader cannot follow: an extraction's section ("spec §2.4", "spec 003"), an ambiguity
//! code ("A22"), an extraction's experiment code ("E8"), a path outside the repository
//! ("../shared") or an issue number.
//!
//! Two scans, with the pattern of `grep -E "spec (§|0[0-4])|\bA[0-9]{1,2}\b|\bE[0-9]\b|\.\./shared|issue
//! [0-9]+"`:
//! - the JSON, CSV, HTML and Markdown files of a quick-scale reproduction of hu2009,
//!   birkenheuer2012 and yigitbasi2010 (6-10 s of processor time each in a debug build; all
//!   five papers take about 45 s, 85 s of wall time on a loaded two-core machine, too long for a
//!   test), and the report index that summarises them;
//! - the source of every paper's report (`slarm-repro`, all five papers) and of the report
//!   writer (`slarm-report`), where every reason, note, title and check id is a literal or a
//!   format string: this covers yeo-buyya and sung2006, and text that only paper scale or a
//!   real trace prints.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::{Path, PathBuf};

use common::slarm;

/// The first unreadable reference in `text`, if any (the pattern of the module docs).
fn unreadable_reference(text: &str) -> Option<&str> {
    let b = text.as_bytes();
    let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    for (i, _) in text.char_indices() {
        let rest = &text[i..];
        if let Some(after) = rest.strip_prefix("spec ") {
            let a = after.as_bytes();
            if after.starts_with('§')
                || (a.len() >= 2 && a[0] == b'0' && (b'0'..=b'4').contains(&a[1]))
            {
                return Some(&rest[..rest.len().min(12)]);
            }
        }
        if rest.starts_with("../shared") {
            return Some("../shared");
        }
        if let Some(after) = rest.strip_prefix("issue ") {
            if after.as_bytes().first().is_some_and(u8::is_ascii_digit) {
                return Some(&rest[..rest.len().min(9)]);
            }
        }
        if b[i] == b'A' && (i == 0 || !word(b[i - 1])) {
            let digits = b[i + 1..].iter().take_while(|c| c.is_ascii_digit()).count();
            let end = i + 1 + digits;
            if (1..=2).contains(&digits) && (end == b.len() || !word(b[end])) {
                return Some(&text[i..end]);
            }
        }
        if b[i] == b'E' && (i == 0 || !word(b[i - 1])) {
            let end = i + 2;
            if b.get(i + 1).is_some_and(u8::is_ascii_digit) && (end == b.len() || !word(b[end])) {
                return Some(&text[i..end]);
            }
        }
    }
    None
}

fn files_under(dir: &Path, ext: &[&str], out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            files_under(&p, ext, out);
        } else if p
            .extension()
            .and_then(|x| x.to_str())
            .is_some_and(|x| ext.contains(&x))
        {
            out.push(p);
        }
    }
}

/// Every line of `files` that holds an unreadable reference, as `path:line: reference`.
fn offending_lines(files: &[PathBuf]) -> Vec<String> {
    let mut found = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(f).unwrap();
        for (n, line) in text.lines().enumerate() {
            if let Some(r) = unreadable_reference(line) {
                found.push(format!("{}:{}: {r}", f.display(), n + 1));
            }
        }
    }
    found
}

#[test]
fn the_pattern_finds_what_it_must_and_nothing_else() {
    for bad in [
        "spec §2.4",
        "(spec A22)",
        "A6/CTC/plan",
        "spec 003 §6",
        "see ../shared/design.md",
        "issue 15",
        "x A9",
        "E8: load sweep",
        "(E0 and E1 last)",
    ] {
        assert!(unreadable_reference(bad).is_some(), "{bad}");
    }
    for good in [
        "Yigitbasi & Epema 2010, Sec. VII",
        "Table A1x",
        "BA12",
        "A123",
        "spec readings",
        "the issue of",
        "peak-gain/CTC/comp-overbook/runtime",
        "σ §3",
        "1E5",
        "E12",
        "e2-policies",
    ] {
        assert!(unreadable_reference(good).is_none(), "{good}");
    }
}

#[test]
fn report_sources_cite_only_papers() {
    let crates = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    files_under(&crates.join("slarm-repro/src"), &["rs"], &mut files);
    files_under(&crates.join("slarm-report/src"), &["rs"], &mut files);
    assert!(files.len() > 10, "the report sources were not found");
    let found = offending_lines(&files);
    assert!(
        found.is_empty(),
        "unreadable references:\n{}",
        found.join("\n")
    );
}

#[test]
fn quick_report_files_cite_only_papers() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("report");
    slarm([
        "reproduce",
        "hu2009",
        "birkenheuer2012",
        "yigitbasi2010",
        "--scale",
        "quick",
        "--out",
        out.to_str().unwrap(),
    ])
    .assert()
    .success();
    let mut files = Vec::new();
    files_under(&out, &["json", "csv", "html", "md"], &mut files);
    assert!(
        files.iter().any(|f| f.ends_with("index.html"))
            && files
                .iter()
                .any(|f| f.extension().is_some_and(|x| x == "csv")),
        "the quick run wrote no report"
    );
    let found = offending_lines(&files);
    assert!(
        found.is_empty(),
        "unreadable references:\n{}",
        found.join("\n")
    );
}
