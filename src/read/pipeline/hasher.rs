//! The hasher side of the pipeline: take work from the reader, hash it
//! `--chunk` bytes per update, give the blocks back to the pool. The inputs
//! of a batch hashed with one algorithm that has lanes (MD5, SHA-1,
//! SHA-224, SHA-256) are hashed side by side ([`super::lanes`]): many small
//! files are many independent streams.
//! A streamed input whose route fans out hands its blocks to algorithm
//! groups on several threads ([`crate::read::fanout`]); a block goes back
//! to the pool when the last group is done with it.

use std::io;
use std::time::Instant;

use crossbeam_channel::{Receiver, Sender};

use super::lanes::{Lanes, has_lanes};
use super::reader::{Batch, Packed};
use super::{Block, Work};
use crate::algo::{Algorithm, Algorithms, Digest, Hashers};
use crate::read::Outcome;
use crate::read::deliver::Finished;
use crate::read::fanout::{SharedBuf, hash_fanned};
use crate::read::route::Threads;
use crate::stats::Stats;

/// A hasher thread: take work until there is none, send each outcome on.
pub(super) fn hasher_loop<T, P>(
    work: Receiver<Work<T>>,
    chunk: usize,
    returns: Sender<Vec<u8>>,
    done: Sender<Finished<T, P>>,
    stats: &Stats,
) {
    let mut lanes = Lanes::default();
    for w in work {
        let finished = match w {
            Work::Batch(batch) => {
                let (finished, block) = hash_batch(batch, chunk, &mut lanes, stats);
                // never blocks: the return channel has room for the whole pool
                let _ = returns.send(block);
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
                let r = map.hash(task.algos, &threads, stats);
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

/// The smallest `--chunk` with which inputs go through the lanes: from
/// 4 KiB up the update size makes no measurable difference
/// (docs/BENCHMARKS.md, Table 2), so the lanes take whole inputs; below it a
/// run is a study of small updates, which stays single-stream.
const LANES_MIN_CHUNK: usize = 4096;

/// Hash the inputs packed in a batch: those of one algorithm with lanes
/// side by side, when there are several (unless `--chunk` is below
/// [`LANES_MIN_CHUNK`]), the others one by one, `--chunk` bytes per update.
fn hash_batch<T, P>(
    batch: Batch<T>,
    chunk: usize,
    lanes: &mut Lanes,
    stats: &Stats,
) -> (Finished<T, P>, Vec<u8>) {
    let Batch { block, items, .. } = batch;
    let lane_algo = |it: &Packed<T>| match it.task.algos.as_slice() {
        &[a] if has_lanes(a) && chunk >= LANES_MIN_CHUNK => Some(a),
        _ => None,
    };
    let mut from_lanes: Vec<Option<Digest>> = vec![None; items.len()];
    for algo in Algorithm::ALL {
        if items
            .iter()
            .filter(|it| lane_algo(it) == Some(algo))
            .count()
            > 1
        {
            let messages = items
                .iter()
                .enumerate()
                .filter(|(_, it)| lane_algo(it) == Some(algo))
                .map(|(i, it)| (i, &block[it.range.clone()]));
            lanes.hash(algo, messages, &mut from_lanes, stats);
        }
    }
    let mut finished = Vec::with_capacity(items.len());
    for (it, lane_digest) in items.into_iter().zip(from_lanes) {
        let data = &block[it.range.clone()];
        let digests = match lane_digest {
            Some(d) => vec![d],
            None => {
                let mut hashers = Hashers::new(it.task.algos);
                for piece in data.chunks(chunk) {
                    hashers.update(piece);
                }
                hashers.finalize()
            }
        };
        stats.add_bytes(data.len());
        stats.add_file();
        finished.push((it.idx, Outcome::Hashed(it.task, Ok(digests))));
    }
    (finished, block)
}

/// Hash a streamed input's blocks on `threads`, returning each block to
/// the pool. `None` when the reader went away mid-input (teardown).
fn hash_stream(
    algos: Algorithms,
    threads: &Threads,
    blocks: &Receiver<Block>,
    chunk: usize,
    returns: &Sender<Vec<u8>>,
    stats: &Stats,
) -> Option<io::Result<Vec<Digest>>> {
    let Threads::Fanned(_) = threads else {
        let mut hasher = Hashers::new(algos);
        let r = for_each_piece(blocks, chunk, returns, stats, |piece| hasher.update(piece))?;
        return Some(r.map(|()| {
            stats.add_file();
            hasher.finalize()
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
    Some(r)
}

/// Hand the blocks of one input to `update`, `chunk` bytes at a time, and
/// return each block to the pool: the consumer side of a stream, shared by
/// hashing ([`hash_stream`]) and draining (`super::drain_reader`, for benches). `None`
/// when the reader went away mid-input.
pub(super) fn for_each_piece(
    blocks: &Receiver<Block>,
    chunk: usize,
    returns: &Sender<Vec<u8>>,
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
