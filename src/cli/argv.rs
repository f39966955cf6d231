//! argv read under a name's options: each option met is acted on in
//! order ([`act`]), filling [`Args`], or stopping the run with help, the
//! version or a usage error.

use std::ffi::OsString;

use crate::algo::Algorithm;

use super::algorithms::bits_as_met;
use super::getopt::{self, GetoptError, Met, Opt, Syntax};
use super::help;
use super::name::{Flavour, Invocation};
use super::options::{self, Action, Args, Spec};
use super::usage::{Conflict, Stop, UsageError};

/// Scan `argv` with the name's options and apply each: [`Args`] as given,
/// or help, the version, or a usage error.
pub(super) fn parse_args(inv: &Invocation, argv: Vec<OsString>) -> Result<Args, Stop> {
    let flavour = inv.flavour();
    let specs = options::table(flavour);
    let opts = getopt_options(&specs, flavour);
    let scanned = getopt::scan(&opts, argv.into_iter().skip(1).collect(), syntax(flavour));
    let usage = |error| Stop::Usage {
        error,
        program: inv.program,
        flavour,
    };
    // each option is acted on as it is met, in argument order, as GNU's
    // getopt loop and b3sum's clap do: the first bad one is reported, and
    // --help and --version end the run where they stand
    let mut args = Args::default();
    let mut b3sum = B3sumOnce::default();
    let count = scanned.options.len();
    for (i, met) in scanned.options.into_iter().enumerate() {
        let spec = specs[met.index];
        if flavour == Flavour::B3sum {
            let pending = i + 1 == count && scanned.value_pending && scanned.error.is_some();
            if !b3sum
                .take(spec, met.index, pending, &mut args)
                .map_err(usage)?
            {
                break;
            }
        }
        act(spec, met, &mut args, inv)?;
    }
    if let Some(error) = scanned.error {
        return Err(usage(match flavour {
            Flavour::B3sum => b3sum.error(error, args, !scanned.operands.is_empty()),
            _ => UsageError::Option(error),
        }));
    }
    args.files = scanned.operands;
    args.stdin_named = scanned.stdin_named;
    Ok(args)
}

/// The name's option table as the getopt model reads it.
fn getopt_options(specs: &[&'static Spec], flavour: Flavour) -> Vec<Opt> {
    specs
        .iter()
        .map(|s| Opt {
            long: s.long,
            short: s.short_for(flavour),
            takes_value: s.value_name().is_some(),
            gnu: s.gnu_rank.is_some(),
            stops: matches!(s.action, Action::Help | Action::Version),
        })
        .collect()
}

/// How the name's words are read: xxhsum's loop, or glibc's getopt.
fn syntax(flavour: Flavour) -> Syntax {
    match flavour {
        Flavour::Xxhsum => Syntax::Xxhsum,
        _ => Syntax::Getopt {
            abbrev: flavour.abbrev(),
            posix: std::env::var_os("POSIXLY_CORRECT").is_some(),
        },
    }
}

/// b3sum's own options as its clap takes them while reading: each once,
/// and what was met before an error, for clap's words about it.
#[derive(Default)]
struct B3sumOnce {
    /// The options of its own met so far, by their place in the table.
    seen: Vec<usize>,
    /// Whether an option of its own was fully taken before an error.
    resolved: Option<bool>,
}

impl B3sumOnce {
    /// Take `spec` (at `index` in the table) as b3sum's clap does,
    /// `pending` when its value is the last word before an error: false
    /// when reading stops there.
    fn take(
        &mut self,
        spec: &'static Spec,
        index: usize,
        pending: bool,
        args: &mut Args,
    ) -> Result<bool, UsageError> {
        let form = options::B3SUM_ONCE
            .iter()
            .find(|f| f.strip_prefix("--").and_then(|f| f.split(' ').next()) == Some(spec.long))
            .copied();
        // b3sum's clap checks an option whose value is the next word (its
        // value, and whether it was given before) only when the next word
        // it knows comes: an unknown one right after is reported first
        // (`-l x -x`, `-l 4 -l 4 -x`); the option counts as met, unless
        // given before: clap has then dropped what it had of it
        if pending {
            self.resolved = Some(!args.b3sum_used.is_empty());
            if let Some(form) = form {
                if args.b3sum_used.contains(&form) {
                    args.b3sum_used.retain(|u| *u != form);
                } else {
                    args.b3sum_used.push(form);
                }
            }
            return Ok(false);
        }
        // b3sum's clap takes each of b3sum's own options once
        if let Some(form) = form {
            if self.seen.contains(&index) {
                return Err(UsageError::Conflict(Conflict::B3sumTwice(spec)));
            }
            self.seen.push(index);
            args.b3sum_used.push(form);
        }
        Ok(true)
    }

    /// The scan's error in clap's words, which name what was met before it.
    fn error(self, error: GetoptError, args: Args, operands: bool) -> UsageError {
        UsageError::ClapOption {
            error,
            resolved: self.resolved.unwrap_or(!args.b3sum_used.is_empty()),
            used: args.b3sum_used,
            operands,
        }
    }
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
