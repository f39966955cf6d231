//! fastsum: print or check checksums (MD5, SHA-1, SHA-2, SHA-3, BLAKE2b,
//! BLAKE3, SM3, xxHash, CRC-32, cksum's and sum's) as GNU coreutils' tools,
//! b3sum and xxhsum do, through a threaded read-ahead pipeline. The layers,
//! the data flow and where each decision is made are described in
//! docs/ARCHITECTURE.md; in short:
//!
//! ```text
//! argv ─ cli (clap, multi-call name) ─> Config ─ run (here): Hash, Check,
//!      Update or Audit
//!      ─ hash / check: jobs in output order ─ printer ─ read (schedulers,
//!        strategies) ─ algo (Hasher) ─> Digest ─ output (GNU lines) ─ stdio
//! ```

// No function over 80 lines of code (clippy.toml's threshold) but the
// SIMD kernels: each says so where it is longer.
#![warn(clippy::too_many_lines)]

mod algo;
mod cli;
mod command;
mod config;
mod cores;
mod input;
mod output;
mod printer;
mod progress;
mod read;
mod report;
mod signature;
mod size;
mod stats;
mod stdio;
mod storage;
mod sys;
#[cfg(any(test, feature = "internals"))]
mod testing;
mod walk;

use std::ffi::OsString;
use std::io::{self, Write};
use std::time::Instant;

pub use report::Exit;
pub use stdio::prepare_process;

use crate::command::check::grammar::Make;
use crate::command::{check, hash, merge, update};
use crate::config::{Command, Config, Context};
use crate::report::{Reporter, error_text};
use crate::stats::Stats;
use crate::stdio::{CheckedWriter, OnWriteError, Stdout, is_broken_pipe, write_stderr};

/// What the benchmarks, examples and integration tests reach inside the
/// crate for (the `internals` feature, which their dev-dependency on this
/// crate turns on). Not an API: it may change with any release.
#[cfg(feature = "internals")]
#[doc(hidden)]
pub mod internals {
    pub use crate::algo::md5::lanes::{Engine, LANES, Path as LanePath, compress_lanes};
    pub use crate::algo::md5::{Kernel, Md5};
    pub use crate::algo::sha::lanes::{
        Engine as ShaEngine, LaneStats as ShaLaneStats, Path as ShaLanePath, Sha, Sha1, Sha1Engine,
        Sha224, Sha224Engine, Sha256, Sha256Engine,
    };
    pub use crate::algo::{Algorithm, Algorithms, BLAKE3_MULTITHREAD_MIN, Hasher, hash_bytes};
    pub use crate::cli::{HELP_SECTIONS, HelpSection, ModeArg, command};
    pub use crate::input::Input;
    pub use crate::read::pipeline::drain_reader;
    pub use crate::read::route::MMAP_MIN;
    pub use crate::read::sync::drain_sync;
    pub use crate::read::{Mode, Plan, hash_one};
    pub use crate::size::Size;
    pub use crate::stats::Stats;
    pub use crate::testing::{Rng, random_bytes};
}

/// Run fastsum with these arguments (`argv[0]` included) and return how it
/// ended. Never panics on bad input; never calls `process::exit`.
pub fn run(argv: impl IntoIterator<Item = OsString>) -> Exit {
    read::install_sigbus_handler();
    read::adapt_to_limits();
    let (program, grammar, parsed) = cli::parse(argv.into_iter().collect());
    let rep = Reporter::new(program);
    let mut cfg = match parsed {
        Ok(cfg) => cfg,
        Err(stop) => match stop.into_output() {
            Ok(text) => return print_text(&rep, &text),
            Err((text, code)) => {
                write_stderr(&text);
                return Exit::Usage(code);
            }
        },
    };
    if cfg.debug && cfg.algorithms.contains(algo::Algorithm::Crc) {
        rep.message(algo::legacy::PosixCrc::implementation());
    }
    let stats = Stats::default();
    let start = Instant::now();
    // GNU's hash mode reads on after a write error and reports it at the
    // end; its check mode (9.10) stops at once.
    let policy = match cfg.command {
        Command::Hash(_) | Command::Update(_) => OnWriteError::GoOn,
        Command::Check(_) | Command::Audit(_) | Command::Merge(_) => OnWriteError::Stop,
    };
    let mut out =
        io::BufWriter::with_capacity(64 * 1024, CheckedWriter::new(Stdout::new(), policy));
    let names_stdin = cfg.files.iter().any(|f| f == "-");
    let files = std::mem::take(&mut cfg.files);
    let result = dispatch(&cfg, grammar, files, &rep, &stats, &mut out);
    // what a failed write left in the buffer is dropped, never retried
    let (mut stdout, _unwritten) = out.into_parts();
    let stdout_error = stdout.take_error();
    drop(stdout);
    let result = result
        .and(stdout_error)
        .and_then(|()| stdio::close_stdout());
    // GNU closes stdin at the end when it read it, and reports that failing
    // on a closed descriptor too
    if names_stdin && stdio::stdin_was_closed() {
        rep.error("standard input: Bad file descriptor");
    }
    if cfg.stats {
        print_stats(&cfg, &stats, program, start);
    }
    let exit = match result {
        Ok(()) => rep.exit(),
        // a closed pipe ends hashing quietly, but keeps a failure already
        // seen; a verifier that could not say everything has not succeeded
        Err(e) if is_broken_pipe(&e) => match cfg.command {
            Command::Hash(_) | Command::Update(_) => rep.exit(),
            Command::Check(_) | Command::Audit(_) | Command::Merge(_) => Exit::BrokenPipe,
        },
        Err(e) => {
            rep.error(&format!("write error: {}", error_text(&e)));
            Exit::Failure
        }
    };
    // a message that could not be written fails the run, as in GNU
    match exit {
        Exit::Ok if stdio::stderr_failed() => Exit::Failure,
        exit => exit,
    }
}

