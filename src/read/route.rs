//! How one opened input is read, and on how many threads: a [`Route`],
//! decided once per input by [`Router::route`] from the mode, the input's
//! algorithms, what the input is ([`Kind`]) and the run's fan-out budget,
//! then passed down to whatever reads and hashes it (`workers`, the
//! pipeline's reader and hashers, `mmap`, `fanout`), which follow it and
//! decide nothing of it again. Every read rule decided at open is in this
//! file; the two made while reading, from what the reads are seen to take
//! on storage with latency, are in `pipeline::reader::Latency` (small files
//! to the far readers) and `ranges::worth` (a file's ranges at once).

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use super::{Mode, Plan};
use crate::algo::{Algorithm, Algorithms};
use crate::input::Kind;

/// Regular files smaller than this are read, not mapped, in mmap mode:
/// below it the mmap/munmap calls and page faults cost more than a read
/// into the worker's buffer (docs/BENCHMARKS.md, "mmap threshold"). Keep
/// `--help`'s text for `--mode mmap` in step (a test checks it).
pub const MMAP_MIN: u64 = 64 * 1024;

/// Regular files shorter than this are hashed with all their algorithms on
/// one thread: starting and joining a helper thread would cost more than
/// it saves. Streams (of unknown length) may fan out.
const FAN_MIN: u64 = 1 << 20;

/// Regular files of this many bytes or more are "big" to [`Next`]: more
/// than the default pool holds (4 blocks of 4 MiB), so the reader cannot
/// read one whole ahead and go on to the next while it is hashed.
const BIG_MIN: u64 = 16 << 20;

/// Is an input of `kind` big (see [`BIG_MIN`])?
pub(crate) fn is_big(kind: Kind) -> bool {
    matches!(kind, Kind::Regular { len } if len >= BIG_MIN)
}

/// The most far readers a run starts (`pipeline::FarReaders`): requests
/// in flight to storage judged far. Each holds one open file and a buffer
/// no larger than its file ([`far_max`]).
pub(crate) const FAR_READERS: usize = 64;

/// Files smaller than this, on storage judged far, are read and hashed
/// whole by a far reader ([`Reads::Far`]); larger ones are streamed by the
/// reader. So that memory stays within the pool's (`--pool` ×
/// `--readahead`) whatever they hold, a far reader's share of it: a far
/// reader's buffer grows no larger than its file (`sync::hash_blocks`).
pub(crate) fn far_max(plan: &Plan) -> u64 {
    (plan.pool.saturating_mul(plan.readahead.get()) / FAR_READERS) as u64
}

/// Where an input is, as the storage observer judged its device when it
/// was opened (`crate::storage`; a shared input is always near).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Distance {
    /// Its requests are answered at once (the page cache, a local disk).
    Near,
    /// Each request waits a round trip: many should be in flight.
    Far,
}

impl Distance {
    /// The distance of `opened`, judged now (at its open).
    pub(crate) fn of(opened: &crate::input::Opened) -> Distance {
        let far = opened
            .device()
            .is_some_and(|d| crate::storage::observer().is_far(d));
        if far && !opened.is_shared() {
            Distance::Far
        } else {
            Distance::Near
        }
    }
}

/// What the opener has seen of the input after the one being routed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Next {
    /// A big regular file, opened and waiting.
    Big,
    /// Anything else: a small file, a stream, nothing, or not opened yet.
    Other,
}

/// Does `algo` hash faster than a read copies from the page cache (the
/// CRCs, the sums, xxHash)? Then one such file is read on the calling
/// thread: handing blocks to another costs more than it overlaps. (Not
/// mapped: a mapping of a freshly written file faults page by page and
/// costs twice the reads; docs/BENCHMARKS.md, "The checksum family".)
pub(super) fn outruns_copy(algo: Algorithm) -> bool {
    algo.cost() <= 1
}

/// The most readers that share the copy of one file out of the page cache
/// ([`Reads::Copiers`]): past a few, the one thread that hashes what they
/// copy, not the copy, sets the pace, even for the fastest hash.
const MAX_COPIERS: u8 = 4;

/// How one input is read and on how many threads.
#[derive(Debug)]
pub(crate) struct Route {
    /// How its bytes reach the hashers.
    pub(crate) via: Via,
    /// The threads that hash them.
    pub(crate) threads: Threads,
}

