//! The one ordered printer behind every command: each command says what an
//! outcome looks like ([`Render`]); the printer runs the jobs, receives
//! their outcomes in order, and keeps stdout and stderr in step (stdout is
//! flushed before any message, so the two interleave on a terminal as they
//! happened), flushing whenever the pipeline goes quiet.

use std::io::{self, Write};

use crate::config::Context;
use crate::read::{self, Job, JobSource, Outcome, Sink};
use crate::report::Reporter;
use crate::stats::Stats;

/// Where a command's lines and messages go.
pub(crate) struct Printer<'a> {
    out: &'a mut dyn Write,
    line: Vec<u8>,
    rep: &'a Reporter,
}

impl Printer<'_> {
    /// Write one line to stdout, built in a reused buffer.
    pub(crate) fn line(&mut self, build: impl FnOnce(&mut Vec<u8>)) -> io::Result<()> {
        self.line.clear();
        build(&mut self.line);
        self.out.write_all(&self.line)
    }

    /// Write bytes to stdout as they are (a line written in pieces).
    pub(crate) fn write(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.out.write_all(bytes)
    }

    /// A message on stderr, after what stdout holds so far.
    pub(crate) fn message(&mut self, msg: &str) -> io::Result<()> {
        self.out.flush()?;
        self.rep.message(msg);
        Ok(())
    }

    /// An error on stderr (after stdout's lines); the run will exit 1.
    pub(crate) fn error(&mut self, msg: &str) -> io::Result<()> {
        self.out.flush()?;
        self.rep.error(msg);
        Ok(())
    }

    /// `text` on stderr as it is, after stdout's lines.
    pub(crate) fn message_raw(&mut self, text: &[u8]) -> io::Result<()> {
        self.out.flush()?;
        self.rep.raw(text);
        Ok(())
    }

    /// `text` on stderr as it is (after stdout's lines); the run will
    /// exit 1.
    pub(crate) fn error_raw(&mut self, text: &[u8]) -> io::Result<()> {
        self.out.flush()?;
        self.rep.raw(text);
        self.rep.fail();
        Ok(())
    }

    /// Make the run exit 1 without a message.
    pub(crate) fn fail(&self) {
        self.rep.fail();
    }
}

/// What a command prints for each outcome.
pub(crate) trait Render<T, P> {
    fn render(&mut self, outcome: Outcome<T, P>, p: &mut Printer<'_>) -> io::Result<()>;
}

/// Run `jobs` with the run's plan and print every outcome, in job order,
/// with `render`. An error is a failed write to `out` (the run stopped
/// there).
pub(crate) fn print_all<T, P, I, R>(
    cx: Context<'_>,
    jobs: I,
    source: JobSource,
    render: R,
    out: &mut dyn Write,
) -> io::Result<()>
where
    T: Send,
    P: Send,
    I: Iterator<Item = Job<T, P>> + Send,
    R: Render<T, P>,
{
    struct Ordered<'a, R> {
        render: R,
        printer: Printer<'a>,
        stats: &'a Stats,
    }
    impl<T, P, R: Render<T, P>> Sink<T, P> for Ordered<'_, R> {
        fn put(&mut self, outcome: Outcome<T, P>) -> io::Result<()> {
            // every input counts for the progress display, hashed or not
            if let Outcome::Hashed(..) = outcome {
                self.stats.add_input_done();
            }
            self.render.render(outcome, &mut self.printer)
        }
        fn idle(&mut self) -> io::Result<()> {
            self.printer.out.flush()
        }
    }
    let mut ordered = Ordered {
        render,
        printer: Printer {
            out,
            line: Vec::with_capacity(256),
            rep: cx.rep,
        },
        stats: cx.stats,
    };
    read::run(cx.plan, cx.stats, jobs, source, &mut ordered)?;
    ordered.printer.out.flush()
}
