//! Directories listed once, on far storage, for the names a check file
//! lists beside itself ([`super::Input::settle`]). A network client may
//! make its lookups in one directory one at a time (sshfs's: a round trip
//! each, in turn, however many are asked at once), so a lookup a line is a
//! round trip a line whatever is in flight. One listing (a few round trips)
//! answers instead whether a name is in the directory, and leaves the
//! client's cache holding the names and attributes that the opens then
//! look up, as the shell's glob does for `fastsum *`.
//!
//! A listing answers only "not there", and only for a name of ASCII
//! characters, which no entry matches even with ASCII case ignored (a
//! server may ignore case, or compare names in another Unicode form):
//! everything else is asked of the file system, as before.

use std::collections::{HashMap, HashSet};
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::sync::{Arc, LazyLock, Mutex, OnceLock, PoisonError};

use crate::storage::{Request, Timer, observer, timed};
use crate::sys::FileId;

/// A directory is listed once this many of its names have been asked
/// about: a big directory of which a check file lists a few is not listed
/// for them.
const ASKED_BEFORE_LISTING: u32 = 8;

/// The most entries a listing holds: a directory with more answers
/// nothing (its listing stops there).
const ENTRIES_AT_MOST: usize = 1 << 16;

/// What a directory's names are known as: ASCII case folded; `None` when
/// it is near, could not be listed, or holds too many.
type Names = Option<HashSet<Vec<u8>>>;

/// A directory asked about.
#[derive(Default)]
struct Dir {
    asked: u32,
    names: Arc<OnceLock<Names>>,
}

/// The directories asked about in this run.
static DIRS: LazyLock<Mutex<HashMap<PathBuf, Dir>>> = LazyLock::new(Mutex::default);

/// Is there surely no entry `name` in the directory `dir` (its listing
/// says so)? False when that is not known: the storage is near (nothing
/// is judged far), `dir` was not asked about often enough yet, is on a
/// near device, or `name` is not ASCII. Lists `dir` (once) when it is due;
/// callers asking meanwhile wait for that listing.
pub(super) fn surely_absent(dir: &Path, name: &OsStr) -> bool {
    if !observer().any_far() {
        return false;
    }
    let names = {
        let mut dirs = DIRS.lock().unwrap_or_else(PoisonError::into_inner);
        let d = dirs.entry(dir.to_path_buf()).or_default();
        d.asked = d.asked.saturating_add(1);
        if d.asked < ASKED_BEFORE_LISTING {
            return false;
        }
        Arc::clone(&d.names)
    };
    match names.get_or_init(|| list(dir)) {
        Some(names) => says_absent(names, name),
        None => false,
    }
}

/// Does a listing of `names` (ASCII case folded) say that no entry is
/// `name`, however the file system compares names? Only of an ASCII name.
fn says_absent(names: &HashSet<Vec<u8>>, name: &OsStr) -> bool {
    let bytes = name.as_encoded_bytes();
    bytes.is_ascii() && !names.contains(&bytes.to_ascii_lowercase())
}

/// The names in `dir` (ASCII case folded), if it is on a far device and
/// holds at most [`ENTRIES_AT_MOST`]. Its stat and its listing are timed
/// for the storage observer.
fn list(dir: &Path) -> Names {
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    let path = crate::sys::file_path(dir);
    let dev = timed(Request::Stat, FileId::device, || FileId::of_path(&path))
        .ok()?
        .device();
    if !observer().is_far(dev) {
        return None;
    }
    let timer = Timer::start();
    let names = read_names(&path);
    observer().saw(dev, Request::Listing, timer.waited());
    names
}

/// Which file `path` names, links not followed (`FileId::of_link`): a
/// lookup of a listed name, timed for the storage observer.
pub(super) fn looked_up(path: &Path) -> std::io::Result<FileId> {
    timed(Request::Stat, FileId::device, || FileId::of_link(path))
}

/// The names in the directory `path`, ASCII case folded, if it holds at
/// most [`ENTRIES_AT_MOST`].
fn read_names(path: &Path) -> Names {
    let mut names = HashSet::new();
    for entry in std::fs::read_dir(path).ok()? {
        if names.len() == ENTRIES_AT_MOST {
            return None;
        }
        let name = entry.ok()?.file_name();
        names.insert(name.as_encoded_bytes().to_ascii_lowercase());
    }
    Some(names)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A listing of a near directory answers nothing, whatever is asked.
    #[test]
    fn a_near_directory_is_never_listed() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a"), b"").unwrap();
        for _ in 0..2 * ASKED_BEFORE_LISTING {
            assert!(!surely_absent(dir.path(), OsStr::new("b")));
        }
        assert_eq!(list(dir.path()), None);
    }

    /// A listing says "not there" only of an ASCII name that no entry is,
    /// ASCII case ignored: a name in another case, or not ASCII, is asked
    /// of the file system.
    #[test]
    fn a_listing_says_not_there_only_when_no_file_system_could_differ() {
        let dir = tempfile::tempdir().unwrap();
        for name in ["Ab.TXT", "caf\u{e9}", "sub"] {
            std::fs::write(dir.path().join(name), b"").unwrap();
        }
        let names = read_names(dir.path()).unwrap();
        for (name, absent) in [
            ("Ab.TXT", false),
            ("ab.txt", false),
            ("sub", false),
            ("caf\u{e9}", false),
            ("cafe\u{301}", false),
            ("cafe", true),
            ("other", true),
        ] {
            assert_eq!(says_absent(&names, OsStr::new(name)), absent, "{name}");
        }
    }
}
