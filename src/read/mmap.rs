//! Hashing a regular file from a memory mapping, in place, with no read
//! calls and no copy: the `mmap` mode's route for big files, and the
//! threaded mode's for big BLAKE3 files (which then hash on every core, see
//! [`crate::algo::Hasher::update_wide`]) and big files with several
//! algorithms. [`super::route`] decides when, and on how many threads.
//!
//! Memory stays bounded whatever the file size: the mapping is hashed in
//! windows of [`WINDOW`] bytes, and the pages of each window are released
//! once hashed, while the next is hashed (they stay in the page cache, not
//! in fastsum's RSS); with several algorithms, in pieces released when
//! every group is done.
//!
//! The mapping is a snapshot of the file's length when it was opened. A
//! file that changes while mapped gives no digest: once the last byte is
//! hashed, the file's stamp is compared with the one taken when it was
//! opened ([`Opened::ensure_unchanged`]), and a file truncated under the
//! mapping raises SIGBUS on the missing pages, which `crate::sys::sigbus`
//! catches. Either way the input is reported as `NAME: file changed as we
//! read it`, with no digest, exit status 1, and the run goes on.

use std::fs::File;
use std::io;

use memmap2::{Mmap, MmapOptions};

use std::sync::Arc;

use super::parts;
use super::route::{Reads, Threads, Via};
use crate::algo::{Algorithms, Digest, Hashers};
use crate::input::{Kind, Opened};
use crate::stats::Stats;
use crate::sys::sigbus::{self, Guard};

/// How much of a mapping is hashed before its pages are released: large
/// enough for BLAKE3 to spread over every core, small enough to bound RSS
/// (two windows are resident at most: one hashed, the last one released
/// meanwhile).
const WINDOW: usize = 32 << 20;

/// What each algorithm group is handed at a time when several algorithms
/// hash one mapping.
const PIECE: usize = 1 << 20;

/// How many pieces may wait for a group that fell behind: at most this many
/// MiB of the mapping are resident at once.
const QUEUE: usize = 8;

/// Is every page of `map` in the page cache (`mincore`)? False when it
/// cannot tell.
fn is_cached(map: &Mmap) -> bool {
    let page = sigbus::page_size();
    let back = map.as_ptr() as usize % page;
    crate::sys::resident(map.as_ptr().wrapping_sub(back), map.len() + back, page)
}

/// Map the `len` bytes of `file` at offset `start` (any offset: memmap2
/// aligns the mapping to a page itself), watched for SIGBUS.
fn map_file(file: &File, start: u64, len: u64) -> Option<(Guard, Mmap)> {
    let len = usize::try_from(len).ok().filter(|&l| l > 0)?;
    let claim = sigbus::claim()?;
    // SAFETY: the mapping is read-only and private. Another process may
    // still change the file under us: changed bytes would give a digest of
    // whatever was read, as a read(2) racing a writer would, so the file's
    // stamp is checked once the mapping is hashed (`Mapped::check`), and a
    // shrunk file raises SIGBUS, which `sigbus` turns into a reported error.
    let map = unsafe { MmapOptions::new().offset(start).len(len).map(file) }.ok()?;
    let guard = claim.activate(map.as_ptr(), map.len());
    // Advisory only: hashing is correct whether or not the kernel takes it.
    crate::sys::advise_sequential(&map);
    Some((guard, map))
}

/// A piece of a mapping, shared by the algorithm groups hashing it.
#[derive(Clone)]
struct Piece<'a>(Arc<Span<'a>>);

/// The bytes behind a [`Piece`]; released when the last group drops it.
struct Span<'a> {
    map: &'a Mapped,
    start: usize,
    len: usize,
}

impl AsRef<[u8]> for Piece<'_> {
    fn as_ref(&self) -> &[u8] {
        let s = &self.0;
        &s.map.map[s.start..s.start + s.len]
    }
}

impl Drop for Span<'_> {
    fn drop(&mut self) {
        self.map.release(self.start, self.len);
    }
}

/// A live mapping of a whole file, watched for SIGBUS, and the open file
/// it maps, whose stamp is checked once the mapping is hashed.
pub(crate) struct Mapped {
    // Field order matters: the guard must unregister before the mapping is
    // unmapped (fields drop in declaration order).
    guard: Guard,
    map: Mmap,
    source: Opened,
}

impl Mapped {
    /// Map what reading `opened` would hash: its bytes from where its read
    /// position stands (standard input may stand anywhere in a file), and
    /// move a shared position past them, as reading would. `opened` back,
    /// its position unmoved, when that fails or when `cached_only` and some
    /// of it is not in the page cache (the caller reads the input instead).
    fn of(opened: Opened, cached_only: bool) -> Result<Mapped, Opened> {
        let Kind::Regular { .. } = opened.kind() else {
            return Err(opened);
        };
        // (a mapping would end at a size that may be stale: reads go on)
        if opened.size_may_be_stale() {
            return Err(opened);
        }
        let Ok((start, len)) = opened.span() else {
            return Err(opened);
        };
        let Some((guard, map)) = map_file(opened.file(), start, len) else {
            return Err(opened);
        };
        if cached_only && !is_cached(&map) {
            return Err(opened);
        }
        if opened.consume_to(start + len).is_err() {
            return Err(opened);
        }
        Ok(Mapped {
            guard,
            map,
            source: opened,
        })
    }

