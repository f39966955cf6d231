//! Who each algorithm is: its variant of [`Algorithm`] (with its length,
//! if it has several), and its row of [`ROWS`] (names, digest length,
//! cost, help); [`Algorithms`], the algorithms of a run.

use std::borrow::Cow;
use std::num::NonZeroU8;

use strum::{EnumCount, EnumDiscriminants};

use crate::algo::legacy::Legacy;
use crate::algo::sha3::Sha3Size;

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

/// A hash algorithm. Adding one is a variant here, its row in [`ROWS`]
/// (from which [`Algorithm::ALL`] and every property come) and its
/// [`Hasher`](crate::algo::Hasher): the compiler asks for the arms that
/// compute it, and [`Algorithms`] grows by itself. A length parameter
/// (BLAKE2b, SHA-3) is carried by the variant, so an `Algorithm` says
/// exactly which function runs, and stays small and `Copy`. Its [`Family`]
/// (the variant without the length) is the index of its row.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, EnumCount, EnumDiscriminants)]
#[strum_discriminants(name(Family), vis(pub(crate)))]
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
    /// CRC-32C (Castagnoli, iSCSI: RFC 3720), as GCS and S3 report it.
    Crc32c,
    /// CRC-64/NVME (reflected 0xAD93D23594C93659, init and xorout all
    /// ones): S3's default full-object checksum.
    Crc64Nvme,
    /// An algorithm over fixed-size parts, as S3 composes a multipart
    /// upload's digest (`--part-size`): the ETag (MD5) or a composite
    /// checksum. Not a family of its own: its properties are its base's
    /// (but for its tag and line), and it has no row; so it is the last
    /// variant, out of [`Algorithm::ALL`].
    Parts(Parts),
}

/// The algorithms S3 composes over the parts of a multipart upload: the
/// ETag's MD5, and the composite checksums.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Composed {
    /// The ETag: `hex(MD5(MD5(p1) ‖ … ‖ MD5(pN)))-N`.
    Md5,
    /// Composite SHA-1.
    Sha1,
    /// Composite SHA-256.
    Sha256,
    /// Composite CRC-32 (zlib's).
    Crc32b,
    /// Composite CRC-32C.
    Crc32c,
}

impl Composed {
    /// The algorithm of each part and of the parts' digests.
    pub fn algorithm(self) -> Algorithm {
        match self {
            Composed::Md5 => Algorithm::Md5,
            Composed::Sha1 => Algorithm::Sha1,
            Composed::Sha256 => Algorithm::Sha256,
            Composed::Crc32b => Algorithm::Crc32b,
            Composed::Crc32c => Algorithm::Crc32c,
        }
    }

    /// The one S3 composes as `algo`, if it does (its row says).
    pub fn of(algo: Algorithm) -> Option<Composed> {
        match algo {
            Algorithm::Parts(_) => None,
            _ => algo.row().composed,
        }
    }
}

/// The size of an upload's parts (the last one may be shorter): a whole
/// number of KiB below 32 MiB, of MiB from 32 MiB to 32767 MiB, below 32 GiB (uploaders
/// use whole MiB; S3 takes parts of 5 MiB to 5 GiB). fastsum takes smaller
/// parts than S3 too, so that files of a few bytes can be tested over many
/// parts (docs/GUIDE.md, "Object stores"). Two bytes, byte-aligned (KiB
/// below `0x8000`, else MiB above it): it makes [`Algorithm::Parts`], so
/// `Algorithm` stays four bytes and `Algorithms`, carried by every task,
/// small.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PartSize([u8; 2]);

impl PartSize {
    /// The flag of a size in MiB.
    const MIB: u16 = 0x8000;

    /// `bytes`, if it is a part size (see [`PartSize`]).
    pub fn new(bytes: u64) -> Option<PartSize> {
        let code = if bytes < 32 << 20 {
            if bytes == 0 || !bytes.is_multiple_of(1 << 10) {
                return None;
            }
            bytes >> 10
        } else {
            if !bytes.is_multiple_of(1 << 20) || bytes >> 20 >= u64::from(PartSize::MIB) {
                return None;
            }
            (bytes >> 20) | u64::from(PartSize::MIB)
        };
        Some(PartSize(u16::try_from(code).ok()?.to_le_bytes()))
    }

