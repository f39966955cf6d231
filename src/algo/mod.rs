//! The hash algorithms fastsum supports, and one `Hasher` that dispatches over
//! them without boxing (an enum, so the hot `update` call is a jump, not a
//! virtual call through a `dyn Digest`).

pub(crate) mod cpu_path;
pub(crate) mod md5;
pub(crate) mod sha3;
pub(crate) mod sha512;
pub(crate) mod sha_lanes;
pub(crate) mod sum;

use std::borrow::Cow;
use std::num::NonZeroU8;

use std::hash::Hasher as _;

use blake2::digest::block_api::{Buffer, UpdateCore as _, VariableOutputCore as _};
use sha2::Digest as _;
use strum::EnumCount;

pub use crate::algo::sha3::Sha3Size;
use crate::algo::sha512::{Out, Sha512};
pub use crate::algo::sum::Legacy;

/// A BLAKE2b output length: a whole number of bytes from 1 to 64 (8 to 512
/// bits), as b2sum's `-l` takes it. Part of the algorithm's identity:
/// BLAKE2b-256 is its own function (the length is hashed into the
/// parameter block), not BLAKE2b-512 cut short.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Bits(NonZeroU8);

impl Bits {
    /// 512 bits: b2sum's default, the one tag without a length.
    pub const MAX: Bits = Bits(NonZeroU8::new(64).expect("64 is not 0"));

    /// `bits` if it is a multiple of 8 from 8 to 512.
    pub const fn new(bits: u64) -> Option<Bits> {
        if !bits.is_multiple_of(8) || bits == 0 || bits > 512 {
            return None;
        }
        match NonZeroU8::new((bits / 8) as u8) {
            Some(bytes) => Some(Bits(bytes)),
            None => None,
        }
    }

    /// The length in bits.
    pub fn bits(self) -> u32 {
        u32::from(self.0.get()) * 8
    }

    /// The length in bytes.
    pub fn bytes(self) -> usize {
        usize::from(self.0.get())
    }
}

/// Why a length does not fit an algorithm (`-l`, or a tag's `-N`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LengthError {
    /// The algorithm has one length only.
    Fixed,
    /// BLAKE2b: more than 512 bits.
    TooLong,
    /// BLAKE2b: not a multiple of 8 (or 0).
    NotBytes,
    /// SHA-3: not 224, 256, 384 or 512.
    NoSuchSize,
}

/// A hash algorithm. Adding one is a variant here plus its arm in
/// [`Hasher`] and in [`Algorithm::ALL`]: every other `match` on it fails to
/// compile until it has one too, and [`Algorithms`] grows by itself. A
/// length parameter (BLAKE2b, SHA-3) is carried by the variant, so an
/// `Algorithm` says exactly which function runs, and stays small and `Copy`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, EnumCount)]
pub enum Algorithm {
    /// MD5 (RFC 1321), 128 bits: the default, as md5sum.
    Md5,
    /// SHA-1 (FIPS 180-4), 160 bits, as sha1sum.
    Sha1,
    /// SHA-224 (FIPS 180-4), as sha224sum.
    Sha224,
    /// SHA-256 (FIPS 180-4), as sha256sum.
    Sha256,
    /// SHA-384 (FIPS 180-4), as sha384sum.
    Sha384,
    /// SHA-512 (FIPS 180-4), as sha512sum.
    Sha512,
    /// BLAKE3, 256 bits of output, as b3sum.
    Blake3,
    /// BLAKE2b (RFC 7693) of the given length, as b2sum.
    Blake2b(Bits),
    /// SM3 (GB/T 32905-2016), 256 bits, as `cksum -a sm3`.
    Sm3,
    /// SHA-3 (FIPS 202) of the given size, as `cksum -a sha3 -l`.
    Sha3(Sha3Size),
    /// CRC-32 as zlib computes it (ISO-HDLC), as `cksum -a crc32b`; printed
    /// as cksum 9.8 prints it, as its POSIX CRC: in decimal, with the size.
    Crc32b,
    /// XXH32 (seed 0), as `xxhsum -H0`.
    Xxh32,
    /// XXH64 (seed 0), as `xxhsum -H1`.
    Xxh64,
    /// XXH3, 64 bits (seed 0), as `xxhsum -H3`.
    Xxh3,
    /// XXH3, 128 bits (seed 0), as `xxhsum -H2`.
    Xxh128,
    /// The POSIX CRC of `cksum` (its default), over the bytes and their
    /// count; printed as `CRC SIZE NAME`.
    Crc,
    /// BSD `sum` (`sum -r`, `cksum -a bsd`): 16 bits, printed with the
    /// size in KiB.
    Bsd,
    /// System V `sum` (`sum -s`, `cksum -a sysv`): 16 bits, printed with
    /// the size in 512-byte blocks.
    Sysv,
}

impl Algorithm {
    /// Every algorithm, in the order of the enum; the ones with a length
    /// at their default (BLAKE2b-512; SHA3-256, though `-a sha3` asks for
    /// `-l` as GNU cksum does).
    pub const ALL: [Algorithm; Algorithm::COUNT] = [
        Algorithm::Md5,
        Algorithm::Sha1,
        Algorithm::Sha224,
        Algorithm::Sha256,
        Algorithm::Sha384,
        Algorithm::Sha512,
        Algorithm::Blake3,
        Algorithm::Blake2b(Bits::MAX),
        Algorithm::Sm3,
        Algorithm::Sha3(Sha3Size::S256),
        Algorithm::Crc32b,
        Algorithm::Xxh32,
        Algorithm::Xxh64,
        Algorithm::Xxh3,
        Algorithm::Xxh128,
        Algorithm::Crc,
        Algorithm::Bsd,
        Algorithm::Sysv,
    ];

