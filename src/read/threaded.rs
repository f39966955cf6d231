//! The `threaded` mode: the read-ahead pipeline.
//!
//! ```text
//!              free blocks (bounded pool of --pool blocks of --readahead bytes)
//!        ┌───────────────────────────────────────────────────────────────┐
//!        v                                                               │
//!  reader thread ──(batch of small inputs | stream of one big input)──> hasher 1..=N
//!  (inputs in order)                                       (--chunk bytes per update)
//! ```
//!
//! One reader thread reads every input in order, so a disk sees a single
//! sequential reader whatever `-j` is. It fills blocks taken from a pool
//! allocated once (`--pool` blocks of `--readahead` bytes) and hands them to
//! the hasher threads over bounded crossbeam channels; a hasher feeds each
//! block to the hash `--chunk` bytes per update and returns the block to the
//! pool. Memory in flight never exceeds `pool × readahead`, and nothing is
//! allocated per block.
//!
//! Two shapes of work, so that both one huge file and 100,000 tiny ones go
//! fast:
//! * small inputs are packed one after another into the same block, and the
//!   block goes to a hasher as one *batch* (one hand-over for many files:
//!   handing each tiny file over on its own costs a thread wake-up per file,
//!   and a whole --readahead block per 30-byte file would drain the pool);
//! * an input that does not fit in what is left of a block is *streamed*:
//!   its job goes to a hasher with a channel of its own, and its blocks
//!   follow on that channel as the reader fills them.
//!
//! An I/O error travels in-band, in place of the rest of the input, so the
//! hasher reports it and makes no digest from a partial read.
//!
//! Big regular files hashed with BLAKE3 skip the blocks: the reader maps
//! the file and hands the mapping over, and the hasher hashes it on every
//! core (measured faster; see `mmap::map_for_multithreaded`).

use std::io::{self, Read};
use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::Scope;
use std::time::Instant;

use crossbeam_channel::{Receiver, Sender, bounded};

use super::mmap::{Mapped, map_for_multithreaded};
use super::{Finished, Job, Plan};
use crate::algo::{Algorithm, Digest, Hasher};
use crate::input::{Source, read_retry};
use crate::stats::Stats;

/// The most inputs packed into one batch: bounds the latency of a line and
/// keeps both hashers busy when a tree is all tiny files.
const MAX_BATCH: usize = 64;

/// What travels down a streamed input's block channel.
enum Block {
    /// A pool buffer whose first `n` bytes are data.
    Data(Vec<u8>, usize),
    /// The input ended cleanly.
    End,
    /// The input failed; no digest must be made.
    Err(io::Error),
    /// The whole input, memory-mapped (big BLAKE3 files): the hasher hashes
    /// it on every core, and nothing follows.
    Mapped(Mapped),
}

/// One whole input inside a batch block.
struct Packed<T> {
    idx: usize,
    algo: Algorithm,
    tag: T,
    range: Range<usize>,
}

/// What a hasher is handed.
enum Work<T> {
    /// Whole small inputs packed in one pool block.
    Batch(Vec<u8>, Vec<Packed<T>>),
    /// One input whose blocks follow on its own channel.
    Stream {
        idx: usize,
        algo: Algorithm,
        tag: T,
        blocks: Receiver<Block>,
    },
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

/// Fill `buf` from `src` as far as it goes: the number of bytes read, and
/// whether the input ended (a read returned 0) before the buffer was full.
fn fill(src: &mut impl Read, buf: &mut [u8], stats: &Stats) -> io::Result<(usize, bool)> {
    let mut filled = 0;
    while filled < buf.len() {
        let n = read_retry(src, &mut buf[filled..])?;
        stats.add_read_call();
        if n == 0 {
            return Ok((filled, true));
        }
        filled += n;
    }
    Ok((filled, false))
}

/// A block channel: room for every block of the pool plus the final
/// message, so the reader never blocks on it.
fn block_channel(plan: &Plan) -> (Sender<Block>, Receiver<Block>) {
    bounded(plan.pool + 1)
}

/// Read the rest of `src` into pool blocks sent down `blocks`, then `End`,
/// or `Err` in place of the rest on a read error. Returns false when the run
/// is being torn down (no hasher left, or cancelled).
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
        let (n, at_end) = match fill(&mut src, &mut buf, stats) {
            Ok(r) => r,
            Err(e) => {
                pool.spare = Some(buf);
                return blocks.send(Block::Err(e)).is_ok();
            }
        };
        if n > 0 {
            if blocks.send(Block::Data(buf, n)).is_err() {
                return false;
            }
        } else {
            pool.spare = Some(buf);
        }
        if at_end {
            return blocks.send(Block::End).is_ok();
        }
    }
}

