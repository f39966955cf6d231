//! `-c SUMS --audit DIR`: every listed file OK, FAILED or UNREADABLE as
//! `-c` says (its lines byte-identical to md5sum -c's), MISSING, and the
//! tree's unlisted files NEW or MOVED; a summary on stderr; exit 0 only for
//! a tree exactly as listed. In every mode, with odd names, a check file
//! on stdin, several algorithms, --quiet/--status and --json.

use std::path::Path;

use crate::util::{
    MODES, fastsum, gnu, os, require_tool, run, run_with_stdin, shown, tempdir, write_file,
};

/// A tree `d` (odd names too) and `SUMS`, its manifest by fastsum -r.
fn fixture(algos: &[&str]) -> tempfile::TempDir {
    let dir = tempdir();
    let d = dir.path();
    std::fs::create_dir_all(d.join("d/s")).unwrap();
    write_file(d, "d/a", b"a\n");
    write_file(d, "d/s/b", b"b\n");
    write_file(d, "d/c", b"c\n");
    write_file(d, "d/back\\slash", b"bs\n");
    write_file(d, "d/new\nline", b"nl\n");
    write_file(d, os(b"d/bad\xffname"), b"ff\n");
    write_file(d, "d/e1", b"");
    write_file(d, "d/e2", b"");
    let o = run(fastsum().current_dir(d).args(algos).args(["-r", "d"]));
    assert_eq!(o.status.code(), Some(0), "{}", shown(&o));
    std::fs::write(d.join("SUMS"), &o.stdout).unwrap();
    dir
}

fn audit(d: &Path, extra: &[&str]) -> std::process::Output {
    run(fastsum()
        .current_dir(d)
        .args(["-c", "SUMS", "--audit", "d"])
        .args(extra))
}

const CLEAN_SUMMARY: &str =
    "fastsum: audit: 8 OK, 0 FAILED, 0 UNREADABLE, 0 MISSING, 0 NEW, 0 MOVED\n";

#[test]
fn an_unchanged_tree_passes_with_md5sums_lines() {
    if !require_tool("md5sum") {
        return;
    }
    let dir = fixture(&[]);
    let d = dir.path();
    let theirs = run(gnu("md5sum").current_dir(d).args(["-c", "SUMS"]));
    assert_eq!(theirs.status.code(), Some(0), "{}", shown(&theirs));
    for mode in MODES {
        for jobs in ["1", "3"] {
            let o = audit(d, &["-m", mode, "-j", jobs]);
            let what = format!("{mode} -j {jobs}");
            crate::util::assert_stdout(&what, &o, &theirs.stdout);
            assert_eq!(String::from_utf8_lossy(&o.stderr), CLEAN_SUMMARY, "{what}");
            assert_eq!(o.status.code(), Some(0), "{what}");
        }
    }
}

/// Change the fixture: c edited, a moved, s/b deleted, one empty file
/// deleted and one added elsewhere (a move of an empty file), a new file.
fn change(d: &Path) {
    std::fs::write(d.join("d/c"), b"changed\n").unwrap();
    std::fs::rename(d.join("d/a"), d.join("d/s/a moved")).unwrap();
    std::fs::remove_file(d.join("d/s/b")).unwrap();
    std::fs::remove_file(d.join("d/e1")).unwrap();
    std::fs::remove_file(d.join("d/e2")).unwrap();
    write_file(d, "d/s/empty", b"");
    write_file(d, "d/zz new", b"brand new\n");
}

