//! The hasher side of the pipeline: take work from the reader, hash it
//! `--chunk` bytes per update, give the blocks back to the pool. The inputs
//! of a batch hashed with one algorithm that has lanes (MD5, SHA-1,
//! SHA-224, SHA-256) are hashed side by side ([`super::lanes`]): many small
//! files are many independent streams.
//! A streamed input whose route fans out hands its blocks to algorithm
//! groups on several threads ([`crate::read::fanout`]); a block goes back
//! to the pool when the last group is done with it.

use crate::read::Buffer;
use std::io;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use crossbeam_channel::{Receiver, RecvError, Sender};

use super::lanes::Lanes;
use super::reader::{Batch, Help, Packed};
use super::{Block, Work, WorkRx};
use crate::algo::{Algorithm, Algorithms, Digest, Hashers};
use crate::read::deliver::Finished;
use crate::read::fanout::{SharedBuf, hash_fanned};
use crate::read::route::Threads;
use crate::read::{Hashed, Outcome};
use crate::stats::Stats;

/// A hasher thread: take work until there is none, send each outcome on.
pub(super) fn hasher_loop<T, P>(
    work: WorkRx<T>,
    chunk: usize,
    returns: Sender<Buffer>,
    done: Sender<Finished<T, P>>,
    stats: &Stats,
) {
    let mut lanes = Lanes::default();
    while let Some(w) = work.recv() {
        let finished = match w {
            Work::Batch(batch) => {
                // a batch already waiting joins this one: more messages for
                // the lanes in one call (none is waited for: on a quiet
                // machine the wait costs more wall time than the fuller
                // calls save, docs/BENCHMARKS.md "Many small files")
                let mut batches = vec![batch];
                while batches.len() < JOIN_BATCHES {
                    match work.batches.try_recv() {
                        Ok(b) => batches.push(b),
                        Err(_) => break,
                    }
                }
                let (finished, blocks) = hash_batches(batches, chunk, &mut lanes, stats);
                for block in blocks {
                    // never blocks: the return channel has room for the whole pool
                    let _ = returns.send(block);
                }
                finished
            }
            Work::Stream {
                idx,
                task,
                blocks,
                threads,
            } => {
                let Some(r) = hash_stream(task.algos, &threads, &blocks, chunk, &returns, stats)
                else {
                    return;
                };
                vec![(idx, Outcome::Hashed(task, r))]
            }
            Work::Mapped {
                idx,
                task,
                map,
                threads,
            } => {
                let r = map.hash(task.algos, &threads, stats).map(|digests| Hashed {
                    digests,
                    size: map.len(),
                });
                if r.is_ok() {
                    stats.add_file();
                }
                vec![(idx, Outcome::Hashed(task, r))]
            }
        };
        if done.send(finished).is_err() {
            return;
        }
    }
}

/// What the reader does while every block of the pool is out: rather than
/// sleep until a hasher gives one back, it hashes a batch waiting in the
/// queue itself, which frees that batch's block. When hashing is the slower
/// side (SHA-256 on SHA-NI over a tree), the hashers' threads and the reader
/// would otherwise share the cores unevenly and leave one partly idle:
/// docs/BENCHMARKS.md, "The reader hashes while it waits".
pub(super) struct Helper<'a, T, P> {
    batches: Receiver<Batch<T>>,
    done: Sender<Finished<T, P>>,
    chunk: usize,
    lanes: Lanes,
    stats: &'a Stats,
    /// False once `-j` hashers run (the reader then only waits).
    may: Arc<AtomicBool>,
}

impl<'a, T, P> Helper<'a, T, P> {
    pub(super) fn new(
        batches: Receiver<Batch<T>>,
        done: Sender<Finished<T, P>>,
        chunk: usize,
        stats: &'a Stats,
        may: Arc<AtomicBool>,
    ) -> Self {
        Helper {
            batches,
            done,
            chunk,
            lanes: Lanes::default(),
            stats,
            may,
        }
    }
}

impl<T, P> Help for Helper<'_, T, P> {
    fn wait(&mut self, free: &Receiver<Buffer>) -> Result<Buffer, RecvError> {
        if !self.may.load(Ordering::Relaxed) {
            return free.recv();
        }
        let batch = crossbeam_channel::select! {
            recv(free) -> b => return b,
            recv(self.batches) -> b => match b {
                Ok(b) => b,
                Err(_) => return free.recv(),
            },
        };
        let t = Instant::now();
        let (finished, mut blocks) =
            hash_batches(vec![batch], self.chunk, &mut self.lanes, self.stats);
        self.stats.add_reader_hashed(t.elapsed());
        self.done.send(finished).map_err(|_| RecvError)?;
        blocks.pop().ok_or(RecvError)
    }
}

/// The smallest `--chunk` with which inputs go through the lanes: from
/// 4 KiB up the update size makes no measurable difference
/// (docs/BENCHMARKS.md, Table 2), so the lanes take whole inputs; below it a
/// run is a study of small updates, which stays single-stream.
const LANES_MIN_CHUNK: usize = 4096;

/// The most batches a hasher hashes together, if that many wait for it:
/// a batch of files of up to 200 KiB holds about 40 in a 4 MiB block, too
/// few to keep 32 lanes busy to its end (the lanes wait for the longest
/// file); two hold twice as many messages for the same longest (three
/// measured no better, and leave the other hashers less to do).
const JOIN_BATCHES: usize = 2;

