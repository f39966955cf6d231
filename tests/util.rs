//! Helpers shared by the integration tests.

use std::ffi::OsStr;
use std::io::Write;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

use assert_cmd::cargo::CommandCargoExt;
use fastsum::internals::Algorithm;

/// The fastsum binary under test.
pub fn fastsum() -> Command {
    let mut c = Command::cargo_bin("fastsum").expect("fastsum binary");
    c.env("LC_ALL", "C.UTF-8");
    c
}

/// A GNU tool (md5sum, sha256sum, …) or b3sum in the same locale as
/// fastsum: the pinned binary when one is named (see [`oracle_path`]).
pub fn gnu(tool: &str) -> Command {
    let mut c = Command::new(oracle_path(tool));
    // (b3sum, a Rust program, adds a backtrace to its errors under these)
    c.env("LC_ALL", "C.UTF-8")
        .env_remove("RUST_BACKTRACE")
        .env_remove("RUST_LIB_BACKTRACE");
    c
}

/// Oracles whose behaviour the tests depend on: the oldest version that
/// has it, and the variable that may name a pinned binary instead of PATH's.
/// b3sum before 1.8 lacks `--tag` and words `--check` differently
/// (Debian's is 1.2.0); GNU's tools are the 9.1 the check rules follow.
const ORACLES: &[(&str, (u32, u32), &str)] = &[
    ("b2sum", (9, 1), "FASTSUM_TEST_COREUTILS"),
    ("sum", (9, 1), "FASTSUM_TEST_COREUTILS"),
    ("xxhsum", (0, 8), "FASTSUM_TEST_XXHSUM"),
    ("b3sum", (1, 8), "FASTSUM_TEST_B3SUM"),
    ("cksum", (9, 1), "FASTSUM_TEST_COREUTILS"),
    ("md5sum", (9, 1), "FASTSUM_TEST_COREUTILS"),
    ("sha1sum", (9, 1), "FASTSUM_TEST_COREUTILS"),
    ("sha224sum", (9, 1), "FASTSUM_TEST_COREUTILS"),
    ("sha256sum", (9, 1), "FASTSUM_TEST_COREUTILS"),
    ("sha384sum", (9, 1), "FASTSUM_TEST_COREUTILS"),
    ("sha512sum", (9, 1), "FASTSUM_TEST_COREUTILS"),
];

/// Where the oracle `tool` is: `$FASTSUM_TEST_B3SUM` for b3sum (a file),
/// `$FASTSUM_TEST_COREUTILS/TOOL` for GNU's (a directory), else PATH's (for
/// b3sum, see [`b3sum_without_variable`]).
pub fn oracle_path(tool: &str) -> PathBuf {
    match ORACLES.iter().find(|o| o.0 == tool) {
        Some(&(_, _, var)) => match std::env::var_os(var) {
            Some(v) if var.ends_with("COREUTILS") => PathBuf::from(v).join(tool),
            Some(v) => PathBuf::from(v),
            None if tool == "b3sum" => b3sum_without_variable().to_path_buf(),
            None => PathBuf::from(tool),
        },
        None => PathBuf::from(tool),
    }
}

/// b3sum when FASTSUM_TEST_B3SUM is unset: PATH's, unless it is missing or
/// older than 1.8 and the copy `.ci/setup` pins is there (its `b3_root`), so
/// that `cargo test` in a shell that never exported the variable tests
/// with it as well.
fn b3sum_without_variable() -> &'static Path {
    static B3SUM: OnceLock<PathBuf> = OnceLock::new();
    B3SUM.get_or_init(|| {
        let pinned = std::env::var_os("HOME")
            .map(|home| PathBuf::from(home).join(".cache/fastsum-ci/b3sum-1.8.7/bin/b3sum"));
        match pinned {
            Some(p) if p.is_file() && version_of(Path::new("b3sum")).is_none_or(|v| v < (1, 8)) => {
                p
            }
            _ => PathBuf::from("b3sum"),
        }
    })
}

/// `major.minor` of the first version-looking word of `tool --version`.
fn version_of(tool: &Path) -> Option<(u32, u32)> {
    let o = Command::new(tool).arg("--version").bounded_output().ok()?;
    if !o.status.success() {
        return None;
    }
    // (xxhsum writes its version to stderr)
    let text = String::from_utf8_lossy(if o.stdout.is_empty() {
        &o.stderr
    } else {
        &o.stdout
    });
    let word = text
        .lines()
        .next()?
        .split_whitespace()
        .find(|w| w.starts_with(|c: char| c.is_ascii_digit()))?;
    let mut parts = word.split(|c: char| !c.is_ascii_digit());
    let major = parts.next()?.parse().ok()?;
    let minor = parts.next().and_then(|m| m.parse().ok()).unwrap_or(0);
    Some((major, minor))
}

