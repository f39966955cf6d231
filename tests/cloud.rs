//! The digests object stores report (issue 32), against independent
//! oracles: CRC-64/NVME, CRC-32C and CRC-32 from Python's `awscrt` (the
//! AWS SDKs' own C library), CRC-32C from `google-crc32c` (the GCS
//! clients'), and S3's multipart definitions (the ETag, the composite
//! checksums) computed with hashlib over the parts. Sizes around part
//! boundaries (0, 1, part−1, part, part+1, many parts, 10,000 parts), every
//! reading mode, odd chunk sizes (a part ends inside an update), all the
//! digests of a file in one read; and `-c` reads the lines back.

use std::process::Command;

use crate::util::{MODES, fastsum, files_of_sizes, require_tool, run, skip, tempdir};

/// The oracle: for each file, one line of the CRC-64/NVME and CRC-32C of
/// the whole file (hex), then the ETag, and the composite SHA-1, SHA-256,
/// CRC-32, CRC-32C over parts of `argv[1]` bytes, as S3 shows them (a file
/// of one part or none: the plain digest, as a single PUT).
const ORACLE: &str = r#"
import base64, hashlib, sys
from awscrt import checksums
import google_crc32c
part = int(sys.argv[1])
for name in sys.argv[2:]:
    d = open(name, 'rb').read()
    parts = [d[i:i + part] for i in range(0, len(d), part)]
    c32c = checksums.crc32c(d)
    assert c32c == google_crc32c.value(d), name
    crc = lambda f, w: lambda b: f(b).to_bytes(w, 'big')
    hl = lambda n: lambda b: hashlib.new(n, b).digest()
    b64 = lambda b: base64.b64encode(b).decode()
    def composed(h, text):
        if len(parts) <= 1:
            return text(h(d))
        return text(h(b''.join(h(p) for p in parts))) + '-%d' % len(parts)
    print(' '.join([
        crc(checksums.crc64nvme, 8)(d).hex(),
        crc(checksums.crc32c, 4)(d).hex(),
        composed(hl('md5'), bytes.hex),
        composed(hl('sha1'), b64),
        composed(hl('sha256'), b64),
        composed(crc(checksums.crc32, 4), b64),
        composed(crc(checksums.crc32c, 4), b64),
    ]))
"#;

/// Are python3, `awscrt` and `google-crc32c` here? (Skips locally, fails
/// under CI: `.ci/run` installs them.)
fn oracles_here() -> bool {
    if !require_tool("python3") {
        return false;
    }
    let o = Command::new("python3")
        .args(["-c", "import awscrt.checksums, google_crc32c"])
        .output();
    if o.is_ok_and(|o| o.status.success()) {
        return true;
    }
    let why =
        "python3's awscrt and google-crc32c are not installed (pip install awscrt google-crc32c)";
    assert!(
        std::env::var_os("CI").is_none(),
        "{why}: required under CI, .ci/run must install them"
    );
    skip(why);
    false
}

/// fastsum's `-a` for what the oracle prints, over parts of `part`.
fn algorithms(part: &str) -> String {
    let over = ["md5", "sha1", "sha256", "crc32b", "crc32c"].map(|a| format!("{a}@{part}"));
    format!("crc64nvme,crc32c,{}", over.join(","))
}

