//! Copiers (`Reads::Copiers`): a big regular file in the page cache,
//! hashed with one algorithm faster than one core copies (XXH3, XXH32, the
//! CRCs), is read by several readers at once, each copying whole blocks at
//! their offsets, and hashed in file order by one thread. The digests are
//! one reader's, in hash and check mode, on the one-thread path (one file)
//! and the pipeline's (several); a file out of the page cache is read by
//! one reader from its first byte not cached; a copier's read error fails
//! the file (named, no digest, exit 1), and a read that would wait on the
//! storage is read again by one reader. (Linux: reads of cached bytes
//! only, `RWF_NOWAIT`, are Linux's.)
#![cfg(target_os = "linux")]

use std::fs::File;
use std::os::fd::AsRawFd;
use std::path::Path;
use std::process::{Command, Output};

use crate::util::{
    fastsum, fastsum_path, random_bytes, require_strace, require_tool, run, shown, tempdir,
    write_file,
};

/// A big file to the route (16 MiB or more), not a whole number of blocks.
const BIG: usize = (20 << 20) + 12_345;

/// What `--stats` says of the files copied by several readers, if any.
fn copied(o: &Output) -> Option<String> {
    String::from_utf8_lossy(&o.stderr).lines().find_map(|l| {
        l.split_once("files copied by several readers at once (page cache): ")
            .map(|(_, n)| n.to_owned())
    })
}

/// `name` in `dir`, `len` random bytes from `seed`, read once: in the page
/// cache.
fn cached_file(dir: &Path, name: &str, len: usize, seed: u64) {
    let path = write_file(dir, name, &random_bytes(len, seed));
    std::fs::read(path).unwrap();
}

