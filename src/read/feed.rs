//! The two ends every scheduler shares: [`feed`] takes the jobs in order and
//! opens each input once; [`deliver_in_order`] hands the outcomes to the
//! sink in that order, whatever order the hashing threads finish in.

use std::collections::BTreeMap;
use std::io;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::Scope;
use std::time::Duration;

use crossbeam_channel::{Receiver, RecvTimeoutError, SendTimeoutError, Sender, bounded};

use super::{Job, Outcome, Sink, Task};
use crate::input::Opened;

/// A finished job on its way to the sink: its position, and its outcome.
pub(crate) type Done<T, P> = (usize, Outcome<T, P>);

/// Finished jobs travel to the printer in groups (a hasher sends a whole
/// batch's outcomes at once): one wake-up of the printer per group, not per
/// file, which is what a tree of tiny files needs.
pub(crate) type Finished<T, P> = Vec<Done<T, P>>;

/// How many groups of finished jobs may wait for the printer.
const RESULTS_CAP: usize = 64;

/// How long the printer waits for the next outcome before it calls
/// [`Sink::idle`] (flushes): lines reach a pipe within this delay, yet a run
/// over many small files still writes its output in large batches.
const IDLE_AFTER: Duration = Duration::from_millis(20);

/// Where hashing threads send finished jobs.
pub(crate) type DoneTx<T, P> = Sender<Finished<T, P>>;

/// The channel finished jobs travel on.
pub(crate) fn done_channel<T, P>() -> (DoneTx<T, P>, Receiver<Finished<T, P>>) {
    bounded(RESULTS_CAP)
}

/// Send one finished job; false when the printer is gone.
pub(crate) fn send_one<T, P>(
    done: &Sender<Finished<T, P>>,
    idx: usize,
    outcome: Outcome<T, P>,
) -> bool {
    done.send(vec![(idx, outcome)]).is_ok()
}

/// The jobs, for the one thread that feeds them (they stay with the caller
/// when no thread could be started).
pub(crate) fn take_jobs<I>(jobs: &Mutex<Option<I>>) -> Option<I> {
    jobs.lock().ok().and_then(|mut j| j.take())
}

/// Send `w` to a hashing thread, waiting while they are busy, but giving up
/// (false) once the run is cancelled or every receiver is gone: the sending
/// thread also holds a receiver (to start more threads), so a plain send
/// could wait forever after the threads stopped.
pub(crate) fn hand_over<W>(tx: &Sender<W>, mut w: W, cancel: &AtomicBool) -> bool {
    loop {
        match tx.send_timeout(w, IDLE_AFTER) {
            Ok(()) => return true,
            Err(SendTimeoutError::Disconnected(_)) => return false,
            Err(SendTimeoutError::Timeout(back)) if !cancel.load(Ordering::Relaxed) => w = back,
            Err(SendTimeoutError::Timeout(_)) => return false,
        }
    }
}

/// How many inputs the opener thread may open ahead of the reader.
const OPEN_AHEAD: usize = 32;

/// A job, opened, on its way from the opener thread to the reader.
enum Opening<T, P> {
    Pass(usize, P),
    Failed(usize, Task<T>, io::Error),
    Opened(usize, Task<T>, Opened),
}

