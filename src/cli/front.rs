//! From argv to [`Args`] under each program name: which options the name
//! has, the getopt scan ([`super::getopt`]), GNU's `-b`/`-t`/`--tag`
//! ordering, `--help`/`--version`, and each name's wording and exit status
//! for usage errors.

use std::ffi::OsString;
use std::io::IsTerminal;
use std::os::unix::ffi::OsStrExt;

use super::b3sum::B3Options;
use super::getopt::{Abbrev, GetoptError, Opt, scan};
use super::{Args, Invocation, command};
use crate::algo::Algorithm;

/// Every option: `(long, short, takes a value)`. GNU md5sum's own come
/// first, in the order of its `long_options` table (the order glibc lists
/// the candidates of an ambiguous abbreviation in); then fastsum's; then
/// the ones only the b3sum name has. A unit test keeps this in step with
/// the clap definitions.
const OPTIONS: [(&str, Option<u8>, bool); 27] = [
    ("check", Some(b'c'), false),
    ("ignore-missing", None, false),
    ("quiet", None, false),
    ("status", None, false),
    ("warn", Some(b'w'), false),
    ("strict", None, false),
    ("tag", None, false),
    ("zero", Some(b'z'), false),
    ("binary", Some(b'b'), false),
    ("text", Some(b't'), false),
    ("help", None, false),
    ("version", None, false),
    // fastsum's own
    ("algorithm", Some(b'a'), true),
    ("mode", Some(b'm'), true),
    ("chunk", None, true),
    ("readahead", None, true),
    ("pool", None, true),
    ("jobs", Some(b'j'), true),
    ("recursive", Some(b'r'), false),
    ("progress", None, false),
    ("no-progress", None, false),
    ("stats", None, false),
    // b3sum's own
    ("length", Some(b'l'), true),
    ("no-names", None, false),
    ("raw", None, false),
    ("no-mmap", None, false),
    ("num-threads", None, true),
];

/// The GNU options (the first 12 of [`OPTIONS`]).
const GNU_COUNT: usize = 12;

/// The options only the b3sum name has.
const B3SUM_ONLY: [&str; 5] = ["length", "no-names", "raw", "no-mmap", "num-threads"];

/// GNU options that b3sum has too.
const B3SUM_SHARED: [&str; 5] = ["check", "quiet", "tag", "help", "version"];

/// Which family of command line a name has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Flavour {
    /// fastsum itself: every option but b3sum's, `-h`/`-V`, any
    /// unambiguous abbreviation.
    Fastsum,
    /// md5sum … sha512sum: GNU's options (no `-h`/`-V`, no `-a`: the name
    /// fixes the algorithm) plus fastsum's reading options; abbreviations
    /// resolved among GNU's first.
    Gnu,
    /// b3sum: b3sum's options plus fastsum's reading options, exact names
    /// only (b3sum is a clap program), `-h`/`-V`.
    B3sum,
}

impl Flavour {
    fn of(inv: &Invocation) -> Flavour {
        match inv.default_algorithm {
            None => Flavour::Fastsum,
            Some(Algorithm::Blake3) => Flavour::B3sum,
            Some(_) => Flavour::Gnu,
        }
    }

    /// The options this name has.
    fn table(self) -> Vec<Opt> {
        OPTIONS
            .iter()
            .enumerate()
            .filter(|(i, (long, ..))| match self {
                Flavour::Fastsum => !B3SUM_ONLY.contains(long),
                Flavour::Gnu => *long != "algorithm" && !B3SUM_ONLY.contains(long),
                Flavour::B3sum => {
                    *long != "algorithm" && (*i >= GNU_COUNT || B3SUM_SHARED.contains(long))
                }
            })
            .map(|(i, &(long, short, takes_value))| {
                let short = match long {
                    "help" if self != Flavour::Gnu => Some(b'h'),
                    "version" if self != Flavour::Gnu => Some(b'V'),
                    _ => short,
                };
                Opt {
                    long,
                    short,
                    takes_value,
                    gnu: i < GNU_COUNT,
                }
            })
            .collect()
    }

    fn abbrev(self) -> Abbrev {
        match self {
            Flavour::Fastsum => Abbrev::Flat,
            Flavour::Gnu => Abbrev::GnuFirst,
            Flavour::B3sum => Abbrev::Off,
        }
    }
}

