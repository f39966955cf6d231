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
//! One reader thread ([`reader`]) reads every input in order, so a disk
//! sees a single sequential reader whatever `-j` is. It fills blocks taken
//! from a bounded pool and hands them to the hasher threads ([`hasher`]); a
//! hasher feeds each block to the hash `--chunk` bytes per update and gives
//! the block back. Memory in flight never exceeds `pool × readahead`, and
//! nothing is allocated per block.
//!
//! Three shapes of work, so that one huge file and 100,000 tiny ones both go
//! fast:
//! * small inputs are packed one after another into one block, handed over
//!   as one *batch* (a hand-over per file would cost a thread wake-up per
//!   file, and a whole block per 30-byte file would drain the pool);
//! * an input that does not fit in what is left of a block is *streamed*:
//!   its job goes to a hasher with a channel of its own, and its blocks
//!   follow on that channel as the reader fills them;
//! * a big BLAKE3 file, or a big file with several algorithms, is *mapped*
//!   and hashed on several threads (its route says so and how many, see
//!   [`crate::read::route`]).
//!
//! An I/O error travels in-band, in place of the rest of the input, so the
//! hasher reports it and makes no digest from a partial read. Hashers are
//! started as work waits for them, up to `-j`. While every block is out,
//! the reader hashes a queued batch itself rather than sleep
//! ([`hasher::Helper`]).

mod hasher;
mod lanes;
mod reader;

use crate::read::Buffer;
use std::io;
#[cfg(any(test, feature = "internals"))]
use std::io::Read;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::Scope;

use crossbeam_channel::{Receiver, Sender, bounded};

use super::Scheduled;
use super::deliver::{Finished, hand_over, send_one};
use super::mmap::Mapped;
use super::opener::{Opener, take_jobs};
use super::route::{FAR_READERS, far_max};
use super::route::{Router, Threads};
use super::workers::hash_opened;
use super::{Job, Outcome, Plan, Task};
use crate::input::Opened;
#[cfg(any(test, feature = "internals"))]
use crate::read::ranges::InOrder;
use crate::stats::Stats;
#[cfg(any(test, feature = "internals"))]
use hasher::for_each_piece;
use hasher::{Helper, hasher_loop};
#[cfg(any(test, feature = "internals"))]
use reader::pump;
use reader::{Batch, Pool, Reader};

/// How many far readers a run may start: [`FAR_READERS`], or under a limit
/// on the address space as many as fit in their share of it
/// (`read::address_space_share`), a thread's stack and a buffer of
/// `route::far_max` bytes each; at least one.
fn far_readers_max(plan: &Plan) -> usize {
    let Some(share) = crate::read::address_space_share() else {
        return FAR_READERS;
    };
    let each = usize::try_from(far_max(plan))
        .unwrap_or(usize::MAX)
        .saturating_add(crate::read::THREAD_STACK);
    (share / each).clamp(1, FAR_READERS)
}

/// What travels down a streamed input's block channel.
enum Block {
    /// A pool block whose first `n` bytes are data.
    Data(Buffer, usize),
    /// The input ended cleanly.
    End,
    /// The input failed; no digest must be made.
    Err(io::Error),
}

/// What a hasher is handed.
enum Work<T> {
    /// Whole small inputs packed in one pool block.
    Batch(Batch<T>),
    /// One input whose blocks follow on its own channel, hashed on the
    /// threads of its route.
    Stream {
        idx: usize,
        task: Task<T>,
        blocks: Receiver<Block>,
        threads: Threads,
    },
    /// One input mapped whole, hashed on the threads of its route.
    Mapped {
        idx: usize,
        task: Task<T>,
        map: Mapped,
        threads: Threads,
    },
}

/// The hashers' two queues. Batches have their own, which the reader also
/// takes from while every block of the pool is out (see [`hasher::Helper`]):
/// it never takes a stream, whose blocks only it can read.
struct WorkTx<T> {
    batches: Sender<Batch<T>>,
    others: Sender<Work<T>>,
}

/// The hashers' end of [`WorkTx`].
struct WorkRx<T> {
    batches: Receiver<Batch<T>>,
    others: Receiver<Work<T>>,
}

impl<T> Clone for WorkRx<T> {
    fn clone(&self) -> Self {
        WorkRx {
            batches: self.batches.clone(),
            others: self.others.clone(),
        }
    }
}

