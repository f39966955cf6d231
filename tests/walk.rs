//! What `-r` walks: `--exclude` (gitignore globs below the operand),
//! `--exclude-from`, `--max-depth` and `--one-file-system`, end to end and
//! against md5sum over the files that should be left: the same lines, odd
//! names included, in every mode and with `-z`.

use std::path::Path;
use std::process::Command;

use crate::util::Bounded;
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
        .bounded_output()
        .is_ok_and(|o| o.status.success());
    if !mounted {
        crate::util::skip("cannot mount a tmpfs here (needs root)");
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
        let hex = crate::util::run_with_stdin(&mut gnu(tool), &manifest).stdout[..]
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
            "--untagged",
            "-a",
            algo,
            "--exclude",
            "*.tmp",
            ".",
        ]));
        let out = crate::util::run_with_stdin(&mut gnu(tool), &ours.stdout).stdout;
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

/// The walk's thread counts to compare: the sequential walk first.
const WALK_THREADS: [&str; 4] = ["1", "2", "3", "64"];

/// `fastsum ARGS` in `d` with `FASTSUM_WALK_THREADS=threads` (`None`: the
/// default), under `wrap` (e.g. strace) if given.
fn walk_run(d: &Path, threads: Option<&str>, wrap: &[&str], args: &[&str]) -> std::process::Output {
    let mut c = match wrap.split_first() {
        Some((tool, rest)) => {
            let mut c = Command::new(tool);
            c.args(rest).arg(crate::util::fastsum_path());
            c
        }
        None => fastsum(),
    };
    c.current_dir(d).env_remove("FASTSUM_WALK_THREADS");
    if let Some(n) = threads {
        c.env("FASTSUM_WALK_THREADS", n);
    }
    run(c.args(args))
}

/// Every thread count (and the default) prints what the sequential walk
/// prints, stdout and stderr byte for byte, same exit status; returns it.
fn same_for_every_thread_count(d: &Path, wrap: &[&str], args: &[&str]) -> std::process::Output {
    let sequential = walk_run(d, Some("1"), wrap, args);
    for threads in WALK_THREADS.iter().skip(1).map(Some).chain([None]) {
        let got = walk_run(d, threads.copied(), wrap, args);
        let what = format!("FASTSUM_WALK_THREADS={threads:?} {args:?}");
        crate::util::assert_outputs_same(&what, &got, &sequential, "fastsum", "fastsum");
    }
    sequential
}

/// Names that sort one way as bytes, another as text or as whole paths
/// (`a` before `a b` and `a.b`, but `a/x` after them), names md5sum
/// escapes, and bytes that are no UTF-8.
const ODD: [&[u8]; 12] = [
    b"a",
    b"a b",
    b"a.b",
    b"a-",
    b"B",
    b"\xc3\xa9",
    b"\xff",
    b"new\nline",
    b"back\\slash",
    b"z",
    b"_",
    b"\xc3\xa9x",
];

/// A seeded random tree: files, directories `depth` deep, links to an
/// ancestor (loops if followed) and to files, FIFOs.
fn odd_tree(d: &Path, seed: u64, depth: u32, width: usize) {
    let bytes = crate::util::random_bytes(width * 2, seed);
    for (i, pair) in bytes.chunks(2).enumerate() {
        let name = os(ODD[usize::from(pair[0]) % ODD.len()]);
        let path = d.join(name);
        if path.symlink_metadata().is_ok() {
            continue;
        }
        match pair[1] % 10 {
            0..=3 => {
                write_file(d, name, &bytes[..i]);
            }
            4..=7 if depth > 0 => {
                std::fs::create_dir(&path).unwrap();
                odd_tree(&path, seed * 31 + i as u64, depth - 1, width);
            }
            8 => std::os::unix::fs::symlink(if i % 2 == 0 { ".." } else { "." }, &path).unwrap(),
            _ => {
                let ok = Command::new("mkfifo").arg(&path).status();
                assert!(ok.is_ok_and(|s| s.success()));
            }
        }
    }
}

/// `find . -type f` in the walk's order: sorted by the bytes of each
/// component in turn (a directory's contents at its place).
fn find_in_walk_order(d: &Path) -> Vec<Vec<u8>> {
    let out = run(Command::new("find")
        .current_dir(d)
        .args([".", "-type", "f", "-print0"]));
    assert!(out.status.success(), "{}", shown(&out));
    let mut names: Vec<Vec<u8>> = out
        .stdout
        .split(|&b| b == 0)
        .filter(|n| !n.is_empty())
        .map(<[u8]>::to_vec)
        .collect();
    names.sort_by(|a, b| a.split(|&c| c == b'/').cmp(b.split(|&c| c == b'/')));
    names
}

