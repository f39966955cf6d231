//! What fastsum writes: checksum lines byte-for-byte as GNU coreutils writes
//! them, and file names quoted in messages as GNU quotes them.

use crate::algo::{Digest, Legacy, Parts};

/// How a checksum line is laid out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum LineFormat {
    /// `<hex>  <name>` (text) or `<hex> *<name>` (`binary`), as md5sum.
    Gnu {
        /// `-b`: mark the name with `*`.
        binary: bool,
    },
    /// `--tag`: `MD5 (<name>) = <hex>`, as BSD md5.
    Tagged,
}

/// How a line ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Terminator {
    /// `\n`, with GNU escaping of names that hold `\`, `\n` or `\r`.
    Newline,
    /// `-z`: NUL, and names are written raw.
    Nul,
    /// `\n`, and names written as they are, never escaped (xxhsum).
    Raw,
    /// `\n` as b3sum writes it: escaped as `Newline`, but a name that is
    /// not UTF-8 is written as Rust's `to_string_lossy` writes it (each
    /// invalid sequence as U+FFFD), because b3sum prints that.
    LossyNewline,
}

/// An S3 digest over parts as S3 shows it: the ETag in hex, a composite
/// checksum in base64, then `-N` when `N` parts were composed (none for a
/// single PUT's plain digest).
pub(crate) fn parts_text(parts: Parts, digest: &Digest) -> String {
    let mut text = if parts.hex() {
        digest.to_hex()
    } else {
        base64(digest.as_bytes())
    };
    if digest.parts() > 0 {
        text.push_str(&format!("-{}", digest.parts()));
    }
    text
}

