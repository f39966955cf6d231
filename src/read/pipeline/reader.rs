//! The reader side of the pipeline: the pool of blocks, the batch of small
//! inputs being packed, and the reader thread's loop over the inputs.

use std::io::{self, Read};
use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, RecvError, Sender, bounded};

use super::{Block, Work};
use crate::input::{Kind, Opened, read_retry};
use crate::read::Buffer;
use crate::read::deliver::{Finished, send_one};
use crate::read::mmap::Mapped;
use crate::read::opener::TakeOpened;
use crate::read::ranges::{self, Crew, Ranged};
use crate::read::route::{Distance, Next, Reads, Route, Router, Threads, Via};
use crate::read::{Outcome, Plan, Task};
use crate::stats::Stats;
use crate::storage::{Request, Timer, observer};

/// The most inputs packed into one batch: bounds the latency of a line and
/// keeps every hasher busy when a tree is all tiny files.
const MAX_BATCH: usize = 64;

/// The smallest block the pool falls back to when memory is short.
const MIN_BLOCK: usize = 4096;

/// The pool of blocks, allocated lazily (a run over one 6-byte file makes
/// one block, not `--pool`) and fallibly (under a low `ulimit -v` the pool
/// stays smaller, or its blocks do). Hashers return blocks on `returns`.
pub(super) struct Pool<'h> {
    free: Receiver<Buffer>,
    returns: Sender<Buffer>,
    /// A block the reader holds back for itself (it never returns a block
    /// through the channel, so it can never block on a full one).
    spare: Option<Buffer>,
    made: usize,
    max: usize,
    size: usize,
    /// Bytes per read call (`--readahead`): below a page, a block holds
    /// several reads, so that a tiny read-ahead costs a hand-over per page,
    /// not per read, and never more than `sync` reading as little.
    pub(super) step: usize,
    /// What the reader does while it waits for a block, if anything.
    help: Option<Box<dyn Help + Send + 'h>>,
}

/// Work the reader may do while every block of the pool is out.
pub(super) trait Help {
    /// A block from `free`, or one that the work done meanwhile freed.
    fn wait(&mut self, free: &Receiver<Buffer>) -> Result<Buffer, RecvError>;
}

/// Why the reader cannot have a block.
pub(super) enum NoBlock {
    /// Every hasher is gone: the run is being torn down.
    TornDown,
    /// Not even one small block could be allocated.
    OutOfMemory,
}

