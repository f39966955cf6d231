//! The platform layer on Windows: see `sys` for what each call gives and
//! how it degrades. Windows has no signals, no numbered descriptors to
//! reopen, no page-cache probe and no unnamed files: those calls answer
//! "nothing to do" or "cannot tell", and the callers take their slower,
//! always correct paths.

use std::borrow::Cow;
use std::ffi::OsString;
use std::fs::{File, FileType, Metadata, OpenOptions};
use std::io;
use std::os::windows::ffi::OsStringExt;
use std::os::windows::fs::{FileExt, OpenOptionsExt};
use std::os::windows::io::{AsHandle, AsRawHandle};
use std::path::{Component, Path, PathBuf, Prefix};

use windows_sys::Win32::Storage::FileSystem as fs;
use windows_sys::Win32::System::Console as console;

// ----- "signals": the console's control events -------------------------------

/// Nothing to ignore: a write to a closed pipe fails with an error
/// (`ERROR_NO_DATA`, std's `BrokenPipe`), which the output layer turns into
/// a quiet end of the run.
pub(crate) fn ignore_sigpipe() {}

/// The status of a run that ended on a closed pipe: Windows has no SIGPIPE
/// to die of, and a failure is what such a run is (1, as a write error
/// would give).
pub(crate) fn die_of_sigpipe() -> i32 {
    1
}

/// Ctrl-C, Ctrl-Break and the console closing, caught to run a cleanup
/// (erase the progress line) before the default handler ends the process.
pub(crate) mod exit_signals {
    use std::sync::OnceLock;
    use windows_sys::Win32::System::Console as console;
    use windows_sys::core::BOOL;

    /// The cleanup the handler runs; the first one installed (there is one).
    static CLEANUP: OnceLock<fn()> = OnceLock::new();

    /// Whether the handler was added.
    pub(crate) struct Installed(bool);

    /// Run on a thread of its own by the console: the cleanup, then FALSE,
    /// so the next handler (the default one, which ends the process as if
    /// nothing had been caught) runs.
    unsafe extern "system" fn on_event(_event: u32) -> BOOL {
        if let Some(cleanup) = CLEANUP.get() {
            cleanup();
        }
        0
    }

    /// Add the handler that runs `cleanup` before the process ends of a
    /// console event. (A process started with Ctrl-C ignored never gets
    /// that event: the cleanup then never runs for it, as on Unix.)
    pub(crate) fn install(cleanup: fn()) -> Installed {
        let _ = CLEANUP.set(cleanup);
        // SAFETY: registers a handler function that lives as long as the
        // process (a plain `fn`); no memory is handed over.
        Installed(unsafe { console::SetConsoleCtrlHandler(Some(on_event), 1) } != 0)
    }

    /// Remove the handler [`install`] added.
    pub(crate) fn restore(installed: Installed) {
        if installed.0 {
            // SAFETY: removes the handler added above; no memory involved.
            unsafe { console::SetConsoleCtrlHandler(Some(on_event), 0) };
        }
    }
}

// ----- standard handles and raw writes --------------------------------------

/// Windows' standard handles are no numbered descriptors a file opened
/// later could take: none is "closed" in Unix's sense (a missing one makes
/// std's reads empty and its writes vanish).
pub(crate) fn closed_std_fds() -> u8 {
    0
}

/// Nothing to reopen (see [`closed_std_fds`]).
pub(crate) fn reopen_closed_std_fds() {}

/// A write to a file on Windows fails at `WriteFile` or not at all: there
/// is no deferred error for closing standard output to collect.
pub(crate) fn close_stdout() -> io::Result<()> {
    Ok(())
}

/// Sleep about a millisecond (the console's handler runs on a thread of
/// its own: any call is allowed there).
pub(crate) fn pause_a_millisecond() {
    std::thread::sleep(std::time::Duration::from_millis(1));
}

