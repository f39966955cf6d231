//! The algorithms beyond md5sum … sha512sum and BLAKE3 against their
//! oracles: BLAKE2b of every length against GNU b2sum, SM3 against GNU
//! `cksum -a sm3`, xxHash against xxhsum (-H0 to -H3), SHA-3 and CRC-32
//! against python3's hashlib and zlib. Every reading mode with odd
//! `--chunk`/`--readahead` sizes and `-j`, odd names (newline, backslash,
//! not UTF-8), standard input, `-z`, `--tag`, several algorithms in one
//! read, and `-c` round trips through fastsum and through the oracle's own
//! `-c` where it has one.

use std::ffi::OsStr;
use std::path::Path;
use std::process::{Command, Output};

use crate::util::{
    MODES, assert_output, fastsum, files_of_sizes, gnu, os, random_bytes, require_tool, run,
    run_with_stdin, tempdir, write_file,
};

/// One algorithm as fastsum's `-a` (and `-l`) names it, and its oracle.
#[derive(Clone, Copy, Debug)]
struct Case {
    /// `-a` value.
    algo: &'static str,
    /// `-l` value, if any.
    bits: Option<&'static str>,
    /// The tag of its BSD-style lines.
    tag: &'static str,
    /// Who computes the reference digests.
    oracle: Oracle,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Oracle {
    /// `b2sum [-l BITS]`.
    B2sum,
    /// `cksum -a sm3 --untagged`.
    Sm3,
    /// `xxhsum -H<n>`.
    Xxhsum(u8),
    /// python3: a hashlib constructor.
    Python(&'static str),
}

const CASES: [Case; 12] = [
    Case {
        algo: "blake2b",
        bits: None,
        tag: "BLAKE2b",
        oracle: Oracle::B2sum,
    },
    Case {
        algo: "blake2b",
        bits: Some("8"),
        tag: "BLAKE2b-8",
        oracle: Oracle::B2sum,
    },
    Case {
        algo: "blake2b",
        bits: Some("256"),
        tag: "BLAKE2b-256",
        oracle: Oracle::B2sum,
    },
    Case {
        algo: "blake2b",
        bits: Some("504"),
        tag: "BLAKE2b-504",
        oracle: Oracle::B2sum,
    },
    Case {
        algo: "sm3",
        bits: None,
        tag: "SM3",
        oracle: Oracle::Sm3,
    },
    Case {
        algo: "sha3",
        bits: Some("224"),
        tag: "SHA3-224",
        oracle: Oracle::Python("sha3_224"),
    },
    Case {
        algo: "sha3",
        bits: Some("256"),
        tag: "SHA3-256",
        oracle: Oracle::Python("sha3_256"),
    },
    Case {
        algo: "sha3",
        bits: Some("512"),
        tag: "SHA3-512",
        oracle: Oracle::Python("sha3_512"),
    },
    Case {
        algo: "xxh32",
        bits: None,
        tag: "XXH32",
        oracle: Oracle::Xxhsum(0),
    },
    Case {
        algo: "xxh64",
        bits: None,
        tag: "XXH64",
        oracle: Oracle::Xxhsum(1),
    },
    Case {
        algo: "xxh3",
        bits: None,
        tag: "XXH3",
        oracle: Oracle::Xxhsum(3),
    },
    Case {
        algo: "xxh128",
        bits: None,
        tag: "XXH128",
        oracle: Oracle::Xxhsum(2),
    },
];

impl Case {
    /// Is the oracle here? (Skips locally, fails under CI.)
    fn available(self) -> bool {
        require_tool(match self.oracle {
            Oracle::B2sum => "b2sum",
            Oracle::Sm3 => "cksum",
            Oracle::Xxhsum(_) => "xxhsum",
            Oracle::Python(_) => "python3",
        })
    }

    /// fastsum's `-a ALGO [-l BITS]`.
    fn args(self) -> Vec<&'static str> {
        let mut a = vec!["-a", self.algo];
        if let Some(b) = self.bits {
            a.extend(["-l", b]);
        }
        a
    }

    /// `fastsum -a ALGO [-l BITS] OPTS` in `dir`.
    fn ours(self, dir: &Path, opts: &[&str]) -> Command {
        let mut c = fastsum();
        // (untagged as the oracles write them: fastsum's own name tags
        // these algorithms' lines unless asked, `hash::own_name_tags_…`)
        c.current_dir(dir)
            .args(self.args())
            .arg("--untagged")
            .args(opts);
        c
    }

    /// The hex digest of each of `names` (plain names) in `dir`, by the oracle.
    fn oracle_hex(self, dir: &Path, names: &[String]) -> Vec<String> {
        let o = match self.oracle {
            Oracle::B2sum => {
                let mut c = gnu("b2sum");
                c.args(self.bits.map(|b| ["-l", b]).iter().flatten());
                run(c.current_dir(dir).args(names))
            }
            Oracle::Sm3 => run(gnu("cksum")
                .current_dir(dir)
                .args(["-a", "sm3", "--untagged"])
                .args(names)),
            Oracle::Xxhsum(n) => run(Command::new("xxhsum")
                .current_dir(dir)
                .arg(format!("-H{n}"))
                .args(names)),
            Oracle::Python(f) => {
                let digest = format!("hashlib.{f}(d).hexdigest()");
                let script = format!(
                    "import hashlib, sys\n\
                     for n in sys.argv[1:]:\n    d = open(n, 'rb').read(); print({digest})"
                );
                run(Command::new("python3")
                    .current_dir(dir)
                    .args(["-c", &script])
                    .args(names))
            }
        };
        assert!(o.status.success(), "{self:?} oracle: {o:?}");
        let text = String::from_utf8(o.stdout).unwrap();
        // `hex  name`, or xxhsum's `XXH3 (name) = hex`
        let hex: Vec<String> = text
            .lines()
            .map(|l| match self.oracle {
                Oracle::Xxhsum(3) => l.rsplit(' ').next().unwrap().to_string(),
                _ => l.split(' ').next().unwrap().to_string(),
            })
            .collect();
        assert_eq!(hex.len(), names.len(), "{self:?}: {text}");
        hex
    }

    /// fastsum's line for a digest: GNU's untagged line (XXH3: tagged, as
    /// xxhsum writes it), or `--tag`'s; GNU's escaping unless `-z`.
    fn line(self, hex: &str, name: &[u8], tagged: bool, zero: bool) -> Vec<u8> {
        let escape = !zero && name.iter().any(|b| b"\\\n\r".contains(b));
        let mut shown = Vec::new();
        for &b in name {
            match b {
                b'\\' if escape => shown.extend_from_slice(b"\\\\"),
                b'\n' if escape => shown.extend_from_slice(b"\\n"),
                b'\r' if escape => shown.extend_from_slice(b"\\r"),
                _ => shown.push(b),
            }
        }
        let mut out = Vec::new();
        if escape {
            out.push(b'\\');
        }
        if tagged || self.algo == "xxh3" {
            out.extend_from_slice(format!("{} (", self.tag).as_bytes());
            out.extend_from_slice(&shown);
            out.extend_from_slice(format!(") = {hex}").as_bytes());
        } else {
            out.extend_from_slice(format!("{hex}  ").as_bytes());
            out.extend_from_slice(&shown);
        }
        out.push(if zero { b'\0' } else { b'\n' });
        out
    }
}

/// Sizes around BLAKE2b's and SHA-512's 128-byte blocks, SHA-3's rates
/// (144, 136, 72 bytes), xxHash's stripes (16, 32, 64 bytes; XXH3's 240
/// byte short path and 1 KiB blocks), buffer sizes and mmap's threshold.
const SIZES: [usize; 19] = [
    0, 1, 3, 15, 16, 17, 71, 72, 128, 129, 136, 144, 240, 241, 1024, 4097, 65535, 65536, 300_001,
];

/// The reading options every case runs under: each mode, odd chunk and
/// readahead sizes, one and several jobs.
fn opt_sets() -> Vec<Vec<&'static str>> {
    let mut sets: Vec<Vec<&'static str>> = MODES.iter().map(|&m| vec!["-m", m]).collect();
    sets.extend([
        vec!["-m", "threaded", "--chunk", "7", "--readahead", "16"],
        vec![
            "-m",
            "threaded",
            "--readahead",
            "4097",
            "--pool",
            "3",
            "-j",
            "3",
        ],
        vec!["-m", "sync", "--chunk", "1"],
        vec!["-m", "sync", "--chunk", "4097", "-j", "1"],
        vec!["-m", "mmap", "-j", "2"],
    ]);
    sets
}

