//! An input hashed over parts (`-a md5@8M`, `--part-size`, a bare ETag's
//! candidates) with its parts side by side: the full parts in groups of
//! the lane engines' width (`algo::parts::lanes`), the groups spread over
//! the route's threads, and the short last part, if any, on its own; the
//! run's other algorithms, if any, then over the whole input.
//!
//! No part is ever read whole: each group reads its parts' next stretches,
//! as long as the memory of `--pool` × `--readahead` allows over the
//! threads and lanes (a mapping's, in place, are released as hashed, at
//! most a mapping window resident), and its lanes advance by them. The
//! route decides when (`Router::parts_route`): a regular file of more than
//! one part, mapped where the route maps it, else read at offsets where
//! its size is exact (`Opened::size_may_be_stale` false) and it is no
//! shared input; anything else is read from start to end through
//! `algo::parts::Composer`.

use std::fs::File;
use std::io;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use super::Hashed;
use crate::algo::parts::lanes::{Group, compose, width};
use crate::algo::{Algorithm, Algorithms, Digest, Hasher, Hashers, Parts};
use crate::input::{Kind, Opened};
use crate::stats::Stats;

/// Where the parts' bytes are.
pub(crate) enum Source<'a> {
    /// A mapping of the input, and how to release a range of it once hashed.
    Mapped(&'a [u8], &'a (dyn Fn(usize, usize) + Sync)),
    /// A regular file, read at offsets from this start.
    File(&'a File, u64),
}

impl Source<'_> {
    /// The `n` bytes at each offset of `at`: in place, or read into `buf`
    /// (`at.len()` × `n` bytes at least). A file that ends before them
    /// changed since it was opened.
    fn stretches<'b>(
        &'b self,
        at: &[u64],
        n: usize,
        buf: &'b mut [u8],
    ) -> io::Result<Vec<&'b [u8]>> {
        match self {
            Source::Mapped(map, _) => Ok(at
                .iter()
                .map(|&a| {
                    let a = usize::try_from(a).unwrap_or(usize::MAX).min(map.len());
                    &map[a..(a + n).min(map.len())]
                })
                .collect()),
            Source::File(file, start) => {
                for (chunk, &a) in buf.chunks_mut(n).zip(at) {
                    crate::sys::read_exact_at(file, chunk, start + a).map_err(|e| {
                        if e.kind() == io::ErrorKind::UnexpectedEof {
                            crate::input::changed()
                        } else {
                            e
                        }
                    })?;
                }
                Ok(buf.chunks(n).take(at.len()).collect())
            }
        }
    }

    /// The `n` bytes at each offset of `at` are hashed.
    fn done(&self, at: &[u64], n: usize) {
        if let Source::Mapped(_, release) = self {
            for &a in at {
                release(usize::try_from(a).unwrap_or(usize::MAX), n);
            }
        }
    }
}

/// The parts `algo` composes in lanes, if it does, over an input of `len`
/// bytes: more than one part (one is a single PUT, its plain digest).
fn in_lanes(algo: Algorithm, len: u64) -> Option<Parts> {
    match algo {
        Algorithm::Parts(p) if width(p.of).is_some() && len > p.size.bytes() => Some(p),
        _ => None,
    }
}

/// Is any of `algos` composed in lanes over an input of `len` bytes?
pub(crate) fn any_in_lanes(algos: Algorithms, len: u64) -> bool {
    algos.as_slice().iter().any(|&a| in_lanes(a, len).is_some())
}

/// Hashers of those of `algos` not composed in lanes over `len` bytes,
/// each with its position in `algos`; `None` if there are none.
pub(crate) fn rest(algos: Algorithms, len: u64) -> Option<Hashers> {
    let list = algos.as_slice();
    let at: Vec<usize> = (0..list.len())
        .filter(|&i| in_lanes(list[i], len).is_none())
        .collect();
    (!at.is_empty()).then(|| Hashers::of(algos, at))
}

/// Digests with their positions, in the order of the positions.
pub(crate) fn in_order(mut digests: Vec<(usize, Digest)>) -> Vec<Digest> {
    digests.sort_by_key(|(i, _)| *i);
    digests.into_iter().map(|(_, d)| d).collect()
}

