//! GNU's grammar (coreutils 9.1's md5sum … sha512sum, b2sum, cksum), and
//! fastsum's own rules on top of it under its own name: a line's syntax is
//! `parse.rs`'s ([`Syntax`], by the name's [`Tags`](crate::config::Tags));
//! this reads the lines of a check file with it, in order:
//!
//! * blank lines and `#` comments are skipped; a malformed line is an
//!   `Event::Improper` (counted, warned about under `-w`);
//! * the "BSD reversed" latch ([`Latch`]) settles, across check files,
//!   whether untagged lines are `hex  name` or `hex name`;
//! * without an algorithm chosen, GNU cksum's `-w` names the last tag read.
//!
//! fastsum's own rules (`GnuRules::own_rules`) add: an OpenPGP
//! clear-signed file's armour is skipped (`signature::Armour`), a listed
//! name found beside the check file is that one ([`beside`]: settled where
//! it is opened, `Input::listed`), a `#meta` line is tied to the line after it, a file
//! holding only a digest checks the file its name names, and without `-a`
//! an untagged line's algorithm is inferred (`infer.rs`).

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use super::super::etag::etag_candidates;
use super::super::infer::{self, Untagged};
use super::super::parse::{self, Accept, CheckLine, Digits, Form, Syntax, line_body};
use super::super::{CheckJob, Event, Listed, Step};
use super::{At, Grammar, Rules};
use crate::algo::{Algorithm, Algorithms};
use crate::command::meta::{MetaLine, PREFIX};
use crate::config::{Dialect, GnuRules};
use crate::input::Input;
use crate::read::{Job, Task};
use crate::signature::Armour;

/// GNU's "BSD reversed" latch. The first untagged line settles whether
/// untagged lines are standard (`hex  name`) or reversed (`hex name`), for
/// the rest of the run, across check files: later reversed-looking lines are
/// then improper, or standard-looking lines name ` name` (GNU does this to
/// stop a renamed file with a leading blank from passing for another).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Latch {
    /// No untagged line yet.
    #[default]
    Unset,
    /// Settled on `hex  name` / `hex *name`.
    Standard,
    /// Settled on `hex name`.
    Reversed,
}

impl Latch {
    /// Take a line of `form` into account. `None` if GNU rejects it, else
    /// whether its name is to be read the reversed way.
    fn accept(&mut self, form: Form) -> Option<bool> {
        match (form, *self) {
            (Form::Tagged, _) => Some(false),
            (Form::Standard, Latch::Reversed) => Some(true),
            (Form::Standard, _) => {
                *self = Latch::Standard;
                Some(false)
            }
            (Form::Reversed, Latch::Standard) => None,
            (Form::Reversed, _) => {
                *self = Latch::Reversed;
                Some(true)
            }
        }
    }
}

/// What fastsum's own rules know of the check file being read.
#[derive(Debug, Default)]
struct ThisFile {
    /// Where its lines stand in an OpenPGP clear-signed armour, if it has
    /// one (read without a key: the signature is not checked).
    armour: Option<Armour>,
    /// Its directory, where a listed name not found from here is looked
    /// for (`None` for one here, or stdin).
    beside: Option<PathBuf>,
    /// The algorithm its name names (`SHA256SUMS`), for its untagged lines
    /// (without `-a`; see `infer`).
    named: Option<Algorithm>,
    /// The algorithm the last block header named (`# Checksums-Sha256:`).
    block: Option<Algorithm>,
    /// The file a line holding only a digest checks, and its algorithm
    /// (`X.tar.gz.sha256`: `X.tar.gz`, SHA-256).
    bare: Option<(Vec<u8>, Algorithm)>,
    /// The `#meta` line just read, for the line after it.
    meta: Option<MetaLine>,
}

/// GNU's grammar, by the rules the name and `-a` give (`Dialect`'s `gnu`).
pub(crate) fn make(dialect: &Dialect, algos: Algorithms) -> Box<dyn Grammar> {
    Box::new(Gnu::new(dialect.gnu, algos))
}

/// GNU's grammar, with fastsum's own rules when they apply.
pub(crate) struct Gnu {
    /// How a line body is parsed.
    syntax: Syntax,
    /// What `-w` names (see `Event::Improper`).
    warn_name: &'static str,
    latch: Latch,
    /// fastsum's own rules (see `GnuRules::own_rules`).
    own_rules: bool,
    /// Untagged lines' algorithm is inferred (fastsum's own rules, no
    /// `-a`): see `infer`.
    infer: bool,
    file: ThisFile,
}

