//! The jobs of a check run: every check file's lines, read lazily, line by
//! line, on the reading pipeline's own thread, each turned into a job by
//! the run's [`Grammar`] and its [`Rules`]; what must come out in order
//! besides (an improper line, a check file's end, one that cannot be opened
//! or read, a signature's verdict) rides along as a pass-through job.
//!
//! Consecutive lines naming the same file with different algorithms (what
//! `fastsum -a md5,sha256` writes) become one job that reads the file once
//! and hashes it with all of them, where the grammar's rules allow; only
//! lines already read into the check file's buffer are grouped, so memory
//! stays bounded and a check file fed line by line through a pipe is never
//! waited on for a line it has not sent.

use std::ffi::OsString;
use std::io::{self, BufRead, BufReader};

use super::grammar::{At, FileErrors, Grammar, Rules};
use super::signed::{Signing, verified};
use super::{CheckJob, Event, FileName, Step};
use crate::input::{Input, Opened};
use crate::read::Job;

/// A check file's bytes as its lines are read: from the file, or verified
/// (`--verify-with`) and held, read once.
enum Lines {
    File(BufReader<Opened>),
    Verified(io::Cursor<Vec<u8>>),
}

impl Lines {
    /// The next line, its `\n` included, if it is whole in memory (so
    /// reading it cannot wait): read where it lies, then [`Lines::consume`]d.
    fn whole_line(&mut self) -> Option<&[u8]> {
        let held = match self {
            Lines::File(r) => r.buffer(),
            // (a cursor's bytes are all in memory: this never fails)
            Lines::Verified(r) => r.fill_buf().unwrap_or_default(),
        };
        let end = memchr::memchr(b'\n', held)?;
        Some(&held[..=end])
    }

    /// `n` bytes of [`Lines::whole_line`]'s read.
    fn consume(&mut self, n: usize) {
        match self {
            Lines::File(r) => r.consume(n),
            Lines::Verified(r) => r.consume(n),
        }
    }

    /// Append the next line to `buf`, its `\n` included (`Ok(0)`: the
    /// end); it may wait for its bytes.
    fn read_line(&mut self, buf: &mut Vec<u8>) -> io::Result<usize> {
        match self {
            Lines::File(r) => read_line(r, buf),
            Lines::Verified(r) => read_line(r, buf),
        }
    }

    /// Can reading a line never wait?
    fn in_memory(&self) -> bool {
        matches!(self, Lines::Verified(_))
    }
}

/// `BufRead::read_until(b'\n', buf)`, the line end found by the `memchr`
/// crate's vector search (std's searches a word at a time): a line not
/// whole in memory, copied as its bytes come.
fn read_line(r: &mut impl BufRead, buf: &mut Vec<u8>) -> io::Result<usize> {
    let mut read = 0;
    loop {
        let available = match r.fill_buf() {
            Ok(available) => available,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        let (used, ends) = match memchr::memchr(b'\n', available) {
            Some(i) => (i + 1, true),
            None => (available.len(), available.is_empty()),
        };
        buf.extend_from_slice(&available[..used]);
        r.consume(used);
        read += used;
        if ends {
            return Ok(read);
        }
    }
}

/// The check file being read.
struct Open {
    reader: Lines,
    /// Its name, as messages show it.
    file: FileName,
    is_stdin: bool,
    /// The number of the line last read.
    line: u64,
}

/// The jobs of a check run: every check file's lines, read lazily.
pub(super) struct Feed<'a> {
    files: std::slice::Iter<'a, OsString>,
    current: Option<Open>,
    /// How lines are read: the dialect's grammar.
    grammar: Box<dyn Grammar>,
    /// Its rules.
    rules: Rules,
    buf: Vec<u8>,
    /// A job read ahead that did not join the one before it.
    pending: Option<CheckJob>,
    /// The run is over: an `Event::Abort` stopped it, or its end was
    /// announced.
    done: bool,
    /// `--verify-with`: each check file's signature first.
    signing: Option<Signing>,
}

impl<'a> Feed<'a> {
    /// The jobs of checking `files` by `grammar`.
    pub(super) fn new(
        grammar: Box<dyn Grammar>,
        files: &'a [OsString],
        signing: Option<Signing>,
    ) -> Feed<'a> {
        Feed {
            files: files.iter(),
            current: None,
            rules: grammar.rules(),
            grammar,
            buf: Vec::with_capacity(1024),
            pending: None,
            done: false,
            signing,
        }
    }
}

