//! The command line, the only module that knows clap: the definitions
//! (whose doc comments are `--help` and the man page), the multi-call logic
//! that makes `md5sum`, `sha256sum`, `b3sum`, … symlinks act as those
//! tools, and the resolution of arguments into a [`Config`]: defaults,
//! multi-call defaults and the option combinations GNU rejects are all
//! settled here.

use std::ffi::OsString;

use clap::{CommandFactory, Parser, ValueEnum};

use crate::algo::{Algorithm, Algorithms};
use crate::config::{CheckOptions, Command, Config, Dialect, HashOptions, Progress, Verbosity};
use crate::output::{LineFormat, Terminator};
use crate::read::{
    DEFAULT_CHUNK, DEFAULT_POOL, DEFAULT_READAHEAD, MAX_COUNT, MAX_IN_FLIGHT, Mode, Plan,
    default_jobs,
};
use crate::size::Size;

mod b3sum;
mod front;
mod getopt;

pub(crate) use front::Stop;

/// `-a`: the algorithms by their command-line names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum AlgoArg {
    /// MD5 (RFC 1321), 128 bits: the default, as md5sum.
    Md5,
    /// SHA-1 (FIPS 180-4), 160 bits, as sha1sum.
    Sha1,
    /// SHA-224 (FIPS 180-4), as sha224sum.
    Sha224,
    /// SHA-256 (FIPS 180-4), as sha256sum.
    Sha256,
    /// SHA-384 (FIPS 180-4), as sha384sum.
    Sha384,
    /// SHA-512 (FIPS 180-4), as sha512sum.
    Sha512,
    /// BLAKE3, 256 bits of output, as b3sum.
    Blake3,
}

/// Parses `-a`'s value: one algorithm name or a comma-separated list, in
/// any case; an empty item is named (`-a md5,,sha1`: the second).
#[derive(Clone)]
struct AlgoList;

impl clap::builder::TypedValueParser for AlgoList {
    type Value = Vec<AlgoArg>;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<Vec<AlgoArg>, clap::Error> {
        let invalid = |why: String| {
            let arg = arg.map_or_else(|| "--algorithm <ALGO>".into(), ToString::to_string);
            let value = value.to_string_lossy();
            clap::Error::raw(
                clap::error::ErrorKind::ValueValidation,
                format!("invalid value '{value}' for '{arg}': {why}\n\nFor more information, try '--help'.\n"),
            )
            .with_cmd(cmd)
        };
        let text = value.to_string_lossy();
        let items: Vec<&str> = text.split(',').collect();
        let names = || {
            AlgoArg::value_variants()
                .iter()
                .filter_map(|v| v.to_possible_value().map(|p| p.get_name().to_string()))
                .collect::<Vec<_>>()
                .join(", ")
        };
        items
            .iter()
            .enumerate()
            .map(|(i, item)| {
                if item.is_empty() {
                    let which = match (i, items.len()) {
                        (_, 1) => "the algorithm name is empty".to_string(),
                        (0, _) => "the list's first item is empty".to_string(),
                        (i, n) if i + 1 == n => "the list's last item is empty".to_string(),
                        (i, _) => format!("item {} of the list is empty", i + 1),
                    };
                    return Err(invalid(format!("{which} (algorithms: {})", names())));
                }
                AlgoArg::from_str(item, true).map_err(|_| {
                    invalid(format!(
                        "'{item}' is no algorithm (algorithms: {})",
                        names()
                    ))
                })
            })
            .collect()
    }

    fn possible_values(
        &self,
    ) -> Option<Box<dyn Iterator<Item = clap::builder::PossibleValue> + '_>> {
        Some(Box::new(
            AlgoArg::value_variants()
                .iter()
                .filter_map(ValueEnum::to_possible_value),
        ))
    }
}

impl From<AlgoArg> for Algorithm {
    fn from(a: AlgoArg) -> Algorithm {
        match a {
            AlgoArg::Md5 => Algorithm::Md5,
            AlgoArg::Sha1 => Algorithm::Sha1,
            AlgoArg::Sha224 => Algorithm::Sha224,
            AlgoArg::Sha256 => Algorithm::Sha256,
            AlgoArg::Sha384 => Algorithm::Sha384,
            AlgoArg::Sha512 => Algorithm::Sha512,
            AlgoArg::Blake3 => Algorithm::Blake3,
        }
    }
}

