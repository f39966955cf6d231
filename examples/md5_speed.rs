//! MD5 throughput in process, in MB/s (10^6 bytes per second), of the md-5
//! crate and of each fastsum kernel, on a 64 KiB buffer hashed over and over,
//! as `openssl speed -evp md5 -bytes 65536` measures OpenSSL. Like openssl
//! speed (without `-elapsed`), it divides by the CPU time of the thread, not
//! wall time, so other processes on a shared machine skew the figures less.
//! Run it in the same session as that command to get a ratio (README.md,
//! "MD5 kernel"):
//!
//! ```sh
//! cargo run --release --example md5_speed [seconds per kernel, default 3]
//! ```

use std::hint::black_box;

use fastsum::internals::{Kernel, Md5};
use md5::Digest as _;

#[path = "common/mod.rs"]
mod common;
use common::thread_cpu_secs;

const BUF: usize = 64 * 1024;

/// Hash `buf` with `hash` repeatedly for about `secs` of CPU time; return
/// MB/s.
fn measure(secs: f64, buf: &[u8], mut hash: impl FnMut(&[u8]) -> [u8; 16]) -> f64 {
    let start = thread_cpu_secs();
    let mut bytes = 0u64;
    while thread_cpu_secs() - start < secs {
        for _ in 0..16 {
            black_box(hash(black_box(buf)));
        }
        bytes += 16 * buf.len() as u64;
    }
    bytes as f64 / (thread_cpu_secs() - start) / 1e6
}

fn main() {
    let secs = std::env::args()
        .nth(1)
        .and_then(|s| s.parse::<f64>().ok())
        .unwrap_or(3.0);
    let buf: Vec<u8> = (0..BUF).map(|i| (i * 131 + i / 7) as u8).collect();
    let crate_mbs = measure(secs, &buf, |b| md5::Md5::digest(b).into());
    println!("md-5 crate        {crate_mbs:8.1} MB/s");
    for kernel in Kernel::available() {
        let mbs = measure(secs, &buf, |b| {
            let mut h = Md5::with_kernel(kernel);
            h.update(b);
            h.finalize()
        });
        println!(
            "fastsum {:<9} {mbs:8.1} MB/s  ({:.3} x md-5)",
            format!("{kernel:?}"),
            mbs / crate_mbs
        );
    }
}
