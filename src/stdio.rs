//! The standard streams, in one home at the bottom of the crate: stdout as
//! GNU treats it (a closed descriptor, write errors, closed pipes), the
//! record of which descriptors were closed at startup, and the status line
//! (the progress bar) that every write to the terminal must step around.
//!
//! Everything above writes through here: checksum lines through [`Stdout`],
//! messages through [`write_stderr`], so a progress bar is erased before any
//! line reaches the terminal and redrawn after.

use std::io::{self, IsTerminal, Write};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicUsize, Ordering};

use indicatif::ProgressBar;

/// Is this a closed-pipe error on stdout?
pub(crate) fn is_broken_pipe(e: &io::Error) -> bool {
    e.kind() == io::ErrorKind::BrokenPipe
}

/// What to do after a write error on stdout other than a closed pipe.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum OnWriteError {
    /// Remember it, drop later output and go on, so the remaining inputs are
    /// still read and their errors reported; the error is reported at the end
    /// (GNU's hash mode).
    GoOn,
    /// Stop the run at once (check mode, as GNU 9.10: a verifier whose
    /// output is lost must not read on forever).
    Stop,
}

/// Stdout's write errors handled as GNU handles them (see [`OnWriteError`]).
/// A closed pipe is always passed on at once: the run stops.
#[derive(Debug)]
pub(crate) struct CheckedWriter<W> {
    inner: W,
    policy: OnWriteError,
    error: Option<io::Error>,
}

impl<W: Write> CheckedWriter<W> {
    pub(crate) fn new(inner: W, policy: OnWriteError) -> CheckedWriter<W> {
        CheckedWriter {
            inner,
            policy,
            error: None,
        }
    }

    /// The first write error kept for the end, if any (and forget it).
    pub(crate) fn take_error(&mut self) -> io::Result<()> {
        self.error.take().map_or(Ok(()), Err)
    }

    fn check<T>(&mut self, r: io::Result<T>, ok: T) -> io::Result<T> {
        match r {
            Err(e)
                if self.policy == OnWriteError::GoOn
                    && !is_broken_pipe(&e)
                    && e.kind() != io::ErrorKind::Interrupted =>
            {
                self.error = Some(e);
                Ok(ok)
            }
            r => r,
        }
    }
}

