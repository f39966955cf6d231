//! The command line, the only module that knows clap. One table declares
//! every option of every name ([`options::OPTIONS`]); from it come the
//! getopt model that parses argv as GNU's getopt_long would
//! ([`getopt`]), the clap `Command` that renders `--help`, the man page
//! and the completions ([`help`]), and the setters that fill [`Args`].
//! [`resolve`] then applies defaults, multi-call defaults and the option
//! combinations GNU rejects, giving a [`Config`]; every refusal is a typed
//! [`UsageError`] that words itself per name ([`usage`]).
//!
//! ```text
//! argv ─ getopt::scan(table(flavour)) ─ Spec::action per option ─> Args
//!      ─ resolve ─> Config          (or Stop: help, version, UsageError)
//! ```

use std::ffi::OsString;

use crate::algo::{Algorithm, Algorithms, Bits, MAX_ALGORITHMS, Sha3Size};
use crate::config::{
    AuditOptions, CheckOptions, Command, Config, Dialect, HashOptions, Progress, Signed, Tags,
    UpdateOptions, Verbosity, XofOutput,
};
use crate::read::{MAX_COUNT, MAX_IN_FLIGHT, Mode, Plan, default_jobs};
use crate::walk::{Exclude, Walk};

mod getopt;
mod help;
mod options;
mod style;
mod usage;
mod xxhsum;

#[cfg(feature = "internals")]
pub use help::{HELP_SECTIONS, HelpSection, command};
#[cfg(feature = "internals")]
pub use options::ModeArg;
pub(crate) use usage::Stop;

