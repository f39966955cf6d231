//! `--stats`: stdout is the same with and without it; stderr gets every
//! counter, with counts that follow from the sizes involved (a read call
//! per `--chunk` in sync mode, per `--readahead` block in threaded mode),
//! and in threaded mode the two pipeline waits.

use std::process::Output;
use std::time::Instant;

use fastsum::internals::MMAP_MIN;

use crate::util::{
    MODES, assert_stdout, fastsum, fastsum_path, files_of_sizes, multicall, random_bytes,
    require_strace, run, run_with_stdin, shown, tempdir,
};

/// The counters every mode reports, in order.
const COMMON: [&str; 5] = [
    "files hashed",
    "bytes hashed",
    "wall time",
    "throughput",
    "read calls",
];
/// The threaded pipeline's two waits, and the hashing the reader does in
/// its wait.
const WAITS: [&str; 4] = [
    "hasher waited for data",
    "reader waited for a free buffer",
    "batches the reader hashed while it waited",
    "reader hashing while it waited",
];
/// What an MD5 run adds: the kernels, and how full the SIMD lanes were.
const MD5_LINES: [&str; 2] = ["md5 kernels", "md5 lane calls"];

/// The `(name, value)` pairs of a `--stats` report; every stderr line must
/// be one, prefixed `prog: stats: `.
fn counters(o: &Output, prog: &str) -> Vec<(String, String)> {
    let prefix = format!("{prog}: stats: ");
    String::from_utf8_lossy(&o.stderr)
        .lines()
        .map(|line| {
            let rest = line
                .strip_prefix(&prefix)
                .unwrap_or_else(|| panic!("not a stats line: {line:?}"));
            let (name, value) = rest
                .split_once(": ")
                .unwrap_or_else(|| panic!("no value: {line:?}"));
            (name.to_string(), value.to_string())
        })
        .collect()
}

/// The value of `name`, a number followed by `unit` (empty for counts).
fn number(stats: &[(String, String)], name: &str, unit: &str) -> f64 {
    let (_, value) = stats
        .iter()
        .find(|(n, _)| n == name)
        .unwrap_or_else(|| panic!("no {name:?} in {stats:?}"));
    let digits = value
        .strip_suffix(unit)
        .unwrap_or_else(|| panic!("{name}: {value:?} does not end with {unit:?}"));
    digits
        .trim_end()
        .parse()
        .unwrap_or_else(|_| panic!("{name}: {value:?} is not a number"))
}

#[test]
fn stdout_is_the_same_with_and_without_stats() {
    let dir = tempdir();
    let mut names = files_of_sizes(dir.path(), &[0, 1, 4097, 300_001], 0);
    names.push("nosuch".into());
    for mode in MODES {
        let plain = run(fastsum()
            .current_dir(dir.path())
            .args(["-m", mode])
            .args(&names));
        let with = run(fastsum()
            .current_dir(dir.path())
            .args(["-m", mode, "--stats"])
            .args(&names));
        assert_stdout(mode, &with, &plain.stdout);
        assert_eq!(with.status.code(), plain.status.code(), "{mode}");
        assert!(!plain.stdout.is_empty() && plain.stdout.ends_with(b"\n"));
        // the error message comes first, the report after the run
        let stderr = String::from_utf8_lossy(&with.stderr);
        assert!(
            stderr.starts_with("fastsum: nosuch: No such file or directory\n"),
            "{mode}: {stderr}"
        );
    }
}

