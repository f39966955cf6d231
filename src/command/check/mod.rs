//! Check mode (`-c`): read checksum files and verify the files they list,
//! with GNU coreutils 9.1's output, messages and exit status (the odd
//! corners are listed in docs/check.md).
//!
//! The check files are read lazily, line by line, by the `Feed` iterator
//! that the reading pipeline consumes on its own thread: each well-formed
//! line becomes a job that hashes the listed file in whatever `--mode` was
//! chosen. Everything else that must come out in order (improper lines for
//! `-w`, a check file's summary, a check file that cannot be opened or read)
//! rides along as a pass-through job, so the `Verifier` sees one ordered
//! stream of outcomes and prints each in GNU's order.
//!
//! Consecutive lines naming the same file with different algorithms (what
//! `fastsum -a md5,sha256` writes) become one job that reads the file once
//! and hashes it with all of them; only lines already read into the check
//! file's buffer are grouped, so memory stays bounded and a check file fed
//! line by line through a pipe is never waited on for a line it has not sent.
//!
//! * [`parse`]: the syntax of one line (GNU's; xxhsum 0.8.1's under its
//!   names, `parse::xxhsum_line`);
//! * [`b3sum`]: b3sum 1.8's, under its name (whose run also ends as
//!   b3sum's does: one summary, `Error:` for a check file it cannot read);
//! * [`summary`]: whether a check file passed, from its counts, by the
//!   dialect's rules.
//!
//! Where the tools differ ([`Dialect`]), the `Feed` reads each line by its
//! dialect's syntax and the `Verifier` judges each outcome by its rules;
//! the style's writer (`output`) words what comes of it: each checked
//! line, an improper line, a check file's end (GNU's warnings, xxhsum's
//! counts, b3sum's one summary) and a check file that cannot be read.

pub(crate) mod audit;
pub(crate) mod b3sum;
pub(crate) mod infer;
pub(crate) mod parse;
pub(crate) mod summary;

use std::ffi::{OsStr, OsString};
use std::io::{self, BufRead, BufReader, Write};
use std::ops::RangeInclusive;
use std::sync::Arc;

use crate::algo::{Algorithm, Algorithms, Composed, Digest, MAX_ALGORITHMS, PartSize, Parts};
use crate::config::{CheckOptions, Context, Dialect, Verbosity};
use crate::input::{Input, Opened};
use crate::output::{Etag, Verdict, Writer, quote_name, writer, xxhsum_name};
use crate::printer::{Printer, Render, print_all};
use crate::read::{Hashed, Job, JobSource, Outcome, Task};
use crate::report::{Reporter, error_text};
use crate::signature::{self, Key, Verified};
use std::path::{Path, PathBuf};

use crate::command::meta::{Meta, damaged};
use infer::Untagged;
use parse::{Accept, CheckLine, Digits, Expected, Form, Grammar, line_body};
use summary::Tally;

/// A check file's name as messages show it: GNU's and b3sum's quoted
/// (`standard input` for `-`), xxhsum's as it is (`stdin` for `-`), so
/// bytes.
type FileName = Arc<[u8]>;

/// A check file's name in a message of GNU's (quoted: always UTF-8).
fn text(file: &[u8]) -> std::borrow::Cow<'_, str> {
    String::from_utf8_lossy(file)
}

/// What a pass-through job carries to the `Verifier`, in check-file order
/// (a job that hashes a listed file carries the digest it must have).
#[derive(Debug)]
enum Event {
    /// An improperly formatted line.
    Improper {
        /// The check file.
        file: FileName,
        /// The line number (counting every line, comments and blanks too).
        line: u64,
        /// The algorithm `-w` names: the one chosen, or (when none was,
        /// as GNU cksum) the last tag read.
        algo: &'static str,
    },
    /// A line b3sum refuses, and its reason.
    Refused(b3sum::Refusal),
    /// b3sum ends the whole run with this error (a check file that cannot
    /// be opened or read, a line that is not UTF-8).
    Abort(String),
    /// Every check file is read (b3sum's summary is the run's, not each
    /// file's).
    Finished,
    /// The check file was read to its end.
    End {
        /// The check file.
        file: FileName,
    },
    /// The check file could not be opened.
    OpenError {
        /// The check file.
        file: FileName,
        /// Why.
        error: io::Error,
    },
    /// Reading the check file failed part-way (it is abandoned, unsummed).
    ReadError {
        /// The check file.
        file: FileName,
    },
    /// An untagged line whose algorithm is not known (fastsum's own rules
    /// without `-a`: see `infer`): not checked, counted as improperly
    /// formatted, and the first of its length in a check file says which
    /// `-a` values fit.
    Unknown {
        /// The check file.
        file: FileName,
        /// The line number.
        line: u64,
        /// What `-w` names (as [`Event::Improper`]'s).
        algo: &'static str,
        /// The digest's length in bytes, and whether it is written in hex.
        bytes: usize,
        hex: bool,
    },
    /// The check file's signature holds (`--verify-with`): who signed.
    Signed {
        /// The check file.
        file: FileName,
        /// Who signed, as [`Verified::signer`] says.
        signer: String,
    },
    /// The check file's signature does not hold, or cannot be verified:
    /// none of its lines is used.
    Unsigned {
        /// The check file.
        file: FileName,
        /// Why.
        why: String,
    },
}

/// A check file's bytes as its lines are read: from the file, or verified
/// (`--verify-with`) and held, read once.
enum Lines {
    File(BufReader<Opened>),
    Verified(io::Cursor<Vec<u8>>),
}

impl Lines {
    fn read_until(&mut self, byte: u8, buf: &mut Vec<u8>) -> io::Result<usize> {
        match self {
            Lines::File(r) => r.read_until(byte, buf),
            Lines::Verified(r) => r.read_until(byte, buf),
        }
    }

    /// Is a whole line in memory (so reading it cannot wait)?
    fn line_buffered(&self) -> bool {
        match self {
            Lines::File(r) => r.buffer().contains(&b'\n'),
            Lines::Verified(_) => true,
        }
    }
}

/// How check files' signatures are verified (`--verify-with`): the key,
/// and the signature's file when it is named.
pub(crate) struct Signing {
    key: Key,
    signature: Option<PathBuf>,
}

