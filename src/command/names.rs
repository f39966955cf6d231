//! The names `-c --audit`, `--update` and `-c` share: a listed or walked
//! name in its normal form (how a manifest's names and a walk's paths
//! compare), made absolute against the current directory, and the check
//! files themselves, which a walk of the tree they sit in leaves out.

use std::collections::HashMap;
use std::ffi::OsString;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::input::Input;
use crate::sys::FileId;

/// `name` with `.` components, doubled or trailing slashes and `dir/..`
/// pairs removed, lexically (as `realpath -s` does; `..` at the start of a
/// relative name stays, `/..` is `/`); also how `--update` compares the
/// names it lists with those it walks. In the form lines print names
/// (on Windows `\` is `/`: `sys::printed_name`).
pub(crate) fn normal(name: &[u8]) -> Vec<u8> {
    let printed = crate::sys::printed_name(name);
    if is_normal(&printed) {
        // (most names are: no part to drop, nothing to allocate but them)
        return printed.into_owned();
    }
    let name = &printed[..];
    let absolute = name.first() == Some(&b'/');
    let mut parts: Vec<&[u8]> = Vec::new();
    for part in name.split(|&b| b == b'/') {
        match part {
            b"" | b"." => {}
            b".." => match parts.last() {
                Some(&last) if last != b".." => {
                    parts.pop();
                }
                // above the root is the root
                _ if absolute => {}
                _ => parts.push(part),
            },
            _ => parts.push(part),
        }
    }
    let mut out = Vec::with_capacity(name.len());
    if absolute {
        out.push(b'/');
    }
    for (i, part) in parts.iter().enumerate() {
        if i > 0 {
            out.push(b'/');
        }
        out.extend_from_slice(part);
    }
    if out.is_empty() {
        out.push(b'.');
    }
    out
}

/// Is `name` (as printed) its own normal form: no empty, `.` or `..` part?
fn is_normal(name: &[u8]) -> bool {
    let rest = name.strip_prefix(b"/").unwrap_or(name);
    !rest.is_empty()
        && rest
            .split(|&b| b == b'/')
            .all(|part| !matches!(part, b"" | b"." | b".."))
}

/// `name` in normal form, made absolute against `cwd` (the current
/// directory) when it is relative: `./d/a`, `d//a` and `/cwd/d/a` are one
/// name. Without a `cwd` (it could not be known), the normal form.
pub(crate) fn absolute(name: &[u8], cwd: Option<&[u8]>) -> Vec<u8> {
    match cwd {
        Some(cwd) if name.first() != Some(&b'/') => normal(&[cwd, b"/", name].concat()),
        _ => normal(name),
    }
}

/// [`absolute`] for many names against one current directory, without
/// allocating for a name already in normal form (most are): the name is
/// then the directory's normal form and itself, side by side.
pub(crate) struct Absolute {
    /// `cwd`'s normal form and a `/` (`/` alone for the root); empty
    /// without a `cwd`.
    prefix: Vec<u8>,
    cwd: Option<Vec<u8>>,
}

/// A name made absolute by [`Absolute::of`]: the concatenation of two
/// borrowed parts, or a name of its own.
pub(crate) enum Joined<'a> {
    Parts(&'a [u8], &'a [u8]),
    Owned(Vec<u8>),
}

impl Joined<'_> {
    /// Is it `other`?
    pub(crate) fn is(&self, other: &[u8]) -> bool {
        match self {
            Joined::Parts(a, b) => {
                other.len() == a.len() + b.len() && other.starts_with(a) && other.ends_with(b)
            }
            Joined::Owned(name) => name == other,
        }
    }

    /// Append it to `out`.
    pub(crate) fn push_to(&self, out: &mut Vec<u8>) {
        match self {
            Joined::Parts(a, b) => {
                out.extend_from_slice(a);
                out.extend_from_slice(b);
            }
            Joined::Owned(name) => out.extend_from_slice(name),
        }
    }

    /// It, in one piece.
    pub(crate) fn to_vec(&self) -> Vec<u8> {
        let mut out = Vec::new();
        self.push_to(&mut out);
        out
    }
}

impl Absolute {
    /// Names made absolute against `cwd`, as [`absolute`] makes them.
    pub(crate) fn new(cwd: Option<&[u8]>) -> Absolute {
        let prefix = match cwd {
            Some(cwd) => {
                let mut prefix = normal(cwd);
                if prefix != b"/" {
                    prefix.push(b'/');
                }
                prefix
            }
            None => Vec::new(),
        };
        Absolute {
            // (a `cwd` that is not absolute is left to `absolute`)
            prefix: match cwd {
                Some(c) if c.first() != Some(&b'/') => Vec::new(),
                _ => prefix,
            },
            cwd: cwd.map(<[u8]>::to_vec),
        }
    }

    /// `name` made absolute: `absolute(name, cwd)`.
    pub(crate) fn of<'a>(&'a self, name: &'a [u8]) -> Joined<'a> {
        let cwd = self.cwd.as_deref();
        let printed = crate::sys::printed_name(name);
        let relative = name.first() != Some(&b'/');
        let fast = match (cwd, relative) {
            (Some(_), true) => !self.prefix.is_empty(),
            _ => true,
        };
        if fast && matches!(printed, std::borrow::Cow::Borrowed(_)) && is_normal(name) {
            return match (cwd, relative) {
                (Some(_), true) => Joined::Parts(&self.prefix, name),
                _ => Joined::Parts(b"", name),
            };
        }
        Joined::Owned(absolute(name, cwd))
    }
}

