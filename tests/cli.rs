//! Smoke tests of the command line: help, version, usage errors.

use crate::util::fastsum;

#[test]
fn help_and_version_exit_zero() {
    let o = fastsum().arg("--help").output().unwrap();
    assert_eq!(o.status.code(), Some(0));
    let help = String::from_utf8_lossy(&o.stdout);
    for needle in [
        "--mode",
        "--chunk",
        "--readahead",
        "threaded",
        "sync",
        "bytewise",
        "mmap",
    ] {
        assert!(help.contains(needle), "--help lacks {needle}");
    }
    let o = fastsum().arg("--version").output().unwrap();
    assert_eq!(o.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&o.stdout).starts_with("fastsum "));
}

#[test]
fn usage_errors_exit_2_with_nothing_on_stdout() {
    for args in [
        &["--bogus"][..],
        &["-a", "md4"],
        &["-m", "fast"],
        &["--chunk", "0"],
        &["--chunk", "-5"],
        &["--readahead", "2G"],
        &["--chunk", "12x"],
        &["-j", "0"],
        &["-c", "-z"],
        &["-c", "--tag"],
        &["--strict"],
    ] {
        let o = fastsum().args(args).output().unwrap();
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(o.stdout.is_empty(), "{args:?}");
        assert!(!o.stderr.is_empty(), "{args:?}");
    }
}
