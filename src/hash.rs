//! Hash mode (no `-c`): hash every input and print one checksum line each,
//! in argument order; report inputs that fail and go on.

use std::ffi::OsString;
use std::io::{self, Write};
use std::path::PathBuf;

use crate::algo::Algorithm;
use crate::config::HashOptions;
use crate::output::{format_line, quote_name};
use crate::printer::{Printer, Render, print_all};
use crate::read::{Job, Outcome, Plan, Task};
use crate::report::{Reporter, error_text};
use crate::stats::Stats;
use crate::walk::{self, Entry};

/// A path the walk could not read, reported in its place in the order.
type WalkError = (PathBuf, io::Error);

/// Prints each digest as a checksum line, each failure on stderr.
struct Lines {
    algo: Algorithm,
    opts: HashOptions,
}

impl Render<(), WalkError> for Lines {
    fn render(&mut self, outcome: Outcome<(), WalkError>, p: &mut Printer<'_>) -> io::Result<()> {
        match outcome {
            Outcome::Hashed(task, Ok(digest)) => p.line(|line| {
                format_line(
                    line,
                    self.algo.tag(),
                    &digest.to_hex(),
                    task.input.name(),
                    self.opts.format,
                    self.opts.terminator,
                )
            }),
            Outcome::Hashed(task, Err(e)) => failed(p, task.input.name(), &e),
            Outcome::Passed((path, e)) => failed(
                p,
                std::os::unix::ffi::OsStrExt::as_bytes(path.as_os_str()),
                &e,
            ),
        }
    }
}

/// Report a failed input; the run goes on and will exit 1.
fn failed(p: &mut Printer<'_>, name: &[u8], e: &io::Error) -> io::Result<()> {
    p.error(&format!("{}: {}", quote_name(name), error_text(e)))
}

/// Hash every input named by `files` and print the lines to `out`.
pub(crate) fn run(
    algo: Algorithm,
    opts: HashOptions,
    plan: &Plan,
    files: Vec<OsString>,
    rep: &Reporter,
    stats: &Stats,
    out: &mut dyn Write,
) -> io::Result<()> {
    let jobs = walk::expand(files, opts.recursive).map(move |entry| match entry {
        Entry::Input(input) => Job::Hash(Task {
            input,
            algo,
            tag: (),
        }),
        Entry::Error(path, e) => Job::Pass((path, e)),
    });
    print_all(plan, stats, jobs, Lines { algo, opts }, out, rep)
}