/// The oracle's values for `names` in `dir`, a line of them per file.
fn oracle(dir: &std::path::Path, part: u64, names: &[String]) -> Vec<String> {
    let o = run(Command::new("python3")
        .current_dir(dir)
        .args(["-c", ORACLE, &part.to_string()])
        .args(names));
    assert!(o.status.success(), "oracle: {o:?}");
    String::from_utf8(o.stdout)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

/// fastsum's values, a line of them per file in the order of `-a`: the
/// digests of its tagged lines.
fn ours(dir: &std::path::Path, part: &str, names: &[String], opts: &[&str]) -> Vec<String> {
    let o = run(fastsum()
        .current_dir(dir)
        .args(["-a", &algorithms(part)])
        .args(opts)
        .args(names));
    assert!(o.status.success(), "{opts:?}: {o:?}");
    let text = String::from_utf8(o.stdout).unwrap();
    let values: Vec<&str> = text
        .lines()
        .map(|l| l.rsplit_once(" = ").unwrap().1)
        .collect();
    values.chunks(7).map(|c| c.join(" ")).collect()
}

/// Every digest against the oracles, over parts of 1 KiB (so 10,000
/// parts is 10 MB) and of 5 MiB (S3's smallest), in every mode.
#[test]
fn digests_match_the_oracles_around_part_boundaries() {
    if !oracles_here() {
        return;
    }
    let dir = tempdir();
    let d = dir.path();
    const K: usize = 1024;
    const M: usize = 5 << 20;
    for (part, text, sizes, seed) in [
        (
            K,
            "1K",
            vec![
                0,
                1,
                K - 1,
                K,
                K + 1,
                2 * K - 1,
                2 * K,
                2 * K + 1,
                7 * K + 13,
                10_000 * K,
            ],
            1,
        ),
        (M, "5M", vec![M - 1, M, M + 1, 3 * M + 4099], 100),
    ] {
        let names = files_of_sizes(d, &sizes, seed);
        let want = oracle(d, part as u64, &names);
        let mut runs: Vec<Vec<&str>> = MODES
            .iter()
            .filter(|&&m| m != "bytewise")
            .map(|&m| vec!["-m", m])
            .collect();
        runs.push(vec!["-m", "sync", "--chunk", "4097", "-j", "1"]);
        runs.push(vec![
            "-m",
            "threaded",
            "--chunk",
            "1000",
            "--readahead",
            "3000",
        ]);
        for opts in runs {
            assert_eq!(ours(d, text, &names, &opts), want, "{text} parts, {opts:?}");
        }
        // byte by byte and in 7-byte pieces: the small files only
        let small: Vec<String> = names
            .iter()
            .zip(&sizes)
            .filter(|(_, s)| **s < 64 * K)
            .map(|(n, _)| n.clone())
            .collect();
        if small.is_empty() {
            continue;
        }
        let want_small = oracle(d, part as u64, &small);
        for opts in [&["-m", "bytewise"][..], &["-m", "threaded", "--chunk", "7"]] {
            assert_eq!(ours(d, text, &small, opts), want_small, "{opts:?}");
        }
    }
}

/// The published check values (`123456789`), and GCS's and S3's base64
/// of them.
#[test]
fn check_values() {
    let dir = tempdir();
    let f = crate::util::write_file(dir.path(), "nine", b"123456789");
    let o = run(fastsum().args(["-a", "crc32c,crc64nvme"]).arg(&f));
    let text = String::from_utf8(o.stdout).unwrap();
    assert!(text.contains(") = e3069283\n"), "{text}");
    assert!(text.contains(") = ae8b14860a799888\n"), "{text}");
}

/// `--part-size` applies to every algorithm named; lines carry the part
/// size in their tag, and `-c` reads them back; refusals say why.
#[test]
fn part_sizes_travel_in_the_lines() {
    let dir = tempdir();
    let d = dir.path();
    let names = files_of_sizes(d, &[0, 3000, 20_000], 7);
    let o = run(fastsum()
        .current_dir(d)
        .args(["-a", "md5,sha256", "--part-size", "1K,8K"])
        .args(&names));
    assert!(o.status.success(), "{o:?}");
    let text = String::from_utf8(o.stdout.clone()).unwrap();
    let tags: Vec<&str> = text
        .lines()
        .take(4)
        .map(|l| l.split(' ').next().unwrap())
        .collect();
    assert_eq!(tags, ["MD5@1K", "MD5@8K", "SHA256@1K", "SHA256@8K"]);
    // a file of one part or none: the plain digest (no -N)
    let value = |l: &str| l.rsplit_once(" = ").unwrap().1.to_string();
    assert!(!value(text.lines().next().unwrap()).contains('-'), "{text}");
    assert!(text.contains("-20\n") && text.contains("-3\n"), "{text}");
    let sums = crate::util::write_file(d, "SUMS", &o.stdout);
    let o = run(fastsum().current_dir(d).arg("-c").arg(&sums));
    assert!(o.status.success(), "{o:?}");
    assert_eq!(
        String::from_utf8_lossy(&o.stdout).matches(": OK\n").count(),
        12
    );
    for (args, why) in [
        (
            &["-a", "crc64nvme", "--part-size", "8M"][..],
            "always a full-object checksum",
        ),
        (&["-a", "sha512@8M"], "S3 composes no sha512"),
        (&["--part-size", "1000"], "no part size"),
        (&["-c", "--part-size", "8M"], "meaningless when verifying"),
    ] {
        let o = run(fastsum().args(args).arg("x"));
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(
            String::from_utf8_lossy(&o.stderr).contains(why),
            "{args:?}: {o:?}"
        );
    }
}

/// A bare ETag, `HEX-N  NAME` as the S3 console shows it, is tried
/// against the common part sizes that cut the file into N parts, in one
/// read, and the line says which matched; `-1` (one part sent as a
/// multipart upload) too; a wrong one fails.
#[test]
fn bare_etags_find_their_part_size() {
    if !require_tool("python3") {
        return;
    }
    let dir = tempdir();
    let d = dir.path();
    let names = files_of_sizes(d, &[(17 << 20) + 5, 1000], 3);
    let mut sums = Vec::new();
    for (name, mib) in [
        (&names[0], "16"),
        (&names[0], "5"),
        (&names[0], "8"),
        (&names[1], "5"),
    ] {
        sums.extend(etag_line(d, name, mib, ""));
    }
    let sums_file = crate::util::write_file(d, "SUMS", &sums);
    let o = run(fastsum().current_dir(d).arg("-c").arg(&sums_file));
    let want = format!(
        "{0}: OK (S3 ETag of 16M parts)\n{0}: OK (S3 ETag of 5M parts)\n\
         {0}: OK (S3 ETag of 8M parts)\n{1}: OK (S3 ETag of 5M parts)\n",
        names[0], names[1]
    );
    assert_eq!(String::from_utf8_lossy(&o.stdout), want, "{o:?}");
    assert!(o.status.success());
    let wrong = format!("{}-3  {}\n", "0".repeat(32), names[0]);
    let wrong_file = crate::util::write_file(d, "WRONG", wrong.as_bytes());
    let o = run(fastsum().current_dir(d).arg("-c").arg(&wrong_file));
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        format!("{}: FAILED (not an S3 ETag of 6M-8M parts)\n", names[0])
    );
    assert_eq!(o.status.code(), Some(1));
}

