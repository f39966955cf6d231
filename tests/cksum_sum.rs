//! `sum` and `cksum` under their names, byte for byte against GNU
//! coreutils' (stdout, stderr with each program's name set aside, exit
//! status): every algorithm and output option, odd names (newline,
//! backslash, non-UTF-8), stdin (none, `-`), `-z`, missing files, every
//! reading mode; `cksum -c` round trips; the usage errors.

use std::ffi::OsString;
use std::path::Path;
use std::process::{Command, Output};

use crate::util::{
    MODES, assert_outputs_same, gnu, multicall, odd_files, random_bytes, require_tool, run,
    run_with_stdin, shown, tempdir, words, write_file,
};

/// The test files (see [`odd_files`]).
fn files(d: &Path) -> Vec<OsString> {
    odd_files(d, [0, 1, 1000, 513, 1024, 3 << 20], 90)
}

/// Run `name ARGS` as GNU's tool and as fastsum linked under the name
/// (with `extra` options, fastsum's own, before them), through `exec`;
/// assert the same output.
fn same(
    d: &Path,
    name: &str,
    extra: &[&str],
    args: &[std::ffi::OsString],
    exec: &mut dyn FnMut(&mut Command) -> Output,
) -> Output {
    let theirs = exec(gnu(name).current_dir(d).args(args));
    let ours = exec(multicall(d, name).current_dir(d).args(extra).args(args));
    let what = format!("{name} {extra:?} {args:?}");
    assert_outputs_same(&what, &ours, &theirs, name, name);
    theirs
}

#[test]
fn sum_matches_gnu_sum() {
    if !require_tool("sum") {
        return;
    }
    let dir = tempdir();
    let d = dir.path();
    let names = files(d);
    for opts in [
        &[][..],
        &["-r"],
        &["-s"],
        &["--sysv"],
        &["-rs"],
        &["-s", "-r"],
    ] {
        let mut args = words(opts);
        args.extend(names.iter().cloned());
        args.push("nosuch".into());
        same(d, "sum", &[], &args, &mut |c| run(c));
        // one file, and stdin: named only when named
        let mut one = words(opts);
        one.push("one".into());
        same(d, "sum", &[], &one, &mut |c| run(c));
        let data = random_bytes(5000, 3);
        same(d, "sum", &[], &words(opts), &mut |c| {
            run_with_stdin(c, &data)
        });
        let mut dash = words(opts);
        dash.push("-".into());
        same(d, "sum", &[], &dash, &mut |c| run_with_stdin(c, &data));
    }
    for mode in MODES {
        let mut args = words(&["-s"]);
        args.extend(names.iter().cloned());
        same(d, "sum", &["--mode", mode], &args, &mut |c| run(c));
    }
}

#[test]
fn cksum_matches_gnu_cksum() {
    if !require_tool("cksum") {
        return;
    }
    let dir = tempdir();
    let d = dir.path();
    let names = files(d);
    let algos = [
        "crc", "bsd", "sysv", "md5", "sha1", "sha224", "sha256", "sha384", "sha512", "blake2b",
        "sm3",
    ];
    let mut sets: Vec<Vec<&str>> = vec![vec![], vec!["-z"], vec!["--untagged"]];
    for a in algos {
        sets.push(vec!["-a", a]);
        sets.push(vec!["--algorithm", a, "--untagged"]);
        sets.push(vec!["-a", a, "--tag", "-z"]);
    }
    sets.push(vec!["-a", "blake2b", "-l", "256"]);
    sets.push(vec!["-a", "blake2b", "-l", "8", "--untagged"]);
    let data = random_bytes(70_000, 5);
    for opts in &sets {
        let mut args = words(opts);
        args.extend(names.iter().cloned());
        args.push("nosuch".into());
        same(d, "cksum", &[], &args, &mut |c| run(c));
        same(d, "cksum", &[], &words(opts), &mut |c| {
            run_with_stdin(c, &data)
        });
    }
    for mode in MODES {
        for a in ["crc", "blake2b", "sm3"] {
            let mut args = words(&["-a", a]);
            args.extend(names.iter().cloned());
            same(d, "cksum", &["--mode", mode], &args, &mut |c| run(c));
        }
    }
}

