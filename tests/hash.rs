//! Hash mode against the oracles: GNU coreutils' md5sum and sha*sum for the
//! algorithms they have, the blake3 crate (and b3sum when installed) for
//! BLAKE3. Every algorithm in every reading mode, over the sizes where block
//! and padding boundaries fall, odd `--chunk`/`--readahead`/`--pool` values,
//! `-j`, standard input, the output formats and awkward file names; stdout
//! and exit status must be byte-identical.

use std::path::Path;
use std::process::{Command, Output};

use crate::util::{
    GNU_TOOLS, MODES, assert_outputs_same, fastsum, gnu, os, random_bytes, require_tool, run,
    run_with_stdin, tempdir, write_file,
};

/// Sizes around the 64-byte (MD5, SHA-1, SHA-256) and 128-byte blocks, the
/// 55/56-byte padding limit, and 4 KiB / 64 KiB buffer sizes.
const BOUNDARY_SIZES: [usize; 13] = [
    0, 1, 55, 56, 63, 64, 65, 4095, 4096, 4097, 65535, 65536, 65537,
];

/// A few MiB, not a multiple of any block or buffer size.
const BIG: usize = 2 * 1024 * 1024 + 17;
/// Bytewise feeds the hash one byte per call: slow in a debug build, so it
/// gets a smaller (still multi-buffer) file.
const MID: usize = 300_001;

/// Write one random file per size into `dir`, named `size-N`; return the names.
fn files_of_sizes(dir: &Path, sizes: &[usize]) -> Vec<String> {
    sizes
        .iter()
        .map(|&n| {
            let name = format!("size-{n}");
            write_file(dir, &name, &random_bytes(n, n as u64));
            name
        })
        .collect()
}

/// fastsum in `dir` with `args`.
fn ours(dir: &Path, args: &[&str]) -> Output {
    run(fastsum().current_dir(dir).args(args))
}

/// A GNU tool in `dir` with `args`; it must succeed (it is the oracle).
fn theirs(tool: &str, dir: &Path, args: &[&str]) -> Output {
    let o = run(gnu(tool).current_dir(dir).args(args));
    assert!(o.status.success(), "{tool} {args:?} failed: {o:?}");
    o
}

/// What b3sum prints for plain names (no escaping needed), from the blake3 crate.
fn blake3_lines(dir: &Path, names: &[&str]) -> Vec<u8> {
    let mut out = Vec::new();
    for name in names {
        let data = std::fs::read(dir.join(name)).expect("read test file");
        out.extend_from_slice(format!("{}  {name}\n", blake3::hash(&data).to_hex()).as_bytes());
    }
    out
}

/// Assert a fastsum run printed exactly `want` on stdout, nothing on stderr, exit 0.
fn assert_prints(what: &str, got: &Output, want: &[u8]) {
    assert_eq!(
        String::from_utf8_lossy(&got.stdout),
        String::from_utf8_lossy(want),
        "{what}: stdout differs"
    );
    assert_eq!(got.stdout, want, "{what}: stdout bytes differ");
    assert_eq!(
        String::from_utf8_lossy(&got.stderr),
        "",
        "{what}: unexpected stderr"
    );
    assert_eq!(got.status.code(), Some(0), "{what}: exit status");
}

fn strs(names: &[String]) -> Vec<&str> {
    names.iter().map(String::as_str).collect()
}

#[test]
fn boundary_sizes_match_gnu_in_every_algorithm_and_mode() {
    let dir = tempdir();
    let names = files_of_sizes(dir.path(), &BOUNDARY_SIZES);
    let names = strs(&names);
    for (algo, tool) in GNU_TOOLS {
        let want = theirs(tool, dir.path(), &names);
        for mode in MODES {
            let mut args = vec!["-a", algo, "-m", mode];
            args.extend(&names);
            let got = ours(dir.path(), &args);
            assert_outputs_same(&format!("{algo} {mode}"), &got, &want, "fastsum", tool);
        }
    }
}

