//! The near end every scheduler shares: the [`Opener`] takes the jobs in
//! order, opens each input once (which tells a regular file from a
//! stream), and hands the opened inputs to the scheduler's
//! [`TakeOpened`] in that order; pass-throughs and failed opens go
//! straight to the printer.
//!
//! The opening (open and fstat, and the check files' reading, which is the
//! jobs iterator itself) runs on an opener thread of its own, up to
//! [`OPEN_AHEAD`] inputs ahead, so that over many small files the system
//! calls per file are split over two cores: over operands the openat here,
//! the fstat (while the taking thread keeps up), read and close there. How
//! the two threads share the work depends only on where the jobs come from
//! ([`Policy::of`]).

use std::io;
use std::iter::{Enumerate, Fuse};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::Scope;
use std::time::Duration;

use crossbeam_channel::{Receiver, RecvTimeoutError, Sender, TryRecvError, bounded};

mod crew;

use super::deliver::{Finished, IDLE_AFTER, send_one};
use super::route::{Next, is_big};
use super::{Job, Outcome, Task};
use crate::input::{Input, Opened, Unprobed, descriptors};
use crate::storage::{Request, Timer, observer};

/// How many inputs the opener thread may open ahead of the taking thread.
const OPEN_AHEAD: usize = 32;

/// How long a big input waits for the opener thread to show what follows
/// it (an open takes microseconds, a big file's hashing milliseconds; a
/// busy machine may not run the opener thread for a few).
const PEEK_WAIT: Duration = Duration::from_millis(5);

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

/// Who opens inputs, and when the opener thread pauses.
enum Policy {
    /// The taking thread, finding no opened input waiting, opens the very
    /// next job itself rather than wait (opening costs more than reading
    /// a tiny file: the two threads balance themselves). It never waits
    /// for a descriptor: it closes the inputs, so it could wait forever.
    TakerHelps,
    /// Only the opener thread takes jobs: reading a check file may wait on
    /// a pipe, and the taking thread would hold back what it has read but
    /// not handed on. After a shared input (stdin, a FIFO) the opener
    /// waits for `resume`, sent once that input has been handed on: a
    /// check file read from stdin must not be read ahead while a listed
    /// `-` is hashed.
    OpenerAlone { resume: Sender<()> },
}

impl Policy {
    /// The policy for jobs from `source`, and what the opener thread waits
    /// on after a shared input (nothing over operands).
    fn of(source: JobSource) -> (Policy, Option<Receiver<()>>) {
        match source {
            JobSource::Operands => (Policy::TakerHelps, None),
            JobSource::CheckFiles => {
                // one token per shared input handed on: a send never waits
                let (resume, resumed) = bounded(1);
                (Policy::OpenerAlone { resume }, Some(resumed))
            }
        }
    }
}

/// A job, ready to hand on.
enum Ready<T, P> {
    Pass(usize, P),
    Failed(usize, Task<T>, io::Error),
    Opened(usize, Task<T>, Opened),
    /// Opened by the opener thread over operands, probed by the taking
    /// thread as it hands the input on ([`Input::open_unprobed`]), with
    /// how long the open waited on the storage.
    Unprobed(usize, Task<T>, Unprobed, Option<Duration>),
}

impl<T, P> Ready<T, P> {
    /// The job's position.
    fn idx(&self) -> usize {
        match self {
            Ready::Pass(idx, _)
            | Ready::Failed(idx, ..)
            | Ready::Opened(idx, ..)
            | Ready::Unprobed(idx, ..) => *idx,
        }
    }

    /// The job with its input probed if it was not: an unprobed input
    /// becomes opened, or failed.
    fn probed(self) -> Ready<T, P> {
        match self {
            Ready::Unprobed(idx, task, file, waited) => match task.input.probe(file) {
                Ok(opened) => {
                    if let Some(dev) = opened.device() {
                        observer().saw(dev, Request::Open, waited);
                    }
                    Ready::Opened(idx, task, opened)
                }
                Err(e) => Ready::Failed(idx, task, e),
            },
            other => other,
        }
    }