/// The key `--verify-with` names, read and recognised before any check
/// file is opened; `Err` once the reason is reported (the run ends).
pub(crate) fn signing(opts: &CheckOptions, rep: &Reporter) -> Result<Option<Signing>, ()> {
    let Some(signed) = &opts.signed else {
        return Ok(None);
    };
    let shown = quote_name(signed.key.as_os_str().as_encoded_bytes());
    let bytes = std::fs::read(crate::sys::file_path(&signed.key)).map_err(|e| {
        rep.error(&format!("{}: {}", shown, error_text(&e)));
    })?;
    let key = Key::parse(&bytes).map_err(|e| {
        rep.error(&format!("{}: {e}", shown));
    })?;
    Ok(Some(Signing {
        key,
        signature: signed.signature.clone(),
    }))
}

/// The bytes of the check file `input`, read whole from `src`, once its
/// signature holds: inside it, named by `--signature`, or beside it.
fn verified(input: &Input, src: &mut Opened, signing: &Signing) -> Result<Verified, String> {
    let mut bytes = Vec::new();
    std::io::Read::read_to_end(src, &mut bytes).map_err(|e| error_text(&e))?;
    let read = |p: &Path| {
        std::fs::read(crate::sys::file_path(p)).map_err(|e| {
            let shown = quote_name(p.as_os_str().as_encoded_bytes());
            format!("{}: {}", shown, error_text(&e))
        })
    };
    let detached = match (&signing.signature, input) {
        (Some(p), _) => Some(read(p)?),
        (None, _) if signature::embedded(&bytes) => None,
        (None, Input::Path(p)) => signature::beside(p).find_map(|c| read(&c).ok()),
        (None, Input::Stdin) => None,
    };
    signature::verify(&bytes, detached.as_deref(), &signing.key).map_err(|e| e.to_string())
}

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

/// The check file being read.
struct Open {
    reader: Lines,
    file: FileName,
    is_stdin: bool,
    line: u64,
    /// Where its lines stand in an OpenPGP clear-signed armour, if it has
    /// one (read without a key: the signature is not checked).
    armour: Option<Armour>,
    /// Its directory, where a listed name not found from here is looked
    /// for (fastsum's own rules; `None` for one here, or stdin).
    beside: Option<PathBuf>,
    /// The algorithm its name names (`SHA256SUMS`), for its untagged lines
    /// (fastsum's own rules without `-a`; see `infer`).
    named: Option<Algorithm>,
    /// The algorithm the last block header named (`# Checksums-Sha256:`).
    block: Option<Algorithm>,
    /// The file a line holding only a digest checks, and its algorithm
    /// (`X.tar.gz.sha256`: `X.tar.gz`, SHA-256; fastsum's own rules).
    bare: Option<(Vec<u8>, Algorithm)>,
    /// The `#meta` line just read, for the line after it.
    meta: Option<Box<Meta>>,
}

/// The parts of an OpenPGP clear-signed text, in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Armour {
    /// The `Hash:` headers, up to an empty line.
    Headers,
    /// The signed text: the sums, dash-escaped.
    Body,
    /// The signature's armour.
    Signature,
    /// After it: lines here are outside the armour.
    After,
}

impl Armour {
    /// What `line` (without its line end) is: `None` when it is armour,
    /// else the line to read as a checksum line (a dash-escape undone).
    fn read<'l>(&mut self, line: &'l [u8]) -> Option<&'l [u8]> {
        let bare = line.trim_ascii_end();
        match self {
            Armour::Headers => {
                if bare.is_empty() {
                    *self = Armour::Body;
                }
                None
            }
            Armour::Body if bare == b"-----BEGIN PGP SIGNATURE-----" => {
                *self = Armour::Signature;
                None
            }
            Armour::Body => Some(line.strip_prefix(b"- ").unwrap_or(line)),
            Armour::Signature => {
                if bare == b"-----END PGP SIGNATURE-----" {
                    *self = Armour::After;
                }
                None
            }
            Armour::After => Some(line),
        }
    }
}

/// The first line of an OpenPGP clear-signed text.
const CLEAR_SIGNED: &[u8] = b"-----BEGIN PGP SIGNED MESSAGE-----";

/// The jobs of a check run: every check file's lines, read lazily.
struct Feed<'a> {
    files: std::slice::Iter<'a, OsString>,
    current: Option<Open>,
    /// How lines are read (GNU's grammar; b3sum's has its own module,
    /// xxhsum's its own function).
    grammar: Grammar,
    /// GNU's, b3sum's or xxhsum's rules.
    dialect: Dialect,
    /// What `-w` names (see [`Event::Improper`]).
    warn_name: &'static str,
    latch: Latch,
    buf: Vec<u8>,
    /// A job read ahead that did not join the one before it.
    pending: Option<CheckJob>,
    /// The run is over: b3sum stopped it, or its end was announced.
    done: bool,
    /// `--verify-with`: each check file's signature first.
    signing: Option<Signing>,
    /// fastsum's own rules (see `CheckOptions::own_rules`).
    own_rules: bool,
    /// Untagged lines' algorithm is inferred (fastsum's own rules, no
    /// `-a`): see `infer`.
    infer: bool,
}

/// What a line asks of the file it lists: the expected digests, one per
/// algorithm of its task (one per line grouped into it), the name its
/// status line shows when that is not the file's own (b3sum's, as written),
/// and where it is listed when messages say so (xxhsum's).
#[derive(Debug)]
pub(crate) struct Listed {
    /// One digest per algorithm of the task.
    pub(crate) expected: Vec<Expected>,
    /// A bare S3 ETag: the algorithms are its candidate part sizes, and
    /// one line's verdict is whether any matched.
    pub(crate) etag: bool,
    /// b3sum: the name as the line writes it.
    shown: Option<Box<[u8]>>,
    /// xxhsum: the check file and the line number (its message for a
    /// listed file it cannot read names them).
    at: Option<(FileName, u64)>,
    /// What the `#meta` line just before the line records (`--audit`
    /// tells rot from an edit by it; boxed: most manifests have none).
    pub(crate) meta: Option<Box<Meta>>,
}

/// A job of the check run.
type CheckJob = Job<Listed, Event>;

