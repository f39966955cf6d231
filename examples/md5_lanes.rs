//! Multi-lane MD5 throughput in process, in MB/s (10^6 bytes per second of
//! this thread's CPU time, as `openssl speed` counts), on one core:
//!
//! 1. the single-stream kernel on 64 KiB messages;
//! 2. each multi-lane path with all lanes busy on 64 KiB messages, through
//!    the engine and as raw block calls, with TSC (reference, not core)
//!    cycles per block per lane and per call;
//! 3. sets of whole messages as a tree of files gives them (0-64 bytes,
//!    1-200 KiB) through the engine on each SIMD path, against the
//!    single-stream kernel, with the lane occupancy reached;
//! 4. `openssl speed -evp md5 -bytes 65536 -seconds 2`, if present;
//! 5. CSV rows `path,lanes,MBps`: aggregate throughput of 1..width busy
//!    lanes (64 KiB messages) on each path with multi-lane calls forced
//!    (`set_min_busy(1)`), and `auto`: the best path as the engine runs it
//!    by default (the single-stream kernel below the cross-over).
//!
//! ```sh
//! cargo run --release --example md5_lanes [seconds per measurement, default 1]
//! ```

use std::hint::black_box;
use std::process::Command;

use fastsum::internals::{Engine, Kernel, LANES, LanePath as Path, Md5, compress_lanes};

#[path = "common/mod.rs"]
mod common;
use common::thread_cpu_secs;

const MSG: usize = 64 * 1024;

/// Run `round` (which hashes `bytes` bytes) repeatedly for about `secs` of
/// CPU time; return MB/s.
fn measure(secs: f64, bytes: usize, mut round: impl FnMut()) -> f64 {
    round(); // warm up
    let start = thread_cpu_secs();
    let mut total = 0u64;
    while thread_cpu_secs() - start < secs {
        round();
        total += bytes as u64;
    }
    total as f64 / (thread_cpu_secs() - start) / 1e6
}

/// `n` distinct pseudo-random 64 KiB messages.
fn messages(n: usize) -> Vec<Vec<u8>> {
    (0..n)
        .map(|m| (0..MSG).map(|i| (i * 131 + i / 7 + m * 17) as u8).collect())
        .collect()
}

/// Aggregate MB/s of `engine` hashing `msgs` (all at once, as whole
/// messages).
fn engine_mbps(secs: f64, engine: &mut Engine, msgs: &[Vec<u8>]) -> f64 {
    measure(secs, msgs.len() * MSG, || {
        engine.hash_messages(msgs.iter().enumerate().map(|(i, m)| (i as u64, &m[..])));
        for d in engine.take_done() {
            black_box(d);
        }
    })
}

/// TSC ticks per second, from a 200 ms sleep.
fn tsc_hz() -> f64 {
    // SAFETY: rdtsc has no preconditions on x86-64.
    let t0 = unsafe { core::arch::x86_64::_rdtsc() };
    let w0 = std::time::Instant::now();
    std::thread::sleep(std::time::Duration::from_millis(200));
    // SAFETY: as above.
    let t1 = unsafe { core::arch::x86_64::_rdtsc() };
    (t1 - t0) as f64 / w0.elapsed().as_secs_f64()
}

fn openssl_md5() -> Option<String> {
    let out = Command::new("openssl")
        .args(["speed", "-evp", "md5", "-bytes", "65536", "-seconds", "2"])
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    // Last line: "md5   123456.78k" (thousands of bytes per second).
    let line = text.lines().rev().find(|l| l.starts_with("md5"))?;
    let k = line.split_whitespace().last()?.trim_end_matches('k');
    let kbs: f64 = k.parse().ok()?;
    Some(format!("{:8.1} MB/s", kbs / 1000.0))
}