/// Is `tool` on PATH?
pub fn cmd_exists(tool: &str) -> bool {
    // (it ran: some tools, signify and minisign among them, have no
    // `--version` and exit non-zero with their usage)
    Command::new(tool)
        .arg("--version")
        .stdin(std::process::Stdio::null())
        .bounded_output()
        .is_ok()
}

/// Is the oracle `tool` here, and new enough (see [`ORACLES`])? A test
/// that needs it returns early when it is missing or too old on a
/// developer's machine, saying which version it needs; under CI (`CI`
/// set) that fails the test: CI must install what the tests need.
pub fn require_tool(tool: &str) -> bool {
    let why = match ORACLES.iter().find(|o| o.0 == tool) {
        Some(&(_, (major, minor), var)) => {
            let path = oracle_path(tool);
            match version_of(&path) {
                Some(v) if v >= (major, minor) => return true,
                Some((a, b)) => format!(
                    "{} is version {a}.{b}; the tests need {major}.{minor} or later \
                     (install it and point {var} at it, as .ci/run does)",
                    path.display()
                ),
                None => format!("{} is not installed", path.display()),
            }
        }
        None if cmd_exists(tool) => return true,
        None => format!("{tool} is not installed"),
    };
    assert!(
        std::env::var_os("CI").is_none(),
        "{why}: required under CI, .ci/run must install it"
    );
    skip(&why);
    false
}

/// Every skip of this run of the test binary, for the summary at its exit.
static SKIPS: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// Say that the running test skips something (`why`: what is missing or
/// too old), where a user of plain `cargo test` sees it: libtest captures
/// what `eprintln!` prints in a passing test (shown only under
/// `--nocapture`), but not a write to the stderr handle itself. The line
/// goes out at once, named by the test, and again in a list printed when
/// the test binary exits, after libtest's result line.
pub fn skip(why: &str) {
    let test = std::thread::current()
        .name()
        .unwrap_or("a test")
        .to_string();
    let line = format!("{test}: skipped: {why}");
    let _ = writeln!(std::io::stderr(), "{line}");
    let mut skips = SKIPS.lock().unwrap_or_else(|e| e.into_inner());
    if skips.is_empty() {
        // SAFETY: registers a function that takes no argument and does
        // not unwind (it only writes to fd 2)
        unsafe { libc::atexit(print_skips) };
    }
    skips.push(line);
}

/// At exit: the skips of the run, one a line, on stderr.
extern "C" fn print_skips() {
    let skips = SKIPS.lock().unwrap_or_else(|e| e.into_inner());
    let mut text = format!(
        "\nSKIPPED ({} in all, each with its reason; .ci/run installs what the tests need):\n",
        skips.len()
    );
    for s in skips.iter() {
        text.push_str("  ");
        text.push_str(s);
        text.push('\n');
    }
    let _ = std::io::stderr().write_all(text.as_bytes());
}

/// The MD5 lane paths this CPU runs (the `Off` and `Scalar` paths
/// included); each one it cannot run is named on stderr with the reason.
pub fn lane_paths_this_cpu_runs() -> Vec<fastsum::internals::LanePath> {
    use fastsum::internals::LanePath as P;
    runnable(
        "MD5 lane",
        P::all(),
        P::is_available,
        P::name,
        P::cpu_feature,
    )
}

/// The SHA lane paths this CPU runs (`off`, the crates one message at a
/// time, always), named as FASTSUM_SHA_LANES takes them; each one it
/// cannot run is named on stderr with the reason.
pub fn sha_paths_this_cpu_runs() -> Vec<&'static str> {
    use fastsum::internals::ShaLanePath as P;
    let paths = runnable(
        "SHA lane",
        P::all(),
        P::is_available,
        P::name,
        P::cpu_feature,
    );
    paths.into_iter().map(P::name).collect()
}

/// The `paths` for which `available` holds, the others named on stderr.
fn runnable<P: Copy>(
    what: &str,
    paths: Vec<P>,
    available: fn(P) -> bool,
    name: fn(P) -> &'static str,
    needs: fn(P) -> Option<&'static str>,
) -> Vec<P> {
    paths
        .into_iter()
        .filter(|&p| {
            if !available(p) {
                skip(&format!(
                    "{what} path {}: this CPU lacks {}",
                    name(p),
                    needs(p).unwrap_or("it")
                ));
            }
            available(p)
        })
        .collect()
}

