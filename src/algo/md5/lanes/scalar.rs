//! The portable N-lane MD5 block function: plain Rust over the same
//! lane-major state as the SIMD kernels, one lane after the other within each
//! step. It is the reference the SIMD kernels are tested against, selected
//! only by `FASTSUM_MD5_LANES=scalar`: on x86-64 it runs at about half the
//! single-stream kernel's speed, so CPUs without AVX2 use that kernel.

use super::{Blocks, LANES, State};
use crate::algo::md5::{K, S};

/// Message word index of step `j`.
const fn word(j: usize) -> usize {
    match j / 16 {
        0 => j,
        1 => (1 + 5 * j) % 16,
        2 => (5 + 3 * j) % 16,
        _ => (7 * j) % 16,
    }
}

/// Advance all lanes of `state` by one block each, lane `l` by `blocks[l]`.
pub(super) fn compress(state: &mut State, blocks: &Blocks<'_>) {
    // m[w][l]: word w of lane l's block
    let mut m = [[0u32; LANES]; 16];
    for (l, block) in blocks.iter().enumerate() {
        for (w, bytes) in block.as_chunks::<4>().0.iter().enumerate() {
            m[w][l] = u32::from_le_bytes(*bytes);
        }
    }
    let [mut a, mut b, mut c, mut d] = *state;
    for j in 0..64 {
        let s = S[j / 16][j % 4];
        let mw = &m[word(j)];
        let mut next = [0u32; LANES];
        for l in 0..LANES {
            let (bl, cl, dl) = (b[l], c[l], d[l]);
            let fun = match j / 16 {
                0 => dl ^ (bl & (cl ^ dl)),
                1 => (bl & dl) | (cl & !dl),
                2 => bl ^ cl ^ dl,
                _ => cl ^ (bl | !dl),
            };
            let t = a[l]
                .wrapping_add(fun)
                .wrapping_add(mw[l])
                .wrapping_add(K[j]);
            next[l] = bl.wrapping_add(t.rotate_left(s));
        }
        // (a, b, c, d) <- (d, next, b, c)
        a = d;
        d = c;
        c = b;
        b = next;
    }
    for (col, v) in state.iter_mut().zip([a, b, c, d]) {
        for (w, x) in col.iter_mut().zip(v) {
            *w = w.wrapping_add(x);
        }
    }
}
