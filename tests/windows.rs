//! The Windows build, run under Wine: the same runs as the Linux binary
//! (which the other modules test against the real tools) must print the
//! same lines and exit with the same status, with the Windows exe's names
//! written with `/` (b3sum's way on Windows). Covers every algorithm's
//! known answers, GNU-format and tagged lines, `-c` (OK, FAILED, missing,
//! improperly formatted), `-r` over a tree of odd names, several
//! algorithms, `--json`, errors and exit statuses, and the multi-call
//! names (`md5sum.exe`, a copy of fastsum.exe).
//!
//! The exe is `target/x86_64-pc-windows-gnu/debug/fastsum.exe` (built by
//! `.ci/run`; `FASTSUM_TEST_WINDOWS_EXE` names another), run by `wine64`
//! (`FASTSUM_TEST_WINE` names another) in a Wine prefix of its own under
//! target/, with one persistent wineserver, so that a call costs about a
//! tenth of a second, not seconds. Rust's std for Windows calls
//! `ProcessPrng` from bcryptprimitives.dll, which Wine 8 lacks: a shim
//! (calling `RtlGenRandom`), built here with mingw, sits beside the exe;
//! it is test-only and never shipped. Missing exe, Wine or mingw: a skip
//! on a laptop, a failure under CI.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

use crate::util::{multicall, run, skip, tempdir, write_file};

/// The test-only `ProcessPrng` (see the top of this file).
const SHIM: &str = "#include <windows.h>\n#include <ntsecapi.h>\n\
    BOOL WINAPI ProcessPrng(PBYTE d, SIZE_T n) { return RtlGenRandom(d, (ULONG)n); }\n";

/// The multi-call names the exe is copied as.
const NAMES: [&str; 7] = [
    "fastsum",
    "md5sum",
    "sha1sum",
    "sha256sum",
    "b2sum",
    "b3sum",
    "cksum",
];

/// Where the exe and its copies are, and how Wine runs them.
struct Wine {
    wine: PathBuf,
    prefix: PathBuf,
    /// The exe, its copies under [`NAMES`] and the shim.
    bin: PathBuf,
}

/// The Wine set-up, made once per test binary; `None` (after a skip) when
/// something is missing outside CI.
fn wine() -> Option<&'static Wine> {
    static WINE: OnceLock<Result<Wine, String>> = OnceLock::new();
    match WINE.get_or_init(set_up) {
        Ok(w) => Some(w),
        Err(why) => {
            assert!(
                std::env::var_os("CI").is_none(),
                "{why}: required under CI, .ci/run must provide it"
            );
            skip(why);
            None
        }
    }
}

