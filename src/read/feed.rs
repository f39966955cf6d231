//! The two ends every scheduler shares: [`feed`] takes the jobs in order and
//! opens each input once; [`deliver_in_order`] hands the outcomes to the
//! sink in that order, whatever order the hashing threads finish in.

use std::collections::BTreeMap;
use std::io;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::Scope;
use std::time::Duration;

use crossbeam_channel::{
    Receiver, RecvTimeoutError, SendTimeoutError, Sender, TryRecvError, bounded,
};

use super::{Job, Outcome, Sink, Task};
use crate::input::{Opened, descriptors};

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

impl<T, P> Opening<T, P> {
    /// The job's position.
    fn idx(&self) -> usize {
        match self {
            Opening::Pass(idx, _) | Opening::Failed(idx, ..) | Opening::Opened(idx, ..) => *idx,
        }
    }
}

/// Take the jobs in order: pass-throughs go straight to the printer, a
/// failed open is that input's outcome, and every opened input goes to
/// `taker` with its position. Stops when the jobs run out, the run is
/// cancelled, or the taker returns false (the scheduler is being torn down).
///
/// The opening (open and fstat, the check files' reading) runs on a thread
/// of its own, up to [`OPEN_AHEAD`] inputs ahead, so that over many small
/// files the calling thread does only the reads: the system calls per file
/// are split over two cores. Opening costs more than reading a tiny file,
/// so with `source` [`JobSource::Operands`] the calling thread, finding no
/// opened input waiting and the opener not at work on the next job, takes
/// it and opens it itself rather than wait (see [`open_here`]); the two
/// threads balance themselves. It never takes lines of
/// check files: reading one may wait on a pipe, and it would hold back
/// what it has read but not handed on. There, too, the opener takes no job
/// after a shared input (stdin, a FIFO) until the taker has read it: a
/// check file read from stdin must not be read ahead while a listed `-` is
/// hashed.
///
/// When the calling thread would wait more than [`IDLE_AFTER`], it calls
/// [`Take::idle`] first, so what it holds reaches the printer while the
/// next input is slow to come. Without the opener thread (none could be
/// started), every input is opened here.
pub(crate) fn feed<'scope, T, P, I>(
    s: &'scope Scope<'scope, '_>,
    jobs: I,
    source: JobSource,
    cancel: &'scope AtomicBool,
    done: &Sender<Finished<T, P>>,
    taker: &mut impl Take<T>,
) where
    T: Send + 'scope,
    P: Send + 'scope,
    I: Iterator<Item = Job<T, P>> + Send + 'scope,
{
    let (tx, rx) = bounded::<Opening<T, P>>(OPEN_AHEAD);
    let (read_tx, read_rx) = bounded::<()>(0);
    let steal = source == JobSource::Operands;
    let jobs = Arc::new(Mutex::new(Jobs {
        iter: jobs.enumerate().peekable(),
    }));
    // (without a thread, the closure and its sender are dropped: the channel
    // is disconnected, and every job is opened below)
    let _ = super::spawn_thread(s, "opener", {
        let jobs = Arc::clone(&jobs);
        move || {
            while let Some((item, shared)) = open_next(&jobs, cancel) {
                if tx.send(item).is_err() || (!steal && shared && read_rx.recv().is_err()) {
                    return;
                }
            }
        }
    });
    // the position of the next job to hand on
    let mut next = 0;
    // hand one on; after a shared input, let the opener go on
    let pass = |item: Opening<T, P>, taker: &mut _, next: &mut usize| {
        *next = item.idx() + 1;
        let shared = matches!(&item, Opening::Opened(_, _, o) if o.is_shared());
        deliver(item, done, taker) && (steal || !shared || read_tx.send(()).is_ok())
    };
    loop {
        if cancel.load(Ordering::Relaxed) {
            return;
        }
        let item = match rx.try_recv() {
            Ok(item) => item,
            Err(TryRecvError::Empty) => {
                if steal && let Some((own, _)) = open_here(&jobs, next, cancel) {
                    own
                } else {
                    match rx.recv_timeout(IDLE_AFTER) {
                        Ok(item) => item,
                        Err(RecvTimeoutError::Timeout) if taker.idle() => continue,
                        Err(RecvTimeoutError::Timeout) => return,
                        Err(RecvTimeoutError::Disconnected) => continue,
                    }
                }
            }
            // the opener is gone (done, or never started): the rest here
            Err(TryRecvError::Disconnected) => match open_next(&jobs, cancel) {
                Some((item, _)) => item,
                None => return,
            },
        };
        if !pass(item, taker, &mut next) {
            return;
        }
    }
}

/// Where the jobs come from, as far as taking them is concerned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum JobSource {
    /// Operands and directory walks: the next job is at hand, and any
    /// thread may take it.
    Operands,
    /// Lines of check files: taking the next job reads a check file, which
    /// may wait on a pipe and is read by one thread, in order (the opener).
    CheckFiles,
}

/// The jobs, numbered, shared by the opener and the taking thread; always
/// peeked at before they are taken, so that the iterator is not asked
/// again after its `None` (`Peekable` keeps it).
struct Jobs<I: Iterator> {
    iter: std::iter::Peekable<std::iter::Enumerate<I>>,
}

/// Take the next job (under the lock) and open its input (after it): None
/// when there are no more or the run is cancelled.
fn open_next<T, P, I: Iterator<Item = Job<T, P>>>(
    jobs: &Mutex<Jobs<I>>,
    cancel: &AtomicBool,
) -> Option<(Opening<T, P>, bool)> {
    let (idx, job) = {
        let mut jobs = jobs.lock().ok()?;
        if cancel.load(Ordering::Relaxed) {
            return None;
        }
        // peeked first: the iterator is never asked again after its None
        jobs.iter.peek()?;
        jobs.iter.next()?
    };
    Some(open_job(idx, job))
}

