//! Descriptor accounting: how many input descriptors are open (or being
//! opened), and how many have been closed, so that a thread that runs out
//! of descriptors (`ulimit -n`) can wait for one to close instead of
//! failing its input.
//!
//! An input's descriptor is counted from just before it is opened until
//! just after it is closed ([`open`] returns a [`Counted`] file). A thread
//! that gets EMFILE or ENFILE while other inputs are open waits
//! ([`retry_when_closed`]) on a condition variable until one closes, then
//! tries again; with none open, nothing will come free and the error
//! stands. A directory the walk lists (`-r`) is counted as an input
//! is ([`read_dir`]).

use std::fs::{File, ReadDir};
use std::io;
use std::ops::{Deref, DerefMut};
use std::path::Path;
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::Duration;

/// The counts, under one lock.
struct Ledger {
    /// Input descriptors open, or being opened.
    open: usize,
    /// Input descriptors closed, ever.
    closed: u64,
    /// Threads waiting on [`CHANGED`]: a close signals only when there is
    /// one (std's `notify_all` makes a futex call whether or not anyone
    /// waits: one more system call per file, 10,000 per 10,000 files).
    waiters: usize,
}

static LEDGER: Mutex<Ledger> = Mutex::new(Ledger {
    open: 0,
    closed: 0,
    waiters: 0,
});

/// Signalled when a descriptor closes or an open fails (either may end a
/// wait), if a thread waits (`Ledger::waiters`).
static CHANGED: Condvar = Condvar::new();

/// Wake the waiters, if any, after a change made under `l`.
fn signal(l: MutexGuard<'_, Ledger>) {
    let waiting = l.waiters > 0;
    drop(l);
    if waiting {
        CHANGED.notify_all();
    }
}

fn ledger() -> MutexGuard<'static, Ledger> {
    // the counts stay consistent whatever panicked while holding the lock
    LEDGER.lock().unwrap_or_else(|e| e.into_inner())
}

/// Has the process (or the system) no descriptor left?
pub(crate) fn is_exhausted(e: &io::Error) -> bool {
    crate::sys::out_of_descriptors(e)
}

/// A descriptor about to be opened: counted as open, so that a thread that
/// runs out meanwhile waits for it; dropped unopened, it closes nothing.
struct Reserved;

impl Reserved {
    fn new() -> Reserved {
        ledger().open += 1;
        Reserved
    }
}

impl Drop for Reserved {
    fn drop(&mut self) {
        let mut l = ledger();
        l.open -= 1;
        // a waiter may now see no descriptor open, and give up
        signal(l);
    }
}

/// An input's file (or a directory's entries, `F`), counted in the ledger
/// until it is closed (the count goes after the descriptor: see the field
/// order).
#[derive(Debug)]
pub(crate) struct Counted<F = File> {
    file: F,
    _close: CountClose,
}

/// Drops after the file of a [`Counted`]: counts its close.
#[derive(Debug)]
struct CountClose;

impl Drop for CountClose {
    fn drop(&mut self) {
        let mut l = ledger();
        l.open -= 1;
        l.closed += 1;
        signal(l);
    }
}

/// Open an input's file (or anything that holds one descriptor) with
/// `open`, counted from before the call.
pub(crate) fn open<F>(open: impl FnOnce() -> io::Result<F>) -> io::Result<Counted<F>> {
    let reserved = Reserved::new();
    let file = open()?;
    std::mem::forget(reserved);
    Ok(Counted {
        file,
        _close: CountClose,
    })
}

/// The longest wait between tries while input descriptors are open: a
/// descriptor this module does not count may close meanwhile, with no
/// signal.
const RETRY_AFTER: Duration = Duration::from_millis(5);

/// Call `attempt` until it does not fail for want of a descriptor, waiting
/// between tries until an input descriptor closes (or [`RETRY_AFTER`]).
/// The error stands when no input descriptor is open (none will close) and
/// none closed since the attempt began.
pub(crate) fn retry_when_closed<T>(mut attempt: impl FnMut() -> io::Result<T>) -> io::Result<T> {
    loop {
        let before = ledger().closed;
        match attempt() {
            Err(e) if is_exhausted(&e) => {
                let mut l = ledger();
                // counted under the lock the closing threads take: a close
                // after this sees the waiter and signals
                l.waiters += 1;
                let (mut l, _) = CHANGED
                    .wait_timeout_while(l, RETRY_AFTER, |l| l.closed == before && l.open > 0)
                    .unwrap_or_else(|e| e.into_inner());
                l.waiters -= 1;
                if l.closed == before && l.open == 0 {
                    return Err(e);
                }
            }
            r => return r,
        }
    }
}

/// The entries of directory `dir`, its descriptor counted as an input's
/// and opened as patiently ([`retry_when_closed`]): under a low `ulimit -n`
/// the walk of `-r` waits for a descriptor as the opening of files does,
/// and they wait for its closes, instead of losing whole directories.
pub(crate) fn read_dir(dir: &Path) -> io::Result<Counted<ReadDir>> {
    retry_when_closed(|| open(|| std::fs::read_dir(crate::sys::file_path(dir))))
}

impl<F> Deref for Counted<F> {
    type Target = F;
    fn deref(&self) -> &F {
        &self.file
    }
}

impl<F> DerefMut for Counted<F> {
    fn deref_mut(&mut self) -> &mut F {
        &mut self.file
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A wait for a descriptor ends when one closes (the retry succeeds),
    /// and at once when none is open (the error stands).
    #[test]
    fn a_wait_ends_at_a_close_or_at_once_when_none_is_open() {
        let emfile = crate::sys::descriptors_exhausted;
        // nothing of ours open (other tests may open files meanwhile: they
        // close them, which only makes this retry)
        let mut tries = 0;
        let r: io::Result<()> = retry_when_closed(|| {
            tries += 1;
            if tries > 3 { Ok(()) } else { Err(emfile()) }
        });
        assert!(r.is_ok() || is_exhausted(&r.unwrap_err()));
        let held = open(|| File::open("/dev/null")).unwrap();
        std::thread::scope(|s| {
            s.spawn(move || {
                std::thread::sleep(std::time::Duration::from_millis(20));
                drop(held);
            });
            let mut first = true;
            let r = retry_when_closed(|| {
                if std::mem::take(&mut first) {
                    Err(emfile())
                } else {
                    Ok(7)
                }
            });
            assert_eq!(r.unwrap(), 7);
        });
    }
}
