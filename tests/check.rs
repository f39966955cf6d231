//! `-c`: differential tests against GNU md5sum -c / sha256sum -c (same
//! stdout bytes, same stderr lines once the program name is set aside, same
//! exit status) over every line shape, flag and input kind of issue 3, then
//! round trips of what fastsum writes, the multi-call names and every
//! reading mode.

// Test helpers too may panic on a broken fixture: that fails the test.
#![allow(clippy::unwrap_used)]

use std::fs::File;
use std::process::Command;

use fastsum::internals::{Algorithm, hash_bytes};
use tempfile::TempDir;

use crate::util::Bounded;
use crate::util::{
    MODES, Pair, assert_output, assert_outputs_same, fastsum, gnu, modes_and_jobs, multicall,
    random_bytes, require_tool, run, run_with_stdin, tempdir, write_file,
};

/// The files the check files list, by name (raw bytes: some are not UTF-8
/// or hold a newline, a CR or a backslash).
fn fixture_files() -> Vec<(Vec<u8>, Vec<u8>)> {
    vec![
        (b"a".to_vec(), b"hello\n".to_vec()),
        (b"b".to_vec(), b"x".to_vec()),
        (b"empty".to_vec(), Vec::new()),
        // several read-ahead blocks, so the pipeline really streams it
        (b"big".to_vec(), random_bytes(700_000, 3)),
        (b" sp".to_vec(), b"space\n".to_vec()),
        (b"*st".to_vec(), b"star\n".to_vec()),
        (b"e\\f".to_vec(), b"backslash\n".to_vec()),
        (b"n\nl".to_vec(), b"newline\n".to_vec()),
        (b"c\rd".to_vec(), b"cr inside\n".to_vec()),
        (b"cr\r".to_vec(), b"cr at end\n".to_vec()),
        (b"\xff\xfe".to_vec(), b"not utf-8\n".to_vec()),
        (b"it's".to_vec(), b"quote\n".to_vec()),
    ]
}

/// A temp dir holding the fixture files and a directory `dir`.
fn fixture() -> TempDir {
    use std::os::unix::ffi::OsStrExt;
    let dir = tempdir();
    for (name, data) in fixture_files() {
        write_file(dir.path(), std::ffi::OsStr::from_bytes(&name), &data);
    }
    std::fs::create_dir(dir.path().join("dir")).unwrap();
    dir
}

/// The hex digest of fixture file `name` (or of `data` for names not there).
fn hex(algo: Algorithm, name: &[u8]) -> String {
    let data = fixture_files()
        .into_iter()
        .find(|(n, _)| n == name)
        .map(|(_, d)| d)
        .unwrap_or_else(|| b"not a fixture".to_vec());
    hash_bytes(algo, &data).to_hex()
}

/// Build a check file: `{name}` is replaced by the hex of fixture `name`,
/// `{T}` by the algorithm's tag, `{Z}` by a wrong digest of the right length.
fn sums(algo: Algorithm, template: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut rest = template;
    while let Some(open) = rest.iter().position(|&c| c == b'{') {
        out.extend_from_slice(&rest[..open]);
        let Some(len) = rest[open..].iter().position(|&c| c == b'}') else {
            break;
        };
        let key = &rest[open + 1..open + len];
        match key {
            b"T" => out.extend_from_slice(algo.tag().as_bytes()),
            b"Z" => out.extend_from_slice("0".repeat(2 * algo.digest_len()).as_bytes()),
            _ => out.extend_from_slice(hex(algo, key).as_bytes()),
        }
        rest = &rest[open + len + 1..];
    }
    out.extend_from_slice(rest);
    out
}