/// For the taking thread: take the next job, and open its input, if it is
/// job `next` (every job before it has been handed on: the opener holds
/// no input this thread must wait for) and the input opens without waiting
/// for a descriptor. Else None, and the job stays for the opener. This
/// thread closes the inputs, so it must never wait for a descriptor, nor
/// hold one while it waits for the opener, who may be waiting for one (the
/// opener's wait is safe: this thread goes on reading and closing). None
/// too when there are no more jobs or the run is cancelled.
fn open_here<T, P, I: Iterator<Item = Job<T, P>>>(
    jobs: &Mutex<Jobs<I>>,
    next: usize,
    cancel: &AtomicBool,
) -> Option<(Opening<T, P>, bool)> {
    let mut jobs = jobs.lock().ok()?;
    if cancel.load(Ordering::Relaxed) {
        return None;
    }
    // opened while the job is only peeked at: nobody else can take it
    let opened = match jobs.iter.peek()? {
        (idx, _) if *idx != next => return None,
        (_, Job::Pass(_)) => None,
        (_, Job::Hash(task)) => match task.input.open() {
            Err(e) if descriptors::is_exhausted(&e) => return None,
            r => Some(r),
        },
    };
    let (idx, job) = jobs.iter.next()?;
    Some(match (job, opened) {
        (Job::Hash(task), Some(Ok(o))) => {
            let shared = o.is_shared();
            (Opening::Opened(idx, task, o), shared)
        }
        (Job::Hash(task), Some(Err(e))) => (Opening::Failed(idx, task, e), false),
        // (not met: the job taken is the one peeked at, under the lock)
        (Job::Hash(task), None) => open_job(idx, Job::Hash(task)),
        (Job::Pass(p), _) => (Opening::Pass(idx, p), false),
    })
}

/// What [`feed`] hands opened inputs to.
pub(crate) trait Take<T> {
    /// An opened input and its position; false when the run is being torn
    /// down.
    fn take(&mut self, idx: usize, task: Task<T>, opened: Opened) -> bool;

    /// Nothing came for a while: hand on what is held. False when the run
    /// is being torn down.
    fn idle(&mut self) -> bool {
        true
    }
}

impl<T, F: FnMut(usize, Task<T>, Opened) -> bool> Take<T> for F {
    fn take(&mut self, idx: usize, task: Task<T>, opened: Opened) -> bool {
        self(idx, task, opened)
    }
}

/// Hand one opened job on; false when the run is being torn down.
fn deliver<T, P>(
    item: Opening<T, P>,
    done: &Sender<Finished<T, P>>,
    taker: &mut impl Take<T>,
) -> bool {
    match item {
        Opening::Pass(idx, p) => send_one(done, idx, Outcome::Passed(p)),
        Opening::Failed(idx, task, e) => send_one(done, idx, Outcome::Hashed(task, Err(e))),
        Opening::Opened(idx, task, opened) => taker.take(idx, task, opened),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algo::{Algorithm, Algorithms};
    use crate::input::Input;

    /// Tiny files, missing ones and pass-throughs, taken by a thread that
    /// now dawdles (the opener runs ahead) and now is quick (it opens the
    /// next inputs itself): every job arrives once, and the taker gets its
    /// inputs in order, for operands (taken by both threads) and check
    /// files (by the opener only).
    #[test]
    fn inputs_arrive_once_and_in_order_whoever_opens_them() {
        let dir = tempfile::tempdir().unwrap();
        let n = 600;
        let job = |i: usize| -> Job<usize, usize> {
            if i.is_multiple_of(7) {
                return Job::Pass(i);
            }
            let path = dir.path().join(format!("f{i}"));
            if !i.is_multiple_of(11) {
                std::fs::write(&path, [i as u8]).unwrap();
            }
            Job::Hash(Task {
                input: Input::Path(path),
                algos: Algorithms::one(Algorithm::Md5),
                tag: i,
            })
        };
        let jobs: Vec<_> = (0..n).map(job).collect();
        for source in [JobSource::Operands, JobSource::CheckFiles] {
            let jobs = jobs.iter().map(|j| match j {
                Job::Pass(p) => Job::Pass(*p),
                Job::Hash(t) => Job::Hash(Task {
                    input: t.input.clone(),
                    algos: t.algos,
                    tag: t.tag,
                }),
            });
            let cancel = AtomicBool::new(false);
            let (done_tx, done_rx) = done_channel::<usize, usize>();
            std::thread::scope(|s| {
                let collect = s.spawn(|| done_rx.iter().flatten().collect::<Vec<_>>());
                let mut taken = Vec::new();
                let mut taker = |idx: usize, task: Task<usize>, _: Opened| {
                    assert_eq!(idx, task.tag);
                    taken.push(idx);
                    if idx % 100 < 3 {
                        std::thread::sleep(Duration::from_millis(2));
                    }
                    true
                };
                feed(s, jobs, source, &cancel, &done_tx, &mut taker);
                drop(done_tx);
                let others = collect.join().unwrap();
                assert!(taken.is_sorted(), "{source:?}: taken out of order");
                let mut all: Vec<usize> = others.iter().map(|(i, _)| *i).collect();
                for (i, outcome) in &others {
                    match outcome {
                        Outcome::Passed(p) => assert_eq!(p, i),
                        Outcome::Hashed(task, r) => {
                            assert_eq!(task.tag, *i);
                            assert!(r.is_err() && i.is_multiple_of(11), "{i}");
                        }
                    }
                }
                all.extend(&taken);
                all.sort();
                assert_eq!(all, (0..n).collect::<Vec<_>>(), "{source:?}");
            });
        }
    }
}
