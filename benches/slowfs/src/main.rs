//! slowfs: a read-only FUSE file system serving a directory as a network
//! file system would, for fastsum's storage benchmarks and tests
//! (issues 30 and 41): every request of the kinds a real client pays a
//! round trip for (by default reads only; see `--profile`) is answered
//! after a set latency, the
//! bytes of all requests share a set bandwidth, at most a set number of
//! requests are served at once, files are opened with `direct_io` (no page
//! cache: every read reaches the server), and faults can be injected (EIO
//! at an offset of a file, short reads, a file that shrinks while read).
//!
//! The handler threads never sleep: a read is served from the backing file
//! at once and its reply is handed to a timer thread with the moment it is
//! due, and `--threads` reply threads (default 4, as many as handler
//! threads) copy the replies that came due to their readers, so requests
//! in flight are answered concurrently and the server's
//! own cost (a few microseconds a request) stays far below what it
//! emulates. A file no fault is injected into is mapped when opened and
//! answered from the mapping: the reply's one copy (into the reader's
//! buffer, as a network client's kernel copies out of its socket) is then
//! the server's only work on the bytes, not a read into a fresh zeroed
//! buffer first (which cost more than the reply itself). So SOURCE's
//! files must not shrink while served (other than by `--shrink`, whose
//! files are read, not mapped); bytes a file gains after its open are not
//! served to that open.
//!
//! ```text
//! slowfs SOURCE MOUNTPOINT [--latency MS] [--bandwidth MB/S] [--concurrency N]
//!        [--profile reads|sshfs|nfs4|object] [--charge KIND,...]
//!        [--eio NAME:OFFSET]... [--short NAME]... [--shrink NAME:OFFSET]...
//!        [--rewrite NAME:OFFSET]... [--threads N] [--cache] [--readahead KIB]
//! ```
//!
//! `--cache` lets the kernel cache and read ahead what is read, as an NFS
//! client does (default: `direct_io`, every read a request).
//! `--readahead KIB` sets the kernel's read-ahead window for the mount (the
//! `max_readahead` of the FUSE init reply; 0: none, each page missed is one
//! request waited for); it can only shrink the window the kernel offers
//! (its bdi's `read_ahead_kb`, 128 KiB by default): a larger one is set in
//! `/sys/class/bdi/MAJOR:MINOR/read_ahead_kb` after mounting. Only with
//! `--cache` (direct_io reads are not read ahead).
//! `--latency` is per request (default 1 ms); `--bandwidth` in MB/s
//! (10^6 bytes; default unlimited); `--concurrency` the requests served at
//! once (default unlimited: each waits only its latency); `--eio NAME:OFFSET`
//! fails every read of the file NAME (relative to SOURCE) that covers
//! OFFSET; `--short NAME` answers reads of NAME with half the bytes asked;
//! `--shrink NAME:OFFSET` truncates the source file NAME to OFFSET bytes
//! when a read first reaches past OFFSET, and `--rewrite NAME:OFFSET`
//! overwrites its first and last MiB (its length unchanged) when a read
//! reaches past OFFSET, as a server-side rewrite would (both change SOURCE:
//! for tests).
//!
//! `--profile` names the request kinds charged the latency (each a round
//! trip of the real client; the kinds: lookup, getattr, open, release,
//! readdir, read):
//! - `reads` (the default): read only, the emulator of issue 30;
//! - `sshfs`: SFTP's LSTAT (lookup, getattr), OPEN, CLOSE (release),
//!   READDIR and READ;
//! - `nfs4`: close-to-open consistency: attributes are never cached (the
//!   kernel asks GETATTR again on every open and stat), and LOOKUP, OPEN,
//!   CLOSE, READDIR and READ;
//! - `object` (an object store's mount): HEAD per open, LIST per
//!   directory listing (readdir) and a GET per read.
//!
//! `--charge KIND,...` names the kinds instead (`none`: no kind). Every
//! charged request takes one of `--concurrency`'s servers for its latency,
//! so `--concurrency 8` is a server with 8 sessions for every kind. A
//! listing is one readdir request per reply buffer, and the kernel asks
//! once more to learn it has ended: two round trips for a small directory.
//!
//! It runs in the foreground until unmounted (`fusermount3 -u MOUNTPOINT`
//! or `umount MOUNTPOINT`) or killed; unmounted, it says on stderr how many
//! requests of each kind it served (`slowfs: served: lookup N, …, read N`).