/// Check files for every line shape and oddity of issue 3, by label.
fn cases(algo: Algorithm) -> Vec<(&'static str, Vec<u8>)> {
    let s = |t: &[u8]| sums(algo, t);
    // the uppercase "A" and "B" of the first two lines name missing files
    let mut nul_in_hex = s(b"{a}  a\n");
    nul_in_hex[3] = 0;
    vec![
        ("plain", s(b"{a}  a\n{b} *b\n{empty}  empty\n{big}  big\n")),
        ("mismatch", s(b"{b}  a\n{a}  a\n{Z}  b\n")),
        ("missing", s(b"{a}  nosuch\n{a}  a\n{a}  other missing\n")),
        ("only missing", s(b"{a}  nosuch\n")),
        ("unreadable", s(b"{a}  dir\n{a}  a\n")),
        (
            "tagged",
            s(b"{T} (a) = {a}\n{T}(b)= {b}\n{T} (big)\t=\t{big}\n{T} (empty) ={empty}\n"),
        ),
        ("tagged mismatch", s(b"{T} (a) = {b}\n")),
        (
            "tagged bad",
            s(b"{T} (a) = {a} \n{T}  (a) = {a}\n{T}X (a) = {a}\n{T} (\n{T}\n({T})\n{a}  a\n"),
        ),
        ("upper case", {
            let mut l = s(b"{a}  a\n{T} (b) = {b}\n");
            l.make_ascii_uppercase();
            [l, b"\n".to_vec(), s(b"{a}  a\n")].concat()
        }),
        ("crlf", s(b"{a}  a\r\n{b}  b\r\n")),
        ("no final newline", s(b"{a}  a\n{b}  b")),
        (
            "blank and comments",
            s(b"\n# comment \xff\xfe\n\r\n#{a}  b\n{a}  a\n\n"),
        ),
        (
            "leading blanks",
            s(b"  {a}  a\n\t{b}  b\n \t{T} (a) = {a}\n"),
        ),
        ("not a comment", s(b" # indented\n{a}  a\n")),
        ("vertical tab", s(b"\x0b{a}  a\n{a}  a\n")),
        ("tab separator", s(b"{a}\t a\n{b}\t*b\n")),
        ("reversed", s(b"{a} a\n{b} b\n")),
        ("standard then reversed", s(b"{a}  a\n{b} b\n")),
        ("reversed then standard", s(b"{a} a\n{a}   sp\n{b}  b\n")),
        (
            "leading space and star",
            s(b"{ sp}   sp\n{*st}  *st\n{*st} **st\n"),
        ),
        ("name ending in CR", s(b"{cr\r}  cr\r\r\n{a}  a\r\n")),
        ("CR inside name", s(b"{c\rd}  c\rd\n")),
        (
            "escaped",
            s(b"\\{e\\f}  e\\\\f\n\\{n\nl}  n\\nl\n\\{T} (n\\nl) = {n\nl}\n\\{cr\r}  cr\\r\n"),
        ),
        (
            "bad escapes",
            s(b"\\{a}  a\\t\n\\{a}  a\\\n\\{T} (a\\) = {a}\n\\\\{a}  a\n{a}  a\n"),
        ),
        ("backslash unescaped", s(b"{e\\f}  e\\f\n")),
        ("non-utf8 name", s(b"{\xff\xfe}  \xff\xfe\n{a}  \xff\n")),
        ("quote in name", s(b"{it's}  it's\n{a}  it's\n")),
        ("nul in hex", nul_in_hex),
        ("nul in name", s(b"{a}  a\0junk\n{T} (b\0x) = {b}\n")),
        ("nul after tagged hex", s(b"{T} (a) = {a}\0junk\n")),
        ("empty names", s(b"{a}  \n{T} () = {a}\n{a}  a\n")),
        (
            "garbage",
            b"\xff\xfe\xfd\n(\n)\nMD5 (\nzz  a\n\0\n".to_vec(),
        ),
        ("short hex", s(b"{a}  a\n").split_at(4).1.to_vec()),
        ("long hex", [b"0".as_slice(), &s(b"{a}  a\n")].concat()),
        ("directory listed only", s(b"{a}  dir\n")),
        ("dash listed", s(b"{empty}  -\n{a}  a\n")),
    ]
}

/// Flag sets every case runs with (the last of --status/--quiet/--warn wins).
const FLAGS: [&[&str]; 9] = [
    &[],
    &["--quiet"],
    &["--status"],
    &["--warn"],
    &["--strict"],
    &["--ignore-missing"],
    &["--warn", "--status"],
    &["--status", "--quiet", "--strict", "--ignore-missing"],
    &["-w", "--strict", "--ignore-missing"],
];

fn run_case(pair: Pair, label: &str, data: &[u8], flags: &[&str]) {
    std::fs::write(pair.dir.join("sums"), data).unwrap();
    let args = [&["-c"], flags, &["sums"]].concat();
    eprintln!("case {label:?} {:?} {flags:?}", pair.algo);
    // `-` in a check file reads fastsum's / GNU's stdin
    let stdin = || File::open(pair.dir.join("b")).unwrap();
    pair.assert_same_under([[""; 0]], &args, |c| run(c.stdin(stdin())));
}

