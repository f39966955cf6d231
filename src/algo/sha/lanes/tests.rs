//! The multi-message SHA kernels and engine against the sha1 and sha2
//! crates, through every path this CPU runs (the others are skipped with a
//! line on stderr).

use super::{Engine, Path, Sha, Sha1, Sha224, Sha256, digests, digests_with};
use crate::algo::platform::EnvError;
use ::sha2::Digest as _;
use proptest::prelude::*;
use std::ffi::OsStr;

fn sha256_ref(data: &[u8]) -> [u8; 32] {
    ::sha2::Sha256::digest(data).into()
}
fn sha224_ref(data: &[u8]) -> [u8; 28] {
    ::sha2::Sha224::digest(data).into()
}
fn sha1_ref(data: &[u8]) -> [u8; 20] {
    ::sha1::Sha1::digest(data).into()
}

fn hex(d: &[u8]) -> String {
    d.iter().map(|b| format!("{b:02x}")).collect()
}

use crate::testing::Rng;

/// Every path this build knows that this CPU runs; each one it cannot run
/// is named on stderr with the reason (CI hosts vary).
fn paths() -> Vec<Path> {
    crate::algo::platform::runnable()
}

/// `messages` through every available path for hash `H`, against `reference`.
fn check_all<H: Sha>(messages: &[&[u8]], reference: impl Fn(&[u8]) -> H::Digest) {
    for path in paths() {
        // the default cross-over, and 16-lane calls from one busy lane
        for min_wide in [None, Some(1)] {
            let got = digests_with::<H>(path, min_wide, messages).expect("an available path");
            for (i, (m, d)) in messages.iter().zip(&got).enumerate() {
                assert_eq!(
                    *d,
                    reference(m),
                    "{:?} on {} (min_wide {min_wide:?}): message {i} of {} ({} bytes)",
                    std::any::type_name::<H>(),
                    path.name(),
                    messages.len(),
                    m.len()
                );
            }
        }
    }
}

/// FIPS 180 examples: "abc", empty, the 448-bit message, a million 'a'.
#[test]
fn fips180_vectors_every_path() {
    let million = vec![b'a'; 1_000_000];
    let inputs: [&[u8]; 4] = [
        b"abc",
        b"",
        b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
        &million,
    ];
    let sha256 = [
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
        "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0",
    ];
    let sha1 = [
        "a9993e364706816aba3e25717850c26c9cd0d89d",
        "da39a3ee5e6b4b0d3255bfef95601890afd80709",
        "84983e441c3bd26ebaae4aa1f95129e5e54670f1",
        "34aa973cd4c4daa4f61eeb2bdbad27316534016f",
    ];
    for path in paths() {
        // all at once (side by side), and one by one
        let together256 = digests::<Sha256>(path, &inputs).expect("available");
        let together1 = digests::<Sha1>(path, &inputs).expect("available");
        for (i, input) in inputs.iter().enumerate() {
            assert_eq!(
                hex(&together256[i]),
                sha256[i],
                "{} sha256 #{i}",
                path.name()
            );
            assert_eq!(hex(&together1[i]), sha1[i], "{} sha1 #{i}", path.name());
            let alone = digests::<Sha256>(path, &[input]).expect("available");
            assert_eq!(
                hex(&alone[0]),
                sha256[i],
                "{} sha256 #{i} alone",
                path.name()
            );
            let alone = digests::<Sha1>(path, &[input]).expect("available");
            assert_eq!(hex(&alone[0]), sha1[i], "{} sha1 #{i} alone", path.name());
        }
    }
}

/// Every length 0..300 (every padding case), as one batch (lanes of
/// different lengths side by side) and in batches of equal lengths.
#[test]
fn every_length_every_path() {
    let mut rng = Rng::new(1);
    let data: Vec<Vec<u8>> = (0..300).map(|n| rng.bytes(n)).collect();
    let all: Vec<&[u8]> = data.iter().map(|d| &d[..]).collect();
    check_all::<Sha256>(&all, sha256_ref);
    check_all::<Sha224>(&all, sha224_ref);
    check_all::<Sha1>(&all, sha1_ref);
    let reversed: Vec<&[u8]> = all.iter().rev().copied().collect();
    check_all::<Sha256>(&reversed, sha256_ref);
    check_all::<Sha1>(&reversed, sha1_ref);
    for d in &data {
        let same: Vec<&[u8]> = vec![d; 5];
        check_all::<Sha256>(&same, sha256_ref);
        check_all::<Sha1>(&same, sha1_ref);
    }
}

/// Around the copy limit (`COPY_BLOCKS` whole blocks: copied to the lane
/// with the padding, or hashed in place then the padded tail), in one
/// batch and in batches of one length.
#[test]
fn lengths_around_the_copy_limit_every_path() {
    let mut rng = Rng::new(3);
    let edge = 64 * super::COPY_BLOCKS;
    let data: Vec<Vec<u8>> = (edge - 70..edge + 140).map(|n| rng.bytes(n)).collect();
    let all: Vec<&[u8]> = data.iter().map(|d| &d[..]).collect();
    check_all::<Sha256>(&all, sha256_ref);
    check_all::<Sha1>(&all, sha1_ref);
    for d in data.iter().step_by(7) {
        let same: Vec<&[u8]> = vec![d; 17];
        check_all::<Sha256>(&same, sha256_ref);
        check_all::<Sha1>(&same, sha1_ref);
    }
}

