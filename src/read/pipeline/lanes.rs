//! The inputs of a batch hashed side by side: MD5 in SIMD lanes
//! ([`crate::algo::md5::lanes`]), SHA-1, SHA-224 and SHA-256 several messages per
//! loop or in AVX-512 lanes ([`crate::algo::sha::lanes`]). Many small files are
//! many independent streams; one hash stream leaves the core (or the SHA
//! unit) waiting on its own results. A hasher thread keeps one [`Lanes`],
//! whose engines are made on first use.

use crate::algo::md5::lanes::Engine as Md5Engine;
use crate::algo::sha::lanes::{Engine as ShaEngine, Sha, Sha1, Sha224, Sha256};
use crate::algo::{Algorithm, Digest, LaneEngine};
use crate::stats::Stats;

/// One hasher thread's multi-message engines.
#[derive(Default)]
pub(super) struct Lanes {
    md5: Option<Md5Engine>,
    sha1: Option<ShaEngine<Sha1>>,
    sha224: Option<ShaEngine<Sha224>>,
    sha256: Option<ShaEngine<Sha256>>,
}

impl Lanes {
    /// Hash `messages` (a slot in `out`, the message's bytes), all with
    /// `algo`, side by side, each digest into its slot, by its row's
    /// engine (a match over every [`LaneEngine`]). Nothing for an
    /// algorithm without lanes ([`Algorithm::lanes`]): its slots stay
    /// empty, and the caller hashes those messages one by one.
    pub(super) fn hash<'a>(
        &mut self,
        algo: Algorithm,
        messages: impl Iterator<Item = (usize, &'a [u8])>,
        out: &mut [Option<Digest>],
        stats: &Stats,
    ) {
        let messages = messages.map(|(i, m)| (i as u64, m));
        let mut put = |i: u64, digest: &[u8]| {
            if let Some(slot) = usize::try_from(i).ok().and_then(|i| out.get_mut(i)) {
                *slot = Some(Digest::from_bytes(digest));
            }
        };
        match algo.lanes() {
            Some(LaneEngine::Md5) => {
                let engine = self.md5.get_or_insert_with(Md5Engine::selected);
                let before = engine.stats();
                engine.hash_messages(messages);
                for (i, d) in engine.take_done() {
                    put(i, &d);
                }
                stats.add_lanes(engine.stats(), before);
            }
            Some(LaneEngine::Sha1) => sha(&mut self.sha1, messages, &mut put, stats),
            Some(LaneEngine::Sha224) => sha(&mut self.sha224, messages, &mut put, stats),
            Some(LaneEngine::Sha256) => sha(&mut self.sha256, messages, &mut put, stats),
            None => {}
        }
    }
}

/// `messages` through a SHA engine (made on first use).
fn sha<'a, H: Sha>(
    engine: &mut Option<ShaEngine<H>>,
    messages: impl Iterator<Item = (u64, &'a [u8])>,
    put: &mut impl FnMut(u64, &[u8]),
    stats: &Stats,
) where
    H::Digest: AsRef<[u8]>,
{
    let engine = engine.get_or_insert_with(ShaEngine::selected);
    let before = engine.stats();
    engine.hash_messages(messages);
    for (i, d) in engine.take_done() {
        put(i, d.as_ref());
    }
    stats.add_sha_lanes(engine.stats(), before);
}