#[test]
fn every_case_and_flag_matches_gnu_md5sum() {
    let dir = fixture();
    let Some(md5) = Pair::new(dir.path(), Algorithm::Md5) else {
        return;
    };
    for (label, data) in cases(Algorithm::Md5) {
        for flags in FLAGS {
            run_case(md5, label, &data, flags);
        }
    }
}

#[test]
fn every_case_matches_gnu_sha256sum() {
    let dir = fixture();
    let Some(sha256) = Pair::new(dir.path(), Algorithm::Sha256) else {
        return;
    };
    for (label, data) in cases(Algorithm::Sha256) {
        for flags in [&[][..], &["--warn", "--strict"], &["--status"]] {
            run_case(sha256, label, &data, flags);
        }
    }
}

/// Several check files in one run: summaries per file, the reversed-form
/// latch carried from one file to the next, files that cannot be opened or
/// read, and a check file read from stdin (called `standard input`).
#[test]
fn several_check_files_and_stdin() {
    let dir = fixture();
    let d = dir.path();
    let algo = Algorithm::Md5;
    let Some(md5) = Pair::new(d, algo) else {
        return;
    };
    std::fs::write(d.join("good"), sums(algo, b"{a}  a\n{b}  b\n")).unwrap();
    std::fs::write(d.join("bad"), sums(algo, b"{b}  a\nzz\n{a}  nosuch\n")).unwrap();
    std::fs::write(d.join("rev"), sums(algo, b"{a} a\n")).unwrap();
    std::fs::write(d.join("junk"), b"junk\n").unwrap();
    std::fs::write(d.join("stdin"), sums(algo, b"{b}  -\n{a}  a\nzz\n")).unwrap();
    let runs: [&[&str]; 8] = [
        &["good", "bad", "good"],
        &["rev", "good"],
        &["good", "rev"],
        &["nosuch", "good", "dir", "junk"],
        &["-", "good"],
        &["good", "-", "-"],
        &["--status", "junk", "good"],
        &["--warn", "--ignore-missing", "bad", "-"],
    ];
    let with_stdin =
        |name: &'static str| move |c: &mut Command| run(c.stdin(File::open(d.join(name)).unwrap()));
    for args in runs {
        let args = [&["-c"], args].concat();
        md5.assert_same_under([[""; 0]], &args, with_stdin("stdin"));
    }
    // no FILE at all: the check file is stdin
    md5.assert_same_under([[""; 0]], &["-c"], with_stdin("good"));
}

/// Check files written by fastsum (plain, binary, --tag; names that need
/// escaping and names that are not UTF-8) verify with fastsum and GNU alike.
#[test]
fn round_trips_through_fastsum_and_gnu() {
    let dir = fixture();
    let d = dir.path();
    let names: Vec<std::ffi::OsString> = fixture_files()
        .into_iter()
        .map(|(n, _)| {
            use std::os::unix::ffi::OsStringExt;
            std::ffi::OsString::from_vec(n)
        })
        .collect();
    for algo in [Algorithm::Md5, Algorithm::Sha256] {
        let Some(pair) = Pair::new(d, algo) else {
            continue;
        };
        for style in [&[][..], &["-b"], &["--tag"]] {
            let o = run(pair.ours(style).args(&names));
            assert_eq!(o.status.code(), Some(0), "{style:?}");
            std::fs::write(d.join("written"), &o.stdout).unwrap();
            let want = pair.assert_same(&["-c", "written"]);
            assert_eq!(want.status.code(), Some(0), "{algo:?} {style:?}");
            assert!(want.stderr.is_empty(), "{algo:?} {style:?}");
        }
    }
}

/// `sha256sum -c` under the multi-call name: its algorithm, its name in
/// messages (compared with GNU's, prefix included).
#[test]
fn multicall_name_checks_like_gnu() {
    let dir = fixture();
    let d = dir.path();
    let bin = tempdir();
    for algo in [Algorithm::Sha256, Algorithm::Md5] {
        let Some(pair) = Pair::new(d, algo) else {
            continue;
        };
        let data = sums(algo, b"{a}  a\n{b}  a\nzz\n{a}  nosuch\n");
        std::fs::write(d.join("sums"), data).unwrap();
        let args = ["-c", "-w", "sums"];
        let got = run(multicall(bin.path(), pair.tool()).current_dir(d).args(args));
        let want = run(pair.theirs().args(args));
        assert_outputs_same("prefix and wording", &got, &want, pair.tool(), pair.tool());
        assert_eq!(got.stderr, want.stderr, "prefix and wording");
    }
}