fn set_up() -> Result<Wine, String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let exe = std::env::var_os("FASTSUM_TEST_WINDOWS_EXE").map_or_else(
        || root.join("target/x86_64-pc-windows-gnu/debug/fastsum.exe"),
        PathBuf::from,
    );
    if !exe.is_file() {
        return Err(format!(
            "{} is missing (cargo build --target x86_64-pc-windows-gnu, as .ci/run does)",
            exe.display()
        ));
    }
    let wine = std::env::var_os("FASTSUM_TEST_WINE").map_or_else(
        || {
            ["/usr/lib/wine/wine64", "/usr/bin/wine64"]
                .iter()
                .map(PathBuf::from)
                .find(|p| p.is_file())
                .unwrap_or_else(|| PathBuf::from("wine64"))
        },
        PathBuf::from,
    );
    // (a directory of this run's: the copies and the shim, removed at exit)
    let bin = std::env::temp_dir().join(format!("fastsum-wine-{}", std::process::id()));
    std::fs::create_dir_all(&bin).map_err(|e| format!("{}: {e}", bin.display()))?;
    let _ = BIN.set(bin.clone());
    // SAFETY: registers a function that takes no argument and does not
    // unwind (it only removes a directory, ignoring errors)
    unsafe { libc::atexit(remove_bin) };
    for name in NAMES {
        std::fs::copy(&exe, bin.join(format!("{name}.exe")))
            .map_err(|e| format!("copying {}: {e}", exe.display()))?;
    }
    std::fs::write(bin.join("shim.c"), SHIM).map_err(|e| e.to_string())?;
    let built = Command::new("x86_64-w64-mingw32-gcc")
        .args([
            "-shared",
            "-o",
            "bcryptprimitives.dll",
            "shim.c",
            "-ladvapi32",
        ])
        .current_dir(&bin)
        .output();
    match built {
        Ok(o) if o.status.success() => {}
        Ok(o) => {
            return Err(format!(
                "the shim did not build: {}",
                crate::util::shown(&o)
            ));
        }
        Err(e) => {
            return Err(format!(
                "x86_64-w64-mingw32-gcc (gcc-mingw-w64-x86-64): {e}"
            ));
        }
    }
    // kept between runs (making a prefix takes seconds)
    let prefix = root.join("target/wine-prefix");
    std::fs::create_dir_all(&prefix).map_err(|e| e.to_string())?;
    let w = Wine { wine, prefix, bin };
    // One wineserver for every call, ending a minute after the last one,
    // and the prefix made (or brought up to date) before any run: with
    // their standard streams closed, as a daemon that inherited a run's
    // pipes would hold its output open for as long as it lives.
    let server = w.wine.with_file_name("wineserver");
    let server = if server.is_file() {
        server
    } else {
        PathBuf::from("wineserver")
    };
    // (fails when one is running already: that one serves)
    let _ = quiet(
        Command::new(&server)
            .arg("-p60")
            .env("WINEPREFIX", &w.prefix),
    );
    let booted = quiet(w.exe("wineboot", &w.bin).arg("-i"));
    if !booted.as_ref().is_ok_and(|s| s.success()) {
        return Err(format!("{} wineboot failed: {booted:?}", w.wine.display()));
    }
    let o = wine_run(w.exe("fastsum", Path::new(".")).arg("--version"));
    if !o.status.success() || !o.stdout.starts_with(b"fastsum ") {
        return Err(format!(
            "{} does not run the exe: {}",
            w.wine.display(),
            crate::util::shown(&o)
        ));
    }
    Ok(w)
}

/// [`run`] a Wine command; once more if Wine's host process was killed by
/// a signal. A Windows program cannot end by a signal (a crash is an exit
/// code, 0xC0000005 and the like): a signal is Wine's, as when the shared
/// wineserver ends while a client starts (seen once in CI's third pass,
/// the exe's output complete), not the exe's doing.
fn wine_run(cmd: &mut Command) -> Output {
    let o = run(cmd);
    // (a failure that wrote nothing at all, not even an error, is Wine's
    // too: fastsum names every failure on stderr; seen once in CI)
    let silent = o.stdout.is_empty() && o.stderr.is_empty() && !o.status.success();
    if o.status.code().is_some() && !silent {
        return o;
    }
    eprintln!(
        "wine ended with {:?} and no output: running it again",
        o.status
    );
    run(cmd)
}

/// Run `cmd` with no standard streams, bounded: its exit status.
fn quiet(cmd: &mut Command) -> std::io::Result<std::process::ExitStatus> {
    use std::process::Stdio;
    cmd.stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    crate::util::within(cmd, crate::util::child_limit(), Command::status)
}

/// The directory of the copies, for [`remove_bin`].
static BIN: OnceLock<PathBuf> = OnceLock::new();

/// At exit: remove the directory of the copies.
extern "C" fn remove_bin() {
    if let Some(bin) = BIN.get() {
        let _ = std::fs::remove_dir_all(bin);
    }
}

impl Wine {
    /// The exe under `name` (or Wine's own program `name`), run by Wine
    /// in `dir`.
    fn exe(&self, name: &str, dir: &Path) -> Command {
        let exe = self.bin.join(format!("{name}.exe"));
        let mut c = Command::new(&self.wine);
        c.arg(if exe.is_file() {
            exe
        } else {
            PathBuf::from(name)
        })
        .current_dir(dir)
        .env("WINEPREFIX", &self.prefix)
        // Wine reads Unix file names in the locale's character set: UTF-8,
        // whatever the test's (in the C locale of a machine with no locale
        // set, `été` has no Windows name)
        .env("LC_ALL", "C.UTF-8")
        .env("WINEDEBUG", "-all")
        .env("WINEDLLOVERRIDES", "mscoree,mshtml=")
        .env_remove("DISPLAY")
        .env_remove("RUST_BACKTRACE");
        c
    }
}

