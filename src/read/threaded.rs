//! The `threaded` mode: the read-ahead pipeline.
//!
//! ```text
//!              free blocks (bounded pool of --pool blocks of --readahead bytes)
//!        ┌──────────────────────────────────────────────────────────────┐
//!        v                                                              │
//!  reader thread ──(job + its block channel)──> hasher 1..=N ──(block)──┘
//!  (inputs in order)                            (--chunk bytes per update)
//! ```
//!
//! One reader thread reads every input in order, so a disk sees a single
//! sequential reader whatever `-j` is. For each input it sends a job to the
//! hashers, then fills blocks taken from the pool and sends them down that
//! job's channel; the hasher that took the job feeds each block to the hash
//! `--chunk` bytes per update and returns the block to the pool. Blocks are
//! allocated once, when the pool is made, and recycled: memory in flight
//! never exceeds `pool × readahead`, and nothing is allocated per block.
//! An I/O error travels in-band, in place of the rest of the input, so the
//! hasher reports it and makes no digest.

use std::io::{self, Read};
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::Scope;
use std::time::Instant;

use crossbeam_channel::{Receiver, Sender, bounded};

use super::{Done, Job, Plan};
use crate::algo::{Algorithm, Digest, Hasher};
use crate::input::read_retry;
use crate::stats::Stats;

/// What travels down one input's block channel.
enum Block {
    /// A pool buffer whose first `n` bytes are data.
    Data(Vec<u8>, usize),
    /// The input ended cleanly.
    End,
    /// The input failed (open or read); no digest must be made.
    Err(io::Error),
}

/// One input handed to a hasher: its place, algorithm, tag and blocks.
struct Work<T> {
    idx: usize,
    algo: Algorithm,
    tag: T,
    blocks: Receiver<Block>,
}

/// The reader's side of the pool: it takes free blocks from here, and keeps
/// one spare block so that it never has to give a block back itself.
struct Pool {
    free: Receiver<Vec<u8>>,
    spare: Option<Vec<u8>>,
}

/// Make a pool of `plan.pool` blocks: the reader's side, and the sender the
/// hashers return blocks with.
fn make_pool(plan: &Plan) -> (Pool, Sender<Vec<u8>>) {
    let (free_tx, free_rx) = bounded(plan.pool);
    for _ in 1..plan.pool {
        // cannot fail: the channel has room for every block and its receiver is alive
        let _ = free_tx.send(vec![0u8; plan.readahead]);
    }
    let pool = Pool {
        free: free_rx,
        spare: Some(vec![0u8; plan.readahead]),
    };
    (pool, free_tx)
}

impl Pool {
    /// A free block, waiting for one if needed; `None` when every hasher is gone.
    fn take(&mut self, stats: &Stats) -> Option<Vec<u8>> {
        if let Some(b) = self.spare.take() {
            return Some(b);
        }
        let t = Instant::now();
        let b = self.free.recv().ok();
        stats.add_reader_wait(t.elapsed());
        b
    }
}

/// Read `src` to its end into pool blocks sent down `blocks`, then `End`, or
/// `Err` in place of the rest on a read error. Returns false when the run is
/// being torn down (no hasher left, or cancelled).
fn pump(
    mut src: impl Read,
    pool: &mut Pool,
    blocks: &Sender<Block>,
    stats: &Stats,
    cancel: &AtomicBool,
) -> bool {
    loop {
        if cancel.load(Ordering::Relaxed) {
            return false;
        }
        let Some(mut buf) = pool.take(stats) else {
            return false;
        };
        let mut filled = 0;
        let mut failure = None;
        while filled < buf.len() {
            match read_retry(&mut src, &mut buf[filled..]) {
                Ok(0) => break,
                Ok(n) => filled += n,
                Err(e) => {
                    failure = Some(e);
                    break;
                }
            }
            stats.add_read_call();
        }
        if let Some(e) = failure {
            pool.spare = Some(buf);
            return blocks.send(Block::Err(e)).is_ok();
        }
        let at_end = filled < buf.len();
        if filled > 0 {
            if blocks.send(Block::Data(buf, filled)).is_err() {
                return false;
            }
        } else {
            pool.spare = Some(buf);
        }
        if at_end {
            stats.add_read_call(); // the read that returned 0
            return blocks.send(Block::End).is_ok();
        }
    }
}

/// Hash the blocks of one input, `chunk` bytes per update, returning each
/// block to the pool. `None` when the reader went away mid-input (teardown).
fn consume(
    algo: Algorithm,
    blocks: &Receiver<Block>,
    chunk: usize,
    free: &Sender<Vec<u8>>,
    stats: &Stats,
) -> Option<io::Result<Digest>> {
    let mut hasher = Hasher::new(algo);
    let end = feed(blocks, chunk, free, stats, |piece| hasher.update(piece))?;
    Some(end.map(|()| hasher.finalize()))
}

