//! In-process benchmarks of the reading modes, through the library: what
//! the I/O strategy costs per byte, without process start-up or output.
//!
//! Groups (criterion filters select them: `cargo bench --bench pipeline -- noop`):
//! * `modes/<algo>`: `threaded`, `sync` and `bytewise` over a range of
//!   `--chunk` sizes, hashing a file through `fastsum::internals::hash_one`, the
//!   path every named input takes in a real run.
//! * `noop`: the same file read by `sync` and by the threaded pipeline with a
//!   consumer that does nothing (seed 002's "NoOp" series): the read
//!   strategy alone. `benches/e2e.sh` turns it into speed factors.
//!
//! The default run stays within a few minutes (MD5 over every chunk size,
//! the other algorithms at the default chunk). `FASTSUM_BENCH_FULL=1` runs
//! the whole grid: every algorithm × every chunk size × every mode.
//! `FASTSUM_BENCH_MIB=N` sets the file size (default 8 MiB). The file is
//! random bytes, written under a temporary directory removed at exit, and
//! read warm from the page cache (cold-cache runs are e2e.sh's job: evicting
//! the cache needs a tool outside the process).

use std::fs::File;
use std::hint::black_box;
use std::io::Write;
use std::path::Path;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use fastsum::internals::{
    Algorithm, Input, Mode, Plan, Size, Stats, drain_reader, drain_sync, hash_one,
};

/// Chunk sizes of seed 002 (16 B … 64 KiB), and 1 MiB past the default.
const CHUNKS: [usize; 7] = [16, 64, 256, 1 << 10, 4 << 10, 64 << 10, 1 << 20];
/// The full grid adds the sizes between.
const CHUNKS_FULL: [usize; 11] = [
    16,
    64,
    256,
    1 << 10,
    4 << 10,
    8 << 10,
    16 << 10,
    64 << 10,
    128 << 10,
    256 << 10,
    1 << 20,
];

fn env_flag(name: &str) -> bool {
    std::env::var_os(name).is_some_and(|v| v == "1")
}

fn file_mib() -> usize {
    std::env::var("FASTSUM_BENCH_MIB")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|&n| n > 0)
        .unwrap_or(8)
}

/// Write `len` random-looking bytes (xorshift: incompressible, so no
/// filesystem shortcut) to `path`.
fn write_random(path: &Path, len: usize) -> std::io::Result<()> {
    let mut f = File::create(path)?;
    let mut rng = fastsum::internals::Rng::new(1);
    let mut block = vec![0u8; 1 << 20];
    let mut left = len;
    while left > 0 {
        for word in block.chunks_exact_mut(8) {
            word.copy_from_slice(&rng.next_u64().to_le_bytes());
        }
        let n = left.min(block.len());
        f.write_all(&block[..n])?;
        left -= n;
    }
    f.sync_all()
}

fn plan(mode: Mode, chunk: usize) -> Plan {
    Plan {
        chunk: Size::bytes(chunk).expect("a chunk size from 1 to 1G"),
        ..Plan::new(mode)
    }
}

fn label(algo: Algorithm) -> &'static str {
    algo.name()
}

/// Make sure a cell measures a correct hash, not an error path: its digest
/// must equal the one sync reading with the default chunk gives.
fn check(p: &Plan, algo: Algorithm, path: &Path) {
    let input = || Input::Path(path.to_path_buf());
    let want = hash_one(&Plan::new(Mode::Sync), algo, input());
    match (hash_one(p, algo, input()), want) {
        (Ok(got), Ok(want)) if got == want => {}
        (got, want) => panic!("{p:?} {algo:?}: {got:?} instead of {want:?}"),
    }
}

/// Hash the file in every mode over the chunk sizes.
fn modes(c: &mut Criterion, path: &Path, len: usize) {
    let full = env_flag("FASTSUM_BENCH_FULL");
    let default_chunk = Plan::new(Mode::Threaded).chunk.get();
    for algo in Algorithm::ALL {
        // by default only MD5 sweeps the chunk sizes (seed 002's algorithm)
        let chunks: Vec<usize> = match (full, algo) {
            (true, _) => CHUNKS_FULL.to_vec(),
            (false, Algorithm::Md5) => CHUNKS.to_vec(),
            (false, _) => vec![default_chunk],
        };
        let mut g = c.benchmark_group(format!("modes/{}", label(algo)));
        g.throughput(Throughput::Bytes(len as u64));
        for &chunk in &chunks {
            for mode in [Mode::Threaded, Mode::Sync] {
                let p = plan(mode, chunk);
                check(&p, algo, path);
                let id = BenchmarkId::new(format!("{mode:?}").to_lowercase(), chunk);
                g.bench_with_input(id, &p, |b, p| {
                    b.iter(|| hash_one(p, algo, Input::Path(path.to_path_buf())))
                });
            }
        }
        // bytewise ignores --chunk: once per algorithm, and in the default
        // run only for MD5 (it takes ~1 s per 32 MiB)
        if full || algo == Algorithm::Md5 {
            let p = Plan::new(Mode::Bytewise);
            check(&p, algo, path);
            g.bench_function("bytewise", |b| {
                b.iter(|| hash_one(&p, algo, Input::Path(path.to_path_buf())))
            });
        }
        g.finish();
    }
}

/// Read the file and do nothing with the bytes: sync vs the threaded pipeline.
fn noop(c: &mut Criterion, path: &Path, len: usize) {
    let mut g = c.benchmark_group("noop");
    g.throughput(Throughput::Bytes(len as u64));
    for chunk in CHUNKS {
        let p = plan(Mode::Threaded, chunk);
        // both must read the whole file, or the cell measures an error path
        let stats = Stats::default();
        let sync = File::open(path).and_then(|f| drain_sync(f, &mut vec![0u8; chunk], &stats));
        let threaded = File::open(path).and_then(|f| drain_reader(&p, &stats, f));
        if sync.as_ref().ok() != Some(&(len as u64))
            || threaded.as_ref().ok() != Some(&(len as u64))
        {
            panic!("chunk {chunk}: sync read {sync:?}, threaded {threaded:?}, not {len} bytes");
        }

        g.bench_with_input(BenchmarkId::new("sync", chunk), &chunk, |b, &chunk| {
            let mut buf = vec![0u8; chunk];
            b.iter(|| {
                let f = File::open(path)?;
                drain_sync(f, black_box(&mut buf), &Stats::default())
            })
        });
        g.bench_with_input(BenchmarkId::new("threaded", chunk), &p, |b, p| {
            b.iter(|| drain_reader(p, &Stats::default(), File::open(path)?))
        });
    }
    g.finish();
}

fn benches(c: &mut Criterion) {
    let len = file_mib() << 20;
    let dir = match tempfile::tempdir() {
        Ok(d) => d,
        Err(e) => panic!("cannot make a temporary directory: {e}"),
    };
    let path = dir.path().join("random.bin");
    if let Err(e) = write_random(&path, len) {
        panic!("cannot write {}: {e}", path.display());
    }
    modes(c, &path, len);
    noop(c, &path, len);
}

fn config() -> Criterion {
    // few, short samples: the slow cells (bytewise, 16-byte reads) take
    // tenths of a second per iteration, and the point is ratios, not the
    // last percent
    Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
}

criterion_group! {
    name = pipeline;
    config = config();
    targets = benches
}
criterion_main!(pipeline);