impl Feed<'_> {
    /// Read one line (opening the next check file when one ends).
    fn step(&mut self) -> Step {
        self.read(true).unwrap_or(Step::Done)
    }

    /// Read one line; unless `wait`, only one already in memory, and no
    /// next check file opened (`None`: nothing read).
    fn read(&mut self, wait: bool) -> Option<Step> {
        if self.done {
            return Some(Step::Done);
        }
        let Some(cur) = &mut self.current else {
            return wait.then(|| self.open_next());
        };
        // (a whole line in memory, as most are, is read where it lies)
        if let Some(line) = cur.reader.whole_line() {
            let used = line.len();
            cur.line += 1;
            let at = At {
                file: &cur.file,
                line: cur.line,
                stdin: cur.is_stdin,
            };
            let step = self.grammar.line(line, at);
            cur.reader.consume(used);
            return Some(self.ended(step));
        }
        if !wait && !cur.reader.in_memory() {
            return None;
        }
        self.buf.clear();
        let read = match cur.reader.read_line(&mut self.buf) {
            Err(_) if self.rules.file_errors == FileErrors::ReadEnds => Ok(0),
            read => read,
        };
        Some(match read {
            Ok(0) => {
                let file = cur.file.clone();
                self.current = None;
                Step::Job(Job::Pass(Event::End { file }))
            }
            Ok(_) => {
                cur.line += 1;
                let at = At {
                    file: &cur.file,
                    line: cur.line,
                    stdin: cur.is_stdin,
                };
                let step = self.grammar.line(&self.buf, at);
                self.ended(step)
            }
            Err(error) if self.rules.file_errors == FileErrors::EndTheRun => {
                Step::Job(self.abort(&error))
            }
            Err(_) => {
                // GNU says only "read error" here, without the reason
                let file = cur.file.clone();
                self.current = None;
                Step::Job(Job::Pass(Event::ReadError { file }))
            }
        })
    }

    /// `step`, the run over if it is an `Event::Abort`.
    fn ended(&mut self, step: Step) -> Step {
        if let Step::Job(Job::Pass(Event::Abort(_))) = step {
            self.done = true;
        }
        step
    }

    /// Open the next check file, its signature checked first if asked (the
    /// run's counts after the last, when they are the run's).
    fn open_next(&mut self) -> Step {
        let Some(arg) = self.files.next() else {
            if self.rules.run_counts {
                self.done = true;
                return Step::Job(Job::Pass(Event::Finished));
            }
            return Step::Done;
        };
        let input = Input::from_arg(arg.clone());
        let file = self.grammar.file_name(arg);
        let mut src = match input.open() {
            Ok(src) => src,
            Err(error) if self.rules.file_errors == FileErrors::EndTheRun => {
                return Step::Job(self.abort(&error));
            }
            Err(error) => return Step::Job(Job::Pass(Event::OpenError { file, error })),
        };
        let (reader, step) = match &self.signing {
            None => (
                Lines::File(BufReader::with_capacity(64 * 1024, src)),
                Step::Skip,
            ),
            Some(signing) => match verified(&input, &mut src, signing) {
                Ok(v) => (
                    Lines::Verified(io::Cursor::new(v.content)),
                    Step::Job(Job::Pass(Event::Signed {
                        file: file.clone(),
                        signer: v.signer,
                    })),
                ),
                Err(why) => return Step::Job(Job::Pass(Event::Unsigned { file, why })),
            },
        };
        self.grammar.open(&input);
        self.current = Some(Open {
            reader,
            file,
            is_stdin: input == Input::Stdin,
            line: 0,
        });
        step
    }

    /// The end of the run on `error` (b3sum's `main` returns it).
    fn abort(&mut self, error: &io::Error) -> CheckJob {
        self.done = true;
        self.current = None;
        Job::Pass(Event::Abort(error.to_string()))
    }

    /// The next job, blank and comment lines skipped.
    fn next_job(&mut self) -> Option<CheckJob> {
        loop {
            match self.step() {
                Step::Job(job) => return Some(job),
                Step::Skip => {}
                Step::Done => return None,
            }
        }
    }
}

impl Iterator for Feed<'_> {
    type Item = CheckJob;

    fn next(&mut self) -> Option<CheckJob> {
        let job = match self.pending.take() {
            Some(job) => job,
            None => self.next_job()?,
        };
        let Job::Hash(mut task) = job else {
            return Some(job);
        };
        // the following lines for the same file with other algorithms join
        // it; not standard input's: each `-` line reads on from where the
        // last one left it (so a second one finds it at its end, as GNU's)
        let groups = self.rules.groups && task.input != Input::Stdin;
        while groups && self.pending.is_none() {
            // (only lines already read into memory: see the module's doc)
            let next = match self.read(false) {
                Some(Step::Job(next)) => next,
                Some(Step::Skip) => continue,
                Some(Step::Done) | None => break,
            };
            match next {
                // (a bare ETag's candidates are one line's)
                Job::Hash(t) if t.input == task.input && !task.context.etag && !t.context.etag => {
                    match task.algos.with(t.algos.first()) {
                        Some(algos) => {
                            task.algos = algos;
                            task.context.expected.extend(t.context.expected);
                        }
                        None => self.pending = Some(Job::Hash(t)),
                    }
                }
                other => self.pending = Some(other),
            }
        }
        Some(Job::Hash(task))
    }
}