    /// `n` MiB (`n` from 1 to 32767).
    pub fn mib(n: u32) -> Option<PartSize> {
        PartSize::new(u64::from(n) << 20)
    }

    /// The size in bytes.
    pub fn bytes(self) -> u64 {
        let code = u16::from_le_bytes(self.0);
        match code & PartSize::MIB {
            0 => u64::from(code) << 10,
            _ => u64::from(code & !PartSize::MIB) << 20,
        }
    }
}

impl std::fmt::Display for PartSize {
    /// As SIZE is written: `8M`, `5G`, `1536K`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kib = self.bytes() >> 10;
        for (shift, suffix) in [(20, "G"), (10, "M")] {
            if kib.is_multiple_of(1 << shift) {
                return write!(f, "{}{suffix}", kib >> shift);
            }
        }
        write!(f, "{kib}K")
    }
}

/// An algorithm S3 composes, over parts of one size.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Parts {
    /// What is computed over each part and over the parts' digests.
    pub of: Composed,
    /// The size of each part (the last one may be shorter).
    pub size: PartSize,
}

impl Parts {
    /// The S3 ETag (`of` MD5) or composite checksum of `of` over parts of `size`.
    pub fn new(of: Composed, size: PartSize) -> Parts {
        Parts { of, size }
    }

    /// Is the digest written in hex (the ETag), not in base64 (the composite
    /// checksums, as S3 shows them)?
    pub fn hex(self) -> bool {
        self.of == Composed::Md5
    }
}

/// Inputs shorter than this are hashed by BLAKE3 on one thread even when
/// the route gives it several: below it, waking rayon's threads costs more
/// than splitting saves (measured: docs/BENCHMARKS.md, "Memory-mapped
/// reading and BLAKE3"). BLAKE3's row says so ([`Wide::Tree`]).
pub const BLAKE3_MULTITHREAD_MIN: usize = 1024 * 1024;

/// When one input of an algorithm is wide enough for threads of its own
/// (`Route.threads`'s `Wide`): how [`Hasher::update_wide`](crate::algo::Hasher)
/// splits it is the hasher's, when it pays is the row's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Wide {
    /// Never: sequential by nature, one thread an input.
    Never,
    /// From this many bytes on: its tree splits over threads, so the
    /// threaded mode maps such a file when it is the run's one algorithm
    /// (the pipeline's blocks would feed one thread: `read/route.rs`).
    Tree(usize),
    /// Whenever it is given threads (a mapping's windows): in parts,
    /// combined in order (cksum's CRC).
    Parts,
}

/// A multi-message engine: a batch of small inputs of one algorithm
/// hashed side by side (`read/pipeline/lanes.rs` `Lanes::hash` matches
/// every one).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum LaneEngine {
    /// MD5's SIMD lanes (`algo::md5::lanes`).
    Md5,
    /// SHA-1's (`algo::sha::lanes`).
    Sha1,
    /// SHA-224's (`algo::sha::lanes`).
    Sha224,
    /// SHA-256's (`algo::sha::lanes`).
    Sha256,
}

/// The kernels a lane engine's path is chosen among: what the CPU offers
/// it, the variable that forces one (`algo/platform.rs`), and its
/// `--stats` lines.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum LaneKernels {
    /// MD5's (`FASTSUM_MD5`, `FASTSUM_MD5_LANES`).
    Md5,
    /// SHA-1's and SHA-224/256's (`FASTSUM_SHA_LANES`).
    Sha,
}

impl LaneEngine {
    /// The kernels its path is chosen among.
    pub(crate) fn kernels(self) -> LaneKernels {
        match self {
            LaneEngine::Md5 => LaneKernels::Md5,
            LaneEngine::Sha1 | LaneEngine::Sha224 | LaneEngine::Sha256 => LaneKernels::Sha,
        }
    }
}

/// xxhsum's names for an xxHash variant: its `-H` number, the width `-H`
/// also takes for it (`-H64`), its tool name (`xxh64sum`).
#[derive(Debug)]
struct Xxhsum {
    number: u32,
    width: Option<u32>,
    tool: &'static str,
}

/// xxhsum's `-H` number of its default algorithm (`xxhsum` without `-H`).
const XXHSUM_DEFAULT: u32 = 1;