/// Random trees, deep and wide (more subdirectories than the read-ahead
/// holds), odd names: every thread count prints the sequential walk's
/// bytes, which are md5sum's over `find -type f` in the walk's order;
/// with --max-depth and --exclude too. (The readers start only once
/// directories list slowly, as on a cold tree, so here they may not: the
/// unit tests in src/walk.rs start them at once and mid-walk.)
#[test]
fn the_parallel_walk_prints_the_sequential_walks_bytes() {
    if !require_tool("md5sum") {
        return;
    }
    let dir = tempdir();
    let d = dir.path();
    write_file(d, "top", b"");
    std::fs::create_dir(d.join("deep")).unwrap();
    odd_tree(&d.join("deep"), 7, 6, 7);
    std::fs::create_dir(d.join("wide")).unwrap();
    for i in 0..600 {
        let sub = d.join(format!("wide/{i:03}"));
        std::fs::create_dir(&sub).unwrap();
        odd_tree(&sub, i, 1, 3);
    }
    let names = find_in_walk_order(d);
    assert!(names.len() > 600, "{} files", names.len());
    let want = run(gnu("md5sum")
        .current_dir(d)
        .args(names.iter().map(|n| os(n))));
    let got = same_for_every_thread_count(d, &[], &["-r", "."]);
    assert_stdout("-r .", &got, &want.stdout);
    assert!(got.stderr.is_empty(), "{}", shown(&got));
    for args in [
        &["-r", "-z", "."][..],
        &["-r", "--max-depth", "1", "."],
        &["-r", "--max-depth", "3", "deep", "wide"],
        &[
            "-r",
            "--exclude",
            "a*",
            "--exclude",
            "!a.b",
            "--exclude",
            "/wide/1*",
            ".",
        ],
        &["-r", "--one-file-system", "wide/", "deep"],
    ] {
        let o = same_for_every_thread_count(d, &[], args);
        assert!(
            o.status.success() && !o.stdout.is_empty(),
            "{args:?}: {}",
            shown(&o)
        );
    }
}

/// A directory that cannot be read (EACCES injected: root reads any) is
/// reported with the same words whatever the thread count; inside an
/// excluded directory it is not reported (the directory is not entered).
#[test]
fn an_unreadable_directory_is_reported_alike_by_every_walk() {
    if !require_strace() {
        return;
    }
    let dir = tempdir();
    let d = dir.path();
    for sub in ["a/x", "m/y", "z"] {
        std::fs::create_dir_all(d.join(sub)).unwrap();
        write_file(&d.join(sub), "f", sub.as_bytes());
    }
    // relative, as fastsum opens it (strace says how it resolved it)
    let strace = [
        "strace",
        "-f",
        "-qq",
        "-o",
        "/dev/null",
        "-P",
        "./m/y",
        "-e",
        "inject=openat:error=EACCES",
    ];
    let o = same_for_every_thread_count(d, &strace, &["-r", "."]);
    assert_eq!(o.status.code(), Some(1), "{}", shown(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    let ours: Vec<&str> = err.lines().filter(|l| !l.starts_with("strace: ")).collect();
    assert_eq!(ours, ["fastsum: ./m/y: Permission denied"], "{err}");
    let lines = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(
        lines.contains("  ./a/x/f\n") && lines.ends_with("  ./z/f\n"),
        "{lines}"
    );
    assert_eq!(lines.lines().count(), 2, "{lines}");
    // excluded, neither m nor m/y is read: no error
    let o = same_for_every_thread_count(d, &strace, &["-r", ".", "--exclude", "m/"]);
    assert!(o.status.success(), "{}", shown(&o));
    assert!(
        !String::from_utf8_lossy(&o.stderr).contains("fastsum"),
        "{}",
        shown(&o)
    );
    assert_eq!(o.stdout.iter().filter(|&&b| b == b'\n').count(), 2);
}

/// A tree that holds itself (the operand bind-mounted on a directory of
/// its own, in a mount namespace of the test's: no right needed beyond
/// user namespaces) is a loop: reported in GNU find's words, each file
/// hashed once, exit 1, whatever the thread count; under strace too, where
/// listings are slow and the readers, which meet the loop first, start.
/// (Before the guard, the walk hashed the tree again below the mount,
/// exit 0.)
#[test]
fn a_directory_mounted_below_itself_is_a_loop() {
    if !require_tool("md5sum") || !require_tool("unshare") {
        return;
    }
    let dir = tempdir();
    let d = dir.path();
    let mut files = Vec::new();
    // (enough directories before the loop for the readers to start)
    for i in 0..20 {
        files.push(format!("t/a{i:02}/f"));
    }
    files.extend(["t/f".to_string(), "t/sub/g".to_string()]);
    for f in &files {
        let f = d.join(f);
        std::fs::create_dir_all(f.parent().unwrap()).unwrap();
        std::fs::write(f, b"f").unwrap();
    }
    std::fs::create_dir(d.join("t/sub/x")).unwrap();
    let mount = "mount --bind t t/sub/x";
    let can = run(Command::new("unshare")
        .args(["--user", "--map-root-user", "--mount", "sh", "-c", mount])
        .current_dir(d));
    if !can.status.success() {
        crate::util::skip("no mount namespace here (user namespaces not allowed?)");
        return;
    }
    let md5sum = run(gnu("md5sum").current_dir(d).args(&files)).stdout;
    let traced = require_strace();
    for wrap in ["", "strace -f -qq -o /dev/null "] {
        if !wrap.is_empty() && !traced {
            continue;
        }
        let script = format!("{mount} && exec {wrap}\"$0\" \"$@\"");
        let in_namespace = [
            "unshare",
            "--user",
            "--map-root-user",
            "--mount",
            "sh",
            "-c",
            &script,
        ];
        let o = same_for_every_thread_count(d, &in_namespace, &["-r", "t"]);
        assert_eq!(
            String::from_utf8_lossy(&o.stderr),
            "fastsum: t/sub/x: File system loop detected; \
             it is part of the same file system loop as 't'\n",
            "{wrap}"
        );
        assert_eq!(o.status.code(), Some(1));
        assert_stdout(&format!("{wrap}-r t"), &o, &md5sum);
    }
}