use std::collections::{BinaryHeap, HashMap};
use std::ffi::OsStr;
use std::fs::File;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{FileExt, MetadataExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use fuser::{
    Config, Errno, FileAttr, FileHandle, FileType, Filesystem, FopenFlags, Generation, INodeNo,
    InitFlags, KernelConfig, LockOwner, MountOption, OpenFlags, ReplyAttr, ReplyData,
    ReplyDirectory, ReplyEmpty, ReplyEntry, ReplyOpen, Request, SessionACL,
};

/// How long the kernel may keep names and attributes: the tree is not
/// changed while served.
const TTL: Duration = Duration::from_secs(60);

/// What the emulated storage is like.
#[derive(Clone, Debug)]
struct Profile {
    latency: Duration,
    /// Bytes per second, all requests together; `None`: unlimited.
    bandwidth: Option<f64>,
    /// Requests served at once; `None`: unlimited.
    concurrency: Option<usize>,
    /// Files whose reads covering an offset fail with EIO.
    eio: Vec<(PathBuf, u64)>,
    /// Files whose reads return half the bytes asked.
    short: Vec<PathBuf>,
    /// Files truncated to an offset when a read first reaches past it.
    shrink: Vec<(PathBuf, u64)>,
    /// Files whose first and last MiB are overwritten when a read reaches
    /// past an offset.
    rewrite: Vec<(PathBuf, u64)>,
    /// Let the kernel cache what is read (and read ahead), as an NFS
    /// client does, instead of `direct_io`.
    cache: bool,
    /// The kernel's read-ahead window in bytes; `None`: its default.
    readahead: Option<u32>,
    /// The request kinds answered after `latency`.
    charged: Vec<Kind>,
    /// How long the kernel may keep attributes (0: asked on every open
    /// and stat, as NFS's close-to-open consistency does).
    attr_ttl: Duration,
}

/// A kind of request the kernel sends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Lookup,
    Getattr,
    Open,
    Release,
    Readdir,
    Read,
}

impl Kind {
    const ALL: [Kind; 6] = [
        Kind::Lookup,
        Kind::Getattr,
        Kind::Open,
        Kind::Release,
        Kind::Readdir,
        Kind::Read,
    ];

    fn name(self) -> &'static str {
        match self {
            Kind::Lookup => "lookup",
            Kind::Getattr => "getattr",
            Kind::Open => "open",
            Kind::Release => "release",
            Kind::Readdir => "readdir",
            Kind::Read => "read",
        }
    }
}

/// The kinds charged by the client `name` emulates, and whether it caches
/// attributes (see the module's doc).
fn client(name: &str) -> Option<(Vec<Kind>, bool)> {
    use Kind::*;
    Some(match name {
        "reads" => (vec![Read], true),
        "sshfs" => (vec![Lookup, Getattr, Open, Release, Readdir, Read], true),
        "nfs4" => (vec![Lookup, Getattr, Open, Release, Readdir, Read], false),
        "object" => (vec![Open, Readdir, Read], true),
        _ => return None,
    })
}

/// The kinds in `list` (comma-separated names; `none`: no kind).
fn kinds(list: &str) -> Vec<Kind> {
    list.split(',')
        .filter(|k| *k != "none")
        .map(|k| {
            Kind::ALL
                .into_iter()
                .find(|kind| kind.name() == k)
                .unwrap_or_else(|| usage(&format!("--charge: no request kind {k}")))
        })
        .collect()
}

