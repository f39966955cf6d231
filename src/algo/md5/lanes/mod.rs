//! Multi-lane MD5: many independent messages hashed side by side, one per
//! 32-bit lane of a SIMD register.
//!
//! One MD5 stream is a chain of dependent steps and leaves most of a core
//! idle; independent messages (the files of a tree) have independent chains,
//! so a register of 16 (AVX-512F) or 8 (AVX2) lanes advances that many
//! streams for the cost of about one. One register's chain is still bound by
//! the latency of each step, so the default paths interleave two registers'
//! worth of lanes (32 with AVX-512F, 16 with AVX2); more groups spill
//! registers and lose (measured with examples/md5_lanes.rs). The block
//! functions (`avx512.rs`, `avx2.rs`, `scalar.rs`) each advance every lane of
//! a lane-major state by one 64-byte block; [`Engine`] on top keeps the
//! lanes busy: it pads and finishes each message as RFC 1321 says and refills
//! a freed lane with the next message. When too few lanes have a
//! block to make a multi-lane call pay, it runs them through the
//! single-stream kernel instead.
//!
//! The path is chosen at run time from what the CPU has, unless the
//! environment variable `FASTSUM_MD5_LANES` forces one: `avx512` (32
//! lanes), `avx512-16`, `avx2` (16 lanes), `avx2-8`, `scalar` (the portable
//! lanes, the tests' reference), `off` (single-stream kernel only) or `auto`.

#[cfg(target_arch = "x86_64")]
mod avx2;
#[cfg(target_arch = "x86_64")]
mod avx512;
mod scalar;
#[cfg(test)]
mod tests;

use super::{INIT, Kernel};
pub use crate::algo::platform::Md5Path as Path;

/// Lanes of the widest path; every state and block array has this many.
pub const LANES: usize = 32;

/// Lane-major MD5 state: `state[w][l]` is word `w` (a, b, c, d) of lane `l`.
type State = [[u32; LANES]; 4];
/// One 64-byte block per lane.
type Blocks<'a> = [&'a [u8; 64]; LANES];

/// How the engine uses each path (what the CPU runs is
/// `crate::algo::platform`'s).
impl Path {
    /// How many messages this path advances per block call.
    pub fn width(self) -> usize {
        match self {
            #[cfg(target_arch = "x86_64")]
            Path::Avx512 => 32,
            #[cfg(target_arch = "x86_64")]
            Path::Avx512x16 | Path::Avx2 => 16,
            #[cfg(target_arch = "x86_64")]
            Path::Avx2x8 => 8,
            Path::Scalar => LANES,
            Path::Off => 1,
        }
    }

    /// Fewest lanes with a block for which one call of this path's kernel
    /// beats running them one after the other through the single-stream
    /// kernel (measured with examples/md5_lanes.rs: the lanes,MBps rows).
    pub fn min_busy(self) -> usize {
        match self {
            #[cfg(target_arch = "x86_64")]
            Path::Avx512 | Path::Avx2 => 3,
            #[cfg(target_arch = "x86_64")]
            Path::Avx512x16 | Path::Avx2x8 => 2,
            Path::Scalar => 4,
            Path::Off => usize::MAX,
        }
    }

    /// The one-group kernel of a two-group path: a call whose busy lanes
    /// all lie in its width runs it instead, at about two thirds of the
    /// cost. Lanes are handed out lowest first, so few busy lanes usually
    /// do.
    pub fn narrow(self) -> Option<Path> {
        match self {
            #[cfg(target_arch = "x86_64")]
            Path::Avx512 => Some(Path::Avx512x16),
            #[cfg(target_arch = "x86_64")]
            Path::Avx2 => Some(Path::Avx2x8),
            _ => None,
        }
    }
}

/// The name of the multi-lane path this process uses, for `--stats`.
pub(crate) fn path_name() -> &'static str {
    Path::selected().name()
}

/// An all-zero block for lanes with nothing to hash in a call (their result
/// is thrown away).
static IDLE_BLOCK: [u8; 64] = [0; 64];

/// What a lane is doing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Status {
    /// Free for a new message.
    Idle,
    /// Hashing a whole message: pad once its data runs out.
    Busy,
    /// Padding written to `tail`; its blocks still to hash.
    Padded,
}

