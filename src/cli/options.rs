//! The option table: every option of every name (fastsum, md5sum …
//! sha512sum, b2sum, cksum, sum, b3sum, xxhsum), declared once, with its
//! letter, its value, its help text, the names that have it and what it
//! sets in [`Args`]. Everything
//! else is derived from it: the getopt model's table for each name
//! ([`table`]), the clap `Command` that `--help`, the man page and the
//! completions render (in the help module), and the parse itself
//! (`parse_args` in `cli/argv.rs` calls each option's [`Action`]).
//!
//! Adding an option: one [`Spec`] in [`OPTIONS`] (and a field of [`Args`]
//! for what it sets), then its use in `super::resolve`.

use std::ffi::{OsStr, OsString};
use std::fmt;

use clap::ValueEnum;
use clap::builder::PossibleValue;

use super::Flavour;
use crate::algo::{Algorithm, Composed, PartSize, Parts};
use crate::config::{Progress, Verbosity};
use crate::read::{DEFAULT_CHUNK, DEFAULT_POOL, DEFAULT_READAHEAD, MAX_COUNT, Mode};
use crate::size::{Size, SizeError};

/// `-a`'s values, for help and completions.
fn algorithm_values() -> Vec<PossibleValue> {
    Algorithm::ALL
        .into_iter()
        .map(|a| PossibleValue::new(a.name()).help(a.help()))
        .collect()
}

/// The names `-a` takes.
fn algorithm_names() -> Vec<String> {
    Algorithm::ALL
        .iter()
        .map(|a| a.name().to_string())
        .collect()
}

/// `--mode`: how bytes travel from the file to the hash function.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ModeArg {
    /// A reader thread fills --readahead blocks from a bounded pool and hands them over a
    /// channel to the hasher(s), which hash them --chunk bytes per update: reading overlaps
    /// hashing, memory stays bounded. Regular files of 1 MiB or more are memory-mapped when
    /// the algorithm is BLAKE3 (hashed on up to -j threads) or when several algorithms hash
    /// them, and a file of 16 MiB or more followed by another such file when it is all in the
    /// page cache: several big files then hash at once. Where reads wait on the storage (a
    /// network or FUSE file system, a cold disk), small files are read by many threads at
    /// once.
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

/// The command-line names of an enum's values (`md5`, `sync`, …).
fn value_names<E: ValueEnum>() -> Vec<String> {
    E::value_variants()
        .iter()
        .filter_map(|v| v.to_possible_value())
        .map(|p| p.get_name().to_string())
        .collect()
}

/// What the command line set, as given: [`super::resolve`] turns it into a
/// `Config` (defaults, GNU's rules).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Args {
    /// The FILE operands, in order.
    pub(crate) files: Vec<OsString>,
    /// `-a`, every list item in order (repeated `-a` add up).
    pub(crate) algorithms: Vec<Algorithm>,
    /// `-c`.
    pub(crate) check: bool,
    /// `--tag`.
    pub(crate) tag: bool,
    /// `-b` (`Some(true)`), `-t` (`Some(false)`): the last of `-b`, `-t`
    /// and `--tag` (which sets binary, as in GNU) wins.
    pub(crate) binary: Option<bool>,
    /// `-z`.
    pub(crate) zero: bool,
    /// The last of `--quiet`, `--status`, `-w`.
    pub(crate) verbosity: Option<Verbosity>,
    /// `--strict`.
    pub(crate) strict: bool,
    /// `--ignore-missing`.
    pub(crate) ignore_missing: bool,
    /// `-r`.
    pub(crate) recursive: bool,
    /// `--exclude` and the lines of `--exclude-from` files, in order.
    pub(crate) exclude: Vec<String>,
    /// `--max-depth`.
    pub(crate) max_depth: Option<usize>,
    /// `--one-file-system`.
    pub(crate) one_file_system: bool,
    /// `--update`: the manifest.
    pub(crate) update: Option<OsString>,
    /// `--prune`.
    pub(crate) prune: bool,
    /// `--meta`.
    pub(crate) meta: bool,
    /// `--tree-digest`.
    pub(crate) tree_digest: bool,
    /// `--audit`: the directories, in order.
    pub(crate) audit: Vec<OsString>,
    /// `--files0-from` (`Some((LIST, true))`) or `--files-from` (`false`):
    /// the last given.
    pub(crate) files_from: Option<(OsString, bool)>,
    /// `--list-sizes`.
    pub(crate) list_sizes: bool,
    /// `--shard K/N`.
    pub(crate) shard: Option<(u32, u32)>,
    /// `--merge`.
    pub(crate) merge: bool,
    /// `--output FILE`.
    pub(crate) output: Option<OsString>,
    /// `--verify-with`: the signer's public key.
    pub(crate) verify_with: Option<OsString>,
    /// `--signature`: the check file's signature, named.
    pub(crate) signature: Option<OsString>,
    /// `--json`.
    pub(crate) json: bool,
    /// cksum's `--untagged` (the last of it and `--tag` wins).
    pub(crate) untagged: bool,
    /// cksum's `--debug`.
    pub(crate) debug: bool,
    /// `--base64`.
    pub(crate) base64: bool,
    /// `--part-size`: the part sizes of S3's multipart digests, in order.
    pub(crate) part_sizes: Vec<PartSize>,
    /// cksum's `--raw` (b3sum's is `raw`).
    pub(crate) raw_digest: bool,
    /// cksum's `-a sha2`: SHA-2 of `-l`'s length.
    pub(crate) sha2: bool,
    /// xxhsum's `--little-endian`.
    pub(crate) little_endian: bool,
    /// xxhsum's `-q`, `--quiet` (no OK lines, no closing blank-out).
    pub(crate) xxh_quiet: bool,
    /// xxhsum's `-w`, `--warn` (it may go with `-q`).
    pub(crate) xxh_warn: bool,
    /// xxhsum: a lone `-` among the options (standard input is named, so
    /// it is read even from a terminal).
    pub(crate) stdin_named: bool,
    /// `-j`.
    pub(crate) jobs: Option<usize>,
    /// `-m`.
    pub(crate) mode: ModeArg,
    /// `--chunk`.
    pub(crate) chunk: Size,
    /// `--readahead`.
    pub(crate) readahead: Size,
    /// `--pool`.
    pub(crate) pool: usize,
    /// The last of `--progress` and `--no-progress`.
    pub(crate) progress: Option<Progress>,
    /// `--stats`.
    pub(crate) stats: bool,
    /// b3sum's `-l/--length`: output bytes per input.
    pub(crate) length: Option<u64>,
    /// `-l/--length` of fastsum and b2sum: BITS as given (checked against
    /// the algorithms once they are known).
    pub(crate) bits: Option<String>,
    /// b3sum's `--no-names`.
    pub(crate) no_names: bool,
    /// b3sum's `--raw`.
    pub(crate) raw: bool,
    /// b3sum's `--no-mmap`: no mapping and one thread per file: sync mode.
    pub(crate) no_mmap: bool,
    /// b3sum's `--num-threads`: `-j` when `-j` is not given (0: the default).
    pub(crate) num_threads: Option<usize>,
    /// Under b3sum, its own options in the order given, as its clap names
    /// them (`--length <LEN>`): clap's refusals quote them in that order.
    pub(crate) b3sum_used: Vec<&'static str>,
}