/// Run `args` under `name` in `dir` with the Windows exe and with the Linux
/// binary: the same stdout and exit status (and the same stderr when
/// `stderr_too`: Windows words its system errors its own way). The
/// Windows run's output.
fn same(w: &Wine, dir: &Path, name: &str, args: &[&str], stderr_too: bool) -> Output {
    let theirs = wine_run(w.exe(name, dir).args(args));
    let links = tempdir();
    let ours = run(multicall(links.path(), name).current_dir(dir).args(args));
    let what = format!("{name} {}", args.join(" "));
    assert_eq!(
        String::from_utf8_lossy(&theirs.stdout),
        String::from_utf8_lossy(&ours.stdout),
        "stdout of {what}: Windows, then Linux; Windows' status {:?}, stderr {}",
        theirs.status,
        String::from_utf8_lossy(&theirs.stderr)
    );
    assert_eq!(theirs.status.code(), ours.status.code(), "status of {what}");
    if stderr_too {
        assert_eq!(
            String::from_utf8_lossy(&theirs.stderr),
            String::from_utf8_lossy(&ours.stderr),
            "stderr of {what}"
        );
    }
    theirs
}

/// Files with known contents in a fresh directory.
fn corpus() -> tempfile::TempDir {
    let d = tempdir();
    write_file(d.path(), "abc", b"abc");
    write_file(d.path(), "empty", b"");
    let big: Vec<u8> = (0..3_000_000u32).map(|i| (i * 7 + i / 251) as u8).collect();
    write_file(d.path(), "big", &big);
    d
}

#[test]
fn known_answers_of_every_algorithm() {
    let Some(w) = wine() else { return };
    let d = corpus();
    let o = run(w
        .exe("fastsum", d.path())
        .args(["--tag", "-a", "md5", "abc"]));
    assert_eq!(o.stdout, b"MD5 (abc) = 900150983cd24fb0d6963f7d28e17f72\n");
    let o = wine_run(w.exe("sha256sum", d.path()).arg("abc"));
    assert_eq!(
        o.stdout,
        &b"ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad  abc\n"[..]
    );
    for algo in fastsum::internals::Algorithm::ALL {
        // (SHA-3 needs its length)
        let length: &[&str] = if algo.name() == "sha3" {
            &["-l", "384"]
        } else {
            &[]
        };
        let args = [&["-a", algo.name()], length, &["abc", "empty", "big"]].concat();
        let o = same(w, d.path(), "fastsum", &args, true);
        assert!(
            o.status.success(),
            "-a {}: {}",
            algo.name(),
            crate::util::shown(&o)
        );
    }
}

#[test]
fn gnu_and_tagged_lines_and_several_algorithms() {
    let Some(w) = wine() else { return };
    let d = corpus();
    same(w, d.path(), "md5sum", &["abc", "big"], true);
    same(w, d.path(), "md5sum", &["--tag", "abc"], true);
    same(w, d.path(), "b2sum", &["-l", "128", "abc"], true);
    same(w, d.path(), "b3sum", &["abc", "big"], true);
    same(w, d.path(), "b3sum", &["--tag", "abc"], true);
    same(w, d.path(), "cksum", &["abc", "big"], true);
    same(
        w,
        d.path(),
        "fastsum",
        &["-a", "md5,sha256,blake3", "abc", "big"],
        true,
    );
    same(
        w,
        d.path(),
        "fastsum",
        &["--json", "-a", "sha1,crc32c", "abc", "empty"],
        true,
    );
}

