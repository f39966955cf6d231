//! Each tool's dialect, exactly (issue 29 §4): what each real tool accepts
//! and refuses in `-c` lines and on its command line, against that tool.
//! Under a GNU name both programs carry the same name, so stderr is
//! compared byte for byte; b3sum's is compared with stdout in one stream
//! (the order of its lines matters).

use std::path::Path;
use std::process::{Command, Output};

use crate::util::{
    assert_output, assert_outputs_same, assert_stdout, fastsum, gnu, multicall, require_tool, run,
    tempdir, write_file,
};

/// Run `c` in `dir` with `args`, stdout and stderr in one stream, without
/// the backtrace a Rust program adds to an error it returns from `main`.
fn merged(c: &Command, dir: &Path, args: &[&str]) -> Output {
    let mut sh = Command::new("sh");
    sh.current_dir(dir)
        .env("LC_ALL", "C.UTF-8")
        .env_remove("RUST_BACKTRACE")
        .env_remove("RUST_LIB_BACKTRACE")
        .arg("-c")
        .arg("\"$0\" \"$@\" 2>&1")
        .arg(c.get_program())
        .args(args);
    run(&mut sh)
}

/// b3sum 1.8's `--check` grammar under the b3sum name: every line b3sum
/// refuses is refused with b3sum's reason (GNU's grammar took `HEX<TAB> a`,
/// `HEX *a`, `HEX a`, upper case, a leading blank, `BLAKE3 (a)= HEX`, and
/// cut a name at a NUL), an empty check file passes, one summary ends the
/// run, and what ends b3sum's run early (a line that is not UTF-8, a check
/// file that cannot be opened) ends fastsum's the same way.
#[test]
fn b3sum_check_lines_as_b3sum() {
    if !require_tool("b3sum") {
        return;
    }
    let dir = tempdir();
    write_file(dir.path(), "a", b"hi\n");
    write_file(dir.path(), "a\\b", b"back\n");
    write_file(dir.path(), " a", b"spaced\n");
    let hex = |name: &str| {
        let o = run(gnu("b3sum")
            .current_dir(dir.path())
            .args(["--no-names", name]));
        String::from_utf8(o.stdout).unwrap().trim_end().to_string()
    };
    let (h, hb) = (hex("a"), hex("a\\b"));
    let upper = h.to_uppercase();
    let cases: Vec<Vec<u8>> = [
        format!("{h}  a\n"),
        format!("{h}\t a\n"),
        format!("{h} *a\n"),
        format!("{h} a\n"),
        format!("{upper}  a\n"),
        format!(" {h}  a\n"),
        format!("BLAKE3 (a)= {h}\n"),
        format!("BLAKE3 (a) = {h}\n"),
        format!("BLAKE3  (a) = {h}\n"),
        format!("BLAKE3 (a  b) = {h}\n"),
        format!("{h}   a\n"),
        format!("{h}  a\r\r\n"),
        format!("{h}  a\n\n{h}  a\n"),
        format!("\r\n{h}  nosuch\n# comment\n"),
        format!("\\{hb}  a\\\\b\n\\{h}  a\n"),
        format!("\\{h}  a\\tb\n\\{h}  a\\\n"),
        format!("{h}  \n{h}\n"),
        format!("{h}  a\u{fffd}\n"),
        "MD5 (a) = 764efa883dda1e11db47671c4a3bbd9e\n".to_string(),
        String::new(),
    ]
    .into_iter()
    .map(String::into_bytes)
    .chain([
        // the exact truncation b3sum's check guards against
        [h.as_bytes(), b"  a\0junk\n"].concat(),
        // not UTF-8: b3sum's run ends there, with no summary
        [
            h.as_bytes(),
            b"  a\n",
            h.as_bytes(),
            b"  a\xff\n",
            h.as_bytes(),
            b"  a\n",
        ]
        .concat(),
    ])
    .collect();
    for (i, sums) in cases.iter().enumerate() {
        write_file(dir.path(), "SUMS", sums);
        write_file(dir.path(), "GOOD", format!("{h}  a\n").as_bytes());
        let sets: [&[&str]; 5] = [
            &["-c", "SUMS"],
            &["--check", "--quiet", "SUMS"],
            &["-c", "SUMS", "SUMS"],
            &["-c", "SUMS", "nosuch", "GOOD"],
            &["-c", "GOOD", "SUMS", "GOOD"],
        ];
        for args in sets {
            let want = merged(&gnu("b3sum"), dir.path(), args);
            let got = merged(&multicall(dir.path(), "b3sum"), dir.path(), args);
            let what = format!("case {i} {args:?}: {:?}", String::from_utf8_lossy(sums));
            assert_output(&what, &got, &want.stdout, "", want.status.code().unwrap());
        }
    }
}

