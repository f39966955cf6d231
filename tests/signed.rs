//! Signed check files (`--verify-with`, issue 33 §2), in the shapes
//! projects publish, signed here by the real tools: OpenPGP clear-signed
//! and detached (gpg), minisign beside the sums, signify's embedded form.
//! A good signature: OK lines, who signed on stderr, exit 0. A changed sum,
//! another key, no signature: exit 1, one message, and no listed file
//! opened (strace).

use std::path::Path;
use std::process::{Command, Stdio};

use crate::util::{Bounded, fastsum, require_strace, require_tool, tempdir, write_file};

/// Two files and the SHA-256 sums of them, as `sha256sum` writes them.
fn sums(d: &Path) -> Vec<u8> {
    write_file(d, "a.iso", b"an image\n");
    write_file(d, "b.tar", b"an archive\n");
    let out = Command::new("sha256sum")
        .current_dir(d)
        .args(["a.iso", "b.tar"])
        .bounded_output()
        .unwrap();
    assert!(out.status.success());
    out.stdout
}

/// A directory with two files and `SHA256SUMS` of them, if `tools` (and
/// sha256sum) are here (else the test skips, or fails under CI).
fn fixture(tools: &[&str]) -> Option<tempfile::TempDir> {
    if !tools.iter().chain(&["sha256sum"]).all(|t| require_tool(t)) {
        return None;
    }
    let dir = tempdir();
    write_file(dir.path(), "SHA256SUMS", &sums(dir.path()));
    Some(dir)
}

/// Run a signing tool in `d` (gpg with its home in `d/gnupg`).
fn tool(d: &Path, args: &[&str]) {
    let out = Command::new(args[0])
        .args(&args[1..])
        .current_dir(d)
        .env("GNUPGHOME", d.join("gnupg"))
        .stdin(Stdio::null())
        .bounded_output()
        .unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// gpg signing as release@example.org in `d`, with `args`.
fn sign(d: &Path, args: &[&str]) {
    let mut all = vec!["gpg", "--batch", "-u", "release@example.org"];
    all.extend_from_slice(args);
    tool(d, &all);
}

/// A gpg key for `who` in `d`'s home, exported armoured to `who.asc`.
fn gpg_key(d: &Path, who: &str) {
    let home = d.join("gnupg");
    if !home.exists() {
        std::fs::create_dir(&home).unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&home, std::fs::Permissions::from_mode(0o700)).unwrap();
    }
    let uid = format!("{who} <{who}@example.org>");
    tool(
        d,
        &[
            "gpg",
            "--batch",
            "--passphrase",
            "",
            "--quick-gen-key",
            &uid,
            "ed25519",
            "sign",
            "never",
        ],
    );
    let out = Command::new("gpg")
        .args(["--armor", "--export", &format!("{who}@example.org")])
        .env("GNUPGHOME", &home)
        .bounded_output()
        .unwrap();
    write_file(d, format!("{who}.asc"), &out.stdout);
}

/// `fastsum -a sha256 -c ARGS` in `d`: exit code, stdout, stderr.
fn check(d: &Path, args: &[&str]) -> (i32, String, String) {
    let out = fastsum()
        .current_dir(d)
        .args(["-a", "sha256", "-c"])
        .args(args)
        .bounded_output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn openpgp_clear_signed_and_detached() {
    let Some(dir) = fixture(&["gpg", "gpgv"]) else {
        return;
    };
    let d = dir.path();
    gpg_key(d, "release");
    gpg_key(d, "mallory");
    sign(
        d,
        &["--clearsign", "-o", "SHASUMS256.txt.asc", "SHA256SUMS"],
    );
    sign(d, &["--detach-sign", "-o", "SHA256SUMS.gpg", "SHA256SUMS"]);

    // clear-signed, as Node.js publishes it: the sums, no warning
    let (code, out, err) = check(d, &["--verify-with", "release.asc", "SHASUMS256.txt.asc"]);
    assert_eq!((code, out.as_str()), (0, "a.iso: OK\nb.tar: OK\n"), "{err}");
    assert!(
        err.starts_with("fastsum: SHASUMS256.txt.asc: signature good, by OpenPGP key "),
        "{err}"
    );
    assert!(
        err.contains("release@example.org") && !err.contains("improperly"),
        "{err}"
    );
    // detached, found beside the sums (SHA256SUMS.gpg)
    let (code, out, err) = check(d, &["--verify-with", "release.asc", "SHA256SUMS"]);
    assert_eq!((code, out.as_str()), (0, "a.iso: OK\nb.tar: OK\n"), "{err}");
    // without a key: the armour is read as such, the sums checked, no
    // warning (the signature is not checked: nothing says it held)
    let (code, out, err) = check(d, &["-w", "SHASUMS256.txt.asc"]);
    assert_eq!(
        (code, out.as_str(), err.as_str()),
        (0, "a.iso: OK\nb.tar: OK\n", "")
    );
    // what stands outside the armour is still improper, and --strict fails it
    let mut outside = std::fs::read(d.join("SHASUMS256.txt.asc")).unwrap();
    outside.extend_from_slice(b"junk after the signature\n");
    write_file(d, "outside.asc", &outside);
    let (code, _, err) = check(d, &["--strict", "-w", "outside.asc"]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("WARNING: 1 line is improperly formatted"),
        "{err}"
    );
    // under GNU's name, GNU's rules: the armour's lines are improper
    let gnu = crate::util::multicall(d, "sha256sum")
        .current_dir(d)
        .args(["-c", "SHASUMS256.txt.asc"])
        .bounded_output()
        .unwrap();
    assert!(String::from_utf8_lossy(&gnu.stderr).contains("improperly formatted"));
    // another key
    let (code, out, err) = check(d, &["--verify-with", "mallory.asc", "SHASUMS256.txt.asc"]);
    assert_eq!((code, out.as_str()), (1, ""));
    assert!(err.contains("signed by another key"), "{err}");
    // a sum changed after signing
    let signed = std::fs::read_to_string(d.join("SHASUMS256.txt.asc")).unwrap();
    let first = &signed[signed.find("\n\n").unwrap() + 2..][..4];
    write_file(
        d,
        "changed.asc",
        signed.replacen(first, "0000", 1).as_bytes(),
    );
    let (code, out, err) = check(d, &["--verify-with", "release.asc", "changed.asc"]);
    assert_eq!((code, out.as_str()), (1, ""));
    assert!(err.contains("BAD signature"), "{err}");
    // an armour cut short
    write_file(d, "cut.asc", &signed.as_bytes()[..signed.len() - 40]);
    let (code, out, err) = check(d, &["--verify-with", "release.asc", "cut.asc"]);
    assert_eq!((code, out.as_str()), (1, ""), "{err}");
    // the plain sums with a signature of other bytes, named
    write_file(d, "other", b"other bytes\n");
    sign(d, &["--detach-sign", "-o", "other.sig", "other"]);
    let (code, _, err) = check(
        d,
        &[
            "--verify-with",
            "release.asc",
            "--signature",
            "other.sig",
            "SHA256SUMS",
        ],
    );
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("BAD signature"), "{err}");
}

