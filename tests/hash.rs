//! Hash mode against the oracles: GNU coreutils' md5sum and sha*sum for the
//! algorithms they have, the blake3 crate (and b3sum when installed) for
//! BLAKE3. Every algorithm in every reading mode, over the sizes where block
//! and padding boundaries fall, odd `--chunk`/`--readahead`/`--pool` values,
//! `-j`, standard input, the output formats and awkward file names; stdout
//! and exit status must be byte-identical.

use std::ffi::OsStr;
use std::process::Output;

use fastsum::internals::Algorithm;

use crate::util::{
    MODES, Pair, assert_output, blake3_lines, fastsum, files_of_sizes, gnu_algorithms,
    modes_and_jobs, os, random_bytes, run, run_with_stdin, tempdir, write_file,
};

/// Sizes around the 64-byte (MD5, SHA-1, SHA-256) and 128-byte blocks, the
/// 55/56-byte padding limit, and 4 KiB / 64 KiB buffer sizes (the last
/// ones at mmap mode's mapping threshold).
const BOUNDARY_SIZES: [usize; 13] = [
    0, 1, 55, 56, 63, 64, 65, 4095, 4096, 4097, 65535, 65536, 65537,
];

/// A few MiB, not a multiple of any block or buffer size.
const BIG: usize = 2 * 1024 * 1024 + 17;
/// Bytewise feeds the hash one byte per call: slow in a debug build, so it
/// gets a smaller (still multi-buffer) file.
const MID: usize = 300_001;

/// Assert a fastsum run printed exactly `want` on stdout, nothing on stderr, exit 0.
fn assert_prints(what: &str, got: &Output, want: &[u8]) {
    assert_output(what, got, want, "", 0);
}

#[test]
fn boundary_sizes_match_gnu_in_every_algorithm_and_mode() {
    let dir = tempdir();
    let names = files_of_sizes(dir.path(), &BOUNDARY_SIZES, 0);
    for algo in gnu_algorithms() {
        let Some(pair) = Pair::new(dir.path(), algo) else {
            continue;
        };
        let want = pair.assert_same_in_every_mode(&names, run);
        assert!(want.status.success(), "{}: {want:?}", pair.tool());
    }
}

#[test]
fn blake3_boundary_sizes_match_the_crate_in_every_mode() {
    let dir = tempdir();
    let names = files_of_sizes(dir.path(), &BOUNDARY_SIZES, 0);
    let want = blake3_lines(dir.path(), &names);
    for mode in MODES {
        let got = run(fastsum()
            .current_dir(dir.path())
            .args(["-a", "blake3", "--untagged", "-m", mode])
            .args(&names));
        assert_prints(&format!("blake3 {mode}"), &got, &want);
    }
}

/// The crate-made expectation is itself checked against b3sum when installed.
#[test]
fn blake3_oracle_agrees_with_b3sum() {
    let dir = tempdir();
    let names = files_of_sizes(dir.path(), &[0, 1, 1025, 65537, MID], 0);
    let Some(pair) = Pair::new(dir.path(), Algorithm::Blake3) else {
        return;
    };
    let b3 = run(pair.theirs().args(&names));
    assert_prints("b3sum", &b3, &blake3_lines(dir.path(), &names));
    assert_prints(
        "fastsum vs b3sum",
        &run(pair.ours(&[]).args(&names)),
        &b3.stdout,
    );
}

#[test]
fn megabyte_files_match_every_algorithm_and_mode() {
    let dir = tempdir();
    write_file(dir.path(), "big", &random_bytes(BIG, 1));
    write_file(dir.path(), "mid", &random_bytes(MID, 2));
    let both = ["big", "mid"];
    let fast_modes = MODES
        .iter()
        .filter(|&&m| m != "bytewise")
        .map(|&m| ["-m", m]);
    for algo in gnu_algorithms() {
        let Some(pair) = Pair::new(dir.path(), algo) else {
            continue;
        };
        pair.assert_same_under(fast_modes.clone(), &both, run);
        pair.assert_same_under([["-m", "bytewise"]], &["mid"], run);
    }
    for mode in MODES {
        let files = if mode == "bytewise" {
            &both[1..]
        } else {
            &both
        };
        let got = run(fastsum()
            .current_dir(dir.path())
            .args(["-a", "blake3", "--untagged", "-m", mode])
            .args(files));
        let want = blake3_lines(dir.path(), files);
        assert_prints(&format!("blake3 {mode}"), &got, &want);
    }
}

