//! How bytes get from the inputs to the hash functions: the reading modes
//! (`--mode`) and the scheduler that runs them over many inputs with `-j`
//! workers while results come out in input order.
//!
//! Every mode is driven the same way: [`run`] takes an iterator of [`Job`]s
//! (in the order results must be printed) and a sink that receives each
//! job's outcome in that order, as soon as it and all earlier ones are done.
//!
//! * [`threaded`]: one reader thread reads every input, in order, into
//!   blocks from a bounded pool and hands them to `jobs` hasher threads.
//! * [`direct`]: `jobs` worker threads each open, read and hash whole inputs
//!   themselves, either `sync` (one `--chunk` read per hash update) or
//!   `bytewise` (`BufReader::bytes()`), or `mmap` (map regular files and
//!   hash the mapping in place; [`mmap`], with `sigbus` for files
//!   truncated while mapped).

pub mod direct;
pub mod mmap;
mod sigbus;
pub mod threaded;

/// Install the SIGBUS handler of `sigbus` (at start-up, in every mode):
/// faults in a mapped input are reported, any other SIGBUS kills at once.
pub fn install_sigbus_handler() {
    let _ = sigbus::install();
}

use std::collections::BTreeMap;
use std::io;
use std::sync::atomic::{AtomicBool, Ordering};

use std::time::Duration;

use crossbeam_channel::{Receiver, RecvTimeoutError, bounded};

use crate::algo::{Algorithm, Digest};
use crate::cli::Mode;
use crate::input::Input;
use crate::stats::Stats;

// The defaults below are chosen by `benches/e2e.sh --sweep` (MD5 of a
// 256 MiB file, warm and cold, fastest of 3 runs; the table is in README
// "Benchmarks"), 2-core EPYC VM, 2026-11-22 03:43 UTC, quiet machine, with
// fastsum's own MD5 kernel (~800 MB/s).
// * --chunk 16K, 64K, 256K, 1M: 0.343-0.349 s warm, 0.348-0.355 s cold. The
//   hash update size does not matter above a few KiB (seed 002's table:
//   sync/threaded ~19× at 16 B, 1.0× from 4K up), so 64K stays: it is also
//   sync mode's read size, and the buffer size ripgrep and b3sum read with.
// * --readahead: 64K is 7-10% slower than the best, 256K 2-4% (a block costs
//   a channel hand-off and a wake-up of the reader); 1M and 4M with --pool
//   2, 4 or 8 are all within 1-2% warm. 1M × 4 was the fastest pair cold
//   (0.344 s) and within 1% warm (0.340 s vs 0.338 s): 4 MiB in flight, a
//   block ready for each of two hashers at -j 2 while they hash the other
//   two. Earlier, with the md-5 crate (~620 MB/s), 256K was already on the
//   plateau; the faster kernel moved the knee up. On one 1 GiB file, 1M vs
//   256K: 1.372 s vs 1.409 s (hyperfine, 10 runs, md5sum 1.675 s).

/// Default `--chunk`: bytes per hash update (threaded) or per read (sync).
pub const DEFAULT_CHUNK_STR: &str = "64K";
/// Default `--readahead`: bytes per block read by the reader thread.
pub const DEFAULT_READAHEAD_STR: &str = "1M";
/// Default `--pool`: blocks in the reader's pool.
pub const DEFAULT_POOL_STR: &str = "4";
/// The most `-j` threads and `--pool` blocks accepted: far more than can
/// help, and few enough that a typo cannot exhaust threads or memory (each
/// job is a thread; each pool block is allocated up front).
pub const MAX_COUNT: usize = 1024;
/// The most memory the pool may hold (`--pool` × `--readahead`): the
/// default pool of the largest blocks.
pub const MAX_IN_FLIGHT: usize = 4 << 30;

/// Everything that decides how inputs are read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plan {
    /// The reading mode.
    pub mode: Mode,
    /// `--chunk` in bytes (≥ 1).
    pub chunk: usize,
    /// `--readahead` in bytes (≥ 1).
    pub readahead: usize,
    /// `--pool`: blocks in the pool (≥ 1).
    pub pool: usize,
    /// `-j`: hashing threads (≥ 1).
    pub jobs: usize,
}

