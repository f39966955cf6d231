//! What fastsum writes, one writer per style: the `config::Style` that
//! `cli` resolved once becomes a [`Writer`] here ([`writer`]), and hashing,
//! checking and auditing hand it what they found; none of them branches on
//! a tool. Each writer owns its digest lines, its failure lines and its
//! check wording: status lines, and what a check file's end and its
//! failures say (as hyperfine's `src/export/`: one trait, one file
//! per format):
//!
//! * [`gnu`]: GNU's untagged and tagged lines (hex or base64, newline or
//!   NUL, names escaped or not), GNU's `name: OK` status lines and
//!   `--audit`'s text lines, which every text style shares;
//! * [`legacy`]: cksum's CRC and sum's checksums, which print their own line;
//! * [`b3sum`]: b3sum's (names written lossily, `--length`/`--raw`/
//!   `--no-names`, `FAILED (reason)`);
//! * [`xxhsum`]: xxhsum's (`stdin`, `--little-endian`, its own messages);
//! * [`json`]: `--json`'s JSON Lines;
//! * [`raw`]: cksum's `--raw`, the digest's bytes alone;
//!
//! and the pieces they share: [`encoding`] (hex, base64) and [`quote`]
//! (names in messages, as GNU quotes them).

pub(crate) mod b3sum;
pub(crate) mod encoding;
pub(crate) mod gnu;
pub(crate) mod json;
pub(crate) mod legacy;
pub(crate) mod quote;
pub(crate) mod raw;
pub(crate) mod xxhsum;

use std::io;

use crate::algo::{Algorithm, PartSize};
use crate::config::{CheckOptions, Shape, Style, Verbosity};
use crate::input::Input;
use crate::printer::Printer;
use crate::read::{Hashed, Task};
use crate::report::error_text;

pub(crate) use encoding::{base64, base64_decode, parts_text};
pub(crate) use quote::quote_name;
pub(crate) use xxhsum::xxhsum_name;

/// What became of one checked line (of an audited file).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Status {
    /// The digest matched.
    Ok,
    /// The digest did not match.
    Failed,
    /// The file could not be opened or read (`error` says why).
    Unreadable,
    /// The file is not there (`--audit`, and `--json`; else unreadable).
    Missing,
    /// `--audit`: found in the tree, listed nowhere.
    New,
    /// `--audit`: not at its listed path, but its digest is listed for a
    /// missing one (`from`).
    Moved,
    /// `--audit` of a manifest with `#meta` lines: the digest did not
    /// match, and the size and mtime are as recorded (rot, or bytes
    /// changed behind the file system's back).
    Damaged,
    /// `--audit` of a manifest with `#meta` lines: the digest did not
    /// match, and the size or mtime changed too (an edit).
    Modified,
}

impl Status {
    /// The word of `--json`'s `status` and of `--audit`'s lines.
    pub(crate) fn word(self) -> &'static str {
        match self {
            Status::Ok => "OK",
            Status::Failed => "FAILED",
            Status::Unreadable => "UNREADABLE",
            Status::Missing => "MISSING",
            Status::New => "NEW",
            Status::Moved => "MOVED",
            Status::Damaged => "DAMAGED",
            Status::Modified => "MODIFIED",
        }
    }
}

/// A checked or audited line's outcome, as a writer words it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Verdict<'a> {
    /// The listed (or found) name.
    pub(crate) name: &'a [u8],
    /// The algorithm of the line (the first listed for an audited file).
    pub(crate) algo: Algorithm,
    pub(crate) status: Status,
    /// Why the file could not be read.
    pub(crate) error: Option<&'a io::Error>,
    /// `--audit`: the missing file a moved one was listed as.
    pub(crate) from: Option<&'a [u8]>,
    /// Where the line is: its check file (as messages name it) and number.
    pub(crate) at: Option<(&'a [u8], u64)>,
    /// A bare S3 ETag's line: the part size that matched, or those tried,
    /// which the status says.
    pub(crate) etag: Option<Etag<'a>>,
}

/// What a bare S3 ETag's line found (`HEX-N  NAME`, tried with the part
/// sizes that cut the file into N parts: `check::etag_candidates`).
#[derive(Clone, Copy, Debug)]
pub(crate) enum Etag<'a> {
    /// The part size whose ETag matched.
    Found(PartSize),
    /// None matched: the part sizes tried (ascending; none when no part
    /// size S3 takes makes `parts` parts of the file), and how many more
    /// would have, which one read could not carry.
    Tried {
        sizes: &'a [PartSize],
        parts: u64,
        untried: usize,
    },
}

