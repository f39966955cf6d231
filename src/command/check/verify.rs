//! What a check run prints: each outcome judged by the grammar's rules
//! (what it counts, `output::Tally`; a bare ETag's candidates; whether a
//! check file passed, `summary`), worded by the style's writer: status
//! lines on stdout, messages on stderr, each check file's end.

use std::io;

use super::etag::part_sizes;
use super::grammar::Rules;
use super::parse::Expected;
use super::summary::{self, Tally};
use super::{Event, Listed, Status, infer, text};
use crate::algo::{Algorithm, Digest, PartSize};
use crate::command::meta::{Meta, damaged};
use crate::config::{CheckOptions, Verbosity};
use crate::input::Input;
use crate::output::{Etag, Verdict, Writer, writer};
use crate::printer::{Printer, Render};
use crate::read::Outcome;

/// What a missing digest would be reported as (a task always has one per
/// line; this only keeps `render` total).
pub(super) static NO_DIGEST: std::sync::LazyLock<io::Error> =
    std::sync::LazyLock::new(|| io::Error::other("no digest"));

/// Prints each outcome: status lines on stdout (as the style's writer
/// words them), messages on stderr, and the closing summary of each check
/// file.
pub(super) struct Verifier {
    pub(super) opts: CheckOptions,
    /// The grammar's rules: how outcomes count, what passes.
    rules: Rules,
    pub(super) writer: Box<dyn Writer + Send>,
    pub(super) tally: Tally,
    /// The lengths of the check file's lines of no known algorithm whose
    /// `-a` values were named (once a length and check file).
    named_fits: Vec<(usize, bool)>,
    /// Whether the file being verified changed since its `#meta` line
    /// (fastsum's own rules tie one to a line; `None`: it has none, or
    /// nothing tells): a mismatch is then DAMAGED or MODIFIED.
    changed: Option<bool>,
}

impl Verifier {
    /// A bare ETag's line: OK, saying the part size, when one of its
    /// candidates matched; else as its first candidate's line, saying the
    /// part sizes tried.
    fn verify_etag(
        &mut self,
        p: &mut Printer<'_>,
        (name, at): (&[u8], Option<(&[u8], u64)>),
        algos: &[Algorithm],
        expected: &[Expected],
        r: &io::Result<crate::read::Hashed>,
    ) -> io::Result<()> {
        let digest = |i: usize| match r {
            Ok(hashed) => hashed.digests.get(i).ok_or(&*NO_DIGEST),
            Err(e) => Err(e),
        };
        let (Some(&first), Some(want)) = (algos.first(), expected.first()) else {
            return Ok(());
        };
        let Ok(hashed) = r else {
            return self.verify(p, (name, at), (first, None), want, digest(0));
        };
        let mut each = algos.iter().zip(expected).zip(&hashed.digests);
        if let Some(i) = each.position(|((a, e), d)| e.matches_as(d, *a)) {
            let found = algos[i].parts().map(|p| Etag::Found(p.size));
            return self.verify(p, (name, at), (algos[i], found), &expected[i], digest(i));
        }
        // the sizes tried that made as many parts as the ETag has
        let parts = want.parts();
        let mut sizes: Vec<PartSize> = (algos.iter().zip(&hashed.digests))
            .filter(|(_, d)| d.parts() == parts)
            .filter_map(|(a, _)| Some(a.parts()?.size))
            .collect();
        sizes.sort_by_key(|s| s.bytes());
        let fit = part_sizes(hashed.size, parts).count();
        let untried = fit.saturating_sub(sizes.len());
        let tried = Etag::Tried {
            sizes: &sizes,
            parts,
            untried,
        };
        self.verify(p, (name, at), (first, Some(tried)), want, digest(0))
    }

