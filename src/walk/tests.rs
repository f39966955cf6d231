//! The walk against walkdir's (the sequential walk it replaced), on
//! fixed and random trees, with and without readers; the readers' bounds.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::time::Duration;

use super::readers::READ_AHEAD;
use super::tree::{Start, Tree};
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
    crate::sys::make_fifo(&d.join("fifo")).unwrap();
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

/// The walk as it was before the read-ahead (walkdir, sorted by name
/// bytes): the oracle the walk must match, entry for entry.
fn walkdir_walk(root: &Path, walk: &Walk) -> Vec<Entry> {
    let mut dir = walkdir::WalkDir::new(root)
        .follow_links(false)
        .follow_root_links(true)
        .same_file_system(walk.one_file_system)
        .sort_by(|a, b| a.file_name().as_bytes().cmp(b.file_name().as_bytes()));
    if let Some(depth) = walk.max_depth {
        dir = dir.max_depth(depth);
    }
    let exclude = walk.exclude.clone();
    dir.into_iter()
        .filter_entry(move |e| {
            let rel = e.path().strip_prefix(root).unwrap_or(e.path());
            e.depth() == 0 || !exclude.excludes(rel, e.file_type().is_dir())
        })
        .filter_map(move |item| match item {
            Ok(e) if e.file_type().is_file() => Some(Entry::Input(Input::Path(e.into_path()))),
            Ok(_) => None,
            Err(e) => {
                let path = e
                    .path()
                    .map_or_else(|| root.to_path_buf(), Path::to_path_buf);
                let io = e
                    .into_io_error()
                    .unwrap_or_else(|| io::Error::other("filesystem loop"));
                Some(Entry::Error(path, io))
            }
        })
        .collect()
}

/// Entries as bytes: a path, or `ERR path: message`.
fn shown(entries: impl IntoIterator<Item = Entry>) -> Vec<Vec<u8>> {
    entries
        .into_iter()
        .map(|e| match e {
            Entry::Input(i) => i.name().to_vec(),
            Entry::Error(p, e) => [
                b"ERR ",
                p.as_os_str().as_bytes(),
                b": ",
                e.to_string().as_bytes(),
            ]
            .concat(),
        })
        .collect()
}

/// The walk of `root` with `threads` readers, started at once, after
/// a few directories or (warm) never, equals walkdir's, for each of
/// `walks`; returns the default walk's entries.
fn same_as_walkdir(root: &Path, walks: &[Walk]) -> Vec<Vec<u8>> {
    let after_3 = Start::WhenSlow {
        after: 3,
        each: Duration::ZERO,
    };
    for walk in walks {
        let want = shown(walkdir_walk(root, walk));
        for (threads, start) in [1, 2, 3, 8]
            .into_iter()
            .flat_map(|n| [(n, Start::Eager), (n, after_3), (n, Start::WHEN_SLOW)])
        {
            let got = shown(Tree::new(root.to_path_buf(), walk, threads, start));
            assert_eq!(
                got,
                want,
                "{threads} threads from {start:?}, {walk:?} under {}",
                root.display()
            );
        }
    }
    shown(walkdir_walk(root, &walks[0]))
}

/// The walks to compare: plain, excludes, depths, one file system.
fn walks() -> Vec<Walk> {
    let plain = Walk {
        recursive: true,
        ..Walk::default()
    };
    let mut walks = vec![plain.clone()];
    let exclude = Exclude::new(["a*", "!a.b", "d1/", "/e*/**/x", "*\u{e9}"]).unwrap();
    walks.push(Walk {
        exclude,
        ..plain.clone()
    });
    for depth in [0, 1, 2, 3] {
        walks.push(Walk {
            max_depth: Some(depth),
            ..plain.clone()
        });
    }
    walks.push(Walk {
        one_file_system: true,
        ..plain
    });
    walks
}

/// Names that sort differently as bytes and as strings or as paths
/// (`a` before `a b` and `a.b`, but `a/x` after them), escaped ones,
/// and bytes that are no UTF-8.
const NAMES: [&[u8]; 16] = [
    b"a",
    b"a b",
    b"a.b",
    b"a-",
    b"a0",
    b"B",
    b"\xc3\xa9",
    b"\xff",
    b"new\nline",
    b"back\\slash",
    b"d1",
    b"e",
    b"x",
    b"_",
    b"~",
    b"\xc3\xa9x",
];