impl<'h> Pool<'h> {
    pub(super) fn new(plan: &Plan) -> Pool<'h> {
        let (returns, free) = bounded(plan.pool);
        // Under a limit on the address space (`ulimit -v`), the pool takes at
        // most its share, in smaller blocks.
        let step = plan.readahead.get();
        let mut size = step.max(MIN_BLOCK);
        if let Some(share) = crate::read::address_space_share() {
            size = size.min((share / plan.pool).max(MIN_BLOCK));
        }
        Pool {
            free,
            returns,
            spare: None,
            made: 0,
            max: plan.pool,
            size,
            step,
            help: None,
        }
    }

    /// The pool, with `help` done while the reader waits for a block.
    pub(super) fn helped_by(self, help: Box<dyn Help + Send + 'h>) -> Pool<'h> {
        Pool {
            help: Some(help),
            ..self
        }
    }

    /// The sender hashers give blocks back with.
    pub(super) fn returns(&self) -> Sender<Buffer> {
        self.returns.clone()
    }

    /// The capacity a block channel needs so the reader never blocks on it.
    pub(super) fn max_blocks(&self) -> usize {
        self.max
    }

    /// A free block: one to be had at once ([`Pool::try_take`]), else wait
    /// for one to come back.
    pub(super) fn take(&mut self, stats: &Stats) -> Result<Buffer, NoBlock> {
        loop {
            if let Some(b) = self.try_take() {
                return Ok(b);
            }
            if self.made >= self.max {
                break;
            }
            // no memory for another block
            if self.made > 0 {
                // make do with the blocks there are
                self.max = self.made;
            } else if self.size > MIN_BLOCK {
                self.size /= 2;
            } else {
                return Err(NoBlock::OutOfMemory);
            }
        }
        let t = Instant::now();
        let b = match &mut self.help {
            Some(help) => help.wait(&self.free),
            None => self.free.recv(),
        };
        stats.add_reader_wait(t.elapsed());
        b.map_err(|_| NoBlock::TornDown)
    }

    /// Every block made that is not out with a hasher (for tests).
    #[cfg(test)]
    pub(super) fn idle_blocks(&mut self) -> Vec<Buffer> {
        let mut blocks: Vec<Buffer> = self.free.try_iter().collect();
        blocks.extend(self.spare.take());
        assert!(blocks.len() <= self.made);
        blocks
    }

    /// A free block if one can be had without waiting: a spare, a returned
    /// one, or a new one while fewer than `--pool` exist.
    pub(super) fn try_take(&mut self) -> Option<Buffer> {
        if let Some(b) = self.spare.take() {
            return Some(b);
        }
        if let Ok(b) = self.free.try_recv() {
            return Some(b);
        }
        if self.made < self.max {
            let b = Buffer::zeroed(self.size)?;
            self.made += 1;
            return Some(b);
        }
        None
    }

    /// Give back a block not sent to a hasher (never blocks: the return
    /// channel has room for every block of the pool).
    pub(super) fn give_back(&mut self, block: Buffer) {
        match self.spare {
            None => self.spare = Some(block),
            // (never full: it has room for every block of the pool)
            Some(_) => drop(self.returns.send(block)),
        }
    }

    /// Keep `block` for the next `take`.
    pub(super) fn keep(&mut self, block: Buffer) {
        self.spare = Some(block);
    }
}

/// Fill `buf` from `src` as far as it goes: the number of bytes read, and
/// whether the input ended before the buffer was full. It ended when a read
/// returned 0, or, for a regular file whose length `len` is known, when the
/// bytes read reach that length with a read that returned less than asked:
/// a regular file's reads come up short only at its end, so the read that
/// would return 0 is saved (the caller then checks the file is unchanged
/// itself). A file that grew since it was opened fills the whole request and
/// is read on.
fn fill(
    src: &mut impl Read,
    buf: &mut [u8],
    len: Option<u64>,
    step: usize,
    stats: &Stats,
) -> io::Result<(usize, bool)> {
    let mut filled = 0;
    while filled < buf.len() {
        let asked = (buf.len() - filled).min(step.max(1));
        let n = read_retry(src, &mut buf[filled..filled + asked])?;
        stats.add_read_call();
        if n == 0 {
            return Ok((filled, true));
        }
        filled += n;
        if n < asked && len == Some(filled as u64) {
            return Ok((filled, true));
        }
    }
    Ok((filled, false))
}

/// Where [`pump`] takes an input up: the bytes read before, how long the
/// last of those reads took and how many bytes it brought (if timed), and
/// how many readers share the copy of a file in the page cache (the
/// route's `Reads::Copiers`; one: no copiers).
#[derive(Clone, Copy, Debug)]
pub(super) struct Resume {
    pub(super) read: u64,
    pub(super) seen: Option<(usize, Duration)>,
    pub(super) copiers: usize,
}

