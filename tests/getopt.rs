//! Option parsing under a GNU name, against the installed GNU md5sum: both
//! run under the name `md5sum` (fastsum through a symlink), so stdout,
//! stderr and the exit status must match byte for byte: every option and
//! every abbreviation of it, repeated options, clusters, operands among the
//! options, and getopt's error lines.

use std::path::Path;
use std::process::Command;

use crate::util::{
    assert_outputs_same, assert_stdout, gnu, multicall, require_tool, run, tempdir, write_file,
};

/// A directory with a file `f` and a checksum file `SUMS` for it.
fn setup() -> tempfile::TempDir {
    let dir = tempdir();
    write_file(dir.path(), "f", b"abc\n");
    write_file(
        dir.path(),
        "SUMS",
        b"0bee89b07a248e27c83fc3d5951213c1  f\nbad line\n",
    );
    dir
}

fn both(dir: &Path, args: &[&str], posix: bool) {
    let with_env = |mut c: Command| {
        c.current_dir(dir);
        if posix {
            c.env("POSIXLY_CORRECT", "1");
        } else {
            c.env_remove("POSIXLY_CORRECT");
        }
        c
    };
    let want = run(with_env(gnu("md5sum")).args(args));
    let got = run(with_env(multicall(dir, "md5sum")).args(args));
    let what = format!(
        "md5sum {args:?}{}",
        if posix { " POSIXLY_CORRECT" } else { "" }
    );
    assert_outputs_same(&what, &got, &want, "md5sum", "md5sum");
}

/// GNU md5sum's long options, but --help and --version (whose text differs).
const LONG: [&str; 10] = [
    "check",
    "ignore-missing",
    "quiet",
    "status",
    "warn",
    "strict",
    "tag",
    "zero",
    "binary",
    "text",
];

/// Every prefix of every option, alone and with -c, and with `=x`: the
/// unambiguous ones act as the option, the ambiguous ones name the same
/// candidates in the same order, `=x` is refused with the full name.
#[test]
fn every_abbreviation_as_gnu() {
    if !require_tool("md5sum") {
        return;
    }
    let dir = setup();
    for long in LONG {
        for len in 1..=long.len() {
            let word = format!("--{}", &long[..len]);
            both(dir.path(), &[&word, "f"], false);
            both(dir.path(), &["-c", &word, "SUMS"], false);
            both(dir.path(), &[&format!("{word}=x"), "f"], false);
        }
    }
}

/// Abbreviations of --help and --version: both stop the parse and exit 0
/// (the text is fastsum's own).
#[test]
fn help_and_version_abbreviations() {
    if !require_tool("md5sum") {
        return;
    }
    let dir = setup();
    for word in ["--h", "--he", "--help", "--v", "--vers", "--version"] {
        for args in [vec![word, "--bogus"], vec!["-c", word, "-x"]] {
            let want = run(gnu("md5sum").current_dir(dir.path()).args(&args));
            let got = run(multicall(dir.path(), "md5sum")
                .current_dir(dir.path())
                .args(&args));
            assert_eq!(want.status.code(), Some(0), "{args:?}");
            assert_eq!(got.status.code(), Some(0), "{args:?}");
            assert!(got.stderr.is_empty() && !got.stdout.is_empty(), "{args:?}");
        }
    }
    let got = run(multicall(dir.path(), "md5sum").arg("--version"));
    assert_eq!(
        String::from_utf8_lossy(&got.stdout),
        format!("md5sum (fastsum) {}\n", env!("CARGO_PKG_VERSION"))
    );
}