/// When each emulated server (of `concurrency`) is free again, and when
/// the shared link has sent every byte asked so far.
struct Clock {
    servers: Vec<Instant>,
    link: Instant,
}

impl Clock {
    /// When a request of `bytes` arriving `now` is answered.
    fn due(&mut self, profile: &Profile, now: Instant, bytes: usize) -> Instant {
        // served by the server free first, once it is free
        let start = match self.servers.iter_mut().min() {
            Some(free) => (*free).max(now),
            None => now,
        };
        let sent = match profile.bandwidth {
            Some(bps) => {
                let from = self.link.max(start);
                self.link = from + Duration::from_secs_f64(bytes as f64 / bps);
                self.link
            }
            None => start,
        };
        let due = (start + profile.latency).max(sent);
        if let Some(free) = self.servers.iter_mut().min() {
            *free = due;
        }
        due
    }
}

/// What a backing file is served as: a directory, a link, or a file (a
/// device or FIFO below the source is served as a file).
fn kind_of(m: &std::fs::Metadata) -> FileType {
    if m.is_dir() {
        FileType::Directory
    } else if m.file_type().is_symlink() {
        FileType::Symlink
    } else {
        FileType::RegularFile
    }
}

/// A reply waiting for its moment: `send` hands it to the kernel.
struct Due {
    at: Instant,
    seq: u64,
    send: Box<dyn FnOnce() + Send>,
}

/// The bytes of a reply: read for it, or a range of the file's mapping.
enum Answer {
    Read(Vec<u8>),
    Mapped(Arc<memmap2::Mmap>, std::ops::Range<usize>),
}

impl Answer {
    fn bytes(&self) -> &[u8] {
        match self {
            Answer::Read(v) => v,
            Answer::Mapped(map, range) => &map[range.clone()],
        }
    }
}

/// An open file: the backing file, its path below the source, and its
/// mapping when its reads are answered from one.
#[derive(Clone)]
struct Open {
    file: Arc<File>,
    rel: PathBuf,
    map: Option<Arc<memmap2::Mmap>>,
}

impl PartialEq for Due {
    fn eq(&self, other: &Self) -> bool {
        (self.at, self.seq) == (other.at, other.seq)
    }
}
impl Eq for Due {}
impl PartialOrd for Due {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Due {
    /// The earliest first out of a max-heap.
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (other.at, other.seq).cmp(&(self.at, self.seq))
    }
}

/// Send each reply, as it comes due, to the threads that answer it.
fn timer(rx: Receiver<Due>, repliers: Sender<Due>) {
    let mut heap: BinaryHeap<Due> = BinaryHeap::new();
    loop {
        let next = heap.peek().map(|d| d.at);
        let got = match next {
            None => rx.recv().map_err(|_| ()),
            Some(at) => match rx.recv_timeout(at.saturating_duration_since(Instant::now())) {
                Ok(d) => Ok(d),
                Err(std::sync::mpsc::RecvTimeoutError::Timeout) => Err(()),
                Err(std::sync::mpsc::RecvTimeoutError::Disconnected) if heap.is_empty() => return,
                Err(_) => Err(()),
            },
        };
        match got {
            Ok(d) => heap.push(d),
            Err(()) if heap.is_empty() => return,
            Err(()) => {}
        }
        let now = Instant::now();
        while heap.peek().is_some_and(|d| d.at <= now) {
            let Some(d) = heap.pop() else { break };
            if let Err(std::sync::mpsc::SendError(d)) = repliers.send(d) {
                (d.send)();
            }
        }
    }
}

