//! xxhsum's lines and messages: standard input is `stdin`,
//! `--little-endian` reverses the digest and marks the tag, names are
//! written as they are, failures are xxhsum's words (a check file's too,
//! and its counts on stdout), and stderr's line is blanked out at the end.

use std::io;

use crate::algo::push_hex;
use crate::config::{CheckOptions, Verbosity, XxhOutput};
use crate::input::Input;
use crate::printer::Printer;
use crate::read::{Hashed, Task};
use crate::report::error_text;

use super::gnu::{Line, count, format_line, status_line};
use super::{Status, Tally, Verdict, Writer};

/// xxhsum's lines.
pub(crate) struct Xxhsum {
    pub(crate) line: Line,
    pub(crate) xxh: XxhOutput,
}

/// What xxhsum writes at the end on stderr (`\r`, 70 spaces, `\r`).
const BLANK_OUT: &[u8] =
    b"\r                                                                      \r";

/// The name xxhsum gives an input in its lines and messages: `stdin` for
/// standard input, else the path's bytes.
pub(crate) fn xxhsum_name(input: &Input) -> &[u8] {
    match input {
        Input::Stdin => b"stdin",
        _ => input.name(),
    }
}

impl Writer for Xxhsum {
    fn digests(&self, p: &mut Printer<'_>, task: &Task<()>, hashed: &Hashed) -> io::Result<()> {
        let name = xxhsum_name(&task.input);
        for (algo, digest) in task.algos.as_slice().iter().zip(&hashed.digests) {
            let mut bytes = digest.as_bytes().to_vec();
            let mut tag = algo.tag().into_owned();
            if self.xxh.little_endian {
                bytes.reverse();
                tag.push_str("_LE");
            }
            let mut hex = Vec::with_capacity(2 * bytes.len());
            push_hex(&mut hex, &bytes);
            let hex = String::from_utf8_lossy(&hex);
            p.line(|out| format_line(out, &tag, &hex, name, self.line))?;
        }
        Ok(())
    }

    fn name<'a>(&self, input: &'a Input) -> &'a [u8] {
        xxhsum_name(input)
    }

    /// xxhsum's own words, no program name but for a directory's; a read
    /// error, where xxhsum would print a digest of what it read, is
    /// reported too.
    fn failed(&self, p: &mut Printer<'_>, name: &[u8], e: &io::Error) -> io::Result<()> {
        let name = String::from_utf8_lossy(name);
        let text = match e.kind() {
            io::ErrorKind::IsADirectory => format!("xxhsum: {name}: Is a directory \n"),
            io::ErrorKind::NotFound | io::ErrorKind::PermissionDenied => {
                format!("Error: Could not open '{name}': {}. \n", error_text(e))
            }
            _ => format!("Error: Could not read '{name}': {}. \n", error_text(e)),
        };
        p.error_raw(text.as_bytes())
    }

    /// xxhsum says why in its status line, and nothing on stderr.
    fn unreadable(&self, _: &mut Printer<'_>, _: &[u8], _: &io::Error) -> io::Result<()> {
        Ok(())
    }

    /// `name: OK`, `name: FAILED`, or for a listed file it cannot read
    /// `SUMS:LINE: Could not open or read 'name': why.`, on stdout.
    fn status(&self, p: &mut Printer<'_>, v: &Verdict<'_>) -> io::Result<()> {
        match (v.status, v.error, v.at) {
            (Status::Ok, _, _) => status_line(p, v.name, "OK"),
            (_, Some(e), at) => p.line(|out| {
                let (file, line) = at.unwrap_or((b"", 0));
                out.extend_from_slice(file);
                out.extend_from_slice(format!(":{line}: Could not open or read '").as_bytes());
                out.extend_from_slice(v.name);
                out.extend_from_slice(format!("': {}.\n", error_text(e)).as_bytes());
            }),
            _ => status_line(p, v.name, "FAILED"),
        }
    }

    /// `SUMS:LINE: Error: Improperly formatted checksum line.` under `-w`,
    /// no program name.
    fn improper(
        &self,
        p: &mut Printer<'_>,
        _: &CheckOptions,
        (file, line): (&[u8], u64),
        _: &str,
    ) -> io::Result<()> {
        if !self.xxh.warn {
            return Ok(());
        }
        let text = [
            file,
            format!(":{line}: Error: Improperly formatted checksum line.\n").as_bytes(),
        ]
        .concat();
        p.message_raw(&text)
    }

    /// The counts on stdout, or on stderr that no line was well formed.
    fn check_end(
        &self,
        p: &mut Printer<'_>,
        opts: &CheckOptions,
        file: &[u8],
        tally: &Tally,
    ) -> io::Result<()> {
        if !tally.formatted {
            let text = [
                file,
                b": no properly formatted xxHash checksum lines found\n",
            ]
            .concat();
            return p.error_raw(&text);
        }
        if opts.verbosity != Verbosity::Status {
            for count in counts(tally) {
                p.line(|out| out.extend_from_slice(count.as_bytes()))?;
            }
        }
        Ok(())
    }

    /// `Error: Could not open 'SUMS': why`; a read error part-way is the
    /// end of the check file to xxhsum's feed, and no error.
    fn check_file_error(
        &self,
        p: &mut Printer<'_>,
        file: &[u8],
        error: Option<&io::Error>,
    ) -> io::Result<()> {
        let Some(e) = error else {
            return Ok(());
        };
        let text = [
            b"Error: Could not open '",
            file,
            format!("': {}\n", error_text(e)).as_bytes(),
        ]
        .concat();
        p.error_raw(&text)
    }

    fn closing(&self) -> Option<&'static [u8]> {
        self.xxh.blank_out.then_some(BLANK_OUT)
    }
}

/// The counts xxhsum prints on stdout (each a line) once a check file
/// with a properly formatted line is read to its end, in its order.
fn counts(tally: &Tally) -> Vec<String> {
    let lines = [
        (
            tally.improper,
            "line is",
            "lines are",
            "improperly formatted",
        ),
        (
            tally.unreadable,
            "listed file",
            "listed files",
            "could not be read",
        ),
        (
            tally.mismatched,
            "computed checksum",
            "computed checksums",
            "did NOT match",
        ),
    ];
    lines
        .into_iter()
        .filter(|&(n, ..)| n != 0)
        .map(|(n, one, many, what)| format!("{} {what}\n", count(n, one, many)))
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_blank_out_is_70_spaces_between_returns() {
        assert_eq!(super::BLANK_OUT, format!("\r{:70}\r", "").as_bytes());
    }
}