#[test]
fn each_category_is_reported_in_every_mode() {
    let dir = fixture(&[]);
    let d = dir.path();
    change(d);
    let want: &[u8] = b"d/back\\slash: OK\n\
        d/bad\xffname: OK\n\
        d/c: FAILED\n\
        \\d/new\\nline: OK\n\
        d/s/a moved: MOVED from d/a\n\
        d/s/empty: MOVED from d/e1\n\
        d/zz new: NEW\n\
        d/e2: MISSING\n\
        d/s/b: MISSING\n";
    let summary = "fastsum: WARNING: 1 computed checksum did NOT match\n\
                   fastsum: audit: 3 OK, 1 FAILED, 0 UNREADABLE, 2 MISSING, 1 NEW, 2 MOVED\n";
    for mode in MODES {
        for jobs in ["1", "4"] {
            let o = audit(d, &["-m", mode, "-j", jobs]);
            let what = format!("{mode} -j {jobs}");
            crate::util::assert_stdout(&what, &o, want);
            assert_eq!(String::from_utf8_lossy(&o.stderr), summary, "{what}");
            assert_eq!(o.status.code(), Some(1), "{what}");
        }
    }
    // --quiet drops the OK lines only; --status prints nothing at all
    let o = audit(d, &["--quiet"]);
    let quiet: Vec<&[u8]> = want
        .split_inclusive(|&b| b == b'\n')
        .filter(|l| !l.ends_with(b": OK\n"))
        .collect();
    crate::util::assert_stdout("--quiet", &o, quiet.concat());
    let o = audit(d, &["--status"]);
    assert!(o.stdout.is_empty() && o.stderr.is_empty(), "{}", shown(&o));
    assert_eq!(o.status.code(), Some(1));
}

#[test]
fn new_files_alone_fail_and_excluded_ones_do_not_count() {
    let dir = fixture(&[]);
    let d = dir.path();
    write_file(d, "d/s/x.tmp", b"tmp");
    let o = audit(d, &[]);
    assert!(o.stdout.ends_with(b"d/s/x.tmp: NEW\n"), "{}", shown(&o));
    assert_eq!(o.status.code(), Some(1));
    let o = audit(d, &["--exclude", "*.tmp"]);
    assert_eq!(String::from_utf8_lossy(&o.stderr), CLEAN_SUMMARY);
    assert_eq!(o.status.code(), Some(0), "{}", shown(&o));
    // the manifest inside the tree it audits is not a new file of it
    std::fs::rename(d.join("SUMS"), d.join("d/SUMS")).unwrap();
    std::fs::remove_file(d.join("d/s/x.tmp")).unwrap();
    let o = run(fastsum()
        .current_dir(d)
        .args(["-c", "d/SUMS", "--audit", "./d/"]));
    assert_eq!(o.status.code(), Some(0), "{}", shown(&o));
}

#[test]
fn a_check_file_on_stdin_and_names_in_another_form() {
    let dir = fixture(&[]);
    let d = dir.path();
    let sums = std::fs::read(d.join("SUMS")).unwrap();
    // listed as d/..., walked as ./d/...: the same files
    let o = run_with_stdin(
        fastsum().current_dir(d).args(["-c", "-", "--audit", "./d"]),
        &sums,
    );
    assert_eq!(String::from_utf8_lossy(&o.stderr), CLEAN_SUMMARY);
    assert_eq!(o.status.code(), Some(0), "{}", shown(&o));
}

#[test]
fn a_move_is_recognised_by_every_listed_algorithm() {
    let dir = fixture(&["-a", "md5,sha256"]);
    let d = dir.path();
    std::fs::rename(d.join("d/a"), d.join("d/a2")).unwrap();
    let o = audit(d, &["--quiet"]);
    crate::util::assert_stdout("two algorithms", &o, b"d/a2: MOVED from d/a\n");
    assert_eq!(o.status.code(), Some(1));
    // the same bytes under md5 only, but another sha256 listed: not a move
    let mut sums = std::fs::read(d.join("SUMS")).unwrap();
    let sha_a = b"87428fc522803d31065e7bce3cf03fe475096631e5e07bbd7a0fde60c4cf25c7";
    let at = sums.windows(64).position(|w| w == sha_a).unwrap();
    sums[at..at + 64].fill(b'0');
    std::fs::write(d.join("SUMS"), sums).unwrap();
    let o = audit(d, &["--quiet"]);
    crate::util::assert_stdout("one digest differs", &o, b"d/a2: NEW\nd/a: MISSING\n");
}

#[test]
fn json_objects_name_each_category() {
    let dir = fixture(&[]);
    let d = dir.path();
    change(d);
    let o = audit(d, &["--json", "--quiet"]);
    assert_eq!(o.status.code(), Some(1), "{}", shown(&o));
    let objects: Vec<serde_json::Value> = o
        .stdout
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).unwrap())
        .collect();
    let statuses: Vec<(&str, &str)> = objects
        .iter()
        .map(|v| (v["path"].as_str().unwrap(), v["status"].as_str().unwrap()))
        .collect();
    assert_eq!(
        statuses,
        [
            ("d/c", "FAILED"),
            ("d/s/a moved", "MOVED"),
            ("d/s/empty", "MOVED"),
            ("d/zz new", "NEW"),
            ("d/e2", "MISSING"),
            ("d/s/b", "MISSING"),
        ]
    );
    assert_eq!(objects[1]["from"], "d/a");
    assert!(objects.iter().all(|v| v["algorithm"] == "md5"));
}

