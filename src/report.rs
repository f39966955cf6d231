//! Messages on stderr and the exit status.
//!
//! Every message is prefixed with the invoked program name, as GNU does
//! (`md5sum: x: No such file or directory` under the md5sum name). Errors on
//! one input are reported and the run goes on; `Reporter` remembers that one
//! happened, which decides the exit status at the end.

use std::io::{self, Write};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};

/// The exit statuses fastsum uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    /// Everything was hashed / verified.
    Ok,
    /// Some input failed, a checksum did not match, or a write failed.
    Failure,
    /// A usage error (2, or 1 under a GNU tool's name).
    Usage(u8),
}

impl From<Exit> for ExitCode {
    fn from(e: Exit) -> ExitCode {
        match e {
            Exit::Ok => ExitCode::SUCCESS,
            Exit::Failure => ExitCode::from(1),
            Exit::Usage(c) => ExitCode::from(c),
        }
    }
}

/// Writes messages to stderr and remembers whether anything failed.
#[derive(Debug)]
pub struct Reporter {
    program: String,
    failed: AtomicBool,
}

impl Reporter {
    /// A reporter whose messages start with `program: `.
    pub fn new(program: &str) -> Reporter {
        Reporter {
            program: program.to_string(),
            failed: AtomicBool::new(false),
        }
    }

    /// The program name used as prefix.
    pub fn program(&self) -> &str {
        &self.program
    }

    /// Print `program: msg` on stderr (errors writing to stderr are ignored:
    /// there is nowhere left to report them).
    pub fn message(&self, msg: &str) {
        let mut line = Vec::with_capacity(self.program.len() + msg.len() + 3);
        line.extend_from_slice(self.program.as_bytes());
        line.extend_from_slice(b": ");
        line.extend_from_slice(msg.as_bytes());
        line.push(b'\n');
        let _ = io::stderr().lock().write_all(&line);
    }

    /// Report an error and remember that the run failed.
    pub fn error(&self, msg: &str) {
        self.message(msg);
        self.fail();
    }

    /// Remember that the run failed, without a message.
    pub fn fail(&self) {
        self.failed.store(true, Ordering::Relaxed);
    }

    /// Did anything fail?
    pub fn failed(&self) -> bool {
        self.failed.load(Ordering::Relaxed)
    }

    /// A usage error: the message, GNU's hint line, and the status to exit with.
    pub fn usage_error(&self, msg: &str, code: u8) -> Exit {
        self.message(msg);
        let hint = format!("Try '{} --help' for more information.\n", self.program);
        let _ = io::stderr().lock().write_all(hint.as_bytes());
        Exit::Usage(code)
    }

    /// The status for a finished run.
    pub fn exit(&self) -> Exit {
        if self.failed() {
            Exit::Failure
        } else {
            Exit::Ok
        }
    }
}

/// Is this a closed-pipe error on stdout? Then fastsum ends quietly.
pub fn is_broken_pipe(e: &io::Error) -> bool {
    e.kind() == io::ErrorKind::BrokenPipe
}

/// Write errors on stdout handled as GNU handles them: a failed write
/// (other than a closed pipe) is remembered, later output is dropped, and
/// the run goes on, so the remaining inputs are still read and their errors
/// reported; the write error is reported once, at the end. A closed pipe is
/// passed on at once: the run stops, quietly.
#[derive(Debug)]
pub struct DeferredWriteError<W> {
    inner: W,
    error: Option<io::Error>,
}

impl<W: Write> DeferredWriteError<W> {
    /// Wrap `inner`.
    pub fn new(inner: W) -> DeferredWriteError<W> {
        DeferredWriteError { inner, error: None }
    }

    /// The first write error, if any (and forget it).
    pub fn take_error(&mut self) -> io::Result<()> {
        self.error.take().map_or(Ok(()), Err)
    }

    /// Keep `r`'s error for the end, unless it is a closed pipe.
    fn defer<T>(&mut self, r: io::Result<T>, ok: T) -> io::Result<T> {
        match r {
            Err(e) if !is_broken_pipe(&e) && e.kind() != io::ErrorKind::Interrupted => {
                self.error = Some(e);
                Ok(ok)
            }
            r => r,
        }
    }
}

impl<W: Write> Write for DeferredWriteError<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.error.is_some() {
            return Ok(buf.len());
        }
        let r = self.inner.write(buf);
        self.defer(r, buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        if self.error.is_some() {
            return Ok(());
        }
        let r = self.inner.flush();
        self.defer(r, ())
    }
}

