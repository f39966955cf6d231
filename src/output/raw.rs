//! cksum's `--raw`: each digest's bytes alone, no name, no line end (`cli`
//! allows it for one input).

use std::io;

use crate::printer::Printer;
use crate::read::{Hashed, Task};

use super::Writer;

/// The digests' bytes.
pub(crate) struct Raw;

impl Writer for Raw {
    fn digests(&self, p: &mut Printer<'_>, _task: &Task<()>, hashed: &Hashed) -> io::Result<()> {
        for digest in &hashed.digests {
            p.write(digest.as_bytes())?;
        }
        Ok(())
    }
}
