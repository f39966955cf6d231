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
use std::path::PathBuf;
use std::sync::Arc;

use super::grammar::Make;
use super::parse::Expected;
use super::verify::{NO_DIGEST, Verifier};
use super::{CheckJob, Event, Status, reading};
use crate::algo::{Algorithm, Algorithms, Digest};
use crate::command::hash;
use crate::command::meta::{Meta, damaged};
use crate::command::names::{CheckFiles, normal};
use crate::config::{AuditOptions, Context, Verbosity};
use crate::input::Input;
use crate::output::Verdict;
use crate::printer::{Printer, Render, print_all};
use crate::progress;
use crate::read::{Hashed, Job, JobSource, Outcome, Task};
use crate::report::error_text;
use crate::walk::{self, Entry};

/// What a hashed file of the audit is.
#[derive(Debug)]
enum Ctx {
    /// Listed (on one line or several).
    Listed(Listed),
    /// Found in a walked tree, listed nowhere.
    New,
}

/// A listed file: every digest its lines expect, and the name it is shown by.
#[derive(Debug)]
struct Listed {
    /// The name as its first line gives it (the task opens its normal form).
    name: Vec<u8>,
    /// Each listed digest with its algorithm, in the manifest's order (one
    /// algorithm may be listed twice: each digest is checked).
    digests: Vec<(Algorithm, Expected)>,
    /// Listed again on later lines: where its verdict is kept for their
    /// [`Pass::Again`] markers.
    again: Option<usize>,
    /// How many jobs of the same file follow this one (its lines name two
    /// lengths of BLAKE2b or SHA-3, which one read cannot hash: one job a
    /// length, adjacent, and one verdict when the last is hashed).
    rest: usize,
    /// The digests are a bare S3 ETag's candidates, one per part size that
    /// fits (`check::etag_candidates`): one matching is a match. (Listed
    /// again on other lines, the file's digests must all match.)
    etag: bool,
    /// What the `#meta` line before its first line records.
    meta: Option<Meta>,
}

/// What the jobs of one listed file found so far.
struct Finding {
    name: Vec<u8>,
    /// Every digest listed for it (a missing file keeps them for a move).
    digests: Vec<(Algorithm, Expected)>,
    again: Option<usize>,
    /// A job found it missing.
    missing: bool,
    /// The first digest that did not match, or the read error: the verdict.
    bad: Option<(Algorithm, Expected, Result<Digest, io::Error>)>,
    /// The first digest that matched: the verdict when nothing is bad.
    good: Option<(Algorithm, Expected, Digest)>,
    /// Whether its size or mtime changed since its `#meta` line (`None`:
    /// it has none, or it has no mtime and the same size: nothing tells).
    changed: Option<bool>,
}

/// A copy of `e` (`io::Error` is not `Clone`): the same errno, or kind and
/// text, so its message is the same.
fn copy_error(e: &io::Error) -> io::Error {
    match e.raw_os_error() {
        Some(n) => io::Error::from_raw_os_error(n),
        None => io::Error::new(e.kind(), e.to_string()),
    }
}

/// What a pass-through job of the audit carries.
#[derive(Debug)]
enum Pass {
    /// One of `-c`'s (an improper line, a check file's end or error).
    Check(Event),
    /// A line listing a file already listed (its digests joined that
    /// file's job): it counts as a formatted line of its check file, and as
    /// a verified one if that file was OK, so a check file whose lines all
    /// joined another's is not "no properly formatted lines".
    Again(usize),
    /// A path of the tree that could not be walked.
    Walk(PathBuf, io::Error),
    /// Every job is done: print what is still missing, and the summary.
    Finish,
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
    damaged: u64,
    modified: u64,
    /// A listed file had a `#meta` line: the summary counts DAMAGED and
    /// MODIFIED.
    meta: bool,
    unreadable: u64,
    missing: u64,
    new: u64,
    moved: u64,
}

