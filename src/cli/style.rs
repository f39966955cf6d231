//! The one place a run's output style is decided: what the options and the
//! name ask for becomes a `config::Style` (which writer, encoding, line
//! end, name policy), which `output::writer` writes; nothing below `cli`
//! asks which tool it is to know how a line looks. A flavour's row
//! (`cli/name.rs`) names its [`Styles`]: [`GNU`], [`B3SUM`] or [`XXHSUM`].

use crate::algo::Algorithm;
use crate::command::check::infer;
use crate::config::{Encoding, LineEnd, LineFormat, Names, Shape, Style, XofOutput, XxhOutput};

use super::options::Args;
use super::{Flavour, Invocation};

/// A name's style: how its hash lines look (`xof`: b3sum's
/// `--length`/`--raw`/`--no-names`, when given), and `-c`'s (and
/// `--audit`'s) status lines.
#[derive(Clone, Copy)]
pub(super) struct Styles {
    pub(super) hash: fn(&Args, &Invocation, Option<XofOutput>) -> Style,
    pub(super) check: fn(&Args, &Invocation) -> Style,
}

/// GNU's (and fastsum's, cksum's CRC and sum's, `--json`, `--raw`).
pub(super) const GNU: Styles = Styles { hash, check };

/// b3sum's.
pub(super) const B3SUM: Styles = Styles {
    hash: |args, inv, xof| b3sum(format(args, inv), xof),
    check: |_, _| b3sum(LineFormat::Gnu { binary: false }, None),
};

/// xxhsum's, for the algorithm the run hashes with.
pub(super) const XXHSUM: Styles = Styles {
    hash: |args, inv, _| xxhsum(args, xxhsum_algorithm(args, inv)),
    check: |args, inv| xxhsum(args, xxhsum_algorithm(args, inv)),
};

/// How hash lines are laid out under `inv`'s name.
fn format(args: &Args, inv: &Invocation) -> LineFormat {
    let cksum = inv.flavour() == Flavour::Cksum;
    // some algorithms' lines are always tagged (`Algorithm::tagged_only`)
    if args.tag
        || (cksum && !args.untagged)
        || args.algorithms.len() > 1
        || args.algorithms.iter().any(|a| a.tagged_only())
        || unreadable_untagged(args, inv)
    {
        LineFormat::Tagged
    } else {
        LineFormat::Gnu {
            binary: args.binary == Some(true),
        }
    }
}

/// GNU's hash lines under `inv`'s name.
fn hash(args: &Args, inv: &Invocation, _: Option<XofOutput>) -> Style {
    let format = format(args, inv);
    // cksum's CRC and sum's checksums print their own lines (`cli::resolve`
    // refuses them beside another algorithm)
    let legacy = match args.algorithms.as_slice() {
        [] => inv.default_algorithm.is_some_and(|a| a.legacy().is_some()),
        chosen => chosen.iter().any(|a| a.legacy().is_some()),
    };
    let shape = if args.json {
        Shape::Json
    } else if args.raw_digest {
        Shape::Raw
    } else if legacy {
        Shape::Legacy {
            // GNU names no input read from stdin by default
            named: !args.files.is_empty(),
        }
    } else {
        Shape::Gnu(format)
    };
    Style {
        shape,
        encoding: if args.base64 {
            Encoding::Base64
        } else {
            Encoding::Hex
        },
        // -z: NUL-terminated lines, names as they are
        end: if args.zero {
            LineEnd::Nul
        } else {
            LineEnd::Newline
        },
        names: if args.zero {
            Names::Verbatim
        } else {
            Names::Escaped
        },
    }
}

/// Whether, under fastsum's own name, the one algorithm's untagged lines
/// are such that `fastsum -c` without `-a` could not read them back: a
/// digest length several cryptographic algorithms share (SHA-256's 64 hex
/// digits, SHA-512's 128), or a non-cryptographic hash's (never inferred):
/// `command/check/infer.rs` `reads_back`. Those are written tagged, as GNU's
/// `cksum -a sha256` writes them; `--untagged`, `-b` and `-t` (GNU's
/// untagged layouts, asked for) keep them untagged. MD5's and SHA-1's stay
/// untagged, as md5sum and sha1sum write them.
fn unreadable_untagged(args: &Args, inv: &Invocation) -> bool {
    let algo = match args.algorithms.as_slice() {
        [] => inv.default_algorithm.unwrap_or(Algorithm::Md5),
        [one] => *one,
        _ => return false,
    };
    // (--tree-digest's line is a directory's, which -c does not check)
    inv.flavour() == Flavour::Fastsum
        && !args.tree_digest
        && !args.untagged
        && args.binary.is_none()
        && algo.legacy().is_none()
        && !infer::reads_back(algo)
}

/// GNU's `-c` (and `--audit`) status lines.
fn check(args: &Args, _: &Invocation) -> Style {
    Style {
        shape: if args.json {
            Shape::Json
        } else {
            Shape::Gnu(LineFormat::Gnu { binary: false })
        },
        encoding: Encoding::Hex,
        end: LineEnd::Newline,
        names: Names::Escaped,
    }
}

