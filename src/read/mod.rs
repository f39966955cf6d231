//! How bytes get from the inputs to the hash functions: the reading modes
//! (`--mode`), and the two schedulers that run them over many inputs with
//! `-j` hashing threads while outcomes come out in input order.
//!
//! Two decisions, each made once:
//! * which scheduler runs ([`run`]): `threaded` is the read-ahead
//!   [`pipeline`] (one reader thread, N hashers); the other modes use
//!   [`workers`] (N threads, each reading and hashing whole inputs);
//! * how one opened input is read and on how many threads
//!   ([`route::Router::route`]): mapped, in blocks from the pipeline's pool,
//!   in `--chunk` reads, or byte by byte; fanned out or not.
//!
//! Both schedulers take their inputs from an [`opener::Opener`]: it numbers
//! the jobs, opens each input once (which tells a regular file from a
//! stream), and passes pass-through jobs straight on;
//! [`deliver::deliver_in_order`] hands outcomes to the [`Sink`] in job
//! order.

mod buffer;
mod deliver;
pub(crate) mod fanout;
pub(crate) mod mmap;
mod opener;
pub(crate) mod parts;
pub(crate) mod pipeline;
pub(crate) mod ranges;
pub(crate) mod route;
pub(crate) mod sync;
mod workers;

/// The stack of each reading or hashing thread: they hold no deep call
/// chains, and a small stack keeps many threads within a low `ulimit -v`.
const THREAD_STACK: usize = 512 * 1024;

/// Start a named thread of the scheduler in `s`; an error (no thread could
/// be had) leaves the caller to go on with the threads it has.
fn spawn_thread<'scope>(
    s: &'scope std::thread::Scope<'scope, '_>,
    name: &str,
    f: impl FnOnce() + Send + 'scope,
) -> io::Result<()> {
    std::thread::Builder::new()
        .name(name.into())
        .stack_size(THREAD_STACK)
        .spawn_scoped(s, f)
        .map(drop)
}

/// A buffer of `size` zero bytes, or `None` if memory cannot be had. The
/// allocator's zeroed allocation maps big buffers lazily, so a 4 MiB pool
/// block that holds a 30-byte file costs one page, not a thousand page
/// faults (`vec![0; n]` does the same, but aborts when memory is short).
pub(crate) fn zeroed(size: usize) -> Option<Vec<u8>> {
    let layout = std::alloc::Layout::array::<u8>(size).ok()?;
    if size == 0 {
        return Some(Vec::new());
    }
    // SAFETY: the layout has a non-zero size, as `alloc_zeroed` requires.
    let ptr = unsafe { std::alloc::alloc_zeroed(layout) };
    if ptr.is_null() {
        return None;
    }
    // SAFETY: `ptr` comes from the global allocator with the layout of
    // `size` bytes of align 1, and all of them are initialised (zero).
    Some(unsafe { Vec::from_raw_parts(ptr, size, size) })
}

/// The soft limit on this process's address space (`ulimit -v`), if any.
pub(crate) fn address_space_limit() -> Option<usize> {
    crate::sys::address_space_limit()
}

/// Under a limit on the address space (`ulimit -v`), what the pool's
/// blocks may take of it, and what the far readers' stacks and buffers may:
/// an eighth each, so that what a failed allocation elsewhere would abort
/// on remains.
pub(crate) fn address_space_share() -> Option<usize> {
    address_space_limit().map(|limit| limit / 8)
}

/// Get ready for a limited address space: glibc gives each new thread an
/// arena that reserves 64 MiB of it, and when that reservation fails it
/// maps every allocation of that thread apart, which can run a small limit
/// out; one arena for all threads avoids both. Nothing changes without a
/// limit.
pub(crate) fn adapt_to_limits() {
    if address_space_limit().is_some() {
        crate::sys::one_malloc_arena();
    }
}

/// Install the SIGBUS handler of `sys::sigbus` (at start-up, in every
/// mode): faults in a mapped input are reported, any other SIGBUS kills at
/// once.
pub(crate) fn install_sigbus_handler() {
    let _ = crate::sys::sigbus::install();
}

use std::io;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

#[cfg(any(test, feature = "internals"))]
use crate::algo::Algorithm;
use crate::algo::{Algorithms, Digest};
use crate::input::Input;
use crate::size::Size;
use crate::stats::Stats;
pub(crate) use buffer::Buffer;
pub(crate) use opener::JobSource;
use route::Router;

/// How bytes travel from the file to the hash function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// The read-ahead pipeline: a reader thread fills blocks from a bounded
    /// pool, hasher threads hash them.
    Threaded,
    /// Read exactly `--chunk` bytes per call, then hash them.
    Sync,
    /// `BufReader::bytes()`, one hash update per byte: the naive baseline.
    Bytewise,
    /// Map big regular files and hash them in place; read the others as sync.
    Mmap,
}

/// A read that takes longer than this waited on the storage, not on a copy
/// from the page cache (a copy of 64 KiB takes a few microseconds; a cold
/// read of an NVMe drive about 100, a round trip to a file server or a
/// disk's seek from a few hundred to thousands): the storage observer's
/// threshold (`crate::storage::SLOW`), which a big file's reads are judged
/// by too (`ranges::worth`, `sync::hash_blocks`).
pub(crate) const SLOW_READ: std::time::Duration = crate::storage::SLOW;

