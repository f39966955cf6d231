//! The per-input read strategies that run on the hashing thread itself:
//! `--chunk` reads into one reused buffer ([`hash_chunks`], the `sync` mode
//! and mmap's fallback), and the naive byte iterator ([`hash_bytewise`]).

use std::io::{self, BufReader, Read};

use crossbeam_channel::bounded;

use super::Buffer;
use super::fanout::{SharedBuf, hash_fanned};
use super::ranges::{self, Crew, Ended, Lender, Ranged};
use crate::algo::{Algorithms, Digest, Hashers};
use crate::input::{Kind, read_retry};
use crate::stats::Stats;
use crate::storage::{Request, Timer, observer};

/// The read buffer for a file that says it is empty: a /proc file says 0
/// bytes whatever it holds.
const EMPTY_FILE_BUF: usize = 64 * 1024;

/// The smallest read buffer for a file that gives its length: a page.
const MIN_BUF: usize = 4096;

/// How many bytes a `--chunk` read buffer needs for an input of `kind`: the
/// chunk, but never more than a regular file can fill, its length and the
/// byte that shows its end (a 6-byte file read with `--chunk 1G` makes the
/// same read calls with a 4 KiB buffer). A zeroed buffer costs its size in
/// writes, a tenth of a one-file run at 64 KiB (docs/BENCHMARKS.md, "One
/// call per file").
pub(crate) fn buffer_len(chunk: usize, kind: Kind) -> usize {
    match kind {
        Kind::Regular { len: 0 } => chunk.min(EMPTY_FILE_BUF),
        Kind::Regular { len } => {
            let fill = usize::try_from(len.saturating_add(1)).unwrap_or(usize::MAX);
            chunk.min(fill.max(MIN_BUF))
        }
        Kind::Stream => chunk,
    }
}

/// `buf` grown to `want` bytes, or as close as memory allows (halving down
/// to 4 KiB: under a low `ulimit -v` reads get smaller, the run goes on).
pub(crate) fn sized(buf: &mut Vec<u8>, want: usize) -> io::Result<&mut [u8]> {
    let mut want = want.max(1);
    while buf.len() < want {
        if let Some(fresh) = super::zeroed(want) {
            *buf = fresh;
        } else if want > 4096 {
            want /= 2;
        } else {
            return Err(io::Error::from(io::ErrorKind::OutOfMemory));
        }
    }
    Ok(&mut buf[..want])
}

