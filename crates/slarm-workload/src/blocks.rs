//! Reading a whole SWF input with its job lines parsed on several threads, with the result
//! of reading it line by line.
//!
//! A reader thread cuts the input into blocks of whole lines (about [`BLOCK`] bytes, cut
//! after a newline), hands block `k` to worker `k mod n`, and the caller's thread takes the
//! workers' results back in block order: it absorbs each block's header comments, appends
//! its jobs to the table, and stops at the first malformed line in file order (strict mode)
//! or counts such lines (lenient mode). So the trace, the error and its line number are
//! those of [`SwfReader`](crate::reader::SwfReader) whatever the number of workers. Each
//! worker holds at most one block waiting and one result unread, so the memory in flight is
//! a few blocks however long the input is.

use std::io::{self, BufRead};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};

use crate::error::{Result, WorkloadError};
use crate::header::SwfHeader;
use crate::job::Job;
use crate::reader::{classify, Line, Trace};
use crate::table::JobTable;

/// Bytes of a block before it is cut at its last newline.
pub const BLOCK: usize = 1 << 18;

/// Most parsing threads used.
const MAX_WORKERS: usize = 4;

/// What a worker made of one block.
#[derive(Debug, Default)]
struct Parsed {
    jobs: Vec<Job>,
    /// Header comments (the text after `;`), in order.
    comments: Vec<String>,
    /// Lines in the block.
    lines: u64,
    /// Malformed job lines skipped (lenient mode).
    skipped: u64,
    /// The first malformed line (strict mode): its 1-based line within the block, the field
    /// and the reason.
    error: Option<(u64, usize, String)>,
}

/// Parses the lines of `block` (the last one may lack its newline).
fn parse_block(block: &[u8], lenient: bool) -> Parsed {
    let mut out = Parsed {
        jobs: Vec::with_capacity(block.len() / 64),
        ..Parsed::default()
    };
    let mut rest = block;
    while !rest.is_empty() {
        let (line, next) = match memchr::memchr(b'\n', rest) {
            Some(p) => (&rest[..p], &rest[p + 1..]),
            None => (rest, &rest[rest.len()..]),
        };
        rest = next;
        out.lines += 1;
        match classify(line) {
            Line::Skip => {}
            Line::Comment(text) => out.comments.push(text),
            Line::Job(Ok(job)) => out.jobs.push(job),
            Line::Job(Err((field, reason))) => {
                if lenient {
                    out.skipped += 1;
                } else {
                    out.error = Some((out.lines, field, reason));
                    break;
                }
            }
        }
    }
    out
}

/// Fills `block` (after what it holds) to at least `size` bytes and then to the end of a
/// line, or to the end of the input. Returns the bytes past the last newline, which belong
/// to the next block, and whether the input ended.
fn fill_block<R: BufRead>(
    input: &mut R,
    block: &mut Vec<u8>,
    size: usize,
) -> io::Result<(Vec<u8>, bool)> {
    loop {
        let avail = input.fill_buf()?;
        if avail.is_empty() {
            return Ok((Vec::new(), true));
        }
        let n = avail.len();
        block.extend_from_slice(avail);
        input.consume(n);
        if block.len() >= size {
            if let Some(p) = memchr::memrchr(b'\n', block) {
                let carry = block[p + 1..].to_vec();
                block.truncate(p + 1);
                return Ok((carry, false));
            }
        }
    }
}

/// The reader thread: blocks of whole lines to the workers in turn; a read error goes to
/// the worker whose block it interrupted, as that block's end.
fn read_blocks<R: BufRead>(
    mut input: R,
    to_workers: &[SyncSender<io::Result<Vec<u8>>>],
    size: usize,
) {
    let mut carry = Vec::new();
    for k in 0.. {
        let mut block = Vec::with_capacity(2 * size);
        block.append(&mut carry);
        let to = &to_workers[k % to_workers.len()];
        match fill_block(&mut input, &mut block, size) {
            Ok((rest, ended)) => {
                carry = rest;
                if !block.is_empty() && to.send(Ok(block)).is_err() {
                    return;
                }
                if ended {
                    return;
                }
            }
            Err(e) => {
                // The complete lines before the error are read first, as line by line.
                let whole = memchr::memrchr(b'\n', &block).map_or(0, |p| p + 1);
                block.truncate(whole);
                if !block.is_empty() {
                    if to.send(Ok(block)).is_err() {
                        return;
                    }
                    let next = &to_workers[(k + 1) % to_workers.len()];
                    let _ = next.send(Err(e));
                } else {
                    let _ = to.send(Err(e));
                }
                return;
            }
        }
    }
}

/// A worker: parses the blocks it is given, in order, until the reader or the caller is
/// gone.
fn work(
    blocks: &Receiver<io::Result<Vec<u8>>>,
    results: &SyncSender<io::Result<Parsed>>,
    lenient: bool,
) {
    while let Ok(block) = blocks.recv() {
        if results
            .send(block.map(|b| parse_block(&b, lenient)))
            .is_err()
        {
            return;
        }
    }
}