use getopt::{Abbrev, Met, Opt, Syntax};
use options::{Action, Args, Spec};
use usage::{Conflict, LengthWhy, UsageError};

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
    fn abbrev(self) -> Abbrev {
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
        let same = |t: &str| {
            if cfg!(any(target_os = "macos", windows)) {
                t.eq_ignore_ascii_case(name)
            } else {
                t == name
            }
        };
        if same("cksum") {
            return Some((Flavour::Cksum, Algorithm::Crc));
        }
        if same("sum") {
            return Some((Flavour::Sum, Algorithm::Bsd));
        }
        let xxh = [
            ("xxhsum", Algorithm::Xxh64),
            ("xxh32sum", Algorithm::Xxh32),
            ("xxh64sum", Algorithm::Xxh64),
            ("xxh128sum", Algorithm::Xxh128),
            ("xxh3sum", Algorithm::Xxh3),
        ];
        if let Some(&(_, algo)) = xxh.iter().find(|(t, _)| same(t)) {
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
        let base = argv0
            .and_then(|a| std::path::Path::new(a).file_name())
            .map(|b| b.to_string_lossy().into_owned())
            .unwrap_or_default();
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

/// Parse `argv` (`argv[0]` included) under the name it gives: the program
/// name messages use, and the resolved run or why there is none.
pub(crate) fn parse(argv: Vec<OsString>) -> (&'static str, Result<Config, Stop>) {
    let inv = Invocation::from_argv0(argv.first());
    let usage = |error| Stop::Usage {
        error,
        program: inv.program,
        flavour: inv.flavour(),
    };
    let config = parse_args(&inv, argv).and_then(|args| resolve(args, &inv).map_err(usage));
    (inv.program, config)
}

/// Scan `argv` with the name's options and apply each: [`Args`] as given,
/// or help, the version, or a usage error.
fn parse_args(inv: &Invocation, argv: Vec<OsString>) -> Result<Args, Stop> {
    let flavour = inv.flavour();
    let specs = options::table(flavour);
    let opts: Vec<Opt> = specs
        .iter()
        .map(|s| Opt {
            long: s.long,
            short: s.short_for(flavour),
            takes_value: s.value_name().is_some(),
            gnu: s.gnu_rank.is_some(),
            stops: matches!(s.action, Action::Help | Action::Version),
        })
        .collect();
    let syntax = match flavour {
        Flavour::Xxhsum => Syntax::Xxhsum,
        _ => Syntax::Getopt {
            abbrev: flavour.abbrev(),
            posix: std::env::var_os("POSIXLY_CORRECT").is_some(),
        },
    };
    let usage = |error| Stop::Usage {
        error,
        program: inv.program,
        flavour,
    };
    let scanned = getopt::scan(&opts, argv.into_iter().skip(1).collect(), syntax);
    // each option is acted on as it is met, in argument order, as GNU's
    // getopt loop and b3sum's clap do: the first bad one is reported, and
    // --help and --version end the run where they stand
    let mut args = Args::default();
    let mut seen = Vec::new();
    let count = scanned.options.len();
    // (b3sum: whether an option of its own was fully taken before an error)
    let mut resolved = None;
    for (i, met) in scanned.options.into_iter().enumerate() {
        let spec = specs[met.index];
        let b3sum_form = options::B3SUM_ONCE
            .iter()
            .find(|f| f.strip_prefix("--").and_then(|f| f.split(' ').next()) == Some(spec.long))
            .filter(|_| flavour == Flavour::B3sum);
        // b3sum's clap checks an option whose value is the next word (its
        // value, and whether it was given before) only when the next word
        // it knows comes: an unknown one right after is reported first
        // (`-l x -x`, `-l 4 -l 4 -x`); the option counts as met, unless
        // given before: clap has then dropped what it had of it
        if flavour == Flavour::B3sum
            && i + 1 == count
            && scanned.value_pending
            && scanned.error.is_some()
        {
            resolved = Some(!args.b3sum_used.is_empty());
            if let Some(&form) = b3sum_form {
                if args.b3sum_used.contains(&form) {
                    args.b3sum_used.retain(|u| *u != form);
                } else {
                    args.b3sum_used.push(form);
                }
            }
            break;
        }
        // b3sum's clap takes each of b3sum's own options once
        if let Some(&form) = b3sum_form {
            if seen.contains(&met.index) {
                return Err(usage(UsageError::Conflict(Conflict::B3sumTwice(spec))));
            }
            seen.push(met.index);
            args.b3sum_used.push(form);
        }
        act(spec, met, &mut args, inv)?;
    }
    if let Some(e) = scanned.error {
        if flavour == Flavour::B3sum {
            // clap's words name what was met before the error
            return Err(usage(UsageError::ClapOption {
                error: e,
                resolved: resolved.unwrap_or(!args.b3sum_used.is_empty()),
                used: args.b3sum_used,
                operands: !scanned.operands.is_empty(),
            }));
        }
        return Err(usage(UsageError::Option(e)));
    }
    args.files = scanned.operands;
    args.stdin_named = scanned.stdin_named;
    Ok(args)
}

/// Act on one option met: set what it sets in `args`, or stop with help,
/// the version, or a usage error (a bad value; `-l` as GNU 9.1 checks it).
fn act(spec: &'static Spec, met: Met, args: &mut Args, inv: &Invocation) -> Result<(), Stop> {
    let flavour = inv.flavour();
    let usage = |error| Stop::Usage {
        error,
        program: inv.program,
        flavour,
    };
    match (spec.action, met.value) {
        // xxhsum's are its own, on stderr (-h and --help alike)
        (Action::Help, _) if flavour == Flavour::Xxhsum => {
            return Err(Stop::HelpOnStderr(help::xxhsum_usage(inv.program, true)));
        }
        (Action::Version, _) if flavour == Flavour::Xxhsum => {
            return Err(Stop::HelpOnStderr(help::xxhsum_version(inv.program)));
        }
        (Action::Help, _) => {
            return Err(Stop::Help(help::render(flavour, inv.program, !met.short)));
        }
        (Action::Version, _) => {
            let version = env!("CARGO_PKG_VERSION");
            return Err(Stop::Version(match flavour {
                Flavour::Fastsum => format!("fastsum {version}\n"),
                _ => format!("{} (fastsum) {version}\n", inv.program),
            }));
        }
        (Action::Flag(set), _) => set(args),
        (Action::Value(name, set), Some(value)) => {
            if let Err(why) = set(args, &value) {
                return Err(usage(UsageError::Value {
                    option: spec,
                    value,
                    why,
                }));
            }
            // GNU 9.1's b2sum and cksum check -l BITS as they meet it
            // (a number, a multiple of 8), the rest once all is read;
            // GNU 9.8, whose -a sha2 and sha3 these are, checks it all
            // after the options, with their own words
            let newer = args.sha2
                || args
                    .algorithms
                    .iter()
                    .any(|a| a.takes_length() && !matches!(a, Algorithm::Blake2b(_)));
            if name == "BITS" && flavour.is_gnu() && !newer {
                let given = value.to_string_lossy().into_owned();
                bits_as_met(&given).map_err(|why| usage(UsageError::Length { given, why }))?;
            }
        }
        // (the scan gives every valued option its value)
        (Action::Value(..), None) => {}
    }
    Ok(())
}

/// What b3sum's clap refuses once the options are read, in its order: an
/// option `--check` conflicts with, then `--quiet` without `--check`
/// (waived when such an option is given). Its words quote the options in
/// the order given, and its usage line those it does not blame.
fn b3sum_validation(args: &Args) -> Option<Conflict> {
    let used = &args.b3sum_used;
    let against = |u: &&str| options::B3SUM_NOT_WITH_CHECK.contains(u);
    let files = if args.files.is_empty() {
        "[FILE]..."
    } else {
        "<FILE>..."
    };
    let usage = |keep: &dyn Fn(&&str) -> bool| -> String {
        let mut words: Vec<&str> = used.iter().copied().filter(|u| keep(u)).collect();
        words.push(files);
        words.join(" ")
    };
    if used.contains(&"--check") {
        let first = *used.iter().find(|u| **u == "--check" || against(u))?;
        if first != "--check" {
            return Some(Conflict::B3sumClap {
                first,
                with: vec!["--check"],
                usage: usage(&|u| *u != "--check"),
            });
        }
        let with: Vec<&'static str> = used.iter().copied().filter(|u| against(u)).collect();
        return (!with.is_empty()).then(|| Conflict::B3sumClap {
            first,
            with,
            usage: usage(&|u| !against(u)),
        });
    }
    if used.contains(&"--quiet") && !used.iter().any(against) {
        return Some(Conflict::B3sumNeedsCheck(format!(
            "--check {}",
            usage(&|_| true)
        )));
    }
    None
}

/// How `-c` reads tags under a name (GNU's tools differ), with the `-a`
/// given. fastsum with one `-a` reads them as that algorithm's GNU tool
/// does (`-a md5` as md5sum, `-a blake2b` as b2sum, `-a sm3` as cksum;
/// its own algorithms as md5sum), and without as cksum.
fn tags(flavour: Flavour, chosen: &[Algorithm]) -> Tags {
    match (flavour, chosen) {
        (Flavour::B2sum, _) | (Flavour::Cksum, [_]) => Tags::SkipOne,
        (Flavour::Cksum, _) => Tags::Cksum,
        (Flavour::Fastsum, [Algorithm::Blake2b(_) | Algorithm::Sm3 | Algorithm::Sha3(_)]) => {
            Tags::SkipOne
        }
        (Flavour::Fastsum, [_]) => Tags::Exact,
        (Flavour::Fastsum, _) => Tags::Any,
        // (b3sum's and xxhsum's check lines have parsers of their own)
        _ => Tags::Exact,
    }
}

/// cksum's `-a sha2 -l BITS`: the SHA-2 of that size.
fn sha2_of(bits: u64) -> Option<Algorithm> {
    match bits {
        224 => Some(Algorithm::Sha224),
        256 => Some(Algorithm::Sha256),
        384 => Some(Algorithm::Sha384),
        512 => Some(Algorithm::Sha512),
        _ => None,
    }
}

/// How the run reads, from the reading options.
fn plan(args: &Args) -> Plan {
    Plan {
        // b3sum's --no-mmap: "also disables multithreading" there, so
        // its reads are sync mode's (--chunk per call, one thread)
        mode: if args.no_mmap {
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
            .or(args.num_threads.filter(|&n| n > 0))
            .map_or_else(default_jobs, |n| n.min(MAX_COUNT)),
    }
}

/// The exclude patterns as a set; a usage error names what is wrong.
fn exclude(patterns: &[String]) -> Result<Exclude, UsageError> {
    Exclude::new(patterns.iter().map(String::as_str))
        .map_err(|e| UsageError::Conflict(Conflict::Patterns(e.reason)))
}

/// Resolve `args` under the invocation's name: defaults, multi-call
/// defaults, and the combinations GNU (or b3sum) refuses, in their order:
/// `-l`, the refusals of every command ([`refuse_any_command`]), the
/// command's own ([`check_command`], [`hash_command`]), then the reading
/// plan's and the algorithms' ([`algorithms`]).
fn resolve(mut args: Args, inv: &Invocation) -> Result<Config, UsageError> {
    if inv.flavour() == Flavour::Xxhsum {
        return xxhsum::resolve(args, inv);
    }
    let reading = plan(&args);
    over_parts(&mut args).map_err(UsageError::Conflict)?;
    // -l first, as GNU checks it right after the options
    let length = length(&args, inv)?;
    let xof = xof(&args);
    refuse_any_command(&args, inv, xof).map_err(UsageError::Conflict)?;
    let command = if args.check {
        check_command(&args, inv)?
    } else {
        hash_command(&args, inv, xof)?
    };
    if args.pool.saturating_mul(args.readahead.get()) > MAX_IN_FLIGHT {
        return Err(UsageError::Conflict(Conflict::TooMuchInFlight));
    }
    let algorithms = algorithms(&args, inv, length)?;
    let mut files = args.files;
    if files.is_empty() {
        files.push(OsString::from("-"));
    }
    Ok(Config {
        command,
        algorithms,
        plan: reading,
        progress: args.progress.unwrap_or(Progress::Auto),
        stats: args.stats,
        debug: args.debug,
        files,
    })
}

/// What every command refuses, before its own: b3sum's clap's refusals
/// (made before b3sum runs), cksum's CRC and sum's checksums beside what
/// they cannot go with, then GNU's digest encodings and `--tag` with text
/// mode.
fn refuse_any_command(
    args: &Args,
    inv: &Invocation,
    xof: Option<XofOutput>,
) -> Result<(), Conflict> {
    if inv.flavour() == Flavour::B3sum
        && let Some(c) = b3sum_validation(args)
    {
        return Err(c);
    }
    if let Some(out) = xof
        && out.raw
        && args.files.len() > 1
    {
        return Err(Conflict::B3sumRawInputs);
    }
    // cksum's CRC and sum's checksums print their own lines: never checked
    // (as GNU cksum), never beside another algorithm or in a manifest
    if let Some(&legacy) = args.algorithms.iter().find(|a| a.legacy().is_some()) {
        if args.check {
            return Err(Conflict::CheckLegacy(legacy == Algorithm::Crc32b));
        }
        let with = [
            (args.algorithms.len() > 1).then_some("other algorithms"),
            args.update.as_ref().map(|_| "--update"),
            args.tree_digest.then_some("--tree-digest"),
        ];
        if let Some(what) = with.into_iter().flatten().next() {
            return Err(Conflict::LegacyWith(legacy, what));
        }
    }
    if args.base64 && args.raw_digest {
        return Err(Conflict::Base64WithRaw);
    }
    if args.raw_digest && !args.check && args.files.len() > 1 {
        return Err(Conflict::RawWithFiles);
    }
    // in GNU's order: --tag with text mode first, then the check-mode ones
    if args.tag && args.binary == Some(false) {
        return Err(Conflict::TagWithText);
    }
    Ok(())
}

/// `-c`: the check-mode refusals in GNU's order, then `Check`, or `Audit`
/// with `--audit DIR`.
fn check_command(args: &Args, inv: &Invocation) -> Result<Command, UsageError> {
    let refuse = |c| Err(UsageError::Conflict(c));
    let cksum = inv.flavour() == Flavour::Cksum;
    if args.zero {
        return refuse(Conflict::ZeroWhenChecking);
    }
    if args.signature.is_some() && args.verify_with.is_none() {
        return refuse(Conflict::SignatureWithoutKey);
    }
    if args.tag && !cksum {
        return refuse(Conflict::TagWhenChecking);
    }
    // (cksum has no -b/-t, and its --tag with -c is no refusal there)
    if args.binary.is_some() && !cksum {
        return refuse(Conflict::BinaryOrTextWhenChecking);
    }
    let audit = !args.audit.is_empty();
    let walk_flags = [
        (!args.exclude.is_empty()).then_some("--exclude"),
        args.max_depth.map(|_| "--max-depth"),
        args.one_file_system.then_some("--one-file-system"),
    ];
    let hash_only = walk_flags.into_iter().filter(|_| !audit).chain([
        args.update.as_ref().map(|_| "--update"),
        args.prune.then_some("--prune"),
        args.tree_digest.then_some("--tree-digest"),
    ]);
    if let Some(flag) = hash_only.flatten().next() {
        return refuse(Conflict::NotWhenChecking(flag));
    }
    if audit && args.ignore_missing {
        return refuse(Conflict::AuditWith("--ignore-missing"));
    }
    let check = CheckOptions {
        verbosity: args.verbosity.unwrap_or(Verbosity::Normal),
        strict: args.strict,
        ignore_missing: args.ignore_missing,
        // (cksum's default, the CRC, chooses nothing: its -c takes any tag)
        algorithm_chosen: !args.algorithms.is_empty()
            || (inv.default_algorithm.is_some() && !cksum),
        dialect: if inv.flavour() == Flavour::B3sum {
            Dialect::B3sum
        } else {
            Dialect::Gnu
        },
        tags: tags(inv.flavour(), &args.algorithms),
        style: style::check(args, inv),
        // (fastsum reads the lines its --base64 writes)
        base64: cksum || inv.flavour() == Flavour::Fastsum,
        own_rules: inv.flavour() == Flavour::Fastsum,
        signed: args.verify_with.as_ref().map(|key| Signed {
            key: key.into(),
            signature: args.signature.as_ref().map(Into::into),
        }),
    };
    if !audit {
        return Ok(Command::Check(check));
    }
    Ok(Command::Audit(AuditOptions {
        check,
        dirs: args.audit.clone(),
        walk: Walk {
            recursive: true,
            exclude: exclude(&args.exclude)?,
            max_depth: args.max_depth,
            one_file_system: args.one_file_system,
        },
    }))
}

/// Without `-c`: the refusals of hashing in GNU's order (and fastsum's
/// own: the walk's options, `--json`, `--tree-digest`), then `Hash`, or
/// `Update` with `--update SUMS`.
fn hash_command(
    args: &Args,
    inv: &Invocation,
    xof: Option<XofOutput>,
) -> Result<Command, UsageError> {
    let b3sum = inv.flavour() == Flavour::B3sum;
    refuse_not_hashing(args, inv).map_err(UsageError::Conflict)?;
    let exclude = exclude(&args.exclude)?;
    // --update takes --quiet and --status: they silence what it says;
    // b3sum's clap waives --quiet's need of --check when an option that
    // --check conflicts with is given (b3sum --quiet --tag f)
    let waived = b3sum && (args.tag || xof.is_some());
    let verbosity = args
        .verbosity
        .filter(|_| !waived)
        .filter(|v| args.update.is_none() || !matches!(v, Verbosity::Quiet | Verbosity::Status))
        .map(|v| match v {
            Verbosity::Status => "--status",
            Verbosity::Warn => "--warn",
            _ => "--quiet",
        });
    let only_check = [
        args.ignore_missing.then_some("--ignore-missing"),
        verbosity,
        args.strict.then_some("--strict"),
    ];
    if let Some(flag) = only_check.into_iter().flatten().next() {
        return Err(UsageError::Conflict(Conflict::OnlyWhenChecking(flag)));
    }
    let walk = Walk {
        recursive: args.recursive,
        exclude,
        max_depth: args.max_depth,
        one_file_system: args.one_file_system,
    };
    let hash = HashOptions {
        style: style::hash(args, inv, xof),
        walk,
        tree_digest: args.tree_digest,
    };
    if args.tree_digest {
        refuse_tree_digest(args).map_err(UsageError::Conflict)?;
    }
    match &args.update {
        None if args.prune => Err(UsageError::Conflict(Conflict::OnlyWhenUpdating("--prune"))),
        None => Ok(Command::Hash(hash)),
        Some(sums) => update_command(args, hash, sums),
    }
}

/// What hashing refuses before its options are read: the walk's options
/// without `-r`, `--audit` without `-c`, `--json` beside another format.
fn refuse_not_hashing(args: &Args, inv: &Invocation) -> Result<(), Conflict> {
    let walk_only = [
        (!args.exclude.is_empty()).then_some("--exclude"),
        args.max_depth.map(|_| "--max-depth"),
        args.one_file_system.then_some("--one-file-system"),
    ];
    if let Some(flag) = walk_only.into_iter().flatten().next()
        && !args.recursive
    {
        return Err(Conflict::OnlyWhenRecursive(flag));
    }
    let check_only = [
        (!args.audit.is_empty()).then_some("--audit"),
        args.verify_with.as_ref().map(|_| "--verify-with"),
        args.signature.as_ref().map(|_| "--signature"),
    ];
    if let Some(flag) = check_only.into_iter().flatten().next() {
        return Err(Conflict::OnlyWhenChecking(flag));
    }
    let json_with = [
        // (fastsum's --json writes its digests in base64 then)
        (args.base64 && inv.flavour() != Flavour::Fastsum).then_some("--base64"),
        args.raw_digest.then_some("--raw"),
        args.tag.then_some("--tag"),
        args.zero.then_some("--zero"),
        args.binary.map(|b| if b { "--binary" } else { "--text" }),
        args.tree_digest.then_some("--tree-digest"),
        args.update.as_ref().map(|_| "--update"),
    ];
    if let Some(flag) = json_with.into_iter().flatten().next()
        && args.json
    {
        return Err(Conflict::JsonWith(flag));
    }
    Ok(())
}

/// b3sum's XOF output (`-l`, `--raw`, `--no-names`), when asked for.
fn xof(args: &Args) -> Option<XofOutput> {
    (args.raw || args.no_names || args.length.is_some()).then(|| XofOutput {
        length: args.length.unwrap_or(blake3::OUT_LEN as u64),
        raw: args.raw,
        no_names: args.no_names,
    })
}

/// `--tree-digest`: only with `-r`, and one hex digest per operand.
fn refuse_tree_digest(args: &Args) -> Result<(), Conflict> {
    if !args.recursive {
        return Err(Conflict::OnlyWhenRecursive("--tree-digest"));
    }
    let with = [
        args.update.as_ref().map(|_| "--update"),
        (args.algorithms.len() > 1).then_some("several algorithms"),
        args.base64.then_some("--base64"),
        args.raw_digest.then_some("--raw"),
    ];
    match with.into_iter().flatten().next() {
        Some(what) => Err(Conflict::TreeDigestWith(what)),
        None => Ok(()),
    }
}

/// `--update SUMS`: a manifest's lines, hex, one algorithm, of files.
fn update_command(args: &Args, hash: HashOptions, sums: &OsString) -> Result<Command, UsageError> {
    let refuse = |c| Err(UsageError::Conflict(c));
    if args.zero {
        return refuse(Conflict::UpdateWith("--zero"));
    }
    if args.base64 || args.raw_digest {
        return refuse(Conflict::UpdateWith(if args.base64 {
            "--base64"
        } else {
            "--raw"
        }));
    }
    if args.algorithms.len() > 1 {
        return refuse(Conflict::UpdateWith("several algorithms"));
    }
    // a manifest lists files: a line for standard input would make
    // `md5sum -c` read its own stdin
    if args.files.is_empty() || args.files.iter().any(|f| f == "-") {
        return refuse(Conflict::UpdateWithoutFiles);
    }
    Ok(Command::Update(UpdateOptions {
        hash,
        sums: sums.into(),
        prune: args.prune,
        algorithm_chosen: !args.algorithms.is_empty(),
        quiet: matches!(args.verbosity, Some(Verbosity::Quiet | Verbosity::Status)),
    }))
}

/// The algorithms of the run: `-a` sized by `-l` (cksum's `-a sha2 -l`
/// the SHA-2 of that size, and any without `-l`), or the name's default;
/// then what they refuse: an algorithm twice, several in untagged lines,
/// a kernel variable that names no kernel.
fn algorithms(
    args: &Args,
    inv: &Invocation,
    length: Option<u64>,
) -> Result<Algorithms, UsageError> {
    let refuse = |c| Err(UsageError::Conflict(c));
    let sized = args.algorithms.iter().map(|&a| match (args.sha2, length) {
        (true, Some(bits)) => sha2_of(bits).unwrap_or(a),
        _ => length
            .and_then(|bits| a.with_length(bits).ok())
            .unwrap_or(a),
    });
    // -c -a sha2 without -l: a line of any SHA-2 size
    let sha2_any = [
        Algorithm::Sha224,
        Algorithm::Sha256,
        Algorithm::Sha384,
        Algorithm::Sha512,
    ];
    if args.algorithms.len() > MAX_ALGORITHMS {
        return Err(UsageError::Conflict(Conflict::TooManyAlgorithms));
    }
    let algorithms = match Algorithms::new(sized) {
        Ok(_) if args.sha2 && length.is_none() => {
            Algorithms::new(sha2_any).unwrap_or(Algorithms::one(Algorithm::Sha256))
        }
        Ok(set) => set,
        Err(Some(twice)) => return refuse(Conflict::AlgorithmTwice(twice)),
        Err(None) => {
            let default = inv.default_algorithm.unwrap_or(Algorithm::Md5);
            Algorithms::one(
                length
                    .and_then(|bits| default.with_length(bits).ok())
                    .unwrap_or(default),
            )
        }
    };
    // Several algorithms print tagged lines: GNU's untagged layout would not
    // say which hex is which.
    if algorithms.len() > 1 && !args.check && !args.tag && args.binary.is_some() {
        return refuse(Conflict::SeveralUntagged);
    }
    kernels_env(&algorithms)?;
    Ok(algorithms)
}

/// The kernel variables of the algorithms that run, checked: a
/// FASTSUM_MD5 or FASTSUM_SHA_LANES that names no kernel (or no path the
/// CPU runs) is a usage error.
fn kernels_env(algorithms: &Algorithms) -> Result<(), UsageError> {
    // A FASTSUM_MD5 that names no kernel is a usage error when MD5 runs.
    if algorithms.contains(Algorithm::Md5) {
        crate::algo::md5::Kernel::check_env()
            .map_err(|e| UsageError::Environment(e.to_string()))?;
        crate::algo::md5::lanes::Path::check_env()
            .map_err(|e| UsageError::Environment(e.to_string()))?;
    }
    // A FASTSUM_SHA_LANES that names no path the CPU runs, when SHA-1 or
    // SHA-224/256 runs.
    if [Algorithm::Sha1, Algorithm::Sha224, Algorithm::Sha256]
        .into_iter()
        .any(|a| algorithms.contains(a))
    {
        crate::algo::sha::lanes::Path::check_env()
            .map_err(|e| UsageError::Environment(e.to_string()))?;
    }
    Ok(())
}

/// `--part-size`: each algorithm named (md5 if none) over each part size,
/// as S3 composes it (the ones named with a part size, `md5@8M`, keep it);
/// refused for an algorithm S3 does not compose, and with what has no
/// digest over parts (`-c`: a line says its part size; `--tree-digest`,
/// cksum's `--raw`).
fn over_parts(args: &mut Args) -> Result<(), Conflict> {
    if !args.part_sizes.is_empty() {
        compose(args)?;
    }
    if args.algorithms.iter().any(|a| a.parts().is_some()) {
        let with = [
            args.check
                .then_some(Conflict::NotWhenChecking("--part-size")),
            args.tree_digest
                .then_some(Conflict::TreeDigestWith("a part size")),
            args.raw_digest.then_some(Conflict::PartsWith("--raw")),
        ];
        if let Some(c) = with.into_iter().flatten().next() {
            return Err(c);
        }
    }
    Ok(())
}

/// Each algorithm named (md5 if none) over each of `--part-size`'s sizes.
fn compose(args: &mut Args) -> Result<(), Conflict> {
    let named = match std::mem::take(&mut args.algorithms) {
        none if none.is_empty() => vec![Algorithm::Md5],
        named => named,
    };
    for algo in named {
        if algo.parts().is_some() {
            args.algorithms.push(algo);
            continue;
        }
        for &size in &args.part_sizes {
            let over = options::composed(algo, size).map_err(|_| Conflict::NotComposed(algo))?;
            args.algorithms.push(over);
        }
    }
    Ok(())
}

/// `-l BITS` (fastsum, b2sum) checked against the algorithms it sizes, in
/// GNU's order (b2sum 9.1: a number, a multiple of 8, at most 512; cksum
/// 9.8 for SHA-3: one of its sizes, and `-a sha3` needs one unless
/// checking). The length to apply, `None` for each algorithm's default
/// (no `-l`, or `-l 0` for BLAKE2b).
fn length(args: &Args, inv: &Invocation) -> Result<Option<u64>, UsageError> {
    let default = inv.default_algorithm.unwrap_or(Algorithm::Md5);
    let chosen: Vec<Algorithm> = if args.algorithms.is_empty() {
        vec![default]
    } else {
        args.algorithms.clone()
    };
    let has = |a: Algorithm| chosen.iter().any(|c| c.same_family(a));
    let blake2b = has(Algorithm::Blake2b(Bits::MAX));
    // cksum's -a sha2 is sized as SHA-3 is
    let sha3 = has(Algorithm::Sha3(Sha3Size::S256)) || args.sha2;
    let Some(given) = &args.bits else {
        if sha3 && !args.check {
            return Err(UsageError::Conflict(Conflict::NeedsLength(if args.sha2 {
                "sha2"
            } else {
                "sha3"
            })));
        }
        return Ok(None);
    };
    let refuse = |why| {
        Err(UsageError::Length {
            given: given.clone(),
            why,
        })
    };
    let bits = match gnu_number(given) {
        Ok(n) => n,
        Err(why) => return refuse(why),
    };
    // GNU cksum refuses a length for another algorithm only when it is
    // not 0 (0 is every algorithm's own)
    if !blake2b && !sha3 && bits == 0 && inv.flavour() == Flavour::Cksum {
        return Ok(None);
    }
    if !blake2b && !sha3 {
        return Err(UsageError::Conflict(match inv.flavour() {
            Flavour::Cksum => Conflict::LengthOnlyBlake2b,
            _ => Conflict::LengthUnsupported,
        }));
    }
    if blake2b && !bits.is_multiple_of(8) {
        return refuse(LengthWhy::NotBytes);
    }
    if blake2b && bits > 512 {
        return refuse(LengthWhy::TooLong);
    }
    if sha3 && Sha3Size::new(bits).is_none() {
        return refuse(if args.sha2 {
            LengthWhy::NoSha2Size
        } else {
            LengthWhy::NoSha3Size
        });
    }
    Ok((bits != 0).then_some(bits))
}

/// What GNU's b2sum and cksum check of `-l BITS` when they meet it: a
/// number, and a multiple of 8 (`-l 7 -l 512` fails at the 7).
fn bits_as_met(given: &str) -> Result<(), LengthWhy> {
    if gnu_number(given)?.is_multiple_of(8) {
        Ok(())
    } else {
        Err(LengthWhy::NotBytes)
    }
}

/// A number as GNU's `xdectoumax` reads it: blanks, an optional `+`, then
/// decimal digits to the end.
fn gnu_number(text: &str) -> Result<u64, LengthWhy> {
    let t = text.trim_start_matches([' ', '\t', '\n', '\x0b', '\x0c', '\r']);
    let t = t.strip_prefix('+').unwrap_or(t);
    if t.is_empty() || !t.bytes().all(|b| b.is_ascii_digit()) {
        return Err(LengthWhy::NotANumber);
    }
    t.parse().map_err(|_| LengthWhy::Overflow)
}

#[cfg(test)]
mod tests {
    use super::*;

    const NAMES: [(Flavour, &str); 3] = [
        (Flavour::Fastsum, "fastsum"),
        (Flavour::Gnu, "md5sum"),
        (Flavour::B3sum, "b3sum"),
    ];

    #[test]
    fn each_names_clap_command_is_valid() {
        for (flavour, name) in NAMES {
            for long in [false, true] {
                help::help_command(flavour, name, long).debug_assert();
            }
        }
    }

    /// Parse `args` under the name `name` (no resolve).
    fn run(name: &str, args: &[&str]) -> Result<Args, Stop> {
        let inv = Invocation::from_argv0(Some(&OsString::from(name)));
        let mut argv = vec![OsString::from(name)];
        argv.extend(args.iter().map(OsString::from));
        parse_args(&inv, argv)
    }

    fn args(list: &[&str]) -> Result<Args, Stop> {
        run("fastsum", list)
    }

    /// The run `argv` resolves to, or the text of why it does not.
    fn config(argv: &[&str]) -> Result<Config, Stop> {
        parse(argv.iter().map(OsString::from).collect()).1
    }

    #[test]
    fn sizes_counts_and_their_bad_values() {
        let a = args(&["--chunk", "16", "--readahead", "1M", "f"]).unwrap();
        assert_eq!((a.chunk.get(), a.readahead.get()), (16, 1 << 20));
        let a = args(&["--chunk", "64KB", "--readahead=64KiB"]).unwrap();
        assert_eq!((a.chunk.get(), a.readahead.get()), (64_000, 65_536));
        for bad in ["0", "abc", "-5", "2G", "12x"] {
            let e = args(&["--chunk", bad]).unwrap_err();
            assert_eq!(e.code(), 2, "{bad}");
            let want = format!("fastsum: invalid value '{bad}' for '--chunk <SIZE>': ");
            assert!(e.text().starts_with(&want), "{}", e.text());
            assert!(e.text().contains("a SIZE is 1 to 1G bytes"), "{}", e.text());
        }
        assert!(args(&["-j", "0"]).is_err());
        assert_eq!(args(&["-j", "1024", "--pool", "1024"]).unwrap().pool, 1024);
        for flag in ["-j", "--pool"] {
            for bad in ["0", "1025", "100000", "-1", "x"] {
                let e = args(&[flag, bad]).unwrap_err();
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

    /// Under fastsum's name, unknown options and bad values alike: GNU's
    /// frame, exit 2, and a suggestion when a name is close.
    #[test]
    fn fastsum_suggests_close_names() {
        for (argv, want) in [
            (
                &["--chunck", "4K"][..],
                "fastsum: unrecognized option '--chunck'; did you mean '--chunk'?\n",
            ),
            (
                &["--quite", "-c"],
                "fastsum: unrecognized option '--quite'; did you mean '--quiet'?\n",
            ),
            (
                &["-m", "snyc"],
                "fastsum: invalid value 'snyc' for '--mode <MODE>': 'snyc' is no mode \
                 (modes: threaded, sync, bytewise, mmap); did you mean 'sync'?\n",
            ),
            (
                &["-a", "sha265"],
                "fastsum: invalid value 'sha265' for '--algorithm <ALGO>': 'sha265' is no \
                 algorithm (algorithms: md5, sha1, sha224, sha256, sha384, sha512, blake3, \
                 blake2b, sm3, sha3, crc32b, xxh32, xxh64, xxh3, xxh128, crc, bsd, sysv, \
                 crc32c, crc64nvme); did you mean 'sha256'?\n",
            ),
            (&["--bogus"], "fastsum: unrecognized option '--bogus'\n"),
        ] {
            let e = args(argv).unwrap_err();
            assert_eq!(e.code(), 2);
            assert_eq!(
                e.text(),
                format!("{want}Try 'fastsum --help' for more information.\n")
            );
        }
        // GNU's names never suggest: their words are GNU's own
        let e = run("md5sum", &["--chunck", "4K"]).unwrap_err();
        assert_eq!(
            e.text(),
            "md5sum: unrecognized option '--chunck'\nTry 'md5sum --help' for more information.\n"
        );
    }

    #[test]
    fn multicall_names() {
        let inv = Invocation::from_argv0(Some(&OsString::from("/usr/bin/sha256sum")));
        assert_eq!(inv.program, "sha256sum");
        assert_eq!(inv.default_algorithm, Some(Algorithm::Sha256));
        assert_eq!(inv.flavour(), Flavour::Gnu);
        let b3 = Invocation::from_argv0(Some(&OsString::from("b3sum")));
        assert_eq!(b3.flavour(), Flavour::B3sum);
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

    fn long_help(flavour: Flavour, name: &'static str, width: usize) -> String {
        help::command_for(flavour, name)
            .term_width(width)
            .max_term_width(width)
            .render_long_help()
            .to_string()
    }

    /// The mmap threshold quoted in --help is the one in force.
    #[test]
    fn help_quotes_the_mmap_threshold() {
        // unwrapped, so a line break cannot split the phrase
        let help = long_help(Flavour::Fastsum, "fastsum", 0);
        let quoted = format!("{} KiB or more", crate::read::route::MMAP_MIN / 1024);
        assert_eq!(help.matches(&quoted).count(), 2, "{help}");
    }

    /// The defaults --help shows are the ones in force.
    #[test]
    fn help_shows_the_defaults() {
        let help = command().render_long_help().to_string();
        for shown in [
            "[default: 64K]",
            "[default: 4M]",
            "[default: 4]",
            "[default: threaded]",
        ] {
            assert!(help.contains(shown), "{shown} in {help}");
        }
    }

    /// The limits quoted in --help (and so the man page) are the ones in force.
    #[test]
    fn help_quotes_the_limits() {
        let help = long_help(Flavour::Fastsum, "fastsum", 0);
        let count = format!("N is 1 to {MAX_COUNT}");
        assert_eq!(help.matches(&count).count(), 2, "-j and --pool: {help}");
        let in_flight = format!("--pool × --readahead at most {}G", MAX_IN_FLIGHT >> 30);
        assert!(help.contains(&in_flight), "{help}");
        let size = format!("from 1 to {}", crate::size::Size::MAX);
        assert!(help.contains(&size), "{help}");
    }

    /// `-h` is a screenful: the common options, check mode's, examples;
    /// `--help` has the tuning options too, after the common ones, and the
    /// examples right after the options.
    #[test]
    fn short_help_is_a_screenful_with_examples() {
        for (flavour, name) in [(Flavour::Fastsum, "fastsum"), (Flavour::B3sum, "b3sum")] {
            let short = help::help_command(flavour, name, false)
                .term_width(80)
                .render_help()
                .to_string();
            let lines = short.lines().count();
            assert!(
                lines <= 40,
                "{name} -h at 80 columns: {lines} lines\n{short}"
            );
            assert!(short.contains(&format!("Examples:\n  {name} ")), "{short}");
            assert!(
                short.contains("--jobs") && !short.contains("--chunk"),
                "{short}"
            );
        }
        let long = long_help(Flavour::Fastsum, "fastsum", 100);
        let at = |s: &str| long.find(s).unwrap_or_else(|| panic!("{s} in {long}"));
        assert!(at("--check") < at("--chunk") && at("--jobs") < at("--mode"));
        assert!(at("--version") < at("Examples:") && at("Examples:") < at("Reading modes:"));
    }

    /// What GNU's tests/misc/usage_vs_getopt.sh takes for options in a
    /// `--help`: every line up to the first that names `--version`, which
    /// begins with `-` or with 2 to 6 blanks and `-`, cut at two blanks,
    /// `=` or `[`, split at `, ` (its sed, in Rust).
    fn options_in_help(help: &str) -> Vec<String> {
        let mut found = Vec::new();
        for line in help.lines() {
            if line.contains("--version") {
                // sed's `q` prints nothing more, not even this line (the
                // script skips --help and --version themselves)
                break;
            }
            let blanks = line.len() - line.trim_start_matches(' ').len();
            let rest = &line[blanks..];
            if !rest.starts_with('-') || !(blanks == 0 || (2..=6).contains(&blanks)) {
                continue;
            }
            let rest = rest.split("  ").next().unwrap_or_default();
            let rest = rest.split(['=', '[']).next().unwrap_or_default();
            found.extend(rest.split(", ").map(str::to_string));
        }
        found
    }

    /// Under every name, at any width, each option usage_vs_getopt.sh finds
    /// in `--help` is one the name has, written alone.
    #[test]
    fn help_survives_gnus_usage_vs_getopt() {
        for (flavour, name) in NAMES {
            let table = options::table(flavour);
            for width in [0, 40, 60, 80, 100] {
                let help = long_help(flavour, name, width);
                let opts = options_in_help(&help);
                assert!(opts.len() > 10, "{name} at {width}: {opts:?}\n{help}");
                for opt in opts {
                    let known = table.iter().any(|s| {
                        opt == format!("--{}", s.long)
                            || s.short_for(flavour)
                                .is_some_and(|c| opt == format!("-{}", c as char))
                    });
                    // b3sum writes `--length <LEN>` as its clap does (the
                    // script is GNU's, not b3sum's)
                    let b3sum_value = flavour == Flavour::B3sum && opt.contains(" <");
                    assert!(
                        known || b3sum_value,
                        "{name} at {width}: {opt:?} in\n{help}"
                    );
                }
            }
        }
    }

    #[test]
    fn last_of_quiet_status_warn_wins() {
        let a = args(&["-c", "--status", "--warn"]).unwrap();
        assert_eq!(a.verbosity, Some(Verbosity::Warn));
        let a = args(&["-c", "--warn", "--quiet"]).unwrap();
        assert_eq!(a.verbosity, Some(Verbosity::Quiet));
    }

    #[test]
    fn gnu_rejections() {
        assert!(config(&["fastsum", "-c", "--tag"]).is_err());
        assert!(config(&["fastsum", "-c", "-z"]).is_err());
        assert!(config(&["fastsum", "-c", "-b"]).is_err());
        assert!(config(&["fastsum", "--tag", "-t"]).is_err());
        assert!(config(&["fastsum", "-t", "--tag"]).is_ok());
        // GNU's order: --tag with --text before -c's rejections
        let e = config(&["md5sum", "-c", "-z", "--tag", "-t"])
            .unwrap_err()
            .text();
        assert!(e.contains("--tag does not support --text mode"), "{e}");
        let e = config(&["md5sum", "-c", "--tag", "-z"]).unwrap_err().text();
        assert!(
            e.contains("the --zero option is not supported when verifying checksums"),
            "{e}"
        );
        let e = config(&["fastsum", "--strict"]).unwrap_err().text();
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
        // one job per CPU this process may run on (its affinity), as nproc counts
        let nproc = std::process::Command::new("nproc").output().unwrap();
        let nproc: usize = String::from_utf8_lossy(&nproc.stdout)
            .trim()
            .parse()
            .unwrap();
        assert_eq!(c.plan.jobs, nproc.min(crate::read::MAX_COUNT));
        assert_eq!(c.progress, Progress::Auto);
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
        assert_eq!(opts.style.names, crate::config::Names::LossyEscaped);
    }

    #[test]
    fn gnu_names_refuse_a_and_h() {
        let e = run("md5sum", &["-a", "sha256", "f"]).unwrap_err();
        assert_eq!(
            e.text(),
            "md5sum: invalid option -- 'a'\nTry 'md5sum --help' for more information.\n"
        );
        assert_eq!(e.code(), 1);
        let e = run("sha1sum", &["--algorithm=md5"]).unwrap_err();
        assert!(
            e.text()
                .starts_with("sha1sum: unrecognized option '--algorithm=md5'")
        );
        assert_eq!(run("md5sum", &["-h"]).unwrap_err().code(), 1);
        let e = run("b3sum", &["-a", "md5"]).unwrap_err();
        assert!(
            e.text()
                .starts_with("error: unexpected argument '-a' found")
        );
        assert_eq!(e.code(), 2);
    }

    #[test]
    fn tag_binary_text_fold_as_gnu() {
        let a = run("md5sum", &["-t", "--tag", "f"]).unwrap();
        assert!(a.tag && a.binary == Some(true));
        let a = run("md5sum", &["--tag", "-t", "f"]).unwrap();
        assert!(a.tag && a.binary == Some(false));
        let a = run("md5sum", &["-b", "-t", "-b"]).unwrap();
        assert!(a.binary == Some(true) && !a.tag);
    }

    #[test]
    fn repeated_options_last_wins_but_a_adds_up() {
        let a = run(
            "md5sum",
            &["-cc", "--quiet", "--quiet", "-j2", "-j3", "--ch", "f"],
        )
        .unwrap();
        assert!(a.check && a.verbosity == Some(Verbosity::Quiet));
        assert_eq!(a.jobs, Some(3));
        let a = run(
            "fastsum",
            &["-m", "sync", "--mode=mmap", "-a", "SHA256", "-a", "Blake3"],
        )
        .unwrap();
        assert_eq!(a.mode, ModeArg::Mmap);
        assert_eq!(a.algorithms, vec![Algorithm::Sha256, Algorithm::Blake3]);
        assert_eq!(a.files, Vec::<OsString>::new());
        let a = args(&["--progress", "--no-progress"]).unwrap();
        assert_eq!(a.progress, Some(Progress::Never));
    }

    #[test]
    fn b3sum_options_under_the_b3sum_name_only() {
        let a = run(
            "b3sum",
            &["-l5", "--no-names", "--raw", "--num-threads=3", "f"],
        )
        .unwrap();
        assert_eq!(a.length, Some(5));
        assert!(a.no_names && a.raw);
        assert_eq!(a.num_threads, Some(3));
        let e = run("b3sum", &["--length", "x"]).unwrap_err();
        assert_eq!(e.code(), 2);
        assert_eq!(
            e.text(),
            "error: invalid value 'x' for '--length <LEN>': invalid digit found in string\n\n\
             For more information, try '--help'.\n"
        );
        let e = run("fastsum", &["--raw"]).unwrap_err();
        assert!(e.text().starts_with("fastsum: unrecognized option '--raw'"));
        let e = run("md5sum", &["--no-names"]).unwrap_err();
        assert_eq!(e.code(), 1);
        let e = config(&["b3sum", "-c", "--raw", "f"]).unwrap_err().text();
        assert_eq!(
            e,
            "error: the argument '--check' cannot be used with '--raw'\n\n\
             Usage: b3sum --check <FILE>...\n\n\
             For more information, try '--help'.\n"
        );
    }

    #[test]
    fn help_lists_the_options_of_the_name() {
        let help = |flavour, name| long_help(flavour, name, 0);
        let md5 = help(Flavour::Gnu, "md5sum");
        assert!(
            md5.contains("--check") && md5.contains("--jobs=<N>"),
            "{md5}"
        );
        assert!(
            !md5.contains("--algorithm") && !md5.contains("-h,") && !md5.contains("-V,"),
            "{md5}"
        );
        let b3 = help(Flavour::B3sum, "b3sum");
        assert!(
            b3.contains("--no-names")
                && b3.contains("-l, --length <LEN>")
                && b3.contains("--check"),
            "{b3}"
        );
        assert!(
            !b3.contains("--algorithm") && !b3.contains("--zero") && !b3.contains("--binary"),
            "{b3}"
        );
        let fastsum = help(Flavour::Fastsum, "fastsum");
        assert!(
            fastsum.contains("--algorithm") && !fastsum.contains("--no-names"),
            "{fastsum}"
        );
    }

    #[test]
    fn versions() {
        assert_eq!(
            run("md5sum", &["--version", "--bogus"]).unwrap_err().text(),
            format!("md5sum (fastsum) {}\n", env!("CARGO_PKG_VERSION"))
        );
        assert_eq!(
            run("fastsum", &["-V"]).unwrap_err().text(),
            format!("fastsum {}\n", env!("CARGO_PKG_VERSION"))
        );
        // options are acted on in order, as GNU's getopt loop does: a bad
        // value before --help is reported, one after it never looked at
        assert_eq!(run("md5sum", &["-j", "0", "--help"]).unwrap_err().code(), 1);
        assert_eq!(run("md5sum", &["--help", "-j", "0"]).unwrap_err().code(), 0);
        assert_eq!(run("b2sum", &["-l", "7", "--bogus"]).unwrap_err().code(), 1);
        assert_eq!(
            run("b2sum", &["-l", "7", "-l", "512"]).unwrap_err().text(),
            "b2sum: invalid length: \u{2018}7\u{2019}\nb2sum: length is not a multiple of 8\n"
        );
    }

    #[test]
    fn value_errors_are_worded_for_people() {
        let e = run("md5sum", &["-j", "0"]).unwrap_err();
        assert_eq!(e.code(), 1);
        assert_eq!(
            e.text(),
            "md5sum: invalid value '0' for '--jobs <N>': it must be a whole number from 1 to \
             1024\nTry 'md5sum --help' for more information.\n"
        );
        for bad in ["0", "-1"] {
            let e = run("fastsum", &["-j", bad]).unwrap_err();
            assert_eq!(e.code(), 2);
            let t = e.text();
            assert!(
                t.contains(&format!("invalid value '{bad}' for '--jobs <N>'")),
                "{t}"
            );
            assert!(t.contains("from 1 to 1024"), "{t}");
        }
    }

    #[test]
    fn operands_that_look_like_options() {
        let a = run("md5sum", &["--", "-c", "--tag"]).unwrap();
        assert!(!a.check && !a.tag);
        assert_eq!(a.files, vec![OsString::from("-c"), OsString::from("--tag")]);
        let a = run("md5sum", &["-"]).unwrap();
        assert_eq!(a.files, vec![OsString::from("-")]);
    }
}
