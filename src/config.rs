//! A run, resolved: what the command line asked for, with every default and
//! every GNU rule already applied (by `cli`), in types that leave no
//! combination to check again below.

use std::ffi::OsString;

use crate::algo::Algorithms;
use crate::read::Plan;
use crate::report::Reporter;
use crate::stats::Stats;

/// How much check mode prints (`--status` < `--quiet` < default < `--warn`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Verbosity {
    /// `--status`: nothing on stdout, exit status only.
    Status,
    /// `--quiet`: no OK lines.
    Quiet,
    /// The default.
    Normal,
    /// `-w`: also warn about improperly formatted lines.
    Warn,
}

/// What a run's check-line grammar reads by, from the command line: the
/// grammar itself is the name's, named by its flavour's row
/// (`cli/name.rs`) and built by `check::grammar`'s file of it (one each in
/// `src/command/check/grammar/`, which states the dialect's rules), as
/// the output [`Style`] is decided once in `cli`. No variant per tool:
/// each grammar takes what it reads by from here.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Dialect {
    /// What GNU's grammar (`check/grammar/gnu.rs`) reads by: how tags are
    /// read, whether the algorithm was chosen, base64, fastsum's own rules.
    pub(crate) gnu: GnuRules,
    /// xxhsum's `--little-endian` (`check/grammar/xxhsum.rs`): untagged
    /// lines hold reversed digests.
    pub(crate) little_endian: bool,
}

/// How GNU's grammar reads a name's check lines (GNU's tools differ), and
/// whether fastsum's own rules add to it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct GnuRules {
    /// How tags are read.
    pub(crate) tags: Tags,
    /// The algorithm was chosen (`-a`, or a multi-call name), not defaulted:
    /// then lines tagged with another algorithm are improperly formatted,
    /// as in GNU; otherwise each tag picks its line's algorithm.
    pub(crate) algorithm_chosen: bool,
    /// Digests may be written in base64 too (cksum, as GNU 9.8 reads its
    /// `--base64` lines; fastsum reads the lines its `--base64` writes).
    pub(crate) base64: bool,
    /// fastsum's own rules, not GNU's (its own name): an OpenPGP
    /// clear-signed check file's armour is read as such (its lines are not
    /// improperly formatted; what stands outside it is), a listed name not
    /// found from here is looked for beside the check file, a `#meta` line
    /// is tied to the line after it, and without `-a` an untagged line's
    /// algorithm is inferred (`check/infer.rs`).
    pub(crate) own_rules: bool,
}

/// How a check line's tag is read: GNU's tools differ (md5sum's
/// `split_3` against b2sum's and cksum's), and which tags a name knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Tags {
    /// md5sum … sha512sum (and fastsum with `-a` of their algorithms, or of
    /// its own): the tool's tag, then `(` or ` (`.
    Exact,
    /// b2sum, cksum with one `-a`, fastsum with `-a` of one of cksum's
    /// own algorithms (`blake2b`, `sm3`, `sha3`): the tag, then one byte,
    /// whatever it is, is skipped (a `(` is not; a `-` starts a length),
    /// then `(` or ` (`: `BLAKE2b\t(a)`, `MD5  (a)`. Their shortest
    /// untagged line is 3 bytes whatever the length, so `<hex> ` alone
    /// names the empty file.
    SkipOne,
    /// cksum without `-a`: the tag is a word that ends at a blank, `-`,
    /// `(` or NUL and names one of GNU cksum's algorithms (not xxHash's or
    /// BLAKE3's); then as [`Tags::SkipOne`].
    Cksum,
    /// fastsum without `-a` (or with several): as [`Tags::Cksum`], every
    /// algorithm's tag.
    Any,
}

/// Check-mode settings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct CheckOptions {
    /// What to print.
    pub(crate) verbosity: Verbosity,
    /// `--strict`: improperly formatted lines make the run fail.
    pub(crate) strict: bool,
    /// `--ignore-missing`: missing files are not failures.
    pub(crate) ignore_missing: bool,
    /// What the name's grammar reads check lines by (the grammar itself
    /// is the flavour's: `cli/name.rs`).
    pub(crate) dialect: Dialect,
    /// How each verified line is written (GNU's `name: OK`, b3sum's
    /// wording, or `--json`'s objects).
    pub(crate) style: Style,
    /// `--verify-with KEY` (and `--signature FILE`): each check file's
    /// signature must hold before any of its lines is used.
    pub(crate) signed: Option<Signed>,
}

#[cfg(test)]
impl CheckOptions {
    /// GNU's check mode with its defaults, for tests to vary.
    pub(crate) fn gnu() -> CheckOptions {
        CheckOptions {
            verbosity: Verbosity::Normal,
            strict: false,
            ignore_missing: false,
            dialect: Dialect {
                gnu: GnuRules {
                    tags: Tags::Exact,
                    algorithm_chosen: false,
                    base64: false,
                    own_rules: false,
                },
                little_endian: false,
            },
            style: Style {
                shape: Shape::Gnu(LineFormat::Gnu { binary: false }),
                encoding: Encoding::Hex,
                end: LineEnd::Newline,
                names: Names::Escaped,
            },
            signed: None,
        }
    }
}

