//! The static report page: no network, no JavaScript.

use std::fmt::Write as _;

use slarm_report::{Cell, Check, PaperReport, Table, Value, Verdict};

use crate::config::PaperConfig;

/// Escapes text for HTML.
pub(crate) fn esc(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&#39;"),
            c => o.push(c),
        }
    }
    o
}

fn verdict_class(v: Verdict) -> &'static str {
    match v {
        Verdict::Match => "ok",
        Verdict::WithinTolerance => "near",
        Verdict::Differs => "bad",
        Verdict::NotPublished => "np",
    }
}

fn value_text(v: &Value) -> String {
    Cell::from(v).render()
}

/// The deviation as shown: absolute and relative to the published number; a deviation within
/// floating-point noise of the published value shows as 0.
fn deviation_text(c: &Check) -> (String, String) {
    let Some(d) = c.deviation else {
        return (String::new(), String::new());
    };
    let p = match c.published {
        Some(Value::Num(p)) => Some(p),
        _ => None,
    };
    let scale = p.map_or(1.0, |p| p.abs().max(1.0));
    let d = if d.abs() <= 1e-9 * scale { 0.0 } else { d };
    let rel = match p {
        Some(p) if p != 0.0 => format!("{:+.1}%", 100.0 * d / p.abs()),
        _ => String::new(),
    };
    (Cell::Num(d).render(), rel)
}

/// Shown (emphasised) in place of the reason of a difference that has none.
const NO_REASON: &str = "no reason recorded";

/// Whether the check differs without a reason.
fn lacks_reason(c: &Check) -> bool {
    c.reason.is_none() && c.verdict == Verdict::Differs
}

/// The reason cell: the check's reason, or a visible marker when a difference has none.
fn reason_html(c: &Check) -> String {
    if lacks_reason(c) {
        format!("<em class=\"missing\">{NO_REASON}</em>")
    } else {
        esc(c.reason.as_deref().unwrap_or(""))
    }
}

fn table_html(t: &Table, paper: &str, o: &mut String) {
    let _ = write!(
        o,
        "<section class=\"table\" id=\"{p}-{id}\"><h3>{title}</h3>\n<table><thead><tr>",
        p = esc(paper),
        id = esc(&t.id),
        title = esc(&t.title)
    );
    for c in &t.columns {
        let _ = write!(o, "<th>{}</th>", esc(c));
    }
    o.push_str("</tr></thead><tbody>\n");
    for r in &t.rows {
        o.push_str("<tr>");
        for c in r {
            let cls = if matches!(c, Cell::Num(_) | Cell::Int(_)) {
                " class=\"n\""
            } else {
                ""
            };
            let _ = write!(o, "<td{cls}>{}</td>", esc(&c.render()));
        }
        o.push_str("</tr>\n");
    }
    o.push_str("</tbody></table>");
    if let Some(n) = &t.note {
        let _ = write!(o, "<p class=\"note\">{}</p>", esc(n));
    }
    let _ = writeln!(
        o,
        "<p class=\"files\"><a href=\"{p}/{id}.csv\">CSV</a> · <a href=\"{p}/{id}.json\">JSON</a></p></section>",
        p = esc(paper),
        id = esc(&t.id)
    );
}

fn checks_html(checks: &[Check], paper: &str, o: &mut String) {
    if checks.is_empty() {
        return;
    }
    let _ = write!(
        o,
        "<section class=\"checks\" id=\"{p}-checks\"><h3>Our values beside the published ones</h3>\n<table><thead><tr><th>id</th><th>quantity</th><th>ours</th><th>published</th><th>deviation</th><th>relative</th><th>verdict</th><th>reason</th></tr></thead><tbody>\n",
        p = esc(paper)
    );
    for c in checks {
        let (dev, rel) = deviation_text(c);
        let _ = writeln!(
            o,
            "<tr class=\"{cls}\"><td>{id}</td><td>{d}</td><td class=\"n\">{ours}</td><td class=\"n\">{publ}</td><td class=\"n\">{dev}</td><td class=\"n\">{rel}</td><td class=\"v\">{v}</td><td>{r}</td></tr>",
            cls = verdict_class(c.verdict),
            id = esc(&c.id),
            d = esc(&c.description),
            ours = esc(&value_text(&c.ours)),
            publ = esc(&c.published.as_ref().map(value_text).unwrap_or_default()),
            dev = esc(&dev),
            rel = esc(&rel),
            v = esc(c.verdict.label()),
            r = reason_html(c),
        );
    }
    let _ = writeln!(o, "</tbody></table><p class=\"files\"><a href=\"{p}/checks.csv\">CSV</a> · <a href=\"{p}/checks.json\">JSON</a></p></section>", p = esc(paper));
}

