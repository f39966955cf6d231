//! Resource limits (`ulimit -v`, `-n`), thread counts and bounded memory,
//! run against the binary.

use std::fs::File;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use crate::util::Bounded;
use crate::util::{
    assert_no_panic, fastsum, gnu, random_bytes, require_strace, require_tool, shell, tempdir,
    write_file,
};

/// `dir/d` with `n` files `f00`, `f01`, … (names sort as numbers) of
/// about `size` bytes each.
fn many_files(dir: &Path, n: usize, size: usize) -> Vec<String> {
    std::fs::create_dir(dir.join("d")).unwrap();
    let block = random_bytes(size, 5);
    (0..n)
        .map(|i| {
            let name = format!("d/f{i:02}");
            let mut data = block.clone();
            data.extend_from_slice(&random_bytes(i * 37, i as u64));
            write_file(dir, &name, &data);
            name
        })
        .collect()
}

/// Md5sum's output for `names` (in `dir`).
fn md5sum(dir: &Path, names: &[String]) -> String {
    let o = gnu("md5sum")
        .current_dir(dir)
        .args(names)
        .bounded_output()
        .unwrap();
    assert!(o.status.success());
    String::from_utf8(o.stdout).unwrap()
}

/// Under a limit, fastsum either succeeds with every line right, or fails
/// with exit 1 and one clear line on stderr: never a panic, an abort or a
/// hang.
fn assert_degrades(what: &str, o: &Output, want: &str) {
    let err = String::from_utf8_lossy(&o.stderr);
    assert_no_panic(what, o);
    match o.status.code() {
        Some(0) => {
            assert_eq!(String::from_utf8_lossy(&o.stdout), want, "{what}");
        }
        Some(1) => assert_eq!(err.lines().count(), 1, "{what}: stderr:\n{err}"),
        other => panic!("{what}: exit status {other:?}, stderr:\n{err}"),
    }
}

// ---------------------------------------------------------------- memory and threads