impl Gnu {
    /// The grammar of `rules`, reading untagged lines by `algos`.
    pub(crate) fn new(rules: GnuRules, algos: Algorithms) -> Gnu {
        Gnu {
            syntax: Syntax {
                default: algos.first(),
                accept: match (rules.algorithm_chosen, algos.len()) {
                    (false, _) => Accept::Any,
                    (true, 1) => Accept::OnlyDefault,
                    (true, _) => Accept::Only(algos),
                },
                digits: if rules.base64 {
                    Digits::HexOrBase64
                } else {
                    Digits::Hex
                },
                tags: rules.tags,
            },
            // (GNU's DIGEST_TYPE_STRING: cksum's CRC before any tag is read)
            warn_name: algos.first().gnu_name(),
            latch: Latch::default(),
            own_rules: rules.own_rules,
            infer: rules.own_rules && !rules.algorithm_chosen,
            file: ThisFile::default(),
        }
    }
}

impl Grammar for Gnu {
    fn rules(&self) -> Rules {
        Rules::GNU
    }

    /// Where reading the check file `input` starts: its directory, and the
    /// algorithm its name names (fastsum's own rules).
    fn open(&mut self, input: &Input) {
        let path = match input {
            Input::Path(p) if self.own_rules => Some(p),
            _ => None,
        };
        let bytes = path.map(|p| p.as_os_str().as_encoded_bytes());
        // a digest-only file's algorithm: its name's, or -a's
        let bare_algo = |named| match self.infer {
            true => named,
            false => self.syntax.default,
        };
        self.file = ThisFile {
            beside: path
                .and_then(|p| p.parent())
                .filter(|d| !d.as_os_str().is_empty())
                .map(Path::to_path_buf),
            named: bytes.filter(|_| self.infer).and_then(infer::from_name),
            bare: bytes
                .and_then(infer::bare_target)
                .map(|(name, algo)| (name, bare_algo(algo))),
            ..ThisFile::default()
        };
    }

    fn line(&mut self, raw: &[u8], at: At<'_>) -> Step {
        if self.own_rules
            && at.line == 1
            && let Some(armour) = Armour::starts(raw)
        {
            self.file.armour = Some(armour);
            return Step::Skip;
        }
        let raw = match self.file.armour.as_mut() {
            None => raw,
            Some(armour) => match armour.read(raw) {
                Some(line) => line,
                None => return Step::Skip,
            },
        };
        // a `#meta` line is tied to the line right after it: kept as it
        // is, nothing else asked of it (it is no block header), read only
        // if that line's digest does not match
        if self.own_rules
            && let Some(rest) = raw.strip_prefix(PREFIX)
        {
            self.file.meta = MetaLine::keep(rest);
            return Step::Skip;
        }
        if self.infer
            && let Some(algo) = infer::from_header(raw)
        {
            self.file.block = Some(algo);
        }
        let meta = self.file.meta.take();
        let Some(body) = line_body(raw) else {
            return Step::Skip;
        };
        let mut job = self.job(body, at);
        if let Job::Hash(task) = &mut job {
            task.context.meta = meta;
        }
        Step::Job(job)
    }
}

impl Gnu {
    /// The job for one line body (see `parse::line_body`) at `at`.
    fn job(&mut self, body: &[u8], at: At<'_>) -> CheckJob {
        // with no algorithm chosen, GNU cksum's -w names the last tag it
        // read, even on a line it then finds improper
        let tag = match self.syntax.accept {
            Accept::Any => self.syntax.tag_of(body),
            _ => None,
        };
        if let Some(algo) = tag {
            self.warn_name = algo.gnu_name();
        }
        let mut algo = self.warn_name;
        let mut syntax = self.syntax;
        // (inferring: no -a, so every tag is read: `tag` is the line's)
        if self.infer {
            let said = self.file.block.or(self.file.named);
            match infer::untagged(body, said, &syntax, tag.is_some()) {
                Untagged::Known(known) => {
                    syntax.default = known;
                    if tag.is_none() {
                        algo = known.gnu_name();
                    }
                }
                Untagged::Unknown { bytes, hex } => return unknown(at, algo, bytes, hex),
                Untagged::Default => {}
            }
        }
        let improper = || {
            Job::Pass(Event::Improper {
                file: at.file.clone(),
                line: at.line,
                algo,
            })
        };
        let beside = self.file.beside.as_deref();
        let Ok(line) = syntax.parse(body) else {
            return match &self.file.bare {
                Some((name, algo)) => {
                    bare_job(body, beside, (name, *algo), &syntax).unwrap_or_else(improper)
                }
                None => improper(),
            };
        };
        match listed_name(&line, at, &mut self.latch) {
            Some(name) => hash_job(self::beside(beside, name), &line),
            None => improper(),
        }
    }
}