#[test]
fn checks_say_ok_failed_missing_and_improper() {
    let Some(w) = wine() else { return };
    let d = corpus();
    let sums = wine_run(w.exe("sha256sum", d.path()).args(["abc", "big"]));
    assert!(sums.status.success());
    let mut list = sums.stdout.clone();
    list.extend_from_slice(format!("{}  empty\n", "0".repeat(64)).as_bytes());
    list.extend_from_slice(b"not a checksum line\n");
    write_file(d.path(), "SUMS", &list);
    let o = same(w, d.path(), "sha256sum", &["-c", "SUMS"], true);
    assert_eq!(o.status.code(), Some(1));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("abc: OK") && text.contains("empty: FAILED"),
        "{text}"
    );
    // a missing file: the same lines and status (stderr in Windows' words)
    write_file(
        d.path(),
        "MISSING",
        format!("{}  gone\n", "0".repeat(64)).as_bytes(),
    );
    let o = same(w, d.path(), "sha256sum", &["-c", "SUMS", "MISSING"], false);
    assert!(String::from_utf8_lossy(&o.stdout).contains("gone: FAILED open or read"));
    same(
        w,
        d.path(),
        "sha256sum",
        &["-c", "--strict", "--quiet", "SUMS"],
        true,
    );
    same(w, d.path(), "fastsum", &["-c", "--json", "SUMS"], true);
    let b3 = wine_run(w.exe("b3sum", d.path()).args(["abc", "big"]));
    write_file(d.path(), "B3", &b3.stdout);
    same(w, d.path(), "b3sum", &["-c", "B3"], true);
}

#[test]
fn a_tree_of_odd_names_prints_with_slashes_and_checks_back() {
    let Some(w) = wine() else { return };
    let d = tempdir();
    let t = d.path().join("tree");
    std::fs::create_dir_all(t.join("sub dir/deeper")).unwrap();
    for (name, data) in [
        ("plain", &b"1"[..]),
        ("with space", b"2"),
        ("été", b"3"),
        ("日本", b"4"),
        ("quote'd", b"5"),
        ("-dash", b"6"),
        ("sub dir/deeper/x", b"7"),
        ("sub dir/$dollar#", b"8"),
    ] {
        write_file(&t, name, data);
    }
    let o = same(w, d.path(), "fastsum", &["-r", "tree"], true);
    assert!(String::from_utf8_lossy(&o.stdout).contains("  tree/sub dir/deeper/x\n"));
    same(w, d.path(), "b3sum", &["-r", "tree"], true);
    // an operand written with `\`: printed with `/`, and checked back on
    // Windows by either separator
    let o = run(w
        .exe("md5sum", d.path())
        .args(["tree\\plain", "tree/sub dir\\deeper\\x"]));
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        "c4ca4238a0b923820dcc509a6f75849b  tree/plain\n\
         8f14e45fceea167a5a36dedd4bea2543  tree/sub dir/deeper/x\n"
    );
    write_file(d.path(), "SUMS", &o.stdout);
    let back = b"c4ca4238a0b923820dcc509a6f75849b  tree\\\\plain\n";
    write_file(d.path(), "BACK", &[b"\\", &back[..]].concat());
    let o = wine_run(w.exe("md5sum", d.path()).args(["-c", "SUMS", "BACK"]));
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        // (GNU 9.1 shows the name unescaped in a status line, `\` and all)
        "tree/plain: OK\ntree/sub dir/deeper/x: OK\ntree\\plain: OK\n",
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(o.status.code(), Some(0));
}

#[test]
fn errors_and_exit_statuses() {
    let Some(w) = wine() else { return };
    let d = corpus();
    // a file that is not there: no line, the run goes on, exit 1
    let o = same(w, d.path(), "md5sum", &["nope", "abc"], false);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).starts_with("md5sum: nope: "));
    // a directory without -r: GNU's words
    let o = same(w, d.path(), "md5sum", &[".", "abc"], true);
    assert_eq!(
        String::from_utf8_lossy(&o.stderr),
        "md5sum: .: Is a directory\n"
    );
    // a tree digest of a file: GNU's words (not Windows' for an errno)
    let o = same(
        w,
        d.path(),
        "fastsum",
        &["-r", "--tree-digest", "abc"],
        true,
    );
    assert_eq!(
        String::from_utf8_lossy(&o.stderr),
        "fastsum: abc: Not a directory\n"
    );
    // usage errors, by each name's rules
    same(w, d.path(), "md5sum", &["--bogus"], true);
    same(w, d.path(), "fastsum", &["-a", "nosuch", "abc"], true);
    same(w, d.path(), "b3sum", &["--bogus"], false);
    same(w, d.path(), "sha1sum", &["-c", "-a", "abc"], true);
    // standard input
    let mut c = w.exe("md5sum", d.path());
    let o = crate::util::run_with_stdin(&mut c, b"abc");
    assert_eq!(o.stdout, b"900150983cd24fb0d6963f7d28e17f72  -\n");
}