/// Run the command of `cfg` over `files`, with the progress display if
/// wanted: the one place that builds the commands' [`Context`]. `-c`
/// reads check files by the grammar `grammar` builds (the name's).
fn dispatch(
    cfg: &Config,
    grammar: Make,
    files: Vec<OsString>,
    rep: &Reporter,
    stats: &Stats,
    out: &mut dyn Write,
) -> io::Result<()> {
    std::thread::scope(|s| {
        // (the names are copied for the display's thread only if it runs)
        let total: Option<progress::Total> = match cfg.command {
            Command::Hash(ref opts) if progress::wanted(cfg.progress) => {
                let (files, walk) = (files.clone(), opts.walk.clone());
                Some(Box::new(move || {
                    Some(hash::planned(files, &walk, |_| true, true))
                }))
            }
            Command::Check(_) if progress::wanted(cfg.progress) => {
                let files = files.clone();
                Some(Box::new(move || {
                    check::listed_count(&files).map(|n| (n, None))
                }))
            }
            _ => None,
        };
        let display = progress::start(s, cfg.progress, stats, total);
        let cx = Context {
            algos: cfg.algorithms,
            plan: &cfg.plan,
            rep,
            stats,
        };
        let result = match &cfg.command {
            Command::Hash(opts) => hash::run(cx, opts.clone(), files, out),
            Command::Check(opts) => check::run(cx, opts.clone(), grammar, &files, out),
            Command::Audit(opts) => check::audit::run(cx, opts, grammar, &files, out),
            Command::Update(opts) => update::run(cx, opts, files),
            Command::Merge(output) => merge::run(cx, &files, output.as_deref(), out),
        };
        display.finish();
        result
    })
}

/// `--stats`: what the run counted, on stderr (the lane counters of the
/// lane kernels of the algorithms that ran: MD5's, SHA-1's and SHA-224/256's).
fn print_stats(cfg: &Config, stats: &Stats, program: &str, start: Instant) {
    let threaded = cfg.plan.mode == read::Mode::Threaded;
    let ran = |k: algo::LaneKernels| {
        cfg.algorithms
            .as_slice()
            .iter()
            .any(|a| a.lanes().is_some_and(|e| e.kernels() == k))
    };
    let (md5, sha) = (ran(algo::LaneKernels::Md5), ran(algo::LaneKernels::Sha));
    let report = stats.report(program, start.elapsed(), threaded, md5, sha);
    write_stderr(report.as_bytes());
}

/// Print `--help` or `--version` text: a write error is reported, as GNU
/// does, and fails the run.
fn print_text(rep: &Reporter, text: &[u8]) -> Exit {
    let mut out = Stdout::new();
    let written = out.write_all(text).and_then(|()| out.flush());
    drop(out);
    match written.and_then(|()| stdio::close_stdout()) {
        Ok(()) => Exit::Ok,
        Err(e) if is_broken_pipe(&e) => Exit::Ok,
        Err(e) => {
            rep.error(&format!("write error: {}", error_text(&e)));
            Exit::Failure
        }
    }
}
