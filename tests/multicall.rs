//! Multi-call: fastsum run through a symlink named md5sum, sha1sum, …,
//! sha512sum, b2sum, cksum, sum, b3sum or an xxhsum name defaults to that
//! algorithm, prefixes its messages with
//! that name, and prints what that tool prints.

use crate::util::fastsum_path;
use crate::util::{
    MODES, assert_output, assert_outputs_same, assert_stdout, fastsum, gnu, gnu_algorithms,
    multicall, os, random_bytes, require_tool, run, run_with_stdin, shown, tempdir, tool_of,
    write_file,
};

/// Under each GNU name, with no `-a`: files of several sizes, a name GNU
/// escapes, a missing file and a directory, in each format. Both programs
/// carry the same name, so stderr must match byte for byte too.
#[test]
fn gnu_names_act_as_the_gnu_tools() {
    let dir = tempdir();
    write_file(dir.path(), "empty", b"");
    write_file(dir.path(), "small", b"abc");
    write_file(dir.path(), "big", &random_bytes(200_003, 1));
    write_file(dir.path(), os(b"back\\slash\nnew"), b"escaped\n");
    std::fs::create_dir(dir.path().join("dir")).expect("mkdir");
    let files = [
        os(b"empty"),
        os(b"small"),
        os(b"nosuch"),
        os(b"big"),
        os(b"back\\slash\nnew"),
        os(b"dir"),
    ];
    let formats: [&[&str]; 4] = [&[], &["--tag"], &["-z"], &["-b"]];
    for algo in gnu_algorithms() {
        let tool = tool_of(algo);
        if !require_tool(tool) {
            return;
        }
        for format in formats {
            let want = run(gnu(tool).current_dir(dir.path()).args(format).args(files));
            assert_eq!(want.status.code(), Some(1), "{tool} {format:?}");
            for mode in ["threaded", "sync"] {
                let got = run(multicall(dir.path(), tool)
                    .current_dir(dir.path())
                    .args(["-m", mode])
                    .args(format)
                    .args(files));
                let what = format!("{tool} {mode} {format:?}");
                assert_outputs_same(&what, &got, &want, tool, tool);
                let prefix = format!("{tool}: nosuch: ");
                assert!(got.stderr.starts_with(prefix.as_bytes()), "{what}");
            }
        }
    }
}

/// Standard input under a GNU name, in every mode.
#[test]
fn gnu_names_hash_stdin() {
    let dir = tempdir();
    let data = random_bytes(100_001, 2);
    for algo in gnu_algorithms() {
        let tool = tool_of(algo);
        if !require_tool(tool) {
            return;
        }
        let want = run_with_stdin(&mut gnu(tool), &data);
        for mode in MODES {
            let got = run_with_stdin(multicall(dir.path(), tool).args(["-m", mode]), &data);
            assert_outputs_same(&format!("{tool} {mode}"), &got, &want, tool, tool);
        }
    }
}

/// Under the b3sum name: BLAKE3 by default, lines as b3sum prints them (the
/// installed b3sum when there is one, else lines from the blake3 crate), and
/// messages prefixed `b3sum: `.
#[test]
fn b3sum_name_acts_as_b3sum() {
    let dir = tempdir();
    let big = random_bytes(300_007, 3);
    write_file(dir.path(), "small", b"abc");
    write_file(dir.path(), "big", &big);
    let files = ["small", "big"];
    let want = if require_tool("b3sum") {
        run(gnu("b3sum").current_dir(dir.path()).args(files)).stdout
    } else {
        eprintln!("b3sum is not installed: comparing with the blake3 crate only");
        format!(
            "{}  small\n{}  big\n",
            blake3::hash(b"abc").to_hex(),
            blake3::hash(&big).to_hex()
        )
        .into_bytes()
    };
    for mode in MODES {
        let got = run(multicall(dir.path(), "b3sum")
            .current_dir(dir.path())
            .args(["-m", mode])
            .args(files));
        assert_eq!(
            String::from_utf8_lossy(&got.stdout),
            String::from_utf8_lossy(&want),
            "{mode}"
        );
        assert_eq!(got.status.code(), Some(0), "{mode}");
    }
    let got = run(multicall(dir.path(), "b3sum")
        .current_dir(dir.path())
        .args(["small", "nosuch"]));
    let want = format!("{}  small\n", blake3::hash(b"abc").to_hex());
    let err = "b3sum: nosuch: No such file or directory\n";
    assert_output("b3sum small nosuch", &got, want, err, 1);
}