#[test]
fn every_algorithm_matches_its_oracle_in_every_mode() {
    let dir = tempdir();
    let d = dir.path();
    let names = files_of_sizes(d, &SIZES, 20);
    for case in CASES {
        if !case.available() {
            continue;
        }
        let hex = case.oracle_hex(d, &names);
        let want: Vec<u8> = hex
            .iter()
            .zip(&names)
            .flat_map(|(h, n)| case.line(h, n.as_bytes(), false, false))
            .collect();
        for opts in opt_sets() {
            let got = run(case.ours(d, &opts).args(&names));
            assert_output(&format!("{case:?} {opts:?}"), &got, &want, "", 0);
        }
    }
}

/// Names GNU escapes (newline, backslash, carriage return), one that is
/// not UTF-8, and a plain one; each holds its own random bytes.
fn odd_names() -> Vec<Vec<u8>> {
    vec![
        b"new\nline".to_vec(),
        b"back\\slash".to_vec(),
        b"cr\rname".to_vec(),
        b"latin1-\xe9\xff".to_vec(),
        b"plain".to_vec(),
    ]
}

/// Write `odd_names()` into `dir`, and a plainly named copy of each
/// (`copy-N`) for the oracles that do not escape names as GNU does.
fn write_odd(dir: &Path) -> (Vec<Vec<u8>>, Vec<String>) {
    let names = odd_names();
    let mut copies = Vec::new();
    for (i, n) in names.iter().enumerate() {
        let data = random_bytes(1000 + 997 * i, 40 + i as u64);
        write_file(dir, os(n), &data);
        let copy = format!("copy-{i}");
        write_file(dir, &copy, &data);
        copies.push(copy);
    }
    (names, copies)
}

