//! A file rewritten in place while it is hashed gets no digest, on every
//! route: read in pool blocks, packed in a batch (lanes, several
//! algorithms), mapped (mmap mode, several algorithms, BLAKE3 on many
//! threads, a big file before another), `--chunk` reads, byte by byte, and
//! in check mode. Deterministic, not timed: strace stops fastsum (SIGSTOP,
//! injected at the fstat that probes the file right after its open), the
//! test rewrites the file while it is stopped, then lets it go on. Every
//! byte fastsum hashes is then read after the rewrite, so only the stamp
//! taken at the open can tell (the digest would be of real bytes, but not
//! of the file that was opened and stamped).

use std::fs::OpenOptions;
use std::io::Write;
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant, SystemTime};

use crate::util::{fastsum_path, random_bytes, require_strace, shown, tempdir, write_file};

/// How long a stopped or running fastsum is waited for, at most.
const BOUND: Duration = Duration::from_secs(30);

/// Write `len` random bytes to `dir/name`, dated in the past (a rewrite
/// then moves its mtime whatever the file system's clock granularity), and
/// read it once so that it is in the page cache (the default mode maps
/// only cached files).
fn old_file(dir: &Path, name: &str, len: usize, seed: u64) {
    let path = write_file(dir, name, &random_bytes(len, seed));
    let f = OpenOptions::new().write(true).open(&path).unwrap();
    f.set_modified(SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000_000))
        .unwrap();
    std::fs::read(&path).unwrap();
}

/// The state letters of process `pid`'s threads (`/proc/PID/task/*/stat`'s
/// third field).
fn states(pid: u32) -> Vec<char> {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return Vec::new();
    };
    tasks
        .filter_map(|t| std::fs::read_to_string(t.ok()?.path().join("stat")).ok())
        .filter_map(|stat| stat.rsplit_once(") ")?.1.chars().next())
        .collect()
}

/// Has process `pid` a descriptor open on `path`?
fn has_open(pid: u32, path: &Path) -> bool {
    std::fs::read_dir(format!("/proc/{pid}/fd")).is_ok_and(|fds| {
        fds.filter_map(Result::ok)
            .any(|fd| std::fs::read_link(fd.path()).is_ok_and(|p| p == path))
    })
}

/// The one child of process `pid`, once it has one.
fn child_of(pid: u32) -> Option<u32> {
    let kids = std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children")).ok()?;
    kids.split_whitespace().next()?.parse().ok()
}

/// Send `signal` to process `pid`.
fn signal(pid: u32, signal: i32) {
    // SAFETY: kill(2) with a pid and a signal number; no memory involved.
    unsafe { libc::kill(pid as i32, signal) };
}

/// Run fastsum with `args` in `dir` under strace, stop it right after it
/// probes `target` (its first fstat of it, with the file open), rewrite
/// `target`'s first 4 KiB in place (same size) while every thread is
/// stopped, let it go on; its output. (Stopped under strace, a process may
/// need SIGCONT more than once: a thread it starts while strace still
/// counts the group as stopped waits for the next one.)
fn rewrite_while_hashed(dir: &Path, target: &str, args: &[&str]) -> Output {
    let path = dir.join(target).canonicalize().unwrap();
    let mut strace = Command::new("strace")
        .current_dir(dir)
        .env("LC_ALL", "C.UTF-8")
        .args([
            "-f",
            "-qq",
            "-o",
            "/dev/null",
            "-e",
            "trace=statx,fstat,newfstatat",
        ])
        .arg("-P")
        .arg(&path)
        .args(["-e", "inject=statx,fstat,newfstatat:signal=SIGSTOP:when=1"])
        .arg(fastsum_path())
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    let mut pid = None;
    let stopped = loop {
        // (strace starts short-lived children of its own before fastsum)
        pid = child_of(strace.id()).or(pid);
        if let Some(pid) = pid
            && has_open(pid, &path)
            && states(pid).iter().all(|s| matches!(s, 't' | 'T'))
        {
            break true;
        }
        if start.elapsed() > BOUND || strace.try_wait().unwrap().is_some() {
            break false;
        }
        std::thread::sleep(Duration::from_millis(1));
    };
    if stopped {
        let f = OpenOptions::new().write(true).open(&path).unwrap();
        f.write_all_at(&[0x5a; 4096], 0).unwrap();
        drop(f);
    }
    let done = Instant::now();
    while strace.try_wait().unwrap().is_none() && done.elapsed() < BOUND {
        pid.inspect(|&pid| signal(pid, libc::SIGCONT));
        std::thread::sleep(Duration::from_millis(10));
    }
    if strace.try_wait().unwrap().is_none() {
        pid.inspect(|&pid| signal(pid, libc::SIGKILL));
        let _ = strace.kill();
    }
    let mut o = strace.wait_with_output().unwrap();
    assert!(
        stopped,
        "fastsum {args:?} never stopped at {target}'s probe:\n{}",
        shown(&o)
    );
    // (strace's own words, if any, are not fastsum's)
    let err: Vec<u8> = String::from_utf8_lossy(&o.stderr)
        .lines()
        .filter(|l| !l.starts_with("strace: "))
        .flat_map(|l| format!("{l}\n").into_bytes())
        .collect();
    o.stderr = err;
    o
}