/// Hand the blocks of one input to `update`, `chunk` bytes at a time, and
/// return each block to the pool: the consumer side of the pipeline, shared
/// by hashing ([`consume`]) and draining ([`drain_reader`]).
fn feed(
    blocks: &Receiver<Block>,
    chunk: usize,
    free: &Sender<Vec<u8>>,
    stats: &Stats,
    mut update: impl FnMut(&[u8]),
) -> Option<io::Result<()>> {
    loop {
        let t = Instant::now();
        let msg = blocks.recv().ok()?;
        stats.add_hasher_wait(t.elapsed());
        match msg {
            Block::Data(buf, n) => {
                for piece in buf[..n].chunks(chunk) {
                    update(piece);
                }
                stats.add_bytes(n);
                // never blocks: the free channel has room for the whole pool
                let _ = free.send(buf);
            }
            Block::End => {
                stats.add_file();
                return Some(Ok(()));
            }
            Block::Err(e) => return Some(Err(e)),
        }
    }
}

/// A block channel: room for every block of the pool plus the final
/// message, so the reader never blocks on it.
fn block_channel(plan: &Plan) -> (Sender<Block>, Receiver<Block>) {
    bounded(plan.pool + 1)
}

/// Start the reader and the `plan.jobs` hashers for a run.
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
    let (mut pool, free_tx) = make_pool(plan);
    let (work_tx, work_rx) = bounded::<Work<T>>(plan.jobs);
    for _ in 0..plan.jobs {
        let work_rx = work_rx.clone();
        let free_tx = free_tx.clone();
        let res_tx = res_tx.clone();
        s.spawn(move || {
            for w in work_rx {
                let Some(r) = consume(w.algo, &w.blocks, plan.chunk, &free_tx, stats) else {
                    return;
                };
                if res_tx.send((w.idx, w.tag, Some(r))).is_err() {
                    return;
                }
            }
        });
    }
    drop(free_tx);
    s.spawn(move || {
        for (idx, job) in jobs.enumerate() {
            let Some(input) = job.input else {
                if res_tx.send((idx, job.tag, None)).is_err() {
                    return;
                }
                continue;
            };
            let (btx, brx) = block_channel(plan);
            let work = Work {
                idx,
                algo: job.algo,
                tag: job.tag,
                blocks: brx,
            };
            if work_tx.send(work).is_err() {
                return;
            }
            let going_on = match input.open() {
                Ok(src) => pump(src, &mut pool, &btx, stats, cancel),
                Err(e) => btx.send(Block::Err(e)).is_ok(),
            };
            if !going_on {
                return;
            }
        }
    });
}

/// Hash any reader through the pipeline (one reader thread, one hasher).
/// This is the same `pump`/`consume` pair a run uses, for callers and tests
/// that hold a reader rather than a named input.
pub fn hash_reader<R: Read + Send>(
    plan: &Plan,
    stats: &Stats,
    algo: Algorithm,
    src: R,
) -> io::Result<Digest> {
    let mut hasher = Hasher::new(algo);
    pipe_reader(plan, stats, src, |piece| hasher.update(piece))?;
    Ok(hasher.finalize())
}

/// Read `src` through the pipeline and throw the bytes away, `plan.chunk`
/// at a time: the no-op consumer of seed 002's "NoOp" series, which shows
/// what the pipeline costs (or saves) when hashing costs nothing. Returns
/// the number of bytes read.
pub fn drain_reader<R: Read + Send>(plan: &Plan, stats: &Stats, src: R) -> io::Result<u64> {
    let mut n = 0u64;
    pipe_reader(plan, stats, src, |piece| {
        // black_box: keep the per-chunk loop, which is what is measured
        n += std::hint::black_box(piece).len() as u64;
    })?;
    Ok(n)
}

