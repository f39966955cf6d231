//! The check-line grammar of b3sum 1.8 (under the b3sum name), which is not
//! GNU's: b3sum reads its check file as UTF-8 text and accepts only the two
//! shapes it writes, refusing everything else with a reason of its own.
//!
//! * untagged: `<hex>  <name>`: the line is split at its first two spaces
//!   (so `hex *name`, `hex<TAB> name`, `hex name` and a leading blank are
//!   refused);
//! * tagged: `BLAKE3 (<name>) = <hex>`, split at the last `) = `, and
//!   tried only when the line has no two spaces in a row;
//! * the hex is 64 lower-case digits; a leading `\` marks an escaped name
//!   (`\\`, `\n`, `\r` only); the name may not be empty, hold a NUL (what
//!   GNU's reading silently cuts at) or U+FFFD.
//!
//! Every trailing CR and LF is trimmed (GNU drops one CR), and an empty
//! line is an error, as is a `#` line: b3sum has no comments. A line that
//! is not UTF-8 ends the whole run (b3sum's `read_line` fails and its
//! `main` returns the error).
//!
//! Its rules ([`B3sum`]'s `rules`): a check file that cannot be opened or
//! read ends the run (`Error:`, no summary), a listed file that cannot be
//! read counts with the checksums that did not match, and the counts are
//! the run's, summed up once after the last check file.

use super::super::parse::Expected;
use super::super::{Event, Listed, Step};
use super::{At, FileErrors, Grammar, Passes, Rules};
use crate::algo::{Algorithm, Algorithms};
use crate::config::Dialect;
use crate::input::Input;
use crate::read::{Job, Task};

/// b3sum's grammar (which reads by nothing the command line says).
pub(crate) fn make(_: &Dialect, _: Algorithms) -> Box<dyn Grammar> {
    Box::new(B3sum)
}

/// b3sum's grammar.
pub(crate) struct B3sum;

impl Grammar for B3sum {
    fn rules(&self) -> Rules {
        Rules {
            file_errors: FileErrors::EndTheRun,
            groups: true,
            run_counts: true,
            unreadable_mismatches: true,
            passes: Passes::Verified,
        }
    }

    fn line(&mut self, raw: &[u8], _: At<'_>) -> Step {
        Step::Job(match parse(raw) {
            Err(()) => Job::Pass(Event::Abort(NOT_UTF8.into())),
            Ok(Err(why)) => Job::Pass(Event::Refused(why)),
            Ok(Ok(line)) => Job::Hash(Task {
                // (b3sum's names are UTF-8: a name on every OS; looked up
                // where it is opened, as GNU's grammar's)
                input: Input::listed(None, crate::sys::os_string(line.name).unwrap_or_default()),
                algos: Algorithms::one(Algorithm::Blake3),
                context: Listed {
                    expected: vec![line.expected],
                    etag: false,
                    shown: Some(line.shown.into()),
                    at: None,
                    meta: None,
                },
            }),
        })
    }
}

/// What b3sum says of a line it refuses (after `b3sum: `).
pub(crate) type Refusal = &'static str;

/// The message of a line that is not UTF-8: the run stops with it.
pub(crate) const NOT_UTF8: &str = "stream did not contain valid UTF-8";

/// A line b3sum accepts.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Line {
    /// The file to hash (unescaped).
    pub(crate) name: Vec<u8>,
    /// The name as b3sum prints it in the status line: as written, after a
    /// `\` when the line was escaped.
    pub(crate) shown: Vec<u8>,
    /// The digest the file must have.
    pub(crate) expected: Expected,
}

/// What one raw line (as read, its `\n` included) is under b3sum's rules:
/// `Ok(Ok(line))`, `Ok(Err(why))` for a refused line, `Err(())` for a line
/// that is not UTF-8 (the run ends).
pub(crate) fn parse(raw: &[u8]) -> Result<Result<Line, Refusal>, ()> {
    let text = std::str::from_utf8(raw).map_err(|_| ())?;
    Ok(parse_text(text))
}

