//! Several ranges of one regular file in flight at once, for storage that
//! makes every request wait (a network or FUSE file system, a cloud
//! mount): one reader keeps one request in flight, and a 4 MiB read is
//! split by the kernel into requests sent one after another. Here a crew
//! of threads reads the next ranges of [`RANGE`] bytes at their offsets
//! (`pread`) into the blocks the caller lends, and the blocks are handed
//! back in file order as their ranges arrive.
//!
//! How many ranges are in flight is measured, not set: the crew starts at
//! [`START`] or twice what the slow read had in flight, and doubles while
//! a doubling brings at least a fifth more bytes a second (at most
//! [`MAX_RANGES`], and no more than the caller's blocks hold: `--pool` ×
//! `--readahead` still bounds memory). Rounds in which the hashing, not the
//! storage, set the pace (no block free for the next range) are not
//! judged. This is what fio's `iodepth` and bfs's I/O queue set by hand,
//! with the depth found by the run. It starts only where a read waited
//! ([`waits`]) and the next byte is not in the page cache ([`worth`]), so
//! the page cache and local disks, whose kernel read-ahead already keeps
//! requests in flight, do not see it.
//!
//! The same crew shares the copy of a big file in the page cache
//! ([`Crew::Copiers`]): a read out of the page cache is a copy that runs
//! at one core's speed, slower than the fastest hashes (xxHash, the CRCs);
//! a few readers, each copying a whole block at its offset, feed one
//! hashing thread faster than one reader can. Their reads are made only
//! of cached bytes (`sys::read_exact_cached_at`): the first that would
//! wait on the storage ends the crew ([`Ended::Uncached`]), and the caller
//! reads on from there with one reader, as it reads a disk.
//!
//! Reading stops at the length the file had when opened, or at the first
//! range that comes up short; the caller then reads on from there until
//! the file's end is proven (`Ranged::ends_here`: the size at open may
//! have been stale, or the file changed while read).

use std::collections::VecDeque;
use std::fs::File;
use std::io;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, Sender, unbounded};

use super::Buffer;
use crate::stats::Stats;

/// Bytes per range: NFS's usual `rsize` (one request), a few FUSE requests
/// (128 KiB each unless the server raises `max_pages`); more ranges in
/// flight beat bigger ones within the same memory (docs/BENCHMARKS.md,
/// "Several ranges of one file at once").
pub(crate) const RANGE: usize = 1 << 20;

/// The fewest ranges in flight a crew starts with: where it starts is
/// where the search usually ends, and each round below the best depth is
/// lost time (how it was chosen: docs/BENCHMARKS.md, "Several ranges of one
/// file at once").
const START: usize = 8;

/// The most ranges in flight (threads in the crew).
pub(crate) const MAX_RANGES: usize = 16;

/// A read slower than this (bytes a second) waited on the storage: a copy
/// from the page cache runs at several GB/s, a local NVMe drive streams
/// (with the kernel's read-ahead) at 1.5 GB/s or more.
const SLOW_BYTES_PER_SEC: f64 = 1e9;

/// A doubling of the ranges in flight is kept when it brings this much
/// more bytes a second.
const GAIN: f64 = 1.2;

/// Did a read of `n` bytes that took `took` wait on the storage (or on a
/// busy machine: see [`worth`]), so that more requests in flight may bring
/// more bytes a second? (`--stats` counts such reads.)
pub(crate) fn waits(n: usize, took: Duration) -> bool {
    took >= super::SLOW_READ && (n as f64) < SLOW_BYTES_PER_SEC * took.as_secs_f64()
}

/// Should reading `file` go on in ranges at `at`, after a read of `n` bytes
/// that took `took`, with `left` bytes still to read? When the read waited
/// on the storage, at least two ranges are left, and the next byte is not
/// in the page cache (a read slowed by a busy machine, not the storage,
/// finds it there).
pub(crate) fn worth(file: &File, at: u64, (n, took): (usize, Duration), left: u64) -> bool {
    left >= 2 * RANGE as u64 && waits(n, took) && cached(file, at) != Some(true)
}