/// b3sum's clap takes each of its options once (a second one is an error,
/// exit 2, where it stands among the others), waives `--quiet`'s need of
/// `--check` when an option `--check` conflicts with is given, and words
/// its conflicts with the options in the order given.
#[test]
fn b3sum_repeated_options_and_quiet() {
    if !require_tool("b3sum") {
        return;
    }
    let dir = tempdir();
    write_file(dir.path(), "a", b"hi\n");
    let good = run(gnu("b3sum").current_dir(dir.path()).arg("a")).stdout;
    write_file(dir.path(), "S", &good);
    let cases: [&[&str]; 27] = [
        &["--tag", "--tag", "a"],
        &["-c", "-c", "S"],
        &["-c", "--check", "S"],
        &["--quiet", "--quiet", "-c", "S"],
        &["-l", "4", "-l", "5", "a"],
        &["--length=4", "-l5", "a"],
        &["-l", "x", "-l", "4", "a"],
        &["-l", "4", "-l", "x", "a"],
        &["--no-names", "--no-names", "a"],
        &["--raw", "--raw", "a"],
        &["--no-mmap", "--no-mmap", "a"],
        &["--num-threads", "1", "--num-threads", "2", "a"],
        &["--tag", "--tag", "--bogus", "a"],
        &["--quiet", "--tag", "a"],
        &["--quiet", "-l", "4", "a"],
        &["--quiet", "--raw", "a"],
        &["--quiet", "--no-names", "a"],
        // clap's conflicts and requirement, worded with the options in
        // the order given
        &["-c", "--tag", "S"],
        &["--tag", "-c", "S"],
        &["-l", "4", "-c", "S"],
        &["-c", "--raw", "-l", "4", "--tag"],
        &[
            "--quiet",
            "--num-threads",
            "1",
            "-c",
            "--tag",
            "-l",
            "3",
            "S",
        ],
        &["--no-mmap", "-c", "-l", "4", "--quiet", "S"],
        &["--quiet", "a"],
        &["--no-mmap", "--quiet", "a"],
        &["--quiet"],
        &["--quiet", "--num-threads", "2"],
    ];
    for args in cases {
        let want = run(gnu("b3sum").current_dir(dir.path()).args(args));
        let got = run(multicall(dir.path(), "b3sum")
            .current_dir(dir.path())
            .args(args));
        assert_outputs_same(&format!("b3sum {args:?}"), &got, &want, "b3sum", "b3sum");
    }
    // which error clap meets first (an option whose value is the next word
    // is checked when the next word it knows comes), and its words: a tip
    // for an unknown option (a similar one, or how to pass it as a FILE),
    // a usage line of what was met
    for args in [
        &["--bogus", "--tag", "--tag", "a"][..],
        &["-l", "x", "-x"],
        &["-l", "x", "a", "-x"],
        &["-lx", "-x"],
        &["--num-threads=x", "-x"],
        &["--num-threads", "x", "--bogus"],
        &["-l", "4", "-l", "4", "-x"],
        &["--raw", "a", "a"],
        &["--chec", "S"],
        &["--tag", "--chec", "S"],
        &["S", "--bogus"],
        &["S", "--tag", "--bogus=1"],
        &["--tg"],
        &["--hel"],
        &["-l", "4", "--lenght", "2"],
        &["-l", "x", "--quite", "--num-threads", "2"],
        &["-l", "4", "--num-threads", "2", "-l", "4", "--lenght", "2"],
        &["-l"],
        &["--length"],
        &["--tag=1"],
        &["S", "--raw=x"],
        &["--no-mmap", "--tag=1"],
        &["-l", "8", "--help=1"],
        &["--length=8", "--help=1"],
        &["-l", "4", "-l", "4", "--raw=x"],
    ] {
        let want = run(gnu("b3sum").current_dir(dir.path()).args(args));
        let got = run(multicall(dir.path(), "b3sum")
            .current_dir(dir.path())
            .args(args));
        assert_outputs_same(&format!("b3sum {args:?}"), &got, &want, "b3sum", "b3sum");
    }
}

