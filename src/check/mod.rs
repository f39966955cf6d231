//! Check mode (`-c`): read checksum files and verify the files they list,
//! with GNU coreutils 9.1's output, messages and exit status (the odd
//! corners are listed in docs/check.md).
//!
//! The check files are read lazily, line by line, by the `Feed` iterator
//! that the reading pipeline ([`crate::read::run`]) consumes on its own
//! thread: each well-formed line becomes a job that hashes the listed file
//! in whatever `--mode` was chosen. Everything else that must come out in
//! order (improper lines for `-w`, a check file's summary, a check file that
//! cannot be opened or read) rides along as a pass-through job, so the
//! `Verifier` sink sees one ordered stream of events and prints each in
//! GNU's order.
//!
//! * [`parse`]: the syntax of one line;
//! * [`summary`]: per-check-file counters and GNU's closing warnings.

pub mod parse;
pub mod summary;

use std::ffi::{OsStr, OsString};
use std::io::{self, BufRead, BufReader, Write};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::sync::Arc;

use crate::algo::Algorithm;
use crate::config::{CheckOptions, Config, Verbosity};
use crate::input::{Input, Source, error_text};
use crate::output::{push_escaped, quote_name};
use crate::read::{self, Job, Outcome, Sink};
use crate::report::Reporter;
use crate::stats::Stats;

use parse::{Expected, Form, Improper, Tags, line_body, parse_check_line};
use summary::Tally;

/// A check file's name as messages show it (quoted; `standard input` for `-`).
type FileName = Arc<str>;

/// What one job carries to the `Verifier`, in check-file order.
#[derive(Debug)]
pub enum Event {
    /// A well-formed line: the listed file's outcome decides OK or FAILED.
    Verify {
        /// The listed file's name, unescaped.
        name: Vec<u8>,
        /// The digest it must have.
        expected: Expected,
    },
    /// An improperly formatted line.
    Improper {
        /// The check file.
        file: FileName,
        /// The line number (counting every line, comments and blanks too).
        line: u64,
    },
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
}

/// GNU's "BSD reversed" latch. The first untagged line settles whether
/// untagged lines are standard (`hex  name`) or reversed (`hex name`), for
/// the rest of the run, across check files: later reversed-looking lines are
/// then improper, or standard-looking lines name ` name` (GNU does this to
/// stop a renamed file with a leading blank from passing for another).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Latch {
    /// No untagged line yet.
    #[default]
    Unset,
    /// Settled on `hex  name` / `hex *name`.
    Standard,
    /// Settled on `hex name`.
    Reversed,
}

impl Latch {
    /// Take a line of `form` into account. `None` if GNU rejects it, else
    /// whether its name is to be read the reversed way.
    fn accept(&mut self, form: Form) -> Option<bool> {
        match (form, *self) {
            (Form::Tagged, _) => Some(false),
            (Form::Standard, Latch::Reversed) => Some(true),
            (Form::Standard, _) => {
                *self = Latch::Standard;
                Some(false)
            }
            (Form::Reversed, Latch::Standard) => None,
            (Form::Reversed, _) => {
                *self = Latch::Reversed;
                Some(true)
            }
        }
    }
}

/// The check file being read.
struct Open {
    reader: BufReader<Source>,
    file: FileName,
    is_stdin: bool,
    line: u64,
}

/// The jobs of a check run: every check file's lines, read lazily.
struct Feed<'a> {
    files: std::slice::Iter<'a, OsString>,
    current: Option<Open>,
    default: Algorithm,
    tags: Tags,
    latch: Latch,
    buf: Vec<u8>,
}

/// A job that hashes nothing and carries `event` to the sink in order.
fn pass(event: Event) -> Job<Event> {
    Job {
        input: None,
        // unused for a pass-through
        algo: Algorithm::Md5,
        tag: event,
    }
}

