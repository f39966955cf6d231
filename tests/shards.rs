//! Issue 44: lists in (`--files0-from`, `--files-from`), shares of a run
//! (`--shard K/N`), their merge (`--merge`), byte for byte one run's
//! output, and `--output`, which appears only complete.

use std::ffi::OsString;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::os::unix::fs::FileTypeExt;
use std::path::Path;
use std::process::Output;

use fastsum::internals::Rng;

use crate::util::{
    assert_output, fastsum, require_tool, run, run_with_stdin, shown, tempdir, write_file,
};

/// A seeded random tree under `dir/t`: nested directories, sizes skewed
/// (mostly small, a few large, some empty), odd names (a space, a
/// backslash, a newline, non-UTF-8).
fn random_tree(dir: &Path, seed: u64) {
    let mut rng = Rng::new(seed);
    let names: [&[u8]; 8] = [
        b"a",
        b"b c",
        b"back\\slash",
        b"new\nline",
        b"\xff",
        b"z",
        b"0",
        b"m",
    ];
    let files = 5 + rng.next_u64() % 40;
    for i in 0..files {
        let mut path = dir.join("t");
        for _ in 0..rng.next_u64() % 3 {
            let d = names[(rng.next_u64() % names.len() as u64) as usize];
            path.push(OsString::from_vec([b"d_", d].concat()));
        }
        std::fs::create_dir_all(&path).unwrap();
        let base = names[(rng.next_u64() % names.len() as u64) as usize];
        let name = OsString::from_vec([base, format!("{i}").as_bytes()].concat());
        let size = match rng.next_u64() % 10 {
            0 => 0,
            1 => 200_000 + rng.next_u64() % 300_000,
            _ => rng.next_u64() % 3000,
        };
        write_file(&path, &name, &rng.bytes(size as usize));
    }
}

fn ok(what: &str, o: &Output) -> Vec<u8> {
    assert!(o.status.success(), "{what}: {}", shown(o));
    o.stdout.clone()
}

/// The N parts of a run with `opts` over `operands`, each written to
/// `dir/part.K`; their names, in the order `--merge` gets them.
fn parts(dir: &Path, opts: &[&str], operands: &[&str], n: u32) -> Vec<String> {
    (0..n)
        .map(|k| {
            let o = run(fastsum()
                .current_dir(dir)
                .args(opts)
                .arg(format!("--shard={k}/{n}"))
                .args(operands));
            let part = format!("part.{k}");
            std::fs::write(dir.join(&part), ok(&part, &o)).unwrap();
            part
        })
        .rev()
        .collect()
}

fn merge(dir: &Path, parts: &[String]) -> Output {
    run(fastsum().current_dir(dir).arg("--merge").args(parts))
}

/// The bytes each part's header says its share holds.
fn share_bytes(dir: &Path, part: &str) -> u64 {
    let text = std::fs::read(dir.join(part)).unwrap();
    let header =
        String::from_utf8_lossy(&text[..text.iter().position(|&b| b < 32).unwrap()]).into_owned();
    let bytes = header.split(' ').find_map(|w| w.strip_prefix("bytes="));
    bytes.unwrap().parse().unwrap()
}

#[test]
fn merged_shards_are_one_runs_output_byte_for_byte() {
    let styles: [&[&str]; 5] = [
        &["-a", "md5,sha256", "--tag"],
        &["-a", "md5,sha256", "-z"],
        &["-a", "sha256"],
        &["--json", "-a", "md5,blake3"],
        &["-a", "sha1", "-z", "--tag"],
    ];
    // benches/shards.sh identity runs this over 100 trees
    let seeds = std::env::var("FASTSUM_SHARD_SEEDS").map_or(4, |s| s.parse().unwrap());
    for seed in 0..seeds {
        let tmp = tempdir();
        random_tree(tmp.path(), seed);
        let style = styles[seed as usize % styles.len()];
        let opts: Vec<&str> = [&["-r"], style].concat();
        let single = ok(
            "single run",
            &run(fastsum().current_dir(tmp.path()).args(&opts).arg("t")),
        );
        // the same shares of a list that find wrote with the sizes
        let (sized, _) = sized_list(tmp.path());
        std::fs::write(tmp.path().join("SIZED"), &sized).unwrap();
        let listed = [style, &["--files0-from=SIZED", "--list-sizes"]].concat();
        let one = ok(
            "the sized list's run",
            &run(fastsum().current_dir(tmp.path()).args(&listed)),
        );
        for n in [1, 2, 3, 8, 64] {
            let names = parts(tmp.path(), &listed, &[], n);
            let merged = ok("merge", &merge(tmp.path(), &names));
            assert!(
                merged == one,
                "seed {seed}, {listed:?}, N={n}: merged differs"
            );
        }
        for n in [1, 2, 3, 8, 64] {
            let names = parts(tmp.path(), &opts, &["t"], n);
            let merged = ok("merge", &merge(tmp.path(), &names));
            assert!(
                merged == single,
                "seed {seed}, {opts:?}, N={n}: merged differs"
            );
            // balanced by bytes: no share holds more than the mean plus the
            // biggest file (the rule's bound)
            let shares: Vec<u64> = names.iter().map(|p| share_bytes(tmp.path(), p)).collect();
            let total: u64 = shares.iter().sum();
            let biggest = 500_000;
            let most = shares.iter().max().unwrap();
            assert!(
                *most <= total / u64::from(n) + biggest,
                "seed {seed}: {shares:?}"
            );
        }
    }
}