    /// The name GNU writes for its family: the word in check-mode warnings
    /// (`no properly formatted BLAKE2b checksum lines found`) and the start
    /// of a tag (see [`Algorithm::tag`]).
    pub fn gnu_name(self) -> &'static str {
        match self {
            Algorithm::Md5 => "MD5",
            Algorithm::Sha1 => "SHA1",
            Algorithm::Sha224 => "SHA224",
            Algorithm::Sha256 => "SHA256",
            Algorithm::Sha384 => "SHA384",
            Algorithm::Sha512 => "SHA512",
            Algorithm::Blake3 => "BLAKE3",
            Algorithm::Blake2b(_) => "BLAKE2b",
            Algorithm::Sm3 => "SM3",
            Algorithm::Sha3(_) => "SHA3",
            Algorithm::Crc32b => "CRC32B",
            Algorithm::Xxh32 => "XXH32",
            Algorithm::Xxh64 => "XXH64",
            Algorithm::Xxh3 => "XXH3",
            Algorithm::Xxh128 => "XXH128",
            Algorithm::Crc => "CRC",
            Algorithm::Bsd => "BSD",
            Algorithm::Sysv => "SYSV",
        }
    }

    /// Is it one of the checksums that print their own line?
    pub fn legacy(self) -> Option<Legacy> {
        match self {
            Algorithm::Crc => Some(Legacy::Crc),
            Algorithm::Crc32b => Some(Legacy::Crc32b),
            Algorithm::Bsd => Some(Legacy::Bsd),
            Algorithm::Sysv => Some(Legacy::Sysv),
            _ => None,
        }
    }

    /// The label of tagged lines (`SHA256 (f) = …`): the family name, with
    /// the length where GNU writes it: `BLAKE2b-256` (none for 512, as
    /// b2sum), `SHA3-256` (always, as cksum 9.8).
    pub fn tag(self) -> Cow<'static, str> {
        match self {
            Algorithm::Blake2b(b) if b != Bits::MAX => format!("BLAKE2b-{}", b.bits()).into(),
            Algorithm::Sha3(s) => format!("SHA3-{}", s.bits()).into(),
            _ => self.gnu_name().into(),
        }
    }

    /// The name `-a` takes (lower case).
    pub fn name(self) -> &'static str {
        match self {
            Algorithm::Md5 => "md5",
            Algorithm::Sha1 => "sha1",
            Algorithm::Sha224 => "sha224",
            Algorithm::Sha256 => "sha256",
            Algorithm::Sha384 => "sha384",
            Algorithm::Sha512 => "sha512",
            Algorithm::Blake3 => "blake3",
            Algorithm::Blake2b(_) => "blake2b",
            Algorithm::Sm3 => "sm3",
            Algorithm::Sha3(_) => "sha3",
            Algorithm::Crc32b => "crc32b",
            Algorithm::Xxh32 => "xxh32",
            Algorithm::Xxh64 => "xxh64",
            Algorithm::Xxh3 => "xxh3",
            Algorithm::Xxh128 => "xxh128",
            Algorithm::Crc => "crc",
            Algorithm::Bsd => "bsd",
            Algorithm::Sysv => "sysv",
        }
    }

    /// Digest length in bytes.
    pub fn digest_len(self) -> usize {
        match self {
            Algorithm::Md5 => 16,
            Algorithm::Sha1 => 20,
            Algorithm::Sha224 => 28,
            Algorithm::Sha256 => 32,
            Algorithm::Sha384 => 48,
            Algorithm::Sha512 => 64,
            Algorithm::Blake3 => 32,
            Algorithm::Blake2b(b) => b.bytes(),
            Algorithm::Sm3 => 32,
            Algorithm::Sha3(s) => s.bits() as usize / 8,
            Algorithm::Crc32b | Algorithm::Xxh32 => 4,
            Algorithm::Xxh64 | Algorithm::Xxh3 => 8,
            Algorithm::Xxh128 => 16,
            Algorithm::Crc => 4,
            Algorithm::Bsd | Algorithm::Sysv => 2,
        }
    }

    /// The same family at `bits` bits (`-l`, a tag's `-N`).
    pub fn with_length(self, bits: u64) -> Result<Algorithm, LengthError> {
        match self {
            Algorithm::Blake2b(_) if bits > 512 => Err(LengthError::TooLong),
            Algorithm::Blake2b(_) => Bits::new(bits)
                .map(Algorithm::Blake2b)
                .ok_or(LengthError::NotBytes),
            Algorithm::Sha3(_) => Sha3Size::new(bits)
                .map(Algorithm::Sha3)
                .ok_or(LengthError::NoSuchSize),
            _ => Err(LengthError::Fixed),
        }
    }

    /// What GNU cksum's `-a` takes, in the order GNU 9.1 lists them, then
    /// the ones of GNU 9.6 to 9.8 (crc32b, sha3): cksum's algorithms, so
    /// also the only tags its `-c` reads.
    pub(crate) const CKSUM: [Algorithm; 13] = [
        Algorithm::Bsd,
        Algorithm::Sysv,
        Algorithm::Crc,
        Algorithm::Md5,
        Algorithm::Sha1,
        Algorithm::Sha224,
        Algorithm::Sha256,
        Algorithm::Sha384,
        Algorithm::Sha512,
        Algorithm::Blake2b(Bits::MAX),
        Algorithm::Sm3,
        Algorithm::Crc32b,
        Algorithm::Sha3(Sha3Size::S256),
    ];

    /// Does `-l` choose among several lengths of it?
    pub fn takes_length(self) -> bool {
        matches!(self, Algorithm::Blake2b(_) | Algorithm::Sha3(_))
    }

    /// The same family (whatever the lengths): what a run may not name
    /// twice, and what a tag is matched against.
    pub fn same_family(self, other: Algorithm) -> bool {
        std::mem::discriminant(&self) == std::mem::discriminant(&other)
    }

    /// The name of the stand-alone tool this algorithm replaces (multi-call),
    /// if fastsum answers to one for it.
    pub fn tool_name(self) -> Option<&'static str> {
        match self {
            Algorithm::Md5 => Some("md5sum"),
            Algorithm::Sha1 => Some("sha1sum"),
            Algorithm::Sha224 => Some("sha224sum"),
            Algorithm::Sha256 => Some("sha256sum"),
            Algorithm::Sha384 => Some("sha384sum"),
            Algorithm::Sha512 => Some("sha512sum"),
            Algorithm::Blake3 => Some("b3sum"),
            Algorithm::Blake2b(_) => Some("b2sum"),
            Algorithm::Sm3
            | Algorithm::Sha3(_)
            | Algorithm::Crc32b
            | Algorithm::Xxh32
            | Algorithm::Xxh64
            | Algorithm::Xxh3
            | Algorithm::Xxh128
            | Algorithm::Crc
            | Algorithm::Bsd
            | Algorithm::Sysv => None,
        }
    }

    /// Relative hashing cost per byte on one core (x86-64 with SHA-NI, as
    /// measured with `benches/multi.sh`'s single runs; from BLAKE2b on, with
    /// `examples/hash_speed.rs`, about 14 / (GB/s) to match the older ones:
    /// docs/BENCHMARKS.md, "The algorithms of issue #20"): what the fan-out
    /// balances when it splits several algorithms over threads.
    pub(crate) fn cost(self) -> u32 {
        match self {
            Algorithm::Md5 => 15,
            Algorithm::Sha1 => 5,
            Algorithm::Sha224 | Algorithm::Sha256 => 5,
            Algorithm::Sha384 | Algorithm::Sha512 => 14,
            Algorithm::Blake3 => 4,
            Algorithm::Blake2b(_) => 9,
            Algorithm::Sm3 => 24,
            // Keccak's cost per byte goes with its rate: 200 bytes less
            // twice the digest (21 at SHA3-256's 136 bytes)
            Algorithm::Sha3(s) => 2856 / (200 - s.bits() / 4),
            Algorithm::Crc32b | Algorithm::Xxh32 | Algorithm::Xxh64 => 1,
            Algorithm::Xxh3 | Algorithm::Xxh128 => 1,
            // (crate::algo::sum: BSD's is a chain of two operations a byte)
            Algorithm::Crc | Algorithm::Sysv => 1,
            Algorithm::Bsd => 8,
        }
    }

    /// The algorithm a multi-call name stands for (`md5sum`, …, `b3sum`,
    /// `b2sum`; in any case on the systems whose file names ignore case).
    pub(crate) fn from_tool_name(name: &str) -> Option<Algorithm> {
        let same = |a: Algorithm| {
            a.tool_name().is_some_and(|t| {
                if cfg!(any(target_os = "macos", windows)) {
                    t.eq_ignore_ascii_case(name)
                } else {
                    t == name
                }
            })
        };
        Algorithm::ALL.into_iter().find(|&a| same(a))
    }
}

