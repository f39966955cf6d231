//! From FILE arguments to inputs: `-` is stdin, a path is a file, and with
//! `-r` a directory is walked (lazily, so hashing starts at once and memory
//! stays small whatever the tree).
//!
//! The walk lists what `find DIR -type f` lists, in a deterministic order:
//! entries sorted by name (bytes), symbolic links met during the walk not
//! followed (neither to files nor to directories), FIFOs, sockets and devices
//! skipped without being opened (a FIFO would hang the run). A link named on
//! the command line is followed, as find does for its starting points with
//! `-H`. Entries that cannot be read are reported and the walk goes on.
//!
//! Once directories prove slow to list (a cold tree), they are read ahead
//! on threads (`FASTSUM_WALK_THREADS`, default 8; 1: never), the soonest
//! needed first and at most [`READ_AHEAD`] ahead; the output is the same,
//! entry for entry, as the sequential walk's (walkdir's, which the unit
//! tests still compare with).
//!
//! What is walked: `--exclude` patterns (gitignore syntax, matched against
//! the path relative to the directory operand; an excluded directory is not
//! entered), `--max-depth` (1: the operand's own entries) and
//! `--one-file-system` (directories on another file system are not entered).

use std::collections::{BTreeMap, HashMap};
use std::ffi::OsString;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use ignore::gitignore::{Gitignore, GitignoreBuilder};

use crate::input::Input;

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
    files.into_iter().flat_map(move |arg| {
        let input = Input::from_arg(arg);
        let walk_root = match &input {
            Input::Path(p) if walk.recursive && p.is_dir() => Some(p.clone()),
            _ => None,
        };
        let (single, entries) = match walk_root {
            Some(root) => (None, Some(walk_dir(root, &walk))),
            None => (Some(Entry::Input(input)), None),
        };
        single.into_iter().chain(entries.into_iter().flatten())
    })
}

/// The regular files under `root`, as `find root -type f` names them,
/// sorted by name at each level, less what `walk` leaves out; directories
/// read ahead on `walk_threads()` threads.
fn walk_dir(root: PathBuf, walk: &Walk) -> impl Iterator<Item = Entry> + Send + use<> {
    Tree::new(root, walk, walk_threads(), Start::WHEN_SLOW)
}

/// When a walk starts its readers.
#[derive(Clone, Copy, Debug)]
enum Start {
    /// At once (the tests).
    #[cfg(test)]
    Eager,
    /// Once `after` directories have been listed here, if they took more
    /// than `each` on average: a warm tree is listed faster than threads
    /// hand listings over on 2 busy cores, a cold one waits on the disk
    /// (docs/BENCHMARKS.md, "Walking a tree in parallel").
    WhenSlow { after: u32, each: Duration },
}

