//! `--update SUMS`: keep a manifest current. Hash only the inputs SUMS does
//! not list yet and append their lines, in SUMS's own algorithm and format;
//! with `--prune`, drop the lines of files under the inputs that no longer
//! exist. Say on stderr what was done (unless `--quiet`/`--status`).
//!
//! What SUMS names is never damaged:
//! - Only a regular file is updated. A symbolic link to one is followed: its
//!   target is replaced (as `sed -i --follow-symlinks` does), the link stays.
//!   A device, FIFO, socket, directory or a link to nothing is refused
//!   before anything is opened for writing.
//! - Updaters of one SUMS take turns: each holds an exclusive `flock` on
//!   SUMS from reading it to the rename, and after taking it checks that
//!   the path still names the file it locked (else the one before renamed a
//!   new SUMS over it, and it starts again with that one).
//! - The new manifest is written beside the old one (an unnamed `O_TMPFILE`
//!   linked under a random name, or a random name made with `O_EXCL`), given
//!   the old one's owner and mode, synced, and renamed over it only when
//!   every input was hashed and every byte written; the directory is synced
//!   after. On any error (a read error, ENOSPC, a killed process) the old
//!   SUMS stays as it was. What was hashed is in a checkpoint beside it
//!   (`command::checkpoint`), which the next identical run resumes from.
//! - SUMS, and any temporary file of its, is never hashed into itself.
//! - A SUMS with other hard links is replaced all the same (rewriting it in
//!   place could leave it half-written): its other names keep the old
//!   manifest, and stderr says so.
//!
//! What `-c` skips is kept: comment and empty lines stay in place (a block
//! header says the algorithm of the untagged lines below it, as to `-c`),
//! and a CRLF manifest gets CRLF lines.

use std::collections::{HashMap, HashSet};
use std::ffi::OsString;
use std::fmt;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::ThreadId;

use crate::algo::{Algorithm, Algorithms, Bits};
use crate::command::check::infer::{self, Untagged};
use crate::command::check::parse::{Accept, Digits, Form, Syntax as Grammar, line_body};
use crate::command::checkpoint::{self, Checkpoint};
use crate::command::hash;
use crate::command::meta::{Looker, Meta};
use crate::command::names::{Absolute, CheckFiles, Joined, NameIndex, absolute};
use crate::config::{Context, HashOptions, LineFormat, Tags, UpdateOptions};
use crate::input::Input;
use crate::output::quote_name;
use crate::progress;
use crate::report::{Reporter, error_text};
use crate::sys::{FileId, printed_name};

/// What SUMS holds: its lines, the algorithm and format new lines take,
/// whether its lines end in CRLF (as its first does: so do the lines
/// added), and whether it has `#meta` lines (then so do the lines added).
struct Manifest {
    lines: Vec<Row>,
    /// A line end was added to the last line, which had none.
    appended: bool,
    algo: Algorithm,
    format: LineFormat,
    crlf: bool,
    meta: bool,
}

/// A line of SUMS (where it is in SUMS's text, its line end included; a
/// checksum line with the `#meta` line before it, if any), the name it
/// lists (`None`: a comment or an empty line, which `-c` skips, kept where
/// it is) and what its `#meta` line records.
struct Row {
    text: Range<usize>,
    name: Option<Vec<u8>>,
    meta: Option<Meta>,
}

impl Row {
    /// A line that lists no file.
    fn other(text: Range<usize>) -> Row {
        Row {
            text,
            name: None,
            meta: None,
        }
    }
}

/// Each listed file (absolute, normal), and what its `#meta` line records,
/// in SUMS's order (which a walk of the tree SUMS was made from follows).
#[derive(Default)]
struct Listed {
    names: NameIndex,
    metas: Vec<Option<Meta>>,
}

impl Listed {
    /// The listed files of `manifest`, names made absolute by `absolute`.
    fn of(manifest: &Manifest, absolute: &Absolute) -> Listed {
        let mut listed = Listed::default();
        for line in &manifest.lines {
            if let Some(name) = &line.name {
                listed.names.push(&absolute.of(name));
                listed.metas.push(line.meta);
            }
        }
        listed
    }

    /// The `i`th listed name.
    fn name(&self, i: usize) -> &[u8] {
        self.names.name(i)
    }

    /// The row that lists `name`, if any.
    fn find(&self, name: &Joined<'_>) -> Option<usize> {
        self.names.find(name)
    }
}

/// Which inputs an update hashes: not listed in SUMS (by their absolute
/// names, as lines print them, from `cwd`) or listed with a `#meta` line
/// they no longer match, not SUMS, not a temporary of it.
struct Unlisted {
    own: CheckFiles,
    temps: TempNames,
    listed: Listed,
    absolute: Absolute,
    cwd: Option<Vec<u8>>,
    /// The listed files found changed (absolute): their lines are replaced.
    changed: Mutex<HashSet<Vec<u8>>>,
    /// How listed files are looked at, by each thread that asks (the
    /// hash run's, and the progress display's count): each keeps its own
    /// directory open.
    lookers: Mutex<Vec<(ThreadId, Looker)>>,
}

impl Unlisted {
    /// What a run over the locked `sums` (holding `manifest`) hashes, names
    /// made absolute against `cwd`: each listed file, and what its `#meta`
    /// line records, is hashed again only if changed.
    fn of(locked: &Locked, sums: &Path, manifest: &Manifest, cwd: Option<&[u8]>) -> Unlisted {
        let absolute = Absolute::new(cwd);
        Unlisted {
            own: CheckFiles::of(&[
                sums.as_os_str().to_owned(),
                locked.target.as_os_str().to_owned(),
            ]),
            temps: TempNames::of(&locked.target),
            listed: Listed::of(manifest, &absolute),
            absolute,
            cwd: cwd.map(<[u8]>::to_vec),
            changed: Mutex::default(),
            lookers: Mutex::default(),
        }
    }

    /// Is `input` one to hash: not listed, or listed with a `#meta` line
    /// its file no longer matches?
    fn has(&self, input: &Input) -> bool {
        if self.own.is(input) || self.temps.is(input) {
            return false;
        }
        let printed = printed_name(input.name());
        let name = self.absolute.of(&printed);
        let Some(row) = self.listed.find(&name) else {
            return true;
        };
        let again = {
            let mut lookers = self.lookers.lock().unwrap_or_else(PoisonError::into_inner);
            let me = std::thread::current().id();
            let at = match lookers.iter().position(|(id, _)| *id == me) {
                Some(at) => at,
                None => {
                    lookers.push((me, Looker::default()));
                    lookers.len() - 1
                }
            };
            changed(input, self.listed.metas[row].as_ref(), &mut lookers[at].1)
        };
        if again {
            self.changed
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .insert(name.to_vec());
        }
        again
    }
}

