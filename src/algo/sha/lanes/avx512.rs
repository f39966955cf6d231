//! SHA-256 and SHA-1 block functions for 16 messages at once, one per
//! 32-bit lane of AVX-512 registers (no SHA-NI): the FIPS 180-4 rounds in
//! vector form, `vprord`/`vprold` for the rotations and `vpternlogd` for Σ,
//! Ch, Maj and parity.
//!
//! Each call loads one 64-byte block per lane, byte-swaps the words and
//! transposes the 16 × 16 word matrix (in 128-bit pieces, see
//! `load_blocks`), so that register `t` holds word `t` of every lane.

use core::arch::x86_64::*;

use super::shani_sha256::K;

macro_rules! ror {
    ($x:expr, $n:literal) => {
        _mm512_ror_epi32::<$n>($x)
    };
}

/// `$x` unchanged, through an empty `asm!`: LLVM cannot re-associate a sum
/// across it, so the order of the adds written below is the order run.
/// (Left to itself, LLVM rebuilds each sum as a chain in its own order and
/// puts the slowest term first: a round's next `e` and `a` then took 8
/// cycles of 2-cycle vector ops, not 6, and SHA-256 ran slower:
/// docs/BENCHMARKS.md, "Figures behind the kernels' comments".)
macro_rules! opaque {
    ($x:expr) => {{
        let mut x: __m512i = $x;
        // SAFETY: an empty asm block reads and writes only this register.
        unsafe {
            core::arch::asm!(
                "/* {0} */",
                inout(zmm_reg) x,
                options(pure, nomem, nostack, preserves_flags)
            );
        }
        x
    }};
}

/// One round on the state registers in the order `round!` names them.
/// The sums are ordered for the two chains from round to round. The new
/// `e` is `((d + (h + K + W)) + Ch) + Σ1(e)`: `d + h + K + W` is ready
/// early, Ch (one op on `e`) joins it while Σ1 (two ops) is computed, and
/// the new `e` is one add after Σ1 (3 ops from `e`). The new `a` is
/// `((T1 + Maj) + Σ0(a))`, likewise one add after Σ0 (3 ops from `a`).
///
/// A function, not a macro: inlined in an optimised build, called in a
/// debug one, where every temporary has a stack slot of its own and the
/// 64 rounds written out took 530 KB of stack, more than a hasher thread
/// has (a call per round keeps the kernel's frame near 100 KB). Returns
/// the new `d` and `h`.
#[allow(clippy::too_many_arguments)]
#[cfg_attr(debug_assertions, inline(never))]
#[cfg_attr(not(debug_assertions), inline)]
#[target_feature(enable = "avx512f")]
fn round(
    a: __m512i,
    b: __m512i,
    c: __m512i,
    d: __m512i,
    e: __m512i,
    f: __m512i,
    g: __m512i,
    h: __m512i,
    kw: __m512i,
) -> (__m512i, __m512i) {
    // Ch = (e & f) | (!e & g), Maj = majority of a, b, c
    let ch = _mm512_ternarylogic_epi32::<0xCA>(e, f, g);
    let hk = opaque!(_mm512_add_epi32(h, kw));
    let dhk = opaque!(_mm512_add_epi32(d, hk));
    let s1 = _mm512_ternarylogic_epi32::<0x96>(ror!(e, 6), ror!(e, 11), ror!(e, 25));
    let s0 = _mm512_ternarylogic_epi32::<0x96>(ror!(a, 2), ror!(a, 13), ror!(a, 22));
    let maj = _mm512_ternarylogic_epi32::<0xE8>(a, b, c);
    let new_d = _mm512_add_epi32(opaque!(_mm512_add_epi32(dhk, ch)), s1);
    let t1 = opaque!(_mm512_add_epi32(opaque!(_mm512_add_epi32(hk, ch)), s1));
    let new_h = _mm512_add_epi32(opaque!(_mm512_add_epi32(t1, maj)), s0);
    (new_d, new_h)
}

/// `round`, on the eight state registers named in the caller's order.
macro_rules! round {
    ($a:expr, $b:expr, $c:expr, $d:expr, $e:expr, $f:expr, $g:expr, $h:expr, $kw:expr) => {{
        let kw = $kw;
        ($d, $h) = round($a, $b, $c, $d, $e, $f, $g, $h, kw);
    }};
}

