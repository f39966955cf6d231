//! Hash mode (no `-c`): hash every input and print one checksum line per
//! algorithm each (several algorithms: tagged lines, in the order given), in
//! argument order; report inputs that fail, once, and go on.

use std::ffi::OsString;
use std::io::{self, Write};
use std::path::PathBuf;

use std::os::unix::ffi::OsStrExt;

use crate::algo::{Algorithm, Algorithms, Digest, Hasher, push_hex};
use crate::config::{Context, Encoding, HashOptions, XofOutput, XxhOutput};
use crate::input::Input;
use crate::json::Record;
use crate::output::{
    LineFormat, Terminator, base64, format_line, legacy_line, quote_name, xxhsum_name,
};
use crate::printer::{Printer, Render, print_all};
use crate::read::{Hashed, Job, JobSource, Outcome, Task};
use crate::report::error_text;
use crate::walk::{self, Entry};

/// A path the walk could not read, reported in its place in the order.
type WalkError = (PathBuf, io::Error);

/// Prints each digest as a checksum line, each failure on stderr.
struct Lines {
    algo: Algorithm,
    opts: HashOptions,
}

impl Lines {
    /// One line per algorithm of the task, in its order.
    fn lines(
        &self,
        p: &mut Printer<'_>,
        algos: Algorithms,
        hashed: &Hashed,
        name: &[u8],
    ) -> io::Result<()> {
        let (format, term) = (self.opts.format, self.opts.terminator);
        for (algo, digest) in algos.as_slice().iter().zip(&hashed.digests) {
            if self.opts.encoding == Encoding::Raw {
                p.write(digest.as_bytes())?;
                continue;
            }
            if let Some(legacy) = algo.legacy() {
                let value = digest
                    .as_bytes()
                    .iter()
                    .fold(0u32, |v, &b| (v << 8) | u32::from(b));
                let name = self.opts.legacy_names.then_some(name);
                p.line(|line| legacy_line(line, legacy, value, hashed.size, name, term))?;
                continue;
            }
            let text = match self.opts.encoding {
                Encoding::Base64 => base64(digest.as_bytes()),
                _ => digest.to_hex(),
            };
            p.line(|line| format_line(line, &algo.tag(), &text, name, format, term))?;
        }
        Ok(())
    }
}

impl Render<(), WalkError> for Lines {
    fn render(&mut self, outcome: Outcome<(), WalkError>, p: &mut Printer<'_>) -> io::Result<()> {
        let json = self.opts.json;
        if let Some(xxh) = self.opts.xxhsum {
            return self.xxh_render(outcome, xxh, p);
        }
        match outcome {
            Outcome::Hashed(task, Ok(hashed)) => match (self.opts.xof, hashed.digests.first()) {
                (Some(xof), Some(digest)) => self.xof_line(p, digest, xof, task.input.name()),
                _ if json => json_lines(p, task.algos, &hashed, task.input.name()),
                _ => self.lines(p, task.algos, &hashed, task.input.name()),
            },
            Outcome::Hashed(task, Err(e)) => failed(p, task.input.name(), &e, json),
            Outcome::Passed((path, e)) => failed(p, path.as_os_str().as_bytes(), &e, json),
        }
    }
}

impl Lines {
    /// Under an xxhsum name: standard input is `stdin`, `--little-endian`
    /// reverses the digest and marks the tag, failures are xxhsum's words.
    fn xxh_render(
        &self,
        outcome: Outcome<(), WalkError>,
        xxh: XxhOutput,
        p: &mut Printer<'_>,
    ) -> io::Result<()> {
        let (task, r) = match outcome {
            Outcome::Hashed(task, r) => (task, r),
            Outcome::Passed((path, e)) => return xxh_failed(p, path.as_os_str().as_bytes(), &e),
        };
        let name = xxhsum_name(&task.input);
        let hashed = match r {
            Ok(hashed) => hashed,
            Err(e) => return xxh_failed(p, name, &e),
        };
        let (format, term) = (self.opts.format, self.opts.terminator);
        for (algo, digest) in task.algos.as_slice().iter().zip(&hashed.digests) {
            let mut bytes = digest.as_bytes().to_vec();
            let mut tag = algo.tag().into_owned();
            if xxh.little_endian {
                bytes.reverse();
                tag.push_str("_LE");
            }
            let mut hex = Vec::with_capacity(2 * bytes.len());
            push_hex(&mut hex, &bytes);
            let hex = String::from_utf8_lossy(&hex);
            p.line(|line| format_line(line, &tag, &hex, name, format, term))?;
        }
        Ok(())
    }
}

