//! The x86-64 MD5 block function, in inline assembly so that the order and
//! form of every instruction is ours, not the compiler's.
//!
//! MD5 is 64 steps, each `a = b + rol(a + f(b, c, d) + m + k, s)`, and each
//! step's output is the next step's `b`: the speed is the latency from one
//! `b` to the next, not the instruction count (a 4-wide core has slots to
//! spare). So every operation that does not need the newest `b` is done
//! before it is ready:
//! - `a + m + k` (the message word, from memory, and the constant, an
//!   immediate) is summed first; `a` is four steps old.
//! - F = d ^ (b & (c ^ d)): `c ^ d` is ready early; `b` → and, xor, add,
//!   rol, add: 5 cycles.
//! - G = (b & d) | (c & !d): the halves share no bit, so `|` is `+`, and
//!   `c & !d` is added to `a` before `b` arrives; `b` → and, add, rol, add:
//!   4 cycles, against 5 for the textbook `((b ^ c) & d) ^ c`.
//! - H = b ^ (c ^ d): `c ^ d` early; 4 cycles.
//! - I = c ^ (b | !d): `!d` early; 5 cycles.
//!
//! That is 16 × (5 + 4 + 4 + 5) = 288 cycles per 64-byte block, 4.5 cycles
//! per byte, where OpenSSL's md5-x86_64 pays 5 cycles in round 2 as well.
//! Only baseline x86-64 instructions are used, so no CPU feature needs
//! detecting.
//!
//! Measured (examples/md5_speed.rs, in process, cycles from a dependent
//! `add` chain timed alternately: docs/BENCHMARKS.md, "Figures behind the kernels' comments"),
//! it and OpenSSL's run at their latency bounds (288 and 304 cycles a
//! block), so no instruction order does better. What was tried
//! for the last cycles, and why it is not here:
//! - F and I are selections by `b` (F = b ? c : d): written any way with
//!   two-input operations (`andn` included), two of them depend on `b`
//!   before the add, so 5 cycles stay; only G has a half free of `b`.
//! - No LEA in the chain: there is none (the adds are plain `add`).
//! - One lane of an AVX-512VL register (`vpternlogd` for every round
//!   function, `vprold`: 4 operations from `b` to `b`, 256 cycles per block
//!   where they take a cycle each): slower than OpenSSL on a CPU whose
//!   vector integer operations (`vpaddd`, `vprold`, `vpternlogd` on xmm)
//!   take 2 cycles each, as on the one it was measured on (a dependent
//!   chain of each ran at half the rate of a chain of scalar `add`). Not kept: it would pay only where those
//!   take one cycle (Intel, Zen 4), which could not be measured here.

/// `{name:e}`, the 32-bit view of operand `name`.
macro_rules! r {
    ($x:ident) => {
        concat!("{", stringify!($x), ":e}")
    };
}

/// `a += m[x] + k`, the part of every step that is off the critical path.
#[rustfmt::skip]
macro_rules! add_mk {
    ($a:ident, $x:literal, $k:literal) => {
        concat!(
            "add ", r!($a), ", dword ptr [{p} + ", stringify!($x), "*4]\n",
            "add ", r!($a), ", ", stringify!($k), "\n",
        )
    };
}

/// `a = b + rol(a, s)`, the end of every step.
#[rustfmt::skip]
macro_rules! rol_add {
    ($a:ident, $b:ident, $s:literal) => {
        concat!(
            "rol ", r!($a), ", ", stringify!($s), "\n",
            "add ", r!($a), ", ", r!($b), "\n",
        )
    };
}

/// Round 1 step: F = d ^ (b & (c ^ d)).
#[rustfmt::skip]
macro_rules! ff {
    ($a:ident, $b:ident, $c:ident, $d:ident, $x:literal, $k:literal, $s:literal) => {
        concat!(
            add_mk!($a, $x, $k),
            "mov {t:e}, ", r!($c), "\n",
            "xor {t:e}, ", r!($d), "\n",
            "and {t:e}, ", r!($b), "\n",
            "xor {t:e}, ", r!($d), "\n",
            "add ", r!($a), ", {t:e}\n",
            rol_add!($a, $b, $s),
        )
    };
}

