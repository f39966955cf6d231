//! The command line of xxhsum 0.8.1 (and its xxh32sum, xxh64sum, xxh128sum
//! names; xxh3sum as later versions have it), which is no getopt: options
//! come first, and the first word that does not start with `-` (or the word
//! after `--`) starts the FILEs, the rest being FILEs whatever they look
//! like; long options are matched exactly; short ones may be grouped
//! (`-cqw`, `-H3`). Its help and version go to stderr, and a word it does
//! not know is `Wrong parameters` and the usage, exit 1.
//!
//! fastsum's own long options (`--mode`, `--jobs`, `--chunk`, …) are taken
//! too, among the options. The benchmark (`-b`, `-i`, `-B`) is not:
//! `benches/` holds fastsum's.

use std::ffi::OsString;
use std::io::IsTerminal;
use std::os::unix::ffi::OsStrExt;

use super::options::{Action, Args, table};
use super::{Flavour, Invocation, Stop, plan};
use crate::algo::{Algorithm, Algorithms};
use crate::config::{Command, Config, HashOptions, Progress, Verbosity, XxhCheckOptions};
use crate::walk::Walk;

/// The usage xxhsum prints (to stderr) for `-h` and after `Wrong
/// parameters`; the first line names fastsum.
fn usage(exename: &str, long: bool) -> String {
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

/// `Wrong parameters` and the usage: exit 1.
fn bad_usage(exename: &str) -> Stop {
    Stop::Stderr(
        format!("Wrong parameters\n\n{}", usage(exename, false)).into_bytes(),
        1,
    )
}

/// Scan `argv` as xxhsum does.
pub(super) fn parse_args(inv: &Invocation, argv: Vec<OsString>) -> Result<Args, Stop> {
    let exename = inv.program;
    let mut args = Args::default();
    let mut words = argv.into_iter().skip(1).peekable();
    let mut explicit_stdin = false;
    let own = table(Flavour::Xxhsum);
    while let Some(word) = words.next_if(|w| w.as_bytes().starts_with(b"-")) {
        let bytes = word.as_bytes();
        match bytes {
            b"--" => break,
            b"--check" => args.check = true,
            b"--quiet" => args.xxh_quiet = true,
            b"--little-endian" => args.little_endian = true,
            b"--strict" => args.strict = true,
            b"--status" => args.verbosity = Some(Verbosity::Status),
            b"--warn" => args.xxh_warn = true,
            b"--tag" => args.tag = true,
            b"--help" => return Err(Stop::Stderr(usage(exename, true).into_bytes(), 0)),
            b"--version" => return Err(Stop::Stderr(version(exename), 0)),
            [b'-', b'-', long @ ..] => {
                // fastsum's own: --name=value, or --name value
                let text = String::from_utf8_lossy(long).into_owned();
                let (name, inline) = match text.split_once('=') {
                    Some((n, v)) => (n.to_string(), Some(OsString::from(v))),
                    None => (text, None),
                };
                let Some(spec) = own.iter().find(|s| s.long == name) else {
                    return Err(bad_usage(exename));
                };
                match spec.action {
                    Action::Flag(set) if inline.is_none() => set(&mut args),
                    Action::Value(_, set) => {
                        let value = inline.or_else(|| words.next());
                        let ok = value.is_some_and(|v| set(&mut args, &v).is_ok());
                        if !ok {
                            return Err(bad_usage(exename));
                        }
                    }
                    _ => return Err(bad_usage(exename)),
                }
            }
            [b'-'] => explicit_stdin = true,
            [b'-', letters @ ..] => short(letters, exename, &mut args)?,
            _ => unreachable!("the word starts with '-'"),
        }
    }
    args.files = words.collect();
    // no FILE, and stdin a terminal: xxhsum refuses to wait on it
    if args.files.is_empty() && !explicit_stdin && std::io::stdin().is_terminal() {
        return Err(bad_usage(exename));
    }
    Ok(args)
}

/// A group of short options (`cqw`, `H3`).
fn short(mut letters: &[u8], exename: &str, args: &mut Args) -> Result<(), Stop> {
    while let Some((&c, rest)) = letters.split_first() {
        letters = rest;
        match c {
            b'V' => return Err(Stop::Stderr(version(exename), 0)),
            b'h' => return Err(Stop::Stderr(usage(exename, true).into_bytes(), 0)),
            b'c' => args.check = true,
            b'w' => args.xxh_warn = true,
            b'q' => args.xxh_quiet = true,
            b'H' => {
                // XSUM_readU32FromChar: digits, refused once past 32 bits
                let mut n: u32 = 0;
                while let Some((&d, rest)) =
                    letters.split_first().filter(|(d, _)| d.is_ascii_digit())
                {
                    if n > u32::MAX / 10 - 1 {
                        return Err(numeric_too_large());
                    }
                    n = n * 10 + u32::from(d - b'0');
                    letters = rest;
                }
                args.algorithms = vec![match n {
                    0 | 32 => Algorithm::Xxh32,
                    1 | 64 => Algorithm::Xxh64,
                    2 | 128 => Algorithm::Xxh128,
                    3 => Algorithm::Xxh3,
                    _ => return Err(bad_usage(exename)),
                }];
                // xxhsum's -H3 also switches to tagged lines, and a later
                // -H does not switch back (`-H3 -H1`: `XXH64 (f) = …`)
                if n == 3 {
                    args.tag = true;
                }
            }
            _ => return Err(bad_usage(exename)),
        }
    }
    Ok(())
}

/// xxhsum's refusal of a number past 32 bits.
fn numeric_too_large() -> Stop {
    Stop::Stderr(b"Error: numeric value too large \n".to_vec(), 1)
}

/// `-V`: fastsum's version, to stderr as xxhsum writes its own.
fn version(exename: &str) -> Vec<u8> {
    format!(
        "{exename} (fastsum {}), as xxhsum 0.8.1 \n",
        env!("CARGO_PKG_VERSION")
    )
    .into_bytes()
}

/// The run `args` ask for under an xxhsum name (which refuses nothing
/// more: xxhsum ignores what does not apply).
pub(super) fn resolve(args: Args, inv: &Invocation) -> Config {
    let algo = args
        .algorithms
        .first()
        .copied()
        .or(inv.default_algorithm)
        .unwrap_or(Algorithm::Xxh64);
    let command = if args.check {
        Command::XxhCheck(XxhCheckOptions {
            quiet: args.xxh_quiet,
            warn: args.xxh_warn,
            status: args.verbosity == Some(Verbosity::Status),
            strict: args.strict,
            little_endian: args.little_endian,
        })
    } else {
        Command::Hash(HashOptions {
            style: super::style::xxhsum(&args, algo),
            walk: Walk {
                recursive: args.recursive,
                ..Walk::default()
            },
            tree_digest: false,
        })
    };
    let mut files = args.files.clone();
    if files.is_empty() {
        files.push(OsString::from("-"));
    }
    Config {
        command,
        algorithms: Algorithms::one(algo),
        plan: plan(&args),
        progress: args.progress.unwrap_or(Progress::Auto),
        stats: args.stats,
        debug: false,
        files,
    }
}