/// What fastsum knows of an algorithm family besides how to compute it
/// (its [`Hasher`](crate::algo::Hasher) arm): its names (for `-a`, GNU,
/// tools, check files, cksum and xxhsum), its length, cost and help, how
/// its lines are written, and how it is hashed (threads, lanes, parts).
/// One row of [`ROWS`] per variant of [`Algorithm`], in the enum's order;
/// the properties of [`Algorithm`] and every list of algorithms read the
/// rows, so a new algorithm is a new row, not an arm in each of them.
#[derive(Debug)]
pub(crate) struct Row {
    /// The family at its default length (BLAKE2b-512, SHA3-256): an entry
    /// of [`Algorithm::ALL`].
    algo: Algorithm,
    /// The name `-a` takes (lower case), and JSON's `algorithm`.
    name: &'static str,
    /// The name GNU writes for the family: the word in check-mode warnings
    /// (`no properly formatted BLAKE2b checksum lines found`) and the start
    /// of a tag (see [`Algorithm::tag`]).
    gnu_name: &'static str,
    /// The stand-alone tool with GNU's command line that fastsum answers
    /// to for it (multi-call), if any. cksum and sum, names with a command
    /// line of their own, are `cli/name.rs` `tool_algorithm`'s; xxhsum's
    /// are in [`Row::xxhsum`].
    tool: Option<&'static str>,
    /// Digest length in bytes (at the default length: a length parameter
    /// gives its own).
    digest_len: usize,
    /// Relative hashing cost per byte on one core (at the default length),
    /// as measured on x86-64 (docs/BENCHMARKS.md, "The algorithms of issue
    /// #20"): what the fan-out balances when it splits several algorithms
    /// over threads (`read/fanout.rs`).
    cost: u32,
    /// `-a`'s help for it (`--help`, the man page, completions).
    help: &'static str,
    /// A checksum that prints its own line (`cksum`'s, `sum`'s).
    legacy: Option<Legacy>,
    /// Cryptographic: an untagged line may be taken for it by the length
    /// of its digest, or by the words of a check file's name or block
    /// header (`check/infer.rs`). These are those words, lower case,
    /// without `sum`/`sums` (`sha256`, `shasums256`, `b2`); a family that
    /// needs a length is also named with it (`sha3-256`, `sha3_256`). A
    /// checksum anyone can forge is never inferred (`None`).
    cryptographic: Option<&'static [&'static str]>,
    /// Its lines are always tagged: untagged, its digest would read as
    /// another's (XXH3's 16 hex digits as XXH64's, as xxhsum 0.8 writes
    /// it; CRC-32C's 8 as XXH32's, CRC-64/NVME's 16 as XXH64's).
    tagged_only: bool,
    /// Its place in GNU cksum's `-a` list (see [`Algorithm::CKSUM`]).
    cksum: Option<usize>,
    /// xxhsum's names for it.
    xxhsum: Option<Xxhsum>,
    /// When one input of it is wide enough for threads of its own.
    wide: Wide,
    /// Its multi-message engine, if it has one.
    lanes: Option<LaneEngine>,
    /// What S3 composes of it over parts (`--part-size`), if it does.
    composed: Option<Composed>,
}

/// A row with the common defaults: a tool of no name, no line of its
/// own, not cryptographic, untagged lines, in neither cksum's nor
/// xxhsum's lists, one thread an input, no lanes, not composed.
const fn row(
    algo: Algorithm,
    name: &'static str,
    gnu_name: &'static str,
    digest_len: usize,
    cost: u32,
    help: &'static str,
) -> Row {
    Row {
        algo,
        name,
        gnu_name,
        tool: None,
        digest_len,
        cost,
        help,
        legacy: None,
        cryptographic: None,
        tagged_only: false,
        cksum: None,
        xxhsum: None,
        wide: Wide::Never,
        lanes: None,
        composed: None,
    }
}

impl Row {
    /// With the tool name `tool`.
    const fn tool(self, tool: &'static str) -> Row {
        Row {
            tool: Some(tool),
            ..self
        }
    }

    /// Printing its own line as `legacy`.
    const fn legacy(self, legacy: Legacy) -> Row {
        Row {
            legacy: Some(legacy),
            ..self
        }
    }

