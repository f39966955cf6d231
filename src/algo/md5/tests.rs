//! Differential tests of every MD5 kernel, each called directly (so the
//! portable fallback is exercised whatever the CPU), against the md-5 crate.

use super::{Kernel, Md5};
use ::md5::Digest as _;
use proptest::prelude::*;

/// The md-5 crate's digest of `data`: the reference.
fn reference(data: &[u8]) -> [u8; 16] {
    ::md5::Md5::digest(data).into()
}

/// Our digest of `data`, fed to `kernel` in pieces ending at `cuts`.
fn ours_split(kernel: Kernel, data: &[u8], cuts: &[usize]) -> [u8; 16] {
    let mut h = Md5::with_kernel(kernel);
    let mut start = 0;
    for &cut in cuts {
        h.update(&data[start..cut]);
        start = cut;
    }
    h.update(&data[start..]);
    h.finalize()
}

use crate::testing::random_bytes;

fn hex(d: [u8; 16]) -> String {
    d.iter().map(|b| format!("{b:02x}")).collect()
}

/// RFC 1321, appendix A.5: the MD5 test suite (input, digest), shared by
/// these kernel tests and the `Hasher` tests in `algo`.
pub(crate) const RFC1321_SUITE: [(&str, &str); 7] = [
    ("", "d41d8cd98f00b204e9800998ecf8427e"),
    ("a", "0cc175b9c0f1b6a831c399e269772661"),
    ("abc", "900150983cd24fb0d6963f7d28e17f72"),
    ("message digest", "f96b697d7cb7938d525a2f31aaf161d0"),
    (
        "abcdefghijklmnopqrstuvwxyz",
        "c3fcd3d76192e4007dfb496cca67e13b",
    ),
    (
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
        "d174ab98d277d9f5a5611c2c9f419d9f",
    ),
    (
        "12345678901234567890123456789012345678901234567890123456789012345678901234567890",
        "57edf4a22be3c955ac49da2e2107b67a",
    ),
];

/// RFC 1321, appendix A.5, through every kernel.
#[test]
fn rfc1321_suite_every_kernel() {
    let cases = RFC1321_SUITE;
    for kernel in Kernel::available() {
        for (input, want) in cases {
            let got = hex(ours_split(kernel, input.as_bytes(), &[]));
            assert_eq!(got, want, "{kernel:?} {input:?}");
        }
    }
}

/// Every length 0..=1024 (every padding case: 55, 56, 63, 64, … bytes), in
/// one call, byte by byte, and in pseudo-random pieces.
#[test]
fn every_length_to_1024_every_split_every_kernel() {
    for kernel in Kernel::available() {
        for len in 0..=1024 {
            let data = random_bytes(len, len as u64);
            let want = reference(&data);
            assert_eq!(
                ours_split(kernel, &data, &[]),
                want,
                "{kernel:?} len {len} one call"
            );
            let bytewise: Vec<usize> = (1..len).collect();
            assert_eq!(
                ours_split(kernel, &data, &bytewise),
                want,
                "{kernel:?} len {len} byte by byte"
            );
            // random cut points, sorted, repeats allowed (empty updates)
            let mut cuts: Vec<usize> = random_bytes(len % 9, !(len as u64))
                .iter()
                .map(|&b| usize::from(b) * (len + 1) / 256)
                .collect();
            cuts.sort_unstable();
            assert_eq!(
                ours_split(kernel, &data, &cuts),
                want,
                "{kernel:?} len {len} cuts {cuts:?}"
            );
        }
    }
}

/// The kernels agree block for block from any chaining value, over runs of
/// many blocks (the assembly's loop), not only from the initial one.
#[test]
fn kernels_agree_from_random_states() {
    for seed in 0..64u64 {
        let data = random_bytes(64 * (1 + seed as usize % 17), seed);
        let blocks = data.as_chunks::<64>().0;
        let words = random_bytes(16, seed + 1000);
        let mut start = [0u32; 4];
        for (w, b) in start.iter_mut().zip(words.as_chunks::<4>().0) {
            *w = u32::from_le_bytes(*b);
        }
        let mut want = start;
        Kernel::Portable.compress(&mut want, blocks);
        for kernel in Kernel::available() {
            let mut got = start;
            kernel.compress(&mut got, blocks);
            assert_eq!(got, want, "{kernel:?} seed {seed}");
        }
    }
}

/// One million 'a', a classic long vector, fed in 7-byte pieces.
#[test]
fn million_a() {
    let data = vec![b'a'; 1_000_000];
    let cuts: Vec<usize> = (7..data.len()).step_by(7).collect();
    for kernel in Kernel::available() {
        assert_eq!(
            hex(ours_split(kernel, &data, &cuts)),
            "7707d6ae4e027c70eea2a935c2296f21",
            "{kernel:?}"
        );
    }
}

#[test]
fn env_values() {
    use std::ffi::OsStr;
    assert_eq!(Kernel::from_env_value(None), Ok(None));
    assert_eq!(Kernel::from_env_value(Some(OsStr::new(""))), Ok(None));
    assert_eq!(Kernel::from_env_value(Some(OsStr::new("auto"))), Ok(None));
    assert_eq!(
        Kernel::from_env_value(Some(OsStr::new("portable"))),
        Ok(Some(Kernel::Portable))
    );
    #[cfg(target_arch = "x86_64")]
    assert_eq!(
        Kernel::from_env_value(Some(OsStr::new("asm"))),
        Ok(Some(Kernel::X86_64))
    );
    assert!(Kernel::from_env_value(Some(OsStr::new("Portable"))).is_err());
    assert!(Kernel::from_env_value(Some(OsStr::new("sse"))).is_err());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Random larger inputs, random split points, every kernel.
    #[test]
    fn random_inputs_random_splits(
        data in proptest::collection::vec(any::<u8>(), 0..70_000),
        cuts in proptest::collection::vec(any::<prop::sample::Index>(), 0..12),
    ) {
        let want = reference(&data);
        let mut cuts: Vec<usize> = cuts.into_iter().map(|i| i.index(data.len() + 1)).collect();
        cuts.sort_unstable();
        for kernel in Kernel::available() {
            prop_assert_eq!(ours_split(kernel, &data, &[]), want, "{:?} one call", kernel);
            prop_assert_eq!(ours_split(kernel, &data, &cuts), want, "{:?} cuts {:?}", kernel, &cuts);
        }
    }
}