#[test]
fn blake3_boundary_sizes_match_the_crate_in_every_mode() {
    let dir = tempdir();
    let names = files_of_sizes(dir.path(), &BOUNDARY_SIZES);
    let names = strs(&names);
    let want = blake3_lines(dir.path(), &names);
    for mode in MODES {
        let mut args = vec!["-a", "blake3", "-m", mode];
        args.extend(&names);
        assert_prints(&format!("blake3 {mode}"), &ours(dir.path(), &args), &want);
    }
}

/// The crate-made expectation is itself checked against b3sum when installed.
#[test]
fn blake3_oracle_agrees_with_b3sum() {
    if !require_tool("b3sum") {
        return;
    }
    let dir = tempdir();
    let names = files_of_sizes(dir.path(), &[0, 1, 1025, 65537, MID]);
    let names = strs(&names);
    let b3 = run(Command::new("b3sum").current_dir(dir.path()).args(&names));
    assert_prints("b3sum", &b3, &blake3_lines(dir.path(), &names));
    let mut args = vec!["-a", "blake3"];
    args.extend(&names);
    assert_prints("fastsum vs b3sum", &ours(dir.path(), &args), &b3.stdout);
}

#[test]
fn megabyte_files_match_every_algorithm_and_mode() {
    let dir = tempdir();
    write_file(dir.path(), "big", &random_bytes(BIG, 1));
    write_file(dir.path(), "mid", &random_bytes(MID, 2));
    let both: &[&str] = &["big", "mid"];
    let files_for = |mode| if mode == "bytewise" { &both[1..] } else { both };
    for (algo, tool) in GNU_TOOLS {
        for mode in MODES {
            let files = files_for(mode);
            let want = theirs(tool, dir.path(), files);
            let mut args = vec!["-a", algo, "-m", mode];
            args.extend(files);
            let got = ours(dir.path(), &args);
            assert_outputs_same(&format!("{algo} {mode}"), &got, &want, "fastsum", tool);
        }
    }
    for mode in MODES {
        let files = files_for(mode);
        let mut args = vec!["-a", "blake3", "-m", mode];
        args.extend(files);
        let want = blake3_lines(dir.path(), files);
        assert_prints(&format!("blake3 {mode}"), &ours(dir.path(), &args), &want);
    }
}

/// Odd sizes make blocks, chunks and reads straddle every boundary; a pool
/// of one block makes reader and hasher take turns.
#[test]
fn odd_chunk_readahead_and_pool_sizes_match_gnu() {
    const ODD: [&str; 5] = ["1", "7", "16", "4097", "1M"];
    let dir = tempdir();
    let names = files_of_sizes(dir.path(), &[0, 1, 4097, 70_001]);
    let names = strs(&names);
    let want_all = theirs("md5sum", dir.path(), &names);
    // one-byte blocks cost a channel round trip per byte: keep those inputs small
    let small = &names[..3];
    let want_small = theirs("md5sum", dir.path(), small);
    for chunk in ODD {
        for mode in ["sync", "bytewise"] {
            let mut args = vec!["-m", mode, "--chunk", chunk, "--readahead", chunk];
            args.extend(&names);
            let got = ours(dir.path(), &args);
            let what = format!("{mode} --chunk {chunk}");
            assert_outputs_same(&what, &got, &want_all, "fastsum", "md5sum");
        }
        for readahead in ODD {
            for pool in ["1", "4"] {
                let (files, want) = if readahead.len() == 1 {
                    (small, &want_small)
                } else {
                    (&names[..], &want_all)
                };
                let mut args = vec![
                    "-m",
                    "threaded",
                    "--chunk",
                    chunk,
                    "--readahead",
                    readahead,
                    "--pool",
                    pool,
                ];
                args.extend(files);
                let got = ours(dir.path(), &args);
                let what = format!("--chunk {chunk} --readahead {readahead} --pool {pool}");
                assert_outputs_same(&what, &got, want, "fastsum", "md5sum");
            }
        }
    }
}

