//! `--meta`: what a manifest records of a file, beside its digest, to tell
//! without reading it whether it changed since it was hashed: its size and
//! its modification time in nanoseconds.
//!
//! The record is a comment line, which GNU's `-c` skips (even under
//! `--strict`), just before the file's checksum line, which it is tied to
//! (never to a name, which may hold any byte):
//!
//! ```text
//! #meta size=6 mtime=1700000000123456789ns
//! 5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03  a
//! ```
//!
//! Only size and mtime are kept, as cshatag, chkbit and kopia decide: they
//! are what an edit changes and what bit rot leaves alone, and they survive
//! a copy (`cp -p`, rsync `-t`, tar) or a restore to another disk. The
//! ctime, inode and device that git's index and fclones' cache add change on
//! every copy and restore (and on a chmod, or an xattr written, as by
//! cshatag itself): a manifest carried elsewhere would read as all changed.
//!
//! A file modified within the time stamps' granularity of being hashed may
//! change again with the same mtime (git's "racy clean" entries): a file
//! whose mtime is less than [`RACY`] before the moment it is looked at gets
//! no `mtime`, so that the next `--update` reads it again.

use std::fs;
use std::io;
use std::path::Path;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::storage::{Request, timed};

/// How a metadata line starts.
pub(crate) const PREFIX: &[u8] = b"#meta ";

/// How recent an mtime is too recent to vouch for the bytes (FAT keeps
/// mtimes to 2 seconds).
pub(crate) const RACY: Duration = Duration::from_secs(2);

/// A file's size and modification time as a manifest records them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Meta {
    pub(crate) size: u64,
    /// Nanoseconds since the epoch (before it: negative); `None`: too
    /// recent to be trusted, or not recorded.
    pub(crate) mtime: Option<i128>,
}

impl Meta {
    /// What the file at `path` is now, links followed (as it is hashed).
    pub(crate) fn of_path(path: &Path) -> io::Result<Meta> {
        let m = fs::metadata(crate::sys::file_path(path))?;
        Ok(Meta::of(&m, SystemTime::now()))
    }

    /// What `m` says, looked at `now`.
    pub(crate) fn of(m: &fs::Metadata, now: SystemTime) -> Meta {
        Meta::looked(m.len(), m.modified().ok().map(nanos), now)
    }

    /// A file of `size` bytes modified at `modified` (nanoseconds since
    /// the epoch), looked at `now`: an mtime less than [`RACY`] before it
    /// is not kept.
    pub(crate) fn looked(size: u64, modified: Option<i128>, now: SystemTime) -> Meta {
        let now = nanos(now);
        let racy = modified.is_none_or(|t| (0..RACY.as_nanos() as i128).contains(&(now - t)));
        Meta {
            size,
            mtime: modified.filter(|_| !racy),
        }
    }

    /// Does the file still look as recorded (`self`)? Never when either
    /// has no mtime.
    pub(crate) fn unchanged(&self, now: &Meta) -> bool {
        self.size == now.size && self.mtime.is_some() && self.mtime == now.mtime
    }

    /// Did the file change since this was recorded (`now`: as it is)?
    /// `None` when nothing tells: no mtime recorded (it was too recent)
    /// and the same size.
    pub(crate) fn changed(&self, now: &Meta) -> Option<bool> {
        match self.mtime {
            None if self.size == now.size => None,
            _ => Some(!self.unchanged(now)),
        }
    }

    /// The metadata line, without its line end.
    pub(crate) fn line(&self) -> Vec<u8> {
        let mut out = PREFIX.to_vec();
        out.extend_from_slice(format!("size={}", self.size).as_bytes());
        if let Some(t) = self.mtime {
            out.extend_from_slice(format!(" mtime={t}ns").as_bytes());
        }
        out
    }

    /// A metadata line (without its line end), or `None` when `line` is
    /// none or says no size. Unknown fields are skipped (later versions
    /// may add some).
    pub(crate) fn parse(line: &[u8]) -> Option<Meta> {
        fields(line_fields(line.strip_prefix(PREFIX)?))
    }
}

