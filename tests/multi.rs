//! Issue 13: several algorithms in one read (`-a md5,sha256 -a sha512`).
//! Differential against GNU `*sum --tag` and `b3sum --tag`: the lines of a
//! run with several algorithms are, per input, the lines each tool prints,
//! in the order the algorithms were given.

use std::collections::HashMap;
use std::ffi::OsString;
use std::fs::File;
use std::os::unix::ffi::OsStringExt;
use std::path::Path;
use std::process::Command;

use crate::util::{
    assert_stdout, fastsum, gnu, random_bytes, require_strace, require_tool, run, run_with_stdin,
    shown, tempdir, write_file,
};

/// The algorithms and their oracles (`tool --tag`).
const ALGOS: [(&str, &str); 7] = [
    ("md5", "md5sum"),
    ("sha1", "sha1sum"),
    ("sha224", "sha224sum"),
    ("sha256", "sha256sum"),
    ("sha384", "sha384sum"),
    ("sha512", "sha512sum"),
    ("blake3", "b3sum"),
];

const MODES: [&str; 4] = ["threaded", "sync", "bytewise", "mmap"];

fn oracle(algo: &str) -> &'static str {
    ALGOS
        .iter()
        .find(|(a, _)| *a == algo)
        .map(|(_, t)| *t)
        .unwrap()
}

/// A tree of inputs: empty, small, one bigger than a pool block (streamed,
/// or mapped in mmap mode), and odd names (newline, backslash, non-UTF-8;
/// those only for GNU's tools: b3sum writes names its own way).
struct Fixture {
    dir: tempfile::TempDir,
    plain: Vec<OsString>,
    odd: Vec<OsString>,
}

fn fixture() -> Fixture {
    let dir = tempdir();
    let d = dir.path();
    let mut plain = Vec::new();
    for (i, (name, len)) in [
        ("empty", 0),
        ("small", 1000),
        ("big", 3 << 20),
        ("mid", 70_000),
    ]
    .into_iter()
    .enumerate()
    {
        write_file(d, name, &random_bytes(len, 13 + i as u64));
        plain.push(OsString::from(name));
    }
    let mut odd = Vec::new();
    for (i, name) in [&b"new\nline"[..], b"back\\slash", b"caf\xe9"]
        .into_iter()
        .enumerate()
    {
        let name = OsString::from_vec(name.to_vec());
        write_file(d, &name, &random_bytes(5000, 40 + i as u64));
        odd.push(name);
    }
    Fixture { dir, plain, odd }
}

/// Each file's line from `tool --tag` (with `-z` when `zero`), by position.
fn oracle_lines(d: &Path, tool: &str, files: &[OsString], zero: bool) -> Vec<Vec<u8>> {
    let mut c = gnu(tool);
    c.current_dir(d).arg("--tag");
    if zero {
        c.arg("-z");
    }
    let out = run(c.args(files));
    assert!(out.status.success(), "{tool}: {}", shown(&out));
    let end = if zero { b'\0' } else { b'\n' };
    let lines: Vec<Vec<u8>> = out
        .stdout
        .split_inclusive(|&b| b == end)
        .map(<[u8]>::to_vec)
        .collect();
    assert_eq!(lines.len(), files.len(), "{tool}");
    lines
}

/// What `fastsum -a ORDER FILES` must print: per file, each algorithm's line.
fn expected(cache: &HashMap<&str, Vec<Vec<u8>>>, order: &[&str], n: usize) -> Vec<u8> {
    (0..n)
        .flat_map(|i| order.iter().flat_map(move |a| cache[a][i].iter().copied()))
        .collect()
}

fn oracles_here(algos: &[&str]) -> bool {
    algos.iter().all(|a| require_tool(oracle(a)))
}

