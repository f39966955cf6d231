//! Help, the man page and the completions: one clap `Command` per name,
//! built from the option table ([`super::options::OPTIONS`]) and the
//! sections below. clap only renders: it never parses an argument.
//!
//! Layout: the common options, then check mode's, then the tuning ones
//! (`--help` only), then `--help`/`--version`; then the examples (in `-h`
//! too), then the long sections. Nothing before the `--version` line may
//! begin (after 2 to 6 blanks) with `-` unless it lists an option: GNU's
//! tests/misc/usage_vs_getopt.sh reads every such line as one.

use clap::builder::{PossibleValuesParser, StyledStr};
use clap::{Arg, ArgAction, Command};

use super::Flavour;
use super::options::{Action, Section, Spec, listed};

/// A titled block of text shown after the options: `--help` prints it as a
/// paragraph, and the man page (rendered by tests/man.rs) gives it a section
/// of its own, so the two never drift apart.
#[derive(Clone, Copy, Debug)]
pub struct HelpSection {
    /// The title, as `--help` writes it (the man page upper-cases it).
    pub title: &'static str,
    /// The text: one line for prose, one line per example when verbatim.
    pub text: &'static str,
    /// Keep the line layout (examples): the man page prints it unfilled.
    pub verbatim: bool,
    /// Shown by `-h` too (the others by `--help` only).
    pub short: bool,
}

/// The one-line summary.
const ABOUT: &str =
    "Print or check MD5, SHA-1/2/3, BLAKE2b/3, SM3, CRC-32 and xxHash checksums, fast";

/// The description before the options in `--help` (and the man page's
/// DESCRIPTION). No word in it starts with `-`: a wrapped line must never
/// begin with one (see the module's note).
const LONG_ABOUT: &str = "fastsum prints one checksum line per FILE, byte for byte as GNU's md5sum and sha*sum (and \
b2sum, cksum, b3sum, xxhsum) print it, so those tools can check what fastsum writes and fastsum can check what they write. \
MD5 is the default algorithm; run under one of those tools' names (a symlink), fastsum is that \
tool (see Multi-call).";

