//! The algorithm of an untagged check line when `-a` does not say, under
//! fastsum's own name (issue 33 §1): projects publish `SHA256SUMS`,
//! `SHASUMS256.txt`, `X.tar.gz.sha256` and blocks under `# SHA512 HASH`,
//! and none of those lines names its algorithm.
//!
//! Per line, the first that says wins:
//!
//! 1. the last block header before it: a comment that is only a header
//!    (Ubuntu's kernel `# Checksums-Sha256:`, Gentoo's `# SHA512 HASH`,
//!    `# MD5`), so a file of mixed blocks verifies; a comment of prose that
//!    happens to hold an algorithm's word (`# Mirrored to Backblaze B2`)
//!    is no header (issue 40 §4);
//! 2. the check file's name (`SHA256SUMS`, `sha512sums.txt`,
//!    `SHASUMS256.txt.asc`, `MD5SUMS`, `B2SUMS`, `X.tar.gz.sha256`);
//! 3. the digest's length, when exactly one cryptographic algorithm has it
//!    ([`by_length`]): 32 hex digits are MD5 (as `md5sum -c` reads them),
//!    40 SHA-1. The others are shared (64: SHA-256, SHA3-256, BLAKE3, SM3)
//!    and such a line is not checked: its message names the `-a` values
//!    that fit ([`fitting`]). A non-cryptographic hash (xxHash, a CRC) is
//!    never inferred: a line is never taken as OK because 8 or 16 bytes of
//!    a checksum anyone can forge happen to equal it.
//!
//! Under the GNU, b3sum and xxhsum names, and whenever `-a` is given, none
//! of this applies: the tool's rule, or `-a`, decides.

use crate::algo::Algorithm;

use super::parse::{self, Syntax};

/// The algorithm a word of a check file's name or of a comment names:
/// `sha256`, `SHA256SUMS`, `sha256sum`, `SHASUMS256` (Node.js), `B2SUMS`,
/// `b3`, `sha3-256`, `BLAKE2B`; any case. The words are the rows'
/// (`Algorithm::file_words`: cryptographic algorithms only), with `sum` or
/// `sums` after them, and a family that needs a length (SHA-3) also with
/// its size after `-` or `_`; a family's own word alone is its default
/// length (the length is then the hex's, as `-a blake2b` / `-a sha3` read
/// it). `None` for any other word (`shasum`, `checksums`: no algorithm).
fn word(w: &[u8]) -> Option<Algorithm> {
    let mut w = w.to_ascii_lowercase();
    // SHA-256, SHA-1 (as prose writes them) are sha256, sha1
    if w.starts_with(b"sha-") {
        w.remove(3);
    }
    let w = w.as_slice();
    let base = w
        .strip_suffix(b"sums")
        .or_else(|| w.strip_suffix(b"sum"))
        .unwrap_or(w);
    let names = |family: Algorithm, word: &str| {
        if base == word.as_bytes() {
            return Some(family);
        }
        let sized = |a: &Algorithm| {
            let bits = 8 * a.digest_len();
            ["-", "_"]
                .into_iter()
                .any(|sep| base == format!("{word}{sep}{bits}").as_bytes())
        };
        let sizes = family
            .needs_length()
            .then(|| family.written_without_length());
        sizes?.into_iter().find(sized)
    };
    Algorithm::ALL
        .into_iter()
        .find_map(|family| family.file_words().iter().find_map(|w| names(family, w)))
}

/// What wraps a check file without changing what it holds: a clear-signed
/// `SHA256SUMS.asc`, `sha256sums.txt`. Taken off the end of a name before
/// its words are read.
const WRAPPERS: [&[u8]; 6] = [b".asc", b".sig", b".gpg", b".sign", b".minisig", b".txt"];

/// A check file's base name without its wrapping extensions, lowered.
fn unwrapped(base: &[u8]) -> Vec<u8> {
    let mut name = base.to_ascii_lowercase();
    while let Some(w) = WRAPPERS.iter().find(|w| name.ends_with(w)) {
        if name.len() == w.len() {
            break;
        }
        name.truncate(name.len() - w.len());
    }
    name
}

/// The base name of `path` (bytes after the last `/`).
fn base_name(path: &[u8]) -> &[u8] {
    path.rsplit(|&b| b == b'/').next().unwrap_or(path)
}