/// Why SUMS cannot be updated.
enum Refusal {
    /// It cannot be read.
    Read(io::Error),
    /// A line that is no checksum line of the manifest's algorithm: its
    /// number (from 1).
    Improper(usize),
    /// A line whose algorithm or format differs from the first line's.
    Mixed(usize),
    /// `-a` names another algorithm than the manifest's.
    OtherAlgorithm(Algorithm),
    /// Untagged lines whose hex fits several algorithms, and no `-a`.
    Ambiguous(Vec<Algorithm>),
}

impl Refusal {
    /// What is said of SUMS (`name`, quoted) refused for this; `asked`:
    /// the algorithm of `-a`, or the name's.
    fn message(self, name: &str, asked: Algorithm) -> String {
        match self {
            Refusal::Read(e) => format!("{name}: {}", error_text(&e)),
            Refusal::Improper(n) => {
                format!("{name}: line {n} is no checksum line: left as it was")
            }
            Refusal::Mixed(n) => format!(
                "{name}: line {n} has another algorithm or format than the first: \
                 left as it was"
            ),
            Refusal::OtherAlgorithm(a) => format!(
                "{name}: its lines are {}, not {}: left as it was",
                as_a_names(a),
                as_a_names(asked)
            ),
            Refusal::Ambiguous(candidates) => format!(
                "{name}: its untagged lines may be {}: say which with -a; left as it was",
                choices(&candidates)
            ),
        }
    }
}

/// How many lines a run added, replaced (their file changed since its
/// `#meta` line), pruned and kept; and whether SUMS has `#meta` lines
/// (only then can a line be replaced, and the summary says how many were).
#[derive(Default)]
struct Counts {
    added: usize,
    modified: usize,
    pruned: usize,
    kept: usize,
    meta: bool,
}

impl fmt::Display for Counts {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} added, ", self.added)?;
        if self.meta {
            write!(f, "{} modified, ", self.modified)?;
        }
        write!(f, "{} pruned, {} kept", self.pruned, self.kept)
    }
}

/// Update `opts.sums` with the inputs of `files` it does not list.
pub(crate) fn run(cx: Context<'_>, opts: &UpdateOptions, files: Vec<OsString>) -> io::Result<()> {
    let rep = cx.rep;
    let name = quote_name(opts.sums.as_os_str().as_encoded_bytes());
    let mut said = false;
    let mut waiting = || {
        if !opts.quiet && !said {
            said = true;
            rep.message(&format!(
                "{name}: locked by another process: waiting for it"
            ));
        }
    };
    // (on Windows its verbatim path: a SUMS named like a device is a file)
    let locked = match Locked::open(&crate::sys::file_path(&opts.sums), &mut waiting) {
        Ok(locked) => locked,
        Err(why) => {
            rep.error(&format!("{name}: {why}: left as it was"));
            return Ok(());
        }
    };
    let result = update(&locked, cx, opts, files);
    if locked.made && (result.is_err() || rep.has_failed()) {
        // the empty SUMS made to be locked goes with the run that failed
        locked.unmake();
    }
    let counts = result?;
    if let Some(c) = counts
        && !opts.quiet
    {
        rep.message(&format!("{name}: {c}"));
    }
    Ok(())
}

/// The update of a locked SUMS: what it did, or `None` when it failed (and
/// said why).
fn update(
    locked: &Locked,
    cx: Context<'_>,
    opts: &UpdateOptions,
    files: Vec<OsString>,
) -> io::Result<Option<Counts>> {
    let rep = cx.rep;
    let name = quote_name(opts.sums.as_os_str().as_encoded_bytes());
    let mut text = Vec::new();
    let Some(manifest) = read_locked(locked, cx.algos, opts, &mut text, &name, rep) else {
        return Ok(None);
    };
    // names compare in normal form, absolute: `./d/a`, `d//a` and `/cwd/d/a`
    // list the file the walk names `d/a`; and as lines print them (on
    // Windows `d\a` is `d/a`)
    let cwd = std::env::current_dir().ok().map(PathBuf::into_os_string);
    let cwd = cwd.as_ref().map(|c| printed_name(c.as_encoded_bytes()));
    let cwd = cwd.as_deref();
    let roots: Vec<Vec<u8>> = files
        .iter()
        .filter(|f| *f != "-")
        .map(|f| absolute(&printed_name(f.as_encoded_bytes()), cwd))
        .collect();
    let unlisted = Arc::new(Unlisted::of(locked, &opts.sums, &manifest, cwd));
    let mut hash_opts = opts.hash.clone();
    hash_opts.style = hash_opts.style.with_format(manifest.format);
    // (the checkpoint needs each file's `#meta` line: a manifest without
    // them gets none, `hash_unlisted`)
    hash_opts.meta = true;
    // (the walk's prefetch would open every file: only what changed is)
    hash_opts.walk.no_prefetch = manifest.meta;
    progress::plan(cx.stats, || {
        let (files, walk, unlisted) = (files.clone(), hash_opts.walk.clone(), unlisted.clone());
        Box::new(move || {
            Some(hash::planned(
                files,
                &walk,
                |input| unlisted.has(input),
                true,
            ))
        })
    });
    let cx = Context {
        algos: Algorithms::one(manifest.algo),
        ..cx
    };
    let (added, checkpoint) =
        hash_unlisted(cx, locked, &manifest, (hash_opts, opts), files, &unlisted)?;
    if rep.has_failed() {
        rep.error(&format!(
            "{name}: not updated: an input could not be hashed"
        ));
        return Ok(None);
    }
    let prune = opts.prune.then_some(Prune { roots: &roots });
    let changed = unlisted
        .changed
        .lock()
        .unwrap_or_else(PoisonError::into_inner);
    let added = Added::of(&manifest, &added, opts, (&changed, &unlisted.absolute));
    let (new, counts) = merge(&manifest, added, prune, &text, &unlisted.listed);
    if !manifest.appended && new == text && !locked.made {
        // nothing to change: SUMS is left alone (its time stamps too)
        checkpoint.remove();
        return Ok(Some(counts));
    }
    let written = write(locked, &new, &name, rep, opts.quiet);
    if written {
        checkpoint.remove();
    }
    Ok(written.then_some(counts))
}

/// The manifest a locked SUMS holds, read into `text`, of the algorithm
/// asked (`-a`, or SHA256SUMS's own under fastsum's own name, as -c reads
/// it: command/check/infer.rs); `None` when it cannot be (and said why).
fn read_locked(
    locked: &Locked,
    algos: Algorithms,
    opts: &UpdateOptions,
    text: &mut Vec<u8>,
    name: &str,
    rep: &Reporter,
) -> Option<Manifest> {
    let named = opts
        .by_name
        .then(|| infer::from_name(opts.sums.as_os_str().as_encoded_bytes()))
        .flatten();
    let asked = named.unwrap_or(algos.first());
    let manifest = match locked.read_to_end(text) {
        Ok(_) => read_manifest(text, asked, named, opts),
        Err(e) => Err(Refusal::Read(e)),
    };
    manifest
        .map_err(|refusal| rep.error(&refusal.message(name, asked)))
        .ok()
}

