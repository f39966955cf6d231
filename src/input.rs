//! What is hashed: a named file or standard input, and how an I/O error on
//! it is worded (GNU's strerror text, without Rust's "(os error N)").

use std::ffi::OsString;
use std::fs::File;
use std::io::{self, Read};
use std::os::fd::AsFd;
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;

/// One thing to hash.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Input {
    /// Standard input, named `-`.
    Stdin,
    /// A file by path.
    Path(PathBuf),
}

impl Input {
    /// `-` is standard input, anything else a path.
    pub fn from_arg(arg: OsString) -> Input {
        if arg.as_bytes() == b"-" {
            Input::Stdin
        } else {
            Input::Path(PathBuf::from(arg))
        }
    }

    /// The name as printed in checksum lines: raw bytes, never lossy.
    pub fn name(&self) -> &[u8] {
        match self {
            Input::Stdin => b"-",
            Input::Path(p) => p.as_os_str().as_bytes(),
        }
    }

    /// Is this a stream that readers share, so that two reading it at once
    /// would split its bytes between them (standard input; a FIFO, which is
    /// also what /dev/stdin is on a pipe)? Such inputs are read one after
    /// another, as GNU reads them.
    pub fn is_shared_stream(&self) -> bool {
        use std::os::unix::fs::FileTypeExt;
        match self {
            Input::Stdin => true,
            Input::Path(p) => std::fs::metadata(p).is_ok_and(|m| m.file_type().is_fifo()),
        }
    }

    /// Open for reading.
    pub fn open(&self) -> io::Result<Source> {
        match self {
            Input::Stdin if crate::report::stdin_was_closed() => {
                Err(io::Error::from_raw_os_error(libc::EBADF))
            }
            // Not `io::stdin()`: its 8 KiB buffer would turn `-m sync --chunk 16`
            // into 8 KiB read calls (and `--stats` would count the small ones).
            // A duplicate of descriptor 0 shares its offset and reads unbuffered.
            Input::Stdin => {
                let fd = io::stdin().as_fd().try_clone_to_owned()?;
                Ok(Source::Stdin(File::from(fd)))
            }
            Input::Path(p) => File::open(p).map(Source::File),
        }
    }
}

/// An open input.
#[derive(Debug)]
pub enum Source {
    /// Standard input (a duplicate of descriptor 0, read unbuffered).
    Stdin(File),
    /// A file (regular or not: FIFOs, /proc files, devices are streamed to EOF).
    File(File),
}

impl Source {
    /// The size stat reports for a regular file: a hint for planning reads,
    /// never trusted for correctness (files grow and shrink while read).
    pub fn size_hint(&self) -> Option<u64> {
        match self {
            Source::File(f) => f.metadata().ok().filter(|m| m.is_file()).map(|m| m.len()),
            Source::Stdin(_) => None,
        }
    }
}

impl Read for Source {
    #[inline]
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Source::Stdin(s) => s.read(buf),
            Source::File(f) => f.read(buf),
        }
    }
}

/// An I/O error as GNU words it: `No such file or directory`, not
/// `No such file or directory (os error 2)`.
pub fn error_text(e: &io::Error) -> String {
    let s = e.to_string();
    match s.rfind(" (os error ") {
        Some(i) if s.ends_with(')') => s[..i].to_string(),
        _ => s,
    }
}

/// Read into `buf`, retrying reads interrupted by a signal.
#[inline]
pub fn read_retry(r: &mut impl Read, buf: &mut [u8]) -> io::Result<usize> {
    loop {
        match r.read(buf) {
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            other => return other,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_text_strips_os_error() {
        let e = io::Error::from_raw_os_error(libc::ENOENT);
        assert_eq!(error_text(&e), "No such file or directory");
        let e = io::Error::from_raw_os_error(libc::EISDIR);
        assert_eq!(error_text(&e), "Is a directory");
        let e = io::Error::other("custom");
        assert_eq!(error_text(&e), "custom");
    }

    #[test]
    fn dash_is_stdin() {
        assert_eq!(Input::from_arg("-".into()), Input::Stdin);
        assert_eq!(Input::from_arg("-x".into()).name(), b"-x");
        assert_eq!(Input::Stdin.name(), b"-");
    }
}