/// Hash the inputs packed in `batches`: those of one algorithm with lanes
/// side by side, longest first, when there are several (unless `--chunk`
/// is below [`LANES_MIN_CHUNK`]), the others one by one, `--chunk` bytes
/// per update. Gives the blocks back with the outcomes.
fn hash_batches<T, P>(
    batches: Vec<Batch<T>>,
    chunk: usize,
    lanes: &mut Lanes,
    stats: &Stats,
) -> (Finished<T, P>, Vec<Buffer>) {
    let mut blocks = Vec::with_capacity(batches.len());
    let mut items: Vec<(usize, Packed<T>)> = Vec::new();
    for (
        b,
        Batch {
            block, items: its, ..
        },
    ) in batches.into_iter().enumerate()
    {
        blocks.push(block);
        items.extend(its.into_iter().map(|it| (b, it)));
    }
    let data = |(b, it): &(usize, Packed<T>)| &blocks[*b][it.range.clone()];
    let lane_algo = |(_, it): &(usize, Packed<T>)| match it.task.algos.as_slice() {
        &[a] if a.lanes().is_some() && chunk >= LANES_MIN_CHUNK => Some(a),
        _ => None,
    };
    let mut from_lanes: Vec<Option<Digest>> = vec![None; items.len()];
    for algo in Algorithm::ALL {
        // longest first: each lane takes the next message as its own ends,
        // so the short ones fill in around the long ones and the lanes run
        // out together, instead of a few long late messages finishing in
        // nearly empty calls (or single-stream) at the end
        let mut order: Vec<usize> = (0..items.len())
            .filter(|&i| lane_algo(&items[i]) == Some(algo))
            .collect();
        if order.len() > 1 {
            order.sort_by_key(|&i| std::cmp::Reverse(items[i].1.range.len()));
            let messages = order.iter().map(|&i| (i, data(&items[i])));
            lanes.hash(algo, messages, &mut from_lanes, stats);
        }
    }
    let mut finished = Vec::with_capacity(items.len());
    for (item, lane_digest) in items.into_iter().zip(from_lanes) {
        let bytes = data(&item);
        let it = item.1;
        let digests = match lane_digest {
            Some(d) => vec![d],
            None => {
                let mut hashers = Hashers::new(it.task.algos);
                for piece in bytes.chunks(chunk) {
                    hashers.update(piece);
                }
                hashers.finalize()
            }
        };
        stats.add_bytes(bytes.len());
        stats.add_file();
        let size = bytes.len() as u64;
        finished.push((
            it.idx,
            Outcome::Hashed(it.task, Ok(Hashed { digests, size })),
        ));
    }
    (finished, blocks)
}

/// Hash a streamed input's blocks on `threads`, returning each block to
/// the pool. `None` when the reader went away mid-input (teardown).
fn hash_stream(
    algos: Algorithms,
    threads: &Threads,
    blocks: &Receiver<Block>,
    chunk: usize,
    returns: &Sender<Buffer>,
    stats: &Stats,
) -> Option<io::Result<Hashed>> {
    let mut size = 0u64;
    let Threads::Fanned(_) = threads else {
        let mut hasher = Hashers::new(algos);
        let r = for_each_piece(blocks, chunk, returns, stats, |piece| {
            size += piece.len() as u64;
            hasher.update(piece)
        })?;
        return Some(r.map(|()| {
            stats.add_file();
            Hashed {
                digests: hasher.finalize(),
                size,
            }
        }));
    };
    // fanned out: each block shared by the groups, back to the pool after the last
    let mut torn_down = false;
    let r = hash_fanned(
        algos,
        threads.count(),
        chunk,
        returns.capacity().unwrap_or(1),
        |push| {
            loop {
                let t = Instant::now();
                let Ok(msg) = blocks.recv() else {
                    torn_down = true;
                    return Ok(());
                };
                stats.add_hasher_wait(t.elapsed());
                match msg {
                    Block::Data(buf, n) => {
                        stats.add_bytes(n);
                        size += n as u64;
                        push(SharedBuf::new(buf, n, returns.clone()));
                    }
                    Block::End => return Ok(()),
                    Block::Err(e) => return Err(e),
                }
            }
        },
    );
    if torn_down {
        return None;
    }
    if r.is_ok() {
        stats.add_file();
    }
    Some(r.map(|digests| Hashed { digests, size }))
}

/// Hand the blocks of one input to `update`, `chunk` bytes at a time, and
/// return each block to the pool: the consumer side of a stream, shared by
/// hashing ([`hash_stream`]) and draining (`super::drain_reader`, for benches). `None`
/// when the reader went away mid-input.
pub(super) fn for_each_piece(
    blocks: &Receiver<Block>,
    chunk: usize,
    returns: &Sender<Buffer>,
    stats: &Stats,
    mut update: impl FnMut(&[u8]),
) -> Option<io::Result<()>> {
    loop {
        let t = Instant::now();
        let msg = blocks.recv().ok()?;
        stats.add_hasher_wait(t.elapsed());
        match msg {
            Block::Data(buf, n) => {
                for piece in buf[..n].chunks(chunk) {
                    update(piece);
                }
                stats.add_bytes(n);
                // never blocks: the return channel has room for the whole pool
                let _ = returns.send(buf);
            }
            Block::End => return Some(Ok(())),
            Block::Err(e) => return Some(Err(e)),
        }
    }
}