/// Names (absolute, normal: as names compare) in the order a walk of the
/// tree they were made from meets them: each is looked for first where the
/// last one was found (a look at the next name, its bytes beside the
/// last's), then by a map made the first time that misses (a file added,
/// or a list in another order), which gives a name's first place.
#[derive(Default)]
pub(crate) struct NameIndex {
    /// The names, one after another (`ends`: where each ends).
    names: Vec<u8>,
    ends: Vec<usize>,
    /// The place after the last one found.
    cursor: AtomicUsize,
    map: OnceLock<HashMap<Vec<u8>, usize>>,
}

impl NameIndex {
    /// Add `name`, after the others.
    pub(crate) fn push(&mut self, name: &Joined<'_>) {
        name.push_to(&mut self.names);
        self.ends.push(self.names.len());
    }

    /// How many names it holds.
    pub(crate) fn len(&self) -> usize {
        self.ends.len()
    }

    /// The `i`th name.
    pub(crate) fn name(&self, i: usize) -> &[u8] {
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        &self.names[start..self.ends[i]]
    }

    /// Where `name` is, if it is here.
    pub(crate) fn find(&self, name: &Joined<'_>) -> Option<usize> {
        let next = self.cursor.load(Ordering::Relaxed);
        if next < self.len() && name.is(self.name(next)) {
            self.cursor.store(next + 1, Ordering::Relaxed);
            return Some(next);
        }
        let map = self.map.get_or_init(|| {
            let mut map = HashMap::with_capacity(self.len());
            for i in 0..self.len() {
                map.entry(self.name(i).to_vec()).or_insert(i);
            }
            map
        });
        let found = map.get(&name.to_vec()).copied();
        if let Some(i) = found {
            self.cursor.store(i + 1, Ordering::Relaxed);
        }
        found
    }
}

/// The check files, to leave them out of the walk: a manifest kept in the
/// tree it lists is not a new file of it (nor, for `--update`, a file to
/// add to itself). Compared by device and inode.
pub(crate) struct CheckFiles(Vec<(OsString, FileId)>);

impl CheckFiles {
    pub(crate) fn of(files: &[OsString]) -> CheckFiles {
        CheckFiles(
            files
                .iter()
                .filter(|f| *f != "-")
                .filter_map(|f| {
                    let id = FileId::of_path(f.as_ref()).ok()?;
                    let base = std::path::Path::new(f).file_name()?.to_os_string();
                    Some((base, id))
                })
                .collect(),
        )
    }

    /// Is `input` one of them? (Only a name that ends like one is stat'ed.)
    pub(crate) fn is(&self, input: &Input) -> bool {
        let Input::Path(path) = input else {
            return false;
        };
        let Some(base) = path.file_name() else {
            return false;
        };
        self.0
            .iter()
            .any(|(b, id)| b == base && FileId::of_path(path).is_ok_and(|now| now == *id))
    }
}

#[cfg(test)]
mod tests {
    use super::{Absolute, absolute, normal};

    #[test]
    fn names_compare_in_normal_form() {
        for (name, want) in [
            ("./a/b", "a/b"),
            ("a//b/", "a/b"),
            ("/x/./y", "/x/y"),
            ("./", "."),
            ("../a", "../a"),
            ("t/sub/../f2", "t/f2"),
            ("t/sub/./../../f2", "f2"),
            ("a/../../b", "../b"),
            ("../../b", "../../b"),
            ("/../a/..", "/"),
            ("a/..", "."),
            ("a", "a"),
        ] {
            assert_eq!(normal(name.as_bytes()), want.as_bytes(), "{name}");
        }
    }

    #[test]
    fn absolute_names_are_taken_from_the_current_directory() {
        for (name, want) in [
            ("./d/a", "/w/d/a"),
            ("d//a", "/w/d/a"),
            ("/w/d/a", "/w/d/a"),
            ("//w/./d/a", "/w/d/a"),
            (".", "/w"),
        ] {
            assert_eq!(
                absolute(name.as_bytes(), Some(b"/w/")),
                want.as_bytes(),
                "{name}"
            );
        }
        assert_eq!(absolute(b"./d/a", None), b"d/a");
    }

    /// `Absolute::of` is `absolute`, whatever the name and directory.
    #[test]
    fn absolute_of_many_names_is_absolute() {
        let names = [
            "a",
            "d/a",
            "./d/a",
            "d//a",
            "/w/d/a",
            "//w/./d/a",
            ".",
            "..",
            "../a",
            "a/..",
            "/",
            "d/",
            "/x",
            "a b/c",
            "d\\a",
        ];
        for cwd in [
            Some("/w"),
            Some("/w/"),
            Some("/"),
            Some("//w/./x/.."),
            Some("rel"),
            None,
        ] {
            let many = Absolute::new(cwd.map(str::as_bytes));
            for name in names {
                let want = absolute(name.as_bytes(), cwd.map(str::as_bytes));
                let got = many.of(name.as_bytes());
                assert_eq!(got.to_vec(), want, "{name} from {cwd:?}");
                assert!(got.is(&want), "{name} from {cwd:?}");
                assert!(!got.is(b"/other"), "{name} from {cwd:?}");
            }
        }
    }
}
