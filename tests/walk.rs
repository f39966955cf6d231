//! What `-r` walks: `--exclude` (gitignore globs below the operand),
//! `--exclude-from`, `--max-depth` and `--one-file-system`, end to end and
//! against md5sum over the files that should be left: the same lines, odd
//! names included, in every mode and with `-z`.

use std::path::Path;
use std::process::Command;

use crate::util::{
    MODES, assert_stdout, fastsum, gnu, multicall, os, require_strace, require_tool, run, shown,
    tempdir, write_file,
};

/// A tree with something for every kind of pattern, odd names included.
fn tree(d: &Path) {
    for dir in [
        "cache",
        "src/node_modules/x",
        "src/a",
        "build",
        "docs/build",
    ] {
        std::fs::create_dir_all(d.join(dir)).unwrap();
    }
    for f in [
        "a.tmp",
        "keep.tmp",
        "cache/c",
        "src/node_modules/x/m",
        "src/a/f.c",
        "src/a/g.tmp",
        "build/o",
        "docs/build/p",
        "top",
    ] {
        write_file(d, f, f.as_bytes());
    }
    write_file(d, "new\nline", b"1");
    write_file(d, "back\\slash.tmp", b"2");
    write_file(d, os(b"bad\xffutf8"), b"3");
}

/// md5sum over `names` (below `d`), as `fastsum -r .` names them.
fn md5sum_of(d: &Path, names: &[&[u8]]) -> Vec<u8> {
    let mut c = gnu("md5sum");
    c.current_dir(d);
    for n in names {
        c.arg(os(&[b"./", *n].concat()));
    }
    run(&mut c).stdout
}

#[test]
fn excluded_paths_are_left_out_in_every_mode() {
    if !require_tool("md5sum") {
        return;
    }
    let dir = tempdir();
    let d = dir.path();
    tree(d);
    // *.tmp anywhere but keep.tmp; the cache directory; node_modules at any
    // depth; build only at the top
    let patterns = ["*.tmp", "!keep.tmp", "cache/", "**/node_modules", "/build"];
    let left: [&[u8]; 6] = [
        b"bad\xffutf8",
        b"docs/build/p",
        b"keep.tmp",
        b"new\nline",
        b"src/a/f.c",
        b"top",
    ];
    let want = md5sum_of(d, &left);
    for mode in MODES {
        let mut c = fastsum();
        c.current_dir(d).args(["-m", mode, "-r", "."]);
        for p in patterns {
            c.args(["--exclude", p]);
        }
        assert_stdout(&format!("-m {mode}"), &run(&mut c), &want);
    }
    // the same patterns from a file (comments and blank lines skipped), and -z
    let list = write_file(
        d,
        "../patterns",
        format!("# what to leave out\n\n{}\n", patterns.join("\n")).as_bytes(),
    );
    let want_z = run(gnu("md5sum")
        .current_dir(d)
        .arg("-z")
        .args(left.iter().map(|n| os(&[b"./", *n].concat()).to_owned())))
    .stdout;
    // the patterns file sits outside the tree; nothing else differs
    let got = run(fastsum()
        .current_dir(d)
        .args(["-r", "-z", "--exclude-from"])
        .arg(&list)
        .arg("."));
    assert_stdout("--exclude-from -z", &got, &want_z);
}

/// An excluded directory is not entered: no system call opens it.
#[test]
fn an_excluded_directory_is_not_entered() {
    if !require_strace() {
        return;
    }
    let dir = tempdir();
    let d = dir.path();
    tree(d);
    let trace = d.join("../trace");
    let o = run(Command::new("strace")
        .args([
            "-f",
            "-qq",
            "-e",
            "trace=openat,open,statx,newfstatat",
            "-o",
        ])
        .arg(&trace)
        .arg(crate::util::fastsum_path())
        .current_dir(d)
        .args(["-r", ".", "--exclude", "node_modules/"]));
    assert!(o.status.success(), "{}", shown(&o));
    let trace = std::fs::read_to_string(&trace).unwrap();
    assert!(!trace.contains("node_modules/x"), "{trace}");
    assert!(trace.contains("src/a"), "{trace}");
}