/// Read the rest of `src` into pool blocks sent down `blocks`, then `End`,
/// or `Err` in place of the rest on a read error. False when the run is
/// being torn down. A regular file of its own goes on in ranges read
/// several at once ([`ranges`]): by copiers if `from` has them, as far as
/// it is in the page cache; where its reads wait on the storage.
pub(super) fn pump(
    mut src: impl Read + Ranged,
    pool: &mut Pool<'_>,
    blocks: &Sender<Block>,
    stats: &Stats,
    cancel: &AtomicBool,
    from: Resume,
) -> bool {
    let Resume {
        mut read,
        mut seen,
        copiers,
    } = from;
    let mut copy = (copiers > 1).then_some(Crew::Copiers(copiers));
    // (the reads after the ranges find the end; ranges again only to the
    // length a stale size hid)
    let (mut ranged, mut counted) = (false, false);
    loop {
        let crew = copy.take().filter(|_| src.ranged().is_some()).or_else(|| {
            let (n, took) = seen?;
            let (file, start, len) = src.ranged()?;
            (!ranged && ranges::worth(file, start + read, (n, took), len.saturating_sub(read)))
                .then(|| Crew::Measured((n, n as f64 / took.as_secs_f64())))
        });
        if let Some(crew) = crew {
            if matches!(crew, Crew::Measured(_)) && !std::mem::replace(&mut counted, true) {
                stats.add_ranged_file();
            }
            let mut lender = PoolLender {
                pool: &mut *pool,
                blocks,
                stats,
                cancel,
            };
            match in_ranges(&mut src, &mut lender, crew, read, stats) {
                Some(Ok(goes_on)) => (read, ranged) = goes_on,
                Some(Err(e)) => return blocks.send(Block::Err(e)).is_ok(),
                None => return false,
            }
        }
        if cancel.load(Ordering::Relaxed) {
            return false;
        }
        let mut buf = match pool.take(stats) {
            Ok(b) => b,
            Err(NoBlock::TornDown) => return false,
            Err(NoBlock::OutOfMemory) => {
                let e = io::Error::from(io::ErrorKind::OutOfMemory);
                return blocks.send(Block::Err(e)).is_ok();
            }
        };
        let t = Instant::now();
        let (n, at_end) = match fill(&mut src, &mut buf, None, pool.step, stats) {
            Ok(r) => r,
            Err(e) => {
                pool.keep(buf);
                return blocks.send(Block::Err(e)).is_ok();
            }
        };
        let took = t.elapsed();
        if ranges::waits(n, took) {
            stats.add_slow_read(took);
        }
        seen = Some((n, took));
        read += n as u64;
        if n > 0 {
            if blocks.send(Block::Data(buf, n)).is_err() {
                return false;
            }
        } else {
            pool.keep(buf);
        }
        if at_end {
            return blocks.send(Block::End).is_ok();
        }
    }
}

/// Read `src` from `read` bytes on in ranges by `crew` into the blocks of
/// `lender`: where the reads go on from (the bytes read by then, and
/// whether ranges are done with, as `sync`'s reads of one thread judge
/// it), or `None` when the run is being torn down.
fn in_ranges(
    src: &mut (impl Read + Ranged),
    lender: &mut PoolLender<'_, '_>,
    crew: Crew,
    read: u64,
    stats: &Stats,
) -> Option<io::Result<(u64, bool)>> {
    let Some((file, start, len)) = src.ranged() else {
        return Some(Ok((read, false)));
    };
    let ended = ranges::read(file, start + read, start + len, crew, lender, stats);
    Some(match ended {
        // (on to the read that proves the end)
        Ok(ranges::Ended::Done(to)) => src
            .skip_to(to)
            .and_then(|()| src.grown())
            .map(|grown| (to - start, !grown)),
        Ok(ranges::Ended::Uncached(to)) => src.skip_to(to).map(|()| (to - start, false)),
        Ok(ranges::Ended::Stopped) => return None,
        Err(e) => Err(e),
    })
}

/// The pool lends the ranges their blocks; a block read goes down the
/// input's block channel to its hasher, which gives it back to the pool.
struct PoolLender<'p, 'h> {
    pool: &'p mut Pool<'h>,
    blocks: &'p Sender<Block>,
    stats: &'p Stats,
    cancel: &'p AtomicBool,
}

