//! Check files as projects publish them, unsigned (issue 33 §1, §3, §4):
//! the algorithm of untagged lines from the check file's name, a block
//! header or the digest's length; a check file holding only a digest (Go's
//! `X.tar.gz.sha256`); a check file one directory down. Under fastsum's own
//! name only: the GNU names keep GNU's rules (checked against them), and
//! `-a` wins. Signed shapes are in `signed.rs`.

use std::path::Path;
use std::process::{Command, Output};

use crate::util::{Bounded, fastsum, multicall, require_tool, shown, tempdir, write_file};

/// `tool a b` in `d` (sha256sum, sha1sum…): its lines.
fn lines_of(d: &Path, tool: &str, files: &[&str]) -> Vec<u8> {
    let out = Command::new(tool)
        .current_dir(d)
        .args(files)
        .bounded_output()
        .unwrap();
    assert!(out.status.success(), "{tool}");
    out.stdout
}

/// A directory with `a` and `b`, if the GNU tools that write their sums
/// are here.
fn two_files() -> Option<tempfile::TempDir> {
    let tools = ["sha1sum", "sha256sum", "sha512sum", "md5sum", "b2sum"];
    if !tools.iter().all(|t| require_tool(t)) {
        return None;
    }
    let dir = tempdir();
    write_file(dir.path(), "a", b"one\n");
    write_file(dir.path(), "b", b"two\n");
    Some(dir)
}

/// `fastsum ARGS` in `d`.
fn run_in(d: &Path, args: &[&str]) -> Output {
    fastsum()
        .current_dir(d)
        .args(args)
        .bounded_output()
        .unwrap()
}