/// The queues; the batches' has room for every block of the pool, so that
/// handing one over never blocks the reader (it waits only for a block).
fn work_queues<T>(plan: &Plan) -> (WorkTx<T>, WorkRx<T>) {
    let (btx, brx) = bounded(plan.pool);
    let (otx, orx) = bounded(plan.jobs);
    (
        WorkTx {
            batches: btx,
            others: otx,
        },
        WorkRx {
            batches: brx,
            others: orx,
        },
    )
}

impl<T> WorkTx<T> {
    /// Queue `w` for a hasher; false when the hashers are gone.
    fn hand(&self, w: Work<T>, cancel: &AtomicBool) -> bool {
        match w {
            Work::Batch(b) => hand_over(&self.batches, b, cancel),
            other => hand_over(&self.others, other, cancel),
        }
    }

    /// How many hashers the work already waiting for one wants: `-j` for
    /// a stream or a mapping, `for_batches` for batches, none when nothing
    /// waits.
    fn hashers_wanted(&self, jobs: usize, for_batches: usize) -> usize {
        if !self.others.is_empty() {
            jobs
        } else if !self.batches.is_empty() {
            for_batches
        } else {
            0
        }
    }
}

impl<T> WorkRx<T> {
    /// The next work, from either queue; `None` once the reader is done
    /// and both are empty.
    fn recv(&self) -> Option<Work<T>> {
        crossbeam_channel::select! {
            recv(self.batches) -> b => match b {
                Ok(b) => Some(Work::Batch(b)),
                Err(_) => self.others.recv().ok(),
            },
            recv(self.others) -> w => match w {
                Ok(w) => Some(w),
                Err(_) => self.batches.recv().ok().map(Work::Batch),
            },
        }
    }
}

/// The most hashers batches start, with `-j` at `jobs` on `cores` cores:
/// one per core but the reader's, at most `jobs`, at least one.
///
/// (And the far readers, at most [`FAR_READERS`]: threads that mostly wait
/// on storage, not cores.)
fn batch_hashers(jobs: usize, cores: usize) -> usize {
    jobs.min(cores.saturating_sub(1)).max(1)
}

/// Start one hasher taking work from `work`.
fn start_hasher<'scope, 'env, T: Send + 'scope, P: Send + 'scope>(
    s: &'scope Scope<'scope, 'env>,
    plan: &Plan,
    stats: &'env Stats,
    work: &WorkRx<T>,
    returns: Sender<Buffer>,
    done: &Sender<Finished<T, P>>,
) -> io::Result<()> {
    let (work, done) = (work.clone(), done.clone());
    let chunk = plan.chunk.get();
    crate::read::spawn_thread(s, "hasher", move || {
        hasher_loop(work, chunk, returns, done, stats)
    })
}

/// Start the reader and the first hasher (more start as work waits, up to
/// `-j`). An error when not even those two threads can be started.
pub(super) fn spawn<'scope, 'env, T, P, I>(
    s: &'scope Scope<'scope, 'env>,
    run: Scheduled<'env, T, P, I>,
) -> io::Result<()>
where
    T: Send + 'scope,
    P: Send + 'scope,
    I: Iterator<Item = Job<T, P>> + Send + 'scope,
{
    let Scheduled {
        router,
        stats,
        cancel,
        jobs,
        source,
        done,
    } = run;
    let plan = router.plan();
    let (work_tx, work_rx) = work_queues::<T>(plan);
    // The reader hashes batches in its waits while fewer than -j hashers
    // run: at most -j threads hash at once (under -j 1, the one hasher).
    // Batches start a hasher per core but the reader's, as -j allows: on 2
    // cores two hashers and the reader were slower than one and the reader
    // (docs/BENCHMARKS.md, "The reader hashes while it waits").
    let reader_hashes = Arc::new(AtomicBool::new(plan.jobs > 1));
    let helper = Helper::new(
        work_rx.batches.clone(),
        done.clone(),
        plan.chunk.get(),
        stats,
        Arc::clone(&reader_hashes),
    );
    let pool = Pool::new(plan).helped_by(Box::new(helper));
    start_hasher(s, plan, stats, &work_rx, pool.returns(), &done)?;
    let mut hashers = Hashers {
        s,
        plan,
        stats,
        returns: pool.returns(),
        work_rx,
        done: done.clone(),
        running: 1,
        for_batches: batch_hashers(plan.jobs, crate::cores::available()),
        reader_hashes,
    };
    let mut far_readers = FarReaders::new(s, router, stats, cancel, done.clone());
    crate::read::spawn_thread(s, "reader", move || {
        let mut hand = |w: Work<T>| {
            // a batch: one more hasher when work is already waiting for one;
            // a stream or a mapping counts itself (a mapped big file is
            // handed on at once, and the next may follow it at once)
            let batch = matches!(w, Work::Batch(_));
            if batch {
                hashers.more(&work_tx);
            }
            let handed = work_tx.hand(w, cancel);
            if !batch {
                hashers.more(&work_tx);
            }
            handed
        };
        let mut far = |idx, task, opened| far_readers.hand(idx, task, opened);
        let mut reader = Reader {
            router,
            stats,
            cancel,
            pool,
            done,
            hand: &mut hand,
            batch: None,
            far: &mut far,
            latency: Default::default(),
        };
        let Some(jobs) = take_jobs(jobs) else {
            return;
        };
        let done = reader.done.clone();
        Opener::start(s, jobs, source, cancel, &done).hand_on_all(&mut reader);
        reader.flush();
    })
}