/// Default `--chunk` (how it was chosen: docs/BENCHMARKS.md, "Defaults").
pub(crate) const DEFAULT_CHUNK: Size = Size::kib(64);
/// Default `--readahead` (docs/BENCHMARKS.md, "Defaults").
pub(crate) const DEFAULT_READAHEAD: Size = Size::mib(4);
/// Default `--pool` (docs/BENCHMARKS.md, "Defaults").
pub(crate) const DEFAULT_POOL: usize = 4;
/// The most `-j` threads and `--pool` blocks accepted: far more than can
/// help, few enough that a typo cannot exhaust threads or memory.
pub(crate) const MAX_COUNT: usize = 1024;
/// The most memory the pool may hold (`--pool` × `--readahead`).
pub(crate) const MAX_IN_FLIGHT: usize = 4 << 30;

/// The number of hashing threads when `-j` is not given: the number of
/// cores available to this process (how it was chosen: docs/BENCHMARKS.md,
/// "Defaults").
pub(crate) fn default_jobs() -> usize {
    crate::cores::available()
}

/// Everything that decides how inputs are read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plan {
    /// The reading mode.
    pub mode: Mode,
    /// `--chunk`: bytes per hash update (threaded) or per read (sync).
    pub chunk: Size,
    /// `--readahead`: bytes per pool block (threaded).
    pub readahead: Size,
    /// `--pool`: blocks in the pool (≥ 1).
    pub pool: usize,
    /// `-j`: how many inputs are hashed at once, i.e. how many worker
    /// (sync, bytewise, mmap) or hasher (threaded) threads may run (≥ 1).
    /// It also sets the fan-out budget ([`Plan::fan_out`]).
    pub jobs: usize,
}

impl Plan {
    /// A plan for `mode` with the default sizes and one job.
    #[cfg(any(test, feature = "internals"))]
    pub fn new(mode: Mode) -> Plan {
        Plan {
            mode,
            chunk: DEFAULT_CHUNK,
            readahead: DEFAULT_READAHEAD,
            pool: DEFAULT_POOL,
            jobs: 1,
        }
    }

    /// The fan-out budget: the most threads one input may be hashed on.
    /// Several algorithms hash in groups on the reading thread and helper
    /// threads, which the inputs hashed at once share: at most
    /// `fan_out() - 1` helpers in the whole run, so these take at most
    /// `jobs + fan_out() - 1` threads (each hasher could start its own
    /// before). A big mapped BLAKE3 input spreads over up to `fan_out()` of
    /// rayon's threads (b3sum's `--num-threads`). `-j` sets both: the cores
    /// the run may use.
    pub fn fan_out(&self) -> usize {
        self.jobs
    }
}

/// One input to hash with one or more algorithms (it is read once), and
/// what the caller wants back with its outcome (`context`: the expected
/// lines of a check, nothing when hashing).
#[derive(Debug)]
pub(crate) struct Task<T> {
    pub(crate) input: Input,
    pub(crate) algos: Algorithms,
    pub(crate) context: T,
}

/// One unit of work, in output order: `T` is what a hashed input carries
/// to the sink, `P` what a pass-through carries.
#[derive(Debug)]
pub(crate) enum Job<T, P> {
    /// Hash an input.
    Hash(Task<T>),
    /// Hash nothing: carry `P` to the sink in its place in the order (a walk
    /// error in hash mode, an improper line in check mode).
    Pass(P),
}

/// What hashing one whole input gave.
#[derive(Debug)]
pub(crate) struct Hashed {
    /// One digest per algorithm of its task, in that order.
    pub(crate) digests: Vec<Digest>,
    /// How many bytes were hashed (`--json`'s size).
    pub(crate) size: u64,
}

/// What the sink receives for each job, in job order.
#[derive(Debug)]
pub(crate) enum Outcome<T, P> {
    /// The digests of the whole input, or the one error that stopped it
    /// (no digest is ever made from a partial read).
    Hashed(Task<T>, io::Result<Hashed>),
    /// A pass-through job.
    Passed(P),
}

/// Where outcomes go, in job order.
pub(crate) trait Sink<T, P> {
    /// Take the outcome of the next job.
    fn put(&mut self, outcome: Outcome<T, P>) -> io::Result<()>;
    /// Nothing is ready right now: a good moment to flush output, so lines
    /// stream out while later inputs are still being hashed.
    fn idle(&mut self) -> io::Result<()>;
}

