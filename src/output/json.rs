//! `--json`: one JSON object per line (JSON Lines) for each digest, each
//! verified line and each error, for programs rather than people.
//!
//! A name is `"path"`, a JSON string. A name that is not UTF-8 cannot be
//! one losslessly, so it is written lossily there (each invalid sequence as
//! U+FFFD) and exactly in `"path_bytes"`, an array of its byte values,
//! which only such names have. Keys come in a fixed order.

use std::io;

use serde_json::{Map, Value};

use crate::algo::Algorithm;
use crate::printer::Printer;
use crate::read::{Hashed, Task};
use crate::report::error_text;

use super::{Recorded, Verdict, Writer, base64, parts_text, quote_name};
use crate::config::Encoding;

/// `--json`'s objects (GNU's messages on stderr beside them).
pub(crate) struct Json {
    /// How digests are written (fastsum's `--base64`).
    pub(crate) encoding: Encoding,
}

impl Json {
    /// One object per algorithm of the task (with `meta`: its mtime too).
    fn objects(
        &self,
        p: &mut Printer<'_>,
        task: &Task<()>,
        hashed: &Hashed,
        meta: Option<&Recorded<'_>>,
    ) -> io::Result<()> {
        for (&algo, digest) in task.algos.as_slice().iter().zip(&hashed.digests) {
            p.line(|line| {
                let record = Record::new("path", task.input.name()).algorithm(algo);
                let record = match (algo.parts(), self.encoding) {
                    (Some(parts), _) => record
                        .number("part_size", parts.size.bytes())
                        .text("encoding", if parts.hex() { "hex" } else { "base64" })
                        .text("digest", &parts_text(parts, digest)),
                    (None, Encoding::Base64) => record
                        .text("encoding", "base64")
                        .text("digest", &base64(digest.as_bytes())),
                    (None, Encoding::Hex) => record.text("digest", &digest.to_hex()),
                };
                let record = record.number("size", hashed.size);
                match meta.and_then(|m| i64::try_from(m.mtime_ns?).ok()) {
                    Some(ns) => record.signed("mtime_ns", ns).write(line),
                    None => record.write(line),
                }
            })?;
        }
        Ok(())
    }
}

impl Writer for Json {
    /// One object per algorithm of the task, in its order. A digest in hex
    /// has no `encoding` (as before there were others); `--base64` and the
    /// digests over parts say theirs, and the latter their `part_size`.
    fn digests(&self, p: &mut Printer<'_>, task: &Task<()>, hashed: &Hashed) -> io::Result<()> {
        self.objects(p, task, hashed, None)
    }

    /// The same objects, with the mtime `--meta` records (`mtime_ns`, when
    /// it vouches for the bytes).
    fn digests_with(
        &self,
        p: &mut Printer<'_>,
        task: &Task<()>,
        hashed: &Hashed,
        meta: &Recorded<'_>,
    ) -> io::Result<()> {
        self.objects(p, task, hashed, Some(meta))
    }

    /// An object on stdout too.
    fn failed(&self, p: &mut Printer<'_>, name: &[u8], e: &io::Error) -> io::Result<()> {
        p.line(|line| {
            Record::new("path", name)
                .text("error", &error_text(e))
                .write(line)
        })?;
        p.error(&format!("{}: {}", quote_name(name), error_text(e)))
    }

    fn status(&self, p: &mut Printer<'_>, v: &Verdict<'_>) -> io::Result<()> {
        p.line(|line| {
            let r = verdict(v);
            match v.error {
                Some(e) => r.text("error", &error_text(e)),
                None => r,
            }
            .write(line)
        })
    }

    fn audited(&self, p: &mut Printer<'_>, v: &Verdict<'_>) -> io::Result<()> {
        p.line(|line| {
            let r = verdict(v);
            match v.from {
                Some(from) => r.name("from", from),
                None => r,
            }
            .write(line)
        })
    }
}

/// A verdict's object: its name, status and algorithm (over parts, and
/// its part size).
fn verdict(v: &Verdict<'_>) -> Record {
    let r = Record::new("path", v.name)
        .text("status", v.status.word())
        .algorithm(v.algo);
    match v.algo.parts() {
        Some(parts) => r.number("part_size", parts.size.bytes()),
        None => r,
    }
}

/// One object under construction, keys in insertion order.
pub(crate) struct Record(Map<String, Value>);

impl Record {
    /// An object whose first key is the name `path` (see the module doc).
    pub(crate) fn new(key: &str, path: &[u8]) -> Record {
        let mut map = Map::new();
        push_name(&mut map, key, path);
        Record(map)
    }

    /// Add `"key": "value"`.
    pub(crate) fn text(mut self, key: &str, value: &str) -> Record {
        self.0.insert(key.into(), Value::from(value));
        self
    }

    /// Add `"key": n`.
    pub(crate) fn number(mut self, key: &str, n: u64) -> Record {
        self.0.insert(key.into(), Value::from(n));
        self
    }

    /// Add a number that may be negative (an mtime before 1970).
    pub(crate) fn signed(mut self, key: &str, n: i64) -> Record {
        self.0.insert(key.into(), Value::from(n));
        self
    }

    /// Add another name under `key` (and `key_bytes`), as `path` is added.
    pub(crate) fn name(mut self, key: &str, name: &[u8]) -> Record {
        push_name(&mut self.0, key, name);
        self
    }

    /// Add `"algorithm"`: the name `-a` takes.
    pub(crate) fn algorithm(self, algo: Algorithm) -> Record {
        self.text("algorithm", algo.name())
    }

    /// Append the object and a newline to `out`.
    pub(crate) fn write(self, out: &mut Vec<u8>) {
        // a map of strings and numbers always serializes
        let _ = serde_json::to_writer(&mut *out, &self.0);
        out.push(b'\n');
    }
}

/// `key` as a string and, for a name that is not UTF-8, `key_bytes`.
fn push_name(map: &mut Map<String, Value>, key: &str, name: &[u8]) {
    let text = String::from_utf8_lossy(name);
    let exact = matches!(text, std::borrow::Cow::Borrowed(_));
    map.insert(key.into(), Value::from(text.into_owned()));
    if !exact {
        map.insert(format!("{key}_bytes"), Value::from(name.to_vec()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(r: Record) -> String {
        let mut out = Vec::new();
        r.write(&mut out);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn keys_keep_their_order_and_names_are_escaped() {
        let r = Record::new("path", b"a\"b\nc")
            .algorithm(Algorithm::Md5)
            .text("digest", "00")
            .number("size", 3);
        assert_eq!(
            line(r),
            "{\"path\":\"a\\\"b\\nc\",\"algorithm\":\"md5\",\"digest\":\"00\",\"size\":3}\n"
        );
    }

    #[test]
    fn names_that_are_not_utf8_keep_their_bytes() {
        let r = Record::new("path", b"a\xffb").name("from", b"\xfe");
        let v: Value = serde_json::from_str(&line(r)).unwrap();
        assert_eq!(v["path"], "a\u{fffd}b");
        assert_eq!(v["path_bytes"], serde_json::json!([97, 255, 98]));
        assert_eq!(v["from_bytes"], serde_json::json!([254]));
        let plain = line(Record::new("path", "é".as_bytes()));
        assert!(!plain.contains("path_bytes"), "{plain}");
    }
}
