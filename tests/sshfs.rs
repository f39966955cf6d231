//! Through a real network file system client (issue 41): sshfs over
//! OpenSSH, the server a throwaway sshd on 127.0.0.1 behind
//! benches/delayproxy.py (a TCP proxy that delays each direction), so that
//! every open, stat, listing and read is a round trip as on a remote host.
//! fastsum must give md5sum's answers in md5sum's order there (`-r` in the
//! walk's order, `-c`), and when the server goes away mid-run (the proxy
//! killed) name every file it could not read, print no digest for a file it
//! did not read whole, end with status 1, and not hang.
//! Needs root, /dev/fuse, fusermount3, sshfs, sshd, ssh-keygen and python3
//! (`.ci/run` installs them): a laptop without them skips, CI fails.

use std::io::{BufRead, BufReader, Read};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::slowfs::normal;
use crate::util::{
    assert_no_panic, fastsum, gnu, random_bytes, run, shown, skip, tempdir, within, write_file,
};

const SSHD: &str = "/usr/sbin/sshd";

/// Whether the tests can mount sshfs here (a skip, or a failure under CI,
/// when not).
fn can_mount() -> bool {
    // SAFETY: geteuid has no preconditions.
    let root = unsafe { libc::geteuid() } == 0;
    let works = |tool: &str, arg: &str| Command::new(tool).arg(arg).output().is_ok();
    let why = if !root {
        "mounting FUSE needs root"
    } else if !Path::new("/dev/fuse").exists() {
        "/dev/fuse is missing"
    } else if !works("fusermount3", "-V") {
        "fusermount3 is not installed (Debian: fuse3)"
    } else if !works("sshfs", "-V") {
        "sshfs is not installed (Debian: sshfs)"
    } else if !Path::new(SSHD).is_file() || !works("ssh-keygen", "-?") {
        "sshd is not installed (Debian: openssh-server)"
    } else if !works("python3", "-V") {
        "python3 is not installed"
    } else {
        return true;
    };
    assert!(
        std::env::var_os("CI").is_none(),
        "{why}: required under CI, .ci/run must install it"
    );
    skip(why);
    false
}

/// A directory served by a throwaway sshd, through the delay proxy, mounted
/// by sshfs; all torn down when dropped (a failing test too).
struct Sshfs {
    sshd: Child,
    proxy: Child,
    mnt: PathBuf,
}