/// Every counter is there, in order, with the counts the sizes imply: each
/// file costs one read call per block (a `--chunk` in sync mode, a
/// `--readahead` block in threaded mode, BufReader's 8 KiB in bytewise mode)
/// plus the read that finds its end; mmap mode maps the files of
/// `MMAP_MIN` bytes or more (no read call) and reads the others as sync
/// mode does. The times fit the run's own: wall time within the time the
/// test saw, throughput = bytes / wall time, each wait within the threads'
/// time.
#[test]
fn report_has_every_counter_with_exact_counts() {
    let dir = tempdir();
    let sizes = [0usize, 1, 1000, 4096, 100_000];
    assert!(sizes[..4].iter().all(|&n| (n as u64) < MMAP_MIN) && sizes[4] as u64 >= MMAP_MIN);
    let names = files_of_sizes(dir.path(), &sizes, 0);
    let total: usize = sizes.iter().sum();
    let reads = |block: usize, files: &[usize]| -> f64 {
        files.iter().map(|n| n.div_ceil(block) + 1).sum::<usize>() as f64
    };
    // Threaded mode packs a small file that fits in what is left of a block
    // with one read: its length is known, so the read returning 0 is saved
    // (the 0-, 1- and 1000-byte files here with 4K blocks; with 5000-byte
    // blocks, the 1-, 1000- and 4096-byte files).
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let cases: [(&str, &[&str], f64, usize); 5] = [
        (
            "threaded",
            &["--readahead", "4K", "--chunk", "7"],
            reads(4096, &sizes) - 2.0,
            cores,
        ),
        (
            "sync",
            &["--chunk", "16", "--readahead", "4K"],
            reads(16, &sizes),
            cores,
        ),
        ("bytewise", &[], reads(8192, &sizes), cores),
        ("mmap", &["--chunk", "16"], reads(16, &sizes[..4]), cores),
        // -j 4: the same reads, whichever thread does them
        (
            "threaded",
            &["-j", "4", "--readahead", "5000"],
            reads(5000, &sizes) - 3.0,
            4,
        ),
    ];
    for (mode, opts, want_reads, threads) in cases {
        let start = Instant::now();
        let o = run(fastsum()
            .current_dir(dir.path())
            .args(["-m", mode, "--stats"])
            .args(opts)
            .args(&names));
        let seen = start.elapsed().as_secs_f64();
        let what = format!("{mode} {opts:?}");
        assert_eq!(o.status.code(), Some(0), "{what}: {}", shown(&o));
        let stats = counters(&o, "fastsum");
        // (a read of the page cache that a busy machine held up past the
        // storage observer's threshold is counted as a wait on the storage:
        // that line depends on the machine's load, not on the run)
        let got: Vec<&str> = stats
            .iter()
            .map(|(n, _)| n.as_str())
            .filter(|n| *n != "reads that waited on the storage")
            .collect();
        let mut want: Vec<&str> = COMMON.to_vec();
        if mode == "threaded" {
            want.extend(WAITS);
        }
        want.extend(MD5_LINES);
        assert_eq!(got, want, "{what}");
        assert_eq!(
            number(&stats, "files hashed", ""),
            sizes.len() as f64,
            "{what}"
        );
        assert_eq!(number(&stats, "bytes hashed", ""), total as f64, "{what}");
        assert_eq!(number(&stats, "read calls", ""), want_reads, "{what}");
        // printed to 1 ms: the true value is within half of that
        let wall = number(&stats, "wall time", " s");
        assert!(
            wall <= seen + 0.0005,
            "{what}: wall time {wall} s > {seen} s"
        );
        let mib = total as f64 / (1024.0 * 1024.0);
        let throughput = number(&stats, "throughput", " MiB/s");
        let fastest = mib / (wall - 0.0005).max(0.0);
        let slowest = mib / (wall + 0.0005);
        assert!(
            (slowest - 0.05..=fastest + 0.05).contains(&throughput),
            "{what}: {throughput} MiB/s for {mib} MiB in {wall} s"
        );
        if mode == "threaded" {
            // one reader; at most `threads` hashers waiting at once
            let ms = seen * 1000.0 + 0.05;
            let hasher = number(&stats, WAITS[0], " ms");
            assert!(hasher <= ms * threads as f64, "{what}: {hasher} ms");
            let reader = number(&stats, WAITS[1], " ms");
            assert!(reader <= ms, "{what}: {reader} ms");
            // the reader hashes only inside its wait, whole batches
            let hashing = number(&stats, WAITS[3], " ms");
            assert!(hashing <= reader + 0.05, "{what}: {hashing} ms of {reader}");
            let batches = number(&stats, WAITS[2], "");
            assert!(batches <= sizes.len() as f64, "{what}: {batches} batches");
        }
    }
}

/// Many small MD5 files in threaded mode are hashed side by side in SIMD
/// lanes: `--stats` names the path and shows more than one busy lane per
/// call; with the lanes turned off, no lane call is made and the digests
/// are the same.
#[test]
fn md5_lanes_are_reported_and_change_no_digest() {
    let dir = tempdir();
    let sizes: Vec<usize> = (0..200).map(|i| (i * 37) % 3000).collect();
    let names = files_of_sizes(dir.path(), &sizes, 0);
    let mut outs = Vec::new();
    // auto picks the fastest path this CPU runs; one forced path besides
    // (AVX2's where the CPU has it, else the portable lanes)
    let best = fastsum::internals::LanePath::best().name();
    let runs_avx2 = fastsum::internals::LanePath::available()
        .into_iter()
        .any(|p| p.name() == "avx2");
    let forced = if runs_avx2 {
        "avx2"
    } else {
        crate::util::skip("forcing the avx2 lane path: this CPU lacks avx2; forcing scalar");
        "scalar"
    };
    for lanes in ["auto", forced, "off"] {
        let o = run(fastsum()
            .env("FASTSUM_MD5_LANES", lanes)
            .current_dir(dir.path())
            .arg("--stats")
            .args(&names));
        assert_eq!(o.status.code(), Some(0), "{lanes}: {}", shown(&o));
        let stats = counters(&o, "fastsum");
        let kernels = &stats.iter().find(|(n, _)| n == "md5 kernels").unwrap().1;
        let calls = &stats.iter().find(|(n, _)| n == "md5 lane calls").unwrap().1;
        let n_calls: u64 = calls.split(',').next().unwrap().parse().unwrap();
        let busy: f64 = calls
            .split(", ")
            .nth(1)
            .and_then(|b| b.split(' ').next())
            .unwrap()
            .parse()
            .unwrap();
        if lanes == "off" {
            assert!(kernels.starts_with("off lanes"), "{kernels}");
            assert_eq!(n_calls, 0, "{calls}");
        } else {
            let want = if lanes == "auto" { best } else { lanes };
            assert!(kernels.starts_with(&format!("{want} lanes")), "{kernels}");
            assert!(n_calls > 0 && busy > 2.0, "{lanes}: {calls}");
        }
        outs.push(o.stdout);
    }
    assert_eq!(outs[0], outs[2]);
    assert_eq!(outs[1], outs[2]);
}