/// Answer replies that came due, one at a time: several of these run, so
/// that replies due together are copied to their readers at once (one
/// thread copying every reply would be the emulated server's bottleneck,
/// a few GB/s, that no network file system's many connections have).
fn replier(rx: Arc<Mutex<Receiver<Due>>>) {
    loop {
        let next = match rx.lock() {
            Ok(rx) => rx.recv(),
            Err(_) => return,
        };
        match next {
            Ok(d) => (d.send)(),
            Err(_) => return,
        }
    }
}

/// A source file as it was when mapped: device, inode, length, mtime.
type MapKey = (u64, u64, u64, i64, i64);

/// How many mappings are kept across opens (beyond: mapped per open).
const KEEP_MAPS: usize = 256;

/// The served tree: inode numbers to paths below the source, open files.
struct SlowFs {
    source: PathBuf,
    profile: Profile,
    names: Mutex<HashMap<u64, PathBuf>>,
    files: Mutex<HashMap<u64, Open>>,
    /// Mappings of files opened before, kept across opens: a server
    /// answers from its page cache without mapping a file anew per open;
    /// mapping and unmapping a big file for every open cost the emulator
    /// more than the copies it serves. Keyed by what would show a change.
    maps: Mutex<HashMap<MapKey, Arc<memmap2::Mmap>>>,
    next_fh: AtomicU64,
    seq: AtomicU64,
    clock: Mutex<Clock>,
    timer: Mutex<Sender<Due>>,
    /// Requests served by kind (in `Kind::ALL`'s order), said on stderr
    /// when the file system ends.
    served: Arc<[AtomicU64; 6]>,
}

impl SlowFs {
    /// Send a reply of `bytes` to a request of `kind` that arrived `now`:
    /// at once, or when its latency (and its bytes on the link) has passed
    /// if the profile charges `kind`.
    fn reply(&self, kind: Kind, now: Instant, bytes: usize, send: impl FnOnce() + Send + 'static) {
        self.served[kind as usize].fetch_add(1, Ordering::Relaxed);
        if !self.profile.charged.contains(&kind) {
            return send();
        }
        let at = match self.clock.lock() {
            Ok(mut c) => c.due(&self.profile, now, bytes),
            Err(_) => now,
        };
        let due = Due {
            at,
            seq: self.seq.fetch_add(1, Ordering::Relaxed),
            send: Box::new(send),
        };
        let sent = self.timer.lock().map(|tx| tx.send(due));
        if let Ok(Err(std::sync::mpsc::SendError(d))) = sent {
            (d.send)();
        }
    }

    /// The path (relative to the source) of inode `ino`.
    fn path_of(&self, ino: INodeNo) -> Option<PathBuf> {
        let ino = u64::from(ino);
        if ino == 1 {
            return Some(PathBuf::new());
        }
        self.names.lock().ok()?.get(&ino).cloned()
    }

    /// The attributes of `rel`, with its inode number as served.
    fn attr(&self, rel: &Path, ino: u64) -> std::io::Result<FileAttr> {
        let m = std::fs::symlink_metadata(self.source.join(rel))?;
        let kind = kind_of(&m);
        let time = |s: i64, ns: i64| {
            SystemTime::UNIX_EPOCH + Duration::new(s.max(0) as u64, ns.clamp(0, 999_999_999) as u32)
        };
        Ok(FileAttr {
            ino: INodeNo(ino),
            size: m.len(),
            blocks: m.blocks(),
            atime: time(m.atime(), m.atime_nsec()),
            mtime: time(m.mtime(), m.mtime_nsec()),
            ctime: time(m.ctime(), m.ctime_nsec()),
            crtime: time(m.mtime(), m.mtime_nsec()),
            kind,
            perm: (m.mode() & 0o7777) as u16,
            nlink: m.nlink() as u32,
            uid: m.uid(),
            gid: m.gid(),
            rdev: 0,
            flags: 0,
            blksize: 4096,
        })
    }

    /// The inode number served for the backing file `m` (its own, but the
    /// root's 1 moved aside).
    fn ino_of(m: &std::fs::Metadata) -> u64 {
        match m.ino() {
            1 => u64::MAX - 1,
            n => n,
        }
    }