fn counts(checks: &[Check]) -> [usize; 4] {
    let mut n = [0; 4];
    for c in checks {
        n[match c.verdict {
            Verdict::Match => 0,
            Verdict::WithinTolerance => 1,
            Verdict::Differs => 2,
            Verdict::NotPublished => 3,
        }] += 1;
    }
    n
}

pub(crate) const STYLE: &str = "body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;max-width:1520px;margin:2em auto;padding:0 1em;color:#222}\
h1{border-bottom:2px solid #333}h2{margin-top:2.5em;border-bottom:1px solid #999}\
table{border-collapse:collapse;margin:.5em 0;font-size:.9em}th,td{border:1px solid #ccc;padding:.25em .5em;vertical-align:top}\
th{background:#f0f0f0}td.n{text-align:right;font-variant-numeric:tabular-nums}\
td.v{white-space:nowrap}tr.ok td.v{background:#d9f2d9}tr.near td.v{background:#fff3c4}tr.bad td.v{background:#f8d0d0}tr.np td.v{background:#eee}\
figure{display:inline-block;margin:1em .5em;vertical-align:top;max-width:100%}figure img{max-width:100%;height:auto;border:1px solid #ddd}\
figcaption{font-size:.85em;color:#333;text-align:center}em.missing{color:#a00}\
span.sw{display:inline-block;padding:0 .4em;margin-right:.3em;border:1px solid #ccc}span.ok{background:#d9f2d9}span.near{background:#fff3c4}span.bad{background:#f8d0d0}span.np{background:#eee}\
p.note{font-size:.85em;color:#555}p.files{font-size:.8em}.meta{color:#555;font-size:.9em}";

/// The whole page.
pub(crate) fn index_html(reports: &[PaperReport], configs: &[PaperConfig]) -> String {
    let mut o = String::new();
    let _ = write!(
        o,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>slarm reproduction report</title><style>{STYLE}</style></head><body>\n<h1>slarm reproduction report</h1>\n"
    );
    o.push_str("<p>Each paper's first table shows every reproduced quantity: our value beside the published one, the deviation (absolute and relative) and a verdict: <span class=\"sw ok\">match</span> equal to the published value or the claim holds, <span class=\"sw near\">within tolerance</span> inside the stated tolerance, <span class=\"sw bad\">differs</span> outside it, with the reason (the entries of docs/decisions.md), <span class=\"sw np\">not published</span> the source gives no value. The paper's own tables and figures follow; in figures our series are solid with filled markers, published ones dashed with hollow markers.</p>\n");
    o.push_str("<table class=\"summary\"><thead><tr><th>paper</th><th>scale</th><th>seed</th><th>workload</th><th>match</th><th>within tolerance</th><th>differs</th><th>not published</th></tr></thead><tbody>\n");
    for (r, c) in reports.iter().zip(configs) {
        let n = counts(&r.checks);
        let _ = writeln!(
            o,
            "<tr><td><a href=\"#{p}\">{t}</a></td><td>{s}</td><td class=\"n\">{seed}</td><td>{w}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td></tr>",
            n[0],
            n[1],
            n[2],
            n[3],
            p = esc(&r.paper),
            t = esc(&r.title),
            s = c.scale.name(),
            seed = c.seed,
            w = esc(&r.workload),
        );
    }
    o.push_str("</tbody></table>\n");
    for (r, c) in reports.iter().zip(configs) {
        let _ = writeln!(
            o,
            "<h2 id=\"{p}\">{t}</h2>",
            p = esc(&r.paper),
            t = esc(&r.title)
        );
        let _ = writeln!(
            o,
            "<p class=\"meta\">Scale {s}, seed {seed}, {n} cells, revision {rev}. Workload: {w}. Files: <a href=\"{p}/run.json\">run.json</a>, <a href=\"{p}/report.json\">report.json</a>.</p>",
            s = c.scale.name(),
            seed = c.seed,
            n = c.cells.len(),
            rev = esc(&c.revision),
            w = esc(&r.workload),
            p = esc(&r.paper),
        );
        if !r.notes.is_empty() {
            o.push_str("<ul class=\"notes\">");
            for n in &r.notes {
                let _ = write!(o, "<li>{}</li>", esc(n));
            }
            o.push_str("</ul>\n");
        }
        checks_html(&r.checks, &r.paper, &mut o);
        for t in &r.tables {
            table_html(t, &r.paper, &mut o);
        }
        if !r.figures.is_empty() {
            let _ = writeln!(o, "<h3 id=\"{p}-figures\">Figures</h3>", p = esc(&r.paper));
        }
        for f in &r.figures {
            let _ = writeln!(
                o,
                "<figure id=\"{p}-{id}\"><img src=\"{p}/{id}.svg\" alt=\"{t}\" width=\"720\" height=\"480\"><figcaption>{t} (<a href=\"{p}/{id}.svg\">SVG</a>)</figcaption></figure>",
                p = esc(&r.paper),
                id = esc(&f.id),
                t = esc(&f.title)
            );
        }
    }
    o.push_str("</body></html>\n");
    o
}

