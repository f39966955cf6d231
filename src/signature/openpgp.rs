//! OpenPGP: keys and signatures recognised here, verified by the system's
//! `gpgv` (see the module above for why), in a home of its own so that the
//! user's GnuPG files are neither read nor written.

use std::io::Write;
use std::process::{Command, Stdio};

use super::{SigError, Verified, Worthless};
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
    let status = String::from_utf8_lossy(&out.stderr);
    let good = verdict(out.status.success(), &status)?;
    if sig.is_none() || good.text {
        covered(data, sig.is_none()).map_err(|(line, end)| SigError::Uncovered { line, end })?;
    }
    Ok(Verified {
        content: match sig {
            Some(_) => data.to_vec(),
            None => out.stdout,
        },
        signer: good.signer,
    })
}

/// One status line of gpgv's (`--status-fd`): its keyword and the rest.
type Status<'a> = (&'a str, &'a str);

/// gpgv's status lines in `stderr`, one group a signature (each opens
/// with `NEWSIG`; all in one without it).
fn signatures(stderr: &str) -> Vec<Vec<Status<'_>>> {
    let mut groups: Vec<Vec<Status<'_>>> = vec![Vec::new()];
    let lines = stderr.lines().filter_map(|l| l.strip_prefix("[GNUPG:] "));
    for (word, rest) in lines.map(|l| l.split_once(' ').unwrap_or((l, ""))) {
        if word == "NEWSIG" {
            groups.push(Vec::new());
        }
        if let Some(g) = groups.last_mut() {
            g.push((word, rest.trim()));
        }
    }
    groups.retain(|g| !g.is_empty());
    groups
}

/// The status words of a signature that holds over the bytes but vouches
/// for nothing (apt's "worthless" signers), each with what it means, in
/// the order a message names them: the signature's own first.
const WORTHLESS: [(&str, Worthless); 5] = [
    ("EXPSIG", Worthless::SignatureExpired),
    ("EXPKEYSIG", Worthless::ExpiredKey),
    ("REVKEYSIG", Worthless::RevokedKey),
    ("KEYEXPIRED", Worthless::KeyExpired),
    ("KEYREVOKED", Worthless::KeyRevoked),
];

/// What gpgv made of a good signature.
#[derive(Debug, PartialEq, Eq)]
struct Good {
    /// Who signed (see [`signer`]).
    signer: String,
    /// A text-mode signature (class 0x01: every clear-signed text, and
    /// `gpg --textmode`), made over the text's canonical form; false when
    /// a binary one (class 0x00) is among the good ones.
    text: bool,
}

/// What gpgv's run says, by its exit (`success`) and its status lines
/// (`stderr`): a good signature by a key of the keyring, or why not. A
/// GOODSIG is required, with its VALIDSIG; a signature that is bad, or
/// expired, or made by an expired or revoked key fails the lot.
fn verdict(success: bool, stderr: &str) -> Result<Good, SigError> {
    let sigs = signatures(stderr);
    let said = |word: &str| sigs.iter().flatten().find(|s| s.0 == word).map(|s| s.1);
    if said("BADSIG").is_some() {
        return Err(SigError::Bad);
    }
    for (word, why) in WORTHLESS {
        if let Some(sig) = sigs.iter().find(|g| g.iter().any(|s| s.0 == word)) {
            return Err(SigError::Worthless(why, signer(sig).unwrap_or_default()));
        }
    }
    let good: Vec<_> = sigs
        .iter()
        .filter(|g| g.iter().any(|s| s.0 == "GOODSIG"))
        .filter_map(|g| Some((signer(g)?, validsig(g)?)))
        .collect();
    if let (true, Some((signer, _))) = (success, good.first()) {
        // one binary signature (class 0x00) covers every byte
        let binary = good.iter().any(|(_, v)| v.get(8) == Some(&"00"));
        return Ok(Good {
            signer: signer.clone(),
            text: !binary,
        });
    }
    if let Some(id) = said("NO_PUBKEY") {
        return Err(SigError::OtherKey(format!("OpenPGP key {id}")));
    }
    if said("NODATA").is_some() || said("ERRSIG").is_none() && said("VALIDSIG").is_none() {
        return Err(SigError::NotASignature);
    }
    let human = stderr
        .lines()
        .filter(|l| !l.starts_with("[GNUPG:]"))
        .map(|l| l.strip_prefix("gpgv: ").unwrap_or(l))
        .next_back()
        .unwrap_or("verification failed")
        .to_string();
    Err(SigError::Gpgv(human))
}

/// The fields of a signature's VALIDSIG: the signing key's fingerprint,
/// the dates, …, the signature's class (9th), the primary key's
/// fingerprint (10th, last).
fn validsig<'a>(sig: &[Status<'a>]) -> Option<Vec<&'a str>> {
    let v = sig.iter().find(|s| s.0 == "VALIDSIG")?;
    Some(v.1.split(' ').collect())
}

