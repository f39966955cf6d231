//! Multi-message SHA-256 and SHA-1 on SHA-NI, in process, on one core: MB/s
//! (10^6 bytes per second of this thread's CPU time) of the sha2/sha1
//! crates' single stream, and of fastsum's engine on each path this CPU
//! runs (16 AVX-512 lanes; 4-, 2-, 1-way SHA-NI), on batches of 64 KiB
//! messages, of 4 KiB ones, and of mixed lengths (0 to 16 KiB and 0 to
//! 1 KiB, as the small files of a tree).
//!
//! The contenders run alternately, round after round, each timed on the
//! same batch, so a neighbour's load on a shared machine hits all of them
//! alike. Printed per contender: the best round (min-of-N time, as MB/s)
//! and the ratio of total CPU time against the crate and against the 1-way
//! kernel (>1: faster).
//!
//! ```sh
//! cargo run --release --example sha_lanes [rounds, default 15] [only: e.g. 1024]
//! ```

use std::hint::black_box;

use fastsum::internals::{Sha, Sha1, Sha256, ShaEngine, ShaLanePath as Path};
use sha2::Digest as _;

#[path = "common/mod.rs"]
mod common;
use common::thread_cpu_secs;

/// About this many bytes per timed sample.
const SAMPLE: usize = 8 << 20;

/// A contender: a name and a function hashing a whole batch.
type Run<'a> = (String, Box<dyn FnMut(&[Vec<u8>]) + 'a>);

fn engine_run<'a, H: Sha>(path: Path) -> Option<Run<'a>> {
    let mut e = ShaEngine::<H>::new(path)?;
    let name = format!("fastsum {}", path.name());
    Some((
        name,
        Box::new(move |msgs: &[Vec<u8>]| {
            e.hash_messages(msgs.iter().enumerate().map(|(i, m)| (i as u64, &m[..])));
            for d in e.take_done() {
                black_box(d);
            }
        }),
    ))
}

fn paths() -> Vec<Path> {
    Path::all()
        .into_iter()
        .filter(|p| *p != Path::Off)
        .filter(|p| {
            if !p.is_available() {
                println!(
                    "(skipped {}: this CPU lacks {:?})",
                    p.name(),
                    p.cpu_feature()
                );
            }
            p.is_available()
        })
        .collect()
}

/// The lengths of a batch's messages.
#[derive(Clone, Copy)]
enum Sizes {
    /// All this long.
    Fixed(usize),
    /// Pseudo-random, 0 to this many bytes.
    UpTo(usize),
}

/// Messages of `sizes`, about `SAMPLE` bytes in all.
fn messages(sizes: Sizes) -> Vec<Vec<u8>> {
    let mut rng = fastsum::internals::Rng::new(1);
    let mut total = 0;
    let mut msgs = Vec::new();
    while total < SAMPLE {
        let len = match sizes {
            Sizes::Fixed(n) => n,
            Sizes::UpTo(max) => rng.below(max + 1),
        };
        let m = msgs.len();
        msgs.push((0..len).map(|i| (i * 131 + i / 7 + m * 17) as u8).collect());
        total += len.max(1);
    }
    msgs
}

fn bench(title: &str, sizes: Sizes, rounds: usize, mut runs: Vec<Run<'_>>) {
    let msgs = messages(sizes);
    let count = msgs.len();
    let bytes = msgs.iter().map(Vec::len).sum::<usize>() as f64;
    for (_, run) in runs.iter_mut() {
        run(&msgs); // warm up
    }
    let mut best = vec![f64::INFINITY; runs.len()];
    let mut total = vec![0.0; runs.len()];
    for _ in 0..rounds {
        for (i, (_, run)) in runs.iter_mut().enumerate() {
            let t0 = thread_cpu_secs();
            run(black_box(&msgs));
            let t = thread_cpu_secs() - t0;
            best[i] = best[i].min(t);
            total[i] += t;
        }
    }
    let size = match sizes {
        Sizes::Fixed(n) => n.to_string(),
        Sizes::UpTo(max) => format!("0 to {max}"),
    };
    println!("\n{title}, {count} messages of {size} bytes, {rounds} rounds:");
    println!(
        "  {:<18} {:>9} {:>10} {:>10}",
        "", "best MB/s", "x crate", "x 1-way"
    );
    let one = runs
        .iter()
        .position(|(n, _)| n.ends_with("sha-ni-1"))
        .unwrap_or(0);
    for (i, (name, _)) in runs.iter().enumerate() {
        println!(
            "  {name:<18} {:9.1} {:10.3} {:10.3}",
            bytes / best[i] / 1e6,
            total[0] / total[i],
            total[one] / total[i]
        );
    }
}