#[test]
fn a_shard_is_a_check_file_gnu_reads() {
    if !require_tool("sha256sum") {
        return;
    }
    let tmp = tempdir();
    random_tree(tmp.path(), 7);
    for part in parts(tmp.path(), &["-r", "-a", "sha256"], &["t"], 3) {
        let o = run(crate::util::gnu("sha256sum")
            .current_dir(tmp.path())
            .args(["-c", "--strict", "--quiet", &part]));
        assert_output(&part, &o, "", "", 0);
    }
}

#[test]
fn the_header_names_the_share_and_the_run() {
    let tmp = tempdir();
    write_file(tmp.path(), "a", b"abc");
    let o = run(fastsum()
        .current_dir(tmp.path())
        .args(["-a", "md5", "--tag", "--shard", "0/1", "a"]));
    let want = "# fastsum shard 0/1 inputs=1/1 bytes=3 set=";
    assert!(
        ok("shard", &o).starts_with(want.as_bytes()),
        "{}",
        shown(&o)
    );
    let text = String::from_utf8(o.stdout).unwrap();
    assert!(
        text.contains(" per=1 run=MD5,--tag,--binary,--,a at=0\n"),
        "{text}"
    );
    assert!(
        text.ends_with("MD5 (a) = 900150983cd24fb0d6963f7d28e17f72\n"),
        "{text}"
    );
}

/// A seeded tree and the three parts of `-r -a md5` over it (K from 2 to 0).
fn md5_parts(seed: u64) -> (tempfile::TempDir, Vec<String>) {
    let tmp = tempdir();
    random_tree(tmp.path(), seed);
    let names = parts(tmp.path(), &["-r", "-a", "md5"], &["t"], 3);
    (tmp, names)
}