/// Is the byte of `file` at `at` in the page cache? A read that must not
/// wait for the storage says (`RWF_NOWAIT`); `None` where it cannot be
/// asked (another OS, an old kernel, an emulator that lacks the flag).
fn cached(file: &File, at: u64) -> Option<bool> {
    crate::sys::cached(file, at)
}

/// An input whose ranges may be read at once: a regular file of its own
/// (not standard input, whose position others share).
pub(crate) trait Ranged {
    /// The file, the offset its bytes start at, and how many there are;
    /// `None` for anything else.
    fn ranged(&self) -> Option<(&File, u64, u64)>;
    /// The device its reads wait on, for the storage observer (None: not
    /// a regular file of bytes, or not known).
    fn device(&self) -> Option<u64>;
    /// Is this the file's end, every byte before it read through this
    /// reader, and did the file not change? False: read on (the end of
    /// every route: `Opened::ends_here`).
    fn ends_here(&self) -> io::Result<bool>;
    /// Go on reading at `offset`, the bytes before it read in ranges.
    fn skip_to(&mut self, offset: u64) -> io::Result<()>;
    /// Is the file longer now than its length at open, which may have been
    /// stale? Then `ranged` gives the length it has now.
    fn grown(&mut self) -> io::Result<bool>;
}

impl Ranged for crate::input::Opened {
    fn ranged(&self) -> Option<(&File, u64, u64)> {
        match self.kind() {
            crate::input::Kind::Regular { .. } if !self.is_shared() => {
                let (start, len) = self.span().ok()?;
                Some((self.file(), start, len))
            }
            _ => None,
        }
    }

    fn device(&self) -> Option<u64> {
        crate::input::Opened::device(self)
    }

    fn ends_here(&self) -> io::Result<bool> {
        crate::input::Opened::ends_here(self)
    }

    fn skip_to(&mut self, offset: u64) -> io::Result<()> {
        crate::input::Opened::skip_to(self, offset)
    }

    fn grown(&mut self) -> io::Result<bool> {
        crate::input::Opened::grown(self)
    }
}

/// Where the blocks ranges are read into come from and go to.
pub(crate) trait Lender {
    /// A free block now, if one can be had without waiting.
    fn try_take(&mut self) -> Option<Buffer>;
    /// A free block, waiting for one if need be (called only while the
    /// crew holds no block: nothing can be waiting on them); `None` when
    /// there will be none (the run is being torn down, or no memory).
    fn take(&mut self) -> Option<Buffer>;
    /// The next `n` bytes of the file, in order, in `block`; false to stop
    /// (the run is being torn down).
    fn deliver(&mut self, block: Buffer, n: usize) -> bool;
    /// A block not delivered (reading stopped before it was full).
    fn give_back(&mut self, block: Buffer);
}

/// Who reads a file's ranges, and how many at once.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Crew {
    /// Storage whose every request waits: ranges of [`RANGE`] bytes, as
    /// many in flight as pays, searched from what the read that waited
    /// brought (its bytes, and bytes a second).
    Measured((usize, f64)),
    /// A file in the page cache: this many readers at once, each copying a
    /// whole block, only of bytes the page cache holds.
    Copiers(usize),
}

/// How a crew's reads are made.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Reading {
    /// Read calls that wait on the storage if they must.
    Waiting,
    /// Reads of cached bytes only: one that would wait fails with
    /// `WouldBlock` (which ends the crew: [`Ended::Uncached`]).
    CachedOnly,
}

impl Crew {
    /// How this crew reads `file` from `at`: `None` when copiers are not
    /// for it (the byte at `at` is not in the page cache, or that cannot
    /// be told of a file system not held in memory).
    fn reading(self, file: &File, at: u64) -> Option<Reading> {
        match self {
            Crew::Measured(_) => Some(Reading::Waiting),
            Crew::Copiers(_) => match cached(file, at) {
                Some(true) => Some(Reading::CachedOnly),
                Some(false) => None,
                // (tmpfs cannot be asked; its every byte is in memory)
                None => crate::sys::in_memory(file).then_some(Reading::Waiting),
            },
        }
    }
}

/// How reading a file's ranges ended.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Ended {
    /// Every byte up to this offset was delivered: the file's length at
    /// open, or less where a range came up short (the file is shorter).
    Done(u64),
    /// Copiers only: every byte up to this offset was delivered, and the
    /// next is not in the page cache (or reading it would have waited):
    /// read on from there with one reader.
    Uncached(u64),
    /// The lender said stop, or had no block.
    Stopped,
}