/// One lane's bookkeeping (its chaining value lives in `Engine::state`).
#[derive(Clone, Debug)]
struct Lane {
    status: Status,
    /// The caller's id of the message, returned with its digest.
    id: u64,
    /// Message bytes taken so far.
    length: u64,
    /// Busy: a partial block (< 64 bytes). Padded: the last one or
    /// two blocks, padding and length included.
    tail: [u8; 128],
    tail_len: usize,
    /// Padded: offset of the next block of `tail` to hash.
    tail_pos: usize,
}

impl Lane {
    const IDLE: Lane = Lane {
        status: Status::Idle,
        id: 0,
        length: 0,
        tail: [0; 128],
        tail_len: 0,
        tail_pos: 0,
    };

    /// Whether the lane can contribute a block.
    fn has_block(&self) -> bool {
        self.status != Status::Idle
    }

    /// Move all of `data` (which with the tail makes < 64 bytes) into the
    /// tail.
    fn absorb(&mut self, data: &mut &[u8]) {
        let n = data.len();
        self.tail[self.tail_len..self.tail_len + n].copy_from_slice(data);
        self.tail_len += n;
        self.length = self.length.wrapping_add(n as u64);
        *data = &[];
    }

    /// Busy lane with < 64 bytes left in all: append RFC 1321 padding
    /// (0x80, zeros, bit length little-endian), one block or two.
    fn pad(&mut self, data: &mut &[u8]) {
        self.absorb(data);
        let end = if self.tail_len < 56 { 64 } else { 128 };
        self.tail[self.tail_len] = 0x80;
        self.tail[self.tail_len + 1..end - 8].fill(0);
        self.tail[end - 8..end].copy_from_slice(&self.length.wrapping_mul(8).to_le_bytes());
        self.tail_len = end;
        self.tail_pos = 0;
        self.status = Status::Padded;
    }
}

/// Where a lane's block for one call comes from.
#[derive(Clone, Copy)]
enum Source<'a> {
    None,
    /// `Lane::tail` at this offset.
    Tail(usize),
    Data(&'a [u8; 64]),
}

/// Counters for `--stats`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LaneStats {
    /// Multi-lane block calls.
    pub calls: u64,
    /// Sum over those calls of the lanes that had a block.
    pub lane_blocks: u64,
    /// Blocks hashed by the single-stream kernel instead.
    pub single_blocks: u64,
}

impl LaneStats {
    /// Average busy lanes per multi-lane call (0 when there was none).
    #[cfg(any(test, feature = "internals"))]
    pub fn occupancy(&self) -> f64 {
        if self.calls == 0 {
            0.0
        } else {
            self.lane_blocks as f64 / self.calls as f64
        }
    }
}

/// Hashes many whole MD5 messages side by side: [`Engine::hash_messages`]
/// takes (id, bytes) pairs, refills each lane with the next message as soon
/// as its own ends, and leaves every digest, with its id, for
/// [`Engine::take_done`]. The engine owns no borrowed data between calls
/// and is `Send`: a hasher thread keeps one and feeds it batch after batch.
///
/// ```
/// use fastsum::internals::Engine;
///
/// let mut engine = Engine::selected();
/// engine.hash_messages([(0, &b"abc"[..]), (1, &b""[..])]);
/// let mut done: Vec<(u64, [u8; 16])> = engine.take_done().collect();
/// done.sort();
/// assert_eq!(done[0].1[..4], [0x90, 0x01, 0x50, 0x98]); // md5("abc")
/// ```
#[derive(Clone, Debug)]
pub struct Engine {
    path: Path,
    width: usize,
    /// `set_min_busy`'s override of `Path::min_busy`.
    min_busy: Option<usize>,
    kernel: Kernel,
    state: State,
    lanes: Vec<Lane>,
    done: Vec<(u64, [u8; 16])>,
    stats: LaneStats,
}

impl Engine {
    /// An engine on `path`, or `None` if this CPU cannot run it.
    pub fn new(path: Path) -> Option<Engine> {
        path.is_available().then(|| Engine::on(path))
    }

    /// An engine on the selected path (`FASTSUM_MD5_LANES` or the best).
    pub fn selected() -> Engine {
        let path = Path::selected();
        // `selected` only returns available paths; Off always is.
        Engine::new(path).unwrap_or_else(|| Engine::on(Path::Off))
    }