/// Why parsing stopped without [`Args`]: text to print and a status.
#[derive(Debug)]
pub(crate) enum Stop {
    /// Text for stdout (the version line); exit 0.
    Print(String),
    /// A usage error already worded: bytes for stderr, and the status.
    Usage(Vec<u8>, u8),
    /// Something clap renders itself (help, or a clap-worded error), and
    /// the status.
    Clap(Box<clap::Error>, u8),
}

impl Stop {
    /// What to write and where: `Ok` for stdout (help, version; the run
    /// then ends with 0), `Err` for stderr with the exit status. clap's own
    /// text is styled only for a terminal.
    pub(crate) fn into_output(self) -> Result<Vec<u8>, (Vec<u8>, u8)> {
        let styled = |e: &clap::Error, terminal: bool| {
            let r = e.render();
            if terminal {
                r.ansi().to_string()
            } else {
                r.to_string()
            }
            .into_bytes()
        };
        match self {
            Stop::Print(text) => Ok(text.into_bytes()),
            Stop::Usage(bytes, code) => Err((bytes, code)),
            Stop::Clap(e, 0) => Ok(styled(&e, std::io::stdout().is_terminal())),
            Stop::Clap(e, code) => Err((styled(&e, std::io::stderr().is_terminal()), code)),
        }
    }

    /// The message, for tests.
    #[cfg(test)]
    pub(crate) fn text(&self) -> String {
        match self {
            Stop::Print(t) => t.clone(),
            Stop::Usage(b, _) => String::from_utf8_lossy(b).into_owned(),
            Stop::Clap(e, _) => e.render().to_string(),
        }
    }

    /// The exit status it stands for.
    #[cfg(test)]
    pub(crate) fn code(&self) -> u8 {
        match self {
            Stop::Print(_) => 0,
            Stop::Usage(_, c) | Stop::Clap(_, c) => *c,
        }
    }
}

/// GNU's two lines: `prog: message` and the `--help` hint.
fn gnu_usage(program: &str, message: &[u8], code: u8) -> Stop {
    let mut out = format!("{program}: ").into_bytes();
    out.extend_from_slice(message);
    out.extend_from_slice(format!("\nTry '{program} --help' for more information.\n").as_bytes());
    Stop::Usage(out, code)
}

/// A getopt error as b3sum (clap) words it.
fn b3sum_usage(e: &GetoptError) -> Stop {
    let word = String::from_utf8_lossy(e.word().as_bytes()).into_owned();
    let text = match e {
        GetoptError::ShortNeedsValue(_) | GetoptError::LongNeedsValue(_) => {
            format!("error: a value is required for '{word}' but none was supplied\n")
        }
        GetoptError::NoValueAllowed(_) => {
            format!("error: unexpected value for '{word}' found; no more were expected\n")
        }
        _ => format!("error: unexpected argument '{word}' found\n"),
    };
    let text = format!(
        "{text}\nUsage: b3sum [OPTIONS] [FILE]...\n\nFor more information, try '--help'.\n"
    );
    Stop::Usage(text.into_bytes(), 2)
}