#[test]
fn update_adds_to_a_manifest_in_place_and_audit_finds_the_new() {
    let Some(w) = wine() else { return };
    let d = tempdir();
    let t = d.path().join("t");
    std::fs::create_dir_all(t.join("sub")).unwrap();
    write_file(&t, "a", b"a");
    write_file(&t, "sub/b", b"b");
    let update = ["-a", "sha256", "--update", "LIST", "-r", "t"];
    let o = wine_run(w.exe("fastsum", d.path()).args(update));
    assert!(o.status.success(), "{}", crate::util::shown(&o));
    write_file(&t, "c", b"c");
    let o = wine_run(w.exe("fastsum", d.path()).args(update));
    assert!(o.status.success(), "{}", crate::util::shown(&o));
    assert_eq!(
        String::from_utf8_lossy(&o.stderr),
        "fastsum: LIST: 1 added, 0 pruned, 2 kept\n"
    );
    // the lines the Linux binary prints for the tree, and nothing left beside
    let all = run(crate::util::fastsum()
        .current_dir(d.path())
        .args(["-a", "sha256", "-r", "t"]));
    let mut want: Vec<&[u8]> = all.stdout.split_inclusive(|&b| b == b'\n').collect();
    let list = std::fs::read(d.path().join("LIST")).unwrap();
    let mut got: Vec<&[u8]> = list.split_inclusive(|&b| b == b'\n').collect();
    want.sort();
    got.sort();
    assert_eq!(got, want);
    let mut left: Vec<_> = std::fs::read_dir(d.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    left.sort();
    assert_eq!(left, ["LIST", "t"]);
    write_file(&t, "sub/new", b"n");
    let o = same(
        w,
        d.path(),
        "fastsum",
        &["-a", "sha256", "-c", "LIST", "--audit", "t"],
        true,
    );
    assert!(String::from_utf8_lossy(&o.stdout).contains("t/sub/new: NEW"));
}

/// A check line whose name is no Windows name (neither UTF-8 nor WTF-8):
/// improperly formatted there, by GNU's rules for such lines (`-w` names
/// it, `--strict` fails the run).
#[test]
fn a_name_no_windows_name_can_be_is_an_improper_line() {
    let Some(w) = wine() else { return };
    let d = corpus();
    let list = b"900150983cd24fb0d6963f7d28e17f72  abc\n\
                 900150983cd24fb0d6963f7d28e17f72  bad\xffname\n";
    write_file(d.path(), "SUMS", list);
    let o = wine_run(w.exe("md5sum", d.path()).args(["-c", "-w", "SUMS"]));
    assert_eq!(String::from_utf8_lossy(&o.stdout), "abc: OK\n");
    assert_eq!(
        String::from_utf8_lossy(&o.stderr),
        "md5sum: SUMS: 2: improperly formatted MD5 checksum line\n\
         md5sum: WARNING: 1 line is improperly formatted\n"
    );
    assert_eq!(o.status.code(), Some(0));
    let o = wine_run(w.exe("md5sum", d.path()).args(["-c", "--strict", "SUMS"]));
    assert_eq!(o.status.code(), Some(1));
}

/// A Wine run of `name ARGS` in `dir`, killed (and the test failed) after
/// a minute: what used to hang must end.
fn bounded(w: &Wine, dir: &Path, name: &str, args: &[&str]) -> Output {
    crate::util::within(
        w.exe(name, dir).args(args),
        std::time::Duration::from_secs(60),
        Command::output,
    )
    .expect("run wine")
}

/// Files named like Windows devices (made here, in the directory Wine
/// shows as Z:), which Win32 would open as the device (the empty NUL,
/// `nul.txt` too) or hang on (a serial port: `aux.txt`, `COM1`): walked,
/// listed in a check file and given as operands, each name means the file,
/// as md5sum on Linux reads it; a device is named as one (`\\.\NUL`).
#[test]
fn files_named_like_devices_are_files() {
    let Some(w) = wine() else { return };
    if !crate::util::require_tool("md5sum") {
        return;
    }
    let d = tempdir();
    let t = d.path().join("t");
    std::fs::create_dir_all(t.join("COM2")).unwrap();
    let names = [
        "AUX", "COM1", "COM2/con", "CON", "LPT1", "NUL", "PRN.txt", "aux.txt", "nul.txt", "plain",
    ];
    for name in names {
        write_file(&t, name, format!("{name}\n").as_bytes());
    }
    let paths: Vec<String> = names.iter().map(|n| format!("t/{n}")).collect();
    let md5sum = run(crate::util::gnu("md5sum")
        .current_dir(d.path())
        .args(&paths));
    assert!(md5sum.status.success(), "{}", crate::util::shown(&md5sum));
    let o = bounded(w, d.path(), "md5sum", &["-r", "t"]);
    crate::util::assert_output("-r t", &o, &md5sum.stdout, "", 0);
    write_file(d.path(), "SUMS", &md5sum.stdout);
    let o = bounded(w, d.path(), "md5sum", &["-c", "SUMS"]);
    let oks: String = paths.iter().map(|p| format!("{p}: OK\n")).collect();
    crate::util::assert_output("-c SUMS", &o, oks, "", 0);
    // operands: the files too (`\` or `/`, relative or not); the device by
    // its device name
    let args: Vec<&str> = paths.iter().map(String::as_str).collect();
    let o = bounded(w, d.path(), "md5sum", &args);
    crate::util::assert_output("operands", &o, &md5sum.stdout, "", 0);
    let o = bounded(w, &t, "md5sum", &["nul.txt", ".\\COM1", "..\\t\\aux.txt"]);
    let want =
        run(crate::util::gnu("md5sum")
            .current_dir(&t)
            .args(["nul.txt", "./COM1", "../t/aux.txt"]));
    crate::util::assert_output("relative operands", &o, &want.stdout, "", 0);
    // absolute, on the current drive (Wine's Z: is Linux's /)
    let com1 = t.join("COM1");
    let com1 = com1.to_str().unwrap();
    let o = bounded(w, &t, "md5sum", &[com1]);
    let want = run(crate::util::gnu("md5sum").arg(com1));
    crate::util::assert_output("an absolute operand", &o, &want.stdout, "", 0);
    // a directory of such a name, walked from the command line, and its
    // tree's digest
    let o = bounded(w, &t, "md5sum", &["-r", "COM2"]);
    let want = run(crate::util::gnu("md5sum").current_dir(&t).arg("COM2/con"));
    crate::util::assert_output("-r COM2", &o, &want.stdout, "", 0);
    let o = bounded(w, &t, "fastsum", &["-r", "--tree-digest", "COM2"]);
    assert!(o.status.success(), "{}", crate::util::shown(&o));
    // --update --prune: a file of such a name that is gone is pruned (the
    // device is no such file)
    let update = ["-a", "md5", "--update", "SUMS", "--prune", "-r", "t"];
    for name in ["nul.txt", "aux.txt", "COM1"] {
        std::fs::remove_file(t.join(name)).unwrap();
    }
    let o = bounded(w, d.path(), "fastsum", &update);
    crate::util::assert_output(
        "--prune",
        &o,
        "",
        "fastsum: SUMS: 0 added, 3 pruned, 7 kept\n",
        0,
    );
    let o = bounded(w, d.path(), "md5sum", &["\\\\.\\NUL"]);
    crate::util::assert_output(
        "the NUL device",
        &o,
        "d41d8cd98f00b204e9800998ecf8427e  //./NUL\n",
        "",
        0,
    );
}

/// A link to an ancestor, which Wine shows as a directory (made here as a
/// symlink, relative and absolute): the walk reports the loop and goes
/// on, each file hashed once, exit 1; it used to follow the link until
/// killed. (Should Wine show the link as a link, the walk skips it, as on
/// Linux: then no message, exit 0.)
#[test]
fn a_link_to_an_ancestor_is_a_loop_not_a_hang() {
    let Some(w) = wine() else { return };
    let d = tempdir();
    let t = d.path().join("t");
    std::fs::create_dir_all(t.join("sub")).unwrap();
    write_file(&t, "a", b"a");
    write_file(&t, "sub/b", b"b");
    std::os::unix::fs::symlink("..", t.join("sub/up")).unwrap();
    std::os::unix::fs::symlink(&t, t.join("sub/abs")).unwrap();
    let o = bounded(w, d.path(), "md5sum", &["-r", "t"]);
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        "0cc175b9c0f1b6a831c399e269772661  t/a\n\
         92eb5ffee6ae2fec3ad71c777531578f  t/sub/b\n",
        "{}",
        crate::util::shown(&o)
    );
    let err = String::from_utf8_lossy(&o.stderr);
    let loops = [
        "md5sum: 't\\sub\\abs': File system loop detected; \
         it is part of the same file system loop as 't'\n",
        "md5sum: 't\\sub\\up': File system loop detected; \
         it is part of the same file system loop as 't'\n",
    ];
    if err.is_empty() {
        assert_eq!(o.status.code(), Some(0));
    } else {
        assert_eq!(err, loops.concat());
        assert_eq!(o.status.code(), Some(1));
    }
}