impl Default for Args {
    fn default() -> Args {
        Args {
            files: Vec::new(),
            algorithms: Vec::new(),
            check: false,
            tag: false,
            binary: None,
            zero: false,
            verbosity: None,
            strict: false,
            ignore_missing: false,
            recursive: false,
            exclude: Vec::new(),
            max_depth: None,
            one_file_system: false,
            update: None,
            prune: false,
            meta: false,
            tree_digest: false,
            audit: Vec::new(),
            files_from: None,
            list_sizes: false,
            shard: None,
            merge: false,
            output: None,
            verify_with: None,
            signature: None,
            json: false,
            untagged: false,
            debug: false,
            base64: false,
            part_sizes: Vec::new(),
            raw_digest: false,
            sha2: false,
            little_endian: false,
            xxh_quiet: false,
            xxh_warn: false,
            stdin_named: false,
            jobs: None,
            mode: ModeArg::Threaded,
            chunk: DEFAULT_CHUNK,
            readahead: DEFAULT_READAHEAD,
            pool: DEFAULT_POOL,
            progress: None,
            stats: false,
            length: None,
            bits: None,
            no_names: false,
            raw: false,
            no_mmap: false,
            num_threads: None,
            b3sum_used: Vec::new(),
        }
    }
}

/// Why an option's value was refused (the option and the value are named
/// by the usage error that carries this).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum ValueError {
    /// A SIZE that is not one.
    Size(SizeError),
    /// `-j`, `--pool`: not a whole number from 1 to [`MAX_COUNT`].
    Count,
    /// `--mode`: no such mode.
    Mode(String),
    /// `-a`: an empty item of the list, the item number (from 1) and the
    /// number of items.
    EmptyAlgorithm(usize, usize),
    /// `-a`: no such algorithm.
    Algorithm(String),
    /// `--part-size`, `-a NAME@SIZE`: no part size (the value given).
    PartSize(String),
    /// `-a NAME@SIZE`: an algorithm S3 does not compose over parts.
    NotComposed(Algorithm),
    /// cksum's `-a`: not one of its names (exactly; one only).
    CksumAlgorithm(String),
    /// b3sum's numbers: not a whole number (Rust's reason, as b3sum's clap
    /// gives it).
    Number(std::num::ParseIntError),
    /// `--exclude`: no valid pattern (the glob's own reason).
    Pattern(String),
    /// `--exclude-from`: the file cannot be read.
    PatternFile(std::io::ErrorKind, String),
    /// `--shard`: not `K/N` with K from 0 to N-1 (the value given).
    Shard(String),
    /// xxhsum's `-H#`: a number past 32 bits.
    XxhTooLarge,
    /// xxhsum's `-H#`: no xxHash algorithm's number.
    XxhAlgorithm(u32),
}

impl ValueError {
    /// What the value was taken for, and the names it may be: for a
    /// "did you mean" under fastsum's own name.
    pub(crate) fn choices(&self) -> Option<(&str, Vec<String>)> {
        match self {
            ValueError::Mode(given) => Some((given, value_names::<ModeArg>())),
            ValueError::Algorithm(given) => Some((given, algorithm_names())),
            _ => None,
        }
    }
}

impl fmt::Display for ValueError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ValueError::Size(e) => write!(
                f,
                "{e} (a SIZE is 1 to {} bytes: 16, 4K or 4KiB for 4096, 4KB for 4000, 1M, 1MB, 1G)",
                Size::MAX
            ),
            ValueError::Count => write!(f, "it must be a whole number from 1 to {MAX_COUNT}"),
            ValueError::Mode(given) => write!(
                f,
                "'{given}' is no mode (modes: {})",
                value_names::<ModeArg>().join(", ")
            ),
            ValueError::EmptyAlgorithm(item, items) => {
                let which = match (*item, *items) {
                    (_, 1) => "the algorithm name is empty".to_string(),
                    (1, _) => "the list's first item is empty".to_string(),
                    (i, n) if i == n => "the list's last item is empty".to_string(),
                    (i, _) => format!("item {i} of the list is empty"),
                };
                write!(f, "{which} (algorithms: {})", algorithm_names().join(", "))
            }
            ValueError::Algorithm(given) => write!(
                f,
                "'{given}' is no algorithm (algorithms: {})",
                algorithm_names().join(", ")
            ),
            ValueError::CksumAlgorithm(given) => write!(f, "'{given}' is no algorithm"),
            ValueError::PartSize(given) => write!(
                f,
                "'{given}' is no part size: a whole number of KiB below 32M, of MiB \
                 from 32M up to 32767M, below 32G (S3 takes parts of 5M to 5G)"
            ),
            ValueError::NotComposed(a) => write!(f, "{}", not_composed(*a)),
            ValueError::Number(e) => write!(f, "{e}"),
            ValueError::Pattern(why) => write!(f, "{why} (patterns are gitignore globs)"),
            ValueError::PatternFile(_, why) => write!(f, "{why}"),
            ValueError::Shard(given) => write!(
                f,
                "'{given}' is no shard: K/N, N from 1 to {SHARDS_MAX}, K from 0 to N-1 \
                 (counted from 0, as Slurm's array task IDs and Kubernetes' indexes)"
            ),
            ValueError::XxhTooLarge => write!(f, "numeric value too large"),
            ValueError::XxhAlgorithm(n) => {
                write!(f, "'{n}' is no xxHash algorithm (0, 1, 2, 3, 32, 64, 128)")
            }
        }
    }
}

/// Sets an option's value in [`Args`].
pub(crate) type Setter = fn(&mut Args, &OsStr) -> Result<(), ValueError>;

/// What an option does when met.
#[derive(Clone, Copy)]
pub(crate) enum Action {
    /// A flag: sets something in [`Args`].
    Flag(fn(&mut Args)),
    /// An option with a value (always required): the value's name in
    /// help and messages, and what parses and stores it.
    Value(&'static str, Setter),
    /// Print help and stop (`-h` the short help, `--help` the long one).
    Help,
    /// Print the version and stop.
    Version,
}

/// Where an option is listed in `--help`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Section {
    /// What most runs need: first, in `-h` too.
    Common,
    /// Check mode's own options: in `-h` too.
    Checking,
    /// Signed check files (`--verify-with`): `--help` only.
    Signed,
    /// What `-r` walks: `--help` only.
    Walking,
    /// The digests object stores report: `--help` only.
    Stores,
    /// Lists of names in, shares of a run out, and their merge: `--help`
    /// only.
    Shards,
    /// How fastsum reads: `--help` only (`-h` points there).
    Tuning,
    /// `--help` and `--version`: last (GNU's usage_vs_getopt.sh reads the
    /// help up to the `--version` line).
    Information,
}

