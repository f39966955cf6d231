//! The `mmap` mode: map a regular file into memory and hash the mapping in
//! place, with no read calls and no copy; BLAKE3 then hashes a big mapping
//! on every core (see [`Hasher::update_multithreaded`]). The `threaded`
//! mode borrows this path for big BLAKE3 files (`map_for_multithreaded`).
//!
//! Used by the `direct` workers (`-j` workers take whole files). An input is
//! read as in `sync` mode instead when mapping would be wrong or slower:
//! standard input, FIFOs and other non-regular files; regular files smaller
//! than [`MMAP_MIN`] (this also covers /proc files, whose size is 0 whatever
//! they hold); and whenever mapping fails. A directory thus gets the read
//! error GNU prints (`Is a directory`).
//!
//! The mapping is a snapshot of the file's length when it was opened: bytes
//! appended while hashing are not hashed. A file truncated while mapped
//! would raise SIGBUS on the missing pages; `super::sigbus` catches that,
//! and the input is reported as `NAME: file truncated while mapped`, with no
//! digest, exit status 1, and the run goes on.

use std::fs::File;
use std::io;

use memmap2::{Advice, Mmap, MmapOptions};

use super::direct::hash_sync;
use super::sigbus::{self, Guard};
use crate::algo::{Algorithm, BLAKE3_MULTITHREAD_MIN, Hasher};
use crate::input::Source;
use crate::stats::Stats;

/// Regular files smaller than this are read, not mapped: below it the
/// mmap/munmap system calls and page faults cost more than a read into the
/// worker's buffer. Measured with hyperfine (`-j1`, files in page cache,
/// 2 cores shared with other builds, so noisy; system time of one run over
/// 1500 files, sync → mmap): 8 KiB 19 → 41 ms and 16 KiB 23 → 45 ms
/// (BLAKE3), 64 KiB 42 → 43 ms (par), 256 KiB 78 → 42 ms and 1 MiB
/// 38 → 21 ms (MD5). b3sum maps from 16 KiB; here that was slower.
/// Keep `Mode::Mmap`'s `--help` text in step (a test checks it).
pub const MMAP_MIN: u64 = 64 * 1024;

/// A live mapping of a whole file, watched for SIGBUS.
pub(super) struct Mapped {
    // Field order matters: the guard must unregister before the mapping is
    // unmapped (fields drop in declaration order).
    guard: Guard,
    map: Mmap,
}

impl Mapped {
    /// Map `file` if it is a regular file of at least [`MMAP_MIN`] bytes;
    /// `None` when it should be read instead (any failure included).
    fn new(file: &File) -> Option<Mapped> {
        let meta = file.metadata().ok()?;
        if !meta.is_file() || meta.len() < MMAP_MIN {
            return None;
        }
        let len = usize::try_from(meta.len()).ok()?;
        let claim = sigbus::claim()?;
        // SAFETY: the mapping is read-only and private. Another process may
        // still change the file under us: changed bytes give a digest of
        // whatever was read, as a read(2) racing a writer would (the caveat
        // b3sum and ripgrep accept for mapped input: the bytes are only
        // hashed, never trusted); a shrunk file raises SIGBUS, which
        // `sigbus` turns into a reported error.
        let map = unsafe { MmapOptions::new().len(len).map(file) }.ok()?;
        let guard = claim.activate(map.as_ptr(), map.len());
        // Advisory only: hashing is correct whether or not the kernel takes it.
        let _ = map.advise(Advice::Sequential);
        Some(Mapped { guard, map })
    }

    /// Hash the whole mapping into `hasher` (on every core where the
    /// algorithm can); an error if the file shrank meanwhile.
    pub(super) fn hash_into(&self, hasher: &mut Hasher, stats: &Stats) -> io::Result<()> {
        hasher.update_multithreaded(&self.map);
        if self.guard.faulted() {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "file truncated while mapped",
            ));
        }
        stats.add_bytes(self.map.len());
        Ok(())
    }
}

/// For the `threaded` mode: a mapping of `src` when `algo` hashes one input
/// on several cores and `src` is a regular file big enough for that to pay
/// (BLAKE3, [`BLAKE3_MULTITHREAD_MIN`] bytes or more). Measured: on a 1 GiB
/// file in page cache, the read-ahead pipeline feeding one BLAKE3 thread
/// took 1.47 × as long as b3sum, while mapping + rayon is at par with it, so
/// the default mode takes this path too (see the README for the figures).
pub(super) fn map_for_multithreaded(algo: Algorithm, src: &Source) -> Option<Mapped> {
    match (algo, src) {
        (Algorithm::Blake3, Source::File(file))
            if file
                .metadata()
                .is_ok_and(|m| m.len() >= BLAKE3_MULTITHREAD_MIN as u64) =>
        {
            Mapped::new(file)
        }
        _ => None,
    }
}

/// Hash all of `src` into `hasher`: from a mapping when it is a regular file
/// worth mapping, else with `sync` reads into `buf`.
pub(super) fn hash_source(
    src: Source,
    hasher: &mut Hasher,
    buf: &mut [u8],
    stats: &Stats,
) -> io::Result<()> {
    let mapped = match &src {
        Source::File(file) => Mapped::new(file),
        Source::Stdin(_) => None,
    };
    match mapped {
        Some(mapped) => mapped.hash_into(hasher, stats),
        None => hash_sync(src, hasher, buf, stats),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algo::hash_bytes;
    use std::io::Write;

    fn data(len: usize) -> Vec<u8> {
        (0..len).map(|i| (i * 131 + i / 977) as u8).collect()
    }

    fn hash_file(algo: Algorithm, file: File) -> io::Result<crate::algo::Digest> {
        let mut h = Hasher::new(algo);
        let mut buf = vec![0u8; 4096];
        hash_source(Source::File(file), &mut h, &mut buf, &Stats::default())?;
        Ok(h.finalize())
    }

    #[test]
    fn mapped_and_read_files_hash_as_bytes() {
        for len in [
            0,
            1,
            4096,
            MMAP_MIN as usize - 1,
            MMAP_MIN as usize,
            1 << 20,
        ] {
            let bytes = data(len);
            let mut f = tempfile::NamedTempFile::new().unwrap();
            f.write_all(&bytes).unwrap();
            let mapped = Mapped::new(f.as_file()).is_some();
            assert_eq!(mapped, len as u64 >= MMAP_MIN, "len {len}");
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
            let mapped = Mapped::new(&file).expect("a 4 MiB regular file maps");
            std::fs::OpenOptions::new()
                .write(true)
                .open(f.path())
                .unwrap()
                .set_len(100_000)
                .unwrap();
            let mut h = Hasher::new(algo);
            let e = mapped.hash_into(&mut h, &Stats::default()).unwrap_err();
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
