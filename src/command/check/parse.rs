//! The syntax of checksum lines, as GNU coreutils 9.1 reads them: a pure
//! parser over bytes (never `String`: a check file may hold any byte), kept
//! apart from the I/O so it can be tested and fuzzed on its own.
//!
//! Accepted shapes (after optional leading blanks and an optional `\` that
//! marks an escaped name):
//!
//! * standard: `<hex>  <name>` or `<hex> *<name>` (the blank after the hex
//!   may be a tab);
//! * "BSD reversed": `<hex> <name>` (a single blank, then a name that does
//!   not start with a blank or `*`, or is one byte long);
//! * tagged: `ALGO (<name>) = <hex>` as `--tag` writes it, and the OpenSSL
//!   `ALGO(<name>)= <hex>`; blanks around `=` are optional. Between the tag
//!   and `(` the tools differ ([`Tags`]): md5sum … sha512sum take one
//!   space at most; b2sum and cksum skip the byte after the tag whatever
//!   it is, then one space (`BLAKE2b\t(a)`, `MD5  (a)`); cksum without
//!   `-a` reads the tag as a word and knows only its own algorithms.
//!
//! GNU handles the line as a C string in places, and that shows: a name is
//! cut at its first NUL byte (unless escaped, where a NUL is an error), and
//! a tagged line's hex ends at a NUL. Both are copied here.
//!
//! Under an xxhsum name the lines are xxhsum 0.8.1's ([`xxhsum_line`]), and
//! under b3sum b3sum 1.8's (in check/grammar/b3sum.rs).

use crate::algo::{Algorithm, Algorithms, Digest, PartSize, Parts};
use crate::config::Tags;

/// A line GNU calls "improperly formatted".
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Improper;

/// Which of GNU's line shapes a line has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Form {
    /// `ALGO (name) = hex` or `ALGO(name)= hex`.
    Tagged,
    /// `hex  name` or `hex *name`.
    Standard,
    /// `hex name` (BSD `md5 -r`).
    Reversed,
}

/// The digest a line expects, decoded from its hex.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) struct Expected {
    bytes: [u8; 64],
    len: u8,
    /// S3's `-N` over parts; 0 for a digest of the whole file.
    parts: u64,
}

impl Expected {
    /// Decode `hex` (upper or lower case); `None` unless it is exactly the
    /// hex of an `algo` digest.
    pub(crate) fn from_hex(hex: &[u8], algo: Algorithm) -> Option<Expected> {
        let len = algo.digest_len();
        if hex.len() != 2 * len {
            return None;
        }
        let mut bytes = [0u8; 64];
        for (out, pair) in bytes.iter_mut().zip(hex.chunks_exact(2)) {
            *out = (hex_value(pair[0])? << 4) | hex_value(pair[1])?;
        }
        Some(Expected {
            bytes,
            // digest_len() is at most 64
            len: len as u8,
            parts: 0,
        })
    }

    /// Decode an S3 digest over parts as S3 shows it (see
    /// `output::parts_text`): the ETag's hex or a composite checksum's
    /// base64, then `-N` for `N` parts (none: a single PUT's digest).
    fn from_parts_text(text: &[u8], algo: Algorithm, parts: Parts) -> Option<Expected> {
        let (value, n) = match text.iter().rposition(|&c| c == b'-') {
            Some(dash) => {
                let n = std::str::from_utf8(&text[dash + 1..]).ok()?;
                if n.is_empty() || !n.bytes().all(|c| c.is_ascii_digit()) {
                    return None;
                }
                (&text[..dash], n.parse::<u64>().ok().filter(|&n| n > 0)?)
            }
            None => (text, 0),
        };
        let digits = if parts.hex() {
            Digits::Hex
        } else {
            Digits::HexOrBase64
        };
        if !parts.hex() && hex_digits(value) == value.len() {
            // a composite checksum is base64 only (its hex would be read
            // as hex by from_text); its base64 always ends in `=` padding
            // (a CRC's 4 bytes are `…==`, as long as their hex: issue 40 §6)
            return None;
        }
        Expected::from_text(value, algo, digits).map(|e| Expected { parts: n, ..e })
    }

    /// Does `digest` match it (its bytes and, over parts, its count)?
    pub(crate) fn matches(&self, digest: &Digest) -> bool {
        digest.as_bytes() == self.as_bytes() && digest.parts() == self.parts
    }

    /// Does `digest`, of `algo`, match it? As [`Expected::matches`], and a
    /// multipart upload of one part (`-1`: the hash of the one part's
    /// digest, which S3 reports for a file of one part sent as a multipart
    /// upload) matches the plain digest of a file of one part.
    pub(crate) fn matches_as(&self, digest: &Digest, algo: Algorithm) -> bool {
        match algo.parts() {
            Some(p) if self.parts == 1 && digest.parts() == 0 => {
                let mut h = crate::algo::Hasher::new(p.of.algorithm());
                h.update(digest.as_bytes());
                h.finalize().as_bytes() == self.as_bytes()
            }
            _ => self.matches(digest),
        }
    }

    /// S3's `-N`: over how many parts it was composed (0: the whole file).
    pub(crate) fn parts(&self) -> u64 {
        self.parts
    }

    /// Decode `text`, the hex of an `algo` digest or, when `digits` allows,
    /// its base64 (cksum's `--base64`: the other length, so never both).
    fn from_text(text: &[u8], algo: Algorithm, digits: Digits) -> Option<Expected> {
        if digits == Digits::Hex {
            return Expected::from_hex(text, algo);
        }
        // (a 4-byte digest's base64 is as long as its hex, but ends in `==`)
        if text.len() == 2 * algo.digest_len()
            && let Some(hex) = Expected::from_hex(text, algo)
        {
            return Some(hex);
        }
        let bytes = crate::output::base64_decode(text)?;
        if bytes.len() != algo.digest_len() {
            return None;
        }
        let mut out = [0u8; 64];
        out[..bytes.len()].copy_from_slice(&bytes);
        Some(Expected {
            bytes: out,
            len: bytes.len() as u8,
            parts: 0,
        })
    }

    /// The digest bytes.
    pub(crate) fn as_bytes(&self) -> &[u8] {
        &self.bytes[..usize::from(self.len)]
    }

    /// The digest with its bytes in the other order (xxhsum's
    /// `--little-endian`, and its `_LE` tags).
    fn reversed(mut self) -> Expected {
        self.bytes[..usize::from(self.len)].reverse();
        self
    }
}

impl std::fmt::Debug for Expected {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Expected(")?;
        for b in self.as_bytes() {
            write!(f, "{b:02x}")?;
        }
        write!(f, ")")
    }
}

fn hex_value(c: u8) -> Option<u8> {
    match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        b'A'..=b'F' => Some(c - b'A' + 10),
        _ => None,
    }
}

