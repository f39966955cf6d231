//! SIZE arguments (`--chunk`, `--readahead`): a whole number of bytes with an
//! optional binary suffix. K, M and G mean 1024, 1024² and 1024³ (as in
//! ripgrep and GNU), never powers of 1000.

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

/// Why a SIZE string was rejected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SizeError {
    original: String,
    reason: &'static str,
}

impl fmt::Display for SizeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "invalid size '{}': {} (expected a number of bytes from 1 to 1G, \
             with an optional suffix K, M or G, e.g. 16, 4K, 1M)",
            self.original, self.reason
        )
    }
}

impl std::error::Error for SizeError {}

/// Parse a SIZE: `16`, `4K`, `64k`, `1M`, `1MiB`, `2g`.
fn parse_size(s: &str) -> Result<usize, SizeError> {
    let err = |reason| SizeError {
        original: s.to_string(),
        reason,
    };
    let t = s.trim();
    let digits_end = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (digits, suffix) = t.split_at(digits_end);
    if digits.is_empty() {
        return Err(err("it does not start with a number"));
    }
    let shift = match suffix.to_ascii_lowercase().as_str() {
        "" | "b" => 0,
        "k" | "kib" => 10,
        "m" | "mib" => 20,
        "g" | "gib" => 30,
        _ => return Err(err("unknown suffix")),
    };
    let n: usize = digits.parse().map_err(|_| err("the number is too large"))?;
    let bytes = n
        .checked_mul(1usize << shift)
        .ok_or_else(|| err("the number is too large"))?;
    if bytes == 0 {
        return Err(err("it must be at least 1 byte"));
    }
    if bytes > MAX_SIZE {
        return Err(err("it is larger than 1G"));
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_plain_and_suffixed() {
        assert_eq!(parse_size("16"), Ok(16));
        assert_eq!(parse_size("1"), Ok(1));
        assert_eq!(parse_size("4K"), Ok(4096));
        assert_eq!(parse_size("4k"), Ok(4096));
        assert_eq!(parse_size("64KiB"), Ok(65536));
        assert_eq!(parse_size("1M"), Ok(1 << 20));
        assert_eq!(parse_size("1mib"), Ok(1 << 20));
        assert_eq!(parse_size("1G"), Ok(1 << 30));
        assert_eq!(parse_size("7b"), Ok(7));
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
        ] {
            let size: Size = text.parse().unwrap();
            assert_eq!(size.to_string(), shown);
            assert_eq!(shown.parse::<Size>().unwrap(), size);
        }
        assert_eq!(Size::kib(64).get(), 65536);
        assert_eq!(Size::bytes(0), None);
        assert_eq!(Size::bytes(1 << 30).map(Size::get), Some(1 << 30));
        assert_eq!(Size::bytes((1 << 30) + 1), None);
    }

    #[test]
    fn rejects_bad_sizes() {
        for bad in [
            "",
            "0",
            "0K",
            "-1",
            "K",
            "1.5K",
            "12x",
            "1T",
            "2G",
            "1025M",
            "99999999999999999999999",
            "18446744073709551615K",
            " ",
        ] {
            let e = parse_size(bad).expect_err(bad);
            assert!(e.to_string().contains("invalid size"), "{e}");
        }
    }
}