/// The line of `name` in `dir` uploaded in parts of `mib` MiB, by S3's
/// definition (hashlib): `HEX-N  NAME`, its ETag as the console shows it;
/// `form` "quoted": `"HEX-N"  NAME`, as `aws s3api head-object` prints it;
/// "put": `"HEX"  NAME`, a single PUT's (the file's MD5).
fn etag_line(dir: &std::path::Path, name: &str, mib: &str, form: &str) -> Vec<u8> {
    let script = "import hashlib, sys\n\
                  name, part, form = sys.argv[1], int(sys.argv[2]) << 20, sys.argv[3]\n\
                  d = open(name, 'rb').read()\n\
                  ps = [d[i:i + part] for i in range(0, len(d), part)]\n\
                  h = hashlib.md5(b''.join(hashlib.md5(p).digest() for p in ps)).hexdigest()\n\
                  e = '%s-%d' % (h, len(ps))\n\
                  if form == 'quoted': e = '\"%s\"' % e\n\
                  if form == 'put': e = '\"%s\"' % hashlib.md5(d).hexdigest()\n\
                  print('%s  %s' % (e, name))";
    let o = run(Command::new("python3")
        .current_dir(dir)
        .args(["-c", script, name, mib, form]));
    assert!(o.status.success(), "{o:?}");
    o.stdout
}

/// An ETag pasted as `aws s3api head-object` prints it, in double quotes,
/// is a check line as the bare one is (issue 46): of parts (`"HEX-N"`) or
/// of a single PUT (`"HEX"`, the file's MD5).
#[test]
fn quoted_etags_are_read_as_head_object_prints_them() {
    if !require_tool("python3") {
        return;
    }
    let dir = tempdir();
    let d = dir.path();
    let names = files_of_sizes(d, &[(17 << 20) + 5], 7);
    let mut sums = etag_line(d, &names[0], "8", "quoted");
    sums.extend(etag_line(d, &names[0], "8", "put"));
    assert!(
        sums.starts_with(b"\""),
        "{}",
        String::from_utf8_lossy(&sums)
    );
    let sums = crate::util::write_file(d, "SUMS", &sums);
    let o = run(fastsum().current_dir(d).arg("-c").arg(&sums));
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        format!("{0}: OK (S3 ETag of 8M parts)\n{0}: OK\n", names[0]),
        "{o:?}"
    );
    assert!(o.status.success(), "{o:?}");
}

/// A bare ETag is tried with every whole-MiB part size that cuts the file
/// into its N parts, not only the common ones: 7 MiB parts of a file of
/// 20 MiB and 5 bytes (`-3`: 7M to 10M fit) are found (issue 46: `…-15`
/// of 7 MiB parts got a bare FAILED). One that fails says which sizes it
/// tried, or that none makes N parts of the file.
#[test]
fn bare_etags_try_every_whole_mib_size_of_n_parts_and_say_which() {
    if !require_tool("python3") {
        return;
    }
    let dir = tempdir();
    let d = dir.path();
    let names = files_of_sizes(d, &[(20 << 20) + 5], 11);
    let sums = crate::util::write_file(d, "SUMS", &etag_line(d, &names[0], "7", ""));
    let o = run(fastsum().current_dir(d).arg("-c").arg(&sums));
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        format!("{}: OK (S3 ETag of 7M parts)\n", names[0]),
        "{o:?}"
    );
    assert!(o.status.success(), "{o:?}");
    let zero = "0".repeat(32);
    let wrong = format!("{zero}-3  {0}\n{zero}-200  {0}\n", names[0]);
    let wrong = crate::util::write_file(d, "WRONG", wrong.as_bytes());
    let o = run(fastsum().current_dir(d).arg("-c").arg(&wrong));
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        format!(
            "{0}: FAILED (not an S3 ETag of 7M-10M parts)\n\
             {0}: FAILED (no part size of whole MiB, 5M to 5G, makes 200 parts of it)\n",
            names[0]
        ),
        "{o:?}"
    );
    assert_eq!(o.status.code(), Some(1), "{o:?}");
}