/// Hash the inputs of `files` that `unlisted` has, as `hash_opts` say
/// (with `#meta` lines), and take from the checkpoint beside SUMS the lines
/// of those it holds still as they were: the lines, in the order of the
/// inputs (with `#meta` lines only if the manifest has them), and the
/// checkpoint (written as the run went: it goes once SUMS is replaced).
fn hash_unlisted(
    cx: Context<'_>,
    locked: &Locked,
    manifest: &Manifest,
    (mut hash_opts, opts): (HashOptions, &UpdateOptions),
    files: Vec<OsString>,
    unlisted: &Unlisted,
) -> io::Result<(Vec<u8>, Checkpoint)> {
    let cwd = unlisted.cwd.as_deref();
    // the command the checkpoint is of: lines of another are not these
    let header = format!(
        "{:?} {:?} {}",
        manifest.algo,
        hash_opts.style,
        String::from_utf8_lossy(cwd.unwrap_or_default())
    );
    let names = std::cell::RefCell::new(Names::new(manifest, opts.algorithm_chosen));
    let (mut checkpoint, resumed, other) = Checkpoint::open(&locked.target, &header, |body| {
        let name = names.borrow_mut().name(body)?;
        Some(unlisted.absolute.of(&name).to_vec())
    });
    if !resumed.is_empty() {
        // (the walk's prefetch would open every file the checkpoint holds,
        // which is not read again)
        hash_opts.walk.no_prefetch = true;
    }
    if other && !opts.quiet {
        cx.rep.message(&format!(
            "{}: of another command: ignored and removed",
            shown(&checkpoint::path_of(&locked.target))
        ));
    }
    // each input kept, in order, with its lines when the checkpoint had them
    let resume = Mutex::new((resumed, Vec::new()));
    let mut hashed = Vec::new();
    let mut tee = Tee {
        out: &mut hashed,
        checkpoint: &mut checkpoint,
    };
    let keep = |input: &Input| {
        if !unlisted.has(input) {
            return false;
        }
        let mut resume = resume.lock().unwrap_or_else(PoisonError::into_inner);
        let taken = match input {
            Input::Path(path) => {
                let printed = printed_name(input.name());
                resume.0.take(&unlisted.absolute.of(&printed), path)
            }
            _ => None,
        };
        let hash = taken.is_none();
        resume.1.push(taken);
        hash
    };
    let ran = hash::run_filtered(cx, hash_opts, files, keep, &mut tee);
    if ran.is_err() || cx.rep.has_failed() {
        // SUMS stays as it was: what was hashed is kept for the next run
        // (a run that goes on to replace SUMS makes no checkpoint it has
        // not made yet)
        checkpoint.sync();
    }
    ran?;
    let (_, order) = resume.into_inner().unwrap_or_else(PoisonError::into_inner);
    let added = checkpoint::in_order(order, &hashed);
    let added = match manifest.meta {
        true => added,
        false => checkpoint::without_meta(&added),
    };
    Ok((added, checkpoint))
}

/// The hash run's output, kept and given to the checkpoint.
struct Tee<'a> {
    out: &'a mut Vec<u8>,
    checkpoint: &'a mut Checkpoint,
}

impl Write for Tee<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.out.extend_from_slice(buf);
        self.checkpoint.push(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// How many other hard links the file `meta` describes has (none known
/// where std does not say: Windows).
fn other_links(meta: &fs::Metadata) -> u64 {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        meta.nlink().saturating_sub(1)
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        0
    }
}

/// `--prune`'s rule: a line goes when its file is under one of the
/// operands (`roots`, absolute, as names compare) and gone.
struct Prune<'a> {
    roots: &'a [Vec<u8>],
}

impl Prune<'_> {
    /// Does the line of `named` (`absolute`: as names compare) go?
    fn drops(&self, named: &[u8], absolute: &[u8]) -> bool {
        under(self.roots, absolute) && is_gone(named)
    }
}

/// Is a listed file to be hashed again: it has a `#meta` line
/// (`recorded`) and its size or mtime is not as recorded (or cannot be
/// looked at: then hashing it says why)? A line without one is kept as it
/// is: nothing tells whether its file changed, and hashing it again could
/// hide rot behind a new digest.
fn changed(input: &Input, recorded: Option<&Meta>, looker: &mut Looker) -> bool {
    let (Some(recorded), Input::Path(path)) = (recorded, input) else {
        return false;
    };
    match looker.meta(path) {
        Ok(now) => !recorded.unchanged(&now),
        Err(_) => true,
    }
}

/// The lines hashed, in SUMS's line ends: those of files SUMS lists (by
/// name, absolute), which replace their lines, and the others, in order.
struct Added {
    again: HashMap<Vec<u8>, Vec<u8>>,
    new: Vec<u8>,
    count: usize,
}

impl Added {
    /// Split `added` (a checksum line each, after its `#meta` line if any)
    /// by the names of the listed files found `changed` (as names compare,
    /// made so by `absolute`).
    fn of(
        manifest: &Manifest,
        added: &[u8],
        opts: &UpdateOptions,
        (changed, absolute): (&HashSet<Vec<u8>>, &Absolute),
    ) -> Added {
        let mut split = Added {
            again: HashMap::new(),
            new: Vec::with_capacity(added.len()),
            count: 0,
        };
        let mut names = Names::new(manifest, opts.algorithm_chosen);
        // where the record being read starts in `new`
        let mut from = 0;
        for line in added.split_inclusive(|&b| b == b'\n') {
            match line.strip_suffix(b"\n") {
                Some(body) if manifest.crlf => {
                    split.new.extend_from_slice(body);
                    split.new.extend_from_slice(b"\r\n");
                }
                _ => split.new.extend_from_slice(line),
            }
            let Some(body) = line_body(line) else {
                // (a `#meta` line: with the line after it)
                continue;
            };
            // (nothing found changed: every line is a new file's)
            let again = match changed.is_empty() {
                true => None,
                false => names
                    .name(body)
                    .map(|name| absolute.of(&name).to_vec())
                    .filter(|name| changed.contains(name)),
            };
            match again {
                Some(name) => {
                    split.again.insert(name, split.new.split_off(from));
                }
                None => split.count += 1,
            }
            from = split.new.len();
        }
        split
    }
}

