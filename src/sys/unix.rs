//! The platform layer on Unix (Linux, macOS, the BSDs): see `sys` for what
//! each call gives and how it degrades where an OS lacks it.

use std::ffi::{OsStr, OsString};
use std::fs::{File, OpenOptions};
use std::io;
use std::os::fd::AsRawFd;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;
use std::ptr;

// ----- signals -------------------------------------------------------------

/// Ignore SIGPIPE: writing to a closed pipe then fails with EPIPE, which
/// the output layer turns into a quiet end of the run.
pub(crate) fn ignore_sigpipe() {
    // SAFETY: setting a signal's disposition to SIG_IGN involves no handler.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_IGN);
    }
}

/// End the process by SIGPIPE, as a tool that never ignored it would have
/// ended (the shell sees the signal in the exit status); returns the
/// status a shell gives that death, for when the signal is blocked.
pub(crate) fn die_of_sigpipe() -> i32 {
    // SAFETY: restoring the default action and raising a signal touch no
    // memory; the process is at its end.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
        libc::raise(libc::SIGPIPE);
    }
    128 + libc::SIGPIPE
}

/// The signals that end a run from outside (Ctrl-C, `kill`, a closed
/// terminal), caught to run a cleanup (erase the progress line) before
/// dying of them as if they had not been caught.
pub(crate) mod exit_signals {
    use std::ptr;
    use std::sync::OnceLock;

    const SIGNALS: [libc::c_int; 3] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP];

    /// The cleanup the handler runs (async-signal-safe only); the first
    /// one installed (there is one). Reading it is an atomic load.
    static CLEANUP: OnceLock<fn()> = OnceLock::new();

    /// Which of the signals got the handler (bit i for `SIGNALS[i]`).
    pub(crate) struct Installed(u8);

    /// Run the cleanup, then die of `sig` as if it had not been caught.
    /// Async-signal-safe only: an atomic load, the cleanup, sigaction, raise.
    extern "C" fn on_signal(sig: libc::c_int) {
        if let Some(cleanup) = CLEANUP.get() {
            cleanup();
        }
        // SAFETY: raise is async-signal-safe; `set_default` only calls
        // sigaction (async-signal-safe too).
        unsafe {
            set_default(sig);
            // blocked while this handler runs: delivered, with the default
            // action, as soon as it returns
            libc::raise(sig);
        }
    }

    /// Put `sig` back to its default action.
    ///
    /// # Safety
    /// Only changes a signal's disposition; callable from a signal handler.
    unsafe fn set_default(sig: libc::c_int) {
        // SAFETY: a zeroed sigaction with SIG_DFL (0) and an empty mask is valid.
        unsafe {
            let mut act: libc::sigaction = std::mem::zeroed();
            act.sa_sigaction = libc::SIG_DFL;
            libc::sigemptyset(&mut act.sa_mask);
            libc::sigaction(sig, &act, ptr::null_mut());
        }
    }

    /// Catch each signal whose action is the default one, to run `cleanup`
    /// (which must be async-signal-safe) before dying of it. A signal
    /// ignored (`nohup`, a background job's SIGINT) or handled by someone
    /// else is left alone.
    pub(crate) fn install(cleanup: fn()) -> Installed {
        let _ = CLEANUP.set(cleanup);
        let mut installed = 0u8;
        for (i, &sig) in SIGNALS.iter().enumerate() {
            // SAFETY: sigaction reads the current action into a zeroed,
            // valid struct, then installs a handler that is async-signal-safe.
            unsafe {
                let mut old: libc::sigaction = std::mem::zeroed();
                if libc::sigaction(sig, ptr::null(), &mut old) != 0
                    || old.sa_sigaction != libc::SIG_DFL
                {
                    continue;
                }
                let mut act: libc::sigaction = std::mem::zeroed();
                act.sa_sigaction = on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
                act.sa_flags = libc::SA_RESTART;
                libc::sigemptyset(&mut act.sa_mask);
                if libc::sigaction(sig, &act, ptr::null_mut()) == 0 {
                    installed |= 1 << i;
                }
            }
        }
        Installed(installed)
    }

    /// Give the signals [`install`] caught back their default action.
    pub(crate) fn restore(installed: Installed) {
        for (i, &sig) in SIGNALS.iter().enumerate() {
            if installed.0 & (1 << i) != 0 {
                // SAFETY: only resets the disposition of a signal we caught.
                unsafe { set_default(sig) };
            }
        }
    }
}

// ----- descriptors 0–2 and raw writes ----------------------------------------

/// Which of descriptors 0, 1 and 2 are closed (bits 1, 2 and 4).
pub(crate) fn closed_std_fds() -> u8 {
    let mut closed = 0;
    for (fd, bit) in [(0, 1u8), (1, 2u8), (2, 4u8)] {
        // SAFETY: F_GETFD only queries a descriptor's flags; no memory is involved.
        if unsafe { libc::fcntl(fd, libc::F_GETFD) } == -1 {
            closed |= bit;
        }
    }
    closed
}

/// Open /dev/null on each of descriptors 0–2 that is closed, so that no
/// file fastsum opens gets one of them (and output meant for stdout or
/// stderr never lands in it).
pub(crate) fn reopen_closed_std_fds() {
    for fd in 0..3 {
        // SAFETY: F_GETFD only queries a descriptor's flags.
        if unsafe { libc::fcntl(fd, libc::F_GETFD) } == -1 {
            // SAFETY: a NUL-terminated path; the lowest free descriptor, `fd`
            // itself, is what open returns here.
            unsafe { libc::open(c"/dev/null".as_ptr(), libc::O_RDWR) };
        }
    }
}

