//! What is hashed: a named file or standard input; opening one tells, once,
//! what it is (a regular file of a known length, or a stream read to its end).
//! A name a check file lists may be one of two files, beside the check file
//! or here: which one is settled where it is opened ([`Input::settle`]).

use std::ffi::OsString;
use std::fs::File;
use std::io::{self, Read, Seek};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use crate::stdio::stdin_was_closed;
// what tells that a regular file changed, or is not the one opened
use crate::sys::Stamp;

pub(crate) mod descriptors;
mod listing;

/// One thing to hash.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Input {
    /// Standard input, named `-`.
    Stdin,
    /// A file by path.
    Path(PathBuf),
    /// A name a check file lists, not yet settled ([`Input::listed`]):
    /// the file here, or, for a relative name in a check file named with a
    /// directory (`fastsum -c dl/SHA256SUMS`), perhaps the one beside the
    /// check file. Whoever opens it settles it first ([`Input::settle`]), so
    /// that where each lookup waits a round trip (sshfs, NFS) they are in
    /// flight with the opens, not made one by one as the check file is read.
    Listed(Box<ListedName>),
}

/// The files a name a check file lists may be.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ListedName {
    /// The name as listed: relative to here, or absolute.
    listed: PathBuf,
    /// The name joined to the check file's directory, when the name is
    /// looked for there first.
    there: Option<PathBuf>,
}

/// What an open input turned out to be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A regular file with this many bytes from the read position when
    /// opened (a hint for planning reads, never trusted for correctness:
    /// files grow and shrink while read; /proc files say 0 whatever they
    /// hold).
    Regular { len: u64 },
    /// Standard input, a FIFO, a device: read to its end, and shared with
    /// whoever else reads it (two readers at once would split its bytes).
    Stream,
}

/// An open input. Its descriptor is counted while alive, so that running
/// out of descriptors can wait for others to close ([`descriptors`]).
#[derive(Debug)]
pub(crate) struct Opened {
    file: descriptors::Counted,
    kind: Kind,
    /// Where reading starts: 0 for a file fastsum opened, the shared read
    /// position for standard input (a script may have read part of it).
    start: u64,
    /// A regular file's size and change times at open, to tell at its end
    /// whether it changed while read (`None`: a stream, or a file that
    /// says 0 bytes, as /proc's do whatever they hold).
    stamp: Option<Stamp>,
    /// When it was probed, if it has a stamp (nanoseconds since the epoch;
    /// 0: not known): a file last changed before then was not changed
    /// while read ([`Opened::ends_at`]).
    probed_at: u64,
    /// Bytes read through `read` so far.
    read: u64,
    /// A regular file of its own whose size at open may be stale: its file
    /// system's client caches attributes ([`Opened::size_may_be_stale`]).
    stale_size: bool,
    shared: bool,
    /// A FIFO opened without waiting for a writer: the wait (GNU's open
    /// waits) happens at the first read, once the scheduler has handed on
    /// whatever was finished before it.
    fifo_wait: bool,
}

impl Input {
    /// `-` is standard input, anything else a path.
    pub fn from_arg(arg: OsString) -> Input {
        if arg.as_encoded_bytes() == b"-" {
            Input::Stdin
        } else {
            Input::Path(PathBuf::from(arg))
        }
    }

    /// The file `name` a check file lists (`-`: standard input). With
    /// `beside`, the check file's directory, under fastsum's own rules
    /// (`check/grammar/gnu.rs`): a relative name found beside the check
    /// file is that one, as rhash reads it, even when one of that name is
    /// here too (a stale `./tool.tar.gz` is not what `dl/SHA256SUMS` lists:
    /// issue 40 §12); a name found only here is here's. Which is settled at
    /// open ([`Input::settle`]).
    pub(crate) fn listed(beside: Option<&Path>, name: OsString) -> Input {
        let listed = PathBuf::from(name);
        if listed.as_os_str() == "-" {
            return Input::Stdin;
        }
        let there = beside
            .filter(|_| listed.is_relative())
            .map(|dir| dir.join(&listed));
        Input::Listed(Box::new(ListedName { listed, there }))
    }

