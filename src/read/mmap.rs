//! Hashing a regular file from a memory mapping, in place, with no read
//! calls and no copy: the `mmap` mode's route for big files, and the
//! threaded mode's for big BLAKE3 files (which then hash on every core, see
//! [`crate::algo::Hasher::update_wide`]) and big files with several
//! algorithms. [`super::route`] decides when, and on how many threads.
//!
//! Memory stays bounded whatever the file size: the mapping is hashed in
//! windows of [`WINDOW`] bytes, and the pages of each window are released
//! once hashed (they stay in the page cache, not in fastsum's RSS); with
//! several algorithms, in pieces released when every group is done.
//!
//! The mapping is a snapshot of the file's length when it was opened: bytes
//! appended while hashing are not hashed. A file truncated while mapped
//! would raise SIGBUS on the missing pages; `super::sigbus` catches that,
//! and the input is reported as `NAME: file truncated while mapped`, with no
//! digest, exit status 1, and the run goes on.

use std::fs::File;
use std::io;

use memmap2::{Advice, Mmap, MmapOptions, UncheckedAdvice};

use std::sync::Arc;

use super::route::{Reads, Threads, Via};
use super::sigbus::{self, Guard};
use crate::algo::{Algorithms, Digest, Hashers};
use crate::input::{Kind, Opened};
use crate::stats::Stats;

/// How much of a mapping is hashed before its pages are released: large
/// enough for BLAKE3 to spread over every core, small enough to bound RSS.
const WINDOW: usize = 64 << 20;

/// What each algorithm group is handed at a time when several algorithms
/// hash one mapping.
const PIECE: usize = 1 << 20;

/// How many pieces may wait for a group that fell behind: at most this many
/// MiB of the mapping are resident at once.
const QUEUE: usize = 8;

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

/// A live mapping of a whole file, watched for SIGBUS.
pub(crate) struct Mapped {
    // Field order matters: the guard must unregister before the mapping is
    // unmapped (fields drop in declaration order).
    guard: Guard,
    map: Mmap,
}

impl Mapped {
    /// Map what reading `opened` would hash: its bytes from where its read
    /// position stands (standard input may stand anywhere in a file), and
    /// move a shared position past them, as reading would. `None` when that
    /// fails (the caller reads the input instead, from the same position).
    fn of(opened: &Opened) -> Option<Mapped> {
        let Kind::Regular { .. } = opened.kind() else {
            return None;
        };
        let (start, len) = opened.span().ok()?;
        let map = Mapped::new(opened.file(), start, len)?;
        opened.consume_to(start + len).ok()?;
        Some(map)
    }

    /// The mapping of `opened` when its route maps it and the mapping can
    /// be made; else the reads the route falls back to.
    pub(crate) fn of_route(via: Via, opened: &Opened) -> Result<Mapped, Reads> {
        match via {
            Via::Map {
                fallback,
                cached_only,
            } => Mapped::of(opened)
                .filter(|map| !cached_only || map.is_cached())
                .ok_or(fallback),
            Via::Read(reads) => Err(reads),
        }
    }

    /// Is every page of the mapping in the page cache (`mincore`)? False
    /// when it cannot tell.
    fn is_cached(&self) -> bool {
        let page = super::sigbus::page_size();
        let ptr = self.map.as_ptr() as usize;
        let start = ptr - ptr % page;
        let len = ptr + self.map.len() - start;
        let mut pages = vec![0u8; len.div_ceil(page)];
        // SAFETY: [start, start + len) is this mapping, whole pages from its
        // page-aligned start; `pages` has one byte per page.
        let r = unsafe { libc::mincore(start as *mut libc::c_void, len, pages.as_mut_ptr()) };
        r == 0 && pages.iter().all(|p| p & 1 == 1)
    }