/// A block in flight: its ranges are out with the crew.
struct Flight {
    block: Buffer,
    /// The bytes of the file it will hold.
    len: usize,
    /// How many of those are asked for so far.
    issued: usize,
    /// Ranges not back yet.
    pending: usize,
    /// The first error of its ranges.
    failed: Option<io::Error>,
}

impl Flight {
    /// Are all its ranges asked for and back?
    fn complete(&self) -> bool {
        self.pending == 0 && self.issued == self.len
    }
}

/// One range for the crew: read `len` bytes of the file at `at` into `ptr`.
struct Job {
    flight: u64,
    at: u64,
    ptr: *mut u8,
    len: usize,
}

// SAFETY: the pointer is into a block the reading thread keeps alive and
// does not touch until this job's result is back (see `read`).
unsafe impl Send for Job {}

/// A range read: its flight, its length, its outcome, how long it took.
type Done = (u64, usize, io::Result<()>, Duration);

/// The depth search: ranges in flight now, and whether to try more.
struct Depth {
    now: usize,
    max: usize,
    /// Bytes a second at the depth before (the single reader's at first).
    before: f64,
    settled: bool,
    /// Since when, and how many bytes arrived, in this round of measure.
    since: Instant,
    bytes: u64,
    /// A range could not be asked for in this round for want of a block:
    /// the hashing, not the storage, set the pace.
    starved: bool,
}

impl Depth {
    /// The search after a read of `n` bytes at `before` bytes a second:
    /// from twice the bytes that read had in flight (the kernel splits a
    /// big read into requests, some of them at once), in ranges, and at
    /// least [`START`].
    fn new(max: usize, (n, before): (usize, f64)) -> Depth {
        let now = (2 * n).div_ceil(RANGE).max(START).min(max.max(1));
        Depth {
            now,
            max,
            before,
            settled: now >= max,
            since: Instant::now(),
            bytes: 0,
            starved: false,
        }
    }

    /// The depth of `crew`: searched on slow storage, as many ranges as
    /// copiers in the page cache (where more in flight wait for a core,
    /// not for the storage).
    fn of(crew: Crew) -> Depth {
        match crew {
            Crew::Measured(seen) => Depth::new(MAX_RANGES, seen),
            Crew::Copiers(n) => {
                let n = n.clamp(1, MAX_RANGES);
                Depth {
                    settled: true,
                    ..Depth::new(n, (0, 0.0))
                }
            }
        }
    }

    /// `n` more bytes arrived: after a round at this depth (as many ranges
    /// as are in flight) that the storage set the pace of, double it if it
    /// paid, else stay. (Never
    /// down: when the hashing sets the pace, fewer in flight would make the
    /// storage set it again.)
    fn arrived(&mut self, n: usize) {
        self.bytes += n as u64;
        if self.settled || self.bytes < (self.now * RANGE) as u64 {
            return;
        }
        let rate = self.bytes as f64 / self.since.elapsed().as_secs_f64().max(1e-9);
        if !self.starved {
            if rate >= GAIN * self.before {
                self.before = rate;
                self.now = (self.now * 2).min(self.max);
                self.settled = self.now == self.max;
            } else {
                self.settled = true;
            }
        }
        self.since = Instant::now();
        self.bytes = 0;
        self.starved = false;
    }
}

/// Read `file` from `at` to `end` (its length at open) into blocks from
/// `lender`, several ranges at once by `crew`, delivering them in order.
/// A read error, or the end of the file before `end` (a block with a range
/// that came up short is not delivered: [`Ended::Done`] at its start), is
/// returned once every block before it was delivered, and so is, for
/// copiers, a byte not in the page cache ([`Ended::Uncached`], at once if
/// it is the first); blocks not delivered go back to the lender.
pub(crate) fn read(
    file: &File,
    at: u64,
    end: u64,
    crew: Crew,
    lender: &mut dyn Lender,
    stats: &Stats,
) -> io::Result<Ended> {
    let Some(reading) = crew.reading(file, at) else {
        return Ok(Ended::Uncached(at));
    };
    let copiers = matches!(crew, Crew::Copiers(_));
    let stop = AtomicBool::new(false);
    let serving = Serving {
        file,
        reading,
        stop: &stop,
    };
    let mut flights = Flights::new(at, end, copiers);
    let mut depth = Depth::of(crew);
    if copiers {
        stats.add_copied_file(depth.now);
    }
    // (the blocks outlive the crew, which writes into them: see `Job`)
    let ended = std::thread::scope(|s| fly(s, serving, &mut flights, &mut depth, lender, stats));
    for f in flights.queue {
        lender.give_back(f.block);
    }
    ended
}