/// xxhsum's messages for an input that failed (its own words, no program
/// name but for a directory's); a read error, where xxhsum would print a
/// digest of what it read, is reported too.
fn xxh_failed(p: &mut Printer<'_>, name: &[u8], e: &io::Error) -> io::Result<()> {
    let name = String::from_utf8_lossy(name);
    let text = match e.kind() {
        io::ErrorKind::IsADirectory => format!("xxhsum: {name}: Is a directory \n"),
        io::ErrorKind::NotFound | io::ErrorKind::PermissionDenied => {
            format!("Error: Could not open '{name}': {}. \n", error_text(e))
        }
        _ => format!("Error: Could not read '{name}': {}. \n", error_text(e)),
    };
    p.error_raw(text.as_bytes())
}

/// `--json`: one object per algorithm of the task, in its order.
fn json_lines(
    p: &mut Printer<'_>,
    algos: Algorithms,
    hashed: &Hashed,
    name: &[u8],
) -> io::Result<()> {
    for (&algo, digest) in algos.as_slice().iter().zip(&hashed.digests) {
        p.line(|line| {
            Record::new("path", name)
                .algorithm(algo)
                .text("digest", &digest.to_hex())
                .number("size", hashed.size)
                .write(line)
        })?;
    }
    Ok(())
}

impl Lines {
    /// b3sum's `--length`/`--raw`/`--no-names`: the output streamed in
    /// pieces, so any length takes constant memory.
    fn xof_line(
        &self,
        p: &mut Printer<'_>,
        digest: &Digest,
        xof: XofOutput,
        name: &[u8],
    ) -> io::Result<()> {
        if xof.raw {
            return digest.extended(xof.length, |bytes| p.write(bytes));
        }
        // the line with an empty hex, split where the hex goes: after the
        // escape mark of an untagged line, before the end of a tagged one
        let mut line = Vec::new();
        let split = if xof.no_names {
            line.push(b'\n');
            0
        } else {
            let (format, term) = (self.opts.format, self.opts.terminator);
            format_line(&mut line, &self.algo.tag(), "", name, format, term);
            match format {
                LineFormat::Tagged => line.len() - 1,
                LineFormat::Gnu { .. } => usize::from(line.first() == Some(&b'\\')),
            }
        };
        p.write(&line[..split])?;
        let mut hex = Vec::with_capacity(128);
        digest.extended(xof.length, |bytes| {
            hex.clear();
            push_hex(&mut hex, bytes);
            p.write(&hex)
        })?;
        p.write(&line[split..])
    }
}

/// Report a failed input (with `--json`, also as an object on stdout);
/// the run goes on and will exit 1.
fn failed(p: &mut Printer<'_>, name: &[u8], e: &io::Error, json: bool) -> io::Result<()> {
    if json {
        p.line(|line| {
            Record::new("path", name)
                .text("error", &error_text(e))
                .write(line)
        })?;
    }
    p.error(&format!("{}: {}", quote_name(name), error_text(e)))
}

/// Hash every input named by `files` with every algorithm of `algos` and
/// print the lines to `out` (with `--tree-digest`, one line per directory).
pub(crate) fn run(
    cx: Context<'_>,
    opts: HashOptions,
    files: Vec<OsString>,
    out: &mut dyn Write,
) -> io::Result<()> {
    if opts.tree_digest {
        for dir in files {
            tree_digest(cx, &opts, dir, out)?;
        }
        return Ok(());
    }
    let blank_out = opts.xxhsum.is_some_and(|x| x.blank_out);
    run_filtered(cx, opts, files, |_| true, out)?;
    if blank_out {
        out.flush()?;
        cx.rep.raw(format!("\r{:70}\r", "").as_bytes());
    }
    Ok(())
}

