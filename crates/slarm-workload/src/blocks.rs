//! Reading a whole text input with its lines parsed on several threads, with the result of
//! reading it line by line: the SWF reader's job lines here, and the sacct reader's lines
//! after its header ([`crate::sacct`]).
//!
//! A reader thread cuts the input into blocks of whole lines (about [`BLOCK`] bytes, cut
//! after a newline), hands block `k` to worker `k mod n`, and the caller's thread takes the
//! workers' results back in block order ([`parse_in_blocks`]). For SWF ([`read_in_blocks`])
//! it absorbs each block's header comments, appends its jobs to the table, and stops at the
//! first malformed line in file order (strict mode) or counts such lines (lenient mode). So
//! the trace, the error and its line number are those of `SwfReader` (one line at a time)
//! whatever the number of workers. Each worker holds at most one block waiting and one
//! result unread, so the memory in flight is a few blocks however long the input is.

use std::io::{self, BufRead};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};

use crate::error::{Result, WorkloadError};
use crate::header::SwfHeader;
use crate::job::Job;
use crate::swf_line::{classify, Line};
use crate::table::JobTable;

/// Bytes of a block before it is cut at its last newline.
pub(crate) const BLOCK: usize = 1 << 18;

/// Most parsing threads used.
const MAX_WORKERS: usize = 4;

/// What a worker made of one block.
#[derive(Debug, Default)]
struct Parsed {
    jobs: Vec<Job>,
    /// Header comments (the text after `;`), in order.
    comments: Vec<String>,
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
    let mut line_no = 0;
    while !rest.is_empty() {
        let (line, next) = match memchr::memchr(b'\n', rest) {
            Some(p) => (&rest[..p], &rest[p + 1..]),
            None => (rest, &rest[rest.len()..]),
        };
        rest = next;
        line_no += 1;
        match classify(line) {
            Line::Skip => {}
            Line::Comment(text) => out.comments.push(text),
            Line::Job(Ok(job)) => out.jobs.push(job),
            Line::Job(Err((field, reason))) => {
                if lenient {
                    out.skipped += 1;
                } else {
                    out.error = Some((line_no, field, reason));
                    break;
                }
            }
        }
    }
    out
}

/// Fills `block` (after what it holds) to at least `size` bytes and then to the end of a
/// line, or to the end of the input. A line that grows past `max_line + 1` bytes is cut there
/// and the rest of it (through its newline) dropped, so that a line without an end cannot
/// fill the memory; the parser sees a line longer than `max_line` and refuses it. Returns the
/// bytes past the last newline, which belong to the next block, and whether the input ended.
fn fill_block<R: BufRead>(
    input: &mut R,
    block: &mut Vec<u8>,
    size: usize,
    max_line: usize,
) -> io::Result<(Vec<u8>, bool)> {
    let mut line_start = memchr::memrchr(b'\n', block).map_or(0, |p| p + 1);
    loop {
        let avail = input.fill_buf()?;
        if avail.is_empty() {
            return Ok((Vec::new(), true));
        }
        let n = avail.len();
        let from = block.len();
        block.extend_from_slice(avail);
        input.consume(n);
        if let Some(p) = memchr::memrchr(b'\n', &block[from..]) {
            line_start = from + p + 1;
        }
        let cut = line_start.saturating_add(max_line).saturating_add(1);
        if block.len() > cut {
            block.truncate(cut);
            let ended = drop_rest_of_line(input)?;
            block.push(b'\n');
            line_start = block.len();
            if ended {
                return Ok((Vec::new(), true));
            }
        }
        if block.len() >= size {
            if let Some(p) = memchr::memrchr(b'\n', block) {
                let carry = block[p + 1..].to_vec();
                block.truncate(p + 1);
                return Ok((carry, false));
            }
        }
    }
}

/// Reads and drops the input through the next newline; returns whether the input ended
/// before one.
fn drop_rest_of_line<R: BufRead>(input: &mut R) -> io::Result<bool> {
    loop {
        let avail = input.fill_buf()?;
        if avail.is_empty() {
            return Ok(true);
        }
        if let Some(p) = memchr::memchr(b'\n', avail) {
            input.consume(p + 1);
            return Ok(false);
        }
        let n = avail.len();
        input.consume(n);
    }
}

