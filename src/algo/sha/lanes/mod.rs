//! Multi-message SHA-1 and SHA-256 (and SHA-224): several independent
//! messages (the files of a tree) hashed in one loop.
//!
//! One SHA-NI stream is a chain of `sha256rnds2` (or `sha1rnds4`), each
//! waiting for the one before; the unit could start another sooner. Two or
//! four messages interleaved in one loop (`sha256.rs`, `sha1.rs`, one
//! generic kernel per hash, instantiated for 1, 2 and 4 messages) fill
//! those cycles. With sixteen messages in flight, sixteen lanes of AVX-512
//! registers (`avx512.rs`, the rounds in plain vector operations) go
//! further still (examples/sha_lanes.rs measures each against one SHA-NI
//! stream: docs/BENCHMARKS.md, "SHA-1/SHA-256 across files"). Small
//! messages gain less: they pay the engine's work per message and per call
//! (a padded tail, a digest, calls a block or two long).
//!
//! [`Engine`] on top has the MD5 lane engine's shape: whole messages in,
//! given as (id, bytes); each is padded as FIPS 180-4 says (0x80, zeros,
//! the bit length big-endian), a lane whose message ends takes the next
//! one, and digests come out with their ids in [`Engine::take_done`]. Lanes
//! with blocks are grouped into the widest kernels the path has (sixteen on
//! the AVX-512 path while enough messages are in flight, their chaining
//! values kept lane-major between calls; then four, two, one), so a lone
//! message runs through the one-message kernel. Only the sixteen-lane
//! kernel ever computes idle lanes: from `Sha::MIN_WIDE` messages in
//! flight, where one sixteen-lane call starts to beat the SHA-NI kernels
//! on them (the example's cross-over rows).
//!
//! The path is chosen at run time from what the CPU has, unless the
//! environment variable `FASTSUM_SHA_LANES` forces one: `avx512-16`,
//! `sha-ni-4`, `sha-ni-2`, `sha-ni-1` (fastsum's one-message SHA-NI
//! kernel), `off` (the sha1/sha2 crates' single-stream code, every CPU: the
//! reference) or `auto`.

#[cfg(target_arch = "x86_64")]
mod avx512;
#[cfg(target_arch = "x86_64")]
mod shani_sha1;
#[cfg(target_arch = "x86_64")]
mod shani_sha256;
#[cfg(test)]
mod tests;

use std::fmt;

pub use crate::algo::platform::ShaPath as Path;

/// Messages of at most this many whole blocks are copied to their lane
/// with their padding, so that each is one segment: a kernel call ends
/// when any lane's segment does, and a message cut in two (its blocks,
/// then its padded tail) costs a call more. The copy costs less than the
/// call for small files (examples/sha_lanes.rs, 0-1 KiB messages).
const COPY_BLOCKS: usize = 16;

/// Lanes of the widest path.
const MAX_WIDTH: usize = 16;

/// How the engine uses each path (what the CPU runs is
/// `crate::algo::platform`'s).
impl Path {
    /// How many messages one call of the path's widest kernel advances.
    pub fn width(self) -> usize {
        match self {
            #[cfg(target_arch = "x86_64")]
            Path::Avx512x16 => 16,
            #[cfg(target_arch = "x86_64")]
            Path::ShaNi4 => 4,
            #[cfg(target_arch = "x86_64")]
            Path::ShaNi2 => 2,
            #[cfg(target_arch = "x86_64")]
            Path::ShaNi1 => 1,
            Path::Off => 1,
        }
    }
}

mod sealed {
    pub trait Sealed {}
}