/// Under GNU's and b3sum's names nothing changes: no `--part-size`, no
/// `NAME@SIZE`, and a bare ETag line, quoted or not, is improper, as GNU
/// finds it.
#[test]
fn tool_names_know_nothing_of_parts() {
    let dir = tempdir();
    let d = dir.path();
    let f = crate::util::write_file(d, "f", b"abc");
    let o = run(crate::util::multicall(d, "md5sum")
        .args(["--part-size", "8M"])
        .arg(&f));
    assert_eq!(o.status.code(), Some(1), "{o:?}");
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("unrecognized option"),
        "{o:?}"
    );
    let o = run(crate::util::multicall(d, "cksum")
        .args(["-a", "md5@8M"])
        .arg(&f));
    assert_eq!(o.status.code(), Some(1), "{o:?}");
    let zero = "0".repeat(32);
    let etag = format!("{zero}-2  f\n\"{zero}-2\"  f\n\"{zero}\"  f\n");
    crate::util::write_file(d, "E", etag.as_bytes());
    let o = run(crate::util::multicall(d, "md5sum")
        .current_dir(d)
        .args(["-c", "E"]));
    assert_eq!(o.status.code(), Some(1), "{o:?}");
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("no properly formatted checksum lines"),
        "{o:?}"
    );
    if require_tool("md5sum") {
        let gnu = run(Command::new("md5sum").current_dir(d).args(["-c", "E"]));
        assert_eq!(
            (o.status.code(), &o.stdout, &o.stderr),
            (gnu.status.code(), &gnu.stdout, &gnu.stderr)
        );
    }
}

/// `--json` carries the part size and the encoding of a digest over parts,
/// hashing and checking.
#[test]
fn json_carries_part_size_and_encoding() {
    let dir = tempdir();
    let d = dir.path();
    let names = files_of_sizes(d, &[3000], 9);
    let o = run(fastsum()
        .current_dir(d)
        .args(["--json", "-a", "md5@1K,crc32c@1K,crc64nvme"])
        .args(&names));
    let text = String::from_utf8(o.stdout).unwrap();
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines[0]["part_size"], 1024);
    assert_eq!(lines[0]["encoding"], "hex");
    assert!(lines[0]["digest"].as_str().unwrap().ends_with("-3"));
    assert_eq!(lines[1]["encoding"], "base64");
    assert_eq!(lines[1]["algorithm"], "crc32c");
    assert!(lines[2].get("part_size").is_none(), "{text}");
    let sums = run(fastsum().current_dir(d).args(["-a", "md5@1K"]).args(&names)).stdout;
    let sums = crate::util::write_file(d, "SUMS", &sums);
    let o = run(fastsum().current_dir(d).args(["-c", "--json"]).arg(&sums));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        (v["status"].clone(), v["part_size"].clone()),
        ("OK".into(), 1024.into())
    );
}

/// `--base64` writes what the stores show: S3's `x-amz-checksum-crc64nvme`
/// and `-crc32c`, GCS's `crc32c` and `md5Hash` (base64 of the bytes, the
/// CRCs big-endian), against awscrt, google-crc32c and hashlib; `-c` reads
/// the lines back, and `--json` says the encoding.
#[test]
fn base64_is_what_the_stores_show() {
    if !oracles_here() {
        return;
    }
    let dir = tempdir();
    let d = dir.path();
    let names = files_of_sizes(d, &[0, 1, 9, 4096, 100_000], 11);
    let script = "import base64, hashlib, sys\n\
                  from awscrt import checksums\n\
                  import google_crc32c\n\
                  b = lambda x: base64.b64encode(x).decode()\n\
                  for n in sys.argv[1:]:\n    \
                      d = open(n, 'rb').read()\n    \
                      print(b(checksums.crc64nvme(d).to_bytes(8, 'big')))\n    \
                      print(b(google_crc32c.Checksum(d).digest()))\n    \
                      print(b(hashlib.md5(d).digest()))";
    let o = run(Command::new("python3")
        .current_dir(d)
        .args(["-c", script])
        .args(&names));
    assert!(o.status.success(), "{o:?}");
    let want = String::from_utf8(o.stdout).unwrap();
    let o = run(fastsum()
        .current_dir(d)
        .args(["--base64", "-a", "crc64nvme,crc32c,md5"])
        .args(&names));
    let text = String::from_utf8(o.stdout.clone()).unwrap();
    let got: String = text
        .lines()
        .map(|l| format!("{}\n", l.rsplit_once(" = ").unwrap().1))
        .collect();
    assert_eq!(got, want);
    let sums = crate::util::write_file(d, "SUMS", &o.stdout);
    let o = run(fastsum().current_dir(d).arg("-c").arg(&sums));
    assert!(o.status.success(), "{o:?}");
    assert_eq!(
        String::from_utf8_lossy(&o.stdout).matches(": OK\n").count(),
        15
    );
    let o = run(fastsum()
        .current_dir(d)
        .args(["--base64", "--json", "-a", "crc32c"])
        .arg(&names[2]));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["encoding"], "base64");
    assert_eq!(v["digest"], want.lines().nth(7).unwrap());
}