/// A `#meta` line's fields: what follows its prefix, without its line end.
fn line_fields(rest: &[u8]) -> &[u8] {
    let rest = rest.strip_suffix(b"\n").unwrap_or(rest);
    rest.strip_suffix(b"\r").unwrap_or(rest)
}

/// What a `#meta` line's `fields` record (see [`Meta::parse`]).
fn fields(fields: &[u8]) -> Option<Meta> {
    #[cfg(test)]
    READ.with(|n| n.set(n.get() + 1));
    // (every checksum line of a manifest may have one: the form
    // `Meta::line` writes is read straight)
    canonical(fields).or_else(|| general(fields))
}

#[cfg(test)]
thread_local! {
    /// How many `#meta` lines this thread has read the fields of (a test
    /// proves `-c` reads none whose verdict does not need it).
    pub(crate) static READ: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// How many bytes of fields a [`MetaLine`] keeps: any line [`Meta::line`]
/// writes (`size=` 20 digits, ` mtime=-` 39 digits, `ns`).
const KEPT: usize = 74;

/// A `#meta` line as `-c` carries it to the line after it: its fields'
/// bytes, inline (no allocation: every checksum line of a manifest may
/// have one), read only when a verdict needs them (a digest that did not
/// match: DAMAGED or MODIFIED). Reading them then gives what
/// [`Meta::parse`] gives of the line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct MetaLine {
    len: u8,
    bytes: [u8; KEPT],
}

impl MetaLine {
    /// The `#meta` line `rest` ends (what follows its [`PREFIX`]), kept as
    /// it is when it fits; a longer one is read now and kept as
    /// [`Meta::line`] writes it (`None`: it records nothing).
    pub(crate) fn keep(rest: &[u8]) -> Option<MetaLine> {
        let rest = line_fields(rest);
        match MetaLine::of(rest) {
            Some(kept) => Some(kept),
            None => MetaLine::of(&fields(rest)?.line()[PREFIX.len()..]),
        }
    }

    /// `fields` kept as they are, if they fit.
    fn of(fields: &[u8]) -> Option<MetaLine> {
        let mut bytes = [0; KEPT];
        bytes.get_mut(..fields.len())?.copy_from_slice(fields);
        Some(MetaLine {
            len: fields.len() as u8,
            bytes,
        })
    }

    /// What the line records (`None`: nothing, as [`Meta::parse`] says).
    pub(crate) fn read(&self) -> Option<Meta> {
        fields(&self.bytes[..usize::from(self.len)])
    }
}

/// The fields of a `#meta` line as [`Meta::line`] writes them (`size=N`,
/// then ` mtime=Tns` if any), read without splitting them into words or
/// weighing each; `None` for any other form (left to [`general`], which
/// reads these the same: `canonical_lines_read_as_any_other`).
fn canonical(rest: &[u8]) -> Option<Meta> {
    let (size, rest) = decimal(rest.strip_prefix(b"size=")?)?;
    if rest.is_empty() {
        return Some(Meta { size, mtime: None });
    }
    let rest = rest.strip_prefix(b" mtime=")?;
    let (minus, rest) = match rest.strip_prefix(b"-") {
        Some(rest) => (true, rest),
        None => (false, rest),
    };
    let (t, rest) = decimal(rest)?;
    if rest != b"ns" {
        return None;
    }
    let t = i128::from(t);
    Some(Meta {
        size,
        mtime: Some(if minus { -t } else { t }),
    })
}

/// The number of 1 to 19 decimal digits `s` starts with (19 fit in a u64,
/// whose arithmetic is the CPU's), and what follows it.
fn decimal(s: &[u8]) -> Option<(u64, &[u8])> {
    let n = s.iter().take(20).take_while(|b| b.is_ascii_digit()).count();
    if !(1..=19).contains(&n) {
        return None;
    }
    let value = s[..n]
        .iter()
        .fold(0u64, |v, &d| v * 10 + u64::from(d - b'0'));
    Some((value, &s[n..]))
}