/// The algorithm a check file's name (`path`'s last component) names: its
/// first or last `.`-separated word, once `.asc`, `.txt` and the like are
/// off (`SHA256SUMS`, `sha256sums.txt`, `SHASUMS256.txt.asc`,
/// `go1.23.0.linux-amd64.tar.gz.sha256`, `MD5SUMS`, `B2SUMS`, `x.b3`).
/// `None` when neither names one, or they name two.
pub(crate) fn from_name(path: &[u8]) -> Option<Algorithm> {
    let name = unwrapped(base_name(path));
    let mut words = name.split(|&b| b == b'.');
    let first = words.next().and_then(word);
    let last = words.next_back().and_then(word);
    match (first, last) {
        (Some(a), Some(b)) if a != b => None,
        (a, b) => a.or(b),
    }
}

/// A check file that holds only a digest (Go's `X.tar.gz.sha256`) checks
/// the file its name points at: the name without the extension that names
/// the algorithm (and without `.asc`, `.txt`…), and that algorithm.
/// `None` when the name ends in no algorithm's extension.
pub(crate) fn bare_target(path: &[u8]) -> Option<(Vec<u8>, Algorithm)> {
    let base = base_name(path);
    let kept = unwrapped(base).len();
    let dot = base[..kept].iter().rposition(|&b| b == b'.')?;
    let algo = word(&base[dot + 1..kept])?;
    (dot > 0).then(|| (base[..dot].to_vec(), algo))
}

/// The words a block header may hold besides its algorithm's name.
const HEADER_WORDS: [&[u8]; 8] = [
    b"checksums",
    b"checksum",
    b"hash",
    b"hashes",
    b"sums",
    b"sum",
    b"digest",
    b"digests",
];

/// The algorithm a comment line (`raw`, `#` first) names when it is only
/// the header of the block below it: `# Checksums-Sha256:`, `# SHA512
/// HASH`, `# MD5`, `# SHA-256 checksums`. Its words (split at blanks, `:`
/// and `-`, but `SHA-256` and `sha3-256` are one) are the algorithm's name,
/// perhaps several times, and [`HEADER_WORDS`] alone. `None` for anything
/// else: a comment of prose (`# Mirrored to Backblaze B2 on 2026-11-01`,
/// `# sha256sum *.deb > SHA256SUMS`), one naming none or several, and
/// bytes that are no text (a binary file's `#` line).
pub(crate) fn from_header(raw: &[u8]) -> Option<Algorithm> {
    let text = raw.strip_prefix(b"#")?;
    let text = text.strip_suffix(b"\n").unwrap_or(text);
    let text = text.strip_suffix(b"\r").unwrap_or(text);
    let mut found = None;
    let mut name = |a: Algorithm| match found {
        Some(f) if f != a => false,
        _ => {
            found = Some(a);
            true
        }
    };
    for token in text
        .split(|&b| matches!(b, b' ' | b'\t' | b':'))
        .filter(|t| !t.is_empty())
    {
        if let Some(a) = word(token) {
            if !name(a) {
                return None;
            }
            continue;
        }
        for part in token.split(|&b| b == b'-').filter(|p| !p.is_empty()) {
            let filler = HEADER_WORDS.contains(&part.to_ascii_lowercase().as_slice());
            match word(part) {
                Some(a) if name(a) => {}
                None if filler => {}
                _ => return None,
            }
        }
    }
    found
}

/// The cryptographic algorithms whose untagged lines a length may stand
/// for (the rows', `Algorithm::is_cryptographic`), as each writes them
/// without `-l`; SHA-3 at its four sizes (it has no default). BLAKE2b at
/// another length is written only with `-l`, and is read with `-a
/// blake2b`.
fn cryptographic() -> impl Iterator<Item = Algorithm> {
    Algorithm::ALL
        .into_iter()
        .filter(|a| a.is_cryptographic())
        .flat_map(Algorithm::written_without_length)
}

/// The one cryptographic algorithm whose digest is `bytes` long: MD5 for
/// 16, SHA-1 for 20; `None` for the shared lengths (28, 32, 48, 64) and
/// the others.
pub(crate) fn by_length(bytes: usize) -> Option<Algorithm> {
    let mut fits = cryptographic().filter(|a| a.digest_len() == bytes);
    let one = fits.next()?;
    fits.all(|a| a == one).then_some(one)
}

