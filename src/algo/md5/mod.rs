//! MD5 (RFC 1321), fastsum's own: the streaming `Md5` type (buffering of
//! partial blocks, length padding, finalisation) over interchangeable block
//! functions ("kernels").
//!
//! Why not the md-5 crate: MD5 is one long chain of dependent steps, so its
//! speed is the latency of each step, and a hand-scheduled kernel whose round
//! functions are rewritten to take operations off that chain beats both the
//! crate and OpenSSL's assembly (docs/BENCHMARKS.md, "MD5 kernel"). The md-5
//! crate stays the reference in the tests.
//!
//! Kernels: `portable.rs` (plain Rust, every target) and `x86_64.rs` (inline
//! assembly). `Kernel::selected()` picks the fastest one the CPU runs, unless
//! the environment variable `FASTSUM_MD5` (read once) forces one:
//! `FASTSUM_MD5=portable`, `FASTSUM_MD5=asm` or `FASTSUM_MD5=auto`.

pub(crate) mod lanes;
mod portable;
#[cfg(target_arch = "x86_64")]
mod x86_64;

use std::sync::OnceLock;

/// The environment variable that forces an MD5 kernel.
pub(crate) const KERNEL_ENV: &str = "FASTSUM_MD5";

/// The 64 additive constants: floor(2^32 * |sin(i + 1)|).
const K: [u32; 64] = [
    0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a, 0xa8304613, 0xfd469501,
    0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be, 0x6b901122, 0xfd987193, 0xa679438e, 0x49b40821,
    0xf61e2562, 0xc040b340, 0x265e5a51, 0xe9b6c7aa, 0xd62f105d, 0x02441453, 0xd8a1e681, 0xe7d3fbc8,
    0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed, 0xa9e3e905, 0xfcefa3f8, 0x676f02d9, 0x8d2a4c8a,
    0xfffa3942, 0x8771f681, 0x6d9d6122, 0xfde5380c, 0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70,
    0x289b7ec6, 0xeaa127fa, 0xd4ef3085, 0x04881d05, 0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665,
    0xf4292244, 0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92, 0xffeff47d, 0x85845dd1,
    0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1, 0xf7537e82, 0xbd3af235, 0x2ad7d2bb, 0xeb86d391,
];

/// Rotation amounts, per round, per step within a group of four.
const S: [[u32; 4]; 4] = [
    [7, 12, 17, 22],
    [5, 9, 14, 20],
    [4, 11, 16, 23],
    [6, 10, 15, 21],
];

/// The initial chaining value.
pub(crate) const INIT: [u32; 4] = [0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476];

/// An MD5 block function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kernel {
    /// Plain Rust (`portable.rs`): every target.
    Portable,
    /// Hand-scheduled inline assembly (`x86_64.rs`): x86-64 only.
    #[cfg(target_arch = "x86_64")]
    X86_64,
}

/// A `FASTSUM_MD5` value that names no kernel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct KernelEnvError(std::ffi::OsString);

impl std::fmt::Display for KernelEnvError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "invalid {KERNEL_ENV} value {:?}: expected auto, portable{}",
            self.0,
            if cfg!(target_arch = "x86_64") {
                " or asm"
            } else {
                ""
            }
        )
    }
}

impl Kernel {
    /// Every kernel this build and this CPU can run, portable first.
    #[cfg(any(test, feature = "internals"))]
    pub fn available() -> Vec<Kernel> {
        vec![
            Kernel::Portable,
            #[cfg(target_arch = "x86_64")]
            Kernel::X86_64,
        ]
    }

    /// The fastest kernel this CPU runs.
    pub fn fastest() -> Kernel {
        // The x86-64 kernel uses only the x86-64 baseline instruction set
        // (mov, add, and, or, xor, not, rol), which every x86-64 CPU has: no
        // feature needs detecting at run time. (A BMI1 `andn` would fold the
        // `mov`+`not` pairs, but those are off the critical path.)
        #[cfg(target_arch = "x86_64")]
        return Kernel::X86_64;
        #[cfg(not(target_arch = "x86_64"))]
        return Kernel::Portable;
    }

