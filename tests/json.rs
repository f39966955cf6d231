//! `--json`: one object per digest (path, algorithm, digest, size), per
//! checked line (path, status, algorithm) and per failed input (path,
//! error), in the order the text lines come; digests as md5sum/sha256sum
//! print them, sizes as the files have them, non-UTF-8 names exact in
//! path_bytes; in every mode, from stdin, with -r, under an injected read
//! error; and refused with the options that shape checksum lines.

use std::os::unix::ffi::OsStrExt;

use serde_json::Value;

use crate::util::{
    MODES, fastsum, gnu, os, random_bytes, require_strace, require_tool, run, run_with_stdin,
    shown, tempdir, write_file,
};

fn objects(stdout: &[u8]) -> Vec<Value> {
    stdout
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).unwrap_or_else(|e| panic!("{e}: {l:?}")))
        .collect()
}

/// The name an object gives: path_bytes when present, else path.
fn name_of(v: &Value) -> Vec<u8> {
    match v.get("path_bytes") {
        Some(bytes) => bytes
            .as_array()
            .unwrap()
            .iter()
            .map(|b| u8::try_from(b.as_u64().unwrap()).unwrap())
            .collect(),
        None => v["path"].as_str().unwrap().as_bytes().to_vec(),
    }
}

#[test]
fn digests_and_sizes_match_the_gnu_tools_in_every_mode() {
    if !require_tool("md5sum") || !require_tool("sha256sum") {
        return;
    }
    let dir = tempdir();
    let d = dir.path();
    let names: [&[u8]; 5] = [
        b"plain",
        b"new\nline",
        b"back\\slash",
        b"bad\xffname",
        b"quo\"te",
    ];
    let sizes = [0usize, 1, 4097, 1 << 20, 70_001];
    for (i, (name, size)) in names.iter().zip(sizes).enumerate() {
        write_file(d, os(name), &random_bytes(size, i as u64));
    }
    for mode in MODES {
        for jobs in ["1", "3"] {
            let o = run(fastsum()
                .current_dir(d)
                .args(["--json", "-a", "md5,sha256", "-m", mode, "-j", jobs])
                .args(names.iter().map(|n| os(n))));
            assert_eq!(o.status.code(), Some(0), "{mode}: {}", shown(&o));
            let got = objects(&o.stdout);
            assert_eq!(got.len(), 2 * names.len(), "{mode}");
            for (k, v) in got.iter().enumerate() {
                let (name, algo) = (names[k / 2], ["md5", "sha256"][k % 2]);
                assert_eq!(name_of(v), name, "{mode} {k}");
                assert_eq!(v["algorithm"], algo, "{mode} {k}");
                let keys: Vec<&str> = v.as_object().unwrap().keys().map(|k| k.as_str()).collect();
                let want_keys: &[&str] = if std::str::from_utf8(name).is_ok() {
                    &["path", "algorithm", "digest", "size"]
                } else {
                    &["path", "path_bytes", "algorithm", "digest", "size"]
                };
                assert_eq!(keys, want_keys, "{mode} {k}");
                assert_eq!(v["size"], sizes[k / 2] as u64, "{mode} {k}");
                // the oracle hashes the file from stdin: its line is `HEX  -`
                let data = std::fs::read(d.join(os(name))).unwrap();
                let theirs = run_with_stdin(&mut gnu(&format!("{algo}sum")), &data);
                let hex = String::from_utf8(theirs.stdout).unwrap();
                assert_eq!(v["digest"], hex.split(' ').next().unwrap(), "{mode} {k}");
            }
        }
    }
}

#[test]
fn stdin_and_trees_come_in_the_text_lines_order() {
    let dir = tempdir();
    let d = dir.path();
    std::fs::create_dir_all(d.join("t/sub")).unwrap();
    write_file(d, "t/b", b"bb");
    write_file(d, "t/sub/a", b"a");
    write_file(d, "t/a b", b"");
    let o = run_with_stdin(
        fastsum().current_dir(d).args(["--json", "-r", "t", "-"]),
        b"from stdin",
    );
    assert_eq!(o.status.code(), Some(0), "{}", shown(&o));
    let text = run_with_stdin(
        fastsum().current_dir(d).args(["-r", "t", "-"]),
        b"from stdin",
    );
    let lines: Vec<String> = String::from_utf8(text.stdout)
        .unwrap()
        .lines()
        .map(String::from)
        .collect();
    let got = objects(&o.stdout);
    assert_eq!(got.len(), lines.len());
    for (v, line) in got.iter().zip(&lines) {
        let (hex, name) = line.split_once("  ").unwrap();
        assert_eq!(
            (v["digest"].as_str().unwrap(), v["path"].as_str().unwrap()),
            (hex, name)
        );
    }
    assert_eq!(got.last().unwrap()["size"], 10);
}