#[test]
fn refused_combinations() {
    for (args, msg) in [
        (
            &["--audit", "d"][..],
            "the --audit option is meaningful only when verifying checksums",
        ),
        (
            &["-c", "SUMS", "--audit", "d", "--ignore-missing"][..],
            "--audit cannot be combined with --ignore-missing",
        ),
        (
            &["-c", "SUMS", "--exclude", "x"][..],
            "the --exclude option is meaningless when verifying checksums",
        ),
    ] {
        let o = run(fastsum().args(args));
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", shown(&o));
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(msg), "{args:?}: {err}");
    }
}

/// A listed file that fails part-way (EIO injected on its second read) is
/// UNREADABLE, named on stderr, counted in the summary, and fails the run;
/// the others are still verified.
#[test]
fn a_read_error_is_unreadable_not_a_verdict() {
    if !crate::util::require_strace() {
        return;
    }
    let dir = fixture(&[]);
    let d = dir.path();
    let big = write_file(d, "d/s/big", &crate::util::random_bytes(1 << 20, 3));
    let o = run(fastsum().current_dir(d).args(["-r", "d"]));
    std::fs::write(d.join("SUMS"), &o.stdout).unwrap();
    for mode in ["threaded", "sync", "bytewise"] {
        let o = run(std::process::Command::new("strace")
            .current_dir(d)
            .args(["-f", "-qq", "-o", "/dev/null", "-e", "trace=read", "-P"])
            .arg(&big)
            .args(["-e", "inject=read:error=EIO:when=2"])
            .arg(crate::util::fastsum_path())
            .args(["-c", "SUMS", "--audit", "d", "--quiet", "-m", mode])
            .args(["--chunk", "64K", "--readahead", "64K"]));
        assert_eq!(o.status.code(), Some(1), "{mode}: {}", shown(&o));
        crate::util::assert_stdout(mode, &o, b"d/s/big: FAILED open or read\n");
        assert_eq!(
            String::from_utf8_lossy(&o.stderr),
            "fastsum: d/s/big: Input/output error\n\
             fastsum: WARNING: 1 listed file could not be read\n\
             fastsum: audit: 8 OK, 0 FAILED, 1 UNREADABLE, 0 MISSING, 0 NEW, 0 MOVED\n",
            "{mode}"
        );
    }
}

/// `t/f1` … `t/f4` and SUMS listing each twice: an MD5 block (untagged, as
/// `md5sum t/*` writes it) then a SHA-256 block (`sha256sum --tag t/*`).
fn two_blocks() -> tempfile::TempDir {
    let dir = tempdir();
    let d = dir.path();
    std::fs::create_dir_all(d.join("t")).unwrap();
    let names = ["t/f1", "t/f2", "t/f3", "t/f4"];
    for (i, n) in names.iter().enumerate() {
        write_file(d, n, format!("file {i}\n").as_bytes());
    }
    let md5 = run(fastsum().current_dir(d).args(names));
    let sha = run(fastsum()
        .current_dir(d)
        .args(["--tag", "-a", "sha256"])
        .args(names));
    assert!(md5.status.success() && sha.status.success());
    let sums = [md5.stdout, sha.stdout].concat();
    // the bytes `md5sum t/*; sha256sum --tag t/*` write
    if require_tool("md5sum") && require_tool("sha256sum") {
        let md5 = run(gnu("md5sum").current_dir(d).args(names));
        let sha = run(gnu("sha256sum").current_dir(d).arg("--tag").args(names));
        assert_eq!(
            String::from_utf8_lossy(&[md5.stdout, sha.stdout].concat()),
            String::from_utf8_lossy(&sums)
        );
    }
    std::fs::write(d.join("SUMS"), sums).unwrap();
    dir
}