/// Odd sizes make blocks, chunks and reads straddle every boundary; a pool
/// of one block makes reader and hasher take turns.
#[test]
fn odd_chunk_readahead_and_pool_sizes_match_gnu() {
    const ODD: [&str; 5] = ["1", "7", "16", "4097", "1M"];
    let dir = tempdir();
    let Some(md5) = Pair::new(dir.path(), Algorithm::Md5) else {
        return;
    };
    let names = files_of_sizes(dir.path(), &[0, 1, 4097, 70_001], 0);
    let want_all = run(md5.theirs().args(&names));
    // one-byte blocks cost a channel round trip per byte: keep those inputs small
    let small = &names[..3];
    let want_small = run(md5.theirs().args(small));
    for chunk in ODD {
        // mmap mode reads its inputs below the mapping threshold in chunks
        for mode in ["sync", "bytewise", "mmap"] {
            let got = run(md5
                .ours(&["-m", mode, "--chunk", chunk, "--readahead", chunk])
                .args(&names));
            md5.assert_matches(&format!("{mode} --chunk {chunk}"), &got, &want_all);
        }
        for readahead in ODD {
            for pool in ["1", "4"] {
                let (files, want) = if readahead.len() == 1 {
                    (small, &want_small)
                } else {
                    (&names[..], &want_all)
                };
                let opts = [
                    "-m",
                    "threaded",
                    "--chunk",
                    chunk,
                    "--readahead",
                    readahead,
                    "--pool",
                    pool,
                ];
                let got = run(md5.ours(&opts).args(files));
                let what = format!("--chunk {chunk} --readahead {readahead} --pool {pool}");
                md5.assert_matches(&what, &got, want);
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
    let all_modes = modes_and_jobs(&MODES, &["1", "4"]);
    // bytewise is slow in debug builds, and the algorithm is not the point here
    let fast_modes = modes_and_jobs(&["threaded", "sync", "mmap"], &["1", "4"]);
    for (algo, opt_sets) in [(Algorithm::Md5, all_modes), (Algorithm::Sha256, fast_modes)] {
        let Some(pair) = Pair::new(dir.path(), algo) else {
            continue;
        };
        let want = pair.assert_same_under(opt_sets, &names, run);
        assert_eq!(want.status.code(), Some(1), "{} exit status", pair.tool());
    }
}

/// Standard input through a pipe: with no FILE, as `-`, between files, and
/// named twice, also as /dev/stdin (the second read finds the stream already
/// exhausted, as GNU's does: two workers must not share it).
#[test]
fn stdin_through_a_pipe_matches_gnu() {
    let dir = tempdir();
    let Some(md5) = Pair::new(dir.path(), Algorithm::Md5) else {
        return;
    };
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
            let opts = modes_and_jobs(&[mode], &["1", "4"]);
            let want = md5.assert_same_under(opts, args, |c| run_with_stdin(c, data));
            assert!(want.status.success(), "md5sum {args:?}");
        }
    }
}

/// Standard input redirected from a regular file (`fastsum < f`).
#[test]
fn stdin_from_a_file_matches_gnu() {
    let dir = tempdir();
    let Some(sha1) = Pair::new(dir.path(), Algorithm::Sha1) else {
        return;
    };
    let path = write_file(dir.path(), "in", &random_bytes(MID, 6));
    let open = || std::fs::File::open(&path).expect("open input");
    sha1.assert_same_in_every_mode(&["-"], |c| run(c.stdin(open())));
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
    for algo in gnu_algorithms() {
        let Some(pair) = Pair::new(dir.path(), algo) else {
            continue;
        };
        for format in formats {
            let want = pair.assert_same(&[format, &files].concat());
            assert!(want.status.success(), "{} {format:?}", pair.tool());
        }
    }
}

/// BLAKE3 in the formats (no GNU tool: lines built from the crate's digest).
#[test]
fn blake3_output_formats() {
    let dir = tempdir();
    write_file(dir.path(), "f", b"blake3 input");
    let hex = blake3::hash(b"blake3 input").to_hex();
    // (fastsum's own name tags BLAKE3's lines unless --untagged, -b or -t:
    // its 64 hex digits would be SHA-256's to `-c`)
    let cases: [(&[&str], String); 7] = [
        (&[], format!("BLAKE3 (f) = {hex}\n")),
        (&["--untagged"], format!("{hex}  f\n")),
        (&["-b"], format!("{hex} *f\n")),
        (&["--tag"], format!("BLAKE3 (f) = {hex}\n")),
        (&["-z"], format!("BLAKE3 (f) = {hex}\0")),
        (&["-z", "--untagged"], format!("{hex}  f\0")),
        (&["-z", "--tag"], format!("BLAKE3 (f) = {hex}\0")),
    ];
    for (format, want) in cases {
        let got = run(fastsum()
            .current_dir(dir.path())
            .args(["-a", "blake3"])
            .args(format)
            .arg("f"));
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
    for algo in [Algorithm::Md5, Algorithm::Sha256] {
        let Some(pair) = Pair::new(dir.path(), algo) else {
            continue;
        };
        for format in formats {
            let mut args: Vec<&OsStr> = format.iter().map(OsStr::new).collect();
            args.push(OsStr::new("--"));
            args.extend(names.iter().map(|n| os(n)));
            let want = pair.assert_same_under([["-m", "threaded"], ["-m", "sync"]], &args, run);
            assert!(want.status.success(), "{} {format:?}", pair.tool());
        }
    }
}
