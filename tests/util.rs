//! Helpers shared by the integration tests.

#![allow(dead_code)]

use std::ffi::OsStr;
use std::io::Write;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use assert_cmd::cargo::CommandCargoExt;

/// The fastsum binary under test.
pub fn fastsum() -> Command {
    let mut c = Command::cargo_bin("fastsum").expect("fastsum binary");
    c.env("LC_ALL", "C.UTF-8");
    c
}

/// A GNU tool (md5sum, sha256sum, …) in the same locale as fastsum.
pub fn gnu(tool: &str) -> Command {
    let mut c = Command::new(tool);
    c.env("LC_ALL", "C.UTF-8");
    c
}

/// Is `tool` on PATH?
pub fn cmd_exists(tool: &str) -> bool {
    Command::new(tool)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Is the oracle `tool` here? A test that needs it returns early when it is
/// missing on a developer's machine, but under CI (`CI` set) a missing
/// oracle fails the test: CI must install what the tests need.
pub fn require_tool(tool: &str) -> bool {
    if cmd_exists(tool) {
        return true;
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "{tool} is required under CI: .ci/run must install it"
    );
    eprintln!("skipped: {tool} is not installed");
    false
}

/// Deterministic pseudo-random bytes (xorshift), so failures reproduce.
pub fn random_bytes(len: usize, seed: u64) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect()
}

/// Write `data` to `dir/name` (name given as raw bytes) and return the path.
pub fn write_file(dir: &Path, name: impl AsRef<OsStr>, data: &[u8]) -> PathBuf {
    let p = dir.join(name.as_ref());
    std::fs::write(&p, data).expect("write test file");
    p
}

/// A symlink named `name` to the fastsum binary in `dir` (multi-call).
pub fn multicall(dir: &Path, name: &str) -> Command {
    let target = assert_cmd::cargo::cargo_bin("fastsum");
    let link = dir.join(name);
    if !link.exists() {
        std::os::unix::fs::symlink(target, &link).expect("symlink");
    }
    let mut c = Command::new(link);
    c.env("LC_ALL", "C.UTF-8");
    c
}

/// Run both commands (in `dir`) and assert identical stdout and exit status,
/// and stderr identical once each program's name prefix is removed.
pub fn assert_same(mut ours: Command, mut theirs: Command, ours_name: &str, theirs_name: &str) {
    let a = ours.output().expect("run fastsum");
    let b = theirs.output().expect("run GNU tool");
    assert_outputs_same("", &a, &b, ours_name, theirs_name);
}

/// A fresh temporary directory for one test.
pub fn tempdir() -> tempfile::TempDir {
    tempfile::tempdir().expect("temp dir")
}

/// Run `cmd` to completion, capturing stdout and stderr.
pub fn run(cmd: &mut Command) -> Output {
    cmd.output().expect("run command")
}

/// Run `cmd` with `data` on its standard input through a pipe (as in
/// `cat x | cmd`), written by a separate thread so a large input cannot
/// deadlock against the child's output.
pub fn run_with_stdin(cmd: &mut Command, data: &[u8]) -> Output {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn command");
    let mut stdin = child.stdin.take().expect("child stdin");
    std::thread::scope(|s| {
        // the child may stop reading early (an error, or a closed pipe): that is
        // the child's behaviour to check, not a test failure, so ignore it here
        s.spawn(move || {
            let _ = stdin.write_all(data);
        });
        child.wait_with_output().expect("wait for command")
    })
}

/// Assert that two finished runs match: stdout bytes, exit status, and
/// stderr once each program's `name: ` prefix is replaced. `what` names the
/// case in the failure message.
pub fn assert_outputs_same(
    what: &str,
    ours: &Output,
    theirs: &Output,
    ours_name: &str,
    theirs_name: &str,
) {
    assert_eq!(
        String::from_utf8_lossy(&ours.stdout),
        String::from_utf8_lossy(&theirs.stdout),
        "{what}: stdout differs"
    );
    assert_eq!(ours.stdout, theirs.stdout, "{what}: stdout bytes differ");
    let strip =
        |s: &[u8], name: &str| String::from_utf8_lossy(s).replace(&format!("{name}: "), "PROG: ");
    assert_eq!(
        strip(&ours.stderr, ours_name),
        strip(&theirs.stderr, theirs_name),
        "{what}: stderr differs"
    );
    assert_eq!(
        ours.status.code(),
        theirs.status.code(),
        "{what}: exit status differs"
    );
}

/// The GNU tool for each `-a` name GNU coreutils has (all but blake3).
pub const GNU_TOOLS: [(&str, &str); 6] = [
    ("md5", "md5sum"),
    ("sha1", "sha1sum"),
    ("sha224", "sha224sum"),
    ("sha256", "sha256sum"),
    ("sha384", "sha384sum"),
    ("sha512", "sha512sum"),
];

/// Every `--mode`.
pub const MODES: [&str; 3] = ["threaded", "sync", "bytewise"];

/// An `OsStr` from raw bytes: file names need not be UTF-8.
pub fn os(name: &[u8]) -> &OsStr {
    OsStr::from_bytes(name)
}

/// The path of the fastsum binary under test.
pub fn fastsum_path() -> PathBuf {
    assert_cmd::cargo::cargo_bin("fastsum")
}

/// Run `script` with `sh -c` in `dir`, with `$FASTSUM` naming the binary
/// under test, killed after `secs` seconds (`timeout -s KILL`: a hang shows
/// as status 137 from timeout instead of a stuck test).
pub fn shell(dir: &Path, secs: u32, script: &str) -> Output {
    let mut c = Command::new("timeout");
    c.current_dir(dir)
        .env("LC_ALL", "C.UTF-8")
        .env("FASTSUM", fastsum_path())
        .args(["-s", "KILL", &secs.to_string(), "sh", "-c", script]);
    run(&mut c)
}

/// Assert that a run printed no sign of a panic or an abort.
pub fn assert_no_panic(what: &str, out: &Output) {
    let err = String::from_utf8_lossy(&out.stderr);
    for bad in [
        "panicked",
        "RUST_BACKTRACE",
        "stack backtrace",
        "memory allocation",
        "Aborted",
    ] {
        assert!(!err.contains(bad), "{what}: {bad:?} on stderr:\n{err}");
    }
    // 101: a panic's exit status; 134: SIGABRT through sh
    assert!(
        !matches!(out.status.code(), Some(101 | 134)),
        "{what}: exit status {:?}, stderr:\n{err}",
        out.status
    );
}

/// Is strace here and allowed to trace (ptrace may be denied in a
/// container)? Like [`require_tool`]: skips locally, fails under CI.
pub fn require_strace() -> bool {
    if !require_tool("strace") {
        return false;
    }
    let traces = Command::new("strace")
        .args(["-f", "-qq", "-o", "/dev/null", "true"])
        .status()
        .is_ok_and(|s| s.success());
    if !traces {
        assert!(
            std::env::var_os("CI").is_none(),
            "strace cannot trace here (ptrace denied?): CI must allow it"
        );
        eprintln!("skipped: strace cannot trace here");
    }
    traces
}