/// Who made the signature `sig`, by its VALIDSIG: the primary key's
/// fingerprint, which projects publish (a signing subkey's after it), and
/// the user ID its GOODSIG (or EXPKEYSIG, …) names.
fn signer(sig: &[Status<'_>]) -> Option<String> {
    let fields = validsig(sig)?;
    let signing = *fields.first()?;
    let primary = match fields.get(9) {
        Some(p) if p.len() >= 32 => *p,
        _ => signing,
    };
    let uid = sig
        .iter()
        .filter(|s| ["GOODSIG", "EXPSIG", "EXPKEYSIG", "REVKEYSIG"].contains(&s.0))
        .find_map(|s| s.1.split_once(' '))
        .map(|(_, uid)| format!(" ({uid})"))
        .unwrap_or_default();
    let subkey = match primary == signing {
        true => String::new(),
        false => format!(", signing subkey {signing}"),
    };
    Some(format!("OpenPGP key {primary}{uid}{subkey}"))
}

/// GnuPG handles no longer text line than fits its buffers (19,995 bytes
/// in its text filter, 20,000 in its armour): gpg signs a longer line cut
/// short (a clear-signed text then holds it cut short: not the name its
/// signer gave), and gpgv fails a detached signature over one. Lines past
/// this are refused, with room to spare.
const LONGEST_TEXT_LINE: usize = 19_000;

/// Does a text-mode signature cover every byte of `text` one to one, as a
/// checksum line reads it? OpenPGP makes a text canonical before hashing
/// it: gpgv drops the CRs that end a line (a CR LF line end is read as LF
/// here too, but `name\r\r\n` would be read as the name `name\r`); a
/// clear-signed text's trailing spaces and tabs go too (RFC 4880 7.1), and
/// a detached one's under `--rfc2440-text`; a line longer than GnuPG
/// handles was signed cut short. So a signed line that ends in a CR (other
/// than its CR LF end), a space or a tab, or is that long, cannot be read
/// one to one: `Err`, the first (numbered from 1 in `text`), and what it
/// ends in (`None`: it is too long). Of a `clear_signed` text, only the
/// signed lines are read.
fn covered(text: &[u8], clear_signed: bool) -> Result<(), (u64, Option<&'static str>)> {
    let mut body = !clear_signed;
    let mut armour = false;
    for (n, raw) in (1..).zip(text.split_inclusive(|&b| b == b'\n')) {
        let line = raw.strip_suffix(b"\n").unwrap_or(raw);
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if clear_signed {
            let bare = line.trim_ascii_end();
            if !body {
                // the armour's first line, its headers, an empty line
                armour |= bare == CLEAR_SIGNED;
                body = armour && bare.is_empty();
                continue;
            }
            if bare == SIGNATURE_BEGIN {
                return Ok(());
            }
        }
        if raw.len() > LONGEST_TEXT_LINE {
            return Err((n, None));
        }
        match line.last() {
            Some(b'\r') => return Err((n, Some("carriage return"))),
            Some(b' ') => return Err((n, Some("space"))),
            Some(b'\t') => return Err((n, Some("tab"))),
            _ => {}
        }
    }
    Ok(())
}

/// Where a line stands in an OpenPGP clear-signed text read as a check
/// file without a key (fastsum's own rules: the signature is not checked,
/// but its armour is no checksum line): its parts, in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Armour {
    /// The `Hash:` headers, up to an empty line.
    Headers,
    /// The signed text: the sums, dash-escaped.
    Body,
    /// The signature's armour.
    Signature,
    /// After it: lines here are outside the armour.
    After,
}

impl Armour {
    /// The armour a check file whose first line is `first` starts, if it
    /// is the first line of a clear-signed text.
    pub(crate) fn starts(first: &[u8]) -> Option<Armour> {
        (first.trim_ascii_end() == CLEAR_SIGNED).then_some(Armour::Headers)
    }