fn audit_t(d: &Path, extra: &[&str]) -> std::process::Output {
    run(fastsum()
        .current_dir(d)
        .args(["-c", "SUMS", "--audit", "t"])
        .args(extra))
}

fn summary(ok: u32, failed: u32, missing: u32, new: u32, moved: u32) -> String {
    format!(
        "fastsum: audit: {ok} OK, {failed} FAILED, 0 UNREADABLE, {missing} MISSING, \
         {new} NEW, {moved} MOVED\n"
    )
}

/// A file listed in two blocks is one file: one line, one count, checked
/// against both digests; moved, it is MOVED once and never also MISSING
/// (issue 29: `8 OK` for 4 files, and `t/f1: MISSING` beside the move).
#[test]
fn a_file_listed_in_two_blocks_has_one_verdict() {
    let dir = two_blocks();
    let d = dir.path();
    for mode in MODES {
        let o = audit_t(d, &["-m", mode]);
        crate::util::assert_output(
            mode,
            &o,
            "t/f1: OK\nt/f2: OK\nt/f3: OK\nt/f4: OK\n",
            &summary(4, 0, 0, 0, 0),
            0,
        );
    }
    // moved: one MOVED line, nothing missing
    std::fs::rename(d.join("t/f1"), d.join("t/g1")).unwrap();
    let o = audit_t(d, &["--quiet"]);
    crate::util::assert_output(
        "moved",
        &o,
        "t/g1: MOVED from t/f1\n",
        &summary(3, 0, 0, 0, 1),
        1,
    );
    // gone: MISSING once
    std::fs::remove_file(d.join("t/g1")).unwrap();
    let o = audit_t(d, &["--quiet"]);
    crate::util::assert_output("gone", &o, "t/f1: MISSING\n", &summary(3, 0, 1, 0, 0), 1);
    // the SHA-256 block disagrees where the MD5 block matches: FAILED once
    let sums = std::fs::read_to_string(d.join("SUMS")).unwrap();
    let sha_f2 = sums
        .lines()
        .find(|l| l.starts_with("SHA256 (t/f2) = "))
        .unwrap()
        .to_string();
    let bad = format!("SHA256 (t/f2) = {}", "0".repeat(64));
    std::fs::write(d.join("SUMS"), sums.replace(&sha_f2, &bad)).unwrap();
    write_file(d, "t/f1", b"file 0\n");
    let o = audit_t(d, &[]);
    crate::util::assert_output(
        "one digest of two fails",
        &o,
        "t/f1: OK\nt/f2: FAILED\nt/f3: OK\nt/f4: OK\n",
        &("fastsum: WARNING: 1 computed checksum did NOT match\n".to_string()
            + &summary(3, 1, 0, 0, 0)),
        1,
    );
}

/// The two blocks in two check files: still one verdict a file, and the
/// second file, all of whose lines joined the first's, is no "no properly
/// formatted lines" and does not fail the run.
#[test]
fn a_file_listed_in_two_check_files_has_one_verdict() {
    let dir = two_blocks();
    let d = dir.path();
    let sums = std::fs::read_to_string(d.join("SUMS")).unwrap();
    let (md5, sha): (Vec<&str>, Vec<&str>) = sums.lines().partition(|l| !l.starts_with("SHA256"));
    std::fs::write(d.join("MD5SUMS"), md5.join("\n") + "\n").unwrap();
    std::fs::write(d.join("SHA256SUMS"), sha.join("\n") + "\n").unwrap();
    let o = run(fastsum().current_dir(d).args([
        "-c",
        "MD5SUMS",
        "SHA256SUMS",
        "--audit",
        "t",
        "--quiet",
    ]));
    crate::util::assert_output("two files", &o, "", &summary(4, 0, 0, 0, 0), 0);
}

