//! Multi-lane MD5 end to end: a tree of mixed sizes (many small files that
//! the pipeline packs into batches and hashes in SIMD lanes, a few big ones
//! streamed, a missing one in between) gives md5sum's output byte for byte
//! in every mode, with `-j 1` and `-j 4`, on every multi-lane path; SHA-1
//! and SHA-2 across small files on every SHA path.

use fastsum::internals::LanePath;

use crate::util::{
    MODES, assert_stdout, fastsum, gnu, lane_paths_this_cpu_runs, random_bytes, require_tool, run,
    sha_paths_this_cpu_runs, shown, tempdir, write_file,
};

#[test]
fn mixed_trees_match_md5sum_on_every_lane_path() {
    if !require_tool("md5sum") {
        return;
    }
    let dir = tempdir();
    let mut names = Vec::new();
    for i in 0..120usize {
        // 0 … ~9 KiB, with the padding boundaries among them
        let len = match i {
            0..=9 => [0, 1, 55, 56, 63, 64, 65, 119, 120, 128][i],
            _ => (i * i * 7) % 9000,
        };
        let name = format!("f{i:03}");
        write_file(dir.path(), &name, &random_bytes(len, i as u64));
        names.push(name);
        if i % 40 == 20 {
            let big = format!("big{i}");
            write_file(dir.path(), &big, &random_bytes(3 << 20, i as u64));
            names.push(big);
        }
    }
    names.insert(57, "missing".to_string());
    let want = run(gnu("md5sum").current_dir(dir.path()).args(&names));
    assert_eq!(want.status.code(), Some(1));
    // the lanes serve the threaded mode's batches; every mode runs once.
    // Only the paths this CPU runs: the others are named and skipped.
    let lane_paths: Vec<&str> = std::iter::once("auto")
        .chain(lane_paths_this_cpu_runs().into_iter().map(LanePath::name))
        .collect();
    let runs = lane_paths.iter().map(|&l| (l, "threaded")).chain(
        MODES
            .iter()
            .filter(|&&m| m != "threaded")
            .map(|&m| ("auto", m)),
    );
    for (lanes, mode) in runs {
        for jobs in ["1", "4"] {
            let got = run(fastsum()
                .env("FASTSUM_MD5_LANES", lanes)
                .current_dir(dir.path())
                .args(["-m", mode, "-j", jobs])
                .args(&names));
            let what = format!("FASTSUM_MD5_LANES={lanes} -m {mode} -j {jobs}");
            assert_stdout(&what, &got, &want.stdout);
            assert_eq!(got.status.code(), Some(1), "{what}");
            assert_eq!(
                String::from_utf8_lossy(&got.stderr),
                "fastsum: missing: No such file or directory\n",
                "{what}"
            );
        }
    }
}

/// A path this CPU cannot run, or a name that is no path, is a usage error
/// for an MD5 run, and does not matter to another algorithm.
#[test]
fn bad_lane_path_only_stops_md5_runs() {
    let o = run(fastsum().env("FASTSUM_MD5_LANES", "bogus").arg("/dev/null"));
    assert_eq!(o.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("FASTSUM_MD5_LANES"),
        "{}",
        shown(&o)
    );
    let o = run(fastsum()
        .env("FASTSUM_MD5_LANES", "bogus")
        .args(["-a", "sha256", "/dev/null"]));
    assert_eq!(o.status.code(), Some(0), "{}", shown(&o));
}

