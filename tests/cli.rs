//! Smoke tests of the command line: help, version, usage errors.

use std::ffi::OsStr;
use std::process::Command;

use crate::util::Bounded;
use crate::util::{fastsum, multicall, os, shown, tempdir, write_file};

#[test]
fn help_and_version_exit_zero() {
    let o = fastsum().arg("--help").bounded_output().unwrap();
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
    let o = fastsum().arg("--version").bounded_output().unwrap();
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
        let o = fastsum().args(args).bounded_output().unwrap();
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(o.stdout.is_empty(), "{args:?}");
        assert!(!o.stderr.is_empty(), "{args:?}");
    }
}

/// `FASTSUM_MD5` picks an MD5 kernel, so only a run whose algorithm is MD5
/// validates it: a bad value does not break SHA-256 (hashing, checking, or
/// under sha256sum's name), and still stops an MD5 run as a usage error.
#[test]
fn bad_md5_kernel_only_stops_md5_runs() {
    const EMPTY_SHA256: &str = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
    let dir = tempdir();
    let sums = write_file(
        dir.path(),
        "SUMS",
        format!("{EMPTY_SHA256}  /dev/null\n").as_bytes(),
    );
    let runs: [(Command, &[&OsStr], &str); 3] = [
        (
            fastsum(),
            &[
                os(b"-a"),
                os(b"sha256"),
                os(b"--untagged"),
                os(b"/dev/null"),
            ],
            "",
        ),
        (
            fastsum(),
            &[os(b"-a"), os(b"sha256"), os(b"-c"), sums.as_os_str()],
            "/dev/null: OK\n",
        ),
        (multicall(dir.path(), "sha256sum"), &[os(b"/dev/null")], ""),
    ];
    for (mut cmd, args, want) in runs {
        let o = cmd
            .env("FASTSUM_MD5", "foo")
            .args(args)
            .bounded_output()
            .unwrap();
        assert_eq!(
            o.status.code(),
            Some(0),
            "{args:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        assert!(o.stderr.is_empty(), "{args:?}");
        let out = String::from_utf8_lossy(&o.stdout);
        if want.is_empty() {
            assert_eq!(out, format!("{EMPTY_SHA256}  /dev/null\n"), "{args:?}");
        } else {
            assert_eq!(out, want, "{args:?}");
        }
    }
    for (mut cmd, args, code) in [
        (fastsum(), &["/dev/null"][..], 2),
        (fastsum(), &["-a", "md5", "/dev/null"], 2),
        (multicall(dir.path(), "md5sum"), &["/dev/null"], 1),
    ] {
        let o = cmd
            .env("FASTSUM_MD5", "foo")
            .args(args)
            .bounded_output()
            .unwrap();
        assert_eq!(o.status.code(), Some(code), "{args:?}");
        assert!(o.stdout.is_empty(), "{args:?}");
        assert!(
            String::from_utf8_lossy(&o.stderr).contains("invalid FASTSUM_MD5 value \"foo\""),
            "{args:?}"
        );
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
        let o = fastsum().args(args).bounded_output().unwrap();
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(needle), "{args:?}: {err}");
    }
    // repeated -a add up (-c then takes a SHA-256 line by its hex length),
    // --chec and --qui abbreviate, other repeats are fine (the last wins)
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
        .bounded_output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", shown(&o));
    assert!(o.stdout.is_empty() && o.stderr.is_empty(), "{}", shown(&o));
}