/// The tagged lines of other algorithms than GNU cksum's own (xxHash's,
/// BLAKE3's) are improperly formatted under the cksum name, as GNU's
/// cksum finds them; its own algorithms' still verify.
#[test]
fn cksum_checks_only_its_own_tags() {
    if !require_tool("cksum") {
        return;
    }
    let dir = tempdir();
    write_file(dir.path(), "f", b"some bytes\n");
    let mut sums = Vec::new();
    for algo in [
        "md5", "xxh64", "xxh3", "xxh32", "xxh128", "blake3", "sha256",
    ] {
        let o = run(fastsum()
            .current_dir(dir.path())
            .args(["-a", algo, "--tag", "f"]));
        assert_eq!(o.status.code(), Some(0), "{algo}");
        sums.extend(o.stdout);
    }
    write_file(dir.path(), "SUMS", &sums);
    for args in [
        &["-c", "SUMS"][..],
        &["-c", "-w", "SUMS"],
        &["-c", "--strict", "SUMS"],
        &["-c", "-a", "md5", "-w", "SUMS"],
    ] {
        let want = run(gnu("cksum").current_dir(dir.path()).args(args));
        let got = run(multicall(dir.path(), "cksum")
            .current_dir(dir.path())
            .args(args));
        assert_outputs_same(&format!("cksum {args:?}"), &got, &want, "cksum", "cksum");
    }
}

/// GNU's b2sum and cksum check `-l` as they meet it (`-l 7 -l 512` fails
/// at the 7, whatever follows), the largest length and cksum's other
/// algorithms once all is read (`cksum -l 0` is every algorithm's own
/// length); and every option is acted on in argument order, so the first
/// bad one is the one reported (`-l 7 --bogus`, `-l 7 --help`).
#[test]
fn options_checked_as_gnu_meets_them() {
    if !require_tool("b2sum") || !require_tool("cksum") || !require_tool("md5sum") {
        return;
    }
    let dir = tempdir();
    write_file(dir.path(), "f", b"abc");
    let cases: [(&str, &[&str]); 27] = [
        ("b2sum", &["-l", "7", "-l", "512", "f"]),
        ("b2sum", &["-l", "512", "-l", "7", "f"]),
        ("b2sum", &["-l", "1024", "-l", "8", "f"]),
        ("b2sum", &["-l", "8", "-l", "1024", "f"]),
        ("b2sum", &["-l", "x", "-l", "7", "f"]),
        ("b2sum", &["-l", "7", "-l", "x", "f"]),
        ("b2sum", &["-l", "7", "--bogus", "f"]),
        ("b2sum", &["--bogus", "-l", "7", "f"]),
        ("b2sum", &["-l", "7", "--help"]),
        ("b2sum", &["-l", "7", "--version"]),
        ("b2sum", &["-l", "7", "-x", "f"]),
        ("b2sum", &["-l", "7", "-l"]),
        ("b2sum", &["--bogus", "--help"]),
        ("b2sum", &["-l", "0", "f"]),
        ("cksum", &["-l", "7", "-l", "8", "-a", "blake2b", "f"]),
        ("cksum", &["-l", "1024", "-l", "16", "-a", "blake2b", "f"]),
        ("cksum", &["-l", "0", "f"]),
        ("cksum", &["-l", "0", "-a", "md5", "f"]),
        ("cksum", &["-l", "8", "f"]),
        ("cksum", &["-l", "7", "f"]),
        ("cksum", &["-l", "8", "-a", "md5", "f"]),
        ("cksum", &["-l", "7", "-a", "bogus", "f"]),
        ("cksum", &["-a", "bogus", "-l", "7", "f"]),
        ("cksum", &["-a", "bogus", "--help"]),
        ("cksum", &["-a", "blake2b", "--tag", "-c", "f"]),
        ("md5sum", &["--help", "--bogus"]),
        ("md5sum", &["--tag", "-x", "--bogus", "f"]),
    ];
    for (tool, args) in cases {
        let want = run(gnu(tool).current_dir(dir.path()).args(args));
        let got = run(multicall(dir.path(), tool)
            .current_dir(dir.path())
            .args(args));
        let what = format!("{tool} {args:?}");
        if args.contains(&"--help") && want.status.code() == Some(0) {
            // (fastsum's help is its own text)
            assert_eq!(got.status.code(), Some(0), "{what}");
            assert!(got.stderr.is_empty(), "{what}");
            continue;
        }
        if args.contains(&"--version") && want.status.code() == Some(0) {
            assert_eq!(got.status.code(), Some(0), "{what}");
            continue;
        }
        let first = |o: &Output| {
            String::from_utf8_lossy(&o.stderr)
                .lines()
                .next()
                .map(str::to_owned)
        };
        if want.stderr.starts_with(b"cksum: invalid argument") {
            // (fastsum's cksum lists GNU 9.8's algorithms too)
            assert_stdout(&what, &got, &want.stdout);
            assert_eq!(first(&got), first(&want), "{what}");
            assert_eq!(got.status.code(), want.status.code(), "{what}");
            continue;
        }
        assert_outputs_same(&what, &got, &want, tool, tool);
    }
}

