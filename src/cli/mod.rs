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
//!
//! Here: [`parse`], [`resolve`] and the reading [`plan`]. Who the name is
//! in `name.rs`, argv read and acted on in `argv.rs`, each command's
//! refusals and options in `commands.rs`, the run's algorithms in
//! `algorithms.rs`, xxhsum's run in `xxhsum.rs`.

use std::ffi::OsString;

use crate::command::check::grammar::Make;
use crate::config::{Config, Progress};
use crate::read::{MAX_COUNT, MAX_IN_FLIGHT, Mode, Plan, default_jobs};

mod algorithms;
mod argv;
mod commands;
mod getopt;
mod help;
mod name;
mod options;
mod style;
mod usage;
mod xxhsum;

#[cfg(feature = "internals")]
pub use help::{HELP_SECTIONS, HelpSection, command};
pub(crate) use name::{Flavour, Invocation};
#[cfg(feature = "internals")]
pub use options::ModeArg;
pub(crate) use usage::Stop;

use algorithms::{algorithms, length, over_parts};
use argv::parse_args;
use commands::{check_command, hash_command, refuse_any_command, xof};
use options::Args;
use usage::{Conflict, UsageError};

/// Parse `argv` (`argv[0]` included) under the name it gives: the program
/// name messages use, the grammar its `-c` reads check files by (its
/// flavour's row's), and the resolved run or why there is none.
pub(crate) fn parse(argv: Vec<OsString>) -> (&'static str, Make, Result<Config, Stop>) {
    let inv = Invocation::from_argv0(argv.first());
    let usage = |error| Stop::Usage {
        error,
        program: inv.program,
        flavour: inv.flavour(),
    };
    let config = parse_args(&inv, argv).and_then(|args| resolve(args, &inv).map_err(usage));
    (inv.program, inv.row().grammar, config)
}

/// Resolve `args` under the invocation's name: defaults, multi-call
/// defaults, and the combinations GNU (or b3sum) refuses, in their order:
/// `-l`, the refusals of every command ([`refuse_any_command`]), the
/// command's own ([`check_command`], [`hash_command`]), then the reading
/// plan's and the algorithms' ([`algorithms()`]).
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algo::Algorithm;
    use crate::config::{Command, Verbosity};

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
        parse(argv.iter().map(OsString::from).collect()).2
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
                // (every row's name: `the_lists_come_from_the_rows` pins them)
                format!(
                    "fastsum: invalid value 'sha265' for '--algorithm <ALGO>': 'sha265' is \
                     no algorithm (algorithms: {}); did you mean 'sha256'?\n",
                    Algorithm::ALL.map(Algorithm::name).join(", ")
                )
                .as_str(),
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
        // (the quotes are the locale's, as GNU's: ‘7’ in a UTF-8 one, else '7')
        let text = run("b2sum", &["-l", "7", "-l", "512"]).unwrap_err().text();
        assert!(
            ["\u{2018}7\u{2019}", "'7'"].iter().any(|q| text
                == format!("b2sum: invalid length: {q}\nb2sum: length is not a multiple of 8\n")),
            "{text}"
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