/// Forcing a path the CPU lacks is a usage error naming the path, whatever
/// the CPU: the features each path needs are hidden from fastsum's probe
/// (`FASTSUM_TEST_HIDE_CPU`, a hook of the tests' build only), so a CPU
/// that runs every path tests the refusal too; and with them hidden, a run
/// that forces no path takes one that is left, with the same digests.
#[test]
fn forcing_a_path_this_cpu_lacks_is_a_usage_error() {
    let dir = tempdir();
    let names: Vec<String> = (0..40)
        .map(|i| {
            let name = format!("f{i}");
            write_file(dir.path(), &name, &random_bytes(i * 150, i as u64));
            name
        })
        .collect();
    let md5 = |hide: &str, lanes: &str| {
        run(fastsum()
            .current_dir(dir.path())
            .env("FASTSUM_TEST_HIDE_CPU", hide)
            .env("FASTSUM_MD5_LANES", lanes)
            .arg("--stats")
            .args(&names))
    };
    let want = md5("", "off");
    assert_eq!(want.status.code(), Some(0), "{}", shown(&want));
    for p in LanePath::all() {
        let Some(feature) = p.cpu_feature() else {
            continue;
        };
        // every CPU with AVX-512 has AVX2: hide both for an AVX2 path
        let hide = if feature == "avx2" {
            "avx2,avx512f"
        } else {
            feature
        };
        let what = format!(
            "FASTSUM_TEST_HIDE_CPU={hide} FASTSUM_MD5_LANES={}",
            p.name()
        );
        let o = md5(hide, p.name());
        assert_eq!(o.status.code(), Some(2), "{what}: {}", shown(&o));
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.contains("this CPU cannot run") && err.contains(p.name()),
            "{what}: {err}"
        );
        assert!(o.stdout.is_empty(), "{what}: {}", shown(&o));
        let o = md5(hide, "auto");
        assert_stdout(&what, &o, &want.stdout);
        let err = String::from_utf8_lossy(&o.stderr);
        let taken = err
            .lines()
            .find_map(|l| l.strip_prefix("fastsum: stats: md5 kernels: "))
            .and_then(|l| l.split(' ').next())
            .and_then(|name| LanePath::all().into_iter().find(|q| q.name() == name));
        let hidden = taken
            .and_then(LanePath::cpu_feature)
            .filter(|f| hide.split(',').any(|h| h == *f));
        assert!(taken.is_some() && hidden.is_none(), "{what}: {err}");
    }
}

/// SHA-1, SHA-224 and SHA-256 across many small files (several messages
/// per SHA-NI loop, or sixteen in AVX-512 lanes) give the GNU tools' lines
/// byte for byte on every SHA path this CPU runs, with 1 and 4 hashers, and
/// with 40 files in flight (16-lane calls) as with a handful.
#[test]
fn small_files_match_the_sha_tools_on_every_sha_path() {
    let dir = tempdir();
    let mut names = Vec::new();
    for i in 0..80usize {
        let len = match i {
            0..=9 => [0, 1, 55, 56, 63, 64, 65, 119, 120, 128][i],
            _ => (i * i * 13) % 20_000,
        };
        let name = format!("f{i:03}");
        write_file(dir.path(), &name, &random_bytes(len, 1000 + i as u64));
        names.push(name);
    }
    names.insert(33, "missing".to_string());
    let paths: Vec<&str> = std::iter::once("auto")
        .chain(sha_paths_this_cpu_runs())
        .collect();
    for (algo, tool) in [
        ("sha256", "sha256sum"),
        ("sha1", "sha1sum"),
        ("sha224", "sha224sum"),
    ] {
        if !require_tool(tool) {
            continue;
        }
        for few in [&names[..5], &names[..]] {
            let want = run(gnu(tool).current_dir(dir.path()).args(few));
            for path in &paths {
                for jobs in ["1", "4"] {
                    let got = run(fastsum()
                        .env("FASTSUM_SHA_LANES", path)
                        .current_dir(dir.path())
                        .args(["-a", algo, "--untagged", "-j", jobs])
                        .args(few));
                    let what = format!(
                        "FASTSUM_SHA_LANES={path} -a {algo} -j {jobs}, {} files",
                        few.len()
                    );
                    assert_stdout(&what, &got, &want.stdout);
                    assert_eq!(got.status.code(), want.status.code(), "{what}");
                }
            }
        }
    }
}

/// `--stats` names the SHA path and counts blocks per kernel width; a bad
/// FASTSUM_SHA_LANES stops a SHA run (and only a SHA run).
#[test]
fn sha_lanes_are_reported_and_checked() {
    let dir = tempdir();
    let names: Vec<String> = (0..40)
        .map(|i| {
            let name = format!("f{i}");
            write_file(dir.path(), &name, &random_bytes(3000 + i * 100, i as u64));
            name
        })
        .collect();
    let o = run(fastsum()
        .current_dir(dir.path())
        .args(["-a", "sha256", "--stats"])
        .args(&names));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("stats: sha kernels: "), "{}", shown(&o));
    assert!(err.contains("stats: sha blocks: "), "{}", shown(&o));
    let o = run(fastsum()
        .env("FASTSUM_SHA_LANES", "bogus")
        .args(["-a", "sha1", "/dev/null"]));
    assert_eq!(o.status.code(), Some(2), "{}", shown(&o));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("FASTSUM_SHA_LANES"),
        "{}",
        shown(&o)
    );
    let o = run(fastsum().env("FASTSUM_SHA_LANES", "bogus").arg("/dev/null"));
    assert_eq!(o.status.code(), Some(0), "{}", shown(&o));
}