/// The algorithms of a run (or of one input), in the order given: never
/// empty, never the same algorithm twice. `Copy`, no allocation.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Algorithms {
    list: [Algorithm; Algorithm::COUNT],
    len: u8,
}

impl Algorithms {
    /// Just `algo`.
    pub fn one(algo: Algorithm) -> Algorithms {
        Algorithms {
            list: [algo; Algorithm::COUNT],
            len: 1,
        }
    }

    /// `list` in its order; `Err` names the first algorithm given twice,
    /// `None` inside it when the list is empty.
    pub fn new(list: impl IntoIterator<Item = Algorithm>) -> Result<Algorithms, Option<Algorithm>> {
        let mut it = list.into_iter();
        let mut set = Algorithms::one(it.next().ok_or(None)?);
        for a in it {
            set = set.with(a).ok_or(Some(a))?;
        }
        Ok(set)
    }

    /// These and `algo` after them; `None` if `algo`'s family is already
    /// in (one length of BLAKE2b or SHA-3 a run: the array has one place a
    /// family).
    pub fn with(self, algo: Algorithm) -> Option<Algorithms> {
        if self.as_slice().iter().any(|a| a.same_family(algo)) {
            return None;
        }
        let mut next = self;
        next.list[usize::from(self.len)] = algo;
        next.len += 1;
        Some(next)
    }

    /// The first algorithm given.
    pub fn first(self) -> Algorithm {
        self.list[0]
    }

    /// How many (1 to [`Algorithm::COUNT`]).
    #[allow(clippy::len_without_is_empty)]
    pub fn len(self) -> usize {
        usize::from(self.len)
    }

    /// The algorithms, in order.
    pub fn as_slice(&self) -> &[Algorithm] {
        &self.list[..usize::from(self.len)]
    }

    /// Is `algo` one of them?
    pub fn contains(self, algo: Algorithm) -> bool {
        self.as_slice().contains(&algo)
    }

    /// Where `algo` is in the order.
    #[cfg(any(test, feature = "internals"))]
    pub fn position(self, algo: Algorithm) -> Option<usize> {
        self.as_slice().iter().position(|&a| a == algo)
    }
}

impl std::fmt::Debug for Algorithms {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.as_slice()).finish()
    }
}

/// A finished digest: up to 64 bytes, no allocation; a BLAKE3 digest also
/// keeps its extendable output (b3sum's `--length`).
#[derive(Clone)]
pub struct Digest {
    bytes: [u8; 64],
    len: u8,
    xof: Option<Box<blake3::OutputReader>>,
}

impl PartialEq for Digest {
    fn eq(&self, other: &Digest) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl Eq for Digest {}

impl Digest {
    fn from_slice(s: &[u8]) -> Digest {
        let mut bytes = [0u8; 64];
        bytes[..s.len()].copy_from_slice(s);
        Digest {
            bytes,
            len: s.len() as u8,
            xof: None,
        }
    }