impl Section {
    /// The heading the options are listed under (`None`: "Options").
    pub(crate) fn heading(self) -> Option<&'static str> {
        match self {
            Section::Common => None,
            Section::Checking => Some("Checking (with -c)"),
            Section::Signed => Some("Signed check files (with -c)"),
            Section::Walking => Some("Trees (with -r)"),
            Section::Stores => Some("Object stores (S3, GCS)"),
            Section::Shards => Some("Lists, shards and merges (a run split over hosts)"),
            Section::Tuning => Some("Tuning (see Reading modes)"),
            Section::Information => Some("Information"),
        }
    }
}

/// Which names have an option: a set of [`Flavour`]s (fastsum's own, the
/// GNU tools' md5sum … sha512sum, b3sum's, b2sum's, cksum's, sum's).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Names(u8);

impl Names {
    const fn of(flavours: &[Flavour]) -> Names {
        let mut bits = 0;
        let mut i = 0;
        while i < flavours.len() {
            bits |= 1 << flavours[i] as u8;
            i += 1;
        }
        Names(bits)
    }
    /// Every name.
    const ALL: Names = Names(u8::MAX);
    /// Every name but sum's (whose only options are -r and -s).
    const NOT_SUM: Names = Names::of(&[
        Flavour::Fastsum,
        Flavour::Gnu,
        Flavour::B3sum,
        Flavour::B2sum,
        Flavour::Cksum,
    ]);
    /// fastsum and the GNU digest names (check mode's options, -z).
    const NOT_B3SUM: Names = Names::of(&[
        Flavour::Fastsum,
        Flavour::Gnu,
        Flavour::B2sum,
        Flavour::Cksum,
    ]);
    /// fastsum and md5sum … sha512sum, b2sum (-b, -t: not cksum's).
    const BINARY: Names = Names::of(&[Flavour::Fastsum, Flavour::Gnu, Flavour::B2sum]);
    /// fastsum's own name only.
    const FASTSUM: Names = Names::of(&[Flavour::Fastsum]);
    /// fastsum's own name, b2sum and cksum (`-l BITS`).
    const FASTSUM_B2SUM: Names = Names::of(&[Flavour::Fastsum, Flavour::B2sum, Flavour::Cksum]);
    /// The b3sum name only.
    const B3SUM: Names = Names::of(&[Flavour::B3sum]);
    /// The cksum name only.
    const CKSUM: Names = Names::of(&[Flavour::Cksum]);
    /// The sum name only.
    const SUM: Names = Names::of(&[Flavour::Sum]);
    /// The xxhsum names only.
    const XXHSUM: Names = Names::of(&[Flavour::Xxhsum]);
    /// Every name but xxhsum's (whose letters are xxhsum's own).
    const NOT_XXHSUM: Names = Names(Names::ALL.0 & !Names::XXHSUM.0);

    /// These names and `flavour`'s.
    const fn with(self, flavour: Flavour) -> Names {
        Names(self.0 | Names::of(&[flavour]).0)
    }

    /// Whether `flavour` has the option: its row says whose options it
    /// has (its own, or another flavour's).
    fn has(self, flavour: Flavour) -> bool {
        self.0 & (1 << flavour.row().options as u8) != 0
    }
}

/// One option, declared once.
pub(crate) struct Spec {
    /// The long name, without `--`.
    pub(crate) long: &'static str,
    /// The short letter. `-h` and `-V` exist under fastsum, b3sum and
    /// xxhsum only: GNU's tools have no short help and version.
    pub(crate) short: Option<u8>,
    /// The names that have the letter (with the option).
    short_names: Names,
    /// What it does.
    pub(crate) action: Action,
    /// The names that have it.
    pub(crate) names: Names,
    /// For md5sum's own options: the place in its `long_options` table,
    /// the order glibc names the candidates of an ambiguous abbreviation in
    /// (the others come after, in this table's order).
    pub(crate) gnu_rank: Option<u8>,
    /// Where `--help` lists it.
    pub(crate) section: Section,
    /// One line of help (`-h`, and `--help` when `more` is empty).
    pub(crate) help: &'static str,
    /// The rest of its help in `--help` and the man page.
    pub(crate) more: &'static str,
    /// The default shown in help, from the constant in force.
    pub(crate) default: Option<fn() -> String>,
    /// The values it takes, for help and completions.
    pub(crate) values: Option<fn() -> Vec<PossibleValue>>,
}

impl fmt::Debug for Spec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "--{}", self.long)
    }
}

/// Options are one per long name.
impl PartialEq for Spec {
    fn eq(&self, other: &Spec) -> bool {
        self.long == other.long
    }
}

impl Eq for Spec {}

impl Spec {
    const fn new(
        long: &'static str,
        short: Option<u8>,
        action: Action,
        help: &'static str,
    ) -> Spec {
        Spec {
            long,
            short,
            short_names: Names::ALL,
            action,
            names: Names::ALL,
            gnu_rank: None,
            section: Section::Common,
            help,
            more: "",
            default: None,
            values: None,
        }
    }

    /// A flag.
    const fn flag(
        long: &'static str,
        short: Option<u8>,
        set: fn(&mut Args),
        help: &'static str,
    ) -> Spec {
        Spec::new(long, short, Action::Flag(set), help)
    }

    /// An option with a value named `value`.
    const fn value(
        long: &'static str,
        short: Option<u8>,
        value: &'static str,
        set: Setter,
        help: &'static str,
    ) -> Spec {
        Spec::new(long, short, Action::Value(value, set), help)
    }

    const fn names(mut self, names: Names) -> Spec {
        self.names = names;
        self
    }

    /// One of GNU md5sum's own options, at `rank` in its table.
    const fn gnu(mut self, rank: u8) -> Spec {
        self.gnu_rank = Some(rank);
        self
    }

    /// The letter only under `names` (the long name under all that have
    /// the option).
    const fn letter_for(mut self, names: Names) -> Spec {
        self.short_names = names;
        self
    }

    const fn section(mut self, section: Section) -> Spec {
        self.section = section;
        self
    }

    const fn more(mut self, more: &'static str) -> Spec {
        self.more = more;
        self
    }

    const fn default(mut self, default: fn() -> String) -> Spec {
        self.default = Some(default);
        self
    }

    const fn values(mut self, values: fn() -> Vec<PossibleValue>) -> Spec {
        self.values = Some(values);
        self
    }

    /// The short letter under this name.
    pub(crate) fn short_for(&self, flavour: Flavour) -> Option<u8> {
        match self.action {
            Action::Help | Action::Version if flavour.is_gnu() => None,
            _ if !self.short_names.has(flavour) => None,
            _ => self.short,
        }
    }

    /// The value's name, if it takes one.
    pub(crate) fn value_name(&self) -> Option<&'static str> {
        match self.action {
            Action::Value(name, _) => Some(name),
            _ => None,
        }
    }
}

/// A value as text (values are names and numbers: lossy is fine).
fn text(v: &OsStr) -> String {
    v.to_string_lossy().into_owned()
}

fn size(v: &OsStr) -> Result<Size, ValueError> {
    text(v).parse().map_err(ValueError::Size)
}

