//! Who fastsum was invoked as: the tool name in `argv[0]`, the family of
//! command line it has ([`Flavour`]) and its default algorithm.

use std::ffi::OsString;

use crate::algo::Algorithm;

use super::getopt::Abbrev;

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

impl Flavour {
    /// How abbreviated long options are resolved.
    pub(super) fn abbrev(self) -> Abbrev {
        match self {
            Flavour::Fastsum => Abbrev::Flat,
            Flavour::Gnu | Flavour::B2sum | Flavour::Cksum | Flavour::Sum => Abbrev::GnuFirst,
            Flavour::B3sum | Flavour::Xxhsum => Abbrev::Off,
        }
    }

    /// A GNU coreutils name (md5sum … sha512sum, b2sum, cksum, sum): GNU's
    /// messages, exit 1, no `-h`/`-V`.
    pub(crate) fn is_gnu(self) -> bool {
        !matches!(self, Flavour::Fastsum | Flavour::B3sum | Flavour::Xxhsum)
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
        let same = |t: &str| crate::sys::same_file_name(t, name);
        if same("cksum") {
            return Some((Flavour::Cksum, Algorithm::Crc));
        }
        if same("sum") {
            return Some((Flavour::Sum, Algorithm::Bsd));
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
}
