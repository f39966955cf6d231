//! `--update SUMS`: only what SUMS does not list is hashed, its lines
//! appended in SUMS's own algorithm and format (md5sum and sha256sum give
//! the same lines for the new files, and verify the result); `--prune`
//! drops what is gone under the inputs; and SUMS is never lost: a refused
//! manifest, a failed input, an injected write or sync fault or a SIGKILL
//! leave it byte for byte as it was, with no temporary file behind. Nor is
//! what SUMS names damaged: a device, FIFO or directory is refused, a link
//! is followed to its target, updaters take turns on its lock, and SUMS is
//! never listed in itself.

use std::os::fd::AsRawFd;
use std::os::unix::fs::{FileTypeExt, MetadataExt, PermissionsExt};
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::util::{
    fastsum, fastsum_path, gnu, os, require_strace, require_tool, run, run_with_stdin, shown,
    tempdir, write_file,
};

/// A tree `d` with two files and a manifest of them made by `make`.
fn fixture(make: &[&str]) -> tempfile::TempDir {
    let dir = tempdir();
    let d = dir.path();
    std::fs::create_dir_all(d.join("d/s")).unwrap();
    write_file(d, "d/a", b"a");
    write_file(d, "d/s/b", b"b");
    let o = run(fastsum().current_dir(d).args(make).args(["-r", "d"]));
    std::fs::write(d.join("SUMS"), &o.stdout).unwrap();
    dir
}

/// The directory's entries other than the tree and SUMS (a temporary file
/// left behind would show here).
fn others(d: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(d)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n != "d" && n != "SUMS")
        .collect();
    v.sort();
    v
}

#[test]
fn new_files_are_appended_as_the_gnu_tools_write_them() {
    // (untagged lines need -a: their length fits several algorithms)
    for (make, tool, algo) in [
        (&[][..], "md5sum", &["-a", "md5"][..]),
        (&["-a", "sha256", "--tag"][..], "sha256sum", &[][..]),
        (&["-a", "sha1", "-b"][..], "sha1sum", &["-a", "sha1"][..]),
    ] {
        if !require_tool(tool) {
            continue;
        }
        let dir = fixture(make);
        let d = dir.path();
        let before = std::fs::read(d.join("SUMS")).unwrap();
        write_file(d, "d/c", b"c");
        write_file(d, "d/s/new\nline", b"n");
        write_file(d, os(b"d/bad\xffname"), b"x");
        let o = run(fastsum()
            .current_dir(d)
            .args(["-r", "d", "--update", "SUMS"])
            .args(algo));
        assert_eq!(o.status.code(), Some(0), "{make:?}: {}", shown(&o));
        assert!(o.stdout.is_empty(), "{make:?}: {}", shown(&o));
        // the old lines as they were, then the GNU tool's lines for the new
        // files in the walk's order, with the manifest's options
        let gnu_opts: Vec<&str> = make
            .iter()
            .copied()
            .filter(|o| o.starts_with("--") || *o == "-b")
            .collect();
        let added = run(gnu(tool)
            .current_dir(d)
            .args(&gnu_opts)
            .arg(os(b"d/bad\xffname"))
            .args(["d/c", "d/s/new\nline"]));
        let after = std::fs::read(d.join("SUMS")).unwrap();
        assert_eq!(
            String::from_utf8_lossy(&after),
            String::from_utf8_lossy(&[&before[..], &added.stdout].concat()),
            "{make:?}"
        );
        let verified = run(gnu(tool).current_dir(d).args(["-c", "SUMS"]));
        assert!(verified.status.success(), "{make:?}: {}", shown(&verified));
        // nothing new: the manifest stays byte for byte
        let o = run(fastsum()
            .current_dir(d)
            .args(["-r", "d", "--update", "SUMS"])
            .args(algo));
        assert!(o.status.success(), "{}", shown(&o));
        assert_eq!(std::fs::read(d.join("SUMS")).unwrap(), after);
        assert_eq!(others(d), Vec::<String>::new());
    }
}

#[test]
fn prune_drops_the_lines_of_files_that_are_gone() {
    let dir = fixture(&[]);
    let d = dir.path();
    std::fs::remove_file(d.join("d/a")).unwrap();
    write_file(d, "d/c", b"c");
    let o = fastsum_in(d, &["-r", "d", "--update", "SUMS", "--prune", "-a", "md5"]);
    assert!(o.status.success(), "{}", shown(&o));
    let sums = String::from_utf8(std::fs::read(d.join("SUMS")).unwrap()).unwrap();
    let names: Vec<&str> = sums.lines().map(|l| &l[34..]).collect();
    assert_eq!(names, ["d/s/b", "d/c"]);
    // a missing SUMS is made
    let o = fastsum_in(d, &["-r", "d", "--update", "NEW", "-a", "sha256"]);
    assert!(o.status.success(), "{}", shown(&o));
    assert_eq!(
        std::fs::read_to_string(d.join("NEW"))
            .unwrap()
            .lines()
            .count(),
        2
    );
}

/// fastsum with `args` in `d`, to completion.
fn fastsum_in(d: &Path, args: &[&str]) -> Output {
    run(fastsum().current_dir(d).args(args))
}

/// Assert that a run succeeded and said `says` on stderr.
fn assert_says(o: &Output, says: &str, what: &str) {
    assert!(o.status.success(), "{what}: {}", shown(o));
    assert_eq!(String::from_utf8_lossy(&o.stderr), says, "{what}");
}

/// Make a FIFO at `path`.
fn mkfifo(path: &Path) {
    let made = Command::new("mkfifo").arg(path).status().unwrap();
    assert!(made.success());
}

/// Wait (20 s at most) until process `pid` has `path` open: it waits on
/// that FIFO.
fn wait_until_open(pid: u32, path: &Path) {
    let fds = format!("/proc/{pid}/fd");
    let opened = || {
        std::fs::read_dir(&fds)
            .into_iter()
            .flatten()
            .flatten()
            .any(|e| std::fs::read_link(e.path()).is_ok_and(|l| l == path))
    };
    assert!(eventually(opened), "fastsum never opened {path:?}");
}

/// Assert that a run failed (exit 1) and left SUMS as it was (and no
/// file beside it but the checkpoint of what it hashed).
fn assert_untouched(d: &Path, before: &[u8], o: &std::process::Output, what: &str) {
    assert_eq!(o.status.code(), Some(1), "{what}: {}", shown(o));
    assert_eq!(std::fs::read(d.join("SUMS")).unwrap(), before, "{what}");
    let mut left = others(d);
    left.retain(|n| n != CHECKPOINT);
    assert_eq!(left, Vec::<String>::new(), "{what}");
}

/// The checkpoint of `SUMS`: what a run that did not replace it hashed.
const CHECKPOINT: &str = "SUMS.fastsum-update.checkpoint";

