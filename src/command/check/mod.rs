//! Check mode (`-c`): read checksum files and verify the files they list,
//! with GNU coreutils 9.1's output, messages and exit status (the odd
//! corners are listed in docs/check.md), or b3sum's or xxhsum's under
//! their names.
//!
//! The check files are read lazily, line by line, by the [`feed::Feed`]
//! iterator that the reading pipeline consumes on its own thread: each
//! well-formed line becomes a job that hashes the listed file in whatever
//! `--mode` was chosen. Everything else that must come out in order
//! (improper lines for `-w`, a check file's summary, a check file that
//! cannot be opened or read) rides along as a pass-through job ([`Event`]),
//! so the [`verify::Verifier`] sees one ordered stream of outcomes and
//! prints each in order.
//!
//! Where the tools differ, the name's grammar (a [`grammar::Grammar`],
//! chosen once in `cli`: its flavour's row names its [`grammar::Make`],
//! which builds it from what the command line says, `config::Dialect`) is
//! one file each in `check/grammar/`:
//!
//! * `gnu.rs`: GNU's (and fastsum's own rules on top of it), over the line
//!   syntax of [`parse`] (and, without `-a`, [`infer`]);
//! * `b3sum.rs`: b3sum 1.8's (one summary for the run, `Error:` for a
//!   check file it cannot read);
//! * `xxhsum.rs`: xxhsum 0.8.1's (its line syntax, `parse::xxhsum_line`).
//!
//! The grammar turns each raw line into a job and states its rules
//! ([`grammar::Rules`]: a check file's errors, grouping, counting, what
//! passes); the `Feed` and the `Verifier` follow them without asking which
//! tool runs, and the style's writer (`output`) words what comes of each
//! line and check file. Also here: [`signed`] (`--verify-with`), [`etag`]
//! (a bare S3 ETag's part sizes), [`summary`] (whether a check file
//! passed) and [`audit`] (`--audit`).

pub(crate) mod audit;
mod etag;
mod feed;
pub(crate) mod grammar;
pub(crate) mod infer;
pub(crate) mod parse;
mod signed;
pub(crate) mod summary;
mod verify;

use std::ffi::{OsStr, OsString};
use std::io::{self, Write};
use std::sync::Arc;

use crate::algo::Algorithms;
use crate::command::meta::MetaLine;
use crate::config::{CheckOptions, Context};
use crate::output::quote_name;
use crate::printer::print_all;
use crate::read::{Job, JobSource};
use feed::Feed;
use grammar::Make;
use parse::Expected;
use signed::Signing;
use verify::Verifier;

pub(crate) use crate::output::Status;

/// A check file's name as messages show it: GNU's and b3sum's quoted
/// (`standard input` for `-`), xxhsum's as it is (`stdin` for `-`), so
/// bytes.
pub(crate) type FileName = Arc<[u8]>;

/// A check file's name in a message of GNU's (quoted: always UTF-8).
fn text(file: &[u8]) -> std::borrow::Cow<'_, str> {
    String::from_utf8_lossy(file)
}

/// What a pass-through job carries to the `Verifier`, in check-file order
/// (a job that hashes a listed file carries the digest it must have).
#[derive(Debug)]
pub(crate) enum Event {
    /// An improperly formatted line.
    Improper {
        /// The check file.
        file: FileName,
        /// The line number (counting every line, comments and blanks too).
        line: u64,
        /// The algorithm `-w` names: the one chosen, or (when none was,
        /// as GNU cksum) the last tag read.
        algo: &'static str,
    },
    /// A line b3sum refuses, and its reason.
    Refused(grammar::b3sum::Refusal),
    /// b3sum ends the whole run with this error (a check file that cannot
    /// be opened or read, a line that is not UTF-8).
    Abort(String),
    /// Every check file is read (b3sum's summary is the run's, not each
    /// file's).
    Finished,
    /// The check file was read to its end.
    End {
        /// The check file.
        file: FileName,
    },
    /// The check file could not be opened.
    OpenError {
        /// The check file.
        file: FileName,
        /// Why.
        error: io::Error,
    },
    /// Reading the check file failed part-way (it is abandoned, unsummed).
    ReadError {
        /// The check file.
        file: FileName,
    },
    /// An untagged line whose algorithm is not known (fastsum's own rules
    /// without `-a`: see `infer`): not checked, counted as improperly
    /// formatted, and the first of its length in a check file says which
    /// `-a` values fit.
    Unknown {
        /// The check file.
        file: FileName,
        /// The line number.
        line: u64,
        /// What `-w` names (as [`Event::Improper`]'s).
        algo: &'static str,
        /// The digest's length in bytes, and whether it is written in hex.
        bytes: usize,
        hex: bool,
    },
    /// The check file's signature holds (`--verify-with`): who signed.
    Signed {
        /// The check file.
        file: FileName,
        /// Who signed, as [`crate::signature::Verified::signer`] says.
        signer: String,
    },
    /// The check file's signature does not hold, or cannot be verified:
    /// none of its lines is used.
    Unsigned {
        /// The check file.
        file: FileName,
        /// Why.
        why: String,
    },
}