/// Any other name (a renamed copy, a symlink called `hasher`) is fastsum
/// itself: MD5 by default, messages prefixed `fastsum: `.
#[test]
fn other_names_act_as_fastsum() {
    if !require_tool("md5sum") {
        return;
    }
    let dir = tempdir();
    write_file(dir.path(), "f", b"abc");
    let got = run(multicall(dir.path(), "hasher")
        .current_dir(dir.path())
        .args(["f", "nosuch"]));
    let want = run(gnu("md5sum").current_dir(dir.path()).arg("f"));
    let err = "fastsum: nosuch: No such file or directory\n";
    assert_output("hasher f nosuch", &got, &want.stdout, err, 1);
}

/// Under a fixed-algorithm name `-a` does not exist: the GNU tool's own
/// refusal, word for word, and exit 1 (it used to hash with `-a`'s
/// algorithm under the other tool's name). `--version` says what it is.
#[test]
fn fixed_names_refuse_a_and_say_what_they_are() {
    let dir = tempdir();
    write_file(dir.path(), "f", b"abc");
    for algo in gnu_algorithms() {
        let tool = tool_of(algo);
        if !require_tool(tool) {
            return;
        }
        for args in [
            &["-a", "md5", "f"][..],
            &["-asha256", "f"],
            &["--algorithm=md5", "f"],
        ] {
            let want = run(gnu(tool).current_dir(dir.path()).args(args));
            let got = run(multicall(dir.path(), tool)
                .current_dir(dir.path())
                .args(args));
            assert_outputs_same(&format!("{tool} {args:?}"), &got, &want, tool, tool);
        }
        let got = run(multicall(dir.path(), tool).arg("--version"));
        assert_eq!(
            String::from_utf8_lossy(&got.stdout),
            format!("{tool} (fastsum) {}\n", env!("CARGO_PKG_VERSION"))
        );
    }
    let got = run(multicall(dir.path(), "b3sum").args(["-a", "md5", "f"]));
    assert_eq!(got.status.code(), Some(2));
    assert!(got.stdout.is_empty());
    let got = run(multicall(dir.path(), "b3sum").arg("--version"));
    assert_eq!(
        String::from_utf8_lossy(&got.stdout),
        format!("b3sum (fastsum) {}\n", env!("CARGO_PKG_VERSION"))
    );
    // as fastsum, -a takes names in any case (`--tag` prints them upper case)
    for (name, tool) in [
        ("BLAKE3", None),
        ("SHA256", Some("sha256sum")),
        ("Md5", Some("md5sum")),
    ] {
        // (--untagged: fastsum's own name tags SHA-256's and BLAKE3's lines)
        let got = run(fastsum()
            .current_dir(dir.path())
            .args(["-a", name, "--untagged", "f"]));
        assert_eq!(got.status.code(), Some(0), "{name}");
        if let Some(tool) = tool {
            let want = run(gnu(tool).current_dir(dir.path()).arg("f"));
            assert_stdout(name, &got, &want.stdout);
        } else {
            let want = format!("{}  f\n", blake3::hash(b"abc").to_hex());
            assert_eq!(String::from_utf8_lossy(&got.stdout), want);
        }
    }
}