/// Where the key of a signed check file is, and its signature when named.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Signed {
    /// The public key's file.
    pub(crate) key: std::path::PathBuf,
    /// `--signature FILE`; else inside the check file, or beside it.
    pub(crate) signature: Option<std::path::PathBuf>,
}

/// Hash-mode settings.
#[derive(Clone, Debug)]
pub(crate) struct HashOptions {
    /// How lines look: decided once, by `cli/style.rs`; written by
    /// `output`'s writer of that style.
    pub(crate) style: Style,
    /// `-r` and what it walks.
    pub(crate) walk: crate::walk::Walk,
    /// `--tree-digest`: one line per directory operand, the digest of its
    /// manifest (see `hash::tree_digest`).
    pub(crate) tree_digest: bool,
    /// `--meta`: a `#meta` line (size, mtime) before each file's line
    /// (`command::meta`).
    pub(crate) meta: bool,
    /// Where the names come from, which share is hashed, where the lines go.
    pub(crate) shares: Shares,
}

/// A run over a list of names, split into shares (`command/shard.rs`).
#[derive(Clone, Debug, Default)]
pub(crate) struct Shares {
    /// `--files0-from`, `--files-from`: the names, instead of FILEs.
    pub(crate) list: Option<List>,
    /// `--shard K/N`.
    pub(crate) shard: Option<Shard>,
    /// `--output FILE`: written beside, renamed once complete.
    pub(crate) output: Option<std::path::PathBuf>,
}

/// A list of names to hash.
#[derive(Clone, Debug)]
pub(crate) struct List {
    /// The list's file (`-`: standard input).
    pub(crate) path: OsString,
    /// Names end with a NUL (`--files0-from`), else with a newline.
    pub(crate) zero: bool,
    /// Each name follows its size and a space (`--list-sizes`).
    pub(crate) sizes: bool,
}

/// `--shard K/N`: which share, and what the run is (its header's words).
#[derive(Clone, Debug)]
pub(crate) struct Shard {
    /// K, from 0.
    pub(crate) k: u32,
    /// N.
    pub(crate) n: u32,
    /// The options and operands that make the run's lines, as one word
    /// (the header's `run=`: parts of one whole have the same).
    pub(crate) run: String,
}

/// How a run writes what it found: the digest lines of hashing, the
/// failure lines, the status lines of checking and auditing. One value,
/// resolved once by `cli` (`cli/style.rs`); `output::writer` turns it into
/// the one writer that writes it, so no command branches on a tool.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Style {
    /// Which writer, and what only it knows.
    pub(crate) shape: Shape,
    /// How a digest is written in a line (the writers of checksum lines).
    pub(crate) encoding: Encoding,
    /// How a line ends.
    pub(crate) end: LineEnd,
    /// How a name is written in a line.
    pub(crate) names: Names,
}

impl Style {
    /// The layout of its checksum lines (untagged for the styles that have
    /// none): `--update` starts an empty manifest in it.
    pub(crate) fn format(&self) -> LineFormat {
        match self.shape {
            Shape::Gnu(f) | Shape::B3sum(f, _) | Shape::Xxhsum(f, _) => f,
            Shape::Legacy { .. } | Shape::Json | Shape::Raw => LineFormat::Gnu { binary: false },
        }
    }

    /// The same style with checksum lines laid out as `format` (`--update`:
    /// new lines take the manifest's); the styles without layout unchanged.
    pub(crate) fn with_format(mut self, format: LineFormat) -> Style {
        match &mut self.shape {
            Shape::Gnu(f) | Shape::B3sum(f, _) | Shape::Xxhsum(f, _) => *f = format,
            Shape::Legacy { .. } | Shape::Json | Shape::Raw => {}
        }
        self
    }
}

/// The writers: one per style or family of styles (`src/output/`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Shape {
    /// GNU's lines, untagged or tagged (`output/gnu.rs`), and GNU's check
    /// status lines.
    Gnu(LineFormat),
    /// cksum's CRC and sum's checksums, which print their own line
    /// (`output/legacy.rs`).
    Legacy {
        /// The line ends with the name: FILEs were given (GNU names no
        /// input read from stdin by default).
        named: bool,
    },
    /// b3sum's lines and check wording (`output/b3sum.rs`), with its
    /// `--length`/`--raw`/`--no-names` when given.
    B3sum(LineFormat, Option<XofOutput>),
    /// xxhsum's lines and messages (`output/xxhsum.rs`).
    Xxhsum(LineFormat, XxhOutput),
    /// `--json`: JSON Lines (`output/json.rs`).
    Json,
    /// cksum's `--raw`: the digest's bytes alone, no name, no line end
    /// (`output/raw.rs`; one input).
    Raw,
}

/// How a checksum line is laid out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum LineFormat {
    /// `<hex>  <name>` (text) or `<hex> *<name>` (`binary`), as md5sum.
    Gnu {
        /// `-b`: mark the name with `*`.
        binary: bool,
    },
    /// `--tag`: `MD5 (<name>) = <hex>`, as BSD md5.
    Tagged,
}

