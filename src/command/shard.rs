//! `--shard K/N`: the K-th of N shares of a run's inputs, balanced by
//! bytes, and the header line that tells `--merge` what the share is.
//!
//! The inputs are those the run would hash, in its order (the walk's, the
//! list's): all of them are known, with their sizes, before a share is
//! chosen, so this holds each name, its size and its place (about the
//! name's length and about 60 bytes an input; with `--list-sizes`, the
//! list itself and 32 bytes a name). The sizes are the walk's (a `stat`
//! of each input), or a `--list-sizes` list's (no file looked at: each of
//! N shards then costs a read of the list, not a walk and a `stat` of the
//! whole tree). The shares ([`assign`]): the big inputs (over a tenth of a
//! share's mean) first, the biggest first, each to the lightest share;
//! then the rest in the run's order, cut into N stretches that fill every
//! share to one level, so that no share exceeds the mean by more than a
//! tenth of it, unless one file alone is bigger. Every host that lists
//! the same inputs with the same sizes makes the same shares.

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

use crate::config::{Context, HashOptions, LineEnd, Shape, Shard};
use crate::input::Input;
use crate::walk::Entry;

/// What starts every header.
pub(crate) const HEADER: &str = "# fastsum shard ";

/// The run's inputs as the shares are made of them, in the run's order:
/// each one's name and size, and the entries of those a share takes.
pub(crate) trait Inputs {
    /// Each input's size in bytes (0 for an error), in order.
    fn sizes(&self) -> &[u64];
    /// Feed `hasher` what identifies the inputs: every name and size, in
    /// order (parts of one whole feed the same).
    fn identify(&self, hasher: &mut blake3::Hasher);
    /// The entries at `places` (ascending), in their order.
    fn entries(self, places: &[usize]) -> Vec<Entry>;
}

/// Inputs the walk (or a list of names alone) gave: each one looked at
/// for its size.
pub(crate) struct Walked {
    entries: Vec<Entry>,
    sizes: Vec<u64>,
}

impl Walked {
    /// Every entry, with its size from a `stat` (0 when it has none).
    pub(crate) fn stat(entries: impl Iterator<Item = Entry>) -> Walked {
        let entries: Vec<Entry> = entries.collect();
        let sizes = entries
            .iter()
            .map(|entry| match entry {
                Entry::Input(Input::Path(p)) => std::fs::metadata(crate::sys::file_path(p))
                    .map(|m| m.len())
                    .unwrap_or(0),
                _ => 0,
            })
            .collect();
        Walked { entries, sizes }
    }
}

impl Inputs for Walked {
    fn sizes(&self) -> &[u64] {
        &self.sizes
    }
    fn identify(&self, hasher: &mut blake3::Hasher) {
        // (gathered into blocks first: BLAKE3 is quickest fed in large
        // pieces)
        const BLOCK: usize = 1 << 16;
        let mut block = Vec::with_capacity(BLOCK + 4096);
        for (entry, size) in self.entries.iter().zip(&self.sizes) {
            let (name, error) = match entry {
                Entry::Input(input) => (input.name(), false),
                Entry::Error(path, _) => (path.as_os_str().as_encoded_bytes(), true),
            };
            block.extend_from_slice(&(name.len() as u64).to_le_bytes());
            block.extend_from_slice(name);
            block.extend_from_slice(&size.to_le_bytes());
            block.push(u8::from(error));
            if block.len() >= BLOCK {
                hasher.update(&block);
                block.clear();
            }
        }
        hasher.update(&block);
    }
    fn entries(self, places: &[usize]) -> Vec<Entry> {
        let mut places = places.iter().peekable();
        let mut mine = Vec::with_capacity(places.len());
        for (i, entry) in self.entries.into_iter().enumerate() {
            if places.next_if_eq(&&i).is_some() {
                mine.push(entry);
            }
        }
        mine
    }
}

