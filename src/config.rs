//! From parsed arguments to a resolved `Config`: defaults, multi-call
//! defaults and the option combinations GNU rejects are all settled here,
//! so nothing below sees clap types or raw strings.

use std::ffi::OsString;

use crate::algo::Algorithm;
use crate::cli::{Args, Invocation, Mode};
use crate::output::{LineFormat, Terminator};
use crate::read::Plan;

/// How much check mode prints (`--status` < `--quiet` < default < `--warn`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Verbosity {
    /// `--status`: nothing on stdout, exit status only.
    Status,
    /// `--quiet`: no OK lines.
    Quiet,
    /// The default.
    Normal,
    /// `-w`: also warn about improperly formatted lines.
    Warn,
}

/// Check-mode settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CheckOptions {
    /// What to print.
    pub verbosity: Verbosity,
    /// `--strict`: improperly formatted lines make the run fail.
    pub strict: bool,
    /// `--ignore-missing`: missing files are not failures.
    pub ignore_missing: bool,
}

/// When to show the progress display.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Progress {
    /// On a terminal, for runs longer than about a second.
    Auto,
    /// `--progress`: on a terminal, from the start.
    Always,
    /// `--no-progress`.
    Never,
}

/// Everything a run needs, resolved.
#[derive(Clone, Debug)]
pub struct Config {
    /// The algorithm for hashing, and for untagged check lines.
    pub algorithm: Algorithm,
    /// Whether the user chose `algorithm` (`-a`, or a multi-call name)
    /// rather than getting the default: then check mode takes no other
    /// algorithm's tagged lines.
    pub algorithm_chosen: bool,
    /// Line layout when hashing.
    pub format: LineFormat,
    /// Line ending when hashing.
    pub terminator: Terminator,
    /// `Some` in check mode.
    pub check: Option<CheckOptions>,
    /// How inputs are read.
    pub plan: Plan,
    /// `-r`.
    pub recursive: bool,
    /// Progress display.
    pub progress: Progress,
    /// `--stats`.
    pub stats: bool,
    /// The FILE arguments (`-` for stdin when none were given).
    pub files: Vec<OsString>,
}

/// The number of hashing threads when `-j` is not given: the number of
/// cores available to this process. Measured (`benches/e2e.sh --sweep`,
/// 10,000 files of 1 B-16 KiB, 2 cores, fastest of 3 runs, 03:43 UTC): warm
/// -j1 124 ms, -j2 96, -j3 106, -j4 111, -j8 112; cold 0.71-0.85 s for every
/// -j, in no order (one reader thread reads the files in turn, so -j adds no
/// I/O concurrency). The core count was the fastest warm; oversubscribing
/// gains nothing. (An earlier sweep, with the md-5 crate and before
/// batching: -j1 179, -j2 140, -j3 135 ms.)
pub fn default_jobs() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

