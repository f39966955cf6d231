//! `--meta`: a `#meta size=… mtime=…ns` comment line before each file's
//! line, which GNU's `-c --strict` skips; `--update` of such a manifest
//! keeps a file whose size and mtime are as recorded without opening it,
//! and hashes a changed one again, its line replaced in place.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::util::{
    fastsum, fastsum_path, gnu, os, require_strace, require_tool, run, shown, tempdir, write_file,
};

/// An mtime well in the past (not "racy"): 2020 plus `secs` and some
/// nanoseconds.
fn past(secs: u64) -> SystemTime {
    UNIX_EPOCH + Duration::new(1_577_836_800 + secs, 123_456_789)
}

/// Write `data` to `dir/name` and give it the mtime `when`.
fn put(dir: &Path, name: &[u8], data: &[u8], when: SystemTime) {
    let p = write_file(dir, os(name), data);
    let f = std::fs::File::options().write(true).open(&p).unwrap();
    f.set_modified(when).unwrap();
}

/// The `#meta` line fastsum should write for `data` modified `when`.
fn meta_line(data: &[u8], when: SystemTime) -> String {
    let ns = when.duration_since(UNIX_EPOCH).unwrap().as_nanos();
    format!("#meta size={} mtime={ns}ns", data.len())
}

/// A tree `d` of files with old mtimes (one with a newline in its name),
/// and SUMS made of it with `--meta`.
fn fixture() -> tempfile::TempDir {
    let dir = tempdir();
    let d = dir.path();
    std::fs::create_dir_all(d.join("d")).unwrap();
    for (i, name) in [&b"keep1"[..], b"keep2", b"edit", b"gone", b"new\nline"]
        .iter()
        .enumerate()
    {
        let mut path = b"d/".to_vec();
        path.extend_from_slice(name);
        put(d, &path, name, past(i as u64));
    }
    let o = run(fastsum()
        .current_dir(d)
        .args(["--meta", "--untagged", "-a", "sha256", "-r", "d"]));
    assert!(o.status.success(), "{}", shown(&o));
    std::fs::write(d.join("SUMS"), &o.stdout).unwrap();
    dir
}

#[test]
fn each_line_has_its_meta_line_and_gnu_strict_skips_them() {
    let dir = fixture();
    let d = dir.path();
    let sums = std::fs::read(d.join("SUMS")).unwrap();
    let text = String::from_utf8_lossy(&sums);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 10, "{text}");
    for pair in lines.chunks(2) {
        // the meta line before each checksum line, its file's
        let name = pair[1].split_once("  ").unwrap().1.replace("\\n", "\n");
        let data = name.strip_prefix("d/").unwrap().as_bytes();
        let i = [&b"keep1"[..], b"keep2", b"edit", b"gone", b"new\nline"]
            .iter()
            .position(|n| *n == data)
            .unwrap();
        assert_eq!(pair[0], meta_line(data, past(i as u64)), "{text}");
    }
    // fastsum -c reads it; so does GNU's, even --strict (9.1 skips `#`)
    let o = run(fastsum()
        .current_dir(d)
        .args(["-a", "sha256", "-c", "--strict", "SUMS"]));
    assert!(o.status.success(), "{}", shown(&o));
    if require_tool("sha256sum") {
        let o = run(gnu("sha256sum")
            .current_dir(d)
            .args(["-c", "--strict", "SUMS"]));
        assert!(o.status.success() && o.stderr.is_empty(), "{}", shown(&o));
        assert_eq!(
            o.stdout
                .split(|&b| b == b'\n')
                .filter(|l| l.ends_with(b": OK"))
                .count(),
            5
        );
    }
}

/// The files a traced run opened (open, openat), as the trace shows them.
fn opened(trace: &Path) -> String {
    std::fs::read_to_string(trace).unwrap()
}

