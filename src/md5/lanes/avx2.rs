//! 8-lane MD5 block function with AVX2: lane `l` of every ymm register holds
//! MD5 stream `l`. AVX2 has neither a three-input logic instruction nor a
//! rotate, so a step costs about ten instructions (the round function as
//! two or three, a rotation as shift, shift, or). The message words are
//! transposed in registers (16 loads, 48 shuffles per call).

use core::arch::x86_64::*;

use super::{Blocks, State};
use crate::md5::K;

/// 8 x 8 transpose of 32-bit words: `r[l]` holds 8 words of lane `l`; on
/// return `r[w]` holds word `w` of every lane.
#[target_feature(enable = "avx2")]
fn transpose(r: &mut [__m256i; 8]) {
    let mut t = [_mm256_setzero_si256(); 8];
    for p in 0..4 {
        t[2 * p] = _mm256_unpacklo_epi32(r[2 * p], r[2 * p + 1]);
        t[2 * p + 1] = _mm256_unpackhi_epi32(r[2 * p], r[2 * p + 1]);
    }
    // u[4g + k]: word k (low half) and k + 4 (high half) of rows 4g..4g+4.
    let mut u = [_mm256_setzero_si256(); 8];
    for g in 0..2 {
        let b = 4 * g;
        u[b] = _mm256_unpacklo_epi64(t[b], t[b + 2]);
        u[b + 1] = _mm256_unpackhi_epi64(t[b], t[b + 2]);
        u[b + 2] = _mm256_unpacklo_epi64(t[b + 1], t[b + 3]);
        u[b + 3] = _mm256_unpackhi_epi64(t[b + 1], t[b + 3]);
    }
    for k in 0..4 {
        r[k] = _mm256_permute2x128_si256::<0x20>(u[k], u[4 + k]);
        r[k + 4] = _mm256_permute2x128_si256::<0x31>(u[k], u[4 + k]);
    }
}

#[target_feature(enable = "avx2")]
fn f(b: __m256i, c: __m256i, d: __m256i) -> __m256i {
    // d ^ (b & (c ^ d))
    _mm256_xor_si256(d, _mm256_and_si256(b, _mm256_xor_si256(c, d)))
}
#[target_feature(enable = "avx2")]
fn g(b: __m256i, c: __m256i, d: __m256i) -> __m256i {
    // (b & d) | (c & !d)
    _mm256_or_si256(_mm256_and_si256(b, d), _mm256_andnot_si256(d, c))
}
#[target_feature(enable = "avx2")]
fn h(b: __m256i, c: __m256i, d: __m256i) -> __m256i {
    _mm256_xor_si256(b, _mm256_xor_si256(c, d))
}
#[target_feature(enable = "avx2")]
fn i(b: __m256i, c: __m256i, d: __m256i) -> __m256i {
    // c ^ (b | !d)
    let not_d = _mm256_xor_si256(d, _mm256_set1_epi32(-1));
    _mm256_xor_si256(c, _mm256_or_si256(b, not_d))
}

/// One MD5 step on all lanes: a = b + rotl(a + fn(b, c, d) + m[x] + K[j], s).
macro_rules! step {
    ($m:ident, $a:ident, $b:ident, $c:ident, $d:ident, $fn:ident, $j:expr, $x:expr, $s:literal) => {
        let mk = _mm256_add_epi32($m[$x], _mm256_set1_epi32(K[$j] as i32));
        let t = _mm256_add_epi32($a, mk);
        let t = _mm256_add_epi32(t, $fn($b, $c, $d));
        let t = _mm256_or_si256(
            _mm256_slli_epi32::<$s>(t),
            _mm256_srli_epi32::<{ 32 - $s }>(t),
        );
        $a = _mm256_add_epi32($b, t);
    };
}