/// The name GNU gives a check file in messages.
fn display_name(arg: &OsStr) -> FileName {
    if arg.as_bytes() == b"-" {
        quote_name(b"standard input").into()
    } else {
        quote_name(arg.as_bytes()).into()
    }
}

/// The job for one line body of the check file `cur`.
fn line_job(
    body: &[u8],
    cur: &Open,
    latch: &mut Latch,
    default: Algorithm,
    tags: Tags,
) -> Job<Event> {
    let improper = || {
        pass(Event::Improper {
            file: cur.file.clone(),
            line: cur.line,
        })
    };
    let Ok(line) = parse_check_line(body, default, tags) else {
        return improper();
    };
    let Some(reversed) = latch.accept(line.form) else {
        return improper();
    };
    let name = match line.file_name(reversed) {
        Ok(name) => name,
        Err(Improper) => return improper(),
    };
    // a check file read from stdin cannot list stdin
    if cur.is_stdin && name == b"-" {
        return improper();
    }
    let input = Input::from_arg(OsString::from_vec(name.clone()));
    Job {
        input: Some(input),
        algo: line.algo,
        tag: Event::Verify {
            name,
            expected: line.expected,
        },
    }
}

impl Iterator for Feed<'_> {
    type Item = Job<Event>;

    fn next(&mut self) -> Option<Job<Event>> {
        loop {
            let Some(cur) = &mut self.current else {
                let arg = self.files.next()?;
                let file = display_name(arg);
                let input = Input::from_arg(arg.clone());
                match input.open() {
                    Ok(src) => {
                        self.current = Some(Open {
                            reader: BufReader::with_capacity(64 * 1024, src),
                            file,
                            is_stdin: input == Input::Stdin,
                            line: 0,
                        })
                    }
                    Err(error) => return Some(pass(Event::OpenError { file, error })),
                }
                continue;
            };
            self.buf.clear();
            match cur.reader.read_until(b'\n', &mut self.buf) {
                Ok(0) => {
                    let file = cur.file.clone();
                    self.current = None;
                    return Some(pass(Event::End { file }));
                }
                Ok(_) => {
                    cur.line += 1;
                    let Some(body) = line_body(&self.buf) else {
                        continue;
                    };
                    return Some(line_job(
                        body,
                        cur,
                        &mut self.latch,
                        self.default,
                        self.tags,
                    ));
                }
                Err(_) => {
                    // GNU says only "read error" here, without the reason
                    let file = cur.file.clone();
                    self.current = None;
                    return Some(pass(Event::ReadError { file }));
                }
            }
        }
    }
}

/// Prints each event: status lines on stdout, messages on stderr, and the
/// closing summary of each check file.
struct Verifier<'a, W: Write> {
    opts: CheckOptions,
    /// The tag named in `-w` warnings (GNU's DIGEST_TYPE_STRING).
    tag: &'static str,
    rep: &'a Reporter,
    out: W,
    tally: Tally,
    line: Vec<u8>,
}