/// The fields of a `#meta` line in any order, blanks between them, unknown
/// ones skipped; `None` without a size, or with a field that is no number.
fn general(rest: &[u8]) -> Option<Meta> {
    fn number(v: &[u8]) -> Option<i128> {
        let (minus, digits) = match v.strip_prefix(b"-") {
            Some(digits) => (true, digits),
            None => (false, v),
        };
        if let Some((n, [])) = decimal(digits) {
            let n = i128::from(n);
            return Some(if minus { -n } else { n });
        }
        std::str::from_utf8(v).ok()?.parse().ok()
    }
    let mut size = None;
    let mut mtime = None;
    for field in rest.split(|&b| b == b' ').filter(|f| !f.is_empty()) {
        if let Some(v) = field.strip_prefix(b"size=") {
            size = Some(u64::try_from(number(v)?).ok()?);
        } else if let Some(v) = field.strip_prefix(b"mtime=") {
            mtime = Some(number(v.strip_suffix(b"ns")?)?);
        }
    }
    std::str::from_utf8(rest).ok()?;
    Some(Meta { size: size?, mtime })
}

/// Looks at files one after another, as a walk names them: each by its
/// name in its directory, kept open while the next file is in it too (one
/// `fstatat` a file, as find makes, not a `statx` that walks the whole
/// path again). Where that cannot be (Windows; a name with no directory
/// part to open), by its path. Each lookup is timed for the storage
/// observer (a stat: a round trip on a network file system).
#[derive(Default)]
pub(crate) struct Looker {
    /// The directory of the last file (as its path wrote it), open if it
    /// could be, with its device.
    dir: Option<(Vec<u8>, Option<OpenDir>)>,
}

/// A directory open to look files up in, and its device.
type OpenDir = (fs::File, u64);

impl Looker {
    /// What the file at `path` is now, links followed (as it is hashed):
    /// [`Meta::of_path`].
    pub(crate) fn meta(&mut self, path: &Path) -> io::Result<Meta> {
        let bytes = path.as_os_str().as_encoded_bytes();
        let Some(slash) = memchr::memrchr(b'/', bytes) else {
            return looked_up(path);
        };
        let (dir, name) = (&bytes[..slash.max(1)], &bytes[slash + 1..]);
        if matches!(name, b"" | b"." | b"..") {
            return looked_up(path);
        }
        if self.dir.as_ref().is_none_or(|(d, _)| d != dir) {
            // (the directory named as the path names it: up to its last `/`)
            let opened = path
                .parent()
                .filter(|p| p.as_os_str().as_encoded_bytes() == dir)
                .and_then(|p| crate::sys::open_dir_to_look(p).ok())
                .and_then(|f| {
                    let dev = crate::sys::device(&f.metadata().ok()?);
                    Some((f, dev))
                });
            self.dir = Some((dir.to_vec(), opened));
        }
        let Some((_, Some((open, dev)))) = &self.dir else {
            return looked_up(path);
        };
        match timed(
            Request::Stat,
            |_| *dev,
            || crate::sys::size_and_mtime_in(open, name),
        ) {
            Ok((size, mtime)) => Ok(Meta::looked(size, Some(mtime), SystemTime::now())),
            Err(_) => looked_up(path),
        }
    }
}

/// [`Meta::of_path`], the lookup timed for the storage observer.
fn looked_up(path: &Path) -> io::Result<Meta> {
    let m = timed(Request::Stat, crate::sys::device, || {
        fs::metadata(crate::sys::file_path(path))
    })?;
    Ok(Meta::of(&m, SystemTime::now()))
}

/// What stderr says of a file whose bytes no longer match its digest while
/// its size and mtime are as recorded (`name`, as its line shows it).
pub(crate) fn damaged(name: &[u8]) -> String {
    format!(
        "{}: DAMAGED: its bytes changed, its size and mtime did not (silent corruption?)",
        crate::output::quote_name(name)
    )
}