    /// Is it an input whose read position others share? (Never known of
    /// an unprobed one, which only operands make.)
    fn is_shared(&self) -> bool {
        matches!(self, Ready::Opened(_, _, o) if o.is_shared())
    }
}

/// The jobs, numbered, shared by the opener thread and the taking thread;
/// a job the taking thread could not open without waiting goes back in
/// front (`put_back`).
struct Queue<I: Iterator> {
    jobs: Fuse<Enumerate<I>>,
    put_back: Option<(usize, I::Item)>,
    /// Jobs taken from `jobs`.
    taken: usize,
    /// A crew opens the jobs (storage judged far, [`crew`]): the taking
    /// thread opens none.
    crewed: bool,
}

impl<I: Iterator> Queue<I> {
    fn next(&mut self) -> Option<(usize, I::Item)> {
        self.put_back.take().or_else(|| {
            let job = self.jobs.next();
            self.taken += usize::from(job.is_some());
            job
        })
    }

    /// The position of the job `next` returns.
    fn next_idx(&self) -> usize {
        self.put_back.as_ref().map_or(self.taken, |(idx, _)| *idx)
    }
}

/// What an [`Opener`] hands opened inputs to.
pub(crate) trait TakeOpened<T> {
    /// An opened input, its position, and what follows it as far as the
    /// opener has seen; false when the run is being torn down.
    fn take(&mut self, idx: usize, task: Task<T>, opened: Opened, next: Next) -> bool;

    /// Nothing came for a while: hand on what is held. False when the run
    /// is being torn down.
    fn idle(&mut self) -> bool {
        true
    }
}

/// A closure takes no [`Next`]: its inputs are routed as if nothing
/// followed (the modes of `workers`, where no route looks at it).
impl<T, F: FnMut(usize, Task<T>, Opened) -> bool> TakeOpened<T> for F {
    fn take(&mut self, idx: usize, task: Task<T>, opened: Opened, _: Next) -> bool {
        self(idx, task, opened)
    }
}

/// The taking thread's side of the opening: the jobs, what the opener
/// thread has opened, and the policy that shares the work between them.
pub(crate) struct Opener<'a, T, P, I: Iterator> {
    queue: Arc<Mutex<Queue<I>>>,
    /// From the opener thread, in job order (disconnected once it is done,
    /// or if it could not be started).
    ahead: Receiver<Ready<T, P>>,
    policy: Policy,
    /// The position of the next job to hand on.
    next: usize,
    /// The next job, taken from `ahead` to see what follows a big input.
    peeked: Option<Ready<T, P>>,
    cancel: &'a AtomicBool,
    done: Sender<Finished<T, P>>,
}