#[test]
fn odd_names_stdin_zero_and_tag() {
    let dir = tempdir();
    let d = dir.path();
    let (names, copies) = write_odd(d);
    let stdin = random_bytes(70_001, 9);
    write_file(d, "stdin-copy", &stdin);
    let args: Vec<&OsStr> = names.iter().map(|n| os(n)).collect();
    for case in CASES {
        if !case.available() {
            continue;
        }
        let hex = case.oracle_hex(d, &copies);
        for (tagged, zero) in [(false, false), (true, false), (false, true), (true, true)] {
            let mut opts = Vec::new();
            if tagged {
                opts.push("--tag");
            }
            if zero {
                opts.push("-z");
            }
            let want: Vec<u8> = hex
                .iter()
                .zip(&names)
                .flat_map(|(h, n)| case.line(h, n, tagged, zero))
                .collect();
            for mode in MODES {
                let mut all = opts.clone();
                all.extend(["-m", mode]);
                let got = run(case.ours(d, &all).args(&args));
                assert_output(&format!("{case:?} {all:?}"), &got, &want, "", 0);
            }
        }
        // standard input, as `-` and as no operand
        let hex = case.oracle_hex(d, &["stdin-copy".to_string()]);
        let want = case.line(&hex[0], b"-", false, false);
        for operands in [&["-"][..], &[]] {
            for mode in MODES {
                let got = run_with_stdin(case.ours(d, &["-m", mode]).args(operands), &stdin);
                assert_output(&format!("{case:?} stdin {mode}"), &got, &want, "", 0);
            }
        }
    }
}

