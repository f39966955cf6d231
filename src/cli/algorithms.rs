//! The algorithms of a run: `-a` and `--part-size` composed, `-l BITS`
//! checked as GNU checks it, the name's default, and the kernel variables
//! of those that run.

use crate::algo::{Algorithm, Algorithms, Bits, LaneEngine, LaneKernels, MAX_ALGORITHMS, Sha3Size};

use super::name::{Flavour, Invocation};
use super::options::{self, Args};
use super::usage::{Conflict, LengthWhy, UsageError};

/// The algorithms of the run: `-a` sized by `-l` (cksum's `-a sha2 -l`
/// the SHA-2 of that size, and any without `-l`), or the name's default;
/// then what they refuse: an algorithm twice, several in untagged lines,
/// a kernel variable that names no kernel.
pub(super) fn algorithms(
    args: &Args,
    inv: &Invocation,
    length: Option<u64>,
) -> Result<Algorithms, UsageError> {
    let refuse = |c| Err(UsageError::Conflict(c));
    let sized = args.algorithms.iter().map(|&a| match (args.sha2, length) {
        (true, Some(bits)) => sha2_of(bits).unwrap_or(a),
        _ => length
            .and_then(|bits| a.with_length(bits).ok())
            .unwrap_or(a),
    });
    // -c -a sha2 without -l: a line of any SHA-2 size
    let sha2_any = [
        Algorithm::Sha224,
        Algorithm::Sha256,
        Algorithm::Sha384,
        Algorithm::Sha512,
    ];
    if args.algorithms.len() > MAX_ALGORITHMS {
        return Err(UsageError::Conflict(Conflict::TooManyAlgorithms));
    }
    let algorithms = match Algorithms::new(sized) {
        Ok(_) if args.sha2 && length.is_none() => {
            Algorithms::new(sha2_any).unwrap_or(Algorithms::one(Algorithm::Sha256))
        }
        Ok(set) => set,
        Err(Some(twice)) => return refuse(Conflict::AlgorithmTwice(twice)),
        Err(None) => {
            let default = inv.default_algorithm.unwrap_or(Algorithm::Md5);
            Algorithms::one(
                length
                    .and_then(|bits| default.with_length(bits).ok())
                    .unwrap_or(default),
            )
        }
    };
    // Several algorithms print tagged lines: GNU's untagged layout would not
    // say which hex is which.
    if algorithms.len() > 1 && !args.check && !args.tag && args.binary.is_some() {
        return refuse(Conflict::SeveralUntagged);
    }
    kernels_env(&algorithms)?;
    Ok(algorithms)
}

/// The kernel variables of the algorithms that run, checked: a
/// FASTSUM_MD5, FASTSUM_MD5_LANES or FASTSUM_SHA_LANES that names no
/// kernel (or no path the CPU runs) is a usage error when an algorithm
/// whose lane engine chooses among those kernels runs (its row's lanes).
fn kernels_env(algorithms: &Algorithms) -> Result<(), UsageError> {
    let env = |e: &dyn std::fmt::Display| UsageError::Environment(e.to_string());
    let mut kernels: Vec<LaneKernels> = algorithms
        .as_slice()
        .iter()
        .filter_map(|a| a.lanes().map(LaneEngine::kernels))
        .collect();
    // (MD5's first, whatever the order of the algorithms)
    kernels.sort_unstable();
    kernels.dedup();
    for kernels in kernels {
        match kernels {
            LaneKernels::Md5 => {
                crate::algo::md5::Kernel::check_env().map_err(|e| env(&e))?;
                crate::algo::md5::lanes::Path::check_env().map_err(|e| env(&e))?;
            }
            LaneKernels::Sha => {
                crate::algo::sha::lanes::Path::check_env().map_err(|e| env(&e))?;
            }
        }
    }
    Ok(())
}

/// `--part-size`: each algorithm named (md5 if none) over each part size,
/// as S3 composes it (the ones named with a part size, `md5@8M`, keep it);
/// refused for an algorithm S3 does not compose, and with what has no
/// digest over parts (`-c`: a line says its part size; `--tree-digest`,
/// cksum's `--raw`).
pub(super) fn over_parts(args: &mut Args) -> Result<(), Conflict> {
    if !args.part_sizes.is_empty() {
        compose(args)?;
    }
    if args.algorithms.iter().any(|a| a.parts().is_some()) {
        let with = [
            args.check
                .then_some(Conflict::NotWhenChecking("--part-size")),
            args.tree_digest
                .then_some(Conflict::TreeDigestWith("a part size")),
            args.raw_digest.then_some(Conflict::PartsWith("--raw")),
            // (--tag sets binary too: only -b and -t themselves are refused)
            args.binary
                .filter(|_| !args.tag)
                .map(|b| Conflict::PartsUntagged(if b { "--binary" } else { "--text" })),
        ];
        if let Some(c) = with.into_iter().flatten().next() {
            return Err(c);
        }
    }
    Ok(())
}