impl<'a, T, P, I> Opener<'a, T, P, I>
where
    I: Iterator<Item = Job<T, P>>,
{
    /// Start the opener thread over `jobs` (without it, every input is
    /// opened on the taking thread).
    pub(crate) fn start<'scope>(
        s: &'scope Scope<'scope, '_>,
        jobs: I,
        source: JobSource,
        cancel: &'a AtomicBool,
        done: &Sender<Finished<T, P>>,
    ) -> Self
    where
        'a: 'scope,
        T: Send + 'scope,
        P: Send + 'scope,
        I: Send + 'scope,
    {
        let queue = Arc::new(Mutex::new(Queue {
            jobs: jobs.enumerate().fuse(),
            put_back: None,
            taken: 0,
            crewed: false,
        }));
        let (policy, resumed) = Policy::of(source);
        let (tx, ahead) = bounded(OPEN_AHEAD);
        // (if no thread can be had, the closure and its sender are dropped:
        // `ahead` is disconnected, and the taking thread opens every input)
        let _ = super::spawn_thread(s, "opener", {
            let queue = Arc::clone(&queue);
            // Over operands, while the taking thread keeps up (few inputs
            // wait for it), it probes (fstat) what this thread opens: over
            // tiny files the openat here costs about what the fstat, read
            // and close there cost, and the two threads balance. When
            // inputs pile up, it is the slower: the fstat stays here.
            let may_leave_probe = matches!(policy, Policy::TakerHelps);
            move || loop {
                // storage judged far: a crew opens many at once from now on
                if observer().any_far() {
                    let tx = match crew::run(s, &queue, cancel, tx, resumed.as_ref()) {
                        Ok(()) => return,
                        Err(tx) => tx,
                    };
                    return serial(&queue, cancel, &tx, resumed.as_ref());
                }
                let probe = if may_leave_probe && tx.len() < OPEN_AHEAD / 2 {
                    Probe::There
                } else {
                    Probe::Here
                };
                let Some(ready) = take_and_open(&queue, cancel, probe) else {
                    return;
                };
                let shared = ready.is_shared();
                if tx.send(ready).is_err() {
                    return;
                }
                if let Some(resumed) = &resumed
                    && shared
                    && resumed.recv().is_err()
                {
                    return;
                }
            }
        });
        Opener {
            queue,
            ahead,
            policy,
            next: 0,
            peeked: None,
            cancel,
            done: done.clone(),
        }
    }

    /// Hand every job on, in order: opened inputs to `taker`, the others to
    /// the printer. Stops when the jobs run out, the run is cancelled, or
    /// the taker returns false. When the next input is slow to come (more
    /// than [`IDLE_AFTER`]), `taker.idle()` first, so that what it holds
    /// reaches the printer.
    pub(crate) fn hand_on_all(mut self, taker: &mut impl TakeOpened<T>) {
        while !self.cancel.load(Ordering::Relaxed) {
            if let Some(ready) = self.peeked.take() {
                if !self.hand_on(ready, taker) {
                    return;
                }
                continue;
            }
            let ready = match self.ahead.try_recv() {
                Ok(ready) => ready,
                Err(TryRecvError::Empty) => match self.open_here() {
                    Some(ready) => ready,
                    None => match self.ahead.recv_timeout(IDLE_AFTER) {
                        Ok(ready) => ready,
                        Err(RecvTimeoutError::Timeout) if taker.idle() => continue,
                        Err(RecvTimeoutError::Timeout) => return,
                        Err(RecvTimeoutError::Disconnected) => continue,
                    },
                },
                // the opener thread is gone (done, or never started): the
                // rest here, and this thread holds no input while it waits
                Err(TryRecvError::Disconnected) => {
                    match take_and_open(&self.queue, self.cancel, Probe::Here) {
                        Some(ready) => ready,
                        None => return,
                    }
                }
            };
            if !self.hand_on(ready, taker) {
                return;
            }
        }
    }

    /// Hand one job on; after a shared input, let the opener go on. False
    /// when the run is being torn down.
    fn hand_on(&mut self, ready: Ready<T, P>, taker: &mut impl TakeOpened<T>) -> bool {
        self.next = ready.idx() + 1;
        let shared = ready.is_shared();
        let handed = match ready {
            Ready::Pass(idx, p) => send_one(&self.done, idx, Outcome::Passed(p)),
            Ready::Failed(idx, task, e) => send_one(&self.done, idx, Outcome::Hashed(task, Err(e))),
            Ready::Opened(idx, task, opened) => {
                let next = self.next_after(&opened);
                taker.take(idx, task, opened, next)
            }
            unprobed @ Ready::Unprobed(..) => self.hand_on(unprobed.probed(), taker),
        };
        if let Policy::OpenerAlone { resume } = &self.policy
            && shared
        {
            // (an error: the opener thread is gone, and waits for nothing)
            let _ = resume.send(());
        }
        handed
    }

    /// What follows `opened`, looked at only after a big input (whose
    /// route may depend on it): the next job, kept in `peeked` (and probed
    /// now if it is not: it would be probed next anyway). The opener
    /// thread's if it has it ready, else opened here as `open_here` does;
    /// else (the opener thread is opening it, or only it may) waited for
    /// [`PEEK_WAIT`] at most, not at all once the jobs have run out. Not
    /// ready by then is [`Next::Other`].
    fn next_after(&mut self, opened: &Opened) -> Next {
        if !is_big(opened.kind()) || opened.is_shared() {
            return Next::Other;
        }
        let peeked = match self.peeked.take() {
            Some(ready) => Some(ready),
            None => match self.ahead.try_recv() {
                Ok(ready) => Some(ready),
                Err(_) => self
                    .open_here()
                    .or_else(|| self.ahead.recv_timeout(PEEK_WAIT).ok()),
            },
        };
        self.peeked = peeked.map(Ready::probed);
        match &self.peeked {
            Some(Ready::Opened(_, _, o)) if is_big(o.kind()) && !o.is_shared() => Next::Big,
            _ => Next::Other,
        }
    }

    /// Under [`Policy::TakerHelps`]: take the next job and open it here, if
    /// it is job `next` (every job before it has been handed on, so the
    /// opener thread holds none this thread must wait for) and its input
    /// opens without waiting for a descriptor; else the job stays for the
    /// opener thread, and None. None too when the jobs ran out or the run
    /// is cancelled, and when the opener thread is taking a job: it may be
    /// waiting for a descriptor (a directory of `-r`'s walk) that only the
    /// inputs it already opened, which this thread takes, can free.
    fn open_here(&self) -> Option<Ready<T, P>> {
        let Policy::TakerHelps = self.policy else {
            return None;
        };
        let mut queue = self.queue.try_lock().ok()?;
        if self.cancel.load(Ordering::Relaxed) || queue.crewed {
            return None;
        }
        let (idx, job) = queue.next()?;
        if idx != self.next {
            queue.put_back = Some((idx, job));
            return None;
        }
        // opened under the lock: the opener thread cannot take a later job
        // meanwhile, so a job put back keeps its place in the order
        match job {
            Job::Pass(p) => Some(Ready::Pass(idx, p)),
            Job::Hash(mut task) => {
                task.input.settle();
                match open_timed(&task.input, Input::open) {
                    Ok(opened) => Some(Ready::Opened(idx, task, opened)),
                    Err(e) if descriptors::is_exhausted(&e) => {
                        queue.put_back = Some((idx, Job::Hash(task)));
                        None
                    }
                    Err(e) => Some(Ready::Failed(idx, task, e)),
                }
            }
        }
    }
}

