//! minisign and signify: Ed25519 keys and signatures in the same layout
//! (`Ed` or `ED`, an 8-byte key number, then the key or the signature),
//! each in base64 on the line after an `untrusted comment:` line. signify
//! signs the bytes themselves; minisign (`ED`) signs their BLAKE2b-512 and
//! adds a trusted comment under a second, global signature, which the
//! `minisign-verify` crate checks.

use super::{Key, SigError, Verified};
use crate::output::base64_decode;

/// The comment line every key and signature file of both tools opens with.
const COMMENT: &[u8] = b"untrusted comment:";

/// The first two lines of `text` when the first is the untrusted comment:
/// the base64 line and what follows it.
fn after_comment(text: &[u8]) -> Option<(&[u8], &[u8])> {
    let rest = text.strip_prefix(COMMENT)?;
    let rest = &rest[rest.iter().position(|&b| b == b'\n')? + 1..];
    let end = rest.iter().position(|&b| b == b'\n').unwrap_or(rest.len());
    let line = rest[..end].strip_suffix(b"\r").unwrap_or(&rest[..end]);
    Some((line, rest.get(end + 1..).unwrap_or(&[])))
}

/// A key in a minisign or signify public key file (or a bare base64 line).
pub(super) fn key(bytes: &[u8]) -> Option<Key> {
    let line = match after_comment(bytes) {
        Some((line, _)) => line,
        None => bytes.trim_ascii(),
    };
    let raw = base64_decode(line.trim_ascii())?;
    let (alg, rest) = raw.split_first_chunk::<2>()?;
    let (id, key) = rest.split_first_chunk::<8>()?;
    let key: [u8; 32] = key.try_into().ok()?;
    (alg == b"Ed").then_some(Key::Ed25519 { id: *id, key })
}

/// The key number as minisign prints it (`minisign -V` says "key id").
fn shown(id: &[u8; 8]) -> String {
    format!("minisign/signify key {:016X}", u64::from_le_bytes(*id))
}

/// A signature line's bytes: `Ed` or `ED`, the key number, 64 bytes.
fn signature_line(line: &[u8]) -> Option<([u8; 2], [u8; 8], [u8; 64])> {
    let raw = base64_decode(line.trim_ascii())?;
    let (alg, rest) = raw.split_first_chunk::<2>()?;
    let (id, sig) = rest.split_first_chunk::<8>()?;
    Some((*alg, *id, sig.try_into().ok()?))
}

/// A signify signature: the key number that made it, and its 64 bytes.
pub(super) type Signify = ([u8; 8], [u8; 64]);

/// signify's embedded form (`signify -S -e`): the comment, the signature
/// of the rest, then the rest (the signed message).
pub(super) fn embedded(check: &[u8]) -> Option<(Signify, &[u8])> {
    let (line, message) = after_comment(check)?;
    match signature_line(line)? {
        (alg, id, sig) if &alg == b"Ed" => Some(((id, sig), message)),
        _ => None,
    }
}

/// Which tool's signature `sig` is, if either's.
pub(super) fn kind_of(sig: &[u8]) -> Option<&'static str> {
    let (line, rest) = after_comment(sig)?;
    signature_line(line)?;
    Some(if rest.starts_with(b"trusted comment:") {
        "minisign"
    } else {
        "signify"
    })
}

/// Verify signify's signature `sig` (made by key number `id`) of `message`.
pub(super) fn verify_signify(
    message: &[u8],
    (sig_id, sig): &Signify,
    id: &[u8; 8],
    key: &[u8; 32],
) -> Result<Verified, SigError> {
    if sig_id != id {
        return Err(SigError::OtherKey(shown(sig_id)));
    }
    let pk = ed25519_compact::PublicKey::new(*key);
    pk.verify(message, &ed25519_compact::Signature::new(*sig))
        .map_err(|_| SigError::Bad)?;
    Ok(Verified {
        content: message.to_vec(),
        signer: shown(id),
    })
}

/// Verify a detached minisign or signify signature file `sig` of `check`.
pub(super) fn verify_detached(
    check: &[u8],
    sig: &[u8],
    id: &[u8; 8],
    key: &[u8; 32],
) -> Result<Verified, SigError> {
    match kind_of(sig) {
        Some("signify") => {
            let (line, _) = after_comment(sig).ok_or(SigError::NotASignature)?;
            let (alg, sig_id, s) = signature_line(line).ok_or(SigError::NotASignature)?;
            if &alg != b"Ed" {
                return Err(SigError::NotASignature);
            }
            verify_signify(check, &(sig_id, s), id, key)
        }
        Some(_) => {
            let text = std::str::from_utf8(sig).map_err(|_| SigError::NotASignature)?;
            let sig =
                minisign_verify::Signature::decode(text).map_err(|_| SigError::NotASignature)?;
            let mut raw = b"Ed".to_vec();
            raw.extend_from_slice(id);
            raw.extend_from_slice(key);
            let pk = minisign_verify::PublicKey::from_base64(&crate::output::base64(&raw))
                .map_err(|_| SigError::NotAKey)?;
            match pk.verify(check, &sig, true) {
                Ok(()) => Ok(Verified {
                    content: check.to_vec(),
                    signer: format!("{} ({})", shown(id), sig.trusted_comment()),
                }),
                Err(minisign_verify::Error::UnexpectedKeyId) => {
                    let (line, _) =
                        after_comment(text.as_bytes()).ok_or(SigError::NotASignature)?;
                    let other = signature_line(line).map_or([0; 8], |(_, id, _)| id);
                    Err(SigError::OtherKey(shown(&other)))
                }
                Err(_) => Err(SigError::Bad),
            }
        }
        None => Err(SigError::NotASignature),
    }
}