/// What reading one line of a check file gave.
enum Step {
    /// A job (or a pass-through event).
    Job(CheckJob),
    /// A blank or comment line.
    Skip,
    /// Every check file is read.
    Done,
}

/// The name GNU gives a check file in messages.
fn display_name(arg: &OsStr) -> FileName {
    let name = if arg.as_encoded_bytes() == b"-" {
        quote_name(b"standard input")
    } else {
        quote_name(arg.as_encoded_bytes())
    };
    name.into_bytes().into()
}

/// A line of `cur` whose algorithm cannot be known: `bytes` of digest, in
/// hex or base64 (`algo`: what `-w` names).
fn unknown(cur: &Open, algo: &'static str, bytes: usize, hex: bool) -> CheckJob {
    Job::Pass(Event::Unknown {
        file: cur.file.clone(),
        line: cur.line,
        algo,
        bytes,
        hex,
    })
}

/// The job for one line body of the check file `cur`; `inferring`:
/// fastsum's own rules without `-a`, where an untagged line's algorithm is
/// inferred (see [`infer::untagged`]).
fn line_job(
    body: &[u8],
    cur: &Open,
    latch: &mut Latch,
    grammar: &Grammar,
    warn_name: &mut &'static str,
    inferring: bool,
) -> CheckJob {
    // with no algorithm chosen, GNU cksum's -w names the last tag it read,
    // even on a line it then finds improper
    let tag = match grammar.accept {
        Accept::Any => grammar.tag_of(body),
        _ => None,
    };
    if let Some(algo) = tag {
        *warn_name = algo.gnu_name();
    }
    let mut algo = *warn_name;
    let mut grammar = *grammar;
    // (inferring: no -a, so every tag is read: `tag` is the line's)
    if inferring {
        match infer::untagged(body, cur.block.or(cur.named), &grammar, tag.is_some()) {
            Untagged::Known(known) => {
                grammar.default = known;
                if tag.is_none() {
                    algo = known.gnu_name();
                }
            }
            Untagged::Unknown { bytes, hex } => return unknown(cur, algo, bytes, hex),
            Untagged::Default => {}
        }
    }
    let improper = || {
        Job::Pass(Event::Improper {
            file: cur.file.clone(),
            line: cur.line,
            algo,
        })
    };
    let Ok(line) = grammar.parse(body) else {
        return match &cur.bare {
            Some((name, algo)) => {
                bare_job(body, cur, name, *algo, &grammar).unwrap_or_else(improper)
            }
            None => improper(),
        };
    };
    match listed_name(&line, cur, latch) {
        Some(name) => hash_job(beside(cur, name), &line),
        None => improper(),
    }
}

/// The name `line` of `cur` lists, as the latch reads it; `None` when the
/// line is improper there (on Windows also bytes that are no name there).
fn listed_name(line: &CheckLine<'_>, cur: &Open, latch: &mut Latch) -> Option<OsString> {
    let reversed = latch.accept(line.form)?;
    let name = line.file_name(reversed).ok()?;
    // a check file read from stdin cannot list stdin
    if cur.is_stdin && name == b"-" {
        return None;
    }
    crate::sys::os_string(name)
}

/// Hash the file `name` as `line` asks: with its algorithm, or a bare S3
/// ETag's every candidate part size in one read.
fn hash_job(name: OsString, line: &CheckLine<'_>) -> CheckJob {
    let etag = line.algo.parts().is_none() && line.expected.parts() > 0;
    let algos = if etag {
        etag_candidates(&name, line.expected.parts())
    } else {
        Algorithms::one(line.algo)
    };
    Job::Hash(Task {
        input: Input::from_arg(name),
        algos,
        context: Listed {
            expected: vec![line.expected; algos.len()],
            etag,
            shown: None,
            at: None,
            meta: None,
        },
    })
}

/// The job for a line that holds only a digest, in a check file whose
/// name points at the file it checks (`name`, of `algo`): Go's
/// `X.tar.gz.sha256`.
fn bare_job(
    body: &[u8],
    cur: &Open,
    name: &[u8],
    algo: Algorithm,
    grammar: &Grammar,
) -> Option<CheckJob> {
    let (algo, expected) = parse::bare_digest(body, algo, grammar.digits)?;
    let name = beside(cur, crate::sys::os_string(name.to_vec())?);
    Some(Job::Hash(Task {
        input: Input::from_arg(name),
        algos: Algorithms::one(algo),
        context: Listed {
            expected: vec![expected],
            etag: false,
            shown: None,
            at: None,
            meta: None,
        },
    }))
}

/// The file a line's `name` means: as GNU has it, relative to here; under
/// fastsum's own rules, when the check file was named with a directory
/// (`fastsum -c dl/SHA256SUMS`), a relative name found beside the check
/// file is that one, as rhash reads it, even when one of that name is here
/// too (a stale `./tool.tar.gz` is not what `dl/SHA256SUMS` lists: issue
/// 40 §12); a name found only here is here's. Its status line shows the
/// path opened (`dl/tool.tar.gz: OK`).
fn beside(cur: &Open, name: OsString) -> OsString {
    let Some(dir) = &cur.beside else {
        return name;
    };
    let listed = Path::new(&name);
    if listed.is_absolute() || name == "-" {
        return name;
    }
    let there = dir.join(listed);
    match crate::sys::FileId::of_link(&there) {
        // (the same file here, as when the check file's directory is
        // this one by another path: its name as listed, as GNU shows it)
        Ok(id) if crate::sys::FileId::of_link(listed).is_ok_and(|here| here == id) => name,
        Ok(_) => there.into_os_string(),
        Err(_) => name,
    }
}

/// The part sizes S3 uploaders use, in MiB: AWS CLI's and boto3's 8, the
/// others' 5, 15, 16, 64 and 100, and the powers of two S3 takes (to 4
/// GiB).
const COMMON_PART_MIB: [u32; 13] = [5, 8, 15, 16, 32, 64, 100, 128, 256, 512, 1024, 2048, 4096];

/// The part sizes S3 takes, in MiB (5 MiB to 5 GiB; the last part may be
/// shorter).
const S3_PART_MIB: RangeInclusive<u32> = 5..=5120;