/// `--mode`: how bytes travel from the file to the hash function.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ModeArg {
    /// A reader thread fills --readahead blocks from a bounded pool and hands them over a
    /// channel to the hasher(s), which hash them --chunk bytes per update: reading overlaps
    /// hashing, memory stays bounded. Regular files of 1 MiB or more are memory-mapped when
    /// the algorithm is BLAKE3 (hashed on up to -j threads) or when several algorithms hash
    /// them.
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

impl From<ModeArg> for Mode {
    fn from(m: ModeArg) -> Mode {
        match m {
            ModeArg::Threaded => Mode::Threaded,
            ModeArg::Sync => Mode::Sync,
            ModeArg::Bytewise => Mode::Bytewise,
            ModeArg::Mmap => Mode::Mmap,
        }
    }
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

/// The sections after the options, in order (the man page's order too).
pub const HELP_SECTIONS: [HelpSection; 7] = [
    HelpSection {
        title: "Reading modes",
        text: "--chunk is the size of each read call in sync mode and of each hash update in \
               threaded mode; --readahead is the size of each block the reader thread reads in \
               threaded mode. Bytewise ignores both; sync ignores --readahead; mmap ignores both \
               for the files it maps (regular files of 64 KiB or more) and reads the others as \
               sync does. In threaded mode the MD5 inputs packed in one block (small files) are \
               hashed side by side in SIMD lanes (FASTSUM_MD5_LANES), unless --chunk is below 4K: \
               then every input is hashed alone, --chunk bytes per update; a regular file of \
               1 MiB or more hashed with BLAKE3 alone or with several algorithms is mapped, \
               not read. SIZE is a number of \
               bytes from 1 to 1G with an optional suffix K, M or G (powers of 1024): 16, 4K, \
               64K, 1M.",
        verbatim: false,
    },
    HelpSection {
        title: "Check files",
        text: "\
-c reads lines in these forms, as GNU md5sum -c does:
  HEX  NAME            GNU, as fastsum writes it (text mode)
  HEX *NAME            GNU, binary mode (-b); the same bytes are hashed
  ALGO (NAME) = HEX    BSD tagged (--tag): the tag picks the algorithm
  ALGO(NAME)= HEX      OpenSSL's dgst output
  HEX NAME             BSD reversed (md5 -r): a single blank
  \\HEX  NAME           a leading backslash: NAME is escaped (\\\\, \\n, \\r)
Untagged lines use -a (or the name fastsum runs under). Empty lines and
lines starting with # are skipped; a line may end in CRLF.",
        verbatim: true,
    },
    HelpSection {
        title: "Several algorithms",
        text: "-a md5,sha256 (or -a md5 -a sha256) reads each input once and hashes it with \
               every algorithm, each on a thread of its own where -j allows. Each input gets one \
               BSD-tagged line per algorithm, in the order given (MD5 (f) = …, then SHA256 (f) \
               = …), inputs in argument order; -z as usual. Untagged output (-b, -t) would not \
               say which hex is which and is refused; a SHA256SUMS file is grep '^SHA256 ' of \
               the output, which sha256sum -c reads. An input that fails is reported once, with \
               no line for any algorithm. -c checks such a file line by line with each tag's \
               algorithm, reading a file once for consecutive lines that name it; with -a x,y \
               -c only the tags of x and y are accepted, and an untagged line uses the first of \
               them its hex length fits. An algorithm given twice is a usage error.",
        verbatim: false,
    },
    HelpSection {
        title: "Multi-call",
        text: "When run as md5sum, sha1sum, sha224sum, sha256sum, sha384sum, sha512sum or b3sum (a \
               symlink to fastsum), fastsum defaults to that algorithm and acts as that tool.",
        verbatim: false,
    },
    HelpSection {
        title: "Exit status",
        text: "0 if every file was hashed (or, with -c, read and matched); 1 if a file could not \
               be read, a checksum did not match or a write failed; 2 for a usage error (1 when \
               run as md5sum, sha1sum, … as GNU does). A closed standard output (fastsum * | \
               head -1) is not an error: hashing stops quietly, with status 1 if an error was \
               already reported and 0 if not; -c cut short this way dies of SIGPIPE, as GNU does, never \
               exits 0.",
        verbatim: false,
    },
    HelpSection {
        title: "Environment",
        text: "FASTSUM_MD5 picks the MD5 kernel: auto the fastest this CPU runs (also when \
               unset or empty), portable the plain Rust one, asm the x86-64 assembly one (x86-64 \
               builds only). FASTSUM_MD5_LANES picks the multi-lane path that hashes small MD5 \
               files side by side: auto (the widest this CPU runs), avx512 (32 lanes), avx512-16, \
               avx2 (16 lanes), avx2-8, scalar (the portable reference) or off. Any other value, \
               or a path this CPU cannot run, is a usage error when MD5 is the algorithm, and \
               ignored otherwise.",
        verbatim: false,
    },
    HelpSection {
        title: "Examples",
        text: "\
fastsum big.iso                    MD5 of a file, as md5sum prints it
fastsum -a sha256 *.tar.gz > SUMS  SHA-256 checksums into a file
fastsum -a sha256 -c SUMS          verify them
fastsum -a md5,sha256 *.iso >SUMS  MD5 and SHA-256, each file read once
cat big.iso | fastsum              hash standard input
find . -type f -print0 | xargs -0 fastsum -j4
fastsum -m sync --chunk 16 --stats big.iso
                                   16-byte reads, and what they cost",
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
///
/// fastsum prints one checksum line per FILE, byte for byte as GNU's md5sum and sha*sum (and
/// b3sum) print it, so those tools can check what fastsum writes and fastsum -c can check what
/// they write. MD5 is the default algorithm, -a picks another; run under one of those tools'
/// names (a symlink), fastsum is that tool (see Multi-call).
///
/// With -c, each FILE is a checksum file: every file it lists is hashed and reported OK or
/// FAILED (see Check files). With -r, directories are walked.
///
/// To be fast, a reader thread reads big blocks ahead while the hashing threads work, and -j
/// hashes several files at once, output staying in argument order. --mode picks another way of
/// reading and --stats shows what a run cost: the tool doubles as a test bench for I/O
/// strategies.
#[derive(Parser, Debug, Clone)]
#[command(
    name = "fastsum",
    version,
    about = "Print or check MD5, SHA-1, SHA-2 and BLAKE3 checksums, fast",
    after_help = after_help(false),
    after_long_help = after_help(true),
    max_term_width = 100
)]
pub(crate) struct Args {
    /// Files to hash (or, with -c, checksum files to read). With none, or `-`, read
    /// standard input.
    #[arg(value_name = "FILE")]
    pub(crate) files: Vec<OsString>,