impl Start {
    /// A warm directory of this tree lists in ~25 µs, a cold one in ~110.
    const WHEN_SLOW: Start = Start::WhenSlow {
        after: 16,
        each: Duration::from_micros(50),
    };
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

/// How many directories the readers may list ahead of the walk's output
/// (read, or being read, not yet walked): bounds memory on any tree.
const READ_AHEAD: usize = 512;

/// What a walk keeps out, and from where it starts; shared by its readers.
#[derive(Debug)]
struct Rules {
    /// The operand, as given (paths are built on it, excludes matched
    /// relative to it).
    root: PathBuf,
    exclude: Exclude,
    /// `--max-depth` (`usize::MAX`: none).
    max_depth: usize,
    /// `--one-file-system`: the operand's device.
    device: Option<u64>,
}

/// An entry of a listed directory, in output order.
#[derive(Debug)]
enum Child {
    /// A regular file: its name.
    File(OsString),
    /// A directory to walk: its name. Its listing's key is its parent's
    /// key and the count of `Dir`s before it in the parent.
    Dir(OsString),
    /// An entry that could not be looked at.
    Error(PathBuf, io::Error),
}

/// A directory's place in the walk: the ordinals of the directories from
/// the operand down. Keys compare as the walk meets the directories
/// (preorder), so the readers take the soonest needed first.
type Key = Box<[u32]>;

/// The key of the `ordinal`th directory walked in the directory `parent`.
fn child_key(parent: &[u32], ordinal: u32) -> Key {
    let mut key = Vec::with_capacity(parent.len() + 1);
    key.extend_from_slice(parent);
    key.push(ordinal);
    key.into_boxed_slice()
}

/// How much of each file a reader asks the kernel to read ahead.
const PREFETCH: u64 = 256 << 10;

/// Ask the kernel to start reading the files of a listing (their inodes and
/// first [`PREFETCH`] bytes) while the walk is still behind: readers run
/// only on a tree that lists slowly (a cold one), where the opens and reads
/// that follow, one at a time, would each wait for the disk; with the
/// readers' several requests in flight they find the cache warm
/// (docs/BENCHMARKS.md, "Walking a tree in parallel"). Only a hint: any
/// failure is ignored, and the walk and the hashing go on as they would.
fn prefetch(dir: &Path, children: &[Child]) {
    for child in children {
        if let Child::File(name) = child {
            crate::sys::prefetch(&dir.join(name), PREFETCH);
        }
    }
}

impl Rules {
    /// Read `dir` (at `depth` below the operand) into what the walk does
    /// with each entry, as the sequential walk has always done it (walkdir
    /// sorted by name bytes): entries that cannot be read first, in
    /// directory order, then the others sorted; a directory on another
    /// file system, excluded or at the depth limit is not walked.
    fn list(&self, dir: &Path, depth: usize) -> io::Result<Vec<Child>> {
        let mut errors = Vec::new();
        let mut named = Vec::new();
        for item in std::fs::read_dir(dir)? {
            // d_type, or an lstat where the file system gives none
            match item.and_then(|e| Ok((e.file_type()?, e))) {
                Ok((kind, e)) if kind.is_file() || kind.is_dir() => {
                    named.push((e.file_name(), kind.is_dir()));
                }
                Ok(_) => {}
                // walkdir named no path for a failed readdir: the operand
                Err(e) => errors.push(Child::Error(self.root.clone(), e)),
            }
        }
        named.sort_unstable_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
        let depth = depth + 1;
        let mut children = errors;
        children.reserve(named.len());
        for (name, is_dir) in named {
            if is_dir {
                if let Some(device) = self.device {
                    let path = dir.join(&name);
                    match std::fs::metadata(&path) {
                        Ok(m) if std::os::unix::fs::MetadataExt::dev(&m) != device => continue,
                        Ok(_) => {}
                        Err(e) => {
                            children.push(Child::Error(path, e));
                            continue;
                        }
                    }
                }
                if !self.excluded(dir, &name, true) && depth < self.max_depth {
                    children.push(Child::Dir(name));
                }
            } else if !self.excluded(dir, &name, false) {
                children.push(Child::File(name));
            }
        }
        Ok(children)
    }