/// [`read`]'s crew at work in `s`: ranges asked for while fewer than the
/// depth are out, blocks handed on as they complete, until it ends; then
/// every range out waited for (their blocks are written until then).
fn fly<'scope>(
    s: &'scope std::thread::Scope<'scope, '_>,
    serving: Serving<'scope>,
    flights: &mut Flights,
    depth: &mut Depth,
    lender: &mut dyn Lender,
    stats: &Stats,
) -> io::Result<Ended> {
    let (jobs, job_rx) = unbounded::<Job>();
    let (done_tx, done) = unbounded::<Done>();
    let mut crew = 0;
    let ask =
        |flights: &mut Flights, lender: &mut dyn Lender, depth: &mut Depth, crew: &mut usize| {
            while flights.out < depth.now && flights.next < flights.end {
                let Some(job) = flights.next_range(lender) else {
                    depth.starved = true;
                    return;
                };
                if *crew < depth.now
                    && crate::read::spawn_thread(s, "range", {
                        let (job_rx, done_tx) = (job_rx.clone(), done_tx.clone());
                        move || serve(serving, &job_rx, &done_tx)
                    })
                    .is_ok()
                {
                    *crew += 1;
                }
                // (no thread could be started: this one reads it, below)
                let _ = jobs.send(job);
                if !flights.copiers {
                    stats.note_ranges(flights.out);
                }
            }
        };
    let ended = loop {
        // (copiers: the next block asked for before the one copied is
        // hashed, which would leave its copier idle meanwhile)
        if flights.copiers {
            ask(flights, &mut *lender, depth, &mut crew);
        }
        if let Some(ended) = flights.hand_on(&mut *lender) {
            break ended;
        }
        ask(flights, &mut *lender, depth, &mut crew);
        if flights.out == 0 {
            // no block to read into, and none out: the lender said stop
            break Ok(Ended::Stopped);
        }
        let got = if crew == 0 {
            job_rx.try_recv().ok().map(|job| serve_one(serving, job))
        } else {
            done.recv().ok()
        };
        let Some((id, len, r, took)) = got else {
            break Err(io::Error::other("range readers gone"));
        };
        stats.add_read_call();
        if !flights.copiers {
            stats.add_range(took);
        }
        if flights.returned(id, r) {
            depth.arrived(len);
        }
    };
    // let the crew go, and wait for every range out
    serving.stop.store(true, Ordering::Relaxed);
    drop(jobs);
    for _ in 0..flights.out {
        let _ = done.recv();
    }
    ended
}

/// The blocks of one [`read`] in flight, in file order, and where asking
/// for ranges stands.
struct Flights {
    queue: VecDeque<Flight>,
    /// The id of `queue[0]` (a flight's id is its place in the read).
    first: u64,
    /// The offset of `queue[0]`'s first byte: every byte before it was
    /// delivered.
    delivered: u64,
    /// The next byte of the file to ask for, and the end.
    next: u64,
    end: u64,
    /// Ranges out with the crew.
    out: usize,
    /// The most bytes a range asks for.
    range: usize,
    /// Is the crew copiers (a range that would wait ends it)?
    copiers: bool,
}

impl Flights {
    /// None yet, from `at` to `end`; for `copiers` or not.
    fn new(at: u64, end: u64, copiers: bool) -> Flights {
        Flights {
            queue: VecDeque::new(),
            first: 0,
            delivered: at,
            next: at,
            end,
            out: 0,
            // (a copier copies a whole block: one read call, one hand-over)
            range: if copiers { usize::MAX } else { RANGE },
            copiers,
        }
    }