/// A well-formed checksum line. The file name is kept as written, because
/// which bytes make the name of an untagged line depends on the lines before
/// it (see [`CheckLine::file_name`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct CheckLine<'a> {
    /// The algorithm: the tag's, or the default for untagged lines.
    pub(crate) algo: Algorithm,
    /// The digest the file must have.
    pub(crate) expected: Expected,
    /// The line's shape.
    pub(crate) form: Form,
    /// Whether the line started with `\` (an escaped name).
    pub(crate) escaped: bool,
    /// The name as written; for [`Form::Standard`] it still starts with the
    /// ` ` or `*` mode marker.
    written: &'a [u8],
}

impl CheckLine<'_> {
    /// A standard line's `*` mode marker (`hex *name`, GNU's `-b`).
    pub(crate) fn binary_marker(&self) -> bool {
        self.form == Form::Standard && self.written.first() == Some(&b'*')
    }

    /// The file to check. `reversed` tells whether earlier lines settled on
    /// the BSD-reversed shape: GNU then reads a standard-looking line's mode
    /// marker as the first byte of the name (`hex  name` names ` name`).
    /// `Err` for an escaped name with a bad escape or a NUL (for an untagged
    /// line only found here, as GNU finds it after settling the latch).
    pub(crate) fn file_name(&self, reversed: bool) -> Result<Vec<u8>, Improper> {
        let name = match self.form {
            Form::Standard if !reversed => &self.written[1..],
            _ => self.written,
        };
        if self.escaped {
            unescape(name)
        } else {
            Ok(until_nul(name).to_vec())
        }
    }
}

/// The part of a raw line (as read, `\n` included if present) that GNU
/// parses: without the `\n` and one `\r` before it. `None` for the lines
/// GNU skips: empty ones and comments (a `#` in the very first column).
pub(crate) fn line_body(raw: &[u8]) -> Option<&[u8]> {
    if raw.first() == Some(&b'#') {
        return None;
    }
    let line = raw.strip_suffix(b"\n").unwrap_or(raw);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    (!line.is_empty()).then_some(line)
}

/// GNU's ISWHITE: only space and tab count as blanks in a checksum line.
fn is_blank(c: u8) -> bool {
    c == b' ' || c == b'\t'
}

/// The byte at `i`, or NUL past the end (GNU reads a NUL-terminated copy).
fn at(s: &[u8], i: usize) -> u8 {
    s.get(i).copied().unwrap_or(0)
}

/// `s` up to its first NUL byte.
fn until_nul(s: &[u8]) -> &[u8] {
    s.iter().position(|&b| b == 0).map_or(s, |n| &s[..n])
}

/// Which algorithms a run accepts in a check line's tag.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Accept {
    /// Every algorithm's: `fastsum -c` without `-a` lets a tag pick its
    /// line's algorithm, as GNU `cksum -c` does.
    Any,
    /// Only the default algorithm's, because the user chose it (`-a`, or a
    /// multi-call name such as `sha256sum`): a line tagged with another
    /// algorithm is improper, as in GNU, so a weaker hash never stands in
    /// for the one asked for.
    OnlyDefault,
    /// Only those of the algorithms chosen with `-a x,y` (a mixed file
    /// written by `fastsum -a x,y`); an untagged line uses the first of them
    /// whose hex length it has.
    Only(Algorithms),
}

/// How a line may write its digest.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Digits {
    /// In hex (GNU 9.1's md5sum … sha512sum, b2sum, cksum).
    Hex,
    /// In hex or base64 (cksum's `--base64` lines, as GNU 9.8 reads them).
    HexOrBase64,
}

/// How a run reads GNU's check lines: the syntax GNU's grammar
/// (`check/grammar/gnu.rs`) and `--update` parse a line body with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Syntax {
    /// The algorithm of untagged lines (`-a`, or the multi-call name).
    pub(crate) default: Algorithm,
    /// Which tags may name another algorithm.
    pub(crate) accept: Accept,
    /// How digests may be written.
    pub(crate) digits: Digits,
    /// How a tag is read, and which tags the name knows.
    pub(crate) tags: Tags,
}

impl Syntax {
    /// Parse one line body (see [`line_body`]).
    pub(crate) fn parse<'l>(&self, line: &'l [u8]) -> Result<CheckLine<'l>, Improper> {
        parse_line_with(line, self.default, self.accept, self.digits, self.tags)
    }

    /// The algorithm whose tag starts the line body, read as GNU cksum's
    /// `algorithm_from_tag` reads it (whatever follows): a word that ends
    /// at a blank, `-`, `(` or NUL, and one of the names this run knows.
    /// `None` under the names whose tag is fixed.
    pub(crate) fn tag_of(&self, line: &[u8]) -> Option<Algorithm> {
        let (_, rest) = start(line);
        match self.tags {
            Tags::Cksum | Tags::Any => word_tag(rest, self.tags).map(|(a, _)| a),
            Tags::Exact | Tags::SkipOne => None,
        }
    }
}

/// Where a line's content starts: after blanks and the `\` that marks an
/// escaped name (and whether there was one).
fn start(line: &[u8]) -> (bool, &[u8]) {
    let mut i = line.iter().take_while(|&&c| is_blank(c)).count();
    let escaped = at(line, i) == b'\\';
    if escaped {
        i += 1;
    }
    (escaped, &line[i..])
}

/// Parse one line body (see [`line_body`]) with fastsum's own rules (tags
/// read as GNU cksum reads them, every algorithm's). `default` is the
/// algorithm of untagged lines; `accept` says whether a tag may name
/// another one.
#[cfg(test)]
pub(crate) fn parse_check_line(
    line: &[u8],
    default: Algorithm,
    accept: Accept,
) -> Result<CheckLine<'_>, Improper> {
    parse_line_with(line, default, accept, Digits::Hex, Tags::Any)
}