/// Hash the `len` bytes of `src` with those of `algos` composed in lanes,
/// one after the other, on up to `threads` threads, with `budget` bytes of
/// buffers at most: their digests with their positions in `algos`.
/// `bytes`: count the bytes for `--stats` (once, however many part
/// sizes; not if the others count them).
pub(crate) fn hash(
    src: &Source<'_>,
    len: u64,
    algos: Algorithms,
    (threads, budget): (usize, usize),
    (stats, bytes): (&Stats, bool),
) -> io::Result<Vec<(usize, Digest)>> {
    let mut digests = Vec::with_capacity(algos.len());
    for (i, &algo) in algos.as_slice().iter().enumerate() {
        let Some(parts) = in_lanes(algo, len) else {
            continue;
        };
        let counted = Counted {
            stats,
            bytes: bytes && digests.is_empty(),
        };
        digests.push((i, hash_parts(src, len, parts, (threads, budget), counted)?));
    }
    Ok(digests)
}

/// What is counted for `--stats`: the groups, and the bytes if this is
/// the input's first algorithm.
#[derive(Clone, Copy)]
struct Counted<'s> {
    stats: &'s Stats,
    bytes: bool,
}

/// What one thread takes at a time.
#[derive(Clone, Copy, Debug)]
enum Item {
    /// `k` full parts from the `first`.
    Group { first: u64, k: usize },
    /// The last part, shorter than the others.
    Tail,
}

/// The plan of one input over parts: which groups, which stretch.
struct Layout {
    parts: Parts,
    size: u64,
    full: u64,
    len: u64,
    items: Vec<Item>,
    /// Bytes of each part's stretch (whole blocks).
    stretch: usize,
    /// Threads that take items.
    workers: usize,
}

impl Layout {
    /// The full parts in as many groups as fill the lanes, a multiple of the
    /// threads, so that each thread has as many; the stretch as long as
    /// `budget` allows every thread's lanes (whole blocks, at least one).
    fn new(parts: Parts, len: u64, threads: usize, budget: usize) -> Layout {
        let size = parts.size.bytes();
        let full = len / size;
        let lanes = width(parts.of).unwrap_or(1).max(1) as u64;
        let threads = threads.max(1) as u64;
        let groups = full
            .div_ceil(lanes)
            .next_multiple_of(threads)
            .min(full)
            .max(1);
        let per = full.div_ceil(groups).max(1);
        let mut items: Vec<Item> = (0..full)
            .step_by(per as usize)
            .map(|first| Item::Group {
                first,
                k: per.min(full - first) as usize,
            })
            .collect();
        if !len.is_multiple_of(size) {
            items.push(Item::Tail);
        }
        let workers = (threads as usize).min(items.len()).max(1);
        let per_lane = budget / workers / per as usize;
        let stretch = (per_lane / 64 * 64).clamp(64, usize::try_from(size).unwrap_or(usize::MAX));
        Layout {
            parts,
            size,
            full,
            len,
            items,
            stretch,
            workers,
        }
    }
}

/// One item on its way: its hash so far, and how far it is.
struct Progress {
    /// The group's lanes, or the last part's hasher (taken at its end).
    lanes: Option<Lanes>,
    /// Offset in each part of the next stretch.
    off: u64,
    /// Its digests are in (or it failed).
    done: bool,
}

/// What an item's bytes go to.
enum Lanes {
    Group(Box<Group>),
    Tail(Box<Hasher>),
}

impl Progress {
    fn new(layout: &Layout, item: Item) -> io::Result<Progress> {
        let lanes = match item {
            Item::Group { k, .. } => Lanes::Group(Box::new(
                Group::new(layout.parts.of, k)
                    .ok_or_else(|| io::Error::other("no lanes compose it"))?,
            )),
            Item::Tail => Lanes::Tail(Box::new(Hasher::new(layout.parts.of.algorithm()))),
        };
        Ok(Progress {
            lanes: Some(lanes),
            off: 0,
            done: false,
        })
    }
}