/// A line whose algorithm cannot be known: `bytes` of digest, in hex or
/// base64 (`algo`: what `-w` names).
fn unknown(at: At<'_>, algo: &'static str, bytes: usize, hex: bool) -> CheckJob {
    Job::Pass(Event::Unknown {
        file: at.file.clone(),
        line: at.line,
        algo,
        bytes,
        hex,
    })
}

/// The name `line` lists, as the latch reads it; `None` when the line is
/// improper there (on Windows also bytes that are no name there).
fn listed_name(line: &CheckLine<'_>, at: At<'_>, latch: &mut Latch) -> Option<OsString> {
    let reversed = latch.accept(line.form)?;
    let name = line.file_name(reversed).ok()?;
    // a check file read from stdin cannot list stdin
    if at.stdin && name == b"-" {
        return None;
    }
    crate::sys::os_string(name)
}

/// What a line asks of the file it lists: one digest, per algorithm.
fn listed(expected: Vec<parse::Expected>, etag: bool) -> Listed {
    Listed {
        expected,
        etag,
        shown: None,
        at: None,
        meta: None,
    }
}

/// Hash the file `input` as `line` asks: with its algorithm, or a bare S3
/// ETag's every candidate part size in one read.
fn hash_job(mut input: Input, line: &CheckLine<'_>) -> CheckJob {
    let etag = line.algo.parts().is_none() && line.expected.parts() > 0;
    let algos = if etag {
        // (its candidates are sized by the file: settled here, as read)
        input.settle();
        let name = input.path().unwrap_or(Path::new("-"));
        etag_candidates(name.as_os_str(), line.expected.parts())
    } else {
        Algorithms::one(line.algo)
    };
    Job::Hash(Task {
        input,
        algos,
        context: listed(vec![line.expected; algos.len()], etag),
    })
}

/// The job for a line that holds only a digest, in a check file whose
/// name points at the file it checks (`name`, of `algo`): Go's
/// `X.tar.gz.sha256`.
fn bare_job(
    body: &[u8],
    dir: Option<&Path>,
    (name, algo): (&[u8], Algorithm),
    syntax: &Syntax,
) -> Option<CheckJob> {
    let (algo, expected) = parse::bare_digest(body, algo, syntax.digits)?;
    let input = beside(dir, crate::sys::os_string(name.to_vec())?);
    Some(Job::Hash(Task {
        input,
        algos: Algorithms::one(algo),
        context: listed(vec![expected], false),
    }))
}

/// The file a line's `name` means: as GNU has it, relative to here; under
/// fastsum's own rules, when the check file was named with a directory
/// (`dir`: `fastsum -c dl/SHA256SUMS`), the file beside the check file if
/// there is one, else here's, settled where it is opened (the rule:
/// `Input::listed`). Its status line shows the path opened
/// (`dl/tool.tar.gz: OK`).
fn beside(dir: Option<&Path>, name: OsString) -> Input {
    Input::listed(dir, name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::command::meta::{Meta, READ};
    use crate::config::Tags;

    /// A `#meta` line rides with the line after it unread: reading it is
    /// left to a verdict that needs it (a digest that did not match).
    #[test]
    fn a_meta_line_is_carried_unread_to_the_line_after_it() {
        let rules = GnuRules {
            tags: Tags::Any,
            algorithm_chosen: false,
            base64: true,
            own_rules: true,
        };
        let mut gnu = Gnu::new(rules, Algorithms::one(Algorithm::Md5));
        let file: crate::command::check::FileName = b"SUMS".to_vec().into();
        let at = |line| At {
            file: &file,
            line,
            stdin: false,
        };
        let read = READ.with(|n| n.get());
        let lines: [&[u8]; 2] = [
            b"#meta size=6 mtime=1700000000123456789ns\n",
            b"d41d8cd98f00b204e9800998ecf8427e  a\n",
        ];
        assert!(matches!(gnu.line(lines[0], at(1)), Step::Skip));
        let Step::Job(Job::Hash(task)) = gnu.line(lines[1], at(2)) else {
            panic!("no job for a checksum line");
        };
        assert_eq!(READ.with(|n| n.get()), read, "a #meta line was read");
        let then = task.context.meta.and_then(|m| m.read());
        assert_eq!(then, Meta::parse(lines[0]));
        assert_eq!(then.map(|m| m.size), Some(6));
    }

    #[test]
    fn latch_follows_the_first_untagged_line() {
        let mut l = Latch::default();
        assert_eq!(l.accept(Form::Tagged), Some(false));
        assert_eq!(l, Latch::Unset);
        assert_eq!(l.accept(Form::Standard), Some(false));
        assert_eq!(l.accept(Form::Reversed), None);
        let mut l = Latch::default();
        assert_eq!(l.accept(Form::Reversed), Some(true));
        assert_eq!(l.accept(Form::Standard), Some(true));
        assert_eq!(l.accept(Form::Reversed), Some(true));
    }
}
