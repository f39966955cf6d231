//! Opens in flight: on storage judged far (`crate::storage`), each open
//! (and its fstat) waits a round trip or more (an SFTP `OPEN`, NFS's
//! `GETATTR`), so one opener thread would keep one in flight while the far
//! readers wait for work. A crew of threads then takes the jobs in order
//! and opens them at once; the opener thread puts what they opened back in
//! job order and hands it on as before, so output order, error messages
//! and the hand-off to the schedulers are as they were.
//!
//! How many opens are in flight at once is the storage observer's to say
//! (`Storage::opens_at_once`, learnt from the files handed on): a member
//! waits for its turn before each open.
//!
//! Descriptors: a crew member opens job `idx` only while `idx` is fewer
//! than the window's width ahead of the next job to hand on, and the width
//! stays well under `ulimit -n`: whatever the crew holds, the next job's
//! patient open (`descriptors::retry_when_closed`) finds a descriptor once
//! the inputs handed on close. Over check files, no job is taken after one
//! named as a shared input (`-`, a name under `/dev/` or `/proc/`, which
//! may be the check file's own stream) or found shared once opened, until
//! it has been handed on (as `Policy::OpenerAlone` pauses).

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::Scope;

use crossbeam_channel::{Receiver, Sender, unbounded};

use super::{OPEN_AHEAD, Probe, Queue, Ready, lock, open_job};
use crate::input::Input;
use crate::read::{Job, spawn_thread};

/// The most crew members: the most opens the observer may keep in flight.
const CREW: usize = crate::storage::MOST;

/// How far ahead of the next job to hand on the crew may open: as far as
/// it has members (and [`OPEN_AHEAD`]), at most a quarter of `ulimit -n`.
fn window() -> usize {
    let limit = crate::sys::open_files_limit().unwrap_or(u64::MAX);
    let quarter = usize::try_from(limit / 4).unwrap_or(usize::MAX);
    OPEN_AHEAD.max(CREW).min(quarter).max(1)
}

/// What the crew and the opener thread share.
#[derive(Default)]
struct Gate {
    state: Mutex<State>,
    changed: Condvar,
}

#[derive(Default)]
struct State {
    /// The next job to hand on.
    next: usize,
    /// A shared input is being handed on: take no job.
    paused: bool,
    /// Opens under way.
    opening: usize,
    /// The opener thread is done: stop.
    closed: bool,
}

impl Gate {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Wait until `ready` holds of the state, or the gate closes (false).
    fn wait_until(&self, ready: impl Fn(&State) -> bool) -> bool {
        let st = self.lock();
        let st = self
            .changed
            .wait_while(st, |st| !st.closed && !ready(st))
            .unwrap_or_else(PoisonError::into_inner);
        !st.closed
    }

    /// Wait until job `idx` is within `width` of the next to hand on and
    /// the observer allows one more open in flight, and count it as under
    /// way (false: the gate closed).
    fn enter(&self, idx: usize, width: usize) -> bool {
        let st = self.lock();
        let mut st = self
            .changed
            .wait_while(st, |st| {
                let turn = st.opening < crate::storage::observer().opens_at_once();
                let ready = idx < st.next + width && turn;
                !st.closed && !ready
            })
            .unwrap_or_else(PoisonError::into_inner);
        st.opening += 1;
        crate::storage::observer().in_flight(crate::storage::Request::Open, st.opening);
        !st.closed
    }

    fn update(&self, f: impl FnOnce(&mut State)) {
        f(&mut self.lock());
        self.changed.notify_all();
    }
}

/// Might this input share its stream with the check file being read (so
/// that no line may be read while it is hashed)?
fn may_share(input: &Input) -> bool {
    let special = |p: &Path| p.starts_with("/dev") || p.starts_with("/proc");
    match input {
        Input::Stdin => true,
        Input::Path(p) => special(p),
        // (either file it may be: `-c /dev/fd/63` lists names beside it)
        Input::Listed(b) => b.candidates().any(special),
    }
}