/// Prints the audit: `-c`'s lines through the `Verifier`, then the tree's.
struct Auditor {
    verifier: Verifier,
    missing: Vec<Missing>,
    /// Missing files by each of their listed digests, in listed order.
    by_digest: HashMap<(Algorithm, Vec<u8>), VecDeque<usize>>,
    counts: Counts,
    /// The verdicts (OK or not) of files listed on more than one line.
    again_ok: HashMap<usize, bool>,
    /// The file whose next job is still to come.
    finding: Option<Finding>,
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
        if self.verifier.opts.verbosity == Verbosity::Status {
            return Ok(());
        }
        let verdict = Verdict {
            name,
            algo,
            status,
            error: None,
            from,
            at: None,
            etag: None,
        };
        self.verifier.writer.audited(p, &verdict)
    }

    /// A listed file's job: what it found is added to the file's finding,
    /// and the last job of the file gives its verdict.
    fn listed(
        &mut self,
        p: &mut Printer<'_>,
        algos: Algorithms,
        listed: Listed,
        r: &io::Result<Hashed>,
        now: Option<Meta>,
    ) -> io::Result<()> {
        // (moved, not copied, from the file's first job: no allocation)
        let mut f = self.finding.take().unwrap_or_else(|| Finding {
            name: Vec::new(),
            digests: Vec::new(),
            again: listed.again,
            missing: false,
            bad: None,
            good: None,
            changed: None,
        });
        self.counts.meta |= listed.meta.is_some();
        if let (Some(then), Some(now)) = (listed.meta, now) {
            f.changed = f.changed.or(then.changed(&now));
        }
        match r {
            Err(e) if e.kind() == io::ErrorKind::NotFound => f.missing = true,
            Err(e) => {
                if let (None, Some((algo, want))) = (&f.bad, listed.digests.first()) {
                    f.bad = Some((*algo, *want, Err(copy_error(e))));
                }
            }
            Ok(hashed) => {
                // the digest computed for `algo` (one per algorithm of the task)
                let digest_of = |algo: &Algorithm| {
                    let i = algos.as_slice().iter().position(|a| a == algo)?;
                    hashed.digests.get(i)
                };
                let etag_match = listed.etag.then(|| {
                    listed.digests.iter().find(|(algo, want)| {
                        digest_of(algo).is_some_and(|d| want.matches_as(d, *algo))
                    })
                });
                // a bare ETag that matched: its matching candidate alone
                let judged = match etag_match {
                    Some(Some(one)) => std::slice::from_ref(one),
                    _ => &listed.digests[..],
                };
                for (algo, want) in judged {
                    match digest_of(algo) {
                        Some(d) if want.matches_as(d, *algo) => {
                            if f.good.is_none() {
                                f.good = Some((*algo, *want, d.clone()));
                            }
                        }
                        _ if f.bad.is_some() => {}
                        Some(d) => f.bad = Some((*algo, *want, Ok(d.clone()))),
                        None => f.bad = Some((*algo, *want, Err(copy_error(&NO_DIGEST)))),
                    }
                }
            }
        }
        if f.digests.is_empty() {
            f.name = listed.name;
            f.digests = listed.digests;
        } else {
            f.digests.extend(listed.digests);
        }
        if listed.rest > 0 {
            self.finding = Some(f);
            return Ok(());
        }
        self.verdict(p, f)
    }

    /// A listed file's one verdict: MISSING (for now: a move may claim
    /// it), else FAILED or UNREADABLE by the first digest that did not
    /// match or the read error, else OK.
    fn verdict(&mut self, p: &mut Printer<'_>, f: Finding) -> io::Result<()> {
        if f.missing {
            self.verifier.tally.formatted = true;
            let i = self.missing.len();
            for (algo, want) in &f.digests {
                let key = (*algo, want.as_bytes().to_vec());
                let queue = self.by_digest.entry(key).or_default();
                // listed twice with one digest: one entry
                if queue.back() != Some(&i) {
                    queue.push_back(i);
                }
            }
            self.missing.push(Missing {
                name: f.name,
                digests: f.digests,
                claimed: false,
            });
            if let Some(id) = f.again {
                self.again_ok.insert(id, false);
            }
            return Ok(());
        }
        let Some((algo, want, outcome)) = f
            .bad
            .or_else(|| f.good.map(|(algo, want, d)| (algo, want, Ok(d))))
        else {
            return Ok(());
        };
        if let (Some(changed), Ok(digest)) = (f.changed, &outcome)
            && !want.matches_as(digest, algo)
        {
            return self.rot_or_edit(p, (&f.name, f.again), algo, changed);
        }
        let before = self.verifier.tally;
        self.verifier
            .verify(p, (&f.name, None), (algo, None), &want, outcome.as_ref())?;
        let after = self.verifier.tally;
        let ok = if after.mismatched > before.mismatched {
            self.counts.failed += 1;
            false
        } else if after.unreadable > before.unreadable {
            self.counts.unreadable += 1;
            false
        } else {
            self.counts.ok += 1;
            true
        };
        if let Some(id) = f.again {
            self.again_ok.insert(id, ok);
        }
        Ok(())
    }

    /// A listed file whose bytes differ from its digest's, told by its
    /// `#meta` line: MODIFIED when its size or mtime `changed` too (an
    /// edit), else DAMAGED, said on stderr too (rot: an mtime can be set
    /// back, so it proves no more than that nothing wrote the file through
    /// the file system as usual).
    fn rot_or_edit(
        &mut self,
        p: &mut Printer<'_>,
        (name, again): (&[u8], Option<usize>),
        algo: Algorithm,
        changed: bool,
    ) -> io::Result<()> {
        self.verifier.tally.formatted = true;
        if let Some(id) = again {
            self.again_ok.insert(id, false);
        }
        if changed {
            self.counts.modified += 1;
            return self.line(p, name, Status::Modified, algo, None);
        }
        self.counts.damaged += 1;
        p.error(&damaged(name))?;
        self.line(p, name, Status::Damaged, algo, None)
    }

    /// The missing file the new file's `digests` match, if one is
    /// unclaimed: claimed now. Every digest listed for the missing file
    /// must match; it is found by any one of them (a file listed only in a
    /// manifest's SHA-256 block is found by the new file's SHA-256).
    fn moved_from(&mut self, algos: Algorithms, digests: &[Digest]) -> Option<usize> {
        let missing = &self.missing;
        let same = |m: &Missing| {
            !m.claimed
                && m.digests.iter().all(|(a, want)| {
                    algos
                        .as_slice()
                        .iter()
                        .position(|x| x == a)
                        .and_then(|i| digests.get(i))
                        .is_some_and(|d| want.matches(d))
                })
        };
        for (algo, digest) in algos.as_slice().iter().zip(digests) {
            let Some(queue) = self.by_digest.get_mut(&(*algo, digest.as_bytes().to_vec())) else {
                continue;
            };
            // entries of files claimed through another digest go
            queue.retain(|&i| !missing[i].claimed);
            if let Some(at) = queue.iter().position(|&i| same(&missing[i])) {
                let i = queue.remove(at)?;
                self.missing[i].claimed = true;
                return Some(i);
            }
        }
        None
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
            let told = if c.meta {
                format!(", {} DAMAGED, {} MODIFIED", c.damaged, c.modified)
            } else {
                String::new()
            };
            p.message(&format!(
                "audit: {} OK, {} FAILED{told}, {} UNREADABLE, {} MISSING, {} NEW, {} MOVED",
                c.ok, c.failed, c.unreadable, c.missing, c.new, c.moved
            ))?;
        }
        if c.failed + c.damaged + c.modified + c.unreadable + c.missing + c.new + c.moved > 0 {
            p.fail();
        }
        Ok(())
    }
}