/// The reader thread's state: the pool, the batch being packed, and where
/// work and results go.
struct Reader<'a, T> {
    plan: &'a Plan,
    stats: &'a Stats,
    cancel: &'a AtomicBool,
    pool: Pool,
    work: Sender<Work<T>>,
    results: Sender<Finished<T>>,
    /// The block being packed, how far it is filled, and what is in it.
    batch: Option<(Vec<u8>, usize)>,
    packed: Vec<Packed<T>>,
}

impl<T> Reader<'_, T> {
    /// Hand the batch being packed to a hasher (or give its block back to
    /// the pool if it holds nothing). False when the hashers are gone.
    fn flush(&mut self) -> bool {
        let Some((buf, _)) = self.batch.take() else {
            return true;
        };
        if self.packed.is_empty() {
            self.pool.spare = Some(buf);
            return true;
        }
        let items = std::mem::replace(&mut self.packed, Vec::with_capacity(MAX_BATCH));
        self.work.send(Work::Batch(buf, items)).is_ok()
    }

    /// Report a failed input straight to the printer (it keeps the order).
    fn fail(&self, idx: usize, tag: T, e: io::Error) -> bool {
        self.results.send(vec![(idx, tag, Some(Err(e)))]).is_ok()
    }

    /// Read one input: packed into the current batch if it fits, else
    /// streamed. False when the run is being torn down.
    fn read(
        &mut self,
        idx: usize,
        algo: Algorithm,
        tag: T,
        src: io::Result<Source>,
        size_hint: Option<u64>,
    ) -> bool {
        let mut src = match src {
            Ok(src) => src,
            Err(e) => return self.fail(idx, tag, e),
        };
        if let Some(map) = map_for_multithreaded(algo, &src) {
            return self.flush()
                && self
                    .start_stream(idx, algo, tag)
                    .is_some_and(|btx| btx.send(Block::Mapped(map)).is_ok());
        }
        // An input known not to fit in what is left of the batch block starts
        // a block of its own (a size hint only steers: the reads decide).
        if let Some((_, start)) = &self.batch
            && size_hint.is_some_and(|h| h >= (self.plan.readahead - start) as u64)
            && !self.flush()
        {
            return false;
        }
        if self.batch.is_none() {
            let Some(buf) = self.pool.take(self.stats) else {
                return false;
            };
            self.batch = Some((buf, 0));
        }
        let Some((buf, start)) = self.batch.as_mut() else {
            return false;
        };
        let start = *start;
        match fill(&mut src, &mut buf[start..], self.stats) {
            Err(e) => self.fail(idx, tag, e),
            Ok((n, true)) => {
                // the whole input fits: pack it
                let end = start + n;
                self.batch = self.batch.take().map(|(b, _)| (b, end));
                self.packed.push(Packed {
                    idx,
                    algo,
                    tag,
                    range: start..end,
                });
                // a 1-block pool cannot pack: the next input would need a second block
                if end == self.plan.readahead
                    || self.packed.len() >= MAX_BATCH
                    || self.plan.pool < 2
                {
                    return self.flush();
                }
                true
            }
            Ok((n, false)) => self.stream(idx, algo, tag, src, start, n),
        }
    }

    /// Hand a hasher the job of a streamed input; its blocks are to be sent
    /// on the returned channel. `None` when the hashers are gone.
    fn start_stream(&mut self, idx: usize, algo: Algorithm, tag: T) -> Option<Sender<Block>> {
        let (btx, brx) = block_channel(self.plan);
        let job = Work::Stream {
            idx,
            algo,
            tag,
            blocks: brx,
        };
        self.work.send(job).ok().map(|()| btx)
    }

    /// The input did not fit in the batch block (its first `n` bytes are at
    /// `start`): send it as a stream, its first block being either the whole
    /// batch block (nothing else was packed) or a copy of those bytes.
    fn stream(
        &mut self,
        idx: usize,
        algo: Algorithm,
        tag: T,
        src: impl Read,
        start: usize,
        n: usize,
    ) -> bool {
        let first = if start == 0 {
            self.batch.take().map(|(b, _)| b)
        } else {
            let Some(mut fresh) = self.pool.take(self.stats) else {
                return false;
            };
            if let Some((b, _)) = self.batch.as_mut() {
                fresh[..n].copy_from_slice(&b[start..start + n]);
                self.batch = self.batch.take().map(|(b, _)| (b, start));
            }
            if !self.flush() {
                return false;
            }
            Some(fresh)
        };
        let Some(first) = first else {
            return false;
        };
        let Some(btx) = self.start_stream(idx, algo, tag) else {
            return false;
        };
        // the block channel is new and has room for the whole pool: no send blocks
        btx.send(Block::Data(first, n)).is_ok()
            && pump(src, &mut self.pool, &btx, self.stats, self.cancel)
    }
}