/// The hashers the reader starts as work waits for them, up to `-j`.
struct Hashers<'scope, 'env, T, P> {
    s: &'scope Scope<'scope, 'env>,
    plan: &'env Plan,
    stats: &'env Stats,
    returns: Sender<Buffer>,
    work_rx: WorkRx<T>,
    done: Sender<Finished<T, P>>,
    /// Hashers started.
    running: usize,
    /// The most batches start ([`batch_hashers`]).
    for_batches: usize,
    /// Whether the reader hashes batches in its waits: until `-j`
    /// hashers run.
    reader_hashes: Arc<AtomicBool>,
}

impl<'scope, T: Send + 'scope, P: Send + 'scope> Hashers<'scope, '_, T, P> {
    /// One more hasher, if the work waiting in `work` wants one and `-j`
    /// allows it (a thread that cannot be started means fewer).
    fn more(&mut self, work: &WorkTx<T>) {
        if self.running < work.hashers_wanted(self.plan.jobs, self.for_batches)
            && start_hasher(
                self.s,
                self.plan,
                self.stats,
                &self.work_rx,
                self.returns.clone(),
                &self.done,
            )
            .is_ok()
        {
            self.running += 1;
            if self.running == self.plan.jobs {
                self.reader_hashes.store(false, Ordering::Relaxed);
            }
        }
    }
}

/// The far readers: started as small files wait for them, up to
/// [`far_readers_max`], each reading and hashing whole files as the sync
/// mode's workers do; only on storage that makes reads wait
/// (`reader::Latency`), where one reader keeps one request in flight.
/// When none can be started (a limit on threads), the reader reads the
/// files itself, as the workers' dispatcher does.
struct FarReaders<'scope, 'env, T, P> {
    s: &'scope Scope<'scope, 'env>,
    router: &'env Router,
    stats: &'env Stats,
    cancel: &'env AtomicBool,
    tx: Sender<FarWork<T>>,
    rx: Receiver<FarWork<T>>,
    done: Sender<Finished<T, P>>,
    /// Far readers started, and the most that may be.
    started: usize,
    max: usize,
    /// The buffer of the files read here when no far reader runs.
    buf: Vec<u8>,
}

/// A small input for the far readers.
type FarWork<T> = crate::read::workers::Work<T>;

impl<'scope, 'env, T: Send + 'scope, P: Send + 'scope> FarReaders<'scope, 'env, T, P> {
    fn new(
        s: &'scope Scope<'scope, 'env>,
        router: &'env Router,
        stats: &'env Stats,
        cancel: &'env AtomicBool,
        done: Sender<Finished<T, P>>,
    ) -> Self {
        let (tx, rx) = bounded(FAR_READERS);
        FarReaders {
            s,
            router,
            stats,
            cancel,
            tx,
            rx,
            done,
            started: 0,
            max: far_readers_max(router.plan()),
            buf: Vec::new(),
        }
    }

