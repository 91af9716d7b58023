//! Streaming reader of the Standard Workload Format (Chapin et al. 1999; the format of
//! Feitelson's Parallel Workloads Archive) for `.swf` and gzip-compressed `.swf.gz`.
//!
//! Compression is detected from the gzip magic bytes, not the file name (the archive has a
//! `lublin_256_new2.gz` without `.swf`), and the inflating runs on a thread of its own
//! ([`crate::inflate`]). [`SwfReader`] yields the jobs one line at a time; [`read_trace`]
//! reads a whole input with its lines parsed on several threads ([`read_all`]), with the
//! same result. Either way memory stays a small multiple of the parsed jobs. Strict mode (the
//! default) stops at the first malformed job line with an error naming the file, line and
//! field; lenient mode skips such lines and counts them.
//!
//! ```
//! use slarm_workload::reader::{read_trace_from, ReadOptions};
//!
//! let text = "; MaxProcs: 8\n1 0 -1 10 2 -1 -1 2 20 -1 1 -1 -1 -1 -1 -1 -1 -1\n";
//! let trace = read_trace_from(text.as_bytes(), "mem.swf", ReadOptions::default())?;
//! assert_eq!(trace.jobs.len(), 1);
//! assert_eq!(trace.header.machine_size(), Some(8));
//!
//! let bad = "1 0 -1 ten 2 -1 -1 2 20 -1 1 -1 -1 -1 -1 -1 -1 -1\n";
//! let err = read_trace_from(bad.as_bytes(), "bad.swf", ReadOptions::default()).unwrap_err();
//! assert_eq!(err.to_string(), "bad.swf: line 1: field 4: not a number: \"ten\"");
//! # Ok::<(), slarm_workload::WorkloadError>(())
//! ```

use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

use flate2::read::MultiGzDecoder;

use crate::blocks;
use crate::error::{Result, WorkloadError};
use crate::header::SwfHeader;
use crate::inflate::inflating;
use crate::job::Job;
use crate::table::JobTable;

use crate::swf_line::{classify, Line};
pub use crate::swf_line::{parse_job_line, SWF_FIELDS};

/// How to treat malformed lines.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ReadOptions {
    /// Skip malformed job lines (and count them) instead of failing.
    pub lenient: bool,
}

/// A trace as read from a file: header, job lines in file order, skipped-line count.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Trace {
    /// File name (or a label for in-memory input).
    pub name: String,
    /// Parsed header.
    pub header: SwfHeader,
    /// Job lines in file order (not yet cleaned or sorted), stored compactly.
    pub jobs: JobTable,
    /// Malformed lines skipped in lenient mode.
    pub skipped_lines: u64,
    /// True for generated workloads: the header carries `; SlarmSynthetic: ...`
    /// ([`crate::header::SYNTHETIC_KEY`]), which the synthetic generator writes.
    pub synthetic: bool,
}

/// A streaming iterator over the job lines of an SWF input. Header comments are absorbed
/// into [`SwfReader::header`] as they are met.
pub struct SwfReader<R> {
    input: R,
    file: String,
    line: u64,
    buf: Vec<u8>,
    header: SwfHeader,
    skipped: u64,
    lenient: bool,
    done: bool,
}

impl<R> std::fmt::Debug for SwfReader<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SwfReader")
            .field("file", &self.file)
            .field("line", &self.line)
            .field("skipped", &self.skipped)
            .finish()
    }
}

/// A boxed buffered input, plain or decompressed.
pub type BoxedInput = Box<dyn BufRead + Send>;

fn io_err(file: &str, e: &std::io::Error) -> WorkloadError {
    WorkloadError::Io {
        file: file.to_string(),
        message: e.to_string(),
    }
}

/// Wraps `input` in a gzip decoder when it starts with the gzip magic bytes. The decoder
/// runs on a thread of its own ([`crate::inflate`]), so the caller parses one chunk while
/// the next is inflated.
pub fn decompressing<R: Read + Send + 'static>(input: R, file: &str) -> Result<BoxedInput> {
    let mut buffered = BufReader::with_capacity(1 << 16, input);
    let head = buffered.fill_buf().map_err(|e| io_err(file, &e))?;
    if head.len() >= 2 && head[0] == 0x1f && head[1] == 0x8b {
        Ok(inflating(MultiGzDecoder::new(buffered)))
    } else {
        Ok(Box::new(buffered))
    }
}

