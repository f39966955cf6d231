//! `-c SUMS --audit DIR`: is the tree exactly what the manifest says?
//! Every line is verified as `-c` verifies it (OK, FAILED, or unreadable);
//! a listed file that is not there is MISSING; a file under DIR that no line
//! lists is NEW, or MOVED when its digest is listed for a missing file
//! (hashdeep's audit categories). Listed names and walked paths are
//! compared in a normal form (`./` and doubled `/` removed).
//!
//! The jobs are the check files' lines, in order, then the unlisted files
//! of the walk, in its order, then the end: so when a new file's digest is
//! known, every missing file is known too. MISSING lines come last, after
//! the moves have claimed theirs. The check files are read before anything
//! is hashed (the walk needs the whole list), so memory grows with the
//! manifest, not with the tree.

use std::collections::{HashMap, HashSet, VecDeque};
use std::ffi::OsString;
use std::io::{self, Write};
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;

use super::parse::Expected;
use super::{CheckJob, Event, Status, Verifier, feed, verifier};
use crate::algo::{Algorithm, Algorithms, Digest};
use crate::config::{AuditOptions, Verbosity};
use crate::input::Input;
use crate::json::Record;
use crate::output::push_escaped;
use crate::printer::{Printer, Render, print_all};
use crate::read::{Hashed, Job, JobSource, Outcome, Plan, Task};
use crate::report::{Reporter, error_text};
use crate::stats::Stats;
use crate::walk::{self, Entry};

/// What a hashed file of the audit is.
#[derive(Debug)]
enum Ctx {
    /// Listed: the digests its lines expect, one per algorithm of its task.
    Listed(Vec<Expected>),
    /// Found in a walked tree, listed nowhere.
    New,
}

/// What a pass-through job of the audit carries.
#[derive(Debug)]
enum Pass {
    /// One of `-c`'s (an improper line, a check file's end or error).
    Check(Event),
    /// A path of the tree that could not be walked.
    Walk(PathBuf, io::Error),
    /// Every job is done: print what is still missing, and the summary.
    Finish,
}

/// `name` with `.` components and doubled or trailing slashes removed
/// (also how `--update` compares the names it lists with those it walks).
pub(crate) fn normal(name: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(name.len());
    if name.first() == Some(&b'/') {
        out.push(b'/');
    }
    for part in name.split(|&b| b == b'/') {
        if part.is_empty() || part == b"." {
            continue;
        }
        if !matches!(out.last(), None | Some(b'/')) {
            out.push(b'/');
        }
        out.extend_from_slice(part);
    }
    if out.is_empty() {
        out.push(b'.');
    }
    out
}

/// `name` in normal form, made absolute against `cwd` (the current
/// directory) when it is relative: `./d/a`, `d//a` and `/cwd/d/a` are one
/// name. Without a `cwd` (it could not be known), the normal form.
pub(crate) fn absolute(name: &[u8], cwd: Option<&[u8]>) -> Vec<u8> {
    match cwd {
        Some(cwd) if name.first() != Some(&b'/') => normal(&[cwd, b"/", name].concat()),
        _ => normal(name),
    }
}

/// A listed file that was not found: its name and what it should hash to.
struct Missing {
    name: Vec<u8>,
    digests: Vec<(Algorithm, Expected)>,
    /// A new file took it as where it moved from.
    claimed: bool,
}

/// How many files ended in each category.
#[derive(Default)]
struct Counts {
    ok: u64,
    failed: u64,
    unreadable: u64,
    missing: u64,
    new: u64,
    moved: u64,
}

/// Prints the audit: `-c`'s lines through the `Verifier`, then the tree's.
struct Auditor {
    verifier: Verifier,
    missing: Vec<Missing>,
    /// Missing files by their first algorithm and digest, in listed order.
    by_digest: HashMap<(Algorithm, Vec<u8>), VecDeque<usize>>,
    counts: Counts,
}

impl Auditor {
    /// `name: WORD` (and ` from OLD` for a move), or its JSON object.
    fn line(
        &self,
        p: &mut Printer<'_>,
        name: &[u8],
        status: Status,
        algo: Algorithm,
        from: Option<&[u8]>,
    ) -> io::Result<()> {
        let opts = &self.verifier.opts;
        if opts.verbosity == Verbosity::Status {
            return Ok(());
        }
        p.line(|line| {
            if opts.json {
                let r = Record::new("path", name)
                    .text("status", status.word())
                    .algorithm(algo);
                match from {
                    Some(from) => r.name("from", from),
                    None => r,
                }
                .write(line);
                return;
            }
            let escape = name.contains(&b'\n') || from.is_some_and(|f| f.contains(&b'\n'));
            let push = |line: &mut Vec<u8>, n: &[u8]| {
                if escape {
                    push_escaped(line, n)
                } else {
                    line.extend_from_slice(n)
                }
            };
            if escape {
                line.push(b'\\');
            }
            push(line, name);
            line.extend_from_slice(b": ");
            line.extend_from_slice(status.word().as_bytes());
            if let Some(from) = from {
                line.extend_from_slice(b" from ");
                push(line, from);
            }
            line.push(b'\n');
        })
    }