/// One algorithm over parts, in lanes. The threads take rounds, not
/// items: a round is one stretch of every part of an item not being
/// advanced by another thread, so that a thread the scheduler holds back
/// (a loaded machine) holds back one round, not a quarter of the file.
fn hash_parts(
    src: &Source<'_>,
    len: u64,
    parts: Parts,
    (threads, budget): (usize, usize),
    stats: Counted<'_>,
) -> io::Result<Digest> {
    let layout = Layout::new(parts, len, threads, budget);
    let count = layout.full + u64::from(!len.is_multiple_of(layout.size));
    let digests: Mutex<Vec<Option<Digest>>> = Mutex::new(vec![None; count as usize]);
    let items = layout
        .items
        .iter()
        .map(|&item| Progress::new(&layout, item));
    let progress: Vec<Mutex<Progress>> = items
        .map(|p| p.map(Mutex::new))
        .collect::<io::Result<_>>()?;
    let failed = AtomicBool::new(false);
    let error: Mutex<Option<io::Error>> = Mutex::new(None);
    let next = AtomicUsize::new(0);
    let work = || {
        let mut buf = Vec::new();
        // (each thread starts at another item)
        let mut i = next.fetch_add(1, Ordering::Relaxed);
        while !failed.load(Ordering::Relaxed) {
            // the next item no other thread advances, after the last one
            let n = progress.len();
            let Some((at, mut p)) = (0..n).map(|j| (i + j) % n).find_map(|j| {
                let p = progress[j].try_lock().ok()?;
                (!p.done).then_some((j, p))
            }) else {
                // every item left is another thread's now
                return;
            };
            let round = round(src, &layout, layout.items[at], &mut p, &mut buf, stats);
            match round {
                Ok(Some((first, ds))) => {
                    p.done = true;
                    let mut all = digests.lock().unwrap_or_else(|p| p.into_inner());
                    for (slot, d) in all.iter_mut().skip(first as usize).zip(ds) {
                        *slot = Some(d);
                    }
                }
                Ok(None) => {}
                Err(e) => {
                    p.done = true;
                    failed.store(true, Ordering::Relaxed);
                    error
                        .lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .get_or_insert(e);
                }
            }
            i = at + 1;
        }
    };
    crate::algo::on_threads(layout.workers, |n| {
        rayon_core::scope(|s| {
            for _ in 1..n {
                s.spawn(|_| work());
            }
            work();
        });
    });
    if let Some(e) = error.into_inner().unwrap_or_else(|p| p.into_inner()) {
        return Err(e);
    }
    let digests: Option<Vec<Digest>> = digests
        .into_inner()
        .unwrap_or_else(|p| p.into_inner())
        .into_iter()
        .collect();
    let digests = digests.ok_or_else(|| io::Error::other("a part was not hashed"))?;
    Ok(compose(parts.of, &digests))
}

/// One round of `item`: the next stretch of each of its parts into its
/// lanes; at its end, its first part's number and its parts' digests.
fn round(
    src: &Source<'_>,
    layout: &Layout,
    item: Item,
    p: &mut Progress,
    buf: &mut Vec<u8>,
    stats: Counted<'_>,
) -> io::Result<Option<(u64, Vec<Digest>)>> {
    let (first, k, part_len) = match item {
        Item::Group { first, k } => (first, k, layout.size),
        Item::Tail => (layout.full, 1, layout.len - layout.full * layout.size),
    };
    if matches!(src, Source::File(..)) && buf.len() < k * layout.stretch {
        *buf = super::zeroed(k * layout.stretch).ok_or(io::ErrorKind::OutOfMemory)?;
    }
    let n = (part_len - p.off).min(layout.stretch as u64) as usize;
    let at: Vec<u64> = (first..first + k as u64)
        .map(|part| part * layout.size + p.off)
        .collect();
    let stretches = src.stretches(&at, n, buf)?;
    match &mut p.lanes {
        Some(Lanes::Group(g)) => g.update(&stretches),
        Some(Lanes::Tail(h)) => stretches.iter().for_each(|s| h.update(s)),
        None => return Err(io::Error::other("an item hashed twice")),
    }
    src.done(&at, n);
    if let Source::File(..) = src {
        (0..k).for_each(|_| stats.stats.add_read_call());
    }
    if stats.bytes {
        stats.stats.add_bytes(n * k);
    }
    p.off += n as u64;
    if p.off < part_len {
        return Ok(None);
    }
    let digests = match p.lanes.take() {
        Some(Lanes::Group(g)) => {
            stats.stats.add_lane_group(k);
            g.finish(part_len)
        }
        Some(Lanes::Tail(h)) => vec![h.finalize()],
        None => return Err(io::Error::other("an item hashed twice")),
    };
    Ok(Some((first, digests)))
}

