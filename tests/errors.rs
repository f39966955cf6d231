//! Errors and awkward inputs, against GNU md5sum where it has an answer:
//! missing, unreadable and directory inputs, read errors at the start and in
//! the middle of an input, write errors on stdout (full device, closed
//! descriptor, closed pipe), closed stdin, inputs whose stat size lies
//! (/proc files, FIFOs), offsets past 4 GiB, and usage errors with their exit
//! statuses.

use std::ffi::OsStr;
use std::fs::{File, OpenOptions};
use std::io::{Seek, SeekFrom, Write};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use fastsum::internals::Algorithm;

use crate::util::{
    MODES, Pair, assert_output, assert_outputs_same, fastsum, fastsum_path, gnu, modes_and_jobs,
    multicall, oracle_path, os, random_bytes, require_tool, run, shown, tempdir, write_file,
};

/// Run `sh -c script prog args…` in `dir`, where the script runs `"$0" "$@"`.
fn sh(script: &str, dir: &Path, prog: impl AsRef<OsStr>, args: &[&str]) -> Output {
    run(Command::new("sh")
        .current_dir(dir)
        .env("LC_ALL", "C.UTF-8")
        .arg("-c")
        .arg(script)
        .arg(prog)
        .args(args))
}

/// Run md5sum and fastsum (in every mode) under the same shell `script`
/// (e.g. `"$0" "$@" >&-`) and assert the same output; md5sum's output is
/// returned for further checks.
fn assert_script_like_md5sum(script: &str, dir: &Path, args: &[&str]) -> Output {
    let want = sh(script, dir, "md5sum", args);
    for mode in MODES {
        let got = sh(script, dir, fastsum_path(), &[&["-m", mode], args].concat());
        let what = format!("{mode} {script} {args:?}");
        assert_outputs_same(&what, &got, &want, "fastsum", "md5sum");
    }
    want
}

/// Every mode, with one and with four jobs: the error paths differ between
/// the threaded pipeline and the workers.
fn every_mode_and_jobs() -> Vec<[&'static str; 4]> {
    modes_and_jobs(&MODES, &["1", "4"])
}

/// Missing files and directories, alone and between good files (whose lines
/// must still be printed), with names GNU quotes in its messages.
#[test]
fn missing_files_and_directories_match_gnu() {
    let dir = tempdir();
    write_file(dir.path(), "good1", b"one\n");
    write_file(dir.path(), "good2", &random_bytes(100_000, 1));
    std::fs::create_dir(dir.path().join("a dir")).expect("mkdir");
    let Some(md5) = Pair::new(dir.path(), Algorithm::Md5) else {
        return;
    };
    let cases: [&[&[u8]]; 6] = [
        &[b"nosuch"],
        &[b"a dir"],
        &[b"good1", b"nosuch", b"good2"],
        &[b"good1", b"a dir", b"good2", b"nosuch", b"good1"],
        &[
            b"",
            b"no such",
            b"new\nline",
            b"bad-\xff",
            b"it's",
            b"tab\t",
        ],
        &[b"nosuch", b"good1", b"-", b"nosuch2"],
    ];
    for names in cases {
        let names: Vec<&OsStr> = names.iter().map(|n| os(n)).collect();
        let want = md5.assert_same_under(every_mode_and_jobs(), &names, |c| {
            run(c.stdin(Stdio::null()))
        });
        assert_eq!(want.status.code(), Some(1), "md5sum {names:?}");
    }
}

/// A file its reader may not open ("Permission denied"). Tests usually run
/// as root, who may read anything: then both tools run as `nobody`.
#[test]
fn unreadable_file_matches_gnu() {
    let dir = tempdir();
    let Some(md5) = Pair::new(dir.path(), Algorithm::Md5) else {
        return;
    };
    // nobody must be able to enter the directory and read the good file
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755))
        .expect("chmod dir");
    write_file(dir.path(), "good", b"readable\n");
    let secret = write_file(dir.path(), "secret", b"hidden\n");
    std::fs::set_permissions(&secret, std::fs::Permissions::from_mode(0o000))
        .expect("chmod secret");
    // /proc/self belongs to the effective user of the process reading it
    let root = std::fs::metadata("/proc/self").is_ok_and(|m| m.uid() == 0);
    let as_reader = |cmd: &mut Command| {
        if root {
            cmd.uid(65534).gid(65534);
        }
        run(cmd)
    };
    let args = ["good", "secret", "good"];
    let want = as_reader(md5.theirs().args(args));
    if want.status.code() != Some(1) || !want.stderr.ends_with(b"Permission denied\n") {
        eprintln!(
            "skipped: cannot make an unreadable file here (md5sum: {:?})",
            String::from_utf8_lossy(&want.stderr)
        );
        return;
    }
    md5.assert_same_under(every_mode_and_jobs(), &args, as_reader);
}

