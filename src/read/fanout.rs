//! One input, several algorithms, read once: the pieces of the input are
//! handed to every algorithm *group*, each group on a thread of its own
//! (as many as the input's route gives, see [`super::route`]), so K hashes
//! of one file take about the time of the costliest group instead of the
//! sum.
//!
//! The calling thread produces the pieces (reads them, or takes them from
//! the pipeline's block channel) and hashes one group itself; the other
//! groups run on helper threads started for this input, each fed the same
//! pieces through a bounded channel. A piece is shared, not copied: a pool
//! block travels as an [`Arc`]'d [`SharedBuf`] that goes back to its pool
//! only when the last group drops it, so the pool still bounds memory.
//! A helper that cannot be started leaves its group to the calling thread.

use crate::read::Buffer;
use std::io;
use std::sync::Arc;

use crossbeam_channel::{Sender, bounded};

use crate::algo::{Algorithms, Digest, Hashers};

/// A filled buffer shared by every group hashing it; the last one done with
/// it sends it back to `home` (a pool with room for every buffer it made).
#[derive(Clone)]
pub(crate) struct SharedBuf(Arc<Filled>);

/// The buffer behind a [`SharedBuf`].
struct Filled {
    buf: Buffer,
    n: usize,
    home: Sender<Buffer>,
}

impl SharedBuf {
    /// The first `n` bytes of `buf`, going back to `home` when dropped.
    pub(crate) fn new(buf: Buffer, n: usize, home: Sender<Buffer>) -> SharedBuf {
        SharedBuf(Arc::new(Filled { buf, n, home }))
    }
}

impl AsRef<[u8]> for SharedBuf {
    fn as_ref(&self) -> &[u8] {
        &self.0.buf[..self.0.n]
    }
}

impl Drop for Filled {
    fn drop(&mut self) {
        // never blocks: the pool's return channel has room for all it made
        let _ = self.home.try_send(std::mem::take(&mut self.buf));
    }
}

/// Split the positions of `algos` into at most `threads` groups of about
/// equal cost (longest first, each to the cheapest group so far). The
/// cheapest group comes first: the calling thread, which also reads, takes it.
pub(crate) fn groups(algos: Algorithms, threads: usize) -> Vec<Vec<usize>> {
    let n = threads.clamp(1, algos.len());
    let list = algos.as_slice();
    let mut order: Vec<usize> = (0..list.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(list[i].cost()));
    let mut groups: Vec<(u32, Vec<usize>)> = vec![(0, Vec::new()); n];
    for i in order {
        if let Some(g) = groups.iter_mut().min_by_key(|(cost, _)| *cost) {
            g.0 += list[i].cost();
            g.1.push(i);
        }
    }
    groups.sort_by_key(|(cost, _)| *cost);
    groups.into_iter().map(|(_, g)| g).collect()
}