    /// What `line` (without its line end) is: `None` when it is armour,
    /// else the line to read as a checksum line (a dash-escape undone).
    pub(crate) fn read<'l>(&mut self, line: &'l [u8]) -> Option<&'l [u8]> {
        let bare = line.trim_ascii_end();
        match self {
            Armour::Headers => {
                if bare.is_empty() {
                    *self = Armour::Body;
                }
                None
            }
            Armour::Body if bare == SIGNATURE_BEGIN => {
                *self = Armour::Signature;
                None
            }
            Armour::Body => Some(line.strip_prefix(b"- ").unwrap_or(line)),
            Armour::Signature => {
                if bare == b"-----END PGP SIGNATURE-----" {
                    *self = Armour::After;
                }
                None
            }
            Armour::After => Some(line),
        }
    }
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

    /// gpgv's status lines for a signature by `word` (GOODSIG, EXPKEYSIG,
    /// …) of key F4A33008BE3812A6, as recorded from gpgv 2.2.40 (`extra`
    /// lines before the signature's word, KEYEXPIRED's, say).
    fn transcript(extra: &str, word: &str) -> String {
        let fpr = "BAB976FBCD6C8AF789317682F4A33008BE3812A6";
        format!(
            "[GNUPG:] NEWSIG rel@example.org\n\
             gpgv: Signature made Fri Jan  3 00:00:00 2020 UTC\n\
             [GNUPG:] KEY_CONSIDERED {fpr} 0\n\
             {extra}\
             [GNUPG:] SIG_ID algxAtv5EXxIKXhakbU7flwS31E 2020-01-03 1578009600\n\
             [GNUPG:] {word} F4A33008BE3812A6 rel <rel@example.org>\n\
             gpgv: Good signature from \"rel <rel@example.org>\"\n\
             [GNUPG:] VALIDSIG {fpr} 2020-01-03 1578009600 0 4 0 22 8 00 {fpr}\n"
        )
    }

    const REL: &str =
        "OpenPGP key BAB976FBCD6C8AF789317682F4A33008BE3812A6 (rel <rel@example.org>)";

    #[test]
    fn a_goodsig_is_required() {
        let good = verdict(true, &transcript("", "GOODSIG"));
        assert_eq!(
            good,
            Ok(Good {
                signer: REL.into(),
                text: false
            })
        );
        // gpgv exits 0 for these three, and says "Good signature"
        let worthless = |extra: &str, word| verdict(true, &transcript(extra, word));
        let expired = "[GNUPG:] KEYEXPIRED 1577923200\n";
        for (extra, word, why) in [
            (expired, "EXPKEYSIG", Worthless::ExpiredKey),
            ("", "REVKEYSIG", Worthless::RevokedKey),
            ("", "EXPSIG", Worthless::SignatureExpired),
            // alone, beside a GOODSIG: gpg (not gpgv) says KEYREVOKED
            // after the signature's lines; KEYEXPIRED alone is made up
            (expired, "GOODSIG", Worthless::KeyExpired),
        ] {
            assert_eq!(
                worthless(extra, word),
                Err(SigError::Worthless(why, REL.into())),
                "{word}"
            );
        }
        let revoked = transcript("", "GOODSIG") + "[GNUPG:] KEYREVOKED\n";
        assert_eq!(
            verdict(true, &revoked),
            Err(SigError::Worthless(Worthless::KeyRevoked, REL.into()))
        );
        // a bad signature is said first; no GOODSIG, no good signature
        let bad = transcript(expired, "BADSIG");
        assert_eq!(verdict(false, &bad), Err(SigError::Bad));
        let none = transcript("", "GOODSIG").replace("GOODSIG", "SOMESIG");
        assert!(verdict(true, &none).is_err());
        // nor one gpgv's exit denies
        assert!(verdict(false, &transcript("", "GOODSIG")).is_err());
    }

    #[test]
    fn a_signing_subkey_is_named_after_its_primary_key() {
        let text = transcript("", "GOODSIG").replace(
            "8 00 BAB976FBCD6C8AF789317682F4A33008BE3812A6",
            "8 01 0123456789ABCDEF0123456789ABCDEF01234567",
        );
        let signer = "OpenPGP key 0123456789ABCDEF0123456789ABCDEF01234567 \
                      (rel <rel@example.org>), signing subkey BAB976FBCD6C8AF789317682F4A33008BE3812A6";
        assert_eq!(
            verdict(true, &text),
            Ok(Good {
                signer: signer.into(),
                text: true
            })
        );
    }

    #[test]
    fn text_mode_lines_the_signature_covers() {
        assert_eq!(covered(b"a  x\r\nb  y\n", false), Ok(()));
        assert_eq!(
            covered(b"a  x\nb  y\r\r\n", false),
            Err((2, Some("carriage return")))
        );
        assert_eq!(covered(b"a  x\r", false), Ok(()));
        assert_eq!(
            covered(b"a  x\r\r", false),
            Err((1, Some("carriage return")))
        );
        assert_eq!(covered(b"a  x \n", false), Err((1, Some("space"))));
        assert_eq!(covered(b"a  x\t\r\n", false), Err((1, Some("tab"))));
        let long = [b'x'; LONGEST_TEXT_LINE + 1];
        assert_eq!(covered(&long, false), Err((1, None)));
        // clear-signed: the signed lines only (not its headers nor its
        // signature), numbered in the file
        let clear = |body: &str| {
            format!(
                "-----BEGIN PGP SIGNED MESSAGE-----\nHash: SHA256 \n\n{body}\
                 -----BEGIN PGP SIGNATURE-----\n\nAAAA \n"
            )
        };
        assert_eq!(covered(clear("a  x\nb  y\n").as_bytes(), true), Ok(()));
        let spaced = clear("a  x\nb  y \n");
        assert_eq!(covered(spaced.as_bytes(), true), Err((5, Some("space"))));
    }
}
