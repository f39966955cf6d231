//! The platform layer: every call fastsum makes to the operating system
//! beyond what std offers goes through this room, so that the rest of the
//! crate reads the same on every OS and the `unsafe` blocks that speak to
//! the kernel live here.
//!
//! Each function says what it gives; each OS gets the best it has, and
//! where one lacks a call the function degrades to an answer that is
//! slower or less informed but never wrong (no hint, "cannot tell", the
//! read path instead of a mapping):
//!
//! | what | Linux | other Unix (macOS, the BSDs) |
//! |---|---|---|
//! | is a byte in the page cache ([`cached`]) | `preadv2(RWF_NOWAIT)` | cannot tell |
//! | are a mapping's pages resident ([`resident`]) | `mincore` | `mincore` |
//! | does the client cache attributes ([`attributes_cached`]) | `fstatfs` magic | `fstatfs` type name |
//! | read-ahead hint ([`prefetch`]) | `posix_fadvise` | FreeBSD: `posix_fadvise`; macOS: `F_RDADVISE` |
//! | no access-time update when prefetching | `O_NOATIME` | none |
//! | a new file with no name yet ([`unnamed_file`]) | `O_TMPFILE` | none: `--update` writes a named temporary file |
//! | CPUs this process may use ([`affinity_cpus`]) | `sched_getaffinity` | std's count |
//! | one allocator arena ([`one_malloc_arena`]) | glibc's `mallopt` | none |
//! | huge pages for a block filled by pinning ([`Region::advise_huge`]) | `madvise(MADV_HUGEPAGE)` | none (small pages) |
//!
//! Signals, descriptors 0–2, terminal width, FIFOs and the SIGBUS guard of
//! mappings ([`sigbus`]) are POSIX and the same on every Unix.

#[cfg(unix)]
pub(crate) mod sigbus;
#[cfg(unix)]
mod unix;
#[cfg(unix)]
pub(crate) use unix::*;
