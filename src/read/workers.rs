//! The scheduler of the `sync`, `bytewise` and `mmap` modes: up to `-j`
//! worker threads each take whole opened inputs from one queue and read (or
//! map) and hash them themselves, so reading never overlaps hashing within
//! a file.
//!
//! An opener ([`super::opener`]) hands the opened inputs to a dispatching
//! thread, which hands them on to the workers. Shared inputs (standard
//! input, FIFOs) it hashes itself, in order: two workers reading stdin at
//! once would split its bytes, and a check file read from stdin must not be
//! read ahead while a listed `-` is still being hashed. Workers are started
//! only as work waits for them, so `-j 1024` on one file starts one; a
//! worker that cannot be started leaves the work to those that could (or to
//! the dispatching thread).

use std::io;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::Scope;

use crossbeam_channel::{Receiver, Sender, bounded};

use super::deliver::{Finished, hand_over, send_one};
use super::mmap::Mapped;
use super::opener::{Opener, take_jobs};
use super::route::{Distance, Next, Reads, Route, Router, Threads};
use super::sync::{buffer_len, hash_blocks, hash_bytewise, hash_chunks, hash_chunks_fanned, sized};
use super::{Hashed, Job, Outcome, Scheduled, Sink, Task};
use crate::algo::Hashers;
use crate::input::Opened;
use crate::stats::Stats;

/// An opened input on its way to a worker.
pub(super) type Work<T> = (usize, Task<T>, Opened);

/// Start the dispatching thread (which starts workers as needed).
pub(super) fn spawn<'scope, 'env, T, P, I>(
    s: &'scope Scope<'scope, 'env>,
    run: Scheduled<'env, T, P, I>,
) -> io::Result<()>
where
    T: Send + 'scope,
    P: Send + 'scope,
    I: Iterator<Item = Job<T, P>> + Send + 'scope,
{
    let Scheduled {
        router,
        stats,
        cancel,
        jobs,
        source,
        done,
    } = run;
    let jobs_at_once = router.plan().jobs;
    super::spawn_thread(s, "dispatcher", move || {
        let (work_tx, work_rx) = bounded::<Work<T>>(jobs_at_once);
        let mut workers = 0usize;
        let mut buf = Vec::new();
        let Some(jobs) = take_jobs(jobs) else {
            return;
        };
        Opener::start(s, jobs, source, cancel, &done).hand_on_all(
            &mut |idx, task, opened: Opened| {
                if opened.is_shared() {
                    let r = hash_opened(router, stats, &task, opened, &mut buf);
                    return send_one(&done, idx, Outcome::Hashed(task, r));
                }
                // one more worker when none runs yet or all are busy
                if workers < jobs_at_once
                    && (workers == 0 || !work_tx.is_empty())
                    && start_worker(s, router, stats, cancel, &work_rx, &done).is_ok()
                {
                    workers += 1;
                }
                if workers == 0 {
                    let r = hash_opened(router, stats, &task, opened, &mut buf);
                    return send_one(&done, idx, Outcome::Hashed(task, r));
                }
                hand_over(&work_tx, (idx, task, opened), cancel)
            },
        );
    })
}

/// Run every job on this thread, one input after another (the `sync` path
/// of each mode): what is left when no thread at all can be started.
pub(super) fn run_here<T, P, I, S>(
    router: &Router,
    stats: &Stats,
    jobs: I,
    sink: &mut S,
) -> io::Result<()>
where
    I: Iterator<Item = Job<T, P>>,
    S: Sink<T, P> + ?Sized,
{
    let mut buf = Vec::new();
    for job in jobs {
        let outcome = match job {
            Job::Pass(p) => Outcome::Passed(p),
            Job::Hash(mut task) => {
                task.input.settle();
                let r = task
                    .input
                    .open_patiently()
                    .and_then(|opened| hash_opened(router, stats, &task, opened, &mut buf));
                Outcome::Hashed(task, r)
            }
        };
        sink.put(outcome)?;
    }
    Ok(())
}