/// Drop `path`'s pages from the page cache (where the kernel does: not on
/// tmpfs); then read its first `keep` bytes back in.
fn evict(path: &Path, keep: usize) {
    let f = File::open(path).unwrap();
    f.sync_all().unwrap();
    // SAFETY: an advice on our open descriptor, no memory involved.
    unsafe { libc::posix_fadvise(f.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
    // (no read-ahead past them)
    // SAFETY: as above.
    unsafe { libc::posix_fadvise(f.as_raw_fd(), 0, 0, libc::POSIX_FADV_RANDOM) };
    let mut buf = vec![0u8; keep];
    std::os::unix::fs::FileExt::read_exact_at(&f, &mut buf, 0).unwrap();
}

/// Can the page cache be asked whether a byte of `path` is in it (a read of
/// cached bytes only, `RWF_NOWAIT`: not on tmpfs)? Asked of its first byte,
/// which is then read in if it was not.
fn page_cache_tells(path: &Path) -> bool {
    let f = File::open(path).unwrap();
    let mut byte = 0u8;
    let iov = libc::iovec {
        iov_base: (&raw mut byte).cast(),
        iov_len: 1,
    };
    // SAFETY: one iovec of one byte, ours; the descriptor is open.
    let n = unsafe { libc::preadv2(f.as_raw_fd(), &iov, 1, 0, libc::RWF_NOWAIT) };
    n == 1 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EAGAIN)
}

/// Is the first page of `path` out of the page cache (`mincore`, which
/// reads nothing in)?
fn first_page_evicted(path: &Path) -> bool {
    let f = File::open(path).unwrap();
    // SAFETY: a private read-only mapping of one page of our open file,
    // unmapped below; mincore writes one byte into `vec`.
    unsafe {
        let page = 4096;
        let map = libc::mmap(
            std::ptr::null_mut(),
            page,
            libc::PROT_READ,
            libc::MAP_PRIVATE,
            f.as_raw_fd(),
            0,
        );
        assert_ne!(map, libc::MAP_FAILED);
        let mut vec = [0u8; 1];
        let r = libc::mincore(map, page, vec.as_mut_ptr().cast());
        libc::munmap(map, page);
        r == 0 && vec[0] & 1 == 0
    }
}

fn in_dir(dir: &Path, args: &[&str]) -> Output {
    run(fastsum().current_dir(dir).args(args))
}

/// Hash and check mode, one file and two, copied by two readers (`-j 2`)
/// or read by one (`-j 1`, `-m sync`): the same lines, and `--stats` says
/// which.
#[test]
fn a_big_cached_file_is_copied_by_several_readers_and_hashed_in_order() {
    let dir = tempdir();
    let d = dir.path();
    cached_file(d, "big", BIG, 1);
    cached_file(d, "big2", BIG - 99, 2);
    for algo in ["xxh3", "xxh32", "crc32c", "xxh128"] {
        let want = in_dir(d, &["-m", "sync", "-a", algo, "big", "big2"]);
        assert_eq!(want.status.code(), Some(0), "{}", shown(&want));
        let want = String::from_utf8(want.stdout).unwrap();
        let first = format!("{}\n", want.lines().next().unwrap());
        let sums = write_file(d, "sums", want.as_bytes());
        for (args, stdout, readers) in [
            // one file: hashed on the calling thread
            (vec!["big"], first.as_str(), Some("1, up to 2 readers")),
            // two: through the pipeline's reader
            (vec!["big", "big2"], &want, Some("2, up to 2 readers")),
            (
                vec!["-c", "sums"],
                "big: OK\nbig2: OK\n",
                Some("2, up to 2 readers"),
            ),
            (vec!["-j1", "big", "big2"], &want, None),
            (vec!["-m", "mmap", "big"], &first, None),
        ] {
            let what = format!("-a {algo} {args:?}");
            let o = in_dir(d, &[&["-j2", "--stats", "-a", algo], &args[..]].concat());
            assert_eq!(o.status.code(), Some(0), "{what}: {}", shown(&o));
            assert_eq!(String::from_utf8_lossy(&o.stdout), stdout, "{what}");
            assert_eq!(copied(&o).as_deref(), readers, "{what}: {}", shown(&o));
        }
        std::fs::remove_file(sums).unwrap();
    }
    if require_tool("xxhsum") {
        let theirs = run(Command::new("xxhsum").current_dir(d).args(["-H3", "big"]));
        let ours = in_dir(d, &["-j2", "-a", "xxh3", "big"]);
        assert_eq!(ours.stdout, theirs.stdout, "{}", shown(&ours));
    }
}

/// Out of the page cache, a file is read by one reader from its first byte
/// not cached, its start copied if cached: the digest is the same. (Where
/// the kernel keeps the pages, as on tmpfs, there is nothing to see; where
/// the disk answers at once, a read of cached bytes only may get them: the
/// reads that would wait are injected in the test below.)
#[test]
fn a_file_out_of_the_page_cache_is_read_by_one_reader() {
    let dir = tempdir();
    let d = dir.path();
    cached_file(d, "big", BIG, 3);
    let want = in_dir(d, &["-m", "sync", "-a", "xxh3", "big"]).stdout;
    let path = d.join("big");
    for keep in [0, 8 << 20] {
        evict(&path, keep);
        if !first_page_evicted(&path) && keep == 0 {
            return;
        }
        let o = in_dir(d, &["-j2", "--stats", "-a", "xxh3", "big"]);
        assert_eq!(o.stdout, want, "{keep}: {}", shown(&o));
        if keep > 0 {
            // (its start cached: the copiers start)
            assert_eq!(copied(&o).as_deref(), Some("1, up to 2 readers"));
        }
    }
}

/// fastsum `-j 2 -a xxh3 big small` under strace, the `n`th call of
/// `syscall` on `big` failing with `errno`: its output, and whether the
/// fault landed.
fn injected(dir: &Path, syscall: &str, errno: &str, n: u32) -> (Output, bool) {
    let big = dir.join("big");
    let log = dir.join("strace.log");
    let o = run(Command::new("strace")
        .current_dir(dir)
        .env("LC_ALL", "C.UTF-8")
        .args(["-f", "-qq", "-o"])
        .arg(&log)
        .args(["-e", &format!("trace={syscall}")])
        .arg("-P")
        .arg(&big)
        .args(["-e", &format!("inject={syscall}:error={errno}:when={n}")])
        .arg(fastsum_path())
        .args(["-j2", "-a", "xxh3"])
        .arg(&big)
        .arg(dir.join("small")));
    let landed = std::fs::read_to_string(&log).is_ok_and(|l| l.contains("(INJECTED)"));
    (o, landed)
}

/// A copier's read that fails fails the file: no digest, its name and the
/// error on stderr, the other file's line, exit 1; one that would wait
/// (`EAGAIN` from a read of cached bytes only) is read again by one
/// reader, and the digest is right. Whichever read the fault lands on (the
/// first may be the probe of the page cache, which then says "cannot
/// tell": one reader), no wrong digest is printed.
#[test]
fn a_copiers_read_error_fails_the_file_and_a_wait_is_read_again() {
    if !require_strace() {
        return;
    }
    let dir = tempdir();
    let d = dir.path().canonicalize().unwrap();
    cached_file(&d, "big", BIG, 4);
    cached_file(&d, "small", 1000, 5);
    let (big, small) = (d.join("big"), d.join("small"));
    let o = run(fastsum()
        .args(["-m", "sync", "-a", "xxh3"])
        .args([&big, &small]));
    let want = o.stdout;
    let want = String::from_utf8(want).unwrap();
    let small_line = format!("{}\n", want.lines().nth(1).unwrap());
    // (a copier's reads: only of cached bytes where the file system can
    // tell, plain ones on tmpfs)
    let syscall = if page_cache_tells(&big) {
        "preadv2"
    } else {
        "pread64"
    };
    let big = big.display().to_string();
    let (mut failed, mut waited) = (false, false);
    for n in 1..=3 {
        let (o, landed) = injected(&d, syscall, "EIO", n);
        let what = format!("{syscall} EIO when={n} (landed: {landed})");
        let out = String::from_utf8_lossy(&o.stdout);
        if out == want {
            assert_eq!(o.status.code(), Some(0), "{what}: {}", shown(&o));
        } else {
            assert_eq!(out, small_line, "{what}: {}", shown(&o));
            assert_eq!(o.status.code(), Some(1), "{what}: {}", shown(&o));
            let err = String::from_utf8_lossy(&o.stderr);
            let named = format!("fastsum: {big}: Input/output error\n");
            assert!(err.contains(&named), "{what}: {}", shown(&o));
            assert!(landed, "{what}: failed with no fault");
            failed = true;
        }
        let (o, landed) = injected(&d, syscall, "EAGAIN", n);
        let what = format!("{syscall} EAGAIN when={n} (landed: {landed})");
        assert_eq!(
            String::from_utf8_lossy(&o.stdout),
            want,
            "{what}: {}",
            shown(&o)
        );
        assert_eq!(o.status.code(), Some(0), "{what}: {}", shown(&o));
        waited |= landed;
    }
    assert!(failed, "no copier's read error ever failed the file");
    assert!(waited, "no read that would wait was ever injected");
}
