//! SIZE arguments (`--chunk`, `--readahead`): a number of bytes, read as
//! GNU's `--block-size` reads it (gnulib's `human_options` calling
//! `xstrtoumax` with the suffixes `eEgGkKmMpPtTyYzZ0`): a size letter alone
//! or followed by `iB` is a power of 1024 (`K`, `KiB` = 1024), followed by
//! `B` (or `D`) a power of 1000 (`KB` = 1000); `k`, `m`, `g` and `t` are
//! the same letters; a suffix alone stands for one of it (`K` = 1024).
//! Blanks around the value are skipped (GNU skips leading ones and refuses
//! trailing ones: here both read alike, `' 8M'` as `'8M '`).
//! Unlike GNU, digits are always decimal (GNU reads `010` as octal 8 and
//! `0x10` as hex), and `human-readable`/`si`/a leading `'` (display
//! options) mean nothing here.

use std::fmt;
use std::str::FromStr;

/// The largest size accepted: 1 GiB. A larger buffer is never useful for
/// hashing and would only make a typo allocate all of memory.
pub(crate) const MAX_SIZE: usize = 1 << 30;

/// A number of bytes from 1 to 1 GiB, as a SIZE argument gives it. Shown the
/// way it is written (`64K`, `1M`, `7`), so a default is a typed value that
/// `--help` prints, not a string parsed twice.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Size(usize);

impl Size {
    /// The largest size: [`MAX_SIZE`] bytes.
    pub(crate) const MAX: Size = Size(MAX_SIZE);

    /// `n` KiB (a constant; `n` must be from 1 to 1024²).
    pub(crate) const fn kib(n: usize) -> Size {
        assert!(n >= 1 && n <= MAX_SIZE >> 10);
        Size(n << 10)
    }

    /// `n` MiB (a constant; `n` must be from 1 to 1024).
    pub(crate) const fn mib(n: usize) -> Size {
        assert!(n >= 1 && n <= MAX_SIZE >> 20);
        Size(n << 20)
    }

    /// `n` bytes, if that is a valid size.
    #[cfg(any(test, feature = "internals"))]
    pub fn bytes(n: usize) -> Option<Size> {
        (1..=MAX_SIZE).contains(&n).then_some(Size(n))
    }

    /// The number of bytes (at least 1).
    pub const fn get(self) -> usize {
        self.0
    }
}

impl fmt::Display for Size {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.0;
        for (shift, suffix) in [(30, "G"), (20, "M"), (10, "K")] {
            if n.is_multiple_of(1 << shift) {
                return write!(f, "{}{suffix}", n >> shift);
            }
        }
        write!(f, "{n}")
    }
}

impl FromStr for Size {
    type Err = SizeError;

    fn from_str(s: &str) -> Result<Size, SizeError> {
        parse_size(s).map(Size)
    }
}

/// Why a SIZE string was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SizeError {
    /// No number and no suffix (`""`, `-1`, `x`, `1.5K` is a bad suffix).
    NoNumber,
    /// What follows the number is no suffix GNU's `--block-size` reads.
    Suffix(String),
    /// Zero bytes.
    Zero,
    /// More than [`MAX_SIZE`] (or more than any number).
    TooLarge,
}

impl fmt::Display for SizeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SizeError::NoNumber => write!(f, "it is not a number of bytes"),
            SizeError::Suffix(s) => write!(f, "'{s}' is no size suffix"),
            SizeError::Zero => write!(f, "it must be at least 1 byte"),
            SizeError::TooLarge => write!(f, "it is larger than {}", Size::MAX),
        }
    }
}

impl std::error::Error for SizeError {}

/// The power a size letter stands for (`K`: 1), as xstrtol reads it.
fn letter_power(c: char) -> Option<u32> {
    Some(match c {
        'k' | 'K' => 1,
        'M' | 'm' => 2,
        'G' | 'g' => 3,
        'T' | 't' => 4,
        'P' => 5,
        'E' => 6,
        'Z' => 7,
        'Y' => 8,
        _ => return None,
    })
}

/// Parse a SIZE: `16`, `4K`, `4k`, `64KiB`, `4KB` (4000), `1M`, `1MB`, `K`.
fn parse_size(s: &str) -> Result<usize, SizeError> {
    match parse_bytes(s)? {
        b if b <= MAX_SIZE as u64 => Ok(b as usize),
        _ => Err(SizeError::TooLarge),
    }
}