/// Run every job with the reading mode of `plan`, and hand each outcome to
/// `sink` in job order. Stops early (and returns the error) when `sink`
/// fails, e.g. on a closed stdout.
pub(crate) fn run<T, P, I, S>(
    plan: &Plan,
    stats: &Stats,
    jobs: I,
    source: JobSource,
    sink: &mut S,
) -> io::Result<()>
where
    T: Send,
    P: Send,
    I: Iterator<Item = Job<T, P>> + Send,
    S: Sink<T, P> + ?Sized,
{
    let router = Router::new(plan);
    // one input that one thread finishes soonest: no thread, pool or
    // hand-over (what a script calling fastsum once per file pays for)
    let mut jobs = jobs.peekable();
    if source == JobSource::Operands {
        let first = jobs.next();
        if jobs.peek().is_none() {
            let alone = match &first {
                Some(Job::Hash(task)) => one_thread_suffices(plan, &task.input, task.algos),
                _ => true,
            };
            if alone {
                return workers::run_here(&router, stats, first.into_iter(), sink);
            }
        }
        let jobs = first.into_iter().chain(jobs);
        return run_threads(&router, stats, jobs, source, sink);
    }
    run_threads(&router, stats, jobs, source, sink)
}

/// Does one thread hash `input` as soon as several would? Outside the
/// threaded mode, threads serve only to take several inputs at once; in
/// it, a regular file that one `--readahead` block holds gains nothing
/// from a reader running ahead (a bigger one, or a stream, does), and
/// neither does any regular file hashed only with algorithms that run at
/// memory speed (CRC-32, xxHash: the hand-over of blocks that leave the
/// cache costs more than the hashing it overlaps; docs/BENCHMARKS.md, "The
/// algorithms of issue #20"). Several algorithms and big BLAKE3 files
/// still spread over threads on the one-thread path ([`workers::run_here`]
/// follows each input's route).
fn one_thread_suffices(plan: &Plan, input: &Input, algos: Algorithms) -> bool {
    let memory_speed = algos.as_slice().iter().all(|&a| route::outruns_copy(a));
    match (plan.mode, input) {
        (Mode::Sync | Mode::Bytewise | Mode::Mmap, _) => true,
        (Mode::Threaded, Input::Path(p)) => std::fs::metadata(crate::sys::file_path(p))
            .is_ok_and(|m| m.is_file() && (memory_speed || m.len() <= plan.readahead.get() as u64)),
        (Mode::Threaded, Input::Stdin | Input::Listed(_)) => false,
    }
}

/// What either scheduler (`pipeline::spawn`, `workers::spawn`) starts
/// with: the run's router and counters, the jobs, where they come from,
/// the flag that tears the run down and where outcomes go.
pub(crate) struct Scheduled<'env, T, P, I> {
    pub(crate) router: &'env Router,
    pub(crate) stats: &'env Stats,
    pub(crate) cancel: &'env AtomicBool,
    pub(crate) jobs: &'env Mutex<Option<I>>,
    pub(crate) source: JobSource,
    pub(crate) done: deliver::DoneTx<T, P>,
}

/// [`run`] on the threads of the plan's scheduler.
fn run_threads<T, P, I, S>(
    router: &Router,
    stats: &Stats,
    jobs: I,
    source: JobSource,
    sink: &mut S,
) -> io::Result<()>
where
    T: Send,
    P: Send,
    I: Iterator<Item = Job<T, P>> + Send,
    S: Sink<T, P> + ?Sized,
{
    let cancel = AtomicBool::new(false);
    let jobs = Mutex::new(Some(jobs));
    let delivered = std::thread::scope(|s| {
        let (done_tx, done_rx) = deliver::done_channel();
        let run = Scheduled {
            router,
            stats,
            cancel: &cancel,
            jobs: &jobs,
            source,
            done: done_tx,
        };
        let started = match router.plan().mode {
            Mode::Threaded => pipeline::spawn(s, run),
            Mode::Sync | Mode::Bytewise | Mode::Mmap => workers::spawn(s, run),
        };
        started.ok()?;
        let result = deliver::deliver_in_order(done_rx, sink);
        if result.is_err() {
            cancel.store(true, Ordering::Relaxed);
        }
        Some(result)
    });
    match delivered {
        Some(result) => result,
        // not one thread could be started (a process limit): go on here
        None => match jobs.into_inner().ok().flatten() {
            Some(jobs) => workers::run_here(router, stats, jobs, sink),
            None => Ok(()),
        },
    }
}

/// Hash one input with the whole `plan` (for benches and tests).
#[cfg(any(test, feature = "internals"))]
pub fn hash_one(plan: &Plan, algo: Algorithm, input: Input) -> io::Result<Digest> {
    struct One(Option<io::Result<Hashed>>);
    impl Sink<(), ()> for One {
        fn put(&mut self, outcome: Outcome<(), ()>) -> io::Result<()> {
            if let Outcome::Hashed(_, r) = outcome {
                self.0 = Some(r);
            }
            Ok(())
        }
        fn idle(&mut self) -> io::Result<()> {
            Ok(())
        }
    }
    let mut one = One(None);
    let job = Job::<(), ()>::Hash(Task {
        input,
        algos: Algorithms::one(algo),
        context: (),
    });
    run(
        plan,
        &Stats::default(),
        std::iter::once(job),
        JobSource::Operands,
        &mut one,
    )?;
    let hashed = one
        .0
        .unwrap_or_else(|| Err(io::Error::other("no outcome")))?;
    hashed
        .digests
        .into_iter()
        .next()
        .ok_or_else(|| io::Error::other("no digest"))
}