/// Every ordered pair of the seven algorithms, and a seeded sample of longer
/// orders (up to all seven), against the tools, on plain names; the GNU
/// algorithms on odd names too.
#[test]
fn every_pair_and_sampled_orders_match_the_tools() {
    let all: Vec<&str> = ALGOS.iter().map(|(a, _)| *a).collect();
    if !oracles_here(&all) {
        return;
    }
    let fx = fixture();
    let d = fx.dir.path();
    let cache: HashMap<&str, Vec<Vec<u8>>> = all
        .iter()
        .map(|&a| (a, oracle_lines(d, oracle(a), &fx.plain, false)))
        .collect();
    let mut orders: Vec<Vec<&str>> = Vec::new();
    for a in &all {
        for b in &all {
            if a != b {
                orders.push(vec![a, b]);
            }
        }
    }
    // a seeded sample: shuffles of the seven, cut to 3..=7
    let mut rng = fastsum::internals::Rng::new(0x5eed);
    for k in 0..12 {
        let mut perm = all.clone();
        for i in (1..perm.len()).rev() {
            perm.swap(i, rng.below(i + 1));
        }
        perm.truncate(3 + k % 5);
        orders.push(perm);
    }
    for order in &orders {
        let list = order.join(",");
        let out = run(fastsum().current_dir(d).args(["-a", &list]).args(&fx.plain));
        let want = expected(&cache, order, fx.plain.len());
        assert!(out.status.success(), "-a {list}: {}", shown(&out));
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&want),
            "-a {list}"
        );
    }
    // odd names, with GNU's escaping, and -z (no escaping, NUL ends)
    let gnu_algos = ["sha512", "md5", "sha1"];
    for zero in [false, true] {
        let cache: HashMap<&str, Vec<Vec<u8>>> = gnu_algos
            .iter()
            .map(|&a| (a, oracle_lines(d, oracle(a), &fx.odd, zero)))
            .collect();
        let mut c = fastsum();
        c.current_dir(d).args(["-a", "sha512", "-a", "MD5,sha1"]);
        if zero {
            c.arg("-z");
        }
        let out = run(c.args(&fx.odd));
        assert!(out.status.success(), "{}", shown(&out));
        assert_eq!(
            out.stdout,
            expected(&cache, &gnu_algos, fx.odd.len()),
            "-z {zero}"
        );
    }
}

/// Every mode, `-j 1` and `-j 3` (fan-out on threads), `-r`: the same lines.
#[test]
fn every_mode_and_jobs_give_the_same_lines() {
    let order = ["sha256", "md5", "blake3", "sha512", "sha1"];
    if !oracles_here(&order) {
        return;
    }
    let fx = fixture();
    let d = fx.dir.path();
    let cache: HashMap<&str, Vec<Vec<u8>>> = order
        .iter()
        .map(|&a| (a, oracle_lines(d, oracle(a), &fx.plain, false)))
        .collect();
    let want = expected(&cache, &order, fx.plain.len());
    for mode in MODES {
        for jobs in ["1", "3"] {
            for chunk in ["64K", "1000"] {
                let out = run(fastsum()
                    .current_dir(d)
                    .args(["-a", &order.join(","), "-m", mode, "-j", jobs])
                    .args(["--chunk", chunk, "--readahead", "256K"])
                    .args(&fx.plain));
                assert!(out.status.success(), "{mode} -j {jobs}: {}", shown(&out));
                assert_stdout(&format!("-m {mode} -j {jobs} --chunk {chunk}"), &out, &want);
            }
        }
    }
    // -r walks a directory: names sorted, each with every algorithm
    let sub = d.join("sub");
    std::fs::create_dir(&sub).unwrap();
    write_file(&sub, "b", b"bee");
    write_file(&sub, "a", b"ay");
    let out = run(fastsum()
        .current_dir(d)
        .args(["-r", "-a", "sha1,md5", "sub"]));
    let names = [OsString::from("sub/a"), OsString::from("sub/b")];
    let cache: HashMap<&str, Vec<Vec<u8>>> = ["sha1", "md5"]
        .iter()
        .map(|&a| (a, oracle_lines(d, oracle(a), &names, false)))
        .collect();
    assert_stdout("sha1,md5", &out, expected(&cache, &["sha1", "md5"], 2));
}

/// Standard input and FIFOs are read once (a second read would find them
/// empty), in every mode.
#[test]
fn stdin_and_fifos_are_read_once() {
    if !oracles_here(&["md5", "sha384", "blake3"]) {
        return;
    }
    let data = random_bytes(2_500_000, 99);
    let dir = tempdir();
    let d = dir.path();
    write_file(d, "-", &data);
    let list = ["sha384", "blake3", "md5"];
    let cache: HashMap<&str, Vec<Vec<u8>>> = list
        .iter()
        .map(|&a| {
            (
                a,
                oracle_lines(d, oracle(a), &[OsString::from("./-")], false),
            )
        })
        .collect();
    let want_for = |name: &str| {
        let lines = expected(&cache, &list, 1);
        String::from_utf8(lines)
            .unwrap()
            .replace("(./-)", &format!("({name})"))
    };
    let fifo = d.join("fifo");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    for mode in MODES {
        for jobs in ["1", "2"] {
            let args = ["-a", "sha384,blake3", "-a", "md5", "-m", mode, "-j", jobs];
            let out = run_with_stdin(fastsum().args(args), &data);
            assert_eq!(
                String::from_utf8_lossy(&out.stdout),
                want_for("-"),
                "stdin {mode}"
            );
            let writer = {
                let (fifo, data) = (fifo.clone(), data.clone());
                std::thread::spawn(move || std::fs::write(fifo, data).unwrap())
            };
            let out = run(fastsum().current_dir(d).args(args).arg("fifo"));
            crate::util::join_fifo_writer(&fifo, writer);
            assert_eq!(
                String::from_utf8_lossy(&out.stdout),
                want_for("fifo"),
                "fifo {mode}"
            );
        }
    }
}