    /// Is `dir/name` excluded?
    fn excluded(&self, dir: &Path, name: &std::ffi::OsStr, is_dir: bool) -> bool {
        if self.exclude.0.is_none() {
            return false;
        }
        let path = dir.join(name);
        let rel = path.strip_prefix(&self.root).unwrap_or(&path);
        self.exclude.excludes(rel, is_dir)
    }
}

/// A directory being walked: its entries not yet walked.
struct Frame {
    dir: PathBuf,
    depth: usize,
    key: Key,
    children: std::vec::IntoIter<Child>,
    /// `Dir`s met so far (the next one's ordinal).
    dirs: u32,
}

/// The walk of one operand: a stack of sorted listings, walked in order;
/// the listings come from `readers` (read ahead) or are read here.
struct Tree {
    rules: Arc<Rules>,
    stack: Vec<Frame>,
    readers: Option<Arc<Readers>>,
    /// Readers it may start (the walk's own thread aside).
    threads: usize,
    start: Start,
    /// Directories listed here so far, and the time it took.
    listed: u32,
    spent: Duration,
}

impl Tree {
    /// The walk of `root` with up to `threads` directory readers (1:
    /// none), started as `start` says.
    fn new(root: PathBuf, walk: &Walk, threads: usize, start: Start) -> Tree {
        let device = if walk.one_file_system {
            std::fs::metadata(&root).map(|m| Some(std::os::unix::fs::MetadataExt::dev(&m)))
        } else {
            Ok(None)
        };
        let rules = Arc::new(Rules {
            root: root.clone(),
            exclude: walk.exclude.clone(),
            max_depth: walk.max_depth.unwrap_or(usize::MAX),
            device: *device.as_ref().unwrap_or(&None),
        });
        let began = Instant::now();
        // depth 0: the operand is not entered
        let listing = device.and_then(|_| match rules.max_depth {
            0 => Ok(Vec::new()),
            _ => rules.list(&root, 0),
        });
        let children = listing.unwrap_or_else(|e| vec![Child::Error(root.clone(), e)]);
        let top = Frame {
            dir: root,
            depth: 0,
            key: Box::new([]),
            children: children.into_iter(),
            dirs: 0,
        };
        let mut tree = Tree {
            rules,
            stack: vec![top],
            readers: None,
            threads: threads.saturating_sub(1),
            start,
            listed: 1,
            spent: began.elapsed(),
        };
        tree.maybe_start_readers();
        tree
    }

    /// Start the readers if `start` says it is time, with every directory
    /// the walk has still to enter queued for them.
    fn maybe_start_readers(&mut self) {
        if self.readers.is_some() || self.threads == 0 {
            return;
        }
        match self.start {
            #[cfg(test)]
            Start::Eager => {}
            Start::WhenSlow { after, each } => {
                if self.listed < after || self.spent < each * self.listed {
                    return;
                }
            }
        }
        let readers = Readers::start(&self.rules, self.threads);
        let mut state = readers.lock();
        for frame in &self.stack {
            let dirs = frame.children.as_slice().iter().filter_map(|c| match c {
                Child::Dir(name) => Some(name),
                _ => None,
            });
            for (ordinal, name) in (frame.dirs..).zip(dirs) {
                let job = (frame.dir.join(name), frame.depth + 1);
                state.pending.insert(child_key(&frame.key, ordinal), job);
            }
        }
        if state.pending.is_empty() {
            // nothing to read ahead yet: try again later
            return;
        }
        readers.grow(&mut state);
        drop(state);
        self.readers = Some(readers);
    }
}

impl Iterator for Tree {
    type Item = Entry;

    fn next(&mut self) -> Option<Entry> {
        loop {
            let frame = self.stack.last_mut()?;
            match frame.children.next() {
                None => {
                    self.stack.pop();
                }
                Some(Child::File(name)) => {
                    return Some(Entry::Input(Input::Path(frame.dir.join(name))));
                }
                Some(Child::Error(path, e)) => return Some(Entry::Error(path, e)),
                Some(Child::Dir(name)) => {
                    let key = child_key(&frame.key, frame.dirs);
                    frame.dirs += 1;
                    let dir = frame.dir.join(name);
                    let depth = frame.depth + 1;
                    let listing = match &self.readers {
                        Some(readers) => readers.take(&key),
                        None => {
                            let began = Instant::now();
                            let listing = self.rules.list(&dir, depth);
                            self.listed += 1;
                            self.spent += began.elapsed();
                            listing
                        }
                    };
                    match listing {
                        Ok(children) => {
                            self.stack.push(Frame {
                                dir,
                                depth,
                                key,
                                children: children.into_iter(),
                                dirs: 0,
                            });
                            self.maybe_start_readers();
                        }
                        Err(e) => return Some(Entry::Error(dir, e)),
                    }
                }
            }
        }
    }
}

impl Drop for Tree {
    fn drop(&mut self) {
        if let Some(readers) = &self.readers {
            readers.close();
        }
    }
}

/// Threads that read directories ahead of the walk, soonest needed first.
struct Readers {
    rules: Arc<Rules>,
    state: Mutex<Ahead>,
    /// A directory to read, room ahead, or the end: for the readers.
    work: Condvar,
    /// A listing is ready: for the walk.
    ready: Condvar,
}

/// The read-ahead's state.
#[derive(Default)]
struct Ahead {
    /// Directories to read (path, depth), in walk order.
    pending: BTreeMap<Key, (PathBuf, usize)>,
    /// Directories read, not yet walked.
    done: HashMap<Key, io::Result<Vec<Child>>>,
    /// Listings being read or read, not yet walked (at most
    /// [`READ_AHEAD`]).
    ahead: usize,
    /// The walk is over (or dropped): the readers end.
    closed: bool,
    /// Readers not reading a directory.
    idle: usize,
    /// The directory the walk waits for.
    wanted: Option<Key>,
    /// Readers that may still be started.
    room: usize,
}

impl Readers {
    /// Up to `threads` readers, started as directories wait for one (a
    /// small tree, or many small operands, start few).
    fn start(rules: &Arc<Rules>, threads: usize) -> Arc<Readers> {
        Arc::new(Readers {
            rules: Arc::clone(rules),
            state: Mutex::new(Ahead {
                room: threads,
                ..Ahead::default()
            }),
            work: Condvar::new(),
            ready: Condvar::new(),
        })
    }