/// The queue, locked; None when the run is cancelled.
fn lock<'q, I: Iterator>(
    queue: &'q Mutex<Queue<I>>,
    cancel: &AtomicBool,
) -> Option<MutexGuard<'q, Queue<I>>> {
    let queue = queue.lock().ok()?;
    (!cancel.load(Ordering::Relaxed)).then_some(queue)
}

/// Which thread probes an input [`take_and_open`] opens.
#[derive(Clone, Copy)]
enum Probe {
    Here,
    /// The taking thread, as it hands the input on.
    There,
}

/// Take the next job (under the lock) and open its input (after it),
/// waiting for a descriptor if none is left: None when there are no more
/// jobs or the run is cancelled.
fn take_and_open<T, P, I: Iterator<Item = Job<T, P>>>(
    queue: &Mutex<Queue<I>>,
    cancel: &AtomicBool,
    probe: Probe,
) -> Option<Ready<T, P>> {
    let (idx, job) = lock(queue, cancel)?.next()?;
    Some(match job {
        Job::Pass(p) => Ready::Pass(idx, p),
        Job::Hash(task) => open_job(idx, task, probe),
    })
}

/// Open job `idx`'s input, waiting for a descriptor if none is left; a
/// name listed beside a check file is settled first (`Input::settle`), on
/// the thread that opens it: on far storage, in flight with the others.
fn open_job<T, P>(idx: usize, mut task: Task<T>, probe: Probe) -> Ready<T, P> {
    task.input.settle();
    match probe {
        Probe::Here => match open_timed(&task.input, Input::open_patiently) {
            Ok(opened) => Ready::Opened(idx, task, opened),
            Err(e) => Ready::Failed(idx, task, e),
        },
        Probe::There => {
            let timer = Timer::start();
            match task.input.open_unprobed_patiently() {
                Ok(file) => Ready::Unprobed(idx, task, file, timer.waited()),
                Err(e) => Ready::Failed(idx, task, e),
            }
        }
    }
}