    /// Cryptographic, named `words` by check files (see [`Row::cryptographic`]).
    const fn cryptographic(self, words: &'static [&'static str]) -> Row {
        Row {
            cryptographic: Some(words),
            ..self
        }
    }

    /// Its lines always tagged.
    const fn tagged_only(self) -> Row {
        Row {
            tagged_only: true,
            ..self
        }
    }

    /// At `place` in GNU cksum's `-a` list.
    const fn cksum(self, place: usize) -> Row {
        Row {
            cksum: Some(place),
            ..self
        }
    }

    /// xxhsum's `-H number` (and `-H width`), as the tool `tool`.
    const fn xxhsum(self, number: u32, width: Option<u32>, tool: &'static str) -> Row {
        Row {
            xxhsum: Some(Xxhsum {
                number,
                width,
                tool,
            }),
            ..self
        }
    }

    /// Wide enough for threads of its own as `wide` says.
    const fn wide(self, wide: Wide) -> Row {
        Row { wide, ..self }
    }

    /// With the multi-message engine `engine`.
    const fn lanes(self, engine: LaneEngine) -> Row {
        Row {
            lanes: Some(engine),
            ..self
        }
    }

    /// Composed by S3 over parts as `composed`.
    const fn composed(self, composed: Composed) -> Row {
        Row {
            composed: Some(composed),
            ..self
        }
    }
}

/// How many families have a row: every variant but [`Algorithm::Parts`].
const FAMILIES: usize = Algorithm::COUNT - 1;

/// Every algorithm family's identity, in the order of [`Algorithm`]'s
/// variants (a test holds the two in step): name (`-a`), GNU's name, digest
/// bytes, cost, help; then what it has besides the defaults of [`row`].
#[rustfmt::skip]
const ROWS: [Row; FAMILIES] = {
    use Algorithm as A;
    [
        row(A::Md5, "md5", "MD5", 16, 15,
            "MD5 (RFC 1321), 128 bits: the default, as md5sum")
            .tool("md5sum").cryptographic(&["md5"]).cksum(3)
            .lanes(LaneEngine::Md5).composed(Composed::Md5),
        row(A::Sha1, "sha1", "SHA1", 20, 5,
            "SHA-1 (FIPS 180-4), 160 bits, as sha1sum")
            .tool("sha1sum").cryptographic(&["sha1", "shasum1", "shasums1"]).cksum(4)
            .lanes(LaneEngine::Sha1).composed(Composed::Sha1),
        row(A::Sha224, "sha224", "SHA224", 28, 5,
            "SHA-224 (FIPS 180-4), as sha224sum")
            .tool("sha224sum").cryptographic(&["sha224", "shasum224", "shasums224"]).cksum(5)
            .lanes(LaneEngine::Sha224),
        row(A::Sha256, "sha256", "SHA256", 32, 5,
            "SHA-256 (FIPS 180-4), as sha256sum")
            .tool("sha256sum").cryptographic(&["sha256", "shasum256", "shasums256"]).cksum(6)
            .lanes(LaneEngine::Sha256).composed(Composed::Sha256),
        row(A::Sha384, "sha384", "SHA384", 48, 14,
            "SHA-384 (FIPS 180-4), as sha384sum")
            .tool("sha384sum").cryptographic(&["sha384", "shasum384", "shasums384"]).cksum(7),
        row(A::Sha512, "sha512", "SHA512", 64, 14,
            "SHA-512 (FIPS 180-4), as sha512sum")
            .tool("sha512sum").cryptographic(&["sha512", "shasum512", "shasums512"]).cksum(8),
        row(A::Blake3, "blake3", "BLAKE3", 32, 4,
            "BLAKE3, 256 bits of output, as b3sum")
            .tool("b3sum").cryptographic(&["b3", "blake3"])
            .wide(Wide::Tree(BLAKE3_MULTITHREAD_MIN)),
        row(A::Blake2b(Bits::MAX), "blake2b", "BLAKE2b", 64, 9,
            "BLAKE2b (RFC 7693), 512 bits or -l BITS, as b2sum")
            .tool("b2sum").cryptographic(&["b2", "blake2", "blake2b"]).cksum(9),
        row(A::Sm3, "sm3", "SM3", 32, 24,
            "SM3 (GB/T 32905), 256 bits, as cksum -a sm3")
            .cryptographic(&["sm3"]).cksum(10),
        row(A::Sha3(Sha3Size::S256), "sha3", "SHA3", 32, 21,
            "SHA-3 (FIPS 202), -l 224, 256, 384 or 512, as cksum -a sha3")
            .cryptographic(&["sha3"]).cksum(12),
        row(A::Crc32b, "crc32b", "CRC32B", 4, 1,
            "CRC-32 of zlib (ISO-HDLC) and the size, as cksum -a crc32b")
            .legacy(Legacy::Crc32b).cksum(11).composed(Composed::Crc32b),
        row(A::Xxh32, "xxh32", "XXH32", 4, 1,
            "XXH32, as xxhsum -H0 (not cryptographic)")
            .xxhsum(0, Some(32), "xxh32sum"),
        row(A::Xxh64, "xxh64", "XXH64", 8, 1,
            "XXH64, as xxhsum -H1 (not cryptographic)")
            .xxhsum(1, Some(64), "xxh64sum"),
        row(A::Xxh3, "xxh3", "XXH3", 8, 1,
            "XXH3, 64 bits, as xxhsum -H3 (not cryptographic)")
            .xxhsum(3, None, "xxh3sum").tagged_only(),
        row(A::Xxh128, "xxh128", "XXH128", 16, 1,
            "XXH3, 128 bits, as xxhsum -H2 (not cryptographic)")
            .xxhsum(2, Some(128), "xxh128sum"),
        row(A::Crc, "crc", "CRC", 4, 1,
            "the POSIX CRC and the size, as cksum")
            .legacy(Legacy::Crc).cksum(2).wide(Wide::Parts),
        // BSD's is a chain of two dependent operations a byte (algo::legacy)
        row(A::Bsd, "bsd", "BSD", 2, 8,
            "BSD sum and the size in KiB, as sum -r")
            .legacy(Legacy::Bsd).cksum(0),
        row(A::Sysv, "sysv", "SYSV", 2, 1,
            "System V sum and the size in 512-byte blocks, as sum -s")
            .legacy(Legacy::Sysv).cksum(1),
        row(A::Crc32c, "crc32c", "CRC32C", 4, 1,
            "CRC-32C (Castagnoli), as GCS and S3 report it")
            .tagged_only().composed(Composed::Crc32c),
        row(A::Crc64Nvme, "crc64nvme", "CRC64NVME", 8, 1,
            "CRC-64/NVME, S3's default full-object checksum")
            .tagged_only(),
    ]
};