/// Feed `data` to `hasher`, `chunk` bytes per update.
#[inline]
fn hash_block(hasher: &mut Hasher, data: &[u8], chunk: usize, stats: &Stats) {
    for piece in data.chunks(chunk) {
        hasher.update(piece);
    }
    stats.add_bytes(data.len());
}

/// Hash a streamed input's blocks, returning each to the pool. `None` when
/// the reader went away mid-input (teardown).
fn consume(
    algo: Algorithm,
    blocks: &Receiver<Block>,
    chunk: usize,
    free: &Sender<Vec<u8>>,
    stats: &Stats,
) -> Option<io::Result<Digest>> {
    let mut hasher = Hasher::new(algo);
    let end = match feed(blocks, chunk, free, stats, |piece| hasher.update(piece))? {
        Ok(Fed::End) => Ok(()),
        Ok(Fed::Mapped(map)) => map.hash_into(&mut hasher, stats),
        Err(e) => Err(e),
    };
    Some(end.map(|()| {
        stats.add_file();
        hasher.finalize()
    }))
}

/// How a stream fed to the end: its last block, or a mapping of the whole
/// input (which the consumer hashes its own way).
enum Fed {
    End,
    Mapped(Mapped),
}

/// Hand the blocks of one input to `update`, `chunk` bytes at a time, and
/// return each block to the pool: the consumer side of a stream, shared by
/// hashing ([`consume`]) and draining ([`drain_reader`]).
fn feed(
    blocks: &Receiver<Block>,
    chunk: usize,
    free: &Sender<Vec<u8>>,
    stats: &Stats,
    mut update: impl FnMut(&[u8]),
) -> Option<io::Result<Fed>> {
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
            Block::End => return Some(Ok(Fed::End)),
            Block::Err(e) => return Some(Err(e)),
            Block::Mapped(map) => return Some(Ok(Fed::Mapped(map))),
        }
    }
}

/// A hasher thread: take work until there is none, send each outcome on.
fn hasher_loop<T>(
    work: Receiver<Work<T>>,
    plan: &Plan,
    free: Sender<Vec<u8>>,
    results: Sender<Finished<T>>,
    stats: &Stats,
) {
    for w in work {
        match w {
            Work::Batch(buf, items) => {
                let mut done = Vec::with_capacity(items.len());
                for it in items {
                    let mut hasher = Hasher::new(it.algo);
                    hash_block(&mut hasher, &buf[it.range], plan.chunk, stats);
                    stats.add_file();
                    done.push((it.idx, it.tag, Some(Ok(hasher.finalize()))));
                }
                let _ = free.send(buf);
                if results.send(done).is_err() {
                    return;
                }
            }
            Work::Stream {
                idx,
                algo,
                tag,
                blocks,
            } => {
                let Some(r) = consume(algo, &blocks, plan.chunk, &free, stats) else {
                    return;
                };
                if results.send(vec![(idx, tag, Some(r))]).is_err() {
                    return;
                }
            }
        }
    }
}