/// Standard output, reporting a closed descriptor (`>&-`) as GNU does.
///
/// GNU tools started with descriptor 1 closed fail with "write error: Bad
/// file descriptor" once they have something to write. A Rust program never
/// sees the closed descriptor: the runtime reopens a closed 0, 1 or 2 on
/// /dev/null before `main`. So an ELF initialiser, which runs before that,
/// records which were closed (see `record_closed_std_fds`).
#[derive(Debug)]
pub struct Stdout {
    inner: io::StdoutLock<'static>,
    closed: bool,
}

impl Stdout {
    /// Lock stdout and note whether descriptor 1 is open.
    pub fn new() -> Stdout {
        let closed = stdout_was_closed();
        Stdout {
            inner: io::stdout().lock(),
            closed,
        }
    }
}

impl Default for Stdout {
    fn default() -> Self {
        Stdout::new()
    }
}

impl Write for Stdout {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.closed {
            return Err(io::Error::from_raw_os_error(libc::EBADF));
        }
        crate::progress::suspend(|| self.inner.write(buf))
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// Was descriptor 1 closed when the process started? (See [`Stdout`].)
fn stdout_was_closed() -> bool {
    STD_FDS_CLOSED.load(Ordering::Relaxed) & 2 != 0
}

/// Was standard input closed when the process started (`<&-`)? Then it
/// must not be read as an empty stream: GNU reports "Bad file descriptor".
pub fn stdin_was_closed() -> bool {
    STD_FDS_CLOSED.load(Ordering::Relaxed) & 1 != 0
}

/// Which of descriptors 0 and 1 were closed at startup (bit 0: stdin,
/// bit 1: stdout), recorded by [`record_closed_std_fds`].
static STD_FDS_CLOSED: AtomicU8 = AtomicU8::new(0);

/// Record which standard descriptors are closed, before Rust's runtime
/// replaces closed ones with /dev/null (it does so in `main`'s prologue,
/// after the ELF initialisers have run). Only `fcntl`, which is safe to call
/// that early, is used.
extern "C" fn record_closed_std_fds() {
    let mut closed = 0u8;
    for (fd, bit) in [(0, 1u8), (1, 2u8)] {
        // SAFETY: F_GETFD only queries a descriptor's flags; no memory is involved.
        if unsafe { libc::fcntl(fd, libc::F_GETFD) } == -1 {
            closed |= bit;
        }
    }
    STD_FDS_CLOSED.store(closed, Ordering::Relaxed);
}

/// Runs [`record_closed_std_fds`] as an ELF initialiser (`.init_array`),
/// i.e. before `main` and before the runtime touches descriptors 0 to 2.
#[cfg(target_os = "linux")]
#[used]
#[unsafe(link_section = ".init_array")]
static RECORD_CLOSED_STD_FDS: extern "C" fn() = record_closed_std_fds;

#[cfg(test)]
mod tests {
    use super::*;

    /// A writer that accepts `room` bytes, then fails every call with `errno`.
    struct Failing {
        room: usize,
        errno: i32,
        calls: usize,
    }

    impl Write for Failing {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.calls += 1;
            if self.room == 0 {
                return Err(io::Error::from_raw_os_error(self.errno));
            }
            let n = buf.len().min(self.room);
            self.room -= n;
            Ok(n)
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn write_error_is_kept_for_the_end_and_later_output_dropped() {
        let mut w = DeferredWriteError::new(Failing {
            room: 4,
            errno: libc::ENOSPC,
            calls: 0,
        });
        w.write_all(b"abcdef").unwrap();
        w.write_all(b"more").unwrap();
        w.flush().unwrap();
        // one call that fit, one that failed, none after
        assert_eq!(w.inner.calls, 2);
        let e = w.take_error().unwrap_err();
        assert_eq!(e.raw_os_error(), Some(libc::ENOSPC));
        assert!(w.take_error().is_ok());
    }

    #[test]
    fn closed_pipe_is_passed_on_at_once() {
        let mut w = DeferredWriteError::new(Failing {
            room: 0,
            errno: libc::EPIPE,
            calls: 0,
        });
        assert!(is_broken_pipe(&w.write_all(b"x").unwrap_err()));
        assert!(w.take_error().is_ok());
    }
}
