//! Check mode (`-c`): read checksum files and verify the files they list.
//! (Placeholder: issue 3 implements it.)

use std::io::{self, Write};

use crate::config::Config;
use crate::report::Reporter;
use crate::stats::Stats;

/// Verify every checksum file of `cfg`.
pub fn run(_cfg: &Config, rep: &Reporter, _stats: &Stats, _out: impl Write) -> io::Result<()> {
    rep.error("--check is not implemented yet");
    Ok(())
}