    /// Start readers while more directories wait than the free readers
    /// and the walk itself (which reads the soonest one when no reader has
    /// taken it) would take: a chain of single subdirectories, or a small
    /// operand, starts none. None either if threads cannot be spawned.
    fn grow(self: &Arc<Self>, state: &mut Ahead) {
        while state.room > 0 && state.idle + 1 < state.pending.len() {
            let r = Arc::clone(self);
            let spawned = std::thread::Builder::new()
                .name("walk".into())
                .spawn(move || r.read());
            if spawned.is_err() {
                state.room = 0;
                return;
            }
            state.room -= 1;
            state.idle += 1;
        }
    }

    fn lock(&self) -> MutexGuard<'_, Ahead> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Queue the directories to walk among `children` of `dir` (key `key`).
    fn schedule(self: &Arc<Self>, key: &[u32], dir: &Path, depth: usize, children: &[Child]) {
        let mut state = self.lock();
        let queued = Self::queue(&mut state, key, dir, depth, children);
        self.grow(&mut state);
        drop(state);
        self.wake(queued);
    }

    /// Queue them; how many.
    fn queue(state: &mut Ahead, key: &[u32], dir: &Path, depth: usize, children: &[Child]) -> u32 {
        let dirs = children.iter().filter_map(|c| match c {
            Child::Dir(name) => Some(name),
            _ => None,
        });
        let mut queued = 0;
        for name in dirs {
            state
                .pending
                .insert(child_key(key, queued), (dir.join(name), depth + 1));
            queued += 1;
        }
        queued
    }

    /// Wake up to `n` idle readers, one for each directory queued (not
    /// all of them for each).
    fn wake(&self, n: u32) {
        for _ in 0..n.min(READERS_MAX) {
            self.work.notify_one();
        }
    }

    /// A reader: take the soonest needed directory while there is room
    /// ahead, list it, queue its subdirectories.
    fn read(self: &Arc<Self>) {
        let mut state = self.lock();
        loop {
            if state.closed {
                return;
            }
            let job = if state.ahead < READ_AHEAD {
                state.pending.pop_first()
            } else {
                None
            };
            let Some((key, (dir, depth))) = job else {
                state = self
                    .work
                    .wait(state)
                    .unwrap_or_else(PoisonError::into_inner);
                continue;
            };
            state.ahead += 1;
            state.idle -= 1;
            drop(state);
            let listing = self.rules.list(&dir, depth);
            if let Ok(children) = &listing {
                prefetch(&dir, children);
            }
            state = self.lock();
            state.idle += 1;
            let mut queued = 0;
            if let Ok(children) = &listing {
                queued = Self::queue(&mut state, &key, &dir, depth, children);
                self.grow(&mut state);
            }
            if state.wanted.as_deref() == Some(&*key) {
                self.ready.notify_one();
            }
            state.done.insert(key, listing);
            // this reader takes one of them
            self.wake(queued.saturating_sub(1));
        }
    }