#[test]
fn minisign_beside_and_signify_embedded() {
    let Some(dir) = fixture(&["minisign", "signify-openbsd"]) else {
        return;
    };
    let d = dir.path();
    tool(
        d,
        &["minisign", "-G", "-W", "-p", "mini.pub", "-s", "mini.key"],
    );
    tool(
        d,
        &[
            "minisign",
            "-S",
            "-s",
            "mini.key",
            "-m",
            "SHA256SUMS",
            "-t",
            "release 1.0",
        ],
    );
    let (code, out, err) = check(d, &["--verify-with", "mini.pub", "SHA256SUMS"]);
    assert_eq!((code, out.as_str()), (0, "a.iso: OK\nb.tar: OK\n"), "{err}");
    assert!(
        err.contains("signature good, by minisign/signify key") && err.contains("release 1.0"),
        "{err}"
    );

    // OpenBSD's SHA256.sig: the sums under signify's two lines
    tool(
        d,
        &[
            "signify-openbsd",
            "-G",
            "-n",
            "-p",
            "bsd.pub",
            "-s",
            "bsd.sec",
        ],
    );
    tool(
        d,
        &[
            "signify-openbsd",
            "-S",
            "-e",
            "-s",
            "bsd.sec",
            "-m",
            "SHA256SUMS",
            "-x",
            "SHA256.sig",
        ],
    );
    let (code, out, err) = check(d, &["--verify-with", "bsd.pub", "SHA256.sig"]);
    assert_eq!((code, out.as_str()), (0, "a.iso: OK\nb.tar: OK\n"), "{err}");
    // the wrong kind of key for it, and a check file with no signature at all
    let (code, _, err) = check(d, &["--verify-with", "mini.pub", "SHA256.sig"]);
    assert_eq!(code, 1);
    assert!(err.contains("signed by another key"), "{err}");
    write_file(d, "UNSIGNED", b"");
    let (code, _, err) = check(d, &["--verify-with", "bsd.pub", "UNSIGNED"]);
    assert_eq!(code, 1);
    assert!(err.contains("no signature"), "{err}");
}

/// A signature that does not hold opens none of the files the check file
/// lists.
#[test]
fn no_listed_file_is_opened_unless_the_signature_holds() {
    if !require_strace() {
        return;
    }
    let Some(dir) = fixture(&["minisign"]) else {
        return;
    };
    let d = dir.path();
    tool(
        d,
        &["minisign", "-G", "-W", "-p", "mini.pub", "-s", "mini.key"],
    );
    tool(d, &["minisign", "-S", "-s", "mini.key", "-m", "SHA256SUMS"]);
    let mut sums = std::fs::read(d.join("SHA256SUMS")).unwrap();
    sums[0] ^= 1;
    write_file(d, "SHA256SUMS", &sums);
    let out = Command::new("strace")
        .current_dir(d)
        .args(["-f", "-qq", "-e", "trace=open,openat", "-o", "trace"])
        .arg(crate::util::fastsum_path())
        .args([
            "-a",
            "sha256",
            "-c",
            "--verify-with",
            "mini.pub",
            "SHA256SUMS",
        ])
        .bounded_output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let trace = std::fs::read_to_string(d.join("trace")).unwrap();
    assert!(trace.contains("SHA256SUMS.minisig"), "{trace}");
    assert!(
        !trace.contains("a.iso") && !trace.contains("b.tar"),
        "{trace}"
    );
}

#[test]
fn refusals() {
    let dir = tempdir();
    let d = dir.path();
    write_file(d, "k", b"not a key\n");
    write_file(d, "SUMS", b"");
    let (code, _, err) = check(d, &["--verify-with", "k", "SUMS"]);
    assert_eq!(code, 1);
    assert!(err.contains("k: not a public key"), "{err}");
    let (code, _, err) = check(d, &["--verify-with", "nothere", "SUMS"]);
    assert_eq!(code, 1);
    assert!(err.contains("nothere: No such file or directory"), "{err}");
    // without -c: a usage error, as --audit's
    let out = fastsum()
        .current_dir(d)
        .args(["--verify-with", "k", "SUMS"])
        .bounded_output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--verify-with"));
    // a signature with no key to verify it: refused, not ignored
    let out = fastsum()
        .current_dir(d)
        .args(["-c", "--signature", "k", "SUMS"])
        .bounded_output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("the --signature option is meaningful only with --verify-with")
    );
}