/// A line body parsed as `parse_check_line` parses it, digests written as
/// `digits` allows, tags read as `tags` says.
fn parse_line_with(
    line: &[u8],
    default: Algorithm,
    accept: Accept,
    digits: Digits,
    tags: Tags,
) -> Result<CheckLine<'_>, Improper> {
    let (escaped, rest) = start(line);
    // A line that starts with a tag is tagged or nothing: GNU never falls
    // back to reading it as untagged (`MD5X (a) = …` is improper).
    if let Some(tag) = parse_tag(rest, tags) {
        let (algo, mut j) = tag?;
        // no other algorithm's tag can start a valid untagged line (a tag
        // starts with a letter that is not a hex digit), so refusing it here
        // is all GNU does; the tag's own length stands (`BLAKE2b-256` under
        // b2sum, whatever `-l`)
        let refused = match accept {
            Accept::Any => false,
            Accept::OnlyDefault => !algo.same_family(default),
            Accept::Only(set) => !set.as_slice().iter().any(|a| a.same_family(algo)),
        };
        if refused {
            return Err(Improper);
        }
        // b2sum and cksum overwrite the byte after the tag with a NUL and
        // step over it, so it may be anything (`BLAKE2b\t(`), unless it is
        // `(` or starts a length (`BLAKE2b-256 (`)
        let sized = at(rest, algo.gnu_name().len()) == b'-';
        if tags != Tags::Exact && !sized && at(rest, j) != b'(' {
            j += 1;
        }
        if at(rest, j) == b' ' {
            j += 1;
        }
        if at(rest, j) != b'(' {
            return Err(Improper);
        }
        return parse_tagged(&rest[j + 1..], algo, escaped, digits);
    }
    // under fastsum's own name, `HEX-N  NAME` is an S3 ETag pasted as S3
    // shows it, of a part size to find (see `check::etag_part_sizes`)
    if tags == Tags::Any
        && default == Algorithm::Md5
        && let Some(line) = bare_etag(rest, escaped)
    {
        return Ok(line);
    }
    let algo = match accept {
        Accept::Only(set) => untagged_algo(rest, set),
        Accept::Any | Accept::OnlyDefault => sized_by_hex(default, hex_digits(rest)),
    };
    // cksum's CRC has no checksum lines (cksum -c without -a)
    if algo.legacy().is_some() {
        return Err(Improper);
    }
    // b2sum's and cksum's shortest line is 3 bytes (`-l 8`'s), whatever
    // the length: `<hex> ` alone is a reversed line naming the empty file
    let shortest = match tags {
        Tags::Exact | Tags::Any => None,
        Tags::SkipOne | Tags::Cksum => Some(3),
    };
    parse_untagged(rest, algo, escaped, shortest).or_else(|e| match (digits, accept) {
        // base64 says its digest's length by its own: under `-a x,y` (and
        // cksum's `-a sha2` without `-l`, any SHA-2) the one it fits
        (Digits::HexOrBase64, Accept::Only(set)) => set
            .as_slice()
            .iter()
            .find_map(|&a| parse_untagged_base64(rest, a, escaped).ok())
            .ok_or(Improper),
        (Digits::HexOrBase64, _) => parse_untagged_base64(rest, algo, escaped),
        (Digits::Hex, _) => Err(e),
    })
}

/// The tag that starts `rest`, if a family name does: its algorithm, with
/// the length of a `-N` suffix (BLAKE2b, SHA-3; SHA-3's is required, as
/// cksum writes it), and where the tag ends. `Err` for a length that is
/// none of the family's, or a `-` after a tag that takes none. Under
/// [`Tags::Exact`] and [`Tags::SkipOne`] the tag is a prefix (the longest:
/// `XXH32` is not `XXH3`), as GNU compares the tool's own; under the
/// others a word, as GNU cksum looks it up.
fn parse_tag(rest: &[u8], tags: Tags) -> Option<Result<(Algorithm, usize), Improper>> {
    // fastsum's own tags over parts: `MD5@8M` (docs/check.md)
    if tags == Tags::Any
        && let Some(over) = parts_tag(rest)
    {
        return Some(over);
    }
    let (family, end) = match tags {
        Tags::Exact | Tags::SkipOne => {
            let family = Algorithm::ALL
                .into_iter()
                .filter(|a| a.legacy().is_none() && rest.starts_with(a.gnu_name().as_bytes()))
                .max_by_key(|a| a.gnu_name().len())?;
            (family, family.gnu_name().len())
        }
        // (a word that names no algorithm, `MD5X` or `CRC`, is then read
        // as untagged, and is improper as such: it is no hex)
        Tags::Cksum | Tags::Any => word_tag(rest, tags)?,
    };
    if !family.takes_length() {
        // b2sum and cksum read a length after any tag (`MD5-128`), and
        // then compare only that many bits of the digest: fastsum takes
        // the algorithm's own length alone, never a shorter one (a
        // truncated MD5 or SHA-256 is not the hash asked for)
        if tags != Tags::Exact && at(rest, end) == b'-' {
            let full = 8 * family.digest_len() as u64;
            return Some(match strtoumax(&rest[end + 1..]) {
                Some((bits, used)) if bits == full => Ok((family, end + 1 + used)),
                _ => Err(Improper),
            });
        }
        return Some(Ok((family, end)));
    }
    if at(rest, end) != b'-' {
        return Some(match family {
            Algorithm::Sha3(_) => Err(Improper),
            _ => Ok((family, end)),
        });
    }
    Some(
        strtoumax(&rest[end + 1..])
            .and_then(|(bits, used)| Some((family.with_length(bits).ok()?, end + 1 + used)))
            .ok_or(Improper),
    )
}

/// A tag over parts, `FAMILY@SIZE` (`MD5@8M`, `SHA256@5M`): the algorithm
/// over parts and where the tag ends; `None` when the word that starts
/// `rest` has no `@`; `Err` for a family S3 does not compose or no part
/// size.
fn parts_tag(rest: &[u8]) -> Option<Result<(Algorithm, usize), Improper>> {
    let end = word_end(rest);
    let at_sign = rest[..end].iter().position(|&c| c == b'@')?;
    let family = Algorithm::ALL
        .into_iter()
        .find(|a| a.legacy().is_none() && a.gnu_name().as_bytes() == &rest[..at_sign]);
    // (CRC32B's family prints a line of its own, but composes as S3's)
    let family = family.or((&rest[..at_sign] == b"CRC32B").then_some(Algorithm::Crc32b));
    let size = std::str::from_utf8(&rest[at_sign + 1..end])
        .ok()
        .and_then(|s| crate::size::parse_bytes(s).ok())
        .and_then(PartSize::new);
    let over = family
        .and_then(crate::algo::Composed::of)
        .zip(size)
        .map(|(of, size)| Algorithm::Parts(Parts::new(of, size)));
    Some(over.map(|a| (a, end)).ok_or(Improper))
}

/// A number as GNU's `xstrtoumax` reads a tag's length (base 0, any
/// suffix): C blanks, an optional `+`, then `0x` hex, `0` octal or
/// decimal digits (`BLAKE2b-0x80`, `BLAKE2b-0200`); the value and how many
/// bytes it took. `None` for no number, a `-`, or an overflow.
fn strtoumax(s: &[u8]) -> Option<(u64, usize)> {
    let mut i = s
        .iter()
        .take_while(|c| matches!(c, b' ' | b'\t' | b'\n' | b'\x0b' | b'\x0c' | b'\r'))
        .count();
    if at(s, i) == b'+' {
        i += 1;
    }
    let (radix, start) = match (at(s, i), at(s, i + 1)) {
        (b'0', b'x' | b'X') if char::from(at(s, i + 2)).is_ascii_hexdigit() => (16, i + 2),
        (b'0', _) => (8, i),
        _ => (10, i),
    };
    let len = s[start.min(s.len())..]
        .iter()
        .take_while(|&&c| char::from(c).is_digit(radix))
        .count();
    if len == 0 {
        return None;
    }
    let text = std::str::from_utf8(&s[start..start + len]).ok()?;
    Some((u64::from_str_radix(text, radix).ok()?, start + len))
}

