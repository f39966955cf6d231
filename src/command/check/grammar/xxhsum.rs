//! xxhsum 0.8.1's grammar (under its names): every line is a checksum line
//! (no comments, no blank lines), read by `parse::xxhsum_line`; `stdin`
//! names standard input; a check file is named as it is (`stdin` for `-`)
//! and one that fails part-way is taken as ended there; lines never group
//! (its messages name each line); a check file passes when nothing failed.

use std::ffi::OsStr;

use super::super::parse::xxhsum_line;
use super::super::{Event, FileName, Listed, Step};
use super::{At, FileErrors, Grammar, Passes, Rules};
use crate::algo::Algorithms;
use crate::config::Dialect;
use crate::input::Input;
use crate::output::xxhsum_name;
use crate::read::{Job, Task};

/// xxhsum's grammar, by its `--little-endian`.
pub(crate) fn make(dialect: &Dialect, _: Algorithms) -> Box<dyn Grammar> {
    Box::new(Xxhsum {
        little_endian: dialect.little_endian,
    })
}

/// xxhsum's grammar.
pub(crate) struct Xxhsum {
    /// `--little-endian`: untagged lines hold reversed digests.
    pub(crate) little_endian: bool,
}

impl Grammar for Xxhsum {
    fn rules(&self) -> Rules {
        Rules {
            file_errors: FileErrors::ReadEnds,
            groups: false,
            run_counts: false,
            unreadable_mismatches: false,
            passes: Passes::NothingFailed,
        }
    }

    fn file_name(&self, arg: &OsStr) -> FileName {
        xxhsum_name(&Input::from_arg(arg.to_os_string())).into()
    }

    fn line(&mut self, raw: &[u8], at: At<'_>) -> Step {
        let body = raw.strip_suffix(b"\n").unwrap_or(raw);
        let improper = || {
            Step::Job(Job::Pass(Event::Improper {
                file: at.file.clone(),
                line: at.line,
                // (xxhsum's message names no algorithm)
                algo: "",
            }))
        };
        let Ok(line) = xxhsum_line(body, self.little_endian) else {
            return improper();
        };
        let input = match line.name {
            b"stdin" => Input::Stdin,
            // (on Windows, bytes that are no name there: the line is improper)
            name => match crate::sys::os_string(name.to_vec()) {
                Some(name) => Input::Path(name.into()),
                None => return improper(),
            },
        };
        Step::Job(Job::Hash(Task {
            input,
            algos: Algorithms::one(line.algo),
            context: Listed {
                expected: vec![line.expected],
                etag: false,
                shown: None,
                at: Some((at.file.clone(), at.line)),
                meta: None,
            },
        }))
    }
}