/// `--update` keeps a manifest of lines over parts (their part size is the
/// manifest's algorithm), and refuses another part size.
#[test]
fn update_keeps_a_manifest_over_parts() {
    let dir = tempdir();
    let d = dir.path();
    let names = files_of_sizes(d, &[3000, 5000], 13);
    let sums = d.join("SUMS");
    let o = run(fastsum()
        .current_dir(d)
        .args(["-a", "md5@1K", "--update"])
        .arg(&sums)
        .arg(&names[0]));
    assert!(o.status.success(), "{o:?}");
    let o = run(fastsum()
        .current_dir(d)
        .arg("--update")
        .arg(&sums)
        .args(&names));
    assert!(o.status.success(), "{o:?}");
    let text = std::fs::read_to_string(&sums).unwrap();
    assert_eq!(
        text.lines().filter(|l| l.starts_with("MD5@1K (")).count(),
        2,
        "{text}"
    );
    assert!(text.ends_with("-5\n"), "{text}");
    let o = run(fastsum()
        .current_dir(d)
        .args(["-a", "md5@2K", "--update"])
        .arg(&sums)
        .args(&names));
    assert_eq!(o.status.code(), Some(1), "{o:?}");
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("md5@1K, not md5@2K"),
        "{o:?}"
    );
}

/// `--audit` tries a bare ETag's part sizes as `-c` does: OK when one
/// matches, FAILED when none does.
#[test]
fn audit_tries_a_bare_etags_part_sizes() {
    if !require_tool("python3") {
        return;
    }
    let dir = tempdir();
    let d = dir.path();
    let tree = d.join("tree");
    std::fs::create_dir(&tree).unwrap();
    let names = files_of_sizes(&tree, &[(17 << 20) + 5], 5);
    // 9M to 17M all cut it into 2 parts: nine candidates, one matches
    let sums = crate::util::write_file(d, "SUMS", &etag_line(&tree, &names[0], "16", ""));
    let o = run(fastsum()
        .current_dir(&tree)
        .arg("-c")
        .arg(&sums)
        .args(["--audit", "."]));
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        format!("{}: OK\n", names[0]),
        "{o:?}"
    );
    assert!(o.status.success(), "{o:?}");
    let wrong = format!("{}-2  {}\n", "0".repeat(32), names[0]);
    let wrong = crate::util::write_file(d, "WRONG", wrong.as_bytes());
    let o = run(fastsum()
        .current_dir(&tree)
        .arg("-c")
        .arg(&wrong)
        .args(["--audit", "."]));
    assert_eq!(o.status.code(), Some(1), "{o:?}");
}