#[test]
fn max_depth_counts_directories_below_the_operand() {
    let dir = tempdir();
    let d = dir.path();
    tree(d);
    let count = |depth: &str| {
        let o = run(fastsum()
            .current_dir(d)
            .args(["-r", ".", "--max-depth", depth]));
        assert!(o.status.success(), "{}", shown(&o));
        o.stdout.iter().filter(|&&b| b == b'\n').count()
    };
    assert_eq!(count("0"), 0);
    // the operand's own files: a.tmp, keep.tmp, top, the three odd names
    // (one of which holds a newline, escaped: one line each)
    assert_eq!(count("1"), 6);
    assert_eq!(count("2"), 8);
    assert_eq!(count("9"), 12);
}

/// A directory on another file system (a tmpfs mounted in the tree) is
/// walked, but not with `--one-file-system`. Needs the right to mount.
#[test]
fn one_file_system_stays_on_the_operands_file_system() {
    let dir = tempdir();
    let d = dir.path();
    std::fs::create_dir(d.join("other")).unwrap();
    write_file(d, "here", b"h");
    let mounted = Command::new("mount")
        .args(["-t", "tmpfs", "tmpfs"])
        .arg(d.join("other"))
        .output()
        .is_ok_and(|o| o.status.success());
    if !mounted {
        eprintln!("skipped: cannot mount a tmpfs here (needs root)");
        return;
    }
    write_file(&d.join("other"), "there", b"t");
    let all = run(fastsum().current_dir(d).args(["-r", "."]));
    let one = run(fastsum()
        .current_dir(d)
        .args(["-r", "--one-file-system", "."]));
    let _ = Command::new("umount").arg(d.join("other")).status();
    let all = String::from_utf8_lossy(&all.stdout).into_owned();
    let one = String::from_utf8_lossy(&one.stdout).into_owned();
    assert!(
        all.contains("./other/there") && all.contains("./here"),
        "{all}"
    );
    assert!(
        !one.contains("./other/there") && one.contains("./here"),
        "{one}"
    );
}

#[test]
fn walk_options_refuse_what_they_cannot_use() {
    let dir = tempdir();
    let d = dir.path();
    tree(d);
    let refused = |args: &[&str], says: &str| {
        let o = run(fastsum().current_dir(d).args(args));
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", shown(&o));
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(says), "{args:?}: {err}");
        assert!(o.stdout.is_empty(), "{args:?}");
    };
    refused(
        &["-r", ".", "--exclude", "{a,b"],
        "invalid value '{a,b' for '--exclude <PATTERN>'",
    );
    refused(
        &["-r", ".", "--exclude-from", "no-such-file"],
        "'no-such-file' for '--exclude-from <FILE>': No such file or directory",
    );
    refused(
        &[".", "--exclude", "*.tmp"],
        "the --exclude option is meaningful only with -r",
    );
    refused(
        &["top", "--max-depth", "1"],
        "the --max-depth option is meaningful only with -r",
    );
    refused(&["-r", ".", "--max-depth", "x"], "--max-depth <N>");
    for flag in [
        &["--exclude", "x"][..],
        &["--max-depth", "1"],
        &["--one-file-system"],
        &["--update", "S"],
        &["--tree-digest"],
    ] {
        let mut args = vec!["-c", "SUMS"];
        args.extend_from_slice(flag);
        refused(
            &args,
            &format!(
                "the {} option is meaningless when verifying checksums",
                flag[0]
            ),
        );
    }
    // GNU's names have no such options
    let bin = tempdir();
    let o = run(multicall(bin.path(), "md5sum")
        .current_dir(d)
        .args(["--exclude", "x", "top"]));
    assert_eq!(o.status.code(), Some(1), "{}", shown(&o));
}

/// The files under `d` in `-r`'s order (each directory's entries sorted by
/// their bytes, a subdirectory's contents at its place), as `./PATH`.
fn walk_order(d: &Path, rel: &[u8], out: &mut Vec<Vec<u8>>) {
    let mut entries: Vec<std::fs::DirEntry> = std::fs::read_dir(d.join(os(rel)))
        .unwrap()
        .map(|e| e.unwrap())
        .collect();
    entries.sort_by(|a, b| {
        use std::os::unix::ffi::OsStrExt;
        a.file_name().as_bytes().cmp(b.file_name().as_bytes())
    });
    for e in entries {
        use std::os::unix::ffi::OsStrExt;
        let name = [rel, b"/", e.file_name().as_bytes()].concat();
        let t = e.file_type().unwrap();
        if t.is_dir() {
            walk_order(d, &name, out);
        } else if t.is_file() {
            out.push(name);
        }
    }
}