/// A check file named like a device, with its minisign signature beside
/// it (`aux`, `aux.minisig`): the signature files looked for beside it
/// (`aux.asc` first, Win32's AUX device) are files too, so the run checks
/// instead of hanging on the device.
#[test]
fn a_signed_check_file_named_like_a_device() {
    let Some(w) = wine() else { return };
    if !crate::util::require_tool("minisign") || !crate::util::require_tool("md5sum") {
        return;
    }
    let d = tempdir();
    write_file(d.path(), "f", b"f");
    let sums = run(crate::util::gnu("md5sum").current_dir(d.path()).arg("f"));
    write_file(d.path(), "aux", &sums.stdout);
    for args in [
        &["-G", "-W", "-p", "mini.pub", "-s", "mini.key"][..],
        &["-S", "-s", "mini.key", "-m", "aux"],
    ] {
        let o = run(Command::new("minisign").args(args).current_dir(d.path()));
        assert!(o.status.success(), "{}", crate::util::shown(&o));
    }
    let o = bounded(
        w,
        d.path(),
        "fastsum",
        &["-a", "md5", "-c", "aux", "--verify-with", "mini.pub"],
    );
    assert_eq!(String::from_utf8_lossy(&o.stdout), "f: OK\n");
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("aux: signature good"),
        "{}",
        crate::util::shown(&o)
    );
    assert_eq!(o.status.code(), Some(0));
}

