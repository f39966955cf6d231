//! Never abort, never lie: a verifier's exit status, closed and dead pipes,
//! tags under a chosen algorithm, blocking inputs, signals, and fault
//! injection under strace. Every test runs the binary (never internal APIs).

use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use crate::util::Bounded;
use crate::util::{
    assert_no_panic, assert_outputs_same, fastsum, gnu, multicall, random_bytes, require_strace,
    require_tool, run, shell, tempdir, write_file,
};

/// A directory with `h` and `bad.md5`, a check file whose only line is a
/// mismatch for `h`.
fn mismatch_fixture() -> tempfile::TempDir {
    let dir = tempdir();
    write_file(dir.path(), "h", b"hello\n");
    write_file(
        dir.path(),
        "bad.md5",
        b"00000000000000000000000000000000  h\n",
    );
    dir
}

// ---------------------------------------------------------------- closed pipes

/// A reader that goes away must not turn a failure into exit 0,
/// in check mode (a mismatch, before or after the pipe closed) or in hash
/// mode (an error seen before the pipe closed).
#[test]
fn closed_pipe_never_hides_a_failure() {
    let dir = mismatch_fixture();
    let d = dir.path();
    // a mismatch after 20,000 good lines: `head -1` is long gone by then
    let good = gnu("md5sum")
        .current_dir(d)
        .arg("h")
        .bounded_output()
        .unwrap();
    let mut many = good.stdout.repeat(20_000);
    many.extend_from_slice(b"00000000000000000000000000000000  h\n");
    write_file(d, "many.md5", &many);
    if !require_tool("bash") {
        return;
    }
    for (what, pipeline) in [
        ("-c | true", r#""$FASTSUM" -c bad.md5 | true"#),
        (
            "--quiet -c | head -c0",
            r#""$FASTSUM" --quiet -c bad.md5 | head -c0"#,
        ),
        (
            "-c | head -1",
            r#""$FASTSUM" -c many.md5 | head -1 >/dev/null"#,
        ),
        ("hash error | true", r#""$FASTSUM" nosuch h | true"#),
        ("hash error | head -c0", r#""$FASTSUM" nosuch h | head -c0"#),
    ] {
        // the pipe closes at a different moment each run: try a few
        for round in 0..3 {
            let mut c = Command::new("bash");
            c.current_dir(d)
                .env("LC_ALL", "C.UTF-8")
                .env("FASTSUM", crate::util::fastsum_path())
                .args(["-c", &format!("set -o pipefail; {pipeline}")]);
            let o = run(&mut c);
            assert_no_panic(what, &o);
            assert_ne!(
                o.status.code(),
                Some(0),
                "{what} (round {round}): a failure ended with exit 0, stderr:\n{}",
                String::from_utf8_lossy(&o.stderr)
            );
        }
    }
}

// ---------------------------------------------------------------- tags under a chosen algorithm

/// Files and a check file mixing algorithms: tagged MD5, SHA1, SHA256 and
/// BLAKE3 lines (right and wrong digests), untagged MD5 and SHA256 lines.
fn mixed_fixture() -> tempfile::TempDir {
    let dir = tempdir();
    let d = dir.path();
    write_file(d, "a", b"hello\n");
    write_file(d, "b", &random_bytes(100_000, 7));
    let mut sums = Vec::new();
    for tool in ["md5sum", "sha1sum", "sha256sum"] {
        for tag in [&["--tag"][..], &[]] {
            let o = gnu(tool)
                .current_dir(d)
                .args(tag)
                .args(["a", "b"])
                .bounded_output();
            sums.extend_from_slice(&o.unwrap().stdout);
        }
    }
    let b3 = fastsum()
        .current_dir(d)
        .args(["-a", "blake3", "--tag", "a"])
        .bounded_output()
        .unwrap();
    sums.extend_from_slice(&b3.stdout);
    // a tagged MD5 line with a wrong digest, and one for a missing file
    sums.extend_from_slice(b"MD5 (a) = 00000000000000000000000000000000\n");
    sums.extend_from_slice(b"MD5 (nosuch) = 00000000000000000000000000000000\n");
    write_file(d, "sums", &sums);
    dir
}

/// With the algorithm chosen (`-a` or a multi-call name), lines
/// tagged with another algorithm are improperly formatted, exactly as GNU
/// sha256sum -c / md5sum -c say, with -w and --strict too.
#[test]
fn chosen_algorithm_refuses_other_tags() {
    if !require_tool("sha256sum") || !require_tool("md5sum") {
        return;
    }
    let dir = mixed_fixture();
    let d = dir.path();
    for (algo, tool) in [
        ("sha256", "sha256sum"),
        ("md5", "md5sum"),
        ("sha1", "sha1sum"),
    ] {
        for flags in [&[][..], &["-w"], &["--strict"], &["--quiet", "--strict"]] {
            let theirs = gnu(tool)
                .current_dir(d)
                .args(flags)
                .args(["-c", "sums"])
                .bounded_output()
                .unwrap();
            let by_flag = fastsum()
                .current_dir(d)
                .args(["-a", algo])
                .args(flags)
                .args(["-c", "sums"])
                .bounded_output()
                .unwrap();
            let what = format!("fastsum -a {algo} {flags:?}");
            assert_outputs_same(&what, &by_flag, &theirs, "fastsum", tool);
            let by_name = multicall(d, tool)
                .current_dir(d)
                .args(flags)
                .args(["-c", "sums"])
                .bounded_output()
                .unwrap();
            let what = format!("{tool} (multi-call) {flags:?}");
            assert_outputs_same(&what, &by_name, &theirs, tool, tool);
        }
    }
    // the case in the issue: an MD5 line under -a sha256 is not "OK"
    write_file(
        d,
        "only-md5",
        b"MD5 (a) = b1946ac92492d2347c6235b4d2611184\n",
    );
    let o = fastsum()
        .current_dir(d)
        .args(["-a", "sha256", "-c", "only-md5"])
        .bounded_output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&o.stdout), "");
    assert_eq!(
        String::from_utf8_lossy(&o.stderr),
        "fastsum: only-md5: no properly formatted checksum lines found\n"
    );
    assert_eq!(o.status.code(), Some(1));
}

/// The other side: `fastsum -c` without -a still lets each tag
/// pick its algorithm (as GNU cksum -c), on the same mixed file.
#[test]
fn without_a_each_tag_picks() {
    if !require_tool("md5sum") {
        return;
    }
    let dir = mixed_fixture();
    let o = fastsum()
        .current_dir(dir.path())
        .args(["-c", "sums"])
        .bounded_output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    // every tagged line is checked with its own algorithm; untagged lines
    // by their length when one cryptographic algorithm has it (issue 33:
    // MD5's and SHA-1's), and SHA-256's 64 hex digits, which others share,
    // are improper, with the -a values that fit said once
    assert_eq!(
        out,
        "a: OK\nb: OK\na: OK\nb: OK\na: OK\nb: OK\na: OK\nb: OK\na: OK\nb: OK\na: OK\na: FAILED\nnosuch: FAILED open or read\n"
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(
        err.matches("64 hex digits may be -a sha256").count(),
        1,
        "{err}"
    );
    assert!(
        err.contains("WARNING: 2 lines are improperly formatted"),
        "{err}"
    );
    assert_eq!(o.status.code(), Some(1));
}

// ---------------------------------------------------------------- stdin as check file and listed file

/// Stdin both a check file and a listed file gives GNU's answer
/// every run, in every mode.
#[test]
fn stdin_check_file_and_listed_file_is_deterministic() {
    if !require_tool("md5sum") {
        return;
    }
    let dir = tempdir();
    let d = dir.path();
    write_file(d, "h", b"hello\n");
    let s2 = gnu("md5sum")
        .current_dir(d)
        .arg("h")
        .bounded_output()
        .unwrap();
    write_file(d, "s2", &s2.stdout);
    let s1 = run_with_file_stdin(gnu("md5sum").current_dir(d), &d.join("s2"));
    write_file(d, "s1", &s1.stdout);
    let theirs = run_with_file_stdin(
        gnu("md5sum").current_dir(d).args(["-c", "s1", "-"]),
        &d.join("s2"),
    );
    for mode in ["threaded", "sync", "bytewise", "mmap"] {
        for round in 0..5 {
            let ours = run_with_file_stdin(
                fastsum().current_dir(d).args(["-m", mode, "-c", "s1", "-"]),
                &d.join("s2"),
            );
            let what = format!("-m {mode}, round {round}");
            assert_outputs_same(&what, &ours, &theirs, "fastsum", "md5sum");
        }
    }
}

fn run_with_file_stdin(cmd: &mut Command, path: &Path) -> Output {
    cmd.stdin(File::open(path).unwrap())
        .bounded_output()
        .unwrap()
}

// ---------------------------------------------------------------- dead stdout, --help and --version

/// Check mode against a dead stdout (`/dev/full`, closed) stops at
/// the first write error with exit 1 and GNU 9.10's message, instead of
/// reading an endless input forever.
#[test]
fn check_stops_on_a_dead_stdout() {
    let dir = tempdir();
    let d = dir.path();
    write_file(d, "h", b"hello\n");
    for (redirect, message) in [
        (">/dev/full", "write error: No space left on device"),
        (">&-", "write error: Bad file descriptor"),
    ] {
        let script =
            format!(r#"yes 'b1946ac92492d2347c6235b4d2611184  h' | "$FASTSUM" -c {redirect}"#);
        let o = shell(d, 10, &script);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_no_panic(redirect, &o);
        // timeout's own status, or timeout killed too
        assert!(
            !matches!(o.status.code(), None | Some(124 | 137)),
            "{redirect}: still reading after 10 s"
        );
        assert_eq!(o.status.code(), Some(1), "{redirect}: stderr {err}");
        assert!(err.contains(message), "{redirect}: stderr {err}");
    }
}

/// --help and --version report a write error and exit 1, under
/// fastsum's name and a GNU tool's.
#[test]
fn help_and_version_report_write_errors() {
    let dir = tempdir();
    let d = dir.path();
    std::os::unix::fs::symlink(crate::util::fastsum_path(), d.join("md5sum")).unwrap();
    for prog in [r#""$FASTSUM""#, "./md5sum"] {
        for flag in ["--help", "--version"] {
            for (redirect, message) in [
                (">/dev/full", "write error: No space left on device"),
                (">&-", "write error: Bad file descriptor"),
            ] {
                let what = format!("{prog} {flag} {redirect}");
                let o = shell(d, 20, &format!("{prog} {flag} {redirect}"));
                let err = String::from_utf8_lossy(&o.stderr);
                assert_no_panic(&what, &o);
                assert_eq!(o.status.code(), Some(1), "{what}: stderr {err}");
                assert!(err.contains(message), "{what}: stderr {err}");
            }
        }
    }
}

/// Open `fifo` for writing once `child` has it open for reading (or is
/// blocked opening it). Non-blocking, so a child that died first fails the
/// test instead of hanging it.
fn open_fifo_writer(fifo: &Path, child: &mut std::process::Child) -> File {
    use std::os::unix::fs::OpenOptionsExt;
    let start = std::time::Instant::now();
    loop {
        match File::options()
            .write(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(fifo)
        {
            Ok(f) => return f,
            // no reader yet
            Err(e) if e.raw_os_error() == Some(libc::ENXIO) => {}
            Err(e) => panic!("open {}: {e}", fifo.display()),
        }
        let exited = child.try_wait().unwrap();
        assert!(
            exited.is_none(),
            "fastsum ended ({exited:?}) before opening the FIFO"
        );
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "fastsum never opened the FIFO"
        );
        std::thread::sleep(Duration::from_millis(2));
    }
}

// ---------------------------------------------------------------- blocking inputs

/// Read lines from `child`'s stdout on a thread; they arrive on the channel.
fn line_reader(child: &mut std::process::Child) -> mpsc::Receiver<String> {
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    rx
}

/// A finished line reaches stdout before fastsum blocks on the next
/// input: on a stdin that stays silent, and on a FIFO nobody opens yet.
#[test]
fn finished_lines_are_not_held_behind_a_blocking_input() {
    let dir = tempdir();
    let d = dir.path();
    write_file(d, "a", b"hello\n");
    write_file(d, "b", b"x");
    let a_line = "b1946ac92492d2347c6235b4d2611184  a";
    for jobs in ["1", "4"] {
        // stdin: held open and silent until a's line has been seen
        let mut child = fastsum()
            .current_dir(d)
            .args(["-j", jobs, "a", "-", "b"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let rx = line_reader(&mut child);
        let first = rx.recv_timeout(Duration::from_secs(3));
        drop(stdin);
        let status = crate::util::wait_bounded(&mut child);
        assert_eq!(
            first.as_deref(),
            Ok(a_line),
            "-j {jobs} a - b: a's line held back"
        );
        assert!(status.success());

        // a FIFO with no writer: open(2) blocks until the test opens it
        let fifo = d.join(format!("fifo{jobs}"));
        let mk = Command::new("mkfifo").arg(&fifo).status().unwrap();
        assert!(mk.success());
        let mut child = fastsum()
            .current_dir(d)
            .args(["-j", jobs, "a"])
            .arg(&fifo)
            .arg("b")
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let rx = line_reader(&mut child);
        let first = rx.recv_timeout(Duration::from_secs(3));
        // let fastsum finish: open the FIFO for writing and close it (EOF)
        drop(open_fifo_writer(&fifo, &mut child));
        let status = crate::util::wait_bounded(&mut child);
        assert_eq!(
            first.as_deref(),
            Ok(a_line),
            "-j {jobs} a fifo b: a's line held back"
        );
        assert!(status.success());

        // -c on a check file that stays silent after its first line: that
        // line's verdict comes before the next line does (as md5sum's on a
        // terminal); packed with nothing else, it must not wait for more
        for mode in ["threaded", "sync"] {
            let mut child = fastsum()
                .current_dir(d)
                .args(["-j", jobs, "-m", mode, "-c", "-"])
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::null())
                .spawn()
                .unwrap();
            let mut stdin = child.stdin.take().unwrap();
            stdin.write_all(format!("{a_line}\n").as_bytes()).unwrap();
            stdin.flush().unwrap();
            let rx = line_reader(&mut child);
            let first = rx.recv_timeout(Duration::from_secs(3));
            drop(stdin);
            let status = crate::util::wait_bounded(&mut child);
            assert_eq!(
                first.as_deref(),
                Ok("a: OK"),
                "-j {jobs} -m {mode} -c -: a's verdict held back"
            );
            assert!(status.success());
        }
    }
}

// ---------------------------------------------------------------- SIGBUS

/// A SIGBUS sent with kill kills fastsum at once (default action),
/// in every mode, instead of being ignored once. fastsum is made to wait on
/// a FIFO whose writer the test holds; the signal is sent, then the writer
/// closes, so a fastsum that survived the signal would finish with exit 0.
#[test]
fn an_external_sigbus_kills() {
    let dir = tempdir();
    let d = dir.path();
    write_file(d, "big", &random_bytes(200_000, 9));
    for args in [
        &["-m", "threaded"][..],
        &["-m", "sync"],
        &["-m", "bytewise"],
        &["-m", "mmap"],
        &["-a", "blake3"],
        // the FIFO is the check file
        &["-c"],
    ] {
        let fifo = d.join("fifo");
        let _ = std::fs::remove_file(&fifo);
        let mk = Command::new("mkfifo").arg(&fifo).status().unwrap();
        assert!(mk.success());
        let mut child = fastsum();
        child.current_dir(d).args(args);
        if args[0] != "-c" {
            child.arg("big");
        }
        let mut child = child
            .arg(&fifo)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // returns once fastsum has opened the FIFO: it is running main by now
        let mut writer = open_fifo_writer(&fifo, &mut child);
        let pid = libc::pid_t::try_from(child.id()).unwrap();
        // SAFETY: kill has no memory-safety preconditions
        assert_eq!(unsafe { libc::kill(pid, libc::SIGBUS) }, 0);
        // the writer stays open, so fastsum cannot finish on its own: wait
        // for it to die of the signal (the FIFO is closed only after)
        let status = wait_until_exit(&mut child, Duration::from_secs(20));
        let _ = writer.write_all(b"");
        drop(writer);
        let status = status.unwrap_or_else(|| crate::util::wait_bounded(&mut child));
        assert_eq!(
            status.signal(),
            Some(libc::SIGBUS),
            "fastsum {args:?}: survived kill -BUS ({status:?})"
        );
    }
}

/// `child`'s exit status once it has ended, or `None` after `limit`.
fn wait_until_exit(
    child: &mut std::process::Child,
    limit: Duration,
) -> Option<std::process::ExitStatus> {
    let end = std::time::Instant::now() + limit;
    while std::time::Instant::now() < end {
        if let Some(status) = child.try_wait().unwrap() {
            return Some(status);
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    None
}

/// While a mapping is registered: `kill -BUS` during the hashing
/// of a mapped 2 GiB sparse file (seen in /proc/PID/maps) kills too: only a
/// fault the kernel raises inside the mapping is caught.
#[test]
fn sigbus_sent_during_a_mapping_kills() {
    let dir = tempdir();
    let d = dir.path();
    let f = File::create(d.join("sparse")).unwrap();
    f.set_len(2 << 30).unwrap();
    drop(f);
    for args in [&["-m", "mmap"][..], &["-a", "blake3"]] {
        let mut child = fastsum()
            .current_dir(d)
            .args(args)
            .arg("sparse")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let maps = format!("/proc/{}/maps", child.id());
        let start = std::time::Instant::now();
        let mut mapped = false;
        while start.elapsed() < Duration::from_secs(10) {
            let text = std::fs::read_to_string(&maps).unwrap_or_default();
            if text.lines().any(|l| l.ends_with("/sparse")) {
                mapped = true;
                break;
            }
            if child.try_wait().unwrap().is_some() {
                break;
            }
            std::thread::sleep(Duration::from_millis(1));
        }
        assert!(mapped, "fastsum {args:?}: the file was never seen mapped");
        let pid = libc::pid_t::try_from(child.id()).unwrap();
        // SAFETY: kill has no memory-safety preconditions
        assert_eq!(unsafe { libc::kill(pid, libc::SIGBUS) }, 0);
        let status = crate::util::wait_bounded(&mut child);
        assert_eq!(
            status.signal(),
            Some(libc::SIGBUS),
            "fastsum {args:?}: survived kill -BUS during a mapping ({status:?})"
        );
    }
}

// ------------------------------------------------- fault injection (strace)

/// Fastsum under `strace -f -e inject=…` in every mode, `-j 1` and `-j 4`,
/// hash and check mode. Each fault is aimed at one file with `-P` (so the
/// Nth call counted is the Nth on that file) and, for a range of N, every
/// run must: end with status 0 or 1 (no signal, no hang, no panic); print
/// every other file's line, right and in order; print no checksum (and no
/// `OK`) for a file whose read failed, but name it on stderr with exit 1;
/// and exit 0 with silent stderr when every line is there. strace's log
/// says whether the fault landed (`(INJECTED)`); the faults that must land
/// in every configuration are asserted to, so no test passes vacuously.
mod inject {
    use std::path::PathBuf;

    use super::*;

    /// The inputs, in argument order: sizes below and above the 64 KiB mmap
    /// threshold, one empty, several read-ahead blocks for sync mode.
    const FILES: [(&str, usize); 5] = [
        ("a", 6),
        ("s", 40_000),
        ("b", 300_000),
        ("e", 0),
        // over 1 MiB: BLAKE3 maps it and hashes it on every core
        ("z", 1_100_000),
    ];

    struct Fixture {
        dir: tempfile::TempDir,
        /// Absolute paths of FILES (strace's -P matches open(2)'s path as
        /// written, so fastsum is given absolute paths too).
        paths: Vec<PathBuf>,
        /// md5sum's line for each file (the oracle).
        hash_lines: Vec<String>,
        /// The check file: md5sum's output for all of them.
        sums: PathBuf,
    }

    /// The files, and the oracle's lines: GNU md5sum's for MD5; for
    /// BLAKE3 (no GNU tool), fastsum's own `-m sync -j 1` output without
    /// faults (BLAKE3 itself is checked against b3sum in tests/hash.rs).
    fn fixture(blake3: bool) -> Fixture {
        let dir = tempdir();
        let d = dir.path().canonicalize().unwrap();
        let paths: Vec<PathBuf> = FILES
            .iter()
            .zip(1..)
            .map(|(&(name, len), seed)| write_file(&d, name, &random_bytes(len, seed)))
            .collect();
        let o = if blake3 {
            fastsum()
                .args(["-a", "blake3", "-m", "sync", "-j", "1"])
                .args(&paths)
                .bounded_output()
                .unwrap()
        } else {
            gnu("md5sum").args(&paths).bounded_output().unwrap()
        };
        assert!(o.status.success());
        let hash_lines = String::from_utf8(o.stdout.clone())
            .unwrap()
            .lines()
            .map(str::to_owned)
            .collect();
        let sums = write_file(&d, "sums", &o.stdout);
        Fixture {
            dir,
            paths,
            hash_lines,
            sums,
        }
    }

    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    enum Expect {
        /// A landed fault must fail the target file.
        Fails,
        /// A landed fault must be recovered from: the target's line is right.
        Succeeds,
        /// Either, as long as the run is consistent.
        Either,
    }

    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    enum Target {
        /// One of FILES, by index.
        File(usize),
        /// The check file (check mode only).
        Sums,
        /// stdout (redirected to a file).
        Stdout,
    }

    struct Fault {
        /// Syscalls traced (`-e trace=`), and the injection (`-e inject=`,
        /// without `when`).
        trace: &'static str,
        inject: &'static str,
        target: Target,
        ns: &'static [u32],
        expect: Expect,
        /// Must the fault land, at least for one N, in every configuration?
        must_land: bool,
        /// What stderr must say when a file failed, after `NAME: `.
        message: Option<&'static str>,
    }

    const S: Target = Target::File(1);
    const B: Target = Target::File(2);
    const Z: Target = Target::File(4);

    fn faults() -> Vec<Fault> {
        let f = |trace, inject, target, ns, expect, must_land, message| Fault {
            trace,
            inject,
            target,
            ns,
            expect,
            must_land,
            message,
        };
        use Expect::*;
        let eio = Some("Input/output error");
        vec![
            // s is read in every mode (below the mmap threshold); N=2 is
            // the read that would see EOF: failing it must fail s too
            f("read", "read:error=EIO", S, &[1, 2, 3], Fails, true, eio),
            // b: mapped in mmap mode, 1 MiB read-ahead blocks in threaded,
            // 64 KiB reads in sync, 8 KiB in bytewise
            f(
                "read",
                "read:error=EIO",
                B,
                &[1, 2, 3, 5, 6],
                Fails,
                false,
                eio,
            ),
            f("read", "read:error=EINTR", S, &[1, 2], Succeeds, true, None),
            f(
                "read",
                "read:error=EINTR",
                B,
                &[1, 3],
                Succeeds,
                false,
                None,
            ),
            f("read", "read:error=EAGAIN", S, &[1], Either, true, None),
            f(
                "openat",
                "openat:error=ENOENT",
                S,
                &[1],
                Fails,
                true,
                Some("No such file or directory"),
            ),
            // EMFILE may make fastsum wait for a descriptor instead
            f("openat", "openat:error=EMFILE", B, &[1], Either, true, None),
            f(
                "%stat,%fstat",
                "%stat,%fstat:error=EIO",
                B,
                &[1, 2],
                Either,
                false,
                None,
            ),
            // mmap mode falls back to reading
            f("mmap", "mmap:error=ENOMEM", B, &[1], Either, false, None),
            f(
                "write",
                "write:error=ENOSPC",
                Target::Stdout,
                &[1, 2],
                Fails,
                true,
                None,
            ),
            f(
                "write",
                "write:error=EINTR",
                Target::Stdout,
                &[1],
                Succeeds,
                true,
                None,
            ),
            f(
                "read",
                "read:error=EIO",
                Target::Sums,
                &[1, 2],
                Fails,
                false,
                None,
            ),
        ]
    }

    /// The faults for BLAKE3 in the default mode, where z is mapped and
    /// hashed by the rayon pool (`read::mmap::map_for_multithreaded`).
    fn blake3_faults() -> Vec<Fault> {
        let f = |trace, inject, target, ns, expect, must_land| Fault {
            trace,
            inject,
            target,
            ns,
            expect,
            must_land,
            message: None,
        };
        use Expect::*;
        vec![
            f("read", "read:error=EIO", S, &[1, 2], Fails, true),
            // z is read instead when it cannot be mapped
            f("mmap", "mmap:error=ENOMEM", Z, &[1], Either, true),
            f("read", "read:error=EIO", Z, &[1, 2], Fails, false),
            f(
                "%stat,%fstat",
                "%stat,%fstat:error=EIO",
                Z,
                &[1, 2],
                Either,
                false,
            ),
            f(
                "write",
                "write:error=ENOSPC",
                Target::Stdout,
                &[1],
                Fails,
                true,
            ),
        ]
    }

    /// Run one case; returns whether the fault landed.
    fn case(fx: &Fixture, args: &[&str], check: bool, fault: &Fault, n: u32) -> bool {
        let d = fx.dir.path();
        let out_path = d.join("out");
        let log_path = d.join("strace.log");
        let target_path = match fault.target {
            Target::File(i) => fx.paths[i].clone(),
            Target::Sums => fx.sums.clone(),
            Target::Stdout => out_path.clone(),
        };
        let out = File::create(&out_path).unwrap();
        let mut c = Command::new("timeout");
        c.current_dir(d)
            .env("LC_ALL", "C.UTF-8")
            .args(["-s", "KILL", "30", "strace", "-f", "-q", "-o"])
            .arg(&log_path)
            .args(["-e", &format!("trace={}", fault.trace)])
            .arg("-P")
            .arg(&target_path)
            .args(["-e", &format!("inject={}:when={n}", fault.inject)])
            .arg(crate::util::fastsum_path())
            .args(args);
        if check {
            c.arg("-c").arg(&fx.sums);
        } else {
            c.args(&fx.paths);
        }
        let o = c.stdout(out).bounded_output().unwrap();
        let stdout = std::fs::read_to_string(&out_path).unwrap();
        let log = std::fs::read_to_string(&log_path).unwrap_or_default();
        let stderr: String = String::from_utf8_lossy(&o.stderr)
            .lines()
            .filter(|l| !l.starts_with("strace: "))
            .map(|l| format!("{l}\n"))
            .collect();
        let landed = log.contains("(INJECTED)");
        let what = format!(
            "fastsum {args:?}{} with {}:when={n} on {} (landed: {landed})\nstdout:\n{stdout}stderr:\n{stderr}strace log:\n{log}",
            if check { " -c" } else { "" },
            fault.inject,
            target_path.display()
        );
        let o = Output {
            stdout: Vec::new(),
            stderr: stderr.clone().into_bytes(),
            status: o.status,
        };
        assert_no_panic(&what, &o);
        let code = o.status.code();
        assert!(
            matches!(code, Some(0 | 1)),
            "{what}: status {:?} (a signal or a hang)",
            o.status
        );
        assert!(
            !log.contains("+++ killed by"),
            "{what}: a thread was killed"
        );
        assert!(
            log.contains("+++ exited with"),
            "{what}: no exit in the log"
        );

        let want: Vec<String> = if check {
            fx.paths
                .iter()
                .map(|p| format!("{}: OK", p.display()))
                .collect()
        } else {
            fx.hash_lines.clone()
        };
        let got: Vec<&str> = stdout.lines().collect();
        match fault.target {
            Target::File(t) => {
                let name = fx.paths[t].display().to_string();
                let mut without = want.clone();
                if check {
                    without[t] = format!("{name}: FAILED open or read");
                } else {
                    without.remove(t);
                }
                let target_ok = if got == want {
                    true
                } else if got == without {
                    false
                } else {
                    panic!("{what}: lines wrong, missing or out of order");
                };
                if target_ok {
                    assert_eq!(code, Some(0), "{what}: every line right, yet exit 1");
                    assert_eq!(stderr, "", "{what}: every line right, yet a message");
                    assert!(
                        !(landed && fault.expect == Expect::Fails),
                        "{what}: the read failed, yet a checksum was printed"
                    );
                } else {
                    assert_eq!(code, Some(1), "{what}: a file failed, yet exit 0");
                    let prefix = format!("fastsum: {name}: ");
                    assert!(stderr.contains(&prefix), "{what}: the file is not named");
                    if let Some(m) = fault.message {
                        assert!(
                            stderr.contains(&format!("{prefix}{m}\n")),
                            "{what}: not the expected error"
                        );
                    }
                    assert!(landed, "{what}: failed with no fault injected");
                    assert!(
                        fault.expect != Expect::Succeeds,
                        "{what}: a transient error failed the file"
                    );
                }
            }
            Target::Sums | Target::Stdout => {
                // every line printed is right and in order (a lost write
                // may leave a gap)
                let mut rest = want.iter();
                for line in &got {
                    assert!(
                        rest.any(|w| w == line),
                        "{what}: line {line:?} wrong or out of order"
                    );
                }
                if landed && fault.expect == Expect::Fails {
                    assert_eq!(code, Some(1), "{what}: a fault landed, yet exit 0");
                    let m = if fault.target == Target::Sums {
                        format!("fastsum: {}: read error\n", fx.sums.display())
                    } else {
                        "fastsum: write error: No space left on device\n".to_owned()
                    };
                    assert!(stderr.contains(&m), "{what}: no {m:?}");
                } else {
                    assert_eq!(got, want, "{what}");
                    assert_eq!(code, Some(0), "{what}");
                }
            }
        }
        landed
    }

    /// A read error on standard input as a listed file (`a - z < s`), and
    /// on a check file: the same stdout, stderr and status as GNU md5sum
    /// under the same injection.
    #[test]
    fn stdin_and_check_file_errors_match_gnu() {
        if !require_strace() || !require_tool("md5sum") {
            return;
        }
        let fx = fixture(false);
        let d = fx.dir.path();
        let under = |prog: &Path, args: &[&str], target: &Path, n: u32| {
            let mut c = Command::new("strace");
            c.current_dir(d)
                .env("LC_ALL", "C.UTF-8")
                .args(["-f", "-qq", "-o", "/dev/null", "-P"])
                .arg(target)
                .arg("-e")
                .arg(format!("inject=read:error=EIO:when={n}"))
                .arg(prog)
                .args(args)
                .stdin(File::open(&fx.paths[1]).unwrap());
            c
        };
        let md5sum = Path::new("md5sum");
        let ours = crate::util::fastsum_path();
        for mode in ["threaded", "sync", "bytewise", "mmap"] {
            for n in [1, 2] {
                let hash = ["a", "-", "z"];
                let a = run(&mut under(
                    &ours,
                    &[&["-m", mode][..], &hash].concat(),
                    &fx.paths[1],
                    n,
                ));
                let b = run(&mut under(md5sum, &hash, &fx.paths[1], n));
                let what = format!("-m {mode} a - z < s, read {n} fails");
                assert_outputs_same(&what, &a, &b, "fastsum", "md5sum");
                let check = ["-c", "sums"];
                let a = run(&mut under(
                    &ours,
                    &[&["-m", mode][..], &check].concat(),
                    &fx.sums,
                    n,
                ));
                let b = run(&mut under(md5sum, &check, &fx.sums, n));
                let what = format!("-m {mode} -c sums, check file read {n} fails");
                assert_outputs_same(&what, &a, &b, "fastsum", "md5sum");
            }
        }
    }

    /// A write error that shows only when stdout is closed (close(2) EIO,
    /// as NFS reports a failed flush): GNU closes stdout and says `write
    /// error: Input/output error`, exit 1; fastsum closes stdout at the end
    /// and reports it the same way.
    #[test]
    fn stdout_close_error_is_reported() {
        if !require_strace() || !require_tool("md5sum") {
            return;
        }
        let fx = fixture(false);
        let d = fx.dir.path();
        let out = d.join("out");
        let under = |prog: &Path| {
            let mut c = Command::new("strace");
            c.current_dir(d)
                .env("LC_ALL", "C.UTF-8")
                .args(["-f", "-qq", "-o", "/dev/null", "-P"])
                .arg(&out)
                .args(["-e", "inject=close:error=EIO:when=1"])
                .arg(prog)
                .args(&fx.paths)
                .stdout(File::create(&out).unwrap());
            run(&mut c)
        };
        let ours = under(&crate::util::fastsum_path());
        let ours_out = std::fs::read(&out).unwrap();
        let theirs = under(Path::new("md5sum"));
        let theirs_out = std::fs::read(&out).unwrap();
        assert_eq!(ours_out, theirs_out);
        assert_outputs_same("close(stdout) fails", &ours, &theirs, "fastsum", "md5sum");
    }

    /// Every fault of `faults` for every N, with `-j 1` and `-j 4`, hash
    /// and check mode, fastsum given `extra` first.
    fn matrix(extra: &[&str], blake3: bool, faults: fn() -> Vec<Fault>) {
        if !require_strace() || !require_tool("md5sum") {
            return;
        }
        let fx = fixture(blake3);
        for jobs in ["1", "4"] {
            for check in [false, true] {
                let args = [extra, &["-j", jobs]].concat();
                for fault in faults() {
                    if fault.target == Target::Sums && !check {
                        continue;
                    }
                    let landed: Vec<bool> = fault
                        .ns
                        .iter()
                        .map(|&n| case(&fx, &args, check, &fault, n))
                        .collect();
                    // shown with --nocapture: where each fault landed
                    eprintln!(
                        "{args:?} check={check} {} {:?}: landed {landed:?}",
                        fault.inject, fault.target
                    );
                    assert!(
                        !fault.must_land || landed.contains(&true),
                        "{args:?} check={check}: {} on {:?} never landed for N in {:?}",
                        fault.inject,
                        fault.target,
                        fault.ns
                    );
                }
            }
        }
    }

    #[test]
    fn blake3_default_mode() {
        matrix(&["-a", "blake3"], true, blake3_faults);
    }

    #[test]
    fn threaded() {
        matrix(&["-m", "threaded"], false, faults);
    }

    #[test]
    fn sync() {
        matrix(&["-m", "sync"], false, faults);
    }

    #[test]
    fn bytewise() {
        matrix(&["-m", "bytewise"], false, faults);
    }

    #[test]
    fn mmap() {
        matrix(&["-m", "mmap"], false, faults);
    }
}