    /// Settle which file an [`Input::Listed`] is, as [`Input::listed`]
    /// says: beside the check file if a file (or a link) of that name is
    /// there, shown as opened (`dl/tool.tar.gz: OK`), unless it is the very
    /// file the name reaches from here (the check file's directory is this
    /// one by another path: its name as listed, as GNU shows it); else
    /// here. Up to two `lstat`s (on far storage, a directory's listing may
    /// answer them: `listing`), made by whoever opens the input. Any other
    /// input is settled already.
    pub(crate) fn settle(&mut self) {
        if let Input::Listed(b) = self {
            *self = Input::Path(b.which().to_path_buf());
        }
    }

    /// The name as printed in checksum lines: raw bytes, never lossy (of
    /// an input not settled yet, the name as listed).
    pub(crate) fn name(&self) -> &[u8] {
        match self {
            Input::Stdin => b"-",
            Input::Path(p) => p.as_os_str().as_encoded_bytes(),
            Input::Listed(b) => b.listed.as_os_str().as_encoded_bytes(),
        }
    }

    /// The path this input names (None: standard input); of an input not
    /// settled yet, the name as listed.
    pub(crate) fn path(&self) -> Option<&Path> {
        match self {
            Input::Stdin => None,
            Input::Path(p) => Some(p),
            Input::Listed(b) => Some(&b.listed),
        }
    }

    /// Open for reading and find out what it is.
    pub(crate) fn open(&self) -> io::Result<Opened> {
        self.open_unprobed().and_then(|u| self.probe(u))
    }

    /// The first half of [`Input::open`]: the descriptor alone. Over many
    /// tiny files the opener thread does this and the thread that reads
    /// them the [`Input::probe`] (an fstat), which balances the two: the
    /// openat costs about what fstat, read and close cost together
    /// (docs/BENCHMARKS.md, "Many files and check mode").
    pub(crate) fn open_unprobed(&self) -> io::Result<Unprobed> {
        descriptors::open(|| match self {
            Input::Stdin if stdin_was_closed() => Err(crate::sys::closed_descriptor()),
            // unbuffered, sharing descriptor 0's offset
            Input::Stdin => crate::sys::stdin_file(),
            // (Unix: non-blocking, so that opening a FIFO nobody writes to
            // yet does not block the thread that opens inputs in order)
            Input::Path(p) => crate::sys::open_input(p),
            // (settled where it is opened; here only if a caller did not)
            Input::Listed(b) => crate::sys::open_input(b.which()),
        })
        .map(Unprobed)
    }

    /// The second half of [`Input::open`]: find out what the input opened
    /// as `file` is.
    pub(crate) fn probe(&self, Unprobed(file): Unprobed) -> io::Result<Opened> {
        let meta = file.metadata();
        let (kind, start) = match &meta {
            Ok(m) if m.is_file() => {
                let start = match self {
                    Input::Stdin => (&*file).stream_position()?,
                    Input::Path(_) | Input::Listed(_) => 0,
                };
                let len = m.len().saturating_sub(start);
                (Kind::Regular { len }, start)
            }
            _ => (Kind::Stream, 0),
        };
        let mut fifo_wait = false;
        if *self != Input::Stdin && kind == Kind::Stream {
            if meta
                .as_ref()
                .is_ok_and(|m| crate::sys::is_fifo(&m.file_type()))
            {
                fifo_wait = true;
            } else {
                // a device or the like: reads block, as they would for GNU
                clear_nonblock(&file)?;
            }
        }
        let shared = *self == Input::Stdin || kind == Kind::Stream;
        let stamp = meta
            .as_ref()
            .ok()
            .filter(|m| m.is_file() && m.len() > 0)
            .map(Stamp::of);
        let stale_size = match &meta {
            Ok(m) if stamp.is_some() && !shared => attributes_cached(&file, m),
            _ => false,
        };
        if let Some(stamp) = &stamp {
            // a network file system's device starts far (its first open only)
            crate::storage::observer().seed(stamp.device(), stale_size);
        }
        Ok(Opened {
            file,
            kind,
            start,
            probed_at: stamp.map_or(0, |_| now()),
            stamp,
            read: 0,
            stale_size,
            shared,
            fifo_wait,
        })
    }