/// `--tree-digest` is what README defines: the digest of `cd DIR &&
/// fastsum -r -z .`, checked against GNU's tools alone (md5sum -z over the
/// files in the walk's order, the manifest's digest by md5sum), with odd
/// names, in every mode, and with the walk options.
#[test]
fn tree_digest_is_the_digest_of_the_z_manifest() {
    if !require_tool("md5sum") || !require_tool("sha256sum") {
        return;
    }
    let dir = tempdir();
    let d = dir.path().join("tree");
    std::fs::create_dir(&d).unwrap();
    tree(&d);
    std::fs::create_dir(d.join("empty")).unwrap();
    std::os::unix::fs::symlink("top", d.join("link")).unwrap();
    let mut names = Vec::new();
    walk_order(&d, b".", &mut names);
    for (algo, tool) in [("md5", "md5sum"), ("sha256", "sha256sum")] {
        let manifest = run(gnu(tool)
            .current_dir(&d)
            .arg("-z")
            .args(names.iter().map(|n| os(n).to_owned())))
        .stdout;
        let mut digest = gnu(tool)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        use std::io::Write;
        digest.stdin.take().unwrap().write_all(&manifest).unwrap();
        let hex = digest.wait_with_output().unwrap().stdout[..]
            .split(|&b| b == b' ')
            .next()
            .unwrap()
            .to_vec();
        let want = [&hex[..], b"  tree\n"].concat();
        for mode in MODES {
            let got = run(fastsum().current_dir(dir.path()).args([
                "-r",
                "--tree-digest",
                "-a",
                algo,
                "-m",
                mode,
                "tree",
            ]));
            assert_stdout(&format!("-a {algo} -m {mode}"), &got, &want);
        }
        // the same as fastsum's own manifest, walk options included
        let ours = run(fastsum().current_dir(&d).args([
            "-r",
            "-z",
            "-a",
            algo,
            "--exclude",
            "*.tmp",
            ".",
        ]));
        let mut digest = gnu(tool)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        digest
            .stdin
            .take()
            .unwrap()
            .write_all(&ours.stdout)
            .unwrap();
        let out = digest.wait_with_output().unwrap().stdout;
        let hex = out.split(|&b| b == b' ').next().unwrap().to_vec();
        let got = run(fastsum().current_dir(dir.path()).args([
            "-r",
            "--tree-digest",
            "-a",
            algo,
            "--exclude",
            "*.tmp",
            "tree",
        ]));
        assert_stdout(
            &format!("-a {algo} --exclude"),
            &got,
            [&hex[..], b"  tree\n"].concat(),
        );
    }
}

/// A file of the tree that cannot be read: its error, and no digest for
/// the tree (exit 1); a FILE that is no directory is an error too.
#[test]
fn tree_digest_of_a_tree_with_a_failure_is_no_digest() {
    if !require_strace() {
        return;
    }
    let dir = tempdir();
    let d = dir.path().join("tree");
    std::fs::create_dir(&d).unwrap();
    tree(&d);
    let victim = d.join("src/a/f.c");
    let o = run(Command::new("strace")
        .args(["-f", "-qq", "-o", "/dev/null", "-P"])
        .arg(&victim)
        .args(["-e", "inject=read:error=EIO"])
        .arg(crate::util::fastsum_path())
        .current_dir(dir.path())
        .args(["-r", "--tree-digest", "tree", "tree/top"]));
    assert_eq!(o.status.code(), Some(1), "{}", shown(&o));
    assert!(o.stdout.is_empty(), "{}", shown(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("tree/src/a/f.c: Input/output error"), "{err}");
    assert!(err.contains("tree/top: Not a directory"), "{err}");
    let o = run(fastsum()
        .current_dir(dir.path())
        .args(["--tree-digest", "tree"]));
    assert_eq!(o.status.code(), Some(2), "{}", shown(&o));
}