/// A read error in the middle of an input: reported once, no line for any
/// of its algorithms, the other inputs hashed, exit 1, in every mode.
#[test]
fn a_read_error_mid_file_prints_no_line_for_any_algorithm() {
    if !require_strace() || !oracles_here(&["md5", "sha256"]) {
        return;
    }
    let dir = tempdir();
    let d = dir.path();
    write_file(d, "a", b"first\n");
    // big enough for helper threads (1 MiB); the mmap and threaded modes
    // map a file that big (no read to fail), so there it is one they read
    let big = write_file(d, "big", &random_bytes(1_200_000, 7));
    let small = write_file(d, "small", &random_bytes(50_000, 7));
    write_file(d, "z", b"last\n");
    let names = [OsString::from("a"), OsString::from("z")];
    let cache: HashMap<&str, Vec<Vec<u8>>> = ["sha256", "md5"]
        .iter()
        .map(|&a| (a, oracle_lines(d, oracle(a), &names, false)))
        .collect();
    let want = expected(&cache, &["sha256", "md5"], 2);
    for mode in MODES {
        let bad = if ["mmap", "threaded"].contains(&mode) {
            &small
        } else {
            &big
        };
        std::fs::copy(bad, d.join("bad")).unwrap();
        let bad = d.join("bad");
        for jobs in ["1", "2"] {
            let mut c = Command::new("strace");
            c.current_dir(d)
                .env("LC_ALL", "C.UTF-8")
                .args(["-f", "-qq", "-o", "/dev/null", "-P"])
                .arg(&bad)
                .args(["-e", "inject=read:error=EIO:when=2"])
                .arg(crate::util::fastsum_path())
                .args(["-a", "sha256,md5", "-m", mode, "-j", jobs])
                .args(["--chunk", "4K", "--readahead", "8K", "a", "bad", "z"]);
            let out = run(&mut c);
            let what = format!("-m {mode} -j {jobs}");
            assert_eq!(out.status.code(), Some(1), "{what}: {}", shown(&out));
            assert_eq!(
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&want),
                "{what}"
            );
            assert_eq!(
                String::from_utf8_lossy(&out.stderr),
                "fastsum: bad: Input/output error\n",
                "{what}"
            );
        }
    }
}

/// What several algorithms print is checked by `fastsum -c` (each file read
/// once for all its lines) and, for its SHA256 lines, by GNU `sha256sum
/// -c`, which counts the other lines as improperly formatted.
#[test]
fn round_trip_through_fastsum_and_gnu_check() {
    if !require_tool("sha256sum") {
        return;
    }
    let dir = tempdir();
    let d = dir.path();
    write_file(d, "one", b"1\n");
    write_file(d, "two", &random_bytes(100_000, 2));
    let out = run(fastsum()
        .current_dir(d)
        .args(["-a", "md5,sha256,sha1,blake3", "one", "two"]));
    assert!(out.status.success());
    std::fs::write(d.join("SUMS"), &out.stdout).unwrap();
    assert_eq!(out.stdout.split(|&b| b == b'\n').count(), 9);
    // fastsum -c: every line OK, each file read once (two read calls each:
    // the data, then end of file)
    let out = run(fastsum()
        .current_dir(d)
        .args(["-c", "-m", "sync", "--chunk", "1M", "--stats", "SUMS"]));
    assert!(out.status.success(), "{}", shown(&out));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "one: OK\none: OK\none: OK\none: OK\ntwo: OK\ntwo: OK\ntwo: OK\ntwo: OK\n"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("stats: files hashed: 2\n"), "{stderr}");
    assert!(stderr.contains("stats: read calls: 4\n"), "{stderr}");
    // -a x,y -c: the tags of x and y only, the others improper
    let out = run(fastsum()
        .current_dir(d)
        .args(["-a", "sha256,md5", "-c", "SUMS"]));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "one: OK\none: OK\ntwo: OK\ntwo: OK\n"
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "fastsum: WARNING: 4 lines are improperly formatted\n"
    );
    // a corrupted file fails every line that names it
    write_file(d, "two", b"changed");
    let out = run(fastsum().current_dir(d).args(["-c", "--quiet", "SUMS"]));
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "two: FAILED\ntwo: FAILED\ntwo: FAILED\ntwo: FAILED\n"
    );
    write_file(d, "two", &random_bytes(100_000, 2));
    // GNU: the SHA256 lines verified, the 6 others counted
    let out = run(gnu("sha256sum").current_dir(d).args(["-c", "SUMS"]));
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "one: OK\ntwo: OK\n");
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "sha256sum: WARNING: 6 lines are improperly formatted\n"
    );
}

