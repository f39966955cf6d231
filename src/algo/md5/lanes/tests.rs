//! The multi-lane kernels and engine against the md-5 crate and the
//! single-stream `Md5`, through every path this CPU runs (the others are
//! skipped with a line on stderr).

use super::{Engine, LANES, Path, State, Status, compress_lanes, digests};
use crate::algo::md5::Md5;
use crate::algo::md5::tests::RFC1321_SUITE;
use ::md5::Digest as _;
use proptest::prelude::*;

/// The md-5 crate's digest of `data`.
fn reference(data: &[u8]) -> [u8; 16] {
    ::md5::Md5::digest(data).into()
}

/// Our single-stream digest of `data`.
fn single(data: &[u8]) -> [u8; 16] {
    let mut h = Md5::new();
    h.update(data);
    h.finalize()
}

fn hex(d: [u8; 16]) -> String {
    d.iter().map(|b| format!("{b:02x}")).collect()
}

use crate::testing::Rng;

/// Every path this build knows that this CPU runs; each path it cannot run
/// is named on stderr with the reason, never assumed (CI hosts vary).
fn paths() -> Vec<Path> {
    crate::algo::platform::runnable()
}

/// Engines on every path, each with the multi-lane call forced for any
/// number of busy lanes, with the default cross-over, and with the
/// single-stream kernel only.
fn engines() -> Vec<Engine> {
    let mut v = Vec::new();
    for p in paths() {
        for min in [None, Some(1), Some(LANES + 1)] {
            if let Some(mut e) = Engine::new(p) {
                e.min_busy = min;
                v.push(e);
            }
        }
    }
    v
}

fn describe(e: &Engine) -> String {
    format!("{} min_busy {:?}", e.path().name(), e.min_busy)
}

/// Whole messages through `engine`; digests in message order.
fn whole(engine: &mut Engine, msgs: &[Vec<u8>]) -> Vec<[u8; 16]> {
    engine.hash_messages(msgs.iter().enumerate().map(|(i, m)| (i as u64, &m[..])));
    let mut out = vec![None; msgs.len()];
    for (id, d) in engine.take_done() {
        assert!(out[id as usize].is_none(), "message {id} finished twice");
        out[id as usize] = Some(d);
    }
    assert!(idle(engine));
    out.into_iter()
        .enumerate()
        .map(|(i, d)| d.unwrap_or_else(|| panic!("message {i} has no digest")))
        .collect()
}

#[test]
fn rfc1321_suite_every_path() {
    let msgs: Vec<Vec<u8>> = RFC1321_SUITE
        .iter()
        .map(|(m, _)| m.as_bytes().to_vec())
        .collect();
    for mut e in engines() {
        let got = whole(&mut e, &msgs);
        for (d, (input, want)) in got.into_iter().zip(RFC1321_SUITE) {
            assert_eq!(hex(d), want, "{} {input:?}", describe(&e));
        }
        // One at a time too: a lone lane among idle ones.
        for (input, want) in RFC1321_SUITE {
            let got = whole(&mut e, &[input.as_bytes().to_vec()]);
            assert_eq!(hex(got[0]), want, "{} alone {input:?}", describe(&e));
        }
    }
}

/// The SIMD kernels agree with the portable lanes from random chaining
/// values on random blocks, lane for lane; lanes past a kernel's width are
/// left alone.
#[test]
fn kernels_agree_with_scalar_lanes() {
    let mut rng = Rng::new(7);
    for _ in 0..200 {
        let mut start: State = [[0; LANES]; 4];
        for w in start.iter_mut().flatten() {
            *w = rng.next_u64() as u32;
        }
        let data = rng.bytes(64 * LANES);
        let chunks = data.as_chunks::<64>().0;
        let blocks: [&[u8; 64]; LANES] = std::array::from_fn(|l| &chunks[l]);
        let mut want = start;
        compress_lanes(Path::Scalar, &mut want, &blocks).unwrap();
        for p in paths() {
            if p == Path::Off {
                continue;
            }
            let mut got = start;
            compress_lanes(p, &mut got, &blocks).unwrap();
            for l in 0..LANES {
                let expect = if l < p.width() { want } else { start };
                for w in 0..4 {
                    assert_eq!(got[w][l], expect[w][l], "{} lane {l} word {w}", p.name());
                }
            }
        }
    }
}