/// Close descriptor 1 and report what closing it says (a write-back error
/// of a file on NFS shows only there); already closed is not an error.
pub(crate) fn close_stdout() -> io::Result<()> {
    // SAFETY: closes descriptor 1, which nothing writes to after this (the
    // run is over and its output flushed); no memory is involved.
    match unsafe { libc::close(1) } {
        0 => Ok(()),
        _ => match io::Error::last_os_error() {
            e if e.raw_os_error() == Some(libc::EBADF) => Ok(()),
            e => Err(e),
        },
    }
}

/// Sleep about a millisecond; async-signal-safe.
pub(crate) fn pause_a_millisecond() {
    // SAFETY: poll with no descriptors only sleeps; async-signal-safe.
    unsafe { libc::poll(ptr::null_mut(), 0, 1) };
}

/// Write `bytes` to descriptor 2 in one call, unbuffered; async-signal-safe.
pub(crate) fn write_stderr_raw(bytes: &[u8]) {
    // SAFETY: a write of a buffer we hold to descriptor 2; async-signal-safe.
    unsafe { libc::write(2, bytes.as_ptr().cast(), bytes.len()) };
}

/// The width in columns of the terminal on stderr, if it is one.
pub(crate) fn term_width() -> Option<usize> {
    // SAFETY: TIOCGWINSZ only fills the winsize struct passed in.
    let mut ws: libc::winsize = unsafe { std::mem::zeroed() };
    // SAFETY: as above; descriptor 2 is only queried.
    let r = unsafe { libc::ioctl(2, libc::TIOCGWINSZ, &mut ws) };
    (r == 0 && ws.ws_col > 0).then_some(usize::from(ws.ws_col))
}

// ----- files ---------------------------------------------------------------

/// Open an input: read-only and without blocking, so that opening a FIFO
/// nobody writes to yet does not block the thread that opens inputs in
/// order ([`wait_readable`] waits later, [`clear_nonblock`] undoes it).
pub(crate) fn open_input(path: &Path) -> io::Result<File> {
    OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
}

/// Do `a` and `b` name the same file, as the system's usual file systems
/// compare names (a multi-call name against a tool's)? macOS's ignore
/// case; the other Unix systems' compare bytes.
pub(crate) fn same_file_name(a: &str, b: &str) -> bool {
    if cfg!(target_os = "macos") {
        a.eq_ignore_ascii_case(b)
    } else {
        a == b
    }
}

/// The path that opens the file `path` names: `path` itself (on Unix a
/// name is a file's; Windows' Win32 names may mean a device).
pub(crate) fn file_path(path: &Path) -> std::borrow::Cow<'_, Path> {
    std::borrow::Cow::Borrowed(path)
}

/// The size and modification time (nanoseconds since the epoch) of the
/// file `name` in the open directory `dir`, links followed, as
/// `fs::metadata` gives them: one `fstatat` relative to the directory, as
/// find makes, where a path would be walked again component by component.
pub(crate) fn size_and_mtime_in(dir: &File, name: &[u8]) -> io::Result<(u64, i128)> {
    if name.contains(&0) {
        return Err(io::ErrorKind::InvalidInput.into());
    }
    // (NUL-terminated on the stack: most names are short)
    let mut short = [0u8; 256];
    let long;
    let name: &[u8] = match short.get_mut(..=name.len()) {
        Some(buf) => {
            buf[..name.len()].copy_from_slice(name);
            buf
        }
        None => {
            long = [name, b"\0"].concat();
            &long
        }
    };
    let mut st = std::mem::MaybeUninit::<libc::stat>::uninit();
    // SAFETY: `name` is NUL-terminated, `st` is written by the call before
    // it is read (only when it succeeded), `dir` is an open descriptor.
    let st = unsafe {
        if libc::fstatat(dir.as_raw_fd(), name.as_ptr().cast(), st.as_mut_ptr(), 0) != 0 {
            return Err(io::Error::last_os_error());
        }
        st.assume_init()
    };
    let size =
        u64::try_from(st.st_size).map_err(|_| io::Error::from(io::ErrorKind::InvalidData))?;
    #[allow(clippy::unnecessary_cast)]
    let mtime =
        i128::from(st.st_mtime as i64) * 1_000_000_000 + i128::from(st.st_mtime_nsec as i64);
    Ok((size, mtime))
}

/// A directory opened to look at the files in it by name
/// ([`size_and_mtime_in`]): without reading it, so one that may only be
/// searched opens too.
pub(crate) fn open_dir_to_look(path: &Path) -> io::Result<File> {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    let flags = libc::O_PATH | libc::O_DIRECTORY;
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    let flags = libc::O_DIRECTORY;
    OpenOptions::new().read(true).custom_flags(flags).open(path)
}

/// Open the file at `path` to read it, neither following a link put there
/// (`O_NOFOLLOW`) nor waiting on a FIFO (`O_NONBLOCK`): those are refused
/// (a link fails with ELOOP, a FIFO is no regular file to the caller).
pub(crate) fn open_no_follow(path: &Path) -> io::Result<File> {
    OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOFOLLOW)
        .open(path)
}

/// Can a rename replace a file that is open (`--update`'s, locked)?
pub(crate) const RENAME_OVER_OPEN_FILE: bool = true;

/// Open a directory, to sync it ([`sync_dir`]).
pub(crate) fn open_dir(path: &Path) -> io::Result<File> {
    File::open(path)
}

/// Sync a directory: a rename in it is then on disk.
pub(crate) fn sync_dir(dir: &File) -> io::Result<()> {
    dir.sync_all()
}