    /// The kernel `FASTSUM_MD5` asks for: `None` when unset, empty or `auto`,
    /// an error message when the value names no kernel this build runs.
    /// The name `FASTSUM_MD5` takes for it (and `--stats` prints).
    pub(crate) fn name(self) -> &'static str {
        match self {
            Kernel::Portable => "portable",
            #[cfg(target_arch = "x86_64")]
            Kernel::X86_64 => "asm",
        }
    }

    pub(crate) fn from_env_value(
        value: Option<&std::ffi::OsStr>,
    ) -> Result<Option<Kernel>, KernelEnvError> {
        let Some(value) = value else { return Ok(None) };
        match value.to_str() {
            Some("" | "auto") => Ok(None),
            Some("portable") => Ok(Some(Kernel::Portable)),
            #[cfg(target_arch = "x86_64")]
            Some("asm") => Ok(Some(Kernel::X86_64)),
            _ => Err(KernelEnvError(value.to_os_string())),
        }
    }

    /// The kernel every `Md5::new()` uses: `FASTSUM_MD5` if it names one,
    /// else the fastest. An invalid value falls back to the fastest kernel
    /// here, and `run` reports it as a usage error before any hashing (see
    /// `check_env`).
    pub(crate) fn selected() -> Kernel {
        match Kernel::from_env_once() {
            Ok(Some(k)) => *k,
            Ok(None) | Err(_) => Kernel::fastest(),
        }
    }

    /// Validate `FASTSUM_MD5`, for `run` to report a bad value.
    pub(crate) fn check_env() -> Result<(), KernelEnvError> {
        Kernel::from_env_once().clone().map(|_| ())
    }

    /// `FASTSUM_MD5`, read and parsed on first use only, so every hasher of
    /// a run uses the same kernel.
    fn from_env_once() -> &'static Result<Option<Kernel>, KernelEnvError> {
        static PARSED: OnceLock<Result<Option<Kernel>, KernelEnvError>> = OnceLock::new();
        PARSED.get_or_init(|| Kernel::from_env_value(std::env::var_os(KERNEL_ENV).as_deref()))
    }

    /// Run this kernel's compression function over `blocks`.
    #[inline]
    pub(crate) fn compress(self, state: &mut [u32; 4], blocks: &[[u8; 64]]) {
        match self {
            Kernel::Portable => portable::compress(state, blocks),
            #[cfg(target_arch = "x86_64")]
            Kernel::X86_64 => x86_64::compress(state, blocks),
        }
    }
}

/// A running MD5 computation.
#[derive(Clone, Debug)]
pub struct Md5 {
    state: [u32; 4],
    /// Bytes of an incomplete block, waiting for more input.
    buffer: [u8; 64],
    /// How many bytes of `buffer` are in use (always < 64 between calls).
    buffered: usize,
    /// Total message length in bytes (MD5 counts bits modulo 2^64).
    length: u64,
    kernel: Kernel,
}

impl Md5 {
    /// A fresh MD5 computation with the selected kernel.
    pub(crate) fn new() -> Md5 {
        Md5::with_kernel(Kernel::selected())
    }

    /// A fresh MD5 computation with the given kernel.
    pub fn with_kernel(kernel: Kernel) -> Md5 {
        Md5 {
            state: INIT,
            buffer: [0; 64],
            buffered: 0,
            length: 0,
            kernel,
        }
    }

    /// Feed `data` to the hash.
    pub fn update(&mut self, mut data: &[u8]) {
        self.length = self.length.wrapping_add(data.len() as u64);
        if self.buffered > 0 {
            let take = (64 - self.buffered).min(data.len());
            self.buffer[self.buffered..self.buffered + take].copy_from_slice(&data[..take]);
            self.buffered += take;
            data = &data[take..];
            if self.buffered < 64 {
                return;
            }
            self.kernel
                .compress(&mut self.state, std::slice::from_ref(&self.buffer));
            self.buffered = 0;
        }
        // Whole blocks straight from the caller's slice: no copy.
        let (blocks, rest) = data.as_chunks::<64>();
        if !blocks.is_empty() {
            self.kernel.compress(&mut self.state, blocks);
        }
        self.buffer[..rest.len()].copy_from_slice(rest);
        self.buffered = rest.len();
    }

    /// Finish: pad (0x80, zeros, bit length little-endian) and return the
    /// 16-byte digest.
    pub fn finalize(mut self) -> [u8; 16] {
        let bits = self.length.wrapping_mul(8);
        let mut tail = [0u8; 128];
        tail[..self.buffered].copy_from_slice(&self.buffer[..self.buffered]);
        tail[self.buffered] = 0x80;
        // One block if the length fits after the 0x80 byte, else two.
        let len = if self.buffered < 56 { 64 } else { 128 };
        tail[len - 8..len].copy_from_slice(&bits.to_le_bytes());
        let (blocks, _) = tail[..len].as_chunks::<64>();
        self.kernel.compress(&mut self.state, blocks);
        let mut out = [0u8; 16];
        for (bytes, word) in out.as_chunks_mut::<4>().0.iter_mut().zip(self.state) {
            *bytes = word.to_le_bytes();
        }
        out
    }
}

#[cfg(test)]
pub(crate) mod tests;