/// Deterministic pseudo-random bytes (xorshift), so failures reproduce.
pub use fastsum::internals::random_bytes;

/// Write `data` to `dir/name` (name given as raw bytes) and return the path.
pub fn write_file(dir: &Path, name: impl AsRef<OsStr>, data: &[u8]) -> PathBuf {
    let p = dir.join(name.as_ref());
    std::fs::write(&p, data).expect("write test file");
    p
}

/// A symlink named `name` to the fastsum binary in `dir` (multi-call).
pub fn multicall(dir: &Path, name: &str) -> Command {
    let target = assert_cmd::cargo::cargo_bin("fastsum");
    let link = dir.join(name);
    if !link.exists() {
        std::os::unix::fs::symlink(target, &link).expect("symlink");
    }
    let mut c = Command::new(link);
    c.env("LC_ALL", "C.UTF-8");
    c
}

/// A fresh temporary directory for one test.
pub fn tempdir() -> tempfile::TempDir {
    tempfile::tempdir().expect("temp dir")
}

/// How long one child of a test may run: no test waits on a child without
/// a bound. Generous (a loaded CI machine hashes gigabytes in some tests);
/// `FASTSUM_TEST_CHILD_SECS` sets another.
pub fn child_limit() -> Duration {
    let secs = std::env::var("FASTSUM_TEST_CHILD_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(300);
    Duration::from_secs(secs)
}

/// Names the processes of one bounded run: every process it starts
/// inherits the variable, so a timeout finds the whole tree (a shell's
/// children, strace's tracee, script's session) in /proc, whatever process
/// group or session each is in, without changing how any of them runs.
const WATCH: &str = "FASTSUM_TEST_WATCH";

/// Kill every process whose environment holds `WATCH=token`.
fn kill_watched(token: &str) {
    let needle = format!("{WATCH}={token}\0");
    let me = std::process::id();
    // twice: a process may fork while the first pass kills its parent
    for _ in 0..2 {
        let Ok(procs) = std::fs::read_dir("/proc") else {
            return;
        };
        for p in procs.flatten() {
            let Some(pid) = p.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else {
                continue;
            };
            if pid == me {
                continue;
            }
            let Ok(env) = std::fs::read(p.path().join("environ")) else {
                continue;
            };
            if env.windows(needle.len()).any(|w| w == needle.as_bytes()) {
                // SAFETY: kill(2) with a pid read from /proc and SIGKILL
                unsafe { libc::kill(pid as libc::pid_t, libc::SIGKILL) };
            }
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Run `wait` (which waits on a child `cmd` started) with a bound: after
/// `limit` every process of the run is killed and the test fails, naming
/// the command, instead of hanging.
pub fn within<T>(cmd: &mut Command, limit: Duration, wait: impl FnOnce(&mut Command) -> T) -> T {
    static RUNS: AtomicU64 = AtomicU64::new(0);
    let token = format!(
        "{}-{}",
        std::process::id(),
        RUNS.fetch_add(1, Ordering::Relaxed)
    );
    cmd.env(WATCH, &token);
    let shown = format!("{cmd:?}");
    let (done, finished) = std::sync::mpsc::channel::<()>();
    let timed_out = std::sync::Arc::new(AtomicBool::new(false));
    let flag = timed_out.clone();
    let watchdog = std::thread::spawn(move || {
        if let Err(std::sync::mpsc::RecvTimeoutError::Timeout) = finished.recv_timeout(limit) {
            flag.store(true, Ordering::SeqCst);
            kill_watched(&token);
        }
    });
    let out = wait(cmd);
    let _ = done.send(());
    let _ = watchdog.join();
    assert!(
        !timed_out.load(Ordering::SeqCst),
        "killed after {limit:?} (a hang?): {shown}"
    );
    out
}

/// Run `cmd` to completion, capturing stdout and stderr (standard input
/// empty unless `cmd` sets it), killed after [`child_limit`].
pub fn run(cmd: &mut Command) -> Output {
    within(cmd, child_limit(), |c| c.output().expect("run command"))
}

/// [`Command::output`] with a bound: after [`child_limit`] every process
/// of the run is killed and the test fails. For a run whose spawn error a
/// test looks at; else [`run`].
pub trait Bounded {
    /// As [`Command::output`] (standard input empty unless set), bounded.
    fn bounded_output(&mut self) -> std::io::Result<Output>;
}

impl Bounded for Command {
    fn bounded_output(&mut self) -> std::io::Result<Output> {
        within(self, child_limit(), Command::output)
    }
}

/// Join `writer`, a thread writing into `fifo`, once the run that was to
/// read it is over. A run that never opened the FIFO leaves the writer
/// blocked in open(2) for ever: a reader opened (and closed) here releases
/// it, its write then fails, and so does the test, instead of hanging.
pub fn join_fifo_writer(fifo: &Path, writer: std::thread::JoinHandle<()>) {
    use std::os::unix::fs::OpenOptionsExt;
    drop(
        std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(fifo),
    );
    writer
        .join()
        .expect("the FIFO's writer failed: the run did not read it all");
}

/// Wait for `child`, killing it after [`child_limit`] (for a child the
/// test talks to while it runs; [`within`] bounds a whole run).
pub fn wait_bounded(child: &mut std::process::Child) -> std::process::ExitStatus {
    let limit = child_limit();
    let start = std::time::Instant::now();
    loop {
        if let Some(status) = child.try_wait().expect("wait for child") {
            return status;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("killed after {limit:?} (a hang?): pid {}", child.id());
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Run `cmd` with `data` on its standard input through a pipe (as in
/// `cat x | cmd`), written by a separate thread so a large input cannot
/// deadlock against the child's output.
pub fn run_with_stdin(cmd: &mut Command, data: &[u8]) -> Output {
    within(cmd, child_limit(), |cmd| {
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn command");
        let mut stdin = child.stdin.take().expect("child stdin");
        std::thread::scope(|s| {
            // the child may stop reading early (an error, or a closed pipe): that is
            // the child's behaviour to check, not a test failure, so ignore it here
            s.spawn(move || {
                let _ = stdin.write_all(data);
            });
            child.wait_with_output().expect("wait for command")
        })
    })
}

/// A finished run as text for a failure message: exit status, stdout and
/// stderr as lossy UTF-8 lines (`{:?}` of an `Output` prints bytes as
/// numbers when they are not UTF-8).
pub fn shown(o: &Output) -> String {
    format!(
        "exit {:?}\n--- stdout:\n{}\n--- stderr:\n{}",
        o.status.code(),
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// Assert that a run `got` printed exactly `want` on stdout; on a
/// mismatch the failure shows both as text lines (lossy UTF-8, with the
/// first differing line named) and the run's stderr, never byte vectors.
pub fn assert_stdout(what: &str, got: &Output, want: impl AsRef<[u8]>) {
    let want = want.as_ref();
    if got.stdout == want {
        return;
    }
    let ours = String::from_utf8_lossy(&got.stdout);
    let theirs = String::from_utf8_lossy(want);
    let first = ours
        .split_inclusive('\n')
        .zip(theirs.split_inclusive('\n'))
        .position(|(a, b)| a != b)
        .unwrap_or_else(|| ours.lines().count().min(theirs.lines().count()));
    panic!(
        "{what}: stdout differs (first at line {}; {} bytes, want {})\n\
         --- got:\n{ours}\n--- want:\n{theirs}\n--- stderr of the run:\n{}",
        first + 1,
        got.stdout.len(),
        want.len(),
        String::from_utf8_lossy(&got.stderr)
    );
}

/// Assert that two finished runs match: stdout bytes, exit status, and
/// stderr once each program's `name: ` prefix is replaced. `what` names the
/// case in the failure message.
pub fn assert_outputs_same(
    what: &str,
    ours: &Output,
    theirs: &Output,
    ours_name: &str,
    theirs_name: &str,
) {
    assert_stdout(what, ours, &theirs.stdout);
    let strip =
        |s: &[u8], name: &str| String::from_utf8_lossy(s).replace(&format!("{name}: "), "PROG: ");
    assert_eq!(
        strip(&ours.stderr, ours_name),
        strip(&theirs.stderr, theirs_name),
        "{what}: stderr differs"
    );
    assert_eq!(
        ours.status.code(),
        theirs.status.code(),
        "{what}: exit status differs"
    );
}

/// Assert that a run printed exactly `stdout` and `stderr` and exited with
/// `code`; `what` names the case in the failure message.
pub fn assert_output(what: &str, o: &Output, stdout: impl AsRef<[u8]>, stderr: &str, code: i32) {
    assert_stdout(what, o, stdout);
    assert_eq!(
        String::from_utf8_lossy(&o.stderr),
        stderr,
        "{what}: stderr differs"
    );
    assert_eq!(o.status.code(), Some(code), "{what}: exit status");
}

/// The algorithms GNU coreutils has a tool for that fastsum answers to
/// (md5sum … sha512sum, b2sum: not BLAKE3, not those of cksum alone); the
/// tool is [`Algorithm::tool_name`], the `-a` value [`Algorithm::name`].
pub fn gnu_algorithms() -> impl Iterator<Item = Algorithm> {
    Algorithm::ALL
        .into_iter()
        .filter(|&a| a != Algorithm::Blake3 && a.tool_name().is_some())
}

/// The multi-call name of an algorithm that has one.
pub fn tool_of(algo: Algorithm) -> &'static str {
    algo.tool_name()
        .expect("an algorithm with a multi-call name")
}

/// Every `--mode`.
pub const MODES: [&str; 4] = ["threaded", "sync", "bytewise", "mmap"];

/// Write one file of each size into `dir`, named `f{i}-{size}` in the order
/// given (so names sort as the list does), its bytes `random_bytes(size,
/// seed + i)`; return the names.
pub fn files_of_sizes(dir: &Path, sizes: &[usize], seed: u64) -> Vec<String> {
    sizes
        .iter()
        .enumerate()
        .map(|(i, &size)| {
            let name = format!("f{i:02}-{size}");
            write_file(dir, &name, &random_bytes(size, seed + i as u64));
            name
        })
        .collect()
}

/// What b3sum prints for `names` in `dir` (plain names, no escaping
/// needed), computed with the blake3 crate: the BLAKE3 oracle where b3sum
/// is not installed.
pub fn blake3_lines<S: AsRef<str>>(dir: &Path, names: &[S]) -> Vec<u8> {
    let mut out = Vec::new();
    for name in names {
        let name = name.as_ref();
        let data = std::fs::read(dir.join(name)).expect("read test file");
        out.extend_from_slice(format!("{}  {name}\n", blake3::hash(&data).to_hex()).as_bytes());
    }
    out
}

/// fastsum and the GNU counterpart of one algorithm (its multi-call tool
/// name: md5sum, …, b3sum), both run in `dir` with the same arguments:
/// `fastsum -a NAME OPTS ARGS` against `TOOL ARGS`, where OPTS are
/// fastsum's own options (`-m`, `-j`, `--chunk`, …).
#[derive(Clone, Copy, Debug)]
pub struct Pair<'a> {
    pub dir: &'a Path,
    pub algo: Algorithm,
}

impl<'a> Pair<'a> {
    /// The pair for `algo` in `dir`, or `None` (after [`require_tool`]:
    /// skipped locally, a failure under CI) when the GNU tool is missing.
    pub fn new(dir: &'a Path, algo: Algorithm) -> Option<Self> {
        require_tool(tool_of(algo)).then_some(Pair { dir, algo })
    }

    /// The GNU tool's name, which prefixes its messages.
    pub fn tool(self) -> &'static str {
        tool_of(self.algo)
    }

    /// `fastsum -a NAME --untagged OPTS` in the directory: the GNU tool's
    /// layout (fastsum's own name tags the lines of the algorithms whose
    /// untagged lines its `-c` could not tell apart: SHA-256's, …).
    pub fn ours(self, opts: &[&str]) -> Command {
        let mut c = fastsum();
        c.current_dir(self.dir)
            .args(["-a", self.algo.name(), "--untagged"])
            .args(opts);
        c
    }

    /// The GNU tool in the directory.
    pub fn theirs(self) -> Command {
        let mut c = gnu(self.tool());
        c.current_dir(self.dir);
        c
    }

    /// Assert that fastsum's run `ours` matches the GNU tool's run `theirs`
    /// ([`assert_outputs_same`]: each program's name prefix set aside).
    pub fn assert_matches(self, what: &str, ours: &Output, theirs: &Output) {
        assert_outputs_same(what, ours, theirs, "fastsum", self.tool());
    }

    /// Run `TOOL ARGS` once and `fastsum -a NAME OPTS ARGS` under each OPTS
    /// of `opt_sets`, each through `exec` (e.g. [`run`], or a closure over
    /// [`run_with_stdin`]), and assert the same output; return GNU's.
    pub fn assert_same_under<O, S>(
        self,
        opt_sets: impl IntoIterator<Item = O>,
        args: &[S],
        mut exec: impl FnMut(&mut Command) -> Output,
    ) -> Output
    where
        O: AsRef<[&'static str]>,
        S: AsRef<OsStr>,
    {
        let want = exec(self.theirs().args(args));
        let shown: Vec<&OsStr> = args.iter().map(AsRef::as_ref).collect();
        for opts in opt_sets {
            let opts = opts.as_ref();
            let got = exec(self.ours(opts).args(args));
            let what = format!("{} {opts:?} {shown:?}", self.algo.name());
            self.assert_matches(&what, &got, &want);
        }
        want
    }

    /// Run `TOOL ARGS` and `fastsum -a NAME ARGS` and assert the same
    /// output; return GNU's.
    pub fn assert_same<S: AsRef<OsStr>>(self, args: &[S]) -> Output {
        self.assert_same_under([[""; 0]], args, run)
    }

    /// [`Pair::assert_same_under`] with `-m MODE` for every mode.
    pub fn assert_same_in_every_mode<S: AsRef<OsStr>>(
        self,
        args: &[S],
        exec: impl FnMut(&mut Command) -> Output,
    ) -> Output {
        self.assert_same_under(MODES.map(|m| ["-m", m]), args, exec)
    }
}

/// The options `-m MODE -j JOBS` for each of `modes` with each of `jobs`.
pub fn modes_and_jobs(modes: &[&'static str], jobs: &[&'static str]) -> Vec<[&'static str; 4]> {
    modes
        .iter()
        .flat_map(|&m| jobs.iter().map(move |&j| ["-m", m, "-j", j]))
        .collect()
}

/// An `OsStr` from raw bytes: file names need not be UTF-8.
pub fn os(name: &[u8]) -> &OsStr {
    OsStr::from_bytes(name)
}

/// The path of the fastsum binary under test.
pub fn fastsum_path() -> PathBuf {
    assert_cmd::cargo::cargo_bin("fastsum")
}

/// Run `script` with `sh -c` in `dir`, with `$FASTSUM` naming the binary
/// under test, killed after `secs` seconds (`timeout -s KILL`: a hang shows
/// as status 137 from timeout instead of a stuck test).
pub fn shell(dir: &Path, secs: u32, script: &str) -> Output {
    let mut c = Command::new("timeout");
    c.current_dir(dir)
        .env("LC_ALL", "C.UTF-8")
        .env("FASTSUM", fastsum_path())
        .args(["-s", "KILL", &secs.to_string(), "sh", "-c", script]);
    run(&mut c)
}

/// Assert that a run printed no sign of a panic or an abort.
pub fn assert_no_panic(what: &str, out: &Output) {
    let err = String::from_utf8_lossy(&out.stderr);
    for bad in [
        "panicked",
        "RUST_BACKTRACE",
        "stack backtrace",
        "memory allocation",
        "Aborted",
    ] {
        assert!(!err.contains(bad), "{what}: {bad:?} on stderr:\n{err}");
    }
    // 101: a panic's exit status; 134: SIGABRT through sh
    assert!(
        !matches!(out.status.code(), Some(101 | 134)),
        "{what}: exit status {:?}, stderr:\n{err}",
        out.status
    );
}

/// Is strace here and allowed to trace (ptrace may be denied in a
/// container)? Like [`require_tool`]: skips locally, fails under CI.
pub fn require_strace() -> bool {
    if !require_tool("strace") {
        return false;
    }
    let traces = Command::new("strace")
        .args(["-f", "-qq", "-o", "/dev/null", "true"])
        .status()
        .is_ok_and(|s| s.success());
    if !traces {
        assert!(
            std::env::var_os("CI").is_none(),
            "strace cannot trace here (ptrace denied?): CI must allow it"
        );
        skip("strace cannot trace here (ptrace denied?)");
    }
    traces
}

/// Files of odd names (empty, one byte, newline, backslash, non-UTF-8, and
/// a 3 MiB one) and the given sizes in `dir`, random bytes from `seed`;
/// their names.
pub fn odd_files(dir: &Path, sizes: [usize; 6], seed: u64) -> Vec<std::ffi::OsString> {
    let names: [&[u8]; 6] = [
        b"empty",
        b"one",
        b"new\nline",
        b"back\\slash",
        b"bad\xffname",
        b"big",
    ];
    for (i, (n, s)) in names.iter().zip(sizes).enumerate() {
        write_file(dir, os(n), &random_bytes(s, seed + i as u64));
    }
    names.iter().map(|n| os(n).to_os_string()).collect()
}

/// Command-line words from strings.
pub fn words(v: &[&str]) -> Vec<std::ffi::OsString> {
    v.iter().map(Into::into).collect()
}