/// A hash of the SHA-1/SHA-2 family with 32-bit words that the engine runs:
/// [`Sha1`], [`Sha224`], [`Sha256`].
pub trait Sha: sealed::Sealed + Copy + fmt::Debug + 'static {
    /// The chaining value.
    type State: Copy + fmt::Debug;
    /// The digest bytes.
    type Digest: Copy + fmt::Debug + Eq + AsRef<[u8]>;
    /// The initial chaining value (FIPS 180-4, 5.3).
    const INIT: Self::State;
    /// The digest of a final chaining value (words big-endian, truncated).
    fn digest(state: &Self::State) -> Self::Digest;
    /// The crate's single-stream block function (the `Off` path).
    fn single(state: &mut Self::State, blocks: &[[u8; 64]]);
    /// Advance every `states[l]` by the first `n` blocks of `blocks[l]`,
    /// `n` the shortest length; returns `n`.
    ///
    /// # Safety
    /// The CPU has SHA-NI, SSE4.1 and SSSE3 (`Path::ShaNi1.is_available()`).
    unsafe fn compress<const N: usize>(
        states: &mut [Self::State; N],
        blocks: [&[[u8; 64]]; N],
    ) -> usize;
    /// The chaining values of sixteen messages, lane-major: word `j` of
    /// lane `l` at `[j][l]`, as the 16-lane kernel keeps them.
    type Wide: Copy + fmt::Debug;
    /// A `Wide` of zeros.
    const WIDE_ZERO: Self::Wide;
    /// Lane `l`'s chaining value.
    fn wide_get(wide: &Self::Wide, l: usize) -> Self::State;
    /// Set lane `l`'s chaining value.
    fn wide_set(wide: &mut Self::Wide, l: usize, state: &Self::State);
    /// Whether `compress16` is a 16-lane AVX-512 kernel (else the engine
    /// never calls it).
    const LANES16: bool = false;
    /// Fewest messages in flight for which one 16-lane call beats the
    /// SHA-NI kernels on them (examples/sha_lanes.rs, "cross-over").
    const MIN_WIDE: usize = 16;
    /// As `compress`, sixteen messages in AVX-512 lanes, their chaining
    /// values kept lane-major between calls (no transposition per call).
    ///
    /// # Safety
    /// The CPU has AVX-512F and AVX-512BW (`Path::Avx512x16.is_available()`).
    unsafe fn compress16(wide: &mut Self::Wide, blocks: [&[[u8; 64]]; 16]) -> usize {
        let n = blocks.iter().map(|b| b.len()).min().unwrap_or(0);
        for (l, b) in blocks.iter().enumerate() {
            let mut s = Self::wide_get(wide, l);
            Self::single(&mut s, &b[..n]);
            Self::wide_set(wide, l, &s);
        }
        n
    }
}

/// `Sha::wide_get` for `W` words.
fn column<const W: usize>(wide: &[[u32; 16]; W], l: usize) -> [u32; W] {
    core::array::from_fn(|j| wide[j][l])
}

/// `Sha::wide_set` for `W` words.
fn set_column<const W: usize>(wide: &mut [[u32; 16]; W], l: usize, state: &[u32; W]) {
    for (row, w) in wide.iter_mut().zip(state) {
        row[l] = *w;
    }
}

/// SHA-256 (FIPS 180-4).
#[derive(Clone, Copy, Debug)]
pub struct Sha256;
/// SHA-224 (FIPS 180-4): SHA-256's blocks, another start, 28 bytes out.
#[derive(Clone, Copy, Debug)]
pub struct Sha224;
/// SHA-1 (FIPS 180-4).
#[derive(Clone, Copy, Debug)]
pub struct Sha1;

impl sealed::Sealed for Sha256 {}
impl sealed::Sealed for Sha224 {}
impl sealed::Sealed for Sha1 {}

/// Big-endian bytes of the first `M / 4` words of `state`.
fn be_words<const M: usize>(state: &[u32]) -> [u8; M] {
    let mut out = [0u8; M];
    for (bytes, w) in out.as_chunks_mut::<4>().0.iter_mut().zip(state) {
        *bytes = w.to_be_bytes();
    }
    out
}