/// Standard input as a file of its own. Not `io::stdin()`: its 8 KiB
/// buffer would turn `-m sync --chunk 16` into 8 KiB read calls. A
/// duplicate of descriptor 0 shares its offset and reads unbuffered.
pub(crate) fn stdin_file() -> io::Result<File> {
    use std::os::fd::AsFd;
    Ok(File::from(io::stdin().as_fd().try_clone_to_owned()?))
}

/// Is it a FIFO (named pipe)?
pub(crate) fn is_fifo(t: &std::fs::FileType) -> bool {
    std::os::unix::fs::FileTypeExt::is_fifo(t)
}

/// What a file that is neither a regular file nor a directory is, for a
/// message; `None`: nothing more precise than "not a file".
pub(crate) fn special_kind(t: &std::fs::FileType) -> Option<&'static str> {
    use std::os::unix::fs::FileTypeExt;
    if t.is_fifo() {
        Some("a FIFO")
    } else if t.is_char_device() {
        Some("a character device")
    } else if t.is_block_device() {
        Some("a block device")
    } else if t.is_socket() {
        Some("a socket")
    } else {
        None
    }
}

/// `buf.len()` bytes of `file` at `at`, or an `UnexpectedEof` error when
/// the file ends before them.
pub(crate) fn read_exact_at(file: &File, buf: &mut [u8], at: u64) -> io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(file, buf, at)
}

/// Give `file` the owner and mode of `old` (the manifest it replaces), as
/// `sed -i`: the owner and group when allowed, else the group alone; not
/// being allowed to give the file away is no error. The mode after the
/// owner: a change of owner clears the set-ID bits.
pub(crate) fn copy_owner_and_mode(file: &File, old: &std::fs::Metadata) -> io::Result<()> {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    if std::os::unix::fs::fchown(file, Some(old.uid()), Some(old.gid())).is_err() {
        let _ = std::os::unix::fs::fchown(file, None, Some(old.gid()));
    }
    file.set_permissions(std::fs::Permissions::from_mode(old.mode() & 0o7777))
}

/// Make the file `options` create readable and writable by its owner only
/// (until [`copy_owner_and_mode`] gives it the mode it is to have).
pub(crate) fn private_mode(options: &mut OpenOptions) {
    options.mode(0o600);
}

/// What tells that a regular file changed, or is not the one opened: its
/// size, its modification and status-change times (to the nanosecond the
/// file system keeps), and its device and inode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Stamp {
    len: u64,
    mtime: (i64, i64),
    ctime: (i64, i64),
    dev: u64,
    ino: u64,
}

impl Stamp {
    pub(crate) fn of(m: &std::fs::Metadata) -> Stamp {
        use std::os::unix::fs::MetadataExt;
        Stamp {
            len: m.len(),
            mtime: (m.mtime(), m.mtime_nsec()),
            ctime: (m.ctime(), m.ctime_nsec()),
            dev: m.dev(),
            ino: m.ino(),
        }
    }

    /// The file's length.
    pub(crate) fn len(&self) -> u64 {
        self.len
    }

    /// The device the file is on.
    pub(crate) fn device(&self) -> u64 {
        self.dev
    }

    /// Was the file last changed (its status-change time, by the clock of
    /// whoever changed it) before `t`?
    pub(crate) fn changed_before(&self, t: std::time::SystemTime) -> bool {
        let (s, ns) = self.ctime;
        let at = std::time::Duration::new(s.max(0).unsigned_abs(), ns.clamp(0, 999_999_999) as u32);
        std::time::UNIX_EPOCH + at < t
    }
}

/// The stamp of `file` as its file system says it now, not as a cache of
/// its attributes remembers it: on Linux a `statx` that must ask the
/// server (`AT_STATX_FORCE_SYNC`: NFS and FUSE do), whose answer replaces
/// the cache's, then `fstat`; elsewhere `fstat`.
pub(crate) fn fresh_stamp(file: &File) -> io::Result<Stamp> {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: a zeroed statx is a valid buffer, filled by the call.
        let mut sx: libc::statx = unsafe { std::mem::zeroed() };
        // SAFETY: the descriptor is open for the life of `file`, the empty
        // path is a C string, and `sx` is ours. (A failure leaves fstat to
        // say what it can.)
        let _ = unsafe {
            libc::statx(
                file.as_raw_fd(),
                c"".as_ptr(),
                libc::AT_EMPTY_PATH | libc::AT_STATX_FORCE_SYNC,
                libc::STATX_BASIC_STATS,
                &mut sx,
            )
        };
    }
    Ok(Stamp::of(&file.metadata()?))
}

/// A file's identity: its device and inode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct FileId {
    dev: u64,
    ino: u64,
}

impl FileId {
    fn of(m: &std::fs::Metadata) -> FileId {
        use std::os::unix::fs::MetadataExt;
        FileId {
            dev: m.dev(),
            ino: m.ino(),
        }
    }

    /// The identity of an open file.
    pub(crate) fn of_file(file: &File) -> io::Result<FileId> {
        file.metadata().map(|m| Self::of(&m))
    }

    /// The identity of the file at `path`, links followed.
    pub(crate) fn of_path(path: &Path) -> io::Result<FileId> {
        std::fs::metadata(path).map(|m| Self::of(&m))
    }

    /// The identity of what is at `path` itself (a link as itself).
    pub(crate) fn of_link(path: &Path) -> io::Result<FileId> {
        std::fs::symlink_metadata(path).map(|m| Self::of(&m))
    }

    /// The device alone (`--one-file-system`).
    pub(crate) fn device(&self) -> u64 {
        self.dev
    }
}

