//! MD5 block function with AVX-512F for groups of 16 lanes: lane `l` of
//! every zmm register of a group holds one MD5 stream. The round functions
//! are one `vpternlogd` each and the rotations one `vprold`, so a step is
//! six instructions, none of them a shuffle. The message words of each group's 16 blocks are transposed in
//! registers (16 loads, 64 shuffles) so word `w` of every lane sits in one
//! register.

use core::arch::x86_64::*;

use super::{Blocks, LANES, State};
use crate::algo::md5::K;

/// 16 x 16 transpose of 32-bit words: `rows[l]` holds the 16 words of lane
/// `l`'s block; on return `rows[w]` holds word `w` of every lane.
#[target_feature(enable = "avx512f")]
fn transpose(rows: &mut [__m512i; 16]) {
    // Pairs of rows, interleaved by 32 then by 64 bits within each 128-bit
    // quarter: afterwards quarter q of u[4g + k] holds word 4q + k of rows
    // 4g..4g+4.
    let mut t = [_mm512_setzero_si512(); 16];
    for p in 0..8 {
        t[2 * p] = _mm512_unpacklo_epi32(rows[2 * p], rows[2 * p + 1]);
        t[2 * p + 1] = _mm512_unpackhi_epi32(rows[2 * p], rows[2 * p + 1]);
    }
    let mut u = [_mm512_setzero_si512(); 16];
    for g in 0..4 {
        let b = 4 * g;
        u[b] = _mm512_unpacklo_epi64(t[b], t[b + 2]);
        u[b + 1] = _mm512_unpackhi_epi64(t[b], t[b + 2]);
        u[b + 2] = _mm512_unpacklo_epi64(t[b + 1], t[b + 3]);
        u[b + 3] = _mm512_unpackhi_epi64(t[b + 1], t[b + 3]);
    }
    // 4 x 4 transpose of 128-bit quarters across the four groups, for each
    // word position k within a quarter.
    for k in 0..4 {
        let s0 = _mm512_shuffle_i32x4::<0x44>(u[k], u[4 + k]);
        let s1 = _mm512_shuffle_i32x4::<0xEE>(u[k], u[4 + k]);
        let s2 = _mm512_shuffle_i32x4::<0x44>(u[8 + k], u[12 + k]);
        let s3 = _mm512_shuffle_i32x4::<0xEE>(u[8 + k], u[12 + k]);
        rows[k] = _mm512_shuffle_i32x4::<0x88>(s0, s2);
        rows[k + 4] = _mm512_shuffle_i32x4::<0xDD>(s0, s2);
        rows[k + 8] = _mm512_shuffle_i32x4::<0x88>(s1, s3);
        rows[k + 12] = _mm512_shuffle_i32x4::<0xDD>(s1, s3);
    }
}

/// One MD5 step on all lanes of every group:
/// `a = b + rotl(a + fn(b, c, d) + m[x] + K[j], s)`, with `fn` given as a
/// `vpternlogd` truth table. The groups' chains are independent, so their
/// instructions overlap.
macro_rules! step {
    ($m:ident, $a:ident, $b:ident, $c:ident, $d:ident, $tt:literal, $j:expr, $x:expr, $s:literal) => {
        for grp in 0..G {
            let mk = _mm512_add_epi32($m[grp][$x], _mm512_set1_epi32(K[$j] as i32));
            let t = _mm512_add_epi32($a[grp], mk);
            let t = _mm512_add_epi32(
                t,
                _mm512_ternarylogic_epi32::<$tt>($b[grp], $c[grp], $d[grp]),
            );
            $a[grp] = _mm512_add_epi32($b[grp], _mm512_rol_epi32::<$s>(t));
        }
    };
}