    /// [`Input::open`], but when the process is out of descriptors and other
    /// inputs are open, wait for one to close and try again: a low
    /// `ulimit -n` slows the run down instead of failing files.
    pub(crate) fn open_patiently(&self) -> io::Result<Opened> {
        descriptors::retry_when_closed(|| self.open())
    }

    /// [`Input::open_unprobed`], as patient as [`Input::open_patiently`].
    pub(crate) fn open_unprobed_patiently(&self) -> io::Result<Unprobed> {
        descriptors::retry_when_closed(|| self.open_unprobed())
    }
}

impl ListedName {
    /// The files it may be: here, and beside the check file.
    pub(crate) fn candidates(&self) -> impl Iterator<Item = &Path> {
        std::iter::once(self.listed.as_path()).chain(self.there.as_deref())
    }

    /// Which file the name is ([`Input::settle`]). On far
    /// storage, a name its directory's listing does not hold is not looked
    /// up ([`listing`]: that directory's lookups may be made one at a time).
    fn which(&self) -> &Path {
        let absent = |p: &Path| match (p.parent(), p.file_name()) {
            (Some(dir), Some(name)) => listing::surely_absent(dir, name),
            _ => false,
        };
        // (asked of every name: the listing of a directory many listed
        // names are in also readies the lookups of their opens)
        let not_here = absent(&self.listed);
        let Some(there) = self.there.as_deref().filter(|t| !absent(t)) else {
            return &self.listed;
        };
        let here = |id| !not_here && listing::looked_up(&self.listed).is_ok_and(|h| h == id);
        match listing::looked_up(there) {
            Ok(id) if !here(id) => there,
            _ => &self.listed,
        }
    }
}

/// How many names [`settle_all`] looks up at once: as many as the opener's
/// crew opens on far storage.
const SETTLED_AT_ONCE: usize = 16;

/// Settle every input of `inputs` ([`Input::settle`]), their lookups many
/// at once (a thread for every 8 names not settled, 16 at most), for a
/// command that must know each file's name before any is opened
/// (`--audit` matches the names listed against its walk's).
pub(crate) fn settle_all<'a>(inputs: impl IntoIterator<Item = &'a mut Input>) {
    let unsettled: Vec<&mut Input> = inputs
        .into_iter()
        .filter(|i| matches!(i, Input::Listed(_)))
        .collect();
    let threads = SETTLED_AT_ONCE.min(unsettled.len().div_ceil(8));
    let work = std::sync::Mutex::new(unsettled.into_iter());
    let settle = || {
        while let Some(input) = work.lock().ok().and_then(|mut w| w.next()) {
            input.settle();
        }
    };
    std::thread::scope(|s| {
        for _ in 1..threads {
            // (a thread that cannot be had leaves its share to the others)
            let _ = std::thread::Builder::new()
                .name("settle".into())
                .stack_size(256 * 1024)
                .spawn_scoped(s, settle);
        }
        settle();
    });
}

/// An input's descriptor, opened but not yet probed ([`Input::probe`]
/// makes it an [`Opened`]).
#[derive(Debug)]
pub(crate) struct Unprobed(descriptors::Counted);

impl Opened {
    pub(crate) fn kind(&self) -> Kind {
        self.kind
    }

    /// The device a regular file with bytes is on, as the storage
    /// observer knows it (None: a stream, or an empty file).
    pub(crate) fn device(&self) -> Option<u64> {
        self.stamp.as_ref().map(Stamp::device)
    }

    /// Is this input's read position shared with other readers (standard
    /// input, even when it is a regular file; a FIFO)? Then it must be read
    /// by one reader at a time, in order, as GNU reads it.
    pub(crate) fn is_shared(&self) -> bool {
        self.shared
    }

    pub(crate) fn file(&self) -> &File {
        &self.file
    }