    /// The mapping of `opened` when its route maps it and the mapping can
    /// be made; else the reads the route falls back to, and `opened` to
    /// read.
    pub(crate) fn of_route(via: Via, opened: Opened) -> Result<Mapped, (Reads, Opened)> {
        match via {
            Via::Map {
                fallback,
                cached_only,
            } => Mapped::of(opened, cached_only).map_err(|opened| (fallback, opened)),
            Via::Read(reads) => Err((reads, opened)),
        }
    }

    /// How many bytes are mapped.
    pub(crate) fn len(&self) -> u64 {
        self.map.len() as u64
    }

    /// Hash the whole mapping with `algos` on the threads its route gives:
    /// algorithm groups on several threads ([`super::fanout`]), or this
    /// thread (and more where the algorithm can, as BLAKE3). An error if
    /// the file changed while it was hashed.
    pub(crate) fn hash(
        &self,
        algos: Algorithms,
        threads: &Threads,
        stats: &Stats,
    ) -> io::Result<Vec<Digest>> {
        if parts::any_in_lanes(algos, self.len()) {
            // parts side by side, a window's worth of stretches resident;
            // then the other algorithms over the whole mapping
            let release = |start, len| self.release(start, len);
            let src = parts::Source::Mapped(&self.map, &release);
            let (n, len) = (threads.count(), self.len());
            let rest = parts::rest(algos, len);
            let count = (stats, rest.is_none());
            let mut digests = parts::hash(&src, len, algos, (n, WINDOW), count)?;
            if let Some(mut rest) = rest {
                self.hash_into(&mut rest, n, stats)?;
                digests.extend(rest.finalize_at());
            }
            self.check()?;
            return Ok(parts::in_order(digests));
        }
        if let Threads::Fanned(_) = threads {
            let digests = self.hash_fanned(algos, threads.count(), stats)?;
            // (the groups may still have been hashing when the last piece
            // was handed out and checked: check again now they are done)
            self.check()?;
            return Ok(digests);
        }
        let mut hasher = Hashers::new(algos);
        self.hash_into(&mut hasher, threads.count(), stats)?;
        Ok(hasher.finalize())
    }

    /// Hash the whole mapping into `hasher`, window by window, on up to
    /// `threads` threads where the algorithm can. Hashed on several
    /// threads, the window hashed last is released on one of them while
    /// the others start on the next: released between windows, its
    /// `madvise` (a few milliseconds) would run alone with the other cores
    /// idle, a cost b3sum (one update over its whole mapping) does not pay
    /// (docs/BENCHMARKS.md, "One 1 GiB file against b3sum 1.8.7"). The
    /// whole loop goes to the pool once (`on_threads`), not once a window.
    fn hash_into(&self, hasher: &mut Hashers, threads: usize, stats: &Stats) -> io::Result<()> {
        let wide = hasher.is_wide(self.map.len().min(WINDOW), threads);
        let threads = if wide { threads } else { 1 };
        crate::algo::on_threads(threads, |threads| {
            // (the bytes hashed and not yet released)
            let mut behind = 0..0;
            for (i, window) in self.map.chunks(WINDOW).enumerate() {
                let release = || self.release(behind.start, behind.len());
                let mut hash = || hasher.update_wide(window, threads);
                if threads > 1 {
                    rayon_core::join(hash, release);
                } else {
                    release();
                    hash();
                }
                stats.add_bytes(window.len());
                behind = i * WINDOW..i * WINDOW + window.len();
            }
            self.release(behind.start, behind.len());
        });
        self.check()
    }

    /// Hash the mapping with several algorithms on up to `threads` threads,
    /// fed [`PIECE`] bytes at a time; a piece's pages are released when the
    /// last group is done with it.
    fn hash_fanned(
        &self,
        algos: Algorithms,
        threads: usize,
        stats: &Stats,
    ) -> io::Result<Vec<Digest>> {
        super::fanout::hash_fanned(algos, threads, PIECE, QUEUE, |push| {
            for (i, piece) in self.map.chunks(PIECE).enumerate() {
                push(Piece(Arc::new(Span {
                    map: self,
                    start: i * PIECE,
                    len: piece.len(),
                })));
                stats.add_bytes(piece.len());
            }
            self.check()
        })
    }

    /// Drop the pages of `len` bytes at `start` from this mapping (they
    /// stay in the page cache, not in fastsum's RSS); none if `len` is 0.
    fn release(&self, start: usize, len: usize) {
        if len == 0 {
            return;
        }
        // (callers release only bytes that are hashed and never read again)
        crate::sys::release_pages(&self.map, start, len);
    }

