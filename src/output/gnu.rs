//! GNU's checksum lines (`hex  name`, `hex *name`, `--tag`'s `MD5 (name) =
//! hex`; hex or base64; newline or NUL; names escaped or not) and GNU's
//! status lines of `-c` (`name: OK`), which b3sum's and xxhsum's writers
//! build on; `--audit`'s text lines, and the warnings that end each check
//! file (exact wording and plurals), too.

use std::io;

use crate::config::{CheckOptions, Encoding, LineEnd, LineFormat, Names, Verbosity};
use crate::printer::Printer;
use crate::read::{Hashed, Task};

use super::{Status, Tally, Writer, base64, parts_text};

/// How a checksum line is laid out, ends, and writes its name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Line {
    pub(crate) format: LineFormat,
    pub(crate) end: LineEnd,
    pub(crate) names: Names,
}

impl Line {
    /// The `-z` lines of `--tree-digest`'s manifest: untagged, NUL, names
    /// as they are.
    pub(crate) const ZERO: Line = Line {
        format: LineFormat::Gnu { binary: false },
        end: LineEnd::Nul,
        names: Names::Verbatim,
    };
}

/// GNU's lines: untagged or tagged, in hex or base64.
pub(crate) struct Gnu {
    pub(crate) line: Line,
    pub(crate) encoding: Encoding,
}

