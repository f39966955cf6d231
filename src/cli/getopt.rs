//! A small model of glibc's `getopt_long`, as GNU md5sum calls it: short
//! clusters (`-cw`, `-j2`, `-j 2`), long options with `=value` or the next
//! word as value, unambiguous abbreviations, operands permuted after the
//! options (unless `POSIXLY_CORRECT`), `--` ending the options, and GNU's
//! own error lines. xxhsum's names scan with the same table by xxhsum
//! 0.8.1's own loop ([`Syntax::Xxhsum`]).
//!
//! Why a model and not clap: clap cannot express GNU's semantics
//! (abbreviations resolved against GNU's options first, `-j -1` taking `-1`
//! as the value, stopping at the first `--help`), and its errors carry no
//! candidate list for an ambiguous abbreviation. The table comes from the
//! option table (`super::options::table`); the options met are handed back
//! by their place in it, with their values, for `parse_args` (`cli/argv.rs`) to
//! apply. clap only renders help.

use std::ffi::{OsStr, OsString};

/// One option the scan knows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Opt {
    /// The long name, without `--`.
    pub long: &'static str,
    /// The short letter, if any.
    pub short: Option<u8>,
    /// Does it take a value (required, as every valued option here)?
    pub takes_value: bool,
    /// Is it one of the GNU tool's own options? Under a GNU name an
    /// abbreviation is resolved among these first, so every abbreviation
    /// GNU accepts keeps its GNU meaning despite fastsum's extra options.
    pub gnu: bool,
    /// Does it end the scan (`--help`, `--version`)? GNU acts on it at
    /// once, so nothing after it, not even an error, matters.
    pub stops: bool,
}

/// How abbreviated long options are resolved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Abbrev {
    /// Exact names only (b3sum, a clap program, infers nothing).
    Off,
    /// Any unambiguous prefix of any option (fastsum).
    Flat,
    /// A prefix of the GNU options first; only if none matches, of the
    /// others (md5sum, sha*sum).
    GnuFirst,
}

/// How the words are read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Syntax {
    /// glibc's `getopt_long`: abbreviations resolved as `abbrev` says;
    /// `posix`: the first operand ends the options (`POSIXLY_CORRECT`),
    /// else operands are permuted after them.
    Getopt {
        /// How abbreviated long options are resolved.
        abbrev: Abbrev,
        /// `POSIXLY_CORRECT` is set.
        posix: bool,
    },
    /// xxhsum 0.8.1's own loop (no getopt): long names exact, the first
    /// operand ends the options (the rest are FILEs, whatever they look
    /// like), a lone `-` among the options names standard input and is no
    /// operand, and a short option's value is the digits right after its
    /// letter, maybe none (`-H3`, `-H`: its `XSUM_readU32FromChar`), the
    /// cluster going on after them (`-H3q`).
    Xxhsum,
}

/// An option met: its place in the table, its value, and whether it was
/// met as a short option (`-h` and `--help` differ).
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Met {
    /// The index of the option in the table scanned with.
    pub index: usize,
    /// Its value, for an option that takes one.
    pub value: Option<OsString>,
    /// Met as `-x` rather than `--long`.
    pub short: bool,
}

/// The options met, in order, and the operands.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Scanned {
    /// The options in command-line order (up to the error, if any).
    pub options: Vec<Met>,
    /// The operands (FILEs), in order.
    pub operands: Vec<OsString>,
    /// The error that stopped the scan, after [`Scanned::options`]: GNU
    /// acts on each option as getopt hands it over, so an earlier option's
    /// bad value is reported before it.
    pub error: Option<GetoptError>,
    /// The last word scanned before [`Scanned::error`] was the value of
    /// the last option met (`-l x -x`): b3sum's clap has not parsed that
    /// value yet when it meets the error.
    pub value_pending: bool,
    /// [`Syntax::Xxhsum`]: a lone `-` was met among the options.
    pub stdin_named: bool,
}