#[test]
fn merge_refuses_parts_that_make_no_whole_and_writes_nothing() {
    let (tmp, names) = md5_parts(3);
    let dir = tmp.path();
    let [p2, p1, p0] = [&names[0], &names[1], &names[2]].map(String::as_str);
    std::fs::write(
        dir.join("four.0"),
        ok(
            "",
            &run(fastsum()
                .current_dir(dir)
                .args(["-r", "-a", "md5", "--shard=0/4", "t"])),
        ),
    )
    .unwrap();
    std::fs::write(
        dir.join("tag.1"),
        ok(
            "",
            &run(fastsum()
                .current_dir(dir)
                .args(["-r", "-a", "md5", "--tag", "--shard=1/3", "t"])),
        ),
    )
    .unwrap();
    let whole = std::fs::read(dir.join(p2)).unwrap();
    let cut = &whole[..whole.len() - 1];
    std::fs::write(dir.join("cut.2"), cut).unwrap();
    std::fs::write(dir.join("plain"), b"0cc175b9c0f1b6a831c399e269772661  a\n").unwrap();
    let cases: [(&[&str], &str); 6] = [
        (&[p0, p1], "fastsum: shard 2/3 missing: no whole to merge\n"),
        (
            &[p0, p1, p1, p2],
            "fastsum: part.1: shard 1/3 given twice (also part.1)\n",
        ),
        (
            &[p0, p1, "four.0"],
            "fastsum: four.0: a part of another run than part.0 (another N)\n",
        ),
        (
            &[p0, "tag.1", p2],
            "fastsum: tag.1: a part of another run than part.0 (other algorithms or options)\n",
        ),
        (&[p0, p1, "cut.2"], ""),
        (
            &["plain"],
            "fastsum: plain: no '# fastsum shard' line first: not a part\n",
        ),
    ];
    for (args, stderr) in cases {
        let o = merge(dir, &args.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        assert_eq!(o.status.code(), Some(1), "{args:?}: {}", shown(&o));
        assert!(o.stdout.is_empty(), "{args:?}: {}", shown(&o));
        if stderr.is_empty() {
            assert!(
                String::from_utf8_lossy(&o.stderr).contains("cut.2: cut short"),
                "{}",
                shown(&o)
            );
        } else {
            assert_eq!(String::from_utf8_lossy(&o.stderr), stderr, "{args:?}");
        }
    }
    // --output: no file at all when refused
    let o = run(fastsum()
        .current_dir(dir)
        .args(["--merge", "--output", "SUMS", p0, p1]));
    assert_eq!(o.status.code(), Some(1));
    assert!(!dir.join("SUMS").exists());
}

/// Parts of another tree (the same N and options), and the same inputs
/// in two parts: refused, nothing written.
#[test]
fn merge_refuses_parts_of_other_inputs_or_inputs_twice() {
    let (tmp, names) = md5_parts(3);
    let dir = tmp.path();
    let [p2, p0] = [&names[0], &names[2]].map(String::as_str);
    // parts of another tree: same N and options, other inputs
    let other = tempdir();
    random_tree(other.path(), 4);
    let theirs = parts(other.path(), &["-r", "-a", "md5"], &["t"], 3);
    std::fs::copy(other.path().join(&theirs[1]), dir.join("other.1")).unwrap();
    let o = merge(dir, &[p0.into(), "other.1".into(), p2.into()]);
    assert_output(
        "another tree",
        &o,
        "",
        "fastsum: other.1: a part of another run than part.0 (other inputs, or other sizes)\n",
        1,
    );
    // the same inputs in two parts: part 0 under another K
    let mut twice = std::fs::read(dir.join(p0)).unwrap();
    let at = b"# fastsum shard 0/3".len() - 3;
    twice[at] = b'1';
    std::fs::write(dir.join("twice.1"), twice).unwrap();
    let o = merge(dir, &[p0.into(), "twice.1".into(), p2.into()]);
    assert_eq!(o.status.code(), Some(1), "{}", shown(&o));
    assert!(o.stdout.is_empty());
    let said = String::from_utf8_lossy(&o.stderr);
    assert!(
        said.starts_with("fastsum: twice.1: input ")
            && said.ends_with(" of the run is also in part.0\n"),
        "{said}"
    );
}

#[test]
fn files0_from_hashes_the_list_in_its_order_as_given() {
    let tmp = tempdir();
    let dir = tmp.path();
    for name in ["z", "a b", "new\nline", "m"] {
        write_file(dir, name, name.as_bytes());
    }
    let order = ["m", "new\nline", "z", "./a b"];
    let want = ok("operands", &run(fastsum().current_dir(dir).args(order)));
    let list: Vec<u8> = order
        .iter()
        .flat_map(|n| [n.as_bytes(), b"\0"].concat())
        .collect();
    std::fs::write(dir.join("LIST"), &list).unwrap();
    let o = run(fastsum().current_dir(dir).args(["--files0-from", "LIST"]));
    assert_output("--files0-from LIST", &o, &want, "", 0);
    let o = run_with_stdin(
        fastsum().current_dir(dir).args(["--files0-from", "-"]),
        &list,
    );
    assert_output("--files0-from -", &o, &want, "", 0);
    // one a line: the name with a newline cannot be listed so
    let lines = b"m\nz\n./a b\n";
    let want = ok(
        "operands",
        &run(fastsum().current_dir(dir).args(["m", "z", "./a b"])),
    );
    let o = run_with_stdin(fastsum().current_dir(dir).args(["--files-from=-"]), lines);
    assert_output("--files-from -", &o, &want, "", 0);
}

#[test]
fn a_list_names_directories_that_r_walks() {
    let tmp = tempdir();
    random_tree(tmp.path(), 11);
    write_file(tmp.path(), "top", b"top");
    let dir = tmp.path();
    let want = ok(
        "operands",
        &run(fastsum().current_dir(dir).args(["-r", "top", "t"])),
    );
    let o = run_with_stdin(
        fastsum().current_dir(dir).args(["-r", "--files0-from=-"]),
        b"top\0t\0",
    );
    assert_output("-r --files0-from", &o, &want, "", 0);
    // and shares of a list merge into the list's run
    std::fs::write(dir.join("LIST"), b"top\0t\0").unwrap();
    let names = parts(dir, &["-r", "--files0-from", "LIST"], &[], 3);
    assert_output("merged", &merge(dir, &names), &want, "", 0);
}

#[test]
fn a_list_refuses_operands_and_reports_empty_names_as_gnu_does() {
    let tmp = tempdir();
    let dir = tmp.path();
    write_file(dir, "a", b"a");
    let o = run(fastsum()
        .current_dir(dir)
        .args(["--files0-from", "LIST", "a"]));
    assert_output(
        "an operand",
        &o,
        "",
        "fastsum: extra operand 'a'\nfile operands cannot be combined with --files0-from\n\
         Try 'fastsum --help' for more information.\n",
        2,
    );
    std::fs::write(dir.join("LIST"), b"a\0\0a\0").unwrap();
    let line = "0cc175b9c0f1b6a831c399e269772661  a\n";
    let o = run(fastsum()
        .current_dir(dir)
        .args(["-a", "md5", "--files0-from", "LIST"]));
    let want = format!("{line}{line}");
    assert_output(
        "an empty name",
        &o,
        want,
        "fastsum: 'LIST:2': invalid zero-length file name\n",
        1,
    );
    let o = run_with_stdin(
        fastsum()
            .current_dir(dir)
            .args(["-a", "md5", "--files0-from", "-"]),
        b"a\0-\0",
    );
    assert_output(
        "- from stdin",
        &o,
        line,
        "fastsum: '-:2': when reading file names from stdin, no file name of '-' allowed\n",
        1,
    );
    let o = run(fastsum()
        .current_dir(dir)
        .args(["--files0-from", "nothere"]));
    assert_output(
        "no list",
        &o,
        "",
        "fastsum: cannot open nothere for reading: No such file or directory\n",
        1,
    );
}

#[test]
fn output_appears_only_complete_and_a_rerun_merges_the_same() {
    let tmp = tempdir();
    random_tree(tmp.path(), 5);
    let dir = tmp.path();
    let opts = ["-r", "-a", "md5,sha256", "--tag"];
    let single = ok(
        "single",
        &run(fastsum().current_dir(dir).args(opts).arg("t")),
    );
    let shard = |k: u32| {
        run(fastsum()
            .current_dir(dir)
            .args(opts)
            .args([
                "--shard".into(),
                format!("{k}/3"),
                "--output".into(),
                format!("p{k}"),
            ])
            .arg("t"))
    };
    for k in 0..3 {
        assert_output("shard", &shard(k), "", "", 0);
    }
    let names: Vec<String> = ["p2", "p0", "p1"].map(String::from).to_vec();
    let first = ok("merge", &merge(dir, &names));
    assert!(first == single, "merged differs from one run");
    // rerun one shard, merge again: the same bytes
    std::fs::remove_file(dir.join("p1")).unwrap();
    assert_output("rerun", &shard(1), "", "", 0);
    assert!(ok("merge", &merge(dir, &names)) == single);
    let o = run(fastsum()
        .current_dir(dir)
        .args(["--merge", "--output", "SUMS", "p0", "p1", "p2"]));
    assert_output("merge --output", &o, "", "", 0);
    assert_eq!(std::fs::read(dir.join("SUMS")).unwrap(), single);
    // an input that fails: FILE left as it was, nothing beside it
    std::fs::write(dir.join("LIST"), b"t\0gone\0").unwrap();
    let o = run(fastsum().current_dir(dir).args([
        "-r",
        "--files0-from",
        "LIST",
        "--shard",
        "0/1",
        "--output",
        "p0",
    ]));
    assert_eq!(o.status.code(), Some(1), "{}", shown(&o));
    let left: Vec<OsString> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert!(
        left.iter().all(|n| !n.as_bytes().starts_with(b".fastsum-")),
        "{left:?}"
    );
    assert!(
        ok("merge", &merge(dir, &names)) == single,
        "p0 was replaced"
    );
}

/// A throwaway sshd on 127.0.0.1 (its own host key, one user key), killed
/// when dropped.
struct Sshd {
    child: std::process::Child,
}

impl Drop for Sshd {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Start sshd in `dir` and write `dir/ssh_config`, whose host
/// `fastsum-ssh` logs in as this user with the throwaway key. `None` (a
/// skip) when it cannot start on a developer's machine; under CI that
/// fails the test.
fn start_sshd(dir: &Path) -> Option<Sshd> {
    let sshd = ["/usr/sbin/sshd", "/usr/bin/sshd"]
        .into_iter()
        .find(|p| Path::new(p).exists());
    let why = match sshd {
        None => "sshd is not installed (openssh-server)".to_string(),
        Some(sshd) => match try_sshd(dir, sshd) {
            Ok(started) => return Some(started),
            Err(why) => why,
        },
    };
    assert!(std::env::var_os("CI").is_none(), "{why}: required under CI");
    crate::util::skip(&why);
    None
}

fn try_sshd(dir: &Path, sshd: &str) -> Result<Sshd, String> {
    for key in ["hostkey", "id"] {
        let o = run(std::process::Command::new("ssh-keygen")
            .args(["-q", "-t", "ed25519", "-N", "", "-f"])
            .arg(dir.join(key)));
        if !o.status.success() {
            return Err(format!("ssh-keygen failed: {}", shown(&o)));
        }
    }
    std::fs::copy(dir.join("id.pub"), dir.join("authorized_keys")).unwrap();
    // sshd run by root needs its privilege separation directory
    // SAFETY: geteuid(2) has no preconditions
    if unsafe { libc::geteuid() } == 0 {
        let _ = std::fs::create_dir_all("/run/sshd");
    }
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map_err(|e| e.to_string())?
        .port();
    let d = dir.display();
    let config = format!(
        "Port {port}\nListenAddress 127.0.0.1\nHostKey {d}/hostkey\n\
         AuthorizedKeysFile {d}/authorized_keys\nPasswordAuthentication no\n\
         KbdInteractiveAuthentication no\nUsePAM no\nStrictModes no\n\
         PermitRootLogin prohibit-password\nPidFile {d}/sshd.pid\n"
    );
    std::fs::write(dir.join("sshd_config"), config).unwrap();
    let user = String::from_utf8(run(std::process::Command::new("id").arg("-un")).stdout).unwrap();
    let client = format!(
        "Host fastsum-ssh\n  HostName 127.0.0.1\n  Port {port}\n  User {}\n  IdentityFile {d}/id\n  \
         IdentitiesOnly yes\n  UserKnownHostsFile /dev/null\n  StrictHostKeyChecking no\n  \
         BatchMode yes\n  ConnectTimeout 10\n  LogLevel ERROR\n",
        user.trim()
    );
    std::fs::write(dir.join("ssh_config"), client).unwrap();
    let log = std::fs::File::create(dir.join("sshd.log")).unwrap();
    let child = std::process::Command::new(sshd)
        .args(["-D", "-e", "-f"])
        .arg(dir.join("sshd_config"))
        .stdin(std::process::Stdio::null())
        .stdout(log.try_clone().unwrap())
        .stderr(log)
        .spawn()
        .map_err(|e| format!("{sshd}: {e}"))?;
    let started = Sshd { child };
    for _ in 0..100 {
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return Ok(started);
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let log = std::fs::read_to_string(dir.join("sshd.log")).unwrap_or_default();
    Err(format!("sshd did not listen within 10 s: {log}"))
}

/// GNU parallel over a real ssh: two "hosts" (127.0.0.1 through sshd, and
/// `:`, this one), one shard a job, each written with --output; the merge
/// is one run's output, byte for byte.
#[test]
fn shards_under_gnu_parallel_over_ssh_merge_into_one_run() {
    if !require_tool("parallel") || !require_tool("ssh") || !require_tool("ssh-keygen") {
        return;
    }
    let tmp = tempdir();
    let dir = tmp.path();
    let Some(_sshd) = start_sshd(dir) else {
        return;
    };
    random_tree(dir, 21);
    let script = r#"
set -eu
cd t
parallel --will-cite --ssh "ssh -F ../ssh_config" -S 1/fastsum-ssh,1/: --wd "$PWD" \
  --joblog ../joblog "$FASTSUM" -r -a md5,sha256 --tag --shard {}/4 --output ../part.{} . \
  ::: 0 1 2 3
"$FASTSUM" -r -a md5,sha256 --tag . > ../ONE
cd ..
"$FASTSUM" --merge --output SUMS part.3 part.1 part.0 part.2
cmp ONE SUMS && echo same
"#;
    let o = crate::util::shell(dir, 120, script);
    assert_output("parallel over ssh", &o, "same\n", "", 0);
    let joblog = std::fs::read_to_string(dir.join("joblog")).unwrap();
    let hosts: Vec<&str> = joblog
        .lines()
        .skip(1)
        .map(|l| l.split('\t').nth(1).unwrap())
        .collect();
    assert!(
        hosts.contains(&"fastsum-ssh") && hosts.contains(&":"),
        "{joblog}"
    );
}

/// Is a Slurm cluster answering (`.ci/slurm` starts one)? On a developer's
/// machine without one: a skip; under CI, a failure.
fn slurm_answers() -> bool {
    let up = std::process::Command::new("timeout")
        .args(["10", "sinfo", "-h", "-o", "%t"])
        .output()
        .is_ok_and(|o| o.status.success() && !o.stdout.is_empty());
    if !up {
        let why = "no Slurm cluster answers sinfo (.ci/slurm starts one)";
        assert!(std::env::var_os("CI").is_none(), "{why}: required under CI");
        crate::util::skip(why);
    }
    up
}

/// Slurm: a job array (`sbatch --array=0-3 --wait`), one shard a task, each
/// written with --output; one task is killed on its first try, so the
/// array fails, the merge refuses the parts, and a rerun of that one task
/// (`--array=2`) completes them: the merge is one run's output.
#[test]
fn shards_as_a_slurm_job_array_and_a_rerun_of_a_killed_task() {
    if !slurm_answers() {
        return;
    }
    let tmp = tempdir();
    let dir = tmp.path();
    random_tree(dir, 31);
    // N written out: a rerun of one task counts SLURM_ARRAY_TASK_COUNT=1
    let job = r#"#!/bin/sh
cd t || exit 1
if [ "$SLURM_ARRAY_TASK_ID" = 2 ] && mkdir ../killed-once 2>/dev/null; then
  kill -KILL $$
fi
exec "$FASTSUM" -r -a md5,sha256 -z --shard "$SLURM_ARRAY_TASK_ID/4" --output "../part.$SLURM_ARRAY_TASK_ID" .
"#;
    std::fs::write(dir.join("job.sh"), job).unwrap();
    let script = r#"
set -u
(cd t && "$FASTSUM" -r -a md5,sha256 -z .) > ONE
sbatch --quiet --array=0-3 --wait -o slurm-%a.out job.sh; echo "array $?"
"$FASTSUM" --merge part.0 part.1 part.3 > /dev/null 2>&1; echo "merge $?"
sbatch --quiet --array=2 --wait -o slurm-%a.out job.sh; echo "rerun $?"
"$FASTSUM" --merge --output SUMS part.3 part.2 part.1 part.0 && cmp ONE SUMS && echo same
"#;
    let o = crate::util::shell(dir, 180, script);
    assert_output("slurm", &o, "array 1\nmerge 1\nrerun 0\nsame\n", "", 0);
}

#[test]
fn a_list_a_shard_or_an_output_is_no_update_or_tree_digest() {
    let tmp = tempdir();
    let cases: [(&[&str], &str); 4] = [
        (
            &["--files0-from", "L", "--update", "S"],
            "--files0-from cannot be combined with --update",
        ),
        (
            &["-r", "--tree-digest", "--shard", "0/2", "d"],
            "--shard cannot be combined with --tree-digest",
        ),
        (
            &["--output", "O", "--update", "S", "f"],
            "--output cannot be combined with --update",
        ),
        (
            &["-c", "--shard", "0/2", "S"],
            "the --shard option is meaningless when verifying checksums",
        ),
    ];
    for (args, said) in cases {
        let o = run(fastsum().current_dir(tmp.path()).args(args));
        let want = format!("fastsum: {said}\nTry 'fastsum --help' for more information.\n");
        assert_output(&format!("{args:?}"), &o, "", &want, 2);
    }
}

/// docs/GUIDE.md's GPFS recipe, from the list file on: a policy's
/// `INODE GEN SNAPID -- PATH` lines made names by its sed, then hashed in
/// shares and merged (mmapplypolicy itself does not run here).
#[test]
fn the_gpfs_list_recipe_from_its_list_file_on() {
    let tmp = tempdir();
    let dir = tmp.path();
    for (i, name) in ["a b", "c", "d -- e"].iter().enumerate() {
        write_file(dir, name, &vec![b'x'; 1000 * (i + 1)]);
    }
    let list = "1234 5 0 -- a b\n99 1 0 -- d -- e\n7 2 0 -- c\n";
    std::fs::write(dir.join("fs.list.all"), list).unwrap();
    let script = r#"
set -eu
sed 's/^[^ ]* [^ ]* [^ ]* -- //' fs.list.all > names
for k in 0 1; do "$FASTSUM" -a sha256 --files-from names --shard $k/2 --output part.$k; done
"$FASTSUM" --merge part.1 part.0
"#;
    let o = crate::util::shell(dir, 60, script);
    let want = ok(
        "operands",
        &run(fastsum()
            .current_dir(dir)
            .args(["-a", "sha256", "a b", "d -- e", "c"])),
    );
    assert_output("gpfs recipe", &o, want, "", 0);
}

/// An input that fails in a --json shard writes its error as a line, as
/// many lines as a digest: the merge still refuses that part.
#[test]
fn merge_refuses_a_json_part_with_a_failed_input() {
    let tmp = tempdir();
    let dir = tmp.path();
    write_file(dir, "a", b"a");
    std::fs::write(dir.join("LIST"), b"a\0gone\0").unwrap();
    let o =
        run(fastsum()
            .current_dir(dir)
            .args(["--json", "--files0-from", "LIST", "--shard", "0/1"]));
    assert_eq!(o.status.code(), Some(1), "{}", shown(&o));
    std::fs::write(dir.join("part.0"), &o.stdout).unwrap();
    let o = merge(dir, &["part.0".to_string()]);
    let said = "fastsum: part.0: an input of it failed (its error is among its lines)\n";
    assert_output("merge", &o, "", said, 1);
}

/// `--output` never replaces what is not a regular file: a device (renamed
/// over as root, `/dev/null` became a regular file), a FIFO, a directory or
/// a link to nothing is refused, exit 1, and left as it was; a symbolic
/// link to a regular file is kept, and the file it names is written.
#[test]
fn output_is_never_written_over_what_is_no_regular_file() {
    let tmp = tempdir();
    let dir = tmp.path();
    std::fs::write(dir.join("a"), b"a\n").unwrap();
    let fifo = run(std::process::Command::new("mkfifo").arg(dir.join("fifo")));
    assert!(fifo.status.success(), "{}", shown(&fifo));
    let null = dir.join("null");
    let made = run(std::process::Command::new("mknod").args([
        null.as_os_str(),
        "c".as_ref(),
        "1".as_ref(),
        "3".as_ref(),
    ]));
    std::fs::create_dir(dir.join("d")).unwrap();
    std::fs::write(dir.join("real"), b"old\n").unwrap();
    std::os::unix::fs::symlink("real", dir.join("link")).unwrap();
    std::os::unix::fs::symlink("nowhere", dir.join("dangling")).unwrap();
    let line = ok("plain", &run(fastsum().current_dir(dir).arg("a")));
    let mut refused = vec![
        ("fifo", "not a regular file (a FIFO)"),
        ("d", "not a regular file (a directory)"),
        ("dangling", "a symbolic link to a file that does not exist"),
    ];
    // (a device can be made only as root)
    if made.status.success() {
        refused.push(("null", "not a regular file (a character device)"));
    }
    for (target, why) in refused {
        let o = run(fastsum().current_dir(dir).args(["--output", target, "a"]));
        assert_output(
            target,
            &o,
            "",
            &format!("fastsum: {target}: {why}: not written\n"),
            1,
        );
    }
    let kinds = |p: &str| std::fs::symlink_metadata(dir.join(p)).unwrap().file_type();
    assert!(kinds("fifo").is_fifo() && kinds("d").is_dir() && kinds("dangling").is_symlink());
    if made.status.success() {
        assert!(kinds("null").is_char_device());
    }
    let o = run(fastsum().current_dir(dir).args(["--output", "link", "a"]));
    assert_output("link", &o, "", "", 0);
    assert!(kinds("link").is_symlink());
    assert_eq!(std::fs::read(dir.join("real")).unwrap(), line);
}

/// `find t -type f -printf '%s %p\0'` of the tree under `dir` (its
/// order), and the plain list of the same names.
fn sized_list(dir: &Path) -> (Vec<u8>, Vec<u8>) {
    let o = run(std::process::Command::new("find")
        .current_dir(dir)
        .args(["t", "-type", "f", "-printf", "%s %p\\0"]));
    let sized = ok("find", &o);
    let plain = sized
        .split(|&b| b == 0)
        .filter(|r| !r.is_empty())
        .flat_map(|r| [&r[r.iter().position(|&b| b == b' ').unwrap() + 1..], b"\0"].concat())
        .collect();
    (sized, plain)
}

#[test]
fn shards_of_a_sized_list_merge_into_the_list_s_run() {
    let tmp = tempdir();
    let dir = tmp.path();
    random_tree(dir, 5);
    let (sized, plain) = sized_list(dir);
    std::fs::write(dir.join("SIZED"), &sized).unwrap();
    std::fs::write(dir.join("PLAIN"), &plain).unwrap();
    for style in [&["-a", "md5,sha256", "--tag"][..], &["--json"], &["-z"]] {
        let want = ok(
            "the plain list's run",
            &run(fastsum()
                .current_dir(dir)
                .args(style)
                .arg("--files0-from=PLAIN")),
        );
        let one = run(fastsum()
            .current_dir(dir)
            .args(style)
            .args(["--files0-from=SIZED", "--list-sizes"]));
        assert_output("the sized list's run", &one, &want, "", 0);
        for n in [1, 3, 64] {
            let opts = [style, &["--files0-from=SIZED", "--list-sizes"]].concat();
            let names = parts(dir, &opts, &[], n);
            assert_output("merged", &merge(dir, &names), &want, "", 0);
        }
    }
}

#[test]
fn a_sized_list_s_shard_takes_its_sizes_and_looks_at_no_other_file() {
    let tmp = tempdir();
    let dir = tmp.path();
    write_file(dir, "a", b"a");
    write_file(dir, "b", b"bb");
    // "gone" does not exist: the biggest by the list, it is share 0's
    // alone; share 1 never looks at it, nor at the sizes on disk
    std::fs::write(dir.join("L"), "1000000 gone\n7 a\n5 b\n").unwrap();
    let o = run(fastsum()
        .current_dir(dir)
        .args(["--files-from=L", "--list-sizes", "--shard=1/2"]));
    let out = ok("shard 1/2", &o);
    let text = String::from_utf8(out).unwrap();
    assert!(
        text.starts_with("# fastsum shard 1/2 inputs=2/3 bytes=12 "),
        "{text}"
    );
    assert!(
        text.contains("  a\n") && text.ends_with("  b\n") && !text.contains("gone"),
        "{text}"
    );
    let o = run(fastsum()
        .current_dir(dir)
        .args(["--files-from=L", "--list-sizes", "--shard=0/2"]));
    assert_eq!(o.status.code(), Some(1), "{}", shown(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains(" bytes=1000000 "));
    // a record without its size is reported in its place
    std::fs::write(dir.join("L"), "a\n5 b\n").unwrap();
    let o = run(fastsum()
        .current_dir(dir)
        .args(["--files-from=L", "--list-sizes"]));
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("L:1") && err.contains("no size before the name"),
        "{err}"
    );
    // it reads a list, and walks nothing
    for args in [
        &["--list-sizes", "a"][..],
        &["-r", "--files-from=L", "--list-sizes"],
    ] {
        let o = run(fastsum().current_dir(dir).args(args));
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", shown(&o));
    }
}

#[test]
fn shares_of_a_skewed_list_are_within_a_tenth_of_the_mean_or_the_biggest_file() {
    let tmp = tempdir();
    let dir = tmp.path();
    // sizes only: the files do not exist (each shard's run fails on its
    // own; its header is all that is read here)
    let mut rng = Rng::new(44);
    let mut list = String::new();
    let mut sizes = Vec::new();
    for i in 0..5000 {
        let size = match rng.next_u64() % 1000 {
            0 => rng.next_u64() % (1 << 30),
            _ => rng.next_u64() % (1 << 14),
        };
        sizes.push(size);
        list.push_str(&format!("{size} f{i}\n"));
    }
    std::fs::write(dir.join("L"), list).unwrap();
    let total: u64 = sizes.iter().sum();
    let biggest = *sizes.iter().max().unwrap();
    for n in [3u32, 64] {
        let mean = total / u64::from(n);
        let bound = (mean + mean / 10 + 5000 / u64::from(n)).max(biggest);
        for k in 0..n {
            let o = run(fastsum()
                .current_dir(dir)
                .args(["--files-from=L", "--list-sizes"])
                .arg(format!("--shard={k}/{n}")));
            let head = String::from_utf8_lossy(&o.stdout).into_owned();
            let bytes: u64 = head
                .split(' ')
                .find_map(|w| w.strip_prefix("bytes="))
                .unwrap()
                .parse()
                .unwrap();
            assert!(bytes <= bound, "{k}/{n}: {bytes} > {bound}");
        }
    }
}

#[test]
fn shards_with_meta_merge_into_one_run_with_its_meta_lines() {
    let tmp = tempdir();
    let dir = tmp.path();
    random_tree(dir, 7);
    for style in [&["-a", "md5,sha256"][..], &["--json"]] {
        let opts = [&["-r", "--meta"], style].concat();
        let want = ok(
            "one run",
            &run(fastsum().current_dir(dir).args(&opts).arg("t")),
        );
        for n in [2, 5] {
            let names = parts(dir, &opts, &["t"], n);
            assert_output("merged", &merge(dir, &names), &want, "", 0);
        }
    }
}