macro_rules! four {
    ($m:ident, $a:ident, $b:ident, $c:ident, $d:ident, $fn:ident, $j:expr, $x:expr, [$s0:literal, $s1:literal, $s2:literal, $s3:literal]) => {
        step!($m, $a, $b, $c, $d, $fn, $j, $x($j), $s0);
        step!($m, $d, $a, $b, $c, $fn, $j + 1, $x($j + 1), $s1);
        step!($m, $c, $d, $a, $b, $fn, $j + 2, $x($j + 2), $s2);
        step!($m, $b, $c, $d, $a, $fn, $j + 3, $x($j + 3), $s3);
    };
}

const fn x1(j: usize) -> usize {
    j
}
const fn x2(j: usize) -> usize {
    (1 + 5 * j) % 16
}
const fn x3(j: usize) -> usize {
    (5 + 3 * j) % 16
}
const fn x4(j: usize) -> usize {
    (7 * j) % 16
}

/// Advance lanes 0..8 of `state` by one block each, lane `l` by
/// `blocks[l]`; `blocks[8..]` and the state's columns 8.. are not touched.
#[target_feature(enable = "avx2")]
pub(super) fn compress(state: &mut State, blocks: &Blocks<'_>) {
    let mut lo = [_mm256_setzero_si256(); 8];
    let mut hi = [_mm256_setzero_si256(); 8];
    for l in 0..8 {
        let p = blocks[l].as_ptr();
        // SAFETY: `blocks[l]` is a reference to 64 readable bytes: the two
        // unaligned 32-byte loads read bytes 0..32 and 32..64 of it.
        unsafe {
            lo[l] = _mm256_loadu_si256(p.cast());
            hi[l] = _mm256_loadu_si256(p.add(32).cast());
        }
    }
    transpose(&mut lo);
    transpose(&mut hi);
    let m = [
        lo[0], lo[1], lo[2], lo[3], lo[4], lo[5], lo[6], lo[7], hi[0], hi[1], hi[2], hi[3], hi[4],
        hi[5], hi[6], hi[7],
    ];
    let mut v = [_mm256_setzero_si256(); 4];
    for (reg, words) in v.iter_mut().zip(state.iter()) {
        // SAFETY: `words` is a [u32; 16]: its first 32 bytes are readable.
        *reg = unsafe { _mm256_loadu_si256(words.as_ptr().cast()) };
    }
    let [mut a, mut b, mut c, mut d] = v;
    four!(m, a, b, c, d, f, 0, x1, [7, 12, 17, 22]);
    four!(m, a, b, c, d, f, 4, x1, [7, 12, 17, 22]);
    four!(m, a, b, c, d, f, 8, x1, [7, 12, 17, 22]);
    four!(m, a, b, c, d, f, 12, x1, [7, 12, 17, 22]);
    four!(m, a, b, c, d, g, 16, x2, [5, 9, 14, 20]);
    four!(m, a, b, c, d, g, 20, x2, [5, 9, 14, 20]);
    four!(m, a, b, c, d, g, 24, x2, [5, 9, 14, 20]);
    four!(m, a, b, c, d, g, 28, x2, [5, 9, 14, 20]);
    four!(m, a, b, c, d, h, 32, x3, [4, 11, 16, 23]);
    four!(m, a, b, c, d, h, 36, x3, [4, 11, 16, 23]);
    four!(m, a, b, c, d, h, 40, x3, [4, 11, 16, 23]);
    four!(m, a, b, c, d, h, 44, x3, [4, 11, 16, 23]);
    four!(m, a, b, c, d, i, 48, x4, [6, 10, 15, 21]);
    four!(m, a, b, c, d, i, 52, x4, [6, 10, 15, 21]);
    four!(m, a, b, c, d, i, 56, x4, [6, 10, 15, 21]);
    four!(m, a, b, c, d, i, 60, x4, [6, 10, 15, 21]);
    let out = [
        _mm256_add_epi32(a, v[0]),
        _mm256_add_epi32(b, v[1]),
        _mm256_add_epi32(c, v[2]),
        _mm256_add_epi32(d, v[3]),
    ];
    for (words, reg) in state.iter_mut().zip(out) {
        // SAFETY: `words` is a [u32; 16]: its first 32 bytes are writable.
        unsafe { _mm256_storeu_si256(words.as_mut_ptr().cast(), reg) };
    }
}