impl Writer for Gnu {
    fn digests(&self, p: &mut Printer<'_>, task: &Task<()>, hashed: &Hashed) -> io::Result<()> {
        for (algo, digest) in task.algos.as_slice().iter().zip(&hashed.digests) {
            let text = match (algo.parts(), self.encoding) {
                // as S3 shows them, whatever the encoding
                (Some(parts), _) => parts_text(parts, digest),
                (None, Encoding::Base64) => base64(digest.as_bytes()),
                (None, Encoding::Hex) => digest.to_hex(),
            };
            p.line(|out| format_line(out, &algo.tag(), &text, task.input.name(), self.line))?;
        }
        Ok(())
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

/// The byte that ends a line.
pub(crate) fn end_byte(end: LineEnd) -> u8 {
    match end {
        LineEnd::Newline => b'\n',
        LineEnd::Nul => b'\0',
    }
}

/// Append one checksum line for `name` to `out`, exactly as GNU writes it:
/// `a\b` hashed to `abc` gives `\abc  a\\b` (an escaped name marks the
/// line with a leading backslash).
pub(crate) fn format_line(out: &mut Vec<u8>, algo_name: &str, hex: &str, name: &[u8], line: Line) {
    // (on Windows: `\` as `/`, as b3sum prints names there)
    let printed = crate::sys::printed_name(name);
    let name = &printed[..];
    let lossy;
    let name = if line.names == Names::LossyEscaped {
        lossy = String::from_utf8_lossy(name);
        lossy.as_bytes()
    } else {
        name
    };
    let escape = line.names != Names::Verbatim && needs_escape(name);
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
    match line.format {
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
    out.push(end_byte(line.end));
}

/// GNU's word for a checked line: `OK`, `FAILED`, or `FAILED open or
/// read` for a file it could not read.
pub(crate) fn status_word(status: Status, error: Option<&io::Error>) -> &'static str {
    match (status, error) {
        (Status::Ok, _) => "OK",
        (_, Some(_)) => "FAILED open or read",
        // (fastsum's own name, a line with a `#meta` line before it)
        (Status::Damaged | Status::Modified, None) => status.word(),
        _ => "FAILED",
    }
}

/// Write `name: status`. GNU 9.1 escapes the name (with a leading `\`)
/// only when it holds a newline; then backslashes, newlines and CRs are
/// all written as escapes.
pub(crate) fn status_line(p: &mut Printer<'_>, name: &[u8], status: &str) -> io::Result<()> {
    p.line(|line| {
        if name.contains(&b'\n') {
            line.push(b'\\');
            push_escaped(line, name);
        } else {
            line.extend_from_slice(name);
        }
        line.extend_from_slice(b": ");
        line.extend_from_slice(status.as_bytes());
        line.push(b'\n');
    })
}

/// `--audit`'s line: `name: WORD` (and ` from OLD` for a move), escaped
/// as a status line when either name holds a newline.
pub(crate) fn audit_line(
    p: &mut Printer<'_>,
    name: &[u8],
    status: Status,
    from: Option<&[u8]>,
) -> io::Result<()> {
    // (a walked name, on Windows with `/` for `\`, as listed names are)
    let printed = crate::sys::printed_name(name);
    let name = &printed[..];
    p.line(|line| {
        let escape = name.contains(&b'\n') || from.is_some_and(|f| f.contains(&b'\n'));
        let push = |line: &mut Vec<u8>, n: &[u8]| {
            if escape {
                push_escaped(line, n)
            } else {
                line.extend_from_slice(n)
            }
        };
        if escape {
            line.push(b'\\');
        }
        push(line, name);
        line.extend_from_slice(b": ");
        line.extend_from_slice(status.word().as_bytes());
        if let Some(from) = from {
            line.extend_from_slice(b" from ");
            push(line, from);
        }
        line.push(b'\n');
    })
}

/// `n` and the singular or plural text, as GNU's ngettext does in English.
pub(crate) fn count(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The messages GNU prints (after its program name) once the check file
/// called `file` (already quoted) is read to its end, in GNU's order.
pub(crate) fn check_warnings(tally: &Tally, file: &str, opts: &CheckOptions) -> Vec<String> {
    let mut out = Vec::new();
    if !tally.formatted {
        // printed even with --status
        out.push(format!(
            "{file}: no properly formatted checksum lines found"
        ));
        return out;
    }
    if opts.verbosity == Verbosity::Status {
        return out;
    }
    let counts = [
        (
            tally.improper,
            "line is improperly formatted",
            "lines are improperly formatted",
        ),
        (
            tally.unreadable,
            "listed file could not be read",
            "listed files could not be read",
        ),
        (
            tally.mismatched,
            "computed checksum did NOT match",
            "computed checksums did NOT match",
        ),
    ];
    for (n, one, many) in counts {
        if n != 0 {
            out.push(format!("WARNING: {}", count(n, one, many)));
        }
    }
    if opts.ignore_missing && !tally.matched {
        out.push(format!("{file}: no file was verified"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const NEWLINE: (LineEnd, Names) = (LineEnd::Newline, Names::Escaped);
    const NUL: (LineEnd, Names) = (LineEnd::Nul, Names::Verbatim);
    const LOSSY: (LineEnd, Names) = (LineEnd::Newline, Names::LossyEscaped);

    fn line(name: &[u8], format: LineFormat, (end, names): (LineEnd, Names)) -> Vec<u8> {
        let mut out = Vec::new();
        format_line(&mut out, "MD5", "00ff", name, Line { format, end, names });
        out
    }

    #[test]
    fn an_escaped_name_marks_the_line() {
        let mut out = Vec::new();
        let gnu = LineFormat::Gnu { binary: false };
        let (end, names) = NEWLINE;
        format_line(
            &mut out,
            "MD5",
            "abc",
            b"a\\b",
            Line {
                format: gnu,
                end,
                names,
            },
        );
        assert_eq!(out, b"\\abc  a\\\\b\n");
    }

    #[test]
    fn plain_binary_tagged_zero() {
        let gnu = LineFormat::Gnu { binary: false };
        assert_eq!(line(b"a b", gnu, NEWLINE), b"00ff  a b\n");
        assert_eq!(
            line(b"a", LineFormat::Gnu { binary: true }, NEWLINE),
            b"00ff *a\n"
        );
        assert_eq!(line(b"a", LineFormat::Tagged, NEWLINE), b"MD5 (a) = 00ff\n");
        assert_eq!(line(b"a\nb", gnu, NUL), b"00ff  a\nb\0");
    }

    /// b3sum's lines: GNU's escaping, and invalid UTF-8 written lossily.
    #[test]
    fn b3sum_lossy_names() {
        let gnu = LineFormat::Gnu { binary: false };
        assert_eq!(line(b"a\xffb", gnu, LOSSY), "00ff  a\u{fffd}b\n".as_bytes());
        assert_eq!(line(b"a\rb\\", gnu, LOSSY), b"\\00ff  a\\rb\\\\\n");
        assert_eq!(line(b"a\xffb", gnu, NEWLINE), b"00ff  a\xffb\n");
    }

    #[test]
    fn escapes_backslash_newline_cr() {
        let gnu = LineFormat::Gnu { binary: false };
        assert_eq!(
            line(b"a\\b\nc\rd", gnu, NEWLINE),
            b"\\00ff  a\\\\b\\nc\\rd\n"
        );
        assert_eq!(
            line(b"n\nl", LineFormat::Tagged, NEWLINE),
            b"\\MD5 (n\\nl) = 00ff\n"
        );
    }

    fn check_opts(verbosity: Verbosity, ignore_missing: bool) -> CheckOptions {
        CheckOptions {
            verbosity,
            ignore_missing,
            ..CheckOptions::gnu()
        }
    }

    #[test]
    fn check_warnings_wording_and_plurals() {
        let normal = check_opts(Verbosity::Normal, false);
        let t = Tally {
            improper: 1,
            unreadable: 2,
            mismatched: 1,
            formatted: true,
            matched: false,
        };
        assert_eq!(
            check_warnings(&t, "f", &normal),
            [
                "WARNING: 1 line is improperly formatted",
                "WARNING: 2 listed files could not be read",
                "WARNING: 1 computed checksum did NOT match",
            ]
        );
        let t = Tally {
            improper: 2,
            unreadable: 1,
            mismatched: 3,
            formatted: true,
            matched: true,
        };
        assert_eq!(
            check_warnings(&t, "f", &normal),
            [
                "WARNING: 2 lines are improperly formatted",
                "WARNING: 1 listed file could not be read",
                "WARNING: 3 computed checksums did NOT match",
            ]
        );
        let status = check_opts(Verbosity::Status, false);
        assert!(check_warnings(&t, "f", &status).is_empty());
    }

    #[test]
    fn check_warnings_nothing_formatted_or_verified() {
        let status = check_opts(Verbosity::Status, false);
        assert_eq!(
            check_warnings(&Tally::default(), "'standard input'", &status),
            ["'standard input': no properly formatted checksum lines found"]
        );
        let missing_only = Tally {
            formatted: true,
            ..Tally::default()
        };
        let ign = check_opts(Verbosity::Quiet, true);
        assert_eq!(
            check_warnings(&missing_only, "f", &ign),
            ["f: no file was verified"]
        );
    }
}