    /// Hash algorithm, or several in one read: -a md5,sha256 or -a repeated (see Several
    /// algorithms).
    #[arg(short = 'a', long, value_name = "ALGO", value_parser = AlgoList,
          action = clap::ArgAction::Append)]
    pub(crate) algorithm: Vec<Vec<AlgoArg>>,

    /// Read in binary mode: mark names with `*` in the output.
    #[arg(short, long, overrides_with = "text")]
    pub(crate) binary: bool,

    /// Read in text mode (the default; the same bytes are hashed).
    #[arg(short, long, overrides_with = "binary")]
    pub text: bool,

    /// Read checksums from the FILEs and check them.
    #[arg(short, long)]
    pub(crate) check: bool,

    /// Create a BSD-style checksum line: `MD5 (name) = hex`.
    #[arg(long)]
    pub(crate) tag: bool,

    /// End each output line with NUL, not newline, and do not escape file names.
    #[arg(short, long)]
    pub(crate) zero: bool,

    /// How bytes reach the hash function.
    #[arg(short, long, value_enum, default_value_t = ModeArg::Threaded, value_name = "MODE")]
    pub(crate) mode: ModeArg,

    /// Bytes per hash update (threaded) or per read call (sync).
    #[arg(long, value_name = "SIZE", allow_hyphen_values = true, default_value_t = DEFAULT_CHUNK)]
    pub(crate) chunk: Size,

    /// Bytes per block read by the reader thread (threaded mode).
    #[arg(long, value_name = "SIZE", allow_hyphen_values = true,
          default_value_t = DEFAULT_READAHEAD)]
    pub(crate) readahead: Size,

    /// Number of --readahead blocks in the reader's pool (threaded mode): what may be in
    /// flight between reader and hashers. N is 1 to 1024, and --pool × --readahead at most 4G.
    #[arg(long, value_name = "N", value_parser = parse_count, allow_hyphen_values = true,
          default_value_t = DEFAULT_POOL)]
    pub(crate) pool: usize,

    /// Hash up to N files at once; N is 1 to 1024 [default: the number of cores]. Output
    /// stays in argument order.
    #[arg(short, long, value_name = "N", value_parser = parse_count, allow_hyphen_values = true)]
    pub(crate) jobs: Option<usize>,

    /// Hash the files under directories given on the command line: entries sorted by name
    /// (as bytes) within each directory, which is not `find | sort`'s order; symbolic links
    /// met in the walk are not followed.
    #[arg(short, long)]
    pub(crate) recursive: bool,

    /// Show progress on stderr even for short runs (only when stderr is a terminal).
    #[arg(long, overrides_with = "no_progress")]
    pub(crate) progress: bool,

    /// Never show progress.
    #[arg(long, overrides_with = "progress")]
    pub(crate) no_progress: bool,

    /// After the run, print bytes, time, throughput, read calls and pipeline waits on stderr.
    #[arg(long)]
    pub(crate) stats: bool,

    /// With -c: do not print OK for each verified file.
    #[arg(long, overrides_with_all = ["status", "warn"])]
    pub(crate) quiet: bool,

    /// With -c: print nothing; the exit status tells.
    #[arg(long, overrides_with_all = ["quiet", "warn"])]
    pub(crate) status: bool,

    /// With -c: warn about improperly formatted checksum lines.
    #[arg(short, long, overrides_with_all = ["quiet", "status"])]
    pub(crate) warn: bool,

    /// With -c: exit non-zero for improperly formatted checksum lines.
    #[arg(long)]
    pub(crate) strict: bool,

    /// With -c: do not fail or report status for missing files.
    #[arg(long)]
    pub(crate) ignore_missing: bool,

    /// b3sum's own options (under the b3sum name only): set by the
    /// front end, not clap, so they stay out of fastsum's help,
    /// completions and man page.
    #[arg(skip)]
    pub(crate) b3sum: b3sum::B3Options,
}

