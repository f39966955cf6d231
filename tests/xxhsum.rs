//! xxhsum, xxh32sum, xxh128sum (and xxh3sum) under their names, byte for
//! byte against xxhsum 0.8.1: stdout, stderr (its own words, and the line
//! it blanks out at the end) and exit status, for every algorithm and
//! option, odd names, stdin, errors, every reading mode, and `-c` on the
//! lines of every shape it reads. Its help names fastsum in the first line
//! and is otherwise xxhsum's.

use std::ffi::OsString;
use std::path::Path;
use std::process::{Command, Output};

use crate::util::{
    MODES, gnu, multicall, odd_files, random_bytes, require_tool, run, run_with_stdin, shown,
    tempdir, words, write_file,
};

/// The test files (see [`odd_files`]).
fn files(d: &Path) -> Vec<OsString> {
    odd_files(d, [0, 1, 1000, 240, 17, 3 << 20], 40)
}

/// The same stdout, stderr and status; for usage text, the first line (the
/// program's own name and version) set aside.
fn assert_same(what: &str, ours: &Output, theirs: &Output) {
    crate::util::assert_stdout(what, ours, &theirs.stdout);
    let rest = |e: &[u8]| {
        String::from_utf8_lossy(e)
            .split_inclusive('\n')
            .filter(|l| !l.contains(" 0.8.1 by Yann Collet ") && !l.contains(" (fastsum "))
            .collect::<String>()
    };
    assert_eq!(rest(&ours.stderr), rest(&theirs.stderr), "{what}: stderr");
    assert_eq!(ours.status.code(), theirs.status.code(), "{what}: status");
}

/// Run `name ARGS` as xxhsum 0.8.1 (through its name's default option) and
/// as fastsum linked under the name, each through `exec`.
fn same(
    d: &Path,
    name: &str,
    extra: &[&str],
    args: &[OsString],
    exec: &mut dyn FnMut(&mut Command) -> Output,
) {
    let mut theirs = gnu("xxhsum");
    theirs.current_dir(d);
    // 0.8.1 has no xxh3sum: -H3 stands for it
    if name == "xxh3sum" {
        theirs.arg("-H3");
    } else if name != "xxhsum" {
        theirs = gnu(name);
        theirs.current_dir(d);
    }
    let want = exec(theirs.args(args));
    let mut ours = multicall(d, name);
    let got = exec(ours.current_dir(d).args(extra).args(args));
    assert_same(&format!("{name} {extra:?} {args:?}"), &got, &want);
}

#[test]
fn hashing_matches_xxhsum() {
    if !require_tool("xxhsum") {
        return;
    }
    let dir = tempdir();
    let d = dir.path();
    let names = files(d);
    let sets: [&[&str]; 11] = [
        &[],
        &["-H0"],
        &["-H1"],
        &["-H2"],
        &["-H3"],
        &["-H32", "--tag"],
        &["-H128", "--little-endian"],
        &["--tag", "--little-endian", "-H3"],
        &["-H64", "--tag"],
        &["-q"],
        &["--"],
    ];
    let data = random_bytes(100_000, 9);
    for opts in sets {
        let mut args = words(opts);
        args.extend(names.iter().cloned());
        args.push("nosuch".into());
        args.push(".".into());
        same(d, "xxhsum", &[], &args, &mut |c| run(c));
        same(d, "xxhsum", &[], &words(opts), &mut |c| {
            run_with_stdin(c, &data)
        });
        // (a `-` among the FILEs is a file named `-` to xxhsum 0.8.1, whose
        // help says it is stdin, as it is to fastsum: not compared)
        if opts != ["--"] {
            let mut dash = words(opts);
            dash.push("-".into());
            same(d, "xxhsum", &[], &dash, &mut |c| run_with_stdin(c, &data));
        }
    }
    for name in ["xxh32sum", "xxh64sum", "xxh128sum", "xxh3sum"] {
        if name != "xxh3sum" && !require_tool(name) {
            continue;
        }
        same(d, name, &[], &names, &mut |c| run(c));
    }
    for mode in MODES {
        let mut args = words(&["-H2"]);
        args.extend(names.iter().cloned());
        same(d, "xxhsum", &["--mode", mode], &args, &mut |c| run(c));
    }
    // options after the first FILE are FILEs; usage errors
    same(d, "xxhsum", &[], &words(&["one", "-H0"]), &mut |c| run(c));
    for bad in [
        &["-H9", "one"][..],
        &["-x", "one"],
        &["--bogus", "one"],
        &["-H99999999999"],
    ] {
        same(d, "xxhsum", &[], &words(bad), &mut |c| run(c));
    }
}

#[test]
fn checking_matches_xxhsum() {
    if !require_tool("xxhsum") {
        return;
    }
    let dir = tempdir();
    let d = dir.path();
    let names = files(d);
    // sums of every shape, by xxhsum itself
    let mut sums = Vec::new();
    for opts in [
        &["-H0"][..],
        &["-H1"],
        &["-H2"],
        &["-H3"],
        &["--tag", "-H1"],
        &["--little-endian", "--tag", "-H0"],
    ] {
        let o = run(gnu("xxhsum")
            .current_dir(d)
            .args(opts)
            .args(["one", "empty", "big"]));
        sums.extend_from_slice(&o.stdout);
    }
    sums.extend_from_slice(b"junk line\n0000  short\ne4c191d091bd8853  gone\n");
    std::fs::write(d.join("SUMS"), &sums).unwrap();
    let le = run(gnu("xxhsum")
        .current_dir(d)
        .args(["--little-endian", "one"]));
    std::fs::write(d.join("LE"), &le.stdout).unwrap();
    write_file(d, "one", b"changed");
    for opts in [
        &["-c", "SUMS"][..],
        &["--check", "-q", "SUMS"],
        &["-c", "--status", "SUMS"],
        &["-c", "-w", "SUMS"],
        &["-cqw", "--strict", "SUMS"],
        &["-c", "SUMS", "nosuch", "LE"],
        &["-c", "--little-endian", "LE"],
        &["-c", "one"],
    ] {
        same(d, "xxhsum", &[], &words(opts), &mut |c| run(c));
    }
    let sums = std::fs::read(d.join("SUMS")).unwrap();
    same(d, "xxhsum", &[], &words(&["-c"]), &mut |c| {
        run_with_stdin(c, &sums)
    });
    for mode in MODES {
        same(
            d,
            "xxhsum",
            &["--mode", mode],
            &words(&["-c", "SUMS"]),
            &mut |c| run(c),
        );
    }
    let _ = names;
}

#[test]
fn help_and_version_go_to_stderr() {
    let dir = tempdir();
    for args in [&["-h"][..], &["--help"], &["-V"]] {
        let o = run(multicall(dir.path(), "xxhsum").args(args));
        assert_eq!(o.status.code(), Some(0), "{args:?}: {}", shown(&o));
        assert!(o.stdout.is_empty(), "{args:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.starts_with("xxhsum (fastsum "), "{err}");
    }
}