    /// What one line's outcome is, and the counts it adds to.
    fn judge(
        &mut self,
        expected: &Expected,
        algo: Algorithm,
        outcome: Result<&Digest, &io::Error>,
    ) -> Option<Status> {
        self.tally.formatted = true;
        match outcome {
            Ok(digest) if expected.matches_as(digest, algo) => {
                self.tally.matched = true;
                Some(Status::Ok)
            }
            Ok(_) => {
                self.tally.mismatched += 1;
                Some(Status::Failed)
            }
            Err(e) if self.opts.ignore_missing && e.kind() == io::ErrorKind::NotFound => None,
            Err(_) if self.rules.unreadable_mismatches => {
                self.tally.mismatched += 1;
                Some(Status::Unreadable)
            }
            Err(e) => {
                self.tally.unreadable += 1;
                Some(if e.kind() == io::ErrorKind::NotFound {
                    Status::Missing
                } else {
                    Status::Unreadable
                })
            }
        }
    }

    /// Judge one line and have the style's writer word it (`at`: where it
    /// is listed, for the writers whose words name it; `etag`: what a bare
    /// ETag's candidates found, which its status says).
    pub(super) fn verify(
        &mut self,
        p: &mut Printer<'_>,
        (name, at): (&[u8], Option<(&[u8], u64)>),
        (algo, etag): (Algorithm, Option<Etag<'_>>),
        expected: &Expected,
        outcome: Result<&Digest, &io::Error>,
    ) -> io::Result<()> {
        let Some(status) = self.judge(expected, algo, outcome) else {
            return Ok(());
        };
        self.report(p, (name, at), (algo, etag), status, outcome.err())
    }

    /// Have the style's writer word a line's `status` (see `verify`): a
    /// FAILED one as DAMAGED or MODIFIED when `changed` tells which.
    fn report(
        &mut self,
        p: &mut Printer<'_>,
        (name, at): (&[u8], Option<(&[u8], u64)>),
        (algo, etag): (Algorithm, Option<Etag<'_>>),
        mut status: Status,
        error: Option<&io::Error>,
    ) -> io::Result<()> {
        if let (Status::Failed, Some(changed)) = (status, self.changed) {
            status = if changed {
                Status::Modified
            } else {
                p.error(&damaged(name))?;
                Status::Damaged
            };
        }
        if status == Status::Ok && self.opts.verbosity == Verbosity::Quiet {
            return Ok(());
        }
        if let Some(e) = error {
            self.writer.unreadable(p, name, e)?;
        }
        if self.opts.verbosity == Verbosity::Status {
            return Ok(());
        }
        let verdict = Verdict {
            name,
            algo,
            status,
            error,
            from: None,
            at,
            etag,
        };
        self.writer.status(p, &verdict)
    }
}

impl Render<Listed, Event> for Verifier {
    fn render(&mut self, outcome: Outcome<Listed, Event>, p: &mut Printer<'_>) -> io::Result<()> {
        let event = match outcome {
            Outcome::Hashed(task, r) => {
                // one status per line, in the check file's order
                let algos = task.algos.as_slice();
                let listed = &task.context;
                let name = match &listed.shown {
                    Some(shown) => shown,
                    None => self.writer.name(&task.input),
                };
                let at = listed.at.as_ref().map(|(file, line)| (&file[..], *line));
                if listed.etag {
                    return self.verify_etag(p, (name, at), algos, &listed.expected, &r);
                }
                // its `#meta` line read, and the file looked at, only for a
                // digest that did not match, once
                let mut tied = match (&task.input, &listed.meta) {
                    (Input::Path(path), Some(then)) => Some((path, then)),
                    _ => None,
                };
                for (i, (expected, &algo)) in listed.expected.iter().zip(algos).enumerate() {
                    let digest = match &r {
                        Ok(hashed) => hashed.digests.get(i).ok_or(&*NO_DIGEST),
                        Err(e) => Err(e),
                    };
                    let Some(status) = self.judge(expected, algo, digest) else {
                        continue;
                    };
                    if status == Status::Failed
                        && let Some((path, then)) = tied.take()
                    {
                        self.changed = then
                            .read()
                            .and_then(|then| then.changed(&Meta::of_path(path).ok()?));
                    }
                    self.report(p, (name, at), (algo, None), status, digest.err())?;
                }
                self.changed = None;
                return Ok(());
            }
            Outcome::Passed(event) => event,
        };
        self.passed(p, event)
    }
}

impl Verifier {
    /// What rides along in a check file, in its place: b3sum's refusals
    /// and end, improper lines, a check file's end or failure, signatures.
    fn passed(&mut self, p: &mut Printer<'_>, event: Event) -> io::Result<()> {
        match event {
            Event::Refused(why) => {
                // b3sum counts it with the checksums that did not match
                self.tally.mismatched += 1;
                p.message(why)?;
            }
            Event::Abort(error) => {
                // what Rust prints of the error `main` returns: no program
                // name, no summary
                p.error_raw(format!("Error: {error}\n").as_bytes())?;
            }
            Event::Finished => {
                self.writer.checks_finished(p, &self.tally)?;
                if self.tally.mismatched > 0 {
                    p.fail();
                }
            }
            // the run's counts run on to its end (b3sum's)
            Event::End { .. } if self.rules.run_counts => {}
            Event::Improper {
                file, line, algo, ..
            } => self.improper(p, &file, line, algo)?,
            Event::Unknown {
                file,
                line,
                algo,
                bytes,
                hex,
            } => {
                self.improper(p, &file, line, algo)?;
                // (said even under --status: the line was not checked)
                if !self.named_fits.contains(&(bytes, hex)) {
                    self.named_fits.push((bytes, hex));
                    p.message(&unknown_algorithm(&text(&file), line, bytes, hex))?;
                }
            }
            Event::End { file } => {
                self.named_fits.clear();
                let tally = std::mem::take(&mut self.tally);
                self.writer.check_end(p, &self.opts, &file, &tally)?;
                if !summary::passed(&tally, &self.opts, self.rules.passes) {
                    p.fail();
                }
            }
            Event::OpenError { file, error } => {
                self.tally = Tally::default();
                self.named_fits.clear();
                self.writer.check_file_error(p, &file, Some(&error))?;
            }
            Event::ReadError { file } => {
                self.tally = Tally::default();
                self.named_fits.clear();
                self.writer.check_file_error(p, &file, None)?;
            }
            Event::Signed { file, signer } => {
                if self.opts.verbosity != Verbosity::Status {
                    p.message(&format!("{}: signature good, by {signer}", text(&file)))?;
                }
            }
            Event::Unsigned { file, why } => {
                self.tally = Tally::default();
                p.error(&format!("{}: {why}", text(&file)))?;
            }
        }
        Ok(())
    }
}

/// What is said of a line of no known algorithm (see `infer`): the `-a`
/// values that would read it.
fn unknown_algorithm(file: &str, line: u64, bytes: usize, hex: bool) -> String {
    let what = if hex {
        format!("{} hex digits", 2 * bytes)
    } else {
        format!("a base64 digest of {bytes} bytes")
    };
    let fits: Vec<String> = infer::fitting(bytes)
        .into_iter()
        .map(|a| format!("-a {}", a.name()))
        .collect();
    let fits = match fits.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => String::new(),
    };
    format!("{file}: {line}: {what} may be {fits}: name the algorithm with -a")
}

impl Verifier {
    /// An improperly formatted line: counted, and worded by the style
    /// (under `-w`).
    fn improper(
        &mut self,
        p: &mut Printer<'_>,
        file: &[u8],
        line: u64,
        algo: &str,
    ) -> io::Result<()> {
        self.tally.improper += 1;
        self.writer.improper(p, &self.opts, (file, line), algo)
    }
}

/// What prints the outcomes of checking by `rules`.
pub(super) fn verifier(opts: CheckOptions, rules: Rules) -> Verifier {
    Verifier {
        writer: writer(opts.style),
        opts,
        rules,
        tally: Tally::default(),
        named_fits: Vec::new(),
        changed: None,
    }
}