/// Every --mode and -j 1 / 4 verify in check-file order with GNU's output.
#[test]
fn every_mode_and_job_count() {
    let dir = fixture();
    let d = dir.path();
    let algo = Algorithm::Md5;
    let Some(md5) = Pair::new(d, algo) else {
        return;
    };
    // many files of varied sizes, listed out of name order, some failing
    let mut template = Vec::new();
    for i in (0..40).rev() {
        let name = format!("f{i:02}");
        let data = random_bytes(i * 9_001, i as u64);
        write_file(d, &name, &data);
        let digest = if i % 7 == 3 {
            "0".repeat(32)
        } else {
            hash_bytes(algo, &data).to_hex()
        };
        template.extend_from_slice(format!("{digest}  {name}\n").as_bytes());
        if i % 11 == 0 {
            template.extend_from_slice(b"junk line\n");
            template.extend_from_slice(format!("{digest}  missing{i}\n").as_bytes());
        }
    }
    template.extend_from_slice(&sums(algo, b"{big}  big\n{a}  dir\n"));
    std::fs::write(d.join("sums"), &template).unwrap();
    let mut opt_sets = Vec::new();
    for opts in modes_and_jobs(&MODES, &["1", "4"]) {
        opt_sets.push(opts.to_vec());
        opt_sets.push([&opts[..], &["--chunk", "1000", "--readahead", "4097"]].concat());
    }
    md5.assert_same_under(opt_sets, &["-c", "-w", "sums"], run);
}

/// Without -a (and not under a tool's name) a tag names its line's
/// algorithm, as in GNU cksum -c; with -a, see faults::chosen_algorithm_*.
#[test]
fn tags_pick_the_algorithm() {
    let dir = fixture();
    let d = dir.path();
    let mut data = Vec::new();
    // (not cksum's CRC and sum's: they have no checksum lines)
    let tagged: Vec<Algorithm> = Algorithm::ALL
        .into_iter()
        .filter(|a| a.legacy().is_none())
        .collect();
    for &algo in &tagged {
        data.extend_from_slice(&sums(algo, b"{T} (a) = {a}\n"));
    }
    data.extend_from_slice(&sums(Algorithm::Sha1, b"{T} (b) = {Z}\n"));
    data.extend_from_slice(&sums(Algorithm::Md5, b"SHA1 (b) = {b}\n"));
    std::fs::write(d.join("sums"), data).unwrap();
    let o = run(fastsum().current_dir(d).args(["-c", "--warn", "sums"]));
    let ok = "a: OK\n".repeat(tagged.len());
    assert_output(
        "-c --warn sums",
        &o,
        format!("{ok}b: FAILED\n"),
        // (`-w` names the last tag read, as GNU cksum's does with no `-a`)
        &format!(
            "fastsum: sums: {}: improperly formatted SHA1 checksum line\n\
             fastsum: WARNING: 1 line is improperly formatted\n\
             fastsum: WARNING: 1 computed checksum did NOT match\n",
            tagged.len() + 2
        ),
        1,
    );
}

/// A long check file is streamed: 200,000 lines, most of them comments.
#[test]
fn long_check_file() {
    let dir = fixture();
    let d = dir.path();
    let mut data = b"# comment line\n".repeat(200_000);
    data.extend_from_slice(&sums(Algorithm::Md5, b"{a}  a\n"));
    std::fs::write(d.join("sums"), data).unwrap();
    let o = run(fastsum().current_dir(d).args(["-c", "sums"]));
    assert_output("long check file", &o, b"a: OK\n", "", 0);
}

mod differential {
    //! Random check files built from the pieces GNU's parser cares about,
    //! compared with GNU md5sum -c under random flags: a bounded search for
    //! any line shape the hand-written cases above missed.

    use super::*;
    use proptest::prelude::*;