/// b3sum's own options under the b3sum name, against the installed b3sum:
/// stdout byte for byte and the exit status, for names b3sum escapes (CR,
/// newline, backslash) and one that is not UTF-8 (b3sum writes U+FFFD).
#[test]
fn b3sum_options_as_b3sum() {
    if !require_tool("b3sum") {
        return;
    }
    let dir = tempdir();
    let names: [&[u8]; 6] = [
        b"plain",
        b"cr\rname",
        b"nl\nname",
        b"back\\slash",
        b"bad\xffutf8",
        b"all\\\r\n\xfe",
    ];
    for (i, name) in names.iter().enumerate() {
        write_file(dir.path(), os(name), &random_bytes(1000 * i + 3, i as u64));
    }
    write_file(dir.path(), "big", &random_bytes(3 << 20, 9));
    let files: Vec<&std::ffi::OsStr> = names.iter().map(|n| os(n)).collect();
    let cases: [&[&str]; 14] = [
        &[],
        &["--tag"],
        &["--no-names"],
        &["-l", "0"],
        &["-l5"],
        &["--length=33"],
        &["--length", "200", "--tag"],
        &["-l", "100", "--no-names"],
        &["--no-mmap"],
        &["--num-threads", "1"],
        &["--num-threads=0", "--no-mmap", "--tag"],
        &["--quiet", "-c"],
        &["nosuch"],
        &["-l", "7", "nosuch"],
    ];
    for args in cases {
        let mut want_cmd = gnu("b3sum");
        let mut got_cmd = multicall(dir.path(), "b3sum");
        for c in [&mut want_cmd, &mut got_cmd] {
            c.current_dir(dir.path()).args(args).args(&files).arg("big");
        }
        let want = run(&mut want_cmd);
        let got = run(&mut got_cmd);
        let what = format!("b3sum {args:?}");
        assert_eq!(
            String::from_utf8_lossy(&got.stdout),
            String::from_utf8_lossy(&want.stdout),
            "{what}"
        );
        assert_stdout(&what, &got, &want.stdout);
        assert_eq!(got.status.code(), want.status.code(), "{what}");
    }
    // --raw: one input's bytes; standard input too
    for args in [
        &["--raw", "big"][..],
        &["--raw", "-l", "1000", "big"],
        &["--raw", "-l", "3"],
    ] {
        let want = run_with_stdin(gnu("b3sum").current_dir(dir.path()).args(args), b"in");
        let got = run_with_stdin(
            multicall(dir.path(), "b3sum")
                .current_dir(dir.path())
                .args(args),
            b"in",
        );
        assert_stdout(&format!("{args:?}"), &got, &want.stdout);
        assert_eq!(got.status.code(), Some(0), "{args:?}");
    }
}

/// b3sum's usage errors: clap's, exit 2, as the installed b3sum; `--raw`
/// with two inputs is b3sum's own error, exit 1.
#[test]
fn b3sum_usage_errors_as_b3sum() {
    if !require_tool("b3sum") {
        return;
    }
    let dir = tempdir();
    write_file(dir.path(), "f", b"abc");
    let cases: [&[&str]; 12] = [
        &["--bogus", "f"],
        &["-a", "sha256", "f"],
        &["-b", "f"],
        &["-z", "f"],
        &["--chec", "f"],
        &["-l"],
        &["--length=x", "f"],
        &["--num-threads", "-3", "f"],
        &["-c", "--raw", "f"],
        &["-c", "-l", "5", "f"],
        &["--tag=1", "f"],
        &["--raw", "f", "f"],
    ];
    for args in cases {
        let want = run(gnu("b3sum").current_dir(dir.path()).args(args));
        let got = run(multicall(dir.path(), "b3sum")
            .current_dir(dir.path())
            .args(args));
        let what = format!("b3sum {args:?}");
        assert!(
            want.status.code() == Some(2) || args[0] == "--raw",
            "{what}: {want:?}"
        );
        assert_eq!(got.status.code(), want.status.code(), "{what}");
        assert!(got.stdout.is_empty(), "{what}");
        let err = String::from_utf8_lossy(&got.stderr);
        if want.status.code() == Some(2) {
            assert!(err.starts_with("error: "), "{what}: {err}");
        } else {
            assert!(
                err.contains("Only one filename can be provided when using --raw"),
                "{what}: {err}"
            );
        }
    }
}

/// The names the tools are installed under elsewhere (Homebrew's
/// `gsha256sum`, `sha256sum.exe`, a versioned `sha256sum-9.1`) act as the
/// tool, messages prefixed with the name invoked; a name that is no tool's
/// (`SHA256SUM` on Linux, whose file names keep case) acts as fastsum,
/// never as another tool.
#[test]
fn installed_names_act_as_their_tool() {
    if !require_tool("sha256sum") {
        return;
    }
    let dir = tempdir();
    write_file(dir.path(), "f", b"some bytes\n");
    let want = run(gnu("sha256sum")
        .current_dir(dir.path())
        .args(["f", "nosuch"]));
    for name in ["gsha256sum", "sha256sum.exe", "sha256sum-9.1"] {
        let got = run(multicall(dir.path(), name)
            .current_dir(dir.path())
            .args(["f", "nosuch"]));
        let err = format!("{name}: nosuch: No such file or directory\n");
        assert_output(name, &got, &want.stdout, &err, 1);
    }
    let as_fastsum = run(fastsum().current_dir(dir.path()).args(["f", "nosuch"]));
    // (on macOS and Windows, whose file names ignore case, SHA256SUM is the tool)
    let no_tool: &[&str] = if cfg!(any(target_os = "macos", windows)) {
        &["sha256", "xsha256sum"]
    } else {
        &["SHA256SUM", "sha256", "xsha256sum"]
    };
    for &name in no_tool {
        let got = run(multicall(dir.path(), name)
            .current_dir(dir.path())
            .args(["f", "nosuch"]));
        assert_output(
            name,
            &got,
            &as_fastsum.stdout,
            &String::from_utf8_lossy(&as_fastsum.stderr),
            1,
        );
    }
}

