//! The hasher side of the pipeline: take work from the reader, hash it
//! `--chunk` bytes per update, give the blocks back to the pool. The MD5
//! inputs of a batch are hashed side by side in SIMD lanes
//! ([`crate::md5::lanes`]): many small files are many independent streams.

use std::io;
use std::time::Instant;

use crossbeam_channel::{Receiver, Sender};

use super::reader::{Batch, Packed};
use super::{Block, Work};
use crate::algo::{Algorithm, Digest, Hasher};
use crate::md5::lanes::Engine;
use crate::read::Outcome;
use crate::read::feed::Finished;
use crate::stats::Stats;

/// A hasher thread: take work until there is none, send each outcome on.
pub(super) fn hasher_loop<T, P>(
    work: Receiver<Work<T>>,
    chunk: usize,
    returns: Sender<Vec<u8>>,
    done: Sender<Finished<T, P>>,
    stats: &Stats,
) {
    let mut lanes: Option<Engine> = None;
    for w in work {
        let finished = match w {
            Work::Batch(batch) => {
                let (finished, block) = hash_batch(batch, chunk, &mut lanes, stats);
                // never blocks: the return channel has room for the whole pool
                let _ = returns.send(block);
                finished
            }
            Work::Stream { idx, task, blocks } => {
                let Some(r) = consume(task.algo, &blocks, chunk, &returns, stats) else {
                    return;
                };
                vec![(idx, Outcome::Hashed(task, r))]
            }
            Work::Mapped { idx, task, map } => {
                let mut hasher = Hasher::new(task.algo);
                let r = map.hash_into(&mut hasher, stats).map(|()| {
                    stats.add_file();
                    hasher.finalize()
                });
                vec![(idx, Outcome::Hashed(task, r))]
            }
        };
        if done.send(finished).is_err() {
            return;
        }
    }
}

/// The smallest `--chunk` with which MD5 inputs go through the lanes: from
/// 4 KiB up the update size makes no measurable difference (seed 002's
/// study, docs/BENCHMARKS.md), so the lanes take whole inputs; below it a
/// run is a study of small updates, which stays single-stream.
const LANES_MIN_CHUNK: usize = 4096;

/// Hash the inputs packed in a batch: the MD5 ones side by side in the
/// lanes (unless `--chunk` is below [`LANES_MIN_CHUNK`]), the others one
/// by one, `--chunk` bytes per update.
fn hash_batch<T, P>(
    batch: Batch<T>,
    chunk: usize,
    lanes: &mut Option<Engine>,
    stats: &Stats,
) -> (Finished<T, P>, Vec<u8>) {
    let Batch { block, items, .. } = batch;
    let in_lanes = |it: &Packed<T>| it.task.algo == Algorithm::Md5 && chunk >= LANES_MIN_CHUNK;
    let mut from_lanes: Vec<Option<[u8; 16]>> = vec![None; items.len()];
    if items.iter().filter(|it| in_lanes(it)).count() > 1 {
        let engine = lanes.get_or_insert_with(Engine::selected);
        let before = engine.stats();
        let messages = items.iter().enumerate().filter(|(_, it)| in_lanes(it));
        engine.hash_messages(messages.map(|(i, it)| (i as u64, &block[it.range.clone()])));
        for (i, digest) in engine.take_done() {
            if let Some(slot) = usize::try_from(i).ok().and_then(|i| from_lanes.get_mut(i)) {
                *slot = Some(digest);
            }
        }
        stats.add_lanes(engine.stats(), before);
    }
    let mut finished = Vec::with_capacity(items.len());
    for (it, lane_digest) in items.into_iter().zip(from_lanes) {
        let data = &block[it.range.clone()];
        let digest = match lane_digest {
            Some(d) => Digest::md5(d),
            None => {
                let mut hasher = Hasher::new(it.task.algo);
                for piece in data.chunks(chunk) {
                    hasher.update(piece);
                }
                hasher.finalize()
            }
        };
        stats.add_bytes(data.len());
        stats.add_file();
        finished.push((it.idx, Outcome::Hashed(it.task, Ok(digest))));
    }
    (finished, block)
}

/// Hash a streamed input's blocks, returning each to the pool. `None` when
/// the reader went away mid-input (teardown).
fn consume(
    algo: Algorithm,
    blocks: &Receiver<Block>,
    chunk: usize,
    returns: &Sender<Vec<u8>>,
    stats: &Stats,
) -> Option<io::Result<Digest>> {
    let mut hasher = Hasher::new(algo);
    let r = feed_blocks(blocks, chunk, returns, stats, |piece| hasher.update(piece))?;
    Some(r.map(|()| {
        stats.add_file();
        hasher.finalize()
    }))
}

/// Hand the blocks of one input to `update`, `chunk` bytes at a time, and
/// return each block to the pool: the consumer side of a stream, shared by
/// hashing ([`consume`]) and draining ([`super::drain_reader`]). `None`
/// when the reader went away mid-input.
pub(super) fn feed_blocks(
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
