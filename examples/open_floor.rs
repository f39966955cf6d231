//! The kernel's share of hashing many tiny files (issue 22): what getting
//! one small file's bytes costs, in microseconds of CPU per file, for each
//! way of asking for them. What fastsum does is the first; the others are
//! what it could do instead:
//!
//! * `open+fstat+read+close`: fastsum (the length from fstat saves the read
//!   that would return 0, and tells a regular file from a stream);
//! * `open+read+read+close`: no fstat, read to the 0;
//! * `io_uring`: openat into a registered slot, read, close, hard-linked, 64
//!   files per submission (no fstat: io_uring's statx takes a path, not a
//!   slot, so it would look the name up twice);
//! * the first again on two threads, each taking every other file: CPU per
//!   file over both threads, and wall time per file.
//!
//! Every way runs over the same names in turn, round after round, so that a
//! neighbour's load hits them alike; printed per way: the best round.
//!
//! ```sh
//! cargo run --release --example open_floor -- DIR [rounds, default 9]
//! ```
//! DIR: a directory of small files (benches/many.sh makes 100,000 of 0-64
//! bytes); up to 20,000 of them are read, by bare name from inside DIR, as
//! `ls | xargs fastsum` passes them.

//! Linux only (io_uring); elsewhere it says so and exits.

#[cfg(target_os = "linux")]
#[path = "common/mod.rs"]
mod common;

#[cfg(target_os = "linux")]
mod linux {
    use std::ffi::CString;
    use std::os::unix::ffi::OsStrExt;
    use std::time::Instant;

    use io_uring::{IoUring, opcode, squeue, types};

    use super::common::thread_cpu_secs;

    const MAX_FILES: usize = 20_000;
    /// Files per io_uring submission (three entries each).
    const RING_BATCH: usize = 64;
    /// Bytes read per file: more than the files hold.
    const BUF: usize = 4096;

    /// open, fstat, one read, close: fastsum's four calls.
    fn with_fstat(names: &[&CString], buf: &mut [u8]) -> u64 {
        let mut total = 0;
        for name in names {
            // SAFETY: a NUL-terminated name, a zeroed stat to write, and a
            // buffer of `buf.len()` writable bytes; the descriptor is ours.
            unsafe {
                let fd = libc::open(name.as_ptr(), libc::O_RDONLY | libc::O_CLOEXEC);
                assert!(fd >= 0, "open {name:?}");
                let mut st: libc::stat = std::mem::zeroed();
                libc::fstat(fd, &mut st);
                total += libc::read(fd, buf.as_mut_ptr().cast(), buf.len()).max(0) as u64;
                libc::close(fd);
            }
        }
        total
    }

    /// open, read until a read returns 0, close.
    fn read_to_zero(names: &[&CString], buf: &mut [u8]) -> u64 {
        let mut total = 0;
        for name in names {
            // SAFETY: as in `with_fstat`.
            unsafe {
                let fd = libc::open(name.as_ptr(), libc::O_RDONLY | libc::O_CLOEXEC);
                assert!(fd >= 0, "open {name:?}");
                loop {
                    let n = libc::read(fd, buf.as_mut_ptr().cast(), buf.len());
                    if n <= 0 {
                        break;
                    }
                    total += n as u64;
                }
                libc::close(fd);
            }
        }
        total
    }

    /// openat, read, close linked in one ring, RING_BATCH files per submission.
    fn ring(names: &[&CString], ring: &mut IoUring, bufs: &mut [u8]) -> u64 {
        let mut total = 0;
        for group in names.chunks(RING_BATCH) {
            let mut sq = ring.submission();
            for (i, name) in group.iter().enumerate() {
                let slot = types::DestinationSlot::try_from_slot_target(i as u32)
                    .expect("a slot below the batch");
                let buf = bufs[i * BUF..].as_mut_ptr();
                let entries = [
                    opcode::OpenAt::new(types::Fd(libc::AT_FDCWD), name.as_ptr())
                        .flags(libc::O_RDONLY)
                        .file_index(Some(slot))
                        .build()
                        .flags(squeue::Flags::IO_HARDLINK)
                        .user_data(0),
                    opcode::Read::new(types::Fixed(i as u32), buf, BUF as u32)
                        .build()
                        .flags(squeue::Flags::IO_HARDLINK)
                        .user_data(1),
                    opcode::Close::new(types::Fixed(i as u32))
                        .build()
                        .user_data(2),
                ];
                // SAFETY: the names and buffers outlive the submission, which
                // completes (submit_and_wait) before this function goes on.
                unsafe { sq.push_multiple(&entries).expect("room in the ring") };
            }
            drop(sq);
            ring.submit_and_wait(group.len() * 3)
                .expect("io_uring submit");
            for cqe in ring.completion() {
                assert!(
                    cqe.result() >= 0,
                    "io_uring op {} failed: {}",
                    cqe.user_data(),
                    cqe.result()
                );
                if cqe.user_data() == 1 {
                    total += cqe.result() as u64;
                }
            }
        }
        total
    }