#[test]
fn a_manifest_it_cannot_extend_is_left_as_it_was() {
    let dir = fixture(&[]);
    let d = dir.path();
    write_file(d, "d/c", b"c");
    let good = std::fs::read(d.join("SUMS")).unwrap();
    let sha = fastsum_in(d, &["-a", "sha1", "d/a"]).stdout;
    let tagged = fastsum_in(d, &["--tag", "d/a"]).stdout;
    let sha256 = fastsum_in(d, &["-a", "sha256", "--untagged", "d/a"]).stdout;
    for (what, sums, extra) in [
        (
            "two algorithms",
            [&good[..], &sha].concat(),
            &["-a", "md5"][..],
        ),
        ("two formats", [&good[..], &tagged].concat(), &["-a", "md5"]),
        (
            "a line that is no checksum line",
            [&good[..], b"junk\n"].concat(),
            &["-a", "md5"],
        ),
        (
            "-a naming another algorithm",
            good.clone(),
            &["-a", "sha256"][..],
        ),
        (
            "64 hex digits (SHA-256 or BLAKE3) and no -a",
            sha256.clone(),
            &[],
        ),
        (
            "an input that cannot be read",
            good.clone(),
            &["no-such-file", "-a", "md5"],
        ),
    ] {
        std::fs::write(d.join("SUMS"), &sums).unwrap();
        let o = run(fastsum()
            .current_dir(d)
            .args(["-r", "d", "--update", "SUMS"])
            .args(extra));
        assert_untouched(d, &sums, &o, what);
    }
}

/// ENOSPC on the write, EIO on the sync, EXDEV on the rename: SUMS stays,
/// the new file is gone.
#[test]
fn write_faults_leave_the_manifest_as_it_was() {
    if !require_strace() {
        return;
    }
    let dir = fixture(&[]);
    let d = dir.path();
    write_file(d, "d/c", b"c");
    let before = std::fs::read(d.join("SUMS")).unwrap();
    for fault in [
        "write:error=ENOSPC:when=1",
        "fsync:error=EIO",
        "rename:error=EXDEV",
    ] {
        let o = run(Command::new("strace")
            .args(["-f", "-qq", "-o", "/dev/null", "-e"])
            .arg(format!("inject={fault}"))
            .arg(crate::util::fastsum_path())
            .current_dir(d)
            .args(["-r", "d", "--update", "SUMS", "-a", "md5"]));
        assert_untouched(d, &before, &o, fault);
        // the message names SUMS and says what went wrong
        let err = String::from_utf8_lossy(&o.stderr);
        let says = [
            "No space left on device",
            "Input/output error",
            "Invalid cross-device link",
        ];
        assert!(
            err.contains("SUMS") && says.iter().any(|s| err.contains(s)),
            "{fault}: {}",
            shown(&o)
        );
    }
}

/// Killed while an input is being read (a FIFO nobody writes to): SUMS
/// stays as it was.
#[test]
fn a_killed_run_leaves_the_manifest_as_it_was() {
    let dir = fixture(&[]);
    let d = dir.path();
    let before = std::fs::read(d.join("SUMS")).unwrap();
    let fifo = d.join("fifo");
    mkfifo(&fifo);
    let mut child = fastsum()
        .current_dir(d)
        .args(["-r", "d", "fifo", "--update", "SUMS", "-a", "md5"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // it waits on the FIFO once it has opened it: kill it there
    wait_until_open(child.id(), &fifo);
    child.kill().unwrap();
    let status = child.wait().unwrap();
    assert!(!status.success());
    assert_eq!(std::fs::read(d.join("SUMS")).unwrap(), before);
    std::fs::remove_file(&fifo).unwrap();
    assert_eq!(others(d), Vec::<String>::new());
}

#[test]
fn update_refuses_what_it_cannot_keep() {
    let dir = fixture(&[]);
    let d = dir.path();
    for (args, says) in [
        (
            &["-r", "d", "--prune"][..],
            "--prune option is meaningful only with --update",
        ),
        (&["-r", "d", "--update", "SUMS", "-z"], "not with --zero"),
        (
            &["-r", "d", "--update", "SUMS", "-a", "md5,sha1"],
            "not with several algorithms",
        ),
    ] {
        let o = run(fastsum().current_dir(d).args(args));
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", shown(&o));
        assert!(
            String::from_utf8_lossy(&o.stderr).contains(says),
            "{args:?}: {}",
            shown(&o)
        );
    }
}

/// fastsum with `args` in `d`, killed after 20 s: a run that blocks (on a
/// FIFO, on a pipe) shows as killed (status 137 from timeout) instead of
/// hanging the suite.
fn bounded(d: &Path, args: &[&str]) -> Output {
    run(Command::new("timeout")
        .current_dir(d)
        .env("LC_ALL", "C.UTF-8")
        .args(["-s", "KILL", "20"])
        .arg(fastsum_path())
        .args(args))
}

/// Wait for `child` 20 s at most (then it is killed and the test fails).
fn wait_bounded(mut child: Child, what: &str) -> Output {
    let end = Instant::now() + Duration::from_secs(20);
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > end {
            child.kill().unwrap();
            let _ = child.wait();
            panic!("{what}: still running after 20 s");
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    child.wait_with_output().unwrap()
}

/// Poll `cond` every 5 ms for 20 s at most: whether it came true.
fn eventually(mut cond: impl FnMut() -> bool) -> bool {
    let end = Instant::now() + Duration::from_secs(20);
    while !cond() {
        if Instant::now() > end {
            return false;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    true
}

/// The md5sum line of `name` in `d`.
fn md5_line(d: &Path, name: &str) -> Vec<u8> {
    let o = run(fastsum().current_dir(d).arg(name));
    assert!(o.status.success(), "{}", shown(&o));
    o.stdout
}

#[test]
fn what_is_no_regular_file_is_refused_and_left_alone() {
    let dir = fixture(&[]);
    let d = dir.path();
    write_file(d, "d/c", b"c");
    mkfifo(&d.join("fifo.sums"));
    std::os::unix::fs::symlink("/dev/null", d.join("null.sums")).unwrap();
    std::fs::create_dir(d.join("dir.sums")).unwrap();
    for (sums, is) in [
        ("fifo.sums", "a FIFO"),
        ("null.sums", "a character device"),
        ("dir.sums", "a directory"),
    ] {
        let o = bounded(d, &["-r", "d", "--update", sums, "-a", "md5"]);
        assert_eq!(o.status.code(), Some(1), "{sums}: {}", shown(&o));
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.contains(sums) && err.contains(&format!("not a regular file ({is})")),
            "{sums}: {}",
            shown(&o)
        );
    }
    let t = |p: &str| std::fs::symlink_metadata(d.join(p)).unwrap().file_type();
    assert!(t("fifo.sums").is_fifo());
    assert!(t("null.sums").is_symlink());
    assert_eq!(
        std::fs::read_link(d.join("null.sums")).unwrap(),
        Path::new("/dev/null")
    );
    assert_eq!(std::fs::read_dir(d.join("dir.sums")).unwrap().count(), 0);
    // /dev/stdout when stdout is a pipe: refused at once, not read forever
    let o = bounded(d, &["-r", "d", "--update", "/dev/stdout", "-a", "md5"]);
    assert_eq!(o.status.code(), Some(1), "{}", shown(&o));
    assert!(
        String::from_utf8_lossy(&o.stderr)
            .contains("/dev/stdout: not a regular file (a FIFO): left as it was"),
        "{}",
        shown(&o)
    );
    assert!(o.stdout.is_empty(), "{}", shown(&o));
    let mut left = others(d);
    left.retain(|n| !n.ends_with(".sums"));
    assert_eq!(left, Vec::<String>::new());
}

#[test]
fn a_linked_manifest_is_updated_through_the_link() {
    let dir = fixture(&[]);
    let d = dir.path();
    let before = std::fs::read(d.join("SUMS")).unwrap();
    std::fs::create_dir(d.join("real")).unwrap();
    let target = d.join("real/SUMS.md5");
    std::fs::rename(d.join("SUMS"), &target).unwrap();
    std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o640)).unwrap();
    // as root, an owner other than the updater's is kept too
    // SAFETY: geteuid has no preconditions
    let root = unsafe { libc::geteuid() } == 0;
    if root {
        std::os::unix::fs::chown(&target, Some(4321), Some(4322)).unwrap();
    }
    // a chain of two links: L2 -> SUMS -> real/SUMS.md5
    std::os::unix::fs::symlink("real/SUMS.md5", d.join("SUMS")).unwrap();
    std::os::unix::fs::symlink("SUMS", d.join("L2")).unwrap();
    write_file(d, "d/c", b"c");
    let o = fastsum_in(d, &["-r", "d", "--update", "L2", "-a", "md5"]);
    assert!(o.status.success(), "{}", shown(&o));
    for link in ["SUMS", "L2"] {
        assert!(
            std::fs::symlink_metadata(d.join(link))
                .unwrap()
                .file_type()
                .is_symlink(),
            "{link} is no longer a link"
        );
    }
    assert_eq!(
        std::fs::read(&target).unwrap(),
        [&before[..], &md5_line(d, "d/c")].concat()
    );
    let meta = std::fs::metadata(&target).unwrap();
    assert_eq!(meta.mode() & 0o7777, 0o640);
    if root {
        assert_eq!((meta.uid(), meta.gid()), (4321, 4322));
    } else {
        eprintln!("a_linked_manifest_is_updated_through_the_link: not root, owner not checked");
    }
    let mut real: Vec<_> = std::fs::read_dir(d.join("real"))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    real.sort();
    assert_eq!(real, ["SUMS.md5"]);
    // a link to nothing: refused, and nothing made where it points
    std::os::unix::fs::symlink("nowhere", d.join("gone")).unwrap();
    let o = fastsum_in(d, &["-r", "d", "--update", "gone", "-a", "md5"]);
    assert_eq!(o.status.code(), Some(1), "{}", shown(&o));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("gone: a symbolic link"),
        "{}",
        shown(&o)
    );
    assert!(!d.join("nowhere").exists());
}

/// Is process `pid` waiting for a flock (a `->` line of /proc/locks)?
fn waits_for_lock(pid: u32) -> bool {
    let pid = pid.to_string();
    std::fs::read_to_string("/proc/locks")
        .unwrap_or_default()
        .lines()
        .any(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            f.get(1) == Some(&"->") && f.get(2) == Some(&"FLOCK") && f.get(5) == Some(&&pid[..])
        })
}