    /// A digest computed elsewhere (the multi-message engines): at most 64
    /// bytes.
    pub(crate) fn from_bytes(bytes: &[u8]) -> Digest {
        Digest::from_slice(&bytes[..bytes.len().min(64)])
    }

    fn blake3(h: &blake3::Hasher) -> Digest {
        let xof = h.finalize_xof();
        let mut d = Digest::from_slice(&[0u8; blake3::OUT_LEN]);
        xof.clone().fill(&mut d.bytes[..blake3::OUT_LEN]);
        d.xof = Some(Box::new(xof));
        d
    }

    /// The first `len` bytes of the output, handed to `piece` at most 64 at
    /// a time: BLAKE3's extendable output for any length; for the other
    /// algorithms (whose output cannot be extended) the digest, cut short.
    pub(crate) fn extended(
        &self,
        len: u64,
        mut piece: impl FnMut(&[u8]) -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        let Some(xof) = &self.xof else {
            let n = usize::try_from(len)
                .map_or(self.as_bytes().len(), |l| l.min(self.as_bytes().len()));
            return piece(&self.as_bytes()[..n]);
        };
        let mut reader = (**xof).clone();
        let mut block = [0u8; 64];
        let mut left = len;
        while left > 0 {
            let n = left.min(64) as usize;
            reader.fill(&mut block[..n]);
            piece(&block[..n])?;
            left -= n as u64;
        }
        Ok(())
    }

    /// The raw digest bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes[..usize::from(self.len)]
    }

    /// Lower-case hexadecimal, as every GNU tool prints it.
    pub fn to_hex(&self) -> String {
        let mut hex = Vec::with_capacity(self.as_bytes().len() * 2);
        push_hex(&mut hex, self.as_bytes());
        // hex digits are ASCII
        String::from_utf8(hex).unwrap_or_default()
    }
}

impl std::fmt::Debug for Digest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Digest({})", self.to_hex())
    }
}

/// Inputs shorter than this are hashed by BLAKE3 on one thread even by
/// `Hasher::update_wide`: below it, waking rayon's threads costs
/// more than splitting saves (measured: docs/BENCHMARKS.md, "Memory-mapped
/// reading and BLAKE3").
pub const BLAKE3_MULTITHREAD_MIN: usize = 1024 * 1024;

/// Run `work` where rayon's joins in it (BLAKE3's tree, the parts of
/// cksum's CRC) spread over up to `threads` threads, and tell it how many
/// it has: on the rayon pool it is called on, if any; on rayon's global
/// pool (one thread a core) when `threads` covers every core; else on a
/// pool of `threads` made for this call; on this thread alone (1) when
/// no pool can be made. Called around all the updates of an input, it
/// hands them to the pool once (one pool made, one wait for it) where each
/// update would hand itself over.
pub(crate) fn on_threads<R: Send>(threads: usize, work: impl FnOnce(usize) -> R + Send) -> R {
    if threads <= 1 || rayon_core::current_thread_index().is_some() {
        return work(threads);
    }
    if threads >= crate::cores::available() {
        return rayon_core::scope(|_| work(threads));
    }
    match rayon_core::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
    {
        Ok(pool) => pool.install(|| work(threads)),
        Err(_) => work(1),
    }
}

/// A running hash computation of any supported algorithm.
#[derive(Clone)]
pub enum Hasher {
    /// MD5: fastsum's own kernels (`crate::algo::md5`), faster than the md-5 crate.
    Md5(crate::algo::md5::Md5),
    /// SHA-1.
    Sha1(sha1::Sha1),
    /// SHA-224.
    Sha224(sha2::Sha224),
    /// SHA-256.
    Sha256(sha2::Sha256),
    /// SHA-384.
    Sha384(crate::algo::sha512::Sha512),
    /// SHA-512.
    Sha512(crate::algo::sha512::Sha512),
    /// BLAKE3 (boxed: its state is ~2 KiB).
    Blake3(Box<blake3::Hasher>),
    /// BLAKE2b of any length.
    Blake2b(Box<Blake2b>),
    /// SM3.
    Sm3(Box<sm3::Sm3>),
    /// SHA-3, one of four sizes (libcrypto's or the sha3 crate's).
    Sha3(Box<crate::algo::sha3::Sha3>),
    /// CRC-32 (crc32fast: PCLMULQDQ picked at run time).
    Crc32b(crc32fast::Hasher),
    /// XXH32.
    Xxh32(twox_hash::XxHash32),
    /// XXH64.
    Xxh64(Box<twox_hash::XxHash64>),
    /// XXH3-64 (twox-hash: AVX2 picked at run time).
    Xxh3(Box<twox_hash::XxHash3_64>),
    /// XXH3-128.
    Xxh128(Box<twox_hash::XxHash3_128>),
    /// `cksum`'s CRC.
    Crc(Box<crate::algo::sum::PosixCrc>),
    /// BSD `sum`.
    Bsd(crate::algo::sum::Bsd),
    /// System V `sum`.
    Sysv(crate::algo::sum::Sysv),
}

/// A running BLAKE2b of a length chosen at run time: the blake2 crate's
/// core (its portable code runs ~1.8x blake2b_simd's AVX2 on Zen 5:
/// docs/BENCHMARKS.md) and the block buffer its fixed-length wrappers
/// keep (the crate has no run-time-length wrapper).
#[derive(Clone)]
pub struct Blake2b {
    core: blake2::Blake2bVarCore,
    buffer: Buffer<blake2::Blake2bVarCore>,
    len: Bits,
}

impl Blake2b {
    fn new(len: Bits) -> Blake2b {
        Blake2b {
            // the length is hashed into the parameter block
            core: blake2::Blake2bVarCore::new_with_params(&[], &[], 0, len.bytes()),
            buffer: Buffer::<blake2::Blake2bVarCore>::default(),
            len,
        }
    }

