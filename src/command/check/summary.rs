//! Whether one check file passed, from its counts ([`Tally`]) by the
//! dialect's rules: GNU's (and b3sum's, over the run) or xxhsum's. What
//! the counts say is the style's writer's (`output`); this only judges.

use crate::config::{CheckOptions, Dialect};

pub(crate) use crate::output::Tally;

/// Did the check file pass? Nothing failed, and with `--strict` every
/// line was well formed; by GNU's rules something was also verified
/// (xxhsum asks only that nothing failed).
pub(crate) fn passed(tally: &Tally, opts: &CheckOptions) -> bool {
    let failed =
        tally.mismatched != 0 || tally.unreadable != 0 || (opts.strict && tally.improper != 0);
    match opts.dialect {
        Dialect::Xxhsum { .. } => !failed,
        Dialect::Gnu | Dialect::B3sum => tally.formatted && tally.matched && !failed,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(dialect: Dialect, strict: bool) -> CheckOptions {
        CheckOptions {
            dialect,
            strict,
            ..CheckOptions::gnu()
        }
    }

    #[test]
    fn a_failure_fails_and_nothing_verified_fails_gnus() {
        let gnu = opts(Dialect::Gnu, false);
        let t = Tally {
            improper: 2,
            unreadable: 1,
            mismatched: 3,
            formatted: true,
            matched: true,
        };
        assert!(!passed(&t, &gnu));
        assert!(!passed(&Tally::default(), &gnu));
        let missing_only = Tally {
            formatted: true,
            ..Tally::default()
        };
        assert!(!passed(&missing_only, &gnu));
        // xxhsum asks only that nothing failed
        let xxhsum = opts(
            Dialect::Xxhsum {
                little_endian: false,
                warn: false,
            },
            false,
        );
        assert!(passed(&missing_only, &xxhsum));
        assert!(!passed(&t, &xxhsum));
    }

    #[test]
    fn strict_fails_on_improper_lines() {
        let t = Tally {
            improper: 1,
            formatted: true,
            matched: true,
            ..Tally::default()
        };
        assert!(passed(&t, &opts(Dialect::Gnu, false)));
        assert!(!passed(&t, &opts(Dialect::Gnu, true)));
    }
}