/// The open flag that keeps reads from updating a file's access time, where
/// the OS has one (Linux, for the files' owner); 0 elsewhere.
#[cfg(any(target_os = "linux", target_os = "android"))]
const NOATIME: i32 = libc::O_NOATIME;
/// The open flag that keeps reads from updating a file's access time, where
/// the OS has one (Linux, for the files' owner); 0 elsewhere.
#[cfg(not(any(target_os = "linux", target_os = "android")))]
const NOATIME: i32 = 0;

/// Make reads of `file` block again (opened non-blocking by [`open_input`]).
pub(crate) fn clear_nonblock(file: &File) -> io::Result<()> {
    let fd = file.as_raw_fd();
    // SAFETY: F_GETFL/F_SETFL on a descriptor this `File` owns; no memory
    // is involved.
    let ok = unsafe {
        let flags = libc::fcntl(fd, libc::F_GETFL);
        flags != -1 && libc::fcntl(fd, libc::F_SETFL, flags & !libc::O_NONBLOCK) != -1
    };
    if ok {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

/// Wait until `file` (a FIFO) has data to read or its writer hung up.
pub(crate) fn wait_readable(file: &File) -> io::Result<()> {
    let mut pfd = libc::pollfd {
        fd: file.as_raw_fd(),
        events: libc::POLLIN,
        revents: 0,
    };
    loop {
        // SAFETY: one valid pollfd for the duration of the call.
        match unsafe { libc::poll(&mut pfd, 1, -1) } {
            -1 if io::Error::last_os_error().kind() == io::ErrorKind::Interrupted => continue,
            -1 => return Err(io::Error::last_os_error()),
            _ => return Ok(()),
        }
    }
}

/// Is `file` on a file system whose clients answer `fstat` from a cache of
/// the server's attributes (NFS, SMB, 9P, Ceph, Lustre, GPFS, AFS, FUSE)?
/// False where it cannot tell. `meta`: the file's metadata; asked once
/// per device (`fstatfs` is a request to the server on FUSE).
pub(crate) fn attributes_cached(file: &File, meta: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    static SEEN: std::sync::Mutex<Vec<(u64, bool)>> = std::sync::Mutex::new(Vec::new());
    let dev = meta.dev();
    let mut seen = SEEN
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some(&(_, cached)) = seen.iter().find(|(d, _)| *d == dev) {
        return cached;
    }
    let cached = file_system_caches_attributes(file);
    seen.push((dev, cached));
    cached
}

/// The magic number of the file system `file` is on (`fstatfs`'s
/// `f_type`); `None` when the call fails.
#[cfg(any(target_os = "linux", target_os = "android"))]
fn linux_fs_type(file: &File) -> Option<i64> {
    // SAFETY: a zeroed statfs is a valid buffer, filled by the call.
    let mut fs: libc::statfs = unsafe { std::mem::zeroed() };
    // SAFETY: the descriptor is open for the life of `file`; `fs` is ours.
    if unsafe { libc::fstatfs(file.as_raw_fd(), &mut fs) } != 0 {
        return None;
    }
    #[allow(clippy::unnecessary_cast)] // (its type differs by target)
    Some(fs.f_type as i64)
}

/// [`attributes_cached`], asked of the file system.
fn file_system_caches_attributes(file: &File) -> bool {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        const NETWORK: [i64; 9] = [
            0x6969,      // NFS
            0xfe53_4d42, // SMB2
            0xff53_4d42, // CIFS
            0x0102_1997, // 9P
            0x00c3_6400, // Ceph
            0x0bd0_0bd0, // Lustre
            0x4750_4653, // GPFS
            0x5346_414f, // AFS
            0x6573_5546, // FUSE
        ];
        linux_fs_type(file).is_some_and(|t| NETWORK.contains(&t))
    }
    #[cfg(any(
        target_os = "macos",
        target_os = "ios",
        target_os = "freebsd",
        target_os = "openbsd"
    ))]
    {
        const NETWORK: [&[u8]; 8] = [
            b"nfs", b"smbfs", b"afpfs", b"webdav", b"fusefs", b"macfuse", b"osxfuse", b"p9fs",
        ];
        // SAFETY: a zeroed statfs is a valid buffer, filled by the call.
        let mut fs: libc::statfs = unsafe { std::mem::zeroed() };
        // SAFETY: the descriptor is open for the life of `file`; `fs` is ours.
        if unsafe { libc::fstatfs(file.as_raw_fd(), &mut fs) } == 0 {
            let name: Vec<u8> = fs
                .f_fstypename
                .iter()
                .take_while(|&&c| c != 0)
                .map(|&c| c as u8)
                .collect();
            return NETWORK.iter().any(|n| name.starts_with(n));
        }
        false
    }
    #[cfg(not(any(
        target_os = "linux",
        target_os = "android",
        target_os = "macos",
        target_os = "ios",
        target_os = "freebsd",
        target_os = "openbsd"
    )))]
    {
        let _ = file;
        false
    }
}

/// Is the byte of `file` at `at` in the page cache? A read that must not
/// wait for the storage says (`RWF_NOWAIT`); `None` where it cannot be
/// asked (another OS, an old kernel, an emulator that lacks the flag).
pub(crate) fn cached(file: &File, at: u64) -> Option<bool> {
    #[cfg(target_os = "linux")]
    {
        let mut byte = 0u8;
        let iov = libc::iovec {
            iov_base: (&raw mut byte).cast(),
            iov_len: 1,
        };
        let at = libc::off_t::try_from(at).ok()?;
        // SAFETY: one iovec of one byte, ours; the descriptor is open for
        // the life of `file`.
        let n = unsafe { libc::preadv2(file.as_raw_fd(), &iov, 1, at, libc::RWF_NOWAIT) };
        match n {
            1 => Some(true),
            // not in the cache (or not at once: it would have waited)
            _ if io::Error::last_os_error().raw_os_error() == Some(libc::EAGAIN) => Some(false),
            _ => None,
        }
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (file, at);
        None
    }
}