    fn update(&mut self, data: &[u8]) {
        let Blake2b { core, buffer, .. } = self;
        buffer.digest_blocks(data, |blocks| core.update_blocks(blocks));
    }

    fn finalize(mut self) -> Digest {
        let mut out = blake2::digest::Output::<blake2::Blake2bVarCore>::default();
        self.core.finalize_variable_core(&mut self.buffer, &mut out);
        Digest::from_slice(&out[..self.len.bytes()])
    }
}

impl Hasher {
    /// A fresh hasher for `algo`.
    pub fn new(algo: Algorithm) -> Hasher {
        match algo {
            Algorithm::Md5 => Hasher::Md5(crate::algo::md5::Md5::new()),
            Algorithm::Sha1 => Hasher::Sha1(sha1::Sha1::new()),
            Algorithm::Sha224 => Hasher::Sha224(sha2::Sha224::new()),
            Algorithm::Sha256 => Hasher::Sha256(sha2::Sha256::new()),
            Algorithm::Sha384 => Hasher::Sha384(Sha512::new(Out::Sha384)),
            Algorithm::Sha512 => Hasher::Sha512(Sha512::new(Out::Sha512)),
            Algorithm::Blake3 => Hasher::Blake3(Box::new(blake3::Hasher::new())),
            Algorithm::Blake2b(b) => Hasher::Blake2b(Box::new(Blake2b::new(b))),
            Algorithm::Sm3 => Hasher::Sm3(Box::default()),
            Algorithm::Sha3(size) => Hasher::Sha3(Box::new(crate::algo::sha3::Sha3::new(size))),
            Algorithm::Crc32b => Hasher::Crc32b(crc32fast::Hasher::new()),
            Algorithm::Xxh32 => Hasher::Xxh32(twox_hash::XxHash32::with_seed(0)),
            Algorithm::Xxh64 => Hasher::Xxh64(Box::new(twox_hash::XxHash64::with_seed(0))),
            Algorithm::Xxh3 => Hasher::Xxh3(Box::new(twox_hash::XxHash3_64::new())),
            Algorithm::Xxh128 => Hasher::Xxh128(Box::new(twox_hash::XxHash3_128::new())),
            Algorithm::Crc => Hasher::Crc(Box::default()),
            Algorithm::Bsd => Hasher::Bsd(crate::algo::sum::Bsd::default()),
            Algorithm::Sysv => Hasher::Sysv(crate::algo::sum::Sysv::default()),
        }
    }

    /// Feed `data` to the hash.
    #[inline]
    pub fn update(&mut self, data: &[u8]) {
        match self {
            Hasher::Md5(h) => h.update(data),
            Hasher::Sha1(h) => h.update(data),
            Hasher::Sha224(h) => h.update(data),
            Hasher::Sha256(h) => h.update(data),
            Hasher::Sha384(h) => h.update(data),
            Hasher::Sha512(h) => h.update(data),
            Hasher::Blake3(h) => {
                h.update(data);
            }
            Hasher::Blake2b(h) => h.update(data),
            Hasher::Sm3(h) => h.update(data),
            Hasher::Sha3(h) => h.update(data),
            Hasher::Crc32b(h) => h.update(data),
            Hasher::Xxh32(h) => h.write(data),
            Hasher::Xxh64(h) => h.write(data),
            Hasher::Xxh3(h) => h.write(data),
            Hasher::Xxh128(h) => h.write(data),
            Hasher::Crc(h) => h.update(data),
            Hasher::Bsd(h) => h.update(data),
            Hasher::Sysv(h) => h.update(data),
        }
    }

    /// Does [`Hasher::update_wide`] spread `len` bytes over rayon's threads
    /// when given `threads`? BLAKE3 (its tree) from
    /// [`BLAKE3_MULTITHREAD_MIN`] bytes on, and cksum's CRC (in parts).
    pub(crate) fn is_wide(&self, len: usize, threads: usize) -> bool {
        threads > 1
            && match self {
                Hasher::Blake3(_) => len >= BLAKE3_MULTITHREAD_MIN,
                Hasher::Crc(_) => true,
                _ => false,
            }
    }

    /// Feed `data` on up to `threads` threads where that pays: BLAKE3's
    /// tree lets rayon hash parts of one big input in parallel (bounded as
    /// b3sum's `--num-threads` bounds it); the other algorithms are
    /// sequential by nature and take a plain `update`. Called inside
    /// [`on_threads`], it hashes on that call's threads.
    pub(crate) fn update_wide(&mut self, data: &[u8], threads: usize) {
        if !self.is_wide(data.len(), threads) {
            return self.update(data);
        }
        on_threads(threads, |threads| match self {
            Hasher::Blake3(h) if threads > 1 => {
                h.update_rayon(data);
            }
            Hasher::Crc(h) => h.update_wide(data, threads),
            h => h.update(data),
        });
    }