/// SUMS's new text: its lines, less those `prune` drops, those of files
/// hashed again replaced, then the new lines; and what that counts.
/// `text`: SUMS's text; `listed`: its names as they compare.
fn merge(
    manifest: &Manifest,
    added: Added,
    prune: Option<Prune<'_>>,
    text: &[u8],
    listed: &Listed,
) -> (Vec<u8>, Counts) {
    let mut counts = Counts {
        added: added.count,
        meta: manifest.meta,
        ..Counts::default()
    };
    let mut new = Vec::with_capacity(text.len() + added.new.len());
    let mut row = 0;
    for line in &manifest.lines {
        let old = &text[line.text.clone()];
        let Some(named) = &line.name else {
            // (a comment or an empty line: kept, not counted)
            new.extend_from_slice(old);
            continue;
        };
        let absolute = listed.name(row);
        row += 1;
        if prune.as_ref().is_some_and(|p| p.drops(named, absolute)) {
            counts.pruned += 1;
            continue;
        }
        // (nothing hashed again: no name to compare)
        let again = match added.again.is_empty() {
            true => None,
            false => added.again.get(absolute),
        };
        let text = match again {
            Some(again) if again != old => {
                counts.modified += 1;
                again
            }
            // (hashed again, the same: its mtime was too recent to vouch)
            Some(again) => {
                counts.kept += 1;
                again
            }
            None => {
                counts.kept += 1;
                old
            }
        };
        new.extend_from_slice(text);
    }
    new.extend_from_slice(&added.new);
    (new, counts)
}

/// Replace SUMS (`name`, quoted) with `new`: whether it was, and synced
/// (else said why); unless `quiet`, say that SUMS's other hard links keep
/// the old manifest.
fn write(locked: &Locked, new: &[u8], name: &str, rep: &Reporter, quiet: bool) -> bool {
    match replace(locked, new) {
        Ok(Synced::Yes) => {
            let links = other_links(&locked.meta);
            if links > 0 && !quiet {
                // a new file took SUMS's name: its other names keep the old
                // one (rewriting it in place could leave it half-written)
                rep.message(&format!(
                    "{name}: replaced by a new file: its {links} other hard link{} the old \
                     manifest",
                    if links == 1 { " keeps" } else { "s keep" }
                ));
            }
            true
        }
        Ok(Synced::RenamedOnly(e)) => {
            rep.error(&format!(
                "{name}: updated, but its directory could not be synced: {}",
                error_text(&e)
            ));
            false
        }
        Err(e) => {
            rep.error(&format!("{name}: {e}: left as it was"));
            false
        }
    }
}

/// SUMS's lines, its algorithm and format (an empty SUMS: new lines take
/// `-a`'s algorithm, or its name's, and the format the options ask for);
/// `named`: the algorithm SUMS's name names (`asked` then).
fn read_manifest(
    text: &mut Vec<u8>,
    asked: Algorithm,
    named: Option<Algorithm>,
    opts: &UpdateOptions,
) -> Result<Manifest, Refusal> {
    let crlf = text
        .split_inclusive(|&b| b == b'\n')
        .next()
        .is_some_and(|l| l.ends_with(b"\r\n"));
    // (a last line gets its line end, as a line added after it would)
    let appended = !text.is_empty() && !text.ends_with(b"\n");
    if appended {
        text.extend_from_slice(if crlf { b"\r\n" } else { b"\n" });
    }
    let mut manifest = Manifest {
        lines: Vec::new(),
        appended,
        algo: asked,
        format: opts.hash.style.format(),
        crlf,
        meta: opts.hash.meta,
    };
    let mut first: Option<(Algorithm, LineFormat)> = None;
    let mut shape: Option<Shape> = None;
    let mut block = None;
    // a `#meta` line (where it starts), until the line after it says
    // whether it is tied to a checksum line
    let mut pending: Option<(usize, Meta)> = None;
    let mut end = 0;
    for (i, raw) in lines(text).enumerate() {
        let start = end;
        end += raw.len();
        let kept = start..end;
        let Some(body) = line_body(raw) else {
            // a comment or an empty line stays where it is (a `#meta` line
            // before another is only a comment); a block header says the
            // algorithm of the lines below it, as to -c
            manifest
                .lines
                .extend(pending.take().map(|(from, _)| Row::other(from..start)));
            if let Some(meta) = Meta::parse(raw) {
                pending = Some((start, meta));
                continue;
            }
            if !opts.algorithm_chosen
                && let Some(algo) = infer::from_header(raw)
            {
                block = Some(algo);
            }
            manifest.lines.push(Row::other(kept));
            continue;
        };
        let said = block.or(named);
        let quick = first.zip(shape.as_ref().and_then(|s| s.name(body)));
        let (algo, format, name) = match quick {
            Some(((algo, format), name)) => (algo, format, name),
            None => checksum_line(body, first, said, asked, opts.algorithm_chosen)
                .ok_or(Refusal::Improper(i + 1))??,
        };
        match first {
            None => {
                first = Some((algo, format));
                shape = Shape::of(body, algo, format);
            }
            Some(f) if f != (algo, format) => return Err(Refusal::Mixed(i + 1)),
            Some(_) => {}
        }
        let (text, meta) = match pending.take() {
            Some((from, meta)) => {
                manifest.meta = true;
                (from..end, Some(meta))
            }
            None => (kept, None),
        };
        manifest.lines.push(Row {
            text,
            name: Some(name),
            meta,
        });
    }
    manifest
        .lines
        .extend(pending.map(|(from, _)| Row::other(from..end)));
    if let Some((algo, format)) = first {
        // a BLAKE2b or SHA-3 manifest keeps its own length (as -c reads it)
        if opts.algorithm_chosen && !algo.same_family(asked) {
            return Err(Refusal::OtherAlgorithm(algo));
        }
        manifest.algo = algo;
        manifest.format = format;
    }
    Ok(manifest)
}

/// How a manifest's checksum lines look, as its first one has them: the
/// lines like it are read without `-c`'s whole grammar (which decodes each
/// digest and weighs every tag, for a name); any other line is left to it.
/// A line read so is one the grammar reads the same: its algorithm and
/// format are the first line's, its name is what the grammar's would be
/// (`quick_names_are_the_grammars` compares them).
enum Shape {
    /// `hex  name` (`hex *name`): the hex's length and the marker.
    Untagged { hex: usize, marker: u8 },
    /// `TAG (name) = hex`: the line up to its first `(` (the tag and
    /// whatever the grammar read of it), and the hex's length.
    Tagged { start: Vec<u8>, hex: usize },
}

impl Shape {
    /// The shape of the lines like `body`, a checksum line of `algo` in
    /// `format`; `None` for a shape left to the grammar (an escaped name,
    /// a digest over parts).
    fn of(body: &[u8], algo: Algorithm, format: LineFormat) -> Option<Shape> {
        if algo.parts().is_some() {
            return None;
        }
        let hex = 2 * algo.digest_len();
        Some(match format {
            LineFormat::Gnu { binary } => Shape::Untagged {
                hex,
                marker: if binary { b'*' } else { b' ' },
            },
            LineFormat::Tagged => {
                if !body.first()?.is_ascii_alphabetic() {
                    return None;
                }
                let open = body.iter().position(|&b| b == b'(')?;
                Shape::Tagged {
                    start: body[..=open].to_vec(),
                    hex,
                }
            }
        })
    }

