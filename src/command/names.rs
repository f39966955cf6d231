//! The names `-c --audit`, `--update` and `-c` share: a listed or walked
//! name in its normal form (how a manifest's names and a walk's paths
//! compare), made absolute against the current directory, and the check
//! files themselves, which a walk of the tree they sit in leaves out.

use std::ffi::OsString;

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
    use super::{absolute, normal};

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
}