    /// Finish the computation.
    pub fn finalize(self) -> Digest {
        match self {
            Hasher::Md5(h) => Digest::from_slice(&h.finalize()),
            Hasher::Sha1(h) => Digest::from_slice(&h.finalize()),
            Hasher::Sha224(h) => Digest::from_slice(&h.finalize()),
            Hasher::Sha256(h) => Digest::from_slice(&h.finalize()),
            Hasher::Sha384(h) | Hasher::Sha512(h) => {
                let mut buf = [0u8; 64];
                let n = h.finalize(&mut buf);
                Digest::from_slice(&buf[..n])
            }
            Hasher::Blake3(h) => Digest::blake3(&h),
            Hasher::Blake2b(h) => h.finalize(),
            Hasher::Sm3(h) => Digest::from_slice(&h.finalize()),
            Hasher::Sha3(h) => {
                let mut buf = [0u8; 64];
                let n = h.finalize(&mut buf);
                Digest::from_slice(&buf[..n])
            }
            // xxhsum and GNU print these values big-endian (canonical form)
            Hasher::Crc32b(h) => Digest::from_slice(&h.finalize().to_be_bytes()),
            Hasher::Xxh32(h) => Digest::from_slice(&h.finish_32().to_be_bytes()),
            Hasher::Xxh64(h) => Digest::from_slice(&h.finish().to_be_bytes()),
            Hasher::Xxh3(h) => Digest::from_slice(&h.finish().to_be_bytes()),
            Hasher::Xxh128(h) => Digest::from_slice(&h.finish_128().to_be_bytes()),
            Hasher::Crc(h) => Digest::from_slice(&h.value().to_be_bytes()),
            Hasher::Bsd(h) => Digest::from_slice(&h.value().to_be_bytes()),
            Hasher::Sysv(h) => Digest::from_slice(&h.value().to_be_bytes()),
        }
    }
}

/// Several running hashes fed the same bytes: one input, several algorithms.
#[derive(Clone)]
pub(crate) struct Hashers(Vec<(usize, Hasher)>);

impl Hashers {
    /// A fresh hasher for each of `algos`.
    pub(crate) fn new(algos: Algorithms) -> Hashers {
        Hashers::of(algos, 0..algos.len())
    }

    /// Fresh hashers for the algorithms at positions `at` of `algos`.
    pub(crate) fn of(algos: Algorithms, at: impl IntoIterator<Item = usize>) -> Hashers {
        let list = algos.as_slice();
        Hashers(at.into_iter().map(|i| (i, Hasher::new(list[i]))).collect())
    }

    /// Take over `other`'s hashers too.
    pub(crate) fn merge(&mut self, other: Hashers) {
        self.0.extend(other.0);
    }

    /// Feed `data` to every hash.
    #[inline]
    pub(crate) fn update(&mut self, data: &[u8]) {
        for (_, h) in &mut self.0 {
            h.update(data);
        }
    }

    /// Does any of the hashes spread `len` bytes over `threads` threads
    /// ([`Hasher::is_wide`])?
    pub(crate) fn is_wide(&self, len: usize, threads: usize) -> bool {
        self.0.iter().any(|(_, h)| h.is_wide(len, threads))
    }

    /// Feed `data` to every hash, BLAKE3 on up to `threads` threads where
    /// that pays.
    pub(crate) fn update_wide(&mut self, data: &[u8], threads: usize) {
        for (_, h) in &mut self.0 {
            h.update_wide(data, threads);
        }
    }

    /// The digests, each with its position in the run's algorithms.
    pub(crate) fn finalize_at(self) -> impl Iterator<Item = (usize, Digest)> {
        self.0.into_iter().map(|(i, h)| (i, h.finalize()))
    }

    /// The digests, in the order of the algorithms.
    pub(crate) fn finalize(self) -> Vec<Digest> {
        let mut all: Vec<(usize, Digest)> = self.finalize_at().collect();
        all.sort_by_key(|(i, _)| *i);
        all.into_iter().map(|(_, d)| d).collect()
    }
}

/// Hash a whole slice in one call.
/// Append `bytes` in lower-case hexadecimal (a digest as the tools print it).
pub(crate) fn push_hex(out: &mut Vec<u8>, bytes: &[u8]) {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    for &b in bytes {
        out.push(DIGITS[usize::from(b >> 4)]);
        out.push(DIGITS[usize::from(b & 15)]);
    }
}