/// Where GNU's own tool prints these algorithms with GNU's escaping, the
/// lines are compared with it directly: b2sum (every length, `--tag`,
/// `-z`) and `cksum -a sm3` (tagged by default, `--untagged`).
#[test]
fn odd_names_match_b2sum_and_cksum_byte_for_byte() {
    let dir = tempdir();
    let d = dir.path();
    let (names, _) = write_odd(d);
    let args: Vec<&OsStr> = names.iter().map(|n| os(n)).collect();
    if require_tool("b2sum") {
        for bits in ["0", "8", "128", "512"] {
            for opts in [&[][..], &["--tag"], &["-z"], &["--tag", "-z"]] {
                let want = run(gnu("b2sum")
                    .current_dir(d)
                    .args(["-l", bits])
                    .args(opts)
                    .args(&args));
                let mut c = fastsum();
                c.current_dir(d)
                    .args(["-a", "blake2b", "--untagged", "-l", bits])
                    .args(opts);
                let got = run(c.args(&args));
                assert_output(
                    &format!("b2sum -l {bits} {opts:?}"),
                    &got,
                    &want.stdout,
                    "",
                    0,
                );
            }
        }
    }
    if require_tool("cksum") {
        for (ours, theirs) in [
            (&["--tag"][..], &[][..]),
            // fastsum's own name tags SM3's lines as cksum does
            (&[], &[]),
            (&["--untagged"], &["--untagged"]),
            (&["--tag", "-z"], &["-z"]),
            (&["-z"], &["-z"]),
        ] {
            let want = run(gnu("cksum")
                .current_dir(d)
                .args(["-a", "sm3"])
                .args(theirs)
                .args(&args));
            let got = run(fastsum()
                .current_dir(d)
                .args(["-a", "sm3"])
                .args(ours)
                .args(&args));
            assert_output(&format!("sm3 {ours:?}"), &got, &want.stdout, "", 0);
        }
    }
}

/// `NAME: OK` for each of `names` as GNU's -c prints them (its escaping of
/// odd names), from GNU md5sum -c itself.
fn ok_lines(dir: &Path, names: &[&OsStr]) -> Vec<u8> {
    let sums = run(gnu("md5sum").current_dir(dir).args(names));
    std::fs::write(dir.join("md5sums"), &sums.stdout).unwrap();
    let o = run(gnu("md5sum").current_dir(dir).args(["-c", "md5sums"]));
    assert!(o.status.success(), "{o:?}");
    o.stdout
}

/// Check files fastsum writes (untagged and tagged, odd names) check OK
/// with fastsum -c, a changed file FAILS; and the oracle's own -c accepts
/// them where it has one (b2sum, cksum, xxhsum: plain names for xxhsum,
/// which does not unescape).
#[test]
fn check_round_trips() {
    let dir = tempdir();
    let d = dir.path();
    let (names, copies) = write_odd(d);
    let args: Vec<&OsStr> = names.iter().map(|n| os(n)).collect();
    let oks = ok_lines(d, &args);
    for case in CASES {
        for tagged in [false, true] {
            let opts: &[&str] = if tagged { &["--tag"] } else { &[] };
            let sums = run(case.ours(d, opts).args(&args));
            assert!(sums.status.success(), "{case:?}: {sums:?}");
            std::fs::write(d.join("sums"), &sums.stdout).unwrap();
            // with -a (untagged lines need it), and for tagged lines without
            let mut with_a = fastsum();
            with_a.current_dir(d).args(case.args()).args(["-c", "sums"]);
            assert_output(
                &format!("{case:?} -c {opts:?}"),
                &run(&mut with_a),
                &oks,
                "",
                0,
            );
            if tagged {
                let got = run(fastsum().current_dir(d).args(["-c", "sums"]));
                assert_output(&format!("{case:?} -c, no -a"), &got, &oks, "", 0);
            }
            // the oracle's -c
            let theirs = match case.oracle {
                Oracle::B2sum if require_tool("b2sum") => Some(run(gnu("b2sum")
                    .current_dir(d)
                    .args(["--strict", "-c", "sums"]))),
                Oracle::Sm3 if tagged && require_tool("cksum") => Some(run(gnu("cksum")
                    .current_dir(d)
                    .args(["--strict", "-c", "sums"]))),
                _ => None,
            };
            if let Some(o) = theirs {
                assert_output(&format!("{case:?} oracle -c {opts:?}"), &o, &oks, "", 0);
            }
        }
        // a changed file fails, exit 1
        let sums = run(case.ours(d, &[]).arg("copy-0"));
        std::fs::write(d.join("sums"), &sums.stdout).unwrap();
        write_file(d, "copy-0", b"changed");
        let mut c = fastsum();
        c.current_dir(d).args(case.args()).args(["-c", "sums"]);
        let got = run(&mut c);
        assert_output(
            &format!("{case:?} changed"),
            &got,
            b"copy-0: FAILED\n",
            "fastsum: WARNING: 1 computed checksum did NOT match\n",
            1,
        );
        write_file(d, "copy-0", &random_bytes(1000, 40));
        // xxhsum -c reads fastsum's xxHash lines (plain names)
        if let Oracle::Xxhsum(_) = case.oracle
            && require_tool("xxhsum")
        {
            for opts in [&[][..], &["--tag"]] {
                let sums = run(case.ours(d, opts).args(&copies));
                std::fs::write(d.join("xsums"), &sums.stdout).unwrap();
                let o = run(Command::new("xxhsum").current_dir(d).args(["-c", "xsums"]));
                let want: String = copies.iter().map(|c| format!("{c}: OK\n")).collect();
                assert_output(&format!("xxhsum -c {case:?} {opts:?}"), &o, want, "", 0);
            }
        }
    }
}