/// `t/sub/../f2` listed and `t/f2` walked are one file (names compare in
/// a lexical normal form, and the listed file is opened by it), and so are
/// `t/f2` and `./t//f2` listed twice.
#[test]
fn a_dotdot_name_and_the_walked_path_are_one_file() {
    let dir = tempdir();
    let d = dir.path();
    std::fs::create_dir_all(d.join("t/sub")).unwrap();
    write_file(d, "t/f1", b"one\n");
    write_file(d, "t/f2", b"two\n");
    let o = run(fastsum().current_dir(d).args(["t/f1", "t/f2"]));
    let sums = String::from_utf8(o.stdout)
        .unwrap()
        .replace("  t/f2", "  t/sub/../f2");
    std::fs::write(d.join("SUMS"), &sums).unwrap();
    let o = audit_t(d, &[]);
    crate::util::assert_output(
        "t/sub/../f2",
        &o,
        "t/f1: OK\nt/sub/../f2: OK\n",
        &summary(2, 0, 0, 0, 0),
        0,
    );
    // listed twice, as t/f2 and t/sub/../f2: one file
    std::fs::write(
        d.join("SUMS"),
        sums.clone() + &sums.replace("t/sub/../f2", "./t//f2"),
    )
    .unwrap();
    let o = audit_t(d, &["--quiet"]);
    crate::util::assert_output("two names", &o, "", &summary(2, 0, 0, 0, 0), 0);
}

/// A tree given twice (`t`, `t/`) is walked once, and one inside another
/// (`t/sub`) reports each file once: a new file is NEW once.
#[test]
fn a_tree_given_twice_counts_each_file_once() {
    let dir = tempdir();
    let d = dir.path();
    std::fs::create_dir_all(d.join("t/sub")).unwrap();
    write_file(d, "t/f1", b"one\n");
    write_file(d, "t/f2", b"two\n");
    let o = run(fastsum().current_dir(d).args(["t/f1", "t/f2"]));
    std::fs::write(d.join("SUMS"), &o.stdout).unwrap();
    write_file(d, "t/sub/n", b"new\n");
    for dirs in [
        &["t", "t/"][..],
        &["t", "./t"],
        &["t", "t/sub"],
        &["t/sub", "t"],
    ] {
        let mut c = fastsum();
        c.current_dir(d).args(["-c", "SUMS", "--quiet"]);
        for dir in dirs {
            c.args(["--audit", dir]);
        }
        let o = run(&mut c);
        let what = format!("{dirs:?}");
        crate::util::assert_stdout(&what, &o, "t/sub/n: NEW\n");
        assert_eq!(
            String::from_utf8_lossy(&o.stderr),
            summary(2, 0, 0, 1, 0),
            "{what}"
        );
        assert_eq!(o.status.code(), Some(1), "{what}");
    }
}

/// Two lengths of BLAKE2b listed for each file (one read cannot hash both:
/// two jobs a file): still one line and one count a file.
#[test]
fn two_lengths_of_one_family_are_one_verdict() {
    let dir = tempdir();
    let d = dir.path();
    std::fs::create_dir_all(d.join("t")).unwrap();
    write_file(d, "t/f1", b"one\n");
    write_file(d, "t/f2", b"two\n");
    let short = run(fastsum()
        .current_dir(d)
        .args(["--tag", "-a", "blake2b", "-l", "256", "t/f1", "t/f2"]));
    let long = run(fastsum()
        .current_dir(d)
        .args(["--tag", "-a", "blake2b", "t/f1", "t/f2"]));
    assert!(short.status.success() && long.status.success());
    let long = String::from_utf8(long.stdout).unwrap();
    let sums = String::from_utf8(short.stdout).unwrap() + &long;
    std::fs::write(d.join("SUMS"), &sums).unwrap();
    let o = audit_t(d, &[]);
    crate::util::assert_output(
        "unchanged",
        &o,
        "t/f1: OK\nt/f2: OK\n",
        &summary(2, 0, 0, 0, 0),
        0,
    );
    // the long digest of t/f2 wrong: FAILED once
    let line = long.lines().nth(1).unwrap();
    let (tag, _) = line.split_once(" = ").unwrap();
    let bad = format!("{tag} = {}", "0".repeat(128));
    std::fs::write(d.join("SUMS"), sums.replace(line, &bad)).unwrap();
    std::fs::remove_file(d.join("t/f1")).unwrap();
    let o = audit_t(d, &[]);
    crate::util::assert_output(
        "one wrong, one gone",
        &o,
        "t/f2: FAILED\nt/f1: MISSING\n",
        &("fastsum: WARNING: 1 computed checksum did NOT match\n".to_string()
            + &summary(0, 1, 1, 0, 0)),
        1,
    );
}