/// The blanks GNU 9.x takes between a tag and `(`: md5sum … sha512sum one
/// space at most; b2sum and cksum step over the byte after the tag (`MD5
/// (a)` with two spaces, `BLAKE2b<TAB>(a)`) and then one space; cksum
/// without `-a` reads the tag as a word. Each variant under each name, and
/// fastsum's own (which reads tags as cksum does, and with one `-a` as that
/// algorithm's tool), against the real tool.
#[test]
fn tag_blanks_as_gnu() {
    for tool in ["md5sum", "sha256sum", "b2sum", "cksum"] {
        if !require_tool(tool) {
            return;
        }
    }
    let dir = tempdir();
    write_file(dir.path(), "a", b"abc\n");
    let hex = |tool: &str| {
        let o = run(gnu(tool).current_dir(dir.path()).arg("a"));
        String::from_utf8(o.stdout).unwrap()[..]
            .split(' ')
            .next()
            .unwrap()
            .to_string()
    };
    let gaps = [
        " ", "", "  ", "   ", "\t", "\t ", " \t", "\t\t", "x", "X ", "-", "- ", "\0", "\x01",
    ];
    let line = |tag: &str, gap: &str, h: &str| format!("{tag}{gap}(a) = {h}\n");
    let runs: [(&str, &str, &[&str]); 9] = [
        ("md5sum", "MD5", &["-c"]),
        ("sha256sum", "SHA256", &["-c"]),
        ("b2sum", "BLAKE2b", &["-c"]),
        ("b2sum", "BLAKE2b-512", &["-c"]),
        ("cksum", "MD5", &["-c"]),
        ("cksum", "MD5", &["-a", "md5", "-c"]),
        ("cksum", "BLAKE2b", &["-c"]),
        ("cksum", "BLAKE2b", &["-a", "blake2b", "-c"]),
        ("cksum", "SHA256", &["-c"]),
    ];
    for (tool, tag, args) in runs {
        let h = match tag {
            "MD5" => hex("md5sum"),
            "SHA256" => hex("sha256sum"),
            _ => hex("b2sum"),
        };
        for gap in gaps {
            for lead in ["", " ", "\\"] {
                let sums = format!("{lead}{}", line(tag, gap, &h));
                write_file(dir.path(), "SUMS", sums.as_bytes());
                let want = run(gnu(tool).current_dir(dir.path()).args(args).arg("SUMS"));
                let got = run(multicall(dir.path(), tool)
                    .current_dir(dir.path())
                    .args(args)
                    .arg("SUMS"));
                let what = format!("{tool} {args:?} {sums:?}");
                assert_outputs_same(&what, &got, &want, tool, tool);
                // fastsum's own name reads tags as cksum does, and with one
                // -a as that algorithm's tool (md5sum, b2sum)
                if tool == "cksum" {
                    let oracle = match args {
                        ["-a", "md5", ..] => {
                            run(gnu("md5sum").current_dir(dir.path()).args(["-c", "SUMS"]))
                        }
                        ["-a", "blake2b", ..] => {
                            run(gnu("b2sum").current_dir(dir.path()).args(["-c", "SUMS"]))
                        }
                        _ => want,
                    };
                    let ours = run(fastsum().current_dir(dir.path()).args(args).arg("SUMS"));
                    assert_stdout(&format!("fastsum: {what}"), &ours, &oracle.stdout);
                    assert_eq!(ours.status.code(), oracle.status.code(), "fastsum: {what}");
                }
            }
        }
    }
}