/// `-j` and `--pool`: a whole number from 1 to [`MAX_COUNT`].
fn parse_count(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(n) if (1..=MAX_COUNT).contains(&n) => Ok(n),
        _ => Err(format!("it must be a whole number from 1 to {MAX_COUNT}")),
    }
}

/// The clap command, for the man page and completions.
pub fn command() -> clap::Command {
    Args::command()
}

/// The algorithm of the tool a name is installed as: the tool's own name,
/// or with a `g` prefix (Homebrew's `gsha256sum`), a `.exe` suffix, a
/// version suffix (`sha256sum-9.1`); on file systems that ignore case, in
/// any case. `None` for any other name (which then runs as fastsum).
fn tool_algorithm(base: &str) -> Option<Algorithm> {
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
    Algorithm::from_tool_name(name)
        .or_else(|| name.strip_prefix('g').and_then(Algorithm::from_tool_name))
}

/// Who we were invoked as: fastsum itself, or one of the tools it replaces.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Invocation {
    /// Prefix of every message: the basename of `argv[0]` (`fastsum`, `md5sum`, …).
    pub(crate) program: &'static str,
    /// The algorithm the name implies, for a multi-call name.
    pub(crate) default_algorithm: Option<Algorithm>,
}

impl Invocation {
    /// Work out the invocation from `argv[0]`.
    pub(crate) fn from_argv0(argv0: Option<&OsString>) -> Invocation {
        let base = argv0
            .and_then(|a| std::path::Path::new(a).file_name())
            .map(|b| b.to_string_lossy().into_owned())
            .unwrap_or_default();
        let default_algorithm = tool_algorithm(&base);
        let program = match default_algorithm {
            // the name as invoked prefixes messages, as GNU's `gsha256sum:`
            // (leaked once: one short string for the life of the process)
            Some(a) if base != a.tool_name() => &*Box::leak(base.into_boxed_str()),
            Some(a) => a.tool_name(),
            None => "fastsum",
        };
        Invocation {
            program,
            default_algorithm,
        }
    }

