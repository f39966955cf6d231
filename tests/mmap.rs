//! `--mode mmap`, and BLAKE3's multi-threaded path (which the default mode
//! takes for big files too): byte-identical output to the GNU tools and to
//! the other modes, and the fallbacks to plain reads.

use std::process::Command;

use fastsum::internals::{Algorithm, BLAKE3_MULTITHREAD_MIN, MMAP_MIN};

use crate::util::Bounded;
use crate::util::tempdir;
use crate::util::{
    Pair, assert_output, blake3_lines, fastsum, files_of_sizes, gnu, gnu_algorithms, random_bytes,
    require_tool, run, run_with_stdin, write_file,
};

/// File sizes around page size, the mapping threshold, BLAKE3's chunk and
/// multi-threading thresholds, and a few MiB.
fn sizes() -> Vec<usize> {
    let m = MMAP_MIN as usize;
    let t = BLAKE3_MULTITHREAD_MIN;
    vec![
        0,
        1,
        1023,
        1024,
        1025,
        4095,
        4096,
        4097,
        m - 1,
        m,
        m + 1,
        t - 1,
        t,
        t + 1,
        (3 << 20) + 17,
    ]
}

/// mmap mode with one and three jobs, and the default mode.
const MMAP_OPTS: [&[&str]; 3] = [&["-m", "mmap", "-j1"], &["-m", "mmap", "-j3"], &[]];

#[test]
fn mmap_matches_gnu_and_threaded_for_every_algorithm() {
    let dir = tempdir();
    let names = files_of_sizes(dir.path(), &sizes(), 1);
    for algo in gnu_algorithms() {
        let Some(pair) = Pair::new(dir.path(), algo) else {
            return;
        };
        let want = pair.assert_same_under(MMAP_OPTS, &names, run);
        assert!(want.status.success(), "{}: {want:?}", pair.tool());
    }
    let want = blake3_lines(dir.path(), &names);
    for opts in MMAP_OPTS {
        let got = run(fastsum()
            .current_dir(dir.path())
            .args(["-a", "blake3", "--untagged"])
            .args(opts)
            .args(&names));
        assert_output(&format!("blake3 {opts:?}"), &got, &want, "", 0);
    }
}

/// BLAKE3 around the multi-threading threshold, in the modes that map
/// (mmap, and threaded for big files) and one that never does (sync):
/// every result equals the blake3 crate's one-shot hash, and b3sum's when
/// it is installed.
#[test]
fn blake3_multithreaded_matches_one_thread() {
    let dir = tempdir();
    let t = BLAKE3_MULTITHREAD_MIN;
    let sizes = [t - 1024, t - 1, t, t + 1, t + 1024, 2 * t + 7, 8 << 20];
    let names = files_of_sizes(dir.path(), &sizes, 1);
    let want = blake3_lines(dir.path(), &names);
    if require_tool("b3sum") {
        let got = run(gnu("b3sum").current_dir(dir.path()).args(&names));
        assert_output("b3sum against the blake3 crate", &got, &want, "", 0);
    }
    for mode in ["mmap", "threaded", "sync"] {
        for jobs in ["-j1", "-j2"] {
            let got = run(fastsum()
                .current_dir(dir.path())
                .args(["-a", "blake3", "--untagged", "-m", mode, jobs])
                .args(&names));
            assert_output(&format!("{mode} {jobs}"), &got, &want, "", 0);
        }
    }
}

/// Inputs mmap mode must read instead of mapping: standard input (piped
/// and as `-`), a FIFO, a /proc file whose size (0) lies, an empty file,
/// and a directory, whose read error must be GNU's, among good files, with
/// `-j`.
#[test]
fn mmap_falls_back_to_reads_like_gnu() {
    let dir = tempdir();
    let (Some(md5), Some(sha256)) = (
        Pair::new(dir.path(), Algorithm::Md5),
        Pair::new(dir.path(), Algorithm::Sha256),
    ) else {
        return;
    };
    let big = random_bytes(100_000, 9);
    write_file(dir.path(), "big", &big);
    write_file(dir.path(), "empty", b"");
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    let args = [
        "big",
        "empty",
        "sub",
        "/proc/sys/kernel/ostype",
        "missing",
        "big",
    ];
    let opts = [["-m", "mmap", "-j1"], ["-m", "mmap", "-j4"]];
    md5.assert_same_under(opts, &args, run);

    // standard input, implicit and as `-`
    for args in [&[][..], &["-", "big"]] {
        sha256.assert_same_under(opts, args, |c| run_with_stdin(c, &big));
    }
}

#[test]
fn mmap_reads_a_fifo() {
    let dir = tempdir();
    let fifo = dir.path().join("fifo");
    let status = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(status.success());
    let data = random_bytes(300_000, 3);
    let writer = {
        let (fifo, data) = (fifo.clone(), data.clone());
        std::thread::spawn(move || std::fs::write(fifo, data).unwrap())
    };
    let mut c = fastsum();
    c.current_dir(dir.path())
        .args(["-m", "mmap", "-a", "blake3", "--untagged", "fifo"]);
    let got = run(&mut c);
    crate::util::join_fifo_writer(&fifo, writer);
    let want = format!("{}  fifo\n", blake3::hash(&data).to_hex());
    assert_output("mmap fifo", &got, want, "", 0);
}

