//! `--shard K/N`: the K-th of N shares of a run's inputs, balanced by
//! bytes, and the header line that tells `--merge` what the share is.
//!
//! The inputs are those the run would hash, in its order (the walk's, the
//! list's): all of them are known, with their sizes, before a share is
//! chosen, so this holds each name, its size and its place (about the
//! name's length and about 60 bytes an input). The shares: the inputs, the
//! biggest first (ties: by name, then by place), each go to the share with
//! the fewest bytes so far (ties: the lowest K), the longest-processing-
//! time rule: no share exceeds the mean by more than the biggest file.
//! Every host that lists the same inputs with the same sizes makes the
//! same shares.
//!
//! The header, one line ended as the run's lines are (a NUL with `-z`):
//!
//! ```text
//! # fastsum shard K/N inputs=C/T bytes=B set=ID per=P run=WORDS at=D,D,…
//! ```
//!
//! C of the run's T inputs are in this share, B bytes; ID digests every
//! input's name and size in order (parts of one whole have the same); P
//! lines an input (one per algorithm); WORDS the algorithms and the
//! options and operands that make the lines; `at` the places (from 0) of
//! the share's inputs in the run's order, as differences from the one
//! before: `--merge` puts each part's lines back in their places.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::io::{self, Write};

use crate::config::{Context, HashOptions, LineEnd, Shard};
use crate::input::Input;
use crate::walk::Entry;

/// What starts every header.
pub(crate) const HEADER: &str = "# fastsum shard ";

/// One input of the run, and what the shares are made by.
struct Item {
    entry: Entry,
    size: u64,
}

impl Item {
    fn name(&self) -> &[u8] {
        match &self.entry {
            Entry::Input(input) => input.name(),
            Entry::Error(path, _) => path.as_os_str().as_encoded_bytes(),
        }
    }
}

/// The share `shard` of `entries` and its header: the header written to
/// `out`, then the share's entries in the run's order.
pub(crate) fn share(
    cx: Context<'_>,
    opts: &HashOptions,
    shard: &Shard,
    entries: impl Iterator<Item = Entry>,
    out: &mut dyn Write,
) -> io::Result<Vec<Entry>> {
    let items: Vec<Item> = entries
        .map(|entry| {
            let size = match &entry {
                Entry::Input(Input::Path(p)) => std::fs::metadata(crate::sys::file_path(p))
                    .map(|m| m.len())
                    .unwrap_or(0),
                _ => 0,
            };
            Item { entry, size }
        })
        .collect();
    let owners = assign(&items, shard.n);
    let set = set_id(&items);
    let mut places = Vec::new();
    let mut bytes = 0u64;
    let mut mine = Vec::new();
    for (place, (item, owner)) in items.into_iter().zip(owners).enumerate() {
        if owner == shard.k {
            places.push(place);
            bytes += item.size;
            mine.push(item.entry);
        }
    }
    let algos: Vec<String> = cx
        .algos
        .as_slice()
        .iter()
        .map(|a| a.tag().into_owned())
        .collect();
    let mut header = format!(
        "{HEADER}{}/{} inputs={}/{} bytes={bytes} set={set} per={} run={},{} at=",
        shard.k,
        shard.n,
        places.len(),
        set.inputs,
        algos.len(),
        algos.join(","),
        shard.run,
    );
    let mut before = 0;
    for (i, &place) in places.iter().enumerate() {
        if i > 0 {
            header.push(',');
        }
        header.push_str(&(place - before).to_string());
        before = place;
    }
    header.push(match opts.style.end {
        LineEnd::Newline => '\n',
        LineEnd::Nul => '\0',
    });
    out.write_all(header.as_bytes())?;
    Ok(mine)
}

/// What identifies the run's whole list of inputs: how many, and a digest
/// of their names and sizes in order.
struct Set {
    inputs: usize,
    digest: String,
}

impl std::fmt::Display for Set {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.digest)
    }
}

fn set_id(items: &[Item]) -> Set {
    let mut hasher = blake3::Hasher::new();
    for item in items {
        let name = item.name();
        hasher.update(&(name.len() as u64).to_le_bytes());
        hasher.update(name);
        hasher.update(&item.size.to_le_bytes());
        hasher.update(&[u8::from(matches!(item.entry, Entry::Error(..)))]);
    }
    let hex = hasher.finalize().to_hex();
    Set {
        inputs: items.len(),
        digest: hex[..32].to_string(),
    }
}

/// Which share each item goes to: the biggest first (ties: by name, then
/// by place), each to the share with the fewest bytes so far (ties: the
/// lowest K).
fn assign(items: &[Item], n: u32) -> Vec<u32> {
    let mut order: Vec<usize> = (0..items.len()).collect();
    order.sort_by(|&a, &b| {
        (Reverse(items[a].size), items[a].name(), a).cmp(&(
            Reverse(items[b].size),
            items[b].name(),
            b,
        ))
    });
    let mut bins: BinaryHeap<Reverse<(u64, u32)>> = (0..n).map(|k| Reverse((0, k))).collect();
    let mut owners = vec![0; items.len()];
    for i in order {
        if let Some(Reverse((bytes, k))) = bins.pop() {
            owners[i] = k;
            bins.push(Reverse((bytes + items[i].size, k)));
        }
    }
    owners
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn items(sizes: &[u64]) -> Vec<Item> {
        sizes
            .iter()
            .enumerate()
            .map(|(i, &size)| Item {
                entry: Entry::Input(Input::Path(PathBuf::from(format!("f{i:03}")))),
                size,
            })
            .collect()
    }

    #[test]
    fn the_biggest_go_first_each_to_the_lightest_share() {
        // 10 (f001) → 0, 10 (f003) → 1, 7 → 2, 3 → 2 (the lightest), then
        // all hold 10: 2 → 0 (the lowest K), 1 → 1
        let got = assign(&items(&[1, 10, 3, 10, 2, 7]), 3);
        assert_eq!(got, [1, 0, 2, 1, 0, 2]);
    }

    #[test]
    fn one_share_takes_everything() {
        assert_eq!(assign(&items(&[5, 0, 9]), 1), [0, 0, 0]);
    }
}