/// Open the rest of the jobs with a crew, and hand them on in order on
/// `tx` (pausing after a shared input until `resumed`, over check files).
/// Err(tx) when no crew member could be started: the caller opens them.
pub(super) fn run<'scope, T, P, I>(
    s: &'scope Scope<'scope, '_>,
    queue: &Arc<Mutex<Queue<I>>>,
    cancel: &'scope AtomicBool,
    tx: Sender<Ready<T, P>>,
    resumed: Option<&Receiver<()>>,
) -> Result<(), Sender<Ready<T, P>>>
where
    T: Send + 'scope,
    P: Send + 'scope,
    I: Iterator<Item = Job<T, P>> + Send + 'scope,
{
    let next = {
        let Some(mut q) = lock(queue, cancel) else {
            return Ok(());
        };
        q.crewed = true;
        q.next_idx()
    };
    let gate = Arc::new(Gate::default());
    gate.update(|st| st.next = next);
    let width = window();
    let (opened_tx, opened) = unbounded();
    // (the sender new members are started with: dropped once one ends, so
    // that the hand-off ends with the last member)
    let recruit = Arc::new(Mutex::new(Some(opened_tx)));
    let pauses = resumed.is_some();
    let start = || {
        let Some(opened_tx) = lock_recruit(&recruit).clone() else {
            return false;
        };
        let (queue, gate, recruit) = (Arc::clone(queue), Arc::clone(&gate), Arc::clone(&recruit));
        spawn_thread(s, "opener", move || {
            member(&queue, &gate, cancel, (width, pauses), &opened_tx);
            lock_recruit(&recruit).take();
        })
        .is_ok()
    };
    let mut crew = Crew {
        started: 0,
        most: CREW.min(width),
        start: Box::new(start),
    };
    crew.grow();
    if crew.started == 0 {
        // (nothing was taken: the queue is the caller's again)
        if let Ok(mut q) = queue.lock() {
            q.crewed = false;
        }
        return Err(tx);
    }
    in_order(next, &opened, &gate, &tx, (resumed, &mut crew));
    gate.update(|st| st.closed = true);
    Ok(())
}

/// What a member sends: the job's position, what it opened, and whether
/// the crew paused after it.
type Opened<T, P> = Sender<(usize, Ready<T, P>, bool)>;

/// The sender new members are started with.
type Recruit<T, P> = Mutex<Option<Opened<T, P>>>;

fn lock_recruit<T, P>(r: &Recruit<T, P>) -> MutexGuard<'_, Option<Opened<T, P>>> {
    r.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The crew's members: started as the observer's count of opens in flight
/// grows (idle ones would only be woken for nothing at each hand-off).
struct Crew<'a> {
    started: usize,
    most: usize,
    start: Box<dyn FnMut() -> bool + 'a>,
}

impl Crew<'_> {
    fn grow(&mut self) {
        let want = crate::storage::observer().opens_at_once().min(self.most);
        while self.started < want && (self.start)() {
            self.started += 1;
        }
    }
}

/// Hand what the crew opened on in job order, from `next`.
fn in_order<T, P>(
    mut next: usize,
    opened: &Receiver<(usize, Ready<T, P>, bool)>,
    gate: &Gate,
    tx: &Sender<Ready<T, P>>,
    (resumed, crew): (Option<&Receiver<()>>, &mut Crew),
) {
    let mut held = BTreeMap::new();
    for (idx, ready, paused) in opened {
        held.insert(idx, (ready, paused));
        while let Some((ready, paused)) = held.remove(&next) {
            let shared = ready.is_shared();
            match &ready {
                Ready::Opened(_, _, o) => crate::storage::observer().handed(o.device(), None),
                Ready::Failed(_, _, e) => crate::storage::observer().handed(None, Some(e)),
                Ready::Pass(..) | Ready::Unprobed(..) => {}
            }
            if tx.send(ready).is_err() {
                return;
            }
            next += 1;
            if let Some(resumed) = resumed
                && shared
                && resumed.recv().is_err()
            {
                return;
            }
            gate.update(|st| {
                st.next = next;
                st.paused &= !paused;
            });
            crew.grow();
        }
    }
}