#[test]
fn a_failed_input_is_an_object_and_a_message() {
    let dir = tempdir();
    let d = dir.path();
    write_file(d, "ok", b"x");
    let o = run(fastsum()
        .current_dir(d)
        .args(["--json", "nosuch", "ok", "."]));
    assert_eq!(o.status.code(), Some(1), "{}", shown(&o));
    let got = objects(&o.stdout);
    assert_eq!(
        got[0],
        serde_json::json!({"path": "nosuch", "error": "No such file or directory"})
    );
    assert_eq!(got[1]["path"], "ok");
    assert_eq!(
        got[2],
        serde_json::json!({"path": ".", "error": "Is a directory"})
    );
    assert_eq!(
        String::from_utf8_lossy(&o.stderr),
        "fastsum: nosuch: No such file or directory\nfastsum: .: Is a directory\n"
    );
}

#[test]
fn a_read_error_mid_file_gives_no_digest() {
    if !require_strace() {
        return;
    }
    let dir = tempdir();
    let d = dir.path();
    let big = write_file(d, "big", &random_bytes(3 << 20, 7));
    write_file(d, "after", b"after");
    for mode in ["threaded", "sync", "bytewise"] {
        // the second read of `big` fails
        let o = run(std::process::Command::new("strace")
            .current_dir(d)
            .args(["-f", "-qq", "-o", "/dev/null", "-e", "trace=read", "-P"])
            .arg(&big)
            .args(["-e", "inject=read:error=EIO:when=2"])
            .arg(crate::util::fastsum_path())
            .args(["--json", "-m", mode, "--chunk", "64K", "--readahead", "64K"])
            .args(["big", "after"]));
        assert_eq!(o.status.code(), Some(1), "{mode}: {}", shown(&o));
        let got = objects(&o.stdout);
        assert_eq!(got.len(), 2, "{mode}: {}", shown(&o));
        assert_eq!(
            got[0],
            serde_json::json!({"path": "big", "error": "Input/output error"})
        );
        assert_eq!(got[1]["path"], "after", "{mode}");
        assert_eq!(got[1]["size"], 5, "{mode}");
    }
}

#[test]
fn check_mode_objects_carry_each_status() {
    let dir = tempdir();
    let d = dir.path();
    write_file(d, "good", b"g");
    write_file(d, "bad", b"b");
    std::fs::create_dir(d.join("adir")).unwrap();
    let o = run(fastsum().current_dir(d).args(["good", "bad"]));
    let mut sums = o.stdout.clone();
    sums.extend_from_slice(b"00000000000000000000000000000000  gone\n");
    sums.extend_from_slice(b"00000000000000000000000000000000  adir\n");
    std::fs::write(d.join("SUMS"), &sums).unwrap();
    write_file(d, "bad", b"changed");
    for mode in MODES {
        let o = run(fastsum()
            .current_dir(d)
            .args(["-c", "SUMS", "--json", "-m", mode]));
        assert_eq!(o.status.code(), Some(1), "{mode}: {}", shown(&o));
        let got: Vec<(String, String)> = objects(&o.stdout)
            .iter()
            .map(|v| {
                assert_eq!(v["algorithm"], "md5");
                let status = v["status"].as_str().unwrap().to_string();
                assert_eq!(
                    v.get("error").is_some(),
                    status == "MISSING" || status == "UNREADABLE"
                );
                (name_of(v).iter().map(|&b| b as char).collect(), status)
            })
            .collect();
        let want = [
            ("good", "OK"),
            ("bad", "FAILED"),
            ("gone", "MISSING"),
            ("adir", "UNREADABLE"),
        ];
        let want: Vec<(String, String)> = want
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect();
        assert_eq!(got, want, "{mode}");
    }
    // --quiet drops OK; --status everything
    let o = run(fastsum()
        .current_dir(d)
        .args(["-c", "SUMS", "--json", "--quiet"]));
    assert_eq!(objects(&o.stdout).len(), 3);
    let o = run(fastsum()
        .current_dir(d)
        .args(["-c", "SUMS", "--json", "--status"]));
    assert!(o.stdout.is_empty(), "{}", shown(&o));
}

#[test]
fn options_that_shape_lines_are_refused() {
    for flag in ["--tag", "--zero", "--binary", "--text"] {
        let o = run(fastsum().args(["--json", flag, "x"]));
        assert_eq!(o.status.code(), Some(2), "{flag}: {}", shown(&o));
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.contains(&format!("the {flag} option is meaningless with --json")),
            "{err}"
        );
    }
    let o = run(fastsum().args(["--json", "-r", "--tree-digest", "."]));
    assert_eq!(o.status.code(), Some(2), "{}", shown(&o));
    let o = run(fastsum().args(["--json", "--update", "S", "."]));
    assert_eq!(o.status.code(), Some(2), "{}", shown(&o));
    // the name is the argument's bytes, whatever the locale
    let o = run(fastsum().arg("--json").arg(os(b"\xff")).env("LC_ALL", "C"));
    let v = &objects(&o.stdout)[0];
    assert_eq!(name_of(v), b"\xff");
    assert_eq!(os(&name_of(v)).as_bytes(), b"\xff");
}