/// How an input's bytes reach the hashers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Via {
    /// Map the file and hash the mapping in place (`mmap`); if it cannot
    /// be mapped, or `cached_only` and some of it is not in the page
    /// cache, read it with `fallback` (`Mapped::of_route`).
    Map { fallback: Reads, cached_only: bool },
    /// Read it.
    Read(Reads),
}

/// The ways of reading an input with read calls.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Reads {
    /// The pipeline's reader fills pool blocks (`threaded`); run on one
    /// thread with no pipeline (`workers::run_here`), `--chunk` reads.
    Blocks,
    /// As `Blocks`, each block copied out of the page cache by one of this
    /// many readers at once, at its offset, and hashed in file order by
    /// one thread (`ranges::Crew::Copiers`): a big regular file hashed
    /// faster than one core copies it. Where a byte is not in the page
    /// cache, read on from it as `Blocks`.
    Copiers(u8),
    /// `--chunk` bytes per read call into one buffer (`sync`).
    Chunks,
    /// A small file on storage judged far, in the threaded mode: read,
    /// hashed and closed by a far reader, many at once
    /// (`pipeline::FarReaders`); where no pipeline runs, as `Blocks`.
    Far,
    /// One hash update per byte (`sync::hash_bytewise`).
    Bytewise,
}

/// The threads that hash one input.
#[derive(Debug)]
pub(crate) enum Threads {
    /// The thread that reads it.
    One,
    /// Up to this many threads where the algorithm can split one stream of
    /// bytes (BLAKE3 over a mapping, on rayon's threads) or the input's
    /// parts are hashed side by side (`read::parts`); one elsewhere.
    Wide(usize),
    /// The algorithms in groups (`fanout`): the reading thread and
    /// the helper threads lent by the run's fan-out budget.
    Fanned(Helpers),
}

impl Threads {
    /// How many threads hash the input, at most.
    pub(crate) fn count(&self) -> usize {
        match self {
            Threads::One => 1,
            Threads::Wide(n) => *n,
            Threads::Fanned(helpers) => 1 + helpers.n,
        }
    }
}

/// Helper threads lent to one input by the run's fan-out budget, given
/// back when the input is hashed (dropped).
#[derive(Debug)]
pub(crate) struct Helpers {
    n: usize,
    spare: Arc<AtomicUsize>,
}

impl Drop for Helpers {
    fn drop(&mut self) {
        self.spare.fetch_add(self.n, Ordering::AcqRel);
    }
}

/// The one place that decides how each input of a run is read: the plan,
/// and the helper threads of the fan-out budget not lent out right now.
#[derive(Debug)]
pub(crate) struct Router {
    plan: Plan,
    spare: Arc<AtomicUsize>,
}

impl Router {
    /// The router of a run with `plan`, every helper thread of its fan-out
    /// budget ([`Plan::fan_out`] less the reading thread) spare.
    pub(crate) fn new(plan: &Plan) -> Router {
        Router {
            plan: *plan,
            spare: Arc::new(AtomicUsize::new(plan.fan_out().saturating_sub(1))),
        }
    }

    /// The run's plan.
    pub(crate) fn plan(&self) -> &Plan {
        &self.plan
    }