/// The argv clap parses: canonical `--long` / `--long=value` words only.
/// The operands stay out of it: getopt already set them apart, and clap
/// stores and copies every value, which was most of the start-up time on
/// `xargs`' thousands of names (docs/BENCHMARKS.md, "Many files"). `-b`, `-t` and `--tag` are
/// folded as GNU folds them: `--tag` also sets binary, and the last of the
/// three decides binary or text, so `-t --tag` is a tagged run and `--tag
/// -t` is rejected.
fn canonical(
    program: &str,
    options: Vec<(&'static str, Option<OsString>, bool)>,
    b3: &mut B3Options,
) -> Result<Vec<OsString>, Stop> {
    let mut argv = vec![OsString::from(program)];
    let mut tag = false;
    let mut binary: Option<bool> = None;
    for (long, value, _) in options {
        if b3
            .set(long, value.as_deref())
            .map_err(|e| Stop::Usage(e.into_bytes(), 2))?
        {
            continue;
        }
        match long {
            "binary" => binary = Some(true),
            "text" => binary = Some(false),
            "tag" => {
                tag = true;
                binary = Some(true);
            }
            _ => {
                let mut word = OsString::from(format!("--{long}"));
                if let Some(v) = value {
                    word.push("=");
                    word.push(v);
                }
                argv.push(word);
            }
        }
    }
    if tag {
        argv.push("--tag".into());
    }
    match binary {
        Some(true) => argv.push("--binary".into()),
        Some(false) => argv.push("--text".into()),
        None => {}
    }
    Ok(argv)
}

/// The command whose `--help` a name prints: only the options that name
/// has (under a GNU name no `-a`, `-h`, `-V`; under b3sum, b3sum's own
/// options in place of GNU's).
fn help_command(flavour: Flavour, cmd: clap::Command) -> clap::Command {
    use clap::{Arg, ArgAction};
    let table = flavour.table();
    let has = |long: &str| table.iter().any(|o| o.long == long);
    let mut cmd = cmd.mut_args(|a| {
        let hide = a.is_hide_set() || a.get_long().is_some_and(|l| !has(l));
        a.hide(hide)
    });
    if flavour == Flavour::Gnu {
        cmd = cmd
            .disable_help_flag(true)
            .disable_version_flag(true)
            .arg(
                Arg::new("help")
                    .long("help")
                    .action(ArgAction::Help)
                    .help("Print help"),
            )
            .arg(
                Arg::new("version")
                    .long("version")
                    .action(ArgAction::Version)
                    .help("Print version"),
            );
    }
    if flavour == Flavour::B3sum {
        let flag = |long: &'static str, help: &'static str| {
            Arg::new(long)
                .long(long)
                .action(ArgAction::SetTrue)
                .help(help)
        };
        cmd = cmd
            .arg(
                Arg::new("length")
                    .short('l')
                    .long("length")
                    .value_name("LEN")
                    .help("The number of output bytes, before hex encoding [default: 32]"),
            )
            .arg(
                Arg::new("num-threads")
                    .long("num-threads")
                    .value_name("NUM")
                    .help("The most threads one file is hashed on (BLAKE3 splits a big file), and files hashed at once: -j when -j is not given (0: the number of cores)"),
            )
            .arg(flag("no-mmap", "Read files instead of mapping them (files of 1 MiB or more are mapped by default), each on one thread, as b3sum does"))
            .arg(flag("no-names", "Omit file names in the output"))
            .arg(flag("raw", "Write raw output bytes to stdout, not hex (one input only)"));
    }
    cmd
}

/// Parse `argv` (with `argv[0]`) under the invocation's name.
pub(crate) fn parse(inv: &Invocation, argv: Vec<OsString>) -> Result<Args, Stop> {
    let flavour = Flavour::of(inv);
    let program = inv.program;
    let usage_code = inv.usage_exit_code();
    let posix = std::env::var_os("POSIXLY_CORRECT").is_some();
    let rest: Vec<OsString> = argv.into_iter().skip(1).collect();
    let scanned = match scan(
        &flavour.table(),
        rest,
        flavour.abbrev(),
        &["help", "version"],
        posix,
    ) {
        Ok(s) => s,
        Err(e) if flavour == Flavour::B3sum => return Err(b3sum_usage(&e)),
        Err(e) => return Err(gnu_usage(program, &e.gnu_message(), usage_code)),
    };
    let cmd = command()
        .name(program)
        .bin_name(program)
        .args_override_self(true);
    match scanned.options.last() {
        Some(("help", _, short)) => {
            let word = if *short { "-h" } else { "--help" };
            let e = help_command(flavour, cmd)
                .try_get_matches_from([program, word])
                .err()
                .map_or_else(
                    || Stop::Print(String::new()),
                    |e| Stop::Clap(Box::new(e), 0),
                );
            return Err(e);
        }
        Some(("version", ..)) => {
            let version = env!("CARGO_PKG_VERSION");
            return Err(Stop::Print(match flavour {
                Flavour::Fastsum => format!("fastsum {version}\n"),
                _ => format!("{program} (fastsum) {version}\n"),
            }));
        }
        _ => {}
    }
    let mut b3 = B3Options::default();
    let argv = canonical(program, scanned.options, &mut b3)?;
    let matches = cmd
        .try_get_matches_from(argv)
        .and_then(|mut m| <Args as clap::FromArgMatches>::from_arg_matches_mut(&mut m));
    let mut args = matches.map_err(|e| match flavour {
        Flavour::Gnu => {
            // clap's first line without its `error: ` prefix, in GNU's frame
            let rendered = e.render().to_string();
            let first = rendered.lines().next().unwrap_or_default();
            let msg = first.strip_prefix("error: ").unwrap_or(first);
            gnu_usage(program, msg.as_bytes(), usage_code)
        }
        _ => Stop::Clap(Box::new(e), usage_code),
    })?;
    args.b3sum = b3;
    args.files = scanned.operands;
    Ok(args)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The table above and the clap definitions name the same options,
    /// with the same short letters and the same need for a value.
    #[test]
    fn table_matches_clap() {
        let cmd = command();
        let clap_opts: Vec<(String, Option<u8>, bool)> = cmd
            .get_arguments()
            .filter_map(|a| {
                let long = a.get_long()?.to_string();
                let short = a.get_short().map(|c| c as u8);
                Some((long, short, a.get_action().takes_values()))
            })
            .collect();
        let ours: Vec<(String, Option<u8>, bool)> = OPTIONS
            .iter()
            .filter(|(l, ..)| !matches!(*l, "help" | "version") && !B3SUM_ONLY.contains(l))
            .map(|&(l, s, v)| (l.to_string(), s, v))
            .collect();
        let mut a = clap_opts.clone();
        let mut b = ours.clone();
        a.sort();
        b.sort();
        assert_eq!(a, b);
    }

    fn run(name: &str, args: &[&str]) -> Result<Args, Stop> {
        let inv = Invocation::from_argv0(Some(&OsString::from(name)));
        let mut argv = vec![OsString::from(name)];
        argv.extend(args.iter().map(OsString::from));
        parse(&inv, argv)
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
        assert!(a.tag && a.binary && !a.text);
        let a = run("md5sum", &["--tag", "-t", "f"]).unwrap();
        assert!(a.tag && a.text);
        let a = run("md5sum", &["-b", "-t", "-b"]).unwrap();
        assert!(a.binary && !a.text && !a.tag);
    }

    #[test]
    fn repeated_options_last_wins() {
        let a = run(
            "md5sum",
            &["-cc", "--quiet", "--quiet", "-j2", "-j3", "--ch", "f"],
        )
        .unwrap();
        assert!(a.check && a.quiet);
        assert_eq!(a.jobs, Some(3));
        let a = run(
            "fastsum",
            &["-m", "sync", "--mode=mmap", "-a", "SHA256", "-a", "Blake3"],
        )
        .unwrap();
        assert_eq!(a.mode, super::super::ModeArg::Mmap);
        // -a is the exception: repeated, it adds algorithms (issue 13)
        use super::super::AlgoArg;
        assert_eq!(
            a.algorithm,
            vec![vec![AlgoArg::Sha256], vec![AlgoArg::Blake3]]
        );
        assert_eq!(a.files, Vec::<OsString>::new());
    }

    #[test]
    fn b3sum_options() {
        let a = run(
            "b3sum",
            &["-l5", "--no-names", "--raw", "--num-threads=3", "f"],
        )
        .unwrap();
        assert_eq!(a.b3sum.length, Some(5));
        assert!(a.b3sum.no_names && a.b3sum.raw);
        assert_eq!(a.b3sum.num_threads, Some(3));
        let e = run("b3sum", &["--length", "x"]).unwrap_err();
        assert_eq!(e.code(), 2);
        assert!(
            e.text()
                .starts_with("error: invalid value 'x' for '--length <LEN>'")
        );
        let e = run("fastsum", &["--raw"]).unwrap_err();
        assert!(e.text().starts_with("fastsum: unrecognized option '--raw'"));
        let e = run("md5sum", &["--no-names"]).unwrap_err();
        assert_eq!(e.code(), 1);
    }

    #[test]
    fn help_lists_the_options_of_the_name() {
        let help = |name: &'static str| {
            let cmd = command().name(name).bin_name(name);
            let inv = Invocation::from_argv0(Some(&OsString::from(name)));
            help_command(Flavour::of(&inv), cmd)
                .term_width(0)
                .render_long_help()
                .to_string()
        };
        let md5 = help("md5sum");
        assert!(md5.contains("--check") && md5.contains("--jobs"), "{md5}");
        assert!(
            !md5.contains("--algorithm") && !md5.contains("-h,") && !md5.contains("-V,"),
            "{md5}"
        );
        let b3 = help("b3sum");
        assert!(
            b3.contains("--no-names") && b3.contains("-l, --length") && b3.contains("--check"),
            "{b3}"
        );
        assert!(
            !b3.contains("--algorithm") && !b3.contains("--zero") && !b3.contains("--binary"),
            "{b3}"
        );
        let fastsum = help("fastsum");
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
    }

    #[test]
    fn value_errors_are_worded_for_people() {
        let e = run("md5sum", &["-j", "0"]).unwrap_err();
        assert_eq!(e.code(), 1);
        assert!(
            e.text()
                .starts_with("md5sum: invalid value '0' for '--jobs <N>'"),
            "{}",
            e.text()
        );
        assert!(
            e.text()
                .ends_with("\nTry 'md5sum --help' for more information.\n")
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
