//! What a run is under xxhsum 0.8.1's names (xxhsum, xxh32sum, xxh64sum,
//! xxh128sum; xxh3sum as later versions have it): the defaults its options
//! leave, hashing with its output rules or checking in its dialect.
//!
//! Its options are in the option table (`Names::XXHSUM`, and check mode's
//! it shares), read by xxhsum's own loop (`getopt::Syntax::Xxhsum`: the
//! first FILE ends the options, `-H3q`, `-` names stdin), with fastsum's
//! reading options by their long names (`--mode`, `--jobs`, `--chunk`, …);
//! its help and version go to stderr (`help::xxhsum_usage`), a word it
//! does not know is `Wrong parameters` and the usage, exit 1
//! (`usage::UsageError` under `Flavour::Xxhsum`). The benchmark (`-b`,
//! `-i`, `-B`) is not taken: `benches/` holds fastsum's.

use std::ffi::OsString;
use std::io::IsTerminal;

use super::options::Args;
use super::usage::{Conflict, UsageError};
use super::{Invocation, plan};
use crate::algo::Algorithms;
use crate::config::{CheckOptions, Command, Config, HashOptions, Progress, Verbosity};
use crate::walk::Walk;

/// The run `args` ask for under an xxhsum name. It refuses only to read a
/// terminal it was not told to read (no FILE, no `-`): xxhsum ignores
/// what does not apply.
pub(super) fn resolve(args: Args, inv: &Invocation) -> Result<Config, UsageError> {
    if args.files.is_empty() && !args.stdin_named && std::io::stdin().is_terminal() {
        return Err(UsageError::Conflict(Conflict::NoInputButTerminal));
    }
    let algo = super::style::xxhsum_algorithm(&args, inv);
    let style = inv.row().style;
    let command = if args.check {
        Command::Check(CheckOptions {
            signed: None,
            // xxhsum's --status silences stdout, -q its OK lines; its -w
            // goes with either (its style's)
            verbosity: match (args.verbosity, args.xxh_quiet) {
                (Some(Verbosity::Status), _) => Verbosity::Status,
                (_, true) => Verbosity::Quiet,
                _ => Verbosity::Normal,
            },
            strict: args.strict,
            ignore_missing: false,
            dialect: super::commands::dialect(&args, inv),
            style: (style.check)(&args, inv),
        })
    } else {
        Command::Hash(HashOptions {
            style: (style.hash)(&args, inv, None),
            walk: Walk {
                recursive: args.recursive,
                ..Walk::default()
            },
            tree_digest: false,
            shares: crate::config::Shares::default(),
            meta: false,
        })
    };
    let mut files = args.files.clone();
    if files.is_empty() {
        files.push(OsString::from("-"));
    }
    Ok(Config {
        command,
        algorithms: Algorithms::one(algo),
        plan: plan(&args),
        progress: args.progress.unwrap_or(Progress::Auto),
        stats: args.stats,
        debug: false,
        files,
    })
}
