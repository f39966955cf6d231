//! Hash mode (no `-c`): hash every input and print one checksum line each,
//! in argument order; report inputs that fail and go on.

use std::io::{self, Write};

use crate::config::Config;
use crate::input::{Input, error_text};
use crate::output::{format_line, quote_name};
use crate::read::{self, Job, Outcome, Sink};
use crate::report::Reporter;
use crate::stats::Stats;
use crate::walk::{self, Entry};

/// Prints each outcome as a checksum line, or an error on stderr.
struct Printer<'a, W: Write> {
    cfg: &'a Config,
    rep: &'a Reporter,
    out: W,
    line: Vec<u8>,
}

impl<W: Write> Sink<Entry> for Printer<'_, W> {
    fn put(&mut self, entry: Entry, outcome: Outcome) -> io::Result<()> {
        let input = match entry {
            Entry::Input(input) => input,
            Entry::Error(path, e) => {
                self.report(&Input::Path(path), &e)?;
                return Ok(());
            }
        };
        match outcome {
            Some(Ok(digest)) => {
                self.line.clear();
                format_line(
                    &mut self.line,
                    self.cfg.algorithm.tag(),
                    &digest.to_hex(),
                    input.name(),
                    self.cfg.format,
                    self.cfg.terminator,
                );
                self.out.write_all(&self.line)
            }
            Some(Err(e)) => self.report(&input, &e),
            None => Ok(()),
        }
    }

    fn idle(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

impl<W: Write> Printer<'_, W> {
    /// Report a failed input on stderr; the run goes on and will exit 1.
    fn report(&mut self, input: &Input, e: &io::Error) -> io::Result<()> {
        // flush first, so stdout and stderr keep their relative order on a terminal
        self.out.flush()?;
        self.rep
            .error(&format!("{}: {}", quote_name(input.name()), error_text(e)));
        Ok(())
    }
}

/// Hash every input of `cfg` and print the lines to `out`.
pub fn run(cfg: &Config, rep: &Reporter, stats: &Stats, out: impl Write) -> io::Result<()> {
    let jobs = walk::expand(cfg.files.clone(), cfg.recursive).map(|entry| Job {
        input: match &entry {
            Entry::Input(input) => Some(input.clone()),
            Entry::Error(..) => None,
        },
        algo: cfg.algorithm,
        tag: entry,
    });
    let mut printer = Printer {
        cfg,
        rep,
        out,
        line: Vec::with_capacity(256),
    };
    read::run(&cfg.plan, stats, jobs, &mut printer)?;
    printer.out.flush()
}
