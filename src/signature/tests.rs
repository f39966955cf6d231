//! Keys and signatures made by the real tools (gpg, minisign,
//! signify-openbsd), verified here: good ones hold, a changed byte, another
//! key and the wrong kind are refused. A missing tool skips its test with
//! a message, and fails it under `CI=true` (`.ci/run` installs them).

use std::path::Path;
use std::process::{Command, Stdio};

use super::*;

const SUMS: &[u8] =
    b"d41d8cd98f00b204e9800998ecf8427e  empty\n0cc175b9c0f1b6a831c399e269772661  a\n";

/// Is `tool` here? If not: fail under CI, else say the test skips.
fn have(tool: &str) -> bool {
    let ok = Command::new(tool)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok();
    if !ok {
        assert!(
            std::env::var_os("CI").is_none(),
            "{tool} is needed (.ci/run installs it)"
        );
        eprintln!("skipped: {tool} is not installed");
    }
    ok
}

/// Run `cmd` in `dir` with `stdin`; panics unless it succeeds.
fn run(dir: &Path, cmd: &[&str], stdin: &[u8]) {
    let mut child = Command::new(cmd[0])
        .args(&cmd[1..])
        .current_dir(dir)
        .env("GNUPGHOME", dir.join("gnupg"))
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{cmd:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

use std::io::Write;

/// A gpg home in `dir` with a fresh key for `who`; its public key, armoured.
fn gpg_key(dir: &Path, who: &str) -> Vec<u8> {
    let home = dir.join("gnupg");
    if !home.exists() {
        std::fs::create_dir(&home).unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&home, std::fs::Permissions::from_mode(0o700)).unwrap();
    }
    let uid = format!("{who} <{who}@example.org>");
    run(
        dir,
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
        b"",
    );
    let out = Command::new("gpg")
        .args(["--armor", "--export", &format!("{who}@example.org")])
        .env("GNUPGHOME", &home)
        .output()
        .unwrap();
    out.stdout
}

#[test]
fn openpgp_clear_signed_and_detached() {
    if !have("gpg") || !have("gpgv") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let key = Key::parse(&gpg_key(d, "release")).unwrap();
    assert!(matches!(key, Key::OpenPgp(_)));
    let other = Key::parse(&gpg_key(d, "other")).unwrap();
    std::fs::write(d.join("SUMS"), SUMS).unwrap();
    run(
        d,
        &[
            "gpg",
            "--batch",
            "-u",
            "release@example.org",
            "--clearsign",
            "-o",
            "SUMS.asc",
            "SUMS",
        ],
        b"",
    );
    run(
        d,
        &[
            "gpg",
            "--batch",
            "-u",
            "release@example.org",
            "--detach-sign",
            "-o",
            "SUMS.sig",
            "SUMS",
        ],
        b"",
    );
    let clear = std::fs::read(d.join("SUMS.asc")).unwrap();
    let detached = std::fs::read(d.join("SUMS.sig")).unwrap();

    assert!(embedded(&clear));
    let v = verify(&clear, None, &key).unwrap();
    assert_eq!(v.content, SUMS);
    assert!(v.signer.starts_with("OpenPGP key "), "{}", v.signer);
    assert!(v.signer.contains("release@example.org"), "{}", v.signer);
    let v = verify(SUMS, Some(&detached), &key).unwrap();
    assert_eq!(v.content, SUMS);

    // a sum changed after signing
    let mut changed = clear.clone();
    let at = changed.windows(4).position(|w| w == b"d41d").unwrap();
    changed[at] = b'e';
    assert_eq!(verify(&changed, None, &key), Err(SigError::Bad));
    let mut changed = SUMS.to_vec();
    changed[0] = b'e';
    assert_eq!(verify(&changed, Some(&detached), &key), Err(SigError::Bad));
    // another key
    assert!(matches!(
        verify(&clear, None, &other),
        Err(SigError::OtherKey(_))
    ));
    // a truncated armour
    let cut = &clear[..clear.len() - 40];
    assert!(verify(cut, None, &key).is_err());
}

#[test]
fn minisign_detached() {
    if !have("minisign") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for k in ["a", "b"] {
        run(
            d,
            &[
                "minisign",
                "-G",
                "-W",
                "-p",
                &format!("{k}.pub"),
                "-s",
                &format!("{k}.key"),
            ],
            b"",
        );
    }
    std::fs::write(d.join("SUMS"), SUMS).unwrap();
    run(
        d,
        &[
            "minisign",
            "-S",
            "-s",
            "a.key",
            "-m",
            "SUMS",
            "-t",
            "release 1.0",
        ],
        b"",
    );
    let sig = std::fs::read(d.join("SUMS.minisig")).unwrap();
    let key = Key::parse(&std::fs::read(d.join("a.pub")).unwrap()).unwrap();
    let other = Key::parse(&std::fs::read(d.join("b.pub")).unwrap()).unwrap();
    let v = verify(SUMS, Some(&sig), &key).unwrap();
    assert_eq!(v.content, SUMS);
    assert!(v.signer.contains("release 1.0"), "{}", v.signer);
    let mut changed = SUMS.to_vec();
    changed[3] = b'0';
    assert_eq!(verify(&changed, Some(&sig), &key), Err(SigError::Bad));
    assert!(matches!(
        verify(SUMS, Some(&sig), &other),
        Err(SigError::OtherKey(_))
    ));
}

#[test]
fn signify_embedded_and_detached() {
    if !have_signify() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for k in ["a", "b"] {
        run(
            d,
            &[
                "signify-openbsd",
                "-G",
                "-n",
                "-p",
                &format!("{k}.pub"),
                "-s",
                &format!("{k}.sec"),
            ],
            b"",
        );
    }
    std::fs::write(d.join("SHA256"), SUMS).unwrap();
    run(
        d,
        &[
            "signify-openbsd",
            "-S",
            "-e",
            "-s",
            "a.sec",
            "-m",
            "SHA256",
            "-x",
            "SHA256.sig",
        ],
        b"",
    );
    run(
        d,
        &[
            "signify-openbsd",
            "-S",
            "-s",
            "a.sec",
            "-m",
            "SHA256",
            "-x",
            "SHA256.detached",
        ],
        b"",
    );
    let key = Key::parse(&std::fs::read(d.join("a.pub")).unwrap()).unwrap();
    let other = Key::parse(&std::fs::read(d.join("b.pub")).unwrap()).unwrap();
    let emb = std::fs::read(d.join("SHA256.sig")).unwrap();
    assert!(embedded(&emb));
    assert_eq!(verify(&emb, None, &key).unwrap().content, SUMS);
    let det = std::fs::read(d.join("SHA256.detached")).unwrap();
    assert_eq!(verify(SUMS, Some(&det), &key).unwrap().content, SUMS);
    let mut changed = emb.clone();
    let n = changed.len();
    changed[n - 3] = b'x';
    assert_eq!(verify(&changed, None, &key), Err(SigError::Bad));
    assert!(matches!(
        verify(&emb, None, &other),
        Err(SigError::OtherKey(_))
    ));
}

/// signify-openbsd has no `--version`: ask for its usage instead.
fn have_signify() -> bool {
    let ok = Command::new("signify-openbsd")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok();
    if !ok {
        assert!(
            std::env::var_os("CI").is_none(),
            "signify-openbsd is needed (.ci/run installs it)"
        );
        eprintln!("skipped: signify-openbsd is not installed");
    }
    ok
}

#[test]
fn keys_and_kinds_that_do_not_fit() {
    assert_eq!(Key::parse(b"hello"), Err(SigError::NotAKey));
    assert_eq!(
        verify(
            SUMS,
            None,
            &Key::Ed25519 {
                id: [0; 8],
                key: [0; 32]
            }
        ),
        Err(SigError::NoSignature)
    );
    assert_eq!(
        verify(
            SUMS,
            Some(b"-----BEGIN PGP SIGNATURE-----\n\nAAAA\n-----END PGP SIGNATURE-----\n"),
            &Key::Ed25519 {
                id: [0; 8],
                key: [0; 32]
            }
        ),
        Err(SigError::WrongKind {
            key: "minisign/signify",
            signature: "OpenPGP"
        })
    );
    assert_eq!(
        verify(
            SUMS,
            Some(b"nothing"),
            &Key::Ed25519 {
                id: [0; 8],
                key: [0; 32]
            }
        ),
        Err(SigError::NotASignature)
    );
}