#[test]
fn cksum_check_round_trips_and_refusals() {
    if !require_tool("cksum") {
        return;
    }
    let dir = tempdir();
    let d = dir.path();
    let names = files(d);
    // a mixed file of tagged lines, as GNU's cksum-c.sh makes it
    let mut sums = Vec::new();
    for opts in [
        &["-a", "sha384"][..],
        &["-a", "blake2b"],
        &["-a", "blake2b", "-l", "384"],
        &["-a", "sm3"],
        &["-a", "md5"],
    ] {
        let o = run(gnu("cksum").current_dir(d).args(opts).args(&names));
        sums.extend_from_slice(&o.stdout);
    }
    std::fs::write(d.join("SUMS"), &sums).unwrap();
    for opts in [
        &["-c", "SUMS"][..],
        &["--check", "--strict", "SUMS"],
        &["-c", "-a", "sm3", "SUMS"],
        &["-c", "--quiet", "SUMS"],
        &["-c", "-w", "SUMS", "nosuch"],
    ] {
        same(d, "cksum", &[], &words(opts), &mut |c| run(c));
    }
    write_file(d, "one", b"changed");
    same(d, "cksum", &[], &words(&["-c", "SUMS"]), &mut |c| run(c));
    // untagged lines checked with -a; CRC lines are refused
    let o = run(gnu("cksum")
        .current_dir(d)
        .args(["--untagged", "-a", "sha256", "empty"]));
    std::fs::write(d.join("UNTAGGED"), &o.stdout).unwrap();
    same(
        d,
        "cksum",
        &[],
        &words(&["-c", "-a", "sha256", "UNTAGGED"]),
        &mut |c| run(c),
    );
    same(d, "cksum", &[], &words(&["-c", "UNTAGGED"]), &mut |c| {
        run(c)
    });
    for opts in [
        &["-a", "crc", "-c", "SUMS"][..],
        &["-a", "bsd", "-c"],
        &["-l", "256", "-a", "md5"],
        &["-l", "7", "-a", "blake2b"],
        &["-l", "513", "-a", "blake2b"],
        &["--untagged", "-c", "SUMS"],
        &["--tag", "--untagged", "-a", "md5", "empty"],
        &["--bogus"],
    ] {
        same(d, "cksum", &[], &words(opts), &mut |c| {
            run_with_stdin(c, b"")
        });
    }
    // an unknown -a: GNU 9.1's message, whose list of valid names goes on
    // with the two of GNU 9.6-9.8 that fastsum's cksum takes too
    for bad in ["sha22", "nope", "md5,sha1", "MD5"] {
        let theirs = run(gnu("cksum").args(["-a", bad]));
        let ours = run(multicall(d, "cksum").args(["-a", bad]));
        let want = String::from_utf8_lossy(&theirs.stderr).replace(
            "\u{2018}sm3\u{2019}\n",
            "\u{2018}sm3\u{2019}\n  - \u{2018}crc32b\u{2019}\n  - \u{2018}sha3\u{2019}\n  - \u{2018}sha2\u{2019}\n",
        );
        assert_eq!(String::from_utf8_lossy(&ours.stderr), want, "-a {bad}");
        assert_eq!(ours.status.code(), theirs.status.code(), "-a {bad}");
        assert!(want.contains("crc32b"), "{want}");
    }
}