/// The share `shard` of `inputs` and its header: the header written to
/// `out`, then the share's entries in the run's order.
pub(crate) fn share(
    cx: Context<'_>,
    opts: &HashOptions,
    shard: &Shard,
    inputs: impl Inputs,
    out: &mut dyn Write,
) -> io::Result<Vec<Entry>> {
    let sizes = inputs.sizes();
    let owners = assign(sizes, shard.n);
    let set = set_id(&inputs);
    let places: Vec<usize> = (0..owners.len())
        .filter(|&i| owners[i] == shard.k)
        .collect();
    let bytes: u64 = places.iter().map(|&i| sizes[i]).sum();
    let algos: Vec<String> = cx
        .algos
        .as_slice()
        .iter()
        .map(|a| a.tag().into_owned())
        .collect();
    // (with --meta each line of text comes after its `#meta` line; JSON
    // carries the record inside)
    let meta = opts.meta && !matches!(opts.style.shape, Shape::Json);
    let per = algos.len() * (1 + usize::from(meta));
    let mut header = format!(
        "{HEADER}{}/{} inputs={}/{} bytes={bytes} set={set} per={} run={},{} at=",
        shard.k,
        shard.n,
        places.len(),
        set.inputs,
        per,
        algos.join(","),
        shard.run,
    );
    let mut before = 0;
    for (i, &place) in places.iter().enumerate() {
        use std::fmt::Write as _;
        if i > 0 {
            header.push(',');
        }
        let _ = write!(header, "{}", place - before);
        before = place;
    }
    header.push(match opts.style.end {
        LineEnd::Newline => '\n',
        LineEnd::Nul => '\0',
    });
    out.write_all(header.as_bytes())?;
    Ok(inputs.entries(&places))
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

fn set_id(inputs: &impl Inputs) -> Set {
    let mut hasher = blake3::Hasher::new();
    inputs.identify(&mut hasher);
    let hex = hasher.finalize().to_hex();
    Set {
        inputs: inputs.sizes().len(),
        digest: hex[..32].to_string(),
    }
}

/// Which share each input goes to, by its weight: its size plus one (so
/// that empty files spread too). The big ones (over a tenth of a share's
/// mean) first, the biggest first (ties: by place), each to the lightest
/// share (ties: the lowest K); then the rest, in the run's order, laid
/// end to end and cut into N stretches, share 0's first, each as long as
/// fills its share to one level. No share ends above that level (at most
/// the mean) by more than the biggest of the rest (a tenth of the mean),
/// unless its big ones alone weigh more. Linear but for the big ones'
/// sort: each of N shards pays this over the whole run.
fn assign(sizes: &[u64], n: u32) -> Vec<u32> {
    let weight = |i: usize| u128::from(sizes[i]) + 1;
    let total: u128 = (0..sizes.len()).map(weight).sum();
    let cut = total / u128::from(n) / 10;
    let mut big: Vec<usize> = (0..sizes.len()).filter(|&i| weight(i) > cut).collect();
    big.sort_unstable_by_key(|&i| (Reverse(sizes[i]), i));
    let mut loads = vec![0u128; n as usize];
    let mut owners = vec![0u32; sizes.len()];
    let mut bins: BinaryHeap<Reverse<(u128, u32)>> = (0..n).map(|k| Reverse((0, k))).collect();
    for &i in &big {
        if let Some(Reverse((load, k))) = bins.pop() {
            owners[i] = k;
            loads[k as usize] = load + weight(i);
            bins.push(Reverse((load + weight(i), k)));
        }
    }
    let rest = total - loads.iter().sum::<u128>();
    let level = water_level(&loads, rest);
    let mut ends = Vec::with_capacity(loads.len());
    let mut end = 0u128;
    for load in &loads {
        end += level.saturating_sub(*load);
        ends.push(end);
    }
    let (mut k, mut at) = (0usize, 0u128);
    for (i, owner) in owners.iter_mut().enumerate() {
        if weight(i) > cut {
            continue;
        }
        while k + 1 < ends.len() && at >= ends[k] {
            k += 1;
        }
        *owner = k as u32;
        at += weight(i);
    }
    owners
}

/// The level that `rest` more fills the shares of `loads` to, the
/// lightest first: the least L with the sum of `L - load` over the
/// shares below L at least `rest`.
fn water_level(loads: &[u128], rest: u128) -> u128 {
    let mut sorted = loads.to_vec();
    sorted.sort_unstable();
    let mut below = 0u128;
    for (j, &load) in sorted.iter().enumerate() {
        below += load;
        let shares = j as u128 + 1;
        let level = (rest + below).div_ceil(shares);
        if sorted.get(j + 1).is_none_or(|&next| level <= next) {
            return level;
        }
    }
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_big_go_first_each_to_the_lightest_share() {
        // all big (each over a tenth of the mean, 11): 10 (f001) → 0,
        // 10 (f003) → 1, 7 → 2, 3 → 2 (the lightest), 2 → 0, 1 → 1
        let got = assign(&[1, 10, 3, 10, 2, 7], 3);
        assert_eq!(got, [1, 0, 2, 1, 0, 2]);
    }

    #[test]
    fn one_share_takes_everything() {
        assert_eq!(assign(&[5, 0, 9], 1), [0, 0, 0]);
    }

    #[test]
    fn the_small_ones_fill_each_share_in_stretches() {
        // 300 empty files (weight 1 each, none big), 3 shares: 100 each,
        // in the run's order
        let got = assign(&[0; 300], 3);
        let stretch = |k: u32| got.iter().position(|&o| o == k);
        assert_eq!(
            (stretch(0), stretch(1), stretch(2)),
            (Some(0), Some(100), Some(200))
        );
        assert!(got.windows(2).all(|w| w[0] <= w[1]));
        // one big one (weight 50, share 0) and 60 small ones: the level is
        // 30, which share 0 is above: 30 each to shares 1 and 2
        let mut sizes = vec![0u64; 61];
        sizes[30] = 49;
        let got = assign(&sizes, 3);
        let count = |k| got.iter().filter(|&&o| o == k).count();
        assert_eq!(got[30], 0);
        assert_eq!((count(0), count(1), count(2)), (1, 30, 30));
    }

    #[test]
    fn no_share_exceeds_the_mean_by_more_than_a_tenth_or_its_biggest_file() {
        let mut rnd = crate::testing::Rng::new(44);
        for n in [1u32, 2, 3, 8, 64] {
            let sizes: Vec<u64> = (0..5000)
                .map(|_| match rnd.below(1000) {
                    0 => rnd.below(1 << 28) as u64,
                    _ => rnd.below(1 << 14) as u64,
                })
                .collect();
            let owners = assign(&sizes, n);
            let mut loads = vec![0u64; n as usize];
            for (i, &k) in owners.iter().enumerate() {
                loads[k as usize] += sizes[i] + 1;
            }
            let mean = loads.iter().sum::<u64>() / u64::from(n);
            let biggest = sizes.iter().max().map_or(0, |b| b + 1);
            let most = loads.iter().max().copied().unwrap_or(0);
            assert!(
                most <= (mean + mean / 10 + 1).max(biggest),
                "{n}: {loads:?}"
            );
        }
    }
}