/// Whether `-c` without `-a` reads an untagged line of `algo` back as
/// `algo` by its length alone ([`by_length`]): MD5's and SHA-1's, and no
/// other's. Under fastsum's own name the others are written tagged
/// (`cli/style.rs`), so that what fastsum writes it can check and update.
pub(crate) fn reads_back(algo: Algorithm) -> bool {
    by_length(algo.digest_len()) == Some(algo)
}

/// What fastsum's own rules make of an untagged line's algorithm when `-a`
/// does not say.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Untagged {
    /// This one: a block header's, the check file's name's, or the one
    /// cryptographic algorithm of the digest's length.
    Known(Algorithm),
    /// Several algorithms, or only non-cryptographic ones, have a digest
    /// of this many bytes (`hex`: written in hex, else base64).
    Unknown { bytes: usize, hex: bool },
    /// The line is tagged, or no untagged line of any algorithm: the
    /// syntax's default reads it (and finds it improper, or an S3 ETag).
    Default,
}

/// The algorithm of the untagged line `body` (see [`Untagged`]), the one
/// inference of `-c`, `--update` and `--audit`: `said` is what the block
/// header above it or else the check file's name names; `tagged`: the line
/// starts with a tag.
pub(crate) fn untagged(
    body: &[u8],
    said: Option<Algorithm>,
    syntax: &Syntax,
    tagged: bool,
) -> Untagged {
    if let Some(algo) = said {
        return Untagged::Known(algo);
    }
    if tagged {
        return Untagged::Default;
    }
    let Some((bytes, hex)) = parse::digest_len(body, syntax.digits) else {
        return Untagged::Default;
    };
    if let Some(algo) = by_length(bytes) {
        return Untagged::Known(algo);
    }
    // only a line that an algorithm of this length without `-l` reads as
    // a whole checksum line is one whose algorithm is wanted (not any text
    // that starts with a few hex digits, which BLAKE2b-N would read)
    let reads = fitting(bytes)
        .into_iter()
        .filter(|a| !matches!(a, Algorithm::Blake2b(_)))
        .any(|a| {
            Syntax {
                default: a,
                ..*syntax
            }
            .parse(body)
            .is_ok()
        });
    if reads {
        Untagged::Unknown { bytes, hex }
    } else {
        Untagged::Default
    }
}