impl std::fmt::Display for Etag<'_> {
    /// What the status line adds in parentheses: `S3 ETag of 16M parts`,
    /// `not an S3 ETag of 9M-17M, 32M parts`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (sizes, parts, untried) = match *self {
            Etag::Found(size) => return write!(f, "S3 ETag of {size} parts"),
            Etag::Tried {
                sizes: [], parts, ..
            } => {
                return write!(
                    f,
                    "no part size of whole MiB, 5M to 5G, makes {parts} parts of it"
                );
            }
            Etag::Tried {
                sizes,
                parts,
                untried,
            } => (sizes, parts, untried),
        };
        f.write_str("not an S3 ETag of ")?;
        // runs of sizes one MiB apart are written `first-last`
        let mut i = 0;
        while i < sizes.len() {
            let mut j = i;
            while sizes
                .get(j + 1)
                .is_some_and(|s| s.bytes() == sizes[j].bytes() + (1 << 20))
            {
                j += 1;
            }
            let sep = if i == 0 { "" } else { ", " };
            match j > i {
                true => write!(f, "{sep}{}-{}", sizes[i], sizes[j])?,
                false => write!(f, "{sep}{}", sizes[i])?,
            }
            i = j + 1;
        }
        write!(f, " parts")?;
        if untried > 0 {
            write!(f, "; {untried} more sizes make {parts} parts, not tried")?;
        }
        Ok(())
    }
}

/// What `--meta` records of a hashed file: its `#meta` line (without its
/// line end), and its mtime in nanoseconds since the epoch (`--json`'s
/// `mtime_ns`; `None`: too recent to vouch for its bytes).
pub(crate) struct Recorded<'a> {
    pub(crate) line: &'a [u8],
    pub(crate) mtime_ns: Option<i128>,
}

/// What one check file added up to, as a writer words its end: GNU's
/// per-file counters (under b3sum's rules, the run's), counted by
/// `check::Verifier` (whether the file passed: `check/summary.rs`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Tally {
    /// Improperly formatted lines.
    pub(crate) improper: u64,
    /// Listed files that could not be opened or read.
    pub(crate) unreadable: u64,
    /// Listed files whose digest did not match.
    pub(crate) mismatched: u64,
    /// At least one line was properly formatted.
    pub(crate) formatted: bool,
    /// At least one listed file matched.
    pub(crate) matched: bool,
}

/// What a style writes. The provided methods are GNU's (its messages, its
/// check status lines, `--audit`'s text lines); a writer overrides what
/// its tool words otherwise.
pub(crate) trait Writer {
    /// An input's digests, one per algorithm of `algos`, in its order.
    fn digests(&self, p: &mut Printer<'_>, task: &Task<()>, hashed: &Hashed) -> io::Result<()>;

    /// [`Writer::digests`] with `--meta`'s record of the file: its
    /// `#meta` line before each checksum line (`--meta` is refused with
    /// `-z`: they end in a newline).
    fn digests_with(
        &self,
        p: &mut Printer<'_>,
        task: &Task<()>,
        hashed: &Hashed,
        meta: &Recorded<'_>,
    ) -> io::Result<()> {
        for (&algo, digest) in task.algos.as_slice().iter().zip(&hashed.digests) {
            p.line(|out| {
                out.extend_from_slice(meta.line);
                out.push(b'\n');
            })?;
            let one = Task {
                input: task.input.clone(),
                algos: crate::algo::Algorithms::one(algo),
                context: (),
            };
            let hashed = Hashed {
                digests: vec![digest.clone()],
                size: hashed.size,
            };
            self.digests(p, &one, &hashed)?;
        }
        Ok(())
    }

    /// The name an input goes by in lines and messages.
    fn name<'a>(&self, input: &'a Input) -> &'a [u8] {
        input.name()
    }

    /// An input that could not be hashed (the run goes on and will exit 1).
    fn failed(&self, p: &mut Printer<'_>, name: &[u8], e: &io::Error) -> io::Result<()> {
        p.error(&format!("{}: {}", quote_name(name), error_text(e)))
    }

    /// What stderr says of a listed file that could not be read, before
    /// its status line (also under `--status`).
    fn unreadable(&self, p: &mut Printer<'_>, name: &[u8], e: &io::Error) -> io::Result<()> {
        p.message(&format!("{}: {}", quote_name(name), error_text(e)))
    }

    /// A checked line's status on stdout.
    fn status(&self, p: &mut Printer<'_>, v: &Verdict<'_>) -> io::Result<()> {
        let word = gnu::status_word(v.status, v.error);
        match (v.status, v.etag) {
            (Status::Ok | Status::Failed, Some(etag)) => {
                gnu::status_line(p, v.name, &format!("{word} ({etag})"))
            }
            _ => gnu::status_line(p, v.name, word),
        }
    }

    /// An audited file's line on stdout.
    fn audited(&self, p: &mut Printer<'_>, v: &Verdict<'_>) -> io::Result<()> {
        gnu::audit_line(p, v.name, v.status, v.from)
    }

    /// A check file's improperly formatted line (`line`: its number;
    /// `algo`: the algorithm GNU's warning names), said under `--warn`.
    fn improper(
        &self,
        p: &mut Printer<'_>,
        opts: &CheckOptions,
        (file, line): (&[u8], u64),
        algo: &str,
    ) -> io::Result<()> {
        if opts.verbosity != Verbosity::Warn {
            return Ok(());
        }
        let file = String::from_utf8_lossy(file);
        p.message(&format!(
            "{file}: {line}: improperly formatted {algo} checksum line"
        ))
    }

    /// A check file read to its end: what its counts say (GNU's warnings).
    fn check_end(
        &self,
        p: &mut Printer<'_>,
        opts: &CheckOptions,
        file: &[u8],
        tally: &Tally,
    ) -> io::Result<()> {
        for warning in gnu::check_warnings(tally, &String::from_utf8_lossy(file), opts) {
            p.message(&warning)?;
        }
        Ok(())
    }

    /// A check file that could not be opened (`error`), or whose reading
    /// failed part-way (`None`).
    fn check_file_error(
        &self,
        p: &mut Printer<'_>,
        file: &[u8],
        error: Option<&io::Error>,
    ) -> io::Result<()> {
        let file = String::from_utf8_lossy(file);
        match error {
            Some(e) => p.error(&format!("{file}: {}", error_text(e))),
            None => p.error(&format!("{file}: read error")),
        }
    }

    /// Every check file read, under rules whose counts are the run's
    /// (b3sum's): what they say. GNU's are each file's: nothing here.
    fn checks_finished(&self, _: &mut Printer<'_>, _: &Tally) -> io::Result<()> {
        Ok(())
    }

    /// What stderr gets once every input is written.
    fn closing(&self) -> Option<&'static [u8]> {
        None
    }
}