    /// How an opened input of `kind`, hashed with `algos`, is read, and on
    /// how many threads. Mapping pays for regular files of [`MMAP_MIN`]
    /// bytes or more in mmap mode, and, in the threaded mode, for inputs
    /// of one algorithm whose tree hashes them on every core (BLAKE3's
    /// row: `Algorithm::maps_wide`) (the pipeline would feed one
    /// thread) and for big files with several algorithms (every group
    /// hashes the mapping in place, no copy into shared blocks:
    /// docs/BENCHMARKS.md, "Several algorithms"). Several algorithms over
    /// a big input (or a stream) fan out over as many helpers as the
    /// budget spares; bytewise reading stays on one thread. In the threaded
    /// mode a big file followed by another (`next`) is mapped if it is all
    /// in the page cache, so that a hasher takes it whole and the reader
    /// goes on to the next: several big files hash at once, where one
    /// reader feeding them in turn would hash one at a time (read, not
    /// mapped, when it is not cached: one sequential reader for a disk).
    pub(crate) fn route(&self, algos: Algorithms, kind: Kind, next: Next, at: Distance) -> Route {
        if let Some(route) = self.parts_route(algos, kind) {
            return route;
        }
        let (len, fans) = match kind {
            Kind::Regular { len } => (len, len >= FAN_MIN),
            Kind::Stream => (0, true),
        };
        let several = algos.len() > 1;
        let via = match self.plan.mode {
            Mode::Bytewise => Via::Read(Reads::Bytewise),
            Mode::Mmap if len >= MMAP_MIN => Via::Map {
                fallback: Reads::Chunks,
                cached_only: false,
            },
            Mode::Mmap | Mode::Sync => Via::Read(Reads::Chunks),
            Mode::Threaded
                if at == Distance::Far
                    && matches!(kind, Kind::Regular { len } if len < far_max(&self.plan)) =>
            {
                Via::Read(Reads::Far)
            }
            Mode::Threaded if !several && algos.first().maps_wide(len) => Via::Map {
                fallback: Reads::Blocks,
                cached_only: false,
            },
            Mode::Threaded if several && kind != Kind::Stream && fans => Via::Map {
                fallback: Reads::Blocks,
                cached_only: false,
            },
            Mode::Threaded
                if next == Next::Big
                    && self.plan.jobs > 1
                    && is_big(kind)
                    && !outruns_copy(algos.first()) =>
            {
                Via::Map {
                    fallback: Reads::Blocks,
                    cached_only: true,
                }
            }
            Mode::Threaded => match self.copiers(algos, kind, at) {
                n if n > 1 => Via::Read(Reads::Copiers(n)),
                _ => Via::Read(Reads::Blocks),
            },
        };
        let width = self.plan.fan_out();
        let threads = match via {
            _ if width <= 1 => Threads::One,
            Via::Read(Reads::Bytewise) => Threads::One,
            _ if several && fans => self.lend(width.min(algos.len()) - 1),
            // (one of several big files: the others have the other threads)
            Via::Map {
                cached_only: true, ..
            } => Threads::One,
            Via::Map { .. } => Threads::Wide(width),
            Via::Read(_) => Threads::One,
        };
        Route { via, threads }
    }

    /// An input of more than one part, an algorithm composed in lanes
    /// (`read::parts`): its parts side by side, on as many threads as the
    /// budget gives (`Wide`), then the other algorithms, if any, over the
    /// whole input. Mapped in the mmap mode, and in the threaded
    /// mode if it is all in the page cache; read at offsets in the sync
    /// mode (and where a mapping fails). The threaded mode reads an
    /// uncached one from start to end, as any input: one sequential reader
    /// for a disk, ranges in flight on storage with latency.
    fn parts_route(&self, algos: Algorithms, kind: Kind) -> Option<Route> {
        let Kind::Regular { len } = kind else {
            return None;
        };
        if !super::parts::any_in_lanes(algos, len) {
            return None;
        }
        let via = match self.plan.mode {
            Mode::Bytewise => return None,
            Mode::Threaded => Via::Map {
                fallback: Reads::Blocks,
                cached_only: true,
            },
            Mode::Mmap if len >= MMAP_MIN => Via::Map {
                fallback: Reads::Chunks,
                cached_only: false,
            },
            Mode::Mmap | Mode::Sync => Via::Read(Reads::Chunks),
        };
        // (a small file's groups on one thread: see FAN_MIN)
        let threads = match self.plan.fan_out() {
            n if n > 1 && len >= FAN_MIN => Threads::Wide(n),
            _ => Threads::One,
        };
        Some(Route { via, threads })
    }

    /// How many readers share the copy of an input of `kind` hashed with
    /// `algos`, `at` (in the threaded mode): a big regular file near,
    /// hashed with one algorithm faster than a copy out of the page cache
    /// runs on one core (the copy, not the hash, would set the pace), on as
    /// many of the budget's threads as pay ([`MAX_COPIERS`]); one for
    /// anything else. (Not mapped instead: mapping and unmapping every page
    /// costs more than copying it, docs/BENCHMARKS.md, "Copiers".)
    fn copiers(&self, algos: Algorithms, kind: Kind, at: Distance) -> u8 {
        let fits = algos.len() == 1 && is_big(kind) && outruns_copy(algos.first());
        if fits && at == Distance::Near {
            u8::try_from(self.plan.fan_out()).map_or(MAX_COPIERS, |n| n.min(MAX_COPIERS))
        } else {
            1
        }
    }