/// Repeated options (the last wins), clusters, `-t --tag`, operands before
/// options, `--`, and `-` as an operand.
#[test]
fn repeated_options_and_clusters_as_gnu() {
    if !require_tool("md5sum") {
        return;
    }
    let dir = setup();
    let cases: &[&[&str]] = &[
        &["-c", "-c", "SUMS"],
        &["-cc", "SUMS"],
        &["-cw", "SUMS"],
        &["-wc", "--warn", "SUMS"],
        &["-b", "-b", "f"],
        &["-bb", "f"],
        &["-bt", "f"],
        &["-tb", "f"],
        &["-zb", "f"],
        &["-z", "-z", "f"],
        &["--quiet", "--quiet", "-c", "SUMS"],
        &["--status", "--quiet", "-c", "SUMS"],
        &["--quiet", "--status", "-c", "SUMS"],
        &["--status", "-w", "-c", "SUMS"],
        &["--strict", "--strict", "-c", "SUMS"],
        &["--tag", "--tag", "f"],
        &["-t", "--tag", "f"],
        &["--tag", "-t", "f"],
        &["--tag", "-b", "f"],
        &["-b", "--tag", "f"],
        &["--tag", "-t", "-b", "f"],
        &["-c", "--tag", "SUMS"],
        &["-c", "-z", "--tag", "SUMS"],
        &["-c", "--tag", "-t", "SUMS"],
        &["-c", "-t", "SUMS"],
        &["--ignore-missing", "--ignore-missing", "-c", "SUMS"],
        &["f", "-c"],
        &["SUMS", "--check", "--quiet"],
        &["--", "-c"],
        &["-c", "--", "SUMS", "-c"],
        &["-"],
        &["f", "-", "--tag"],
        &["--status", "f"],
        &["--quiet", "--warn", "f"],
    ];
    for args in cases {
        both(dir.path(), args, false);
    }
    // POSIXLY_CORRECT: the first operand ends the options
    both(dir.path(), &["f", "-c"], true);
    both(dir.path(), &["-c", "SUMS", "--quiet"], true);
}

/// getopt's error lines, word for word, then GNU's hint; exit 1.
#[test]
fn usage_errors_as_gnu() {
    if !require_tool("md5sum") {
        return;
    }
    let dir = setup();
    let cases: &[&[&str]] = &[
        &["-/", "f"],
        &["-x", "f"],
        &["-cx", "SUMS"],
        &["-c-", "SUMS"],
        &["-h"],
        &["-V"],
        &["--bogus", "f"],
        &["--bogus=x", "f"],
        &["--=x", "f"],
        &["--check=1", "SUMS"],
        &["--ta=x", "f"],
        &["--tag=", "f"],
        &["--s", "f"],
        &["--st", "f"],
        &["--t", "f"],
        &["--t=x", "f"],
        &["f", "--bogus"],
        &["--bogus", "--help"],
        &["--bogus", "-/"],
        &["-c", "-/", "--bogus"],
        // fastsum's -a does not exist under a GNU name
        &["-a", "sha256", "f"],
        &["-asha256", "f"],
        &["--algorithm=sha256", "f"],
    ];
    for args in cases {
        both(dir.path(), args, false);
    }
}

/// fastsum's own options under a GNU name: accepted, repeatable, and a bad
/// value is reported in GNU's frame (`md5sum: …` and the hint, exit 1).
#[test]
fn fastsum_options_under_a_gnu_name() {
    if !require_tool("md5sum") {
        return;
    }
    let dir = setup();
    let want = run(gnu("md5sum").current_dir(dir.path()).arg("f"));
    for args in [
        &["-j2", "-j3", "f"][..],
        &["-j", "2", "--jobs=1", "-msync", "-m", "bytewise", "f"],
        &["--readahead", "4K", "--chunk=16", "--pool", "2", "f"],
        &[
            "--stats",
            "--stats",
            "--no-progress",
            "--progress",
            "--no-progress",
            "f",
        ],
        &["--chu", "16", "--read=4K", "--poo", "3", "f"],
    ] {
        let got = run(multicall(dir.path(), "md5sum")
            .current_dir(dir.path())
            .args(args));
        assert_stdout(&format!("{args:?}"), &got, &want.stdout);
        assert_eq!(got.status.code(), Some(0), "{args:?}");
    }
    for (args, first_line) in [
        (
            &["-j", "0", "f"][..],
            "md5sum: invalid value '0' for '--jobs <N>': it must be a whole number from 1 to 1024",
        ),
        (
            &["-j", "-1", "f"],
            "md5sum: invalid value '-1' for '--jobs <N>': it must be a whole number from 1 to 1024",
        ),
        (&["-j"], "md5sum: option requires an argument -- 'j'"),
        (&["--jobs"], "md5sum: option '--jobs' requires an argument"),
        (
            &["--p", "f"],
            "md5sum: option '--p' is ambiguous; possibilities: '--pool' '--progress'",
        ),
    ] {
        let got = run(multicall(dir.path(), "md5sum")
            .current_dir(dir.path())
            .args(args));
        assert_eq!(
            String::from_utf8_lossy(&got.stderr),
            format!("{first_line}\nTry 'md5sum --help' for more information.\n"),
            "{args:?}"
        );
        assert_eq!(got.status.code(), Some(1), "{args:?}");
        assert!(got.stdout.is_empty());
    }
}