/// The writer of `style`.
pub(crate) fn writer(style: Style) -> Box<dyn Writer + Send> {
    let line = |format| gnu::Line {
        format,
        end: style.end,
        names: style.names,
    };
    match style.shape {
        Shape::Gnu(format) => Box::new(gnu::Gnu {
            line: line(format),
            encoding: style.encoding,
        }),
        Shape::Legacy { named } => Box::new(legacy::Legacy {
            named,
            end: style.end,
        }),
        Shape::B3sum(format, xof) => Box::new(b3sum::B3sum {
            line: line(format),
            xof,
        }),
        Shape::Xxhsum(format, xxh) => Box::new(xxhsum::Xxhsum {
            line: line(format),
            xxh,
        }),
        Shape::Json => Box::new(json::Json {
            encoding: style.encoding,
        }),
        Shape::Raw => Box::new(raw::Raw),
    }
}

/// `style`'s checksum line of `hex` for `name`, laid out as its writer
/// lays out untagged or tagged lines (`--tree-digest`'s line for a
/// directory, which `cli` allows only in these styles).
pub(crate) fn checksum_line(out: &mut Vec<u8>, style: Style, tag: &str, hex: &str, name: &[u8]) {
    let line = gnu::Line {
        format: style.format(),
        end: style.end,
        names: style.names,
    };
    gnu::format_line(out, tag, hex, name, line);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_etags_words_say_the_size_found_or_the_sizes_tried() {
        let mib = |n| PartSize::mib(n).unwrap();
        assert_eq!(Etag::Found(mib(16)).to_string(), "S3 ETag of 16M parts");
        let sizes = [5, 6, 7, 9, 64, 65, 1024].map(mib);
        let tried = Etag::Tried {
            sizes: &sizes,
            parts: 2,
            untried: 0,
        };
        assert_eq!(
            tried.to_string(),
            "not an S3 ETag of 5M-7M, 9M, 64M-65M, 1G parts"
        );
        let tried = Etag::Tried {
            sizes: &sizes[3..4],
            parts: 2,
            untried: 30,
        };
        assert_eq!(
            tried.to_string(),
            "not an S3 ETag of 9M parts; 30 more sizes make 2 parts, not tried"
        );
        let none = Etag::Tried {
            sizes: &[],
            parts: 200,
            untried: 0,
        };
        assert_eq!(
            none.to_string(),
            "no part size of whole MiB, 5M to 5G, makes 200 parts of it"
        );
    }
}
