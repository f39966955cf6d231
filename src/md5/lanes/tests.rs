//! The multi-lane kernels and engine against the md-5 crate and the
//! single-stream `Md5`, through every path this CPU runs (the others are
//! skipped with a line on stderr).

use std::collections::HashMap;

use super::{Engine, LANES, Path, State, compress, digests};
use crate::md5::Md5;
use crate::md5::tests::RFC1321_SUITE;
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

/// Deterministic pseudo-random generator (xorshift64).
struct Rng(u64);
impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    fn bytes(&mut self, len: usize) -> Vec<u8> {
        (0..len).map(|_| (self.next() >> 24) as u8).collect()
    }
}

/// Every path this build knows that this CPU runs; each path it cannot run
/// is named on stderr with the reason, never assumed (CI hosts vary).
fn paths() -> Vec<Path> {
    Path::all()
        .into_iter()
        .filter(|p| {
            if !p.is_available() {
                eprintln!(
                    "skipped MD5 lane path {}: this CPU lacks {}",
                    p.name(),
                    p.cpu_feature().unwrap_or("it")
                );
            }
            p.is_available()
        })
        .collect()
}

/// Engines on every path, each with the multi-lane call forced for any
/// number of busy lanes, with the default cross-over, and with the
/// single-stream kernel only.
fn engines() -> Vec<Engine> {
    let mut v = Vec::new();
    for p in paths() {
        for min in [None, Some(1), Some(LANES + 1)] {
            if let Ok(mut e) = Engine::new(p) {
                if let Some(n) = min {
                    e.set_min_busy(n);
                }
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
    for (tag, d) in engine.take_done() {
        assert!(out[tag as usize].is_none(), "message {tag} finished twice");
        out[tag as usize] = Some(d);
    }
    assert_eq!(engine.busy(), 0);
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
            *w = rng.next() as u32;
        }
        let data = rng.bytes(64 * LANES);
        let chunks = data.as_chunks::<64>().0;
        let blocks: [&[u8; 64]; LANES] = std::array::from_fn(|l| &chunks[l]);
        let mut want = start;
        compress(Path::Scalar, &mut want, &blocks);
        for p in paths() {
            if p == Path::Off {
                continue;
            }
            let mut got = start;
            compress(p, &mut got, &blocks);
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
        assert!(s.lane_blocks <= s.calls * e.width() as u64, "{s:?}");
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

/// Feed `msgs` to `engine` in random pieces, lanes opened as they free up,
/// `update` or `drain` at random; message `abandon` (if any) is dropped
/// after a random share of it. Returns digests by message index.
fn incremental(
    engine: &mut Engine,
    msgs: &[Vec<u8>],
    seed: u64,
    abandon: Option<usize>,
) -> HashMap<u64, [u8; 16]> {
    let mut rng = Rng::new(seed);
    let width = engine.width();
    // per lane: (message, bytes consumed, ended)
    let mut lanes: Vec<Option<(usize, usize, bool)>> = vec![None; width];
    let mut next = 0;
    let mut out = HashMap::new();
    let abandon_at = abandon.map(|i| rng.below(msgs[i].len() + 1));
    let mut rounds = 0;
    loop {
        rounds += 1;
        assert!(rounds < 1_000_000, "no progress");
        while next < msgs.len() {
            let Some(l) = engine.open(next as u64) else {
                break;
            };
            assert!(lanes[l].is_none(), "lane {l} given twice");
            lanes[l] = Some((next, 0, false));
            next += 1;
        }
        let mut data: Vec<&[u8]> = vec![&[]; width];
        for l in 0..width {
            let Some((i, off, ended)) = lanes[l] else {
                continue;
            };
            let m = &msgs[i];
            if Some(i) == abandon && off >= abandon_at.unwrap_or(0) {
                engine.abandon(l);
                lanes[l] = None;
                continue;
            }
            if ended {
                // After `end`, every call passes all the rest.
                data[l] = &m[off..];
                continue;
            }
            // Piece sizes: mostly small and odd, sometimes large.
            let len = match rng.below(4) {
                0 => rng.below(8),
                1 => rng.below(200),
                2 => 64 * rng.below(5),
                _ => rng.below(3000),
            };
            let end = (off + len).min(m.len());
            data[l] = &m[off..end];
            if end == m.len() && Some(i) != abandon {
                engine.end(l);
                lanes[l] = Some((i, off, true));
            }
        }
        let before: Vec<usize> = data.iter().map(|d| d.len()).collect();
        if rng.below(3) == 0 || next == msgs.len() && rng.below(2) == 0 {
            engine.drain(&mut data);
            assert!(data.iter().all(|d| d.is_empty()));
        } else {
            engine.update(&mut data);
        }
        for l in 0..width {
            if let Some((i, off, ended)) = lanes[l] {
                lanes[l] = Some((i, off + before[l] - data[l].len(), ended));
            }
        }
        for (tag, d) in engine.take_done() {
            let l = lanes
                .iter()
                .position(|x| x.is_some_and(|(i, _, _)| i as u64 == tag))
                .unwrap_or_else(|| panic!("digest for message {tag} not in a lane"));
            assert_eq!(lanes[l].map(|(_, o, _)| o), Some(msgs[tag as usize].len()));
            lanes[l] = None;
            assert!(out.insert(tag, d).is_none(), "message {tag} twice");
        }
        if next == msgs.len() && lanes.iter().all(|l| l.is_none()) {
            break;
        }
        // `finish` passes no data: only when every ended lane has none left.
        if next == msgs.len()
            && lanes
                .iter()
                .flatten()
                .all(|&(i, o, e)| e && o == msgs[i].len())
        {
            engine.finish();
        }
    }
    assert_eq!(engine.busy(), 0);
    out
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

    /// The same messages in batches of random sizes through
    /// `feed_messages`, lanes carried over from batch to batch.
    #[test]
    fn batches_differential(seed in any::<u64>()) {
        let msgs = message_set(seed);
        let mut rng = Rng::new(seed);
        for mut e in engines() {
            let mut data: Vec<&[u8]> = vec![&[]; e.width()];
            let mut start = 0;
            while start < msgs.len() {
                let end = (start + 1 + rng.below(12)).min(msgs.len());
                let mut batch = (start..end).map(|i| (i as u64, &msgs[i][..]));
                e.feed_messages(&mut data, &mut batch);
                prop_assert!(batch.next().is_none());
                start = end;
            }
            e.drain(&mut data);
            let mut got: Vec<(u64, [u8; 16])> = e.take_done().collect();
            got.sort();
            prop_assert_eq!(got.len(), msgs.len());
            for (i, (tag, d)) in got.into_iter().enumerate() {
                prop_assert_eq!(tag, i as u64);
                prop_assert_eq!(d, reference(&msgs[i]), "{} message {}", describe(&e), i);
            }
            prop_assert_eq!(e.busy(), 0);
        }
    }

    /// The same messages given in random pieces, and one of them abandoned
    /// mid-message (a read error) while the others finish correctly.
    #[test]
    fn pieces_and_abandon_differential(seed in any::<u64>()) {
        let msgs = message_set(seed);
        let victim = (seed % msgs.len() as u64) as usize;
        for mut e in engines() {
            let got = incremental(&mut e, &msgs, seed, None);
            prop_assert_eq!(got.len(), msgs.len());
            for (i, m) in msgs.iter().enumerate() {
                prop_assert_eq!(got[&(i as u64)], reference(m), "{} message {}", describe(&e), i);
            }
            let got = incremental(&mut e, &msgs, seed ^ 1, Some(victim));
            prop_assert_eq!(got.len(), msgs.len() - 1);
            prop_assert!(!got.contains_key(&(victim as u64)));
            for (i, m) in msgs.iter().enumerate() {
                if i != victim {
                    prop_assert_eq!(got[&(i as u64)], reference(m), "{} message {}", describe(&e), i);
                }
            }
        }
    }
}

/// A lane abandoned between blocks leaves the others' digests intact, and
/// the freed lane takes the next message from a fresh start.
#[test]
fn abandoned_lane_is_reused_cleanly() {
    let mut rng = Rng::new(99);
    for p in paths() {
        let mut e = Engine::new(p).unwrap();
        e.set_min_busy(1);
        let a = rng.bytes(5000);
        let b = rng.bytes(3000);
        let c = rng.bytes(777);
        let la = e.open(0).unwrap();
        let lb = e.open(1).unwrap_or(la);
        if lb == la {
            // One-lane path: abandon, then reuse.
            let mut data = vec![&a[..1000]];
            e.update(&mut data);
            e.abandon(la);
            let lc = e.open(2).unwrap();
            let mut data = vec![&c[..]];
            e.end(lc);
            e.drain(&mut data);
        } else {
            let mut data = vec![&[][..]; e.width()];
            data[la] = &a[..1000];
            data[lb] = &b[..1000];
            e.update(&mut data);
            // 15 blocks each hashed, the 40-byte rests held in the lanes.
            assert!(data.iter().all(|d| d.is_empty()));
            e.abandon(la);
            let lc = e.open(2).unwrap();
            assert_eq!(lc, la);
            let mut data = vec![&[][..]; e.width()];
            data[lb] = &b[1000..];
            data[lc] = &c[..];
            e.end(lb);
            e.end(lc);
            e.drain(&mut data);
        }
        let done: HashMap<u64, [u8; 16]> = e.take_done().collect();
        assert!(!done.contains_key(&0), "{}", p.name());
        assert_eq!(done[&2], reference(&c), "{}", p.name());
        if e.width() > 1 {
            assert_eq!(done[&1], reference(&b), "{}", p.name());
        }
        assert_eq!(e.busy(), 0);
    }
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
