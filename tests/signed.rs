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
    // minisign signs the bytes as they are (no text mode): a CR added to
    // each line end breaks it
    let sums = std::fs::read(d.join("SHA256SUMS")).unwrap();
    write_file(d, "SHA256SUMS", &line_ends(&sums, b"\r\r\n"));
    let (code, _, err) = check(d, &["--verify-with", "mini.pub", "SHA256SUMS"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("BAD signature"), "{err}");
    write_file(d, "SHA256SUMS", &sums);

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
    // signify signs the bytes as they are: a CR added breaks it too
    let embedded = std::fs::read(d.join("SHA256.sig")).unwrap();
    write_file(d, "CR.sig", &line_ends(&embedded, b"\r\r\n"));
    let (code, _, err) = check(d, &["--verify-with", "bsd.pub", "CR.sig"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("BAD signature"), "{err}");
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

/// One published shape of a signed check file, in `dir`: the command's
/// check file (as given to `-c`), the key, what a good run prints, and how
/// to spoil it.
struct Shape<'a> {
    /// What it is (for messages).
    what: &'a str,
    dir: &'a Path,
    /// `-c`'s argument, relative to `dir`.
    check: &'a str,
    /// The file that carries the signature: the check file itself
    /// (clear-signed, signify's embedded form) or the one beside it.
    carrier: &'a str,
    key: &'a str,
    wrong_key: &'a str,
    /// The files listed (relative to `dir`), and the OK lines.
    listed: &'a [&'a str],
    ok: &'a str,
    /// A digest written in the check file, changed after signing.
    sum: &'a str,
    /// Put a signature of other bytes in the carrier.
    other: &'a dyn Fn(),
}

impl Shape<'_> {
    /// `fastsum -c --verify-with KEY CHECK` in the shape's directory,
    /// without `-a`: the algorithm is the name's, a header's or the
    /// length's.
    fn run(&self, key: &str) -> (i32, String, String) {
        let out = fastsum()
            .current_dir(self.dir)
            .args(["-c", "--verify-with", key, self.check])
            .bounded_output()
            .unwrap();
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }

    /// The run's failure: exit 1, no status line, one message.
    fn fails(&self, case: &str, want: &str) {
        let (code, out, err) = self.run(self.key);
        assert_eq!(
            (code, out.as_str()),
            (1, ""),
            "{}: {case}: {err}",
            self.what
        );
        assert!(err.contains(want), "{}: {case}: {err}", self.what);
        assert_eq!(err.lines().count(), 1, "{}: {case}: {err}", self.what);
    }

    /// Every case: good; a changed sum, a changed file, a wrong key, a
    /// signature of other bytes, a cut signature; and (strace) no listed
    /// file opened when the signature fails.
    fn holds(&self) {
        let d = self.dir;
        let (code, out, err) = self.run(self.key);
        assert_eq!((code, out.as_str()), (0, self.ok), "{}: {err}", self.what);
        let shown = self.check.replace('\'', "");
        assert!(
            err.starts_with(&format!("fastsum: {shown}: signature good, by "))
                && err.lines().count() == 1,
            "{}: {err}",
            self.what
        );
        let keep = |name: &str| (d.join(name), std::fs::read(d.join(name)).unwrap());
        let restore =
            |(path, bytes): &(std::path::PathBuf, Vec<u8>)| std::fs::write(path, bytes).unwrap();
        let check = keep(self.check);
        let carrier = keep(self.carrier);
        let listed = keep(self.listed[0]);

        // a sum changed after signing
        let text = String::from_utf8(check.1.clone()).unwrap();
        assert!(text.contains(self.sum), "{}: {text}", self.what);
        let flipped = if self.sum.starts_with('0') { "1" } else { "0" };
        std::fs::write(
            &check.0,
            text.replacen(self.sum, &format!("{flipped}{}", &self.sum[1..]), 1),
        )
        .unwrap();
        self.fails("a changed sum", "BAD signature");
        self.no_listed_file_opened();
        restore(&check);

        // a listed file changed: the signature holds, the file fails
        write_file(d, self.listed[0], b"changed after the release\n");
        let (code, out, err) = self.run(self.key);
        assert_eq!(code, 1, "{}: {err}", self.what);
        assert!(out.contains(": FAILED\n"), "{}: {out}", self.what);
        assert!(err.contains("signature good"), "{}: {err}", self.what);
        restore(&listed);

        // another key
        let (code, out, err) = self.run(self.wrong_key);
        assert_eq!((code, out.as_str()), (1, ""), "{}: {err}", self.what);
        assert!(
            err.contains("signed by another key"),
            "{}: {err}",
            self.what
        );

        // a signature of other bytes
        (self.other)();
        self.fails("a signature of other bytes", "signature");
        restore(&carrier);
        restore(&check);

        // the signature cut short
        let cut = &carrier.1[..carrier.1.len() - 40];
        std::fs::write(&carrier.0, cut).unwrap();
        let (code, out, err) = self.run(self.key);
        assert_eq!((code, out.as_str()), (1, ""), "{}: cut: {err}", self.what);
        restore(&carrier);
    }

    /// The check file as it stands fails its signature: a traced run opens
    /// none of the files it lists.
    fn no_listed_file_opened(&self) {
        if !require_strace() {
            return;
        }
        let trace = self.dir.join("trace");
        let out = Command::new("strace")
            .current_dir(self.dir)
            .args(["-f", "-qq", "-e", "trace=open,openat", "-o"])
            .arg(&trace)
            .arg(crate::util::fastsum_path())
            .args(["-c", "--verify-with", self.key, self.check])
            .bounded_output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{}", self.what);
        let trace = std::fs::read_to_string(trace).unwrap();
        assert!(trace.contains(self.check), "{}: {trace}", self.what);
        for name in self.listed {
            let base = name.rsplit('/').next().unwrap_or(name);
            assert!(
                !trace.contains(&format!("\"{name}\"")) && !trace.contains(&format!("/{base}\"")),
                "{}: {name} opened: {trace}",
                self.what
            );
        }
    }
}