/// How many rounds ahead of its use a schedule word is computed. Next to
/// the round that uses it, a word's schedule ops sit behind the round's
/// own in the core's queues; computed a few rounds early, they run in the
/// gaps of the rounds' chains (both hashes faster; 4 to 12 all measured
/// alike: docs/BENCHMARKS.md, "Figures behind the kernels' comments"). Less than 14: the word overwritten in the 16-word ring
/// must be one no later round or word needs.
const AHEAD: usize = 8;

/// Compute `W[t]` (for `16 ≤ t < 64`) into the 16-word ring `w`, over
/// `W[t - 16]`; nothing for other `t`. (A function for the same reason as
/// `round`; inlined, `t` is a constant.)
#[cfg_attr(debug_assertions, inline(never))]
#[cfg_attr(not(debug_assertions), inline)]
#[target_feature(enable = "avx512f")]
fn schedule(w: &mut [__m512i; 16], t: usize) {
    if (16..64).contains(&t) {
        let x15 = w[(t + 1) & 15];
        let x2 = w[(t + 14) & 15];
        let s0 = _mm512_ternarylogic_epi32::<0x96>(
            ror!(x15, 7),
            ror!(x15, 18),
            _mm512_srli_epi32::<3>(x15),
        );
        let s1 = _mm512_ternarylogic_epi32::<0x96>(
            ror!(x2, 17),
            ror!(x2, 19),
            _mm512_srli_epi32::<10>(x2),
        );
        w[t & 15] = _mm512_add_epi32(
            _mm512_add_epi32(w[t & 15], s0),
            _mm512_add_epi32(w[(t + 9) & 15], s1),
        );
    }
}

/// `W[t] + K[t]`, computing `W[t + AHEAD]` first.
macro_rules! kw {
    ($w:ident, $t:expr) => {{
        let t: usize = $t;
        schedule(&mut $w, t + AHEAD);
        _mm512_add_epi32($w[t & 15], _mm512_set1_epi32(K[t] as i32))
    }};
}

/// Eight rounds from round `$t`.
macro_rules! eight {
    ($w:ident, $s:ident, $t:expr) => {{
        round!(
            $s[0],
            $s[1],
            $s[2],
            $s[3],
            $s[4],
            $s[5],
            $s[6],
            $s[7],
            kw!($w, $t + 0)
        );
        round!(
            $s[7],
            $s[0],
            $s[1],
            $s[2],
            $s[3],
            $s[4],
            $s[5],
            $s[6],
            kw!($w, $t + 1)
        );
        round!(
            $s[6],
            $s[7],
            $s[0],
            $s[1],
            $s[2],
            $s[3],
            $s[4],
            $s[5],
            kw!($w, $t + 2)
        );
        round!(
            $s[5],
            $s[6],
            $s[7],
            $s[0],
            $s[1],
            $s[2],
            $s[3],
            $s[4],
            kw!($w, $t + 3)
        );
        round!(
            $s[4],
            $s[5],
            $s[6],
            $s[7],
            $s[0],
            $s[1],
            $s[2],
            $s[3],
            kw!($w, $t + 4)
        );
        round!(
            $s[3],
            $s[4],
            $s[5],
            $s[6],
            $s[7],
            $s[0],
            $s[1],
            $s[2],
            kw!($w, $t + 5)
        );
        round!(
            $s[2],
            $s[3],
            $s[4],
            $s[5],
            $s[6],
            $s[7],
            $s[0],
            $s[1],
            kw!($w, $t + 6)
        );
        round!(
            $s[1],
            $s[2],
            $s[3],
            $s[4],
            $s[5],
            $s[6],
            $s[7],
            $s[0],
            kw!($w, $t + 7)
        );
    }};
}

/// Register `j` holds word `j` of every lane's chaining value.
#[inline]
#[target_feature(enable = "avx512f")]
fn load_states<const W: usize>(wide: &[[u32; 16]; W]) -> [__m512i; W] {
    // SAFETY: each `wide[j]` is 64 bytes.
    core::array::from_fn(|j| unsafe { _mm512_loadu_si512(wide[j].as_ptr().cast()) })
}

/// `load_states` undone.
#[inline]
#[target_feature(enable = "avx512f")]
fn store_states<const W: usize>(s: [__m512i; W], wide: &mut [[u32; 16]; W]) {
    for (row, v) in wide.iter_mut().zip(s) {
        // SAFETY: each `wide[j]` is 64 writable bytes.
        unsafe { _mm512_storeu_si512(row.as_mut_ptr().cast(), v) };
    }
}