/// Many files of mixed sizes, some missing, through one and four workers:
/// the output follows the argument order and errors land where GNU's do.
#[test]
fn many_files_with_one_and_four_jobs_match_gnu() {
    let dir = tempdir();
    let mut names = Vec::new();
    for i in 0..120u64 {
        // mostly small, every fifth one past the 64 KiB buffers
        let size = (random_bytes(1, i)[0] as usize) * 37 + usize::from(i % 5 == 0) * 65536;
        let name = format!("f{i:03}");
        write_file(dir.path(), &name, &random_bytes(size, i + 100));
        names.push(name);
    }
    names.insert(7, "missing-one".to_string());
    names.insert(60, "missing-two".to_string());
    names.push("missing-last".to_string());
    let names = strs(&names);
    for (algo, tool) in [("md5", "md5sum"), ("sha256", "sha256sum")] {
        let want = run(gnu(tool).current_dir(dir.path()).args(&names));
        assert_eq!(want.status.code(), Some(1), "{tool} exit status");
        for mode in MODES {
            if mode == "bytewise" && algo != "md5" {
                continue; // slow in debug builds, and the algorithm is not the point here
            }
            for jobs in ["1", "4"] {
                let mut args = vec!["-a", algo, "-m", mode, "-j", jobs];
                args.extend(&names);
                let got = ours(dir.path(), &args);
                let what = format!("{algo} {mode} -j {jobs}");
                assert_outputs_same(&what, &got, &want, "fastsum", tool);
            }
        }
    }
}

/// Standard input through a pipe: with no FILE, as `-`, between files, and
/// named twice, also as /dev/stdin (the second read finds the stream already
/// exhausted, as GNU's does: two workers must not share it).
#[test]
fn stdin_through_a_pipe_matches_gnu() {
    let dir = tempdir();
    write_file(dir.path(), "a", b"first file\n");
    write_file(dir.path(), "b", &random_bytes(70_001, 3));
    let big = random_bytes(BIG, 4);
    let mid = random_bytes(MID, 5);
    // /dev/stdin opens the same pipe anew: a second reader of one stream
    let cases: [&[&str]; 7] = [
        &[],
        &["-"],
        &["a", "-", "b"],
        &["-", "-"],
        &["-", "a", "-"],
        &["-", "/dev/stdin"],
        &["/dev/stdin", "b", "/dev/stdin"],
    ];
    for args in cases {
        for mode in MODES {
            let data = if mode == "bytewise" { &mid } else { &big };
            let want = run_with_stdin(gnu("md5sum").current_dir(dir.path()).args(args), data);
            assert!(want.status.success(), "md5sum {args:?}");
            for jobs in ["1", "4"] {
                let got = run_with_stdin(
                    fastsum()
                        .current_dir(dir.path())
                        .args(["-m", mode, "-j", jobs])
                        .args(args),
                    data,
                );
                let what = format!("{mode} -j {jobs} {args:?}");
                assert_outputs_same(&what, &got, &want, "fastsum", "md5sum");
            }
        }
    }
}

/// Standard input redirected from a regular file (`fastsum < f`).
#[test]
fn stdin_from_a_file_matches_gnu() {
    let dir = tempdir();
    let path = write_file(dir.path(), "in", &random_bytes(MID, 6));
    let open = || std::fs::File::open(&path).expect("open input");
    let want = run(gnu("sha1sum").arg("-").stdin(open()));
    for mode in MODES {
        let got = run(fastsum()
            .args(["-a", "sha1", "-m", mode, "-"])
            .stdin(open()));
        assert_outputs_same(mode, &got, &want, "fastsum", "sha1sum");
    }
}