/// The standard base64 of `bytes`, with `=` padding (cksum's `--base64`).
pub(crate) fn base64(bytes: &[u8]) -> String {
    const ABC: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for group in bytes.chunks(3) {
        let n = group
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, &b)| n | u32::from(b) << (16 - 8 * i));
        for i in 0..4 {
            if i <= group.len() {
                out.push(char::from(ABC[(n >> (18 - 6 * i) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// The bytes of standard, padded base64 `text`; `None` unless it is that
/// exactly (whole groups, padding only at the end, no stray bits).
pub(crate) fn base64_decode(text: &[u8]) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(4) {
        return None;
    }
    let value = |c: u8| match c {
        b'A'..=b'Z' => Some(c - b'A'),
        b'a'..=b'z' => Some(c - b'a' + 26),
        b'0'..=b'9' => Some(c - b'0' + 52),
        b'+' => Some(62),
        b'/' => Some(63),
        _ => None,
    };
    let mut out = Vec::with_capacity(text.len() / 4 * 3);
    let groups = text.len() / 4;
    for (g, quad) in text.chunks_exact(4).enumerate() {
        let pad = quad.iter().rev().take_while(|&&c| c == b'=').count();
        if pad > 2 || (pad > 0 && g + 1 != groups) {
            return None;
        }
        let mut n = 0u32;
        for &c in &quad[..4 - pad] {
            n = n << 6 | u32::from(value(c)?);
        }
        n <<= 6 * pad;
        let bytes = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
        // the bits past the last byte must be zero, as GNU's decoder wants
        if pad > 0 && bytes[3 - pad..].iter().any(|&b| b != 0) {
            return None;
        }
        out.extend_from_slice(&bytes[..3 - pad]);
    }
    Some(out)
}

/// The name xxhsum gives an input in its lines and messages: `stdin` for
/// standard input, else the path's bytes.
pub(crate) fn xxhsum_name(input: &crate::input::Input) -> &[u8] {
    match input {
        crate::input::Input::Stdin => b"stdin",
        crate::input::Input::Path(path) => std::os::unix::ffi::OsStrExt::as_bytes(path.as_os_str()),
    }
}

/// Does GNU escape this name? (It holds a backslash, a newline or a CR.)
pub(crate) fn needs_escape(name: &[u8]) -> bool {
    name.iter().any(|&b| matches!(b, b'\\' | b'\n' | b'\r'))
}

/// Append `name` with `\\`, `\n` and `\r` written as escapes.
pub(crate) fn push_escaped(out: &mut Vec<u8>, name: &[u8]) {
    for &b in name {
        match b {
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            _ => out.push(b),
        }
    }
}

/// Append one checksum line for `name` to `out`, exactly as GNU writes it:
/// `a\b` hashed to `abc` gives `\abc  a\\b` (an escaped name marks the
/// line with a leading backslash).
pub(crate) fn format_line(
    out: &mut Vec<u8>,
    algo_name: &str,
    hex: &str,
    name: &[u8],
    format: LineFormat,
    term: Terminator,
) {
    let lossy;
    let name = if term == Terminator::LossyNewline {
        lossy = String::from_utf8_lossy(name);
        lossy.as_bytes()
    } else {
        name
    };
    let escape = !matches!(term, Terminator::Nul | Terminator::Raw) && needs_escape(name);
    if escape {
        out.push(b'\\');
    }
    let push_name = |out: &mut Vec<u8>| {
        if escape {
            push_escaped(out, name)
        } else {
            out.extend_from_slice(name)
        }
    };
    match format {
        LineFormat::Gnu { binary } => {
            out.extend_from_slice(hex.as_bytes());
            out.extend_from_slice(if binary { b" *" } else { b"  " });
            push_name(out);
        }
        LineFormat::Tagged => {
            out.extend_from_slice(algo_name.as_bytes());
            out.extend_from_slice(b" (");
            push_name(out);
            out.extend_from_slice(b") = ");
            out.extend_from_slice(hex.as_bytes());
        }
    }
    out.push(match term {
        Terminator::Newline | Terminator::LossyNewline | Terminator::Raw => b'\n',
        Terminator::Nul => b'\0',
    });
}

/// The line of a checksum that prints its own (`cksum`'s CRC, `sum`'s),
/// as GNU writes it: the value, the size (bytes for the CRC; KiB for BSD's,
/// 512-byte blocks for System V's, rounded up), and the name, as it is
/// (never escaped), when FILEs were given.
pub(crate) fn legacy_line(
    out: &mut Vec<u8>,
    legacy: Legacy,
    value: u32,
    size: u64,
    name: Option<&[u8]>,
    term: Terminator,
) {
    let text = match legacy {
        Legacy::Crc | Legacy::Crc32b => format!("{value} {size}"),
        Legacy::Bsd => format!("{value:05} {:>5}", size.div_ceil(1024)),
        Legacy::Sysv => format!("{value} {}", size.div_ceil(512)),
    };
    out.extend_from_slice(text.as_bytes());
    if let Some(name) = name {
        out.push(b' ');
        out.extend_from_slice(name);
    }
    out.push(match term {
        Terminator::Newline | Terminator::LossyNewline | Terminator::Raw => b'\n',
        Terminator::Nul => b'\0',
    });
}

/// Quote a file name for a message on stderr, as GNU's `quotef` does in a
/// UTF-8 locale: plain names stay bare; others are put in single quotes (or
/// double quotes when that avoids escaping a `'`), and control or invalid
/// bytes are written `$'\n'`, `$'\377'` outside the quotes.
pub(crate) fn quote_name(name: &[u8]) -> String {
    let text = String::from_utf8_lossy(name);
    let valid = matches!(text, std::borrow::Cow::Borrowed(_));
    let is_safe = |i: usize, c: char| {
        c.is_ascii_alphanumeric()
            || matches!(
                c,
                '%' | '+' | ',' | '-' | '.' | '/' | ']' | '_' | '{' | '}' | '@'
            )
            || (i > 0 && matches!(c, '#' | '~'))
            || (!c.is_ascii() && !c.is_control())
    };
    if !name.is_empty() && valid && text.char_indices().all(|(i, c)| is_safe(i, c)) {
        return text.into_owned();
    }
    let printable = |b: u8| (0x20..0x7f).contains(&b);
    let all_printable = valid && text.chars().all(|c| !c.is_control());
    if all_printable && name.contains(&b'\'') && !name.iter().any(|b| b"\"$`\\!".contains(b)) {
        return format!("\"{text}\"");
    }
    let mut out = String::from("'");
    // GNU writes a run of escaped bytes in one $'...': `'a'$'\t\r''b'`
    let push_escape = |out: &mut String, esc: &str, after_escape: bool| {
        if after_escape {
            out.truncate(out.len() - 2);
            out.push_str(esc);
            out.push_str("''");
        } else {
            out.push_str(&format!("'$'{esc}''"));
        }
    };
    let mut after_escape = false;
    let mut i = 0;
    while i < name.len() {
        let b = name[i];
        if b == b'\'' {
            out.push_str("'\\''");
            i += 1;
            after_escape = false;
        } else if printable(b) {
            out.push(b as char);
            i += 1;
            after_escape = false;
        } else if b >= 0x80 {
            // a valid multi-byte UTF-8 character prints as itself
            let end = (i + 4).min(name.len());
            let ch = (i + 1..=end).find_map(|j| {
                std::str::from_utf8(&name[i..j])
                    .ok()
                    .and_then(|s| s.chars().next())
            });
            match ch {
                Some(c) if !c.is_control() => {
                    out.push(c);
                    i += c.len_utf8();
                    after_escape = false;
                }
                _ => {
                    push_escape(&mut out, &format!("\\{b:03o}"), after_escape);
                    i += 1;
                    after_escape = true;
                }
            }
        } else {
            let esc = match b {
                7 => "\\a".to_string(),
                8 => "\\b".to_string(),
                9 => "\\t".to_string(),
                10 => "\\n".to_string(),
                11 => "\\v".to_string(),
                12 => "\\f".to_string(),
                13 => "\\r".to_string(),
                _ => format!("\\{b:03o}"),
            };
            push_escape(&mut out, &esc, after_escape);
            i += 1;
            after_escape = true;
        }
    }
    out.push('\'');
    // GNU drops the empty '' that an escape at the very end leaves behind
    // (but keeps the one at the start: `''$'\n''foo'`)
    if out.ends_with("'''") {
        out.truncate(out.len() - 2);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_round_trips() {
        for (bytes, text) in [
            (&b""[..], ""),
            (b"f", "Zg=="),
            (b"fo", "Zm8="),
            (b"foo", "Zm9v"),
            (b"\xff\xfe\x00", "//4A"),
        ] {
            assert_eq!(base64(bytes), text);
            assert_eq!(base64_decode(text.as_bytes()).as_deref(), Some(bytes));
        }
        for bad in ["Zg=", "Z===", "Zh==", "Zg==Zg==", "Zm9v!A==", "Zm9"] {
            assert_eq!(base64_decode(bad.as_bytes()), None, "{bad}");
        }
    }

    /// What GNU 9.1's cksum, sum -r and sum -s print.
    #[test]
    fn legacy_lines() {
        let line = |l, v, size, name: Option<&[u8]>| {
            let mut out = Vec::new();
            legacy_line(&mut out, l, v, size, name, Terminator::Newline);
            out
        };
        assert_eq!(
            line(Legacy::Crc, 3015617425, 6, Some(b"h1")),
            b"3015617425 6 h1\n"
        );
        assert_eq!(
            line(Legacy::Bsd, 121, 1, Some(b"b\\s")),
            b"00121     1 b\\s\n"
        );
        assert_eq!(
            line(Legacy::Bsd, 32286, 100_000_000, None),
            b"32286 97657\n"
        );
        assert_eq!(
            line(Legacy::Sysv, 20650, 100_000_000, Some(b"n\nl")),
            b"20650 195313 n\nl\n"
        );
        assert_eq!(line(Legacy::Sysv, 0, 0, None), b"0 0\n");
    }

    #[test]
    fn an_escaped_name_marks_the_line() {
        let mut out = Vec::new();
        let gnu = LineFormat::Gnu { binary: false };
        format_line(&mut out, "MD5", "abc", b"a\\b", gnu, Terminator::Newline);
        assert_eq!(out, b"\\abc  a\\\\b\n");
    }

    fn line(name: &[u8], format: LineFormat, term: Terminator) -> Vec<u8> {
        let mut out = Vec::new();
        format_line(&mut out, "MD5", "00ff", name, format, term);
        out
    }

    #[test]
    fn plain_binary_tagged_zero() {
        let gnu = LineFormat::Gnu { binary: false };
        assert_eq!(line(b"a b", gnu, Terminator::Newline), b"00ff  a b\n");
        assert_eq!(
            line(b"a", LineFormat::Gnu { binary: true }, Terminator::Newline),
            b"00ff *a\n"
        );
        assert_eq!(
            line(b"a", LineFormat::Tagged, Terminator::Newline),
            b"MD5 (a) = 00ff\n"
        );
        assert_eq!(line(b"a\nb", gnu, Terminator::Nul), b"00ff  a\nb\0");
    }

    /// b3sum's lines: GNU's escaping, and invalid UTF-8 written lossily.
    #[test]
    fn b3sum_lossy_names() {
        let gnu = LineFormat::Gnu { binary: false };
        let term = Terminator::LossyNewline;
        assert_eq!(line(b"a\xffb", gnu, term), "00ff  a\u{fffd}b\n".as_bytes());
        assert_eq!(line(b"a\rb\\", gnu, term), b"\\00ff  a\\rb\\\\\n");
        assert_eq!(line(b"a\xffb", gnu, Terminator::Newline), b"00ff  a\xffb\n");
    }

    #[test]
    fn escapes_backslash_newline_cr() {
        let gnu = LineFormat::Gnu { binary: false };
        assert_eq!(
            line(b"a\\b\nc\rd", gnu, Terminator::Newline),
            b"\\00ff  a\\\\b\\nc\\rd\n"
        );
        assert_eq!(
            line(b"n\nl", LineFormat::Tagged, Terminator::Newline),
            b"\\MD5 (n\\nl) = 00ff\n"
        );
    }

    /// Each expectation below is what GNU md5sum 9.1 printed for that name.
    #[test]
    fn quotes_like_gnu() {
        let cases: [(&[u8], &str); 23] = [
            (b"a\xff\xfeb", "'a'$'\\377\\376''b'"),
            (b"a\t\rb", "'a'$'\\t\\r''b'"),
            (b"\xff\xfe", "''$'\\377\\376'"),
            (b"\nfoo", "''$'\\n''foo'"),
            (b"foo\n", "'foo'$'\\n'"),
            (b"\xff", "''$'\\377'"),
            (b"'", "\"'\""),
            (b"nosuch", "nosuch"),
            (b"no such", "'no such'"),
            (b"no\nsuch", "'no'$'\\n''such'"),
            (b"a?b", "'a?b'"),
            (b"#a", "'#a'"),
            (b"a#", "a#"),
            (b"a{b}", "a{b}"),
            (b"a:", "'a:'"),
            (b"@", "@"),
            (b"it's a", "\"it's a\""),
            (b"it's$", "'it'\\''s$'"),
            (b"a\tb", "'a'$'\\t''b'"),
            (b"a\xffb", "'a'$'\\377''b'"),
            (b"a\\b", "'a\\b'"),
            ("é".as_bytes(), "é"),
            (b"-x", "-x"),
        ];
        for (name, want) in cases {
            assert_eq!(
                quote_name(name),
                want,
                "{:?}",
                String::from_utf8_lossy(name)
            );
        }
    }
}