/// The whole-MiB part sizes S3 takes that cut `len` bytes into `n` parts
/// (empty when none does); for one part, the smallest that holds it (any
/// size that does gives the same ETag).
pub(crate) fn part_sizes(len: u64, n: u64) -> RangeInclusive<u32> {
    const MIB: u64 = 1 << 20;
    // ceil(len / m MiB) == n: len / n <= m MiB < len / (n - 1)
    let (lo, hi) = match n {
        0 => (1, 0),
        1 => {
            let m = len.div_ceil(MIB);
            (m, m.max(u64::from(*S3_PART_MIB.start())))
        }
        n => match (n.checked_mul(MIB), (n - 1).checked_mul(MIB)) {
            (Some(all), Some(but_one)) => {
                (len.div_ceil(all), len.div_ceil(but_one).saturating_sub(1))
            }
            _ => (1, 0),
        },
    };
    let lo = u32::try_from(lo)
        .unwrap_or(u32::MAX)
        .max(*S3_PART_MIB.start());
    let hi = u32::try_from(hi)
        .unwrap_or(u32::MAX)
        .min(*S3_PART_MIB.end());
    lo..=hi
}

/// The ETags a bare `HEX-N` line may be, to compute in one read: every
/// whole-MiB part size that cuts the file `name` (as it is now) into `n`
/// parts ([`part_sizes`]). One read computes [`MAX_ALGORITHMS`] at most:
/// when more sizes fit, the common ones first, then the others from the
/// smallest up (the size a tool gets that divides the file by a part
/// count); the failure says which were left. When none fits (or the file
/// cannot be examined: reading it will say why), AWS CLI's 8 MiB, which
/// then does not match.
fn etag_candidates(name: &OsStr, n: u64) -> Algorithms {
    let over =
        |mib| PartSize::mib(mib).map(|size| Algorithm::Parts(Parts::new(Composed::Md5, size)));
    let sizes = std::fs::metadata(crate::sys::file_path(name.as_ref()))
        .ok()
        .map(|m| part_sizes(m.len(), n));
    let common =
        (COMMON_PART_MIB.into_iter()).filter(|m| sizes.as_ref().is_some_and(|r| r.contains(m)));
    let others = (sizes.clone().into_iter().flatten()).filter(|m| !COMMON_PART_MIB.contains(m));
    let fitting = common.chain(others).take(MAX_ALGORITHMS).filter_map(over);
    let default = over(8).unwrap_or(Algorithm::Md5);
    Algorithms::new(fitting).unwrap_or(Algorithms::one(default))
}

/// The job for one raw line of a check file under b3sum's rules.
fn b3sum_job(raw: &[u8]) -> CheckJob {
    match b3sum::parse(raw) {
        Err(()) => Job::Pass(Event::Abort(b3sum::NOT_UTF8.into())),
        Ok(Err(why)) => Job::Pass(Event::Refused(why)),
        Ok(Ok(line)) => Job::Hash(Task {
            // (b3sum's names are UTF-8: a name on every OS)
            input: Input::from_arg(crate::sys::os_string(line.name).unwrap_or_default()),
            algos: Algorithms::one(Algorithm::Blake3),
            context: Listed {
                expected: vec![line.expected],
                etag: false,
                shown: Some(line.shown.into()),
                at: None,
                meta: None,
            },
        }),
    }
}

/// The job for one raw line of the check file `cur` under xxhsum's rules:
/// every line is a checksum line (no comments, no blank lines), `stdin`
/// names standard input.
fn xxhsum_job(raw: &[u8], cur: &Open, little_endian: bool) -> CheckJob {
    let body = raw.strip_suffix(b"\n").unwrap_or(raw);
    let improper = || {
        Job::Pass(Event::Improper {
            file: cur.file.clone(),
            line: cur.line,
            // (xxhsum's message names no algorithm)
            algo: "",
        })
    };
    let Ok(line) = parse::xxhsum_line(body, little_endian) else {
        return improper();
    };
    let input = match line.name {
        b"stdin" => Input::Stdin,
        // (on Windows, bytes that are no name there: the line is improper)
        name => match crate::sys::os_string(name.to_vec()) {
            Some(name) => Input::Path(name.into()),
            None => return improper(),
        },
    };
    Job::Hash(Task {
        input,
        algos: Algorithms::one(line.algo),
        context: Listed {
            expected: vec![line.expected],
            etag: false,
            shown: None,
            at: Some((cur.file.clone(), cur.line)),
            meta: None,
        },
    })
}

