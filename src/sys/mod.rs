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
//! | what | Linux | other Unix (macOS, the BSDs) | Windows |
//! |---|---|---|---|
//! | is a byte in the page cache ([`cached`]) | `preadv2(RWF_NOWAIT)` | cannot tell | cannot tell |
//! | are a mapping's pages resident ([`resident`]) | `mincore` | `mincore` | cannot tell (no mapping of cached files only) |
//! | read bytes only if cached ([`read_exact_cached_at`]) | `preadv2(RWF_NOWAIT)` | cannot tell | cannot tell |
//! | a file system in memory ([`in_memory`]) | `fstatfs` magic (tmpfs, ramfs) | cannot tell | cannot tell |
//! | does the client cache attributes ([`attributes_cached`]) | `fstatfs` magic, once per device | `fstatfs` type name, once per device | cannot tell |
//! | a file's stamp as the server says it now ([`fresh_stamp`]) | `statx(AT_STATX_FORCE_SYNC)`, then `fstat` | `fstat` | its metadata (no cache to pass) |
//! | read-ahead hint ([`prefetch`]) | `posix_fadvise` | FreeBSD: `posix_fadvise`; macOS: `F_RDADVISE` | `FILE_FLAG_SEQUENTIAL_SCAN` at open ([`open_input`]); no prefetch |
//! | no read-ahead for a small far file read whole ([`read_as_asked`]) | `posix_fadvise(POSIX_FADV_RANDOM)` | FreeBSD: `posix_fadvise`; macOS: none | none |
//! | no access-time update when prefetching | `O_NOATIME` | none | none |
//! | a new file with no name yet ([`unnamed_file`]) | `O_TMPFILE` | none: `--update` writes a named temporary file | none: a named temporary file |
//! | how long this thread waited for a core ([`run_queue_wait`]; the storage observer's "busy CPU, not slow storage") | `/proc/thread-self/schedstat` | cannot tell | cannot tell |
//! | the limit on open descriptors ([`open_files_limit`]) | `getrlimit(RLIMIT_NOFILE)` | `getrlimit(RLIMIT_NOFILE)` | none |
//! | a file's device ([`device`]) | `st_dev` | `st_dev` | one for all |
//! | CPUs this process may use ([`affinity_cpus`]) | `sched_getaffinity` | std's count | std's count |
//! | one allocator arena ([`one_malloc_arena`]) | glibc's `mallopt` | none | none |
//! | huge pages for a block filled by pinning ([`Region::advise_huge`]) | `madvise(MADV_HUGEPAGE)` | none (small pages) | none (small pages) |
//! | a name opened as the file of that name ([`file_path`]) | the name | the name | its verbatim path (`\\?\C:\…`): never a device (`NUL`, `aux.txt`) |
//! | a file's identity ([`FileId`]; the walk's loop guard) | device and inode | device and inode | volume serial and file index |
//! | changed while hashed ([`Stamp`]) | size, mtime, ctime, device, inode | the same | size, last-write time |
//! | shrunk under a mapping ([`sigbus`]) | SIGBUS caught | SIGBUS caught | cannot happen: Windows refuses to truncate a mapped file |
//! | libcrypto ([`open_library`]) | `dlopen` | `dlopen` | not looked for: the crates hash |
//! | a name from a check line's bytes ([`os_string`]) | any bytes | any bytes | WTF-8 (UTF-8, lone surrogates), else no name |
//! | a name in a digest line ([`printed_name`]) | as it is | as it is | `\` as `/`, not Unicode as U+FFFD (b3sum's way) |
//!
//! Signals, descriptors 0–2, terminal width and FIFOs are POSIX and the
//! same on every Unix. Windows has no signals: the progress line's cleanup
//! runs from a console control handler (Ctrl-C, Ctrl-Break, the console
//! closing), a closed pipe is a write error, its standard handles need no
//! reopening, and its terminal width is its console window's.

#[cfg(unix)]
pub(crate) mod sigbus;
#[cfg(unix)]
mod unix;
#[cfg(unix)]
pub(crate) use unix::*;
#[cfg(any(windows, test))]
mod names;
#[cfg(windows)]
mod windows;
#[cfg(windows)]
pub(crate) use windows::*;