    /// The name a line `body` of this shape lists (up to a NUL, as the
    /// grammar takes it); `None` when it is not of this shape.
    fn name(&self, body: &[u8]) -> Option<Vec<u8>> {
        let written = match self {
            Shape::Untagged { hex, marker } => {
                let (digest, rest) = body.split_at_checked(*hex)?;
                match rest {
                    [b' ', m, name @ ..] if m == marker && !name.is_empty() => {}
                    _ => return None,
                }
                if digest.is_empty() || !all_hex(digest) {
                    return None;
                }
                &rest[2..]
            }
            Shape::Tagged { start, hex } => {
                let rest = body.strip_prefix(&start[..])?;
                let (named, digest) = rest.split_at_checked(rest.len().checked_sub(*hex)?)?;
                if digest.is_empty() || !all_hex(digest) {
                    return None;
                }
                named.strip_suffix(b") = ")?
            }
        };
        let name = written.split(|&b| b == 0).next().unwrap_or_default();
        Some(name.to_vec())
    }
}

/// The names the lines of a manifest's algorithm and format list, read as
/// [`Shape`] reads them once one line was read by the grammar.
struct Names {
    first: (Algorithm, LineFormat),
    chosen: bool,
    shape: Option<Shape>,
}

impl Names {
    /// For the lines added to `manifest` (`chosen`: `-a` was given).
    fn new(manifest: &Manifest, chosen: bool) -> Names {
        Names {
            first: (manifest.algo, manifest.format),
            chosen,
            shape: None,
        }
    }

    /// The name `body`, a checksum line of the manifest's algorithm and
    /// format, lists (`None`: it is none).
    fn name(&mut self, body: &[u8]) -> Option<Vec<u8>> {
        if let Some(name) = self.shape.as_ref().and_then(|s| s.name(body)) {
            return Some(name);
        }
        match checksum_line(body, Some(self.first), None, self.first.0, self.chosen) {
            Some(Ok((a, f, name))) => {
                if self.shape.is_none() && (a, f) == self.first {
                    self.shape = Shape::of(body, a, f);
                }
                Some(name)
            }
            _ => None,
        }
    }
}

/// Is each byte a hex digit? (Every byte looked at, no branch: the loop is
/// the CPU's vector instructions.)
fn all_hex(s: &[u8]) -> bool {
    s.iter().fold(true, |all, &b| {
        all & ((b.wrapping_sub(b'0') < 10) | ((b | 0x20).wrapping_sub(b'a') < 6))
    })
}

/// The lines of `text` (which ends in a line end), each with its end.
fn lines(text: &[u8]) -> impl Iterator<Item = &[u8]> {
    let mut start = 0;
    memchr::memchr_iter(b'\n', text).map(move |end| {
        let line = &text[start..=end];
        start = end + 1;
        line
    })
}

/// A checksum line's algorithm, format and the name it lists.
type Listing = (Algorithm, LineFormat, Vec<u8>);

/// A checksum line of SUMS (`body`, as `-c` parses it): its algorithm,
/// format and the name it lists. The algorithm of an untagged one is the
/// first line's, else `-a`'s (`chosen`: given), else as `-c` infers it from `said` (a block
/// header's or SUMS's name's algorithm) or its length: `Some(Err)` when
/// that length is several algorithms'. `None`: no checksum line.
fn checksum_line(
    body: &[u8],
    first: Option<(Algorithm, LineFormat)>,
    said: Option<Algorithm>,
    asked: Algorithm,
    chosen: bool,
) -> Option<Result<Listing, Refusal>> {
    // the grammar of `-c` under fastsum's own name (hex digits)
    let grammar = Grammar {
        default: asked,
        accept: Accept::Any,
        digits: Digits::Hex,
        tags: Tags::Any,
    };
    let default = match first {
        Some((a, _)) => a,
        None if chosen => asked,
        None => match infer::untagged(body, said, &grammar, grammar.tag_of(body).is_some()) {
            Untagged::Known(algo) => algo,
            Untagged::Unknown { bytes, .. } => {
                return Some(Err(Refusal::Ambiguous(infer::fitting(bytes))));
            }
            Untagged::Default => asked,
        },
    };
    let line = Grammar { default, ..grammar }.parse(body).ok()?;
    let format = match line.form {
        Form::Tagged => LineFormat::Tagged,
        Form::Standard => LineFormat::Gnu {
            binary: line.binary_marker(),
        },
        Form::Reversed => return None,
    };
    let name = line.file_name(false).ok()?;
    Some(Ok((line.algo, format, name)))
}

/// An algorithm as `-a` names it (`md5`, over parts `md5@8M`).
fn as_a_names(algo: Algorithm) -> String {
    match algo.parts() {
        Some(p) => format!("{}@{}", algo.name(), p.size),
        None => algo.name().to_string(),
    }
}

/// The candidates as `-a` (and `-l`) name them: `md5, blake2b -l 128 or
/// xxh128`.
fn choices(candidates: &[Algorithm]) -> String {
    let named: Vec<String> = candidates
        .iter()
        .map(|&a| match a {
            Algorithm::Blake2b(b) if b != Bits::MAX => format!("blake2b -l {}", b.bits()),
            Algorithm::Sha3(s) => format!("sha3 -l {}", s.bits()),
            _ => a.name().to_string(),
        })
        .collect();
    match named.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        _ => named.concat(),
    }
}

/// Is `name` (absolute, normal) one of `roots` or under one: a file the
/// walk of the operands would have found?
fn under(roots: &[Vec<u8>], name: &[u8]) -> bool {
    roots.iter().any(|root| {
        name.strip_prefix(&root[..])
            .is_some_and(|rest| rest.is_empty() || root.ends_with(b"/") || rest[0] == b'/')
    })
}

/// Is the file a line names gone (not even a dangling link)?
fn is_gone(name: &[u8]) -> bool {
    // (on Windows, bytes that are no name there: no file is gone)
    let Some(path) = crate::sys::os_string(name.to_vec()) else {
        return false;
    };
    let path = std::path::PathBuf::from(path);
    let found = fs::symlink_metadata(crate::sys::file_path(&path));
    matches!(found, Err(e) if e.kind() == io::ErrorKind::NotFound)
}

/// How many times a step that lost a race (SUMS replaced while it waited
/// for the lock, a temporary name taken) is tried before giving up.
const TRIES: usize = 100;

/// SUMS, open and locked: the regular file it names, exclusively ours
/// until dropped (closing the descriptor releases the lock) or released
/// ([`Locked::release`]).
struct Locked {
    /// (`None` once released)
    file: std::cell::RefCell<Option<File>>,
    /// The regular file SUMS names, links resolved: the one replaced.
    target: PathBuf,
    /// Its owner and mode, which the new manifest keeps.
    meta: fs::Metadata,
    /// Its identity.
    id: FileId,
    /// SUMS was missing: this is the empty file made to be locked.
    made: bool,
}