/// Several of the new algorithms (and old ones) in one read, on one thread
/// and fanned out over several: one tagged line each, in the order given,
/// each as the algorithm alone prints it.
#[test]
fn several_algorithms_in_one_read() {
    let dir = tempdir();
    let d = dir.path();
    let names = files_of_sizes(d, &[0, 129, 300_001], 60);
    let list = "sha256,blake2b,sm3,sha3,xxh32,xxh64,xxh3,xxh128,md5";
    let mut want = Vec::new();
    for n in &names {
        for a in list.split(',') {
            let o = run(fastsum()
                .current_dir(d)
                .args(["-a", a, "--tag"])
                .args(if a == "blake2b" || a == "sha3" {
                    &["-l", "256"][..]
                } else {
                    &[]
                })
                .arg(n));
            want.extend_from_slice(&o.stdout);
        }
    }
    for opts in [
        &["-j", "1"][..],
        &["-j", "4"],
        &["-m", "mmap", "-j", "3"],
        &["-m", "sync"],
    ] {
        let got = run(fastsum()
            .current_dir(d)
            .args(["-a", list, "-l", "256"])
            .args(opts)
            .args(&names));
        assert_output(&format!("{list} {opts:?}"), &got, &want, "", 0);
    }
    // and the mixed file checks
    std::fs::write(d.join("sums"), &want).unwrap();
    let got = run(fastsum().current_dir(d).args(["-c", "sums"]));
    let oks: String = names
        .iter()
        .flat_map(|n| vec![format!("{n}: OK\n"); list.split(',').count()])
        .collect();
    assert_output("mixed -c", &got, oks, "", 0);
}