/// A read error on the first read: /proc/self/mem opens, but reading at
/// offset 0 (never mapped) fails with EIO.
#[test]
fn read_error_at_the_start_matches_gnu() {
    let Some(md5) = Pair::new(Path::new("/"), Algorithm::Md5) else {
        return;
    };
    let args = ["/proc/self/mem", "/proc/version"];
    let want = md5.assert_same_under(every_mode_and_jobs(), &args, run);
    assert_eq!(want.status.code(), Some(1));
}

/// A read error in the middle of an input: stdin is a non-blocking pipe
/// holding 60000 bytes whose writer stays open, so the read after them fails
/// with EAGAIN. The error is reported, no line is printed for stdin, and the
/// files around it are still hashed.
#[test]
fn read_error_in_the_middle_matches_gnu() {
    if !require_tool("md5sum") {
        return;
    }
    let dir = tempdir();
    write_file(dir.path(), "a", b"around\n");
    let data = random_bytes(60_000, 2);
    let with_stalled_stdin = |cmd: &mut Command| -> Output {
        let (reader, mut writer) = std::io::pipe().expect("pipe");
        // fits in the pipe's 64 KiB buffer: this write does not block
        writer.write_all(&data).expect("fill pipe");
        let fd = std::os::fd::AsRawFd::as_raw_fd(&reader);
        // SAFETY: fcntl on a descriptor this function owns; no memory involved.
        let ok = unsafe {
            let flags = libc::fcntl(fd, libc::F_GETFL);
            flags != -1 && libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK) != -1
        };
        assert!(ok, "cannot make the pipe non-blocking");
        let out = run(cmd
            .current_dir(dir.path())
            .args(["a", "-", "a"])
            .stdin(reader));
        drop(writer); // only now: an open writer is what makes the read fail
        out
    };
    let want = with_stalled_stdin(&mut gnu("md5sum"));
    assert_eq!(want.status.code(), Some(1), "{want:?}");
    assert!(
        want.stderr
            .ends_with(b"-: Resource temporarily unavailable\n"),
        "{want:?}"
    );
    for mode in MODES {
        let got = with_stalled_stdin(fastsum().args(["-m", mode]));
        assert_outputs_same(mode, &got, &want, "fastsum", "md5sum");
    }
}