/// Block `i` of every lane as sixteen registers, register `t` holding the
/// big-endian word `t` of every lane's block.
///
/// Built in 128-bit pieces: for each quarter `q` of the blocks (words
/// `4q..4q+4`), four registers each gather that quarter of four lanes, one
/// per 128-bit chunk (a load, then three `vinserti32x4` from memory), and
/// a 4 × 4 transposition inside the chunks (`vpunpck{l,h}{dq,qdq}`) turns
/// them into the four words' registers. (Sixteen full-block loads and four
/// `vpermt2d` butterflies did the same with 64 two-source permutes per
/// block: both hashes ran slower, and so they did with merge-masked
/// broadcast loads in place of the inserts: docs/BENCHMARKS.md, "Figures behind the kernels' comments".)
///
/// # Safety
/// `i` < the length of every `blocks[l]`; the CPU has AVX-512F and
/// AVX-512BW. (Not a `#[target_feature]` function: a function with one
/// cannot be `inline(always)`, and called, it returned its 16 registers
/// through memory once per block: SHA-1 ran slower.)
#[inline(always)]
unsafe fn load_blocks(blocks: &[&[[u8; 64]]; 16], i: usize) -> [__m512i; 16] {
    // SAFETY: `blocks[l][i]` is in bounds (the caller's promise); every
    // 16-byte load below is one of its four quarters. The CPU has
    // AVX-512F and AVX-512BW (the caller's promise).
    unsafe {
        let bswap =
            _mm512_broadcast_i32x4(_mm_set_epi64x(0x0C0D_0E0F_0809_0A0B, 0x0405_0607_0001_0203));
        let block: [&[u8; 64]; 16] = core::array::from_fn(|l| blocks[l].get_unchecked(i));
        let mut w = [_mm512_setzero_si512(); 16];
        for q in 0..4 {
            // `y[g]`: chunk `c` holds words 4q..4q+4 of lane 4c + g
            let y: [__m512i; 4] = core::array::from_fn(|g| {
                let quarter =
                    |c: usize| _mm_loadu_si128(block[4 * c + g][16 * q..].as_ptr().cast());
                let mut v = _mm512_castsi128_si512(quarter(0));
                v = _mm512_inserti32x4::<1>(v, quarter(1));
                v = _mm512_inserti32x4::<2>(v, quarter(2));
                v = _mm512_inserti32x4::<3>(v, quarter(3));
                _mm512_shuffle_epi8(v, bswap)
            });
            // element g of chunk c: lane 4c + g, the lanes in order
            let lo01 = _mm512_unpacklo_epi32(y[0], y[1]);
            let hi01 = _mm512_unpackhi_epi32(y[0], y[1]);
            let lo23 = _mm512_unpacklo_epi32(y[2], y[3]);
            let hi23 = _mm512_unpackhi_epi32(y[2], y[3]);
            w[4 * q] = _mm512_unpacklo_epi64(lo01, lo23);
            w[4 * q + 1] = _mm512_unpackhi_epi64(lo01, lo23);
            w[4 * q + 2] = _mm512_unpacklo_epi64(hi01, hi23);
            w[4 * q + 3] = _mm512_unpackhi_epi64(hi01, hi23);
        }
        w
    }
}

/// Advance lane `l` of `wide` (lane-major chaining values: word `j` of
/// lane `l` at `wide[j][l]`) by `blocks[l][..n]` for every lane, `n` the
/// shortest of the `blocks` slices. Returns `n`.
///
/// # Safety
/// The CPU has AVX-512F and AVX-512BW (`is_x86_feature_detected!`).
#[inline(never)]
#[target_feature(enable = "avx512f,avx512bw")]
pub(super) unsafe fn compress(wide: &mut [[u32; 16]; 8], blocks: [&[[u8; 64]]; 16]) -> usize {
    let n = blocks.iter().map(|b| b.len()).min().unwrap_or(0);
    if n == 0 {
        return 0;
    }
    let mut s = load_states(wide);
    for i in 0..n {
        // SAFETY: i < n, the shortest length.
        let mut w = unsafe { load_blocks(&blocks, i) };
        let saved = s;
        eight!(w, s, 0);
        eight!(w, s, 8);
        eight!(w, s, 16);
        eight!(w, s, 24);
        eight!(w, s, 32);
        eight!(w, s, 40);
        eight!(w, s, 48);
        eight!(w, s, 56);
        for (x, y) in s.iter_mut().zip(saved) {
            *x = _mm512_add_epi32(*x, y);
        }
    }
    store_states(s, wide);
    n
}

