//! In-process hash throughput next to `openssl speed -evp ALGO -bytes 65536`,
//! side by side in one run:
//!
//! ```sh
//! cargo run --release --example hash_speed            # every algorithm, 64 KiB updates
//! cargo run --release --example hash_speed -- blake3  # also: BLAKE3 one thread vs rayon, by size
//! ```
//!
//! Single-thread figures divide by the thread's CPU time, as `openssl speed`
//! does by default (user CPU time; `-elapsed` switches it to wall time): on
//! a shared machine, wall time mostly measures the other load. Each is the
//! best of three ~0.5 s runs. MB is 10^6 bytes, as openssl counts. The
//! BLAKE3 rayon table must use wall time (the work is on other threads), so
//! it is only meaningful on an otherwise idle machine.

use std::hint::black_box;
use std::process::Command;
use std::time::Instant;

use fastsum::internals::{Algorithm, Hasher};

/// CPU time of the calling thread, in seconds.
fn thread_cpu() -> f64 {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `t` is a valid timespec to write to; this clock always exists on Linux.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    t.tv_sec as f64 + t.tv_nsec as f64 * 1e-9
}

/// MB/s of `f` hashing `len` bytes per call, by `clock` (seconds).
fn throughput(len: usize, clock: impl Fn() -> f64, mut f: impl FnMut()) -> f64 {
    let mut best = 0f64;
    for _ in 0..3 {
        let start = clock();
        let mut n = 0u64;
        while clock() - start < 0.5 {
            f();
            n += 1;
        }
        best = best.max((n * len as u64) as f64 / (clock() - start) / 1e6);
    }
    best
}

/// `openssl speed -evp NAME -bytes 65536` in MB/s, if openssl is there and
/// knows the algorithm.
fn openssl_speed(name: &str) -> Option<f64> {
    let out = Command::new("openssl")
        .args(["speed", "-seconds", "2", "-evp", name, "-bytes", "65536"])
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    // last line: "sha256     1777481.96k" (thousands of bytes per second)
    let last = text.lines().last()?;
    let k = last.split_whitespace().last()?.strip_suffix('k')?;
    Some(k.parse::<f64>().ok()? / 1000.0)
}

/// The name `openssl speed -evp` knows the algorithm by, if it has it.
fn openssl_name(algo: Algorithm) -> Option<String> {
    let tag = algo.tag();
    match tag.as_ref() {
        "BLAKE3" | "CRC32B" => None,
        t if t.starts_with("XXH") => None,
        "BLAKE2b" => Some("blake2b512".into()),
        _ => Some(tag.to_lowercase()),
    }
}

fn main() {
    let buf: Vec<u8> = (0..64 * 1024).map(|i: usize| (i * 131) as u8).collect();
    println!("algo        fastsum MB/s  openssl MB/s  ratio   (64 KiB updates, CPU time)");
    // every algorithm, and the other SHA-3 sizes
    let sha3 = [224, 384, 512].map(|bits| Algorithm::ALL[9].with_length(bits));
    for algo in Algorithm::ALL.into_iter().chain(sha3.into_iter().flatten()) {
        let mut h = Hasher::new(algo);
        let ours = throughput(buf.len(), thread_cpu, || h.update(black_box(&buf)));
        black_box(h.finalize());
        let tag = algo.tag();
        match openssl_name(algo).and_then(|name| openssl_speed(&name)) {
            Some(theirs) => println!(
                "{tag:<11} {ours:>9.0}  {theirs:>12.0}  {:>5.2}",
                ours / theirs
            ),
            None => println!("{tag:<11} {ours:>9.0}  {:>12}", "-"),
        }
    }
    if std::env::args().nth(1).as_deref() != Some("blake3") {
        return;
    }
    // Where does rayon start to pay? Whole inputs of each size, one thread
    // (`update`) vs all cores (`update_rayon`), wall time.
    let t0 = Instant::now();
    let wall = || t0.elapsed().as_secs_f64();
    println!("\nBLAKE3 whole input   1 thread MB/s   rayon MB/s   (wall time)");
    for kib in [16, 32, 64, 96, 128, 192, 256, 512, 1024, 4096] {
        let data: Vec<u8> = (0..kib * 1024).map(|i: usize| (i * 7) as u8).collect();
        let one = throughput(data.len(), wall, || {
            black_box(blake3::Hasher::new().update(black_box(&data)).finalize());
        });
        let all = throughput(data.len(), wall, || {
            black_box(
                blake3::Hasher::new()
                    .update_rayon(black_box(&data))
                    .finalize(),
            );
        });
        println!("{kib:>10} KiB {one:>17.0} {all:>12.0}");
    }
}