/// `-a` usage: duplicates and untagged layouts are refused (exit 2);
/// one algorithm is as before.
#[test]
fn usage_errors_and_one_algorithm_as_before() {
    let dir = tempdir();
    let d = dir.path();
    write_file(d, "f", b"x");
    for (args, msg) in [
        (
            &["-a", "md5,sha1", "-a", "MD5", "f"][..],
            "the algorithm 'md5' is given twice in -a",
        ),
        (
            &["-a", "sha1,sha1", "f"][..],
            "the algorithm 'sha1' is given twice in -a",
        ),
        (
            &["-a", "md5,sha1", "-b", "f"][..],
            "several algorithms print BSD-tagged lines",
        ),
        (
            &["-a", "md5,sha1", "-t", "f"][..],
            "several algorithms print BSD-tagged lines",
        ),
    ] {
        let out = run(fastsum().current_dir(d).args(args));
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.starts_with(&format!("fastsum: {msg}")),
            "{args:?}: {err}"
        );
        assert!(out.stdout.is_empty());
    }
    let out = run(fastsum().current_dir(d).args(["-a", "md5,nope", "f"]));
    assert_eq!(out.status.code(), Some(2));
    // --tag is accepted (it is what several algorithms print anyway)
    let out = run(fastsum()
        .current_dir(d)
        .args(["--tag", "-a", "md5,sha1", "f"]));
    assert!(out.status.success());
    assert!(out.stdout.starts_with(b"MD5 (f) = "));
    // one algorithm: untagged, as before
    let out = run(fastsum().current_dir(d).args(["-a", "sha1", "f"]));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "11f6ad8ec52a2984abaafd7c3b516503785c2072  f\n"
    );
}

/// docs/GUIDE.md's "Beyond one machine" recipe, run with GNU parallel on local
/// job slots (`-S 3/:`, no network): hashing a tree in parts keeps the
/// order, and a SUMS file split in three verifies with the statuses combined.
#[test]
fn the_multi_host_recipe_works_locally() {
    if !require_tool("parallel") || !require_tool("bash") {
        return;
    }
    let dir = tempdir();
    let d = dir.path();
    let tree = d.join("tree");
    std::fs::create_dir_all(tree.join("sub")).unwrap();
    for i in 0..40 {
        let sub = if i % 3 == 0 { "sub/" } else { "" };
        write_file(
            &tree,
            format!("{sub}f{i:02}"),
            &random_bytes(i * 500, i as u64),
        );
    }
    let bin = crate::util::fastsum_path();
    let bin_dir = bin.parent().unwrap();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let script = r#"
set -u
cd tree
# hash: every host (here: 3 local slots) hashes a share, -k keeps the order
find . -type f -print0 | sort -z |
  parallel --will-cite -0 -k -X -S 3/: --wd "$PWD" fastsum -a md5,sha256 > ../SUMS
cd ..
# one pass on one machine, for comparison
(cd tree && find . -type f -print0 | sort -z | xargs -0 fastsum -a md5,sha256) > ONE
# verify: split SUMS at line boundaries, one part per host, statuses combined
split -n l/3 SUMS part.
(cd tree && parallel --will-cite -k -S 3/: --wd "$PWD" fastsum -c --quiet ::: ../part.*)
echo "status $?"
echo corrupt > tree/f05
(cd tree && parallel --will-cite -k -S 3/: --wd "$PWD" fastsum -c --quiet ::: ../part.*)
echo "status $?"
"#;
    let out = run(Command::new("bash")
        .current_dir(d)
        .env("PATH", path)
        .env("LC_ALL", "C.UTF-8")
        .args(["-c", script]));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let sums = std::fs::read(d.join("SUMS")).unwrap();
    assert_eq!(
        sums,
        std::fs::read(d.join("ONE")).unwrap(),
        "{}",
        shown(&out)
    );
    assert_eq!(sums.split(|&b| b == b'\n').count(), 81);
    assert_eq!(
        stdout,
        "status 0\n./f05: FAILED\n./f05: FAILED\nstatus 1\n",
        "{}",
        shown(&out)
    );
    let _ = File::open(d.join("part.aa")).unwrap();
}