    /// Whether `file` (at `rel`) is answered from a mapping: a non-empty
    /// regular file no fault is injected into.
    fn mappable(&self, file: &File, rel: &Path) -> bool {
        let p = &self.profile;
        let faulty = p.eio.iter().any(|(n, _)| n == rel)
            || p.short.iter().any(|n| n == rel)
            || p.shrink.iter().any(|(n, _)| n == rel)
            || p.rewrite.iter().any(|(n, _)| n == rel);
        !faulty && file.metadata().is_ok_and(|m| m.is_file() && m.len() > 0)
    }

    /// The mapping of `file`: the one kept from an earlier open of the same
    /// unchanged file, else a new one (kept while fewer than [`KEEP_MAPS`]
    /// are).
    fn map_of(&self, file: &File) -> Option<Arc<memmap2::Mmap>> {
        let m = file.metadata().ok()?;
        let key = (m.dev(), m.ino(), m.len(), m.mtime(), m.mtime_nsec());
        let mut maps = self.maps.lock().ok()?;
        if let Some(map) = maps.get(&key) {
            return Some(Arc::clone(map));
        }
        // SAFETY: the source's files do not shrink while served (the
        // module's doc: those that do, `--shrink`'s, are not mapped),
        // so every byte of the mapping stays backed while it lives.
        let map = Arc::new(unsafe { memmap2::Mmap::map(file) }.ok()?);
        if maps.len() < KEEP_MAPS {
            maps.insert(key, Arc::clone(&map));
        }
        Some(map)
    }

    /// What a read of `size` bytes at `offset` of an open file answers.
    fn answer(&self, open: &Open, offset: u64, size: u32) -> Result<Answer, Errno> {
        let (file, rel) = (&*open.file, open.rel.as_path());
        let size = size as u64;
        if let Some(map) = &open.map {
            let end = offset.saturating_add(size).min(map.len() as u64) as usize;
            let start = (offset as usize).min(end);
            return Ok(Answer::Mapped(Arc::clone(map), start..end));
        }
        for (name, at) in &self.profile.eio {
            if name == rel && (offset..offset + size.max(1)).contains(at) {
                return Err(Errno::EIO);
            }
        }
        for (name, at) in &self.profile.shrink {
            if name == rel && offset + size > *at {
                // (set_len is idempotent: later reads see the shorter file)
                let shorter = std::fs::OpenOptions::new()
                    .write(true)
                    .open(self.source.join(rel))
                    .and_then(|f| f.set_len(*at));
                if let Err(e) = shorter {
                    return Err(e.into());
                }
            }
        }
        for (name, at) in &self.profile.rewrite {
            if name == rel && offset + size > *at {
                // (the same bytes each time: the content changes once)
                let rewritten = std::fs::OpenOptions::new()
                    .write(true)
                    .open(self.source.join(rel))
                    .and_then(|f| {
                        let last = f.metadata()?.len().saturating_sub(1 << 20);
                        f.write_all_at(&[0xa5; 1 << 20], 0)?;
                        f.write_all_at(&[0x5a; 1 << 20], last)
                    });
                if let Err(e) = rewritten {
                    return Err(e.into());
                }
            }
        }
        let want = if self.profile.short.iter().any(|n| n == rel) {
            (size / 2).max(1)
        } else {
            size
        };
        let mut buf = vec![0u8; want as usize];
        let mut got = 0;
        while got < buf.len() {
            match file.read_at(&mut buf[got..], offset + got as u64) {
                Ok(0) => break,
                Ok(n) => got += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e.into()),
            }
        }
        buf.truncate(got);
        Ok(Answer::Read(buf))
    }
}