/// Read into `buf` and hand what each call returned to `update`, until end
/// of file: one read call of `buf.len()` bytes per update.
pub(crate) fn read_loop(
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

/// `sync`: one read call of `buf.len()` bytes, then one hash update of what
/// it returned, until end of file.
pub(crate) fn hash_chunks(
    src: impl Read,
    hasher: &mut Hashers,
    buf: &mut [u8],
    stats: &Stats,
) -> io::Result<()> {
    read_loop(src, buf, stats, |piece| hasher.update(piece))
}

/// The threaded mode's reads on one thread (an algorithm faster than a
/// copy, a file no bigger than a pool block, a far reader's small file):
/// `--chunk` reads, whose bytes are still in the CPU's cache when hashed,
/// until a read waits on the storage ([`super::SLOW_READ`]); then reads of
/// `block` bytes, which a network or FUSE file system answers with many
/// requests in flight where a `--chunk` read is one round trip, and, for a
/// regular file with ranges left to read, ranges read several at once
/// ([`ranges`], into at most `pool` buffers of `block` bytes), then reads
/// from where they ended. With `copiers` (more than one: the route's
/// `Reads::Copiers`), a regular file of two blocks or more is first copied
/// out of the page cache by that many readers at once, into the same
/// buffers, as far as its bytes are cached. A regular file of known length
/// may end when the bytes read reach it with a read that returned less
/// than asked, which saves the read that would return 0 (a round trip, on
/// such storage): its end is then proven as that read would have
/// (`Ranged::ends_here`), or it is read on. Returns the number of bytes
/// hashed.
pub(crate) fn hash_blocks(
    src: &mut (impl Read + Ranged),
    hasher: &mut Hashers,
    buf: &mut Vec<u8>,
    (chunk, block, pool): (usize, usize, usize),
    copiers: usize,
    stats: &Stats,
) -> io::Result<u64> {
    let mut len = chunk;
    let mut total = 0u64;
    // (the reads after the ranges find the end; ranges again only to the
    // length a stale size hid)
    let (mut ranged, mut counted) = (false, false);
    let sizes = (block, pool);
    if copiers > 1
        && src
            .ranged()
            .is_some_and(|(_, _, end)| end >= 2 * block as u64)
    {
        let crew = Crew::Copiers(copiers);
        (total, ranged) = in_ranges(src, hasher, buf, sizes, crew, 0, stats)?;
        if total > 0 {
            len = block;
        }
    }
    // (the file's first read is timed for the storage observer: a far
    // reader's, as the pipeline's reader times a near file's)
    let mut first = (total == 0).then(|| src.device()).flatten();
    loop {
        let piece = sized(buf, len)?;
        let timer = Timer::start();
        let n = read_retry(src, piece)?;
        let took = timer.took();
        if let Some(dev) = first.take() {
            observer().saw(dev, Request::Read, timer.waited());
        }
        stats.add_read_call();
        if ranges::waits(n, took) {
            stats.add_slow_read(took);
        }
        if n == 0 {
            return Ok(total);
        }
        hasher.update(&piece[..n]);
        stats.add_bytes(n);
        total += n as u64;
        let known = src.ranged().map(|(_, _, len)| len);
        if n < piece.len() && known == Some(total) && src.ends_here()? {
            return Ok(total);
        }
        if let Some((file, at, end)) = src.ranged()
            && !ranged
            && ranges::worth(file, at + total, (n, took), end.saturating_sub(total))
        {
            if !std::mem::replace(&mut counted, true) {
                stats.add_ranged_file();
            }
            let crew = Crew::Measured((n, n as f64 / took.as_secs_f64()));
            (total, ranged) = in_ranges(src, hasher, buf, sizes, crew, total, stats)?;
            len = block;
            continue;
        }
        if len < block && took >= super::SLOW_READ {
            // (no larger than what is left of a file of known length, and
            // one byte to see it end)
            let left = known.map_or(u64::MAX, |k| k.saturating_sub(total) + 1);
            len = block
                .min(usize::try_from(left).unwrap_or(usize::MAX))
                .max(len);
        }
    }
}

/// Hash the bytes of `src` from `total` on as `crew` reads them in ranges,
/// into at most `pool` buffers of `block` bytes (on slow storage `buf`
/// the first: it holds a block already). Where the reads go on from: the
/// bytes hashed by then, and whether ranges are done with (the length at
/// open was reached and the file did not grow since; copiers that met a
/// byte not cached leave it to the reads, and to the slow storage's ranges
/// if they wait).
fn in_ranges(
    src: &mut (impl Read + Ranged),
    hasher: &mut Hashers,
    buf: &mut Vec<u8>,
    (block, pool): (usize, usize),
    crew: Crew,
    total: u64,
    stats: &Stats,
) -> io::Result<(u64, bool)> {
    let Some((file, at, end)) = src.ranged() else {
        return Ok((total, false));
    };
    let free = match crew {
        Crew::Measured(_) => vec![Buffer::from(std::mem::take(buf))],
        Crew::Copiers(_) => Vec::new(),
    };
    let mut lender = Hashing {
        hasher,
        stats,
        made: free.len(),
        free,
        max: pool,
        size: block,
    };
    let ended = ranges::read(file, at + total, at + end, crew, &mut lender, stats);
    if buf.is_empty() {
        *buf = lender
            .free
            .pop()
            .and_then(Buffer::into_heap)
            .unwrap_or_default();
    }
    match ended? {
        // (on to the read that proves the end)
        Ended::Done(to) => {
            src.skip_to(to)?;
            Ok((to - at, !src.grown()?))
        }
        Ended::Uncached(to) => {
            src.skip_to(to)?;
            Ok((to - at, false))
        }
        Ended::Stopped => Err(io::ErrorKind::OutOfMemory.into()),
    }
}

/// Ranges read on the hashing thread's behalf: hashed as they come, in at
/// most `max` buffers of `size` bytes.
struct Hashing<'a> {
    hasher: &'a mut Hashers,
    stats: &'a Stats,
    free: Vec<Buffer>,
    made: usize,
    max: usize,
    size: usize,
}

impl Lender for Hashing<'_> {
    fn try_take(&mut self) -> Option<Buffer> {
        if let Some(b) = self.free.pop() {
            return Some(b);
        }
        if self.made >= self.max {
            return None;
        }
        // (a smaller one, if memory is short)
        let b = Buffer::zeroed(self.size).or_else(|| {
            let mut b = Vec::new();
            sized(&mut b, self.size).ok()?;
            Some(Buffer::from(b))
        })?;
        self.made += 1;
        Some(b)
    }

    fn take(&mut self) -> Option<Buffer> {
        // (nothing else gives blocks back: waiting would never end)
        self.try_take()
    }

    fn deliver(&mut self, block: Buffer, n: usize) -> bool {
        self.hasher.update(&block[..n]);
        self.stats.add_bytes(n);
        self.free.push(block);
        true
    }

    fn give_back(&mut self, block: Buffer) {
        self.free.push(block);
    }
}