/// Four steps (one turn of a, d, c, b) of round `$tt`, from step `$j`.
macro_rules! four {
    ($m:ident, $a:ident, $b:ident, $c:ident, $d:ident, $tt:literal, $j:expr, $x:expr, [$s0:literal, $s1:literal, $s2:literal, $s3:literal]) => {
        step!($m, $a, $b, $c, $d, $tt, $j, $x($j), $s0);
        step!($m, $d, $a, $b, $c, $tt, $j + 1, $x($j + 1), $s1);
        step!($m, $c, $d, $a, $b, $tt, $j + 2, $x($j + 2), $s2);
        step!($m, $b, $c, $d, $a, $tt, $j + 3, $x($j + 3), $s3);
    };
}

// Truth tables for vpternlogd(b, c, d): F = b ? c : d, G = d ? b : c,
// H = b ^ c ^ d, I = c ^ (b | !d).
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

/// Advance lanes 0..16G of `state` by one block each, lane `l` by
/// `blocks[l]`: G independent groups of 16 lanes, interleaved step by step
/// (one group alone leaves the core waiting on each step's latency).
#[target_feature(enable = "avx512f")]
pub(super) fn compress<const G: usize>(state: &mut State, blocks: &Blocks<'_>) {
    const { assert!(16 * G <= LANES) };
    let mut m = [[_mm512_setzero_si512(); 16]; G];
    for (g, rows) in m.iter_mut().enumerate() {
        for (row, block) in rows.iter_mut().zip(&blocks[16 * g..16 * g + 16]) {
            // SAFETY: `block` is a reference to 64 readable bytes, exactly
            // one zmm; the unaligned load has no alignment requirement.
            *row = unsafe { _mm512_loadu_si512(block.as_ptr().cast()) };
        }
        transpose(rows);
    }
    let mut v = [[_mm512_setzero_si512(); G]; 4];
    for (regs, words) in v.iter_mut().zip(state.iter()) {
        for (g, reg) in regs.iter_mut().enumerate() {
            // SAFETY: the slice is 16 u32, 64 readable bytes.
            *reg = unsafe { _mm512_loadu_si512(words[16 * g..16 * g + 16].as_ptr().cast()) };
        }
    }
    let [mut a, mut b, mut c, mut d] = v;
    four!(m, a, b, c, d, 0xCA, 0, x1, [7, 12, 17, 22]);
    four!(m, a, b, c, d, 0xCA, 4, x1, [7, 12, 17, 22]);
    four!(m, a, b, c, d, 0xCA, 8, x1, [7, 12, 17, 22]);
    four!(m, a, b, c, d, 0xCA, 12, x1, [7, 12, 17, 22]);
    four!(m, a, b, c, d, 0xE4, 16, x2, [5, 9, 14, 20]);
    four!(m, a, b, c, d, 0xE4, 20, x2, [5, 9, 14, 20]);
    four!(m, a, b, c, d, 0xE4, 24, x2, [5, 9, 14, 20]);
    four!(m, a, b, c, d, 0xE4, 28, x2, [5, 9, 14, 20]);
    four!(m, a, b, c, d, 0x96, 32, x3, [4, 11, 16, 23]);
    four!(m, a, b, c, d, 0x96, 36, x3, [4, 11, 16, 23]);
    four!(m, a, b, c, d, 0x96, 40, x3, [4, 11, 16, 23]);
    four!(m, a, b, c, d, 0x96, 44, x3, [4, 11, 16, 23]);
    four!(m, a, b, c, d, 0x39, 48, x4, [6, 10, 15, 21]);
    four!(m, a, b, c, d, 0x39, 52, x4, [6, 10, 15, 21]);
    four!(m, a, b, c, d, 0x39, 56, x4, [6, 10, 15, 21]);
    four!(m, a, b, c, d, 0x39, 60, x4, [6, 10, 15, 21]);
    for ((words, new), old) in state.iter_mut().zip([a, b, c, d]).zip(v) {
        for (g, (n, o)) in new.into_iter().zip(old).enumerate() {
            let sum = _mm512_add_epi32(n, o);
            // SAFETY: the slice is 16 u32, 64 writable bytes.
            unsafe { _mm512_storeu_si512(words[16 * g..16 * g + 16].as_mut_ptr().cast(), sum) };
        }
    }
}