impl Render<Ctx, Pass> for Auditor {
    fn render(&mut self, outcome: Outcome<Ctx, Pass>, p: &mut Printer<'_>) -> io::Result<()> {
        match outcome {
            Outcome::Hashed(task, r) => match task.context {
                Ctx::Listed(listed) => {
                    // (looked at once hashed, and only when a digest did
                    // not match: a file changed since reads as changed,
                    // never as rot)
                    let mismatched = |h: &Hashed| {
                        let algos = task.algos.as_slice().iter();
                        let mut pairs = algos.zip(&h.digests);
                        !listed.etag
                            && pairs.any(|(&a, d)| {
                                listed
                                    .digests
                                    .iter()
                                    .any(|(b, want)| *b == a && !want.matches_as(d, a))
                            })
                    };
                    let now = match (&task.input, &listed.meta, &r) {
                        (Input::Path(path), Some(_), Ok(h)) if mismatched(h) => {
                            Meta::of_path(path).ok()
                        }
                        _ => None,
                    };
                    self.listed(p, task.algos, listed, &r, now)
                }
                Ctx::New => self.unlisted(p, &task, r),
            },
            Outcome::Passed(Pass::Check(event)) => self.verifier.render(Outcome::Passed(event), p),
            Outcome::Passed(Pass::Again(id)) => {
                self.verifier.tally.formatted = true;
                if self.again_ok.get(&id) == Some(&true) {
                    self.verifier.tally.matched = true;
                }
                Ok(())
            }
            Outcome::Passed(Pass::Walk(path, e)) => p.error(&format!(
                "{}: {}",
                crate::output::quote_name(path.as_os_str().as_encoded_bytes()),
                error_text(&e)
            )),
            Outcome::Passed(Pass::Finish) => self.finish(p),
        }
    }
}

/// Which files of the walk are new: not listed (by normal name), not a
/// check file, not met before (a file two walks meet, `t` and `t/sub`, is
/// new once).
struct New {
    names: Arc<HashSet<Vec<u8>>>,
    check_files: CheckFiles,
    met: HashSet<Vec<u8>>,
}

