//! `-c` under an xxhsum name: xxhsum 0.8.1's check-line syntax, words and
//! counts, which are not GNU's. A line is `HEX  NAME` (the digest's length
//! says XXH32, XXH64 or XXH128; the second separator may be any byte) or
//! `TAG (NAME) = HEX` (`XXH3`, `XXH32`, `XXH64`, `XXH128`, any with `_LE`
//! for a reversed digest); a listed `stdin` is standard input. Status lines
//! and the closing counts go to stdout, names as they are; `SUMS:LINE:`
//! messages for what cannot be opened (stdout) or parsed (`-w`, stderr).
//! Where xxhsum would hash what it could read of a file that fails part-way,
//! fastsum reports the file as not read.

use std::ffi::OsString;
use std::io::{self, BufRead, BufReader, Write};
use std::os::unix::ffi::OsStringExt;
use std::sync::Arc;

use crate::algo::{Algorithm, Algorithms};
use crate::config::{Context, XxhCheckOptions};
use crate::input::{Input, Opened};
use crate::output::xxhsum_name;
use crate::printer::{Printer, Render, print_all};
use crate::read::{Hashed, Job, JobSource, Outcome, Task};
use crate::report::error_text;

/// A check file's name in messages (`stdin` for standard input).
type FileName = Arc<[u8]>;

/// What a listed file must hash to, and where it is listed.
#[derive(Debug)]
struct Listed {
    file: FileName,
    line: u64,
    /// The digest, in the hash's canonical (big-endian) byte order.
    expected: Vec<u8>,
}

/// What rides along in order with the listed files.
#[derive(Debug)]
enum Event {
    /// A line of no known shape.
    Improper { file: FileName, line: u64 },
    /// The check file was read to its end.
    End { file: FileName },
    /// The check file could not be opened.
    OpenError { file: FileName, error: io::Error },
}

/// A line's algorithm, digest (canonical order) and listed name, or `None`
/// for a line xxhsum calls improperly formatted.
fn parse_line(line: &[u8], little_endian: bool) -> Option<(Algorithm, Vec<u8>, &[u8])> {
    // xxhsum works on a C string: a NUL ends the line
    let line = line.split(|&b| b == 0).next().unwrap_or_default();
    let first = line.iter().position(|&b| b == b' ')?;
    let after = line.get(first + 1)?;
    let (algo, hex, name, reversed) = if *after == b'(' {
        let last = line.iter().rposition(|&b| b == b' ')?;
        if last < first + 5 || &line[last - 3..last] != b") =" {
            return None;
        }
        let tag = &line[..first];
        let starts = |p: &[u8]| tag.starts_with(p);
        // the last match wins, as in xxhsum (XXH32 starts with XXH3)
        let algo = [
            (&b"XXH3"[..], Algorithm::Xxh3),
            (b"XXH32", Algorithm::Xxh32),
            (b"XXH64", Algorithm::Xxh64),
            (b"XXH128", Algorithm::Xxh128),
        ]
        .into_iter()
        .rfind(|(p, _)| starts(p))
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
        (algo, hex, line.get(first + 2..)?, little_endian)
    };
    let fits = match hex.len() {
        8 => algo == Algorithm::Xxh32,
        16 => matches!(algo, Algorithm::Xxh64 | Algorithm::Xxh3),
        32 => algo == Algorithm::Xxh128,
        _ => false,
    };
    if !fits {
        return None;
    }
    let nibble = |c: u8| char::from(c).to_digit(16).map(|d| d as u8);
    let mut bytes = hex
        .chunks_exact(2)
        .map(|p| Some((nibble(p[0])? << 4) | nibble(p[1])?))
        .collect::<Option<Vec<u8>>>()?;
    if reversed {
        bytes.reverse();
    }
    Some((algo, bytes, name))
}

/// The check file being read.
struct Open {
    reader: BufReader<Opened>,
    file: FileName,
    line: u64,
}

/// The jobs: every check file's lines, read lazily.
struct Feed<'a> {
    files: std::slice::Iter<'a, OsString>,
    current: Option<Open>,
    little_endian: bool,
    buf: Vec<u8>,
}

type XxhJob = Job<Listed, Event>;

impl Iterator for Feed<'_> {
    type Item = XxhJob;

    fn next(&mut self) -> Option<XxhJob> {
        loop {
            let Some(cur) = &mut self.current else {
                let arg = self.files.next()?;
                let input = Input::from_arg(arg.clone());
                let file: FileName = Arc::from(xxhsum_name(&input));
                match input.open() {
                    Ok(src) => {
                        self.current = Some(Open {
                            reader: BufReader::with_capacity(64 * 1024, src),
                            file,
                            line: 0,
                        });
                        continue;
                    }
                    Err(error) => return Some(Job::Pass(Event::OpenError { file, error })),
                }
            };
            self.buf.clear();
            let n = cur.reader.read_until(b'\n', &mut self.buf).unwrap_or(0);
            if n == 0 {
                let file = cur.file.clone();
                self.current = None;
                return Some(Job::Pass(Event::End { file }));
            }
            cur.line += 1;
            let body = self.buf.strip_suffix(b"\n").unwrap_or(&self.buf);
            let (file, line) = (cur.file.clone(), cur.line);
            let Some((algo, expected, name)) = parse_line(body, self.little_endian) else {
                return Some(Job::Pass(Event::Improper { file, line }));
            };
            let input = match name {
                b"stdin" => Input::Stdin,
                _ => Input::Path(OsString::from_vec(name.to_vec()).into()),
            };
            return Some(Job::Hash(Task {
                input,
                algos: Algorithms::one(algo),
                context: Listed {
                    file,
                    line,
                    expected,
                },
            }));
        }
    }
}

