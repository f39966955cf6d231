//! cksum's CRC and sum's checksums, which print their own line: the value,
//! the size, and the name when FILEs were given, as GNU writes them.

use std::io;

use crate::algo::Legacy as Sum;
use crate::config::{LineEnd, LineFormat, Names};
use crate::printer::Printer;
use crate::read::{Hashed, Task};

use super::Writer;
use super::gnu::{Line, end_byte, format_line};

/// The lines of cksum's CRC (and CRC-32b) and of sum's checksums.
pub(crate) struct Legacy {
    /// The line ends with the name: FILEs were given.
    pub(crate) named: bool,
    pub(crate) end: LineEnd,
}

impl Writer for Legacy {
    fn digests(&self, p: &mut Printer<'_>, task: &Task<()>, hashed: &Hashed) -> io::Result<()> {
        for (algo, digest) in task.algos.as_slice().iter().zip(&hashed.digests) {
            // (`cli` chooses this style only for these checksums, alone;
            // another algorithm would get GNU's untagged line)
            let Some(sum) = algo.legacy() else {
                let line = Line {
                    format: LineFormat::Gnu { binary: false },
                    end: self.end,
                    names: Names::Escaped,
                };
                let hex = digest.to_hex();
                p.line(|out| format_line(out, &algo.tag(), &hex, task.input.name(), line))?;
                continue;
            };
            let value = digest
                .as_bytes()
                .iter()
                .fold(0u32, |v, &b| (v << 8) | u32::from(b));
            let name = self.named.then_some(task.input.name());
            p.line(|line| legacy_line(line, sum, value, hashed.size, name, self.end))?;
        }
        Ok(())
    }
}

/// The line of a checksum that prints its own (`cksum`'s CRC, `sum`'s),
/// as GNU writes it: the value, the size (bytes for the CRC; KiB for BSD's,
/// 512-byte blocks for System V's, rounded up), and the name, as it is
/// (never escaped), when FILEs were given.
pub(crate) fn legacy_line(
    out: &mut Vec<u8>,
    legacy: Sum,
    value: u32,
    size: u64,
    name: Option<&[u8]>,
    end: LineEnd,
) {
    let text = match legacy {
        Sum::Crc | Sum::Crc32b => format!("{value} {size}"),
        Sum::Bsd => format!("{value:05} {:>5}", size.div_ceil(1024)),
        Sum::Sysv => format!("{value} {}", size.div_ceil(512)),
    };
    out.extend_from_slice(text.as_bytes());
    if let Some(name) = name {
        out.push(b' ');
        out.extend_from_slice(name);
    }
    out.push(end_byte(end));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What GNU 9.1's cksum, sum -r and sum -s print.
    #[test]
    fn legacy_lines() {
        let line = |l, v, size, name: Option<&[u8]>| {
            let mut out = Vec::new();
            legacy_line(&mut out, l, v, size, name, LineEnd::Newline);
            out
        };
        assert_eq!(
            line(Sum::Crc, 3015617425, 6, Some(b"h1")),
            b"3015617425 6 h1\n"
        );
        assert_eq!(line(Sum::Bsd, 121, 1, Some(b"b\\s")), b"00121     1 b\\s\n");
        assert_eq!(line(Sum::Bsd, 32286, 100_000_000, None), b"32286 97657\n");
        assert_eq!(
            line(Sum::Sysv, 20650, 100_000_000, Some(b"n\nl")),
            b"20650 195313 n\nl\n"
        );
        assert_eq!(line(Sum::Sysv, 0, 0, None), b"0 0\n");
    }
}