use crate::testing::Rng;

/// A random tree under `d`: files, directories, links to files and to
/// an ancestor (a loop if followed), FIFOs, `depth` levels deep.
fn random_tree(d: &Path, rng: &mut Rng, depth: u32, width: usize) {
    let count = rng.below(width) + 1;
    for _ in 0..count {
        let name = OsStr::from_bytes(NAMES[rng.below(NAMES.len())]);
        let path = d.join(name);
        if path.symlink_metadata().is_ok() {
            continue;
        }
        match rng.below(10) {
            0..=4 => std::fs::write(&path, name.as_bytes()).unwrap(),
            5..=7 if depth > 0 => {
                std::fs::create_dir(&path).unwrap();
                random_tree(&path, rng, depth - 1, width);
            }
            8 => std::os::unix::fs::symlink(if rng.below(2) == 0 { "." } else { ".." }, &path)
                .unwrap(),
            _ => crate::sys::make_fifo(&path).unwrap(),
        }
    }
}

#[test]
fn random_trees_walk_as_walkdir_walked_them() {
    let walks = walks();
    for seed in 1..=12u64 {
        let t = tempfile::tempdir().unwrap();
        let d = t.path().join("t");
        std::fs::create_dir(&d).unwrap();
        let mut rng = Rng::new(seed);
        // deep and narrow, then shallow and wide
        let (depth, width) = if seed % 2 == 0 { (7, 5) } else { (3, 16) };
        while walkdir_walk(&d, &walks[0]).len() < 5 {
            random_tree(&d, &mut rng, depth, width);
        }
        let all = same_as_walkdir(&d, &walks);
        assert!(all.len() >= 5);
        // an operand named with a trailing slash, and through a link
        let slash = PathBuf::from(format!("{}/", d.display()));
        same_as_walkdir(&slash, &walks);
        std::os::unix::fs::symlink(&d, t.path().join("link")).unwrap();
        let via = names(&[&t.path().join("link")], true);
        assert_eq!(
            via.len(),
            all.len(),
            "seed {seed}: the operand link is followed"
        );
    }
}

/// Make the chain `names` of directories below `dir` (with a file in
/// each), by descriptor: its paths may be longer than PATH_MAX.
fn deep_chain(dir: &Path, name: &str, levels: usize) {
    crate::sys::make_deep_chain(dir, name, levels);
}

/// Directories that cannot be read (paths past PATH_MAX: an error even
/// for root) are reported in their place, as walkdir reported them;
/// inside an excluded directory, not at all.
#[test]
fn unreadable_directories_are_reported_in_place() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path().join("t");
    std::fs::create_dir(&d).unwrap();
    for sub in ["a", "m", "z"] {
        std::fs::create_dir(d.join(sub)).unwrap();
        std::fs::write(d.join(sub).join("f"), b"f").unwrap();
    }
    let long = "n".repeat(250);
    deep_chain(&d.join("m"), &long, 20);
    deep_chain(&d.join("a"), &long, 20);
    let all = same_as_walkdir(&d, &walks());
    let errors: Vec<&Vec<u8>> = all.iter().filter(|e| e.starts_with(b"ERR ")).collect();
    assert_eq!(errors.len(), 2, "one in a, one in m");
    assert!(String::from_utf8_lossy(errors[0]).ends_with("File name too long (os error 36)"));
    // in place: after a's files, before m/f's... and z/f last
    let at = |p: &[u8]| all.iter().position(|e| e.ends_with(p)).unwrap();
    let err_m = all.iter().rposition(|e| e.starts_with(b"ERR ")).unwrap();
    assert!(at(b"/m/f") < err_m && err_m < at(b"/z/f"));
    // excluded, the unreadable directories are not entered: no error
    let walk = Walk {
        recursive: true,
        exclude: Exclude::new(["/a", "m/"]).unwrap(),
        ..Walk::default()
    };
    for threads in [1, 4] {
        let got = shown(Tree::new(d.clone(), &walk, threads, Start::Eager));
        assert_eq!(got.len(), 1, "{threads} threads: {got:?}");
        assert!(got[0].ends_with(b"/z/f"));
    }
}