#[test]
fn update_opens_only_what_changed_and_replaces_its_line_in_place() {
    if !require_strace() {
        return;
    }
    let dir = fixture();
    let d = dir.path();
    let before = String::from_utf8(std::fs::read(d.join("SUMS")).unwrap()).unwrap();
    put(d, b"d/edit", b"edited", past(100));
    std::fs::remove_file(d.join("d/gone")).unwrap();
    put(d, b"d/added", b"added", past(200));
    let trace = d.join("trace");
    let o = run(Command::new("strace")
        .args(["-f", "-qq", "-e", "trace=open,openat", "-o"])
        .arg(&trace)
        .arg(fastsum_path())
        .env("LC_ALL", "C.UTF-8")
        .current_dir(d)
        .args(["-a", "sha256", "-r", "d", "--update", "SUMS", "--prune"]));
    assert!(o.status.success(), "{}", shown(&o));
    assert_eq!(
        String::from_utf8_lossy(&o.stderr),
        "fastsum: SUMS: 1 added, 1 modified, 1 pruned, 3 kept\n"
    );
    let opened = opened(&trace);
    for unread in ["keep1", "keep2", "new\\nline"] {
        assert!(!opened.contains(unread), "{unread} opened:\n{opened}");
    }
    for read in ["edit", "added"] {
        assert!(opened.contains(read), "{read} not opened:\n{opened}");
    }
    // the edited file's lines in place of its old ones, the new at the end
    let after = String::from_utf8(std::fs::read(d.join("SUMS")).unwrap()).unwrap();
    let old: Vec<&str> = before.lines().collect();
    let new: Vec<&str> = after.lines().collect();
    let at = old.iter().position(|l| l.ends_with("  d/edit")).unwrap();
    assert_eq!(new[at - 1], meta_line(b"edited", past(100)), "{after}");
    assert!(
        new[at].ends_with("  d/edit") && new[at] != old[at],
        "{after}"
    );
    assert_eq!(
        new[new.len() - 2],
        meta_line(b"added", past(200)),
        "{after}"
    );
    assert!(!after.contains("d/gone"), "{after}");
    assert_eq!(new.len(), 10, "{after}");
    if require_tool("sha256sum") {
        let o = run(gnu("sha256sum")
            .current_dir(d)
            .args(["-c", "--strict", "SUMS"]));
        assert!(o.status.success(), "{}", shown(&o));
    }
    // and nothing changed: nothing read, SUMS left alone
    let o = run(fastsum()
        .current_dir(d)
        .args(["-a", "sha256", "-r", "d", "--update", "SUMS", "--stats"]));
    assert!(o.status.success(), "{}", shown(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("SUMS: 0 added, 0 modified, 0 pruned, 5 kept"),
        "{err}"
    );
    assert_eq!(std::fs::read_to_string(d.join("SUMS")).unwrap(), after);
}

/// An update that finds nothing changed looks at each listed file once,
/// by its name in its directory (as find does: the walk's directory open,
/// not the whole path walked again for each file), and opens none.
#[cfg(target_os = "linux")]
#[test]
fn an_unchanged_file_is_looked_at_once_by_its_name_in_its_directory() {
    if !require_strace() {
        return;
    }
    let dir = tempdir();
    let d = dir.path();
    let mut names = Vec::new();
    for sub in ["a", "b/c"] {
        std::fs::create_dir_all(d.join("t").join(sub)).unwrap();
        for i in 0..20 {
            let name = format!("t/{sub}/f{i:02}");
            put(d, name.as_bytes(), name.as_bytes(), past(i));
            names.push(name);
        }
    }
    let o = run(fastsum().current_dir(d).args(["--meta", "-r", "t"]));
    std::fs::write(d.join("SUMS"), &o.stdout).unwrap();
    let trace = d.join("trace");
    let o = run(Command::new("strace")
        .args(["-f", "-qq", "-e", "trace=%%stat,open,openat", "-o"])
        .arg(&trace)
        .arg(fastsum_path())
        .current_dir(d)
        .args(["-r", "t", "--update", "SUMS", "--stats"]));
    assert!(o.status.success(), "{}", shown(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("SUMS: 0 added, 0 modified, 0 pruned, 40 kept"),
        "{err}"
    );
    let calls = std::fs::read_to_string(&trace).unwrap();
    for name in &names {
        let base = name.rsplit('/').next().unwrap();
        let looks: Vec<&str> = calls
            .lines()
            .filter(|l| l.contains(&format!("\"{base}\"")) || l.contains(&format!("/{base}\"")))
            .collect();
        assert_eq!(
            looks.len(),
            2,
            "{name}: one look in each directory:\n{}",
            looks.join("\n")
        );
        for look in looks {
            assert!(!look.contains("open"), "{name} opened: {look}");
            assert!(
                look.contains(&format!("\"{base}\"")),
                "{name} by its path: {look}"
            );
        }
    }
}

#[test]
fn a_size_or_an_mtime_alone_is_a_change() {
    let dir = fixture();
    let d = dir.path();
    // same size, other mtime; other size, the mtime restored
    put(d, b"d/keep1", b"KEEP1", past(50));
    put(d, b"d/keep2", b"keep2 grown", past(1));
    let o = run(fastsum()
        .current_dir(d)
        .args(["-a", "sha256", "-r", "d", "--update", "SUMS"]));
    assert!(o.status.success(), "{}", shown(&o));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("0 added, 2 modified, 0 pruned, 3 kept"),
        "{}",
        shown(&o)
    );
    let o = run(fastsum()
        .current_dir(d)
        .args(["-a", "sha256", "-c", "SUMS"]));
    assert!(o.status.success(), "{}", shown(&o));
}

#[test]
fn a_line_without_meta_is_not_hashed_again_nor_a_recent_mtime_vouched_for() {
    let dir = tempdir();
    let d = dir.path();
    std::fs::create_dir_all(d.join("d")).unwrap();
    put(d, b"d/old", b"old", past(0));
    // written just now: its mtime cannot vouch for its bytes yet
    write_file(d, "d/recent", b"recent");
    let o = run(fastsum()
        .current_dir(d)
        .args(["--meta", "-a", "md5", "-r", "d"]));
    let text = String::from_utf8(o.stdout).unwrap();
    assert!(text.contains("#meta size=6\n"), "{text}");
    // a line with no `#meta` line (its file changed since: rot or edit,
    // nothing tells) is kept as it is, not laundered by a new digest
    let listed = format!("{}  d/plain\n", "0".repeat(32));
    write_file(d, "d/plain", b"changed");
    std::fs::write(d.join("SUMS"), format!("{text}{listed}")).unwrap();
    let o = run(fastsum()
        .current_dir(d)
        .args(["-r", "d", "--update", "SUMS"]));
    assert!(o.status.success(), "{}", shown(&o));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("0 added, 0 modified, 0 pruned, 3 kept"),
        "{}",
        shown(&o)
    );
    let after = std::fs::read_to_string(d.join("SUMS")).unwrap();
    assert!(after.ends_with(&listed), "{after}");
}