/// `buf.len()` bytes of `file` at `at`, read only if every one of them is
/// in the page cache: a read that must not wait for the storage
/// (`RWF_NOWAIT`), repeated past short reads. `Some(true)`: all read;
/// `Some(false)`: one would wait (what `buf` holds counts for nothing);
/// `None` where it cannot be asked (another OS, a file system without the
/// flag, as tmpfs, an old kernel), nothing read. `UnexpectedEof` when the
/// file ends before them.
pub(crate) fn read_exact_cached_at(
    file: &File,
    buf: &mut [u8],
    at: u64,
) -> io::Result<Option<bool>> {
    #[cfg(target_os = "linux")]
    {
        let mut done = 0;
        while done < buf.len() {
            let rest = &mut buf[done..];
            let iov = libc::iovec {
                iov_base: rest.as_mut_ptr().cast(),
                iov_len: rest.len(),
            };
            let off = at
                .checked_add(done as u64)
                .and_then(|o| libc::off_t::try_from(o).ok())
                .ok_or_else(|| io::Error::from(io::ErrorKind::InvalidInput))?;
            // SAFETY: one iovec over the rest of `buf`, ours; the descriptor
            // is open for the life of `file`.
            let n = unsafe { libc::preadv2(file.as_raw_fd(), &iov, 1, off, libc::RWF_NOWAIT) };
            match usize::try_from(n) {
                Ok(0) => return Err(io::ErrorKind::UnexpectedEof.into()),
                Ok(n) => done += n,
                Err(_) => {
                    let e = io::Error::last_os_error();
                    match e.raw_os_error() {
                        Some(libc::EINTR) => {}
                        Some(libc::EAGAIN) => return Ok(Some(false)),
                        Some(libc::EOPNOTSUPP | libc::ENOSYS | libc::EINVAL) if done == 0 => {
                            return Ok(None);
                        }
                        _ => return Err(e),
                    }
                }
            }
        }
        Ok(Some(true))
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (file, buf, at);
        Ok(None)
    }
}

/// Is `file` on a file system that holds its files in memory (tmpfs,
/// ramfs), whose every read is a copy out of the page cache? False where
/// it cannot tell.
pub(crate) fn in_memory(file: &File) -> bool {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        const MEMORY: [i64; 2] = [
            0x0102_1994, // tmpfs
            0x8584_58f6, // ramfs
        ];
        linux_fs_type(file).is_some_and(|t| MEMORY.contains(&t))
    }
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    {
        let _ = file;
        false
    }
}

/// Is every page of the `len` bytes mapped at `start` resident (`mincore`)?
/// False when it cannot tell. `start` must be page-aligned and the range
/// one mapping of ours.
pub(crate) fn resident(start: *const u8, len: usize, page: usize) -> bool {
    let mut pages = vec![0u8; len.div_ceil(page)];
    // SAFETY: [start, start + len) is a mapping of the caller's, whole pages
    // from its page-aligned start; `pages` has one byte per page. (The
    // vector's element type is `unsigned char` or `char` by OS: a cast.)
    let r = unsafe { libc::mincore(start as *mut libc::c_void, len, pages.as_mut_ptr().cast()) };
    r == 0 && pages.iter().all(|p| p & 1 == 1)
}

/// Open the file at `path` only to hint that its first `len` bytes will be
/// read soon ([`advise_willneed`]): without blocking (a FIFO), without
/// becoming its controlling terminal, without touching its access time
/// where the OS allows (not for files of another owner). Any failure is
/// ignored: it is only a hint.
pub(crate) fn prefetch(path: &Path, len: u64) {
    let open = |flags| {
        OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY | flags)
            .open(path)
    };
    // (O_NOATIME is refused on files of another owner)
    if let Ok(file) = open(NOATIME).or_else(|_| open(0)) {
        advise_willneed(&file, 0, len);
    }
}

/// Tell the OS that each read of `file` wants the bytes it asks for and no
/// read-ahead: a small file on far storage, read whole in one request. A
/// hint; silently dropped where the OS has none. (Linux's FUSE client drops
/// its read-ahead while its queue of background requests is congested, a
/// dozen or so: a file read whole then took two round trips, its first page
/// alone and then the rest. Reads "at random" are sent as asked.)
pub(crate) fn read_as_asked(file: &File) {
    #[cfg(any(target_os = "linux", target_os = "android", target_os = "freebsd"))]
    {
        // SAFETY: a hint on a descriptor the caller holds open; no memory.
        unsafe { libc::posix_fadvise(file.as_raw_fd(), 0, 0, libc::POSIX_FADV_RANDOM) };
    }
    #[cfg(not(any(target_os = "linux", target_os = "android", target_os = "freebsd")))]
    let _ = file;
}

