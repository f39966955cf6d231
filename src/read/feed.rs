//! The two ends every scheduler shares: [`feed`] takes the jobs in order and
//! opens each input once; [`deliver_in_order`] hands the outcomes to the
//! sink in that order, whatever order the hashing threads finish in.

use std::collections::BTreeMap;
use std::io;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
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

/// Take the jobs in order: pass-throughs go straight to the printer, a
/// failed open is that input's outcome, and every opened input goes to
/// `take` with its position. Stops when the jobs run out, the run is
/// cancelled, or `take` returns false (the scheduler is being torn down).
pub(crate) fn feed<T, P, I>(
    jobs: I,
    cancel: &AtomicBool,
    done: &Sender<Finished<T, P>>,
    mut take: impl FnMut(usize, Task<T>, Opened) -> bool,
) where
    I: Iterator<Item = Job<T, P>>,
{
    for (idx, job) in jobs.enumerate() {
        if cancel.load(Ordering::Relaxed) {
            return;
        }
        let going_on = match job {
            Job::Pass(tag) => send_one(done, idx, Outcome::Passed(tag)),
            Job::Hash(task) => match task.input.open_patiently() {
                Ok(opened) => take(idx, task, opened),
                Err(e) => send_one(done, idx, Outcome::Hashed(task, Err(e))),
            },
        };
        if !going_on {
            return;
        }
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