#[cfg(any(test, feature = "internals"))]
pub fn hash_bytes(algo: Algorithm, data: &[u8]) -> Digest {
    let mut h = Hasher::new(algo);
    h.update(data);
    h.finalize()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(algo: Algorithm, data: &[u8]) -> String {
        hash_bytes(algo, data).to_hex()
    }

    /// `on_threads` hands its work the threads asked for: one on this
    /// thread, on a pool of their own when fewer than the cores, else on
    /// rayon's global pool; called on a pool, it stays on that pool.
    #[test]
    fn on_threads_runs_on_the_threads_asked_for() {
        let pool_size =
            || rayon_core::current_thread_index().map(|_| rayon_core::current_num_threads());
        let cores = crate::cores::available();
        let global = rayon_core::current_num_threads();
        for n in 1..=cores + 1 {
            let (given, pool) = on_threads(n, |t| (t, pool_size()));
            assert_eq!(given, n);
            let want = match n {
                1 => None,
                n if n < cores => Some(n),
                _ => Some(global),
            };
            assert_eq!(pool, want, "{n} threads, {cores} cores");
        }
        let pool = rayon_core::ThreadPoolBuilder::new()
            .num_threads(3)
            .build()
            .unwrap();
        let inner = pool.install(|| on_threads(2, |_| pool_size()));
        assert_eq!(inner, Some(3));
    }

    /// A wide update hashes as a plain one, on any number of threads, for
    /// the algorithms that split (BLAKE3, cksum's CRC) and one that does
    /// not; `is_wide` says which split.
    #[test]
    fn wide_updates_hash_as_plain_ones() {
        let data: Vec<u8> = (0..(9usize << 20) + 333)
            .map(|i| (i * 7 + i / 4099) as u8)
            .collect();
        for algo in [Algorithm::Blake3, Algorithm::Crc, Algorithm::Md5] {
            let want = hash_bytes(algo, &data);
            for threads in 1..=3 {
                let mut h = Hasher::new(algo);
                h.update(&data[..100]);
                h.update_wide(&data[100..], threads);
                assert_eq!(h.finalize(), want, "{algo:?} on {threads} threads");
                let wide = Hasher::new(algo).is_wide(data.len(), threads);
                assert_eq!(wide, threads > 1 && algo != Algorithm::Md5, "{algo:?}");
            }
        }
        let small = BLAKE3_MULTITHREAD_MIN - 1;
        assert!(!Hasher::new(Algorithm::Blake3).is_wide(small, 2));
    }

    /// Each `(algorithm, input, hex)` hashes as it says.
    fn assert_vectors(cases: &[(Algorithm, &[u8], &str)]) {
        for &(algo, input, want) in cases {
            assert_eq!(hex(algo, input), want, "{algo:?} {input:?}");
        }
    }

    /// RFC 1321, appendix A.5: the MD5 test suite.
    #[test]
    fn md5_rfc1321_suite() {
        let cases = crate::algo::md5::tests::RFC1321_SUITE;
        for (input, want) in cases {
            assert_eq!(hex(Algorithm::Md5, input.as_bytes()), want, "{input:?}");
        }
    }

    /// FIPS 180-2 appendix examples ("abc" and the 448-bit message).
    #[test]
    fn sha_fips180_examples() {
        let abc = b"abc";
        let two = b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
        let cases: [(Algorithm, &[u8], &str); 8] = [
            (
                Algorithm::Sha1,
                abc,
                "a9993e364706816aba3e25717850c26c9cd0d89d",
            ),
            (
                Algorithm::Sha1,
                two,
                "84983e441c3bd26ebaae4aa1f95129e5e54670f1",
            ),
            (
                Algorithm::Sha224,
                abc,
                "23097d223405d8228642a477bda255b32aadbce4bda0b3f7e36c9da7",
            ),
            (
                Algorithm::Sha256,
                abc,
                "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
            ),
            (
                Algorithm::Sha256,
                two,
                "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
            ),
            (
                Algorithm::Sha384,
                abc,
                "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7",
            ),
            (
                Algorithm::Sha512,
                abc,
                "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f",
            ),
            (
                Algorithm::Sha512,
                b"",
                "cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce47d0d13c5d85f2b0ff8318d2877eec2f63b931bd47417a81a538327af927da3e",
            ),
        ];
        assert_vectors(&cases);
    }

    /// One million 'a' (FIPS 180-2 third example), fed in odd pieces.
    #[test]
    fn sha_million_a_split() {
        let data = vec![b'a'; 1_000_000];
        let mut h = Hasher::new(Algorithm::Sha1);
        for piece in data.chunks(7) {
            h.update(piece);
        }
        assert_eq!(
            h.finalize().to_hex(),
            "34aa973cd4c4daa4f61eeb2bdbad27316534016f"
        );
        assert_eq!(
            hex(Algorithm::Sha256, &data),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"
        );
    }

    /// Official BLAKE3 test vectors (input: bytes i % 251), first 32 bytes.
    #[test]
    fn blake3_official_vectors() {
        let input = |n: usize| (0..n).map(|i| (i % 251) as u8).collect::<Vec<u8>>();
        let cases: [(usize, &str); 3] = [
            (
                0,
                "af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262",
            ),
            (
                1,
                "2d3adedff11b61f14c886e35afa036736dcd87a74d27b5c1510225d0f592e213",
            ),
            (
                1023,
                "10108970eeda3eb932baac1428c7a2163b0e924c9a9e25b35bba72b28f70bd11",
            ),
        ];
        for (n, want) in cases {
            assert_eq!(hex(Algorithm::Blake3, &input(n)), want, "len {n}");
        }
    }

    /// The OpenSSL-backed SHA-384/512 against the sha2 crate (the pure Rust
    /// build's backend): every length 0..=1024 in one call, then random
    /// inputs fed in random splits.
    #[cfg(feature = "openssl")]
    mod openssl_sha512 {
        use super::*;
        use proptest::prelude::*;

        fn reference(algo: Algorithm, data: &[u8]) -> Vec<u8> {
            match algo {
                Algorithm::Sha384 => sha2::Sha384::digest(data).to_vec(),
                _ => sha2::Sha512::digest(data).to_vec(),
            }
        }

        #[test]
        fn every_length_up_to_1024() {
            let data: Vec<u8> = (0..1024u32).map(|i| (i * 151 + 17) as u8).collect();
            for len in 0..=1024 {
                for algo in [Algorithm::Sha384, Algorithm::Sha512] {
                    let got = hash_bytes(algo, &data[..len]);
                    assert_eq!(
                        got.as_bytes(),
                        &reference(algo, &data[..len])[..],
                        "{algo:?} {len}"
                    );
                }
            }
        }

        proptest! {
            #[test]
            fn random_splits(data in proptest::collection::vec(any::<u8>(), 0..20_000),
                             cuts in proptest::collection::vec(any::<usize>(), 0..8)) {
                for algo in [Algorithm::Sha384, Algorithm::Sha512] {
                    let mut cuts: Vec<usize> = cuts.iter().map(|c| c % (data.len() + 1)).collect();
                    cuts.sort_unstable();
                    let mut h = Hasher::new(algo);
                    let mut at = 0;
                    for c in cuts.into_iter().chain([data.len()]) {
                        h.update(&data[at..c]);
                        at = c;
                    }
                    let got = h.finalize();
                    prop_assert_eq!(got.as_bytes(), &reference(algo, &data)[..]);
                }
            }
        }
    }

    #[test]
    fn algorithm_sets_keep_order_and_refuse_duplicates() {
        use Algorithm::{Blake3, Md5, Sha256};
        let set = Algorithms::new([Sha256, Md5, Blake3]).unwrap();
        assert_eq!(set.as_slice(), &[Sha256, Md5, Blake3]);
        assert_eq!(
            (set.first(), set.len(), set.position(Blake3)),
            (Sha256, 3, Some(2))
        );
        assert_eq!(Algorithms::new([Md5, Sha256, Md5]), Err(Some(Md5)));
        assert_eq!(Algorithms::new([]), Err(None));
        assert_eq!(
            Algorithms::new(Algorithm::ALL).unwrap().len(),
            Algorithm::COUNT
        );
        let mut h = Hashers::new(set);
        h.update(b"ab");
        h.update(b"c");
        let want: Vec<Digest> = set
            .as_slice()
            .iter()
            .map(|&a| hash_bytes(a, b"abc"))
            .collect();
        assert_eq!(h.finalize(), want);
    }

    #[test]
    fn tool_names_round_trip() {
        for a in Algorithm::ALL {
            if let Some(tool) = a.tool_name() {
                assert_eq!(Algorithm::from_tool_name(tool), Some(a));
            }
            assert_eq!(hash_bytes(a, b"x").as_bytes().len(), a.digest_len());
        }
    }

    /// Official vectors: RFC 7693 appendix A (BLAKE2b-512 "abc"), GB/T
    /// 32905-2016 appendix A.1 (SM3 "abc"), FIPS 202 examples (SHA-3 of
    /// "abc" and ""), the CRC-32 check value ("123456789"), and xxHash's
    /// (its sanity test: the empty input, seed 0; "abc" as xxhsum 0.8.1
    /// prints it).
    #[test]
    fn new_algorithms_official_vectors() {
        let sha3 = |bits| Algorithm::Sha3(Sha3Size::new(bits).unwrap());
        let cases: [(Algorithm, &[u8], &str); 16] = [
            (
                Algorithm::Blake2b(Bits::MAX),
                b"abc",
                "ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d17d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923",
            ),
            (
                Algorithm::Blake2b(Bits::new(256).unwrap()),
                b"abc",
                "bddd813c634239723171ef3fee98579b94964e3bb1cb3e427262c8c068d52319",
            ),
            (Algorithm::Blake2b(Bits::new(8).unwrap()), b"abc", "6b"),
            (
                Algorithm::Sm3,
                b"abc",
                "66c7f0f462eeedd9d1f2d46bdc10e4e24167c4875cf2f7a2297da02b8f4ba8e0",
            ),
            (
                sha3(224),
                b"abc",
                "e642824c3f8cf24ad09234ee7d3c766fc9a3a5168d0c94ad73b46fdf",
            ),
            (
                sha3(256),
                b"abc",
                "3a985da74fe225b2045c172d6bd390bd855f086e3e9d525b46bfe24511431532",
            ),
            (
                sha3(256),
                b"",
                "a7ffc6f8bf1ed76651c14756a061d662f580ff4de43b49fa82d80a4b80f8434a",
            ),
            (
                sha3(384),
                b"abc",
                "ec01498288516fc926459f58e2c6ad8df9b473cb0fc08c2596da7cf0e49be4b298d88cea927ac7f539f1edf228376d25",
            ),
            (
                sha3(512),
                b"abc",
                "b751850b1a57168a5693cd924b6b096e08f621827444f70d884f5d0240d2712e10e116e9192af3c91a7ec57647e3934057340b4cf408d5a56592f8274eec53f0",
            ),
            (Algorithm::Crc32b, b"123456789", "cbf43926"),
            (Algorithm::Xxh32, b"", "02cc5d05"),
            (Algorithm::Xxh32, b"abc", "32d153ff"),
            (Algorithm::Xxh64, b"", "ef46db3751d8e999"),
            (Algorithm::Xxh3, b"", "2d06800538d394c2"),
            (Algorithm::Xxh3, b"abc", "78af5f94892f3950"),
            (
                Algorithm::Xxh128,
                b"abc",
                "06b05ab6733a618578af5f94892f3950",
            ),
        ];
        assert_vectors(&cases);
    }

    #[test]
    fn lengths_are_part_of_the_algorithm() {
        let b256 = Algorithm::Blake2b(Bits::new(256).unwrap());
        assert_eq!(Bits::new(0), None);
        assert_eq!(Bits::new(7), None);
        assert_eq!(Bits::new(520), None);
        assert_eq!(Bits::new(512), Some(Bits::MAX));
        assert_eq!(Algorithm::ALL[7].with_length(256), Ok(b256));
        assert_eq!(b256.tag(), "BLAKE2b-256");
        assert_eq!(Algorithm::Blake2b(Bits::MAX).tag(), "BLAKE2b");
        assert_eq!(Algorithm::Sha3(Sha3Size::S512).tag(), "SHA3-512");
        assert_eq!(b256.with_length(513), Err(LengthError::TooLong));
        assert_eq!(b256.with_length(12), Err(LengthError::NotBytes));
        assert_eq!(
            Algorithm::Sha3(Sha3Size::S256).with_length(128),
            Err(LengthError::NoSuchSize)
        );
        assert_eq!(Algorithm::Md5.with_length(128), Err(LengthError::Fixed));
        // one length a family a run: the fixed array holds every family
        let set = Algorithms::new([b256, Algorithm::Md5]).unwrap();
        assert_eq!(set.with(Algorithm::Blake2b(Bits::MAX)), None);
        assert!(set.contains(b256) && !set.contains(Algorithm::Blake2b(Bits::MAX)));
        // the 256-bit function is its own, not the 512-bit one cut short
        let long = hash_bytes(Algorithm::Blake2b(Bits::MAX), b"abc");
        assert_ne!(&long.as_bytes()[..32], hash_bytes(b256, b"abc").as_bytes());
        assert!(std::mem::size_of::<Algorithm>() <= 2);
    }

    /// Every algorithm fed in odd pieces gives the one-call digest.
    #[test]
    fn pieces_make_the_whole() {
        let data: Vec<u8> = (0..100_000u32).map(|i| (i * 151 + 17) as u8).collect();
        for a in Algorithm::ALL {
            let mut h = Hasher::new(a);
            for piece in data.chunks(4097) {
                for small in piece.chunks(7) {
                    h.update(small);
                }
            }
            assert_eq!(h.finalize(), hash_bytes(a, &data), "{a:?}");
        }
    }
}
