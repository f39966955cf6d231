//! What one check file adds up to: GNU's per-file counters, the warnings it
//! prints after the file (exact wording and plurals), and whether the file
//! passed; xxhsum's counts and verdict from the same counters. Pure, so the
//! wording is unit-tested without running anything.

use crate::config::{CheckOptions, Verbosity};

/// Counters for one check file, as GNU keeps them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Tally {
    /// Improperly formatted lines.
    pub(crate) improper: u64,
    /// Listed files that could not be opened or read.
    pub(crate) unreadable: u64,
    /// Listed files whose digest did not match.
    pub(crate) mismatched: u64,
    /// At least one line was properly formatted.
    pub(crate) formatted: bool,
    /// At least one listed file matched.
    pub(crate) matched: bool,
}

/// `n` and the singular or plural text, as GNU's ngettext does in English.
fn count(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

impl Tally {
    /// The messages GNU prints (after its program name) once the check file
    /// called `file` (already quoted) is read to its end, in GNU's order.
    pub(crate) fn warnings(&self, file: &str, opts: &CheckOptions) -> Vec<String> {
        let mut out = Vec::new();
        if !self.formatted {
            // printed even with --status
            out.push(format!(
                "{file}: no properly formatted checksum lines found"
            ));
            return out;
        }
        if opts.verbosity == Verbosity::Status {
            return out;
        }
        if self.improper != 0 {
            let what = count(
                self.improper,
                "line is improperly formatted",
                "lines are improperly formatted",
            );
            out.push(format!("WARNING: {what}"));
        }
        if self.unreadable != 0 {
            let what = count(
                self.unreadable,
                "listed file could not be read",
                "listed files could not be read",
            );
            out.push(format!("WARNING: {what}"));
        }
        if self.mismatched != 0 {
            let what = count(
                self.mismatched,
                "computed checksum did NOT match",
                "computed checksums did NOT match",
            );
            out.push(format!("WARNING: {what}"));
        }
        if opts.ignore_missing && !self.matched {
            out.push(format!("{file}: no file was verified"));
        }
        out
    }

    /// The counts xxhsum prints on stdout (each a line) once a check file
    /// with a properly formatted line is read to its end, in its order.
    pub(crate) fn xxhsum_counts(&self) -> Vec<String> {
        let lines = [
            (
                self.improper,
                "line is",
                "lines are",
                "improperly formatted",
            ),
            (
                self.unreadable,
                "listed file",
                "listed files",
                "could not be read",
            ),
            (
                self.mismatched,
                "computed checksum",
                "computed checksums",
                "did NOT match",
            ),
        ];
        lines
            .into_iter()
            .filter(|&(n, ..)| n != 0)
            .map(|(n, one, many, what)| format!("{} {what}\n", count(n, one, many)))
            .collect()
    }

    /// Did the check file pass by xxhsum's rules? Nothing failed, and with
    /// `--strict` every line was well formed.
    pub(crate) fn xxhsum_passed(&self, strict: bool) -> bool {
        self.mismatched + self.unreadable == 0 && !(strict && self.improper != 0)
    }

    /// Did the check file pass? Something was verified, nothing failed, and
    /// with `--strict` every line was well formed.
    pub(crate) fn passed(&self, opts: &CheckOptions) -> bool {
        self.formatted
            && self.matched
            && self.mismatched == 0
            && self.unreadable == 0
            && (!opts.strict || self.improper == 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(verbosity: Verbosity, strict: bool, ignore_missing: bool) -> CheckOptions {
        CheckOptions {
            signed: None,
            own_rules: false,
            verbosity,
            strict,
            ignore_missing,
            algorithm_chosen: false,
            dialect: crate::config::Dialect::Gnu,
            tags: crate::config::Tags::Exact,
            style: crate::config::Style {
                shape: crate::config::Shape::Gnu(crate::config::LineFormat::Gnu { binary: false }),
                encoding: crate::config::Encoding::Hex,
                end: crate::config::LineEnd::Newline,
                names: crate::config::Names::Escaped,
            },
            base64: false,
        }
    }

    #[test]
    fn wording_and_plurals() {
        let normal = opts(Verbosity::Normal, false, false);
        let t = Tally {
            improper: 1,
            unreadable: 2,
            mismatched: 1,
            formatted: true,
            matched: false,
        };
        assert_eq!(
            t.warnings("f", &normal),
            [
                "WARNING: 1 line is improperly formatted",
                "WARNING: 2 listed files could not be read",
                "WARNING: 1 computed checksum did NOT match",
            ]
        );
        let t = Tally {
            improper: 2,
            unreadable: 1,
            mismatched: 3,
            formatted: true,
            matched: true,
        };
        assert_eq!(
            t.warnings("f", &normal),
            [
                "WARNING: 2 lines are improperly formatted",
                "WARNING: 1 listed file could not be read",
                "WARNING: 3 computed checksums did NOT match",
            ]
        );
        assert!(!t.passed(&normal));
        assert!(
            t.warnings("f", &opts(Verbosity::Status, false, false))
                .is_empty()
        );
    }

    #[test]
    fn nothing_formatted_or_verified() {
        let empty = Tally::default();
        let status = opts(Verbosity::Status, false, false);
        assert_eq!(
            empty.warnings("'standard input'", &status),
            ["'standard input': no properly formatted checksum lines found"]
        );
        assert!(!empty.passed(&status));
        let missing_only = Tally {
            formatted: true,
            ..Tally::default()
        };
        let ign = opts(Verbosity::Quiet, false, true);
        assert_eq!(
            missing_only.warnings("f", &ign),
            ["f: no file was verified"]
        );
        assert!(!missing_only.passed(&ign));
    }

    #[test]
    fn strict_fails_on_improper_lines() {
        let t = Tally {
            improper: 1,
            formatted: true,
            matched: true,
            ..Tally::default()
        };
        assert!(t.passed(&opts(Verbosity::Normal, false, false)));
        assert!(!t.passed(&opts(Verbosity::Normal, true, false)));
    }
}
