//! Hash mode (no `-c`): hash every input and print one checksum line per
//! algorithm each (several algorithms: tagged lines, in the order given), in
//! argument order; report inputs that fail, once, and go on.

use std::ffi::OsString;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use super::{list, shard};
use crate::algo::{Algorithms, Hasher};
use crate::command::meta::Meta;
use crate::config::{Context, HashOptions};
use crate::input::Input;
use crate::output::gnu::{Line, format_line};
use crate::output::{Recorded, Writer, checksum_line, quote_name, writer};
use crate::printer::{Printer, Render, print_all};
use crate::read::{Hashed, Job, JobSource, Outcome, Task};
use crate::report::error_text;
use crate::walk::{self, Entry};

/// A path the walk could not read, reported in its place in the order.
type WalkError = (PathBuf, io::Error);

/// Prints each digest and each failure as the style's writer writes them;
/// with `--meta`, each digest line after its file's `#meta` line (its
/// size and mtime looked at before it was opened: a file changed since
/// reads as changed to the next `--update`).
struct Lines {
    writer: Box<dyn Writer + Send>,
}

impl Render<Option<Meta>, WalkError> for Lines {
    fn render(
        &mut self,
        outcome: Outcome<Option<Meta>, WalkError>,
        p: &mut Printer<'_>,
    ) -> io::Result<()> {
        let w = &self.writer;
        match outcome {
            Outcome::Hashed(task, Ok(hashed)) => {
                let Task {
                    input,
                    algos,
                    context,
                } = task;
                let task = Task {
                    input,
                    algos,
                    context: (),
                };
                match context {
                    Some(meta) => {
                        let line = meta.line();
                        let recorded = Recorded {
                            line: &line,
                            mtime_ns: meta.mtime,
                        };
                        w.digests_with(p, &task, &hashed, &recorded)
                    }
                    None => w.digests(p, &task, &hashed),
                }
            }
            Outcome::Hashed(task, Err(e)) => w.failed(p, w.name(&task.input), &e),
            Outcome::Passed((path, e)) => w.failed(p, path.as_os_str().as_encoded_bytes(), &e),
        }
    }
}

/// Report a failed input of a tree digest (the run goes on and will exit 1).
fn failed(p: &mut Printer<'_>, name: &[u8], e: &io::Error) -> io::Result<()> {
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
    match opts.shares.output.clone() {
        Some(path) => publish(cx, &path, |out| hash_all(cx, &opts, files, out)),
        None => hash_all(cx, &opts, files, out),
    }
}

/// Hash mode's lines to `out`: of every input, or of `--shard`'s share.
fn hash_all(
    cx: Context<'_>,
    opts: &HashOptions,
    files: Vec<OsString>,
    out: &mut dyn Write,
) -> io::Result<()> {
    let closing = writer(opts.style).closing();
    let Some(entries) = inputs(cx, opts, files) else {
        return Ok(());
    };
    match &opts.shares.shard {
        Some(shard) => {
            let mine = match opts.shares.list.as_ref().filter(|list| list.sizes) {
                Some(list) => match list::SizedList::read(list) {
                    Ok(sized) => shard::share(cx, opts, shard, sized, out)?,
                    Err(e) => {
                        let name = quote_name(list.path.as_encoded_bytes());
                        cx.rep.error(&format!("{name}: {}", error_text(&e)));
                        return Ok(());
                    }
                },
                None => shard::share(cx, opts, shard, shard::Walked::stat(entries), out)?,
            };
            print_entries(cx, opts, mine.into_iter(), |_| true, out)?;
        }
        None => print_entries(cx, opts, entries, |_| true, out)?,
    }
    if let Some(text) = closing {
        out.flush()?;
        cx.rep.raw(text);
    }
    Ok(())
}

/// The run's inputs, in its order: the FILEs', or the list's names, each
/// expanded by the walk. `None` when the list cannot be opened (reported,
/// as GNU du and wc word it).
fn inputs(
    cx: Context<'_>,
    opts: &HashOptions,
    files: Vec<OsString>,
) -> Option<Box<dyn Iterator<Item = Entry> + Send>> {
    let Some(list) = &opts.shares.list else {
        return Some(Box::new(walk::expand(files, &opts.walk)));
    };
    let names = match list::open(list) {
        Ok(names) => names,
        Err(e) => {
            let name = quote_name(list.path.as_encoded_bytes());
            cx.rep.error(&format!(
                "cannot open {name} for reading: {}",
                error_text(&e)
            ));
            return None;
        }
    };
    let walk = opts.walk.clone();
    Some(Box::new(names.flat_map(move |name| {
        let (name, refused) = match name {
            Ok(name) => (Some(name), None),
            Err(entry) => (None, Some(entry)),
        };
        let expanded = name.map(|name| walk::expand_one(name, &walk));
        expanded.into_iter().flatten().chain(refused)
    })))
}

