//! The portable MD5 block function: plain Rust, any target. It is the
//! fallback where no hand-scheduled kernel exists, and the kernel that
//! `FASTSUM_MD5=portable` forces, so it is tested on every CPU.
//!
//! It uses the same latency-saving rewrites as the x86-64 kernel (see
//! `x86_64.rs`): the message word and constant are added to `a` before the
//! round function, and G is split into two disjoint halves so one of them
//! leaves the critical path. The compiler is free to schedule, though.

use super::{K, S};

/// Round 1: F(b, c, d) = (b & c) | (!b & d), written with one less
/// operation as d ^ (b & (c ^ d)).
#[inline(always)]
fn f(a: u32, b: u32, c: u32, d: u32, mk: u32, s: u32) -> u32 {
    let a = a.wrapping_add(mk);
    a.wrapping_add(d ^ (b & (c ^ d)))
        .rotate_left(s)
        .wrapping_add(b)
}

/// Round 2: G(b, c, d) = (b & d) | (c & !d). The two halves have no bit in
/// common, so `|` is `+`, and the half that does not involve `b` (the value
/// the previous step just produced) is added first, off the critical path.
#[inline(always)]
fn g(a: u32, b: u32, c: u32, d: u32, mk: u32, s: u32) -> u32 {
    let a = a.wrapping_add(mk).wrapping_add(c & !d);
    a.wrapping_add(b & d).rotate_left(s).wrapping_add(b)
}

/// Round 3: H(b, c, d) = b ^ c ^ d, with c ^ d (older values) first.
#[inline(always)]
fn h(a: u32, b: u32, c: u32, d: u32, mk: u32, s: u32) -> u32 {
    let a = a.wrapping_add(mk);
    a.wrapping_add((c ^ d) ^ b).rotate_left(s).wrapping_add(b)
}

/// Round 4: I(b, c, d) = c ^ (b | !d), with !d (an older value) first.
#[inline(always)]
fn i(a: u32, b: u32, c: u32, d: u32, mk: u32, s: u32) -> u32 {
    let a = a.wrapping_add(mk);
    a.wrapping_add(c ^ (b | !d)).rotate_left(s).wrapping_add(b)
}

/// Run the MD5 compression function over each 64-byte block in turn.
pub(crate) fn compress(state: &mut [u32; 4], blocks: &[[u8; 64]]) {
    for block in blocks {
        let mut m = [0u32; 16];
        for (w, bytes) in m.iter_mut().zip(block.as_chunks::<4>().0) {
            *w = u32::from_le_bytes(*bytes);
        }
        // message word + constant for step `j`, message index `x`
        let mk = |j: usize, x: usize| m[x].wrapping_add(K[j]);
        let [mut a, mut b, mut c, mut d] = *state;
        for j in (0..16).step_by(4) {
            a = f(a, b, c, d, mk(j, j), S[0][0]);
            d = f(d, a, b, c, mk(j + 1, j + 1), S[0][1]);
            c = f(c, d, a, b, mk(j + 2, j + 2), S[0][2]);
            b = f(b, c, d, a, mk(j + 3, j + 3), S[0][3]);
        }
        for j in (16..32).step_by(4) {
            let x = |n: usize| (1 + 5 * (j + n)) % 16;
            a = g(a, b, c, d, mk(j, x(0)), S[1][0]);
            d = g(d, a, b, c, mk(j + 1, x(1)), S[1][1]);
            c = g(c, d, a, b, mk(j + 2, x(2)), S[1][2]);
            b = g(b, c, d, a, mk(j + 3, x(3)), S[1][3]);
        }
        for j in (32..48).step_by(4) {
            let x = |n: usize| (5 + 3 * (j + n)) % 16;
            a = h(a, b, c, d, mk(j, x(0)), S[2][0]);
            d = h(d, a, b, c, mk(j + 1, x(1)), S[2][1]);
            c = h(c, d, a, b, mk(j + 2, x(2)), S[2][2]);
            b = h(b, c, d, a, mk(j + 3, x(3)), S[2][3]);
        }
        for j in (48..64).step_by(4) {
            let x = |n: usize| (7 * (j + n)) % 16;
            a = i(a, b, c, d, mk(j, x(0)), S[3][0]);
            d = i(d, a, b, c, mk(j + 1, x(1)), S[3][1]);
            c = i(c, d, a, b, mk(j + 2, x(2)), S[3][2]);
            b = i(b, c, d, a, mk(j + 3, x(3)), S[3][3]);
        }
        state[0] = state[0].wrapping_add(a);
        state[1] = state[1].wrapping_add(b);
        state[2] = state[2].wrapping_add(c);
        state[3] = state[3].wrapping_add(d);
    }
}