    /// The listing of the directory `key`: read ahead, being read (wait
    /// for it), or not taken yet (read it here).
    fn take(self: &Arc<Self>, key: &[u32]) -> io::Result<Vec<Child>> {
        let mut state = self.lock();
        loop {
            if let Some(listing) = state.done.remove(key) {
                state.wanted = None;
                let was_full = state.ahead == READ_AHEAD;
                state.ahead -= 1;
                drop(state);
                if was_full {
                    self.work.notify_one();
                }
                return listing;
            }
            if let Some((dir, depth)) = state.pending.remove(key) {
                drop(state);
                let listing = self.rules.list(&dir, depth);
                if let Ok(children) = &listing {
                    self.schedule(key, &dir, depth, children);
                }
                return listing;
            }
            // a reader has it
            state.wanted = Some(key.into());
            state = self
                .ready
                .wait(state)
                .unwrap_or_else(PoisonError::into_inner);
        }
    }

    /// The walk is over: the readers end (a reader in a read ends after it).
    fn close(&self) {
        self.lock().closed = true;
        self.work.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use std::ffi::OsStr;

    use super::*;

    fn names(files: &[&Path], recursive: bool) -> Vec<String> {
        let walk = Walk {
            recursive,
            ..Walk::default()
        };
        expand(
            files.iter().map(|p| p.as_os_str().to_owned()).collect(),
            &walk,
        )
        .map(|e| match e {
            Entry::Input(i) => String::from_utf8_lossy(i.name()).into_owned(),
            Entry::Error(p, e) => format!("ERR {} {e}", p.display()),
        })
        .collect()
    }

    #[test]
    fn walks_sorted_skipping_links_and_fifos() {
        let t = tempfile::tempdir().unwrap();
        let d = t.path().join("d");
        std::fs::create_dir_all(d.join("sub")).unwrap();
        for f in ["b", "a", "sub/c", "B"] {
            std::fs::write(d.join(f), f).unwrap();
        }
        std::os::unix::fs::symlink(d.join("a"), d.join("link")).unwrap();
        std::os::unix::fs::symlink(&d, d.join("sub/loop")).unwrap();
        let fifo = std::ffi::CString::new(d.join("fifo").as_os_str().as_bytes()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o644) }, 0);
        let got = names(&[&d], true);
        let base = d.display().to_string();
        let want: Vec<String> = ["B", "a", "b", "sub/c"]
            .iter()
            .map(|f| format!("{base}/{f}"))
            .collect();
        assert_eq!(got, want);
        // without -r the directory is passed on (and fails to read later, as GNU)
        assert_eq!(names(&[&d], false), vec![base.clone()]);
        // a link named on the command line is followed
        assert_eq!(names(&[&d.join("sub/loop")], true).len(), 4);
    }

    /// The walk as it was before the read-ahead (walkdir, sorted by name
    /// bytes): the oracle the walk must match, entry for entry.
    fn walkdir_walk(root: &Path, walk: &Walk) -> Vec<Entry> {
        let mut dir = walkdir::WalkDir::new(root)
            .follow_links(false)
            .follow_root_links(true)
            .same_file_system(walk.one_file_system)
            .sort_by(|a, b| a.file_name().as_bytes().cmp(b.file_name().as_bytes()));
        if let Some(depth) = walk.max_depth {
            dir = dir.max_depth(depth);
        }
        let exclude = walk.exclude.clone();
        dir.into_iter()
            .filter_entry(move |e| {
                let rel = e.path().strip_prefix(root).unwrap_or(e.path());
                e.depth() == 0 || !exclude.excludes(rel, e.file_type().is_dir())
            })
            .filter_map(move |item| match item {
                Ok(e) if e.file_type().is_file() => Some(Entry::Input(Input::Path(e.into_path()))),
                Ok(_) => None,
                Err(e) => {
                    let path = e
                        .path()
                        .map_or_else(|| root.to_path_buf(), Path::to_path_buf);
                    let io = e
                        .into_io_error()
                        .unwrap_or_else(|| io::Error::other("filesystem loop"));
                    Some(Entry::Error(path, io))
                }
            })
            .collect()
    }