    /// Run as one of GNU's tools: then usage errors exit 1, as GNU does.
    pub(crate) fn is_gnu_tool(&self) -> bool {
        matches!(self.default_algorithm, Some(a) if a != Algorithm::Blake3)
    }

    /// The exit status of a usage error under this name.
    pub(crate) fn usage_exit_code(&self) -> u8 {
        if self.is_gnu_tool() { 1 } else { 2 }
    }
}

/// Parse `argv` (`argv[0]` included) as GNU getopt would for md5sum …
/// sha512sum and fastsum, as b3sum's clap for b3sum (front.rs): the program
/// name messages use, and the resolved run or why there is none.
pub(crate) fn parse(argv: Vec<OsString>) -> (&'static str, Result<Config, Stop>) {
    let inv = Invocation::from_argv0(argv.first());
    let program = inv.program;
    let config = front::parse(&inv, argv).and_then(|args| {
        if let Some((msg, code)) = args.b3sum.refusal(&args) {
            return Err(Stop::Usage(msg.into_bytes(), code));
        }
        resolve(args, &inv).map_err(|msg| {
            let text = format!("{program}: {msg}\nTry '{program} --help' for more information.\n");
            Stop::Usage(text.into_bytes(), inv.usage_exit_code())
        })
    });
    (program, config)
}

