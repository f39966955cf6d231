//! In-process hash throughput, to compare fastsum's kernels with
//! `openssl speed -evp ALGO -bytes 65536` side by side in one run:
//!
//! ```sh
//! cargo run --release --example hash_speed            # every algorithm, 64 KiB updates
//! cargo run --release --example hash_speed -- blake3  # also: BLAKE3 one thread vs all cores, by size
//! ```
//!
//! Each figure is the best of three ~0.5 s runs (best, not mean: on a shared
//! machine the other load only ever slows a run down). MB is 10^6 bytes, as
//! openssl counts.

use std::hint::black_box;
use std::time::{Duration, Instant};

use fastsum::algo::{Algorithm, Hasher};

/// Bytes per second of `f` hashing `len` bytes per call.
fn throughput(len: usize, mut f: impl FnMut()) -> f64 {
    let mut best = 0f64;
    for _ in 0..3 {
        let start = Instant::now();
        let mut n = 0u64;
        while start.elapsed() < Duration::from_millis(500) {
            f();
            n += 1;
        }
        best = best.max((n * len as u64) as f64 / start.elapsed().as_secs_f64());
    }
    best
}

fn main() {
    let buf: Vec<u8> = (0..64 * 1024).map(|i: usize| (i * 131) as u8).collect();
    println!("{:<8} {:>10}", "algo", "MB/s (64 KiB updates)");
    for algo in Algorithm::ALL {
        let mut h = Hasher::new(algo);
        let bps = throughput(buf.len(), || h.update(black_box(&buf)));
        black_box(h.finalize());
        println!("{:<8} {:>10.0}", algo.tag(), bps / 1e6);
    }
    if std::env::args().nth(1).as_deref() != Some("blake3") {
        return;
    }
    // Where does rayon start to pay? Hash whole inputs of each size, one
    // thread (`update`) vs all cores (`update_rayon`).
    println!(
        "\nBLAKE3 whole input: {:>8} {:>12} {:>12}",
        "size", "1 thread", "rayon"
    );
    for kib in [16, 32, 64, 128, 256, 512, 1024, 4096, 16384] {
        let data: Vec<u8> = (0..kib * 1024).map(|i: usize| (i * 7) as u8).collect();
        let one = throughput(data.len(), || {
            black_box(blake3::Hasher::new().update(black_box(&data)).finalize());
        });
        let all = throughput(data.len(), || {
            black_box(
                blake3::Hasher::new()
                    .update_rayon(black_box(&data))
                    .finalize(),
            );
        });
        println!(
            "{:>28} KiB {:>8.0} MB/s {:>7.0} MB/s",
            kib,
            one / 1e6,
            all / 1e6
        );
    }
}
