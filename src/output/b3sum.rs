//! b3sum's lines (names that are not UTF-8 written lossily, as b3sum
//! prints them), its `--length`/`--raw`/`--no-names`, and its check
//! wording: `FAILED (reason)`, no message on stderr, one summary for the
//! run.

use std::io;

use crate::algo::{Algorithm, Digest, push_hex};
use crate::config::{LineFormat, XofOutput};
use crate::printer::Printer;
use crate::read::{Hashed, Task};

use super::gnu::{Line, count, format_line, status_line, status_word};
use super::{Status, Tally, Verdict, Writer};

/// b3sum's lines.
pub(crate) struct B3sum {
    pub(crate) line: Line,
    /// `--length`, `--raw`, `--no-names`, when given.
    pub(crate) xof: Option<XofOutput>,
}

impl Writer for B3sum {
    fn digests(&self, p: &mut Printer<'_>, task: &Task<()>, hashed: &Hashed) -> io::Result<()> {
        if let (Some(xof), Some(digest)) = (self.xof, hashed.digests.first()) {
            return self.xof_line(p, task.algos.first(), digest, xof, task.input.name());
        }
        for (algo, digest) in task.algos.as_slice().iter().zip(&hashed.digests) {
            let hex = digest.to_hex();
            p.line(|out| format_line(out, &algo.tag(), &hex, task.input.name(), self.line))?;
        }
        Ok(())
    }

    /// b3sum says why in the status line, and nothing on stderr.
    fn unreadable(&self, _: &mut Printer<'_>, _: &[u8], _: &io::Error) -> io::Result<()> {
        Ok(())
    }

    fn status(&self, p: &mut Printer<'_>, v: &Verdict<'_>) -> io::Result<()> {
        match (v.status, v.error) {
            (Status::Ok, _) | (_, None) => status_line(p, v.name, status_word(v.status, v.error)),
            (_, Some(e)) => status_line(p, v.name, &format!("FAILED ({e})")),
        }
    }

    /// b3sum's one summary, after every check file: how many did not
    /// match (a line it refused, a file it could not read among them).
    fn checks_finished(&self, p: &mut Printer<'_>, tally: &Tally) -> io::Result<()> {
        if tally.mismatched == 0 {
            return Ok(());
        }
        let what = count(tally.mismatched, "computed checksum", "computed checksums");
        p.message(&format!("WARNING: {what} did NOT match"))
    }
}

impl B3sum {
    /// b3sum's `--length`/`--raw`/`--no-names`: the output streamed in
    /// pieces, so any length takes constant memory.
    fn xof_line(
        &self,
        p: &mut Printer<'_>,
        algo: Algorithm,
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
            format_line(&mut line, &algo.tag(), "", name, self.line);
            match self.line.format {
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
