//! Signed check files (issue 33): the signature a project publishes with
//! its sums, found inside the check file or beside it, verified against the
//! key the user names (`--verify-with KEY`) over the exact bytes that are
//! then parsed, read once: nothing can change between verifying and
//! checking.
//!
//! The shapes projects publish, and who verifies each:
//!
//! | shape | where the signature is | verified by |
//! |---|---|---|
//! | OpenPGP clear-signed (`SHASUMS256.txt.asc`, Fedora's `CHECKSUM`) | around the sums | the system's `gpgv` ([`openpgp`]) |
//! | OpenPGP detached (`SHA512SUMS.sign`, `SHA256SUMS.gpg`, `.asc`, `.sig`) | a file beside | `gpgv` |
//! | signify embedded (OpenBSD's `SHA256.sig`) | its first two lines | Ed25519 here ([`ed25519`]) |
//! | signify detached (`.sig`) | a file beside | Ed25519 here |
//! | minisign (`.minisig`) | a file beside | the `minisign-verify` crate |
//!
//! OpenPGP goes to `gpgv`, the verifier apt itself runs (so every Debian
//! and Ubuntu system has it), rather than a Rust OpenPGP implementation: the
//! one pure Rust choice (rpgp) brings some 160 crates to build for a check
//! the user's own GnuPG already makes; without `gpgv` fastsum says so. Its
//! output (`--output -`) is what a clear-signed file is parsed from: the
//! bytes it verified, not a second reading of ours. Its exit is not
//! enough: it exits 0 for a signature by an expired or revoked key, so its
//! status lines are read (a GOODSIG required, as apt requires one), and a
//! text-mode signature, which holds over a canonical form of the text, is
//! taken only for lines that form maps one to one.

mod ed25519;
mod openpgp;

pub(crate) use openpgp::Armour;

use std::fmt;
use std::path::{Path, PathBuf};

/// A public key to verify with, recognised from its file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Key {
    /// An OpenPGP public key or keyring, in binary form (dearmoured here
    /// when the file was armoured: `gpgv` reads only binary keyrings), or
    /// a GnuPG keybox (`pubring.kbx`), which `gpgv` reads as it is.
    OpenPgp(Vec<u8>),
    /// A minisign or signify public key: both are `Ed`, an 8-byte key
    /// number and a 32-byte Ed25519 key, in base64 after a comment line.
    Ed25519 { id: [u8; 8], key: [u8; 32] },
}

/// Why a check file's signature does not hold, or cannot be checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum SigError {
    /// The key file is none of the kinds known.
    NotAKey,
    /// No signature inside the check file, none beside it.
    NoSignature,
    /// The signature file is none of the kinds known, or is damaged.
    NotASignature,
    /// The signature is of a kind the key cannot verify.
    WrongKind {
        key: &'static str,
        signature: &'static str,
    },
    /// The signature was made by another key.
    OtherKey(String),
    /// The signature does not match the bytes: they changed after signing.
    Bad,
    /// OpenPGP needs `gpgv`, which is not installed or did not run.
    NoGpgv(String),
    /// `gpgv` refused for a reason of its own (its words).
    Gpgv(String),
    /// The signature holds over the bytes, but vouches for nothing (its
    /// signer, when gpgv named it).
    Worthless(Worthless, String),
    /// A text-mode OpenPGP signature holds, but line `line` of the check
    /// file has bytes it does not cover: what the line ends in, or `None`
    /// for a line too long to be signed whole.
    Uncovered {
        line: u64,
        end: Option<&'static str>,
    },
}

/// Why a signature that holds over the bytes vouches for nothing: what
/// gpgv's status words say (its exit may still be 0), as apt reads them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Worthless {
    /// `EXPSIG`: the signature had an end date, now past.
    SignatureExpired,
    /// `EXPKEYSIG`: made by a key that has expired.
    ExpiredKey,
    /// `REVKEYSIG`: made by a key that has been revoked.
    RevokedKey,
    /// `KEYEXPIRED` (alone): the signing key has expired.
    KeyExpired,
    /// `KEYREVOKED` (alone): the signing key has been revoked.
    KeyRevoked,
}

impl Worthless {
    /// What it is, what goes before the signer, and gpgv's status word.
    fn said(self) -> (&'static str, &'static str, &'static str) {
        match self {
            Worthless::SignatureExpired => ("an expired signature", ", by ", "EXPSIG"),
            Worthless::ExpiredKey => ("signed by an expired key", ", ", "EXPKEYSIG"),
            Worthless::RevokedKey => ("signed by a revoked key", ", ", "REVKEYSIG"),
            Worthless::KeyExpired => ("the signing key has expired", ", ", "KEYEXPIRED"),
            Worthless::KeyRevoked => ("the signing key has been revoked", ", ", "KEYREVOKED"),
        }
    }
}