/// How a line ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum LineEnd {
    /// `\n`.
    Newline,
    /// `-z`: NUL.
    Nul,
}

/// How a name is written in a checksum line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Names {
    /// GNU's: a name that holds `\`, `\n` or `\r` is escaped and the line
    /// marked with a leading `\`.
    Escaped,
    /// b3sum's: as `Escaped`, but a name that is not UTF-8 is written as
    /// Rust's `to_string_lossy` writes it (each invalid sequence as
    /// U+FFFD), because b3sum prints that.
    LossyEscaped,
    /// As it is, never escaped (`-z`, xxhsum, cksum's and sum's lines).
    Verbatim,
}

/// How xxhsum writes what it found: `stdin` for standard input's name,
/// its own messages, and these.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct XxhOutput {
    /// `--little-endian`: the digest's bytes reversed, tags with `_LE`.
    pub(crate) little_endian: bool,
    /// `-w`: a message for each improperly formatted line of a check file
    /// (xxhsum's `-w` goes with `-q` and `--status`, not instead of them).
    pub(crate) warn: bool,
    /// Blank out stderr's line at the end (`\r`, 70 spaces, `\r`), as
    /// xxhsum does after FILEs unless `-q`.
    pub(crate) blank_out: bool,
}

/// How a digest is written in a checksum line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Encoding {
    /// Lower-case hex.
    Hex,
    /// Standard base64 with padding (`--base64`).
    Base64,
}

/// How b3sum's output options write a BLAKE3 digest.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct XofOutput {
    /// Output bytes per input (BLAKE3's extendable output; b3sum's default 32).
    pub(crate) length: u64,
    /// `--raw`: the bytes themselves, no name, no newline.
    pub(crate) raw: bool,
    /// `--no-names`: the hex alone on each line.
    pub(crate) no_names: bool,
}

/// What the run does with its FILEs.
#[derive(Clone, Debug)]
pub(crate) enum Command {
    /// Hash them and print checksum lines.
    Hash(HashOptions),
    /// Read them as checksum files and verify what they list (`-c`).
    Check(CheckOptions),
    /// Hash what a manifest does not list yet and add it (`--update`).
    Update(UpdateOptions),
    /// Verify the checksum files and compare the trees under `dirs` with
    /// them (`-c --audit`).
    Audit(AuditOptions),
    /// Make one manifest of `--shard` parts (`--merge`): to `--output`'s
    /// file, or stdout.
    Merge(Option<std::path::PathBuf>),
}

/// `-c --audit` settings.
#[derive(Clone, Debug)]
pub(crate) struct AuditOptions {
    /// As `-c`.
    pub(crate) check: CheckOptions,
    /// The directories audited.
    pub(crate) dirs: Vec<OsString>,
    /// How they are walked (always recursive).
    pub(crate) walk: crate::walk::Walk,
}

/// `--update` settings.
#[derive(Clone, Debug)]
pub(crate) struct UpdateOptions {
    /// How new lines are written (the manifest's format wins).
    pub(crate) hash: HashOptions,
    /// The manifest.
    pub(crate) sums: std::path::PathBuf,
    /// `--prune`: drop the lines of files that no longer exist.
    pub(crate) prune: bool,
    /// `-a` was given: the manifest must be of that algorithm.
    pub(crate) algorithm_chosen: bool,
    /// fastsum's own name without `-a`: a manifest whose name names an
    /// algorithm (`SHA256SUMS`) is of that one, as `-c` reads it.
    pub(crate) by_name: bool,
    /// `--quiet` or `--status`: no summary of what was done.
    pub(crate) quiet: bool,
}

/// When to show the progress display.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Progress {
    /// On a terminal, for runs longer than about a second.
    Auto,
    /// `--progress`: on a terminal, from the start.
    Always,
    /// `--no-progress`.
    Never,
}

/// Everything a run needs, resolved.
#[derive(Clone, Debug)]
pub(crate) struct Config {
    /// Hash or check.
    pub(crate) command: Command,
    /// The algorithms for hashing, in the order given (several print
    /// tagged lines); with `-c`, the first is the one of untagged lines and
    /// a chosen set limits the tags accepted.
    pub(crate) algorithms: Algorithms,
    /// How inputs are read.
    pub(crate) plan: Plan,
    /// Progress display.
    pub(crate) progress: Progress,
    /// `--stats`.
    pub(crate) stats: bool,
    /// cksum's `--debug`: say which CRC code runs.
    pub(crate) debug: bool,
    /// The FILE arguments (`-` for stdin when none were given).
    pub(crate) files: Vec<OsString>,
}

/// What every command runs with, built once by `lib::run`: the algorithms
/// of the run, how inputs are read, where failures are told (and
/// remembered for the exit status) and where work is counted.
#[derive(Clone, Copy)]
pub(crate) struct Context<'a> {
    pub(crate) algos: Algorithms,
    pub(crate) plan: &'a Plan,
    pub(crate) rep: &'a Reporter,
    pub(crate) stats: &'a Stats,
}