/// Under the b3sum name, `-c` verifies as b3sum does: a malformed line,
/// an empty one, a `#` one or another algorithm's tag fails the run (b3sum
/// counts each with the checksums that did not match), and an unreadable
/// file says why in its status line. Against b3sum, stdout and stderr in
/// one stream (their order matters), with and without `--quiet`.
#[test]
fn b3sum_name_checks_as_b3sum() {
    if !require_tool("b3sum") {
        return;
    }
    let dir = tempdir();
    write_file(dir.path(), "f", b"hi\n");
    std::fs::create_dir(dir.path().join("d")).unwrap();
    let good = run(gnu("b3sum").current_dir(dir.path()).arg("f")).stdout;
    let good = String::from_utf8(good).unwrap();
    let hex = &good[..64];
    let cases = [
        format!("{good}garbage line\n"),
        format!("garbage\n{good}\n{good}"),
        format!("{good}# a comment\n"),
        format!("{good}MD5 (f) = 764efa883dda1e11db47671c4a3bbd9e\n"),
        format!("{good}BLAKE3 (f) = {hex}\n"),
        format!("{hex}  nosuch\n{hex}  d\n"),
        "garbage\n".to_string(),
        good.trim_end().to_string(),
        good.replace('\n', "\r\n"),
    ];
    for (i, sums) in cases.iter().enumerate() {
        write_file(dir.path(), "SUMS", sums.as_bytes());
        for quiet in [false, true] {
            let both = |c: &mut std::process::Command| {
                let mut sh = std::process::Command::new("sh");
                sh.current_dir(dir.path())
                    .arg("-c")
                    .arg("\"$0\" \"$@\" 2>&1")
                    .arg(c.get_program())
                    .arg("-c")
                    .args(quiet.then_some("--quiet"))
                    .arg("SUMS");
                run(&mut sh)
            };
            let want = both(&mut gnu("b3sum"));
            let got = both(&mut multicall(dir.path(), "b3sum"));
            let what = format!("case {i} quiet {quiet}: {sums:?}");
            assert_output(&what, &got, &want.stdout, "", want.status.code().unwrap());
        }
    }
}

/// Under the b3sum name, `--num-threads 1` (and `fastsum -a blake3 -j 1`)
/// hash a big file on one thread, as b3sum does (rayon starts none), and
/// `--no-mmap` reads the file instead of mapping it (its bytes come
/// through read calls). Counted with strace.
#[test]
fn b3sum_num_threads_and_no_mmap_are_honoured() {
    if !crate::util::require_strace() {
        return;
    }
    let dir = tempdir();
    let size = 4 << 20;
    write_file(dir.path(), "big", &random_bytes(size, 5));
    let link = dir.path().join("b3sum");
    let _ = multicall(dir.path(), "b3sum");
    // (threads started, bytes read) by one run under strace
    let traced = |prog: &std::path::Path, args: &[&str]| {
        let log = dir.path().join("trace");
        let o = run(std::process::Command::new("strace")
            .current_dir(dir.path())
            .args(["-f", "-qq", "-e", "trace=clone,clone3,read", "-o"])
            .arg(&log)
            .arg(prog)
            .args(args)
            .arg("big"));
        assert!(o.status.success(), "{args:?}: {}", shown(&o));
        let text = std::fs::read_to_string(&log).unwrap();
        let threads = text.lines().filter(|l| l.contains("clone")).count();
        let read: usize = text
            .lines()
            .filter(|l| l.contains("read("))
            .filter_map(|l| l.rsplit("= ").next()?.trim().parse::<usize>().ok())
            .sum();
        (threads, read)
    };
    let fastsum_bin = fastsum_path();
    let (default_threads, default_read) = traced(&link, &[]);
    let (one, _) = traced(&link, &["--num-threads", "1"]);
    let (j1, _) = traced(&fastsum_bin, &["-a", "blake3", "-j", "1"]);
    let (_, no_mmap_read) = traced(&link, &["--no-mmap"]);
    assert!(
        default_read < size,
        "mapped by default: read {default_read}"
    );
    assert!(no_mmap_read >= size, "--no-mmap reads: read {no_mmap_read}");
    if std::thread::available_parallelism().map_or(1, |n| n.get()) > 1 {
        assert!(
            one < default_threads,
            "--num-threads 1: {one} threads, default {default_threads}"
        );
        assert!(
            j1 < default_threads,
            "-j 1: {j1} threads, default {default_threads}"
        );
    } else {
        crate::util::skip("the thread counts: one core here, rayon starts no thread anyway");
    }
}