impl<W: Write> Write for CheckedWriter<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.error.is_some() {
            return Ok(buf.len());
        }
        let r = self.inner.write(buf);
        self.check(r, buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        if self.error.is_some() {
            return Ok(());
        }
        let r = self.inner.flush();
        self.check(r, ())
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
pub(crate) struct Stdout {
    inner: io::StdoutLock<'static>,
    closed: bool,
    /// Is it a terminal, where the status line must be out of the way of
    /// each write? (Written to a file or a pipe, the line stays drawn.)
    terminal: bool,
}

impl Stdout {
    /// Lock stdout and note whether descriptor 1 is open.
    pub(crate) fn new() -> Stdout {
        let inner = io::stdout().lock();
        Stdout {
            terminal: inner.is_terminal(),
            inner,
            closed: STD_FDS_CLOSED.load(Ordering::Relaxed) & 2 != 0,
        }
    }
}

impl Write for Stdout {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.closed {
            return Err(crate::sys::closed_descriptor());
        }
        if self.terminal {
            with_status_hidden(|| self.inner.write(buf))
        } else {
            self.inner.write(buf)
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        // a closed stdout fails only when written to, as GNU's does
        self.inner.flush()
    }
}

/// Close standard output at the end of a run, as GNU's `close_stdout` does:
/// a file system may report a failed write only then (NFS), and that must
/// fail the run. Everything must have been flushed before.
pub(crate) fn close_stdout() -> io::Result<()> {
    if STD_FDS_CLOSED.load(Ordering::Relaxed) & 2 != 0 {
        return Ok(());
    }
    crate::sys::close_stdout()
}

/// Write `bytes` to stderr with the status line out of the way. Errors are
/// ignored: there is nowhere left to report them.
pub(crate) fn write_stderr(bytes: &[u8]) {
    with_status_hidden(|| {
        // a stderr closed at startup is /dev/null now: the write would fail
        let written = !stderr_was_closed() && io::stderr().lock().write_all(bytes).is_ok();
        if !written {
            STDERR_FAILED.store(true, Ordering::Relaxed);
        }
    });
}

/// Did a message fail to reach stderr (`2>&-`, `2>/dev/full`)? Then the
/// run fails at its end, as GNU's `close_stdout` makes it fail.
pub(crate) fn stderr_failed() -> bool {
    STDERR_FAILED.load(Ordering::Relaxed)
}

/// Set when a write to stderr failed.
static STDERR_FAILED: AtomicBool = AtomicBool::new(false);

/// Was standard error closed when the process started (`2>&-`)?
fn stderr_was_closed() -> bool {
    STD_FDS_CLOSED.load(Ordering::Relaxed) & 4 != 0
}

/// Was standard input closed when the process started (`<&-`)? Then it
/// must not be read as an empty stream: GNU reports "Bad file descriptor".
pub(crate) fn stdin_was_closed() -> bool {
    STD_FDS_CLOSED.load(Ordering::Relaxed) & 1 != 0
}

/// Which of descriptors 0 to 2 were closed at startup (bit 0: stdin,
/// bit 1: stdout, bit 2: stderr), recorded by [`record_closed_std_fds`].
static STD_FDS_CLOSED: AtomicU8 = AtomicU8::new(0);

/// Record which standard descriptors are closed, before Rust's runtime
/// replaces closed ones with /dev/null (it does so in `main`'s prologue,
/// after the ELF initialisers have run). Only `fcntl`, which is safe to call
/// that early, is used.
#[cfg(target_os = "linux")]
extern "C" fn record_closed_std_fds() {
    STD_FDS_CLOSED.store(crate::sys::closed_std_fds(), Ordering::Relaxed);
}

/// Runs [`record_closed_std_fds`] as an ELF initialiser (`.init_array`),
/// i.e. before `main` and before the runtime touches descriptors 0 to 2.
#[cfg(target_os = "linux")]
#[used]
#[unsafe(link_section = ".init_array")]
static RECORD_CLOSED_STD_FDS: extern "C" fn() = record_closed_std_fds;

/// What the binary's entry point needs of Rust's runtime prologue, which it
/// skips (see `main.rs`): SIGPIPE ignored (a closed pipe is a write error,
/// handled by the write policy above), and closed descriptors 0 to 2
/// reopened on /dev/null so that no input is opened as one of them (which
/// were closed is recorded first: by `record_closed_std_fds` on Linux, here
/// on the other systems, which have no initialiser section for it).
pub fn prepare_process() {
    crate::sys::ignore_sigpipe();
    // (on Linux the initialiser has recorded them: not three calls again)
    #[cfg(not(target_os = "linux"))]
    STD_FDS_CLOSED.fetch_or(crate::sys::closed_std_fds(), Ordering::Relaxed);
    crate::sys::reopen_closed_std_fds();
}

/// The status line (progress bar) on stderr, if one is shown.
static STATUS: Mutex<Option<ProgressBar>> = Mutex::new(None);

/// Show `bar` as the status line (or none): writes to the terminal erase it
/// first and redraw it after.
pub(crate) fn set_status(bar: Option<ProgressBar>) {
    if let Ok(mut g) = STATUS.lock() {
        *g = bar;
    }
}

/// Run `f` (a write to stdout or stderr) with the status line erased, and
/// redraw it after: lines and the bar never mix on a terminal.
fn with_status_hidden<R>(f: impl FnOnce() -> R) -> R {
    let shown = STATUS.lock().ok().and_then(|g| g.clone());
    match shown {
        Some(bar) => {
            // a draw, as in `status_draw`; once the line is being erased for
            // good, just write
            DRAWS.fetch_add(1, Ordering::SeqCst);
            let r = if ERASING.load(Ordering::SeqCst) {
                f()
            } else {
                bar.suspend(f)
            };
            DRAWS.fetch_sub(1, Ordering::SeqCst);
            r
        }
        None => f(),
    }
}

/// Draws of the status line under way (see [`erase_status_for_exit`]).
static DRAWS: AtomicUsize = AtomicUsize::new(0);
/// Set once a fatal signal is erasing the status line: no more draws.
static ERASING: AtomicBool = AtomicBool::new(false);

/// Run `draw` (anything that draws the status line) unless a fatal signal
/// is erasing it; [`erase_status_for_exit`] waits for a draw under way.
pub(crate) fn status_draw(draw: impl FnOnce()) {
    DRAWS.fetch_add(1, Ordering::SeqCst);
    if !ERASING.load(Ordering::SeqCst) {
        draw();
    }
    DRAWS.fetch_sub(1, Ordering::SeqCst);
}

/// Erase the status line for good, from a signal handler about to let the
/// process die: no draw starts after this, one under way on another thread
/// is waited for (up to about 0.1 s: the handler may have interrupted the
/// drawing thread itself), then the erase is written. Async-signal-safe:
/// atomics, poll and write only.
pub(crate) fn erase_status_for_exit() {
    const ERASE: &[u8] = b"\r\x1b[2K";
    ERASING.store(true, Ordering::SeqCst);
    for _ in 0..100 {
        if DRAWS.load(Ordering::SeqCst) == 0 {
            break;
        }
        crate::sys::pause_a_millisecond();
    }
    crate::sys::write_stderr_raw(ERASE);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A writer that accepts `room` bytes, then fails every call with `error`.
    struct Failing {
        room: usize,
        error: io::ErrorKind,
        calls: usize,
    }

    impl Write for Failing {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.calls += 1;
            if self.room == 0 {
                return Err(io::Error::from(self.error));
            }
            let n = buf.len().min(self.room);
            self.room -= n;
            Ok(n)
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    fn failing(room: usize, error: io::ErrorKind) -> Failing {
        Failing {
            room,
            error,
            calls: 0,
        }
    }

    #[test]
    fn write_error_is_kept_for_the_end_and_later_output_dropped() {
        let mut w = CheckedWriter::new(failing(4, io::ErrorKind::StorageFull), OnWriteError::GoOn);
        w.write_all(b"abcdef").unwrap();
        w.write_all(b"more").unwrap();
        w.flush().unwrap();
        // one call that fit, one that failed, none after
        assert_eq!(w.inner.calls, 2);
        let e = w.take_error().unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::StorageFull);
        assert!(w.take_error().is_ok());
    }

    #[test]
    fn write_error_stops_at_once_when_asked() {
        let mut w = CheckedWriter::new(failing(4, io::ErrorKind::StorageFull), OnWriteError::Stop);
        let e = w.write_all(b"abcdef").unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::StorageFull);
        assert!(w.take_error().is_ok());
    }

    #[test]
    fn closed_pipe_is_passed_on_at_once() {
        for policy in [OnWriteError::GoOn, OnWriteError::Stop] {
            let mut w = CheckedWriter::new(failing(0, io::ErrorKind::BrokenPipe), policy);
            assert!(is_broken_pipe(&w.write_all(b"x").unwrap_err()));
            assert!(w.take_error().is_ok());
        }
    }
}