/// The sections after the options, in order (the man page's order too).
pub const HELP_SECTIONS: [HelpSection; 8] = [
    HelpSection {
        title: "Examples",
        text: "\
fastsum -a sha256 *.iso > SUMS        SHA-256 lines (tagged) into SUMS
fastsum -c SUMS                       verify them
fastsum -c --verify-with key.asc SUMS its signature (SUMS.asc) first
fastsum -r --exclude '*.tmp' photos   a tree, without its *.tmp files
fastsum -r photos --update SUMS       add what SUMS does not list yet
fastsum -c SUMS --audit photos        also: what is NEW, MISSING, MOVED",
        verbatim: true,
        short: true,
    },
    HelpSection {
        title: "How it works",
        text: "With -c, each FILE is a checksum file: every file it lists is hashed and reported \
               OK or FAILED (see Check files). With -r, directories are walked. To be fast, a \
               reader thread reads big blocks ahead while the hashing threads work, and -j \
               hashes up to N inputs at once, output staying in argument order. The tuning \
               options pick another way of reading, and --stats prints what a run cost: the \
               tool doubles as a test bench for I/O strategies. More \
               examples: fastsum -r -j 8 photos hashes 8 files at once; cat big.iso | \
               fastsum hashes standard input; find . -type f -print0 | xargs -0 fastsum -j4 \
               hashes a tree in find's order; fastsum -m sync --chunk 16 --stats big.iso shows what 16-byte \
               reads cost.",
        verbatim: false,
        short: false,
    },
    HelpSection {
        title: "Reading modes",
        text: "--chunk is the size of each read call in sync mode and of each hash update in \
               threaded mode; --readahead is the size of each block the reader thread reads in \
               threaded mode. Bytewise ignores both; sync ignores --readahead; mmap ignores both \
               for the files it maps (regular files of 64 KiB or more) and reads the others as \
               sync does. In threaded mode the inputs packed in one block (small files) are hashed \
               side by side when their algorithm is MD5 (SIMD lanes, FASTSUM_MD5_LANES), SHA-1, \
               SHA-224 or SHA-256 (several messages per loop, FASTSUM_SHA_LANES), unless --chunk \
               is below 4K: \
               then every input is hashed alone, --chunk bytes per update; a regular file of \
               1 MiB or more hashed with BLAKE3 alone or with several algorithms is mapped, \
               not read. SIZE is a number of bytes from 1 to 1G, read as GNU's --block-size \
               reads it: K, KiB or k is 1024 and KB is 1000, likewise M, MiB and MB, G, GiB \
               and GB; a suffix alone is one of it (16, 4K, 64KiB, 1MB, M).",
        verbatim: false,
        short: false,
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
Untagged lines use -a (or the name fastsum runs under). Without -a,
fastsum reads their algorithm from a comment above them (# SHA256),
the check file's name (SHA256SUMS, X.sha512) or a length only one
cryptographic hash has (MD5's, SHA-1's); a file holding only a digest
(X.tar.gz.sha256) checks X.tar.gz. Empty lines and lines starting with
# are skipped; a line may end in CRLF.",
        verbatim: true,
        short: false,
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
        short: false,
    },
    HelpSection {
        title: "Multi-call",
        text: "When run as md5sum, sha1sum, sha224sum, sha256sum, sha384sum, sha512sum, b2sum, \
               cksum, sum, b3sum, xxhsum, xxh32sum, xxh64sum, xxh128sum or xxh3sum (a symlink to \
               fastsum), fastsum defaults to that algorithm and acts as that tool: its options \
               (b2sum's -l; cksum's -a, -l, --untagged, --base64, --raw; sum's -r and -s; xxhsum's -H), its \
               messages and its exit statuses, plus the tuning options.",
        verbatim: false,
        short: false,
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
        short: false,
    },
    HelpSection {
        title: "Environment",
        text: "FASTSUM_MD5 picks the MD5 kernel: auto the fastest this CPU runs (also when \
               unset or empty), portable the plain Rust one, asm the x86-64 assembly one (x86-64 \
               builds only). FASTSUM_MD5_LANES picks the multi-lane path that hashes small MD5 \
               files side by side: auto (the widest this CPU runs), avx512 (32 lanes), avx512-16, \
               avx2 (16 lanes), avx2-8, scalar (the portable reference) or off. \
               FASTSUM_SHA_LANES picks how small SHA-1, SHA-224 and SHA-256 files are hashed side \
               by side: auto (the best this CPU runs), avx512-16 (16 lanes), sha-ni-4, sha-ni-2, \
               sha-ni-1 (messages per SHA-NI loop) or off (one at a time). Any other value, or a \
               path this CPU cannot run, is a usage error when that algorithm runs, and ignored \
               otherwise.",
        verbatim: false,
        short: false,
    },
];

/// The examples under another name than fastsum's (md5sum, b3sum, …):
/// that tool's own command lines (it has no `-a`).
fn tool_examples(program: &str) -> String {
    let lines = [
        ("*.iso > SUMS", "checksums into a file"),
        ("-c SUMS", "verify them"),
        (
            "-r -j 8 photos > SUMS",
            "every file under photos, 8 at once",
        ),
    ];
    let mut text: Vec<String> = lines
        .iter()
        .map(|(args, what)| format!("  {:36} {what}", format!("{program} {args}")))
        .collect();
    text.push(format!(
        "  {:36} standard input",
        format!("cat big.iso | {program}")
    ));
    format!("Examples:\n{}", text.join("\n"))
}

/// The text after the options: every section for `--help`, the short ones
/// and a pointer to the rest for `-h`. Prose is one line per paragraph:
/// clap wraps it to the terminal.
fn after_help(long: bool, flavour: Flavour, program: &str) -> String {
    let shown = HELP_SECTIONS.iter().filter(|s| long || s.short);
    let mut paragraphs: Vec<String> = shown
        .map(|s| {
            if s.title == "Examples" && flavour != Flavour::Fastsum {
                tool_examples(program)
            } else if s.verbatim {
                let lines: Vec<String> = s.text.lines().map(|l| format!("  {l}")).collect();
                format!("{}:\n{}", s.title, lines.join("\n"))
            } else {
                format!("{}: {}", s.title, s.text)
            }
        })
        .collect();
    if !long {
        paragraphs.push(
            "More with --help: tuning, check-file formats, exit statuses, environment.".to_string(),
        );
    }
    paragraphs.join("\n\n")
}

/// A string that lives as long as the program (help is built a few times
/// per process at most: a default value or two).
fn leak(s: String) -> &'static str {
    Box::leak(s.into_boxed_str())
}

/// One option as clap lists it under a name.
fn arg(spec: &'static Spec, flavour: Flavour) -> Arg {
    let help = match spec.action {
        // GNU's names have no -h
        Action::Help if flavour.is_gnu() => "Print help",
        _ => spec.help,
    };
    // an option with no long name (sum's -r) is known by its letter
    let mut arg = match (spec.long, spec.short) {
        ("", Some(c)) => Arg::new(leak(format!("-{}", char::from(c)))),
        (long, _) => Arg::new(long).long(long),
    }
    .help(help);
    // the long help is always set: clap_mangen writes no text for an option
    // hidden from `-h` (hide_short_help) that has only a short one
    arg = if spec.more.is_empty() {
        arg.long_help(help)
    } else {
        arg.long_help(format!("{}. {}", spec.help, spec.more))
    };
    if let Some(c) = spec.short_for(flavour) {
        arg = arg.short(char::from(c));
    }
    arg = match spec.action {
        Action::Flag(_) => arg.action(ArgAction::SetTrue),
        // `--jobs=<N>` as GNU writes it (usage_vs_getopt.sh cuts a help
        // line at `=`), b3sum's clap `--length <LEN>`; Append: any option
        // may be repeated, as with getopt (-a adds up, others' last wins)
        Action::Value(name, _) => arg
            .action(ArgAction::Append)
            .value_name(name)
            .require_equals(flavour != Flavour::B3sum),
        Action::Help => arg.action(ArgAction::Help),
        Action::Version => arg.action(ArgAction::Version),
    };
    if let Some(values) = spec.values {
        arg = arg.value_parser(PossibleValuesParser::new(values()));
    }
    if let Some(default) = spec.default {
        arg = arg.default_value(leak(default()));
    }
    if let Some(heading) = spec.section.heading() {
        arg = arg.help_heading(heading);
    }
    arg.hide_short_help(matches!(
        spec.section,
        Section::Signed | Section::Tuning | Section::Walking | Section::Stores | Section::Shards
    ))
}

