//! Messages on stderr and the exit status.
//!
//! Every message is prefixed with the invoked program name, as GNU does
//! (`md5sum: x: No such file or directory` under the md5sum name). Errors on
//! one input are reported and the run goes on; `Reporter` remembers that one
//! happened, which decides the exit status at the end.

use std::io::{self, Write};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};

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

/// Standard output, reporting a closed descriptor (`>&-`) as GNU does.
///
/// GNU tools started with descriptor 1 closed fail with "write error: Bad
/// file descriptor" once they have something to write. A Rust program never
/// sees the closed descriptor: the runtime reopens a closed 0, 1 or 2 on
/// /dev/null, read-write, before `main`. So descriptor 1 open read-write on
/// /dev/null is taken for "was closed" (a shell's `>/dev/null` opens it
/// write-only).
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
        self.inner.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// Was descriptor 1 closed when the process started? (See [`Stdout`].)
fn stdout_was_closed() -> bool {
    std_fd_was_closed(1)
}

/// Was standard input closed when the process started (`<&-`)? Then it
/// must not be read as an empty stream: GNU reports "Bad file descriptor".
/// Same test as for stdout (see [`Stdout`]): a shell's `</dev/null` opens
/// it read-only, the Rust runtime's stand-in is read-write.
pub fn stdin_was_closed() -> bool {
    std_fd_was_closed(0)
}

/// Is descriptor `fd` (0, 1 or 2) closed, or the runtime's read-write
/// /dev/null stand-in for a descriptor that was closed at startup?
fn std_fd_was_closed(fd: libc::c_int) -> bool {
    use std::os::unix::fs::FileTypeExt;
    use std::os::unix::fs::MetadataExt;
    // SAFETY: F_GETFL only queries descriptor flags; no memory is involved.
    let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
    if flags == -1 {
        return true;
    }
    if flags & libc::O_ACCMODE != libc::O_RDWR {
        return false;
    }
    let (Ok(meta), Ok(null)) = (
        std::fs::metadata(format!("/dev/fd/{fd}")),
        std::fs::metadata("/dev/null"),
    ) else {
        return false;
    };
    meta.file_type().is_char_device() && meta.rdev() == null.rdev()
}