impl Filesystem for SlowFs {
    fn init(&mut self, _req: &Request, config: &mut KernelConfig) -> std::io::Result<()> {
        // lookups in one directory at once, as libfuse 3 (sshfs) asks by
        // default: else the kernel sends them one at a time, and a charged
        // lookup serialises every client's opens there
        let _ = config.add_capabilities(InitFlags::FUSE_PARALLEL_DIROPS);
        if let Some(bytes) = self.profile.readahead {
            // 0 is refused; 1 byte is a window of 0 pages to the kernel
            if let Err(max) = config.set_max_readahead(bytes.max(1)) {
                eprintln!(
                    "slowfs: --readahead: the kernel offers at most {} KiB; \
                     a larger window goes in /sys/class/bdi/<dev>/read_ahead_kb",
                    max / 1024
                );
                let _ = config.set_max_readahead(max);
            }
        }
        Ok(())
    }

    fn lookup(&self, _req: &Request, parent: INodeNo, name: &OsStr, reply: ReplyEntry) {
        let now = Instant::now();
        let Some(dir) = self.path_of(parent) else {
            return reply.error(Errno::ENOENT);
        };
        let rel = dir.join(name);
        let meta = match std::fs::symlink_metadata(self.source.join(&rel)) {
            Ok(m) => m,
            Err(e) => return reply.error(e.into()),
        };
        let ino = Self::ino_of(&meta);
        if let Ok(mut names) = self.names.lock() {
            names.insert(ino, rel.clone());
        }
        let answer = self.attr(&rel, ino);
        let ttl = self.profile.attr_ttl;
        self.reply(Kind::Lookup, now, 0, move || match answer {
            Ok(attr) => reply.entry_with_ttls(&ttl, &TTL, &attr, Generation(0)),
            Err(e) => reply.error(e.into()),
        });
    }

    fn getattr(&self, _req: &Request, ino: INodeNo, _fh: Option<FileHandle>, reply: ReplyAttr) {
        let now = Instant::now();
        let Some(rel) = self.path_of(ino) else {
            return reply.error(Errno::ENOENT);
        };
        let answer = self.attr(&rel, u64::from(ino));
        let ttl = self.profile.attr_ttl;
        self.reply(Kind::Getattr, now, 0, move || match answer {
            Ok(attr) => reply.attr(&ttl, &attr),
            Err(e) => reply.error(e.into()),
        });
    }

    fn open(&self, _req: &Request, ino: INodeNo, _flags: OpenFlags, reply: ReplyOpen) {
        let now = Instant::now();
        let Some(rel) = self.path_of(ino) else {
            return reply.error(Errno::ENOENT);
        };
        let file = match File::open(self.source.join(&rel)) {
            Ok(f) => f,
            Err(e) => return reply.error(e.into()),
        };
        let map = self
            .mappable(&file, &rel)
            .then(|| self.map_of(&file))
            .flatten();
        let open = Open {
            file: Arc::new(file),
            rel,
            map,
        };
        let fh = self.next_fh.fetch_add(1, Ordering::Relaxed);
        if let Ok(mut files) = self.files.lock() {
            files.insert(fh, open);
        }
        let flags = if self.profile.cache {
            FopenFlags::empty()
        } else {
            FopenFlags::FOPEN_DIRECT_IO
        };
        self.reply(Kind::Open, now, 0, move || {
            reply.opened(FileHandle(fh), flags)
        });
    }

    fn read(
        &self,
        _req: &Request,
        _ino: INodeNo,
        fh: FileHandle,
        offset: u64,
        size: u32,
        _flags: OpenFlags,
        _lock_owner: Option<LockOwner>,
        reply: ReplyData,
    ) {
        let now = Instant::now();
        let open = self
            .files
            .lock()
            .ok()
            .and_then(|f| f.get(&u64::from(fh)).cloned());
        let Some(open) = open else {
            return reply.error(Errno::EBADF);
        };
        let answer = self.answer(&open, offset, size);
        let bytes = answer.as_ref().map_or(0, |a| a.bytes().len());
        self.reply(Kind::Read, now, bytes, move || match answer {
            Ok(answer) => reply.data(answer.bytes()),
            Err(e) => reply.error(e),
        });
    }