impl Feed<'_> {
    /// Read one line (opening the next check file when one ends).
    fn step(&mut self) -> Step {
        if self.done {
            return Step::Done;
        }
        let xxhsum = self.xxhsum();
        let Some(cur) = &mut self.current else {
            return self.open_next();
        };
        self.buf.clear();
        let read = cur.reader.read_until(b'\n', &mut self.buf);
        // xxhsum takes a check file that fails part-way as ended there
        let read = if xxhsum.is_some() {
            Ok(read.unwrap_or(0))
        } else {
            read
        };
        match read {
            Ok(0) => {
                let file = cur.file.clone();
                self.current = None;
                Step::Job(Job::Pass(Event::End { file }))
            }
            Ok(_) => {
                cur.line += 1;
                self.line()
            }
            Err(error) if self.dialect == Dialect::B3sum => Step::Job(self.abort(&error)),
            Err(_) => {
                // GNU says only "read error" here, without the reason
                let file = cur.file.clone();
                self.current = None;
                Step::Job(Job::Pass(Event::ReadError { file }))
            }
        }
    }

    /// xxhsum's rules, and whether its digests are little-endian.
    fn xxhsum(&self) -> Option<bool> {
        match self.dialect {
            Dialect::Xxhsum { little_endian, .. } => Some(little_endian),
            _ => None,
        }
    }

    /// The job for the line just read into `buf`, by the dialect's rules.
    fn line(&mut self) -> Step {
        let xxhsum = self.xxhsum();
        let Some(cur) = &mut self.current else {
            return Step::Skip;
        };
        if let Some(little_endian) = xxhsum {
            return Step::Job(xxhsum_job(&self.buf, cur, little_endian));
        }
        if self.dialect == Dialect::B3sum {
            let job = b3sum_job(&self.buf);
            if matches!(job, Job::Pass(Event::Abort(_))) {
                self.done = true;
            }
            return Step::Job(job);
        }
        if self.own_rules && cur.line == 1 && self.buf.trim_ascii_end() == CLEAR_SIGNED {
            cur.armour = Some(Armour::Headers);
            return Step::Skip;
        }
        let raw = match cur.armour.as_mut() {
            None => &self.buf[..],
            Some(armour) => match armour.read(&self.buf) {
                Some(line) => line,
                None => return Step::Skip,
            },
        };
        if self.infer
            && let Some(algo) = infer::from_header(raw)
        {
            cur.block = Some(algo);
        }
        // a `#meta` line is tied to the line right after it
        let meta = cur.meta.take();
        let Some(body) = line_body(raw) else {
            cur.meta = Meta::parse(raw).map(Box::new);
            return Step::Skip;
        };
        let mut job = line_job(
            body,
            cur,
            &mut self.latch,
            &self.grammar,
            &mut self.warn_name,
            self.infer,
        );
        if let Job::Hash(task) = &mut job {
            task.context.meta = meta;
        }
        Step::Job(job)
    }

    /// Open the next check file, its signature checked first if asked
    /// (b3sum's end of the run after the last).
    fn open_next(&mut self) -> Step {
        let Some(arg) = self.files.next() else {
            if self.dialect == Dialect::B3sum {
                self.done = true;
                return Step::Job(Job::Pass(Event::Finished));
            }
            return Step::Done;
        };
        let input = Input::from_arg(arg.clone());
        let file = match self.xxhsum() {
            Some(_) => xxhsum_name(&input).into(),
            None => display_name(arg),
        };
        let mut src = match input.open() {
            Ok(src) => src,
            Err(error) if self.dialect == Dialect::B3sum => return Step::Job(self.abort(&error)),
            Err(error) => return Step::Job(Job::Pass(Event::OpenError { file, error })),
        };
        let (reader, step) = match &self.signing {
            None => (
                Lines::File(BufReader::with_capacity(64 * 1024, src)),
                Step::Skip,
            ),
            Some(signing) => match verified(&input, &mut src, signing) {
                Ok(v) => (
                    Lines::Verified(io::Cursor::new(v.content)),
                    Step::Job(Job::Pass(Event::Signed {
                        file: file.clone(),
                        signer: v.signer,
                    })),
                ),
                Err(why) => return Step::Job(Job::Pass(Event::Unsigned { file, why })),
            },
        };
        self.current = Some(self.open(&input, file, reader));
        step
    }

    /// Where reading the check file `input` (shown as `file`) from `reader`
    /// starts: its directory, and the algorithm its name names.
    fn open(&self, input: &Input, file: FileName, reader: Lines) -> Open {
        let path = match input {
            Input::Path(p) if self.own_rules => Some(p.as_os_str().as_encoded_bytes()),
            _ => None,
        };
        // a digest-only file's algorithm: its name's, or -a's
        let bare_algo = |named| match self.infer {
            true => named,
            false => self.grammar.default,
        };
        Open {
            reader,
            file,
            is_stdin: *input == Input::Stdin,
            line: 0,
            armour: None,
            beside: match input {
                Input::Path(p) if self.own_rules => p
                    .parent()
                    .filter(|d| !d.as_os_str().is_empty())
                    .map(Path::to_path_buf),
                _ => None,
            },
            named: path.filter(|_| self.infer).and_then(infer::from_name),
            block: None,
            bare: path
                .and_then(infer::bare_target)
                .map(|(name, algo)| (name, bare_algo(algo))),
            meta: None,
        }
    }

    /// b3sum's end of the run on `error` (its `main` returns it).
    fn abort(&mut self, error: &io::Error) -> CheckJob {
        self.done = true;
        self.current = None;
        Job::Pass(Event::Abort(error.to_string()))
    }

    /// The next job, blank and comment lines skipped.
    fn next_job(&mut self) -> Option<CheckJob> {
        loop {
            match self.step() {
                Step::Job(job) => return Some(job),
                Step::Skip => {}
                Step::Done => return None,
            }
        }
    }

    /// Is a whole line already in the check file's buffer (so reading it
    /// cannot wait)?
    fn line_buffered(&self) -> bool {
        self.current
            .as_ref()
            .is_some_and(|c| c.reader.line_buffered())
    }
}

impl Iterator for Feed<'_> {
    type Item = CheckJob;

    fn next(&mut self) -> Option<CheckJob> {
        let job = match self.pending.take() {
            Some(job) => job,
            None => self.next_job()?,
        };
        let Job::Hash(mut task) = job else {
            return Some(job);
        };
        // the following lines for the same file with other algorithms join
        // it; not standard input's: each `-` line reads on from where the
        // last one left it (so a second one finds it at its end, as GNU's)
        // (nor under xxhsum, whose messages name each line)
        let groups = !matches!(self.dialect, Dialect::Xxhsum { .. });
        while groups && self.pending.is_none() && task.input != Input::Stdin && self.line_buffered()
        {
            let Step::Job(next) = self.step() else {
                continue;
            };
            match next {
                // (a bare ETag's candidates are one line's)
                Job::Hash(t) if t.input == task.input && !task.context.etag && !t.context.etag => {
                    match task.algos.with(t.algos.first()) {
                        Some(algos) => {
                            task.algos = algos;
                            task.context.expected.extend(t.context.expected);
                        }
                        None => self.pending = Some(Job::Hash(t)),
                    }
                }
                other => self.pending = Some(other),
            }
        }
        Some(Job::Hash(task))
    }
}

/// What a missing digest would be reported as (a task always has one per
/// line; this only keeps `render` total).
static NO_DIGEST: std::sync::LazyLock<io::Error> =
    std::sync::LazyLock::new(|| io::Error::other("no digest"));

pub(crate) use crate::output::Status;

/// Prints each outcome: status lines on stdout (as the style's writer
/// words them), messages on stderr, and the closing summary of each check
/// file.
struct Verifier {
    opts: CheckOptions,
    writer: Box<dyn Writer + Send>,
    tally: Tally,
    /// The lengths of the check file's lines of no known algorithm whose
    /// `-a` values were named (once a length and check file).
    named_fits: Vec<(usize, bool)>,
    /// Under fastsum's own name, whether the file being verified changed
    /// since its `#meta` line (`None`: it has none, or nothing tells): a
    /// mismatch is then DAMAGED or MODIFIED.
    changed: Option<bool>,
}