impl Config {
    /// Resolve `args`; `Err` holds GNU's message for a rejected combination.
    pub fn from_args(args: Args, inv: &Invocation) -> Result<Config, String> {
        if args.check {
            if args.tag {
                return Err("the --tag option is meaningless when verifying checksums".into());
            }
            if args.zero {
                return Err("the --zero option is not supported when verifying checksums".into());
            }
            if args.binary || args.text {
                return Err(
                    "the --binary and --text options are meaningless when verifying checksums"
                        .into(),
                );
            }
        } else {
            let only_check = [
                (args.ignore_missing, "--ignore-missing"),
                (args.status, "--status"),
                (args.warn, "--warn"),
                (args.quiet, "--quiet"),
                (args.strict, "--strict"),
            ];
            if let Some((_, flag)) = only_check.iter().find(|(set, _)| *set) {
                return Err(format!(
                    "the {flag} option is meaningful only when verifying checksums"
                ));
            }
            if args.tag && args.text {
                return Err("--tag does not support --text mode".into());
            }
        }
        if args.pool.get().saturating_mul(args.readahead) > crate::read::MAX_IN_FLIGHT {
            return Err(
                "--pool × --readahead must be at most 4G: that much memory is held in blocks"
                    .into(),
            );
        }
        let verbosity = if args.status {
            Verbosity::Status
        } else if args.quiet {
            Verbosity::Quiet
        } else if args.warn {
            Verbosity::Warn
        } else {
            Verbosity::Normal
        };
        let check = args.check.then_some(CheckOptions {
            verbosity,
            strict: args.strict,
            ignore_missing: args.ignore_missing,
        });
        let format = if args.tag {
            LineFormat::Tagged
        } else {
            LineFormat::Gnu {
                binary: args.binary,
            }
        };
        let progress = if args.no_progress {
            Progress::Never
        } else if args.progress {
            Progress::Always
        } else {
            Progress::Auto
        };
        let mut files = args.files;
        if files.is_empty() {
            files.push(OsString::from("-"));
        }
        Ok(Config {
            algorithm: args
                .algorithm
                .or(inv.default_algorithm)
                .unwrap_or(Algorithm::Md5),
            algorithm_chosen: args.algorithm.is_some() || inv.default_algorithm.is_some(),
            format,
            terminator: if args.zero {
                Terminator::Nul
            } else {
                Terminator::Newline
            },
            check,
            plan: Plan {
                mode: args.mode,
                chunk: args.chunk,
                readahead: args.readahead,
                pool: args.pool.get(),
                jobs: args.jobs.map_or_else(default_jobs, |j| j.get()),
            },
            recursive: args.recursive,
            progress,
            stats: args.stats,
            files,
        })
    }

    /// Is this the threaded pipeline (for the `--stats` report)?
    pub fn is_threaded(&self) -> bool {
        self.plan.mode == Mode::Threaded
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::parse;

    fn config(argv: &[&str]) -> Result<Config, String> {
        let inv = Invocation::from_argv0(Some(&OsString::from(argv[0])));
        let args = parse(&inv, argv.iter().map(OsString::from).collect()).unwrap();
        Config::from_args(args, &inv)
    }

    #[test]
    fn gnu_rejections() {
        assert!(config(&["fastsum", "-c", "--tag"]).is_err());
        assert!(config(&["fastsum", "-c", "-z"]).is_err());
        assert!(config(&["fastsum", "-c", "-b"]).is_err());
        assert!(config(&["fastsum", "--tag", "-t"]).is_err());
        let e = config(&["fastsum", "--strict"]).unwrap_err();
        assert_eq!(
            e,
            "the --strict option is meaningful only when verifying checksums"
        );
        assert!(config(&["fastsum", "--tag", "-b"]).is_ok());
        assert!(config(&["fastsum", "--pool", "4", "--readahead", "1G"]).is_ok());
        assert!(config(&["fastsum", "--pool", "5", "--readahead", "1G"]).is_err());
        assert!(config(&["fastsum", "--pool", "1024", "--readahead", "4M"]).is_ok());
    }

    #[test]
    fn defaults() {
        let c = config(&["fastsum"]).unwrap();
        assert_eq!(c.algorithm, Algorithm::Md5);
        assert!(!c.algorithm_chosen);
        assert!(config(&["fastsum", "-a", "md5"]).unwrap().algorithm_chosen);
        assert!(config(&["md5sum"]).unwrap().algorithm_chosen);
        assert_eq!(c.files, vec![OsString::from("-")]);
        assert_eq!(c.plan.mode, Mode::Threaded);
        assert!(c.plan.jobs >= 1);
        let c = config(&["/bin/sha512sum", "-c", "--status", "x"]).unwrap();
        assert_eq!(c.algorithm, Algorithm::Sha512);
        assert_eq!(c.check.unwrap().verbosity, Verbosity::Status);
        let c = config(&["sha1sum", "-a", "blake3"]).unwrap();
        assert_eq!(c.algorithm, Algorithm::Blake3);
    }
}
