//! The `sync`, `bytewise` and `mmap` modes: each worker thread opens, reads
//! (or maps, see [`super::mmap`]) and hashes whole inputs itself, so reading
//! never overlaps hashing within a file. With `-j N`, N workers take inputs
//! from one queue.

use std::io::{self, BufReader, Read};
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::Scope;

use crossbeam_channel::{Sender, bounded};

use super::{Done, Job, Plan};
use crate::algo::{Algorithm, Digest, Hasher};
use crate::cli::Mode;
use crate::input::{Input, read_retry};
use crate::stats::Stats;

struct Work<T> {
    idx: usize,
    input: Input,
    algo: Algorithm,
    tag: T,
}

/// Start the feeder and the workers; they finish when the jobs run out or
/// the result receiver is dropped.
pub(super) fn spawn<'scope, 'env, T, I>(
    s: &'scope Scope<'scope, 'env>,
    plan: &'env Plan,
    stats: &'env Stats,
    cancel: &'env AtomicBool,
    jobs: I,
    res_tx: Sender<Done<T>>,
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
                let r = hash_input(plan, stats, w.algo, &w.input, &mut buf);
                if res_tx.send((w.idx, w.tag, Some(r))).is_err() {
                    return;
                }
            }
        });
    }
    s.spawn(move || {
        for (idx, job) in jobs.enumerate() {
            if cancel.load(Ordering::Relaxed) {
                return;
            }
            let sent = match job.input {
                None => res_tx.send((idx, job.tag, None)).is_ok(),
                Some(input) => work_tx
                    .send(Work {
                        idx,
                        input,
                        algo: job.algo,
                        tag: job.tag,
                    })
                    .is_ok(),
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
    mut src: impl Read,
    hasher: &mut Hasher,
    buf: &mut [u8],
    stats: &Stats,
) -> io::Result<()> {
    loop {
        let n = read_retry(&mut src, buf)?;
        stats.add_read_call();
        if n == 0 {
            return Ok(());
        }
        hasher.update(&buf[..n]);
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