    /// Where reading this regular file starts now, and how many bytes
    /// follow: from open for a file of its own; for a shared one (standard
    /// input), asked of the descriptor now, since an earlier reader of the
    /// same input (`- -`) may have moved it after this one was opened.
    pub(crate) fn span(&self) -> io::Result<(u64, u64)> {
        match self.kind {
            Kind::Regular { len } if !self.shared => Ok((self.start, len)),
            _ => {
                let start = (&*self.file).stream_position()?;
                let size = self.file.metadata()?.len();
                Ok((start, size.saturating_sub(start)))
            }
        }
    }

    /// Move a shared read position to `offset`, as if the bytes before it
    /// had been read (they were hashed from a mapping): the next reader of
    /// standard input sees what follows them, as with GNU.
    pub(crate) fn consume_to(&self, offset: u64) -> io::Result<()> {
        if self.shared {
            (&*self.file).seek(io::SeekFrom::Start(offset))?;
        }
        Ok(())
    }
}

impl Read for Opened {
    #[inline]
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.fifo_wait {
            wait_for_writer(&self.file)?;
            clear_nonblock(&self.file)?;
            self.fifo_wait = false;
        }
        let mut n = self.file.read(buf)?;
        if n == 0 && !self.ends_here()? {
            // longer than the size it had (a stale one): asked, the file
            // system knows better now
            n = self.file.read(buf)?;
            if n == 0 {
                return Err(changed());
            }
        }
        self.read += n as u64;
        Ok(n)
    }
}

impl Opened {
    /// The last step of every route that reads a regular file, once a read
    /// returned 0 or the bytes read through it reached its length at open:
    /// is this the file's end? See [`Opened::ends_at`].
    pub(crate) fn ends_here(&self) -> io::Result<bool> {
        self.ends_at(self.start + self.read)
    }

    /// Is `end` (every byte before it hashed) the end of this file, which
    /// did not change while it was hashed? Where `fstat` is exact, the
    /// file's stamp must be as it was at open ([`Opened::ensure_unchanged`]).
    /// Where the file system's client may answer `fstat` from a cache
    /// (NFS, SMB, FUSE…), the length seen at open may be stale, and no read
    /// that returns 0 proves an end (the client may stop at the length it
    /// has): the file system itself is asked (`sys::fresh_stamp`). Longer
    /// than `end`: false, the caller reads on (a stale size, or bytes
    /// appended: its end will tell). As long: the end, if the file is as it
    /// was at open or was last changed before it was opened (the stamp at
    /// open was stale: every byte read is of the one version it has had
    /// since). Anything else changed while it was read: an error. Nothing
    /// to check for a stream.
    pub(crate) fn ends_at(&self, end: u64) -> io::Result<bool> {
        let Some(then) = self.stamp else {
            return Ok(true);
        };
        if !self.size_may_be_stale() {
            return self.ensure_unchanged().map(|()| true);
        }
        let now = self.fresh_stamp()?;
        if now.len() > end {
            return Ok(false);
        }
        let probed = SystemTime::UNIX_EPOCH + std::time::Duration::from_nanos(self.probed_at);
        let one_version = now == then || (self.probed_at > 0 && now.changed_before(probed));
        if now.len() == end && one_version {
            Ok(true)
        } else {
            Err(changed())
        }
    }

    /// What the file system itself says of the file now
    /// (`sys::fresh_stamp`), the request timed for the storage observer
    /// (a stat that waits on the server).
    fn fresh_stamp(&self) -> io::Result<Stamp> {
        let fresh = || crate::sys::fresh_stamp(&self.file);
        crate::storage::timed(crate::storage::Request::Stat, Stamp::device, fresh)
    }

    /// Is this a regular file of its own whose size at open may be stale
    /// (its file system's client caches attributes)? Then it is not mapped
    /// (a mapping ends at that size), and its end is asked of the file
    /// system ([`Opened::ends_at`]).
    pub(crate) fn size_may_be_stale(&self) -> bool {
        self.stale_size
    }

