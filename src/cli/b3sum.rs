//! b3sum's own options under the b3sum name: `-l/--length` (BLAKE3's
//! extendable output), `--no-names`, `--raw` (how the digest is written:
//! [`XofOutput`], rendered by hash mode), `--no-mmap` and `--num-threads`.

use super::Args;
use crate::config::XofOutput;

/// b3sum's own options, as given.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct B3Options {
    /// `-l/--length`: output bytes per input.
    pub(crate) length: Option<u64>,
    /// `--no-names`.
    pub(crate) no_names: bool,
    /// `--raw`.
    pub(crate) raw: bool,
    /// `--no-mmap`: no mapping and one thread per file, as b3sum's: sync mode.
    pub(crate) no_mmap: bool,
    /// `--num-threads`: taken as `-j` when `-j` is not given (0: the default).
    pub(crate) num_threads: Option<usize>,
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

    /// How the digest is written, when one of the output options was given.
    pub(crate) fn output(&self) -> Option<XofOutput> {
        (self.raw || self.no_names || self.length.is_some()).then(|| XofOutput {
            length: self.length.unwrap_or(blake3::OUT_LEN as u64),
            raw: self.raw,
            no_names: self.no_names,
        })
    }

    /// b3sum's refusals, worded and with the status b3sum exits with: clap
    /// refuses these with `-c` (2); `--raw` with more than one input is
    /// b3sum's own error (1).
    pub(crate) fn refusal(&self, args: &Args) -> Option<(String, u8)> {
        let out = self.output()?;
        if args.check {
            let flag = if out.raw {
                "--raw"
            } else if out.no_names {
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
        if out.raw && args.files.len() > 1 {
            return Some((
                "b3sum: Only one filename can be provided when using --raw\n".into(),
                1,
            ));
        }
        None
    }
}