/// Issue 40 §6: every line over parts fastsum writes, it checks and
/// updates: each algorithm S3 composes × a part size that cuts the file
/// into several parts and one that holds it whole × `--base64` × `--tag`,
/// named with `-a ALGO@SIZE` and with `--part-size` (CRC32C@SIZE and
/// CRC32B@SIZE lines, whose 4 bytes' base64 is as long as their hex, were
/// improperly formatted to `-c`). Each checks OK (exit 0), FAILED with one
/// byte changed (exit 1), and `--update` of a manifest listing one file
/// appends the other's line as the whole run writes it.
#[test]
fn every_line_over_parts_checks_and_updates() {
    let dir = tempdir();
    let d = dir.path();
    let data = crate::util::random_bytes(200_000, 21);
    let write = |bytes: &[u8]| crate::util::write_file(d, "f", bytes);
    write(&data);
    crate::util::write_file(d, "e", b"");
    let fs = |args: &[&str]| run(fastsum().current_dir(d).args(args));
    for algo in ["md5", "sha1", "sha256", "crc32b", "crc32c"] {
        for size in ["64K", "1M"] {
            let over = format!("{algo}@{size}");
            let named: [&[&str]; 2] = [&["-a", &over], &["-a", algo, "--part-size", size]];
            for (named, base64, tag) in named
                .into_iter()
                .flat_map(|n| [(n, false, false), (n, true, false), (n, false, true)])
                .chain([(named[0], true, true)])
            {
                let mut args: Vec<&str> = named.to_vec();
                args.extend(base64.then_some("--base64"));
                args.extend(tag.then_some("--tag"));
                let what = format!("{args:?}");
                let lines = fs(&[&args[..], &["e", "f"]].concat());
                assert!(lines.status.success(), "{what}: {lines:?}");
                crate::util::write_file(d, "S", &lines.stdout);
                let ok = fs(&["-c", "S"]);
                crate::util::assert_output(&what, &ok, "e: OK\nf: OK\n", "", 0);
                let mut bad = data.clone();
                bad[150_000] ^= 1;
                write(&bad);
                let failed = fs(&["-c", "S"]);
                write(&data);
                crate::util::assert_output(
                    &what,
                    &failed,
                    "e: OK\nf: FAILED\n",
                    "fastsum: WARNING: 1 computed checksum did NOT match\n",
                    1,
                );
                let first = lines.stdout.iter().position(|&b| b == b'\n').unwrap() + 1;
                crate::util::write_file(d, "S", &lines.stdout[..first]);
                let updated = fs(&["--update", "S", "e", "f"]);
                crate::util::assert_output(
                    &what,
                    &updated,
                    "",
                    "fastsum: S: 1 added, 0 pruned, 1 kept\n",
                    0,
                );
                assert_eq!(std::fs::read(d.join("S")).unwrap(), lines.stdout, "{what}");
            }
        }
    }
}

/// Issue 40 §13: the part size's message says its true limit (32G was
/// refused by a message allowing it: 32767M is the largest), blanks around
/// a SIZE read alike (`' 8M'` and `'8M '`, for `--chunk` too), and `-b` or
/// `-t` with digests over parts, whose lines are always tagged, is refused
/// with a message rather than dropped.
#[test]
fn part_size_limits_blanks_and_untagged_options() {
    let dir = tempdir();
    let d = dir.path();
    crate::util::write_file(d, "f", b"some bytes\n");
    let fs = |args: &[&str]| run(fastsum().current_dir(d).args(args));
    let o = fs(&["--part-size", "32G", "f"]);
    assert_eq!(o.status.code(), Some(2), "{o:?}");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("up to 32767M, below 32G"), "{err}");
    let largest = fs(&["--part-size", "32767M", "f"]);
    assert!(largest.status.success(), "{largest:?}");
    let plain = fs(&["--part-size", "8M", "f"]);
    for blanks in [" 8M", "8M ", " 8M\t", "8M,\t16M "] {
        let o = fs(&["--part-size", blanks, "f"]);
        assert!(o.status.success(), "{blanks:?}: {o:?}");
        assert!(o.stdout.starts_with(&plain.stdout), "{blanks:?}: {o:?}");
    }
    for chunk in [" 4K", "4K "] {
        let o = fs(&["--chunk", chunk, "-m", "sync", "f"]);
        assert!(o.status.success(), "{chunk:?}: {o:?}");
    }
    for (args, what) in [
        (&["-b", "--part-size", "8M"][..], "--binary"),
        (&["-t", "-a", "md5@8M"], "--text"),
        (&["-a", "sha256", "--part-size", "8M", "-b"], "--binary"),
    ] {
        let o = fs(&[args, &["f"]].concat());
        assert_eq!(o.status.code(), Some(2), "{args:?}: {o:?}");
        assert!(o.stdout.is_empty(), "{args:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.contains(&format!(
                "digests over parts print tagged lines (the tag carries the part size): \
                 {what} applies to untagged output"
            )),
            "{args:?}: {err}"
        );
    }
    // --tag (which GNU's -b accompanies) is no refusal
    let o = fs(&["--tag", "-b", "--part-size", "8M", "f"]);
    assert_eq!(o.stdout, plain.stdout, "{o:?}");
}

/// S3's ETag and composite SHA-1 and SHA-256 of each file over parts of
/// `argv[1]` bytes, by their definitions (hashlib): one line per file.
const LANES_ORACLE: &str = r#"
import base64, hashlib, sys
part = int(sys.argv[1])
for name in sys.argv[2:]:
    d = open(name, 'rb').read()
    ps = [d[i:i + part] for i in range(0, len(d), part)]
    def composed(n, text):
        h = lambda b: hashlib.new(n, b).digest()
        if len(ps) <= 1:
            return text(h(d))
        return text(h(b''.join(h(p) for p in ps))) + '-%d' % len(ps)
    b64 = lambda b: base64.b64encode(b).decode()
    print(composed('md5', bytes.hex), composed('sha1', b64), composed('sha256', b64))
