//! Whether one check file passed, from its counts ([`Tally`]) by the
//! grammar's rules ([`Passes`]: GNU's, and b3sum's over the run, or
//! xxhsum's). What the counts say is the style's writer's (`output`); this
//! only judges.

use super::grammar::Passes;
use crate::config::CheckOptions;

pub(crate) use crate::output::Tally;

/// Did the check file pass? Nothing failed, and with `--strict` every
/// line was well formed; by GNU's rules something was also verified
/// (xxhsum asks only that nothing failed).
pub(crate) fn passed(tally: &Tally, opts: &CheckOptions, passes: Passes) -> bool {
    let failed =
        tally.mismatched != 0 || tally.unreadable != 0 || (opts.strict && tally.improper != 0);
    match passes {
        Passes::NothingFailed => !failed,
        Passes::Verified => tally.formatted && tally.matched && !failed,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(strict: bool) -> CheckOptions {
        CheckOptions {
            strict,
            ..CheckOptions::gnu()
        }
    }

    #[test]
    fn a_failure_fails_and_nothing_verified_fails_gnus() {
        let gnu = |t: &Tally| passed(t, &opts(false), Passes::Verified);
        let t = Tally {
            improper: 2,
            unreadable: 1,
            mismatched: 3,
            formatted: true,
            matched: true,
        };
        assert!(!gnu(&t));
        assert!(!gnu(&Tally::default()));
        let missing_only = Tally {
            formatted: true,
            ..Tally::default()
        };
        assert!(!gnu(&missing_only));
        // xxhsum asks only that nothing failed
        let xxhsum = |t: &Tally| passed(t, &opts(false), Passes::NothingFailed);
        assert!(xxhsum(&missing_only));
        assert!(!xxhsum(&t));
    }

    #[test]
    fn strict_fails_on_improper_lines() {
        let t = Tally {
            improper: 1,
            formatted: true,
            matched: true,
            ..Tally::default()
        };
        assert!(passed(&t, &opts(false), Passes::Verified));
        assert!(!passed(&t, &opts(true), Passes::Verified));
    }
}