/// `kind` with its indefinite article: "an OpenPGP", "a minisign".
fn article(kind: &str) -> String {
    match kind.starts_with(['O', 'o', 'A', 'E', 'I', 'U']) {
        true => format!("an {kind}"),
        false => format!("a {kind}"),
    }
}

impl fmt::Display for SigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SigError::NotAKey => write!(
                f,
                "not a public key fastsum knows (an OpenPGP key or keyring, a GnuPG keybox, a minisign or signify key)"
            ),
            SigError::NoSignature => write!(
                f,
                "no signature: none inside the check file, and none beside it (.asc, .sig, .gpg, .minisig, .sign)"
            ),
            SigError::NotASignature => write!(
                f,
                "not a signature fastsum knows (OpenPGP, minisign or signify), or a damaged one"
            ),
            SigError::WrongKind { key, signature } => {
                write!(
                    f,
                    "{} signature cannot be verified with {} key",
                    article(signature),
                    article(key)
                )
            }
            SigError::OtherKey(id) => write!(f, "signed by another key ({id}), not the one given"),
            SigError::Bad => write!(f, "BAD signature: the signed bytes changed after signing"),
            SigError::NoGpgv(why) => {
                write!(
                    f,
                    "OpenPGP signatures are verified with gpgv (GnuPG), which {why}"
                )
            }
            SigError::Gpgv(said) => write!(f, "gpgv: {said}"),
            SigError::Worthless(why, signer) => {
                let (what, before, word) = why.said();
                let by = match signer.is_empty() {
                    true => String::new(),
                    false => format!("{before}{signer}"),
                };
                write!(
                    f,
                    "{what}{by}: the signature holds but vouches for nothing (gpgv: {word})"
                )
            }
            SigError::Uncovered { line, end } => {
                match end {
                    Some(end) => write!(f, "line {line} ends in a {end}, which")?,
                    None => write!(f, "line {line} is longer than GnuPG signs whole, and")?,
                }
                write!(
                    f,
                    " its text-mode OpenPGP signature does not cover: refused, \
                     as the name read from it may not be the one signed"
                )
            }
        }
    }
}

/// What a good signature vouches for.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Verified {
    /// The signed bytes: the sums to parse.
    pub(crate) content: Vec<u8>,
    /// Who signed, as the signer's tools show it (an OpenPGP primary key's
    /// fingerprint, a minisign key id).
    pub(crate) signer: String,
}

impl Key {
    /// The key in `bytes` (a key file's contents), recognised by its form.
    pub(crate) fn parse(bytes: &[u8]) -> Result<Key, SigError> {
        if let Some(binary) = openpgp::key(bytes) {
            return Ok(Key::OpenPgp(binary));
        }
        ed25519::key(bytes).ok_or(SigError::NotAKey)
    }

    fn kind(&self) -> &'static str {
        match self {
            Key::OpenPgp(_) => "OpenPGP",
            Key::Ed25519 { .. } => "minisign/signify",
        }
    }
}

/// The files beside `check` that may hold its detached signature, in the
/// order they are tried.
pub(crate) fn beside(check: &Path) -> impl Iterator<Item = PathBuf> + '_ {
    [".asc", ".sig", ".gpg", ".minisig", ".sign"]
        .into_iter()
        .map(|ext| {
            let mut name = check.as_os_str().to_os_string();
            name.push(ext);
            PathBuf::from(name)
        })
}

/// Does the check file carry its signature inside (clear-signed, signify's
/// embedded form)? Then no file beside it is looked for.
pub(crate) fn embedded(check: &[u8]) -> bool {
    openpgp::is_clear_signed(check) || ed25519::embedded(check).is_some()
}

/// Verify the check file `check` with `key`, its signature inside it or in
/// `detached` (the bytes of the file beside it); the bytes to parse, and
/// who signed them, when the signature holds.
pub(crate) fn verify(
    check: &[u8],
    detached: Option<&[u8]>,
    key: &Key,
) -> Result<Verified, SigError> {
    let wrong = |signature| SigError::WrongKind {
        key: key.kind(),
        signature,
    };
    match detached {
        Some(sig) if openpgp::is_signature(sig) => match key {
            Key::OpenPgp(ring) => openpgp::verify_detached(check, sig, ring),
            _ => Err(wrong("OpenPGP")),
        },
        Some(sig) => match key {
            Key::Ed25519 { id, key } => ed25519::verify_detached(check, sig, id, key),
            _ => Err(ed25519::kind_of(sig).map_or(SigError::NotASignature, wrong)),
        },
        None if openpgp::is_clear_signed(check) => match key {
            Key::OpenPgp(ring) => openpgp::verify_clear_signed(check, ring),
            _ => Err(wrong("OpenPGP")),
        },
        None => match (ed25519::embedded(check), key) {
            (Some((sig, message)), Key::Ed25519 { id, key }) => {
                ed25519::verify_signify(message, &sig, id, key)
            }
            (Some(_), _) => Err(wrong("signify")),
            (None, _) => Err(SigError::NoSignature),
        },
    }
}

#[cfg(test)]
mod tests;
