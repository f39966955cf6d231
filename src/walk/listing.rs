//! One directory's listing: what the walk does with each of its entries,
//! the key that orders it among the walk's directories, and the prefetch
//! of its files' first bytes while the walk is behind.

use std::ffi::OsString;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use super::Exclude;
use crate::storage::{Request, Timer, observer};
use crate::sys::FileId;

/// What a walk keeps out, and from where it starts; shared by its readers.
#[derive(Debug)]
pub(super) struct Rules {
    /// The operand, as given (paths are built on it, excludes matched
    /// relative to it).
    pub(super) root: PathBuf,
    pub(super) exclude: Exclude,
    /// `--max-depth` (`usize::MAX`: none).
    pub(super) max_depth: usize,
    /// `--one-file-system`: the operand's device.
    pub(super) device: Option<u64>,
    /// No prefetch of its files ([`Walk::no_prefetch`](super::Walk)).
    pub(super) no_prefetch: bool,
    /// A request that takes longer than this has its thread's wait for a
    /// core taken off what it cost ([`Timer::waited_beyond`]): the
    /// threshold the walk judges its own listings by.
    pub(super) floor: Duration,
}

/// An entry of a listed directory, in output order.
#[derive(Debug)]
pub(super) enum Child {
    /// A regular file: its name.
    File(OsString),
    /// A directory to walk: its name. Its listing's key is its parent's
    /// key and the count of `Dir`s before it in the parent.
    Dir(OsString),
    /// An entry that could not be looked at.
    Error(PathBuf, io::Error),
}

/// A directory's listing, and the directories from the operand down to it.
#[derive(Debug)]
pub(super) struct Listing {
    pub(super) children: Vec<Child>,
    /// The directory itself and its ancestors: what its subdirectories are
    /// entered under.
    pub(super) ancestors: Ancestors,
}

/// The directories from the operand down to one being walked, by identity
/// (`sys::FileId`: device and inode, or volume serial and file index),
/// innermost first. A directory met again below itself (a bind mount of an
/// ancestor; on Windows a link or junction that the walk cannot tell from a
/// directory, as Wine presents a Unix symlink) is a loop, which is
/// reported, not entered: the walk ends on any tree.
#[derive(Clone, Debug, Default)]
pub(super) struct Ancestors(Option<Arc<Ancestor>>);

/// One directory of [`Ancestors`].
#[derive(Debug)]
pub(super) struct Ancestor {
    id: FileId,
    /// As the walk names it, for the message of a loop.
    path: PathBuf,
    up: Ancestors,
}

impl Ancestors {
    /// `dir` entered below these: its chain, or the error of a loop when
    /// it is one of them (GNU find's words).
    pub(super) fn enter(&self, dir: &Path) -> io::Result<Ancestors> {
        let id = FileId::of_path(dir)?;
        let mut up = self.0.as_deref();
        while let Some(a) = up {
            if a.id == id {
                return Err(io::Error::other(format!(
                    "File system loop detected; it is part of the same file system loop as '{}'",
                    a.path.display()
                )));
            }
            up = a.up.0.as_deref();
        }
        Ok(Ancestors(Some(Arc::new(Ancestor {
            id,
            path: dir.to_path_buf(),
            up: self.clone(),
        }))))
    }
}

/// A directory's place in the walk: the ordinals of the directories from
/// the operand down. Keys compare as the walk meets the directories
/// (preorder), so the readers take the soonest needed first.
pub(super) type Key = Box<[u32]>;

/// The key of the `ordinal`th directory walked in the directory `parent`.
pub(super) fn child_key(parent: &[u32], ordinal: u32) -> Key {
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
pub(super) fn prefetch(dir: &Path, children: &[Child]) {
    for child in children {
        if let Child::File(name) = child {
            crate::sys::prefetch(&dir.join(name), PREFETCH);
        }
    }
}

impl Rules {
    /// Enter `dir` (at `depth` below the operand, below `up`): its listing
    /// (see [`Rules::list`]), unless it is one of `up` (a loop: an error).
    pub(super) fn enter(&self, dir: &Path, depth: usize, up: &Ancestors) -> io::Result<Listing> {
        self.enter_timed(dir, depth, up).0
    }

    /// [`Rules::enter`], and what its requests (the directory's stat, its
    /// listing) waited on the device: each is timed for the storage
    /// observer, whichever thread makes it (the walk's, a reader).
    pub(super) fn enter_timed(
        &self,
        dir: &Path,
        depth: usize,
        up: &Ancestors,
    ) -> (io::Result<Listing>, Duration) {
        let timer = Timer::start();
        let entered = up.enter(dir);
        let stat = timer.waited_beyond(self.floor);
        let mut waited = stat.unwrap_or_default();
        let ancestors = match entered {
            Ok(a) => a,
            Err(e) => return (Err(e), waited),
        };
        // (the directory's stat: its identity, which the loop check asks)
        let dev = ancestors.0.as_ref().map(|a| a.id.device());
        if let Some(dev) = dev {
            observer().saw(dev, Request::Stat, stat);
        }
        let timer = Timer::start();
        let children = self.list(dir, depth);
        let listing = timer.waited_beyond(self.floor);
        waited += listing.unwrap_or_default();
        if let (Ok(_), Some(dev)) = (&children, dev) {
            observer().saw(dev, Request::Listing, listing);
        }
        let listing = children.map(|children| Listing {
            children,
            ancestors,
        });
        (listing, waited)
    }

    /// Read `dir` (at `depth` below the operand) into what the walk does
    /// with each entry, as the sequential walk has always done it (walkdir
    /// sorted by name bytes): entries that cannot be read first, in
    /// directory order, then the others sorted; a directory on another
    /// file system, excluded or at the depth limit is not walked.
    fn list(&self, dir: &Path, depth: usize) -> io::Result<Vec<Child>> {
        let mut errors = Vec::new();
        let mut named = Vec::new();
        // (counted and patient as an input's open: `ulimit -n`)
        for item in &mut *crate::input::descriptors::read_dir(dir)? {
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
        named.sort_unstable_by(|a, b| a.0.as_encoded_bytes().cmp(b.0.as_encoded_bytes()));
        let depth = depth + 1;
        let mut children = errors;
        children.reserve(named.len());
        for (name, is_dir) in named {
            if is_dir {
                if let Some(device) = self.device {
                    let path = dir.join(&name);
                    match crate::sys::FileId::of_path(&path) {
                        Ok(id) if id.device() != device => continue,
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