    /// Entries as bytes: a path, or `ERR path: message`.
    fn shown(entries: impl IntoIterator<Item = Entry>) -> Vec<Vec<u8>> {
        entries
            .into_iter()
            .map(|e| match e {
                Entry::Input(i) => i.name().to_vec(),
                Entry::Error(p, e) => [
                    b"ERR ",
                    p.as_os_str().as_bytes(),
                    b": ",
                    e.to_string().as_bytes(),
                ]
                .concat(),
            })
            .collect()
    }

    /// The walk of `root` with `threads` readers, started at once, after
    /// a few directories or (warm) never, equals walkdir's, for each of
    /// `walks`; returns the default walk's entries.
    fn same_as_walkdir(root: &Path, walks: &[Walk]) -> Vec<Vec<u8>> {
        let after_3 = Start::WhenSlow {
            after: 3,
            each: Duration::ZERO,
        };
        for walk in walks {
            let want = shown(walkdir_walk(root, walk));
            for (threads, start) in [1, 2, 3, 8]
                .into_iter()
                .flat_map(|n| [(n, Start::Eager), (n, after_3), (n, Start::WHEN_SLOW)])
            {
                let got = shown(Tree::new(root.to_path_buf(), walk, threads, start));
                assert_eq!(
                    got,
                    want,
                    "{threads} threads from {start:?}, {walk:?} under {}",
                    root.display()
                );
            }
        }
        shown(walkdir_walk(root, &walks[0]))
    }

    /// The walks to compare: plain, excludes, depths, one file system.
    fn walks() -> Vec<Walk> {
        let plain = Walk {
            recursive: true,
            ..Walk::default()
        };
        let mut walks = vec![plain.clone()];
        let exclude = Exclude::new(["a*", "!a.b", "d1/", "/e*/**/x", "*\u{e9}"]).unwrap();
        walks.push(Walk {
            exclude,
            ..plain.clone()
        });
        for depth in [0, 1, 2, 3] {
            walks.push(Walk {
                max_depth: Some(depth),
                ..plain.clone()
            });
        }
        walks.push(Walk {
            one_file_system: true,
            ..plain
        });
        walks
    }

    /// Names that sort differently as bytes and as strings or as paths
    /// (`a` before `a b` and `a.b`, but `a/x` after them), escaped ones,
    /// and bytes that are no UTF-8.
    const NAMES: [&[u8]; 16] = [
        b"a",
        b"a b",
        b"a.b",
        b"a-",
        b"a0",
        b"B",
        b"\xc3\xa9",
        b"\xff",
        b"new\nline",
        b"back\\slash",
        b"d1",
        b"e",
        b"x",
        b"_",
        b"~",
        b"\xc3\xa9x",
    ];

    use crate::testing::Rng;

    /// A random tree under `d`: files, directories, links to files and to
    /// an ancestor (a loop if followed), FIFOs, `depth` levels deep.
    fn random_tree(d: &Path, rng: &mut Rng, depth: u32, width: usize) {
        let count = rng.below(width) + 1;
        for _ in 0..count {
            let name = OsStr::from_bytes(NAMES[rng.below(NAMES.len())]);
            let path = d.join(name);
            if path.symlink_metadata().is_ok() {
                continue;
            }
            match rng.below(10) {
                0..=4 => std::fs::write(&path, name.as_bytes()).unwrap(),
                5..=7 if depth > 0 => {
                    std::fs::create_dir(&path).unwrap();
                    random_tree(&path, rng, depth - 1, width);
                }
                8 => std::os::unix::fs::symlink(if rng.below(2) == 0 { "." } else { ".." }, &path)
                    .unwrap(),
                _ => {
                    let c = std::ffi::CString::new(path.as_os_str().as_bytes()).unwrap();
                    // SAFETY: a valid NUL-terminated path.
                    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
                }
            }
        }
    }

