//! Helpers shared by the integration tests.

#![allow(dead_code)]

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Command;

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
    assert_eq!(
        String::from_utf8_lossy(&a.stdout),
        String::from_utf8_lossy(&b.stdout),
        "stdout differs"
    );
    assert_eq!(a.stdout, b.stdout, "stdout bytes differ");
    let strip =
        |s: &[u8], name: &str| String::from_utf8_lossy(s).replace(&format!("{name}: "), "PROG: ");
    assert_eq!(
        strip(&a.stderr, ours_name),
        strip(&b.stderr, theirs_name),
        "stderr differs"
    );
    assert_eq!(a.status.code(), b.status.code(), "exit status differs");
}
