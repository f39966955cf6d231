//! `--files0-from LIST`, `--files-from LIST`: the names to hash, read from
//! a list as the run goes (one name in memory at a time), as GNU du and wc
//! read `--files0-from`: each name ended by a NUL (or a newline), `-` for
//! standard input, an empty name reported in its place as
//! `LIST:N: invalid zero-length file name`.

use std::ffi::OsString;
use std::io::{self, BufRead, BufReader};
use std::path::PathBuf;

use crate::config::List;
use crate::walk::Entry;

/// The names of a list, in its order: `Ok(name)`, or `Err(entry)` for
/// what cannot be a name (reported in its place, the run goes on).
pub(crate) struct Names {
    /// The list, until its end or a read error.
    reader: Option<Box<dyn BufRead + Send>>,
    /// The list's name, as messages name it.
    list: OsString,
    /// A NUL ends each name (else a newline).
    zero: bool,
    /// The list is standard input: a name `-` would read it again.
    from_stdin: bool,
    /// How many names were read (the number messages give, from 1).
    number: usize,
}

/// The list's names; `Err` if it cannot be opened.
pub(crate) fn open(list: &List) -> io::Result<Names> {
    let from_stdin = list.path.as_encoded_bytes() == b"-";
    let reader: Box<dyn BufRead + Send> = if from_stdin {
        Box::new(BufReader::new(io::stdin()))
    } else {
        let path = PathBuf::from(&list.path);
        Box::new(BufReader::new(std::fs::File::open(crate::sys::file_path(
            &path,
        ))?))
    };
    Ok(Names {
        reader: Some(reader),
        list: list.path.clone(),
        zero: list.zero,
        from_stdin,
        number: 0,
    })
}

impl Names {
    /// What GNU's messages call the list and the name's place in it:
    /// `LIST:N`.
    fn place(&self) -> PathBuf {
        let mut place = self.list.clone();
        place.push(format!(":{}", self.number));
        PathBuf::from(place)
    }
}

impl Iterator for Names {
    type Item = Result<OsString, Entry>;

    fn next(&mut self) -> Option<Self::Item> {
        let reader = self.reader.as_mut()?;
        let end = if self.zero { b'\0' } else { b'\n' };
        let mut name = Vec::new();
        match reader.read_until(end, &mut name) {
            Ok(0) => {
                self.reader = None;
                return None;
            }
            Ok(_) => {}
            Err(e) => {
                self.reader = None;
                return Some(Err(Entry::Error(PathBuf::from(&self.list), e)));
            }
        }
        self.number += 1;
        if name.last() == Some(&end) {
            name.pop();
        }
        let refused = if name.is_empty() {
            "invalid zero-length file name"
        } else if self.from_stdin && name == b"-" {
            "when reading file names from stdin, no file name of '-' allowed"
        } else {
            return Some(match crate::sys::os_string(name) {
                Some(name) => Ok(name),
                None => Err(Entry::Error(
                    self.place(),
                    io::Error::other("invalid file name (not UTF-8 nor WTF-8)"),
                )),
            });
        };
        Some(Err(Entry::Error(self.place(), io::Error::other(refused))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names_of(bytes: &[u8], zero: bool) -> Vec<Result<OsString, String>> {
        let names = Names {
            reader: Some(Box::new(io::Cursor::new(bytes.to_vec()))),
            list: "L".into(),
            zero,
            from_stdin: false,
            number: 0,
        };
        names
            .map(|n| {
                n.map_err(|e| match e {
                    Entry::Error(p, e) => format!("{}: {e}", p.display()),
                    Entry::Input(_) => unreachable!(),
                })
            })
            .collect()
    }

    #[test]
    fn names_end_with_a_nul_or_a_newline_the_last_one_maybe_not() {
        let ok = |s: &str| Ok(OsString::from(s));
        assert_eq!(names_of(b"a\0b c\0d", true), [ok("a"), ok("b c"), ok("d")]);
        assert_eq!(names_of(b"a\nb\n", false), [ok("a"), ok("b")]);
        assert_eq!(names_of(b"a\nb\0c\n", false), [ok("a"), ok("b\0c")]);
        assert_eq!(names_of(b"", true), []);
    }

    #[test]
    fn an_empty_name_is_reported_with_its_place() {
        let got = names_of(b"a\0\0b\0", true);
        assert_eq!(got[1], Err("L:2: invalid zero-length file name".into()));
        assert_eq!(got[2], Ok("b".into()));
    }
}