/// fastsum reported `target` changed, printed no digest of it, and went on.
fn assert_reported(what: &str, o: &Output, target: &str, others: &[&str]) {
    let out = String::from_utf8_lossy(&o.stdout);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains(&format!("{target}: file changed as we read it")),
        "{what}: not reported\n{}",
        shown(o)
    );
    assert!(
        !out.lines()
            .any(|l| l.ends_with(&format!(" {target}")) || l.contains(&format!("({target})"))),
        "{what}: a digest of {target}\n{}",
        shown(o)
    );
    for other in others {
        assert!(
            out.contains(other),
            "{what}: no line for {other}\n{}",
            shown(o)
        );
    }
    assert_eq!(o.status.code(), Some(1), "{what}\n{}", shown(o));
}

/// Read calls `--stats` counted.
fn read_calls(o: &Output) -> u64 {
    String::from_utf8_lossy(&o.stderr)
        .lines()
        .find_map(|l| l.split_once("stats: read calls: ").map(|(_, n)| n.trim()))
        .and_then(|n| n.parse().ok())
        .unwrap_or(u64::MAX)
}

/// Every route a regular file can take in hash mode.
#[test]
fn a_file_rewritten_while_hashed_gets_no_digest_on_any_route() {
    if !require_strace() {
        return;
    }
    let dir = tempdir();
    let d = dir.path();
    old_file(d, "big", 20 << 20, 1);
    old_file(d, "big2", 20 << 20, 2);
    old_file(d, "mid", 3 << 20, 3);
    old_file(d, "small", 1000, 4);
    for i in 0..12 {
        old_file(d, &format!("s{i:02}"), 700 + i * 100, 10 + i as u64);
    }
    let smalls: Vec<String> = (0..12).map(|i| format!("s{i:02}")).collect();
    let smalls: Vec<&str> = smalls.iter().map(String::as_str).collect();
    let mut cases: Vec<(&str, Vec<&str>, &str, Vec<&str>)> = vec![
        ("pool blocks", vec!["mid", "small"], "mid", vec!["small"]),
        ("-j 1", vec!["-j1", "mid", "small"], "mid", vec!["small"]),
        (
            "mmap mode",
            vec!["-m", "mmap", "mid", "small"],
            "mid",
            vec!["small"],
        ),
        (
            "mmap -j 1",
            vec!["-m", "mmap", "-j1", "mid", "small"],
            "mid",
            vec!["small"],
        ),
        (
            "several algorithms, mapped",
            vec!["-a", "md5,sha256", "mid", "small"],
            "mid",
            vec!["small"],
        ),
        (
            "BLAKE3 on many threads",
            vec!["-a", "blake3", "big", "small"],
            "big",
            vec!["small"],
        ),
        (
            "sync",
            vec!["-m", "sync", "mid", "small"],
            "mid",
            vec!["small"],
        ),
        (
            "sync, several algorithms fanned out",
            vec!["-m", "sync", "-a", "md5,sha256", "mid", "small"],
            "mid",
            vec!["small"],
        ),
        (
            "bytewise",
            vec!["-m", "bytewise", "small", "s00"],
            "small",
            vec!["s00"],
        ),
        (
            "faster than a copy",
            vec!["-a", "xxh3", "mid", "small"],
            "mid",
            vec!["small"],
        ),
        (
            "a CRC",
            vec!["-a", "crc32b", "mid", "small"],
            "mid",
            vec!["small"],
        ),
        // a big file copied out of the page cache by several readers (in
        // the pipeline: one operand alone runs on one thread, whose stop
        // at the probe's syscall entry this harness cannot tell from the
        // injected one)
        (
            "copiers",
            vec!["-j2", "-a", "crc32c", "big", "small"],
            "big",
            vec!["small"],
        ),
    ];
    // small files packed into a batch: lanes (MD5, SHA-256), several
    // algorithms, one without lanes; the file in the middle of the batch
    for algo in ["md5", "sha256", "md5,sha1", "blake3"] {
        let mut args = vec!["-a", algo];
        args.extend(&smalls);
        cases.push(("a batch", args, "s05", vec!["s04", "s06"]));
    }
    for (what, args, target, others) in &cases {
        let o = rewrite_while_hashed(d, target, args);
        assert_reported(&format!("{what} {args:?}"), &o, target, others);
    }
}