/// xxhsum's counters for one check file.
#[derive(Default)]
struct Report {
    proper: u64,
    improper: u64,
    mismatched: u64,
    unreadable: u64,
}

/// `n` and the singular or plural words.
fn count(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// Prints each outcome as xxhsum does.
struct Verifier {
    opts: XxhCheckOptions,
    report: Report,
}

impl Verifier {
    fn stdout(&self, p: &mut Printer<'_>, text: &[u8]) -> io::Result<()> {
        if self.opts.status {
            return Ok(());
        }
        p.line(|line| line.extend_from_slice(text))
    }

    fn listed(
        &mut self,
        p: &mut Printer<'_>,
        task: &Task<Listed>,
        r: io::Result<Hashed>,
    ) -> io::Result<()> {
        self.report.proper += 1;
        let listed = &task.context;
        let name = xxhsum_name(&task.input);
        match r.map(|h| h.digests) {
            Ok(digests) => {
                let ok = digests
                    .first()
                    .is_some_and(|d| d.as_bytes() == listed.expected.as_slice());
                if !ok {
                    self.report.mismatched += 1;
                }
                if ok && self.opts.quiet {
                    return Ok(());
                }
                let status: &[u8] = if ok { b": OK\n" } else { b": FAILED\n" };
                self.stdout(p, &[name, status].concat())
            }
            Err(e) => {
                self.report.unreadable += 1;
                let text = [
                    &listed.file[..],
                    format!(":{}: Could not open or read '", listed.line).as_bytes(),
                    name,
                    format!("': {}.\n", error_text(&e)).as_bytes(),
                ]
                .concat();
                self.stdout(p, &text)
            }
        }
    }

    /// The counts after a check file, and whether it passed.
    fn end(&mut self, p: &mut Printer<'_>, file: &[u8]) -> io::Result<()> {
        let r = std::mem::take(&mut self.report);
        if r.proper == 0 {
            let text = [
                file,
                b": no properly formatted xxHash checksum lines found\n",
            ]
            .concat();
            p.error_raw(&text)?;
            return Ok(());
        }
        let lines = [
            (r.improper, "line is", "lines are", "improperly formatted"),
            (
                r.unreadable,
                "listed file",
                "listed files",
                "could not be read",
            ),
            (
                r.mismatched,
                "computed checksum",
                "computed checksums",
                "did NOT match",
            ),
        ];
        for (n, one, many, what) in lines {
            if n != 0 {
                self.stdout(p, format!("{} {what}\n", count(n, one, many)).as_bytes())?;
            }
        }
        if r.mismatched + r.unreadable != 0 || (self.opts.strict && r.improper != 0) {
            p.fail();
        }
        Ok(())
    }
}

impl Render<Listed, Event> for Verifier {
    fn render(&mut self, outcome: Outcome<Listed, Event>, p: &mut Printer<'_>) -> io::Result<()> {
        match outcome {
            Outcome::Hashed(task, r) => self.listed(p, &task, r),
            Outcome::Passed(Event::Improper { file, line }) => {
                self.report.improper += 1;
                if !self.opts.warn {
                    return Ok(());
                }
                let text = [
                    &file[..],
                    format!(":{line}: Error: Improperly formatted checksum line.\n").as_bytes(),
                ]
                .concat();
                p.message_raw(&text)
            }
            Outcome::Passed(Event::End { file }) => self.end(p, &file),
            Outcome::Passed(Event::OpenError { file, error }) => {
                self.report = Report::default();
                let text = [
                    b"Error: Could not open '",
                    &file[..],
                    format!("': {}\n", error_text(&error)).as_bytes(),
                ]
                .concat();
                p.error_raw(&text)
            }
        }
    }
}

/// Verify every check file of `files` as xxhsum does.
pub(crate) fn run(
    cx: Context<'_>,
    opts: XxhCheckOptions,
    files: &[OsString],
    out: &mut dyn Write,
) -> io::Result<()> {
    let feed = Feed {
        files: files.iter(),
        current: None,
        little_endian: opts.little_endian,
        buf: Vec::with_capacity(1024),
    };
    let verifier = Verifier {
        opts,
        report: Report::default(),
    };
    print_all(cx, feed, JobSource::CheckFiles, verifier, out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_as_xxhsum_reads_them() {
        let got = |l: &[u8]| parse_line(l, false).map(|(a, d, n)| (a, d, n.to_vec()));
        assert_eq!(
            got(b"e4c191d091bd8853  h1"),
            Some((
                Algorithm::Xxh64,
                vec![0xe4, 0xc1, 0x91, 0xd0, 0x91, 0xbd, 0x88, 0x53],
                b"h1".to_vec()
            ))
        );
        assert_eq!(
            got(b"946b5bf9 *h1").map(|(a, _, n)| (a, n)),
            Some((Algorithm::Xxh32, b"h1".to_vec()))
        );
        assert_eq!(
            got(b"XXH3 (a b) = 99fc819aaba2462a").map(|(a, _, n)| (a, n)),
            Some((Algorithm::Xxh3, b"a b".to_vec()))
        );
        assert_eq!(
            got(b"XXH32_LE (x) = f95b6b94").map(|(a, d, _)| (a, d)),
            Some((Algorithm::Xxh32, vec![0x94, 0x6b, 0x5b, 0xf9]))
        );
        for bad in [
            &b"junk"[..],
            b"0000  x",
            b"946b5bf9",
            b"XXH3 (x) = 946b5bf9",
            b"zzzzzzzz  x",
        ] {
            assert_eq!(got(bad), None, "{:?}", String::from_utf8_lossy(bad));
        }
    }
}