/// Advance `N` messages with `kernel`, or, without SHA-NI, each through
/// `single` (never reached: no SHA-NI path is then available).
macro_rules! sha256_family {
    ($t:ty, $init:expr, $len:literal) => {
        impl Sha for $t {
            type State = [u32; 8];
            type Digest = [u8; $len];
            const INIT: [u32; 8] = $init;
            fn digest(state: &[u32; 8]) -> [u8; $len] {
                be_words(state)
            }
            fn single(state: &mut [u32; 8], blocks: &[[u8; 64]]) {
                ::sha2::block_api::compress256(state, blocks);
            }
            unsafe fn compress<const N: usize>(
                states: &mut [[u32; 8]; N],
                blocks: [&[[u8; 64]]; N],
            ) -> usize {
                #[cfg(target_arch = "x86_64")]
                // SAFETY: the caller guarantees SHA-NI, SSE4.1 and SSSE3.
                return unsafe { shani_sha256::compress(states, blocks) };
                #[cfg(not(target_arch = "x86_64"))]
                return portable(states, blocks, Self::single);
            }
            type Wide = [[u32; 16]; 8];
            const WIDE_ZERO: [[u32; 16]; 8] = [[0; 16]; 8];
            fn wide_get(wide: &[[u32; 16]; 8], l: usize) -> [u32; 8] {
                column(wide, l)
            }
            fn wide_set(wide: &mut [[u32; 16]; 8], l: usize, state: &[u32; 8]) {
                set_column(wide, l, state);
            }
            #[cfg(target_arch = "x86_64")]
            const LANES16: bool = true;
            // (examples/sha_lanes.rs's cross-over: docs/BENCHMARKS.md)
            const MIN_WIDE: usize = 9;
            #[cfg(target_arch = "x86_64")]
            unsafe fn compress16(wide: &mut [[u32; 16]; 8], blocks: [&[[u8; 64]]; 16]) -> usize {
                // SAFETY: the caller guarantees AVX-512F and AVX-512BW.
                unsafe { avx512::compress(wide, blocks) }
            }
        }
    };
}

sha256_family!(
    Sha256,
    [
        0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab,
        0x5be0cd19,
    ],
    32
);
sha256_family!(
    Sha224,
    [
        0xc1059ed8, 0x367cd507, 0x3070dd17, 0xf70e5939, 0xffc00b31, 0x68581511, 0x64f98fa7,
        0xbefa4fa4,
    ],
    28
);

impl Sha for Sha1 {
    type State = [u32; 5];
    type Digest = [u8; 20];
    const INIT: [u32; 5] = [0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0];
    fn digest(state: &[u32; 5]) -> [u8; 20] {
        be_words(state)
    }
    fn single(state: &mut [u32; 5], blocks: &[[u8; 64]]) {
        ::sha1::block_api::compress(state, blocks);
    }
    unsafe fn compress<const N: usize>(
        states: &mut [[u32; 5]; N],
        blocks: [&[[u8; 64]]; N],
    ) -> usize {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the caller guarantees SHA-NI, SSE4.1 and SSSE3.
        return unsafe { shani_sha1::compress(states, blocks) };
        #[cfg(not(target_arch = "x86_64"))]
        return portable(states, blocks, Self::single);
    }
    type Wide = [[u32; 16]; 5];
    const WIDE_ZERO: [[u32; 16]; 5] = [[0; 16]; 5];
    fn wide_get(wide: &[[u32; 16]; 5], l: usize) -> [u32; 5] {
        column(wide, l)
    }
    fn wide_set(wide: &mut [[u32; 16]; 5], l: usize, state: &[u32; 5]) {
        set_column(wide, l, state);
    }
    #[cfg(target_arch = "x86_64")]
    const LANES16: bool = true;
    // (examples/sha_lanes.rs's cross-over: docs/BENCHMARKS.md)
    const MIN_WIDE: usize = 7;
    #[cfg(target_arch = "x86_64")]
    unsafe fn compress16(wide: &mut [[u32; 16]; 5], blocks: [&[[u8; 64]]; 16]) -> usize {
        // SAFETY: the caller guarantees AVX-512F and AVX-512BW.
        unsafe { avx512::compress_sha1(wide, blocks) }
    }
}

/// `Sha::compress` through the single-stream function, where no SHA-NI
/// kernel is built.
#[cfg(not(target_arch = "x86_64"))]
fn portable<S, const N: usize>(
    states: &mut [S; N],
    blocks: [&[[u8; 64]]; N],
    single: fn(&mut S, &[[u8; 64]]),
) -> usize {
    let n = blocks.iter().map(|b| b.len()).min().unwrap_or(0);
    for (s, b) in states.iter_mut().zip(blocks) {
        single(s, &b[..n]);
    }
    n
}

/// Blocks hashed so far, by kernel width.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LaneStats {
    /// Blocks hashed by the sixteen-lane AVX-512 kernel.
    pub blocks16: u64,
    /// Blocks hashed by the four-message kernel.
    pub blocks4: u64,
    /// Blocks hashed by the two-message kernel.
    pub blocks2: u64,
    /// Blocks hashed one message at a time.
    pub blocks1: u64,
}

/// Where a lane's next blocks come from.
#[derive(Clone, Copy, Debug)]
enum Seg<'a> {
    /// No message.
    Idle,
    /// The whole blocks of the message itself, not yet hashed.
    Data(&'a [[u8; 64]]),
    /// The padded tail, from this block on.
    Tail(usize),
}

