//! Who fastsum was invoked as: the tool name in `argv[0]`, the family of
//! command line it has ([`Flavour`]) and its default algorithm; and what
//! each flavour is, one [`Row`] each ([`Flavour::row`]): its abbreviations,
//! GNU's messages or not, whose options it has, its output style and the
//! grammar its `-c` reads check files by.

use std::ffi::OsString;

use crate::algo::Algorithm;
use crate::command::check::grammar::{self, Make};

use super::getopt::Abbrev;
use super::style::{self, Styles};

/// Which family of command line a name has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Flavour {
    /// fastsum itself: every option but b3sum's, `-h`/`-V`, any
    /// unambiguous abbreviation; GNU's frame for errors, with suggestions.
    Fastsum,
    /// md5sum … sha512sum: GNU's options (no `-h`/`-V`, no `-a`: the name
    /// fixes the algorithm) plus fastsum's reading options; abbreviations
    /// resolved among GNU's first; GNU's errors, exit 1.
    Gnu,
    /// b3sum: b3sum's options plus fastsum's reading options, exact names
    /// only (b3sum is a clap program), `-h`/`-V`; clap's errors, exit 2.
    B3sum,
    /// b2sum: GNU's command line (as [`Flavour::Gnu`]) plus `-l BITS`.
    B2sum,
    /// cksum: GNU 9.1's (`-a`, `-l`, tagged lines by default, `--untagged`,
    /// no `-b`/`-t`; the POSIX CRC by default).
    Cksum,
    /// sum: `-r` (BSD, the default) and `-s`.
    Sum,
    /// xxhsum 0.8.1 and its xxh32sum, xxh64sum, xxh128sum (and xxh3sum)
    /// names: its own loop over the words (`getopt::Syntax::Xxhsum`), help
    /// and version on stderr, `Wrong parameters` and exit 1, its own check
    /// lines and messages.
    Xxhsum,
}

/// What a flavour is, beyond the option table's `Names` that give it
/// options: the one place a tool name is described.
#[derive(Clone, Copy)]
pub(super) struct Row {
    /// The one name that is the flavour, with its default algorithm
    /// (`cksum`, `sum`); `None` when its names are its algorithms' tools
    /// (`algo/identity.rs`: `Algorithm::from_tool_name`,
    /// `from_xxhsum_tool`) or fastsum's own.
    pub(super) tool: Option<(&'static str, Algorithm)>,
    /// How abbreviated long options are resolved.
    pub(super) abbrev: Abbrev,
    /// A GNU coreutils name (md5sum … sha512sum, b2sum, cksum, sum): GNU's
    /// messages, exit 1, no `-h`/`-V`.
    pub(super) gnu: bool,
    /// Whose options it has (`cli/options.rs` `Names`): its own, or those
    /// of the flavour named here.
    pub(super) options: Flavour,
    /// Its output style: how its hash lines and `-c`'s status lines look
    /// (`cli/style.rs`).
    pub(super) style: Styles,
    /// The grammar its `-c` reads check files by: a file of
    /// `src/command/check/grammar/`, its `make`.
    pub(super) grammar: Make,
}

impl Flavour {
    /// Every flavour, in the order their [`Row::tool`] names are tried.
    const ALL: [Flavour; 7] = [
        Flavour::Fastsum,
        Flavour::Gnu,
        Flavour::B3sum,
        Flavour::B2sum,
        Flavour::Cksum,
        Flavour::Sum,
        Flavour::Xxhsum,
    ];

    /// Its row: a new flavour is a variant and its arm here.
    pub(super) fn row(self) -> Row {
        let gnu = Row {
            tool: None,
            abbrev: Abbrev::GnuFirst,
            gnu: true,
            options: self,
            style: style::GNU,
            grammar: grammar::gnu::make,
        };
        match self {
            Flavour::Fastsum => Row {
                abbrev: Abbrev::Flat,
                gnu: false,
                ..gnu
            },
            Flavour::Gnu | Flavour::B2sum => gnu,
            Flavour::B3sum => Row {
                abbrev: Abbrev::Off,
                gnu: false,
                style: style::B3SUM,
                grammar: grammar::b3sum::make,
                ..gnu
            },
            Flavour::Cksum => Row {
                tool: Some(("cksum", Algorithm::Crc)),
                ..gnu
            },
            Flavour::Sum => Row {
                tool: Some(("sum", Algorithm::Bsd)),
                ..gnu
            },
            Flavour::Xxhsum => Row {
                abbrev: Abbrev::Off,
                gnu: false,
                style: style::XXHSUM,
                grammar: grammar::xxhsum::make,
                ..gnu
            },
        }
    }

    /// How abbreviated long options are resolved.
    pub(super) fn abbrev(self) -> Abbrev {
        self.row().abbrev
    }