/// The reader thread: blocks of whole lines to the workers in turn; a read error goes to
/// the worker whose block it interrupted, as that block's end.
fn read_blocks<R: BufRead>(
    mut input: R,
    to_workers: &[SyncSender<io::Result<Vec<u8>>>],
    size: usize,
    max_line: usize,
) {
    let mut carry = Vec::new();
    for k in 0.. {
        let mut block = Vec::with_capacity(2 * size.min(BLOCK));
        block.append(&mut carry);
        let to = &to_workers[k % to_workers.len()];
        match fill_block(&mut input, &mut block, size, max_line) {
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
fn work<P>(
    blocks: &Receiver<io::Result<Vec<u8>>>,
    results: &SyncSender<io::Result<(P, u64)>>,
    parse: &(impl Fn(&[u8]) -> P + ?Sized),
) {
    while let Ok(block) = blocks.recv() {
        if results
            .send(block.map(|b| (parse(&b), line_count(&b))))
            .is_err()
        {
            return;
        }
    }
}

/// Lines in `block` (the last one may lack its newline).
fn line_count(block: &[u8]) -> u64 {
    let ends = memchr::memchr_iter(b'\n', block).count();
    (ends + usize::from(!block.is_empty() && !block.ends_with(b"\n"))) as u64
}

/// Cuts `input`, the rest of a file after its first `lines_before` lines, into blocks of
/// whole lines (about `size` bytes, at least 1; a line longer than `max_line` bytes cut as
/// [`fill_block`] says), parses each with `parse` on `workers` threads (at least one), and
/// hands the results to `take` in block order, on the caller's thread, with the number of
/// the file's lines before the block, until the input ends or `take` answers `false` or an
/// error (which is returned). A read error ends the reading, after the whole lines before
/// it, as an error naming the line it interrupted. Each worker holds at most one block
/// waiting and one result unread, so the memory in flight is a few blocks however long the
/// input is.
pub(crate) fn parse_in_blocks<R, P>(
    input: R,
    file: &str,
    lines_before: u64,
    (workers, size): (usize, usize),
    max_line: usize,
    parse: &(dyn Fn(&[u8]) -> P + Sync),
    take: &mut dyn FnMut(P, u64) -> Result<bool>,
) -> Result<()>
where
    R: BufRead + Send,
    P: Send,
{
    let (workers, size) = (workers.max(1), size.max(1));
    std::thread::scope(|s| {
        let mut to_workers = Vec::with_capacity(workers);
        let mut from_workers = Vec::with_capacity(workers);
        let mut threads = Vec::with_capacity(workers + 1);
        for _ in 0..workers {
            let (block_tx, block_rx) = sync_channel(1);
            let (result_tx, result_rx) = sync_channel(1);
            threads.push(s.spawn(move || work(&block_rx, &result_tx, parse)));
            to_workers.push(block_tx);
            from_workers.push(result_rx);
        }
        threads.push(s.spawn(move || read_blocks(input, &to_workers, size, max_line)));
        let outcome = (|| {
            let mut lines = lines_before;
            for k in 0.. {
                let Ok(result) = from_workers[k % workers].recv() else {
                    break;
                };
                let (parsed, n) = result.map_err(|e| WorkloadError::Decompress {
                    file: file.to_string(),
                    line: lines + 1,
                    message: e.to_string(),
                })?;
                if !take(parsed, lines)? {
                    break;
                }
                lines += n;
            }
            Ok(())
        })();
        // Dropping the receivers stops the workers and then the reader, when `take` ended
        // early.
        drop(from_workers);
        // A thread that panicked closed its channel: what looked like the end of the input
        // was not, so the reading is an error, never a shortened log.
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
        outcome
    })
}

/// Number of parsing threads: the machine's processors, at most [`MAX_WORKERS`].
pub(crate) fn default_workers() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get().min(MAX_WORKERS))
}

/// What a whole input holds: its header, its jobs in file order and the malformed lines
/// skipped.
#[derive(Debug)]
pub(crate) struct Parts {
    pub header: SwfHeader,
    pub jobs: JobTable,
    pub skipped: u64,
}

/// Reads the whole of `input` (named `file` in errors) in blocks of `size` bytes (at least 1)
/// parsed on `workers` threads (at least one). Errors on an input without job lines, at the
/// first malformed job line in strict mode, and on a read error, as line-by-line reading does.
/// `on_block` sees the header and the jobs read so far after each block of job lines.
pub(crate) fn read_in_blocks<R: BufRead + Send>(
    input: R,
    file: &str,
    lenient: bool,
    workers_and_size: (usize, usize),
    on_block: &mut dyn FnMut(&SwfHeader, &JobTable),
) -> Result<Parts> {
    let mut header = SwfHeader::default();
    let mut jobs: Option<JobTable> = None;
    let mut skipped = 0u64;
    let mut take = |parsed: Parsed, lines: u64| -> Result<bool> {
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
        skipped += parsed.skipped;
        if !parsed.jobs.is_empty() {
            let table = jobs.get_or_insert_with(|| JobTable::with_capacity(reserve(&header)));
            table.try_extend(parsed.jobs)?;
            on_block(&header, table);
        }
        Ok(true)
    };
    parse_in_blocks(
        input,
        file,
        0,
        workers_and_size,
        usize::MAX,
        &|block| parse_block(block, lenient),
        &mut take,
    )?;
    let Some(jobs) = jobs else {
        return Err(WorkloadError::NoJobs {
            file: file.to_string(),
        });
    };
    Ok(Parts {
        header,
        jobs,
        skipped,
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