/// [`parse`] of a line known to be UTF-8.
fn parse_text(line: &str) -> Result<Line, Refusal> {
    let line = line.trim_end_matches(['\r', '\n']);
    if line.is_empty() {
        return Err("Empty line");
    }
    let (escaped, rest) = match line.strip_prefix('\\') {
        Some(rest) => (true, rest),
        None => (false, line),
    };
    // the untagged shape first: a tagged line whose name holds two spaces
    // is then read (and refused) as untagged, as b3sum does
    let (hex, written) = match rest.split_once("  ") {
        Some((hex, name)) => (hex, name),
        None => match rest
            .strip_prefix("BLAKE3 (")
            .and_then(|r| r.rsplit_once(") = "))
        {
            Some((name, hex)) => (hex, name),
            None => return Err("Invalid check line format"),
        },
    };
    if hex.len() != 64 {
        return Err("Invalid hash length");
    }
    if !hex.bytes().all(|c| matches!(c, b'0'..=b'9' | b'a'..=b'f')) {
        return Err("Invalid hex");
    }
    let expected = Expected::from_hex(hex.as_bytes(), Algorithm::Blake3).ok_or("Invalid hex")?;
    let name = if escaped {
        unescape(written.as_bytes()).ok_or("Invalid backslash escape")?
    } else {
        written.as_bytes().to_vec()
    };
    if name.is_empty() {
        return Err("empty file path");
    }
    if name.contains(&0) {
        return Err("Null character in path");
    }
    if String::from_utf8_lossy(&name).contains('\u{fffd}') {
        return Err("Unicode replacement character in path");
    }
    let mut shown = Vec::with_capacity(written.len() + 1);
    if escaped {
        shown.push(b'\\');
    }
    shown.extend_from_slice(written.as_bytes());
    Ok(Line {
        name,
        shown,
        expected,
    })
}

/// b3sum's unescaping: `\\`, `\n` and `\r`; any other escape, or a `\`
/// at the end, is `None`. (Unlike GNU's, a NUL passes here: the name's own
/// check refuses it with its own reason.)
fn unescape(s: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(s.len());
    let mut bytes = s.iter();
    while let Some(&c) = bytes.next() {
        out.push(match c {
            b'\\' => match bytes.next()? {
                b'\\' => b'\\',
                b'n' => b'\n',
                b'r' => b'\r',
                _ => return None,
            },
            _ => c,
        });
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEX: &str = "0b8b60248fad7ac6dfac221b7e01a8b91c772421a15b387dd1fb2d6a94aee438";

    fn why(line: &str) -> Result<(Vec<u8>, Vec<u8>), Refusal> {
        parse_text(&line.replace('H', HEX)).map(|l| (l.name, l.shown))
    }

    fn ok(name: &str, shown: &str) -> Result<(Vec<u8>, Vec<u8>), Refusal> {
        Ok((name.as_bytes().to_vec(), shown.as_bytes().to_vec()))
    }

    #[test]
    fn the_two_shapes() {
        assert_eq!(why("H  a\n"), ok("a", "a"));
        assert_eq!(why("H   a\r\r\n"), ok(" a", " a"));
        assert_eq!(why("BLAKE3 (a) = H\n"), ok("a", "a"));
        assert_eq!(why("BLAKE3 (a) = b) = H"), ok("a) = b", "a) = b"));
        assert_eq!(why("BLAKE3 (a) = (b) = H"), ok("a) = (b", "a) = (b"));
        assert_eq!(why("\\H  a\\\\b\\nc"), ok("a\\b\nc", "\\a\\\\b\\nc"));
        assert_eq!(why("\\H  plain"), ok("plain", "\\plain"));
    }

    #[test]
    fn what_b3sum_refuses() {
        for (line, reason) in [
            ("\n", "Empty line"),
            ("\r\n", "Empty line"),
            ("# H  a", "Invalid hash length"),
            ("H\t a", "Invalid check line format"),
            ("H *a", "Invalid check line format"),
            ("H a", "Invalid check line format"),
            (" H  a", "Invalid hash length"),
            ("BLAKE3 (a)= H", "Invalid check line format"),
            ("BLAKE3  (a) = H", "Invalid hash length"),
            ("BLAKE3 (a  b) = H", "Invalid hash length"),
            ("MD5 (a) = H", "Invalid check line format"),
            ("H  ", "empty file path"),
            ("H  a\0b", "Null character in path"),
            ("\\H  a\\0", "Invalid backslash escape"),
            ("\\H  a\\", "Invalid backslash escape"),
            ("\\H  a\0b", "Null character in path"),
            ("H  a\u{fffd}", "Unicode replacement character in path"),
        ] {
            assert_eq!(why(line).map(|_| ()), Err(reason), "{line:?}");
        }
        let upper = format!("{}  a", HEX.to_uppercase());
        assert_eq!(parse_text(&upper).map(|_| ()), Err("Invalid hex"));
        assert_eq!(parse(b"H  a\xff\n").map(|_| ()), Err(()));
    }
}
