//! `--update SUMS`: keep a manifest current. Hash only the inputs SUMS does
//! not list yet and append their lines, in SUMS's own algorithm and format;
//! with `--prune`, drop the lines of files that no longer exist.
//!
//! The manifest is never lost: the new one is written beside it, synced, and
//! renamed over the old one only when every input was hashed and every byte
//! written; on any error (a read error, ENOSPC, a killed process) the old
//! SUMS stays as it was.

use std::collections::HashSet;
use std::ffi::OsString;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use crate::algo::{Algorithm, Algorithms};
use crate::check::parse::{Accept, Form, line_body, parse_check_line};
use crate::config::UpdateOptions;
use crate::hash;
use crate::output::{LineFormat, quote_name};
use crate::read::Plan;
use crate::report::{Reporter, error_text};
use crate::stats::Stats;

/// What SUMS holds: its lines (each ending in a newline), the name each
/// lists, and the algorithm and format new lines take.
struct Manifest {
    lines: Vec<(Vec<u8>, Vec<u8>)>,
    algo: Algorithm,
    format: LineFormat,
}

/// Why SUMS cannot be updated.
enum Refusal {
    /// It cannot be read.
    Read(io::Error),
    /// A line that is no checksum line of the manifest's algorithm: its
    /// number (from 1).
    Improper(usize),
    /// A line whose algorithm or format differs from the first line's.
    Mixed(usize),
    /// `-a` names another algorithm than the manifest's.
    OtherAlgorithm(Algorithm),
    /// Untagged lines whose hex fits several algorithms, and no `-a`.
    Ambiguous(Vec<Algorithm>),
}

/// Update `opts.sums` with the inputs of `files` it does not list.
pub(crate) fn run(
    algos: Algorithms,
    opts: &UpdateOptions,
    plan: &Plan,
    files: Vec<OsString>,
    rep: &Reporter,
    stats: &Stats,
) -> io::Result<()> {
    let sums = &opts.sums;
    let manifest = match read_manifest(sums, algos.first(), opts) {
        Ok(m) => m,
        Err(refusal) => {
            let name = quote_name(sums.as_os_str().as_bytes());
            rep.error(&match refusal {
                Refusal::Read(e) => format!("{name}: {}", error_text(&e)),
                Refusal::Improper(n) => {
                    format!("{name}: line {n} is no checksum line: left as it was")
                }
                Refusal::Mixed(n) => format!(
                    "{name}: line {n} has another algorithm or format than the first: \
                     left as it was"
                ),
                Refusal::OtherAlgorithm(a) => format!(
                    "{name}: its lines are {}, not {}: left as it was",
                    a.name(),
                    algos.first().name()
                ),
                Refusal::Ambiguous(candidates) => format!(
                    "{name}: its lines may be {}: say which with -a; left as it was",
                    candidates
                        .iter()
                        .map(|a| a.name())
                        .collect::<Vec<_>>()
                        .join(" or ")
                ),
            });
            return Ok(());
        }
    };
    let listed: HashSet<&[u8]> = manifest.lines.iter().map(|(_, n)| &n[..]).collect();
    let mut hash_opts = opts.hash.clone();
    hash_opts.format = manifest.format;
    let mut added = Vec::new();
    hash::run_filtered(
        Algorithms::one(manifest.algo),
        hash_opts,
        plan,
        files,
        |name| !listed.contains(name),
        rep,
        stats,
        &mut added,
    )?;
    if rep.has_failed() {
        rep.error(&format!(
            "{}: not updated: an input could not be hashed",
            quote_name(sums.as_os_str().as_bytes())
        ));
        return Ok(());
    }
    let mut new = Vec::new();
    for (line, name) in &manifest.lines {
        if opts.prune && is_gone(name) {
            continue;
        }
        new.extend_from_slice(line);
    }
    new.extend_from_slice(&added);
    let name = quote_name(sums.as_os_str().as_bytes());
    match replace(sums, &new) {
        Ok(Synced::Yes) => {}
        Ok(Synced::RenamedOnly(e)) => rep.error(&format!(
            "{name}: updated, but its directory could not be synced: {}",
            error_text(&e)
        )),
        Err(e) => rep.error(&format!("{name}: {}: left as it was", error_text(&e))),
    }
    Ok(())
}