/// The cross-over `Sha::MIN_WIDE` encodes: batches of `k` 64 KiB messages
/// (k = 6..16) through the 16-lane kernel with `16 - k` lanes idle
/// (`set_min_wide(1)`) and through the SHA-NI kernels; prints the CPU-time
/// ratio (>1: sixteen lanes faster).
fn crossover<H: Sha>(title: &str, rounds: usize) {
    let (Some(mut wide), Some(mut shani)) = (
        ShaEngine::<H>::new(Path::Avx512x16),
        ShaEngine::<H>::new(Path::ShaNi4),
    ) else {
        println!("\n(cross-over: this CPU lacks AVX-512BW or SHA-NI)");
        return;
    };
    wide.set_min_wide(1);
    let msgs = messages(Sizes::Fixed(64 * 1024));
    print!("\n{title} cross-over, 16 lanes with k busy / SHA-NI 4-way:");
    for k in 6..=16 {
        let batch = &msgs[..k];
        let mut total = [0.0f64; 2];
        for _ in 0..rounds {
            for (t, e) in total.iter_mut().zip([&mut wide, &mut shani]) {
                let t0 = thread_cpu_secs();
                for _ in 0..8 {
                    e.hash_messages(batch.iter().enumerate().map(|(i, m)| (i as u64, &m[..])));
                    for d in e.take_done() {
                        black_box(d);
                    }
                }
                *t += thread_cpu_secs() - t0;
            }
        }
        print!("  {k}: {:.2}", total[1] / total[0]);
    }
    println!();
}

fn main() {
    let rounds = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(15);
    // only the batches of this size (a number: Fixed or UpTo), for a profiler
    let only: Option<usize> = std::env::args().nth(2).and_then(|s| s.parse().ok());
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|t| {
            t.lines()
                .find(|l| l.starts_with("model name"))
                .map(str::to_owned)
        })
        .unwrap_or_default();
    println!("{cpu}");
    let sets = [
        Sizes::Fixed(64 * 1024),
        Sizes::Fixed(4 * 1024),
        Sizes::UpTo(16 * 1024),
        Sizes::UpTo(1024),
    ];
    for len in sets {
        if let Some(o) = only
            && !matches!(len, Sizes::Fixed(n) | Sizes::UpTo(n) if n == o)
        {
            continue;
        }
        let mut runs: Vec<Run<'_>> = vec![(
            "sha2 crate".into(),
            Box::new(|msgs: &[Vec<u8>]| {
                for m in msgs {
                    black_box(sha2::Sha256::digest(m));
                }
            }),
        )];
        runs.extend(paths().into_iter().filter_map(engine_run::<Sha256>));
        bench("SHA-256", len, rounds, runs);
        let mut runs: Vec<Run<'_>> = vec![(
            "sha1 crate".into(),
            Box::new(|msgs: &[Vec<u8>]| {
                for m in msgs {
                    black_box(sha1::Sha1::digest(m));
                }
            }),
        )];
        runs.extend(paths().into_iter().filter_map(engine_run::<Sha1>));
        bench("SHA-1", len, rounds, runs);
    }
    if only.is_none() {
        crossover::<Sha256>("SHA-256", rounds);
        crossover::<Sha1>("SHA-1", rounds);
    }
}
