//! MD5 block function with AVX2 for groups of 8 lanes: lane `l` of every
//! ymm register of a group holds one MD5 stream. AVX2 has neither a
//! three-input logic instruction nor a rotate, so a step costs about ten
//! instructions (the round function as two or three, a rotation as shift,
//! shift, or). The message words of each
//! group are transposed in registers (16 loads, 48 shuffles).

use core::arch::x86_64::*;

use super::{Blocks, LANES, State};
use crate::algo::md5::K;

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
fn round_f(b: __m256i, c: __m256i, d: __m256i) -> __m256i {
    // d ^ (b & (c ^ d))
    _mm256_xor_si256(d, _mm256_and_si256(b, _mm256_xor_si256(c, d)))
}
#[target_feature(enable = "avx2")]
fn round_g(b: __m256i, c: __m256i, d: __m256i) -> __m256i {
    // (b & d) | (c & !d)
    _mm256_or_si256(_mm256_and_si256(b, d), _mm256_andnot_si256(d, c))
}
#[target_feature(enable = "avx2")]
fn round_h(b: __m256i, c: __m256i, d: __m256i) -> __m256i {
    _mm256_xor_si256(b, _mm256_xor_si256(c, d))
}
#[target_feature(enable = "avx2")]
fn round_i(b: __m256i, c: __m256i, d: __m256i) -> __m256i {
    // c ^ (b | !d)
    let not_d = _mm256_xor_si256(d, _mm256_set1_epi32(-1));
    _mm256_xor_si256(c, _mm256_or_si256(b, not_d))
}

/// One MD5 step on all lanes of every group:
/// `a = b + rotl(a + fn(b, c, d) + m[x] + K[j], s)`.
macro_rules! step {
    ($m:ident, $a:ident, $b:ident, $c:ident, $d:ident, $fn:ident, $j:expr, $x:expr, $s:literal) => {
        for grp in 0..G {
            let mk = _mm256_add_epi32($m[grp][$x], _mm256_set1_epi32(K[$j] as i32));
            let t = _mm256_add_epi32($a[grp], mk);
            let t = _mm256_add_epi32(t, $fn($b[grp], $c[grp], $d[grp]));
            let t = _mm256_or_si256(
                _mm256_slli_epi32::<$s>(t),
                _mm256_srli_epi32::<{ 32 - $s }>(t),
            );
            $a[grp] = _mm256_add_epi32($b[grp], t);
        }
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

/// Advance lanes 0..8G of `state` by one block each, lane `l` by
/// `blocks[l]`: G independent groups of 8 lanes, interleaved step by step;
/// the other lanes are not touched.
#[target_feature(enable = "avx2")]
pub(super) fn compress<const G: usize>(state: &mut State, blocks: &Blocks<'_>) {
    const { assert!(8 * G <= LANES) };
    let mut m = [[_mm256_setzero_si256(); 16]; G];
    for (g, words) in m.iter_mut().enumerate() {
        let mut lo = [_mm256_setzero_si256(); 8];
        let mut hi = [_mm256_setzero_si256(); 8];
        for (l, block) in blocks[8 * g..8 * g + 8].iter().enumerate() {
            let (first, second) = block.split_at(32);
            // SAFETY: `first` and `second` are 32 readable bytes each, one
            // ymm; the unaligned loads have no alignment requirement.
            unsafe {
                lo[l] = _mm256_loadu_si256(first.as_ptr().cast());
                hi[l] = _mm256_loadu_si256(second.as_ptr().cast());
            }
        }
        transpose(&mut lo);
        transpose(&mut hi);
        words[..8].copy_from_slice(&lo);
        words[8..].copy_from_slice(&hi);
    }
    let mut v = [[_mm256_setzero_si256(); G]; 4];
    for (regs, words) in v.iter_mut().zip(state.iter()) {
        for (g, reg) in regs.iter_mut().enumerate() {
            // SAFETY: the slice is 8 u32, 32 readable bytes.
            *reg = unsafe { _mm256_loadu_si256(words[8 * g..8 * g + 8].as_ptr().cast()) };
        }
    }
    let [mut a, mut b, mut c, mut d] = v;
    four!(m, a, b, c, d, round_f, 0, x1, [7, 12, 17, 22]);
    four!(m, a, b, c, d, round_f, 4, x1, [7, 12, 17, 22]);
    four!(m, a, b, c, d, round_f, 8, x1, [7, 12, 17, 22]);
    four!(m, a, b, c, d, round_f, 12, x1, [7, 12, 17, 22]);
    four!(m, a, b, c, d, round_g, 16, x2, [5, 9, 14, 20]);
    four!(m, a, b, c, d, round_g, 20, x2, [5, 9, 14, 20]);
    four!(m, a, b, c, d, round_g, 24, x2, [5, 9, 14, 20]);
    four!(m, a, b, c, d, round_g, 28, x2, [5, 9, 14, 20]);
    four!(m, a, b, c, d, round_h, 32, x3, [4, 11, 16, 23]);
    four!(m, a, b, c, d, round_h, 36, x3, [4, 11, 16, 23]);
    four!(m, a, b, c, d, round_h, 40, x3, [4, 11, 16, 23]);
    four!(m, a, b, c, d, round_h, 44, x3, [4, 11, 16, 23]);
    four!(m, a, b, c, d, round_i, 48, x4, [6, 10, 15, 21]);
    four!(m, a, b, c, d, round_i, 52, x4, [6, 10, 15, 21]);
    four!(m, a, b, c, d, round_i, 56, x4, [6, 10, 15, 21]);
    four!(m, a, b, c, d, round_i, 60, x4, [6, 10, 15, 21]);
    for ((words, new), old) in state.iter_mut().zip([a, b, c, d]).zip(v) {
        for (g, (n, o)) in new.into_iter().zip(old).enumerate() {
            let sum = _mm256_add_epi32(n, o);
            // SAFETY: the slice is 8 u32, 32 writable bytes.
            unsafe { _mm256_storeu_si256(words[8 * g..8 * g + 8].as_mut_ptr().cast(), sum) };
        }
    }
}