    fn release(
        &self,
        _req: &Request,
        _ino: INodeNo,
        fh: FileHandle,
        _flags: OpenFlags,
        _lock_owner: Option<LockOwner>,
        _flush: bool,
        reply: ReplyEmpty,
    ) {
        let now = Instant::now();
        if let Ok(mut files) = self.files.lock() {
            files.remove(&u64::from(fh));
        }
        self.reply(Kind::Release, now, 0, move || reply.ok());
    }

    fn readdir(
        &self,
        _req: &Request,
        ino: INodeNo,
        _fh: FileHandle,
        offset: u64,
        mut reply: ReplyDirectory,
    ) {
        let now = Instant::now();
        let Some(rel) = self.path_of(ino) else {
            return reply.error(Errno::ENOENT);
        };
        let mut entries: Vec<(u64, FileType, std::ffi::OsString)> = vec![
            (u64::from(ino), FileType::Directory, ".".into()),
            (u64::from(ino), FileType::Directory, "..".into()),
        ];
        let dir = match std::fs::read_dir(self.source.join(&rel)) {
            Ok(d) => d,
            Err(e) => return reply.error(e.into()),
        };
        let mut found: Vec<_> = dir
            .filter_map(Result::ok)
            .filter_map(|e| {
                let m = e.metadata().ok()?;
                Some((Self::ino_of(&m), kind_of(&m), e.file_name()))
            })
            .collect();
        found.sort_by(|a, b| a.2.as_bytes().cmp(b.2.as_bytes()));
        entries.extend(found);
        for (i, (ino, kind, name)) in entries.into_iter().enumerate().skip(offset as usize) {
            if reply.add(INodeNo(ino), (i + 1) as u64, kind, &name) {
                break;
            }
        }
        self.reply(Kind::Readdir, now, 0, move || reply.ok());
    }
}

/// The value of option `flag` at `args[i + 1]`, or exit with usage.
fn value<'a>(args: &'a [String], i: usize, flag: &str) -> &'a str {
    args.get(i + 1)
        .map(String::as_str)
        .unwrap_or_else(|| usage(&format!("{flag} needs a value")))
}

fn usage(why: &str) -> ! {
    eprintln!(
        "slowfs: {why}\nusage: slowfs SOURCE MOUNTPOINT [--latency MS] [--bandwidth MB/S] \
         [--concurrency N] [--eio NAME:OFFSET]... [--short NAME]... [--shrink NAME:OFFSET]... \
         [--rewrite NAME:OFFSET]... [--threads N] [--cache] [--readahead KIB] \
         [--profile reads|sshfs|nfs4|object] [--charge KIND,...]"
    );
    std::process::exit(2)
}

/// `NAME:OFFSET`, the value of `flag`.
fn name_offset(v: &str, flag: &str) -> (PathBuf, u64) {
    let Some((name, off)) = v.rsplit_once(':') else {
        usage(&format!("{flag} takes NAME:OFFSET"))
    };
    (PathBuf::from(name), number(off, flag))
}

fn number<T: std::str::FromStr>(s: &str, flag: &str) -> T {
    s.parse()
        .unwrap_or_else(|_| usage(&format!("{flag}: not a number: {s}")))
}