#[test]
fn json_carries_the_mtime_when_it_vouches_for_the_bytes() {
    let dir = tempdir();
    let d = dir.path();
    put(d, b"old", b"old", past(7));
    write_file(d, "recent", b"recent");
    let o = run(fastsum()
        .current_dir(d)
        .args(["--meta", "--json", "-a", "md5", "old", "recent"]));
    assert!(o.status.success(), "{}", shown(&o));
    let text = String::from_utf8(o.stdout).unwrap();
    let ns = past(7).duration_since(UNIX_EPOCH).unwrap().as_nanos();
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[0].starts_with(r#"{"path":"old","#)
            && lines[0].ends_with(&format!(r#""size":3,"mtime_ns":{ns}}}"#)),
        "{text}"
    );
    assert!(lines[1].ends_with(r#""size":6}"#), "{text}");
}

#[test]
fn meta_is_refused_where_no_comment_line_can_go() {
    for args in [
        &["--meta", "-z", "f"][..],
        &["--meta", "-c", "f"],
        &["--meta", "-r", "--tree-digest", "."],
    ] {
        let o = run(fastsum().args(args));
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", shown(&o));
        assert!(o.stdout.is_empty());
    }
}

/// A small seeded generator (xorshift64*), for the corpora below.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// What a seeded run does to one file of the corpus, and the verdict the
/// audit must give it.
const FAULTS: [(&str, &str); 8] = [
    ("keep", "OK"),
    // an edit: new bytes, a new mtime
    ("edit", "MODIFIED"),
    // a byte flipped, the mtime set back (as `touch -d` does): rot
    ("flip", "DAMAGED"),
    // cut short, a new mtime
    ("truncate", "MODIFIED"),
    // replaced by a file of the same size, its mtime set back: nothing
    // tells this from rot
    ("replace", "DAMAGED"),
    ("delete", "MISSING"),
    ("rename", "MOVED"),
    // touched only: the bytes are as listed
    ("touch", "OK"),
];

/// One seeded corpus: files with old mtimes, a `--meta` manifest, the
/// faults applied, a new file added; the audit's verdict of each file
/// must be the fault's, its summary count each, and it exits 0 only when
/// nothing changed.
fn audit_one_seed(seed: u64) {
    let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    let dir = tempdir();
    let d = dir.path();
    std::fs::create_dir_all(d.join("t/sub")).unwrap();
    let files = 3 + rng.below(8) as usize;
    let mut data = Vec::new();
    for i in 0..files {
        let len = 1 + rng.below(300) as usize;
        let bytes: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
        let name = format!("t/sub/f{i}");
        put(d, name.as_bytes(), &bytes, past(i as u64));
        data.push((name, bytes));
    }
    let o = run(fastsum()
        .current_dir(d)
        .args(["--meta", "-a", "sha256", "--tag", "-r", "t"]));
    std::fs::write(d.join("SUMS"), &o.stdout).unwrap();
    let mut want: Vec<String> = Vec::new();
    let mut clean = true;
    for (i, (name, bytes)) in data.iter().enumerate() {
        let (fault, verdict) = FAULTS[rng.below(FAULTS.len() as u64) as usize];
        clean &= verdict == "OK";
        let was = past(i as u64);
        match fault {
            "edit" => put(
                d,
                name.as_bytes(),
                &[bytes.as_slice(), b"+"].concat(),
                past(999),
            ),
            "flip" | "replace" => {
                let mut b = bytes.clone();
                let at = rng.below(b.len() as u64) as usize;
                b[at] ^= if fault == "flip" {
                    1 << rng.below(8)
                } else {
                    0xff
                };
                put(d, name.as_bytes(), &b, was);
            }
            "truncate" => put(d, name.as_bytes(), &bytes[..bytes.len() - 1], past(999)),
            "delete" => std::fs::remove_file(d.join(name)).unwrap(),
            "rename" => std::fs::rename(d.join(name), d.join(format!("{name}.moved"))).unwrap(),
            "touch" => put(d, name.as_bytes(), bytes, past(999)),
            _ => {}
        }
        want.push(match fault {
            "rename" => format!("{name}.moved: MOVED from {name}"),
            _ => format!("{name}: {verdict}"),
        });
    }
    if rng.below(4) == 0 {
        // the directory moved: every file still there is elsewhere
        std::fs::rename(d.join("t/sub"), d.join("t/moved")).unwrap();
        clean = false;
        want = want.iter().flat_map(|w| moved_dir(w)).collect();
    }
    if rng.below(2) == 0 {
        put(d, b"t/added", b"new", past(5));
        want.push("t/added: NEW".into());
        clean = false;
    }
    let o = run(fastsum()
        .current_dir(d)
        .args(["-c", "SUMS", "--audit", "t"]));
    let mut got: Vec<String> = String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(str::to_owned)
        .collect();
    got.sort();
    want.sort();
    assert_eq!(got, want, "seed {seed}: {}", shown(&o));
    assert_eq!(o.status.success(), clean, "seed {seed}: {}", shown(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    for word in ["OK", "DAMAGED", "MODIFIED", "MISSING", "NEW", "MOVED"] {
        let n = want
            .iter()
            .filter(|w| w.contains(&format!(": {word}")))
            .count();
        assert!(
            err.contains(&format!("{n} {word}")),
            "seed {seed}, {word}: {err}"
        );
    }
    let damaged = want.iter().filter(|w| w.ends_with(": DAMAGED")).count();
    assert_eq!(
        err.matches("DAMAGED: its bytes changed").count(),
        damaged,
        "{err}"
    );
}

/// What the audit says of a file whose verdict was `line` once its
/// directory `t/sub` moved to `t/moved`: its bytes as listed, MOVED; else
/// NEW there and MISSING here.
fn moved_dir(line: &str) -> Vec<String> {
    let (name, verdict) = line.split_once(": ").unwrap();
    let there = name.replace("t/sub/", "t/moved/");
    let listed = verdict.strip_prefix("MOVED from ").unwrap_or(name);
    match verdict {
        "MISSING" => vec![line.to_owned()],
        "OK" => vec![format!("{there}: MOVED from {name}")],
        _ if verdict.starts_with("MOVED") => vec![format!("{there}: MOVED from {listed}")],
        _ => vec![format!("{there}: NEW"), format!("{name}: MISSING")],
    }
}

#[test]
fn audit_tells_rot_from_an_edit_over_seeded_corpora() {
    let seeds: u64 = std::env::var("FASTSUM_TEST_META_SEEDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(40);
    for seed in 0..seeds {
        audit_one_seed(seed);
    }
}

#[test]
fn plain_check_names_rot_under_fastsum_and_stays_gnu_under_gnu_names() {
    let dir = fixture();
    let d = dir.path();
    // rot: a byte flipped, the mtime as it was; an edit: a new mtime
    put(d, b"d/keep1", b"keeP1", past(0));
    put(d, b"d/edit", b"edited", past(100));
    let o = run(fastsum()
        .current_dir(d)
        .args(["-a", "sha256", "-c", "SUMS"]));
    assert_eq!(o.status.code(), Some(1), "{}", shown(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("d/keep1: DAMAGED\n"), "{}", shown(&o));
    assert!(out.contains("d/edit: MODIFIED\n"), "{}", shown(&o));
    assert!(out.contains("d/keep2: OK\n"), "{}", shown(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("d/keep1: DAMAGED: its bytes changed")
            && err.contains("WARNING: 2 computed checksums did NOT match"),
        "{}",
        shown(&o)
    );
    if require_tool("sha256sum") {
        let mine = run(crate::util::multicall(d, "sha256sum")
            .current_dir(d)
            .args(["-c", "SUMS"]));
        let theirs = run(gnu("sha256sum").current_dir(d).args(["-c", "SUMS"]));
        assert_eq!(
            (mine.status.code(), &mine.stdout, &mine.stderr),
            (theirs.status.code(), &theirs.stdout, &theirs.stderr),
            "{}\n{}",
            shown(&mine),
            shown(&theirs)
        );
    }
}

/// A tree that lists slowly (each directory listing delayed, as on a cold
/// disk) starts the walk's readers, which prefetch files by opening them:
/// not in an update of a manifest with `#meta` lines, which opens only
/// what changed.
#[test]
fn a_slow_tree_is_not_prefetched_when_only_changes_are_read() {
    if !require_strace() {
        return;
    }
    let dir = tempdir();
    let d = dir.path();
    for i in 0..40 {
        std::fs::create_dir_all(d.join(format!("t/d{i:02}"))).unwrap();
        for j in 0..3 {
            let name = format!("t/d{i:02}/unchanged{j}");
            put(d, name.as_bytes(), name.as_bytes(), past(j));
        }
    }
    let o = run(fastsum()
        .current_dir(d)
        .args(["--meta", "-a", "md5", "-r", "t"]));
    std::fs::write(d.join("SUMS"), &o.stdout).unwrap();
    let trace = d.join("trace");
    let o = run(Command::new("strace")
        .args(["-f", "-qq", "-e", "trace=openat,getdents64"])
        .args(["-e", "inject=getdents64:delay_exit=2000", "-o"])
        .arg(&trace)
        .arg(fastsum_path())
        .env("LC_ALL", "C.UTF-8")
        .current_dir(d)
        .args(["-a", "md5", "-r", "t", "--update", "SUMS"]));
    assert!(o.status.success(), "{}", shown(&o));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("0 modified, 0 pruned, 120 kept"),
        "{}",
        shown(&o)
    );
    let opened = opened(&trace);
    assert!(!opened.contains("unchanged"), "{opened}");
}

/// A `#meta` line is tied to the line right after it: one before an empty
/// line or another comment is a comment, kept as it is, and says nothing
/// of the checksum line further down.
#[test]
fn a_meta_line_not_right_before_a_checksum_line_is_only_a_comment() {
    let dir = tempdir();
    let d = dir.path();
    std::fs::create_dir_all(d.join("d")).unwrap();
    put(d, b"d/a", b"a", past(0));
    let o = run(fastsum()
        .current_dir(d)
        .args(["--meta", "--untagged", "-a", "md5", "d/a"]));
    let text = String::from_utf8(o.stdout).unwrap();
    let (meta, line) = text.split_once('\n').unwrap();
    let sums = format!("{meta}\n\n{line}");
    std::fs::write(d.join("SUMS"), &sums).unwrap();
    // changed since: an update keeps the line (no `#meta` line of its own:
    // nor has SUMS any, so its summary counts no modified ones)
    put(d, b"d/a", b"b", past(9));
    let o = run(fastsum()
        .current_dir(d)
        .args(["-a", "md5", "-r", "d", "--update", "SUMS"]));
    assert!(o.status.success(), "{}", shown(&o));
    assert!(
        String::from_utf8_lossy(&o.stderr).ends_with("SUMS: 0 added, 0 pruned, 1 kept\n"),
        "{}",
        shown(&o)
    );
    assert_eq!(std::fs::read_to_string(d.join("SUMS")).unwrap(), sums);
    // and -c says FAILED, not DAMAGED or MODIFIED
    let o = run(fastsum().current_dir(d).args(["-a", "md5", "-c", "SUMS"]));
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        "d/a: FAILED\n",
        "{}",
        shown(&o)
    );
}

/// A `#meta` line in another form than fastsum writes (fields in another
/// order, unknown ones, longer than any it writes) tells rot from an edit
/// as well; one that records no size is a comment: its file's mismatch is
/// FAILED.
#[test]
fn meta_lines_of_any_form_are_read_when_a_digest_does_not_match() {
    let dir = fixture();
    let d = dir.path();
    let sums = std::fs::read_to_string(d.join("SUMS")).unwrap();
    let mut lines: Vec<String> = sums.lines().map(str::to_owned).collect();
    let before = |lines: &[String], name: &str| {
        lines
            .iter()
            .position(|l| l.ends_with(name) && !l.starts_with('#'))
            .unwrap()
            - 1
    };
    let at = before(&lines, "d/keep1");
    let ns = lines[at].split("mtime=").nth(1).unwrap().to_owned();
    let pad = "x".repeat(80);
    lines[at] = format!("#meta owner={pad} mtime={ns} size=5");
    let at = before(&lines, "d/edit");
    lines[at] = "#meta size=x mtime=1ns".to_owned();
    std::fs::write(d.join("SUMS"), lines.join("\n") + "\n").unwrap();
    put(d, b"d/keep1", b"keeP1", past(0));
    put(d, b"d/keep2", b"keep2!", past(100));
    put(d, b"d/edit", b"edited", past(100));
    let o = run(fastsum()
        .current_dir(d)
        .args(["-a", "sha256", "-c", "SUMS"]));
    let out = String::from_utf8_lossy(&o.stdout);
    for verdict in [
        "d/keep1: DAMAGED\n",
        "d/keep2: MODIFIED\n",
        "d/edit: FAILED\n",
    ] {
        assert!(out.contains(verdict), "{verdict}{}", shown(&o));
    }
    assert_eq!(o.status.code(), Some(1), "{}", shown(&o));
}

/// A file listed with two algorithms (`--meta -a md5,sha256`: read once
/// for both lines): a digest that does not match after one that does is
/// told DAMAGED or MODIFIED as well.
#[test]
fn a_mismatch_after_a_match_in_one_read_is_told_too() {
    let dir = tempdir();
    let d = dir.path();
    put(d, b"f", b"abc", past(0));
    let o = run(fastsum()
        .current_dir(d)
        .args(["--meta", "-a", "md5,sha256", "f"]));
    let mut text = String::from_utf8(o.stdout).unwrap();
    // the SHA-256 line's last digit no longer the file's
    let last = text.pop().and(text.pop()).unwrap();
    text.push(if last == '0' { '1' } else { '0' });
    text.push('\n');
    std::fs::write(d.join("S"), &text).unwrap();
    let o = run(fastsum().current_dir(d).args(["-c", "S"]));
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        "f: OK\nf: DAMAGED\n",
        "{text}{}",
        shown(&o)
    );
    put(d, b"f", b"abc", past(1));
    let o = run(fastsum().current_dir(d).args(["-c", "S"]));
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        "f: OK\nf: MODIFIED\n",
        "{}",
        shown(&o)
    );
}