/// b3sum's: names written lossily (as b3sum prints them) and escaped.
fn b3sum(format: LineFormat, xof: Option<XofOutput>) -> Style {
    Style {
        shape: Shape::B3sum(format, xof),
        encoding: Encoding::Hex,
        end: LineEnd::Newline,
        names: Names::LossyEscaped,
    }
}

/// The algorithm a run under an xxhsum name hashes with: `-H`'s, the
/// name's, else XXH64.
pub(super) fn xxhsum_algorithm(args: &Args, inv: &Invocation) -> Algorithm {
    args.algorithms
        .first()
        .copied()
        .or(inv.default_algorithm)
        .unwrap_or(Algorithm::Xxh64)
}

/// The style of hash lines under an xxhsum name, hashing with `algo`.
fn xxhsum(args: &Args, algo: Algorithm) -> Style {
    let format = if args.tag || algo.tagged_only() {
        LineFormat::Tagged
    } else {
        LineFormat::Gnu { binary: false }
    };
    let xxh = XxhOutput {
        little_endian: args.little_endian,
        warn: args.xxh_warn,
        blank_out: !args.files.is_empty() && !args.xxh_quiet,
    };
    Style {
        shape: Shape::Xxhsum(format, xxh),
        encoding: Encoding::Hex,
        end: LineEnd::Newline,
        names: Names::Verbatim,
    }
}

#[cfg(test)]
mod tests {
    use std::ffi::OsString;

    use super::*;
    use crate::config::Command;

    /// The style `argv` resolves to (hashing, checking or auditing).
    fn style(argv: &[&str]) -> Style {
        let (_, _, config) = super::super::parse(argv.iter().map(OsString::from).collect());
        match config.map(|c| c.command) {
            Ok(Command::Hash(h)) => h.style,
            Ok(Command::Check(c)) => c.style,
            Ok(Command::Audit(a)) => a.check.style,
            other => panic!("{argv:?}: {other:?}"),
        }
    }

    const UNTAGGED: LineFormat = LineFormat::Gnu { binary: false };

    #[test]
    fn each_name_and_option_picks_one_writer() {
        let shape = |argv: &[&str]| style(argv).shape;
        assert_eq!(shape(&["md5sum", "f"]), Shape::Gnu(UNTAGGED));
        assert_eq!(
            shape(&["md5sum", "-b", "f"]),
            Shape::Gnu(LineFormat::Gnu { binary: true })
        );
        assert_eq!(shape(&["fastsum", "--tag"]), Shape::Gnu(LineFormat::Tagged));
        assert_eq!(
            shape(&["fastsum", "-a", "md5,sha1"]),
            Shape::Gnu(LineFormat::Tagged)
        );
        assert_eq!(
            shape(&["fastsum", "-a", "xxh3"]),
            Shape::Gnu(LineFormat::Tagged)
        );
        assert_eq!(
            shape(&["cksum", "-a", "md5"]),
            Shape::Gnu(LineFormat::Tagged)
        );
        assert_eq!(shape(&["cksum", "f"]), Shape::Legacy { named: true });
        assert_eq!(shape(&["sum"]), Shape::Legacy { named: false });
        assert_eq!(shape(&["cksum", "--raw", "f"]), Shape::Raw);
        assert_eq!(shape(&["fastsum", "--json"]), Shape::Json);
        assert_eq!(shape(&["fastsum", "-c", "--json", "s"]), Shape::Json);
        assert_eq!(shape(&["md5sum", "-c", "s"]), Shape::Gnu(UNTAGGED));
        assert_eq!(shape(&["b3sum", "-c", "s"]), Shape::B3sum(UNTAGGED, None));
        let xof = XofOutput {
            length: 8,
            raw: false,
            no_names: true,
        };
        assert_eq!(
            shape(&["b3sum", "--length", "8", "--no-names"]),
            Shape::B3sum(UNTAGGED, Some(xof))
        );
        let xxh = XxhOutput {
            little_endian: true,
            warn: false,
            blank_out: true,
        };
        assert_eq!(
            shape(&["xxh3sum", "--little-endian", "f"]),
            Shape::Xxhsum(LineFormat::Tagged, xxh)
        );
    }

    #[test]
    fn encoding_line_end_and_names_are_axes_of_their_own() {
        let s = style(&["cksum", "-a", "sha256", "--base64"]);
        assert_eq!(s.encoding, Encoding::Base64);
        let s = style(&["md5sum", "-z"]);
        assert_eq!((s.end, s.names), (LineEnd::Nul, Names::Verbatim));
        let s = style(&["md5sum"]);
        assert_eq!((s.end, s.names), (LineEnd::Newline, Names::Escaped));
        assert_eq!(style(&["b3sum"]).names, Names::LossyEscaped);
        assert_eq!(style(&["xxhsum", "f"]).names, Names::Verbatim);
    }
}