    /// A GNU coreutils name (md5sum … sha512sum, b2sum, cksum, sum): GNU's
    /// messages, exit 1, no `-h`/`-V`.
    pub(crate) fn is_gnu(self) -> bool {
        self.row().gnu
    }
}

/// The algorithm of the tool a name is installed as: the tool's own name,
/// or with a `g` prefix (Homebrew's `gsha256sum`), a `.exe` suffix, a
/// version suffix (`sha256sum-9.1`); on file systems that ignore case, in
/// any case. `None` for any other name (which then runs as fastsum).
fn tool_algorithm(base: &str) -> Option<(Flavour, Algorithm)> {
    let mut name = base;
    if name.len() > 4 && name.is_char_boundary(name.len() - 4) {
        let (stem, ext) = name.split_at(name.len() - 4);
        if ext.eq_ignore_ascii_case(".exe") {
            name = stem;
        }
    }
    if let Some((stem, version)) = name.rsplit_once('-')
        && version.starts_with(|c: char| c.is_ascii_digit())
        && version.chars().all(|c| c.is_ascii_digit() || c == '.')
    {
        name = stem;
    }
    let tool = |name: &str| {
        let named = Flavour::ALL.into_iter().find_map(|f| {
            let (tool, algo) = f.row().tool?;
            crate::sys::same_file_name(tool, name).then_some((f, algo))
        });
        if named.is_some() {
            return named;
        }
        if let Some(algo) = Algorithm::from_xxhsum_tool(name) {
            return Some((Flavour::Xxhsum, algo));
        }
        let algo = Algorithm::from_tool_name(name)?;
        Some(match algo {
            Algorithm::Blake3 => (Flavour::B3sum, algo),
            Algorithm::Blake2b(_) => (Flavour::B2sum, algo),
            _ => (Flavour::Gnu, algo),
        })
    };
    tool(name).or_else(|| name.strip_prefix('g').and_then(tool))
}

/// Who we were invoked as: fastsum itself, or one of the tools it replaces.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Invocation {
    /// Prefix of every message: the basename of `argv[0]` (`fastsum`, `md5sum`, …).
    pub(crate) program: &'static str,
    /// The algorithm the name implies, for a multi-call name.
    pub(crate) default_algorithm: Option<Algorithm>,
    /// Whose command line the name has.
    flavour: Flavour,
}

impl Invocation {
    /// Work out the invocation from `argv[0]`.
    pub(crate) fn from_argv0(argv0: Option<&OsString>) -> Invocation {
        let mut base = argv0
            .and_then(|a| std::path::Path::new(a).file_name())
            .map(|b| b.to_string_lossy().into_owned())
            .unwrap_or_default();
        // on Windows `md5sum.exe` says `md5sum:`, as b3sum does there
        if cfg!(windows) && base.len() > 4 && base.to_ascii_lowercase().ends_with(".exe") {
            base.truncate(base.len() - 4);
        }
        let tool = tool_algorithm(&base);
        let program = match tool {
            // the name as invoked prefixes messages, as GNU's `gsha256sum:`
            // (leaked once: one short string for the life of the process)
            Some(_) => &*Box::leak(base.into_boxed_str()),
            None => "fastsum",
        };
        Invocation {
            program,
            default_algorithm: tool.map(|(_, a)| a),
            flavour: tool.map_or(Flavour::Fastsum, |(f, _)| f),
        }
    }

    /// Whose command line the name has.
    pub(crate) fn flavour(&self) -> Flavour {
        self.flavour
    }

    /// What its flavour is (abbreviations, options, style, grammar).
    pub(super) fn row(&self) -> Row {
        self.flavour.row()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algo::Algorithms;
    use crate::command::check::grammar::{FileErrors, Rules};
    use crate::config::CheckOptions;

    /// `Flavour::ALL` holds every flavour once, at its place: the match
    /// makes a new variant fail to compile here until it is in the list.
    #[test]
    fn every_flavour_is_listed_once() {
        for (i, f) in Flavour::ALL.into_iter().enumerate() {
            let place = match f {
                Flavour::Fastsum => 0,
                Flavour::Gnu => 1,
                Flavour::B3sum => 2,
                Flavour::B2sum => 3,
                Flavour::Cksum => 4,
                Flavour::Sum => 5,
                Flavour::Xxhsum => 6,
            };
            assert_eq!(place, i, "{f:?}");
        }
    }

    /// Each row names its grammar, whose rules are its tool's.
    #[test]
    fn each_row_names_its_grammar() {
        let rules = |f: Flavour| {
            let make = f.row().grammar;
            make(
                &CheckOptions::gnu().dialect,
                Algorithms::one(Algorithm::Md5),
            )
            .rules()
        };
        for f in [
            Flavour::Fastsum,
            Flavour::Gnu,
            Flavour::B2sum,
            Flavour::Cksum,
        ] {
            assert_eq!(rules(f), Rules::GNU, "{f:?}");
        }
        assert_eq!(rules(Flavour::B3sum).file_errors, FileErrors::EndTheRun);
        assert_eq!(rules(Flavour::Xxhsum).file_errors, FileErrors::ReadEnds);
        // the names a row gives, and what they run as
        for (name, flavour, algo) in [
            ("cksum", Flavour::Cksum, Algorithm::Crc),
            ("sum", Flavour::Sum, Algorithm::Bsd),
            ("gsum-9.1", Flavour::Sum, Algorithm::Bsd),
            ("md5sum", Flavour::Gnu, Algorithm::Md5),
            ("b3sum", Flavour::B3sum, Algorithm::Blake3),
        ] {
            assert_eq!(tool_algorithm(name), Some((flavour, algo)), "{name}");
        }
        assert_eq!(tool_algorithm("fastsum"), None);
    }
}