/// Write `bytes` to standard error in one call, unbuffered and without
/// std's lock (the thread holding it may be the one that waits for us).
pub(crate) fn write_stderr_raw(bytes: &[u8]) {
    let Ok(len) = u32::try_from(bytes.len()) else {
        return;
    };
    let mut written = 0u32;
    // SAFETY: a write of a buffer we hold to the standard error handle (a
    // null or invalid one only makes the call fail); `written` is ours.
    unsafe {
        let handle = console::GetStdHandle(console::STD_ERROR_HANDLE);
        fs::WriteFile(
            handle,
            bytes.as_ptr(),
            len,
            &mut written,
            std::ptr::null_mut(),
        );
    }
}

/// The width in columns of the console window on stderr, if it is one.
pub(crate) fn term_width() -> Option<usize> {
    // SAFETY: the struct is plain data, valid zeroed, and only filled by
    // the call; the handle is only queried.
    let mut info: console::CONSOLE_SCREEN_BUFFER_INFO = unsafe { std::mem::zeroed() };
    // SAFETY: as above.
    let ok = unsafe {
        let handle = console::GetStdHandle(console::STD_ERROR_HANDLE);
        console::GetConsoleScreenBufferInfo(handle, &mut info)
    } != 0;
    let width = i32::from(info.srWindow.Right) - i32::from(info.srWindow.Left) + 1;
    (ok && width > 0).then(|| usize::try_from(width).unwrap_or(80))
}

// ----- files ---------------------------------------------------------------

/// Open an input: read-only, with the hint that it is read from start to
/// end (`FILE_FLAG_SEQUENTIAL_SCAN`: the cache reads ahead further and
/// drops what was read sooner), by its [`file_path`]. Windows' opens do not
/// wait on a named pipe as a FIFO's would: no non-blocking flag is needed.
/// A directory, which Windows refuses to open so ("Access is denied"),
/// says what GNU's tools say of one.
pub(crate) fn open_input(path: &Path) -> io::Result<File> {
    let path = file_path(path);
    OpenOptions::new()
        .read(true)
        .custom_flags(fs::FILE_FLAG_SEQUENTIAL_SCAN)
        .open(&path)
        .map_err(|e| {
            if e.kind() == io::ErrorKind::PermissionDenied
                && std::fs::metadata(&path).is_ok_and(|m| m.is_dir())
            {
                io::Error::new(io::ErrorKind::IsADirectory, "Is a directory")
            } else {
                e
            }
        })
}

/// Do `a` and `b` name the same file, as the system's usual file systems
/// compare names (a multi-call name against a tool's)? NTFS ignores case.
pub(crate) fn same_file_name(a: &str, b: &str) -> bool {
    a.eq_ignore_ascii_case(b)
}

/// The path that opens the file `path` names, whatever that name is.
/// Win32 takes a last name of `NUL`, `CON`, `PRN`, `AUX`, `COM1`-`COM9` or
/// `LPT1`-`LPT9`, with any extension (`nul.txt`, `aux.c`), for a device,
/// and drops trailing dots and blanks: a file of such a name (made on
/// another OS, unpacked from an archive) would hash as the empty device or
/// hang the run on a serial port. A verbatim path (`\\?\C:\dir\nul.txt`) is
/// opened as written, so `path` is made absolute as Win32 would (on the
/// current directory, `.` and `..` resolved by name, `/` taken for `\`)
/// and written verbatim. Every name fastsum opens (walked, listed in a
/// check file, or given on the command line) means a file; a device is
/// named in the device namespace (`\\.\NUL`, `\\.\COM1`), which is kept as
/// it is, as a verbatim path is. Without a current directory (it was
/// removed): `path` as given.
pub(crate) fn file_path(path: &Path) -> Cow<'_, Path> {
    match verbatim(path) {
        Some(full) => Cow::Owned(full),
        None => Cow::Borrowed(path),
    }
}