/// Every output format combination GNU accepts, in every algorithm: `--tag`
/// carries the algorithm's name, so each one is checked.
#[test]
fn output_formats_match_gnu() {
    let formats: [&[&str]; 15] = [
        &[],
        &["-b"],
        &["--binary"],
        &["-t"],
        &["--text"],
        &["-b", "-t"],
        &["-t", "-b"],
        &["--tag"],
        &["--tag", "-b"],
        &["-z"],
        &["--zero"],
        &["-z", "-b"],
        &["-z", "--tag"],
        &["-z", "-t"],
        &["--tag", "-z", "-b"],
    ];
    let dir = tempdir();
    write_file(dir.path(), "plain", b"some text\n");
    write_file(dir.path(), "with space", &random_bytes(1000, 7));
    let files = ["plain", "with space", "plain"];
    for (algo, tool) in GNU_TOOLS {
        for format in formats {
            let want = theirs(tool, dir.path(), &[format, &files].concat());
            let got = ours(dir.path(), &[&["-a", algo], format, &files].concat());
            let what = format!("{algo} {format:?}");
            assert_outputs_same(&what, &got, &want, "fastsum", tool);
        }
    }
}

/// BLAKE3 in the formats (no GNU tool: lines built from the crate's digest).
#[test]
fn blake3_output_formats() {
    let dir = tempdir();
    write_file(dir.path(), "f", b"blake3 input");
    let hex = blake3::hash(b"blake3 input").to_hex();
    let cases: [(&[&str], String); 5] = [
        (&[], format!("{hex}  f\n")),
        (&["-b"], format!("{hex} *f\n")),
        (&["--tag"], format!("BLAKE3 (f) = {hex}\n")),
        (&["-z"], format!("{hex}  f\0")),
        (&["-z", "--tag"], format!("BLAKE3 (f) = {hex}\0")),
    ];
    for (format, want) in cases {
        let got = ours(dir.path(), &[&["-a", "blake3"], format, &["f"]].concat());
        assert_prints(&format!("blake3 {format:?}"), &got, want.as_bytes());
    }
}

/// Names GNU escapes (backslash, newline, CR), names it does not (space,
/// leading dash, non-UTF-8 bytes), in every format that treats them
/// differently: each line byte-for-byte as GNU writes it.
#[test]
fn awkward_file_names_match_gnu() {
    let names: [&[u8]; 12] = [
        b"with space",
        b"new\nline",
        b"back\\slash",
        b"carriage\rreturn",
        b"-leading-dash",
        b"--double-dash",
        b"non-utf8-\xff\xfe",
        b"latin1-\xe9t\xe9",
        "utf8-\u{e9}t\u{e9}".as_bytes(),
        b"all \\ \n \r at once\\",
        b"\n",
        b"tab\there",
    ];
    let formats: [&[&str]; 6] = [
        &[],
        &["-b"],
        &["-z"],
        &["--tag"],
        &["-z", "--tag"],
        &["--tag", "-b"],
    ];
    let dir = tempdir();
    for (i, name) in names.iter().enumerate() {
        write_file(dir.path(), os(name), &random_bytes(i * 100, i as u64));
    }
    for (algo, tool) in [("md5", "md5sum"), ("sha256", "sha256sum")] {
        for format in formats {
            for mode in ["threaded", "sync"] {
                let mut ours_cmd = fastsum();
                ours_cmd
                    .current_dir(dir.path())
                    .args(["-a", algo, "-m", mode]);
                let mut gnu_cmd = gnu(tool);
                gnu_cmd.current_dir(dir.path());
                for cmd in [&mut ours_cmd, &mut gnu_cmd] {
                    cmd.args(format).arg("--").args(names.iter().map(|n| os(n)));
                }
                let want = run(&mut gnu_cmd);
                assert!(want.status.success(), "{tool} {format:?}");
                let got = run(&mut ours_cmd);
                let what = format!("{algo} {mode} {format:?}");
                assert_outputs_same(&what, &got, &want, "fastsum", tool);
            }
        }
    }
}