/// Hash `opened` with its parts in lanes, read at offsets, if it can be
/// (a regular file of its own, of an exact size, an algorithm composed in
/// lanes over it; the others then read it from start to end, at offsets
/// too): its digests and size once its end is proved unchanged; `None` if
/// not (the caller reads it from start to end).
pub(crate) fn hash_read(
    opened: &mut Opened,
    algos: Algorithms,
    (threads, budget): (usize, usize),
    stats: &Stats,
) -> Option<io::Result<Hashed>> {
    let Kind::Regular { len } = opened.kind() else {
        return None;
    };
    if opened.is_shared() || opened.size_may_be_stale() || !any_in_lanes(algos, len) {
        return None;
    }
    let hashed = (|| {
        let (start, len) = opened.span()?;
        let src = Source::File(opened.file(), start);
        let rest = rest(algos, len);
        let mut digests = hash(&src, len, algos, (threads, budget), (stats, rest.is_none()))?;
        if let Some(mut rest) = rest {
            read_whole(opened.file(), (start, len), &mut rest, budget, stats)?;
            digests.extend(rest.finalize_at());
        }
        // (what a read that returns 0 proves on the other routes)
        opened.skip_to(start + len)?;
        if !opened.ends_here()? {
            return Err(crate::input::changed());
        }
        Ok(Hashed {
            digests: in_order(digests),
            size: len,
        })
    })();
    Some(hashed)
}

/// Feed the `len` bytes of `file` at `start` to `hashers`, read at offsets
/// into one buffer of at most `budget` bytes (a MiB at most).
fn read_whole(
    file: &File,
    (start, len): (u64, u64),
    hashers: &mut Hashers,
    budget: usize,
    stats: &Stats,
) -> io::Result<()> {
    let size = budget.clamp(4096, 1 << 20);
    let mut buf = super::zeroed(size).ok_or(io::ErrorKind::OutOfMemory)?;
    let src = Source::File(file, start);
    let mut at = 0u64;
    while at < len {
        let n = (len - at).min(size as u64) as usize;
        let stretch = src.stretches(&[at], n, &mut buf)?;
        stretch.iter().for_each(|s| hashers.update(s));
        stats.add_read_call();
        stats.add_bytes(n);
        at += n as u64;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algo::{Composed, PartSize};

    /// The stretches of every thread's lanes fit in the budget (a block's
    /// worth each at least), are whole blocks, and no longer than a part;
    /// the groups take every full part once, as many for each thread.
    #[test]
    fn stretches_fit_the_budget_and_groups_take_every_part_once() {
        for of in [Composed::Md5, Composed::Sha1, Composed::Sha256] {
            let lanes = width(of).unwrap_or(1);
            for (kib, parts, tail, threads, budget) in [
                (1, 1, 1, 1, 4096),
                (8 << 10, 16, 0, 2, 16 << 20),
                (8 << 10, 128, 0, 2, 16 << 20),
                (8 << 10, 33, 1, 2, 4096),
                (64, 17, 1, 3, 1 << 20),
                (1, 15, 0, 4, 64),
            ] {
                let Some(size) = PartSize::new(kib << 10) else {
                    panic!("{kib} KiB");
                };
                let p = Parts::new(of, size);
                let len = parts * size.bytes() + tail;
                let l = Layout::new(p, len, threads, budget);
                let what = format!("{of:?} {parts} parts of {kib} KiB + {tail}, -j {threads}");
                assert!(
                    l.stretch.is_multiple_of(64) && l.stretch as u64 <= size.bytes(),
                    "{what}"
                );
                let mut next = 0;
                let mut widest = 0;
                for item in &l.items {
                    if let Item::Group { first, k } = *item {
                        assert_eq!(first, next, "{what}");
                        assert!(k >= 1 && k <= lanes, "{what}");
                        (next, widest) = (first + k as u64, widest.max(k));
                    }
                }
                assert_eq!(next, parts, "{what}");
                assert_eq!(
                    matches!(l.items.last(), Some(Item::Tail)),
                    tail > 0,
                    "{what}"
                );
                let memory = l.workers * widest * l.stretch;
                assert!(
                    memory <= budget.max(l.workers * widest * 64),
                    "{what}: {memory}"
                );
            }
        }
    }
}
