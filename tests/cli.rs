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

/// As fastsum, usage errors may be clap's (exit 2), but each says what is
/// wrong in words a user understands; an ambiguous abbreviation names the
/// candidates; repeated options are accepted, the last one winning.
#[test]
fn usage_errors_say_what_is_wrong() {
    for (args, needle) in [
        (
            &["-j", "0"][..],
            "invalid value '0' for '--jobs <N>': it must be a whole number from 1 to 1024",
        ),
        (
            &["-j", "-1"],
            "invalid value '-1' for '--jobs <N>': it must be a whole number from 1 to 1024",
        ),
        (
            &["--pool", "0"],
            "invalid value '0' for '--pool <N>': it must be a whole number from 1 to 1024",
        ),
        (
            &["--ch"],
            "fastsum: option '--ch' is ambiguous; possibilities: '--check' '--chunk'",
        ),
        (
            &["--stat"],
            "fastsum: option '--stat' is ambiguous; possibilities: '--status' '--stats'",
        ),
        (
            &["--bogus"],
            "fastsum: unrecognized option '--bogus'\nTry 'fastsum --help' for more information.",
        ),
        (&["-/"], "fastsum: invalid option -- '/'"),
        (&["--raw"], "fastsum: unrecognized option '--raw'"),
    ] {
        let o = fastsum().args(args).output().unwrap();
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(needle), "{args:?}: {err}");
    }
    // the last -a wins, --chec and --qui abbreviate, repeats are fine
    let dir = crate::util::tempdir();
    crate::util::write_file(dir.path(), "f", b"abc");
    let sha256 = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
    crate::util::write_file(dir.path(), "SUMS", format!("{sha256}  f\n").as_bytes());
    let o = fastsum()
        .current_dir(dir.path())
        .args([
            "-a", "sha1", "-a", "SHA256", "-j2", "-j3", "--chec", "--qui", "--qui",
        ])
        .args(["SUMS", "-c"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    assert!(o.stdout.is_empty() && o.stderr.is_empty(), "{o:?}");
}