    /// A listed file: verified as `-c` does, unless it is not there.
    fn listed(
        &mut self,
        p: &mut Printer<'_>,
        task: &Task<Ctx>,
        expected: &[Expected],
        r: &io::Result<Hashed>,
    ) -> io::Result<()> {
        let algos = task.algos.as_slice();
        if let Err(e) = r
            && e.kind() == io::ErrorKind::NotFound
        {
            self.verifier.tally.formatted = true;
            let digests: Vec<(Algorithm, Expected)> = algos
                .iter()
                .copied()
                .zip(expected.iter().cloned())
                .collect();
            if let Some((algo, first)) = digests.first() {
                let key = (*algo, first.as_bytes().to_vec());
                self.by_digest
                    .entry(key)
                    .or_default()
                    .push_back(self.missing.len());
            }
            self.missing.push(Missing {
                name: task.input.name().to_vec(),
                digests,
                claimed: false,
            });
            return Ok(());
        }
        for (i, (want, &algo)) in expected.iter().zip(algos).enumerate() {
            let digest = match r {
                Ok(hashed) => hashed.digests.get(i).ok_or(&*super::NO_DIGEST),
                Err(e) => Err(e),
            };
            let before = self.verifier.tally;
            self.verifier
                .verify(p, task.input.name(), algo, want, digest)?;
            let after = self.verifier.tally;
            if after.mismatched > before.mismatched {
                self.counts.failed += 1;
            } else if after.unreadable > before.unreadable {
                self.counts.unreadable += 1;
            } else {
                self.counts.ok += 1;
            }
        }
        Ok(())
    }

    /// The missing file `digests` matches, if one is unclaimed: claimed now.
    fn moved_from(&mut self, algos: Algorithms, digests: &[Digest]) -> Option<usize> {
        let (algo, first) = algos.as_slice().iter().zip(digests).next()?;
        let queue = self
            .by_digest
            .get_mut(&(*algo, first.as_bytes().to_vec()))?;
        let same = |m: &Missing| {
            m.digests.iter().all(|(a, want)| {
                algos
                    .as_slice()
                    .iter()
                    .position(|x| x == a)
                    .and_then(|i| digests.get(i))
                    .is_some_and(|d| d.as_bytes() == want.as_bytes())
            })
        };
        let at = queue.iter().position(|&i| same(&self.missing[i]))?;
        let i = queue.remove(at)?;
        self.missing[i].claimed = true;
        Some(i)
    }

    /// A file of the tree that no line lists: moved or new.
    fn unlisted(
        &mut self,
        p: &mut Printer<'_>,
        task: &Task<Ctx>,
        r: io::Result<Hashed>,
    ) -> io::Result<()> {
        let name = task.input.name();
        let algo = task.algos.first();
        match r {
            Ok(hashed) => match self.moved_from(task.algos, &hashed.digests) {
                Some(i) => {
                    self.counts.moved += 1;
                    let from = std::mem::take(&mut self.missing[i].name);
                    self.line(p, name, Status::Moved, algo, Some(&from))
                }
                None => {
                    self.counts.new += 1;
                    self.line(p, name, Status::New, algo, None)
                }
            },
            Err(e) => {
                // new whatever it holds; whether it moved cannot be known
                self.counts.new += 1;
                p.error(&format!(
                    "{}: {}",
                    crate::output::quote_name(name),
                    error_text(&e)
                ))?;
                self.line(p, name, Status::New, algo, None)
            }
        }
    }

    /// The missing files no move claimed, then the summary.
    fn finish(&mut self, p: &mut Printer<'_>) -> io::Result<()> {
        for m in std::mem::take(&mut self.missing) {
            if m.claimed {
                continue;
            }
            self.counts.missing += 1;
            let algo = m.digests.first().map_or(Algorithm::Md5, |(a, _)| *a);
            self.line(p, &m.name, Status::Missing, algo, None)?;
        }
        let c = &self.counts;
        if self.verifier.opts.verbosity != Verbosity::Status {
            p.message(&format!(
                "audit: {} OK, {} FAILED, {} UNREADABLE, {} MISSING, {} NEW, {} MOVED",
                c.ok, c.failed, c.unreadable, c.missing, c.new, c.moved
            ))?;
        }
        if c.failed + c.unreadable + c.missing + c.new + c.moved > 0 {
            p.fail();
        }
        Ok(())
    }
}