/// Take the jobs in order: pass-throughs go straight to the printer, a
/// failed open is that input's outcome, and every opened input goes to
/// `take` with its position. Stops when the jobs run out, the run is
/// cancelled, or `take` returns false (the scheduler is being torn down).
///
/// The opening (open and fstat, the check files' reading) runs on a thread
/// of its own, up to [`OPEN_AHEAD`] inputs ahead, so that over many small
/// files the thread that reads them does only the reads: the system calls
/// per file are split over two cores. After a shared input (stdin, a FIFO)
/// the opener waits until `take` has read it: a check file read from stdin
/// must not be read ahead while a listed `-` is hashed. Without that thread
/// (none could be started), inputs are opened here.
pub(crate) fn feed<'scope, T, P, I>(
    s: &'scope Scope<'scope, '_>,
    jobs: I,
    cancel: &'scope AtomicBool,
    done: &Sender<Finished<T, P>>,
    mut take: impl FnMut(usize, Task<T>, Opened) -> bool,
) where
    T: Send + 'scope,
    P: Send + 'scope,
    I: Iterator<Item = Job<T, P>> + Send + 'scope,
{
    let (tx, rx) = bounded::<Opening<T, P>>(OPEN_AHEAD);
    let (read_tx, read_rx) = bounded::<()>(0);
    // shared with the opener, so the jobs stay here if it cannot start
    let jobs = Arc::new(Mutex::new(Some(jobs)));
    let opener = super::spawn_thread(s, "opener", {
        let jobs = Arc::clone(&jobs);
        move || {
            let Some(jobs) = take_jobs(&jobs) else {
                return;
            };
            for (idx, job) in jobs.enumerate() {
                if cancel.load(Ordering::Relaxed) {
                    return;
                }
                let (item, shared) = open_job(idx, job);
                if tx.send(item).is_err() || (shared && read_rx.recv().is_err()) {
                    return;
                }
            }
        }
    });
    if opener.is_err() {
        // no thread: open here, one input at a time
        let Some(jobs) = take_jobs(&jobs) else {
            return;
        };
        for (idx, job) in jobs.enumerate() {
            if cancel.load(Ordering::Relaxed) || !deliver(open_job(idx, job).0, done, &mut take) {
                return;
            }
        }
        return;
    }
    for item in rx {
        let shared = matches!(&item, Opening::Opened(_, _, o) if o.is_shared());
        if cancel.load(Ordering::Relaxed) || !deliver(item, done, &mut take) {
            return;
        }
        // the shared input is read: the opener may go on
        if shared && read_tx.send(()).is_err() {
            return;
        }
    }
}

/// Open a job's input: what goes to the reader, and whether it is shared.
fn open_job<T, P>(idx: usize, job: Job<T, P>) -> (Opening<T, P>, bool) {
    match job {
        Job::Pass(p) => (Opening::Pass(idx, p), false),
        Job::Hash(task) => match task.input.open_patiently() {
            Ok(opened) => {
                let shared = opened.is_shared();
                (Opening::Opened(idx, task, opened), shared)
            }
            Err(e) => (Opening::Failed(idx, task, e), false),
        },
    }
}

/// Hand one opened job on; false when the run is being torn down.
fn deliver<T, P>(
    item: Opening<T, P>,
    done: &Sender<Finished<T, P>>,
    take: &mut impl FnMut(usize, Task<T>, Opened) -> bool,
) -> bool {
    match item {
        Opening::Pass(idx, p) => send_one(done, idx, Outcome::Passed(p)),
        Opening::Failed(idx, task, e) => send_one(done, idx, Outcome::Hashed(task, Err(e))),
        Opening::Opened(idx, task, opened) => take(idx, task, opened),
    }
}

/// Hand outcomes to `sink` in job order, each as soon as every earlier one
/// has been handed over; flush (`idle`) whenever nothing came for a while.
pub(crate) fn deliver_in_order<T, P, S: Sink<T, P> + ?Sized>(
    rx: Receiver<Finished<T, P>>,
    sink: &mut S,
) -> io::Result<()> {
    let mut next = 0usize;
    let mut waiting: BTreeMap<usize, Outcome<T, P>> = BTreeMap::new();
    loop {
        let group = match rx.recv_timeout(IDLE_AFTER) {
            Ok(group) => group,
            Err(RecvTimeoutError::Disconnected) => return Ok(()),
            Err(RecvTimeoutError::Timeout) => {
                sink.idle()?;
                match rx.recv() {
                    Ok(group) => group,
                    Err(_) => return Ok(()),
                }
            }
        };
        for (idx, outcome) in group {
            if idx != next {
                waiting.insert(idx, outcome);
                continue;
            }
            sink.put(outcome)?;
            next += 1;
            while let Some(outcome) = waiting.remove(&next) {
                sink.put(outcome)?;
                next += 1;
            }
        }
    }
}
