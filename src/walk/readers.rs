//! Threads that list directories ahead of the walk, the soonest needed
//! first and at most [`READ_AHEAD`] ahead.

use std::collections::{BTreeMap, HashMap};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};

use super::READERS_MAX;
use super::listing::{Ancestors, Child, Key, Listing, Rules, child_key, prefetch};

/// How many directories the readers may list ahead of the walk's output
/// (read, or being read, not yet walked): bounds memory on any tree.
pub(super) const READ_AHEAD: usize = 512;

/// Threads that read directories ahead of the walk, soonest needed first.
pub(super) struct Readers {
    rules: Arc<Rules>,
    /// The most readers it may start.
    threads: usize,
    /// The operand's device (None: not known): on a far one, as many
    /// listings are in flight as the storage observer's count for it.
    dev: Option<u64>,
    state: Mutex<Ahead>,
    /// A directory to read, room ahead, or the end: for the readers.
    work: Condvar,
    /// A listing is ready: for the walk.
    ready: Condvar,
}

/// The read-ahead's state.
#[derive(Default)]
pub(super) struct Ahead {
    /// Directories to read (path, depth, the ancestors they are entered
    /// below), in walk order.
    pub(super) pending: BTreeMap<Key, (PathBuf, usize, Ancestors)>,
    /// Directories read, not yet walked.
    pub(super) done: HashMap<Key, io::Result<Listing>>,
    /// Listings being read or read, not yet walked (at most
    /// [`READ_AHEAD`]).
    pub(super) ahead: usize,
    /// The walk is over (or dropped): the readers end.
    closed: bool,
    /// Readers not reading a directory.
    idle: usize,
    /// Readers reading a directory (listings in flight).
    listing: usize,
    /// The directory the walk waits for.
    wanted: Option<Key>,
    /// Readers that may still be started.
    pub(super) room: usize,
}

impl Readers {
    /// Up to `threads` readers, started as directories wait for one (a
    /// small tree, or many small operands, start few); on a far device
    /// `dev`, no more listings in flight than its count.
    pub(super) fn start(rules: &Arc<Rules>, threads: usize, dev: Option<u64>) -> Arc<Readers> {
        Arc::new(Readers {
            rules: Arc::clone(rules),
            threads,
            dev,
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
    pub(super) fn grow(self: &Arc<Self>, state: &mut Ahead) {
        let most = self.at_once();
        while state.room > 0
            && state.idle + 1 < state.pending.len()
            && self.threads - state.room < most
        {
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

    /// How many listings to keep in flight now: `threads`, or on a
    /// network or FUSE file system the storage observer's count for it
    /// (`Storage::listings_at_once`), which it learns as the run goes.
    fn at_once(&self) -> usize {
        match self.dev {
            Some(dev) => crate::storage::observer().listings_at_once(dev, self.threads),
            None => self.threads,
        }
    }

    /// Is the operand on a network or FUSE file system? Then its files are
    /// not prefetched: each prefetch's open and close are round trips
    /// there, made one after another before the listing is handed on, and
    /// a client that drops a file's cached pages when it is opened again
    /// (sshfs's default) keeps nothing of what was read ahead
    /// (docs/BENCHMARKS.md, "The walk over a network file system").
    fn remote(&self) -> bool {
        self.dev
            .is_some_and(|dev| crate::storage::observer().is_remote(dev))
    }

    pub(super) fn lock(&self) -> MutexGuard<'_, Ahead> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Queue the directories to walk in `listing` of `dir` (key `key`).
    pub(super) fn schedule(
        self: &Arc<Self>,
        key: &[u32],
        dir: &Path,
        depth: usize,
        listing: &Listing,
    ) {
        let mut state = self.lock();
        let queued = Self::queue(&mut state, key, dir, depth, listing);
        self.grow(&mut state);
        drop(state);
        self.wake(queued);
    }

    /// Queue them; how many.
    fn queue(state: &mut Ahead, key: &[u32], dir: &Path, depth: usize, listing: &Listing) -> u32 {
        let dirs = listing.children.iter().filter_map(|c| match c {
            Child::Dir(name) => Some(name),
            _ => None,
        });
        let mut queued = 0;
        for name in dirs {
            let job = (dir.join(name), depth + 1, listing.ancestors.clone());
            state.pending.insert(child_key(key, queued), job);
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
            // (a reader over the count waits: one that ends a listing
            // takes the next)
            let job = if state.ahead < READ_AHEAD && state.listing < self.at_once() {
                state.pending.pop_first()
            } else {
                None
            };
            let Some((key, (dir, depth, up))) = job else {
                state = self
                    .work
                    .wait(state)
                    .unwrap_or_else(PoisonError::into_inner);
                continue;
            };
            state.ahead += 1;
            state.idle -= 1;
            state.listing += 1;
            crate::storage::observer().in_flight(crate::storage::Request::Listing, state.listing);
            drop(state);
            let listing = self.rules.enter(&dir, depth, &up);
            if let Ok(listing) = &listing
                && !self.rules.no_prefetch
                && !self.remote()
            {
                prefetch(&dir, &listing.children);
            }
            state = self.lock();
            state.idle += 1;
            state.listing -= 1;
            let mut queued = 0;
            if let Ok(listing) = &listing {
                queued = Self::queue(&mut state, &key, &dir, depth, listing);
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
    pub(super) fn take(self: &Arc<Self>, key: &[u32]) -> io::Result<Listing> {
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
            if let Some((dir, depth, up)) = state.pending.remove(key) {
                drop(state);
                let listing = self.rules.enter(&dir, depth, &up);
                if let Ok(listing) = &listing {
                    self.schedule(key, &dir, depth, listing);
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
    pub(super) fn close(&self) {
        self.lock().closed = true;
        self.work.notify_all();
    }
}