/// One message in flight.
#[derive(Clone, Copy, Debug)]
struct Lane<H: Sha> {
    id: u64,
    state: H::State,
    /// The message's last partial block, padded: one or two blocks; or,
    /// for a message of at most `COPY_BLOCKS` whole blocks, all of it.
    tail: [[u8; 64]; COPY_BLOCKS + 2],
    tail_blocks: usize,
}

/// Hashes many whole messages side by side: [`Engine::hash_messages`] takes
/// (id, bytes) pairs, refills each lane with the next message as soon as
/// its own ends, and leaves every digest, with its id, for
/// [`Engine::take_done`]. The engine keeps no borrowed data between calls
/// and is `Send`: a hasher thread keeps one and feeds it batch after batch.
///
/// ```
/// use fastsum::internals::{Sha256, ShaEngine};
///
/// let mut engine = ShaEngine::<Sha256>::selected();
/// engine.hash_messages([(7, &b"abc"[..]), (8, &b""[..])]);
/// let mut done: Vec<(u64, [u8; 32])> = engine.take_done().collect();
/// done.sort();
/// assert_eq!(done[0].0, 7);
/// assert_eq!(done[0].1[..4], [0xba, 0x78, 0x16, 0xbf]); // sha256("abc")
/// ```
#[derive(Clone, Debug)]
pub struct Engine<H: Sha> {
    /// The path it was made on (`path()`, for tests and examples).
    #[cfg(any(test, feature = "internals"))]
    path: Path,
    /// Whether groups of four, two and one message run on SHA-NI (else
    /// through the crates).
    sha_ni: bool,
    /// The chaining values while sixteen messages run in AVX-512 lanes;
    /// the lanes' own `state` then is stale.
    wide: H::Wide,
    /// Fewest messages in flight for a 16-lane call (`Sha::MIN_WIDE`, or
    /// `set_min_wide`'s).
    min_wide: usize,
    lanes: Vec<Lane<H>>,
    done: Vec<(u64, H::Digest)>,
    stats: LaneStats,
}

impl<H: Sha> Engine<H> {
    /// An engine on `path`, or `None` if this CPU cannot run it.
    pub fn new(path: Path) -> Option<Engine<H>> {
        let lane = Lane {
            id: 0,
            state: H::INIT,
            tail: [[0; 64]; COPY_BLOCKS + 2],
            tail_blocks: 0,
        };
        path.is_available().then(|| Engine {
            #[cfg(any(test, feature = "internals"))]
            path,
            sha_ni: path != Path::Off && crate::algo::platform::sha_ni(),
            wide: H::WIDE_ZERO,
            min_wide: H::MIN_WIDE,
            lanes: vec![lane; path.width()],
            done: Vec::new(),
            stats: LaneStats::default(),
        })
    }

    /// An engine on the selected path (`FASTSUM_SHA_LANES` or the best).
    pub fn selected() -> Engine<H> {
        // `selected` only returns available paths; `Off` always is.
        Engine::new(Path::selected())
            .or_else(|| Engine::new(Path::Off))
            .unwrap_or_else(|| unreachable!("the Off path runs everywhere"))
    }

    /// Run the 16-lane kernel while at least `n` messages (1 to 16) are in
    /// flight, the other lanes computing garbage, instead of
    /// `Sha::MIN_WIDE`: how examples/sha_lanes.rs measures the cross-over
    /// that `MIN_WIDE` encodes.
    #[cfg(any(test, feature = "internals"))]
    pub fn set_min_wide(&mut self, n: usize) {
        self.min_wide = n.clamp(1, 16);
    }

    /// The path this engine runs.
    #[cfg(any(test, feature = "internals"))]
    pub fn path(&self) -> Path {
        self.path
    }

    /// Blocks hashed so far, by kernel width.
    pub fn stats(&self) -> LaneStats {
        self.stats
    }