/// A SIZE of any number of bytes that fits 64 bits (`--part-size`: S3's
/// parts go to 5 GiB), read as [`Size`] reads one.
pub(crate) fn parse_bytes(s: &str) -> Result<u64, SizeError> {
    // strtoumax skips leading white space (a sign is refused); trailing
    // white space, which GNU's suffix check refuses, is skipped too, so
    // that ' 8M' and '8M ' read alike (issue 40 §13)
    let t = s.trim();
    let digits_end = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (digits, suffix) = t.split_at(digits_end);
    let mut letters = suffix.chars();
    let power = match letters.next() {
        None => None,
        Some(c) => match letter_power(c) {
            Some(p) => Some(p),
            None if digits.is_empty() => return Err(SizeError::NoNumber),
            None => return Err(SizeError::Suffix(suffix.to_string())),
        },
    };
    let base: u128 = match letters.as_str() {
        "" | "iB" => 1024,
        "B" | "D" => 1000,
        _ => return Err(SizeError::Suffix(suffix.to_string())),
    };
    // a suffix alone stands for one of it; nothing at all is no number
    let n: u128 = match (digits, power) {
        ("", None) => return Err(SizeError::NoNumber),
        ("", Some(_)) => 1,
        (d, _) => d.parse().map_err(|_| SizeError::TooLarge)?,
    };
    let bytes = base
        .checked_pow(power.unwrap_or(0))
        .and_then(|unit| n.checked_mul(unit))
        .ok_or(SizeError::TooLarge)?;
    match u64::try_from(bytes) {
        Ok(0) => Err(SizeError::Zero),
        Ok(b) => Ok(b),
        _ => Err(SizeError::TooLarge),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binary_suffixes_alone_or_with_ib() {
        for (text, bytes) in [
            ("16", 16),
            ("1", 1),
            ("4K", 4096),
            ("4k", 4096),
            ("64KiB", 65536),
            ("64kiB", 65536),
            ("1M", 1 << 20),
            ("1m", 1 << 20),
            ("1MiB", 1 << 20),
            ("1G", 1 << 30),
            ("1GiB", 1 << 30),
            ("  8K", 8192),
            ("8K ", 8192),
            (" 8K\t", 8192),
            ("007", 7),
        ] {
            assert_eq!(parse_size(text), Ok(bytes), "{text:?}");
        }
    }

    /// GNU's `--block-size`: a letter followed by `B` is a power of 1000.
    #[test]
    fn decimal_suffixes_with_b() {
        for (text, bytes) in [
            ("64KB", 64_000),
            ("64kB", 64_000),
            ("64KD", 64_000),
            ("1MB", 1_000_000),
            ("1GB", 1_000_000_000),
        ] {
            assert_eq!(parse_size(text), Ok(bytes), "{text:?}");
        }
    }

    /// A suffix with no number stands for one of it, as in GNU.
    #[test]
    fn a_suffix_alone_is_one_of_it() {
        assert_eq!(parse_size("K"), Ok(1024));
        assert_eq!(parse_size("KB"), Ok(1000));
        assert_eq!(parse_size("MiB"), Ok(1 << 20));
    }

    #[test]
    fn displays_as_written_and_round_trips() {
        for (text, shown) in [
            ("16", "16"),
            ("4K", "4K"),
            ("1024", "1K"),
            ("1M", "1M"),
            ("1G", "1G"),
            ("1025", "1025"),
            ("4KB", "4000"),
        ] {
            let size: Size = text.parse().unwrap();
            assert_eq!(size.to_string(), shown);
            assert_eq!(shown.parse::<Size>().unwrap(), size);
        }
        assert_eq!(Size::kib(64).get(), 65536);
        assert_eq!(Size::bytes(0), None);
        assert_eq!(Size::bytes(1 << 30).map(Size::get), Some(1 << 30));
        assert_eq!(Size::bytes((1 << 30) + 1), None);
        assert_eq!(Size::MAX.to_string(), "1G");
    }

    #[test]
    fn junk_zero_and_overflow_are_refused_each_with_its_reason() {
        for (bad, why) in [
            ("", SizeError::NoNumber),
            (" ", SizeError::NoNumber),
            ("-1", SizeError::NoNumber),
            ("x", SizeError::NoNumber),
            ("0", SizeError::Zero),
            ("0K", SizeError::Zero),
            ("00", SizeError::Zero),
            ("1.5K", SizeError::Suffix(".5K".into())),
            ("12x", SizeError::Suffix("x".into())),
            ("7b", SizeError::Suffix("b".into())),
            ("7B", SizeError::Suffix("B".into())),
            ("4Ki", SizeError::Suffix("Ki".into())),
            ("4KIB", SizeError::Suffix("KIB".into())),
            ("4KiBx", SizeError::Suffix("KiBx".into())),
            ("4K x", SizeError::Suffix("K x".into())),
            ("1p", SizeError::Suffix("p".into())),
            ("2G", SizeError::TooLarge),
            ("1025M", SizeError::TooLarge),
            ("1T", SizeError::TooLarge),
            ("1Y", SizeError::TooLarge),
            ("99999999999999999999999", SizeError::TooLarge),
            ("18446744073709551615K", SizeError::TooLarge),
            (
                "999999999999999999999999999999999999999999Y",
                SizeError::TooLarge,
            ),
        ] {
            assert_eq!(parse_size(bad), Err(why), "{bad:?}");
        }
        assert_eq!(
            SizeError::Suffix("x".into()).to_string(),
            "'x' is no size suffix"
        );
        assert_eq!(SizeError::TooLarge.to_string(), "it is larger than 1G");
    }
}