/// Hash everything `produce` pushes with every algorithm of `algos`, on up
/// to `threads` threads, `chunk` bytes per update; up to `queue` pieces may
/// wait for each helper (what the producer's pool can spare: the deeper,
/// the fewer wake-ups when a group falls behind). The digests come back in
/// the order of `algos`; an error from `produce` is the outcome (no digest
/// is made from a partial read).
pub(crate) fn hash_fanned<C, F>(
    algos: Algorithms,
    threads: usize,
    chunk: usize,
    queue: usize,
    produce: F,
) -> io::Result<Vec<Digest>>
where
    C: AsRef<[u8]> + Clone + Send,
    F: FnOnce(&mut dyn FnMut(C)) -> io::Result<()>,
{
    let chunk = chunk.max(1);
    let update = |h: &mut Hashers, piece: &C| {
        for part in piece.as_ref().chunks(chunk) {
            h.update(part);
        }
    };
    let mut groups = groups(algos, threads).into_iter();
    let mut own = Hashers::of(algos, groups.next().unwrap_or_default());
    if algos.len() == 1 || threads <= 1 {
        own.merge(Hashers::of(algos, groups.flatten()));
        produce(&mut |piece: C| update(&mut own, &piece))?;
        return Ok(own.finalize());
    }
    std::thread::scope(|s| {
        let mut helpers = Vec::new();
        for g in groups {
            let hashers = Hashers::of(algos, g);
            let (tx, rx) = bounded::<C>(queue.max(1));
            let spawned = std::thread::Builder::new()
                .name("fan-out".into())
                .stack_size(super::THREAD_STACK)
                .spawn_scoped(s, {
                    let mut hashers = hashers.clone();
                    move || {
                        for piece in rx {
                            update(&mut hashers, &piece);
                        }
                        hashers
                    }
                });
            match spawned {
                Ok(handle) => helpers.push((tx, handle)),
                // no thread: this group is hashed here
                Err(_) => own.merge(hashers),
            }
        }
        let produced = produce(&mut |piece: C| {
            for (tx, _) in &helpers {
                // a helper only stops when its channel closes: send never fails
                let _ = tx.send(piece.clone());
            }
            update(&mut own, &piece);
        });
        let mut all = Vec::with_capacity(algos.len());
        for (tx, handle) in helpers {
            drop(tx);
            match handle.join() {
                Ok(h) => all.extend(h.finalize_at()),
                Err(_) => return Err(io::Error::other("a hashing thread failed")),
            }
        }
        produced?;
        all.extend(own.finalize_at());
        all.sort_by_key(|(i, _)| *i);
        Ok(all.into_iter().map(|(_, d)| d).collect())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algo::{Algorithm, hash_bytes};

    #[test]
    fn groups_balance_cost_and_cover_every_algorithm() {
        use Algorithm::*;
        let four = Algorithms::new([Md5, Sha1, Sha256, Sha512]).unwrap();
        let g = groups(four, 2);
        assert_eq!(g.len(), 2);
        let mut all: Vec<usize> = g.concat();
        all.sort();
        assert_eq!(all, vec![0, 1, 2, 3]);
        let cost = |g: &Vec<usize>| g.iter().map(|&i| four.as_slice()[i].cost()).sum::<u32>();
        assert!(cost(&g[0]) <= cost(&g[1]));
        assert_eq!(groups(four, 1), vec![vec![0, 3, 1, 2]]);
        assert_eq!(groups(four, 64).len(), 4);
        assert_eq!(groups(Algorithms::one(Sha1), 8), vec![vec![0]]);
    }

    #[test]
    fn every_group_sees_every_piece_and_errors_win() {
        let data: Vec<u8> = (0..300_000u32).map(|i| (i * 7 + i / 255) as u8).collect();
        let algos = Algorithms::new(Algorithm::ALL).unwrap();
        let want: Vec<Digest> = Algorithm::ALL
            .iter()
            .map(|&a| hash_bytes(a, &data))
            .collect();
        for threads in [1, 2, 3, 7, 100] {
            for chunk in [1000, 65_536] {
                let got = hash_fanned(algos, threads, 7, 3, |push| {
                    data.chunks(chunk).for_each(&mut *push);
                    Ok(())
                });
                assert_eq!(got.unwrap(), want, "threads {threads} chunk {chunk}");
            }
            let failed = hash_fanned(algos, threads, 7, 1, |push| {
                push(&data[..10]);
                Err(io::Error::other("failed read"))
            });
            assert_eq!(failed.unwrap_err().to_string(), "failed read");
        }
    }

    #[test]
    fn shared_buffers_go_home_when_the_last_group_is_done() {
        let (home, back) = bounded(10);
        let algos = Algorithms::new([Algorithm::Md5, Algorithm::Sha256]).unwrap();
        let mut made = 0;
        let got = hash_fanned(algos, 2, 64, 4, |push| {
            for _ in 0..10 {
                let buf = back.try_recv().unwrap_or_else(|_| {
                    made += 1;
                    Buffer::from(vec![7u8; 1000])
                });
                push(SharedBuf::new(buf, 1000, home.clone()));
            }
            Ok(())
        })
        .unwrap();
        assert_eq!(got[1], hash_bytes(Algorithm::Sha256, &[7u8; 10_000]));
        // every buffer made is home again once both groups are done with it
        assert_eq!(back.try_iter().count(), made);
    }
}
