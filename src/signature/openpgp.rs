//! OpenPGP: keys and signatures recognised here, verified by the system's
//! `gpgv` (see the module above for why), in a home of its own so that the
//! user's GnuPG files are neither read nor written.

use std::io::Write;
use std::process::{Command, Output, Stdio};

use super::{SigError, Verified};
use crate::output::base64_decode;

const CLEAR_SIGNED: &[u8] = b"-----BEGIN PGP SIGNED MESSAGE-----";
const SIGNATURE_BEGIN: &[u8] = b"-----BEGIN PGP SIGNATURE-----";
const KEY_BEGIN: &[u8] = b"-----BEGIN PGP PUBLIC KEY BLOCK-----";

/// The lines of `text` without their line ends (`\n`, `\r\n`).
fn lines(text: &[u8]) -> impl Iterator<Item = &[u8]> {
    text.split_inclusive(|&b| b == b'\n').map(|l| {
        let l = l.strip_suffix(b"\n").unwrap_or(l);
        l.strip_suffix(b"\r").unwrap_or(l)
    })
}

/// The packet tag of the first OpenPGP packet in binary `bytes`.
fn first_tag(bytes: &[u8]) -> Option<u8> {
    let b = *bytes.first()?;
    match b {
        _ if b & 0x80 == 0 => None,
        _ if b & 0x40 != 0 => Some(b & 0x3f),
        _ => Some((b >> 2) & 0x0f),
    }
}

/// The binary packets of an ASCII armour that opens with `begin`.
fn dearmour(text: &[u8], begin: &[u8]) -> Option<Vec<u8>> {
    let mut it = lines(text).skip_while(|l| l.trim_ascii().is_empty());
    if it.next()?.trim_ascii_end() != begin {
        return None;
    }
    // armour headers (`Comment:`, `Version:`) up to an empty line
    let mut it = it.skip_while(|l| !l.trim_ascii().is_empty()).skip(1);
    let mut b64 = Vec::new();
    for l in it.by_ref() {
        let l = l.trim_ascii();
        if l.starts_with(b"=") || l.starts_with(b"-----END") {
            break;
        }
        b64.extend_from_slice(l);
    }
    base64_decode(&b64)
}

/// Is `bytes` a GnuPG keybox (`pubring.kbx`, GnuPG 2.1's keyring)? Its
/// first blob is a header whose bytes 8 to 11 are `KBXf`.
fn is_keybox(bytes: &[u8]) -> bool {
    bytes.get(8..12) == Some(b"KBXf")
}

/// An OpenPGP public key or keyring in `bytes`, armoured or binary, or a
/// GnuPG keybox: what `gpgv --keyring` reads (a keybox as it is: gpgv
/// tells the two apart by that header).
pub(super) fn key(bytes: &[u8]) -> Option<Vec<u8>> {
    if is_keybox(bytes) {
        return Some(bytes.to_vec());
    }
    let binary = match dearmour(bytes, KEY_BEGIN) {
        Some(b) => b,
        None => bytes.to_vec(),
    };
    // a public key packet (6) first
    (first_tag(&binary) == Some(6)).then_some(binary)
}

/// Is `bytes` an OpenPGP signature (armoured, or a binary signature packet)?
pub(super) fn is_signature(bytes: &[u8]) -> bool {
    bytes.trim_ascii_start().starts_with(SIGNATURE_BEGIN) || first_tag(bytes) == Some(2)
}

/// Is `check` an OpenPGP clear-signed text?
pub(super) fn is_clear_signed(check: &[u8]) -> bool {
    check.trim_ascii_start().starts_with(CLEAR_SIGNED)
}

/// Verify a clear-signed `check` with the keyring `ring`: the text gpgv
/// verified, and the signer.
pub(super) fn verify_clear_signed(check: &[u8], ring: &[u8]) -> Result<Verified, SigError> {
    gpgv(ring, None, check)
}

/// Verify the detached signature `sig` of `check` with the keyring `ring`.
pub(super) fn verify_detached(check: &[u8], sig: &[u8], ring: &[u8]) -> Result<Verified, SigError> {
    gpgv(ring, Some(sig), check)
}