    /// Digests of finished messages, with their ids, in the order they
    /// finished.
    pub fn take_done(&mut self) -> std::vec::Drain<'_, (u64, H::Digest)> {
        self.done.drain(..)
    }

    /// Hash whole messages, given as (id, bytes); each lane takes the next
    /// message as soon as its own ends. On return every one of them is in
    /// `take_done`.
    pub fn hash_messages<'a>(&mut self, messages: impl IntoIterator<Item = (u64, &'a [u8])>) {
        let mut pending = messages.into_iter().fuse();
        let width = self.lanes.len();
        let mut segs = [Seg::Idle; MAX_WIDTH];
        let narrow = if self.sha_ni { width.min(4) } else { 1 };
        if H::LANES16 && width == 16 {
            // Sixteen lanes while enough messages are in flight, their
            // chaining values lane-major in `wide`; then the rest below.
            loop {
                let mut busy = 0;
                for (l, seg) in segs.iter_mut().enumerate().take(16) {
                    if matches!(seg, Seg::Idle)
                        && let Some((id, msg)) = pending.next()
                    {
                        *seg = self.start(l, id, msg);
                        H::wide_set(&mut self.wide, l, &H::INIT);
                    }
                    busy += usize::from(!matches!(seg, Seg::Idle));
                }
                if busy < self.min_wide {
                    for (l, seg) in segs.iter().enumerate().take(16) {
                        if !matches!(seg, Seg::Idle) {
                            self.lanes[l].state = H::wide_get(&self.wide, l);
                        }
                    }
                    break;
                }
                self.run_wide(&mut segs, busy);
            }
        }
        loop {
            let mut active = [0usize; MAX_WIDTH];
            let mut k = 0;
            for (l, seg) in segs.iter_mut().enumerate().take(width) {
                if matches!(seg, Seg::Idle)
                    && let Some((id, msg)) = pending.next()
                {
                    *seg = self.start(l, id, msg);
                }
                if !matches!(seg, Seg::Idle) {
                    active[k] = l;
                    k += 1;
                }
            }
            let mut rest = &active[..k];
            if rest.is_empty() {
                return;
            }
            while let [a, b, c, d, more @ ..] = rest
                && narrow >= 4
            {
                self.run([*a, *b, *c, *d], &mut segs);
                rest = more;
            }
            while let [a, b, more @ ..] = rest
                && narrow >= 2
            {
                self.run([*a, *b], &mut segs);
                rest = more;
            }
            for &a in rest {
                self.run([a], &mut segs);
            }
        }
    }

    /// Lane `l` takes a message: its padded tail is built now, and its
    /// whole blocks are its first segment (if any).
    fn start<'a>(&mut self, l: usize, id: u64, msg: &'a [u8]) -> Seg<'a> {
        let lane = &mut self.lanes[l];
        lane.id = id;
        lane.state = H::INIT;
        let (mut whole, mut rest) = msg.as_chunks::<64>();
        if whole.len() <= COPY_BLOCKS {
            // one segment, not two: one kernel call fewer per message
            (whole, rest) = (&[], msg);
        }
        lane.tail_blocks = rest.len() / 64 + if rest.len() % 64 < 56 { 1 } else { 2 };
        let end = 64 * lane.tail_blocks;
        // written in place: the rest, 0x80, zeros, the bit length
        let tail = &mut lane.tail.as_flattened_mut()[..end];
        tail[..rest.len()].copy_from_slice(rest);
        tail[rest.len()] = 0x80;
        tail[rest.len() + 1..end - 8].fill(0);
        let bits = (msg.len() as u64).wrapping_mul(8);
        tail[end - 8..].copy_from_slice(&bits.to_be_bytes());
        if whole.is_empty() {
            Seg::Tail(0)
        } else {
            Seg::Data(whole)
        }
    }

    /// One kernel call over the lanes `ls` (all with blocks), as many blocks
    /// as the shortest segment has; then each lane moves on: to its tail, or
    /// to its digest.
    fn run<const N: usize>(&mut self, ls: [usize; N], segs: &mut [Seg<'_>; MAX_WIDTH]) {
        let mut states = ls.map(|l| self.lanes[l].state);
        let blocks = ls.map(|l| match segs[l] {
            Seg::Data(d) => d,
            Seg::Tail(k) => &self.lanes[l].tail[k..self.lanes[l].tail_blocks],
            Seg::Idle => &[],
        });
        let n = if self.sha_ni {
            // SAFETY: the CPU has SHA-NI (`has_sha_ni`, in `Engine::new`).
            unsafe { H::compress(&mut states, blocks) }
        } else {
            let n = blocks.iter().map(|b| b.len()).min().unwrap_or(0);
            for (s, b) in states.iter_mut().zip(blocks) {
                H::single(s, &b[..n]);
            }
            n
        };
        match N {
            4 => self.stats.blocks4 += 4 * n as u64,
            2 => self.stats.blocks2 += 2 * n as u64,
            _ => self.stats.blocks1 += (N * n) as u64,
        }
        for (l, s) in ls.into_iter().zip(states) {
            self.lanes[l].state = s;
            segs[l] = self.advance(l, segs[l], n, &s);
        }
    }

    /// One call of the 16-lane kernel over all sixteen lanes (each with a
    /// message), as many blocks as the shortest segment has.
    fn run_wide(&mut self, segs: &mut [Seg<'_>; MAX_WIDTH], busy: usize) {
        let lanes = &self.lanes;
        let mut blocks: [&[[u8; 64]]; 16] = core::array::from_fn(|l| match segs[l] {
            Seg::Data(d) => d,
            Seg::Tail(k) => &lanes[l].tail[k..lanes[l].tail_blocks],
            Seg::Idle => &[],
        });
        // a free lane hashes the longest busy lane's blocks (its result
        // unused; it is reset when it takes a message): the call's length
        // is the shortest busy lane's
        let longest = blocks
            .iter()
            .copied()
            .max_by_key(|b| b.len())
            .unwrap_or(&[]);
        for (b, seg) in blocks.iter_mut().zip(segs.iter()) {
            if matches!(seg, Seg::Idle) {
                *b = longest;
            }
        }
        // SAFETY: `run_wide` runs only on the `Avx512x16` path, which is
        // available (`Engine::new`).
        let n = unsafe { H::compress16(&mut self.wide, blocks) };
        self.stats.blocks16 += (busy * n) as u64;
        for (l, seg) in segs.iter_mut().enumerate().take(16) {
            if !matches!(seg, Seg::Idle) {
                let s = H::wide_get(&self.wide, l);
                *seg = self.advance(l, *seg, n, &s);
            }
        }
    }

    /// Lane `l`'s segment after `n` blocks of `seg`, whose chaining value is
    /// now `state`: on in its data, to its tail, or, at its end, idle, its
    /// digest delivered.
    fn advance<'a>(&mut self, l: usize, seg: Seg<'a>, n: usize, state: &H::State) -> Seg<'a> {
        let tail_blocks = self.lanes[l].tail_blocks;
        match seg {
            Seg::Data(d) if d.len() > n => Seg::Data(&d[n..]),
            Seg::Data(_) => Seg::Tail(0),
            Seg::Tail(k) if k + n < tail_blocks => Seg::Tail(k + n),
            Seg::Tail(_) | Seg::Idle => {
                self.done.push((self.lanes[l].id, H::digest(state)));
                Seg::Idle
            }
        }
    }
}

