//! From FILE arguments to inputs: `-` is stdin, a path is a file, and with
//! `-r` a directory is walked (lazily, so hashing starts at once and memory
//! stays small whatever the tree).
//!
//! The walk lists what `find DIR -type f` lists, in a deterministic order:
//! entries sorted by name (bytes), symbolic links met during the walk not
//! followed (neither to files nor to directories), FIFOs, sockets and devices
//! skipped without being opened (a FIFO would hang the run). A link named on
//! the command line is followed, as find does for its starting points with
//! `-H`. Entries that cannot be read are reported and the walk goes on.
//!
//! What is walked: `--exclude` patterns (gitignore syntax, matched against
//! the path relative to the directory operand; an excluded directory is not
//! entered), `--max-depth` (1: the operand's own entries) and
//! `--one-file-system` (directories on another file system are not entered).

use std::ffi::OsString;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use ignore::gitignore::{Gitignore, GitignoreBuilder};
use walkdir::WalkDir;

use crate::input::Input;

/// One thing the expansion produced: an input to hash, or an error met
/// while walking (reported in its place in the output order).
#[derive(Debug)]
pub(crate) enum Entry {
    /// Hash this.
    Input(Input),
    /// This path could not be walked.
    Error(PathBuf, io::Error),
}

/// How directory operands are walked.
#[derive(Clone, Debug, Default)]
pub(crate) struct Walk {
    /// `-r`: walk directory operands (else they are inputs, and fail).
    pub(crate) recursive: bool,
    /// `--exclude`, `--exclude-from`.
    pub(crate) exclude: Exclude,
    /// `--max-depth`: how deep below the operand (1: its own entries).
    pub(crate) max_depth: Option<usize>,
    /// `--one-file-system`.
    pub(crate) one_file_system: bool,
}

/// Exclude patterns, in gitignore syntax (`*.tmp`, `cache/`,
/// `**/node_modules`, `!keep.tmp`), matched against paths relative to the
/// directory operand.
#[derive(Clone, Debug, Default)]
pub(crate) struct Exclude(Option<std::sync::Arc<Gitignore>>);

/// A pattern that is no valid glob: what is wrong with it.
#[derive(Debug)]
pub(crate) struct BadPattern {
    pub(crate) reason: String,
}

impl Exclude {
    /// The patterns, in order (a later `!pattern` re-includes); `Err`
    /// names the first invalid one.
    pub(crate) fn new<'a>(
        patterns: impl IntoIterator<Item = &'a str>,
    ) -> Result<Exclude, BadPattern> {
        let mut builder = GitignoreBuilder::new("");
        let mut any = false;
        for pattern in patterns {
            builder.add_line(None, pattern).map_err(|e| BadPattern {
                reason: match e {
                    ignore::Error::Glob { err, .. } => err,
                    other => other.to_string(),
                },
            })?;
            any = true;
        }
        if !any {
            return Ok(Exclude(None));
        }
        let set = builder.build().map_err(|e| BadPattern {
            reason: e.to_string(),
        })?;
        Ok(Exclude(Some(std::sync::Arc::new(set))))
    }

    /// Is `rel` (relative to the operand) excluded?
    fn excludes(&self, rel: &Path, is_dir: bool) -> bool {
        self.0
            .as_ref()
            .is_some_and(|set| set.matched(rel, is_dir).is_ignore())
    }
}

/// Expand FILE arguments into entries, in output order.
pub(crate) fn expand(
    files: Vec<OsString>,
    walk: &Walk,
) -> impl Iterator<Item = Entry> + Send + use<> {
    let walk = walk.clone();
    files.into_iter().flat_map(move |arg| {
        let input = Input::from_arg(arg);
        let walk_root = match &input {
            Input::Path(p) if walk.recursive && p.is_dir() => Some(p.clone()),
            _ => None,
        };
        let (single, entries) = match walk_root {
            Some(root) => (None, Some(walk_dir(root, &walk))),
            None => (Some(Entry::Input(input)), None),
        };
        single.into_iter().chain(entries.into_iter().flatten())
    })
}

/// The regular files under `root`, as `find root -type f` names them,
/// sorted by name at each level, less what `walk` leaves out.
fn walk_dir(root: PathBuf, walk: &Walk) -> impl Iterator<Item = Entry> + Send + use<> {
    let mut dir = WalkDir::new(&root)
        .follow_links(false)
        .follow_root_links(true)
        .same_file_system(walk.one_file_system)
        .sort_by(|a, b| a.file_name().as_bytes().cmp(b.file_name().as_bytes()));
    if let Some(depth) = walk.max_depth {
        dir = dir.max_depth(depth);
    }
    let exclude = walk.exclude.clone();
    let base = root.clone();
    dir.into_iter()
        .filter_entry(move |e| {
            let rel = e.path().strip_prefix(&base).unwrap_or(e.path());
            e.depth() == 0 || !exclude.excludes(rel, e.file_type().is_dir())
        })
        .filter_map(move |item| match item {
            Ok(e) if e.file_type().is_file() => Some(Entry::Input(Input::Path(e.into_path()))),
            Ok(_) => None,
            Err(e) => {
                let path = e.path().map_or_else(|| root.clone(), Path::to_path_buf);
                let io = e
                    .into_io_error()
                    .unwrap_or_else(|| io::Error::other("filesystem loop"));
                Some(Entry::Error(path, io))
            }
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(files: &[&Path], recursive: bool) -> Vec<String> {
        let walk = Walk {
            recursive,
            ..Walk::default()
        };
        expand(
            files.iter().map(|p| p.as_os_str().to_owned()).collect(),
            &walk,
        )
        .map(|e| match e {
            Entry::Input(i) => String::from_utf8_lossy(i.name()).into_owned(),
            Entry::Error(p, e) => format!("ERR {} {e}", p.display()),
        })
        .collect()
    }

    #[test]
    fn walks_sorted_skipping_links_and_fifos() {
        let t = tempfile::tempdir().unwrap();
        let d = t.path().join("d");
        std::fs::create_dir_all(d.join("sub")).unwrap();
        for f in ["b", "a", "sub/c", "B"] {
            std::fs::write(d.join(f), f).unwrap();
        }
        std::os::unix::fs::symlink(d.join("a"), d.join("link")).unwrap();
        std::os::unix::fs::symlink(&d, d.join("sub/loop")).unwrap();
        let fifo = std::ffi::CString::new(d.join("fifo").as_os_str().as_bytes()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o644) }, 0);
        let got = names(&[&d], true);
        let base = d.display().to_string();
        let want: Vec<String> = ["B", "a", "b", "sub/c"]
            .iter()
            .map(|f| format!("{base}/{f}"))
            .collect();
        assert_eq!(got, want);
        // without -r the directory is passed on (and fails to read later, as GNU)
        assert_eq!(names(&[&d], false), vec![base.clone()]);
        // a link named on the command line is followed
        assert_eq!(names(&[&d.join("sub/loop")], true).len(), 4);
    }

    #[test]
    fn stdin_and_files_pass_through() {
        let walk = Walk {
            recursive: true,
            ..Walk::default()
        };
        let got: Vec<Vec<u8>> = expand(vec!["-".into(), "x".into()], &walk)
            .map(|e| match e {
                Entry::Input(i) => i.name().to_vec(),
                Entry::Error(..) => b"ERR".to_vec(),
            })
            .collect();
        assert_eq!(got, vec![b"-".to_vec(), b"x".to_vec()]);
    }
}