    fn pieces() -> Vec<Vec<u8>> {
        let a = hex(Algorithm::Md5, b"a");
        let b = hex(Algorithm::Md5, b"b");
        let mut v: Vec<Vec<u8>> = [
            "MD5", "MD5 (", "(", ")", ") = ", "=", " ", "  ", " *", "*", "\t", "\\", "\\\\", "\\n",
            "\\r", "a", "b", "-", "dir", "nosuch", "#", "\r", "\0", "\u{b}", "\n",
        ]
        .iter()
        .map(|s| s.as_bytes().to_vec())
        .collect();
        v.push(a.clone().into_bytes());
        v.push(a.to_uppercase().into_bytes());
        v.push(b.into_bytes());
        v.push(a.as_bytes()[..31].to_vec());
        v.push(b"\xff".to_vec());
        v
    }

    fn line() -> impl Strategy<Value = Vec<u8>> {
        let a = hex(Algorithm::Md5, b"a");
        let pieces = pieces();
        prop_oneof![
            // free-form: any sequence of pieces
            proptest::collection::vec(proptest::sample::select(pieces.clone()), 0..7)
                .prop_map(|p| p.concat()),
            // nearly valid: a real line with one piece spliced in
            (0..3usize, proptest::sample::select(pieces), 0..40usize).prop_map(
                move |(k, p, at)| {
                    let base = match k {
                        0 => format!("{a}  a"),
                        1 => format!("MD5 (a) = {a}"),
                        _ => format!("{a} a"),
                    }
                    .into_bytes();
                    let at = at.min(base.len());
                    [&base[..at], &p, &base[at..]].concat()
                }
            ),
        ]
    }

    fn check_file() -> impl Strategy<Value = Vec<u8>> {
        (
            proptest::collection::vec((line(), any::<bool>()), 1..6),
            any::<bool>(),
        )
            .prop_map(|(lines, final_newline)| {
                let mut out = Vec::new();
                let n = lines.len();
                for (i, (l, crlf)) in lines.into_iter().enumerate() {
                    out.extend_from_slice(&l);
                    if i + 1 < n || final_newline {
                        out.extend_from_slice(if crlf { b"\r\n" } else { b"\n" });
                    }
                }
                out
            })
    }

    const FLAG_SETS: [&[&str]; 5] = [
        &[],
        &["--warn"],
        &["--strict", "--quiet"],
        &["--ignore-missing"],
        &["--status"],
    ];

    /// 96 random check files under random flags, one fixture for all (a
    /// case only rewrites `sums`); a mismatch is shrunk to a minimal file.
    #[test]
    fn random_check_files_match_gnu() {
        let dir = fixture();
        let Some(md5) = Pair::new(dir.path(), Algorithm::Md5) else {
            return;
        };
        let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig {
            cases: 96,
            failure_persistence: None,
            ..ProptestConfig::default()
        });
        let cases = (check_file(), 0..FLAG_SETS.len());
        let result = runner.run(&cases, |(data, flags)| {
            run_case(md5, "random", &data, FLAG_SETS[flags]);
            Ok(())
        });
        if let Err(e) = result {
            panic!("{e}");
        }
    }
}

/// Consecutive lines for `-` are each verified from where standard input
/// stands: the first reads it all, the next find it at its end, whether
/// they name one algorithm or several, as GNU's cksum -c does.
#[test]
fn consecutive_stdin_lines_read_on_as_gnu_cksum() {
    if !require_tool("cksum") || !require_tool("md5sum") || !require_tool("sha256sum") {
        return;
    }
    let dir = tempdir();
    let data = b"abc";
    let md5 = String::from_utf8(run_with_stdin(&mut gnu("md5sum"), data).stdout).unwrap();
    let sha = String::from_utf8(run_with_stdin(&mut gnu("sha256sum"), data).stdout).unwrap();
    let (md5, sha) = (&md5[..32], &sha[..64]);
    for sums in [
        format!("MD5 (-) = {md5}\nSHA256 (-) = {sha}\n"),
        format!("MD5 (-) = {md5}\nMD5 (-) = {md5}\n"),
    ] {
        write_file(dir.path(), "SUMS", sums.as_bytes());
        let theirs = run_with_stdin(
            gnu("cksum").current_dir(dir.path()).args(["-c", "SUMS"]),
            data,
        );
        let ours = run_with_stdin(fastsum().current_dir(dir.path()).args(["-c", "SUMS"]), data);
        assert_outputs_same(&sums, &ours, &theirs, "fastsum", "cksum");
    }
}