/// [`Shape::holds`] for the shape in `d`: its check file and the file that
/// carries its signature, its key and another, the files listed and the
/// OK lines, a digest in it, and how to sign other bytes.
fn holds(
    d: &Path,
    what: &str,
    [check, carrier]: [&str; 2],
    (key, wrong_key): (&str, &str),
    (listed, ok): (&[&str], &str),
    sum: &str,
    other: &dyn Fn(),
) {
    Shape {
        what,
        dir: d,
        check,
        carrier,
        key,
        wrong_key,
        listed,
        ok,
        sum,
        other,
    }
    .holds();
}

/// `tool` (sha256sum, …) over `files` in `d`: its lines, and the first
/// digest.
fn sums_by(d: &Path, tool: &str, args: &[&str]) -> (Vec<u8>, String) {
    let out = Command::new(tool)
        .current_dir(d)
        .args(args)
        .bounded_output()
        .unwrap();
    assert!(out.status.success(), "{tool} {args:?}");
    let text = String::from_utf8(out.stdout.clone()).unwrap();
    let hex = text
        .split(|c: char| !c.is_ascii_hexdigit())
        .find(|w| w.len() >= 40)
        .unwrap()
        .to_string();
    (out.stdout, hex)
}

/// The OpenPGP shapes projects publish, each signed here by gpg and checked
/// without `-a`: Node's clear-signed SHASUMS256.txt.asc, Fedora's
/// clear-signed BSD CHECKSUM, Debian's SHA512SUMS with a detached armoured
/// `.sign`, Ubuntu's kernel CHECKSUMS (a SHA-1 and a SHA-256 block) with a
/// binary `.gpg`, and a SHA256SUMS one directory down.
#[test]
fn openpgp_shapes_projects_publish() {
    let tools = ["gpg", "gpgv", "sha256sum", "sha512sum", "sha1sum"];
    if !tools.iter().all(|t| require_tool(t)) {
        return;
    }
    let dir = tempdir();
    let d = dir.path();
    gpg_key(d, "release");
    gpg_key(d, "mallory");
    write_file(d, "node.tar.gz", b"node\n");
    write_file(d, "node.zip", b"node zip\n");
    write_file(d, "other", b"other bytes\n");
    sign(d, &["--clearsign", "-o", "other.asc", "other"]);
    sign(
        d,
        &["--armor", "--detach-sign", "-o", "other.sign", "other"],
    );
    sign(d, &["--detach-sign", "-o", "other.gpg", "other"]);
    let other_armour = std::fs::read_to_string(d.join("other.asc")).unwrap();
    let other_signature = &other_armour[other_armour.find("-----BEGIN PGP SIGNATURE").unwrap()..];
    // a clear-signed file's sums with another text's signature
    let splice = |name: &str| {
        let text = std::fs::read_to_string(d.join(name)).unwrap();
        let at = text.find("-----BEGIN PGP SIGNATURE").unwrap();
        write_file(
            d,
            name,
            format!("{}{other_signature}", &text[..at]).as_bytes(),
        );
    };
    let copy = |from: &str, to: &str| std::fs::copy(d.join(from), d.join(to)).map(|_| ()).unwrap();

    // Node.js: SHASUMS256.txt.asc
    let (lines, sum) = sums_by(d, "sha256sum", &["node.tar.gz", "node.zip"]);
    write_file(d, "SHASUMS256.txt", &lines);
    sign(
        d,
        &["--clearsign", "-o", "SHASUMS256.txt.asc", "SHASUMS256.txt"],
    );
    holds(
        d,
        "Node.js",
        ["SHASUMS256.txt.asc", "SHASUMS256.txt.asc"],
        ("release.asc", "mallory.asc"),
        (
            &["node.tar.gz", "node.zip"],
            "node.tar.gz: OK\nnode.zip: OK\n",
        ),
        &sum,
        &|| splice("SHASUMS256.txt.asc"),
    );

    // Fedora: CHECKSUM, BSD-tagged lines and `# NAME: N bytes` comments
    write_file(d, "Fedora-41-x86_64.iso", b"fedora\n");
    let (tagged, sum) = sums_by(d, "sha256sum", &["--tag", "Fedora-41-x86_64.iso"]);
    let mut fedora = b"# Fedora-41-x86_64.iso: 7 bytes\n".to_vec();
    fedora.extend(tagged);
    write_file(d, "Fedora-41-x86_64-CHECKSUM.txt", &fedora);
    sign(
        d,
        &[
            "--clearsign",
            "-o",
            "Fedora-41-x86_64-CHECKSUM",
            "Fedora-41-x86_64-CHECKSUM.txt",
        ],
    );
    holds(
        d,
        "Fedora",
        ["Fedora-41-x86_64-CHECKSUM", "Fedora-41-x86_64-CHECKSUM"],
        ("release.asc", "mallory.asc"),
        (&["Fedora-41-x86_64.iso"], "Fedora-41-x86_64.iso: OK\n"),
        &sum,
        &|| splice("Fedora-41-x86_64-CHECKSUM"),
    );

    // Debian: SHA512SUMS and SHA512SUMS.sign (armoured, detached)
    write_file(d, "debian.iso", b"debian\n");
    let (lines, sum) = sums_by(d, "sha512sum", &["debian.iso", "node.zip"]);
    write_file(d, "SHA512SUMS", &lines);
    sign(
        d,
        &[
            "--armor",
            "--detach-sign",
            "-o",
            "SHA512SUMS.sign",
            "SHA512SUMS",
        ],
    );
    holds(
        d,
        "Debian",
        ["SHA512SUMS", "SHA512SUMS.sign"],
        ("release.asc", "mallory.asc"),
        (
            &["debian.iso", "node.zip"],
            "debian.iso: OK\nnode.zip: OK\n",
        ),
        &sum,
        &|| copy("other.sign", "SHA512SUMS.sign"),
    );

    // Ubuntu's kernel: CHECKSUMS (a SHA-1 block, a SHA-256 block) and a
    // binary CHECKSUMS.gpg
    write_file(d, "linux.deb", b"a kernel\n");
    let (sha1, _) = sums_by(d, "sha1sum", &["linux.deb"]);
    let (sha256, sum) = sums_by(d, "sha256sum", &["linux.deb"]);
    let mut mixed = b"# Checksums, check with the command below:\n#     shasum -c CHECKSUMS\n#\n# Checksums-Sha1:\n".to_vec();
    mixed.extend(sha1);
    mixed.extend_from_slice(b"#\n# Checksums-Sha256:\n");
    mixed.extend(sha256);
    write_file(d, "CHECKSUMS", &mixed);
    sign(d, &["--detach-sign", "-o", "CHECKSUMS.gpg", "CHECKSUMS"]);
    holds(
        d,
        "Ubuntu kernel",
        ["CHECKSUMS", "CHECKSUMS.gpg"],
        ("release.asc", "mallory.asc"),
        (&["linux.deb"], "linux.deb: OK\nlinux.deb: OK\n"),
        &sum,
        &|| copy("other.gpg", "CHECKSUMS.gpg"),
    );

    // SHA256SUMS one directory down, its signature beside it, its names
    // resolved there
    std::fs::create_dir(d.join("dl")).unwrap();
    write_file(d, "dl/ubuntu.iso", b"ubuntu\n");
    let (lines, sum) = sums_by(&d.join("dl"), "sha256sum", &["ubuntu.iso"]);
    write_file(d, "dl/SHA256SUMS", &lines);
    sign(
        d,
        &["--detach-sign", "-o", "dl/SHA256SUMS.gpg", "dl/SHA256SUMS"],
    );
    holds(
        d,
        "one directory down",
        ["dl/SHA256SUMS", "dl/SHA256SUMS.gpg"],
        ("release.asc", "mallory.asc"),
        (&["dl/ubuntu.iso"], "dl/ubuntu.iso: OK\n"),
        &sum,
        &|| copy("other.gpg", "dl/SHA256SUMS.gpg"),
    );

    // the keyring as GnuPG keeps it (a keybox, pubring.kbx): gpgv reads it
    let out = fastsum()
        .current_dir(d)
        .args(["-c", "--verify-with", "gnupg/pubring.kbx", "SHA512SUMS"])
        .bounded_output()
        .unwrap();
    assert_eq!(
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).as_ref()
        ),
        (Some(0), "debian.iso: OK\nnode.zip: OK\n"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The Ed25519 shapes: OpenBSD's SHA256.sig (signify, the BSD-tagged sums
/// embedded), a minisign-signed SHA256SUMS, and Go's bare `.sha256` with a
/// minisign signature beside it; each checked without `-a`.
#[test]
fn ed25519_shapes_projects_publish() {
    let tools = ["minisign", "signify-openbsd", "sha256sum"];
    if !tools.iter().all(|t| require_tool(t)) {
        return;
    }
    let dir = tempdir();
    let d = dir.path();
    for (p, s) in [("bsd.pub", "bsd.sec"), ("bsd2.pub", "bsd2.sec")] {
        tool(d, &["signify-openbsd", "-G", "-n", "-p", p, "-s", s]);
    }
    for (p, s) in [("mini.pub", "mini.key"), ("mini2.pub", "mini2.key")] {
        tool(d, &["minisign", "-G", "-W", "-p", p, "-s", s]);
    }
    write_file(d, "other", b"other bytes\n");
    tool(
        d,
        &[
            "signify-openbsd",
            "-S",
            "-e",
            "-s",
            "bsd.sec",
            "-m",
            "other",
            "-x",
            "other.sig",
        ],
    );
    tool(d, &["minisign", "-S", "-s", "mini.key", "-m", "other"]);

    // OpenBSD: SHA256.sig, `SHA256 (f) = hex` lines under signify's two
    write_file(d, "base77.tgz", b"base\n");
    write_file(d, "bsd.rd", b"ramdisk\n");
    let (tagged, sum) = sums_by(d, "sha256sum", &["--tag", "base77.tgz", "bsd.rd"]);
    write_file(d, "SHA256", &tagged);
    tool(
        d,
        &[
            "signify-openbsd",
            "-S",
            "-e",
            "-s",
            "bsd.sec",
            "-m",
            "SHA256",
            "-x",
            "SHA256.sig",
        ],
    );
    let embedded_other = || {
        // another message's signature line over these sums
        let other = std::fs::read_to_string(d.join("other.sig")).unwrap();
        let ours = std::fs::read_to_string(d.join("SHA256.sig")).unwrap();
        let head: String = other.lines().take(2).map(|l| format!("{l}\n")).collect();
        let body: String = ours.lines().skip(2).map(|l| format!("{l}\n")).collect();
        write_file(d, "SHA256.sig", format!("{head}{body}").as_bytes());
    };
    holds(
        d,
        "OpenBSD",
        ["SHA256.sig", "SHA256.sig"],
        ("bsd.pub", "bsd2.pub"),
        (&["base77.tgz", "bsd.rd"], "base77.tgz: OK\nbsd.rd: OK\n"),
        &sum,
        &embedded_other,
    );

    // minisign: SHA256SUMS and SHA256SUMS.minisig
    let (lines, sum) = sums_by(d, "sha256sum", &["base77.tgz", "bsd.rd"]);
    write_file(d, "SHA256SUMS", &lines);
    tool(d, &["minisign", "-S", "-s", "mini.key", "-m", "SHA256SUMS"]);
    let copy = |from: &str, to: &str| std::fs::copy(d.join(from), d.join(to)).map(|_| ()).unwrap();
    holds(
        d,
        "minisign",
        ["SHA256SUMS", "SHA256SUMS.minisig"],
        ("mini.pub", "mini2.pub"),
        (&["base77.tgz", "bsd.rd"], "base77.tgz: OK\nbsd.rd: OK\n"),
        &sum,
        &|| copy("other.minisig", "SHA256SUMS.minisig"),
    );

    // Go: go1.23.0.linux-amd64.tar.gz.sha256, only the hex (no newline)
    let go = "go1.23.0.linux-amd64.tar.gz";
    write_file(d, go, b"go\n");
    let (_, sum) = sums_by(d, "sha256sum", &[go]);
    let bare = format!("{go}.sha256");
    write_file(d, &bare, sum.as_bytes());
    tool(d, &["minisign", "-S", "-s", "mini.key", "-m", &bare]);
    let sig = format!("{bare}.minisig");
    holds(
        d,
        "Go",
        [&bare, &sig],
        ("mini.pub", "mini2.pub"),
        (&[go], &format!("{go}: OK\n")),
        &sum,
        &|| copy("other.minisig", &sig),
    );
}

/// gpg in `d`'s home (`d/gnupg`, made if missing), with `args`, the clock
/// set to `time` when one is given (`--faked-system-time`: keys and
/// signatures made in the past, so that they have expired by now); its
/// stdout.
fn gpg_at(d: &Path, time: Option<&str>, args: &[&str]) -> String {
    let home = d.join("gnupg");
    if !home.exists() {
        std::fs::create_dir(&home).unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&home, std::fs::Permissions::from_mode(0o700)).unwrap();
    }
    let mut all = vec!["--batch", "--yes", "--passphrase", ""];
    all.extend_from_slice(&["--pinentry-mode", "loopback"]);
    if let Some(t) = time {
        all.extend_from_slice(&["--faked-system-time", t]);
    }
    all.extend_from_slice(args);
    let out = Command::new("gpg")
        .args(&all)
        .current_dir(d)
        .env("GNUPGHOME", &home)
        .stdin(Stdio::null())
        .bounded_output()
        .unwrap();
    assert!(
        out.status.success(),
        "gpg {all:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The fingerprints of `who`'s primary key and subkeys, in that order.
fn fingerprints(d: &Path, who: &str) -> Vec<String> {
    gpg_at(d, None, &["--with-colons", "--list-keys", who])
        .lines()
        .filter_map(|l| l.strip_prefix("fpr:"))
        .map(|l| l.trim_matches(':').to_string())
        .collect()
}

/// `fastsum -a sha256 -c --verify-with KEY --signature SIG SUMS` in `d`
/// fails: exit 1, nothing on stdout, one message that says `want`.
fn refused(d: &Path, key: &str, sig: &str, sums: &str, want: &[&str]) {
    let args = ["--verify-with", key, "--signature", sig, sums];
    let (code, out, err) = check(d, &args);
    assert_eq!((code, out.as_str()), (1, ""), "{args:?}: {err}");
    assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
    for w in want {
        assert!(err.contains(w), "{args:?}: no {w:?} in {err}");
    }
}

/// `who`'s public key exported, armoured, to `file` in `d`.
fn export(d: &Path, who: &str, file: &str) {
    let key = gpg_at(d, None, &["--armor", "--export", who]);
    write_file(d, file, key.as_bytes());
}

/// A detached signature of `d/SHA256SUMS` by `who` in `out`, made at
/// `time`, with `more` of gpg's options.
fn sign_at(d: &Path, who: &str, time: &str, out: &str, more: &[&str]) {
    let mut args = vec!["-u", who, "--detach-sign", "-o", out];
    args.extend_from_slice(more);
    args.push("SHA256SUMS");
    gpg_at(d, Some(time), &args);
}

/// `fastsum -a sha256 -c --verify-with KEY --signature SIG SHA256SUMS` in
/// `d` holds: both files OK.
fn holds_with(d: &Path, key: &str, sig: &str) {
    let args = ["--verify-with", key, "--signature", sig, "SHA256SUMS"];
    let (code, out, err) = check(d, &args);
    assert_eq!((code, out.as_str()), (0, "a.iso: OK\nb.tar: OK\n"), "{err}");
}

/// A key made in 2020 that expired a day later, and a signature it made
/// then: gpgv says "Good signature" (EXPKEYSIG) and exits 0, apt counts
/// the signer worthless, and so does fastsum: exit 1, no line checked.
/// The key's life extended and published again: good again. (KEYEXPIRED
/// without EXPKEYSIG: a unit test over gpgv's transcript, in
/// src/signature/openpgp.rs.)
#[test]
fn openpgp_expired_key() {
    let Some(dir) = fixture(&["gpg", "gpgv"]) else {
        return;
    };
    let d = dir.path();
    let made = Some("20200101T000000");
    let uid = "old <old@example.org>";
    gpg_at(d, made, &["--quick-gen-key", uid, "ed25519", "sign", "1d"]);
    sign_at(d, "old@example.org", "20200101T010000", "old.sig", &[]);
    export(d, "old@example.org", "old.asc");
    let old = fingerprints(d, "old@example.org");
    let want = [
        "signed by an expired key, OpenPGP key",
        &old[0],
        "EXPKEYSIG",
    ];
    refused(d, "old.asc", "old.sig", "SHA256SUMS", &want);
    gpg_at(d, None, &["--quick-set-expire", &old[0], "never"]);
    export(d, "old@example.org", "renewed.asc");
    holds_with(d, "renewed.asc", "old.sig");
}

/// A key that does not expire: a signature that expired a day after it
/// was made (EXPSIG; gpgv exits 1 and says so in its words), and one made
/// after the key was revoked (REVKEYSIG: gpgv says "Good signature" and
/// exits 0): each refused with its own message, exit 1, no line checked.
/// (KEYREVOKED, which gpgv never says, gpg does: a unit test over its
/// transcript, in src/signature/openpgp.rs.)
#[test]
fn openpgp_expired_signature_and_revoked_key() {
    let Some(dir) = fixture(&["gpg", "gpgv"]) else {
        return;
    };
    let d = dir.path();
    let made = Some("20200101T000000");
    let uid = "rel <rel@example.org>";
    gpg_at(
        d,
        made,
        &["--quick-gen-key", uid, "ed25519", "sign", "never"],
    );
    let rel = fingerprints(d, "rel@example.org");
    let who = "rel@example.org";
    sign_at(
        d,
        who,
        "20200101T010000",
        "short.sig",
        &["--default-sig-expire", "1d"],
    );
    export(d, who, "rel.asc");
    let want = ["an expired signature, by OpenPGP key", &rel[0], "EXPSIG"];
    refused(d, "rel.asc", "short.sig", "SHA256SUMS", &want);
    // the revocation certificate gpg made with the key (dated the key's
    // making), imported; a signature made after it
    sign_at(d, who, "20200103T000000", "after.sig", &[]);
    let rev = std::fs::read_to_string(d.join(format!("gnupg/openpgp-revocs.d/{}.rev", rel[0])))
        .unwrap()
        .replace(":-----BEGIN", "-----BEGIN");
    write_file(d, "rel.rev", rev.as_bytes());
    gpg_at(d, None, &["--import", "rel.rev"]);
    export(d, who, "revoked.asc");
    let want = ["signed by a revoked key, OpenPGP key", &rel[0], "REVKEYSIG"];
    refused(d, "revoked.asc", "after.sig", "SHA256SUMS", &want);
    // the same signature with the key as it was before: it holds
    holds_with(d, "rel.asc", "after.sig");
}

/// A key that only certifies, with a signing subkey that signs, given to
/// `--verify-with` as exported by its primary fingerprint (the one
/// projects publish): the signature is good, and the signer named is that
/// fingerprint, its subkey's after it.
#[test]
fn openpgp_signing_subkey_names_the_primary_key() {
    let Some(dir) = fixture(&["gpg", "gpgv"]) else {
        return;
    };
    let d = dir.path();
    let uid = "sub <sub@example.org>";
    gpg_at(
        d,
        None,
        &["--quick-gen-key", uid, "ed25519", "cert", "never"],
    );
    let primary = fingerprints(d, "sub@example.org").remove(0);
    gpg_at(
        d,
        None,
        &["--quick-add-key", &primary, "ed25519", "sign", "never"],
    );
    let fprs = fingerprints(d, "sub@example.org");
    assert_eq!(fprs.len(), 2, "{fprs:?}");
    gpg_at(
        d,
        None,
        &[
            "-u",
            "sub@example.org",
            "--detach-sign",
            "-o",
            "SHA256SUMS.sig",
            "SHA256SUMS",
        ],
    );
    // the key as fetched by its primary fingerprint: the subkeys come with it
    let key = gpg_at(d, None, &["--armor", "--export", &primary]);
    write_file(d, "sub.asc", key.as_bytes());
    let (code, out, err) = check(d, &["--verify-with", "sub.asc", "SHA256SUMS"]);
    assert_eq!((code, out.as_str()), (0, "a.iso: OK\nb.tar: OK\n"), "{err}");
    let want = format!(
        "fastsum: SHA256SUMS: signature good, by OpenPGP key {primary} (sub <sub@example.org>), signing subkey {}\n",
        fprs[1]
    );
    assert_eq!(err, want);
}

/// An OpenPGP key with a minisign signature: "an OpenPGP key", not "a".
#[test]
fn openpgp_key_with_a_signature_of_another_kind() {
    let Some(dir) = fixture(&["gpg", "minisign"]) else {
        return;
    };
    let d = dir.path();
    gpg_key(d, "release");
    tool(
        d,
        &["minisign", "-G", "-W", "-p", "mini.pub", "-s", "mini.key"],
    );
    tool(d, &["minisign", "-S", "-s", "mini.key", "-m", "SHA256SUMS"]);
    let (code, out, err) = check(d, &["--verify-with", "release.asc", "SHA256SUMS"]);
    assert_eq!((code, out.as_str()), (1, ""), "{err}");
    assert_eq!(
        err,
        "fastsum: SHA256SUMS: a minisign signature cannot be verified with an OpenPGP key\n"
    );
}

/// `text` with each line end (`\n`) made `end`.
fn line_ends(text: &[u8], end: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    for line in text.split_inclusive(|&b| b == b'\n') {
        match line.strip_suffix(b"\n") {
            Some(l) => {
                out.extend_from_slice(l);
                out.extend_from_slice(end);
            }
            None => out.extend_from_slice(line),
        }
    }
    out
}

/// `fastsum -a sha256 -c --verify-with release.asc ARGS` in `d` holds:
/// both files OK.
fn holds_as_released(d: &Path, args: &[&str]) {
    let (code, out, err) = check(d, &[&["--verify-with", "release.asc"], args].concat());
    assert_eq!((code, out.as_str()), (0, "a.iso: OK\nb.tar: OK\n"), "{err}");
}

/// A detached text-mode OpenPGP signature (`gpg --textmode`, class 0x01)
/// holds when each line end becomes CR CR LF (gpgv drops a line's
/// trailing CRs), where fastsum read the names `a.iso\r`, `b.tar\r` (and,
/// with such files here, found them good): the line is refused, the name
/// read from it not being one the signature covers one to one. CR LF line
/// ends are read as ever, and a binary signature covers every byte.
#[test]
fn openpgp_text_mode_detached_signature_and_line_ends() {
    let Some(dir) = fixture(&["gpg", "gpgv"]) else {
        return;
    };
    let d = dir.path();
    gpg_key(d, "release");
    write_file(d, "a.iso\r", b"an image\n");
    write_file(d, "b.tar\r", b"an archive\n");
    let sums = std::fs::read(d.join("SHA256SUMS")).unwrap();
    let textmode = ["--textmode", "--detach-sign", "-o", "SHA256SUMS.sig"];
    sign(d, &[&textmode[..], &["SHA256SUMS"]].concat());
    holds_as_released(d, &["SHA256SUMS"]);
    write_file(d, "SHA256SUMS", &line_ends(&sums, b"\r\n"));
    holds_as_released(d, &["SHA256SUMS"]);
    write_file(d, "SHA256SUMS", &line_ends(&sums, b"\r\r\n"));
    let want = ["line 1", "carriage return", "text-mode"];
    refused(d, "release.asc", "SHA256SUMS.sig", "SHA256SUMS", &want);
    // a binary signature of the CR CR LF bytes covers them all: GNU's
    // reading, the names with their CR
    sign(d, &["--detach-sign", "-o", "binary.sig", "SHA256SUMS"]);
    let args = ["--signature", "binary.sig", "SHA256SUMS"];
    let (code, out, err) = check(d, &[&["--verify-with", "release.asc"][..], &args].concat());
    assert_eq!(
        (code, out.as_str()),
        (0, "a.iso\r: OK\nb.tar\r: OK\n"),
        "{err}"
    );
}

/// A clear-signed text (always text mode) holds when a line gains a
/// trailing space, tab or CR (OpenPGP drops them; gpgv's output has the
/// name without them, `b.tar` where the file says `b.tar `): refused, with
/// the line's number in the file. CR LF throughout is read as ever. gpg
/// signs a line longer than 19,995 bytes cut short: refused.
#[test]
fn openpgp_clear_signed_text_and_line_ends() {
    let Some(dir) = fixture(&["gpg", "gpgv"]) else {
        return;
    };
    let d = dir.path();
    gpg_key(d, "release");
    sign(d, &["--clearsign", "-o", "SUMS.asc", "SHA256SUMS"]);
    let signed = std::fs::read_to_string(d.join("SUMS.asc")).unwrap();
    write_file(d, "b.tar ", b"an archive\n");
    for (end, what) in [
        (" \n", "space"),
        ("\t\n", "tab"),
        ("\r\r\n", "carriage return"),
    ] {
        let changed = signed.replacen("b.tar\n", &format!("b.tar{end}"), 1);
        write_file(d, "changed.asc", changed.as_bytes());
        let (code, out, err) = check(d, &["--verify-with", "release.asc", "changed.asc"]);
        assert_eq!((code, out.as_str()), (1, ""), "{what}: {err}");
        assert!(
            err.contains("line 5") && err.contains(what),
            "{what}: {err}"
        );
    }
    write_file(d, "crlf.asc", &line_ends(signed.as_bytes(), b"\r\n"));
    holds_as_released(d, &["crlf.asc"]);

    // gpg says it cannot handle the long line, and signs (and writes) it
    // cut short, a name never meant
    let long = format!("{}  {}\n", "0".repeat(64), "n".repeat(30_000));
    write_file(d, "LONG", long.as_bytes());
    Command::new("gpg")
        .args(["--batch", "-u", "release@example.org"])
        .args(["--clearsign", "-o", "LONG.asc", "LONG"])
        .env("GNUPGHOME", d.join("gnupg"))
        .current_dir(d)
        .stdin(Stdio::null())
        .bounded_output()
        .unwrap();
    if d.join("LONG.asc").exists() {
        let (code, out, err) = check(d, &["--verify-with", "release.asc", "LONG.asc"]);
        assert_eq!((code, out.as_str()), (1, ""), "{err}");
        assert!(err.contains("line 4 is longer"), "{err}");
    }
}