    pub(super) fn main() {
        let mut args = std::env::args().skip(1);
        let dir = args.next().expect("usage: open_floor DIR [rounds]");
        let rounds: usize = args.next().map_or(9, |r| r.parse().expect("rounds"));
        std::env::set_current_dir(&dir).expect("cd DIR");
        let mut names: Vec<CString> = std::fs::read_dir(".")
            .expect("read DIR")
            .filter_map(|e| e.ok())
            .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
            .map(|e| CString::new(e.file_name().as_bytes()).expect("a name has no NUL"))
            .collect();
        names.sort();
        names.truncate(MAX_FILES);
        let names: Vec<&CString> = names.iter().collect();
        let n = names.len() as f64;
        assert!(n > 0.0, "no files in {dir}");

        let mut uring =
            IoUring::new((RING_BATCH * 4) as u32).expect("io_uring (kernel.io_uring_disabled?)");
        uring
            .submitter()
            .register_files_sparse(RING_BATCH as u32)
            .expect("register files");
        let mut bufs = vec![0u8; RING_BATCH * BUF];
        let mut buf = vec![0u8; BUF];

        let ways = [
            "open+fstat+read+close",
            "open+read+read+close",
            "io_uring",
            "2 threads",
        ];
        let mut best_cpu = [f64::MAX; 4];
        let mut best_wall = f64::MAX;
        let mut bytes = [0u64; 4];
        for _ in 0..rounds {
            for (w, best) in best_cpu.iter_mut().enumerate() {
                let t0 = thread_cpu_secs();
                let wall = Instant::now();
                let (b, cpu) = match w {
                    0 => (with_fstat(&names, &mut buf), thread_cpu_secs() - t0),
                    1 => (read_to_zero(&names, &mut buf), thread_cpu_secs() - t0),
                    2 => (ring(&names, &mut uring, &mut bufs), thread_cpu_secs() - t0),
                    _ => {
                        let (odd, even): (Vec<_>, Vec<_>) =
                            names.iter().enumerate().partition(|(i, _)| i % 2 == 1);
                        let half = |h: Vec<(usize, &&CString)>| {
                            let h: Vec<&CString> = h.into_iter().map(|(_, c)| *c).collect();
                            let t = thread_cpu_secs();
                            let b = with_fstat(&h, &mut vec![0u8; BUF]);
                            (b, thread_cpu_secs() - t)
                        };
                        let ((b1, c1), (b2, c2)) = std::thread::scope(|s| {
                            let other = s.spawn(|| half(odd));
                            let mine = half(even);
                            (mine, other.join().expect("the other thread"))
                        });
                        best_wall = best_wall.min(wall.elapsed().as_secs_f64());
                        (b1 + b2, c1 + c2)
                    }
                };
                bytes[w] = b;
                *best = best.min(cpu);
            }
        }
        assert!(
            bytes.iter().all(|&b| b == bytes[0]),
            "the ways read different bytes: {bytes:?}"
        );
        println!(
            "{} files ({} bytes), best of {rounds} rounds, µs of CPU per file:",
            n, bytes[0]
        );
        for (way, cpu) in ways.iter().zip(best_cpu) {
            println!("  {way:<24} {:6.2}", cpu * 1e6 / n);
        }
        println!("  2 threads, wall per file  {:6.2}", best_wall * 1e6 / n);
    }
}

fn main() {
    #[cfg(target_os = "linux")]
    linux::main();
    #[cfg(not(target_os = "linux"))]
    eprintln!("open_floor: io_uring is Linux's: nothing to measure here");
}
