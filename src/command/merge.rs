//! `--merge PART...`: the one manifest that a run makes, from the parts
//! its `--shard K/N` runs wrote, byte for byte; or a refusal naming why,
//! and nothing written, when the parts do not make that whole.
//!
//! Each part's header (`command/shard.rs`) says which share it is, of
//! which run (N, the count and digest of the run's inputs, the options
//! and operands), how many lines it holds and the places of its inputs in
//! the run's order. A whole is every K from 0 to N-1 once, all of the same
//! run, each place in exactly one part, each part holding every line its
//! header announces (a part cut short, or whose last line is not ended, is
//! refused; so is a `--json` part with an input's error among its lines). The lines are then put back in their places. The parts are
//! read whole: memory is about twice the manifest.

use std::ffi::OsString;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use super::hash::publish;
use super::shard::HEADER;
use crate::config::Context;
use crate::output::quote_name;
use crate::report::error_text;

/// One part, read and its header understood.
struct Part {
    /// Its name, quoted for messages.
    name: String,
    k: u32,
    /// What must be the same in every part of one whole: N, the run's
    /// inputs and their digest, lines an input, the run's words, the
    /// line end.
    run: Run,
    /// Its inputs' places in the run's order, ascending.
    places: Vec<usize>,
    /// Its lines, each ended by the line end.
    body: Vec<u8>,
}

/// What identifies the run a part belongs to.
#[derive(Clone, PartialEq, Eq)]
struct Run {
    n: u32,
    inputs: usize,
    set: String,
    per: usize,
    words: String,
    end: u8,
}

/// Merge the parts named by `parts` into one manifest, to `output` (made
/// as `--output` makes it) or `out`. A refusal is reported and the run
/// exits 1, with nothing written.
pub(crate) fn run(
    cx: Context<'_>,
    parts: &[OsString],
    output: Option<&Path>,
    out: &mut dyn Write,
) -> io::Result<()> {
    let merged = parts
        .iter()
        .map(read_part)
        .collect::<Result<Vec<Part>, String>>()
        .and_then(merge);
    match (merged, output) {
        (Err(why), _) => {
            cx.rep.error(&why);
            Ok(())
        }
        (Ok(bytes), Some(path)) => publish(cx, path, |w| w.write_all(&bytes)),
        (Ok(bytes), None) => {
            out.write_all(&bytes)?;
            out.flush()
        }
    }
}

/// A part, read whole, its header parsed and its lines counted.
fn read_part(name: &OsString) -> Result<Part, String> {
    let quoted = quote_name(name.as_encoded_bytes());
    let bytes = std::fs::read(crate::sys::file_path(&PathBuf::from(name)))
        .map_err(|e| format!("{quoted}: {}", error_text(&e)))?;
    let no_header = || {
        format!(
            "{quoted}: no '{}' line first: not a part",
            HEADER.trim_end()
        )
    };
    let end_at = bytes
        .iter()
        .position(|&b| b == b'\n' || b == b'\0')
        .ok_or_else(no_header)?;
    let header = std::str::from_utf8(&bytes[..end_at])
        .ok()
        .and_then(|h| h.strip_prefix(HEADER))
        .ok_or_else(no_header)?;
    let bad = |what: &str| format!("{quoted}: its header's {what} is not understood");
    let mut words = header.split(' ');
    let (k, n) = words
        .next()
        .and_then(|w| w.split_once('/'))
        .and_then(|(k, n)| Some((k.parse::<u32>().ok()?, n.parse::<u32>().ok()?)))
        .filter(|&(k, n)| k < n)
        .ok_or_else(|| bad("K/N"))?;
    let fields: Vec<(&str, &str)> = words.filter_map(|w| w.split_once('=')).collect();
    let field = |key: &str| {
        fields
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| *v)
            .ok_or_else(|| bad(key))
    };
    let (count, inputs) = field("inputs")?
        .split_once('/')
        .and_then(|(c, t)| Some((c.parse::<usize>().ok()?, t.parse::<usize>().ok()?)))
        .ok_or_else(|| bad("inputs"))?;
    let per = field("per")?.parse::<usize>().map_err(|_| bad("per"))?;
    let places = places(field("at")?, inputs).ok_or_else(|| bad("at"))?;
    if places.len() != count {
        return Err(bad("at"));
    }
    let run = Run {
        n,
        inputs,
        set: field("set")?.to_string(),
        per,
        words: field("run")?.to_string(),
        end: bytes[end_at],
    };
    let mut body = bytes;
    body.drain(..=end_at);
    let lines = memchr::memchr_iter(run.end, &body).count();
    if body.last().is_some_and(|&b| b != run.end) || lines != count * per {
        return Err(format!(
            "{quoted}: cut short: {lines} whole lines, its header announces {}",
            count * per
        ));
    }
    // --json writes an input that failed as a line too: its part is no
    // share of a run that succeeded
    let failed = br#"","error":""#;
    if run.words.split(',').any(|w| w == "--json") && memchr::memmem::find(&body, failed).is_some()
    {
        return Err(format!(
            "{quoted}: an input of it failed (its error is among its lines)"
        ));
    }
    Ok(Part {
        name: quoted,
        k,
        run,
        places,
        body,
    })
}