/// GNU cksum 9.8's additions (newer than the 9.1 here): `-a sha2 -l N` is
/// `-a shaN`; `--base64` writes the digest's standard base64 (checked
/// against python3's), tagged or not, and `-c` reads it back; `--raw`
/// writes the digest's bytes (the CRC's big-endian), one input only.
#[test]
fn cksum_98_sha2_base64_and_raw() {
    if !require_tool("cksum") || !require_tool("python3") {
        return;
    }
    let dir = tempdir();
    let d = dir.path();
    let names = files(d);
    let cksum = |args: &[&str]| run(multicall(d, "cksum").current_dir(d).args(args));
    for bits in ["224", "256", "384", "512"] {
        let sha2 = cksum(&["-a", "sha2", "-l", bits, "one", "big"]);
        let direct =
            run(gnu("cksum")
                .current_dir(d)
                .args(["-a", &format!("sha{bits}"), "one", "big"]));
        assert_eq!(sha2.stdout, direct.stdout, "sha2 -l {bits}");
        std::fs::write(d.join("S2"), &sha2.stdout).unwrap();
        let o = cksum(&["-c", "-a", "sha2", "S2"]);
        assert_eq!(
            (o.stdout.as_slice(), o.status.code()),
            (&b"one: OK\nbig: OK\n"[..], Some(0)),
            "{}",
            shown(&o)
        );
    }
    let b64 = |hex: &str| {
        let o = run(Command::new("python3").args([
            "-c",
            "import base64,sys; print(base64.b64encode(bytes.fromhex(sys.argv[1])).decode())",
            hex,
        ]));
        String::from_utf8(o.stdout).unwrap().trim().to_string()
    };
    for algo in ["md5", "sha1", "sha256", "sha512", "blake2b", "sm3"] {
        let hex = cksum(&["-a", algo, "--untagged", "one"]);
        let hex = String::from_utf8(hex.stdout).unwrap();
        let want = b64(hex.split(' ').next().unwrap());
        let o = cksum(&["-a", algo, "--base64", "--untagged", "one"]);
        assert_eq!(
            String::from_utf8_lossy(&o.stdout),
            format!("{want}  one\n"),
            "{algo}"
        );
        // tagged and untagged base64 lines checked, odd names too
        for form in ["--tag", "--untagged"] {
            let mut args = vec!["-a", algo, "--base64", form];
            let names: Vec<&str> = names.iter().filter_map(|n| n.to_str()).collect();
            args.extend(&names);
            let sums = cksum(&args);
            std::fs::write(d.join("B64"), &sums.stdout).unwrap();
            let check = match form {
                "--tag" => cksum(&["-c", "B64"]),
                _ => cksum(&["-c", "-a", algo, "B64"]),
            };
            assert_eq!(
                check.status.code(),
                Some(0),
                "{algo} {form}: {}",
                shown(&check)
            );
            assert!(!check.stdout.is_empty());
        }
        let raw = cksum(&["-a", algo, "--raw", "one"]);
        let raw_hex: String = raw.stdout.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(raw_hex, hex.split(' ').next().unwrap(), "{algo} --raw");
    }
    let crc = cksum(&["--raw", "one"]);
    let value = String::from_utf8(run(gnu("cksum").current_dir(d).arg("one")).stdout).unwrap();
    let value: u32 = value.split(' ').next().unwrap().parse().unwrap();
    assert_eq!(crc.stdout, value.to_be_bytes());
    for (args, err) in [
        (
            &["-a", "sha2", "one"][..],
            "cksum: --algorithm=sha2 requires specifying --length 224, 256, 384, or 512\n",
        ),
        (
            &["-a", "sha2", "-l", "100", "one"],
            "cksum: invalid length: \u{2018}100\u{2019}\ncksum: digest length for \u{2018}SHA2\u{2019} must be 224, 256, 384, or 512\n",
        ),
        (
            &["--raw", "one", "big"],
            "cksum: the --raw option is not supported with multiple files\n",
        ),
        (
            &["--raw", "--base64", "one"],
            "cksum: --base64 and --raw are mutually exclusive\nTry 'cksum --help' for more information.\n",
        ),
    ] {
        let o = cksum(args);
        assert_eq!(String::from_utf8_lossy(&o.stderr), err, "{args:?}");
        assert_eq!(o.status.code(), Some(1), "{args:?}");
    }
}

/// `-a crc32b` (GNU cksum 9.6+): zlib's CRC-32 printed as the POSIX CRC is,
/// decimal value and size, checked against python3's zlib.crc32, in every
/// mode; refused with `-c` in 9.8's words.
#[test]
fn crc32b_as_cksum_98_prints_it() {
    if !require_tool("python3") {
        return;
    }
    let dir = tempdir();
    let d = dir.path();
    let names = files(d);
    let script = "import sys, zlib\n\
                  for n in sys.argv[1:]:\n    d = open(n, 'rb').read(); print(zlib.crc32(d), len(d))";
    let o = run(Command::new("python3")
        .current_dir(d)
        .args(["-c", script])
        .args(&names));
    let values = String::from_utf8(o.stdout).unwrap();
    let mut want = Vec::new();
    for (line, name) in values.lines().zip(&names) {
        want.extend_from_slice(line.as_bytes());
        want.push(b' ');
        want.extend_from_slice(std::os::unix::ffi::OsStrExt::as_bytes(name.as_os_str()));
        want.push(b'\n');
    }
    for name in ["cksum", "fastsum"] {
        for mode in MODES {
            let o = run(multicall(d, name)
                .current_dir(d)
                .args(["-a", "crc32b", "-m", mode])
                .args(&names));
            crate::util::assert_stdout(&format!("{name} {mode}"), &o, &want);
        }
    }
    let o = run(multicall(d, "cksum")
        .current_dir(d)
        .args(["-a", "crc32b", "-c", "x"]));
    assert_eq!(
        String::from_utf8_lossy(&o.stderr),
        "cksum: --check is not supported with --algorithm={bsd,sysv,crc,crc32b}\n"
    );
    assert_eq!(o.status.code(), Some(1));
}
