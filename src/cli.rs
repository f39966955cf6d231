//! The command line: clap definitions (whose doc comments are `--help` and
//! the man page), and the multi-call logic that makes `md5sum`, `sha256sum`,
//! `b3sum`, … symlinks act as those tools.

use std::ffi::OsString;
use std::num::NonZeroUsize;

use clap::{CommandFactory, Parser, ValueEnum};

use crate::algo::Algorithm;
use crate::read::MAX_COUNT;
use crate::size::parse_size;

pub mod b3sum;
mod front;
mod getopt;

pub use front::Stop;

/// How bytes travel from the file to the hash function.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Mode {
    /// A reader thread fills --readahead blocks from a bounded pool and hands them over a
    /// channel to the hasher(s), which hash them --chunk bytes per update: reading overlaps
    /// hashing, memory stays bounded.
    Threaded,
    /// The hashing thread reads exactly --chunk bytes per read call into one reused buffer,
    /// then hashes it: read what you consume, one call at a time.
    Sync,
    /// std's BufReader and its bytes() iterator feed the hash one byte at a time: the naive
    /// baseline, for comparison.
    Bytewise,
    /// Regular files of 64 KiB or more are memory-mapped and hashed in place, with no read
    /// calls or copies (BLAKE3 then hashes one file on every core); other inputs are read as
    /// in sync mode. A file truncated while mapped is reported as an error.
    Mmap,
}

/// A titled block of text shown after the options: `--help` prints it as a
/// paragraph, and the man page (rendered by tests/man.rs) gives it a section
/// of its own, so the two never drift apart.
#[derive(Clone, Copy, Debug)]
pub struct HelpSection {
    /// The title, as `--help` writes it (the man page upper-cases it).
    pub title: &'static str,
    /// The text: one line for prose, one line per example when verbatim.
    pub text: &'static str,
    /// Keep the line layout (examples): the man page prints it unfilled,
    /// and only the long `--help` (not `-h`) shows it.
    pub verbatim: bool,
}

/// The sections after the options, in order.
pub const HELP_SECTIONS: [HelpSection; 4] = [
    HelpSection {
        title: "Reading modes",
        text: "--chunk is the size of each read call in sync mode and of each hash update in \
               threaded mode; --readahead is the size of each block the reader thread reads in \
               threaded mode. Bytewise ignores both; sync ignores --readahead; mmap ignores both \
               for the files it maps (regular files of 64 KiB or more) and reads the others as \
               sync does. SIZE is a number of bytes with an optional suffix K, M or G (powers \
               of 1024): 16, 4K, 64K, 1M.",
        verbatim: false,
    },
    HelpSection {
        title: "Exit status",
        text: "0 if every file was hashed (or, with -c, read and matched); 1 if a file could not \
               be read, a checksum did not match or a write failed; 2 for a usage error (1 when \
               run as md5sum, sha1sum, … as GNU does).",
        verbatim: false,
    },
    HelpSection {
        title: "Multi-call",
        text: "When run as md5sum, sha1sum, sha224sum, sha256sum, sha384sum, sha512sum or b3sum (a \
               symlink to fastsum), fastsum defaults to that algorithm and acts as that tool.",
        verbatim: false,
    },
    HelpSection {
        title: "Examples",
        text: "\
fastsum big.iso                    MD5 of a file, as md5sum prints it
fastsum -a sha256 *.tar.gz > SUMS  SHA-256 checksums into a file
fastsum -a sha256 -c SUMS          verify them
cat big.iso | fastsum              hash standard input
find . -type f -print0 | xargs -0 fastsum -j4
fastsum -m sync --chunk 16 --stats big.iso
                                   read 16 bytes per call, and see the cost",
        verbatim: true,
    },
];

/// The text after the options: every section for `--help`, the prose ones
/// for `-h`. Prose is one line per paragraph: clap wraps it to the terminal.
fn after_help(long: bool) -> String {
    let shown = HELP_SECTIONS.iter().filter(|s| long || !s.verbatim);
    let paragraphs: Vec<String> = shown
        .map(|s| {
            if s.verbatim {
                let lines: Vec<String> = s.text.lines().map(|l| format!("  {l}")).collect();
                format!("{}:\n{}", s.title, lines.join("\n"))
            } else {
                format!("{}: {}", s.title, s.text)
            }
        })
        .collect();
    paragraphs.join("\n\n")
}