/// Round 2 step: G = (c & !d) + (b & d), the first half added early.
#[rustfmt::skip]
macro_rules! gg {
    ($a:ident, $b:ident, $c:ident, $d:ident, $x:literal, $k:literal, $s:literal) => {
        concat!(
            add_mk!($a, $x, $k),
            "mov {t:e}, ", r!($d), "\n",
            "not {t:e}\n",
            "and {t:e}, ", r!($c), "\n",
            "add ", r!($a), ", {t:e}\n",
            "mov {u:e}, ", r!($d), "\n",
            "and {u:e}, ", r!($b), "\n",
            "add ", r!($a), ", {u:e}\n",
            rol_add!($a, $b, $s),
        )
    };
}

/// Round 3 step: H = b ^ (c ^ d).
#[rustfmt::skip]
macro_rules! hh {
    ($a:ident, $b:ident, $c:ident, $d:ident, $x:literal, $k:literal, $s:literal) => {
        concat!(
            add_mk!($a, $x, $k),
            "mov {t:e}, ", r!($c), "\n",
            "xor {t:e}, ", r!($d), "\n",
            "xor {t:e}, ", r!($b), "\n",
            "add ", r!($a), ", {t:e}\n",
            rol_add!($a, $b, $s),
        )
    };
}

/// Round 4 step: I = c ^ (b | !d).
#[rustfmt::skip]
macro_rules! ii {
    ($a:ident, $b:ident, $c:ident, $d:ident, $x:literal, $k:literal, $s:literal) => {
        concat!(
            add_mk!($a, $x, $k),
            "mov {t:e}, ", r!($d), "\n",
            "not {t:e}\n",
            "or {t:e}, ", r!($b), "\n",
            "xor {t:e}, ", r!($c), "\n",
            "add ", r!($a), ", {t:e}\n",
            rol_add!($a, $b, $s),
        )
    };
}