/// Markdown summary of every paper, for docs/reproduction.md: one table of verdict counts per
/// paper, then every check of each paper (our value, the published one, the deviation, the
/// verdict and its reason) in a collapsed `<details>` block.
pub(crate) fn summary_markdown(reports: &[PaperReport], configs: &[PaperConfig]) -> String {
    let mut o = String::new();
    o.push_str("| paper | scale | workload | checks | match | within tolerance | differs | not published |\n|---|---|---|---:|---:|---:|---:|---:|\n");
    for (r, c) in reports.iter().zip(configs) {
        let n = counts(&r.checks);
        let _ = writeln!(
            o,
            "| {} | {} | {} | {} | {} | {} | {} | {} |",
            md(&r.title),
            c.scale.name(),
            md(&r.workload),
            r.checks.len(),
            n[0],
            n[1],
            n[2],
            n[3]
        );
    }
    for r in reports {
        if r.checks.is_empty() {
            continue;
        }
        let n = counts(&r.checks);
        let _ = writeln!(
            o,
            "\n<details><summary>{}: {} checks ({} match, {} within tolerance, {} differ, {} not published)</summary>\n",
            esc(&r.title),
            r.checks.len(),
            n[0],
            n[1],
            n[2],
            n[3]
        );
        o.push_str("| id | quantity | ours | published | deviation | verdict | reason |\n|---|---|---:|---:|---:|---|---|\n");
        for c in &r.checks {
            let _ = writeln!(
                o,
                "| {} | {} | {} | {} | {} | {} | {} |",
                md(&c.id),
                md(&c.description),
                md(&value_text(&c.ours)),
                md(&c.published.as_ref().map(value_text).unwrap_or_default()),
                deviation_text(c).0,
                c.verdict.label(),
                if lacks_reason(c) {
                    format!("*{NO_REASON}*")
                } else {
                    md(c.reason.as_deref().unwrap_or(""))
                }
            );
        }
        o.push_str("\n</details>\n");
    }
    o
}

/// Tables longer than this many rows are folded into a `<details>` block in Markdown.
const FOLD_ROWS: usize = 12;