    /// An engine on `path`, available or not (`Off` always is).
    fn on(path: Path) -> Engine {
        let width = path.width();
        Engine {
            path,
            width,
            min_busy: None,
            kernel: Kernel::selected(),
            state: [[0; LANES]; 4],
            lanes: vec![Lane::IDLE; width],
            done: Vec::new(),
            stats: LaneStats::default(),
        }
    }

    /// Use the multi-lane function only when at least `n` lanes have a
    /// block (1: always; more than the width: never), instead of
    /// `Path::min_busy` of the kernel a call runs: how examples/md5_lanes.rs
    /// measures the cross-over that `min_busy` encodes.
    #[cfg(any(test, feature = "internals"))]
    pub fn set_min_busy(&mut self, n: usize) {
        self.min_busy = Some(n.max(1));
    }

    /// The multi-lane path this engine runs.
    #[cfg(any(test, feature = "internals"))]
    pub fn path(&self) -> Path {
        self.path
    }

    /// Block calls and lane occupancy so far.
    pub fn stats(&self) -> LaneStats {
        self.stats
    }

    /// Digests of finished messages, with their ids, in the order they
    /// finished.
    pub fn take_done(&mut self) -> std::vec::Drain<'_, (u64, [u8; 16])> {
        self.done.drain(..)
    }

    /// Hash whole messages, given as (id, bytes); each lane is refilled
    /// with the next message as soon as its own ends. On return every one
    /// of them is in `take_done`.
    pub fn hash_messages<'a>(&mut self, messages: impl IntoIterator<Item = (u64, &'a [u8])>) {
        let mut pending = messages.into_iter().fuse();
        let mut data: Vec<&[u8]> = vec![&[]; self.width];
        loop {
            for (l, d) in data.iter_mut().enumerate() {
                if self.lanes[l].status == Status::Idle
                    && let Some((id, msg)) = pending.next()
                {
                    self.start(l, id);
                    *d = msg;
                }
            }
            if !self.step(&mut data) {
                return;
            }
        }
    }

    /// Lane `l` takes a new message with this id.
    fn start(&mut self, l: usize, id: u64) {
        let lane = &mut self.lanes[l];
        lane.status = Status::Busy;
        lane.id = id;
        lane.length = 0;
        lane.tail_len = 0;
        lane.tail_pos = 0;
        for (w, init) in self.state.iter_mut().zip(INIT) {
            w[l] = init;
        }
    }

    /// One multi-lane call (the narrow kernel if the busy lanes fit in it)
    /// if at least `min_busy` lanes have a block; else every busy lane run
    /// to its digest alone. Returns whether anything was hashed.
    fn step(&mut self, data: &mut [&[u8]]) -> bool {
        let mut mask = 0u64;
        for (l, lane) in self.lanes.iter().enumerate() {
            if lane.has_block() {
                mask |= 1 << l;
            }
        }
        if mask == 0 {
            return false;
        }
        let kernel = match self.path.narrow() {
            Some(n) if mask >> n.width() == 0 => n,
            _ => self.path,
        };
        let min_busy = self.min_busy.unwrap_or(kernel.min_busy());
        let ready = mask.count_ones() as usize;
        if ready >= min_busy && self.path != Path::Off {
            if !self.multi_run(kernel, data) {
                self.multi(kernel, data, ready);
            }
            return true;
        }
        for (l, d) in data.iter_mut().enumerate().take(self.width) {
            if self.lanes[l].has_block() {
                self.single(l, d);
            }
        }
        true
    }

    /// The common case, made cheap: every lane with a block takes it straight
    /// from its data (no partial block in its tail, no padding due) and has
    /// at least two. Then as many calls as the shortest of them allows run
    /// back to back, with the lanes' bookkeeping done once for the run.
    /// Returns false (nothing done) when that is not the case.
    fn multi_run(&mut self, kernel: Path, data: &mut [&[u8]]) -> bool {
        let mut run = usize::MAX;
        let mut busy = 0u64;
        let mut chunks: [&[[u8; 64]]; LANES] = [&[]; LANES];
        for (l, (lane, d)) in self.lanes.iter().zip(data.iter()).enumerate() {
            match lane.status {
                Status::Idle => {}
                Status::Busy if lane.tail_len == 0 && d.len() >= 128 => {
                    chunks[l] = d.as_chunks::<64>().0;
                    run = run.min(chunks[l].len());
                    busy |= 1 << l;
                }
                _ => return false,
            }
        }
        if busy == 0 || run < 2 {
            return false;
        }
        let saved = self.save_waiting(busy);
        let mut blocks: [&[u8; 64]; LANES] = [&IDLE_BLOCK; LANES];
        for i in 0..run {
            for (b, c) in blocks.iter_mut().zip(chunks.iter()) {
                if let Some(block) = c.get(i) {
                    *b = block;
                }
            }
            // SAFETY: an engine's path is available (`Engine::new`), and so
            // is its narrow kernel, which needs the same CPU feature.
            unsafe { compress(kernel, &mut self.state, &blocks) };
        }
        self.restore_waiting(saved);
        let lanes = u64::from(busy.count_ones());
        self.stats.calls += run as u64;
        self.stats.lane_blocks += run as u64 * lanes;
        for (l, (lane, d)) in self.lanes.iter_mut().zip(data.iter_mut()).enumerate() {
            if busy & (1 << l) != 0 {
                *d = &d[64 * run..];
                lane.length = lane.length.wrapping_add(64 * run as u64);
            }
        }
        true
    }

    /// The chaining values a call over the lanes in `busy` must keep: those
    /// of lanes with a message in flight but no block in the call (a call
    /// advances every lane; free lanes are reset when they take a message).
    fn save_waiting(&self, busy: u64) -> Option<(u64, State)> {
        let mut waiting = 0u64;
        for (l, lane) in self.lanes.iter().enumerate() {
            if lane.status != Status::Idle && busy & (1 << l) == 0 {
                waiting |= 1 << l;
            }
        }
        (waiting != 0).then_some((waiting, self.state))
    }

    /// Put back what `save_waiting` kept.
    fn restore_waiting(&mut self, saved: Option<(u64, State)>) {
        let Some((waiting, saved)) = saved else {
            return;
        };
        for l in 0..self.width {
            if waiting & (1 << l) != 0 {
                for (w, old) in self.state.iter_mut().zip(saved.iter()) {
                    w[l] = old[l];
                }
            }
        }
    }

    /// One multi-lane block call over every lane that has a block.
    fn multi(&mut self, kernel: Path, data: &mut [&[u8]], ready: usize) {
        let mut sources = [Source::None; LANES];
        for (l, (lane, d)) in self.lanes.iter_mut().zip(data.iter_mut()).enumerate() {
            sources[l] = match lane.status {
                Status::Idle => Source::None,
                Status::Busy => {
                    if lane.tail_len > 0 && lane.tail_len + d.len() >= 64 {
                        let take = 64 - lane.tail_len;
                        lane.tail[lane.tail_len..64].copy_from_slice(&d[..take]);
                        lane.length = lane.length.wrapping_add(take as u64);
                        lane.tail_len = 64;
                        *d = &d[take..];
                        Source::Tail(0)
                    } else if lane.tail_len == 0
                        && let Some((block, rest)) = d.split_first_chunk::<64>()
                    {
                        lane.length = lane.length.wrapping_add(64);
                        *d = rest;
                        Source::Data(block)
                    } else {
                        lane.pad(d);
                        Source::Tail(0)
                    }
                }
                Status::Padded => Source::Tail(lane.tail_pos),
            };
        }
        let mut blocks: [&[u8; 64]; LANES] = [&IDLE_BLOCK; LANES];
        let mut busy = 0u64;
        for (l, src) in sources.iter().enumerate() {
            match *src {
                Source::None => {}
                Source::Tail(off) => {
                    if let Some(b) = self.lanes[l].tail[off..].first_chunk::<64>() {
                        blocks[l] = b;
                    }
                    busy |= 1 << l;
                }
                Source::Data(b) => {
                    blocks[l] = b;
                    busy |= 1 << l;
                }
            }
        }
        let saved = self.save_waiting(busy);
        // SAFETY: as in `multi_run`.
        unsafe { compress(kernel, &mut self.state, &blocks) };
        self.restore_waiting(saved);
        self.stats.calls += 1;
        self.stats.lane_blocks += ready as u64;
        for (l, src) in sources.iter().enumerate() {
            if let Source::Tail(off) = *src {
                let lane = &mut self.lanes[l];
                if lane.status == Status::Padded {
                    lane.tail_pos = off + 64;
                    if lane.tail_pos == lane.tail_len {
                        self.complete(l);
                    }
                } else {
                    lane.tail_len = 0;
                }
            }
        }
    }

    /// Run lane `l` through the single-stream kernel as far as its data
    /// goes (to its digest if it is ending).
    fn single(&mut self, l: usize, d: &mut &[u8]) {
        let mut st = [0u32; 4];
        for (s, w) in st.iter_mut().zip(self.state.iter()) {
            *s = w[l];
        }
        let lane = &mut self.lanes[l];
        let mut blocks = 0u64;
        if lane.status == Status::Busy {
            if lane.tail_len > 0 && lane.tail_len + d.len() >= 64 {
                let take = 64 - lane.tail_len;
                lane.tail[lane.tail_len..64].copy_from_slice(&d[..take]);
                lane.length = lane.length.wrapping_add(take as u64);
                *d = &d[take..];
                if let Some(b) = lane.tail.first_chunk::<64>() {
                    self.kernel.compress(&mut st, std::slice::from_ref(b));
                }
                lane.tail_len = 0;
                blocks += 1;
            }
            if lane.tail_len == 0 {
                let (whole, rest) = d.as_chunks::<64>();
                if !whole.is_empty() {
                    self.kernel.compress(&mut st, whole);
                    lane.length = lane.length.wrapping_add(64 * whole.len() as u64);
                    blocks += whole.len() as u64;
                }
                *d = rest;
            }
            lane.pad(d);
        }
        let mut finished = false;
        if lane.status == Status::Padded {
            let (pad, _) = lane.tail[lane.tail_pos..lane.tail_len].as_chunks::<64>();
            self.kernel.compress(&mut st, pad);
            blocks += pad.len() as u64;
            lane.tail_pos = lane.tail_len;
            finished = true;
        }
        for (w, s) in self.state.iter_mut().zip(st) {
            w[l] = s;
        }
        self.stats.single_blocks += blocks;
        if finished {
            self.complete(l);
        }
    }

    /// Lane `l` hashed its last block: deliver its digest, free it.
    fn complete(&mut self, l: usize) {
        let mut digest = [0u8; 16];
        for (bytes, w) in digest.as_chunks_mut::<4>().0.iter_mut().zip(&self.state) {
            *bytes = w[l].to_le_bytes();
        }
        let lane = &mut self.lanes[l];
        lane.status = Status::Idle;
        self.done.push((lane.id, digest));
    }
}