/// Where GNU cksum's tag word ends: at the first blank, `-`, `(` or NUL.
fn word_end(rest: &[u8]) -> usize {
    rest.iter()
        .position(|&c| is_blank(c) || matches!(c, b'-' | b'(' | 0))
        .unwrap_or(rest.len())
}

/// The algorithm whose tag is the word `rest` starts with, among those
/// `tags` knows (GNU cksum's own, or every one), and where the word ends.
fn word_tag(rest: &[u8], tags: Tags) -> Option<(Algorithm, usize)> {
    let end = word_end(rest);
    let word = &rest[..end];
    let known: &[Algorithm] = match tags {
        Tags::Cksum => &Algorithm::CKSUM,
        _ => &Algorithm::ALL,
    };
    known
        .iter()
        .copied()
        .find(|a| a.legacy().is_none() && a.gnu_name().as_bytes() == word)
        .map(|a| (a, end))
}

/// The length in bytes of the digest an untagged line body starts with
/// (after blanks and a `\`, up to the next blank), and whether it is hex:
/// hex of an even length, else (when `digits` allows) base64. `None` for
/// neither.
pub(crate) fn digest_len(body: &[u8], digits: Digits) -> Option<(usize, bool)> {
    let (_, rest) = start(body);
    let token = &rest[..rest.iter().position(|&c| is_blank(c)).unwrap_or(rest.len())];
    if !token.is_empty() && hex_digits(token) == token.len() {
        return token
            .len()
            .is_multiple_of(2)
            .then_some((token.len() / 2, true));
    }
    match digits {
        Digits::HexOrBase64 => crate::output::base64_decode(token)
            .filter(|b| !b.is_empty())
            .map(|b| (b.len(), false)),
        Digits::Hex => None,
    }
}

/// A line that is only a digest of `algo` (a check file such as Go's
/// `X.tar.gz.sha256`, blanks around it allowed): the algorithm, sized by
/// the digest for BLAKE2b and SHA-3, and the digest.
pub(crate) fn bare_digest(
    body: &[u8],
    algo: Algorithm,
    digits: Digits,
) -> Option<(Algorithm, Expected)> {
    let text = body.trim_ascii();
    if text.is_empty() || text.iter().any(|&c| is_blank(c)) {
        return None;
    }
    let algo = sized_by_hex(algo, text.len());
    Expected::from_text(text, algo, digits).map(|e| (algo, e))
}

/// How many hex digits `rest` starts with.
fn hex_digits(rest: &[u8]) -> usize {
    rest.iter().take_while(|c| c.is_ascii_hexdigit()).count()
}

/// The algorithm an untagged line of `digits` leading hex digits has when
/// `algo` is expected: the length of BLAKE2b and SHA-3 is the hex's (as
/// b2sum and cksum -a blake2b/sha3 determine it), any other algorithm is
/// itself.
fn sized_by_hex(algo: Algorithm, digits: usize) -> Algorithm {
    match algo {
        Algorithm::Blake2b(_) | Algorithm::Sha3(_) if digits.is_multiple_of(2) => {
            algo.with_length(digits as u64 * 4).unwrap_or(algo)
        }
        _ => algo,
    }
}

/// The algorithm of an untagged line under `-a x,y`: the first of them
/// whose hex is as long as the line's leading hex digits (else the first,
/// which then finds the line improper).
fn untagged_algo(rest: &[u8], set: Algorithms) -> Algorithm {
    let digits = hex_digits(rest);
    set.as_slice()
        .iter()
        .map(|&a| sized_by_hex(a, digits))
        .find(|a| 2 * a.digest_len() == digits)
        .unwrap_or(set.first())
}

/// After `ALGO (`: `name) = hex`, the name ending at the last `)`.
fn parse_tagged(
    s: &[u8],
    algo: Algorithm,
    escaped: bool,
    digits: Digits,
) -> Result<CheckLine<'_>, Improper> {
    // GNU looks for the last `)` at index ≥ 1, then takes index 0 as is:
    // `) = hex` names the empty file, `(` alone is improper.
    let close = match s.iter().rposition(|&c| c == b')') {
        Some(n) => n,
        None => return Err(Improper),
    };
    let written = &s[..close];
    if escaped {
        unescape(written)?;
    }
    let mut k = close + 1;
    while is_blank(at(s, k)) {
        k += 1;
    }
    if at(s, k) != b'=' {
        return Err(Improper);
    }
    k += 1;
    while is_blank(at(s, k)) {
        k += 1;
    }
    let hex = until_nul(&s[k.min(s.len())..]);
    let expected = match algo.parts() {
        Some(parts) => Expected::from_parts_text(hex, algo, parts),
        None => Expected::from_text(hex, algo, digits),
    }
    .ok_or(Improper)?;
    Ok(CheckLine {
        algo,
        expected,
        form: Form::Tagged,
        escaped,
        written,
    })
}

/// `hex  name`, `hex *name` or `hex name`, for the default algorithm.
/// `shortest`: the tool's shortest line, if not the hex, a blank and a
/// one-byte name.
fn parse_untagged(
    s: &[u8],
    algo: Algorithm,
    escaped: bool,
    shortest: Option<usize>,
) -> Result<CheckLine<'_>, Improper> {
    let hex_len = 2 * algo.digest_len();
    // GNU's minimum length: the hex, a blank and a one-byte name, plus one
    // when the hex starts with a (second) backslash.
    let min = shortest.unwrap_or(hex_len + 2) + usize::from(at(s, 0) == b'\\');
    if s.len() < min || !is_blank(at(s, hex_len)) {
        return Err(Improper);
    }
    let expected = Expected::from_hex(&s[..hex_len], algo).ok_or(Improper)?;
    untagged_line(algo, expected, &s[hex_len + 1..], escaped)
}

/// An untagged line whose digest was read: what follows it (` name`,
/// `*name` or `name`) decides its form.
fn untagged_line(
    algo: Algorithm,
    expected: Expected,
    written: &[u8],
    escaped: bool,
) -> Result<CheckLine<'_>, Improper> {
    let form = if written.len() > 1 && matches!(written[0], b' ' | b'*') {
        Form::Standard
    } else {
        Form::Reversed
    };
    // an escaped name is unescaped by [`CheckLine::file_name`], after the
    // line's form has settled the reversed-form latch: GNU settles it
    // before it finds a bad escape, so such a line still sets it
    Ok(CheckLine {
        algo,
        expected,
        form,
        escaped,
        written,
    })
}