/// The SHA-1 round constants, one per twenty rounds.
const K1: [u32; 4] = [0x5a827999, 0x6ed9eba1, 0x8f1bbcdc, 0xca62c1d6];

/// SHA-1 `W[t]` (for `16 ≤ t < 80`) into the ring `$w`, over `W[t - 16]`:
/// `W[t] = rol1(W[t-3] ^ W[t-8] ^ W[t-14] ^ W[t-16])`; nothing for other
/// `t`.
macro_rules! schedule1 {
    ($w:ident, $t:expr) => {{
        let t: usize = $t;
        if (16..80).contains(&t) {
            let x = _mm512_ternarylogic_epi32::<0x96>(
                $w[(t + 13) & 15],
                $w[(t + 8) & 15],
                $w[(t + 2) & 15],
            );
            $w[t & 15] = _mm512_rol_epi32::<1>(_mm512_xor_si512(x, $w[t & 15]));
        }
    }};
}

/// SHA-1 `W[t] + K`, computing `W[t + AHEAD]` first (as `kw!`).
macro_rules! kw1 {
    ($w:ident, $t:expr) => {{
        let t: usize = $t;
        schedule1!($w, t + AHEAD);
        _mm512_add_epi32($w[t & 15], _mm512_set1_epi32(K1[t / 20] as i32))
    }};
}

/// One SHA-1 round with `vpternlogd` immediate `$f` (on b, c, d): `e`
/// becomes the new `a`, `b` is rotated by 30; the caller rotates the names.
/// Everything but rol5(a) is summed first (in this order: `opaque!`), so
/// the new `a` is one add after it.
macro_rules! round1 {
    ($f:literal, $a:expr, $b:expr, $c:expr, $d:expr, $e:expr, $kw:expr) => {{
        let f = _mm512_ternarylogic_epi32::<$f>($b, $c, $d);
        let x = opaque!(_mm512_add_epi32(opaque!(_mm512_add_epi32($e, $kw)), f));
        $e = _mm512_add_epi32(x, _mm512_rol_epi32::<5>($a));
        $b = _mm512_rol_epi32::<30>($b);
    }};
}

/// Five SHA-1 rounds from round `$t`, function `$f`.
macro_rules! five {
    ($f:literal, $w:ident, $s:ident, $t:expr) => {{
        round1!($f, $s[0], $s[1], $s[2], $s[3], $s[4], kw1!($w, $t));
        round1!($f, $s[4], $s[0], $s[1], $s[2], $s[3], kw1!($w, $t + 1));
        round1!($f, $s[3], $s[4], $s[0], $s[1], $s[2], kw1!($w, $t + 2));
        round1!($f, $s[2], $s[3], $s[4], $s[0], $s[1], kw1!($w, $t + 3));
        round1!($f, $s[1], $s[2], $s[3], $s[4], $s[0], kw1!($w, $t + 4));
    }};
}

/// As `compress`, for SHA-1.
///
/// # Safety
/// The CPU has AVX-512F and AVX-512BW (`is_x86_feature_detected!`).
#[inline(never)]
#[target_feature(enable = "avx512f,avx512bw")]
pub(super) unsafe fn compress_sha1(wide: &mut [[u32; 16]; 5], blocks: [&[[u8; 64]]; 16]) -> usize {
    let n = blocks.iter().map(|b| b.len()).min().unwrap_or(0);
    if n == 0 {
        return 0;
    }
    let mut s = load_states(wide);
    for i in 0..n {
        // SAFETY: i < n, the shortest length.
        let mut w = unsafe { load_blocks(&blocks, i) };
        let saved = s;
        // Ch = (b & c) | (!b & d); parity; Maj
        five!(0xCA, w, s, 0);
        five!(0xCA, w, s, 5);
        five!(0xCA, w, s, 10);
        five!(0xCA, w, s, 15);
        five!(0x96, w, s, 20);
        five!(0x96, w, s, 25);
        five!(0x96, w, s, 30);
        five!(0x96, w, s, 35);
        five!(0xE8, w, s, 40);
        five!(0xE8, w, s, 45);
        five!(0xE8, w, s, 50);
        five!(0xE8, w, s, 55);
        five!(0x96, w, s, 60);
        five!(0x96, w, s, 65);
        five!(0x96, w, s, 70);
        five!(0x96, w, s, 75);
        for (x, y) in s.iter_mut().zip(saved) {
            *x = _mm512_add_epi32(*x, y);
        }
    }
    store_states(s, wide);
    n
}