/// Tell the OS that `len` bytes of `file` from `offset` will be read soon,
/// so that it starts reading them; a hint, silently dropped where the OS
/// has none.
fn advise_willneed(file: &impl AsRawFd, offset: u64, len: u64) {
    #[cfg(any(target_os = "linux", target_os = "android", target_os = "freebsd"))]
    {
        let (Ok(offset), Ok(len)) = (libc::off_t::try_from(offset), libc::off_t::try_from(len))
        else {
            return;
        };
        // SAFETY: a hint on a descriptor the caller holds open; no memory.
        unsafe { libc::posix_fadvise(file.as_raw_fd(), offset, len, libc::POSIX_FADV_WILLNEED) };
    }
    #[cfg(any(target_os = "macos", target_os = "ios"))]
    {
        let (Ok(offset), Ok(count)) = (libc::off_t::try_from(offset), libc::c_int::try_from(len))
        else {
            return;
        };
        let advice = libc::radvisory {
            ra_offset: offset,
            ra_count: count,
        };
        // SAFETY: F_RDADVISE reads one radvisory struct we hold.
        unsafe { libc::fcntl(file.as_raw_fd(), libc::F_RDADVISE, &advice) };
    }
    #[cfg(not(any(
        target_os = "linux",
        target_os = "android",
        target_os = "freebsd",
        target_os = "macos",
        target_os = "ios"
    )))]
    {
        let _ = (file, offset, len);
    }
}

/// A new file, mode 0600, in the directory at `dir_path` with no name yet
/// (Linux's `O_TMPFILE`): it becomes visible only once [`link_unnamed`]
/// names it, so a crash leaves nothing behind. `None` where the OS or the
/// file system has no such files.
pub(crate) fn unnamed_file(dir_path: &Path) -> Option<File> {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        OpenOptions::new()
            .write(true)
            .mode(0o600)
            .custom_flags(libc::O_TMPFILE)
            .open(dir_path)
            .ok()
    }
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    {
        let _ = dir_path;
        None
    }
}

/// Give `file` (from [`unnamed_file`]) the name `name` in the open
/// directory `dir`: `Ok(true)` when linked, `Ok(false)` when the name is
/// taken (try another), an error when it cannot be linked at all.
pub(crate) fn link_unnamed(file: &File, dir: &File, name: &OsStr) -> io::Result<bool> {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        use std::ffi::CString;
        use std::os::unix::ffi::OsStrExt;
        let invalid = || io::Error::from(io::ErrorKind::InvalidInput);
        let from =
            CString::new(format!("/proc/self/fd/{}", file.as_raw_fd())).map_err(|_| invalid())?;
        let to = CString::new(name.as_bytes()).map_err(|_| invalid())?;
        // SAFETY: both paths are NUL-terminated strings that outlive the
        // call; `dir` is an open directory
        let linked = unsafe {
            libc::linkat(
                libc::AT_FDCWD,
                from.as_ptr(),
                dir.as_raw_fd(),
                to.as_ptr(),
                libc::AT_SYMLINK_FOLLOW,
            )
        };
        match linked {
            0 => Ok(true),
            _ => match io::Error::last_os_error() {
                e if e.kind() == io::ErrorKind::AlreadyExists => Ok(false),
                e => Err(e),
            },
        }
    }
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    {
        let _ = (file, dir, name);
        Err(io::Error::from(io::ErrorKind::Unsupported))
    }
}

// ----- names -----------------------------------------------------------------

/// The name that `bytes` are: any bytes are one on Unix.
#[inline]
pub(crate) fn os_string(bytes: Vec<u8>) -> Option<OsString> {
    use std::os::unix::ffi::OsStringExt;
    Some(OsString::from_vec(bytes))
}

/// A name as digest lines print it: as it is on Unix (GNU's escaping
/// applies to it).
#[inline]
pub(crate) fn printed_name(name: &[u8]) -> std::borrow::Cow<'_, [u8]> {
    std::borrow::Cow::Borrowed(name)
}

// ----- the process ---------------------------------------------------------

/// The soft limit on this process's address space (`ulimit -v`), if any.
pub(crate) fn address_space_limit() -> Option<usize> {
    let mut r = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes one rlimit, which `r` is.
    let ok = unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut r) } == 0;
    (ok && r.rlim_cur != libc::RLIM_INFINITY)
        .then(|| usize::try_from(r.rlim_cur).unwrap_or(usize::MAX))
}

/// The soft limit on this process's open descriptors (`ulimit -n`), if any.
pub(crate) fn open_files_limit() -> Option<u64> {
    let mut r = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes one rlimit, which `r` is.
    let ok = unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut r) } == 0;
    #[allow(clippy::unnecessary_cast)] // (its type differs by target)
    (ok && r.rlim_cur != libc::RLIM_INFINITY).then_some(r.rlim_cur as u64)
}

/// How long the calling thread has waited, runnable, for a core since it
/// started (Linux: `/proc/thread-self/schedstat`, its second field); None
/// where the system does not say.
pub(crate) fn run_queue_wait() -> Option<std::time::Duration> {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        use std::io::Read;
        // (one read of a small buffer: asked for every slow request of a
        // far file, three a file, where `fs::read` made five calls)
        let mut buf = [0u8; 128];
        let n = File::open("/proc/thread-self/schedstat")
            .ok()?
            .read(&mut buf)
            .ok()?;
        let field = buf[..n].split(|b| b.is_ascii_whitespace()).nth(1)?;
        let ns: u64 = std::str::from_utf8(field).ok()?.parse().ok()?;
        Some(std::time::Duration::from_nanos(ns))
    }
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    None
}

/// The device a file is on (its `st_dev`).
pub(crate) fn device(meta: &std::fs::Metadata) -> u64 {
    use std::os::unix::fs::MetadataExt;
    meta.dev()
}

/// One allocator arena for all threads (glibc; elsewhere nothing): each
/// new thread's arena reserves 64 MiB of address space, which a low
/// `ulimit -v` cannot spare. Call before any other thread exists.
pub(crate) fn one_malloc_arena() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets an allocator parameter; called before any
    // thread of ours exists.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, 1);
    }
}