/// How many rows are in GNU cksum's `-a` list.
const CKSUM_COUNT: usize = {
    let mut n = 0;
    let mut i = 0;
    while i < FAMILIES {
        if ROWS[i].cksum.is_some() {
            n += 1;
        }
        i += 1;
    }
    n
};

impl Algorithm {
    /// Every algorithm, in the order of the enum; the ones with a length
    /// at their default (BLAKE2b-512; SHA3-256, though `-a sha3` asks for
    /// `-l` as GNU cksum does).
    pub const ALL: [Algorithm; FAMILIES] = {
        let mut all = [Algorithm::Md5; FAMILIES];
        let mut i = 0;
        while i < all.len() {
            all[i] = ROWS[i].algo;
            i += 1;
        }
        all
    };

    /// This algorithm's row of [`ROWS`] (over parts: its base's).
    fn row(self) -> &'static Row {
        static TABLE: [Row; FAMILIES] = ROWS;
        let family = match self {
            Algorithm::Parts(p) => p.of.algorithm(),
            a => a,
        };
        &TABLE[Family::from(family) as usize]
    }

    /// The parts it is computed over, if S3 composes it (`--part-size`).
    pub fn parts(self) -> Option<Parts> {
        match self {
            Algorithm::Parts(p) => Some(p),
            _ => None,
        }
    }

    /// The name GNU writes for its family: the word in check-mode warnings
    /// (`no properly formatted BLAKE2b checksum lines found`) and the start
    /// of a tag (see [`Algorithm::tag`]).
    pub fn gnu_name(self) -> &'static str {
        self.row().gnu_name
    }

    /// Is it one of the checksums that print their own line?
    pub fn legacy(self) -> Option<Legacy> {
        match self {
            // a composite CRC-32 is S3's line, not cksum's
            Algorithm::Parts(_) => None,
            _ => self.row().legacy,
        }
    }

    /// The label of tagged lines (`SHA256 (f) = …`): the family name, with
    /// the length where GNU writes it: `BLAKE2b-256` (none for 512, as
    /// b2sum), `SHA3-256` (always, as cksum 9.8); over parts, the base's
    /// and the part size: `MD5@8M` (docs/check.md).
    pub fn tag(self) -> Cow<'static, str> {
        match self {
            Algorithm::Parts(p) => format!("{}@{}", self.gnu_name(), p.size).into(),
            Algorithm::Blake2b(b) if b != Bits::MAX => format!("BLAKE2b-{}", b.bits()).into(),
            Algorithm::Sha3(s) => format!("SHA3-{}", s.bits()).into(),
            _ => self.gnu_name().into(),
        }
    }

    /// The name `-a` takes (lower case).
    pub fn name(self) -> &'static str {
        self.row().name
    }

    /// `-a`'s help for it.
    pub(crate) fn help(self) -> &'static str {
        self.row().help
    }

    /// Digest length in bytes.
    pub fn digest_len(self) -> usize {
        match self {
            Algorithm::Blake2b(b) => b.bytes(),
            Algorithm::Sha3(s) => s.bits() as usize / 8,
            _ => self.row().digest_len,
        }
    }

    /// Its multi-message engine (a batch of small inputs hashed side by
    /// side), if it has one.
    pub(crate) fn lanes(self) -> Option<LaneEngine> {
        match self {
            // a composed digest is no single message
            Algorithm::Parts(_) => None,
            _ => self.row().lanes,
        }
    }

    /// Does [`Hasher::update_wide`](crate::algo::Hasher::update_wide)
    /// spread `len` bytes of it over `threads` threads? BLAKE3 (its tree)
    /// from [`BLAKE3_MULTITHREAD_MIN`] bytes on, cksum's CRC (in parts)
    /// always: as its row's [`Wide`] says.
    pub(crate) fn is_wide(self, len: usize, threads: usize) -> bool {
        threads > 1
            && match self.wide() {
                Wide::Never => false,
                Wide::Tree(min) => len >= min,
                Wide::Parts => true,
            }
    }

    /// Is a file of `len` bytes, hashed with this algorithm alone, mapped
    /// in the threaded mode so that its tree hashes on every core
    /// ([`Wide::Tree`])?
    pub(crate) fn maps_wide(self, len: u64) -> bool {
        match self.wide() {
            Wide::Tree(min) => len >= min as u64,
            Wide::Never | Wide::Parts => false,
        }
    }

    /// When one input of it is wide enough for threads of its own.
    fn wide(self) -> Wide {
        match self {
            // the composer splits at parts, one after the other
            Algorithm::Parts(_) => Wide::Never,
            _ => self.row().wide,
        }
    }

    /// Are its lines always tagged? Its row's rule (XXH3, CRC-32C,
    /// CRC-64/NVME), and a digest over parts (its tag carries the part
    /// size).
    pub(crate) fn tagged_only(self) -> bool {
        matches!(self, Algorithm::Parts(_)) || self.row().tagged_only
    }

    /// Is it cryptographic (an untagged line may be taken for it:
    /// `check/infer.rs`)? Over parts, no: such lines are always tagged.
    pub(crate) fn is_cryptographic(self) -> bool {
        !matches!(self, Algorithm::Parts(_)) && self.row().cryptographic.is_some()
    }

    /// The words check files' names and block headers name it by (lower
    /// case, without `sum`/`sums`); none for a checksum.
    pub(crate) fn file_words(self) -> &'static [&'static str] {
        match self {
            Algorithm::Parts(_) => &[],
            _ => self.row().cryptographic.unwrap_or(&[]),
        }
    }

    /// Does `-a` ask for `-l` with it, as GNU cksum does for SHA-3 (it
    /// has no default size)?
    pub(crate) fn needs_length(self) -> bool {
        matches!(self, Algorithm::Sha3(_))
    }

    /// The algorithms of its family a line written without `-l` may be
    /// of: this one, or every size of a family that needs a length.
    pub(crate) fn written_without_length(self) -> Vec<Algorithm> {
        match self {
            Algorithm::Sha3(_) => [224, 256, 384, 512]
                .into_iter()
                .filter_map(Sha3Size::new)
                .map(Algorithm::Sha3)
                .collect(),
            a => vec![a],
        }
    }

    /// xxhsum's names for it.
    fn xxhsum(self) -> Option<&'static Xxhsum> {
        match self {
            Algorithm::Parts(_) => None,
            _ => self.row().xxhsum.as_ref(),
        }
    }

    /// The algorithm xxhsum's `-H n` names: its number (`-H2`), or its
    /// width (`-H128`).
    pub(crate) fn from_xxhsum_number(n: u32) -> Option<Algorithm> {
        let named = |a: &Algorithm| {
            a.xxhsum()
                .is_some_and(|x| x.number == n || x.width == Some(n))
        };
        Algorithm::ALL.into_iter().find(named)
    }

    /// xxhsum's default (`xxhsum` without `-H`: XXH64).
    pub(crate) fn xxhsum_default() -> Option<Algorithm> {
        Algorithm::from_xxhsum_number(XXHSUM_DEFAULT)
    }

    /// The algorithm an xxhsum tool name stands for (`xxh32sum`, …,
    /// `xxh3sum`; `xxhsum` itself, its default), the system's way of
    /// comparing file names ([`crate::sys::same_file_name`]).
    pub(crate) fn from_xxhsum_tool(name: &str) -> Option<Algorithm> {
        if crate::sys::same_file_name("xxhsum", name) {
            return Algorithm::xxhsum_default();
        }
        let named = |a: &Algorithm| {
            a.xxhsum()
                .is_some_and(|x| crate::sys::same_file_name(x.tool, name))
        };
        Algorithm::ALL.into_iter().find(named)
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
    /// also the only tags its `-c` reads. Each row's `cksum` place.
    pub(crate) const CKSUM: [Algorithm; CKSUM_COUNT] = {
        let mut list = [Algorithm::Md5; CKSUM_COUNT];
        let mut i = 0;
        while i < FAMILIES {
            if let Some(place) = ROWS[i].cksum {
                list[place] = ROWS[i].algo;
            }
            i += 1;
        }
        list
    };

    /// Does `-l` choose among several lengths of it?
    pub fn takes_length(self) -> bool {
        matches!(self, Algorithm::Blake2b(_) | Algorithm::Sha3(_))
    }

    /// The same family (whatever the lengths): what a run may not name
    /// twice, and what a tag is matched against.
    /// Over parts, each base and part size is one of its own (a run may
    /// compute the ETag over several part sizes).
    pub fn same_family(self, other: Algorithm) -> bool {
        match (self, other) {
            (Algorithm::Parts(a), Algorithm::Parts(b)) => a == b,
            _ => std::mem::discriminant(&self) == std::mem::discriminant(&other),
        }
    }
    /// The name of the stand-alone tool this algorithm replaces (multi-call),
    /// if fastsum answers to one for it.
    pub fn tool_name(self) -> Option<&'static str> {
        match self {
            Algorithm::Parts(_) => None,
            _ => self.row().tool,
        }
    }

    /// Relative hashing cost per byte on one core: what the fan-out
    /// balances when it splits several algorithms over threads.
    pub(crate) fn cost(self) -> u32 {
        match self {
            // Keccak's cost per byte goes with its rate: 200 bytes less
            // twice the digest (the row's 21 at SHA3-256's 136 bytes)
            Algorithm::Sha3(s) => 2856 / (200 - s.bits() / 4),
            _ => self.row().cost,
        }
    }

    /// The algorithm a multi-call name stands for (`md5sum`, …, `b3sum`,
    /// `b2sum`), the system's way of comparing file names
    /// ([`crate::sys::same_file_name`]: in any case where they ignore it).
    pub(crate) fn from_tool_name(name: &str) -> Option<Algorithm> {
        let same = |a: &Algorithm| {
            a.tool_name()
                .is_some_and(|t| crate::sys::same_file_name(t, name))
        };
        Algorithm::ALL.into_iter().find(same)
    }
}