/// `HEX-N  name`: an S3 ETag (an MD5's hex, `-N` parts) and a name, as an
/// untagged line has them; an MD5 line whose expected digest has `N`
/// parts and no part size. Also in double quotes, as `aws s3api
/// head-object` prints an ETag: `"HEX-N"  name`, and `"HEX"  name` (one
/// PUT's ETag, the file's MD5).
fn bare_etag(s: &[u8], escaped: bool) -> Option<CheckLine<'_>> {
    let hex_len = 2 * Algorithm::Md5.digest_len();
    let quoted = s.first() == Some(&b'"');
    let s = &s[usize::from(quoted)..];
    let digits = match at(s, hex_len) {
        b'-' => s[hex_len + 1..]
            .iter()
            .take_while(|c| c.is_ascii_digit())
            .count(),
        b'"' if quoted => 0,
        _ => return None,
    };
    let mut end = hex_len + if digits > 0 { 1 + digits } else { 0 };
    if at(s, hex_len) == b'-' && digits == 0 {
        return None;
    }
    if quoted {
        if at(s, end) != b'"' {
            return None;
        }
        end += 1;
    }
    if !is_blank(at(s, end)) || s.len() < end + 2 {
        return None;
    }
    let expected = Expected::from_hex(&s[..hex_len], Algorithm::Md5)?;
    let parts = match digits {
        0 => 0,
        _ => std::str::from_utf8(&s[hex_len + 1..hex_len + 1 + digits])
            .ok()?
            .parse()
            .ok()
            .filter(|&n| n > 0)?,
    };
    let expected = Expected { parts, ..expected };
    untagged_line(Algorithm::Md5, expected, &s[end + 1..], escaped).ok()
}

/// `base64  name` (cksum `--base64 --untagged`): the base64 of an `algo`
/// digest, a blank, the name.
fn parse_untagged_base64(
    s: &[u8],
    algo: Algorithm,
    escaped: bool,
) -> Result<CheckLine<'_>, Improper> {
    let len = algo.digest_len().div_ceil(3) * 4;
    if s.len() < len + 2 || !is_blank(s[len]) {
        return Err(Improper);
    }
    let expected = Expected::from_text(&s[..len], algo, Digits::HexOrBase64).ok_or(Improper)?;
    untagged_line(algo, expected, &s[len + 1..], escaped)
}

/// A check line as xxhsum 0.8.1 reads it (see [`xxhsum_line`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct XxhLine<'a> {
    /// The algorithm: the tag's, or the hex length's.
    pub(crate) algo: Algorithm,
    /// The digest, in the hash's canonical (big-endian) byte order.
    pub(crate) expected: Expected,
    /// The listed name, as written (`stdin` stands for standard input).
    pub(crate) name: &'a [u8],
}

/// One line of a check file under an xxhsum name (its `\n` removed, no
/// other byte: xxhsum has no comments and keeps a CR), as xxhsum 0.8.1
/// reads it: `HEX  NAME` (the digest's length says XXH32, XXH64 or XXH128;
/// the second separator may be any byte) or `TAG (NAME) = HEX` (`XXH3`,
/// `XXH32`, `XXH64`, `XXH128`, any of them with `_LE` for a reversed
/// digest). `little_endian`: untagged digests are reversed
/// (`--little-endian`).
pub(crate) fn xxhsum_line(line: &[u8], little_endian: bool) -> Result<XxhLine<'_>, Improper> {
    // xxhsum works on a C string: a NUL ends the line
    let line = until_nul(line);
    let first = line.iter().position(|&b| b == b' ').ok_or(Improper)?;
    let after = *line.get(first + 1).ok_or(Improper)?;
    let (algo, hex, name, reversed) = if after == b'(' {
        let last = line.iter().rposition(|&b| b == b' ').ok_or(Improper)?;
        if last < first + 5 || &line[last - 3..last] != b") =" {
            return Err(Improper);
        }
        let tag = &line[..first];
        // the last match wins, as in xxhsum (XXH32 starts with XXH3); a
        // tag of none of them is XXH64's
        let algo = [
            (&b"XXH3"[..], Algorithm::Xxh3),
            (b"XXH32", Algorithm::Xxh32),
            (b"XXH64", Algorithm::Xxh64),
            (b"XXH128", Algorithm::Xxh128),
        ]
        .into_iter()
        .rfind(|(p, _)| tag.starts_with(p))
        .map_or(Algorithm::Xxh64, |(_, a)| a);
        let reversed = tag.windows(3).any(|w| w == b"_LE");
        (
            algo,
            &line[last + 1..],
            &line[first + 2..last - 3],
            reversed,
        )
    } else {
        let hex = &line[..first];
        let algo = match hex.len() {
            8 => Algorithm::Xxh32,
            32 => Algorithm::Xxh128,
            _ => Algorithm::Xxh64,
        };
        (
            algo,
            hex,
            line.get(first + 2..).ok_or(Improper)?,
            little_endian,
        )
    };
    // the hex must be the algorithm's length (XXH3's is XXH64's)
    let expected = Expected::from_hex(hex, algo).ok_or(Improper)?;
    Ok(XxhLine {
        algo,
        expected: if reversed {
            expected.reversed()
        } else {
            expected
        },
        name,
    })
}