/// While the test holds SUMS's flock (as another updater would, from
/// reading SUMS to replacing it), an update waits for it (it says so, and
/// /proc/locks shows it blocked); the test then adds a line, in place or
/// by renaming a new SUMS over the locked one, and lets go: the update
/// reads what the test left and adds to it.
#[test]
fn updaters_take_turns_on_the_manifest_s_lock() {
    let dir = fixture(&[]);
    let d = dir.path();
    let before = std::fs::read(d.join("SUMS")).unwrap();
    write_file(d, "d/c", b"c");
    write_file(d, "x", b"x");
    let theirs = md5_line(d, "x");
    let ours = md5_line(d, "d/c");
    let waits = "fastsum: SUMS: locked by another process: waiting for it\n";
    let errs = tempdir();
    for renamed in [false, true] {
        std::fs::write(d.join("SUMS"), &before).unwrap();
        let held = std::fs::File::open(d.join("SUMS")).unwrap();
        // SAFETY: flock on a descriptor the File holds open
        assert_eq!(unsafe { libc::flock(held.as_raw_fd(), libc::LOCK_EX) }, 0);
        let err = errs.path().join(format!("stderr.{renamed}"));
        let mut child = fastsum()
            .current_dir(d)
            .args(["-r", "d", "--update", "SUMS", "-a", "md5"])
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&err).unwrap())
            .spawn()
            .unwrap();
        let pid = child.id();
        let said = || std::fs::read(&err).unwrap().starts_with(waits.as_bytes());
        let waited =
            eventually(|| said() || waits_for_lock(pid) || child.try_wait().unwrap().is_some());
        assert!(
            waited && child.try_wait().unwrap().is_none(),
            "renamed {renamed}: fastsum did not wait for the lock: {:?}",
            child.try_wait()
        );
        assert_eq!(std::fs::read(d.join("SUMS")).unwrap(), before);
        if renamed {
            std::fs::write(d.join("SUMS.new"), [&before[..], &theirs].concat()).unwrap();
            std::fs::rename(d.join("SUMS.new"), d.join("SUMS")).unwrap();
        } else {
            use std::io::Write;
            std::fs::OpenOptions::new()
                .append(true)
                .open(d.join("SUMS"))
                .unwrap()
                .write_all(&theirs)
                .unwrap();
        }
        drop(held);
        let o = wait_bounded(child, "the waiting update");
        assert!(o.status.success(), "renamed {renamed}: {}", shown(&o));
        assert_eq!(
            String::from_utf8_lossy(&std::fs::read(&err).unwrap()),
            format!("{waits}fastsum: SUMS: 1 added, 0 pruned, 3 kept\n"),
            "renamed {renamed}"
        );
        assert_eq!(
            String::from_utf8_lossy(&std::fs::read(d.join("SUMS")).unwrap()),
            String::from_utf8_lossy(&[&before[..], &theirs, &ours].concat()),
            "renamed {renamed}"
        );
        assert_eq!(others(d), ["x"]);
    }
}

