//! The full parts of one input hashed side by side: MD5 parts in the MD5
//! lanes, SHA-1 and SHA-256 parts in the SHA lanes (`algo::md5::lanes`,
//! `algo::sha::lanes`), as the engines there hash the files of a tree.
//!
//! A [`Group`] is up to [`width`] parts of one length, advanced in step by
//! stretches of equal length (whole 64-byte blocks), so that no part is
//! ever whole in memory: the caller reads each part's next stretch. Every
//! full part is a whole number of blocks (a part size is whole KiB), and
//! parts of one length end with the same padding block: one more call,
//! then each lane's digest. The last part, when shorter, is no group's: it
//! is hashed by the base's `Hasher`, as are composites the lanes do not
//! cover (the CRCs, which run at memory speed anyway).

use crate::algo::md5::Kernel;
use crate::algo::md5::lanes::{self as md5_lanes, LANES};
use crate::algo::sha::lanes::{Path as ShaPath, Sha, Sha1, Sha256};
use crate::algo::{Composed, Digest, Hasher};

/// How many parts of `of` one [`Group`] hashes side by side on this CPU;
/// `None` where no lane engine composes `of`.
pub(crate) fn width(of: Composed) -> Option<usize> {
    match of {
        Composed::Md5 => Some(md5_lanes::Path::selected().width().min(LANES)),
        Composed::Sha1 | Composed::Sha256 => Some(ShaPath::selected().width()),
        Composed::Crc32b | Composed::Crc32c => None,
    }
}

/// Parts of one length hashed in step.
pub(crate) enum Group {
    Md5(Md5Group),
    Sha1(ShaGroup<Sha1>),
    Sha256(ShaGroup<Sha256>),
}

impl Group {
    /// A group of `k` parts of `of` (1 to `width(of)`); `None` where no
    /// lane engine composes `of`.
    pub(crate) fn new(of: Composed, k: usize) -> Option<Group> {
        Some(match of {
            Composed::Md5 => Group::Md5(Md5Group::new(k)),
            Composed::Sha1 => Group::Sha1(ShaGroup::new(k)),
            Composed::Sha256 => Group::Sha256(ShaGroup::new(k)),
            Composed::Crc32b | Composed::Crc32c => return None,
        })
    }

    /// Each part's next bytes: `stretches[i]` part `i`'s, all of one
    /// length, a whole number of 64-byte blocks.
    pub(crate) fn update(&mut self, stretches: &[&[u8]]) {
        match self {
            Group::Md5(g) => g.update(stretches),
            Group::Sha1(g) => g.update(stretches),
            Group::Sha256(g) => g.update(stretches),
        }
    }

    /// Each part's digest, in order, every part being `len` bytes long (a
    /// whole number of blocks, all of them given to `update`).
    pub(crate) fn finish(self, len: u64) -> Vec<Digest> {
        match self {
            Group::Md5(g) => g.finish(len),
            Group::Sha1(g) => g.finish(len),
            Group::Sha256(g) => g.finish(len),
        }
    }
}

/// The padding block of a message of `len` bytes, a whole number of
/// blocks: 0x80, zeros, the bit length (`le`: little-endian, MD5's;
/// else big-endian, SHA's).
fn padding(len: u64, le: bool) -> [u8; 64] {
    let mut block = [0u8; 64];
    block[0] = 0x80;
    let bits = len.wrapping_mul(8);
    block[56..].copy_from_slice(&if le {
        bits.to_le_bytes()
    } else {
        bits.to_be_bytes()
    });
    block
}

/// MD5 parts, one per 32-bit lane of the selected path's registers (the
/// narrow kernel when they fit in it); too few for a lane call to pay
/// (`Path::min_busy`), each through the single-stream kernel.
pub(crate) struct Md5Group {
    /// The multi-lane kernel, or `None`: one part at a time.
    path: Option<md5_lanes::Path>,
    kernel: Kernel,
    k: usize,
    /// Lane-major chaining values, `state[w][l]`.
    state: [[u32; LANES]; 4],
}

impl Md5Group {
    fn new(k: usize) -> Md5Group {
        let selected = md5_lanes::Path::selected();
        let path = match selected.narrow() {
            Some(n) if k <= n.width() => n,
            _ => selected,
        };
        let lanes = path != md5_lanes::Path::Off
            && path.is_available()
            && k >= path.min_busy()
            && k <= path.width();
        let mut state = [[0; LANES]; 4];
        for (w, init) in state.iter_mut().zip(crate::algo::md5::INIT) {
            w.fill(init);
        }
        Md5Group {
            path: lanes.then_some(path),
            kernel: Kernel::selected(),
            k,
            state,
        }
    }

    fn update(&mut self, stretches: &[&[u8]]) {
        let chunks: Vec<&[[u8; 64]]> = stretches.iter().map(|s| s.as_chunks::<64>().0).collect();
        self.blocks(&chunks);
    }