"#;

/// What the oracle ([`LANES_ORACLE`]) says of `names` in `d`, over parts
/// of `part` bytes: one line each.
fn lanes_oracle(d: &std::path::Path, part: &str, names: &[String]) -> Vec<String> {
    let o = run(Command::new("python3")
        .current_dir(d)
        .args(["-c", LANES_ORACLE, part])
        .args(names));
    assert!(o.status.success(), "oracle: {o:?}");
    String::from_utf8(o.stdout)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

/// fastsum's ETag and composite SHA-1 and SHA-256 over parts of `part`,
/// one line per file, and its `--stats` (stderr), run with `env`.
fn lanes_ours(
    dir: &std::path::Path,
    part: &str,
    names: &[String],
    opts: &[&str],
    env: &[(&str, &str)],
) -> (Vec<String>, String) {
    let o = run(fastsum()
        .current_dir(dir)
        .envs(env.iter().copied())
        .args(["--stats", "-a"])
        .arg(format!("md5@{part},sha1@{part},sha256@{part}"))
        .args(opts)
        .args(names));
    assert!(o.status.success(), "{opts:?} {env:?}: {o:?}");
    let text = String::from_utf8(o.stdout).unwrap();
    let values: Vec<&str> = text
        .lines()
        .map(|l| l.rsplit_once(" = ").unwrap().1)
        .collect();
    let lines = values.chunks(3).map(|c| c.join(" ")).collect();
    (lines, String::from_utf8_lossy(&o.stderr).into_owned())
}

/// The parts of one file hashed side by side (issue 45) against S3's
/// definitions: 1, 15, 16, 17 and 33 parts, a last part of 1 byte, on
/// every route that takes them in lanes (the threaded mode maps a cached
/// file; mmap; sync reads each part's stretches at offsets, a few bytes
/// at a time under a tiny pool) and the one that does not (bytewise), on
/// one thread and two, on every lane path of this CPU (lanes filled,
/// under-filled, the narrow kernels, none).
#[test]
fn parts_side_by_side_match_the_oracles() {
    if !require_tool("python3") {
        return;
    }
    let dir = tempdir();
    let d = dir.path();
    const K: usize = 1024;
    let sizes = [
        K,
        15 * K,
        16 * K,
        17 * K,
        33 * K,
        16 * K + 1,
        32 * K + 1,
        64 * K + 1,
        97 * K + 500,
    ];
    let names = files_of_sizes(d, &sizes, 45);
    let want = lanes_oracle(d, "1024", &names);
    let runs: [&[&str]; 7] = [
        &["-m", "threaded"],
        &["-m", "threaded", "-j", "1"],
        &["-m", "mmap", "-j", "2"],
        &["-m", "sync", "-j", "2"],
        &["-m", "sync", "-j", "2", "--pool", "1", "--readahead", "4K"],
        &["-m", "sync", "-j", "1", "--chunk", "4097"],
        &["-m", "bytewise"],
    ];
    let paths: [&[(&str, &str)]; 5] = [
        &[],
        &[
            ("FASTSUM_MD5_LANES", "avx512-16"),
            ("FASTSUM_SHA_LANES", "sha-ni-4"),
        ],
        &[
            ("FASTSUM_MD5_LANES", "avx2-8"),
            ("FASTSUM_SHA_LANES", "sha-ni-2"),
        ],
        &[
            ("FASTSUM_MD5_LANES", "scalar"),
            ("FASTSUM_SHA_LANES", "sha-ni-1"),
        ],
        &[("FASTSUM_MD5_LANES", "off"), ("FASTSUM_SHA_LANES", "off")],
    ];
    for env in paths {
        // (a path this CPU does not run is refused: nothing to test)
        let probe = run(fastsum()
            .envs(env.iter().copied())
            .args(["-a", "md5", "/dev/null"]));
        if !probe.status.success() {
            continue;
        }
        for opts in runs {
            let (got, stats) = lanes_ours(d, "1K", &names, opts, env);
            assert_eq!(got, want, "{opts:?} {env:?}");
            // every file of more than one part in lanes (3 algorithms),
            // mapped or read at offsets; never byte by byte (the threaded
            // mode maps only files all in the page cache: not asked)
            let parts: usize = sizes.iter().map(|s| s / K).filter(|&p| p > 1).sum();
            let line = format!("parts hashed side by side: {} in", 3 * parts);
            match opts[1] {
                "threaded" => {}
                "bytewise" => assert!(!stats.contains("side by side"), "{opts:?}: {stats}"),
                _ => assert!(stats.contains(&line), "{opts:?}: {stats}"),
            }
        }
    }
}

/// Files of a MiB or more have their groups of parts spread over the
/// threads (`-j`): 16, 17 and 33 parts of 64 KiB, and a last byte, over 2
/// and 3 threads, on each route, against S3's definitions.
#[test]
fn parts_side_by_side_over_threads_match_the_oracles() {
    if !require_tool("python3") {
        return;
    }
    let dir = tempdir();
    let d = dir.path();
    const P: usize = 64 << 10;
    let sizes = [16 * P, 17 * P, 33 * P + 1];
    let names = files_of_sizes(d, &sizes, 49);
    let want = lanes_oracle(d, &P.to_string(), &names);
    for mode in ["threaded", "mmap", "sync"] {
        for jobs in ["2", "3"] {
            let opts = ["-m", mode, "-j", jobs];
            let (got, stats) = lanes_ours(d, "64K", &names, &opts, &[]);
            assert_eq!(got, want, "{opts:?}");
            if mode != "threaded" {
                assert!(stats.contains("side by side: 198 in"), "{opts:?}: {stats}");
            }
        }
    }
}

/// A file of many parts under `--pool 1 --readahead 4K` is read in
/// stretches of the parts side by side, never whole parts: its digests as
/// S3's, with more read calls than parts.
#[test]
fn parts_side_by_side_read_stretches_not_whole_parts() {
    if !require_tool("python3") {
        return;
    }
    let dir = tempdir();
    let d = dir.path();
    let names = files_of_sizes(d, &[(1 << 20) * 17 / 16 + 1], 46);
    let want = lanes_oracle(d, "65536", &names);
    let opts = ["-m", "sync", "--pool", "1", "--readahead", "4K"];
    let (got, stats) = lanes_ours(d, "64K", &names, &opts, &[]);
    assert_eq!(got, want);
    assert!(
        stats.contains("parts hashed side by side: 51 in"),
        "{stats}"
    );
    let calls: u64 = stats
        .lines()
        .find_map(|l| l.split_once("stats: read calls: ").map(|(_, n)| n.trim()))
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    // 4 KiB over two threads' 9 lanes: stretches of 192 bytes, each read
    assert!(calls > 3 * 17 * 64, "{calls} read calls\n{stats}");
}

/// A bare ETag check line (`HEX-N  NAME`) is checked with its parts side
/// by side.
#[test]
fn a_bare_etag_is_checked_with_its_parts_side_by_side() {
    if !require_tool("python3") {
        return;
    }
    let dir = tempdir();
    let d = dir.path();
    let names = files_of_sizes(d, &[(10 << 20) + 1], 47);
    let sums = etag_line(d, &names[0], "5", "");
    let sums_file = crate::util::write_file(d, "SUMS", &sums);
    for mode in ["mmap", "sync"] {
        let o = run(fastsum()
            .current_dir(d)
            .args(["--stats", "-m", mode, "-c"])
            .arg(&sums_file));
        assert_eq!(
            String::from_utf8_lossy(&o.stdout),
            format!("{}: OK (S3 ETag of 5M parts)\n", names[0]),
            "{mode}: {o:?}"
        );
        let stats = String::from_utf8_lossy(&o.stderr);
        assert!(
            stats.contains("parts hashed side by side: "),
            "{mode}: {stats}"
        );
    }
}

/// Over storage with latency (benches/slowfs, FUSE: a size that may be
/// stale, so neither mapped nor read at offsets), a file of 17 parts and a
/// last byte is read from start to end, in ranges several at once, and its
/// digests over parts are S3's in every mode.
#[test]
fn parts_over_latency_match_the_oracles() {
    let Some(bin) = crate::slowfs::slowfs() else {
        return;
    };
    if !require_tool("python3") {
        return;
    }
    let dir = tempdir();
    let src = dir.path().join("src");
    std::fs::create_dir_all(&src).unwrap();
    let names = files_of_sizes(&src, &[17 * (64 << 10) + 1, 33 * 1024], 48);
    let o = run(Command::new("python3")
        .current_dir(&src)
        .args(["-c", LANES_ORACLE, "65536"])
        .args(&names));
    assert!(o.status.success(), "oracle: {o:?}");
    let want: Vec<String> = String::from_utf8(o.stdout)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    let m = crate::slowfs::Mount::new(&bin, &src, &dir.path().join("mnt"), &["--latency", "1"]);
    for mode in ["threaded", "mmap", "sync"] {
        let (got, _) = lanes_ours(&m.dir, "64K", &names, &["-m", mode], &[]);
        assert_eq!(got, want, "{mode}");
    }
}
