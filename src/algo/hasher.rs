//! One `Hasher` that dispatches over the algorithms without boxing (an
//! enum, so the hot `update` call is a jump, not a virtual call through a
//! `dyn Digest`), and `Hashers`: several fed the same bytes.

use std::hash::Hasher as _;

use blake2::digest::block_api::{Buffer, UpdateCore as _, VariableOutputCore as _};
use sha2::Digest as _;

use crate::algo::sha::sha512::{Out, Sha512};
use crate::algo::{Algorithm, Algorithms, Bits, Digest};

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
    Sha384(crate::algo::sha::sha512::Sha512),
    /// SHA-512.
    Sha512(crate::algo::sha::sha512::Sha512),
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
    Crc(Box<crate::algo::legacy::PosixCrc>),
    /// BSD `sum`.
    Bsd(crate::algo::legacy::Bsd),
    /// System V `sum`.
    Sysv(crate::algo::legacy::Sysv),
    /// CRC-32C (crc-fast: its folding kernels picked at run time).
    Crc32c(crc_fast::Digest),
    /// CRC-64/NVME (crc-fast).
    Crc64Nvme(crc_fast::Digest),
    /// An algorithm over parts, as S3 composes it.
    Parts(Box<crate::algo::parts::Composer>),
}

/// A running BLAKE2b of a length chosen at run time: the blake2 crate's
/// core (its portable code ran faster than blake2b_simd's AVX2:
/// docs/BENCHMARKS.md, "Figures behind the kernels' comments") and the block buffer its fixed-length wrappers
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
            Algorithm::Bsd => Hasher::Bsd(crate::algo::legacy::Bsd::default()),
            Algorithm::Sysv => Hasher::Sysv(crate::algo::legacy::Sysv::default()),
            Algorithm::Crc32c => {
                Hasher::Crc32c(crc_fast::Digest::new(crc_fast::CrcAlgorithm::Crc32Iscsi))
            }
            Algorithm::Crc64Nvme => {
                Hasher::Crc64Nvme(crc_fast::Digest::new(crc_fast::CrcAlgorithm::Crc64Nvme))
            }
            Algorithm::Parts(p) => Hasher::Parts(Box::new(crate::algo::parts::Composer::new(p))),
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
            Hasher::Crc32c(h) | Hasher::Crc64Nvme(h) => h.update(data),
            Hasher::Parts(h) => h.update(data),
        }
    }

    /// Feed `data` on up to `threads` threads, as the algorithm splits:
    /// BLAKE3's tree lets rayon hash parts of one big input in parallel
    /// (bounded as b3sum's `--num-threads` bounds it), cksum's CRC goes in
    /// parts; the others are sequential by nature and take a plain
    /// `update`. When that pays is the algorithm's row's
    /// ([`Algorithm::is_wide`]: [`Hashers::update_wide`] asks it). Called
    /// inside [`on_threads`], it hashes on that call's threads.
    pub(crate) fn update_wide(&mut self, data: &[u8], threads: usize) {
        if threads <= 1 {
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
            // big-endian, as S3 and GCS encode them (and as crc32b)
            Hasher::Crc32c(h) => Digest::from_slice(&(h.finalize() as u32).to_be_bytes()),
            Hasher::Crc64Nvme(h) => Digest::from_slice(&h.finalize().to_be_bytes()),
            Hasher::Parts(h) => h.finalize(),
        }
    }
}

/// Several running hashes fed the same bytes: one input, several algorithms.
#[derive(Clone)]
pub(crate) struct Hashers(Vec<(usize, Algorithm, Hasher)>);

impl Hashers {
    /// A fresh hasher for each of `algos`.
    pub(crate) fn new(algos: Algorithms) -> Hashers {
        Hashers::of(algos, 0..algos.len())
    }

    /// Fresh hashers for the algorithms at positions `at` of `algos`.
    pub(crate) fn of(algos: Algorithms, at: impl IntoIterator<Item = usize>) -> Hashers {
        let list = algos.as_slice();
        Hashers(
            at.into_iter()
                .map(|i| (i, list[i], Hasher::new(list[i])))
                .collect(),
        )
    }

    /// Take over `other`'s hashers too.
    pub(crate) fn merge(&mut self, other: Hashers) {
        self.0.extend(other.0);
    }

    /// Feed `data` to every hash.
    #[inline]
    pub(crate) fn update(&mut self, data: &[u8]) {
        for (_, _, h) in &mut self.0 {
            h.update(data);
        }
    }

    /// Does any of the hashes spread `len` bytes over `threads` threads
    /// ([`Algorithm::is_wide`])?
    pub(crate) fn is_wide(&self, len: usize, threads: usize) -> bool {
        self.0.iter().any(|(_, a, _)| a.is_wide(len, threads))
    }

    /// Feed `data` to every hash, on up to `threads` threads where the
    /// algorithm's row says that pays ([`Algorithm::is_wide`]).
    pub(crate) fn update_wide(&mut self, data: &[u8], threads: usize) {
        for (_, a, h) in &mut self.0 {
            if a.is_wide(data.len(), threads) {
                h.update_wide(data, threads);
            } else {
                h.update(data);
            }
        }
    }

    /// The digests, each with its position in the run's algorithms.
    pub(crate) fn finalize_at(self) -> impl Iterator<Item = (usize, Digest)> {
        self.0.into_iter().map(|(i, _, h)| (i, h.finalize()))
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