/// Start one worker taking inputs from `work` (also the pipeline's far
/// readers: `pipeline::reader::Far`).
pub(super) fn start_worker<'scope, 'env, T: Send + 'scope, P: Send + 'scope>(
    s: &'scope Scope<'scope, 'env>,
    router: &'env Router,
    stats: &'env Stats,
    cancel: &'env AtomicBool,
    work: &Receiver<Work<T>>,
    done: &Sender<Finished<T, P>>,
) -> io::Result<()> {
    let (work, done) = (work.clone(), done.clone());
    super::spawn_thread(s, "worker", move || {
        let mut buf = Vec::new();
        for (idx, task, opened) in work {
            if cancel.load(Ordering::Relaxed) {
                return;
            }
            let r = hash_opened(router, stats, &task, opened, &mut buf);
            if !send_one(&done, idx, Outcome::Hashed(task, r)) {
                return;
            }
        }
    })
}

/// Hash one opened input as its route says: mapped, or read in `--chunk`
/// calls (pool blocks too, with no pipeline here) or byte by byte; on the
/// route's threads (also the pipeline's reader's, for a small file when no
/// far reader could be started).
pub(super) fn hash_opened<T>(
    router: &Router,
    stats: &Stats,
    task: &Task<T>,
    opened: Opened,
    buf: &mut Vec<u8>,
) -> io::Result<Hashed> {
    let (algos, kind) = (task.algos, opened.kind());
    // (what follows an input decides nothing in these modes)
    let Route { via, threads } = router.route(algos, kind, Next::Other, Distance::of(&opened));
    let len = buffer_len(router.plan().chunk.get(), kind);
    // (a mapping checks the file once hashed; reads at their 0)
    let (reads, mut opened) = match Mapped::of_route(via, opened) {
        Ok(map) => {
            let digests = map.hash(algos, &threads, stats)?;
            stats.add_file();
            return Ok(Hashed {
                digests,
                size: map.len(),
            });
        }
        Err(fallback) => fallback,
    };
    let plan = router.plan();
    let budget = plan.pool.saturating_mul(plan.readahead.get());
    if reads != Reads::Bytewise
        && let Some(r) =
            super::parts::hash_read(&mut opened, algos, (threads.count(), budget), stats)
    {
        stats.add_file();
        return r;
    }
    if reads == Reads::Far {
        // (one request for the whole file, whatever the client's queue)
        crate::sys::read_as_asked(opened.file());
    }
    let mut src = Counted {
        inner: &mut opened,
        bytes: 0,
    };
    let digests = match (reads, &threads) {
        (Reads::Bytewise, _) => {
            let mut hasher = Hashers::new(algos);
            hash_bytewise(&mut src, &mut hasher, stats)?;
            hasher.finalize()
        }
        (Reads::Blocks | Reads::Copiers(_) | Reads::Chunks | Reads::Far, Threads::Fanned(_)) => {
            hash_chunks_fanned(&mut src, algos, threads.count(), len, stats)?
        }
        (Reads::Blocks | Reads::Copiers(_) | Reads::Far, Threads::One | Threads::Wide(_)) => {
            let mut hasher = Hashers::new(algos);
            let sizes = (len, plan.readahead.get().max(len), plan.pool);
            let copiers = match reads {
                Reads::Copiers(n) => usize::from(n),
                _ => 1,
            };
            src.bytes = hash_blocks(&mut *src.inner, &mut hasher, buf, sizes, copiers, stats)?;
            hasher.finalize()
        }
        (Reads::Chunks, Threads::One | Threads::Wide(_)) => {
            let mut hasher = Hashers::new(algos);
            let buf = sized(buf, len)?;
            hash_chunks(&mut src, &mut hasher, buf, stats)?;
            hasher.finalize()
        }
    };
    stats.add_file();
    Ok(Hashed {
        digests,
        size: src.bytes,
    })
}

/// A reader that counts the bytes read through it (the size of a hashed
/// input).
struct Counted<R> {
    inner: R,
    bytes: u64,
}

impl<R: io::Read> io::Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.bytes += n as u64;
        Ok(n)
    }
}
