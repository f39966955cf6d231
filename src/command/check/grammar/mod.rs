//! A check dialect's grammar: how a check file's raw lines become jobs,
//! and the rules that differ between GNU's tools, b3sum and xxhsum beyond
//! a line's syntax. The reading-side mirror of the output `Style`: a
//! name's grammar is chosen once in `cli`, where its flavour's row
//! (`cli/name.rs` `Flavour::row`) names the [`Make`] of one file of this
//! folder ([`gnu::make`], [`b3sum::make`], [`xxhsum::make`]), which builds
//! it from what the command line says it reads by (`config::Dialect`).
//! The `Feed` that reads check files and the `Verifier` that judges what
//! comes of their lines follow the grammar and its [`Rules`], never asking
//! which tool runs. A new grammar is a file here, declared below, whose
//! `make` a flavour's row names: no arm to add anywhere.

use std::ffi::OsStr;

pub(crate) mod b3sum;
pub(crate) mod gnu;
pub(crate) mod xxhsum;

use super::{FileName, Step, display_name};
use crate::algo::Algorithms;
use crate::config::Dialect;
use crate::input::Input;

/// Where a line stands: its check file, as messages name it, and its
/// number (every line counts, comments and blanks too).
#[derive(Clone, Copy, Debug)]
pub(crate) struct At<'a> {
    /// The check file, as messages name it ([`Grammar::file_name`]).
    pub(crate) file: &'a FileName,
    /// The line's number.
    pub(crate) line: u64,
    /// The check file is standard input.
    pub(crate) stdin: bool,
}

/// A dialect's reading of check files. A trait, as `output::Writer` is:
/// each grammar keeps its own state (GNU's "BSD reversed" latch, the tag
/// `-w` names, what fastsum's own rules know of the check file being read),
/// the compiler asks a new one for every method without a default, and the
/// provided methods are GNU's.
pub(crate) trait Grammar: Send {
    /// Its rules where the dialects differ (what the `Feed` does with a
    /// check file that fails, whether lines group, how the `Verifier`
    /// counts and what passes).
    fn rules(&self) -> Rules;

    /// The name messages give the check file `arg`: GNU's and b3sum's
    /// quoted, `standard input` for `-`.
    fn file_name(&self, arg: &OsStr) -> FileName {
        display_name(arg)
    }

    /// A check file, `input`, is about to be read: what the grammar knows
    /// of the one before is forgotten.
    fn open(&mut self, _input: &Input) {}

    /// What one raw line (as read: its `\n` included, if any) of the check
    /// file is: a job that hashes the file it lists, a pass-through event
    /// (an improper line; `Event::Abort` ends the run), or
    /// [`Step::Skip`] (a comment, a blank line, armour).
    fn line(&mut self, raw: &[u8], at: At<'_>) -> Step;
}

/// A dialect's rules beyond a line's syntax: data, which the `Feed` (on
/// the reading thread) and the `Verifier` (on the printing one) follow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Rules {
    /// What a check file that cannot be opened or read does.
    pub(crate) file_errors: FileErrors,
    /// Consecutive lines naming the same file with other algorithms join
    /// one job, which reads it once (not xxhsum's: its messages name each
    /// line).
    pub(crate) groups: bool,
    /// The counts are the run's, summed up once after the last check file
    /// (`Event::Finished`, the writer's `checks_finished`: b3sum's), not
    /// each check file's at its end.
    pub(crate) run_counts: bool,
    /// A listed file that cannot be read counts with the checksums that
    /// did not match (b3sum's), not as unreadable.
    pub(crate) unreadable_mismatches: bool,
    /// What a check file passes by (see `summary::passed`).
    pub(crate) passes: Passes,
}

/// What a check file that cannot be opened or read does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FileErrors {
    /// Reported (`Event::OpenError`, `Event::ReadError`), and the run goes
    /// on with the next check file (GNU's).
    Reported,
    /// One that cannot be opened is reported; one that fails part-way is
    /// taken as ended there (xxhsum's).
    ReadEnds,
    /// Either ends the whole run (`Event::Abort`: b3sum's `main` returns
    /// the error).
    EndTheRun,
}

/// What a check file passes by, when nothing failed (no mismatch, no
/// unreadable file, no improper line under `--strict`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Passes {
    /// A line was well formed and a file verified too (GNU's "no properly
    /// formatted lines", "no file was verified").
    Verified,
    /// Only that (xxhsum's).
    NothingFailed,
}

impl Rules {
    /// GNU's rules.
    pub(crate) const GNU: Rules = Rules {
        file_errors: FileErrors::Reported,
        groups: true,
        run_counts: false,
        unreadable_mismatches: false,
        passes: Passes::Verified,
    };
}

/// How a grammar is built: from what the command line says it reads by,
/// reading untagged lines (GNU's) by the run's algorithms. Each grammar's
/// file has one (`make`), which the flavours' rows name (`cli/name.rs`).
pub(crate) type Make = fn(&Dialect, Algorithms) -> Box<dyn Grammar>;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algo::Algorithm;
    use crate::config::{CheckOptions, GnuRules, Tags};

    /// The grammar `make` builds reading by `gnu`.
    fn grammar(make: Make, gnu: GnuRules) -> Box<dyn Grammar> {
        let dialect = Dialect {
            gnu,
            ..CheckOptions::gnu().dialect
        };
        make(&dialect, Algorithms::one(Algorithm::Md5))
    }

    #[test]
    fn each_dialect_states_its_rules() {
        let own = GnuRules {
            tags: Tags::Any,
            algorithm_chosen: false,
            base64: true,
            own_rules: true,
        };
        let gnu = grammar(gnu::make, own);
        assert_eq!(gnu.rules(), Rules::GNU);
        let b3sum = grammar(b3sum::make, own).rules();
        assert_eq!(b3sum.file_errors, FileErrors::EndTheRun);
        assert!(b3sum.run_counts && b3sum.unreadable_mismatches && b3sum.groups);
        let xxhsum = grammar(xxhsum::make, own);
        let rules = xxhsum.rules();
        assert_eq!(rules.file_errors, FileErrors::ReadEnds);
        assert_eq!(rules.passes, Passes::NothingFailed);
        assert!(!rules.groups && !rules.run_counts && !rules.unreadable_mismatches);
        // a check file is named as each tool names it
        assert_eq!(&*gnu.file_name(OsStr::new("-")), b"'standard input'");
        assert_eq!(&*xxhsum.file_name(OsStr::new("-")), b"stdin");
    }

    #[test]
    fn lines_become_jobs_by_the_dialects_syntax() {
        let file: FileName = b"SUMS".to_vec().into();
        let at = At {
            file: &file,
            line: 1,
            stdin: false,
        };
        let gnu = GnuRules {
            tags: Tags::Exact,
            algorithm_chosen: true,
            base64: false,
            own_rules: false,
        };
        let md5 = b"d41d8cd98f00b204e9800998ecf8427e  a\n";
        let hashes = |make: Make, line: &[u8]| {
            matches!(
                grammar(make, gnu).line(line, at),
                Step::Job(crate::read::Job::Hash(_))
            )
        };
        assert!(hashes(gnu::make, md5));
        // b3sum's lines are BLAKE3's only; a comment is no line to GNU
        assert!(!hashes(b3sum::make, md5));
        assert!(matches!(
            grammar(gnu::make, gnu).line(b"# c\n", at),
            Step::Skip
        ));
        let xxh = b"e4c191d091bd8853  h1\n";
        assert!(hashes(xxhsum::make, xxh));
        assert!(!hashes(gnu::make, xxh));
    }
}
