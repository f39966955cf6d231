//! A seeded pseudo-random generator for tests and benches (xorshift64):
//! the same bytes every run, so a failure reproduces. One generator for
//! the unit tests, the integration tests and the benches (through
//! `fastsum::internals`).

/// xorshift64, seeded.
pub struct Rng(u64);

impl Rng {
    /// A generator whose sequence is fixed by `seed` (any value, 0 too).
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    /// The next 64 bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A number below `n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n.max(1) as u64) as usize
    }

    /// `len` bytes.
    pub fn bytes(&mut self, len: usize) -> Vec<u8> {
        (0..len).map(|_| (self.next_u64() >> 24) as u8).collect()
    }
}

/// `len` pseudo-random bytes fixed by `seed`.
pub fn random_bytes(len: usize, seed: u64) -> Vec<u8> {
    Rng::new(seed).bytes(len)
}