/// `-c -w` under cksum with no `-a` names the algorithm of the last tag
/// read (even on a line then found improper; the CRC before any), as GNU's
/// cksum does.
#[test]
fn warn_names_the_last_tag_read() {
    if !require_tool("cksum") || !require_tool("md5sum") {
        return;
    }
    let dir = tempdir();
    write_file(dir.path(), "a", b"hi\n");
    let md5 = run(gnu("md5sum").current_dir(dir.path()).arg("a")).stdout;
    let md5 = String::from_utf8(md5).unwrap()[..32].to_string();
    let sums = format!(
        "junk\nMD5 (a) = {md5}\njunk\nSHA1 (a) = 00\njunk\nSHA256 (a\njunk\n\
         MD5X (a) = 1\njunk\nCRC (a) = 1\njunk\n{md5}  a\njunk\nBLAKE2b-8 (a) = 0\njunk\n"
    );
    write_file(dir.path(), "W", sums.as_bytes());
    for args in [&["-c", "-w", "W"][..], &["-c", "-w", "W", "W"]] {
        let want = run(gnu("cksum").current_dir(dir.path()).args(args));
        let got = run(multicall(dir.path(), "cksum")
            .current_dir(dir.path())
            .args(args));
        assert_outputs_same(&format!("cksum {args:?}"), &got, &want, "cksum", "cksum");
    }
}

/// `xxhsum -H3` switches to tagged lines for the rest of the command line,
/// as xxhsum 0.8 does: `-H3 -H1` prints `XXH64 (f) = …`.
#[test]
fn xxhsum_h3_keeps_tagged_lines() {
    if !require_tool("xxhsum") {
        return;
    }
    let dir = tempdir();
    write_file(dir.path(), "f", b"some bytes\n");
    for args in [
        &["-H3", "-H1"][..],
        &["-H3", "-H0"],
        &["-H3", "-H2"],
        &["-H1", "-H3"],
        &["-H3"],
        &["-H1"],
        &["-H3H1"],
        &["-H0", "-H1"],
    ] {
        let want = run(gnu("xxhsum").current_dir(dir.path()).args(args).arg("f"));
        let got = run(multicall(dir.path(), "xxhsum")
            .current_dir(dir.path())
            .args(args)
            .arg("f"));
        assert_stdout(&format!("xxhsum {args:?}"), &got, &want.stdout);
        assert_eq!(got.status.code(), want.status.code(), "xxhsum {args:?}");
    }
}

/// `cksum -a sha2 -c` without `-l` takes a line of any of the four SHA-2
/// sizes, as docs/GUIDE.md says: hex or `--base64`, tagged or untagged.
/// (GNU 9.8's `-a sha2` is newer than the GNU 9.1 the tests run, so this
/// is checked against fastsum's own lines.)
#[test]
fn cksum_sha2_check_takes_any_size() {
    let dir = tempdir();
    write_file(dir.path(), "f", b"some bytes\n");
    let mut sums = Vec::new();
    for bits in ["224", "256", "384", "512"] {
        for form in [&["--untagged"][..], &[]] {
            for enc in [&["--base64"][..], &[]] {
                let o = run(multicall(dir.path(), "cksum")
                    .current_dir(dir.path())
                    .args(["-a", "sha2", "-l", bits])
                    .args(form)
                    .args(enc)
                    .arg("f"));
                assert_eq!(o.status.code(), Some(0), "{bits} {form:?} {enc:?}");
                sums.extend(o.stdout);
            }
        }
    }
    write_file(dir.path(), "SUMS", &sums);
    let got = run(multicall(dir.path(), "cksum")
        .current_dir(dir.path())
        .args(["-a", "sha2", "-c", "SUMS"]));
    assert_output("cksum -a sha2 -c", &got, "f: OK\n".repeat(16), "", 0);
}

/// b2sum's and cksum's shortest untagged line is 3 bytes whatever the
/// digest's length, so `<hex> ` alone names the empty file there (a
/// reversed line); md5sum's is the hex, a blank and one byte.
#[test]
fn shortest_untagged_line_as_gnu() {
    for tool in ["md5sum", "b2sum", "cksum"] {
        if !require_tool(tool) {
            return;
        }
    }
    let dir = tempdir();
    write_file(dir.path(), "a", b"abc\n");
    let md5 = "0bee89b07a248e27c83fc3d5951213c1";
    for (tool, args) in [
        ("md5sum", &["-c"][..]),
        ("b2sum", &["-c"]),
        ("cksum", &["-a", "md5", "-c"]),
        ("cksum", &["-a", "blake2b", "-c"]),
    ] {
        for sums in [
            format!("{md5} \n"),
            format!("\\{md5} \n"),
            format!("{md5}\n"),
            format!("{md5} a\n{md5} \n"),
            format!("{md5}  a\n{md5} \n"),
            "ab \n".to_string(),
            "a \n".to_string(),
        ] {
            write_file(dir.path(), "SUMS", sums.as_bytes());
            let want = run(gnu(tool).current_dir(dir.path()).args(args).arg("SUMS"));
            let got = run(multicall(dir.path(), tool)
                .current_dir(dir.path())
                .args(args)
                .arg("SUMS"));
            let what = format!("{tool} {args:?} {sums:?}");
            assert_outputs_same(&what, &got, &want, tool, tool);
        }
    }
}