/// `--update` of a manifest named like a device (`aux`): made, added to
/// and kept out of its own walk as the file of that name (it was "Invalid
/// parameter" for the AUX device).
#[test]
fn an_update_of_a_manifest_named_like_a_device() {
    let Some(w) = wine() else { return };
    let d = tempdir();
    write_file(d.path(), "a", b"a");
    let update = ["-a", "md5", "--update", "aux", "-r", "."];
    let o = bounded(w, d.path(), "fastsum", &update);
    crate::util::assert_output(
        "new",
        &o,
        "",
        "fastsum: aux: 1 added, 0 pruned, 0 kept\n",
        0,
    );
    write_file(d.path(), "b", b"b");
    let o = bounded(w, d.path(), "fastsum", &update);
    crate::util::assert_output(
        "again",
        &o,
        "",
        "fastsum: aux: 1 added, 0 pruned, 1 kept\n",
        0,
    );
    assert_eq!(
        String::from_utf8_lossy(&std::fs::read(d.path().join("aux")).unwrap()),
        "0cc175b9c0f1b6a831c399e269772661  ./a\n92eb5ffee6ae2fec3ad71c777531578f  ./b\n"
    );
}

/// A name that holds a drive's colon past its start (`t/z:plain`) is no
/// file here: an error, not the file `z:plain` (Z:'s current directory's
/// `plain`) names alone.
#[test]
fn a_colon_inside_a_name_names_no_drive() {
    let Some(w) = wine() else { return };
    let d = tempdir();
    write_file(d.path(), "plain", b"plain");
    std::fs::create_dir(d.path().join("t")).unwrap();
    let o = bounded(w, d.path(), "md5sum", &["t/z:plain", "plain"]);
    // (md5 of `plain`)
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        "ac7938d40cfc2307e2bf325d28e7884e  plain\n",
        "{}",
        crate::util::shown(&o)
    );
    assert!(String::from_utf8_lossy(&o.stderr).starts_with("md5sum: 't/z:plain': "));
    assert_eq!(o.status.code(), Some(1));
}
