//! SHA-1 block function on the SHA-NI extension, for `N` independent
//! messages at once (N = 1, 2 or 4).
//!
//! Each message's rounds are the sha1 crate's SHA-NI sequence (the Intel
//! white paper's): `sha1rnds4` per four rounds, `sha1nexte` for E,
//! `sha1msg1`/`sha1msg2` for the schedule. The `sha1rnds4` of one message
//! form a chain; the other messages' instructions fill the unit while each
//! one waits.

use core::arch::x86_64::*;

/// Four rounds of every message, with round function `$f` (0..=3):
/// `$h1` takes E from `$h0`'s last rounds plus the schedule words `$w`.
macro_rules! rounds4 {
    ($n:expr, $h0:ident, $h1:ident, $w:ident, $f:literal) => {{
        for l in 0..$n {
            $h1[l] = _mm_sha1rnds4_epu32($h0[l], _mm_sha1nexte_epu32($h1[l], $w[l]), $f);
        }
    }};
}

/// The next four schedule words into `$w4` (from `$w0..$w3`), then four
/// rounds with them.
macro_rules! schedule_rounds4 {
    ($n:expr, $h0:ident, $h1:ident, $w0:ident, $w1:ident, $w2:ident, $w3:ident, $w4:ident, $f:literal) => {{
        for l in 0..$n {
            let t = _mm_xor_si128(_mm_sha1msg1_epu32($w0[l], $w1[l]), $w2[l]);
            $w4[l] = _mm_sha1msg2_epu32(t, $w3[l]);
        }
        rounds4!($n, $h0, $h1, $w4, $f);
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
    states: &mut [[u32; 5]; N],
    blocks: [&[[u8; 64]]; N],
) -> usize {
    let n = blocks.iter().map(|b| b.len()).min().unwrap_or(0);
    if n == 0 {
        return 0;
    }
    let mask = _mm_set_epi64x(0x0001_0203_0405_0607, 0x0809_0A0B_0C0D_0E0F);
    let mut abcd = [_mm_setzero_si128(); N];
    let mut e = [_mm_setzero_si128(); N];
    for l in 0..N {
        // SAFETY: the first 16 of the state's 20 bytes.
        let v = unsafe { _mm_loadu_si128(states[l].as_ptr().cast()) };
        abcd[l] = _mm_shuffle_epi32(v, 0b00011011);
        e[l] = _mm_set_epi32(states[l][4] as i32, 0, 0, 0);
    }
    for i in 0..n {
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
        let mut w4 = [_mm_setzero_si128(); N];
        let mut h0 = abcd;
        let mut h1 = [_mm_setzero_si128(); N];
        for l in 0..N {
            h1[l] = _mm_sha1rnds4_epu32(h0[l], _mm_add_epi32(e[l], w0[l]), 0);
        }
        // rounds 0..20
        rounds4!(N, h1, h0, w1, 0);
        rounds4!(N, h0, h1, w2, 0);
        rounds4!(N, h1, h0, w3, 0);
        schedule_rounds4!(N, h0, h1, w0, w1, w2, w3, w4, 0);
        // rounds 20..40
        schedule_rounds4!(N, h1, h0, w1, w2, w3, w4, w0, 1);
        schedule_rounds4!(N, h0, h1, w2, w3, w4, w0, w1, 1);
        schedule_rounds4!(N, h1, h0, w3, w4, w0, w1, w2, 1);
        schedule_rounds4!(N, h0, h1, w4, w0, w1, w2, w3, 1);
        schedule_rounds4!(N, h1, h0, w0, w1, w2, w3, w4, 1);
        // rounds 40..60
        schedule_rounds4!(N, h0, h1, w1, w2, w3, w4, w0, 2);
        schedule_rounds4!(N, h1, h0, w2, w3, w4, w0, w1, 2);
        schedule_rounds4!(N, h0, h1, w3, w4, w0, w1, w2, 2);
        schedule_rounds4!(N, h1, h0, w4, w0, w1, w2, w3, 2);
        schedule_rounds4!(N, h0, h1, w0, w1, w2, w3, w4, 2);
        // rounds 60..80
        schedule_rounds4!(N, h1, h0, w1, w2, w3, w4, w0, 3);
        schedule_rounds4!(N, h0, h1, w2, w3, w4, w0, w1, 3);
        schedule_rounds4!(N, h1, h0, w3, w4, w0, w1, w2, 3);
        schedule_rounds4!(N, h0, h1, w4, w0, w1, w2, w3, 3);
        schedule_rounds4!(N, h1, h0, w0, w1, w2, w3, w4, 3);
        for l in 0..N {
            abcd[l] = _mm_add_epi32(abcd[l], h0[l]);
            e[l] = _mm_sha1nexte_epu32(h1[l], e[l]);
        }
    }
    for l in 0..N {
        let v = _mm_shuffle_epi32(abcd[l], 0b00011011);
        // SAFETY: the first 16 of the state's 20 writable bytes.
        unsafe { _mm_storeu_si128(states[l].as_mut_ptr().cast(), v) };
        states[l][4] = _mm_extract_epi32(e[l], 3) as u32;
    }
    n
}