/// Why SUMS cannot be opened and locked.
enum Unusable {
    /// It exists and is no regular file: what it is.
    NotRegular(&'static str),
    /// A symbolic link to nothing.
    Dangling,
    /// Replaced again and again while this run waited for it.
    Unsteady,
    /// An error opening, reading or locking it.
    Io(io::Error),
}

impl fmt::Display for Unusable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Unusable::NotRegular(what) => write!(f, "not a regular file ({what})"),
            Unusable::Dangling => f.write_str("a symbolic link to a file that does not exist"),
            Unusable::Unsteady => {
                f.write_str("replaced by others again and again while waiting for its lock")
            }
            Unusable::Io(e) => f.write_str(&error_text(e)),
        }
    }
}

impl From<io::Error> for Unusable {
    fn from(e: io::Error) -> Unusable {
        Unusable::Io(e)
    }
}

/// Did an open fail because the path changed under it (gone, or a link
/// put where the resolved path was)? Then it is tried again.
fn lost_race(e: &io::Error) -> bool {
    e.kind() == io::ErrorKind::NotFound || crate::sys::is_link_refused(e)
}

impl Locked {
    /// Open what SUMS names and lock it, as the only updater (`waiting`
    /// is called when another holds the lock).
    fn open(sums: &Path, waiting: &mut dyn FnMut()) -> Result<Locked, Unusable> {
        for _ in 0..TRIES {
            let Some((file, target, made)) = Self::open_once(sums)? else {
                continue;
            };
            let made_as = match (made, FileId::of_file(&file)) {
                (true, Ok(id)) => Some(id),
                _ => None,
            };
            let locked = Self::lock_steady(file, &target, waiting);
            if let (Err(_), Some(m)) = (&locked, made_as) {
                // the empty SUMS made to be locked is not left behind
                remove_made(&target, m);
            }
            if let Some((file, meta, id)) = locked? {
                return Ok(Locked {
                    file: Some(file).into(),
                    target,
                    meta,
                    id,
                    made,
                });
            }
        }
        Err(Unusable::Unsteady)
    }

    /// Lock `file`, opened at `target`; `None` when, by the time the lock
    /// is taken, `target` names another file (another updater renamed a
    /// new SUMS over this one while this run waited: that one is the
    /// manifest now).
    fn lock_steady(
        file: File,
        target: &Path,
        waiting: &mut dyn FnMut(),
    ) -> Result<Option<(File, fs::Metadata, FileId)>, Unusable> {
        let meta = file.metadata()?;
        if !meta.is_file() {
            // (replaced by something else between the look and the open)
            return Err(Unusable::NotRegular(hash::file_kind(&meta)));
        }
        lock(&file, waiting)?;
        let meta = file.metadata()?;
        let id = FileId::of_file(&file)?;
        match FileId::of_link(target) {
            Ok(now) if now == id => Ok(Some((file, meta, id))),
            Ok(_) => Ok(None),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e.into()),
        }
    }

    /// Open the regular file SUMS names now, or make it when nothing is
    /// there: the file, its path with links resolved, and whether it was
    /// made. `None` when SUMS changed meanwhile (to be tried again).
    fn open_once(sums: &Path) -> Result<Option<(File, PathBuf, bool)>, Unusable> {
        match fs::metadata(sums) {
            Ok(m) if !m.is_file() => Err(Unusable::NotRegular(hash::file_kind(&m))),
            Ok(_) => {
                let target = match fs::canonicalize(sums) {
                    Ok(t) => t,
                    Err(e) if lost_race(&e) => return Ok(None),
                    Err(e) => return Err(e.into()),
                };
                // a FIFO put there since is not waited on (and is
                // refused), nor is a link put there followed
                let opened = crate::sys::open_no_follow(&target);
                match opened {
                    Ok(f) => Ok(Some((f, target, false))),
                    Err(e) if lost_race(&e) => Ok(None),
                    Err(e) => Err(e.into()),
                }
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => match fs::symlink_metadata(sums) {
                Ok(m) if m.file_type().is_symlink() => Err(Unusable::Dangling),
                Ok(_) => Ok(None),
                Err(e) if e.kind() == io::ErrorKind::NotFound => {
                    // a missing SUMS is made (empty) to hold the lock on
                    let made = OpenOptions::new()
                        .read(true)
                        .write(true)
                        .create_new(true)
                        .open(sums);
                    match made {
                        Ok(f) => Ok(Some((f, sums.to_path_buf(), true))),
                        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(None),
                        Err(e) => Err(e.into()),
                    }
                }
                Err(e) => Err(e.into()),
            },
            Err(e) => Err(e.into()),
        }
    }

    /// Read the whole file.
    fn read_to_end(&self, buf: &mut Vec<u8>) -> io::Result<usize> {
        match &*self.file.borrow() {
            Some(file) => (&*file).read_to_end(buf),
            None => Err(io::Error::from(io::ErrorKind::NotFound)),
        }
    }

    /// Close the file, and so release the lock, before the rename over it
    /// where an open file cannot be replaced (Windows). Another updater
    /// that takes the lock from here on either finds the new file in place
    /// once it holds it (and starts again from that one), or holds the old
    /// one open when this rename comes, which then fails: this run reports
    /// it and leaves SUMS to that one. No update is lost either way.
    fn release(&self) {
        self.file.borrow_mut().take();
    }

    /// Remove the empty SUMS this run made (the lock is still held: no
    /// other updater has replaced it).
    fn unmake(&self) {
        remove_made(&self.target, self.id);
    }
}

/// Remove the empty file made at `path` to be locked, if it is still the
/// file there, and still empty.
fn remove_made(path: &Path, made: FileId) {
    let same = FileId::of_link(path).is_ok_and(|now| now == made)
        && fs::symlink_metadata(path).is_ok_and(|m| m.len() == 0);
    if same {
        let _ = fs::remove_file(path);
    }
}

/// Take `file`'s exclusive lock, waiting for it as long as another holds
/// it (after calling `waiting`).
fn lock(file: &File, waiting: &mut dyn FnMut()) -> io::Result<()> {
    match file.try_lock() {
        Ok(()) => return Ok(()),
        Err(fs::TryLockError::WouldBlock) => waiting(),
        Err(fs::TryLockError::Error(e)) if e.kind() != io::ErrorKind::Interrupted => {
            return Err(e);
        }
        Err(fs::TryLockError::Error(_)) => {}
    }
    loop {
        match file.lock() {
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            r => return r,
        }
    }
}

/// The temporary files of a SUMS (this run's or a killed one's): `SUMS`'s
/// name, `.fastsum-update.` and a random suffix, in its directory.
struct TempNames {
    prefix: OsString,
    /// The directory's identity (unknown: nothing is one of them).
    dir: Option<FileId>,
}

