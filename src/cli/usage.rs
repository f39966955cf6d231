//! Usage errors, typed: what went wrong ([`UsageError`]), and how each name
//! words it and exits ([`UsageError::render`]):
//!
//! - under GNU's names (md5sum … sha512sum): GNU's two lines, `md5sum:
//!   unrecognized option '--foo'` and `Try 'md5sum --help' for more
//!   information.`, exit 1;
//! - under b3sum: clap's wording, as the real b3sum (a clap program), exit
//!   2 (its `--raw` with several inputs: its own line, exit 1);
//! - under fastsum: GNU's frame for every kind of error, unknown options
//!   and bad values alike, with a "did you mean" when a name is close to
//!   one that exists; exit 2;
//! - under xxhsum's names: `Wrong parameters` and xxhsum's usage (a number
//!   past 32 bits: its own line), exit 1.

use std::ffi::OsString;
use std::io::IsTerminal;

use super::Flavour;
use super::getopt::GetoptError;
use super::options::{Spec, ValueError, table};
use crate::algo::Algorithm;

/// An option combination that is refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Conflict {
    /// `--tag` then `-t` (GNU).
    TagWithText,
    /// `-c -z` (GNU).
    ZeroWhenChecking,
    /// `-c --tag` (GNU).
    TagWhenChecking,
    /// `-c` with `-b` or `-t` (GNU).
    BinaryOrTextWhenChecking,
    /// A check-mode option without `-c` (GNU): its name.
    OnlyWhenChecking(&'static str),
    /// A hash-mode option with `-c`: its name.
    NotWhenChecking(&'static str),
    /// A walk option without `-r`: its name.
    OnlyWhenRecursive(&'static str),
    /// Exclude patterns that do not make a set: why.
    Patterns(String),
    /// An `--update` option without `--update`: its name.
    OnlyWhenUpdating(&'static str),
    /// `--signature` without the key it is verified with.
    SignatureWithoutKey,
    /// `--update` with what it cannot write: what.
    UpdateWith(&'static str),
    /// `--update` with no FILE, or with `-`: there is nothing to add from
    /// standard input.
    UpdateWithoutFiles,
    /// `--tree-digest` with what it does not do: what.
    TreeDigestWith(&'static str),
    /// `--json` with an option that shapes checksum lines: its name.
    JsonWith(&'static str),
    /// A FILE operand with a list of names (GNU du's, wc's "extra
    /// operand"): the operand, the list's option.
    ListWithOperand(OsString, &'static str),
    /// A list, `--shard` or `--output` (the first) with what takes FILEs
    /// or writes no such lines.
    ShardWith(&'static str, &'static str),
    /// `--merge` with an option the parts' headers decide: its name.
    MergeWith(&'static str),
    /// `--merge` with no part.
    MergeWithoutParts,
    /// `--meta` with lines a `#meta` line cannot go before: what.
    MetaWith(&'static str),
    /// `--audit` with what it does not do: what.
    AuditWith(&'static str),
    /// `--pool` × `--readahead` over the limit.
    TooMuchInFlight,
    /// An algorithm named twice in `-a`.
    AlgorithmTwice(Algorithm),
    /// More algorithms than a run computes at once.
    TooManyAlgorithms,
    /// `--part-size` with an algorithm S3 does not compose over parts.
    NotComposed(Algorithm),
    /// A part size with an output it does not have: what.
    PartsWith(&'static str),
    /// Several algorithms with `-b` or `-t` (untagged lines).
    SeveralUntagged,
    /// Digests over parts (always tagged) with `-b` or `-t` (the option).
    PartsUntagged(&'static str),
    /// b3sum: `--check` with an option it conflicts with (its clap's
    /// refusal): the first of them given, the others, and the usage line
    /// clap then prints (the options it does not blame, the FILEs).
    B3sumClap {
        /// The first of the conflicting options given.
        first: &'static str,
        /// What it cannot be used with, in the order given.
        with: Vec<&'static str>,
        /// The usage line after `Usage: b3sum `.
        usage: String,
    },
    /// b3sum: `--quiet` without `--check` (its clap's requirement): the
    /// usage line after `Usage: b3sum `.
    B3sumNeedsCheck(String),
    /// b3sum: `--raw` with more than one input (its own error, exit 1).
    B3sumRawInputs,
    /// b3sum: one of its own options given twice (its clap's refusal).
    B3sumTwice(&'static Spec),
    /// `-l` with no algorithm it sizes (GNU cksum's refusal).
    LengthUnsupported,
    /// `-a sha3` (or cksum's `sha2`) without `-l` (GNU cksum's refusal):
    /// which.
    NeedsLength(&'static str),
    /// cksum's `--base64` with `--raw`.
    Base64WithRaw,
    /// cksum's `--raw` with more than one FILE.
    RawWithFiles,
    /// `-l` under cksum for another algorithm than BLAKE2b or SHA-3 (as
    /// cksum 9.1 words it).
    LengthOnlyBlake2b,
    /// `-c` with `-a crc`, `bsd` or `sysv` (GNU cksum 9.1), or `crc32b`
    /// (9.8, whose message names it too).
    CheckLegacy(bool),
    /// A checksum that prints its own lines with what it cannot go with.
    LegacyWith(Algorithm, &'static str),
    /// xxhsum: no FILE, and standard input (not named `-`) is a terminal:
    /// xxhsum refuses to wait on it.
    NoInputButTerminal,
}

/// `--update` with no FILE.
const UPDATE_WITHOUT_FILES: &str = "--update adds the FILEs and directories given to SUMS: \
                                    give at least one (it does not read standard input)";

/// Several algorithms with `--binary` or `--text`.
const SEVERAL_UNTAGGED: &str = "several algorithms print BSD-tagged lines: --binary and \
                                --text apply to untagged output (use one -a per run)";

/// Why digests over parts go with no untagged layout (`-b`, `-t`).
const PARTS_TAGGED: &str = "digests over parts print tagged lines (the tag carries the part size)";

/// Why digests over parts go with no other encoding.
const PARTS_AS_S3: &str = "S3's digests over parts are written as S3 shows them (the ETag \
                           in hex, the composite checksums in base64)";

/// b3sum's clap's words for one of its options given twice.
fn given_twice(spec: &Spec) -> String {
    let value = spec.value_name().map(|v| format!(" <{v}>"));
    let option = format!("--{}{}", spec.long, value.unwrap_or_default());
    format!("the argument '{option}' cannot be used multiple times")
}

/// GNU's words for an option in the wrong company: `the --zero option is …`.
fn option_is(flag: &str, what: &str) -> String {
    format!("the {flag} option is {what}")
}

/// b3sum's clap's words for an option given with others it conflicts with.
fn cannot_be_used_with(first: &str, with: &[&str]) -> String {
    match with {
        [one] => format!("the argument '{first}' cannot be used with '{one}'"),
        many => {
            let mut m = format!("the argument '{first}' cannot be used with:");
            for w in many {
                m.push_str(&format!("\n  {w}"));
            }
            m
        }
    }
}

impl Conflict {
    /// The refusal in words: each variant its own. The compiler names a
    /// new variant here; the words GNU's tools, b3sum and xxhsum print are
    /// in [`Conflict::peers_words`].
    fn message(&self) -> String {
        match self {
            Conflict::OnlyWhenRecursive(flag) => option_is(flag, "meaningful only with -r"),
            Conflict::Patterns(why) => format!("the exclude patterns: {why}"),
            Conflict::OnlyWhenUpdating(flag) => option_is(flag, "meaningful only with --update"),
            Conflict::SignatureWithoutKey => {
                option_is("--signature", "meaningful only with --verify-with")
            }
            Conflict::JsonWith(flag) => option_is(flag, "meaningless with --json"),
            Conflict::ListWithOperand(extra, option) => format!(
                "extra operand '{}'\nfile operands cannot be combined with {option}",
                extra.to_string_lossy()
            ),
            Conflict::ShardWith(flag, what) => format!("{flag} cannot be combined with {what}"),
            Conflict::MergeWith(flag) => {
                format!("--merge takes the run's options from the parts' headers: not {flag}")
            }
            Conflict::MergeWithoutParts => "--merge needs the parts, as FILEs".into(),
            Conflict::MetaWith(what) => {
                format!("--meta writes comment lines before checksum lines: not with {what}")
            }
            Conflict::AuditWith(what) => format!("--audit cannot be combined with {what}"),
            Conflict::TreeDigestWith(what) => {
                format!("--tree-digest prints one digest of one algorithm a tree: not with {what}")
            }
            Conflict::UpdateWith(what) => {
                format!(
                    "--update keeps a manifest of one algorithm, one line each: not with {what}"
                )
            }
            Conflict::UpdateWithoutFiles => UPDATE_WITHOUT_FILES.into(),
            Conflict::TooMuchInFlight => {
                "--pool × --readahead must be at most 4G: that much memory is held in blocks".into()
            }
            Conflict::AlgorithmTwice(a) => {
                format!("the algorithm '{}' is given twice in -a", a.name())
            }
            Conflict::TooManyAlgorithms => format!(
                "a run computes at most {} digests of each input",
                crate::algo::MAX_ALGORITHMS
            ),
            Conflict::NotComposed(a) => super::options::not_composed(*a),
            Conflict::PartsWith(what) => format!("{PARTS_AS_S3}: not with {what}"),
            Conflict::SeveralUntagged => SEVERAL_UNTAGGED.into(),
            Conflict::PartsUntagged(what) => {
                format!("{PARTS_TAGGED}: {what} applies to untagged output")
            }
            Conflict::LegacyWith(a, what) => format!(
                "-a {} prints its own lines: it cannot be combined with {what}",
                a.name()
            ),
            Conflict::TagWithText
            | Conflict::ZeroWhenChecking
            | Conflict::TagWhenChecking
            | Conflict::BinaryOrTextWhenChecking
            | Conflict::OnlyWhenChecking(_)
            | Conflict::NotWhenChecking(_)
            | Conflict::B3sumClap { .. }
            | Conflict::B3sumNeedsCheck(_)
            | Conflict::B3sumRawInputs
            | Conflict::B3sumTwice(_)
            | Conflict::LengthUnsupported
            | Conflict::LengthOnlyBlake2b
            | Conflict::CheckLegacy(_)
            | Conflict::NeedsLength(_)
            | Conflict::Base64WithRaw
            | Conflict::RawWithFiles
            | Conflict::NoInputButTerminal => self.peers_words(),
        }
    }

    /// A peer's refusal, in its words, byte for byte.
    fn peers_words(&self) -> String {
        match self {
            Conflict::TagWithText => "--tag does not support --text mode".into(),
            Conflict::ZeroWhenChecking => {
                option_is("--zero", "not supported when verifying checksums")
            }
            Conflict::TagWhenChecking => option_is("--tag", "meaningless when verifying checksums"),
            Conflict::BinaryOrTextWhenChecking => {
                "the --binary and --text options are meaningless when verifying checksums".into()
            }
            Conflict::OnlyWhenChecking(flag) => {
                option_is(flag, "meaningful only when verifying checksums")
            }
            Conflict::NotWhenChecking(flag) => {
                option_is(flag, "meaningless when verifying checksums")
            }
            Conflict::B3sumClap { first, with, .. } => cannot_be_used_with(first, with),
            Conflict::B3sumNeedsCheck(_) => {
                "the following required arguments were not provided:\n  --check".into()
            }
            Conflict::B3sumRawInputs => "Only one filename can be provided when using --raw".into(),
            Conflict::B3sumTwice(spec) => given_twice(spec),
            Conflict::LengthUnsupported => {
                "--length is only supported with --algorithm blake2b or sha3".into()
            }
            Conflict::LengthOnlyBlake2b => {
                "--length is only supported with --algorithm=blake2b".into()
            }
            Conflict::CheckLegacy(false) => {
                "--check is not supported with --algorithm={bsd,sysv,crc}".into()
            }
            Conflict::CheckLegacy(true) => {
                "--check is not supported with --algorithm={bsd,sysv,crc,crc32b}".into()
            }
            Conflict::NeedsLength(algo) => {
                format!("--algorithm={algo} requires specifying --length 224, 256, 384, or 512")
            }
            Conflict::Base64WithRaw => "--base64 and --raw are mutually exclusive".into(),
            Conflict::RawWithFiles => option_is("--raw", "not supported with multiple files"),
            Conflict::NoInputButTerminal => {
                "no FILE given, and standard input is a terminal".into()
            }
            _ => unreachable!("fastsum's own refusals are worded by Conflict::message"),
        }
    }
}

/// Why the command line cannot run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum UsageError {
    /// An option getopt refuses: unknown, ambiguous, a missing value or
    /// one given to a flag.
    Option(GetoptError),
    /// The same under b3sum, whose clap words it with what it met before:
    /// b3sum's options (as clap names them) and whether a FILE came.
    ClapOption {
        /// What the scan refused.
        error: GetoptError,
        /// b3sum's options met before it, in order.
        used: Vec<&'static str>,
        /// One of them was taken whole (not one still waiting for its
        /// value, the next word).
        resolved: bool,
        /// A FILE came before it.
        operands: bool,
    },
    /// A value its option refuses.
    Value {
        /// The option (as the table declares it).
        option: &'static Spec,
        /// The value as given.
        value: OsString,
        /// Why.
        why: ValueError,
    },
    /// Options that do not go together.
    Conflict(Conflict),
    /// An environment variable that names nothing (`FASTSUM_MD5`): the
    /// message of the module that reads it.
    Environment(String),
    /// `-l BITS` refused: the value as given, and why.
    Length {
        /// The value as given.
        given: String,
        /// Why.
        why: LengthWhy,
    },
}

/// Why `-l BITS` is refused (b2sum's and cksum's checks).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum LengthWhy {
    /// Not a number.
    NotANumber,
    /// More than any number.
    Overflow,
    /// BLAKE2b: not a multiple of 8.
    NotBytes,
    /// BLAKE2b: over 512.
    TooLong,
    /// SHA-3: not one of its sizes.
    NoSha3Size,
    /// cksum's `-a sha2`: not one of its sizes.
    NoSha2Size,
}

impl LengthWhy {
    /// GNU's lines after `invalid length: 'BITS'`: a suffix of that line,
    /// and a line of its own.
    fn wording(self) -> (&'static str, Option<String>) {
        match self {
            LengthWhy::NotANumber => ("", None),
            LengthWhy::Overflow => (": Value too large for defined data type", None),
            LengthWhy::NotBytes => ("", Some("length is not a multiple of 8".into())),
            LengthWhy::TooLong => (
                "",
                Some(format!(
                    "maximum digest length for {} is 512 bits",
                    gnu_quote("BLAKE2b")
                )),
            ),
            LengthWhy::NoSha3Size | LengthWhy::NoSha2Size => (
                "",
                Some(format!(
                    "digest length for {} must be 224, 256, 384, or 512",
                    gnu_quote(if self == LengthWhy::NoSha2Size {
                        "SHA2"
                    } else {
                        "SHA3"
                    })
                )),
            ),
        }
    }
}

/// `s` quoted as GNU's `quote` does: ‘s’ in a UTF-8 locale, 's' in others.
fn gnu_quote(s: &str) -> String {
    let locale = ["LC_ALL", "LC_CTYPE", "LANG"]
        .into_iter()
        .find_map(|v| std::env::var(v).ok().filter(|l| !l.is_empty()))
        .unwrap_or_default()
        .to_ascii_lowercase();
    if locale.contains("utf-8") || locale.contains("utf8") {
        format!("\u{2018}{s}\u{2019}")
    } else {
        format!("'{s}'")
    }
}

impl UsageError {
    /// The exit status under a name.
    pub(crate) fn code(&self, flavour: Flavour) -> u8 {
        match (self, flavour) {
            (UsageError::Conflict(Conflict::B3sumRawInputs), _) => 1,
            _ if flavour.is_gnu() || flavour == Flavour::Xxhsum => 1,
            _ => 2,
        }
    }

    /// The message without any frame (`invalid option -- 'x'`): bytes, as
    /// an invalid short option is written as the byte it is.
    fn message(&self) -> Vec<u8> {
        match self {
            UsageError::Option(e) | UsageError::ClapOption { error: e, .. } => e.gnu_message(),
            UsageError::Value {
                why: ValueError::CksumAlgorithm(given),
                ..
            } => {
                let mut m = format!(
                    "invalid argument {} for {}\nValid arguments are:",
                    gnu_quote(given),
                    gnu_quote("--algorithm")
                );
                let names = Algorithm::CKSUM.map(|a| a.name());
                for name in names.into_iter().chain(["sha2"]) {
                    m.push_str(&format!("\n  - {}", gnu_quote(name)));
                }
                m.into_bytes()
            }
            UsageError::Value { option, value, why } => format!(
                "invalid value '{}' for '--{} <{}>': {why}",
                value.to_string_lossy(),
                option.long,
                option.value_name().unwrap_or_default()
            )
            .into_bytes(),
            UsageError::Conflict(c) => c.message().into_bytes(),
            UsageError::Environment(m) => m.clone().into_bytes(),
            UsageError::Length { given, why } => {
                let (suffix, line) = why.wording();
                let mut m = format!("invalid length: {}{suffix}", gnu_quote(given));
                if let Some(line) = line {
                    m.push_str(": ");
                    m.push_str(&line);
                }
                m.into_bytes()
            }
        }
    }

    /// A close name, when the error is about a name that does not exist:
    /// an option (among those `flavour` has) or a value.
    fn suggestion(&self, flavour: Flavour) -> Option<String> {
        match self {
            UsageError::Option(GetoptError::Unrecognized(word)) => {
                let body = word.as_encoded_bytes().strip_prefix(b"--")?;
                let name = body.split(|&b| b == b'=').next().unwrap_or_default();
                let name = String::from_utf8_lossy(name);
                let longs: Vec<&str> = table(flavour).iter().map(|s| s.long).collect();
                closest(&name, &longs).map(|l| format!("--{l}"))
            }
            UsageError::Value { why, .. } => {
                let (given, choices) = why.choices()?;
                let choices: Vec<&str> = choices.iter().map(String::as_str).collect();
                closest(&given.to_ascii_lowercase(), &choices).map(str::to_string)
            }
            _ => None,
        }
    }

    /// The text for stderr under `program`'s name.
    pub(crate) fn render(&self, program: &str, flavour: Flavour) -> Vec<u8> {
        // what GNU refuses with die(), without the pointer to --help
        let dies = matches!(
            self,
            UsageError::Conflict(
                Conflict::LengthOnlyBlake2b
                    | Conflict::CheckLegacy(_)
                    | Conflict::LengthUnsupported
                    | Conflict::RawWithFiles
                    | Conflict::NeedsLength(_)
            )
        );
        // GNU's own lines for a length, without the pointer to --help
        if let (true, UsageError::Length { given, why }) = (flavour.is_gnu(), self) {
            let (suffix, line) = why.wording();
            let mut out = format!("{program}: invalid length: {}{suffix}\n", gnu_quote(given));
            if let Some(line) = line {
                out.push_str(&format!("{program}: {line}\n"));
            }
            return out.into_bytes();
        }
        match flavour {
            _ if flavour.is_gnu() && dies => {
                let mut out = format!("{program}: ").into_bytes();
                out.extend(self.message());
                out.push(b'\n');
                out
            }
            Flavour::B3sum => self.render_b3sum(program).into_bytes(),
            Flavour::Xxhsum => self.render_xxhsum(program),
            _ => {
                let mut out = format!("{program}: ").into_bytes();
                out.extend(self.message());
                if flavour == Flavour::Fastsum
                    && let Some(close) = self.suggestion(flavour)
                {
                    out.extend(format!("; did you mean '{close}'?").as_bytes());
                }
                out.extend(format!("\nTry '{program} --help' for more information.\n").as_bytes());
                out
            }
        }
    }

    /// As xxhsum 0.8.1 words it: every refusal is `Wrong parameters` and
    /// the usage, but for a number past 32 bits.
    fn render_xxhsum(&self, program: &str) -> Vec<u8> {
        match self {
            UsageError::Value {
                why: ValueError::XxhTooLarge,
                ..
            } => b"Error: numeric value too large \n".to_vec(),
            _ => format!(
                "Wrong parameters\n\n{}",
                super::help::xxhsum_usage(program, false)
            )
            .into_bytes(),
        }
    }

    /// As b3sum's clap words it.
    fn render_b3sum(&self, program: &str) -> String {
        const MORE: &str = "\nFor more information, try '--help'.\n";
        match self {
            UsageError::Option(e) => {
                let word = String::from_utf8_lossy(e.word().as_encoded_bytes()).into_owned();
                let what = match e {
                    GetoptError::ShortNeedsValue(_) | GetoptError::LongNeedsValue(_) => {
                        format!("a value is required for '{word}' but none was supplied")
                    }
                    GetoptError::NoValueAllowed(..) => {
                        format!("unexpected value for '{word}' found; no more were expected")
                    }
                    _ => format!("unexpected argument '{word}' found"),
                };
                format!("error: {what}\n\nUsage: {program} [OPTIONS] [FILE]...\n{MORE}")
            }
            UsageError::ClapOption {
                error,
                used,
                resolved,
                operands,
            } => clap_option(program, error, used, *resolved, *operands),
            // b3sum's own refusal, an error its main returns: Rust prints
            // it after `Error: `, without the program's name
            UsageError::Conflict(Conflict::B3sumRawInputs) => {
                format!("Error: {}\n", Conflict::B3sumRawInputs.message())
            }
            UsageError::Conflict(c @ Conflict::B3sumTwice(_)) => format!(
                "error: {}\n\nUsage: {program} [OPTIONS] [FILE]...\n{MORE}",
                c.message()
            ),
            UsageError::Conflict(
                c @ (Conflict::B3sumClap { usage, .. } | Conflict::B3sumNeedsCheck(usage)),
            ) => format!("error: {}\n\nUsage: {program} {usage}\n{MORE}", c.message()),
            _ => format!(
                "error: {}\n{MORE}",
                String::from_utf8_lossy(&self.message())
            ),
        }
    }
}

/// b3sum 1.8's long options as its clap holds them, in its order (those
/// fastsum lacks too: clap may suggest them), as its messages name them.
const B3SUM_LONGS: [&str; 13] = [
    "--keyed",
    "--derive-key <CONTEXT>",
    "--length <LEN>",
    "--seek <SEEK>",
    "--num-threads <NUM>",
    "--no-mmap",
    "--no-names",
    "--raw",
    "--tag",
    "--check",
    "--quiet",
    "--help",
    "--version",
];

/// An option b3sum's clap refuses while parsing, as it words it: a missing
/// value names the option in full; an unknown one gets a tip (a similar
/// long option, by clap's Jaro similarity over 0.7, or how to pass it as a
/// FILE) and a usage line of what was met (the suggestion included).
fn clap_option(
    program: &str,
    error: &GetoptError,
    used: &[&str],
    resolved: bool,
    operands: bool,
) -> String {
    const MORE: &str = "\nFor more information, try '--help'.\n";
    let form = |long: &str| {
        B3SUM_LONGS
            .iter()
            .find(|f| f.strip_prefix("--").and_then(|f| f.split(' ').next()) == Some(long))
            .copied()
    };
    let usage = |extra: Option<&str>| {
        let extra = extra.filter(|e| !used.contains(e));
        let mut words: Vec<&str> = used.iter().copied().chain(extra).collect();
        if words.is_empty() && !operands {
            return "[OPTIONS] [FILE]...".to_string();
        }
        words.push(if operands { "<FILE>..." } else { "[FILE]..." });
        words.join(" ")
    };
    match error {
        GetoptError::ShortNeedsValue(b'l') => {
            format!("error: a value is required for '--length <LEN>' but none was supplied\n{MORE}")
        }
        GetoptError::LongNeedsValue(long) if form(long).is_some() => format!(
            "error: a value is required for '{}' but none was supplied\n{MORE}",
            form(long).unwrap_or_default()
        ),
        GetoptError::Unrecognized(word) => {
            let word = String::from_utf8_lossy(word.as_encoded_bytes()).into_owned();
            let name = word.split('=').next().unwrap_or_default().to_string();
            let (tip, line) = match similar_long(&name) {
                Some(f) => {
                    let long = f.split(' ').next().unwrap_or_default();
                    (
                        format!("a similar argument exists: '{long}'"),
                        usage(Some(f)),
                    )
                }
                None => (
                    format!("to pass '{name}' as a value, use '-- {name}'"),
                    usage(None),
                ),
            };
            format!(
                "error: unexpected argument '{name}' found\n\n  tip: {tip}\n\nUsage: {program} {line}\n{MORE}"
            )
        }
        GetoptError::NoValueAllowed(long, value) if form(long).is_some() => {
            let named = form(long).unwrap_or_default();
            let line = flag_usage(named, resolved);
            format!(
                "error: unexpected value '{}' for '{named}' found; no more were expected\n\n\
                 Usage: {program} {line}\n{MORE}",
                value.to_string_lossy(),
            )
        }
        GetoptError::InvalidShort(c) => {
            let name = format!("-{}", char::from(*c));
            format!(
                "error: unexpected argument '{name}' found\n\n  tip: to pass '{name}' as a value, \
                 use '-- {name}'\n\nUsage: {program} [OPTIONS] [FILE]...\n{MORE}"
            )
        }
        other => UsageError::Option(other.clone()).render_b3sum(program),
    }
}

/// The long option of b3sum's (as its messages name it) most like `name`
/// (`--name`), by clap's Jaro similarity over 0.7.
fn similar_long(name: &str) -> Option<&'static str> {
    let name = name.strip_prefix("--")?;
    let mut scored: Vec<(f64, &str)> = B3SUM_LONGS
        .iter()
        .filter_map(|f| {
            let long = f.strip_prefix("--")?.split(' ').next()?;
            Some((jaro(name, long), *f))
        })
        .filter(|(score, _)| *score > 0.7)
        .collect();
    scored.sort_by(|a, b| a.0.total_cmp(&b.0));
    scored.pop().map(|(_, f)| f)
}

/// clap's usage line for a flag given a value: the flag and the FILEs,
/// or, once an option came before (`resolved`: not one still waiting for
/// its value), every argument as one group (after `--help`'s name).
fn flag_usage(named: &str, resolved: bool) -> String {
    if !resolved {
        return format!("{named} [FILE]...");
    }
    let all = B3SUM_LONGS[..B3SUM_LONGS.len() - 2].join("|");
    match named {
        "--help" => format!("--help <FILE|{all}>"),
        _ => format!("<FILE|{all}>"),
    }
}

/// The Jaro similarity of two names, as clap's suggestions compute it
/// (strsim's `jaro`).
fn jaro(a: &str, b: &str) -> f64 {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    if a.is_empty() || b.is_empty() {
        return if a.is_empty() && b.is_empty() {
            1.0
        } else {
            0.0
        };
    }
    let range = (a.len().max(b.len()) / 2).saturating_sub(1);
    let mut a_hit = vec![false; a.len()];
    let mut b_hit = vec![false; b.len()];
    let mut matches = 0usize;
    for (i, ca) in a.iter().enumerate() {
        let lo = i.saturating_sub(range);
        let hi = b.len().min(i + range + 1);
        for j in lo..hi {
            if !b_hit[j] && b[j] == *ca {
                a_hit[i] = true;
                b_hit[j] = true;
                matches += 1;
                break;
            }
        }
    }
    if matches == 0 {
        return 0.0;
    }
    let a_matched = a.iter().zip(&a_hit).filter(|(_, h)| **h).map(|(c, _)| c);
    let b_matched = b.iter().zip(&b_hit).filter(|(_, h)| **h).map(|(c, _)| c);
    let transpositions = a_matched.zip(b_matched).filter(|(x, y)| x != y).count() / 2;
    let m = matches as f64;
    (m / a.len() as f64 + m / b.len() as f64 + (m - transpositions as f64) / m) / 3.0
}

/// The restricted Damerau–Levenshtein distance (a swap of two neighbours
/// counts once: `--quite` is one edit from `--quiet`).
fn distance(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = best;
        }
    }
    d[a.len()][b.len()]
}

/// The candidate closest to `given`, if it is close: at most one edit in
/// three letters (one for short names).
fn closest<'c>(given: &str, candidates: &[&'c str]) -> Option<&'c str> {
    candidates
        .iter()
        .map(|&c| (distance(given, c), c))
        .filter(|&(d, c)| d > 0 && d <= (c.chars().count().max(given.chars().count()) / 3).max(1))
        .min_by_key(|&(d, _)| d)
        .map(|(_, c)| c)
}

/// Why parsing stopped without a `Config`.
#[derive(Debug)]
pub(crate) enum Stop {
    /// The version line, for stdout; exit 0.
    Version(String),
    /// Help, for stdout (styled for a terminal); exit 0.
    Help(clap::builder::StyledStr),
    /// Help or the version for stderr, exit 0 (xxhsum's names write them
    /// there).
    HelpOnStderr(String),
    /// A usage error, with the name it is worded for.
    Usage {
        /// What went wrong.
        error: UsageError,
        /// The program name messages start with.
        program: &'static str,
        /// Whose conventions the words and the status follow.
        flavour: Flavour,
    },
}

impl Stop {
    /// What to write and where: `Ok` for stdout (help, version; the run
    /// then ends with 0), `Err` for stderr with the exit status.
    pub(crate) fn into_output(self) -> Result<Vec<u8>, (Vec<u8>, u8)> {
        match self {
            Stop::Version(text) => Ok(text.into_bytes()),
            Stop::Help(styled) => Ok(if std::io::stdout().is_terminal() {
                styled.ansi().to_string()
            } else {
                styled.to_string()
            }
            .into_bytes()),
            Stop::HelpOnStderr(text) => Err((text.into_bytes(), 0)),
            Stop::Usage {
                error,
                program,
                flavour,
            } => Err((error.render(program, flavour), error.code(flavour))),
        }
    }

    /// The message, for tests.
    #[cfg(test)]
    pub(crate) fn text(&self) -> String {
        match self {
            Stop::Version(t) => t.clone(),
            Stop::Help(s) => s.to_string(),
            Stop::HelpOnStderr(t) => t.clone(),
            Stop::Usage {
                error,
                program,
                flavour,
            } => String::from_utf8_lossy(&error.render(program, *flavour)).into_owned(),
        }
    }

    /// The exit status it stands for.
    #[cfg(test)]
    pub(crate) fn code(&self) -> u8 {
        match self {
            Stop::Version(_) | Stop::Help(_) | Stop::HelpOnStderr(_) => 0,
            Stop::Usage { error, flavour, .. } => error.code(*flavour),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn close_names_are_suggested_far_ones_not() {
        let longs = ["check", "chunk", "quiet", "status", "stats", "tag", "jobs"];
        assert_eq!(closest("chunck", &longs), Some("chunk"));
        assert_eq!(closest("quite", &longs), Some("quiet"));
        assert_eq!(closest("job", &longs), Some("jobs"));
        assert_eq!(closest("bogus", &longs), None);
        assert_eq!(closest("raw", &longs), None);
        assert_eq!(closest("check", &longs), None, "an exact name is no typo");
    }

    #[test]
    fn each_name_words_and_exits_its_way() {
        let e = UsageError::Option(GetoptError::Unrecognized("--chunck=4K".into()));
        assert_eq!(
            String::from_utf8_lossy(&e.render("fastsum", Flavour::Fastsum)),
            "fastsum: unrecognized option '--chunck=4K'; did you mean '--chunk'?\n\
             Try 'fastsum --help' for more information.\n"
        );
        assert_eq!(e.code(Flavour::Fastsum), 2);
        assert_eq!(
            String::from_utf8_lossy(&e.render("md5sum", Flavour::Gnu)),
            "md5sum: unrecognized option '--chunck=4K'\n\
             Try 'md5sum --help' for more information.\n"
        );
        assert_eq!(e.code(Flavour::Gnu), 1);
        assert_eq!(
            String::from_utf8_lossy(&e.render("b3sum", Flavour::B3sum)),
            "error: unexpected argument '--chunck=4K' found\n\n\
             Usage: b3sum [OPTIONS] [FILE]...\n\n\
             For more information, try '--help'.\n"
        );
        assert_eq!(e.code(Flavour::B3sum), 2);
        assert_eq!(e.code(Flavour::Xxhsum), 1);
        let xxh = e.render("xxh32sum", Flavour::Xxhsum);
        let xxh = String::from_utf8_lossy(&xxh);
        assert!(
            xxh.starts_with("Wrong parameters\n\nxxh32sum (fastsum ")
                && xxh.contains("(default: 0)"),
            "{xxh}"
        );
        // (-H, which has no long name)
        let option = table(Flavour::Xxhsum)
            .into_iter()
            .find(|s| s.short == Some(b'H'))
            .unwrap();
        let big = UsageError::Value {
            option,
            value: "99999999999".into(),
            why: ValueError::XxhTooLarge,
        };
        assert_eq!(
            big.render("xxhsum", Flavour::Xxhsum),
            b"Error: numeric value too large \n"
        );
        let raw = UsageError::Conflict(Conflict::B3sumRawInputs);
        assert_eq!(raw.code(Flavour::B3sum), 1);
        assert_eq!(
            String::from_utf8_lossy(&raw.render("b3sum", Flavour::B3sum)),
            "Error: Only one filename can be provided when using --raw\n"
        );
    }
}