/// Number of parsing threads: the machine's processors, at most [`MAX_WORKERS`].
pub fn default_workers() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get().min(MAX_WORKERS))
}

/// Reads the whole of `input` into a [`Trace`] named `file`, parsing on `workers` threads
/// (at least one). Errors on an input without job lines, at the first malformed job line in
/// strict mode, and on a read error, as [`crate::reader::read_trace`] does.
pub fn read_all<R: BufRead + Send>(
    input: R,
    file: &str,
    lenient: bool,
    workers: usize,
) -> Result<Trace> {
    read_in_blocks(input, file, lenient, workers, BLOCK)
}

/// [`read_all`] with blocks of `size` bytes (at least 1).
fn read_in_blocks<R: BufRead + Send>(
    input: R,
    file: &str,
    lenient: bool,
    workers: usize,
    size: usize,
) -> Result<Trace> {
    let (workers, size) = (workers.max(1), size.max(1));
    std::thread::scope(|s| {
        let mut to_workers = Vec::with_capacity(workers);
        let mut from_workers = Vec::with_capacity(workers);
        let mut threads = Vec::with_capacity(workers + 1);
        for _ in 0..workers {
            let (block_tx, block_rx) = sync_channel(1);
            let (result_tx, result_rx) = sync_channel(1);
            threads.push(s.spawn(move || work(&block_rx, &result_tx, lenient)));
            to_workers.push(block_tx);
            from_workers.push(result_rx);
        }
        threads.push(s.spawn(move || read_blocks(input, &to_workers, size)));
        let trace = assemble(&from_workers, file);
        // Dropping the receivers stops the workers and then the reader, when the trace
        // ended early at an error.
        drop(from_workers);
        // A thread that panicked closed its channel: what looked like the end of the input
        // was not, so the trace is an error, never a shortened log.
        let mut panicked = false;
        for t in threads {
            // Every thread is joined, so a panic never reaches the caller.
            panicked |= t.join().is_err();
        }
        if panicked {
            return Err(WorkloadError::Io {
                file: file.to_string(),
                message: "a thread reading the file stopped unexpectedly".into(),
            });
        }
        trace
    })
}

/// Takes the workers' results in block order into a trace.
fn assemble(from_workers: &[Receiver<io::Result<Parsed>>], file: &str) -> Result<Trace> {
    let mut header = SwfHeader::default();
    let mut jobs: Option<JobTable> = None;
    let (mut lines, mut skipped) = (0u64, 0u64);
    for k in 0.. {
        let Ok(result) = from_workers[k % from_workers.len()].recv() else {
            break;
        };
        let parsed = result.map_err(|e| WorkloadError::Decompress {
            file: file.to_string(),
            line: lines + 1,
            message: e.to_string(),
        })?;
        for c in &parsed.comments {
            header.absorb(c);
        }
        if let Some((line, field, reason)) = parsed.error {
            // Jobs before the bad line were read; the error ends the reading as line by line.
            return Err(WorkloadError::Malformed {
                file: file.to_string(),
                line: lines + line,
                field,
                reason,
            });
        }
        lines += parsed.lines;
        skipped += parsed.skipped;
        if parsed.jobs.is_empty() {
            continue;
        }
        let table = jobs.get_or_insert_with(|| JobTable::with_capacity(reserve(&header)));
        for job in parsed.jobs {
            table.push(job)?;
        }
    }
    let Some(jobs) = jobs else {
        return Err(WorkloadError::NoJobs {
            file: file.to_string(),
        });
    };
    Ok(Trace {
        name: file.to_string(),
        synthetic: header.is_synthetic(),
        header,
        jobs,
        skipped_lines: skipped,
    })
}

/// At most this many jobs are reserved up front from a header's `MaxRecords`/`MaxJobs`.
const RESERVE_CAP: u64 = 1 << 20;

/// Jobs to reserve once the header is read (capped, so a lying header costs address space,
/// not memory).
fn reserve(h: &SwfHeader) -> usize {
    let hint = h.max_records.or(h.max_jobs).unwrap_or(0).min(RESERVE_CAP);
    usize::try_from(hint).unwrap_or(0).max(1)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::reader::{ReadOptions, SwfReader};
    use proptest::prelude::*;

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
        let ours = read_in_blocks(text, "t.swf", lenient, workers, size);
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
            let err = read_in_blocks(text.as_bytes(), "t.swf", false, workers, 100).unwrap_err();
            assert_eq!(
                err.to_string(),
                "t.swf: line 42: field 4: not a number: \"ten\""
            );
            let trace = read_in_blocks(text.as_bytes(), "t.swf", true, workers, 100).unwrap();
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
            let ours = read_in_blocks(input(), "t.swf", false, workers, size);
            let reference = line_by_line(input(), false);
            prop_assert_eq!(format!("{ours:?}"), format!("{reference:?}"));
        }
    }
}
