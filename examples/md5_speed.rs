//! MD5 throughput in process, on one core: the md-5 crate, each fastsum
//! kernel this CPU runs, and OpenSSL's `MD5()` from the system's libcrypto
//! (loaded with dlopen, if present), on a 64 KiB buffer hashed over and
//! over, as `openssl speed -evp md5 -bytes 65536` measures.
//!
//! The contenders run alternately, round after round, each timed in CPU
//! time of this thread (not wall time) on the same work, so a neighbour's
//! load on a shared machine hits them alike. Printed: the best round
//! (min-of-N, as MB/s, 10^6 bytes per second) and the ratio of total CPU
//! time against OpenSSL (or, without it, the md-5 crate); >1 is faster.
//!
//! ```sh
//! cargo run --release --example md5_speed [rounds, default 20]
//! ```

use std::hint::black_box;

use fastsum::internals::{Kernel, Md5};
use md5::Digest as _;

#[path = "common/mod.rs"]
mod common;
use common::thread_cpu_secs;

const BUF: usize = 64 * 1024;
/// Buffers hashed per timed round (4 MiB).
const PER_ROUND: usize = 64;

/// libcrypto's one-shot `MD5(data, len, out)`.
type Md5Fn = unsafe extern "C" fn(*const u8, usize, *mut u8) -> *mut u8;

/// OpenSSL's `MD5`, if libcrypto can be loaded.
fn openssl_md5() -> Option<Md5Fn> {
    for name in [c"libcrypto.so.3", c"libcrypto.so"] {
        // SAFETY: a NUL-terminated name; the handle is kept for the
        // process's life (never dlclose'd).
        let lib = unsafe { libc::dlopen(name.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL) };
        if lib.is_null() {
            continue;
        }
        // SAFETY: a valid handle and a NUL-terminated symbol name.
        let sym = unsafe { libc::dlsym(lib, c"MD5".as_ptr()) };
        if !sym.is_null() {
            // SAFETY: libcrypto's MD5 has this C signature (openssl/md5.h).
            return Some(unsafe { std::mem::transmute::<*mut libc::c_void, Md5Fn>(sym) });
        }
    }
    None
}

type Run = (String, Box<dyn Fn(&[u8]) -> [u8; 16]>);

/// Adds in `add_chain`'s dependent chain per round: as many as the 64 KiB
/// buffers of a round have blocks times 100, so its round time, timed
/// alternately with the others, converts their times to core cycles (one
/// scalar `add` has a latency of one cycle on every x86-64 core).
#[cfg(target_arch = "x86_64")]
const CHAIN: u64 = (PER_ROUND * BUF / 64 * 100) as u64;

/// A chain of `CHAIN` dependent adds: the core's clock, measured.
#[cfg(target_arch = "x86_64")]
fn add_chain() {
    // SAFETY: registers only; no memory, no stack.
    unsafe {
        std::arch::asm!(
            "2:",
            "add {x}, 1", "add {x}, 1", "add {x}, 1", "add {x}, 1",
            "add {x}, 1", "add {x}, 1", "add {x}, 1", "add {x}, 1",
            "sub {n}, 8",
            "jnz 2b",
            n = inout(reg) CHAIN => _,
            x = out(reg) _,
            options(nostack, nomem),
        );
    }
}

fn main() {
    let rounds: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(20);
    let buf: Vec<u8> = (0..BUF).map(|i| (i * 131 + i / 7) as u8).collect();
    let mut runs: Vec<Run> = Vec::new();
    if let Some(f) = openssl_md5() {
        runs.push((
            "OpenSSL MD5()".into(),
            Box::new(move |b: &[u8]| {
                let mut out = [0u8; 16];
                // SAFETY: `b` is readable for its length; `out` has the 16
                // bytes MD5 writes.
                unsafe { f(b.as_ptr(), b.len(), out.as_mut_ptr()) };
                out
            }),
        ));
    } else {
        println!("(libcrypto not loadable: no OpenSSL figure)");
    }
    runs.push((
        "md-5 crate".into(),
        Box::new(|b: &[u8]| md5::Md5::digest(b).into()),
    ));
    for kernel in Kernel::available() {
        runs.push((
            format!("fastsum {kernel:?}"),
            Box::new(move |b: &[u8]| {
                let mut h = Md5::with_kernel(kernel);
                h.update(b);
                h.finalize()
            }),
        ));
    }
    let want = runs[0].1(&buf);
    for (name, run) in &runs {
        assert_eq!(run(&buf), want, "{name} disagrees");
    }
    let mut best = vec![f64::INFINITY; runs.len()];
    let mut total = vec![0.0; runs.len()];
    #[cfg(target_arch = "x86_64")]
    let mut clock = (f64::INFINITY, 0.0);
    for _ in 0..rounds {
        #[cfg(target_arch = "x86_64")]
        {
            let t0 = thread_cpu_secs();
            add_chain();
            let t = thread_cpu_secs() - t0;
            clock = (clock.0.min(t), clock.1 + t);
        }
        for (i, (_, run)) in runs.iter().enumerate() {
            let t0 = thread_cpu_secs();
            for _ in 0..PER_ROUND {
                black_box(run(black_box(&buf)));
            }
            let t = thread_cpu_secs() - t0;
            best[i] = best[i].min(t);
            total[i] += t;
        }
    }
    let bytes = (BUF * PER_ROUND) as f64;
    println!(
        "{:<18} {:>9} {:>10}   ({rounds} rounds of {PER_ROUND} x 64 KiB)",
        "",
        "best MB/s",
        format!("x {}", runs[0].0.split(' ').next().unwrap_or(""))
    );
    for (i, (name, _)) in runs.iter().enumerate() {
        print!(
            "{name:<18} {:9.1} {:10.3}",
            bytes / best[i] / 1e6,
            total[0] / total[i]
        );
        // core cycles per 64-byte block: this contender's total time over
        // the add chain's, whose rounds took 100 cycles per block
        #[cfg(target_arch = "x86_64")]
        print!("   {:6.1} cycles/block", 100.0 * total[i] / clock.1);
        println!();
    }
}
