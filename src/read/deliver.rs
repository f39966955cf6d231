//! The far end every scheduler shares: finished jobs travel to the
//! printer in groups, and [`deliver_in_order`] hands their outcomes to the
//! sink in job order, whatever order the hashing threads finish in.

use std::collections::BTreeMap;
use std::io;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use crossbeam_channel::{Receiver, RecvTimeoutError, SendTimeoutError, Sender, bounded};

use super::{Outcome, Sink};

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
pub(crate) const IDLE_AFTER: Duration = Duration::from_millis(20);

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