/// Run the MD5 compression function over each 64-byte block in turn.
#[expect(
    clippy::too_many_lines,
    reason = "a SIMD kernel: its 64 steps unrolled"
)]
pub(crate) fn compress(state: &mut [u32; 4], blocks: &[[u8; 64]]) {
    if blocks.is_empty() {
        return;
    }
    let [mut a, mut b, mut c, mut d] = *state;
    let range = blocks.as_ptr_range();
    // SAFETY: the assembly reads the 64 bytes at `p` for each `p` from
    // `range.start` (inclusive, at least one block: checked above) to
    // `range.end` (exclusive) in steps of 64, all inside `blocks`; it writes
    // no memory and touches no stack, and every register it changes is
    // declared as an output.
    unsafe {
        core::arch::asm!(
            "2:",
            "mov {sa:e}, {a:e}",
            "mov {sb:e}, {b:e}",
            "mov {sc:e}, {c:e}",
            "mov {sd:e}, {d:e}",
            ff!(a, b, c, d, 0, 0xd76aa478, 7),
            ff!(d, a, b, c, 1, 0xe8c7b756, 12),
            ff!(c, d, a, b, 2, 0x242070db, 17),
            ff!(b, c, d, a, 3, 0xc1bdceee, 22),
            ff!(a, b, c, d, 4, 0xf57c0faf, 7),
            ff!(d, a, b, c, 5, 0x4787c62a, 12),
            ff!(c, d, a, b, 6, 0xa8304613, 17),
            ff!(b, c, d, a, 7, 0xfd469501, 22),
            ff!(a, b, c, d, 8, 0x698098d8, 7),
            ff!(d, a, b, c, 9, 0x8b44f7af, 12),
            ff!(c, d, a, b, 10, 0xffff5bb1, 17),
            ff!(b, c, d, a, 11, 0x895cd7be, 22),
            ff!(a, b, c, d, 12, 0x6b901122, 7),
            ff!(d, a, b, c, 13, 0xfd987193, 12),
            ff!(c, d, a, b, 14, 0xa679438e, 17),
            ff!(b, c, d, a, 15, 0x49b40821, 22),
            gg!(a, b, c, d, 1, 0xf61e2562, 5),
            gg!(d, a, b, c, 6, 0xc040b340, 9),
            gg!(c, d, a, b, 11, 0x265e5a51, 14),
            gg!(b, c, d, a, 0, 0xe9b6c7aa, 20),
            gg!(a, b, c, d, 5, 0xd62f105d, 5),
            gg!(d, a, b, c, 10, 0x02441453, 9),
            gg!(c, d, a, b, 15, 0xd8a1e681, 14),
            gg!(b, c, d, a, 4, 0xe7d3fbc8, 20),
            gg!(a, b, c, d, 9, 0x21e1cde6, 5),
            gg!(d, a, b, c, 14, 0xc33707d6, 9),
            gg!(c, d, a, b, 3, 0xf4d50d87, 14),
            gg!(b, c, d, a, 8, 0x455a14ed, 20),
            gg!(a, b, c, d, 13, 0xa9e3e905, 5),
            gg!(d, a, b, c, 2, 0xfcefa3f8, 9),
            gg!(c, d, a, b, 7, 0x676f02d9, 14),
            gg!(b, c, d, a, 12, 0x8d2a4c8a, 20),
            hh!(a, b, c, d, 5, 0xfffa3942, 4),
            hh!(d, a, b, c, 8, 0x8771f681, 11),
            hh!(c, d, a, b, 11, 0x6d9d6122, 16),
            hh!(b, c, d, a, 14, 0xfde5380c, 23),
            hh!(a, b, c, d, 1, 0xa4beea44, 4),
            hh!(d, a, b, c, 4, 0x4bdecfa9, 11),
            hh!(c, d, a, b, 7, 0xf6bb4b60, 16),
            hh!(b, c, d, a, 10, 0xbebfbc70, 23),
            hh!(a, b, c, d, 13, 0x289b7ec6, 4),
            hh!(d, a, b, c, 0, 0xeaa127fa, 11),
            hh!(c, d, a, b, 3, 0xd4ef3085, 16),
            hh!(b, c, d, a, 6, 0x04881d05, 23),
            hh!(a, b, c, d, 9, 0xd9d4d039, 4),
            hh!(d, a, b, c, 12, 0xe6db99e5, 11),
            hh!(c, d, a, b, 15, 0x1fa27cf8, 16),
            hh!(b, c, d, a, 2, 0xc4ac5665, 23),
            ii!(a, b, c, d, 0, 0xf4292244, 6),
            ii!(d, a, b, c, 7, 0x432aff97, 10),
            ii!(c, d, a, b, 14, 0xab9423a7, 15),
            ii!(b, c, d, a, 5, 0xfc93a039, 21),
            ii!(a, b, c, d, 12, 0x655b59c3, 6),
            ii!(d, a, b, c, 3, 0x8f0ccc92, 10),
            ii!(c, d, a, b, 10, 0xffeff47d, 15),
            ii!(b, c, d, a, 1, 0x85845dd1, 21),
            ii!(a, b, c, d, 8, 0x6fa87e4f, 6),
            ii!(d, a, b, c, 15, 0xfe2ce6e0, 10),
            ii!(c, d, a, b, 6, 0xa3014314, 15),
            ii!(b, c, d, a, 13, 0x4e0811a1, 21),
            ii!(a, b, c, d, 4, 0xf7537e82, 6),
            ii!(d, a, b, c, 11, 0xbd3af235, 10),
            ii!(c, d, a, b, 2, 0x2ad7d2bb, 15),
            ii!(b, c, d, a, 9, 0xeb86d391, 21),
            "add {a:e}, {sa:e}",
            "add {b:e}, {sb:e}",
            "add {c:e}, {sc:e}",
            "add {d:e}, {sd:e}",
            "add {p}, 64",
            "cmp {p}, {end}",
            "jne 2b",
            a = inout(reg) a,
            b = inout(reg) b,
            c = inout(reg) c,
            d = inout(reg) d,
            p = inout(reg) range.start => _,
            end = in(reg) range.end,
            t = out(reg) _,
            u = out(reg) _,
            sa = out(reg) _,
            sb = out(reg) _,
            sc = out(reg) _,
            sd = out(reg) _,
            options(nostack, readonly),
        );
    }
    *state = [a, b, c, d];
}