/// The command a name's help shows: only the options that name has.
pub(crate) fn command_for(flavour: Flavour, program: &'static str) -> Command {
    let mut cmd = Command::new(program)
        .bin_name(program)
        .version(env!("CARGO_PKG_VERSION"))
        .about(ABOUT)
        .before_long_help(ABOUT)
        .long_about(LONG_ABOUT)
        .after_help(after_help(false, flavour, program))
        .after_long_help(after_help(true, flavour, program))
        .max_term_width(100)
        .disable_help_flag(true)
        .disable_version_flag(true)
        .arg(
            Arg::new("FILE")
                .value_name("FILE")
                .action(ArgAction::Append)
                .value_parser(clap::value_parser!(std::ffi::OsString))
                .help("Files to hash (with -c: checksum files); none or - reads stdin"),
        );
    for spec in listed(flavour) {
        cmd = cmd.arg(arg(spec, flavour));
    }
    cmd
}

/// fastsum's own command: the source of the man page and the completions.
#[cfg(any(test, feature = "internals"))]
pub fn command() -> Command {
    command_for(Flavour::Fastsum, "fastsum")
}

/// The command whose help a name prints: `-h`'s summary (`long` false)
/// or `--help`'s whole text.
pub(crate) fn help_command(flavour: Flavour, program: &'static str, long: bool) -> Command {
    // -h lists no values (-a's help names the default); --help all of them
    command_for(flavour, program).mut_args(|a| {
        let hide = !long && a.get_action().takes_values();
        a.hide_possible_values(hide)
    })
}

/// xxhsum 0.8.1's usage (its help: to stderr, for `-h` and `--help`, and
/// after `Wrong parameters`), the first line naming fastsum; `long` adds
/// the advanced options (`-h`, `--help`). Written as xxhsum writes it, not
/// from the option table: its words and its trailing blanks are its own.
pub(crate) fn xxhsum_usage(exename: &str, long: bool) -> String {
    let default = match exename {
        "xxh32sum" => 0,
        "xxh128sum" => 2,
        "xxh3sum" => 3,
        _ => 1,
    };
    let mut s = format!(
        "{exename} (fastsum {}), as xxhsum 0.8.1 \n\
         Print or verify checksums using fast non-cryptographic algorithm xxHash \n\n\
         Usage: {exename} [options] [files] \n\n\
         When no filename provided or when '-' is provided, uses stdin as input. \n\
         Options: \n  \
         -H#         algorithm selection: 0,1,2,3 or 32,64,128 (default: {default}) \n  \
         -c, --check read xxHash checksum from [files] and check them \n  \
         -h, --help  display a long help page about advanced options \n",
        env!("CARGO_PKG_VERSION")
    );
    if long {
        s.push_str(
            "Advanced :\n  \
             -V, --version        Display version information \n      \
             --tag            Produce BSD-style checksum lines \n      \
             --little-endian  Checksum values use little endian convention (default: big endian) \n\n\
             The following four options are useful only when verifying checksums (-c): \n  \
             -q, --quiet          Don't print OK for each successfully verified file \n      \
             --status         Don't output anything, status code shows success \n      \
             --strict         Exit non-zero for improperly formatted checksum lines \n      \
             --warn           Warn about improperly formatted checksum lines \n\n\
             fastsum's reading options are taken too: --mode, --jobs, --chunk, --readahead, \
             --pool, --stats, --progress, --no-progress (see fastsum --help). \n",
        );
    }
    s
}

/// `-V` under an xxhsum name: fastsum's version, for stderr as xxhsum
/// writes its own.
pub(crate) fn xxhsum_version(exename: &str) -> String {
    format!(
        "{exename} (fastsum {}), as xxhsum 0.8.1 \n",
        env!("CARGO_PKG_VERSION")
    )
}

/// The help a name prints: `-h`'s summary or `--help`'s whole text.
pub(crate) fn render(flavour: Flavour, program: &'static str, long: bool) -> StyledStr {
    let mut cmd = help_command(flavour, program, long);
    if long {
        cmd.render_long_help()
    } else {
        cmd.render_help()
    }
}