/// The digests of `messages`, in order, on `path` (for tests).
#[cfg(test)]
pub(crate) fn digests(path: Path, messages: &[&[u8]]) -> Option<Vec<[u8; 16]>> {
    let mut engine = Engine::new(path)?;
    engine.hash_messages(messages.iter().enumerate().map(|(i, m)| (i as u64, *m)));
    let mut out = vec![[0u8; 16]; messages.len()];
    for (id, d) in engine.take_done() {
        out[id as usize] = d;
    }
    Some(out)
}

/// One raw block call on `path`, without the engine (for benchmarks, and
/// the parts of one input: `algo::parts::lanes`):
/// lane `l` of `state` (`state[w][l]`, words a, b, c, d) advanced by
/// `blocks[l]`. `None` (nothing done) if this CPU cannot run `path`.
pub fn compress_lanes(
    path: Path,
    state: &mut [[u32; LANES]; 4],
    blocks: &[&[u8; 64]; LANES],
) -> Option<()> {
    // SAFETY: checked just before.
    path.is_available()
        .then(|| unsafe { compress(path, state, blocks) })
}

/// Advance every lane of `state` by one block (lanes past the path's width
/// untouched).
///
/// # Safety
/// `path.is_available()`: this CPU has the instructions its kernel uses.
unsafe fn compress(path: Path, state: &mut State, blocks: &[&[u8; 64]; LANES]) {
    match path {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the caller guarantees the CPU has AVX-512F.
        Path::Avx512 => unsafe { avx512::compress::<2>(state, blocks) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: as above.
        Path::Avx512x16 => unsafe { avx512::compress::<1>(state, blocks) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the caller guarantees the CPU has AVX2.
        Path::Avx2 => unsafe { avx2::compress::<2>(state, blocks) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: as above.
        Path::Avx2x8 => unsafe { avx2::compress::<1>(state, blocks) },
        Path::Scalar => scalar::compress(state, blocks),
        Path::Off => {}
    }
}