/// Engines for the three hashes.
#[cfg(any(test, feature = "internals"))]
pub type Sha256Engine = Engine<Sha256>;
/// See [`Sha256Engine`].
#[cfg(any(test, feature = "internals"))]
pub type Sha224Engine = Engine<Sha224>;
/// See [`Sha256Engine`].
#[cfg(any(test, feature = "internals"))]
pub type Sha1Engine = Engine<Sha1>;

/// The digests of `messages`, in order, on `path` (for tests).
#[cfg(test)]
pub(crate) fn digests<H: Sha>(path: Path, messages: &[&[u8]]) -> Option<Vec<H::Digest>> {
    digests_with::<H>(path, None, messages)
}

/// `digests`, with `set_min_wide(n)` if given.
#[cfg(test)]
pub(crate) fn digests_with<H: Sha>(
    path: Path,
    min_wide: Option<usize>,
    messages: &[&[u8]],
) -> Option<Vec<H::Digest>> {
    let mut engine = Engine::<H>::new(path)?;
    if let Some(n) = min_wide {
        engine.set_min_wide(n);
    }
    engine.hash_messages(messages.iter().enumerate().map(|(i, m)| (i as u64, *m)));
    let mut out: Vec<Option<H::Digest>> = vec![None; messages.len()];
    for (id, d) in engine.take_done() {
        assert!(out[id as usize].replace(d).is_none(), "message {id} twice");
    }
    Some(
        out.into_iter()
            .enumerate()
            .map(|(i, d)| d.unwrap_or_else(|| panic!("message {i} has no digest")))
            .collect(),
    )
}
