//! A bare S3 ETag (`HEX-N  NAME`, or quoted): which part sizes it is
//! tried with, all in one read of the file.

use std::ffi::OsStr;
use std::ops::RangeInclusive;

use crate::algo::{Algorithm, Algorithms, Composed, MAX_ALGORITHMS, PartSize, Parts};

/// The part sizes S3 uploaders use, in MiB: AWS CLI's and boto3's 8, the
/// others' 5, 15, 16, 64 and 100, and the powers of two S3 takes (to 4
/// GiB).
const COMMON_PART_MIB: [u32; 13] = [5, 8, 15, 16, 32, 64, 100, 128, 256, 512, 1024, 2048, 4096];

/// The part sizes S3 takes, in MiB (5 MiB to 5 GiB; the last part may be
/// shorter).
const S3_PART_MIB: RangeInclusive<u32> = 5..=5120;

/// The whole-MiB part sizes S3 takes that cut `len` bytes into `n` parts
/// (empty when none does); for one part, the smallest that holds it (any
/// size that does gives the same ETag).
pub(crate) fn part_sizes(len: u64, n: u64) -> RangeInclusive<u32> {
    const MIB: u64 = 1 << 20;
    // ceil(len / m MiB) == n: len / n <= m MiB < len / (n - 1)
    let (lo, hi) = match n {
        0 => (1, 0),
        1 => {
            let m = len.div_ceil(MIB);
            (m, m.max(u64::from(*S3_PART_MIB.start())))
        }
        n => match (n.checked_mul(MIB), (n - 1).checked_mul(MIB)) {
            (Some(all), Some(but_one)) => {
                (len.div_ceil(all), len.div_ceil(but_one).saturating_sub(1))
            }
            _ => (1, 0),
        },
    };
    let lo = u32::try_from(lo)
        .unwrap_or(u32::MAX)
        .max(*S3_PART_MIB.start());
    let hi = u32::try_from(hi)
        .unwrap_or(u32::MAX)
        .min(*S3_PART_MIB.end());
    lo..=hi
}

/// The ETags a bare `HEX-N` line may be, to compute in one read: every
/// whole-MiB part size that cuts the file `name` (as it is now) into `n`
/// parts ([`part_sizes`]). One read computes [`MAX_ALGORITHMS`] at most:
/// when more sizes fit, the common ones first, then the others from the
/// smallest up (the size a tool gets that divides the file by a part
/// count); the failure says which were left. When none fits (or the file
/// cannot be examined: reading it will say why), AWS CLI's 8 MiB, which
/// then does not match.
pub(crate) fn etag_candidates(name: &OsStr, n: u64) -> Algorithms {
    let over =
        |mib| PartSize::mib(mib).map(|size| Algorithm::Parts(Parts::new(Composed::Md5, size)));
    let sizes = std::fs::metadata(crate::sys::file_path(name.as_ref()))
        .ok()
        .map(|m| part_sizes(m.len(), n));
    let common =
        (COMMON_PART_MIB.into_iter()).filter(|m| sizes.as_ref().is_some_and(|r| r.contains(m)));
    let others = (sizes.clone().into_iter().flatten()).filter(|m| !COMMON_PART_MIB.contains(m));
    let fitting = common.chain(others).take(MAX_ALGORITHMS).filter_map(over);
    let default = over(8).unwrap_or(Algorithm::Md5);
    Algorithms::new(fitting).unwrap_or(Algorithms::one(default))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn part_sizes_are_every_whole_mib_size_s3_takes_that_makes_n_parts() {
        const MIB: u64 = 1 << 20;
        // issue 46: `-15` of a file of about 100 MiB is 7 MiB parts only
        assert_eq!(part_sizes(100 * MIB + 12345, 15), 7..=7);
        assert_eq!(part_sizes(17 * MIB + 5, 2), 9..=17);
        assert_eq!(part_sizes(17 * MIB, 2), 9..=16);
        // one part: the smallest size S3 takes that holds it
        assert_eq!(part_sizes(1000, 1), 5..=5);
        assert_eq!(part_sizes(6 * MIB + 1, 1), 7..=7);
        // none: parts under 5 MiB, over 5 GiB, or more parts than bytes
        assert!(part_sizes(100 * MIB, 200).is_empty());
        assert!(part_sizes(6 << 30, 1).is_empty());
        assert!(part_sizes(0, 2).is_empty());
        assert!(part_sizes(100, u64::MAX).is_empty());
    }

    #[test]
    fn etag_candidates_are_the_common_sizes_then_the_smallest_as_one_read_carries() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("f");
        // 100 MiB in 2 parts: 50M to 99M, 50 sizes, of which 64M is common
        std::fs::File::create(&f)
            .unwrap()
            .set_len(100 << 20)
            .unwrap();
        let got = etag_candidates(f.as_os_str(), 2);
        let mib: Vec<u64> = got
            .as_slice()
            .iter()
            .map(|a| a.parts().unwrap().size.bytes() >> 20)
            .collect();
        let mut want = vec![64];
        want.extend((50..=99).filter(|&m| m != 64));
        assert_eq!(got.len(), MAX_ALGORITHMS);
        assert_eq!(mib, want[..MAX_ALGORITHMS]);
        // a size none fits: AWS CLI's 8 MiB, which will not match
        let got = etag_candidates(f.as_os_str(), 200);
        assert_eq!(got.first().parts().unwrap().size.bytes(), 8 << 20);
    }
}