/// GNU's tests/misc/usage_vs_getopt.sh (coreutils), its `checkprg` with
/// `returns_` and the framework's failures inlined: it reads every option a
/// `--help` lists, up to the `--version` line, and runs `prg OPT --help
/// --help`, which must print the help or complain of something else than an
/// unknown option. A prose line that begins with an option word, or an
/// option written `--jobs <N>`, breaks it.
const USAGE_VS_GETOPT: &str = r#"
fail=0
checkprg () {
  prg="$1"
  rcexp=1
  o='thisoptiondoesnotexist'
  $prg --$o >/dev/null 2> err; [ $? = $rcexp ] || { echo "$prg --$o: status"; fail=1; }
  grep -F "$o" err >/dev/null || { echo "$prg: framework failure 1"; fail=1; }
  sed -n "1s/--$o/OPT/p" < err > pat || { echo "$prg: framework failure 2"; fail=1; }
  $prg -/ >/dev/null 2> err; [ $? = $rcexp ] || { echo "$prg -/: status"; fail=1; }
  grep " '*/'*" err >/dev/null || { echo "$prg: framework failure 3"; fail=1; }
  sed -n "1s/'\/'/'OPT'/p" < err >> pat || { echo "$prg: framework failure 4"; fail=1; }
  $prg --help > help || fail=1
  nl="
  "
  sed -n -e '/--version/q' \
    -e 's/^ \{2,6\}-/-/; s/  .*//; s/[=[].*//; s/, /\'"$nl"'/g; s/^-/-/p' help \
    > opts || { echo "$prg: framework failure 5"; fail=1; }
  echo "$prg:" $(cat opts)
  while read opt; do
    test "x$opt" = 'x--help' && continue
    $prg "$opt" --help --help </dev/null >out 2>err1
    rc=$?
    if [ $rc = 0 ]; then
      cmp -s help out || { echo "$prg $opt: not the help"; fail=1; }
    else
      sed -e "s/$opt/OPT/" -e "s/'.'/'OPT'/" < err1 > err || { echo "$prg $opt: sed fails"; fail=1; }
      grep -Ff pat err && { fail=1; cat err1; }
    fi
  done < opts
}
for prg in "$@"; do checkprg $prg; done
exit $fail
"#;

/// Under every GNU name, `--help` survives GNU's own test of it, and every
/// option it lists is found (the tuning ones too: they come before
/// `--version`).
#[test]
fn gnu_names_help_survives_usage_vs_getopt() {
    if !require_tool("sed") {
        return;
    }
    let dir = tempdir();
    let mut names: Vec<&str> = gnu_algorithms().map(tool_of).collect();
    names.extend(["b2sum", "cksum", "sum"]);
    names.dedup();
    for name in &names {
        let _ = multicall(dir.path(), name);
    }
    let path = format!(
        "{}:{}",
        dir.path().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let o = run(std::process::Command::new("sh")
        .current_dir(dir.path())
        .env("PATH", path)
        .env("LC_ALL", "C.UTF-8")
        .arg("-c")
        .arg(USAGE_VS_GETOPT)
        .arg("usage_vs_getopt")
        .args(&names));
    assert_eq!(o.status.code(), Some(0), "{}", shown(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    for name in &names {
        let line = out
            .lines()
            .find(|l| l.starts_with(&format!("{name}:")))
            .unwrap_or_default();
        let own: &[&str] = match *name {
            "sum" => &["-r", "-s", "--sysv"],
            "cksum" => &[
                "-a",
                "--algorithm",
                "--untagged",
                "--debug",
                "-l",
                "--check",
            ],
            _ => &["--check", "-c", "--strict"],
        };
        for opt in own.iter().chain(&["--jobs", "--chunk", "--no-progress"]) {
            assert!(line.split(' ').any(|w| w == *opt), "{opt} in {line:?}");
        }
    }
}
