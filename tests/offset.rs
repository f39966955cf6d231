//! Standard input that is a regular file standing at an offset (a script
//! read its header first: `{ read -r h; fastsum; } < f`): every mode and
//! every algorithm hashes the bytes from where it stands, as GNU's tools
//! do, and leaves it at the end; a second `-` is then empty. The mapped
//! paths (`-m mmap`, big BLAKE3 files, several algorithms on a big file)
//! once mapped from byte 0 and printed the whole file's hash, exit 0.

use std::fs::File;
use std::io::{Seek, SeekFrom};
use std::path::Path;
use std::process::{Command, Output, Stdio};

use crate::util::Bounded;
use crate::util::fastsum_path;
use crate::util::{
    MODES, assert_output, fastsum, gnu, random_bytes, require_tool, run_with_stdin, shown, tempdir,
    write_file,
};

/// Run `cmd` with `path` as its standard input, first moved to `offset`;
/// the output, and where the shared offset stands after the run.
fn run_at(cmd: &mut Command, path: &Path, offset: u64) -> (Output, u64) {
    let mut f = File::open(path).unwrap();
    f.seek(SeekFrom::Start(offset)).unwrap();
    let o = cmd
        .stdin(Stdio::from(f.try_clone().unwrap()))
        .bounded_output()
        .unwrap();
    (o, f.stream_position().unwrap())
}

/// What `fastsum -a ALGOS` prints for `tail` read from standard input:
/// GNU's tool for each algorithm (tagged when there are several), the
/// blake3 crate for BLAKE3 (b3sum's line).
fn want(algos: &[&str], tail: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    for &a in algos {
        if a == "blake3" {
            let hex = blake3::hash(tail).to_hex();
            if algos.len() > 1 {
                out.extend_from_slice(format!("BLAKE3 (-) = {hex}\n").as_bytes());
            } else {
                out.extend_from_slice(format!("{hex}  -\n").as_bytes());
            }
            continue;
        }
        let mut c = gnu(&format!("{a}sum"));
        if algos.len() > 1 {
            c.arg("--tag");
        }
        let o = run_with_stdin(&mut c, tail);
        assert!(o.status.success(), "{a}sum: {}", shown(&o));
        out.extend_from_slice(&o.stdout);
    }
    out
}

#[test]
fn stdin_at_an_offset_is_hashed_from_there_in_every_mode() {
    if !require_tool("md5sum") || !require_tool("sha256sum") {
        return;
    }
    let dir = tempdir();
    // small, and 2 MiB: above the mapping thresholds of -m mmap (64 KiB),
    // threaded BLAKE3 and several algorithms (1 MiB)
    for size in [3000usize, 2 << 20] {
        let data = random_bytes(size, size as u64);
        let path = write_file(dir.path(), format!("f{size}"), &data);
        for offset in [7u64, 70_001] {
            let offset = offset.min(size as u64 - 1);
            let tail = &data[offset as usize..];
            for algos in [&["md5"][..], &["blake3"], &["md5", "sha256"]] {
                let expected = want(algos, tail);
                for mode in MODES {
                    for jobs in ["1", "2"] {
                        let what =
                            format!("{size} bytes at {offset}, -a {algos:?} -m {mode} -j {jobs}");
                        let (o, after) = run_at(
                            fastsum().args([
                                "-m",
                                mode,
                                "-j",
                                jobs,
                                "--untagged",
                                "-a",
                                &algos.join(","),
                            ]),
                            &path,
                            offset,
                        );
                        assert_output(&what, &o, &expected, "", 0);
                        assert_eq!(after, size as u64, "{what}: offset after the run");
                    }
                }
            }
        }
    }
}

/// Check mode: a listed `-` is verified from where standard input stands,
/// and left at its end.
#[test]
fn check_mode_reads_stdin_from_its_offset() {
    if !require_tool("md5sum") || !require_tool("sha256sum") {
        return;
    }
    let dir = tempdir();
    for size in [3000usize, 2 << 20] {
        let data = random_bytes(size, 7 + size as u64);
        let path = write_file(dir.path(), format!("f{size}"), &data);
        let offset = 1234u64;
        let tail = &data[offset as usize..];
        for algos in [&["md5"][..], &["blake3"], &["md5", "sha256"]] {
            let mut sums = want(algos, tail);
            if algos == ["blake3"] {
                // a tagged line: plain `fastsum -c` takes its algorithm from it
                let hex = blake3::hash(tail).to_hex();
                sums = format!("BLAKE3 (-) = {hex}\n").into_bytes();
            }
            let sums_path = write_file(dir.path(), "SUMS", &sums);
            // the first `-` line reads the rest of stdin; a second one (the
            // other algorithm) finds it at its end, as GNU's cksum -c does
            let (lines, err, code) = if algos.len() == 1 {
                ("-: OK\n", "", 0)
            } else {
                (
                    "-: OK\n-: FAILED\n",
                    "fastsum: WARNING: 1 computed checksum did NOT match\n",
                    1,
                )
            };
            for mode in MODES {
                let what = format!("-c {size} bytes at {offset}, {algos:?} -m {mode}");
                let (o, after) = run_at(
                    fastsum().args(["-m", mode, "-c"]).arg(&sums_path),
                    &path,
                    offset,
                );
                assert_output(&what, &o, lines, err, code);
                assert_eq!(after, size as u64, "{what}: offset after the run");
            }
        }
    }
}

/// `- -` on a regular file: the first `-` reads it all, the second finds
/// it at its end and is the empty input's hash, as with GNU md5sum.
#[test]
fn second_dash_is_empty_in_every_mode() {
    if !require_tool("md5sum") {
        return;
    }
    let dir = tempdir();
    let path = write_file(dir.path(), "f", &random_bytes(2 << 20, 3));
    let (gnu_out, _) = run_at(gnu("md5sum").args(["-", "-"]), &path, 0);
    assert!(gnu_out.status.success());
    for mode in MODES {
        for algo in ["md5", "blake3"] {
            let (o, after) = run_at(
                fastsum().args(["-m", mode, "-a", algo, "--untagged", "-", "-"]),
                &path,
                0,
            );
            let what = format!("-m {mode} -a {algo} - -");
            let lines: Vec<&[u8]> = o.stdout.split(|&b| b == b'\n').collect();
            assert_eq!(lines.len(), 3, "{what}: {}", shown(&o));
            let empty = if algo == "md5" {
                b"d41d8cd98f00b204e9800998ecf8427e  -".to_vec()
            } else {
                format!("{}  -", blake3::hash(b"").to_hex()).into_bytes()
            };
            assert_eq!(lines[1], &empty[..], "{what}: {}", shown(&o));
            if algo == "md5" {
                assert_output(&what, &o, &gnu_out.stdout, "", 0);
            }
            assert_eq!(after, 2 << 20, "{what}: offset after the run");
        }
    }
}

/// Under the b3sum name (BLAKE3, mapped by default, and with --no-mmap):
/// the same rule.
#[test]
fn b3sum_name_reads_stdin_from_its_offset() {
    let dir = tempdir();
    let data = random_bytes(2 << 20, 11);
    let path = write_file(dir.path(), "f", &data);
    let link = dir.path().join("b3sum");
    std::os::unix::fs::symlink(fastsum_path(), &link).unwrap();
    let expected = format!("{}  -\n", blake3::hash(&data[100..]).to_hex());
    for extra in [&[][..], &["--no-mmap"]] {
        let (o, after) = run_at(Command::new(&link).args(extra), &path, 100);
        assert_output(&format!("b3sum {extra:?}"), &o, &expected, "", 0);
        assert_eq!(after, 2 << 20);
    }
}