/// What a line asks of the file it lists: the expected digests, one per
/// algorithm of its task (one per line grouped into it), the name its
/// status line shows when that is not the file's own (b3sum's, as written),
/// and where it is listed when messages say so (xxhsum's).
#[derive(Debug)]
pub(crate) struct Listed {
    /// One digest per algorithm of the task.
    pub(crate) expected: Vec<Expected>,
    /// A bare S3 ETag: the algorithms are its candidate part sizes, and
    /// one line's verdict is whether any matched.
    pub(crate) etag: bool,
    /// b3sum: the name as the line writes it.
    pub(crate) shown: Option<Box<[u8]>>,
    /// xxhsum: the check file and the line number (its message for a
    /// listed file it cannot read names them).
    pub(crate) at: Option<(FileName, u64)>,
    /// The `#meta` line just before the line, unread (`--audit` and a
    /// digest that does not match tell rot from an edit by what it records).
    pub(crate) meta: Option<MetaLine>,
}

/// A job of the check run.
pub(crate) type CheckJob = Job<Listed, Event>;

/// What reading one line of a check file gave.
// (a job, its `#meta` line inline, is moved on as it is: boxing it would
// be an allocation a line, which `Listed::meta` is kept inline to avoid)
#[allow(clippy::large_enum_variant)]
pub(crate) enum Step {
    /// A job (or a pass-through event).
    Job(CheckJob),
    /// A blank or comment line.
    Skip,
    /// Every check file is read (the `Feed`'s to say: a grammar never
    /// does).
    Done,
}

/// The name GNU gives a check file in messages.
pub(crate) fn display_name(arg: &OsStr) -> FileName {
    let name = if arg.as_encoded_bytes() == b"-" {
        quote_name(b"standard input")
    } else {
        quote_name(arg.as_encoded_bytes())
    };
    name.into_bytes().into()
}

/// The jobs of checking `files` by the grammar `make` builds (the name's,
/// reading by `opts.dialect`), and what prints their outcomes (`--audit`
/// takes them too).
fn reading<'a>(
    opts: &CheckOptions,
    make: Make,
    algos: Algorithms,
    files: &'a [OsString],
    signing: Option<Signing>,
) -> (Feed<'a>, Verifier) {
    let grammar = make(&opts.dialect, algos);
    let rules = grammar.rules();
    (
        Feed::new(grammar, files, signing),
        verify::verifier(opts.clone(), rules),
    )
}

/// Verify every checksum file in `files`, read by the grammar `make`
/// builds (the name's), printing to `out`.
pub(crate) fn run(
    cx: Context<'_>,
    opts: CheckOptions,
    make: Make,
    files: &[OsString],
    out: &mut dyn Write,
) -> io::Result<()> {
    let Ok(signing) = signed::signing(&opts, cx.rep) else {
        return Ok(());
    };
    let (feed, verifier) = reading(&opts, make, cx.algos, files, signing);
    print_all(cx, feed, JobSource::CheckFiles, verifier, out)
}

/// How many files the check files list, for the progress display: their
/// lines that look like checksum lines (a blank between digest and name,
/// not a comment, not an OpenPGP clear-signed text's armour), read again
/// here. `None` when one is
/// no regular file (stdin, a FIFO: read once, by the check) or cannot be
/// read.
pub(crate) fn listed_count(files: &[OsString]) -> Option<u64> {
    let mut count = 0;
    for file in files {
        // (a FIFO is never opened here: its bytes are the check's)
        let path = crate::sys::file_path(file.as_ref());
        if file == "-" || !std::fs::metadata(&path).is_ok_and(|m| m.is_file()) {
            return None;
        }
        count += count_listed(std::fs::File::open(&path).ok()?).ok()?;
    }
    Some(count)
}

