//! Files that are not what their size says: procfs files stat as 0 bytes
//! and sysfs files as 4096 whatever they hold, and Linux's sysctl files
//! refuse a read count of 4 MiB or more (ENOMEM), the default
//! `--readahead`. Every readable file under /proc/sys and a part of /sys,
//! in every mode, against md5sum: the same hash, or the same failure.

use std::collections::HashMap;
use std::process::Command;

use crate::util::{MODES, fastsum, gnu, require_tool, run, shown};

/// Files whose contents any process changes (its own pid, descriptors,
/// threads' dentries), fastsum included: these must hash, and can match
/// no earlier read.
const COUNTERS: [&str; 6] = [
    "/proc/sys/fs/dentry-state",
    "/proc/sys/fs/file-nr",
    "/proc/sys/fs/inode-nr",
    "/proc/sys/fs/inode-state",
    "/proc/sys/kernel/ns_last_pid",
    "/proc/sys/kernel/random/uuid",
];

/// name → hash for each line of `md5sum`-style output.
fn lines(out: &[u8]) -> HashMap<String, String> {
    String::from_utf8_lossy(out)
        .lines()
        .filter_map(|l| l.split_once("  "))
        .map(|(h, n)| (n.to_string(), h.to_string()))
        .collect()
}

/// The names a run reported an error for (`PROG: NAME: reason`).
fn failed(err: &[u8], prog: &str) -> Vec<String> {
    String::from_utf8_lossy(err)
        .lines()
        .filter_map(|l| l.strip_prefix(&format!("{prog}: ")))
        .filter_map(|l| l.rsplit_once(": ").map(|(n, _)| n.to_string()))
        .collect()
}

#[test]
fn proc_and_sys_files_hash_as_md5sum_does_in_every_mode() {
    if !require_tool("md5sum") {
        return;
    }
    let found = run(Command::new("find").args([
        "/proc/sys",
        "/sys/kernel/mm",
        "/sys/devices/system/cpu/cpu0",
        "-maxdepth",
        "4",
        "-type",
        "f",
        "-readable",
    ]));
    let mut names: Vec<String> = String::from_utf8_lossy(&found.stdout)
        .lines()
        .map(str::to_string)
        .collect();
    names.sort();
    if names.len() < 50 {
        eprintln!(
            "skipped: /proc/sys and /sys hold {} readable files here",
            names.len()
        );
        return;
    }
    for mode in MODES {
        // md5sum before and after: a file whose contents changed between
        // the two (counters, random UUIDs) is compared for failing alike only
        let before = run(gnu("md5sum").args(&names));
        let ours = run(fastsum().args(["-m", mode]).args(&names));
        let after = run(gnu("md5sum").args(&names));
        let (b, a, o) = (
            lines(&before.stdout),
            lines(&after.stdout),
            lines(&ours.stdout),
        );
        let mut compared = 0;
        for name in &names {
            match (b.get(name), a.get(name)) {
                _ if COUNTERS.contains(&name.as_str()) => {
                    assert!(o.contains_key(name), "-m {mode} {name}: {}", shown(&ours));
                }
                (Some(x), Some(y)) if x == y => {
                    assert_eq!(o.get(name), Some(x), "-m {mode} {name}: {}", shown(&ours));
                    compared += 1;
                }
                _ => {}
            }
        }
        let theirs = failed(&before.stderr, "md5sum");
        let mut ours_failed = failed(&ours.stderr, "fastsum");
        ours_failed.retain(|n| !o.contains_key(n));
        for n in &ours_failed {
            assert!(
                theirs.contains(n) || !a.contains_key(n),
                "-m {mode}: fastsum failed {n}, md5sum did not: {}",
                shown(&ours)
            );
        }
        assert!(compared > 50, "-m {mode}: only {compared} stable files");
        // check mode: md5sum's lines for the files that stayed the same
        let stable: String = names
            .iter()
            .filter(|n| !COUNTERS.contains(&n.as_str()))
            .filter_map(|n| match (b.get(n), a.get(n)) {
                (Some(x), Some(y)) if x == y => Some(format!("{x}  {n}\n")),
                _ => None,
            })
            .collect();
        let dir = crate::util::tempdir();
        let sums = crate::util::write_file(dir.path(), "SUMS", stable.as_bytes());
        let checked = run(fastsum().args(["-m", mode, "--quiet", "-c"]).arg(&sums));
        // a file can still change after md5sum's second read (cpuidle
        // counters, say): a FAILED line counts against fastsum only if
        // md5sum, run again now, still agrees with the listed hash
        let now = run(gnu("md5sum").args(&names));
        let now = lines(&now.stdout);
        let text = String::from_utf8_lossy(&checked.stdout);
        let mut wrong = 0;
        for line in text.lines() {
            let name = line.strip_suffix(": FAILED");
            let changed = name.is_some_and(|n| b.get(n) != now.get(n));
            if !changed {
                wrong += 1;
                eprintln!("-c -m {mode}: {line}");
            }
        }
        assert_eq!(wrong, 0, "-c -m {mode}: {}", shown(&checked));
        assert!(
            checked.status.success() || !text.is_empty(),
            "-c -m {mode}: {}",
            shown(&checked)
        );
        assert_eq!(
            ours.status.code(),
            before.status.code(),
            "-m {mode}: exit status, {}",
            shown(&ours)
        );
    }
}