    #[test]
    fn random_trees_walk_as_walkdir_walked_them() {
        let walks = walks();
        for seed in 1..=12u64 {
            let t = tempfile::tempdir().unwrap();
            let d = t.path().join("t");
            std::fs::create_dir(&d).unwrap();
            let mut rng = Rng::new(seed);
            // deep and narrow, then shallow and wide
            let (depth, width) = if seed % 2 == 0 { (7, 5) } else { (3, 16) };
            while walkdir_walk(&d, &walks[0]).len() < 5 {
                random_tree(&d, &mut rng, depth, width);
            }
            let all = same_as_walkdir(&d, &walks);
            assert!(all.len() >= 5);
            // an operand named with a trailing slash, and through a link
            let slash = PathBuf::from(format!("{}/", d.display()));
            same_as_walkdir(&slash, &walks);
            std::os::unix::fs::symlink(&d, t.path().join("link")).unwrap();
            let via = names(&[&t.path().join("link")], true);
            assert_eq!(
                via.len(),
                all.len(),
                "seed {seed}: the operand link is followed"
            );
        }
    }

    /// Make the chain `names` of directories below `dir` (with a file in
    /// each), by descriptor: its paths may be longer than PATH_MAX.
    fn deep_chain(dir: &Path, name: &str, levels: usize) {
        let c = |s: &[u8]| std::ffi::CString::new(s).unwrap();
        let top = c(dir.as_os_str().as_bytes());
        // SAFETY: valid NUL-terminated paths; each descriptor is closed.
        unsafe {
            let mut fd = libc::open(top.as_ptr(), libc::O_DIRECTORY | libc::O_RDONLY);
            assert!(fd >= 0);
            for _ in 0..levels {
                let n = c(name.as_bytes());
                assert_eq!(libc::mkdirat(fd, n.as_ptr(), 0o755), 0);
                let f = libc::openat(
                    fd,
                    c(b"file").as_ptr(),
                    libc::O_CREAT | libc::O_WRONLY,
                    0o644,
                );
                assert!(f >= 0);
                libc::close(f);
                let next = libc::openat(fd, n.as_ptr(), libc::O_DIRECTORY | libc::O_RDONLY);
                assert!(next >= 0);
                libc::close(fd);
                fd = next;
            }
            libc::close(fd);
        }
    }

    /// Directories that cannot be read (paths past PATH_MAX: an error even
    /// for root) are reported in their place, as walkdir reported them;
    /// inside an excluded directory, not at all.
    #[test]
    fn unreadable_directories_are_reported_in_place() {
        let t = tempfile::tempdir().unwrap();
        let d = t.path().join("t");
        std::fs::create_dir(&d).unwrap();
        for sub in ["a", "m", "z"] {
            std::fs::create_dir(d.join(sub)).unwrap();
            std::fs::write(d.join(sub).join("f"), b"f").unwrap();
        }
        let long = "n".repeat(250);
        deep_chain(&d.join("m"), &long, 20);
        deep_chain(&d.join("a"), &long, 20);
        let all = same_as_walkdir(&d, &walks());
        let errors: Vec<&Vec<u8>> = all.iter().filter(|e| e.starts_with(b"ERR ")).collect();
        assert_eq!(errors.len(), 2, "one in a, one in m");
        assert!(String::from_utf8_lossy(errors[0]).ends_with("File name too long (os error 36)"));
        // in place: after a's files, before m/f's... and z/f last
        let at = |p: &[u8]| all.iter().position(|e| e.ends_with(p)).unwrap();
        let err_m = all.iter().rposition(|e| e.starts_with(b"ERR ")).unwrap();
        assert!(at(b"/m/f") < err_m && err_m < at(b"/z/f"));
        // excluded, the unreadable directories are not entered: no error
        let walk = Walk {
            recursive: true,
            exclude: Exclude::new(["/a", "m/"]).unwrap(),
            ..Walk::default()
        };
        for threads in [1, 4] {
            let got = shown(Tree::new(d.clone(), &walk, threads, Start::Eager));
            assert_eq!(got.len(), 1, "{threads} threads: {got:?}");
            assert!(got[0].ends_with(b"/z/f"));
        }
    }