/// Under fastsum's own name, a relative name is looked for first beside a
/// check file named with a directory (as rhash reads it), shown as opened,
/// also when a stale file of that name is here (issue 40 §12: `./b.tar`
/// was checked, OK, while `dl/a.iso` resolved in dl); a name only here is
/// here's; GNU's names keep GNU's rule.
#[test]
fn names_beside_the_check_file_are_looked_for_there_first() {
    let dir = tempdir();
    let d = dir.path();
    std::fs::create_dir(d.join("dl")).unwrap();
    write_file(&d.join("dl"), "a.iso", b"an image\n");
    write_file(&d.join("dl"), "b.tar", b"the archive there\n");
    write_file(d, "b.tar", b"the archive here\n");
    write_file(d, "c.txt", b"only here\n");
    let sums = |name: &str, bytes: &[u8]| {
        let digest = hash_bytes(Algorithm::Sha256, bytes).to_hex();
        format!("{digest}  {name}\n")
    };
    // the stale ./b.tar's digest: dl/b.tar is checked, and fails
    let list = sums("a.iso", b"an image\n")
        + &sums("b.tar", b"the archive here\n")
        + &sums("c.txt", b"only here\n");
    write_file(&d.join("dl"), "SHA256SUMS", list.as_bytes());
    let out = fastsum()
        .current_dir(d)
        .args(["-a", "sha256", "-c", "dl/SHA256SUMS"])
        .bounded_output()
        .unwrap();
    assert_output(
        "stale here",
        &out,
        "dl/a.iso: OK\ndl/b.tar: FAILED\nc.txt: OK\n",
        "fastsum: WARNING: 1 computed checksum did NOT match\n",
        1,
    );
    // dl's own digest: OK, for dl's file
    let list = sums("a.iso", b"an image\n") + &sums("b.tar", b"the archive there\n");
    write_file(&d.join("dl"), "SHA256SUMS", list.as_bytes());
    let out = run(fastsum().current_dir(d).args(["-c", "dl/SHA256SUMS"]));
    assert_output("dl's", &out, "dl/a.iso: OK\ndl/b.tar: OK\n", "", 0);
    // from dl itself, the check file named by its absolute path: the same
    // files, shown as listed
    let sums_path = d.join("dl/SHA256SUMS");
    let out = run(fastsum()
        .current_dir(d.join("dl"))
        .arg("-c")
        .arg(&sums_path));
    assert_output("from dl", &out, "a.iso: OK\nb.tar: OK\n", "", 0);
    let list = sums("a.iso", b"an image\n") + &sums("b.tar", b"the archive here\n");
    write_file(&d.join("dl"), "SHA256SUMS", list.as_bytes());
    let gnu = multicall(d, "sha256sum")
        .current_dir(d)
        .args(["-c", "dl/SHA256SUMS"])
        .bounded_output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&gnu.stdout),
        "a.iso: FAILED open or read\nb.tar: OK\n"
    );
    assert_eq!(gnu.status.code(), Some(1));
}

/// Issue 40 §7: what `fastsum -a ALGO` writes, `fastsum -c` and `--audit`
/// read back without `-a`. MD5's and SHA-1's lines stay untagged (one
/// cryptographic algorithm has their length); the others' are tagged as
/// GNU `cksum -a ALGO` writes them (byte for byte where cksum has the
/// algorithm), unless `--untagged`; under sha256sum's name nothing changes.
#[test]
fn what_fastsum_writes_it_checks_without_options() {
    let dir = tempdir();
    let d = dir.path();
    std::fs::create_dir(d.join("d")).unwrap();
    write_file(&d.join("d"), "a", b"one\n");
    write_file(&d.join("d"), "b", &random_bytes(70_000, 40));
    let fs = |args: &[&str]| run(fastsum().current_dir(d).args(args));
    for algo in [
        "md5",
        "sha1",
        "sha224",
        "sha256",
        "sha384",
        "sha512",
        "blake3",
        "blake2b",
        "sm3",
        "xxh32",
        "xxh64",
        "xxh128",
        "xxh3",
        "crc32c",
        "crc64nvme",
    ] {
        let lines = fs(&["-a", algo, "-r", "d"]);
        assert_output(algo, &lines, &lines.stdout, "", 0);
        let tagged = !matches!(algo, "md5" | "sha1");
        assert_eq!(
            lines.stdout.contains(&b'('),
            tagged,
            "{algo}: {}",
            String::from_utf8_lossy(&lines.stdout)
        );
        std::fs::write(d.join("S"), &lines.stdout).unwrap();
        let ok = "d/a: OK\nd/b: OK\n";
        assert_output(algo, &fs(&["-c", "S"]), ok, "", 0);
        let audit = fs(&["-c", "S", "--audit", "d"]);
        assert_eq!(audit.status.code(), Some(0), "{algo} --audit");
        assert!(audit.stdout.starts_with(ok.as_bytes()), "{algo} --audit");
        let of_cksum = ["sha224", "sha256", "sha384", "sha512", "blake2b", "sm3"];
        if of_cksum.contains(&algo) && require_tool("cksum") {
            let cksum = run(gnu("cksum").current_dir(d).args(["-a", algo, "d/a", "d/b"]));
            assert_output(algo, &lines, &cksum.stdout, "", 0);
        }
    }
    let untagged = fs(&["-a", "sha256", "--untagged", "d/a"]);
    let named = run(multicall(d, "sha256sum").current_dir(d).arg("d/a"));
    assert_output("--untagged", &untagged, &named.stdout, "", 0);
    if require_tool("sha256sum") {
        let gnu = run(gnu("sha256sum").current_dir(d).arg("d/a"));
        assert_output("sha256sum's name", &named, &gnu.stdout, "", 0);
    }
}