/// Start the reader and the `plan.jobs` hashers for a run.
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
    let (pool, free_tx) = make_pool(plan);
    let (work_tx, work_rx) = bounded::<Work<T>>(plan.jobs);
    for _ in 0..plan.jobs {
        let (work_rx, free_tx, res_tx) = (work_rx.clone(), free_tx.clone(), res_tx.clone());
        s.spawn(move || hasher_loop(work_rx, plan, free_tx, res_tx, stats));
    }
    drop(free_tx);
    s.spawn(move || {
        let mut reader = Reader {
            plan,
            stats,
            cancel,
            pool,
            work: work_tx,
            results: res_tx,
            batch: None,
            packed: Vec::with_capacity(MAX_BATCH),
        };
        for (idx, job) in jobs.enumerate() {
            if cancel.load(Ordering::Relaxed) {
                return;
            }
            let going_on = match job.input {
                None => reader.results.send(vec![(idx, job.tag, None)]).is_ok(),
                Some(input) => {
                    let src = input.open();
                    let hint = src.as_ref().ok().and_then(|s| s.size_hint());
                    reader.read(idx, job.algo, job.tag, src, hint)
                }
            };
            if !going_on {
                return;
            }
        }
        reader.flush();
    });
}

/// Hash any reader through the pipeline (one reader thread pumping blocks,
/// this thread hashing them), for callers and tests that hold a reader
/// rather than a named input.
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
        match feed(&brx, plan.chunk, &free_tx, stats, update) {
            Some(Ok(_)) => {
                stats.add_file();
                Ok(())
            }
            Some(Err(e)) => Err(e),
            None => Err(io::Error::other("reader thread stopped")),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algo::hash_bytes;
    use crate::cli::Mode;
    use crate::read::Outcome;

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

    /// Many small inputs packed into batches, big ones streamed, FIFOs (no
    /// size hint: the reader must spill a half-packed input into a block of
    /// its own) and a missing file in between: every digest right, in order.
    #[test]
    fn batches_streams_and_spills_keep_order() {
        use crate::input::Input;
        use crate::read::{Job, run};
        let dir = tempfile::tempdir().unwrap();
        let sizes = [
            0usize, 10, 100, 5000, 3, 70_000, 1, 2, 4095, 4096, 4097, 9, 300,
        ];
        let mut inputs = Vec::new();
        let mut want = Vec::new();
        for (i, &n) in sizes.iter().enumerate() {
            let data: Vec<u8> = (0..n).map(|j| (i * 7 + j * 13) as u8).collect();
            let path = dir.path().join(format!("f{i}"));
            std::fs::write(&path, &data).unwrap();
            inputs.push(Some(Input::Path(path)));
            want.push(Some(hash_bytes(Algorithm::Sha1, &data)));
            if i == 4 {
                inputs.push(Some(Input::Path(dir.path().join("missing"))));
                want.push(None);
            }
        }
        // two FIFOs of 5000 bytes each, after small files: they overflow the block
        let fifo_data: Vec<u8> = (0..5000).map(|j| (j * 5) as u8).collect();
        for k in 0..2 {
            let path = dir.path().join(format!("fifo{k}"));
            let c = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
            // SAFETY: a valid NUL-terminated path.
            assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
            inputs.insert(3 + k, Some(Input::Path(path)));
            want.insert(3 + k, Some(hash_bytes(Algorithm::Sha1, &fifo_data)));
        }
        for (pool, jobs) in [(1, 1), (2, 1), (2, 3), (5, 2)] {
            let writers: Vec<_> = (0..2)
                .map(|k| {
                    let path = dir.path().join(format!("fifo{k}"));
                    let data = fifo_data.clone();
                    std::thread::spawn(move || std::fs::write(path, data).unwrap())
                })
                .collect();
            let p = Plan {
                pool,
                jobs,
                ..plan(7, 4096, pool)
            };
            let jobs_iter = inputs.iter().enumerate().map(|(i, input)| Job {
                input: input.clone(),
                algo: Algorithm::Sha1,
                tag: i,
            });
            let mut got = Vec::new();
            run(
                &p,
                &Stats::default(),
                jobs_iter,
                &mut |i: usize, o: Outcome| {
                    got.push((i, o.and_then(|r| r.ok())));
                    Ok(())
                },
            )
            .unwrap();
            for w in writers {
                w.join().unwrap();
            }
            let order: Vec<usize> = got.iter().map(|(i, _)| *i).collect();
            assert_eq!(order, (0..inputs.len()).collect::<Vec<_>>(), "pool {pool}");
            let digests: Vec<_> = got.into_iter().map(|(_, d)| d).collect();
            assert_eq!(digests, want, "pool {pool} jobs {jobs}");
        }
    }
}