/// A big file before another, all in the page cache, is mapped and hashed
/// by a hasher of its own in the default mode. Whether the opener has the
/// next one ready when a file is routed depends on timing, so this tries
/// until it sees the route taken for the middle one of three (at most one
/// file read: 6 read calls of 4 MiB blocks), and every try must report
/// the rewrite.
#[test]
fn a_big_file_mapped_before_another_gets_no_digest_when_rewritten() {
    if !require_strace() {
        return;
    }
    let dir = tempdir();
    let d = dir.path();
    for (i, name) in ["big1", "big2", "big3"].into_iter().enumerate() {
        old_file(d, name, 20 << 20, 5 + i as u64);
    }
    let mut mapped = false;
    for _ in 0..10 {
        let o = rewrite_while_hashed(d, "big2", &["-j2", "--stats", "big1", "big2", "big3"]);
        assert_reported("big2 between big1 and big3", &o, "big2", &["big1", "big3"]);
        mapped |= read_calls(&o) < 12;
        if mapped {
            break;
        }
        old_file(d, "big2", 20 << 20, 6);
    }
    assert!(mapped, "the big file before another was never mapped");
}

/// Check mode reads through the same routes: the rewritten file FAILS,
/// with the reason, and no OK.
#[test]
fn a_file_rewritten_while_checked_fails() {
    if !require_strace() {
        return;
    }
    let dir = tempdir();
    let d = dir.path();
    old_file(d, "mid", 3 << 20, 7);
    old_file(d, "small", 1000, 8);
    for (algo, args) in [("md5", &[][..]), ("sha256", &["-m", "mmap"][..])] {
        let sums = fastsum_sums(d, algo, &["mid", "small"]);
        old_file(d, "mid", 3 << 20, 7);
        let mut all = vec!["-a", algo, "-c", &sums];
        all.extend(args);
        let o = rewrite_while_hashed(d, "mid", &all);
        let out = String::from_utf8_lossy(&o.stdout);
        assert!(
            out.contains("mid: FAILED open or read"),
            "{algo}\n{}",
            shown(&o)
        );
        assert!(out.contains("small: OK"), "{algo}\n{}", shown(&o));
        assert!(
            String::from_utf8_lossy(&o.stderr).contains("mid: file changed as we read it"),
            "{algo}\n{}",
            shown(&o)
        );
        assert_eq!(o.status.code(), Some(1), "{algo}\n{}", shown(&o));
    }
}

/// Write the check file of `names` with `algo`; its name.
fn fastsum_sums(dir: &Path, algo: &str, names: &[&str]) -> String {
    let o = crate::util::fastsum()
        .current_dir(dir)
        .args(["-a", algo])
        .args(names)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", shown(&o));
    let name = format!("{algo}.sums");
    let mut f = std::fs::File::create(dir.join(&name)).unwrap();
    f.write_all(&o.stdout).unwrap();
    name
}