/// How many bytes of `--chunk` buffers a fanned-out sync read may keep in
/// flight (at least 3 buffers, at most 128): small chunks need many buffers
/// so that a group falling behind does not stop the reader at every read.
const FAN_BYTES: usize = 8 << 20;

/// `sync` with several algorithms on several threads: the same read calls
/// as [`hash_chunks`], each buffer shared by every group and reused once
/// all are done with it (at most [`FAN_BYTES`], or 3 buffers, of `len` bytes).
pub(crate) fn hash_chunks_fanned(
    mut src: impl Read,
    algos: Algorithms,
    threads: usize,
    len: usize,
    stats: &Stats,
) -> io::Result<Vec<Digest>> {
    let buffers = (FAN_BYTES / len.max(1)).clamp(3, 128);
    let (home, back) = bounded::<Buffer>(buffers);
    let mut made = 0;
    hash_fanned(algos, threads, len, buffers, |push| {
        loop {
            let mut buf = match back.try_recv() {
                Ok(b) => b,
                Err(_) if made < buffers => {
                    made += 1;
                    let mut b = Vec::new();
                    sized(&mut b, len)?;
                    Buffer::from(b)
                }
                Err(_) => back
                    .recv()
                    .map_err(|_| io::Error::other("buffer pool gone"))?,
            };
            let n = read_retry(&mut src, &mut buf)?;
            stats.add_read_call();
            if n == 0 {
                return Ok(());
            }
            stats.add_bytes(n);
            push(SharedBuf::new(buf, n, home.clone()));
        }
    })
}

/// `sync` with a no-op consumer: read `buf.len()` bytes per call and throw
/// them away (the no-op consumer of docs/BENCHMARKS.md, Table 2). Returns
/// the number of bytes read.
#[cfg(any(test, feature = "internals"))]
pub fn drain_sync(src: impl Read, buf: &mut [u8], stats: &Stats) -> io::Result<u64> {
    let mut n = 0u64;
    read_loop(src, buf, stats, |piece| {
        n += std::hint::black_box(piece).len() as u64;
    })?;
    Ok(n)
}

/// `bytewise`: the naive way, `BufReader::new(src).bytes()`, one update per
/// byte. Deliberately slow: it is the baseline the other modes are measured
/// against, and the reference implementation in tests.
pub(crate) fn hash_bytewise(src: impl Read, hasher: &mut Hashers, stats: &Stats) -> io::Result<()> {
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
    use crate::algo::{Algorithm, hash_bytes};

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
        let mut hasher = Hashers::new(Algorithms::one(Algorithm::Md5));
        hash_chunks(&data[..], &mut hasher, &mut [0u8; 16], &stats).unwrap();
        assert_eq!(hasher.finalize(), [hash_bytes(Algorithm::Md5, &data)]);
        assert_eq!((stats.read_calls(), stats.bytes()), (64, 1000));
        // several algorithms on two threads: the same read calls
        let stats = Stats::default();
        let two = Algorithms::new([Algorithm::Sha1, Algorithm::Md5]).unwrap();
        let got = hash_chunks_fanned(&data[..], two, 2, 16, &stats).unwrap();
        let want = [Algorithm::Sha1, Algorithm::Md5].map(|a| hash_bytes(a, &data));
        assert_eq!(got, want);
        assert_eq!((stats.read_calls(), stats.bytes()), (64, 1000));
    }

    #[test]
    fn buffers_are_no_bigger_than_a_file_can_fill() {
        let g = 1 << 30;
        assert_eq!(buffer_len(g, Kind::Regular { len: 6 }), MIN_BUF);
        assert_eq!(buffer_len(g, Kind::Regular { len: 0 }), EMPTY_FILE_BUF);
        assert_eq!(buffer_len(g, Kind::Regular { len: 5000 }), 5001);
        assert_eq!(buffer_len(16, Kind::Regular { len: 6 }), 16);
        assert_eq!(buffer_len(g, Kind::Regular { len: 1 << 20 }), (1 << 20) + 1);
        assert_eq!(buffer_len(g, Kind::Stream), g);
        let mut buf = Vec::new();
        assert_eq!(sized(&mut buf, 100).unwrap().len(), 100);
        // a buffer that is big enough is reused, not shrunk
        assert_eq!(sized(&mut buf, 10).unwrap().len(), 10);
        assert_eq!(buf.len(), 100);
    }
}
