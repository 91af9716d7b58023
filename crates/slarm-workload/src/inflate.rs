//! Gzip inflation on a thread of its own, so that a reader parses one chunk of text while
//! the next is being inflated.
//!
//! Inflating is sequential and about as costly as parsing the text it yields (a PWA log of
//! 5.6 MB: about 5 ms each on one core), so handing it to a second thread takes it off the
//! reading's critical path. [`inflating`] gives a [`BufRead`] over the inflated bytes:
//! the same bytes, in the same order, and the decoder's error after the bytes that preceded
//! it, as reading the decoder directly would give. If the thread cannot be started, the
//! decoder is read in place.

use std::io::{self, BufRead, BufReader, Read};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::thread::JoinHandle;

/// Bytes per chunk handed from the inflating thread to the reader.
const CHUNK: usize = 1 << 17;

/// Chunks inflated ahead of the reader at most (bounds the memory to a few chunks however
/// far the reader lags).
const AHEAD: usize = 4;

/// One chunk of inflated bytes, or the decoder's error (after which nothing follows).
type Chunk = io::Result<Vec<u8>>;

/// A [`BufRead`] over what a decoder yields, inflated on a thread of its own.
struct InflatingInput {
    chunks: Receiver<Chunk>,
    /// Emptied chunks go back to the thread for reuse.
    spare: SyncSender<Vec<u8>>,
    current: Vec<u8>,
    pos: usize,
    /// Joined when the thread's channel closes: a panic there is an error, not an end.
    thread: Option<JoinHandle<()>>,
}

impl std::fmt::Debug for InflatingInput {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InflatingInput")
            .field("pos", &self.pos)
            .field("chunk", &self.current.len())
            .finish()
    }
}

/// Starts inflating `decoder` on a new thread; if no thread can be started, the decoder is
/// read in place through a buffer of one chunk (128 KiB).
///
/// ```
/// use std::io::{BufRead, Write};
/// use slarm_workload::inflate::inflating;
///
/// let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
/// gz.write_all(b"; MaxProcs: 4\n1 0 -1 10 2 -1 -1 2 20 -1 1 -1 -1 -1 -1 -1 -1 -1\n")?;
/// let bytes = gz.finish()?;
/// let input = inflating(flate2::read::MultiGzDecoder::new(std::io::Cursor::new(bytes)));
/// let lines: Vec<String> = input.lines().collect::<Result<_, _>>()?;
/// assert_eq!(lines[0], "; MaxProcs: 4");
/// assert_eq!(lines.len(), 2);
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn inflating<D: Read + Send + 'static>(decoder: D) -> Box<dyn BufRead + Send> {
    let (chunk_tx, chunks) = sync_channel(AHEAD);
    let (spare, spare_rx) = sync_channel(AHEAD + 2);
    // The decoder moves into the thread only if it starts; keep it reachable otherwise.
    let slot = std::sync::Arc::new(std::sync::Mutex::new(Some(decoder)));
    let theirs = std::sync::Arc::clone(&slot);
    let spawned = std::thread::Builder::new()
        .name("slarm-inflate".into())
        .spawn(move || {
            let taken = theirs.lock().ok().and_then(|mut d| d.take());
            if let Some(d) = taken {
                pump(d, &chunk_tx, &spare_rx);
            }
        });
    match spawned {
        Ok(thread) => Box::new(InflatingInput {
            chunks,
            spare,
            current: Vec::new(),
            pos: 0,
            thread: Some(thread),
        }),
        Err(_) => {
            let decoder = slot.lock().ok().and_then(|mut d| d.take());
            match decoder {
                Some(d) => Box::new(BufReader::with_capacity(CHUNK, d)),
                // Unreachable: a thread that never started never took the decoder.
                None => Box::new(io::empty()),
            }
        }
    }
}

/// The thread's loop: fills chunks from `decoder` and sends them until the end, an error
/// (sent after the bytes before it) or the reader hanging up. (Filling a chunk with
/// `take(CHUNK).read_to_end` instead of this loop read SDSC-SP2 at 1.05x the CPU.)
fn pump<D: Read>(mut decoder: D, out: &SyncSender<Chunk>, spare: &Receiver<Vec<u8>>) {
    loop {
        let mut buf = spare.try_recv().unwrap_or_default();
        buf.resize(CHUNK, 0);
        let mut filled = 0;
        let outcome = loop {
            if filled == CHUNK {
                break Ok(false);
            }
            match decoder.read(&mut buf[filled..]) {
                Ok(0) => break Ok(true),
                Ok(n) => filled += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => break Err(e),
            }
        };
        buf.truncate(filled);
        if filled > 0 && out.send(Ok(buf)).is_err() {
            return;
        }
        match outcome {
            Ok(false) => {}
            Ok(true) => return,
            Err(e) => {
                let _ = out.send(Err(e));
                return;
            }
        }
    }
}

