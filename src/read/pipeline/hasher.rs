//! The hasher side of the pipeline: take work from the reader, hash it
//! `--chunk` bytes per update, give the blocks back to the pool. A streamed
//! input with several algorithms fans its blocks out to algorithm groups on
//! up to `-j` threads ([`crate::read::fanout`]); a block goes back to the
//! pool when the last group is done with it.

use std::io;
use std::time::Instant;

use crossbeam_channel::{Receiver, Sender};

use super::{Block, Work};
use crate::algo::{Algorithms, Digest, Hashers};
use crate::read::Outcome;
use crate::read::fanout::{SharedBuf, hash_fanned};
use crate::read::feed::Finished;
use crate::stats::Stats;

/// A hasher thread: take work until there is none, send each outcome on.
pub(super) fn hasher_loop<T, P>(
    work: Receiver<Work<T>>,
    chunk: usize,
    threads: usize,
    returns: Sender<Vec<u8>>,
    done: Sender<Finished<T, P>>,
    stats: &Stats,
) {
    for w in work {
        let finished = match w {
            Work::Batch(batch) => {
                let mut finished = Vec::with_capacity(batch.items.len());
                for it in batch.items {
                    let mut hasher = Hashers::new(it.task.algos);
                    let data = &batch.block[it.range];
                    for piece in data.chunks(chunk) {
                        hasher.update(piece);
                    }
                    stats.add_bytes(data.len());
                    stats.add_file();
                    finished.push((it.idx, Outcome::Hashed(it.task, Ok(hasher.finalize()))));
                }
                // never blocks: the return channel has room for the whole pool
                let _ = returns.send(batch.block);
                finished
            }
            Work::Stream {
                idx,
                task,
                blocks,
                fan,
            } => {
                let threads = if fan { threads } else { 1 };
                let Some(r) = consume(task.algos, threads, &blocks, chunk, &returns, stats) else {
                    return;
                };
                vec![(idx, Outcome::Hashed(task, r))]
            }
            Work::Mapped { idx, task, map } => {
                let mut hasher = Hashers::new(task.algos);
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

/// Hash a streamed input's blocks, returning each to the pool. `None` when
/// the reader went away mid-input (teardown).
fn consume(
    algos: Algorithms,
    threads: usize,
    blocks: &Receiver<Block>,
    chunk: usize,
    returns: &Sender<Vec<u8>>,
    stats: &Stats,
) -> Option<io::Result<Vec<Digest>>> {
    if algos.len() == 1 || threads == 1 {
        let mut hasher = Hashers::new(algos);
        let r = feed_blocks(blocks, chunk, returns, stats, |piece| hasher.update(piece))?;
        return Some(r.map(|()| {
            stats.add_file();
            hasher.finalize()
        }));
    }
    // fanned out: each block shared by the groups, back to the pool after the last
    let mut torn_down = false;
    let r = hash_fanned(
        algos,
        threads,
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
