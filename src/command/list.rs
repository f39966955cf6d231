//! `--files0-from LIST`, `--files-from LIST`: the names to hash, read from
//! a list as the run goes (one name in memory at a time), as GNU du and wc
//! read `--files0-from`: each name ended by a NUL (or a newline), `-` for
//! standard input, an empty name reported in its place as
//! `LIST:N: invalid zero-length file name`. With `--list-sizes` each name
//! follows its size in bytes and a space (`find -printf '%s %p\0'`): a
//! `--shard` run reads such a list whole ([`SizedList`]) and takes every
//! size from it, looking at no file but its own share's.

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
    /// Each name follows its size and a space (`--list-sizes`).
    sized: bool,
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
        sized: list.sizes,
    })
}

/// What a record of a list is: its size (with `--list-sizes`) and its
/// name, or why it is none.
fn record(bytes: &[u8], sized: bool, from_stdin: bool) -> Result<(u64, &[u8]), &'static str> {
    let (size, name) = if sized {
        let (size, start) = size_first(bytes)
            .ok_or("no size before the name (--list-sizes: the size, a space, the name)")?;
        (size, &bytes[start..])
    } else {
        (0, bytes)
    };
    if name.is_empty() {
        Err("invalid zero-length file name")
    } else if from_stdin && name == b"-" {
        Err("when reading file names from stdin, no file name of '-' allowed")
    } else {
        Ok((size, name))
    }
}

/// A sized record's size (decimal digits, then a space) and where its name
/// starts; `None` when it has none.
fn size_first(bytes: &[u8]) -> Option<(u64, usize)> {
    let mut size = 0u64;
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'0'..=b'9' => size = size.checked_mul(10)?.checked_add(u64::from(b - b'0'))?,
            b' ' if i > 0 => return Some((size, i + 1)),
            _ => return None,
        }
    }
    None
}

/// `LIST:N`: what GNU's messages call the `number`-th name of `list`.
fn place(list: &OsString, number: usize) -> PathBuf {
    let mut place = list.clone();
    place.push(format!(":{number}"));
    PathBuf::from(place)
}

impl Names {
    /// What GNU's messages call the list and the name's place in it:
    /// `LIST:N`.
    fn place(&self) -> PathBuf {
        place(&self.list, self.number)
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
        let name = match record(&name, self.sized, self.from_stdin) {
            Ok((_, name)) => name.to_vec(),
            Err(refused) => {
                return Some(Err(Entry::Error(self.place(), io::Error::other(refused))));
            }
        };
        Some(match crate::sys::os_string(name) {
            Some(name) => Ok(name),
            None => Err(Entry::Error(
                self.place(),
                io::Error::other("invalid file name (not UTF-8 nor WTF-8)"),
            )),
        })
    }
}

/// A `--list-sizes` list read whole, for `--shard`: its records' sizes,
/// taken from it (no file looked at); its names found again only for the
/// share's own records.
pub(crate) struct SizedList {
    list: OsString,
    from_stdin: bool,
    bytes: Vec<u8>,
    end: u8,
    /// Each record's size (0 for a record that is no name: an error,
    /// reported in its place).
    sizes: Vec<u64>,
}

impl SizedList {
    /// The list's records; `Err` if it cannot be read.
    pub(crate) fn read(list: &List) -> io::Result<SizedList> {
        let from_stdin = list.path.as_encoded_bytes() == b"-";
        let mut bytes = Vec::new();
        if from_stdin {
            io::Read::read_to_end(&mut io::stdin().lock(), &mut bytes)?;
        } else {
            bytes = std::fs::read(crate::sys::file_path(&PathBuf::from(&list.path)))?;
        }
        let end = if list.zero { b'\0' } else { b'\n' };
        let mut sized = SizedList {
            list: list.path.clone(),
            from_stdin,
            bytes,
            end,
            sizes: Vec::new(),
        };
        // (a record is some 30 bytes: one allocation, most often)
        let mut sizes = Vec::with_capacity(sized.bytes.len() / 16);
        sizes.extend(
            sized
                .records()
                .map(|bytes| record(bytes, true, from_stdin).map_or(0, |(size, _)| size)),
        );
        sized.sizes = sizes;
        Ok(sized)
    }

    /// Each record's bytes, its end excluded (the last one may have none).
    fn records(&self) -> impl Iterator<Item = &[u8]> {
        let ends = memchr::memchr_iter(self.end, &self.bytes);
        let last = (self.bytes.last().is_some_and(|&b| b != self.end)).then_some(self.bytes.len());
        let mut start = 0;
        ends.chain(last).map(move |stop| {
            let bytes = &self.bytes[start..stop];
            start = stop + 1;
            bytes
        })
    }
}

impl crate::command::shard::Inputs for SizedList {
    fn sizes(&self) -> &[u64] {
        &self.sizes
    }
    fn identify(&self, hasher: &mut blake3::Hasher) {
        // (every name and size is in the list's bytes, and every part of
        // one whole reads the same list)
        hasher.update(&self.bytes);
    }
    fn entries(self, places: &[usize]) -> Vec<Entry> {
        let entry = |i: usize, bytes: &[u8]| {
            let refused = match record(bytes, true, self.from_stdin) {
                Ok((_, name)) => match crate::sys::os_string(name.to_vec()) {
                    Some(name) => return Entry::Input(crate::input::Input::from_arg(name)),
                    None => "invalid file name (not UTF-8 nor WTF-8)",
                },
                Err(refused) => refused,
            };
            Entry::Error(place(&self.list, i + 1), io::Error::other(refused))
        };
        let mut places = places.iter().peekable();
        let mut mine = Vec::with_capacity(places.len());
        for (i, bytes) in self.records().enumerate() {
            if places.next_if_eq(&&i).is_some() {
                mine.push(entry(i, bytes));
            }
        }
        mine
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names_of(bytes: &[u8], zero: bool) -> Vec<Result<OsString, String>> {
        sized_names_of(bytes, zero, false)
    }

    fn sized_names_of(bytes: &[u8], zero: bool, sized: bool) -> Vec<Result<OsString, String>> {
        let names = Names {
            reader: Some(Box::new(io::Cursor::new(bytes.to_vec()))),
            list: "L".into(),
            zero,
            from_stdin: false,
            number: 0,
            sized,
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

    #[test]
    fn a_sized_list_s_names_follow_their_size_and_a_space() {
        let got = sized_names_of(b"12 a b\x000 \x00x y\x00 c\x00-3 d\x00", true, true);
        assert_eq!(got[0], Ok("a b".into()));
        assert_eq!(got[1], Err("L:2: invalid zero-length file name".into()));
        for bad in &got[2..] {
            assert!(
                bad.as_ref()
                    .is_err_and(|e| e.contains("no size before the name"))
            );
        }
    }
}