fn main() {
    let secs = std::env::args()
        .nth(1)
        .and_then(|s| s.parse::<f64>().ok())
        .unwrap_or(1.0);
    let msgs = messages(LANES);
    let hz = tsc_hz();
    println!(
        "# one core, 64 KiB messages, MB/s of thread CPU time; TSC {:.0} MHz",
        hz / 1e6
    );

    // Headline: single stream, and each path through the engine and as raw
    // block calls, all lanes busy; measured in ROUNDS interleaved rounds so
    // that a load change on a shared machine hits every contender alike.
    // Figures are medians over the rounds; ratios are medians of each
    // round's ratio to that round's single-stream figure.
    const ROUNDS: usize = 5;
    let kernel = Kernel::fastest();
    let all_blocks: Vec<[&[u8; 64]; LANES]> = (0..MSG / 64)
        .map(|b| std::array::from_fn(|l| msgs[l][64 * b..].first_chunk::<64>().unwrap_or(&[0; 64])))
        .collect();
    type Round<'a> = Box<dyn FnMut() + 'a>;
    let mut contenders: Vec<(String, usize, usize, Round<'_>)> = Vec::new();
    contenders.push((
        format!("single-stream {kernel:?}"),
        1,
        MSG,
        Box::new(|| {
            let mut h = Md5::with_kernel(kernel);
            h.update(&msgs[0]);
            black_box(h.finalize());
        }),
    ));
    for path in Path::available() {
        if path == Path::Off {
            continue;
        }
        let w = path.width();
        let Some(mut engine) = Engine::new(path) else {
            continue;
        };
        let lanes = &msgs[..w];
        contenders.push((
            format!("{} engine", path.name()),
            w,
            w * MSG,
            Box::new(move || {
                engine.hash_messages(lanes.iter().enumerate().map(|(i, m)| (i as u64, &m[..])));
                for d in engine.take_done() {
                    black_box(d);
                }
            }),
        ));
        // Raw block calls: all lanes, no engine bookkeeping.
        let mut state = [[0u32; LANES]; 4];
        let blocks = &all_blocks;
        contenders.push((
            format!("{} raw", path.name()),
            w,
            w * MSG,
            Box::new(move || {
                for b in blocks {
                    if compress_lanes(path, &mut state, b).is_none() {
                        return;
                    }
                }
                black_box(&state);
            }),
        ));
    }
    let mut mbps = vec![Vec::new(); contenders.len()];
    for _ in 0..ROUNDS {
        for (k, (_, _, bytes, round)) in contenders.iter_mut().enumerate() {
            mbps[k].push(measure(secs / ROUNDS as f64, *bytes, &mut **round));
        }
    }
    let median = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let single = median(mbps[0].clone());
    let cpb = |mbps: f64| hz / (mbps * 1e6) * 64.0;
    for (k, (name, lanes, _, _)) in contenders.iter().enumerate() {
        let ratio = median(mbps[k].iter().zip(&mbps[0]).map(|(x, s)| x / s).collect());
        let m = median(mbps[k].clone());
        println!(
            "{name:<24} {lanes:2} lanes {m:8.1} MB/s {ratio:6.2} x single  {:6.1} TSC cycles/block/lane {:6.0} per call",
            cpb(m),
            cpb(m) * *lanes as f64,
        );
    }

    // Trees of files, as whole messages: many tiny ones (1-2 blocks each,
    // padding included), and 1-200 KiB ones.
    let mut rng = fastsum::internals::Rng::new(0x2545_f491_4f6c_dd1d);
    let mut rand = |n: usize| rng.below(n);
    let pool: Vec<u8> = (0..256 * 1024).map(|i| (i * 7 + i / 251) as u8).collect();
    let tiny: Vec<&[u8]> = (0..20_000).map(|i| &pool[i..i + rand(65)]).collect();
    let mixed: Vec<&[u8]> = (0..200)
        .map(|i| &pool[i..i + 1024 + rand(199 * 1024)])
        .collect();
    for (name, set) in [("0-64 B", &tiny), ("1-200 KiB", &mixed)] {
        let bytes: usize = set.iter().map(|m| m.len()).sum();
        let n = set.len() as f64;
        let single = measure(secs, bytes, || {
            for m in set.iter() {
                let mut h = Md5::with_kernel(kernel);
                h.update(m);
                black_box(h.finalize());
            }
        });
        print!(
            "{:>9} messages: single {:8.1} MB/s {:6.2} M msg/s",
            name,
            single,
            single * 1e6 / bytes as f64 * n / 1e6
        );
        for path in Path::available() {
            if path == Path::Off || path == Path::Scalar {
                continue;
            }
            let Some(mut engine) = Engine::new(path) else {
                continue;
            };
            let mbps = measure(secs, bytes, || {
                engine.hash_messages(set.iter().enumerate().map(|(i, m)| (i as u64, *m)));
                for d in engine.take_done() {
                    black_box(d);
                }
            });
            print!(
                " | {} {:5.2} x (occupancy {:.1})",
                path.name(),
                mbps / single,
                engine.stats().occupancy()
            );
        }
        println!();
    }

    match openssl_md5() {
        Some(s) => println!("openssl speed -evp md5 -bytes 65536 -seconds 2: {s}"),
        None => println!("openssl speed -evp md5: not available"),
    }

    println!("path,lanes,MBps");
    println!("single,1,{single:.1}");
    for path in Path::available() {
        if path == Path::Off {
            continue;
        }
        for (label, forced) in [(path.name(), true), ("auto", false)] {
            if !forced && path != Path::best() {
                continue;
            }
            let Some(mut engine) = Engine::new(path) else {
                continue;
            };
            if forced {
                engine.set_min_busy(1);
            }
            for k in 1..=path.width() {
                let mbps = engine_mbps(secs / 4.0, &mut engine, &msgs[..k]);
                println!("{label},{k},{mbps:.1}");
            }
        }
    }
}