    /// Hand on every block whose ranges are all back, in order: how the
    /// read ends, when it ends here (an error, the lender's stop, or every
    /// byte delivered).
    fn hand_on(&mut self, lender: &mut dyn Lender) -> Option<io::Result<Ended>> {
        while self.queue.front().is_some_and(Flight::complete) {
            let f = self.queue.pop_front()?;
            self.first += 1;
            if let Some(e) = f.failed {
                lender.give_back(f.block);
                return Some(match e.kind() {
                    io::ErrorKind::UnexpectedEof => Ok(Ended::Done(self.delivered)),
                    io::ErrorKind::WouldBlock if self.copiers => {
                        Ok(Ended::Uncached(self.delivered))
                    }
                    _ => Err(e),
                });
            }
            if !lender.deliver(f.block, f.len) {
                return Some(Ok(Ended::Stopped));
            }
            self.delivered += f.len as u64;
        }
        (self.next >= self.end && self.queue.is_empty()).then_some(Ok(Ended::Done(self.end)))
    }

    /// The next range to ask for, into the last block (or a new one from
    /// `lender`, waiting for it only when none is in flight); `None` when
    /// no block is free.
    fn next_range(&mut self, lender: &mut dyn Lender) -> Option<Job> {
        if self.queue.back().is_none_or(|f| f.issued >= f.len) {
            let block = if self.queue.is_empty() {
                lender.take()
            } else {
                lender.try_take()
            }?;
            // (the file system pins the pages of each request: one huge
            // page pinned costs what one small one does)
            block.advise_huge();
            let len =
                usize::try_from(self.end - self.next).map_or(block.len(), |l| l.min(block.len()));
            self.queue.push_back(Flight {
                block,
                len,
                issued: 0,
                pending: 0,
                failed: None,
            });
        }
        let flight = self.first + self.queue.len() as u64 - 1;
        // (never `None`: a flight is in the queue now)
        let f = self.queue.back_mut()?;
        let len = self.range.min(f.len - f.issued);
        // SAFETY: `issued + len <= f.len <= block.len()`: the range is
        // inside the block, disjoint from every other range.
        let ptr = unsafe { f.block.as_mut_ptr().add(f.issued) };
        let job = Job {
            flight,
            at: self.next,
            ptr,
            len,
        };
        f.issued += len;
        f.pending += 1;
        self.next += len as u64;
        self.out += 1;
        Some(job)
    }

    /// A range of flight `id` is back with `r`: true if it was read.
    fn returned(&mut self, id: u64, r: io::Result<()>) -> bool {
        self.out -= 1;
        let f = &mut self.queue[(id - self.first) as usize];
        f.pending -= 1;
        match r {
            Ok(()) => true,
            Err(e) => {
                f.failed.get_or_insert(e);
                false
            }
        }
    }
}

/// What a crew thread reads, how, and whether reading was stopped.
#[derive(Clone, Copy)]
struct Serving<'a> {
    file: &'a File,
    reading: Reading,
    stop: &'a AtomicBool,
}

/// A crew thread: read each range asked for, until the jobs end.
fn serve(serving: Serving<'_>, jobs: &Receiver<Job>, done: &Sender<Done>) {
    for job in jobs {
        if done.send(serve_one(serving, job)).is_err() {
            return;
        }
    }
}

/// Read one range (unless reading was stopped).
fn serve_one(serving: Serving<'_>, job: Job) -> Done {
    let t = Instant::now();
    let r = if serving.stop.load(Ordering::Relaxed) {
        Err(io::Error::other("stopped"))
    } else {
        // SAFETY: the block behind `ptr` stays alive and untouched by any
        // other thread until this job's result is received, and `len`
        // bytes from `ptr` are this job's alone.
        let buf = unsafe { std::slice::from_raw_parts_mut(job.ptr, job.len) };
        match serving.reading {
            Reading::Waiting => read_exact_at(serving.file, buf, job.at),
            Reading::CachedOnly => {
                match crate::sys::read_exact_cached_at(serving.file, buf, job.at) {
                    Ok(Some(true)) => Ok(()),
                    // (would wait; or cannot tell now, though it could at
                    // the start: as if it would wait, one reader reads on)
                    Ok(Some(false) | None) => Err(io::ErrorKind::WouldBlock.into()),
                    Err(e) => Err(e),
                }
            }
        }
    };
    (job.flight, job.len, r, t.elapsed())
}