impl Render<Ctx, Pass> for Auditor {
    fn render(&mut self, outcome: Outcome<Ctx, Pass>, p: &mut Printer<'_>) -> io::Result<()> {
        match outcome {
            Outcome::Hashed(task, r) => match &task.context {
                Ctx::Listed(expected) => self.listed(p, &task, expected, &r),
                Ctx::New => self.unlisted(p, &task, r),
            },
            Outcome::Passed(Pass::Check(event)) => self.verifier.render(Outcome::Passed(event), p),
            Outcome::Passed(Pass::Walk(path, e)) => p.error(&format!(
                "{}: {}",
                crate::output::quote_name(path.as_os_str().as_bytes()),
                error_text(&e)
            )),
            Outcome::Passed(Pass::Finish) => self.finish(p),
        }
    }
}

/// The check files, to leave them out of the walk: a manifest kept in the
/// tree it lists is not a new file of it (nor, for `--update`, a file to
/// add to itself). Compared by device and inode.
pub(crate) struct CheckFiles(Vec<(OsString, u64, u64)>);

impl CheckFiles {
    pub(crate) fn of(files: &[OsString]) -> CheckFiles {
        use std::os::unix::fs::MetadataExt;
        CheckFiles(
            files
                .iter()
                .filter(|f| *f != "-")
                .filter_map(|f| {
                    let m = std::fs::metadata(f).ok()?;
                    let base = std::path::Path::new(f).file_name()?.to_os_string();
                    Some((base, m.dev(), m.ino()))
                })
                .collect(),
        )
    }

    /// Is `input` one of them? (Only a name that ends like one is stat'ed.)
    pub(crate) fn is(&self, input: &Input) -> bool {
        use std::os::unix::fs::MetadataExt;
        let Input::Path(path) = input else {
            return false;
        };
        let Some(base) = path.file_name() else {
            return false;
        };
        self.0.iter().any(|(b, dev, ino)| {
            b == base && std::fs::metadata(path).is_ok_and(|m| m.dev() == *dev && m.ino() == *ino)
        })
    }
}

/// Audit the trees of `opts.dirs` against the checksum files `files`.
pub(crate) fn run(
    opts: &AuditOptions,
    algos: Algorithms,
    plan: &Plan,
    files: &[OsString],
    rep: &Reporter,
    stats: &Stats,
    out: &mut dyn Write,
) -> io::Result<()> {
    let listed: Vec<CheckJob> = feed(&opts.check, algos, files).collect();
    let mut names = HashSet::new();
    let mut found = None::<Algorithms>;
    for job in &listed {
        if let Job::Hash(task) = job {
            names.insert(normal(task.input.name()));
            for &a in task.algos.as_slice() {
                found = Some(match found {
                    None => Algorithms::one(a),
                    Some(set) => set.with(a).unwrap_or(set),
                });
            }
        }
    }
    // new files are hashed with every algorithm the manifest uses (a move
    // is recognised by the digests its lines list)
    let new_algos = found.unwrap_or(Algorithms::one(algos.first()));
    let listed = listed.into_iter().map(|job| match job {
        Job::Hash(task) => Job::Hash(Task {
            input: task.input,
            algos: task.algos,
            context: Ctx::Listed(task.context.expected),
        }),
        Job::Pass(event) => Job::Pass(Pass::Check(event)),
    });
    let check_files = CheckFiles::of(files);
    let unlisted =
        walk::expand(opts.dirs.clone(), &opts.walk).filter_map(move |entry| match entry {
            Entry::Input(input @ Input::Path(_)) => (!names.contains(&normal(input.name()))
                && !check_files.is(&input))
            .then_some(Job::Hash(Task {
                input,
                algos: new_algos,
                context: Ctx::New,
            })),
            Entry::Input(Input::Stdin) => None,
            Entry::Error(path, e) => Some(Job::Pass(Pass::Walk(path, e))),
        });
    let jobs = listed.chain(unlisted).chain([Job::Pass(Pass::Finish)]);
    let auditor = Auditor {
        verifier: verifier(opts.check),
        missing: Vec::new(),
        by_digest: HashMap::new(),
        counts: Counts::default(),
    };
    print_all(plan, stats, jobs, JobSource::Operands, auditor, out, rep)
}

#[cfg(test)]
mod tests {
    use super::{absolute, normal};

    #[test]
    fn names_compare_in_normal_form() {
        for (name, want) in [
            ("./a/b", "a/b"),
            ("a//b/", "a/b"),
            ("/x/./y", "/x/y"),
            ("./", "."),
            ("../a", "../a"),
            ("a", "a"),
        ] {
            assert_eq!(normal(name.as_bytes()), want.as_bytes(), "{name}");
        }
    }

    #[test]
    fn absolute_names_are_taken_from_the_current_directory() {
        for (name, want) in [
            ("./d/a", "/w/d/a"),
            ("d//a", "/w/d/a"),
            ("/w/d/a", "/w/d/a"),
            ("//w/./d/a", "/w/d/a"),
            (".", "/w"),
        ] {
            assert_eq!(
                absolute(name.as_bytes(), Some(b"/w/")),
                want.as_bytes(),
                "{name}"
            );
        }
        assert_eq!(absolute(b"./d/a", None), b"d/a");
    }
}