impl TempNames {
    fn of(target: &Path) -> TempNames {
        let mut prefix = target.file_name().unwrap_or_default().to_os_string();
        prefix.push(".fastsum-update.");
        let dir = FileId::of_path(dir_of(target)).ok();
        TempNames { prefix, dir }
    }

    /// A new name: the prefix and 16 random hex digits.
    fn fresh(&self) -> OsString {
        let mut name = self.prefix.clone();
        name.push(format!("{:016x}", random()));
        name
    }

    /// Is `input` one of them? (Only a name that starts like one is
    /// stat'ed.)
    fn is(&self, input: &Input) -> bool {
        let Input::Path(path) = input else {
            return false;
        };
        let starts = path.file_name().is_some_and(|n| {
            n.as_encoded_bytes()
                .starts_with(self.prefix.as_encoded_bytes())
        });
        starts
            && self
                .dir
                .is_some_and(|dir| FileId::of_path(dir_of(path)).is_ok_and(|now| now == dir))
    }
}

/// The directory a path's last component is in.
fn dir_of(path: &Path) -> &Path {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    }
}

/// 64 random bits, from /dev/urandom (else from std's hash keys, which the
/// OS's random source seeds).
fn random() -> u64 {
    let mut buf = [0; 8];
    match File::open("/dev/urandom").and_then(|mut f| f.read_exact(&mut buf)) {
        Ok(()) => u64::from_ne_bytes(buf),
        Err(_) => {
            use std::hash::{BuildHasher, Hasher};
            let mut h = std::collections::hash_map::RandomState::new().build_hasher();
            h.write_u32(std::process::id());
            h.write_u128(
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(0, |d| d.as_nanos()),
            );
            h.finish()
        }
    }
}

/// How far a replaced manifest is on disk.
enum Synced {
    /// Renamed and the directory synced.
    Yes,
    /// Renamed (the new manifest is in place), but syncing the directory
    /// failed: a crash now could bring the old one back.
    RenamedOnly(io::Error),
}

/// Why the new manifest could not take SUMS's place: what was being done
/// (naming the file), and the error.
struct WriteError {
    doing: String,
    error: io::Error,
}

impl fmt::Display for WriteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.doing, error_text(&self.error))
    }
}

/// A path in a message, quoted as names are.
fn shown(path: &Path) -> String {
    quote_name(path.as_os_str().as_encoded_bytes())
}

/// Write `bytes` to a new file beside `locked.target` (same directory, so
/// the rename is atomic) with the old file's owner and mode, sync it,
/// rename it over the target and sync the directory. `Err`: the target is
/// as it was, and the new file is gone.
fn replace(locked: &Locked, bytes: &[u8]) -> Result<Synced, WriteError> {
    let dir_path = dir_of(&locked.target);
    let dir = crate::sys::open_dir(dir_path).map_err(|error| WriteError {
        doing: format!("opening its directory {}", shown(dir_path)),
        error,
    })?;
    let names = TempNames::of(&locked.target);
    let name = match unnamed(&dir, dir_path, &names, locked, bytes) {
        Some(linked) => linked?,
        None => named(dir_path, &names, locked, bytes)?,
    };
    let tmp = dir_path.join(&name);
    if !crate::sys::RENAME_OVER_OPEN_FILE {
        locked.release();
    }
    if let Err(error) = fs::rename(&tmp, &locked.target) {
        let _ = fs::remove_file(&tmp);
        return Err(WriteError {
            doing: format!("renaming {} over it", shown(&tmp)),
            error,
        });
    }
    Ok(match crate::sys::sync_dir(&dir) {
        Ok(()) => Synced::Yes,
        Err(e) => Synced::RenamedOnly(e),
    })
}

/// Give `file` the owner and mode of the manifest it replaces (on Unix:
/// `sys::copy_owner_and_mode`), and write and sync `bytes`.
fn fill(file: &mut File, old: &fs::Metadata, bytes: &[u8]) -> io::Result<()> {
    crate::sys::copy_owner_and_mode(file, old)?;
    file.write_all(bytes)?;
    file.sync_all()
}

/// The new manifest as an unnamed file (`O_TMPFILE`: a kill leaves
/// nothing), linked into the directory under a fresh name once written and
/// synced: that name. `None` when the file system (or /proc, which the
/// link goes through) cannot: then a named file is made instead.
fn unnamed(
    dir: &File,
    dir_path: &Path,
    names: &TempNames,
    locked: &Locked,
    bytes: &[u8],
) -> Option<Result<OsString, WriteError>> {
    let mut file = crate::sys::unnamed_file(dir_path)?;
    if let Err(error) = fill(&mut file, &locked.meta, bytes) {
        return Some(Err(WriteError {
            doing: format!("writing a new file in {}", shown(dir_path)),
            error,
        }));
    }
    for _ in 0..TRIES {
        let name = names.fresh();
        match crate::sys::link_unnamed(&file, dir, &name) {
            Ok(true) => return Some(Ok(name)),
            Ok(false) => {}
            Err(_) => return None,
        }
    }
    None
}