/// Inputs that fail are not counted as hashed; the report carries the
/// invoked name, like every other message.
#[test]
fn failed_inputs_are_not_counted_and_prefix_is_the_invoked_name() {
    let dir = tempdir();
    let names = files_of_sizes(dir.path(), &[10, 20], 0);
    let o = run(multicall(dir.path(), "sha256sum")
        .current_dir(dir.path())
        .args(["--stats", &names[0], "nosuch", &names[1]]));
    assert_eq!(o.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&o.stderr);
    let (first, report) = stderr.split_once('\n').expect("two parts");
    assert_eq!(first, "sha256sum: nosuch: No such file or directory");
    let report = Output {
        stderr: report.as_bytes().to_vec(),
        ..o
    };
    let stats = counters(&report, "sha256sum");
    assert_eq!(number(&stats, "files hashed", ""), 2.0);
    assert_eq!(number(&stats, "bytes hashed", ""), 30.0);
}

/// The read calls `--stats` counts are system calls of the asked size, on
/// standard input too (std's `Stdin` would turn them into 8 KiB reads from
/// its own buffer): checked with strace when it is installed and allowed.
#[test]
fn sync_reads_are_chunk_sized_system_calls_even_on_stdin() {
    if !require_strace() {
        return;
    }
    let dir = tempdir();
    let trace = dir.path().join("trace");
    let data = random_bytes(1000, 9);
    // mmap mode reads a stream as sync mode does
    for mode in ["sync", "mmap"] {
        let mut strace = std::process::Command::new("strace");
        strace
            .args(["-f", "-e", "trace=read", "-o"])
            .arg(&trace)
            .arg(fastsum_path())
            .args(["-m", mode, "--chunk", "16", "--stats", "-"]);
        let o = run_with_stdin(&mut strace, &data);
        assert_eq!(o.status.code(), Some(0), "{mode}: {}", shown(&o));
        let stats = counters(&o, "fastsum");
        // 62 full chunks, the last 8 bytes, and the read that finds the end
        assert_eq!(number(&stats, "read calls", ""), 64.0, "{mode}");
        let trace = std::fs::read_to_string(&trace).expect("read trace");
        let sized_16 = trace.lines().filter(|l| l.contains(", 16)")).count();
        assert!(
            sized_16 >= 64,
            "{mode}: {sized_16} read(…, 16) calls:\n{trace}"
        );
    }
}

/// On far storage (slowfs, every request kind a round trip), the lines of
/// requests in flight: by kind, their latency, how many at once, and where
/// the count of requests in flight settled. Their values depend on the
/// load (how long, how many): their form is checked, not their values.
#[test]
fn far_storage_reports_requests_in_flight_and_where_the_count_settled() {
    let Some(bin) = crate::slowfs::slowfs() else {
        return;
    };
    let dir = tempdir();
    let src = crate::slowfs::small_tree(dir.path(), 120);
    let args = ["--latency", "2", "--profile", "sshfs"];
    let m = crate::slowfs::Mount::new(&bin, &src, &dir.path().join("mnt"), &args);
    let mut c = fastsum();
    c.current_dir(&m.dir)
        .arg("--stats")
        .args(crate::slowfs::names(&src));
    let o = run(&mut c);
    assert!(o.status.success(), "{}", shown(&o));
    let stats = counters(&o, "fastsum");
    let value = |name: &str| -> &str {
        let found = stats.iter().find(|(n, _)| n == name);
        &found
            .unwrap_or_else(|| panic!("no {name:?} in {stats:?}"))
            .1
    };
    let settled = value("requests in flight on far storage");
    let n: usize = settled
        .strip_prefix("settled at ")
        .and_then(|v| v.split(' ').next()?.parse().ok())
        .unwrap_or_else(|| panic!("{settled:?}"));
    assert!((1..=64).contains(&n), "{settled:?}");
    assert!(settled.contains("(started at 8, "), "{settled:?}");
    for kind in ["opens", "reads"] {
        let v = value(&format!("{kind} timed on far storage"));
        assert!(v.contains(" ms each on average, up to "), "{kind}: {v:?}");
        assert!(v.ends_with(" in flight"), "{kind}: {v:?}");
    }
}