/// Two updaters of one SUMS at once, each adding a tree of its own: every
/// line of both is there, whichever went first.
#[test]
fn concurrent_updates_lose_no_line() {
    let dir = tempdir();
    let d = dir.path();
    for t in ["a", "b"] {
        for i in 0..20 {
            write_file(d, format!("{t}{i}"), format!("{t} {i}").as_bytes());
        }
    }
    for t in ["a", "b"] {
        std::fs::create_dir(d.join(t)).unwrap();
        for i in 0..20 {
            std::fs::rename(d.join(format!("{t}{i}")), d.join(format!("{t}/{i}"))).unwrap();
        }
    }
    for round in 0..4 {
        let _ = std::fs::remove_file(d.join("SUMS"));
        let spawn = |t: &str| {
            fastsum()
                .current_dir(d)
                .args(["-r", t, "--update", "SUMS", "-a", "md5"])
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        };
        let (a, b) = (spawn("a"), spawn("b"));
        for o in [wait_bounded(a, "a"), wait_bounded(b, "b")] {
            assert!(o.status.success(), "round {round}: {}", shown(&o));
        }
        let sums = std::fs::read_to_string(d.join("SUMS")).unwrap();
        let mut names: Vec<&str> = sums.lines().map(|l| &l[34..]).collect();
        names.sort();
        let mut want: Vec<String> = ["a", "b"]
            .iter()
            .flat_map(|t| (0..20).map(move |i| format!("{t}/{i}")))
            .collect();
        want.sort();
        assert_eq!(names, want, "round {round}");
    }
}

#[test]
fn the_manifest_and_its_temporary_files_are_never_listed_in_it() {
    let dir = tempdir();
    let d = dir.path();
    std::fs::create_dir(d.join("sub")).unwrap();
    write_file(d, "f1", b"1");
    write_file(d, "sub/f2", b"2");
    // what a killed run (or one of an older fastsum) left
    write_file(d, "SUMS.fastsum-update.1", b"junk");
    write_file(
        d,
        "sub/SUMS.fastsum-update.2",
        b"not ours: another directory",
    );
    let listed = |sums: &str| -> Vec<String> {
        let text = std::fs::read_to_string(d.join(sums)).unwrap();
        let mut v: Vec<String> = text.lines().map(|l| l[34..].to_string()).collect();
        v.sort();
        v
    };
    // SUMS missing (made), then present: neither run lists it
    for new in ["", "f3"] {
        if !new.is_empty() {
            write_file(d, new, b"3");
        }
        let o = fastsum_in(d, &["-r", ".", "--update", "SUMS", "-a", "md5"]);
        assert!(o.status.success(), "{}", shown(&o));
        let mut want = vec!["./f1", "./sub/SUMS.fastsum-update.2", "./sub/f2"];
        if !new.is_empty() {
            want.push("./f3");
        }
        want.sort();
        assert_eq!(listed("SUMS"), want);
        let c = fastsum_in(d, &["-c", "SUMS"]);
        assert!(c.status.success(), "{}", shown(&c));
    }
    // through a link, the target in the tree is not listed either
    std::fs::create_dir(d.join("meta")).unwrap();
    std::os::unix::fs::symlink("meta/S.md5", d.join("LINKED")).unwrap();
    std::fs::write(d.join("meta/S.md5"), md5_line(d, "f1")).unwrap();
    let o = fastsum_in(d, &["-r", "meta", "f1", "--update", "LINKED", "-a", "md5"]);
    assert!(o.status.success(), "{}", shown(&o));
    assert_eq!(listed("meta/S.md5"), ["f1"]);
    // named as an operand, it is not listed either
    let o = fastsum_in(d, &["f1", "SUMS", "--update", "SUMS", "-a", "md5"]);
    assert!(o.status.success(), "{}", shown(&o));
    assert!(!listed("SUMS").contains(&"SUMS".to_string()));
}