/// `buf.len()` bytes of `file` at `at` (`UnexpectedEof`: the file ends
/// before them).
fn read_exact_at(file: &File, buf: &mut [u8], at: u64) -> io::Result<()> {
    crate::sys::read_exact_at(file, buf, at)
}

/// A stream read in order only, for tests and benches of the reading paths.
#[cfg(any(test, feature = "internals"))]
pub(crate) struct InOrder<R>(pub(crate) R);

#[cfg(any(test, feature = "internals"))]
impl<R: io::Read> io::Read for InOrder<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.0.read(buf)
    }
}

#[cfg(any(test, feature = "internals"))]
impl<R> Ranged for InOrder<R> {
    fn ranged(&self) -> Option<(&File, u64, u64)> {
        None
    }

    fn device(&self) -> Option<u64> {
        None
    }

    fn ends_here(&self) -> io::Result<bool> {
        Ok(true)
    }

    fn skip_to(&mut self, _offset: u64) -> io::Result<()> {
        Ok(())
    }

    fn grown(&mut self) -> io::Result<bool> {
        Ok(false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Lends at most `max` blocks of `size` bytes and keeps what is
    /// delivered, in order.
    struct Keep {
        size: usize,
        made: usize,
        max: usize,
        free: Vec<Buffer>,
        got: Vec<u8>,
    }

    impl Lender for Keep {
        fn try_take(&mut self) -> Option<Buffer> {
            self.free.pop().or_else(|| {
                (self.made < self.max).then(|| {
                    self.made += 1;
                    Buffer::from(vec![0; self.size])
                })
            })
        }
        fn take(&mut self) -> Option<Buffer> {
            self.try_take()
        }
        fn deliver(&mut self, block: Buffer, n: usize) -> bool {
            self.got.extend_from_slice(&block[..n]);
            self.free.push(block);
            true
        }
        fn give_back(&mut self, block: Buffer) {
            self.free.push(block);
        }
    }

    fn file_of(data: &[u8]) -> (tempfile::NamedTempFile, File) {
        let mut f = tempfile::NamedTempFile::new().unwrap();
        std::io::Write::write_all(&mut f, data).unwrap();
        let file = f.reopen().unwrap();
        (f, file)
    }

    /// Every byte from the offset to the end arrives once, in order,
    /// whatever the block size (a multiple of a range or not, smaller than
    /// one) and however few blocks there are; the lender gets every block
    /// back.
    #[test]
    fn ranges_arrive_in_order_within_the_blocks_lent() {
        let data: Vec<u8> = (0..(5 * RANGE + 12345))
            .map(|i| (i * 31 % 251) as u8)
            .collect();
        let (_dir, file) = file_of(&data);
        for (size, max, at) in [
            (4 * RANGE, 4, 0),
            (3 * RANGE + 7, 2, 100),
            (RANGE / 3, 5, RANGE as u64 + 1),
            (2 * RANGE, 1, 0),
        ] {
            let mut keep = Keep {
                size,
                made: 0,
                max,
                free: Vec::new(),
                got: Vec::new(),
            };
            let stats = Stats::default();
            let end = data.len() as u64;
            let r = read(
                &file,
                at,
                end,
                Crew::Measured((4 << 20, 1e8)),
                &mut keep,
                &stats,
            )
            .unwrap();
            assert_eq!(r, Ended::Done(end), "{size} {max}");
            assert!(keep.got == data[at as usize..], "{size} {max} {at}");
            assert!(keep.made <= max);
            assert_eq!(keep.free.len(), keep.made, "every block back");
        }
    }

    /// A file shorter than the length it had at open: the blocks before
    /// the one that comes up short are delivered, and reading ends at its
    /// start (the caller reads on from there, and judges the end).
    #[test]
    fn a_file_shorter_than_its_length_at_open_ends_early() {
        let data = vec![7u8; 3 * RANGE];
        let (_dir, file) = file_of(&data);
        let mut keep = Keep {
            size: RANGE,
            made: 0,
            max: 3,
            free: Vec::new(),
            got: Vec::new(),
        };
        let end = 5 * RANGE as u64;
        let r = read(
            &file,
            0,
            end,
            Crew::Measured((RANGE, 1e8)),
            &mut keep,
            &Stats::default(),
        )
        .unwrap();
        assert_eq!(r, Ended::Done(3 * RANGE as u64));
        assert_eq!(keep.got, data);
        assert_eq!(keep.free.len(), keep.made, "every block back");
    }

    /// Copiers copy a file in the page cache whole block by whole block
    /// (one read call each), every byte once and in order, within the
    /// blocks lent; where the page cache cannot be asked of the file
    /// system, they stop before reading (one reader reads it; a file out
    /// of the page cache: tests/copiers.rs).
    #[cfg(target_os = "linux")]
    #[test]
    fn copiers_copy_what_is_cached_and_leave_the_rest() {
        let data: Vec<u8> = (0..(5 * RANGE + 999))
            .map(|i| (i * 7 % 253) as u8)
            .collect();
        let (_f, file) = file_of(&data);
        let keep = || Keep {
            size: 2 * RANGE,
            made: 0,
            max: 3,
            free: Vec::new(),
            got: Vec::new(),
        };
        let end = data.len() as u64;
        let (mut k, stats) = (keep(), Stats::default());
        let told = cached(&file, 0).is_some() || crate::sys::in_memory(&file);
        match read(&file, 100, end, Crew::Copiers(2), &mut k, &stats).unwrap() {
            Ended::Done(to) => {
                assert_eq!(to, end);
                assert!(k.got == data[100..]);
                assert_eq!(stats.read_calls(), 3, "a read call a block");
                assert_eq!(k.free.len(), k.made, "every block back");
            }
            ended => {
                assert!(!told, "{ended:?}");
                assert_eq!(ended, Ended::Uncached(100));
            }
        }
    }

    /// The depth starts from twice what the slow read had in flight,
    /// doubles while that brings a fifth more bytes a second, stays when
    /// it does not, never goes down, and judges no round the hashing held
    /// back.
    #[test]
    fn the_depth_doubles_while_it_pays() {
        assert_eq!(Depth::new(64, (8 * RANGE, 1.0)).now, 16);
        assert_eq!(Depth::new(64, (64 << 10, 1.0)).now, START);
        assert_eq!(Depth::new(4, (64 * RANGE, 1.0)).now, 4);
        // "before" so low that any rate pays: it doubles up to the most
        let mut d = Depth::new(64, (RANGE, 1e-9));
        assert_eq!(d.now, 8);
        let round = |d: &mut Depth| {
            for _ in 0..d.now {
                d.arrived(RANGE);
            }
        };
        round(&mut d);
        assert_eq!((d.now, d.settled), (16, false));
        // a round held back by the hashing is not judged
        d.starved = true;
        d.before = f64::MAX;
        round(&mut d);
        assert_eq!((d.now, d.settled), (16, false));
        // a round that does not pay: stay, and stop searching
        round(&mut d);
        assert_eq!((d.now, d.settled), (16, true));
        round(&mut d);
        assert_eq!(d.now, 16);
        // at the most: no search
        assert!(Depth::new(16, (16 * RANGE, 1.0)).settled);
    }

    #[test]
    fn only_slow_reads_with_ranges_left_are_worth_it() {
        let ms = Duration::from_millis;
        // 4 MiB in 8 ms (500 MB/s) waited; in 1 ms (4 GB/s) it did not
        assert!(waits(4 << 20, ms(8)));
        assert!(!waits(4 << 20, ms(1)));
        // a fast small read
        assert!(!waits(64 << 10, Duration::from_micros(20)));
        // a file just written is in the page cache: a slow read of it was
        // the machine's, not the storage's; and too little left
        // (where the kernel cannot be asked, as under qemu-user, a slow
        // read is taken at its word)
        let (_f, file) = file_of(&vec![1u8; 4 * RANGE]);
        let asked = cached(&file, 0);
        assert_ne!(asked, Some(false), "a file just written is cached");
        assert_eq!(worth(&file, 0, (4 << 20, ms(8)), 8 << 20), asked.is_none());
        assert!(!worth(&file, 0, (4 << 20, ms(8)), RANGE as u64));
    }
}