/// Issue 40 §4: a comment decides the algorithm only when it is nothing
/// but a block header. A SHA256SUMS whose first line is prose holding an
/// algorithm's word (`B2`) verifies as sha256sum verifies it; and a binary
/// file (random bytes with a `# B3` line planted) holds no checksum line,
/// as md5sum -c finds: its random `#` lines holding `b2`, `md5`… are no
/// headers, so no garbage "line" (`d4 <bytes>`) is read as a BLAKE2b-8
/// digest and no garbage name opened.
#[test]
fn only_a_header_decides_the_algorithm() {
    let dir = tempdir();
    let d = dir.path();
    write_file(d, "tool.tar.gz", b"the tool\n");
    let digest = hash_bytes(Algorithm::Sha256, b"the tool\n").to_hex();
    let sums = format!("# Mirrored to Backblaze B2 on 2026-11-01\n{digest}  tool.tar.gz\n");
    write_file(d, "SHA256SUMS", sums.as_bytes());
    let ours = run(fastsum().current_dir(d).args(["-c", "SHA256SUMS"]));
    assert_output("prose comment", &ours, "tool.tar.gz: OK\n", "", 0);
    if require_tool("sha256sum") {
        let theirs = run(gnu("sha256sum").current_dir(d).args(["-c", "SHA256SUMS"]));
        assert_outputs_same("prose comment", &ours, &theirs, "fastsum", "sha256sum");
    }
    // a header alone still decides, over the name
    let b3 = blake3::hash(b"the tool\n").to_hex();
    write_file(
        d,
        "SHA256SUMS",
        format!("# BLAKE3 checksums:\n{b3}  tool.tar.gz\n").as_bytes(),
    );
    let ours = run(fastsum().current_dir(d).args(["-c", "SHA256SUMS"]));
    assert_output("a header", &ours, "tool.tar.gz: OK\n", "", 0);
    // random bytes, a `# B3` line, and further on a random `#` line that
    // holds `B2` and, below it, one that starts with two hex digits and a
    // blank (as 16 MiB of random bytes has them)
    let mut bytes = random_bytes(4 << 20, 7);
    let planted: [&[u8]; 3] = [
        b"\n# B3\n",
        b"\n#\x9c\x13 B2 \xf1\x07\n",
        b"\nd4 \xbf\x19\xe0\x02\x8d\xc2F<d3\x8c\xde*L\xb5\n",
    ];
    for (i, plant) in planted.into_iter().enumerate() {
        let at = bytes.len() / 4 * (i + 1);
        bytes.splice(at..at, plant.iter().copied());
    }
    write_file(d, "random.bin", &bytes);
    let ours = run(fastsum().current_dir(d).args(["-c", "random.bin"]));
    let says = "fastsum: random.bin: no properly formatted checksum lines found\n";
    assert_output("a binary file", &ours, "", says, 1);
    if require_tool("md5sum") {
        let theirs = run(gnu("md5sum").current_dir(d).args(["-c", "random.bin"]));
        assert_outputs_same("a binary file", &ours, &theirs, "fastsum", "md5sum");
    }
}