impl ranges::Lender for PoolLender<'_, '_> {
    fn try_take(&mut self) -> Option<Buffer> {
        self.pool.try_take()
    }

    fn take(&mut self) -> Option<Buffer> {
        if self.cancel.load(Ordering::Relaxed) {
            return None;
        }
        self.pool.take(self.stats).ok()
    }

    fn deliver(&mut self, block: Buffer, n: usize) -> bool {
        !self.cancel.load(Ordering::Relaxed) && self.blocks.send(Block::Data(block, n)).is_ok()
    }

    fn give_back(&mut self, block: Buffer) {
        self.pool.give_back(block);
    }
}

/// One whole input inside a batch block.
pub(super) struct Packed<T> {
    pub(super) idx: usize,
    pub(super) task: Task<T>,
    pub(super) range: Range<usize>,
}

/// Small inputs packed one after another into one pool block, handed to a
/// hasher as one piece of work: one hand-over for many files.
pub(super) struct Batch<T> {
    pub(super) block: Buffer,
    pub(super) items: Vec<Packed<T>>,
    len: usize,
}

impl<T> Batch<T> {
    fn new(block: Buffer) -> Batch<T> {
        Batch {
            block,
            items: Vec::with_capacity(MAX_BATCH),
            len: 0,
        }
    }

    /// An empty batch in `block`.
    #[cfg(test)]
    pub(super) fn for_tests(block: Buffer) -> Batch<T> {
        Batch::new(block)
    }

    /// Bytes left in the block.
    fn room(&self) -> usize {
        self.block.len() - self.len
    }

    /// Read all of `src` into the rest of the block, `limit` bytes at most:
    /// true if it fitted (then it is packed), false with the `n` bytes read
    /// so far otherwise.
    fn pack(
        &mut self,
        idx: usize,
        task: Task<T>,
        src: &mut Opened,
        (step, limit): (usize, usize),
        stats: &Stats,
    ) -> Result<(), (Task<T>, io::Result<usize>)> {
        let start = self.len;
        let end = start + self.room().min(limit);
        // (stdin, even a regular file, is read to its 0 as GNU reads it)
        let len = match src.kind() {
            Kind::Regular { len } if !src.is_shared() => Some(len),
            _ => None,
        };
        // A file read to its known length, with no read returning 0, is
        // checked here, as the 0 would have checked it (a stamp compare: one
        // fstat, the cost of the read it replaces); one that goes on (its
        // size was stale) did not fit.
        let ended =
            fill(src, &mut self.block[start..end], len, step, stats).and_then(|r| match r {
                (n, true) if len.is_some() => src.ends_here().map(|end| (n, end)),
                r => Ok(r),
            });
        match ended {
            Ok((n, true)) => {
                self.len = start + n;
                self.items.push(Packed {
                    idx,
                    task,
                    range: start..start + n,
                });
                Ok(())
            }
            Ok((n, false)) => Err((task, Ok(n))),
            Err(e) => Err((task, Err(e))),
        }
    }

    /// No more inputs should go in.
    fn is_full(&self) -> bool {
        self.room() == 0 || self.items.len() >= MAX_BATCH
    }
}

/// The reader thread's state.
pub(super) struct Reader<'a, T, P> {
    /// Decides how each input is read.
    pub(super) router: &'a Router,
    pub(super) stats: &'a Stats,
    pub(super) cancel: &'a AtomicBool,
    pub(super) pool: Pool<'a>,
    pub(super) done: Sender<Finished<T, P>>,
    /// Hands work to a hasher (starting one if needed); false when the
    /// hashers are gone.
    pub(super) hand: &'a mut dyn FnMut(Work<T>) -> bool,
    /// The batch being packed.
    pub(super) batch: Option<Batch<T>>,
    /// Hands a small input to the far readers (false when the run is
    /// being torn down).
    pub(super) far: &'a mut dyn FnMut(usize, Task<T>, Opened) -> bool,
    /// Which of its small files' reads the reader times.
    pub(super) latency: Latency,
}