impl Sshfs {
    /// Serve `src` at `dir/mnt`, each direction delayed `delay_ms` and
    /// limited to `mbs` MB/s when given. Keys and config go in `dir`.
    fn new(dir: &Path, src: &Path, delay_ms: f64, mbs: Option<f64>) -> Sshfs {
        for key in ["host", "user"] {
            let k = dir.join(key);
            let o = run(Command::new("ssh-keygen")
                .args(["-q", "-t", "ed25519", "-N", "", "-f"])
                .arg(&k));
            assert!(o.status.success(), "ssh-keygen: {}", shown(&o));
        }
        std::fs::copy(dir.join("user.pub"), dir.join("authorized")).unwrap();
        // (sshd's privilege separation directory, absent until it first runs)
        std::fs::create_dir_all("/run/sshd").unwrap();
        let port = free_port();
        let d = dir.display();
        let config = format!(
            "Port {port}\nListenAddress 127.0.0.1\nHostKey {d}/host\n\
             AuthorizedKeysFile {d}/authorized\nPermitRootLogin prohibit-password\n\
             PasswordAuthentication no\nKbdInteractiveAuthentication no\nUsePAM no\n\
             StrictModes no\nPidFile none\nSubsystem sftp internal-sftp\n"
        );
        std::fs::write(dir.join("sshd_config"), config).unwrap();
        let sshd = Command::new(SSHD)
            .args(["-D", "-e", "-f"])
            .arg(dir.join("sshd_config"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut proxy = Command::new("python3");
        proxy
            .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/delayproxy.py"))
            .args(["0", &port.to_string(), &delay_ms.to_string()])
            .args(["--lifetime", "600"])
            .stdout(Stdio::piped());
        if let Some(mbs) = mbs {
            proxy.args(["--bandwidth", &mbs.to_string()]);
        }
        let mnt = dir.join("mnt");
        std::fs::create_dir_all(&mnt).unwrap();
        let mut me = Sshfs {
            sshd,
            proxy: proxy.spawn().unwrap(),
            mnt,
        };
        let proxy_port = me.proxy_port();
        wait_for(
            || std::net::TcpStream::connect(("127.0.0.1", port)).is_ok(),
            "sshd",
        );
        let identity = dir.join("user");
        let o = run(Command::new("sshfs")
            .arg(format!("root@127.0.0.1:{}", src.display()))
            .arg(&me.mnt)
            .args(["-p", &proxy_port.to_string(), "-o"])
            .arg(format!(
                "IdentityFile={},StrictHostKeyChecking=no,UserKnownHostsFile=/dev/null,\
                 BatchMode=yes,LogLevel=ERROR",
                identity.display()
            )));
        assert!(o.status.success(), "sshfs: {}", shown(&o));
        me
    }

    /// The port the proxy listens on (its first line).
    fn proxy_port(&mut self) -> u16 {
        let out = self.proxy.stdout.take().unwrap();
        let mut line = String::new();
        // (the proxy prints it at once, or ends: EOF)
        BufReader::new(out).read_line(&mut line).unwrap();
        line.trim()
            .strip_prefix("listening ")
            .and_then(|p| p.parse().ok())
            .unwrap_or_else(|| panic!("delayproxy.py did not start: {line:?}"))
    }

    /// Cut the link: the server is gone for every request after this.
    fn drop_connection(&mut self) {
        let _ = self.proxy.kill();
        let _ = self.proxy.wait();
    }
}

impl Drop for Sshfs {
    fn drop(&mut self) {
        // (sshfs ends when its link is cut: then there is no mount left)
        let _ = Command::new("fusermount3")
            .args(["-u", "-z"])
            .arg(&self.mnt)
            .stderr(Stdio::null())
            .status();
        for child in [&mut self.proxy, &mut self.sshd] {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// A port free on 127.0.0.1 just now.
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .unwrap()
        .port()
}

/// Wait up to 10 s for `ready`.
fn wait_for(ready: impl Fn() -> bool, what: &str) {
    let start = Instant::now();
    while !ready() {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "{what} did not start"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A tree of small files (1–64 KiB) in 4 directories, names whose
/// whole-path order is the walk's.
fn small_tree(src: &Path) {
    for d in 0..4 {
        let sub = src.join(format!("d{d}"));
        std::fs::create_dir_all(&sub).unwrap();
        for i in 0..50 {
            let n = d * 50 + i;
            let len = 1024 + n * 7919 % (63 * 1024);
            write_file(&sub, format!("f{i:02}"), &random_bytes(len, n as u64));
        }
    }
}

/// Over sshfs with a 1 ms round trip: `fastsum *`, `-r` and `-c` print
/// md5sum's bytes (the walk's order is md5sum's over `find | sort` here).
#[test]
fn over_sshfs_fastsum_gives_md5sums_answers_in_order() {
    if !can_mount() {
        return;
    }
    let dir = tempdir();
    let src = dir.path().join("src");
    small_tree(&src);
    let link = Sshfs::new(dir.path(), &src, 0.5, None);
    let want = run(Command::new("sh")
        .current_dir(&src)
        .args(["-c", "find . -type f | LC_ALL=C sort | xargs md5sum"]));
    assert!(want.status.success(), "{}", shown(&want));
    let got = run(fastsum().current_dir(&link.mnt).args(["-r", "."]));
    assert_eq!(normal(&got, "fastsum"), normal(&want, "md5sum"), "-r");
    let files: Vec<String> = (0..50).map(|i| format!("f{i:02}")).collect();
    let d1 = link.mnt.join("d1");
    let got = run(fastsum().current_dir(&d1).args(&files));
    let want = run(gnu("md5sum").current_dir(src.join("d1")).args(&files));
    assert_eq!(
        normal(&got, "fastsum"),
        normal(&want, "md5sum"),
        "fastsum FILES"
    );
    let sums = dir.path().join("sums");
    std::fs::write(&sums, &want.stdout).unwrap();
    std::fs::remove_file(src.join("d1/f07")).unwrap();
    for extra in [&[][..], &["--quiet"][..]] {
        let check = run(fastsum().current_dir(&d1).args(extra).arg("-c").arg(&sums));
        let oracle = run(gnu("md5sum")
            .current_dir(src.join("d1"))
            .args(extra)
            .arg("-c")
            .arg(&sums));
        assert_eq!(
            normal(&check, "fastsum"),
            normal(&oracle, "md5sum"),
            "-c {extra:?}"
        );
    }
}

/// The server goes away mid-run (the proxy killed while a big file is
/// half read at 4 MB/s, once 20 small files before it are out): see
/// [`assert_cut_mid_run`].
#[test]
fn a_server_gone_mid_run_gives_an_error_per_file_and_no_digest() {
    if !can_mount() {
        return;
    }
    let dir = tempdir();
    let src = dir.path().join("src");
    let (files, truth) = files_to_cut(&src);
    let mut link = Sshfs::new(dir.path(), &src, 0.5, Some(4.0));
    let mnt = link.mnt.clone();
    assert_cut_mid_run(&mnt, &files, &truth, || link.drop_connection());
}

/// 100 small files and, 21st, a 32 MiB one, in `src`: their names in
/// that order and md5sum's lines for them.
pub(crate) fn files_to_cut(src: &Path) -> (Vec<String>, String) {
    std::fs::create_dir_all(src).unwrap();
    let mut files = Vec::new();
    for i in 0..100 {
        let name = format!("f{i:03}");
        write_file(src, &name, &random_bytes(1024 + i * 331, i as u64));
        files.push(name);
    }
    write_file(src, "big", &random_bytes(32 << 20, 7));
    files.insert(20, "big".to_string());
    let truth = run(gnu("md5sum").current_dir(src).args(&files));
    (files, String::from_utf8_lossy(&truth.stdout).into_owned())
}

/// fastsum over `files` in `dir` (a mount), with the server cut (`cut`)
/// once the 20 small files before the big one are out (the big one's read
/// takes 8 s at 4 MB/s): every file is named once, by a right digest
/// (`truth`'s line) or an error; the big file gets an error and no
/// digest; the lines keep the arguments' order; exit status 1; no hang
/// (bounded at 60 s).
pub(crate) fn assert_cut_mid_run(dir: &Path, files: &[String], truth: &str, cut: impl FnOnce()) {
    let got = within(
        fastsum()
            .current_dir(dir)
            .args(files)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped()),
        Duration::from_secs(60),
        |c| {
            let mut child = c.spawn().unwrap();
            let mut out = BufReader::new(child.stdout.take().unwrap());
            let mut stdout = Vec::new();
            for _ in 0..20 {
                out.read_until(b'\n', &mut stdout).unwrap();
            }
            cut();
            out.read_to_end(&mut stdout).unwrap();
            let mut o = child.wait_with_output().unwrap();
            o.stdout = stdout;
            o
        },
    );
    assert_no_panic("fastsum", &got);
    let (out, err) = (
        String::from_utf8_lossy(&got.stdout),
        String::from_utf8_lossy(&got.stderr),
    );
    assert_eq!(got.status.code(), Some(1), "{}", shown(&got));
    let mut named = Vec::new();
    for line in out.lines() {
        assert!(
            truth.lines().any(|t| t == line),
            "a digest not the file's: {line}\n{}",
            shown(&got)
        );
        named.push(line.split_once("  ").unwrap().1.to_string());
    }
    let in_order: Vec<&String> = files.iter().filter(|f| named.contains(f)).collect();
    assert_eq!(named.iter().collect::<Vec<_>>(), in_order, "out of order");
    assert!(
        !named.contains(&"big".to_string()),
        "a digest of the unfinished big file"
    );
    for f in files {
        let errors = err
            .lines()
            .filter(|l| l.starts_with(&format!("fastsum: {f}: ")))
            .count();
        let digests = named.iter().filter(|n| *n == f).count();
        assert_eq!(
            errors + digests,
            1,
            "{f} named {errors} + {digests} times:\n{}",
            shown(&got)
        );
    }
}

/// sshfs makes the lookups of one directory one at a time (a round trip
/// each, however many are asked at once), so a check file's names, each
/// looked up where it is opened and, for `-c DIR/SUMS`, beside the check
/// file first, cost a round trip each one after the other (issue 41):
/// 300 names in one directory at a 10 ms round trip, 3 s at least (4.3 s
/// seen). Listed once, the directory answers them (1–1.5 s seen beside a
/// load of 10 on 2 cores): under 80 % of what the lookups alone take one
/// at a time, with md5sum's answers (`-c SUMS` here, and `-c ../SUMS` from
/// the files' directory, where no name is beside it).
#[test]
fn a_check_files_names_in_one_directory_are_listed_not_looked_up_one_by_one() {
    if !can_mount() {
        return;
    }
    let dir = tempdir();
    let src = dir.path().join("src");
    let many = src.join("many");
    std::fs::create_dir_all(&many).unwrap();
    let names: Vec<String> = (0..300).map(|i| format!("f{i:03}")).collect();
    for (i, name) in names.iter().enumerate() {
        write_file(&many, name, &random_bytes(1024 + i * 331, i as u64));
    }
    let want = run(gnu("md5sum").current_dir(&many).args(&names));
    assert!(want.status.success(), "{}", shown(&want));
    std::fs::write(src.join("SUMS"), &want.stdout).unwrap();
    std::fs::write(many.join("SUMS"), &want.stdout).unwrap();
    let bound = 300 * Duration::from_millis(10) * 8 / 10;
    for sums in ["SUMS", "../SUMS"] {
        // (a mount of its own each: nothing cached by an earlier run)
        let sub = dir.path().join(format!("link-{}", sums.len()));
        std::fs::create_dir_all(&sub).unwrap();
        let link = Sshfs::new(&sub, &src, 5.0, None);
        let start = Instant::now();
        let got = run(fastsum()
            .current_dir(link.mnt.join("many"))
            .args(["-c", sums]));
        let took = start.elapsed();
        assert_no_panic(sums, &got);
        let oracle = run(gnu("md5sum").current_dir(&many).args(["-c", sums]));
        assert_eq!(
            normal(&got, "fastsum"),
            normal(&oracle, "md5sum"),
            "-c {sums}"
        );
        assert!(took < bound, "-c {sums}: {took:?}, lookups one by one?");
    }
}