impl Read for InflatingInput {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let avail = self.fill_buf()?;
        let n = avail.len().min(buf.len());
        buf[..n].copy_from_slice(&avail[..n]);
        self.consume(n);
        Ok(n)
    }
}

impl BufRead for InflatingInput {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        while self.pos == self.current.len() {
            match self.chunks.recv() {
                Ok(Ok(chunk)) => {
                    let used = std::mem::replace(&mut self.current, chunk);
                    self.pos = 0;
                    // The thread may have ended; then the chunk is simply dropped.
                    let _ = self.spare.try_send(used);
                }
                Ok(Err(e)) => return Err(e),
                Err(_) => {
                    // The thread ended: normally after the last chunk; a panic is an error.
                    if let Some(t) = self.thread.take() {
                        if t.join().is_err() {
                            return Err(io::Error::other("the inflating thread failed"));
                        }
                    }
                    return Ok(&[]);
                }
            }
        }
        Ok(&self.current[self.pos..])
    }

    fn consume(&mut self, amt: usize) {
        self.pos = (self.pos + amt).min(self.current.len());
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use std::io::Write;

    fn gz(text: &[u8]) -> Vec<u8> {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        e.write_all(text).unwrap();
        e.finish().unwrap()
    }

    /// A text of several chunks and a line crossing each chunk boundary.
    fn text(len: usize) -> Vec<u8> {
        (0..len)
            .map(|i| {
                if i % 97 == 96 {
                    b'\n'
                } else {
                    b'a' + (i % 26) as u8
                }
            })
            .collect()
    }

    #[test]
    fn the_same_bytes_as_the_decoder_read_in_place() {
        for len in [
            0,
            1,
            CHUNK - 1,
            CHUNK,
            CHUNK + 1,
            3 * CHUNK + 17,
            11 * CHUNK,
        ] {
            let t = text(len);
            let z = gz(&t);
            let mut got = Vec::new();
            inflating(flate2::read::MultiGzDecoder::new(std::io::Cursor::new(z)))
                .read_to_end(&mut got)
                .unwrap();
            assert_eq!(got, t, "length {len}");
        }
    }

    /// A truncated stream: every byte the decoder gave before its error, then the error.
    #[test]
    fn an_error_follows_the_bytes_before_it() {
        let t = text(5 * CHUNK);
        let z = gz(&t);
        let cut = &z[..z.len() * 3 / 5];
        let mut direct = flate2::read::MultiGzDecoder::new(std::io::Cursor::new(cut.to_vec()));
        let mut want = Vec::new();
        let want_err = direct.read_to_end(&mut want).unwrap_err();
        let mut input = inflating(flate2::read::MultiGzDecoder::new(std::io::Cursor::new(
            cut.to_vec(),
        )));
        let mut got = Vec::new();
        let err = input.read_to_end(&mut got).unwrap_err();
        assert_eq!(got, want);
        assert_eq!(err.kind(), want_err.kind());
    }

    /// A reader that stops early leaves no thread blocked: the thread ends on its next send.
    #[test]
    fn dropping_the_reader_early_ends_the_thread() {
        let z = gz(&text(20 * CHUNK));
        let mut input = inflating(flate2::read::MultiGzDecoder::new(std::io::Cursor::new(z)));
        let first = input.fill_buf().unwrap().len();
        assert!(first > 0);
        drop(input);
    }

    struct Panics;
    impl Read for Panics {
        #[allow(clippy::panic)]
        fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
            panic!("decoder bug");
        }
    }

    /// A panic in the thread is reported as an error, never as a clean end of the input.
    #[test]
    fn a_failed_thread_is_an_error_not_an_end() {
        let mut input = inflating(Panics);
        let mut got = Vec::new();
        let err = input.read_to_end(&mut got).unwrap_err();
        assert_eq!(err.to_string(), "the inflating thread failed");
        assert!(got.is_empty());
    }
}
