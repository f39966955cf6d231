//! Hash mode (no `-c`): hash every input and print one checksum line each,
//! in argument order; report inputs that fail and go on.

use std::io::{self, Write};

use crate::config::Config;
use crate::input::{Input, error_text};
use crate::output::{format_line, quote_name};
use crate::read::{self, Job, Outcome, Sink};
use crate::report::Reporter;
use crate::stats::Stats;

/// Prints each outcome as a checksum line, or an error on stderr.
struct Printer<'a, W: Write> {
    cfg: &'a Config,
    rep: &'a Reporter,
    out: W,
    line: Vec<u8>,
}

impl<W: Write> Sink<Input> for Printer<'_, W> {
    fn put(&mut self, input: Input, outcome: Outcome) -> io::Result<()> {
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
            Some(Err(e)) => {
                // flush first, so stdout and stderr keep their relative order on a terminal
                self.out.flush()?;
                self.rep
                    .error(&format!("{}: {}", quote_name(input.name()), error_text(&e)));
                Ok(())
            }
            None => Ok(()),
        }
    }

    fn idle(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

/// Hash every input of `cfg` and print the lines to `out`.
pub fn run(cfg: &Config, rep: &Reporter, stats: &Stats, out: impl Write) -> io::Result<()> {
    let inputs = cfg.files.iter().cloned().map(Input::from_arg);
    let jobs = inputs.map(|input| Job {
        input: Some(input.clone()),
        algo: cfg.algorithm,
        tag: input,
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