impl New {
    fn of(names: Arc<HashSet<Vec<u8>>>, check_files: CheckFiles) -> New {
        New {
            names,
            check_files,
            met: HashSet::new(),
        }
    }

    /// Is `input`, met by the walk, new? (Standard input never is.)
    fn is(&mut self, input: &Input) -> bool {
        let Input::Path(_) = input else {
            return false;
        };
        let name = normal(input.name());
        !self.names.contains(&name) && !self.check_files.is(input) && self.met.insert(name)
    }
}

/// Audit the trees of `opts.dirs` against the checksum files `files`,
/// read by the grammar `make` builds (the name's).
pub(crate) fn run(
    cx: Context<'_>,
    opts: &AuditOptions,
    make: Make,
    files: &[OsString],
    out: &mut dyn Write,
) -> io::Result<()> {
    let Ok(signing) = super::signed::signing(&opts.check, cx.rep) else {
        return Ok(());
    };
    let (feed, verifier) = reading(&opts.check, make, cx.algos, files, signing);
    // the names listed beside the check file or here, settled now (many
    // lookups at once): the walk is matched against them
    let mut lines: Vec<CheckJob> = feed.collect();
    crate::input::settle_all(lines.iter_mut().filter_map(|job| match job {
        Job::Hash(task) => Some(&mut task.input),
        Job::Pass(_) => None,
    }));
    let (listed, names) = one_job_a_file(lines.into_iter());
    let mut found = None::<Algorithms>;
    for job in &listed {
        if let Job::Hash(task) = job {
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
    let new_algos = found.unwrap_or(Algorithms::one(cx.algos.first()));
    let check_files = CheckFiles::of(files);
    // a directory given twice (`t` and `t/`) is walked once
    let mut dirs = Vec::with_capacity(opts.dirs.len());
    let mut given = HashSet::new();
    for dir in &opts.dirs {
        if given.insert(normal(dir.as_encoded_bytes())) {
            dirs.push(dir.clone());
        }
    }
    let names = Arc::new(names);
    progress::plan(cx.stats, || {
        let listed = listed.iter().filter(|j| matches!(j, Job::Hash(_))).count();
        let (dirs, walk) = (dirs.clone(), opts.walk.clone());
        let mut new = New::of(names.clone(), CheckFiles::of(files));
        // (the listed files' sizes are not known: no bytes, no stat)
        Box::new(move || {
            let (found, _) = hash::planned(dirs, &walk, |input| new.is(input), false);
            Some((listed as u64 + found, None))
        })
    });
    let mut new = New::of(names, check_files);
    let unlisted = walk::expand(dirs, &opts.walk).filter_map(move |entry| match entry {
        Entry::Input(input) => new.is(&input).then_some(Job::Hash(Task {
            input,
            algos: new_algos,
            context: Ctx::New,
        })),
        Entry::Error(path, e) => Some(Job::Pass(Pass::Walk(path, e))),
    });
    let jobs = listed
        .into_iter()
        .chain(unlisted)
        .chain([Job::Pass(Pass::Finish)]);
    let auditor = Auditor {
        verifier,
        missing: Vec::new(),
        by_digest: HashMap::new(),
        counts: Counts::default(),
        again_ok: HashMap::new(),
        finding: None,
    };
    print_all(cx, jobs, JobSource::Operands, auditor, out)
}

/// The audit's jobs from the check files' `lines`: one job a listed file,
/// at its first line, holding the digests of every line that lists it
/// (by the normal form of its name), and opening it by that normal form;
/// each later line leaves an [`Pass::Again`] marker in its place. Lines
/// naming a second length of BLAKE2b or SHA-3 for a file (which one read
/// cannot hash with the first) make a second job, placed right after the
/// file's first (`Listed::rest`). Also the normal names listed, which the
/// walk leaves to those jobs.
fn one_job_a_file(
    lines: impl Iterator<Item = CheckJob>,
) -> (Vec<Job<Ctx, Pass>>, HashSet<Vec<u8>>) {
    let mut jobs: Vec<Job<Ctx, Pass>> = Vec::new();
    // a listed file's normal name, and its job's place in `jobs`
    let mut at: HashMap<Vec<u8>, usize> = HashMap::new();
    // the further jobs of a file at a place (rare: see above)
    let mut parts: HashMap<usize, Vec<Task<Ctx>>> = HashMap::new();
    let mut again = 0;
    for line in lines {
        let task = match line {
            Job::Hash(task) => task,
            Job::Pass(event) => {
                jobs.push(Job::Pass(Pass::Check(event)));
                continue;
            }
        };
        let line_algos = task.algos;
        let digests: Vec<(Algorithm, Expected)> = line_algos
            .as_slice()
            .iter()
            .copied()
            .zip(task.context.expected)
            .collect();
        // standard input (a `-` line) is read on from where it stands: each
        // such line is a job of its own, as in `-c`
        if task.input == Input::Stdin {
            jobs.push(Job::Hash(Task {
                input: Input::Stdin,
                algos: line_algos,
                context: listed(b"-".to_vec(), digests, task.context.etag, None),
            }));
            continue;
        }
        let shown = task.input.name().to_vec();
        let key = normal(&shown);
        if let Some(&i) = at.get(&key)
            && let Some(Job::Hash(first)) = jobs.get_mut(i)
            && let Ctx::Listed(file) = &mut first.context
        {
            file.etag = false;
            let id = *file.again.get_or_insert_with(|| {
                again += 1;
                again
            });
            join(first, parts.entry(i).or_default(), line_algos, digests);
            jobs.push(Job::Pass(Pass::Again(id)));
            continue;
        }
        at.insert(key.clone(), jobs.len());
        jobs.push(Job::Hash(Task {
            // the normal form, which is what the walk meets (not `-`)
            // (a name no file on this OS has, on Windows: the empty path,
            // which opens none and is reported so)
            input: Input::Path(PathBuf::from(
                crate::sys::os_string(key).unwrap_or_default(),
            )),
            algos: line_algos,
            context: listed(
                shown,
                digests,
                task.context.etag,
                task.context.meta.and_then(|m| m.read()),
            ),
        }));
    }
    let names = at.into_keys().collect();
    if parts.is_empty() {
        return (jobs, names);
    }
    (with_parts(jobs, parts), names)
}

/// A listed file's job: its name as shown, the digests its lines list
/// (`etag`: a bare ETag's candidates), what its `#meta` line records.
fn listed(
    name: Vec<u8>,
    digests: Vec<(Algorithm, Expected)>,
    etag: bool,
    meta: Option<Meta>,
) -> Ctx {
    Ctx::Listed(Listed {
        name,
        digests,
        etag,
        meta,
        again: None,
        rest: 0,
    })
}

/// A later line of a listed file: its digests (of `line_algos`) join the
/// file's `first` job if its algorithms fit in one read, else one of the
/// file's further jobs (`more`) they fit, else a further job of their own.
fn join(
    first: &mut Task<Ctx>,
    more: &mut Vec<Task<Ctx>>,
    line_algos: Algorithms,
    digests: Vec<(Algorithm, Expected)>,
) {
    let fits = |set: Algorithms| {
        digests.iter().try_fold(set, |set, &(a, _)| {
            if set.contains(a) {
                Some(set)
            } else {
                set.with(a)
            }
        })
    };
    let Ctx::Listed(file) = &mut first.context else {
        return;
    };
    if let Some(algos) = fits(first.algos) {
        first.algos = algos;
        file.digests.extend(digests);
        return;
    }
    let joined = more
        .iter_mut()
        .find_map(|t| fits(t.algos).map(|algos| (t, algos)));
    match joined {
        Some((t, algos)) => {
            t.algos = algos;
            if let Ctx::Listed(part) = &mut t.context {
                part.digests.extend(digests);
            }
        }
        None => more.push(Task {
            input: first.input.clone(),
            algos: line_algos,
            context: listed(file.name.clone(), digests, false, file.meta),
        }),
    }
}

/// `jobs` with each file's further jobs (`parts`, by the place of its
/// first) right after its first, each told how many follow it.
fn with_parts(
    jobs: Vec<Job<Ctx, Pass>>,
    mut parts: HashMap<usize, Vec<Task<Ctx>>>,
) -> Vec<Job<Ctx, Pass>> {
    let mut all = Vec::with_capacity(jobs.len() + parts.len());
    for (i, mut job) in jobs.into_iter().enumerate() {
        let more = parts.remove(&i).unwrap_or_default();
        if let Job::Hash(Task {
            context: Ctx::Listed(file),
            ..
        }) = &mut job
        {
            file.rest = more.len();
        }
        all.push(job);
        let n = more.len();
        for (k, mut task) in more.into_iter().enumerate() {
            if let Ctx::Listed(part) = &mut task.context {
                part.rest = n - 1 - k;
            }
            all.push(Job::Hash(task));
        }
    }
    all
}