/// One small file in this many is timed (two clock reads each).
const TIME_EVERY: u32 = 4;

/// Which files' first reads tell the storage observer (`crate::storage`)
/// what a read costs: one in [`TIME_EVERY`] of those on storage not judged
/// far, every one on far storage. Whether the storage is far is the observer's to say (the route's
/// [`Reads::Far`]); on far storage one reader keeps one request in flight,
/// so small files go to the far readers, which read and hash many at once
/// (as many as keep work waiting for them, see `pipeline::spawn`).
#[derive(Debug, Default)]
pub(super) struct Latency {
    seen: u32,
}

impl Latency {
    /// Time this small file's reads?
    fn times(&mut self) -> bool {
        self.seen = self.seen.wrapping_add(1);
        self.seen.is_multiple_of(TIME_EVERY)
    }
}

impl<T, P> TakeOpened<T> for Reader<'_, T, P> {
    fn take(&mut self, idx: usize, task: Task<T>, opened: Opened, next: Next) -> bool {
        self.read(idx, task, opened, next)
    }

    /// The next input is slow to come (a check file on a pipe): the files
    /// packed so far go to a hasher now rather than when the block fills.
    fn idle(&mut self) -> bool {
        self.flush()
    }
}

impl<T, P> Reader<'_, T, P> {
    /// Hand the batch being packed to a hasher (or keep its block if it
    /// holds nothing). False when the hashers are gone.
    pub(super) fn flush(&mut self) -> bool {
        match self.batch.take() {
            None => true,
            Some(batch) if batch.items.is_empty() => {
                self.pool.keep(batch.block);
                true
            }
            Some(batch) => (self.hand)(Work::Batch(batch)),
        }
    }

    fn fail(&self, idx: usize, task: Task<T>, e: io::Error) -> bool {
        send_one(&self.done, idx, Outcome::Hashed(task, Err(e)))
    }

    /// Read one opened input as its route says: mapped; else packed into
    /// the current batch if it fits (hashed on one thread), else streamed
    /// (on the route's threads). False when the run is being torn down.
    pub(super) fn read(&mut self, idx: usize, task: Task<T>, src: Opened, next: Next) -> bool {
        let kind = src.kind();
        let at = Distance::of(&src);
        let Route { via, threads } = self.router.route(task.algos, kind, next, at);
        let mut src = match Mapped::of_route(via, src) {
            Ok(map) => {
                let work = Work::Mapped {
                    idx,
                    task,
                    map,
                    threads,
                };
                return self.flush() && (self.hand)(work);
            }
            Err((_, src)) => src,
        };
        // On storage judged far, a small file goes to the far readers, many
        // of which wait at once.
        if via == Via::Read(Reads::Far) {
            self.stats.add_far_file();
            return self.flush() && (self.far)(idx, task, src);
        }
        // A stream may block (a pipe nobody writes to yet): what is packed goes
        // to a hasher first, so finished lines are not held back behind it. A
        // file known not to fit in what is left starts a block of its own (the
        // length only steers: the reads decide).
        let too_big = match kind {
            Kind::Stream => true,
            Kind::Regular { len } => self.batch.as_ref().is_some_and(|b| len >= b.room() as u64),
        };
        if too_big && !self.flush() {
            return false;
        }
        let mut batch = match self.batch.take() {
            Some(b) => b,
            None => match self.pool.take(self.stats) {
                Ok(block) => Batch::new(block),
                Err(NoBlock::TornDown) => return false,
                Err(NoBlock::OutOfMemory) => {
                    return self.fail(idx, task, io::ErrorKind::OutOfMemory.into());
                }
            },
        };
        let start = batch.len;
        // A file of several ranges that will not fit is streamed: its first
        // read, of one range, is timed, and tells whether to read the rest
        // in ranges at once (`pump`), before a whole block waited alone.
        // (on far storage every file's first read: a big one here, the
        // small ones go to the far readers, which time theirs)
        let sampled = at == Distance::Far || self.latency.times();
        let ranges = matches!(kind, Kind::Regular { len }
            if len >= 2 * ranges::RANGE as u64 && len >= batch.room() as u64 && !src.is_shared());
        let timer = sampled.then(Timer::start);
        let timed = (sampled || ranges).then(Instant::now);
        let limit = if ranges { ranges::RANGE } else { usize::MAX };
        let step = self.pool.step;
        let packed = batch.pack(idx, task, &mut src, (step, limit), self.stats);
        let took = timed.map(|t| t.elapsed());
        // (the first read: all of a file that fits, or what came before
        // it was streamed)
        if let (Some(timer), Some(dev), Ok(()) | Err((_, Ok(_)))) = (timer, src.device(), &packed) {
            observer().saw(dev, Request::Read, timer.waited());
        }
        match packed {
            Ok(()) => {
                // a 1-block pool cannot pack: the next input would need a second block
                let full = batch.is_full() || self.pool.max_blocks() < 2;
                self.batch = Some(batch);
                !full || self.flush()
            }
            Err((task, Err(e))) => {
                self.batch = Some(batch);
                self.fail(idx, task, e)
            }
            Err((task, Ok(n))) => {
                let copiers = match via {
                    Via::Read(Reads::Copiers(n)) => usize::from(n),
                    _ => 1,
                };
                let from = Resume {
                    read: n as u64,
                    seen: took.map(|t| (n, t)),
                    copiers,
                };
                self.stream(idx, task, threads, src, (batch, start), from)
            }
        }
    }

    /// The input did not fit in the batch block (its first bytes are at
    /// `start`, as many as `from` says were read): send it as a stream, its
    /// first block being either the whole batch block (nothing else was
    /// packed) or a copy of those bytes, then the rest ([`pump`]).
    fn stream(
        &mut self,
        idx: usize,
        task: Task<T>,
        threads: Threads,
        src: Opened,
        (mut batch, start): (Batch<T>, usize),
        from: Resume,
    ) -> bool {
        // (no more than one block was packed)
        let n = from.read as usize;
        let first = if batch.items.is_empty() {
            batch.block
        } else {
            let mut fresh = match self.pool.take(self.stats) {
                Ok(b) => b,
                Err(NoBlock::TornDown) => return false,
                Err(NoBlock::OutOfMemory) => {
                    self.batch = Some(batch);
                    return self.flush() && self.fail(idx, task, io::ErrorKind::OutOfMemory.into());
                }
            };
            // every block has the same size (the pool only shrinks its block
            // size before the first is made), so the n bytes fit
            fresh[..n].copy_from_slice(&batch.block[start..start + n]);
            batch.len = start;
            self.batch = Some(batch);
            if !self.flush() {
                return false;
            }
            fresh
        };
        let (btx, brx) = bounded(self.pool.max_blocks() + 1);
        if !(self.hand)(Work::Stream {
            idx,
            task,
            blocks: brx,
            threads,
        }) {
            return false;
        }
        // the block channel has room for the whole pool: no send blocks
        btx.send(Block::Data(first, n)).is_ok()
            && pump(src, &mut self.pool, &btx, self.stats, self.cancel, from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algo::{Algorithm, Algorithms};
    use crate::input::Input;
    use crate::read::Task;
    use crate::read::pipeline::hasher::Helper;
    use crate::read::pipeline::work_queues;
    use crate::read::{Mode, Outcome};
    use crate::size::Size;

    /// With the pool's one block out in a queued batch and no hasher to take
    /// it, the reader's next `take` hashes that batch itself: its outcome is
    /// sent on, and the block it frees is the one the reader gets. (Without
    /// the helper this `take` would wait forever.)
    #[test]
    fn a_waiting_reader_hashes_a_queued_batch() {
        let plan = Plan {
            mode: Mode::Threaded,
            chunk: Size::kib(64),
            readahead: Size::bytes(4096).unwrap(),
            pool: 1,
            jobs: 1,
        };
        let stats: &'static Stats = Box::leak(Box::default());
        let (work, queued) = work_queues::<usize>(&plan);
        let (done, finished) = bounded::<Finished<usize, ()>>(4);
        let may = std::sync::Arc::new(AtomicBool::new(true));
        let helper = Helper::new(queued.batches.clone(), done, plan.chunk.get(), stats, may);
        let mut pool = Pool::new(&plan).helped_by(Box::new(helper));
        let mut batch = Batch::new(pool.take(stats).ok().unwrap());
        batch.block[..3].copy_from_slice(b"abc");
        batch.len = 3;
        batch.items.push(Packed {
            idx: 0,
            task: Task {
                input: Input::Path("abc".into()),
                algos: Algorithms::one(Algorithm::Md5),
                context: 7,
            },
            range: 0..3,
        });
        let ptr = batch.block.as_ptr() as usize;
        assert!(work.hand(Work::Batch(batch), &AtomicBool::new(false)));
        // on a thread of its own, so that a wait that never ends fails the test
        let taker = std::thread::spawn(move || pool.take(stats).ok().map(|b| b.as_ptr() as usize));
        let group = finished
            .recv_timeout(std::time::Duration::from_secs(10))
            .expect("the reader hashed the queued batch");
        assert_eq!(
            taker.join().unwrap(),
            Some(ptr),
            "the batch's block came back"
        );
        let [(0, Outcome::Hashed(task, Ok(hashed)))] = &group[..] else {
            panic!("one hashed outcome, got {} items", group.len());
        };
        assert_eq!(task.context, 7);
        let want = crate::algo::hash_bytes(Algorithm::Md5, b"abc");
        assert_eq!(hashed.digests, [want]);
        assert!(
            stats
                .report("t", Default::default(), true, false, false)
                .contains("stats: batches the reader hashed while it waited: 1\n")
        );
    }

    /// One small file in TIME_EVERY is timed for the storage observer.
    #[test]
    fn one_small_file_in_time_every_is_timed() {
        let mut l = Latency::default();
        let timed = (0..8).filter(|_| l.times()).count();
        assert_eq!(timed, 8 / TIME_EVERY as usize);
    }

    /// Returns at most `step` bytes per read, from `data`.
    struct Short<'a> {
        data: &'a [u8],
        step: usize,
    }

    impl Read for Short<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = buf.len().min(self.step).min(self.data.len());
            buf[..n].copy_from_slice(&self.data[..n]);
            self.data = &self.data[n..];
            Ok(n)
        }
    }

    /// A known length saves the read that returns 0, but only when the
    /// bytes read reach it: a short read in the middle does not end the
    /// input, and an unknown (or wrong) length reads to the 0.
    #[test]
    fn a_known_length_saves_the_last_read_and_nothing_else() {
        let data: Vec<u8> = (0..100u8).collect();
        let mut buf = vec![0u8; 1000];
        for (len, step, want_calls) in [
            (Some(100), 1000, 1), // one read returns all: done
            (Some(100), 30, 4),   // short reads mid-file go on
            (None, 1000, 2),      // unknown length: up to the 0
            (Some(50), 1000, 2),  // it grew: read on to the 0
            (Some(200), 30, 5),   // it shrank: read on to the 0
        ] {
            let stats = Stats::default();
            let mut src = Short { data: &data, step };
            let (n, ended) = fill(&mut src, &mut buf, len, usize::MAX, &stats).unwrap();
            assert_eq!((n, ended), (100, true), "{len:?} {step}");
            assert_eq!(&buf[..n], &data[..], "{len:?} {step}");
            assert_eq!(stats.read_calls(), want_calls, "{len:?} {step}");
        }
    }
}