/// Opens an SWF file (plain or gzip) for streaming.
pub fn open(path: &Path, options: ReadOptions) -> Result<SwfReader<BoxedInput>> {
    let name = path.display().to_string();
    let file = File::open(path).map_err(|e| io_err(&name, &e))?;
    Ok(SwfReader::new(decompressing(file, &name)?, &name, options))
}

/// Reads a whole SWF file into a [`Trace`], straight into its compact [`JobTable`] (88
/// bytes a job), with the job lines parsed on the machine's processors (at most 4; see
/// [`read_all`]). Errors on an input without job lines.
pub fn read_trace(path: &Path, options: ReadOptions) -> Result<Trace> {
    read_trace_with(path, options, &mut |_, _| {})
}

/// [`read_trace`], showing `on_block` the header and the jobs read so far (in file order)
/// each time a block of job lines (about 256 KiB of the file) has been added: work on the
/// log (a simulation of its jobs, say) can start while the rest is read.
///
/// ```
/// use slarm_workload::reader::{read_trace_with, ReadOptions};
///
/// let path = std::env::temp_dir().join(format!("slarm-doc-{}.swf", std::process::id()));
/// std::fs::write(&path, "; MaxProcs: 8\n1 0 -1 10 2 -1 -1 2 20 -1 1 -1 -1 -1 -1 -1 -1 -1\n")?;
/// let mut seen = Vec::new();
/// let trace = read_trace_with(&path, ReadOptions::default(), &mut |header, jobs| {
///     seen.push((header.max_procs, jobs.len()));
/// })?;
/// assert_eq!(seen, vec![(Some(8), 1)]);
/// assert_eq!(trace.jobs.len(), 1);
/// # std::fs::remove_file(&path)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn read_trace_with(
    path: &Path,
    options: ReadOptions,
    on_block: &mut dyn FnMut(&SwfHeader, &JobTable),
) -> Result<Trace> {
    let name = path.display().to_string();
    let file = File::open(path).map_err(|e| io_err(&name, &e))?;
    read_blocks_of(
        decompressing(file, &name)?,
        &name,
        options,
        (blocks::default_workers(), blocks::BLOCK),
        on_block,
    )
}

/// Reads a whole SWF input (plain or gzip bytes) into a [`Trace`] labelled `name`, as
/// [`read_trace`] does.
pub fn read_trace_from<R: Read + Send + 'static>(
    input: R,
    name: &str,
    options: ReadOptions,
) -> Result<Trace> {
    read_all(
        decompressing(input, name)?,
        name,
        options,
        blocks::default_workers(),
    )
}

/// Reads the whole of a plain-text `input` into a [`Trace`] labelled `name`, with its job
/// lines parsed on `workers` threads (at least one): a reader thread cuts the input into
/// blocks of whole lines, worker `k mod workers` parses block `k`, and the caller's thread
/// takes the blocks back in order. The trace, the error and its line number are those of
/// [`SwfReader`] whatever the number of workers; a few blocks are in flight at a time.
///
/// ```
/// use slarm_workload::reader::{read_all, ReadOptions};
///
/// let text = "; MaxProcs: 8\n1 0 -1 10 2 -1 -1 2 20 -1 1 -1 -1 -1 -1 -1 -1 -1\n";
/// for workers in 1..=3 {
///     let trace = read_all(text.as_bytes(), "mem.swf", ReadOptions::default(), workers)?;
///     assert_eq!(trace.jobs.len(), 1);
/// }
/// # Ok::<(), slarm_workload::WorkloadError>(())
/// ```
pub fn read_all<R: BufRead + Send>(
    input: R,
    name: &str,
    options: ReadOptions,
    workers: usize,
) -> Result<Trace> {
    read_blocks_of(
        input,
        name,
        options,
        (workers, blocks::BLOCK),
        &mut |_, _| {},
    )
}