    /// Map the `len` bytes of `file` at offset `start` (any offset:
    /// memmap2 aligns the mapping to a page itself).
    fn new(file: &File, start: u64, len: u64) -> Option<Mapped> {
        let len = usize::try_from(len).ok().filter(|&l| l > 0)?;
        let claim = sigbus::claim()?;
        // SAFETY: the mapping is read-only and private. Another process may
        // still change the file under us: changed bytes give a digest of
        // whatever was read, as a read(2) racing a writer would (the caveat
        // b3sum and ripgrep accept for mapped input: the bytes are only
        // hashed, never trusted); a shrunk file raises SIGBUS, which
        // `sigbus` turns into a reported error.
        let map = unsafe { MmapOptions::new().offset(start).len(len).map(file) }.ok()?;
        let guard = claim.activate(map.as_ptr(), map.len());
        // Advisory only: hashing is correct whether or not the kernel takes it.
        let _ = map.advise(Advice::Sequential);
        Some(Mapped { guard, map })
    }

    /// How many bytes are mapped.
    pub(crate) fn len(&self) -> u64 {
        self.map.len() as u64
    }

    /// Hash the whole mapping with `algos` on the threads its route gives:
    /// algorithm groups on several threads ([`super::fanout`]), or this
    /// thread (and more where the algorithm can, as BLAKE3). An error if
    /// the file shrank.
    pub(crate) fn hash(
        &self,
        algos: Algorithms,
        threads: &Threads,
        stats: &Stats,
    ) -> io::Result<Vec<Digest>> {
        if let Threads::Fanned(_) = threads {
            return self.hash_fanned(algos, threads.count(), stats);
        }
        let mut hasher = Hashers::new(algos);
        self.hash_into(&mut hasher, threads.count(), stats)?;
        Ok(hasher.finalize())
    }

    /// Hash the whole mapping into `hasher`, window by window, on up to
    /// `threads` threads where the algorithm can.
    fn hash_into(&self, hasher: &mut Hashers, threads: usize, stats: &Stats) -> io::Result<()> {
        for (i, window) in self.map.chunks(WINDOW).enumerate() {
            hasher.update_wide(window, threads);
            stats.add_bytes(window.len());
            self.release(i * WINDOW, window.len());
        }
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
    /// stay in the page cache, not in fastsum's RSS).
    fn release(&self, start: usize, len: usize) {
        // SAFETY: callers release only bytes that are hashed and never read
        // again; dropping pages from a private read-only file mapping only
        // means a later read would fault them back in from the file.
        let _ = unsafe {
            self.map
                .unchecked_advise_range(UncheckedAdvice::DontNeed, start, len)
        };
    }

    /// An error if the file shrank while mapped.
    fn check(&self) -> io::Result<()> {
        if self.guard.faulted() {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "file truncated while mapped",
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algo::{Algorithm, hash_bytes};
    use std::io::Write;

    fn data(len: usize) -> Vec<u8> {
        (0..len).map(|i| (i * 131 + i / 977) as u8).collect()
    }

    fn hash_file(algo: Algorithm, file: File) -> io::Result<crate::algo::Digest> {
        let len = file.metadata()?.len();
        let mapped = Mapped::new(&file, 0, len).ok_or_else(|| io::Error::other("no mapping"))?;
        let mut h = Hashers::new(crate::algo::Algorithms::one(algo));
        mapped.hash_into(&mut h, 2, &Stats::default())?;
        Ok(h.finalize().remove(0))
    }

    #[test]
    fn mapped_and_read_files_hash_as_bytes() {
        for len in [1, 4096, 1 << 20, WINDOW + 4097] {
            let bytes = data(len);
            let mut f = tempfile::NamedTempFile::new().unwrap();
            f.write_all(&bytes).unwrap();
            for algo in [Algorithm::Sha256, Algorithm::Blake3] {
                let f = File::open(f.path()).unwrap();
                assert_eq!(
                    hash_file(algo, f).unwrap(),
                    hash_bytes(algo, &bytes),
                    "{algo:?} len {len}"
                );
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
            let file = File::open(f.path()).unwrap();
            let mapped = Mapped::new(&file, 0, 4 << 20).expect("a 4 MiB regular file maps");
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
            assert_eq!(e2.to_string(), "file truncated while mapped");
            assert_eq!(e.to_string(), "file truncated while mapped");
            assert!(mapped.guard.faulted(), "{algo:?}");
            drop(mapped);
            // a mapping made afterwards is watched afresh and reads fine
            let file = File::open(f.path()).unwrap();
            let want = hash_bytes(algo, &data(4 << 20)[..100_000]);
            assert_eq!(hash_file(algo, file).unwrap(), want);
        }
    }
}