/// Every length 0..=300 at once (every padding case), so lanes finish at
/// different blocks and are refilled mid-flight, through every engine.
#[test]
fn every_length_to_300_every_engine() {
    let mut rng = Rng::new(300);
    let msgs: Vec<Vec<u8>> = (0..=300).map(|n| rng.bytes(n)).collect();
    let want: Vec<[u8; 16]> = msgs.iter().map(|m| reference(m)).collect();
    for mut e in engines() {
        assert_eq!(whole(&mut e, &msgs), want, "{}", describe(&e));
        // The occupancy counters add up.
        let s = e.stats();
        assert!(s.lane_blocks >= s.calls, "{s:?}");
        assert!(s.lane_blocks <= s.calls * e.width as u64, "{s:?}");
    }
}

#[test]
fn digests_in_message_order() {
    let msgs: Vec<&[u8]> = vec![b"abc", b"", b"message digest"];
    for p in paths() {
        let got = digests(p, &msgs).unwrap();
        let want: Vec<_> = msgs.iter().map(|m| reference(m)).collect();
        assert_eq!(got, want, "{}", p.name());
    }
}

/// Random lengths 0..8 KiB with the padding edge cases forced in.
fn message_set(seed: u64) -> Vec<Vec<u8>> {
    const EDGES: [usize; 9] = [55, 56, 63, 64, 65, 119, 120, 127, 128];
    let mut rng = Rng::new(seed);
    let n = 1 + rng.below(40);
    (0..n)
        .map(|_| {
            let len = if rng.below(3) == 0 {
                EDGES[rng.below(EDGES.len())]
            } else {
                rng.below(8193)
            };
            rng.bytes(len)
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Random sets of 1-40 whole messages through every engine against the
    /// md-5 crate and the single-stream `Md5`.
    #[test]
    fn whole_messages_differential(seed in any::<u64>()) {
        let msgs = message_set(seed);
        let want: Vec<[u8; 16]> = msgs.iter().map(|m| reference(m)).collect();
        let want_single: Vec<[u8; 16]> = msgs.iter().map(|m| single(m)).collect();
        prop_assert_eq!(&want, &want_single);
        for mut e in engines() {
            prop_assert_eq!(whole(&mut e, &msgs), want.clone(), "{}", describe(&e));
        }
    }

    /// The same messages in batches of random sizes through one engine
    /// (as a hasher thread feeds it batch after batch).
    #[test]
    fn batches_differential(seed in any::<u64>()) {
        let msgs = message_set(seed);
        let mut rng = Rng::new(seed);
        for mut e in engines() {
            let mut start = 0;
            while start < msgs.len() {
                let end = (start + 1 + rng.below(12)).min(msgs.len());
                e.hash_messages((start..end).map(|i| (i as u64, &msgs[i][..])));
                prop_assert!(idle(&e));
                start = end;
            }
            let mut got: Vec<(u64, [u8; 16])> = e.take_done().collect();
            got.sort();
            prop_assert_eq!(got.len(), msgs.len());
            for (i, (id, d)) in got.into_iter().enumerate() {
                prop_assert_eq!(id, i as u64);
                prop_assert_eq!(d, reference(&msgs[i]), "{} message {}", describe(&e), i);
            }
        }
    }
}

/// Every lane is free (no message left half-hashed).
fn idle(e: &Engine) -> bool {
    e.lanes.iter().all(|l| l.status == Status::Idle)
}

/// A hasher thread can own an engine.
#[test]
fn engine_is_send() {
    fn send<T: Send + 'static>() {}
    send::<Engine>();
}

#[test]
fn env_values() {
    use std::ffi::OsStr;
    assert_eq!(Path::from_env_value(None), Ok(None));
    assert_eq!(Path::from_env_value(Some(OsStr::new(""))), Ok(None));
    assert_eq!(Path::from_env_value(Some(OsStr::new("auto"))), Ok(None));
    assert_eq!(
        Path::from_env_value(Some(OsStr::new("off"))),
        Ok(Some(Path::Off))
    );
    assert_eq!(
        Path::from_env_value(Some(OsStr::new("scalar"))),
        Ok(Some(Path::Scalar))
    );
    for p in Path::all() {
        let got = Path::from_env_value(Some(OsStr::new(p.name())));
        if p.is_available() {
            assert_eq!(got, Ok(Some(p)));
        } else {
            assert!(got.is_err(), "{}", p.name());
        }
    }
    assert!(Path::from_env_value(Some(OsStr::new("AVX512"))).is_err());
    assert!(Path::from_env_value(Some(OsStr::new("sse"))).is_err());
    assert!(Path::available().contains(&Path::best()));
    assert!(Path::best().is_available());
}