/// `open` an input, telling the storage observer what it cost.
fn open_timed(
    input: &Input,
    open: impl FnOnce(&Input) -> io::Result<Opened>,
) -> io::Result<Opened> {
    let timer = Timer::start();
    let opened = open(input)?;
    if let Some(dev) = opened.device() {
        observer().saw(dev, Request::Open, timer.waited());
    }
    Ok(opened)
}

/// The opener thread's loop once no crew opens for it: one input at a
/// time, probed here, pausing after a shared input as the policy says.
fn serial<T, P, I: Iterator<Item = Job<T, P>>>(
    queue: &Mutex<Queue<I>>,
    cancel: &AtomicBool,
    tx: &Sender<Ready<T, P>>,
    resumed: Option<&Receiver<()>>,
) {
    while let Some(ready) = take_and_open(queue, cancel, Probe::Here) {
        let shared = ready.is_shared();
        if tx.send(ready).is_err() {
            return;
        }
        if let Some(resumed) = resumed
            && shared
            && resumed.recv().is_err()
        {
            return;
        }
    }
}

/// The jobs, for the one thread that takes them (they stay with the caller
/// when no thread could be started).
pub(crate) fn take_jobs<I>(jobs: &Mutex<Option<I>>) -> Option<I> {
    jobs.lock().ok().and_then(|mut j| j.take())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algo::{Algorithm, Algorithms};
    use crate::input::Input;
    use crate::read::deliver::done_channel;
    use std::time::Duration;

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
                context: i,
            })
        };
        let jobs: Vec<_> = (0..n).map(job).collect();
        for source in [JobSource::Operands, JobSource::CheckFiles] {
            let jobs = jobs.iter().map(|j| match j {
                Job::Pass(p) => Job::Pass(*p),
                Job::Hash(t) => Job::Hash(Task {
                    input: t.input.clone(),
                    algos: t.algos,
                    context: t.context,
                }),
            });
            let cancel = AtomicBool::new(false);
            let (done_tx, done_rx) = done_channel::<usize, usize>();
            std::thread::scope(|s| {
                let collect = s.spawn(|| done_rx.iter().flatten().collect::<Vec<_>>());
                let mut taken = Vec::new();
                let mut taker = |idx: usize, task: Task<usize>, _: Opened| {
                    assert_eq!(idx, task.context);
                    taken.push(idx);
                    if idx % 100 < 3 {
                        std::thread::sleep(Duration::from_millis(2));
                    }
                    true
                };
                Opener::start(s, jobs, source, &cancel, &done_tx).hand_on_all(&mut taker);
                drop(done_tx);
                let others = collect.join().unwrap();
                assert!(taken.is_sorted(), "{source:?}: taken out of order");
                let mut all: Vec<usize> = others.iter().map(|(i, _)| *i).collect();
                for (i, outcome) in &others {
                    match outcome {
                        Outcome::Passed(p) => assert_eq!(p, i),
                        Outcome::Hashed(task, r) => {
                            assert_eq!(task.context, *i);
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

    /// Over check files, the opener thread takes no job after a shared
    /// input (here /dev/null, a stream) until the taker has handed it on.
    #[test]
    fn over_check_files_a_shared_input_is_handed_on_before_the_next_job_is_taken() {
        use std::sync::atomic::AtomicUsize;
        let handed = AtomicUsize::new(0);
        let jobs = (0..4).map(|i| {
            assert_eq!(handed.load(Ordering::SeqCst), i, "job {i} taken too early");
            Job::<usize, ()>::Hash(Task {
                input: Input::Path("/dev/null".into()),
                algos: Algorithms::one(Algorithm::Md5),
                context: i,
            })
        });
        let cancel = AtomicBool::new(false);
        let (done_tx, _done_rx) = done_channel::<usize, ()>();
        std::thread::scope(|s| {
            let mut taker = |idx: usize, _: Task<usize>, opened: Opened| {
                assert!(opened.is_shared());
                std::thread::sleep(Duration::from_millis(5));
                handed.fetch_add(1, Ordering::SeqCst);
                idx < 4
            };
            Opener::start(s, jobs, JobSource::CheckFiles, &cancel, &done_tx)
                .hand_on_all(&mut taker);
        });
        assert_eq!(handed.load(Ordering::SeqCst), 4);
    }
}