/// Under `ulimit -v`, many threads or big buffers degrade or fail
/// cleanly; no `failed to spawn thread` panic, no allocation abort.
#[test]
fn memory_limits_never_panic_or_abort() {
    if !require_tool("md5sum") {
        return;
    }
    let dir = tempdir();
    let d = dir.path();
    let names = many_files(d, 70, 100);
    let all = md5sum(d, &names);
    write_file(d, "f", &random_bytes(100_000, 1));
    let f = md5sum(d, &["f".into()]);
    for (script, want) in [
        (r#"ulimit -v 500000; "$FASTSUM" -j 64 -r d"#, &all),
        (r#"ulimit -v 1000000; "$FASTSUM" -j 64 -r d"#, &all),
        (r#"ulimit -v 500000; "$FASTSUM" -j 16 f"#, &f),
        (r#"ulimit -v 30000; "$FASTSUM" --readahead 64M f"#, &f),
        (r#"ulimit -v 30000; "$FASTSUM" -m sync --chunk 64M f"#, &f),
    ] {
        let o = shell(d, 30, script);
        assert_degrades(script, &o, want);
    }
}

/// GNU coreutils' own `ulimit -v` test: the
/// limit at what `--version` needs plus 12 MB, then `yes LINE | fastsum -c
/// | :`. Main aborted (`memory allocation of N bytes failed`) in some runs
/// by default, and in nearly every run with `-j 4`.
#[test]
fn check_under_gnu_memory_limit() {
    let dir = tempdir();
    let d = dir.path();
    write_file(d, "h", b"hello\n");
    // the smallest ulimit -v (KiB, 1 MiB steps) under which --version runs
    let min = (4..400)
        .map(|mib| mib * 1024)
        .find(|kib| {
            let script = format!(r#"ulimit -v {kib}; "$FASTSUM" --version >/dev/null"#);
            shell(d, 10, &script).status.success()
        })
        .expect("--version runs under 400 MiB");
    let limit = min + 12 * 1024;
    for args in ["", "-j 4"] {
        let script = format!(
            r#"ulimit -v {limit}; yes 'b1946ac92492d2347c6235b4d2611184  h' | ("$FASTSUM" {args} -c; echo "status $?" >&2) | :"#
        );
        for round in 0..5 {
            let o = shell(d, 30, &script);
            let what = format!("{script} (round {round})");
            assert_no_panic(&what, &o);
            let err = String::from_utf8_lossy(&o.stderr);
            // 0 or 1, or killed by SIGPIPE as GNU is
            assert!(
                ["status 0\n", "status 1\n", "status 141\n"]
                    .iter()
                    .any(|s| err.ends_with(s)),
                "{what}: stderr:\n{err}"
            );
        }
    }
}

/// Threads only as many as there is work for: `-j 1024` on one
/// file starts a handful, not 1,024 (counted with strace).
#[test]
fn threads_only_for_work() {
    if !require_strace() {
        return;
    }
    let dir = tempdir();
    let d = dir.path();
    write_file(d, "f", &random_bytes(100_000, 2));
    for mode in ["threaded", "sync", "bytewise", "mmap"] {
        let log = d.join("clones");
        let o = Command::new("strace")
            .current_dir(d)
            .args(["-f", "-qq", "-o"])
            .arg(&log)
            .args(["-e", "trace=clone,clone3"])
            .arg(crate::util::fastsum_path())
            .args(["-m", mode, "-j", "1024", "f"])
            .stdout(Stdio::null())
            .bounded_output()
            .unwrap();
        assert!(o.status.success(), "-m {mode} -j 1024 f failed");
        let log = std::fs::read_to_string(&log).unwrap();
        let clones = log
            .lines()
            .filter(|l| (l.contains("clone3(") || l.contains("clone(")) && !l.contains("<..."))
            .count();
        assert!(
            clones <= 8,
            "-m {mode} -j 1024 on one file started {clones} threads"
        );
    }
}

/// By fault injection: the Nth thread creation fails (clone/clone3
/// EAGAIN under strace) in every mode, hash and check, BLAKE3's pool
/// included: fastsum goes on with fewer threads or fails with one clear
/// line, never a `failed to spawn thread` panic.
#[test]
fn thread_creation_failure_degrades() {
    if !require_strace() || !require_tool("md5sum") {
        return;
    }
    let dir = tempdir();
    let d = dir.path();
    let names: Vec<String> = ["a", "b", "c"]
        .iter()
        .zip([6, 300_000, 40_000])
        .map(|(&n, len)| {
            write_file(d, n, &random_bytes(len, 3));
            n.to_owned()
        })
        .collect();
    let hash = md5sum(d, &names);
    write_file(d, "sums", hash.as_bytes());
    let blake3 = fastsum()
        .current_dir(d)
        .args(["-a", "blake3"])
        .args(&names)
        .bounded_output()
        .unwrap();
    let blake3 = String::from_utf8(blake3.stdout).unwrap();
    let checked: String = names.iter().map(|n| format!("{n}: OK\n")).collect();
    let mut cases: Vec<(Vec<&str>, &str)> = Vec::new();
    for mode in ["threaded", "sync", "bytewise", "mmap"] {
        for jobs in ["1", "4"] {
            cases.push((vec!["-m", mode, "-j", jobs, "a", "b", "c"], &hash));
            cases.push((vec!["-m", mode, "-j", jobs, "-c", "sums"], &checked));
        }
    }
    cases.push((vec!["-a", "blake3", "a", "b", "c"], &blake3));
    for (args, want) in cases {
        for n in 1..=3 {
            let o = Command::new("strace")
                .current_dir(d)
                .args(["-f", "-qq", "-o", "/dev/null", "-e", "trace=clone,clone3"])
                .arg("-e")
                .arg(format!("inject=clone,clone3:error=EAGAIN:when={n}"))
                .arg(crate::util::fastsum_path())
                .args(&args)
                .bounded_output()
                .unwrap();
            assert_degrades(&format!("{args:?}, thread {n} not created"), &o, want);
        }
    }
}

// ---------------------------------------------------------------- descriptors

/// Running out of descriptors slows fastsum down; it never fails
/// files (`ulimit -n 16`, `-j 64 -r` over 60 files), in any mode.
#[test]
fn few_descriptors_fail_no_file() {
    if !require_tool("md5sum") {
        return;
    }
    let dir = tempdir();
    let d = dir.path();
    // big enough that many files are open at once (1 MB each: with 300 KB
    // sync mode rarely ran out on a 2-core machine)
    let names = many_files(d, 60, 1_000_000);
    let want = md5sum(d, &names);
    for mode in ["threaded", "sync", "bytewise", "mmap"] {
        let script = format!(r#"ulimit -n 16; "$FASTSUM" -m {mode} -j 64 -r d"#);
        let o = shell(d, 30, &script);
        assert_no_panic(&script, &o);
        assert_eq!(
            String::from_utf8_lossy(&o.stderr),
            "",
            "{script}: files failed"
        );
        assert_eq!(String::from_utf8_lossy(&o.stdout), want, "{script}");
        assert_eq!(o.status.code(), Some(0), "{script}");
    }
}

/// `-r` over a tree of many directories under `ulimit -n` 16 to 40: the
/// walk's directory opens wait for a descriptor as file opens do (they
/// failed with "Too many open files" and whole directories went missing;
/// then, counted, the opener thread waited for one under the queue's lock
/// while the inputs it had opened waited for the taker blocked on that
/// lock). Every line is md5sum's over the files `find` lists, exit 0, in
/// every mode.
#[test]
fn few_descriptors_lose_no_directory() {
    if !require_tool("md5sum") {
        return;
    }
    let dir = tempdir();
    let d = dir.path();
    let mut names = Vec::new();
    for a in 0..30 {
        for b in 0..8 {
            std::fs::create_dir_all(d.join(format!("t/d{a:02}/e{b}"))).unwrap();
            for c in 0..3 {
                let name = format!("t/d{a:02}/e{b}/f{c}");
                write_file(d, &name, format!("{a} {b} {c}\n").as_bytes());
                names.push(name);
            }
        }
    }
    let want = md5sum(d, &names);
    for n in [16, 20, 24, 32, 40] {
        for mode in ["threaded", "sync", "mmap"] {
            let script = format!(r#"ulimit -n {n}; exec "$FASTSUM" -m {mode} -r t"#);
            let o = shell(d, 30, &script);
            assert_no_panic(&script, &o);
            assert_eq!(String::from_utf8_lossy(&o.stderr), "", "{script}");
            assert_eq!(String::from_utf8_lossy(&o.stdout), want, "{script}");
            assert_eq!(o.status.code(), Some(0), "{script}");
        }
    }
}

/// At the limit: one descriptor left for inputs (`ulimit -n 4`
/// with stdin, stdout and stderr open) over 2,000 tiny files: two threads
/// open inputs, and the one that closes them must never wait for a
/// descriptor (it did, and the run hung). Every mode, `-j 1` and `2`.
#[test]
fn one_descriptor_for_inputs_still_finishes() {
    if !require_tool("md5sum") {
        return;
    }
    let dir = tempdir();
    let d = dir.path();
    std::fs::create_dir(d.join("d")).unwrap();
    let names: Vec<String> = (0..2000)
        .map(|i| {
            let name = format!("d/t{i:04}");
            write_file(d, &name, &random_bytes(i % 65, i as u64));
            name
        })
        .collect();
    let want = md5sum(d, &names);
    for mode in ["threaded", "sync", "bytewise", "mmap"] {
        for jobs in ["1", "2"] {
            let script = format!(r#"ulimit -n 4; exec "$FASTSUM" -m {mode} -j {jobs} d/t*"#);
            let o = shell(d, 60, &script);
            assert_no_panic(&script, &o);
            assert_eq!(String::from_utf8_lossy(&o.stderr), "", "{script}");
            assert_eq!(String::from_utf8_lossy(&o.stdout), want, "{script}");
            assert_eq!(o.status.code(), Some(0), "{script}");
        }
    }
}

// ---------------------------------------------------------------- bounded memory

/// Run `fastsum args` to the end and return (exit code, peak RSS in KiB),
/// the peak from wait4's rusage.
// reaped with wait4, which std's Child does not know of
#[allow(clippy::zombie_processes)]
fn peak_rss(dir: &Path, args: &[&str]) -> (Option<i32>, i64) {
    let child = fastsum()
        .current_dir(dir)
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let pid = libc::pid_t::try_from(child.id()).unwrap();
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value for wait4 to fill in.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // polled, so a run that hangs is killed (after the tests' bound for a
    // child) instead of hanging the test
    let start = std::time::Instant::now();
    let mut killed = false;
    loop {
        // SAFETY: the pointers are valid; `child` is never waited for again.
        let r = unsafe { libc::wait4(pid, &mut status, libc::WNOHANG, &mut usage) };
        if r == pid {
            break;
        }
        assert_eq!(r, 0, "wait4: {}", std::io::Error::last_os_error());
        if !killed && start.elapsed() > crate::util::child_limit() {
            // SAFETY: kill has no memory-safety preconditions
            unsafe { libc::kill(pid, libc::SIGKILL) };
            killed = true;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    assert!(
        !killed,
        "fastsum {args:?}: killed after {:?} (a hang?)",
        crate::util::child_limit()
    );
    let code = libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status));
    (code, usage.ru_maxrss)
}

/// Memory stays bounded whatever the file size: a 2 GiB sparse
/// file hashed by mapping (`-m mmap`, BLAKE3's whole-file mapping in the
/// default mode, and several algorithms' fanned-out mapping) peaks well
/// under its size.
#[test]
fn mapped_hashing_is_bounded() {
    let dir = tempdir();
    let d = dir.path();
    let f = File::create(d.join("sparse")).unwrap();
    f.set_len(2 << 30).unwrap();
    drop(f);
    for args in [
        &["-m", "mmap", "sparse"][..],
        &["-a", "blake3", "sparse"],
        &["-a", "blake3", "-m", "mmap", "sparse"],
        &["-a", "sha1,blake3", "sparse"],
        &["-a", "sha1,blake3", "-m", "mmap", "sparse"],
    ] {
        let (code, kib) = peak_rss(d, args);
        assert_eq!(code, Some(0), "{args:?}");
        assert!(
            kib < 400 * 1024,
            "{args:?}: peak RSS {} MiB for a 2 GiB file",
            kib / 1024
        );
    }
}

/// Never allocate more than the input can fill when its size is
/// known: `--chunk 1G` on a 6-byte file runs under `ulimit -v 400000`.
#[test]
fn buffers_fit_the_input() {
    if !require_tool("md5sum") {
        return;
    }
    let dir = tempdir();
    let d = dir.path();
    write_file(d, "six", b"abcdef");
    let want = md5sum(d, &["six".into()]);
    for mode in ["sync", "threaded"] {
        let script = format!(
            r#"ulimit -v 400000; "$FASTSUM" -m {mode} -j 1 --chunk 1G --readahead 1G --pool 1 six"#
        );
        let o = shell(d, 30, &script);
        assert_no_panic(&script, &o);
        assert_eq!(String::from_utf8_lossy(&o.stdout), want, "{script}");
        assert_eq!(o.status.code(), Some(0), "{script}");
    }
}
