//! From FILE arguments to inputs: `-` is stdin, a path is a file, and with
//! `-r` a directory is walked (lazily, so hashing starts at once and memory
//! stays small whatever the tree).
//!
//! The walk lists what `find DIR -type f` lists, in a deterministic order:
//! entries sorted by name (bytes), symbolic links met during the walk not
//! followed (neither to files nor to directories), FIFOs, sockets and devices
//! skipped without being opened (a FIFO would hang the run). A link named on
//! the command line is followed, as find does for its starting points with
//! `-H`. Entries that cannot be read are reported and the walk goes on. A
//! directory met again below itself (by identity: a bind mount of an
//! ancestor, or on Windows a link the walk sees as a directory) is a loop,
//! reported and not entered.
//!
//! Once directories prove slow to list (a cold tree), they are read ahead
//! on threads (`FASTSUM_WALK_THREADS`, default 8; 1: never), the soonest
//! needed first and at most [`READ_AHEAD`](readers::READ_AHEAD) ahead (on
//! a network or FUSE file system as many at once as the storage
//! observer's count of requests in flight there, its files not
//! prefetched); the output is the same, entry for entry, as the
//! sequential walk's
//! (walkdir's, which the unit tests still compare with).
//!
//! What is walked: `--exclude` patterns (gitignore syntax, matched against
//! the path relative to the directory operand; an excluded directory is not
//! entered), `--max-depth` (1: the operand's own entries) and
//! `--one-file-system` (directories on another file system are not entered).
//!
//! The rooms: this file expands the operands and holds the options
//! ([`Walk`], [`Exclude`]); `listing.rs` reads one directory into what the
//! walk does with each entry (and asks the kernel to prefetch its files);
//! `tree.rs` walks one operand in order, a stack of listings; `readers.rs`
//! holds the threads that list directories ahead of it.

mod listing;
mod readers;
#[cfg(test)]
mod tests;
mod tree;

use std::ffi::OsString;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use ignore::gitignore::{Gitignore, GitignoreBuilder};

use crate::input::Input;
use tree::{Start, Tree};

/// One thing the expansion produced: an input to hash, or an error met
/// while walking (reported in its place in the output order).
#[derive(Debug)]
pub(crate) enum Entry {
    /// Hash this.
    Input(Input),
    /// This path could not be walked.
    Error(PathBuf, io::Error),
}

/// How directory operands are walked.
#[derive(Clone, Debug, Default)]
pub(crate) struct Walk {
    /// `-r`: walk directory operands (else they are inputs, and fail).
    pub(crate) recursive: bool,
    /// `--exclude`, `--exclude-from`.
    pub(crate) exclude: Exclude,
    /// `--max-depth`: how deep below the operand (1: its own entries).
    pub(crate) max_depth: Option<usize>,
    /// `--one-file-system`.
    pub(crate) one_file_system: bool,
    /// Open no file to prefetch it (`listing::prefetch`): `--update` of a
    /// manifest with `#meta` lines reads only what changed.
    pub(crate) no_prefetch: bool,
}

/// Exclude patterns, in gitignore syntax (`*.tmp`, `cache/`,
/// `**/node_modules`, `!keep.tmp`), matched against paths relative to the
/// directory operand.
#[derive(Clone, Debug, Default)]
pub(crate) struct Exclude(Option<Arc<Gitignore>>);

/// A pattern that is no valid glob: what is wrong with it.
#[derive(Debug)]
pub(crate) struct BadPattern {
    pub(crate) reason: String,
}

impl Exclude {
    /// The patterns, in order (a later `!pattern` re-includes); `Err`
    /// names the first invalid one.
    pub(crate) fn new<'a>(
        patterns: impl IntoIterator<Item = &'a str>,
    ) -> Result<Exclude, BadPattern> {
        let mut builder = GitignoreBuilder::new("");
        let mut any = false;
        for pattern in patterns {
            builder.add_line(None, pattern).map_err(|e| BadPattern {
                reason: match e {
                    ignore::Error::Glob { err, .. } => err,
                    other => other.to_string(),
                },
            })?;
            any = true;
        }
        if !any {
            return Ok(Exclude(None));
        }
        let set = builder.build().map_err(|e| BadPattern {
            reason: e.to_string(),
        })?;
        Ok(Exclude(Some(Arc::new(set))))
    }

    /// Is `rel` (relative to the operand) excluded?
    fn excludes(&self, rel: &Path, is_dir: bool) -> bool {
        self.0
            .as_ref()
            .is_some_and(|set| set.matched(rel, is_dir).is_ignore())
    }
}

/// Expand FILE arguments into entries, in output order.
pub(crate) fn expand(
    files: Vec<OsString>,
    walk: &Walk,
) -> impl Iterator<Item = Entry> + Send + use<> {
    let walk = walk.clone();
    files
        .into_iter()
        .flat_map(move |arg| expand_one(arg, &walk))
}

/// Expand one FILE argument (or a list's name) into entries, in output
/// order: itself, or with `-r` the files under it.
pub(crate) fn expand_one(arg: OsString, walk: &Walk) -> impl Iterator<Item = Entry> + Send + use<> {
    let input = Input::from_arg(arg);
    let walk_root = match &input {
        Input::Path(p) if walk.recursive && crate::sys::file_path(p).is_dir() => Some(p.clone()),
        _ => None,
    };
    let (single, entries) = match walk_root {
        Some(root) => (None, Some(walk_dir(root, walk))),
        None => (Some(Entry::Input(input)), None),
    };
    single.into_iter().chain(entries.into_iter().flatten())
}

/// The regular files under `root`, as `find root -type f` names them,
/// sorted by name at each level, less what `walk` leaves out; directories
/// read ahead on `walk_threads()` threads.
fn walk_dir(root: PathBuf, walk: &Walk) -> impl Iterator<Item = Entry> + Send + use<> {
    Tree::new(root, walk, walk_threads(), Start::WHEN_SLOW)
}

/// `FASTSUM_WALK_THREADS`: how many threads read directories ahead of the
/// walk (1: none, the sequential walk); unset, empty or not a number from
/// 1 to 256: [`DEFAULT_THREADS`].
fn walk_threads() -> usize {
    static THREADS: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *THREADS.get_or_init(|| {
        std::env::var(THREADS_ENV)
            .ok()
            .and_then(|v| v.parse().ok())
            .filter(|&n| (1..=READERS_MAX as usize).contains(&n))
            .unwrap_or(DEFAULT_THREADS)
    })
}

/// The variable that sets the walk's threads.
const THREADS_ENV: &str = "FASTSUM_WALK_THREADS";

/// Directory readers by default: a cold tree waits on I/O latency, so more
/// reads in flight than cores pay (docs/BENCHMARKS.md, "Walking a tree in
/// parallel").
const DEFAULT_THREADS: usize = 8;

/// The most threads `FASTSUM_WALK_THREADS` may ask for.
const READERS_MAX: u32 = 256;