    /// Advance each lane by its blocks (all of one count).
    fn blocks(&mut self, chunks: &[&[[u8; 64]]]) {
        let Some(path) = self.path else {
            for (l, c) in chunks.iter().enumerate().take(self.k) {
                let mut st = self.state.map(|w| w[l]);
                self.kernel.compress(&mut st, c);
                for (w, s) in self.state.iter_mut().zip(st) {
                    w[l] = s;
                }
            }
            return;
        };
        let n = chunks.iter().map(|c| c.len()).min().unwrap_or(0);
        let mut blocks: [&[u8; 64]; LANES] = [&[0; 64]; LANES];
        for i in 0..n {
            for (b, c) in blocks.iter_mut().zip(chunks) {
                *b = &c[i];
            }
            // (`selected` paths and their narrow kernels are available)
            let _ = md5_lanes::compress_lanes(path, &mut self.state, &blocks);
        }
    }

    fn finish(mut self, len: u64) -> Vec<Digest> {
        let pad = [padding(len, true)];
        let chunks = vec![&pad[..]; self.k];
        self.blocks(&chunks);
        (0..self.k)
            .map(|l| {
                let mut d = [0u8; 16];
                for (bytes, w) in d.as_chunks_mut::<4>().0.iter_mut().zip(&self.state) {
                    *bytes = w[l].to_le_bytes();
                }
                Digest::from_bytes(&d)
            })
            .collect()
    }
}

/// SHA-1 or SHA-256 parts: sixteen AVX-512 lanes on that path when enough
/// parts make a call pay (`Sha::MIN_WIDE`), else four, two or one per
/// SHA-NI loop, else the crate's single-stream code.
pub(crate) struct ShaGroup<H: Sha> {
    k: usize,
    /// The sixteen-lane kernel runs (the chaining values in `wide`).
    wide: bool,
    sha_ni: bool,
    wide_state: H::Wide,
    states: Vec<H::State>,
}

impl<H: Sha> ShaGroup<H> {
    fn new(k: usize) -> ShaGroup<H> {
        let path = ShaPath::selected();
        let wide = H::LANES16 && path.width() == 16 && k >= H::MIN_WIDE && k <= 16;
        let mut wide_state = H::WIDE_ZERO;
        for l in 0..16 {
            H::wide_set(&mut wide_state, l, &H::INIT);
        }
        ShaGroup {
            k,
            wide,
            sha_ni: path != ShaPath::Off && crate::algo::platform::sha_ni(),
            wide_state,
            states: vec![H::INIT; k],
        }
    }

    fn update(&mut self, stretches: &[&[u8]]) {
        let chunks: Vec<&[[u8; 64]]> = stretches.iter().map(|s| s.as_chunks::<64>().0).collect();
        self.blocks(&chunks);
    }

    /// Advance each part by its blocks (all of one count).
    fn blocks(&mut self, chunks: &[&[[u8; 64]]]) {
        if self.wide {
            // (lanes past `k` hash the first part's blocks, unused)
            let first = chunks.first().copied().unwrap_or(&[]);
            let blocks: [&[[u8; 64]]; 16] =
                core::array::from_fn(|l| chunks.get(l).copied().unwrap_or(first));
            // SAFETY: `wide` only on the selected `Avx512x16` path, which
            // this CPU runs.
            unsafe { H::compress16(&mut self.wide_state, blocks) };
            return;
        }
        let mut rest = &mut self.states[..];
        let mut cs = chunks;
        while !rest.is_empty() {
            let n = match rest.len() {
                _ if !self.sha_ni => 1,
                4.. => 4,
                2 | 3 => 2,
                _ => 1,
            };
            let (now, later) = rest.split_at_mut(n);
            let (c, more) = cs.split_at(n);
            match (now, c) {
                ([a, b, c0, d], [w, x, y, z]) => {
                    let mut s = [*a, *b, *c0, *d];
                    // SAFETY: four at once only when `sha_ni`: this CPU
                    // has SHA-NI.
                    unsafe { H::compress(&mut s, [*w, *x, *y, *z]) };
                    [*a, *b, *c0, *d] = s;
                }
                ([a, b], [x, y]) => {
                    let mut s = [*a, *b];
                    // SAFETY: as above.
                    unsafe { H::compress(&mut s, [*x, *y]) };
                    [*a, *b] = s;
                }
                ([a], [x]) if self.sha_ni => {
                    let mut s = [*a];
                    // SAFETY: `sha_ni`: this CPU has SHA-NI.
                    unsafe { H::compress(&mut s, [*x]) };
                    *a = s[0];
                }
                ([a], [x]) => H::single(a, x),
                _ => {}
            }
            (rest, cs) = (later, more);
        }
    }

    fn finish(mut self, len: u64) -> Vec<Digest> {
        let pad = [padding(len, false)];
        let chunks = vec![&pad[..]; self.k];
        self.blocks(&chunks);
        (0..self.k)
            .map(|l| {
                let state = if self.wide {
                    H::wide_get(&self.wide_state, l)
                } else {
                    self.states[l]
                };
                Digest::from_bytes(H::digest(&state).as_ref())
            })
            .collect()
    }
}

/// The composition of `digests` (every part's, in order) as `of` makes it:
/// the base hash of their bytes, with their count.
pub(crate) fn compose(of: Composed, digests: &[Digest]) -> Digest {
    let mut outer = Hasher::new(of.algorithm());
    for d in digests {
        outer.update(d.as_bytes());
    }
    Digest::composed(outer.finalize().as_bytes(), digests.len() as u64)
}