impl Verifier {
    /// A bare ETag's line: OK, saying the part size, when one of its
    /// candidates matched; else as its first candidate's line, saying the
    /// part sizes tried.
    fn verify_etag(
        &mut self,
        p: &mut Printer<'_>,
        (name, at): (&[u8], Option<(&[u8], u64)>),
        algos: &[Algorithm],
        expected: &[Expected],
        r: &io::Result<crate::read::Hashed>,
    ) -> io::Result<()> {
        let digest = |i: usize| match r {
            Ok(hashed) => hashed.digests.get(i).ok_or(&*NO_DIGEST),
            Err(e) => Err(e),
        };
        let (Some(&first), Some(want)) = (algos.first(), expected.first()) else {
            return Ok(());
        };
        let Ok(hashed) = r else {
            return self.verify(p, (name, at), (first, None), want, digest(0));
        };
        let mut each = algos.iter().zip(expected).zip(&hashed.digests);
        if let Some(i) = each.position(|((a, e), d)| e.matches_as(d, *a)) {
            let found = algos[i].parts().map(|p| Etag::Found(p.size));
            return self.verify(p, (name, at), (algos[i], found), &expected[i], digest(i));
        }
        // the sizes tried that made as many parts as the ETag has
        let parts = want.parts();
        let mut sizes: Vec<PartSize> = (algos.iter().zip(&hashed.digests))
            .filter(|(_, d)| d.parts() == parts)
            .filter_map(|(a, _)| Some(a.parts()?.size))
            .collect();
        sizes.sort_by_key(|s| s.bytes());
        let fit = part_sizes(hashed.size, parts).count();
        let untried = fit.saturating_sub(sizes.len());
        let tried = Etag::Tried {
            sizes: &sizes,
            parts,
            untried,
        };
        self.verify(p, (name, at), (first, Some(tried)), want, digest(0))
    }

    /// What one line's outcome is, and the counts it adds to.
    fn judge(
        &mut self,
        expected: &Expected,
        algo: Algorithm,
        outcome: Result<&Digest, &io::Error>,
    ) -> Option<Status> {
        self.tally.formatted = true;
        match outcome {
            Ok(digest) if expected.matches_as(digest, algo) => {
                self.tally.matched = true;
                Some(Status::Ok)
            }
            Ok(_) => {
                self.tally.mismatched += 1;
                Some(Status::Failed)
            }
            Err(e) if self.opts.ignore_missing && e.kind() == io::ErrorKind::NotFound => None,
            Err(_) if self.opts.dialect == Dialect::B3sum => {
                self.tally.mismatched += 1;
                Some(Status::Unreadable)
            }
            Err(e) => {
                self.tally.unreadable += 1;
                Some(if e.kind() == io::ErrorKind::NotFound {
                    Status::Missing
                } else {
                    Status::Unreadable
                })
            }
        }
    }

    /// Judge one line and have the style's writer word it (`at`: where it
    /// is listed, for the writers whose words name it; `etag`: what a bare
    /// ETag's candidates found, which its status says).
    fn verify(
        &mut self,
        p: &mut Printer<'_>,
        (name, at): (&[u8], Option<(&[u8], u64)>),
        (algo, etag): (Algorithm, Option<Etag<'_>>),
        expected: &Expected,
        outcome: Result<&Digest, &io::Error>,
    ) -> io::Result<()> {
        let Some(mut status) = self.judge(expected, algo, outcome) else {
            return Ok(());
        };
        let error = outcome.err();
        if let (Status::Failed, Some(changed)) = (status, self.changed) {
            status = if changed {
                Status::Modified
            } else {
                p.error(&damaged(name))?;
                Status::Damaged
            };
        }
        if status == Status::Ok && self.opts.verbosity == Verbosity::Quiet {
            return Ok(());
        }
        if let Some(e) = error {
            self.writer.unreadable(p, name, e)?;
        }
        if self.opts.verbosity == Verbosity::Status {
            return Ok(());
        }
        let verdict = Verdict {
            name,
            algo,
            status,
            error,
            from: None,
            at,
            etag,
        };
        self.writer.status(p, &verdict)
    }
}

impl Render<Listed, Event> for Verifier {
    fn render(&mut self, outcome: Outcome<Listed, Event>, p: &mut Printer<'_>) -> io::Result<()> {
        let event = match outcome {
            Outcome::Hashed(task, r) => {
                // one status per line, in the check file's order
                let algos = task.algos.as_slice();
                let listed = &task.context;
                let name = match &listed.shown {
                    Some(shown) => shown,
                    None => self.writer.name(&task.input),
                };
                let at = listed.at.as_ref().map(|(file, line)| (&file[..], *line));
                if listed.etag {
                    return self.verify_etag(p, (name, at), algos, &listed.expected, &r);
                }
                // (looked at only for a digest that did not match)
                let mismatched = |h: &Hashed| {
                    let mut pairs = listed.expected.iter().zip(algos).zip(&h.digests);
                    pairs.any(|((want, &algo), d)| !want.matches_as(d, algo))
                };
                self.changed = match (&task.input, &listed.meta, &r) {
                    (Input::Path(path), Some(then), Ok(h))
                        if self.opts.own_rules && mismatched(h) =>
                    {
                        Meta::of_path(path).ok().and_then(|now| then.changed(&now))
                    }
                    _ => None,
                };
                for (i, (expected, &algo)) in listed.expected.iter().zip(algos).enumerate() {
                    let digest = match &r {
                        Ok(hashed) => hashed.digests.get(i).ok_or(&*NO_DIGEST),
                        Err(e) => Err(e),
                    };
                    self.verify(p, (name, at), (algo, None), expected, digest)?;
                }
                self.changed = None;
                return Ok(());
            }
            Outcome::Passed(event) => event,
        };
        self.passed(p, event)
    }
}

impl Verifier {
    /// What rides along in a check file, in its place: b3sum's refusals
    /// and end, improper lines, a check file's end or failure, signatures.
    fn passed(&mut self, p: &mut Printer<'_>, event: Event) -> io::Result<()> {
        match event {
            Event::Refused(why) => {
                // b3sum counts it with the checksums that did not match
                self.tally.mismatched += 1;
                p.message(why)?;
            }
            Event::Abort(error) => {
                // what Rust prints of the error `main` returns: no program
                // name, no summary
                p.error_raw(format!("Error: {error}\n").as_bytes())?;
            }
            Event::Finished => {
                self.writer.checks_finished(p, &self.tally)?;
                if self.tally.mismatched > 0 {
                    p.fail();
                }
            }
            // b3sum's counts run on to the end of the run
            Event::End { .. } if self.opts.dialect == Dialect::B3sum => {}
            Event::Improper {
                file, line, algo, ..
            } => self.improper(p, &file, line, algo)?,
            Event::Unknown {
                file,
                line,
                algo,
                bytes,
                hex,
            } => {
                self.improper(p, &file, line, algo)?;
                // (said even under --status: the line was not checked)
                if !self.named_fits.contains(&(bytes, hex)) {
                    self.named_fits.push((bytes, hex));
                    p.message(&unknown_algorithm(&text(&file), line, bytes, hex))?;
                }
            }
            Event::End { file } => {
                self.named_fits.clear();
                let tally = std::mem::take(&mut self.tally);
                self.writer.check_end(p, &self.opts, &file, &tally)?;
                if !summary::passed(&tally, &self.opts) {
                    p.fail();
                }
            }
            Event::OpenError { file, error } => {
                self.tally = Tally::default();
                self.named_fits.clear();
                self.writer.check_file_error(p, &file, Some(&error))?;
            }
            Event::ReadError { file } => {
                self.tally = Tally::default();
                self.named_fits.clear();
                self.writer.check_file_error(p, &file, None)?;
            }
            Event::Signed { file, signer } => {
                if self.opts.verbosity != Verbosity::Status {
                    p.message(&format!("{}: signature good, by {signer}", text(&file)))?;
                }
            }
            Event::Unsigned { file, why } => {
                self.tally = Tally::default();
                p.error(&format!("{}: {why}", text(&file)))?;
            }
        }
        Ok(())
    }
}

/// What is said of a line of no known algorithm (see `infer`): the `-a`
/// values that would read it.
fn unknown_algorithm(file: &str, line: u64, bytes: usize, hex: bool) -> String {
    let what = if hex {
        format!("{} hex digits", 2 * bytes)
    } else {
        format!("a base64 digest of {bytes} bytes")
    };
    let fits: Vec<String> = infer::fitting(bytes)
        .into_iter()
        .map(|a| format!("-a {}", a.name()))
        .collect();
    let fits = match fits.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => String::new(),
    };
    format!("{file}: {line}: {what} may be {fits}: name the algorithm with -a")
}