/// SUMS's lines, its algorithm and format (a missing SUMS is empty: new
/// lines take `-a`'s algorithm and the format the options ask for).
fn read_manifest(sums: &Path, asked: Algorithm, opts: &UpdateOptions) -> Result<Manifest, Refusal> {
    let text = match fs::read(sums) {
        Ok(t) => t,
        Err(e) if e.kind() == io::ErrorKind::NotFound => Vec::new(),
        Err(e) => return Err(Refusal::Read(e)),
    };
    let mut manifest = Manifest {
        lines: Vec::new(),
        algo: asked,
        format: opts.hash.format,
    };
    let mut first: Option<(Algorithm, LineFormat)> = None;
    for (i, raw) in text.split_inclusive(|&b| b == b'\n').enumerate() {
        let improper = Refusal::Improper(i + 1);
        let body = line_body(raw).ok_or(Refusal::Improper(i + 1))?;
        let default = match first {
            Some((a, _)) => a,
            None if opts.algorithm_chosen => asked,
            // untagged lines say their algorithm only by their length
            None => untagged_algorithm(body, asked)?,
        };
        let line = parse_check_line(body, default, Accept::Any).map_err(|_| improper)?;
        let format = match line.form {
            Form::Tagged => LineFormat::Tagged,
            Form::Standard => LineFormat::Gnu {
                binary: line.binary_marker(),
            },
            Form::Reversed => return Err(Refusal::Improper(i + 1)),
        };
        match first {
            None => first = Some((line.algo, format)),
            Some(f) if f != (line.algo, format) => return Err(Refusal::Mixed(i + 1)),
            Some(_) => {}
        }
        let name = line
            .file_name(false)
            .map_err(|_| Refusal::Improper(i + 1))?;
        let mut raw = raw.to_vec();
        if !raw.ends_with(b"\n") {
            raw.push(b'\n');
        }
        manifest.lines.push((raw, name));
    }
    if let Some((algo, format)) = first {
        // a BLAKE2b or SHA-3 manifest keeps its own length (as -c reads it)
        if opts.algorithm_chosen && !algo.same_family(asked) {
            return Err(Refusal::OtherAlgorithm(algo));
        }
        manifest.algo = algo;
        manifest.format = format;
    }
    Ok(manifest)
}

/// The algorithm of a manifest's first line when `-a` does not say: a tag
/// names it; an untagged line's hex fits one algorithm, or several (then
/// `-a` must choose). Only the algorithms of md5sum … sha512sum and b3sum
/// are guessed from a length: the others (BLAKE2b of any length, SM3,
/// SHA-3, CRC-32, xxHash) would make every length ambiguous.
fn untagged_algorithm(body: &[u8], asked: Algorithm) -> Result<Algorithm, Refusal> {
    let guessed = |a: Algorithm| a != asked && a.tool_name().is_some() && !a.takes_length();
    let fits: Vec<Algorithm> = std::iter::once(asked)
        .chain(Algorithm::ALL.into_iter().filter(|&a| guessed(a)))
        .filter(|&a| parse_check_line(body, a, Accept::Any).is_ok())
        .collect();
    match fits.as_slice() {
        [] => Ok(asked),
        [one] => Ok(*one),
        // a tagged line parses under any default: its tag decides
        _ if parse_check_line(body, asked, Accept::Any).is_ok_and(|l| l.form == Form::Tagged) => {
            Ok(asked)
        }
        _ => Err(Refusal::Ambiguous(fits)),
    }
}

/// Is the file a line names gone (not even a dangling link)?
fn is_gone(name: &[u8]) -> bool {
    let path = Path::new(std::ffi::OsStr::from_bytes(name));
    matches!(fs::symlink_metadata(path), Err(e) if e.kind() == io::ErrorKind::NotFound)
}

/// How far a replaced manifest is on disk.
enum Synced {
    /// Renamed and the directory synced.
    Yes,
    /// Renamed (the new manifest is in place), but syncing the directory
    /// failed: a crash now could bring the old one back.
    RenamedOnly(io::Error),
}

/// Write `bytes` to a new file beside `path`, sync it, rename it over
/// `path` and sync the directory. `Err`: `path` is as it was (the new file
/// is removed).
fn replace(path: &Path, bytes: &[u8]) -> io::Result<Synced> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let mut tmp_name = path.file_name().unwrap_or_default().to_os_string();
    tmp_name.push(format!(".fastsum-update.{}", std::process::id()));
    let tmp = dir.join(tmp_name);
    let written = (|| {
        let mut f = OpenOptions::new().write(true).create_new(true).open(&tmp)?;
        if let Ok(old) = fs::metadata(path) {
            // the new manifest keeps the old one's permissions
            f.set_permissions(old.permissions())?;
        }
        f.write_all(bytes)?;
        f.sync_all()?;
        drop(f);
        fs::rename(&tmp, path)
    })();
    if let Err(e) = written {
        let _ = fs::remove_file(&tmp);
        return Err(e);
    }
    Ok(match File::open(&dir).and_then(|d| d.sync_all()) {
        Ok(()) => Synced::Yes,
        Err(e) => Synced::RenamedOnly(e),
    })
}
