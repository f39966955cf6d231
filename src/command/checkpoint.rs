//! `--update`'s checkpoint: the lines a run has hashed so far, each after
//! the `#meta` line of the file as it was when its hashing began, kept
//! beside SUMS (`SUMS.fastsum-update.checkpoint`, a name the update never
//! hashes) so that a run killed before SUMS is replaced (SIGKILL, a power
//! loss) loses a bounded amount of work: the next identical command takes
//! the lines of files whose size and mtime are still as recorded (the
//! `#meta` rule: a recent mtime vouches for nothing) instead of hashing
//! them again.
//!
//! - The bound: what was hashed is written and synced whenever [`EVERY`]
//!   has passed or [`BYTES`] of files were hashed since the last time, and
//!   when the run ends without replacing SUMS. A kill loses at most that,
//!   and the files being hashed at that moment.
//! - Only the updater holding SUMS's lock reads or writes it.
//! - Its first line names the command it belongs to (algorithm, line
//!   style, working directory): a checkpoint of another is ignored and
//!   removed. A last line without its line end (torn by a crash) is
//!   ignored, and cut before anything is appended.
//! - It goes once SUMS is replaced (or needs no change); SUMS itself is
//!   only ever replaced whole, as before.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Seek, Write};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::command::check::parse::line_body;
use crate::command::meta::{Looker, Meta};
use crate::command::names::{Joined, NameIndex};

/// How often at most what was hashed is written and synced: about the
/// work a kill can lose (besides the files being hashed then). A sync a
/// second costs nothing next to hashing, and a second of hashing is
/// little to lose.
pub(crate) const EVERY: Duration = Duration::from_secs(1);

/// How many bytes of files hashed since the last sync make another one
/// due before [`EVERY`] passed (fast storage hashes this in under a
/// second anyway).
pub(crate) const BYTES: u64 = 256 << 20;

/// The first line's start.
const MAGIC: &[u8] = b"#fastsum-update-checkpoint 1 ";

/// The lines of a checkpoint that can be taken: each file it lists (its
/// absolute name, in the order the run that wrote it walked them) and its
/// lines (`#meta` line and checksum line, as the hash run wrote them). Of
/// a file listed twice (hashed again by a later run, having changed), the
/// record found where the walk is, else the first: one that no longer
/// matches its file is hashed again.
#[derive(Default)]
pub(crate) struct Resumed {
    names: NameIndex,
    /// Each record's `#meta` line, where its lines are in `text`, and
    /// whether they were taken.
    records: Vec<(Meta, Range<usize>, bool)>,
    text: Vec<u8>,
    /// How the files are looked at (one at a time, as the walk meets them).
    looker: Looker,
}

impl Resumed {
    /// The lines of the file `name` (absolute) at `path`, if it is still
    /// as the checkpoint recorded it (each record taken once).
    pub(crate) fn take(&mut self, name: &Joined<'_>, path: &Path) -> Option<Vec<u8>> {
        let i = self.names.find(name)?;
        let (recorded, lines, taken) = &self.records[i];
        if *taken {
            return None;
        }
        let now = self.looker.meta(path).ok()?;
        if !recorded.unchanged(&now) {
            return None;
        }
        let lines = self.text[lines.clone()].to_vec();
        self.records[i].2 = true;
        Some(lines)
    }

    /// Does it hold no record?
    pub(crate) fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    /// Add the record of `name` (absolute): `meta`, and its lines at
    /// `lines` in the checkpoint's text.
    fn push(&mut self, name: &[u8], meta: Meta, lines: Range<usize>) {
        self.names.push(&Joined::Parts(b"", name));
        self.records.push((meta, lines, false));
    }
}

/// The checkpoint of one run: where it is, what it holds that is whole,
/// and what is still to be written to it.
pub(crate) struct Checkpoint {
    path: PathBuf,
    header: Vec<u8>,
    /// Open once something is written (a run that hashes nothing makes
    /// none).
    file: Option<File>,
    /// How much of the file found there is whole lines of this command
    /// (`None`: nothing usable was there).
    kept: Option<u64>,
    pending: Vec<u8>,
    since: Instant,
    bytes: u64,
    /// A write failed: no more are tried (the update goes on without).
    broken: bool,
}

/// Where the checkpoint of the manifest `target` is.
pub(crate) fn path_of(target: &Path) -> PathBuf {
    let mut name = target.as_os_str().to_os_string();
    name.push(".fastsum-update.checkpoint");
    PathBuf::from(name)
}