/// A time as nanoseconds since the epoch.
fn nanos(t: SystemTime) -> i128 {
    match t.duration_since(UNIX_EPOCH) {
        Ok(d) => d.as_nanos() as i128,
        Err(e) => -(e.duration().as_nanos() as i128),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_reads_back_as_written() {
        for meta in [
            Meta {
                size: 6,
                mtime: Some(1_700_000_000_123_456_789),
            },
            Meta {
                size: 0,
                mtime: Some(-1_500_000_000),
            },
            Meta {
                size: u64::MAX,
                mtime: None,
            },
        ] {
            assert_eq!(Meta::parse(&meta.line()), Some(meta));
        }
        assert_eq!(
            Meta::parse(b"#meta mtime=5ns size=3 owner=x\r\n"),
            Some(Meta {
                size: 3,
                mtime: Some(5)
            })
        );
        for no in [
            &b"# meta size=3"[..],
            b"#meta mtime=5ns",
            b"#meta size=x",
            b"#meta size=3 mtime=5",
        ] {
            assert_eq!(Meta::parse(no), None, "{}", String::from_utf8_lossy(no));
        }
    }

    /// A line read straight is read as the general reading reads it.
    #[test]
    fn canonical_lines_read_as_any_other() {
        let pieces: [&[u8]; 12] = [
            b"size=",
            b" mtime=",
            b"ns",
            b"0",
            b"123",
            b"-",
            b"9999999999999999999",
            b"9",
            b" ",
            b"x",
            b"\xff",
            b"owner=y",
        ];
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        let mut read = 0;
        for _ in 0..100_000 {
            let mut line = Vec::new();
            for _ in 0..1 + seed % 7 {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                line.extend_from_slice(pieces[(seed % 12) as usize]);
            }
            if let Some(meta) = canonical(&line) {
                read += 1;
                assert_eq!(
                    Some(meta),
                    general(&line),
                    "{}",
                    String::from_utf8_lossy(&line)
                );
            }
        }
        for meta in [
            Meta {
                size: 6,
                mtime: Some(1_700_000_000_123_456_789),
            },
            Meta {
                size: 0,
                mtime: Some(-1_500_000_000),
            },
            Meta {
                size: 7,
                mtime: None,
            },
        ] {
            assert_eq!(canonical(&meta.line()[PREFIX.len()..]), Some(meta));
        }
        assert!(read > 100, "only {read} lines read straight");
    }

    /// A `#meta` line kept for later reads then as it reads now, whatever
    /// its length.
    #[test]
    fn a_kept_line_reads_as_the_line() {
        let long = format!("size=1 {}mtime=5ns", "owner=x ".repeat(20));
        let lines = [
            "size=6 mtime=1700000000123456789ns\n",
            "size=18446744073709551615 mtime=-170141183460469231731687303715884105728ns\r\n",
            "size=18446744073709551615 mtime=170141183460469231731687303715884105727ns ",
            "mtime=5ns size=3 owner=x",
            &long,
            "size=x",
            "size=1 mtime=1",
            "",
        ];
        for rest in lines {
            let line = [PREFIX, rest.as_bytes()].concat();
            let kept = MetaLine::keep(rest.as_bytes()).and_then(|m| m.read());
            assert_eq!(kept, Meta::parse(&line), "{rest}");
        }
        assert!(MetaLine::keep(long.as_bytes()).is_some());
    }

    #[test]
    fn a_recent_mtime_is_not_vouched_for() {
        let m = Meta {
            size: 1,
            mtime: None,
        };
        assert!(!m.unchanged(&m));
        let dir = std::env::temp_dir();
        let meta = fs::metadata(&dir).expect("temp dir");
        let modified = meta.modified().expect("mtime");
        assert_eq!(Meta::of(&meta, modified).mtime, None);
        let later = Meta::of(&meta, modified + RACY);
        assert_eq!(later.mtime, Some(nanos(modified)));
    }
}
