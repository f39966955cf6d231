//! The `sync`, `bytewise` and `mmap` modes: each worker thread opens, reads
//! (or maps, see [`super::mmap`]) and hashes whole inputs itself, so reading
//! never overlaps hashing within a file. With `-j N`, N workers take inputs
//! from one queue.

use std::io::{self, BufReader, Read};
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::Scope;

use crossbeam_channel::{Receiver, Sender, bounded};

use super::{Finished, Job, Plan};
use crate::algo::{Algorithm, Digest, Hasher};
use crate::cli::Mode;
use crate::input::{Input, read_retry};
use crate::stats::Stats;

struct Work<T> {
    idx: usize,
    input: Input,
    algo: Algorithm,
    tag: T,
    /// Standard input (or a FIFO) may be named more than once (`- -`): GNU
    /// reads it to its end for the first and finds it empty for the next,
    /// but two workers reading it at once would split its bytes between
    /// them. So such a stream waits for the one before it (`after` returns
    /// when that one's `stream_done` sender is dropped); that one was queued
    /// first, so it is already in a worker's hands and this cannot deadlock.
    after: Option<Receiver<()>>,
    stream_done: Option<Sender<()>>,
}

/// Start the feeder and the workers; they finish when the jobs run out or
/// the result receiver is dropped.
pub(super) fn spawn<'scope, 'env, T, I>(
    s: &'scope Scope<'scope, 'env>,
    plan: &'env Plan,
    stats: &'env Stats,
    cancel: &'env AtomicBool,
    jobs: I,
    res_tx: Sender<Finished<T>>,
) where
    T: Send + 'scope,
    I: Iterator<Item = Job<T>> + Send + 'scope,
{
    let (work_tx, work_rx) = bounded::<Work<T>>(plan.jobs);
    for _ in 0..plan.jobs {
        let work_rx = work_rx.clone();
        let res_tx = res_tx.clone();
        s.spawn(move || {
            let mut buf = Vec::new();
            for w in work_rx {
                if cancel.load(Ordering::Relaxed) {
                    return;
                }
                if let Some(previous) = &w.after {
                    // nothing is ever sent: this returns once it is dropped
                    let _ = previous.recv();
                }
                let r = hash_input(plan, stats, w.algo, &w.input, &mut buf);
                drop(w.stream_done);
                if res_tx.send(vec![(w.idx, w.tag, Some(r))]).is_err() {
                    return;
                }
            }
        });
    }
    s.spawn(move || {
        let mut last_stream: Option<Receiver<()>> = None;
        for (idx, job) in jobs.enumerate() {
            if cancel.load(Ordering::Relaxed) {
                return;
            }
            let sent = match job.input {
                None => res_tx.send(vec![(idx, job.tag, None)]).is_ok(),
                Some(input) => {
                    let (after, stream_done) = if input.is_shared_stream() {
                        let (tx, rx) = bounded(0);
                        (last_stream.replace(rx), Some(tx))
                    } else {
                        (None, None)
                    };
                    work_tx
                        .send(Work {
                            idx,
                            input,
                            algo: job.algo,
                            tag: job.tag,
                            after,
                            stream_done,
                        })
                        .is_ok()
                }
            };
            if !sent {
                return;
            }
        }
    });
}

fn hash_input(
    plan: &Plan,
    stats: &Stats,
    algo: Algorithm,
    input: &Input,
    buf: &mut Vec<u8>,
) -> io::Result<Digest> {
    let src = input.open()?;
    let mut hasher = Hasher::new(algo);
    match plan.mode {
        Mode::Bytewise => hash_bytewise(src, &mut hasher, stats)?,
        Mode::Mmap => {
            super::mmap::hash_source(src, &mut hasher, chunk_buf(buf, plan.chunk), stats)?
        }
        Mode::Sync | Mode::Threaded => {
            hash_sync(src, &mut hasher, chunk_buf(buf, plan.chunk), stats)?
        }
    }
    stats.add_file();
    Ok(hasher.finalize())
}

/// The worker's reused read buffer, sized to `--chunk` on first use.
fn chunk_buf(buf: &mut Vec<u8>, chunk: usize) -> &mut [u8] {
    if buf.len() != chunk {
        buf.resize(chunk, 0);
    }
    buf
}

/// `sync`: one read call of `buf.len()` bytes, then one hash update of what
/// it returned, until end of file.
pub fn hash_sync(
    src: impl Read,
    hasher: &mut Hasher,
    buf: &mut [u8],
    stats: &Stats,
) -> io::Result<()> {
    read_loop(src, buf, stats, |piece| hasher.update(piece))
}

/// `sync` with a no-op consumer: read `buf.len()` bytes per call and throw
/// them away (seed 002's "NoOp" series, the counterpart of
/// [`super::threaded::drain_reader`]). Returns the number of bytes read.
pub fn drain_sync(src: impl Read, buf: &mut [u8], stats: &Stats) -> io::Result<u64> {
    let mut n = 0u64;
    read_loop(src, buf, stats, |piece| {
        n += std::hint::black_box(piece).len() as u64;
    })?;
    Ok(n)
}

/// Read into `buf` and hand what each call returned to `update`, until end
/// of file.
fn read_loop(
    mut src: impl Read,
    buf: &mut [u8],
    stats: &Stats,
    mut update: impl FnMut(&[u8]),
) -> io::Result<()> {
    loop {
        let n = read_retry(&mut src, buf)?;
        stats.add_read_call();
        if n == 0 {
            return Ok(());
        }
        update(&buf[..n]);
        stats.add_bytes(n);
    }
}

/// `bytewise`: the naive way, `BufReader::new(src).bytes()`, one update per
/// byte. Deliberately slow: it is the baseline the other modes are measured
/// against, and the reference implementation in tests.
pub fn hash_bytewise(src: impl Read, hasher: &mut Hasher, stats: &Stats) -> io::Result<()> {
    let counted = CountReads { inner: src, stats };
    let mut n = 0usize;
    for byte in BufReader::new(counted).bytes() {
        hasher.update(&[byte?]);
        n += 1;
        // count in batches: an atomic add per byte would distort the baseline
        if n == 1 << 16 {
            stats.add_bytes(n);
            n = 0;
        }
    }
    stats.add_bytes(n);
    Ok(())
}

/// A reader that counts its read calls into `Stats`.
struct CountReads<'a, R> {
    inner: R,
    stats: &'a Stats,
}

impl<R: Read> Read for CountReads<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.stats.add_read_call();
        self.inner.read(buf)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algo::hash_bytes;

    /// `sync` reads exactly `buf.len()` bytes per call; draining reads the
    /// same calls as hashing, and both see every byte.
    #[test]
    fn sync_hashes_and_drains_chunk_by_chunk() {
        let data: Vec<u8> = (0..1000u32).map(|i| (i * 7) as u8).collect();
        let stats = Stats::default();
        assert_eq!(drain_sync(&data[..], &mut [0u8; 16], &stats).unwrap(), 1000);
        // 62 full reads, one of 8 bytes, one that returns 0
        assert_eq!((stats.read_calls(), stats.bytes()), (64, 1000));
        let stats = Stats::default();
        let mut hasher = Hasher::new(Algorithm::Md5);
        hash_sync(&data[..], &mut hasher, &mut [0u8; 16], &stats).unwrap();
        assert_eq!(hasher.finalize(), hash_bytes(Algorithm::Md5, &data));
        assert_eq!((stats.read_calls(), stats.bytes()), (64, 1000));
    }
}