/// An empty item of `-a`'s list is named, and so is a name that is no
/// algorithm; both are usage errors.
#[test]
fn empty_algorithm_items_are_named() {
    for (value, says) in [
        ("", "the algorithm name is empty"),
        ("md5,", "the list's last item is empty"),
        (",md5", "the list's first item is empty"),
        ("md5,,sha1", "item 2 of the list is empty"),
        ("bogus", "'bogus' is no algorithm"),
    ] {
        let o = crate::util::run(fastsum().args(["-a", value, "/dev/null"]));
        assert_eq!(o.status.code(), Some(2), "-a {value:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(says), "-a {value:?}: {err}");
        assert!(err.contains("algorithms: md5, sha1"), "-a {value:?}: {err}");
    }
}

/// Under fastsum's own name an unknown option and a bad value are worded
/// alike (GNU's frame, exit 2) and a close name is suggested.
#[test]
fn fastsum_suggests_what_was_meant() {
    for (args, first_line) in [
        (
            &["--chunck", "4K", "/dev/null"][..],
            "fastsum: unrecognized option '--chunck'; did you mean '--chunk'?",
        ),
        (
            &["-m", "snyc", "/dev/null"],
            "fastsum: invalid value 'snyc' for '--mode <MODE>': 'snyc' is no mode (modes: \
             threaded, sync, bytewise, mmap); did you mean 'sync'?",
        ),
        (
            &["--chunk", "64kb", "/dev/null"],
            "fastsum: invalid value '64kb' for '--chunk <SIZE>': 'kb' is no size suffix (a \
             SIZE is 1 to 1G bytes: 16, 4K or 4KiB for 4096, 4KB for 4000, 1M, 1MB, 1G)",
        ),
    ] {
        let o = fastsum().args(args).bounded_output().unwrap();
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(o.stdout.is_empty(), "{args:?}");
        assert_eq!(
            String::from_utf8_lossy(&o.stderr),
            format!("{first_line}\nTry 'fastsum --help' for more information.\n"),
            "{args:?}"
        );
    }
}

/// SIZEs as GNU's `--block-size` reads them: `KB` is 1000 bytes, `K` and
/// `KiB` 1024 (seen in the read calls of sync mode, which reads --chunk
/// bytes per call).
#[test]
fn sizes_read_kb_as_1000_and_kib_as_1024() {
    let dir = tempdir();
    write_file(dir.path(), "f", &[7u8; 10_240]);
    for (chunk, calls) in [("1KB", 11), ("1K", 10), ("1KiB", 10), ("KB", 11)] {
        let o = fastsum()
            .current_dir(dir.path())
            .args(["-m", "sync", "--stats", "--chunk", chunk, "f"])
            .bounded_output()
            .unwrap();
        assert_eq!(o.status.code(), Some(0), "{chunk}: {}", shown(&o));
        let err = String::from_utf8_lossy(&o.stderr);
        // the data calls and the one that finds the end
        let want = format!("stats: read calls: {}\n", calls + 1);
        assert!(err.contains(&want), "--chunk {chunk}: {err}");
    }
}

/// `-h` is a screenful with examples; `--help` lists the common options
/// before the tuning ones and the examples right after the options.
#[test]
fn short_help_fits_a_screen_and_long_help_puts_common_options_first() {
    let o = fastsum()
        .arg("-h")
        .env("COLUMNS", "80")
        .bounded_output()
        .unwrap();
    let short = String::from_utf8_lossy(&o.stdout);
    assert!(short.lines().count() <= 40, "{short}");
    assert!(
        short.contains("Examples:") && !short.contains("--readahead"),
        "{short}"
    );
    let o = fastsum().arg("--help").bounded_output().unwrap();
    let long = String::from_utf8_lossy(&o.stdout);
    let at = |s: &str| long.find(s).unwrap_or_else(|| panic!("{s} in {long}"));
    assert!(at("--check") < at("--mode") && at("--jobs") < at("--chunk"));
    assert!(at("--version") < at("Examples:") && at("Examples:") < at("Reading modes:"));
}

/// On Linux with glibc the binary is position-dependent (build.rs links it
/// `-no-pie`): an ELF of type EXEC, not DYN, so that the loader applies no
/// relocations of its own at each start.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[test]
fn the_binary_is_linked_position_dependent() {
    let elf = std::fs::read(crate::util::fastsum_path()).unwrap();
    assert_eq!(&elf[..4], b"\x7fELF");
    // e_type, little-endian at byte 16: 2 EXEC, 3 DYN (PIE)
    assert_eq!(u16::from_le_bytes([elf[16], elf[17]]), 2, "e_type");
}