    /// The readers stay at most READ_AHEAD directories ahead of the walk,
    /// and the walk's first entries come before the tree is read.
    #[test]
    fn read_ahead_is_bounded() {
        let t = tempfile::tempdir().unwrap();
        let d = t.path();
        let dirs = 3 * READ_AHEAD;
        for i in 0..dirs {
            let sub = d.join(format!("{i:05}"));
            std::fs::create_dir(&sub).unwrap();
            std::fs::write(sub.join("f"), b"").unwrap();
        }
        let walk = Walk {
            recursive: true,
            ..Walk::default()
        };
        let mut tree = Tree::new(d.to_path_buf(), &walk, 4, Start::Eager);
        assert!(matches!(tree.next(), Some(Entry::Input(_))));
        let readers = tree.readers.clone().unwrap();
        // many directories waiting: every reader started
        assert_eq!(readers.lock().room, 0);
        // let the readers run as far ahead as they may
        let mut last = usize::MAX;
        for _ in 0..200 {
            std::thread::sleep(std::time::Duration::from_millis(5));
            let state = readers.lock();
            let left = state.pending.len();
            assert!(state.ahead <= READ_AHEAD && state.done.len() <= READ_AHEAD);
            if left == last {
                break;
            }
            last = left;
        }
        assert!(readers.lock().pending.len() >= dirs - READ_AHEAD - 1);
        assert_eq!(tree.count(), dirs - 1);
        assert!(readers.lock().done.is_empty());
    }

    /// Readers started in the middle of a walk (directories found slow)
    /// take over every directory the walk has still to enter, in order.
    #[test]
    fn readers_started_mid_walk_keep_the_order() {
        let t = tempfile::tempdir().unwrap();
        let d = t.path();
        for i in 0..40 {
            for sub in ["a", "b/c"] {
                let dir = d.join(format!("{i:02}/{sub}"));
                std::fs::create_dir_all(&dir).unwrap();
                std::fs::write(dir.join("f"), b"").unwrap();
            }
        }
        let walk = Walk {
            recursive: true,
            ..Walk::default()
        };
        let start = Start::WhenSlow {
            after: 4,
            each: Duration::ZERO,
        };
        let mut tree = Tree::new(d.to_path_buf(), &walk, 4, start);
        let first = shown(tree.by_ref().take(3));
        assert!(tree.readers.is_some(), "started after 4 directories");
        let rest = shown(tree);
        let want = shown(walkdir_walk(d, &walk));
        assert_eq!([first, rest].concat(), want);
    }

    /// Readers start as directories wait for one: a chain of one
    /// directory below another needs none (the walk reads it), nor does a
    /// directory without subdirectories.
    #[test]
    fn readers_start_as_directories_wait() {
        let t = tempfile::tempdir().unwrap();
        let d = t.path().join("a/b/c");
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(d.join("f"), b"").unwrap();
        let walk = Walk {
            recursive: true,
            ..Walk::default()
        };
        let mut tree = Tree::new(t.path().to_path_buf(), &walk, 8, Start::Eager);
        let readers = tree.readers.clone().unwrap();
        assert!(matches!(tree.next(), Some(Entry::Input(_))));
        assert!(tree.next().is_none());
        assert_eq!(readers.lock().room, 7, "no reader started");
        // no subdirectory: no reader at all
        let mut tree = Tree::new(d, &walk, 8, Start::Eager);
        assert!(tree.readers.is_none());
        assert!(tree.next().is_some());
    }

    #[test]
    fn stdin_and_files_pass_through() {
        let walk = Walk {
            recursive: true,
            ..Walk::default()
        };
        let got: Vec<Vec<u8>> = expand(vec!["-".into(), "x".into()], &walk)
            .map(|e| match e {
                Entry::Input(i) => i.name().to_vec(),
                Entry::Error(..) => b"ERR".to_vec(),
            })
            .collect();
        assert_eq!(got, vec![b"-".to_vec(), b"x".to_vec()]);
    }
}