/// One reader thread pumps `src` into the pool while this thread feeds the
/// blocks to `update`.
fn pipe_reader<R: Read + Send>(
    plan: &Plan,
    stats: &Stats,
    src: R,
    update: impl FnMut(&[u8]),
) -> io::Result<()> {
    let cancel = AtomicBool::new(false);
    let (mut pool, free_tx) = make_pool(plan);
    let (btx, brx) = block_channel(plan);
    std::thread::scope(|s| {
        s.spawn(|| {
            pump(src, &mut pool, &btx, stats, &cancel);
            drop(btx);
        });
        feed(&brx, plan.chunk, &free_tx, stats, update)
            .unwrap_or_else(|| Err(io::Error::other("reader thread stopped")))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algo::hash_bytes;
    use crate::cli::Mode;

    /// A reader that returns at most `step` bytes per call, an `Interrupted`
    /// error every third call, and optionally fails after `fail_at` bytes.
    struct Flaky {
        data: Vec<u8>,
        pos: usize,
        step: usize,
        calls: usize,
        fail_at: Option<usize>,
    }

    impl Read for Flaky {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            self.calls += 1;
            if self.calls.is_multiple_of(3) {
                return Err(io::Error::from(io::ErrorKind::Interrupted));
            }
            if let Some(f) = self.fail_at
                && self.pos >= f
            {
                return Err(io::Error::from_raw_os_error(libc::EIO));
            }
            let n = buf.len().min(self.step).min(self.data.len() - self.pos);
            buf[..n].copy_from_slice(&self.data[self.pos..self.pos + n]);
            self.pos += n;
            Ok(n)
        }
    }

    fn flaky(len: usize, step: usize, fail_at: Option<usize>) -> Flaky {
        Flaky {
            data: (0..len).map(|i| (i * 31 + 7) as u8).collect(),
            pos: 0,
            step,
            calls: 0,
            fail_at,
        }
    }

    fn plan(chunk: usize, readahead: usize, pool: usize) -> Plan {
        Plan {
            mode: Mode::Threaded,
            chunk,
            readahead,
            pool,
            jobs: 1,
        }
    }

    #[test]
    fn short_and_interrupted_reads_hash_correctly() {
        for (len, step, p) in [
            (0, 1, plan(1, 1, 1)),
            (1000, 7, plan(16, 64, 1)),
            (100_000, 4097, plan(7, 1000, 2)),
            (65_537, 65_536, plan(65_536, 4096, 3)),
        ] {
            let src = flaky(len, step, None);
            let want = hash_bytes(Algorithm::Md5, &src.data);
            let stats = Stats::default();
            let got = hash_reader(&p, &stats, Algorithm::Md5, src).unwrap();
            assert_eq!(got, want, "len {len} step {step} {p:?}");
            assert_eq!(stats.bytes(), len as u64);
        }
    }

    #[test]
    fn error_after_n_bytes_gives_no_digest() {
        let src = flaky(10_000, 100, Some(5_000));
        let r = hash_reader(&plan(64, 256, 2), &Stats::default(), Algorithm::Sha256, src);
        let e = r.expect_err("a read error must not give a digest");
        assert_eq!(e.raw_os_error(), Some(libc::EIO));
    }

    #[test]
    fn drain_reads_everything_and_reports_errors() {
        let stats = Stats::default();
        let n = drain_reader(&plan(16, 1000, 2), &stats, flaky(100_000, 4097, None)).unwrap();
        assert_eq!(n, 100_000);
        assert_eq!(stats.bytes(), 100_000);
        let src = flaky(10_000, 100, Some(5_000));
        let e = drain_reader(&plan(16, 1000, 2), &Stats::default(), src).unwrap_err();
        assert_eq!(e.raw_os_error(), Some(libc::EIO));
    }

    #[test]
    fn error_on_first_read_gives_no_digest() {
        let src = flaky(10, 1, Some(0));
        let r = hash_reader(&plan(1, 1, 1), &Stats::default(), Algorithm::Md5, src);
        assert!(r.is_err());
    }

    /// The pool's blocks go round: a 1-block pool moves a 1 MiB input through
    /// 64-byte blocks, and the free channel holds every block at the end.
    #[test]
    fn blocks_are_recycled_and_bounded() {
        let p = plan(16, 64, 3);
        let (mut pool, free_tx) = make_pool(&p);
        assert_eq!(pool.free.len() + usize::from(pool.spare.is_some()), 3);
        let (btx, brx) = block_channel(&p);
        let stats = Stats::default();
        let src = flaky(1 << 20, 1000, None);
        let want = hash_bytes(Algorithm::Md5, &src.data);
        let cancel = AtomicBool::new(false);
        let got = std::thread::scope(|s| {
            s.spawn(|| {
                assert!(pump(src, &mut pool, &btx, &stats, &cancel));
                // at most pool blocks may ever be queued
                assert!(btx.len() <= 3);
            });
            consume(Algorithm::Md5, &brx, p.chunk, &free_tx, &stats)
        });
        assert_eq!(got.unwrap().unwrap(), want);
        // every block is back: 3 in the pool, none lost, none allocated anew
        assert_eq!(pool.free.len() + usize::from(pool.spare.is_some()), 3);
        let mut ptrs: Vec<*const u8> = pool.free.try_iter().map(|b| b.as_ptr()).collect();
        ptrs.extend(pool.spare.iter().map(|b| b.as_ptr()));
        ptrs.sort();
        ptrs.dedup();
        assert_eq!(ptrs.len(), 3);
    }
}