/// `--tree-digest`: the digest, with `algo`, of the bytes that
/// `cd DIR && fastsum -r -z -a ALGO .` prints (the same walk options
/// too): each regular file under DIR as `HEX  ./PATH` and a NUL, in the
/// walk's order (entries sorted by their bytes; links met in the walk,
/// FIFOs, devices and empty directories count for nothing). Printed as a
/// checksum line for DIR. A file that cannot be hashed is reported and DIR
/// gets no line: no digest of a partial tree.
fn tree_digest(
    cx: Context<'_>,
    opts: &HashOptions,
    dir: OsString,
    out: &mut dyn Write,
) -> io::Result<()> {
    let algo = cx.algos.first();
    let name = std::os::unix::ffi::OsStrExt::as_bytes(dir.as_os_str()).to_vec();
    let root = PathBuf::from(&dir);
    if !root.is_dir() {
        let e = match std::fs::metadata(&root) {
            Err(e) => e,
            Ok(_) => io::Error::from_raw_os_error(libc::ENOTDIR),
        };
        cx.rep
            .error(&format!("{}: {}", quote_name(&name), error_text(&e)));
        return Ok(());
    }
    let mut state = Tree {
        manifest: Hasher::new(algo),
        failed: false,
    };
    let jobs = walk::expand(vec![dir], &opts.walk).map(move |entry| match entry {
        Entry::Input(input) => Job::Hash(Task {
            input,
            algos: Algorithms::one(algo),
            context: (),
        }),
        Entry::Error(path, e) => Job::Pass((path, e)),
    });
    let render = TreeLines {
        root: &root,
        state: &mut state,
    };
    // the tree's checksum lines go into the manifest digest, its errors to
    // stderr in their place
    print_all(cx, jobs, JobSource::Operands, render, &mut io::sink())?;
    if state.failed {
        return Ok(());
    }
    let hex = state.manifest.finalize().to_hex();
    let mut line = Vec::new();
    format_line(
        &mut line,
        &algo.tag(),
        &hex,
        &name,
        opts.format,
        opts.terminator,
    );
    out.write_all(&line)?;
    out.flush()
}

/// A tree's manifest as it is hashed, and whether a file of it failed.
struct Tree {
    manifest: Hasher,
    failed: bool,
}

/// Feeds each file's `-z` line, named `./PATH` below `root`, to the tree's
/// manifest digest.
struct TreeLines<'a> {
    root: &'a std::path::Path,
    state: &'a mut Tree,
}

impl Render<(), WalkError> for TreeLines<'_> {
    fn render(&mut self, outcome: Outcome<(), WalkError>, p: &mut Printer<'_>) -> io::Result<()> {
        match outcome {
            Outcome::Hashed(task, Ok(Hashed { digests, .. })) => {
                let path = std::path::Path::new(std::ffi::OsStr::from_bytes(task.input.name()));
                let rel = path.strip_prefix(self.root).unwrap_or(path);
                let name = [b"./", rel.as_os_str().as_bytes()].concat();
                let mut line = Vec::new();
                for (algo, digest) in task.algos.as_slice().iter().zip(&digests) {
                    let hex = digest.to_hex();
                    let format = LineFormat::Gnu { binary: false };
                    format_line(&mut line, &algo.tag(), &hex, &name, format, Terminator::Nul);
                }
                self.state.manifest.update(&line);
                Ok(())
            }
            Outcome::Hashed(task, Err(e)) => {
                self.state.failed = true;
                failed(p, task.input.name(), &e, false)
            }
            Outcome::Passed((path, e)) => {
                self.state.failed = true;
                failed(p, path.as_os_str().as_bytes(), &e, false)
            }
        }
    }
}

/// [`run`] over the inputs `keep` accepts (`--update`: those a manifest
/// does not list yet, and not the manifest).
pub(crate) fn run_filtered(
    cx: Context<'_>,
    opts: HashOptions,
    files: Vec<OsString>,
    keep: impl Fn(&Input) -> bool + Send,
    out: &mut dyn Write,
) -> io::Result<()> {
    let jobs = walk::expand(files, &opts.walk).filter_map(move |entry| match entry {
        Entry::Input(input) => keep(&input).then_some(Job::Hash(Task {
            input,
            algos: cx.algos,
            context: (),
        })),
        Entry::Error(path, e) => Some(Job::Pass((path, e))),
    });
    let algo = cx.algos.first();
    print_all(cx, jobs, JobSource::Operands, Lines { algo, opts }, out)
}