/// `-j` and `--pool`: a whole number from 1 to [`MAX_COUNT`].
fn count(v: &OsStr) -> Result<usize, ValueError> {
    match text(v).parse::<usize>() {
        Ok(n) if (1..=MAX_COUNT).contains(&n) => Ok(n),
        _ => Err(ValueError::Count),
    }
}

/// b3sum's numbers, as its clap parses them.
fn number(v: &OsStr) -> Result<u64, ValueError> {
    text(v).parse().map_err(ValueError::Number)
}

/// The most shares `--shard` splits a run into.
pub(crate) const SHARDS_MAX: u32 = 65_536;

/// `--shard`'s value: `K/N`, K counted from 0.
fn shard(v: &OsStr) -> Result<(u32, u32), ValueError> {
    let given = text(v);
    let parsed = given
        .split_once('/')
        .and_then(|(k, n)| Some((k.parse::<u32>().ok()?, n.parse::<u32>().ok()?)))
        .filter(|&(k, n)| (1..=SHARDS_MAX).contains(&n) && k < n);
    parsed.ok_or(ValueError::Shard(given))
}

/// `--exclude`'s value: one gitignore-style pattern, checked now.
fn exclude(args: &mut Args, v: &OsStr) -> Result<(), ValueError> {
    let pattern = text(v);
    crate::walk::Exclude::new([pattern.as_str()]).map_err(|e| ValueError::Pattern(e.reason))?;
    args.exclude.push(pattern);
    Ok(())
}

/// `--exclude-from`'s value: a file of patterns, one a line (blank lines
/// and `#` comments skipped, as in .gitignore).
fn exclude_from(args: &mut Args, v: &OsStr) -> Result<(), ValueError> {
    let text = std::fs::read(crate::sys::file_path(v.as_ref()))
        .map_err(|e| ValueError::PatternFile(e.kind(), crate::report::error_text(&e)))?;
    for line in String::from_utf8_lossy(&text).lines() {
        let line = line.strip_suffix('\r').unwrap_or(line);
        exclude(args, OsStr::new(line))?;
    }
    Ok(())
}

/// `-a`'s value: one algorithm name or a comma-separated list, in any
/// case; a name may take a part size, `md5@8M` (S3's ETag over 8 MiB
/// parts, see [`composed`]).
fn algorithms(args: &mut Args, v: &OsStr) -> Result<(), ValueError> {
    let v = text(v);
    let items: Vec<&str> = v.split(',').collect();
    for (i, item) in items.iter().enumerate() {
        if item.is_empty() {
            return Err(ValueError::EmptyAlgorithm(i + 1, items.len()));
        }
        let (name, size) = match item.split_once('@') {
            Some((name, size)) => (name, Some(part_size(size)?)),
            None => (*item, None),
        };
        let algo = Algorithm::ALL
            .into_iter()
            .find(|a| a.name().eq_ignore_ascii_case(name))
            .ok_or_else(|| ValueError::Algorithm(name.to_string()))?;
        args.algorithms.push(match size {
            Some(size) => composed(algo, size)?,
            None => algo,
        });
    }
    Ok(())
}

/// `algo` over parts of `size`, as S3 composes it; refused, saying why, for
/// the algorithms it does not compose.
pub(crate) fn composed(algo: Algorithm, size: PartSize) -> Result<Algorithm, ValueError> {
    let of = Composed::of(algo).ok_or(ValueError::NotComposed(algo))?;
    Ok(Algorithm::Parts(Parts::new(of, size)))
}

/// Why S3 has no digest of `algo` over parts.
pub(crate) fn not_composed(algo: Algorithm) -> String {
    match algo {
        Algorithm::Crc64Nvme => "S3's CRC-64/NVME is always a full-object checksum: it does not \
                                 depend on the part size (name it without one: -a \
                                 md5@8M,crc64nvme)"
            .into(),
        a => format!(
            "S3 composes no {} over parts: only md5 (the ETag), sha1, sha256, crc32b and crc32c",
            a.name()
        ),
    }
}

/// One part size: a SIZE that is a whole number of KiB.
fn part_size(v: &str) -> Result<PartSize, ValueError> {
    crate::size::parse_bytes(v)
        .ok()
        .and_then(PartSize::new)
        .ok_or_else(|| ValueError::PartSize(v.to_string()))
}

/// `--part-size`'s value: one SIZE or a comma-separated list.
fn part_sizes(args: &mut Args, v: &OsStr) -> Result<(), ValueError> {
    for item in text(v).split(',') {
        let size = part_size(item)?;
        if !args.part_sizes.contains(&size) {
            args.part_sizes.push(size);
        }
    }
    Ok(())
}

/// xxhsum's `-H#`: the digits right after `-H` (none: 0), read as its
/// `XSUM_readU32FromChar` reads them (refused once past 32 bits): the
/// number or width in an xxHash row (0 or 32 XXH32, 1 or 64 XXH64, 2 or
/// 128 XXH128, 3 XXH3). An algorithm whose lines are always tagged (`-H3`)
/// also switches to tagged lines, and a later `-H` does not switch back
/// (`-H3 -H1`: `XXH64 (f) = …`), as in xxhsum.
fn xxh_algorithm(args: &mut Args, v: &OsStr) -> Result<(), ValueError> {
    let mut n: u32 = 0;
    for c in text(v).chars() {
        // (the scan gives digits only)
        let digit = c.to_digit(10).ok_or(ValueError::XxhAlgorithm(n))?;
        if n > u32::MAX / 10 - 1 {
            return Err(ValueError::XxhTooLarge);
        }
        n = n * 10 + digit;
    }
    let algo = Algorithm::from_xxhsum_number(n).ok_or(ValueError::XxhAlgorithm(n))?;
    args.algorithms = vec![algo];
    if algo.tagged_only() {
        args.tag = true;
    }
    Ok(())
}

/// b3sum 1.8's own options, as its clap names them in messages; it takes
/// each once (a second `--tag` is an error there). fastsum's reading
/// options are not among them.
pub(crate) const B3SUM_ONCE: [&str; 8] = [
    "--check",
    "--quiet",
    "--tag",
    "--length <LEN>",
    "--no-names",
    "--raw",
    "--num-threads <NUM>",
    "--no-mmap",
];

/// The options b3sum's `--check` conflicts with (those fastsum has).
pub(crate) const B3SUM_NOT_WITH_CHECK: [&str; 4] =
    ["--length <LEN>", "--no-names", "--raw", "--tag"];

/// cksum's `-a` values, for help and completions.
fn cksum_algorithm_values() -> Vec<PossibleValue> {
    Algorithm::CKSUM
        .into_iter()
        .map(|a| PossibleValue::new(a.name()).help(a.help()))
        .chain([PossibleValue::new("sha2").help("SHA-2, -l 224, 256, 384 or 512 (GNU cksum 9.8)")])
        .collect()
}