/// `-l`: b2sum's edge values under both names; SHA-3's sizes; what GNU
/// refuses, with GNU's words (b2sum: exit 1, no pointer to --help;
/// fastsum: exit 2 and the pointer).
#[test]
fn length_edge_values() {
    let dir = tempdir();
    let d = dir.path();
    write_file(d, "f", b"abc");
    if require_tool("b2sum") {
        for bits in ["0", "8", "512", "128", "+16", " 24"] {
            let want = run(gnu("b2sum").current_dir(d).args(["-l", bits, "f"]));
            let got = run(fastsum().current_dir(d).args([
                "-a",
                "blake2b",
                "--untagged",
                "-l",
                bits,
                "f",
            ]));
            assert_output(&format!("-l {bits:?}"), &got, &want.stdout, "", 0);
        }
    }
    let refused = |args: &[&str], says: &str| {
        let got = run(fastsum().current_dir(d).args(args).arg("f"));
        assert_output(
            &format!("{args:?}"),
            &got,
            b"",
            &format!("{says}Try 'fastsum --help' for more information.\n"),
            2,
        );
    };
    let not_bytes = "length is not a multiple of 8";
    let sha3_sizes = "digest length for \u{2018}SHA3\u{2019} must be 224, 256, 384, or 512";
    let unsupported = "fastsum: --length is only supported with --algorithm blake2b or sha3\n";
    let cases: [(&[&str], String); 11] = [
        (
            &["-a", "blake2b", "-l", "7"],
            format!("\u{2018}7\u{2019}: {not_bytes}"),
        ),
        (
            &["-a", "blake2b", "-l", "513"],
            format!("\u{2018}513\u{2019}: {not_bytes}"),
        ),
        (
            &["-a", "blake2b", "-l", "520"],
            "\u{2018}520\u{2019}: maximum digest length for \u{2018}BLAKE2b\u{2019} is 512 bits"
                .into(),
        ),
        (&["-a", "blake2b", "-l", "x"], "\u{2018}x\u{2019}".into()),
        (
            &["-a", "sha3", "-l", "0"],
            format!("\u{2018}0\u{2019}: {sha3_sizes}"),
        ),
        (
            &["-a", "sha3", "-l", "128"],
            format!("\u{2018}128\u{2019}: {sha3_sizes}"),
        ),
        (
            &["-a", "sha3", "-l", "257"],
            format!("\u{2018}257\u{2019}: {sha3_sizes}"),
        ),
        (&["-a", "sha3"], String::new()),
        (&["-a", "sha256", "-l", "256"], String::new()),
        (&["-l", "128"], String::new()),
        (
            &["-a", "sha256,sha3", "-l", "8"],
            format!("\u{2018}8\u{2019}: {sha3_sizes}"),
        ),
    ];
    for (i, (args, why)) in cases.into_iter().enumerate() {
        let says = match i {
            7 => "fastsum: --algorithm=sha3 requires specifying --length 224, 256, 384, or 512\n"
                .to_string(),
            8 | 9 => unsupported.to_string(),
            _ => format!("fastsum: invalid length: {why}\n"),
        };
        refused(args, &says);
    }
    // under the b2sum name, GNU's own lines and status
    let b2sum = crate::util::fastsum_path();
    let link = d.join("b2sum");
    std::os::unix::fs::symlink(&b2sum, &link).unwrap();
    for bits in ["7", "513", "520", "abc", "-8", "99999999999999999999"] {
        let got = run(Command::new(&link)
            .env("LC_ALL", "C.UTF-8")
            .current_dir(d)
            .args(["-l", bits, "f"]));
        if require_tool("b2sum") {
            let want = run(gnu("b2sum").current_dir(d).args(["-l", bits, "f"]));
            crate::util::assert_outputs_same(
                &format!("b2sum -l {bits}"),
                &got,
                &want,
                "b2sum",
                "b2sum",
            );
        }
        assert_eq!(got.status.code(), Some(1), "b2sum -l {bits}");
    }
    // -a sha3 needs no -l to check: each line's tag (or hex) gives it
    let sums = run(fastsum()
        .current_dir(d)
        .args(["-a", "sha3", "-l", "384", "f"]));
    std::fs::write(d.join("sums"), &sums.stdout).unwrap();
    let got = run(fastsum().current_dir(d).args(["-a", "sha3", "-c", "sums"]));
    assert_output("sha3 -c untagged", &got, b"f: OK\n", "", 0);
}

/// `-r`, `--stats` and progress's absence with the new algorithms: the
/// rest of fastsum works under them.
#[test]
fn recursion_and_stats() {
    let dir = tempdir();
    let d = dir.path();
    std::fs::create_dir_all(d.join("t/sub")).unwrap();
    write_file(d, "t/a", b"a");
    write_file(d, "t/sub/b", &random_bytes(100_000, 3));
    for case in CASES {
        let got = run(&mut case.ours(d, &["-r", "t"]));
        let text = String::from_utf8_lossy(&got.stdout);
        assert_eq!(text.lines().count(), 2, "{case:?} -r: {text}");
        assert!(text.contains("t/sub/b"), "{case:?} -r: {text}");
        let got = run(&mut case.ours(d, &["--stats", "t/a"]));
        assert!(got.status.success(), "{case:?} --stats: {got:?}");
        assert!(!got.stderr.is_empty(), "{case:?} --stats printed nothing");
    }
}