impl Verifier {
    /// An improperly formatted line: counted, and worded by the style
    /// (under `-w`).
    fn improper(
        &mut self,
        p: &mut Printer<'_>,
        file: &[u8],
        line: u64,
        algo: &str,
    ) -> io::Result<()> {
        self.tally.improper += 1;
        self.writer.improper(p, &self.opts, (file, line), algo)
    }
}

/// The jobs of checking `files`: their lines, read lazily.
fn feed<'a>(
    opts: &CheckOptions,
    algos: Algorithms,
    files: &'a [OsString],
    signing: Option<Signing>,
) -> Feed<'a> {
    Feed {
        files: files.iter(),
        current: None,
        grammar: Grammar {
            default: algos.first(),
            accept: match (opts.algorithm_chosen, algos.len()) {
                (false, _) => Accept::Any,
                (true, 1) => Accept::OnlyDefault,
                (true, _) => Accept::Only(algos),
            },
            digits: if opts.base64 {
                Digits::HexOrBase64
            } else {
                Digits::Hex
            },
            tags: opts.tags,
        },
        dialect: opts.dialect,
        // (GNU's DIGEST_TYPE_STRING: cksum's CRC before any tag is read)
        warn_name: algos.first().gnu_name(),
        latch: Latch::default(),
        buf: Vec::with_capacity(1024),
        pending: None,
        done: false,
        signing,
        own_rules: opts.own_rules,
        infer: opts.own_rules && !opts.algorithm_chosen && opts.dialect == Dialect::Gnu,
    }
}

/// What prints the outcomes of checking.
fn verifier(opts: CheckOptions) -> Verifier {
    Verifier {
        writer: writer(opts.style),
        opts,
        tally: Tally::default(),
        named_fits: Vec::new(),
        changed: None,
    }
}

/// Verify every checksum file in `files`, printing to `out`.
pub(crate) fn run(
    cx: Context<'_>,
    opts: CheckOptions,
    files: &[OsString],
    out: &mut dyn Write,
) -> io::Result<()> {
    let Ok(signing) = signing(&opts, cx.rep) else {
        return Ok(());
    };
    let feed = feed(&opts, cx.algos, files, signing);
    let verifier = verifier(opts);
    print_all(cx, feed, JobSource::CheckFiles, verifier, out)
}

/// How many files the check files list, for the progress display: their
/// lines that look like checksum lines (a blank between digest and name,
/// not a comment, no OpenPGP armour), read again here. `None` when one is
/// no regular file (stdin, a FIFO: read once, by the check) or cannot be
/// read.
pub(crate) fn listed_count(files: &[OsString]) -> Option<u64> {
    let mut count = 0;
    for file in files {
        // (a FIFO is never opened here: its bytes are the check's)
        let path = crate::sys::file_path(file.as_ref());
        if file == "-" || !std::fs::metadata(&path).is_ok_and(|m| m.is_file()) {
            return None;
        }
        count += count_listed(std::fs::File::open(&path).ok()?).ok()?;
    }
    Some(count)
}