    /// Is this file longer now than its length at open, which may have been
    /// stale (its file system's client caches attributes)? Asked of the
    /// file system; if so, its reads are planned to the length it has now
    /// ([`Opened::span`]). False where `fstat` is exact: a file that grows
    /// while read changed.
    pub(crate) fn grown(&mut self) -> io::Result<bool> {
        let Kind::Regular { len } = self.kind else {
            return Ok(false);
        };
        if !self.stale_size {
            return Ok(false);
        }
        let now = self.fresh_stamp()?.len();
        let now = now.saturating_sub(self.start);
        if now <= len {
            return Ok(false);
        }
        self.kind = Kind::Regular { len: now };
        Ok(true)
    }

    /// Go on reading at `offset`, every byte before it having been read
    /// otherwise (in ranges, by offset).
    pub(crate) fn skip_to(&mut self, offset: u64) -> io::Result<()> {
        (&*self.file).seek(io::SeekFrom::Start(offset))?;
        self.read = offset.saturating_sub(self.start);
        Ok(())
    }

    /// An error if the file was truncated, written or appended to since it
    /// was opened, as its `fstat` says, so that no digest is made of bytes
    /// that were never the file's (GNU's tools print one): the end of a
    /// mapping, and of reads where `fstat` is exact ([`Opened::ends_at`]).
    /// Nothing to check for a stream.
    pub(crate) fn ensure_unchanged(&self) -> io::Result<()> {
        let Some(then) = self.stamp else {
            return Ok(());
        };
        if Stamp::of(&self.file.metadata()?) == then {
            Ok(())
        } else {
            Err(changed())
        }
    }
}

/// Is `file` on a file system whose clients answer `fstat` from a cache of
/// the server's attributes (NFS, SMB, 9P, Ceph, Lustre, FUSE)? There a
/// file's size and times at open can be seconds old. (Not on sysfs and the
/// like, whose files say 4096 bytes whatever they hold, nor on local file
/// systems, whose `fstat` is exact.)
fn attributes_cached(file: &File, meta: &std::fs::Metadata) -> bool {
    crate::sys::attributes_cached(file, meta)
}

/// Now, in nanoseconds since the epoch (0 if the clock says otherwise).
fn now() -> u64 {
    SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX))
}

/// The error of a file that changed while it was hashed: the same words
/// on every route.
pub(crate) fn changed() -> io::Error {
    io::Error::other("file changed as we read it")
}

/// Wait until a FIFO opened without a writer has data, or a writer that
/// came has gone (Linux reports a hang-up only for a writer that opened
/// after us), as GNU's blocking open and first read would.
fn wait_for_writer(file: &File) -> io::Result<()> {
    crate::sys::wait_readable(file)
}

/// Make reads on `file` block again.
fn clear_nonblock(file: &File) -> io::Result<()> {
    crate::sys::clear_nonblock(file)
}

/// Read into `buf`, retrying reads interrupted by a signal, and reads the
/// file refused for their size (ENOMEM: Linux's sysctl files under
/// /proc/sys refuse a count of 4 MiB or more) with half the count, down to
/// a page, before that fails the input.
#[inline]
pub(crate) fn read_retry(r: &mut impl Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut count = buf.len();
    loop {
        match r.read(&mut buf[..count]) {
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) if crate::sys::read_refused_for_its_size(&e) && count > 4096 => {
                count = (count / 2).max(4096);
            }
            other => return other,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dash_is_stdin() {
        assert_eq!(Input::from_arg("-".into()), Input::Stdin);
        assert_eq!(Input::from_arg("-x".into()).name(), b"-x");
        assert_eq!(Input::Stdin.name(), b"-");
    }

    #[test]
    fn opening_tells_what_an_input_is() {
        let f = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(f.path(), b"hello").unwrap();
        let input = Input::Path(f.path().to_path_buf());
        assert_eq!(input.open().unwrap().kind(), Kind::Regular { len: 5 });
        let null = Input::Path("/dev/null".into());
        assert_eq!(null.open().unwrap().kind(), Kind::Stream);
        let dir = Input::Path("/".into());
        // a directory opens (the read fails later, with GNU's message)
        assert_eq!(dir.open().unwrap().kind(), Kind::Stream);
    }
}