/// Run gpgv on `data` (the clear-signed text, or the signed bytes of the
/// detached signature `sig`) with the keyring `ring`, in a temporary home:
/// the bytes it vouches for and who signed them, or why not.
fn gpgv(ring: &[u8], sig: Option<&[u8]>, data: &[u8]) -> Result<Verified, SigError> {
    let home = tempfile::TempDir::new()
        .map_err(|e| SigError::NoGpgv(format!("could not be given a home: {e}")))?;
    let write = |name: &str, bytes: &[u8]| {
        let path = home.path().join(name);
        std::fs::write(&path, bytes)
            .map(|()| path)
            .map_err(|e| SigError::NoGpgv(format!("could not be given its files: {e}")))
    };
    let keyring = write("keyring.gpg", ring)?;
    let mut cmd = Command::new("gpgv");
    cmd.arg("--homedir")
        .arg(home.path())
        .args(["--status-fd", "2", "--keyring"])
        .arg(&keyring);
    match sig {
        Some(sig) => {
            cmd.arg(write("signature", sig)?);
        }
        None => {
            cmd.args(["--output", "-"]);
        }
    }
    cmd.arg("-")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().map_err(|e| {
        SigError::NoGpgv(match e.kind() {
            std::io::ErrorKind::NotFound => "is not installed (Debian: gpgv)".into(),
            _ => format!("could not be started: {e}"),
        })
    })?;
    let mut stdin = child.stdin.take();
    let out = std::thread::scope(|s| {
        // fed from a thread: gpgv writes what it verified while it reads
        s.spawn(move || {
            if let Some(mut w) = stdin.take() {
                let _ = w.write_all(data);
            }
        });
        child.wait_with_output()
    })
    .map_err(|e| SigError::NoGpgv(format!("failed: {e}")))?;
    verdict(out, sig.is_some(), data)
}

/// What gpgv's run `out` says, by its status lines: the bytes it vouches
/// for (`data` itself when the signature is `detached`, else what gpgv
/// wrote) and who signed them, or why not.
fn verdict(out: Output, detached: bool, data: &[u8]) -> Result<Verified, SigError> {
    let status = String::from_utf8_lossy(&out.stderr);
    let said = |key: &str| {
        status
            .lines()
            .filter_map(|l| l.strip_prefix("[GNUPG:] "))
            .filter_map(move |l| l.strip_prefix(key).map(str::trim))
            .collect::<Vec<_>>()
    };
    let valid = said("VALIDSIG ");
    if out.status.success() && !valid.is_empty() && said("BADSIG ").is_empty() {
        let fingerprint = valid[0].split(' ').next().unwrap_or_default();
        let who = said("GOODSIG ")
            .first()
            .and_then(|g| g.split_once(' '))
            .map(|(_, uid)| format!(" ({uid})"))
            .unwrap_or_default();
        return Ok(Verified {
            content: if detached { data.to_vec() } else { out.stdout },
            signer: format!("OpenPGP key {fingerprint}{who}"),
        });
    }
    if !said("BADSIG ").is_empty() {
        return Err(SigError::Bad);
    }
    if let Some(id) = said("NO_PUBKEY ").first() {
        return Err(SigError::OtherKey(format!("OpenPGP key {id}")));
    }
    if !said("NODATA ").is_empty() || said("ERRSIG ").is_empty() && valid.is_empty() {
        return Err(SigError::NotASignature);
    }
    let human = status
        .lines()
        .filter(|l| !l.starts_with("[GNUPG:]"))
        .map(|l| l.strip_prefix("gpgv: ").unwrap_or(l))
        .next_back()
        .unwrap_or("verification failed")
        .to_string();
    Err(SigError::Gpgv(human))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packet_tags_are_read_in_both_formats() {
        assert_eq!(first_tag(&[0x99, 0, 0]), Some(6)); // old format, public key
        assert_eq!(first_tag(&[0xc6, 0]), Some(6)); // new format
        assert_eq!(first_tag(&[0x89, 0]), Some(2)); // a signature
        assert_eq!(first_tag(b"d41d8cd9"), None);
    }

    #[test]
    fn a_keybox_is_a_keyring() {
        let header = b"\0\0\0\x20\x01\x01\0\x02KBXf\0\0\0\0";
        assert_eq!(key(header).as_deref(), Some(&header[..]));
        assert_eq!(key(b"\0\0\0\x20\x01\x01\0\x02KBXg"), None);
    }
}