impl Plan {
    /// A plan for `mode` with the default sizes and one job.
    pub fn new(mode: Mode) -> Plan {
        let size = |s| crate::size::parse_size(s).unwrap_or(1 << 16);
        Plan {
            mode,
            chunk: size(DEFAULT_CHUNK_STR),
            readahead: size(DEFAULT_READAHEAD_STR),
            pool: DEFAULT_POOL_STR.parse().unwrap_or(4),
            jobs: 1,
        }
    }
}

/// One unit of work. `input: None` is a pass-through: it carries only its
/// tag to the sink, in order (check mode uses it for lines it cannot check).
#[derive(Debug)]
pub struct Job<T> {
    /// What to hash, if anything.
    pub input: Option<Input>,
    /// With which algorithm.
    pub algo: Algorithm,
    /// Caller data handed back with the outcome.
    pub tag: T,
}

/// The outcome of a job: `None` for a pass-through, else the digest or the
/// error that stopped the read (no digest is ever made from a partial read).
pub type Outcome = Option<io::Result<Digest>>;

/// A finished job on its way to the sink: (position, tag, outcome).
type Done<T> = (usize, T, Outcome);

/// Finished jobs travel to the printer in groups (a hasher sends a whole
/// batch's outcomes at once): one wake-up of the printer per group, not per
/// file, which is what a tree of tiny files needs.
type Finished<T> = Vec<Done<T>>;

/// How many finished jobs may wait for the printer.
const RESULTS_CAP: usize = 64;

/// How long the printer waits for the next outcome before it calls
/// `Sink::idle` (flushes): lines reach a pipe within this delay, yet a run
/// over many small files still writes its output in large batches.
const IDLE_AFTER: Duration = Duration::from_millis(20);

/// Where outcomes go, in job order.
pub trait Sink<T> {
    /// Take the outcome of the next job.
    fn put(&mut self, tag: T, outcome: Outcome) -> io::Result<()>;
    /// Nothing is ready right now: a good moment to flush output, so lines
    /// stream out while later inputs are still being hashed.
    fn idle(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl<T, F: FnMut(T, Outcome) -> io::Result<()>> Sink<T> for F {
    fn put(&mut self, tag: T, outcome: Outcome) -> io::Result<()> {
        self(tag, outcome)
    }
}

/// Run every job with the reading mode of `plan`, and hand each outcome to
/// `sink` in job order. Stops early (and returns the error) when `sink`
/// fails, e.g. on a closed stdout.
pub fn run<T, I, S>(plan: &Plan, stats: &Stats, jobs: I, sink: &mut S) -> io::Result<()>
where
    T: Send,
    I: Iterator<Item = Job<T>> + Send,
    S: Sink<T> + ?Sized,
{
    let cancel = AtomicBool::new(false);
    std::thread::scope(|s| {
        let (res_tx, res_rx) = bounded::<Finished<T>>(RESULTS_CAP);
        match plan.mode {
            Mode::Threaded => threaded::spawn(s, plan, stats, &cancel, jobs, res_tx),
            Mode::Sync | Mode::Bytewise | Mode::Mmap => {
                direct::spawn(s, plan, stats, &cancel, jobs, res_tx)
            }
        }
        let result = deliver_in_order(res_rx, sink);
        if result.is_err() {
            cancel.store(true, Ordering::Relaxed);
        }
        result
    })
}

/// Hand outcomes to `sink` in job order, each as soon as every earlier one
/// has been handed over.
fn deliver_in_order<T, S: Sink<T> + ?Sized>(
    rx: Receiver<Finished<T>>,
    sink: &mut S,
) -> io::Result<()> {
    let mut next = 0usize;
    let mut waiting: BTreeMap<usize, (T, Outcome)> = BTreeMap::new();
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
        for (idx, tag, outcome) in group {
            if idx != next {
                waiting.insert(idx, (tag, outcome));
                continue;
            }
            sink.put(tag, outcome)?;
            next += 1;
            while let Some((tag, outcome)) = waiting.remove(&next) {
                sink.put(tag, outcome)?;
                next += 1;
            }
        }
    }
}

/// Hash one input with the whole `plan` (a convenience for tests, benches
/// and callers with a single input).
pub fn hash_one(plan: &Plan, algo: Algorithm, input: Input) -> io::Result<Digest> {
    let stats = Stats::default();
    let mut out = None;
    let job = Job {
        input: Some(input),
        algo,
        tag: (),
    };
    run(plan, &stats, std::iter::once(job), &mut |(), o| {
        out = o;
        Ok(())
    })?;
    out.unwrap_or_else(|| Err(io::Error::other("no outcome")))
}
