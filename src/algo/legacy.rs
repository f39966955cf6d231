//! The old 16-bit checksums of `sum` (BSD's, `sum -r`, and System V's,
//! `sum -s`) and the POSIX CRC of `cksum`: each with the value GNU
//! coreutils prints for it. Their lines carry the input's size too, which
//! `output` writes.

/// The checksums that print their own line (a number and the input's
/// size, as `cksum` and `sum` do) rather than a hex digest: never tagged,
/// never checked, never with another algorithm.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Legacy {
    /// `cksum`'s POSIX CRC.
    Crc,
    /// zlib's CRC-32 (`cksum -a crc32b`, GNU 9.6+), printed as the CRC.
    Crc32b,
    /// BSD `sum`.
    Bsd,
    /// System V `sum`.
    Sysv,
}

/// BSD `sum`: a 16-bit rotate-right-and-add over the bytes. Each byte
/// depends on the last result (two dependent operations per byte), so it
/// runs at that latency, not at memory speed (docs/BENCHMARKS.md).
#[derive(Clone, Copy, Debug, Default)]
pub struct Bsd(u16);

impl Bsd {
    pub(crate) fn update(&mut self, data: &[u8]) {
        let mut s = self.0;
        for &b in data {
            s = s.rotate_right(1).wrapping_add(u16::from(b));
        }
        self.0 = s;
    }

    /// The checksum, as `sum -r` prints it (`%05d`).
    pub(crate) fn value(&self) -> u16 {
        self.0
    }
}

/// System V `sum`: the byte sum modulo 2^32, folded to 16 bits at the end.
#[derive(Clone, Copy, Debug, Default)]
pub struct Sysv(u32);

impl Sysv {
    pub(crate) fn update(&mut self, data: &[u8]) {
        // 64 u16 lanes, which the compiler vectorises, over blocks of 256
        // stripes of 64 bytes (a lane then holds at most 256 * 255); about
        // twice the speed of widening every byte to u64 (docs/BENCHMARKS.md)
        const BLOCK: usize = 256 * 64;
        let mut total = u64::from(self.0);
        let (blocks, rest) = data.split_at(data.len() / BLOCK * BLOCK);
        for block in blocks.chunks_exact(BLOCK) {
            let mut lanes = [0u16; 64];
            for stripe in block.chunks_exact(64) {
                for (lane, &b) in lanes.iter_mut().zip(stripe) {
                    *lane += u16::from(b);
                }
            }
            total += lanes.iter().map(|&l| u64::from(l)).sum::<u64>();
        }
        total += rest.iter().map(|&b| u64::from(b)).sum::<u64>();
        self.0 = total as u32;
    }

    /// The checksum, as `sum -s` prints it.
    pub(crate) fn value(&self) -> u16 {
        let s = self.0;
        let r = (s & 0xffff) + (s >> 16);
        ((r & 0xffff) + (r >> 16)) as u16
    }
}

/// The POSIX `cksum` CRC (CRC-32 with polynomial 0x04C11DB7, not
/// reflected), over the bytes and then their count; crc-fast's folding
/// kernels (PCLMULQDQ, VPCLMULQDQ where the CPU has it).
#[derive(Clone)]
pub struct PosixCrc {
    crc: crc_fast::Digest,
    len: u64,
}

impl Default for PosixCrc {
    fn default() -> PosixCrc {
        PosixCrc {
            crc: crc_fast::Digest::new(crc_fast::CrcAlgorithm::Crc32Cksum),
            len: 0,
        }
    }
}

impl std::fmt::Debug for PosixCrc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PosixCrc").field("len", &self.len).finish()
    }
}

/// The smallest part of a CRC worth a thread of its own.
const PARALLEL_PART: usize = 4 << 20;

/// `crc` continued over `data` split in `parts`, halves on two threads.
fn crc_in_parts(mut crc: crc_fast::Digest, data: &[u8], parts: usize) -> crc_fast::Digest {
    if parts <= 1 {
        crc.update(data);
        return crc;
    }
    let mid = data.len() / parts * (parts / 2);
    let (a, b) = data.split_at(mid);
    let fresh = crc_fast::Digest::new(crc_fast::CrcAlgorithm::Crc32Cksum);
    let (mut first, second) = rayon_core::join(
        || crc_in_parts(crc, a, parts / 2),
        || crc_in_parts(fresh, b, parts - parts / 2),
    );
    first.combine(&second);
    first
}