/// cksum's `-a`: one algorithm, named exactly (GNU's argmatch takes no
/// list and, here, no abbreviation); the last given wins.
fn cksum_algorithm(args: &mut Args, v: &OsStr) -> Result<(), ValueError> {
    let v = text(v);
    args.sha2 = v == "sha2";
    let algo = Algorithm::CKSUM
        .into_iter()
        .find(|a| a.name() == v)
        .or(args.sha2.then_some(Algorithm::Sha256))
        .ok_or(ValueError::CksumAlgorithm(v))?;
    args.algorithms = vec![algo];
    Ok(())
}

fn mode(args: &mut Args, v: &OsStr) -> Result<(), ValueError> {
    let v = text(v);
    args.mode = ModeArg::from_str(&v, false).map_err(|_| ValueError::Mode(v))?;
    Ok(())
}

fn possible<E: ValueEnum>() -> Vec<PossibleValue> {
    E::value_variants()
        .iter()
        .filter_map(ValueEnum::to_possible_value)
        .collect()
}

/// Every option, in the order `--help` lists them (within each section).
pub(crate) static OPTIONS: &[Spec] = &[
    // the common ones
    Spec::value(
        "algorithm",
        Some(b'a'),
        "ALGO",
        algorithms,
        "Algorithm, default md5; a list is read once: md5,sha1",
    )
    .names(Names::FASTSUM)
    .values(algorithm_values)
    .more(
        "-a repeated adds algorithms. With several, each input is read once and gets one \
         BSD-tagged line per algorithm (see Several algorithms). NAME@SIZE is S3's digest of \
         a multipart upload of SIZE parts (see --part-size): md5@8M,crc64nvme.",
    ),
    Spec::value(
        "part-size",
        None,
        "SIZE",
        part_sizes,
        "S3's ETag and composite checksums over SIZE parts",
    )
    .names(Names::FASTSUM)
    .section(Section::Stores)
    .more(
        "Each algorithm (default md5) is computed as S3 composes it over the parts of an \
         upload of SIZE parts, the last one shorter: md5 gives the ETag, hex of the MD5 of \
         the parts' MD5s, then -N (N parts); sha1, sha256, crc32b and crc32c give the \
         composite checksum, base64 of the hash of the parts' digests, then -N. A file of \
         one part or none gives the plain digest, as a single PUT. A list (8M,16M) or a \
         repeated option computes each size in the same read. SIZE is whole KiB below 32M, \
         whole MiB from 32M up to 32767M, below 32G (S3: 5M to 5G; AWS CLI's is 8M). The lines are tagged with the algorithm and \
         the part size (MD5@8M), which -c reads back.",
    ),
    Spec::value(
        "algorithm",
        Some(b'a'),
        "TYPE",
        cksum_algorithm,
        "Select the digest type to use (default crc)",
    )
    .gnu(13)
    .names(Names::CKSUM)
    .values(cksum_algorithm_values),
    // sum's own: -r has no long name in GNU's sum
    Spec::flag(
        "",
        Some(b'r'),
        |a| a.algorithms = vec![Algorithm::Bsd],
        "Use the BSD sum algorithm (the default), 1K blocks",
    )
    .names(Names::SUM),
    Spec::flag(
        "sysv",
        Some(b's'),
        |a| a.algorithms = vec![Algorithm::Sysv],
        "Use the System V sum algorithm, 512-byte blocks",
    )
    .gnu(0)
    .names(Names::SUM),
    Spec::flag(
        "check",
        Some(b'c'),
        |a| a.check = true,
        "Read checksums from the FILEs and check them",
    )
    .gnu(0)
    .names(Names::NOT_SUM.with(Flavour::Xxhsum)),
    Spec::flag(
        "recursive",
        Some(b'r'),
        |a| a.recursive = true,
        "Hash the files under directories given as FILEs",
    )
    .more(
        "Entries are sorted by name (as bytes) within each directory, which is not \
         find | sort's order; symbolic links met in the walk are not followed.",
    )
    .names(Names::NOT_SUM),
    Spec::value(
        "exclude",
        None,
        "PATTERN",
        exclude,
        "With -r, leave out what PATTERN matches (repeatable)",
    )
    .section(Section::Walking)
    .names(Names::FASTSUM)
    .more(
        "PATTERN is a gitignore glob matched against the path below the directory \
         operand: *.tmp anywhere, cache/ a directory, /build only at the top, \
         **/node_modules at any depth, !keep.tmp re-included. An excluded directory \
         is not entered.",
    ),
    Spec::value(
        "exclude-from",
        None,
        "FILE",
        exclude_from,
        "With -r, leave out what the patterns in FILE match, one a line",
    )
    .section(Section::Walking)
    .names(Names::FASTSUM),
    Spec::value(
        "max-depth",
        None,
        "N",
        |a, v| {
            a.max_depth = Some(usize::try_from(number(v)?).unwrap_or(usize::MAX));
            Ok(())
        },
        "With -r, go at most N directories below the operand (1: its own files)",
    )
    .section(Section::Walking)
    .names(Names::FASTSUM),
    Spec::flag(
        "one-file-system",
        None,
        |a| a.one_file_system = true,
        "With -r, do not enter directories on other file systems (as du -x)",
    )
    .section(Section::Walking)
    .names(Names::FASTSUM),
    Spec::flag(
        "tree-digest",
        None,
        |a| a.tree_digest = true,
        "With -r, print one digest per directory: of its whole manifest",
    )
    .names(Names::FASTSUM)
    .section(Section::Walking)
    .more(
        "The digest of the bytes 'cd DIR && fastsum -r -z --untagged .' prints (with the same -a and \
         walk options): each regular file as HEX, two spaces, ./PATH and a NUL, in the \
         walk's order. Links met in the walk, FIFOs, devices and empty directories count \
         for nothing. A file that cannot be read: an error, and no digest for its tree.",
    ),
    Spec::value(
        "update",
        None,
        "SUMS",
        |a, v| {
            a.update = Some(v.to_os_string());
            Ok(())
        },
        "Add to SUMS the lines of the FILEs it does not list yet",
    )
    .names(Names::FASTSUM)
    .section(Section::Walking)
    .more(
        "In SUMS's own algorithm and format (a missing SUMS is made; untagged lines \
         are read as -c reads them: 32 hex digits are MD5, 40 SHA-1, a length several \
         algorithms share needs -a or a name that says it, SHA256SUMS). Names compare as --audit \
         compares them (./d/a, d//a and /abs/d/a are d/a). Says on stderr what it did \
         ('SUMS: 3 added, 1 pruned, 120 kept'), unless --quiet or --status. SUMS is \
         replaced only once every new input is hashed and the new manifest is written \
         and synced: on any error it stays as it was. Comments, empty lines and CRLF line \
         ends are kept. A link is followed to its target (other hard links keep the old \
         manifest, as stderr says); \
         a SUMS that is no regular file is refused; updaters take turns on its lock \
         (flock); SUMS is never listed in itself.",
    ),
    Spec::flag(
        "prune",
        None,
        |a| a.prune = true,
        "With --update, also drop the lines of files under the FILEs that no longer exist",
    )
    .names(Names::FASTSUM)
    .section(Section::Walking),
    Spec::flag(
        "meta",
        None,
        |a| a.meta = true,
        "Record each file's size and mtime in a '#meta' line before its line",
    )
    .names(Names::FASTSUM)
    .section(Section::Walking)
    .more(
        "A comment line, which GNU's -c skips even with --strict, tied to the line after \
         it: '#meta size=6 mtime=1700000000123456789ns'. With --update, a listed file whose \
         size and mtime are as recorded is kept without being read, one that changed is \
         hashed again and its line replaced ('SUMS: 2 added, 3 modified, 1 pruned, 120 \
         kept'); a manifest that has such lines keeps them without --meta.",
    ),
    Spec::value(
        "files0-from",
        None,
        "LIST",
        |a, v| {
            a.files_from = Some((v.to_os_string(), true));
            Ok(())
        },
        "Hash the files named in LIST, each name ended by a NUL (- : standard input)",
    )
    .names(Names::FASTSUM)
    .section(Section::Shards)
    .more(
        "As find -print0 writes them, as GNU du and wc take them: the names are hashed and \
         printed as given, in LIST's order, each walked with -r if a directory. LIST is read \
         as the run goes (memory stays small, whatever its length; --shard keeps each name \
         and its size). No FILE operand goes with it. An empty name is reported \
         (LIST:3: invalid zero-length file name) and the run goes on, to exit 1.",
    ),
    Spec::value(
        "files-from",
        None,
        "LIST",
        |a, v| {
            a.files_from = Some((v.to_os_string(), false));
            Ok(())
        },
        "Hash the files named in LIST, one a line (- : standard input)",
    )
    .names(Names::FASTSUM)
    .section(Section::Shards)
    .more(
        "As --files0-from, each name ended by a newline: its bytes as they are (no quoting, \
         no escapes; a carriage return is part of the name). A name that holds a newline \
         cannot be listed so: use --files0-from.",
    ),
    Spec::flag(
        "list-sizes",
        None,
        |a| a.list_sizes = true,
        "Each name of the list follows its size in bytes and a space",
    )
    .names(Names::FASTSUM)
    .section(Section::Shards)
    .more(
        "As find DIR -type f -printf '%s %p\\0' writes them (with --files0-from; '%s %p\\n' \
         with --files-from): one walk makes the list, and each --shard run over it takes \
         every size from it and looks at no file but its own share's, so N shards cost about \
         what one run does. The names are hashed as files, never walked (not with -r); a \
         record without a size is reported in its place.",
    ),
    Spec::value(
        "shard",
        None,
        "K/N",
        |a, v| {
            a.shard = Some(shard(v)?);
            Ok(())
        },
        "Hash only the K-th of N shares of the inputs (K from 0), balanced by bytes",
    )
    .names(Names::FASTSUM)
    .section(Section::Shards)
    .more(
        "Every input the run would hash (after the walk, or from the list; its size from a \
         stat, or from the list with --list-sizes) is put in one of N shares: the big ones \
         (over a tenth of a share's mean) first, the biggest first, each into the share with \
         the fewest bytes so far; the rest in the run's order, cut into N stretches that \
         fill the shares to one level. The same shares on every host and every rerun, none \
         above the mean by more than a tenth unless a file alone is bigger, a file never \
         split. Prints a '# fastsum shard K/N' line, then only the share's lines, in the \
         order one run prints them (check files skip '#' lines: a shard is a check file). \
         --merge makes the whole of the N parts. Slurm: --shard $SLURM_ARRAY_TASK_ID/N \
         (N written out: a rerun of one task counts 1 task); Kubernetes: \
         $JOB_COMPLETION_INDEX/N.",
    ),
    Spec::flag(
        "merge",
        None,
        |a| a.merge = true,
        "Write the one manifest a run makes of the --shard parts given as FILEs",
    )
    .names(Names::FASTSUM)
    .section(Section::Shards)
    .more(
        "Byte for byte what one run with the parts' options prints. Refused, and nothing \
         written, when the parts do not make a whole: a shard missing or given twice, \
         parts of different runs (N, options, inputs), an input in two parts, a part cut \
         short or with a failed input.",
    ),
    Spec::value(
        "output",
        None,
        "FILE",
        |a, v| {
            a.output = Some(v.to_os_string());
            Ok(())
        },
        "Write the lines to FILE, which appears only complete",
    )
    .names(Names::FASTSUM)
    .section(Section::Shards)
    .more(
        "Written beside FILE, synced and renamed over it once every input is hashed; if an \
         input fails, FILE is left as it was (a shard can be rerun, and merged again).",
    ),
    Spec::value(
        "jobs",
        Some(b'j'),
        "N",
        |a, v| {
            a.jobs = Some(count(v)?);
            Ok(())
        },
        "Hash up to N inputs at once [default: one per core]",
    )
    .letter_for(Names::NOT_XXHSUM)
    .more(
        "N is 1 to 1024. Output stays in argument order, whatever the order inputs \
         finish in. N is also the fan-out budget: one input hashed with several \
         algorithms, or a big BLAKE3 file, may spread over up to N threads, the \
         whole run lending at most N - 1 helper threads at a time.",
    ),
    Spec::flag(
        "tag",
        None,
        |a| {
            a.tag = true;
            a.untagged = false;
            a.binary = Some(true)
        },
        "Create a BSD-style checksum line: MD5 (name) = hex",
    )
    .gnu(6)
    .names(Names::NOT_SUM.with(Flavour::Xxhsum)),
    Spec::flag(
        "base64",
        None,
        |a| a.base64 = true,
        "Write digests in base64, not hex (as GNU cksum 9.8)",
    )
    .gnu(16)
    .names(Names::CKSUM),
    Spec::flag(
        "base64",
        None,
        |a| a.base64 = true,
        "Write digests in base64, as object stores show them",
    )
    .names(Names::FASTSUM)
    .section(Section::Stores)
    .more(
        "As S3's x-amz-checksum-* and GCS's crc32c and md5Hash show them: the base64 of the \
         digest's bytes, a CRC's big-endian. -c reads such lines. The digests over parts \
         (--part-size) are written as S3 shows them whatever it says: the ETag in hex, the \
         composite checksums in base64; cksum's and sum's checksums print their own line.",
    ),
    Spec::flag(
        "raw",
        None,
        |a| a.raw_digest = true,
        "Write the digest's bytes alone (one input; as GNU cksum 9.8)",
    )
    .gnu(17)
    .names(Names::CKSUM),
    Spec::flag(
        "untagged",
        None,
        |a| {
            a.untagged = true;
            a.tag = false;
            a.binary = None
        },
        "Create a reversed style checksum, without digest type",
    )
    .gnu(15)
    .names(Names::CKSUM),
    Spec::flag(
        "untagged",
        None,
        |a| {
            a.untagged = true;
            a.tag = false;
            a.binary = None
        },
        "Write untagged lines (HEX  NAME) for every algorithm",
    )
    .names(Names::FASTSUM)
    .more(
        "Lines of an algorithm whose untagged lines -c could not \
         tell from others' (every one but MD5 and SHA-1: SHA-256's 64 hex digits may be \
         BLAKE3's) are otherwise tagged (SHA256 (NAME) = HEX, as GNU cksum -a sha256 writes \
         them); -b and -t (GNU's untagged layouts) keep them untagged too. Untagged, such \
         lines need -a with -c and --update, or a check file's name that says it \
         (SHA256SUMS).",
    ),
    Spec::flag(
        "zero",
        Some(b'z'),
        |a| a.zero = true,
        "End lines with NUL, not newline; do not escape names",
    )
    .gnu(7)
    .names(Names::NOT_B3SUM),
    Spec::flag(
        "binary",
        Some(b'b'),
        |a| a.binary = Some(true),
        "Read in binary mode: mark names with * in the output",
    )
    .gnu(8)
    .names(Names::BINARY),
    Spec::flag(
        "text",
        Some(b't'),
        |a| a.binary = Some(false),
        "Read in text mode, the default (same bytes hashed)",
    )
    .gnu(9)
    .names(Names::BINARY),
    Spec::value(
        "length",
        Some(b'l'),
        "BITS",
        |a, v| {
            a.bits = Some(text(v));
            Ok(())
        },
        "Digest bits: blake2b 8-512 (0: 512), sha3 224-512",
    )
    .gnu(12)
    .names(Names::FASTSUM_B2SUM)
    .more(
        "SHA-3 takes 224, 256, 384 or 512, and -a sha3 needs -l (as GNU cksum). The \
         length is part of the algorithm: BLAKE2b-256 is not BLAKE2b-512 cut short. \
         With -c each tagged line's length stands (BLAKE2b-256 (f) = ...), and an \
         untagged BLAKE2b line's hex says its length.",
    ),
    // b3sum's own
    Spec::value(
        "length",
        Some(b'l'),
        "LEN",
        |a, v| {
            a.length = Some(number(v)?);
            Ok(())
        },
        "The number of output bytes, before hex encoding [default: 32]",
    )
    .names(Names::B3SUM),
    Spec::flag(
        "no-names",
        None,
        |a| a.no_names = true,
        "Omit file names in the output",
    )
    .names(Names::B3SUM),
    Spec::flag(
        "raw",
        None,
        |a| a.raw = true,
        "Write raw output bytes to stdout, not hex (one input only)",
    )
    .names(Names::B3SUM),
    Spec::value(
        "num-threads",
        None,
        "NUM",
        |a, v| {
            a.num_threads = Some(usize::try_from(number(v)?).unwrap_or(usize::MAX));
            Ok(())
        },
        "The most threads: -j when -j is not given (0: the number of cores)",
    )
    .names(Names::B3SUM),
    Spec::flag(
        "no-mmap",
        None,
        |a| a.no_mmap = true,
        "Read files instead of mapping them, each on one thread, as b3sum does",
    )
    .names(Names::B3SUM),
    // xxhsum's own (its help is its own: usage in help.rs)
    Spec::value(
        "",
        Some(b'H'),
        "#",
        xxh_algorithm,
        "Algorithm: 0, 1, 2, 3 or 32, 64, 128",
    )
    .names(Names::XXHSUM),
    Spec::flag(
        "little-endian",
        None,
        |a| a.little_endian = true,
        "Checksum values use little endian convention (default: big endian)",
    )
    .names(Names::XXHSUM),
    Spec::flag(
        "quiet",
        Some(b'q'),
        |a| a.xxh_quiet = true,
        "Don't print OK for each successfully verified file",
    )
    .section(Section::Checking)
    .names(Names::XXHSUM),
    Spec::flag(
        "warn",
        Some(b'w'),
        |a| a.xxh_warn = true,
        "Warn about improperly formatted checksum lines",
    )
    .section(Section::Checking)
    .names(Names::XXHSUM),
    // check mode's
    Spec::flag(
        "quiet",
        None,
        |a| a.verbosity = Some(Verbosity::Quiet),
        "Do not print OK for each verified file",
    )
    .gnu(2)
    .section(Section::Checking)
    .names(Names::NOT_SUM),
    Spec::flag(
        "status",
        None,
        |a| a.verbosity = Some(Verbosity::Status),
        "Print nothing; the exit status tells",
    )
    .gnu(3)
    .names(Names::NOT_B3SUM.with(Flavour::Xxhsum))
    .section(Section::Checking),
    Spec::flag(
        "warn",
        Some(b'w'),
        |a| a.verbosity = Some(Verbosity::Warn),
        "Warn about improperly formatted checksum lines",
    )
    .gnu(4)
    .names(Names::NOT_B3SUM)
    .section(Section::Checking),
    Spec::flag(
        "strict",
        None,
        |a| a.strict = true,
        "Exit non-zero for improperly formatted checksum lines",
    )
    .gnu(5)
    .names(Names::NOT_B3SUM.with(Flavour::Xxhsum))
    .section(Section::Checking),
    Spec::flag(
        "ignore-missing",
        None,
        |a| a.ignore_missing = true,
        "Do not fail or report status for missing files",
    )
    .gnu(1)
    .names(Names::NOT_B3SUM)
    .section(Section::Checking),
    Spec::value(
        "verify-with",
        None,
        "KEY",
        |a, v| {
            a.verify_with = Some(v.to_os_string());
            Ok(())
        },
        "With -c, verify each check file's signature with the public key KEY first",
    )
    .names(Names::FASTSUM)
    .section(Section::Signed)
    .more(
        "KEY is an OpenPGP key or keyring (armoured or binary, or GnuPG's pubring.kbx), \
         or a minisign or signify \
         public key: its kind is read from the file. The signature is found inside the \
         check file (OpenPGP clear-signed, signify's embedded form) or beside it \
         (FILE.asc, .sig, .gpg, .minisig, .sign), and verified over the bytes that are \
         then checked, read once; no listed file is opened unless it holds. Who signed is \
         said on stderr. OpenPGP signatures are verified by gpgv (GnuPG).",
    ),
    Spec::value(
        "signature",
        None,
        "FILE",
        |a, v| {
            a.signature = Some(v.to_os_string());
            Ok(())
        },
        "With --verify-with, the check file's detached signature is FILE",
    )
    .names(Names::FASTSUM)
    .section(Section::Signed),
    Spec::value(
        "audit",
        None,
        "DIR",
        |a, v| {
            a.audit.push(v.to_os_string());
            Ok(())
        },
        "With -c, also walk DIR: report files NEW, MISSING or MOVED",
    )
    .names(Names::FASTSUM)
    .section(Section::Walking)
    .more(
        "Each listed file is OK, FAILED or UNREADABLE as with -c, or MISSING; each \
         file under DIR (walked as -r walks it, --exclude, --max-depth and \
         --one-file-system too) that no line lists is NEW, or MOVED when its digest is \
         listed for a missing file. Listed names and walked paths are compared with \
         ./ and // removed. A summary goes to stderr; the exit status is 0 only when \
         every listed file is OK and nothing is new, missing or moved.",
    ),
    Spec::flag(
        "json",
        None,
        |a| a.json = true,
        "Print JSON Lines: one object per digest or check",
    )
    .names(Names::FASTSUM)
    .more(
        "Hashing: path, algorithm, digest (hex), size (bytes hashed). With -c and \
         --audit: path, status (OK, FAILED, UNREADABLE, MISSING, NEW, MOVED), \
         algorithm, and error or from where they apply. An input that fails: path and \
         error (the message still goes to stderr). A name that is not UTF-8 is written \
         lossily in path and exactly, as byte values, in path_bytes.",
    ),
    // how fastsum reads
    Spec::value(
        "mode",
        Some(b'm'),
        "MODE",
        mode,
        "How bytes reach the hash function",
    )
    .letter_for(Names::NOT_XXHSUM)
    .section(Section::Tuning)
    .default(|| {
        ModeArg::Threaded
            .to_possible_value()
            .map(|p| p.get_name().to_string())
            .unwrap_or_default()
    })
    .values(possible::<ModeArg>),
    Spec::value(
        "chunk",
        None,
        "SIZE",
        |a, v| {
            a.chunk = size(v)?;
            Ok(())
        },
        "Bytes per hash update (threaded) or per read call (sync)",
    )
    .section(Section::Tuning)
    .default(|| DEFAULT_CHUNK.to_string()),
    Spec::value(
        "readahead",
        None,
        "SIZE",
        |a, v| {
            a.readahead = size(v)?;
            Ok(())
        },
        "Bytes per block read by the reader thread (threaded mode)",
    )
    .section(Section::Tuning)
    .default(|| DEFAULT_READAHEAD.to_string()),
    Spec::value(
        "pool",
        None,
        "N",
        |a, v| {
            a.pool = count(v)?;
            Ok(())
        },
        "Number of --readahead blocks in the reader's pool (threaded mode)",
    )
    .section(Section::Tuning)
    .more(
        "What may be in flight between reader and hashers. N is 1 to 1024, and \
         --pool × --readahead at most 4G.",
    )
    .default(|| DEFAULT_POOL.to_string()),
    Spec::flag(
        "stats",
        None,
        |a| a.stats = true,
        "After the run, print bytes, time, throughput, read calls and waits on stderr",
    )
    .section(Section::Tuning),
    Spec::flag(
        "progress",
        None,
        |a| a.progress = Some(Progress::Always),
        "Show progress on stderr even for short runs (when stderr is a terminal)",
    )
    .section(Section::Tuning),
    Spec::flag(
        "no-progress",
        None,
        |a| a.progress = Some(Progress::Never),
        "Never show progress",
    )
    .section(Section::Tuning),
    Spec::flag(
        "debug",
        None,
        |a| a.debug = true,
        "Indicate which implementation is used",
    )
    .gnu(14)
    .names(Names::CKSUM),
    // last
    Spec::new(
        "help",
        Some(b'h'),
        Action::Help,
        "Print help (-h a summary, --help all of it)",
    )
    .gnu(10)
    .section(Section::Information),
    Spec::new("version", Some(b'V'), Action::Version, "Print version")
        .gnu(11)
        .section(Section::Information),
];