/// The `-a` values under which a line with a digest of `bytes` bytes is
/// read, in `-a`'s order: every algorithm of that length that writes
/// untagged lines (not those whose lines are always tagged, nor those
/// that print their own), BLAKE2b and SHA-3 at any length they have.
pub(crate) fn fitting(bytes: usize) -> Vec<Algorithm> {
    Algorithm::ALL
        .into_iter()
        .filter(|&a| a.legacy().is_none() && !a.tagged_only())
        .filter(|&a| match a.takes_length() {
            true => a.with_length(8 * bytes as u64).is_ok(),
            false => a.digest_len() == bytes,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algo::{Bits, Sha3Size};

    #[test]
    fn names_projects_publish() {
        let sha3 = |bits| Algorithm::Sha3(Sha3Size::new(bits).unwrap());
        for (name, algo) in [
            ("SHA256SUMS", Some(Algorithm::Sha256)),
            ("dl/SHA256SUMS", Some(Algorithm::Sha256)),
            ("SHA256SUMS.asc", Some(Algorithm::Sha256)),
            ("SHA256SUMS.txt", Some(Algorithm::Sha256)),
            ("sha256sums.txt", Some(Algorithm::Sha256)),
            ("sha256sums.asc", Some(Algorithm::Sha256)),
            ("sha256sum.txt", Some(Algorithm::Sha256)),
            ("SHASUMS256.txt", Some(Algorithm::Sha256)),
            ("SHASUMS256.txt.asc", Some(Algorithm::Sha256)),
            ("SHA512SUMS", Some(Algorithm::Sha512)),
            ("SHA384SUMS", Some(Algorithm::Sha384)),
            ("SHA224SUMS", Some(Algorithm::Sha224)),
            ("SHA1SUMS", Some(Algorithm::Sha1)),
            ("MD5SUMS", Some(Algorithm::Md5)),
            ("md5sum.txt", Some(Algorithm::Md5)),
            ("B2SUMS", Some(Algorithm::Blake2b(Bits::MAX))),
            ("b2sums.txt", Some(Algorithm::Blake2b(Bits::MAX))),
            ("B3SUMS", Some(Algorithm::Blake3)),
            ("SHA256", Some(Algorithm::Sha256)),
            (
                "go1.23.0.linux-amd64.tar.gz.sha256",
                Some(Algorithm::Sha256),
            ),
            ("x.tar.gz.sha256sum", Some(Algorithm::Sha256)),
            ("x.iso.sha512", Some(Algorithm::Sha512)),
            ("x.iso.md5", Some(Algorithm::Md5)),
            ("x.iso.sha1", Some(Algorithm::Sha1)),
            ("x.b3", Some(Algorithm::Blake3)),
            ("x.b2", Some(Algorithm::Blake2b(Bits::MAX))),
            ("x.sha3-256", Some(sha3(256))),
            ("SHA3-512SUMS", Some(sha3(512))),
            // no algorithm, or two
            ("CHECKSUMS", None),
            ("checksums.txt", None),
            ("Fedora-Workstation-41-1.4-x86_64-CHECKSUM", None),
            ("SHASUMS", None),
            ("sums", None),
            ("md5.tar.sha256", None),
            (".sha256", Some(Algorithm::Sha256)),
            ("sha256-tool-1.0.tar.gz", None),
        ] {
            assert_eq!(from_name(name.as_bytes()), algo, "{name}");
        }
    }

    #[test]
    fn a_bare_digest_names_its_file() {
        assert_eq!(
            bare_target(b"dl/go1.23.0.linux-amd64.tar.gz.sha256"),
            Some((b"go1.23.0.linux-amd64.tar.gz".to_vec(), Algorithm::Sha256))
        );
        assert_eq!(
            bare_target(b"x.iso.SHA512.txt"),
            Some((b"x.iso".to_vec(), Algorithm::Sha512))
        );
        assert_eq!(bare_target(b"SHA256SUMS"), None);
        assert_eq!(bare_target(b".sha256"), None);
        assert_eq!(bare_target(b"x.tar.gz"), None);
    }

    #[test]
    fn block_headers() {
        assert_eq!(from_header(b"# Checksums-Sha1:"), Some(Algorithm::Sha1));
        assert_eq!(
            from_header(b"# Checksums-Sha256:\n"),
            Some(Algorithm::Sha256)
        );
        assert_eq!(
            from_header(b"# BLAKE2B HASH"),
            Some(Algorithm::Blake2b(Bits::MAX))
        );
        assert_eq!(from_header(b"#SHA512 HASH"), Some(Algorithm::Sha512));
        assert_eq!(from_header(b"# MD5\r\n"), Some(Algorithm::Md5));
        assert_eq!(from_header(b"# SHA-256 checksums"), Some(Algorithm::Sha256));
        assert_eq!(
            from_header(b"# sha3-256 digests:"),
            Some(Algorithm::Sha3(Sha3Size::S256))
        );
        assert_eq!(from_header(b"# SHA256 SHA256"), Some(Algorithm::Sha256));
        // prose that holds an algorithm's word is no header (issue 40 §4)
        for none in [
            &b"# Mirrored to Backblaze B2 on 2026-11-01"[..],
            b"# sha256sum *.deb > SHA256SUMS",
            b"# generated with md5sum",
            b"# B3 \xff\x93 garbage",
            b"#\x01b3",
            &b"# Checksums, check with the command below:"[..],
            b"#     shasum -c CHECKSUMS",
            b"#",
            b"# md5 and sha1",
            b"not a comment sha256",
        ] {
            assert_eq!(from_header(none), None, "{}", String::from_utf8_lossy(none));
        }
    }

    #[test]
    fn only_one_cryptographic_algorithm_per_length() {
        assert_eq!(by_length(16), Some(Algorithm::Md5));
        assert_eq!(by_length(20), Some(Algorithm::Sha1));
        for shared in [28, 32, 48, 64] {
            assert_eq!(by_length(shared), None, "{shared}");
        }
        // xxHash's and the CRCs' lengths: never inferred
        for other in [4, 8, 2, 0, 65] {
            assert_eq!(by_length(other), None, "{other}");
        }
        let names = |n| {
            fitting(n)
                .into_iter()
                .map(Algorithm::name)
                .collect::<Vec<_>>()
        };
        assert_eq!(names(32), ["sha256", "blake3", "blake2b", "sm3", "sha3"]);
        assert_eq!(names(64), ["sha512", "blake2b", "sha3"]);
        assert_eq!(names(8), ["blake2b", "xxh64"]);
        assert_eq!(names(16), ["md5", "blake2b", "xxh128"]);
        assert!(names(65).is_empty());
    }
}