/// The new algorithms' tags are read by `fastsum -c` without `-a`, from
/// lines other tools wrote: b2sum's BLAKE2b-N and cksum's SM3 lines.
#[test]
fn other_tools_lines_check() {
    let dir = tempdir();
    let d = dir.path();
    let names = files_of_sizes(d, &[5, 500], 80);
    let mut sums: Vec<u8> = Vec::new();
    if require_tool("b2sum") {
        for bits in ["0", "256", "8"] {
            sums.extend(
                run(gnu("b2sum")
                    .current_dir(d)
                    .args(["--tag", "-l", bits])
                    .args(&names))
                .stdout,
            );
        }
    }
    if require_tool("cksum") {
        sums.extend(run(gnu("cksum").current_dir(d).args(["-a", "sm3"]).args(&names)).stdout);
    }
    if require_tool("xxhsum") {
        sums.extend(
            run(Command::new("xxhsum")
                .current_dir(d)
                .args(["--tag", "-H3"])
                .args(&names))
            .stdout,
        );
        sums.extend(
            run(Command::new("xxhsum")
                .current_dir(d)
                .args(["--tag", "-H2"])
                .args(&names))
            .stdout,
        );
    }
    std::fs::write(d.join("sums"), &sums).unwrap();
    let lines = sums.iter().filter(|&&b| b == b'\n').count();
    let got: Output = run(fastsum().current_dir(d).args(["--strict", "-c", "sums"]));
    assert!(got.status.success(), "{got:?}");
    assert_eq!(
        String::from_utf8_lossy(&got.stdout).matches(": OK").count(),
        lines
    );
}

/// `--update` keeps a BLAKE2b or SHA-3 manifest's own length: `-a blake2b`
/// names the family, the manifest's lines say which BLAKE2b.
#[test]
fn update_keeps_the_manifests_length() {
    let dir = tempdir();
    let d = dir.path();
    write_file(d, "a", b"a");
    write_file(d, "b", b"b");
    for (first, then) in [
        (&["-a", "blake2b", "-l", "256"][..], &["-a", "blake2b"][..]),
        (
            &["-a", "sha3", "-l", "384", "--tag"],
            &["-a", "sha3", "-l", "224"],
        ),
    ] {
        let sums = run(fastsum().current_dir(d).args(first).arg("a"));
        std::fs::write(d.join("M"), &sums.stdout).unwrap();
        let got = run(fastsum()
            .current_dir(d)
            .args(then)
            .args(["--update", "M", "a", "b"]));
        let says = "fastsum: M: 1 added, 0 pruned, 1 kept\n";
        assert_output(&format!("{then:?} --update"), &got, b"", says, 0);
        let want = run(fastsum().current_dir(d).args(first).args(["a", "b"]));
        assert_eq!(
            std::fs::read(d.join("M")).unwrap(),
            want.stdout,
            "{first:?}"
        );
    }
}

/// The error and exit-status rules hold under every new algorithm: a
/// missing file and a directory are reported as under MD5, the other
/// inputs still hashed, exit 1.
#[test]
fn errors_as_under_md5() {
    let dir = tempdir();
    let d = dir.path();
    write_file(d, "a", b"a");
    std::fs::create_dir(d.join("dir")).unwrap();
    let operands = ["missing", "a", "dir"];
    let md5 = run(fastsum().current_dir(d).args(operands));
    for case in CASES {
        let got = run(&mut case.ours(d, &operands));
        let one = run(&mut case.ours(d, &["a"]));
        assert_output(
            &format!("{case:?} errors"),
            &got,
            &one.stdout,
            &String::from_utf8_lossy(&md5.stderr),
            1,
        );
    }
}