/// The options a name has, in the getopt model's order: md5sum's own
/// first, in md5sum's order, then the others in [`OPTIONS`]' order.
pub(crate) fn table(flavour: Flavour) -> Vec<&'static Spec> {
    let mut specs: Vec<&'static Spec> = OPTIONS.iter().filter(|s| s.names.has(flavour)).collect();
    specs.sort_by_key(|s| s.gnu_rank.unwrap_or(u8::MAX));
    specs
}

/// The options a name has, in help order.
pub(crate) fn listed(flavour: Flavour) -> impl Iterator<Item = &'static Spec> {
    OPTIONS.iter().filter(move |s| s.names.has(flavour))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// md5sum's own options in its `long_options` order: glibc names the
    /// candidates of an ambiguous abbreviation in this order.
    #[test]
    fn gnu_options_come_first_in_md5sums_order() {
        let longs: Vec<&str> = table(Flavour::Gnu).iter().map(|s| s.long).collect();
        assert_eq!(
            longs[..12],
            [
                "check",
                "ignore-missing",
                "quiet",
                "status",
                "warn",
                "strict",
                "tag",
                "zero",
                "binary",
                "text",
                "help",
                "version"
            ]
        );
        assert!(!longs.contains(&"algorithm") && !longs.contains(&"raw"));
    }

    #[test]
    fn each_name_has_its_options_and_letters() {
        let has = |f: Flavour, long: &str| table(f).iter().any(|s| s.long == long);
        assert!(has(Flavour::Fastsum, "algorithm") && !has(Flavour::Fastsum, "raw"));
        assert!(has(Flavour::B3sum, "raw") && has(Flavour::B3sum, "check"));
        assert!(!has(Flavour::B3sum, "zero") && !has(Flavour::B3sum, "status"));
        assert!(has(Flavour::B3sum, "chunk") && has(Flavour::Gnu, "jobs"));
        // xxhsum's: its own, check mode's, fastsum's reading options by
        // their long names only
        let xxh = |long: &str| table(Flavour::Xxhsum).into_iter().find(|s| s.long == long);
        assert!(xxh("little-endian").is_some() && xxh("status").is_some());
        assert!(xxh("recursive").is_none() && xxh("algorithm").is_none());
        let letter = |long| xxh(long).and_then(|s| s.short_for(Flavour::Xxhsum));
        assert_eq!((letter("quiet"), letter("help")), (Some(b'q'), Some(b'h')));
        assert_eq!((letter("jobs"), letter("mode")), (None, None));
        let help = OPTIONS.iter().find(|s| s.long == "help").unwrap();
        assert_eq!(help.short_for(Flavour::Gnu), None);
        assert_eq!(help.short_for(Flavour::B3sum), Some(b'h'));
        // each long name and letter once per name
        for f in [
            Flavour::Fastsum,
            Flavour::Gnu,
            Flavour::B3sum,
            Flavour::Xxhsum,
        ] {
            let t = table(f);
            for (i, a) in t.iter().enumerate() {
                for b in &t[i + 1..] {
                    assert_ne!(a.long, b.long);
                    assert!(a.short_for(f).is_none() || a.short_for(f) != b.short_for(f));
                }
            }
        }
    }

    #[test]
    fn algorithm_lists_name_the_bad_item() {
        let set = |v: &str| {
            let mut a = Args::default();
            algorithms(&mut a, OsStr::new(v)).map(|()| a.algorithms)
        };
        assert_eq!(
            set("MD5,blake3"),
            Ok(vec![Algorithm::Md5, Algorithm::Blake3])
        );
        for (v, says) in [
            ("", "the algorithm name is empty"),
            ("md5,", "the list's last item is empty"),
            (",md5", "the list's first item is empty"),
            ("md5,,sha1", "item 2 of the list is empty"),
            (
                "md5,bogus",
                "'bogus' is no algorithm (algorithms: md5, sha1,",
            ),
        ] {
            let e = set(v).unwrap_err().to_string();
            assert!(e.starts_with(says), "{v:?}: {e}");
        }
    }
}