impl<W: Write> Verifier<'_, W> {
    /// Write `name: status` to stdout, unless `--status`. GNU 9.1 escapes
    /// the name (with a leading `\`) only when it holds a newline; then
    /// backslashes, newlines and CRs are all written as escapes.
    fn status_line(&mut self, name: &[u8], status: &str) -> io::Result<()> {
        if self.opts.verbosity == Verbosity::Status {
            return Ok(());
        }
        self.line.clear();
        if name.contains(&b'\n') {
            self.line.push(b'\\');
            push_escaped(&mut self.line, name);
        } else {
            self.line.extend_from_slice(name);
        }
        self.line.extend_from_slice(b": ");
        self.line.extend_from_slice(status.as_bytes());
        self.line.push(b'\n');
        self.out.write_all(&self.line)
    }

    /// Print a message on stderr, after what stdout holds so far.
    fn message(&mut self, msg: &str) -> io::Result<()> {
        self.out.flush()?;
        self.rep.message(msg);
        Ok(())
    }

    fn verify(&mut self, name: &[u8], expected: &Expected, outcome: Outcome) -> io::Result<()> {
        self.tally.formatted = true;
        match outcome {
            Some(Ok(digest)) => {
                if digest.as_bytes() == expected.as_bytes() {
                    self.tally.matched = true;
                    if self.opts.verbosity != Verbosity::Quiet {
                        self.status_line(name, "OK")?;
                    }
                } else {
                    self.tally.mismatched += 1;
                    self.status_line(name, "FAILED")?;
                }
            }
            Some(Err(e)) if self.opts.ignore_missing && e.kind() == io::ErrorKind::NotFound => {}
            Some(Err(e)) => {
                self.tally.unreadable += 1;
                self.message(&format!("{}: {}", quote_name(name), error_text(&e)))?;
                self.status_line(name, "FAILED open or read")?;
            }
            None => {
                // every Verify job has an input, so the pipeline always
                // reports an outcome; count a missing one as unreadable
                self.tally.unreadable += 1;
                self.status_line(name, "FAILED open or read")?;
            }
        }
        Ok(())
    }
}

impl<W: Write> Sink<Event> for Verifier<'_, W> {
    fn put(&mut self, event: Event, outcome: Outcome) -> io::Result<()> {
        match event {
            Event::Verify { name, expected } => self.verify(&name, &expected, outcome)?,
            Event::Improper { file, line } => {
                self.tally.improper += 1;
                if self.opts.verbosity == Verbosity::Warn {
                    let tag = self.tag;
                    self.message(&format!(
                        "{file}: {line}: improperly formatted {tag} checksum line"
                    ))?;
                }
            }
            Event::End { file } => {
                let tally = std::mem::take(&mut self.tally);
                for w in tally.warnings(&file, &self.opts) {
                    self.message(&w)?;
                }
                if !tally.passed(&self.opts) {
                    self.rep.fail();
                }
            }
            Event::OpenError { file, error } => {
                self.tally = Tally::default();
                self.out.flush()?;
                self.rep.error(&format!("{file}: {}", error_text(&error)));
            }
            Event::ReadError { file } => {
                self.tally = Tally::default();
                self.out.flush()?;
                self.rep.error(&format!("{file}: read error"));
            }
        }
        Ok(())
    }

    fn idle(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

/// Verify every checksum file of `cfg`, printing to `out`.
pub fn run(cfg: &Config, rep: &Reporter, stats: &Stats, out: impl Write) -> io::Result<()> {
    let Some(opts) = cfg.check else {
        return Ok(());
    };
    let feed = Feed {
        files: cfg.files.iter(),
        current: None,
        default: cfg.algorithm,
        tags: if cfg.algorithm_chosen {
            Tags::OnlyDefault
        } else {
            Tags::Any
        },
        latch: Latch::default(),
        buf: Vec::with_capacity(1024),
    };
    let mut verifier = Verifier {
        opts,
        tag: cfg.algorithm.tag(),
        rep,
        out,
        tally: Tally::default(),
        line: Vec::with_capacity(256),
    };
    read::run(&cfg.plan, stats, feed, &mut verifier)?;
    verifier.out.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latch_follows_the_first_untagged_line() {
        let mut l = Latch::default();
        assert_eq!(l.accept(Form::Tagged), Some(false));
        assert_eq!(l, Latch::Unset);
        assert_eq!(l.accept(Form::Standard), Some(false));
        assert_eq!(l.accept(Form::Reversed), None);
        let mut l = Latch::default();
        assert_eq!(l.accept(Form::Reversed), Some(true));
        assert_eq!(l.accept(Form::Standard), Some(true));
        assert_eq!(l.accept(Form::Reversed), Some(true));
    }

    #[test]
    fn stdin_is_named_standard_input() {
        assert_eq!(&*display_name(OsStr::new("-")), "'standard input'");
        assert_eq!(&*display_name(OsStr::new("sums")), "sums");
    }
}