/// Hash files, or check them, as md5sum / sha256sum / b3sum do, through a
/// threaded read-ahead pipeline.
#[derive(Parser, Debug, Clone)]
#[command(
    name = "fastsum",
    version,
    about = "Print or check MD5, SHA-1, SHA-2 and BLAKE3 checksums, fast",
    after_help = after_help(false),
    after_long_help = after_help(true),
    max_term_width = 100
)]
pub struct Args {
    /// Files to hash (or, with -c, checksum files to read). With none, or `-`, read
    /// standard input.
    #[arg(value_name = "FILE")]
    pub files: Vec<OsString>,

    /// Hash algorithm.
    #[arg(short = 'a', long, value_enum, value_name = "ALGO", ignore_case = true)]
    pub algorithm: Option<Algorithm>,

    /// Read in binary mode: mark names with `*` in the output.
    #[arg(short, long, overrides_with = "text")]
    pub binary: bool,

    /// Read in text mode (the default; the same bytes are hashed).
    #[arg(short, long, overrides_with = "binary")]
    pub text: bool,

    /// Read checksums from the FILEs and check them.
    #[arg(short, long)]
    pub check: bool,

    /// Create a BSD-style checksum line: `MD5 (name) = hex`.
    #[arg(long)]
    pub tag: bool,

    /// End each output line with NUL, not newline, and do not escape file names.
    #[arg(short, long)]
    pub zero: bool,

    /// How bytes reach the hash function.
    #[arg(short, long, value_enum, default_value_t = Mode::Threaded, value_name = "MODE")]
    pub mode: Mode,

    /// Bytes per hash update (threaded) or per read call (sync).
    #[arg(long, value_name = "SIZE", value_parser = parse_size, allow_hyphen_values = true,
          default_value = crate::read::DEFAULT_CHUNK_STR)]
    pub chunk: usize,

    /// Bytes per block read by the reader thread (threaded mode).
    #[arg(long, value_name = "SIZE", value_parser = parse_size, allow_hyphen_values = true,
          default_value = crate::read::DEFAULT_READAHEAD_STR)]
    pub readahead: usize,

    /// Number of --readahead blocks in the reader's pool (threaded mode): what may be in
    /// flight between reader and hashers.
    #[arg(long, value_name = "N", value_parser = parse_count,
          default_value = crate::read::DEFAULT_POOL_STR)]
    pub pool: NonZeroUsize,

    /// Hash up to N files at once [default: the number of cores]. Output stays in
    /// argument order.
    #[arg(short, long, value_name = "N", value_parser = parse_count)]
    pub jobs: Option<NonZeroUsize>,

    /// Hash the files under directories given on the command line (sorted by name;
    /// symbolic links met in the walk are not followed).
    #[arg(short, long)]
    pub recursive: bool,

    /// Show progress on stderr even for short runs (only when stderr is a terminal).
    #[arg(long, overrides_with = "no_progress")]
    pub progress: bool,

    /// Never show progress.
    #[arg(long, overrides_with = "progress")]
    pub no_progress: bool,

    /// After the run, print bytes, time, throughput, read calls and pipeline waits on stderr.
    #[arg(long)]
    pub stats: bool,

    /// With -c: do not print OK for each verified file.
    #[arg(long, overrides_with_all = ["status", "warn"])]
    pub quiet: bool,

    /// With -c: print nothing; the exit status tells.
    #[arg(long, overrides_with_all = ["quiet", "warn"])]
    pub status: bool,

    /// With -c: warn about improperly formatted checksum lines.
    #[arg(short, long, overrides_with_all = ["quiet", "status"])]
    pub warn: bool,

    /// With -c: exit non-zero for improperly formatted checksum lines.
    #[arg(long)]
    pub strict: bool,

    /// With -c: do not fail or report status for missing files.
    #[arg(long)]
    pub ignore_missing: bool,

    /// b3sum's own options (under the b3sum name only): set by the
    /// front end, not clap, so they stay out of fastsum's help,
    /// completions and man page.
    #[arg(skip)]
    pub b3sum: b3sum::B3Options,
}

/// `-j` and `--pool`: a whole number from 1 to [`MAX_COUNT`].
fn parse_count(s: &str) -> Result<NonZeroUsize, String> {
    s.parse::<usize>()
        .ok()
        .filter(|n| *n <= MAX_COUNT)
        .and_then(NonZeroUsize::new)
        .ok_or_else(|| format!("it must be a whole number from 1 to {MAX_COUNT}"))
}