/// A tag's length is read as GNU's `xstrtoumax` reads it (base 0, blanks
/// and `+` first): `BLAKE2b-0x80` and `BLAKE2b-0200` are 128 bits,
/// `BLAKE2b-00128` is octal 12 then junk.
#[test]
fn tag_lengths_as_gnu() {
    for tool in ["b2sum", "cksum"] {
        if !require_tool(tool) {
            return;
        }
    }
    let dir = tempdir();
    write_file(dir.path(), "a", b"abc\n");
    let o = run(gnu("b2sum")
        .current_dir(dir.path())
        .args(["-l", "128", "a"]));
    let hex = String::from_utf8(o.stdout).unwrap()[..32].to_string();
    for length in [
        "128", "0x80", "0X80", "0200", " 128", "+128", "00128", "1e2", "-128", "0x", "",
    ] {
        write_file(
            dir.path(),
            "SUMS",
            format!("BLAKE2b-{length} (a) = {hex}\n").as_bytes(),
        );
        for (tool, args) in [
            ("b2sum", &["-c"][..]),
            ("cksum", &["-c"]),
            ("cksum", &["-a", "blake2b", "-c"]),
        ] {
            let want = run(gnu(tool).current_dir(dir.path()).args(args).arg("SUMS"));
            let got = run(multicall(dir.path(), tool)
                .current_dir(dir.path())
                .args(args)
                .arg("SUMS"));
            assert_outputs_same(
                &format!("{tool} {args:?} {length:?}"),
                &got,
                &want,
                tool,
                tool,
            );
        }
    }
    // a fixed-length algorithm's own length is taken as GNU takes it; a
    // shorter one GNU compares in part, and fastsum refuses (docs/check.md)
    let md5 = "0bee89b07a248e27c83fc3d5951213c1";
    for (line, gnu_too) in [
        (format!("MD5-128 (a) = {md5}\n"), true),
        (format!("MD5-0x80(a) = {md5}\n"), true),
        (format!("MD5-64 (a) = {}\n", &md5[..16]), false),
    ] {
        write_file(dir.path(), "SUMS", line.as_bytes());
        for args in [&["-c"][..], &["-a", "md5", "-c"]] {
            let want = run(gnu("cksum").current_dir(dir.path()).args(args).arg("SUMS"));
            let got = run(multicall(dir.path(), "cksum")
                .current_dir(dir.path())
                .args(args)
                .arg("SUMS"));
            let what = format!("cksum {args:?} {line:?}");
            if gnu_too {
                assert_outputs_same(&what, &got, &want, "cksum", "cksum");
            } else {
                assert_eq!(want.status.code(), Some(0), "{what}: GNU takes it");
                let err = "cksum: SUMS: no properly formatted checksum lines found\n";
                assert_output(&what, &got, "", err, 1);
            }
        }
    }
}

/// GNU settles the reversed-form latch on an untagged line before it finds
/// a bad escape in its name: the improper line still decides how the next
/// untagged lines are read (`hex a` improper after `\hex  a\q`).
#[test]
fn a_bad_escape_still_settles_the_form() {
    for tool in ["md5sum", "cksum"] {
        if !require_tool(tool) {
            return;
        }
    }
    let dir = tempdir();
    write_file(dir.path(), "a", b"abc\n");
    write_file(dir.path(), " a", b"abc\n");
    let md5 = "0bee89b07a248e27c83fc3d5951213c1";
    for sums in [
        format!("\\{md5}  a\\q\n{md5} a\n"),
        format!("\\{md5} a\\q\n{md5}  a\n"),
        format!("\\{md5}  a\\\n{md5} a\n{md5}  a\n"),
    ] {
        write_file(dir.path(), "SUMS", sums.as_bytes());
        for (tool, args) in [
            ("md5sum", &["-c", "-w"][..]),
            ("cksum", &["-a", "md5", "-c", "-w"]),
        ] {
            let want = run(gnu(tool).current_dir(dir.path()).args(args).arg("SUMS"));
            let got = run(multicall(dir.path(), tool)
                .current_dir(dir.path())
                .args(args)
                .arg("SUMS"));
            assert_outputs_same(&format!("{tool} {sums:?}"), &got, &want, tool, tool);
        }
    }
}
