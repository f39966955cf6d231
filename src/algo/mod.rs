//! The hash algorithms fastsum supports: who each is (`identity`: one row
//! per algorithm), how each is computed (`hasher`, over one module per
//! family), what comes out (`digest`), and what the CPU offers them
//! (`platform`).
//!
//! Families: `md5` (fastsum's own kernels and lanes), `sha` (SHA-1 and
//! SHA-2: several messages at a time, SHA-384/512 on libcrypto), `sha3`,
//! `legacy` (cksum's and sum's checksums); BLAKE3, BLAKE2b, SM3, CRC-32
//! and xxHash are their crates', driven from `hasher`.

mod digest;
mod hasher;
mod identity;
pub(crate) mod legacy;
#[cfg(feature = "openssl")]
mod libcrypto;
pub(crate) mod md5;
pub(crate) mod parts;
pub(crate) mod platform;
pub(crate) mod sha;
pub(crate) mod sha3;

pub use crate::algo::digest::Digest;
pub(crate) use crate::algo::digest::push_hex;
pub use crate::algo::hasher::Hasher;
#[cfg(any(test, feature = "internals"))]
pub use crate::algo::hasher::hash_bytes;
pub(crate) use crate::algo::hasher::{Hashers, on_threads};
#[cfg(any(test, feature = "internals"))]
pub use crate::algo::identity::BLAKE3_MULTITHREAD_MIN;
pub use crate::algo::identity::{
    Algorithm, Algorithms, Bits, Composed, MAX_ALGORITHMS, PartSize, Parts,
};
pub(crate) use crate::algo::identity::{LaneEngine, LaneKernels};
pub use crate::algo::legacy::Legacy;
pub use crate::algo::sha3::Sha3Size;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algo::identity::LengthError;

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
    /// not; the row's `is_wide` says which split.
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
                let wide = algo.is_wide(data.len(), threads);
                assert_eq!(wide, threads > 1 && algo != Algorithm::Md5, "{algo:?}");
            }
        }
        let small = BLAKE3_MULTITHREAD_MIN - 1;
        assert!(!Algorithm::Blake3.is_wide(small, 2));
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
        use sha2::Digest as _;

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
            Algorithm::ALL.len()
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
        let cases: [(Algorithm, &[u8], &str); 18] = [
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
            // the catalogue's check values (reveng.sourceforge.io)
            (Algorithm::Crc32c, b"123456789", "e3069283"),
            (Algorithm::Crc64Nvme, b"123456789", "ae8b14860a799888"),
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
        // (over parts, the part size is carried too: 4 bytes)
        assert!(std::mem::size_of::<Algorithm>() <= 4);
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

    /// S3's digests over parts, by their definition: the parts' digests
    /// concatenated and hashed again, `-N`; one part or none, the plain
    /// digest. Fed in updates of every odd size, so a part ends inside an
    /// update, at its end, and at its start.
    #[test]
    fn parts_compose_as_s3_defines_them() {
        let data: Vec<u8> = (0..10_000u32).map(|i| (i * 31 + i / 7) as u8).collect();
        let size = PartSize::new(1024).unwrap();
        for of in [
            Composed::Md5,
            Composed::Sha1,
            Composed::Sha256,
            Composed::Crc32b,
            Composed::Crc32c,
        ] {
            let base = of.algorithm();
            let parts = Algorithm::Parts(Parts::new(of, size));
            for len in [0, 1, 1023, 1024, 1025, 2048, 2049, 10_000] {
                let data = &data[..len];
                let chunks: Vec<&[u8]> = data.chunks(1024).collect();
                let want = if chunks.len() <= 1 {
                    hash_bytes(base, data)
                } else {
                    let mut outer = Hasher::new(base);
                    for c in &chunks {
                        outer.update(hash_bytes(base, c).as_bytes());
                    }
                    Digest::composed(outer.finalize().as_bytes(), chunks.len() as u64)
                };
                for step in [1, 7, 1000, 1024, 1025, 4096] {
                    let mut h = Hasher::new(parts);
                    for piece in data.chunks(step) {
                        h.update(piece);
                    }
                    let got = h.finalize();
                    assert_eq!(got, want, "{of:?} {len} bytes in {step}");
                    assert_eq!(got.parts(), want.parts());
                }
            }
        }
    }

    /// Part sizes: whole KiB below 32 MiB, whole MiB from there to 32
    /// GiB, each kept exactly and written as SIZE is.
    #[test]
    fn part_sizes_round_trip() {
        for (bytes, text) in [
            (1 << 10, "1K"),
            (1536 << 10, "1536K"),
            (5 << 20, "5M"),
            ((32 << 20) - 1024, "32767K"),
            (32 << 20, "32M"),
            (100 << 20, "100M"),
            (5 << 30, "5G"),
            ((32 << 30) - (1 << 20), "32767M"),
        ] {
            let size = PartSize::new(bytes).unwrap();
            assert_eq!((size.bytes(), size.to_string()), (bytes, text.to_string()));
        }
        for bytes in [0, 1000, (32 << 20) + 1024, 32 << 30] {
            assert_eq!(PartSize::new(bytes), None, "{bytes}");
        }
    }
}