    /// The end of hashing a mapping: an error if the file shrank under it
    /// (SIGBUS) or is not as it was when opened ([`Opened::ensure_unchanged`]).
    fn check(&self) -> io::Result<()> {
        if self.guard.faulted() {
            return Err(crate::input::changed());
        }
        self.source.ensure_unchanged()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algo::{Algorithm, hash_bytes};
    use crate::input::Input;
    use std::io::Write;

    fn data(len: usize) -> Vec<u8> {
        (0..len).map(|i| (i * 131 + i / 977) as u8).collect()
    }

    fn map(path: &std::path::Path) -> Mapped {
        let opened = Input::Path(path.into()).open().unwrap();
        Mapped::of(opened, false).expect("a regular file maps")
    }

    fn hash_file(algo: Algorithm, path: &std::path::Path) -> io::Result<crate::algo::Digest> {
        hash_file_on(algo, path, 2)
    }

    fn hash_file_on(
        algo: Algorithm,
        path: &std::path::Path,
        threads: usize,
    ) -> io::Result<crate::algo::Digest> {
        let mut h = Hashers::new(crate::algo::Algorithms::one(algo));
        map(path).hash_into(&mut h, threads, &Stats::default())?;
        Ok(h.finalize().remove(0))
    }

    /// Mapped files of one window or less, of two, and of three (each
    /// released while the next is hashed), on one thread and on several.
    #[test]
    fn mapped_and_read_files_hash_as_bytes() {
        for len in [1, 4096, 1 << 20, WINDOW + 4097, 2 * WINDOW + 1] {
            let bytes = data(len);
            let mut f = tempfile::NamedTempFile::new().unwrap();
            f.write_all(&bytes).unwrap();
            for algo in [Algorithm::Sha256, Algorithm::Blake3, Algorithm::Crc] {
                let want = hash_bytes(algo, &bytes);
                for threads in [1, 2, 3] {
                    let got = hash_file_on(algo, f.path(), threads).unwrap();
                    assert_eq!(got, want, "{algo:?} len {len} on {threads} threads");
                }
            }
        }
    }

    /// Map a file, then truncate it before the hash reads the mapping: the
    /// read past the new end raises SIGBUS, which must become an error
    /// (no digest), and the process must live on. Deterministic: the
    /// truncation happens before any page is touched.
    #[test]
    fn truncated_while_mapped_is_an_error_not_a_crash() {
        for algo in [Algorithm::Md5, Algorithm::Blake3] {
            let f = tempfile::NamedTempFile::new().unwrap();
            std::fs::write(f.path(), data(4 << 20)).unwrap();
            let mapped = map(f.path());
            std::fs::OpenOptions::new()
                .write(true)
                .open(f.path())
                .unwrap()
                .set_len(100_000)
                .unwrap();
            let mut h = Hashers::new(crate::algo::Algorithms::one(algo));
            let e = mapped.hash_into(&mut h, 2, &Stats::default()).unwrap_err();
            let two = crate::algo::Algorithms::new([algo, Algorithm::Sha1]).unwrap();
            let e2 = mapped.hash_fanned(two, 2, &Stats::default()).unwrap_err();
            assert_eq!(e2.to_string(), "file changed as we read it");
            assert_eq!(e.to_string(), "file changed as we read it");
            assert!(mapped.guard.faulted(), "{algo:?}");
            drop(mapped);
            // a mapping made afterwards is watched afresh and reads fine
            let want = hash_bytes(algo, &data(4 << 20)[..100_000]);
            assert_eq!(hash_file(algo, f.path()).unwrap(), want);
        }
    }

    /// A file rewritten in place (same size) after it was opened and
    /// mapped: no page faults, so only its stamp tells, and it does, on
    /// one thread and fanned out. Deterministic: the rewrite happens
    /// before the hash reads the mapping.
    #[test]
    fn rewritten_while_mapped_is_an_error() {
        let f = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(f.path(), data(2 << 20)).unwrap();
        let mapped = map(f.path());
        let mut w = std::fs::File::options().write(true).open(f.path()).unwrap();
        w.write_all(&[0xa5; 4096]).unwrap();
        // (a file system's clock ticks coarsely: a write in the tick of the
        // open may leave the times as they were; this one cannot)
        w.set_modified(std::time::SystemTime::UNIX_EPOCH).unwrap();
        let one = crate::algo::Algorithms::one(Algorithm::Md5);
        let two = crate::algo::Algorithms::new([Algorithm::Md5, Algorithm::Sha1]).unwrap();
        let stats = Stats::default();
        for threads in [Threads::One, Threads::Wide(2)] {
            let e = mapped.hash(one, &threads, &stats).unwrap_err();
            assert_eq!(e.to_string(), "file changed as we read it");
        }
        let e = mapped.hash_fanned(two, 2, &stats).unwrap_err();
        assert_eq!(e.to_string(), "file changed as we read it");
        assert!(!mapped.guard.faulted());
    }
}