/// The readers stay at most READ_AHEAD directories ahead of the walk,
/// and the walk's first entries come before the tree is read.
#[test]
fn read_ahead_is_bounded() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    let dirs = 3 * READ_AHEAD;
    for i in 0..dirs {
        let sub = d.join(format!("{i:05}"));
        std::fs::create_dir(&sub).unwrap();
        std::fs::write(sub.join("f"), b"").unwrap();
    }
    let walk = Walk {
        recursive: true,
        ..Walk::default()
    };
    let mut tree = Tree::new(d.to_path_buf(), &walk, 4, Start::Eager);
    assert!(matches!(tree.next(), Some(Entry::Input(_))));
    let readers = tree.readers.clone().unwrap();
    // many directories waiting: every reader started
    assert_eq!(readers.lock().room, 0);
    // let the readers run as far ahead as they may
    let mut last = usize::MAX;
    for _ in 0..200 {
        std::thread::sleep(std::time::Duration::from_millis(5));
        let state = readers.lock();
        let left = state.pending.len();
        assert!(state.ahead <= READ_AHEAD && state.done.len() <= READ_AHEAD);
        if left == last {
            break;
        }
        last = left;
    }
    assert!(readers.lock().pending.len() >= dirs - READ_AHEAD - 1);
    assert_eq!(tree.count(), dirs - 1);
    assert!(readers.lock().done.is_empty());
}

/// Readers started in the middle of a walk (directories found slow)
/// take over every directory the walk has still to enter, in order.
#[test]
fn readers_started_mid_walk_keep_the_order() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    for i in 0..40 {
        for sub in ["a", "b/c"] {
            let dir = d.join(format!("{i:02}/{sub}"));
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(dir.join("f"), b"").unwrap();
        }
    }
    let walk = Walk {
        recursive: true,
        ..Walk::default()
    };
    let start = Start::WhenSlow {
        after: 4,
        each: Duration::ZERO,
    };
    let mut tree = Tree::new(d.to_path_buf(), &walk, 4, start);
    let first = shown(tree.by_ref().take(3));
    assert!(tree.readers.is_some(), "started after 4 directories");
    let rest = shown(tree);
    let want = shown(walkdir_walk(d, &walk));
    assert_eq!([first, rest].concat(), want);
}

/// Readers start as directories wait for one: a chain of one
/// directory below another needs none (the walk reads it), nor does a
/// directory without subdirectories.
#[test]
fn readers_start_as_directories_wait() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path().join("a/b/c");
    std::fs::create_dir_all(&d).unwrap();
    std::fs::write(d.join("f"), b"").unwrap();
    let walk = Walk {
        recursive: true,
        ..Walk::default()
    };
    let mut tree = Tree::new(t.path().to_path_buf(), &walk, 8, Start::Eager);
    let readers = tree.readers.clone().unwrap();
    assert!(matches!(tree.next(), Some(Entry::Input(_))));
    assert!(tree.next().is_none());
    assert_eq!(readers.lock().room, 7, "no reader started");
    // no subdirectory: no reader at all
    let mut tree = Tree::new(d, &walk, 8, Start::Eager);
    assert!(tree.readers.is_none());
    assert!(tree.next().is_some());
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

/// The cycle guard: a directory entered below itself, by its name or by
/// another (a link, as a bind mount or Wine's view of a link is), is a
/// loop, named in GNU find's words; a sibling of the same name is not.
#[test]
fn a_directory_below_itself_is_a_loop() {
    use super::listing::Ancestors;
    let t = tempfile::tempdir().unwrap();
    let d = t.path().join("d");
    std::fs::create_dir_all(d.join("sub/d")).unwrap();
    std::os::unix::fs::symlink(&d, d.join("sub/up")).unwrap();
    let top = Ancestors::default().enter(&d).unwrap();
    let sub = top.enter(&d.join("sub")).unwrap();
    assert!(sub.enter(&d.join("sub/d")).is_ok());
    for again in [d.clone(), d.join("sub/up")] {
        let e = sub.enter(&again).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!(
                "File system loop detected; it is part of the same file system loop as '{}'",
                d.display()
            )
        );
    }
    // (itself, by another name)
    assert!(sub.enter(&d.join("sub/up/sub")).is_err());
}