/// The profile, the number of threads and the positional arguments that
/// `args` give (or exit with usage).
fn options(args: &[String]) -> (Profile, usize, Vec<PathBuf>) {
    let mut positional = Vec::new();
    let mut profile = Profile {
        latency: Duration::from_millis(1),
        bandwidth: None,
        concurrency: None,
        eio: Vec::new(),
        short: Vec::new(),
        shrink: Vec::new(),
        rewrite: Vec::new(),
        cache: false,
        readahead: None,
        charged: vec![Kind::Read],
        attr_ttl: TTL,
    };
    let mut threads = 4;
    let mut i = 0;
    while i < args.len() {
        let a = args[i].as_str();
        match a {
            "--latency" => {
                let ms: f64 = number(value(args, i, a), a);
                profile.latency = Duration::from_secs_f64(ms / 1000.0);
            }
            "--bandwidth" => {
                let mbs: f64 = number(value(args, i, a), a);
                profile.bandwidth = Some(mbs * 1e6);
            }
            "--concurrency" => profile.concurrency = Some(number(value(args, i, a), a)),
            "--threads" => threads = number(value(args, i, a), a),
            "--readahead" => {
                let kib: u32 = number(value(args, i, a), a);
                profile.readahead = Some(kib.saturating_mul(1024));
            }
            "--profile" => {
                let name = value(args, i, a);
                let Some((charged, cached)) = client(name) else {
                    usage(&format!("--profile: no profile {name}"))
                };
                profile.charged = charged;
                profile.attr_ttl = if cached { TTL } else { Duration::ZERO };
            }
            "--charge" => profile.charged = kinds(value(args, i, a)),
            "--eio" => profile.eio.push(name_offset(value(args, i, a), a)),
            "--short" => profile.short.push(PathBuf::from(value(args, i, a))),
            "--shrink" => profile.shrink.push(name_offset(value(args, i, a), a)),
            "--rewrite" => profile.rewrite.push(name_offset(value(args, i, a), a)),
            "--cache" => {
                profile.cache = true;
                i += 1;
                continue;
            }
            _ if a.starts_with("--") => usage(&format!("unknown option {a}")),
            _ => {
                positional.push(PathBuf::from(a));
                i += 1;
                continue;
            }
        }
        i += 2;
    }
    (profile, threads, positional)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (profile, threads, positional) = options(&args);
    let [source, mountpoint] = &positional[..] else {
        usage("SOURCE and MOUNTPOINT are needed")
    };
    let source = source
        .canonicalize()
        .unwrap_or_else(|e| usage(&format!("{}: {e}", source.display())));
    let servers = profile.concurrency.unwrap_or(0);
    let (tx, rx) = channel();
    let (to_repliers, due) = channel();
    let due = Arc::new(Mutex::new(due));
    let repliers: Vec<_> = (0..threads.max(1))
        .map(|_| {
            let due = Arc::clone(&due);
            std::thread::spawn(move || replier(due))
        })
        .collect();
    let timer_thread = std::thread::spawn(move || timer(rx, to_repliers));
    let served = Arc::new([const { AtomicU64::new(0) }; 6]);
    let fs = SlowFs {
        source,
        names: Mutex::new(HashMap::new()),
        files: Mutex::new(HashMap::new()),
        maps: Mutex::new(HashMap::new()),
        next_fh: AtomicU64::new(1),
        seq: AtomicU64::new(0),
        clock: Mutex::new(Clock {
            servers: vec![Instant::now(); servers],
            link: Instant::now(),
        }),
        timer: Mutex::new(tx),
        served: Arc::clone(&served),
        profile,
    };
    let mut config = Config::default();
    config.mount_options.extend([
        MountOption::RO,
        MountOption::FSName("slowfs".into()),
        MountOption::AutoUnmount,
    ]);
    config.acl = SessionACL::All;
    config.n_threads = Some(threads.max(1));
    if let Err(e) = fuser::mount(fs, mountpoint, &config) {
        eprintln!("slowfs: mount {}: {e}", mountpoint.display());
        std::process::exit(1);
    }
    let _ = timer_thread.join();
    for r in repliers {
        let _ = r.join();
    }
    let counts: Vec<String> = Kind::ALL
        .iter()
        .map(|k| format!("{} {}", k.name(), served[*k as usize].load(Ordering::Relaxed)))
        .collect();
    eprintln!("slowfs: served: {}", counts.join(", "));
}