/// A usage error, as getopt_long reports it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum GetoptError {
    /// `-x` with no such letter.
    InvalidShort(u8),
    /// `-j` last on the line.
    ShortNeedsValue(u8),
    /// `--bogus` (the word as given, `=value` included).
    Unrecognized(OsString),
    /// `--s`: the word as given and every option it abbreviates.
    Ambiguous(OsString, Vec<&'static str>),
    /// `--tag=x`: the full option name.
    NoValueAllowed(&'static str, OsString),
    /// `--jobs` last on the line: the full option name.
    LongNeedsValue(&'static str),
}

impl GetoptError {
    /// glibc's message (after `program: `), as raw bytes: an invalid short
    /// option is written as the byte it is.
    pub(crate) fn gnu_message(&self) -> Vec<u8> {
        let mut m = Vec::new();
        match self {
            GetoptError::InvalidShort(c) => {
                m.extend_from_slice(b"invalid option -- '");
                m.push(*c);
                m.push(b'\'');
            }
            GetoptError::ShortNeedsValue(c) => {
                m.extend_from_slice(b"option requires an argument -- '");
                m.push(*c);
                m.push(b'\'');
            }
            GetoptError::Unrecognized(word) => {
                m.extend_from_slice(b"unrecognized option '");
                m.extend_from_slice(word.as_encoded_bytes());
                m.push(b'\'');
            }
            GetoptError::Ambiguous(word, candidates) => {
                m.extend_from_slice(b"option '");
                m.extend_from_slice(word.as_encoded_bytes());
                m.extend_from_slice(b"' is ambiguous; possibilities:");
                for c in candidates {
                    m.extend_from_slice(format!(" '--{c}'").as_bytes());
                }
            }
            GetoptError::NoValueAllowed(name, _) => m.extend_from_slice(
                format!("option '--{name}' doesn't allow an argument").as_bytes(),
            ),
            GetoptError::LongNeedsValue(name) => {
                m.extend_from_slice(format!("option '--{name}' requires an argument").as_bytes())
            }
        }
        m
    }

    /// The argv word clap would call "unexpected" (for b3sum's clap-worded
    /// errors), and the one a "did you mean" is about.
    pub(crate) fn word(&self) -> OsString {
        match self {
            GetoptError::InvalidShort(c) => arg_piece(&[b'-', *c]),
            GetoptError::ShortNeedsValue(c) => arg_piece(&[b'-', *c]),
            GetoptError::Unrecognized(w) | GetoptError::Ambiguous(w, _) => w.clone(),
            GetoptError::NoValueAllowed(n, _) | GetoptError::LongNeedsValue(n) => {
                OsString::from(format!("--{n}"))
            }
        }
    }
}

/// Find the option `name` (a long name, possibly abbreviated) stands for.
fn resolve(table: &[Opt], name: &[u8], word: &OsStr, abbrev: Abbrev) -> Result<usize, GetoptError> {
    // (an option with no long name, as sum's -r, has none to match)
    let named = |o: &Opt| !o.long.is_empty();
    if let Some(i) = table
        .iter()
        .position(|o| named(o) && o.long.as_bytes() == name)
    {
        return Ok(i);
    }
    let unrecognized = || GetoptError::Unrecognized(word.to_owned());
    // an empty name (`--=x`) is a prefix of every option, as in glibc
    if abbrev == Abbrev::Off {
        return Err(unrecognized());
    }
    let prefixed = |gnu_only: bool| -> Vec<usize> {
        (0..table.len())
            .filter(|&i| named(&table[i]) && table[i].long.as_bytes().starts_with(name))
            .filter(|&i| !gnu_only || table[i].gnu)
            .collect()
    };
    let mut found = if abbrev == Abbrev::GnuFirst {
        prefixed(true)
    } else {
        Vec::new()
    };
    if found.is_empty() {
        found = prefixed(false);
    }
    match found.as_slice() {
        [] => Err(unrecognized()),
        [one] => Ok(*one),
        many => Err(GetoptError::Ambiguous(
            word.to_owned(),
            many.iter().map(|&i| table[i].long).collect(),
        )),
    }
}

/// Scan `args` (without `argv[0]`) as `syntax` reads them. The scan stops
/// after an option that [`Opt::stops`] it, or at an error (in
/// [`Scanned::error`], after the options met before it). The operands are
/// moved out of `args`, not copied (`xargs` passes thousands).
pub(crate) fn scan(table: &[Opt], args: Vec<OsString>, syntax: Syntax) -> Scanned {
    let mut out = Scanned::default();
    if let Err(e) = scan_into(&mut out, table, args, syntax) {
        out.error = Some(e);
    }
    out
}

/// [`scan`] into `out`, up to the first error.
fn scan_into(
    out: &mut Scanned,
    table: &[Opt],
    mut args: Vec<OsString>,
    syntax: Syntax,
) -> Result<(), GetoptError> {
    let (abbrev, posix, xxhsum) = match syntax {
        Syntax::Getopt { abbrev, posix } => (abbrev, posix, false),
        Syntax::Xxhsum => (Abbrev::Off, true, true),
    };
    let mut i = 0;
    while i < args.len() {
        let word = args[i].as_encoded_bytes();
        i += 1;
        if xxhsum && word == b"-" {
            out.stdin_named = true;
            continue;
        }
        if word == b"--" {
            out.operands.extend(args.drain(i..));
            break;
        }
        if let Some(body) = word.strip_prefix(b"--") {
            if long_option(out, table, (&args, &mut i), body, abbrev)? {
                return Ok(());
            }
        } else if word.len() > 1 && word[0] == b'-' {
            if short_options(out, table, (&args, &mut i), word, xxhsum)? {
                return Ok(());
            }
        } else if posix {
            out.operands.extend(args.drain(i - 1..));
            break;
        } else {
            out.operands.push(std::mem::take(&mut args[i - 1]));
            out.value_pending = false;
        }
    }
    Ok(())
}

/// The long option `--body` (`args[*i - 1]`; `--name` or `--name=value`),
/// its value the next word if it needs one and has none inline (then `*i`
/// moves past it). True when the option stops the scan.
fn long_option(
    out: &mut Scanned,
    table: &[Opt],
    (args, i): (&[OsString], &mut usize),
    body: &[u8],
    abbrev: Abbrev,
) -> Result<bool, GetoptError> {
    let (name, inline) = match body.iter().position(|&b| b == b'=') {
        Some(eq) => (&body[..eq], Some(&body[eq + 1..])),
        None => (body, None),
    };
    let index = resolve(table, name, &args[*i - 1], abbrev)?;
    let opt = &table[index];
    let value = match (opt.takes_value, inline) {
        (true, Some(v)) => Some(arg_piece(v)),
        (true, None) => {
            let v = args.get(*i).cloned();
            *i += 1;
            Some(v.ok_or(GetoptError::LongNeedsValue(opt.long))?)
        }
        (false, Some(v)) => {
            return Err(GetoptError::NoValueAllowed(opt.long, arg_piece(v)));
        }
        (false, None) => None,
    };
    out.options.push(Met {
        index,
        value,
        short: false,
    });
    out.value_pending = opt.takes_value && inline.is_none();
    Ok(opt.stops)
}

/// A cluster of short options, `word` (`-bz`, `-l256`, `-l 256`; under
/// xxhsum `-H3q`, a value its digits only), a value the next word when
/// the cluster ends where one is needed (then `*i` moves past it). True
/// when an option stops the scan.
fn short_options(
    out: &mut Scanned,
    table: &[Opt],
    (args, i): (&[OsString], &mut usize),
    word: &[u8],
    xxhsum: bool,
) -> Result<bool, GetoptError> {
    let mut j = 1;
    while j < word.len() {
        let c = word[j];
        j += 1;
        let index = table
            .iter()
            .position(|o| o.short == Some(c))
            .ok_or(GetoptError::InvalidShort(c))?;
        let opt = &table[index];
        let mut separate = false;
        let value = if opt.takes_value && xxhsum {
            let digits = word[j..].iter().take_while(|c| c.is_ascii_digit()).count();
            j += digits;
            Some(arg_piece(&word[j - digits..j]))
        } else if opt.takes_value {
            let v = if j < word.len() {
                arg_piece(&word[j..])
            } else {
                let v = args.get(*i).cloned();
                *i += 1;
                separate = true;
                v.ok_or(GetoptError::ShortNeedsValue(c))?
            };
            j = word.len();
            Some(v)
        } else {
            None
        };
        out.options.push(Met {
            index,
            value,
            short: true,
        });
        out.value_pending = separate;
        if opt.stops {
            return Ok(true);
        }
    }
    Ok(false)
}

/// The argument that `bytes` (a piece of one) are: exact on Unix; on
/// Windows the piece of a UTF-16 argument it is, or (cut inside a
/// character: an unknown option letter in a message) lossy.
fn arg_piece(bytes: &[u8]) -> OsString {
    crate::sys::os_string(bytes.to_vec())
        .unwrap_or_else(|| String::from_utf8_lossy(bytes).into_owned().into())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opt(long: &'static str, short: Option<u8>, takes_value: bool, gnu: bool) -> Opt {
        Opt {
            long,
            short,
            takes_value,
            gnu,
            stops: long == "help",
        }
    }

    /// md5sum's table (in its order) plus two fastsum extras.
    fn table() -> Vec<Opt> {
        vec![
            opt("check", Some(b'c'), false, true),
            opt("status", None, false, true),
            opt("strict", None, false, true),
            opt("tag", None, false, true),
            opt("text", Some(b't'), false, true),
            opt("help", None, false, true),
            opt("chunk", None, true, false),
            opt("stats", None, false, false),
            opt("jobs", Some(b'j'), true, false),
        ]
    }

    fn getopt(abbrev: Abbrev, posix: bool) -> Syntax {
        Syntax::Getopt { abbrev, posix }
    }

    fn os(v: &[&str]) -> Vec<OsString> {
        v.iter().map(OsString::from).collect()
    }

    fn ok(args: &[&str], abbrev: Abbrev) -> Scanned {
        let s = scan(&table(), os(args), getopt(abbrev, false));
        assert_eq!(s.error, None, "{args:?}");
        s
    }

    fn err(args: &[&str], abbrev: Abbrev) -> String {
        let e = scan(&table(), os(args), getopt(abbrev, false))
            .error
            .unwrap();
        String::from_utf8(e.gnu_message()).unwrap()
    }

    fn names(s: &Scanned) -> Vec<(&'static str, Option<&str>)> {
        let table = table();
        s.options
            .iter()
            .map(|m| {
                let value = m.value.as_ref().map(|v| v.to_str().unwrap());
                (table[m.index].long, value)
            })
            .collect()
    }

    #[test]
    fn clusters_values_and_operands_after_options() {
        let s = ok(
            &[
                "a", "-ct", "-j2", "b", "-j", "-1", "--jobs=3", "--jobs", "4",
            ],
            Abbrev::Flat,
        );
        assert_eq!(
            names(&s),
            [
                ("check", None),
                ("text", None),
                ("jobs", Some("2")),
                ("jobs", Some("-1")),
                ("jobs", Some("3")),
                ("jobs", Some("4"))
            ]
        );
        assert_eq!(s.operands, os(&["a", "b"]));
        let s = ok(&["-", "--", "-c", "--x"], Abbrev::Flat);
        assert!(s.options.is_empty());
        assert_eq!(s.operands, os(&["-", "-c", "--x"]));
        // POSIXLY_CORRECT: the first operand ends the options
        let s = scan(&table(), os(&["a", "-c"]), getopt(Abbrev::Flat, true));
        assert_eq!(s.operands, os(&["a", "-c"]));
    }

    #[test]
    fn unambiguous_abbreviations_gnu_ones_first() {
        assert_eq!(names(&ok(&["--ch"], Abbrev::GnuFirst)), [("check", None)]);
        assert_eq!(
            err(&["--ch"], Abbrev::Flat),
            "option '--ch' is ambiguous; possibilities: '--check' '--chunk'"
        );
        assert_eq!(
            names(&ok(&["--stat"], Abbrev::GnuFirst)),
            [("status", None)]
        );
        assert_eq!(
            names(&ok(&["--stats"], Abbrev::GnuFirst)),
            [("stats", None)]
        );
        assert_eq!(
            names(&ok(&["--j=2"], Abbrev::GnuFirst)),
            [("jobs", Some("2"))]
        );
        assert_eq!(
            err(&["--s=1"], Abbrev::GnuFirst),
            "option '--s=1' is ambiguous; possibilities: '--status' '--strict'"
        );
        assert_eq!(
            err(&["--ta=x"], Abbrev::GnuFirst),
            "option '--tag' doesn't allow an argument"
        );
        assert_eq!(err(&["--ch"], Abbrev::Off), "unrecognized option '--ch'");
    }

    #[test]
    fn errors_are_worded_as_glibc() {
        assert_eq!(err(&["-/"], Abbrev::Flat), "invalid option -- '/'");
        assert_eq!(err(&["-cx"], Abbrev::Flat), "invalid option -- 'x'");
        assert_eq!(
            err(&["-j"], Abbrev::Flat),
            "option requires an argument -- 'j'"
        );
        assert_eq!(
            err(&["--jobs"], Abbrev::Flat),
            "option '--jobs' requires an argument"
        );
        assert_eq!(
            err(&["--jo"], Abbrev::Flat),
            "option '--jobs' requires an argument"
        );
        assert_eq!(
            err(&["--bogus=x"], Abbrev::Flat),
            "unrecognized option '--bogus=x'"
        );
    }

    /// xxhsum's loop: a short option's value is the digits glued to it
    /// (maybe none), a lone `-` names stdin, the first operand ends the
    /// options, long names are exact.
    #[test]
    fn xxhsums_own_loop() {
        let table = [
            opt("check", Some(b'c'), false, false),
            opt("", Some(b'H'), true, false),
            opt("jobs", None, true, false),
        ];
        let words = ["-H3c", "-", "-H", "--jobs", "2", "f", "-c", "-"];
        let s = scan(&table, os(&words), Syntax::Xxhsum);
        let met: Vec<(&str, Option<&str>)> = s
            .options
            .iter()
            .map(|m| {
                (
                    table[m.index].long,
                    m.value.as_ref().map(|v| v.to_str().unwrap()),
                )
            })
            .collect();
        assert_eq!(
            met,
            [
                ("", Some("3")),
                ("check", None),
                ("", Some("")),
                ("jobs", Some("2"))
            ]
        );
        assert_eq!(s.operands, os(&["f", "-c", "-"]));
        assert!(s.stdin_named && s.error.is_none());
        let s = scan(&table, os(&["-H12x"]), Syntax::Xxhsum);
        assert_eq!(s.error, Some(GetoptError::InvalidShort(b'x')));
        let s = scan(&table, os(&["--job", "2"]), Syntax::Xxhsum);
        assert_eq!(s.error, Some(GetoptError::Unrecognized("--job".into())));
    }

    #[test]
    fn help_stops_the_scan_but_not_an_earlier_error() {
        let s = ok(&["-c", "--help", "--bogus"], Abbrev::GnuFirst);
        assert_eq!(names(&s), [("check", None), ("help", None)]);
        assert_eq!(
            err(&["--bogus", "--help"], Abbrev::GnuFirst),
            "unrecognized option '--bogus'"
        );
    }
}