/// Standard input closed (`<&-`): not an empty stream but an error, as GNU.
#[test]
fn closed_stdin_matches_gnu() {
    if !require_tool("md5sum") {
        return;
    }
    let dir = tempdir();
    write_file(dir.path(), "a", b"x\n");
    for args in [&["-", "a"][..], &["a"], &["-", "-"]] {
        assert_script_like_md5sum(r#""$0" "$@" <&-"#, dir.path(), args);
    }
}

/// stdout on /dev/full: "write error: No space left on device", exit 1,
/// reported once, at the end, whether the output fits fastsum's buffer or
/// not; as GNU, the other inputs are still read and their errors reported.
///
/// This is the wording issue 2 asks for. GNU md5sum 9.1 prints a bare
/// "md5sum: write error" here (strace: it writes each line as it goes; the
/// failed write only sets the stream's error flag, the final close succeeds,
/// so no errno is left to print): GNU's stderr is compared with that one
/// line replaced.
#[test]
fn full_device_reports_write_error() {
    if !require_tool("md5sum") {
        return;
    }
    let dir = tempdir();
    write_file(dir.path(), "a", b"x\n");
    let full = || {
        OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .expect("open /dev/full")
    };
    let many: Vec<&str> = std::iter::repeat_n("a", 5000).collect();
    let cases: [&[&str]; 3] = [&["a"], &many, &["a", "nosuch", "a"]];
    for files in cases {
        let want = run(gnu("md5sum")
            .current_dir(dir.path())
            .args(files)
            .stdout(full()));
        let gnu_stderr = String::from_utf8_lossy(&want.stderr);
        let want_stderr = |prog: &str| {
            let text = gnu_stderr.replace("md5sum: ", &format!("{prog}: "));
            let bare = format!("{prog}: write error\n");
            assert!(text.ends_with(&bare), "GNU md5sum said {gnu_stderr:?}");
            text.replace(
                &bare,
                &format!("{prog}: write error: No space left on device\n"),
            )
        };
        assert_eq!(want.status.code(), Some(1));
        for mode in MODES {
            let got = run(fastsum()
                .current_dir(dir.path())
                .args(["-m", mode])
                .args(files)
                .stdout(full()));
            let what = format!("{mode}, {} files", files.len());
            assert_eq!(
                String::from_utf8_lossy(&got.stderr),
                want_stderr("fastsum"),
                "{what}"
            );
            assert_eq!(got.status.code(), Some(1), "{what}");
        }
        let got = run(multicall(dir.path(), "md5sum")
            .current_dir(dir.path())
            .args(files)
            .stdout(full()));
        assert_eq!(String::from_utf8_lossy(&got.stderr), want_stderr("md5sum"));
        assert_eq!(got.status.code(), Some(1));
    }
}

/// stdout closed (`>&-`): "write error: Bad file descriptor", exit 1, as
/// GNU, after the other inputs' errors; and no write error at all when
/// there is nothing to write.
#[test]
fn closed_stdout_matches_gnu() {
    if !require_tool("md5sum") {
        return;
    }
    let dir = tempdir();
    write_file(dir.path(), "a", b"x\n");
    for args in [&["a"][..], &["a", "nosuch", "a"], &["nosuch"]] {
        let want = assert_script_like_md5sum(r#""$0" "$@" >&-"#, dir.path(), args);
        assert_eq!(want.status.code(), Some(1));
    }
}

/// stdout and stdin open read-write on /dev/null (`1<>/dev/null`, as
/// Python's `subprocess.DEVNULL` opens them) are open, not closed: the run
/// succeeds, as md5sum's does. (A regression test: fastsum once took a
/// read-write /dev/null for the runtime's stand-in for a closed descriptor.)
#[test]
fn read_write_dev_null_is_not_a_closed_descriptor() {
    if !require_tool("md5sum") {
        return;
    }
    let dir = tempdir();
    write_file(dir.path(), "a", b"x\n");
    for script in [r#""$0" "$@" 1<>/dev/null"#, r#""$0" - "$@" 0<>/dev/null"#] {
        let want = assert_script_like_md5sum(script, dir.path(), &["a"]);
        assert_eq!(want.status.code(), Some(0), "{script}");
    }
}

/// `fastsum big small… | head -c 1`: head exits after the first line, the
/// next writes fail with EPIPE, and fastsum stops quietly: nothing on
/// stderr, no panic, exit 0. The output (thousands of lines) is larger than
/// a pipe holds, so the closed pipe is always hit.
#[test]
fn broken_pipe_ends_quietly() {
    let dir = tempdir();
    write_file(dir.path(), "big", &random_bytes(4 << 20, 3));
    write_file(dir.path(), "small-file-with-a-longish-name", b"s\n");
    let mut args = vec!["big"];
    args.extend(std::iter::repeat_n("small-file-with-a-longish-name", 4000));
    let script = r#"{ "$0" "$@" 2>stderr; echo $? >status; } | head -c 1 >/dev/null"#;
    for mode in MODES {
        let got = sh(
            script,
            dir.path(),
            fastsum_path(),
            &[&["-m", mode], &args[..]].concat(),
        );
        assert_eq!(got.status.code(), Some(0), "{mode}: sh {}", shown(&got));
        let stderr = std::fs::read(dir.path().join("stderr")).expect("read stderr");
        let status = std::fs::read(dir.path().join("status")).expect("read status");
        assert_eq!(String::from_utf8_lossy(&stderr), "", "{mode}: stderr");
        assert_eq!(
            String::from_utf8_lossy(&status),
            "0\n",
            "{mode}: exit status"
        );
    }
}

/// /proc files have a stat size of 0 but content: read to the end anyway.
#[test]
fn proc_file_with_size_zero_matches_gnu() {
    let Some(md5) = Pair::new(Path::new("/"), Algorithm::Md5) else {
        return;
    };
    let path = "/proc/version";
    let meta = std::fs::metadata(path).expect("stat /proc/version");
    assert_eq!(meta.len(), 0, "the test needs a file whose stat size lies");
    let want = md5.assert_same_under(every_mode_and_jobs(), &[path], run);
    assert!(want.status.success());
    let empty_md5 = b"d41d8cd98f00b204e9800998ecf8427e";
    assert!(
        !want.stdout.starts_with(empty_md5),
        "/proc/version is empty?"
    );
}

/// Feed `data` to `cmd` through a FIFO at `fifo` (named last on its command
/// line), written by a thread that opens it once the command does.
fn through_fifo(cmd: &mut Command, fifo: &Path, data: &[u8]) -> Output {
    std::thread::scope(|s| {
        s.spawn(|| {
            let mut w = OpenOptions::new()
                .write(true)
                .open(fifo)
                .expect("open FIFO for writing");
            // a reader that stops early is the command's behaviour under test
            let _ = w.write_all(data);
        });
        run(cmd.arg(fifo))
    })
}

/// A FIFO is streamed to its end, whatever its (zero) size says.
#[test]
fn fifo_matches_gnu() {
    if !require_tool("md5sum") {
        return;
    }
    let dir = tempdir();
    let fifo = dir.path().join("fifo");
    let made = run(Command::new("mkfifo").arg(&fifo));
    assert!(made.status.success(), "mkfifo: {made:?}");
    write_file(dir.path(), "a", b"before\n");
    let big = random_bytes(1 << 20 | 3, 4);
    let small = random_bytes(100_003, 5);
    for mode in MODES {
        let data = if mode == "bytewise" { &small } else { &big };
        let want = through_fifo(gnu("md5sum").current_dir(dir.path()).arg("a"), &fifo, data);
        assert!(want.status.success(), "{want:?}");
        for jobs in ["1", "4"] {
            let mut cmd = fastsum();
            cmd.current_dir(dir.path())
                .args(["-m", mode, "-j", jobs, "a"]);
            let got = through_fifo(&mut cmd, &fifo, data);
            let what = format!("{mode} -j {jobs}");
            assert_outputs_same(&what, &got, &want, "fastsum", "md5sum");
        }
    }
}

/// Offsets past 4 GiB: a sparse file of 4 GiB + 1 MiB with a few bytes
/// written past the 4 GiB mark. BLAKE3 keeps this test to seconds (MD5 of
/// 4 GiB takes ~10 s even in GNU's md5sum); the expectation comes from the
/// blake3 crate, and `--stats` must count every byte (a 64-bit counter).
#[test]
fn sparse_file_past_4_gib() {
    const LEN: u64 = (4 << 30) + (1 << 20);
    const MARK_AT: u64 = (4 << 30) + (1 << 19);
    const MARK: &[u8] = b"past the 4 GiB mark";
    // On tmpfs a hole reads as the shared zero page; on a disk file system
    // each hole page is first zeroed into the page cache (seconds of system
    // time, 4 GiB of memory) before the test can read it.
    let dir = tempfile::tempdir_in("/dev/shm").unwrap_or_else(|_| tempdir());
    let path = dir.path().join("sparse");
    let mut f = File::create(&path).expect("create sparse file");
    f.set_len(LEN).expect("set_len");
    f.seek(SeekFrom::Start(MARK_AT)).expect("seek");
    f.write_all(MARK).expect("write mark");
    drop(f);

    let mut want = blake3::Hasher::new();
    let zeros = vec![0u8; 1 << 20];
    let mut left = MARK_AT;
    while left > 0 {
        let n = left.min(zeros.len() as u64) as usize;
        want.update(&zeros[..n]);
        left -= n as u64;
    }
    want.update(MARK);
    want.update(&zeros[..(LEN - MARK_AT) as usize - MARK.len()]);
    let want = format!("{}  sparse\n", want.finalize().to_hex());

    let got = run(fastsum().current_dir(dir.path()).args([
        "-a",
        "blake3",
        "--untagged",
        "--stats",
        "sparse",
    ]));
    assert_eq!(String::from_utf8_lossy(&got.stdout), want);
    assert_eq!(got.status.code(), Some(0));
    let stderr = String::from_utf8_lossy(&got.stderr);
    assert!(
        stderr.contains(&format!("fastsum: stats: bytes hashed: {LEN}\n")),
        "{stderr}"
    );
}

/// Usage errors: nothing on stdout, a message on stderr, exit 2 as fastsum,
/// exit 1 under a GNU tool's name (as GNU's own tools do) and 2 as b3sum.
#[test]
fn usage_errors_exit_2_or_1_under_a_gnu_name() {
    if !require_tool("md5sum") || !require_tool("sha256sum") {
        return;
    }
    let dir = tempdir();
    write_file(dir.path(), "f", b"x\n");
    // option combinations GNU rejects, with GNU's message word for word
    let gnu_worded: [&[&str]; 10] = [
        &["-c", "--tag", "f"],
        &["-c", "-z", "f"],
        &["-c", "-b", "f"],
        &["-c", "-t", "f"],
        &["--tag", "-t", "f"],
        &["--strict", "f"],
        &["--quiet", "f"],
        &["--status", "f"],
        &["-w", "f"],
        &["--ignore-missing", "f"],
    ];
    // unknown options: GNU rejects them too, but the message is clap's
    let unknown: [&[&str]; 2] = [&["--bogus", "f"], &["-Q", "f"]];
    // fastsum's own options with bad values
    let bad_values: [&[&str]; 11] = [
        &["-a", "md4", "f"],
        &["-m", "fast", "f"],
        &["--chunk", "0", "f"],
        &["--readahead", "2G", "f"],
        &["--chunk", "12x", "f"],
        &["--pool", "0", "f"],
        &["-j", "0", "f"],
        &["-j", "-1", "f"],
        // bounded so that a typo cannot exhaust threads or memory
        &["-j", "100000", "f"],
        &["--pool", "1000000", "f"],
        &["--pool", "8", "--readahead", "1G", "f"],
    ];
    let usage = |o: &Output, code: i32, what: &str| {
        assert_eq!(o.status.code(), Some(code), "{what}: {}", shown(o));
        assert_eq!(String::from_utf8_lossy(&o.stdout), "", "{what}");
        assert!(!o.stderr.is_empty(), "{what}: no message");
    };
    for args in gnu_worded.iter().chain(&unknown).chain(&bad_values) {
        let what = format!("{args:?}");
        usage(
            &run(fastsum().current_dir(dir.path()).args(*args)),
            2,
            &what,
        );
        for tool in ["md5sum", "sha1sum", "sha512sum"] {
            let o = run(multicall(dir.path(), tool)
                .current_dir(dir.path())
                .args(*args));
            usage(&o, 1, &format!("{tool} {what}"));
        }
        let o = run(multicall(dir.path(), "b3sum")
            .current_dir(dir.path())
            .args(*args));
        usage(&o, 2, &format!("b3sum {what}"));
    }
    for args in gnu_worded {
        let want = run(gnu("sha256sum").current_dir(dir.path()).args(args));
        let got = run(multicall(dir.path(), "sha256sum")
            .current_dir(dir.path())
            .args(args));
        let what = format!("sha256sum {args:?}");
        assert_outputs_same(&what, &got, &want, "sha256sum", "sha256sum");
    }
    for args in unknown {
        let want = run(gnu("md5sum").current_dir(dir.path()).args(args));
        usage(&want, 1, &format!("GNU md5sum {args:?}"));
    }
}

/// A message that cannot be written to stderr (`2>&-`, `2>/dev/full`)
/// fails the run, as GNU's tools fail it; with nothing to say, stderr's
/// state does not matter. Against md5sum through a shell.
#[test]
fn a_failed_write_to_stderr_fails_the_run() {
    if !require_tool("md5sum") {
        return;
    }
    let dir = tempdir();
    write_file(dir.path(), "f", b"hi\n");
    let sum = run(gnu("md5sum").current_dir(dir.path()).arg("f"));
    let mut sums = sum.stdout.clone();
    sums.extend_from_slice(b"garbage\n");
    write_file(dir.path(), "SUMS", &sums);
    let ours = fastsum_path();
    for redirect in ["2>&-", "2>/dev/full"] {
        for args in ["-c -w SUMS", "-c SUMS", "f"] {
            let status = |prog: &std::ffi::OsStr| {
                let o = run(std::process::Command::new("sh")
                    .current_dir(dir.path())
                    .env("LC_ALL", "C.UTF-8")
                    .arg("-c")
                    .arg(format!("\"$0\" {args} >/dev/null {redirect}"))
                    .arg(prog));
                o.status.code()
            };
            let md5sum = oracle_path("md5sum");
            assert_eq!(
                status(ours.as_os_str()),
                status(md5sum.as_os_str()),
                "{args} {redirect}"
            );
        }
    }
}

/// A file truncated while it is read in many calls prints no hash of a
/// prefix that never existed (GNU's tools print one): the read paths check
/// the file at its end, as the mapped ones do, and say it changed.
#[test]
fn a_file_truncated_while_read_is_an_error() {
    let dir = tempdir();
    for (mode, extra) in [("sync", &["--chunk", "1"][..]), ("bytewise", &[])] {
        let path = write_file(dir.path(), "f", &random_bytes(1 << 20, 9));
        let mut cmd = fastsum();
        cmd.current_dir(dir.path())
            .args(["-m", mode])
            .args(extra)
            .arg("f")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let o = crate::util::within(&mut cmd, crate::util::child_limit(), |cmd| {
            let child = cmd.spawn().unwrap();
            // one byte per call (or per hash update) takes far longer than this
            std::thread::sleep(std::time::Duration::from_millis(30));
            OpenOptions::new()
                .write(true)
                .open(&path)
                .unwrap()
                .set_len(1000)
                .unwrap();
            child.wait_with_output().unwrap()
        });
        assert_output(
            &format!("-m {mode}"),
            &o,
            "",
            "fastsum: f: file changed as we read it\n",
            1,
        );
    }
}
