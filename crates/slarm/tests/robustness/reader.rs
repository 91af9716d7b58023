//! The SWF reader: random bytes, gzip junk, randomly corrupted real SWF lines, bad paths.

use slarm::workload::reader::{
    decompressing, open, parse_job_line, read_trace, read_trace_from, ReadOptions,
};
use slarm::workload::{Job, Workload};

use crate::{property, Gen, Tally, READER_CASES};

/// Real SWF job lines (the first 200 jobs of KTH-SP2) when the trace folder is present.
fn real_lines() -> Vec<String> {
    let path = slarm::workload::traces::configured_dir().join("KTH-SP2-1996-2.1-cln.swf.gz");
    if !path.is_file() {
        eprintln!(
            "robustness: {} absent; corrupting synthetic SWF lines instead",
            path.display()
        );
        return (1..=50)
            .map(|i| {
                Job::new(
                    i,
                    i as f64 * 30.0,
                    100.0 * i as f64,
                    1 + (i % 8) as i64,
                    200.0 * i as f64,
                )
            })
            .map(|j| fields_line(&j))
            .collect();
    }
    let trace = read_trace(&path, ReadOptions::default()).expect("the KTH trace reads");
    trace
        .jobs
        .iter()
        .take(200)
        .map(|j| fields_line(&j))
        .collect()
}

fn fields_line(j: &Job) -> String {
    j.to_fields()
        .iter()
        .map(|v| format!("{v}"))
        .collect::<Vec<_>>()
        .join(" ")
}

const JUNK: [&str; 10] = [
    "x",
    "-",
    "1e999",
    "NaN",
    "\u{0}",
    "99999999999999999999",
    "-0",
    "; c",
    "",
    "\u{fffd}\t",
];

/// One corruption: replace, drop or duplicate a field, splice junk bytes, truncate.
fn corrupt(g: &mut Gen, line: &str) -> String {
    let mut f: Vec<String> = line.split_whitespace().map(str::to_string).collect();
    let junk = JUNK[g.below(JUNK.len() as u64) as usize];
    let i = g.below(f.len().max(1) as u64) as usize;
    match g.below(5) {
        0 if !f.is_empty() => f[i] = junk.to_string(),
        1 if !f.is_empty() => {
            f.remove(i);
        }
        2 => f.insert(i.min(f.len()), junk.to_string()),
        3 => {
            let cut = line
                .char_indices()
                .map(|(k, _)| k)
                .nth(g.below(line.len() as u64) as usize)
                .unwrap_or(0);
            return format!("{}{}{}", &line[..cut], junk, &line[cut..]);
        }
        _ => f.truncate(i),
    }
    f.join(" ")
}

/// Reads `input` strictly and leniently; a clean workload gets only positive processors.
fn read_both(t: &mut Tally, input: &[u8]) {
    for lenient in [false, true] {
        let r = read_trace_from(
            std::io::Cursor::new(input.to_vec()),
            "fuzz.swf",
            ReadOptions { lenient },
        );
        if let Some(trace) = t.call(r) {
            if let Some(w) = t.call(Workload::from_trace(trace, None)) {
                assert!(w.jobs.iter().all(|j| j.procs() > 0), "{}", t.at());
            }
        }
    }
    let _ = parse_job_line(input);
    t.infallible();
}

#[test]
fn random_bytes() {
    property("reader/random bytes", READER_CASES, true, |g, t| {
        let bytes = g.bytes(512);
        read_both(t, &bytes);
    });
}

/// Random bytes made of SWF's own alphabet (digits, signs, dots, spaces, newlines, `;`), which
/// reach the numeric parser far more often than uniform bytes.
#[test]
fn random_swf_alphabet() {
    const ALPHABET: &[u8] = b"0123456789  -.;\n\te+:MaxProcs";
    property("reader/random SWF alphabet", READER_CASES, true, |g, t| {
        let n = g.below(600);
        let bytes: Vec<u8> = (0..n).map(|_| *g.pick(ALPHABET)).collect();
        read_both(t, &bytes);
    });
}

#[test]
fn gzip_magic_with_junk() {
    property("reader/gzip magic + junk", READER_CASES, true, |g, t| {
        let mut input = vec![0x1f, 0x8b, 0x08, 0x00];
        input.extend(g.bytes(256));
        read_both(t, &input);
        let boxed = t.call(decompressing(std::io::Cursor::new(input), "fuzz.swf.gz"));
        drop(boxed);
    });
}

#[test]
fn corrupted_real_lines_give_typed_errors_or_counted_skips() {
    let lines = real_lines();
    let (mut strict_errors, mut skipped) = (0u64, 0u64);
    property("reader/corrupted real lines", READER_CASES, true, |g, t| {
        let start = g.below(lines.len().saturating_sub(30) as u64) as usize;
        let window = &lines[start..(start + 30).min(lines.len())];
        let bad = 1 + g.below(3);
        let mut text = String::from("; MaxProcs: 100\n");
        for (n, line) in window.iter().enumerate() {
            if (n as u64) < bad {
                text.push_str(&corrupt(g, line));
            } else {
                text.push_str(line);
            }
            text.push('\n');
        }
        let read = |lenient| {
            read_trace_from(
                std::io::Cursor::new(text.clone().into_bytes()),
                "c.swf",
                ReadOptions { lenient },
            )
        };
        let at = t.at();
        let lenient = read(true).unwrap_or_else(|e| panic!("{at}: lenient read failed: {e}"));
        t.infallible();
        match read(false) {
            Ok(strict) => {
                t.infallible();
                assert_eq!(strict.jobs.len(), lenient.jobs.len(), "{at}");
            }
            Err(e) => {
                t.call(Err::<(), _>(&e));
                strict_errors += 1;
                assert!(
                    e.to_string().contains("c.swf"),
                    "{at}: error names no file: {e}"
                );
                assert!(
                    lenient.skipped_lines > 0,
                    "{at}: strict failed ({e}) but lenient skipped nothing"
                );
            }
        }
        skipped += lenient.skipped_lines;
    });
    eprintln!(
        "robustness: reader/corrupted real lines: {strict_errors} strict errors, {skipped} lenient skips over {READER_CASES} traces"
    );
    assert!(strict_errors > 0, "the corruptions never produced an error");
}

/// Missing files, folders and junk files on disk: an error naming the path.
#[test]
fn bad_paths() {
    let dir = tempfile_dir();
    let junk = dir.join("junk.swf.gz");
    std::fs::write(&junk, [0x1f, 0x8b, 0x08, 0x00, 1, 2, 3]).unwrap();
    let mut t = Tally::default();
    for path in [dir.join("absent.swf"), dir.clone(), junk] {
        for lenient in [false, true] {
            let e = read_trace(&path, ReadOptions { lenient }).expect_err("a bad path reads");
            assert!(
                e.to_string().contains(&*path.to_string_lossy()),
                "error names no path: {e}"
            );
            t.call(Err::<(), _>(e));
            if let Ok(mut r) = open(&path, ReadOptions { lenient }) {
                assert!(r.any(|j| j.is_err()), "{} yields no error", path.display());
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    eprintln!(
        "robustness: reader/bad paths: 3 paths x strict/lenient: {} typed errors, 0 panics",
        t.errors()
    );
}

fn tempfile_dir() -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("slarm-robustness-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
