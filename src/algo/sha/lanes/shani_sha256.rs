//! SHA-256 block function on the SHA-NI extension, for `N` independent
//! messages at once (N = 1, 2 or 4).
//!
//! Each message's rounds are the sha2 crate's SHA-NI sequence (the Intel
//! white paper's): state as ABEF/CDGH, `sha256rnds2` twice per four rounds,
//! `sha256msg1`/`sha256msg2` for the schedule. A message is a chain of
//! `sha256rnds2`, each waiting for the last; the instructions of the other
//! messages, written between them, fill the unit while it waits.

use core::arch::x86_64::*;

/// The 64 round constants (FIPS 180-4, 4.2.2).
pub(super) const K: [u32; 64] = [
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
];

/// Four rounds of every message: `w` (that message's next four schedule
/// words) plus the constants `4r..4r+4`. One message's two `sha256rnds2`
/// after the other's: with the first of every message before any second
/// (more values live, more spills), four messages ran slower
/// (examples/sha_lanes.rs: docs/BENCHMARKS.md, "Figures behind the kernels' comments"); the
/// out-of-order core interleaves them anyway.
macro_rules! rounds4 {
    ($n:expr, $abef:ident, $cdgh:ident, $w:expr, $r:expr) => {{
        let k = _mm_set_epi32(
            K[4 * $r + 3] as i32,
            K[4 * $r + 2] as i32,
            K[4 * $r + 1] as i32,
            K[4 * $r] as i32,
        );
        for l in 0..$n {
            let t = _mm_add_epi32($w[l], k);
            $cdgh[l] = _mm_sha256rnds2_epu32($cdgh[l], $abef[l], t);
            let hi = _mm_shuffle_epi32(t, 0x0E);
            $abef[l] = _mm_sha256rnds2_epu32($abef[l], $cdgh[l], hi);
        }
    }};
}

/// The next four schedule words of every message into `w4` (from the last
/// sixteen, `w0..w3`), then four rounds with them.
macro_rules! schedule_rounds4 {
    ($n:expr, $abef:ident, $cdgh:ident, $w0:ident, $w1:ident, $w2:ident, $w3:ident, $r:expr) => {{
        for l in 0..$n {
            let t1 = _mm_sha256msg1_epu32($w0[l], $w1[l]);
            let t2 = _mm_alignr_epi8($w3[l], $w2[l], 4);
            $w0[l] = _mm_sha256msg2_epu32(_mm_add_epi32(t1, t2), $w3[l]);
        }
        rounds4!($n, $abef, $cdgh, $w0, $r);
    }};
}

/// Advance `states[l]` by `blocks[l][..n]` for every `l`, where `n` is the
/// shortest of the `blocks` slices (the rest of the longer ones is left).
/// Returns `n`.
///
/// # Safety
/// The CPU has SHA-NI, SSE4.1 and SSSE3 (`is_x86_feature_detected!("sha")`,
/// `"sse4.1"`, `"ssse3"`).
#[allow(
    clippy::needless_range_loop,
    reason = "block i of every lane: one index into several arrays"
)]
#[target_feature(enable = "sha,sse2,ssse3,sse4.1")]
pub(super) unsafe fn compress<const N: usize>(
    states: &mut [[u32; 8]; N],
    blocks: [&[[u8; 64]]; N],
) -> usize {
    let n = blocks.iter().map(|b| b.len()).min().unwrap_or(0);
    if n == 0 {
        return 0;
    }
    let mask = _mm_set_epi64x(0x0C0D_0E0F_0809_0A0B, 0x0405_0607_0001_0203);
    let mut abef = [_mm_setzero_si128(); N];
    let mut cdgh = [_mm_setzero_si128(); N];
    for l in 0..N {
        let p: *const __m128i = states[l].as_ptr().cast();
        // SAFETY: `states[l]` is 32 bytes: two unaligned 16-byte loads.
        let (dcba, hgfe) = unsafe { (_mm_loadu_si128(p), _mm_loadu_si128(p.add(1))) };
        let cdab = _mm_shuffle_epi32(dcba, 0xB1);
        let efgh = _mm_shuffle_epi32(hgfe, 0x1B);
        abef[l] = _mm_alignr_epi8(cdab, efgh, 8);
        cdgh[l] = _mm_blend_epi16(efgh, cdab, 0xF0);
    }
    for i in 0..n {
        let (abef_save, cdgh_save) = (abef, cdgh);
        let mut w = [[_mm_setzero_si128(); N]; 4];
        for l in 0..N {
            let p: *const __m128i = blocks[l][i].as_ptr().cast();
            for (j, wj) in w.iter_mut().enumerate() {
                // SAFETY: `blocks[l][i]` (i < n ≤ its length) is 64 bytes;
                // this reads bytes 16j..16j+16 of it, j < 4.
                wj[l] = _mm_shuffle_epi8(unsafe { _mm_loadu_si128(p.add(j)) }, mask);
            }
        }
        let [mut w0, mut w1, mut w2, mut w3] = w;
        rounds4!(N, abef, cdgh, w0, 0);
        rounds4!(N, abef, cdgh, w1, 1);
        rounds4!(N, abef, cdgh, w2, 2);
        rounds4!(N, abef, cdgh, w3, 3);
        schedule_rounds4!(N, abef, cdgh, w0, w1, w2, w3, 4);
        schedule_rounds4!(N, abef, cdgh, w1, w2, w3, w0, 5);
        schedule_rounds4!(N, abef, cdgh, w2, w3, w0, w1, 6);
        schedule_rounds4!(N, abef, cdgh, w3, w0, w1, w2, 7);
        schedule_rounds4!(N, abef, cdgh, w0, w1, w2, w3, 8);
        schedule_rounds4!(N, abef, cdgh, w1, w2, w3, w0, 9);
        schedule_rounds4!(N, abef, cdgh, w2, w3, w0, w1, 10);
        schedule_rounds4!(N, abef, cdgh, w3, w0, w1, w2, 11);
        schedule_rounds4!(N, abef, cdgh, w0, w1, w2, w3, 12);
        schedule_rounds4!(N, abef, cdgh, w1, w2, w3, w0, 13);
        schedule_rounds4!(N, abef, cdgh, w2, w3, w0, w1, 14);
        schedule_rounds4!(N, abef, cdgh, w3, w0, w1, w2, 15);
        for l in 0..N {
            abef[l] = _mm_add_epi32(abef[l], abef_save[l]);
            cdgh[l] = _mm_add_epi32(cdgh[l], cdgh_save[l]);
        }
    }
    for l in 0..N {
        let feba = _mm_shuffle_epi32(abef[l], 0x1B);
        let dchg = _mm_shuffle_epi32(cdgh[l], 0xB1);
        let dcba = _mm_blend_epi16(feba, dchg, 0xF0);
        let hgef = _mm_alignr_epi8(dchg, feba, 8);
        let p: *mut __m128i = states[l].as_mut_ptr().cast();
        // SAFETY: `states[l]` is 32 writable bytes: two 16-byte stores.
        unsafe {
            _mm_storeu_si128(p, dcba);
            _mm_storeu_si128(p.add(1), hgef);
        }
    }
    n
}
