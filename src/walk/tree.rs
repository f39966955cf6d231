//! The walk of one operand in order: a stack of sorted listings, read
//! here or taken from the readers once directories prove slow to list.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::listing::{Ancestors, Child, Key, Listing, Rules, child_key};
use super::readers::Readers;
use super::{Entry, Walk};
use crate::input::Input;
use crate::storage::observer;

/// When a walk starts its readers.
#[derive(Clone, Copy, Debug)]
pub(super) enum Start {
    /// At once (the tests).
    #[cfg(test)]
    Eager,
    /// Once `after` directories have been listed here, if they took more
    /// than `each` on average: a warm tree is listed faster than threads
    /// hand listings over on 2 busy cores, a cold one waits on the disk
    /// (docs/BENCHMARKS.md, "Walking a tree in parallel"). At once, on a
    /// device the storage observer judges far (`crate::storage`: a network
    /// file system, where each listing is round trips).
    WhenSlow { after: u32, each: Duration },
}

impl Start {
    /// The time a listing must wait on the disk to count as slow (none:
    /// listings are not judged).
    fn each(self) -> Duration {
        match self {
            #[cfg(test)]
            Start::Eager => Duration::MAX,
            Start::WhenSlow { each, .. } => each,
        }
    }

    /// A warm directory of this tree lists in ~25 µs, a cold one in ~110.
    pub(super) const WHEN_SLOW: Start = Start::WhenSlow {
        after: 16,
        each: Duration::from_micros(50),
    };
}

/// A directory being walked: its entries not yet walked.
struct Frame {
    dir: PathBuf,
    depth: usize,
    key: Key,
    /// The directory and its ancestors, by identity.
    ancestors: Ancestors,
    children: std::vec::IntoIter<Child>,
    /// `Dir`s met so far (the next one's ordinal).
    dirs: u32,
}

/// The walk of one operand: a stack of sorted listings, walked in order;
/// the listings come from `readers` (read ahead) or are read here.
pub(super) struct Tree {
    rules: Arc<Rules>,
    stack: Vec<Frame>,
    pub(super) readers: Option<Arc<Readers>>,
    /// Readers it may start (the walk's own thread aside).
    threads: usize,
    start: Start,
    /// Directories listed here so far, and the time it took.
    listed: u32,
    spent: Duration,
    /// The device of the operand (the storage observer's judgement of it
    /// starts the readers at once when far); None: not known.
    dev: Option<u64>,
}

impl Tree {
    /// The walk of `root` with up to `threads` directory readers (1:
    /// none), started as `start` says.
    pub(super) fn new(root: PathBuf, walk: &Walk, threads: usize, start: Start) -> Tree {
        let device = if walk.one_file_system {
            crate::sys::FileId::of_path(&root).map(|id| Some(id.device()))
        } else {
            Ok(None)
        };
        let rules = Arc::new(Rules {
            root: root.clone(),
            exclude: walk.exclude.clone(),
            max_depth: walk.max_depth.unwrap_or(usize::MAX),
            device: *device.as_ref().unwrap_or(&None),
            no_prefetch: walk.no_prefetch,
            floor: start.each(),
        });
        let dev = seed(&root);
        let began = Instant::now();
        // depth 0: the operand is not entered
        let listing = device.and_then(|_| match rules.max_depth {
            0 => Ok(Listing {
                children: Vec::new(),
                ancestors: Ancestors::default(),
            }),
            _ => rules.enter(&root, 0, &Ancestors::default()),
        });
        let listing = listing.unwrap_or_else(|e| Listing {
            children: vec![Child::Error(root.clone(), e)],
            ancestors: Ancestors::default(),
        });
        let top = Frame {
            dir: root,
            depth: 0,
            key: Box::new([]),
            ancestors: listing.ancestors,
            children: listing.children.into_iter(),
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
            dev,
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
                let far = self.dev.is_some_and(|d| observer().is_far(d));
                if !far && (self.listed < after || self.spent < each * self.listed) {
                    return;
                }
            }
        }
        let readers = Readers::start(&self.rules, self.threads, self.dev);
        let mut state = readers.lock();
        for frame in &self.stack {
            let dirs = frame.children.as_slice().iter().filter_map(|c| match c {
                Child::Dir(name) => Some(name),
                _ => None,
            });
            for (ordinal, name) in (frame.dirs..).zip(dirs) {
                let job = (
                    frame.dir.join(name),
                    frame.depth + 1,
                    frame.ancestors.clone(),
                );
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

/// The device of directory `root`, seeded in the storage observer by what
/// its file system is (None: it cannot be opened or asked).
fn seed(root: &std::path::Path) -> Option<u64> {
    let dir = std::fs::File::open(root).ok()?;
    let meta = dir.metadata().ok()?;
    let dev = crate::sys::device(&meta);
    observer().seed(dev, crate::sys::attributes_cached(&dir, &meta));
    Some(dev)
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
                            let (listing, waited) =
                                self.rules.enter_timed(&dir, depth, &frame.ancestors);
                            self.listed += 1;
                            // (what it waited on the disk: a busy CPU is not
                            // a cold tree)
                            self.spent += waited;
                            listing
                        }
                    };
                    match listing {
                        Ok(listing) => {
                            self.stack.push(Frame {
                                dir,
                                depth,
                                key,
                                ancestors: listing.ancestors,
                                children: listing.children.into_iter(),
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