/// Exit 0, these stdout lines, nothing on stderr.
fn passes(o: &Output, stdout: &str) {
    assert_eq!(
        (o.status.code(), String::from_utf8_lossy(&o.stdout).as_ref()),
        (Some(0), stdout),
        "{}",
        shown(o)
    );
    assert!(o.stderr.is_empty(), "{}", shown(o));
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The check file's name says the algorithm: SHA256SUMS, Node's
/// SHASUMS256.txt, sha512sums.txt, MD5SUMS, B2SUMS, `X.sha1`; a line whose
/// length contradicts it is improperly formatted, as any.
#[test]
fn the_name_says_the_algorithm() {
    let Some(dir) = two_files() else { return };
    let d = dir.path();
    for (name, tool) in [
        ("SHA256SUMS", "sha256sum"),
        ("SHASUMS256.txt", "sha256sum"),
        ("sha512sums.txt", "sha512sum"),
        ("SHA512SUMS", "sha512sum"),
        ("MD5SUMS", "md5sum"),
        ("B2SUMS", "b2sum"),
        ("release.sha1", "sha1sum"),
        ("sha256sum.txt", "sha256sum"),
    ] {
        write_file(d, name, &lines_of(d, tool, &["a", "b"]));
        passes(&run_in(d, &["-c", name]), "a: OK\nb: OK\n");
    }
    // B2SUMS of BLAKE2b-256 lines: the length is the hex's, as -a blake2b
    let out = Command::new("b2sum")
        .current_dir(d)
        .args(["-l", "256", "a"])
        .bounded_output()
        .unwrap();
    write_file(d, "b2sums.txt", &out.stdout);
    passes(&run_in(d, &["-c", "b2sums.txt"]), "a: OK\n");
    // SHA-1 lines in a file named for SHA-256: improper, not read as SHA-1
    write_file(d, "SHA256SUMS", &lines_of(d, "sha1sum", &["a"]));
    let o = run_in(d, &["-c", "-w", "SHA256SUMS"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stderr(&o),
        "fastsum: SHA256SUMS: 1: improperly formatted SHA256 checksum line\n\
         fastsum: SHA256SUMS: no properly formatted checksum lines found\n"
    );
    // a changed file still fails
    write_file(d, "SHA256SUMS", &lines_of(d, "sha256sum", &["a", "b"]));
    write_file(d, "b", b"changed\n");
    let o = run_in(d, &["-c", "SHA256SUMS"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(String::from_utf8_lossy(&o.stdout), "a: OK\nb: FAILED\n");
}

/// Ubuntu's kernel CHECKSUMS (uutils#11202): a SHA-1 block and a SHA-256
/// block under comment headers, in a file whose name says nothing. Each
/// block's lines are read by its header's algorithm; sha256sum reads the
/// SHA-1 block as improper, and so does fastsum under its name.
#[test]
fn block_headers_say_the_algorithm_of_mixed_files() {
    let Some(dir) = two_files() else { return };
    let d = dir.path();
    let mut sums = b"# Checksums, check with the command below:\n\
                     #     shasum -c CHECKSUMS\n#\n# Checksums-Sha1:\n"
        .to_vec();
    sums.extend(lines_of(d, "sha1sum", &["a", "b"]));
    sums.extend_from_slice(b"#\n# Checksums-Sha256:\n");
    sums.extend(lines_of(d, "sha256sum", &["a", "b"]));
    write_file(d, "CHECKSUMS", &sums);
    passes(
        &run_in(d, &["-c", "--strict", "CHECKSUMS"]),
        "a: OK\nb: OK\na: OK\nb: OK\n",
    );
    // Gentoo's DIGESTS: `# BLAKE2B HASH`, `# SHA512 HASH`
    let mut digests = b"# BLAKE2B HASH\n".to_vec();
    digests.extend(lines_of(d, "b2sum", &["a"]));
    digests.extend_from_slice(b"# SHA512 HASH\n");
    digests.extend(lines_of(d, "sha512sum", &["a"]));
    write_file(d, "x.iso.DIGESTS", &digests);
    passes(&run_in(d, &["-c", "x.iso.DIGESTS"]), "a: OK\na: OK\n");
    // a header's algorithm, a changed file: FAILED in its block
    write_file(d, "a", b"changed\n");
    let o = run_in(d, &["-c", "CHECKSUMS"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        "a: FAILED\nb: OK\na: FAILED\nb: OK\n"
    );
    // GNU's names: GNU's rules, exactly as sha256sum
    let gnu = crate::util::gnu("sha256sum")
        .current_dir(d)
        .args(["-c", "CHECKSUMS"])
        .bounded_output()
        .unwrap();
    let ours = multicall(d, "sha256sum")
        .current_dir(d)
        .args(["-c", "CHECKSUMS"])
        .bounded_output()
        .unwrap();
    assert_eq!(
        (ours.status.code(), &ours.stdout, &ours.stderr),
        (gnu.status.code(), &gnu.stdout, &gnu.stderr)
    );
    assert!(stderr(&gnu).contains("2 lines are improperly formatted"));
    // -a wins over the headers, as over a name: sha256sum's answer
    write_file(d, "a", b"one\n");
    let o = run_in(d, &["-a", "sha256", "-c", "CHECKSUMS"]);
    assert_eq!(o.status.code(), Some(0), "{}", shown(&o));
    assert_eq!(String::from_utf8_lossy(&o.stdout), "a: OK\nb: OK\n");
    assert_eq!(
        stderr(&o),
        "fastsum: WARNING: 2 lines are improperly formatted\n"
    );
    write_file(d, "SHA256SUMS", &lines_of(d, "sha256sum", &["a"]));
    let o = run_in(d, &["-a", "sha1", "-c", "SHA256SUMS"]);
    assert_eq!(o.status.code(), Some(1), "{}", shown(&o));
    assert!(
        stderr(&o).contains("no properly formatted"),
        "{}",
        shown(&o)
    );
}

/// No name, no header: 32 hex digits are MD5 and 40 SHA-1 (one
/// cryptographic algorithm each); 64 may be SHA-256, BLAKE3, SM3, SHA3-256
/// or BLAKE2b-256: such a line is not checked, and the message names the
/// `-a` values that fit. A non-cryptographic hash is never inferred.
#[test]
fn the_length_says_it_when_one_algorithm_has_it() {
    let Some(dir) = two_files() else { return };
    let d = dir.path();
    write_file(d, "sums", &lines_of(d, "sha1sum", &["a", "b"]));
    passes(&run_in(d, &["-c", "sums"]), "a: OK\nb: OK\n");
    write_file(d, "sums", &lines_of(d, "md5sum", &["a", "b"]));
    passes(&run_in(d, &["-c", "sums"]), "a: OK\nb: OK\n");
    // goreleaser's checksums.txt: SHA-256, but nothing says so
    write_file(d, "checksums.txt", &lines_of(d, "sha256sum", &["a", "b"]));
    let o = run_in(d, &["-c", "checksums.txt"]);
    assert_eq!((o.status.code(), o.stdout.as_slice()), (Some(1), &b""[..]));
    assert_eq!(
        stderr(&o),
        "fastsum: checksums.txt: 1: 64 hex digits may be -a sha256, -a blake3, \
         -a blake2b, -a sm3 or -a sha3: name the algorithm with -a\n\
         fastsum: checksums.txt: no properly formatted checksum lines found\n"
    );
    passes(
        &run_in(d, &["-a", "sha256", "-c", "checksums.txt"]),
        "a: OK\nb: OK\n",
    );
    // one good line beside them: checked; the others counted improper
    let mut mixed = lines_of(d, "md5sum", &["a"]);
    mixed.extend(lines_of(d, "sha256sum", &["a", "b"]));
    write_file(d, "mixed", &mixed);
    let o = run_in(d, &["-c", "mixed"]);
    assert_eq!(o.status.code(), Some(0), "{}", shown(&o));
    assert_eq!(String::from_utf8_lossy(&o.stdout), "a: OK\n");
    assert!(
        stderr(&o).ends_with("WARNING: 2 lines are improperly formatted\n"),
        "{}",
        shown(&o)
    );
    assert_eq!(stderr(&o).matches("64 hex digits").count(), 1);
    // XXH64's 16 hex digits: never taken as XXH64 without -a
    let xx = fastsum()
        .current_dir(d)
        .args(["-a", "xxh64", "--untagged", "a"])
        .bounded_output()
        .unwrap();
    write_file(d, "xx", &xx.stdout);
    let o = run_in(d, &["-c", "xx"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("16 hex digits may be -a blake2b or -a xxh64"),
        "{}",
        shown(&o)
    );
    passes(&run_in(d, &["-a", "xxh64", "-c", "xx"]), "a: OK\n");
}

/// Go's `go1.23.0.linux-amd64.tar.gz.sha256` holds only the hex: it checks
/// the file its name points at, found here or beside it; with or without a
/// newline; a wrong digest FAILS; under sha256sum's name it is improper.
#[test]
fn a_check_file_of_only_a_digest_checks_its_namesake() {
    let Some(dir) = two_files() else { return };
    let d = dir.path();
    let tarball = "go1.23.0.linux-amd64.tar.gz";
    std::fs::create_dir(d.join("dl")).unwrap();
    write_file(d, format!("dl/{tarball}"), b"a tarball\n");
    let line = lines_of(&d.join("dl"), "sha256sum", &[tarball]);
    let hex = &line[..64];
    write_file(d, format!("dl/{tarball}.sha256"), hex);
    let sums = format!("{tarball}.sha256");
    passes(
        &run_in(&d.join("dl"), &["-c", &sums]),
        &format!("{tarball}: OK\n"),
    );
    // from the parent directory: the file beside the check file, so named
    let down = format!("dl/{sums}");
    passes(&run_in(d, &["-c", &down]), &format!("dl/{tarball}: OK\n"));
    // a newline after it; upper-case hex
    let mut nl = hex.to_ascii_uppercase();
    nl.push(b'\n');
    write_file(d, format!("dl/{tarball}.sha256"), &nl);
    passes(&run_in(d, &["-c", &down]), &format!("dl/{tarball}: OK\n"));
    // the file changed
    write_file(d, format!("dl/{tarball}"), b"another tarball\n");
    let o = run_in(d, &["-c", &down]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        format!("dl/{tarball}: FAILED\n")
    );
    // a digest of another length than the name's: improper
    write_file(d, "x.sha512", hex);
    write_file(d, "x", b"");
    let o = run_in(d, &["-c", "x.sha512"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("no properly formatted"),
        "{}",
        shown(&o)
    );
    // GNU's name: GNU's rule (a line without a name is improper)
    let gnu = multicall(&d.join("dl"), "sha256sum")
        .current_dir(d.join("dl"))
        .args(["-c", &sums])
        .bounded_output()
        .unwrap();
    assert_eq!(gnu.status.code(), Some(1));
    assert!(
        stderr(&gnu).contains("no properly formatted"),
        "{}",
        shown(&gnu)
    );
}

/// `fastsum -c dl/SHA256SUMS` from dl's parent: the names are dl's, the
/// algorithm the name's; --json, --audit and --update read the lines by
/// the same rule.
#[test]
fn sums_one_directory_down_and_the_other_readers() {
    let Some(dir) = two_files() else { return };
    let d = dir.path();
    std::fs::create_dir(d.join("dl")).unwrap();
    write_file(d, "dl/a.iso", b"image\n");
    let sums = lines_of(&d.join("dl"), "sha256sum", &["a.iso"]);
    write_file(d, "dl/SHA256SUMS", &sums);
    passes(&run_in(d, &["-c", "dl/SHA256SUMS"]), "dl/a.iso: OK\n");
    let o = run_in(d, &["-c", "--json", "dl/SHA256SUMS"]);
    assert_eq!(o.status.code(), Some(0), "{}", shown(&o));
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        "{\"path\":\"dl/a.iso\",\"status\":\"OK\",\"algorithm\":\"sha256\"}\n"
    );
    // --audit: the same lines, the same algorithm
    let o = run_in(&d.join("dl"), &["-c", "SHA256SUMS", "--audit", "."]);
    assert_eq!(o.status.code(), Some(0), "{}", shown(&o));
    assert_eq!(String::from_utf8_lossy(&o.stdout), "a.iso: OK\n");
    assert_eq!(
        stderr(&o),
        "fastsum: audit: 1 OK, 0 FAILED, 0 UNREADABLE, 0 MISSING, 0 NEW, 0 MOVED\n"
    );
    write_file(d, "dl/checksums", &sums);
    let o = run_in(d, &["-c", "--json", "dl/checksums"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("64 hex digits may be"), "{}", shown(&o));
    // --update: SUMS's name's algorithm, for an empty SUMS too
    let dl = d.join("dl");
    write_file(&dl, "b.iso", b"another\n");
    let o = run_in(&dl, &["--update", "SHA256SUMS", "b.iso"]);
    assert_eq!(o.status.code(), Some(0), "{}", shown(&o));
    let mut want = sums.clone();
    want.extend(lines_of(&dl, "sha256sum", &["b.iso"]));
    assert_eq!(std::fs::read(dl.join("SHA256SUMS")).unwrap(), want);
    write_file(&dl, "SHA512SUMS", b"");
    let o = run_in(&dl, &["--update", "SHA512SUMS", "b.iso"]);
    assert_eq!(o.status.code(), Some(0), "{}", shown(&o));
    assert_eq!(
        std::fs::read(dl.join("SHA512SUMS")).unwrap(),
        lines_of(&dl, "sha512sum", &["b.iso"])
    );
    // an untagged SUMS of a shared length, named for nothing: refused
    let o = run_in(&dl, &["--update", "checksums", "b.iso"]);
    assert_eq!(o.status.code(), Some(1), "{}", shown(&o));
    assert!(stderr(&o).contains("say which with -a"), "{}", shown(&o));
}

/// GNU 9.9's base64 digests, and a tagged digest cut short (improper, as
/// the newest GNU has it), under fastsum's own name; sha256sum (GNU 9.1)
/// finds the base64 line improper, and fastsum does too under its name.
#[test]
fn what_only_fastsum_reads() {
    let Some(dir) = two_files() else { return };
    let d = dir.path();
    let b64 = fastsum()
        .current_dir(d)
        .args(["-a", "sha256", "--base64", "a"])
        .bounded_output()
        .unwrap();
    write_file(d, "SHA256SUMS", &b64.stdout);
    passes(&run_in(d, &["-c", "SHA256SUMS"]), "a: OK\n");
    let tagged = fastsum()
        .current_dir(d)
        .args(["-a", "sha256", "--base64", "--tag", "a"])
        .bounded_output()
        .unwrap();
    write_file(d, "sums", &tagged.stdout);
    passes(&run_in(d, &["-c", "sums"]), "a: OK\n");
    let gnu = crate::util::gnu("sha256sum")
        .current_dir(d)
        .args(["-c", "SHA256SUMS"])
        .bounded_output()
        .unwrap();
    let ours = multicall(d, "sha256sum")
        .current_dir(d)
        .args(["-c", "SHA256SUMS"])
        .bounded_output()
        .unwrap();
    assert_eq!(gnu.status.code(), Some(1));
    assert_eq!(
        (ours.status.code(), &ours.stdout, &ours.stderr),
        (gnu.status.code(), &gnu.stdout, &gnu.stderr)
    );
    // a tagged digest cut short: improper, not FAILED
    let text = String::from_utf8(lines_of(d, "sha256sum", &["--tag", "a"])).unwrap();
    let cut = format!("{}\n", &text.trim_end()[..text.trim_end().len() - 32]);
    let md5 = lines_of(d, "md5sum", &["a"]);
    let md5_64 = format!("MD5-64 (a) = {}\n", String::from_utf8_lossy(&md5[..16]));
    for line in [cut, md5_64] {
        write_file(d, "short", line.as_bytes());
        let o = run_in(d, &["-c", "short"]);
        assert_eq!(o.status.code(), Some(1), "{line}");
        assert!(o.stdout.is_empty(), "{line}: {}", shown(&o));
        assert_eq!(
            stderr(&o),
            "fastsum: short: no properly formatted checksum lines found\n",
            "{line}"
        );
    }
}