/// `at`'s differences as places, each below `inputs` and after the one
/// before; `None` if they are not.
fn places(at: &str, inputs: usize) -> Option<Vec<usize>> {
    if at.is_empty() {
        return Some(Vec::new());
    }
    let mut places = Vec::new();
    let mut place = 0usize;
    for (i, delta) in at.split(',').enumerate() {
        let delta: usize = delta.parse().ok()?;
        if i > 0 && delta == 0 {
            return None;
        }
        place = place.checked_add(delta)?;
        if place >= inputs {
            return None;
        }
        places.push(place);
    }
    Some(places)
}

/// The parts' lines in the run's order, if they make its whole.
fn merge(parts: Vec<Part>) -> Result<Vec<u8>, String> {
    let first = parts.first().ok_or("--merge needs the parts")?;
    let run = first.run.clone();
    let mut by_k: Vec<Option<usize>> = vec![None; run.n as usize];
    let mut owner: Vec<Option<usize>> = vec![None; run.inputs];
    for (i, part) in parts.iter().enumerate() {
        if part.run != run {
            return Err(format!(
                "{}: a part of another run than {} ({})",
                part.name,
                first.name,
                differs(&part.run, &run)
            ));
        }
        let slot = &mut by_k[part.k as usize];
        if let Some(other) = *slot {
            return Err(format!(
                "{}: shard {}/{} given twice (also {})",
                part.name, part.k, run.n, parts[other].name
            ));
        }
        *slot = Some(i);
        for &place in &part.places {
            if let Some(other) = owner[place].replace(i) {
                return Err(format!(
                    "{}: input {} of the run is also in {}",
                    part.name, place, parts[other].name
                ));
            }
        }
    }
    if let Some(k) = by_k.iter().position(Option::is_none) {
        return Err(format!("shard {k}/{} missing: no whole to merge", run.n));
    }
    let mut cursors = vec![0usize; parts.len()];
    let mut merged = Vec::with_capacity(parts.iter().map(|p| p.body.len()).sum());
    for place in owner {
        let i = place.ok_or("an input of the run is in no part")?;
        let (body, at) = (&parts[i].body, &mut cursors[i]);
        for _ in 0..run.per {
            let len = memchr::memchr(run.end, &body[*at..]).ok_or("a part is cut short")?;
            merged.extend_from_slice(&body[*at..=*at + len]);
            *at += len + 1;
        }
    }
    Ok(merged)
}

/// What differs between two parts' runs, in words.
fn differs(a: &Run, b: &Run) -> &'static str {
    if a.n != b.n {
        "another N"
    } else if a.inputs != b.inputs || a.set != b.set {
        "other inputs, or other sizes"
    } else if a.words != b.words || a.per != b.per {
        "other algorithms or options"
    } else {
        "other line ends"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn places_are_differences_each_after_the_one_before() {
        assert_eq!(places("", 3), Some(vec![]));
        assert_eq!(places("0,2,1", 4), Some(vec![0, 2, 3]));
        assert_eq!(places("1,0", 4), None);
        assert_eq!(places("3,1", 4), None);
        assert_eq!(places("x", 4), None);
    }
}
