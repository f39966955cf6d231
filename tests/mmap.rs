//! `--mode mmap`, and BLAKE3's multi-threaded path (which the default mode
//! takes for big files too): byte-identical output to the GNU tools and to
//! the other modes, and the fallbacks to plain reads.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use fastsum::internals::{Algorithm, BLAKE3_MULTITHREAD_MIN, MMAP_MIN};

use crate::util::{assert_same, fastsum, gnu, random_bytes, require_tool, write_file};

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

/// Write one file per size into `dir`; their names, in order.
fn write_sizes(dir: &Path) -> Vec<String> {
    sizes()
        .into_iter()
        .enumerate()
        .map(|(i, len)| {
            let name = format!("f{len}");
            write_file(dir, &name, &random_bytes(len, i as u64 + 1));
            name
        })
        .collect()
}

/// What b3sum would print, computed with the blake3 crate (b3sum itself is
/// not always installed).
fn b3_lines(dir: &Path, names: &[String]) -> Vec<u8> {
    let mut out = Vec::new();
    for name in names {
        let data = std::fs::read(dir.join(name)).expect("read test file");
        writeln!(out, "{}  {name}", blake3::hash(&data).to_hex()).expect("write to a Vec");
    }
    out
}

fn stdout_of(mut c: Command) -> Vec<u8> {
    let o = c.output().expect("run fastsum");
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(
        o.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    o.stdout
}

fn ours(dir: &Path, algo: Algorithm, extra: &[&str], names: &[String]) -> Command {
    let mut c = fastsum();
    c.current_dir(dir)
        .args(["-a", algo.name()])
        .args(extra)
        .args(names);
    c
}

#[test]
fn mmap_matches_gnu_and_threaded_for_every_algorithm() {
    let dir = tempfile::tempdir().unwrap();
    let names = write_sizes(dir.path());
    for algo in Algorithm::ALL {
        let want = if algo == Algorithm::Blake3 {
            b3_lines(dir.path(), &names)
        } else {
            let mut c = gnu(algo.tool_name());
            c.current_dir(dir.path()).args(&names);
            stdout_of(c)
        };
        for extra in [&["-m", "mmap", "-j1"][..], &["-m", "mmap", "-j3"], &[]] {
            let got = stdout_of(ours(dir.path(), algo, extra, &names));
            assert_eq!(
                String::from_utf8_lossy(&got),
                String::from_utf8_lossy(&want),
                "{algo:?} {extra:?}"
            );
        }
    }
}

/// BLAKE3 around the multi-threading threshold, in the modes that map
/// (mmap, and threaded for big files) and one that never does (sync):
/// every result equals the blake3 crate's one-shot hash, and b3sum's when
/// it is installed.
#[test]
fn blake3_multithreaded_matches_one_thread() {
    let dir = tempfile::tempdir().unwrap();
    let t = BLAKE3_MULTITHREAD_MIN;
    let names: Vec<String> = [t - 1024, t - 1, t, t + 1, t + 1024, 2 * t + 7, 8 << 20]
        .into_iter()
        .map(|len| {
            let name = format!("b{len}");
            write_file(dir.path(), &name, &random_bytes(len, len as u64));
            name
        })
        .collect();
    let want = b3_lines(dir.path(), &names);
    if require_tool("b3sum") {
        let mut c = Command::new("b3sum");
        c.current_dir(dir.path()).args(&names);
        assert_eq!(stdout_of(c), want, "b3sum disagrees with the blake3 crate");
    }
    for mode in ["mmap", "threaded", "sync"] {
        for jobs in ["-j1", "-j2"] {
            let got = stdout_of(ours(
                dir.path(),
                Algorithm::Blake3,
                &["-m", mode, jobs],
                &names,
            ));
            assert_eq!(got, want, "{mode} {jobs}");
        }
    }
}

/// Inputs mmap mode must read instead of mapping: standard input (piped
/// and as `-`), a FIFO, a /proc file whose size (0) lies, an empty file,
/// and a directory, whose read error must be GNU's, among good files, with
/// `-j`.
#[test]
fn mmap_falls_back_to_reads_like_gnu() {
    let dir = tempfile::tempdir().unwrap();
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
    for jobs in ["-j1", "-j4"] {
        let mut a = fastsum();
        a.current_dir(dir.path())
            .args(["-m", "mmap", jobs])
            .args(args);
        let mut b = gnu("md5sum");
        b.current_dir(dir.path()).args(args);
        assert_same(a, b, "fastsum", "md5sum");
    }

    // standard input, implicit and as `-`
    for args in [&["-m", "mmap"][..], &["-m", "mmap", "-", "big"]] {
        let run = |mut c: Command| {
            c.current_dir(dir.path())
                .stdin(Stdio::piped())
                .stdout(Stdio::piped());
            let mut child = c.spawn().unwrap();
            child.stdin.take().unwrap().write_all(&big).unwrap();
            child.wait_with_output().unwrap().stdout
        };
        let mut a = fastsum();
        a.args(args);
        let mut b = gnu("sha256sum");
        b.args(&args[2..]);
        a.args(["-a", "sha256"]);
        assert_eq!(run(a), run(b), "{args:?}");
    }
}

#[test]
fn mmap_reads_a_fifo() {
    let dir = tempfile::tempdir().unwrap();
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
        .args(["-m", "mmap", "-a", "blake3", "fifo"]);
    let got = stdout_of(c);
    writer.join().unwrap();
    assert_eq!(
        got,
        format!("{}  fifo\n", blake3::hash(&data).to_hex()).into_bytes()
    );
}

/// The mapped path is really taken: a big regular file costs no read call
/// in mmap mode (so the tests above exercise the mapping, not the
/// fallback), a /proc file costs two (data, then end of file).
#[test]
fn mmap_maps_big_files_and_reads_others() {
    let dir = tempfile::tempdir().unwrap();
    write_file(dir.path(), "big", &random_bytes(1 << 20, 5));
    let read_calls = |file: &str, algo: &str| {
        let o = fastsum()
            .current_dir(dir.path())
            .args(["-m", "mmap", "--stats", "-a", algo, file])
            .output()
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
