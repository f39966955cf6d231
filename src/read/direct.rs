//! The `sync` and `bytewise` modes: each worker thread opens, reads and
//! hashes whole inputs itself, so reading never overlaps hashing within a
//! file. With `-j N`, N workers take inputs from one queue.

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
        _ => {
            if buf.len() != plan.chunk {
                buf.resize(plan.chunk, 0);
            }
            hash_sync(src, &mut hasher, buf, stats)?
        }
    }
    stats.add_file();
    Ok(hasher.finalize())
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
