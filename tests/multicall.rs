//! Multi-call: fastsum run through a symlink named md5sum, sha1sum, …,
//! sha512sum or b3sum defaults to that algorithm, prefixes its messages with
//! that name, and prints what that tool prints.

use std::process::Command;

use crate::util::{
    GNU_TOOLS, MODES, assert_outputs_same, cmd_exists, gnu, multicall, os, random_bytes, run,
    run_with_stdin, tempdir, write_file,
};

/// Under each GNU name, with no `-a`: files of several sizes, a name GNU
/// escapes, a missing file and a directory, in each format. Both programs
/// carry the same name, so stderr must match byte for byte too.
#[test]
fn gnu_names_act_as_the_gnu_tools() {
    let dir = tempdir();
    write_file(dir.path(), "empty", b"");
    write_file(dir.path(), "small", b"abc");
    write_file(dir.path(), "big", &random_bytes(200_003, 1));
    write_file(dir.path(), os(b"back\\slash\nnew"), b"escaped\n");
    std::fs::create_dir(dir.path().join("dir")).expect("mkdir");
    let files = [
        os(b"empty"),
        os(b"small"),
        os(b"nosuch"),
        os(b"big"),
        os(b"back\\slash\nnew"),
        os(b"dir"),
    ];
    let formats: [&[&str]; 4] = [&[], &["--tag"], &["-z"], &["-b"]];
    for (_, tool) in GNU_TOOLS {
        for format in formats {
            let want = run(gnu(tool).current_dir(dir.path()).args(format).args(files));
            assert_eq!(want.status.code(), Some(1), "{tool} {format:?}");
            for mode in ["threaded", "sync"] {
                let got = run(multicall(dir.path(), tool)
                    .current_dir(dir.path())
                    .args(["-m", mode])
                    .args(format)
                    .args(files));
                let what = format!("{tool} {mode} {format:?}");
                assert_outputs_same(&what, &got, &want, tool, tool);
                let prefix = format!("{tool}: nosuch: ");
                assert!(got.stderr.starts_with(prefix.as_bytes()), "{what}");
            }
        }
    }
}

/// Standard input under a GNU name, in every mode.
#[test]
fn gnu_names_hash_stdin() {
    let dir = tempdir();
    let data = random_bytes(100_001, 2);
    for (_, tool) in GNU_TOOLS {
        let want = run_with_stdin(&mut gnu(tool), &data);
        for mode in MODES {
            let got = run_with_stdin(multicall(dir.path(), tool).args(["-m", mode]), &data);
            assert_outputs_same(&format!("{tool} {mode}"), &got, &want, tool, tool);
        }
    }
}

/// Under the b3sum name: BLAKE3 by default, lines as b3sum prints them (the
/// installed b3sum when there is one, else lines from the blake3 crate), and
/// messages prefixed `b3sum: `.
#[test]
fn b3sum_name_acts_as_b3sum() {
    let dir = tempdir();
    let big = random_bytes(300_007, 3);
    write_file(dir.path(), "small", b"abc");
    write_file(dir.path(), "big", &big);
    let files = ["small", "big"];
    let want = if cmd_exists("b3sum") {
        run(Command::new("b3sum").current_dir(dir.path()).args(files)).stdout
    } else {
        eprintln!("b3sum is not installed: comparing with the blake3 crate only");
        format!(
            "{}  small\n{}  big\n",
            blake3::hash(b"abc").to_hex(),
            blake3::hash(&big).to_hex()
        )
        .into_bytes()
    };
    for mode in MODES {
        let got = run(multicall(dir.path(), "b3sum")
            .current_dir(dir.path())
            .args(["-m", mode])
            .args(files));
        assert_eq!(
            String::from_utf8_lossy(&got.stdout),
            String::from_utf8_lossy(&want),
            "{mode}"
        );
        assert_eq!(got.status.code(), Some(0), "{mode}");
    }
    let got = run(multicall(dir.path(), "b3sum")
        .current_dir(dir.path())
        .args(["small", "nosuch"]));
    assert_eq!(
        String::from_utf8_lossy(&got.stdout),
        format!("{}  small\n", blake3::hash(b"abc").to_hex())
    );
    assert_eq!(
        String::from_utf8_lossy(&got.stderr),
        "b3sum: nosuch: No such file or directory\n"
    );
    assert_eq!(got.status.code(), Some(1));
}

/// Any other name (a renamed copy, a symlink called `hasher`) is fastsum
/// itself: MD5 by default, messages prefixed `fastsum: `.
#[test]
fn other_names_act_as_fastsum() {
    let dir = tempdir();
    write_file(dir.path(), "f", b"abc");
    let got = run(multicall(dir.path(), "hasher")
        .current_dir(dir.path())
        .args(["f", "nosuch"]));
    let want = run(gnu("md5sum").current_dir(dir.path()).arg("f"));
    assert_eq!(
        String::from_utf8_lossy(&got.stdout),
        String::from_utf8_lossy(&want.stdout)
    );
    assert_eq!(
        String::from_utf8_lossy(&got.stderr),
        "fastsum: nosuch: No such file or directory\n"
    );
    assert_eq!(got.status.code(), Some(1));
}
