//! The blocks the threaded reader fills and the hashers read: heap memory,
//! or for whole huge pages' worth of bytes on Unix, a mapping of our own
//! ([`crate::sys::Region`]) that storage with latency can ask to be made of
//! huge pages ([`Buffer::advise_huge`]).

use std::ops::{Deref, DerefMut};

/// Bytes of a [`Buffer`] from which, in whole multiples, it is a mapping.
#[cfg(unix)]
const HUGE: usize = 2 << 20;

/// A block of bytes, zeroed when made.
pub(crate) struct Buffer(Store);

enum Store {
    Heap(Vec<u8>),
    #[cfg(unix)]
    Mapped(crate::sys::Region),
}

impl Buffer {
    /// `size` zero bytes, or `None` if memory cannot be had. Neither kind
    /// touches its pages until they are used: a 4 MiB block that holds a
    /// 30-byte file costs one page.
    pub(crate) fn zeroed(size: usize) -> Option<Buffer> {
        #[cfg(unix)]
        if size >= HUGE && size.is_multiple_of(HUGE) {
            return crate::sys::Region::zeroed(size).map(|r| Buffer(Store::Mapped(r)));
        }
        super::zeroed(size).map(Buffer::from)
    }

    /// Ask for the pages not yet touched to be huge pages (a hint: see
    /// [`crate::sys::Region::advise_huge`]); nothing for heap blocks.
    pub(crate) fn advise_huge(&self) {
        #[cfg(unix)]
        if let Store::Mapped(r) = &self.0 {
            r.advise_huge();
        }
    }
}

impl Buffer {
    /// The vector a heap block is (to reuse it as one); `None` for a
    /// mapped one.
    pub(crate) fn into_heap(self) -> Option<Vec<u8>> {
        match self.0 {
            Store::Heap(v) => Some(v),
            #[cfg(unix)]
            Store::Mapped(_) => None,
        }
    }
}

impl From<Vec<u8>> for Buffer {
    fn from(v: Vec<u8>) -> Buffer {
        Buffer(Store::Heap(v))
    }
}

impl Default for Buffer {
    fn default() -> Buffer {
        Buffer::from(Vec::new())
    }
}

impl Deref for Buffer {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match &self.0 {
            Store::Heap(v) => v,
            #[cfg(unix)]
            Store::Mapped(r) => r.as_slice(),
        }
    }
}

impl DerefMut for Buffer {
    fn deref_mut(&mut self) -> &mut [u8] {
        match &mut self.0 {
            Store::Heap(v) => v,
            #[cfg(unix)]
            Store::Mapped(r) => r.as_mut_slice(),
        }
    }
}

impl std::fmt::Debug for Buffer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Buffer({} bytes)", self.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Both kinds are zeroed, hold what is written, and keep their length;
    /// a mapped one is aligned so each 2 MiB can be a huge page.
    #[test]
    fn blocks_are_zeroed_and_writable() {
        for size in [1, 4096, 3 << 20, 4 << 20, 8 << 20] {
            let mut b = Buffer::zeroed(size).unwrap();
            assert_eq!(b.len(), size);
            assert!(b.iter().all(|&x| x == 0));
            b[size - 1] = 7;
            b.advise_huge();
            assert_eq!(b[size - 1], 7);
            #[cfg(unix)]
            if size.is_multiple_of(HUGE) {
                assert!((b.as_ptr() as usize).is_multiple_of(HUGE));
            }
        }
    }
}