/// The clap command, for the man page and completions.
pub fn command() -> clap::Command {
    Args::command()
}

/// Who we were invoked as: fastsum itself, or one of the tools it replaces.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Invocation {
    /// Prefix of every message: the basename of `argv[0]` (`fastsum`, `md5sum`, …).
    pub program: &'static str,
    /// The algorithm the name implies, for a multi-call name.
    pub default_algorithm: Option<Algorithm>,
}

impl Invocation {
    /// Work out the invocation from `argv[0]`.
    pub fn from_argv0(argv0: Option<&OsString>) -> Invocation {
        let base = argv0
            .and_then(|a| std::path::Path::new(a).file_name())
            .map(|b| b.to_string_lossy().into_owned())
            .unwrap_or_default();
        let default_algorithm = Algorithm::from_tool_name(&base);
        let program = default_algorithm.map_or("fastsum", Algorithm::tool_name);
        Invocation {
            program,
            default_algorithm,
        }
    }

    /// Run as one of GNU's tools: then usage errors exit 1, as GNU does.
    pub fn is_gnu_tool(&self) -> bool {
        matches!(self.default_algorithm, Some(a) if a != Algorithm::Blake3)
    }

    /// The exit status of a usage error under this name.
    pub fn usage_exit_code(&self) -> u8 {
        if self.is_gnu_tool() { 1 } else { 2 }
    }
}

/// Parse argv under the given invocation name, as GNU getopt would for
/// md5sum … sha512sum and fastsum, as b3sum's clap for b3sum (front.rs).
pub fn parse(inv: &Invocation, argv: Vec<OsString>) -> Result<Args, Stop> {
    front::parse(inv, argv)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clap_definition_is_valid() {
        command().debug_assert();
    }

    fn args(list: &[&str]) -> Result<Args, Stop> {
        let inv = Invocation::from_argv0(None);
        parse(&inv, list.iter().map(OsString::from).collect())
    }

    #[test]
    fn sizes_parse_and_bad_ones_fail() {
        let a = args(&["fastsum", "--chunk", "16", "--readahead", "1M", "f"]).unwrap();
        assert_eq!((a.chunk, a.readahead), (16, 1 << 20));
        for bad in ["0", "abc", "-5", "2G"] {
            let e = args(&["fastsum", "--chunk", bad]).unwrap_err();
            assert_eq!(e.code(), 2, "{bad}");
            assert!(e.text().contains("invalid size"), "{}", e.text());
        }
        assert!(args(&["fastsum", "-j", "0"]).is_err());
        assert_eq!(
            args(&["fastsum", "-j", "1024", "--pool", "1024"])
                .unwrap()
                .pool
                .get(),
            1024
        );
        for flag in ["-j", "--pool"] {
            for bad in ["1025", "100000", "-1", "x"] {
                let e = args(&["fastsum", flag, bad]).unwrap_err();
                assert_eq!(e.code(), 2, "{flag} {bad}");
            }
        }
    }

    #[test]
    fn multicall_names() {
        let inv = Invocation::from_argv0(Some(&OsString::from("/usr/bin/sha256sum")));
        assert_eq!(inv.program, "sha256sum");
        assert_eq!(inv.default_algorithm, Some(Algorithm::Sha256));
        assert_eq!(inv.usage_exit_code(), 1);
        let b3 = Invocation::from_argv0(Some(&OsString::from("b3sum")));
        assert_eq!(b3.usage_exit_code(), 2);
        let other = Invocation::from_argv0(Some(&OsString::from("./target/fastsum")));
        assert_eq!(other.program, "fastsum");
        assert_eq!(other.default_algorithm, None);
    }

    /// The mmap threshold quoted in --help is the one in force.
    #[test]
    fn help_quotes_the_mmap_threshold() {
        // unwrapped, so a line break cannot split the phrase
        let help = command()
            .term_width(0)
            .max_term_width(0)
            .render_long_help()
            .to_string();
        let quoted = format!("{} KiB or more", crate::read::mmap::MMAP_MIN / 1024);
        assert_eq!(help.matches(&quoted).count(), 2, "{help}");
    }

    #[test]
    fn last_of_quiet_status_warn_wins() {
        let a = args(&["fastsum", "-c", "--status", "--warn"]).unwrap();
        assert!(a.warn && !a.status);
        let a = args(&["fastsum", "-c", "--warn", "--quiet"]).unwrap();
        assert!(a.quiet && !a.warn);
    }
}