/// The new manifest as a file made under a fresh name (`O_EXCL`, another
/// name while one is taken), written and synced: that name.
fn named(
    dir_path: &Path,
    names: &TempNames,
    locked: &Locked,
    bytes: &[u8],
) -> Result<OsString, WriteError> {
    let mut last = None;
    for _ in 0..TRIES {
        let name = names.fresh();
        let path = dir_path.join(&name);
        let mut options = OpenOptions::new();
        options.write(true).create_new(true);
        crate::sys::private_mode(&mut options);
        let made = options.open(&path);
        let mut file = match made {
            Ok(f) => f,
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                last = Some((path, e));
                continue;
            }
            Err(error) => {
                return Err(WriteError {
                    doing: format!("making {}", shown(&path)),
                    error,
                });
            }
        };
        if let Err(error) = fill(&mut file, &locked.meta, bytes) {
            let _ = fs::remove_file(&path);
            return Err(WriteError {
                doing: format!("writing {}", shown(&path)),
                error,
            });
        }
        return Ok(name);
    }
    let (path, error) = last.unwrap_or_else(|| {
        (
            dir_path.to_path_buf(),
            io::Error::from(io::ErrorKind::AlreadyExists),
        )
    });
    Err(WriteError {
        doing: format!("making {}", shown(&path)),
        error,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn choices_are_named_as_a_takes_them() {
        let b128 = Algorithm::Blake2b(Bits::MAX).with_length(128).unwrap();
        assert_eq!(
            choices(&[Algorithm::Md5, b128, Algorithm::Xxh128]),
            "md5, blake2b -l 128 or xxh128"
        );
        assert_eq!(choices(&[Algorithm::Sha256]), "sha256");
    }

    /// Both ways of making the new manifest (O_TMPFILE linked, and a name
    /// made with O_EXCL) give a fresh name beside SUMS, with SUMS's mode
    /// and the bytes; the named way also where O_TMPFILE works.
    #[cfg(unix)]
    #[test]
    fn the_new_file_is_made_either_way_with_the_old_mode() {
        use std::fs::Permissions;
        use std::os::unix::fs::{MetadataExt, PermissionsExt};
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let sums = d.join("SUMS");
        fs::write(&sums, b"old\n").unwrap();
        fs::set_permissions(&sums, Permissions::from_mode(0o640)).unwrap();
        let Ok(locked) = Locked::open(&sums, &mut || {}) else {
            panic!("SUMS could not be locked");
        };
        let names = TempNames::of(&locked.target);
        let dir_file = File::open(d).unwrap();
        let mut made = Vec::new();
        match unnamed(&dir_file, d, &names, &locked, b"new\n") {
            Some(r) => made.push(r.unwrap_or_else(|e| panic!("{e}"))),
            None => eprintln!("no O_TMPFILE here: only the named way is tested"),
        }
        made.push(named(d, &names, &locked, b"new\n").unwrap_or_else(|e| panic!("{e}")));
        made.push(named(d, &names, &locked, b"new\n").unwrap_or_else(|e| panic!("{e}")));
        for name in &made {
            assert!(
                name.as_encoded_bytes().starts_with(b"SUMS.fastsum-update."),
                "{name:?}"
            );
            assert_eq!(name.len(), "SUMS.fastsum-update.".len() + 16, "{name:?}");
            let path = d.join(name);
            assert_eq!(fs::read(&path).unwrap(), b"new\n");
            assert_eq!(fs::metadata(&path).unwrap().mode() & 0o7777, 0o640);
            assert!(names.is(&Input::Path(path)));
        }
        let distinct: std::collections::HashSet<&OsString> = made.iter().collect();
        assert_eq!(distinct.len(), made.len());
        assert!(!names.is(&Input::Path(sums)));
    }

    /// Seeded lines near the shapes of `Shape` (`quick_names_are_the_grammars`).
    struct NearLines(u64);

    impl Default for NearLines {
        fn default() -> NearLines {
            NearLines(0x9e37_79b9_7f4a_7c15)
        }
    }

    impl NearLines {
        const PIECES: [&[u8]; 16] = [
            b"d41d8cd98f00b204e9800998ecf8427e",
            b"D41D8CD98F00B204E9800998ECF8427E",
            b"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
            b"0123",
            b"g",
            b" ",
            b"  ",
            b" *",
            b"*",
            b"\t",
            b"MD5 (",
            b"BLAKE2b-256 (",
            b") = ",
            b")",
            b"\0",
            b"\\",
        ];
        const NAMES: [&[u8]; 6] = [b"a", b"d/e f", b"x) = y", b"(", b"\r", b"\xff"];

        /// A number below `n` (xorshift).
        fn next(&mut self, n: usize) -> usize {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 % n as u64) as usize
        }

        /// One of the pieces `of` (indexes into [`Self::PIECES`]).
        fn piece(&mut self, of: &[usize]) -> &'static [u8] {
            Self::PIECES[of[self.next(of.len())]]
        }

        /// A line, most of the time near `format`'s: a start, names, an end.
        fn near(&mut self, format: LineFormat) -> Vec<u8> {
            let (starts, ends): (&[usize], &[usize]) = match format {
                LineFormat::Gnu { .. } => (&[0, 1, 2, 3], &[5, 6, 7, 8]),
                LineFormat::Tagged => (&[10, 11, 5], &[0, 1, 2, 3]),
            };
            let mut body = self.piece(starts).to_vec();
            if let LineFormat::Gnu { .. } = format {
                body.extend_from_slice(self.piece(ends));
            }
            for _ in 0..self.next(4) {
                let part = match self.next(3) {
                    0 => self.piece(&[0, 3, 5, 7, 9, 12, 13, 14, 15]),
                    _ => Self::NAMES[self.next(Self::NAMES.len())],
                };
                body.extend_from_slice(part);
            }
            if let LineFormat::Tagged = format {
                body.extend_from_slice(self.piece(&[12, 13, 5]));
                body.extend_from_slice(self.piece(ends));
            }
            body
        }
    }

    /// Over seeded lines near each shape (hex of other lengths and cases,
    /// other blanks and markers, names with `)`, ` = `, NUL, `\\`, CR),
    /// a line `Shape` reads is one the grammar reads the same.
    #[test]
    fn quick_names_are_the_grammars() {
        let b256 = Algorithm::Blake2b(Bits::MAX).with_length(256).unwrap();
        let firsts: [(&[u8], Algorithm, LineFormat); 6] = [
            (
                b"d41d8cd98f00b204e9800998ecf8427e  a",
                Algorithm::Md5,
                LineFormat::Gnu { binary: false },
            ),
            (
                b"d41d8cd98f00b204e9800998ecf8427e *a",
                Algorithm::Md5,
                LineFormat::Gnu { binary: true },
            ),
            (
                b"MD5 (a) = d41d8cd98f00b204e9800998ecf8427e",
                Algorithm::Md5,
                LineFormat::Tagged,
            ),
            (
                b"MD5(a) = d41d8cd98f00b204e9800998ecf8427e",
                Algorithm::Md5,
                LineFormat::Tagged,
            ),
            (&[b'0'; 64], b256, LineFormat::Gnu { binary: false }),
            (b"BLAKE2b-256 (a) = 0", b256, LineFormat::Tagged),
        ];
        let mut lines = NearLines::default();
        let mut read = 0;
        for (first, algo, format) in firsts {
            let shape = Shape::of(first, algo, format).expect("a shape");
            for _ in 0..20_000 {
                let body = lines.near(format);
                let Some(name) = shape.name(&body) else {
                    continue;
                };
                read += 1;
                let grammar = checksum_line(&body, Some((algo, format)), None, algo, false);
                let Some(Ok((a, f, n))) = grammar else {
                    panic!("{:?}: read, not a line", String::from_utf8_lossy(&body));
                };
                assert_eq!(
                    (a, f, &n),
                    (algo, format, &name),
                    "{:?}",
                    String::from_utf8_lossy(&body)
                );
            }
        }
        assert!(read > 1000, "only {read} lines of the shapes");
    }

    #[test]
    fn hex_digits_are_asciis() {
        for b in 0..=u8::MAX {
            assert_eq!(all_hex(&[b]), b.is_ascii_hexdigit(), "{b}");
            assert_eq!(all_hex(&[b'a', b, b'0']), b.is_ascii_hexdigit(), "{b}");
        }
    }

    #[test]
    fn under_is_the_root_or_below_it() {
        let roots = [b"/w/d".to_vec(), b"/".to_vec()];
        assert!(under(&roots[..1], b"/w/d"));
        assert!(under(&roots[..1], b"/w/d/a"));
        assert!(!under(&roots[..1], b"/w/dd"));
        assert!(!under(&roots[..1], b"/w"));
        assert!(under(&roots[1..], b"/x"));
    }
}