/// Long and short messages mixed: a long one outlives many short ones in
/// the other lanes, and ends alone (the one-message kernel).
#[test]
fn long_among_short_every_path() {
    let mut rng = Rng::new(2);
    let long = rng.bytes(100_003);
    let shorts: Vec<Vec<u8>> = (0..40).map(|i| rng.bytes(i * 37 % 700)).collect();
    let mut msgs: Vec<&[u8]> = vec![&long];
    msgs.extend(shorts.iter().map(|s| &s[..]));
    msgs.push(&long);
    check_all::<Sha256>(&msgs, sha256_ref);
    check_all::<Sha1>(&msgs, sha1_ref);
}

/// An engine is reused: a second batch starts from clean lanes.
#[test]
fn engine_reused_across_batches() {
    for path in paths() {
        let mut e = Engine::<Sha256>::new(path).expect("available");
        for round in 0..3u64 {
            let msgs: Vec<Vec<u8>> = (0..7).map(|i| vec![i as u8; 60 + 30 * i]).collect();
            e.hash_messages(
                msgs.iter()
                    .enumerate()
                    .map(|(i, m)| (round * 10 + i as u64, &m[..])),
            );
            let mut done: Vec<_> = e.take_done().collect();
            done.sort();
            assert_eq!(done.len(), 7);
            for (i, (id, d)) in done.into_iter().enumerate() {
                assert_eq!(id, round * 10 + i as u64);
                assert_eq!(d, sha256_ref(&msgs[i]), "{} batch {round}", path.name());
            }
        }
    }
}

/// The wide kernels really run when messages are in flight together.
#[test]
fn wide_kernels_are_used() {
    let msgs: Vec<Vec<u8>> = (0..32).map(|i| vec![i as u8; 4096]).collect();
    let all = 32 * 65;
    let batch = || msgs.iter().enumerate().map(|(i, m)| (i as u64, &m[..]));
    for path in paths() {
        let mut e256 = Engine::<Sha256>::new(path).expect("available");
        e256.hash_messages(batch());
        let mut e1 = Engine::<Sha1>::new(path).expect("available");
        e1.hash_messages(batch());
        let (s256, s1) = (e256.stats(), e1.stats());
        for s in [s256, s1] {
            assert_eq!(
                s.blocks1 + s.blocks2 + s.blocks4 + s.blocks16,
                all,
                "{}",
                path.name()
            );
        }
        match path.width() {
            16 => {
                assert_eq!(s256.blocks16, all, "{}", path.name());
                assert_eq!(s1.blocks16, all, "{}", path.name());
            }
            4 => assert_eq!((s256.blocks4, s1.blocks4), (all, all), "{}", path.name()),
            2 => assert_eq!((s256.blocks2, s1.blocks2), (all, all), "{}", path.name()),
            _ => assert_eq!((s256.blocks1, s1.blocks1), (all, all), "{}", path.name()),
        }
    }
}

/// A hasher thread owns its engine: it must be `Send`.
#[test]
fn engines_are_send() {
    fn send<T: Send>() {}
    send::<Engine<Sha256>>();
    send::<Engine<Sha224>>();
    send::<Engine<Sha1>>();
}

#[test]
fn env_values() {
    let parse = |s: &str| Path::from_env_value(Some(OsStr::new(s)));
    assert_eq!(Path::from_env_value(None), Ok(None));
    assert_eq!(parse(""), Ok(None));
    assert_eq!(parse("auto"), Ok(None));
    assert_eq!(parse("off"), Ok(Some(Path::Off)));
    for p in Path::all() {
        if p.is_available() {
            assert_eq!(parse(p.name()), Ok(Some(p)));
        } else {
            assert_eq!(parse(p.name()), Err(EnvError::Unavailable(p)));
            assert!(EnvError::Unavailable(p).to_string().contains("cannot run"));
        }
    }
    let err = parse("sha-ni-3").expect_err("no such path");
    assert_eq!(err, EnvError::Unknown("sha-ni-3".into()));
    let text = err.to_string();
    assert!(
        text.contains("FASTSUM_SHA_LANES") && text.contains("off"),
        "{text}"
    );
    assert!(Path::best().is_available());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Random sets of messages (up to 40: the 16-lane kernel runs from 16
    /// in flight), lengths biased to the padding edges, on every path,
    /// against the crates.
    #[test]
    fn random_message_sets(
        lens in prop::collection::vec(
            prop_oneof![
                prop::sample::select(vec![0usize, 1, 55, 56, 57, 63, 64, 65, 119, 120, 127, 128, 129]),
                0usize..2000,
            ],
            0..40,
        ),
        seed in any::<u64>(),
    ) {
        let mut rng = Rng::new(seed);
        let data: Vec<Vec<u8>> = lens.iter().map(|&n| rng.bytes(n)).collect();
        let msgs: Vec<&[u8]> = data.iter().map(|d| &d[..]).collect();
        check_all::<Sha256>(&msgs, sha256_ref);
        check_all::<Sha224>(&msgs, sha224_ref);
        check_all::<Sha1>(&msgs, sha1_ref);
    }
}