    /// Hand input `idx` to a far reader, starting one when none runs or
    /// work already waits (false when the run is being torn down).
    fn hand(&mut self, idx: usize, task: Task<T>, opened: Opened) -> bool {
        let at_once = opened
            .device()
            .and_then(|d| crate::storage::observer().reads_at_once(d));
        let max = at_once.map_or(self.max, |n| self.max.min(n));
        if self.started < max
            && (self.started == 0 || !self.tx.is_empty())
            && crate::read::workers::start_worker(
                self.s,
                self.router,
                self.stats,
                self.cancel,
                &self.rx,
                &self.done,
            )
            .is_ok()
        {
            self.started += 1;
            self.stats.add_far_reader();
            let reads = crate::storage::Request::Read;
            crate::storage::observer().in_flight(reads, self.started);
        }
        if self.started == 0 {
            // (nobody would ever take it from the queue)
            let r = hash_opened(self.router, self.stats, &task, opened, &mut self.buf);
            return send_one(&self.done, idx, Outcome::Hashed(task, r));
        }
        hand_over(&self.tx, (idx, task, opened), self.cancel)
    }
}

/// Read `src` through the pipeline and throw the bytes away, `plan.chunk`
/// at a time: the no-op consumer (docs/BENCHMARKS.md, Table 2), which shows
/// what the pipeline costs (or saves) when hashing costs nothing. Returns
/// the number of bytes read.
#[cfg(any(test, feature = "internals"))]
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
#[cfg(any(test, feature = "internals"))]
fn pipe_reader<R: Read + Send>(
    plan: &Plan,
    stats: &Stats,
    src: R,
    update: impl FnMut(&[u8]),
) -> io::Result<()> {
    let cancel = AtomicBool::new(false);
    let mut pool = Pool::new(plan);
    let returns = pool.returns();
    let (btx, brx) = bounded(pool.max_blocks() + 1);
    std::thread::scope(|s| {
        s.spawn(|| {
            let from = reader::Resume {
                read: 0,
                seen: None,
                copiers: 1,
            };
            pump(InOrder(src), &mut pool, &btx, stats, &cancel, from);
            drop(btx);
        });
        match for_each_piece(&brx, plan.chunk.get(), &returns, stats, update) {
            Some(Ok(())) => {
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
    use crate::algo::{Algorithm, Digest, Hasher};
    use crate::read::{Mode, Outcome, Sink};
    use crate::size::Size;

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
                return Err(io::Error::other("flaky"));
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
            chunk: Size::bytes(chunk).unwrap(),
            readahead: Size::bytes(readahead).unwrap(),
            pool,
            jobs: 1,
        }
    }

    fn hash_reader(plan: &Plan, stats: &Stats, algo: Algorithm, src: Flaky) -> io::Result<Digest> {
        let mut h = Hasher::new(algo);
        pipe_reader(plan, stats, src, |piece| h.update(piece))?;
        Ok(h.finalize())
    }

    /// Work waiting for a hasher wants more of them: every `-j` for a
    /// stream (only a hasher can take it), the batches' share for batches,
    /// none when nothing waits. Batches get a hasher per core but the
    /// reader's, within `-j`.
    #[test]
    fn waiting_work_decides_how_many_hashers_run() {
        // (jobs, cores, hashers for batches)
        for (jobs, cores, want) in [
            (2, 2, 1),
            (4, 2, 1),
            (2, 4, 2),
            (4, 4, 3),
            (16, 8, 7),
            (1, 1, 1),
            (1, 8, 1),
            (8, 1, 1),
        ] {
            assert_eq!(batch_hashers(jobs, cores), want, "-j {jobs}, {cores} cores");
        }
        let p = plan(4096, 4096, 4);
        let task = || Task {
            input: crate::input::Input::Path("f".into()),
            algos: crate::algo::Algorithms::one(Algorithm::Md5),
            context: (),
        };
        let (tx, rx) = work_queues::<()>(&p);
        let cancel = AtomicBool::new(false);
        assert_eq!(tx.hashers_wanted(3, 2), 0);
        let batch = reader::Batch::for_tests(Buffer::from(vec![0; 16]));
        assert!(tx.hand(Work::Batch(batch), &cancel));
        assert_eq!(tx.hashers_wanted(3, 2), 2);
        assert_eq!(tx.hashers_wanted(1, 1), 1);
        let (_blocks_tx, blocks) = bounded(1);
        let stream = Work::Stream {
            idx: 1,
            task: task(),
            blocks,
            threads: Threads::One,
        };
        assert!(tx.hand(stream, &cancel));
        assert_eq!(tx.hashers_wanted(3, 2), 3);
        // a hasher gets both, from either queue
        let mut got: Vec<&str> = (0..2)
            .map(|_| match rx.recv() {
                Some(Work::Batch(_)) => "batch",
                Some(Work::Stream { .. }) => "stream",
                Some(Work::Mapped { .. }) => "mapped",
                None => "none",
            })
            .collect();
        got.sort();
        assert_eq!(got, ["batch", "stream"]);
        assert_eq!(tx.hashers_wanted(3, 2), 0);
        drop(tx);
        assert!(rx.recv().is_none(), "no work once the reader is done");
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
        assert_eq!(e.to_string(), "flaky");
    }

    #[test]
    fn drain_reads_everything_and_reports_errors() {
        let stats = Stats::default();
        let n = drain_reader(&plan(16, 1000, 2), &stats, flaky(100_000, 4097, None)).unwrap();
        assert_eq!(n, 100_000);
        assert_eq!(stats.bytes(), 100_000);
        let src = flaky(10_000, 100, Some(5_000));
        let e = drain_reader(&plan(16, 1000, 2), &Stats::default(), src).unwrap_err();
        assert_eq!(e.to_string(), "flaky");
    }

    #[test]
    fn error_on_first_read_gives_no_digest() {
        let src = flaky(10, 1, Some(0));
        let r = hash_reader(&plan(1, 1, 1), &Stats::default(), Algorithm::Md5, src);
        assert!(r.is_err());
    }

    /// The pool's blocks go round: a 3-block pool moves a 1 MiB input through
    /// 64-byte blocks, never makes more than 3, and holds every one at the end.
    #[test]
    fn blocks_are_recycled_and_bounded() {
        let p = plan(16, 64, 3);
        let mut pool = Pool::new(&p);
        let returns = pool.returns();
        let (btx, brx) = bounded(pool.max_blocks() + 1);
        let stats = Stats::default();
        let src = flaky(1 << 20, 1000, None);
        let want = hash_bytes(Algorithm::Md5, &src.data);
        let cancel = AtomicBool::new(false);
        let mut h = Hasher::new(Algorithm::Md5);
        std::thread::scope(|s| {
            s.spawn(|| {
                assert!(pump(
                    InOrder(src),
                    &mut pool,
                    &btx,
                    &stats,
                    &cancel,
                    reader::Resume {
                        read: 0,
                        seen: None,
                        copiers: 1,
                    }
                ));
                // at most pool blocks may ever be queued
                assert!(btx.len() <= 3);
            });
            let r = for_each_piece(&brx, p.chunk.get(), &returns, &stats, |b| h.update(b));
            assert!(matches!(r, Some(Ok(()))));
        });
        assert_eq!(h.finalize(), want);
        let blocks = pool.idle_blocks();
        assert_eq!(blocks.len(), 3, "every block made is back");
        let mut ptrs: Vec<*const u8> = blocks.iter().map(|b| b.as_ptr()).collect();
        ptrs.sort();
        ptrs.dedup();
        assert_eq!(ptrs.len(), 3);
    }

    struct Collect(Vec<(usize, Option<Digest>)>);

    impl Sink<usize, ()> for Collect {
        fn put(&mut self, o: Outcome<usize, ()>) -> io::Result<()> {
            match o {
                Outcome::Hashed(task, r) => self
                    .0
                    .push((task.context, r.ok().map(|mut h| h.digests.remove(0)))),
                Outcome::Passed(()) => {}
            }
            Ok(())
        }
        fn idle(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    /// Many small inputs packed into batches, big ones streamed, FIFOs (no
    /// size hint: the reader must spill a half-packed input into a block of
    /// its own) and a missing file in between: every digest right, in order.
    #[test]
    fn batches_streams_and_spills_keep_order() {
        use crate::input::Input;
        use crate::read::run;
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
            crate::sys::make_fifo(&path).unwrap();
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
            let jobs_iter = inputs.iter().enumerate().map(|(i, input)| {
                Job::<usize, ()>::Hash(Task {
                    input: input.clone().unwrap(),
                    algos: crate::algo::Algorithms::one(Algorithm::Sha1),
                    context: i,
                })
            });
            let mut got = Collect(Vec::new());
            run(
                &p,
                &Stats::default(),
                jobs_iter,
                crate::read::JobSource::Operands,
                &mut got,
            )
            .unwrap();
            let got = got.0;
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
