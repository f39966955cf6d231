//! S3's digests of a multipart upload, over parts of a fixed size: the
//! ETag, `MD5(MD5(p1) ‖ … ‖ MD5(pN))` with `-N`, and the composite
//! checksums, `H(raw(c1) ‖ … ‖ raw(cN))` with `-N` (SHA-1, SHA-256,
//! CRC-32, CRC-32C: the CRCs' raw bytes big-endian). An input of one part
//! or none is a single PUT: its digest is the plain one, without `-N`.
//!
//! A wrapper around the base algorithm's [`Hasher`]: it is fed as any
//! hasher is, by every read route (blocks, chunks, a mapping, several
//! algorithms on shared blocks), so a part boundary may fall anywhere in
//! an update: the update is split there.
//!
//! That is how an input read from start to end is hashed. Where the parts
//! of one input can be read side by side (a mapping, reads at offsets:
//! `read::parts`), its full parts go instead through the lane engines,
//! several at once ([`lanes`]), and are composed as here.

pub(crate) mod lanes;

use crate::algo::{Digest, Hasher, Parts};

/// A running digest over parts.
#[derive(Clone)]
pub struct Composer {
    /// The current part's hash.
    part: Hasher,
    /// The hash of the finished parts' digests.
    outer: Hasher,
    /// What is composed, over parts of which size.
    parts: Parts,
    /// Bytes the current part still takes.
    left: u64,
    /// Parts finished (their digests fed to `outer`).
    done: u64,
}

impl Composer {
    /// A fresh composition of `parts`.
    pub(crate) fn new(parts: Parts) -> Composer {
        let base = parts.of.algorithm();
        Composer {
            part: Hasher::new(base),
            outer: Hasher::new(base),
            parts,
            left: parts.size.bytes(),
            done: 0,
        }
    }

    /// Feed `data`, split where parts end.
    pub(crate) fn update(&mut self, mut data: &[u8]) {
        while !data.is_empty() {
            if self.left == 0 {
                // a full part, and more bytes follow: it is finished
                self.finish_part();
            }
            let n = usize::try_from(self.left).map_or(data.len(), |left| left.min(data.len()));
            self.part.update(&data[..n]);
            self.left -= n as u64;
            data = &data[n..];
        }
    }

    /// The current part's digest into the outer hash; a fresh part.
    fn finish_part(&mut self) {
        let fresh = Hasher::new(self.parts.of.algorithm());
        let part = std::mem::replace(&mut self.part, fresh).finalize();
        self.outer.update(part.as_bytes());
        self.done += 1;
        self.left = self.parts.size.bytes();
    }

    /// The composed digest with its count of parts; for one part or none,
    /// the plain digest (a single PUT).
    pub(crate) fn finalize(mut self) -> Digest {
        if self.done == 0 {
            return self.part.finalize();
        }
        // the last part has a byte at least: it was started by one
        self.finish_part();
        Digest::composed(self.outer.finalize().as_bytes(), self.done)
    }
}