/// `--output FILE`: what `write` writes goes to a new file beside FILE,
/// which is synced and renamed over FILE only if no input failed (else it
/// is removed, FILE left as it was): FILE appears only complete.
pub(crate) fn publish(
    cx: Context<'_>,
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> io::Result<()> {
    let opened = match output_target(&crate::sys::file_path(path)) {
        Ok(target) => target,
        Err(why) => {
            let name = quote_name(path.as_os_str().as_encoded_bytes());
            cx.rep.error(&format!("{name}: {why}: not written"));
            return Ok(());
        }
    };
    let dir = match opened.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let mut builder = tempfile::Builder::new();
    builder.prefix(".fastsum-").suffix(".part");
    #[cfg(unix)]
    builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o644));
    let temp = match builder.tempfile_in(&dir) {
        Ok(temp) => temp,
        Err(e) => {
            let name = quote_name(path.as_os_str().as_encoded_bytes());
            cx.rep.error(&format!("{name}: {}", error_text(&e)));
            return Ok(());
        }
    };
    let mut buffered = io::BufWriter::new(temp);
    write(&mut buffered)?;
    let temp = buffered
        .into_inner()
        .map_err(io::IntoInnerError::into_error)?;
    if cx.rep.has_failed() {
        return Ok(());
    }
    temp.as_file().sync_all()?;
    // (looked at again: something put there meanwhile is not replaced)
    if let Err(why) = output_target(&opened) {
        let name = quote_name(path.as_os_str().as_encoded_bytes());
        cx.rep.error(&format!("{name}: {why}: not written"));
        return Ok(());
    }
    temp.persist(&opened).map_err(|e| e.error)?;
    Ok(())
}

/// The file `--output PATH` replaces: PATH itself when nothing is there or
/// a regular file is, the file a symbolic link names when it is a regular
/// one (the link is kept); never a device, FIFO, socket or directory
/// (renamed over as root, `/dev/null` would become a regular file), nor
/// a link to nothing. `Err`: why not, in words.
fn output_target(path: &Path) -> Result<PathBuf, String> {
    match std::fs::metadata(path) {
        Ok(m) if !m.is_file() => Err(format!("not a regular file ({})", file_kind(&m))),
        Ok(_) => std::fs::canonicalize(path).map_err(|e| error_text(&e)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => match std::fs::symlink_metadata(path) {
            Ok(m) if m.file_type().is_symlink() => {
                Err("a symbolic link to a file that does not exist".into())
            }
            _ => Ok(path.to_path_buf()),
        },
        Err(e) => Err(error_text(&e)),
    }
}

/// What a file that is not a regular one is, in a message.
pub(crate) fn file_kind(meta: &std::fs::Metadata) -> &'static str {
    let t = meta.file_type();
    if t.is_dir() {
        "a directory"
    } else {
        crate::sys::special_kind(&t).unwrap_or("not a file")
    }
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
    let name = dir.as_os_str().as_encoded_bytes().to_vec();
    let root = PathBuf::from(&dir);
    let opened = crate::sys::file_path(&root);
    if !opened.is_dir() {
        let e = match std::fs::metadata(&opened) {
            Err(e) => e,
            Ok(_) => crate::sys::not_a_directory(),
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
    checksum_line(&mut line, opts.style, &algo.tag(), &hex, &name);
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
                let path = task.input.path().unwrap_or(std::path::Path::new("-"));
                let rel = path.strip_prefix(self.root).unwrap_or(path);
                let name = [b"./", rel.as_os_str().as_encoded_bytes()].concat();
                let mut line = Vec::new();
                for (algo, digest) in task.algos.as_slice().iter().zip(&digests) {
                    let hex = digest.to_hex();
                    format_line(&mut line, &algo.tag(), &hex, &name, Line::ZERO);
                }
                self.state.manifest.update(&line);
                Ok(())
            }
            Outcome::Hashed(task, Err(e)) => {
                self.state.failed = true;
                failed(p, task.input.name(), &e)
            }
            Outcome::Passed((path, e)) => {
                self.state.failed = true;
                failed(p, path.as_os_str().as_encoded_bytes(), &e)
            }
        }
    }
}

/// What a hash run over `files` that hashes the inputs `keep` keeps will
/// do, for the progress display: how many inputs, and if `sized` the bytes
/// it will read (the sizes of the regular files among them, a stat each:
/// this runs on a thread of its own while the run goes on).
pub(crate) fn planned(
    files: Vec<OsString>,
    walk: &walk::Walk,
    mut keep: impl FnMut(&Input) -> bool,
    sized: bool,
) -> (u64, Option<u64>) {
    let (mut inputs, mut bytes) = (0, 0);
    for entry in walk::expand(files, walk) {
        let Entry::Input(input) = entry else {
            continue;
        };
        if !keep(&input) {
            continue;
        }
        inputs += 1;
        if let (true, Input::Path(p)) = (sized, input) {
            bytes += std::fs::metadata(crate::sys::file_path(&p))
                .ok()
                .filter(|m| m.is_file())
                .map_or(0, |m| m.len());
        }
    }
    (inputs, sized.then_some(bytes))
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
    let entries = walk::expand(files, &opts.walk);
    print_entries(cx, &opts, entries, keep, out)
}

/// The lines of the `entries` that `keep` accepts, in their order, in
/// `opts`' style (with `--meta`, each after its `#meta` line).
fn print_entries(
    cx: Context<'_>,
    opts: &HashOptions,
    entries: impl Iterator<Item = Entry> + Send,
    keep: impl Fn(&Input) -> bool + Send,
    out: &mut dyn Write,
) -> io::Result<()> {
    let meta = opts.meta;
    let jobs = entries.filter_map(move |entry| match entry {
        Entry::Input(input) => keep(&input).then(|| {
            // (standard input, or a file that cannot be looked at: no
            // `#meta` line)
            let context = match &input {
                Input::Path(path) if meta => Meta::of_path(path).ok(),
                _ => None,
            };
            Job::Hash(Task {
                input,
                algos: cx.algos,
                context,
            })
        }),
        Entry::Error(path, e) => Some(Job::Pass((path, e))),
    });
    let lines = Lines {
        writer: writer(opts.style),
    };
    print_all(cx, jobs, JobSource::Operands, lines, out)
}
