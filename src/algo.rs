//! The hash algorithms fastsum supports, and one `Hasher` that dispatches over
//! them without boxing (an enum, so the hot `update` call is a jump, not a
//! virtual call through a `dyn Digest`).

use sha2::Digest as _;
use strum::{EnumCount, VariantArray};

use crate::sha512::{Out, Sha512};

/// A hash algorithm. Adding one is a variant here plus its arm in
/// [`Hasher`]: every other `match` on it fails to compile until it has one
/// too, and [`Algorithm::ALL`] and [`Algorithms`] grow by themselves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, EnumCount, VariantArray)]
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
}

impl Algorithm {
    /// Every algorithm, in the order of the enum.
    pub const ALL: [Algorithm; Algorithm::COUNT] = {
        let mut all = [Algorithm::Md5; Algorithm::COUNT];
        let mut i = 0;
        while i < Algorithm::COUNT {
            all[i] = Algorithm::VARIANTS[i];
            i += 1;
        }
        all
    };

    /// The name GNU writes for it: the label of tagged lines (`SHA256 (f)
    /// = …`, `--tag`) and the word in check-mode warnings.
    pub fn gnu_name(self) -> &'static str {
        match self {
            Algorithm::Md5 => "MD5",
            Algorithm::Sha1 => "SHA1",
            Algorithm::Sha224 => "SHA224",
            Algorithm::Sha256 => "SHA256",
            Algorithm::Sha384 => "SHA384",
            Algorithm::Sha512 => "SHA512",
            Algorithm::Blake3 => "BLAKE3",
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
        }
    }

    /// The name of the stand-alone tool this algorithm replaces (multi-call).
    pub fn tool_name(self) -> &'static str {
        match self {
            Algorithm::Md5 => "md5sum",
            Algorithm::Sha1 => "sha1sum",
            Algorithm::Sha224 => "sha224sum",
            Algorithm::Sha256 => "sha256sum",
            Algorithm::Sha384 => "sha384sum",
            Algorithm::Sha512 => "sha512sum",
            Algorithm::Blake3 => "b3sum",
        }
    }

    /// Relative hashing cost per byte on one core (x86-64 with SHA-NI, as
    /// measured with `benches/multi.sh`'s single runs): what the fan-out
    /// balances when it splits several algorithms over threads.
    pub(crate) fn cost(self) -> u32 {
        match self {
            Algorithm::Md5 => 15,
            Algorithm::Sha1 => 5,
            Algorithm::Sha224 | Algorithm::Sha256 => 5,
            Algorithm::Sha384 | Algorithm::Sha512 => 14,
            Algorithm::Blake3 => 4,
        }
    }

    /// The algorithm a multi-call name stands for (`md5sum`, …, `b3sum`;
    /// in any case on the systems whose file names ignore case).
    pub(crate) fn from_tool_name(name: &str) -> Option<Algorithm> {
        let same = |a: Algorithm| {
            if cfg!(any(target_os = "macos", windows)) {
                a.tool_name().eq_ignore_ascii_case(name)
            } else {
                a.tool_name() == name
            }
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

    /// These and `algo` after them; `None` if `algo` is already in.
    pub fn with(self, algo: Algorithm) -> Option<Algorithms> {
        if self.contains(algo) {
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
        crate::output::push_hex(&mut hex, self.as_bytes());
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

/// A running hash computation of any supported algorithm.
#[derive(Clone)]
pub enum Hasher {
    /// MD5: fastsum's own kernels (`crate::md5`), faster than the md-5 crate.
    Md5(crate::md5::Md5),
    /// SHA-1.
    Sha1(sha1::Sha1),
    /// SHA-224.
    Sha224(sha2::Sha224),
    /// SHA-256.
    Sha256(sha2::Sha256),
    /// SHA-384.
    Sha384(crate::sha512::Sha512),
    /// SHA-512.
    Sha512(crate::sha512::Sha512),
    /// BLAKE3 (boxed: its state is ~2 KiB).
    Blake3(Box<blake3::Hasher>),
}

impl Hasher {
    /// A fresh hasher for `algo`.
    pub fn new(algo: Algorithm) -> Hasher {
        match algo {
            Algorithm::Md5 => Hasher::Md5(crate::md5::Md5::new()),
            Algorithm::Sha1 => Hasher::Sha1(sha1::Sha1::new()),
            Algorithm::Sha224 => Hasher::Sha224(sha2::Sha224::new()),
            Algorithm::Sha256 => Hasher::Sha256(sha2::Sha256::new()),
            Algorithm::Sha384 => Hasher::Sha384(Sha512::new(Out::Sha384)),
            Algorithm::Sha512 => Hasher::Sha512(Sha512::new(Out::Sha512)),
            Algorithm::Blake3 => Hasher::Blake3(Box::new(blake3::Hasher::new())),
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
        }
    }

    /// Feed `data` on up to `threads` threads where that pays: BLAKE3's
    /// tree lets rayon hash parts of one big input in parallel (bounded as
    /// b3sum's `--num-threads` bounds it); the other algorithms are
    /// sequential by nature and take a plain `update`.
    pub(crate) fn update_wide(&mut self, data: &[u8], threads: usize) {
        match self {
            Hasher::Blake3(h) if threads > 1 && data.len() >= BLAKE3_MULTITHREAD_MIN => {
                let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
                if threads >= cores {
                    h.update_rayon(data);
                } else {
                    // fewer threads than rayon's global pool has: a pool of
                    // that many (none can start: one thread)
                    match rayon_core::ThreadPoolBuilder::new()
                        .num_threads(threads)
                        .build()
                    {
                        Ok(pool) => pool.install(|| h.update_rayon(data)),
                        Err(_) => h.update(data),
                    };
                }
            }
            _ => self.update(data),
        }
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

    /// RFC 1321, appendix A.5: the MD5 test suite.
    #[test]
    fn md5_rfc1321_suite() {
        let cases = crate::md5::tests::RFC1321_SUITE;
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
        for (algo, input, want) in cases {
            assert_eq!(hex(algo, input), want, "{algo:?} {input:?}");
        }
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
            assert_eq!(Algorithm::from_tool_name(a.tool_name()), Some(a));
            assert_eq!(hash_bytes(a, b"x").as_bytes().len(), a.digest_len());
        }
    }
}