/// [`read_all`] on `(workers, block size)`, showing `on_block` each block's progress.
fn read_blocks_of<R: BufRead + Send>(
    input: R,
    name: &str,
    options: ReadOptions,
    workers_and_size: (usize, usize),
    on_block: &mut dyn FnMut(&SwfHeader, &JobTable),
) -> Result<Trace> {
    let parts = blocks::read_in_blocks(input, name, options.lenient, workers_and_size, on_block)?;
    Ok(Trace {
        name: name.to_string(),
        synthetic: parts.header.is_synthetic(),
        header: parts.header,
        jobs: parts.jobs,
        skipped_lines: parts.skipped,
    })
}

impl<R: BufRead> SwfReader<R> {
    /// A reader over `input`, naming `file` in its errors.
    pub fn new(input: R, file: &str, options: ReadOptions) -> Self {
        Self {
            input,
            file: file.to_string(),
            line: 0,
            buf: Vec::with_capacity(256),
            header: SwfHeader::default(),
            skipped: 0,
            lenient: options.lenient,
            done: false,
        }
    }

    /// The header comments seen so far (complete once the first job line was returned,
    /// since SWF headers precede the jobs).
    pub fn header(&self) -> &SwfHeader {
        &self.header
    }

    /// Malformed lines skipped so far (lenient mode).
    pub fn skipped_lines(&self) -> u64 {
        self.skipped
    }

    /// Current line number (1-based; 0 before reading).
    pub fn line(&self) -> u64 {
        self.line
    }

    fn malformed(&self, field: usize, reason: String) -> WorkloadError {
        WorkloadError::Malformed {
            file: self.file.clone(),
            line: self.line,
            field,
            reason,
        }
    }
}

impl<R: BufRead> SwfReader<R> {
    /// Reads and classifies the next line: straight from the input's buffer when the whole
    /// line is there (the common case, no copy), else through `self.buf`. `None` at the end
    /// of the input.
    fn next_line(&mut self) -> std::io::Result<Option<Line>> {
        let avail = self.input.fill_buf()?;
        if avail.is_empty() {
            return Ok(None);
        }
        let line = if let Some(pos) = memchr::memchr(b'\n', avail) {
            let line = classify(&avail[..pos]);
            self.input.consume(pos + 1);
            line
        } else {
            self.buf.clear();
            self.input.read_until(b'\n', &mut self.buf)?;
            classify(&self.buf)
        };
        self.line += 1;
        Ok(Some(line))
    }
}

impl<R: BufRead> Iterator for SwfReader<R> {
    type Item = Result<Job>;