/// The checksum lines in `reader` (as [`listed_count`] counts them). The
/// count runs beside the check on a CPU it shares, so it must cost the run
/// next to nothing: lines are found with the `memchr` crate's vector
/// search in large reads, not copied one by one, and most lines are judged
/// by a look at one byte ([`ListedLines::add`]).
fn count_listed(mut reader: impl io::Read) -> io::Result<u64> {
    let mut buf = vec![0; 64 * 1024];
    // bytes of a line not ended yet, at the start of `buf`
    let mut held = 0;
    let mut listed = ListedLines::default();
    loop {
        let n = match reader.read(&mut buf[held..]) {
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        let end = held + n;
        let mut start = 0;
        for nl in memchr::memchr_iter(b'\n', &buf[held..end]) {
            listed.add(&buf[start..held + nl]);
            start = held + nl + 1;
        }
        if n == 0 {
            listed.add(&buf[start..end]);
            return Ok(listed.count);
        }
        buf.copy_within(start..end, 0);
        held = end - start;
        if held == buf.len() {
            // a line longer than the buffer
            buf.resize(2 * held, 0);
        }
    }
}

/// The checksum lines counted so far, line by line.
#[derive(Default)]
struct ListedLines {
    count: u64,
    /// Inside an OpenPGP signature's armour?
    armour: bool,
    /// Where the last line counted had its first blank: the digests of a
    /// manifest are mostly of one length, so a look there usually answers
    /// without a search.
    blank: usize,
}

impl ListedLines {
    /// Count `line` if it is a checksum line: no comment, no armour, a
    /// blank within its text.
    fn add(&mut self, line: &[u8]) {
        if self.armour || matches!(line.first(), Some(b'#' | b'-' | b'H')) {
            self.armour = self.armour && !line.starts_with(b"-----END");
            self.armour |= line.starts_with(b"-----BEGIN PGP SIGNATURE");
            let skip = self.armour || line.starts_with(b"#") || line.starts_with(b"-");
            if skip || line.starts_with(b"Hash: ") {
                return;
            }
        }
        // (trimmed: a blank in it has text on both sides)
        let text = line.trim_ascii();
        if text.get(self.blank) != Some(&b' ') {
            match memchr::memchr(b' ', text) {
                Some(at) => self.blank = at,
                None => return,
            }
        }
        self.count += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn listed_count_counts_checksum_lines_not_armour_nor_comments() {
        let dir = tempfile::tempdir().unwrap();
        let signed = dir.path().join("SUMS.asc");
        let text = "-----BEGIN PGP SIGNED MESSAGE-----\nHash: SHA256\n\n\
                    # a comment\nd41d8cd98f00b204e9800998ecf8427e  a\n\
                    MD5 (b) = d41d8cd98f00b204e9800998ecf8427e\n\n\
                    -----BEGIN PGP SIGNATURE-----\n\niQEzBAEBCAAdFiEE\nwx1 2\n\
                    -----END PGP SIGNATURE-----\n";
        std::fs::write(&signed, text).unwrap();
        let plain = dir.path().join("SUMS");
        std::fs::write(&plain, "d41d8cd98f00b204e9800998ecf8427e  c\n").unwrap();
        let files = [signed.into_os_string(), plain.into_os_string()];
        assert_eq!(listed_count(&files), Some(3));
        // standard input is read once, by the check
        assert_eq!(listed_count(&["-".into()]), None);
    }

    /// A reader that hands out at most `step` bytes a call.
    struct Trickle<'a> {
        bytes: &'a [u8],
        step: usize,
    }

    impl io::Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = self.step.min(buf.len()).min(self.bytes.len());
            buf[..n].copy_from_slice(&self.bytes[..n]);
            self.bytes = &self.bytes[n..];
            Ok(n)
        }
    }

    #[test]
    fn lines_are_counted_across_reads_and_beyond_the_buffer() {
        let long = format!("{}  {}\n", "a".repeat(32), "n".repeat(200_000));
        let text = format!(
            "d41d8cd98f00b204e9800998ecf8427e  a\n{long}# c d\n  x  \n\
             d41d8cd98f00b204e9800998ecf8427e0123456789\nab c\nd41d8cd98f00b204e9800998ecf8427e \n\
             -----BEGIN PGP SIGNATURE-----\nw x\n-----END PGP SIGNATURE-----\n\
             MD5 (b) = d41d8cd98f00b204e9800998ecf8427e"
        );
        for step in [1, 7, 4096, 1 << 20] {
            let got = count_listed(Trickle {
                bytes: text.as_bytes(),
                step,
            });
            assert_eq!(got.unwrap(), 4, "{step}");
        }
    }

    #[test]
    fn part_sizes_are_every_whole_mib_size_s3_takes_that_makes_n_parts() {
        const MIB: u64 = 1 << 20;
        // issue 46: `-15` of a file of about 100 MiB is 7 MiB parts only
        assert_eq!(part_sizes(100 * MIB + 12345, 15), 7..=7);
        assert_eq!(part_sizes(17 * MIB + 5, 2), 9..=17);
        assert_eq!(part_sizes(17 * MIB, 2), 9..=16);
        // one part: the smallest size S3 takes that holds it
        assert_eq!(part_sizes(1000, 1), 5..=5);
        assert_eq!(part_sizes(6 * MIB + 1, 1), 7..=7);
        // none: parts under 5 MiB, over 5 GiB, or more parts than bytes
        assert!(part_sizes(100 * MIB, 200).is_empty());
        assert!(part_sizes(6 << 30, 1).is_empty());
        assert!(part_sizes(0, 2).is_empty());
        assert!(part_sizes(100, u64::MAX).is_empty());
    }

    #[test]
    fn etag_candidates_are_the_common_sizes_then_the_smallest_as_one_read_carries() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("f");
        // 100 MiB in 2 parts: 50M to 99M, 50 sizes, of which 64M is common
        std::fs::File::create(&f)
            .unwrap()
            .set_len(100 << 20)
            .unwrap();
        let got = etag_candidates(f.as_os_str(), 2);
        let mib: Vec<u64> = got
            .as_slice()
            .iter()
            .map(|a| a.parts().unwrap().size.bytes() >> 20)
            .collect();
        let mut want = vec![64];
        want.extend((50..=69).filter(|&m| m != 64));
        assert_eq!(got.len(), MAX_ALGORITHMS);
        assert_eq!(mib, want[..MAX_ALGORITHMS]);
        // a size none fits: AWS CLI's 8 MiB, which will not match
        let got = etag_candidates(f.as_os_str(), 200);
        assert_eq!(got.first().parts().unwrap().size.bytes(), 8 << 20);
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

    #[test]
    fn stdin_is_named_standard_input() {
        assert_eq!(&*display_name(OsStr::new("-")), b"'standard input'");
        assert_eq!(&*display_name(OsStr::new("sums")), b"sums");
    }
}