/// How many CPUs this process may run on (its affinity), where the OS says
/// in one call (Linux); `None` elsewhere or when the call fails.
pub(crate) fn affinity_cpus() -> Option<usize> {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: a zeroed cpu_set_t is a valid empty set, filled by the call.
        let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
        // SAFETY: the size passed is the set's own.
        let ok = unsafe { libc::sched_getaffinity(0, std::mem::size_of_val(&set), &mut set) } == 0;
        if !ok {
            return None;
        }
        // SAFETY: the set was filled by the kernel.
        let n = unsafe { libc::CPU_COUNT(&set) };
        usize::try_from(n).ok().filter(|&n| n > 0)
    }
    #[cfg(not(target_os = "linux"))]
    {
        None
    }
}

#[cfg(feature = "openssl")]
/// Open the first of `files` (shared libraries) that opens, with `dlopen`,
/// never to be closed: its handle as an address (a raw pointer is not
/// Sync). Never in a static binary, which carries its own libc: a
/// dlopen'ed library would bring a second one into the process.
pub(crate) fn open_library(files: &[&std::ffi::CStr]) -> Option<usize> {
    if cfg!(target_feature = "crt-static") {
        return None;
    }
    files.iter().find_map(|file| {
        // SAFETY: a valid C string; RTLD_LOCAL keeps its symbols out of the
        // global namespace.
        let lib = unsafe { libc::dlopen(file.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL) };
        (!lib.is_null()).then_some(lib as usize)
    })
}

#[cfg(feature = "openssl")]
/// The symbol `name` of the library `lib` ([`open_library`]'s handle).
pub(crate) fn library_symbol(lib: usize, name: &std::ffi::CStr) -> Option<*mut libc::c_void> {
    // SAFETY: `lib` is a live handle (never closed) and `name` a C string.
    let p = unsafe { libc::dlsym(lib as *mut libc::c_void, name.as_ptr()) };
    (!p.is_null()).then_some(p)
}

// ----- mappings --------------------------------------------------------------

/// Advise the kernel that `map` is read from start to end. Advisory only:
/// hashing is correct whether or not the kernel takes it.
pub(crate) fn advise_sequential(map: &memmap2::Mmap) {
    let _ = map.advise(memmap2::Advice::Sequential);
}

/// Drop the pages of `len` bytes at `start` of `map` (they stay in the
/// page cache, not in fastsum's RSS). The caller promises those bytes are
/// hashed and never read again.
pub(crate) fn release_pages(map: &memmap2::Mmap, start: usize, len: usize) {
    // SAFETY: the caller releases only bytes that are hashed and never read
    // again; dropping pages from a private read-only file mapping only
    // means a later read would fault them back in from the file.
    let _ = unsafe { map.unchecked_advise_range(memmap2::UncheckedAdvice::DontNeed, start, len) };
}

// ----- memory --------------------------------------------------------------

/// The alignment of a [`Region`]: the size of a huge page on x86-64 and
/// most arm64 kernels, so that each 2 MiB of the region can be one page.
const HUGE: usize = 2 << 20;

/// Zeroed memory of our own, mapped from the kernel and aligned to
/// [`HUGE`]: its pages are made (zeroed) as they are first touched, as a
/// big allocation's are, and it can be asked to be made of huge pages
/// ([`Region::advise_huge`]).
pub(crate) struct Region {
    ptr: ptr::NonNull<u8>,
    len: usize,
}

// SAFETY: a Region owns its memory outright (no other handle to it exists),
// like a `Vec<u8>`.
unsafe impl Send for Region {}
// SAFETY: shared references only read through `as_slice`.
unsafe impl Sync for Region {}

impl Region {
    /// `len` zero bytes, aligned to [`HUGE`]; `None` if the address space
    /// cannot hold them, or `len` is not a whole number (> 0) of [`HUGE`].
    pub(crate) fn zeroed(len: usize) -> Option<Region> {
        if len == 0 || !len.is_multiple_of(HUGE) {
            return None;
        }
        // a kernel that aligns big anonymous mappings by itself (Linux 6.7
        // and later, for lengths of whole huge pages) needs one call
        let ptr = map_anonymous(len)?;
        if (ptr as usize).is_multiple_of(HUGE) {
            return Region::from_raw(ptr, len);
        }
        unmap(ptr, len);
        // else map more and give back the ends, falling back to any
        // address when there is no room for the more
        let Some(wide) = len.checked_add(HUGE).and_then(map_anonymous) else {
            return Region::from_raw(map_anonymous(len)?, len);
        };
        let head = (HUGE - wide as usize % HUGE) % HUGE;
        if head > 0 {
            unmap(wide, head);
        }
        // SAFETY: `head < HUGE`, so `wide + head .. wide + head + len` is
        // inside the `len + HUGE` bytes just mapped.
        let start = unsafe { wide.add(head) };
        let tail = HUGE - head;
        // SAFETY: as above: the tail is the mapping's last `HUGE - head` bytes.
        unmap(unsafe { start.add(len) }, tail);
        Region::from_raw(start, len)
    }

    /// The region at `ptr`, of small pages until [`Region::advise_huge`]
    /// (where the kernel makes huge pages unasked, a block holding a small
    /// file would cost a 2 MiB page zeroed).
    fn from_raw(ptr: *mut u8, len: usize) -> Option<Region> {
        let region = Region {
            ptr: ptr::NonNull::new(ptr)?,
            len,
        };
        region.advise(false);
        Some(region)
    }

    /// Ask the kernel to make the pages not yet touched huge pages: one
    /// fault and one pinned page per 2 MiB instead of 512, for buffers that
    /// a file system fills by pinning them (FUSE, NFS direct reads). A hint,
    /// on Linux only.
    pub(crate) fn advise_huge(&self) {
        self.advise(true);
    }

