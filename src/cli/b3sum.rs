//! b3sum's output options under the b3sum name: `-l/--length` (BLAKE3's
//! extendable output), `--no-names` and `--raw`. A run with any of them
//! hashes its inputs here, one after another, and writes what b3sum
//! writes; every other run takes fastsum's pipeline.

use std::io::{self, Read, Write};

use super::Args;
use crate::config::Config;
use crate::input::{Input, error_text};
use crate::output::{LineFormat, format_line, quote_name};
use crate::report::{Exit, Reporter, is_broken_pipe};
use crate::walk::{self, Entry};

/// b3sum's own options, as given.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct B3Options {
    /// `-l/--length`: output bytes per input.
    pub length: Option<u64>,
    /// `--no-names`.
    pub no_names: bool,
    /// `--raw`.
    pub raw: bool,
    /// `--no-mmap`: accepted; fastsum maps files only with `-m mmap`.
    pub no_mmap: bool,
    /// `--num-threads`: taken as `-j` when `-j` is not given (0: the default).
    pub num_threads: Option<usize>,
}

impl B3Options {
    /// Take one of b3sum's options from the scan; `Err` is clap's wording
    /// of a bad value. `false` if `long` is not one of them.
    pub(crate) fn set(
        &mut self,
        long: &str,
        value: Option<&std::ffi::OsStr>,
    ) -> Result<bool, String> {
        let number = |name: &str| -> Result<u64, String> {
            let v = value.map(|v| v.to_string_lossy()).unwrap_or_default();
            v.parse::<u64>().map_err(|e| {
                format!("error: invalid value '{v}' for '--{name}': {e}\n\nFor more information, try '--help'.\n")
            })
        };
        match long {
            "length" => self.length = Some(number("length <LEN>")?),
            "num-threads" => {
                let n = number("num-threads <NUM>")?;
                self.num_threads = Some(usize::try_from(n).unwrap_or(usize::MAX));
            }
            "no-names" => self.no_names = true,
            "raw" => self.raw = true,
            "no-mmap" => self.no_mmap = true,
            _ => return Ok(false),
        }
        Ok(true)
    }
}

/// What the output options ask for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Xof {
    /// Output bytes per input (b3sum's default: 32).
    pub length: u64,
    /// `--raw`: the bytes themselves, no name, no newline.
    pub raw: bool,
    /// `--no-names`: the hex alone on each line.
    pub no_names: bool,
}

impl Xof {
    /// `Some` when the run needs this path (one of the options was given).
    pub fn from_args(args: &Args) -> Option<Xof> {
        let b = &args.b3sum;
        (b.raw || b.no_names || b.length.is_some()).then(|| Xof {
            length: b.length.unwrap_or(blake3::OUT_LEN as u64),
            raw: b.raw,
            no_names: b.no_names,
        })
    }

    /// b3sum's refusals, worded and with the status b3sum exits with: clap
    /// refuses these with `-c` (2); `--raw` with more than one input is
    /// b3sum's own error (1).
    pub fn refusal(&self, args: &Args) -> Option<(String, u8)> {
        if args.check {
            let flag = if self.raw {
                "--raw"
            } else if self.no_names {
                "--no-names"
            } else {
                "--length <LEN>"
            };
            return Some((
                format!(
                    "error: the argument '--check' cannot be used with '{flag}'\n\n\
                     For more information, try '--help'.\n"
                ),
                2,
            ));
        }
        if self.raw && args.files.len() > 1 {
            return Some((
                "b3sum: Only one filename can be provided when using --raw\n".into(),
                1,
            ));
        }
        None
    }
}

/// Hash `cfg.files` and write b3sum's output for each; errors go to stderr
/// as fastsum words them, and the run goes on.
pub fn run(xof: Xof, cfg: &Config, rep: &Reporter) -> Exit {
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    let mut line = Vec::new();
    for entry in walk::expand(cfg.files.clone(), cfg.recursive) {
        let input = match entry {
            Entry::Input(input) => input,
            Entry::Error(path, e) => {
                report(rep, &mut out, &Input::Path(path), &e);
                continue;
            }
        };
        let hasher = match hash(&input) {
            Ok(h) => h,
            Err(e) => {
                report(rep, &mut out, &input, &e);
                continue;
            }
        };
        line.clear();
        let written = write_one(&mut out, &mut line, xof, cfg, &input, hasher);
        match written {
            Ok(()) => {}
            Err(e) if is_broken_pipe(&e) => return Exit::Ok,
            Err(e) => {
                rep.error(&format!("write error: {}", error_text(&e)));
                return Exit::Failure;
            }
        }
    }
    match out.flush() {
        Ok(()) => rep.exit(),
        Err(e) if is_broken_pipe(&e) => Exit::Ok,
        Err(e) => {
            rep.error(&format!("write error: {}", error_text(&e)));
            Exit::Failure
        }
    }
}

fn report(rep: &Reporter, out: &mut impl Write, input: &Input, e: &io::Error) {
    // keep stdout and stderr in order on a terminal
    let _ = out.flush();
    rep.error(&format!("{}: {}", quote_name(input.name()), error_text(e)));
}

fn hash(input: &Input) -> io::Result<blake3::Hasher> {
    let mut src = input.open()?;
    let mut hasher = blake3::Hasher::new();
    let mut buf = vec![0u8; 256 * 1024];
    loop {
        let n = crate::input::read_retry(&mut src, &mut buf)?;
        if n == 0 {
            return Ok(hasher);
        }
        hasher.update_multithreaded_or_not(&buf[..n]);
    }
}

/// blake3's rayon update for big buffers, as fastsum's Hasher does.
trait UpdateBig {
    fn update_multithreaded_or_not(&mut self, data: &[u8]);
}

impl UpdateBig for blake3::Hasher {
    fn update_multithreaded_or_not(&mut self, data: &[u8]) {
        if data.len() >= crate::algo::BLAKE3_MULTITHREAD_MIN {
            self.update_rayon(data);
        } else {
            self.update(data);
        }
    }
}

fn write_one(
    out: &mut impl Write,
    line: &mut Vec<u8>,
    xof: Xof,
    cfg: &Config,
    input: &Input,
    hasher: blake3::Hasher,
) -> io::Result<()> {
    let mut reader = hasher.finalize_xof();
    if xof.raw {
        io::copy(&mut (&mut reader).take(xof.length), out)?;
        return Ok(());
    }
    // The line with an empty hex, split where the hex goes: after the
    // escape mark of an untagged line, before the newline of a tagged one.
    let split = if xof.no_names {
        line.push(b'\n');
        0
    } else {
        format_line(line, "BLAKE3", "", input.name(), cfg.format, cfg.terminator);
        match cfg.format {
            LineFormat::Tagged => line.len() - 1,
            LineFormat::Gnu { .. } => usize::from(line.first() == Some(&b'\\')),
        }
    };
    out.write_all(&line[..split])?;
    // the hex in 64-byte blocks, so any --length streams in constant memory
    let mut left = xof.length;
    let mut block = [0u8; 64];
    let mut hex = [0u8; 128];
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    while left > 0 {
        let n = left.min(64) as usize;
        reader.fill(&mut block[..n]);
        for (i, b) in block[..n].iter().enumerate() {
            hex[2 * i] = DIGITS[usize::from(b >> 4)];
            hex[2 * i + 1] = DIGITS[usize::from(b & 15)];
        }
        out.write_all(&hex[..2 * n])?;
        left -= n as u64;
    }
    out.write_all(&line[split..])
}