    fn next(&mut self) -> Option<Result<Job>> {
        while !self.done {
            match self.next_line() {
                Err(e) => {
                    self.done = true;
                    return Some(Err(WorkloadError::Decompress {
                        file: self.file.clone(),
                        line: self.line + 1,
                        message: e.to_string(),
                    }));
                }
                Ok(None) => self.done = true,
                Ok(Some(Line::Skip)) => {}
                Ok(Some(Line::Comment(text))) => self.header.absorb(&text),
                Ok(Some(Line::Job(Ok(job)))) => return Some(Ok(job)),
                Ok(Some(Line::Job(Err((field, reason))))) => {
                    if self.lenient {
                        self.skipped += 1;
                        continue;
                    }
                    self.done = true;
                    return Some(Err(self.malformed(field, reason)));
                }
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::io::Write;

    const GOOD: &str = "1 0 -1 10 2 -1 -1 2 20 -1 1 -1 -1 -1 -1 -1 -1 -1";

    fn read(text: &[u8], lenient: bool) -> Result<Trace> {
        read_trace_from(
            std::io::Cursor::new(text.to_vec()),
            "t.swf",
            ReadOptions { lenient },
        )
    }

    fn gz(text: &[u8]) -> Vec<u8> {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(text).unwrap();
        e.finish().unwrap()
    }

    #[test]
    fn strict_errors_name_line_and_field() {
        let text = format!("; MaxProcs: 4\n{GOOD}\n1 2 3\n");
        match read(text.as_bytes(), false) {
            Err(WorkloadError::Malformed { line, field, .. }) => {
                assert_eq!((line, field), (3, 4));
            }
            other => panic!("{other:?}"),
        }
        let text = format!("{GOOD} 7\n");
        assert!(matches!(
            read(text.as_bytes(), false),
            Err(WorkloadError::Malformed {
                line: 1,
                field: 0,
                ..
            })
        ));
        let text = GOOD.replace(" 2 -1 -1 2", " 2.5 -1 -1 2");
        assert!(matches!(
            read(text.as_bytes(), false),
            Err(WorkloadError::Malformed { field: 5, .. })
        ));
        let text = GOOD.replacen("10", "NaN", 1);
        assert!(matches!(
            read(text.as_bytes(), false),
            Err(WorkloadError::Malformed { field: 4, .. })
        ));
        let mut junk = GOOD.as_bytes().to_vec();
        junk[2] = 0xff;
        assert!(matches!(
            read(&junk, false),
            Err(WorkloadError::Malformed { field: 2, .. })
        ));
    }

    /// Hostile values found by the robustness sweep: strict reading names their line and
    /// field, lenient reading skips them; a job number of i64::MAX is read exactly.
    #[test]
    fn hostile_values_name_line_and_field() {
        for (bad, field) in [
            (GOOD.replacen(" 0 ", " -5 ", 1), 2),
            (GOOD.replacen(" 0 ", " 1e308 ", 1), 2),
            (GOOD.replacen("1 ", "9223372036854775808 ", 1), 1),
        ] {
            let text = format!("; MaxProcs: 4\n{GOOD}\n{bad}\n{GOOD}\n");
            match read(text.as_bytes(), false) {
                Err(WorkloadError::Malformed { line, field: f, .. }) => {
                    assert_eq!((line, f), (3, field), "{bad}");
                }
                other => panic!("{bad}: {other:?}"),
            }
            let t = read(text.as_bytes(), true).unwrap();
            assert_eq!((t.jobs.len(), t.skipped_lines), (2, 1));
        }
        let text = GOOD.replacen("1 ", "9223372036854775807 ", 1);
        let t = read(text.as_bytes(), false).unwrap();
        assert_eq!(t.jobs.id(0), 9_223_372_036_854_775_807);
    }

    #[test]
    fn lenient_skips_and_counts() {
        let text = format!("{GOOD}\n1 2 3\n\n{GOOD}\nx y\n");
        let t = read(text.as_bytes(), true).unwrap();
        assert_eq!(t.jobs.len(), 2);
        assert_eq!(t.skipped_lines, 2);
    }

    #[test]
    fn empty_and_header_only_inputs_are_errors() {
        assert!(matches!(
            read(b"", false),
            Err(WorkloadError::NoJobs { .. })
        ));
        assert!(matches!(
            read(b"; MaxProcs: 3\n", true),
            Err(WorkloadError::NoJobs { .. })
        ));
    }

    #[test]
    fn gzip_is_detected_and_corruption_reported() {
        let text = format!("; MaxNodes: 16\n{GOOD}\n{GOOD}\n");
        let z = gz(text.as_bytes());
        let t = read(&z, false).unwrap();
        assert_eq!(t.jobs.len(), 2);
        assert_eq!(t.header.machine_size(), Some(16));
        let truncated = &z[..z.len() / 2];
        assert!(matches!(
            read(truncated, false),
            Err(WorkloadError::Decompress { .. })
        ));
        let mut corrupt = z.clone();
        for b in corrupt.iter_mut().skip(12).take(8) {
            *b ^= 0x5a;
        }
        assert!(read(&corrupt, false).is_err());
    }

    proptest! {
        #[test]
        fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..400), lenient in any::<bool>()) {
            let _ = read(&bytes, lenient);
            let mut z = vec![0x1f, 0x8b];
            z.extend_from_slice(&bytes);
            let _ = read(&z, lenient);
        }

        /// A valid trace, plain or gzip, with random bytes overwritten and a random cut:
        /// never a panic; a strict error names a line that exists (or the decoder's).
        #[test]
        fn corrupted_traces_give_errors_not_panics(
            flips in proptest::collection::vec((any::<usize>(), any::<u8>()), 0..12),
            cut in any::<usize>(),
            zipped in any::<bool>(),
            lenient in any::<bool>(),
        ) {
            let mut text = String::from("; MaxProcs: 64\n; UnixStartTime: 0\n");
            for i in 1..=40 {
                text.push_str(&format!("{i} {} -1 {} 4 -1 -1 4 {} -1 1 -1 -1 -1 -1 -1 -1 -1\n", i * 7, 10 + i, 20 + i));
            }
            let mut bytes = if zipped { gz(text.as_bytes()) } else { text.into_bytes() };
            let n = bytes.len();
            for (pos, b) in flips {
                bytes[pos % n] = b;
            }
            bytes.truncate(cut % (n + 1));
            match read(&bytes, lenient) {
                Ok(t) => prop_assert!(!t.jobs.is_empty()),
                Err(WorkloadError::Malformed { line, field, .. }) => {
                    prop_assert!(!lenient);
                    prop_assert!(line >= 1 && field <= SWF_FIELDS);
                }
                Err(WorkloadError::Decompress { line, .. }) => prop_assert!(line >= 1),
                Err(WorkloadError::NoJobs { .. }) => {}
                Err(e) => prop_assert!(false, "unexpected error {e}"),
            }
        }

        #[test]
        fn numeric_lines_round_trip(vals in proptest::collection::vec(-1i64..100_000, 18)) {
            let line: Vec<String> = vals.iter().map(|v| v.abs().to_string()).collect();
            let job = parse_job_line(line.join(" ").as_bytes());
            prop_assert!(job.is_ok());
            let f = job.unwrap().to_fields();
            for (a, b) in f.iter().zip(vals.iter()) {
                prop_assert_eq!(*a, b.abs() as f64);
            }
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod in_blocks {
    use super::*;
    use proptest::prelude::*;
    use std::io;

    /// [`read_all`] with blocks of `size` bytes.
    fn read_all_in_blocks_of<R: BufRead + Send>(
        input: R,
        name: &str,
        options: ReadOptions,
        workers: usize,
        size: usize,
    ) -> Result<Trace> {
        read_blocks_of(input, name, options, (workers, size), &mut |_, _| {})
    }

    #[test]
    fn each_block_shows_the_header_and_the_jobs_so_far() {
        let mut text = String::from("; MaxProcs: 8\n");
        for k in 1..=40 {
            text.push_str(&GOOD.replacen('1', &k.to_string(), 1));
            text.push('\n');
        }
        for workers in 1..=3 {
            let mut seen = Vec::new();
            // A small buffer, so that blocks are cut every 100 bytes or so.
            let trace = read_blocks_of(
                io::BufReader::with_capacity(50, text.as_bytes()),
                "t.swf",
                ReadOptions::default(),
                (workers, 100),
                &mut |header, jobs| {
                    seen.push((header.machine_size(), jobs.len(), jobs.last().map(|j| j.id)));
                },
            )
            .unwrap();
            // Blocks of about 100 bytes: a few lines each, every job shown once it is read.
            assert!(seen.len() > 10, "{seen:?}");
            assert!(seen.windows(2).all(|w| w[0].1 < w[1].1), "{seen:?}");
            assert!(seen
                .iter()
                .all(|&(size, n, last)| size == Some(8) && last == Some(n as u64)));
            assert_eq!(seen.last().map(|s| s.1), Some(trace.jobs.len()));
        }
    }

    /// The trace as read line by line with [`SwfReader`]: the reference.
    fn line_by_line<R: BufRead>(input: R, lenient: bool) -> Result<Trace> {
        let mut reader = SwfReader::new(input, "t.swf", ReadOptions { lenient });
        let mut jobs: Option<JobTable> = None;
        for job in reader.by_ref() {
            let table = jobs.get_or_insert_with(|| JobTable::with_capacity(1));
            table.push(job?)?;
        }
        let jobs = jobs.ok_or(WorkloadError::NoJobs {
            file: "t.swf".into(),
        })?;
        Ok(Trace {
            name: "t.swf".into(),
            synthetic: reader.header().is_synthetic(),
            header: reader.header().clone(),
            jobs,
            skipped_lines: reader.skipped_lines(),
        })
    }

    fn both(text: &[u8], lenient: bool, workers: usize, size: usize) -> (String, String) {
        let ours = read_all_in_blocks_of(text, "t.swf", ReadOptions { lenient }, workers, size);
        let reference = line_by_line(text, lenient);
        (format!("{ours:?}"), format!("{reference:?}"))
    }

    const GOOD: &str = "1 0 -1 10 2 -1 -1 2 20 -1 1 -1 -1 -1 -1 -1 -1 -1";

    #[test]
    fn errors_name_the_line_in_the_whole_file() {
        let mut text = String::from("; MaxProcs: 8\n");
        for _ in 0..40 {
            text.push_str(GOOD);
            text.push('\n');
        }
        text.push_str("2 0 -1 ten 2 -1 -1 2 20 -1 1 -1 -1 -1 -1 -1 -1 -1\n");
        text.push_str(GOOD);
        for workers in 1..=3 {
            let err = read_all_in_blocks_of(
                text.as_bytes(),
                "t.swf",
                ReadOptions { lenient: false },
                workers,
                100,
            )
            .unwrap_err();
            assert_eq!(
                err.to_string(),
                "t.swf: line 42: field 4: not a number: \"ten\""
            );
            let trace = read_all_in_blocks_of(
                text.as_bytes(),
                "t.swf",
                ReadOptions { lenient: true },
                workers,
                100,
            )
            .unwrap();
            assert_eq!((trace.jobs.len(), trace.skipped_lines), (41, 1));
            assert_eq!(trace.header.machine_size(), Some(8));
        }
    }

    /// A reader that fails after `ok` bytes.
    struct FailingAfter<'a> {
        text: &'a [u8],
        ok: usize,
    }

    impl io::Read for FailingAfter<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            if self.ok == 0 {
                return Err(io::Error::other("disk on fire"));
            }
            let n = buf.len().min(self.ok).min(self.text.len()).min(7);
            buf[..n].copy_from_slice(&self.text[..n]);
            self.text = &self.text[n..];
            self.ok -= n;
            Ok(n)
        }
    }

    proptest! {
        /// Any mix of job lines, malformed lines, comments, blank lines and line ends gives
        /// the trace or the error of reading line by line, for any block size and number of
        /// workers.
        #[test]
        fn blocks_read_as_lines_do(
            lines in proptest::collection::vec(0usize..6, 0..60),
            crlf in any::<bool>(),
            last_newline in any::<bool>(),
            lenient in any::<bool>(),
            workers in 1usize..4,
            size in 1usize..300,
        ) {
            let end = if crlf { "\r\n" } else { "\n" };
            let mut text = String::new();
            for (i, kind) in lines.iter().enumerate() {
                match kind {
                    0 | 1 => text.push_str(&GOOD.replacen('1', &(i + 1).to_string(), 1)),
                    2 => text.push_str("3 0 -1 x 2 -1 -1 2 20 -1 1 -1 -1 -1 -1 -1 -1 -1"),
                    3 => text.push_str("; MaxProcs: 16"),
                    4 => text.push_str("  "),
                    _ => text.push_str("; Note: something"),
                }
                if i + 1 < lines.len() || last_newline {
                    text.push_str(end);
                }
            }
            let (ours, reference) = both(text.as_bytes(), lenient, workers, size);
            prop_assert_eq!(ours, reference);
        }

        /// A read error is reported at the line where line-by-line reading reports it,
        /// after the malformed line that precedes it, if any.
        #[test]
        fn read_errors_come_in_file_order(
            good in 0usize..30,
            bad_at in proptest::option::of(0usize..30),
            ok in 0usize..3000,
            workers in 1usize..4,
            size in 1usize..300,
        ) {
            let mut text = String::new();
            for i in 0..good {
                if Some(i) == bad_at {
                    text.push_str("3 0 -1 x 2 -1 -1 2 20 -1 1 -1 -1 -1 -1 -1 -1 -1\n");
                }
                text.push_str(GOOD);
                text.push('\n');
            }
            let input = || io::BufReader::new(FailingAfter { text: text.as_bytes(), ok });
            let ours = read_all_in_blocks_of(input(), "t.swf", ReadOptions { lenient: false }, workers, size);
            let reference = line_by_line(input(), false);
            prop_assert_eq!(format!("{ours:?}"), format!("{reference:?}"));
        }
    }
}
