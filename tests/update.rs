//! `--update SUMS`: only what SUMS does not list is hashed, its lines
//! appended in SUMS's own algorithm and format (md5sum and sha256sum give
//! the same lines for the new files, and verify the result); `--prune`
//! drops what is gone; and SUMS is never lost: a refused manifest, a
//! failed input, an injected write or sync fault or a SIGKILL leave it
//! byte for byte as it was, with no temporary file behind.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use crate::util::{
    fastsum, gnu, os, require_strace, require_tool, run, shown, tempdir, write_file,
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
    for (make, tool) in [
        (&[][..], "md5sum"),
        (&["-a", "sha256", "--tag"][..], "sha256sum"),
        (&["-a", "sha1", "-b"][..], "sha1sum"),
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
            .args(["-r", "d", "--update", "SUMS"]));
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
            .args(["-r", "d", "--update", "SUMS"]));
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
    let o = run(fastsum()
        .current_dir(d)
        .args(["-r", "d", "--update", "SUMS", "--prune"]));
    assert!(o.status.success(), "{}", shown(&o));
    let sums = String::from_utf8(std::fs::read(d.join("SUMS")).unwrap()).unwrap();
    let names: Vec<&str> = sums.lines().map(|l| &l[34..]).collect();
    assert_eq!(names, ["d/s/b", "d/c"]);
    // a missing SUMS is made
    let o = run(fastsum()
        .current_dir(d)
        .args(["-r", "d", "--update", "NEW", "-a", "sha256"]));
    assert!(o.status.success(), "{}", shown(&o));
    assert_eq!(
        std::fs::read_to_string(d.join("NEW"))
            .unwrap()
            .lines()
            .count(),
        2
    );
}

/// Assert that a run failed (exit 1) and left SUMS as it was.
fn assert_untouched(d: &Path, before: &[u8], o: &std::process::Output, what: &str) {
    assert_eq!(o.status.code(), Some(1), "{what}: {}", shown(o));
    assert_eq!(std::fs::read(d.join("SUMS")).unwrap(), before, "{what}");
    assert_eq!(others(d), Vec::<String>::new(), "{what}");
}

#[test]
fn a_manifest_it_cannot_extend_is_left_as_it_was() {
    let dir = fixture(&[]);
    let d = dir.path();
    write_file(d, "d/c", b"c");
    let good = std::fs::read(d.join("SUMS")).unwrap();
    let sha = run(fastsum().current_dir(d).args(["-a", "sha1", "d/a"])).stdout;
    let tagged = run(fastsum().current_dir(d).args(["--tag", "d/a"])).stdout;
    let sha256 = run(fastsum().current_dir(d).args(["-a", "sha256", "d/a"])).stdout;
    for (what, sums, extra) in [
        ("two algorithms", [&good[..], &sha].concat(), &[][..]),
        ("two formats", [&good[..], &tagged].concat(), &[]),
        (
            "a line that is no checksum line",
            [&good[..], b"junk\n"].concat(),
            &[],
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
            &["no-such-file"],
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
            .args(["-r", "d", "--update", "SUMS"]));
        assert_untouched(d, &before, &o, fault);
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
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let mut child = fastsum()
        .current_dir(d)
        .args(["-r", "d", "fifo", "--update", "SUMS"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // it waits on the FIFO once it has opened it: kill it there
    let fds = format!("/proc/{}/fd", child.id());
    let end = std::time::Instant::now() + Duration::from_secs(20);
    let opened = || {
        std::fs::read_dir(&fds)
            .into_iter()
            .flatten()
            .flatten()
            .any(|e| std::fs::read_link(e.path()).is_ok_and(|l| l == fifo))
    };
    while !opened() && std::time::Instant::now() < end {
        std::thread::sleep(Duration::from_millis(5));
    }
    assert!(opened(), "fastsum never opened the FIFO");
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