/// One crew member: take the next job, open it once it is within the
/// window, send it to be put in order; until the jobs run out or the run
/// ends.
fn member<T, P, I: Iterator<Item = Job<T, P>>>(
    queue: &Mutex<Queue<I>>,
    gate: &Gate,
    cancel: &AtomicBool,
    (width, pauses): (usize, bool),
    opened: &Sender<(usize, Ready<T, P>, bool)>,
) {
    loop {
        if !gate.wait_until(|st| !st.paused) {
            return;
        }
        let (idx, job, mut paused) = {
            let Some(mut q) = lock(queue, cancel) else {
                return;
            };
            let mut st = gate.lock();
            if st.paused {
                continue;
            }
            let Some((idx, job)) = q.next() else { return };
            // (decided under both locks: no later job is taken meanwhile)
            st.paused = pauses && matches!(&job, Job::Hash(t) if may_share(&t.input));
            (idx, job, st.paused)
        };
        let ready = match job {
            Job::Pass(p) => {
                if !gate.wait_until(|st| idx < st.next + width) {
                    return;
                }
                Ready::Pass(idx, p)
            }
            Job::Hash(task) => {
                let entered = gate.enter(idx, width);
                let ready = entered.then(|| open_job(idx, task, Probe::Here));
                gate.update(|st| st.opening -= 1);
                match ready {
                    Some(ready) => ready,
                    None => return,
                }
            }
        };
        if pauses && ready.is_shared() && !paused {
            // (before it is sent: unpaused once it has been handed on)
            gate.update(|st| st.paused = true);
            paused = true;
        }
        if opened.send((idx, ready, paused)).is_err() {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algo::{Algorithm, Algorithms};
    use crate::read::Task;
    use crate::read::opener::Queue;
    use crossbeam_channel::bounded;
    use std::sync::atomic::{AtomicUsize, Ordering};

    fn task(input: Input, i: usize) -> Job<usize, usize> {
        Job::Hash(Task {
            input,
            algos: Algorithms::one(Algorithm::Md5),
            context: i,
        })
    }

    fn queue<I: Iterator>(jobs: I) -> Arc<Mutex<Queue<I>>> {
        Arc::new(Mutex::new(Queue {
            jobs: jobs.enumerate().fuse(),
            put_back: None,
            taken: 0,
            crewed: false,
        }))
    }

    /// Files, missing ones and pass-throughs, opened by the crew: each
    /// handed on once, in job order, failures where the file is missing.
    #[test]
    fn the_crew_hands_inputs_on_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let n = 300;
        let jobs = (0..n).map(|i| {
            if i % 7 == 0 {
                return Job::Pass(i);
            }
            let path = dir.path().join(format!("f{i}"));
            if i % 11 != 0 {
                std::fs::write(&path, [i as u8]).unwrap();
            }
            task(Input::Path(path), i)
        });
        let cancel = AtomicBool::new(false);
        let (tx, rx) = bounded(OPEN_AHEAD);
        let q = queue(jobs);
        std::thread::scope(|s| {
            let got = s.spawn(move || rx.iter().collect::<Vec<Ready<usize, usize>>>());
            assert!(run(s, &q, &cancel, tx, None).is_ok());
            let got = got.join().unwrap();
            assert_eq!(got.len(), n);
            for (i, ready) in got.iter().enumerate() {
                assert_eq!(ready.idx(), i);
                match ready {
                    Ready::Pass(..) => assert_eq!(i % 7, 0),
                    Ready::Failed(..) => assert_eq!(i % 11, 0, "{i}"),
                    Ready::Opened(..) => assert!(i % 7 != 0 && i % 11 != 0),
                    Ready::Unprobed(..) => panic!("{i}: unprobed"),
                }
            }
        });
        assert!(q.lock().unwrap().crewed);
    }

    /// Over check files (a `resumed` channel), no job is taken after a
    /// shared input (here /dev/null, a stream) until it has been handed on.
    #[test]
    fn the_crew_takes_no_job_after_a_shared_input_until_it_is_handed_on() {
        let handed = AtomicUsize::new(0);
        let jobs = (0..6).map(|i| {
            assert_eq!(handed.load(Ordering::SeqCst), i, "job {i} taken too early");
            task(Input::Path("/dev/null".into()), i)
        });
        let cancel = AtomicBool::new(false);
        let (tx, rx) = bounded::<Ready<usize, usize>>(OPEN_AHEAD);
        let (resume, resumed) = bounded(1);
        let q = queue(jobs);
        std::thread::scope(|s| {
            s.spawn(|| {
                for ready in rx {
                    assert!(ready.is_shared());
                    std::thread::sleep(std::time::Duration::from_millis(5));
                    handed.fetch_add(1, Ordering::SeqCst);
                    resume.send(()).unwrap();
                }
            });
            assert!(run(s, &q, &cancel, tx, Some(&resumed)).is_ok());
        });
        assert_eq!(handed.load(Ordering::SeqCst), 6);
    }
}
