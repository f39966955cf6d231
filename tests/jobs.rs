//! Many files: `-j` keeps argument order and streams, `-r` walks like
//! `find DIR -type f | sort`, and the progress display stays off stderr
//! when stderr is not a terminal.

use std::os::unix::ffi::OsStrExt;
use std::process::Command;

use fastsum::internals::Algorithm;

use crate::util::Bounded;
use crate::util::fastsum_path;
use crate::util::{
    Pair, assert_output, assert_stdout, fastsum, files_of_sizes, gnu, modes_and_jobs, random_bytes,
    require_tool, run, tempdir, write_file,
};

/// Files of very different sizes, with a missing one between two big ones.
fn mixed_tree() -> (tempfile::TempDir, Vec<String>) {
    let t = tempdir();
    let sizes = [3 << 20, 0, 1, 5 << 20, 17, 65_537, 2 << 20, 4096];
    let mut names = files_of_sizes(t.path(), &sizes, 0);
    names.insert(4, "missing".to_string());
    (t, names)
}

#[test]
fn output_in_argument_order_for_every_jobs_and_mode() {
    let (t, names) = mixed_tree();
    let Some(md5) = Pair::new(t.path(), Algorithm::Md5) else {
        return;
    };
    let modes = ["threaded", "sync", "mmap"];
    let opt_sets = modes_and_jobs(&modes, &["1", "2", "8"])
        .into_iter()
        .map(|o| [&o[..], &["--readahead", "64K", "--pool", "2"]].concat());
    let want = md5.assert_same_under(opt_sets, &names, run);
    assert_eq!(want.status.code(), Some(1));
}

#[test]
fn many_small_files_same_for_every_jobs() {
    let t = tempdir();
    let Some(sha256) = Pair::new(t.path(), Algorithm::Sha256) else {
        return;
    };
    let names: Vec<String> = (0..300).map(|i| format!("s{i:03}")).collect();
    for (i, n) in names.iter().enumerate() {
        write_file(t.path(), n, &random_bytes(i * 37 % 3000, i as u64));
    }
    // small pools and blocks keep the reader short of blocks, so that it
    // hashes queued batches itself (under -j 2 and more)
    let opt_sets: [&[&str]; 5] = [
        &["-j", "1"],
        &["-j", "3"],
        &["-j", "16"],
        &["-j", "2", "--pool", "2", "--readahead", "4K"],
        &["-j", "3", "--pool", "3", "--readahead", "7K"],
    ];
    let want = sha256.assert_same_under(opt_sets, &names, run);
    assert_eq!(want.status.code(), Some(0));
}

/// `-r` lists what `find DIR -type f | LC_ALL=C sort` lists (find sorts
/// nothing, so the reference is sorted; fastsum's walk is sorted per
/// directory, which gives the same order for these names), skipping a FIFO
/// and a symlink loop, and hashing as md5sum does.
#[test]
fn recursive_matches_find_and_skips_fifo_and_links() {
    if !require_tool("md5sum") {
        return;
    }
    let t = tempdir();
    let d = t.path().join("tree");
    std::fs::create_dir_all(d.join("a/deeper")).unwrap();
    std::fs::create_dir_all(d.join("b")).unwrap();
    for (i, f) in ["x", "a/y", "a/deeper/z", "b/w", "a/z y"]
        .iter()
        .enumerate()
    {
        write_file(&d, f, &random_bytes(i * 1000, i as u64));
    }
    std::os::unix::fs::symlink(&d, d.join("b/loop")).unwrap();
    std::os::unix::fs::symlink(d.join("x"), d.join("b/xlink")).unwrap();
    let status = Command::new("mkfifo")
        .arg(d.join("a/fifo"))
        .status()
        .unwrap();
    assert!(status.success());

    let find = Command::new("sh")
        .current_dir(t.path())
        .arg("-c")
        .arg("find tree -type f | LC_ALL=C sort")
        .bounded_output()
        .unwrap();
    let files: Vec<&[u8]> = find
        .stdout
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .collect();
    assert_eq!(files.len(), 5);
    let mut md5 = gnu("md5sum");
    md5.current_dir(t.path());
    for f in &files {
        md5.arg(std::ffi::OsStr::from_bytes(f));
    }
    let want = md5.bounded_output().unwrap();
    for jobs in ["1", "4"] {
        let got = fastsum()
            .current_dir(t.path())
            .args(["-r", "-j", jobs, "tree"])
            .bounded_output()
            .unwrap();
        assert_eq!(
            String::from_utf8_lossy(&got.stdout),
            String::from_utf8_lossy(&want.stdout),
            "-j {jobs}"
        );
        assert!(
            got.stderr.is_empty(),
            "{}",
            String::from_utf8_lossy(&got.stderr)
        );
        assert_eq!(got.status.code(), Some(0));
    }
    // without -r a directory is an error, as in md5sum
    let got = fastsum()
        .current_dir(t.path())
        .arg("tree")
        .bounded_output()
        .unwrap();
    assert_eq!(got.status.code(), Some(1));
    assert_eq!(got.stderr, b"fastsum: tree: Is a directory\n");
}