/// Each algorithm named (md5 if none) over each of `--part-size`'s sizes.
fn compose(args: &mut Args) -> Result<(), Conflict> {
    let named = match std::mem::take(&mut args.algorithms) {
        none if none.is_empty() => vec![Algorithm::Md5],
        named => named,
    };
    for algo in named {
        if algo.parts().is_some() {
            args.algorithms.push(algo);
            continue;
        }
        for &size in &args.part_sizes {
            let over = options::composed(algo, size).map_err(|_| Conflict::NotComposed(algo))?;
            args.algorithms.push(over);
        }
    }
    Ok(())
}

/// `-l BITS` (fastsum, b2sum) checked against the algorithms it sizes, in
/// GNU's order (b2sum 9.1: a number, a multiple of 8, at most 512; cksum
/// 9.8 for SHA-3: one of its sizes, and `-a sha3` needs one unless
/// checking). The length to apply, `None` for each algorithm's default
/// (no `-l`, or `-l 0` for BLAKE2b).
pub(super) fn length(args: &Args, inv: &Invocation) -> Result<Option<u64>, UsageError> {
    let default = inv.default_algorithm.unwrap_or(Algorithm::Md5);
    let chosen: Vec<Algorithm> = if args.algorithms.is_empty() {
        vec![default]
    } else {
        args.algorithms.clone()
    };
    let has = |a: Algorithm| chosen.iter().any(|c| c.same_family(a));
    let blake2b = has(Algorithm::Blake2b(Bits::MAX));
    // cksum's -a sha2 is sized as SHA-3 is
    let sha3 = has(Algorithm::Sha3(Sha3Size::S256)) || args.sha2;
    let Some(given) = &args.bits else {
        if sha3 && !args.check {
            return Err(UsageError::Conflict(Conflict::NeedsLength(if args.sha2 {
                "sha2"
            } else {
                "sha3"
            })));
        }
        return Ok(None);
    };
    let refuse = |why| {
        Err(UsageError::Length {
            given: given.clone(),
            why,
        })
    };
    let bits = match gnu_number(given) {
        Ok(n) => n,
        Err(why) => return refuse(why),
    };
    // GNU cksum refuses a length for another algorithm only when it is
    // not 0 (0 is every algorithm's own)
    if !blake2b && !sha3 && bits == 0 && inv.flavour() == Flavour::Cksum {
        return Ok(None);
    }
    if !blake2b && !sha3 {
        return Err(UsageError::Conflict(match inv.flavour() {
            Flavour::Cksum => Conflict::LengthOnlyBlake2b,
            _ => Conflict::LengthUnsupported,
        }));
    }
    if blake2b && !bits.is_multiple_of(8) {
        return refuse(LengthWhy::NotBytes);
    }
    if blake2b && bits > 512 {
        return refuse(LengthWhy::TooLong);
    }
    if sha3 && Sha3Size::new(bits).is_none() {
        return refuse(if args.sha2 {
            LengthWhy::NoSha2Size
        } else {
            LengthWhy::NoSha3Size
        });
    }
    Ok((bits != 0).then_some(bits))
}

/// What GNU's b2sum and cksum check of `-l BITS` when they meet it: a
/// number, and a multiple of 8 (`-l 7 -l 512` fails at the 7).
pub(super) fn bits_as_met(given: &str) -> Result<(), LengthWhy> {
    if gnu_number(given)?.is_multiple_of(8) {
        Ok(())
    } else {
        Err(LengthWhy::NotBytes)
    }
}

/// A number as GNU's `xdectoumax` reads it: blanks, an optional `+`, then
/// decimal digits to the end.
fn gnu_number(text: &str) -> Result<u64, LengthWhy> {
    let t = text.trim_start_matches([' ', '\t', '\n', '\x0b', '\x0c', '\r']);
    let t = t.strip_prefix('+').unwrap_or(t);
    if t.is_empty() || !t.bytes().all(|b| b.is_ascii_digit()) {
        return Err(LengthWhy::NotANumber);
    }
    t.parse().map_err(|_| LengthWhy::Overflow)
}

/// cksum's `-a sha2 -l BITS`: the SHA-2 of that size.
fn sha2_of(bits: u64) -> Option<Algorithm> {
    match bits {
        224 => Some(Algorithm::Sha224),
        256 => Some(Algorithm::Sha256),
        384 => Some(Algorithm::Sha384),
        512 => Some(Algorithm::Sha512),
        _ => None,
    }
}