/// A temporary file left by a killed run that had this run's PID (PID 1 in
/// every container) does not stand in its way.
#[test]
fn a_leftover_temporary_file_blocks_no_later_run() {
    let dir = fixture(&[]);
    let d = dir.path();
    let before = std::fs::read(d.join("SUMS")).unwrap();
    let fifo = d.join("fifo");
    mkfifo(&fifo);
    write_file(d, "d/c", b"c");
    let child = fastsum()
        .current_dir(d)
        .args(["-r", "d", "fifo", "--update", "SUMS", "-a", "md5"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // the name an earlier run with this PID used, left behind by a kill
    let leftover = format!("SUMS.fastsum-update.{}", child.id());
    write_file(d, &leftover, b"junk");
    // once it waits on the FIFO (the manifest read), let it go on
    wait_until_open(child.id(), &fifo);
    std::fs::write(&fifo, b"f").unwrap();
    let o = wait_bounded(child, "the update");
    assert!(o.status.success(), "{}", shown(&o));
    let after = std::fs::read(d.join("SUMS")).unwrap();
    assert!(after.starts_with(&before) && after.len() > before.len());
    assert_eq!(std::fs::read(d.join(&leftover)).unwrap(), b"junk");
    std::fs::remove_file(&fifo).unwrap();
    assert_eq!(others(d), [leftover]);
}

/// Untagged lines whose length fits several algorithms: refused without
/// -a, naming the choices; with -a, new lines in that algorithm.
#[test]
fn untagged_lines_of_several_possible_algorithms_need_a() {
    // (written --untagged: fastsum's own name tags these algorithms' lines)
    for (algo, choices) in [
        ("blake2b", &["sha512", "blake2b", "sha3"][..]),
        ("sha256", &["sha256", "blake3", "blake2b", "sm3", "sha3"]),
        ("blake3", &["sha256", "blake3", "blake2b", "sm3", "sha3"]),
    ] {
        let dir = fixture(&["-a", algo, "--untagged"]);
        let d = dir.path();
        let before = std::fs::read(d.join("SUMS")).unwrap();
        write_file(d, "d/c", b"c");
        let o = fastsum_in(d, &["-r", "d", "--update", "SUMS"]);
        assert_untouched(d, &before, &o, algo);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            choices.iter().all(|c| err.contains(c)) && err.contains("-a"),
            "{algo}: {}",
            shown(&o)
        );
        let o = fastsum_in(d, &["-r", "d", "--update", "SUMS", "-a", algo]);
        assert!(o.status.success(), "{algo}: {}", shown(&o));
        let line = fastsum_in(d, &["-a", algo, "--untagged", "d/c"]).stdout;
        assert_eq!(
            std::fs::read(d.join("SUMS")).unwrap(),
            [&before[..], &line].concat(),
            "{algo}"
        );
    }
    // b2sum checks what was added to its manifest
    if require_tool("b2sum") {
        let dir = fixture(&["-a", "blake2b", "--untagged"]);
        let d = dir.path();
        write_file(d, "d/c", b"c");
        let o = fastsum_in(d, &["-r", "d", "--update", "SUMS", "-a", "blake2b"]);
        assert!(o.status.success(), "{}", shown(&o));
        let c = run(gnu("b2sum").current_dir(d).args(["-c", "SUMS"]));
        assert!(c.status.success(), "{}", shown(&c));
    }
}

/// Issue 40 §7: what fastsum writes without options, `-c` and `--update`
/// read back without them. MD5's 32 hex digits and SHA-1's 40 are read as
/// `-c` reads them (`md5sum -c` does); the other algorithms' lines are
/// written tagged (`SHA256 (d/a) = …`, as GNU `cksum -a sha256` writes
/// them). Each manifest is then updated, and checked.
#[test]
fn what_fastsum_writes_it_updates_and_checks_without_options() {
    for algo in [
        "md5", "sha1", "sha224", "sha256", "sha384", "sha512", "blake3", "blake2b", "sm3", "xxh32",
        "xxh64", "xxh128", "xxh3",
    ] {
        let dir = fixture(&["-a", algo]);
        let d = dir.path();
        let before = std::fs::read(d.join("SUMS")).unwrap();
        write_file(d, "d/c", b"c");
        let o = fastsum_in(d, &["-r", "d", "--update", "SUMS"]);
        assert_says(&o, "fastsum: SUMS: 1 added, 0 pruned, 2 kept\n", algo);
        let line = fastsum_in(d, &["-a", algo, "d/c"]).stdout;
        assert_eq!(
            std::fs::read(d.join("SUMS")).unwrap(),
            [&before[..], &line].concat(),
            "{algo}"
        );
        let c = fastsum_in(d, &["-c", "SUMS"]);
        assert_eq!(
            String::from_utf8_lossy(&c.stdout),
            "d/a: OK\nd/s/b: OK\nd/c: OK\n",
            "{algo}: {}",
            shown(&c)
        );
        assert!(c.status.success(), "{algo}: {}", shown(&c));
    }
}

#[test]
fn no_file_is_a_usage_error_not_standard_input() {
    let dir = fixture(&[]);
    let d = dir.path();
    let before = std::fs::read(d.join("SUMS")).unwrap();
    for files in [&[][..], &["-"], &["d/a", "-"]] {
        let o = run_with_stdin(
            fastsum()
                .current_dir(d)
                .args(["--update", "SUMS", "-a", "md5"])
                .args(files),
            b"data",
        );
        assert_eq!(o.status.code(), Some(2), "{files:?}: {}", shown(&o));
        assert!(
            String::from_utf8_lossy(&o.stderr).contains("--update adds the FILEs"),
            "{files:?}: {}",
            shown(&o)
        );
        assert_eq!(std::fs::read(d.join("SUMS")).unwrap(), before);
    }
}

/// Names listed as `find . | xargs md5sum` writes them (`./d/a`), with
/// doubled slashes, or absolute, are the files the walk finds; so are the
/// names of an absolute walk.
#[test]
fn listed_names_are_compared_in_normal_absolute_form() {
    let dir = fixture(&[]);
    let d = dir.path();
    let abs = std::fs::canonicalize(d).unwrap();
    let abs = abs.to_str().unwrap();
    let (a, b) = (format!("{abs}/d/a"), format!("{abs}/d/s/b"));
    let abs_d = format!("{abs}/d");
    for (names, walk) in [
        (["./d/a", "./d/s/b"], "d"),
        (["d//a", "./d//s/b"], "d"),
        ([&a[..], &b[..]], "d"),
        (["d/a", "d/s/b"], &abs_d[..]),
        (["./d/a", "d/s/b"], "./d/"),
    ] {
        let made = run(fastsum().current_dir(d).args(names));
        assert!(made.status.success(), "{}", shown(&made));
        std::fs::write(d.join("SUMS"), &made.stdout).unwrap();
        let o = fastsum_in(d, &["-r", walk, "--update", "SUMS", "-a", "md5"]);
        let what = format!("{names:?} walking {walk}");
        assert_eq!(
            std::fs::read(d.join("SUMS")).unwrap(),
            made.stdout,
            "{what}"
        );
        assert_says(&o, "fastsum: SUMS: 0 added, 0 pruned, 2 kept\n", &what);
    }
}

/// `--prune` drops only the lines of gone files under what is walked:
/// from another directory (where the names resolve to nothing), or for a
/// walk of part of the tree, the other lines stay.
#[test]
fn prune_drops_only_what_is_gone_under_the_inputs() {
    let dir = fixture(&[]);
    let d = dir.path();
    let before = std::fs::read(d.join("SUMS")).unwrap();
    let elsewhere = tempdir();
    let sums = d.join("SUMS");
    let o = run(fastsum().current_dir(elsewhere.path()).args([
        "-r".as_ref(),
        d.join("d/s").as_os_str(),
        "--update".as_ref(),
        sums.as_os_str(),
        "--prune".as_ref(),
        "-a".as_ref(),
        "md5".as_ref(),
    ]));
    assert!(o.status.success(), "{}", shown(&o));
    let after = std::fs::read(&sums).unwrap();
    assert!(
        after.starts_with(&before),
        "{}",
        String::from_utf8_lossy(&after)
    );
    // a part of the tree: a gone file outside it keeps its line
    std::fs::write(&sums, &before).unwrap();
    std::fs::remove_file(d.join("d/a")).unwrap();
    let prune = |d: &Path| {
        fastsum_in(
            d,
            &["-r", "d/s", "--update", "SUMS", "--prune", "-a", "md5"],
        )
    };
    let o = prune(d);
    assert_says(&o, "fastsum: SUMS: 0 added, 0 pruned, 2 kept\n", "d/a gone");
    assert_eq!(std::fs::read(&sums).unwrap(), before);
    std::fs::remove_file(d.join("d/s/b")).unwrap();
    let o = prune(d);
    assert_says(
        &o,
        "fastsum: SUMS: 0 added, 1 pruned, 1 kept\n",
        "d/s/b gone",
    );
    let first_line = before.split_inclusive(|&b| b == b'\n').next().unwrap();
    assert_eq!(std::fs::read(&sums).unwrap(), first_line);
}

#[test]
fn update_says_what_it_did_unless_quiet() {
    let dir = fixture(&[]);
    let d = dir.path();
    let before = std::fs::read(d.join("SUMS")).unwrap();
    std::fs::remove_file(d.join("d/a")).unwrap();
    write_file(d, "d/c", b"c");
    for (quiet, says) in [
        (None, "fastsum: SUMS: 1 added, 1 pruned, 1 kept\n"),
        (Some("--quiet"), ""),
        (Some("--status"), ""),
    ] {
        std::fs::write(d.join("SUMS"), &before).unwrap();
        let o = run(fastsum()
            .current_dir(d)
            .args(["-r", "d", "--update", "SUMS", "--prune", "-a", "md5"])
            .args(quiet));
        assert_says(&o, says, &format!("{quiet:?}"));
        assert!(o.stdout.is_empty());
    }
    // a missing SUMS is made; a failed run leaves none behind
    let o = fastsum_in(d, &["-r", "d", "--update", "NEW", "-a", "md5"]);
    assert_says(&o, "fastsum: NEW: 2 added, 0 pruned, 0 kept\n", "NEW");
    let o = fastsum_in(
        d,
        &["-r", "d", "no-such-file", "--update", "NEW2", "-a", "md5"],
    );
    assert_eq!(o.status.code(), Some(1), "{}", shown(&o));
    assert!(!d.join("NEW2").exists());
    // -w is still check mode's alone
    let o = fastsum_in(d, &["-r", "d", "--update", "SUMS", "-w"]);
    assert_eq!(o.status.code(), Some(2), "{}", shown(&o));
}

/// Issue 40 §13: what `-c` reads, `--update` keeps. Comments and empty
/// lines stay where they are (a block header says the algorithm of the
/// untagged lines below it, as to `-c`); a CRLF manifest gets CRLF lines;
/// and a SUMS with other hard links is replaced by a new file (never
/// rewritten in place, which a crash could leave half-written), which is
/// said on stderr: the other links keep the old manifest.
#[test]
fn comments_crlf_and_hard_links_are_kept_or_said() {
    let dir = fixture(&[]);
    let d = dir.path();
    let lines = std::fs::read(d.join("SUMS")).unwrap();
    let first = lines.iter().position(|&b| b == b'\n').unwrap() + 1;
    let b_line = fastsum_in(d, &["d/s/b"]).stdout;
    // comments and an empty line around the one line for d/a
    let before = [
        &b"# sums of d\n\n"[..],
        &lines[..first],
        b"# end of the list\n",
    ]
    .concat();
    std::fs::write(d.join("SUMS"), &before).unwrap();
    let o = fastsum_in(d, &["-r", "d", "--update", "SUMS"]);
    assert_says(&o, "fastsum: SUMS: 1 added, 0 pruned, 1 kept\n", "comments");
    let after = std::fs::read(d.join("SUMS")).unwrap();
    assert_eq!(after, [&before[..], &b_line].concat(), "comments");
    let c = fastsum_in(d, &["-c", "SUMS"]);
    assert_eq!(String::from_utf8_lossy(&c.stdout), "d/a: OK\nd/s/b: OK\n");
    // a block header says the untagged lines' algorithm
    let sha = fastsum_in(d, &["-a", "sha256", "--untagged", "d/a"]).stdout;
    let before = [&b"# SHA256 HASH\n"[..], &sha].concat();
    std::fs::write(d.join("SUMS"), &before).unwrap();
    let o = fastsum_in(d, &["-r", "d", "--update", "SUMS"]);
    assert_says(&o, "fastsum: SUMS: 1 added, 0 pruned, 1 kept\n", "header");
    let sha_b = fastsum_in(d, &["-a", "sha256", "--untagged", "d/s/b"]).stdout;
    let after = std::fs::read(d.join("SUMS")).unwrap();
    assert_eq!(after, [&before[..], &sha_b].concat(), "header");
    // CRLF lines in, CRLF lines out
    let crlf = |text: &[u8]| -> Vec<u8> {
        text.split_inclusive(|&b| b == b'\n')
            .flat_map(|l| [l.strip_suffix(b"\n").unwrap_or(l), b"\r\n"].concat())
            .collect()
    };
    let before = crlf(&lines[..first]);
    std::fs::write(d.join("SUMS"), &before).unwrap();
    let o = fastsum_in(d, &["-r", "d", "--update", "SUMS"]);
    assert_says(&o, "fastsum: SUMS: 1 added, 0 pruned, 1 kept\n", "crlf");
    let after = std::fs::read(d.join("SUMS")).unwrap();
    assert_eq!(after, [&before[..], &crlf(&b_line)].concat(), "crlf");
    if require_tool("md5sum") {
        let c = run(gnu("md5sum").current_dir(d).args(["-c", "SUMS"]));
        assert!(c.status.success(), "{}", shown(&c));
    }
    // a hard link keeps the old manifest, and that is said
    std::fs::write(d.join("SUMS"), &lines[..first]).unwrap();
    std::fs::hard_link(d.join("SUMS"), d.join("LINK")).unwrap();
    let o = fastsum_in(d, &["-r", "d", "--update", "SUMS"]);
    assert_says(
        &o,
        "fastsum: SUMS: replaced by a new file: its 1 other hard link keeps the old \
         manifest\nfastsum: SUMS: 1 added, 0 pruned, 1 kept\n",
        "hard link",
    );
    assert_eq!(std::fs::read(d.join("LINK")).unwrap(), &lines[..first]);
    let after = std::fs::read(d.join("SUMS")).unwrap();
    assert_eq!(after, [&lines[..first], &b_line].concat(), "hard link");
}

/// A tree `d` of `n` files of 16 KiB with mtimes in 2020 (old enough for
/// their `#meta` lines to vouch for them), and SUMS listing the first five
/// (with `#meta` lines if `meta`), in md5.
fn old_tree(d: &Path, n: usize, meta: bool) -> u64 {
    std::fs::create_dir_all(d.join("d")).unwrap();
    let when = std::time::UNIX_EPOCH + Duration::from_secs(1_577_836_800);
    for i in 0..n {
        let p = write_file(
            d,
            format!("d/f{i:03}"),
            &fastsum::internals::random_bytes(16 << 10, i as u64),
        );
        let f = std::fs::File::options().write(true).open(&p).unwrap();
        f.set_modified(when).unwrap();
    }
    let listed: Vec<String> = (0..5).map(|i| format!("d/f{i:03}")).collect();
    let mut make = fastsum();
    make.current_dir(d).args(["-a", "md5"]).args(&listed);
    if meta {
        make.arg("--meta");
    }
    std::fs::write(d.join("SUMS"), run(&mut make).stdout).unwrap();
    ((n - 5) as u64) << 14
}

/// The checkpoint's whole records (a `#meta` line, then a checksum line
/// ending in its newline): the bytes of the distinct files they list.
fn checkpointed_bytes(d: &Path) -> u64 {
    let Ok(text) = std::fs::read(d.join(CHECKPOINT)) else {
        return 0;
    };
    let mut files = std::collections::HashMap::new();
    let mut size = None;
    for line in text.split_inclusive(|&b| b == b'\n').skip(1) {
        if !line.ends_with(b"\n") {
            break;
        }
        let line = String::from_utf8_lossy(line);
        match line.strip_prefix("#meta size=") {
            Some(rest) => size = rest.split([' ', '\n']).next().and_then(|s| s.parse().ok()),
            None => {
                if let Some(s) = size.take() {
                    files.insert(line.split("  ").nth(1).unwrap().to_string(), s);
                }
            }
        }
    }
    files.values().sum()
}

/// fastsum's `--update` in `d`, slowed by strace (each read 20 ms, one
/// job, 4 KiB reads), SIGKILLed after `after` (unless done by then):
/// whether it was killed, and what it said; the calls it made are logged
/// in `d/trace`.
fn killed_update(d: &Path, after: Duration) -> (bool, Output) {
    let mut strace = Command::new("strace")
        .args(["-f", "-qq", "-o", "trace", "-e", "trace=read,openat"])
        .args(["-e", "inject=read:delay_exit=20000"])
        .arg(fastsum_path())
        .current_dir(d)
        .args(["-r", "d", "--update", "SUMS", "-a", "md5"])
        .args(["-j", "1", "-m", "sync", "--chunk", "4096"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let children = format!("/proc/{0}/task/{0}/children", strace.id());
    let mut pid = None;
    assert!(
        eventually(|| {
            // (strace's first children may be its own probes)
            pid = std::fs::read_to_string(&children).ok().and_then(|c| {
                c.split_whitespace()
                    .filter_map(|p| p.parse::<i32>().ok())
                    .find(|p| {
                        std::fs::read_to_string(format!("/proc/{p}/comm"))
                            .is_ok_and(|n| n == "fastsum\n")
                    })
            });
            pid.is_some() || strace.try_wait().unwrap().is_some()
        }),
        "strace never started fastsum"
    );
    std::thread::sleep(after);
    let running = strace.try_wait().unwrap().is_none();
    if let (true, Some(pid)) = (running, pid) {
        // SAFETY: kill(2) of strace's child, which strace has not reaped
        unsafe { libc::kill(pid, libc::SIGKILL) };
    }
    let o = wait_bounded(strace, "strace'd --update");
    (running && !o.status.success(), o)
}

/// How many bytes of the files `d/f…` an strace log of `read` and
/// `openat` shows read (fastsum's threads share their descriptors).
fn bytes_read(trace: &str) -> u64 {
    let mut files = std::collections::HashMap::new();
    let mut total = 0;
    for line in trace.lines() {
        let call = line.split_once(' ').map_or("", |(_, c)| c);
        let result = call.rsplit("= ").next().and_then(|r| r.split(' ').next());
        let Some(result) = result.and_then(|r| r.parse::<i64>().ok()) else {
            continue;
        };
        if call.starts_with("openat(") {
            files.insert(result.to_string(), call.contains("\"d/f"));
        } else if let Some(args) = call.strip_prefix("read(") {
            let fd = args.split(',').next().unwrap_or("");
            if files.get(fd) == Some(&true) {
                total += result.max(0) as u64;
            }
        }
    }
    total
}

/// Killed (SIGKILL) at seeded random points, again and again: SUMS is each
/// time the old one, byte for byte (md5sum -c verifies it), what was hashed
/// is in the checkpoint beside it, and the run that completes hashes only
/// what the checkpoint does not hold, and writes what an uninterrupted run
/// writes (then the checkpoint is gone).
#[test]
fn a_killed_update_resumes_from_its_checkpoint() {
    if !require_strace() || !require_tool("md5sum") {
        return;
    }
    for (seed, meta) in [(1, false), (2, true)] {
        let dir = tempdir();
        let d = dir.path();
        let to_hash = old_tree(d, 150, meta);
        let before = std::fs::read(d.join("SUMS")).unwrap();
        // what an uninterrupted run makes of it
        std::fs::write(d.join("REF"), &before).unwrap();
        let o = run(fastsum()
            .current_dir(d)
            .args(["-r", "d", "--update", "REF", "-a", "md5"]));
        assert!(o.status.success(), "{}", shown(&o));
        let want = std::fs::read(d.join("REF")).unwrap();
        let mut rng = fastsum::internals::Rng::new(seed);
        let mut grew = false;
        for kill in 0..3 {
            let had = checkpointed_bytes(d);
            let after = Duration::from_millis(1500 + rng.below(1000) as u64);
            let what = format!("meta {meta}, kill {kill} after {after:?}");
            let (killed, o) = killed_update(d, after);
            assert!(killed, "{what}: done before the kill: {}", shown(&o));
            assert_eq!(std::fs::read(d.join("SUMS")).unwrap(), before, "{what}");
            let o = run(gnu("md5sum")
                .current_dir(d)
                .args(["-c", "--strict", "SUMS"]));
            assert!(o.status.success(), "{what}: {}", shown(&o));
            let now = checkpointed_bytes(d);
            assert!(now >= had, "{what}: the checkpoint lost lines");
            grew |= now > had;
            // the bound: what the run read of the files and the checkpoint
            // did not get is at most a second's reads (each takes 20 ms at
            // least, 4 KiB each), the rest of the file that ended the second
            // and the file being hashed at the kill (4 reads each)
            let read = bytes_read(&std::fs::read_to_string(d.join("trace")).unwrap());
            let lost = read.saturating_sub(now - had);
            eprintln!("{what}: read {read} bytes, {lost} not checkpointed");
            assert!(lost <= (1000 / 20 + 8) * 4096, "{what}: {lost} bytes lost");
        }
        assert!(grew, "meta {meta}: no kill left anything in the checkpoint");
        let kept = checkpointed_bytes(d);
        let o = run(fastsum()
            .current_dir(d)
            .args(["-r", "d", "--update", "SUMS", "-a", "md5", "--stats"]));
        assert!(o.status.success(), "{}", shown(&o));
        let hashed = format!("bytes hashed: {}\n", to_hash - kept);
        assert!(
            String::from_utf8_lossy(&o.stderr).contains(&hashed),
            "meta {meta}: want {hashed}: {}",
            shown(&o)
        );
        assert_eq!(std::fs::read(d.join("SUMS")).unwrap(), want, "meta {meta}");
        assert!(!d.join(CHECKPOINT).exists(), "meta {meta}");
    }
}

/// A checkpoint is trusted only for a file still as it recorded (an edit
/// since is hashed again), and only if its first line names this command:
/// another's is ignored and removed, and says so.
#[test]
fn a_checkpoint_is_trusted_only_as_far_as_it_holds() {
    let dir = tempdir();
    let d = dir.path();
    let to_hash = old_tree(d, 8, false);
    let update = ["-r", "d", "--update", "SUMS", "-a", "md5", "--stats"];
    let uninterrupted = |d: &Path| {
        std::fs::copy(d.join("SUMS"), d.join("REF")).unwrap();
        let o = run(fastsum()
            .current_dir(d)
            .args(["-r", "d", "--update", "REF", "-a", "md5"]));
        assert!(o.status.success(), "{}", shown(&o));
        std::fs::read(d.join("REF")).unwrap()
    };
    // a run that fails (an operand that is not there) keeps its checkpoint
    let o = run(fastsum().current_dir(d).args(update).arg("missing"));
    assert_eq!(o.status.code(), Some(1), "{}", shown(&o));
    assert_eq!(checkpointed_bytes(d), to_hash);
    // one file edited since (its mtime too): hashed again
    let edited = write_file(d, "d/f006", b"edited");
    let f = std::fs::File::options().write(true).open(edited).unwrap();
    f.set_modified(std::time::UNIX_EPOCH + Duration::from_secs(1_609_459_200))
        .unwrap();
    let want = uninterrupted(d);
    let o = run(fastsum().current_dir(d).args(update));
    assert!(o.status.success(), "{}", shown(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("bytes hashed: 6\n"), "{}", shown(&o));
    assert_eq!(std::fs::read(d.join("SUMS")).unwrap(), want);
    assert!(!d.join(CHECKPOINT).exists());
    // a first run (no manifest yet) that fails leaves none, but its
    // checkpoint: the next one reads nothing again
    let first = ["-r", "d", "--update", "NEW", "-a", "md5", "--stats"];
    let o = run(fastsum().current_dir(d).args(first).arg("missing"));
    assert_eq!(o.status.code(), Some(1), "{}", shown(&o));
    assert!(!d.join("NEW").exists());
    assert!(d.join("NEW.fastsum-update.checkpoint").exists());
    let o = run(fastsum().current_dir(d).args(first));
    assert!(o.status.success(), "{}", shown(&o));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("bytes hashed: 0\n"),
        "{}",
        shown(&o)
    );
    let plain = run(fastsum().current_dir(d).args(["-r", "d", "-a", "md5"]));
    assert_eq!(std::fs::read(d.join("NEW")).unwrap(), plain.stdout);
    assert!(!d.join("NEW.fastsum-update.checkpoint").exists());
    // another command's checkpoint: ignored, removed
    write_file(d, "d/new", b"new");
    let o = run(fastsum().current_dir(d).args(update).arg("missing"));
    assert_eq!(o.status.code(), Some(1), "{}", shown(&o));
    let text = std::fs::read(d.join(CHECKPOINT)).unwrap();
    let other = String::from_utf8_lossy(&text).replacen("Md5", "Sha1", 1);
    std::fs::write(d.join(CHECKPOINT), other).unwrap();
    let want = uninterrupted(d);
    let o = run(fastsum().current_dir(d).args(update));
    assert!(o.status.success(), "{}", shown(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("SUMS.fastsum-update.checkpoint': of another command: ignored and removed")
            || err.contains("SUMS.fastsum-update.checkpoint: of another command"),
        "{}",
        shown(&o)
    );
    assert!(err.contains("bytes hashed: 3\n"), "{}", shown(&o));
    assert_eq!(std::fs::read(d.join("SUMS")).unwrap(), want);
    assert!(!d.join(CHECKPOINT).exists());
}

/// What has the checkpoint's name beside SUMS but is no regular file of
/// its own is neither read nor written over: a FIFO is not waited on (the
/// run hung), a symbolic link is not followed (its target was read, and
/// could be cut and written), and both are left as they were.
#[test]
fn a_checkpoint_name_that_is_no_regular_file_is_left_alone() {
    let t = crate::util::tempdir();
    let dir = t.path();
    std::fs::create_dir(dir.join("d")).unwrap();
    std::fs::write(dir.join("d/a"), b"a\n").unwrap();
    std::fs::write(dir.join("victim"), b"not a checkpoint\n").unwrap();
    let fifo =
        crate::util::run(Command::new("mkfifo").arg(dir.join("F.fastsum-update.checkpoint")));
    assert!(fifo.status.success(), "{}", crate::util::shown(&fifo));
    std::os::unix::fs::symlink("victim", dir.join("L.fastsum-update.checkpoint")).unwrap();
    for sums in ["F", "L"] {
        let o = crate::util::within(
            crate::util::fastsum()
                .current_dir(dir)
                .args(["-r", "d", "--update", sums]),
            Duration::from_secs(20),
            Command::output,
        )
        .unwrap();
        assert_eq!(
            o.status.code(),
            Some(0),
            "{sums}: {}",
            crate::util::shown(&o)
        );
        assert_eq!(
            std::fs::read(dir.join(sums)).unwrap(),
            b"60b725f10c9c85c70d97880dfe8191b3  d/a\n"
        );
    }
    let kind = |p: &str| std::fs::symlink_metadata(dir.join(p)).unwrap().file_type();
    assert!(kind("F.fastsum-update.checkpoint").is_fifo());
    assert!(kind("L.fastsum-update.checkpoint").is_symlink());
    assert_eq!(
        std::fs::read(dir.join("victim")).unwrap(),
        b"not a checkpoint\n"
    );
}

/// A run that resumes from a checkpoint opens none of the files it holds
/// (still as recorded), even once the walk, its directories slow to list,
/// reads them ahead on threads (whose prefetch opens each file it lists).
#[test]
fn a_resumed_update_opens_no_file_its_checkpoint_holds() {
    if !require_strace() {
        return;
    }
    let dir = tempdir();
    let d = dir.path();
    let when = std::time::UNIX_EPOCH + Duration::from_secs(1_577_836_800);
    for i in 0..40 {
        std::fs::create_dir_all(d.join(format!("t/{i:02}"))).unwrap();
        for j in 0..3 {
            let p = write_file(
                d,
                format!("t/{i:02}/held{j}"),
                format!("{i} {j}").as_bytes(),
            );
            let f = std::fs::File::options().write(true).open(&p).unwrap();
            f.set_modified(when).unwrap();
        }
    }
    // a run that fails (an operand that is not there) keeps what it hashed
    std::fs::write(d.join("SUMS"), b"").unwrap();
    let o = run(fastsum()
        .current_dir(d)
        .args(["-r", "t", "missing", "--update", "SUMS", "-a", "md5"]));
    assert!(!o.status.success(), "{}", shown(&o));
    assert!(d.join(CHECKPOINT).exists(), "{}", shown(&o));
    write_file(d, "t/39/new", b"new");
    // each listing slowed (2 ms), so that the walk reads ahead
    let trace = d.join("trace");
    let o = run(Command::new("strace")
        .args(["-f", "-qq", "-e", "trace=open,openat,getdents64", "-o"])
        .arg(&trace)
        .args(["-e", "inject=getdents64:delay_exit=2000"])
        .arg(fastsum_path())
        .env("FASTSUM_WALK_THREADS", "4")
        .current_dir(d)
        .args(["-r", "t", "--update", "SUMS", "-a", "md5", "--stats"]));
    assert!(o.status.success(), "{}", shown(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("SUMS: 121 added") && err.contains("bytes hashed: 3\n"),
        "{err}"
    );
    let calls = std::fs::read_to_string(&trace).unwrap();
    let opened: Vec<&str> = calls
        .lines()
        .filter(|l| l.contains("open") && l.contains("/held"))
        .collect();
    assert!(opened.is_empty(), "opened:\n{}", opened.join("\n"));
}