impl PosixCrc {
    /// What `cksum --debug` says of the CRC's code on this CPU (GNU 9.8's
    /// words for the kernel crc-fast picks).
    pub(crate) fn implementation() -> &'static str {
        use crate::algo::platform::Clmul;
        match crate::algo::platform::clmul() {
            #[cfg(target_arch = "x86_64")]
            Clmul::Avx512 => "using avx512 hardware support",
            #[cfg(target_arch = "x86_64")]
            Clmul::Vpclmul => "using vpclmul hardware support",
            #[cfg(target_arch = "x86_64")]
            Clmul::Pclmul => "using pclmul hardware support",
            #[cfg(target_arch = "aarch64")]
            Clmul::Pmull => "using pmull hardware support",
            Clmul::None => "using generic hardware support",
        }
    }

    pub(crate) fn update(&mut self, data: &[u8]) {
        self.crc.update(data);
        self.len += data.len() as u64;
    }

    /// [`PosixCrc::update`] on up to `threads` threads: the CRC of each
    /// part of `data` on its own (rayon's pool), combined in order
    /// (crc-fast's shift of one CRC past the other's bytes). For big mapped
    /// files, where one core's CRC is the limit.
    pub(crate) fn update_wide(&mut self, data: &[u8], threads: usize) {
        self.len += data.len() as u64;
        let parts = threads.clamp(1, data.len().div_ceil(PARALLEL_PART).max(1));
        self.crc = crc_in_parts(self.crc, data, parts);
    }

    /// The checksum, as `cksum` prints it (`%u`).
    pub(crate) fn value(&self) -> u32 {
        let mut crc = self.crc;
        // the length, least significant byte first, as few bytes as it takes
        let mut n = self.len;
        while n > 0 {
            crc.update(&[n as u8]);
            n >>= 8;
        }
        crc.finalize() as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Values GNU coreutils 9.1 prints (`printf … | sum -r`, `sum -s`,
    /// `cksum`).
    /// The CRC of parts on several threads, combined, is the CRC of the
    /// whole, at any length and split.
    #[test]
    fn crc_in_parts_is_the_crc() {
        let data: Vec<u8> = (0..(9u32 << 20) + 777)
            .map(|i| (i.wrapping_mul(2654435761) >> 13) as u8)
            .collect();
        let mut one = PosixCrc::default();
        one.update(&data[..1000]);
        one.update(&data[1000..]);
        for threads in [1, 2, 3, 4] {
            let mut wide = PosixCrc::default();
            wide.update(&data[..1000]);
            wide.update_wide(&data[1000..], threads);
            assert_eq!(wide.value(), one.value(), "{threads}");
        }
    }

    /// System V's sum over blocks, pieces and their remainders, against the
    /// plain byte sum.
    #[test]
    fn sysv_blocks_and_remainders() {
        let data: Vec<u8> = (0..100_000u32).map(|i| (i * 7919 % 251) as u8).collect();
        let want = data.iter().map(|&b| u64::from(b)).sum::<u64>() as u32;
        for piece in [1, 63, 64, 16_384, 16_385, 100_000] {
            let mut s = Sysv::default();
            for p in data.chunks(piece) {
                s.update(p);
            }
            assert_eq!(s.0, want, "{piece}");
        }
    }

    #[test]
    fn gnu_values() {
        let cases: [(&[u8], u16, u16, u32); 4] = [
            (b"", 0, 0, 4_294_967_295),
            (b"hello\n", 36979, 542, 3_015_617_425),
            (b"123456789", 53_615, 477, 930_766_865),
            (&[0xff; 1000], 65_411, 58_395, 2_124_716_915),
        ];
        for (data, bsd, sysv, crc) in cases {
            let (mut b, mut s, mut c) = (Bsd::default(), Sysv::default(), PosixCrc::default());
            for piece in data.chunks(7) {
                b.update(piece);
                s.update(piece);
                c.update(piece);
            }
            assert_eq!(
                (b.value(), s.value(), c.value()),
                (bsd, sysv, crc),
                "{:?}",
                &data[..data.len().min(9)]
            );
        }
    }
}