/// Markdown of one paper's tables (ours beside published, rounded as the report page rounds
/// them) and its notes, for the per-paper sections of docs/reproduction.md. Numeric columns are
/// right-aligned; tables longer than 12 rows are folded into `<details>`.
pub fn tables_markdown(report: &PaperReport) -> String {
    let mut o = String::new();
    for t in &report.tables {
        let fold = t.rows.len() > FOLD_ROWS;
        if fold {
            let _ = writeln!(
                o,
                "<details><summary>{} ({} rows)</summary>\n",
                esc(&t.title),
                t.rows.len()
            );
        } else {
            let _ = writeln!(o, "#### {}\n", md(&t.title));
        }
        let row = |cells: Vec<String>| format!("| {} |", cells.join(" | "));
        let _ = writeln!(o, "{}", row(t.columns.iter().map(|c| md(c)).collect()));
        let numeric = |j: usize| {
            t.rows.iter().all(|r| {
                matches!(
                    r.get(j),
                    None | Some(Cell::Num(_) | Cell::Int(_) | Cell::Empty)
                )
            })
        };
        let align = (0..t.columns.len())
            .map(|j| if numeric(j) { "---:" } else { "---" })
            .collect::<Vec<_>>()
            .join("|");
        let _ = writeln!(o, "|{align}|");
        for r in &t.rows {
            let _ = writeln!(o, "{}", row(r.iter().map(|c| md(&c.render())).collect()));
        }
        if let Some(n) = &t.note {
            let _ = writeln!(o, "\n{}", md(n));
        }
        if fold {
            o.push_str("\n</details>\n");
        }
        o.push('\n');
    }
    if !report.notes.is_empty() {
        o.push_str("Notes of the run:\n\n");
        for n in &report.notes {
            let _ = writeln!(o, "- {}", md(n));
        }
    }
    o
}

/// Escapes a table cell for Markdown.
fn md(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deviations_hide_float_noise_and_show_the_relative_gap() {
        let c = Check::numeric("a", "", 22.6 + 1e-14, Some(22.6), 0.1);
        assert_eq!(deviation_text(&c), ("0".to_string(), "+0.0%".to_string()));
        let c = Check::numeric("a", "", 22.55, Some(22.58), 0.1);
        assert_eq!(
            deviation_text(&c),
            ("-0.03".to_string(), "-0.1%".to_string())
        );
        let c = Check::numeric("a", "", 3.0, Some(0.0), 0.1);
        assert_eq!(deviation_text(&c), ("3".to_string(), String::new()));
        assert_eq!(
            deviation_text(&Check::claim("a", "", true, "x")),
            (String::new(), String::new())
        );
    }

    #[test]
    fn a_difference_without_reason_is_flagged() {
        let bad = Check::numeric("a", "", 2.0, Some(1.0), 0.1);
        assert!(reason_html(&bad).contains(NO_REASON));
        assert_eq!(reason_html(&bad.clone().with_reason("a < b")), "a &lt; b");
        let fine = Check::numeric("a", "", 1.0, Some(1.0), 0.1);
        assert_eq!(reason_html(&fine), "");
    }

    #[test]
    fn tables_markdown_aligns_numbers_and_folds_long_tables() {
        let table = |id: &str, rows: usize| Table {
            id: id.into(),
            title: format!("Table {id}"),
            columns: vec!["case".into(), "ours".into()],
            rows: (0..rows)
                .map(|i| vec![Cell::Text(format!("c{i}")), Cell::Num(i as f64 + 0.5)])
                .collect(),
            note: Some("a | note".into()),
        };
        let report = PaperReport {
            paper: "p".into(),
            title: "P".into(),
            workload: "w".into(),
            tables: vec![table("short", 2), table("long", FOLD_ROWS + 1)],
            checks: vec![],
            figures: vec![],
            notes: vec!["one note".into()],
        };
        let md = tables_markdown(&report);
        assert!(md.starts_with("#### Table short\n\n| case | ours |\n|---|---:|\n| c0 | 0.5 |\n| c1 | 1.5 |\n\na \\| note\n"), "{md}");
        assert!(md.contains(&format!(
            "<details><summary>Table long ({} rows)</summary>",
            FOLD_ROWS + 1
        )));
        assert_eq!(md.matches("</details>").count(), 1);
        assert!(md.ends_with("Notes of the run:\n\n- one note\n"));
    }

    #[test]
    fn escapes_markup() {
        assert_eq!(
            esc("<a href=\"x\">&'"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;"
        );
    }
}