/// The mapped path is really taken: a big regular file costs no read call
/// in mmap mode (so the tests above exercise the mapping, not the
/// fallback), a /proc file costs two (data, then end of file).
#[test]
fn mmap_maps_big_files_and_reads_others() {
    let dir = tempdir();
    write_file(dir.path(), "big", &random_bytes(1 << 20, 5));
    let read_calls = |file: &str, algo: &str| {
        let o = fastsum()
            .current_dir(dir.path())
            .args(["-m", "mmap", "--stats", "-a", algo, "--untagged", file])
            .bounded_output()
            .unwrap();
        assert_eq!(o.status.code(), Some(0));
        let stderr = String::from_utf8(o.stderr).unwrap();
        stderr
            .lines()
            .find(|l| l.starts_with("fastsum: stats: read calls: "))
            .unwrap_or_else(|| panic!("no read-call count in {stderr:?}"))
            .to_string()
    };
    for algo in ["md5", "blake3"] {
        assert_eq!(read_calls("big", algo), "fastsum: stats: read calls: 0");
        assert_eq!(
            read_calls("/proc/sys/kernel/ostype", algo),
            "fastsum: stats: read calls: 2"
        );
    }
}

/// Several big files in the threaded mode: each followed by another is
/// mapped (it is in the page cache, having just been written) and hashed
/// by a hasher of its own, the last one read; under `-j 1`, or with
/// something else after them, every one is read. The lines are
/// md5sum's and sha256sum's either way, in order, with a missing file and
/// stdin among them.
#[test]
fn big_files_one_after_another_hash_side_by_side() {
    let dir = tempdir();
    // 16 MiB: the smallest file the route calls big
    let big = 16 << 20;
    let names = ["b1", "b2", "b3"];
    for (i, n) in names.iter().enumerate() {
        write_file(dir.path(), n, &random_bytes(big + i * 4099, 20 + i as u64));
    }
    write_file(dir.path(), "small", b"abc");
    let read_calls = |o: &std::process::Output| -> u64 {
        let stderr = String::from_utf8_lossy(&o.stderr);
        let line = stderr
            .lines()
            .find_map(|l| l.strip_prefix("fastsum: stats: read calls: "))
            .unwrap_or_else(|| panic!("no read-call count in {stderr:?}"));
        line.parse().unwrap()
    };
    for algo in [Algorithm::Md5, Algorithm::Sha256] {
        let Some(pair) = Pair::new(dir.path(), algo) else {
            continue;
        };
        let args = ["b1", "b2", "missing", "b3", "b1", "-", "small", "b2", "b3"];
        pair.assert_same_under([["-j", "2"], ["-j", "1"], ["-j", "3"]], &args, |c| {
            run_with_stdin(c, b"stdin")
        });
        let stats = |jobs: &str| {
            let o = fastsum()
                .current_dir(dir.path())
                .args(["--stats", "-a", algo.name(), "--untagged", "-j", jobs])
                .args(names)
                .bounded_output()
                .unwrap();
            assert_eq!(o.status.code(), Some(0), "{o:?}");
            read_calls(&o)
        };
        let alone = stats("1");
        // -j 1 reads all three; -j 2 reads only the last (a third of them,
        // give or take the read that finds each end). On a loaded machine
        // the opener thread may not show the next file within its wait, and
        // a file is read instead (the lines are the same): one run of three
        // must map both.
        assert!(
            alone >= 3 * (big as u64 >> 22),
            "{algo:?}: {alone} read calls"
        );
        let side_by_side: Vec<u64> = (0..3).map(|_| stats("2")).collect();
        assert!(
            side_by_side.iter().any(|&n| n <= alone / 3 + 1),
            "{algo:?}: {side_by_side:?} read calls under -j 2, {alone} under -j 1"
        );
    }
}

/// The number of cores is asked for once a run, not once a window: a
/// BLAKE3 file of many windows, mapped and hashed on two threads, costs
/// no more `sched_getaffinity` calls and cgroup files opened (std's
/// `available_parallelism`, which rayon's pool also asks once) than a file
/// of one window. Counted with strace.
#[test]
fn the_cores_are_asked_for_once_not_per_window() {
    if !crate::util::require_strace() {
        return;
    }
    let dir = tempdir();
    // sparse: 200 MiB of zeros is several windows and costs no writing
    for (name, len) in [("one", 4 << 20), ("many", 200 << 20)] {
        let f = std::fs::File::create(dir.path().join(name)).unwrap();
        f.set_len(len).unwrap();
    }
    let asked = |name: &str| {
        let log = dir.path().join("trace");
        let o = run(Command::new("strace")
            .current_dir(dir.path())
            .args(["-f", "-qq", "-e", "trace=sched_getaffinity,openat", "-o"])
            .arg(&log)
            .arg(crate::util::fastsum_path())
            .args(["-a", "blake3", "--untagged", "-j", "2", name]));
        assert!(o.status.success(), "{name}: {}", crate::util::shown(&o));
        let text = std::fs::read_to_string(&log).unwrap();
        let count = |what: &str| text.lines().filter(|l| l.contains(what)).count();
        (count("sched_getaffinity("), count("cgroup"))
    };
    let (one, many) = (asked("one"), asked("many"));
    assert_eq!(many, one, "(sched_getaffinity calls, cgroup opens)");
}
