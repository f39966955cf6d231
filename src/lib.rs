//! fastsum: print or check MD5, SHA-1, SHA-2 and BLAKE3 checksums, as GNU
//! coreutils' md5sum / sha*sum and b3sum do, through a threaded read-ahead
//! pipeline.
//!
//! How a run flows, and where each step lives:
//!
//! ```text
//! argv ─ cli (clap, multi-call name) ─ config (resolved Config)
//!      ─ compute (hash mode) or check (-c): build Jobs, in output order
//!      ─ read (the --mode: threaded pipeline, sync, bytewise, mmap; -j workers)
//!      ─ algo (Hasher) → Digest
//!      ─ output (GNU line format, escaping) → one buffered stdout
//! report: messages on stderr, exit status; stats: --stats counters
//! ```

#![deny(missing_docs)]

pub mod algo;
pub mod check;
pub mod cli;
pub mod compute;
pub mod config;
pub mod input;
pub mod md5;
pub mod output;
pub mod progress;
pub mod read;
pub mod report;
pub mod size;
pub mod stats;
pub mod walk;

use std::ffi::OsString;
use std::io::{self, Write};
use std::time::Instant;

use crate::cli::Invocation;
use crate::config::Config;
use crate::report::{Exit, Reporter, is_broken_pipe};
use crate::stats::Stats;

/// Run fastsum with these arguments (`argv[0]` included) and return the exit
/// status. Never panics on bad input; never calls `process::exit`.
pub fn run(argv: impl IntoIterator<Item = OsString>) -> Exit {
    read::install_sigbus_handler();
    let argv: Vec<OsString> = argv.into_iter().collect();
    let inv = Invocation::from_argv0(argv.first());
    let rep = Reporter::new(inv.program);
    let args = match cli::parse(&inv, argv) {
        Ok(args) => args,
        Err(e) => {
            let code = if e.use_stderr() {
                inv.usage_exit_code()
            } else {
                0
            };
            // help and version go to stdout, errors to stderr; ignore a closed pipe
            let _ = e.print();
            return if code == 0 {
                Exit::Ok
            } else {
                Exit::Usage(code)
            };
        }
    };
    let cfg = match Config::from_args(args, &inv) {
        Ok(cfg) => cfg,
        Err(msg) => return rep.usage_error(&msg, inv.usage_exit_code()),
    };
    // A FASTSUM_MD5 that names no kernel is a usage error, not silently ignored.
    if let Err(msg) = md5::Kernel::check_env() {
        return rep.usage_error(&msg, inv.usage_exit_code());
    }
    let stats = Stats::default();
    let start = Instant::now();
    let stdout = report::DeferredWriteError::new(report::Stdout::new());
    let mut out = io::BufWriter::with_capacity(64 * 1024, stdout);
    let result = std::thread::scope(|s| {
        let total_of = cfg
            .check
            .is_none()
            .then(|| (cfg.files.clone(), cfg.recursive));
        let display = progress::start(s, cfg.progress, &stats, total_of);
        let result = if cfg.check.is_some() {
            check::run(&cfg, &rep, &stats, &mut out)
        } else {
            compute::run(&cfg, &rep, &stats, &mut out)
        };
        display.finish();
        result
    });
    let result = result.and_then(|()| out.get_mut().take_error());
    // GNU closes stdin at the end when it read it, and reports that failing
    // on a closed descriptor too
    if cfg.files.iter().any(|f| f == "-") && report::stdin_was_closed() {
        rep.error("standard input: Bad file descriptor");
    }
    if cfg.stats {
        let report = stats.report(rep.program(), start.elapsed(), cfg.is_threaded());
        let _ = io::stderr().lock().write_all(report.as_bytes());
    }
    match result {
        Ok(()) => rep.exit(),
        Err(e) if is_broken_pipe(&e) => Exit::Ok,
        Err(e) => {
            rep.error(&format!("write error: {}", input::error_text(&e)));
            Exit::Failure
        }
    }
}