/// Resolve `args`; `Err` holds GNU's message for a rejected combination.
fn resolve(args: Args, inv: &Invocation) -> Result<Config, String> {
    // in GNU's order: --tag with text mode first, then the check-mode ones
    if args.tag && args.text {
        return Err("--tag does not support --text mode".into());
    }
    let command = if args.check {
        if args.zero {
            return Err("the --zero option is not supported when verifying checksums".into());
        }
        if args.tag {
            return Err("the --tag option is meaningless when verifying checksums".into());
        }
        if args.binary || args.text {
            return Err(
                "the --binary and --text options are meaningless when verifying checksums".into(),
            );
        }
        let verbosity = if args.status {
            Verbosity::Status
        } else if args.quiet {
            Verbosity::Quiet
        } else if args.warn {
            Verbosity::Warn
        } else {
            Verbosity::Normal
        };
        Command::Check(CheckOptions {
            verbosity,
            strict: args.strict,
            ignore_missing: args.ignore_missing,
            algorithm_chosen: !args.algorithm.is_empty() || inv.default_algorithm.is_some(),
            dialect: if inv.default_algorithm == Some(Algorithm::Blake3) {
                Dialect::B3sum
            } else {
                Dialect::Gnu
            },
        })
    } else {
        let only_check = [
            (args.ignore_missing, "--ignore-missing"),
            (args.status, "--status"),
            (args.warn, "--warn"),
            (args.quiet, "--quiet"),
            (args.strict, "--strict"),
        ];
        if let Some((_, flag)) = only_check.iter().find(|(set, _)| *set) {
            return Err(format!(
                "the {flag} option is meaningful only when verifying checksums"
            ));
        }
        Command::Hash(HashOptions {
            format: if args.tag || args.algorithm.iter().flatten().count() > 1 {
                LineFormat::Tagged
            } else {
                LineFormat::Gnu {
                    binary: args.binary,
                }
            },
            terminator: if args.zero {
                Terminator::Nul
            } else if inv.default_algorithm == Some(Algorithm::Blake3) {
                Terminator::LossyNewline
            } else {
                Terminator::Newline
            },
            recursive: args.recursive,
            xof: args.b3sum.output(),
        })
    };
    if args.pool.saturating_mul(args.readahead.get()) > MAX_IN_FLIGHT {
        return Err(
            "--pool × --readahead must be at most 4G: that much memory is held in blocks".into(),
        );
    }
    let progress = if args.no_progress {
        Progress::Never
    } else if args.progress {
        Progress::Always
    } else {
        Progress::Auto
    };
    let mut files = args.files;
    if files.is_empty() {
        files.push(OsString::from("-"));
    }
    let algorithms =
        match Algorithms::new(args.algorithm.iter().flatten().map(|&a| Algorithm::from(a))) {
            Ok(set) => set,
            Err(Some(twice)) => {
                return Err(format!(
                    "the algorithm '{}' is given twice in -a",
                    twice.name()
                ));
            }
            Err(None) => Algorithms::one(inv.default_algorithm.unwrap_or(Algorithm::Md5)),
        };
    // Several algorithms print tagged lines: GNU's untagged layout would not
    // say which hex is which.
    if algorithms.len() > 1 && !args.check && !args.tag && (args.binary || args.text) {
        return Err(
            "several algorithms print BSD-tagged lines: --binary and --text apply to untagged \
             output (use one -a per run)"
                .into(),
        );
    }
    // A FASTSUM_MD5 that names no kernel is a usage error when MD5 runs.
    if algorithms.contains(Algorithm::Md5) {
        crate::md5::Kernel::check_env()?;
        crate::md5::lanes::Path::check_env()?;
    }
    Ok(Config {
        command,
        algorithms,
        plan: Plan {
            // b3sum's --no-mmap: "also disables multithreading" there, so
            // its reads are sync mode's (--chunk per call, one thread)
            mode: if args.b3sum.no_mmap {
                Mode::Sync
            } else {
                args.mode.into()
            },
            chunk: args.chunk,
            readahead: args.readahead,
            pool: args.pool,
            // b3sum's --num-threads stands for -j (0: the default)
            jobs: args
                .jobs
                .or(args.b3sum.num_threads.filter(|&n| n > 0))
                .map_or_else(default_jobs, |n| n.min(MAX_COUNT)),
        },
        progress,
        stats: args.stats,
        files,
    })
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
        front::parse(&inv, list.iter().map(OsString::from).collect())
    }

    fn config(argv: &[&str]) -> Result<Config, String> {
        parse(argv.iter().map(OsString::from).collect())
            .1
            .map_err(|stop| stop.text())
    }

    #[test]
    fn sizes_parse_and_bad_ones_fail() {
        let a = args(&["fastsum", "--chunk", "16", "--readahead", "1M", "f"]).unwrap();
        assert_eq!((a.chunk.get(), a.readahead.get()), (16, 1 << 20));
        for bad in ["0", "abc", "-5", "2G"] {
            let e = args(&["fastsum", "--chunk", bad]).unwrap_err();
            assert_eq!(e.code(), 2, "{bad}");
            assert!(e.text().contains("invalid size"), "{}", e.text());
        }
        assert!(args(&["fastsum", "-j", "0"]).is_err());
        assert_eq!(
            args(&["fastsum", "-j", "1024", "--pool", "1024"])
                .unwrap()
                .pool,
            1024
        );
        for flag in ["-j", "--pool"] {
            for bad in ["0", "1025", "100000", "-1", "x"] {
                let e = args(&["fastsum", flag, bad]).unwrap_err();
                assert_eq!(e.code(), 2, "{flag} {bad}");
                assert!(
                    e.text()
                        .contains("it must be a whole number from 1 to 1024"),
                    "{}",
                    e.text()
                );
            }
        }
    }

    /// `-a` takes the names `Algorithm::name` gives (tests and messages use them).
    #[test]
    fn algorithm_names_are_the_cli_names() {
        for arg in AlgoArg::value_variants() {
            let name = arg.to_possible_value().unwrap().get_name().to_string();
            assert_eq!(Algorithm::from(*arg).name(), name);
        }
        assert_eq!(AlgoArg::value_variants().len(), Algorithm::ALL.len());
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
        // the names tools are installed under; the prefix is the name invoked
        for (name, algo) in [
            ("gsha256sum", Some(Algorithm::Sha256)),
            ("sha256sum.exe", Some(Algorithm::Sha256)),
            ("gmd5sum.EXE", Some(Algorithm::Md5)),
            ("sha256sum-9.1", Some(Algorithm::Sha256)),
            ("gb3sum", Some(Algorithm::Blake3)),
            ("sha256sum-x", None),
            ("gsha256", None),
            ("xsha256sum", None),
            ("sha256sum-", None),
        ] {
            let inv = Invocation::from_argv0(Some(&OsString::from(name)));
            assert_eq!(inv.default_algorithm, algo, "{name}");
            let want = if algo.is_some() { name } else { "fastsum" };
            assert_eq!(inv.program, want, "{name}");
        }
        let upper = Invocation::from_argv0(Some(&OsString::from("SHA256SUM")));
        let folds = cfg!(any(target_os = "macos", windows));
        assert_eq!(upper.default_algorithm.is_some(), folds);
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

    /// The defaults --help shows are the ones in force.
    #[test]
    fn help_shows_the_defaults() {
        let help = command().render_long_help().to_string();
        for shown in ["[default: 64K]", "[default: 4M]", "[default: 4]"] {
            assert!(help.contains(shown), "{shown} in {help}");
        }
    }

    /// The limits quoted in --help (and so the man page) are the ones in force.
    #[test]
    fn help_quotes_the_limits() {
        let help = command()
            .term_width(0)
            .max_term_width(0)
            .render_long_help()
            .to_string();
        let count = format!("N is 1 to {MAX_COUNT}");
        assert_eq!(help.matches(&count).count(), 2, "-j and --pool: {help}");
        let in_flight = format!("--pool × --readahead at most {}G", MAX_IN_FLIGHT >> 30);
        assert!(help.contains(&in_flight), "{help}");
        let size = format!("from 1 to {}G", crate::size::MAX_SIZE >> 30);
        assert!(help.contains(&size), "{help}");
    }

    #[test]
    fn last_of_quiet_status_warn_wins() {
        let a = args(&["fastsum", "-c", "--status", "--warn"]).unwrap();
        assert!(a.warn && !a.status);
        let a = args(&["fastsum", "-c", "--warn", "--quiet"]).unwrap();
        assert!(a.quiet && !a.warn);
    }

    #[test]
    fn gnu_rejections() {
        assert!(config(&["fastsum", "-c", "--tag"]).is_err());
        assert!(config(&["fastsum", "-c", "-z"]).is_err());
        assert!(config(&["fastsum", "-c", "-b"]).is_err());
        assert!(config(&["fastsum", "--tag", "-t"]).is_err());
        assert!(config(&["fastsum", "-t", "--tag"]).is_ok());
        // GNU's order: --tag with --text before -c's rejections
        let e = config(&["md5sum", "-c", "-z", "--tag", "-t"]).unwrap_err();
        assert!(e.contains("--tag does not support --text mode"), "{e}");
        let e = config(&["md5sum", "-c", "--tag", "-z"]).unwrap_err();
        assert!(
            e.contains("the --zero option is not supported when verifying checksums"),
            "{e}"
        );
        let e = config(&["fastsum", "--strict"]).unwrap_err();
        assert_eq!(
            e,
            "fastsum: the --strict option is meaningful only when verifying checksums\n\
             Try 'fastsum --help' for more information.\n"
        );
        assert!(config(&["fastsum", "--tag", "-b"]).is_ok());
        assert!(config(&["fastsum", "--pool", "4", "--readahead", "1G"]).is_ok());
        assert!(config(&["fastsum", "--pool", "5", "--readahead", "1G"]).is_err());
        assert!(config(&["fastsum", "--pool", "1024", "--readahead", "4M"]).is_ok());
    }

    #[test]
    fn defaults() {
        let c = config(&["fastsum"]).unwrap();
        assert_eq!(c.algorithms.first(), Algorithm::Md5);
        assert_eq!(c.files, vec![OsString::from("-")]);
        assert_eq!(c.plan.mode, Mode::Threaded);
        assert!(c.plan.jobs >= 1);
        let c = config(&["/bin/sha512sum", "-c", "--status", "x"]).unwrap();
        assert_eq!(c.algorithms.first(), Algorithm::Sha512);
        let Command::Check(opts) = c.command else {
            panic!("-c is check mode")
        };
        assert_eq!(opts.verbosity, Verbosity::Status);
        let c = config(&["fastsum", "-a", "BLAKE3"]).unwrap();
        assert_eq!(c.algorithms.first(), Algorithm::Blake3);
        let c = config(&["b3sum", "--num-threads", "3"]).unwrap();
        assert_eq!((c.algorithms.first(), c.plan.jobs), (Algorithm::Blake3, 3));
        let Command::Hash(opts) = c.command else {
            panic!("b3sum hashes")
        };
        assert_eq!(opts.terminator, Terminator::LossyNewline);
    }
}