/// How many algorithms a run (or an input) may compute: as many as there
/// are families (one of each, or several part sizes of those S3 composes,
/// the part sizes a bare ETag may have been made with). Every task carries
/// an array of them: more would make each job bigger for runs that are
/// nearly never made.
pub const MAX_ALGORITHMS: usize = FAMILIES;

/// The algorithms of a run (or of one input), in the order given: never
/// empty, never the same algorithm twice. `Copy`, no allocation.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Algorithms {
    list: [Algorithm; MAX_ALGORITHMS],
    len: u8,
}

impl Algorithms {
    /// Just `algo`.
    pub fn one(algo: Algorithm) -> Algorithms {
        Algorithms {
            list: [algo; MAX_ALGORITHMS],
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
    /// in (one length of BLAKE2b or SHA-3 a run), or if there are
    /// [`MAX_ALGORITHMS`] already.
    pub fn with(self, algo: Algorithm) -> Option<Algorithms> {
        if self.len() == MAX_ALGORITHMS || self.as_slice().iter().any(|a| a.same_family(algo)) {
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

    /// How many (1 to [`MAX_ALGORITHMS`]).
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Each row sits at its family's place (what `Algorithm::row` indexes
    /// by), and no two rows share a name, a GNU name or a tool.
    #[test]
    fn each_row_is_its_familys() {
        for (i, a) in Algorithm::ALL.into_iter().enumerate() {
            assert_eq!(Family::from(a) as usize, i, "{a:?}");
            assert_eq!(a.row().algo, a);
        }
        for field in [
            |a: Algorithm| Some(a.name()),
            |a: Algorithm| Some(a.gnu_name()),
            Algorithm::tool_name,
        ] {
            let mut seen: Vec<&str> = Algorithm::ALL.into_iter().filter_map(field).collect();
            let n = seen.len();
            seen.sort_unstable();
            seen.dedup();
            assert_eq!(seen.len(), n, "{seen:?}");
        }
    }

    /// The lists derived from the rows are the tools': cksum's `-a` in
    /// GNU's order (each place once), xxhsum's `-H` numbers, widths and
    /// tool names, the lines always tagged, the cryptographic ones, the
    /// one lane engine a lane path, the wide ones.
    #[test]
    fn the_lists_come_from_the_rows() {
        use Algorithm as A;
        let cksum = Algorithm::CKSUM.map(A::name).join(" ");
        let gnu = "bsd sysv crc md5 sha1 sha224 sha256 sha384 sha512 blake2b sm3 crc32b sha3";
        assert_eq!(cksum, gnu);
        for (n, want) in [
            (0, A::Xxh32),
            (32, A::Xxh32),
            (1, A::Xxh64),
            (64, A::Xxh64),
            (2, A::Xxh128),
            (128, A::Xxh128),
            (3, A::Xxh3),
        ] {
            assert_eq!(Algorithm::from_xxhsum_number(n), Some(want), "-H{n}");
        }
        for n in [4, 5, 16, 256] {
            assert_eq!(Algorithm::from_xxhsum_number(n), None, "-H{n}");
        }
        for (tool, want) in [
            ("xxhsum", A::Xxh64),
            ("xxh32sum", A::Xxh32),
            ("xxh64sum", A::Xxh64),
            ("xxh128sum", A::Xxh128),
            ("xxh3sum", A::Xxh3),
        ] {
            assert_eq!(Algorithm::from_xxhsum_tool(tool), Some(want), "{tool}");
        }
        assert_eq!(Algorithm::from_xxhsum_tool("xxh16sum"), None);
        let which = |f: fn(Algorithm) -> bool| {
            let names: Vec<&str> = Algorithm::ALL
                .into_iter()
                .filter(|&a| f(a))
                .map(A::name)
                .collect();
            names.join(" ")
        };
        assert_eq!(which(A::tagged_only), "xxh3 crc32c crc64nvme");
        let crypto = "md5 sha1 sha224 sha256 sha384 sha512 blake3 blake2b sm3 sha3";
        assert_eq!(which(A::is_cryptographic), crypto);
        assert_eq!(which(|a| a.lanes().is_some()), "md5 sha1 sha224 sha256");
        assert_eq!(which(|a| a.is_wide(usize::MAX, 2)), "blake3 crc");
        assert_eq!(which(|a| a.maps_wide(u64::MAX)), "blake3");
        assert_eq!(
            which(|a| Composed::of(a).is_some()),
            "md5 sha1 sha256 crc32b crc32c"
        );
        for a in Algorithm::ALL {
            assert!(a.file_words().is_empty() != a.is_cryptographic(), "{a:?}");
            if let Some(c) = Composed::of(a) {
                assert_eq!(c.algorithm(), a);
            }
        }
    }
}