#[test]
fn recursive_reports_missing_and_goes_on() {
    if !require_tool("md5sum") {
        return;
    }
    let t = tempdir();
    let d = t.path().join("tree");
    std::fs::create_dir_all(&d).unwrap();
    write_file(&d, "a", b"a");
    write_file(&d, "c", b"c");
    let got = fastsum()
        .current_dir(t.path())
        .args(["-r", "tree", "nowhere", "tree/c"])
        .bounded_output()
        .unwrap();
    let want = run(gnu("md5sum")
        .current_dir(t.path())
        .args(["tree/a", "tree/c", "tree/c"]));
    let err = "fastsum: nowhere: No such file or directory\n";
    assert_output("-r tree nowhere tree/c", &got, &want.stdout, err, 1);
}

#[test]
fn progress_never_on_redirected_stderr() {
    if !require_tool("md5sum") {
        return;
    }
    let t = tempdir();
    write_file(t.path(), "big", &random_bytes(4 << 20, 1));
    for flag in ["--progress", "--no-progress"] {
        let got = fastsum()
            .current_dir(t.path())
            .args([flag, "-m", "bytewise", "big"])
            .bounded_output()
            .unwrap();
        assert!(got.stderr.is_empty(), "{flag}: {:?}", got.stderr);
        let want = gnu("md5sum")
            .current_dir(t.path())
            .arg("big")
            .bounded_output()
            .unwrap();
        assert_stdout("", &got, &want.stdout);
    }
}

/// On a terminal (a pty from `script`), `--progress` draws a bar on stderr
/// and erases it at the end; the checksum line is still printed whole.
#[test]
fn progress_on_a_terminal_is_drawn_and_erased() {
    if !crate::util::require_tool("script") {
        return;
    }
    let t = tempdir();
    write_file(t.path(), "big", &random_bytes(8 << 20, 2));
    let bin = fastsum_path();
    let cmd = format!("{} --progress -m bytewise big", bin.display());
    let got = Command::new("script")
        .current_dir(t.path())
        .args(["-qec", &format!("stty cols 80 rows 24; {cmd}"), "/dev/null"])
        .bounded_output()
        .unwrap();
    let screen = String::from_utf8_lossy(&got.stdout);
    let want = gnu("md5sum")
        .current_dir(t.path())
        .arg("big")
        .bounded_output()
        .unwrap();
    let line = String::from_utf8_lossy(&want.stdout).trim_end().to_string();
    assert!(screen.contains(&line), "{screen:?}");
    assert!(
        !crate::progress::frames(&screen).is_empty(),
        "no progress drawn: {screen:?}"
    );
    // the display's last act is its erase, after the checksum line
    assert!(
        screen.ends_with("\r\x1b[2K"),
        "progress line left on the terminal: {screen:?}"
    );
    let (lines, _) = crate::progress::screen(&screen, 80);
    let lines: Vec<&String> = lines.iter().filter(|l| !l.is_empty()).collect();
    assert_eq!(lines, [&line], "{screen:?}");
    assert_eq!(got.status.code(), Some(0));
}