/// The bytes of the regular file at `path`; `None` when nothing is there;
/// `Err` for anything else there (a link is not followed, a FIFO not
/// waited on).
fn read_regular(path: &Path) -> io::Result<Option<Vec<u8>>> {
    let mut file = match crate::sys::open_no_follow(path) {
        Ok(file) => file,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    if !file.metadata()?.is_file() {
        return Err(io::ErrorKind::InvalidInput.into());
    }
    let mut text = Vec::new();
    io::Read::read_to_end(&mut file, &mut text)?;
    Ok(Some(text))
}

/// `Ok` when `path` is a regular file itself (not a link to one).
fn regular(path: &Path) -> io::Result<()> {
    if fs::symlink_metadata(path)?.is_file() {
        Ok(())
    } else {
        Err(io::ErrorKind::InvalidInput.into())
    }
}

impl Checkpoint {
    /// The checkpoint of the manifest `target`, for the command `header`
    /// names, and what the one found there holds (`name_of`: the absolute
    /// name a checksum line lists); `true` when one of another command was
    /// found there and removed.
    pub(crate) fn open(
        target: &Path,
        header: &str,
        name_of: impl Fn(&[u8]) -> Option<Vec<u8>>,
    ) -> (Checkpoint, Resumed, bool) {
        let path = path_of(target);
        let header = [MAGIC, header.as_bytes(), b"\n"].concat();
        let mut cp = Checkpoint {
            path,
            header,
            file: None,
            kept: None,
            pending: Vec::new(),
            since: Instant::now(),
            bytes: 0,
            broken: false,
        };
        let mut resumed = Resumed::default();
        let text = match read_regular(&cp.path) {
            Ok(Some(text)) => text,
            Ok(None) => return (cp, resumed, false),
            Err(_) => {
                // a link, FIFO, device or directory of that name, or one
                // that cannot be read: neither read nor written over
                cp.broken = true;
                return (cp, resumed, false);
            }
        };
        let Some(body) = text.strip_prefix(&cp.header[..]) else {
            // another command's (or a torn first line): not to be trusted
            let _ = fs::remove_file(&cp.path);
            return (cp, resumed, true);
        };
        let whole = records(body, cp.header.len(), &name_of, &mut resumed);
        cp.kept = Some((cp.header.len() + whole) as u64);
        resumed.text = text;
        (cp, resumed, false)
    }

    /// Take `bytes` the hash run wrote: written and synced when due.
    pub(crate) fn push(&mut self, bytes: &[u8]) {
        if self.broken {
            return;
        }
        self.pending.extend_from_slice(bytes);
        // (the files' sizes, from their `#meta` lines)
        for line in bytes.split(|&b| b == b'\n') {
            if let Some(meta) = Meta::parse(line) {
                self.bytes += meta.size;
            }
        }
        if self.since.elapsed() >= EVERY || self.bytes >= BYTES {
            self.sync();
        }
    }

    /// Write and sync the whole lines taken so far.
    pub(crate) fn sync(&mut self) {
        self.since = Instant::now();
        self.bytes = 0;
        let Some(end) = self.pending.iter().rposition(|&b| b == b'\n') else {
            return;
        };
        if self.broken {
            return;
        }
        let pending = std::mem::take(&mut self.pending);
        let written = self.file().and_then(|f| {
            f.write_all(&pending[..=end])?;
            f.sync_data()
        });
        self.pending = pending;
        match written {
            Ok(()) => {
                self.pending.drain(..=end);
            }
            Err(_) => self.broken = true,
        }
    }

    /// The file, opened (and made, or cut after its last whole line) on
    /// first use.
    fn file(&mut self) -> io::Result<&mut File> {
        if self.file.is_none() {
            // the one found is cut after its last whole record (should it
            // be gone, a new one is made)
            let found = match self.kept {
                Some(len) => match regular(&self.path)
                    .and_then(|()| OpenOptions::new().write(true).open(&self.path))
                {
                    Ok(mut file) => {
                        file.set_len(len)?;
                        file.seek(io::SeekFrom::End(0))?;
                        Some(file)
                    }
                    Err(e) if e.kind() == io::ErrorKind::NotFound => None,
                    Err(e) => return Err(e),
                },
                None => None,
            };
            let file = match found {
                Some(file) => file,
                None => {
                    let mut options = OpenOptions::new();
                    // (never through a link or onto a file put there since)
                    options.write(true).create_new(true);
                    // (it lists what SUMS lists: no more readable than a
                    // temporary of SUMS)
                    crate::sys::private_mode(&mut options);
                    let mut file = options.open(&self.path)?;
                    file.write_all(&self.header)?;
                    // (its name too must outlive a power loss)
                    file.sync_data()?;
                    let dir = match self.path.parent() {
                        Some(d) if !d.as_os_str().is_empty() => d,
                        _ => Path::new("."),
                    };
                    crate::sys::sync_dir(&crate::sys::open_dir(dir)?)?;
                    file
                }
            };
            self.file = Some(file);
        }
        self.file
            .as_mut()
            .ok_or_else(|| io::ErrorKind::NotFound.into())
    }

    /// SUMS was replaced (or needed no change): the checkpoint goes.
    pub(crate) fn remove(self) {
        if self.file.is_some() || self.kept.is_some() {
            let _ = fs::remove_file(&self.path);
        }
    }
}

/// The lines the hash run wrote (`hashed`, a record each: a checksum line
/// after its `#meta` line) and those taken from the checkpoint, in the
/// order of the inputs (`order`: each input the run kept, with its lines
/// when they were taken, `None` when it was hashed): as an uninterrupted
/// run writes them. (Should the counts differ, the lines taken come
/// first: the same lines, in another order.)
pub(crate) fn in_order(order: Vec<Option<Vec<u8>>>, hashed: &[u8]) -> Vec<u8> {
    let mut records = Vec::new();
    let mut from = 0;
    let mut at = 0;
    for line in hashed.split_inclusive(|&b| b == b'\n') {
        at += line.len();
        if line_body(line).is_some() {
            records.push(&hashed[from..at]);
            from = at;
        }
    }
    let mut out = Vec::with_capacity(hashed.len());
    if from != hashed.len() || order.iter().filter(|o| o.is_none()).count() != records.len() {
        order
            .into_iter()
            .flatten()
            .for_each(|t| out.extend_from_slice(&t));
        out.extend_from_slice(hashed);
        return out;
    }
    let mut records = records.into_iter();
    for taken in order {
        match taken {
            Some(text) => out.extend_from_slice(&text),
            None => out.extend_from_slice(records.next().unwrap_or_default()),
        }
    }
    out
}

/// `text` without its `#meta` lines (a manifest without them gets none).
pub(crate) fn without_meta(text: &[u8]) -> Vec<u8> {
    text.split_inclusive(|&b| b == b'\n')
        .filter(|l| line_body(l).is_some() || Meta::parse(l).is_none())
        .flatten()
        .copied()
        .collect()
}

/// Put the records of `body` (a checkpoint after its first line, which
/// starts at `base` in its text) in `into`, in order: how many bytes of
/// `body` are whole records (what follows, a line without its end or a
/// `#meta` line without its checksum line, is cut).
fn records(
    body: &[u8],
    base: usize,
    name_of: &impl Fn(&[u8]) -> Option<Vec<u8>>,
    into: &mut Resumed,
) -> usize {
    let mut whole = 0;
    let mut at = 0;
    let mut meta: Option<(usize, Meta)> = None;
    for line in body.split_inclusive(|&b| b == b'\n') {
        let start = at;
        at += line.len();
        if !line.ends_with(b"\n") {
            break;
        }
        match line_body(line) {
            None => meta = Meta::parse(line).map(|m| (start, m)),
            Some(checksum) => {
                whole = at;
                // (a line without its `#meta` line vouches for nothing)
                if let (Some((from, m)), Some(name)) = (meta.take(), name_of(checksum)) {
                    into.push(&name, m, base + from..base + at);
                }
            }
        }
    }
    whole
}

#[cfg(test)]
mod tests {
    use super::*;

    fn name_of(body: &[u8]) -> Option<Vec<u8>> {
        body.split(|&b| b == b' ').next_back().map(<[u8]>::to_vec)
    }

    #[test]
    fn only_whole_records_with_their_meta_line_count() {
        let body = b"#meta size=1 mtime=5ns\nab  a\ncd  b\n#meta size=2 mtime=6ns\nef  c\n\
                     #meta size=3 mtime=7ns\n01  d";
        let mut into = Resumed::default();
        let whole = records(body, 0, &name_of, &mut into);
        into.text = body.to_vec();
        assert_eq!(whole, body.len() - b"#meta size=3 mtime=7ns\n01  d".len());
        assert_eq!(into.records.len(), 2, "b has no #meta line, d is torn");
        assert_eq!(into.names.name(0), b"a");
        assert_eq!(
            &into.text[into.records[0].1.clone()],
            b"#meta size=1 mtime=5ns\nab  a\n"
        );
        assert_eq!(into.names.name(1), b"c");
        assert_eq!(into.records[1].0.size, 2);
    }

    #[test]
    fn lines_taken_and_hashed_keep_the_inputs_order() {
        let hashed = b"#meta size=1\nbb  b\n#meta size=3\ndd  d\n";
        let taken = |t: &[u8]| Some(t.to_vec());
        let order = vec![taken(b"aa  a\n"), None, taken(b"cc  c\n"), None];
        assert_eq!(
            in_order(order, hashed),
            b"aa  a\n#meta size=1\nbb  b\ncc  c\n#meta size=3\ndd  d\n"
        );
        // (counts that differ: what was taken first, nothing lost)
        let order = vec![taken(b"aa  a\n"), None];
        assert_eq!(
            in_order(order, hashed),
            b"aa  a\n#meta size=1\nbb  b\n#meta size=3\ndd  d\n"
        );
        assert_eq!(without_meta(hashed), b"bb  b\ndd  d\n");
    }
}