    fn advise(&self, huge: bool) {
        #[cfg(any(target_os = "linux", target_os = "android"))]
        // SAFETY: the range is this region's own mapping; the advice
        // changes no contents.
        unsafe {
            let advice = if huge {
                libc::MADV_HUGEPAGE
            } else {
                libc::MADV_NOHUGEPAGE
            };
            libc::madvise(self.ptr.as_ptr().cast(), self.len, advice);
        }
        #[cfg(not(any(target_os = "linux", target_os = "android")))]
        let _ = huge;
    }

    pub(crate) fn as_slice(&self) -> &[u8] {
        // SAFETY: `len` bytes from `ptr` are mapped, readable and
        // initialised (zero or written since) for the region's life.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }

    pub(crate) fn as_mut_slice(&mut self) -> &mut [u8] {
        // SAFETY: as in `as_slice`, and `&mut self` makes the access unique.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }
}

impl Drop for Region {
    fn drop(&mut self) {
        unmap(self.ptr.as_ptr(), self.len);
    }
}

/// `len` bytes of zeroed, private, read-write memory anywhere.
fn map_anonymous(len: usize) -> Option<*mut u8> {
    // SAFETY: an anonymous private mapping at an address of the kernel's
    // choosing touches no existing memory.
    let p = unsafe {
        libc::mmap(
            ptr::null_mut(),
            len,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        )
    };
    (p != libc::MAP_FAILED).then_some(p.cast())
}

/// Give back `len` bytes mapped at `ptr` (a mapping of ours, or its end).
fn unmap(ptr: *mut u8, len: usize) {
    // SAFETY: callers pass whole pages of a mapping they own and no longer
    // use. (It cannot fail for such a range: nothing to report.)
    unsafe {
        libc::munmap(ptr.cast(), len);
    }
}

// ----- errors: what an OS error number means, and errors made here -----------

/// The error of a read or write on a standard descriptor that was closed
/// when fastsum started (EBADF, as a read or write of it would give).
pub(crate) fn closed_descriptor() -> io::Error {
    io::Error::from_raw_os_error(libc::EBADF)
}

/// The error of a name that must be a directory and is not (ENOTDIR:
/// `--tree-digest FILE`).
pub(crate) fn not_a_directory() -> io::Error {
    io::Error::from_raw_os_error(libc::ENOTDIR)
}

/// Has the process (or the system) no descriptor left (EMFILE, ENFILE)?
pub(crate) fn out_of_descriptors(e: &io::Error) -> bool {
    matches!(e.raw_os_error(), Some(libc::EMFILE | libc::ENFILE))
}

/// Was a read refused for its count (ENOMEM: Linux's sysctl files under
/// /proc/sys refuse a count of 4 MiB or more), so that a smaller one may
/// pass?
pub(crate) fn read_refused_for_its_size(e: &io::Error) -> bool {
    e.raw_os_error() == Some(libc::ENOMEM)
}

/// Is `e` what a busy or overloaded server answers (EAGAIN, ETIMEDOUT,
/// EIO, EBUSY, ECONNRESET), so that fewer requests in flight may help?
pub(crate) fn is_server_busy(e: &io::Error) -> bool {
    use io::ErrorKind::{ConnectionReset, ResourceBusy, TimedOut, WouldBlock};
    matches!(
        e.kind(),
        WouldBlock | TimedOut | ResourceBusy | ConnectionReset
    ) || e.raw_os_error() == Some(libc::EIO)
}

/// Did [`open_no_follow`] meet a link (ELOOP)?
pub(crate) fn is_link_refused(e: &io::Error) -> bool {
    e.raw_os_error() == Some(libc::ELOOP)
}

// ----- for tests: what std cannot make -----------------------------------------

/// The error of an open with no descriptor left (EMFILE).
#[cfg(test)]
pub(crate) fn descriptors_exhausted() -> io::Error {
    io::Error::from_raw_os_error(libc::EMFILE)
}

/// Make a FIFO at `path` (mode 0644).
#[cfg(test)]
pub(crate) fn make_fifo(path: &Path) -> io::Result<()> {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(path.as_os_str().as_bytes())?;
    // SAFETY: a valid NUL-terminated path.
    match unsafe { libc::mkfifo(c.as_ptr(), 0o644) } {
        0 => Ok(()),
        _ => Err(io::Error::last_os_error()),
    }
}

/// Make a chain of `levels` directories named `name` below `dir`, with a
/// file `file` in each, by descriptor: its paths may be longer than
/// PATH_MAX, which no call by path reaches.
#[cfg(test)]
pub(crate) fn make_deep_chain(dir: &Path, name: &str, levels: usize) {
    use std::os::unix::ffi::OsStrExt;
    let c = |s: &[u8]| std::ffi::CString::new(s).expect("no NUL in a test's names");
    let top = c(dir.as_os_str().as_bytes());
    // SAFETY: valid NUL-terminated paths; each descriptor is closed.
    unsafe {
        let mut fd = libc::open(top.as_ptr(), libc::O_DIRECTORY | libc::O_RDONLY);
        assert!(fd >= 0);
        for _ in 0..levels {
            let n = c(name.as_bytes());
            assert_eq!(libc::mkdirat(fd, n.as_ptr(), 0o755), 0);
            let f = libc::openat(
                fd,
                c(b"file").as_ptr(),
                libc::O_CREAT | libc::O_WRONLY,
                0o644,
            );
            assert!(f >= 0);
            libc::close(f);
            let next = libc::openat(fd, n.as_ptr(), libc::O_DIRECTORY | libc::O_RDONLY);
            assert!(next >= 0);
            libc::close(fd);
            fd = next;
        }
        libc::close(fd);
    }
}