/// Undo GNU's name escaping: `\\`, `\n` and `\r`; any other escape, a
/// trailing `\` or a NUL byte make the line improper.
pub(crate) fn unescape(s: &[u8]) -> Result<Vec<u8>, Improper> {
    let mut out = Vec::with_capacity(s.len());
    let mut bytes = s.iter();
    while let Some(&c) = bytes.next() {
        match c {
            b'\\' => match bytes.next() {
                Some(b'\\') => out.push(b'\\'),
                Some(b'n') => out.push(b'\n'),
                Some(b'r') => out.push(b'\r'),
                _ => return Err(Improper),
            },
            0 => return Err(Improper),
            _ => out.push(c),
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algo::hash_bytes;
    use crate::config::{LineEnd, LineFormat, Names};
    use crate::output::gnu::{Line, format_line};
    use proptest::prelude::*;

    const HEX: &str = "b1946ac92492d2347c6235b4d2611184";

    fn parse(line: &[u8]) -> Result<(Form, Vec<u8>), Improper> {
        let l = parse_check_line(line, Algorithm::Md5, Accept::Any)?;
        Ok((l.form, l.file_name(false)?))
    }

    fn ok(form: Form, name: &[u8]) -> Result<(Form, Vec<u8>), Improper> {
        Ok((form, name.to_vec()))
    }

    #[test]
    fn shapes() {
        let l = |s: &str| format!("{HEX}{s}").into_bytes();
        assert_eq!(parse(&l("  a")), ok(Form::Standard, b"a"));
        assert_eq!(parse(&l(" *a")), ok(Form::Standard, b"a"));
        assert_eq!(parse(&l("\t a")), ok(Form::Standard, b"a"));
        assert_eq!(parse(&l(" a")), ok(Form::Reversed, b"a"));
        assert_eq!(parse(&l("\ta")), ok(Form::Reversed, b"a"));
        assert_eq!(parse(&l("   sp")), ok(Form::Standard, b" sp"));
        assert_eq!(parse(&l("  *st")), ok(Form::Standard, b"*st"));
        // a one-byte rest is always reversed: `hex  ` names " "
        assert_eq!(parse(&l("  ")), ok(Form::Reversed, b" "));
        assert_eq!(parse(&l(" ")), Err(Improper));
        assert_eq!(parse(&l("x a")[1..]), Err(Improper));
        assert_eq!(
            parse(format!("\t {HEX}  a").as_bytes()),
            ok(Form::Standard, b"a")
        );
        assert_eq!(parse(format!("\x0b{HEX}  a").as_bytes()), Err(Improper));
        let upper = format!("{}  a", HEX.to_uppercase());
        assert_eq!(parse(upper.as_bytes()), ok(Form::Standard, b"a"));
    }

    #[test]
    fn tagged_and_openssl() {
        let t = |s: &str| parse(s.replace("H", HEX).as_bytes());
        assert_eq!(t("MD5 (a) = H"), ok(Form::Tagged, b"a"));
        assert_eq!(t("MD5(a)= H"), ok(Form::Tagged, b"a"));
        assert_eq!(t("MD5(a)=H"), ok(Form::Tagged, b"a"));
        assert_eq!(t("MD5 (a)\t=\tH"), ok(Form::Tagged, b"a"));
        assert_eq!(t(" MD5 (a) = H"), ok(Form::Tagged, b"a"));
        assert_eq!(t("MD5 ()) = H"), ok(Form::Tagged, b")"));
        assert_eq!(t("MD5 () = H"), ok(Form::Tagged, b""));
        assert_eq!(t("MD5 (a) = H\0zz"), ok(Form::Tagged, b"a"));
        assert_eq!(t("MD5 (a\0z) = H"), ok(Form::Tagged, b"a"));
        // fastsum's own rule is cksum's: one byte after the tag is skipped
        assert_eq!(t("MD5  (a) = H"), ok(Form::Tagged, b"a"));
        assert_eq!(t("MD5\t(a) = H"), ok(Form::Tagged, b"a"));
        for bad in [
            "MD5 (a) = H ",
            "MD5 (a) = H0",
            "MD5   (a) = H",
            "MD5 \t(a) = H",
            "MD5-(a) = H",
            "MD5X (a) = H",
            "MD5 ) = H",
            "MD5 (",
            "MD5",
            "MD5 (a) H",
            "SHA1 (a) = H",
        ] {
            assert_eq!(t(bad), Err(Improper), "{bad:?}");
        }
        let sha1 = hash_bytes(Algorithm::Sha1, b"").to_hex();
        let text = format!("SHA1 (e) = {sha1}");
        let line = parse_check_line(text.as_bytes(), Algorithm::Md5, Accept::Any);
        assert_eq!(line.map(|l| l.algo), Ok(Algorithm::Sha1));
    }

    /// A tag's length as GNU's `xstrtoumax` reads it.
    #[test]
    fn tag_lengths_in_any_base() {
        assert_eq!(strtoumax(b"128 (a)"), Some((128, 3)));
        assert_eq!(strtoumax(b"0x80 (a)"), Some((128, 4)));
        assert_eq!(strtoumax(b"0200("), Some((128, 4)));
        assert_eq!(strtoumax(b" +128"), Some((128, 5)));
        assert_eq!(strtoumax(b"00128"), Some((10, 4)));
        assert_eq!(strtoumax(b"0x (a)"), Some((0, 1)));
        assert_eq!(strtoumax(b"-128"), None);
        assert_eq!(strtoumax(b"(a)"), None);
        assert_eq!(strtoumax(b"99999999999999999999999"), None);
    }

    /// The blanks between a tag and `(` each GNU tool takes, and the tags
    /// cksum knows.
    #[test]
    fn tag_gaps_per_tool() {
        let md5 = |tags, accept| Syntax {
            default: Algorithm::Md5,
            accept,
            digits: Digits::Hex,
            tags,
        };
        let takes = |g: Syntax, line: &str| g.parse(line.replace('H', HEX).as_bytes()).is_ok();
        let md5sum = md5(Tags::Exact, Accept::OnlyDefault);
        let cksum_a = md5(Tags::SkipOne, Accept::OnlyDefault);
        let cksum = md5(Tags::Cksum, Accept::Any);
        for (line, by_md5sum, by_cksum_a, by_cksum) in [
            ("MD5 (a) = H", true, true, true),
            ("MD5(a) = H", true, true, true),
            ("MD5  (a) = H", false, true, true),
            ("MD5\t(a) = H", false, true, true),
            ("MD5\t (a) = H", false, true, true),
            ("MD5   (a) = H", false, false, false),
            ("MD5 \t(a) = H", false, false, false),
            ("MD5x(a) = H", false, true, false),
            ("MD5X (a) = H", false, true, false),
            ("MD5\x01(a) = H", false, true, false),
            ("MD5-(a) = H", false, false, false),
            ("MD5-128 (a) = H", false, true, true),
            ("MD5-0x80(a) = H", false, true, true),
            ("MD5-64 (a) = H", false, false, false),
        ] {
            assert_eq!(takes(md5sum, line), by_md5sum, "md5sum {line:?}");
            assert_eq!(takes(cksum_a, line), by_cksum_a, "cksum -a md5 {line:?}");
            assert_eq!(takes(cksum, line), by_cksum, "cksum {line:?}");
        }
        // cksum's tags are its own algorithms'; fastsum's, every one's
        let xxh = format!("XXH64 (a) = {}", hash_bytes(Algorithm::Xxh64, b"").to_hex());
        assert!(cksum.parse(xxh.as_bytes()).is_err());
        assert!(md5(Tags::Any, Accept::Any).parse(xxh.as_bytes()).is_ok());
        assert_eq!(cksum.tag_of(b"SHA1 (a) = 0"), Some(Algorithm::Sha1));
        assert_eq!(cksum.tag_of(b"\\SHA256 (a"), Some(Algorithm::Sha256));
        assert_eq!(cksum.tag_of(b"MD5X (a) = 0"), None);
        assert_eq!(cksum.tag_of(b"XXH3 (a) = 0"), None);
        assert_eq!(md5sum.tag_of(b"SHA1 (a) = 0"), None);
        // b2sum's and cksum's shortest line: `<hex> ` names the empty file
        let bare = format!("{HEX} ");
        assert!(!takes(md5sum, &bare));
        let l = cksum_a.parse(bare.as_bytes()).unwrap();
        assert_eq!(
            (l.form, l.file_name(true)),
            (Form::Reversed, Ok(Vec::new()))
        );
        assert!(!takes(cksum_a, HEX));
    }

    #[test]
    fn a_chosen_algorithm_refuses_other_tags() {
        let md5 = format!("MD5 (a) = {HEX}");
        let sha1 = format!("SHA1 (a) = {}", hash_bytes(Algorithm::Sha1, b"").to_hex());
        let algo = |text: &str, default, tags| {
            parse_check_line(text.as_bytes(), default, tags).map(|l| l.algo)
        };
        // without -a each tag picks its algorithm
        assert_eq!(
            algo(&md5, Algorithm::Sha256, Accept::Any),
            Ok(Algorithm::Md5)
        );
        // -a sha1,sha256 -c: untagged lines by hex length, tags of the two only
        let two = Accept::Only(Algorithms::new([Algorithm::Sha1, Algorithm::Sha256]).unwrap());
        let sha256_plain = format!("{}  f", "ab".repeat(32));
        let sha1_plain = format!("{}  f", "ab".repeat(20));
        assert_eq!(
            algo(&sha256_plain, Algorithm::Sha1, two),
            Ok(Algorithm::Sha256)
        );
        assert_eq!(algo(&sha1_plain, Algorithm::Sha1, two), Ok(Algorithm::Sha1));
        assert_eq!(algo(&md5, Algorithm::Sha1, two), Err(Improper));
        assert_eq!(algo(&sha1, Algorithm::Sha1, two), Ok(Algorithm::Sha1));
        assert_eq!(
            algo(&sha1, Algorithm::Md5, Accept::Any),
            Ok(Algorithm::Sha1)
        );
        // `sha256sum -c` / `-a sha256`: an MD5 line is improper (GNU), not OK
        for other in [Algorithm::Sha256, Algorithm::Sha1, Algorithm::Blake3] {
            assert_eq!(algo(&md5, other, Accept::OnlyDefault), Err(Improper));
        }
        assert_eq!(
            algo(&sha1, Algorithm::Md5, Accept::OnlyDefault),
            Err(Improper)
        );
        // the chosen algorithm's own tag, and untagged lines, still parse
        assert_eq!(
            algo(&md5, Algorithm::Md5, Accept::OnlyDefault),
            Ok(Algorithm::Md5)
        );
        let plain = format!("{HEX}  a");
        assert_eq!(
            algo(&plain, Algorithm::Md5, Accept::OnlyDefault),
            Ok(Algorithm::Md5)
        );
    }

    #[test]
    fn escapes_and_nul() {
        let t = |s: &[u8]| parse(&[s, HEX.as_bytes()].concat());
        let e = |name: &[u8]| parse(&[b"\\", HEX.as_bytes(), b"  ", name].concat());
        assert_eq!(e(b"a\\\\b\\nc\\rd"), ok(Form::Standard, b"a\\b\nc\rd"));
        assert_eq!(e(b"a\\tb"), Err(Improper));
        assert_eq!(e(b"a\\"), Err(Improper));
        assert_eq!(e(b"a\0b"), Err(Improper));
        // unescaped: a backslash is a plain byte, a NUL ends the name
        let plain = parse(&[HEX.as_bytes(), b"  a\\b\0c"].concat());
        assert_eq!(plain, ok(Form::Standard, b"a\\b"));
        assert_eq!(
            parse(&[HEX.as_bytes(), b" \0foo"].concat()),
            ok(Form::Reversed, b"")
        );
        assert_eq!(t(b"\\MD5 (a\\) = "), Err(Improper));
        assert_eq!(t(b"\\MD5 (n\\nl) = "), ok(Form::Tagged, b"n\nl"));
        // a NUL inside the hex
        let mut nul = format!("{HEX}  a").into_bytes();
        nul[5] = 0;
        assert_eq!(parse(&nul), Err(Improper));
        assert_eq!(
            parse(&[b"\\\\", HEX.as_bytes(), b"  a"].concat()),
            Err(Improper)
        );
    }

    #[test]
    fn reversed_reading_keeps_the_marker() {
        let line = format!("{HEX}  a");
        let l = parse_check_line(line.as_bytes(), Algorithm::Md5, Accept::Any).unwrap();
        assert_eq!(l.file_name(true), Ok(b" a".to_vec()));
    }

    #[test]
    fn bodies() {
        assert_eq!(line_body(b"abc\r\n"), Some(&b"abc"[..]));
        assert_eq!(line_body(b"abc\r\r\n"), Some(&b"abc\r"[..]));
        assert_eq!(line_body(b"abc"), Some(&b"abc"[..]));
        assert_eq!(line_body(b"\r\n"), None);
        assert_eq!(line_body(b"\n"), None);
        assert_eq!(line_body(b"#x\xff\n"), None);
        assert_eq!(line_body(b" #x\n"), Some(&b" #x"[..]));
    }

    #[test]
    fn lines_as_xxhsum_reads_them() {
        let got = |l: &[u8]| {
            xxhsum_line(l, false).map(|x| (x.algo, x.expected.as_bytes().to_vec(), x.name.to_vec()))
        };
        assert_eq!(
            got(b"e4c191d091bd8853  h1"),
            Ok((
                Algorithm::Xxh64,
                vec![0xe4, 0xc1, 0x91, 0xd0, 0x91, 0xbd, 0x88, 0x53],
                b"h1".to_vec()
            ))
        );
        assert_eq!(
            got(b"946b5bf9 *h1").map(|(a, _, n)| (a, n)),
            Ok((Algorithm::Xxh32, b"h1".to_vec()))
        );
        assert_eq!(
            got(b"XXH3 (a b) = 99fc819aaba2462a").map(|(a, _, n)| (a, n)),
            Ok((Algorithm::Xxh3, b"a b".to_vec()))
        );
        assert_eq!(
            got(b"XXH32_LE (x) = f95b6b94").map(|(a, d, _)| (a, d)),
            Ok((Algorithm::Xxh32, vec![0x94, 0x6b, 0x5b, 0xf9]))
        );
        for bad in [
            &b"junk"[..],
            b"0000  x",
            b"946b5bf9",
            b"XXH3 (x) = 946b5bf9",
            b"zzzzzzzz  x",
        ] {
            assert_eq!(
                got(bad),
                Err(Improper),
                "{:?}",
                String::from_utf8_lossy(bad)
            );
        }
    }

    /// Every algorithm, and the lengths of BLAKE2b and SHA-3.
    fn any_algo() -> impl Strategy<Value = Algorithm> {
        let sized = [8, 128, 224, 256, 384, 504, 512]
            .into_iter()
            .flat_map(|bits| {
                Algorithm::ALL
                    .into_iter()
                    .filter_map(move |a| a.with_length(bits).ok())
            });
        // (not cksum's CRC and sum's: they have no checksum lines)
        let all = Algorithm::ALL.into_iter().chain(sized);
        proptest::sample::select(all.filter(|a| a.legacy().is_none()).collect::<Vec<_>>())
    }

    /// Tags with a length (`BLAKE2b-256`, `SHA3-384`), families that start
    /// others' names (`XXH3`, `XXH32`; `SHA3`, `SHA384`), and the length an
    /// untagged line's hex gives BLAKE2b and SHA-3.
    #[test]
    fn tags_carry_lengths() {
        let algo = |line: String, default: Algorithm, accept| {
            parse_check_line(line.as_bytes(), default, accept).map(|l| l.algo)
        };
        let b2 = |bits| Algorithm::Blake2b(crate::algo::Bits::new(bits).unwrap());
        let sha3 = |bits| Algorithm::Sha3(crate::algo::Sha3Size::new(bits).unwrap());
        let line = |a: Algorithm| format!("{} (f) = {}", a.tag(), hash_bytes(a, b"").to_hex());
        for a in [
            b2(256),
            b2(8),
            b2(512),
            sha3(224),
            sha3(512),
            Algorithm::Xxh3,
            Algorithm::Xxh32,
            Algorithm::Sha384,
            Algorithm::Xxh128,
        ] {
            assert_eq!(algo(line(a), Algorithm::Md5, Accept::Any), Ok(a), "{a:?}");
        }
        // under b2sum (its default BLAKE2b-512) a tag's own length stands
        assert_eq!(
            algo(line(b2(128)), b2(512), Accept::OnlyDefault),
            Ok(b2(128))
        );
        let z = |n: usize| "0".repeat(n);
        for bad in [
            format!("BLAKE2b-7 (f) = {}", z(2)),
            format!("BLAKE2b-520 (f) = {}", z(130)),
            format!("BLAKE2b-0 (f) = {}", z(2)),
            format!("BLAKE2b- (f) = {}", z(2)),
            format!("SHA3 (f) = {}", z(64)),
            format!("SHA3-128 (f) = {}", z(32)),
            format!("BLAKE2b-256 (f) = {}", z(128)),
            format!("XXH3 (f) = {}", z(8)),
            "BLAKE2b".to_string(),
            "BLAKE2b-".to_string(),
        ] {
            assert_eq!(
                algo(bad.clone(), Algorithm::Md5, Accept::Any),
                Err(Improper),
                "{bad}"
            );
        }
        assert_eq!(
            algo(format!("{}  f", z(64)), b2(512), Accept::OnlyDefault),
            Ok(b2(256))
        );
        assert_eq!(
            algo(format!("{}  f", z(2)), b2(512), Accept::OnlyDefault),
            Ok(b2(8))
        );
        assert_eq!(
            algo(format!("{}  f", z(96)), sha3(256), Accept::OnlyDefault),
            Ok(sha3(384))
        );
        assert_eq!(
            algo(format!("{}  f", z(3)), b2(512), Accept::OnlyDefault),
            Err(Improper)
        );
        assert_eq!(
            algo(format!("{}  f", z(130)), b2(512), Accept::OnlyDefault),
            Err(Improper)
        );
        let set = Accept::Only(Algorithms::new([Algorithm::Sha256, b2(512)]).unwrap());
        assert_eq!(
            algo(format!("{}  f", z(64)), Algorithm::Sha256, set),
            Ok(Algorithm::Sha256)
        );
        assert_eq!(
            algo(format!("{}  f", z(32)), Algorithm::Sha256, set),
            Ok(b2(128))
        );
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

        /// Arbitrary bytes never panic, and whatever parses names bytes
        /// from the line's own text: the name as written lies inside the
        /// line, an unescaped name is a run of it, an escaped one no longer.
        #[test]
        fn never_panics(line in proptest::collection::vec(any::<u8>(), 0..200), algo in any_algo()) {
            if let Some(body) = line_body(&line)
                && let Ok(l) = parse_check_line(body, algo, Accept::Any)
            {
                let (outer, inner) = (body.as_ptr_range(), l.written.as_ptr_range());
                prop_assert!(outer.start <= inner.start && inner.end <= outer.end);
                for reversed in [false, true] {
                    if let Ok(name) = l.file_name(reversed) {
                        if l.escaped {
                            prop_assert!(name.len() <= l.written.len());
                        } else {
                            let run_of_written = name.is_empty()
                                || l.written.windows(name.len()).any(|w| w == &name[..]);
                            prop_assert!(run_of_written, "{:?} from {:?}", name, l.written);
                        }
                    }
                }
            }
        }

        /// Lines that look almost right (a real digest, a mutated tail).
        #[test]
        fn near_misses_never_panic(
            algo in any_algo(),
            tagged in any::<bool>(),
            junk in proptest::collection::vec(prop_oneof![Just(b' '), Just(b'*'), Just(b'('), Just(b')'), Just(b'='), Just(b'\\'), Just(0u8), any::<u8>()], 0..12),
        ) {
            let hex = hash_bytes(algo, &junk).to_hex();
            let line = if tagged {
                [algo.tag().as_bytes(), b" (", &junk, b") = ", hex.as_bytes()].concat()
            } else {
                [hex.as_bytes(), &junk].concat()
            };
            if let Ok(l) = parse_check_line(&line, algo, Accept::OnlyDefault) {
                let _ = l.file_name(false);
            }
        }

        /// Every line fastsum writes (plain, binary, tagged; escaped names)
        /// parses back to the same algorithm, digest and name.
        #[test]
        fn round_trip(
            algo in any_algo(),
            data in proptest::collection::vec(any::<u8>(), 0..16),
            name in proptest::collection::vec(1u8..=255, 1..24),
            shape in 0..3u8,
        ) {
            let digest = hash_bytes(algo, &data);
            let format = match shape {
                0 => LineFormat::Gnu { binary: false },
                1 => LineFormat::Gnu { binary: true },
                _ => LineFormat::Tagged,
            };
            let mut out = Vec::new();
            let line = Line { format, end: LineEnd::Newline, names: Names::Escaped };
            format_line(&mut out, &algo.tag(), &digest.to_hex(), &name, line);
            // an untagged line starts with hex, a tagged one with its tag
            // (or `\` when escaped): never a comment
            let body = line_body(&out).unwrap_or_default();
            let l = parse_check_line(body, algo, Accept::OnlyDefault);
            prop_assert!(l.is_ok(), "{:?}", String::from_utf8_lossy(&out));
            let Ok(l) = l else { return Ok(()) };
            prop_assert_eq!(l.algo, algo);
            prop_assert_eq!(l.expected.as_bytes(), digest.as_bytes());
            let want_form = if format == LineFormat::Tagged { Form::Tagged } else { Form::Standard };
            prop_assert_eq!(l.form, want_form);
            let want = name.clone();
            prop_assert_eq!(l.file_name(false), Ok(want));
        }
    }
}
