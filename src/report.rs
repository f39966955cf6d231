//! Messages on stderr and the exit status.
//!
//! Every message is prefixed with the invoked program name, as GNU does
//! (`md5sum: x: No such file or directory` under the md5sum name). Errors on
//! one input are reported and the run goes on; `Reporter` remembers that one
//! happened, which decides the exit status at the end.

use std::io;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::stdio::write_stderr;

/// How a run ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    /// Everything was hashed / verified.
    Ok,
    /// Some input failed, a checksum did not match, or a write failed.
    Failure,
    /// A usage error (2, or 1 under a GNU tool's name).
    Usage(u8),
    /// Check mode lost its stdout to a closed pipe before it verified every
    /// line: die of SIGPIPE as GNU does, so `set -o pipefail` sees it.
    BrokenPipe,
}

impl Exit {
    /// The process exit status. For [`Exit::BrokenPipe`] the process dies
    /// of SIGPIPE here and the status is only what a shell would show.
    pub fn code(self) -> i32 {
        match self {
            Exit::Ok => 0,
            Exit::Failure => 1,
            Exit::Usage(c) => i32::from(c),
            // (the status returned only if the signal is blocked: the one
            // a shell gives that death)
            Exit::BrokenPipe => crate::sys::die_of_sigpipe(),
        }
    }
}

/// Writes messages to stderr and remembers whether anything failed.
#[derive(Debug)]
pub(crate) struct Reporter {
    program: &'static str,
    failed: AtomicBool,
}

impl Reporter {
    /// A reporter whose messages start with `program: `.
    pub(crate) fn new(program: &'static str) -> Reporter {
        Reporter {
            program,
            failed: AtomicBool::new(false),
        }
    }

    /// Print `program: msg` on stderr.
    pub(crate) fn message(&self, msg: &str) {
        let mut line = Vec::with_capacity(self.program.len() + msg.len() + 3);
        line.extend_from_slice(self.program.as_bytes());
        line.extend_from_slice(b": ");
        line.extend_from_slice(msg.as_bytes());
        line.push(b'\n');
        write_stderr(&line);
    }

    /// Write `text` on stderr as it is (xxhsum's messages, which carry no
    /// program name).
    pub(crate) fn raw(&self, text: &[u8]) {
        write_stderr(text);
    }

    /// Report an error and remember that the run failed.
    pub(crate) fn error(&self, msg: &str) {
        self.message(msg);
        self.fail();
    }

    /// Remember that the run failed, without a message.
    pub(crate) fn fail(&self) {
        self.failed.store(true, Ordering::Relaxed);
    }

    /// Has anything failed so far?
    pub(crate) fn has_failed(&self) -> bool {
        self.failed.load(Ordering::Relaxed)
    }

    /// The status for a finished run.
    pub(crate) fn exit(&self) -> Exit {
        if self.failed.load(Ordering::Relaxed) {
            Exit::Failure
        } else {
            Exit::Ok
        }
    }
}

/// An I/O error as GNU words it: `No such file or directory`, not
/// `No such file or directory (os error 2)`.
pub(crate) fn error_text(e: &io::Error) -> String {
    let s = e.to_string();
    match s.rfind(" (os error ") {
        Some(i) if s.ends_with(')') => s[..i].to_string(),
        _ => s,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (GNU's words are the Unix ones: real errors of the OS, not numbers)
    #[cfg(unix)]
    #[test]
    fn error_text_strips_os_error() {
        let dir = tempfile::tempdir().unwrap();
        let e = std::fs::File::open(dir.path().join("none")).unwrap_err();
        assert!(e.raw_os_error().is_some());
        assert_eq!(error_text(&e), "No such file or directory");
        let e = std::fs::read(dir.path()).unwrap_err();
        assert_eq!(error_text(&e), "Is a directory");
        let e = io::Error::other("custom");
        assert_eq!(error_text(&e), "custom");
    }

    #[test]
    fn an_error_decides_the_exit_status() {
        let rep = Reporter::new("fastsum");
        assert_eq!(rep.exit(), Exit::Ok);
        rep.fail();
        assert_eq!(rep.exit(), Exit::Failure);
    }
}