    /// Up to `want` helper threads from the budget: as many as are spare.
    fn lend(&self, want: usize) -> Threads {
        let got = self
            .spare
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |spare| {
                Some(spare - spare.min(want))
            })
            .map_or(0, |spare| spare.min(want));
        match got {
            0 => Threads::One,
            n => Threads::Fanned(Helpers {
                n,
                spare: Arc::clone(&self.spare),
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn router(mode: Mode, jobs: usize) -> Router {
        Router::new(&Plan {
            jobs,
            ..Plan::new(mode)
        })
    }

    /// Every rule, in one list: the mode, the algorithms and the kind of
    /// input give the way it is read and its threads.
    #[test]
    fn the_route_is_decided_by_mode_algorithms_kind_and_budget() {
        let big = Kind::Regular { len: 1 << 30 };
        let small = Kind::Regular { len: 10 };
        let stream = Kind::Stream;
        let [md5, blake3, crc] =
            [Algorithm::Md5, Algorithm::Blake3, Algorithm::Crc].map(Algorithms::one);
        let both = Algorithms::new([Algorithm::Blake3, Algorithm::Md5]).unwrap();
        let map = |fallback| Via::Map {
            fallback,
            cached_only: false,
        };
        use Mode::{Mmap, Sync, Threaded};
        use Reads::{Blocks, Chunks};
        for (mode, algos, kind, via, threads) in [
            (Threaded, md5, big, Via::Read(Blocks), 1),
            (Threaded, blake3, big, map(Blocks), 4),
            (Threaded, blake3, small, Via::Read(Blocks), 1),
            // an algorithm faster than the read's copy: read, the copy
            // shared by readers
            (Threaded, crc, big, Via::Read(Reads::Copiers(4)), 1),
            (Threaded, crc, small, Via::Read(Blocks), 1),
            // several algorithms: a big file mapped and fanned out, a
            // stream fanned out, a small file on one thread
            (Threaded, both, big, map(Blocks), 2),
            (Threaded, both, small, Via::Read(Blocks), 1),
            (Threaded, both, stream, Via::Read(Blocks), 2),
            (Mmap, md5, big, map(Chunks), 4),
            (Mmap, both, big, map(Chunks), 2),
            (Mmap, md5, small, Via::Read(Chunks), 1),
            (Mmap, md5, stream, Via::Read(Chunks), 1),
            (Sync, blake3, big, Via::Read(Chunks), 1),
            (Sync, both, big, Via::Read(Chunks), 2),
            (Mode::Bytewise, both, big, Via::Read(Reads::Bytewise), 1),
        ] {
            let route = router(mode, 4).route(algos, kind, Next::Other, Distance::Near);
            let what = format!("{mode:?} {algos:?} {kind:?}");
            assert_eq!(route.via, via, "{what}");
            assert_eq!(route.threads.count(), threads, "{what}");
            // -j 1: one thread, whatever the input
            let one = router(mode, 1).route(algos, kind, Next::Other, Distance::Near);
            assert_eq!(one.threads.count(), 1);
            assert!(!matches!(one.via, Via::Read(Reads::Copiers(_))), "{what}");
        }
    }

    /// A big regular file hashed with one algorithm faster than a copy, in
    /// the threaded mode, near: its copy shared by as many readers as the
    /// budget has threads, at most `MAX_COPIERS`; one thread hashes.
    /// Anything else (a small file, a stream, a slower algorithm, two
    /// algorithms, far storage, another mode, `-j 1`): no copiers.
    #[test]
    fn a_big_file_faster_to_hash_than_to_copy_has_copiers() {
        let big = Kind::Regular { len: BIG_MIN };
        let [xxh3, xxh32, crc32c, md5, blake3] = [
            Algorithm::Xxh3,
            Algorithm::Xxh32,
            Algorithm::Crc32c,
            Algorithm::Md5,
            Algorithm::Blake3,
        ]
        .map(Algorithms::one);
        let two = Algorithms::new([Algorithm::Xxh3, Algorithm::Crc32c]).unwrap();
        let copiers = |mode, jobs, algos, kind, at| {
            let route = router(mode, jobs).route(algos, kind, Next::Other, at);
            match route.via {
                Via::Read(Reads::Copiers(n)) => {
                    assert_eq!(route.threads.count(), 1);
                    n
                }
                _ => 1,
            }
        };
        use Distance::{Far, Near};
        use Mode::{Mmap, Sync, Threaded};
        for (mode, jobs, algos, kind, at, want) in [
            (Threaded, 2, xxh3, big, Near, 2),
            (Threaded, 2, xxh32, big, Near, 2),
            (Threaded, 3, crc32c, big, Near, 3),
            (Threaded, 64, xxh3, big, Near, MAX_COPIERS),
            (Threaded, 1, xxh3, big, Near, 1),
            (
                Threaded,
                2,
                xxh3,
                Kind::Regular { len: BIG_MIN - 1 },
                Near,
                1,
            ),
            (Threaded, 2, xxh3, Kind::Stream, Near, 1),
            (Threaded, 2, xxh3, big, Far, 1),
            (Threaded, 2, md5, big, Near, 1),
            (Threaded, 2, blake3, big, Near, 1),
            (Threaded, 2, two, big, Near, 1),
            (Sync, 2, xxh3, big, Near, 1),
            (Mmap, 2, xxh3, big, Near, 1),
        ] {
            let what = format!("{mode:?} -j {jobs} {algos:?} {kind:?} {at:?}");
            assert_eq!(copiers(mode, jobs, algos, kind, at), want, "{what}");
        }
    }

    /// An input of more than one part, an algorithm a lane engine composes
    /// among its algorithms: mapped if all cached (threaded) or in mmap
    /// mode, read at offsets in sync mode, on the budget's threads when big;
    /// one part, a CRC over parts, bytewise: the other rules.
    #[test]
    fn parts_in_lanes_are_mapped_or_read_at_offsets() {
        use crate::algo::{Composed, PartSize, Parts};
        let mib = |n| PartSize::mib(n).map(|s| Parts::new(Composed::Md5, s));
        let (Some(one), Some(crc)) = (mib(1), PartSize::mib(1)) else {
            panic!("1 MiB parts");
        };
        let md5 = Algorithms::one(Algorithm::Parts(one));
        let mixed = Algorithms::new([Algorithm::Parts(one), Algorithm::Crc64Nvme]).unwrap();
        let crc = Algorithms::one(Algorithm::Parts(Parts::new(Composed::Crc32c, crc)));
        let Some(kib64) = PartSize::new(64 << 10) else {
            panic!("64 KiB parts");
        };
        let md5_64k = Algorithms::one(Algorithm::Parts(Parts::new(Composed::Md5, kib64)));
        let big = Kind::Regular { len: 64 << 20 };
        let small = Kind::Regular { len: 200 << 10 };
        let cached = Via::Map {
            fallback: Reads::Blocks,
            cached_only: true,
        };
        let map = Via::Map {
            fallback: Reads::Chunks,
            cached_only: false,
        };
        use Mode::{Mmap, Sync, Threaded};
        for (mode, algos, kind, via, threads) in [
            (Threaded, md5, big, cached, 4),
            (Threaded, mixed, big, cached, 4),
            (Mmap, md5, big, map, 4),
            (Sync, md5, big, Via::Read(Reads::Chunks), 4),
            (Threaded, md5_64k, small, cached, 1),
            (Mode::Bytewise, md5, big, Via::Read(Reads::Bytewise), 1),
            // one part: a single PUT, the plain digest's route
            (
                Threaded,
                md5,
                Kind::Regular { len: 1 << 20 },
                Via::Read(Reads::Blocks),
                1,
            ),
            // (a CRC over parts: one stream, its copy shared)
            (Threaded, crc, big, Via::Read(Reads::Copiers(4)), 1),
        ] {
            let route = router(mode, 4).route(algos, kind, Next::Other, Distance::Near);
            let what = format!("{mode:?} {algos:?} {kind:?}");
            assert_eq!(route.via, via, "{what}");
            assert_eq!(route.threads.count(), threads, "{what}");
        }
    }

    /// A big file followed by another is mapped, if cached, and hashed on
    /// one thread (a hasher of its own), in the threaded mode under `-j 2`
    /// or more, for an algorithm slower than the read's copy; every other
    /// route is what it is with nothing after it.
    #[test]
    fn a_big_file_before_another_is_mapped_if_cached() {
        let big = Kind::Regular { len: BIG_MIN };
        let smaller = Kind::Regular { len: BIG_MIN - 1 };
        let [md5, sha256, blake3, xxh3] = [
            Algorithm::Md5,
            Algorithm::Sha256,
            Algorithm::Blake3,
            Algorithm::Xxh3,
        ]
        .map(Algorithms::one);
        let cached = Via::Map {
            fallback: Reads::Blocks,
            cached_only: true,
        };
        use Mode::{Mmap, Sync, Threaded};
        for (mode, jobs, algos, kind, mapped) in [
            (Threaded, 2, md5, big, true),
            (Threaded, 4, sha256, big, true),
            (Threaded, 1, md5, big, false),
            (Threaded, 2, md5, smaller, false),
            (Threaded, 2, md5, Kind::Stream, false),
            (Threaded, 2, xxh3, big, false),
            (Threaded, 2, blake3, big, false),
            (Mmap, 2, md5, big, false),
            (Sync, 2, md5, big, false),
        ] {
            let r = router(mode, jobs);
            let route = r.route(algos, kind, Next::Big, Distance::Near);
            let what = format!("{mode:?} -j {jobs} {algos:?} {kind:?}");
            assert_eq!(route.via == cached, mapped, "{what}: {route:?}");
            if mapped {
                assert_eq!(route.threads.count(), 1, "{what}");
            } else {
                let alone = r.route(algos, kind, Next::Other, Distance::Near);
                assert_eq!(route.via, alone.via, "{what}");
                assert_eq!(route.threads.count(), alone.threads.count(), "{what}");
            }
            assert!(is_big(big) && !is_big(smaller) && !is_big(Kind::Stream));
        }
    }

    /// On storage judged far, a small regular file goes to a far reader in
    /// the threaded mode; a larger one, a stream, or any in another mode is
    /// routed as it would be near.
    #[test]
    fn a_small_file_on_far_storage_goes_to_a_far_reader() {
        let md5 = Algorithms::one(Algorithm::Md5);
        let r = router(Mode::Threaded, 4);
        let max = far_max(r.plan());
        let far = |r: &Router, kind| r.route(md5, kind, Next::Other, Distance::Far).via;
        let near = |r: &Router, kind| r.route(md5, kind, Next::Other, Distance::Near).via;
        assert_eq!(
            far(&r, Kind::Regular { len: max - 1 }),
            Via::Read(Reads::Far)
        );
        assert_eq!(
            near(&r, Kind::Regular { len: max - 1 }),
            Via::Read(Reads::Blocks)
        );
        for kind in [Kind::Regular { len: max }, Kind::Stream] {
            assert_eq!(far(&r, kind), near(&r, kind), "{kind:?}");
        }
        let sync = router(Mode::Sync, 4);
        let small = Kind::Regular { len: 10 };
        assert_eq!(far(&sync, small), near(&sync, small));
    }

    /// The fan-out budget bounds the helper threads of all inputs hashed at
    /// once; an input done gives its helpers back.
    #[test]
    fn inputs_share_the_fan_out_budget() {
        let all = Algorithms::new(Algorithm::ALL).unwrap();
        let r = router(Mode::Sync, 4);
        let first = r.route(all, Kind::Stream, Next::Other, Distance::Near);
        let second = r.route(all, Kind::Stream, Next::Other, Distance::Near);
        assert_eq!(first.threads.count(), 4);
        assert_eq!(second.threads.count(), 1);
        drop(first);
        assert_eq!(
            r.route(all, Kind::Stream, Next::Other, Distance::Near)
                .threads
                .count(),
            4
        );
        let two = Algorithms::new([Algorithm::Sha1, Algorithm::Md5]).unwrap();
        let held: Vec<Route> = (0..4)
            .map(|_| r.route(two, Kind::Stream, Next::Other, Distance::Near))
            .collect();
        let counts: Vec<usize> = held.iter().map(|r| r.threads.count()).collect();
        assert_eq!(counts, [2, 2, 2, 1]);
    }
}