/// [`file_path`]'s verbatim path, or `None` to use `path` as it is.
fn verbatim(path: &Path) -> Option<PathBuf> {
    let mut parts = path.components().peekable();
    let mut full = match parts.peek() {
        None => return None,
        Some(Component::Prefix(p)) => match p.kind() {
            Prefix::Disk(drive) if path.has_root() => {
                PathBuf::from(format!(r"\\?\{}:\", char::from(drive)))
            }
            // `C:name`: on that drive's current directory
            Prefix::Disk(drive) => {
                verbatim(&std::path::absolute(format!("{}:", char::from(drive))).ok()?)?
            }
            Prefix::UNC(server, share) => {
                let mut unc = OsString::from(r"\\?\UNC\");
                unc.push(server);
                unc.push(r"\");
                unc.push(share);
                PathBuf::from(unc)
            }
            // verbatim already, or a device's
            _ => return None,
        },
        // `\name`: on the current directory's drive
        Some(Component::RootDir) => current_dir()?.ancestors().last()?.to_path_buf(),
        Some(_) => current_dir()?,
    };
    for part in parts {
        match part {
            // (appended, not pushed: `PathBuf::push` would take a name
            // like `c:x` for a drive and start over)
            Component::Normal(name) => {
                let text = full.as_mut_os_string();
                if !text.as_encoded_bytes().ends_with(b"\\") {
                    text.push(r"\");
                }
                text.push(name);
            }
            Component::ParentDir => {
                full.pop();
            }
            Component::Prefix(_) | Component::RootDir | Component::CurDir => {}
        }
    }
    Some(full)
}

/// The current directory, verbatim.
fn current_dir() -> Option<PathBuf> {
    let here = std::env::current_dir().ok()?;
    Some(verbatim(&here).unwrap_or(here))
}

/// Open the file at `path` to read it, without following a link (a
/// reparse point) put there: a link opens as itself, which is no regular
/// file, and is refused by the caller.
pub(crate) fn open_no_follow(path: &Path) -> io::Result<File> {
    OpenOptions::new()
        .read(true)
        .custom_flags(fs::FILE_FLAG_OPEN_REPARSE_POINT)
        .open(file_path(path))
}

/// Can a rename replace a file that is open? Not on Windows (without
/// POSIX semantics, which not every Windows and file system has): the
/// rename fails with "Access denied" while any handle to the target is
/// open.
pub(crate) const RENAME_OVER_OPEN_FILE: bool = false;

/// Looking at a file by name in an open directory: not done here (the
/// caller looks at its path).
pub(crate) fn size_and_mtime_in(_dir: &File, _name: &[u8]) -> io::Result<(u64, i128)> {
    Err(io::ErrorKind::Unsupported.into())
}

/// A directory opened to look at the files in it by name: not done here.
pub(crate) fn open_dir_to_look(_path: &Path) -> io::Result<File> {
    Err(io::ErrorKind::Unsupported.into())
}

/// Open a directory (for [`sync_dir`]): Windows opens one only with
/// backup semantics.
pub(crate) fn open_dir(path: &Path) -> io::Result<File> {
    OpenOptions::new()
        .read(true)
        .custom_flags(fs::FILE_FLAG_BACKUP_SEMANTICS)
        .open(file_path(path))
}

/// Nothing to sync: NTFS journals a rename itself, and a directory handle
/// cannot be flushed without write access to it.
pub(crate) fn sync_dir(_dir: &File) -> io::Result<()> {
    Ok(())
}

/// Standard input as a file of its own (a duplicate handle: unbuffered,
/// sharing the position of the original).
pub(crate) fn stdin_file() -> io::Result<File> {
    Ok(File::from(io::stdin().as_handle().try_clone_to_owned()?))
}

/// Windows has no FIFOs in the file system (named pipes live apart).
pub(crate) fn is_fifo(_t: &FileType) -> bool {
    false
}

/// What a file that is neither a regular file nor a directory is, for a
/// message; `None`: nothing more precise than "not a file".
pub(crate) fn special_kind(_t: &FileType) -> Option<&'static str> {
    None
}

/// Unused on Windows: opens never wait (see [`open_input`]).
pub(crate) fn clear_nonblock(_file: &File) -> io::Result<()> {
    Ok(())
}

/// Unused on Windows (see [`is_fifo`]).
pub(crate) fn wait_readable(_file: &File) -> io::Result<()> {
    Ok(())
}

/// Cannot tell on Windows: false, and a short read is then taken as the end
/// of the file only once its stamp says it did not change.
pub(crate) fn attributes_cached(_file: &File, _meta: &Metadata) -> bool {
    false
}

/// Windows has no query for "is this byte cached" that does not read it:
/// cannot tell.
pub(crate) fn cached(_file: &File, _at: u64) -> Option<bool> {
    None
}

/// Cannot tell: nothing is read (the caller reads with one reader).
pub(crate) fn read_exact_cached_at(
    _file: &File,
    _buf: &mut [u8],
    _at: u64,
) -> io::Result<Option<bool>> {
    Ok(None)
}

/// Cannot tell: false.
pub(crate) fn in_memory(_file: &File) -> bool {
    false
}

/// Cannot tell: false, so a mapping meant only for cached files is not
/// made and the file is read instead.
pub(crate) fn resident(_start: *const u8, _len: usize, _page: usize) -> bool {
    false
}

/// No read-ahead hint for a file not yet opened: nothing.
pub(crate) fn prefetch(_path: &Path, _len: u64) {}

/// No hint on Windows: its read-ahead is chosen at open
/// ([`open_input`]) and cannot be turned off for one descriptor after.
pub(crate) fn read_as_asked(_file: &File) {}

/// `buf.len()` bytes of `file` at `at` (Windows' positioned reads), or an
/// `UnexpectedEof` error when the file ends before them.
pub(crate) fn read_exact_at(file: &File, mut buf: &mut [u8], mut at: u64) -> io::Result<()> {
    while !buf.is_empty() {
        match file.seek_read(buf, at) {
            Ok(0) => return Err(io::Error::from(io::ErrorKind::UnexpectedEof)),
            Ok(n) => {
                buf = &mut buf[n..];
                at += n as u64;
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// No unnamed files on Windows: `--update` writes a named temporary file.
pub(crate) fn unnamed_file(_dir_path: &Path) -> Option<File> {
    None
}

/// Unused on Windows (see [`unnamed_file`]).
pub(crate) fn link_unnamed(_file: &File, _dir: &File, _name: &std::ffi::OsStr) -> io::Result<bool> {
    Err(io::Error::from(io::ErrorKind::Unsupported))
}

/// The new file of `--update` gets no owner or mode of the old one: on
/// Windows it takes the directory's inherited permissions, as any new file.
pub(crate) fn copy_owner_and_mode(_file: &File, _old: &Metadata) -> io::Result<()> {
    Ok(())
}

/// Nothing to set: see [`copy_owner_and_mode`].
pub(crate) fn private_mode(_options: &mut OpenOptions) {}

/// What tells whether a file changed since it was opened: its size and
/// last-write time (100 ns), from the open handle. (The handle keeps the
/// same file: its identity needs no check, and Windows forbids truncating
/// a file while a view of it is mapped.)
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Stamp {
    len: u64,
    modified: Option<std::time::SystemTime>,
}

impl Stamp {
    pub(crate) fn of(m: &Metadata) -> Stamp {
        Stamp {
            len: m.len(),
            modified: m.modified().ok(),
        }
    }

    /// The file's length.
    pub(crate) fn len(&self) -> u64 {
        self.len
    }

    /// The device the file is on: one for all (see [`device`]).
    pub(crate) fn device(&self) -> u64 {
        0
    }

    /// Was the file last written before `t`?
    pub(crate) fn changed_before(&self, t: std::time::SystemTime) -> bool {
        self.modified.is_some_and(|m| m < t)
    }
}

/// The stamp of `file` as its file system says it now (no attribute
/// cache is asked for here: `attributes_cached` is false).
pub(crate) fn fresh_stamp(file: &File) -> io::Result<Stamp> {
    Ok(Stamp::of(&file.metadata()?))
}

/// A file's identity: its volume's serial number and its file index
/// (`GetFileInformationByHandle`), Unix's device and inode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct FileId {
    volume: u32,
    index: u64,
}

impl FileId {
    /// The identity of an open file.
    pub(crate) fn of_file(file: &File) -> io::Result<FileId> {
        // SAFETY: the struct is plain data, valid zeroed, and only filled
        // by the call.
        let mut info: fs::BY_HANDLE_FILE_INFORMATION = unsafe { std::mem::zeroed() };
        // SAFETY: the handle is open for the life of `file`; `info` is ours.
        if unsafe { fs::GetFileInformationByHandle(file.as_raw_handle(), &mut info) } == 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(FileId {
            volume: info.dwVolumeSerialNumber,
            index: (u64::from(info.nFileIndexHigh) << 32) | u64::from(info.nFileIndexLow),
        })
    }

    /// The identity of the file at `path`, links followed.
    pub(crate) fn of_path(path: &Path) -> io::Result<FileId> {
        Self::of_opened(path, fs::FILE_FLAG_BACKUP_SEMANTICS)
    }

    /// The identity of what is at `path` itself (a link as itself).
    pub(crate) fn of_link(path: &Path) -> io::Result<FileId> {
        Self::of_opened(
            path,
            fs::FILE_FLAG_BACKUP_SEMANTICS | fs::FILE_FLAG_OPEN_REPARSE_POINT,
        )
    }

    fn of_opened(path: &Path, flags: u32) -> io::Result<FileId> {
        // no access right asked: only attributes are read (files and
        // directories both open so, whoever holds them)
        let file = OpenOptions::new()
            .access_mode(0)
            .custom_flags(flags)
            .open(file_path(path))?;
        Self::of_file(&file)
    }

    /// The volume alone (`--one-file-system`).
    pub(crate) fn device(&self) -> u64 {
        u64::from(self.volume)
    }
}

// ----- names -----------------------------------------------------------------

/// The name that `bytes` are (WTF-8, as `OsStr::as_encoded_bytes` gives
/// Windows' UTF-16 names: UTF-8, and the unpaired surrogates a name may
/// hold), or `None` for bytes that are no such name (a check line's name
/// in another encoding: no name on Windows is made of them).
pub(crate) fn os_string(bytes: Vec<u8>) -> Option<OsString> {
    match String::from_utf8(bytes) {
        Ok(s) => Some(OsString::from(s)),
        Err(e) => super::names::wtf8_to_wide(e.as_bytes()).map(|w| OsString::from_wide(&w)),
    }
}

/// A name as digest lines print it on Windows: see [`super::names::printed`].
pub(crate) fn printed_name(name: &[u8]) -> std::borrow::Cow<'_, [u8]> {
    super::names::printed(name)
}

// ----- the process ---------------------------------------------------------

/// No limit on open handles that matters here.
pub(crate) fn open_files_limit() -> Option<u64> {
    None
}

/// Windows does not say how long a thread waited for a core: None.
pub(crate) fn run_queue_wait() -> Option<std::time::Duration> {
    None
}

/// One device for every file (the volume's serial is not in std's
/// metadata): the storage is judged as one.
pub(crate) fn device(_meta: &Metadata) -> u64 {
    0
}

/// No `ulimit -v` on Windows.
pub(crate) fn address_space_limit() -> Option<usize> {
    None
}

/// Nothing to do: Windows' heap has no per-thread arenas to limit.
pub(crate) fn one_malloc_arena() {}

/// std's count already follows the process's affinity on Windows.
pub(crate) fn affinity_cpus() -> Option<usize> {
    None
}

#[cfg(feature = "openssl")]
/// The system's libcrypto is not looked for on Windows: the crates hash.
pub(crate) fn open_library(_files: &[&std::ffi::CStr]) -> Option<usize> {
    None
}

#[cfg(feature = "openssl")]
/// Unused on Windows (see [`open_library`]).
pub(crate) fn library_symbol(_lib: usize, _name: &std::ffi::CStr) -> Option<*mut std::ffi::c_void> {
    None
}

/// Mappings on Windows: no guard is needed. Windows refuses to truncate a
/// file while a view of it is mapped (`SetEndOfFile` fails with
/// `ERROR_USER_MAPPED_FILE`), so a mapped input cannot shrink under the
/// hashing; a write that changes its bytes shows in its stamp, checked at
/// the end as on Unix. (An I/O error under a mapping of a file on a network
/// share ends the process with an exception: never a digest.)
pub(crate) mod sigbus {
    /// No fault to watch for.
    pub(crate) struct Guard;

    impl Guard {
        /// Never: see the module.
        pub(crate) fn faulted(&self) -> bool {
            false
        }
    }

    /// A claim on a guard: always granted.
    pub(crate) struct Claim;

    impl Claim {
        pub(crate) fn activate(self, _start: *const u8, _len: usize) -> Guard {
            Guard
        }
    }

    pub(crate) fn claim() -> Option<Claim> {
        Some(Claim)
    }

    /// The allocation granularity does not matter here: mappings are
    /// never probed page by page on Windows (`resident` cannot tell).
    pub(crate) fn page_size() -> usize {
        4096
    }

    /// Nothing to install.
    pub(crate) fn install() -> bool {
        true
    }
}

/// Advise the kernel that `map` is read from start to end: Windows has no
/// such advice for a view (the input was opened with
/// `FILE_FLAG_SEQUENTIAL_SCAN`).
pub(crate) fn advise_sequential(_map: &memmap2::Mmap) {}

/// Drop hashed pages of a mapping from the working set: nothing on Windows,
/// whose memory manager trims a working set itself.
pub(crate) fn release_pages(_map: &memmap2::Mmap, _start: usize, _len: usize) {}

// ----- errors: what an OS error code means, and errors made here -------------

/// The error of a read or write on a standard handle that was closed
/// (`ERROR_INVALID_HANDLE`: "The handle is invalid.").
pub(crate) fn closed_descriptor() -> io::Error {
    io::Error::from_raw_os_error(windows_sys::Win32::Foundation::ERROR_INVALID_HANDLE as i32)
}

/// The error of a name that must be a directory and is not
/// (`--tree-digest FILE`): GNU's words, as Windows' own code for it
/// (`ERROR_DIRECTORY`) says "The directory name is invalid.".
pub(crate) fn not_a_directory() -> io::Error {
    io::Error::new(io::ErrorKind::NotADirectory, "Not a directory")
}

/// Has the process no handle left (`ERROR_TOO_MANY_OPEN_FILES`)?
pub(crate) fn out_of_descriptors(e: &io::Error) -> bool {
    use windows_sys::Win32::Foundation::ERROR_TOO_MANY_OPEN_FILES;
    e.raw_os_error() == Some(ERROR_TOO_MANY_OPEN_FILES as i32)
}

/// Was a read refused for its count (`ERROR_NOT_ENOUGH_MEMORY`,
/// `ERROR_NO_SYSTEM_RESOURCES`: a count too big for the device's buffers),
/// so that a smaller one may pass?
pub(crate) fn read_refused_for_its_size(e: &io::Error) -> bool {
    use windows_sys::Win32::Foundation::{ERROR_NO_SYSTEM_RESOURCES, ERROR_NOT_ENOUGH_MEMORY};
    matches!(
        e.raw_os_error(),
        Some(c) if c == ERROR_NOT_ENOUGH_MEMORY as i32 || c == ERROR_NO_SYSTEM_RESOURCES as i32
    )
}

/// Did [`open_no_follow`] meet a link? Never: it opens the link itself
/// (`FILE_FLAG_OPEN_REPARSE_POINT`), which is then no regular file.
pub(crate) fn is_link_refused(_e: &io::Error) -> bool {
    false
}

/// Is `e` what a busy or overloaded server answers, so that fewer
/// requests in flight may help?
pub(crate) fn is_server_busy(e: &io::Error) -> bool {
    use io::ErrorKind::{ConnectionReset, ResourceBusy, TimedOut, WouldBlock};
    matches!(
        e.kind(),
        WouldBlock | TimedOut | ResourceBusy | ConnectionReset
    )
}

/// The error of an open with no handle left (`ERROR_TOO_MANY_OPEN_FILES`).
#[cfg(test)]
pub(crate) fn descriptors_exhausted() -> io::Error {
    use windows_sys::Win32::Foundation::ERROR_TOO_MANY_OPEN_FILES;
    io::Error::from_raw_os_error(ERROR_TOO_MANY_OPEN_FILES as i32)
}