/// The checksum lines in `reader` (as [`listed_count`] counts them). The
/// count runs beside the check on a CPU it shares, so it must cost the run
/// next to nothing: lines are found with the `memchr` crate's vector
/// search in large reads, not copied one by one, and most lines are judged
/// by a look at one byte ([`ListedLines::add`]).
fn count_listed(mut reader: impl io::Read) -> io::Result<u64> {
    let mut buf = vec![0; 64 * 1024];
    // bytes of a line not ended yet, at the start of `buf`
    let mut held = 0;
    let mut listed = ListedLines::default();
    loop {
        let n = match reader.read(&mut buf[held..]) {
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        let end = held + n;
        let mut start = 0;
        for nl in memchr::memchr_iter(b'\n', &buf[held..end]) {
            listed.add(&buf[start..held + nl]);
            start = held + nl + 1;
        }
        if n == 0 {
            listed.add(&buf[start..end]);
            return Ok(listed.count);
        }
        buf.copy_within(start..end, 0);
        held = end - start;
        if held == buf.len() {
            // a line longer than the buffer
            buf.resize(2 * held, 0);
        }
    }
}

/// The checksum lines counted so far, line by line.
#[derive(Default)]
struct ListedLines {
    count: u64,
    /// Inside an OpenPGP signature's armour?
    armour: bool,
    /// Where the last line counted had its first blank: the digests of a
    /// manifest are mostly of one length, so a look there usually answers
    /// without a search.
    blank: usize,
}

impl ListedLines {
    /// Count `line` if it is a checksum line: no comment, no armour, a
    /// blank within its text.
    fn add(&mut self, line: &[u8]) {
        if self.armour || matches!(line.first(), Some(b'#' | b'-' | b'H')) {
            self.armour = self.armour && !line.starts_with(b"-----END");
            self.armour |= line.starts_with(b"-----BEGIN PGP SIGNATURE");
            if let (false, Some(escaped)) = (self.armour, line.strip_prefix(b"- ")) {
                // a dash-escaped line of a clear-signed text (RFC 4880 7.1)
                return self.add(escaped);
            }
            let skip = self.armour || line.starts_with(b"#") || line.starts_with(b"-");
            if skip || line.starts_with(b"Hash: ") {
                return;
            }
        }
        // (trimmed: a blank in it has text on both sides)
        let text = line.trim_ascii();
        if text.get(self.blank) != Some(&b' ') {
            match memchr::memchr(b' ', text) {
                Some(at) => self.blank = at,
                None => return,
            }
        }
        self.count += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn listed_count_counts_checksum_lines_not_armour_nor_comments() {
        let dir = tempfile::tempdir().unwrap();
        let signed = dir.path().join("SUMS.asc");
        let text = "-----BEGIN PGP SIGNED MESSAGE-----\nHash: SHA256\n\n\
                    # a comment\nd41d8cd98f00b204e9800998ecf8427e  a\n\
                    MD5 (b) = d41d8cd98f00b204e9800998ecf8427e\n\
                    - d41d8cd98f00b204e9800998ecf8427e  d\n\n\
                    -----BEGIN PGP SIGNATURE-----\n\niQEzBAEBCAAdFiEE\nwx1 2\n\
                    -----END PGP SIGNATURE-----\n";
        std::fs::write(&signed, text).unwrap();
        let plain = dir.path().join("SUMS");
        std::fs::write(&plain, "d41d8cd98f00b204e9800998ecf8427e  c\n").unwrap();
        let files = [signed.into_os_string(), plain.into_os_string()];
        // (a dash-escaped line is one: `d`'s)
        assert_eq!(listed_count(&files), Some(4));
        // standard input is read once, by the check
        assert_eq!(listed_count(&["-".into()]), None);
    }

    /// A reader that hands out at most `step` bytes a call.
    struct Trickle<'a> {
        bytes: &'a [u8],
        step: usize,
    }

    impl io::Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = self.step.min(buf.len()).min(self.bytes.len());
            buf[..n].copy_from_slice(&self.bytes[..n]);
            self.bytes = &self.bytes[n..];
            Ok(n)
        }
    }

    #[test]
    fn lines_are_counted_across_reads_and_beyond_the_buffer() {
        let long = format!("{}  {}\n", "a".repeat(32), "n".repeat(200_000));
        let text = format!(
            "d41d8cd98f00b204e9800998ecf8427e  a\n{long}# c d\n  x  \n\
             d41d8cd98f00b204e9800998ecf8427e0123456789\nab c\nd41d8cd98f00b204e9800998ecf8427e \n\
             -----BEGIN PGP SIGNATURE-----\nw x\n-----END PGP SIGNATURE-----\n\
             MD5 (b) = d41d8cd98f00b204e9800998ecf8427e"
        );
        for step in [1, 7, 4096, 1 << 20] {
            let got = count_listed(Trickle {
                bytes: text.as_bytes(),
                step,
            });
            assert_eq!(got.unwrap(), 4, "{step}");
        }
    }

    #[test]
    fn stdin_is_named_standard_input() {
        assert_eq!(&*display_name(OsStr::new("-")), b"'standard input'");
        assert_eq!(&*display_name(OsStr::new("sums")), b"sums");
    }
}
