//! A finished digest, and hex: how the tools print one.

/// A finished digest: up to 64 bytes, no allocation; a BLAKE3 digest also
/// keeps its extendable output (b3sum's `--length`).
#[derive(Clone)]
pub struct Digest {
    bytes: [u8; 64],
    len: u8,
    xof: Option<Box<blake3::OutputReader>>,
}

impl PartialEq for Digest {
    fn eq(&self, other: &Digest) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl Eq for Digest {}

impl Digest {
    pub(crate) fn from_slice(s: &[u8]) -> Digest {
        let mut bytes = [0u8; 64];
        bytes[..s.len()].copy_from_slice(s);
        Digest {
            bytes,
            len: s.len() as u8,
            xof: None,
        }
    }

    /// A digest computed elsewhere (the multi-message engines): at most 64
    /// bytes.
    pub(crate) fn from_bytes(bytes: &[u8]) -> Digest {
        Digest::from_slice(&bytes[..bytes.len().min(64)])
    }

    pub(crate) fn blake3(h: &blake3::Hasher) -> Digest {
        let xof = h.finalize_xof();
        let mut d = Digest::from_slice(&[0u8; blake3::OUT_LEN]);
        xof.clone().fill(&mut d.bytes[..blake3::OUT_LEN]);
        d.xof = Some(Box::new(xof));
        d
    }

    /// The first `len` bytes of the output, handed to `piece` at most 64 at
    /// a time: BLAKE3's extendable output for any length; for the other
    /// algorithms (whose output cannot be extended) the digest, cut short.
    pub(crate) fn extended(
        &self,
        len: u64,
        mut piece: impl FnMut(&[u8]) -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        let Some(xof) = &self.xof else {
            let n = usize::try_from(len)
                .map_or(self.as_bytes().len(), |l| l.min(self.as_bytes().len()));
            return piece(&self.as_bytes()[..n]);
        };
        let mut reader = (**xof).clone();
        let mut block = [0u8; 64];
        let mut left = len;
        while left > 0 {
            let n = left.min(64) as usize;
            reader.fill(&mut block[..n]);
            piece(&block[..n])?;
            left -= n as u64;
        }
        Ok(())
    }

    /// The raw digest bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes[..usize::from(self.len)]
    }

    /// Lower-case hexadecimal, as every GNU tool prints it.
    pub fn to_hex(&self) -> String {
        let mut hex = Vec::with_capacity(self.as_bytes().len() * 2);
        push_hex(&mut hex, self.as_bytes());
        // hex digits are ASCII
        String::from_utf8(hex).unwrap_or_default()
    }
}

impl std::fmt::Debug for Digest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Digest({})", self.to_hex())
    }
}

/// Append `bytes` in lower-case hexadecimal (a digest as the tools print it).
pub(crate) fn push_hex(out: &mut Vec<u8>, bytes: &[u8]) {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    for &b in bytes {
        out.push(DIGITS[usize::from(b >> 4)]);
        out.push(DIGITS[usize::from(b & 15)]);
    }
}
